// libFuzzer target: the Hugging Face config.json reader (model_from_hf_config) and the facade verb hf_config
// that the CLI's --hf-config, the UI's paste box and the JS API call with untrusted text. Every input gives a
// document that is valid JSON with "ok"; errors name a field; every number is finite; an accepted config's
// model object is accepted by the query parser and keeps its exact parameter count.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "trainfit/facade/api.h"
#include "trainfit/catalog/model.h"
#include "trainfit/query/query.h"

namespace {
void check_finite(const nlohmann::json& j) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) std::abort();
  if (j.is_structured())
    for (const auto& v : j) check_finite(v);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  trainfit::Result<trainfit::ModelSpec> m = trainfit::model_from_hf_config(text);
  if (!m) {
    if (m.error().message.empty() || m.error().field.rfind("hf_config", 0) != 0) std::abort();
  } else {
    trainfit::Result<trainfit::ParamCounts> c = trainfit::count_params(*m);
    if (!c || !std::isfinite(c->total) || !(c->total > 0)) std::abort();
  }
  const nlohmann::json doc = nlohmann::json::parse(trainfit::api_call("hf_config", text, nullptr), nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("ok") || !doc["ok"].is_boolean()) std::abort();
  if (doc["ok"].get<bool>() != m.ok()) std::abort();
  check_finite(doc);
  if (!m) return 0;
  // The model object goes back through the query parser unchanged. As a full fine-tune: the default LoRA rank may
  // exceed a tiny model's hidden size, which the parser refuses naming lora_rank (bad_input_test).
  trainfit::Result<trainfit::Query> q =
      trainfit::parse_query_json(nlohmann::json{{"model", doc["model"]}, {"method", "full"}}.dump());
  if (!q) std::abort();
  trainfit::Result<trainfit::ParamCounts> again = trainfit::count_params(q->model);
  if (!again || again->total != trainfit::count_params(*m)->total) std::abort();
  return 0;
}
