// trainfit core — model catalog and exact parameter counts.
//
// Every architecture is described once, as the list of tensors its Hugging Face implementation registers
// (visit_tensors), built from the model's knobs (mlp, norm, positional, bias, block, qk_norm, MoE layout, MLA)
// rather than from its family; a family (kFamilies) is only the set of knob defaults plus the few tensors no
// knob describes (OPT's position offset, BERT's token types and pooler, DeepSeek's router correction bias).
// The parameter count, the MoE active count, Adafactor's factored state and the LoRA adapter count are all
// derived from the same visitors, so they cannot disagree. data/models.json pins the result against published
// counts; hf_config.cpp reads the knobs from a Hugging Face config.json.
#include "trainfit/catalog/model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include "base/json_reader.h"

namespace trainfit {
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
bool is_mla(const ModelSpec& m) { return m.kv_lora_rank > 0; }
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
  const double width = m.moe_intermediate_size > 0 ? m.moe_intermediate_size : m.intermediate_size;
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

Error model_error(const std::string& prefix, const char* key, const std::string& msg) {
  return Error{prefix + (prefix.empty() ? "" : (prefix[0] == '/' ? "/" : ".")) + key, msg};
}

}  // namespace

namespace {
// The families: their ids (data/models.json, queries) and the knob values each one means. Sources: the
// Hugging Face modeling_*.py of each (see visit_tensors); dropout 0.1 in the GPT-2, OPT and BERT configs.
struct Family {
  Arch arch;
  const char* id;
  Mlp mlp;
  Norm norm;
  Positional positional;
  Bias bias;
  Block block;
  QkNorm qk_norm;
  bool dropout;
};
constexpr Family kFamilies[] = {
    {Arch::gpt2, "gpt2", Mlp::gelu, Norm::layernorm, Positional::learned, Bias::all, Block::pre, QkNorm::none, true},
    {Arch::llama, "llama", Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre, QkNorm::none, false},
    {Arch::qwen2, "qwen2", Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::qkv, Block::pre, QkNorm::none, false},
    {Arch::mistral, "mistral", Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre, QkNorm::none, false},
    {Arch::mixtral, "mixtral", Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre, QkNorm::none, false},
    {Arch::gemma2, "gemma2", Mlp::geglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::sandwich, QkNorm::none, false},
    {Arch::phi3, "phi3", Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre, QkNorm::none, false},
    {Arch::falcon, "falcon", Mlp::gelu, Norm::layernorm, Positional::rope, Bias::none, Block::parallel, QkNorm::none, false},
    {Arch::opt, "opt", Mlp::relu, Norm::layernorm, Positional::learned, Bias::all, Block::pre, QkNorm::none, true},
    {Arch::bert, "bert", Mlp::gelu, Norm::layernorm, Positional::learned, Bias::all, Block::post, QkNorm::none, true},
    {Arch::qwen3, "qwen3", Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre, QkNorm::head, false},
    {Arch::gemma3, "gemma3", Mlp::geglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::sandwich, QkNorm::head, false},
    {Arch::olmo2, "olmo2", Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::post, QkNorm::full, false},
    {Arch::deepseek_v3, "deepseek_v3", Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre,
     QkNorm::none, false},
    {Arch::gpt_oss, "gpt_oss", Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::all, Block::pre, QkNorm::none, false},
    {Arch::llama4, "llama4", Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre, QkNorm::none, false},
    {Arch::params_only, "params_only", Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre,
     QkNorm::none, false},
};
const Family& family(Arch a) {
  for (const Family& f : kFamilies)
    if (f.arch == a) return f;
  return kFamilies[1];
}
}  // namespace

const char* arch_id(Arch a) { return family(a).id; }

double moe_layer_count(const ModelSpec& m) {
  if (m.num_experts <= 1) return 0;
  return double((m.num_layers - m.first_k_dense) / std::max<int64_t>(1, m.moe_layer_step));
}

bool is_moe_layer(const ModelSpec& m, int64_t layer) {
  if (m.num_experts <= 1 || layer < m.first_k_dense) return false;
  return (layer - m.first_k_dense + 1) % std::max<int64_t>(1, m.moe_layer_step) == 0;
}

bool arch_from_id(std::string_view id, Arch* out) {
  for (const Family& f : kFamilies) {
    if (id == f.id) {
      *out = f.arch;
      return true;
    }
  }
  return false;
}

std::string arch_choices() {
  std::string s;
  for (const Family& f : kFamilies) {
    if (f.arch == Arch::params_only) continue;
    s += (s.empty() ? "" : ", ") + std::string(f.id);
  }
  return s;
}

void apply_family(ModelSpec& m, Arch a) {
  const Family& f = family(a);
  m.arch = a;
  m.mlp = f.mlp;
  m.norm = f.norm;
  m.positional = f.positional;
  m.bias = f.bias;
  m.block = f.block;
  m.qk_norm = f.qk_norm;
  m.dropout = f.dropout;
  m.attention_sinks = a == Arch::gpt_oss;
}

ModelSpec family_spec(Arch a) {
  ModelSpec m;
  apply_family(m, a);
  return m;
}

int64_t effective_head_dim(const ModelSpec& m) {
  if (m.head_dim > 0) return m.head_dim;
  return m.num_heads > 0 ? m.hidden_size / m.num_heads : 0;
}

namespace {

Result<bool> validate_shape(const ModelSpec& m, const std::string& prefix) {
  for (auto [v, key] : {std::pair<int64_t, const char*>{m.hidden_size, "hidden_size"},
                        {m.num_layers, "num_layers"},
                        {m.num_heads, "num_heads"},
                        {m.num_kv_heads, "num_kv_heads"},
                        {m.intermediate_size, "intermediate_size"},
                        {m.vocab_size, "vocab_size"}}) {
    if (v <= 0) return model_error(prefix, key, "must be a positive integer");
  }
  if (m.hidden_size > (int64_t(1) << 20)) return model_error(prefix, "hidden_size", "is implausibly large (> 2^20)");
  if (m.num_layers > 4096) return model_error(prefix, "num_layers", "is implausibly large (> 4096)");
  if (m.vocab_size > (int64_t(1) << 24)) return model_error(prefix, "vocab_size", "is implausibly large (> 2^24)");
  if (m.intermediate_size > (int64_t(1) << 22))
    return model_error(prefix, "intermediate_size", "is implausibly large (> 2^22)");
  // The same upper limits as the query's model keys (query.cpp), so every valid model is a valid query.
  if (m.num_heads > (int64_t(1) << 14)) return model_error(prefix, "num_heads", "is implausibly large (> 2^14)");
  if (m.head_dim > (int64_t(1) << 14)) return model_error(prefix, "head_dim", "is implausibly large (> 2^14)");
  if (m.max_position_embeddings > (int64_t(1) << 24))
    return model_error(prefix, "max_position_embeddings", "is implausibly large (> 2^24)");
  if (m.num_kv_heads > m.num_heads || m.num_heads % m.num_kv_heads != 0)
    return model_error(prefix, "num_kv_heads", "must divide num_heads (" + std::to_string(m.num_heads) + ")");
  if (m.head_dim < 0) return model_error(prefix, "head_dim", "must be >= 0 (0 = hidden_size / num_heads)");
  if (m.head_dim == 0 && m.hidden_size % m.num_heads != 0)
    return model_error(prefix, "num_heads", "must divide hidden_size when head_dim is not given");
  if (m.positional == Positional::learned && m.max_position_embeddings <= 0)
    return model_error(prefix, "max_position_embeddings", "must be positive (learned position embeddings)");
  if (m.arch == Arch::bert && m.type_vocab_size <= 0)
    return model_error(prefix, "type_vocab_size", "must be positive for bert");
  return true;
}

Result<bool> validate_moe(const ModelSpec& m, const std::string& prefix) {
  if (m.num_experts < 1 || m.num_experts > 4096) return model_error(prefix, "num_experts", "must be between 1 and 4096");
  if (m.experts_per_token < 1 || m.experts_per_token > m.num_experts)
    return model_error(prefix, "experts_per_token", "must be between 1 and num_experts");
  const int64_t limit = int64_t(1) << 22;
  if (m.moe_intermediate_size < 0 || m.moe_intermediate_size > limit)
    return model_error(prefix, "moe_intermediate_size", "must be between 0 and 2^22");
  if (m.shared_expert_intermediate_size < 0 || m.shared_expert_intermediate_size > limit)
    return model_error(prefix, "shared_expert_intermediate_size", "must be between 0 and 2^22");
  if (m.first_k_dense < 0 || m.first_k_dense > m.num_layers)
    return model_error(prefix, "first_k_dense", "must be between 0 and num_layers");
  if (m.moe_layer_step < 1 || m.moe_layer_step > m.num_layers)
    return model_error(prefix, "moe_layer_step", "must be between 1 and num_layers");
  if (m.num_experts > 1 && moe_layer_count(m) < 1)
    return model_error(prefix, "first_k_dense", "leaves no MoE layer (num_experts > 1)");
  if (m.num_experts == 1 && m.shared_expert_intermediate_size > 0)
    return model_error(prefix, "shared_expert_intermediate_size", "needs num_experts > 1");
  return true;
}

Result<bool> validate_attention(const ModelSpec& m, const std::string& prefix) {
  if (m.sliding_window < 0 || m.sliding_window > (int64_t(1) << 24))
    return model_error(prefix, "sliding_window", "must be between 0 (none) and 2^24 tokens");
  if (m.global_every < 0 || m.global_every > m.num_layers)
    return model_error(prefix, "global_every", "must be between 0 and num_layers");
  if (m.global_every > 0 && m.sliding_window == 0)
    return model_error(prefix, "global_every", "needs a sliding_window");
  for (auto [v, key] : {std::pair<int64_t, const char*>{m.q_lora_rank, "q_lora_rank"},
                        {m.kv_lora_rank, "kv_lora_rank"},
                        {m.qk_nope_head_dim, "qk_nope_head_dim"},
                        {m.qk_rope_head_dim, "qk_rope_head_dim"},
                        {m.v_head_dim, "v_head_dim"}}) {
    if (v < 0 || v > (int64_t(1) << 20)) return model_error(prefix, key, "must be between 0 and 2^20");
  }
  if (!is_mla(m)) {
    if (m.q_lora_rank > 0) return model_error(prefix, "q_lora_rank", "needs kv_lora_rank (multi-head latent attention)");
    return true;
  }
  if (m.qk_nope_head_dim + m.qk_rope_head_dim <= 0)
    return model_error(prefix, "qk_nope_head_dim", "multi-head latent attention needs qk_nope_head_dim + qk_rope_head_dim > 0");
  if (m.v_head_dim <= 0) return model_error(prefix, "v_head_dim", "must be positive with kv_lora_rank");
  if (m.num_kv_heads != m.num_heads)
    return model_error(prefix, "num_kv_heads", "must equal num_heads with multi-head latent attention");
  if (m.qk_norm != QkNorm::none) return model_error(prefix, "qk_norm", "is not modelled with multi-head latent attention");
  return true;
}

}  // namespace

Result<bool> validate_model(const ModelSpec& m, const std::string& prefix) {
  if (m.arch == Arch::params_only) {
    if (!(m.params > 0) || !std::isfinite(m.params)) return model_error(prefix, "params", "must be a positive number");
    if (m.hidden_size <= 0 || m.num_layers <= 0)
      return model_error(prefix, "params", "params-only model has no derived shape (use model_from_params)");
    return true;
  }
  if (auto r = validate_shape(m, prefix); !r) return r;
  if (auto r = validate_moe(m, prefix); !r) return r;
  return validate_attention(m, prefix);
}

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
    const double width = m.moe_intermediate_size > 0 ? m.moe_intermediate_size : m.intermediate_size;
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
    const double width = m.moe_intermediate_size > 0 ? m.moe_intermediate_size : m.intermediate_size;
    lora_mlp(m, t, double(width), double(m.num_experts), adder(moe));
    if (m.shared_expert_intermediate_size > 0) lora_mlp(m, t, double(m.shared_expert_intermediate_size), 1, adder(moe));
  }
  if (linears == 0)
    return Error{"lora_targets", std::string("none of the targets exists in a ") + arch_id(m.arch) + " model"};
  c.targeted_linears = linears / L;  // per layer (the average layer when dense and MoE layers mix)
  c.attn_input = t.q || t.k || t.v;
  c.attn_output = t.o;
  c.mlp_input = gated(m.mlp) ? (t.gate || t.up) : t.up;
  c.mlp_output = t.down;
  c.params = total;
  return c;
}

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

namespace {
// The values of the architecture knobs that take a name (JSON, links, CLI, UI); index = the enum's value.
const char* const kMlps[] = {"gelu", "relu", "swiglu", "geglu"};
const char* const kNorms[] = {"layernorm", "rmsnorm"};
const char* const kPositionals[] = {"learned", "rope", "alibi", "none"};
const char* const kBiases[] = {"none", "qkv", "attention", "all"};
const char* const kBlocks[] = {"pre", "post", "sandwich", "parallel"};
const char* const kQkNorms[] = {"none", "head", "full"};

template <class E, size_t N>
std::string set_enum(E* dst, const char* const (&names)[N], std::string_view v) {
  for (size_t i = 0; i < N; ++i) {
    if (v == names[i]) {
      *dst = static_cast<E>(i);
      return "";
    }
  }
  std::string choices;
  for (const char* n : names) choices += (choices.empty() ? "" : ", ") + std::string(n);
  return "unknown value \"" + std::string(v.substr(0, 64)) + "\"; expected one of: " + choices;
}
}  // namespace

const std::vector<std::string_view>& text_knobs() {
  static const std::vector<std::string_view> keys = {"mlp", "norm", "positional", "bias", "block", "qk_norm"};
  return keys;
}

const char* text_knob(const ModelSpec& m, std::string_view key) {
  if (key == "mlp") return kMlps[int(m.mlp)];
  if (key == "norm") return kNorms[int(m.norm)];
  if (key == "positional") return kPositionals[int(m.positional)];
  if (key == "bias") return kBiases[int(m.bias)];
  if (key == "block") return kBlocks[int(m.block)];
  if (key == "qk_norm") return kQkNorms[int(m.qk_norm)];
  return "";
}

std::string set_text_knob(ModelSpec& m, std::string_view key, std::string_view value) {
  if (key == "mlp") return set_enum(&m.mlp, kMlps, value);
  if (key == "norm") return set_enum(&m.norm, kNorms, value);
  if (key == "positional") return set_enum(&m.positional, kPositionals, value);
  if (key == "bias") return set_enum(&m.bias, kBiases, value);
  if (key == "block") return set_enum(&m.block, kBlocks, value);
  if (key == "qk_norm") return set_enum(&m.qk_norm, kQkNorms, value);
  return "unknown key";
}

std::vector<const char*> text_knob_values(std::string_view key) {
  auto all = [](const auto& names) { return std::vector<const char*>(std::begin(names), std::end(names)); };
  if (key == "mlp") return all(kMlps);
  if (key == "norm") return all(kNorms);
  if (key == "positional") return all(kPositionals);
  if (key == "bias") return all(kBiases);
  if (key == "block") return all(kBlocks);
  if (key == "qk_norm") return all(kQkNorms);
  return {};
}

const std::vector<IntKnob>& int_knobs() {
  static const std::vector<IntKnob> knobs = {
      {"sliding_window", &ModelSpec::sliding_window},
      {"global_every", &ModelSpec::global_every},
      {"moe_intermediate_size", &ModelSpec::moe_intermediate_size},
      {"shared_expert_intermediate_size", &ModelSpec::shared_expert_intermediate_size},
      {"first_k_dense", &ModelSpec::first_k_dense},
      {"moe_layer_step", &ModelSpec::moe_layer_step},
      {"q_lora_rank", &ModelSpec::q_lora_rank},
      {"kv_lora_rank", &ModelSpec::kv_lora_rank},
      {"qk_nope_head_dim", &ModelSpec::qk_nope_head_dim},
      {"qk_rope_head_dim", &ModelSpec::qk_rope_head_dim},
      {"v_head_dim", &ModelSpec::v_head_dim},
  };
  return knobs;
}

namespace {

// Reads one model object. `ptr` is its JSON pointer (or "model" for queries); errors name the key. Read with
// RapidJSON (json_reader.h): the catalog is parsed at start-up, on the web page's critical path.
using jsonr::JValue;
using jsonr::text_of;

// What a model object leaves implicit, then the checks and the exact count: the same for a parsed object and
// for the generated catalog table (builtin_presets).
Result<bool> finish_model(ModelSpec& m, bool have_kv, const std::string& ptr) {
  if (!have_kv) m.num_kv_heads = m.num_heads;  // HF default: multi-head attention
  if (m.arch == Arch::bert && m.type_vocab_size == 0) m.type_vocab_size = 2;
  auto ok = validate_model(m, ptr);
  if (!ok) return ok.error();
  auto c = count_params(m);
  if (!c) return Error{ptr, c.error().message};
  m.params = c->total;
  return true;
}

// The integer keys of a model object: the shape, then the knobs (int_knobs).
std::vector<IntKnob> int_keys() {
  std::vector<IntKnob> keys = {{"hidden_size", &ModelSpec::hidden_size},
                               {"num_layers", &ModelSpec::num_layers},
                               {"num_heads", &ModelSpec::num_heads},
                               {"num_kv_heads", &ModelSpec::num_kv_heads},
                               {"head_dim", &ModelSpec::head_dim},
                               {"intermediate_size", &ModelSpec::intermediate_size},
                               {"vocab_size", &ModelSpec::vocab_size},
                               {"max_position_embeddings", &ModelSpec::max_position_embeddings},
                               {"rope_theta", &ModelSpec::rope_theta},
                               {"rope_llama3_factor", &ModelSpec::rope_llama3_factor},
                               {"num_experts", &ModelSpec::num_experts},
                               {"experts_per_token", &ModelSpec::experts_per_token},
                               {"type_vocab_size", &ModelSpec::type_vocab_size}};
  keys.insert(keys.end(), int_knobs().begin(), int_knobs().end());
  return keys;
}

// One member of a model object other than "arch". The error's field is the key (the caller prefixes it).
Result<bool> read_model_member(ModelPreset& p, std::string_view k, const JValue& v, bool catalog) {
  ModelSpec& m = p.spec;
  static const std::vector<IntKnob> ints = int_keys();
  for (const IntKnob& key : ints) {
    if (k != key.key) continue;
    if (!jsonr::is_integer(v) && !(v.IsNumber() && std::floor(v.GetDouble()) == v.GetDouble()))
      return Error{"", "must be an integer"};
    const double d = v.GetDouble();
    if (d < 0 || d > 9e15) return Error{"", "must be a non-negative integer"};
    m.*key.member = int64_t(d);
    return true;
  }
  for (std::string_view key : text_knobs()) {
    if (k != key) continue;
    if (!v.IsString()) return Error{"", "must be a string"};
    std::string e = set_text_knob(m, k, text_of(v));
    if (!e.empty()) return Error{"", e};
    return true;
  }
  if (k == "id" || k == "name" || k == "hf_id" || k == "config_source" || k == "params_source") {
    if (!v.IsString()) return Error{"", "must be a string"};
    std::string str(text_of(v));
    if (k == "id") m.id = std::move(str);
    else if (k == "name") m.name = std::move(str);
    else if (k == "hf_id") m.hf_id = std::move(str);
    else if (k == "config_source") p.config_source = std::move(str);
    else p.params_source = std::move(str);
    return true;
  }
  bool* flag = k == "tie_embeddings" ? &m.tie_embeddings : k == "dropout" ? &m.dropout
             : k == "attention_sinks" ? &m.attention_sinks : nullptr;
  if (flag) {
    if (!v.IsBool()) return Error{"", "must be true or false"};
    *flag = v.GetBool();
    return true;
  }
  if (k == "params_expected" && catalog) {
    if (!v.IsNumber() || v.GetDouble() <= 0) return Error{"", "must be a positive number"};
    p.params_expected = v.GetDouble();
    return true;
  }
  return Error{"", "unknown key"};
}

Result<ModelPreset> preset_from_json(const JValue& j, const std::string& ptr, bool catalog) {
  auto err = [&](std::string_view key, const std::string& msg) {
    return Error{ptr + (ptr.empty() || ptr[0] == '/' ? "/" : ".") + std::string(key), msg};
  };
  if (!j.IsObject()) return Error{ptr, "must be an object"};
  const auto members = j.MemberBegin();
  const jsonr::SizeType count = j.MemberCount();
  ModelPreset p;
  ModelSpec& m = p.spec;
  if (const JValue* params = jsonr::find_member(j, "params"); params && !catalog) {
    for (jsonr::SizeType i = 0; i < count; ++i) {
      const std::string_view k = text_of(members[i].name);
      if (k != "params" && k != "name") return err(k, "unknown key next to params");
    }
    if (!params->IsNumber()) return err("params", "must be a number");
    auto r = model_from_params(params->GetDouble());
    if (!r) return err("params", r.error().message);
    p.spec = r.value();
    if (const JValue* name = jsonr::find_member(j, "name"); name && name->IsString()) p.spec.name = std::string(text_of(*name));
    return p;
  }
  // The family first: it sets the knobs' defaults, which the object's own knob keys then override.
  const JValue* arch = jsonr::find_member(j, "arch");
  if (!arch) return err("arch", "is required");
  Arch a{};
  if (!arch->IsString() || !arch_from_id(text_of(*arch), &a) || a == Arch::params_only)
    return err("arch", "must be one of " + arch_choices());
  apply_family(m, a);
  bool have_kv = false;
  // Members in document order; of duplicate keys only the last is read, as nlohmann kept only the last.
  for (jsonr::SizeType i = 0; i < count; ++i) {
    const std::string_view k = text_of(members[i].name);
    const JValue& v = members[i].value;
    if (jsonr::find_member(j, k) != &v || k == "arch") continue;
    auto r = read_model_member(p, k, v, catalog);
    if (!r) return err(k, r.error().message);
    if (k == "num_kv_heads") have_kv = true;
  }
  if (catalog && m.id.empty()) return err("id", "is required");
  if (!catalog && m.id.empty()) m.id = "custom";
  if (auto ok = finish_model(m, have_kv, ptr); !ok) return ok.error();
  return p;
}

}  // namespace

Result<ModelSpec> parse_model_json(std::string_view json_text) {
  try {
    rapidjson::Document doc;
    std::string why;
    if (!jsonr::parse_json(json_text, &doc, &why)) return Error{"model", "invalid JSON: " + why};
    auto p = preset_from_json(doc, "model", false);
    if (!p) return p.error();
    return p->spec;
  } catch (const std::exception& e) {
    return Error{"model", std::string("invalid JSON: ") + e.what()};
  }
}

Result<std::vector<ModelPreset>> parse_model_presets(std::string_view json_text) {
  try {
    rapidjson::Document doc;
    std::string why;
    if (!jsonr::parse_json(json_text, &doc, &why)) return Error{"", "invalid model catalog JSON: " + why};
    if (!doc.IsObject()) return Error{"", "the model catalog must be a JSON object"};
    const JValue* arr = jsonr::find_member(doc, "models");
    if (!arr || !arr->IsArray()) return Error{"/models", "must be an array"};
    if (arr->Empty()) return Error{"/models", "is empty"};
    std::vector<ModelPreset> out;
    out.reserve(arr->Size());
    for (jsonr::SizeType n = 0; n < arr->Size(); ++n) {
      const std::string ptr = "/models/" + std::to_string(n);
      auto p = preset_from_json((*arr)[n], ptr, true);
      if (!p) return p.error();
      for (const auto& prev : out) {
        if (prev.spec.id == p->spec.id) return Error{ptr + "/id", "duplicate id '" + prev.spec.id + "'"};
      }
      out.push_back(std::move(p).value());
    }
    return out;
  } catch (const std::exception& e) {
    return Error{"", std::string("invalid model catalog JSON: ") + e.what()};
  }
}

Result<std::vector<ModelSpec>> parse_model_catalog(std::string_view json_text) {
  auto p = parse_model_presets(json_text);
  if (!p) return p.error();
  std::vector<ModelSpec> out;
  out.reserve(p->size());
  for (const auto& e : p.value()) out.push_back(e.spec);
  return out;
}

const std::vector<ModelPreset>& builtin_presets() {
  // data/models.json as C++ (cmake/models_table.cmake writes it at build time): no JSON parse at start-up,
  // which cost ~10 ms of the web page's first load in the browser's baseline wasm tier. The test
  // ModelCatalog.GeneratedTableMatchesTheJson holds it equal to parse_model_presets(models.json). A broken
  // entry is a build defect the tests report loudly; at run time the catalog is then empty, never a crash.
  static const std::vector<ModelPreset> presets = [] {
    std::vector<ModelPreset> out;
    bool ok = true;
    // One generated entry: finished as a parsed object is (defaults, checks, exact count), then kept. The
    // spec is built once, in the call, and moved into the catalog.
    auto add = [&](ModelSpec spec, bool have_kv, const char* config_source, double params_expected,
                   const char* params_source) {
      if (!ok || !finish_model(spec, have_kv, "/models/" + std::to_string(out.size()))) {
        ok = false;
        return;
      }
      out.push_back(ModelPreset{std::move(spec), config_source, params_expected, params_source});
    };
#include "models_table.inc"
    return ok ? out : std::vector<ModelPreset>{};
  }();
  return presets;
}

const std::vector<ModelSpec>& builtin_models() {
  static const std::vector<ModelSpec> models = [] {
    std::vector<ModelSpec> out;
    for (const auto& p : builtin_presets()) out.push_back(p.spec);
    return out;
  }();
  return models;
}

const ModelSpec* find_model(std::string_view id) {
  for (const auto& m : builtin_models()) {
    if (m.id == id) return &m;
  }
  return nullptr;
}

}  // namespace trainfit
