// trainfit core — the planner's phases 2 and 3: whether anything can fit on a node count (its leanest layouts,
// then CPU-offload variants), and the best-first search over the candidates.
#include <algorithm>
#include <vector>

#include "estimate/planner_search.h"
#include "trainfit/catalog/framework.h"

namespace trainfit::planner_search {

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
  // The score ranks model-state sharding. Without full recompute among the modes searched (the query asks for none
  // or selective) the activations can decide instead: at long sequences a pipeline stage holds up to pp
  // micro-batches' activations in flight, so a layout the score ranks lower can fit where the top ones do not.
  // Check the others' leanest groups before calling the node count dead.
  for (size_t li = 0; li < s.layouts.size(); ++li) {
    const LayoutKey& L = s.layouts[li];
    if (L.nodes != nodes || L.lean_group < 0 || std::find(lean, lean + kLean, static_cast<int>(li)) != lean + kLean)
      continue;
    Group& gr = s.groups[L.lean_group];
    if (gr.rc == Recompute::full) continue;  // the leanest activations too: the score's order holds
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
    // (A ring under FSDP2 only never offloads the optimizer alone: framework.h ring_fsdp2_error.)
    const bool z2 = (base.zero == 2 || (L.dp == 1 && base.zero == 0)) && ms.offload && (ms.zero_stages & 4u) &&
                    ring_fsdp2_error(s.train.framework, resolved_cp_scheme(s.train), L.cp, s.train.attention, true,
                                     false).message.empty();
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

}  // namespace trainfit::planner_search
