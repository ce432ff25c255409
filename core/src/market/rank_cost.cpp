// trainfit core — costing the ranking's rows: each node count of a shape's plan billed for one offer and pricing
// option, the best of them within the deadline and budget chosen (and reused by the next offer of equal terms).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "market/rank_internal.h"

namespace trainfit {
namespace {

uint64_t bits_of(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

}  // namespace

DevCycleInput dev_cycle_input(const Query& q, const Provider& p, const Offer& o, PricingOption option, int nodes) {
  DevCycleInput in;
  in.runs = q.cost.dev_runs;
  in.run_s = q.cost.dev_run_minutes * 60;
  in.nodes = nodes;
  in.price_usd_per_h = option_price_usd_per_h(o, option);
  in.provision_s = p.provision_s >= 0 ? p.provision_s : kAssumedProvisionS;  // unknown: rank.h's assumption
  in.bills_provisioning = p.bills_provisioning;
  return in;
}

// The job-level inputs of one cost evaluation.
static JobCostInput job_input(const Query& q, const RankResult& r, const Snapshot& s, const Provider& p,
                              const Offer& o, PricingOption option, int nodes, double train_s) {
  JobCostInput in;
  fill_job_cost_input(in, p, o, option, reservation_of(s, o));
  in.train_time_s = train_s;
  in.nodes = nodes;
  in.dataset_bytes = r.dataset_bytes;
  in.checkpoint_bytes = r.checkpoint_bytes;
  // Every node writes and reads its shard of the checkpoint in parallel.
  in.checkpoint_write_MBps = p.storage_write_MBps > 0 ? p.storage_write_MBps * nodes : 0;
  in.checkpoint_read_MBps = p.storage_read_MBps > 0 ? p.storage_read_MBps * nodes : 0;
  in.checkpoint_interval_s = q.cost.checkpoint_interval_s;
  in.eval_fraction = q.cost.eval_overhead;
  in.volume_GB = q.cost.volume_GB > 0 ? q.cost.volume_GB : (r.checkpoint_bytes + r.dataset_bytes) / kGB;
  in.egress_GB = q.cost.egress_GB;
  // Figures the snapshot does not know (null in JSON, < 0 here) get the documented assumptions of rank.h, so
  // every offer is costed the same way; the row says which assumptions it used.
  if (!(in.staging_MBps > 0)) in.staging_MBps = kAssumedStagingMBps;
  if (!(in.checkpoint_write_MBps > 0)) in.checkpoint_write_MBps = kAssumedStorageMBps * nodes;
  if (!(in.checkpoint_read_MBps > 0)) in.checkpoint_read_MBps = kAssumedStorageMBps * nodes;
  if (!(in.storage_usd_per_GB_month >= 0)) in.storage_usd_per_GB_month = kAssumedStorageUsdPerGBMonth;
  if (!(in.egress_usd_per_GB >= 0)) in.egress_usd_per_GB = kAssumedEgressUsdPerGB;
  if (!(in.provision_s >= 0)) in.provision_s = kAssumedProvisionS;
  if (option == PricingOption::spot && !(in.spot_interruption_rate_per_h >= 0))
    in.spot_interruption_rate_per_h = q.cost.spot_interruption_rate_per_h > 0 ? q.cost.spot_interruption_rate_per_h
                                                                                : kAssumedSpotInterruptionsPerH;
  if (option == PricingOption::spot && q.cost.spot_interruption_rate_per_h > 0)
    in.spot_interruption_rate_per_h = q.cost.spot_interruption_rate_per_h;
  if (!(in.spot_interruption_rate_per_h >= 0)) in.spot_interruption_rate_per_h = 0;
  return in;
}

namespace rank_detail {

// Chooses the node count: the best sort value among those within the deadline and the budget. The candidates
// are kept as numbers (a whole row copied per node count was ~10% of a first ranking in the wasm baseline
// tier) and the chosen one is written into the row once. The choice depends only on the shape's plan, the
// provider, the billing rule, the option and the offer's two prices: offers of one instance type in regions
// with the same prices, listed next to each other, take one of the last choices (one per pricing option; ~35% of
// the bundled snapshot's costed rows) instead of costing every node count again.
void Ranker::place(RankRow& row, const ShapePlan& shape, const Provider& p, const Offer& o) {
  const BillingRule& rule = billing_rule_for(p, o.instance_type);
  const ChoiceKey key{row.shape,        o.via >= 0 ? o.via : o.provider, &rule,
                      row.option,       bits_of(o.price_usd_per_h),       bits_of(o.spot_usd_per_h),
                      bits_of(o.reserved_usd_per_h), o.reservation};
  Choice* choice = nullptr;
  int oldest = 0;
  for (int c = 0; c < kRecent; ++c) {
    if (recent[c].key == key) {
      choice = &recent[c];
      recent_used[c] = ++recent_tick;
      break;
    }
    if (recent_used[c] < recent_used[oldest]) oldest = c;
  }
  if (!choice) {
    choice = &recent[oldest];
    recent_used[oldest] = ++recent_tick;
    choice->key = key;
    choose(*choice, shape, p, o, rule, row.option);
  }
  if (choice->have) {
    choice->best.write_to(row);
  } else if (choice->have_any) {
    const Candidate& fastest = choice->fastest;
    fastest.write_to(row);
    row.state = RowState::filtered;
    if (f.deadline_h > 0 && fastest.wall_s > f.deadline_h * kHour_s)
      row.why_not = fmt("deadline: the fastest plan takes %.1f h, over the %.1f h deadline", fastest.wall_s / kHour_s,
                        f.deadline_h);
    else
      row.why_not = fmt("budget: the cheapest plan within the deadline costs more than $%.0f", f.budget_usd);
  } else {
    row.state = RowState::error;
    row.why_not = choice->last_error.empty() ? (q.target.nodes > 0 ? fmt("no plan on %.0f nodes", q.target.nodes)
                                                                   : std::string("no plan could be costed"))
                                             : choice->last_error;
  }
}

// The candidate of one node count from the cost breakdown just computed (`cost`), with the dev-cycle cost
// when the query asks for it.
Candidate Ranker::candidate(const Plan& plan, int k, double train_s, const GpuSpec& g, const Provider& p,
                            const Offer& o, const BillingRule& rule, PricingOption option) const {
  const CostBreakdown* c = &cost;
  Candidate cand;
  cand.nodes = plan.nodes;
  cand.plan_index = k;
  cand.time_s = train_s;
  cand.time_low_s = train_s * (1 - band.low);
  cand.time_high_s = train_s * (1 + band.high);
  cand.wall_s = c->wall_s;
  cand.total_usd = c->total_usd;
  // Band: the time band scales the compute part; for spot the interruption quantiles widen it.
  const double compute_part = c->compute_usd + c->rounding_waste_usd;
  cand.total_low_usd = std::min(c->low.total_usd, c->total_usd) - compute_part * band.low;
  cand.total_high_usd = std::max(c->high.total_usd, c->total_usd) + compute_part * band.high;
  cand.total_low_usd = std::max(0.0, cand.total_low_usd);
  cand.rounding_waste_usd = c->rounding_waste_usd;
  cand.usd_per_mtok = r.useful_tokens > 0 ? c->total_usd / (r.useful_tokens / 1e6) : 0;
  cand.memory_bytes = plan.memory_bytes;
  cand.memory_high_bytes = plan.memory_high_bytes;
  cand.headroom = gpu_capacity_bytes(g) > 0 ? 1 - plan.memory_bytes / gpu_capacity_bytes(g) : 0;
  cand.verdict = plan.verdict;
  // Development runs are not booked as reservations: a reserved row has no dev-cycle cost (sorts last by it).
  if (q.cost.dev_runs > 0 && q.cost.dev_run_minutes > 0 && option != PricingOption::reserved) {
    Result<DevCycleCost> dc = dev_cycle_cost(dev_cycle_input(q, p, o, option, plan.nodes), rule);
    cand.dev_cycle_usd = dc ? dc->cost_usd : -1;
  }
  return cand;
}

// Costs every node count of the shape's plan for one offer and pricing option: the best candidate within the
// deadline and the budget by the sort key, and the fastest of all (shown, filtered, when none qualifies).
void Ranker::choose(Choice& choice, const ShapePlan& shape, const Provider& p, const Offer& o,
                    const BillingRule& rule, PricingOption option) {
  choice.have = choice.have_any = false;
  choice.last_error.clear();
  const GpuSpec& g = s.gpus[o.gpu];
  bool& have = choice.have;
  bool& have_any = choice.have_any;
  Candidate& best = choice.best;
  Candidate& fastest = choice.fastest;
  const auto& by_nodes = shape.plan().by_nodes;
  for (int k = 0; k < static_cast<int>(by_nodes.size()); ++k) {
    const Plan& plan = by_nodes[k];
    if (!plan.why.empty() || !(plan.tokens_per_s > 0)) continue;
    if (q.target.nodes > 0 && plan.nodes != q.target.nodes) continue;
    if (option == PricingOption::reserved) {  // a booking's instance limit
      const Reservation* rv = reservation_of(s, o);
      if (rv && rv->max_instances > 0 && plan.nodes > rv->max_instances) continue;
    }
    const double train_s = tok.processed / plan.tokens_per_s;
    Error cost_error;
    const bool costed = compute_job_cost(job_input(q, r, s, p, o, option, plan.nodes, train_s), rule, cost, &cost_error);
    ++r.cost_evaluations;
    if (!costed) {
      choice.last_error = cost_error.to_string();
      continue;
    }
    const Candidate cand = candidate(plan, k, train_s, g, p, o, rule, option);
    if (!have_any || cand.wall_s < fastest.wall_s) fastest = cand;
    have_any = true;
    const bool deadline_ok = f.deadline_h <= 0 || cand.wall_s <= f.deadline_h * kHour_s;
    const bool budget_ok = f.budget_usd <= 0 || cand.total_usd <= f.budget_usd;
    if (!deadline_ok || !budget_ok) continue;
    // Equal sort values: the plan that fits beats a tight one ("prefer a fitting layout of equal cost").
    const bool better = !have || sort_value(q.sort, cand) < sort_value(q.sort, best) ||
                        (sort_value(q.sort, cand) == sort_value(q.sort, best) && cand.verdict == FitVerdict::fits &&
                         best.verdict != FitVerdict::fits);
    if (better) best = cand;
    have = true;
  }
}

}  // namespace rank_detail

using rank_detail::fmt;

Result<CostBreakdown> cost_for(const Query& q, const Snapshot& s, const RankResult& r, const RankRow& row, int nodes) {
  if (row.shape < 0 || row.shape >= static_cast<int>(r.shapes.size()) || !r.shapes[row.shape].ok)
    return Error{"target.offer", "this offer has no plan"};
  const auto& by_nodes = r.shapes[row.shape].plan().by_nodes;
  for (const Plan& plan : by_nodes) {
    if (plan.nodes != nodes || !plan.why.empty() || !(plan.tokens_per_s > 0)) continue;
    const Offer& o = s.offers[row.offer];
    const Provider& p = seller_of(s, o);
    return compute_job_cost(job_input(q, r, s, p, o, row.option, nodes, r.processed_tokens / plan.tokens_per_s),
                            billing_rule_for(p, o.instance_type));
  }
  return Error{"target.nodes", fmt("no plan fits on %.0f nodes", nodes)};
}

}  // namespace trainfit
