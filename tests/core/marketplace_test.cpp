// Offers sold through a marketplace (Offer::via, docs/snapshot.md "Marketplaces"): the column survives every
// form of the snapshot, the loader refuses a via that names no provider or the offer's own, the marketplace's
// billing rules bill the row, and a provider filter on the marketplace keeps the rows it sells.
#include <gtest/gtest.h>

#include "facade_helpers.h"

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "trainfit/market/billing.h"
#include "trainfit/storage/bundled.h"
#include "trainfit/query/query.h"
#include "trainfit/market/rank.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {
namespace {

// One 1x H100 SXM offer run by "lambda", twice at the same price: sold directly, billed by the hour, and
// through "runpod" (standing in for a marketplace), billed by the second.
Snapshot direct_and_resold() {
  Snapshot s = test::bundled_copy();
  const int runs = s.find_provider("lambda"), sells = s.find_provider("runpod");
  s.providers[runs].billing = BillingRule{"", 3600, 3600, "hourly", "test"};
  s.providers[runs].billing_exceptions.clear();
  s.providers[sells].billing = BillingRule{"", 1, 0, "per second", "test"};
  s.providers[sells].billing_exceptions.clear();
  Offer o;
  o.id = "lambda/h100/r";
  o.provider = runs;
  o.instance_type = "h100";
  o.region = "r";
  o.gpu = s.find_gpu("h100-sxm");
  o.gpu_count = 1;
  o.price_usd_per_h = 3.0;
  o.capture_date = "2026-12-01";
  Offer resold = o;
  resold.id = "runpod/lambda_h100/r";
  resold.instance_type = "lambda_h100";
  resold.via = sells;
  s.offers = {o, resold};
  return s;
}

std::string json_with_via(const std::string& via) {
  Snapshot s = direct_and_resold();
  nlohmann::json d = nlohmann::json::parse(snapshot_to_json(s));
  const auto& cols = d["offers"]["columns"];
  size_t vc = 0;
  while (vc < cols.size() && cols[vc] != "via") ++vc;
  EXPECT_LT(vc, cols.size()) << "the writer emits a via column";
  d["offers"]["rows"][1][vc] = via;
  return d.dump();
}

}  // namespace

TEST(Marketplace, ViaSurvivesTheJsonAndTheBinaryForms) {
  const Snapshot s = direct_and_resold();
  const std::string text = snapshot_to_json(s);
  Result<Snapshot> back = load_snapshot(text);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->offers[0].via, -1);
  EXPECT_EQ(back->offers[1].via, s.find_provider("runpod"));
  EXPECT_EQ(offer_seller_text(*back, back->offers[1]), "lambda via runpod");
  EXPECT_EQ(offer_seller_text(*back, back->offers[0]), "lambda");
  Result<std::string> packed = pack_snapshot(text);
  ASSERT_TRUE(packed.ok()) << packed.error().to_string();
  Result<Snapshot> bin = load_snapshot_binary(packed.value(), SnapshotLoadOptions{});
  ASSERT_TRUE(bin.ok()) << bin.error().to_string();
  EXPECT_EQ(bin->offers[1].via, back->offers[1].via);
}

TEST(Marketplace, ViaNamingNoProviderOrTheOffersOwnIsRefusedWithItsPointer) {
  SnapshotReport r;
  EXPECT_FALSE(load_snapshot_report(json_with_via("ibm"), SnapshotLoadOptions{}, &r).has_value());
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors[0].message.find("via: unknown provider \"ibm\""), std::string::npos) << r.errors[0].message;
  EXPECT_EQ(r.errors[0].field.rfind("/offers/rows/1/", 0), 0u) << r.errors[0].field;
  SnapshotReport own;
  EXPECT_FALSE(load_snapshot_report(json_with_via("lambda"), SnapshotLoadOptions{}, &own).has_value());
  ASSERT_FALSE(own.errors.empty());
  EXPECT_NE(own.errors[0].message.find("own provider"), std::string::npos) << own.errors[0].message;
}

// 20 runs of 10 minutes at $3/h: hourly billing charges 20 x 1 h = $60 for the direct offer; the marketplace
// bills per second, so the resold row pays for the minutes (plus provisioning), well under half of that.
TEST(Marketplace, TheMarketplacesBillingRulesBillTheRowItSells) {
  const Snapshot s = direct_and_resold();
  EXPECT_EQ(&seller_of(s, s.offers[1]), &s.providers[s.find_provider("runpod")]);
  EXPECT_EQ(&seller_of(s, s.offers[0]), &s.providers[s.find_provider("lambda")]);
  const Query q = test::query_of(R"({"model":"llama-3.2-1b","method":"lora","dataset":{"tokens":1e6},
                            "cost":{"dev_runs":20,"dev_run_minutes":10},"filters":{"show_doubtful":true}})");
  Result<RankResult> r = rank_offers(q, s);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  double direct = -1, resold = -1;
  for (const RankRow& row : r->rows) {
    if (row.state != RowState::ranked) continue;
    (row.offer == 0 ? direct : resold) = row.dev_cycle_usd;
  }
  ASSERT_GT(direct, 0);
  ASSERT_GT(resold, 0);
  EXPECT_NEAR(direct, 60.0, 1e-6);
  EXPECT_LT(resold, direct / 2);
}

TEST(Marketplace, AProviderFilterKeepsTheRowsItRunsAndTheRowsItSells) {
  const Snapshot s = direct_and_resold();
  auto ranked = [&](const char* json) {
    Result<RankResult> r = rank_offers(test::query_of(json), s);
    EXPECT_TRUE(r.ok());
    std::set<std::string> ids;
    for (const RankRow& row : r->rows)
      if (row.state != RowState::filtered) ids.insert(s.offers[row.offer].id);
    return ids;
  };
  EXPECT_EQ(ranked(R"({"model":"llama-3.2-1b","method":"lora","filters":{"providers":["runpod"]}})"),
            std::set<std::string>{"runpod/lambda_h100/r"});
  EXPECT_EQ(ranked(R"({"model":"llama-3.2-1b","method":"lora","filters":{"providers":["lambda"]}})"),
            (std::set<std::string>{"lambda/h100/r", "runpod/lambda_h100/r"}));
}

// A marketplace row reads from its own fields; a row sold directly keeps its instance type. Figures from the
// bundled snapshot's Prime Intellect row datacrunch__8xRTX6000Ada_48GB__80__480 (8 GPUs, 80 vCPUs, 480 GiB RAM)
// and the RTX 6000 Ada's 48 GB datasheet memory (data/inputs/gpus.json).
TEST(Marketplace, AMarketplaceRowIsNamedFromItsOwnFields) {
  const Snapshot& s = test::bundled_snapshot();
  const Offer* raw = nullptr;
  const Offer* direct = nullptr;
  for (const Offer& o : s.offers) {
    if (o.instance_type == "datacrunch__8xRTX6000Ada_48GB__80__480") raw = &o;
    if (o.instance_type == "p5.48xlarge" && o.via < 0) direct = &o;
  }
  ASSERT_TRUE(raw && direct);
  EXPECT_EQ(offer_display_name(s, *raw), "8x RTX 6000 Ada Generation 48 GB, 80 vCPU, 480 GiB RAM");
  EXPECT_EQ(offer_display_name(s, *direct), "p5.48xlarge");
  // A name that carries its memory ("NVIDIA H100 SXM5 80GB") gets no second figure; a field that is 0 is left out.
  Snapshot t = direct_and_resold();
  EXPECT_EQ(offer_display_name(t, t.offers[0]), "h100");
  EXPECT_EQ(offer_display_name(t, t.offers[1]), "1x H100 SXM5 80GB");
  t.offers[1].vcpus = 26;
  t.offers[1].host_ram_bytes = 225.0 * 1073741824.0;
  EXPECT_EQ(offer_display_name(t, t.offers[1]), "1x H100 SXM5 80GB, 26 vCPU, 225 GiB RAM");
  // The JSON carries both: the readable name and the raw instance type.
  const nlohmann::json doc = test::facade("rank", R"({"model":"llama-3.2-1b","method":"lora"})");
  bool seen = false;
  for (const auto& row : doc["rows"])
    if (row.value("instance_type", "") == "datacrunch__8xRTX6000Ada_48GB__80__480") {
      EXPECT_EQ(row.value("name", ""), "8x RTX 6000 Ada Generation 48 GB, 80 vCPU, 480 GiB RAM");
      seen = true;
    }
  EXPECT_TRUE(seen);
}

// A ranking names the oldest capture date among the rows it ranks, not the newest and not the build date.
TEST(Marketplace, TheOldestCaptureDateAmongTheRankedRows) {
  Snapshot s = direct_and_resold();
  s.offers[0].capture_date = "2026-09-20";
  Result<RankResult> r = rank_offers(test::query_of(R"({"model":"llama-3.2-1b","method":"lora"})"), s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(oldest_ranked_capture(s, *r), "2026-09-20");
  // Filtered out, the older row no longer counts.
  r = rank_offers(test::query_of(R"({"model":"llama-3.2-1b","method":"lora","filters":{"providers":["runpod"]}})"), s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(oldest_ranked_capture(s, *r), "2026-12-01");
}

}  // namespace trainfit
