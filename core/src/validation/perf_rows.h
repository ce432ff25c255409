// trainfit core — internal to the time references (perf_validation.cpp): a published framework benchmark run and
// its row, shared with the long-context tables (perf_validation_long.cpp).
#pragma once
#include <cstdint>
#include <vector>

#include "trainfit/catalog/job.h"
#include "trainfit/catalog/model.h"
#include "trainfit/estimate/planner.h"

namespace trainfit::perf_detail {

// A published framework benchmark run with its exact layout: evaluated as a FIXED layout under the
// matching framework profile. dp = gpus / (tp x pp x cp) (Megatron's order, CP ranks share a sequence);
// gradient-accumulation steps = global batch / (micro-batch x dp).
struct FrameworkRun {
  const char* name;
  const char* model;     // preset id (trainfit models)
  Framework framework;
  int gpu;               // 0 H100 SXM, 1 H200 SXM, 2 B200, 3 torchtitan's 500 W H100 96GB HBM2e, 4 A100 80GB SXM
  int gpus, tp, pp, vp, cp, zero;
  int64_t mb, gb, seq;
  Recompute rc;
  Precision prec;
  double tok_s_gpu;      // published tokens/s per GPU
  bool calibration;      // used to derive a profile's efficiency (the others are held out)
  const char* source;
  // false: a detail the source leaves out or contradicts (torchtitan's 500 W H100 HBM2e, whose clocks are
  // unpublished; a table not monotonic in sequence length): informative, outside the 20% bar and the time band.
  bool fully_specified = true;
  ModelSpec (*custom_model)() = nullptr;  // a model that is not a preset (`model` then only names it)
  int ep = 1;            // expert parallel (MoE), experts whole on each rank (expert tensor parallel 1)
  CpScheme cp_scheme = CpScheme::automatic;  // how CP splits attention (automatic: the framework's)
  uint32_t recompute_modules = kRecomputeCoreAttn;  // selective recompute's modules (Megatron-Core)
  MoeDispatcher dispatcher = MoeDispatcher::automatic;  // expert parallelism's token dispatcher (automatic: the framework's)
  bool a2a_overlap = false;  // Megatron-Core --overlap-moe-expert-parallel-comm (TrainConfig moe_a2a_overlap)
  Compile compile = Compile::automatic;  // torch.compile (automatic: the framework's)
};

// The run's row: its fixed layout timed under its framework profile, against the published tokens/s per GPU, with
// the planner's own choice for the same job on the same nodes beside it.
TimeReference framework_row(const FrameworkRun& r);

// perf_validation_long.cpp: NeMo's long-sequence tables (ring CP) and XTuner's Ulysses rows.
void add_nemo_long_sequence_rows(std::vector<TimeReference>& rows);
void add_xtuner_ulysses_rows(std::vector<TimeReference>& rows);

}  // namespace trainfit::perf_detail
