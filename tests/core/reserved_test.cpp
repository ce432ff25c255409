// Reserved capacity: a booking product's whole term is paid (snapshot.h Reservation, billing.h booked_term_s).
// EC2 Capacity Blocks for ML are booked 1 to 14 days in 1-day steps, then 21 to 182 days in 7-day steps, and the
// fee is the effective hourly rate x instances x booked hours (AWS EC2 user guide, "Capacity Blocks for ML",
// capacity-blocks-purchase.html; API_CapacityBlockOffering: upfrontFee). The rate used below, p5.48xlarge
// us-east-1 $41.528/h, is the AWS Capacity Blocks pricing page's as of 2026-07-22 (data/inputs/reservations.json).
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "facade_helpers.h"
#include "trainfit/market/billing.h"
#include "trainfit/market/rank.h"

namespace trainfit {
namespace {

constexpr double kH = 3600, kDay = 86400;

std::vector<TermStep> capacity_block_terms() { return {{14 * kDay, kDay}, {182 * kDay, 7 * kDay}}; }

TEST(Reserved, CapacityBlockDurationsFollowTheBookingSteps) {
  const auto t = capacity_block_terms();
  double n = 0;
  EXPECT_EQ(booked_term_s(1 * kH, t, &n), 1 * kDay);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(booked_term_s(24 * kH, t), 1 * kDay);  // exactly one day books one day
  EXPECT_EQ(booked_term_s(25 * kH, t), 2 * kDay);
  EXPECT_EQ(booked_term_s(14 * kDay, t), 14 * kDay);
  EXPECT_EQ(booked_term_s(14 * kDay + 1, t), 21 * kDay);  // past 14 days: 7-day steps
  EXPECT_EQ(booked_term_s(15 * kDay, t), 21 * kDay);
  EXPECT_EQ(booked_term_s(30 * kDay, t), 35 * kDay);
  EXPECT_EQ(booked_term_s(182 * kDay, t, &n), 182 * kDay);
  EXPECT_EQ(n, 1);
  // Longer than the longest block: consecutive bookings, the rest in the shortest block that covers it.
  EXPECT_EQ(booked_term_s(183 * kDay, t, &n), 183 * kDay);
  EXPECT_EQ(n, 2);
  EXPECT_EQ(booked_term_s(0, t), 0);
  EXPECT_EQ(booked_term_s(-5, t), 0);
  EXPECT_EQ(booked_term_s(NAN, t), 0);
}

TEST(Reserved, BookedTimeNeverShrinksAsTheJobGrows) {
  const auto t = capacity_block_terms();
  double prev = 0;
  for (double h = 0.5; h < 2 * 182 * 24 + 50; h += 0.5) {
    const double b = booked_term_s(h * kH, t);
    ASSERT_GE(b, h * kH) << h;
    ASSERT_GE(b, prev) << h;
    prev = b;
  }
}

// The Capacity Block fee for one p5.48xlarge: rate x booked hours. A job of 1 h pays a day, 25 h two days,
// 15 days pays 21, 30 days pays 35.
TEST(Reserved, JobCostReproducesTheCapacityBlockArithmetic) {
  const auto terms = capacity_block_terms();
  const double rate = 41.528;
  struct Case {
    double job_h, booked_h, fee_usd;
  } cases[] = {{1, 24, 996.672}, {25, 48, 1993.344}, {15 * 24, 21 * 24, 20930.112}, {30 * 24, 35 * 24, 34883.52}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.job_h);
    JobCostInput in;
    in.option = PricingOption::reserved;
    in.reserved_usd_per_h = rate;
    in.terms = &terms;
    in.train_time_s = c.job_h * kH;
    in.provision_s = 0;
    in.checkpoint_bytes = 1;  // one byte at 1 TB/s: no time
    in.checkpoint_write_MBps = in.checkpoint_read_MBps = 1e6;
    Result<CostBreakdown> k = compute_job_cost(in, BillingRule{});
    ASSERT_TRUE(k.ok()) << k.error().to_string();
    EXPECT_NEAR(k->booked_s, c.booked_h * kH, 1e-6);
    EXPECT_NEAR(k->total_usd, c.fee_usd, 1e-6);
    EXPECT_NEAR(k->compute_usd, rate * c.job_h, 1e-3);                        // the hours used
    EXPECT_NEAR(k->rounding_waste_usd, rate * (c.booked_h - c.job_h), 1e-3);  // the idle tail
    // Two instances book two blocks of the same length: twice the fee.
    in.nodes = 2;
    EXPECT_NEAR(compute_job_cost(in, BillingRule{})->total_usd, 2 * c.fee_usd, 1e-6);
  }
}

TEST(Reserved, MissingPriceOrTermsNameTheField) {
  JobCostInput in;
  in.option = PricingOption::reserved;
  in.train_time_s = kH;
  in.checkpoint_bytes = 1;
  in.checkpoint_write_MBps = in.checkpoint_read_MBps = 1;
  EXPECT_EQ(compute_job_cost(in, BillingRule{}).error().field, "reserved_usd_per_h");
  in.reserved_usd_per_h = 10;
  EXPECT_EQ(compute_job_cost(in, BillingRule{}).error().field, "terms");
  const std::vector<TermStep> bad{{kDay, 0}};
  in.terms = &bad;
  EXPECT_EQ(compute_job_cost(in, BillingRule{}).error().field, "terms");
}

// The closed form of reserved_vs_hourly against a scan of job lengths (minute steps over two longest terms).
TEST(Reserved, WhereBookingBeatsHourlyMatchesAScan) {
  const auto t = capacity_block_terms();
  for (double ratio : {0.3, 0.6, 0.7545, 0.95}) {
    SCOPED_TRACE(ratio);
    const double p = 10, r = p * ratio;
    const ReservedVsHourly v = reserved_vs_hourly(r, p, t);
    ASSERT_TRUE(v.comparable);
    EXPECT_DOUBLE_EQ(v.price_ratio, ratio);
    double first = -1, last_loss = 0;
    for (double s = 60; s < 2 * 182 * kDay; s += 60) {
      const bool wins = r * booked_term_s(s, t) < p * s;
      if (wins && first < 0) first = s;
      if (!wins) last_loss = s;
    }
    EXPECT_NEAR(v.first_win_s, first, 60);
    EXPECT_NEAR(v.wins_from_s, last_loss, 60);
  }
  EXPECT_FALSE(reserved_vs_hourly(10, -1, t).comparable);
  EXPECT_LT(reserved_vs_hourly(12, 10, t).wins_from_s, 0);  // dearer than hourly: never wins
}

TEST(Reserved, TermsAreDescribedAsBooked) {
  Reservation r;
  r.terms = capacity_block_terms();
  r.start_time_utc = "11:30";
  r.upfront = true;
  r.max_instances = 64;
  EXPECT_EQ(reservation_terms_text(r),
            "1-day steps up to 14 days, then 7-day steps up to 182 days; starts and ends at 11:30 UTC; paid up front; "
            "not cancellable; up to 64 instances per booking");
  r = Reservation{};
  r.terms = {{8760 * kH, 8760 * kH}};
  EXPECT_EQ(reservation_terms_text(r), "1 year; billed over the term; not cancellable");
}

// The bundled snapshot carries Capacity Block and committed-use prices; a reserved row of a ranking costs its
// booked term on every surface (rank, cost).
TEST(Reserved, RankAndCostAgreeOnACapacityBlockRow) {
  const std::string q =
      R"({"model":"llama-3.1-70b","method":"full","dataset":{"tokens":2e10},"filters":{"pricing":"reserved"},"top":0})";
  const nlohmann::json rank = test::facade("rank", q);
  ASSERT_TRUE(rank["ok"].get<bool>()) << rank.dump().substr(0, 400);
  const nlohmann::json* row = nullptr;
  for (const auto& r : rank["rows"])
    if (r["offer"] == "aws/p5.48xlarge/us-east-1") row = &r;
  ASSERT_NE(row, nullptr);
  EXPECT_EQ((*row)["option"], "reserved");
  EXPECT_EQ((*row)["reservation"], "aws-capacity-blocks");
  EXPECT_DOUBLE_EQ((*row)["price_usd_per_h"].get<double>(), 41.528);
  const nlohmann::json cost = test::facade(
      "cost", R"({"model":"llama-3.1-70b","method":"full","dataset":{"tokens":2e10},)"
              R"("target":{"offer":"aws/p5.48xlarge/us-east-1","pricing":"reserved"}})");
  ASSERT_TRUE(cost["ok"].get<bool>()) << cost.dump().substr(0, 400);
  ASSERT_EQ(cost["costs"].size(), 1u);
  const auto& c = cost["costs"][0];
  EXPECT_EQ(c["nodes"], (*row)["nodes"]);
  EXPECT_DOUBLE_EQ(c["cost"]["total_usd"].get<double>(), (*row)["total_usd"].get<double>());
  const auto& b = c["cost"]["booking"];
  const double wall = c["cost"]["timeline"]["wall_s"].get<double>();
  EXPECT_DOUBLE_EQ(b["booked_s"].get<double>(), booked_term_s(wall, capacity_block_terms()));
  EXPECT_NEAR(b["idle_tail_usd"].get<double>(),
              41.528 * c["nodes"].get<int>() * (b["booked_s"].get<double>() - wall) / kH, 1e-6);
  const auto& rv = cost["comparison"]["reservation"];
  EXPECT_EQ(rv["id"], "aws-capacity-blocks");
  EXPECT_EQ(rv["captured"], "2026-07-22");
  EXPECT_TRUE(rv["vs_on_demand"]["comparable"].get<bool>());
}

// Reserved prices go through the loader's checks like every other field: the error names the pointer.
TEST(Reserved, BadProductsAreRefusedWithTheirPointer) {
  const nlohmann::json good = nlohmann::json::parse(embedded_snapshot_json());
  ASSERT_TRUE(good.contains("reservations"));
  auto refusal = [&](auto change) {
    nlohmann::json d = good;
    change(d["reservations"]);
    Result<Snapshot> s = load_snapshot(d.dump());
    return s.ok() ? std::string("loaded") : s.error().field + ": " + s.error().message;
  };
  EXPECT_NE(refusal([](auto& r) { r[0]["terms"] = nlohmann::json::array(); }).find("/reservations/0/terms"), std::string::npos);
  EXPECT_NE(refusal([](auto& r) { r[0]["terms"][1]["up_to_h"] = 100; }).find("/reservations/0/terms/1/up_to_h"),
            std::string::npos);
  EXPECT_NE(refusal([](auto& r) { r[0]["terms"][0]["increment_h"] = 500; }).find("/reservations/0/terms/0/increment_h"),
            std::string::npos);
  EXPECT_NE(refusal([](auto& r) { r[0]["prices"][0]["usd_per_h"] = -1; }).find("/reservations/0/prices/0/usd_per_h"),
            std::string::npos);
  EXPECT_NE(refusal([](auto& r) { r[0]["provider"] = "nobody"; }).find("/reservations/0/provider"), std::string::npos);
  EXPECT_NE(refusal([](auto& r) { r[1]["id"] = r[0]["id"]; }).find("duplicate reservation id"), std::string::npos);
  // A GCP offer priced by the AWS product: not sold by it.
  EXPECT_NE(refusal([](auto& r) { r[0]["prices"][0]["offer"] = r[1]["prices"][0]["offer"]; }).find("is not sold by aws"),
            std::string::npos);
  // Two products on one offer.
  EXPECT_NE(refusal([](auto& r) { r[0]["prices"].push_back(r[0]["prices"][0]); }).find("already has a reserved price"),
            std::string::npos);
  // An offer the snapshot does not have: a warning, the rest loads.
  nlohmann::json d = good;
  d["reservations"][0]["prices"][0]["offer"] = "aws/p9.96xlarge/us-east-1";
  std::vector<Warning> w;
  Result<Snapshot> s = load_snapshot(d.dump(), &w);
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  bool warned = false;
  for (const Warning& x : w) warned |= x.code == "reservation_without_offer";
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace trainfit
