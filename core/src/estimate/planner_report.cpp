// trainfit core — the planner's phase 4: the report of a search: the winner's memory, data pipeline, totals and
// caveats, the runners-up with why each lost, or why nothing fits.
#include <algorithm>
#include <cstdio>
#include <string>

#include "estimate/planner_search.h"
#include "trainfit/base/format.h"

namespace trainfit::planner_search {
namespace {

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

std::string percent_slower(double t, double best) {  // "%.0f%% slower"
  std::string s = fixed((t / best - 1.0) * 100.0, 0);
  s += "% slower";
  return clip(s, 64);
}

// Why `p` lost against `best`, in words: how much slower, and the part of its step that grew the most.
std::string loss_reason(const Plan& p, const Plan& best) {
  const double ratio = best.tokens_per_s / std::max(1e-30, p.tokens_per_s);
  if (ratio <= 1.0 + 1e-9) {  // as fast: the search's order among equals (planner_search.h ItemAfter, plan_before)
    if (p.gpus > best.gpus) return "as fast, but uses more GPUs";
    if (p.verdict == FitVerdict::tight && best.verdict != FitVerdict::tight) return "as fast, but tight in memory";
    return "as fast: an equal alternative";
  }
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

}  // namespace

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
    // A fixed layout keeps the query's micro-batch, where the search would have tried smaller ones.
    if (!s.train.parallel.automatic && s.train.micro_batch > 1)
      res.why_not += "; the fixed layout runs the query's micro-batch of " + std::to_string(s.train.micro_batch) +
                     " sequences: a smaller micro_batch needs less";
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
                            std::to_string(s.skipped_count) + " layout(s) skipped: " + s.skipped_layout});
  // The default is news only where it is not 64 (a DP width that does not divide 64); each plan's JSON says
  // global_batch_default either way.
  if (best.global_batch_default && best.global_batch != kDefaultGlobalBatchTarget)
    res.warnings.push_back({"global_batch", "global_batch_default",
                            default_global_batch_note(best.layout.dp, best.global_batch)});
  if (best.step.memory_bound)
    res.warnings.push_back({"micro_batch", "memory_bound",
                            "the micro-batch is small enough that HBM bandwidth, not tensor throughput, sets the pace"});
}

namespace {
// The search's order (planner_search.h ItemAfter, expand); `margin`: a must be that much shorter to come first.
bool plan_before(const Plan& a, const Plan& b, double margin = 0) {
  const double ka = a.step.total_s * (a.verdict == FitVerdict::tight ? 1.0 + kTightPreference : 1.0) * (1.0 + margin);
  const double kb = b.step.total_s * (b.verdict == FitVerdict::tight ? 1.0 + kTightPreference : 1.0);
  if (ka != kb) return ka < kb;
  return margin == 0 && a.gpus < b.gpus;
}
}  // namespace

namespace {
// The first `room` of the alternatives on `best`'s node count that two searches found (each search's winner and its
// runners-up there), best first, with why each lost against `best`: the runners-up of a merged plan come from both
// searches, so a plan in the other context-parallel scheme (or with another module list) lists the one the default
// search chose. Only those kept are copied and given a reason: a ranking's lists are mostly full with other node
// counts already (room 0).
std::vector<Plan> merged_alternatives(const Plan& best, const PlanResult& a, const PlanResult& b, double margin,
                                      size_t room) {
  if (room == 0) return {};
  std::vector<const Plan*> order;  // sorted by pointer: a Plan is large, and its sort's code too
  for (const PlanResult* r : {&a, &b}) {
    if (!r->fits) continue;
    if (&r->best != &best && r->best.nodes == best.nodes && r->best.tokens_per_s > 0) order.push_back(&r->best);
    for (const Plan& ru : r->runners_up)
      if (ru.nodes == best.nodes && ru.tokens_per_s > 0) order.push_back(&ru);
  }
  // Best first, ties in the searches' order: an insertion sort (a handful of plans; std::stable_sort's merge code
  // cost ~1 KB of the page's wasm).
  for (size_t i = 1; i < order.size(); ++i)
    for (size_t j = i; j > 0 && plan_before(*order[j], *order[j - 1]); --j) std::swap(order[j], order[j - 1]);
  order.resize(std::min(order.size(), room));
  std::vector<Plan> alts;
  alts.reserve(order.size());
  for (const Plan* p : order) alts.push_back(*p);
  // `b` is the variant in the other context-parallel scheme when margin > 0 (its plans all have CP > 1).
  const bool other_ulysses = b.best.layout.cp_ulysses;
  const char* other_name = other_ulysses ? "Ulysses" : "the ring";
  const char* default_name = other_ulysses ? "the ring" : "Ulysses";
  for (Plan& p : alts) {
    p.why = loss_reason(p, best);
    // A plan in the other scheme that the search's order puts first, kept out only by the margin.
    if (margin > 0 && p.layout.cp > 1 && p.layout.cp_ulysses == other_ulysses &&
        !(best.layout.cp > 1 && best.layout.cp_ulysses == other_ulysses) && plan_before(p, best))
      p.why = std::string(other_name) + ", " + fixed((1.0 - p.step.total_s / best.step.total_s) * 100.0, 1) +
              "% shorter step: under the " + fixed(margin * 100.0, 0) +
              "% by which a context-parallel scheme must beat the framework's default (" + default_name + ")";
  }
  return alts;
}
}  // namespace

void merge_plans(PlanResult& res, PlanResult&& other, double margin) {
  const int evaluated = res.layouts_evaluated + other.layouts_evaluated;
  const int checks = res.memory_checks + other.memory_checks;
  const bool host = res.uses_host || other.uses_host;
  if (other.fits && (!res.fits || res.by_nodes.size() == other.by_nodes.size())) {
    if (!res.fits) {
      res = std::move(other);
    } else {
      // Both lists were cut at the same PlanOptions::max_runners_up: the merged one keeps the longer one's length.
      const size_t cap = std::max(res.runners_up.size(), other.runners_up.size());
      for (size_t i = 0; i < res.by_nodes.size(); ++i) {
        const Plan& o = other.by_nodes[i];
        Plan& r = res.by_nodes[i];
        if (o.why.empty() && o.tokens_per_s > 0 && (!r.why.empty() || !(r.tokens_per_s > 0) || plan_before(o, r, margin)))
          r = o;
      }
      const bool other_wins = plan_before(other.best, res.best, margin);
      const PlanResult& winner = other_wins ? other : res;
      // The winner's runners-up list every other node count first (report_plans), then its alternatives.
      size_t kept = 0;
      while (kept < winner.runners_up.size() && winner.runners_up[kept].nodes != winner.best.nodes) ++kept;
      std::vector<Plan> alts = merged_alternatives(winner.best, res, other, margin, cap > kept ? cap - kept : 0);
      if (other_wins) {
        std::vector<Plan> merged = std::move(res.by_nodes);
        res = std::move(other);
        res.by_nodes = std::move(merged);
      }
      // Runners-up: every other node count's best (from the merged by_nodes), then the alternatives of both searches.
      res.runners_up.resize(kept);
      for (Plan& ru : res.runners_up) {
        for (const Plan& b : res.by_nodes)
          if (b.nodes == ru.nodes) {
            ru = b;
            if (b.why.empty()) ru.why = loss_reason(b, res.best);
          }
      }
      for (Plan& a : alts) res.runners_up.push_back(std::move(a));
    }
  }
  res.layouts_evaluated = evaluated;
  res.memory_checks = checks;
  res.uses_host = host;
}

}  // namespace trainfit::planner_search
