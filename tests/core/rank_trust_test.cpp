// Tests of a ranking a user can trust by default: doubtful prices held back (one switch shows them),
// the dev-cycle sort, and `cost` naming the plan it costs per pricing option.
#include <gtest/gtest.h>

#include "facade_helpers.h"

#include <nlohmann/json.hpp>

#include "trainfit/facade/api.h"
#include "trainfit/storage/bundled.h"
#include "trainfit/query/query.h"
#include "trainfit/market/rank.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {
namespace {

using json = nlohmann::json;

// One 1x L40S offer (AWS g6e.xlarge shape) of provider `prov`, with both prices.
Offer l40s_offer(const Snapshot& s, const std::string& id, int prov, double od, double spot) {
  Offer o;
  o.id = id;
  o.provider = prov;
  o.instance_type = "g6e.xlarge";
  o.region = "r";
  o.gpu = s.find_gpu("l40s");
  o.gpu_count = 1;
  o.vcpus = 4;
  o.host_ram_bytes = 32 * kGiB;
  o.price_usd_per_h = od;
  o.spot_usd_per_h = spot;
  o.capture_date = "2026-09-20";
  return o;
}

const RankRow* row_of(const Snapshot& s, const RankResult& r, const std::string& id, PricingOption opt) {
  for (const RankRow& row : r.rows)
    if (s.offers[row.offer].id == id && row.option == opt) return &row;
  return nullptr;
}

}  // namespace

TEST(DoubtfulPrices, AreHeldBackByDefaultWithTheirFlagAndShownOnRequest) {
  Snapshot s = test::bundled_copy();
  const int aws = s.find_provider("aws");
  Offer plain = l40s_offer(s, "t/plain/r", aws, 2.0, 1.0);
  Offer unverified = l40s_offer(s, "t/unverified/r", aws, 1.0, 0.5);
  unverified.flags = kFlagUnverifiedPrice;
  Offer deep = l40s_offer(s, "t/deep/r", aws, 1.5, 0.1);
  deep.flags = kFlagDeepSpotDiscount;
  Offer outlier = l40s_offer(s, "t/outlier/r", aws, 1.2, -1);
  outlier.flags = kFlagPriceOutlier;
  s.offers = {plain, unverified, deep, outlier};

  Result<RankResult> r = rank_offers(default_query(), s);
  ASSERT_TRUE(r.ok());
  // unverified_price holds back both options; deep_spot_discount only the spot row; price_outlier only marks.
  EXPECT_EQ(row_of(s, *r, "t/unverified/r", PricingOption::on_demand)->state, RowState::held_back);
  EXPECT_EQ(row_of(s, *r, "t/unverified/r", PricingOption::spot)->state, RowState::held_back);
  EXPECT_EQ(row_of(s, *r, "t/deep/r", PricingOption::spot)->state, RowState::held_back);
  EXPECT_EQ(row_of(s, *r, "t/deep/r", PricingOption::on_demand)->state, RowState::ranked);
  EXPECT_EQ(row_of(s, *r, "t/outlier/r", PricingOption::on_demand)->state, RowState::ranked);
  EXPECT_EQ(r->held_back, 3);
  EXPECT_NE(row_of(s, *r, "t/deep/r", PricingOption::spot)->why_not.find("deep_spot_discount"), std::string::npos);
  EXPECT_EQ(s.offers[r->rows[0].offer].id, "t/plain/r");  // the cheapest trusted price leads

  Query all = test::query_of(R"({"filters": {"show_doubtful": true}})");
  Result<RankResult> shown = rank_offers(all, s);
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ(shown->held_back, 0);
  EXPECT_EQ(shown->ranked, 7);
  EXPECT_EQ(s.offers[shown->rows[0].offer].id, "t/deep/r");  // the 90%-off spot row, now ranked first
  EXPECT_EQ(shown->rows[0].option, PricingOption::spot);
}

TEST(DoubtfulPrices, RankDocumentCountsHeldBackRowsByReasonAndShowsFlags) {
  Snapshot s = test::bundled_copy();
  const int aws = s.find_provider("aws");
  Offer a = l40s_offer(s, "t/a/r", aws, 2.0, 2.5);
  a.flags = kFlagSpotAboveOnDemand;
  Offer b = l40s_offer(s, "t/b/r", aws, 1.0, 0.1);
  b.flags = kFlagDeepSpotDiscount | kFlagStale;
  s.offers = {a, b};
  const json doc = json::parse(api_call("rank", "{}", &s));
  ASSERT_TRUE(doc["ok"].get<bool>());
  EXPECT_EQ(doc["counts"]["held_back"], 3);
  EXPECT_EQ(doc["held_back"]["spot_above_on_demand"], 2);
  EXPECT_EQ(doc["held_back"]["deep_spot_discount"], 1);
  ASSERT_EQ(doc["rows"].size(), 1u);  // b on demand: stale is marked, not held back
  EXPECT_EQ(doc["rows"][0]["flags"], json::array({"deep_spot_discount", "stale"}));
}

TEST(DoubtfulPrices, ShowDoubtfulIsOneQueryKeyInJsonAndHash) {
  Result<Query> h = parse_query_hash("#filters.show_doubtful=true");
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->filters.show_doubtful);
  EXPECT_EQ(query_to_hash(*h), "filters.show_doubtful=true");
  EXPECT_FALSE(default_query().filters.show_doubtful);
}

// The seed's example through the ranking: 20 runs of 10 minutes at $12/h cost $240 under hourly billing and $40
// under per-second billing (provisioning free and instant here, so only the rounding differs).
TEST(DevCycleSort, RanksPerSecondBillingAboveHourlyForShortRuns) {
  Snapshot s = test::bundled_copy();
  Provider hourly = s.providers[s.find_provider("aws")];
  hourly.id = "hourly";
  hourly.billing = BillingRule{"", 3600, 3600, "", "test"};
  hourly.billing_exceptions.clear();
  hourly.provision_s = 0;
  hourly.bills_provisioning = false;
  Provider per_second = hourly;
  per_second.id = "per-second";
  per_second.billing = BillingRule{"", 1, 0, "", "test"};
  s.providers = {hourly, per_second};
  // The hourly offer ($8/h) is cheaper for the long training job, so only the dev-cycle sort puts it second.
  s.offers = {l40s_offer(s, "hourly/x/r", 0, 8, -1), l40s_offer(s, "per-second/x/r", 1, 12, -1)};
  Query q = test::query_of(R"({"sort": "dev_cycle", "dataset": {"tokens": 1e9}, "cost": {"dev_runs": 20, "dev_run_minutes": 10}})");
  Result<RankResult> r = rank_offers(q, s);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->ranked, 2);
  EXPECT_EQ(s.offers[r->rows[0].offer].id, "per-second/x/r");
  EXPECT_NEAR(r->rows[0].dev_cycle_usd, 40, 1e-9);
  EXPECT_NEAR(r->rows[1].dev_cycle_usd, 20 * 8, 1e-9);

  Query by_cost = q;
  by_cost.sort = SortKey::total_cost;
  Result<RankResult> c = rank_offers(by_cost, s);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(s.offers[c->rows[0].offer].id, "hourly/x/r");

  const json doc = json::parse(api_call("rank", R"({"sort":"dev_cycle","dataset":{"tokens":1e9},"cost":{"dev_runs":20,"dev_run_minutes":10}})", &s));
  EXPECT_EQ(doc["rows"][0]["offer"], "per-second/x/r");
  EXPECT_EQ(doc["rows"][0]["dev_cycle_usd"], 40);
}

TEST(DevCycleSort, NeedsRunsAndMinutesAndNamesTheMissingKey) {
  Result<Query> q = parse_query_json(R"({"sort": "dev_cycle"})");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().field, "cost.dev_runs");
  q = parse_query_hash("#sort=dev_cycle&cost.dev_runs=40");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.error().field, "cost.dev_run_minutes");
  q = parse_query_hash("#sort=dev_cycle&cost.dev_runs=40&cost.dev_run_minutes=10");
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->sort, SortKey::dev_cycle);
}

// `cost` used to print the planner's fastest plan (8 nodes) and then cost the node count the ranking chose:
// now each pricing option carries the plan it costs, named with its node count.
TEST(CostDocument, EachPricingOptionCarriesThePlanItCosts) {
  const Snapshot s = test::bundled_copy();
  const json doc = json::parse(api_call(
      "cost", R"({"model":"llama-3.1-8b","method":"lora","target":{"offer":"aws/p5.48xlarge/us-east-1"},
                  "cost":{"dev_runs":20,"dev_run_minutes":10}})", &s));
  ASSERT_TRUE(doc["ok"].get<bool>()) << doc.dump();
  ASSERT_FALSE(doc["costs"].empty());
  for (const json& c : doc["costs"]) {
    ASSERT_TRUE(c.contains("plan")) << c.dump();
    EXPECT_EQ(c["plan"]["nodes"], c["nodes"]);
    EXPECT_EQ(c["cost"]["billing"]["segments"].is_number(), true);
    // Development runs are not booked as reservations: the reserved option has no dev-cycle figure.
    if (c["option"] == "reserved") {
      EXPECT_FALSE(c.contains("dev_cycle"));
      continue;
    }
    ASSERT_TRUE(c.contains("dev_cycle"));
    EXPECT_GT(c["dev_cycle"]["cost_usd"].get<double>(), 0);
  }
}

// Dates shown are the prices' capture dates (per provider where they differ) and their age, not the build date.
TEST(PriceDates, ListCaptureDatesPerProviderWithTheirAge) {
  Snapshot s = test::bundled_copy();
  const int aws = s.find_provider("aws"), lambda = s.find_provider("lambda");
  Offer a = l40s_offer(s, "t/a/r", aws, 2.0, -1);
  Offer b = l40s_offer(s, "t/b/r", lambda, 2.0, -1);
  b.capture_date = "2026-10-01";
  s.offers = {b, a};
  s.judged_on = "2026-11-29";
  const PriceDates d = price_dates(s);
  ASSERT_EQ(d.dates.size(), 2u);
  EXPECT_EQ(d.dates[0].date, "2026-09-20");
  ASSERT_TRUE(d.age_days.has_value());
  EXPECT_EQ(*d.age_days, 70);  // 2026-09-20 to 2026-11-29
  EXPECT_EQ(price_dates_text(d), "2026-09-20 (aws), 2026-10-01 (lambda)");
}

TEST(PriceDates, StalePricesCarryTheRefreshCommandInTheRankDocument) {
  SnapshotLoadOptions opt;
  opt.today = "2027-06-01";  // over 90 days after the bundled capture date
  Result<Snapshot> s = load_snapshot(embedded_snapshot_json(), opt, nullptr);
  ASSERT_TRUE(s.ok());
  const json doc = json::parse(api_call("rank", R"({"top": 1})", &*s));
  const json& p = doc["prices"];
  EXPECT_TRUE(p["stale"].get<bool>());
  EXPECT_EQ(p["refresh"], kRefreshPricesCommand);
  EXPECT_GT(p["age_days"].get<int>(), 90);
  EXPECT_NE(p["captured"][0]["date"], s->created);  // the capture date, not the build date

  const Snapshot unjudged = test::bundled_copy();  // loaded without a date: no age, not stale
  const json fresh = json::parse(api_call("rank", R"({"top": 1})", &unjudged));
  EXPECT_FALSE(fresh["prices"].contains("age_days"));
  EXPECT_FALSE(fresh["prices"]["stale"].get<bool>());
  EXPECT_FALSE(fresh["prices"].contains("refresh"));
}

}  // namespace trainfit
