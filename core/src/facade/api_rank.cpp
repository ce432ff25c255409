// trainfit core — the facade's rank document (api.h): one row per offer and pricing option, why the others are
// out, the rows held back for doubtful prices, and when the prices were captured.
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "facade/api_internal.h"
#include "trainfit/estimate/memory.h"
#include "trainfit/estimate/planner.h"
#include "trainfit/market/billing.h"
#include "trainfit/market/rank.h"
#include "trainfit/query/query.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit::api_detail {
namespace {

// What a tight verdict means, with the band's size (memory.h): the same words on every surface.
std::string tight_note() {
  char b[96];
  std::snprintf(b, sizeof b, "tight: may run out of memory; the band is +%.0f%%", 100.0 * (kBandHighFactor - 1.0));
  return b;
}

json row_doc(const Snapshot& s, const RankResult& r, const RankRow& row) {
  const Offer& o = s.offers[row.offer];
  const GpuSpec& g = s.gpus[o.gpu];
  json d{{"offer", o.id},
         {"provider", s.providers[o.provider].id},
         {"instance_type", o.instance_type},
         {"name", offer_display_name(s, o)},
         {"region", o.region},
         {"gpu", g.id},
         {"gpu_name", g.name},
         {"gpus_per_node", o.gpu_count},
         {"vram_per_gpu_bytes", num(g.memory_bytes)},
         {"cuda_memory_bytes", num(gpu_capacity_bytes(g))},
         {"interconnect", link_class_name(o.intra_link)},
         {"option", pricing_option_name(row.option)},
         {"price_usd_per_h", num(row.price_usd_per_h)},
         {"state", row_state_name(row.state)},
         {"flags", offer_flag_names(o.flags)}};
  if (o.via >= 0) d["via"] = s.providers[o.via].id;  // the marketplace that sells it; absent = sold directly
  d["access"] = access_doc(access_fact(s, o));
  if (const Reservation* rv = reservation_of(s, o); rv && row.option == PricingOption::reserved)
    d["reservation"] = rv->id;  // the booking product priced
  if (!row.why_not.empty()) d["why_not"] = row.why_not;
  if (row.nodes > 0 && row.shape >= 0 && row.plan_index >= 0) {
    const Plan& p = r.shapes[row.shape].plan().by_nodes[row.plan_index];
    d["nodes"] = row.nodes;
    d["plan"] = plan_summary(p);
    d["topology"] = topology_name(p.topology);
    d["mfu"] = num(p.mfu);
    d["time_s"] = num(row.time_s);
    d["time_low_s"] = num(row.time_low_s);
    d["time_high_s"] = num(row.time_high_s);
    d["wall_s"] = num(row.wall_s);
    d["total_usd"] = num(row.total_usd);
    d["total_low_usd"] = num(row.total_low_usd);
    d["total_high_usd"] = num(row.total_high_usd);
    d["rounding_waste_usd"] = num(row.rounding_waste_usd);
    d["usd_per_mtok"] = num(row.usd_per_mtok);
    d["memory_bytes"] = num(row.memory_bytes);
    d["memory_high_bytes"] = num(row.memory_high_bytes);
    d["headroom"] = num(row.headroom);
    d["verdict"] = to_string(row.verdict);
    if (row.verdict == FitVerdict::tight) d["fit_note"] = tight_note();
    d["pareto"] = row.pareto;
    if (row.dev_cycle_usd >= 0) d["dev_cycle_usd"] = num(row.dev_cycle_usd);
  }
  return d;
}

// When the prices were captured (not the snapshot's build date), their age against the date the loader judged
// staleness on, and the command that refreshes them when they are stale.
// `oldest_ranked`: the oldest capture date among the prices a ranking ranks ("" = not a ranking, or none ranked).
json prices_doc(const Snapshot& s, const std::string& oldest_ranked = "") {
  const PriceDates d = price_dates(s);
  json dates = json::array();
  for (const CaptureDate& c : d.dates) dates.push_back({{"date", c.date}, {"providers", c.providers}, {"offers", c.offers}});
  json doc{{"captured", dates}, {"stale_after_days", num(s.stale_after_days)}, {"stale", d.stale}};
  if (d.age_days) doc["age_days"] = *d.age_days;  // left out when unknown (documents carry no nulls)
  if (d.stale) doc["refresh"] = kRefreshPricesCommand;
  if (!oldest_ranked.empty()) doc["oldest_ranked"] = oldest_ranked;
  return doc;
}

// Rows held back for a doubtful price, by flag (a row held back for two flags counts under both).
json held_back_doc(const Snapshot& s, const RankResult& r) {
  json by_flag = json::object();
  for (const auto& row : r.rows) {
    if (row.state != RowState::held_back) continue;
    for (const std::string& n : offer_flag_names(held_back_flags(s.offers[row.offer], row.option)))
      by_flag[n] = by_flag.value(n, 0) + 1;
    if (reserved_lower_bound(s, s.offers[row.offer], row.option))
      by_flag[kReservedLowerBound] = by_flag.value(kReservedLowerBound, 0) + 1;
  }
  return by_flag;
}

// Why the other rows are out, grouped (largest groups first): what a user needs when nothing matches.
json why_not_summary(const RankResult& r) {
  std::vector<std::pair<std::string, int>> reasons;
  for (const auto& row : r.rows) {
    if (row.state == RowState::ranked) continue;
    const std::string key = std::string(row_state_name(row.state)) + ": " + row.why_not;
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& p) { return p.first == key; });
    if (it == reasons.end()) reasons.emplace_back(key, 1);
    else ++it->second;
  }
  std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  json why = json::array();
  for (size_t i = 0; i < reasons.size() && i < 8; ++i) why.push_back({{"reason", reasons[i].first}, {"rows", reasons[i].second}});
  return why;
}

// The booking products of the reserved rows shown, in the order first shown: where and when each price was read.
json reservations_doc(const Snapshot& s, const std::vector<int>& shown) {
  json out = json::array();
  for (int i : shown) {
    const Reservation& rv = s.reservations[static_cast<size_t>(i)];
    out.push_back({{"id", rv.id}, {"name", rv.name}, {"provider", rv.provider}, {"captured", rv.capture_date},
                   {"source", rv.source}, {"terms", reservation_terms_text(rv)}});
  }
  return out;
}

}  // namespace

// An offer's availability fact (snapshot.h AccessFact): how it is obtained, the quota to ask for, the largest
// cluster and the date. Its detail and source are in the lean snapshot's text sidecar (the UI shows them): the
// documents leave them out so that the page and the CLI answer alike.
json access_doc(const AccessFact& a) {
  json d{{"how", access_name(a.how)}};
  if (!a.quota.empty()) d["quota"] = a.quota;
  if (!a.max_cluster.empty()) d["max_cluster"] = a.max_cluster;
  if (!a.date.empty()) d["date"] = a.date;
  return d;
}

json rank_doc(const Query& q, const Snapshot& s) {
  Result<RankResult> r = rank_offers(q, s);
  if (!r) return error_doc(r.error());
  json rows = json::array();
  int shown = 0;
  // A calibrated query (calibrate.h) re-ranks every offer with the fitted efficiency factor; rows say from which
  // GPU's measured run it came.
  std::string calibrated_from;
  if (q.calibration.efficiency_scale > 0) {
    const int gi = s.find_gpu(q.calibration.gpu);
    calibrated_from = gi >= 0 ? s.gpus[gi].name : q.calibration.gpu;
  }
  std::vector<int> products;  // the booking products of the reserved rows shown
  int by_state[7] = {0, 0, 0, 0, 0, 0, 0};
  int tight = 0;
  for (const auto& row : r->rows) {
    ++by_state[static_cast<int>(row.state)];
    const bool ranked = row.state == RowState::ranked;
    tight += ranked && row.verdict == FitVerdict::tight;
    if (!ranked && !q.filters.show_all) continue;
    if (q.top > 0 && shown >= q.top) continue;
    json d = row_doc(s, *r, row);
    if (const int rv = s.offers[row.offer].reservation; row.option == PricingOption::reserved && rv >= 0 &&
        std::find(products.begin(), products.end(), rv) == products.end())
      products.push_back(rv);
    if (!calibrated_from.empty() && d.contains("plan")) d["calibrated_from"] = calibrated_from;
    rows.push_back(std::move(d));
    ++shown;
  }
  json doc{{"ok", true},
          {"matched", r->ranked > 0},
          {"why_not_summary", why_not_summary(*r)},
          {"held_back", held_back_doc(s, *r)},
          {"show_doubtful", q.filters.show_doubtful},
          {"launchable", q.filters.launchable},
          {"snapshot", s.id},
          {"prices", prices_doc(s, oldest_ranked_capture(s, *r))},
          {"sort", to_string(q.sort)},
          {"counts", {{"ranked", by_state[0]}, {"tight", tight}, {"does_not_fit", by_state[1]}, {"filtered", by_state[2]},
                      {"no_price", by_state[3]}, {"unsupported", by_state[4]}, {"error", by_state[5]},
                      {"held_back", by_state[6]}}},
          {"useful_tokens", num(r->useful_tokens)},
          {"checkpoint_bytes", num(r->checkpoint_bytes)},
          {"shapes_planned", r->shapes_planned},
          {"rows", rows}};
  if (!products.empty()) doc["reservations"] = reservations_doc(s, products);  // absent when no reserved row is shown
  return doc;
}

}  // namespace trainfit::api_detail
