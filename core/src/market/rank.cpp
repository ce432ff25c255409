// trainfit core — the ranking engine (rank.h).
// Pipeline per query: dataset tokens and checkpoint size once; a plan per instance shape (planner.h); per
// offer and pricing option: filters, the node count that best serves the sort key within the deadline and
// budget, the billed cost (billing.h); then sort, and mark the time/cost Pareto frontier.
// This file holds the driver (rank_offers) and the per-offer step; the stages are in rank_filter.cpp,
// rank_plan.cpp, rank_cost.cpp and rank_sort.cpp (rank_internal.h).
#include "trainfit/market/rank.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "market/rank_internal.h"
#include "trainfit/estimate/memory.h"

namespace trainfit {

namespace rank_detail {

// Both pricing options of offer i: filters, its shape's plan, the node count, the row.
void Ranker::offer(int i) {
  const Offer& o = s.offers[i];
  const Provider& p = seller_of(s, o);  // whose terms bill it (billing.h)
  const std::string offer_reason = offer_filter(f, s, o);
  for (PricingOption option : kPricingOptions) {
    const double price = option_price_usd_per_h(o, option);
    if (price < 0) continue;  // this offer has no such pricing option
    // Built in place: every path below leaves exactly this one row (capacity reserved by rank_offers, no
    // reallocation).
    RankRow& row = r.rows.emplace_back();
    row.offer = i;
    row.option = option;
    row.price_usd_per_h = price;
    if (pre_filter(row, o, offer_reason)) continue;  // filtered rows are not planned: the filter is their reason

    const int sh = shape_for(o, p, shape_max_nodes(o, f, q.target.nodes));
    row.shape = sh;
    const ShapePlan& shape = r.shapes[sh];
    if (!shape.ok) {
      row.state = RowState::unsupported;
      row.why_not = shape.error;
    } else if (!shape.plan().fits) {
      row.state = shape.plan().nodes_unavailable ? RowState::error : RowState::does_not_fit;
      row.why_not = shape.plan().why_not;
    } else {
      place(row, shape, p, o);
    }
  }
}

}  // namespace rank_detail

using rank_detail::gpu_table_key;
using rank_detail::mark_pareto;
using rank_detail::plan_job_query;
using rank_detail::Ranker;
using rank_detail::ranking_train;
using rank_detail::sort_rows;

std::string oldest_ranked_capture(const Snapshot& snapshot, const RankResult& r) {
  const std::string* oldest = nullptr;
  for (const RankRow& row : r.rows) {
    if (row.state != RowState::ranked || row.offer < 0 || row.offer >= static_cast<int>(snapshot.offers.size())) continue;
    const std::string& d = snapshot.offers[static_cast<size_t>(row.offer)].capture_date.str();
    if (!d.empty() && (!oldest || d < *oldest)) oldest = &d;
  }
  return oldest ? *oldest : std::string();
}

const char* row_state_name(RowState s) {
  switch (s) {
    case RowState::ranked: return "ranked";
    case RowState::does_not_fit: return "does_not_fit";
    case RowState::filtered: return "filtered";
    case RowState::no_price: return "no_price";
    case RowState::unsupported: return "unsupported";
    case RowState::error: return "error";
    case RowState::held_back: return "held_back";
  }
  return "?";
}

const PlanResult& ShapePlan::no_plan() {
  static const PlanResult none;
  return none;
}

void PlanCache::clear() {
  has_job_ = false;
  alternatives_ = 0;
  job_ = Query{};
  gpus_key_.clear();
  shapes_.clear();
}

Result<RankResult> rank_offers(const Query& q, const Snapshot& s) { return rank_offers(q, s, nullptr); }

Result<RankResult> rank_offers(const Query& q, const Snapshot& s, PlanCache* cache) {
  return rank_offers(q, s, cache, kRankAlternatives);
}

Result<RankResult> rank_offers(const Query& q, const Snapshot& s, PlanCache* cache, int alternatives) {
  RankResult r;
  Result<DatasetTokens> tok = dataset_tokens(q.dataset, q.train.seq_len);
  if (!tok) return tok.error();
  r.useful_tokens = tok->useful;
  r.processed_tokens = tok->processed;
  // Checkpoint: what a resumable save writes (Megatron/DeepSpeed save model states; LoRA saves the adapter
  // and its optimizer states only).
  MemoryLayout unsharded;
  Result<MemoryBreakdown> states = estimate_memory(q.model, q.train, unsharded);
  if (!states) return states.error();
  r.checkpoint_bytes = q.train.method == Method::full
                           ? states->weights + states->master_weights + states->optimizer_states
                           : states->lora_adapters;
  r.dataset_bytes = q.dataset.size_bytes > 0 ? q.dataset.size_bytes : tok->useful * q.dataset.bytes_per_token;

  const TrainConfig train = ranking_train(q);
  const Filters& f = q.filters;
  // Exactly one row per priced option (Ranker::offer): reserving twice the offers left ~a quarter of a 100k-offer
  // ranking's row vector unused.
  size_t n_rows = 0;
  for (const Offer& o : s.offers)
    for (PricingOption option : kPricingOptions) n_rows += option_price_usd_per_h(o, option) >= 0;
  r.rows.reserve(n_rows);
  // Shapes grow with GPU types, counts and hosts, not with regions (the bundled snapshot's 2,319 offers have 713
  // for an 8B LoRA, its 100k synthetic copy the same). Not reserved for all of them: 1,024 up front moved the
  // 100k-offer heap peak across an emscripten growth step (103 -> 112 MiB, docs/performance.md).
  r.shapes.reserve(std::min<size_t>(s.offers.size(), 256));
  if (cache) {
    Query job = plan_job_query(q);
    std::string gpus = gpu_table_key(s);
    if (!cache->has_job_ || !(job == cache->job_) || gpus != cache->gpus_key_ || alternatives != cache->alternatives_) {
      cache->has_job_ = true;
      cache->alternatives_ = alternatives;
      cache->job_ = std::move(job);
      cache->gpus_key_ = std::move(gpus);
      cache->shapes_.clear();
    }
  }
  Ranker rk{q, s, f, train, *tok, r};
  rk.alternatives = alternatives;
  if (cache) {
    rk.cached = &cache->shapes_;
    rk.hits = &cache->hits_;
    rk.misses = &cache->misses_;
  }
  rk.shapes_of_gpu.resize(s.gpus.size());
  rk.cached_of_gpu.resize(s.gpus.size());
  if (cache)
    for (int k = 0; k < static_cast<int>(cache->shapes_.size()); ++k) {
      const int gpu = cache->shapes_[k].gpu;
      if (gpu >= 0 && gpu < static_cast<int>(s.gpus.size())) rk.cached_of_gpu[gpu].push_back(k);
    }
  for (int i = 0; i < static_cast<int>(s.offers.size()); ++i) rk.offer(i);
  sort_rows(q, s, r);
  mark_pareto(q, r);
  return r;
}

}  // namespace trainfit
