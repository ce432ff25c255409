// Billing rounding, billing-rule lookup, checkpoint interval, Poisson quantiles, job cost timeline and the
// development-cycle scenario. Billing facts: docs/pricing-and-specs.md §3 (sources per provider there).
#include "trainfit/market/billing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace trainfit;

namespace {

// AWS EC2 Linux: per second, 60 s minimum (AWS per-second billing announcement, 2017-10-02). GCP: same.
BillingRule aws_rule() { return BillingRule{"", 1, 60, "", ""}; }
// Lambda: billed in 1-minute increments (docs.lambda.ai/public-cloud/billing).
BillingRule lambda_rule() { return BillingRule{"", 60, 60, "", ""}; }
// Plain hourly billing (whole hours), the case the hand check uses.
BillingRule hourly_rule() { return BillingRule{"", 3600, 3600, "", ""}; }
// OCI bare metal: per second with a 1-hour minimum (Oracle "Announcing per-second billing").
BillingRule oci_bm_rule() { return BillingRule{"BM.", 1, 3600, "", ""}; }

// A small single-node on-demand job whose checkpoint takes exactly 1 s (1 GB at 1000 MBps).
JobCostInput simple_job() {
  JobCostInput in;
  in.option = PricingOption::on_demand;
  in.train_time_s = 3600;
  in.nodes = 1;
  in.on_demand_usd_per_h = 10;
  in.spot_usd_per_h = 3;
  in.provision_s = 60;
  in.checkpoint_bytes = 1e9;
  in.checkpoint_write_MBps = 1000;
  in.checkpoint_read_MBps = 2000;
  return in;
}

// A long spot job: 10 h of compute, 100 s checkpoint writes, 0.1 interruptions per instance-hour.
JobCostInput spot_job() {
  JobCostInput in = simple_job();
  in.option = PricingOption::spot;
  in.train_time_s = 36000;
  in.checkpoint_bytes = 1e11;  // 100 GB at 1000 MBps = 100 s
  in.spot_interruption_rate_per_h = 0.1;
  in.provision_s = 300;
  in.dataset_bytes = 5e10;     // 50 GB at 500 MBps = 100 s
  in.staging_MBps = 500;
  return in;
}

uint64_t bits(double v) {
  uint64_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}

// Exact Poisson quantile in log space (independent of the library's walk / approximation).
double exact_poisson_quantile(double mean, double p) {
  double cdf = 0;
  for (int k = 0;; ++k) {
    cdf += std::exp(-mean + k * std::log(mean) - std::lgamma(k + 1.0));
    if (cdf >= p) return k;
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Rounding of one billing segment.

TEST(BilledSeconds, HourlyBillingChargesA61MinuteRunTwoHours) {
  // The hand check: 61 minutes under hourly billing = 2 hours; exactly 1 hour stays 1 hour.
  EXPECT_DOUBLE_EQ(billed_seconds(61 * 60, hourly_rule()), 7200);
  EXPECT_DOUBLE_EQ(billed_seconds(3600, hourly_rule()), 3600);
  EXPECT_DOUBLE_EQ(billed_seconds(1, hourly_rule()), 3600);
}

TEST(BilledSeconds, PerSecondWithMinuteMinimumBillsA20SecondRun60Seconds) {
  // AWS / GCP: per second after a 60 s minimum.
  EXPECT_DOUBLE_EQ(billed_seconds(20, aws_rule()), 60);
  EXPECT_DOUBLE_EQ(billed_seconds(61, aws_rule()), 61);
  EXPECT_DOUBLE_EQ(billed_seconds(61.2, aws_rule()), 62);
}

TEST(BilledSeconds, PerMinuteBillingRoundsUpToWholeMinutes) {
  // Lambda: 1-minute increments, so 61 s is billed 2 minutes.
  EXPECT_DOUBLE_EQ(billed_seconds(61, lambda_rule()), 120);
  EXPECT_DOUBLE_EQ(billed_seconds(59, lambda_rule()), 60);
  EXPECT_DOUBLE_EQ(billed_seconds(120, lambda_rule()), 120);
}

TEST(BilledSeconds, BareMetalHourMinimumThenPerSecond) {
  // OCI bare metal: a 10-minute run pays the 1-hour minimum; past the hour it is per second.
  EXPECT_DOUBLE_EQ(billed_seconds(600, oci_bm_rule()), 3600);
  EXPECT_DOUBLE_EQ(billed_seconds(3601, oci_bm_rule()), 3601);
}

TEST(BilledSeconds, FloatingPointNoiseDoesNotAddAnIncrement) {
  // A run that sums to two hours up to the last bit must not be billed a third hour.
  EXPECT_DOUBLE_EQ(billed_seconds(std::nextafter(7200.0, 1e9), hourly_rule()), 7200);
  EXPECT_DOUBLE_EQ(billed_seconds(7200.5, hourly_rule()), 10800);
}

TEST(BilledSeconds, NonPositiveOrNonFiniteRunBillsNothingAndBadRulesStayFinite) {
  EXPECT_EQ(billed_seconds(0, aws_rule()), 0);
  EXPECT_EQ(billed_seconds(-5, aws_rule()), 0);
  EXPECT_EQ(billed_seconds(NAN, aws_rule()), 0);
  EXPECT_EQ(billed_seconds(INFINITY, aws_rule()), 0);
  const BillingRule broken{"", 0, -1, "", ""};
  EXPECT_DOUBLE_EQ(billed_seconds(12.5, broken), 12.5);
}

TEST(ExpectedBilledSeconds, HourlySegmentOfMeanOneHourMatchesTheClosedForm) {
  // X ~ Exp(mean 1 h) under whole-hour billing: E = 3600 + e^-1 * 3600 / (1 - e^-1) = 3600 + 3600 / (e - 1).
  EXPECT_NEAR(expected_billed_seconds(3600, hourly_rule()), 3600 + 3600 / (std::exp(1.0) - 1), 1e-9);
  // Per-second billing of long segments adds half a second on average.
  EXPECT_NEAR(expected_billed_seconds(1e5, BillingRule{"", 1, 0, "", ""}) - 1e5, 0.5, 1e-3);
  EXPECT_EQ(expected_billed_seconds(0, hourly_rule()), 0);
}

TEST(ExpectedBilledSeconds, AgreesWithAMonteCarloOfExponentialSegments) {
  std::mt19937_64 rng(12345);
  for (const BillingRule& rule : {aws_rule(), lambda_rule(), hourly_rule(), oci_bm_rule()}) {
    for (double mean : {30.0, 700.0, 5000.0}) {
      double sum = 0;
      const int n = 200000;
      for (int i = 0; i < n; ++i) {
        const double u = (static_cast<double>(rng() >> 11) + 0.5) / 9007199254740992.0;  // (0, 1)
        sum += billed_seconds(-mean * std::log(u), rule);
      }
      EXPECT_NEAR(expected_billed_seconds(mean, rule) / (sum / n), 1.0, 0.01) << rule.increment_s << " " << mean;
    }
  }
}

TEST(ValidateBillingRule, NamesTheBadField) {
  auto inc = validate_billing_rule(BillingRule{"", 0, 60, "", ""});
  ASSERT_FALSE(inc.ok());
  EXPECT_EQ(inc.error().field, "billing.increment_s");
  auto min = validate_billing_rule(BillingRule{"", 1, NAN, "", ""}, "/providers/3/billing/");
  ASSERT_FALSE(min.ok());
  EXPECT_EQ(min.error().field, "/providers/3/billing/minimum_s");
  EXPECT_TRUE(validate_billing_rule(aws_rule()).ok());
}

// ---------------------------------------------------------------------------------------------
// Which rule applies.

TEST(BillingRuleFor, OciBareMetalPrefixPicksTheHourMinimum) {
  Provider oci;
  oci.id = "oci";
  oci.billing = BillingRule{"", 1, 60, "VM shapes", ""};
  oci.billing_exceptions = {BillingRule{"BM.GPU.A10", 1, 7200, "first match wins", ""}, oci_bm_rule()};
  EXPECT_EQ(&billing_rule_for(oci, "BM.GPU.H100.8"), &oci.billing_exceptions[1]);
  EXPECT_DOUBLE_EQ(billing_rule_for(oci, "BM.GPU.H100.8").minimum_s, 3600);
  EXPECT_EQ(&billing_rule_for(oci, "BM.GPU.A10.4"), &oci.billing_exceptions[0]);
  EXPECT_EQ(&billing_rule_for(oci, "VM.GPU.A10.1"), &oci.billing);
  EXPECT_EQ(&billing_rule_for(oci, "BM"), &oci.billing);  // shorter than the prefix: no match
}

// ---------------------------------------------------------------------------------------------
// Checkpoint interval.

TEST(OptimalCheckpointInterval, MatchesDalysPublishedOptimaForFiveMinuteDumps) {
  // Daly 2006, captions of Figs. 3-5: delta = 5 min; M = 24 h -> 117 min, M = 6 h -> 57 min,
  // M = 15 min -> 9.1 min.
  EXPECT_NEAR(optimal_checkpoint_interval_s(300, 24 * 3600) / 60, 117, 0.5);
  EXPECT_NEAR(optimal_checkpoint_interval_s(300, 6 * 3600) / 60, 57, 0.5);
  EXPECT_NEAR(optimal_checkpoint_interval_s(300, 15 * 60) / 60, 9.1, 0.05);
}

TEST(OptimalCheckpointInterval, ReducesToYoungWhenCheckpointsAreCheap) {
  // Young 1974: sqrt(2 delta M) when delta << M.
  const double young = std::sqrt(2.0 * 10 * 1e6);
  EXPECT_NEAR(optimal_checkpoint_interval_s(10, 1e6) / young, 1.0, 0.005);
}

TEST(OptimalCheckpointInterval, IsTheMtbfWhenCheckpointsTakeLongerThanTwoMtbf) {
  EXPECT_DOUBLE_EQ(optimal_checkpoint_interval_s(500, 200), 200);
  EXPECT_EQ(optimal_checkpoint_interval_s(0, 200), 0);
  EXPECT_EQ(optimal_checkpoint_interval_s(10, 0), 0);
}

// ---------------------------------------------------------------------------------------------
// Poisson quantiles.

TEST(PoissonQuantile, SmallMeanMatchesTheHandComputedCdf) {
  // Poisson(1): P(0) = e^-1 = 0.368, P(<=1) = 0.736, P(<=2) = 0.920.
  EXPECT_EQ(poisson_quantile(1, 0.1), 0);
  EXPECT_EQ(poisson_quantile(1, 0.5), 1);
  EXPECT_EQ(poisson_quantile(1, 0.9), 2);
  EXPECT_EQ(poisson_quantile(0, 0.9), 0);
  EXPECT_EQ(poisson_quantile(NAN, 0.9), 0);
}

TEST(PoissonQuantile, CornishFisherTracksTheExactQuantileForLargeMeans) {
  for (double mean = 10.5; mean < 700; mean *= 1.07) {
    for (double p : {0.1, 0.5, 0.9}) {
      EXPECT_NEAR(poisson_quantile(mean, p), exact_poisson_quantile(mean, p), 1.0) << "mean " << mean << " p " << p;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The job timeline and its cost.

TEST(JobCost, SixtyOneMinuteOnDemandJobUnderHourlyBillingIsBilledTwoHours) {
  // 60 s boot + 3600 s training + 1 s final checkpoint = 3661 s -> 2 billed hours at $10/h = $20,
  // of which $10 x (7200 - 3661) / 3600 is rounding waste.
  auto r = compute_job_cost(simple_job(), hourly_rule());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_DOUBLE_EQ(r->wall_s, 3661);
  EXPECT_DOUBLE_EQ(r->billable_node_s, 3661);
  EXPECT_DOUBLE_EQ(r->billed_node_s, 7200);
  EXPECT_NEAR(r->compute_usd, 10.0 * 3661 / 3600, 1e-12);
  EXPECT_NEAR(r->rounding_waste_usd, 10.0 * (7200 - 3661) / 3600, 1e-12);
  EXPECT_NEAR(r->total_usd, 20, 1e-12);
  EXPECT_EQ(r->checkpoints, 1);
  EXPECT_EQ(r->expected_interruptions, 0);
  EXPECT_EQ(r->segments, 1);
  EXPECT_EQ(r->has_break_even, false);
}

TEST(JobCost, PerSecondBillingWastesLessThanASecondPerSegment) {
  JobCostInput in = simple_job();
  in.train_time_s = 3600.4;
  auto r = compute_job_cost(in, aws_rule());
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->billed_node_s, 3662);  // 3661.4 rounded up to the second
  EXPECT_GT(r->rounding_waste_usd, 0);
  EXPECT_LT(r->rounding_waste_usd, 10.0 / 3600);
}

TEST(JobCost, UnbilledProvisioningIsLeftOutOfTheBill) {
  // Lambda bills from launch after health checks, not the boot: 3661 - 60 = 3601 s -> 3660 s per minute.
  JobCostInput in = simple_job();
  in.bills_provisioning = false;
  auto r = compute_job_cost(in, lambda_rule());
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->wall_s, 3661);
  EXPECT_DOUBLE_EQ(r->billable_node_s, 3601);
  EXPECT_DOUBLE_EQ(r->billed_node_s, 3660);
}

TEST(JobCost, EveryInstanceOfAClusterIsBilled) {
  JobCostInput in = simple_job();
  in.nodes = 4;
  auto r = compute_job_cost(in, hourly_rule());
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->billed_node_s, 4 * 7200);
  EXPECT_NEAR(r->total_usd, 80, 1e-12);
}

TEST(JobCost, StagingEvaluationStorageAndEgressAreSeparateLines) {
  JobCostInput in = simple_job();
  in.train_time_s = 36000;
  in.dataset_bytes = 1e11;     // 100 GB at 500 MBps -> 200 s
  in.staging_MBps = 500;
  in.eval_fraction = 0.1;      // 3600 s
  in.volume_GB = 1000;         // $0.10/GB-month over the job's life (730-hour month)
  in.storage_usd_per_GB_month = 0.10;
  in.egress_GB = 50;           // $0.09/GB -> $4.50
  in.egress_usd_per_GB = 0.09;
  auto r = compute_job_cost(in, aws_rule());
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->staging_s, 200);
  EXPECT_DOUBLE_EQ(r->eval_s, 3600);
  const double wall = 60 + 200 + 36000 + 3600 + 1;
  EXPECT_DOUBLE_EQ(r->wall_s, wall);
  EXPECT_NEAR(r->storage_usd, 1000 * 0.10 * wall / (730 * 3600.0), 1e-12);
  EXPECT_NEAR(r->egress_usd, 4.5, 1e-12);
  EXPECT_NEAR(r->total_usd, r->compute_usd + r->rounding_waste_usd + r->storage_usd + r->egress_usd, 1e-9);
}

TEST(JobCost, UserCheckpointIntervalGivesWholePeriods) {
  // 3500 s of work every 1000 s -> 4 equal periods of 875 s, 4 writes of 1 s (the last is the final save).
  JobCostInput in = simple_job();
  in.train_time_s = 3500;
  in.checkpoint_interval_s = 1000;
  auto r = compute_job_cost(in, aws_rule());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->checkpoints, 4);
  EXPECT_DOUBLE_EQ(r->checkpoint_interval_s, 875);
  EXPECT_DOUBLE_EQ(r->checkpoint_s, 4);
}

TEST(JobCost, SpotWallTimeFollowsDalysCompleteModel) {
  // Daly 2006: T_w = M e^{R/M} (e^{(tau+delta)/M} - 1) T_s / tau with tau the Daly optimum.
  const JobCostInput in = spot_job();
  auto r = compute_job_cost(in, aws_rule());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const double M = 3600 / 0.1, delta = 100, R = 300 + 100 + 50;  // provision + restage + reload 100 GB at 2000 MBps
  EXPECT_DOUBLE_EQ(r->mtbf_s, M);
  EXPECT_DOUBLE_EQ(r->restart_cost_s, R);
  // Daly optimum: sqrt(2*100*36000) * (1 + sqrt(100/72000)/3 + (100/72000)/9) - 100 = 2617.0 s;
  // 36000 / 2617.0 -> 14 periods of 2571.4 s.
  EXPECT_EQ(r->checkpoints, 14);
  const double tau = 36000.0 / 14;
  const double t_w = M * std::exp(R / M) * (std::exp((tau + delta) / M) - 1) * 14;
  EXPECT_NEAR(r->wall_s, 300 + 100 + t_w, 1e-6 * t_w);
  EXPECT_NEAR(r->expected_interruptions, t_w / M, 1e-9);
  // Components add up to the wall time.
  EXPECT_NEAR(r->provision_s + r->staging_s + r->train_s + r->eval_s + r->checkpoint_s + r->restart_s + r->lost_work_s,
              r->wall_s, 1e-9 * r->wall_s);
  // First-order sanity: lost work per interruption is about half a period (Young 1974).
  EXPECT_NEAR(r->lost_work_s / r->expected_interruptions, (tau + delta) / 2, 0.05 * (tau + delta));
}

TEST(JobCost, EverySpotRestartOpensASegmentWithItsOwnMinimum) {
  // Interruptions every ~30 min under a 1-hour minimum: every segment is billed a full hour.
  JobCostInput in = spot_job();
  in.train_time_s = 4 * 3600;
  in.spot_interruption_rate_per_h = 2;
  auto r = compute_job_cost(in, oci_bm_rule());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_GE(r->interruptions_p90, 1);
  // Each segment is billed at least the hour although the mean segment is far shorter.
  const double mean_segment_s = r->high.wall_s / (1 + r->interruptions_p90);
  ASSERT_LT(mean_segment_s, 3600);
  EXPECT_GE(r->high.billed_node_s, (1 + r->interruptions_p90) * 3600);
  EXPECT_GT(r->high.billed_node_s, 1.5 * r->high.wall_s);
  EXPECT_DOUBLE_EQ(r->segments, 1 + r->expected_interruptions);
  EXPECT_GT(r->rounding_waste_usd, 0);
  // The same job under per-second billing wastes almost nothing.
  auto aws = compute_job_cost(in, aws_rule());
  ASSERT_TRUE(aws.ok());
  EXPECT_LT(aws->rounding_waste_usd, r->rounding_waste_usd / 100);
}

TEST(JobCost, EarlyPreemptionInsideTheFreeWindowIsNotBilled) {
  // GCP-style rule: per second, 60 s minimum, and a spot VM preempted within its first minute is free. Each
  // interrupted segment of memoryless length X (mean L) costs the 60 s minimum when X < 60 s, so the credit
  // is 60 s x P(X < 60 s) = 60 (1 - e^{-60/L}) per interruption.
  JobCostInput in = spot_job();
  in.spot_interruption_rate_per_h = 3;
  auto paid = compute_job_cost(in, aws_rule());
  in.spot_free_window_s = 60;
  auto free = compute_job_cost(in, aws_rule());
  ASSERT_TRUE(paid.ok() && free.ok());
  EXPECT_EQ(paid->free_preemption_usd, 0);
  const double L = free->billable_node_s / free->segments;
  const double credit_s = free->expected_interruptions * 60 * (1 - std::exp(-60 / L));
  EXPECT_NEAR(free->free_preemption_usd, in.spot_usd_per_h * credit_s / 3600, 1e-12);
  EXPECT_GT(free->free_preemption_usd, 0);
  EXPECT_NEAR(paid->total_usd - free->total_usd, free->free_preemption_usd, 1e-9);
  EXPECT_NEAR(free->total_usd,
              free->compute_usd + free->rounding_waste_usd - free->free_preemption_usd + free->storage_usd +
                  free->egress_usd,
              1e-9);
}

TEST(JobCost, ClusterInterruptionRateScalesWithNodes) {
  JobCostInput in = spot_job();
  in.nodes = 8;
  auto r = compute_job_cost(in, aws_rule());
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->cluster_interruptions_per_h, 0.8);
  EXPECT_DOUBLE_EQ(r->mtbf_s, 3600 / 0.8);
  EXPECT_DOUBLE_EQ(r->segments, 8 + r->expected_interruptions);
}

TEST(JobCost, SpotBandBracketsTheExpectedCost) {
  auto r = compute_job_cost(spot_job(), aws_rule());
  ASSERT_TRUE(r.ok());
  // About 1.1 expected interruptions: Poisson 10% quantile 0, 90% quantile 2.
  EXPECT_EQ(r->interruptions_p10, 0);
  EXPECT_EQ(r->interruptions_p90, 2);
  EXPECT_LT(r->low.total_usd, r->total_usd);
  EXPECT_GT(r->high.total_usd, r->total_usd);
  EXPECT_LT(r->low.wall_s, r->wall_s);
  EXPECT_GT(r->high.wall_s, r->wall_s);
}

TEST(JobCost, BreakEvenSpotPriceMakesBothOptionsCostTheSame) {
  auto r = compute_job_cost(spot_job(), aws_rule());
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_break_even);
  EXPECT_TRUE(r->spot_pays_off);  // $3/h spot vs $10/h on demand
  EXPECT_LT(r->total_usd, r->on_demand_total_usd);
  EXPECT_LT(r->on_demand_wall_s, r->wall_s);
  JobCostInput at = spot_job();
  at.spot_usd_per_h = r->break_even_spot_usd_per_h;
  auto e = compute_job_cost(at, aws_rule());
  ASSERT_TRUE(e.ok());
  EXPECT_NEAR(e->total_usd, r->on_demand_total_usd, 1e-9 * r->on_demand_total_usd);
  EXPECT_GT(r->break_even_spot_usd_per_h, 3);
  EXPECT_LT(r->break_even_spot_usd_per_h, 10);
}

TEST(JobCost, BreakEvenInterruptionRateMakesBothOptionsCostTheSame) {
  const JobCostInput in = spot_job();
  auto rate = break_even_interruption_rate_per_h(in, aws_rule());
  ASSERT_TRUE(rate.ok()) << rate.error().to_string();
  EXPECT_GT(rate.value(), 0.1);  // spot pays off at 0.1/h, so the break-even is above it
  JobCostInput at = in;
  at.spot_interruption_rate_per_h = rate.value();
  auto e = compute_job_cost(at, aws_rule());
  ASSERT_TRUE(e.ok());
  EXPECT_NEAR(e->total_usd, e->on_demand_total_usd, 1e-6 * e->on_demand_total_usd);
}

TEST(JobCost, BreakEvenRateNeedsAnOnDemandPrice) {
  JobCostInput in = spot_job();
  in.on_demand_usd_per_h = -1;  // e.g. p5e.48xlarge: Capacity Blocks only (pricing-and-specs §5.4)
  auto r = compute_job_cost(in, aws_rule());
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_break_even);
  auto rate = break_even_interruption_rate_per_h(in, aws_rule());
  ASSERT_FALSE(rate.ok());
  EXPECT_EQ(rate.error().field, "on_demand_usd_per_h");
}

TEST(JobCost, SpotAboveOnDemandNeverPaysOff) {
  JobCostInput in = spot_job();
  in.spot_usd_per_h = 12;  // AWS catalogs have spot rows at or above on-demand (pricing-and-specs §5.3)
  auto r = compute_job_cost(in, aws_rule());
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->spot_pays_off);
  auto rate = break_even_interruption_rate_per_h(in, aws_rule());
  ASSERT_TRUE(rate.ok());
  EXPECT_EQ(rate.value(), 0);
}

TEST(JobCost, HardwareFailuresApplyOnDemandToo) {
  JobCostInput in = simple_job();
  in.train_time_s = 30 * 24 * 3600.0;
  in.nodes = 16;
  in.failure_rate_per_h = 0.001;
  auto r = compute_job_cost(in, aws_rule());
  ASSERT_TRUE(r.ok());
  EXPECT_GT(r->expected_interruptions, 0);
  EXPECT_GT(r->checkpoints, 1);
  EXPECT_GT(r->wall_s, in.train_time_s);
}

TEST(JobCost, InvalidInputsNameTheField) {
  struct Case {
    const char* field;
    void (*mutate)(JobCostInput&);
  };
  const Case cases[] = {
      {"train_time_s", [](JobCostInput& in) { in.train_time_s = 0; }},
      {"train_time_s", [](JobCostInput& in) { in.train_time_s = NAN; }},
      {"nodes", [](JobCostInput& in) { in.nodes = 0; }},
      {"on_demand_usd_per_h", [](JobCostInput& in) { in.on_demand_usd_per_h = -1; }},
      {"spot_usd_per_h", [](JobCostInput& in) { in.option = PricingOption::spot; in.spot_usd_per_h = -1; }},
      {"spot_interruption_rate_per_h",
       [](JobCostInput& in) { in.option = PricingOption::spot; in.spot_interruption_rate_per_h = INFINITY; }},
      {"spot_free_window_s", [](JobCostInput& in) { in.spot_free_window_s = NAN; }},
      {"failure_rate_per_h", [](JobCostInput& in) { in.failure_rate_per_h = -0.1; }},
      {"provision_s", [](JobCostInput& in) { in.provision_s = -1; }},
      {"staging_MBps", [](JobCostInput& in) { in.dataset_bytes = 1e9; in.staging_MBps = 0; }},
      {"checkpoint_bytes", [](JobCostInput& in) { in.checkpoint_bytes = 0; }},
      {"checkpoint_write_MBps", [](JobCostInput& in) { in.checkpoint_write_MBps = 0; }},
      {"checkpoint_read_MBps", [](JobCostInput& in) { in.checkpoint_read_MBps = NAN; }},
      {"checkpoint_interval_s", [](JobCostInput& in) { in.checkpoint_interval_s = -5; }},
      {"eval_fraction", [](JobCostInput& in) { in.eval_fraction = -0.5; }},
      {"volume_GB", [](JobCostInput& in) { in.volume_GB = -1; }},
      {"storage_usd_per_GB_month", [](JobCostInput& in) { in.storage_usd_per_GB_month = NAN; }},
      {"egress_GB", [](JobCostInput& in) { in.egress_GB = -1; }},
      {"egress_usd_per_GB", [](JobCostInput& in) { in.egress_usd_per_GB = INFINITY; }},
  };
  for (const Case& c : cases) {
    JobCostInput in = simple_job();
    c.mutate(in);
    auto r = compute_job_cost(in, aws_rule());
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.error().field, c.field);
    EXPECT_FALSE(r.error().message.empty());
  }
  auto bad_rule = compute_job_cost(simple_job(), BillingRule{"", -1, 60, "", ""});
  ASSERT_FALSE(bad_rule.ok());
  EXPECT_EQ(bad_rule.error().field, "billing.increment_s");
}

TEST(JobCost, AbsurdInterruptionRateIsAnErrorNotInfinity) {
  JobCostInput in = spot_job();
  in.spot_interruption_rate_per_h = 1e6;  // an interruption every 3.6 ms: the job never finishes
  auto r = compute_job_cost(in, aws_rule());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "spot_interruption_rate_per_h");
  in.spot_interruption_rate_per_h = 1;
  in.train_time_s = 1e7;
  in.checkpoint_interval_s = 1e7;  // one checkpoint in 116 days with an interruption per hour
  auto u = compute_job_cost(in, aws_rule());
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.error().field, "checkpoint_interval_s");
  JobCostInput od = simple_job();
  od.failure_rate_per_h = 1e6;
  auto f = compute_job_cost(od, aws_rule());
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().field, "failure_rate_per_h");
}

TEST(JobCost, AllOutputsStayFiniteOverAGridOfInputs) {
  for (double train : {1.0, 600.0, 36000.0, 1e7}) {
    for (double rate : {0.0, 0.01, 0.5, 5.0}) {
      for (int nodes : {1, 8, 64}) {
        for (const BillingRule& rule : {aws_rule(), lambda_rule(), hourly_rule(), oci_bm_rule()}) {
          JobCostInput in = spot_job();
          in.train_time_s = train;
          in.spot_interruption_rate_per_h = rate;
          in.nodes = nodes;
          auto r = compute_job_cost(in, rule);
          if (!r.ok()) continue;  // overflow is reported as an error, checked above
          for (double v : {r->wall_s, r->total_usd, r->low.total_usd, r->high.total_usd, r->billed_node_s,
                           r->break_even_spot_usd_per_h, r->lost_work_s, r->restart_s}) {
            EXPECT_TRUE(std::isfinite(v)) << train << " " << rate << " " << nodes;
            EXPECT_GE(v, 0);
          }
          EXPECT_GE(r->billed_node_s, r->billable_node_s);
          EXPECT_LE(r->low.total_usd, r->high.total_usd);
        }
      }
    }
  }
}

TEST(JobCost, SameInputGivesBitIdenticalOutput) {
  const JobCostInput in = spot_job();
  auto a = compute_job_cost(in, lambda_rule());
  auto b = compute_job_cost(in, lambda_rule());
  ASSERT_TRUE(a.ok() && b.ok());
  const CostBreakdown& x = *a;
  const CostBreakdown& y = *b;
  const double xs[] = {x.wall_s, x.lost_work_s, x.restart_s, x.billed_node_s, x.total_usd, x.low.total_usd,
                       x.high.total_usd, x.break_even_spot_usd_per_h, x.expected_interruptions};
  const double ys[] = {y.wall_s, y.lost_work_s, y.restart_s, y.billed_node_s, y.total_usd, y.low.total_usd,
                       y.high.total_usd, y.break_even_spot_usd_per_h, y.expected_interruptions};
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; ++i) EXPECT_EQ(bits(xs[i]), bits(ys[i])) << i;
}

TEST(FillJobCostInput, CopiesProviderAndOfferFigures) {
  Provider p;
  p.provision_s = 420;
  p.bills_provisioning = false;
  p.spot.available = true;
  p.spot.interruption_rate_per_h = 0.05;
  p.spot.early_preemption_free = true;
  p.spot.free_window_s = 60;
  p.storage_usd_per_GB_month = 0.08;
  p.storage_read_MBps = 1000;
  p.storage_write_MBps = 600;
  p.egress_usd_per_GB = 0.09;
  p.network_download_MBps = 1250;
  Offer o;
  o.price_usd_per_h = 98.32;
  o.spot_usd_per_h = 40.1;
  JobCostInput in;
  in.train_time_s = 1234;
  fill_job_cost_input(in, p, o, PricingOption::spot);
  EXPECT_EQ(in.option, PricingOption::spot);
  EXPECT_EQ(in.train_time_s, 1234);
  EXPECT_EQ(in.on_demand_usd_per_h, 98.32);
  EXPECT_EQ(in.spot_usd_per_h, 40.1);
  EXPECT_EQ(in.spot_interruption_rate_per_h, 0.05);
  EXPECT_EQ(in.spot_free_window_s, 60);
  EXPECT_EQ(in.provision_s, 420);
  EXPECT_FALSE(in.bills_provisioning);
  EXPECT_EQ(in.staging_MBps, 1250);
  EXPECT_EQ(in.checkpoint_write_MBps, 600);
  EXPECT_EQ(in.checkpoint_read_MBps, 1000);
  EXPECT_EQ(in.storage_usd_per_GB_month, 0.08);
  EXPECT_EQ(in.egress_usd_per_GB, 0.09);
}

// ---------------------------------------------------------------------------------------------
// Development cycle.

TEST(DevCycle, HourlyBillingPunishesFrequentShortRuns) {
  // 20 runs of 10 minutes at $12/h: hourly billing charges 20 hours ($240), per second 200 minutes ($40).
  DevCycleInput in;
  in.runs = 20;
  in.run_s = 600;
  in.price_usd_per_h = 12;
  auto r = dev_cycle_cost(in, hourly_rule());
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->billed_s_per_run, 3600);
  EXPECT_DOUBLE_EQ(r->per_second_billed_s_per_run, 600);
  EXPECT_NEAR(r->cost_usd, 240, 1e-9);
  EXPECT_NEAR(r->per_second_cost_usd, 40, 1e-9);
  EXPECT_NEAR(r->rounding_waste_usd, 200, 1e-9);
  EXPECT_NEAR(r->waste_fraction, 5.0 / 6.0, 1e-12);
}

TEST(DevCycle, PerMinuteBillingWastesUnderAMinutePerRun) {
  // 20 runs of 10.5 min + 90 s billed boot on 2 nodes = 720 s each: whole minutes, no waste under Lambda's rule;
  // with 10 s more every run pays 50 s extra.
  DevCycleInput in;
  in.runs = 20;
  in.run_s = 630;
  in.nodes = 2;
  in.provision_s = 90;
  in.price_usd_per_h = 36;
  auto r = dev_cycle_cost(in, lambda_rule());
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->segment_s, 720);
  EXPECT_NEAR(r->rounding_waste_usd, 0, 1e-12);
  in.run_s = 640;
  auto s = dev_cycle_cost(in, lambda_rule());
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(s->rounding_waste_usd, 20 * 2 * 36.0 * 50 / 3600, 1e-9);
}

TEST(DevCycle, UnbilledBootIsNotCharged) {
  DevCycleInput in;
  in.run_s = 100;
  in.provision_s = 300;
  in.bills_provisioning = false;
  in.price_usd_per_h = 3.6;
  auto r = dev_cycle_cost(in, aws_rule());
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->segment_s, 100);
  EXPECT_NEAR(r->cost_usd, 0.1, 1e-12);
}

TEST(DevCycle, InvalidInputsNameTheField) {
  DevCycleInput in;
  in.run_s = 60;
  in.runs = 0;
  EXPECT_EQ(dev_cycle_cost(in, aws_rule()).error().field, "runs");
  in.runs = 1;
  in.run_s = -1;
  EXPECT_EQ(dev_cycle_cost(in, aws_rule()).error().field, "run_s");
  in.run_s = 60;
  in.price_usd_per_h = NAN;
  EXPECT_EQ(dev_cycle_cost(in, aws_rule()).error().field, "price_usd_per_h");
  in.price_usd_per_h = 1;
  EXPECT_EQ(dev_cycle_cost(in, BillingRule{"", 0, 0, "", ""}).error().field, "billing.increment_s");
}
