// trainfit core — the reality set: published training configurations that ran on named hardware, and
// published out-of-memory reports, each judged by the fit verdict (memory.h). A configuration that ran must be
// `fits` or `tight`, never `no_fit`; an out-of-memory report must be `no_fit`. Sources and what each row assumes
// are in core/src/validation/reality.cpp; `trainfit validate` and the Accuracy tab list them (kind "fit").
#pragma once
#include <string>
#include <vector>

#include "trainfit/base/common.h"
#include "trainfit/estimate/memory.h"

namespace trainfit {

struct RealityRow {
  std::string name;           // the configuration, with its hardware
  std::string source;         // where it was published (address and the table row / quote)
  bool ran = true;            // true: it trained; false: it ran out of memory
  FitVerdict verdict = FitVerdict::no_fit;  // ours
  double expected_bytes = 0;  // our expected peak per GPU
  double high_bytes = 0;      // the band's top
  double usable_bytes = 0;    // the GPU's driver-reported memory
  std::string note;           // what the row assumes where the source is silent
  // Not judged: the run depends on a framework feature the generic estimate does not model yet (the gap says
  // which and by how much); listed so the limitation is visible. Framework profiles will take these.
  std::string gap;
  bool judged() const { return gap.empty(); }
  bool pass() const { return !judged() || (ran ? verdict != FitVerdict::no_fit : verdict == FitVerdict::no_fit); }
};

// Every row, judged with the current estimator. Errors only if a row cannot be estimated.
Result<std::vector<RealityRow>> reality_rows();

}  // namespace trainfit
