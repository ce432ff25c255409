// trainfit core — the importer's offers: one offer row per group of zones, and the providers and GPUs the
// snapshot keeps (those some offer names). Part of the importer (importer.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "storage/importer_internal.h"

namespace trainfit::detail::importer {

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

// Providers no offer names (a catalog file that was optional and absent, a cloud no marketplace row
// reached) are left out, with a note, so the snapshot lists only providers it has offers for.
ojson providers_with_offers(const ojson& P, const Groups& groups, Notes& notes,
                            std::map<std::string, std::string>& capture) {
  std::set<std::string> used;
  for (const auto& [prov, byname] : groups)
    for (const auto& [key, g] : byname) {
      used.insert(g.runs_on);
      if (!g.via.empty()) used.insert(g.via);
    }
  ojson providers = ojson::array();
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
  return providers;
}

// GPUs no offer runs on are left out too (gpus.json keeps every checked spec; the snapshot, which the web
// page downloads, only those it needs).
ojson gpus_with_offers(const ojson& gpus, const Groups& groups, Notes& notes) {
  std::set<std::string> used_gpus;
  for (const auto& [prov, byname] : groups)
    for (const auto& [key, g] : byname) used_gpus.insert(g.fam->gpu);
  ojson kept_gpus = ojson::array();
  for (const auto& g : gpus) {
    if (used_gpus.count(g.value("id", ""))) kept_gpus.push_back(g);
    else notes.add("gpu_without_offers", "gpus.json", g.value("id", ""), "no offer runs on this GPU; left out of the snapshot");
  }
  return kept_gpus;
}

ojson offer_rows(const Groups& groups, std::map<std::string, std::string>& capture) {
  ojson rows = ojson::array();
  // A marketplace row's capture date is its catalog's (the marketplace's), not the running cloud's.
  for (const auto& [prov, byname] : groups)
    for (const auto& [key, g] : byname) rows.push_back(offer_row(prov, key, g, capture[prov]));
  return rows;
}

}  // namespace trainfit::detail::importer
