// trainfit core — model catalog and exact parameter counts.
//
// Every architecture is described once, as the list of tensors its Hugging Face implementation registers
// (visit_tensors). The parameter count, the MoE active count and Adafactor's factored state are all derived
// from that one list, so they cannot disagree. data/models.json pins the result against published counts.
#include "trainfit/model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include "json_reader.h"

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

bool has_learned_positions(Arch a) { return a == Arch::gpt2 || a == Arch::opt || a == Arch::bert; }
bool is_llama_family(Arch a) {
  return a == Arch::llama || a == Arch::qwen2 || a == Arch::mistral || a == Arch::mixtral || a == Arch::gemma2 ||
         a == Arch::phi3 || a == Arch::params_only;
}

// Calls f(Tensor) for every parameter tensor of `m`, per-layer tensors once (multiply by num_layers).
// Layouts (transformers modeling_*.py):
//  gpt2:   wte V*h, wpe P*h; block: ln_1, c_attn (h -> q+2kv, bias), c_proj (bias), ln_2, c_fc (h -> i, bias),
//          mlp.c_proj (bias); ln_f; lm_head tied.
//  opt:    embed_tokens V*h, embed_positions (P+2)*h (OPTLearnedPositionalEmbedding offset 2); block:
//          q/k/v/out_proj with bias, self_attn_layer_norm, fc1, fc2 with bias, final_layer_norm; decoder
//          final_layer_norm; lm_head tied.
//  bert:   word V*h + position P*h + token_type T*h embeddings + LayerNorm; block: query/key/value/
//          attention.output.dense with bias + LayerNorm, intermediate.dense, output.dense with bias +
//          LayerNorm; pooler dense h*h + bias (BertModel; no MLM head).
//  falcon: word_embeddings V*h; block: input_layernorm (weight+bias), query_key_value h -> q+2kv (MQA),
//          dense, mlp dense_h_to_4h / dense_4h_to_h, no biases (bias=false); ln_f; lm_head tied.
//  llama family: embed_tokens V*h; block: q/k/v/o (qwen2: q/k/v biases), gate/up/down (mixtral: E experts
//          w1/w3/w2 + router h*E), input_layernorm + post_attention_layernorm RMSNorm weights (gemma2: also
//          pre_feedforward_layernorm and post_feedforward_layernorm); final norm; lm_head unless tied.
template <class F>
void visit_tensors(const ModelSpec& m, F&& f) {
  const double h = double(m.hidden_size), V = double(m.vocab_size), i = double(m.intermediate_size);
  const double hd = double(effective_head_dim(m));
  const double q = double(m.num_heads) * hd, kv = double(m.num_kv_heads) * hd;
  const double P = double(m.max_position_embeddings);
  const bool untied = !m.tie_embeddings;
  switch (m.arch) {
    case Arch::gpt2:
      f(Tensor{Part::embedding, V, h});
      f(Tensor{Part::embedding, P, h});
      f(Tensor{Part::layer, 2 * h, 1});                // ln_1 weight + bias
      f(Tensor{Part::layer, h, q + 2 * kv});           // c_attn
      f(Tensor{Part::layer, q + 2 * kv, 1});
      f(Tensor{Part::layer, q, h});                    // attn.c_proj
      f(Tensor{Part::layer, h, 1});
      f(Tensor{Part::layer, 2 * h, 1});                // ln_2
      f(Tensor{Part::layer, h, i});                    // c_fc
      f(Tensor{Part::layer, i, 1});
      f(Tensor{Part::layer, i, h});                    // mlp.c_proj
      f(Tensor{Part::layer, h, 1});
      f(Tensor{Part::final_norm, 2 * h, 1});
      if (untied) f(Tensor{Part::head, V, h});
      return;
    case Arch::opt:
      f(Tensor{Part::embedding, V, h});
      f(Tensor{Part::embedding, P + 2, h});
      f(Tensor{Part::layer, h, q});  f(Tensor{Part::layer, q, 1});
      f(Tensor{Part::layer, h, kv}); f(Tensor{Part::layer, kv, 1});
      f(Tensor{Part::layer, h, kv}); f(Tensor{Part::layer, kv, 1});
      f(Tensor{Part::layer, q, h});  f(Tensor{Part::layer, h, 1});
      f(Tensor{Part::layer, 2 * h, 1});
      f(Tensor{Part::layer, h, i});  f(Tensor{Part::layer, i, 1});
      f(Tensor{Part::layer, i, h});  f(Tensor{Part::layer, h, 1});
      f(Tensor{Part::layer, 2 * h, 1});
      f(Tensor{Part::final_norm, 2 * h, 1});
      if (untied) f(Tensor{Part::head, V, h});
      return;
    case Arch::bert:
      f(Tensor{Part::embedding, V, h});
      f(Tensor{Part::embedding, P, h});
      f(Tensor{Part::embedding, double(m.type_vocab_size), h});
      f(Tensor{Part::embedding, 2 * h, 1});            // embeddings.LayerNorm
      f(Tensor{Part::layer, h, q});  f(Tensor{Part::layer, q, 1});
      f(Tensor{Part::layer, h, kv}); f(Tensor{Part::layer, kv, 1});
      f(Tensor{Part::layer, h, kv}); f(Tensor{Part::layer, kv, 1});
      f(Tensor{Part::layer, q, h});  f(Tensor{Part::layer, h, 1});
      f(Tensor{Part::layer, 2 * h, 1});
      f(Tensor{Part::layer, h, i});  f(Tensor{Part::layer, i, 1});
      f(Tensor{Part::layer, i, h});  f(Tensor{Part::layer, h, 1});
      f(Tensor{Part::layer, 2 * h, 1});
      f(Tensor{Part::final_norm, h, h});               // pooler.dense (the only post-stack tensors)
      f(Tensor{Part::final_norm, h, 1});
      if (untied) f(Tensor{Part::head, V, h});
      return;
    case Arch::falcon:
      f(Tensor{Part::embedding, V, h});
      f(Tensor{Part::layer, 2 * h, 1});                // shared input_layernorm (parallel attn + MLP)
      f(Tensor{Part::layer, h, q + 2 * kv});           // query_key_value (MQA: kv = head_dim)
      f(Tensor{Part::layer, q, h});                    // dense
      f(Tensor{Part::layer, h, i});                    // dense_h_to_4h
      f(Tensor{Part::layer, i, h});                    // dense_4h_to_h
      f(Tensor{Part::final_norm, 2 * h, 1});
      if (untied) f(Tensor{Part::head, V, h});
      return;
    default: {  // llama family
      f(Tensor{Part::embedding, V, h});
      f(Tensor{Part::layer, h, q});
      f(Tensor{Part::layer, h, kv});
      f(Tensor{Part::layer, h, kv});
      f(Tensor{Part::layer, q, h});
      if (m.arch == Arch::qwen2) {
        f(Tensor{Part::layer, q, 1});
        f(Tensor{Part::layer, kv, 1});
        f(Tensor{Part::layer, kv, 1});
      }
      const double E = double(m.num_experts), k = double(m.experts_per_token);
      if (E > 1) {
        f(Tensor{Part::layer, h, E});                  // router (block_sparse_moe.gate)
        f(Tensor{Part::layer, h, i, E, k});            // w1 (gate)
        f(Tensor{Part::layer, h, i, E, k});            // w3 (up)
        f(Tensor{Part::layer, i, h, E, k});            // w2 (down)
      } else {
        f(Tensor{Part::layer, h, i});
        f(Tensor{Part::layer, h, i});
        f(Tensor{Part::layer, i, h});
      }
      const int norms = m.arch == Arch::gemma2 ? 4 : 2;
      for (int n = 0; n < norms; ++n) f(Tensor{Part::layer, h, 1});
      f(Tensor{Part::final_norm, h, 1});
      if (untied) f(Tensor{Part::head, V, h});
      return;
    }
  }
}

Error model_error(const std::string& prefix, const char* key, const std::string& msg) {
  return Error{prefix + (prefix.empty() ? "" : (prefix[0] == '/' ? "/" : ".")) + key, msg};
}

}  // namespace

const char* arch_id(Arch a) {
  switch (a) {
    case Arch::gpt2: return "gpt2";
    case Arch::llama: return "llama";
    case Arch::qwen2: return "qwen2";
    case Arch::mistral: return "mistral";
    case Arch::mixtral: return "mixtral";
    case Arch::gemma2: return "gemma2";
    case Arch::phi3: return "phi3";
    case Arch::falcon: return "falcon";
    case Arch::opt: return "opt";
    case Arch::bert: return "bert";
    case Arch::params_only: return "params_only";
  }
  return "llama";
}

bool arch_from_id(std::string_view id, Arch* out) {
  static const Arch all[] = {Arch::gpt2, Arch::llama, Arch::qwen2, Arch::mistral, Arch::mixtral, Arch::gemma2,
                             Arch::phi3, Arch::falcon, Arch::opt, Arch::bert, Arch::params_only};
  for (Arch a : all) {
    if (id == arch_id(a)) {
      *out = a;
      return true;
    }
  }
  return false;
}

int64_t effective_head_dim(const ModelSpec& m) {
  if (m.head_dim > 0) return m.head_dim;
  return m.num_heads > 0 ? m.hidden_size / m.num_heads : 0;
}

Result<bool> validate_model(const ModelSpec& m, const std::string& prefix) {
  if (m.arch == Arch::params_only) {
    if (!(m.params > 0) || !std::isfinite(m.params)) return model_error(prefix, "params", "must be a positive number");
    if (m.hidden_size <= 0 || m.num_layers <= 0)
      return model_error(prefix, "params", "params-only model has no derived shape (use model_from_params)");
    return true;
  }
  auto positive = [&](int64_t v, const char* key) -> Result<bool> {
    if (v <= 0) return model_error(prefix, key, "must be a positive integer");
    return true;
  };
  for (auto [v, key] : {std::pair<int64_t, const char*>{m.hidden_size, "hidden_size"},
                        {m.num_layers, "num_layers"},
                        {m.num_heads, "num_heads"},
                        {m.num_kv_heads, "num_kv_heads"},
                        {m.intermediate_size, "intermediate_size"},
                        {m.vocab_size, "vocab_size"}}) {
    auto r = positive(v, key);
    if (!r) return r;
  }
  if (m.hidden_size > (int64_t(1) << 20)) return model_error(prefix, "hidden_size", "is implausibly large (> 2^20)");
  if (m.num_layers > 4096) return model_error(prefix, "num_layers", "is implausibly large (> 4096)");
  if (m.vocab_size > (int64_t(1) << 24)) return model_error(prefix, "vocab_size", "is implausibly large (> 2^24)");
  if (m.intermediate_size > (int64_t(1) << 22))
    return model_error(prefix, "intermediate_size", "is implausibly large (> 2^22)");
  if (m.num_kv_heads > m.num_heads || m.num_heads % m.num_kv_heads != 0)
    return model_error(prefix, "num_kv_heads", "must divide num_heads (" + std::to_string(m.num_heads) + ")");
  if (m.head_dim < 0) return model_error(prefix, "head_dim", "must be >= 0 (0 = hidden_size / num_heads)");
  if (m.head_dim == 0 && m.hidden_size % m.num_heads != 0)
    return model_error(prefix, "num_heads", "must divide hidden_size when head_dim is not given");
  if (m.num_experts < 1) return model_error(prefix, "num_experts", "must be >= 1");
  if (m.experts_per_token < 1 || m.experts_per_token > m.num_experts)
    return model_error(prefix, "experts_per_token", "must be between 1 and num_experts");
  if (m.num_experts > 1 && m.arch != Arch::mixtral)
    return model_error(prefix, "num_experts", std::string("experts are only modelled for arch mixtral, not ") +
                                                  arch_id(m.arch));
  if (has_learned_positions(m.arch) && m.max_position_embeddings <= 0)
    return model_error(prefix, "max_position_embeddings", "must be positive (learned position embeddings)");
  if (m.arch == Arch::bert && m.type_vocab_size <= 0)
    return model_error(prefix, "type_vocab_size", "must be positive for bert");
  if ((m.arch == Arch::gpt2 || m.arch == Arch::bert || m.arch == Arch::opt) && m.num_kv_heads != m.num_heads)
    return model_error(prefix, "num_kv_heads", std::string(arch_id(m.arch)) + " has no grouped-query attention");
  return true;
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
  double layer_total = 0, layer_active = 0, rest = 0;
  visit_tensors(m, [&](const Tensor& t) {
    const double n = t.rows * t.cols;
    switch (t.part) {
      case Part::embedding: c.embedding += n; rest += n; break;
      case Part::head: c.head += n; rest += n; break;
      case Part::final_norm: rest += n; break;
      case Part::layer:
        layer_total += n * t.copies;
        layer_active += n * t.active_copies;
        break;
    }
  });
  const double L = double(m.num_layers);
  c.per_layer = layer_total;
  c.total = rest + L * layer_total;
  c.active = rest + L * layer_active;
  return c;
}

double adafactor_state_elements(const ModelSpec& m) {
  if (m.arch == Arch::params_only) {
    // Square-ish matrices of side h: (rows + cols) / (rows * cols) = 2 / h of the parameters.
    return m.hidden_size > 0 ? 2.0 * m.params / double(m.hidden_size) : m.params;
  }
  double layer = 0, rest = 0;
  visit_tensors(m, [&](const Tensor& t) {
    const double n = t.cols > 1 ? t.rows + t.cols : t.rows;  // factored rows + cols, or the whole vector
    (t.part == Part::layer ? layer : rest) += n * t.copies;
  });
  return rest + double(m.num_layers) * layer;
}

Result<LoraCounts> lora_counts(const ModelSpec& m, int rank, const std::vector<std::string>& targets) {
  if (rank < 1 || rank > 65536) return Error{"lora_rank", "must be between 1 and 65536"};
  bool tq = false, tk = false, tv = false, to = false, tg = false, tu = false, td = false;
  for (const auto& t : targets) {
    if (t == "q") tq = true;
    else if (t == "k") tk = true;
    else if (t == "v") tv = true;
    else if (t == "o") to = true;
    else if (t == "gate") tg = true;
    else if (t == "up") tu = true;
    else if (t == "down") td = true;
    else if (t == "all" || t == "all-linear") tq = tk = tv = to = tg = tu = td = true;
    else return Error{"lora_targets", "unknown target '" + t + "' (use q, k, v, o, gate, up, down or all)"};
  }
  const double h = double(m.hidden_size), i = double(m.intermediate_size), r = double(rank);
  const double hd = double(effective_head_dim(m));
  const double q = double(m.num_heads) * hd, kv = double(m.num_kv_heads) * hd;
  const bool gated = is_llama_family(m.arch);
  const bool fused_qkv = m.arch == Arch::gpt2 || m.arch == Arch::falcon || m.arch == Arch::phi3;
  const double E = double(m.num_experts);
  LoraCounts c;
  double per_layer = 0;
  auto add = [&](double in, double out, double copies) {
    per_layer += r * (in + out) * copies;  // A: in x r, B: r x out (Hu et al. 2021, Sec. 4.1)
    c.targeted_linears += copies;
  };
  if (fused_qkv) {
    if (tq || tk || tv) add(h, q + 2 * kv, 1);
  } else {
    if (tq) add(h, q, 1);
    if (tk) add(h, kv, 1);
    if (tv) add(h, kv, 1);
  }
  if (to) add(q, h, 1);
  if (gated) {
    if (m.arch == Arch::phi3) {
      if (tg || tu) add(h, 2 * i, 1);  // gate_up_proj
    } else {
      if (tg) add(h, i, E);
      if (tu) add(h, i, E);
    }
    if (td) add(i, h, E);
  } else {
    if (tu) add(h, i, 1);  // fc1 / c_fc / dense_h_to_4h / intermediate.dense
    if (td) add(i, h, 1);
  }
  if (c.targeted_linears == 0)
    return Error{"lora_targets", std::string("none of the targets exists in a ") + arch_id(m.arch) + " model"};
  c.attn_input = tq || tk || tv;
  c.attn_output = to;
  c.mlp_input = gated ? (tg || tu) : tu;
  c.mlp_output = td;
  c.params = per_layer * double(m.num_layers);
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
  static const char* ints[] = {"hidden_size", "num_layers", "num_heads", "num_kv_heads", "head_dim",
                               "intermediate_size", "vocab_size", "max_position_embeddings", "num_experts",
                               "experts_per_token", "type_vocab_size"};
  int64_t* dst[] = {&m.hidden_size, &m.num_layers, &m.num_heads, &m.num_kv_heads, &m.head_dim,
                    &m.intermediate_size, &m.vocab_size, &m.max_position_embeddings, &m.num_experts,
                    &m.experts_per_token, &m.type_vocab_size};
  bool have_kv = false, have_arch = false;
  // Members in document order; of duplicate keys only the last is read, as nlohmann kept only the last.
  for (jsonr::SizeType i = 0; i < count; ++i) {
    const std::string_view k = text_of(members[i].name);
    const JValue& v = members[i].value;
    if (jsonr::find_member(j, k) != &v) continue;
    bool done = false;
    for (size_t n = 0; n < sizeof(ints) / sizeof(ints[0]); ++n) {
      if (k == ints[n]) {
        if (!jsonr::is_integer(v) && !(v.IsNumber() && std::floor(v.GetDouble()) == v.GetDouble()))
          return err(k, "must be an integer");
        const double d = v.GetDouble();
        if (d < 0 || d > 9e15) return err(k, "must be a non-negative integer");
        *dst[n] = int64_t(d);
        if (k == "num_kv_heads") have_kv = true;
        done = true;
        break;
      }
    }
    if (done) continue;
    if (k == "id" || k == "name" || k == "hf_id" || k == "config_source" || k == "params_source") {
      if (!v.IsString()) return err(k, "must be a string");
      std::string str(text_of(v));
      if (k == "id") m.id = std::move(str);
      else if (k == "name") m.name = std::move(str);
      else if (k == "hf_id") m.hf_id = std::move(str);
      else if (k == "config_source") p.config_source = std::move(str);
      else p.params_source = std::move(str);
    } else if (k == "arch") {
      if (!v.IsString() || !arch_from_id(text_of(v), &m.arch) || m.arch == Arch::params_only)
        return err(k, "must be one of gpt2, llama, qwen2, mistral, mixtral, gemma2, phi3, falcon, opt, bert");
      have_arch = true;
    } else if (k == "tie_embeddings") {
      if (!v.IsBool()) return err(k, "must be true or false");
      m.tie_embeddings = v.GetBool();
    } else if (k == "params_expected" && catalog) {
      if (!v.IsNumber() || v.GetDouble() <= 0) return err(k, "must be a positive number");
      p.params_expected = v.GetDouble();
    } else {
      return err(k, "unknown key");
    }
  }
  if (!have_arch) return err("arch", "is required");
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
