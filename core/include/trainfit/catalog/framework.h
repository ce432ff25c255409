// trainfit core — framework profiles: what the trainer the user runs can launch, and the buffers
// it keeps. One table entry per framework (core/src/catalog/framework.cpp), each line with its source; the planner
// searches only what the profile supports and says "not supported by <framework>" for what it skipped, and the
// memory estimator adds the buffers the profile keeps. `generic` is the framework-free model of before.
#pragma once
#include <cstdint>
#include <string>

#include "trainfit/catalog/job.h"
#include "trainfit/catalog/model.h"

namespace trainfit {

// Bit s of FrameworkProfile::cp_schemes: CpScheme s.
constexpr unsigned cp_scheme_bit(CpScheme s) { return 1u << static_cast<int>(s); }

// Which parallel dimensions and ZeRO / FSDP stages a framework runs for one training method.
struct MethodSupport {
  bool supported = true;
  bool tp = true, pp = true, cp = true;  // tensor, pipeline, context parallel
  unsigned zero_stages = 0xF;            // bit s: ZeRO stage s (3 = FSDP full shard) with data parallelism
  bool zero3_pp = true;                  // ZeRO-3 combines with pipeline parallelism
  bool offload = true;                   // CPU offload of optimizer states / parameters
  bool multi_gpu = true;                 // more than one GPU at all
  bool ep = false;                       // expert parallelism for MoE models (the planner searches it)
  const char* ep_source = "";
  // Expert-parallel ranks are carved out of the FSDP x CP x TP ranks (torchtitan): without ZeRO-3 only CP x TP
  // remain to hold them.
  bool ep_from_fsdp = false;
  const char* note = "";                 // what it runs, in words (why-not text)
  const char* source = "";
};

struct FrameworkProfile {
  Framework id = Framework::generic;
  const char* name = "generic";  // catalog/names.h kFrameworks (the query's value)
  const char* title = "";
  MethodSupport full, lora, qlora;
  // Gradients accumulate in an fp32 buffer that lives for the whole run (Megatron-Core's main_grad with
  // accumulate_allreduce_grads_in_fp32, nanotron's fp32 gradient accumulator): 4 bytes per trained parameter
  // instead of 2, alive beside the activations at every micro-batch, and reduced in fp32.
  bool fp32_grad_buffer = false;
  const char* fp32_grad_source = "";
  // The loss over the vocabulary: fp32 buffers of tokens x vocab / tp alive at the peak beside the logits in the
  // compute dtype. PyTorch's cross_entropy on upcast logits (the Hugging Face path) keeps the fp32 log-softmax
  // and, at the start of backward, the fp32 gradients of the log-probs and of the logits: 3. Megatron-Core's
  // vocab-parallel cross-entropy upcasts once and works in place (exp, divide, then the gradient in the saved
  // softmax): 1.
  int loss_fp32_buffers = 3;
  // The trainer drops its reference to the logits before backward (torchtitan train.py: `del pred`), so the peak is
  // the larger of forward (logits + fp32 copy + log-softmax) and backward (the fp32 buffers alone).
  bool logits_freed_before_backward = false;
  const char* loss_source = "PyTorch F.cross_entropy = log_softmax + nll_loss on logits.float() (HF models)";
  // The loss runs over the sequence in this many chunks, each upcast and its cross-entropy computed alone: the fp32
  // log-softmax of every chunk is kept for backward (1 buffer), the other fp32 buffers exist for one chunk at a time.
  int loss_chunks = 1;
  // Each chunk's loss runs forward and backward at once on the detached hidden states (torchtitan's
  // ChunkedLossWrapper): one chunk's logits and loss buffers exist at a time, beside the fp32 gradient of the
  // hidden states, accumulated for every token; no chunk's log-softmax is kept.
  bool loss_chunk_backward = false;
  const char* loss_chunks_source = "";
  // FSDP2 (torch.distributed fully_shard): the root unit (the model itself: embedding, final norm and output head)
  // keeps its all-gathered 16-bit parameters from forward into backward (torch _fsdp_state.py _lazy_init: "For the
  // root, do not reshard after forward"), and the last transformer block is not resharded after
  // forward (torchtitan parallelize_llama.py: reshard_after_forward = layer_id < n_layers - 1): at the start of
  // backward, the root's and one block's full parameters are resident. Other stacks: two layers (current and
  // prefetched) and one layer's unsharded gradient.
  bool fsdp2_root_unit = false;
  const char* fsdp_source = "";
  // `recompute: selective` is an op-level selective-checkpoint policy (torchtitan's "op" SAC) instead of
  // Korthikanti's attention-core recompute: each layer keeps its input, the outputs of every other matmul
  // (the 1st, 3rd, 5th, ...: q, v, the MLP's first and last projections) and the attention kernel's output.
  bool selective_op_sac = false;
  const char* recompute_source = "";
  // Interleaved 1F1B with virtual pipeline stages (Narayanan et al. 2021 §2.2.2); the search tries it only for
  // frameworks that name it (generic accepts a fixed vp but does not search it).
  bool interleaved_pp = false;
  bool search_interleaved = false;
  // Pipeline stages of unequal layer counts: pp (x vp) need not divide the layers. The heaviest stage holds
  // v chunks of ceil(L / (p v)) layers (memory.cpp), and the pipeline runs at its pace (pipeline_stage_factor).
  // Frameworks without it need p v to divide L (the search tries only those degrees).
  bool uneven_pp = false;
  // Only the splits Megatron-LM's arguments express (megatron_pipeline_split); false: any split (torchtitan).
  bool uneven_pp_megatron = false;
  const char* uneven_pp_source = "";
  // Time model (planner_step.cpp step_time). TP collectives overlapped with the GEMMs by default
  // (Megatron-Core --tp-comm-overlap with Transformer Engine userbuffers); false: synchronous.
  bool tp_comm_overlap = false;
  const char* tp_comm_overlap_source = "";
  // With the distributed optimizer (ZeRO-1): gradient reduce-scatter behind the last backward and the updated
  // parameters' all-gather behind the next forward (Megatron-LM --overlap-grad-reduce --overlap-param-gather);
  // false: one all-reduce behind the last backward.
  bool dp_overlap_param_gather = false;
  // With ZeRO-1 the gradients are reduce-scattered bucket by bucket behind the last micro-batch's backward and the
  // updated parameters all-gathered after the optimizer step, synchronously: nothing hides the all-gather (nanotron:
  // DDP's comm hook on its fp32 gradient accumulator, then optim/zero.py _all_gather_params).
  bool zero1_gather_after_step = false;
  const char* zero1_gather_source = "";
  // Pipeline sends and receives of the interleaved schedule overlapped with the chunks' compute (Megatron-LM
  // --overlap-p2p-communication, on by default with virtual stages); false: synchronous.
  bool pp_p2p_overlap_interleaved = false;
  // Factor on the FP8 compute efficiency (perf.cpp compute_efficiency): the framework's FP8 layers against the
  // generic ceiling (calibrated on llm-foundry's FP8 rows). Derived from the profile's calibration rows in
  // perf_validation.cpp (their time-equivalent errors' geometric mean is 1; a test checks it); 1 = generic.
  double fp8_efficiency = 1.0;
  const char* fp8_efficiency_source = "";
  // Routed experts' grouped GEMMs against a dense GEMM of the same shape (planner_step.cpp step_time): routing,
  // token permutation / un-permutation (memory-bound copies of k x tokens x hidden) and the experts' tile tails.
  // Generic: fitted to trainfit's own H200 runs of Hugging Face transformers' grouped_mm experts
  // (bench/device/h200-2026-12-04); the frameworks': geometric mean over their MoE calibration rows
  // (perf_validation.cpp), like fp8_efficiency.
  double moe_efficiency = 0.60;
  const char* moe_efficiency_source = "bench/device/h200-2026-12-04: transformers 5.17 Qwen3-MoE grouped_mm on one H200";
  // Hopper (sm_90) only: the experts' grouped GEMM is one GEMM call per local expert, each with a fixed cost beside its
  // FLOPs (kernel launch, per-expert host work, small-GEMM tail). Each local expert runs 6 such calls per layer and
  // micro-batch (fc1 and fc2: forward, input gradient, weight gradient), so the experts' factor is
  // moe_call_efficiency x T / (T + 6 moe_gemm_call_s), T the expert's GEMMs at that factor (planner_step.cpp
  // fill_expert_terms), in place of moe_efficiency x the micro-batch factor: many narrow experts (Qwen3's 128 x 1,536)
  // pay per call, few wide ones (Mixtral's 8 x 14,336) run near the dense rate. 0 = not modelled.
  double moe_gemm_call_s = 0;
  double moe_call_efficiency = 0;
  const char* moe_gemm_call_source = "";
  // Fused attention end to end against the kernel's published rate (perf.h attention_efficiency): the backward's
  // dQ accumulation, the rotary / ALiBi and layout kernels around the attention call, causal tile imbalance.
  // Generic: fitted to llm-foundry's published long-context A100 rows (perf_validation.cpp, 32k-65k tokens,
  // calibration rows): the attention time those runs leave after their GEMMs is 0.56 of the kernel figure.
  // 0: the framework's factors were fitted with attention at the GEMM rate (no separate attention rate).
  double attention_end_to_end = 0.56;
  // The framework's attention is FlashAttention-2 on every GPU (transformers' flash_attn 2 / SDPA path), not a
  // Hopper-specific kernel: Hopper and Blackwell run at FA2's rate (perf.h attention_efficiency).
  bool attention_fa2 = false;
  // RMSNorm runs as a fused kernel that keeps its 16-bit input (Transformer Engine's RMSNorm and LayerNormLinear:
  // input, ln_out for the weight gradient (counted with the linear), rsigma); false: the Hugging Face RMSNorm, which
  // upcasts and keeps its fp32 input and the normalised tensor (memory.cpp norm_bytes).
  bool fused_rmsnorm = false;
  // The gated MLP's activation is one fused function that saves its gate-and-up input only (Megatron-Core
  // fusions/fused_bias_swiglu.py SwiGLUFunction: ctx.save_for_backward(input)); false: the eager SiLU(gate) * up.
  bool fused_swiglu = false;
  // Across nodes the token dispatcher sends a token once per destination node and fans it out inside the node
  // (DeepEP / HybridEP: Megatron-Core --moe-token-dispatcher-type flex); false: once per routed expert (the plain
  // all-to-all dispatcher).
  bool moe_dispatch_per_node = false;
  const char* moe_dispatch_source = "";
  // The routing scores are applied inside the experts' activation (Megatron-Core moe/experts.py TEGroupedMLP:
  // weighted_bias_swiglu_impl(fc1 output, bias, permuted_probs)): no expert output is kept for a score multiply after
  // the experts (Hugging Face MixtralSparseMoeBlock, torchtitan moe.py keep it), memory_activations.cpp.
  bool moe_probs_in_activation = false;
  // Without expert parallelism, an MoE layer's experts stay whole on every tensor-parallel rank instead of being
  // split by TP (the planner's layouts then run expert TP 1).
  bool moe_experts_whole_per_tp_rank = false;
  const char* moe_experts_source = "";
  // Seconds per GB (1e9 bytes) of a dispatch's or combine's tokens (k copies of the hidden state) that the
  // expert-parallel path spends beyond the all-to-all's transfer: host-synchronised split sizes, index-gather
  // permutations and the scatter-add combine of a dispatcher that is not fused (0: none beyond the transfer).
  double moe_dispatch_overhead_s_per_GB = 0;
  const char* moe_dispatch_overhead_source = "";
  // The trainer launches DeepEP's dispatcher when the job asks for it (TrainConfig moe_dispatcher deepep): fused
  // kernels, a token sent once per destination node, no overhead beyond the transfer.
  bool moe_deepep = false;
  const char* moe_deepep_source = "";
  // The router can cap each expert's tokens at a capacity factor and pad every expert to it (TrainConfig
  // moe_capacity_factor); false: dropless only.
  bool moe_capacity = false;
  const char* moe_capacity_source = "";
  // The trainer can overlap the expert-parallel all-to-alls with another micro-batch's compute (TrainConfig
  // moe_a2a_overlap).
  bool moe_a2a_overlap = false;
  const char* moe_a2a_overlap_source = "";
  // Context-parallel schemes the trainer launches (bit s: CpScheme s) and the one it uses when the query leaves
  // cp_scheme on auto.
  unsigned cp_schemes = cp_scheme_bit(CpScheme::ring);
  CpScheme cp_scheme = CpScheme::ring;
  const char* cp_scheme_source = "";
  // Its ring context parallelism runs under FSDP2 only (accelerate's context parallelism): ZeRO-2 or 3 as FSDP2's
  // reshard_after_forward false / true, CPU offload only as FSDP2's, of the parameters with the optimizer, and SDPA
  // attention (flash), not the eager attention.
  bool ring_cp_fsdp2 = false;
  // The shortest sequence at which the search also tries context parallelism (CP 2/4/8).
  int64_t cp_search_min_seq = 16384;
  const char* cp_search_source = "";
  // QLoRA loads the model as 16-bit weights on the GPU and quantizes it afterwards, one Linear at a time: while
  // loading, every parameter is resident at 16 bits plus a 16-bit clone of the matrix being quantized (Lightning
  // Fabric plugins/precision/bitsandbytes.py convert_module: _quantize_weight(child.weight.data.clone())). The
  // estimate's peak is then the larger of this load peak and the training step (memory_stages.cpp load_peak).
  bool qlora_loads_16bit = false;
  const char* load_source = "";
  // torch.compile (TrainConfig::compile): the trainer compiles its blocks by default (compile_source says where), and
  // the profile's rates and memory are fitted to compiled runs. A job run eager gets its GEMMs at eager_efficiency of
  // the compiled rate (perf.cpp compute_efficiency) and, under op-level selective checkpointing, each layer's
  // attention inputs kept (memory_activations.cpp op_sac_terms). false: the profile is eager only, fitted to eager
  // runs (a query cannot turn compile on).
  bool compiles = false;
  double eager_efficiency = 1.0;
  const char* compile_source = "";
  const char* source = "";       // the framework's documentation
  const MethodSupport& method(Method m) const { return m == Method::full ? full : m == Method::lora ? lora : qlora; }
};

const FrameworkProfile& framework_profile(Framework f);
inline bool runs_cp_scheme(const FrameworkProfile& f, CpScheme s) { return (f.cp_schemes & cp_scheme_bit(s)) != 0; }

// The chunks the logits and loss run in: the query's loss_chunks, or the framework's default when it is 0.
int resolved_loss_chunks(const TrainConfig& train);
// Whether the job runs under torch.compile: the query's compile, or its framework's default when it says auto.
bool resolved_compile(const TrainConfig& train);
// Bytes per gradient element of the data-parallel buffer (what is kept and reduced) for a job whose gradients are
// otherwise `dtype_bytes` wide: 4 where the job reduces in fp32 (TrainConfig::grad_reduce, or the framework's
// fp32_grad_buffer by default), 2 where it asks for bf16 and its gradients are 16-bit, else dtype_bytes.
double grad_element_bytes(const TrainConfig& train, double dtype_bytes);
// The context-parallel scheme the job runs: the query's, or its framework's when the query says auto.
CpScheme resolved_cp_scheme(const TrainConfig& train);
// How the job's expert-parallel tokens travel (TrainConfig moe_dispatcher, or its framework's when the query says
// auto): across nodes once per destination node (DeepEP's class) or once per routed expert, and the framework's own
// seconds per GB dispatched beyond the transfer. Padding to a capacity factor runs on the plain all-to-all.
struct MoeDispatch {
  bool per_node = false;
  double overhead_s_per_GB = 0;
};
MoeDispatch resolved_moe_dispatch(const TrainConfig& train);
// Whether an expert-parallel layout of `ep` ranks on nodes of `gpus_per_node` runs DeepEP (Megatron-Core's flex
// dispatcher): asked for, or the framework's default across nodes; never without EP or with padding to capacity.
// The plan text names it and the Megatron arguments launch it.
bool runs_deepep(const TrainConfig& train, int ep, int gpus_per_node);
// Why a layout cannot run with the all-to-all overlap the job asks for (TrainConfig moe_a2a_overlap; "" = it can, or
// the job does not ask): Megatron-Core's checks (megatron/core/transformer/transformer_config.py
// overlap_moe_expert_parallel_comm): expert parallelism, virtual pipeline stages whenever PP > 1. Its third rule, no
// full recompute, is the job's (query_check.cpp) and the search's (planner_layouts.cpp add_layout).
std::string a2a_overlap_layout_error(const TrainConfig& train, int ep, int pp, int vp);
// Whether the overlap applies to a layout of `ep` expert-parallel ranks (asked for, and EP > 1).
inline bool runs_a2a_overlap(const TrainConfig& train, int ep) { return train.moe_a2a_overlap && ep > 1; }
// Why the job's recompute_modules cannot run ("" = they can, or they are the default): Megatron-Core's own rules
// (megatron/core/transformer/transformer_config.py, recompute_modules checks), plus trainfit's: only megatron-core
// recomputes by module. Under recompute none or full the list is ignored, as Megatron ignores it outside
// --recompute-granularity selective (so a layout the planner chose under auto can be fixed with its query).
std::string recompute_modules_error(const ModelSpec& model, const TrainConfig& train);
// Every profile, `generic` first (docs, CLI help, UI).
const FrameworkProfile* framework_profiles(int* count);

// Transformer layers on the heaviest pipeline stage: vp chunks of ceil(layers / (pp vp)) layers (layers / pp when
// pp x vp divides them; all of them without a pipeline).
int64_t pipeline_stage_layers(int64_t layers, int pp, int vp);
// Whether `framework` splits `layers` over pp x vp stages: they divide evenly, or the framework runs uneven stages
// (FrameworkProfile::uneven_pp); every chunk needs at least one layer.
bool pipeline_split_ok(const FrameworkProfile& fw, int64_t layers, int pp, int vp);
// How Megatron-LM splits `layers` over pp x vp chunks (megatron/training/arguments.py): evenly
// (--num-layers-per-virtual-pipeline-stage); with the embedding and / or the loss counted as a layer
// (--account-for-embedding-in-pipeline-split, --account-for-loss-in-pipeline-split: L + 2 or L + 1 divides into
// pp x vp chunks, --num-virtual-stages-per-pipeline-rank); or, without virtual stages, with the first and last stages'
// own counts (--decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers; the middle stages ceil(L / pp)
// each). ok = false: none of these gives every chunk a layer.
struct MegatronPipelineSplit {
  bool ok = false;
  bool even = false;
  bool embedding_counted = false, loss_counted = false;
  int64_t first = 0, last = 0;  // > 0: the first / last stage's layer counts
};
MegatronPipelineSplit megatron_pipeline_split(int64_t layers, int pp, int vp);

// The heaviest stage's compute against an even split (>= 1; 1 when pp x vp divides the layers): the pipeline runs
// at the pace of its slowest stage. The better of two splits: ceil(L / (p v)) layers per chunk, or the embedding
// and the loss counted as one layer each (Megatron-Core --account-for-embedding-in-pipeline-split /
// --account-for-loss-in-pipeline-split; torchtitan generate_llm_fqn_per_model_part input_weight = output_weight
// = 1): ceil((L + 2) / (p v)) layer-equivalents per chunk over (L + 2) / (p v).
double pipeline_stage_factor(int64_t layers, int pp, int vp);

// Whether ep x etp expert-parallel ranks divide the ranks a framework carves them from when it takes them out of its
// FSDP x CP x TP ranks (MethodSupport::ep_from_fsdp; torchtitan parallel_dims.py: efsdp = dp_shard x cp x tp /
// (ep x etp) whole): the data-parallel ranks count only when they shard (ZeRO-3).
bool ep_fits_fsdp_ranks(int tp, int cp, int dp, int zero, int ep, int etp = 1);

// Why `framework` cannot run this layout for `method` ("" = it can): e.g. "TP 2 is not supported by hf-trainer
// for QLoRA (DDP or FSDP only)".
std::string framework_layout_error(Framework framework, Method method, int tp, int pp, int cp, int dp, int zero,
                                   bool offload, int ep = 1, CpScheme cp_scheme = CpScheme::ring);

// Why a ring that `framework` runs under FSDP2 only (FrameworkProfile::ring_cp_fsdp2) cannot take this attention or
// offload (the field and the message; empty when it can, or when cp <= 1, the scheme is Ulysses or the ring is not
// FSDP2's). Its ZeRO stage is framework_layout_error's.
Error ring_fsdp2_error(Framework framework, CpScheme scheme, int cp, Attention attention, bool offload_optimizer,
                       bool offload_params);

}  // namespace trainfit
