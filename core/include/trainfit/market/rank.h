// trainfit core — the ranking engine: every offer of a snapshot (provider x instance type x region x pricing
// option), planned and costed for one query, filtered, sorted, with the time/cost Pareto frontier.
// Plans depend on the instance *shape* (GPU, GPU count, links, node limit, host), not on the region or price, so
// they are computed once per shape and shared by every row of that shape (the bundled snapshot: 737 shapes for an
// 8B LoRA over 2,441 offers, ~330 of them searched, the others given a twin's plan).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trainfit/market/billing.h"
#include "trainfit/base/common.h"
#include "trainfit/estimate/planner.h"
#include "trainfit/query/query.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {

// One instance shape and its plan over node counts.
struct ShapePlan {
  int gpu = -1;
  int gpu_count = 0;
  LinkClass intra_link = LinkClass::none;
  double intra_link_GBps = 0;
  NetKind inter_net = NetKind::none;
  double inter_net_Gbps = 0;
  int max_nodes = 1;
  int offer_max_nodes = 1;     // the offer's own cluster limit (a no-fit plan's hint names it)
  double storage_read_MBps = 0;
  double vcpus = 0;            // the planner reads these two for CPU offload (host bandwidth, host RAM)
  double host_ram_bytes = 0;
  bool ok = false;             // the planner ran (false: `error` says why, e.g. a GPU spec lacks BF16 figures)
  std::string error;
  // The plan, immutable once made and shared: by the twins given it and by a PlanCache. A ranking copied it for each
  // (two copies per shape, ~6 ms of the page's first ranking in the browser's baseline tier); now one that differs
  // (a cache hit for another dataset size) is a new plan.
  std::shared_ptr<const PlanResult> plan_ptr;
  const PlanResult& plan() const { return plan_ptr ? *plan_ptr : no_plan(); }
  static const PlanResult& no_plan();  // an empty PlanResult (fits false): the plan of a shape that is not `ok`
};

// Whether pricing filter `f` (filters.pricing, target.pricing) admits option `o`, and the filter of one option.
inline bool pricing_admits(PricingFilter f, PricingOption o) {
  return f == PricingFilter::any || static_cast<int>(f) == static_cast<int>(o) + 1;
}
inline PricingFilter pricing_filter_of(PricingOption o) { return static_cast<PricingFilter>(static_cast<int>(o) + 1); }
// The option a filter other than `any` selects.
inline PricingOption pricing_option_of(PricingFilter f) { return static_cast<PricingOption>(static_cast<int>(f) - 1); }
static_assert(static_cast<int>(PricingFilter::reserved) == static_cast<int>(PricingOption::reserved) + 1 &&
                  static_cast<int>(PricingFilter::spot) == static_cast<int>(PricingOption::spot) + 1,
              "PricingFilter lists the options in PricingOption's order, after `any`");
// The price of `o` under option `opt`, per instance-hour; < 0 = not offered that way.
inline double option_price_usd_per_h(const Offer& o, PricingOption opt) {
  return opt == PricingOption::spot ? o.spot_usd_per_h
         : opt == PricingOption::reserved ? o.reserved_usd_per_h
                                          : o.price_usd_per_h;
}

// ranked: costed and within every filter. does_not_fit: no layout fits the GPUs' memory. unsupported: the
// instance cannot run the job as asked (e.g. bf16 on a GPU without BF16, a GPU figure missing from the
// snapshot). filtered: excluded by a filter (why_not names it). error: costing failed (why_not says why).
// held_back: the snapshot doubts this row's price (held_back_flags) and the query did not ask for such rows
// (filters.show_doubtful); why_not names the flags.
enum class RowState { ranked, does_not_fit, filtered, no_price, unsupported, error, held_back };

// The flags that make the snapshot doubt a price (docs/snapshot.md, "Warnings"): unverified_price and
// spot_above_on_demand hold back both pricing options of an offer (either price may be the wrong one);
// deep_spot_discount holds back its spot row only (the on-demand price is a plain list price). The other flags
// (price_outlier, stale, ...) only mark a row.
inline constexpr uint32_t kDoubtfulPriceFlags = kFlagUnverifiedPrice | kFlagSpotAboveOnDemand | kFlagDeepSpotDiscount;
uint32_t held_back_flags(const Offer& o, PricingOption option);
// A reserved row priced by a contract without a published term (snapshot.h Reservation::negotiated): its rate is
// only the lower bound of what the booking costs, so it is held back like a doubtful price (show_doubtful ranks it),
// counted under kReservedLowerBound.
bool reserved_lower_bound(const Snapshot& s, const Offer& o, PricingOption option);
inline constexpr const char* kReservedLowerBound = "reserved_lower_bound";

// Assumptions for figures a snapshot leaves unknown (null). Each is deliberately middle-of-the-road and
// overridable where it matters most (query cost.spot_interruption_rate_per_h):
// - staging: ~1 Gbit/s effective download of the dataset onto a fresh instance;
// - storage: 200 MB/s per node to a network volume (gp3's baseline is 125 MB/s, provisioned up to 1,000;
//   AWS EBS docs), for checkpoint writes and reloads;
// - $0.10 per GB-month of persistent volume (AWS gp3 $0.08, GCP pd-balanced $0.10: docs/pricing notes §3.1);
// - no egress charge (most GPU clouds list none; hyperscalers charge ~$0.09/GB, set cost.egress_GB to see it);
// - 5 minutes of provisioning + boot;
// - 0.05 spot interruptions per instance-hour (one per 20 h): no GPU cloud publishes rates; AWS's Spot
//   Instance Advisor buckets GPU families mostly above 10-20% per month of *launch* interruptions, and
//   practitioner reports for H100/A100 spot range from hours to days, so this is a coarse middle value.
inline constexpr double kAssumedStagingMBps = 125;
inline constexpr double kAssumedStorageMBps = 200;
inline constexpr double kAssumedStorageUsdPerGBMonth = 0.10;
inline constexpr double kAssumedEgressUsdPerGB = 0;
inline constexpr double kAssumedProvisionS = 300;
inline constexpr double kAssumedSpotInterruptionsPerH = 0.05;
const char* row_state_name(RowState s);

struct RankRow {
  int offer = -1;              // index into Snapshot::offers
  PricingOption option = PricingOption::on_demand;
  int shape = -1;              // index into RankResult::shapes
  int nodes = 0;               // chosen node count (0 when none fits)
  int plan_index = -1;         // index into shapes[shape].plan().by_nodes of the chosen node count
  RowState state = RowState::ranked;
  std::string why_not;         // does_not_fit / filtered / no_price / error: the reason, with numbers
  double price_usd_per_h = 0;  // per instance, for `option`
  double time_s = 0;           // training compute time (planner), expected
  double time_low_s = 0, time_high_s = 0;
  double wall_s = 0;           // whole job: provisioning, staging, checkpoints, restarts
  double total_usd = 0;        // expected
  double total_low_usd = 0, total_high_usd = 0;
  double rounding_waste_usd = 0;
  double usd_per_mtok = 0;     // total / (useful tokens / 1e6)
  double dev_cycle_usd = -1;   // cost.dev_runs runs of cost.dev_run_minutes on `nodes` (billing.h); < 0 = not asked
  double memory_bytes = 0;     // per GPU, expected, of the chosen plan
  double memory_high_bytes = 0;
  double headroom = 0;         // 1 - memory / driver-reported GPU memory
  FitVerdict verdict = FitVerdict::no_fit;  // of the chosen plan: fits or tight when ranked (memory.h)
  bool pareto = false;         // on the time/cost frontier of the ranked rows
};

struct RankResult {
  std::vector<RankRow> rows;   // ranked rows first in sort order, then the others (does_not_fit, filtered, ...)
  std::vector<ShapePlan> shapes;
  int ranked = 0;              // rows in state `ranked`
  int held_back = 0;           // rows in state `held_back`
  double useful_tokens = 0;
  double processed_tokens = 0;  // what the GPUs run (padding included): time = processed / tokens_per_s
  double checkpoint_bytes = 0; // what one checkpoint writes
  double dataset_bytes = 0;
  int shapes_planned = 0;       // shapes planned by this ranking (not served by a PlanCache), shared ones included
  int shapes_shared = 0;       // of those, shapes that took the plan of one differing only in host RAM / vCPUs
  int shapes_cached = 0;       // shapes a PlanCache served
  int cost_evaluations = 0;
};

// Plans kept between rankings: a plan's search depends on the model, the training setup, the
// dataset's bytes per token and the instance shape, never on prices, regions, filters, sort, cost options or the
// dataset's size (whose totals a hit redoes: planner.h set_dataset_totals). A caller that re-ranks after every
// input change (the UI) passes the same cache each time, and only a change of model / setup / bytes per token /
// GPU table re-runs the planner. Holds the plans of one job at a time (a new job replaces them).
class PlanCache {
 public:
  void clear();
  int hits() const { return hits_; }      // shapes served from the cache, over its lifetime
  int misses() const { return misses_; }  // shapes planned
 private:
  friend Result<RankResult> rank_offers(const Query& q, const Snapshot& snapshot, PlanCache* cache, int alternatives);
  bool has_job_ = false;
  Query job_;             // the query the plans are for, less what never reaches the planner (rank_plan.cpp)
  int alternatives_ = 0;  // PlanOptions::alternatives they were searched with
  std::string gpus_key_;  // the GPU table they were planned with, as bytes
  std::vector<ShapePlan> shapes_;
  int hits_ = 0, misses_ = 0;
};

// The oldest capture date among the prices a ranking ranks (rows in state `ranked`); "" when none is ranked.
// What a header shows: a ranking is only as fresh as its oldest price (ISO dates compare as text).
std::string oldest_ranked_capture(const Snapshot& snapshot, const RankResult& r);

// Rank every offer of `snapshot` for query `q`. Errors only for a query that cannot be planned at all (its
// dataset or model is unusable); per-offer problems stay on their rows.
Result<RankResult> rank_offers(const Query& q, const Snapshot& snapshot);
// The same, reusing and filling `cache` (may be null). Results are identical to the uncached call.
Result<RankResult> rank_offers(const Query& q, const Snapshot& snapshot, PlanCache* cache);
// Alternatives a ranking searches per shape (PlanOptions::alternatives): none. The rows do not depend on them;
// their runners-up are shown for one row at a time (the plan verb, the UI's detail), which plan that row with
// kRowAlternatives (plan_offer_row, or rank_offers with `alternatives`).
inline constexpr int kRankAlternatives = 0;
inline constexpr int kRowAlternatives = 2;
// The same with `alternatives` searched per shape: the plan verb, whose runners-up are its output.
Result<RankResult> rank_offers(const Query& q, const Snapshot& snapshot, PlanCache* cache, int alternatives);
// The plan of offer `offer`'s shape exactly as rank_offers makes it for query `q`, with kRowAlternatives
// alternatives among its runners-up: what the detail view shows for a selected row.
Result<PlanResult> plan_offer_row(const Query& q, const Snapshot& snapshot, int offer);

// The dev-cycle scenario's input for one offer, option and node count: the query's cost.dev_runs runs of
// cost.dev_run_minutes, each provisioned anew (the provider's provisioning time, or kAssumedProvisionS).
DevCycleInput dev_cycle_input(const Query& q, const Provider& p, const Offer& o, PricingOption option, int nodes);

// The cost of one row for a given node count (for detail views): the full breakdown.
Result<CostBreakdown> cost_for(const Query& q, const Snapshot& snapshot, const RankResult& r, const RankRow& row,
                               int nodes);

}  // namespace trainfit
