// trainfit core — the model families (their knob defaults and ids), the named and integer knobs, the MoE layer
// layout, and the checks a model spec must pass (model.h).
#include "trainfit/catalog/model.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "catalog/model_internal.h"
#include "trainfit/catalog/names.h"

namespace trainfit {
using model_detail::is_mla;

namespace {

Error model_error(const std::string& prefix, const char* key, const std::string& msg) {
  return Error{prefix + (prefix.empty() ? "" : (prefix[0] == '/' ? "/" : ".")) + key, msg};
}

}  // namespace

// ---- families ----

namespace {
// The families and the knob values each one means (their ids: catalog/names.h kArchs). Sources: the Hugging Face
// modeling_*.py of each (see visit_tensors); dropout 0.1 in the GPT-2, OPT and BERT configs.
struct Family {
  Arch arch;
  Mlp mlp;
  Norm norm;
  Positional positional;
  Bias bias;
  Block block;
  QkNorm qk_norm;
  bool dropout;
};
constexpr Family kFamilies[] = {
    {Arch::gpt2, Mlp::gelu, Norm::layernorm, Positional::learned, Bias::all, Block::pre, QkNorm::none, true},
    {Arch::llama, Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre, QkNorm::none, false},
    {Arch::qwen2, Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::qkv, Block::pre, QkNorm::none, false},
    {Arch::mistral, Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre, QkNorm::none, false},
    {Arch::mixtral, Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre, QkNorm::none, false},
    {Arch::gemma2, Mlp::geglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::sandwich, QkNorm::none, false},
    {Arch::phi3, Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre, QkNorm::none, false},
    {Arch::falcon, Mlp::gelu, Norm::layernorm, Positional::rope, Bias::none, Block::parallel, QkNorm::none, false},
    {Arch::opt, Mlp::relu, Norm::layernorm, Positional::learned, Bias::all, Block::pre, QkNorm::none, true},
    {Arch::bert, Mlp::gelu, Norm::layernorm, Positional::learned, Bias::all, Block::post, QkNorm::none, true},
    {Arch::qwen3, Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre, QkNorm::head, false},
    {Arch::gemma3, Mlp::geglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::sandwich, QkNorm::head, false},
    {Arch::olmo2, Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::post, QkNorm::full, false},
    {Arch::deepseek_v3, Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre, QkNorm::none, false},
    {Arch::gpt_oss, Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::all, Block::pre, QkNorm::none, false},
    {Arch::llama4, Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre, QkNorm::none, false},
    {Arch::params_only, Mlp::swiglu, Norm::rmsnorm, Positional::rope, Bias::none, Block::pre, QkNorm::none, false},
};
const Family& family(Arch a) {
  for (const Family& f : kFamilies)
    if (f.arch == a) return f;
  return kFamilies[1];
}
}  // namespace

double moe_layer_count(const ModelSpec& m) {
  if (m.num_experts <= 1) return 0;
  return double((m.num_layers - m.first_k_dense) / std::max<int64_t>(1, m.moe_layer_step));
}

int64_t expert_intermediate_size(const ModelSpec& m) {
  return m.moe_intermediate_size > 0 ? m.moe_intermediate_size : m.intermediate_size;
}

bool is_moe_layer(const ModelSpec& m, int64_t layer) {
  if (m.num_experts <= 1 || layer < m.first_k_dense) return false;
  return (layer - m.first_k_dense + 1) % std::max<int64_t>(1, m.moe_layer_step) == 0;
}

bool arch_from_id(std::string_view id, Arch* out) {
  const std::optional<Arch> a = enum_value(kArchs, id);
  if (a) *out = *a;
  return a.has_value();
}

std::string arch_choices() {
  std::string s;
  for (const auto& e : kArchs) {
    if (e.value == Arch::params_only) continue;
    s += (s.empty() ? "" : ", ") + std::string(e.name);
  }
  return s;
}

void apply_family(ModelSpec& m, Arch a) {
  const Family& f = family(a);
  m.arch = a;
  std::tie(m.mlp, m.norm, m.positional, m.bias, m.block, m.qk_norm, m.dropout) =
      std::tie(f.mlp, f.norm, f.positional, f.bias, f.block, f.qk_norm, f.dropout);
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

// ---- validation ----

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
  // The same upper limits as the query's model keys (query_keys.cpp), so every valid model is a valid query.
  if (m.num_heads > (int64_t(1) << 14)) return model_error(prefix, "num_heads", "is implausibly large (> 2^14)");
  if (m.head_dim > (int64_t(1) << 14)) return model_error(prefix, "head_dim", "is implausibly large (> 2^14)");
  if (m.max_position_embeddings > (int64_t(1) << 24))
    return model_error(prefix, "max_position_embeddings", "is implausibly large (> 2^24)");
  if (m.rope_theta < 0 || double(m.rope_theta) > 1e12) return model_error(prefix, "rope_theta", "must be between 0 and 1e12");
  if (m.type_vocab_size < 0 || m.type_vocab_size > 1024)
    return model_error(prefix, "type_vocab_size", "must be between 0 and 1024");
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

// ---- named and integer knobs ----

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

}  // namespace trainfit
