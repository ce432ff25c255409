// Live stock (market/stock.h): the providers' recorded responses (tests/fixtures/stock, built from their API
// documentation) read, saved, applied to the bundled snapshot, and the ranking that marks what has no capacity.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "facade_helpers.h"
#include "trainfit/facade/api.h"
#include "trainfit/market/rank.h"
#include "trainfit/market/stock.h"
#include "trainfit/query/query.h"

namespace trainfit {
namespace {

using json = nlohmann::json;

std::string fixture(const char* name) {
  std::ifstream f(std::string(TRAINFIT_SOURCE_DIR) + "/tests/fixtures/stock/" + name, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

StockReport lambda_report() {
  auto r = parse_stock_response("lambda", fixture("lambda_instance_types.json"), "2026-12-05T01:40:00Z", "recorded");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? r.value() : StockReport{};
}

const OfferStock* find(const std::vector<OfferStock>& v, const Snapshot& s, const std::string& id) {
  for (const auto& st : v)
    if (s.offers[static_cast<size_t>(st.offer)].id == id) return &st;
  return nullptr;
}

TEST(Stock, LambdaResponseListsTypesWithTheirRegions) {
  const StockReport r = lambda_report();
  EXPECT_EQ(r.provider, "lambda");
  ASSERT_EQ(r.entries.size(), 6u);
  int with_capacity = 0;
  for (const auto& e : r.entries) with_capacity += !e.regions.empty();
  EXPECT_EQ(with_capacity, 4);
  // A saved report reads back to the same entries.
  auto back = read_stock_report(stock_report_json(r));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  ASSERT_EQ(back->entries.size(), r.entries.size());
  for (size_t i = 0; i < r.entries.size(); ++i) {
    EXPECT_EQ(back->entries[i].instance_type, r.entries[i].instance_type);
    EXPECT_EQ(back->entries[i].regions, r.entries[i].regions);
  }
  EXPECT_EQ(back->checked_at, r.checked_at);
}

TEST(Stock, AppliedToTheSnapshotFlagsOffersWithoutCapacity) {
  Snapshot s = test::bundled_snapshot();
  const auto applied = apply_stock(s, lambda_report());
  ASSERT_FALSE(applied.empty());
  const auto* in = find(applied, s, "lambda/gpu_1x_h100_pcie/us-east-1");
  const auto* out = find(applied, s, "lambda/gpu_1x_h100_pcie/us-west-2");   // listed, not in this region
  const auto* none = find(applied, s, "lambda/gpu_1x_a10/us-east-1");        // listed, no region has it
  const auto* gone = find(applied, s, "lambda/gpu_8x_v100/us-east-1");       // not listed at all
  ASSERT_TRUE(in && out && none && gone);
  EXPECT_TRUE(in->listed && in->in_stock);
  EXPECT_TRUE(out->listed && !out->in_stock);
  EXPECT_TRUE(none->listed && !none->in_stock);
  EXPECT_FALSE(gone->listed || gone->in_stock);
  auto flags = [&](const char* id) { return s.offers[static_cast<size_t>(s.find_offer(id))].flags; };
  EXPECT_EQ(flags("lambda/gpu_1x_h100_pcie/us-east-1") & kFlagNoLiveStock, 0u);
  EXPECT_NE(flags("lambda/gpu_1x_h100_pcie/us-west-2") & kFlagNoLiveStock, 0u);
  EXPECT_NE(flags("lambda/gpu_8x_v100/us-east-1") & kFlagNoLiveStock, 0u);
  // Other providers' offers are untouched.
  for (const Offer& o : s.offers) {
    if (s.providers[static_cast<size_t>(o.provider)].id != "lambda") {
      EXPECT_EQ(o.flags & kFlagNoLiveStock, 0u) << o.id;
    }
  }

  // The ranking shows the flag on every marked row; "launchable" leaves those rows out with the reason.
  const std::string q = R"({"model":"llama-3.1-8b","method":"lora","top":0,"filters":{"providers":["lambda"])";
  const json all = nlohmann::json::parse(api_call("rank", q + "}}", &s));
  ASSERT_TRUE(all["ok"].get<bool>()) << all.dump().substr(0, 400);
  bool flagged = false;
  for (const auto& row : all["rows"])
    if (row["offer"] == "lambda/gpu_1x_h100_pcie/us-west-2")
      for (const auto& f : row["flags"]) flagged = flagged || f == "no_live_stock";
  EXPECT_TRUE(flagged);
  const json launchable = nlohmann::json::parse(api_call("rank", q + R"(,"launchable":true}})", &s));
  ASSERT_TRUE(launchable["ok"].get<bool>()) << launchable.dump().substr(0, 400);
  for (const auto& row : launchable["rows"]) {
    const std::string id = row["offer"].get<std::string>();
    const int i = s.find_offer(id);
    ASSERT_GE(i, 0);
    EXPECT_EQ(s.offers[static_cast<size_t>(i)].flags & kFlagNoLiveStock, 0u) << id;
  }
  auto lq = parse_query_json(q + R"(,"launchable":true}})");
  ASSERT_TRUE(lq.ok()) << lq.error().to_string();
  auto ranked = rank_offers(*lq, s);
  ASSERT_TRUE(ranked.ok());
  bool said = false;
  for (const RankRow& row : ranked->rows)
    if (s.offers[static_cast<size_t>(row.offer)].id == "lambda/gpu_1x_a10/us-east-1")
      said = said || row.why_not == "no capacity in us-east-1 at the live check (only what launches now selected)";
  EXPECT_TRUE(said);
}

// An offer priced alike in every region (region "any") is in stock when its type has capacity in any region, and
// not when its type is listed with none.
TEST(Stock, AnOfferOfAnyRegionIsInStockWhereverItsTypeHasCapacity) {
  Snapshot s = test::bundled_snapshot();
  const int elsewhere = s.find_offer("lambda/gpu_1x_h100_pcie/us-west-2");  // its type has capacity, not in us-west-2
  const int nowhere = s.find_offer("lambda/gpu_1x_a10/us-east-1");          // its type is listed with no region
  ASSERT_TRUE(elsewhere >= 0 && nowhere >= 0);
  s.offers[static_cast<size_t>(elsewhere)].region = kAnyRegion;
  s.offers[static_cast<size_t>(nowhere)].region = kAnyRegion;
  const auto st = offer_stock(s, lambda_report());
  const auto* any_in = find(st, s, "lambda/gpu_1x_h100_pcie/us-west-2");
  const auto* any_out = find(st, s, "lambda/gpu_1x_a10/us-east-1");
  ASSERT_TRUE(any_in && any_out);
  EXPECT_TRUE(any_in->listed && any_in->in_stock);
  EXPECT_TRUE(any_out->listed && !any_out->in_stock);
}

// An error document from the API and malformed responses are refused with the field and the reason.
TEST(Stock, BadResponsesAreRefusedWithTheFieldAndTheReason) {
  auto err = parse_stock_response("lambda", fixture("lambda_error.json"), "t", "recorded");
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().field, "response.error");
  EXPECT_NE(err.error().message.find("global/invalid-api-key"), std::string::npos);
  struct Bad {
    const char* body;
    const char* field;
  } cases[] = {
      {"", "response"},
      {"[1,2]", "response"},
      {"{\"data\": []}", "response.data"},
      {"{\"data\": {\"gpu_1x_a10\": 3}}", "response.data.gpu_1x_a10"},
      {"{\"data\": {\"gpu_1x_a10\": {}}}", "response.data.gpu_1x_a10.regions_with_capacity_available"},
      {"{\"data\": {\"gpu_1x_a10\": {\"regions_with_capacity_available\": [{\"name\": 7}]}}}",
       "response.data.gpu_1x_a10.regions_with_capacity_available[0].name"},
      {"{\"data\": {\"gpu_1x_a10\": {\"regions_with_capacity_available\": [{\"name\": \"us\\u0001east\"}]}}}",
       "response.data.gpu_1x_a10.regions_with_capacity_available[0].name"},
      {"{\"data\": {\"\": {\"regions_with_capacity_available\": []}}}", "response.data."},
  };
  for (const auto& c : cases) {
    auto r = parse_stock_response("lambda", c.body, "t", "s");
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_EQ(r.error().field, c.field) << c.body;
  }
  EXPECT_EQ(parse_stock_response("aws", "{}", "t", "s").error().field, "provider");
  const std::string long_name(300, 'a');
  EXPECT_FALSE(parse_stock_response("lambda", "{\"data\": {\"" + long_name + "\": {\"regions_with_capacity_available\": []}}}",
                                    "t", "s")
                   .ok());
  // Saved reports: the format, the provider and every entry are checked.
  struct BadSaved {
    const char* text;
    const char* field;
  } saved[] = {
      {"{}", "stock.format"},
      {"{\"format\": \"trainfit-stock-1\", \"provider\": \"x\"}", "stock.provider"},
      {"{\"format\": \"trainfit-stock-1\", \"provider\": \"lambda\"}", "stock.checked_at"},
      {"{\"format\": \"trainfit-stock-1\", \"provider\": \"lambda\", \"checked_at\": \"t\"}", "stock.entries"},
      {"{\"format\": \"trainfit-stock-1\", \"provider\": \"lambda\", \"checked_at\": \"t\", \"entries\": [{}]}",
       "stock.entries[0].instance_type"},
      {"{\"format\": \"trainfit-stock-1\", \"provider\": \"lambda\", \"checked_at\": \"t\", \"entries\": "
       "[{\"instance_type\": \"a\", \"regions\": [\"\"]}]}",
       "stock.entries[0].regions[0]"},
  };
  for (const auto& c : saved) {
    auto r = read_stock_report(c.text);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.error().field, c.field) << c.text;
  }
}

}  // namespace
}  // namespace trainfit
