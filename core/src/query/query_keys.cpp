// trainfit core — the query's key table: every key's path, type, range, getter and setter, in the order keys are
// applied and written, plus the lookup and the type and range check every value goes through.
//
// Index of sections:
//   key builders   the helpers that build keys for the common shapes (enum, number, flag, list, model field, knob)
//   key sections   one function per part of the query, each appending its keys in table order
//   the table      keys() (the sections concatenated), find_key, apply_value
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "query/query_internal.h"
#include "trainfit/catalog/model.h"

namespace trainfit::query_detail {
namespace {

// ---- key builders ----
std::string too(const char* what, double v, double lim) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%s (%.6g); the limit is %.6g", what, v, lim);
  return buf;
}

// Helpers that build keys for the common shapes.
template <class Get, class Set>
Key make(const char* path, Kind kind, double lo, double hi, Get g, Set s) {
  return Key{path, kind, lo, hi, g, s};
}

// The accessors are plain function pointers (the table's lambdas capture nothing): then the get/set lambdas below
// are one type per value type, not one per key, and so are their std::function wrappers; with a lambda type per
// key, ~90 keys instantiated ~180 std::function targets (code, vtables), a measurable part of the wasm.
template <class E, size_t N>
Key enum_key(const char* path, const EnumName<E> (&table)[N], std::type_identity_t<E& (*)(Query&)> ref) {
  return make(
      path, Kind::text, 0, 0, [&table, ref](const Query& q) { return json(enum_name(table, ref(const_cast<Query&>(q)))); },
      [&table, ref](Query& q, const json& v) -> std::string {
        const std::optional<E> e = enum_value(table, v.get<std::string>());
        if (!e) return "unknown value \"" + v.get<std::string>() + "\"; expected one of: " + enum_choices(table);
        ref(q) = *e;
        return "";
      });
}

template <class T>
Key num_key(const char* path, Kind kind, double lo, double hi, std::type_identity_t<T& (*)(Query&)> ref) {
  return make(
      path, kind, lo, hi, [ref](const Query& q) { return json(ref(const_cast<Query&>(q))); },
      [ref](Query& q, const json& v) -> std::string {
        ref(q) = static_cast<T>(v.get<double>());
        return "";
      });
}

Key bool_key(const char* path, bool& (*ref)(Query&)) {
  return make(
      path, Kind::boolean, 0, 0, [ref](const Query& q) { return json(ref(const_cast<Query&>(q))); },
      [ref](Query& q, const json& v) -> std::string {
        ref(q) = v.get<bool>();
        return "";
      });
}

Key text_key(const char* path, std::string& (*ref)(Query&)) {
  return make(
      path, Kind::text, 0, 0, [ref](const Query& q) { return json(ref(const_cast<Query&>(q))); },
      [ref](Query& q, const json& v) -> std::string {
        ref(q) = v.get<std::string>();
        return "";
      });
}

// Every list key's rules: strings of 1 to 64 characters, at most 256 of them. "" when `v` keeps them.
std::string list_items(const json& v, std::vector<std::string>* items) {
  for (const auto& it : v) {
    if (!it.is_string()) return "must be a list of strings";
    std::string s = it.get<std::string>();
    if (s.empty() || s.size() > 64) return "list items must be 1 to 64 characters";
    items->push_back(std::move(s));
  }
  if (items->size() > 256) return "too many items (the limit is 256)";
  return "";
}

Key list_key(const char* path, std::vector<std::string>& (*ref)(Query&)) {
  return make(
      path, Kind::list, 0, 0, [ref](const Query& q) { return json(ref(const_cast<Query&>(q))); },
      [ref](Query& q, const json& v) -> std::string {
        std::vector<std::string> items;
        if (std::string e = list_items(v, &items); !e.empty()) return e;
        ref(q) = std::move(items);
        return "";
      });
}

// Model fields (only valid when the model is given inline).
template <class T>
Key model_key(const char* path, Kind kind, double lo, double hi, T ModelSpec::*member) {
  return make(
      path, kind, lo, hi, [member](const Query& q) { return json(q.model.*member); },
      [member](Query& q, const json& v) -> std::string {
        if constexpr (std::is_same_v<T, bool>)
          q.model.*member = v.get<bool>();
        else
          q.model.*member = static_cast<T>(v.get<double>());
        q.model_id = "custom";
        return "";
      });
}

// The architecture knobs (model.h): named ones (model.mlp, ...), integers (window, MoE layout, MLA), flags.
// After model.arch in the table, so a family's defaults are set before the knobs given next to it.
void add_knob_keys(std::vector<Key>& t) {
  static const std::vector<std::string> paths = [] {
    std::vector<std::string> p;
    for (std::string_view k : text_knobs()) p.push_back("model." + std::string(k));
    for (const IntKnob& k : int_knobs()) p.push_back(std::string("model.") + k.key);
    return p;
  }();
  size_t n = 0;
  for (std::string_view k : text_knobs()) {
    const std::string key(k);
    t.push_back(make(
        paths[n++].c_str(), Kind::text, 0, 0, [key](const Query& q) { return json(text_knob(q.model, key)); },
        [key](Query& q, const json& v) -> std::string {
          q.model_id = "custom";
          return set_text_knob(q.model, key, v.get<std::string>());
        }));
    t.back().knob = true;
  }
  for (const IntKnob& k : int_knobs()) {
    const double lo = k.member == &ModelSpec::moe_layer_step ? 1 : 0;
    t.push_back(model_key(paths[n++].c_str(), Kind::integer, lo, 1 << 24, k.member));
    t.back().knob = true;
  }
  t.push_back(model_key("model.dropout", Kind::boolean, 0, 0, &ModelSpec::dropout));
  t.back().knob = true;
  t.push_back(model_key("model.attention_sinks", Kind::boolean, 0, 0, &ModelSpec::attention_sinks));
  t.back().knob = true;
}

// ---- key sections ----
// The sections below are concatenated in this order by keys(); the order is the link format's key order.

// The model: a preset id, or an inline model (model.* keys, the architecture knobs among them).
void add_model_keys(std::vector<Key>& t) {
  // model: preset id (string) or inline (model.* keys). Handled specially in apply_json.
  t.push_back(make(
      "model", Kind::text, 0, 0, [](const Query& q) { return json(q.model_id); },
      [](Query& q, const json& v) -> std::string {
        const std::string id = v.get<std::string>();
        const ModelSpec* m = find_model(id);
        if (!m) return "unknown model preset \"" + id + "\" (see `trainfit models` for the list)";
        q.model = *m;
        q.model_id = id;
        return "";
      }));
  t.push_back(make(
      "model.arch", Kind::text, 0, 0, [](const Query& q) { return json(enum_name(kArchs, q.model.arch)); },
      [](Query& q, const json& v) -> std::string {
        const std::optional<Arch> a = enum_value(kArchs, v.get<std::string>());
        if (!a) return "unknown architecture \"" + v.get<std::string>() + "\"; expected one of: " + enum_choices(kArchs);
        apply_family(q.model, *a);  // the family sets every knob's default; knob keys come later in the table
        q.model_id = "custom";
        return "";
      }));
  t.push_back(make(
      "model.name", Kind::text, 0, 0, [](const Query& q) { return json(q.model.name); },
      [](Query& q, const json& v) -> std::string {
        std::string s = v.get<std::string>();
        if (s.size() > 128) return "too long (the limit is 128 characters)";
        q.model.name = s;
        return "";
      }));
  t.push_back(model_key("model.params", Kind::number, 1e6, 1e13, &ModelSpec::params));
  t.push_back(model_key("model.hidden_size", Kind::integer, 1, 1 << 20, &ModelSpec::hidden_size));
  t.push_back(model_key("model.num_layers", Kind::integer, 1, 10000, &ModelSpec::num_layers));
  t.push_back(model_key("model.num_heads", Kind::integer, 1, 1 << 14, &ModelSpec::num_heads));
  t.push_back(model_key("model.num_kv_heads", Kind::integer, 1, 1 << 14, &ModelSpec::num_kv_heads));
  t.push_back(model_key("model.head_dim", Kind::integer, 0, 1 << 14, &ModelSpec::head_dim));
  t.push_back(model_key("model.intermediate_size", Kind::integer, 1, 1 << 22, &ModelSpec::intermediate_size));
  t.push_back(model_key("model.vocab_size", Kind::integer, 1, 1 << 24, &ModelSpec::vocab_size));
  t.push_back(model_key("model.max_position_embeddings", Kind::integer, 0, 1 << 24, &ModelSpec::max_position_embeddings));
  // The rotary base (config.json rope_theta; Mistral Small 3 uses 1e8): carried into the Megatron arguments.
  t.push_back(model_key("model.rope_theta", Kind::integer, 0, 1e12, &ModelSpec::rope_theta));
  t.push_back(model_key("model.rope_llama3_factor", Kind::integer, 0, 1024, &ModelSpec::rope_llama3_factor));
  t.push_back(model_key("model.tie_embeddings", Kind::boolean, 0, 0, &ModelSpec::tie_embeddings));
  t.push_back(model_key("model.num_experts", Kind::integer, 1, 4096, &ModelSpec::num_experts));
  t.push_back(model_key("model.experts_per_token", Kind::integer, 1, 4096, &ModelSpec::experts_per_token));
  t.push_back(model_key("model.type_vocab_size", Kind::integer, 0, 1024, &ModelSpec::type_vocab_size));
  add_knob_keys(t);
}

// The training method and its settings.
void add_training_keys(std::vector<Key>& t) {
  t.push_back(enum_key("method", kMethods, [](Query& q) -> Method& { return q.train.method; }));
  t.push_back(num_key<int>("lora_rank", Kind::integer, 1, 65536, [](Query& q) -> int& { return q.train.lora_rank; }));
  t.push_back(list_key("lora_targets", [](Query& q) -> std::vector<std::string>& { return q.train.lora_targets; }));
  t.push_back(enum_key("precision", kPrecisions, [](Query& q) -> Precision& { return q.train.precision; }));
  t.push_back(enum_key("optimizer", kOptimizers, [](Query& q) -> Optimizer& { return q.train.optimizer; }));
  t.push_back(num_key<int64_t>("micro_batch", Kind::integer, 1, 65536,
                               [](Query& q) -> int64_t& { return q.train.micro_batch; }));
  t.push_back(num_key<int64_t>("seq_len", Kind::integer, 1, 4194304, [](Query& q) -> int64_t& { return q.train.seq_len; }));
  t.push_back(num_key<int64_t>("global_batch", Kind::integer, 0, 1 << 24,
                               [](Query& q) -> int64_t& { return q.train.global_batch; }));
  t.push_back(enum_key("recompute", kRecomputes, [](Query& q) -> Recompute& { return q.train.recompute; }));
  t.push_back(enum_key("attention", kAttentions, [](Query& q) -> Attention& { return q.train.attention; }));
  t.push_back(enum_key("grad_reduce", kGradReduces, [](Query& q) -> GradReduce& { return q.train.grad_reduce; }));
  t.push_back(enum_key("compile", kCompiles, [](Query& q) -> Compile& { return q.train.compile; }));
  // Megatron-Core's --recompute-modules: a list of module names (["layernorm", "moe"]; [] = none of them).
  t.push_back(make(
      "recompute_modules", Kind::list, 0, 0,
      [](const Query& q) { return json(recompute_module_names(q.train.recompute_modules)); },
      [](Query& q, const json& v) -> std::string {
        std::vector<std::string> names;  // list_key's rules, then the names
        if (std::string e = list_items(v, &names); !e.empty()) return e;
        uint32_t mods = 0;
        for (const std::string& name : names) {
          const std::optional<RecomputeModule> m = enum_value(kRecomputeModules, name);
          if (!m) return "unknown module \"" + name + "\"; expected some of: " + enum_choices(kRecomputeModules);
          mods |= *m;
        }
        q.train.recompute_modules = mods;
        return "";
      }));
  t.push_back(enum_key("cp_scheme", kCpSchemes, [](Query& q) -> CpScheme& { return q.train.cp_scheme; }));
  t.push_back(num_key<int>("loss_chunks", Kind::integer, 0, 4096, [](Query& q) -> int& { return q.train.loss_chunks; }));
  // Mixture-of-experts routing (job.h): 0 = dropless; an imbalance of 1 = balanced.
  t.push_back(num_key<double>("moe.capacity_factor", Kind::number, 0, 16,
                              [](Query& q) -> double& { return q.train.moe_capacity_factor; }));
  t.push_back(num_key<double>("moe.imbalance", Kind::number, 1, 8, [](Query& q) -> double& { return q.train.moe_imbalance; }));
  t.push_back(enum_key("moe.dispatcher", kMoeDispatchers,
                       [](Query& q) -> MoeDispatcher& { return q.train.moe_dispatcher; }));
  t.push_back(bool_key("moe.a2a_overlap", [](Query& q) -> bool& { return q.train.moe_a2a_overlap; }));
  t.push_back(enum_key("framework", kFrameworks, [](Query& q) -> Framework& { return q.train.framework; }));
}

// The parallel layout: "auto", or a manual one (any parallel.* key makes it manual).
void add_parallel_keys(std::vector<Key>& t) {
  t.push_back(make(
      "parallel", Kind::text, 0, 0, [](const Query& q) { return json(q.train.parallel.automatic ? "auto" : "manual"); },
      [](Query& q, const json& v) -> std::string {
        const std::string s = v.get<std::string>();
        if (s == "auto") {
          q.train.parallel = ParallelConfig{};
          return "";
        }
        if (s == "manual") {
          q.train.parallel.automatic = false;
          return "";
        }
        return "must be \"auto\" or an object {gpus, tp, pp, dp, cp, zero, ...}";
      }));
  auto par_int = [&t](const char* path, int ParallelConfig::*m, double lo, double hi) {
    t.push_back(make(
        path, Kind::integer, lo, hi, [m](const Query& q) { return json(q.train.parallel.*m); },
        [m](Query& q, const json& v) -> std::string {
          q.train.parallel.*m = static_cast<int>(v.get<double>());
          q.train.parallel.automatic = false;
          return "";
        }));
  };
  auto par_bool = [&t](const char* path, bool ParallelConfig::*m) {
    t.push_back(make(
        path, Kind::boolean, 0, 0, [m](const Query& q) { return json(q.train.parallel.*m); },
        [m](Query& q, const json& v) -> std::string {
          q.train.parallel.*m = v.get<bool>();
          q.train.parallel.automatic = false;
          return "";
        }));
  };
  par_int("parallel.gpus", &ParallelConfig::gpus, 1, 65536);
  par_int("parallel.tp", &ParallelConfig::tp, 1, 1024);
  par_int("parallel.pp", &ParallelConfig::pp, 1, 1024);
  par_int("parallel.dp", &ParallelConfig::dp, 1, 65536);
  par_int("parallel.cp", &ParallelConfig::cp, 1, 1024);
  par_int("parallel.vp", &ParallelConfig::vp, 1, 64);
  par_int("parallel.ep", &ParallelConfig::ep, 1, 1024);
  par_int("parallel.etp", &ParallelConfig::etp, 0, 1024);
  par_int("parallel.zero", &ParallelConfig::zero, 0, 3);
  par_bool("parallel.sequence_parallel", &ParallelConfig::sequence_parallel);
  par_bool("parallel.offload_optimizer", &ParallelConfig::offload_optimizer);
  par_bool("parallel.offload_params", &ParallelConfig::offload_params);
}

// Memory allowances, the framework details that change memory, and the efficiency override.
void add_memory_keys(std::vector<Key>& t) {
  t.push_back(make(
      "overhead_GiB", Kind::number, 0, 64,
      [](const Query& q) { return json(q.train.overhead_bytes < 0 ? -1.0 : q.train.overhead_bytes / kGiB); },
      [](Query& q, const json& v) -> std::string {
        q.train.overhead_bytes = v.get<double>() * kGiB;
        return "";
      }));
  t.push_back(num_key<double>("fragmentation", Kind::number, 0, 1, [](Query& q) -> double& { return q.train.fragmentation; }));
  t.push_back(num_key<double>("headroom", Kind::number, 0, 0.9, [](Query& q) -> double& { return q.train.headroom; }));
  // Framework details that change memory (memory.cpp cites each): PyTorch autocast keeps fp32 weights; a fused
  // q/k/v projection (LitGPT) keeps the whole qkv output; QLoRA double quantisation; zero_grad(set_to_none);
  // transformers < 4.45 causal-LM heads that keep fp32 logits and a shifted fp32 copy.
  t.push_back(bool_key("autocast", [](Query& q) -> bool& { return q.train.autocast; }));
  t.push_back(bool_key("fused_qkv", [](Query& q) -> bool& { return q.train.fused_qkv; }));
  t.push_back(bool_key("qlora_double_quant", [](Query& q) -> bool& { return q.train.qlora_double_quant; }));
  t.push_back(bool_key("zero_grad_set_to_none", [](Query& q) -> bool& { return q.train.zero_grad_set_to_none; }));
  t.push_back(bool_key("hf_fp32_logits", [](Query& q) -> bool& { return q.train.hf_fp32_logits; }));
  t.push_back(num_key<double>("mfu", Kind::number, 0, 1, [](Query& q) -> double& { return q.mfu; }));
}

// The dataset.
void add_dataset_keys(std::vector<Key>& t) {
  t.push_back(num_key<double>("dataset.tokens", Kind::number, 0, 1e16, [](Query& q) -> double& { return q.dataset.tokens; }));
  t.push_back(
      num_key<double>("dataset.examples", Kind::number, 0, 1e13, [](Query& q) -> double& { return q.dataset.examples; }));
  t.push_back(num_key<double>("dataset.avg_tokens", Kind::number, 0, 1e8,
                              [](Query& q) -> double& { return q.dataset.avg_tokens_per_example; }));
  t.push_back(num_key<double>("dataset.epochs", Kind::number, 0.001, 1e4, [](Query& q) -> double& { return q.dataset.epochs; }));
  t.push_back(bool_key("dataset.packing", [](Query& q) -> bool& { return q.dataset.packing; }));
  t.push_back(make(
      "dataset.size_GB", Kind::number, 0, 1e9, [](const Query& q) { return json(q.dataset.size_bytes / kGB); },
      [](Query& q, const json& v) -> std::string {
        q.dataset.size_bytes = v.get<double>() * kGB;
        return "";
      }));
}

// The offer filters.
void add_filter_keys(std::vector<Key>& t) {
  t.push_back(list_key("filters.providers", [](Query& q) -> std::vector<std::string>& { return q.filters.providers; }));
  t.push_back(list_key("filters.regions", [](Query& q) -> std::vector<std::string>& { return q.filters.regions; }));
  t.push_back(list_key("filters.gpus", [](Query& q) -> std::vector<std::string>& { return q.filters.gpus; }));
  t.push_back(enum_key("filters.pricing", kPricings, [](Query& q) -> PricingFilter& { return q.filters.pricing; }));
  t.push_back(enum_key("filters.interconnect", kInterconnects,
                       [](Query& q) -> InterconnectFilter& { return q.filters.interconnect; }));
  t.push_back(num_key<double>("filters.min_vram_GiB", Kind::number, 0, 4096,
                              [](Query& q) -> double& { return q.filters.min_vram_GiB; }));
  t.push_back(num_key<int>("filters.min_gpus", Kind::integer, 0, 1024, [](Query& q) -> int& { return q.filters.min_gpus; }));
  t.push_back(num_key<int>("filters.max_gpus", Kind::integer, 0, 1024, [](Query& q) -> int& { return q.filters.max_gpus; }));
  t.push_back(num_key<int>("filters.max_nodes", Kind::integer, 1, 1024, [](Query& q) -> int& { return q.filters.max_nodes; }));
  t.push_back(num_key<double>("filters.max_usd_per_h", Kind::number, 0, 1e6,
                              [](Query& q) -> double& { return q.filters.max_usd_per_h; }));
  t.push_back(
      num_key<double>("filters.deadline_h", Kind::number, 0, 1e6, [](Query& q) -> double& { return q.filters.deadline_h; }));
  t.push_back(
      num_key<double>("filters.budget_usd", Kind::number, 0, 1e12, [](Query& q) -> double& { return q.filters.budget_usd; }));
  t.push_back(num_key<double>("filters.min_host_ram_GiB", Kind::number, 0, 1e6,
                              [](Query& q) -> double& { return q.filters.min_host_ram_GiB; }));
  t.push_back(bool_key("filters.must_fit", [](Query& q) -> bool& { return q.filters.must_fit; }));
  t.push_back(bool_key("filters.show_all", [](Query& q) -> bool& { return q.filters.show_all; }));
  t.push_back(bool_key("filters.hide_stale", [](Query& q) -> bool& { return q.filters.hide_stale; }));
  t.push_back(bool_key("filters.hide_flagged", [](Query& q) -> bool& { return q.filters.hide_flagged; }));
  t.push_back(bool_key("filters.show_doubtful", [](Query& q) -> bool& { return q.filters.show_doubtful; }));
  t.push_back(bool_key("filters.launchable", [](Query& q) -> bool& { return q.filters.launchable; }));
}

// The cost options.
void add_cost_keys(std::vector<Key>& t) {
  t.push_back(num_key<double>("cost.checkpoint_interval_s", Kind::number, 0, 1e7,
                              [](Query& q) -> double& { return q.cost.checkpoint_interval_s; }));
  t.push_back(
      num_key<double>("cost.eval_overhead", Kind::number, 0, 10, [](Query& q) -> double& { return q.cost.eval_overhead; }));
  t.push_back(num_key<double>("cost.volume_GB", Kind::number, 0, 1e7, [](Query& q) -> double& { return q.cost.volume_GB; }));
  t.push_back(num_key<double>("cost.egress_GB", Kind::number, 0, 1e7, [](Query& q) -> double& { return q.cost.egress_GB; }));
  t.push_back(num_key<double>("cost.spot_interruption_rate_per_h", Kind::number, 0, 100,
                              [](Query& q) -> double& { return q.cost.spot_interruption_rate_per_h; }));
  t.push_back(num_key<int>("cost.dev_runs", Kind::integer, 0, 100000, [](Query& q) -> int& { return q.cost.dev_runs; }));
  t.push_back(num_key<double>("cost.dev_run_minutes", Kind::number, 0, 1e5,
                              [](Query& q) -> double& { return q.cost.dev_run_minutes; }));
}

// What `plan`, `cost` and `estimate` look at.
void add_target_keys(std::vector<Key>& t) {
  t.push_back(text_key("target.offer", [](Query& q) -> std::string& { return q.target.offer; }));
  t.push_back(text_key("target.gpu", [](Query& q) -> std::string& { return q.target.gpu; }));
  t.push_back(num_key<int>("target.nodes", Kind::integer, 0, 1024, [](Query& q) -> int& { return q.target.nodes; }));
  t.push_back(enum_key("target.pricing", kPricings, [](Query& q) -> PricingFilter& { return q.target.pricing; }));
}

// The calibration from one measured run.
void add_calibration_keys(std::vector<Key>& t) {
  t.push_back(text_key("calibration.offer", [](Query& q) -> std::string& { return q.calibration.offer; }));
  t.push_back(num_key<int>("calibration.nodes", Kind::integer, 0, 1024, [](Query& q) -> int& { return q.calibration.nodes; }));
  t.push_back(num_key<double>("calibration.step_time_s", Kind::number, 0, 1e6,
                              [](Query& q) -> double& { return q.calibration.step_time_s; }));
  t.push_back(num_key<double>("calibration.tokens_per_s", Kind::number, 0, 1e12,
                              [](Query& q) -> double& { return q.calibration.tokens_per_s; }));
  t.push_back(num_key<double>("calibration.peak_GiB", Kind::number, 0, 4096,
                              [](Query& q) -> double& { return q.calibration.peak_GiB; }));
  t.push_back(text_key("calibration.gpu", [](Query& q) -> std::string& { return q.calibration.gpu; }));
  t.push_back(num_key<double>("calibration.efficiency_scale", Kind::number, 0, 20,
                              [](Query& q) -> double& { return q.calibration.efficiency_scale; }));
}

// The ranking: sort order and row count.
void add_ranking_keys(std::vector<Key>& t) {
  t.push_back(enum_key("sort", kSortKeys, [](Query& q) -> SortKey& { return q.sort; }));
  t.push_back(num_key<int>("top", Kind::integer, 0, 1000000, [](Query& q) -> int& { return q.top; }));
}

}  // namespace

// ---- the table ----
const std::vector<Key>& keys() {
  static const std::vector<Key> k = [] {
    std::vector<Key> t;
    add_model_keys(t);
    add_training_keys(t);
    add_parallel_keys(t);
    add_memory_keys(t);
    add_dataset_keys(t);
    add_filter_keys(t);
    add_cost_keys(t);
    add_target_keys(t);
    add_calibration_keys(t);
    add_ranking_keys(t);
    return t;
  }();
  return k;
}

const Key* find_key(std::string_view path) {
  for (const auto& k : keys())
    if (path == k.path) return &k;
  return nullptr;
}

// Type- and range-check one value, then store it. `v` is already the right JSON kind for Kind::text etc.
std::string apply_value(Query& q, const Key& k, const json& v) {
  switch (k.kind) {
    case Kind::integer:
    case Kind::number: {
      if (!v.is_number()) return "must be a number";
      const double d = v.get<double>();
      if (!std::isfinite(d)) return "must be a finite number";
      if (k.kind == Kind::integer && d != std::floor(d)) return "must be a whole number, got " + fmt_num(d);
      if (d < k.min) return (d <= 0 && k.min > 0 ? "must be positive" : too("too small", d, k.min));
      if (d > k.max) return too("too large", d, k.max);
      break;
    }
    case Kind::boolean:
      if (!v.is_boolean()) return "must be true or false";
      break;
    case Kind::text:
      if (!v.is_string()) return "must be a string";
      if (v.get_ref<const std::string&>().size() > 256) return "too long (the limit is 256 characters)";
      break;
    case Kind::list:
      if (!v.is_array()) return "must be a list";
      break;
  }
  return k.set(q, v);
}

}  // namespace trainfit::query_detail
