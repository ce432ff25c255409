// trainfit core — training-memory estimator (per GPU, bytes).
//
// Model states follow ZeRO (Rajbhandari et al. 2020, Sec. 3.1 and Fig. 1): mixed precision keeps 16-bit
// weights (2 B) and gradients (2 B) plus K bytes of optimizer state per trainable parameter (Adam: fp32
// master 4 + momentum 4 + variance 4, K = 12). Activations follow Korthikanti et al. 2022 ("Reducing
// Activation Recomputation in Large Transformer Models", Sec. 4.1, Table 2), generalised tensor by tensor
// (see layer_activations) so that GQA, SwiGLU, RMSNorm, FlashAttention, frozen weights (LoRA) and
// bitsandbytes 4-bit layers keep exactly what autograd keeps for them.
//
// How far to trust it: docs/accuracy.md. Against 16 published single-GPU peak-memory measurements (validation.cpp:
// LitGPT LoRA/QLoRA on A100, Hugging Face Trainer BERT-large on V100) the estimate is -0.2% .. -6.3% on the
// 12 fully specified runs and -9.8% .. -14.6% on four eager-attention batch-4 runs measured as reserved
// memory; against 27 multi-GPU peaks (Megatron-LM TP / interleaved PP, torchtitan FSDP2 (x CP), Answer.AI
// fsdp_qlora FSDP / DDP) -9.7% .. +9.9% on the 26 fully specified ones, under each run's framework profile
// (framework.h: loss buffers, fp32 grad buffer, FSDP2 root unit, logits freed before backward).
// Implementation choices that move the peak are TrainConfig switches (autocast, fused_qkv,
// qlora_double_quant, zero_grad_set_to_none, hf_fp32_logits). Not modelled: eager attention with repeat_kv for GQA.
// Hot path: no allocation except pushing a note (only for params-only models).
#include "trainfit/estimate/memory.h"

#include "trainfit/catalog/framework.h"

#include <algorithm>
#include <cmath>

namespace trainfit {

// The band (memory.h): q = p90 of |estimate / measured - 1| over every measured_peak row of validation.cpp
// (fully specified or not: a user's run is described no better than those), rounded up to 0.5%; the band is
// [est / (1 + q), est / (1 - q)]. Current rows: 43 measured (16 single-GPU; 27 multi-GPU: six Megatron-LM
// functional-test peaks, six torchtitan FSDP2 (x CP) peaks, fifteen Answer.AI fsdp_qlora LoRA / QLoRA peaks); the
// nearest-rank p90 is the 39th smallest |error|, the Answer.AI Llama 2 7B QLoRA batch-12 row on 2x RTX 4090
// (+9.9%), rounded up to 10% -> [0.9091, 1.1111].
// validation_test recomputes q from the rows and fails when this constant drifts from it.
const double kBandQuantile = 0.10;
const double kBandLowFactor = 1.0 / (1.0 + kBandQuantile);
const double kBandHighFactor = 1.0 / (1.0 - kBandQuantile);

BandFactors band_factors_from_errors(const std::vector<double>& relative_errors) {
  BandFactors b;
  if (relative_errors.empty()) return b;
  std::vector<double> a;
  a.reserve(relative_errors.size());
  for (double e : relative_errors) a.push_back(std::fabs(e));
  std::sort(a.begin(), a.end());
  // Nearest-rank 90th percentile: the ceil(0.9 n)-th smallest.
  const size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(a.size())));
  const double p90 = a[std::max<size_t>(rank, 1) - 1];
  b.q = std::ceil(p90 * 200.0 - 1e-9) / 200.0;  // up to the next 0.5%
  b.q = std::min(b.q, 0.5);
  b.low = 1.0 / (1.0 + b.q);
  b.high = 1.0 / (1.0 - b.q);
  return b;
}

const char* to_string(FitVerdict v) {
  switch (v) {
    case FitVerdict::fits: return "fits";
    case FitVerdict::tight: return "tight";
    case FitVerdict::no_fit: return "no_fit";
  }
  return "?";
}

FitVerdict fit_verdict(const MemoryBreakdown& m, double usable) {
  if (!(usable > 0) || !(m.total <= usable)) return FitVerdict::no_fit;
  return m.total_high <= usable ? FitVerdict::fits : FitVerdict::tight;
}

namespace {

bool gated_mlp(const ModelSpec& m) { return m.mlp == Mlp::swiglu || m.mlp == Mlp::geglu; }
// Hugging Face eager attention of these families upcasts the softmax to fp32 (modeling_llama.py
// eager_attention_forward: softmax(dtype=torch.float32)); GPT-2, OPT, BERT and Falcon keep the compute dtype.
bool softmax_fp32(Arch a) { return !(a == Arch::gpt2 || a == Arch::opt || a == Arch::bert || a == Arch::falcon); }

// "auto" precision has bf16-mixed's memory (fp16-mixed's is the same: 2-byte weights, gradients and
// activations, fp32 master and states), so the estimator needs no GPU to resolve it.
Precision prec_of(const TrainConfig& t) { return t.precision == Precision::automatic ? Precision::bf16_mixed : t.precision; }

double act_bytes(Precision p) { return p == Precision::fp32 ? 4.0 : 2.0; }
// Transformer Engine keeps fp8 copies of GEMM inputs for the backward pass (1 B).
double linear_input_bytes(Precision p) { return p == Precision::fp8_mixed ? 1.0 : act_bytes(p); }

using Flags = memory_detail::Method;

Result<Flags> method_flags(const ModelSpec& m, const TrainConfig& t) {
  Flags f;
  f.full = t.method == Method::full;
  f.qlora = t.method == Method::qlora;
  if (!f.full) {
    auto c = lora_counts(m, t.lora_rank, t.lora_targets);
    if (!c) return c.error();
    f.lora = c.value();
  }
  return f;
}

}  // namespace

Error expert_layout_error(const ModelSpec& m, int tp, int cp, int dp, int ep, int etp) {
  if (ep < 1 || etp < 0) return Error{"parallel.ep", "ep must be >= 1 and etp >= 0 (0: etp = tp)"};
  const int64_t experts = m.num_experts;
  const int64_t width = m.moe_intermediate_size > 0 ? m.moe_intermediate_size : m.intermediate_size;
  const int64_t et = etp > 0 ? etp : tp;
  if (ep > 1 && experts <= 1) return Error{"parallel.ep", "expert parallelism needs a mixture-of-experts model"};
  if (ep > 1 && experts % ep != 0)
    return Error{"parallel.ep", "must divide the experts (" + std::to_string(experts) + ")"};
  // Megatron-Core carves the expert-parallel groups out of the TP x CP x DP ranks of a pipeline stage
  // (parallel_state.py: expert_tensor_parallel_size x expert_model_parallel_size must divide them).
  const int64_t ranks = int64_t(tp) * cp * dp;
  if (ranks % (int64_t(ep) * et) != 0)
    return Error{etp > 0 ? "parallel.etp" : "parallel.ep",
                 "ep x etp (" + std::to_string(int64_t(ep) * et) + ") must divide tp x cp x dp (" +
                     std::to_string(ranks) + ")"};
  if (experts > 1 && et > 1 && width % et != 0)
    return Error{"parallel.etp", "must divide the expert MLP width (" + std::to_string(width) + ")"};
  return Error{};
}

Error cp_layout_error(const ModelSpec& m, int tp, int cp, CpScheme scheme) {
  if (cp <= 1 || scheme != CpScheme::ulysses) return Error{};
  // DeepSpeed-Ulysses hands each rank heads / cp heads of the whole sequence (Jacobs et al. 2023 §3.1): cp must divide
  // the attention heads left on a TP rank; K/V heads fewer than cp are replicated (ALST, arXiv:2506.13996 §3.2), so
  // the K/V heads must divide or be divided by it.
  const int64_t heads = m.num_heads / std::max(1, tp), kv = std::max<int64_t>(1, m.num_kv_heads) / std::max(1, tp);
  if (heads % cp != 0)
    return Error{"parallel.cp", "Ulysses CP " + std::to_string(cp) + " must divide the attention heads per TP rank (" +
                                    std::to_string(heads) + ")"};
  if (kv > 0 && kv % cp != 0 && cp % kv != 0)
    return Error{"parallel.cp", "Ulysses CP " + std::to_string(cp) + " must divide, or be a multiple of, the K/V heads (" +
                                    std::to_string(kv) + ")"};
  return Error{};
}

namespace {

Result<bool> validate(const ModelSpec& m, const TrainConfig& t, const MemoryLayout& l) {
  if (t.seq_len < 1 || t.seq_len > (int64_t(1) << 24)) return Error{"seq_len", "must be between 1 and 16,777,216"};
  if (l.micro_batch < 1 || l.micro_batch > (int64_t(1) << 24))
    return Error{"micro_batch", "must be between 1 and 16,777,216"};
  if (l.num_microbatches < 1) return Error{"global_batch", "gives fewer than one micro-batch per step"};
  if (l.tp < 1 || l.pp < 1 || l.dp < 1 || l.cp < 1) return Error{"parallel", "tp, pp, dp and cp must be >= 1"};
  if (l.vp < 1 || (l.vp > 1 && l.pp < 2)) return Error{"parallel.vp", "virtual stages need pipeline parallelism (pp >= 2)"};
  if (l.vp > 1 && int64_t(l.pp) * l.vp > m.num_layers)
    return Error{"parallel.vp", "pp x vp cannot exceed num_layers (" + std::to_string(m.num_layers) + ")"};
  if (l.vp > 1 && !pipeline_split_ok(framework_profile(t.framework), m.num_layers, l.pp, l.vp))
    return Error{"parallel.vp", "pp x vp is not a split of num_layers (" + std::to_string(m.num_layers) + ") that " +
                                    framework_profile(t.framework).name + " runs (framework.h pipeline_split_ok)"};
  if (l.pp_rank < -1 || l.pp_rank >= l.pp)
    return Error{"parallel.pp", "pipeline rank must be -1 (worst) or 0 .. pp - 1"};
  if (l.zero < 0 || l.zero > 3) return Error{"parallel.zero", "must be 0, 1, 2 or 3"};
  if (l.gpus_per_node < 1) return Error{"parallel.gpus", "gpus per node must be >= 1"};
  if (l.recompute == Recompute::automatic)
    return Error{"recompute", "resolve 'auto' to none, selective or full before estimating"};
  if (l.pp > m.num_layers) return Error{"parallel.pp", "cannot exceed num_layers (" + std::to_string(m.num_layers) + ")"};
  if (m.num_heads % l.tp != 0)
    return Error{"parallel.tp", "must divide num_heads (" + std::to_string(m.num_heads) + ")"};
  if (t.seq_len % l.cp != 0) return Error{"parallel.cp", "must divide seq_len"};
  if (auto e = expert_layout_error(m, l.tp, l.cp, l.dp, l.ep, l.etp); !e.message.empty()) return e;
  if (auto e = cp_layout_error(m, l.tp, l.cp, resolved_cp_scheme(t)); !e.message.empty()) return e;
  if (t.method != Method::full && (l.ep > 1 || (l.etp > 0 && l.etp != l.tp)))
    return Error{"parallel.ep", "expert parallelism is modelled for full training only (not LoRA / QLoRA)"};
  if (!(t.overhead_bytes < 1e15) || !(t.fragmentation < 10) || std::isnan(t.overhead_bytes) ||
      std::isnan(t.fragmentation))
    return Error{"overhead_bytes", "must be a finite number"};
  return true;
}

// PyTorch autocast runs layer_norm and softmax in fp32 ("CUDA Ops that can autocast to float32",
// PyTorch docs, torch.amp), so under autocast their saved tensors are 4-byte.
bool autocast_on(const TrainConfig& t) {
  return t.autocast && (prec_of(t) == Precision::bf16_mixed || prec_of(t) == Precision::fp16_mixed);
}

// Bytes one norm keeps per token and hidden element. LayerNorm (fused kernel): its input (Korthikanti: 2sbh per LayerNorm).
// Hugging Face RMSNorm (LlamaRMSNorm and kin) upcasts to fp32 and keeps that fp32 input; a trainable
// weight also keeps the normalised 16-bit tensor (mul saves the other operand only if it needs a grad).
double norm_bytes(const ModelSpec& m, Precision p, bool trainable_weight, bool autocast = false, bool fused = false) {
  const double e = act_bytes(p);
  // A fused norm kernel (LayerNorm; Transformer Engine's RMSNorm / LayerNormLinear, framework.h fused_rmsnorm) keeps
  // its 16-bit input and a per-token statistic, and recomputes the normalised tensor in backward.
  if (m.norm == Norm::layernorm || fused) return autocast ? 4.0 : e;
  return 4.0 + (trainable_weight ? e : 0.0);
}


}  // namespace

namespace {

// The layout-independent part of layer_activations: bytes per token of one layer (replicated, TP-split,
// eager-score coefficient), before the micro-batch, TP, SP, CP and recompute are applied (finish_activations).
using ActTerms = memory_detail::ActivationTerms;

// What activation_terms' helpers share: the model, the precision's element sizes and which inputs are kept.
struct ActCtx {
  const ModelSpec& m;
  const TrainConfig& t;
  const Flags& fl;
  double e, le, lora_dropout;
  bool amp, flash;
  double norm(bool trainable) const {
    return norm_bytes(m, prec_of(t), trainable, amp, framework_profile(t.framework).fused_rmsnorm);
  }
  // A linear's input is kept iff its weight is trained, it carries an adapter, or it is a bitsandbytes
  // 4-bit layer (MatMul4Bit saves its input whenever any input needs a grad, bitsandbytes autograd/_functions.py).
  bool keeps(bool adapted) const { return fl.full || fl.qlora || adapted; }
};
struct Acc {
  double rep = 0, split = 0, score_coef = 0;
};

// Q, K, V and the attention core (Korthikanti Table 2, "attention" rows: 11sbh + 5as^2b). A sliding window
// changes no stored tensor: FlashAttention keeps no s^2 term, and Hugging Face eager attention materialises
// the full s x s scores with the window as a mask (modeling_mistral.py eager_attention_forward). Attention
// sinks (gpt-oss) add one logit per head: negligible. ALiBi (Press et al. 2022) adds a fixed bias to the scores
// and no stored tensor; learned, ALiBi and no positions keep q and k as the projections wrote them (RoPE's
// rotated copies matter only for a fused qkv output, below).
// Widths per token: q and k (K: the key/value heads, GQA), v (the key/value heads' V), o = the output.
void attention_core(const ActCtx& c, double q, double k, double v, double o, Acc& a) {
  const double e = c.e, heads = double(c.m.num_heads);
  if (c.flash) {
    // FlashAttention backward needs Q, K, V, the output O and the logsumexp (fp32, one per head and query).
    // No s^2 tensor, no dropout mask (the RNG state regenerates it).
    a.split += e * (q + k + v) + e * o + 4.0 * heads;
    return;
  }
  // Eager: QK^T keeps Q and K, softmax keeps its output, attention-over-V keeps the probabilities and V.
  // HF eager GQA repeats K and V to all heads first (repeat_kv), so they are kept at full width (q and o).
  a.split += e * (2 * q + o);
  // Per head and key position: softmax output (e; Llama family upcasts softmax to fp32: 4 + e), and
  // with attention dropout its mask (1) and output (e) — Korthikanti's 2as^2b + as^2b + 2as^2b.
  const bool drop = c.m.dropout;
  a.score_coef = (softmax_fp32(c.m.arch) ? 4.0 + e : e) + (drop ? 1.0 + e : 0.0);
  // Autocast: softmax output in fp32 (4), the dropout mask (1), and the 16-bit cast of the probabilities
  // that the attention-over-V matmul saves (e).
  if (c.amp) a.score_coef = 4.0 + e + (drop ? 1.0 : 0.0);
}

// Multi-head latent attention (DeepSeek-V2 Sec. 2.1.2-2.1.3, modeling_deepseek_v3.py DeepseekV3Attention):
// the down-projections' shared input, the latent q and kv kept by their RMSNorms (fp32) and by the
// up-projections, then Q, K (heads x (nope + rope)), V (heads x v_head_dim) for the core. The latents are
// computed before the heads split (Megatron-LM MLA keeps the down-projections unsplit): replicated.
void mla_attention(const ActCtx& c, Acc& a) {
  const ModelSpec& m = c.m;
  const double H = double(m.num_heads), qk = double(m.qk_nope_head_dim + m.qk_rope_head_dim);
  const double qr = double(m.q_lora_rank), kvr = double(m.kv_lora_rank);
  const bool in = c.keeps(c.fl.lora.attn_input);
  if (in) a.rep += c.le * double(m.hidden_size);                  // x, for q_a / q_proj and kv_a
  if (!c.fl.full && c.fl.lora.attn_input) a.rep += c.lora_dropout * double(m.hidden_size);
  if (qr > 0) a.rep += c.norm(c.fl.full) * qr + (in ? c.le * qr : 0.0);   // q_a_layernorm, q_b_proj input
  a.rep += c.norm(c.fl.full) * kvr + (in ? c.le * kvr : 0.0);            // kv_a_layernorm, kv_b_proj input
  a.rep += c.e * double(m.qk_rope_head_dim);                             // roped k_pe, shared by the heads
  const double v = H * double(m.v_head_dim);
  attention_core(c, H * qk, H * qk, v, v, a);
}

// The attention block of one layer: input norm, q/k/v projections and their inputs, q/k norms, the core,
// the output projection's input.
void attention_terms(const ActCtx& c, Acc& a) {
  const ModelSpec& m = c.m;
  const Precision p = prec_of(c.t);
  const double h = double(m.hidden_size), hd = double(effective_head_dim(m));
  const double q = double(m.num_heads) * hd, kv = double(m.num_kv_heads) * hd;
  const Flags& fl = c.fl;
  a.rep += c.norm(fl.full) * h;
  double o_in = q;                                           // the output projection's input width
  if (m.kv_lora_rank > 0) {
    mla_attention(c, a);
    o_in = double(m.num_heads * m.v_head_dim);
  } else {
    if (c.keeps(fl.lora.attn_input)) a.rep += c.le * h;      // QKV input
    if (!fl.full && fl.lora.attn_input) a.rep += c.lora_dropout * h;
    attention_core(c, q, kv, kv, q, a);
    // Fused QKV (LitGPT lit_gpt/model.py CausalSelfAttention.forward: q, k, v = qkv.split(...) are views of
    // one GEMM output; apply_rope + torch.cat make new q and k): the attention saves V, a view, so the whole
    // q + 2kv buffer stays alive besides the roped q and k counted above.
    if (c.t.fused_qkv && m.positional == Positional::rope) a.split += c.e * (q + kv);
    // q/k RMSNorm (modeling_qwen3.py, modeling_gemma3.py q_norm/k_norm per head; modeling_olmo2.py over the
    // whole projection): each keeps its fp32 input (and the normalised tensor when its weight trains).
    if (m.qk_norm != QkNorm::none) a.split += c.norm(fl.full) * (q + kv);
  }
  const bool attn_out = c.keeps(fl.lora.attn_output);
  if (attn_out && !c.flash) a.split += c.le * o_in;          // output-projection input (flash: it is O)
  if (attn_out && c.flash && p == Precision::fp8_mixed) a.split += c.le * o_in;
  if (!fl.full && fl.lora.attn_output) a.split += c.lora_dropout * o_in;
  if (m.dropout) a.rep += h;                                 // attention-output dropout mask
  if (m.block == Block::sandwich) a.rep += c.norm(fl.full) * h;  // Gemma post_attention_layernorm
}

// Bytes one MLP of width i keeps per token it processes (Korthikanti: 19sbh = 2 input + 8 GeLU input + 8 fc2
// input + 1 dropout mask, generalised): gated MLPs keep the gate output (activation input), the up output
// and the activation output (both kept by the product), and the product (down-projection input).
double mlp_bytes(const ActCtx& c, double i) {
  const bool mlp_out = c.keeps(c.fl.lora.mlp_output);
  double mlp = 0;
  // A fused gated unit (framework.h fused_swiglu: Megatron-Core's bias_swiglu_impl) keeps only its 2i-wide input
  // and recomputes the product in backward; the eager one keeps the gate and up outputs and the activation output.
  if (gated_mlp(c.m) && framework_profile(c.t.framework).fused_swiglu) mlp += 2 * c.e * i + (mlp_out ? c.le * i : 0.0);
  else if (gated_mlp(c.m)) mlp += 3 * c.e * i + (mlp_out ? c.le * i : 0.0);
  else if (c.m.mlp == Mlp::relu) mlp += c.e * i;                 // ReLU keeps its output, which is fc2's input
  else mlp += c.e * i + (mlp_out ? c.le * i : 0.0);              // GeLU input, fc2 input
  if (!c.fl.full && c.fl.lora.mlp_output) mlp += c.lora_dropout * i;
  return mlp;
}

// The MLP block of a dense (moe = false) or MoE layer.
void mlp_terms(const ActCtx& c, bool moe, Acc& a) {
  const ModelSpec& m = c.m;
  const Flags& fl = c.fl;
  const double h = double(m.hidden_size);
  const bool parallel_block = m.block == Block::parallel;    // shares the attention's norm and input (Falcon)
  if (!parallel_block) a.rep += c.norm(fl.full) * h;
  if (m.block == Block::sandwich) a.rep += c.norm(fl.full) * h;  // Gemma post_feedforward_layernorm
  const bool mlp_in = c.keeps(fl.lora.mlp_input);
  if (moe) {
    // Each token visits k experts (HF MixtralSparseMoeBlock): a gathered copy of its input (kept by w1/w3
    // when they need it), the expert MLP, and the expert output kept by the routing-weight multiply. A shared
    // expert (DeepSeekMoE, Llama 4) runs on every token on the router's input.
    const double k = double(m.experts_per_token);
    const double width = double(m.moe_intermediate_size > 0 ? m.moe_intermediate_size : m.intermediate_size);
    a.split += k * ((mlp_in ? c.le * h : 0.0) + mlp_bytes(c, width) + c.e * h);
    a.rep += (fl.full ? c.le * h : 0.0) + 4.0 * double(m.num_experts);  // router input (if trained), fp32 router probs
    if (m.shared_expert_intermediate_size > 0) a.split += mlp_bytes(c, double(m.shared_expert_intermediate_size));
  } else {
    if (mlp_in && !(parallel_block && c.keeps(fl.lora.attn_input))) a.rep += c.le * h;
    a.split += mlp_bytes(c, double(m.intermediate_size));
  }
  if (!fl.full && fl.lora.mlp_input) a.rep += c.lora_dropout * h;
  if (m.dropout) a.rep += h;                                 // MLP dropout mask
}

// Op-level selective checkpointing (framework.h selective_op_sac; torchtitan's "op" policy): a layer keeps its
// input, the outputs of the odd-numbered matmuls in forward order (q 1, k 2, v 3, o 4, then gate 5, up 6, down 7
// for a gated MLP, or fc1 5, fc2 6) and the attention kernel's output with its fp32 logsumexp. Outputs of hidden
// width (o, down / fc2) are reduced over TP ranks (replicated); the others are split by TP. Only for dense
// full fine-tuning with standard attention; otherwise Korthikanti's selective recompute stands.
void op_sac_terms(const ActCtx& c, ActTerms& terms) {
  const ModelSpec& m = c.m;
  if (!framework_profile(c.t.framework).selective_op_sac || !c.fl.full || moe_layer_count(m) > 0 ||
      m.kv_lora_rank > 0)
    return;
  const double h = double(m.hidden_size), hd = double(effective_head_dim(m));
  const double q = double(m.num_heads) * hd, kv = double(m.num_kv_heads) * hd, f = double(m.intermediate_size);
  struct Out { double width; bool hidden; };
  Out gated[] = {{q, false}, {kv, false}, {kv, false}, {h, true}, {f, false}, {f, false}, {h, true}};
  Out plain[] = {{q, false}, {kv, false}, {kv, false}, {h, true}, {f, false}, {h, true}};
  const bool g = gated_mlp(m);
  const int n = g ? 7 : 6;
  double rep = c.e * h, split = c.e * q + 4.0 * double(m.num_heads);  // layer input; attention output + logsumexp
  for (int i = 0; i < n; i += 2) {  // 1st, 3rd, 5th, ... matmul
    const Out& o = g ? gated[i] : plain[i];
    (o.hidden ? rep : split) += c.e * o.width;
  }
  terms.op_sac_rep = rep;
  terms.op_sac_split = split;
}

ActTerms activation_terms(const ModelSpec& m, const TrainConfig& t, const Flags& fl) {
  const Precision p = prec_of(t);
  const double e = act_bytes(p);
  // Adapter inputs go through lora_dropout (0.05 in the QLoRA paper's and LitGPT's recipes): the dropped
  // copy (e) and its mask (1 B) per adapted input tensor; the rank-r A output is B's input.
  const ActCtx c{m, t, fl, e, linear_input_bytes(p), e + 1.0, autocast_on(t), t.attention == Attention::flash};
  Acc a;
  attention_terms(c, a);
  // Dense and MoE layers mixed (DeepSeek first_k_dense, Llama 4 interleaving): the average layer.
  const double L = double(m.num_layers), moe = moe_layer_count(m);
  if (moe == 0 || moe == L) {
    mlp_terms(c, moe > 0, a);
  } else {
    Acc dense, sparse;
    mlp_terms(c, false, dense);
    mlp_terms(c, true, sparse);
    a.rep += (dense.rep * (L - moe) + sparse.rep * moe) / L;
    a.split += (dense.split * (L - moe) + sparse.split * moe) / L;
  }
  if (!fl.full) a.split += e * double(t.lora_rank) * fl.lora.targeted_linears;  // A outputs
  ActTerms terms;
  op_sac_terms(c, terms);
  terms.rep = a.rep;
  terms.split = a.split;
  terms.score_coef = a.score_coef;
  terms.e = e;
  terms.h = double(m.hidden_size);
  terms.heads = double(m.num_heads);
  terms.amp = c.amp;
  return terms;
}

}  // namespace

namespace {

LayerActivations finish_activations(const ActTerms& terms, const TrainConfig& t, const MemoryLayout& l) {
  const double rep = terms.rep, split = terms.split, score_coef = terms.score_coef;
  const double e = terms.e, h = terms.h, heads = terms.heads;
  const bool amp = terms.amp;
  // Tokens of one micro-batch on this GPU: context parallelism splits the sequence.
  const double tokens = double(l.micro_batch) * double(t.seq_len) / double(l.cp);
  const double tp = double(l.tp);
  LayerActivations out;
  out.replicated = tokens * rep;
  out.split = tokens * split;
  // Eager scores: per local query, every key of the full sequence, per head; TP splits heads.
  out.scores = tokens * heads * double(t.seq_len) * score_coef / tp;
  const double rep_div = l.sequence_parallel ? tp : 1.0;      // Korthikanti Sec. 4.2.2: SP divides the rest
  out.no_recompute = out.replicated / rep_div + out.split / tp + out.scores;
  switch (l.recompute) {
    case Recompute::selective:   // Korthikanti Sec. 5: recompute the attention core, drop the 5as^2b term
      out.stored = out.replicated / rep_div + out.split / tp;
      // An op-level policy (op_sac_terms) keeps less: its saved set, never more than the layer without recompute.
      if (terms.op_sac_rep + terms.op_sac_split > 0)
        out.stored = std::min(out.no_recompute, tokens * (terms.op_sac_rep / rep_div + terms.op_sac_split / tp));
      break;
    case Recompute::full:        // Table 2 "full": only the layer input, 2sbh (SP: / t); under autocast the
      // residual stream stays fp32 (fp32 embeddings + 16-bit branch outputs, or fp32 LayerNorm outputs)
      out.stored = tokens * (amp ? 4.0 : e) * h / rep_div;
      break;
    default:
      out.stored = out.no_recompute;
  }
  return out;
}

}  // namespace

int64_t pipeline_chunk_passes_in_flight(int pp, int vp, int rank, int64_t num_microbatches) {
  if (pp <= 1) return 1;
  const int64_t m = std::max<int64_t>(1, num_microbatches), p = pp, v = std::max(1, vp);
  const int64_t r = std::clamp<int64_t>(rank, 0, p - 1);
  if (v == 1) return std::min(m, p - r);
  return std::min(m * v, 2 * (p - r - 1) + (v - 1) * p + 1);
}

Result<LayerActivations> layer_activations(const ModelSpec& m, const TrainConfig& t, const MemoryLayout& l) {
  auto f = method_flags(m, t);
  if (!f) return f.error();
  return finish_activations(activation_terms(m, t, f.value()), t, l);
}

// The layout-independent work, once. Errors are kept and returned by estimate() where estimate_memory
// always returned them (the parameter count's before the layout check, the method's after it), so both
// give the same result for every input.
MemoryEstimator::MemoryEstimator(const ModelSpec& model, const TrainConfig& train)
    : model_(&model), train_(&train), counts_(count_params(model)), method_(method_flags(model, train)) {
  if (counts_ && method_) terms_ = activation_terms(model, train, method_.value());
}

Result<MemoryBreakdown> estimate_memory(const ModelSpec& model, const TrainConfig& train,
                                        const MemoryLayout& layout) {
  return MemoryEstimator(model, train).estimate(layout);
}

Result<MemoryBreakdown> MemoryEstimator::estimate(const MemoryLayout& layout) const {
  Result<MemoryBreakdown> res{MemoryBreakdown{}};
  Error error;
  if (!estimate(layout, res.value(), &error)) return error;
  return res;
}

bool MemoryEstimator::estimate(const MemoryLayout& layout, MemoryBreakdown& out, Error* error) const {
  const ModelSpec& model = *model_;
  const TrainConfig& train = *train_;
  auto fail = [&](const Error& e) {
    if (error) *error = e;
    return false;
  };
  if (!counts_) return fail(counts_.error());
  auto valid = validate(model, train, layout);
  if (!valid) return fail(valid.error());
  if (!method_) return fail(method_.error());
  const Flags& fl = method_.value();
  const ParamCounts& pc = counts_.value();
  const LayerActivations la = finish_activations(terms_, train, layout);
  const Precision prec = prec_of(train);
  const MemoryLayout& l = layout;

  MemoryBreakdown& r = out;  // every field is assigned below; notes are appended
  r.notes.clear();
  r.params = pc;
  r.params.trainable = fl.full ? pc.total : fl.lora.params;

  // ---- Parameters on the worst GPU. TP divides every matrix (embedding and head vocab-parallel, Megatron
  // VocabParallelEmbedding; norms are replicated but are < 0.01% and ignored). PP: layers split evenly, the
  // first stage holds the embedding, the last the final norm and head (tied: a second copy of the embedding,
  // as Megatron keeps it). ZeRO-3 divides what is left by dp.
  // ZeRO / the distributed optimizer shard over the data x context parallel ranks (Megatron-Core's
  // distributed optimizer uses the DP group with context parallelism, parallel_state.py).
  const double L = double(model.num_layers), tp = double(l.tp), dp = double(l.dp) * double(l.cp);
  // Uneven stages (pp x vp not dividing the layers, framework.h uneven_pp): the heaviest stage's vp chunks of
  // ceil(L / (pp vp)) layers, each stage counted with that many (an upper bound: Megatron's and torchtitan's
  // embedding / loss-aware splits give the first and last stages one layer fewer).
  const int64_t layers_stage = pipeline_stage_layers(model.num_layers, l.pp, l.vp);
  r.layers_per_stage = layers_stage;
  const double rest = pc.total - L * pc.per_layer - pc.embedding - pc.head;  // final norm, pooler
  const double head_copy = l.pp > 1 ? (pc.head > 0 ? pc.head : pc.embedding) : pc.head;
  const double first_stage = double(layers_stage) * pc.per_layer + pc.embedding + (l.pp == 1 ? head_copy + rest : 0);
  const double last_stage = double(layers_stage) * pc.per_layer + head_copy + rest + (l.pp == 1 ? pc.embedding : 0);
  // One named rank (layout.pp_rank): the first holds the embedding, the last the head, the others neither.
  const bool one_rank = l.pp > 1 && l.pp_rank >= 0;
  const bool is_first = !one_rank || l.pp_rank == 0, is_last = !one_rank || l.pp_rank == l.pp - 1;
  const double named_stage =
      is_first ? first_stage : (is_last ? last_stage : double(layers_stage) * pc.per_layer);
  double stage_params = (one_rank ? named_stage : std::max(first_stage, last_stage)) / tp;
  // Expert parallelism (MoE): a stage's routed experts are split over ep x etp ranks instead of tp, and their
  // optimizer states and gradients are sharded over the expert data-parallel ranks, tp x cp x dp / (ep x etp)
  // (Megatron-Core MoE: expert and dense parameters keep separate gradient buffers and optimizer shards,
  // distributed/distributed_data_parallel.py expert_data_parallel_group; torchtitan FSDP over dp_shard_mod_ep).
  const int etp_r = l.etp > 0 ? l.etp : l.tp;
  const bool expert_split = pc.expert > 0 && (l.ep > 1 || etp_r != l.tp);
  const double expert_layer = pc.expert / L;  // routed-expert parameters of the average layer
  double layer_local = pc.per_layer / tp;     // one layer's parameters on this GPU
  double zdiv = dp;                           // what ZeRO divides this GPU's model states by
  if (expert_split) {
    const double ept = double(l.ep) * double(etp_r);
    const double exp_local = double(layers_stage) * expert_layer / ept;
    stage_params += exp_local - double(layers_stage) * expert_layer / tp;
    layer_local += expert_layer / ept - expert_layer / tp;
    const double edp = tp * dp / ept;         // expert data parallel (dp here is dp x cp)
    const double sharded = (stage_params - exp_local) / dp + exp_local / edp;
    if (sharded > 0) zdiv = stage_params / sharded;
  }
  const double stage_frac = pc.total > 0 ? stage_params / pc.total : 0;  // share of the model on this GPU
  const double lora_local = fl.full ? 0.0 : r.params.trainable * double(layers_stage) / L / tp;

  // ---- Bytes per element.
  const bool mixed = prec == Precision::bf16_mixed || prec == Precision::fp16_mixed || prec == Precision::fp8_mixed;
  const bool amp = autocast_on(train);
  double w_bytes = prec == Precision::fp32 ? 4.0 : (prec == Precision::fp8_mixed ? 3.0 : 2.0);  // fp8: + fp8 copy
  double g_bytes = prec == Precision::fp32 ? 4.0 : 2.0;
  double master_bytes = mixed ? 4.0 : 0.0;
  if (amp && fl.full) {
    // PyTorch autocast keeps the parameters (and so their .grad) in fp32 and casts each weight to 16 bits
    // for its GEMM; the cast is cached for the forward and saved by the op for backward: "6 bytes * number
    // of parameters for mixed precision training (maintains a model in fp32 and one in fp16 in memory)",
    // gradients 4 bytes (Hugging Face transformers docs, model_memory_anatomy.md, "Anatomy of Model's Memory").
    w_bytes = 4.0 + 2.0;
    g_bytes = 4.0;
    master_bytes = 0.0;
  }
  // Frameworks that accumulate gradients in an fp32 buffer (framework.h: Megatron-Core's main_grad, nanotron's
  // FP32GradientAccumulator) keep 4 bytes per trained parameter for the whole run.
  const FrameworkProfile& fw = framework_profile(train.framework);
  // TrainConfig::grad_reduce overrides the framework's default either way.
  g_bytes = grad_element_bytes(train, g_bytes);
  const double state_elem = prec == Precision::bf16 ? 2.0 : 4.0;  // pure bf16 keeps optimizer states in bf16
  double opt_per_param = 0;
  switch (train.optimizer) {
    case Optimizer::adamw: opt_per_param = 2 * state_elem; break;       // exp_avg, exp_avg_sq
    case Optimizer::adamw_8bit:
      // bitsandbytes 8-bit blockwise Adam (Dettmers et al. 2022, Sec. 2): two uint8 states plus one fp32
      // absmax per 256-element block each (bitsandbytes optim/optimizer.py, blocksize 256).
      opt_per_param = 2 * (1.0 + 4.0 / 256.0);
      break;
    case Optimizer::sgd: opt_per_param = 0; break;
    case Optimizer::sgd_momentum: opt_per_param = state_elem; break;
    case Optimizer::lion: opt_per_param = state_elem; break;             // Chen et al. 2023: momentum only
    case Optimizer::adafactor: opt_per_param = 0; break;                 // factored, below
  }

  // ---- Model states.
  double weights = 0, master = 0, grads = 0, states = 0, lora = 0, quant = 0, host_offload = 0, gathered = 0;
  if (fl.full) {
    const double n = stage_params;  // every parameter on this GPU is trained
    double state_total = n * opt_per_param;
    if (train.optimizer == Optimizer::adafactor)
      state_total = adafactor_state_elements(model) * stage_frac * 4.0;  // HF Adafactor: fp32, beta1 = None
    weights = n * w_bytes;
    master = n * master_bytes;
    grads = n * g_bytes;
    states = state_total;
    if (l.zero >= 1) { master /= zdiv; states /= zdiv; }   // P_os
    if (l.zero >= 2) grads /= zdiv;                        // P_os+g
    if (l.zero >= 3) weights /= zdiv;                      // P_os+g+p
    if (l.offload_optimizer) {
      // ZeRO-Offload (Ren et al. 2021, Sec. 4.1): fp32 master, optimizer states and fp32 gradient partitions
      // live in host memory; the GPU keeps its 16-bit weights (and gradient buckets).
      host_offload += master + states + (l.zero >= 2 ? grads * (4.0 / g_bytes) : 0.0);
      master = 0;
      states = 0;
      if (l.zero >= 2) grads = 0;
    }
    if (l.zero >= 3) {
      // Live parameters: FSDP / ZeRO-3 gather one layer and prefetch the next; backward also holds one
      // layer's unsharded gradient before reduce-scatter. FSDP2 stacks (framework.h fsdp2_root_unit): the root
      // unit's (embedding, head) and the last block's full parameters at the start of backward.
      const double layer = layer_local;
      if (l.offload_params) { host_offload += weights; weights = 0; }
      const double root = (stage_params - double(layers_stage) * layer_local) * w_bytes;
      gathered = fw.fsdp2_root_unit ? root + layer * w_bytes : 2 * layer * w_bytes + layer * g_bytes;
    }
  } else {
    // Frozen base: 16-bit (or fp32) weights; QLoRA stores every linear of the layers in NF4 (Dettmers et al.
    // 2023, Sec. 3): 4 bits per weight plus one absmax per 64-weight block, fp32 (4/64 B), or with double
    // quantisation an 8-bit absmax and one fp32 constant per 256 absmax blocks (8/64 + 32/(64*256) bits =
    // 0.127 bits/param, the paper's figure). Embeddings, head and norms stay 16-bit.
    const double base_w = prec == Precision::fp32 ? 4.0 : 2.0;
    const double layer_params = double(layers_stage) * pc.per_layer / tp;
    const double other = stage_params - layer_params;
    if (fl.qlora) {
      const double norms_in_layer = norm_params_per_layer(model) * double(layers_stage) / tp;
      const double linear = std::max(0.0, layer_params - norms_in_layer);
      weights = linear * 0.5 + (other + norms_in_layer) * base_w;
      // Double-quantised constants (bitsandbytes bnb_4bit_use_double_quant), or one fp32 absmax per
      // 64-weight block without it (Dettmers et al. 2023, Sec. 3: 32/64 = 0.5 bits/param).
      quant = linear * (train.qlora_double_quant ? 0.127 / 8.0 : 4.0 / 64.0);
      // Dequantisation: each 4-bit linear is expanded to a 16-bit copy for its GEMM (forward and again in
      // backward); two of the largest such matrices can be alive at once.
      const double hd = double(effective_head_dim(model));
      const double largest = std::max({double(model.hidden_size) * double(model.intermediate_size),
                                       double(model.hidden_size) * double(model.num_heads) * hd}) / tp;
      quant += 2 * largest * 2.0;
    } else {
      weights = stage_params * base_w;
    }
    if (l.zero >= 3 && !fl.qlora) {
      weights = weights / dp;
      if (l.offload_params) { host_offload += weights; weights = 0; }
      gathered = 2 * pc.per_layer / tp * base_w;
    } else if (l.zero >= 3) {
      // QLoRA under FSDP: bitsandbytes stores the packed NF4 weights in the FSDP dtype (bnb_4bit_quant_storage;
      // Answer.AI fsdp_qlora, PEFT docs accelerate/fsdp), so FSDP shards them like any 16-bit tensor; the
      // quantisation state (absmax constants) is not a parameter and stays whole on every rank. Two gathered
      // layers in packed form, as for the 16-bit base.
      const double norms_layer = norm_params_per_layer(model) / tp;
      const double layer_packed = std::max(0.0, pc.per_layer / tp - norms_layer) * 0.5 + norms_layer * base_w;
      weights = weights / dp;
      if (l.offload_params) { host_offload += weights; weights = 0; }
      gathered = 2 * layer_packed;
    }
    // Adapters: weights, grads, optimizer states (and master copies) in the training precision.
    const double aw = prec == Precision::fp32 ? 4.0 : 2.0;
    double a_states = lora_local * (opt_per_param + master_bytes);
    if (train.optimizer == Optimizer::adafactor) a_states = lora_local * 4.0 * 0.1;  // rank-r matrices barely factor
    if (l.zero >= 1) a_states /= dp;
    if (l.offload_optimizer) { host_offload += a_states; a_states = 0; }
    // ZeRO-2 / -3 shard the adapters' gradients, ZeRO-3 / FSDP full shard their weights too (ZeRO Sec. 5).
    const double a_weights = lora_local * aw / (l.zero >= 3 ? dp : 1.0);
    const double a_grads = lora_local * g_bytes / (l.zero >= 2 ? dp : 1.0);
    lora = a_weights + a_grads + a_states;
  }

  // ---- Activations (Korthikanti Sec. 4.2.3: with 1F1B the first stage keeps p micro-batches of its L/p
  // layers in flight; the last stage one micro-batch plus the logits). Interleaved 1F1B (v model chunks per
  // rank) warms up with more: pipeline_chunk_passes_in_flight, in units of one chunk of L / (p v) layers;
  // `scale` below is that in units of the stage's L / p layers.
  auto stage_scale = [&](int rank) {
    if (l.pp == 1) return 1.0;
    const double passes = double(pipeline_chunk_passes_in_flight(l.pp, l.vp, rank, l.num_microbatches));
    return passes / double(l.vp);
  };
  const int64_t in_flight = l.pp > 1 ? std::min<int64_t>(l.pp, l.num_microbatches) : 1;
  r.microbatches_in_flight = in_flight;
  const double first_scale = stage_scale(0), last_scale = stage_scale(l.pp - 1);
  const double interleave = first_scale / double(in_flight);
  r.interleave_factor = interleave;
  r.activations_per_layer = la.stored;
  // One layer recomputed in its backward: the whole layer under full recompute, what an op policy did not save
  // under op-level selective recompute (Korthikanti's selective recompute regenerates only the attention core).
  const bool op_sac = l.recompute == Recompute::selective && terms_.op_sac_rep + terms_.op_sac_split > 0;
  const double working =
      l.recompute == Recompute::full ? la.no_recompute : (op_sac ? la.no_recompute - la.stored : 0.0);
  const double e = act_bytes(prec);
  const double tokens = double(l.micro_batch) * double(train.seq_len) / double(l.cp);
  const double rep_div = l.sequence_parallel ? tp : 1.0;
  const double h = double(model.hidden_size);
  // Encoder-only models are counted as BertModel plus a task head (model.cpp): no vocabulary logits, no
  // final norm; instead the embeddings' LayerNorm keeps its input, in the weights' dtype (fp32 under
  // autocast), before the embedding dropout (HF modeling_bert.py BertEmbeddings).
  const bool encoder = model.arch == Arch::bert;
  double embed_acts = model.dropout ? tokens * h / rep_div : 0.0;  // embedding dropout mask
  if (encoder) embed_acts += tokens * h * (amp ? 4.0 : e) / rep_div;
  const double first_acts = (double(layers_stage) * la.stored + embed_acts) * first_scale + working;
  const double last_acts = double(layers_stage) * la.stored * last_scale + working +
                           (encoder ? 0.0
                                    : tokens * norm_bytes(model, prec, fl.full, amp, fw.fused_rmsnorm) * h / rep_div +
                                          (fl.full ? tokens * e * h / rep_div : 0.0));  // final norm, lm_head input
  // Logits and loss: the logits in the compute dtype (e) and the framework's fp32 vocabulary-sized buffers
  // (framework.h loss_fp32_buffers: HF / PyTorch cross-entropy keeps the fp32 log-softmax, and at the start of
  // backward the fp32 gradients of the log-probs and of the logits, 3 x 4 B; Megatron's vocab-parallel
  // cross-entropy works in place on one fp32 copy, 4 B) while every activation is still alive. Vocab-parallel
  // under TP. Encoders (sequence classification): b x classes logits, negligible.
  // Chunked loss (framework.h loss_chunks): the kept fp32 log-softmax for every token, the other buffers for one
  // chunk's tokens.
  const double fp32_buffers =
      1.0 + double(fw.loss_fp32_buffers - 1) / double(std::max(1, fw.loss_chunks));
  const double fp32_loss = 4.0 * fp32_buffers;
  double per_logit = fw.logits_freed_before_backward ? std::max(e + 8.0, fp32_loss) : e + fp32_loss;
  if (train.hf_fp32_logits) per_logit += 8.0;  // job.h: fp32 logits in the output + the shifted fp32 copy
  const double logits = encoder ? 0.0 : tokens * double(model.vocab_size) * per_logit / tp;
  double acts_gpu, logits_gpu;
  if (l.pp == 1) {
    acts_gpu = first_acts + (last_acts - double(layers_stage) * la.stored - working);
    logits_gpu = logits;
  } else if (one_rank) {
    const double middle = double(layers_stage) * la.stored * stage_scale(l.pp_rank) + working;
    acts_gpu = is_first ? first_acts : (is_last ? last_acts : middle);
    logits_gpu = is_last ? logits : 0.0;
  } else if (first_acts >= last_acts + logits) {
    acts_gpu = first_acts;
    logits_gpu = 0;
  } else {
    acts_gpu = last_acts;
    logits_gpu = logits;
  }
  // Expert parallelism's token dispatch (Megatron-Core MoEAlltoAllTokenDispatcher, torchtitan's all-to-all
  // expert parallel): the layer being computed holds its tokens permuted into a send buffer and the tokens
  // received from the other EP ranks, each k copies of the local tokens (balanced routing) of hidden width;
  // SP splits the tokens over the TP ranks. One layer's pair is alive at a time. Routing imbalance (the busiest
  // rank receives more than k x its tokens) is not modelled.
  double dispatch = 0;
  if (l.ep > 1 && moe_layer_count(model) > 0)
    dispatch = 2.0 * tokens * double(model.experts_per_token) * h * e / rep_div;
  acts_gpu += dispatch;
  // Sequence parallelism keeps activations split over the TP ranks, but each column-parallel GEMM all-gathers its
  // input to the whole sequence first and its backward produces the whole-sequence input gradient before the
  // reduce-scatter (Korthikanti et al. 2022 §4.2.2, the g / g-bar operators; Megatron-Core tensor_parallel/layers.py
  // gathers into a global memory buffer that stays allocated): one gathered input and one gradient of
  // tokens x hidden at a time, not divided by TP. Small at 4k-8k tokens; at 1M tokens (Llama 3 8B) 16 GiB.
  const double sp_gather = l.sequence_parallel && tp > 1 ? 2.0 * tokens * h * e : 0.0;
  acts_gpu += sp_gather;

  // Recompute (full, or an op-level selective policy) re-runs a layer's forward in that layer's backward, after
  // the loss gradient has gone through the head and the loss buffers are freed (torch.utils.checkpoint): the
  // recomputed layer's working set and the loss buffers are never alive together.
  if (logits_gpu > 0) acts_gpu -= std::min(working, logits_gpu);

  // ---- Peak. With one micro-batch per step and no pipeline, gradients are created during backward while
  // activations are freed layer by layer (PyTorch zero_grad(set_to_none=True)), so the peak is the larger of
  // "all activations + logits" and "all gradients"; with accumulation or pipelining both coexist.
  const double static_bytes = weights + master + states + lora + quant + gathered;
  // zero_grad(set_to_none=False) (PyTorch < 2.0 default, torch.nn.Module.zero_grad docs) zeroes the
  // gradients in place instead of freeing them, so they too coexist with the next forward's activations.
  // An fp32 gradient buffer is allocated once for the run (Megatron-Core's ParamAndGradBuffer), so it too
  // coexists with the activations.
  const bool grads_persist = l.num_microbatches > 1 || l.pp > 1 || !fl.full || !train.zero_grad_set_to_none ||
                             fw.fp32_grad_buffer;
  const double dynamic = grads_persist ? grads + acts_gpu + logits_gpu : std::max(grads, acts_gpu + logits_gpu);
  r.weights = weights;
  r.master_weights = master;
  r.gradients = grads;
  r.optimizer_states = states;
  r.activations = acts_gpu - dispatch;
  r.moe_dispatch = dispatch;
  r.logits = logits_gpu;
  r.lora_adapters = lora;
  r.quantization = quant;
  r.zero3_gathered = gathered;
  r.allocated_peak = static_bytes + dynamic;
  const int world = l.tp * l.pp * l.dp * l.cp;
  r.overhead = train.overhead_bytes >= 0 ? train.overhead_bytes
                                         : kDefaultCudaOverheadBytes + (world > 1 ? kDefaultNcclOverheadBytes : 0.0);
  const double frag = train.fragmentation >= 0 ? train.fragmentation : kDefaultFragmentation;
  r.fragmentation = frag * dynamic;
  // A trainer that frees its logits before backward (framework.h logits_freed_before_backward: torchtitan's
  // `del pred`) leaves their e-byte block cached, and the log-softmax gradient then needs a new 4-byte-per-logit
  // block: the fp32 upcast's freed block hosts the first backward buffer, the logits' block is too small for the
  // second, and PyTorch's caching allocator never merges blocks of different segments
  // (c10/cuda/CUDACachingAllocator.cpp), so the reserved peak holds the logits' segment beside the loss buffers.
  if (fw.logits_freed_before_backward && logits_gpu > 0)
    r.fragmentation += tokens * double(model.vocab_size) * e / tp;
  r.total = r.allocated_peak + r.overhead + r.fragmentation;
  r.total_low = r.total * kBandLowFactor;
  r.total_high = r.total * kBandHighFactor;

  // ---- Host RAM per node. Loading: every rank reads a 16-bit copy of the model (from_pretrained with
  // low_cpu_mem_usage), except ZeRO-3 / FSDP with rank-0 loading. Offload: the node's ranks' offloaded states.
  // DeepSpeed's estimators (runtime/zero/stage_1_and_2.py, stage3.py) take the larger of the two and add a
  // 1.5x buffer factor; so does this.
  const double gpn = double(l.gpus_per_node);
  const double ckpt_bytes = prec == Precision::fp32 ? 4.0 : 2.0;
  const double loading = (l.zero >= 3 ? 1.0 : gpn) * pc.total * ckpt_bytes;
  r.host_ram_per_node_bytes = 1.5 * std::max(loading, gpn * host_offload);

  if (model.arch == Arch::params_only) {
    r.notes.push_back(Warning{"model", "params_only_activations",
                              "only a parameter count was given: activations use a Llama-style shape derived from "
                              "it (hidden_size " + std::to_string(model.hidden_size) + ", " +
                                  std::to_string(model.num_layers) + " layers, vocab 32000); give the architecture "
                                  "for an exact estimate"});
  }
  if (!std::isfinite(r.total) || r.total < 0) return fail(Error{"model", "memory estimate is not finite"});
  return true;
}

namespace {

// Largest v in [1, limit] with ok(v) (ok monotone: true then false). 0 if ok(1) is false.
template <class F>
Result<int64_t> bounded_search(int64_t limit, F&& ok) {
  auto first = ok(int64_t(1));
  if (!first) return first.error();
  if (!first.value()) return int64_t(0);
  int64_t lo = 1, hi = limit;  // ok(lo) holds
  auto top = ok(hi);
  if (!top) return top.error();
  if (top.value()) return hi;
  while (hi - lo > 1) {        // <= 63 iterations for any int64 range
    const int64_t mid = lo + (hi - lo) / 2;
    auto r = ok(mid);
    if (!r) return r.error();
    (r.value() ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

Result<int64_t> max_micro_batch(const ModelSpec& model, const TrainConfig& train, const MemoryLayout& layout,
                                double usable, FitLevel level, int64_t limit) {
  if (!(usable > 0) || !std::isfinite(usable)) return Error{"gpu_memory_bytes", "must be positive"};
  limit = std::clamp<int64_t>(limit, 1, int64_t(1) << 24);
  const MemoryEstimator est(model, train);
  MemoryBreakdown m;
  return bounded_search(limit, [&](int64_t b) -> Result<bool> {
    MemoryLayout l = layout;
    l.micro_batch = b;
    Error e;
    if (!est.estimate(l, m, &e)) return e;
    return judged_bytes(m, level) <= usable;
  });
}

std::vector<CpReach> max_seq_len_by_cp(const ModelSpec& model, const TrainConfig& train, const MemoryLayout& layout,
                                       double usable) {
  std::vector<CpReach> out;
  const CpScheme scheme = resolved_cp_scheme(train);
  for (int k : {2, 4, 8}) {
    MemoryLayout l = layout;
    l.cp = std::max(1, layout.cp) * k;
    l.cp_ulysses = scheme == CpScheme::ulysses;
    if (!framework_layout_error(train.framework, train.method, l.tp, l.pp, l.cp, l.dp, l.zero,
                                l.offload_optimizer || l.offload_params, l.ep, scheme)
             .empty() ||
        !cp_layout_error(model, l.tp, l.cp, scheme).message.empty())
      continue;
    CpReach c;
    c.cp = l.cp;
    c.gpus = int64_t(l.tp) * l.pp * l.dp * l.cp;
    if (Result<int64_t> r = max_seq_len(model, train, l, usable, FitLevel::expected)) c.max_seq_len = *r;
    if (Result<int64_t> r = max_seq_len(model, train, l, usable, FitLevel::safe)) c.max_seq_len_safe = *r;
    out.push_back(c);
  }
  return out;
}

Result<int64_t> max_seq_len(const ModelSpec& model, const TrainConfig& train, const MemoryLayout& layout,
                            double usable, FitLevel level, int64_t limit) {
  if (!(usable > 0) || !std::isfinite(usable)) return Error{"gpu_memory_bytes", "must be positive"};
  limit = std::clamp<int64_t>(limit, 1, int64_t(1) << 24);
  // Context parallelism needs seq_len divisible by cp: search in units of cp.
  const int64_t unit = std::max(1, layout.cp);
  auto r = bounded_search(std::max<int64_t>(1, limit / unit), [&](int64_t n) -> Result<bool> {
    TrainConfig t = train;
    t.seq_len = n * unit;
    auto m = estimate_memory(model, t, layout);
    if (!m) return m.error();
    return judged_bytes(*m, level) <= usable;
  });
  if (!r) return r.error();
  return r.value() * unit;
}

}  // namespace trainfit
