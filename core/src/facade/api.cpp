// trainfit core — the JSON facade (api.h). Documents are built with nlohmann::json and dumped once, so key
// order is fixed (alphabetical within objects) and the same query gives byte-identical output everywhere.
#include "trainfit/facade/api.h"
#include "trainfit/catalog/framework.h"
#include "trainfit/facade/api_doc.h"

#include "base/json_doc.h"
#include "market/offer_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>
#include <nlohmann/json.hpp>

#include "trainfit/launch/calibrate.h"
#include "trainfit/estimate/memory.h"
#include "trainfit/catalog/model.h"
#include "trainfit/estimate/planner.h"
#include "trainfit/query/query.h"
#include "trainfit/market/rank.h"
#include "trainfit/launch/recipe.h"

namespace trainfit {
namespace {
using json = nlohmann::json;

using doc::error_doc;
using doc::num;

// What a tight verdict means, with the band's size (memory.h): the same words on every surface.
std::string tight_note() {
  char b[96];
  std::snprintf(b, sizeof b, "tight: may run out of memory; the band is +%.0f%%", 100.0 * (kBandHighFactor - 1.0));
  return b;
}

json params_doc(const ParamCounts& p) {
  return json{{"total", num(p.total)},         {"active", num(p.active)}, {"embedding", num(p.embedding)},
              {"head", num(p.head)},           {"per_layer", num(p.per_layer)},
              {"expert", num(p.expert)},       {"trainable", num(p.trainable)}};
}

json memory_doc(const MemoryBreakdown& m) {
  json notes = json::array();
  for (const auto& w : m.notes) notes.push_back({{"code", w.code}, {"field", w.field}, {"message", w.message}});
  json doc = json::object();
  for (const MemoryComponent& c : kMemoryComponents) doc[c.key] = num(m.*c.bytes);
  doc["total_bytes"] = num(m.total);
  doc["total_low_bytes"] = num(m.total_low);
  doc["total_high_bytes"] = num(m.total_high);
  doc["host_ram_per_node_bytes"] = num(m.host_ram_per_node_bytes);
  doc["notes"] = std::move(notes);
  return doc;
}

// The layout `estimate` evaluates: the query's fixed layout (cp included), or one GPU; gradient accumulation
// from global_batch exactly as `plan` derives it (global_batch / (dp x micro_batch)), so one query gets one
// answer from both.
Result<MemoryLayout> estimate_layout(const Query& q) {
  MemoryLayout layout;
  const ParallelConfig& par = q.train.parallel;
  if (!par.automatic) {
    layout.tp = par.tp;
    layout.pp = par.pp;
    layout.dp = par.dp;
    layout.cp = par.cp;
    layout.cp_ulysses = par.cp > 1 && resolved_cp_scheme(q.train) == CpScheme::ulysses;
    layout.vp = par.vp;
    layout.ep = par.ep;
    layout.etp = par.etp;
    layout.zero = par.zero;
    layout.sequence_parallel = par.sequence_parallel;
    layout.offload_optimizer = par.offload_optimizer;
    layout.offload_params = par.offload_params;
  }
  layout.micro_batch = q.train.micro_batch;
  // global_batch 0: the default plan chooses for this DP width and micro-batch (planner.h default_global_batch).
  const int64_t gb = q.train.global_batch > 0 ? q.train.global_batch : default_global_batch(layout.dp, q.train.micro_batch);
  const int64_t per_step = static_cast<int64_t>(layout.dp) * q.train.micro_batch;
  if (per_step <= 0 || gb % per_step != 0)
    return Error{"global_batch", "must be a multiple of dp x micro_batch (" + std::to_string(per_step) + ")"};
  layout.num_microbatches = gb / per_step;
  return layout;
}

Result<const GpuSpec*> estimate_gpu(const Query& q, const Snapshot* snapshot) {
  if (q.target.gpu.empty()) return static_cast<const GpuSpec*>(nullptr);
  if (!snapshot) return Error{"target.gpu", "a price snapshot is needed to look up GPUs"};
  const int gi = snapshot->find_gpu(q.target.gpu);
  if (gi < 0) {
    std::string ids;
    for (const auto& g : snapshot->gpus) ids += (ids.empty() ? "" : ", ") + g.id;
    return Error{"target.gpu", "unknown GPU \"" + q.target.gpu + "\"; the snapshot has: " + ids};
  }
  return &snapshot->gpus[gi];
}

json fit_doc(const Query& q, const GpuSpec& gpu, const MemoryLayout& layout, const MemoryBreakdown& m) {
  const double capacity = gpu_capacity_bytes(gpu);
  const double usable = usable_bytes(capacity, q.train.headroom);
  const FitVerdict v = fit_verdict(m, usable);
  auto search = [&](bool mb, FitLevel level) -> json {
    Result<int64_t> r = mb ? max_micro_batch(q.model, q.train, layout, usable, level)
                           : max_seq_len(q.model, q.train, layout, usable, level);
    return r ? json(*r) : json(nullptr);
  };
  json doc{{"gpu", gpu.id},
           {"gpu_name", gpu.name},
           {"gpu_memory_bytes", num(gpu.memory_bytes)},
           {"cuda_memory_bytes", num(capacity)},
           {"usable_bytes", num(usable)},
           {"verdict", to_string(v)},
           {"fits", v != FitVerdict::no_fit},
           {"headroom", num(1 - m.total / capacity)},
           {"band_high_percent", num(100.0 * (kBandHighFactor - 1.0))},
           {"max_micro_batch", search(true, FitLevel::expected)},
           {"max_micro_batch_safe", search(true, FitLevel::safe)},
           {"max_seq_len", search(false, FitLevel::expected)},
           {"max_seq_len_safe", search(false, FitLevel::safe)}};
  // The longest sequence with context parallelism added to this layout (memory.h max_seq_len_by_cp).
  const CpScheme scheme = resolved_cp_scheme(q.train);
  json by_cp = json::array();
  for (const CpReach& c : max_seq_len_by_cp(q.model, q.train, layout, usable))
    by_cp.push_back({{"cp", c.cp}, {"gpus", c.gpus}, {"max_seq_len", c.max_seq_len},
                     {"max_seq_len_safe", c.max_seq_len_safe}});
  doc["cp_scheme"] = to_string(scheme);
  doc["max_seq_len_by_cp"] = by_cp;
  return doc;
}

// estimate: the memory breakdown for the query's layout. With target.gpu, also the fit against that GPU (the
// verdict of memory.h: fits / tight / no_fit against its driver-reported memory), the recompute mode "auto"
// resolves to the least recomputation whose verdict is best (fits, else tight), and the inverse questions are
// answered, each with the expected and the safe value (largest micro-batch, longest sequence).
json estimate(const Query& q, const Snapshot* snapshot) {
  Result<ParamCounts> p = count_params(q.model);
  if (!p) return error_doc(p.error());
  Result<MemoryLayout> lr = estimate_layout(q);
  if (!lr) return error_doc(lr.error());
  MemoryLayout layout = *lr;
  Result<const GpuSpec*> gr = estimate_gpu(q, snapshot);
  if (!gr) return error_doc(gr.error());
  const GpuSpec* gpu = *gr;
  std::vector<Recompute> modes;
  if (q.train.recompute != Recompute::automatic) modes = {q.train.recompute};
  else if (gpu) modes = {Recompute::none, Recompute::selective, Recompute::full};
  else modes = {Recompute::none};
  const double usable = gpu ? usable_bytes(gpu_capacity_bytes(*gpu), q.train.headroom) : 0;
  // The least recomputation that fits; else the least that is tight; else the leanest (the last mode).
  Result<MemoryBreakdown> m = Error{"", "no recompute mode"};
  Recompute chosen = modes.front();
  FitVerdict best = FitVerdict::no_fit;
  std::optional<std::pair<Recompute, MemoryBreakdown>> first_tight;
  for (Recompute r : modes) {
    layout.recompute = r;
    Result<MemoryBreakdown> e = estimate_memory(q.model, q.train, layout);
    if (!e) return error_doc(e.error());
    best = gpu ? fit_verdict(*e, usable) : FitVerdict::fits;
    m = std::move(e);
    chosen = r;
    if (best == FitVerdict::fits) break;
    if (best == FitVerdict::tight && !first_tight) first_tight.emplace(r, *m);
  }
  if (best != FitVerdict::fits && first_tight) {
    chosen = first_tight->first;
    m = std::move(first_tight->second);
    best = FitVerdict::tight;
  }
  layout.recompute = chosen;
  const Precision prec = gpu ? resolve_precision(q.train.precision, *gpu)
                             : (q.train.precision == Precision::automatic ? Precision::bf16_mixed : q.train.precision);
  json doc{{"ok", true},
           {"model", {{"id", q.model_id}, {"name", q.model.name}, {"arch", to_string(q.model.arch)}}},
           {"recompute", to_string(layout.recompute)},
           {"precision", to_string(prec)},
           {"grad_accum", layout.num_microbatches},
           {"params", params_doc(m->params)},
           {"memory", memory_doc(*m)},
           {"matched", true}};
  if (gpu) {
    doc["fit"] = fit_doc(q, *gpu, layout, *m);
    doc["matched"] = best != FitVerdict::no_fit;
  }
  return doc;
}

json step_doc(const StepTime& st) {
  return json{{"compute_s", num(st.compute_s)},         {"recompute_s", num(st.recompute_s)},
              {"exposed_comm_s", num(st.exposed_comm_s)}, {"bubble_s", num(st.bubble_s)},
              {"optimizer_s", num(st.optimizer_s)},     {"offload_s", num(st.offload_s)},
              {"total_s", num(st.total_s)},             {"tp_comm_s", num(st.tp_comm_s)},
              {"pp_comm_s", num(st.pp_comm_s)},         {"dp_comm_s", num(st.dp_comm_s)},
              {"cp_comm_s", num(st.cp_comm_s)},         {"ep_comm_s", num(st.ep_comm_s)},
              {"memory_bound", st.memory_bound}};
}

json plan_doc(const Plan& p) {
  const MemoryLayout& l = p.layout;
  json d = json{{"summary", plan_summary(p)},
              {"nodes", p.nodes},
              {"gpus_per_node", p.gpus_per_node},
              {"gpus", p.gpus},
              {"tp", l.tp},
              {"pp", l.pp},
              {"dp", l.dp},
              {"cp", l.cp},
              {"vp", l.vp},
              {"ep", l.ep},
              {"etp", l.etp > 0 ? l.etp : l.tp},
              {"zero", l.zero},
              {"sequence_parallel", l.sequence_parallel},
              {"offload_optimizer", l.offload_optimizer},
              {"offload_params", l.offload_params},
              {"recompute", to_string(l.recompute)},
              {"micro_batch", l.micro_batch},
              {"grad_accum", l.num_microbatches},
              {"global_batch", p.global_batch},
              {"global_batch_default", p.global_batch_default},
              {"step", step_doc(p.step)},
              {"tokens_per_s", num(p.tokens_per_s)},
              {"mfu", num(p.mfu)},
              {"hfu", num(p.hfu)},
              {"memory_bytes", num(p.memory_bytes)},
              {"memory_high_bytes", num(p.memory_high_bytes)},
              {"memory_limit_bytes", num(p.memory_limit_bytes)},
              {"topology", topology_name(p.topology)},
              {"verdict", p.tokens_per_s > 0 ? to_string(p.verdict) : to_string(FitVerdict::no_fit)},
              {"why", p.why}};
  if (l.cp > 1) d["cp_scheme"] = l.cp_ulysses ? "ulysses" : "ring";  // how the context-parallel ranks share attention
  return d;
}

json plan_result_doc(const PlanResult& r) {
  json runners = json::array();
  for (const auto& p : r.runners_up) runners.push_back(plan_doc(p));
  json nodes = json::array();
  for (const auto& p : r.by_nodes) nodes.push_back(plan_doc(p));
  json warnings = json::array();
  for (const auto& w : r.warnings) warnings.push_back({{"code", w.code}, {"field", w.field}, {"message", w.message}});
  json doc{{"fits", r.fits},
           {"verdict", to_string(r.verdict)},
           {"precision", to_string(r.precision)},
           {"framework", to_string(r.framework)},
           {"why_not", r.why_not},
           {"shortfall_bytes", num(r.shortfall_bytes)},
           {"topology", topology_name(r.topology)},
           {"tokens", {{"useful", num(r.tokens.useful)}, {"processed", num(r.tokens.processed)}}},
           {"steps", num(r.steps)},
           {"time_s", num(r.time_s)},
           {"time_low_s", num(r.time_low_s)},
           {"time_high_s", num(r.time_high_s)},
           {"flops_per_token", {{"model", num(r.flops.model)}, {"hardware", num(r.flops.hardware)}}},
           {"data_pipeline", {{"needed_Bps", num(r.data.needed_Bps)}, {"storage_Bps", num(r.data.storage_Bps)},
                              {"storage_bound", r.data.storage_bound}}},
           {"runners_up", runners},
           {"by_nodes", nodes},
           {"warnings", warnings}};
  if (r.fits) {
    doc["best"] = plan_doc(r.best);
    doc["memory"] = memory_doc(r.memory);
  }
  return doc;
}

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
    d["booking"] = {{"booked_s", num(c.booked_s)}, {"bookings", num(c.bookings)},
                    {"idle_tail_s", num(c.booked_s - c.wall_s)}, {"idle_tail_usd", num(c.rounding_waste_usd)}};
  return d;
}

// An offer's availability fact (snapshot.h AccessFact): how it is obtained, the quota to ask for, the largest
// cluster and the date. Its detail and source are in the lean snapshot's text sidecar (the UI shows them): the
// documents leave them out so that the page and the CLI answer alike.
json access_doc(const AccessFact& a) {
  json d{{"how", access_name(a.how)}};
  if (!a.quota.empty()) d["quota"] = a.quota;
  if (!a.max_cluster.empty()) d["max_cluster"] = a.max_cluster;
  if (!a.date.empty()) d["date"] = a.date;
  return d;
}

json row_doc(const Snapshot& s, const RankResult& r, const RankRow& row) {
  const Offer& o = s.offers[row.offer];
  const GpuSpec& g = s.gpus[o.gpu];
  json d{{"offer", o.id},
         {"provider", s.providers[o.provider].id},
         {"instance_type", o.instance_type},
         {"name", offer_display_name(s, o)},
         {"region", o.region},
         {"gpu", g.id},
         {"gpu_name", g.name},
         {"gpus_per_node", o.gpu_count},
         {"vram_per_gpu_bytes", num(g.memory_bytes)},
         {"cuda_memory_bytes", num(gpu_capacity_bytes(g))},
         {"interconnect", link_class_name(o.intra_link)},
         {"option", pricing_option_name(row.option)},
         {"price_usd_per_h", num(row.price_usd_per_h)},
         {"state", row_state_name(row.state)},
         {"flags", offer_flag_names(o.flags)}};
  if (o.via >= 0) d["via"] = s.providers[o.via].id;  // the marketplace that sells it; absent = sold directly
  d["access"] = access_doc(access_fact(s, o));
  if (const Reservation* rv = reservation_of(s, o); rv && row.option == PricingOption::reserved)
    d["reservation"] = rv->id;  // the booking product priced
  if (!row.why_not.empty()) d["why_not"] = row.why_not;
  if (row.nodes > 0 && row.shape >= 0 && row.plan_index >= 0) {
    const Plan& p = r.shapes[row.shape].plan.by_nodes[row.plan_index];
    d["nodes"] = row.nodes;
    d["plan"] = plan_summary(p);
    d["topology"] = topology_name(p.topology);
    d["mfu"] = num(p.mfu);
    d["time_s"] = num(row.time_s);
    d["time_low_s"] = num(row.time_low_s);
    d["time_high_s"] = num(row.time_high_s);
    d["wall_s"] = num(row.wall_s);
    d["total_usd"] = num(row.total_usd);
    d["total_low_usd"] = num(row.total_low_usd);
    d["total_high_usd"] = num(row.total_high_usd);
    d["rounding_waste_usd"] = num(row.rounding_waste_usd);
    d["usd_per_mtok"] = num(row.usd_per_mtok);
    d["memory_bytes"] = num(row.memory_bytes);
    d["memory_high_bytes"] = num(row.memory_high_bytes);
    d["headroom"] = num(row.headroom);
    d["verdict"] = to_string(row.verdict);
    if (row.verdict == FitVerdict::tight) d["fit_note"] = tight_note();
    d["pareto"] = row.pareto;
    if (row.dev_cycle_usd >= 0) d["dev_cycle_usd"] = num(row.dev_cycle_usd);
  }
  return d;
}

// When the prices were captured (not the snapshot's build date), their age against the date the loader judged
// staleness on, and the command that refreshes them when they are stale.
// `oldest_ranked`: the oldest capture date among the prices a ranking ranks ("" = not a ranking, or none ranked).
json prices_doc(const Snapshot& s, const std::string& oldest_ranked = "") {
  const PriceDates d = price_dates(s);
  json dates = json::array();
  for (const CaptureDate& c : d.dates) dates.push_back({{"date", c.date}, {"providers", c.providers}, {"offers", c.offers}});
  json doc{{"captured", dates}, {"stale_after_days", num(s.stale_after_days)}, {"stale", d.stale}};
  if (d.age_days) doc["age_days"] = *d.age_days;  // left out when unknown (documents carry no nulls)
  if (d.stale) doc["refresh"] = kRefreshPricesCommand;
  if (!oldest_ranked.empty()) doc["oldest_ranked"] = oldest_ranked;
  return doc;
}

// Rows held back for a doubtful price, by flag (a row held back for two flags counts under both).
json held_back_doc(const Snapshot& s, const RankResult& r) {
  json by_flag = json::object();
  for (const auto& row : r.rows) {
    if (row.state != RowState::held_back) continue;
    for (const std::string& n : offer_flag_names(held_back_flags(s.offers[row.offer], row.option)))
      by_flag[n] = by_flag.value(n, 0) + 1;
  }
  return by_flag;
}

// Why the other rows are out, grouped (largest groups first): what a user needs when nothing matches.
json why_not_summary(const RankResult& r) {
  std::vector<std::pair<std::string, int>> reasons;
  for (const auto& row : r.rows) {
    if (row.state == RowState::ranked) continue;
    const std::string key = std::string(row_state_name(row.state)) + ": " + row.why_not;
    auto it = std::find_if(reasons.begin(), reasons.end(), [&](const auto& p) { return p.first == key; });
    if (it == reasons.end()) reasons.emplace_back(key, 1);
    else ++it->second;
  }
  std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  json why = json::array();
  for (size_t i = 0; i < reasons.size() && i < 8; ++i) why.push_back({{"reason", reasons[i].first}, {"rows", reasons[i].second}});
  return why;
}

json rank_doc(const Query& q, const Snapshot& s) {
  Result<RankResult> r = rank_offers(q, s);
  if (!r) return error_doc(r.error());
  json rows = json::array();
  int shown = 0;
  // A calibrated query (calibrate.h) re-ranks every offer with the fitted efficiency factor; rows say from which
  // GPU's measured run it came.
  std::string calibrated_from;
  if (q.calibration.efficiency_scale > 0) {
    const int gi = s.find_gpu(q.calibration.gpu);
    calibrated_from = gi >= 0 ? s.gpus[gi].name : q.calibration.gpu;
  }
  int by_state[7] = {0, 0, 0, 0, 0, 0, 0};
  int tight = 0;
  for (const auto& row : r->rows) {
    ++by_state[static_cast<int>(row.state)];
    const bool ranked = row.state == RowState::ranked;
    tight += ranked && row.verdict == FitVerdict::tight;
    if (!ranked && !q.filters.show_all) continue;
    if (q.top > 0 && shown >= q.top) continue;
    json d = row_doc(s, *r, row);
    if (!calibrated_from.empty() && d.contains("plan")) d["calibrated_from"] = calibrated_from;
    rows.push_back(std::move(d));
    ++shown;
  }
  return json{{"ok", true},
              {"matched", r->ranked > 0},
              {"why_not_summary", why_not_summary(*r)},
              {"held_back", held_back_doc(s, *r)},
              {"show_doubtful", q.filters.show_doubtful},
              {"launchable", q.filters.launchable},
              {"snapshot", s.id},
              {"prices", prices_doc(s, oldest_ranked_capture(s, *r))},
              {"sort", to_string(q.sort)},
              {"counts", {{"ranked", by_state[0]}, {"tight", tight}, {"does_not_fit", by_state[1]}, {"filtered", by_state[2]},
                          {"no_price", by_state[3]}, {"unsupported", by_state[4]}, {"error", by_state[5]},
                          {"held_back", by_state[6]}}},
              {"useful_tokens", num(r->useful_tokens)},
              {"checkpoint_bytes", num(r->checkpoint_bytes)},
              {"shapes_planned", r->shapes_planned},
              {"rows", rows}};
}

// One pricing option of `cost`: the plan it costs (the node count the ranking chose for this option, which may
// differ between options and from the planner's fastest plan), its cost breakdown, and with cost.dev_runs the
// dev-cycle scenario on that plan's node count.
json option_cost_doc(const Query& q, const Snapshot& one, const RankResult& r, const RankRow& row) {
  json c{{"option", pricing_option_name(row.option)}, {"state", row_state_name(row.state)}};
  if (!row.why_not.empty()) c["why_not"] = row.why_not;
  if (row.nodes <= 0) return c;
  c["nodes"] = row.nodes;
  if (row.shape >= 0 && row.plan_index >= 0) c["plan"] = plan_doc(r.shapes[row.shape].plan.by_nodes[row.plan_index]);
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
  return json{{"id", rv.id},          {"name", rv.name},       {"terms", reservation_terms_text(rv)},
              {"start_time_utc", rv.start_time_utc}, {"upfront", rv.upfront}, {"cancellable", rv.cancellable},
              {"max_instances", rv.max_instances},   {"book_ahead_days", num(rv.book_ahead_days)},
              {"source", rv.source},  {"captured", rv.capture_date}, {"note", rv.note}};
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
      if (reserved_wall_s > 0 && v.price_ratio > 0)
        rd["vs_on_demand"]["repeat_break_even_every_h"] = num(reserved_wall_s / v.price_ratio / kHour_s);
    }
    d["reservation"] = rd;
  }
  return d;
}

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
    doc["plan"] = plan_result_doc(r->shapes[0].plan);
    doc["matched"] = r->shapes[0].plan.fits;
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

// recipe: the launch files of one offer's plan (recipe.h), with the numbers they were written from.
json recipe_doc(const Query& q, const Snapshot& s) {
  Result<Recipe> r = make_recipe(q, s);
  if (!r) return error_doc(r.error());
  json files = json::array();
  for (const RecipeFile& f : r->files) {
    json d{{"format", f.format}, {"filename", f.filename}, {"applies", f.applies}, {"text", f.text}};
    if (!f.why.empty()) d["why"] = f.why;
    files.push_back(d);
  }
  json d{{"ok", true},
              {"matched", true},
              {"snapshot", s.id},
              {"offer", r->offer},
              {"provider", r->provider},
              {"instance_type", r->instance_type},
              {"region", r->region},
              {"gpu", r->gpu},
              {"accelerators", r->accelerators},
              {"option", pricing_option_name(r->option)},
              {"nodes", r->nodes},
              {"gpus_per_node", r->gpus_per_node},
              {"nproc_per_node", r->nproc_per_node},
              {"plan", plan_doc(r->plan)},
              {"precision", r->precision},
              {"engine", r->engine},
              {"steps", num(r->steps)},
              {"checkpoint_interval_s", num(r->checkpoint_interval_s)},
              {"save_interval_steps", r->save_interval_steps},
              {"disk_size_GB", num(r->disk_size_GB)},
              {"files", files},
              {"placeholders", r->placeholders},
              {"notes", r->notes}};
  if (!r->via.empty()) d["via"] = r->via;  // the marketplace that sells it (and whose catalog is launched)
  return d;
}

// calibrate: one measured run against the uncalibrated estimate, the fitted factors, and the calibrated query
// (what the caller ranks with next; its hash carries the calibration).
json calibrate_doc(const Query& q, const Snapshot& s) {
  Result<CalibrationResult> r = calibrate(q, s);
  if (!r) return error_doc(r.error());
  json memory = nullptr;
  if (r->measured_peak_GiB > 0)
    memory = {{"measured_peak_GiB", num(r->measured_peak_GiB)},
              {"estimated_reserved_GiB", num(r->estimated_reserved_GiB)},
              {"fragmentation_before", num(r->fragmentation_before)},
              {"fragmentation_after", num(r->fragmentation_after)}};
  return json{{"ok", true},
              {"matched", true},
              {"offer", r->offer},
              {"gpu", r->gpu},
              {"gpu_name", r->gpu_name},
              {"nodes", r->nodes},
              {"plan", plan_summary(r->plan)},
              {"measured_step_s", num(r->measured_step_s)},
              {"estimated_step_s", num(r->estimated_step_s)},
              {"calibrated_step_s", num(r->calibrated_step_s)},
              {"efficiency_scale", num(r->efficiency_scale)},
              {"efficiency_before", num(r->efficiency_before)},
              {"efficiency_after", num(r->efficiency_after)},
              {"memory", memory},
              {"query", json::parse(query_to_json(r->query))},
              {"hash", query_to_hash(r->query)}};
}

// validate: the validation report. Its tables (validation.cpp, perf_validation.cpp, reality.cpp, validation_doc.cpp:
// library trainfit_validation) are installed by the programs that carry them (install_validation_tables); the web
// module leaves them out of its first-visit payload and is handed the same document, data/validation.json, when the
// page has fetched it (set_validation_document).
struct ValidationSource {
  std::string (*provider)() = nullptr;  // the tables, where linked in
  std::string document;                 // or the document as fetched (web)
};
ValidationSource& validation_source() {
  static ValidationSource s;
  return s;
}

json validate_doc() {
  const ValidationSource& v = validation_source();
  if (v.provider) return json::parse(v.provider());
  if (!v.document.empty()) return json::parse(v.document);
  return error_doc(Error{"verb", "the validation report is not loaded yet (data/validation.json)"});
}

json models_doc() {
  json list = json::array();
  for (const auto& m : builtin_models()) {
    Result<ParamCounts> p = count_params(m);
    list.push_back({{"id", m.id},
                    {"name", m.name},
                    {"hf_id", m.hf_id},
                    {"arch", to_string(m.arch)},
                    {"params_total", p ? num(p->total) : json(nullptr)},
                    {"params_active", p ? num(p->active) : json(nullptr)}});
  }
  return json{{"ok", true}, {"models", list}};
}

// hf_config: a Hugging Face config.json (the input text) as the query's model object, every knob derived
// (model_from_hf_config), with its parameter counts. Every surface puts `model` into its query as is.
json hf_config_doc(std::string_view config_text) {
  Result<ModelSpec> m = model_from_hf_config(config_text);
  if (!m) return error_doc(m.error());
  Result<ParamCounts> p = count_params(*m);
  if (!p) return error_doc(p.error());
  Query q = default_query();
  q.model = std::move(m).value();
  q.model_id = "custom";
  json model = json::parse(query_to_json(q)).value("model", json::object());
  return json{{"ok", true}, {"model", model}, {"params", params_doc(*p)}, {"matched", true}};
}

}  // namespace

// Documents are dumped with invalid UTF-8 replaced (U+FFFD) instead of throwing: an error message may quote
// bytes from a hostile query or link, and that must still come back as a readable error document.
static std::string dump_doc(const json& doc) { return doc.dump(-1, ' ', false, json::error_handler_t::replace); }

nlohmann::json api_call_doc(std::string_view verb, std::string_view query_json, const Snapshot* snapshot) {
  try {
    if (verb == "models") return models_doc();
    if (verb == "hf_config") return hf_config_doc(query_json);
    Result<Query> q = parse_query_json(query_json.empty() ? std::string_view("{}") : query_json);
    if (!q) return error_doc(q.error());
    if (verb == "query") return json{{"ok", true}, {"query", json::parse(query_to_json(*q, true))}, {"hash", query_to_hash(*q)}};
    if (verb == "estimate") return estimate(*q, snapshot);
    if (verb == "validate") return validate_doc();
    if (verb == "rank" || verb == "plan" || verb == "cost" || verb == "recipe" || verb == "calibrate") {
      if (!snapshot) return error_doc(Error{"snapshot", "no price snapshot is loaded"});
      if (verb == "rank") return rank_doc(*q, *snapshot);
      if (verb == "recipe") return recipe_doc(*q, *snapshot);
      if (verb == "calibrate") return calibrate_doc(*q, *snapshot);
      return offer_doc(*q, *snapshot, verb == "cost");
    }
    return error_doc(Error{"verb", "unknown verb \"" + std::string(verb) + "\"; expected estimate, plan, rank, cost, calibrate, recipe, validate, models, hf_config or query"});
  } catch (const std::exception& e) {
    return error_doc(Error{"", std::string("internal error: ") + e.what()});
  }
}

std::string api_call(std::string_view verb, std::string_view query_json, const Snapshot* snapshot) {
  try {
    return dump_doc(api_call_doc(verb, query_json, snapshot));
  } catch (const std::exception& e) {  // dump_doc itself replaces bad UTF-8; nothing else should throw here
    return dump_doc(error_doc(Error{"", std::string("internal error: ") + e.what()}));
  }
}

void set_validation_provider(std::string (*provider)()) { validation_source().provider = provider; }
bool set_validation_document(std::string json_text, std::string* why) {
  // Untrusted like any fetched file: it must parse and be the verb's document (ok, a rows array of objects).
  const json doc = json::parse(json_text, nullptr, false);
  // `ok` must be the boolean true: json::value would throw on {"ok": 1}, and a throw here would end the program.
  bool good = doc.is_object() && doc.contains("ok") && doc["ok"].is_boolean() && doc["ok"].get<bool>() &&
              doc.contains("rows") && doc["rows"].is_array();
  if (good)
    for (const json& r : doc["rows"]) good = good && r.is_object() && r.contains("kind") && r["kind"].is_string();
  if (!good) {
    if (why) *why = "not a validation report (expected {\"ok\": true, \"rows\": [...]})";
    return false;
  }
  validation_source().document = std::move(json_text);
  return true;
}

}  // namespace trainfit
