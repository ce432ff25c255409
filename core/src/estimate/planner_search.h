// trainfit core — the planner's search, shared by its files: the bookkeeping (layouts, their (ZeRO, recompute,
// offload) groups, candidate items), the Searcher (memory checks, lazy lower bounds, exact items, plans) and the
// phases plan_impl runs. Internal to the core.
//
// Index of sections:
//   ---- bookkeeping ----  LayoutKey, Group, Item, ItemAfter, NodeCounts, SearchOutcome, topology_of
//   ---- searcher ----     Searcher: memory checks, micro-batch fits, step times, candidate items, plans
//   ---- phases ----       add_layouts (planner_layouts.cpp), node_count_can_fit and best_first
//                          (planner_search.cpp), report_plans and report_no_fit (planner_report.cpp)
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "estimate/planner_model.h"
#include "trainfit/catalog/framework.h"
#include "trainfit/estimate/planner.h"

namespace trainfit::planner_search {

using namespace planner_model;  // the time model: Ctx, Links, step_time (planner_model.h)

// ---- bookkeeping ----

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

inline Topology topology_of(int nodes, int gpus) {
  if (nodes > 1) return Topology::multi_node;
  return gpus > 1 ? Topology::multi_gpu_node : Topology::single_gpu;
}

// The node counts a plan considers: 1, 2, 4, ... and the cap itself, or the one a fixed layout needs.
struct NodeCounts {
  int n[40];
  int count = 0;
};

// What the best-first search found: the fastest plan, the fastest per node count, and up to
// PlanOptions::alternatives alternatives on the winner's node count that differ from it in TP / PP / ZeRO.
struct SearchOutcome {
  bool found = false;
  Plan best;
  std::vector<Plan> by_node;  // [ni], where have[ni]
  std::vector<char> have;
  std::vector<Plan> alts;
};

// ---- searcher ----

// The figures of one memory check, memoised per job: MemoryEstimator::estimate is a function of the layout alone
// (the job's model and setup are fixed for the estimator's life), and the GPU only sets the limit it is judged
// against. A ranking plans the same job on ~330 shapes whose searches check the same few hundred layouts again
// and again (the bundled snapshot's 8B LoRA ranking: 5,833 checks, 693 distinct), so each distinct layout is
// estimated once per job. Open addressing over a power-of-two table, the layout packed into seven words.
class MemoryMemo {
 public:
  struct Figures {
    bool ok;  // the estimate succeeded
    double total, total_high, host_ram_per_node_bytes;
  };

  // The figures of `ml`, estimated with `memory` (into `scratch`) the first time this layout is asked for. The
  // reference holds until the next call.
  const Figures& get(const MemoryLayout& ml, const MemoryEstimator& memory, MemoryBreakdown& scratch) {
    uint64_t key[kWords];
    pack(ml, key);
    if (2 * (count_ + 1) > size_) grow();
    const size_t i = find(key);
    Slot& slot = slots_[i];
    if (!used_[i]) {
      used_[i] = 1;
      std::copy(key, key + kWords, slot.key);
      slot.figures = Figures{memory.estimate(ml, scratch), 0, 0, 0};
      if (slot.figures.ok)
        slot.figures = Figures{true, scratch.total, scratch.total_high, scratch.host_ram_per_node_bytes};
      ++count_;
    }
    return slot.figures;
  }

 private:
  static constexpr int kWords = 7;
  struct Slot {  // no initialisers: a table's slots are written before they are read (used_ says which)
    uint64_t key[kWords];
    Figures figures;
  };
  static uint64_t pair(int64_t hi, int64_t lo) {
    return (static_cast<uint64_t>(hi) << 32) ^ static_cast<uint32_t>(lo);
  }
  // Every field of MemoryLayout: the two 64-bit counts whole, the others (degrees, GPU counts, flags: all within
  // 32 bits) two to a word, so two layouts pack alike exactly when they are equal.
  static void pack(const MemoryLayout& ml, uint64_t* k) {
    k[0] = pair(ml.tp, ml.pp);
    k[1] = pair(ml.dp, ml.cp);
    k[2] = pair(ml.vp, ml.ep);
    k[3] = pair(ml.etp, ml.pp_rank);
    k[4] = pair(ml.gpus_per_node, ml.zero | ml.sequence_parallel << 8 | ml.cp_ulysses << 9 |
                                       ml.offload_optimizer << 10 | ml.offload_params << 11 |
                                       static_cast<int>(ml.recompute) << 16);
    k[5] = static_cast<uint64_t>(ml.micro_batch);
    k[6] = static_cast<uint64_t>(ml.num_microbatches);
  }
  // The slot of `key`, or the free slot where it goes (linear probing; the table is at most half full).
  size_t find(const uint64_t* key) const {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < kWords; ++i) h = (h ^ key[i]) * 0xFF51AFD7ED558CCDull;
    const size_t mask = size_ - 1;
    for (size_t i = static_cast<size_t>(h ^ (h >> 29)) & mask;; i = (i + 1) & mask)
      if (!used_[i] || std::equal(key, key + kWords, slots_[i].key)) return i;
  }
  // 1,024 slots to start: the bundled snapshot's 8B LoRA ranking checks ~700 distinct layouts.
  void grow() {
    std::unique_ptr<Slot[]> old_slots = std::move(slots_);
    std::vector<uint8_t> old_used;
    old_used.swap(used_);
    const size_t old_size = size_;
    size_ = size_ == 0 ? 1024 : 2 * size_;
    slots_.reset(new Slot[size_]);
    used_.assign(size_, 0);
    for (size_t i = 0; i < old_size; ++i) {
      if (!old_used[i]) continue;
      const size_t j = find(old_slots[i].key);
      slots_[j] = old_slots[i];
      used_[j] = 1;
    }
  }
  std::unique_ptr<Slot[]> slots_;
  std::vector<uint8_t> used_;
  size_t size_ = 0, count_ = 0;
};

struct Searcher {
  const Ctx& c;
  const ModelSpec& model;
  const TrainConfig& train;
  const MemoryEstimator& memory;  // estimate_memory with the job's layout-independent work done once
  MemoryMemo& memo;               // the job's memory checks, shared by every shape it is planned on
  double limit_bytes;  // usable memory per GPU
  double host_limit_bytes;
  FitLevel level;      // expected (fits or tight) or safe (fits only: filters.must_fit)
  std::string skipped;   // the first thing the query's framework cannot run (a layout or a ZeRO stage), in words
  std::string skipped_layout;  // the first layout it cannot run (framework.h), and how many were skipped
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
  // A variant in the other context-parallel scheme (planner.cpp cp_scheme_alternative): its CP > 1 layouts only, the
  // CP 1 ones being the job's own.
  bool cp_only = false;

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
    m.sequence_parallel = L.tp > 1 && train.parallel.sequence_parallel;  // job.h ParallelConfig: on unless the query says no
    m.offload_optimizer = gr.off_opt;
    m.offload_params = gr.off_par;
    m.recompute = gr.rc;
    m.micro_batch = mb;
    m.num_microbatches = L.global_batch / (static_cast<int64_t>(L.dp) * mb);
    m.gpus_per_node = c.g;
    return m;
  }

  // Memory check; returns the breakdown's judged figure via `need`. From the job's memo unless the caller keeps
  // the breakdown (a reported plan's memory).
  bool fits(const MemoryLayout& ml, double& need, MemoryBreakdown* keep = nullptr) {
    ++memory_checks;
    MemoryMemo::Figures f{};
    if (!keep) {
      f = memo.get(ml, memory, scratch);
    } else {
      f.ok = memory.estimate(ml, *keep);
      if (f.ok) f = MemoryMemo::Figures{true, keep->total, keep->total_high, keep->host_ram_per_node_bytes};
      else *keep = MemoryBreakdown{};
    }
    if (!f.ok) {
      need = 1e30;
      return false;
    }
    need = judged_bytes(f.total, f.total_high, level);
    bool ok = need <= limit_bytes;
    if (!ok) min_fail_need = std::min(min_fail_need, need);
    if (ok && host_limit_bytes > 0 && (ml.offload_optimizer || ml.offload_params)) {
      ok = f.host_ram_per_node_bytes <= host_limit_bytes;
      if (!ok) min_fail_host = std::min(min_fail_host, f.host_ram_per_node_bytes);
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
      const MemoryMemo::Figures& f = memo.get(memory_layout(L, gr, mbs[L.mb_begin + mid]), memory, scratch);
      const bool ok = f.ok && f.total_high <= limit_bytes;
      if (ok) {
        best = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return gr.safe_upto = best;
  }

  // The layout step_time times for group `gr` at micro-batch `mb`, `m` micro-batches per step: sequence parallel
  // with TP unless the query turns it off, as memory_layout sets it.
  StepLayout step_layout(const LayoutKey& L, const Group& gr, int64_t mb, int64_t m) const {
    return StepLayout{.tp = L.tp, .pp = L.pp, .dp = L.dp, .zero = gr.zero, .rc = gr.rc, .off_opt = gr.off_opt,
                      .off_par = gr.off_par, .mb = mb, .m = m, .cp = L.cp, .vp = L.vp,
                      .sp = L.tp > 1 && train.parallel.sequence_parallel, .ep = L.ep, .etp = L.etp};
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
    return step_time(c, L.links, step_layout(L, gr, mb, L.global_batch / (L.dp * mb)), nullptr, nullptr, bubble,
                     terms_at(L.mb_begin + k), &L.dp_terms);
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
    step_time(c, L.links, step_layout(L, gr, mb, p.layout.num_microbatches), &p.step, &eff, nullptr,
              terms_at(L.mb_begin + it.mb_index), &L.dp_terms);
    p.efficiency = eff;
    p.tokens_per_s = static_cast<double>(L.global_batch) * c.seq / p.step.total_s;
    const FlopsPerToken& f = c.flops[rc_index(gr.rc)];
    p.mfu = utilisation(f.model, p.tokens_per_s, p.gpus, c.peak);
    p.hfu = utilisation(f.hardware, p.tokens_per_s, p.gpus, c.peak);
    p.memory_limit_bytes = limit_bytes;
    p.topology = topology_of(p.nodes, p.gpus);
    p.recompute_modules = train.recompute_modules;
    p.deepep = runs_deepep(train, p.layout.ep, c.g);
    p.a2a_overlap = runs_a2a_overlap(train, p.layout.ep);
    return p;
  }
};
// ---- phases ----


// plan_impl's phases are functions of their own: in the browser each is compiled (and re-compiled by V8's
// optimising tier when hot) on its own, instead of one 10 KB function whose loops made V8 optimise all of it
// during the page load (~75 ms of compile on a 2-core machine, docs/performance.md).

// Phase 1: every (TP, PP, CP, VP) layout on `nodes` nodes that the model's heads and layers and the global batch
// allow, with its micro-batch candidates and its (ZeRO, recompute) groups, each pushed as a lazy candidate.
Result<bool> add_layouts(Searcher& s, int ni, int nodes, const Recompute* rc_list, int n_rc, bool fixed);
// Whether the search tries context parallelism for this job (a long enough sequence: from 16k tokens, or the
// framework's own threshold, framework.h cp_search_min_seq).
bool searches_cp(const TrainConfig& train);

// Phase 2: whether anything can fit on `nodes` nodes. The leanest groups are checked first (largest model-state
// sharding TP x PP x ZeRO-3 DP, full recompute, smallest micro-batch). If none fits, CPU-offload variants are
// added (offload is never faster at equal layout; it exists to fit) and the leanest of those checked; if that
// fails too, the node count is dead and its candidates are skipped without memory checks.
bool node_count_can_fit(Searcher& s, int nodes);

// Phase 3: best-first over all candidates: the first item that fits is the fastest plan. Then keep popping until
// every live node count has its fastest plan and `alternatives` distinct alternatives on the winner's node count
// are known (bounded, so a plan stays well under a millisecond). Node counts where every candidate failed are
// marked dead.
void best_first(Searcher& s, bool fixed, std::vector<char>& alive, int alive_count, int alternatives,
                SearchOutcome& o);

// Phase 4 when nothing fits: one entry per node count, and the shortfall of the leanest layout tried.
void report_no_fit(const Searcher& s, const NodeCounts& nc, PlanResult& res);

// Phase 4: the winner's memory, data pipeline and totals, the runners-up, and the caveats.
void report_plans(Searcher& s, const NodeCounts& nc, SearchOutcome& o, const Dataset& data, const PlanOptions& opt,
                  PlanResult& res);

// The same job planned with another module list (Megatron-Core --recompute-modules): per node count the plan that
// comes first in the search's order (step time, a tight plan's by 1 + kTightPreference, then fewer GPUs), the
// winner likewise, and the runners-up of the other node counts re-read from the merged plans.
// `margin`: other's plan replaces res's only where its step is that fraction shorter (0: any shorter one).
void merge_plans(PlanResult& res, PlanResult&& other, double margin = 0);

}  // namespace trainfit::planner_search
