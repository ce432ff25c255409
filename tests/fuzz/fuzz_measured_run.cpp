// libFuzzer target: the measured-run parser (calibrate.h parse_measured_run), which reads text the user pastes
// from a training log. Any text gives a run or an error with a field and a message; a run has finite values in
// the documented ranges and at least one of step time / tokens per second.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "trainfit/launch/calibrate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  trainfit::Result<trainfit::MeasuredRun> m = trainfit::parse_measured_run(text);
  if (!m) {
    if (m.error().message.empty() || m.error().field.empty()) std::abort();
    return 0;
  }
  for (double v : {m->step_time_s, m->tokens_per_s, m->peak_GiB})
    if (!std::isfinite(v) || v < 0) std::abort();
  if (!(m->step_time_s > 0) && !(m->tokens_per_s > 0)) std::abort();
  if (m->step_time_s > 1e6 || m->tokens_per_s > 1e12 || m->peak_GiB > 4096) std::abort();
  return 0;
}
