// trainfit core — activation bytes of one transformer layer (Korthikanti et al. 2022, Sec. 4.1, Table 2, generalised
// tensor by tensor): the layout-independent terms per token, then the micro-batch, TP, SP, CP and recompute.
//
// Index of sections:
//   ---- element helpers ----    gated MLPs, fp32 softmax, fp8 GEMM inputs
//   ---- attention ----          attention core, multi-head latent attention, the attention block
//   ---- mlp ----                dense and MoE MLP blocks
//   ---- op-level recompute ---- what an op-level selective checkpointing policy saves
//   ---- module recompute ----   what Megatron-Core's --recompute-modules drop
//   ---- layer terms ----        activation_terms: one layer's bytes per token
//   ---- layout ----             finish_activations: micro-batch, TP, SP, CP and recompute applied
#include "estimate/memory_internal.h"

#include <algorithm>

namespace trainfit::memory_detail {

namespace {

// ---- element helpers ----

bool gated_mlp(const ModelSpec& m) { return m.mlp == Mlp::swiglu || m.mlp == Mlp::geglu; }
// Hugging Face eager attention of these families upcasts the softmax to fp32 (modeling_llama.py
// eager_attention_forward: softmax(dtype=torch.float32)); GPT-2, OPT, BERT and Falcon keep the compute dtype.
bool softmax_fp32(Arch a) { return !(a == Arch::gpt2 || a == Arch::opt || a == Arch::bert || a == Arch::falcon); }

// Transformer Engine keeps fp8 copies of GEMM inputs for the backward pass (1 B).
double linear_input_bytes(Precision p) { return p == Precision::fp8_mixed ? 1.0 : act_bytes(p); }

using Flags = Method;

// The layout-independent part of layer_activations: bytes per token of one layer (replicated, TP-split,
// eager-score coefficient), before the micro-batch, TP, SP, CP and recompute are applied (finish_activations).
using ActTerms = ActivationTerms;

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
  double routed = 0;  // the routed experts' part of split (rows that capacity and imbalance scale)
};

// ---- attention ----

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

// ---- mlp ----

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

// Bytes per routed copy of a token that the score multiply keeps of the expert's output (framework.h
// moe_probs_in_activation: none where the scores are applied inside the activation).
double expert_output_kept(const ActCtx& c) {
  return framework_profile(c.t.framework).moe_probs_in_activation ? 0.0 : c.e * double(c.m.hidden_size);
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
    // when they need it), the expert MLP, and the expert output kept by the routing-weight multiply where there is
    // one (expert_output_kept). A shared expert (DeepSeekMoE, Llama 4) runs on every token on the router's input.
    const double k = double(m.experts_per_token);
    const double width = double(expert_intermediate_size(m));
    const double routed = k * ((mlp_in ? c.le * h : 0.0) + mlp_bytes(c, width) + expert_output_kept(c));
    a.split += routed;
    a.routed += routed;
    a.rep += (fl.full ? c.le * h : 0.0) + 4.0 * double(m.num_experts);  // router input (if trained), fp32 router probs
    if (m.shared_expert_intermediate_size > 0) a.split += mlp_bytes(c, double(m.shared_expert_intermediate_size));
  } else {
    if (mlp_in && !(parallel_block && c.keeps(fl.lora.attn_input))) a.rep += c.le * h;
    a.split += mlp_bytes(c, double(m.intermediate_size));
  }
  if (!fl.full && fl.lora.mlp_input) a.rep += c.lora_dropout * h;
  if (m.dropout) a.rep += h;                                 // MLP dropout mask
}

// ---- op-level recompute ----

// Op-level selective checkpointing (framework.h selective_op_sac; torchtitan's "op" policy,
// distributed/activation_checkpoint.py): a layer keeps its input, the outputs of the odd-numbered matmuls in
// forward order (q 1, k 2, v 3, o 4, then gate 5, up 6, down 7 for a gated MLP, or fc1 5, fc2 6) and the
// attention kernel's output with its fp32 logsumexp. Outputs of hidden width (o, down / fc2) are reduced over TP
// ranks (replicated); the others are split by TP. An MoE layer's routed experts run as grouped GEMMs, which the
// save list leaves out, and its router's gate is forced to recompute (force_recompute_mm_shapes_by_fqns
// "moe.router.gate"): the layer keeps the top-k scores (fp32) and expert indices (int64), and a shared expert's
// linears continue the count after o (assumption: the router's recomputed matmul does not count). With expert
// parallelism the all-to-all results are saved (communication ops are MUST_SAVE): the k dispatched copies of
// each token and the k expert outputs returned. DeepEP's dispatch and combine are on the same save list
// (torchtitan distributed/deepep/deepep.py, the deepep::dispatch and deepep::combine ops): its dispatch sends a
// token once per destination EP rank (deepseek-ai/DeepEP impls/dispatch.cuh deduplicates the ranks of a token's
// experts), so it keeps per received row the hidden state, the top-k expert indices (int64) and scores (fp32) and
// its handle's routing metadata (k + 2 int32), and per token the combine's one output row and the handle's copy of
// the token's top-k indices (int64) and buffer slots (int32) (the per-expert copies for the grouped GEMMs are
// index_selects, recomputed). Full fine-tuning with standard attention only; otherwise Korthikanti's selective
// recompute stands.
void op_sac_terms(const ActCtx& c, ActTerms& terms) {
  const ModelSpec& m = c.m;
  if (!framework_profile(c.t.framework).selective_op_sac || !c.fl.full || m.kv_lora_rank > 0) return;
  const double h = double(m.hidden_size), hd = double(effective_head_dim(m));
  const double q = double(m.num_heads) * hd, kv = double(m.num_kv_heads) * hd;
  struct Out { double width; bool hidden; };
  // The saved outputs of a run of matmuls: the 1st, 3rd, 5th, ... of `outs` (the count starts at q).
  auto odd = [&](const Out* outs, int n, double& rep, double& split) {
    for (int i = 0; i < n; i += 2) (outs[i].hidden ? rep : split) += c.e * outs[i].width;
  };
  auto mlp = [&](double f, double& rep, double& split) {  // matmuls 5, 6 (, 7)
    const Out gated[] = {{f, false}, {f, false}, {h, true}};
    const Out plain[] = {{f, false}, {h, true}};
    if (gated_mlp(m)) odd(gated, 3, rep, split);
    else odd(plain, 2, rep, split);
  };
  // Attention (matmuls 1-4), the layer input, the kernel's output and logsumexp.
  const Out attn[] = {{q, false}, {kv, false}, {kv, false}, {h, true}};
  double rep = c.e * h, split = c.e * q + 4.0 * double(m.num_heads);
  // Run eager (framework.h compiles, eager_efficiency), the policy also keeps the attention kernel's inputs, the
  // rotated q and k and v: eager selective checkpointing caches every output of a saved op, compiled the partitioner
  // keeps only what the backward reads (torch/utils/checkpoint.py: "if policy in (MUST_SAVE, PREFER_SAVE) or
  // is_compiling: self.storage[key][idx] = ...out"), and torchtitan's save list holds the kernel that takes them
  // (inductor_compiled_code for flex attention, which it compiles even in eager: distributed/activation_checkpoint.py,
  // models/common/attention.py); for SDPA the term is inferred from the measured excess. Measured, eager against
  // compiled: 5.4 and 5.0 GiB more at 16,384 tokens per GPU for Llama 3.1 8B (SDPA, 32 layers: 10.2-11.1 KB per token
  // and layer against these 12.3; pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @31a17bf, Tables 1
  // and 3) and ~0.70 MiB per token for Qwen3-30B-A3B (flex, 48 layers: 15 KB against 10.2 with its compiled loss;
  // LambdaLabsML/torchtitan config_registry.py @14f8425, jobs 1176 and 1182).
  if (framework_profile(c.t.framework).compiles && !resolved_compile(c.t)) split += c.e * (q + 2.0 * kv);
  odd(attn, 4, rep, split);
  const double L = double(m.num_layers), moe = double(moe_layer_count(m));
  double dense_rep = 0, dense_split = 0, moe_rep = 0, moe_split = 0;
  if (moe < L) mlp(double(m.intermediate_size), dense_rep, dense_split);
  if (moe > 0) {
    const double k = double(m.experts_per_token);
    moe_rep += k * (4.0 + 8.0);  // aten.topk values (fp32 router scores) and indices (int64)
    if (m.shared_expert_intermediate_size > 0) mlp(double(m.shared_expert_intermediate_size), moe_rep, moe_split);
    terms.op_sac_ep = 2.0 * k * c.e * h * moe / L;
    terms.op_sac_deepep_row = (c.e * h + k * (8.0 + 4.0) + 4.0 * (k + 2.0)) * moe / L;
    terms.op_sac_deepep_token = (c.e * h + k * (8.0 + 4.0)) * moe / L;
    terms.experts = double(m.num_experts);
    terms.topk = k;
  }
  if (moe == 0) {
    terms.op_sac_rep = rep + dense_rep;
    terms.op_sac_split = split + dense_split;
  } else {  // dense and MoE layers mixed (DeepSeek first_k_dense, Llama 4 interleaving): the average layer
    terms.op_sac_rep = rep + (dense_rep * (L - moe) + moe_rep * moe) / L;
    terms.op_sac_split = split + (dense_split * (L - moe) + moe_split * moe) / L;
  }
}

// ---- module recompute ----

// Megatron-Core's selective recompute by module (TrainConfig::recompute_modules; megatron/core/transformer/
// transformer_layer.py, attention.py, multi_latent_attention.py, moe/experts.py, moe/moe_layer.py): the bytes per
// token of the average layer that the named modules no longer keep, counted once where modules overlap (moe holds
// moe_act and shared_experts). core_attn drops the eager scores (finish_activations). The TE layer specs fuse a dense
// layer's norms into the next linear, so layernorm acts on the MoE layers' pre-MLP norm and MLA's input norm only
// (gpt_layer_specs.py): the norm output their router, shared expert or down-projections kept.
void module_terms(const ActCtx& c, ActTerms& terms) {
  const uint32_t mods = c.t.recompute_modules;
  terms.keeps_scores = !(mods & kRecomputeCoreAttn);
  if ((mods & ~uint32_t(kRecomputeCoreAttn)) == 0 || !c.fl.full) return;
  const ModelSpec& m = c.m;
  const double h = double(m.hidden_size), L = double(m.num_layers);
  const double moe = moe_layer_count(m) / L, dense = 1.0 - moe;
  const double k = double(m.experts_per_token);
  const double f_e = double(expert_intermediate_size(m));
  double rep = 0, split = 0;
  if (mods & kRecomputeLayernorm) rep += c.le * h * (moe + (m.kv_lora_rank > 0 ? 1.0 : 0.0));
  if (mods & kRecomputeMoe) {
    // The checkpoint keeps the block's input only: dispatched copies, expert MLPs, outputs, router probabilities and
    // the shared expert re-run in backward (mlp_terms' MoE branch without its norm and router input).
    const double routed = moe * k * (c.le * h + mlp_bytes(c, f_e) + expert_output_kept(c));
    split += routed +
             moe * (m.shared_expert_intermediate_size > 0 ? mlp_bytes(c, double(m.shared_expert_intermediate_size)) : 0.0);
    terms.module_drop_routed = routed;
    rep += moe * 4.0 * double(m.num_experts);
  } else {
    if (mods & kRecomputeMoeAct) {  // the activation's output, fc2's input
      split += moe * k * c.le * f_e;
      terms.module_drop_routed = moe * k * c.le * f_e;
    }
    if ((mods & kRecomputeSharedExperts) && m.shared_expert_intermediate_size > 0)
      split += moe * mlp_bytes(c, double(m.shared_expert_intermediate_size));
  }
  if (mods & kRecomputeMlp) {  // a dense layer's MLP: its input copy and everything inside
    rep += dense * c.le * h;
    split += dense * mlp_bytes(c, double(m.intermediate_size));
  }
  if ((mods & kRecomputeMlaUpProj) && m.kv_lora_rank > 0)  // q, k, v given to the core (heads x (nope + rope), v)
    split += c.e * double(m.num_heads) * (2.0 * double(m.qk_nope_head_dim + m.qk_rope_head_dim) + double(m.v_head_dim));
  terms.module_drop_rep = rep;
  terms.module_drop_split = split;
}

}  // namespace

// ---- layer terms ----

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
    a.routed += sparse.routed * moe / L;
  }
  if (!fl.full) a.split += e * double(t.lora_rank) * fl.lora.targeted_linears;  // A outputs
  ActTerms terms;
  op_sac_terms(c, terms);
  module_terms(c, terms);
  terms.rep = a.rep;
  terms.split = a.split;
  terms.routed_split = a.routed;
  terms.score_coef = a.score_coef;
  terms.e = e;
  terms.h = double(m.hidden_size);
  terms.heads = double(m.num_heads);
  terms.amp = c.amp;
  return terms;
}

// ---- layout ----

namespace {

// The EP ranks a token's experts live on, on average: k distinct experts of E drawn uniformly, E / R on each of R
// ranks, reach R (1 - C(E - E/R, k) / C(E, k)) ranks (Qwen3-30B-A3B, 128 experts, top 8, EP 8: 5.34 of 8).
double expected_dest_ranks(double experts, double k, int ranks) {
  if (experts < 1 || k < 1 || ranks < 1) return 0.0;  // no routed experts: nothing is exchanged
  const double r = double(ranks), per_rank = experts / r;
  double miss = 1.0;  // the chance that none of the k lands on a given rank
  for (int i = 0; i < int(k) && miss > 0; ++i) miss *= std::max(0.0, (experts - per_rank - i) / (experts - i));
  return r * (1.0 - miss);
}

// Bytes per token of one layer that an op-level policy keeps of expert parallelism's token exchange
// (op_sac_terms): DeepEP's received rows and combined tokens, or the plain all-to-all's k copies each way.
// `rows`: the busiest GPU's extra routed rows (finish_activations), which swell what it receives; under DeepEP at
// most one row per token of each of the R ranks.
double op_sac_a2a(const ActTerms& terms, const TrainConfig& t, const MemoryLayout& l, double rows) {
  if (l.ep <= 1) return 0.0;
  if (runs_deepep(t, l.ep, l.gpus_per_node)) {
    const double received = std::min(double(l.ep), expected_dest_ranks(terms.experts, terms.topk, l.ep) * (1.0 + rows));
    return received * terms.op_sac_deepep_row + terms.op_sac_deepep_token;
  }
  // Padding swells both, an imbalance the received half only (as the dispatch buffers, memory_stages.cpp).
  return 0.5 * (moe_send_factor(t) + 1.0 + rows) * terms.op_sac_ep;
}

}  // namespace

LayerActivations finish_activations(const ActTerms& terms, const TrainConfig& t, const MemoryLayout& l) {
  // The busiest GPU's routed-expert rows (job.h moe_rows_factor: padded capacity, or dropless imbalance under EP)
  // scale what the routed experts keep.
  const double rows = moe_rows_factor(t, l.ep) - 1.0;
  const double rep = terms.rep, split = terms.split + rows * terms.routed_split, score_coef = terms.score_coef;
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
      // Megatron-Core's modules (module_terms): the scores stay without core_attn; the others drop their tensors,
      // down to the layer's input at least.
      if (terms.keeps_scores) out.stored += out.scores;
      if (terms.module_drop_rep + terms.module_drop_split > 0) {
        const double drop_split = terms.module_drop_split + rows * terms.module_drop_routed;
        const double kept = std::max(tokens * e * h / rep_div,
                                     out.stored - tokens * (terms.module_drop_rep / rep_div + drop_split / tp));
        out.module_dropped = out.stored - kept;
        out.stored = kept;
      }
      // An op-level policy (op_sac_terms) keeps less: its saved set, never more than the layer without recompute.
      if (terms.op_sac_rep + terms.op_sac_split > 0)
        out.stored = std::min(out.no_recompute, tokens * (terms.op_sac_rep / rep_div + terms.op_sac_split / tp +
                                                          op_sac_a2a(terms, t, l, rows)));
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

}  // namespace trainfit::memory_detail
