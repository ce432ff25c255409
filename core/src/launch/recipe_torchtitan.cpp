// trainfit core — launch recipes: torchtitan's job config (torchtitan.toml), for plans made under the torchtitan
// profile. Written for torchtitan's TOML releases (v0.2.x: `torchrun ... -m torchtitan.train --job.config_file
// torchtitan.toml`); torchtitan's main branch has since moved its configs to Python functions.
// Section and key names are those of torchtitan/config/job_config.py at v0.2.2 (73a0e69):
//   [job] dump_folder, description; [model] name, flavor, hf_assets_path, converters; [training] local_batch_size,
//   global_batch_size, seq_len, max_norm, steps, mixed_precision_param, enable_cpu_offload, dataset;
//   [parallelism] data_parallel_replicate_degree, data_parallel_shard_degree, tensor_parallel_degree,
//   pipeline_parallel_degree, pipeline_parallel_schedule, pipeline_parallel_microbatch_size,
//   pipeline_parallel_layers_per_stage, pipeline_parallel_first/last_stage_less_layers, module_fqns_per_model_part,
//   context_parallel_degree, expert_parallel_degree,
//   expert_tensor_parallel_degree, expert_parallel_comm_backend; [checkpoint] enable, folder, interval,
//   keep_latest_k; [activation_checkpoint] mode, selective_ac_option; [compile] enable, components.
// The rules the file must meet are torchtitan's own (tests/recipe checks them with its code): distributed/
// parallel_dims.py (dp_replicate x dp_shard x cp x tp x pp = world size; ETP = TP or 1; the expert mesh
// efsdp = dp_shard x cp x tp / (ep x etp) whole), train.py (global batch = local batch x dp x accumulation) and
// distributed/pipeline_parallel.py (stages = ceil((layers + first_less + last_less) / layers per stage), a whole number
// per rank; or the stages' module names, module_fqns_per_model_part).
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "launch/recipe_internal.h"
#include "trainfit/catalog/framework.h"
#include "trainfit/catalog/model.h"

namespace trainfit::recipe_detail {
namespace {

// torchtitan's name and flavor for a catalog model, as "name flavor": the `*_configs` tables of
// torchtitan/models/<name>/__init__.py at v0.2.2 (llama3: 8B / 70B / 405B are Llama 3.1's; qwen3; deepseek_v3;
// llama4; gpt_oss). Empty when torchtitan does not ship the model.
std::string_view titan_model(std::string_view model_id) {
  static constexpr std::pair<std::string_view, std::string_view> kTitanModels[] = {
      {"llama-3.1-8b", "llama3 8B"},        {"llama-3.1-70b", "llama3 70B"},     {"llama-3.3-70b", "llama3 70B"},
      {"llama-3.1-405b", "llama3 405B"},    {"qwen3-0.6b", "qwen3 0.6B"},        {"qwen3-1.7b", "qwen3 1.7B"},
      {"qwen3-4b", "qwen3 4B"},             {"qwen3-8b", "qwen3 8B"},            {"qwen3-14b", "qwen3 14B"},
      {"qwen3-32b", "qwen3 32B"},           {"qwen3-30b-a3b", "qwen3 30B-A3B"},  {"qwen3-235b-a22b", "qwen3 235B-A22B"},
      {"deepseek-v3", "deepseek_v3 671B"},  {"llama-4-scout", "llama4 17bx16e"}, {"llama-4-maverick", "llama4 17bx128e"},
      {"gpt-oss-20b", "gpt_oss 20b"},       {"gpt-oss-120b", "gpt_oss 120b"},
  };
  for (const auto& [id, titan] : kTitanModels)
    if (id == model_id) return titan;
  return {};
}

// A TOML basic string (TOML 1.0): '"' and '\' escaped, control characters (tab included) as \uXXXX.
std::string tq(std::string_view s) { return double_quoted(s, "\\u%04X"); }

// The expert tensor-parallel degree the plan runs (0 in the layout: the dense TP).
int expert_tp(const MemoryLayout& l) { return l.etp > 0 ? l.etp : l.tp; }

// How torchtitan gets `layers` over pp x vp stages (distributed/pipeline_parallel.py @v0.2.2: pipeline_llm,
// generate_llm_fqn_per_model_part, pipeline_module_split). Its own split weighs the embedding and the output as
// first_less / last_less layers (parallelism.pipeline_parallel_first/last_stage_less_layers, 1 by default) and spreads
// the L + first_less + last_less layer-equivalents evenly, the remainder on the first stages, each weight at most a
// stage's share; with one or two stages per rank that is its default, with more it needs
// pipeline_parallel_layers_per_stage such that ceil((L + first_less + last_less) / layers_per_stage) = pp x vp. Where
// no weights and no layers_per_stage give that many stages (32 layers over PP 2 x VP 5), the stages are named module
// by module (parallelism.module_fqns_per_model_part), as trainfit's model splits them: ceil or floor of L / (pp vp)
// layers each, the longer ones first.
struct TitanSplit {
  bool own = false;              // torchtitan's split with the values below; false: module_fqns_per_model_part
  int64_t layers_per_stage = 0;  // 0: its default for the schedule
  int first_less = 1, last_less = 1;
};
TitanSplit titan_split(int64_t layers, int pp, int vp) {
  TitanSplit s;
  const int64_t stages = int64_t(std::max(1, pp)) * std::max(1, vp);
  // The default weights first, then lighter ones (an even split needs both at 0 with more than two stages per rank:
  // 32 layers over 16 stages).
  const int weights[4][2] = {{1, 1}, {1, 0}, {0, 1}, {0, 0}};
  for (const auto& w : weights) {
    const int64_t effective = layers + w[0] + w[1];
    const int64_t share = effective / stages;  // generate_llm_fqn_per_model_part: >= 1 and >= either weight
    if (stages > 1 && (share < 1 || share < w[0] || share < w[1])) continue;
    int64_t per = 0;
    if (vp > 2) {  // pipeline_llm: num_virtual_stages = ceil(effective / layers_per_stage)
      per = (effective + stages - 1) / stages;
      if ((effective + per - 1) / per != stages) continue;
    }
    s.own = true;
    s.layers_per_stage = per;
    s.first_less = w[0];
    s.last_less = w[1];
    return s;
  }
  return s;
}

// module_fqns_per_model_part for pp x vp stages of `layers` (torchtitan's module names: tok_embeddings, layers.<i>,
// norm, output).
std::string titan_module_lists(int64_t layers, int pp, int vp) {
  const int64_t stages = int64_t(std::max(1, pp)) * std::max(1, vp);
  std::string t = "module_fqns_per_model_part = [\n";  // one stage per line
  int64_t next = 0;
  for (int64_t k = 0; k < stages; ++k) {
    const int64_t n = layers / stages + (k < layers % stages ? 1 : 0);
    t += "  [";
    bool first = true;
    auto add = [&](const std::string& name) {
      t += (first ? "\"" : ", \"") + name + "\"";
      first = false;
    };
    if (k == 0) add("tok_embeddings");
    for (int64_t i = 0; i < n; ++i) add("layers." + itext(next++));
    if (k == stages - 1) {
      add("norm");
      add("output");
    }
    t += "],\n";
  }
  return t + "]\n";
}

}  // namespace

std::string torchtitan_limits(const Query& q, const Recipe& r) {
  const MemoryLayout& l = r.plan.layout;
  if (r.precision == "fp16") return "torchtitan trains in bf16 or fp32 (training.mixed_precision_param), not fp16";
  if (l.offload_optimizer != l.offload_params)
    return "torchtitan offloads parameters, gradients and optimizer states together (training.enable_cpu_offload), "
           "not the optimizer alone";
  if (l.ep > 1) {
    const int et = expert_tp(l);
    if (et != 1 && et != l.tp) return "torchtitan runs expert tensor parallelism equal to TP or 1 (parallel_dims.py)";
    if (!ep_fits_fsdp_ranks(l.tp, l.cp, l.dp, l.zero, l.ep, et))
      return "torchtitan takes expert parallelism from its FSDP x CP x TP ranks (parallel_dims.py efsdp): EP " +
             itext(l.ep) + " does not divide them without ZeRO-3";
  }
  if (l.pp > 1 && q.model.num_layers < int64_t(l.pp) * std::max(1, l.vp))
    return "torchtitan gives every pipeline stage a layer: " + itext(int64_t(l.pp) * l.vp) + " stages of " +
           itext(q.model.num_layers) + " layers";
  return "";
}

std::string torchtitan_why_not(const Ctx& c) {
  if (c.r.engine == "torchtitan") return "";
  if (c.q.train.framework == Framework::torchtitan && c.q.train.method == Method::full)
    return torchtitan_limits(c.q, c.r);
  return std::string("the plan is not a torchtitan job (framework ") + to_string(c.q.train.framework) +
         "); torchtitan.toml is written for plans made with --framework torchtitan";
}

std::string torchtitan_toml(Ctx& c) {
  const Plan& p = c.r.plan;
  const MemoryLayout& l = p.layout;
  std::string t;
  t += "# trainfit recipe: torchtitan job config for " + plan_summary(p) + "\n";
  t += "# torchrun --nnodes=" + itext(c.r.nodes) + " --nproc-per-node=" + itext(c.r.nproc_per_node) +
       " ... -m torchtitan.train --job.config_file torchtitan.toml   (torchtitan v0.2.x; see torchrun.sh)\n";
  t += "\n[job]\n";
  t += "dump_folder = " + tq(c.spot ? "/checkpoints" : "./outputs") + "\n";
  t += "description = " + tq(c.job_name) + "\n";

  t += "\n[model]\n";
  if (const std::string_view m = titan_model(c.q.model_id); !m.empty()) {
    t += "name = " + tq(m.substr(0, m.find(' '))) + "\n";
    t += "flavor = " + tq(m.substr(m.find(' ') + 1)) + "\n";
  } else {
    t += "name = " + tq(c.fill("torchtitan model name (torchtitan/models)")) + "\n";
    t += "flavor = " + tq(c.fill("torchtitan model flavor")) + "\n";
  }
  t += "hf_assets_path = " + tq(c.fill("local folder of the model's Hugging Face tokenizer (and weights)")) + "\n";
  // torchao's float8 training of the nn.Linear layers (the model converter "float8", [quantize.linear.float8]).
  if (c.r.precision == "fp8") t += "converters = [\"float8\"]\n";

  // The learning rate and its schedule are the user's; torchtitan's defaults (AdamW, lr 8e-4) apply until set.
  t += "\n[optimizer]\n";
  t += "name = \"AdamW\"\n";

  // torchtitan's batch (train.py): local_batch_size per data-parallel rank and step; accumulation = global /
  // (local x dp). Under pipeline parallelism the local batch is the pipeline's micro-batches together
  // (pipeline_parallel_microbatch_size each), with no accumulation on top.
  const int64_t local = l.pp > 1 ? l.micro_batch * l.num_microbatches : l.micro_batch;
  t += "\n[training]\n";
  t += "local_batch_size = " + itext(local) + "\n";
  t += "global_batch_size = " + itext(p.global_batch) + "\n";
  t += "seq_len = " + itext(c.q.train.seq_len) + "\n";
  t += "max_norm = " + clip_text() + "\n";
  t += "steps = " + num_text(c.r.steps) + "\n";
  t += std::string("mixed_precision_param = ") + (c.r.precision == "fp32" ? "\"float32\"" : "\"bfloat16\"") + "\n";
  if (l.offload_params && l.offload_optimizer) t += "enable_cpu_offload = true\n";
  t += "dataset = " + tq(c.fill("dataset registered in torchtitan/hf_datasets, e.g. c4")) + "\n";

  t += "\n[parallelism]\n";
  t += "data_parallel_replicate_degree = " + itext(l.zero == 3 ? 1 : l.dp) + "\n";
  t += "data_parallel_shard_degree = " + itext(l.zero == 3 ? l.dp : 1) + "\n";
  t += "tensor_parallel_degree = " + itext(l.tp) + "\n";
  t += "pipeline_parallel_degree = " + itext(l.pp) + "\n";
  if (l.pp > 1) {
    t += std::string("pipeline_parallel_schedule = ") + (l.vp > 1 ? "\"Interleaved1F1B\"" : "\"1F1B\"") + "\n";
    t += "pipeline_parallel_microbatch_size = " + itext(l.micro_batch) + "\n";
    const TitanSplit split = titan_split(c.q.model.num_layers, l.pp, l.vp);
    if (!split.own) t += titan_module_lists(c.q.model.num_layers, l.pp, l.vp);
    if (split.layers_per_stage > 0)
      t += "pipeline_parallel_layers_per_stage = " + itext(split.layers_per_stage) + "\n";
    if (split.first_less != 1) t += "pipeline_parallel_first_stage_less_layers = " + itext(split.first_less) + "\n";
    if (split.last_less != 1) t += "pipeline_parallel_last_stage_less_layers = " + itext(split.last_less) + "\n";
  }
  t += "context_parallel_degree = " + itext(l.cp) + "\n";
  if (l.ep > 1) {
    t += "expert_parallel_degree = " + itext(l.ep) + "\n";
    t += "expert_tensor_parallel_degree = " + itext(expert_tp(l)) + "\n";
    if (p.deepep) t += "expert_parallel_comm_backend = \"deepep\"\n";
  }

  // Checkpoints every save interval of the cost model, the last two kept; torchtitan resumes from the newest one
  // in checkpoint.folder (under job.dump_folder) by itself (load_step -1).
  t += "\n[checkpoint]\n";
  t += "enable = true\n";
  t += "folder = \"checkpoint\"\n";
  t += "interval = " + itext(c.r.save_interval_steps) + "\n";
  t += "keep_latest_k = 2\n";

  t += "\n[activation_checkpoint]\n";
  if (l.recompute == Recompute::full) {
    t += "mode = \"full\"\n";
  } else if (l.recompute == Recompute::selective) {
    // Per-op selective recomputation, the one the torchtitan profile's memory model counts.
    t += "mode = \"selective\"\n";
    t += "selective_ac_option = \"op\"\n";
  } else {
    t += "mode = \"none\"\n";
  }

  // torch.compile of the model and the loss, as torchtitan's benchmark configs run (the profile's rates assume it),
  // unless the job runs eager (compile off: the estimate then takes the eager rate and memory).
  t += "\n[compile]\n";
  if (resolved_compile(c.q.train)) {
    t += "enable = true\n";
    t += "components = [\"model\", \"loss\"]\n";
  } else {
    t += "enable = false\n";
  }
  return t;
}

}  // namespace trainfit::recipe_detail
