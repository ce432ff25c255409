// Reserved capacity: a booking product's whole term is paid (snapshot.h Reservation, billing.h booked_term_s).
// EC2 Capacity Blocks for ML are booked 1 to 14 days in 1-day steps, then 21 to 182 days in 7-day steps, and the
// fee is the effective hourly rate x instances x booked hours (AWS EC2 user guide, "Capacity Blocks for ML",
// capacity-blocks-purchase.html; API_CapacityBlockOffering: upfrontFee). The rate used below, p5.48xlarge
// us-east-1 $41.528/h, is the AWS Capacity Blocks pricing page's as of 2026-07-22 (data/inputs/reservations.json).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "facade_helpers.h"
#include "trainfit/market/billing.h"
#include "trainfit/market/rank.h"

namespace trainfit {
namespace {

constexpr double kH = 3600, kDay = 86400;

std::vector<TermStep> capacity_block_terms() { return {{14 * kDay, kDay}, {182 * kDay, 7 * kDay}}; }

// Lambda 1-Click Clusters: 2 weeks to 1 year (taken as 52 weeks), billed in weekly increments, from 16 GPUs (two
// 8-GPU nodes) (https://docs.lambda.ai/public-cloud/billing; https://lambda.ai/pricing, 16-GPU H100 rate $6.16
// per GPU-hour as transcribed on 2026-09-16: $49.28 per 8-GPU node-hour).
std::vector<TermStep> one_click_cluster_terms() { return {{14 * kDay, 14 * kDay}, {364 * kDay, 7 * kDay}}; }

// A job cost on a booking product with no provisioning, staging or checkpoint time: wall time = train time.
JobCostInput reserved_job(double rate, const std::vector<TermStep>* terms, double job_h) {
  JobCostInput in;
  in.option = PricingOption::reserved;
  in.reserved_usd_per_h = rate;
  in.terms = terms;
  in.train_time_s = job_h * kH;
  in.provision_s = 0;
  in.checkpoint_bytes = 1;  // one byte at 1 TB/s: no time
  in.checkpoint_write_MBps = in.checkpoint_read_MBps = 1e6;
  return in;
}

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

// Lambda's 1-Click Clusters: a cluster is booked for at least 2 weeks, then in whole weeks, and holds at least
// 16 GPUs: a job on one 8-GPU node pays two nodes for the whole booking. The fee is the per-GPU rate x 16 GPUs x
// booked hours; the second node and the unused weeks are the idle tail.
TEST(Reserved, JobCostReproducesTheOneClickClusterArithmetic) {
  const auto terms = one_click_cluster_terms();
  const double node_rate = 8 * 6.16;  // $/h per 8-GPU node
  struct Case {
    double job_h, booked_h;
  } cases[] = {{1, 336}, {100, 336}, {336, 336}, {337, 504}, {15 * 24, 504}, {30 * 24, 840}, {6 * 30 * 24, 4368}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.job_h);
    JobCostInput in = reserved_job(node_rate, &terms, c.job_h);
    in.reserved_min_instances = 2;
    Result<CostBreakdown> k = compute_job_cost(in, BillingRule{});
    ASSERT_TRUE(k.ok()) << k.error().to_string();
    EXPECT_NEAR(k->booked_s, c.booked_h * kH, 1e-6);
    EXPECT_EQ(k->booked_instances, 2);
    EXPECT_NEAR(k->total_usd, 6.16 * 16 * c.booked_h, 1e-6);
    EXPECT_NEAR(k->compute_usd, node_rate * c.job_h, 1e-6);                              // one node, the hours used
    EXPECT_NEAR(k->rounding_waste_usd, node_rate * (2 * c.booked_h - c.job_h), 1e-6);  // the idle node and tail
    // Four nodes are above the minimum: four nodes booked.
    in.nodes = 4;
    Result<CostBreakdown> four = compute_job_cost(in, BillingRule{});
    EXPECT_EQ(four->booked_instances, 4);
    EXPECT_NEAR(four->total_usd, 6.16 * 32 * c.booked_h, 1e-6);
  }
  // A job of half a year books 26 weeks (14 days, then 24 weekly steps): 182 days, not 6 x 30.
  EXPECT_EQ(booked_term_s(182 * kDay, terms), 182 * kDay);
  EXPECT_EQ(booked_term_s(364 * kDay + 1, terms), 364 * kDay + 14 * kDay);  // a second booking past 52 weeks
}

// A negotiated contract (Hyperstack's reserved GPUs: only a "from" rate per GPU-hour is published, $1.75 for an
// H100 PCIe on the rate card of 2026-08-26, https://www.hyperstack.cloud/gpu-pricing): no bookable durations, so
// a job books its own run at that rate, with no idle tail, and beats on-demand from the first hour when cheaper.
TEST(Reserved, NegotiatedContractBooksTheRunAtItsFromRate) {
  const std::vector<TermStep> none;
  const double rate = 8 * 1.75;  // n3-H100x8
  for (double job_h : {0.5, 10.0, 1000.0}) {
    SCOPED_TRACE(job_h);
    Result<CostBreakdown> k = compute_job_cost(reserved_job(rate, &none, job_h), BillingRule{});
    ASSERT_TRUE(k.ok()) << k.error().to_string();
    EXPECT_NEAR(k->booked_s, job_h * kH, 1e-6);
    EXPECT_NEAR(k->total_usd, rate * job_h, 1e-6);
    EXPECT_NEAR(k->rounding_waste_usd, 0, 1e-9);
    EXPECT_EQ(k->increment_s, 0);
  }
  const ReservedVsHourly v = reserved_vs_hourly(rate, 15.2, none);  // the snapshot's on-demand n3-H100x8
  EXPECT_TRUE(v.comparable && v.term_unpublished);
  EXPECT_EQ(v.first_win_s, 0);
  EXPECT_EQ(v.wins_from_s, 0);
  EXPECT_LT(reserved_vs_hourly(16, 15.2, none).wins_from_s, 0);  // dearer: never
  Reservation r;
  EXPECT_TRUE(r.negotiated());
  EXPECT_EQ(reservation_terms_text(r),
            "term agreed with sales, none published: this cost books the run only and is a lower bound at the lowest "
            "published rate; not cancellable");
  r.cancellable_published = false;
  r.upfront = true;
  EXPECT_EQ(reservation_terms_text(r),
            "term agreed with sales, none published: this cost books the run only and is a lower bound at the lowest "
            "published rate; prepaid; cancellation terms not published");
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
  const std::vector<TermStep> good{{kDay, kDay}};
  in.terms = &good;
  in.reserved_min_instances = -1;
  EXPECT_EQ(compute_job_cost(in, BillingRule{}).error().field, "reserved_min_instances");
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
  r = Reservation{};
  r.terms = one_click_cluster_terms();
  r.upfront = true;
  r.cancellable_published = false;
  r.min_instances = 2;
  EXPECT_EQ(reservation_terms_text(r),
            "14 days, then 7-day steps up to 364 days; paid up front; cancellation terms not published; at least 2 "
            "instances per booking");
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

// The bundled snapshot's Lambda and Hyperstack products: a reserved row costs what their published arithmetic
// says, on rank and cost alike, and says where its price comes from.
TEST(Reserved, BundledLambdaAndHyperstackRowsCostTheirPublishedArithmetic) {
  const std::string job = R"("model":"llama-3-8b","method":"full","dataset":{"tokens":1e9})";
  // A contract without a published term is a lower bound: held back unless doubtful prices are shown.
  const nlohmann::json held = test::facade("rank", "{" + job + R"(,"filters":{"pricing":"reserved"},"top":0})");
  ASSERT_TRUE(held["ok"].get<bool>()) << held.dump().substr(0, 400);
  EXPECT_GT(held["held_back"].value(kReservedLowerBound, 0), 0) << held["held_back"].dump();
  for (const auto& r : held["rows"]) EXPECT_NE(r["offer"].get<std::string>().rfind("hyperstack/", 0), 0u);
  const nlohmann::json rank =
      test::facade("rank", "{" + job + R"(,"filters":{"pricing":"reserved","show_doubtful":true},"top":0})");
  ASSERT_TRUE(rank["ok"].get<bool>()) << rank.dump().substr(0, 400);
  std::map<std::string, const nlohmann::json*> rows;
  for (const auto& r : rank["rows"]) rows[r["offer"].get<std::string>()] = &r;
  std::map<std::string, std::string> captured;
  for (const auto& p : rank["reservations"]) captured[p["id"].get<std::string>()] = p["captured"].get<std::string>();
  EXPECT_EQ(captured["lambda-1-click-clusters"], "2026-09-16");
  EXPECT_EQ(captured["hyperstack-reserved"], "2026-08-26");
  struct Case {
    const char* offer;
    const char* product;
    double rate, min_nodes;
    std::vector<TermStep> terms;
  } cases[] = {{"lambda/gpu_8x_h100_sxm5/us-east-1", "lambda-1-click-clusters", 8 * 6.16, 2, one_click_cluster_terms()},
               {"hyperstack/n3-H100x8/CANADA-1", "hyperstack-reserved", 8 * 1.75, 1, {}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.offer);
    ASSERT_TRUE(rows.count(c.offer));
    const nlohmann::json& row = *rows[c.offer];
    EXPECT_EQ(row["reservation"], c.product);
    EXPECT_DOUBLE_EQ(row["price_usd_per_h"].get<double>(), c.rate);
    const nlohmann::json cost = test::facade(
        "cost", "{" + job + R"(,"target":{"offer":")" + c.offer + R"(","pricing":"reserved"}})");
    ASSERT_TRUE(cost["ok"].get<bool>()) << cost.dump().substr(0, 400);
    const auto& k = cost["costs"][0]["cost"];
    const double wall = k["timeline"]["wall_s"].get<double>();
    const double nodes = std::max(c.min_nodes, cost["costs"][0]["nodes"].get<double>());
    const double booked = booked_term_s(wall, c.terms);
    EXPECT_DOUBLE_EQ(k["booking"]["booked_s"].get<double>(), booked);
    EXPECT_DOUBLE_EQ(k["booking"]["instances"].get<double>(), nodes);
    EXPECT_NEAR(k["total_usd"].get<double>() - k["storage_usd"].get<double>() - k["egress_usd"].get<double>(),
                c.rate * nodes * booked / kH, 1e-6);
    EXPECT_DOUBLE_EQ(k["total_usd"].get<double>(), row["total_usd"].get<double>());
    const auto& rv = cost["comparison"]["reservation"];
    EXPECT_EQ(rv["captured"], captured[c.product]);
    EXPECT_FALSE(rv.contains("cancellable"));  // not published by either
  }
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
  // A negotiated contract has no bookable durations, and every other product has some.
  auto index_of = [&](const std::string& id) {
    for (size_t i = 0; i < good["reservations"].size(); ++i)
      if (good["reservations"][i]["id"] == id) return i;
    return size_t{0};
  };
  const size_t hs = index_of("hyperstack-reserved"), lam = index_of("lambda-1-click-clusters");
  ASSERT_TRUE(good["reservations"][hs].value("negotiated", false));
  const std::string hp = "/reservations/" + std::to_string(hs), lp = "/reservations/" + std::to_string(lam);
  EXPECT_NE(refusal([&](auto& r) { r[hs]["terms"] = r[0]["terms"]; }).find(hp + "/negotiated: a negotiated contract"),
            std::string::npos);
  EXPECT_NE(refusal([&](auto& r) { r[hs]["negotiated"] = "yes"; }).find(hp + "/negotiated: expected true/false"),
            std::string::npos);
  EXPECT_NE(refusal([&](auto& r) { r[hs].erase("negotiated"); }).find(hp + "/terms: at least one"), std::string::npos);
  EXPECT_NE(refusal([&](auto& r) { r[lam]["min_instances"] = -2; }).find(lp + "/min_instances"), std::string::npos);
  EXPECT_NE(refusal([&](auto& r) { r[lam]["min_instances"] = 1.5; }).find(lp + "/min_instances"), std::string::npos);
  EXPECT_NE(refusal([&](auto& r) {
              r[lam]["max_instances"] = 1;
            }).find(lp + "/min_instances: more than max_instances (1)"),
            std::string::npos);
  EXPECT_NE(refusal([&](auto& r) { r[lam]["cancellable"] = "no"; }).find(lp + "/cancellable: expected true/false"),
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
