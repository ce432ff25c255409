// trainfit core — the ranking engine (rank.h).
// Pipeline per query: dataset tokens and checkpoint size once; a plan per instance shape (planner.h); per
// offer and pricing option: filters, the node count that best serves the sort key within the deadline and
// budget, the billed cost (billing.h); then sort, and mark the time/cost Pareto frontier.
#include "trainfit/market/rank.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>

#include "trainfit/estimate/memory.h"

namespace trainfit {
namespace {

std::string fmt(const char* f, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c);
  return buf;
}

bool has_prefix(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Why a row is not launchable now (filters.launchable): the booking it needs, or the offer's availability fact.
std::string launch_why_not(const AccessFact& a, PricingOption option) {
  if (option == PricingOption::reserved) return "reserved booking (only what launches now selected)";
  switch (a.how) {
    case Access::quota_request:
      return "needs a quota request" + (a.quota.empty() ? std::string() : " (" + a.quota.substr(0, 120) + ")");
    case Access::reservation_only: return "sold only through a reservation or booking";
    case Access::sales_contact: return "sold through sales only";
    case Access::unknown: return "how to get it is not published";
    case Access::self_serve: break;
  }
  return "";
}

// Filters that depend only on the offer (not on the plan). Returns the reason, or "" when it passes.
std::string offer_filter(const Filters& f, const Snapshot& s, const Offer& o) {
  const Provider& p = s.providers[o.provider];
  const GpuSpec& g = s.gpus[o.gpu];
  // A provider filter selects the offers a provider runs and the offers it sells as a marketplace: "shadeform"
  // keeps every row sold through Shadeform, "lambda" Lambda's own rows and those resold (docs/snapshot.md).
  if (!f.providers.empty() && !contains(f.providers, p.id) &&
      !(o.via >= 0 && contains(f.providers, s.providers[o.via].id)))
    return "provider " + offer_seller_text(s, o) + " not selected";
  if (!f.regions.empty()) {
    bool any = false;
    for (const auto& r : f.regions) any = any || has_prefix(o.region, r);
    if (!any) return "region " + o.region + " not selected";
  }
  if (!f.gpus.empty() && !contains(f.gpus, g.id)) return "GPU " + g.id + " not selected";
  if (f.min_vram_GiB > 0 && gpu_capacity_bytes(g) < f.min_vram_GiB * kGiB)
    return fmt("%.1f GiB per GPU, below the %.1f GiB minimum", gpu_capacity_bytes(g) / kGiB, f.min_vram_GiB);
  if (f.min_gpus > 0 && o.gpu_count < f.min_gpus) return fmt("%.0f GPUs, below the minimum of %.0f", o.gpu_count, f.min_gpus);
  if (f.max_gpus > 0 && o.gpu_count > f.max_gpus) return fmt("%.0f GPUs, above the maximum of %.0f", o.gpu_count, f.max_gpus);
  switch (f.interconnect) {
    case InterconnectFilter::any: break;
    case InterconnectFilter::nvswitch:
      if (o.intra_link != LinkClass::nvswitch) return std::string("interconnect is ") + link_class_name(o.intra_link) + ", not nvswitch";
      break;
    case InterconnectFilter::nvlink:
      if (o.intra_link != LinkClass::nvswitch && o.intra_link != LinkClass::nvlink && o.intra_link != LinkClass::nvlink_bridge)
        return std::string("interconnect is ") + link_class_name(o.intra_link) + ", not NVLink";
      break;
    case InterconnectFilter::pcie:
      if (o.intra_link != LinkClass::pcie && o.intra_link != LinkClass::none)
        return std::string("interconnect is ") + link_class_name(o.intra_link) + ", not PCIe";
      break;
  }
  if (f.min_host_ram_GiB > 0 && o.host_ram_bytes < f.min_host_ram_GiB * kGiB)
    return fmt("host RAM %.0f GiB, below the %.0f GiB minimum", o.host_ram_bytes / kGiB, f.min_host_ram_GiB);
  if (f.hide_stale && (o.flags & kFlagStale)) return "stale price (captured " + o.capture_date + ")";
  if (f.hide_flagged && (o.flags & ~static_cast<uint32_t>(kFlagStale)))
    return "data-quality warning: " + offer_flag_names(o.flags).front();
  return "";
}

bool same_shape(const ShapePlan& a, const Offer& o, int max_nodes, double read_MBps) {
  return a.gpu == o.gpu && a.gpu_count == o.gpu_count && a.intra_link == o.intra_link &&
         a.intra_link_GBps == o.intra_link_GBps && a.inter_net == o.inter_net && a.inter_net_Gbps == o.inter_net_Gbps &&
         a.max_nodes == max_nodes && a.storage_read_MBps == read_MBps && a.vcpus == o.vcpus &&
         a.host_ram_bytes == o.host_ram_bytes;
}

// The same shape but for host RAM and vCPUs. The planner reads those two only for CPU-offload layouts, so a
// plan whose search tried none (PlanResult::uses_host false) is exactly the plan of such a twin.
bool same_but_host(const ShapePlan& a, const Offer& o, int max_nodes, double read_MBps) {
  return a.gpu == o.gpu && a.gpu_count == o.gpu_count && a.intra_link == o.intra_link &&
         a.intra_link_GBps == o.intra_link_GBps && a.inter_net == o.inter_net && a.inter_net_Gbps == o.inter_net_Gbps &&
         a.max_nodes == max_nodes && a.storage_read_MBps == read_MBps;
}

// The plan-cache key's parts: numbers as raw bytes and strings with their length, so two keys are equal
// exactly when the inputs are bit-identical (formatting ~300 doubles with %.17g was most of the key's cost; the
// wasm build's musl formats through software long double).
void key_bytes(std::string& key, const void* p, size_t n) { key.append(static_cast<const char*>(p), n); }
void key_number(std::string& key, double v) { key_bytes(key, &v, sizeof v); }
void key_int(std::string& key, int64_t v) { key_bytes(key, &v, sizeof v); }
void key_string(std::string& key, const std::string& v) {
  key_int(key, static_cast<int64_t>(v.size()));
  key += v;
}

// What a plan depends on besides the shape: the job (model, setup, the dataset's bytes per token, efficiency
// override), i.e. the query less what never reaches the planner's search (filters, cost options, target, sort, top,
// the dataset's size; filters.max_nodes does, through the shape's max_nodes), compared member-wise
// (Query::operator==: every field, by construction); and
// the GPU table (shapes name GPUs by index), whose architecture and name the planner reads too (the
// compute-efficiency ceiling, an error's text). Not query_to_json: serialising the query was ~40% of the
// page's first ranking in wasm's baseline tier.
Query plan_job_query(const Query& q) {
  Query k = q;
  // The dataset's size reaches only a plan's totals (set_dataset_totals redoes them on a cache hit); its bytes per
  // token also decide whether storage bounds the pace. Dragging the dataset size re-ranks without re-planning.
  k.dataset = Dataset{};
  k.dataset.bytes_per_token = q.dataset.bytes_per_token;
  k.filters = Filters{};
  k.filters.must_fit = q.filters.must_fit;  // the planner's fit level (PlanOptions::require_fits)
  k.cost = CostOptions{};
  k.target = Target{};
  k.sort = SortKey::total_cost;
  k.top = 0;
  return k;
}

std::string gpu_table_key(const Snapshot& s) {
  std::string key;
  key_int(key, static_cast<int64_t>(s.gpus.size()));
  for (const GpuSpec& g : s.gpus) {
    key_string(key, g.id);
    key_string(key, g.name);
    key_string(key, g.arch);
    for (double v : {g.memory_bytes, g.cuda_memory_bytes, g.mem_bandwidth_GBps, g.tflops_fp32, g.tflops_tf32, g.tflops_bf16, g.tflops_fp16,
                     g.tflops_fp8, g.nvlink_GBps})
      key_number(key, v);
    for (int64_t v : {int64_t(g.nvlink_gen), int64_t(g.pcie_gen), int64_t(g.spec_incomplete ? 1 : 0)}) key_int(key, v);
  }
  return key;
}

// The figures of one row for one node count (what the ranking compares before it writes the row).
struct Candidate {
  int nodes = 0, plan_index = -1;
  double time_s = 0, time_low_s = 0, time_high_s = 0, wall_s = 0, total_usd = 0, total_low_usd = 0,
         total_high_usd = 0, rounding_waste_usd = 0, usd_per_mtok = 0, memory_bytes = 0, memory_high_bytes = 0,
         headroom = 0, dev_cycle_usd = -1;
  FitVerdict verdict = FitVerdict::no_fit;
  void write_to(RankRow& row) const {
    row.nodes = nodes;
    row.plan_index = plan_index;
    row.time_s = time_s;
    row.time_low_s = time_low_s;
    row.time_high_s = time_high_s;
    row.wall_s = wall_s;
    row.total_usd = total_usd;
    row.total_low_usd = total_low_usd;
    row.total_high_usd = total_high_usd;
    row.rounding_waste_usd = rounding_waste_usd;
    row.usd_per_mtok = usd_per_mtok;
    row.memory_bytes = memory_bytes;
    row.memory_high_bytes = memory_high_bytes;
    row.headroom = headroom;
    row.verdict = verdict;
    row.dev_cycle_usd = dev_cycle_usd;
  }
};

// What a node-count choice depends on besides the query (rank_offers keeps the last few choices, Ranker::recent).
struct ChoiceKey {
  int shape = -1, provider = -1;
  const BillingRule* rule = nullptr;
  PricingOption option = PricingOption::on_demand;
  uint64_t price_bits = 0, spot_bits = 0;  // the offer's on-demand and spot prices, compared bit for bit
  uint64_t reserved_bits = 0;              // its reserved price, and the product's index
  int reservation = -1;
  bool operator==(const ChoiceKey& o) const {
    return shape == o.shape && provider == o.provider && rule == o.rule && option == o.option &&
           price_bits == o.price_bits && spot_bits == o.spot_bits && reserved_bits == o.reserved_bits &&
           reservation == o.reservation;
  }
};
struct Choice {
  ChoiceKey key;  // shape -1: empty
  bool have = false, have_any = false;  // a candidate within deadline and budget / any costed candidate
  Candidate best, fastest;
  std::string last_error;               // the last cost evaluation's error (none costed)
};

uint64_t bits_of(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

template <class Row>  // RankRow or Candidate
double sort_value(SortKey k, const Row& r) {
  switch (k) {
    case SortKey::time: return r.wall_s;
    case SortKey::usd_per_mtok: return r.usd_per_mtok;
    // A row whose dev-cycle cost failed (< 0) sorts last.
    case SortKey::dev_cycle: return r.dev_cycle_usd >= 0 ? r.dev_cycle_usd : std::numeric_limits<double>::infinity();
    case SortKey::total_cost:
    case SortKey::cost_under_deadline: return r.total_usd;
  }
  return r.total_usd;
}

}  // namespace

std::string oldest_ranked_capture(const Snapshot& snapshot, const RankResult& r) {
  const std::string* oldest = nullptr;
  for (const RankRow& row : r.rows) {
    if (row.state != RowState::ranked || row.offer < 0 || row.offer >= static_cast<int>(snapshot.offers.size())) continue;
    const std::string& d = snapshot.offers[static_cast<size_t>(row.offer)].capture_date.str();
    if (!d.empty() && (!oldest || d < *oldest)) oldest = &d;
  }
  return oldest ? *oldest : std::string();
}

const char* row_state_name(RowState s) {
  switch (s) {
    case RowState::ranked: return "ranked";
    case RowState::does_not_fit: return "does_not_fit";
    case RowState::filtered: return "filtered";
    case RowState::no_price: return "no_price";
    case RowState::unsupported: return "unsupported";
    case RowState::error: return "error";
    case RowState::held_back: return "held_back";
  }
  return "?";
}

uint32_t held_back_flags(const Offer& o, PricingOption option) {
  // A reserved price comes from the product's own price list, not the catalog row the flags judge.
  if (option == PricingOption::reserved) return 0;
  // deep_spot_discount doubts the spot price only (rank.h).
  const uint32_t doubtful = option == PricingOption::spot ? kDoubtfulPriceFlags
                                                          : (kDoubtfulPriceFlags & ~static_cast<uint32_t>(kFlagDeepSpotDiscount));
  return o.flags & doubtful;
}

DevCycleInput dev_cycle_input(const Query& q, const Provider& p, const Offer& o, PricingOption option, int nodes) {
  DevCycleInput in;
  in.runs = q.cost.dev_runs;
  in.run_s = q.cost.dev_run_minutes * 60;
  in.nodes = nodes;
  in.price_usd_per_h = option_price_usd_per_h(o, option);
  in.provision_s = p.provision_s >= 0 ? p.provision_s : kAssumedProvisionS;  // unknown: rank.h's assumption
  in.bills_provisioning = p.bills_provisioning;
  return in;
}

// The job-level inputs of one cost evaluation.
static JobCostInput job_input(const Query& q, const RankResult& r, const Snapshot& s, const Provider& p,
                              const Offer& o, PricingOption option, int nodes, double train_s) {
  JobCostInput in;
  fill_job_cost_input(in, p, o, option, reservation_of(s, o));
  in.train_time_s = train_s;
  in.nodes = nodes;
  in.dataset_bytes = r.dataset_bytes;
  in.checkpoint_bytes = r.checkpoint_bytes;
  // Every node writes and reads its shard of the checkpoint in parallel.
  in.checkpoint_write_MBps = p.storage_write_MBps > 0 ? p.storage_write_MBps * nodes : 0;
  in.checkpoint_read_MBps = p.storage_read_MBps > 0 ? p.storage_read_MBps * nodes : 0;
  in.checkpoint_interval_s = q.cost.checkpoint_interval_s;
  in.eval_fraction = q.cost.eval_overhead;
  in.volume_GB = q.cost.volume_GB > 0 ? q.cost.volume_GB : (r.checkpoint_bytes + r.dataset_bytes) / kGB;
  in.egress_GB = q.cost.egress_GB;
  // Figures the snapshot does not know (null in JSON, < 0 here) get the documented assumptions of rank.h, so
  // every offer is costed the same way; the row says which assumptions it used.
  if (!(in.staging_MBps > 0)) in.staging_MBps = kAssumedStagingMBps;
  if (!(in.checkpoint_write_MBps > 0)) in.checkpoint_write_MBps = kAssumedStorageMBps * nodes;
  if (!(in.checkpoint_read_MBps > 0)) in.checkpoint_read_MBps = kAssumedStorageMBps * nodes;
  if (!(in.storage_usd_per_GB_month >= 0)) in.storage_usd_per_GB_month = kAssumedStorageUsdPerGBMonth;
  if (!(in.egress_usd_per_GB >= 0)) in.egress_usd_per_GB = kAssumedEgressUsdPerGB;
  if (!(in.provision_s >= 0)) in.provision_s = kAssumedProvisionS;
  if (option == PricingOption::spot && !(in.spot_interruption_rate_per_h >= 0))
    in.spot_interruption_rate_per_h = q.cost.spot_interruption_rate_per_h > 0 ? q.cost.spot_interruption_rate_per_h
                                                                                : kAssumedSpotInterruptionsPerH;
  if (option == PricingOption::spot && q.cost.spot_interruption_rate_per_h > 0)
    in.spot_interruption_rate_per_h = q.cost.spot_interruption_rate_per_h;
  if (!(in.spot_interruption_rate_per_h >= 0)) in.spot_interruption_rate_per_h = 0;
  return in;
}

namespace {

// What the planner is asked for an offer sold by `p` (billing.h seller_of): one source for the ranking and for
// plan_offer_row, so a row's detail shows the plan the ranking made.
PlanOptions shape_plan_options(const Provider& p, const Filters& f, int alternatives) {
  PlanOptions popt;
  popt.storage_read_MBps = p.storage_read_MBps;
  popt.max_runners_up = 3;
  popt.require_fits = f.must_fit;
  popt.alternatives = alternatives;
  return popt;
}

// The node counts an offer is planned for: its own limit and the query's.
int shape_max_nodes(const Offer& o, const Filters& f) { return std::max(1, std::min(o.max_nodes, f.max_nodes)); }

// The training setup every shape is planned with: the query's, with its efficiency override and calibration.
TrainConfig ranking_train(const Query& q) {
  TrainConfig train = q.train;
  if (q.mfu > 0) train.compute_efficiency = q.mfu;
  if (q.calibration.efficiency_scale > 0) train.efficiency_scale = q.calibration.efficiency_scale;
  return train;
}

// NOTE(perf): rank_offers is a short driver over functions of moderate size, kept out of line (see the NOTE in
// snapshot.cpp): the per-offer work (Ranker::offer), a shape's plan (Ranker::shape_for), a node-count choice
// (Ranker::choose), the sort and the Pareto sweep. With the offer loop inside one long function, every page
// load had V8 optimise all of rank_offers (~80 ms of a core) during the first ranking; now only the small hot
// parts are, and later rankings run them optimised.
struct Ranker {
  const Query& q;
  const Snapshot& s;
  const Filters& f;
  const TrainConfig& train;
  const DatasetTokens& tok;
  RankResult& r;
  const TimeBand band = time_band(q.model);  // the job's time band (dense or MoE), once per ranking
  int alternatives = kRankAlternatives;  // PlanOptions::alternatives of every shape planned
  std::vector<ShapePlan>* cached = nullptr;  // the PlanCache's shapes, hit and miss counters (none: no cache)
  int* hits = nullptr;
  int* misses = nullptr;
  std::vector<std::vector<int>> shapes_of_gpu;  // shape indices by GPU index (see shape_for)
  // The cache's shapes from earlier rankings, by GPU index: a lookup scans a GPU's few shapes, not every cached
  // one (the bundled snapshot's ~700 shapes made that scan quadratic: ~10 ms of the page's first ranking in the
  // browser's baseline tier). Shapes this ranking adds to the cache are found through shapes_of_gpu instead.
  std::vector<std::vector<int>> cached_of_gpu;
  std::optional<PlanJob> job;  // the job-level half of planning, prepared at the first shape planned
  CostBreakdown cost;          // every cost evaluation's breakdown, reused
  // The last node-count choices, one per pricing option an offer can have: an offer's on-demand, spot and
  // reserved rows come one after another, and the next offer of the same instance type and prices takes them.
  static constexpr int kRecent = static_cast<int>(std::size(kPricingOptions));
  Choice recent[kRecent];
  unsigned recent_used[kRecent] = {};  // when each was last used (a tick), to replace the least recent
  unsigned recent_tick = 0;

  [[gnu::noinline]] void offer(int i);
  bool pre_filter(RankRow& row, const Offer& o, const std::string& offer_reason);
  [[gnu::noinline]] void place(RankRow& row, const ShapePlan& shape, const Provider& p, const Offer& o);
  [[gnu::noinline]] int shape_for(const Offer& o, const Provider& p, int max_nodes);
  Candidate candidate(const Plan& plan, int k, double train_s, const GpuSpec& g, const Provider& p, const Offer& o,
                      const BillingRule& rule, PricingOption option) const;
  [[gnu::noinline]] void choose(Choice& choice, const ShapePlan& shape, const Provider& p, const Offer& o,
                                const BillingRule& rule, PricingOption option);
};

// The filters of one row that need no plan: the offer's own (offer_filter), the pricing option, the hourly
// price limit, and the doubtful-price hold-back. Sets the row's state and reason; false when it passes.
bool Ranker::pre_filter(RankRow& row, const Offer& o, const std::string& offer_reason) {
  const PricingOption option = row.option;
  if (!offer_reason.empty()) {
    row.why_not = offer_reason;
  } else if (!pricing_admits(f.pricing, option)) {
    row.why_not = std::string(pricing_option_name(option)) + " price (only " +
                  pricing_option_name(pricing_option_of(f.pricing)) + " selected)";
  } else if (f.launchable && (option == PricingOption::reserved || access_fact(s, o).how != Access::self_serve)) {
    row.why_not = launch_why_not(access_fact(s, o), option);
  } else if (f.max_usd_per_h > 0 && row.price_usd_per_h > f.max_usd_per_h) {
    row.why_not = fmt("$%.2f/h per instance, above the $%.2f/h limit", row.price_usd_per_h, f.max_usd_per_h);
  } else if (const uint32_t doubt = f.show_doubtful ? 0u : held_back_flags(o, option)) {
    row.state = RowState::held_back;
    row.why_not = "doubtful price:";
    for (const std::string& n : offer_flag_names(doubt)) row.why_not += " " + n;
    return true;
  } else {
    return false;
  }
  row.state = RowState::filtered;
  return true;
}

// Both pricing options of offer i: filters, its shape's plan, the node count, the row.
void Ranker::offer(int i) {
  const Offer& o = s.offers[i];
  const Provider& p = seller_of(s, o);  // whose terms bill it (billing.h)
  const std::string offer_reason = offer_filter(f, s, o);
  for (PricingOption option : kPricingOptions) {
    const double price = option_price_usd_per_h(o, option);
    if (price < 0) continue;  // this offer has no such pricing option
    // Built in place: every path below leaves exactly this one row (capacity reserved above, no reallocation).
    RankRow& row = r.rows.emplace_back();
    row.offer = i;
    row.option = option;
    row.price_usd_per_h = price;
    if (pre_filter(row, o, offer_reason)) continue;  // filtered rows are not planned: the filter is their reason

    const int sh = shape_for(o, p, shape_max_nodes(o, f));
    row.shape = sh;
    const ShapePlan& shape = r.shapes[sh];
    if (!shape.ok) {
      row.state = RowState::unsupported;
      row.why_not = shape.error;
    } else if (!shape.plan.fits) {
      row.state = RowState::does_not_fit;
      row.why_not = shape.plan.why_not;
    } else {
      place(row, shape, p, o);
    }
  }
}

// Chooses the node count: the best sort value among those within the deadline and the budget. The candidates
// are kept as numbers (a whole row copied per node count was ~10% of a first ranking in the wasm baseline
// tier) and the chosen one is written into the row once. The choice depends only on the shape's plan, the
// provider, the billing rule, the option and the offer's two prices: offers of one instance type in regions
// with the same prices, listed next to each other, take one of the last choices (one per pricing option; ~35% of
// the bundled snapshot's costed rows) instead of costing every node count again.
void Ranker::place(RankRow& row, const ShapePlan& shape, const Provider& p, const Offer& o) {
  const BillingRule& rule = billing_rule_for(p, o.instance_type);
  const ChoiceKey key{row.shape,        o.via >= 0 ? o.via : o.provider, &rule,
                      row.option,       bits_of(o.price_usd_per_h),       bits_of(o.spot_usd_per_h),
                      bits_of(o.reserved_usd_per_h), o.reservation};
  Choice* choice = nullptr;
  int oldest = 0;
  for (int c = 0; c < kRecent; ++c) {
    if (recent[c].key == key) {
      choice = &recent[c];
      recent_used[c] = ++recent_tick;
      break;
    }
    if (recent_used[c] < recent_used[oldest]) oldest = c;
  }
  if (!choice) {
    choice = &recent[oldest];
    recent_used[oldest] = ++recent_tick;
    choice->key = key;
    choose(*choice, shape, p, o, rule, row.option);
  }
  if (choice->have) {
    choice->best.write_to(row);
  } else if (choice->have_any) {
    const Candidate& fastest = choice->fastest;
    fastest.write_to(row);
    row.state = RowState::filtered;
    if (f.deadline_h > 0 && fastest.wall_s > f.deadline_h * kHour_s)
      row.why_not = fmt("deadline: the fastest plan takes %.1f h, over the %.1f h deadline", fastest.wall_s / kHour_s,
                        f.deadline_h);
    else
      row.why_not = fmt("budget: the cheapest plan within the deadline costs more than $%.0f", f.budget_usd);
  } else {
    row.state = RowState::error;
    row.why_not = choice->last_error.empty() ? (q.target.nodes > 0 ? fmt("no plan on %.0f nodes", q.target.nodes)
                                                                   : std::string("no plan could be costed"))
                                             : choice->last_error;
  }
}

// The index in r.shapes of the plan for offer o's shape: one already made in this ranking, one from the
// cache, the plan of a twin that differs only in host RAM / vCPUs, or a new plan. Shapes are looked up by GPU
// index, so the lookup stays a short scan however many offers share the GPU (the snapshot grows by
// regions and providers, the shapes do not).
int Ranker::shape_for(const Offer& o, const Provider& p, int max_nodes) {
  for (int k : shapes_of_gpu[o.gpu])
    if (same_shape(r.shapes[k], o, max_nodes, p.storage_read_MBps)) return k;
  if (cached) {
    for (int k : cached_of_gpu[o.gpu]) {
      const ShapePlan& c = (*cached)[k];
      if (same_shape(c, o, max_nodes, p.storage_read_MBps)) {
        r.shapes.push_back(c);
        if (r.shapes.back().ok) set_dataset_totals(r.shapes.back().plan, tok);  // planned for another size, maybe
        const int sh = static_cast<int>(r.shapes.size()) - 1;
        shapes_of_gpu[o.gpu].push_back(sh);
        ++r.shapes_cached;
        ++*hits;
        return sh;
      }
    }
  }
  ShapePlan shape;
  shape.gpu = o.gpu;
  shape.gpu_count = o.gpu_count;
  shape.intra_link = o.intra_link;
  shape.intra_link_GBps = o.intra_link_GBps;
  shape.inter_net = o.inter_net;
  shape.inter_net_Gbps = o.inter_net_Gbps;
  shape.max_nodes = max_nodes;
  shape.storage_read_MBps = p.storage_read_MBps;
  shape.vcpus = o.vcpus;
  shape.host_ram_bytes = o.host_ram_bytes;
  const ShapePlan* twin = nullptr;
  for (int k : shapes_of_gpu[o.gpu]) {
    const ShapePlan& c = r.shapes[k];
    if (c.ok && !c.plan.uses_host && same_but_host(c, o, max_nodes, p.storage_read_MBps)) {
      twin = &c;
      break;
    }
  }
  if (twin) {
    shape.ok = true;
    shape.plan = twin->plan;
    ++r.shapes_shared;
  } else {
    if (!job) job.emplace(q.model, train, q.dataset);
    Result<PlanResult> plan = plan_job(*job, s.gpus[o.gpu], o, max_nodes, shape_plan_options(p, f, alternatives));
    if (plan) {
      shape.ok = true;
      shape.plan = std::move(plan).value();
    } else {
      shape.error = plan.error().to_string();
    }
  }
  if (cached) {
    cached->push_back(shape);
    ++*misses;
  }
  r.shapes.push_back(std::move(shape));
  const int sh = static_cast<int>(r.shapes.size()) - 1;
  shapes_of_gpu[o.gpu].push_back(sh);
  ++r.shapes_planned;
  return sh;
}

// The candidate of one node count from the cost breakdown just computed (`cost`), with the dev-cycle cost
// when the query asks for it.
Candidate Ranker::candidate(const Plan& plan, int k, double train_s, const GpuSpec& g, const Provider& p,
                            const Offer& o, const BillingRule& rule, PricingOption option) const {
  const CostBreakdown* c = &cost;
  Candidate cand;
  cand.nodes = plan.nodes;
  cand.plan_index = k;
  cand.time_s = train_s;
  cand.time_low_s = train_s * (1 - band.low);
  cand.time_high_s = train_s * (1 + band.high);
  cand.wall_s = c->wall_s;
  cand.total_usd = c->total_usd;
  // Band: the time band scales the compute part; for spot the interruption quantiles widen it.
  const double compute_part = c->compute_usd + c->rounding_waste_usd;
  cand.total_low_usd = std::min(c->low.total_usd, c->total_usd) - compute_part * band.low;
  cand.total_high_usd = std::max(c->high.total_usd, c->total_usd) + compute_part * band.high;
  cand.total_low_usd = std::max(0.0, cand.total_low_usd);
  cand.rounding_waste_usd = c->rounding_waste_usd;
  cand.usd_per_mtok = r.useful_tokens > 0 ? c->total_usd / (r.useful_tokens / 1e6) : 0;
  cand.memory_bytes = plan.memory_bytes;
  cand.memory_high_bytes = plan.memory_high_bytes;
  cand.headroom = gpu_capacity_bytes(g) > 0 ? 1 - plan.memory_bytes / gpu_capacity_bytes(g) : 0;
  cand.verdict = plan.verdict;
  // Development runs are not booked as reservations: a reserved row has no dev-cycle cost (sorts last by it).
  if (q.cost.dev_runs > 0 && q.cost.dev_run_minutes > 0 && option != PricingOption::reserved) {
    Result<DevCycleCost> dc = dev_cycle_cost(dev_cycle_input(q, p, o, option, plan.nodes), rule);
    cand.dev_cycle_usd = dc ? dc->cost_usd : -1;
  }
  return cand;
}

// Costs every node count of the shape's plan for one offer and pricing option: the best candidate within the
// deadline and the budget by the sort key, and the fastest of all (shown, filtered, when none qualifies).
void Ranker::choose(Choice& choice, const ShapePlan& shape, const Provider& p, const Offer& o,
                    const BillingRule& rule, PricingOption option) {
  choice.have = choice.have_any = false;
  choice.last_error.clear();
  const GpuSpec& g = s.gpus[o.gpu];
  bool& have = choice.have;
  bool& have_any = choice.have_any;
  Candidate& best = choice.best;
  Candidate& fastest = choice.fastest;
  const auto& by_nodes = shape.plan.by_nodes;
  for (int k = 0; k < static_cast<int>(by_nodes.size()); ++k) {
    const Plan& plan = by_nodes[k];
    if (!plan.why.empty() || !(plan.tokens_per_s > 0)) continue;
    if (q.target.nodes > 0 && plan.nodes != q.target.nodes) continue;
    if (option == PricingOption::reserved) {  // a booking's instance limit
      const Reservation* rv = reservation_of(s, o);
      if (rv && rv->max_instances > 0 && plan.nodes > rv->max_instances) continue;
    }
    const double train_s = tok.processed / plan.tokens_per_s;
    Error cost_error;
    const bool costed = compute_job_cost(job_input(q, r, s, p, o, option, plan.nodes, train_s), rule, cost, &cost_error);
    ++r.cost_evaluations;
    if (!costed) {
      choice.last_error = cost_error.to_string();
      continue;
    }
    const Candidate cand = candidate(plan, k, train_s, g, p, o, rule, option);
    if (!have_any || cand.wall_s < fastest.wall_s) fastest = cand;
    have_any = true;
    const bool deadline_ok = f.deadline_h <= 0 || cand.wall_s <= f.deadline_h * kHour_s;
    const bool budget_ok = f.budget_usd <= 0 || cand.total_usd <= f.budget_usd;
    if (!deadline_ok || !budget_ok) continue;
    // Equal sort values: the plan that fits beats a tight one ("prefer a fitting layout of equal cost").
    const bool better = !have || sort_value(q.sort, cand) < sort_value(q.sort, best) ||
                        (sort_value(q.sort, cand) == sort_value(q.sort, best) && cand.verdict == FitVerdict::fits &&
                         best.verdict != FitVerdict::fits);
    if (better) best = cand;
    have = true;
  }
}

// a < b as std::string orders them (bytes as unsigned, then length), eight bytes at a time up to the first
// difference: ids share long prefixes ("aws/p5.48xlarge/us-east-1", "aws/p5.48xlarge/us-east-2"), and the wasm
// build's memcmp compares one byte per step.
bool id_less(const std::string& a, const std::string& b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) break;
  }
  for (; i < n; ++i)
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  return a.size() < b.size();
}

[[gnu::noinline]] void sort_rows(const Query& q, const Snapshot& s, RankResult& r) {
  // Sort: ranked rows by the key (ties: offer id, then on-demand first) for byte-identical output; the rest
  // after them in snapshot order. Sorted as small keys, then the rows moved once: sorting the rows themselves
  // (~200 bytes each) was a third of the time at 100k offers.
  struct Key {
    int cls;
    double value;
    int index;
    int offer;
    PricingOption option;
  };
  auto class_of = [](RowState st) { return st == RowState::ranked ? 0 : st == RowState::does_not_fit ? 1 : 2; };
  // Grouped by class in one counting pass (the same order two stable partitions gave), the comparison sort
  // for the ranked rows only; the others keep snapshot order within their class.
  std::vector<Key> keys(r.rows.size());
  size_t next[3] = {0, 0, 0};
  for (const RankRow& row : r.rows) ++next[class_of(row.state)];
  next[2] = next[0] + next[1];
  next[1] = next[0];
  next[0] = 0;
  const size_t n_ranked = next[1];
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const RankRow& row = r.rows[i];
    const int cls = class_of(row.state);
    keys[next[cls]++] = Key{cls, sort_value(q.sort, row), static_cast<int>(i), row.offer, row.option};
  }
  // Ties: offer id (std::string's order: bytes as unsigned, then length), then on-demand first. Equal sort values
  // are common (one instance type at one price in many regions): id_less compares eight bytes at a time, where
  // the wasm build's memcmp took one per step (a third of a 100k-offer ranking in the browser).
  std::sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(n_ranked), [&](const Key& a, const Key& b) {
    if (a.value != b.value) return a.value < b.value;
    if (a.offer != b.offer) return id_less(s.offers[a.offer].id, s.offers[b.offer].id);
    if (a.option != b.option) return a.option < b.option;
    return a.index < b.index;
  });
  // The rows moved into their places in one pass over each cycle of the permutation, in place: a sorted copy
  // had two full row vectors alive at once (~50 MB at 100k offers in the wasm heap, which never shrinks;
  // docs/performance.md, "100k offers: where the heap goes").
  // Each cycle: the first row out to a temporary, every other row moved once into the place that wants it.
  // The walk follows the source indices alone, compacted in place into the front of the keys' storage (4 bytes a
  // row instead of 32: the walk stays in cache, and nothing is allocated beside the rows), and the rows are moved
  // 64 places at a time, listed first: they lie at random places in ~20 MB at 100k offers, and with every address
  // known in advance the processor overlaps their cache misses, where following the chain key by key waited for
  // each in turn (the reorder was a quarter of a 100k-offer ranking, natively and in the browser).
  unsigned char* const src_bytes = reinterpret_cast<unsigned char*>(keys.data());
  auto src_at = [src_bytes](size_t k) {
    int32_t v;
    std::memcpy(&v, src_bytes + 4 * k, 4);
    return v;
  };
  auto src_set = [src_bytes](size_t k, int32_t v) { std::memcpy(src_bytes + 4 * k, &v, 4); };
  for (size_t k = 0; k < keys.size(); ++k) src_set(k, keys[k].index);  // ascending: never over an unread key
  const size_t n_rows = r.rows.size();
  for (size_t start = 0; start < n_rows; ++start) {
    if (src_at(start) < 0 || static_cast<size_t>(src_at(start)) == start) continue;
    RankRow held = std::move(r.rows[start]);
    size_t place = start;
    for (;;) {
      uint32_t chunk[64];
      int n = 0;
      bool closed = false;
      chunk[n++] = static_cast<uint32_t>(place);
      while (n < 64) {
        const size_t from = static_cast<size_t>(src_at(place));
        src_set(place, -1);  // placed
        if (from == start) {
          closed = true;
          break;
        }
        place = from;
        chunk[n++] = static_cast<uint32_t>(place);
      }
      for (int k = 0; k + 1 < n; ++k) r.rows[chunk[k]] = std::move(r.rows[chunk[k + 1]]);
      if (closed) {
        r.rows[chunk[n - 1]] = std::move(held);
        break;
      }
      // A full chunk: its last place is filled first thing in the next one.
    }
  }
  for (const auto& row : r.rows) {
    r.ranked += row.state == RowState::ranked;
    r.held_back += row.state == RowState::held_back;
  }

}

[[gnu::noinline]] void mark_pareto(RankResult& r) {
  // Pareto frontier on (wall time, total cost): sweep by time, keep rows strictly cheaper than all faster ones.
  struct Point {
    double wall_s, usd;
    int index;
  };
  std::vector<Point> pts(r.ranked);
  for (int i = 0; i < r.ranked; ++i) pts[i] = Point{r.rows[i].wall_s, r.rows[i].total_usd, i};
  std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) {
    if (a.wall_s != b.wall_s) return a.wall_s < b.wall_s;
    if (a.usd != b.usd) return a.usd < b.usd;
    return a.index < b.index;
  });
  double best_cost = std::numeric_limits<double>::infinity();
  for (const Point& pt : pts) {
    if (pt.usd < best_cost) {
      r.rows[pt.index].pareto = true;
      best_cost = pt.usd;
    }
  }
}
}  // namespace

void PlanCache::clear() {
  has_job_ = false;
  alternatives_ = 0;
  job_ = Query{};
  gpus_key_.clear();
  shapes_.clear();
}

Result<RankResult> rank_offers(const Query& q, const Snapshot& s) { return rank_offers(q, s, nullptr); }

Result<RankResult> rank_offers(const Query& q, const Snapshot& s, PlanCache* cache) {
  return rank_offers(q, s, cache, kRankAlternatives);
}

Result<PlanResult> plan_offer_row(const Query& q, const Snapshot& s, int offer) {
  if (offer < 0 || offer >= static_cast<int>(s.offers.size())) return Error{"target.offer", "no such offer"};
  const Offer& o = s.offers[offer];
  if (o.gpu < 0 || o.gpu >= static_cast<int>(s.gpus.size())) return Error{"target.offer", "the offer names no GPU"};
  return plan_job(q.model, ranking_train(q), q.dataset, s.gpus[o.gpu], o, shape_max_nodes(o, q.filters),
                  shape_plan_options(seller_of(s, o), q.filters, kRowAlternatives));
}

Result<RankResult> rank_offers(const Query& q, const Snapshot& s, PlanCache* cache, int alternatives) {
  RankResult r;
  Result<DatasetTokens> tok = dataset_tokens(q.dataset, q.train.seq_len);
  if (!tok) return tok.error();
  r.useful_tokens = tok->useful;
  r.processed_tokens = tok->processed;
  // Checkpoint: what a resumable save writes (Megatron/DeepSpeed save model states; LoRA saves the adapter
  // and its optimizer states only).
  MemoryLayout unsharded;
  Result<MemoryBreakdown> states = estimate_memory(q.model, q.train, unsharded);
  if (!states) return states.error();
  r.checkpoint_bytes = q.train.method == Method::full
                           ? states->weights + states->master_weights + states->optimizer_states
                           : states->lora_adapters;
  r.dataset_bytes = q.dataset.size_bytes > 0 ? q.dataset.size_bytes : tok->useful * q.dataset.bytes_per_token;

  const TrainConfig train = ranking_train(q);
  const Filters& f = q.filters;
  // Exactly one row per priced option (Ranker::offer): reserving twice the offers left ~a quarter of a 100k-offer
  // ranking's row vector unused.
  size_t n_rows = 0;
  for (const Offer& o : s.offers)
    for (PricingOption option : kPricingOptions) n_rows += option_price_usd_per_h(o, option) >= 0;
  r.rows.reserve(n_rows);
  // Shapes grow with GPU types, counts and hosts, not with regions (the bundled snapshot's 2,319 offers have 713
  // for an 8B LoRA, its 100k synthetic copy the same). Not reserved for all of them: 1,024 up front moved the
  // 100k-offer heap peak across an emscripten growth step (103 -> 112 MiB, docs/performance.md).
  r.shapes.reserve(std::min<size_t>(s.offers.size(), 256));
  if (cache) {
    Query job = plan_job_query(q);
    std::string gpus = gpu_table_key(s);
    if (!cache->has_job_ || !(job == cache->job_) || gpus != cache->gpus_key_ || alternatives != cache->alternatives_) {
      cache->has_job_ = true;
      cache->alternatives_ = alternatives;
      cache->job_ = std::move(job);
      cache->gpus_key_ = std::move(gpus);
      cache->shapes_.clear();
    }
  }
  Ranker rk{q, s, f, train, *tok, r};
  rk.alternatives = alternatives;
  if (cache) {
    rk.cached = &cache->shapes_;
    rk.hits = &cache->hits_;
    rk.misses = &cache->misses_;
  }
  rk.shapes_of_gpu.resize(s.gpus.size());
  rk.cached_of_gpu.resize(s.gpus.size());
  if (cache)
    for (int k = 0; k < static_cast<int>(cache->shapes_.size()); ++k) {
      const int gpu = cache->shapes_[k].gpu;
      if (gpu >= 0 && gpu < static_cast<int>(s.gpus.size())) rk.cached_of_gpu[gpu].push_back(k);
    }
  for (int i = 0; i < static_cast<int>(s.offers.size()); ++i) rk.offer(i);
  sort_rows(q, s, r);
  mark_pareto(r);
  return r;
}

Result<CostBreakdown> cost_for(const Query& q, const Snapshot& s, const RankResult& r, const RankRow& row, int nodes) {
  if (row.shape < 0 || row.shape >= static_cast<int>(r.shapes.size()) || !r.shapes[row.shape].ok)
    return Error{"target.offer", "this offer has no plan"};
  const auto& by_nodes = r.shapes[row.shape].plan.by_nodes;
  for (const Plan& plan : by_nodes) {
    if (plan.nodes != nodes || !plan.why.empty() || !(plan.tokens_per_s > 0)) continue;
    const Offer& o = s.offers[row.offer];
    const Provider& p = seller_of(s, o);
    return compute_job_cost(job_input(q, r, s, p, o, row.option, nodes, r.processed_tokens / plan.tokens_per_s),
                            billing_rule_for(p, o.instance_type));
  }
  return Error{"target.nodes", fmt("no plan fits on %.0f nodes", nodes)};
}

}  // namespace trainfit
