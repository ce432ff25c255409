// trainfit core — billing granularity (billing.h): which rule bills an offer, a segment's billed seconds under
// an increment and a minimum charge (exact and for an exponentially distributed length), the rule's checks,
// and the development-cycle scenario (K short runs, each its own billing segment).
#include "trainfit/market/billing.h"

#include <cmath>
#include <string>

#include "market/billing_internal.h"

namespace trainfit {

using billing_detail::finite_nonneg;
using billing_detail::make_error;

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
