// trainfit core — launch recipes: for one query and one ranked offer (target.offer, with target.nodes and
// target.pricing as `plan` and `cost` read them), the files that launch exactly that plan:
//   skypilot    SkyPilot task YAML (resources, num_nodes, a run section that starts torchrun)
//   dstack      dstack task YAML (resources.gpu, spot_policy, nodes, the same commands)
//   deepspeed   DeepSpeed config JSON (ZeRO stage, offload, bf16/fp16, batch sizes, clipping)
//   accelerate  Hugging Face accelerate config YAML (FSDP or DeepSpeed plugin)
//   torchrun    a shell script: torchrun with the training script's arguments
//   megatron    a shell script: Megatron-LM arguments (TP, PP, SP, recompute, batches, precision, save interval)
//   torchtitan  torchtitan's TOML job config (its v0.2.x releases) for plans made under the torchtitan profile
//   nanotron    nanotron's YAML config (its main branch) for plans made under the nanotron profile
// Every number comes from the plan (micro-batch x accumulation x DP = global batch, exactly) or the cost model
// (the checkpoint interval). What a snapshot cannot know (bucket names, the training script, the dataset path)
// is a placeholder of one form, "<FILL: what>", listed in Recipe::placeholders; never a guess.
// The text is written here (no YAML library, no iostream); the tests parse every file with PyYAML / a JSON parser.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "trainfit/market/billing.h"
#include "trainfit/base/common.h"
#include "trainfit/estimate/planner.h"
#include "trainfit/query/query.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {

// The formats, in the order Recipe::files lists them (and the UI shows its tabs).
inline constexpr const char* kRecipeFormats[] = {"skypilot", "dstack",   "deepspeed",  "accelerate",
                                                 "torchrun", "megatron", "torchtitan", "nanotron"};
inline constexpr int kRecipeFormatCount = 8;
// The one placeholder form: kFillPrefix + what + ">".
inline constexpr const char* kFillPrefix = "<FILL: ";

struct RecipeFile {
  std::string format;      // one of kRecipeFormats
  std::string filename;    // what `trainfit recipe --out DIR` writes ("trainfit-skypilot.yaml", "ds_config.json")
  std::string text;        // the file; empty when !applies
  bool applies = true;     // false: this framework cannot run the plan as planned (`why` says why)
  std::string why;
};

struct Recipe {
  std::string offer, provider, instance_type, region, gpu;
  std::string via;               // the marketplace that sells the offer (its catalog is the one launched); "" = direct
  std::string accelerators;      // SkyPilot form "H100:8" (the provider catalog's accelerator name : GPUs per node)
  PricingOption option = PricingOption::on_demand;
  int nodes = 1;
  int gpus_per_node = 1;
  int nproc_per_node = 1;        // processes torchrun starts per node (GPUs the layout uses on each node)
  Plan plan;                     // the chosen plan (layout, batches, step time)
  std::string precision;         // resolved: "bf16" | "fp16" | "fp8" | "fp32"
  std::string engine;            // what the launchers run: "torchtitan" / "nanotron" (their profiles' plans), "megatron" (TP/PP/CP/EP > 1
                                 // or the megatron-core profile) or "hf" (data parallel + ZeRO)
  double steps = 0;              // optimizer steps for the dataset (the planner's count, rounded up)
  double checkpoint_interval_s = 0;  // compute seconds between checkpoints, as the cost model chose it
  int64_t save_interval_steps = 0;   // that interval in optimizer steps (>= 1)
  double disk_size_GB = 0;       // local disk per node: base weights + 2 checkpoints + dataset (SkyPilot default floor)
  std::vector<RecipeFile> files; // kRecipeFormats order
  std::vector<std::string> placeholders;  // distinct "<FILL: ...>" strings used, first use first
  std::vector<std::string> notes;         // what the user must know (approximations, framework limits)
};

// The recipe for q.target.offer on its chosen (or q.target.nodes) node count and pricing option (q.target.pricing;
// `any` takes the offer's best-ranked option). Errors name the query key (target.offer, target.nodes, ...).
Result<Recipe> make_recipe(const Query& q, const Snapshot& snapshot);

// The SkyPilot accelerator name of a GPU at a provider ("H100", "A100-80GB", "H100-MEGA" on GCP a3-megagpu);
// empty when trainfit does not know it (then the recipe pins instance_type alone).
std::string skypilot_accelerator_name(const std::string& provider, const std::string& instance_type,
                                      const std::string& gpu_id);

// The machine type to launch for an offer's instance type: the host VM of a GCP N1 offer named "<host>+<ACCEL>:<count>"
// by the importer (the GPU goes in `accelerators`, as SkyPilot pairs them), else the instance type itself.
std::string launch_instance_type(const std::string& instance_type);

}  // namespace trainfit
