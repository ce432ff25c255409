// trainfit core — the price snapshot's deterministic JSON serializer (snapshot.h, snapshot_to_json): what the
// importer writes to data/snapshot.json and what the loader (snapshot_json_reader.cpp) reads back.
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/snapshot_internal.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {

using ojson = nlohmann::ordered_json;

namespace {
// Prices and sizes are rounded to 1e-6 so that float noise from sums (host + GPU) never reaches the file.
ojson num_or_null(double v) {
  if (v < 0) return nullptr;
  return std::round(v * 1e6) / 1e6;
}
// Strings come from parsed JSON or CSV; invalid UTF-8 is replaced instead of throwing.
std::string dump(const ojson& j) { return j.dump(-1, ' ', false, ojson::error_handler_t::replace); }
ojson billing_json(const BillingRule& b, bool with_match) {
  ojson j;
  if (with_match) j["match"] = b.match;
  j["increment_s"] = b.increment_s;
  j["minimum_s"] = b.minimum_s;
  j["note"] = b.note;
  j["source"] = b.source;
  return j;
}

// Writes `"k": v,` on a line of its own (no comma after the `last` one).
void put_kv(std::string& out, const char* k, const ojson& v, bool last = false) {
  out += "\"" + std::string(k) + "\": " + dump(v) + (last ? "\n" : ",\n");
}
// Arrays of objects: one element per line (diff-friendly, still compact).
void put_array(std::string& out, const char* k, const std::vector<ojson>& items) {
  out += "\"" + std::string(k) + "\": [";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ",\n  " : "\n  ") + dump(items[i]);
  out += items.empty() ? "],\n" : "\n],\n";
}

ojson source_json(const SourceRef& r) {
  ojson j;
  j["id"] = r.id;
  j["address"] = r.address;
  j["capture_date"] = r.capture_date;
  j["note"] = r.note;
  return j;
}

ojson gpu_json(const GpuSpec& g) {
  ojson j;
  j["id"] = g.id; j["name"] = g.name; j["vendor"] = g.vendor; j["arch"] = g.arch; j["year"] = g.year;
  j["memory_bytes"] = g.memory_bytes;
  if (g.cuda_memory_bytes > 0) { j["cuda_memory_bytes"] = g.cuda_memory_bytes; j["cuda_memory_source"] = g.cuda_memory_source; }
  j["mem_bandwidth_GBps"] = g.mem_bandwidth_GBps;
  j["tflops_fp32"] = g.tflops_fp32; j["tflops_tf32"] = g.tflops_tf32; j["tflops_bf16"] = g.tflops_bf16;
  j["tflops_fp16"] = g.tflops_fp16; j["tflops_fp8"] = g.tflops_fp8;
  j["nvlink_gen"] = g.nvlink_gen; j["nvlink_GBps"] = g.nvlink_GBps; j["pcie_gen"] = g.pcie_gen;
  j["tdp_w"] = g.tdp_w; j["source"] = g.source; j["source_status"] = g.source_status;
  j["spec_incomplete"] = g.spec_incomplete; j["spec_note"] = g.spec_note;
  if (g.estimated_spec) { j["estimated_spec"] = true; j["estimated_note"] = g.estimated_note; }
  return j;
}

ojson access_json(const AccessFact& f, bool with_match) {
  ojson a;
  if (with_match) a["match"] = f.match;
  a["how"] = access_name(f.how);
  a["detail"] = f.detail; a["quota"] = f.quota; a["max_cluster"] = f.max_cluster;
  a["source"] = f.source; a["date"] = f.date;
  return a;
}

ojson provider_json(const Provider& p) {
  ojson j;
  j["id"] = p.id; j["name"] = p.name; j["capture_date"] = p.capture_date;
  j["catalog_source"] = p.catalog_source;
  j["billing"] = billing_json(p.billing, false);
  ojson ex = ojson::array();
  for (const auto& b : p.billing_exceptions) ex.push_back(billing_json(b, true));
  j["billing_exceptions"] = ex;
  j["provision_s"] = p.provision_s; j["bills_provisioning"] = p.bills_provisioning;
  j["provision_source"] = p.provision_source;
  ojson sp;
  sp["available"] = p.spot.available; sp["pricing"] = p.spot.pricing;
  sp["interruption_rate_per_h"] = num_or_null(p.spot.interruption_rate_per_h);
  sp["notice_s"] = num_or_null(p.spot.notice_s);
  sp["early_preemption_free"] = p.spot.early_preemption_free; sp["free_window_s"] = p.spot.free_window_s;
  sp["source"] = p.spot.source;
  j["spot"] = sp;
  j["storage_usd_per_GB_month"] = num_or_null(p.storage_usd_per_GB_month);
  j["storage_read_MBps"] = num_or_null(p.storage_read_MBps);
  j["storage_write_MBps"] = num_or_null(p.storage_write_MBps);
  j["storage_source"] = p.storage_source;
  j["egress_usd_per_GB"] = num_or_null(p.egress_usd_per_GB);
  j["egress_source"] = p.egress_source;
  j["network_download_MBps"] = num_or_null(p.network_download_MBps);
  j["notes"] = p.notes;
  j["access"] = access_json(p.access, false);
  if (!p.access_exceptions.empty()) {
    ojson ex = ojson::array();
    for (const AccessFact& f : p.access_exceptions) ex.push_back(access_json(f, true));
    j["access_exceptions"] = ex;
  }
  return j;
}

ojson reservation_json(const Reservation& rv) {
  ojson j;
  j["id"] = rv.id; j["provider"] = rv.provider; j["name"] = rv.name;
  ojson terms = ojson::array();
  for (const TermStep& t : rv.terms) {
    ojson tj;
    tj["up_to_h"] = t.up_to_s / kHour_s;
    tj["increment_h"] = t.increment_s / kHour_s;
    terms.push_back(std::move(tj));
  }
  j["terms"] = terms;
  if (rv.negotiated()) j["negotiated"] = true;  // absent otherwise: older snapshots stay byte-identical
  j["start_time_utc"] = rv.start_time_utc; j["max_instances"] = rv.max_instances;
  if (rv.min_instances > 0) j["min_instances"] = rv.min_instances;  // absent when none is published
  j["book_ahead_days"] = rv.book_ahead_days; j["upfront"] = rv.upfront;
  if (rv.cancellable_published) j["cancellable"] = rv.cancellable;
  j["capture_date"] = rv.capture_date; j["source"] = rv.source; j["note"] = rv.note;
  ojson prices = ojson::array();
  for (const ReservedPrice& x : rv.prices) {
    ojson xj;
    xj["offer"] = x.offer;
    xj["usd_per_h"] = x.usd_per_h;
    prices.push_back(std::move(xj));
  }
  j["prices"] = prices;
  return j;
}

// One offer as a row of cells, in the order of detail::kColNames.
ojson offer_row_json(const Snapshot& s, const Offer& o) {
  const bool pv = o.provider >= 0 && o.provider < static_cast<int>(s.providers.size());
  const bool gv = o.gpu >= 0 && o.gpu < static_cast<int>(s.gpus.size());
  ojson r = ojson::array();
  r.push_back(o.id);
  r.push_back(pv ? s.providers[o.provider].id : std::string());
  const bool vv = o.via >= 0 && o.via < static_cast<int>(s.providers.size());
  r.push_back(vv ? ojson(s.providers[o.via].id) : ojson(nullptr));
  r.push_back(o.instance_type);
  r.push_back(o.region);
  r.push_back(o.zone);
  r.push_back(o.zone_count);
  r.push_back(gv ? s.gpus[o.gpu].id : std::string());
  r.push_back(o.gpu_count);
  r.push_back(num_or_null(o.vcpus));
  r.push_back(o.host_ram_bytes > 0 ? num_or_null(o.host_ram_bytes / kGiB) : ojson(nullptr));
  r.push_back(o.local_disk_bytes > 0 ? num_or_null(o.local_disk_bytes / kGB) : ojson(nullptr));
  r.push_back(link_class_name(o.intra_link));
  r.push_back(o.intra_link_GBps);
  r.push_back(net_kind_name(o.inter_net));
  r.push_back(o.inter_net_Gbps);
  r.push_back(o.max_nodes);
  r.push_back(num_or_null(o.price_usd_per_h));
  r.push_back(num_or_null(o.spot_usd_per_h));
  r.push_back(num_or_null(o.spot_max_usd_per_h));
  r.push_back(num_or_null(o.host_usd_per_h));
  r.push_back(num_or_null(o.accel_usd_per_h));
  r.push_back(o.capture_date);
  r.push_back(o.flags);
  return r;
}

// Offers: a header and one array per row (a third of the size of one object per offer).
void put_offers(std::string& out, const Snapshot& s) {
  ojson cols = ojson::array();
  for (const char* n : detail::kColNames) cols.push_back(n);
  out += "\"offers\": {\"columns\": " + dump(cols) + ",\n\"rows\": [";
  for (size_t i = 0; i < s.offers.size(); ++i) out += (i ? ",\n  " : "\n  ") + dump(offer_row_json(s, s.offers[i]));
  out += s.offers.empty() ? "]}\n}\n" : "\n]}\n}\n";
}

}  // namespace

std::string snapshot_to_json(const Snapshot& s) {
  try {
    std::string out = "{\n";
    put_kv(out, "schema_version", s.schema_version);
    put_kv(out, "id", s.id);
    put_kv(out, "created", s.created);
    put_kv(out, "currency", s.currency);
    std::vector<ojson> items;
    for (const auto& r : s.sources) items.push_back(source_json(r));
    put_array(out, "sources", items);
    items.clear();
    for (const auto& g : s.gpus) items.push_back(gpu_json(g));
    put_array(out, "gpus", items);
    items.clear();
    for (const auto& p : s.providers) items.push_back(provider_json(p));
    put_array(out, "providers", items);
    if (!s.reservations.empty()) {  // absent when there are none: older snapshots stay byte-identical
      items.clear();
      for (const auto& rv : s.reservations) items.push_back(reservation_json(rv));
      put_array(out, "reservations", items);
    }
    put_offers(out, s);
    return out;
  } catch (...) {
    // dump() throws only on invalid UTF-8 in a string; replace rather than propagate.
    return "{}\n";
  }
}

}  // namespace trainfit
