// trainfit core — SkyPilot catalog -> snapshot importer. See importer.h for the rules and docs/snapshot.md.
// The importer builds a snapshot document and then runs it through the same strict loader users run
// (load_snapshot_report), so an import can never publish something `snapshot validate` would refuse.
#include "trainfit/storage/importer.h"

#include "storage/snapshot_internal.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

namespace trainfit {

using ojson = nlohmann::ordered_json;

Result<std::vector<std::vector<std::string>>> parse_csv(std::string_view text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool in_q = false, field_started = false;
  int line = 1, quote_line = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_q) {
      if (ch == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') { field += '"'; ++i; }
        else in_q = false;
      } else {
        if (ch == '\n') ++line;
        field += ch;
      }
      continue;
    }
    if (ch == '"' && field.empty()) { in_q = true; quote_line = line; field_started = true; }
    else if (ch == ',') { row.push_back(std::move(field)); field.clear(); field_started = true; }
    else if (ch == '\r') {}
    else if (ch == '\n') {
      ++line;
      if (field_started || !field.empty() || !row.empty()) { row.push_back(std::move(field)); rows.push_back(std::move(row)); }
      row.clear(); field.clear(); field_started = false;
    } else { field += ch; field_started = true; }
  }
  if (in_q) return Error{"line " + std::to_string(quote_line), "unterminated quoted field"};
  if (field_started || !field.empty() || !row.empty()) { row.push_back(std::move(field)); rows.push_back(std::move(row)); }
  return rows;
}

bool glob_match(std::string_view p, std::string_view s) {
  // Iterative wildcard match with single-star backtracking: linear-ish, no recursion.
  size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && p[pi] == '*') { star = pi++; mark = si; }
    else if (pi < p.size() && p[pi] == s[si]) { ++pi; ++si; }
    else if (star != std::string_view::npos) { pi = star + 1; si = ++mark; }
    else return false;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

namespace {

std::optional<double> parse_num(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

Result<ojson> parse_json_input(const std::string& text, const char* what) {
  ojson j = ojson::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{what, "not a JSON object"};
  return j;
}

struct Family {
  std::string provider, match, gpu, gcp_accelerator, intra_link, inter_net, source;
  int gpu_count = 0;  // required for GCP rules (the host row does not carry it)
  // GCP N1: the GPU is attached to a general-purpose host, so one host type can carry several accelerators; the
  // offer is named "<host>+<ACCEL>:<count>" (SkyPilot's instance_type + accelerators pair) and a host row joins
  // every attached rule that matches it (a fixed-GPU rule such as g2 / a3: the first match only).
  bool attached = false;
  double intra_GBps = 0, inter_Gbps = 0;
  int max_nodes = 1;
  uint32_t flags = 0;
  // Optional: the rule applies only when the catalog's per-GPU memory (GpuInfo, in the catalog's unit) lies in
  // [min, max] GB; a row without that figure does not match. Vast.ai's "A100_SXM4" is 40 or 80 GB (SOURCE.md).
  double catalog_gpu_GB_min = -1, catalog_gpu_GB_max = -1;
  // Optional: the catalog column `match` is matched against instead of InstanceType ("UpstreamCloudId" for Prime
  // Intellect, whose own type names omit the form factor; "AcceleratorName" for Spheron, whose names carry it).
  std::string match_column;
  // Optional ("catalog_host_ram": "times_gpu_count"): the catalog's MemoryGiB is the instance's RAM multiplied by
  // its GPU count once too often, and is divided by the count. RunPod's v8 B300, RTX PRO 4000, 4500 SE and 5000 rows
  // grow it with the square of the count (B300 1x 503, 2x 2012 GiB): SkyPilot's fetcher takes RunPod's minimum pod
  // memory for N GPUs (lowestPrice.minMemory, already for the pod) and multiplies it by N again for the GPU types
  // missing from its DEFAULT_GPU_INFO table, which are exactly these four (skypilot-org/skypilot
  // sky/catalog/data_fetchers/fetch_runpod.py at 06f47324, get_gpu_info, read 2026-12-02).
  bool host_ram_times_gpu_count = false;
};

// A priced zone (or zone-less row) of one provider x instance type x region.
struct ZoneRow {
  std::string zone;
  double od = -1, spot = -1, host = -1, accel = -1;
  double vcpus = -1, ram_gib = -1, disk_gb = -1;
  int gpu_count = 0;
};

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  int col(const char* name) const {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return static_cast<int>(i);
    return -1;
  }
  std::string cell(const std::vector<std::string>& r, const char* name) const {
    const int i = col(name);
    return i < 0 ? std::string() : r[static_cast<size_t>(i)];
  }
};

// Aggregated import notes: one per (code, provider, subject) with a row count.
class Notes {
 public:
  void add(const std::string& code, const std::string& provider, const std::string& subject, const std::string& msg) {
    auto& e = m_[{code, provider, subject}];
    if (e.second++ == 0) e.first = msg;
  }
  std::vector<Warning> take() const {
    std::vector<Warning> out;
    for (const auto& [k, v] : m_)
      out.push_back({std::get<1>(k) + "/" + std::get<2>(k), std::get<0>(k),
                     v.first + " (" + std::to_string(v.second) + (v.second == 1 ? " row)" : " rows)")});
    return out;
  }

 private:
  std::map<std::tuple<std::string, std::string, std::string>, std::pair<std::string, int>> m_;
};

uint32_t fnv1a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) { h ^= c; h *= 16777619u; }
  return h;
}

// The catalog GpuInfo is a Python-dict string ('SizeInMiB': 81920) or JSON ("SizeInMiB": 81920); only the first
// 'SizeInMiB' is needed for a plausibility check. Its unit is the catalog's (see GpuInfoUnit).
std::optional<double> gpuinfo_size(const std::string& info) {
  size_t k = info.find("'SizeInMiB':");
  if (k == std::string::npos) k = info.find("\"SizeInMiB\":");
  if (k == std::string::npos) return std::nullopt;
  size_t i = k + 12;
  while (i < info.size() && info[i] == ' ') ++i;
  size_t j = i;
  while (j < info.size() && (std::isdigit(static_cast<unsigned char>(info[j])) || info[j] == '.')) ++j;
  return parse_num(info.substr(i, j - i));
}

// What a catalog's GpuInfo 'SizeInMiB' means (providers.json catalog entry "gpuinfo_memory"): MiB per GPU (the
// SkyPilot convention), MiB for the whole instance (Vast.ai: 2x RTX 4090 says 49128), or GB per GPU under the MiB
// key (Shadeform: 48 for an A6000). SOURCE.md lists each catalog's quirk.
enum class GpuInfoUnit { per_gpu_MiB, instance_MiB, per_gpu_GB };

// Per-GPU memory in bytes from a row's GpuInfo, or nullopt.
std::optional<double> catalog_gpu_bytes(const std::string& info, GpuInfoUnit unit, int gpu_count) {
  const auto v = gpuinfo_size(info);
  if (!v || *v <= 0) return std::nullopt;
  switch (unit) {
    case GpuInfoUnit::per_gpu_MiB: return *v * 1048576.0;
    case GpuInfoUnit::instance_MiB: return gpu_count > 0 ? *v * 1048576.0 / gpu_count : std::optional<double>{};
    case GpuInfoUnit::per_gpu_GB: return *v * 1e9;
  }
  return std::nullopt;
}

// A marketplace's catalog (providers.json "marketplace"): each row names the cloud that runs it, either as the
// InstanceType's prefix "<cloud><separator><shape>" (Shadeform's "massedcompute_A6000x8", Prime Intellect's
// "lambdalabs__8xA100_80GB__240__1800") or in a column (Spheron's "Provider"); the marketplace is the row's `via`.
struct Marketplace {
  std::string separator;  // "" when the cloud comes from `column`
  std::string column;
  std::map<std::string, std::string> clouds;  // catalog cloud name -> provider id
};

// Everything one vms catalog needs besides its rows.
struct CatalogOptions {
  GpuInfoUnit unit = GpuInfoUnit::per_gpu_MiB;
  std::optional<Marketplace> market;
  // Spot priced in rows of their own, named "<on-demand type><suffix>" (Prime Intellect's "__SPOT"): such a row is
  // a spot zone of the on-demand instance type.
  std::string spot_row_suffix;
  // "spot_equal_to_price": "no_spot": a SpotPrice equal to the row's Price is read as no spot price. RunPod's v8
  // catalog has SpotPrice == Price on every row, while RunPod's spot pods are "spare compute capacity at the lowest
  // prices" (docs.runpod.io/pods/pricing, read 2026-12-02): an equal figure is no spot price. A lower one still counts.
  bool spot_equal_to_price_is_no_spot = false;
  // "one_region": "<label>": every row is read as one region of that label, so a configuration's data centres in
  // every country become the zones of one offer (kAnyRegion in snapshot.h: a launch names no region). For catalogs
  // that price a configuration alike everywhere (RunPod's v8 catalog: the same price in all 48 data centres of 14
  // countries, data/raw/skypilot-catalog/SOURCE.md), 14 identical rows per configuration would only repeat one
  // offer; a merged zone whose price differs still gets the cheapest zone as the offer's, as for any region.
  std::string one_region;
};

Result<std::vector<Family>> read_families(const ojson& F, const std::map<std::string, double>& gpu_mem) {
  std::vector<Family> fams;
  for (size_t i = 0; i < F["families"].size(); ++i) {
    const auto& f = F["families"][i];
    const std::string ptr = "instance_families.json/families/" + std::to_string(i);
    if (!f.is_object()) return Error{ptr, "expected an object"};
    Family x;
    auto gs = [&](const char* k, std::string* out, bool req) -> bool {
      if (!f.contains(k)) return !req;
      if (!f[k].is_string()) return false;
      *out = f[k].get<std::string>();
      return true;
    };
    auto gn = [&](const char* k, double* out) -> bool {
      if (!f.contains(k) || !f[k].is_number()) return false;
      *out = f[k].get<double>();
      return true;
    };
    double mn = 1, gc = 0;
    if (!gs("provider", &x.provider, true) || !gs("match", &x.match, true) || !gs("gpu", &x.gpu, true) ||
        !gs("intra_link", &x.intra_link, true) || !gs("inter_net", &x.inter_net, true) ||
        !gs("source", &x.source, true) || !gs("gcp_accelerator", &x.gcp_accelerator, false) ||
        !gs("match_column", &x.match_column, false) ||
        !gn("intra_link_GBps", &x.intra_GBps) || !gn("inter_net_Gbps", &x.inter_Gbps) || !gn("max_nodes", &mn))
      return Error{ptr, "needs provider, match, gpu, intra_link(+_GBps), inter_net(+_Gbps), max_nodes, source"};
    x.max_nodes = static_cast<int>(mn);
    if (f.contains("gpu_count") && gn("gpu_count", &gc)) x.gpu_count = static_cast<int>(gc);
    if (!x.gcp_accelerator.empty() && x.gpu_count <= 0) return Error{ptr, "a GCP rule needs gpu_count"};
    if (f.contains("attached")) {
      if (!f["attached"].is_boolean()) return Error{ptr + "/attached", "expected true or false"};
      x.attached = f["attached"].get<bool>();
      if (x.attached && x.gcp_accelerator.empty()) return Error{ptr + "/attached", "only a GCP rule (gcp_accelerator) can be attached"};
    }
    if (!gpu_mem.count(x.gpu)) return Error{ptr + "/gpu", "GPU \"" + x.gpu + "\" is not in gpus.json"};
    for (const char* k : {"catalog_gpu_GB_min", "catalog_gpu_GB_max"})
      if (f.contains(k) && !f[k].is_number()) return Error{ptr + "/" + k, "expected a number of GB"};
    if (f.contains("catalog_gpu_GB_min")) x.catalog_gpu_GB_min = f["catalog_gpu_GB_min"].get<double>();
    if (f.contains("catalog_gpu_GB_max")) x.catalog_gpu_GB_max = f["catalog_gpu_GB_max"].get<double>();
    if (f.contains("catalog_host_ram")) {
      if (f["catalog_host_ram"] != "times_gpu_count") return Error{ptr + "/catalog_host_ram", "expected \"times_gpu_count\""};
      x.host_ram_times_gpu_count = true;
    }
    if (f.contains("flags") && f["flags"].is_array())
      for (const auto& fl : f["flags"]) {
        if (fl == "unverified_price") x.flags |= kFlagUnverifiedPrice;
        else return Error{ptr + "/flags", "only \"unverified_price\" can be set by a family rule"};
      }
    fams.push_back(std::move(x));
  }
  return fams;
}

// The first rule of `prov` matching `type` (or the column the rule names, read through `column`; a rule naming a
// column matches nothing without it) and, for a memory-conditioned rule, the row's per-GPU memory.
template <class Column>
const Family* find_family(const std::vector<Family>& fams, const std::string& prov, const std::string& type,
                          std::optional<double> gpu_bytes, const Column& column) {
  for (const auto& f : fams) {
    if (f.provider != prov) continue;
    if (f.match_column.empty() ? !glob_match(f.match, type) : !glob_match(f.match, column(f.match_column))) continue;
    if (f.catalog_gpu_GB_min >= 0 && (!gpu_bytes || *gpu_bytes < f.catalog_gpu_GB_min * 1e9)) continue;
    if (f.catalog_gpu_GB_max >= 0 && (!gpu_bytes || *gpu_bytes > f.catalog_gpu_GB_max * 1e9)) continue;
    return &f;
  }
  return nullptr;
}

// A catalog entry's options (providers.json providers[i].catalog[j] and providers[i].marketplace).
Result<CatalogOptions> catalog_options(const ojson& provider, const ojson& entry, const std::string& ptr) {
  CatalogOptions o;
  if (entry.contains("gpuinfo_memory")) {
    const std::string u = entry["gpuinfo_memory"].is_string() ? entry["gpuinfo_memory"].get<std::string>() : "";
    if (u == "per_gpu_MiB") o.unit = GpuInfoUnit::per_gpu_MiB;
    else if (u == "instance_MiB") o.unit = GpuInfoUnit::instance_MiB;
    else if (u == "per_gpu_GB") o.unit = GpuInfoUnit::per_gpu_GB;
    else return Error{ptr + "/gpuinfo_memory", "expected \"per_gpu_MiB\", \"instance_MiB\" or \"per_gpu_GB\""};
  }
  if (entry.contains("spot_row_suffix")) {
    if (!entry["spot_row_suffix"].is_string() || entry["spot_row_suffix"].get<std::string>().empty())
      return Error{ptr + "/spot_row_suffix", "expected a non-empty string"};
    o.spot_row_suffix = entry["spot_row_suffix"].get<std::string>();
  }
  if (entry.contains("spot_equal_to_price")) {
    if (entry["spot_equal_to_price"] != "no_spot") return Error{ptr + "/spot_equal_to_price", "expected \"no_spot\""};
    o.spot_equal_to_price_is_no_spot = true;
  }
  if (entry.contains("one_region")) {
    if (!entry["one_region"].is_string() || entry["one_region"] != kAnyRegion)
      return Error{ptr + "/one_region", std::string("expected \"") + kAnyRegion + "\""};
    o.one_region = kAnyRegion;
  }
  if (provider.contains("marketplace")) {
    const ojson& m = provider["marketplace"];
    auto str = [&](const char* k) { return m.is_object() && m.contains(k) && m[k].is_string() ? m[k].get<std::string>() : ""; };
    Marketplace mk;
    mk.separator = str("separator");
    mk.column = str("column");
    if (!m.is_object() || mk.separator.empty() == mk.column.empty() || !m.contains("clouds") || !m["clouds"].is_object())
      return Error{ptr + "/marketplace",
                   "needs either a separator or a column naming the cloud, and a clouds object (catalog name -> provider id)"};
    for (const auto& [k, v] : m["clouds"].items()) {
      if (!v.is_string()) return Error{ptr + "/marketplace/clouds/" + k, "expected a provider id"};
      mk.clouds[k] = v.get<std::string>();
    }
    o.market = std::move(mk);
  }
  return o;
}

}  // namespace

Result<std::vector<CatalogRef>> list_catalog_files(std::string_view providers_json) {
  try {
    auto j = parse_json_input(std::string(providers_json), "providers.json");
    if (!j) return j.error();
    std::vector<CatalogRef> out;
    const auto& ps = j.value()["providers"];
    if (!ps.is_array()) return Error{"providers.json/providers", "expected an array"};
    for (size_t i = 0; i < ps.size(); ++i) {
      const auto& p = ps[i];
      const std::string ptr = "providers.json/providers/" + std::to_string(i);
      if (!p.is_object() || !p.contains("id") || !p["id"].is_string() || !p.contains("catalog") || !p["catalog"].is_array())
        return Error{ptr, "each provider needs a string id and a catalog array"};
      for (const auto& c : p["catalog"]) {
        if (!c.is_object() || !c.contains("role") || !c.contains("path") || !c["role"].is_string() || !c["path"].is_string())
          return Error{ptr + "/catalog", "each catalog entry needs string role and path"};
        const std::string role = c["role"].get<std::string>(), path = c["path"].get<std::string>();
        if (role != "vms" && role != "gcp_host" && role != "gcp_accel")
          return Error{ptr + "/catalog", "role must be vms, gcp_host or gcp_accel"};
        if (path.empty() || path.find("..") != std::string::npos || path[0] == '/')
          return Error{ptr + "/catalog", "path must be relative to the catalog root, without .."};
        if (c.contains("optional") && !c["optional"].is_boolean())
          return Error{ptr + "/catalog/optional", "expected true or false"};
        out.push_back({p["id"].get<std::string>(), role, path, c.value("optional", false)});
      }
    }
    return out;
  } catch (const std::exception& e) {
    return Error{"providers.json", e.what()};
  }
}

namespace {

// One offer in the making: the zones of one catalog provider x instance type x region, who runs it and who
// sells it.
struct Group {
  const Family* fam = nullptr;
  std::string runs_on;  // provider id of the cloud that runs it (the catalog's provider unless a marketplace's)
  std::string via;      // the marketplace that sells it; "" = sold directly
  std::vector<ZoneRow> zones;
};
// catalog provider -> (instance type, region) -> group. The offer id is "<catalog provider>/<type>/<region>", so
// the same hardware sold directly and through a marketplace stays two offers.
using Groups = std::map<std::string, std::map<std::pair<std::string, std::string>, Group>>;

struct ImportCtx {
  const std::vector<Family>& fams;
  const std::map<std::string, double>& gpu_mem;
  const std::set<std::string>& provider_ids;
  Groups& groups;
  Notes& notes;
  ImportResult& res;
};

// Ordinary catalogs: one row = one priced instance in one zone. A marketplace's rows are run by the cloud its
// InstanceType names (Marketplace) and sold by `prov`.
Result<bool> read_vms(ImportCtx& x, const std::string& prov, const Table& t, const CatalogOptions& opt) {
  for (const char* need : {"InstanceType", "AcceleratorCount", "Price", "SpotPrice", "Region"})
    if (t.col(need) < 0) return Error{prov + " vms", std::string("catalog lacks column ") + need};
  for (const auto& r : t.rows) {
    ++x.res.rows_read;
    std::string type = t.cell(r, "InstanceType");
    const std::string region = opt.one_region.empty() ? t.cell(r, "Region") : opt.one_region;
    bool spot_row = false;
    if (const std::string& sfx = opt.spot_row_suffix;
        !sfx.empty() && type.size() > sfx.size() && type.compare(type.size() - sfx.size(), sfx.size(), sfx) == 0) {
      type.resize(type.size() - sfx.size());
      spot_row = true;
    }
    std::string runs_on = prov, via;
    if (opt.market) {
      if (!opt.market->column.empty() && t.col(opt.market->column.c_str()) < 0)
        return Error{prov + " vms", "catalog lacks the marketplace's cloud column " + opt.market->column};
      std::string cloud;
      if (!opt.market->column.empty()) {
        cloud = t.cell(r, opt.market->column.c_str());
      } else {
        const size_t k = type.find(opt.market->separator);
        if (k != std::string::npos) cloud = type.substr(0, k);
      }
      const auto it = opt.market->clouds.find(cloud);
      if (it == opt.market->clouds.end()) {
        x.notes.add("unknown_marketplace_cloud", prov, cloud.empty() ? type : cloud,
                    "the marketplace row's cloud \"" + cloud + "\" is not in providers.json's marketplace.clouds; skipped");
        continue;
      }
      if (!x.provider_ids.count(it->second))
        return Error{prov + " marketplace", "cloud \"" + cloud + "\" maps to provider \"" + it->second +
                                                "\", which providers.json does not define"};
      runs_on = it->second;
      if (runs_on != prov) via = prov;
    }
    const auto cnt = parse_num(t.cell(r, "AcceleratorCount"));
    if (!cnt || *cnt < 1 || *cnt != std::floor(*cnt)) {
      x.notes.add("fractional_gpu", prov, type, "AcceleratorCount is not a whole number of GPUs; skipped");
      continue;
    }
    const auto mem = catalog_gpu_bytes(t.cell(r, "GpuInfo"), opt.unit, static_cast<int>(*cnt));
    // Rules naming another column match its raw value (a spot row's UpstreamCloudId ends "_SPOT": patterns end in *).
    auto column = [&](const std::string& name) { return t.cell(r, name.c_str()); };
    const Family* fam = find_family(x.fams, prov, type, mem, column);
    if (!fam) {
      x.notes.add("unmapped_instance_type", prov, type,
                  "no instance_families.json rule names the GPU of " + type + " (accelerator \"" +
                      t.cell(r, "AcceleratorName") + "\"); skipped");
      continue;
    }
    ZoneRow z;
    z.zone = t.cell(r, "AvailabilityZone");
    z.od = parse_num(t.cell(r, "Price")).value_or(-1);
    z.spot = parse_num(t.cell(r, "SpotPrice")).value_or(-1);
    if (spot_row && z.od >= 0) {
      x.notes.add("spot_row_with_price", prov, type, "a spot row carries an on-demand Price; the row is read as spot only");
      z.od = -1;
    }
    // Vast.ai writes SpotPrice 0.00 for "no interruptible price in this catalog" (SOURCE.md), never a free GPU:
    // a zero spot price is read as no spot, with a note.
    if (z.spot == 0) {
      x.notes.add("zero_spot_price", prov, "*", "SpotPrice 0 read as no spot price");
      z.spot = -1;
    }
    if (opt.spot_equal_to_price_is_no_spot && z.spot >= 0 && z.spot == z.od) {
      x.notes.add("spot_equal_to_price", prov, "*", "SpotPrice equal to Price read as no spot price");
      z.spot = -1;
    }
    if (z.od < 0 && z.spot < 0) {
      x.notes.add("no_price", prov, type, "row has neither Price nor SpotPrice; skipped");
      continue;
    }
    z.gpu_count = static_cast<int>(*cnt);
    // A rule's gpu_count corrects a catalog count the vendor documents otherwise (Azure's SKU data reports 12 GPUs
    // for Standard_ND96isr_H100_v5, which has 8: Azure docs, ND H100 v5 series).
    if (fam->gpu_count > 0 && fam->gcp_accelerator.empty() && fam->gpu_count != z.gpu_count) {
      x.notes.add("gpu_count_corrected", prov, type,
                  "AcceleratorCount " + std::to_string(z.gpu_count) + " corrected to " + std::to_string(fam->gpu_count) +
                      " (instance_families.json rule)");
      z.gpu_count = fam->gpu_count;
    }
    z.vcpus = parse_num(t.cell(r, "vCPUs")).value_or(-1);
    z.ram_gib = parse_num(t.cell(r, "MemoryGiB")).value_or(-1);
    if (fam->host_ram_times_gpu_count && z.gpu_count > 1 && z.ram_gib >= 0) {
      x.notes.add("host_ram_times_gpu_count", prov, type,
                  "the catalog's MemoryGiB is the pod's RAM times its GPU count (family rule); divided by the count");
      z.ram_gib /= z.gpu_count;
    }
    const auto dsz = parse_num(t.cell(r, "LocalDiskSize")), dct = parse_num(t.cell(r, "LocalDiskCount"));
    if (dsz && dct && *dsz > 0 && *dct > 0) z.disk_gb = *dsz * *dct;
    // Plausibility of the catalog's per-GPU memory against the verified spec (RunPod writes 80 "MiB"; one Vast
    // RTX 4090 row claims 48 GB): the spec is what every fit is judged with.
    if (mem) {
      const double spec = x.gpu_mem.at(fam->gpu);
      if (std::fabs(*mem - spec) > 0.15 * spec)
        x.notes.add("catalog_gpu_memory_mismatch", prov, type,
                    "catalog GpuInfo says " + std::to_string(static_cast<long long>(std::llround(*mem / 1048576.0))) +
                        " MiB per GPU, spec of " + fam->gpu + " says " +
                        std::to_string(static_cast<long long>(spec / 1e9)) + " GB; the spec is used");
    }
    auto& g = x.groups[prov][{type, region}];
    g.fam = fam;
    g.runs_on = runs_on;
    g.via = via;
    g.zones.push_back(std::move(z));
    ++x.res.rows_used;
  }
  return true;
}

// The GCP rules a host row joins: the first fixed-GPU rule that matches, plus every attached rule that matches.
std::vector<const Family*> gcp_rules(const std::vector<Family>& fams, const std::string& prov, const std::string& type) {
  std::vector<const Family*> out;
  bool fixed = false;
  for (const auto& f : fams) {
    if (f.provider != prov || f.gcp_accelerator.empty() || !glob_match(f.match, type)) continue;
    if (f.attached) out.push_back(&f);
    else if (!fixed) { out.push_back(&f); fixed = true; }
  }
  return out;
}

// GCP accelerator rows: (accelerator, count, zone) -> (price, spot).
using AccelPrices = std::map<std::tuple<std::string, int, std::string>, std::pair<double, double>>;

// One GCP host row joined with the accelerator row `fam` names in the same zone; the VM price is host + GPU
// (SkyPilot's list_accelerators adds them the same way). The zone row joins the offer group only when priced.
enum class Join { no_gpu_row, no_price, used };
Join join_gcp_host(ImportCtx& x, const std::string& prov, const Table& H, const std::vector<std::string>& r,
                   const Family& fam, const AccelPrices& accel) {
  const std::string host = H.cell(r, "InstanceType"), zone = H.cell(r, "AvailabilityZone");
  const std::string count = std::to_string(fam.gpu_count);
  const std::string type = fam.attached ? host + "+" + fam.gcp_accelerator + ":" + count : host;
  auto a = accel.find({fam.gcp_accelerator, fam.gpu_count, zone});
  if (a == accel.end()) {
    x.notes.add("gcp_host_without_gpu_row", prov, type,
                "no " + fam.gcp_accelerator + " x" + count + " row in the host's zone" +
                    (fam.attached ? " (the N1 host is sold in more zones than this GPU)" : "") + "; skipped");
    return Join::no_gpu_row;
  }
  ZoneRow z;
  z.zone = zone;
  z.host = parse_num(H.cell(r, "Price")).value_or(-1);
  z.accel = a->second.first;
  z.od = (z.host >= 0 && z.accel >= 0) ? z.host + z.accel : -1;
  const double hs = parse_num(H.cell(r, "SpotPrice")).value_or(-1);
  z.spot = (hs >= 0 && a->second.second >= 0) ? hs + a->second.second : -1;
  if (z.od < 0) z.host = z.accel = -1;
  if (z.od < 0 && z.spot < 0) {
    x.notes.add("no_price", prov, type, "host or GPU row lacks a price; skipped");
    return Join::no_price;
  }
  z.gpu_count = fam.gpu_count;
  z.vcpus = parse_num(H.cell(r, "vCPUs")).value_or(-1);
  z.ram_gib = parse_num(H.cell(r, "MemoryGiB")).value_or(-1);
  auto& g = x.groups[prov][{type, H.cell(r, "Region")}];
  g.fam = &fam;
  g.runs_on = prov;
  g.zones.push_back(std::move(z));
  return Join::used;
}

// GCP: the VM price is the host row plus the accelerator row of the same zone.
void read_gcp(ImportCtx& x, const std::string& prov, const Table& H, const Table& A) {
  AccelPrices accel;
  std::map<std::pair<std::string, int>, int> accel_rows;
  for (const auto& r : A.rows) {
    ++x.res.rows_read;
    const auto cnt = parse_num(A.cell(r, "AcceleratorCount"));
    if (!cnt) continue;
    const std::string name = A.cell(r, "AcceleratorName");
    accel[{name, static_cast<int>(*cnt), A.cell(r, "AvailabilityZone")}] = {
        parse_num(A.cell(r, "Price")).value_or(-1), parse_num(A.cell(r, "SpotPrice")).value_or(-1)};
    ++accel_rows[{name, static_cast<int>(*cnt)}];
  }
  std::set<std::pair<std::string, int>> joined;
  for (const auto& r : H.rows) {
    ++x.res.rows_read;
    const std::string type = H.cell(r, "InstanceType");
    const auto rules = gcp_rules(x.fams, prov, type);
    if (rules.empty()) {
      x.notes.add("unmapped_instance_type", prov, type, "no GCP rule (gcp_accelerator + gpu_count) for host " + type + "; skipped");
      continue;
    }
    bool used = false;
    for (const Family* fam : rules) {
      const Join j = join_gcp_host(x, prov, H, r, *fam, accel);
      if (j != Join::no_gpu_row) joined.insert({fam->gcp_accelerator, fam->gpu_count});
      used = used || j == Join::used;
    }
    if (used) ++x.res.rows_used;
  }
  for (const auto& [key, n] : accel_rows)
    if (!joined.count(key))
      for (int k = 0; k < n; ++k)
        x.notes.add("gcp_accelerator_without_host", prov, key.first + "x" + std::to_string(key.second),
                    "GPU rows that no instance_families.json rule pairs with a host VM row of the extract; not offered");
}

// One offer row from a group (the column order of offer_columns()).
ojson offer_row(const std::string& prov, const std::pair<std::string, std::string>& key, const Group& g,
                const std::string& capture) {
  auto nn = [](double v) -> ojson { return v < 0 ? ojson(nullptr) : ojson(std::round(v * 1e6) / 1e6); };
  const auto& zs = g.zones;
  // Representative zone: cheapest on-demand (ties: smallest zone name); if none, cheapest spot.
  const ZoneRow* rep = nullptr;
  for (const auto& z : zs) {
    auto better = [&](double a, double b) { return a < b - 1e-12 || (std::fabs(a - b) <= 1e-12 && z.zone < rep->zone); };
    if (z.od >= 0 && (!rep || rep->od < 0 || better(z.od, rep->od))) rep = &z;
  }
  if (!rep)
    for (const auto& z : zs) {
      auto better = [&](double a, double b) { return a < b - 1e-12 || (std::fabs(a - b) <= 1e-12 && z.zone < rep->zone); };
      if (z.spot >= 0 && (!rep || better(z.spot, rep->spot))) rep = &z;
    }
  double smin = -1, smax = -1;
  std::set<std::string> zones;
  for (const auto& z : zs) {
    zones.insert(z.zone);
    if (z.spot >= 0) {
      smin = smin < 0 ? z.spot : std::min(smin, z.spot);
      smax = std::max(smax, z.spot);
    }
  }
  const Family& f = *g.fam;
  ojson r = ojson::array();
  r.push_back(prov + "/" + key.first + "/" + key.second);
  r.push_back(g.runs_on);
  r.push_back(g.via.empty() ? ojson(nullptr) : ojson(g.via));
  r.push_back(key.first);
  r.push_back(key.second);
  r.push_back(rep->zone);
  r.push_back(static_cast<int>(std::max<size_t>(1, zones.size())));
  r.push_back(f.gpu);
  r.push_back(rep->gpu_count);
  r.push_back(nn(rep->vcpus));
  r.push_back(nn(rep->ram_gib));
  r.push_back(nn(rep->disk_gb));
  // A single GPU has no intra-node link whatever its family says.
  r.push_back(rep->gpu_count > 1 ? f.intra_link : std::string("none"));
  r.push_back(rep->gpu_count > 1 ? f.intra_GBps : 0.0);
  r.push_back(f.inter_net);
  r.push_back(f.inter_Gbps);
  r.push_back(f.max_nodes);
  r.push_back(nn(rep->od));
  r.push_back(nn(smin));
  r.push_back(nn(smax));
  r.push_back(nn(rep->host));
  r.push_back(nn(rep->accel));
  r.push_back(capture);
  r.push_back(f.flags);
  return r;
}

// The catalog files of the input, one table per provider x role (files of one provider x role concatenated
// under one header).
Result<std::map<std::string, Table>> read_tables(const ImportInputs& in) {
  std::map<std::string, Table> tables;  // "provider|role" -> rows
  for (const auto& c : in.catalogs) {
    auto rows = parse_csv(c.text);
    if (!rows) return Error{c.ref.path + ":" + rows.error().field, rows.error().message};
    auto& rv = rows.value();
    if (rv.empty()) continue;
    Table& t = tables[c.ref.provider + "|" + c.ref.role];
    if (t.header.empty()) t.header = rv[0];
    else if (t.header != rv[0]) return Error{c.ref.path, "header differs from the provider's other " + c.ref.role + " file"};
    for (size_t i = 1; i < rv.size(); ++i) {
      if (rv[i].size() != t.header.size())
        return Error{c.ref.path + ": row " + std::to_string(i + 1),
                     "has " + std::to_string(rv[i].size()) + " fields, header has " + std::to_string(t.header.size())};
      t.rows.push_back(std::move(rv[i]));
    }
  }
  return tables;
}

// GPU specs: copy only the snapshot fields; the verification trail stays in the inputs.
ojson snapshot_gpus(const ojson& G, std::map<std::string, double>* gpu_mem) {
  static const char* kGpuKeys[] = {"id", "name", "vendor", "arch", "year", "memory_bytes", "mem_bandwidth_GBps",
                                   "tflops_fp32", "tflops_tf32", "tflops_bf16", "tflops_fp16", "tflops_fp8",
                                   "nvlink_gen", "nvlink_GBps", "pcie_gen", "tdp_w", "source", "source_status",
                                   "spec_incomplete", "spec_note", "cuda_memory_bytes", "cuda_memory_source",
                                   "estimated_spec", "estimated_note"};
  ojson gpus = ojson::array();
  for (const auto& g : G["gpus"]) {
    if (!g.is_object()) continue;
    ojson o;
    for (const char* k : kGpuKeys)
      if (g.contains(k)) o[k] = g[k];
    if (g.contains("id") && g["id"].is_string() && g.contains("memory_bytes") && g["memory_bytes"].is_number())
      (*gpu_mem)[g["id"].get<std::string>()] = g["memory_bytes"].get<double>();
    gpus.push_back(std::move(o));
  }
  return gpus;
}

}  // namespace

// The booking products of reservations.json as the snapshot stores them: each price keyed by the offer id the
// importer gives (provider/instance_type/region); a price whose offer the catalog lacks is left out with a note.
// The loader checks the rest (terms, prices, one product per offer) when the import validates its result.
Result<ojson> read_reservations(const std::string& text, const ojson& rows, Notes& notes) {
  ojson out = ojson::array();
  if (text.empty()) return out;
  auto rj = parse_json_input(text, "reservations.json");
  if (!rj) return rj.error();
  const ojson& R = rj.value();
  if (!R.contains("reservations") || !R["reservations"].is_array())
    return Error{"reservations.json/reservations", "expected an array"};
  std::set<std::string> ids;
  for (const auto& r : rows) ids.insert(r[0].get<std::string>());
  for (size_t i = 0; i < R["reservations"].size(); ++i) {
    const ojson& p = R["reservations"][i];
    const std::string ptr = "reservations.json/reservations/" + std::to_string(i);
    if (!p.is_object() || !p.contains("prices") || !p["prices"].is_array() || !p.contains("provider") ||
        !p["provider"].is_string())
      return Error{ptr, "expected an object with a provider and a prices array"};
    const std::string prov = p["provider"].get<std::string>();
    ojson product = p;
    ojson prices = ojson::array();
    for (size_t k = 0; k < p["prices"].size(); ++k) {
      const ojson& x = p["prices"][k];
      const std::string xp = ptr + "/prices/" + std::to_string(k);
      if (!x.is_object() || !x.contains("instance_type") || !x["instance_type"].is_string() || !x.contains("region") ||
          !x["region"].is_string() || !x.contains("usd_per_h") || !x["usd_per_h"].is_number())
        return Error{xp, "expected {instance_type, region, usd_per_h}"};
      const std::string id = prov + "/" + x["instance_type"].get<std::string>() + "/" + x["region"].get<std::string>();
      if (!ids.count(id)) {
        notes.add("reservation_without_offer", prov, x["instance_type"].get<std::string>(),
                  p.value("id", std::string("?")) + " prices " + id + ", which the catalog does not list; left out");
        continue;
      }
      prices.push_back(ojson{{"offer", id}, {"usd_per_h", x["usd_per_h"]}});
    }
    product["prices"] = std::move(prices);
    out.push_back(std::move(product));
  }
  return out;
}

Result<ImportResult> import_snapshot(const ImportInputs& in) {
  try {
    auto gj = parse_json_input(in.gpus_json, "gpus.json");
    if (!gj) return gj.error();
    auto pj = parse_json_input(in.providers_json, "providers.json");
    if (!pj) return pj.error();
    auto fj = parse_json_input(in.families_json, "instance_families.json");
    if (!fj) return fj.error();
    const ojson& G = gj.value();
    const ojson& P = pj.value();
    const ojson& F = fj.value();
    if (!G.contains("gpus") || !G["gpus"].is_array()) return Error{"gpus.json/gpus", "expected an array"};
    if (!P.contains("providers") || !P["providers"].is_array()) return Error{"providers.json/providers", "expected an array"};
    if (!F.contains("families") || !F["families"].is_array()) return Error{"instance_families.json/families", "expected an array"};
    if (!P.contains("snapshot") || !P["snapshot"].is_object() || !P["snapshot"].contains("created"))
      return Error{"providers.json/snapshot/created", "missing: the snapshot's creation date (kept in the inputs so the import is deterministic)"};
    for (const auto& g : G["gpus"])
      if (!g.is_object()) return Error{"gpus.json/gpus", "each GPU must be an object"};

    std::map<std::string, double> gpu_mem;
    const ojson gpus = snapshot_gpus(G, &gpu_mem);
    auto fams = read_families(F, gpu_mem);
    if (!fams) return fams.error();
    auto tables = read_tables(in);
    if (!tables) return tables.error();

    std::set<std::string> provider_ids;
    for (const auto& p : P["providers"]) provider_ids.insert(p.value("id", ""));
    ImportResult res;
    Notes notes;
    Groups groups;
    ImportCtx x{fams.value(), gpu_mem, provider_ids, groups, notes, res};
    for (size_t pi = 0; pi < P["providers"].size(); ++pi) {
      const ojson& p = P["providers"][pi];
      const std::string prov = p.value("id", "");
      const std::string ptr = "providers.json/providers/" + std::to_string(pi);
      if (auto it = tables.value().find(prov + "|vms"); it != tables.value().end()) {
        ojson entry = ojson::object();
        if (p.contains("catalog") && p["catalog"].is_array())
          for (const auto& c : p["catalog"])
            if (c.is_object() && c.value("role", "") == "vms") entry = c;
        auto opt = catalog_options(p, entry, ptr);
        if (!opt) return opt.error();
        auto ok = read_vms(x, prov, it->second, opt.value());
        if (!ok) return ok.error();
      }
      auto ht = tables.value().find(prov + "|gcp_host");
      auto at = tables.value().find(prov + "|gcp_accel");
      if (ht != tables.value().end() || at != tables.value().end()) {
        if (ht == tables.value().end() || at == tables.value().end())
          return Error{prov, "a GCP-style provider needs both gcp_host and gcp_accel catalog files"};
        read_gcp(x, prov, ht->second, at->second);
      }
    }

    // Providers no offer names (a catalog file that was optional and absent, a cloud no marketplace row
    // reached) are left out, with a note, so the snapshot lists only providers it has offers for.
    std::set<std::string> used;
    for (const auto& [prov, byname] : groups)
      for (const auto& [key, g] : byname) {
        used.insert(g.runs_on);
        if (!g.via.empty()) used.insert(g.via);
      }
    ojson providers = ojson::array();
    std::map<std::string, std::string> capture;
    for (const auto& p : P["providers"]) {
      const std::string id = p.value("id", "");
      capture[id] = p.value("capture_date", "");
      if (!used.count(id)) {
        notes.add("provider_without_offers", id, "*", "no catalog row of this provider was imported; provider left out");
        continue;
      }
      ojson o = p;
      o.erase("catalog");
      o.erase("marketplace");
      providers.push_back(std::move(o));
    }
    // GPUs no offer runs on are left out too (gpus.json keeps every checked spec; the snapshot, which the web
    // page downloads, only those it needs).
    std::set<std::string> used_gpus;
    for (const auto& [prov, byname] : groups)
      for (const auto& [key, g] : byname) used_gpus.insert(g.fam->gpu);
    ojson kept_gpus = ojson::array();
    for (const auto& g : gpus) {
      if (used_gpus.count(g.value("id", ""))) kept_gpus.push_back(g);
      else notes.add("gpu_without_offers", "gpus.json", g.value("id", ""), "no offer runs on this GPU; left out of the snapshot");
    }
    ojson cols = ojson::array();
    for (const char* c : detail::kColNames) cols.push_back(c);
    ojson rows = ojson::array();
    // A marketplace row's capture date is its catalog's (the marketplace's), not the running cloud's.
    for (const auto& [prov, byname] : groups)
      for (const auto& [key, g] : byname) rows.push_back(offer_row(prov, key, g, capture[prov]));
    auto reservations = read_reservations(in.reservations_json, rows, notes);
    if (!reservations) return reservations.error();
    ojson doc;
    doc["schema_version"] = kSnapshotSchemaVersion;
    doc["id"] = "pending";
    doc["created"] = P["snapshot"]["created"];
    doc["currency"] = "USD";
    doc["sources"] = P.contains("sources") ? P["sources"] : ojson::array();
    doc["gpus"] = kept_gpus;
    doc["providers"] = providers;
    doc["offers"] = {{"columns", cols}, {"rows", rows}};
    if (!reservations.value().empty()) doc["reservations"] = std::move(reservations).value();

    const std::string text = doc.dump(-1, ' ', false, ojson::error_handler_t::replace);
    SnapshotLoadOptions opt;
    auto snap = load_snapshot_report(text, opt, &res.report);
    if (!snap) {
      const auto& e = res.report.errors;
      return Error{e.empty() ? "" : e.front().field,
                   "the imported snapshot does not validate: " + (e.empty() ? std::string("?") : e.front().message) +
                       (e.size() > 1 ? " (and " + std::to_string(e.size() - 1) + " more)" : "")};
    }
    // The id names the creation date and a hash of the content, so two different imports never share one.
    Snapshot s = std::move(*snap);
    // Stored flags are the importer's own (unverified price, spec incomplete); derived ones are recomputed
    // by every loader, so they are not written to the file.
    Snapshot out = s;
    for (auto& o : out.offers) o.flags &= (kFlagUnverifiedPrice | kFlagSpecIncomplete);
    out.id = "";
    char hash[16];
    std::snprintf(hash, sizeof hash, "%08x", fnv1a(snapshot_to_json(out)));
    const std::string prefix = P["snapshot"].value("id_prefix", std::string("trainfit"));
    s.id = out.id = prefix + "-" + s.created + "-" + hash;
    res.json = snapshot_to_json(out);
    res.snapshot = std::move(s);
    res.notes = notes.take();
    return res;
  } catch (const std::exception& e) {
    return Error{"import", std::string("internal error: ") + e.what()};
  }
}

}  // namespace trainfit
