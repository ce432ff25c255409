// trainfit core — the facade's plan and cost documents of one offer (api.h): each pricing option's plan and cost
// breakdown, the development-cycle scenario, and which option wins (with where a booking beats paying by the
// hour).
#include <string>

#include "facade/api_internal.h"
#include "market/offer_plan.h"
#include "trainfit/market/billing.h"
#include "trainfit/market/rank.h"
#include "trainfit/query/query.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit::api_detail {
namespace {

json cost_doc(const CostBreakdown& c) {
  auto band = [](const CostBand& b) {
    return json{{"interruptions", num(b.interruptions)}, {"wall_s", num(b.wall_s)},
                {"billed_node_s", num(b.billed_node_s)}, {"total_usd", num(b.total_usd)}};
  };
  json d{{"option", pricing_option_name(c.option)},
              {"price_usd_per_h", num(c.price_usd_per_h)},
              {"billing_increment_s", num(c.increment_s)},
              {"billing_minimum_s", num(c.minimum_s)},
              {"timeline", {{"provision_s", num(c.provision_s)}, {"staging_s", num(c.staging_s)},
                            {"train_s", num(c.train_s)}, {"eval_s", num(c.eval_s)},
                            {"checkpoint_s", num(c.checkpoint_s)}, {"restart_s", num(c.restart_s)},
                            {"lost_work_s", num(c.lost_work_s)}, {"wall_s", num(c.wall_s)}}},
              {"checkpoints", {{"count", num(c.checkpoints)}, {"interval_s", num(c.checkpoint_interval_s)},
                               {"write_s", num(c.checkpoint_write_s)}, {"reload_s", num(c.checkpoint_reload_s)}}},
              {"interruptions", {{"expected", num(c.expected_interruptions)}, {"p10", num(c.interruptions_p10)},
                                 {"p90", num(c.interruptions_p90)}, {"mtbf_s", num(c.mtbf_s)}}},
              {"billing", {{"segments", num(c.segments)}, {"billable_node_s", num(c.billable_node_s)},
                           {"billed_node_s", num(c.billed_node_s)}}},
              {"compute_usd", num(c.compute_usd)},
              {"rounding_waste_usd", num(c.rounding_waste_usd)},
              {"storage_usd", num(c.storage_usd)},
              {"egress_usd", num(c.egress_usd)},
              {"total_usd", num(c.total_usd)},
              {"low", band(c.low)},
              {"high", band(c.high)},
              {"break_even", {{"available", c.has_break_even}, {"on_demand_total_usd", num(c.on_demand_total_usd)},
                              {"spot_price_usd_per_h", num(c.break_even_spot_usd_per_h)},
                              {"spot_pays_off", c.spot_pays_off}}}};
  if (c.option == PricingOption::reserved)
    d["booking"] = {{"booked_s", num(c.booked_s)}, {"bookings", num(c.bookings)}, {"instances", num(c.booked_instances)},
                    {"idle_tail_s", num(c.booked_s - c.wall_s)}, {"idle_tail_usd", num(c.rounding_waste_usd)}};
  return d;
}

// One pricing option of `cost`: the plan it costs (the node count the ranking chose for this option, which may
// differ between options and from the planner's fastest plan), its cost breakdown, and with cost.dev_runs the
// dev-cycle scenario on that plan's node count.
json option_cost_doc(const Query& q, const Snapshot& one, const RankResult& r, const RankRow& row) {
  json c{{"option", pricing_option_name(row.option)}, {"state", row_state_name(row.state)}};
  if (!row.why_not.empty()) c["why_not"] = row.why_not;
  if (row.nodes <= 0) return c;
  c["nodes"] = row.nodes;
  if (row.shape >= 0 && row.plan_index >= 0) c["plan"] = plan_doc(r.shapes[row.shape].plan().by_nodes[row.plan_index]);
  Result<CostBreakdown> cb = cost_for(q, one, r, row, row.nodes);
  if (cb) c["cost"] = cost_doc(*cb);
  else c["error"] = cb.error().to_string();
  if (q.cost.dev_runs > 0 && q.cost.dev_run_minutes > 0 && row.option != PricingOption::reserved) {
    const Offer& o = one.offers[row.offer];
    const Provider& p = seller_of(one, o);
    Result<DevCycleCost> dc =
        dev_cycle_cost(dev_cycle_input(q, p, o, row.option, row.nodes), billing_rule_for(p, o.instance_type));
    if (dc)
      c["dev_cycle"] = {{"runs", q.cost.dev_runs}, {"run_minutes", num(q.cost.dev_run_minutes)},
                        {"billed_s_per_run", num(dc->billed_s_per_run)}, {"cost_usd", num(dc->cost_usd)},
                        {"per_second_cost_usd", num(dc->per_second_cost_usd)},
                        {"rounding_waste_usd", num(dc->rounding_waste_usd)}};
    else
      c["dev_cycle"] = {{"error", dc.error().to_string()}};
  }
  return c;
}

// The booking product of a reserved row: its terms, source and date.
json reservation_doc(const Reservation& rv) {
  json d{{"id", rv.id},          {"name", rv.name},       {"terms", reservation_terms_text(rv)},
         {"start_time_utc", rv.start_time_utc}, {"upfront", rv.upfront}, {"cancellable", rv.cancellable},
         {"max_instances", rv.max_instances},   {"book_ahead_days", num(rv.book_ahead_days)},
         {"source", rv.source},  {"captured", rv.capture_date}, {"note", rv.note}};
  if (rv.negotiated()) d["negotiated"] = true;  // snapshot.h: the term is agreed with sales, none published
  if (rv.min_instances > 0) d["min_instances"] = rv.min_instances;
  if (!rv.cancellable_published) d.erase("cancellable");  // not published: left out rather than guessed
  return d;
}

// cost: which pricing option wins for this job, and where a booking product beats paying by the hour (billing.h
// ReservedVsHourly): the job length from which it is cheaper, and for a job that repeats, the longest cadence
// at which keeping the booking pays. `costs` are the option documents just written.
json comparison_doc(const Offer& o, const Snapshot& one, const json& costs) {
  json totals = json::object();
  std::string cheapest;
  double best = 0, reserved_wall_s = -1;
  for (const json& c : costs) {
    if (!c.contains("cost")) continue;
    const double total = c["cost"]["total_usd"].get<double>();
    const std::string name = c["option"].get<std::string>();
    totals[name] = num(total);
    if (cheapest.empty() || total < best) {
      cheapest = name;
      best = total;
    }
    if (name == pricing_option_name(PricingOption::reserved)) reserved_wall_s = c["cost"]["timeline"]["wall_s"].get<double>();
  }
  json d{{"total_usd", totals}};
  if (!cheapest.empty()) d["cheapest"] = cheapest;  // absent when no option could be costed
  if (const Reservation* r = reservation_of(one, o)) {
    const Reservation& rv = *r;
    json rd = reservation_doc(rv);
    rd["usd_per_h"] = num(o.reserved_usd_per_h);
    const ReservedVsHourly v = reserved_vs_hourly(o.reserved_usd_per_h, o.price_usd_per_h, rv.terms);
    rd["vs_on_demand"] = {{"comparable", v.comparable}};
    if (v.comparable) {
      rd["vs_on_demand"]["price_ratio"] = num(v.price_ratio);
      rd["vs_on_demand"]["first_win_h"] = v.first_win_s >= 0 ? num(v.first_win_s / kHour_s) : json(nullptr);
      rd["vs_on_demand"]["wins_from_h"] = v.price_ratio < 1 ? num(v.wins_from_s / kHour_s) : json(nullptr);
      if (v.term_unpublished) rd["vs_on_demand"]["term_unpublished"] = true;  // a lower bound: no minimum term known
      else if (reserved_wall_s > 0 && v.price_ratio > 0)
        rd["vs_on_demand"]["repeat_break_even_every_h"] = num(reserved_wall_s / v.price_ratio / kHour_s);
    }
    d["reservation"] = rd;
  }
  return d;
}

}  // namespace

// plan / cost: one offer (target.offer), through the same ranking path so the numbers match `rank`.
json offer_doc(const Query& q0, const Snapshot& s, bool with_cost) {
  if (q0.target.offer.empty()) return error_doc(Error{"target.offer", "name an offer id (see `trainfit rank`)"});
  const int oi = s.find_offer(q0.target.offer);
  if (oi < 0) return error_doc(Error{"target.offer", "no offer \"" + q0.target.offer + "\" in snapshot " + s.id});
  // The ranking reads GPUs, providers and offers only: the one offer (not all of them), as recipe and calibrate.
  Snapshot one;
  Query q;
  detail::one_offer_query(q0, s, oi, q0.target.nodes, &one, &q);
  Result<RankResult> r = rank_offers(q, one, nullptr, kRowAlternatives);  // the runners-up are this verb's output
  if (!r) return error_doc(r.error());
  json doc{{"ok", true}, {"offer", s.offers[oi].id}, {"snapshot", s.id}, {"flags", offer_flag_names(s.offers[oi].flags)}, {"captured", s.offers[oi].capture_date},
           {"access", access_doc(access_fact(s, s.offers[oi]))}};
  if (!r->shapes.empty() && r->shapes[0].ok) {
    doc["plan"] = plan_result_doc(r->shapes[0].plan());
    doc["matched"] = r->shapes[0].plan().fits;
  } else {
    doc["matched"] = false;
    doc["why_not"] = r->shapes.empty() ? std::string("no plan") : r->shapes[0].error;
  }
  if (with_cost) {
    json costs = json::array();
    for (const auto& row : r->rows) {
      if (!pricing_admits(q0.target.pricing, row.option)) continue;
      costs.push_back(option_cost_doc(q, one, *r, row));
    }
    doc["costs"] = costs;
    doc["comparison"] = comparison_doc(one.offers[0], one, costs);
  }
  return doc;
}

}  // namespace trainfit::api_detail
