// trainfit core — validation of the memory estimator and the parameter counts against published references.
// The reference list lives in validation.cpp; the report is generated from it (`trainfit validate`).
#pragma once
#include <string>
#include <vector>

#include "trainfit/base/common.h"

namespace trainfit {

enum class RefKind {
  param_count,     // exact published parameter count
  model_states,    // a paper's model-state arithmetic (ZeRO Fig. 1)
  formula,         // a paper's closed-form activation formula (Korthikanti et al. 2022)
  estimator,       // another tool's documented output (DeepSpeed); informative, its accounting differs
  measured_peak,   // a measured peak (torch.cuda.max_memory_allocated) of a fully specified run
};

struct ValidationRow {
  std::string name;          // what was estimated
  std::string source;        // paper / document and location
  RefKind kind = RefKind::measured_peak;
  std::string metric;        // what is compared ("allocated peak, GB", "model states per GPU, GiB", ...)
  double published = 0;      // in the unit of `metric`
  double estimate = 0;       // ours, same unit
  double rel_error = 0;      // (estimate - published) / published
  double tolerance = 0;      // acceptance bound on |rel_error| for this row (0 = informative only)
  bool fully_specified = true;
  std::string note;          // why a difference is expected, or what was assumed
  bool pass() const { return tolerance <= 0 || (rel_error <= tolerance && rel_error >= -tolerance); }
};

const char* to_string(RefKind k);

// Recomputes every reference with the current estimator. Errors only if a reference cannot be estimated.
Result<std::vector<ValidationRow>> validation_report();

// The report as a fixed-width text table with a summary line (worst measured error, band factors).
std::string format_validation_report(const std::vector<ValidationRow>& rows);

// The `validate` verb's JSON document (every memory, time and fit reference with its estimate), and the call that
// makes the facade answer `validate` with it (api.h set_validation_provider). Library trainfit_validation.
std::string validation_document_json();
void install_validation_tables();

}  // namespace trainfit
