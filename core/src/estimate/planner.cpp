// trainfit core — topology picker: enumerate parallel layouts for one instance type, keep those that fit in
// memory, pick the fastest. The time of a layout is the perf.h model: compute at the calibrated efficiency
// with an HBM roofline floor, alpha-beta collectives with documented overlap, the 1F1B bubble, the optimizer
// update and CPU-offload traffic.
//
// Where things are:
//   this file                         dataset_tokens, plan_summary, time_layout, and plan_impl / plan_job, the
//                                     public entry points that run the search's phases
//   planner_model.h/.cpp              Ctx, Links, make_ctx: the per-instance context
//   planner_step.cpp                  step_time: the time of one layout (perf.h model)
//   planner_search.h                  search bookkeeping: best-first over layout groups, memory checks lazily
//   planner_layouts.cpp               phase 1: the layouts a node count tries
//   planner_search.cpp                phases 2 and 3: node counts that can fit, best-first search
//   planner_report.cpp                phase 4: the winner, the runners-up and why they lost, why nothing fits
#include "trainfit/estimate/planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "estimate/planner_search.h"
#include "trainfit/base/enum_names.h"
#include "trainfit/base/format.h"
#include "trainfit/catalog/framework.h"
#include "trainfit/catalog/names.h"

namespace trainfit {

TimeBand time_band(const ModelSpec& model) {
  if (moe_layer_count(model) > 0) return TimeBand{kMoeTimeBandLow, kMoeTimeBandHigh};
  return TimeBand{};
}

const char* topology_name(Topology t) {
  static constexpr EnumName<Topology> kTopologies[] = {
      {Topology::single_gpu, "single_gpu"}, {Topology::multi_gpu_node, "multi_gpu_node"}, {Topology::multi_node, "multi_node"}};
  return enum_name(kTopologies, t);
}

Result<DatasetTokens> dataset_tokens(const Dataset& d, int64_t seq_len) {
  if (seq_len <= 0) return Error{"seq_len", "must be a positive number of tokens"};
  if (!std::isfinite(d.epochs) || d.epochs <= 0) return Error{"dataset/epochs", "must be a positive number"};
  const double s = static_cast<double>(seq_len);
  DatasetTokens t;
  if (d.tokens > 0) {
    if (!std::isfinite(d.tokens)) return Error{"dataset/tokens", "must be a finite number"};
    t.useful = d.tokens * d.epochs;
    t.processed = t.useful;  // a token stream is packed by construction
  } else if (d.examples > 0 && d.avg_tokens_per_example > 0) {
    if (!std::isfinite(d.examples) || !std::isfinite(d.avg_tokens_per_example))
      return Error{"dataset/examples", "examples and avg_tokens_per_example must be finite"};
    t.useful = d.examples * d.avg_tokens_per_example * d.epochs;
    // Packing concatenates examples into full sequences; padding gives each example whole sequences
    // (longer examples are split into ceil(avg / seq_len) sequences).
    t.processed = d.packing ? t.useful : d.examples * std::ceil(d.avg_tokens_per_example / s) * s * d.epochs;
  } else {
    return Error{"dataset", "give tokens, or examples with avg_tokens_per_example"};
  }
  t.sequences = t.processed / s;
  return t;
}

using namespace planner_model;  // the time model: Ctx, Links, step_time, make_ctx (planner_model.h)

// The module lists (Megatron-Core --recompute-modules) that recompute auto also tries for a mixture-of-experts
// job under megatron-core when the query leaves the list at Megatron's default (the attention core, which saves
// nothing under FlashAttention): those of the published MoE recipes, layernorm + moe_act (Megatron-Bridge's Qwen3
// and GPT-OSS H100 recipes) and layernorm + moe (Megatron-MoE-ModelZoo's 16k-128k Qwen3-235B-A22B runs). A list
// the query names is the only one tried.
static std::vector<uint32_t> module_list_alternatives(const ModelSpec& m, const TrainConfig& t) {
  std::vector<uint32_t> out;
  if (t.framework != Framework::megatron_core || t.method != Method::full || t.recompute != Recompute::automatic ||
      t.recompute_modules != kRecomputeCoreAttn || m.num_experts <= 1)
    return out;
  for (uint32_t modules : {kRecomputeLayernorm | kRecomputeMoeAct, kRecomputeLayernorm | kRecomputeMoe}) {
    TrainConfig v = t;
    v.recompute_modules = modules;
    if (recompute_modules_error(m, v).empty()) out.push_back(modules);
  }
  return out;
}

// The context-parallel scheme that the search also tries for a job whose query leaves cp_scheme on auto, where its
// framework runs both (framework.h cp_schemes: generic, megatron-core, hf-trainer) and the search tries context
// parallelism at all: the one the framework does not default to. Layouts in either scheme are planned and the faster
// plan per node count kept (merge_plans); a fixed layout keeps the framework's.
// The other scheme's plan is kept only where its step is at least this much shorter: the ring's and Ulysses'
// communication terms differ by a few tenths of a percent of a long-context step, finer than the time model
// resolves, and the framework's default is the path its users run (hf-trainer's Ulysses is the one the published
// XTuner rows measured).
constexpr double kOtherCpSchemeMargin = 0.02;

static std::optional<CpScheme> cp_scheme_alternative(const TrainConfig& t) {
  const FrameworkProfile& fw = framework_profile(t.framework);
  if (t.cp_scheme != CpScheme::automatic || !t.parallel.automatic || !planner_search::searches_cp(t) ||
      !runs_cp_scheme(fw, CpScheme::ring) || !runs_cp_scheme(fw, CpScheme::ulysses) ||
      !fw.method(t.method).cp)
    return std::nullopt;
  const CpScheme other = fw.cp_scheme == CpScheme::ring ? CpScheme::ulysses : CpScheme::ring;
  // Not a ring the job's attention cannot run (framework.h ring_fsdp2_error: accelerate's runs SDPA only).
  if (!ring_fsdp2_error(t.framework, other, 2, t.attention, false, false).message.empty()) return std::nullopt;
  return other;
}

// Everything plan_job needs that depends only on the job, with each error kept for the point where plan_job
// reports it.
struct PlanJob::Prepared {
  const ModelSpec& model;
  const TrainConfig& train;
  const Dataset& data;
  JobPart part;
  Result<DatasetTokens> tokens;
  std::optional<MemoryEstimator> memory;  // empty: its constructor threw `memory_error`
  std::string memory_error;
  // The same job with another Megatron-Core module list (module_list_alternatives), searched beside this one. A
  // list changes only the selective recompute's plans, so a variant searches that mode alone (its none and full
  // plans are this job's, which win the merge's ties). Likewise in the other context-parallel scheme
  // (cp_scheme_alternative), whose variant searches the CP > 1 layouts alone.
  std::vector<std::unique_ptr<TrainConfig>> variant_trains;
  std::vector<std::unique_ptr<Prepared>> variants;
  bool selective_only = false;
  bool cp_only = false;
  // The memory checks of this job's searches, shared by every shape it is planned on (planner_search.h).
  mutable planner_search::MemoryMemo memo;
  // with_variants false: a variant's own (it is searched alone; its module lists and scheme are its job's).
  Prepared(const ModelSpec& m, const TrainConfig& t, const Dataset& d, bool with_variants = true)
      : model(m), train(t), data(d), part(job_part(m, t)), tokens(dataset_tokens(d, t.seq_len)) {
    try {
      memory.emplace(m, t);
    } catch (const std::exception& e) {
      memory_error = e.what();
    }
    if (!with_variants) return;
    for (uint32_t modules : module_list_alternatives(m, t)) {
      variant_trains.push_back(std::make_unique<TrainConfig>(t));
      variant_trains.back()->recompute_modules = modules;
      variants.push_back(std::make_unique<Prepared>(m, *variant_trains.back(), d, false));
      variants.back()->selective_only = true;
    }
    if (const std::optional<CpScheme> other = cp_scheme_alternative(t)) {
      variant_trains.push_back(std::make_unique<TrainConfig>(t));
      variant_trains.back()->cp_scheme = *other;
      variants.push_back(std::make_unique<Prepared>(m, *variant_trains.back(), d, false));
      variants.back()->cp_only = true;
    }
  }
};

PlanJob::PlanJob(const ModelSpec& model, const TrainConfig& train, const Dataset& data)
    : prep_(std::make_unique<Prepared>(model, train, data)) {}
PlanJob::~PlanJob() = default;
PlanJob::PlanJob(PlanJob&&) noexcept = default;
PlanJob& PlanJob::operator=(PlanJob&&) noexcept = default;

void set_dataset_totals(PlanResult& res, const DatasetTokens& tokens) {
  res.tokens = tokens;
  if (!res.fits) return;
  const double seqs_per_step = static_cast<double>(res.best.global_batch);
  res.steps = std::ceil(res.tokens.sequences / seqs_per_step);
  res.time_s = res.tokens.processed / res.best.tokens_per_s;
  // Band: over the fully specified validation runs, published time / predicted time lies within
  // [1 - kTimeBandLow, 1 + kTimeBandHigh].
  res.time_low_s = res.time_s * (1.0 - res.band.low);
  res.time_high_s = res.time_s * (1.0 + res.band.high);
}

std::string plan_summary(const Plan& p) {
  char buf[400];
  const MemoryLayout& l = p.layout;
  if (!(p.tokens_per_s > 0)) {  // a node count where nothing fits: no layout to describe
    std::snprintf(buf, sizeof buf, "%d node%s x %d GPU", p.nodes, p.nodes == 1 ? "" : "s", p.gpus_per_node);
    return buf;
  }
  char cp[32] = "", vp[24] = "", ep[64] = "";
  if (l.cp > 1) std::snprintf(cp, sizeof cp, ", CP %d%s", l.cp, l.cp_ulysses ? " (Ulysses)" : "");
  if (l.vp > 1) std::snprintf(vp, sizeof vp, " (VP %d)", l.vp);
  const int etp = l.etp > 0 ? l.etp : l.tp;
  if (l.ep > 1 || etp != l.tp)
    std::snprintf(ep, sizeof ep, ", EP %d (ETP %d%s%s)", l.ep, etp, p.deepep ? ", DeepEP" : "",
                  p.a2a_overlap ? ", overlapped" : "");
  // Megatron-Core's module list where it is not the default: "selective (layernorm, moe) recompute".
  std::string rc = l.recompute == Recompute::none ? "no" : (l.recompute == Recompute::selective ? "selective" : "full");
  if (named_recompute_modules(l.recompute, p.recompute_modules))
    rc += p.recompute_modules ? " (" + recompute_modules_text(p.recompute_modules, ", ") + ")" : " (no modules)";
  std::snprintf(buf, sizeof buf, "%d node%s x %d GPU: TP %d, PP %d%s, DP %d%s%s, ZeRO-%d, %s recompute, micro-batch %lld x %lld%s%s",
                p.nodes, p.nodes == 1 ? "" : "s", p.gpus_per_node, l.tp, l.pp, vp, l.dp, cp, ep, l.zero, rc.c_str(),
                static_cast<long long>(l.micro_batch), static_cast<long long>(l.num_microbatches),
                l.offload_optimizer ? ", optimizer offload" : "", l.offload_params ? ", parameter offload" : "");
  return buf;
}

int64_t default_global_batch(int64_t dp, int64_t micro_batch) {
  dp = std::max<int64_t>(1, dp);
  micro_batch = std::max<int64_t>(1, micro_batch);
  // Largest power of two p with p x dp <= target (at least 1), then 2p when it is nearer in ratio:
  // target / (p dp) > 2 p dp / target, i.e. 2 (p dp)^2 < target^2.
  int64_t p = 1;
  while (p * 2 * dp <= kDefaultGlobalBatchTarget) p *= 2;
  if (p * dp <= kDefaultGlobalBatchTarget && 2 * (p * dp) * (p * dp) < kDefaultGlobalBatchTarget * kDefaultGlobalBatchTarget)
    p *= 2;
  const int64_t per_replica = (p + micro_batch - 1) / micro_batch * micro_batch;
  return per_replica * dp;
}

std::string default_global_batch_note(int64_t dp, int64_t global_batch) {
  return "global_batch unset: " + std::to_string(global_batch) + " sequences per step (DP " + std::to_string(dp) +
         " x " + std::to_string(global_batch / std::max<int64_t>(1, dp)) +
         "), the power of two per replica nearest " + std::to_string(kDefaultGlobalBatchTarget) +
         " / DP; set global_batch to fix it";
}

Result<LayoutTiming> time_layout(const ModelSpec& model, const TrainConfig& train, const GpuSpec& gpu,
                                 const Offer& offer, int nodes, const MemoryLayout& layout, int64_t global_batch) {
  try {
    Result<Ctx> cr = make_ctx(job_part(model, train), model, train, gpu, offer);
    if (!cr) return cr.error();
    const Ctx& c = *cr;
    if (nodes < 1) return Error{"nodes", "must be at least 1"};
    if (layout.tp < 1 || layout.pp < 1 || layout.dp < 1) return Error{"parallel", "tp, pp and dp must be >= 1"};
    if (layout.recompute == Recompute::automatic) return Error{"recompute", "must be resolved"};
    if (layout.micro_batch < 1 || layout.num_microbatches < 1)
      return Error{"micro_batch", "micro_batch and num_microbatches must be >= 1"};
    if (layout.cp < 1) return Error{"parallel/cp", "must be >= 1"};
    if (static_cast<int64_t>(layout.tp) * layout.pp * layout.dp * layout.cp > static_cast<int64_t>(nodes) * offer.gpu_count)
      return Error{"parallel/gpus", "tp x pp x dp x cp exceeds the GPUs of the nodes"};
    LayoutTiming out;
    const Links links = layout_links(c, nodes, layout.tp, layout.pp, layout.dp, layout.cp);
    if (links.excluded) out.excluded = links.excluded;
    double eff = 0;
    const StepLayout sl{.tp = layout.tp, .pp = layout.pp, .dp = layout.dp, .zero = layout.zero,
                        .rc = layout.recompute, .off_opt = layout.offload_optimizer, .off_par = layout.offload_params,
                        .mb = layout.micro_batch, .m = layout.num_microbatches, .cp = layout.cp, .vp = layout.vp,
                        .sp = layout.sequence_parallel, .ep = layout.ep, .etp = layout.etp};
    step_time(c, links, sl, &out.step, &eff, nullptr, nullptr, nullptr);
    const int64_t gb = global_batch > 0 ? global_batch : layout.micro_batch * layout.num_microbatches * layout.dp;
    out.efficiency = eff;
    out.tokens_per_s = static_cast<double>(gb) * c.seq / out.step.total_s;
    return out;
  } catch (const std::exception& e) {
    return Error{"plan", e.what()};
  }
}

namespace {

using namespace planner_search;  // the search: Searcher and its phases (planner_search.h)

// The recompute modes the search tries: the query's, or under auto all three (a module-list variant: selective).
int recompute_modes(const PlanJob::Prepared& job, Recompute* rc_list) {
  int n = 0;
  if (job.train.recompute != Recompute::automatic) rc_list[n++] = job.train.recompute;
  else if (job.selective_only) rc_list[n++] = Recompute::selective;
  else
    for (Recompute r : kRcModes) rc_list[n++] = r;
  return n;
}

// The search's vectors, kept from one plan to the next on this thread: a ranking plans hundreds of shapes, and an
// MoE query (expert-parallel, dispatcher and recompute variants) lays out thousands of 272-byte layouts per shape,
// which regrown from empty cost a fifth of its ranking. A plan borrows them cleared, with their capacity, and
// gives them back; a plan started while they are out (none today) gets fresh ones.
struct SearchBuffers {
  std::vector<LayoutKey> layouts;
  std::vector<int64_t> mbs;
  std::vector<MbTerms> mb_terms;
  std::vector<Group> groups;
  std::vector<int> unbounded;
  std::vector<Item> items;
  bool lent = false;
};
SearchBuffers& search_buffers() {
  static thread_local SearchBuffers b;
  return b;
}
class BorrowedBuffers {
 public:
  explicit BorrowedBuffers(Searcher& s) : s_(s), own_(!search_buffers().lent) {
    SearchBuffers& b = search_buffers();
    if (own_) b.lent = true;
    each(b, [this](auto& mine, auto& kept, size_t reserve) {
      if (own_) {
        mine.swap(kept);
        mine.clear();
      }
      mine.reserve(reserve);
    });
  }
  ~BorrowedBuffers() {
    if (!own_) return;
    SearchBuffers& b = search_buffers();
    each(b, [](auto& mine, auto& kept, size_t) { mine.swap(kept); });
    b.lent = false;
  }
  BorrowedBuffers(const BorrowedBuffers&) = delete;
  BorrowedBuffers& operator=(const BorrowedBuffers&) = delete;

 private:
  // Every search vector with its kept twin and the capacity a search starts from.
  template <class F>
  void each(SearchBuffers& b, F f) {
    f(s_.layouts, b.layouts, 64);
    f(s_.mbs, b.mbs, 256);
    f(s_.mb_terms, b.mb_terms, 256);
    f(s_.groups, b.groups, 512);
    f(s_.unbounded, b.unbounded, 512);
    f(s_.items, b.items, 2048);
  }
  Searcher& s_;
  bool own_;
};

Result<PlanResult> plan_impl(const PlanJob::Prepared& job, const GpuSpec& gpu, const Offer& offer, int max_nodes,
                             const PlanOptions& opt) {
  const ModelSpec& model = job.model;
  const TrainConfig& train = job.train;
  Result<Ctx> cr = make_ctx(job.part, model, train, gpu, offer);
  if (!cr) return cr.error();
  const Ctx& c = *cr;
  const Result<DatasetTokens>& dt = job.tokens;
  if (!dt) return dt.error();
  if (max_nodes < 1) return Error{"max_nodes", "must be at least 1"};

  PlanResult res;
  res.band = time_band(model);
  res.tokens = *dt;
  res.precision = c.precision;
  res.framework = train.framework;
  res.peak_flops_per_gpu = c.peak;
  const int g = c.g;
  const int offer_cap = std::max(1, offer.max_nodes);
  const bool networked = offer.inter_net != NetKind::none && offer.inter_net_Gbps > 0;
  int cap = std::max(1, std::min(max_nodes, offer_cap));
  if (cap > 1 && !networked) {
    cap = 1;
    res.warnings.push_back({"offer/inter_net", "no_inter_node_network",
                            "the instance lists no inter-node network; only single-node plans are considered"});
  }

  if (!job.memory) return Error{"plan", job.memory_error};
  Searcher s{c, model, train, *job.memory, job.memo, usable_bytes(gpu_capacity_bytes(gpu), train.headroom),
             offer.host_ram_bytes > 0 ? offer.host_ram_bytes * 0.9 : 0.0,
             opt.require_fits ? FitLevel::safe : FitLevel::expected, {}, {}, {}, {}};
  s.cp_only = job.cp_only;
  const BorrowedBuffers borrowed(s);

  // Node counts: 1, 2, 4, ... and the cap itself.
  NodeCounts nc;
  if (!train.parallel.automatic) {
    const int gpus = std::max(1, train.parallel.gpus);
    nc.n[nc.count++] = (gpus + g - 1) / g;
  } else if (opt.nodes > 0) {
    if (opt.nodes > cap) {
      res.fits = false;
      char buf[160];
      std::snprintf(buf, sizeof buf, "no plan on %d nodes: this offer clusters at most %d", opt.nodes, cap);
      res.why_not = buf;
      res.nodes_unavailable = true;
      return res;
    }
    nc.n[nc.count++] = opt.nodes;
  } else {
    for (int n = 1; n <= cap && nc.count < 38; n = opt.power_of_two_nodes ? n * 2 : n + 1) nc.n[nc.count++] = n;
    if (nc.n[nc.count - 1] != cap) nc.n[nc.count++] = cap;
  }

  const bool fixed = !train.parallel.automatic;
  if (fixed) {
    const ParallelConfig& P = train.parallel;
    const int64_t gpus = P.gpus > 0 ? P.gpus : static_cast<int64_t>(P.tp) * P.pp * P.dp * P.cp;
    if (P.tp < 1 || P.pp < 1 || P.dp < 1 || P.cp < 1) return Error{"parallel", "tp, pp, dp and cp must be at least 1"};
    if (static_cast<int64_t>(P.tp) * P.pp * P.dp * P.cp != gpus)
      return Error{"parallel/dp", "tp x pp x dp x cp must equal gpus"};
    if (P.zero < 0 || P.zero > 3) return Error{"parallel/zero", "must be 0, 1, 2 or 3"};
    if (nc.n[0] > cap) {
      res.fits = false;
      char buf[160];
      std::snprintf(buf, sizeof buf, "the layout needs %d nodes of %d GPUs; this offer allows %d", nc.n[0], g, cap);
      res.why_not = buf;
      return res;
    }
  }

  Recompute rc_list[3];
  const int n_rc = recompute_modes(job, rc_list);

  for (int ni = 0; ni < nc.count; ++ni) {
    Result<bool> added = add_layouts(s, ni, nc.n[ni], rc_list, n_rc, fixed);
    if (!added) return added.error();
  }

  std::vector<char> alive(nc.count, 1);
  int alive_count = nc.count;
  if (!fixed) {
    for (int ni = 0; ni < nc.count; ++ni) {
      if (node_count_can_fit(s, nc.n[ni])) continue;
      alive[ni] = 0;
      --alive_count;
    }
  }

  s.push_bounds(alive);
  SearchOutcome o;
  best_first(s, fixed, alive, alive_count, std::max(0, opt.alternatives), o);
  res.layouts_evaluated = s.evaluated;
  for (const Group& gr : s.groups)
    if (gr.off_opt || gr.off_par) res.uses_host = true;  // host RAM (fits) and vCPUs (CPU Adam time) were read

  if (o.found) {
    report_plans(s, nc, o, job.data, opt, res);
  } else {
    report_no_fit(s, nc, res);
    // The query's node cap (filters.max_nodes) stopped the search below what the offer can cluster: more nodes
    // shard the model further (ZeRO, TP, PP, EP), so say how to ask for them.
    if (!fixed && opt.nodes == 0 && networked && cap == max_nodes && cap < offer_cap && s.min_fail_need < 1e29)
      res.why_not += "; planned on up to " + std::to_string(cap) + (cap == 1 ? " node" : " nodes") +
                     " (the query's max_nodes): this offer clusters up to " + std::to_string(offer_cap) +
                     ", and more nodes shard the model further";
  }
  res.memory_checks = s.memory_checks;
  return res;
}

// plan_impl on the job and on each of its module-list variants: per node count the faster plan, and the faster
// winner (merge_plans, planner_report.cpp).
Result<PlanResult> plan_variants(const PlanJob::Prepared& job, const GpuSpec& gpu, const Offer& offer, int max_nodes,
                                 const PlanOptions& opt) {
  Result<PlanResult> res = plan_impl(job, gpu, offer, max_nodes, opt);
  if (!res) return res;
  for (const std::unique_ptr<PlanJob::Prepared>& v : job.variants) {
    Result<PlanResult> other = plan_impl(*v, gpu, offer, max_nodes, opt);
    if (other) merge_plans(res.value(), std::move(other).value(), v->cp_only ? kOtherCpSchemeMargin : 0.0);
  }
  return res;
}

}  // namespace

Result<PlanResult> plan_job(const ModelSpec& model, const TrainConfig& train, const Dataset& data, const GpuSpec& gpu,
                            const Offer& offer, int max_nodes, const PlanOptions& options) {
  try {
    const PlanJob::Prepared job(model, train, data);
    return plan_variants(job, gpu, offer, max_nodes, options);
  } catch (const std::exception& e) {
    return Error{"plan", e.what()};
  }
}

Result<PlanResult> plan_job(const PlanJob& job, const GpuSpec& gpu, const Offer& offer, int max_nodes,
                            const PlanOptions& options) {
  try {
    return plan_variants(*job.prep_, gpu, offer, max_nodes, options);
  } catch (const std::exception& e) {
    return Error{"plan", e.what()};
  }
}

}  // namespace trainfit
