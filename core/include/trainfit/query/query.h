// trainfit core — the one query model shared by the UI, the URL hash, the CLI and the JS API.
// A Query is everything a user can set. It has exactly two external forms, both handled here:
//   JSON   {"model": "llama-3-8b", "method": "lora", "seq_len": 4096, "parallel": {"tp": 2}, ...}
//   hash   #model=llama-3-8b&method=lora&seq_len=4096&parallel.tp=2
// Both go through one key table (query_keys.cpp), so every key has one name, one type and one check.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "trainfit/base/common.h"
#include "trainfit/catalog/job.h"
#include "trainfit/catalog/names.h"

namespace trainfit {

// dev_cycle: the billed cost of cost.dev_runs runs of cost.dev_run_minutes each (billing.h, dev_cycle_cost).
enum class SortKey { total_cost, time, usd_per_mtok, cost_under_deadline, dev_cycle };
// Which pricing options a query ranks (billing.h PricingOption, in its order): all, or one of them.
enum class PricingFilter { any, on_demand, spot, reserved };
enum class InterconnectFilter { any, nvlink, nvswitch, pcie };

struct Filters {
  std::vector<std::string> providers;   // empty = all
  std::vector<std::string> regions;     // region prefixes ("us-", "europe-west4"); empty = all
  std::vector<std::string> gpus;        // GPU ids; empty = all
  PricingFilter pricing = PricingFilter::any;
  InterconnectFilter interconnect = InterconnectFilter::any;
  double min_vram_GiB = 0;              // per GPU
  int min_gpus = 0;                     // GPUs per instance
  int max_gpus = 0;                     // 0 = no limit
  int max_nodes = 8;                    // multi-node search limit
  double max_usd_per_h = 0;             // per instance, 0 = no limit
  double deadline_h = 0;                // 0 = none
  double budget_usd = 0;                // 0 = none
  double min_host_ram_GiB = 0;
  bool must_fit = false;                // only plans whose verdict is `fits` (no `tight` ones: memory.h)
  bool show_all = false;                // also list rows that are not ranked (do not fit, filtered, ...)
  bool hide_stale = false;
  bool hide_flagged = false;            // hide offers with data-quality warnings
  // Rank offers whose price the snapshot itself doubts (rank.h, held_back_flags); by default they are held
  // back: counted, with their reasons, but not ranked.
  bool show_doubtful = false;
  // Only rows one can launch now without a reservation or a quota request: self-serve offers (snapshot.h
  // AccessFact) under on-demand or spot. Offers whose access is not published are left out too.
  bool launchable = false;

  bool operator==(const Filters&) const = default;
};

struct CostOptions {
  double checkpoint_interval_s = 0;     // 0 = Young/Daly optimum
  double eval_overhead = 0;             // fraction of training time spent in evaluation
  double volume_GB = 0;                 // persistent volume kept for the job's life (0 = checkpoints + dataset)
  double egress_GB = 0;                 // data taken out at the end (final weights, logs)
  double spot_interruption_rate_per_h = 0;  // 0 = the snapshot's rate, or rank.h's assumption where it has none
  int dev_runs = 0;                     // development-cycle scenario: K runs ...
  double dev_run_minutes = 0;           // ... of T minutes each

  bool operator==(const CostOptions&) const = default;
};

// What `plan`, `cost` and `estimate` look at: one offer (and node count), or one GPU model.
struct Target {
  std::string offer;                    // offer id from the snapshot ("aws/p5.48xlarge/us-east-1")
  std::string gpu;                      // GPU id for `estimate`'s fit check ("h100-sxm")
  int nodes = 0;                        // 0 = let the planner choose
  PricingFilter pricing = PricingFilter::any;

  bool operator==(const Target&) const = default;
};

// Calibration from one measured run (calibrate.h): what was measured on which offer, and the efficiency factor
// fitted to it. `efficiency_scale` > 0 makes every surface rank with the calibrated model; `gpu` names the GPU it
// was fitted on ("calibrated from <GPU>"). The measured inputs stay in the query so a shared link shows them.
struct Calibration {
  std::string offer;                    // the offer the run was measured on
  int nodes = 0;                        // its node count (0 = the planner's choice)
  double step_time_s = 0;               // measured seconds per optimizer step
  double tokens_per_s = 0;              // or the measured whole-job tokens/s (used when step_time_s is 0)
  double peak_GiB = 0;                  // measured torch.cuda.max_memory_reserved(), GiB (0 = not measured)
  std::string gpu;                      // GPU id the factor was fitted on (filled by calibrate)
  double efficiency_scale = 0;          // fitted factor on the modelled efficiency; 0 = no calibration

  bool operator==(const Calibration&) const = default;
};

struct Query {
  std::string model_id;                 // preset id, or "custom" when `model` was given inline
  ModelSpec model;                      // resolved model
  TrainConfig train;
  Dataset dataset;
  Filters filters;
  CostOptions cost;
  Target target;
  SortKey sort = SortKey::total_cost;
  int top = 0;                          // 0 = all rows
  double mfu = 0;                       // efficiency override (0 = calibrated default)
  Calibration calibration;

  // Member-wise equality (all the structs above have it): the UI compares queries to skip re-ranking.
  bool operator==(const Query&) const = default;
};

// The default job: what the first screen shows (a LoRA fine-tune of an 8B model on 100M tokens).
Query default_query();

// Parse. Unknown keys, wrong types and out-of-range values are errors naming the key
// ("parallel.tp: must divide num_heads (32)"). Missing keys keep default_query()'s values.
Result<Query> parse_query_json(std::string_view json_text);
Result<Query> parse_query_hash(std::string_view hash);   // with or without the leading '#'
// The same with each key checked on its own and the checks across keys left out: one part of a query that others
// complete (the CLI's --query or --hash under its flags, which win: `--model qwen3-30b-a3b --hash
// '#parallel.ep=8&...'`). The finished query is to be parsed again in whole.
Result<Query> parse_query_json_part(std::string_view json_text);
Result<Query> parse_query_hash_part(std::string_view hash);

// Serialize. Only keys that differ from default_query() are written, in a fixed order, so the same
// query always gives the same text (links stay short and comparable).
std::string query_to_json(const Query& q, bool full = false);
std::string query_to_hash(const Query& q);

// Names used on every surface (UI combo labels, JSON values, CLI flags); the job's enums: catalog/names.h.
const char* to_string(SortKey k);
const char* to_string(PricingFilter f);  // "any", and each pricing option's one spelling (billing.h pricing_option_name)

}  // namespace trainfit
