// trainfit core — model objects from JSON (a data/models.json entry, a query's model) and the bundled catalog
// (builtin_presets, compiled in from data/models.json).
#include "trainfit/catalog/model.h"

#include <cmath>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "base/json_reader.h"

namespace trainfit {

// ---- reading one model object ----

namespace {

// Reads one model object. `ptr` is its JSON pointer (or "model" for queries); errors name the key. Read with
// the compact tree of json_reader.h (document order, the readers' type checks).
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

// ---- catalogs ----

Result<ModelSpec> parse_model_json(std::string_view json_text) {
  try {
    jsonr::Document doc;
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
    jsonr::Document doc;
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
