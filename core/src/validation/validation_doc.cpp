// trainfit core — the validation report as the facade's `validate` document: every published memory reference
// (validation.cpp), every throughput row (perf_validation.cpp) and the reality set's fit verdicts (reality.cpp),
// each with trainfit's estimate and error. Its own library (trainfit_validation) so that the web module can leave
// the tables out of its first-visit payload (the page fetches data/validation.json, this document as the build
// wrote it, when the Accuracy tab or trainfit.call("validate") needs it).
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "base/json_doc.h"
#include "trainfit/facade/api.h"
#include "trainfit/base/common.h"
#include "trainfit/estimate/memory.h"
#include "trainfit/estimate/planner.h"
#include "trainfit/validation/reality.h"
#include "trainfit/validation/validation.h"
#include "validation/reference_gpus.h"

namespace trainfit {
namespace {
using json = nlohmann::json;

using doc::error_doc;
using doc::num;

json validate_doc() {
  json rows = json::array();
  Result<std::vector<ValidationRow>> mem = validation_report();
  if (!mem) return error_doc(mem.error());
  bool all_pass = true;
  for (const auto& v : *mem) {
    rows.push_back({{"kind", "memory"}, {"name", v.name}, {"source", v.source}, {"metric", v.metric},
                    {"published", num(v.published)}, {"estimate", num(v.estimate)}, {"rel_error", num(v.rel_error)},
                    {"tolerance", num(v.tolerance)}, {"pass", v.pass()}, {"note", v.note}});
    all_pass = all_pass && v.pass();
  }
  for (const auto& t : time_validation_rows()) {
    // The bar: fully specified published runs within their tolerance; the others are informative.
    const double tol = t.fully_specified ? t.tolerance : 0.0;
    const bool pass = !t.fully_specified || std::fabs(t.relative_error) <= tol;
    std::string note = t.calibration ? "used to calibrate the efficiency defaults" : "held out";
    if (!t.fully_specified) note += "; not fully specified (informative)";
    if (!t.planner_plan.empty()) {
      char buf[48];
      buf[0] = '\0';
      if (t.planner_tok_s_gpu > 0) std::snprintf(buf, sizeof buf, ": %.0f tokens/s per GPU", t.planner_tok_s_gpu);
      note += "; the planner's own plan for this job: " + t.planner_plan + buf;
    }
    rows.push_back({{"kind", "time"}, {"name", t.name}, {"source", t.source}, {"metric", t.quantity},
                    {"published", num(t.published)}, {"estimate", num(t.estimate)},
                    {"rel_error", num(t.relative_error)}, {"tolerance", tol}, {"pass", pass}, {"note", note}});
    all_pass = all_pass && pass;
  }
  // The reality set (reality.h): configurations that ran must not be no_fit, out-of-memory reports must be.
  Result<std::vector<RealityRow>> fit = reality_rows();
  if (!fit) return error_doc(fit.error());
  for (const auto& r : *fit) {
    std::string note = r.note;
    if (!r.judged()) note = "not judged: " + r.gap + (note.empty() ? "" : "; " + note);
    rows.push_back({{"kind", "fit"}, {"name", r.name}, {"source", r.source},
                    {"metric", r.ran ? "expected peak per GPU, GiB (ran: fits or tight)" : "expected peak per GPU, GiB (OOM: no_fit)"},
                    {"published", num(r.usable_bytes / kGiB)}, {"estimate", num(r.expected_bytes / kGiB)},
                    {"rel_error", num(r.expected_bytes / r.usable_bytes - 1.0)}, {"tolerance", 0},
                    {"verdict", to_string(r.verdict)}, {"expected", r.ran ? "runs" : "oom"}, {"judged", r.judged()},
                    {"pass", r.pass()}, {"note", note}});
    all_pass = all_pass && r.pass();
  }
  // A reference GPU the bundled snapshot lacks would leave its rows without figures: refuse the report.
  const std::vector<std::string> missing = reference_gpus_missing();
  if (!missing.empty())
    return error_doc(Error{"gpu", "reference GPU \"" + missing[0] + "\" is not in the bundled snapshot (data/inputs/gpus.json)"});
  return json{{"ok", true}, {"matched", all_pass}, {"rows", rows}};
}

}  // namespace

std::string validation_document_json() { return validate_doc().dump(); }

void install_validation_tables() { set_validation_provider(&validation_document_json); }

}  // namespace trainfit
