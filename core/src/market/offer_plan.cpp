// trainfit core — offer_plan.h: one named offer planned and costed through the ranking path (the facade's plan
// and cost, the recipes, the calibration).
#include "market/offer_plan.h"

#include <algorithm>
#include <string>

#include "trainfit/market/billing.h"

namespace trainfit {

namespace detail {

void one_offer_query(const Query& q0, const Snapshot& s, int offer, int nodes, Snapshot* one, Query* q) {
  one->id = s.id;
  one->gpus = s.gpus;
  one->providers = s.providers;
  one->offers = {s.offers[offer]};
  // Its reservation product (not its price list: the offer already carries its price), at index 0.
  if (const Reservation* rv = reservation_of(s, one->offers[0])) {
    one->reservations = {*rv};
    one->reservations[0].prices.clear();
    one->offers[0].reservation = 0;
  }
  *q = q0;
  q->filters = Filters{};
  q->filters.max_nodes = q0.filters.max_nodes;
  q->filters.must_fit = q0.filters.must_fit;  // a "tight" row only when asked
  q->filters.show_doubtful = true;            // the offer named is planned whatever its flags (shown in `flags`)
  q->target.nodes = nodes;
}

Result<OfferPlan> plan_one_offer(const Query& q0, const Snapshot& s, const std::string& offer_id, PricingFilter pricing,
                                 int nodes, const char* field, const char* nodes_field) {
  if (offer_id.empty()) return Error{field, "name an offer id (see `trainfit rank`)"};
  OfferPlan out;
  out.offer = s.find_offer(offer_id);
  if (out.offer < 0) return Error{field, "no offer \"" + offer_id + "\" in snapshot " + s.id};
  // The same path as `plan` and `cost` (api_cost.cpp offer_doc), so the plan, node count and checkpoint interval are
  // the ones the ranking shows for this row.
  one_offer_query(q0, s, out.offer, nodes, &out.one, &out.query);
  Result<RankResult> rr = rank_offers(out.query, out.one);
  if (!rr) return rr.error();
  out.rank = std::move(rr).value();
  for (int i = 0; i < static_cast<int>(out.rank.rows.size()); ++i) {
    const RankRow& x = out.rank.rows[i];
    if (!pricing_admits(pricing, x.option)) continue;
    if (x.state != RowState::ranked || x.nodes <= 0 || x.shape < 0 || x.plan_index < 0) continue;
    out.row = i;
    break;
  }
  if (out.row < 0) {
    const bool want = pricing != PricingFilter::any;
    const PricingOption wanted = want ? pricing_option_of(pricing) : PricingOption::on_demand;
    std::string why = "no plan runs on this offer";
    for (const RankRow& x : out.rank.rows) {
      if (want && x.option != wanted) continue;
      if (x.state == RowState::no_price) return Error{field, std::string("this offer has no ") + pricing_option_name(wanted) + " price"};
      if (!x.why_not.empty()) {
        why += ": " + x.why_not;
        break;
      }
    }
    if (want && std::none_of(out.rank.rows.begin(), out.rank.rows.end(), [&](const RankRow& x) { return x.option == wanted; }))
      return Error{field, std::string("this offer has no ") + pricing_option_name(wanted) + " price"};
    if (want) why += std::string(" (") + pricing_option_name(wanted) + ")";
    return Error{nodes > 0 ? nodes_field : field, why};
  }
  return out;
}

}  // namespace detail

}  // namespace trainfit
