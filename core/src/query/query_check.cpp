// trainfit core — the last step of parsing a query: what is derived (a parameter-count-only model's shape, the GPU
// count of a manual layout), then the cross-field checks, in a fixed order so the first problem is the one reported.
#include <cstdint>
#include <string>
#include <utility>

#include "query/query_internal.h"
#include "trainfit/catalog/framework.h"
#include "trainfit/catalog/model.h"
#include "trainfit/estimate/memory.h"

namespace trainfit::query_detail {
namespace {

// Cross-field checks once everything is set. These are what a user can get wrong together. Each stage returns an
// empty string when it finds nothing, else the problem, with `field` set to the key it names.

// A manual layout against the inline model's shape: heads, layers, experts, context, and what the framework runs.
// `kv` is the model's key/value head count (num_heads where not given).
std::string check_layout_fits_model(const Query& q, int64_t kv, std::string* field) {
  const ModelSpec& m = q.model;
  const ParallelConfig& p = q.train.parallel;
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
  // Sequence parallelism turned off with TP > 1 where the framework cannot run TP that way.
  if (!p.sequence_parallel && p.tp > 1) {
    *field = "parallel.sequence_parallel";
    if (q.train.framework == Framework::torchtitan)
      return "torchtitan's tensor parallelism always shards the norms along the sequence in v0.2.2, the version the "
             "recipes write for (its [parallelism] table has no switch; enable_sequence_parallel came later)";
    if (q.train.framework == Framework::megatron_core && p.ep > 1)
      return "Megatron-Core refuses expert parallelism with TP > 1 without sequence parallelism (transformer_config.py: "
             "\"When using expert parallelism and tensor parallelism, sequence parallelism must be used\")";
  }
  if (Error e = cp_layout_error(m, p.tp, p.cp, resolved_cp_scheme(q.train)); !e.message.empty()) {
    *field = e.field;
    // On auto the layout took the framework's default, Ulysses; its ring has no such limit where it runs one.
    const FrameworkProfile& fw = framework_profile(q.train.framework);
    if (q.train.cp_scheme == CpScheme::automatic && runs_cp_scheme(fw, CpScheme::ring))
      return e.message + "; cp_scheme ring splits the sequence without that limit (" + fw.name + " runs it)";
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
  return "";
}

// The model: a parameter count alone, or an inline shape that is complete and consistent (and, for a manual
// layout, one the layout can split).
std::string check_model(const Query& q, std::string* field) {
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
    // Every rule of a model object (model.h validate_model: K/V heads dividing the heads, experts per token within
    // the experts, ...), so a query that parses has a model the estimators accept.
    if (Result<bool> ok = validate_model(m, "model"); !ok) {
      *field = ok.error().field;
      return ok.error().message;
    }
    if (!q.train.parallel.automatic) {
      std::string e = check_layout_fits_model(q, kv, field);
      if (!e.empty()) return e;
    }
    if (q.train.method != Method::full && q.train.lora_rank > m.hidden_size) {
      *field = "lora_rank";
      return "cannot exceed the hidden size (" + std::to_string(m.hidden_size) + ")";
    }
  }
  return "";
}

// The layout's own consistency (GPU count, offload), and what the query's framework can run.
std::string check_layout_and_framework(const Query& q, std::string* field) {
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
  // torch.compile where the profile models it (framework.h compiles); the others are fitted to eager runs.
  if (const FrameworkProfile& fw = framework_profile(q.train.framework); q.train.compile == Compile::on && !fw.compiles) {
    *field = "compile";
    return std::string("on is modelled under torchtitan only: ") + fw.name + "'s rates and memory are fitted to eager runs";
  }
  // A ring a trainer runs under FSDP2 only (framework.h ring_fsdp2_error: accelerate's context parallelism) takes
  // SDPA attention, and FSDP2's CPU offload; on a searched layout, whatever CP the search adds.
  if (Error e = ring_fsdp2_error(q.train.framework, resolved_cp_scheme(q.train), p.automatic ? 2 : p.cp,
                                 q.train.attention, !p.automatic && p.offload_optimizer, p.offload_params);
      !e.message.empty()) {
    *field = e.field;
    return e.message;
  }
  // Mixture-of-experts routing and dispatch: a model with experts; a capacity factor only where the trainer has one
  // (and then every expert is padded to it, so an imbalance has nothing to add); a dispatcher only where the trainer
  // runs expert parallelism for the method, DeepEP where it launches it (framework.h moe_deepep) and not with padding
  // to capacity, which only the all-to-all runs.
  const bool capacity = q.train.moe_capacity_factor > 0, imbalance = q.train.moe_imbalance != 1.0,
             dispatcher = q.train.moe_dispatcher != MoeDispatcher::automatic;
  if (capacity || imbalance || dispatcher) {
    *field = capacity ? "moe.capacity_factor" : imbalance ? "moe.imbalance" : "moe.dispatcher";
    if (q.model.num_experts <= 1) return "needs a mixture-of-experts model";
    const FrameworkProfile& fw = framework_profile(q.train.framework);
    if (capacity && !fw.moe_capacity)
      return std::string(fw.name) + " routes dropless (no capacity factor; megatron-core has one)";
    if (capacity && imbalance) {
      *field = "moe.imbalance";
      return "a capacity factor pads every expert to it: give moe.capacity_factor or moe.imbalance, not both";
    }
    *field = "moe.dispatcher";
    if (dispatcher && !fw.method(q.train.method).ep)
      return std::string(fw.name) + " runs no expert parallelism for " + to_string(q.train.method) +
             ", so no token dispatcher to choose";
    if (q.train.moe_dispatcher == MoeDispatcher::deepep && !fw.moe_deepep)
      return std::string(fw.name) + " has no DeepEP dispatcher (generic, megatron-core and torchtitan have)";
    if (q.train.moe_dispatcher == MoeDispatcher::deepep && capacity)
      return "DeepEP (megatron-core's flex dispatcher) refuses padding to a capacity factor: use alltoall";
  }
  // The all-to-all overlap: where the trainer has it (framework.h moe_a2a_overlap), for a 16-bit model (Megatron-Core
  // asserts bf16 or fp16: FP8 runs on a bf16 model), never under full recompute; a fixed layout by Megatron-Core's
  // rules (a2a_overlap_layout_error).
  if (q.train.moe_a2a_overlap) {
    *field = "moe.a2a_overlap";
    if (q.model.num_experts <= 1) return "needs a mixture-of-experts model";
    const FrameworkProfile& fw = framework_profile(q.train.framework);
    if (!fw.moe_a2a_overlap || !fw.method(q.train.method).ep)
      return std::string(fw.name) + " has no expert-parallel all-to-all overlap for " + to_string(q.train.method) +
             " (megatron-core has, for full training)";
    if (q.train.precision == Precision::fp32) return "Megatron-Core overlaps the all-to-alls of a bf16 or fp16 model only";
    if (q.train.recompute == Recompute::full) return "the all-to-all overlap runs without full recompute (none or selective)";
    if (!p.automatic) {
      if (std::string why = a2a_overlap_layout_error(q.train, p.ep, p.pp, p.vp); !why.empty())
        return why;
    }
  }
  if (std::string why = recompute_modules_error(q.model, q.train); !why.empty()) {
    *field = "recompute_modules";
    return why;
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
    // Never empty: framework_layout_error always explains an unsupported method.
    return framework_layout_error(q.train.framework, q.train.method, 1, 1, 1, 1, 0, false);
  }
  return "";
}

// The job's sizes and the filters: LoRA targets, batch sizes, dataset size, GPU count range.
std::string check_job_and_filters(const Query& q, std::string* field) {
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
  return "";
}

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

// The stages in order; the first problem found is the one reported.
std::string check_query(const Query& q, std::string* field) {
  std::string e = check_model(q, field);
  if (e.empty()) e = check_layout_and_framework(q, field);
  if (e.empty()) e = check_job_and_filters(q, field);
  if (e.empty()) e = check_dev_cycle(q, field);
  return e;
}

}  // namespace

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
  // An inline model's num_kv_heads 0 means as many K/V heads as query heads (multi-head attention): resolved here, so
  // the estimators see the model the query means (they refused the 0).
  if (q.model.arch != Arch::params_only && q.model.num_kv_heads == 0 && q.model.num_heads > 0)
    q.model.num_kv_heads = q.model.num_heads;
  ParallelConfig& p = q.train.parallel;
  // In 64 bits: tp, pp, dp and cp are each in range but their product can overflow int (UBSan found
  // 1024 * 1024 * 65536); check_query then refuses it as absurdly large.
  const int64_t product = static_cast<int64_t>(p.tp) * p.pp * p.dp * p.cp;
  // The GPUs a fixed layout implies obey parallel.gpus's own limit, so the query written back parses again.
  if (!p.automatic && p.gpus == 1 && product > 65536 && product <= 1048576)
    return Error{"parallel.gpus", "too large (" + std::to_string(product) + "); the limit is 65536"};
  if (!p.automatic && p.gpus == 1 && product <= 1048576) p.gpus = static_cast<int>(product);
  std::string field;
  std::string e = check_query(q, &field);
  if (!e.empty()) return Error{field, e};
  return q;
}

}  // namespace trainfit::query_detail
