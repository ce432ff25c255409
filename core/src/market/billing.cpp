// Billing-granularity cost model: see billing.h for the contract.
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
// Checkpoint / restart model: Poisson interruptions with mean time between interruptions M, checkpoint write
// time delta, restart time R, compute between checkpoints tau.
//  - Young, J. W. (1974) "A first order approximation to the optimum checkpoint interval", CACM 17(9):530-531:
//    tau_opt ~= sqrt(2 * delta * M).
//  - Daly, J. T. (2006) "A higher order estimate of the optimum checkpoint interval for restart dumps",
//    FGCS 22(3):303-312: tau_opt = sqrt(2 delta M) [1 + (1/3) sqrt(delta/2M) + (1/9)(delta/2M)] - delta for
//    delta < 2M, else M; and the complete model's expected wall time
//    T_w = M e^{R/M} (e^{(tau+delta)/M} - 1) T_s / tau, which counts interruptions during restarts and
//    checkpoints too (always finite, unlike the first-order T_s / (1 - ...)).
#include "trainfit/market/billing.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace trainfit {
namespace {

constexpr double kMBps = 1e6;                // Provider throughputs are MBps = 1e6 B/s
// Storage is priced per GB-month; an average month is 8760 h / 12 = 730 h (the month AWS and GCP calculators
// use to turn GB-month prices into hourly ones; AWS prorates EBS by the hour, knowledge-center
// "ebs-volume-charges").
constexpr double kMonth_s = 730.0 * 3600.0;
// Standard normal quantile for p = 0.9 (z such that Phi(z) = 0.9), to double precision.
constexpr double kZ90 = 1.2815515655446004;

bool finite_nonneg(double v) { return std::isfinite(v) && v >= 0; }

Error make_error(const char* field, const char* message) { return Error{field, message}; }

// e^x - 1 - x without cancellation for small |x| (Taylor series to x^5; relative error < x^4/360).
double expm1_minus_x(double x) {
  if (std::fabs(x) < 1e-3) return x * x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x / 120.0)));
  return std::expm1(x) - x;
}

// Inverse standard normal CDF, Peter J. Acklam's rational approximation (relative error < 1.15e-9).
double normal_quantile(double p) {
  static constexpr double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                  1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                  6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                  -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[4] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                  3.754408661907416e+00};
  constexpr double p_low = 0.02425;
  if (p < p_low) {
    const double q = std::sqrt(-2.0 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  }
  if (p > 1.0 - p_low) {
    const double q = std::sqrt(-2.0 * std::log(1.0 - p));
    return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  }
  const double q = p - 0.5;
  const double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

// Above this mean the Poisson quantile comes from the Cornish-Fisher expansion (O(1)) instead of the exact
// CDF walk (O(mean) steps, the largest cost of a spot evaluation when it ran to 50).
constexpr double kExactPoissonMax = 10;

// Poisson quantile for a known standard normal quantile z (the hot path passes the constant).
double poisson_quantile_z(double mean, double p, double z) {
  if (!(mean > 0) || !std::isfinite(mean)) return 0;
  if (mean <= kExactPoissonMax) {
    // Exact: walk the CDF with P(k) = P(k-1) * mean / k.
    double term = std::exp(-mean);
    double cdf = term;
    double k = 0;
    const double k_max = mean + 40.0 * std::sqrt(mean) + 100.0;  // guard against p rounding to 1
    while (cdf < p && k < k_max) {
      k += 1;
      term *= mean / k;
      cdf += term;
    }
    return k;
  }
  // Cornish-Fisher expansion (Cornish & Fisher 1937) with the Poisson skewness 1/sqrt(mean):
  // x_p ~= mean + z sqrt(mean) + (z^2 - 1)/6; the discrete quantile with a continuity correction is the
  // smallest k with k + 1/2 >= x_p. Checked against the exact quantile in billing_test for means 10..700
  // (within one; a scan of means 1..800 in 1% steps found it exact except at a handful of points).
  const double x = mean + z * std::sqrt(mean) + (z * z - 1.0) / 6.0;
  const double k = std::ceil(x - 0.5);
  return k > 0 ? k : 0;
}

// Both band quantiles in one pass of the exact walk (the ranker's hot path).
void poisson_p10_p90(double mean, double& p10, double& p90) {
  p10 = p90 = 0;
  if (!(mean > 0) || !std::isfinite(mean)) return;
  if (mean > kExactPoissonMax) {
    p10 = poisson_quantile_z(mean, 0.1, -kZ90);
    p90 = poisson_quantile_z(mean, 0.9, kZ90);
    return;
  }
  double term = std::exp(-mean);
  double cdf = term;
  double k = 0;
  bool have_p10 = cdf >= 0.1;
  while (cdf < 0.9) {
    k += 1;
    term *= mean / k;
    cdf += term;
    if (!have_p10 && cdf >= 0.1) {
      p10 = k;
      have_p10 = true;
    }
  }
  p90 = k;
}

// A problem with the input: the offending field and what is wrong, or {nullptr, nullptr} when the input is usable.
struct Problem {
  const char* field = nullptr;
  const char* why = nullptr;
};

// The timeline of one run of the job under a cluster interruption rate. Everything in seconds.
struct Timeline {
  double provision_s = 0;
  double staging_s = 0;
  double train_s = 0;
  double eval_s = 0;
  double write_s = 0;          // one checkpoint write (delta)
  double reload_s = 0;
  double interval_s = 0;       // effective tau
  double checkpoints = 0;      // n
  double checkpoint_total_s = 0;
  double rate_per_h = 0;       // cluster
  double mtbf_s = 0;
  double restart_s = 0;        // R
  double restart_total_s = 0;  // expected
  double lost_total_s = 0;     // expected
  double overhead_s = 0;       // restart_total + lost_total
  double mu = 0;               // expected interruptions
  double base_wall_s = 0;      // wall time with no interruption
  double wall_s = 0;           // expected
};

// Fills `t`; a Problem naming the field to blame when the numbers overflow.
Problem build_timeline(const JobCostInput& in, double rate_per_instance_h, Timeline& t) {
  t.provision_s = in.provision_s;
  t.staging_s = in.dataset_bytes > 0 ? in.dataset_bytes / (in.staging_MBps * kMBps) : 0;
  t.train_s = in.train_time_s;
  t.eval_s = in.train_time_s * in.eval_fraction;
  const double work_s = t.train_s + t.eval_s;  // evaluation runs inside the run and is lost with it
  t.write_s = in.checkpoint_bytes / (in.checkpoint_write_MBps * kMBps);
  t.reload_s = in.checkpoint_bytes / (in.checkpoint_read_MBps * kMBps);
  t.restart_s = in.provision_s + (in.restage_on_restart ? t.staging_s : 0) + t.reload_s;

  // Any instance interrupted stops a synchronous job: the cluster rate is nodes x the per-instance rate.
  t.rate_per_h = rate_per_instance_h * in.nodes;
  const double rate_per_s = t.rate_per_h / kHour_s;
  t.mtbf_s = rate_per_s > 0 ? 1.0 / rate_per_s : 0;

  double tau = in.checkpoint_interval_s;
  if (tau <= 0) tau = t.mtbf_s > 0 ? optimal_checkpoint_interval_s(t.write_s, t.mtbf_s) : work_s;
  if (!(tau > 0)) tau = work_s;
  // Whole number of equal periods; the last write is the final save of the trained model.
  double n = std::ceil(work_s / tau);
  if (n < 1) n = 1;
  t.checkpoints = n;
  t.interval_s = work_s / n;
  t.checkpoint_total_s = n * t.write_s;
  const double useful_s = work_s + t.checkpoint_total_s;  // n (tau + delta)

  if (t.mtbf_s > 0) {
    // Daly 2006 complete model, rearranged so small rates do not cancel:
    // T_w - n(tau+delta) = n M [ (e^r - 1)(e^x - 1) + (e^x - 1 - x) ], r = R/M, x = (tau+delta)/M.
    const double M = t.mtbf_s;
    const double x = (t.interval_s + t.write_s) / M;
    const double r = t.restart_s / M;
    const double em1x = std::expm1(x);
    t.overhead_s = n * M * (std::expm1(r) * em1x + expm1_minus_x(x));
    // Poisson arrivals over the exposed time: mu = T_w / M = n e^r (e^x - 1).
    t.mu = n * std::exp(r) * em1x;
    if (!std::isfinite(t.overhead_s) || !std::isfinite(t.mu)) {
      const char* field = in.checkpoint_interval_s > 0 ? "checkpoint_interval_s"
                          : in.option == PricingOption::spot && in.spot_interruption_rate_per_h > 0
                              ? "spot_interruption_rate_per_h"
                              : "failure_rate_per_h";
      return {field, "interruptions are too frequent for this checkpoint interval: the job would not finish"};
    }
    // Split the overhead: a full restart per interruption, the rest is recomputed work. In the complete model
    // a restart can itself be interrupted, so mu * R can slightly exceed the overhead when R is large next to
    // tau; then all of it is restart time.
    t.restart_total_s = t.mu * t.restart_s;
    t.lost_total_s = t.overhead_s - t.restart_total_s;
    if (t.lost_total_s < 0) {
      t.lost_total_s = 0;
      t.restart_total_s = t.overhead_s;
    }
  }
  // The first start is not exposed to interruptions (it is short next to the run; first-order simplification).
  t.base_wall_s = t.provision_s + t.staging_s + useful_s;
  t.wall_s = t.base_wall_s + t.overhead_s;
  if (!std::isfinite(t.wall_s)) return {"train_time_s", "inputs too large: the run time does not fit a number"};
  return {};
}

// Billing and cost of the timeline with `k` interruptions over the whole cluster (k may be fractional for
// the expected value). Each interruption replaces one instance, so there are nodes + k segments; the other
// instances keep running (and billing) while it is replaced. Given k Poisson arrivals, every gap between
// starts has the same mean L = billable / (nodes + k). The k segments that end in an interruption have
// memoryless lengths and are billed expected_billed_seconds(L) each (smooth in L: no artificial jumps when L
// crosses a whole increment); the nodes final segments are billed exactly, so a run without interruptions is
// billed exactly as billed_seconds says.
struct Billed {
  double wall_s = 0;
  double segments = 0;
  double billable_node_s = 0;
  double billed_node_s = 0;
  double compute_usd = 0;
  double waste_usd = 0;
  double free_node_s = 0;      // early preemptions not billed
  double free_usd = 0;
  double storage_usd = 0;
  double egress_usd = 0;
  double total_usd = 0;
  double booked_s = 0;         // reserved: per instance, in `bookings` consecutive bookings
  double bookings = 0;
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
    b.billed_node_s = nodes * b.booked_s;
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
    if (!in.terms || in.terms->empty()) return {"terms", "the reservation product has no bookable durations"};
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
    c.increment_s = in.terms->front().increment_s;  // the finest step (what a short job is rounded to)
    c.minimum_s = in.terms->front().increment_s;
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

// ---------------------------------------------------------------------------------------------

const char* pricing_option_name(PricingOption o) {
  switch (o) {
    case PricingOption::on_demand: return "on-demand";
    case PricingOption::spot: return "spot";
    case PricingOption::reserved: return "reserved";
  }
  return "?";
}

double booked_term_s(double run_s, const std::vector<TermStep>& terms, double* bookings) {
  if (bookings) *bookings = 0;
  if (!std::isfinite(run_s) || run_s <= 0) return 0;
  if (terms.empty()) {
    if (bookings) *bookings = 1;
    return run_s;
  }
  // Whole longest bookings first (a run past the longest term books it again), then the rest.
  const double longest = terms.back().up_to_s;
  double full = 0, rest = run_s;
  if (longest > 0 && run_s > longest) {
    full = std::ceil(run_s / longest - 1e-9) - 1;
    rest = run_s - full * longest;
    if (rest <= 0) {  // noise only
      rest = longest;
    }
  }
  // The shortest bookable duration >= rest: the first step that reaches it, rounded up in that step's increment
  // from the end of the previous step (1-day steps to 14 days, then 7-day steps: 15 days books 21). A tolerance
  // of 1e-9 of an increment keeps a run of exactly whole increments from booking one more.
  double from = 0, booked = longest;
  for (const TermStep& t : terms) {
    if (rest <= t.up_to_s * (1 + 1e-12)) {
      double units = std::ceil((rest - from) / t.increment_s - 1e-9);
      if (units < 1) units = 1;
      booked = std::min(t.up_to_s, from + units * t.increment_s);
      break;
    }
    from = t.up_to_s;
  }
  if (bookings) *bookings = full + 1;
  return full * longest + booked;
}

std::string booking_duration_text(double s) {
  char buf[48];
  const double h = s / kHour_s;
  auto whole = [](double x) { return std::fabs(x - std::round(x)) < 1e-6; };
  if (whole(h / 8760) && h >= 8760) std::snprintf(buf, sizeof buf, "%.0f year%s", h / 8760, h == 8760 ? "" : "s");
  else if (whole(h / 24) && h >= 24) std::snprintf(buf, sizeof buf, "%.0f day%s", h / 24, h == 24 ? "" : "s");
  else std::snprintf(buf, sizeof buf, "%.4g h", h);
  return buf;
}

std::string reservation_terms_text(const Reservation& r) {
  std::string t;
  double from = 0;
  for (size_t i = 0; i < r.terms.size(); ++i) {
    const TermStep& st = r.terms[i];
    if (i) t += ", then ";
    if (st.increment_s >= st.up_to_s - from - 1e-6) t += booking_duration_text(st.up_to_s);  // one duration
    else {
      std::string step = booking_duration_text(st.increment_s);  // "7 days" -> "7-day"
      if (const size_t sp = step.find(' '); sp != std::string::npos) step[sp] = '-';
      if (step.size() > 1 && step.back() == 's') step.pop_back();
      t += step + " steps up to " + booking_duration_text(st.up_to_s);
    }
    from = st.up_to_s;
  }
  if (!r.start_time_utc.empty()) t += "; starts and ends at " + r.start_time_utc + " UTC";
  t += r.upfront ? "; paid up front" : "; billed over the term";
  if (!r.cancellable) t += "; not cancellable";
  if (r.max_instances > 0) t += "; up to " + std::to_string(r.max_instances) + " instances per booking";
  return t;
}

ReservedVsHourly reserved_vs_hourly(double r, double p, const std::vector<TermStep>& terms) {
  ReservedVsHourly v;
  if (!(std::isfinite(r) && r > 0 && std::isfinite(p) && p > 0) || terms.empty()) return v;
  v.comparable = true;
  v.price_ratio = r / p;
  if (r >= p) return v;  // a booked hour never costs less than an hour by the hour
  // Booking intervals [a, a + i] of one pass over the steps: booking loses up to t = r (a + i) / p and wins after
  // it, so an interval has a losing part when t > a, i.e. a < a* = r i / (p - r). Past the longest booking the
  // pattern repeats shifted by whole longest terms, where every interval starts later, so the first pass decides.
  v.first_win_s = r * std::min(terms.front().increment_s, terms.front().up_to_s) / p;
  double from = 0, last_loss = 0;
  for (const TermStep& st : terms) {
    const double i = st.increment_s;
    if (!(i > 0) || !(st.up_to_s > from)) break;
    const double a_star = r * i / (p - r);
    const double n = std::ceil((st.up_to_s - from) / i - 1e-9);  // intervals in this step
    const double k = std::min(n - 1, std::ceil((a_star - from) / i) - 1);  // the last interval that loses
    if (k >= 0) last_loss = r * std::min(from + (k + 1) * i, st.up_to_s) / p;
    from = st.up_to_s;
  }
  v.wins_from_s = last_loss;
  return v;
}

const BillingRule& billing_rule_for(const Provider& provider, const std::string& instance_type) {
  for (const BillingRule& rule : provider.billing_exceptions) {
    if (instance_type.size() >= rule.match.size() && instance_type.compare(0, rule.match.size(), rule.match) == 0)
      return rule;
  }
  return provider.billing;
}

const Provider& seller_of(const Snapshot& s, const Offer& o) {
  if (o.via >= 0 && o.via < static_cast<int>(s.providers.size())) return s.providers[static_cast<size_t>(o.via)];
  return s.providers[static_cast<size_t>(o.provider)];
}

double billed_seconds(double run_s, const BillingRule& rule) {
  if (!std::isfinite(run_s) || run_s <= 0) return 0;
  const double minimum = std::isfinite(rule.minimum_s) && rule.minimum_s > 0 ? rule.minimum_s : 0;
  const double s = run_s > minimum ? run_s : minimum;
  const double inc = rule.increment_s;
  if (!std::isfinite(inc) || inc <= 0) return s;
  // Round up to whole increments. A run that sums to a whole number of increments up to floating-point noise
  // (3600.0000000000005 s of hourly billing) is not charged one more: tolerance of 1e-9 of an increment.
  double units = std::ceil(s / inc - 1e-9);
  if (units < 1) units = 1;
  return units * inc;
}

double expected_billed_seconds(double mean_run_s, const BillingRule& rule) {
  if (!std::isfinite(mean_run_s) || mean_run_s <= 0) return 0;
  const double inc = rule.increment_s;
  const double minimum = std::isfinite(rule.minimum_s) && rule.minimum_s > 0 ? rule.minimum_s : 0;
  if (!std::isfinite(inc) || inc <= 0) {
    // Continuous billing: E[max(X, m)] = m + L e^{-m/L} for X ~ Exp(mean L).
    return minimum + mean_run_s * std::exp(-minimum / mean_run_s);
  }
  // X ~ Exp(mean L). With no minimum, ceil(X / i) is geometric with ratio q = e^{-i/L}, so
  // E[i ceil(X/i)] = i / (1 - q). The minimum first rounds up to m' = i ceil(m / i) (billed_seconds gives the
  // same value for every X <= m'); beyond m', memorylessness gives m' + the geometric mean again:
  // E = m' P(X <= m') + P(X > m') (m' + i / (1 - q)) = m' + e^{-m'/L} i / (1 - q).
  const double m_rounded = minimum > 0 ? billed_seconds(minimum, rule) : 0;
  const double one_minus_q = -std::expm1(-inc / mean_run_s);
  return m_rounded + std::exp(-m_rounded / mean_run_s) * inc / one_minus_q;
}

Result<bool> validate_billing_rule(const BillingRule& rule, const char* field_prefix) {
  // Strings are only built on failure: the ranker validates a rule per offer.
  const char* prefix = field_prefix ? field_prefix : "";
  if (!std::isfinite(rule.increment_s) || !(rule.increment_s > 0))
    return Error{std::string(prefix) + "increment_s", "billing increment must be a finite number of seconds > 0"};
  if (!finite_nonneg(rule.minimum_s))
    return Error{std::string(prefix) + "minimum_s", "minimum charge must be a finite number of seconds >= 0"};
  return true;
}

double optimal_checkpoint_interval_s(double checkpoint_s, double mtbf_s) {
  if (!(checkpoint_s > 0) || !(mtbf_s > 0) || !std::isfinite(checkpoint_s) || !std::isfinite(mtbf_s)) return 0;
  // Daly 2006: tau = sqrt(2 delta M) [1 + (1/3) sqrt(xi) + xi/9] - delta with xi = delta / 2M, for delta < 2M;
  // tau = M beyond. The leading term is Young's (1974) sqrt(2 delta M).
  if (checkpoint_s >= 2.0 * mtbf_s) return mtbf_s;
  const double xi = checkpoint_s / (2.0 * mtbf_s);
  return std::sqrt(2.0 * checkpoint_s * mtbf_s) * (1.0 + std::sqrt(xi) / 3.0 + xi / 9.0) - checkpoint_s;
}

double poisson_quantile(double mean, double p) {
  if (!(p > 0)) return 0;
  if (p > 1.0 - 1e-12) p = 1.0 - 1e-12;
  return poisson_quantile_z(mean, p, normal_quantile(p));
}

void fill_job_cost_input(JobCostInput& in, const Provider& provider, const Offer& offer, PricingOption option,
                         const Reservation* reservation) {
  in.option = option;
  in.terms = reservation ? &reservation->terms : nullptr;
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

Result<DevCycleCost> dev_cycle_cost(const DevCycleInput& in, const BillingRule& rule) {
  try {
    if (in.runs < 1) return make_error("runs", "must be at least 1");
    if (!std::isfinite(in.run_s) || !(in.run_s > 0)) return make_error("run_s", "must be a finite number > 0");
    if (in.nodes < 1) return make_error("nodes", "must be at least 1");
    if (!finite_nonneg(in.price_usd_per_h)) return make_error("price_usd_per_h", "must be a finite number >= 0");
    if (!finite_nonneg(in.provision_s)) return make_error("provision_s", "must be a finite number >= 0");
    auto ok = validate_billing_rule(rule);
    if (!ok) return ok.error();

    DevCycleCost d;
    d.segment_s = in.run_s + (in.bills_provisioning ? in.provision_s : 0);
    d.billed_s_per_run = billed_seconds(d.segment_s, rule);
    const BillingRule per_second{"", 1.0, 0.0, "", ""};
    d.per_second_billed_s_per_run = billed_seconds(d.segment_s, per_second);
    const double instance_runs = static_cast<double>(in.runs) * in.nodes;
    d.cost_usd = in.price_usd_per_h * instance_runs * d.billed_s_per_run / kHour_s;
    d.per_second_cost_usd = in.price_usd_per_h * instance_runs * d.per_second_billed_s_per_run / kHour_s;
    d.rounding_waste_usd = d.cost_usd - d.per_second_cost_usd;
    if (d.rounding_waste_usd < 0) d.rounding_waste_usd = 0;
    d.waste_fraction = d.cost_usd > 0 ? d.rounding_waste_usd / d.cost_usd : 0;
    if (!std::isfinite(d.cost_usd)) return make_error("runs", "inputs too large: the cost does not fit a number");
    return d;
  } catch (...) {
    return make_error("", "internal error in dev_cycle_cost");
  }
}

}  // namespace trainfit
