// trainfit core — back from the launch: calibration from one measured run. The user measures the first minutes
// of a launched plan (seconds per optimizer step, optionally torch.cuda.max_memory_reserved()); trainfit fits
//   - the efficiency factor: the factor on the modelled compute efficiency (perf.h Efficiency) that makes the
//     time model reproduce the measured step time for that exact layout; applied to every GPU, each keeps its own
//     peak and layout factors, so other GPUs are scaled by their peak ratio ("calibrated from <GPU>");
//   - the memory reserve: the allocator's fragmentation fraction (query key `fragmentation`) that makes the
//     estimated reserved peak (allocated peak + fragmentation) equal the measured one.
// The fitted values go into the query (`calibration.*`, `fragmentation`), so the URL hash and every surface
// re-rank with the calibrated model.
#pragma once
#include <string>
#include <string_view>

#include "trainfit/base/common.h"
#include "trainfit/estimate/planner.h"
#include "trainfit/query/query.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {

// What a training job printed, pasted by the user (untrusted). Pairs "key=value" or "key: value", separated by
// spaces, commas, semicolons, '|' or newlines; keys are case-insensitive, other words are ignored:
//   step_time_s, step_time, step_s, time_per_step   seconds per optimizer step ("1.84", "1.84s", "1840ms")
//   tokens_per_s, tokens/s, tok/s, tps              whole-job tokens per second
//   peak_GiB, max_memory_reserved, reserved_GiB,   peak GPU memory per GPU ("61.2", "61.2GiB", "65.7GB" = 1e9 B)
//   max_memory_allocated
// At least one of step time / tokens per second. Errors name the key and the problem.
struct MeasuredRun {
  double step_time_s = 0;    // 0 = not given
  double tokens_per_s = 0;   // 0 = not given
  double peak_GiB = 0;       // 0 = not given
};
Result<MeasuredRun> parse_measured_run(std::string_view text);

// The factor on the modelled efficiency that makes time_layout's step time equal `measured_step_s` for this
// layout (bisection; the step time falls monotonically as the factor grows until the efficiency reaches 1).
// Errors: the measured time is below what the GPUs' peak allows, or above what the model can explain by compute.
Result<double> fit_efficiency_scale(const ModelSpec& model, const TrainConfig& train, const GpuSpec& gpu,
                                    const Offer& offer, int nodes, const MemoryLayout& layout, int64_t global_batch,
                                    double measured_step_s);

// The allocator's reserve over the allocated peak (query key `fragmentation`: a fraction of the step's dynamic memory,
// memory_stages.cpp) that makes the estimated reserved peak (allocated peak + fragmentation) equal a measured
// torch.cuda.max_memory_reserved() for this layout; 4 significant digits, within [0, 1] (0 where the estimator already
// predicts more than was measured: the result then shows the gap). The reserve's fixed part (a trainer that frees its
// logits before the backward leaves their block cached) is kept, not refitted.
Result<double> fit_fragmentation(const ModelSpec& model, const TrainConfig& train, const MemoryLayout& layout,
                                 double measured_peak_GiB);

struct CalibrationResult {
  std::string offer, gpu, gpu_name;
  int nodes = 0;
  Plan plan;                        // the uncalibrated plan the run was measured on
  double measured_step_s = 0;
  double estimated_step_s = 0;      // uncalibrated
  double calibrated_step_s = 0;     // with the fitted factor (= measured, within the bisection's tolerance)
  double efficiency_scale = 1;
  double efficiency_before = 0, efficiency_after = 0;
  // Memory per GPU, GiB (0 when no peak was measured).
  double measured_peak_GiB = 0;
  double estimated_reserved_GiB = 0;   // allocated peak + fragmentation: what max_memory_reserved would report
  double fragmentation_before = 0, fragmentation_after = 0;
  Query query;                       // the input query with calibration.* (and fragmentation) filled
};

// Fits q.calibration (offer, nodes, step_time_s or tokens_per_s, peak_GiB) on the snapshot. Any previous fit in the query is
// ignored (the measured run is compared with the uncalibrated model). Errors name calibration.* keys.
Result<CalibrationResult> calibrate(const Query& q, const Snapshot& snapshot);

}  // namespace trainfit
