// trainfit core — what a job really costs under a provider's billing rules: billing increments and minimum
// charges per billing segment, the job's timeline (provisioning, staging, training, checkpoints, spot restarts),
// storage and egress, a low / expected / high band for interruptible capacity, the spot vs on-demand
// break-even, and the development-cycle scenario (K short runs).
//
// Pure functions on plain structs: no snapshot loading, no I/O, no allocation on the success path (the ranker
// calls compute_job_cost for every offer x pricing option x node count). Same input -> same output, bit for bit.
#pragma once
#include <string>
#include <vector>

#include "trainfit/base/common.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {

// ---------------------------------------------------------------------------------------------
// Billing rules and rounding.

// The rule that bills `instance_type` at `provider`: the first of provider.billing_exceptions whose `match` is a
// prefix of instance_type (OCI bare metal "BM." -> 1 h minimum), else provider.billing. Never allocates.
const BillingRule& billing_rule_for(const Provider& provider, const std::string& instance_type);

// The provider whose terms the user is billed under for offer `o`: the marketplace that sells it (o.via) when
// it is sold through one, else the provider that runs it. Every cost reads this record: billing increment and
// minimum (billing_rule_for(seller_of(s, o), o.instance_type)), spot rules, provisioning, storage and egress.
// Why the marketplace: it is the one that bills the user (Shadeform meters Shade Cloud instances per second
// from its own wallet, docs.shadeform.ai/guides/spotinstances; docs/snapshot.md, "Marketplaces"). An index out
// of range (never in a loaded snapshot) falls back to the provider.
const Provider& seller_of(const Snapshot& s, const Offer& o);

// Seconds billed for one billing segment (one start of one instance) that ran `run_s` seconds: the minimum
// charge first, then rounding up to the increment. run_s <= 0 (or not finite) bills nothing; a rule with a
// non-positive or non-finite increment is treated as continuous (no rounding) and a negative minimum as 0, so
// the result is always finite. Use validate_billing_rule to reject such rules with a message.
double billed_seconds(double run_s, const BillingRule& rule);

// Expected billed seconds of a segment whose length is exponentially distributed with mean `mean_run_s`
// (a segment ended by a Poisson interruption): closed form of E[billed_seconds(X)]. mean_run_s <= 0 -> 0.
double expected_billed_seconds(double mean_run_s, const BillingRule& rule);

// Error naming "<field_prefix>increment_s" / "<field_prefix>minimum_s" when the rule cannot bill; ok otherwise.
// (Result<bool> holds true on success.)
Result<bool> validate_billing_rule(const BillingRule& rule, const char* field_prefix = "billing.");

// A booking product against paying by the hour for the same instances: r = reserved, p = hourly price per
// instance-hour. A job of wall time W costs p W by the hour and r booked_term_s(W) booked, so within one
// booking step [a, a + i] the booking wins for W > r (a + i) / p: a sawtooth. Fixed costs (storage, egress)
// are the same under both and left out.
struct ReservedVsHourly {
  bool comparable = false;       // both prices known and > 0
  double price_ratio = 0;        // r / p: the busy fraction of a booked term at which it pays off
  double first_win_s = -1;       // the shortest wall time at which booking is cheaper; < 0 = never
  double wins_from_s = -1;       // from this wall time on, booking is cheaper for every longer job; < 0 = never
  // No bookable durations (a negotiated contract, snapshot.h): the booking is the run itself, so a lower rate wins
  // from the first hour (first_win_s = wins_from_s = 0), a lower bound until the contract's minimum term is known.
  bool term_unpublished = false;
  // A job of wall time W that repeats: the booking (kept for its whole term) pays off when the job starts at
  // least every W / price_ratio seconds (its busy fraction W / cadence >= r / p). Filled by the caller's W.
};
// "1-day steps up to 14 days, then 7-day steps up to 182 days; starts and ends at 11:30 UTC; paid up front; not
// cancellable; up to 64 instances per booking": one line for the CLI, the UI and the JSON.
std::string reservation_terms_text(const Reservation& r);
// "3 days", "1 year", "36 h": a booking duration as a person would say it.
std::string booking_duration_text(double s);

ReservedVsHourly reserved_vs_hourly(double reserved_usd_per_h, double hourly_usd_per_h, const std::vector<TermStep>& terms);

// ---------------------------------------------------------------------------------------------
// Checkpoint interval and interruption counts.

// Optimum compute time between checkpoints for checkpoint write time `checkpoint_s` and mean time between
// interruptions `mtbf_s`: Daly's higher-order estimate, which reduces to Young's sqrt(2*C*M) when C << M.
// Returns 0 when mtbf_s <= 0 or checkpoint_s <= 0 (nothing to optimise).
double optimal_checkpoint_interval_s(double checkpoint_s, double mtbf_s);

// Smallest k with P(K <= k) >= p for K ~ Poisson(mean). mean < 0 or non-finite -> 0; p is clamped to [0, 1).
double poisson_quantile(double mean, double p);

// ---------------------------------------------------------------------------------------------
// One job on one offer and node count.

// How an instance is paid for: on demand (billed by the provider's rule, billing_rule_for), spot (the same rule,
// interruptible, a market or discounted price) or reserved (a booking product's whole term, Reservation).
enum class PricingOption { on_demand, spot, reserved };
inline constexpr PricingOption kPricingOptions[] = {PricingOption::on_demand, PricingOption::spot, PricingOption::reserved};
// The one spelling of each option on every surface: "on-demand", "spot", "reserved".
const char* pricing_option_name(PricingOption o);

// The durations a booking product can be booked for (Reservation::terms), as the cost model reads them.
// Seconds booked for a run of `run_s` seconds: the shortest bookable duration that covers it, and for a run
// longer than the longest booking, consecutive bookings (full longest terms, then the shortest that covers the
// rest). `bookings` (if given) receives their count. run_s <= 0 books nothing; no steps books the run itself.
double booked_term_s(double run_s, const std::vector<TermStep>& terms, double* bookings = nullptr);

// Everything compute_job_cost needs, already resolved to numbers (fill_job_cost_input copies the provider and
// offer fields). Throughputs are in MBps = 1e6 B/s, like Provider.
struct JobCostInput {
  PricingOption option = PricingOption::on_demand;
  double train_time_s = 0;                 // pure compute time of the whole job on `nodes` instances (planner)
  int nodes = 1;                           // instances running the job together
  double on_demand_usd_per_h = -1;         // per instance; < 0 = not offered on demand
  double spot_usd_per_h = -1;              // per instance; < 0 = no spot
  double reserved_usd_per_h = -1;          // per instance-hour of the booked term; < 0 = no reservation product
  const std::vector<TermStep>* terms = nullptr;  // the product's bookable durations; required when option == reserved
                                                 // (empty: a negotiated contract, booked for the run itself)
  int reserved_min_instances = 0;          // a booking holds at least this many instances (Reservation); 0 = none
  double spot_interruption_rate_per_h = 0; // per instance-hour (Poisson); used when option == spot
  double spot_free_window_s = 0;           // spot segments interrupted this soon after start are not billed
                                           // (SpotRules::early_preemption_free); 0 = no such rule
  double failure_rate_per_h = 0;           // hardware / software failures per instance-hour, any option (0 = none)
  double provision_s = 0;                  // provisioning + boot before the job can start, per start
  bool bills_provisioning = true;          // whether provisioning + boot time is billed
  double dataset_bytes = 0;                // dataset to stage onto each instance (in parallel)
  double staging_MBps = 0;                 // per instance download / copy throughput; > 0 when dataset_bytes > 0
  bool restage_on_restart = true;          // a replacement instance stages the dataset again (local disk lost)
  double checkpoint_bytes = 0;             // weights + optimizer states + master weights, whole job
  double checkpoint_write_MBps = 0;        // aggregate rate the job writes its checkpoint at
  double checkpoint_read_MBps = 0;         // aggregate rate a restarted job reloads it at
  double checkpoint_interval_s = 0;        // compute seconds between checkpoints; 0 = Young/Daly optimum
  double eval_fraction = 0;                // evaluation time as a fraction of train_time_s
  double volume_GB = 0;                    // persistent volume kept for the job's life (all nodes together)
  double storage_usd_per_GB_month = 0;
  double egress_GB = 0;                    // data moved out at the end (final weights, logs)
  double egress_usd_per_GB = 0;
};

// Copies prices, the spot interruption rate, provisioning, storage and network figures from a provider and an
// offer into `in` (the job fields — train time, nodes, bytes, interval — are left as they are).
// `reservation` is the offer's booking product (Offer::reservation), read when option == reserved.
void fill_job_cost_input(JobCostInput& in, const Provider& provider, const Offer& offer, PricingOption option,
                         const Reservation* reservation = nullptr);

// Cost and time for a given number of interruptions (one end of the spot band).
struct CostBand {
  double interruptions = 0;   // over the whole cluster
  double wall_s = 0;
  double billed_node_s = 0;
  double total_usd = 0;
};

// Expected values unless said otherwise. Wall times are seconds of the job's life; *_node_s sum over instances.
// total_usd = compute_usd + rounding_waste_usd - free_preemption_usd + storage_usd + egress_usd.
struct CostBreakdown {
  PricingOption option = PricingOption::on_demand;
  double price_usd_per_h = 0;          // per instance, for the chosen option
  double increment_s = 1;              // the billing rule applied
  double minimum_s = 0;

  // Timeline (wall clock). wall_s = provision_s + staging_s + train_s + eval_s + checkpoint_s + restart_s
  // + lost_work_s.
  double provision_s = 0;              // first provisioning + boot
  double staging_s = 0;                // first dataset staging
  double train_s = 0;
  double eval_s = 0;
  double checkpoint_s = 0;             // all checkpoint writes (the final save included)
  double restart_s = 0;                // re-provision + restage + reload after interruptions
  double lost_work_s = 0;              // compute redone since the last checkpoint, after interruptions
  double wall_s = 0;

  // Checkpoint plan and interruption model.
  double checkpoint_write_s = 0;       // one write
  double checkpoint_reload_s = 0;      // one reload
  double checkpoint_interval_s = 0;    // effective compute time between checkpoints
  double checkpoints = 0;              // writes per clean run (the final save included)
  double cluster_interruptions_per_h = 0;  // nodes x (spot rate + failure rate); 0 = none
  double mtbf_s = 0;                   // 1 / cluster rate; 0 when there are no interruptions
  double restart_cost_s = 0;           // one restart: provision + restage + reload
  double expected_interruptions = 0;
  double interruptions_p10 = 0;        // Poisson 10% / 90% quantiles of the count
  double interruptions_p90 = 0;

  // Reserved: each instance books `booked_s` (in `bookings` consecutive bookings) and pays all of it; the
  // part the job leaves unused (booked_s - wall_s) is the idle tail, priced in rounding_waste_usd.
  double booked_s = 0;
  double bookings = 0;
  // Instances booked: the job's nodes, or the product's minimum when it is larger (Reservation::min_instances);
  // the instances the job leaves unused are idle for the whole booking and priced in rounding_waste_usd too.
  double booked_instances = 0;

  // Billing: every start of an instance (first start, each replacement) is one segment with its own minimum.
  double segments = 0;                 // instance segments (nodes + interruptions)
  double billable_node_s = 0;          // instance-seconds the rule bills, before rounding
  double billed_node_s = 0;            // after minimum + increment per segment, net of free early preemptions

  // Costs (USD).
  double compute_usd = 0;              // price x billable time
  double rounding_waste_usd = 0;       // price x (billed - billable): what the minimum and increment add
  double free_preemption_usd = 0;      // spot segments interrupted inside the provider's free window
  double storage_usd = 0;              // persistent volume for wall_s
  double egress_usd = 0;
  double total_usd = 0;

  // Band over the number of interruptions (low = 10% quantile, high = 90% quantile). These are quantiles of
  // the cost, not bounds on its mean: when interruptions are rare the mean can exceed the 90% quantile.
  CostBand low;
  CostBand high;

  // Spot vs on-demand (filled when option == spot and the offer has an on-demand price).
  bool has_break_even = false;
  double on_demand_total_usd = 0;      // the same job on demand (hardware failure rate kept, no spot)
  double on_demand_wall_s = 0;
  double break_even_spot_usd_per_h = 0;  // spot price at which expected spot cost equals on-demand cost
  bool spot_pays_off = false;          // expected spot total < on-demand total
};

// The job's timeline and cost for `in` under `rule`. Errors name the JobCostInput field (or "billing.*").
Result<CostBreakdown> compute_job_cost(const JobCostInput& in, const BillingRule& rule);
// The same into `out` (overwritten), for callers that cost many jobs (the ranking: ~2,000 per query) without
// building and moving a Result of ~70 doubles per call. false on error, `error` (if given) saying why.
bool compute_job_cost(const JobCostInput& in, const BillingRule& rule, CostBreakdown& out, Error* error = nullptr);

// The spot interruption rate (per instance-hour) at which the expected spot total equals the on-demand total,
// everything else in `in` unchanged. 0 when spot does not pay off even without interruptions. Needs both
// prices. Bisection over compute_job_cost (~100 evaluations): for a detail view, not for ranking every row.
Result<double> break_even_interruption_rate_per_h(const JobCostInput& in, const BillingRule& rule);

// ---------------------------------------------------------------------------------------------
// Development cycle: K separate runs of T seconds (each start is a segment), under the offer's rule vs plain
// per-second billing (1 s increment, no minimum).

struct DevCycleInput {
  int runs = 1;
  double run_s = 0;             // job time of one run
  int nodes = 1;
  double price_usd_per_h = 0;   // per instance
  double provision_s = 0;       // per run
  bool bills_provisioning = true;
};

struct DevCycleCost {
  double segment_s = 0;                 // billable seconds of one run on one instance
  double billed_s_per_run = 0;          // under the rule, per instance
  double per_second_billed_s_per_run = 0;
  double cost_usd = 0;                  // all runs, all nodes, under the rule
  double per_second_cost_usd = 0;       // same under per-second billing
  double rounding_waste_usd = 0;        // cost_usd - per_second_cost_usd
  double waste_fraction = 0;            // rounding_waste_usd / cost_usd (0 when free)
};

Result<DevCycleCost> dev_cycle_cost(const DevCycleInput& in, const BillingRule& rule);

}  // namespace trainfit
