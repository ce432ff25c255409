// trainfit core — the JSON facade (api.h). Documents are built with nlohmann::json and dumped once, so key
// order is fixed (alphabetical within objects) and the same query gives byte-identical output everywhere.
#include "trainfit/api.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "trainfit/memory.h"
#include "trainfit/model.h"
#include "trainfit/query.h"

namespace trainfit {
namespace {
using json = nlohmann::json;

json error_doc(const Error& e) {
  return json{{"ok", false}, {"error", {{"field", e.field}, {"message", e.message}}}};
}

// Non-finite numbers never leave the core: they become null, and tests walk outputs to prove none appear.
json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json params_doc(const ParamCounts& p) {
  return json{{"total", num(p.total)},         {"active", num(p.active)}, {"embedding", num(p.embedding)},
              {"head", num(p.head)},           {"per_layer", num(p.per_layer)},
              {"trainable", num(p.trainable)}};
}

json memory_doc(const MemoryBreakdown& m) {
  json notes = json::array();
  for (const auto& w : m.notes) notes.push_back({{"code", w.code}, {"field", w.field}, {"message", w.message}});
  return json{{"weights_bytes", num(m.weights)},
              {"master_weights_bytes", num(m.master_weights)},
              {"gradients_bytes", num(m.gradients)},
              {"optimizer_states_bytes", num(m.optimizer_states)},
              {"activations_bytes", num(m.activations)},
              {"logits_bytes", num(m.logits)},
              {"lora_adapters_bytes", num(m.lora_adapters)},
              {"quantization_bytes", num(m.quantization)},
              {"overhead_bytes", num(m.overhead)},
              {"fragmentation_bytes", num(m.fragmentation)},
              {"total_bytes", num(m.total)},
              {"total_low_bytes", num(m.total_low)},
              {"total_high_bytes", num(m.total_high)},
              {"host_ram_per_node_bytes", num(m.host_ram_per_node_bytes)},
              {"notes", notes}};
}

json estimate(const Query& q) {
  Result<ParamCounts> p = count_params(q.model);
  if (!p) return error_doc(p.error());
  MemoryLayout layout;
  const ParallelConfig& par = q.train.parallel;
  if (!par.automatic) {
    layout.tp = par.tp;
    layout.pp = par.pp;
    layout.dp = par.dp;
    layout.cp = par.cp;
    layout.zero = par.zero;
    layout.sequence_parallel = par.sequence_parallel;
    layout.offload_optimizer = par.offload_optimizer;
    layout.offload_params = par.offload_params;
  }
  layout.micro_batch = q.train.micro_batch;
  layout.recompute = q.train.recompute == Recompute::automatic ? Recompute::none : q.train.recompute;
  Result<MemoryBreakdown> m = estimate_memory(q.model, q.train, layout);
  if (!m) return error_doc(m.error());
  return json{{"ok", true},
              {"model", {{"id", q.model_id}, {"name", q.model.name}, {"arch", to_string(q.model.arch)}}},
              {"params", params_doc(m->params)},
              {"memory", memory_doc(*m)}};
}

json models_doc() {
  json list = json::array();
  for (const auto& m : builtin_models()) {
    Result<ParamCounts> p = count_params(m);
    list.push_back({{"id", m.id},
                    {"name", m.name},
                    {"hf_id", m.hf_id},
                    {"arch", to_string(m.arch)},
                    {"params_total", p ? num(p->total) : json(nullptr)},
                    {"params_active", p ? num(p->active) : json(nullptr)}});
  }
  return json{{"ok", true}, {"models", list}};
}

}  // namespace

std::string json_escape(std::string_view s) {
  std::string quoted = json(std::string(s)).dump();
  return quoted.substr(1, quoted.size() - 2);
}

std::string api_call(std::string_view verb, std::string_view query_json, const Snapshot* snapshot) {
  try {
    if (verb == "models") return models_doc().dump();
    Result<Query> q = parse_query_json(query_json.empty() ? std::string_view("{}") : query_json);
    if (!q) return error_doc(q.error()).dump();
    if (verb == "query") return json{{"ok", true}, {"query", json::parse(query_to_json(*q, true))}, {"hash", query_to_hash(*q)}}.dump();
    if (verb == "estimate") return estimate(*q).dump();
    (void)snapshot;
    return error_doc(Error{"verb", "unknown verb \"" + std::string(verb) + "\"; expected estimate, plan, rank, cost, validate, models or query"}).dump();
  } catch (const std::exception& e) {
    return error_doc(Error{"", std::string("internal error: ") + e.what()}).dump();
  }
}

}  // namespace trainfit
