// trainfit core — the snapshot's JSON reader, its offers table: the header of column names, then one array of
// cells per offer, each checked and its provider, marketplace and GPU ids resolved to indices.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "storage/snapshot_json_internal.h"

namespace trainfit::detail::snapshot_json {

namespace {

struct OfferCells {
  // Column index of each known column (-1 = absent).
  int at[kColCount];
};

// One shared copy of each distinct instance type, region, zone and date (SharedStr). The views point into the
// parsed document, alive while the offers are read.
class StringPool {
 public:
  const SharedStr& get(std::string_view v) {
    auto [it, added] = map_.try_emplace(v);
    if (added) it->second = SharedStr(v);
    return it->second;
  }

 private:
  std::unordered_map<std::string_view, SharedStr> map_;
};

// The end of read_offer: the provider, via and GPU ids to indices, then the checks across the price cells. `ok`
// is the row's state so far; returns it updated.
bool resolve_offer(Ctx& c, size_t row_index, const OfferCells& cols, const IdIndex& gpu_ix, const IdIndex& prov_ix,
                   const std::string& prov, const std::string& via, const std::string& gpu, bool ok, Offer* o) {
  const auto p = [&] { return row_pointer(row_index); };
  auto cptr = [&](Col k) { return p() + "/" + std::to_string(cols.at[k]); };
  if (!prov.empty()) {
    auto it = prov_ix.find(std::string_view(prov));
    if (it == prov_ix.end()) { c.error(cptr(cProvider), "unknown provider \"" + prov.substr(0, 60) + "\""); ok = false; }
    else o->provider = it->second;
  }
  if (!via.empty()) {
    auto it = prov_ix.find(std::string_view(via));
    if (it == prov_ix.end()) { c.error(cptr(cVia), "via: unknown provider \"" + via.substr(0, 60) + "\""); ok = false; }
    else if (it->second == o->provider) { c.error(cptr(cVia), "via names the offer's own provider \"" + via.substr(0, 60) + "\""); ok = false; }
    else o->via = it->second;
  }
  if (!gpu.empty()) {
    auto it = gpu_ix.find(std::string_view(gpu));
    if (it == gpu_ix.end()) { c.error(cptr(cGpu), "unknown GPU \"" + gpu.substr(0, 60) + "\""); ok = false; }
    else o->gpu = it->second;
  }
  if (ok && o->price_usd_per_h < 0 && o->spot_usd_per_h < 0) {
    c.error(p(), "offer has neither an on-demand nor a spot price");
    ok = false;
  }
  if (ok && o->spot_max_usd_per_h >= 0 && o->spot_usd_per_h >= 0 && o->spot_max_usd_per_h < o->spot_usd_per_h) {
    c.error(cptr(cSpotMax), "spot_max_usd_per_h is below spot_usd_per_h");
    ok = false;
  }
  if (ok && o->host_usd_per_h >= 0 && o->accel_usd_per_h >= 0 && o->price_usd_per_h >= 0 &&
      std::fabs(o->host_usd_per_h + o->accel_usd_per_h - o->price_usd_per_h) > 1e-4 * (1 + o->price_usd_per_h)) {
    c.error(cptr(cPrice), "price_usd_per_h is not host_usd_per_h + accel_usd_per_h");
    ok = false;
  }
  return ok;
}

// Reads one offer row; returns false if the row is unusable.
[[gnu::noinline]] bool read_offer(Ctx& c, const JValue& row, size_t row_index, const OfferCells& cols, size_t ncols,
                                  const IdIndex& gpu_ix, const IdIndex& prov_ix, StringPool& pool, Offer* o) {
  const auto p = [&] { return row_pointer(row_index); };
  if (!row.IsArray()) {
    c.error(p(), std::string("expected an array (one cell per column), got ") + type_name(row));
    return false;
  }
  if (row.Size() != ncols) {
    c.error(p(), "row has " + std::to_string(row.Size()) + " cells, the header has " + std::to_string(ncols));
    return false;
  }
  bool ok = true;
  auto cell = [&](Col k) -> const JValue* {
    return cols.at[k] < 0 ? nullptr : &at(row, static_cast<size_t>(cols.at[k]));
  };
  auto cptr = [&](Col k) { return p() + "/" + std::to_string(cols.at[k]); };
  // A string cell, checked; `put` takes it.
  auto text = [&](Col k, bool nonempty, const auto& put) {
    const JValue* v = cell(k);
    if (!v) return true;  // optional column absent
    if (!v->IsString()) {
      c.error(cptr(k), std::string(kColNames[k]) + ": expected a string, got " + type_name(*v));
      ok = false;
      return false;
    }
    const std::string_view str = text_of(*v);
    if (str.size() > kMaxString || (nonempty && str.empty())) {
      c.error(cptr(k), std::string(kColNames[k]) + (str.empty() ? ": must not be empty" : ": string too long"));
      ok = false;
      return false;
    }
    put(str);
    return true;
  };
  auto s = [&](Col k, std::string* out, bool nonempty) {
    return text(k, nonempty, [&](std::string_view str) { out->assign(str); });
  };
  auto shared = [&](Col k, SharedStr* out, bool nonempty) {
    return text(k, nonempty, [&](std::string_view str) { *out = pool.get(str); });
  };
  auto n = [&](Col k, double* out, double lo, double hi, bool nullable) {
    const JValue* v = cell(k);
    if (!v) return true;
    if (!c.num_value(*v, [&] { return cptr(k); }, out, lo, hi, nullable)) ok = false;
    return true;
  };
  auto i = [&](Col k, int* out, int lo, int hi) {
    const JValue* v = cell(k);
    if (!v) return true;
    if (!c.int_value(*v, [&] { return cptr(k); }, out, lo, hi)) ok = false;
    return true;
  };

  std::string prov, via, gpu, link, net;
  s(cId, &o->id, true);
  s(cProvider, &prov, true);
  if (const JValue* v = cell(cVia); v && !v->IsNull()) s(cVia, &via, true);  // null = sold directly
  shared(cInstance, &o->instance_type, true);
  shared(cRegion, &o->region, false);
  shared(cZone, &o->zone, false);
  i(cZoneCount, &o->zone_count, 1, 1000);
  s(cGpu, &gpu, true);
  i(cGpuCount, &o->gpu_count, 1, 1024);
  n(cVcpus, &o->vcpus, 0, 100000, true);
  double ram_gib = -1, disk_gb = -1;
  n(cRamGiB, &ram_gib, 0, 1e5, true);
  n(cDiskGB, &disk_gb, 0, 1e7, true);
  o->host_ram_bytes = ram_gib < 0 ? 0 : ram_gib * kGiB;
  o->local_disk_bytes = disk_gb < 0 ? 0 : disk_gb * kGB;
  if (s(cIntraLink, &link, true) && cell(cIntraLink)) {
    if (auto lc = parse_link_class(link)) o->intra_link = *lc;
    else { c.error(cptr(cIntraLink), "unknown intra-node link class \"" + link.substr(0, 40) + "\""); ok = false; }
  }
  n(cIntraGBps, &o->intra_link_GBps, 0, 1e5, false);
  if (s(cInterNet, &net, true) && cell(cInterNet)) {
    if (auto nk = parse_net_kind(net)) o->inter_net = *nk;
    else { c.error(cptr(cInterNet), "unknown inter-node network kind \"" + net.substr(0, 40) + "\""); ok = false; }
  }
  n(cInterGbps, &o->inter_net_Gbps, 0, 1e6, false);
  i(cMaxNodes, &o->max_nodes, 1, 100000);
  n(cPrice, &o->price_usd_per_h, 0, kMaxPrice, true);
  n(cSpot, &o->spot_usd_per_h, 0, kMaxPrice, true);
  n(cSpotMax, &o->spot_max_usd_per_h, 0, kMaxPrice, true);
  n(cHost, &o->host_usd_per_h, 0, kMaxPrice, true);
  n(cAccel, &o->accel_usd_per_h, 0, kMaxPrice, true);
  if (const JValue* v = cell(cCapture)) {
    if (v->IsString() && parse_iso_day(text_of(*v))) o->capture_date = pool.get(text_of(*v));
    else { c.error(cptr(cCapture), "capture_date: not a valid ISO date (YYYY-MM-DD)"); ok = false; }
  }
  int flags = 0;
  i(cFlags, &flags, 0, static_cast<int>(detail::kAllOfferFlags));
  o->flags = static_cast<uint32_t>(flags);
  return resolve_offer(c, row_index, cols, gpu_ix, prov_ix, prov, via, gpu, ok, o);
}

// NOTE(perf): the loops over offers live in functions of their own ([[gnu::noinline]]; web/CMakeLists.txt stops
// wasm-opt from inlining them back), apart from the long functions around them that run once
// (load_snapshot_report, derive_flags). V8 compiles a wasm function whose loops have run long enough again with
// its optimising compiler, on a background thread: with the row loop inside it, load_snapshot_report (12 KB of
// wasm) was compiled so during every page load, ~100 ms of a core the page needed to start, for a function
// that had already run (docs/performance.md, "Load time"). Small functions run per row are cheap to optimise.

// The offer rows, in order; unusable rows and duplicate ids are reported and left out.
[[gnu::noinline]] void read_offer_rows(Ctx& c, const JValue& rows, const OfferCells& oc, size_t ncols,
                                       const IdIndex& gpu_ix, const IdIndex& prov_ix, Snapshot* s,
                                       std::vector<size_t>* row_of) {
  // Offer ids seen so far, as views into the parsed document (alive while the caller reads it).
  std::unordered_set<std::string_view> seen;
  seen.reserve(rows.Size());
  StringPool pool;
  s->offers.reserve(rows.Size());
  row_of->reserve(rows.Size());
  for (size_t i = 0; i < rows.Size(); ++i) {
    Offer o;
    const JValue& row = at(rows, i);
    if (!read_offer(c, row, i, oc, ncols, gpu_ix, prov_ix, pool, &o)) continue;
    if (!seen.insert(text_of(row[static_cast<SizeType>(oc.at[cId])])).second) {
      c.error(row_pointer(i) + "/" + std::to_string(oc.at[cId]), "duplicate offer id \"" + o.id + "\"");
      continue;
    }
    s->offers.push_back(std::move(o));
    row_of->push_back(i);
  }
}

// The header: each known column's index; false (with the errors) when a name is not a string, is repeated, or a
// required column is missing. An unknown column is ignored with a warning.
bool read_offer_columns(Ctx& c, const JValue& cols, OfferCells* oc) {
  bool header_ok = true;
  for (size_t k = 0; k < cols.Size(); ++k) {
    const JValue& name = at(cols, k);
    if (!name.IsString()) {
      c.error(idx("/offers/columns", k), "column name must be a string");
      header_ok = false;
      continue;
    }
    const std::string nm(text_of(name));
    bool known = false;
    for (int j = 0; j < kColCount; ++j)
      if (nm == kColNames[j]) {
        if (oc->at[j] >= 0) { c.error(idx("/offers/columns", k), "duplicate column \"" + nm + "\""); header_ok = false; }
        oc->at[j] = static_cast<int>(k);
        known = true;
      }
    if (!known) c.warn(idx("/offers/columns", k), "unknown_column", "column \"" + nm.substr(0, 60) + "\" ignored");
  }
  for (Col req : {cId, cProvider, cInstance, cRegion, cGpu, cGpuCount, cPrice, cSpot, cCapture})
    if (oc->at[req] < 0) {
      c.error("/offers/columns", std::string("missing required column \"") + kColNames[req] + "\"");
      header_ok = false;
    }
  return header_ok;
}

}  // namespace

void read_offers(Ctx& c, const JValue& doc, const IdIndex& gpu_ix, const IdIndex& prov_ix, Snapshot* s,
                 std::vector<size_t>* row_of) {
  if (const JValue* off = c.member(doc, "offers", "") ; off && c.object(*off, "/offers")) {
    const JValue* cols = c.array(*off, "columns", "/offers", 64);
    const JValue* rows = c.array(*off, "rows", "/offers", kMaxOffers);
    OfferCells oc;
    std::fill(std::begin(oc.at), std::end(oc.at), -1);
    const bool header_ok = cols != nullptr && read_offer_columns(c, *cols, &oc);
    if (header_ok && rows) read_offer_rows(c, *rows, oc, cols->Size(), gpu_ix, prov_ix, s, row_of);
  }
}

}  // namespace trainfit::detail::snapshot_json
