// trainfit core — the job-cost model of billing.h: one job on one offer and pricing option, its billing
// segments, costs, low / high band and spot vs on-demand break-even. See billing.h for the contract.
//
// Billing facts (docs/pricing-and-specs.md §3):
//  - AWS EC2 Linux on-demand / spot: per second, 60 s minimum (aws.amazon.com/about-aws/whats-new/2017/10/
//    announcing-amazon-ec2-per-second-billing/).
//  - GCP Compute Engine: per second, 1-minute minimum, VMs and GPUs (Sept 2017; itnews.com.au report quoting
//    Google).
//  - Lambda: quoted hourly, billed in 1-minute increments from launch to termination
//    (docs.lambda.ai/public-cloud/billing).
//  - OCI: per second; VM shapes 1-minute minimum, bare metal (BM.GPU.*) 1-hour minimum (Oracle blog
//    "Announcing per-second billing").
// A billing segment is one start of one instance (a new instance after a spot reclaim is a new start), and
// the minimum applies to every segment: this is why spot restarts and short development runs cost extra.
//
// The timeline and its checkpoint / restart model are in billing_timeline.cpp, billing granularity in
// billing_rounding.cpp, reserved booking terms in billing_reserved.cpp.
#include "trainfit/market/billing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "market/billing_internal.h"

namespace trainfit {
namespace billing_detail {
namespace {

// Billing and cost of the timeline with `k` interruptions over the whole cluster (k may be fractional for
// the expected value). Each interruption replaces one instance, so there are nodes + k segments; the other
// instances keep running (and billing) while it is replaced. Given k Poisson arrivals, every gap between
// starts has the same mean L = billable / (nodes + k). The k segments that end in an interruption have
// memoryless lengths and are billed expected_billed_seconds(L) each (smooth in L: no artificial jumps when L
// crosses a whole increment); the nodes final segments are billed exactly, so a run without interruptions is
// billed exactly as billed_seconds says.
struct Billed {
  double wall_s = 0, segments = 0;
  double billable_node_s = 0, billed_node_s = 0;  // node-seconds run, node-seconds billed
  double compute_usd = 0, waste_usd = 0;          // at the price; the rounding's share
  double free_node_s = 0, free_usd = 0;           // early preemptions not billed
  double storage_usd = 0, egress_usd = 0, total_usd = 0;
  double booked_s = 0, bookings = 0;  // reserved: per instance, in `bookings` consecutive bookings
  double booked_instances = 0;        // reserved: the job's nodes or the product's minimum
};

Billed bill(const JobCostInput& in, const BillingRule& rule, const Timeline& t, double k, double price_usd_per_h) {
  Billed b;
  const double per_interruption_s = t.mu > 0 ? t.overhead_s / t.mu : 0;
  b.wall_s = t.base_wall_s + k * per_interruption_s;
  const double nodes = in.nodes;
  b.segments = nodes + k;
  b.billable_node_s = nodes * b.wall_s;
  if (!in.bills_provisioning) b.billable_node_s -= b.segments * in.provision_s;
  if (b.billable_node_s < 0) b.billable_node_s = 0;
  const double L = b.billable_node_s / b.segments;
  if (in.option == PricingOption::reserved) {
    // A booking is paid whole, from the booked start, provisioning included; a failed instance is replaced
    // inside the booking (no new segment).
    b.segments = nodes;
    b.billable_node_s = nodes * b.wall_s;
    b.booked_s = booked_term_s(b.wall_s, *in.terms, &b.bookings);
    // A booking of fewer instances than the product's minimum pays for the minimum (Lambda's 1-Click Clusters
    // start at 16 GPUs: https://lambda.ai/pricing); the unused instances idle for the whole booking.
    b.booked_instances = std::max(nodes, static_cast<double>(in.reserved_min_instances));
    b.billed_node_s = b.booked_instances * b.booked_s;
    k = 0;
  } else {
    b.billed_node_s = nodes * billed_seconds(L, rule);
  }
  if (k > 0) {
    const double per_segment = expected_billed_seconds(L, rule);
    if (in.option == PricingOption::spot && in.spot_free_window_s > 0) {
      // "Early preemption is free": a segment interrupted within w of its start is not billed. For w up to the
      // rounded minimum m' every such segment would have cost m', so the refund is m' P(X < w) with
      // X ~ Exp(mean L). A longer window is counted as m' (slightly conservative: it under-refunds).
      const double m_rounded = rule.minimum_s > 0 ? billed_seconds(rule.minimum_s, rule) : rule.increment_s;
      const double w = in.spot_free_window_s < m_rounded ? in.spot_free_window_s : m_rounded;
      b.free_node_s = k * m_rounded * -std::expm1(-w / L);
    }
    b.billed_node_s += k * per_segment;
  }
  if (b.billed_node_s < b.billable_node_s) b.billed_node_s = b.billable_node_s;  // rounding noise only
  b.waste_usd = price_usd_per_h * (b.billed_node_s - b.billable_node_s) / kHour_s;
  b.free_usd = price_usd_per_h * b.free_node_s / kHour_s;
  b.billed_node_s -= b.free_node_s;
  if (b.billed_node_s < 0) b.billed_node_s = 0;
  b.compute_usd = price_usd_per_h * b.billable_node_s / kHour_s;
  b.storage_usd = in.volume_GB * in.storage_usd_per_GB_month * b.wall_s / kMonth_s;
  b.egress_usd = in.egress_GB * in.egress_usd_per_GB;
  b.total_usd = b.compute_usd + b.waste_usd - b.free_usd + b.storage_usd + b.egress_usd;
  return b;
}

// Input checks.
Problem check_input(const JobCostInput& in) {
  constexpr const char* kNonNeg = "must be a finite number >= 0";
  if (!std::isfinite(in.train_time_s) || !(in.train_time_s > 0)) return {"train_time_s", "must be a finite number > 0"};
  if (in.nodes < 1) return {"nodes", "must be at least 1"};
  if (in.option == PricingOption::on_demand) {
    if (!finite_nonneg(in.on_demand_usd_per_h)) return {"on_demand_usd_per_h", "this offer has no on-demand price"};
  } else if (in.option == PricingOption::reserved) {
    if (!finite_nonneg(in.reserved_usd_per_h)) return {"reserved_usd_per_h", "this offer has no reserved price"};
    // Empty terms: a negotiated contract (snapshot.h Reservation::negotiated), which books the run itself.
    if (!in.terms) return {"terms", "the reservation product's bookable durations are missing"};
    if (in.reserved_min_instances < 0) return {"reserved_min_instances", "must be >= 0"};
    for (const TermStep& t : *in.terms)
      if (!(std::isfinite(t.increment_s) && t.increment_s > 0) || !std::isfinite(t.up_to_s))
        return {"terms", "a bookable duration step is not a positive number of seconds"};
  } else {
    if (!finite_nonneg(in.spot_usd_per_h)) return {"spot_usd_per_h", "this offer has no spot price"};
    if (!finite_nonneg(in.spot_interruption_rate_per_h)) return {"spot_interruption_rate_per_h", kNonNeg};
  }
  if (!finite_nonneg(in.spot_free_window_s)) return {"spot_free_window_s", kNonNeg};
  if (!finite_nonneg(in.failure_rate_per_h)) return {"failure_rate_per_h", kNonNeg};
  if (!finite_nonneg(in.provision_s)) return {"provision_s", kNonNeg};
  if (!finite_nonneg(in.dataset_bytes)) return {"dataset_bytes", kNonNeg};
  if (in.dataset_bytes > 0 && !(std::isfinite(in.staging_MBps) && in.staging_MBps > 0))
    return {"staging_MBps", "must be > 0 to stage a dataset"};
  if (!std::isfinite(in.checkpoint_bytes) || !(in.checkpoint_bytes > 0))
    return {"checkpoint_bytes", "must be > 0 (weights + optimizer states + master weights)"};
  if (!std::isfinite(in.checkpoint_write_MBps) || !(in.checkpoint_write_MBps > 0))
    return {"checkpoint_write_MBps", "must be > 0 (storage write throughput)"};
  if (!std::isfinite(in.checkpoint_read_MBps) || !(in.checkpoint_read_MBps > 0))
    return {"checkpoint_read_MBps", "must be > 0 (storage read throughput)"};
  if (!finite_nonneg(in.checkpoint_interval_s))
    return {"checkpoint_interval_s", "must be a finite number >= 0 (0 = Young/Daly optimum)"};
  if (!finite_nonneg(in.eval_fraction)) return {"eval_fraction", kNonNeg};
  if (!finite_nonneg(in.volume_GB)) return {"volume_GB", kNonNeg};
  if (!finite_nonneg(in.storage_usd_per_GB_month)) return {"storage_usd_per_GB_month", kNonNeg};
  if (!finite_nonneg(in.egress_GB)) return {"egress_GB", kNonNeg};
  if (!finite_nonneg(in.egress_usd_per_GB)) return {"egress_usd_per_GB", kNonNeg};
  return {};
}

Problem check_rule(const BillingRule& rule) {
  if (!std::isfinite(rule.increment_s) || !(rule.increment_s > 0))
    return {"billing.increment_s", "billing increment must be a finite number of seconds > 0"};
  if (!finite_nonneg(rule.minimum_s)) return {"billing.minimum_s", "minimum charge must be a finite number of seconds >= 0"};
  return {};
}

bool all_finite(const CostBreakdown& c) {
  const double v[] = {c.wall_s, c.billed_node_s, c.total_usd, c.low.total_usd, c.high.total_usd, c.high.wall_s,
                      c.high.billed_node_s, c.on_demand_total_usd, c.break_even_spot_usd_per_h,
                      c.interruptions_p90, c.segments, c.checkpoints};
  for (double x : v)
    if (!std::isfinite(x)) return false;
  return true;
}

// The expected total of `in` at a given spot interruption rate; +inf when the model overflows.
double spot_total_at_rate(JobCostInput in, const BillingRule& rule, double rate_per_h) {
  in.spot_interruption_rate_per_h = rate_per_h;
  Timeline t;
  if (build_timeline(in, rate_per_h + in.failure_rate_per_h, t).field) return HUGE_VAL;
  const Billed b = bill(in, rule, t, t.mu, in.spot_usd_per_h);
  return std::isfinite(b.total_usd) ? b.total_usd : HUGE_VAL;
}

// The whole evaluation into `c` (already default-initialised); a Problem when the numbers do not fit.
Problem fill_cost(const JobCostInput& in, const BillingRule& rule, CostBreakdown& c) {
  const bool spot = in.option == PricingOption::spot;
  const double price = spot ? in.spot_usd_per_h
                       : in.option == PricingOption::reserved ? in.reserved_usd_per_h
                                                              : in.on_demand_usd_per_h;
  const double rate = in.failure_rate_per_h + (spot ? in.spot_interruption_rate_per_h : 0);

  Timeline t;
  const Problem timeline_problem = build_timeline(in, rate, t);
  if (timeline_problem.field) return timeline_problem;

  c.option = in.option;
  c.price_usd_per_h = price;
  c.increment_s = rule.increment_s;
  c.minimum_s = rule.minimum_s;
  c.provision_s = t.provision_s;
  c.staging_s = t.staging_s;
  c.train_s = t.train_s;
  c.eval_s = t.eval_s;
  c.checkpoint_s = t.checkpoint_total_s;
  c.restart_s = t.restart_total_s;
  c.lost_work_s = t.lost_total_s;
  c.wall_s = t.wall_s;
  c.checkpoint_write_s = t.write_s;
  c.checkpoint_reload_s = t.reload_s;
  c.checkpoint_interval_s = t.interval_s;
  c.checkpoints = t.checkpoints;
  c.cluster_interruptions_per_h = t.rate_per_h;
  c.mtbf_s = t.mtbf_s;
  c.restart_cost_s = t.restart_s;
  c.expected_interruptions = t.mu;
  poisson_p10_p90(t.mu, c.interruptions_p10, c.interruptions_p90);

  const Billed e = bill(in, rule, t, t.mu, price);
  if (in.option == PricingOption::reserved) {
    c.booked_s = e.booked_s;
    c.bookings = e.bookings;
    c.booked_instances = e.booked_instances;
    // The finest step (what a short job is rounded to); none for a negotiated contract, which books the run.
    c.increment_s = in.terms->empty() ? 0 : in.terms->front().increment_s;
    c.minimum_s = c.increment_s;
  }
  c.segments = e.segments;
  c.billable_node_s = e.billable_node_s;
  c.billed_node_s = e.billed_node_s;
  c.compute_usd = e.compute_usd;
  c.rounding_waste_usd = e.waste_usd;
  c.free_preemption_usd = e.free_usd;
  c.storage_usd = e.storage_usd;
  c.egress_usd = e.egress_usd;
  c.total_usd = e.total_usd;

  // Without interruptions (the usual on-demand case) the band collapses onto the expected value.
  const bool collapsed = t.mu == 0;
  const Billed lo = collapsed ? e : bill(in, rule, t, c.interruptions_p10, price);
  const Billed hi = collapsed ? e : bill(in, rule, t, c.interruptions_p90, price);
  c.low = CostBand{c.interruptions_p10, lo.wall_s, lo.billed_node_s, lo.total_usd};
  c.high = CostBand{c.interruptions_p90, hi.wall_s, hi.billed_node_s, hi.total_usd};

  if (spot && finite_nonneg(in.on_demand_usd_per_h)) {
    // The same job on demand: no spot interruptions, hardware failures kept.
    Timeline od;
    if (!build_timeline(in, in.failure_rate_per_h, od).field) {
      const Billed ob = bill(in, rule, od, od.mu, in.on_demand_usd_per_h);
      c.has_break_even = true;
      c.on_demand_total_usd = ob.total_usd;
      c.on_demand_wall_s = od.wall_s;
      // Spot total is linear in the spot price: price x billed hours + storage + egress.
      const double billed_h = e.billed_node_s / kHour_s;
      // (billed_node_s is already net of free early preemptions, which scale with the price too.)
      const double p = billed_h > 0 ? (ob.total_usd - e.storage_usd - e.egress_usd) / billed_h : 0;
      c.break_even_spot_usd_per_h = p > 0 ? p : 0;
      c.spot_pays_off = e.total_usd < ob.total_usd;
    }
  }
  if (!all_finite(c)) return {"train_time_s", "inputs too large: the cost does not fit a number"};
  return {};
}

}  // namespace
}  // namespace billing_detail

using billing_detail::check_input;
using billing_detail::check_rule;
using billing_detail::fill_cost;
using billing_detail::make_error;
using billing_detail::Problem;
using billing_detail::spot_total_at_rate;

// ---------------------------------------------------------------------------------------------

void fill_job_cost_input(JobCostInput& in, const Provider& provider, const Offer& offer, PricingOption option,
                         const Reservation* reservation) {
  in.option = option;
  in.terms = reservation ? &reservation->terms : nullptr;
  in.reserved_min_instances = reservation ? reservation->min_instances : 0;
  in.on_demand_usd_per_h = offer.price_usd_per_h;
  in.spot_usd_per_h = offer.spot_usd_per_h;
  in.reserved_usd_per_h = offer.reserved_usd_per_h;
  in.spot_interruption_rate_per_h = provider.spot.available ? provider.spot.interruption_rate_per_h : 0;
  in.spot_free_window_s =
      provider.spot.available && provider.spot.early_preemption_free ? provider.spot.free_window_s : 0;
  in.provision_s = provider.provision_s;
  in.bills_provisioning = provider.bills_provisioning;
  in.staging_MBps = provider.network_download_MBps;
  in.checkpoint_write_MBps = provider.storage_write_MBps;
  in.checkpoint_read_MBps = provider.storage_read_MBps;
  in.storage_usd_per_GB_month = provider.storage_usd_per_GB_month;
  in.egress_usd_per_GB = provider.egress_usd_per_GB;
}

Result<CostBreakdown> compute_job_cost(const JobCostInput& in, const BillingRule& rule) {
  // One named result filled in place and returned on every path (NRVO): the breakdown is ~70 doubles and
  // copying it twice was a third of a call's time.
  Result<CostBreakdown> res{CostBreakdown{}};
  Error error;
  if (!compute_job_cost(in, rule, res.value(), &error)) res = std::move(error);
  return res;
}

bool compute_job_cost(const JobCostInput& in, const BillingRule& rule, CostBreakdown& out, Error* error) {
  out = CostBreakdown{};
  Problem problem;
  try {
    problem = check_input(in);
    if (!problem.field) problem = check_rule(rule);
    if (!problem.field) problem = fill_cost(in, rule, out);
  } catch (...) {
    if (error) *error = make_error("", "internal error in compute_job_cost");
    return false;
  }
  if (problem.field) {
    if (error) *error = make_error(problem.field, problem.why);
    return false;
  }
  return true;
}

Result<double> break_even_interruption_rate_per_h(const JobCostInput& in, const BillingRule& rule) {
  try {
    JobCostInput s = in;
    s.option = PricingOption::spot;
    auto base = compute_job_cost(s, rule);
    if (!base) return base.error();
    if (!base->has_break_even) return make_error("on_demand_usd_per_h", "this offer has no on-demand price to compare with");
    const double target = base->on_demand_total_usd;
    if (spot_total_at_rate(s, rule, 0) >= target) return 0.0;
    // Bracket, then bisect: the spot total grows with the rate (more restarts, more lost work, more segments).
    double lo = 0, hi = 1e-3;
    int guard = 0;
    while (spot_total_at_rate(s, rule, hi) < target) {
      lo = hi;
      hi *= 2;
      if (++guard > 200) return make_error("spot_usd_per_h", "spot stays cheaper at any interruption rate");
    }
    for (int i = 0; i < 100 && hi - lo > 1e-12 * hi; ++i) {
      const double mid = 0.5 * (lo + hi);
      if (spot_total_at_rate(s, rule, mid) < target)
        lo = mid;
      else
        hi = mid;
    }
    return 0.5 * (lo + hi);
  } catch (...) {
    return make_error("", "internal error in break_even_interruption_rate_per_h");
  }
}

}  // namespace trainfit
