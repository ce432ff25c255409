// trainfit core (internal) — what the ranking engine's sources share: the row figures a node-count choice
// compares, the Ranker that walks the offers, and the stages rank_offers (rank.cpp) runs.
// rank_filter.cpp: the filters; rank_plan.cpp: the shapes' plans and the plan cache's key; rank_cost.cpp: the
// node-count choice and the costs; rank_sort.cpp: the sort and the Pareto frontier.
#pragma once
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "trainfit/market/rank.h"

namespace trainfit::rank_detail {

inline std::string fmt(const char* f, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

// ---- filters (rank_filter.cpp) ----

// Filters that depend only on the offer (not on the plan). Returns the reason, or "" when it passes.
std::string offer_filter(const Filters& f, const Snapshot& s, const Offer& o);

// ---- planning and the plan cache (rank_plan.cpp) ----

// The query less what never reaches the planner's search, and the GPU table as bytes: the plan cache's key.
Query plan_job_query(const Query& q);
std::string gpu_table_key(const Snapshot& s);
// What the planner is asked for an offer sold by `p`, the node counts it is planned for, the training setup.
PlanOptions shape_plan_options(const Provider& p, const Filters& f, int alternatives, int nodes);
int shape_max_nodes(const Offer& o, const Filters& f, int target_nodes);
TrainConfig ranking_train(const Query& q);

// ---- node-count choice ----

// The figures of one row for one node count (what the ranking compares before it writes the row).
struct Candidate {
  int nodes = 0, plan_index = -1;
  double time_s = 0, time_low_s = 0, time_high_s = 0, wall_s = 0, total_usd = 0, total_low_usd = 0,
         total_high_usd = 0, rounding_waste_usd = 0, usd_per_mtok = 0, memory_bytes = 0, memory_high_bytes = 0,
         headroom = 0, dev_cycle_usd = -1;
  FitVerdict verdict = FitVerdict::no_fit;
  void write_to(RankRow& row) const {
    row.nodes = nodes;
    row.plan_index = plan_index;
    row.time_s = time_s;
    row.time_low_s = time_low_s;
    row.time_high_s = time_high_s;
    row.wall_s = wall_s;
    row.total_usd = total_usd;
    row.total_low_usd = total_low_usd;
    row.total_high_usd = total_high_usd;
    row.rounding_waste_usd = rounding_waste_usd;
    row.usd_per_mtok = usd_per_mtok;
    row.memory_bytes = memory_bytes;
    row.memory_high_bytes = memory_high_bytes;
    row.headroom = headroom;
    row.verdict = verdict;
    row.dev_cycle_usd = dev_cycle_usd;
  }
};

// What a node-count choice depends on besides the query (rank_offers keeps the last few choices, Ranker::recent).
struct ChoiceKey {
  int shape = -1, provider = -1;
  const BillingRule* rule = nullptr;
  PricingOption option = PricingOption::on_demand;
  uint64_t price_bits = 0, spot_bits = 0;  // the offer's on-demand and spot prices, compared bit for bit
  uint64_t reserved_bits = 0;              // its reserved price, and the product's index
  int reservation = -1;
  bool operator==(const ChoiceKey& o) const {
    return shape == o.shape && provider == o.provider && rule == o.rule && option == o.option &&
           price_bits == o.price_bits && spot_bits == o.spot_bits && reserved_bits == o.reserved_bits &&
           reservation == o.reservation;
  }
};
struct Choice {
  ChoiceKey key;  // shape -1: empty
  bool have = false, have_any = false;  // a candidate within deadline and budget / any costed candidate
  Candidate best, fastest;
  std::string last_error;               // the last cost evaluation's error (none costed)
};

template <class Row>  // RankRow or Candidate
double sort_value(SortKey k, const Row& r) {
  switch (k) {
    case SortKey::time: return r.wall_s;
    case SortKey::usd_per_mtok: return r.usd_per_mtok;
    // A row whose dev-cycle cost failed (< 0) sorts last.
    case SortKey::dev_cycle: return r.dev_cycle_usd >= 0 ? r.dev_cycle_usd : std::numeric_limits<double>::infinity();
    case SortKey::total_cost:
    case SortKey::cost_under_deadline: return r.total_usd;
  }
  return r.total_usd;
}

// ---- the ranker ----

// NOTE(perf): rank_offers is a short driver over functions of moderate size, kept out of line (see the NOTE(perf) in
// snapshot_json_offers.cpp): the per-offer work (Ranker::offer), a shape's plan (Ranker::shape_for), a node-count choice
// (Ranker::choose), the sort and the Pareto sweep. With the offer loop inside one long function, every page
// load had V8 optimise all of rank_offers (~80 ms of a core) during the first ranking; now only the small hot
// parts are, and later rankings run them optimised.
struct Ranker {
  const Query& q;
  const Snapshot& s;
  const Filters& f;
  const TrainConfig& train;
  const DatasetTokens& tok;
  RankResult& r;
  const TimeBand band = time_band(q.model);  // the job's time band (dense or MoE), once per ranking
  int alternatives = kRankAlternatives;  // PlanOptions::alternatives of every shape planned
  std::vector<ShapePlan>* cached = nullptr;  // the PlanCache's shapes, hit and miss counters (none: no cache)
  int* hits = nullptr;
  int* misses = nullptr;
  std::vector<std::vector<int>> shapes_of_gpu;  // shape indices by GPU index (see shape_for)
  // The cache's shapes from earlier rankings, by GPU index: a lookup scans a GPU's few shapes, not every cached
  // one (the bundled snapshot's ~700 shapes made that scan quadratic: ~10 ms of the page's first ranking in the
  // browser's baseline tier). Shapes this ranking adds to the cache are found through shapes_of_gpu instead.
  std::vector<std::vector<int>> cached_of_gpu;
  int last_shape = -1;  // the previous offer's shape: offers come by id, an instance type's regions one after another
  std::optional<PlanJob> job;  // the job-level half of planning, prepared at the first shape planned
  CostBreakdown cost;          // every cost evaluation's breakdown, reused
  // The last node-count choices, one per pricing option an offer can have: an offer's on-demand, spot and
  // reserved rows come one after another, and the next offer of the same instance type and prices takes them.
  static constexpr int kRecent = static_cast<int>(std::size(kPricingOptions));
  Choice recent[kRecent];
  unsigned recent_used[kRecent] = {};  // when each was last used (a tick), to replace the least recent
  unsigned recent_tick = 0;

  [[gnu::noinline]] void offer(int i);
  bool pre_filter(RankRow& row, const Offer& o, const std::string& offer_reason);
  [[gnu::noinline]] void place(RankRow& row, const ShapePlan& shape, const Provider& p, const Offer& o);
  [[gnu::noinline]] int shape_for(const Offer& o, const Provider& p, int max_nodes);
  int find_shape(const Offer& o, const Provider& p, int max_nodes);
  Candidate candidate(const Plan& plan, int k, double train_s, const GpuSpec& g, const Provider& p, const Offer& o,
                      const BillingRule& rule, PricingOption option) const;
  [[gnu::noinline]] void choose(Choice& choice, const ShapePlan& shape, const Provider& p, const Offer& o,
                                const BillingRule& rule, PricingOption option);
};

// ---- order (rank_sort.cpp) ----

// Ranked rows by the sort key, then the others in snapshot order; counts ranked and held-back rows.
[[gnu::noinline]] void sort_rows(const Query& q, const Snapshot& s, RankResult& r);
// Marks the time/cost Pareto frontier of the ranked rows.
[[gnu::noinline]] void mark_pareto(const Query& q, RankResult& r);

}  // namespace trainfit::rank_detail
