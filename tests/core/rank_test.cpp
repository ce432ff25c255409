// Tests of the ranking engine: the seed's central claim, filters with reasons, determinism, Pareto frontier.
#include <gtest/gtest.h>

#include "facade_helpers.h"

#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "trainfit/facade/api.h"
#include "trainfit/storage/bundled.h"
#include "trainfit/query/query.h"
#include "trainfit/market/rank.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {
namespace {

// Two offers on the bundled GPU specs and AWS billing: a dear 8x H100 SXM NVSwitch node (p5.48xlarge) and a
// cheap 4x L40S PCIe instance with 384 GiB of host RAM (g6e.12xlarge), where a 14B full fine-tune only fits
// by offloading optimizer states to the CPU.
Snapshot two_offers(double big_usd_per_h, double cheap_usd_per_h) {
  Snapshot s = test::bundled_copy();
  Offer big;
  big.id = "test/8xh100/r";
  big.provider = s.find_provider("aws");
  big.instance_type = "p5.48xlarge";
  big.region = "r";
  big.gpu = s.find_gpu("h100-sxm");
  big.gpu_count = 8;
  big.host_ram_bytes = 2048 * kGiB;
  big.intra_link = LinkClass::nvswitch;
  big.intra_link_GBps = 900;
  big.inter_net = NetKind::efa;
  big.inter_net_Gbps = 3200;
  big.price_usd_per_h = big_usd_per_h;
  big.max_nodes = 1;
  Offer cheap = big;
  cheap.id = "test/4xl40s/r";
  cheap.instance_type = "g6e.12xlarge";
  cheap.gpu = s.find_gpu("l40s");
  cheap.gpu_count = 4;
  cheap.host_ram_bytes = 384 * kGiB;
  cheap.intra_link = LinkClass::pcie;
  cheap.intra_link_GBps = 64;
  cheap.inter_net = NetKind::ethernet;
  cheap.inter_net_Gbps = 100;
  cheap.price_usd_per_h = cheap_usd_per_h;
  s.offers = {big, cheap};
  return s;
}

}  // namespace

// The seed's point, as a test: a dearer instance with more VRAM and NVLink finishes sooner AND costs less in
// total than a cheap card that can only run the job by offloading to the CPU over PCIe.
// Prices: AWS p5.48xlarge $55.04/h and g6e.12xlarge $10.49264/h on demand (bundled snapshot, us-east-1).
TEST(Ranking, DearerNvlinkNodeFinishesSoonerAndCheaperThanCheapCardForcedToOffload) {
  const Snapshot s = two_offers(55.04, 10.49264);
  ASSERT_GE(s.offers[0].gpu, 0);
  ASSERT_GE(s.offers[1].gpu, 0);
  const Query q = test::query_of(R"({"model":"qwen2.5-14b","method":"full","optimizer":"adamw","seq_len":2048,
                            "global_batch":64,"dataset":{"tokens":1e9},"filters":{"pricing":"on-demand"}})");
  Result<RankResult> r = rank_offers(q, s);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->ranked, 2) << "both offers must run the job";
  const RankRow& first = r->rows[0];
  const RankRow& second = r->rows[1];
  EXPECT_EQ(s.offers[first.offer].id, "test/8xh100/r");
  EXPECT_GT(first.price_usd_per_h, 5 * second.price_usd_per_h) << "the winner is the far dearer instance";
  EXPECT_LT(first.total_usd, second.total_usd);
  EXPECT_LT(first.wall_s * 5, second.wall_s) << "the NVLink node should be more than 5x faster";
  const Plan& cheap_plan = r->shapes[second.shape].plan().by_nodes[second.plan_index];
  EXPECT_TRUE(cheap_plan.layout.offload_optimizer) << plan_summary(cheap_plan);
  EXPECT_GT(cheap_plan.step.offload_s, 0);
}

TEST(Ranking, FilteredRowsKeepTheirReason) {
  const Snapshot s = test::bundled_copy();
  const Query q = test::query_of(R"({"filters":{"providers":["lambda"],"min_vram_GiB":70}})");
  Result<RankResult> r = rank_offers(q, s);
  ASSERT_TRUE(r.ok());
  ASSERT_GT(r->ranked, 0);
  int filtered = 0;
  for (const auto& row : r->rows) {
    if (row.state == RowState::ranked) {
      EXPECT_EQ(s.providers[s.offers[row.offer].provider].id, "lambda");
      EXPECT_GE(s.gpus[s.offers[row.offer].gpu].memory_bytes, 70 * kGiB);
    } else if (row.state == RowState::filtered) {
      ++filtered;
      EXPECT_FALSE(row.why_not.empty());
    }
  }
  EXPECT_GT(filtered, 100);
}

TEST(Ranking, DoesNotFitRowsSayByHowMuch) {
  const Snapshot s = test::bundled_copy();
  const Query q = test::query_of(R"({"model":"llama-3.1-70b","method":"full","filters":{"gpus":["l4"],"max_nodes":1}})");
  Result<RankResult> r = rank_offers(q, s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->ranked, 0);
  bool saw = false;
  for (const auto& row : r->rows)
    // RunPod's 3/5/6/7/9/10-GPU L4 pods get no parallel layout at all (the planner splits by powers of two only);
    // the memory verdict is checked on the others.
    if (const int n = s.offers[row.offer].gpu_count; row.state == RowState::does_not_fit && (n & (n - 1)) == 0) {
      saw = true;
      EXPECT_NE(row.why_not.find("GiB"), std::string::npos) << row.why_not;
    }
  EXPECT_TRUE(saw);
}

TEST(Ranking, RowsAreSortedAndTheParetoFrontierIsNonDominated) {
  const Snapshot s = test::bundled_copy();
  const Query q = test::query_of(R"({"model":"qwen2.5-7b","method":"lora","dataset":{"tokens":3e8}})");
  Result<RankResult> r = rank_offers(q, s);
  ASSERT_TRUE(r.ok());
  ASSERT_GT(r->ranked, 10);
  int pareto = 0;
  for (int i = 0; i < r->ranked; ++i) {
    if (i > 0) {
      EXPECT_LE(r->rows[i - 1].total_usd, r->rows[i].total_usd);
    }
    if (!r->rows[i].pareto) continue;
    ++pareto;
    for (int j = 0; j < r->ranked; ++j) {
      const bool dominates = r->rows[j].wall_s < r->rows[i].wall_s && r->rows[j].total_usd < r->rows[i].total_usd;
      EXPECT_FALSE(dominates) << "row " << j << " dominates frontier row " << i;
    }
  }
  EXPECT_GE(pareto, 2);
  EXPECT_TRUE(r->rows[0].pareto) << "the cheapest row is always on the frontier";
}

// The frontier by its definition, under every sort key: a ranked row is on it when no other ranked row is as cheap
// and comes first in (wall time, cost, place) order. Sorted by cost or by time the ranking finds it by a sweep over
// its rows in order, under the other keys by a sort of its own (rank_sort.cpp mark_pareto); cost and cost per
// million tokens choose the same node counts, so their frontiers are the same rows.
TEST(Ranking, TheParetoFrontierIsTheDefinitionsUnderEverySortKey) {
  const Snapshot s = test::bundled_copy();
  for (const char* text : {R"({"model":"qwen2.5-7b","method":"lora","dataset":{"tokens":3e8}})",
                           R"({"model":"llama-3.1-70b","method":"full","global_batch":64,"dataset":{"tokens":1e9}})"}) {
    std::set<std::pair<std::string, int>> by_cost, by_usd_per_mtok;
    for (const char* sort : {"cost", "time", "usd_per_mtok", "dev_cycle", "cost_under_deadline"}) {
      nlohmann::json j = nlohmann::json::parse(text);
      j["sort"] = sort;
      if (std::string(sort) == "dev_cycle") j["cost"] = {{"dev_runs", 3}, {"dev_run_minutes", 20}};
      const Query q = test::query_of(j.dump().c_str());
      Result<RankResult> r = rank_offers(q, s);
      ASSERT_TRUE(r.ok()) << r.error().to_string();
      const auto& rows = r->rows;
      int marked = 0;
      for (int i = 0; i < r->ranked; ++i) {
        bool dominated = false;
        for (int k = 0; k < r->ranked && !dominated; ++k) {
          const bool first = rows[k].wall_s < rows[i].wall_s ||
                             (rows[k].wall_s == rows[i].wall_s &&
                              (rows[k].total_usd < rows[i].total_usd || (rows[k].total_usd == rows[i].total_usd && k < i)));
          dominated = first && rows[k].total_usd <= rows[i].total_usd;
        }
        EXPECT_EQ(rows[i].pareto, !dominated) << text << " sorted by " << sort << ", row " << i;
        marked += rows[i].pareto;
        const std::pair<std::string, int> id{s.offers[rows[i].offer].id, static_cast<int>(rows[i].option)};
        if (rows[i].pareto && std::string(sort) == "cost") by_cost.insert(id);
        if (rows[i].pareto && std::string(sort) == "usd_per_mtok") by_usd_per_mtok.insert(id);
      }
      EXPECT_GE(marked, 2) << text << " sorted by " << sort;
    }
    EXPECT_EQ(by_cost, by_usd_per_mtok) << text;
  }
}

TEST(Ranking, PlansAreSharedPerInstanceShapeNotPerRegion) {
  const Snapshot s = test::bundled_copy();
  Result<RankResult> r = rank_offers(default_query(), s);
  ASSERT_TRUE(r.ok());
  // A shape includes host RAM and vCPUs (the planner reads them for CPU offload; rank.cpp same_shape): one plan
  // per distinct shape at most, never one per region or per offer. Marketplace catalogs (Vast.ai, Lium) give most
  // of their offers a host of their own, so the ratio to offers is not fixed; the bound is the distinct shapes.
  std::set<std::tuple<int, int, int, double, int, double, int, double, double, double>> shapes;
  for (const Offer& o : s.offers)
    shapes.insert({o.gpu, o.gpu_count, static_cast<int>(o.intra_link), o.intra_link_GBps, static_cast<int>(o.inter_net),
                   o.inter_net_Gbps, o.max_nodes, seller_of(s, o).storage_read_MBps, o.vcpus, o.host_ram_bytes});
  EXPECT_LE(r->shapes_planned, static_cast<int>(shapes.size()));
  EXPECT_LT(shapes.size() * 2, s.offers.size()) << "offers in many regions share a shape";
  EXPECT_GT(r->ranked, 100);
}

// A ranking searches no alternative layouts per shape (kRankAlternatives): its rows depend on the best plan of each
// node count only. The one row whose runners-up are shown (the detail view, the plan verb) is planned again with
// them: same winner and per-node-count plans as the ranking's, plus the alternatives that lost, as `plan` says.
TEST(Ranking, ARowPlannedAgainHasTheRankingsPlanAndTheAlternativesThePlanVerbShows) {
  const Snapshot s = test::bundled_copy();
  const Query q = test::query_of(R"({"model":"llama-3.1-8b","method":"full","global_batch":64,"dataset":{"tokens":1e9}})");
  Result<RankResult> r = rank_offers(q, s);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  int checked = 0, with_alternatives = 0;
  for (const RankRow& row : r->rows) {
    if (row.state != RowState::ranked || row.shape < 0) continue;
    const PlanResult& ranked = r->shapes[row.shape].plan();
    Result<PlanResult> full = plan_offer_row(q, s, row.offer);
    ASSERT_TRUE(full.ok()) << full.error().to_string();
    EXPECT_EQ(plan_summary(full->best), plan_summary(ranked.best)) << s.offers[row.offer].id;
    EXPECT_EQ(full->time_s, ranked.time_s);
    ASSERT_EQ(full->by_nodes.size(), ranked.by_nodes.size());
    for (size_t i = 0; i < ranked.by_nodes.size(); ++i)
      EXPECT_EQ(full->by_nodes[i].tokens_per_s, ranked.by_nodes[i].tokens_per_s);
    EXPECT_GE(full->runners_up.size(), ranked.runners_up.size());
    with_alternatives += full->runners_up.size() > ranked.runners_up.size();
    // The plan verb (api offer_doc) lists the same runners-up, in the same order.
    nlohmann::json pq = nlohmann::json::parse(query_to_json(q));
    pq["target"]["offer"] = s.offers[row.offer].id;
    const nlohmann::json doc = nlohmann::json::parse(api_call("plan", pq.dump(), &s));
    ASSERT_TRUE(doc.value("ok", false)) << doc.dump();
    ASSERT_EQ(doc["plan"]["runners_up"].size(), full->runners_up.size()) << s.offers[row.offer].id;
    for (size_t i = 0; i < full->runners_up.size(); ++i)
      EXPECT_EQ(doc["plan"]["runners_up"][i]["why"], full->runners_up[i].why);
    if (++checked == 12) break;
  }
  EXPECT_EQ(checked, 12);
  EXPECT_GT(with_alternatives, 0) << "multi-GPU rows gain alternative layouts when planned on their own";
  EXPECT_FALSE(plan_offer_row(q, s, -1).ok());
}

// A shared plan is compared field by field with the plan plan_job makes for the offer on its own.
void expect_same_plan(const PlanResult& shared, const PlanResult& own, const std::string& id) {
  EXPECT_EQ(shared.fits, own.fits) << id;
  EXPECT_EQ(shared.verdict, own.verdict) << id;
  EXPECT_EQ(plan_summary(shared.best), plan_summary(own.best)) << id;
  EXPECT_EQ(shared.best.tokens_per_s, own.best.tokens_per_s) << id;
  EXPECT_EQ(shared.time_s, own.time_s) << id;
  EXPECT_EQ(shared.memory.total, own.memory.total) << id;
  EXPECT_EQ(shared.memory.total_high, own.memory.total_high) << id;
  EXPECT_EQ(shared.data.needed_Bps, own.data.needed_Bps) << id;
  EXPECT_EQ(shared.data.storage_Bps, own.data.storage_Bps) << id;
  EXPECT_EQ(shared.data.storage_bound, own.data.storage_bound) << id;
  EXPECT_EQ(shared.why_not, own.why_not) << id;
  EXPECT_EQ(shared.uses_host, own.uses_host) << id;
  ASSERT_EQ(shared.warnings.size(), own.warnings.size()) << id;
  for (size_t i = 0; i < own.warnings.size(); ++i) EXPECT_EQ(shared.warnings[i].message, own.warnings[i].message) << id;
  ASSERT_EQ(shared.runners_up.size(), own.runners_up.size()) << id;
  for (size_t i = 0; i < own.runners_up.size(); ++i) EXPECT_EQ(shared.runners_up[i].why, own.runners_up[i].why) << id;
  ASSERT_EQ(shared.by_nodes.size(), own.by_nodes.size()) << id;
  for (size_t i = 0; i < own.by_nodes.size(); ++i)
    EXPECT_EQ(shared.by_nodes[i].tokens_per_s, own.by_nodes[i].tokens_per_s) << id;
}

// The plan plan_job makes for offer `k` of `s` with the ranking's options.
PlanResult own_plan(const Query& q, const Snapshot& s, int k) {
  const Offer& o = s.offers[k];
  PlanOptions popt;
  popt.storage_read_MBps = seller_of(s, o).storage_read_MBps;
  popt.max_runners_up = 3;
  popt.alternatives = kRankAlternatives;
  popt.require_fits = q.filters.must_fit;
  const int max_nodes = std::max(1, std::min(o.max_nodes, q.filters.max_nodes));
  Result<PlanResult> own = plan_job(q.model, q.train, q.dataset, s.gpus[o.gpu], o, max_nodes, popt);
  EXPECT_TRUE(own.ok()) << own.error().to_string();
  return own ? *own : PlanResult{};
}

// Shapes that differ only in host RAM and vCPUs share one plan when the search tried no CPU offload (the only
// layouts that read those two); the shared plan is the one plan_job gives for the other offer itself.
TEST(Ranking, HostOnlyTwinsShareAPlanUnlessOffloadWasConsidered) {
  auto twin_snapshot = [](double host_GiB, double vcpus) {
    Snapshot s = two_offers(55.04, 10.49264);
    for (int k = 0; k < 2; ++k) {
      Offer twin = s.offers[k];
      twin.id += "-twin";
      twin.region = "r2";
      twin.host_ram_bytes = host_GiB * kGiB;
      twin.vcpus = vcpus;
      s.offers.push_back(twin);
    }
    return s;
  };
  const Snapshot s = twin_snapshot(512, 48);
  const Query lora = test::query_of(R"({"model":"llama-3.1-8b","method":"lora","filters":{"pricing":"on-demand"}})");
  Result<RankResult> r = rank_offers(lora, s);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->shapes_planned, 4);
  EXPECT_EQ(r->shapes_shared, 2) << "an 8B LoRA fits both instance types without offload";
  for (int k = 2; k < 4; ++k) {
    const Offer& o = s.offers[k];
    int sh = -1;
    for (const RankRow& row : r->rows)
      if (row.offer == k) sh = row.shape;
    ASSERT_GE(sh, 0);
    const PlanResult own = own_plan(lora, s, k);
    EXPECT_TRUE(own.fits) << o.id;
    EXPECT_FALSE(own.uses_host);
    expect_same_plan(r->shapes[sh].plan(), own, o.id);
  }
  // A 14B full fine-tune needs CPU offload on the L40S instance: host RAM and vCPUs matter, no sharing there.
  const Query full = test::query_of(R"({"model":"qwen2.5-14b","method":"full","global_batch":64,"dataset":{"tokens":1e9},
                               "filters":{"pricing":"on-demand"}})");
  Result<RankResult> f = rank_offers(full, twin_snapshot(96, 8));
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_EQ(f->shapes_shared, 1) << "only the H100 twin shares";
  for (const ShapePlan& sp : f->shapes)
    if (sp.gpu_count == 4) {
      EXPECT_TRUE(sp.plan().uses_host);
    }
}

// Shapes that differ only in the provider's storage rate are planned each on their own: the report caps a plan's
// tokens/s at the rate (a dataset stored at many bytes per token, an offer whose storage reads 1 MB/s), and every
// node count's plan may carry that cap. Each shape's plan is the one plan_job gives its offer.
TEST(Ranking, StorageRateTwinsArePlannedEachWithItsRate) {
  Snapshot s = two_offers(55.04, 10.49264);
  s.offers.resize(1);
  const int slow = s.find_provider("lambda");
  const int fast = s.find_provider("runpod");
  ASSERT_GE(slow, 0);
  ASSERT_GE(fast, 0);
  s.providers[slow].storage_read_MBps = 1;
  s.providers[fast].storage_read_MBps = 5000;
  s.providers[s.offers[0].provider].storage_read_MBps = 2000;
  for (int prov : {fast, slow}) {
    Offer o = s.offers[0];
    o.provider = prov;
    o.id = "test/8xh100/" + s.providers[prov].id;
    s.offers.push_back(o);
  }
  Query q = test::query_of(R"({"model":"llama-3.1-8b","method":"full","global_batch":64,"dataset":{"tokens":1e9}})");
  q.dataset.bytes_per_token = 4096;  // (no query key: the snapshot's datasets are text)
  Result<RankResult> r = rank_offers(q, s);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->shapes_planned, 3);
  EXPECT_EQ(r->shapes_shared, 0);
  for (const RankRow& row : r->rows) {
    if (row.shape < 0) continue;
    expect_same_plan(r->shapes[row.shape].plan(), own_plan(q, s, row.offer), s.offers[row.offer].id);
  }
  for (const ShapePlan& sp : r->shapes) {
    EXPECT_EQ(sp.plan().data.storage_bound, sp.storage_read_MBps == 1) << sp.storage_read_MBps;
    EXPECT_EQ(sp.plan().data.storage_Bps, sp.storage_read_MBps * 1e6);
  }
}

// Every shape of the bundled market, shared or planned, carries the plan its offers get on their own: dense jobs,
// and a mixture of experts under megatron-core, whose plans merge the reports of its recompute-module variants.
TEST(Ranking, EverySharedPlanIsTheOffersOwn) {
  const Snapshot s = test::bundled_copy();
  for (const char* text : {R"({"model":"llama-3.1-8b","method":"lora"})",
                           R"({"model":"qwen2.5-14b","method":"full","global_batch":64,"dataset":{"tokens":1e9}})",
                           R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","seq_len":4096,
                               "global_batch":256,"dataset":{"tokens":1e9}})"}) {
    const Query q = test::query_of(text);
    Result<RankResult> r = rank_offers(q, s);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_GT(r->shapes_shared, 20) << text;
    std::vector<char> seen(r->shapes.size(), 0);
    int checked = 0;
    for (const RankRow& row : r->rows) {
      if (row.shape < 0 || seen[row.shape]) continue;
      seen[row.shape] = 1;
      ++checked;
      expect_same_plan(r->shapes[row.shape].plan(), own_plan(q, s, row.offer), s.offers[row.offer].id);
    }
    EXPECT_EQ(checked, static_cast<int>(r->shapes.size())) << "every shape is some row's";
  }
}

// Offers of one instance type in regions with the same prices get the same node-count choice; the ranking
// reuses it (rank.cpp keeps the last two) and the rows are the ones costed from scratch.
TEST(Ranking, SamePricedRegionsReuseTheNodeCountChoice) {
  Snapshot s = two_offers(55.04, 10.49264);
  s.offers.resize(1);
  s.offers[0].max_nodes = 4;
  s.offers[0].spot_usd_per_h = 20;
  for (const char* region : {"r2", "r3"}) {
    Offer o = s.offers[0];
    o.id = std::string("test/8xh100/") + region;
    o.region = region;
    s.offers.push_back(o);
  }
  s.offers[2].price_usd_per_h = 60;  // r3: another price, costed again
  const Query q = test::query_of(R"({"model":"llama-3.1-70b","method":"full","dataset":{"tokens":1e9}})");
  Result<RankResult> r = rank_offers(q, s);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_EQ(r->ranked, 6);
  const RankRow* rows[3][2] = {};
  for (const RankRow& row : r->rows) rows[row.offer][static_cast<int>(row.option)] = &row;
  int per_row = 0;  // node counts costed for one row
  for (const Plan& p : r->shapes[rows[0][0]->shape].plan().by_nodes) per_row += p.why.empty() && p.tokens_per_s > 0;
  ASSERT_GT(per_row, 1);
  EXPECT_EQ(r->cost_evaluations, 4 * per_row) << "r2 reuses both of r1's choices; r3's on-demand price differs";
  for (int option = 0; option < 2; ++option) {
    const RankRow& a = *rows[0][option];
    const RankRow& b = *rows[1][option];
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(a.total_usd, b.total_usd);
    EXPECT_EQ(a.total_low_usd, b.total_low_usd);
    EXPECT_EQ(a.wall_s, b.wall_s);
  }
  Snapshot alone = s;  // r2 on its own: costed from scratch
  alone.offers = {s.offers[1]};
  Result<RankResult> fresh = rank_offers(q, alone);
  ASSERT_TRUE(fresh.ok());
  for (const RankRow& row : fresh->rows) {
    const RankRow& shared = *rows[1][static_cast<int>(row.option)];
    EXPECT_EQ(row.total_usd, shared.total_usd);
    EXPECT_EQ(row.total_high_usd, shared.total_high_usd);
    EXPECT_EQ(row.nodes, shared.nodes);
  }
  EXPECT_NE(rows[2][0]->total_usd, rows[0][0]->total_usd);
}

TEST(Ranking, SameQueryAndSnapshotGiveByteIdenticalJson) {
  const Snapshot s = test::bundled_copy();
  const std::string q = R"({"model":"mistral-7b-v0.1","method":"qlora","top":50})";
  const std::string a = api_call("rank", q, &s);
  const std::string b = api_call("rank", q, &s);
  EXPECT_EQ(a, b);
  auto doc = nlohmann::json::parse(a);
  EXPECT_TRUE(doc["ok"].get<bool>());
  EXPECT_EQ(doc["rows"].size(), 50u);
}

TEST(Ranking, DeadlineExcludesSlowOffersWithTheReason) {
  const Snapshot s = test::bundled_copy();
  const Query q = test::query_of(R"({"model":"llama-3.1-8b","method":"full","dataset":{"tokens":2e9},
                            "filters":{"deadline_h":12}})");
  Result<RankResult> r = rank_offers(q, s);
  ASSERT_TRUE(r.ok());
  for (int i = 0; i < r->ranked; ++i) EXPECT_LE(r->rows[i].wall_s, 12 * kHour_s);
  bool saw = false;
  for (const auto& row : r->rows)
    if (row.state == RowState::filtered && row.why_not.rfind("deadline", 0) == 0) saw = true;
  EXPECT_TRUE(saw);
}

TEST(Ranking, SpotRowsCarryABandAroundTheExpectedCost) {
  const Snapshot s = test::bundled_copy();
  const Query q = test::query_of(R"({"model":"llama-3.1-8b","method":"lora","filters":{"pricing":"spot"}})");
  Result<RankResult> r = rank_offers(q, s);
  ASSERT_TRUE(r.ok());
  ASSERT_GT(r->ranked, 0);
  for (int i = 0; i < r->ranked; ++i) {
    const RankRow& row = r->rows[i];
    EXPECT_EQ(row.option, PricingOption::spot);
    EXPECT_LE(row.total_low_usd, row.total_usd);
    EXPECT_GE(row.total_high_usd, row.total_usd);
  }
}

}  // namespace trainfit
