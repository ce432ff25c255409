// trainfit core — calibration from one measured run (calibrate.h).
#include "trainfit/launch/calibrate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "market/offer_plan.h"
#include "trainfit/estimate/memory.h"

namespace trainfit {
namespace {

constexpr size_t kMaxMeasuredText = 64 * 1024;   // a few screens of log; more is refused, not scanned
constexpr double kScaleLo = 1e-3, kScaleHi = 1e3;  // the search range of the efficiency factor

bool is_sep(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ';' || c == '|'; }
bool is_wrap(char c) { return c == '"' || c == '\'' || c == '{' || c == '}' || c == '(' || c == ')' || c == '[' || c == ']'; }

std::string trim_wraps(std::string s) {
  size_t b = 0, e = s.size();
  while (b < e && is_wrap(s[b])) ++b;
  while (e > b && is_wrap(s[e - 1])) --e;
  return s.substr(b, e - b);
}

enum class Field { none, step, tokens, peak };

Field field_of(const std::string& key) {
  for (const char* k : {"step_time_s", "step_time", "step_s", "time_per_step", "step-time"})
    if (key == k) return Field::step;
  for (const char* k : {"tokens_per_s", "tokens/s", "tok/s", "tps", "tokens_per_second", "throughput_tokens_per_s"})
    if (key == k) return Field::tokens;
  for (const char* k : {"peak_gib", "max_memory_reserved", "reserved_gib", "max_memory_allocated", "peak_memory_gib",
                        "peak-gib"})
    if (key == k) return Field::peak;
  return Field::none;
}

// A number in JSON's grammar followed by an optional unit; the value in seconds / tokens/s / GiB.
bool parse_value(Field f, const std::string& text, double* out, std::string* why) {
  size_t n = 0;
  while (n < text.size() && (std::isdigit(static_cast<unsigned char>(text[n])) || text[n] == '.' || text[n] == 'e' ||
                             text[n] == 'E' || text[n] == '+' || text[n] == '-'))
    ++n;
  const std::string num = text.substr(0, n), unit = text.substr(n);
  char* end = nullptr;
  const double v = num.empty() ? 0 : std::strtod(num.c_str(), &end);
  if (num.empty() || end != num.c_str() + num.size() || !std::isfinite(v)) {
    *why = "must be a number, got \"" + text.substr(0, 40) + "\"";
    return false;
  }
  double scale = 1;
  if (f == Field::step) {
    if (unit == "ms") scale = 1e-3;
    else if (!(unit.empty() || unit == "s" || unit == "sec" || unit == "secs")) {
      *why = "unknown time unit \"" + unit.substr(0, 20) + "\" (use s or ms)";
      return false;
    }
  } else if (f == Field::peak) {
    if (unit == "gb") scale = 1e9 / kGiB;
    else if (unit == "mib") scale = 1.0 / 1024;
    else if (unit == "mb") scale = 1e6 / kGiB;
    else if (!(unit.empty() || unit == "gib" || unit == "g")) {
      *why = "unknown memory unit \"" + unit.substr(0, 20) + "\" (use GiB, GB, MiB or MB)";
      return false;
    }
  } else if (!(unit.empty() || unit == "/s" || unit == "tok/s" || unit == "tokens/s")) {
    *why = "unknown rate unit \"" + unit.substr(0, 20) + "\" (use tokens/s)";
    return false;
  }
  *out = v * scale;
  const double hi = f == Field::step ? 1e6 : f == Field::tokens ? 1e12 : 4096;
  if (!(*out > 0)) {
    *why = "must be positive";
    return false;
  }
  if (*out > hi) {
    *why = "too large";
    return false;
  }
  return true;
}

const char* field_name(Field f) {
  return f == Field::step ? "step_time_s" : f == Field::tokens ? "tokens_per_s" : "peak_GiB";
}

double step_time_at(const ModelSpec& m, TrainConfig t, const GpuSpec& g, const Offer& o, int nodes,
                    const MemoryLayout& l, int64_t gb, double scale, double* efficiency) {
  t.efficiency_scale = scale;
  t.compute_efficiency = -1;
  Result<LayoutTiming> r = time_layout(m, t, g, o, nodes, l, gb);
  if (!r || !r->excluded.empty()) return -1;
  if (efficiency) *efficiency = r->efficiency;
  return r->step.total_s;
}

}  // namespace

Result<MeasuredRun> parse_measured_run(std::string_view text) {
  if (text.size() > kMaxMeasuredText) return Error{"measured", "too long (the limit is 65536 characters)"};
  std::vector<std::string> tokens;
  std::string cur;
  for (char c : text) {
    if (is_sep(c)) {
      if (!cur.empty()) tokens.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (!cur.empty()) tokens.push_back(std::move(cur));
  MeasuredRun m;
  // The last value of a key wins: later log lines are past the warm-up steps.
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    size_t at = t.find('=');
    if (at == std::string::npos) at = t.find(':');
    if (at == std::string::npos || at == 0) continue;
    const Field f = field_of(trim_wraps(t.substr(0, at)));
    if (f == Field::none) continue;
    std::string value = trim_wraps(t.substr(at + 1));
    if (value.empty() && i + 1 < tokens.size()) value = trim_wraps(tokens[++i]);
    double v = 0;
    std::string why;
    if (!parse_value(f, value, &v, &why)) return Error{field_name(f), why};
    (f == Field::step ? m.step_time_s : f == Field::tokens ? m.tokens_per_s : m.peak_GiB) = v;
  }
  if (!(m.step_time_s > 0) && !(m.tokens_per_s > 0))
    return Error{"step_time_s", "no step time or tokens/s found (write e.g. \"step_time_s=1.84 peak_GiB=61.2\")"};
  return m;
}

Result<double> fit_efficiency_scale(const ModelSpec& model, const TrainConfig& train, const GpuSpec& gpu,
                                    const Offer& offer, int nodes, const MemoryLayout& layout, int64_t global_batch,
                                    double measured_step_s) {
  if (!(measured_step_s > 0) || !std::isfinite(measured_step_s))
    return Error{"calibration.step_time_s", "must be a positive number of seconds"};
  const double fast = step_time_at(model, train, gpu, offer, nodes, layout, global_batch, kScaleHi, nullptr);
  const double slow = step_time_at(model, train, gpu, offer, nodes, layout, global_batch, kScaleLo, nullptr);
  if (!(fast > 0) || !(slow > 0)) return Error{"calibration.offer", "the time model cannot run this layout"};
  char b[200];
  if (measured_step_s < fast * (1 - 1e-9)) {
    std::snprintf(b, sizeof b,
                  "%.4g s per step is faster than this layout can run even at 100%% of the GPUs' peak (%.4g s): "
                  "check the offer, node count and batch sizes",
                  measured_step_s, fast);
    return Error{"calibration.step_time_s", b};
  }
  if (measured_step_s > slow) {
    std::snprintf(b, sizeof b,
                  "%.4g s per step is slower than compute at 0.1%% efficiency explains (%.4g s): the run is "
                  "limited by something the model does not see (data loading, host, network)",
                  measured_step_s, slow);
    return Error{"calibration.step_time_s", b};
  }
  // Bisection on log(scale): the step time falls monotonically as the factor grows.
  double lo = std::log(kScaleLo), hi = std::log(kScaleHi);
  for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
    const double mid = 0.5 * (lo + hi);
    const double t = step_time_at(model, train, gpu, offer, nodes, layout, global_batch, std::exp(mid), nullptr);
    if (t > measured_step_s) lo = mid;
    else hi = mid;
  }
  return std::exp(0.5 * (lo + hi));
}

Result<double> fit_fragmentation(const ModelSpec& model, const TrainConfig& train, const MemoryLayout& layout,
                                 double measured_peak_GiB) {
  if (!(measured_peak_GiB > 0) || !(measured_peak_GiB <= 4096))
    return Error{"calibration.peak_GiB", "must be a measured peak between 0 and 4096 GiB"};
  // The reserve is linear in the fraction: estimate at 0 and at 1 to read its fixed part and the dynamic memory
  // it is a fraction of, as the estimator counts them.
  TrainConfig t = train;
  t.fragmentation = 0;
  Result<MemoryBreakdown> at0 = estimate_memory(model, t, layout);
  if (!at0) return at0.error();
  t.fragmentation = 1;
  Result<MemoryBreakdown> at1 = estimate_memory(model, t, layout);
  if (!at1) return at1.error();
  const double dynamic = at1->fragmentation - at0->fragmentation;
  if (!(dynamic > 0)) return 0.0;
  const double f = (measured_peak_GiB * kGiB - at0->allocated_peak - at0->fragmentation) / dynamic;
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", std::clamp(f, 0.0, 1.0));
  return std::strtod(b, nullptr);
}

Result<CalibrationResult> calibrate(const Query& q, const Snapshot& s) {
  const Calibration& c = q.calibration;
  if (c.offer.empty()) return Error{"calibration.offer", "name the offer the run was measured on"};
  if (!(c.step_time_s > 0) && !(c.tokens_per_s > 0))
    return Error{"calibration.step_time_s", "give the measured seconds per optimizer step (or calibration.tokens_per_s)"};
  if (q.mfu > 0) return Error{"mfu", "a fixed efficiency (mfu) overrides the model: remove it to calibrate"};
  Query base = q;
  base.calibration.efficiency_scale = 0;
  base.calibration.gpu.clear();
  Result<detail::OfferPlan> op =
      detail::plan_one_offer(base, s, c.offer, PricingFilter::any, c.nodes, "calibration.offer", "calibration.nodes");
  if (!op) return op.error();
  const Plan& p = op->plan();
  const Offer& o = s.offers[op->offer];
  const GpuSpec& g = s.gpus[o.gpu];
  const TrainConfig train = plan_train(op->query.train, p);
  CalibrationResult r;
  r.offer = o.id;
  r.gpu = g.id;
  r.gpu_name = g.name;
  r.nodes = op->chosen().nodes;
  r.plan = p;
  // Tokens/s measured for the whole job: one step processes global batch x sequence length tokens.
  r.measured_step_s = c.step_time_s > 0 ? c.step_time_s
                                        : static_cast<double>(p.global_batch) * static_cast<double>(q.train.seq_len) /
                                              c.tokens_per_s;
  r.estimated_step_s = step_time_at(q.model, train, g, o, r.nodes, p.layout, p.global_batch, 1.0, &r.efficiency_before);
  Result<double> scale =
      fit_efficiency_scale(q.model, train, g, o, r.nodes, p.layout, p.global_batch, r.measured_step_s);
  if (!scale) return scale.error();
  r.efficiency_scale = *scale;
  r.calibrated_step_s = step_time_at(q.model, train, g, o, r.nodes, p.layout, p.global_batch, *scale, &r.efficiency_after);
  r.query = q;
  r.query.calibration.gpu = g.id;
  // Six significant digits: the link stays short; the step time moves by far less than the bisection's band.
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", *scale);
  r.query.calibration.efficiency_scale = std::clamp(std::strtod(b, nullptr), 1e-6, 20.0);
  r.fragmentation_before = train.fragmentation >= 0 ? train.fragmentation : kDefaultFragmentation;
  r.fragmentation_after = r.fragmentation_before;
  if (c.peak_GiB > 0) {
    Result<MemoryBreakdown> m = estimate_memory(q.model, train, p.layout);
    if (!m) return m.error();
    r.measured_peak_GiB = c.peak_GiB;
    r.estimated_reserved_GiB = (m->allocated_peak + m->fragmentation) / kGiB;
    Result<double> f = fit_fragmentation(q.model, train, p.layout, c.peak_GiB);
    if (!f) return f.error();
    r.fragmentation_after = *f;
    r.query.train.fragmentation = *f;
  }
  return r;
}

}  // namespace trainfit
