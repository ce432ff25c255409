// trainfit core — training-memory estimator (per GPU, bytes).
// Sources: ZeRO (Rajbhandari et al. 2020) for model states, Korthikanti et al. 2022 for activations.
// OWNER NOTE: this header is the contract the planner codes against; extend, do not rename.
#pragma once
#include <cstdint>
#include <vector>

#include "trainfit/common.h"
#include "trainfit/job.h"
#include "trainfit/model.h"

namespace trainfit {

// A concrete layout (no "automatic" left): what the planner tries.
struct MemoryLayout {
  int tp = 1, pp = 1, dp = 1, cp = 1;
  int zero = 0;                       // 0..3
  bool sequence_parallel = false;
  bool offload_optimizer = false;
  bool offload_params = false;
  Recompute recompute = Recompute::none;   // resolved: none | selective | full
  int64_t micro_batch = 1;
  int64_t num_microbatches = 1;       // gradient-accumulation steps (pipeline: micro-batches per step)
  int gpus_per_node = 1;              // for host RAM per node
};

struct MemoryBreakdown {
  // Per GPU, bytes. `total` is the expected peak; [total_low, total_high] is the band from validation errors.
  double weights = 0;
  double master_weights = 0;
  double gradients = 0;
  double optimizer_states = 0;
  double activations = 0;
  double logits = 0;                  // logits + loss buffers of the last stage
  double lora_adapters = 0;           // adapter weights + their grads + optimizer states
  double quantization = 0;            // QLoRA block constants and dequantisation buffers
  double overhead = 0;                // CUDA context, library workspaces
  double fragmentation = 0;           // allocator fragmentation allowance
  double total = 0;
  double total_low = 0;
  double total_high = 0;
  double host_ram_per_node_bytes = 0; // offloaded states + model loading
  ParamCounts params;
  std::vector<Warning> notes;         // e.g. params_only activations approximation
};

Result<MemoryBreakdown> estimate_memory(const ModelSpec& model, const TrainConfig& train,
                                        const MemoryLayout& layout);

}  // namespace trainfit
