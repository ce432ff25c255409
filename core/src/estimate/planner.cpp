// trainfit core — topology picker: enumerate parallel layouts for one instance type, keep those that fit in
// memory, pick the fastest. The time of a layout is the perf.h model: compute at the calibrated efficiency
// with an HBM roofline floor, alpha-beta collectives with documented overlap, the 1F1B bubble, the optimizer
// update and CPU-offload traffic.
//
// Where things are, top to bottom:
//   dataset_tokens                      dataset -> tokens (packing or padding)
//   (planner_model.h/.cpp)              Ctx, Links, step_time, make_ctx: the per-instance context and the time
//                                       of one layout (perf.h model)
//   LayoutKey, Group, Item, Searcher    search bookkeeping: best-first over layout groups, memory checks lazily
//   plan_summary, loss_reason           the text users see for a plan and for why a runner-up lost
//   time_layout, plan_job               the public entry points
#include "trainfit/estimate/planner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "estimate/planner_model.h"
#include "trainfit/base/format.h"
#include "trainfit/catalog/framework.h"

namespace trainfit {

TimeBand time_band(const ModelSpec& model) {
  if (moe_layer_count(model) > 0) return TimeBand{kMoeTimeBandLow, kMoeTimeBandHigh};
  return TimeBand{};
}

const char* topology_name(Topology t) {
  switch (t) {
    case Topology::single_gpu: return "single_gpu";
    case Topology::multi_gpu_node: return "multi_gpu_node";
    case Topology::multi_node: return "multi_node";
  }
  return "?";
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
  Prepared(const ModelSpec& m, const TrainConfig& t, const Dataset& d)
      : model(m), train(t), data(d), part(job_part(m, t)), tokens(dataset_tokens(d, t.seq_len)) {
    try {
      memory.emplace(m, t);
    } catch (const std::exception& e) {
      memory_error = e.what();
    }
  }
};

PlanJob::PlanJob(const ModelSpec& model, const TrainConfig& train, const Dataset& data)
    : prep_(std::make_unique<Prepared>(model, train, data)) {}
PlanJob::~PlanJob() = default;
PlanJob::PlanJob(PlanJob&&) noexcept = default;
PlanJob& PlanJob::operator=(PlanJob&&) noexcept = default;

namespace {

// ------------------------------------------------------------------------------------------------
// Search bookkeeping.
struct LayoutKey {
  int nodes, tp, pp, dp;
  int64_t global_batch;
  int mb_begin, mb_count;  // slice of the micro-batch candidate list
  Links links;
  int lean_group = -1;     // the layout's leanest non-offload group (highest ZeRO, last recompute mode)
  int group_begin = 0, group_count = 0;  // the layout's non-offload groups
  DpTerms dp_terms;        // its data-parallel collectives, filled by step_time
  int ni = 0;              // index of its node count
  int cp = 1;              // context parallel
  int vp = 1;              // virtual pipeline stages per rank (interleaved 1F1B)
  int ep = 1, etp = 0;     // expert parallel, expert tensor parallel (0 = tp)
};

struct Group {  // (layout, zero, recompute, offload): memory is monotone in the micro-batch within a group
  int layout;
  int zero;
  Recompute rc;
  bool off_opt, off_par;
  int fit_upto = -2;  // -2 unknown, -1 nothing fits, else index (within the layout's mb slice) of the largest fit
  int zi = 0, ri = 0;  // position in the layout's ZeRO x recompute block (leaner = higher); -1 for offload groups
  int known_fit = -1;  // largest micro-batch index known to fit (from a leaner group's failure / a fatter fit)
  int fail_from = 1 << 30;  // smallest micro-batch index known not to fit
  int safe_upto = -2;  // like fit_upto for the band's top (verdict `fits`); <= fit_upto
};

struct Item {
  double time_s;
  int gpus;
  int group;
  int mb_index;
};

// Heap comparator: smallest time on top, then fewer GPUs. A function object rather than a function pointer,
// and the heap routines run on raw pointers, so both inline (the wasm build's -Os otherwise calls the
// comparator indirectly and the iterator arithmetic out of line: ~15% of a ranking in the baseline tier).
// The comparisons and moves are the same, so the items come off the heap in the same order, ties included.
struct ItemAfter {
  [[gnu::always_inline]] bool operator()(const Item& a, const Item& b) const {
    if (a.time_s != b.time_s) return a.time_s > b.time_s;
    if (a.gpus != b.gpus) return a.gpus > b.gpus;
    // A total order: libstdc++ (native) and libc++ (wasm) pop equal elements of a heap in different orders, so
    // ties (equal time, e.g. recompute modes that cost the same with FlashAttention) are broken by the
    // candidate's position, and the CLI and the page pick the same runner-up.
    if (a.group != b.group) return a.group > b.group;
    return a.mb_index > b.mb_index;
  }
};

// Text that was written with snprintf into a buffer of `size` bytes keeps what that buffer kept. The numbers
// go through fixed() (format.h: printf's digits without printf, which dominated plans that do not fit).
std::string& clip(std::string& s, size_t size) {
  if (s.size() > size - 1) s.resize(size - 1);
  return s;
}

std::string gib(double bytes) {  // "%.1f GiB"
  std::string s = fixed(bytes / kGiB, 1);
  s += " GiB";
  return clip(s, 32);
}

}  // namespace

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
  char buf[320];
  const MemoryLayout& l = p.layout;
  if (!(p.tokens_per_s > 0)) {  // a node count where nothing fits: no layout to describe
    std::snprintf(buf, sizeof buf, "%d node%s x %d GPU", p.nodes, p.nodes == 1 ? "" : "s", p.gpus_per_node);
    return buf;
  }
  char cp[32] = "", vp[24] = "", ep[48] = "";
  if (l.cp > 1) std::snprintf(cp, sizeof cp, ", CP %d%s", l.cp, l.cp_ulysses ? " (Ulysses)" : "");
  if (l.vp > 1) std::snprintf(vp, sizeof vp, " (VP %d)", l.vp);
  const int etp = l.etp > 0 ? l.etp : l.tp;
  if (l.ep > 1 || etp != l.tp) std::snprintf(ep, sizeof ep, ", EP %d (ETP %d)", l.ep, etp);
  std::snprintf(buf, sizeof buf, "%d node%s x %d GPU: TP %d, PP %d%s, DP %d%s%s, ZeRO-%d, %s recompute, micro-batch %lld x %lld%s%s",
                p.nodes, p.nodes == 1 ? "" : "s", p.gpus_per_node, l.tp, l.pp, vp, l.dp, cp, ep, l.zero,
                l.recompute == Recompute::none ? "no" : (l.recompute == Recompute::selective ? "selective" : "full"),
                static_cast<long long>(l.micro_batch), static_cast<long long>(l.num_microbatches),
                l.offload_optimizer ? ", optimizer offload" : "", l.offload_params ? ", parameter offload" : "");
  return buf;
}

namespace {

Topology topology_of(int nodes, int gpus) {
  if (nodes > 1) return Topology::multi_node;
  return gpus > 1 ? Topology::multi_gpu_node : Topology::single_gpu;
}

struct Searcher {
  const Ctx& c;
  const ModelSpec& model;
  const TrainConfig& train;
  const MemoryEstimator& memory;  // estimate_memory with the job's layout-independent work done once
  double limit_bytes;  // usable memory per GPU
  double host_limit_bytes;
  FitLevel level;      // expected (fits or tight) or safe (fits only: filters.must_fit)
  std::string skipped;   // the first layout the query's framework cannot run, in words (framework.h)
  int skipped_count = 0;
  std::vector<LayoutKey> layouts;
  std::vector<int64_t> mbs;
  std::vector<MbTerms> mb_terms;  // parallel to mbs: step-time terms of a layout at that micro-batch
  std::vector<Group> groups;
  std::vector<Item> items;
  int memory_checks = 0;
  int evaluated = 0;
  double min_fail_need = 1e30;  // smallest judged need among layouts that did not fit
  double min_fail_host = 1e30;  // smallest host RAM need among offload layouts that fit the GPU but not the host
  MemoryBreakdown scratch;      // the memory checks' breakdown, reused

  MemoryLayout memory_layout(const LayoutKey& L, const Group& gr, int64_t mb) const {
    MemoryLayout m;
    m.tp = L.tp;
    m.pp = L.pp;
    m.dp = L.dp;
    m.cp = L.cp;
    m.cp_ulysses = L.cp > 1 && resolved_cp_scheme(train) == CpScheme::ulysses;
    m.vp = L.vp;
    m.ep = L.ep;
    m.etp = L.etp;
    m.zero = gr.zero;
    m.sequence_parallel = L.tp > 1;
    m.offload_optimizer = gr.off_opt;
    m.offload_params = gr.off_par;
    m.recompute = gr.rc;
    m.micro_batch = mb;
    m.num_microbatches = L.global_batch / (static_cast<int64_t>(L.dp) * mb);
    m.gpus_per_node = c.g;
    return m;
  }

  // Memory check; returns the breakdown's judged figure via `need`.
  bool fits(const MemoryLayout& ml, double& need, MemoryBreakdown* keep = nullptr) {
    ++memory_checks;
    MemoryBreakdown& m = keep ? *keep : scratch;
    if (!memory.estimate(ml, m)) {
      if (keep) *keep = MemoryBreakdown{};
      need = 1e30;
      return false;
    }
    need = judged_bytes(m, level);
    bool ok = need <= limit_bytes;
    if (!ok) min_fail_need = std::min(min_fail_need, need);
    if (ok && host_limit_bytes > 0 && (ml.offload_optimizer || ml.offload_params)) {
      ok = m.host_ram_per_node_bytes <= host_limit_bytes;
      if (!ok) min_fail_host = std::min(min_fail_host, m.host_ram_per_node_bytes);
    }
    return ok;
  }

  // Largest fitting micro-batch index of a group (binary search; memory grows with the micro-batch).
  void mark_fails_from(Group& gr, int k) {
    gr.fail_from = std::min(gr.fail_from, k);
    if (k == 0) gr.fit_upto = -1;
    const LayoutKey& L = layouts[gr.layout];
    if (gr.zi < 0) return;
    for (int i = L.group_begin; i < L.group_begin + L.group_count; ++i) {
      Group& o = groups[i];
      if (o.zi <= gr.zi && o.ri <= gr.ri) {
        o.fail_from = std::min(o.fail_from, k);
        if (k == 0) o.fit_upto = -1;
      }
    }
  }

  // Memory is monotone: more ZeRO sharding or more recomputation never needs more, so a group that fits at a
  // micro-batch tells every leaner group of the layout, and one that fails tells every fatter group.
  int fit_upto(Group& gr) {
    if (gr.fit_upto != -2) return gr.fit_upto;
    const LayoutKey& L = layouts[gr.layout];
    int lo = gr.known_fit + 1, hi = std::min(L.mb_count, gr.fail_from) - 1, best = gr.known_fit;
    while (lo <= hi) {
      const int mid = (lo + hi) / 2;
      double need = 0;
      if (fits(memory_layout(L, gr, mbs[L.mb_begin + mid]), need)) {
        best = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    gr.fit_upto = best;
    if (gr.zi >= 0 && L.group_count > 0) {
      for (int k = L.group_begin; k < L.group_begin + L.group_count; ++k) {
        Group& o = groups[k];
        if (o.zi >= gr.zi && o.ri >= gr.ri) o.known_fit = std::max(o.known_fit, best);
        if (o.zi <= gr.zi && o.ri <= gr.ri) o.fail_from = std::min(o.fail_from, best + 1);
      }
    }
    return best;
  }

  // Largest micro-batch index of a group whose verdict is `fits` (the band's top under the limit), at most
  // fit_upto; -1 when even the smallest is only tight. Binary search, as fit_upto.
  int safe_upto(Group& gr) {
    if (gr.safe_upto != -2) return gr.safe_upto;
    const int fu = fit_upto(gr);
    if (level == FitLevel::safe || fu < 0) return gr.safe_upto = fu;
    const LayoutKey& L = layouts[gr.layout];
    int lo = 0, hi = fu, best = -1;
    while (lo <= hi) {
      const int mid = (lo + hi) / 2;
      ++memory_checks;
      const bool ok = memory.estimate(memory_layout(L, gr, mbs[L.mb_begin + mid]), scratch) &&
                      scratch.total_high <= limit_bytes;
      if (ok) {
        best = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return gr.safe_upto = best;
  }

  // Step time of group `gr` at its k-th micro-batch size (one time-model evaluation).
  // mb_terms is grown with mbs once a layout's slice is final (plan_impl), so an index is only ever filled
  // for the layout whose slice holds it.
  MbTerms* terms_at(int index) { return &mb_terms[index]; }

  // Total step seconds of group `gr` at its k-th micro-batch size (one time-model evaluation); `bubble` gets
  // the pipeline-bubble part.
  double group_step(const Group& gr, int k, double* bubble = nullptr) {
    LayoutKey& L = layouts[gr.layout];
    const int64_t mb = mbs[L.mb_begin + k];
    ++evaluated;
    return step_time(c, L.links, L.tp, L.pp, L.dp, gr.zero, gr.rc, gr.off_opt, gr.off_par, mb,
                     L.global_batch / (L.dp * mb), nullptr, nullptr, bubble, terms_at(L.mb_begin + k), &L.dp_terms,
                     L.cp, L.vp, L.tp > 1, L.ep, L.etp);  // sequence parallel with TP, as memory_layout sets it
  }

  double exact_time(const Group& gr, int k) { return group_step(gr, k); }

  // Lazy candidate: one item per group whose time is a lower bound over its micro-batches: the largest
  // micro-batch is the most efficient and has the fewest per-micro-batch collectives; the pipeline bubble (which
  // shrinks with smaller micro-batches) is left out. Popping it resolves the group's memory fit and pushes exact
  // items (see expand).
  // The bound is computed once the node counts where nothing can fit are known (push_bounds): their items would
  // be skipped by the search anyway, and a shape where nothing fits (a third of the bundled snapshot's shapes
  // for an 8B LoRA) then costs no time-model evaluation at all. The search pops the same items in the same
  // order: ItemAfter is a total order, so the order items were pushed in does not matter.
  std::vector<int> unbounded;  // groups whose lower-bound item is not made yet
  void push_group(int gi) { unbounded.push_back(gi); }
  void push_bounds(const std::vector<char>& alive) {
    for (int gi : unbounded) {
      const Group& gr = groups[gi];
      const LayoutKey& L = layouts[gr.layout];
      if (!alive[L.ni]) continue;
      double bubble = 0;
      const double total = group_step(gr, L.mb_count - 1, &bubble);
      items.push_back({total - bubble, L.nodes * c.g, gi, -1});
    }
    unbounded.clear();
  }

  // Exact items of a group whose fit is known: without pipeline the largest fitting micro-batch is the fastest;
  // with pipeline every fitting micro-batch competes (bubble vs efficiency). A tight micro-batch (expected peak
  // under the limit, the band's top over it) competes at its time x (1 + kTightPreference), so a layout that
  // fits wins unless the tight one is clearly faster; without pipeline the largest fitting micro-batch is
  // pushed too, when it is smaller than the largest tight one.
  void push_item(const Item& it, size_t& heap_size) {
    if (heap_size < items.size()) {
      items[heap_size] = it;
    } else {
      items.push_back(it);
    }
    ++heap_size;
    std::push_heap(items.data(), items.data() + heap_size, ItemAfter{});
  }
  void expand(int gi, size_t& heap_size) {
    Group& gr = groups[gi];
    const LayoutKey& L = layouts[gr.layout];
    const int fu = gr.fit_upto;
    const int su = safe_upto(gr);
    auto key = [&](int k) { return exact_time(gr, k) * (k > su ? 1.0 + kTightPreference : 1.0); };
    const int first = L.pp > 1 ? 0 : fu;
    for (int k = first; k <= fu; ++k) push_item(Item{key(k), L.nodes * c.g, gi, k}, heap_size);
    if (L.pp == 1 && su >= 0 && su < fu) push_item(Item{key(su), L.nodes * c.g, gi, su}, heap_size);
  }

  // Memory of a reported plan (one call each: `keep` gets the breakdown of the winner).
  void fill_memory(Plan& p, MemoryBreakdown* keep) {
    double need = 0;
    MemoryBreakdown mem;
    fits(p.layout, need, &mem);
    p.memory_bytes = mem.total;
    p.memory_high_bytes = mem.total_high;
    p.verdict = fit_verdict(mem, limit_bytes);
    if (keep) *keep = std::move(mem);
  }

  Plan make_plan(const Item& it) {
    const Group& gr = groups[it.group];
    LayoutKey& L = layouts[gr.layout];
    const int64_t mb = mbs[L.mb_begin + it.mb_index];
    Plan p;
    p.nodes = L.nodes;
    p.gpus_per_node = c.g;
    p.gpus = L.nodes * c.g;
    p.layout = memory_layout(L, gr, mb);
    p.global_batch = L.global_batch;
    p.global_batch_default = train.global_batch <= 0;
    double eff = 0;
    step_time(c, L.links, L.tp, L.pp, L.dp, gr.zero, gr.rc, gr.off_opt, gr.off_par, mb, p.layout.num_microbatches,
              &p.step, &eff, nullptr, terms_at(L.mb_begin + it.mb_index), &L.dp_terms, L.cp, L.vp, L.tp > 1, L.ep,
              L.etp);
    p.efficiency = eff;
    p.tokens_per_s = static_cast<double>(L.global_batch) * c.seq / p.step.total_s;
    const FlopsPerToken& f = c.flops[rc_index(gr.rc)];
    p.mfu = utilisation(f.model, p.tokens_per_s, p.gpus, c.peak);
    p.hfu = utilisation(f.hardware, p.tokens_per_s, p.gpus, c.peak);
    p.memory_limit_bytes = limit_bytes;
    p.topology = topology_of(p.nodes, p.gpus);
    return p;
  }
};

// Candidate micro-batches for `per_replica` sequences per data-parallel rank: powers of two that divide it,
// plus the whole per-replica batch (<= 256), ascending.
void micro_batches(int64_t per_replica, std::vector<int64_t>& out) {
  for (int64_t b = 1; b <= per_replica && b <= 256; b *= 2)
    if (per_replica % b == 0) out.push_back(b);
  if (per_replica <= 256 && (out.empty() || out.back() != per_replica)) out.push_back(per_replica);
}

std::string percent_slower(double t, double best) {  // "%.0f%% slower"
  std::string s = fixed((t / best - 1.0) * 100.0, 0);
  s += "% slower";
  return clip(s, 64);
}

// Why `p` lost against `best`, in words: how much slower, and the part of its step that grew the most.
std::string loss_reason(const Plan& p, const Plan& best) {
  const double ratio = best.tokens_per_s / std::max(1e-30, p.tokens_per_s);
  if (ratio <= 1.0 + 1e-9) return "as fast, but uses more GPUs";
  std::string why;
  if (ratio >= 2.0) {
    why = fixed(ratio, 1);  // "%.1fx longer"
    why += "x longer";
    clip(why, 160);
  } else {
    why = percent_slower(ratio, 1.0);
  }
  if (p.gpus != best.gpus) {
    // Per-GPU throughput decides cost: a smaller cluster can be slower yet cheaper.
    const double per_gpu = (p.tokens_per_s / p.gpus) / (best.tokens_per_s / best.gpus) - 1.0;
    // " on %d GPUs instead of %d (per-GPU throughput %+.0f%%)"
    std::string part = " on " + std::to_string(p.gpus) + " GPUs instead of " + std::to_string(best.gpus) +
                       " (per-GPU throughput ";
    append_fixed(part, 100.0 * per_gpu, 0, true);
    part += "%)";
    why += clip(part, 160);
  }
  struct Part {
    const char* name;
    double a, b;
  } parts[] = {
      {"exposed communication", p.step.exposed_comm_s, best.step.exposed_comm_s},
      {"pipeline bubble", p.step.bubble_s, best.step.bubble_s},
      {"recomputation", p.step.recompute_s, best.step.recompute_s},
      {"CPU offload", p.step.offload_s + (p.layout.offload_optimizer ? p.step.optimizer_s : 0.0),
       best.step.offload_s + (best.layout.offload_optimizer ? best.step.optimizer_s : 0.0)},
  };
  double worst = 0, share = 0;
  const char* name = nullptr;
  for (const Part& part : parts) {
    const double sa = part.a / std::max(1e-30, p.step.total_s);  // share of the step, loser vs winner
    const double sb = part.b / std::max(1e-30, best.step.total_s);
    if (sa - sb > worst) {
      worst = sa - sb;
      share = sa;
      name = part.name;
    }
  }
  if (name && worst > 0.02) {
    std::string part = ": ";  // ": %s takes %.0f%% of its step"
    part += name;
    part += " takes ";
    append_fixed(part, 100.0 * share, 0);
    part += "% of its step";
    why += clip(part, 128);
  } else if (p.efficiency < best.efficiency * 0.97) {
    why += ": smaller GEMMs per GPU (lower compute efficiency)";
  }
  return why;
}

}  // namespace

// ------------------------------------------------------------------------------------------------
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
    step_time(c, links, layout.tp, layout.pp, layout.dp, layout.zero, layout.recompute, layout.offload_optimizer,
              layout.offload_params, layout.micro_batch, layout.num_microbatches, &out.step, &eff, nullptr, nullptr,
              nullptr, layout.cp, layout.vp, layout.sequence_parallel, layout.ep, layout.etp);
    const int64_t gb = global_batch > 0 ? global_batch : layout.micro_batch * layout.num_microbatches * layout.dp;
    out.efficiency = eff;
    out.tokens_per_s = static_cast<double>(gb) * c.seq / out.step.total_s;
    return out;
  } catch (const std::exception& e) {
    return Error{"plan", e.what()};
  }
}

namespace {

// plan_impl's phases are functions of their own: in the browser each is compiled (and re-compiled by V8's
// optimising tier when hot) on its own, instead of one 10 KB function whose loops made V8 optimise all of it
// during the page load (~75 ms of compile on a 2-core machine, docs/performance.md).

// The node counts a plan considers: 1, 2, 4, ... and the cap itself, or the one a fixed layout needs.
struct NodeCounts {
  int n[40];
  int count = 0;
};

// The micro-batch candidates of a layout with `per_replica` sequences per DP replica, appended to s.mbs from
// `begin`: the query's for a fixed layout (an error when it does not divide), else every divisor micro_batches
// gives, less those a pipeline cannot schedule.
Result<bool> add_micro_batches(Searcher& s, int64_t per_replica, int pp, int vp, size_t begin, bool fixed) {
  const TrainConfig& train = s.train;
  if (fixed) {
    s.mbs.push_back(train.micro_batch);
    if (per_replica % train.micro_batch) return Error{"micro_batch", "global_batch / dp must be a multiple of micro_batch"};
    return true;
  }
  micro_batches(per_replica, s.mbs);
  if (pp > 1) {
    // 1F1B needs at least p micro-batches to fill the pipeline (Narayanan et al. 2021 §2.2.1).
    while (s.mbs.size() > begin && per_replica / s.mbs.back() < pp) s.mbs.pop_back();
    // Interleaving needs the micro-batch count to be a multiple of p (Megatron-LM's interleaved schedule).
    if (vp > 1) {
      size_t w = begin;
      for (size_t i = w; i < s.mbs.size(); ++i)
        if ((per_replica / s.mbs[i]) % pp == 0) s.mbs[w++] = s.mbs[i];
      s.mbs.resize(w);
    }
  }
  return true;
}

// The ZeRO stages a layout tries, into `zeros` (returns how many): the query's for a fixed layout; else ZeRO-1
// dominates stage 0 (same traffic, sharded optimizer: less memory, faster update) and DeepSpeed refuses stages 2-3
// with pipeline parallelism. Then only the stages the framework runs are kept (when none of the candidates is one,
// its own: DDP, FSDP, ...), and a dropped one is named in the why-not.
int zero_candidates(Searcher& s, int dp, int pp, int cp, bool fixed, int zeros[4]) {
  const TrainConfig& train = s.train;
  int n_z = 0;
  if (fixed) {
    zeros[n_z++] = train.parallel.zero;
  } else if (dp * cp == 1) {
    zeros[n_z++] = 0;
  } else if (pp > 1 || cp > 1) {  // Megatron's distributed optimizer (ZeRO-1) with PP or CP
    zeros[n_z++] = 1;
  } else {
    zeros[n_z++] = 1;
    zeros[n_z++] = 2;
    // QLoRA too: FSDP / ZeRO-3 shard the packed NF4 weights (bnb_4bit_quant_storage), memory.cpp's QLoRA
    // ZeRO-3 term; the framework's table says whether it runs it (hf-trainer, torchtune: yes; litgpt: no).
    zeros[n_z++] = 3;
  }
  const unsigned allowed = framework_profile(train.framework).method(train.method).zero_stages;
  int kept = 0, dropped = -1;
  for (int i = 0; i < n_z; ++i) {
    if (allowed & (1u << zeros[i])) zeros[kept++] = zeros[i];
    else if (dropped < 0) dropped = zeros[i];
  }
  if (kept == 0 && !fixed) {
    for (int z = 0; z <= 3; ++z)
      if ((allowed & (1u << z)) && (z == 0 || dp * cp > 1))
        zeros[kept++] = z;
  }
  if (dropped >= 0) {
    if (s.skipped.empty()) s.skipped = framework_layout_error(train.framework, train.method, 1, 1, 1, 1, dropped, false);
    ++s.skipped_count;
  }
  return kept;
}

// One (ZeRO, recompute) group per pair for layout `li`, each pushed as a lazy candidate; groups go from ZeRO low to
// high and recompute none to full, so the last one is the layout's leanest.
void push_groups(Searcher& s, int li, const int* zeros, int n_z, const Recompute* rc_list, int n_rc, bool fixed) {
  const TrainConfig& train = s.train;
  for (int zi = 0; zi < n_z; ++zi) {
    for (int ri = 0; ri < n_rc; ++ri) {
      const int gi = static_cast<int>(s.groups.size());
      Group gr{li, zeros[zi], rc_list[ri], fixed && train.parallel.offload_optimizer,
               fixed && train.parallel.offload_params, -2, zi, ri};
      if (s.layouts[li].group_count == 0) s.layouts[li].group_begin = gi;
      ++s.layouts[li].group_count;
      s.groups.push_back(gr);
      s.layouts[li].lean_group = gi;
      s.push_group(gi);
    }
  }
}

// One (TP, PP, CP) layout on `nodes` nodes: its DP degree, micro-batch candidates and (ZeRO, recompute) groups,
// each pushed as a lazy candidate; nothing when the global batch, the framework or the links rule it out.
Result<bool> add_layout(Searcher& s, int ni, int nodes, int tp, int pp, int cp, int vp, const Recompute* rc_list,
                        int n_rc, bool fixed) {
  const Ctx& c = s.c;
  const TrainConfig& train = s.train;
  const int total = nodes * c.g;
  const int used = fixed ? static_cast<int>(train.parallel.tp * train.parallel.pp * train.parallel.dp * cp) : total;
  if (used % (tp * pp * cp)) return true;
  const int dp = used / (tp * pp * cp);
  const int64_t gb = train.global_batch > 0 ? train.global_batch : default_global_batch(dp, fixed ? train.micro_batch : 1);
  if (gb % dp) return true;  // the global batch does not split over this DP degree
  // What the query's framework cannot launch is skipped and named (framework.h).
  const CpScheme scheme = resolved_cp_scheme(train);
  if (std::string why = framework_layout_error(train.framework, train.method, tp, pp, cp, dp, -1, false, 1, scheme);
      !why.empty()) {
    if (s.skipped.empty()) s.skipped = std::move(why);
    ++s.skipped_count;
    return true;
  }
  // Ulysses CP needs cp to divide the heads (memory.h cp_layout_error).
  if (Error err = cp_layout_error(s.model, tp, cp, scheme); !err.message.empty()) {
    if (fixed) return err;
    return true;
  }
  // Stages of unequal layer counts only where the framework runs them (framework.h uneven_pp).
  if ((vp > 1 || !fixed) && !pipeline_split_ok(framework_profile(train.framework), s.model.num_layers, pp, vp))
    return true;
  // Expert-parallel variants of the layout (MoE): the query's for a fixed layout, else none (ep 1) and every ep
  // that divides the experts and the TP x CP x DP ranks, with the experts whole on each rank (etp 1), where the
  // framework launches expert parallelism (framework.h MethodSupport::ep).
  int eps[10][2], n_ep = 0;
  if (fixed) {
    eps[n_ep][0] = std::max(1, train.parallel.ep);
    eps[n_ep++][1] = train.parallel.etp;
  } else {
    eps[n_ep][0] = 1;
    eps[n_ep++][1] = 0;
    const int64_t experts = s.model.num_experts;
    if (experts > 1 && framework_profile(train.framework).method(train.method).ep) {
      for (int ep = 2; ep <= 256 && n_ep < 10; ep *= 2) {
        if (experts % ep || (int64_t(tp) * cp * dp) % ep) continue;
        eps[n_ep][0] = ep;
        eps[n_ep++][1] = 1;
      }
    }
  }
  const Links links = layout_links(c, nodes, tp, pp, dp, cp);  // EP adds no group to the layout's links
  if (links.excluded) return true;
  for (int e = 0; e < n_ep; ++e) {
    if (Error err = expert_layout_error(s.model, tp, cp, dp, eps[e][0], eps[e][1]); !err.message.empty()) {
      if (fixed) return err;
      continue;
    }
    LayoutKey L{nodes, tp, pp, dp, gb, static_cast<int>(s.mbs.size()), 0, links, -1, 0, 0, {}, ni, cp, vp};
    L.ep = eps[e][0];
    L.etp = eps[e][1];
    Result<bool> mb = add_micro_batches(s, gb / dp, pp, vp, static_cast<size_t>(L.mb_begin), fixed);
    if (!mb) return mb.error();
    L.mb_count = static_cast<int>(s.mbs.size()) - L.mb_begin;
    if (L.mb_count <= 0) return true;
    s.mb_terms.resize(s.mbs.size());  // the slice's terms, unfilled
    const int li = static_cast<int>(s.layouts.size());
    s.layouts.push_back(L);
    int zeros[4];
    const int n_z = zero_candidates(s, dp, pp, cp, fixed, zeros);
    push_groups(s, li, zeros, n_z, rc_list, n_rc, fixed);
  }
  return true;
}

// Sequences at least this long also try context parallelism in the search (a framework's profile can lower it:
// framework.h cp_search_min_seq).
constexpr int64_t kCpMinSeq = 16384;

// The TP and PP degrees a search on `total` GPUs (g per node) tries: TP inside a node, dividing the query and
// key/value heads; PP dividing the GPU count and the layers (or not, for frameworks with uneven stages). A fixed
// layout: the query's.
struct TpPpCandidates {
  int tps[16], n_tp = 0;
  int pps[64], n_pp = 0;
};
TpPpCandidates tp_pp_candidates(const Searcher& s, int total, bool fixed) {
  const ModelSpec& model = s.model;
  const TrainConfig& train = s.train;
  const int g = s.c.g;
  const int64_t heads = model.num_heads, kv = model.num_kv_heads > 0 ? model.num_kv_heads : model.num_heads;
  const int64_t layers = model.num_layers;
  TpPpCandidates out;
  if (fixed) {
    out.tps[out.n_tp++] = train.parallel.tp;
    out.pps[out.n_pp++] = train.parallel.pp;
    return out;
  }
  for (int tp = 1; tp <= g && out.n_tp < 16; ++tp) {
    if (g % tp) continue;
    if (heads > 0 && (heads % tp || kv % tp)) continue;
    if (heads <= 0 && tp > 1) continue;  // params_only: no head count to split
    out.tps[out.n_tp++] = tp;
  }
  for (int pp = 1; pp <= total && out.n_pp < 64; ++pp) {
    if (total % pp) continue;
    // PP dividing the layers, or any PP up to the layer count where the framework runs uneven stages (the
    // heaviest stage sets memory and pace: memory.cpp, planner_model.cpp step_time).
    if (pp > 1 && (layers <= 0 || !pipeline_split_ok(framework_profile(train.framework), layers, pp, 1))) continue;
    out.pps[out.n_pp++] = pp;
  }
  return out;
}

// Context parallel degrees, into `cps` (returns how many): the query's for a fixed layout; the search adds CP
// 2/4/8 for long sequences, where one sequence's activations are what does not fit (Megatron-Core's context
// parallelism), from kCpMinSeq tokens or the framework's own threshold.
int cp_candidates(const Searcher& s, int total, bool fixed, int cps[4]) {
  const TrainConfig& train = s.train;
  int n_cp = 0;
  cps[n_cp++] = fixed ? std::max(1, train.parallel.cp) : 1;
  if (!fixed && train.seq_len >= std::min(kCpMinSeq, framework_profile(train.framework).cp_search_min_seq)) {
    for (int cp = 2; cp <= 8 && cp <= total; cp *= 2)
      if (train.seq_len % cp == 0) cps[n_cp++] = cp;
  }
  return n_cp;
}

// Phase 1: every (TP, PP, CP, VP) layout on `nodes` nodes that the model's heads and layers and the global batch
// allow, with its micro-batch candidates and its (ZeRO, recompute) groups, each pushed as a lazy candidate.
Result<bool> add_layouts(Searcher& s, int ni, int nodes, const Recompute* rc_list, int n_rc, bool fixed) {
  const TrainConfig& train = s.train;
  const int total = nodes * s.c.g;
  const TpPpCandidates tpp = tp_pp_candidates(s, total, fixed);
  int cps[4];
  const int n_cp = cp_candidates(s, total, fixed, cps);
  // Virtual pipeline stages: the query's vp for a fixed layout; the search tries 2 and 4 with pipelines for the
  // frameworks that run interleaved 1F1B (framework.h search_interleaved).
  const bool interleave = !fixed && framework_profile(train.framework).search_interleaved;
  for (int a = 0; a < tpp.n_tp; ++a)
    for (int b = 0; b < tpp.n_pp; ++b)
      for (int k = 0; k < n_cp; ++k)
        for (int vp : {1, 2, 4}) {
          if (fixed ? vp != 1 : (vp > 1 && (!interleave || tpp.pps[b] < 2))) continue;
          const int v = fixed ? std::max(1, train.parallel.vp) : vp;
          Result<bool> r = add_layout(s, ni, nodes, tpp.tps[a], tpp.pps[b], cps[k], v, rc_list, n_rc, fixed);
          if (!r) return r.error();
        }
  return true;
}

// Phase 2: whether anything can fit on `nodes` nodes. The leanest groups are checked first (largest model-state
// sharding TP x PP x ZeRO-3 DP, full recompute, smallest micro-batch). If none fits, CPU-offload variants are
// added (offload is never faster at equal layout; it exists to fit) and the leanest of those checked; if that
// fails too, the node count is dead and its candidates are skipped without memory checks.
bool node_count_can_fit(Searcher& s, int nodes) {
  constexpr int kLean = 4;
  int lean[kLean] = {-1, -1, -1, -1};
  double lean_score[kLean] = {-1, -1, -1, -1};
  for (size_t li = 0; li < s.layouts.size(); ++li) {
    const LayoutKey& L = s.layouts[li];
    if (L.nodes != nodes || L.lean_group < 0) continue;
    const Group& gr = s.groups[L.lean_group];
    // Model states divide by TP x PP (x DP under ZeRO-3), activations by TP (SP) and CP. Ties: more TP, then more
    // PP (it divides the model states, CP only the activations); virtual stages last (they only add in-flight
    // activations), so the checks below see distinct (TP, PP, CP) shapes.
    double score = static_cast<double>(L.tp) * L.pp * L.cp * (gr.zero == 3 ? L.dp : 1);
    // Expert parallelism shrinks the model states by the experts' share f: (1/tp) / ((1 - f)/tp + f/(ep x etp)).
    const int etp = L.etp > 0 ? L.etp : L.tp;
    if (s.c.expert_params > 0 && (L.ep > 1 || etp != L.tp)) {
      const double f = s.c.expert_params / s.c.params.total;
      score *= (1.0 / L.tp) / ((1.0 - f) / L.tp + f / (static_cast<double>(L.ep) * etp));
    }
    score += 1e-3 * L.tp + 1e-6 * L.pp - (L.vp > 1 ? 1e-4 : 0.0);
    for (int k = 0; k < kLean; ++k) {
      if (score > lean_score[k]) {
        for (int j = kLean - 1; j > k; --j) {
          lean_score[j] = lean_score[j - 1];
          lean[j] = lean[j - 1];
        }
        lean_score[k] = score;
        lean[k] = static_cast<int>(li);
        break;
      }
    }
  }
  for (int k = 0; k < kLean && lean[k] >= 0; ++k) {
    const LayoutKey& L = s.layouts[lean[k]];
    Group& gr = s.groups[L.lean_group];
    double need = 0;
    if (s.fits(s.memory_layout(L, gr, s.mbs[L.mb_begin]), need)) {
      gr.known_fit = std::max(gr.known_fit, 0);
      return true;
    }
    s.mark_fails_from(gr, 0);
  }
  // Leanest optimizer-only and optimizer+parameter offload groups: the second needs less GPU memory but more
  // host RAM, so either can be the one that fits.
  int lean_off[2] = {-1, -1};
  double lean_off_score[2] = {-1, -1};
  const size_t n_groups = s.groups.size();
  for (size_t gi = 0; gi < n_groups; ++gi) {
    const Group base = s.groups[gi];  // a copy: groups grows below
    const LayoutKey& L = s.layouts[base.layout];
    if (L.nodes != nodes || base.off_opt || base.off_par) continue;
    if (L.pp > 1) continue;  // DeepSpeed offload needs ZeRO-2/3, which it refuses with pipeline parallelism
    const MethodSupport& ms = framework_profile(s.train.framework).method(s.train.method);
    // QLoRA included: FSDP's CPU offload of the sharded NF4 storage (PEFT docs accelerate/fsdp, Answer.AI's
    // 70B on 2x 24 GB), where the framework's table allows offload.
    const bool z3 = (base.zero == 3 || (L.dp == 1 && base.zero == 0)) && ms.offload && (ms.zero_stages & 8u);
    const bool z2 = (base.zero == 2 || (L.dp == 1 && base.zero == 0)) && ms.offload && (ms.zero_stages & 4u);
    for (int v = 0; v < 2; ++v) {
      Group gr = base;
      gr.fit_upto = -2;
      gr.zi = gr.ri = -1;
      gr.known_fit = -1;
      gr.fail_from = 1 << 30;
      if (v == 0) {
        if (!z2) continue;
        gr.zero = 2;
        gr.off_opt = true;
      } else {
        if (!z3) continue;
        gr.zero = 3;
        gr.off_opt = true;
        gr.off_par = true;
      }
      const int ngi = static_cast<int>(s.groups.size());
      s.groups.push_back(gr);
      const double score = static_cast<double>(L.tp) * (gr.zero == 3 ? L.dp : 1) + rc_index(gr.rc) * 1e-3;
      if (score > lean_off_score[v]) {
        lean_off_score[v] = score;
        lean_off[v] = ngi;
      }
      s.push_group(ngi);
    }
  }
  bool off_fits = false;
  for (int v = 1; v >= 0 && !off_fits; --v) {
    if (lean_off[v] < 0) continue;
    Group& gr = s.groups[lean_off[v]];
    const LayoutKey& L = s.layouts[gr.layout];
    double need = 0;
    off_fits = s.fits(s.memory_layout(L, gr, s.mbs[L.mb_begin]), need);
    if (!off_fits) gr.fit_upto = -1;
  }
  return off_fits;
}

// What the best-first search found: the fastest plan, the fastest per node count, and up to
// PlanOptions::alternatives alternatives on the winner's node count that differ from it in TP / PP / ZeRO.
struct SearchOutcome {
  bool found = false;
  Plan best;
  std::vector<Plan> by_node;  // [ni], where have[ni]
  std::vector<char> have;
  std::vector<Plan> alts;
};

// Phase 3: best-first over all candidates: the first item that fits is the fastest plan. Then keep popping until
// every live node count has its fastest plan and `alternatives` distinct alternatives on the winner's node count
// are known (bounded, so a plan stays well under a millisecond). Node counts where every candidate failed are
// marked dead.
void best_first(Searcher& s, bool fixed, std::vector<char>& alive, int alive_count, int alternatives,
                SearchOutcome& o) {
  const int n_counts = static_cast<int>(alive.size());
  std::make_heap(s.items.data(), s.items.data() + s.items.size(), ItemAfter{});
  o.by_node.resize(n_counts);
  o.have.assign(n_counts, 0);
  int have_count = 0;
  int pops_after_best = 0;
  size_t remaining = s.items.size();
  while (remaining > 0 && alive_count > 0) {
    std::pop_heap(s.items.data(), s.items.data() + remaining, ItemAfter{});
    --remaining;
    const Item it = s.items[remaining];
    Group& gr = s.groups[it.group];
    const LayoutKey& L = s.layouts[gr.layout];
    const int ni = L.ni;
    if (!alive[ni]) continue;
    if (o.found && ++pops_after_best > 400 && have_count >= alive_count) break;
    const bool want_alt = o.found && L.nodes == o.best.nodes && static_cast<int>(o.alts.size()) < alternatives;
    if (o.have[ni] && !want_alt) continue;
    if (want_alt && o.have[ni]) {
      // only layouts that differ from the winner and the alternatives in TP / PP / ZeRO are worth a check
      bool distinct = !(L.tp == o.best.layout.tp && L.pp == o.best.layout.pp && gr.zero == o.best.layout.zero);
      for (const Plan& a : o.alts)
        if (a.layout.tp == L.tp && a.layout.pp == L.pp && a.layout.zero == gr.zero) distinct = false;
      if (!distinct) continue;
    }
    if (it.mb_index < 0) {
      if (s.fit_upto(gr) >= 0) s.expand(it.group, remaining);
      continue;
    }
    if (it.mb_index > s.fit_upto(gr)) continue;
    Plan p = s.make_plan(it);
    if (!o.found) {
      o.found = true;
      o.best = p;
    } else if (o.have[ni]) {
      o.alts.push_back(p);
    }
    if (!o.have[ni]) {
      o.have[ni] = 1;
      ++have_count;
      o.by_node[ni] = p;
    }
    if (have_count >= alive_count && static_cast<int>(o.alts.size()) >= alternatives) break;
    if (fixed && o.found) break;
  }
  for (int ni = 0; ni < n_counts; ++ni)
    if (alive[ni] && !o.have[ni]) alive[ni] = 0;  // every candidate failed its memory check
}

Plan no_fit_plan(int nodes, int g) {
  Plan p;
  p.nodes = nodes;
  p.gpus_per_node = g;
  p.gpus = nodes * g;
  p.topology = topology_of(p.nodes, p.gpus);
  p.verdict = FitVerdict::no_fit;
  p.why = "no layout fits in GPU memory on " + std::to_string(p.nodes) + (p.nodes == 1 ? " node" : " nodes");
  return p;
}

// Phase 4 when nothing fits: one entry per node count, and the shortfall of the leanest layout tried.
void report_no_fit(const Searcher& s, const NodeCounts& nc, PlanResult& res) {
  res.fits = false;
  for (int ni = 0; ni < nc.count; ++ni) res.by_nodes.push_back(no_fit_plan(nc.n[ni], s.c.g));
  const double need = s.min_fail_need;
  if (need >= 1e29) {
    // no layout passed the structural checks (e.g. global batch not divisible)
    res.why_not = !s.skipped.empty() && s.layouts.empty()
                      ? s.skipped
                      : s.layouts.empty() ? "no parallel layout matches the model's heads/layers and the global batch "
                                            "on this instance"
                                          : "no layout fits in GPU memory";
  } else {
    res.shortfall_bytes = std::max(0.0, need - s.limit_bytes);
    res.why_not = "does not fit: the leanest layout needs " + gib(need) + " per GPU" +
                  (s.level == FitLevel::safe ? " (band's top)" : "") + ", " + gib(s.limit_bytes) +
                  " usable (short by " + gib(res.shortfall_bytes) + ")";
    if (!s.skipped.empty()) res.why_not += "; " + s.skipped;
    if (s.min_fail_host < 1e29)
      res.why_not += "; with CPU offload the GPU part fits but needs " + gib(s.min_fail_host) +
                     " of host RAM per node, " + gib(s.host_limit_bytes) + " usable";
  }
}

// Phase 4: the winner's memory, data pipeline and totals, the runners-up, and the caveats.
void report_plans(Searcher& s, const NodeCounts& nc, SearchOutcome& o, const Dataset& data, const PlanOptions& opt,
                  PlanResult& res) {
  const Ctx& c = s.c;
  Plan& best = o.best;
  s.fill_memory(best, &res.memory);

  // Data pipeline: every node reads its share of the tokens from storage.
  if (opt.storage_read_MBps > 0) {
    res.data.storage_Bps = opt.storage_read_MBps * 1e6;
    res.data.needed_Bps = best.tokens_per_s / best.nodes * data.bytes_per_token;
    if (res.data.needed_Bps > res.data.storage_Bps) {
      res.data.storage_bound = true;
      const double capped = res.data.storage_Bps * best.nodes / std::max(1e-9, data.bytes_per_token);
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "storage reads %.0f MB/s per node but training needs %.0f MB/s; tokens/s capped at %.0f",
                    res.data.storage_Bps / 1e6, res.data.needed_Bps / 1e6, capped);
      res.warnings.push_back({"storage_read_MBps", "storage_bound", buf});
      best.tokens_per_s = capped;
      best.mfu = utilisation(c.flops[rc_index(best.layout.recompute)].model, capped, best.gpus, c.peak);
      best.hfu = utilisation(c.flops[rc_index(best.layout.recompute)].hardware, capped, best.gpus, c.peak);
    }
  } else {
    res.data.needed_Bps = best.tokens_per_s / best.nodes * data.bytes_per_token;
  }

  res.fits = true;
  res.verdict = best.verdict;
  res.best = best;
  res.topology = best.topology;
  res.flops = c.flops[rc_index(best.layout.recompute)];
  set_dataset_totals(res, res.tokens);

  // Runners-up: best of every other node count, then alternatives on the winner's node count.
  const int alternatives = static_cast<int>(o.alts.size());
  res.by_nodes.reserve(nc.count);
  res.runners_up.reserve(std::max(0, std::min(opt.max_runners_up, nc.count - 1 + alternatives)));
  for (int ni = 0; ni < nc.count; ++ni) {
    if (nc.n[ni] == best.nodes) {
      res.by_nodes.push_back(best);
      continue;
    }
    if (o.have[ni]) {
      Plan p = o.by_node[ni];
      s.fill_memory(p, nullptr);
      res.by_nodes.push_back(p);  // fitting: no `why` (the cost ranking picks among these)
      p.why = loss_reason(p, best);
      if (static_cast<int>(res.runners_up.size()) < opt.max_runners_up) res.runners_up.push_back(p);
      continue;
    }
    const Plan p = no_fit_plan(nc.n[ni], c.g);
    res.by_nodes.push_back(p);
    if (static_cast<int>(res.runners_up.size()) < opt.max_runners_up) res.runners_up.push_back(p);
  }
  for (Plan& a : o.alts) {
    if (static_cast<int>(res.runners_up.size()) >= opt.max_runners_up) break;
    a.why = loss_reason(a, best);
    s.fill_memory(a, nullptr);
    res.runners_up.push_back(a);
  }

  // Caveats.
  if (!c.base_eff.calibrated && !c.base_eff.overridden)
    res.warnings.push_back({"gpu", "efficiency_uncalibrated",
                            std::string("compute efficiency for this GPU is an assumption (") + c.base_eff.basis +
                                "); set compute_efficiency from a measured run to tighten the estimate"});
  if (!c.flops[0].attention_known)
    res.warnings.push_back({"model", "params_only_flops",
                            "only a parameter count is known: FLOPs are 6N without attention or logits terms"});
  {
    const LayoutKey* lk = nullptr;
    for (const LayoutKey& L : s.layouts)
      if (L.nodes == best.nodes && L.tp == best.layout.tp && L.pp == best.layout.pp) lk = &L;
    if (lk && lk->links.tp_over_pcie)
      res.warnings.push_back({"parallel/tp", "tp_over_pcie",
                              "tensor parallel runs over PCIe on this instance: its per-layer all-reduces are slow"});
  }
  if (s.skipped_count > 0)
    res.warnings.push_back({"framework", "framework_layouts",
                            std::to_string(s.skipped_count) + " layout(s) skipped: " + s.skipped});
  // The default is news only where it is not 64 (a DP width that does not divide 64); each plan's JSON says
  // global_batch_default either way.
  if (best.global_batch_default && best.global_batch != kDefaultGlobalBatchTarget)
    res.warnings.push_back({"global_batch", "global_batch_default",
                            default_global_batch_note(best.layout.dp, best.global_batch)});
  if (best.step.memory_bound)
    res.warnings.push_back({"micro_batch", "memory_bound",
                            "the micro-batch is small enough that HBM bandwidth, not tensor throughput, sets the pace"});
}

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
  int cap = std::max(1, std::min(max_nodes, std::max(1, offer.max_nodes)));
  if (cap > 1 && (offer.inter_net == NetKind::none || !(offer.inter_net_Gbps > 0))) {
    cap = 1;
    res.warnings.push_back({"offer/inter_net", "no_inter_node_network",
                            "the instance lists no inter-node network; only single-node plans are considered"});
  }

  if (!job.memory) return Error{"plan", job.memory_error};
  Searcher s{c, model, train, *job.memory, usable_bytes(gpu_capacity_bytes(gpu), train.headroom),
             offer.host_ram_bytes > 0 ? offer.host_ram_bytes * 0.9 : 0.0,
             opt.require_fits ? FitLevel::safe : FitLevel::expected, {}, {}, {}, {}};
  s.layouts.reserve(64);
  s.mbs.reserve(256);
  s.mb_terms.reserve(256);
  s.groups.reserve(512);
  s.unbounded.reserve(512);
  s.items.reserve(2048);

  // Node counts: 1, 2, 4, ... and the cap itself.
  NodeCounts nc;
  if (!train.parallel.automatic) {
    const int gpus = std::max(1, train.parallel.gpus);
    nc.n[nc.count++] = (gpus + g - 1) / g;
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
  int n_rc = 0;
  if (train.recompute == Recompute::automatic) {
    for (Recompute r : kRcModes) rc_list[n_rc++] = r;
  } else {
    rc_list[n_rc++] = train.recompute;
  }

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
  }
  res.memory_checks = s.memory_checks;
  return res;
}

}  // namespace

Result<PlanResult> plan_job(const ModelSpec& model, const TrainConfig& train, const Dataset& data, const GpuSpec& gpu,
                            const Offer& offer, int max_nodes, const PlanOptions& options) {
  try {
    const PlanJob::Prepared job(model, train, data);
    return plan_impl(job, gpu, offer, max_nodes, options);
  } catch (const std::exception& e) {
    return Error{"plan", e.what()};
  }
}

Result<PlanResult> plan_job(const PlanJob& job, const GpuSpec& gpu, const Offer& offer, int max_nodes,
                            const PlanOptions& options) {
  try {
    return plan_impl(*job.prep_, gpu, offer, max_nodes, options);
  } catch (const std::exception& e) {
    return Error{"plan", e.what()};
  }
}

}  // namespace trainfit
