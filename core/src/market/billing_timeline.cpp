// trainfit core — the checkpoint / restart model of billing.h: the job's timeline under Poisson interruptions,
// the optimum checkpoint interval and the Poisson quantiles of the interruption count.
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

#include "market/billing_internal.h"

namespace trainfit {
namespace billing_detail {
namespace {

// Standard normal quantile for p = 0.9 (z such that Phi(z) = 0.9), to double precision.
constexpr double kZ90 = 1.2815515655446004;

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

}  // namespace

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

}  // namespace billing_detail

using billing_detail::normal_quantile;
using billing_detail::poisson_quantile_z;

// ---------------------------------------------------------------------------------------------

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

}  // namespace trainfit
