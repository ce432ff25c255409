// trainfit core — the compact binary form of a snapshot (snapshot.h; format in docs/snapshot.md, "Binary form").
// Why: the web page loads the bundled snapshot while its wasm still runs in V8's baseline tier, where tokenising
// 219 KB of JSON and converting 11,000 numbers was ~45 ms of the load (docs/performance.md, "Load time"). The
// binary form holds what the JSON reader produces (read_snapshot_json), so loading it skips the text entirely;
// the checks that depend on the load options (derive_snapshot_flags: staleness against today's date, price
// outliers) run at load exactly as after the JSON, and the result is the same Snapshot (tests/core).
//
// Layout, all little-endian: a 32-byte header
//   "TFSB" | u32 format version | u32 snapshot schema_version | u32 0 | u64 payload bytes | u64 checksum of payload
// (snapshot_binary_checksum: FNV-1a-64 over 8-byte words)
// then the payload: strings as u32 length + bytes, doubles as IEEE-754 binary64, vectors as u32 count + items,
// in the order of the structs in snapshot.h (payload_fields below: one field list for both directions).
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "snapshot_internal.h"
#include "trainfit/snapshot.h"

namespace trainfit {
namespace {

constexpr char kMagic[4] = {'T', 'F', 'S', 'B'};
constexpr size_t kHeaderBytes = 32;

}  // namespace

// FNV-1a's step over 8-byte little-endian words (then the last 0-7 bytes one at a time): an eighth of the
// iterations of the byte-wise hash, which matters in the browser's baseline tier, where this runs over 220 KB
// at every page load (and a byte loop inlined into the loader had V8 optimise the whole loader).
[[gnu::noinline]] uint64_t snapshot_binary_checksum(std::string_view payload) {
  constexpr uint64_t kPrime = 0x100000001b3ull;
  uint64_t h = 0xcbf29ce484222325ull;
  const size_t words = payload.size() / 8;
  const auto* b = reinterpret_cast<const unsigned char*>(payload.data());
  for (size_t i = 0; i < words; ++i, b += 8) {
    const uint64_t w = uint64_t{b[0]} | uint64_t{b[1]} << 8 | uint64_t{b[2]} << 16 | uint64_t{b[3]} << 24 |
                       uint64_t{b[4]} << 32 | uint64_t{b[5]} << 40 | uint64_t{b[6]} << 48 | uint64_t{b[7]} << 56;
    h = (h ^ w) * kPrime;
  }
  for (size_t i = words * 8; i < payload.size(); ++i)
    h = (h ^ static_cast<unsigned char>(payload[i])) * kPrime;
  return h;
}

namespace {

// ---------------------------------------------------------------- the fields, once for both directions

// The payload is one list of fields, walked by the Writer (which reads them) and by the Reader (which fills
// them), so the two directions cannot disagree on order or on a forgotten field.
template <class IO>
void billing_fields(IO& io, BillingRule& b) {
  io.str(b.match);
  io.f64(b.increment_s);
  io.f64(b.minimum_s);
  io.str(b.note);
  io.str(b.source);
}

template <class IO>
void payload_fields(IO& io, Snapshot& s, std::vector<size_t>& row_of, std::vector<Warning>& reader_warnings) {
  io.str(s.id);
  io.str(s.currency);
  io.str(s.created);
  io.list(s.sources, 16, "sources", [&](SourceRef& x) {
    io.str(x.id);
    io.str(x.address);
    io.str(x.capture_date);
    io.str(x.note);
  });
  io.list(s.gpus, 100, "gpus", [&](GpuSpec& g) {
    io.str(g.id);
    io.str(g.name);
    io.str(g.vendor);
    io.str(g.arch);
    io.i32(g.year);
    for (double* v : {&g.memory_bytes, &g.cuda_memory_bytes, &g.mem_bandwidth_GBps, &g.tflops_fp32, &g.tflops_tf32, &g.tflops_bf16,
                      &g.tflops_fp16, &g.tflops_fp8})
      io.f64(*v);
    io.i32(g.nvlink_gen);
    io.f64(g.nvlink_GBps);
    io.i32(g.pcie_gen);
    io.f64(g.tdp_w);
    io.str(g.source);
    io.str(g.source_status);
    io.flag(g.spec_incomplete);
    io.str(g.spec_note);
    io.str(g.cuda_memory_source);
    io.flag(g.estimated_spec);
    io.str(g.estimated_note);
  });
  io.list(s.providers, 100, "providers", [&](Provider& p) {
    io.str(p.id);
    io.str(p.name);
    io.str(p.capture_date);
    io.str(p.catalog_source);
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
    for (double* v : {&p.storage_usd_per_GB_month, &p.storage_read_MBps, &p.storage_write_MBps, &p.egress_usd_per_GB,
                      &p.network_download_MBps})
      io.f64(*v);
    io.str(p.notes);
    io.str(p.storage_source);
    io.str(p.egress_source);
    io.str(p.provision_source);
  });
  io.list(s.offers, 130, "offers", [&](Offer& o) {
    io.str(o.id);
    io.i32(o.provider);
    io.i32(o.via);
    io.str(o.instance_type);
    io.str(o.region);
    io.str(o.zone);
    io.i32(o.gpu);
    io.i32(o.gpu_count);
    io.f64(o.vcpus);
    io.f64(o.host_ram_bytes);
    io.f64(o.local_disk_bytes);
    io.enum8(o.intra_link, LinkClass::infinity_fabric);
    io.f64(o.intra_link_GBps);
    io.enum8(o.inter_net, NetKind::tcpx);
    io.f64(o.inter_net_Gbps);
    io.f64(o.price_usd_per_h);
    io.f64(o.spot_usd_per_h);
    io.i32(o.max_nodes);
    io.str(o.capture_date);
    io.u32(o.flags);
    io.i32(o.zone_count);
    io.f64(o.spot_max_usd_per_h);
    io.f64(o.host_usd_per_h);
    io.f64(o.accel_usd_per_h);
  });
  io.list(row_of, 4, "row index", [&](size_t& r) { io.index(r); });
  io.list(reader_warnings, 12, "warnings", [&](Warning& x) {
    io.str(x.field);
    io.str(x.code);
    io.str(x.message);
  });
}

// ---------------------------------------------------------------- writer

class Writer {
 public:
  std::string out;
  void u8(uint8_t v) { out.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) u8(static_cast<uint8_t>(v >> (8 * i)));
  }
  void i32(int v) { u32(static_cast<uint32_t>(v)); }
  void index(size_t v) { u32(static_cast<uint32_t>(v)); }
  void f64(double v) {
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    u64(b);
  }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    out += s;
  }
  void flag(bool b) { u8(b ? 1 : 0); }
  template <class E>
  void enum8(E e, E /*last*/) { u8(static_cast<uint8_t>(e)); }
  template <class T, class Each>
  void list(std::vector<T>& v, size_t /*min_item_bytes*/, const char* /*what*/, Each each) {
    u32(static_cast<uint32_t>(v.size()));
    for (T& x : v) each(x);
  }
};

// ---------------------------------------------------------------- reader

// A cursor over the payload. Every read is bounds-checked; the first failure is kept (`error`) and every read
// after it returns zeros, so a decoder runs to its end without branching on each field and reports once.
class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  std::string error;  // "" = fine so far
  bool ok() const { return !failed_; }
  bool at_end() const { return pos_ == b_.size(); }

  void fail(const std::string& why) {
    if (failed_) return;
    failed_ = true;
    error = why + " (at byte " + std::to_string(kHeaderBytes + pos_) + ")";
  }
  // NOTE(perf): the scalar reads are inlined into the field readers, and read little-endian words with one
  // memcpy where the machine is little-endian (wasm, x86, ARM): the bundled snapshot's ~40,000 reads ran as
  // calls and byte loops in the browser's baseline wasm tier (~5 ms of the page load, profile).
  [[gnu::always_inline]] uint8_t u8() {
    if (!need(1)) return 0;
    return static_cast<uint8_t>(b_[pos_++]);
  }
  [[gnu::always_inline]] uint32_t u32() { return le<uint32_t>(); }
  [[gnu::always_inline]] uint64_t u64() { return le<uint64_t>(); }
  // The field-list forms (payload_fields): each fills its argument.
  void u32(uint32_t& v) { v = u32(); }
  void i32(int& v) { v = static_cast<int>(u32()); }
  void index(size_t& v) { v = u32(); }
  void f64(double& v) {
    const uint64_t bits = u64();
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) {  // JSON has no NaN or infinity: the writer never wrote one
      fail("a number is not finite");
      v = 0;
    }
  }
  void flag(bool& b) {
    const uint8_t v = u8();
    if (v > 1) fail("a true/false field holds " + std::to_string(v));
    b = v == 1;
  }
  void str(std::string& out) {
    const uint32_t n = u32();
    if (!need(n)) return;
    out.assign(b_.data() + pos_, n);
    pos_ += n;
  }
  template <class E>
  void enum8(E& e, E last) {
    const uint8_t v = u8();
    if (v > static_cast<uint8_t>(last)) fail("unknown link or network kind " + std::to_string(v));
    e = ok() ? static_cast<E>(v) : E{};
  }
  // A count of items that take at least `min_item_bytes` each: refused when the rest of the payload cannot hold
  // them, so a corrupt count never becomes a huge allocation.
  template <class T, class Each>
  void list(std::vector<T>& v, size_t min_item_bytes, const char* what, Each each) {
    const uint32_t n = u32();
    if (ok() && static_cast<uint64_t>(n) * min_item_bytes > b_.size() - pos_)
      fail(std::string(what) + ": " + std::to_string(n) + " entries cannot fit in the remaining bytes");
    v.resize(ok() ? n : 0);
    for (T& x : v) {
      if (!ok()) return;
      each(x);
    }
  }

 private:
  [[gnu::always_inline]] bool need(size_t n) {
    if (failed_) return false;
    if (n > b_.size() - pos_) {
      fail("truncated");
      return false;
    }
    return true;
  }
  template <class U>
  [[gnu::always_inline]] U le() {
    if (!need(sizeof(U))) return 0;
    U v = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&v, b_.data() + pos_, sizeof v);
    } else {
      for (size_t i = 0; i < sizeof v; ++i) v |= static_cast<U>(static_cast<uint8_t>(b_[pos_ + i])) << (8 * i);
    }
    pos_ += sizeof v;
    return v;
  }
  bool failed_ = false;
  std::string_view b_;
  size_t pos_ = 0;
};

// What the ranking indexes with, or switches on, is checked: a wrong value there would be a wrong read later.
void check_payload(Reader& r, const Snapshot& s, const std::vector<size_t>& row_of) {
  const int n_gpus = static_cast<int>(s.gpus.size()), n_providers = static_cast<int>(s.providers.size());
  for (const Offer& o : s.offers) {
    if (o.provider < 0 || o.provider >= n_providers || o.gpu < 0 || o.gpu >= n_gpus)
      r.fail("offer " + o.id + ": provider or GPU index out of range");
    if (o.via < -1 || o.via >= n_providers || (o.via >= 0 && o.via == o.provider))
      r.fail("offer " + o.id + ": via index out of range or the offer's own provider");
    if (o.gpu_count < 1 || o.max_nodes < 1 || o.zone_count < 1) r.fail("offer " + o.id + ": a count below 1");
    if (o.flags & ~detail::kAllOfferFlags) r.fail("offer " + o.id + ": unknown flag bits");
  }
  if (row_of.size() != s.offers.size()) r.fail("row index does not match the offers");
  if (!r.at_end()) r.fail("unexpected bytes after the data");
}

}  // namespace

Result<std::string> pack_snapshot(std::string_view json_text) {
  SnapshotReport report;
  std::vector<size_t> row_of;
  std::optional<Snapshot> s = detail::read_snapshot_json(json_text, SnapshotLoadOptions{}, &report, &row_of);
  if (!s) return detail::first_error(report, "snapshot refused");
  Writer payload;
  payload_fields(payload, *s, row_of, report.warnings);
  Writer w;
  w.out.append(kMagic, sizeof kMagic);
  w.u32(kSnapshotBinaryVersion);
  w.u32(static_cast<uint32_t>(s->schema_version));
  w.u32(0);
  w.u64(payload.out.size());
  w.u64(snapshot_binary_checksum(payload.out));
  w.out += payload.out;
  return w.out;
}

std::optional<Snapshot> load_snapshot_binary_report(std::string_view bytes, const SnapshotLoadOptions& opt,
                                                    SnapshotReport* report) {
  SnapshotReport local;
  SnapshotReport* r = report ? report : &local;
  *r = SnapshotReport{};
  auto refuse = [&](const std::string& why) {
    r->errors.push_back({"", "binary snapshot: " + why});
    return std::nullopt;
  };
  if (bytes.size() > opt.max_input_bytes) return refuse("larger than the input limit");
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return refuse("not a trainfit binary snapshot");
  Reader h(bytes.substr(sizeof kMagic, kHeaderBytes - sizeof kMagic));
  const uint32_t version = h.u32(), schema = h.u32();
  h.u32();
  const uint64_t size = h.u64(), sum = h.u64();
  if (version != kSnapshotBinaryVersion)
    return refuse("format version " + std::to_string(version) + " (this build reads " +
                  std::to_string(kSnapshotBinaryVersion) + ")");
  if (schema != static_cast<uint32_t>(kSnapshotSchemaVersion))
    return refuse("schema_version " + std::to_string(schema) + " (this build reads " +
                  std::to_string(kSnapshotSchemaVersion) + ")");
  const std::string_view payload = bytes.substr(kHeaderBytes);
  if (size != payload.size())
    return refuse("payload is " + std::to_string(payload.size()) + " bytes, the header says " + std::to_string(size));
  if (snapshot_binary_checksum(payload) != sum) return refuse("checksum mismatch (the file is damaged)");
  Snapshot s;
  s.schema_version = kSnapshotSchemaVersion;
  std::vector<size_t> row_of;
  Reader p(payload);
  try {
    payload_fields(p, s, row_of, r->warnings);
    if (p.ok()) check_payload(p, s, row_of);
  } catch (const std::exception& e) {  // std::bad_alloc on a device out of memory
    p.fail(std::string("internal error: ") + e.what());
  }
  if (!p.ok()) return refuse(p.error);
  if (!detail::derive_snapshot_flags(s, row_of, opt, r)) return std::nullopt;
  return s;
}

Result<Snapshot> load_snapshot_binary(std::string_view bytes, const SnapshotLoadOptions& opt,
                                      std::vector<Warning>* warnings) {
  SnapshotReport r;
  std::optional<Snapshot> s = load_snapshot_binary_report(bytes, opt, &r);
  if (warnings) warnings->insert(warnings->end(), r.warnings.begin(), r.warnings.end());
  if (!s) return detail::first_error(r, "binary snapshot refused");
  return std::move(*s);
}

}  // namespace trainfit
