// trainfit core — the importer's curated inputs (data/inputs/*.json): the family rules, each catalog's options,
// the GPU specs the snapshot keeps and the reservation products. Part of the importer (importer.h).
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "storage/importer_internal.h"

namespace trainfit::detail::importer {

Result<ojson> parse_json_input(const std::string& text, const char* what) {
  ojson j = ojson::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Error{what, "not a JSON object"};
  return j;
}

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

}  // namespace trainfit::detail::importer
