// trainfit core (internal) — what the pieces of the billing cost model share (billing.cpp, billing_timeline.cpp,
// billing_rounding.cpp, billing_reserved.cpp): unit constants, the input-problem record and the job's timeline.
#pragma once
#include <cmath>

#include "trainfit/market/billing.h"

namespace trainfit::billing_detail {

inline constexpr double kMBps = 1e6;                // Provider throughputs are MBps = 1e6 B/s
// Storage is priced per GB-month; an average month is 8760 h / 12 = 730 h (the month AWS and GCP calculators
// use to turn GB-month prices into hourly ones; AWS prorates EBS by the hour, knowledge-center
// "ebs-volume-charges").
inline constexpr double kMonth_s = 730.0 * 3600.0;

inline bool finite_nonneg(double v) { return std::isfinite(v) && v >= 0; }

inline Error make_error(const char* field, const char* message) { return Error{field, message}; }

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

// Fills `t`; a Problem naming the field to blame when the numbers overflow (billing_timeline.cpp).
Problem build_timeline(const JobCostInput& in, double rate_per_instance_h, Timeline& t);

// Both band quantiles (10% and 90%) of a Poisson count in one pass (billing_timeline.cpp).
void poisson_p10_p90(double mean, double& p10, double& p90);

}  // namespace trainfit::billing_detail
