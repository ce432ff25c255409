// trainfit core — the ranking's plans: one per instance shape, shared by a twin that differs only in host RAM /
// vCPUs when the plan did not read them, served from a PlanCache when its key (the job and the GPU table) matches.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "market/rank_internal.h"

namespace trainfit {
namespace {

// Whether shape `a` is what offer `o` gives at `max_nodes` nodes and storage rate `read_MBps`: the same GPUs, links,
// networks, node cap and storage rate and, with `with_host`, the same vCPUs and host RAM. Without them: the twin of
// a shape that differs in host RAM and vCPUs only. The planner reads those two only for CPU-offload layouts, so a
// plan whose search tried none (PlanResult::uses_host false) is exactly the plan of such a twin. The storage rate is
// read by the report only (it caps a plan's tokens/s), but every node count's plan and runner-up may carry that cap
// (the recompute-module variants' reports are merged: planner.cpp plan_variants), so no plan is shared across rates.
bool same_shape(const ShapePlan& a, const Offer& o, int max_nodes, double read_MBps, bool with_host = true) {
  return a.gpu == o.gpu && a.gpu_count == o.gpu_count && a.intra_link == o.intra_link &&
         a.intra_link_GBps == o.intra_link_GBps && a.inter_net == o.inter_net && a.inter_net_Gbps == o.inter_net_Gbps &&
         a.max_nodes == max_nodes && a.offer_max_nodes == o.max_nodes && a.storage_read_MBps == read_MBps &&
         (!with_host || (a.vcpus == o.vcpus && a.host_ram_bytes == o.host_ram_bytes));
}

// Whether two dataset sizes are the same, bit for bit (a plan's totals are a function of them).
bool same_tokens(const DatasetTokens& a, const DatasetTokens& b) {
  return std::memcmp(&a.useful, &b.useful, sizeof a.useful) == 0 &&
         std::memcmp(&a.processed, &b.processed, sizeof a.processed) == 0 &&
         std::memcmp(&a.sequences, &b.sequences, sizeof a.sequences) == 0;
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

}  // namespace

namespace rank_detail {

// What a plan depends on besides the shape: the job (model, setup, the dataset's bytes per token, efficiency
// override), i.e. the query less what never reaches the planner's search (filters, cost options, the target but its
// node count, sort, top, the dataset's size; filters.max_nodes does, through the shape's max_nodes), compared member-wise
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
  k.target.nodes = q.target.nodes;  // the planner plans only that node count (PlanOptions::nodes)
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

// What the planner is asked for an offer sold by `p` (billing.h seller_of): one source for the ranking and for
// plan_offer_row, so a row's detail shows the plan the ranking made.
PlanOptions shape_plan_options(const Provider& p, const Filters& f, int alternatives, int nodes) {
  PlanOptions popt;
  popt.nodes = nodes;  // target.nodes
  popt.storage_read_MBps = p.storage_read_MBps;
  popt.max_runners_up = 3;
  popt.require_fits = f.must_fit;
  popt.alternatives = alternatives;
  return popt;
}

// The node counts an offer is planned for: its own limit and the query's (filters.max_nodes, raised to target.nodes
// when the query names a node count: an explicit count outranks the filter's default).
int shape_max_nodes(const Offer& o, const Filters& f, int target_nodes) {
  return std::max(1, std::min(o.max_nodes, std::max(f.max_nodes, target_nodes)));
}

// The training setup every shape is planned with: the query's, with its efficiency override and calibration.
TrainConfig ranking_train(const Query& q) {
  TrainConfig train = q.train;
  if (q.mfu > 0) train.compute_efficiency = q.mfu;
  if (q.calibration.efficiency_scale > 0) train.efficiency_scale = q.calibration.efficiency_scale;
  return train;
}

// The index in r.shapes of the plan for offer o's shape: one already made in this ranking, one from the
// cache, the plan of a twin that differs only in host RAM / vCPUs, or a new plan. Shapes are looked up by GPU
// index, so the lookup stays a short scan however many offers share the GPU (the snapshot grows by
// regions and providers, the shapes do not).
int Ranker::shape_for(const Offer& o, const Provider& p, int max_nodes) {
  const int sh = find_shape(o, p, max_nodes);
  last_shape = sh;
  return sh;
}

// shape_for's lookup. No two shapes of a ranking are the same (a shape is added only when none matches), so the
// previous offer's shape, when it matches, is the one the scan would find.
int Ranker::find_shape(const Offer& o, const Provider& p, int max_nodes) {
  if (last_shape >= 0 && same_shape(r.shapes[last_shape], o, max_nodes, p.storage_read_MBps)) return last_shape;
  for (int k : shapes_of_gpu[o.gpu])
    if (same_shape(r.shapes[k], o, max_nodes, p.storage_read_MBps)) return k;
  if (cached) {
    for (int k : cached_of_gpu[o.gpu]) {
      const ShapePlan& c = (*cached)[k];
      if (same_shape(c, o, max_nodes, p.storage_read_MBps)) {
        r.shapes.push_back(c);  // shares the cached plan
        // Planned for another dataset size, maybe: then a copy with this size's totals (the same tokens give the
        // same totals: report_plans set them with set_dataset_totals too).
        ShapePlan& got = r.shapes.back();
        if (got.ok && !same_tokens(got.plan().tokens, tok)) {
          auto sized = std::make_shared<PlanResult>(got.plan());
          set_dataset_totals(*sized, tok);
          got.plan_ptr = std::move(sized);
        }
        const int sh = static_cast<int>(r.shapes.size()) - 1;
        shapes_of_gpu[o.gpu].push_back(sh);
        ++r.shapes_cached;
        ++*hits;
        return sh;
      }
    }
  }
  ShapePlan shape{.gpu = o.gpu,
                  .gpu_count = o.gpu_count,
                  .intra_link = o.intra_link,
                  .intra_link_GBps = o.intra_link_GBps,
                  .inter_net = o.inter_net,
                  .inter_net_Gbps = o.inter_net_Gbps,
                  .max_nodes = max_nodes,
                  .offer_max_nodes = o.max_nodes,
                  .storage_read_MBps = p.storage_read_MBps,
                  .vcpus = o.vcpus,
                  .host_ram_bytes = o.host_ram_bytes};
  const ShapePlan* twin = nullptr;
  for (int k : shapes_of_gpu[o.gpu]) {
    const ShapePlan& c = r.shapes[k];
    if (c.ok && !c.plan().uses_host && same_shape(c, o, max_nodes, p.storage_read_MBps, false)) {
      twin = &c;
      break;
    }
  }
  if (twin) {
    shape.ok = true;
    shape.plan_ptr = twin->plan_ptr;
    ++r.shapes_shared;
  } else {
    if (!job) job.emplace(q.model, train, q.dataset);
    Result<PlanResult> plan = plan_job(*job, s.gpus[o.gpu], o, max_nodes, shape_plan_options(p, f, alternatives, q.target.nodes));
    if (plan) {
      shape.ok = true;
      shape.plan_ptr = std::make_shared<const PlanResult>(std::move(plan).value());
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

}  // namespace rank_detail

using rank_detail::ranking_train;
using rank_detail::shape_max_nodes;
using rank_detail::shape_plan_options;

Result<PlanResult> plan_offer_row(const Query& q, const Snapshot& s, int offer) {
  if (offer < 0 || offer >= static_cast<int>(s.offers.size())) return Error{"target.offer", "no such offer"};
  const Offer& o = s.offers[offer];
  if (o.gpu < 0 || o.gpu >= static_cast<int>(s.gpus.size())) return Error{"target.offer", "the offer names no GPU"};
  return plan_job(q.model, ranking_train(q), q.dataset, s.gpus[o.gpu], o, shape_max_nodes(o, q.filters, q.target.nodes),
                  shape_plan_options(seller_of(s, o), q.filters, kRowAlternatives, q.target.nodes));
}

}  // namespace trainfit
