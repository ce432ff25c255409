// trainfit core — the job a user describes: the model, how it is trained, on how much data.
// These are plain aggregates shared by every estimator; query.h turns JSON / URL hashes into them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace trainfit {

// ---------------------------------------------------------------------------------------------
// Model architecture. Field names follow Hugging Face config.json so presets read like the source.
// The architecture is a set of orthogonal knobs (mlp, norm, positional, bias, block, qk_norm, sliding window,
// MoE layout, MLA); a family (`arch`) is the set of defaults for them (family_spec in model.h) plus the few
// tensors no knob describes (OPT's position offset, BERT's token types and pooler).
enum class Arch {
  gpt2,    // learned positions, LayerNorm, GELU 4h MLP, biases everywhere, tied embeddings
  llama,   // RoPE, RMSNorm, SwiGLU (gate/up/down) with explicit intermediate_size, no biases, GQA
  qwen2,   // llama + q/k/v biases
  mistral, // llama layout (sliding window does not change parameter count)
  mixtral, // llama attention + MoE SwiGLU experts + router
  gemma2,  // llama-like with GeGLU, extra post-norms (sandwich block), tied embeddings
  phi3,    // fused qkv and gate_up (same count as llama)
  falcon,  // parallel attention + MLP with a shared LayerNorm, multi-query, GELU 4h MLP
  opt,     // learned positions (offset 2), LayerNorm, ReLU 4h MLP, biases
  bert,    // encoder-only: word + position + token-type embeddings, LayerNorm, GELU MLP, pooler
  qwen3,   // llama + per-head q/k RMSNorm (qwen3, qwen3_moe)
  gemma3,  // gemma2 + per-head q/k RMSNorm, sliding window on 5 of 6 layers
  olmo2,   // llama with post-norms (norm after each sublayer) and full-width q/k RMSNorm
  deepseek_v3,  // multi-head latent attention, MoE with a shared expert and dense first layers
  gpt_oss, // attention biases and sinks, alternating 128-token sliding window, MoE with biased experts
  llama4,  // llama + MoE with a shared expert on every n-th layer
  params_only,  // only a parameter count is known ({"params": 7e9})
};

enum class Mlp { gelu, relu, swiglu, geglu };          // gated: swiglu, geglu (gate, up, down)
enum class Norm { layernorm, rmsnorm };                // LayerNorm has weight + bias, RMSNorm a weight
enum class Positional { learned, rope, alibi, none };  // only `learned` has parameters
enum class Bias { none, qkv, attention, all };         // which linears carry biases (all: every linear)
enum class Block { pre, post, sandwich, parallel };    // norm placement: pre-norm, post-norm (OLMo 2),
                                                       // pre + post (Gemma), one shared norm (Falcon)
enum class QkNorm { none, head, full };                // RMSNorm on q and k: per head (Qwen3, Gemma 3) or
                                                       // over the whole projection (OLMo 2)

struct ModelSpec {
  std::string id;        // preset id ("llama-3-8b") or "custom"
  std::string name;      // display name
  std::string hf_id;     // Hugging Face repo id, when known
  Arch arch = Arch::llama;
  int64_t hidden_size = 0;
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;          // == num_heads for MHA, 1 for MQA
  int64_t head_dim = 0;              // 0 = hidden_size / num_heads
  int64_t intermediate_size = 0;     // MLP inner size (dense layers; MoE experts too unless moe_intermediate_size)
  int64_t vocab_size = 0;
  int64_t max_position_embeddings = 0;
  int64_t rope_theta = 0;            // rotary base (config.json rope_theta); 0 = not given (no rotary, or unknown)
  int64_t rope_llama3_factor = 0;    // Llama 3.x rope scaling (config.json rope_scaling, rope_type "llama3"): its
                                     // factor (8 for 3.1 / 3.3, 32 for 3.2); 0 = none
  bool tie_embeddings = false;
  int64_t num_experts = 1;           // 1 = dense
  int64_t experts_per_token = 1;     // top-k routing
  int64_t type_vocab_size = 0;       // BERT token types
  // Knobs (defaults: the llama family; family_spec(arch) gives every family's).
  Mlp mlp = Mlp::swiglu;
  Norm norm = Norm::rmsnorm;
  Positional positional = Positional::rope;
  Bias bias = Bias::none;
  Block block = Block::pre;
  QkNorm qk_norm = QkNorm::none;
  bool dropout = false;              // trained with dropout (GPT-2, OPT, BERT configs: 0.1)
  bool attention_sinks = false;      // one learned logit per head and layer (gpt-oss)
  int64_t sliding_window = 0;        // tokens a windowed layer attends to; 0 = full attention everywhere
  int64_t global_every = 0;          // with a window: every n-th layer attends fully (Gemma 3: 6, gpt-oss: 2);
                                     // 0 = every layer is windowed
  int64_t moe_intermediate_size = 0; // expert MLP width; 0 = intermediate_size
  int64_t shared_expert_intermediate_size = 0;  // width of the always-active shared expert MLP; 0 = none
  int64_t first_k_dense = 0;         // the first k layers are dense (DeepSeek first_k_dense_replace)
  int64_t moe_layer_step = 1;        // every n-th layer of the rest is MoE (Llama 4 interleave_moe_layer_step)
  // Multi-head latent attention (DeepSeek-V2/V3); kv_lora_rank > 0 turns it on.
  int64_t q_lora_rank = 0;           // 0 = a plain q_proj
  int64_t kv_lora_rank = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;
  int64_t v_head_dim = 0;
  double params = 0;                 // params_only: the total count; otherwise filled by count_params

  bool operator==(const ModelSpec&) const = default;
};

// ---------------------------------------------------------------------------------------------
// How the model is trained.
enum class Method { full, lora, qlora };
// automatic ("auto", the default): bf16-mixed on GPUs with BF16 tensor cores, fp16-mixed with loss scaling on
// the others (T4, V100, Turing), as the training frameworks' "auto" mixed precision does (PyTorch Lightning
// precision="16-mixed"/"bf16-mixed" by torch.cuda.is_bf16_supported(); HF Trainer's docs: bf16 needs Ampere or
// newer). Resolved per GPU by resolve_precision (perf.h); the plan names the precision it chose.
enum class Precision { fp32, bf16_mixed, fp16_mixed, bf16, fp8_mixed, automatic };
enum class Optimizer { adamw, adamw_8bit, sgd, sgd_momentum, adafactor, lion };
enum class Recompute { none, selective, full, automatic };
enum class Attention { flash, eager };
// The data-parallel gradient buffer's dtype, reduced in it: automatic = the framework's default (framework.h
// fp32_grad_buffer: Megatron-Core and nanotron fp32, the others the parameters' dtype); fp32 (Megatron-Core
// DistributedDataParallelConfig.grad_reduce_in_fp32 = True); bf16 (--grad-reduce-in-bf16: the 16-bit dtype).
enum class GradReduce { automatic, fp32, bf16 };
// torch.compile of the model (torchtitan [compile] enable): automatic = the framework's (framework.h compiles: on under
// torchtitan, whose profile is fitted to compiled runs; every other profile is eager); on / off. Eager, torchtitan's
// GEMMs run below their compiled rate and its op-level selective checkpointing keeps more (framework.h
// eager_efficiency, memory_activations.cpp op_sac_terms).
enum class Compile { automatic, on, off };
// How context parallelism splits attention (framework.h cp_schemes): automatic = the framework's; ring = every rank
// keeps seq/cp tokens of every head and passes K/V blocks around a ring (Liu et al. 2023, Ring Attention;
// Megatron-Core CP p2p, torchtitan, ring-flash-attn); ulysses = all-to-alls switch the sequence split to a head split
// around attention (Jacobs et al. 2023, DeepSpeed-Ulysses; ALST, arXiv:2506.13996), so cp must divide the heads.
enum class CpScheme { automatic, ring, ulysses };
// The expert-parallel token dispatcher (framework.h moe_deepep): automatic = the framework's (Megatron-Core's
// all-to-all inside a node and flex / DeepEP across nodes, torchtitan's default all-to-all); alltoall = a plain
// all-to-all that sends each token once per routed expert (Megatron-Core --moe-token-dispatcher-type alltoall,
// torchtitan's default path); deepep = DeepEP's fused dispatch and combine kernels, which send a token once per
// destination node and fan it out inside the node (Zhao et al. 2025, DeepEP; Megatron-Core flex with
// --moe-enable-deepep; torchtitan MoEArgs use_deepep).
enum class MoeDispatcher { automatic, alltoall, deepep };
// Megatron-Core's selective recompute by module (--recompute-granularity selective --recompute-modules ...;
// megatron/core/transformer/transformer_config.py recompute_modules, default ["core_attn"]): what each re-runs in
// backward instead of keeping its activations. core_attn: the attention core (Korthikanti et al. 2022 Sec. 5);
// layernorm: the norms whose output a separate module keeps (MoE layers' pre-MLP norm, MLA's input norm); moe_act:
// the routed experts' activation function; mla_up_proj: MLA's q/kv up-projections and RoPE; mlp: a dense layer's
// MLP; shared_experts: the shared expert; moe: the whole MoE block (router, dispatch, experts, combine). A set of
// these bits; trainfit's `selective` under other frameworks is core_attn.
enum RecomputeModule : uint32_t {
  kRecomputeCoreAttn = 1u << 0,
  kRecomputeLayernorm = 1u << 1,
  kRecomputeMoeAct = 1u << 2,
  kRecomputeMlaUpProj = 1u << 3,
  kRecomputeMlp = 1u << 4,
  kRecomputeSharedExperts = 1u << 5,
  kRecomputeMoe = 1u << 6,
};
// Whether a `recompute` mode re-runs other modules than Megatron-Core's default (what plans and documents name).
inline bool named_recompute_modules(Recompute r, uint32_t modules) {
  return r == Recompute::selective && modules != kRecomputeCoreAttn;
}
// The trainer the job runs in (framework.h): what it can launch and the buffers it keeps. generic = no framework's
// restrictions or buffers (the default).
enum class Framework { generic, hf_trainer, torchtune, litgpt, megatron_core, nanotron, torchtitan };

// Parallel layout. automatic = the planner chooses; otherwise the fields are the user's fixed choice.
struct ParallelConfig {
  bool automatic = true;
  int gpus = 1;          // total GPUs (nodes * gpus_per_node)
  int tp = 1;            // tensor parallel
  int pp = 1;            // pipeline parallel
  int dp = 1;            // data parallel
  int cp = 1;            // context parallel
  int vp = 1;            // virtual pipeline stages per rank (interleaved 1F1B; Narayanan et al. 2021 §2.2.2)
  // Expert parallel (MoE): the routed experts are split over ep ranks carved out of the TP x CP x DP ranks, and
  // each expert over etp ranks (expert tensor parallel; 0 = tp, Megatron-Core's default when
  // --expert-tensor-parallel-size is not given). Expert data parallel = tp x cp x dp / (ep x etp).
  int ep = 1;
  int etp = 0;
  int zero = 0;          // ZeRO stage 0..3 (3 == FSDP full shard)
  // Sequence parallelism with TP > 1 (Korthikanti et al. 2022 §4.2.2: norms and dropouts sharded over the TP ranks),
  // as every framework here runs TP and the planner lays it out; false replicates them on every TP rank. On by
  // default, so a manual layout gets what `plan` times and the recipes write.
  bool sequence_parallel = true;
  bool offload_optimizer = false;
  bool offload_params = false;

  bool operator==(const ParallelConfig&) const = default;
};

struct TrainConfig {
  Method method = Method::full;
  int lora_rank = 16;
  std::vector<std::string> lora_targets = {"q", "k", "v", "o", "gate", "up", "down"};
  Precision precision = Precision::automatic;
  Optimizer optimizer = Optimizer::adamw;
  int64_t micro_batch = 1;       // sequences per GPU per micro-step
  int64_t seq_len = 2048;
  int64_t global_batch = 0;      // sequences per optimizer step; 0 = planner.h default_global_batch
  Recompute recompute = Recompute::automatic;
  Attention attention = Attention::flash;
  GradReduce grad_reduce = GradReduce::automatic;
  Compile compile = Compile::automatic;
  CpScheme cp_scheme = CpScheme::automatic;
  // What `selective` recomputes (RecomputeModule bits): Megatron-Core's default, the attention core, unless the
  // job names its modules (framework megatron-core only; the query checks it).
  uint32_t recompute_modules = kRecomputeCoreAttn;
  // Chunks the logits and the loss are computed in (torchtune CEWithChunkedOutputLoss, torchtitan
  // ChunkedLossWrapper num_chunks); 0: the framework's default (framework.h loss_chunks), 1: the whole sequence.
  int loss_chunks = 0;
  // Mixture of experts. Each expert's token capacity as a multiple of its balanced share, padded to it (Megatron-Core
  // --moe-expert-capacity-factor with --moe-pad-expert-input-to-capacity: every expert computes exactly that many rows
  // and tokens beyond them are dropped); 0: dropless, every routed token computed (the default of every framework).
  double moe_capacity_factor = 0;
  // Dropless routing's load imbalance: the busiest expert-parallel rank's routed tokens over the mean (1: balanced,
  // as benchmarks force it). That rank's expert GEMMs, all-to-alls and buffers set the step and the peak.
  double moe_imbalance = 1;
  MoeDispatcher moe_dispatcher = MoeDispatcher::automatic;
  // Expert-parallel all-to-all overlap (Megatron-Core --overlap-moe-expert-parallel-comm): the combined 1F1B schedule
  // runs one micro-batch's dispatch and combine while another computes, and warms up one micro-batch more
  // (pipeline_parallel/schedules.py). Megatron-Core's rules for it: framework.h a2a_overlap_layout_error.
  bool moe_a2a_overlap = false;
  Framework framework = Framework::generic;
  ParallelConfig parallel;
  // Runtime overhead per GPU (CUDA context, cuBLAS/NCCL workspaces) and allocator fragmentation.
  double overhead_bytes = -1;        // < 0: documented default
  double fragmentation = -1;         // fraction of the dynamic peak; < 0: documented default
  // Extra VRAM kept free when judging a fit, as a fraction of the driver-reported capacity. 0 by default: the
  // CUDA context, NCCL buffers and allocator fragmentation are already in the estimate (counted once).
  double headroom = 0;
  // Fraction of the dense tensor peak reached while computing (perf.h Efficiency); < 0: the calibrated
  // default by GPU generation, model width and micro-batch. Set it from a measured run to recalibrate.
  double compute_efficiency = -1;
  // Calibration from one measured run (calibrate.h): the modelled efficiency is multiplied by this factor on
  // every GPU (so each GPU keeps its own peak and layout factors). 1 = uncalibrated. Ignored when
  // compute_efficiency overrides the efficiency.
  double efficiency_scale = 1;
  // Implementation details that move the memory peak (memory*.cpp cite each). Defaults describe the
  // Megatron-LM / DeepSpeed / Hugging Face Llama-style accounting the estimator was built on.
  // PyTorch autocast (torch.amp; HF Trainer fp16=True / bf16=True) for the *-mixed precisions: fp32 weights
  // and fp32 gradients plus 16-bit weight copies, instead of 16-bit weights + an fp32 master copy.
  bool autocast = false;
  // q, k, v come out of one fused GEMM and V stays a view of it (LitGPT, Megatron-LM): with RoPE the
  // whole fused output stays alive until backward, not only V.
  bool fused_qkv = false;
  // QLoRA: bitsandbytes double quantisation of the absmax constants (bnb_4bit_use_double_quant, LitGPT
  // bnb.nf4-dq). false: one fp32 absmax per 64 weights (bnb.nf4).
  bool qlora_double_quant = true;
  // optimizer.zero_grad(set_to_none=True), the PyTorch >= 2.0 default: gradients are freed after each step.
  // false (PyTorch < 2.0 default, Hugging Face Trainer then): they stay allocated while activations build up.
  bool zero_grad_set_to_none = true;
  // Hugging Face transformers causal-LM heads before the loss_function refactor (4.46; e.g. LlamaForCausalLM:
  // `logits = logits.float()`, then `shift_logits = logits[..., :-1, :].contiguous()` for CrossEntropyLoss): the
  // fp32 logits stay in the model output and a shifted fp32 copy feeds the loss, 8 B per logit beyond the loss
  // buffers.
  bool hf_fp32_logits = false;

  bool operator==(const TrainConfig&) const = default;
};

// The routed-expert rows on the busiest GPU over the balanced k x tokens (TrainConfig moe_capacity_factor,
// moe_imbalance): padded capacity sets every expert's rows; dropless, the imbalance reaches a GPU only through
// expert parallelism (without it every GPU holds all the experts and all its tokens' routes).
inline double moe_rows_factor(const TrainConfig& t, int ep) {
  if (t.moe_capacity_factor > 0) return t.moe_capacity_factor;
  return ep > 1 ? t.moe_imbalance : 1.0;
}
// The rows each GPU sends to the experts over the balanced k x tokens: the padded capacity, else its own tokens'
// routes (an imbalance swells only what the busiest GPU receives, moe_rows_factor).
inline double moe_send_factor(const TrainConfig& t) {
  return t.moe_capacity_factor > 0 ? t.moe_capacity_factor : 1.0;
}

// ---------------------------------------------------------------------------------------------
// How much data. Either tokens directly or examples x average length x epochs.
struct Dataset {
  double tokens = 0;             // > 0 wins
  double examples = 0;
  double avg_tokens_per_example = 0;
  double epochs = 1;
  bool packing = true;           // false: every example is padded to seq_len
  double size_bytes = 0;         // on-disk size to stage (0 = estimate from tokens * bytes_per_token)
  double bytes_per_token = 4;    // raw text ~4 bytes/token (tokenised uint16/32 is 2-4)

  bool operator==(const Dataset&) const = default;
};

}  // namespace trainfit
