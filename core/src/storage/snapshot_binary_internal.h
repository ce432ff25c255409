// trainfit core — what the binary snapshot's reader (snapshot_binary.cpp) and writer (snapshot_binary_pack.cpp)
// share: the header's constants and the one list of payload fields that both directions walk.
// Internal to the core: not installed with trainfit/*.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "trainfit/storage/snapshot.h"

namespace trainfit::detail::binary {

inline constexpr char kMagic[4] = {'T', 'F', 'S', 'B'};
inline constexpr size_t kHeaderBytes = 32;
// A number column's encoding byte: k in 0..kMaxScale = zigzag varints of value x 10^k; kRawDoubles = binary64.
inline constexpr int kMaxScale = 9;
inline constexpr int kRawDoubles = 255;
inline constexpr double kPow10[kMaxScale + 1] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
inline constexpr uint64_t kMaxOffers = 200000;  // as the JSON reader (snapshot_json_internal.h)

// ---------------------------------------------------------------- the fields, once for both directions

// The payload is one list of fields, walked by the Writer (which reads them) and by the Reader (which fills
// them), so the two directions cannot disagree on order or on a forgotten field.
// A run of fields of one type, in order.
template <class IO, class... S>
void strs(IO& io, S&... s) {
  (io.str(s), ...);
}
template <class IO, class... D>
void f64s(IO& io, D&... d) {
  (io.f64(d), ...);
}

template <class IO>
void billing_fields(IO& io, BillingRule& b) {
  io.str(b.match);
  f64s(io, b.increment_s, b.minimum_s);
  strs(io, b.note, b.source);
}

// The offers, column by column (version 4): all of one field, then all of the next, so that gzip finds the
// repeats (the same instance type, region, GPU, count and price digits down a column) that a row-wise layout
// scatters. Strings are indices into one string table per snapshot; numbers are decimal-scaled integers where
// that is exact (prices with 4 decimals, whole GiB in bytes), else binary64; ids are derived (offer_id_rule).
// Adding a field is one line here (and a format version).
template <class IO>
void offer_columns(IO& io, std::vector<Offer>& v) {
  io.col(v, "provider", &Offer::provider);
  io.col(v, "via", &Offer::via);
  io.col_str(v, "instance_type", &Offer::instance_type);
  io.col_str(v, "region", &Offer::region);
  io.col_str(v, "zone", &Offer::zone);
  io.col(v, "zone_count", &Offer::zone_count);
  io.col(v, "gpu", &Offer::gpu);
  io.col(v, "gpu_count", &Offer::gpu_count);
  io.col(v, "vcpus", &Offer::vcpus);
  io.col(v, "host_ram_bytes", &Offer::host_ram_bytes);
  io.col(v, "local_disk_bytes", &Offer::local_disk_bytes);
  io.col(v, "intra_link", &Offer::intra_link);
  io.col(v, "intra_link_GBps", &Offer::intra_link_GBps);
  io.col(v, "inter_net", &Offer::inter_net);
  io.col(v, "inter_net_Gbps", &Offer::inter_net_Gbps);
  io.col(v, "max_nodes", &Offer::max_nodes);
  io.col(v, "price_usd_per_h", &Offer::price_usd_per_h);
  io.col(v, "spot_usd_per_h", &Offer::spot_usd_per_h);
  io.col(v, "spot_max_usd_per_h", &Offer::spot_max_usd_per_h);
  io.col(v, "host_usd_per_h", &Offer::host_usd_per_h);
  io.col(v, "accel_usd_per_h", &Offer::accel_usd_per_h);
  io.col_str(v, "capture_date", &Offer::capture_date);
  io.col(v, "flags", &Offer::flags);
}

// The id an offer gets when its file does not say otherwise: seller/instance_type/region, the seller being the
// marketplace (via) when there is one, else the provider (docs/snapshot.md; the importer's rule, and what users'
// URLs and `--offer ID` hold). Ids that differ are stored as exceptions.
inline std::string offer_id_rule(const Offer& o, const std::vector<Provider>& providers) {
  std::string id;
  const int seller = o.via >= 0 ? o.via : o.provider;
  if (seller < 0 || seller >= static_cast<int>(providers.size())) return id;
  const std::string& p = providers[static_cast<size_t>(seller)].id;
  id.reserve(p.size() + o.instance_type.size() + o.region.size() + 2);
  id += p;
  id += '/';
  id += o.instance_type;
  id += '/';
  id += o.region;
  return id;
}

// The offer table: its size, the string table, the columns, then the ids the rule does not give.
template <class IO>
void offer_table(IO& io, std::vector<Offer>& offers, const std::vector<Provider>& providers) {
  io.offer_count(offers, 23);  // at least one byte per column per offer
  io.strings(offers, [&](auto& sub) { offer_columns(sub, offers); });
  io.ids(offers, providers);
}

template <class IO>
void payload_fields(IO& io, Snapshot& s, std::vector<Warning>& reader_warnings) {
  strs(io, s.id, s.currency, s.created);
  io.list(s.sources, 16, "sources", [&](SourceRef& x) { strs(io, x.id, x.address, x.capture_date, x.note); });
  io.list(s.gpus, 100, "gpus", [&](GpuSpec& g) {
    strs(io, g.id, g.name, g.vendor, g.arch);
    io.i32(g.year);
    f64s(io, g.memory_bytes, g.cuda_memory_bytes, g.mem_bandwidth_GBps, g.tflops_fp32, g.tflops_tf32, g.tflops_bf16,
         g.tflops_fp16, g.tflops_fp8);
    io.i32(g.nvlink_gen);
    io.f64(g.nvlink_GBps);
    io.i32(g.pcie_gen);
    io.f64(g.tdp_w);
    strs(io, g.source, g.source_status);
    io.flag(g.spec_incomplete);
    strs(io, g.spec_note, g.cuda_memory_source);
    io.flag(g.estimated_spec);
    io.str(g.estimated_note);
  });
  io.list(s.providers, 100, "providers", [&](Provider& p) {
    strs(io, p.id, p.name, p.capture_date, p.catalog_source);
    billing_fields(io, p.billing);
    io.list(p.billing_exceptions, 28, "billing exceptions", [&](BillingRule& b) { billing_fields(io, b); });
    io.f64(p.provision_s);
    io.flag(p.bills_provisioning);
    io.flag(p.spot.available);
    io.str(p.spot.pricing);
    io.f64(p.spot.interruption_rate_per_h);
    io.f64(p.spot.notice_s);
    io.flag(p.spot.early_preemption_free);
    io.f64(p.spot.free_window_s);
    io.str(p.spot.source);
    f64s(io, p.storage_usd_per_GB_month, p.storage_read_MBps, p.storage_write_MBps, p.egress_usd_per_GB,
         p.network_download_MBps);
    strs(io, p.notes, p.storage_source, p.egress_source, p.provision_source);
    auto access = [&](AccessFact& f) {
      io.str(f.match);
      io.enum8(f.how, Access::sales_contact);
      strs(io, f.detail, f.quota, f.max_cluster, f.source, f.date);
    };
    access(p.access);
    io.list(p.access_exceptions, 7, "access exceptions", access);
  });
  offer_table(io, s.offers, s.providers);
  io.list(s.reservations, 40, "reservations", [&](Reservation& rv) {  // version 5 (6: two fields more)
    strs(io, rv.id, rv.provider, rv.name);
    io.list(rv.terms, 16, "reservation terms", [&](TermStep& t) { f64s(io, t.up_to_s, t.increment_s); });
    io.str(rv.start_time_utc);
    io.i32(rv.max_instances);
    io.f64(rv.book_ahead_days);
    io.flag(rv.upfront);
    io.flag(rv.cancellable);
    io.flag(rv.cancellable_published);  // version 6
    io.i32(rv.min_instances);           // version 6
    strs(io, rv.capture_date, rv.source, rv.note);
    int64_t prev = 0;  // prices list offers mostly in snapshot order: each index is stored as the step from the last
    io.list(rv.prices, 2, "reserved prices", [&](ReservedPrice& x) { io.reserved_price(x, s.offers, prev); });
  });
  io.list(reader_warnings, 12, "warnings", [&](Warning& x) { strs(io, x.field, x.code, x.message); });
}

}  // namespace trainfit::detail::binary
