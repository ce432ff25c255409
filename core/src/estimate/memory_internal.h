// trainfit core — what the memory estimator's files share: element sizes, the per-layer activation formulas'
// entry points (memory_activations.cpp) and the stages of MemoryEstimator::estimate (memory_stages.cpp).
// Internal to the core.
#pragma once
#include <cstdint>

#include "trainfit/catalog/framework.h"
#include "trainfit/estimate/memory.h"

namespace trainfit::memory_detail {

// ---- element sizes ----

// "auto" precision has bf16-mixed's memory (fp16-mixed's is the same: 2-byte weights, gradients and
// activations, fp32 master and states), so the estimator needs no GPU to resolve it.
inline Precision prec_of(const TrainConfig& t) {
  return t.precision == Precision::automatic ? Precision::bf16_mixed : t.precision;
}

inline double act_bytes(Precision p) { return p == Precision::fp32 ? 4.0 : 2.0; }

// PyTorch autocast runs layer_norm and softmax in fp32 ("CUDA Ops that can autocast to float32",
// PyTorch docs, torch.amp), so under autocast their saved tensors are 4-byte.
inline bool autocast_on(const TrainConfig& t) {
  return t.autocast && (prec_of(t) == Precision::bf16_mixed || prec_of(t) == Precision::fp16_mixed);
}

// Bytes one norm keeps per token and hidden element. LayerNorm (fused kernel): its input (Korthikanti: 2sbh per LayerNorm).
// Hugging Face RMSNorm (LlamaRMSNorm and kin) upcasts to fp32 and keeps that fp32 input; a trainable
// weight also keeps the normalised 16-bit tensor (mul saves the other operand only if it needs a grad).
inline double norm_bytes(const ModelSpec& m, Precision p, bool trainable_weight, bool autocast = false,
                         bool fused = false) {
  const double e = act_bytes(p);
  // A fused norm kernel (LayerNorm; Transformer Engine's RMSNorm / LayerNormLinear, framework.h fused_rmsnorm) keeps
  // its 16-bit input and a per-token statistic, and recomputes the normalised tensor in backward.
  if (m.norm == Norm::layernorm || fused) return autocast ? 4.0 : e;
  return 4.0 + (trainable_weight ? e : 0.0);
}

// ---- per-layer activations (memory_activations.cpp) ----

// The layout-independent part of layer_activations: bytes per token of one layer (replicated, TP-split,
// eager-score coefficient), before the micro-batch, TP, SP, CP and recompute are applied (finish_activations).
ActivationTerms activation_terms(const ModelSpec& m, const TrainConfig& t, const Method& fl);
LayerActivations finish_activations(const ActivationTerms& terms, const TrainConfig& t, const MemoryLayout& l);

// ---- estimate stages (memory_stages.cpp) ----

// What every stage reads: the job, the layout and the layout-independent work.
struct StageJob {
  const ModelSpec& model;
  const TrainConfig& train;
  const MemoryLayout& layout;
  const Method& fl;
  const ParamCounts& pc;
  const FrameworkProfile& fw;
  Precision prec;   // prec_of(train)
  bool amp;         // autocast_on(train)
};

// Parameters on this GPU (stage_share).
struct StageShare {
  double L = 0, tp = 1, dp = 1;     // layers; TP; the ranks ZeRO shards over (dp x cp)
  int64_t layers_stage = 0;         // layers on the heaviest pipeline stage
  // Megatron's uneven split of the stages (framework.h megatron_pipeline_split), where the framework runs one and
  // pp x vp does not divide the layers (uneven_megatron); otherwise every chunk is counted with layers_stage / vp.
  MegatronPipelineSplit megatron_split;
  bool uneven_megatron = false;
  bool one_rank = false, is_first = true, is_last = true;  // a named pipeline rank (layout.pp_rank), and which
  double stage_params = 0;          // parameters on this GPU
  double layer_local = 0;           // one layer's parameters on this GPU
  double zdiv = 1;                  // what ZeRO divides this GPU's model states by
  double stage_frac = 0;            // share of the model on this GPU
  double lora_local = 0;            // adapter parameters on this GPU
};
StageShare stage_share(const StageJob& j, double trainable);

// Bytes per element of the model states (element_bytes).
struct ElementBytes {
  double w_bytes = 0, g_bytes = 0, master_bytes = 0, opt_per_param = 0;
};
ElementBytes element_bytes(const StageJob& j);

// Model states on this GPU, and what is offloaded to host memory (model_states).
struct ModelStates {
  double weights = 0, master = 0, grads = 0, states = 0, lora = 0, quant = 0, host_offload = 0, gathered = 0;
};
ModelStates model_states(const StageJob& j, const StageShare& s, const ElementBytes& b);

// Per-token sizes the activation stages share (token_dims).
struct TokenDims {
  double e = 2, tokens = 0, rep_div = 1, h = 0;
  bool encoder = false;
};
TokenDims token_dims(const StageJob& j, const StageShare& s);

// The layer stack's activations on the first and the last pipeline stage (stage_activations); sets the
// breakdown's microbatches_in_flight, interleave_factor and activations_per_layer.
struct StageActivations {
  double first_acts = 0, last_acts = 0, working = 0;
  double middle_acts = 0;  // a middle rank's, where an uneven split gives the first rank fewer layers (else 0)
  int extra_passes = 0;  // chunk passes the all-to-all overlap warms up beyond the schedule's (stage_scale)
};
StageActivations stage_activations(const StageJob& j, const StageShare& s, const TokenDims& d,
                                   const LayerActivations& la, const ActivationTerms& terms, MemoryBreakdown& r);

// Logits and loss buffers of the last stage (logits_bytes).
double logits_bytes(const StageJob& j, const StageShare& s, const TokenDims& d);

// What this GPU holds of activations and logits, with the MoE dispatch and SP gather buffers (place_activations).
struct GpuActivations {
  double acts_gpu = 0, logits_gpu = 0, dispatch = 0;
};
GpuActivations place_activations(const StageJob& j, const StageShare& s, const TokenDims& d,
                                 const StageActivations& sa, double logits, const LayerActivations& la);

// The peak, overhead, fragmentation and band into the breakdown (peak_and_totals).
void peak_and_totals(const StageJob& j, const StageShare& s, const ModelStates& ms, const GpuActivations& ga,
                     const TokenDims& d, MemoryBreakdown& r);

// Host RAM per node: model loading or offloaded states (host_ram_per_node).
// The peak while the model is loaded, folded into the totals when it is the larger (load_peak).
void load_peak(const StageJob& j, MemoryBreakdown& r);
double host_ram_per_node(const StageJob& j, double host_offload);

}  // namespace trainfit::memory_detail
