// trainfit core — query model: one key table drives JSON parsing, hash parsing and both serializers.
//
// [SECTION] Enum names (shared by JSON, links, CLI flags and UI combos)
// [SECTION] The key table (path, type, range, getter, setter of every query key)
// [SECTION] Applying values and objects, cross-field checks (apply_value, apply_object, check_query, finish)
// [SECTION] Link encoding and the written-key set (url_decode/encode, for_each_written, JSON syntax report)
// [SECTION] Public API (default_query, parse_query_json/hash, query_to_json/hash, to_string)
#include "trainfit/query/query.h"

#include "trainfit/catalog/framework.h"
#include "trainfit/estimate/memory.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <type_traits>
#include <nlohmann/json.hpp>

#include "base/json_reader.h"
#include "trainfit/catalog/model.h"

namespace trainfit {
namespace {

using json = nlohmann::json;

// ----------------------------------------------------------------------------------------------------
// [SECTION] Enum names. The same strings are used in JSON, hashes, CLI flags and UI combos.
template <class E>
struct EnumName {
  E value;
  const char* name;
};
constexpr EnumName<Method> kMethods[] = {{Method::full, "full"}, {Method::lora, "lora"}, {Method::qlora, "qlora"}};
constexpr EnumName<Precision> kPrecisions[] = {{Precision::fp32, "fp32"},
                                               {Precision::bf16_mixed, "bf16-mixed"},
                                               {Precision::fp16_mixed, "fp16-mixed"},
                                               {Precision::bf16, "bf16"},
                                               {Precision::fp8_mixed, "fp8-mixed"},
                                               {Precision::automatic, "auto"}};
constexpr EnumName<Optimizer> kOptimizers[] = {{Optimizer::adamw, "adamw"},         {Optimizer::adamw_8bit, "adamw-8bit"},
                                               {Optimizer::sgd, "sgd"},             {Optimizer::sgd_momentum, "sgd-momentum"},
                                               {Optimizer::adafactor, "adafactor"}, {Optimizer::lion, "lion"}};
constexpr EnumName<Recompute> kRecomputes[] = {{Recompute::none, "none"},
                                               {Recompute::selective, "selective"},
                                               {Recompute::full, "full"},
                                               {Recompute::automatic, "auto"}};
constexpr EnumName<Attention> kAttentions[] = {{Attention::flash, "flash"}, {Attention::eager, "eager"}};
constexpr EnumName<CpScheme> kCpSchemes[] = {
    {CpScheme::automatic, "auto"}, {CpScheme::ring, "ring"}, {CpScheme::ulysses, "ulysses"}};
constexpr EnumName<GradReduce> kGradReduces[] = {
    {GradReduce::automatic, "auto"}, {GradReduce::fp32, "fp32"}, {GradReduce::bf16, "bf16"}};
// The profiles' names (framework.h; framework.cpp holds what each supports).
constexpr EnumName<Framework> kFrameworks[] = {{Framework::generic, "generic"},
                                               {Framework::hf_trainer, "hf-trainer"},
                                               {Framework::torchtune, "torchtune"},
                                               {Framework::litgpt, "litgpt"},
                                               {Framework::megatron_core, "megatron-core"},
                                               {Framework::nanotron, "nanotron"},
                                               {Framework::torchtitan, "torchtitan"}};
constexpr EnumName<SortKey> kSortKeys[] = {{SortKey::total_cost, "cost"},
                                           {SortKey::time, "time"},
                                           {SortKey::usd_per_mtok, "usd_per_mtok"},
                                           {SortKey::cost_under_deadline, "cost_under_deadline"},
                                           {SortKey::dev_cycle, "dev_cycle"}};
constexpr EnumName<PricingFilter> kPricings[] = {
    {PricingFilter::any, "any"}, {PricingFilter::on_demand, "on-demand"}, {PricingFilter::spot, "spot"},
    {PricingFilter::reserved, "reserved"}};
constexpr EnumName<InterconnectFilter> kInterconnects[] = {{InterconnectFilter::any, "any"},
                                                           {InterconnectFilter::nvlink, "nvlink"},
                                                           {InterconnectFilter::nvswitch, "nvswitch"},
                                                           {InterconnectFilter::pcie, "pcie"}};
constexpr EnumName<Arch> kArchs[] = {
    {Arch::gpt2, "gpt2"},     {Arch::llama, "llama"},       {Arch::qwen2, "qwen2"},     {Arch::mistral, "mistral"},
    {Arch::mixtral, "mixtral"}, {Arch::gemma2, "gemma2"},   {Arch::phi3, "phi3"},       {Arch::falcon, "falcon"},
    {Arch::opt, "opt"},       {Arch::bert, "bert"},         {Arch::qwen3, "qwen3"},     {Arch::gemma3, "gemma3"},
    {Arch::olmo2, "olmo2"},   {Arch::deepseek_v3, "deepseek_v3"}, {Arch::gpt_oss, "gpt_oss"},
    {Arch::llama4, "llama4"}, {Arch::params_only, "params"}};

template <class E, size_t N>
const char* enum_name(const EnumName<E> (&table)[N], E v) {
  for (const auto& e : table)
    if (e.value == v) return e.name;
  return "?";
}
template <class E, size_t N>
std::string enum_choices(const EnumName<E> (&table)[N]) {
  std::string s;
  for (const auto& e : table) {
    if (!s.empty()) s += ", ";
    s += e.name;
  }
  return s;
}
template <class E, size_t N>
bool enum_parse(const EnumName<E> (&table)[N], const std::string& s, E* out) {
  for (const auto& e : table)
    if (s == e.name) {
      *out = e.value;
      return true;
    }
  return false;
}

// ----------------------------------------------------------------------------------------------------
// [SECTION] The key table. Each key: its path, its type, its range, how to read it from and write it into a Query.
enum class Kind { integer, number, boolean, text, list };

struct Key {
  const char* path;
  Kind kind;
  double min, max;  // for integer / number
  std::function<json(const Query&)> get;
  // Returns an empty string on success, else the problem (the caller prefixes the key).
  std::function<std::string(Query&, const json&)> set;
  // An architecture knob: an inline model writes it only when it differs from its family's default.
  bool knob = false;
};

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
        E e{};
        if (!enum_parse(table, v.get<std::string>(), &e))
          return "unknown value \"" + v.get<std::string>() + "\"; expected one of: " + enum_choices(table);
        ref(q) = e;
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

Key list_key(const char* path, std::vector<std::string>& (*ref)(Query&)) {
  return make(
      path, Kind::list, 0, 0, [ref](const Query& q) { return json(ref(const_cast<Query&>(q))); },
      [ref](Query& q, const json& v) -> std::string {
        std::vector<std::string> items;
        for (const auto& it : v) {
          if (!it.is_string()) return "must be a list of strings";
          std::string s = it.get<std::string>();
          if (s.empty() || s.size() > 64) return "list items must be 1 to 64 characters";
          items.push_back(std::move(s));
        }
        if (items.size() > 256) return "too many items (the limit is 256)";
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

const std::vector<Key>& keys() {
  static const std::vector<Key> k = [] {
    std::vector<Key> t;
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
          Arch a{};
          if (!enum_parse(kArchs, v.get<std::string>(), &a))
            return "unknown architecture \"" + v.get<std::string>() + "\"; expected one of: " + enum_choices(kArchs);
          apply_family(q.model, a);  // the family sets every knob's default; knob keys come later in the table
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
    t.push_back(enum_key("cp_scheme", kCpSchemes, [](Query& q) -> CpScheme& { return q.train.cp_scheme; }));
    t.push_back(enum_key("framework", kFrameworks, [](Query& q) -> Framework& { return q.train.framework; }));
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

    t.push_back(make(
        "target.offer", Kind::text, 0, 0, [](const Query& q) { return json(q.target.offer); },
        [](Query& q, const json& v) -> std::string {
          q.target.offer = v.get<std::string>();
          return "";
        }));
    t.push_back(make(
        "target.gpu", Kind::text, 0, 0, [](const Query& q) { return json(q.target.gpu); },
        [](Query& q, const json& v) -> std::string {
          q.target.gpu = v.get<std::string>();
          return "";
        }));
    t.push_back(num_key<int>("target.nodes", Kind::integer, 0, 1024, [](Query& q) -> int& { return q.target.nodes; }));
    t.push_back(enum_key("target.pricing", kPricings, [](Query& q) -> PricingFilter& { return q.target.pricing; }));
    t.push_back(make(
        "calibration.offer", Kind::text, 0, 0, [](const Query& q) { return json(q.calibration.offer); },
        [](Query& q, const json& v) -> std::string {
          q.calibration.offer = v.get<std::string>();
          return "";
        }));
    t.push_back(num_key<int>("calibration.nodes", Kind::integer, 0, 1024, [](Query& q) -> int& { return q.calibration.nodes; }));
    t.push_back(num_key<double>("calibration.step_time_s", Kind::number, 0, 1e6,
                                [](Query& q) -> double& { return q.calibration.step_time_s; }));
    t.push_back(num_key<double>("calibration.tokens_per_s", Kind::number, 0, 1e12,
                                [](Query& q) -> double& { return q.calibration.tokens_per_s; }));
    t.push_back(num_key<double>("calibration.peak_GiB", Kind::number, 0, 4096,
                                [](Query& q) -> double& { return q.calibration.peak_GiB; }));
    t.push_back(make(
        "calibration.gpu", Kind::text, 0, 0, [](const Query& q) { return json(q.calibration.gpu); },
        [](Query& q, const json& v) -> std::string {
          q.calibration.gpu = v.get<std::string>();
          return "";
        }));
    t.push_back(num_key<double>("calibration.efficiency_scale", Kind::number, 0, 20,
                                [](Query& q) -> double& { return q.calibration.efficiency_scale; }));
    t.push_back(enum_key("sort", kSortKeys, [](Query& q) -> SortKey& { return q.sort; }));
    t.push_back(num_key<int>("top", Kind::integer, 0, 1000000, [](Query& q) -> int& { return q.top; }));
    return t;
  }();
  return k;
}

const Key* find_key(std::string_view path) {
  for (const auto& k : keys())
    if (path == k.path) return &k;
  return nullptr;
}

std::string fmt_num(double v) {
  // The shortest text that round-trips, with a compact exponent ("7e9", not "7e+09": links stay readable).
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  for (int prec = 1; prec <= 17; ++prec) {
    char b2[64];
    std::snprintf(b2, sizeof b2, "%.*g", prec, v);
    if (std::strtod(b2, nullptr) == v) {
      std::snprintf(buf, sizeof buf, "%s", b2);
      break;
    }
  }
  std::string s = buf;
  const size_t e = s.find('e');
  if (e == std::string::npos) return s;
  std::string mant = s.substr(0, e), ex = s.substr(e + 1);
  bool neg = false;
  if (!ex.empty() && (ex[0] == '+' || ex[0] == '-')) {
    neg = ex[0] == '-';
    ex.erase(0, 1);
  }
  while (ex.size() > 1 && ex[0] == '0') ex.erase(0, 1);
  return mant + "e" + (neg ? "-" : "") + ex;
}

// ----------------------------------------------------------------------------------------------------
// [SECTION] Applying values and objects, cross-field checks.

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

// The order in which keys are applied matters for one thing: a preset `model` must be applied before
// inline `model.*` overrides. JSON objects are applied in key-table order, not text order, for that reason.
bool is_group(std::string_view path) {
  return path == "model" || path == "parallel" || path == "dataset" || path == "filters" || path == "cost" ||
         path == "target" || path == "calibration";
}

std::string apply_object(Query& q, const json& obj, const std::string& prefix, std::string* bad_field) {
  // Check every key first, so a typo is reported even when another field is also wrong.
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (prefix.empty() && is_group(path)) {
      if (it.value().is_object()) continue;
      if (!find_key(path)) {
        *bad_field = path;
        return "must be an object";
      }
      continue;
    }
    if (!find_key(path)) {
      *bad_field = path;
      return "unknown key";
    }
  }
  // Apply in key-table order, not text order: a preset `model` must be applied before anything that
  // depends on it, whatever order the user wrote the keys in.
  for (const auto& k : keys()) {
    std::string_view path = k.path;
    if (!prefix.empty()) {
      if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0 || path[prefix.size()] != '.')
        continue;
      path.remove_prefix(prefix.size() + 1);
    }
    if (path.find('.') != std::string_view::npos) continue;  // visited through its group
    auto it = obj.find(std::string(path));
    if (it == obj.end() || it->is_object()) continue;
    std::string e = apply_value(q, k, *it);
    if (!e.empty()) {
      *bad_field = k.path;
      return e;
    }
  }
  if (!prefix.empty()) return "";
  for (const char* group : {"model", "parallel", "dataset", "filters", "cost", "target", "calibration"}) {
    auto it = obj.find(group);
    if (it == obj.end() || !it->is_object()) continue;
    const std::string sub = group;
    if (sub == "model") {
      // Inline model: an empty custom spec, filled from the object.
      q.model = ModelSpec{};
      q.model.id = "custom";
      q.model.name = "Custom model";
      q.model_id = "custom";
    }
    if (sub == "parallel") q.train.parallel.automatic = false;
    std::string e = apply_object(q, *it, sub, bad_field);
    if (!e.empty()) return e;
    if (sub == "model" && q.model.params > 0 && q.model.hidden_size == 0) q.model.arch = Arch::params_only;
  }
  return "";
}

// Cross-field checks once everything is set. These are what a user can get wrong together.
// sort=dev_cycle ranks by the cost of K runs of T minutes: both must be given.
std::string check_dev_cycle(const Query& q, std::string* field) {
  if (q.sort != SortKey::dev_cycle) return "";
  if (q.cost.dev_runs < 1) {
    *field = "cost.dev_runs";
    return "sort=dev_cycle needs the number of runs (cost.dev_runs, e.g. 20) and their length (cost.dev_run_minutes)";
  }
  if (!(q.cost.dev_run_minutes > 0)) {
    *field = "cost.dev_run_minutes";
    return "sort=dev_cycle needs the length of one run in minutes (e.g. 10)";
  }
  return "";
}

std::string check_query(const Query& q, std::string* field) {
  const ModelSpec& m = q.model;
  if (m.arch == Arch::params_only) {
    if (!(m.params > 0)) {
      *field = "model.params";
      return "must be given for a parameter-count-only model";
    }
  } else {
    const char* missing = nullptr;
    if (m.hidden_size <= 0) missing = "model.hidden_size";
    else if (m.num_layers <= 0) missing = "model.num_layers";
    else if (m.num_heads <= 0) missing = "model.num_heads";
    else if (m.vocab_size <= 0) missing = "model.vocab_size";
    if (missing) {
      *field = missing;
      return "is required for an inline model (or give {\"params\": N} only)";
    }
    const int64_t kv = m.num_kv_heads > 0 ? m.num_kv_heads : m.num_heads;
    if (m.num_heads % kv != 0) {
      *field = "model.num_kv_heads";
      return "must divide num_heads (" + std::to_string(m.num_heads) + ")";
    }
    if (m.experts_per_token > m.num_experts) {
      *field = "model.experts_per_token";
      return "cannot exceed num_experts (" + std::to_string(m.num_experts) + ")";
    }
    const ParallelConfig& p = q.train.parallel;
    if (!p.automatic) {
      if (m.num_heads % p.tp != 0 || kv % p.tp != 0) {
        *field = "parallel.tp";
        return "must divide the attention heads (" + std::to_string(m.num_heads) + " query, " + std::to_string(kv) +
               " key/value)";
      }
      if (p.pp > m.num_layers) {
        *field = "parallel.pp";
        return "pipeline stages (" + std::to_string(p.pp) + ") cannot exceed the layer count (" +
               std::to_string(m.num_layers) + ")";
      }
      if (p.vp > 1 && (p.pp < 2 || !pipeline_split_ok(framework_profile(q.train.framework), m.num_layers, p.pp, p.vp))) {
        *field = "parallel.vp";
        const FrameworkProfile& fw = framework_profile(q.train.framework);
        if (fw.uneven_pp && p.pp >= 2 && int64_t(p.pp) * p.vp <= m.num_layers)
          return "pp x vp = " + std::to_string(int64_t(p.pp) * p.vp) + " chunks: " + fw.name +
                 " cannot split the layer count (" + std::to_string(m.num_layers) +
                 ") that way (neither it nor it + 1 or + 2, with the embedding and loss counted as layers, divides)";
        return std::string("virtual stages need pp >= 2 and pp x vp ") + (fw.uneven_pp ? "at most" : "dividing") +
               " the layer count (" + std::to_string(m.num_layers) + ")" +
               (fw.uneven_pp ? "" : std::string(": ") + fw.name + " runs no uneven pipeline stages");
      }
      if (Error e = expert_layout_error(m, p.tp, p.cp, p.dp, p.ep, p.etp); !e.message.empty()) {
        *field = e.field;
        return e.message;
      }
      if (Error e = cp_layout_error(m, p.tp, p.cp, resolved_cp_scheme(q.train)); !e.message.empty()) {
        *field = e.field;
        return e.message;
      }
      if (q.train.method != Method::full && (p.ep > 1 || (p.etp > 0 && p.etp != p.tp))) {
        *field = "parallel.ep";
        return "expert parallelism is modelled for full training only (not LoRA / QLoRA)";
      }
      if (p.vp > 1 && !framework_profile(q.train.framework).interleaved_pp) {
        *field = "parallel.vp";
        return std::string("virtual pipeline stages (interleaved 1F1B) are not supported by ") +
               framework_profile(q.train.framework).name;
      }
    }
    if (q.train.method != Method::full && q.train.lora_rank > m.hidden_size) {
      *field = "lora_rank";
      return "cannot exceed the hidden size (" + std::to_string(m.hidden_size) + ")";
    }
  }
  const ParallelConfig& p = q.train.parallel;
  if (!p.automatic && static_cast<int64_t>(p.tp) * p.pp * p.dp * p.cp > 1048576) {
    *field = "parallel";
    return "tp * pp * dp * cp is absurdly large";
  }
  if (!p.automatic && p.gpus != p.tp * p.pp * p.dp * p.cp) {
    if (p.gpus == 1 && p.tp * p.pp * p.dp * p.cp > 1) {
      // gpus left at its default: derive it.
    } else {
      *field = "parallel.gpus";
      return "must equal tp * pp * dp * cp (" + std::to_string(p.tp * p.pp * p.dp * p.cp) + ")";
    }
  }
  if (p.offload_params && p.zero != 3 && !p.automatic) {
    *field = "parallel.offload_params";
    return "parameter offload needs ZeRO stage 3";
  }
  if (const FrameworkProfile& fw = framework_profile(q.train.framework);
      q.train.cp_scheme != CpScheme::automatic && !runs_cp_scheme(fw, q.train.cp_scheme)) {
    *field = "cp_scheme";
    return std::string(to_string(q.train.cp_scheme)) + " context parallelism is not run by " + fw.name + " (" +
           to_string(fw.cp_scheme) + " is)";
  }
  if (!p.automatic) {  // a fixed layout the query's framework cannot launch
    const std::string why = framework_layout_error(q.train.framework, q.train.method, p.tp, p.pp, p.cp, p.dp, p.zero,
                                                   p.offload_optimizer || p.offload_params, p.ep,
                                                   resolved_cp_scheme(q.train));
    if (!why.empty()) {
      *field = framework_profile(q.train.framework).method(q.train.method).supported ? "parallel" : "framework";
      return why;
    }
  } else if (!framework_profile(q.train.framework).method(q.train.method).supported) {
    *field = "framework";
    return framework_layout_error(q.train.framework, q.train.method, 1, 1, 1, 1, 0, false);
  }
  static const char* kTargets[] = {"q", "k", "v", "o", "gate", "up", "down"};
  for (const auto& t : q.train.lora_targets) {
    bool ok = false;
    for (const char* k : kTargets) ok = ok || t == k;
    if (!ok) {
      *field = "lora_targets";
      return "unknown target \"" + t + "\"; expected some of: q, k, v, o, gate, up, down";
    }
  }
  if (q.train.global_batch > 0 && q.train.global_batch < q.train.micro_batch) {
    *field = "global_batch";
    return "must be at least micro_batch (" + std::to_string(q.train.micro_batch) + ")";
  }
  if (q.dataset.tokens > 0 && q.dataset.tokens < q.train.seq_len) {
    *field = "dataset.tokens";
    return "is less than one sequence (" + std::to_string(q.train.seq_len) + " tokens)";
  }
  if (q.dataset.tokens <= 0 && !(q.dataset.examples > 0 && q.dataset.avg_tokens_per_example > 0)) {
    *field = "dataset.tokens";
    return "give tokens, or examples and avg_tokens";
  }
  if (q.filters.max_gpus > 0 && q.filters.max_gpus < q.filters.min_gpus) {
    *field = "filters.max_gpus";
    return "must be at least filters.min_gpus";
  }
  return check_dev_cycle(q, field);
}

Result<Query> finish(Query q) {
  // A parameter-count-only model gets the documented derived shape (model.cpp, model_from_params) so every
  // estimator can run; the estimate carries a note saying so.
  if (q.model.arch == Arch::params_only && q.model.hidden_size == 0 && q.model.params > 0) {
    Result<ModelSpec> derived = model_from_params(q.model.params);
    if (!derived) return derived.error();
    const std::string name = q.model.name;
    q.model = std::move(derived).value();
    if (!name.empty() && name != "Custom model") q.model.name = name;
  }
  ParallelConfig& p = q.train.parallel;
  // In 64 bits: tp, pp, dp and cp are each in range but their product can overflow int (UBSan found
  // 1024 * 1024 * 65536); check_query then refuses it as absurdly large.
  const int64_t product = static_cast<int64_t>(p.tp) * p.pp * p.dp * p.cp;
  if (!p.automatic && p.gpus == 1 && product <= 1048576) p.gpus = static_cast<int>(product);
  std::string field;
  std::string e = check_query(q, &field);
  if (!e.empty()) return Error{field, e};
  return q;
}

// ----------------------------------------------------------------------------------------------------
// [SECTION] Link encoding and the written-key set.

// Percent-decoding for hash values; rejects malformed escapes and control bytes.
bool url_decode(std::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      auto hex = [](char h) -> int {
        if (h >= '0' && h <= '9') return h - '0';
        if (h >= 'a' && h <= 'f') return h - 'a' + 10;
        if (h >= 'A' && h <= 'F') return h - 'A' + 10;
        return -1;
      };
      int hi = hex(in[i + 1]), lo = hex(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+') {
      c = ' ';
    }
    if (static_cast<unsigned char>(c) < 0x20) return false;
    out->push_back(c);
  }
  return true;
}

// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int n = 0;
    uint32_t cp = 0;
    if (c < 0x80) { ++i; continue; }
    if ((c & 0xE0) == 0xC0) { n = 1; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { n = 2; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { n = 3; cp = c & 0x07; }
    else return false;
    if (i + n >= s.size()) return false;  // truncated sequence
    for (int k = 1; k <= n; ++k) {
      const unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static const uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

std::string url_encode(std::string_view in) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : in) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
        c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

std::string value_to_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number()) return fmt_num(v.get<double>());
  if (v.is_array()) {
    std::string s;
    for (const auto& it : v) {
      if (!s.empty()) s += ",";
      s += it.is_string() ? it.get<std::string>() : it.dump();
    }
    return s;
  }
  return v.dump();
}

json exact_number(double d) {
  if (d == std::floor(d) && std::fabs(d) < 9e15) return json(static_cast<int64_t>(d));
  return json(d);
}

// A query whose model is `a`'s family defaults (what model.arch alone implies).
const Query& family_query(Arch a) {
  static const std::vector<Query> all = [] {
    std::vector<Query> v;
    for (int i = 0; i <= int(Arch::params_only); ++i) {
      Query q;
      q.model = family_spec(Arch(i));
      v.push_back(std::move(q));
    }
    return v;
  }();
  return all[size_t(a)];
}

// The set of keys written for a query: the ones that differ from the default (or all, when full).
// `model.*` keys are only written for inline models; `parallel.*` only when the layout is manual.
template <class Emit>
void for_each_written(const Query& q, bool full, Emit emit) {
  static const Query d = default_query();
  const bool inline_model = q.model_id == "custom";
  for (const auto& k : keys()) {
    std::string_view path = k.path;
    const bool is_model_field = path.rfind("model.", 0) == 0;
    if (path == "model") {
      if (inline_model) continue;
    } else if (is_model_field) {
      if (!inline_model) continue;
      if (q.model.arch == Arch::params_only && path != "model.params" && path != "model.arch" && path != "model.name")
        continue;
      if (q.model.arch != Arch::params_only && path == "model.params") continue;
      json v = k.get(q);  // inline models are written whole: they must reproduce exactly
      // A knob at its family's default is implied by model.arch: links and short JSON leave it out.
      if (!full && k.knob && v == k.get(family_query(q.model.arch))) continue;
      if (v.is_number() && v.get<double>() < k.min) continue;  // 0 = "derive it" (num_kv_heads): the default
      emit(k, v);
      continue;
    }
    if (path == "parallel") continue;  // implied by parallel.* keys; see query_to_json / query_to_hash
    if (path.rfind("parallel.", 0) == 0 && q.train.parallel.automatic) continue;
    json v = k.get(q);
    if (!full && v == k.get(d)) continue;
    // Below the key's range is only ever an internal "use the documented default" sentinel (overhead_GiB,
    // fragmentation = -1): the parser would reject it, so leave it out and let parsing restore the default.
    if (v.is_number() && v.get<double>() < k.min) continue;
    emit(k, v);
  }
}

// Where and why a query is not JSON, so `{"seq_len": NaN}` is reported as a problem near seq_len rather than
// a bare "invalid": nlohmann's reason and position, plus the last key read before that position.
std::string json_syntax_problem(std::string_view text) {
  size_t at = text.size();
  std::string why;
  try {
    [[maybe_unused]] const json j = json::parse(text.begin(), text.end());  // throws the parse_error to read
  } catch (const json::parse_error& e) {
    at = std::min<size_t>(e.byte, text.size());
    why = e.what();
    const size_t p = why.find("parse error at ");
    if (p != std::string::npos) why = why.substr(p + 15);  // drop "[json.exception.parse_error.101] "
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (why.size() > 160) why = why.substr(0, 157) + "...";
  // Last `"name":` before the error (string-aware scan; the text is at most 1 MiB).
  std::string key;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] != '"') continue;
    const size_t start = ++i;
    while (i < at && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
    if (i >= at) break;
    size_t j = i + 1;
    while (j < at && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) ++j;
    if (j < at && text[j] == ':') key = std::string(text.substr(start, std::min<size_t>(i - start, 64)));
  }
  std::string out;
  if (!key.empty()) out += " after key \"" + key + "\"";
  if (!why.empty()) out += " (" + why + ")";
  return out;
}

}  // namespace

// ------------------------------------------------------------------------------------------------------
// [SECTION] Public API.
Query default_query() {
  Query q;
  if (const ModelSpec* m = find_model("llama-3.1-8b")) {
    q.model = *m;
    q.model_id = m->id;
  } else if (!builtin_models().empty()) {
    q.model = builtin_models().front();
    q.model_id = q.model.id;
  } else {
    q.model_id = "custom";
    q.model.arch = Arch::params_only;
    q.model.params = 8e9;
  }
  q.train.method = Method::lora;
  q.train.micro_batch = 4;
  q.train.seq_len = 2048;
  q.train.global_batch = 0;  // planner.h default_global_batch: 64 where the DP width divides it
  q.dataset.tokens = 1e8;
  return q;
}

Result<Query> parse_query_json(std::string_view text) {
  if (text.size() > (1u << 20)) return Error{"", "query is too large (the limit is 1 MiB)"};
  // A query nests three levels at most; refuse deep documents before nlohmann builds a tree of them
  // (a megabyte of '[' took seconds to build and tear down in a Debug build).
  if (jsonr::json_nesting_exceeds(text, 16)) return Error{"", "query is nested too deeply (the limit is 16 levels)"};
  json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Error{"", "query is not valid JSON" + json_syntax_problem(text)};
  if (!doc.is_object()) return Error{"", "query must be a JSON object"};
  Query q = default_query();
  std::string field;
  try {
    std::string e = apply_object(q, doc, "", &field);
    if (!e.empty()) return Error{field, e};
  } catch (const std::exception& ex) {
    return Error{field, std::string("invalid value: ") + ex.what()};
  }
  return finish(std::move(q));
}

Result<Query> parse_query_hash(std::string_view hash) {
  if (!hash.empty() && hash.front() == '#') hash.remove_prefix(1);
  // The limit must admit every link query_to_hash can write, or a shared link would not open: the longest
  // valid query (three 256-item lists of 64-byte names, each byte percent-encoded as 3) is about 150 KB.
  // Found by fuzz_query_hash: 4 KB of '"' in a list became a 12 KB link, refused under the old 8192 limit.
  constexpr size_t kMaxLinkChars = 256 * 1024;
  if (hash.size() > kMaxLinkChars) return Error{"", "link is too long (the limit is 262144 characters)"};
  Query q = default_query();
  // Apply in key-table order (preset before model.* overrides), as for JSON.
  struct Pair {
    const Key* key;
    std::string value;
  };
  std::vector<Pair> pairs;
  size_t pos = 0;
  while (pos <= hash.size() && !hash.empty()) {
    size_t amp = hash.find('&', pos);
    if (amp == std::string_view::npos) amp = hash.size();
    std::string_view part = hash.substr(pos, amp - pos);
    pos = amp + 1;
    if (part.empty()) {
      if (amp >= hash.size()) break;
      continue;
    }
    size_t eq = part.find('=');
    std::string key, value;
    if (eq == std::string_view::npos || !url_decode(part.substr(0, eq), &key) || !url_decode(part.substr(eq + 1), &value))
      return Error{"", "malformed link parameter \"" + std::string(part.substr(0, 40)) + "\" (expected key=value)"};
    // Text from a link becomes JSON (query_to_json, the facade), which must be UTF-8: "%FF" would otherwise
    // make every later dump throw.
    if (!valid_utf8(key)) return Error{"", "link parameter name is not valid UTF-8 text"};
    if (!valid_utf8(value)) return Error{key.substr(0, 64), "is not valid UTF-8 text"};
    const Key* k = find_key(key);
    if (!k) return Error{key.substr(0, 64), "unknown key"};
    pairs.push_back({k, value});
    if (amp >= hash.size()) break;
  }
  for (const auto& k : keys()) {
    for (const auto& p : pairs) {
      if (p.key != &k) continue;
      json v;
      switch (k.kind) {
        case Kind::integer:
        case Kind::number: {
          // JSON's number grammar only: strtod alone would also take hex ("0x10"), "nan", "infinity" and
          // leading spaces, so a link could say what a JSON query cannot.
          char* end = nullptr;
          const double d = std::strtod(p.value.c_str(), &end);
          if (p.value.empty() || p.value.find_first_not_of("0123456789+-.eE") != std::string::npos ||
              end != p.value.c_str() + p.value.size())
            return Error{k.path, "must be a number, got \"" + p.value.substr(0, 40) + "\""};
          v = d;
          break;
        }
        case Kind::boolean:
          if (p.value == "true" || p.value == "1") v = true;
          else if (p.value == "false" || p.value == "0") v = false;
          else return Error{k.path, "must be true or false"};
          break;
        case Kind::text:
          v = p.value;
          break;
        case Kind::list: {
          v = json::array();
          size_t s = 0;
          while (s <= p.value.size() && !p.value.empty()) {
            size_t c = p.value.find(',', s);
            if (c == std::string::npos) c = p.value.size();
            v.push_back(p.value.substr(s, c - s));
            s = c + 1;
          }
          break;
        }
      }
      if (std::string_view(k.path).rfind("model.", 0) == 0 && q.model_id != "custom") {
        // First inline field: start from the preset (if one was named) or from scratch.
        bool had_preset = false;
        for (const auto& pp : pairs) had_preset = had_preset || std::string_view(pp.key->path) == "model";
        if (!had_preset) {
          q.model = ModelSpec{};
          q.model.name = "Custom model";
        }
        q.model.id = "custom";
        q.model_id = "custom";
      }
      try {
        std::string e = apply_value(q, k, v);
        if (!e.empty()) return Error{k.path, e};
      } catch (const std::exception& ex) {
        return Error{k.path, std::string("invalid value: ") + ex.what()};
      }
    }
  }
  if (q.model_id == "custom" && q.model.params > 0 && q.model.hidden_size == 0) q.model.arch = Arch::params_only;
  return finish(std::move(q));
}

std::string query_to_json(const Query& q, bool full) {
  json out = json::object();
  for_each_written(q, full, [&](const Key& k, const json& v) {
    json* node = &out;
    std::string_view path = k.path;
    size_t dot;
    while ((dot = path.find('.')) != std::string_view::npos) {
      node = &(*node)[std::string(path.substr(0, dot))];
      path.remove_prefix(dot + 1);
    }
    (*node)[std::string(path)] = v.is_number() ? exact_number(v.get<double>()) : v;
  });
  if (!q.train.parallel.automatic && !out.contains("parallel")) out["parallel"] = "manual";
  if (q.train.parallel.automatic && full) out["parallel"] = "auto";
  return out.dump();
}

std::string query_to_hash(const Query& q) {
  std::string s;
  bool wrote_parallel_key = false;  // tracked, not searched for: a value may contain the text "parallel."
  for_each_written(q, false, [&](const Key& k, const json& v) {
    if (!s.empty()) s += '&';
    s += k.path;
    s += '=';
    s += url_encode(value_to_text(v));
    wrote_parallel_key = wrote_parallel_key || std::string_view(k.path).rfind("parallel.", 0) == 0;
  });
  if (!q.train.parallel.automatic && !wrote_parallel_key) s += std::string(s.empty() ? "" : "&") + "parallel=manual";
  return s;
}

const char* to_string(Method m) { return enum_name(kMethods, m); }
const char* to_string(Precision p) { return enum_name(kPrecisions, p); }
const char* to_string(Framework f) { return enum_name(kFrameworks, f); }
const char* to_string(Optimizer o) { return enum_name(kOptimizers, o); }
const char* to_string(Recompute r) { return enum_name(kRecomputes, r); }
const char* to_string(CpScheme s) { return enum_name(kCpSchemes, s); }
const char* to_string(Attention a) { return enum_name(kAttentions, a); }
const char* to_string(GradReduce g) { return enum_name(kGradReduces, g); }
const char* to_string(SortKey k) { return enum_name(kSortKeys, k); }
const char* to_string(Arch a) { return enum_name(kArchs, a); }

}  // namespace trainfit
