// trainfit core — the planner's phase 1: the parallel layouts a search tries on one node count (TP, PP, CP, VP
// and EP degrees), each with its micro-batch candidates and its (ZeRO, recompute) groups.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "estimate/planner_search.h"
#include "trainfit/catalog/framework.h"

namespace trainfit::planner_search {
namespace {

// Candidate micro-batches for `per_replica` sequences per data-parallel rank: powers of two that divide it,
// plus the whole per-replica batch (<= 256), ascending.
void micro_batches(int64_t per_replica, std::vector<int64_t>& out) {
  for (int64_t b = 1; b <= per_replica && b <= 256; b *= 2)
    if (per_replica % b == 0) out.push_back(b);
  if (per_replica <= 256 && (out.empty() || out.back() != per_replica)) out.push_back(per_replica);
}

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
// with pipeline parallelism (Megatron's distributed optimizer is ZeRO-1 there). Context parallelism without PP
// tries every stage, the state sharded over the dp x cp ranks: DeepSpeed-Ulysses / ALST run under ZeRO-3 (Jacobs
// et al. 2023 §3.3), and Megatron-FSDP shards over the same group (Megatron-LM docs/user-guide/features/
// megatron_fsdp.md: "both data-parallel and context-parallel ranks are used for sharding"). Then only the stages
// the framework runs are kept (when none of the candidates is one, its own: DDP, FSDP, ...), and a dropped one is
// named in the why-not.
int zero_candidates(Searcher& s, int tp, int dp, int pp, int cp, int ep, bool fixed, int zeros[4]) {
  const TrainConfig& train = s.train;
  int n_z = 0;
  if (fixed) {
    zeros[n_z++] = train.parallel.zero;
  } else if (dp * cp == 1) {
    zeros[n_z++] = 0;
  } else if (pp > 1) {  // Megatron's distributed optimizer (ZeRO-1) with PP
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
  // Ring context parallelism a framework runs under FSDP2 only (framework.h ring_cp_fsdp2): ZeRO-2 or 3, the rule
  // framework_layout_error refuses a fixed layout by.
  if (!fixed && cp > 1 && resolved_cp_scheme(train) == CpScheme::ring &&
      framework_profile(train.framework).ring_cp_fsdp2) {
    int n = 0;
    for (int i = 0; i < kept; ++i)
      if (zeros[i] >= 2) zeros[n++] = zeros[i];
    kept = n;
  }
  // Expert parallelism a framework takes from its FSDP ranks (framework.h ep_from_fsdp): the stages it cannot launch
  // with this EP go (a fixed layout was checked with the query).
  if (!fixed && ep > 1 && framework_profile(train.framework).method(train.method).ep_from_fsdp) {
    int n = 0;
    for (int i = 0; i < kept; ++i)
      if (zeros[i] == 3 || ep_fits_fsdp_ranks(tp, cp, dp, zeros[i], ep)) zeros[n++] = zeros[i];
    kept = n;
  }
  // A stage the framework does not run is named where nothing fits (planner_report.cpp why_not); the layout itself
  // is still planned with the stages it runs, so it is not counted as skipped.
  if (dropped >= 0 && s.skipped.empty())
    s.skipped = framework_layout_error(train.framework, train.method, 1, 1, 1, 1, dropped, false);
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
    if (s.skipped_layout.empty()) s.skipped_layout = why;
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
  // A framework that keeps the experts whole on every TP rank (framework.h moe_experts_whole_per_tp_rank) runs ETP 1
  // where the layout leaves it to TP.
  const bool whole_experts = s.model.num_experts > 1 && framework_profile(train.framework).moe_experts_whole_per_tp_rank;
  int eps[10][2], n_ep = 0;
  if (fixed) {
    eps[n_ep][0] = std::max(1, train.parallel.ep);
    eps[n_ep++][1] = train.parallel.etp == 0 && whole_experts ? 1 : train.parallel.etp;
  } else {
    eps[n_ep][0] = 1;
    eps[n_ep++][1] = whole_experts ? 1 : 0;
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
  // The all-to-all overlap the job asks for runs only where Megatron-Core accepts it (framework.h
  // a2a_overlap_layout_error): the search keeps the EP variants, virtual stages and recompute modes it allows (a
  // fixed layout was checked with the query).
  Recompute rc_kept[4];
  if (train.moe_a2a_overlap && !fixed) {
    int n = 0;
    for (int i = 0; i < n_rc && n < 4; ++i)
      if (rc_list[i] != Recompute::full) rc_kept[n++] = rc_list[i];
    rc_list = rc_kept;
    n_rc = n;
  }
  for (int e = 0; e < n_ep; ++e) {
    if (!fixed && !a2a_overlap_layout_error(train, eps[e][0], pp, vp).empty()) continue;
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
    const int n_z = zero_candidates(s, tp, dp, pp, cp, L.ep, fixed, zeros);
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
    // heaviest stage sets memory and pace: memory.cpp, planner_step.cpp step_time).
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
  if (fixed || !s.cp_only) cps[n_cp++] = fixed ? std::max(1, train.parallel.cp) : 1;
  if (!fixed && searches_cp(train)) {
    for (int cp = 2; cp <= 8 && cp <= total; cp *= 2)
      if (train.seq_len % cp == 0) cps[n_cp++] = cp;
  }
  return n_cp;
}

}  // namespace

bool searches_cp(const TrainConfig& train) {
  return train.seq_len >= std::min(kCpMinSeq, framework_profile(train.framework).cp_search_min_seq);
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

}  // namespace trainfit::planner_search
