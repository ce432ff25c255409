// trainfit — PlanCache (rank.h): re-ranking with cached plans gives exactly the uncached result, and only a
// change of the job (model, setup, the dataset's bytes per token) re-runs the planner.
#include <gtest/gtest.h>

#include "trainfit/storage/bundled.h"
#include "trainfit/query/query.h"
#include "trainfit/market/rank.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {
namespace {

const Snapshot& bundled() {
  static const Snapshot s = *load_snapshot(embedded_snapshot_json());
  return s;
}

void expect_same_rows(const RankResult& a, const RankResult& b) {
  ASSERT_EQ(a.rows.size(), b.rows.size());
  EXPECT_EQ(a.ranked, b.ranked);
  for (size_t i = 0; i < a.rows.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(a.rows[i].offer, b.rows[i].offer);
    EXPECT_EQ(a.rows[i].option, b.rows[i].option);
    EXPECT_EQ(a.rows[i].state, b.rows[i].state);
    EXPECT_EQ(a.rows[i].nodes, b.rows[i].nodes);
    EXPECT_EQ(a.rows[i].total_usd, b.rows[i].total_usd);
    EXPECT_EQ(a.rows[i].wall_s, b.rows[i].wall_s);
    EXPECT_EQ(a.rows[i].pareto, b.rows[i].pareto);
    EXPECT_EQ(a.rows[i].why_not, b.rows[i].why_not);
  }
}

TEST(PlanCache, FilterAndSortChangesReuseEveryPlanAndMatchTheUncachedRanking) {
  PlanCache cache;
  Query q = default_query();
  Result<RankResult> first = rank_offers(q, bundled(), &cache);
  ASSERT_TRUE(first.ok());
  EXPECT_GT(first->shapes_planned, 0);
  EXPECT_EQ(first->shapes_cached, 0);

  q.sort = SortKey::time;
  q.filters.max_usd_per_h = 20;
  q.cost.egress_GB = 100;
  Result<RankResult> cached = rank_offers(q, bundled(), &cache);
  Result<RankResult> fresh = rank_offers(q, bundled());
  ASSERT_TRUE(cached.ok() && fresh.ok());
  EXPECT_EQ(cached->shapes_planned, 0) << "no input the planner reads changed";
  EXPECT_GT(cached->shapes_cached, 0);
  expect_same_rows(*cached, *fresh);
}

// The dataset's size reaches a plan's totals only (tokens, steps, time): a re-rank after it changes reuses every
// plan, with those totals redone (set_dataset_totals), and is the uncached ranking of the new size exactly: rows,
// and every shape's plan document (the plan verb's JSON) byte for byte.
TEST(PlanCache, ChangingTheDatasetSizeReusesEveryPlanWithItsTotalsRedone) {
  PlanCache cache;
  Query q = default_query();
  ASSERT_TRUE(rank_offers(q, bundled(), &cache).ok());
  auto padded_examples = [](Query& x) {
    x.dataset.tokens = 0;
    x.dataset.examples = 2e5;
    x.dataset.avg_tokens_per_example = 700;
    x.dataset.packing = false;
  };
  for (const auto& change : {+[](Query& x) { x.dataset.tokens *= 4; }, +[](Query& x) { x.dataset.epochs = 3; },
                             +padded_examples}) {
    change(q);
    Result<RankResult> cached = rank_offers(q, bundled(), &cache);
    Result<RankResult> fresh = rank_offers(q, bundled());
    ASSERT_TRUE(cached.ok() && fresh.ok());
    EXPECT_EQ(cached->shapes_planned, 0) << "the search reads no dataset size";
    EXPECT_EQ(cached->shapes_cached, fresh->shapes_planned);
    expect_same_rows(*cached, *fresh);
    ASSERT_EQ(cached->shapes.size(), fresh->shapes.size());
    for (size_t i = 0; i < fresh->shapes.size(); ++i) {
      const PlanResult& a = cached->shapes[i].plan();
      const PlanResult& b = fresh->shapes[i].plan();
      EXPECT_EQ(a.tokens.processed, b.tokens.processed);
      EXPECT_EQ(a.steps, b.steps);
      EXPECT_EQ(a.time_s, b.time_s);
      EXPECT_EQ(a.time_high_s, b.time_high_s);
      EXPECT_EQ(a.data.needed_Bps, b.data.needed_Bps);
    }
  }
  // Its bytes per token decide whether storage bounds the pace: a change re-plans.
  q.dataset.bytes_per_token = 2;
  Result<RankResult> replanned = rank_offers(q, bundled(), &cache);
  ASSERT_TRUE(replanned.ok());
  EXPECT_EQ(replanned->shapes_cached, 0);
}

TEST(PlanCache, ChangingTheModelReplans) {
  PlanCache cache;
  ASSERT_TRUE(rank_offers(default_query(), bundled(), &cache).ok());

  Result<Query> other = parse_query_json(R"({"model":"qwen2.5-7b"})");
  ASSERT_TRUE(other.ok());
  Result<RankResult> replanned = rank_offers(*other, bundled(), &cache);
  ASSERT_TRUE(replanned.ok());
  EXPECT_EQ(replanned->shapes_cached, 0);
  expect_same_rows(*replanned, *rank_offers(*other, bundled()));
}

TEST(PlanCache, LoweringMaxNodesIsANewShapeNotAStalePlan) {
  PlanCache cache;
  Query q = default_query();
  ASSERT_TRUE(rank_offers(q, bundled(), &cache).ok());
  q.filters.max_nodes = 1;
  Result<RankResult> cached = rank_offers(q, bundled(), &cache);
  ASSERT_TRUE(cached.ok());
  for (const RankRow& row : cached->rows) EXPECT_LE(row.nodes, 1);
  expect_same_rows(*cached, *rank_offers(q, bundled()));
}

TEST(PlanCache, AnEfficiencyOverrideOrAChangedGpuTableReplans) {
  PlanCache cache;
  Query q = default_query();
  ASSERT_TRUE(rank_offers(q, bundled(), &cache).ok());
  q.mfu = 0.2;  // the efficiency override: every step time changes
  Result<RankResult> mfu = rank_offers(q, bundled(), &cache);
  ASSERT_TRUE(mfu.ok());
  EXPECT_EQ(mfu->shapes_cached, 0);
  expect_same_rows(*mfu, *rank_offers(q, bundled()));

  // The same query on a snapshot whose GPUs are half as fast: shapes are found by GPU index, so the plans made
  // with the old table must not be served.
  Snapshot slower = bundled();
  for (GpuSpec& g : slower.gpus) {
    g.tflops_bf16 /= 2;
    g.tflops_fp16 /= 2;
  }
  Result<RankResult> replanned = rank_offers(q, slower, &cache);
  ASSERT_TRUE(replanned.ok());
  EXPECT_EQ(replanned->shapes_cached, 0);
  expect_same_rows(*replanned, *rank_offers(q, slower));
}

}  // namespace
}  // namespace trainfit
