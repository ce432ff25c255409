// trainfit core — what the pieces of the snapshot importer share (importer.cpp, importer_inputs.cpp,
// importer_catalog.cpp, importer_offers.cpp): the rules, rows, groups and notes an import builds, and its steps.
// Internal to the core: not installed with trainfit/*.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "trainfit/storage/importer.h"

namespace trainfit::detail::importer {

using ojson = nlohmann::ordered_json;

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

// What a catalog's GpuInfo 'SizeInMiB' means (providers.json catalog entry "gpuinfo_memory"): MiB per GPU (the
// SkyPilot convention), MiB for the whole instance (Vast.ai: 2x RTX 4090 says 49128), or GB per GPU under the MiB
// key (Shadeform: 48 for an A6000). SOURCE.md lists each catalog's quirk.
enum class GpuInfoUnit { per_gpu_MiB, instance_MiB, per_gpu_GB };

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

// ---- the curated inputs (importer_inputs.cpp)

// The text as a JSON object, or an error naming `what`.
Result<ojson> parse_json_input(const std::string& text, const char* what);
// The rules of instance_families.json, each checked; a rule's GPU must be in `gpu_mem` (gpus.json).
Result<std::vector<Family>> read_families(const ojson& F, const std::map<std::string, double>& gpu_mem);
// A catalog entry's options (providers.json providers[i].catalog[j] and providers[i].marketplace).
Result<CatalogOptions> catalog_options(const ojson& provider, const ojson& entry, const std::string& ptr);
// GPU specs: copy only the snapshot fields; the verification trail stays in the inputs.
ojson snapshot_gpus(const ojson& G, std::map<std::string, double>* gpu_mem);
// The booking products of reservations.json as the snapshot stores them (prices of offers `rows` lacks: a note).
Result<ojson> read_reservations(const std::string& text, const ojson& rows, Notes& notes);

// ---- the catalog files (importer_catalog.cpp)

// The catalog files of the input, one table per provider x role.
Result<std::map<std::string, Table>> read_tables(const ImportInputs& in);
// Ordinary catalogs: one row = one priced instance in one zone.
Result<bool> read_vms(ImportCtx& x, const std::string& prov, const Table& t, const CatalogOptions& opt);
// GCP: the VM price is the host row plus the accelerator row of the same zone.
void read_gcp(ImportCtx& x, const std::string& prov, const Table& H, const Table& A);

// ---- the offers and what the snapshot keeps (importer_offers.cpp)

// One offer row from a group (the column order of detail::kColNames).
ojson offer_row(const std::string& prov, const std::pair<std::string, std::string>& key, const Group& g,
                const std::string& capture);
// The providers some offer names, in providers.json order (the others: a note); `capture` gets every provider's
// capture date.
ojson providers_with_offers(const ojson& P, const Groups& groups, Notes& notes,
                            std::map<std::string, std::string>& capture);
// The GPUs some offer runs on, in gpus.json order (the others: a note).
ojson gpus_with_offers(const ojson& gpus, const Groups& groups, Notes& notes);
// Every group's offer row, in group order.
ojson offer_rows(const Groups& groups, std::map<std::string, std::string>& capture);

}  // namespace trainfit::detail::importer
