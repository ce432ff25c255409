// trainfit core — exact parameter counts (model.h): count_params, Adafactor's factored state, the norms QLoRA
// keeps, the LoRA adapters, and the params-only shape.
//
// Every architecture is described once, as the list of tensors its Hugging Face implementation registers
// (visit_tensors), built from the model's knobs (mlp, norm, positional, bias, block, qk_norm, MoE layout, MLA)
// rather than from its family; a family (kFamilies, model_spec.cpp) is only the set of knob defaults plus the few
// tensors no knob describes (OPT's position offset, BERT's token types and pooler, DeepSeek's router correction bias).
// The parameter count, the MoE active count, Adafactor's factored state and the LoRA adapter count are all
// derived from the same visitors, so they cannot disagree. data/models.json pins the result against published
// counts (model_presets.cpp reads it); hf_config.cpp reads the knobs from a Hugging Face config.json.
#include "trainfit/catalog/model.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "catalog/model_internal.h"
#include "trainfit/catalog/names.h"

namespace trainfit {
using model_detail::is_mla;

// ---- tensor visitors ----

namespace {
enum class Part { embedding, head, layer, final_norm };

// One registered tensor: rows x cols (cols = 1 for vectors), `copies` identical tensors (MoE experts),
// of which `active_copies` are used per token.
struct Tensor {
  Part part;
  double rows, cols;
  double copies = 1, active_copies = 1;
};

// Families whose Hugging Face module fuses q, k and v into one matrix (GPT-2 c_attn, Falcon query_key_value):
// one factored Adafactor state and one LoRA adapter for the three.
bool fused_qkv_matrix(Arch a) { return a == Arch::gpt2 || a == Arch::falcon; }
bool gated(Mlp m) { return m == Mlp::swiglu || m == Mlp::geglu; }
// A norm's parameters per normalised element: LayerNorm weight + bias, RMSNorm weight.
double norm_vec(const ModelSpec& m, double n) { return m.norm == Norm::layernorm ? 2 * n : n; }
int norms_per_block(Block b) { return b == Block::sandwich ? 4 : b == Block::parallel ? 1 : 2; }

// Tensors of one attention block. Layouts: modeling_llama.py LlamaAttention (q/k/v/o_proj; attention_bias
// biases all four; qwen2 biases q/k/v only), modeling_qwen3.py / modeling_gemma3.py (q_norm, k_norm over
// head_dim), modeling_olmo2.py (q_norm over heads * head_dim, k_norm over kv_heads * head_dim),
// modeling_gpt_oss.py (sinks: one per head), modeling_gpt2.py / modeling_falcon.py (fused c_attn /
// query_key_value: one h x (q + 2kv) matrix).
template <class F>
void visit_attention(const ModelSpec& m, F&& f) {
  const double h = double(m.hidden_size), hd = double(effective_head_dim(m));
  const double q = double(m.num_heads) * hd, kv = double(m.num_kv_heads) * hd;
  const bool qkv_bias = m.bias != Bias::none, o_bias = m.bias == Bias::attention || m.bias == Bias::all;
  if (fused_qkv_matrix(m.arch)) {
    f(Tensor{Part::layer, h, q + 2 * kv});
  } else {
    f(Tensor{Part::layer, h, q});
    f(Tensor{Part::layer, h, kv});
    f(Tensor{Part::layer, h, kv});
  }
  if (qkv_bias && fused_qkv_matrix(m.arch)) f(Tensor{Part::layer, q + 2 * kv, 1});
  if (qkv_bias && !fused_qkv_matrix(m.arch)) {
    f(Tensor{Part::layer, q, 1});
    f(Tensor{Part::layer, kv, 1});
    f(Tensor{Part::layer, kv, 1});
  }
  f(Tensor{Part::layer, q, h});
  if (o_bias) f(Tensor{Part::layer, h, 1});
  if (m.qk_norm == QkNorm::head) f(Tensor{Part::layer, 2 * norm_vec(m, hd), 1});
  if (m.qk_norm == QkNorm::full) f(Tensor{Part::layer, norm_vec(m, q) + norm_vec(m, kv), 1});
  if (m.attention_sinks) f(Tensor{Part::layer, double(m.num_heads), 1});
}

// Multi-head latent attention, modeling_deepseek_v3.py DeepseekV3Attention (DeepSeek-V2 paper Sec. 2.1.2-2.1.3):
// q_a_proj h -> q_lora_rank, q_a_layernorm, q_b_proj -> heads * (nope + rope) (or one q_proj without
// q_lora_rank); kv_a_proj_with_mqa h -> kv_lora_rank + rope, kv_a_layernorm, kv_b_proj -> heads * (nope + v);
// o_proj heads * v -> h. attention_bias biases q_a, kv_a and o (q_proj without q_lora_rank).
template <class F>
void visit_mla(const ModelSpec& m, F&& f) {
  const double h = double(m.hidden_size), H = double(m.num_heads);
  const double qr = double(m.q_lora_rank), kvr = double(m.kv_lora_rank), rope = double(m.qk_rope_head_dim);
  const double qk = double(m.qk_nope_head_dim) + rope, v = double(m.v_head_dim);
  const bool b = m.bias == Bias::attention || m.bias == Bias::all;
  if (qr > 0) {
    f(Tensor{Part::layer, h, qr});
    if (b) f(Tensor{Part::layer, qr, 1});
    f(Tensor{Part::layer, norm_vec(m, qr), 1});
    f(Tensor{Part::layer, qr, H * qk});
  } else {
    f(Tensor{Part::layer, h, H * qk});
    if (b) f(Tensor{Part::layer, H * qk, 1});
  }
  f(Tensor{Part::layer, h, kvr + rope});
  if (b) f(Tensor{Part::layer, kvr + rope, 1});
  f(Tensor{Part::layer, norm_vec(m, kvr), 1});
  f(Tensor{Part::layer, kvr, H * (double(m.qk_nope_head_dim) + v)});
  f(Tensor{Part::layer, H * v, h});
  if (b) f(Tensor{Part::layer, h, 1});
}

// One MLP of inner width i, `copies` of it (MoE experts) of which `active` run per token. Gated (SwiGLU,
// GeGLU): gate, up, down (LlamaMLP); otherwise fc1, fc2 (GPT2MLP, OPT fc1/fc2, BertIntermediate/Output).
// Bias::all biases every linear (GPT-2, OPT, BERT; gpt-oss experts' gate_up_proj_bias and down_proj_bias).
template <class F>
void visit_mlp(const ModelSpec& m, double i, double copies, double active, double layers, F&& f) {
  const double h = double(m.hidden_size), n = copies * layers, a = active * layers;
  const bool b = m.bias == Bias::all;
  if (gated(m.mlp)) {
    f(Tensor{Part::layer, h, i, n, a});
    f(Tensor{Part::layer, h, i, n, a});
    if (b) f(Tensor{Part::layer, 2 * i, 1, n, a});
  } else {
    f(Tensor{Part::layer, h, i, n, a});
    if (b) f(Tensor{Part::layer, i, 1, n, a});
  }
  f(Tensor{Part::layer, i, h, n, a});
  if (b) f(Tensor{Part::layer, h, 1, n, a});
}

// The MLPs of the whole stack (Part::layer tensors with their layer counts folded into copies). MoE layers:
// router h x E (modeling_mixtral.py block_sparse_moe.gate; gpt-oss: with a bias; DeepSeek-V3: with the
// e_score_correction_bias its reference code keeps as a parameter, inference/model.py Gate), the experts,
// and the shared expert (DeepSeek shared_experts, Llama 4 shared_expert, Qwen2-MoE shared_expert), always active.
template <class F>
void visit_mlps(const ModelSpec& m, F&& f) {
  const double L = double(m.num_layers), moe = moe_layer_count(m), dense = L - moe, h = double(m.hidden_size);
  if (dense > 0) visit_mlp(m, double(m.intermediate_size), 1, 1, dense, f);
  if (moe <= 0) return;
  const double E = double(m.num_experts), k = double(m.experts_per_token);
  f(Tensor{Part::layer, h, E, moe, moe});
  if (m.bias == Bias::all || m.arch == Arch::deepseek_v3) f(Tensor{Part::layer, E, 1, moe, moe});
  const double width = double(expert_intermediate_size(m));
  visit_mlp(m, width, E, k, moe, f);
  if (m.shared_expert_intermediate_size > 0) visit_mlp(m, double(m.shared_expert_intermediate_size), 1, 1, moe, f);
}

// Embeddings: tokens V x h; learned positions P x h (OPT: P + 2, OPTLearnedPositionalEmbedding's offset);
// BERT: token types T x h and the embeddings' LayerNorm.
template <class F>
void visit_embeddings(const ModelSpec& m, F&& f) {
  const double h = double(m.hidden_size), P = double(m.max_position_embeddings);
  f(Tensor{Part::embedding, double(m.vocab_size), h});
  if (m.positional == Positional::learned) f(Tensor{Part::embedding, m.arch == Arch::opt ? P + 2 : P, h});
  if (m.arch == Arch::bert) {
    f(Tensor{Part::embedding, double(m.type_vocab_size), h});
    f(Tensor{Part::embedding, norm_vec(m, h), 1});
  }
}

// Calls f(Tensor) for every parameter tensor of `m`. Per-layer tensors of the uniform part (attention, norms)
// come once (copies 1: multiply by num_layers); the MLPs come with their layer counts in `copies` /
// `active_copies` (Part::layer, layers folded in) so dense and MoE layers can be mixed. Final norm (BERT:
// the pooler dense h x h + bias instead, BertModel without an MLM head), and the LM head unless tied.
template <class F>
void visit_tensors(const ModelSpec& m, F&& f) {
  const double h = double(m.hidden_size), V = double(m.vocab_size), L = double(m.num_layers);
  visit_embeddings(m, f);
  auto per_layer = [&](const Tensor& t) { f(Tensor{t.part, t.rows, t.cols, t.copies * L, t.active_copies * L}); };
  if (is_mla(m)) visit_mla(m, per_layer);
  else visit_attention(m, per_layer);
  per_layer(Tensor{Part::layer, double(norms_per_block(m.block)) * norm_vec(m, h), 1});
  visit_mlps(m, f);
  if (m.arch == Arch::bert) {
    f(Tensor{Part::final_norm, h, h});
    f(Tensor{Part::final_norm, h, 1});
  } else {
    f(Tensor{Part::final_norm, norm_vec(m, h), 1});
  }
  if (!m.tie_embeddings) f(Tensor{Part::head, V, h});
}

}  // namespace

// ---- counts ----

Result<ParamCounts> count_params(const ModelSpec& m) {
  auto ok = validate_model(m);
  if (!ok) return ok.error();
  ParamCounts c;
  if (m.arch == Arch::params_only) {
    // The user's total is what must fit; the derived shape only splits it for sharding and activations.
    const double h = double(m.hidden_size), V = double(m.vocab_size);
    c.total = c.active = m.params;
    c.embedding = std::min(V * h, 0.25 * m.params);
    c.head = m.tie_embeddings ? 0 : c.embedding;
    c.per_layer = std::max(0.0, (m.params - c.embedding - c.head) / double(m.num_layers));
    return c;
  }
  double layers_total = 0, layers_active = 0, rest = 0;  // layer tensors come with their layer counts
  visit_tensors(m, [&](const Tensor& t) {
    const double n = t.rows * t.cols;
    switch (t.part) {
      case Part::embedding: c.embedding += n; rest += n; break;
      case Part::head: c.head += n; rest += n; break;
      case Part::final_norm: rest += n; break;
      case Part::layer:
        layers_total += n * t.copies;
        layers_active += n * t.active_copies;
        break;
    }
  });
  c.per_layer = layers_total / double(m.num_layers);  // the average block when dense and MoE layers mix
  // The routed experts alone (visit_mlps' expert MLPs): what expert parallelism divides.
  const double moe = moe_layer_count(m);
  if (moe > 0) {
    const double width = double(expert_intermediate_size(m));
    visit_mlp(m, width, double(m.num_experts), double(m.experts_per_token), moe,
              [&](const Tensor& t) { c.expert += t.rows * t.cols * t.copies; });
  }
  c.total = rest + layers_total;
  c.active = rest + layers_active;
  return c;
}

double adafactor_state_elements(const ModelSpec& m) {
  if (m.arch == Arch::params_only) {
    // Square-ish matrices of side h: (rows + cols) / (rows * cols) = 2 / h of the parameters.
    return m.hidden_size > 0 ? 2.0 * m.params / double(m.hidden_size) : m.params;
  }
  double total = 0;
  visit_tensors(m, [&](const Tensor& t) {
    const double n = t.cols > 1 ? t.rows + t.cols : t.rows;  // factored rows + cols, or the whole vector
    total += n * t.copies;
  });
  return total;
}

double norm_params_per_layer(const ModelSpec& m) {
  if (m.arch == Arch::params_only) return 2.0 * double(m.hidden_size);
  double n = double(norms_per_block(m.block)) * norm_vec(m, double(m.hidden_size));
  const double hd = double(effective_head_dim(m));
  if (m.qk_norm == QkNorm::head) n += 2 * norm_vec(m, hd);
  if (m.qk_norm == QkNorm::full) n += norm_vec(m, double(m.num_heads + m.num_kv_heads) * hd);
  if (is_mla(m)) n += norm_vec(m, double(m.q_lora_rank)) + norm_vec(m, double(m.kv_lora_rank));
  return n;
}

// ---- LoRA adapters ----

namespace {

struct Targets {
  bool q = false, k = false, v = false, o = false, gate = false, up = false, down = false;
};

Result<Targets> parse_targets(const std::vector<std::string>& targets) {
  Targets t;
  for (const auto& s : targets) {
    if (s == "q") t.q = true;
    else if (s == "k") t.k = true;
    else if (s == "v") t.v = true;
    else if (s == "o") t.o = true;
    else if (s == "gate") t.gate = true;
    else if (s == "up") t.up = true;
    else if (s == "down") t.down = true;
    else if (s == "all" || s == "all-linear") t.q = t.k = t.v = t.o = t.gate = t.up = t.down = true;
    else return Error{"lora_targets", "unknown target '" + s + "' (use q, k, v, o, gate, up, down or all)"};
  }
  return t;
}

// Attention adapters of one layer. `add(in, out, copies)`. Multi-head latent attention: "q" adapts q_a_proj
// and q_b_proj (or q_proj), "k" or "v" kv_a_proj_with_mqa and kv_b_proj, "o" o_proj (PEFT names).
template <class Add>
void lora_attention(const ModelSpec& m, const Targets& t, Add&& add) {
  const double h = double(m.hidden_size), hd = double(effective_head_dim(m));
  const double q = double(m.num_heads) * hd, kv = double(m.num_kv_heads) * hd;
  if (is_mla(m)) {
    const double H = double(m.num_heads), qr = double(m.q_lora_rank), kvr = double(m.kv_lora_rank);
    const double qk = double(m.qk_nope_head_dim + m.qk_rope_head_dim), v = double(m.v_head_dim);
    if (t.q && qr > 0) { add(h, qr, 1); add(qr, H * qk, 1); }
    if (t.q && qr == 0) add(h, H * qk, 1);
    if (t.k || t.v) { add(h, kvr + double(m.qk_rope_head_dim), 1); add(kvr, H * (double(m.qk_nope_head_dim) + v), 1); }
    if (t.o) add(H * v, h, 1);
    return;
  }
  // GPT-2 c_attn, Falcon query_key_value, Phi-3 qkv_proj: one fused matrix, one adapter (as PEFT does).
  if (fused_qkv_matrix(m.arch) || m.arch == Arch::phi3) {
    if (t.q || t.k || t.v) add(h, q + 2 * kv, 1);
  } else {
    if (t.q) add(h, q, 1);
    if (t.k) add(h, kv, 1);
    if (t.v) add(h, kv, 1);
  }
  if (t.o) add(q, h, 1);
}

// MLP adapters of `copies` MLPs of width i (Phi-3: gate_up_proj fused).
template <class Add>
void lora_mlp(const ModelSpec& m, const Targets& t, double i, double copies, Add&& add) {
  const double h = double(m.hidden_size);
  if (gated(m.mlp)) {
    if (m.arch == Arch::phi3) {
      if (t.gate || t.up) add(h, 2 * i, copies);
    } else {
      if (t.gate) add(h, i, copies);
      if (t.up) add(h, i, copies);
    }
  } else if (t.up) {
    add(h, i, copies);  // fc1 / c_fc / dense_h_to_4h / intermediate.dense
  }
  if (t.down) add(i, h, copies);
}

}  // namespace

Result<LoraCounts> lora_counts(const ModelSpec& m, int rank, const std::vector<std::string>& targets) {
  if (rank < 1 || rank > 65536) return Error{"lora_rank", "must be between 1 and 65536"};
  auto parsed = parse_targets(targets);
  if (!parsed) return parsed.error();
  const Targets& t = parsed.value();
  const double r = double(rank), L = double(m.num_layers);
  LoraCounts c;
  double total = 0, linears = 0;  // over the whole stack
  auto adder = [&](double layers) {
    return [&, layers](double in, double out, double copies) {
      total += r * (in + out) * copies * layers;  // A: in x r, B: r x out (Hu et al. 2021, Sec. 4.1)
      linears += copies * layers;
    };
  };
  lora_attention(m, t, adder(L));
  const double moe = moe_layer_count(m);
  if (L - moe > 0) lora_mlp(m, t, double(m.intermediate_size), 1, adder(L - moe));
  if (moe > 0) {
    const double width = double(expert_intermediate_size(m));
    lora_mlp(m, t, double(width), double(m.num_experts), adder(moe));
    if (m.shared_expert_intermediate_size > 0) lora_mlp(m, t, double(m.shared_expert_intermediate_size), 1, adder(moe));
  }
  if (linears == 0)
    return Error{"lora_targets", std::string("none of the targets exists in a ") + to_string(m.arch) + " model"};
  c.targeted_linears = linears / L;  // per layer (the average layer when dense and MoE layers mix)
  c.attn_input = t.q || t.k || t.v;
  c.attn_output = t.o;
  c.mlp_input = gated(m.mlp) ? (t.gate || t.up) : t.up;
  c.mlp_output = t.down;
  c.params = total;
  return c;
}

// ---- params-only models ----

// Params-only models. Shape from the aspect ratio hidden_size / num_layers = 128, which Llama 2 7B
// (4096/32), Llama 2 13B (5120/40) and GPT-3 175B (12288/96, Brown et al. 2020 Table 2.1) share, with a
// Llama-style block (12 h^2 parameters per layer: 4 h^2 attention + SwiGLU with i = 8h/3) and an untied
// 32,000-token vocabulary: params ~= 12 h^3 / 128 + 2 * 32000 * h, solved for h.
Result<ModelSpec> model_from_params(double params) {
  if (!std::isfinite(params) || params < 1e6 || params > 1e13)
    return Error{"model.params", "must be between 1e6 and 1e13 parameters"};
  const double V = 32000;
  double lo = 16, hi = 1 << 20;
  for (int it = 0; it < 100; ++it) {
    const double h = 0.5 * (lo + hi);
    (12 * h * h * h / 128 + 2 * V * h > params ? hi : lo) = h;
  }
  ModelSpec m;
  m.id = "custom";
  m.name = "params-only model";
  m.arch = Arch::params_only;
  const int64_t h = std::max<int64_t>(128, int64_t(std::llround(lo / 128.0)) * 128);
  m.hidden_size = h;
  m.num_layers = std::max<int64_t>(1, std::llround(double(h) / 128.0));
  m.head_dim = 128;
  m.num_heads = h / 128;
  m.num_kv_heads = m.num_heads;
  m.intermediate_size = std::max<int64_t>(256, std::llround(8.0 * double(h) / 3.0 / 256.0) * 256);
  m.vocab_size = int64_t(V);
  m.max_position_embeddings = 0;
  m.tie_embeddings = false;
  m.params = params;
  return m;
}

}  // namespace trainfit
