// trainfit core — a Hugging Face config.json as a ModelSpec (model_from_hf_config, model.h).
//
// The text is untrusted (pasted in the page, read by the CLI, sent through the JS API): size and nesting are
// bounded before parsing, every field is type- and range-checked, and every problem is an error that names the
// config field ("hf_config.num_key_value_heads", "hf_config.text_config.layer_types"). model_type picks the
// family (the knob defaults, model_spec.cpp kFamilies); the fields then set the shape and the knobs. Field names and
// defaults follow each configuration_*.py of transformers (LlamaConfig, MistralConfig, Qwen2Config, Qwen3Config,
// Qwen3MoeConfig, Gemma3TextConfig, Phi3Config, MixtralConfig, DeepseekV3Config, Olmo2Config, GPT2Config,
// GptOssConfig, Llama4TextConfig, Mistral3Config, Glm4MoeConfig).
#include <cmath>
#include <nlohmann/json.hpp>

#include "base/json_reader.h"
#include "trainfit/catalog/model.h"

namespace trainfit {
namespace {

using json = nlohmann::json;

struct Type {
  const char* model_type;
  Arch arch;
  bool tie_default;  // the config class's tie_word_embeddings default
};
constexpr Type kTypes[] = {
    {"llama", Arch::llama, false},        {"mistral", Arch::mistral, false},   {"qwen2", Arch::qwen2, false},
    {"qwen3", Arch::qwen3, false},        {"qwen3_moe", Arch::qwen3, false},   {"gemma3", Arch::gemma3, true},
    {"gemma3_text", Arch::gemma3, true},  {"gemma2", Arch::gemma2, true},      {"phi3", Arch::phi3, false},
    {"mixtral", Arch::mixtral, false},    {"deepseek_v3", Arch::deepseek_v3, false},
    {"olmo2", Arch::olmo2, false},        {"gpt2", Arch::gpt2, true},          {"gpt_oss", Arch::gpt_oss, false},
    {"llama4", Arch::llama4, false},      {"llama4_text", Arch::llama4, false},
    {"mistral3", Arch::mistral, false},  // Mistral3Config: the Mistral text model under text_config, plus Pixtral
    {"glm4_moe", Arch::qwen3, false},    // Glm4MoeConfig (GLM-4.5, 4.5-Air, 4.6): read_glm4_moe below
};

std::string supported_types() {
  std::string s;
  for (const Type& t : kTypes) s += (s.empty() ? "" : ", ") + std::string(t.model_type);
  return s;
}

// The object the architecture fields are read from (text_config for the multimodal configs), with its name.
struct Cfg {
  const json& j;
  std::string prefix;  // "hf_config." or "hf_config.text_config."
  Error err(const char* key, const std::string& msg) const { return Error{prefix + key, msg}; }
  const json* find(const char* key) const {
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  }
};

// An integer field: absent or null gives `fallback` (or an error when required).
Result<int64_t> get_int(const Cfg& c, const char* key, int64_t fallback, bool required = false) {
  const json* v = c.find(key);
  if (!v) {
    if (required) return c.err(key, "is required");
    return fallback;
  }
  if (!v->is_number() || (!v->is_number_integer() && std::floor(v->get<double>()) != v->get<double>()))
    return c.err(key, "must be an integer");
  const double d = v->get<double>();
  if (d < 0 || d > double(int64_t(1) << 40)) return c.err(key, "must be a non-negative integer below 2^40");
  return int64_t(d);
}

Result<bool> get_bool(const Cfg& c, const char* key, bool fallback) {
  const json* v = c.find(key);
  if (!v) return fallback;
  if (!v->is_boolean()) return c.err(key, "must be true or false");
  return v->get<bool>();
}

Result<std::string> get_str(const Cfg& c, const char* key, const char* fallback) {
  const json* v = c.find(key);
  if (!v) return std::string(fallback);
  if (!v->is_string()) return c.err(key, "must be a string");
  return v->get<std::string>();
}

// Reads integer fields into the spec; `keys` pairs a config key with its ModelSpec member.
struct IntField {
  const char* key;
  int64_t ModelSpec::*member;
  bool required;
};
Result<bool> read_ints(const Cfg& c, ModelSpec& m, std::initializer_list<IntField> fields) {
  for (const IntField& f : fields) {
    auto v = get_int(c, f.key, m.*f.member, f.required);
    if (!v) return v.error();
    m.*f.member = *v;
  }
  return true;
}

// The shape every decoder config spells the same way (GPT-2 has its own names).
Result<bool> read_shape(const Cfg& c, ModelSpec& m) {
  if (m.arch == Arch::gpt2) {
    auto r = read_ints(c, m, {{"n_embd", &ModelSpec::hidden_size, true}, {"n_layer", &ModelSpec::num_layers, true},
                              {"n_head", &ModelSpec::num_heads, true}, {"vocab_size", &ModelSpec::vocab_size, true},
                              {"n_positions", &ModelSpec::max_position_embeddings, true}});
    if (!r) return r;
    auto inner = get_int(c, "n_inner", 4 * m.hidden_size);  // GPT2MLP: n_inner or 4 * n_embd
    if (!inner) return inner.error();
    m.intermediate_size = *inner;
    m.num_kv_heads = m.num_heads;
    return true;
  }
  // rope_theta absent from config.json: the transformers config class's default (Gemma3TextConfig and MixtralConfig
  // 1e6, GptOssConfig 150000, Llama4TextConfig 500000, the other rotary families' classes 10000).
  if (m.positional == Positional::rope)
    m.rope_theta = m.arch == Arch::gemma3 || m.arch == Arch::mixtral ? 1000000
                   : m.arch == Arch::gpt_oss                         ? 150000
                   : m.arch == Arch::llama4                          ? 500000
                                                                     : 10000;
  auto r = read_ints(c, m, {{"hidden_size", &ModelSpec::hidden_size, true},
                            {"num_hidden_layers", &ModelSpec::num_layers, true},
                            {"num_attention_heads", &ModelSpec::num_heads, true},
                            {"intermediate_size", &ModelSpec::intermediate_size, true},
                            {"vocab_size", &ModelSpec::vocab_size, true},
                            {"max_position_embeddings", &ModelSpec::max_position_embeddings, false},
                            {"rope_theta", &ModelSpec::rope_theta, false},
                            {"head_dim", &ModelSpec::head_dim, false}});
  if (!r) return r;
  // Llama 3.x rope scaling (transformers modeling_rope_utils _compute_llama3_parameters): its factor.
  if (const json* rs = c.find("rope_scaling"); rs && rs->is_object()) {
    const auto t = rs->find("rope_type") != rs->end() ? rs->find("rope_type") : rs->find("type");
    const auto f = rs->find("factor");
    if (t != rs->end() && t->is_string() && t->get<std::string>() == "llama3" && f != rs->end() && f->is_number()) {
      const double x = f->get<double>();
      if (!(x >= 1 && x <= 1024 && std::floor(x) == x)) return c.err("rope_scaling.factor", "must be a whole number in 1..1024");
      m.rope_llama3_factor = int64_t(x);
    }
  }
  auto kv = get_int(c, "num_key_value_heads", m.num_heads);  // absent: multi-head attention
  if (!kv) return kv.error();
  m.num_kv_heads = *kv;
  return true;
}

// hidden_act / hidden_activation / activation_function: gated families stay gated (SiLU: SwiGLU, GELU: GeGLU).
Result<bool> read_activation(const Cfg& c, ModelSpec& m) {
  const char* key = m.arch == Arch::gpt2 ? "activation_function" : c.find("hidden_activation") ? "hidden_activation"
                                                                                                  : "hidden_act";
  auto act = get_str(c, key, "");
  if (!act) return act.error();
  const std::string& a = *act;
  if (a.empty()) return true;
  const bool gelu = a.rfind("gelu", 0) == 0, silu = a == "silu" || a == "swish";
  const bool gated = m.mlp == Mlp::swiglu || m.mlp == Mlp::geglu;
  if (gated && silu) m.mlp = Mlp::swiglu;
  else if (gated && gelu) m.mlp = Mlp::geglu;
  else if (!gated && gelu) m.mlp = Mlp::gelu;
  else if (!gated && a == "relu") m.mlp = Mlp::relu;
  else return c.err(key, "activation \"" + a.substr(0, 32) + "\" is not modelled for this model_type");
  return true;
}

// attention_bias biases q, k, v and o (LlamaAttention); mlp_bias every MLP linear too.
Result<bool> read_bias(const Cfg& c, ModelSpec& m) {
  if (m.arch == Arch::gpt2 || m.arch == Arch::qwen2) return true;  // fixed by the family
  auto attn = get_bool(c, "attention_bias", m.bias != Bias::none);
  auto mlp = get_bool(c, "mlp_bias", m.bias == Bias::all);
  if (!attn) return attn.error();
  if (!mlp) return mlp.error();
  if (*mlp && !*attn) return c.err("mlp_bias", "is modelled only together with attention_bias");
  m.bias = *mlp ? Bias::all : *attn ? Bias::attention : Bias::none;
  return true;
}

// layer_types ("sliding_attention" / "full_attention"): the full layers must be every n-th one.
Result<int64_t> global_every_from_layer_types(const Cfg& c, const json& types, int64_t layers) {
  if (!types.is_array() || int64_t(types.size()) != layers)
    return c.err("layer_types", "must list one type per layer (num_hidden_layers = " + std::to_string(layers) + ")");
  int64_t full = 0;
  for (const json& t : types) {
    if (!t.is_string() || (t != "sliding_attention" && t != "full_attention"))
      return c.err("layer_types", "entries must be \"sliding_attention\" or \"full_attention\"");
    full += t == "full_attention";
  }
  if (full == 0) return int64_t(0);
  if (full == layers) return int64_t(-1);  // no layer is windowed
  const int64_t n = layers / full;
  for (int64_t i = 0; i < layers; ++i) {
    const bool want_full = (i + 1) % n == 0 && (i + 1) / n <= full;
    if ((types[size_t(i)] == "full_attention") != want_full)
      return c.err("layer_types", "full attention every n-th layer is the only pattern modelled");
  }
  return n;
}

// Sliding-window attention: Mistral (every layer), Gemma 3 (sliding_window_pattern), gpt-oss (layer_types),
// Qwen2/3 (only with use_sliding_window).
Result<bool> read_window(const Cfg& c, ModelSpec& m) {
  auto window = get_int(c, "sliding_window", 0);
  if (!window) return window.error();
  auto use = get_bool(c, "use_sliding_window", m.arch != Arch::qwen2 && m.arch != Arch::qwen3);
  if (!use) return use.error();
  if (!*use || *window == 0) return true;
  m.sliding_window = *window;
  if (const json* types = c.find("layer_types")) {
    auto n = global_every_from_layer_types(c, *types, m.num_layers);
    if (!n) return n.error();
    if (*n < 0) m.sliding_window = 0;
    else m.global_every = *n;
    auto pattern = get_int(c, "sliding_window_pattern", m.global_every);
    if (!pattern) return pattern.error();
    if (*n >= 0 && *pattern != m.global_every)
      return c.err("sliding_window_pattern", "contradicts layer_types (full attention every " +
                                                 std::to_string(m.global_every) + " layers)");
  } else if (m.arch == Arch::gemma3) {
    auto pattern = get_int(c, "sliding_window_pattern", 6);  // Gemma3TextConfig default
    if (!pattern) return pattern.error();
    m.global_every = *pattern;
  }
  if (m.global_every > m.num_layers) return c.err("sliding_window_pattern", "exceeds num_hidden_layers");
  return true;
}

// Mixture of experts, by family: Mixtral / gpt-oss / Llama 4 (num_local_experts), Qwen3-MoE (num_experts,
// moe_intermediate_size, decoder_sparse_step, mlp_only_layers), DeepSeek-V3 (n_routed_experts,
// n_shared_experts, first_k_dense_replace, moe_layer_freq).
Result<bool> read_moe(const Cfg& c, ModelSpec& m) {
  const char* experts_key = m.arch == Arch::qwen3 ? "num_experts" : m.arch == Arch::deepseek_v3 ? "n_routed_experts"
                                                                                                : "num_local_experts";
  auto experts = get_int(c, experts_key, 1);
  if (!experts) return experts.error();
  if (*experts <= 1) return true;
  m.num_experts = *experts;
  auto k = get_int(c, c.find("num_experts_per_tok") ? "num_experts_per_tok" : "experts_per_token", 0, true);
  if (!k) return c.err("num_experts_per_tok", "is required with " + std::string(experts_key));
  if (*k < 1 || *k > m.num_experts)
    return c.err("num_experts_per_tok", "must be between 1 and " + std::string(experts_key) + " (" +
                                            std::to_string(m.num_experts) + ")");
  m.experts_per_token = *k;
  if (m.arch == Arch::llama4) {
    // Llama4TextMoe: experts and the shared expert of width intermediate_size; dense layers intermediate_size_mlp.
    m.moe_intermediate_size = m.shared_expert_intermediate_size = m.intermediate_size;
    auto dense = get_int(c, "intermediate_size_mlp", m.intermediate_size);
    auto step = get_int(c, "interleave_moe_layer_step", 1);
    if (!dense) return dense.error();
    if (!step) return step.error();
    m.intermediate_size = *dense;
    m.moe_layer_step = *step;
    return true;
  }
  auto width = get_int(c, "moe_intermediate_size", 0);
  if (!width) return width.error();
  m.moe_intermediate_size = *width;
  if (m.arch == Arch::qwen3) {
    auto step = get_int(c, "decoder_sparse_step", 1);
    if (!step) return step.error();
    m.moe_layer_step = *step;
    const json* dense = c.find("mlp_only_layers");
    if (dense && (!dense->is_array() || !dense->empty())) return c.err("mlp_only_layers", "only an empty list is modelled");
  }
  if (m.arch == Arch::deepseek_v3) {
    auto shared = get_int(c, "n_shared_experts", 0);
    auto first = get_int(c, "first_k_dense_replace", 0);
    auto freq = get_int(c, "moe_layer_freq", 1);
    if (!shared) return shared.error();
    if (!first) return first.error();
    if (!freq) return freq.error();
    if (*freq != 1) return c.err("moe_layer_freq", "only 1 is modelled");
    m.shared_expert_intermediate_size = *shared * m.moe_intermediate_size;  // one MLP of n_shared * width
    m.first_k_dense = *first;
  }
  return true;
}

// GLM-4.5 / 4.5-Air / 4.6 (Glm4MoeConfig; transformers modular_glm4_moe.py): the Qwen3 family's block
// (SwiGLU, RMSNorm, RoPE, pre-norm) with DeepSeek-V3's MoE layout (Glm4MoeDecoderLayer = DeepseekV3DecoderLayer):
// first_k_dense_replace dense layers, then n_routed_experts of width moe_intermediate_size plus n_shared_experts
// of that width. attention_bias biases q, k and v (o_proj has none); use_qk_norm adds per-head q/k RMSNorm;
// partial_rotary_factor rotates part of each head (no parameters, elementwise FLOPs only: checked, not modelled).
// The router's e_score_correction_bias is a buffer, not a parameter (Glm4MoeTopkRouter.register_buffer).
// MTP: num_nextn_predict_layers next-token-prediction layers sit in the checkpoints at index
// num_hidden_layers, but Glm4MoePreTrainedModel drops them on load (_keys_to_ignore_on_load_unexpected
// model.layers.46 / .92) and the published totals (106B, 355B) leave them out: they are not counted or trained.
Result<int64_t> read_glm4_moe(const Cfg& c, ModelSpec& m) {
  auto attn_bias = get_bool(c, "attention_bias", false);
  auto qk_norm = get_bool(c, "use_qk_norm", false);
  if (!attn_bias) return attn_bias.error();
  if (!qk_norm) return qk_norm.error();
  m.bias = *attn_bias ? Bias::qkv : Bias::none;
  m.qk_norm = *qk_norm ? QkNorm::head : QkNorm::none;
  if (const json* f = c.find("partial_rotary_factor")) {
    if (!f->is_number() || !(f->get<double>() > 0.0) || f->get<double>() > 1.0)
      return c.err("partial_rotary_factor", "must be a number in (0, 1]");
  }
  auto experts = get_int(c, "n_routed_experts", 1);
  auto k = get_int(c, "num_experts_per_tok", 1);
  auto width = get_int(c, "moe_intermediate_size", 0);
  auto shared = get_int(c, "n_shared_experts", 0);
  auto first = get_int(c, "first_k_dense_replace", 0);
  auto mtp = get_int(c, "num_nextn_predict_layers", 0);
  for (const auto* r : {&experts, &k, &width, &shared, &first, &mtp})
    if (!*r) return r->error();
  if (*mtp < 0 || *mtp > 64) return c.err("num_nextn_predict_layers", "must be between 0 and 64");
  if (*experts <= 1) return *mtp;
  if (*k < 1 || *k > *experts)
    return c.err("num_experts_per_tok", "must be between 1 and n_routed_experts (" + std::to_string(*experts) + ")");
  if (*width < 1) return c.err("moe_intermediate_size", "is required with n_routed_experts");
  if (*shared < 0 || *shared > 64) return c.err("n_shared_experts", "must be between 0 and 64");
  m.num_experts = *experts;
  m.experts_per_token = *k;
  m.moe_intermediate_size = *width;
  m.shared_expert_intermediate_size = *shared * *width;  // one MLP of n_shared * width
  m.first_k_dense = *first;
  return *mtp;
}

// Multi-head latent attention (DeepseekV3Config): q_lora_rank null = a plain q_proj.
Result<bool> read_mla(const Cfg& c, ModelSpec& m) {
  auto r = read_ints(c, m, {{"q_lora_rank", &ModelSpec::q_lora_rank, false},
                            {"kv_lora_rank", &ModelSpec::kv_lora_rank, true},
                            {"qk_nope_head_dim", &ModelSpec::qk_nope_head_dim, true},
                            {"qk_rope_head_dim", &ModelSpec::qk_rope_head_dim, true},
                            {"v_head_dim", &ModelSpec::v_head_dim, true}});
  if (!r) return r;
  m.num_kv_heads = m.num_heads;  // every head has its own decompressed K and V
  m.head_dim = 0;
  return true;
}

// tie_word_embeddings may sit at the top level and in text_config; both present and different is a contradiction.
Result<bool> read_tie(const json& top, const Cfg& c, const Type& t, ModelSpec& m) {
  Cfg outer{top, "hf_config."};
  auto a = get_bool(outer, "tie_word_embeddings", t.tie_default);
  auto b = get_bool(c, "tie_word_embeddings", a ? *a : t.tie_default);
  if (!a) return a.error();
  if (!b) return b.error();
  if (outer.find("tie_word_embeddings") && c.find("tie_word_embeddings") && *a != *b)
    return c.err("tie_word_embeddings", "contradicts the top-level tie_word_embeddings");
  m.tie_embeddings = *b;
  return true;
}

// A validate_model error names ModelSpec's key; say which config field that is.
Error config_error(const Error& e, const Cfg& c, const ModelSpec& m) {
  static const std::pair<const char*, const char*> names[] = {
      {"model.hidden_size", "hidden_size"},         {"model.num_layers", "num_hidden_layers"},
      {"model.num_heads", "num_attention_heads"},   {"model.num_kv_heads", "num_key_value_heads"},
      {"model.head_dim", "head_dim"},               {"model.intermediate_size", "intermediate_size"},
      {"model.vocab_size", "vocab_size"},           {"model.max_position_embeddings", "max_position_embeddings"},
      {"model.num_experts", "num_experts"},         {"model.experts_per_token", "num_experts_per_tok"},
      {"model.first_k_dense", "first_k_dense_replace"}, {"model.moe_layer_step", "interleave_moe_layer_step"},
      {"model.global_every", "sliding_window_pattern"}, {"model.sliding_window", "sliding_window"}};
  std::string key = e.field.rfind("model.", 0) == 0 ? e.field.substr(6) : e.field;
  for (const auto& [spec, hf] : names) {
    if (e.field == spec) key = hf;
  }
  if (m.arch == Arch::gpt2 && key == "hidden_size") key = "n_embd";
  return Error{c.prefix + key, e.message};
}

json gemma3_text_defaults() {
  return json{{"vocab_size", 262208},       {"hidden_size", 2304},          {"intermediate_size", 9216},
              {"num_hidden_layers", 26},    {"num_attention_heads", 8},     {"num_key_value_heads", 4},
              {"head_dim", 256},            {"max_position_embeddings", 131072}, {"sliding_window", 4096},
              {"sliding_window_pattern", 6}, {"hidden_activation", "gelu_pytorch_tanh"}};
}

Result<ModelSpec> spec_from(const json& top, const Cfg& c, const Type& t) {
  ModelSpec m = family_spec(t.arch);
  m.id = "custom";
  m.name = std::string(t.model_type) + " (config.json)";
  for (auto step : {read_shape, read_activation, read_bias, read_window, read_moe}) {
    auto r = step(c, m);
    if (!r) return r.error();
  }
  if (m.arch == Arch::deepseek_v3) {
    if (auto r = read_mla(c, m); !r) return r.error();
  }
  int64_t mtp = 0;
  const bool glm = std::string(t.model_type) == "glm4_moe";
  if (glm) {
    auto r = read_glm4_moe(c, m);
    if (!r) return r.error();
    mtp = *r;
  }
  if (auto r = read_tie(top, c, t, m); !r) return r.error();
  if (auto ok = validate_model(m, "model"); !ok) return config_error(ok.error(), c, m);
  auto counts = count_params(m);
  if (!counts) return config_error(counts.error(), c, m);
  m.params = counts->total;
  if (glm && mtp > 0)
    m.name = "glm4_moe (config.json; " + std::to_string(mtp) + " MTP layer(s) not counted)";
  return m;
}

}  // namespace

Result<ModelSpec> model_from_hf_config(std::string_view text) {
  if (text.size() > (1u << 20)) return Error{"hf_config", "config.json is too large (the limit is 1 MiB)"};
  if (jsonr::json_nesting_exceeds(text, 32)) return Error{"hf_config", "config.json is nested too deeply"};
  const json top = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (top.is_discarded()) return Error{"hf_config", "is not valid JSON"};
  if (!top.is_object()) return Error{"hf_config", "must be a JSON object (a config.json)"};
  try {
    Cfg outer{top, "hf_config."};
    auto type = get_str(outer, "model_type", "");
    if (!type) return type.error();
    if (type->empty()) return outer.err("model_type", "is required (supported: " + supported_types() + ")");
    const Type* t = nullptr;
    for (const Type& k : kTypes) {
      if (*type == k.model_type) t = &k;
    }
    if (!t) return outer.err("model_type", "\"" + type->substr(0, 64) + "\" is not supported (supported: " +
                                              supported_types() + ")");
    const json* text_config = outer.find("text_config");
    if (text_config && !text_config->is_object()) return outer.err("text_config", "must be an object");
    // Gemma 3's multimodal configs leave most text fields to Gemma3TextConfig's defaults
    // (transformers configuration_gemma3.py): they are filled in first, the file's fields win.
    json fields = t->arch == Arch::gemma3 ? gemma3_text_defaults() : json::object();
    fields.update(text_config ? *text_config : top);
    auto m = spec_from(top, Cfg{fields, text_config ? "hf_config.text_config." : "hf_config."}, *t);
    // Mistral 3.1 / 3.2 (mistral3): only the text model trains here; its Pixtral vision tower and projector
    // (vision_config, transformers configuration_mistral3.py) are not counted, and the name says so.
    if (m && std::string(t->model_type) == "mistral3" && outer.find("vision_config")) {
      ModelSpec text = *m;
      text.name = "mistral3 (config.json; text model, vision tower not counted)";
      return text;
    }
    return m;
  } catch (const std::exception& e) {
    return Error{"hf_config", std::string("invalid value: ") + e.what()};
  }
}

}  // namespace trainfit
