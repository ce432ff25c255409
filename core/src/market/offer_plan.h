// trainfit core (internal) — one offer planned and costed through the ranking path, so `recipe` and `calibrate`
// see exactly the plan, node count and cost the ranking shows for that row (the facade's plan / cost, api_cost.cpp, do the same).
// Implemented in offer_plan.cpp.
#pragma once
#include <string>

#include "trainfit/query/query.h"
#include "trainfit/market/rank.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit::detail {

struct OfferPlan {
  Snapshot one;        // the snapshot reduced to the one offer (GPUs and providers kept)
  Query query;         // the query as ranked (filters cleared, target.nodes set)
  RankResult rank;
  int row = -1;        // the chosen row of `rank`
  int offer = -1;      // the offer's index in the full snapshot
  const RankRow& chosen() const { return rank.rows[row]; }
  const Plan& plan() const { return rank.shapes[chosen().shape].plan().by_nodes[chosen().plan_index]; }
};

// What every single-offer verb ranks (plan, cost, recipe, calibrate): `s` reduced to offer `offer` (GPUs and
// providers kept) and the query with its filters cleared but for max_nodes and must_fit, doubtful prices shown
// (the offer was named) and target.nodes = `nodes`.
void one_offer_query(const Query& q0, const Snapshot& s, int offer, int nodes, Snapshot* one, Query* q);

// The best-ranked row of `offer_id` under `pricing` (any: either option) on `nodes` nodes (0: the planner's
// choice). Errors name `field` (the query key the offer came from) or `nodes_field`.
Result<OfferPlan> plan_one_offer(const Query& q, const Snapshot& s, const std::string& offer_id, PricingFilter pricing,
                                 int nodes, const char* field, const char* nodes_field);

}  // namespace trainfit::detail
