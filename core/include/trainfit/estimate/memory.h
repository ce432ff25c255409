// trainfit core — training-memory estimator (per GPU, bytes).
// Sources: ZeRO (Rajbhandari et al. 2020) for model states, Korthikanti et al. 2022 for activations.
// OWNER NOTE: this header is the contract the planner codes against; extend, do not rename.
#pragma once
#include <cstdint>
#include <vector>

#include "trainfit/base/common.h"
#include "trainfit/catalog/framework.h"
#include "trainfit/catalog/job.h"
#include "trainfit/catalog/model.h"

namespace trainfit {

// A concrete layout (no "automatic" left): what the planner tries.
struct MemoryLayout {
  int tp = 1, pp = 1, dp = 1, cp = 1;
  int vp = 1;                         // virtual pipeline stages per rank (interleaved 1F1B)
  int ep = 1;                         // expert parallel: the routed experts split over ep ranks (MoE)
  int etp = 0;                        // expert tensor parallel; 0 = tp (job.h ParallelConfig)
  // Which pipeline rank to estimate: 0 (first stage) .. pp - 1 (last stage); -1 = the worst one, what must fit
  // (the default). Megatron-LM logs the last rank's peak (validation.cpp), so its rows ask for pp - 1.
  int pp_rank = -1;
  int zero = 0;                       // 0..3
  bool sequence_parallel = false;
  bool cp_ulysses = false;            // CP by Ulysses all-to-alls, not a ring (job.h CpScheme; the plan text names it)
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
  double zero3_gathered = 0;          // ZeRO-3/FSDP: gathered layer params (+ prefetch) and one unsharded layer grad
  double moe_dispatch = 0;            // MoE token dispatch: all-to-all send / receive buffers of one layer (ep > 1)
  double overhead = 0;                // CUDA context, library workspaces
  double fragmentation = 0;           // allocator fragmentation allowance
  double total = 0;
  double total_low = 0;
  double total_high = 0;
  double host_ram_per_node_bytes = 0; // offloaded states + model loading
  // What torch.cuda.max_memory_allocated() would report: total without the CUDA context / NCCL overhead
  // and without fragmentation (those live outside the caching allocator's allocated bytes).
  double allocated_peak = 0;
  // While the model is loaded (framework.h qlora_loads_16bit): the allocated bytes at the load's peak, 0 when the
  // framework loads without one above the training step's. load_sets_peak: it is larger than the training step,
  // so total and allocated_peak are the load's (the components then describe the training step).
  double load_peak = 0;
  bool load_sets_peak = false;
  double activations_per_layer = 0;   // one layer, one micro-batch, as stored (after recompute/TP/SP/CP)
  int64_t layers_per_stage = 0;       // layers on the worst pipeline stage
  int64_t microbatches_in_flight = 1; // 1F1B: min(pp, num_microbatches) on the first stage
  double interleave_factor = 1;       // interleaved 1F1B: the first stage's activations x (1 + (p-1)/(p v))
                                      // (at most m v chunk passes: pipeline_chunk_passes_in_flight)
  ParamCounts params;
  std::vector<Warning> notes;         // e.g. params_only activations approximation
};

// The components of a breakdown, in display order: one table for the JSON document (`key`), the CLI table and
// the UI's memory bar (`label`). With the total's other parts (none) they add up to allocated_peak + overhead +
// fragmentation, except that with one micro-batch and no pipeline the gradients and the activations peak at
// different moments (the peak counts the larger: memory_stages.cpp, peak_and_totals).
struct MemoryComponent {
  const char* label;
  const char* key;
  double MemoryBreakdown::*bytes;
};
inline constexpr MemoryComponent kMemoryComponents[] = {
    {"weights", "weights_bytes", &MemoryBreakdown::weights},
    {"fp32 master weights", "master_weights_bytes", &MemoryBreakdown::master_weights},
    {"gradients", "gradients_bytes", &MemoryBreakdown::gradients},
    {"optimizer states", "optimizer_states_bytes", &MemoryBreakdown::optimizer_states},
    {"activations", "activations_bytes", &MemoryBreakdown::activations},
    {"MoE dispatch buffers", "moe_dispatch_bytes", &MemoryBreakdown::moe_dispatch},
    {"logits + loss", "logits_bytes", &MemoryBreakdown::logits},
    {"LoRA adapters", "lora_adapters_bytes", &MemoryBreakdown::lora_adapters},
    {"quantization", "quantization_bytes", &MemoryBreakdown::quantization},
    {"ZeRO-3 gathered layers", "zero3_gathered_bytes", &MemoryBreakdown::zero3_gathered},
    {"runtime overhead", "overhead_bytes", &MemoryBreakdown::overhead},
    {"fragmentation", "fragmentation_bytes", &MemoryBreakdown::fragmentation},
};
inline constexpr int kMemoryComponentCount = int(sizeof kMemoryComponents / sizeof kMemoryComponents[0]);

// Chunk passes (forwards of one model chunk, L / (p v) layers, for one micro-batch) whose activations pipeline
// rank r (0 .. p-1) holds at its peak under Megatron-Core's schedules (megatron/core/pipeline_parallel/
// schedules.py): 1F1B warms up with p - r - 1 forwards and runs one more before its first backward, min(m, p - r)
// (Narayanan et al. 2021 §2.2.1: the first stage holds p, the last 1); interleaved 1F1B with v chunks per rank
// warms up with 2 (p - r - 1) + (v - 1) p passes (microbatch_group_size_per_vp_stage = p by default), + 1, at
// most all m v passes of the step. On the first stage that is (1 + (p - 1) / (p v)) x p x (L / p) layers' worth
// (Korthikanti et al. 2022 §4.2.3) when m v is large enough.
int64_t pipeline_chunk_passes_in_flight(int pp, int vp, int rank, int64_t num_microbatches);

// Why expert parallelism ep with expert tensor parallelism etp (0 = tp) does not split this model over
// tp x cp x dp ranks (an empty message when it does): ep must divide the experts, ep x etp the TP x CP x DP ranks
// (Megatron-Core parallel_state.py), etp the expert MLP width. The field names the query key.
Error expert_layout_error(const ModelSpec& model, int tp, int cp, int dp, int ep, int etp);
// Why a context-parallel degree cannot run the scheme on this model ("" message = it can): Ulysses needs cp to
// divide the attention heads per TP rank.
Error cp_layout_error(const ModelSpec& m, int tp, int cp, CpScheme scheme);

Result<MemoryBreakdown> estimate_memory(const ModelSpec& model, const TrainConfig& train,
                                        const MemoryLayout& layout);

// estimate_memory for many layouts of one job (the planner checks dozens per instance type): the work that
// does not depend on the layout (parameter counts, LoRA target counts, per-token activation terms) is done
// once, without allocating. estimate(layout) returns exactly what estimate_memory(model, train, layout)
// returns, errors included. `model` and `train` must outlive the estimator and stay unchanged.
namespace memory_detail {
struct Method {  // what the training method keeps (memory.cpp method_flags)
  bool full = false, qlora = false;
  LoraCounts lora;
};
struct ActivationTerms {  // bytes per token of one layer before micro-batch, TP, SP, CP and recompute
  double rep = 0, split = 0, score_coef = 0, e = 0, h = 0, heads = 0;
  // The routed experts' part of split: their rows grow with a capacity factor or an imbalance (job.h moe_rows_factor).
  double routed_split = 0;
  // Selective recompute by op policy (framework.h selective_op_sac): what the policy saves, per token.
  double op_sac_rep = 0, op_sac_split = 0;
  // ...and, with expert parallelism, the all-to-all outputs it saves (the policy keeps communication results).
  double op_sac_ep = 0;
  // ...or, under DeepEP, its dispatch's outputs per row received (a token once per destination EP rank) and its
  // combine's output per token; with the experts and their top-k, which set the destination ranks per token.
  double op_sac_deepep_row = 0, op_sac_deepep_token = 0, experts = 0, topk = 0;
  // Selective recompute by module (TrainConfig::recompute_modules, Megatron-Core): what the named modules drop,
  // per token (replicated and TP-split parts), and whether the attention scores are still kept (no core_attn).
  double module_drop_rep = 0, module_drop_split = 0;
  double module_drop_routed = 0;  // the routed experts' part of module_drop_split
  bool keeps_scores = false;
  bool amp = false;
};
}  // namespace memory_detail

class MemoryEstimator {
 public:
  MemoryEstimator(const ModelSpec& model, const TrainConfig& train);
  Result<MemoryBreakdown> estimate(const MemoryLayout& layout) const;
  // The same into a breakdown the caller reuses (no breakdown built and moved per call: the planner's memory
  // checks). false on error (then `error`, if given, says why and `out` is unspecified).
  bool estimate(const MemoryLayout& layout, MemoryBreakdown& out, Error* error = nullptr) const;

 private:
  const ModelSpec* model_;
  const TrainConfig* train_;
  Result<ParamCounts> counts_;
  Result<memory_detail::Method> method_;
  memory_detail::ActivationTerms terms_;
};

// Activation bytes of one transformer layer for one micro-batch on one GPU, split the way Korthikanti et
// al. 2022 (Sec. 4) split it: a part TP does not divide without sequence parallelism, a part TP divides,
// and the attention-score part that grows with s^2 (eager attention only). Exposed for tests and the UI.
struct LayerActivations {
  double replicated = 0;     // bytes per layer not divided by TP unless sequence parallel (norms, linear inputs)
  double split = 0;          // bytes per layer divided by TP
  double scores = 0;         // eager attention s^2 term, divided by TP; 0 with FlashAttention or selective recompute
  double stored = 0;         // what the layer keeps until backward after recompute, TP, SP, CP
  double no_recompute = 0;   // the same layer without recompute (the working set while recomputing)
  double module_dropped = 0; // what Megatron-Core's module recompute dropped: rebuilt for one layer in its backward
};
Result<LayerActivations> layer_activations(const ModelSpec& model, const TrainConfig& train,
                                           const MemoryLayout& layout);

// Defaults for the runtime overhead (TrainConfig.overhead_bytes / fragmentation < 0 select them).
// CUDA context with lazy module loading (CUDA >= 11.7) plus cuBLAS/cuDNN workspaces: ~0.5-0.9 GiB on
// Ampere/Hopper as nvidia-smi shows for an idle PyTorch process; NCCL communicators add their buffers
// (NCCL_BUFFSIZE 4 MiB per channel and peer) when more than one GPU takes part.
inline constexpr double kDefaultCudaOverheadBytes = 0.75 * kGiB;
inline constexpr double kDefaultNcclOverheadBytes = 0.5 * kGiB;
inline constexpr double kDefaultFragmentation = 0.05;  // of the dynamic part (activations, logits, grads)

// The uncertainty band: total_low = total * kBandLowFactor, total_high = total * kBandHighFactor. The
// factors follow from the measured errors of the validation references (memory.cpp: band_factors_from_errors);
// validation_test recomputes them from validation.cpp's rows and fails when they drift.
extern const double kBandLowFactor;
extern const double kBandHighFactor;
// The rule, exposed for that test: q = the 90th percentile (nearest rank) of |estimate / measured - 1| over
// the measured rows, rounded up to 0.5%; the true peak then lies in [est / (1 + q), est / (1 - q)] for 9 runs
// in 10. Returns {low factor, high factor}; {1, 1} for no rows.
struct BandFactors {
  double low = 1, high = 1, q = 0;
};
BandFactors band_factors_from_errors(const std::vector<double>& relative_errors);

// The fit verdict: one definition for every surface (estimate, plan, rank, why_not, UI).
//   fits    the band's top is under the usable memory;
//   tight   the expected peak is under it, the band's top is not ("may run out of memory");
//   no_fit  the expected peak is over it.
// Usable memory = the driver-reported capacity (gpu_capacity_bytes) x (1 - headroom). The CUDA context,
// NCCL buffers and allocator fragmentation are already in the estimate, so headroom defaults to 0.
enum class FitVerdict { fits, tight, no_fit };
const char* to_string(FitVerdict v);
inline double usable_bytes(double capacity_bytes, double headroom) { return capacity_bytes * (1.0 - headroom); }
FitVerdict fit_verdict(const MemoryBreakdown& m, double usable);
// The judged figure for a level: the expected peak (FitLevel::expected: fits or tight) or the band's top
// (FitLevel::safe: fits only).
enum class FitLevel { expected, safe };
inline double judged_bytes(double total, double total_high, FitLevel level) {
  return level == FitLevel::safe ? total_high : total;
}
inline double judged_bytes(const MemoryBreakdown& m, FitLevel level) { return judged_bytes(m.total, m.total_high, level); }

// Inverse questions (bounded binary searches; never loop more than ~64 estimates). 0 = not even 1 fits.
// max_micro_batch searches 1..limit with train.seq_len; max_seq_len searches 1..limit with layout.micro_batch.
// `usable` is usable_bytes(capacity, headroom); `level` says whether the expected peak or the band's top must
// stay under it (the UI and the estimate document give both).
Result<int64_t> max_micro_batch(const ModelSpec& model, const TrainConfig& train, const MemoryLayout& layout,
                                double usable, FitLevel level, int64_t limit = 65536);
Result<int64_t> max_seq_len(const ModelSpec& model, const TrainConfig& train, const MemoryLayout& layout,
                            double usable, FitLevel level, int64_t limit = int64_t(1) << 22);

// The scheme `l` splits its sequence in where it does (cp > 1: its cp_ulysses, a plan's may be the framework's other
// one), else the job's (framework.h resolved_cp_scheme).
inline CpScheme layout_cp_scheme(const MemoryLayout& l, const TrainConfig& t) {
  return l.cp > 1 ? (l.cp_ulysses ? CpScheme::ulysses : CpScheme::ring) : resolved_cp_scheme(t);
}

// The longest sequence with context parallelism added to `layout` (CP 2, 4 and 8 times its own, each CP rank one
// more GPU), for the degrees the framework runs and the model allows (cp_layout_error): in the layout's own scheme
// where it already splits the sequence, else the job's (framework.h resolved_cp_scheme), and on cp_scheme auto the
// framework's other scheme for a degree its default cannot run (as the planner tries both). 0 = not even the
// shortest fits.
struct CpReach {
  int cp = 1;
  int64_t gpus = 1;
  int64_t max_seq_len = 0, max_seq_len_safe = 0;
  CpScheme scheme = CpScheme::ring;
};
std::vector<CpReach> max_seq_len_by_cp(const ModelSpec& model, const TrainConfig& train, const MemoryLayout& layout,
                                       double usable);

}  // namespace trainfit
