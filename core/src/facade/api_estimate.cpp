// trainfit core — the facade's estimate and plan documents (api.h): the memory breakdown, the fit against a GPU
// and its inverse questions, and the planner's result with its plans. Documents are built with nlohmann::json,
// so key order is fixed (alphabetical within objects).
#include <optional>
#include <utility>
#include <vector>

#include "facade/api_internal.h"
#include "trainfit/catalog/framework.h"
#include "trainfit/catalog/model.h"
#include "trainfit/catalog/names.h"
#include "trainfit/estimate/memory.h"
#include "trainfit/estimate/planner.h"
#include "trainfit/query/query.h"

namespace trainfit::api_detail {
namespace {

json memory_doc(const MemoryBreakdown& m) {
  json notes = json::array();
  for (const auto& w : m.notes) notes.push_back({{"code", w.code}, {"field", w.field}, {"message", w.message}});
  json doc = json::object();
  for (const MemoryComponent& c : kMemoryComponents) doc[c.key] = num(m.*c.bytes);
  doc["total_bytes"] = num(m.total);
  doc["total_low_bytes"] = num(m.total_low);
  doc["total_high_bytes"] = num(m.total_high);
  doc["host_ram_per_node_bytes"] = num(m.host_ram_per_node_bytes);
  doc["load_peak_bytes"] = num(m.load_peak);
  doc["peak_set_by"] = m.load_sets_peak ? "loading" : "training";
  doc["notes"] = std::move(notes);
  return doc;
}

// The layout `estimate` evaluates: the query's fixed layout (cp included), or one GPU; gradient accumulation
// from global_batch exactly as `plan` derives it (global_batch / (dp x micro_batch)), so one query gets one
// answer from both.
Result<MemoryLayout> estimate_layout(const Query& q) {
  MemoryLayout layout;
  const ParallelConfig& par = q.train.parallel;
  if (!par.automatic) {
    layout.tp = par.tp;
    layout.pp = par.pp;
    layout.dp = par.dp;
    layout.cp = par.cp;
    layout.cp_ulysses = par.cp > 1 && resolved_cp_scheme(q.train) == CpScheme::ulysses;
    layout.vp = par.vp;
    layout.ep = par.ep;
    layout.etp = par.etp;
    layout.zero = par.zero;
    layout.sequence_parallel = par.sequence_parallel && par.tp > 1;  // as the planner lays it out
    layout.offload_optimizer = par.offload_optimizer;
    layout.offload_params = par.offload_params;
  }
  layout.micro_batch = q.train.micro_batch;
  // global_batch 0: the default plan chooses for this DP width and micro-batch (planner.h default_global_batch).
  const int64_t gb = q.train.global_batch > 0 ? q.train.global_batch : default_global_batch(layout.dp, q.train.micro_batch);
  const int64_t per_step = static_cast<int64_t>(layout.dp) * q.train.micro_batch;
  if (per_step <= 0 || gb % per_step != 0)
    return Error{"global_batch", "must be a multiple of dp x micro_batch (" + std::to_string(per_step) + ")"};
  layout.num_microbatches = gb / per_step;
  return layout;
}

Result<const GpuSpec*> estimate_gpu(const Query& q, const Snapshot* snapshot) {
  if (q.target.gpu.empty()) return static_cast<const GpuSpec*>(nullptr);
  if (!snapshot) return Error{"target.gpu", "a price snapshot is needed to look up GPUs"};
  const int gi = snapshot->find_gpu(q.target.gpu);
  if (gi < 0) {
    std::string ids;
    for (const auto& g : snapshot->gpus) ids += (ids.empty() ? "" : ", ") + g.id;
    return Error{"target.gpu", "unknown GPU \"" + q.target.gpu + "\"; the snapshot has: " + ids};
  }
  return &snapshot->gpus[gi];
}

json fit_doc(const Query& q, const GpuSpec& gpu, const MemoryLayout& layout, const MemoryBreakdown& m) {
  const double capacity = gpu_capacity_bytes(gpu);
  const double usable = usable_bytes(capacity, q.train.headroom);
  const FitVerdict v = fit_verdict(m, usable);
  auto search = [&](bool mb, FitLevel level) -> json {
    Result<int64_t> r = mb ? max_micro_batch(q.model, q.train, layout, usable, level)
                           : max_seq_len(q.model, q.train, layout, usable, level);
    return r ? json(*r) : json(nullptr);
  };
  json doc{{"gpu", gpu.id},
           {"gpu_name", gpu.name},
           {"gpu_memory_bytes", num(gpu.memory_bytes)},
           {"cuda_memory_bytes", num(capacity)},
           {"usable_bytes", num(usable)},
           {"verdict", to_string(v)},
           {"fits", v != FitVerdict::no_fit},
           {"headroom", num(1 - m.total / capacity)},
           {"band_high_percent", num(100.0 * (kBandHighFactor - 1.0))},
           // The two searches hold the other dimension at the query's: the micro-batch at this sequence length,
           // the sequence at this micro-batch.
           {"max_micro_batch_at_seq_len", q.train.seq_len},
           {"max_seq_len_at_micro_batch", layout.micro_batch},
           {"max_micro_batch", search(true, FitLevel::expected)},
           {"max_micro_batch_safe", search(true, FitLevel::safe)},
           {"max_seq_len", search(false, FitLevel::expected)},
           {"max_seq_len_safe", search(false, FitLevel::safe)}};
  // The longest sequence with context parallelism added to this layout (memory.h max_seq_len_by_cp).
  const CpScheme scheme = resolved_cp_scheme(q.train);
  json by_cp = json::array();
  for (const CpReach& c : max_seq_len_by_cp(q.model, q.train, layout, usable))
    by_cp.push_back({{"cp", c.cp}, {"gpus", c.gpus}, {"max_seq_len", c.max_seq_len},
                     {"max_seq_len_safe", c.max_seq_len_safe}, {"cp_scheme", to_string(c.scheme)}});
  doc["cp_scheme"] = to_string(scheme);
  doc["max_seq_len_by_cp"] = by_cp;
  return doc;
}

json step_doc(const StepTime& st) {
  return json{{"compute_s", num(st.compute_s)},         {"recompute_s", num(st.recompute_s)},
              {"exposed_comm_s", num(st.exposed_comm_s)}, {"bubble_s", num(st.bubble_s)},
              {"optimizer_s", num(st.optimizer_s)},     {"offload_s", num(st.offload_s)},
              {"total_s", num(st.total_s)},             {"tp_comm_s", num(st.tp_comm_s)},
              {"pp_comm_s", num(st.pp_comm_s)},         {"dp_comm_s", num(st.dp_comm_s)},
              {"cp_comm_s", num(st.cp_comm_s)},         {"ep_comm_s", num(st.ep_comm_s)},
              {"memory_bound", st.memory_bound}};
}

}  // namespace

json params_doc(const ParamCounts& p) {
  return json{{"total", num(p.total)},         {"active", num(p.active)}, {"embedding", num(p.embedding)},
              {"head", num(p.head)},           {"per_layer", num(p.per_layer)},
              {"expert", num(p.expert)},       {"trainable", num(p.trainable)}};
}

// estimate: the memory breakdown for the query's layout. With target.gpu, also the fit against that GPU (the
// verdict of memory.h: fits / tight / no_fit against its driver-reported memory), the recompute mode "auto"
// resolves to the least recomputation whose verdict is best (fits, else tight), and the inverse questions are
// answered, each with the expected and the safe value (largest micro-batch, longest sequence).
json estimate_doc(const Query& q, const Snapshot* snapshot) {
  Result<ParamCounts> p = count_params(q.model);
  if (!p) return error_doc(p.error());
  Result<MemoryLayout> lr = estimate_layout(q);
  if (!lr) return error_doc(lr.error());
  MemoryLayout layout = *lr;
  Result<const GpuSpec*> gr = estimate_gpu(q, snapshot);
  if (!gr) return error_doc(gr.error());
  const GpuSpec* gpu = *gr;
  std::vector<Recompute> modes;
  if (q.train.recompute != Recompute::automatic) modes = {q.train.recompute};
  else if (gpu) modes = {Recompute::none, Recompute::selective, Recompute::full};
  else modes = {Recompute::none};
  const double usable = gpu ? usable_bytes(gpu_capacity_bytes(*gpu), q.train.headroom) : 0;
  // The least recomputation that fits; else the least that is tight; else the leanest (the last mode).
  Result<MemoryBreakdown> m = Error{"", "no recompute mode"};
  Recompute chosen = modes.front();
  FitVerdict best = FitVerdict::no_fit;
  std::optional<std::pair<Recompute, MemoryBreakdown>> first_tight;
  for (Recompute r : modes) {
    layout.recompute = r;
    Result<MemoryBreakdown> e = estimate_memory(q.model, q.train, layout);
    if (!e) return error_doc(e.error());
    best = gpu ? fit_verdict(*e, usable) : FitVerdict::fits;
    m = std::move(e);
    chosen = r;
    if (best == FitVerdict::fits) break;
    if (best == FitVerdict::tight && !first_tight) first_tight.emplace(r, *m);
  }
  if (best != FitVerdict::fits && first_tight) {
    chosen = first_tight->first;
    m = std::move(first_tight->second);
    best = FitVerdict::tight;
  }
  layout.recompute = chosen;
  const Precision prec = gpu ? resolve_precision(q.train.precision, *gpu)
                             : (q.train.precision == Precision::automatic ? Precision::bf16_mixed : q.train.precision);
  json doc{{"ok", true},
           {"model", {{"id", q.model_id}, {"name", q.model.name}, {"arch", to_string(q.model.arch)}}},
           {"recompute", to_string(layout.recompute)},
           {"precision", to_string(prec)},
           {"grad_accum", layout.num_microbatches},
           {"params", params_doc(m->params)},
           {"memory", memory_doc(*m)},
           {"matched", true}};
  if (named_recompute_modules(layout.recompute, q.train.recompute_modules))
    doc["recompute_modules"] = recompute_module_names(q.train.recompute_modules);
  if (gpu) {
    doc["fit"] = fit_doc(q, *gpu, layout, *m);
    doc["matched"] = best != FitVerdict::no_fit;
  }
  return doc;
}

json plan_doc(const Plan& p) {
  const MemoryLayout& l = p.layout;
  json d = json{{"summary", plan_summary(p)},
              {"nodes", p.nodes},
              {"gpus_per_node", p.gpus_per_node},
              {"gpus", p.gpus},
              {"tp", l.tp},
              {"pp", l.pp},
              {"dp", l.dp},
              {"cp", l.cp},
              {"vp", l.vp},
              {"ep", l.ep},
              {"etp", l.etp > 0 ? l.etp : l.tp},
              {"zero", l.zero},
              {"sequence_parallel", l.sequence_parallel},
              {"offload_optimizer", l.offload_optimizer},
              {"offload_params", l.offload_params},
              {"recompute", to_string(l.recompute)},
              {"micro_batch", l.micro_batch},
              {"grad_accum", l.num_microbatches},
              {"global_batch", p.global_batch},
              {"global_batch_default", p.global_batch_default},
              {"step", step_doc(p.step)},
              {"tokens_per_s", num(p.tokens_per_s)},
              {"mfu", num(p.mfu)},
              {"hfu", num(p.hfu)},
              {"memory_bytes", num(p.memory_bytes)},
              {"memory_high_bytes", num(p.memory_high_bytes)},
              {"memory_limit_bytes", num(p.memory_limit_bytes)},
              {"topology", topology_name(p.topology)},
              {"verdict", p.tokens_per_s > 0 ? to_string(p.verdict) : to_string(FitVerdict::no_fit)},
              {"why", p.why}};
  if (l.cp > 1) d["cp_scheme"] = l.cp_ulysses ? "ulysses" : "ring";  // how the context-parallel ranks share attention
  if (l.ep > 1) d["dispatcher"] = p.deepep ? "deepep" : "alltoall";  // how the expert-parallel tokens travel
  if (p.a2a_overlap) d["a2a_overlap"] = true;  // they travel while another micro-batch computes
  // Megatron-Core's module list where a selective recompute re-runs other modules than the attention core.
  if (named_recompute_modules(l.recompute, p.recompute_modules))
    d["recompute_modules"] = recompute_module_names(p.recompute_modules);
  return d;
}

json plan_result_doc(const PlanResult& r) {
  json runners = json::array();
  for (const auto& p : r.runners_up) runners.push_back(plan_doc(p));
  json nodes = json::array();
  for (const auto& p : r.by_nodes) nodes.push_back(plan_doc(p));
  json warnings = json::array();
  for (const auto& w : r.warnings) warnings.push_back({{"code", w.code}, {"field", w.field}, {"message", w.message}});
  json doc{{"fits", r.fits},
           {"verdict", to_string(r.verdict)},
           {"precision", to_string(r.precision)},
           {"framework", to_string(r.framework)},
           {"why_not", r.why_not},
           {"shortfall_bytes", num(r.shortfall_bytes)},
           {"topology", topology_name(r.topology)},
           {"tokens", {{"useful", num(r.tokens.useful)}, {"processed", num(r.tokens.processed)}}},
           {"steps", num(r.steps)},
           {"time_s", num(r.time_s)},
           {"time_low_s", num(r.time_low_s)},
           {"time_high_s", num(r.time_high_s)},
           {"flops_per_token", {{"model", num(r.flops.model)}, {"hardware", num(r.flops.hardware)}}},
           {"data_pipeline", {{"needed_Bps", num(r.data.needed_Bps)}, {"storage_Bps", num(r.data.storage_Bps)},
                              {"storage_bound", r.data.storage_bound}}},
           {"runners_up", runners},
           {"by_nodes", nodes},
           {"warnings", warnings}};
  if (r.fits) {
    doc["best"] = plan_doc(r.best);
    doc["memory"] = memory_doc(r.memory);
  }
  return doc;
}

}  // namespace trainfit::api_detail
