// trainfit core — the importer's reading of the SkyPilot catalog CSVs: the tables per provider x role, ordinary
// (vms) catalogs row by row, and GCP's host + accelerator rows joined per zone. Part of the importer (importer.h).
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "storage/importer_internal.h"

namespace trainfit::detail::importer {
namespace {

std::optional<double> parse_num(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
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

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace trainfit::detail::importer
