// Availability facts: how a new account gets an offer (snapshot.h AccessFact), and the "only what launches now"
// filter (filters.launchable). AWS: P and G instances need a vCPU quota increase (Service Quotas codes
// L-417A185B "Running On-Demand P instances", L-DB2E81BA "Running On-Demand G and VT instances"; AWS EC2 user
// guide, ec2-resource-limits / using-spot-limits); p5e.48xlarge has no on-demand price and is bought through
// EC2 Capacity Blocks.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "facade_helpers.h"
#include "trainfit/market/rank.h"

namespace trainfit {
namespace {

TEST(Access, EveryOfferHasAFactOrAnExplicitUnknown) {
  const Snapshot& s = test::bundled_snapshot();
  int known = 0;
  for (const Offer& o : s.offers) {
    const AccessFact& a = access_fact(s, o);
    if (a.how == Access::unknown) continue;  // said so: not published
    ++known;
    EXPECT_FALSE(a.source.empty()) << o.id << ": a known fact names its source";
    EXPECT_FALSE(a.date.empty()) << o.id;
  }
  EXPECT_GT(known, 1000);  // AWS, GCP, OCI, Lambda, Nebius, RunPod, Vast, Shadeform, ... carry facts
  // Every AWS and GCP GPU offer has one (their quota rules are published).
  for (const Offer& o : s.offers) {
    const std::string& p = s.providers[static_cast<size_t>(o.provider)].id;
    if (o.via < 0 && (p == "aws" || p == "gcp")) {
      EXPECT_NE(access_fact(s, o).how, Access::unknown) << o.id;
    }
  }
}

TEST(Access, AwsPInstancesNeedTheirQuotaAndP5eIsBooked) {
  const Snapshot& s = test::bundled_snapshot();
  const AccessFact& p5 = access_fact(s, s.offers[static_cast<size_t>(s.find_offer("aws/p5.48xlarge/us-east-1"))]);
  EXPECT_EQ(p5.how, Access::quota_request);
  EXPECT_NE(p5.quota.find("L-417A185B"), std::string::npos) << p5.quota;
  const AccessFact& g5 = access_fact(s, s.offers[static_cast<size_t>(s.find_offer("aws/g5.xlarge/us-east-1"))]);
  EXPECT_NE(g5.quota.find("L-DB2E81BA"), std::string::npos) << g5.quota;
  const AccessFact& p5e = access_fact(s, s.offers[static_cast<size_t>(s.find_offer("aws/p5e.48xlarge/us-east-2"))]);
  EXPECT_EQ(p5e.how, Access::reservation_only);
}

// The filter keeps self-serve on-demand and spot rows only, and every other row says why it is out.
TEST(Access, LaunchableFilterKeepsSelfServeRowsAndNamesTheRest) {
  const nlohmann::json doc = test::facade(
      "rank", R"({"model":"llama-3.1-8b","method":"lora","filters":{"launchable":true,"show_all":true},"top":0})");
  ASSERT_TRUE(doc["ok"].get<bool>());
  EXPECT_TRUE(doc["launchable"].get<bool>());
  int ranked = 0, quota = 0, booked = 0, unknown = 0;
  for (const auto& r : doc["rows"]) {
    if (r["state"] == "ranked") {
      ++ranked;
      EXPECT_EQ(r["access"]["how"], "self_serve") << r["offer"];
      EXPECT_NE(r["option"], "reserved");
      continue;
    }
    const std::string why = r.value("why_not", "");
    quota += why.rfind("needs a quota request", 0) == 0;
    booked += why.rfind("reserved booking", 0) == 0;
    unknown += why == "how to get it is not published";
  }
  EXPECT_GT(ranked, 100);
  EXPECT_GT(quota, 100);    // AWS, GCP, OCI
  EXPECT_GT(booked, 100);   // every reserved row
  EXPECT_GT(unknown, 10);   // providers whose terms are not published: left out, said so
  // The same query without the filter ranks more rows: the filter only removes.
  const nlohmann::json all = test::facade("rank", R"({"model":"llama-3.1-8b","method":"lora","top":0})");
  EXPECT_GT(all["counts"]["ranked"].get<int>(), doc["counts"]["ranked"].get<int>());
}

TEST(Access, ABadAccessKindIsRefusedWithItsPointer) {
  nlohmann::json d = nlohmann::json::parse(embedded_snapshot_json());
  d["providers"][0]["access"]["how"] = "maybe";
  Result<Snapshot> s = load_snapshot(d.dump());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().field, "/providers/0/access/how");
  d = nlohmann::json::parse(embedded_snapshot_json());
  d["providers"][0]["access_exceptions"] = nlohmann::json::array({nlohmann::json{{"how", "self_serve"}}});
  s = load_snapshot(d.dump());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().field, "/providers/0/access_exceptions/0/match");
}

}  // namespace
}  // namespace trainfit
