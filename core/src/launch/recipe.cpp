// trainfit core — launch recipes (recipe.h): the plan of one ranked offer written as the files that launch it.
// This file chooses the row and its numbers and writes the recipe's notes; the training command is in
// recipe_command.cpp, the framework configs in recipe_configs.cpp, the launchers in recipe_launchers.cpp (each
// with the documentation its field names were checked against).
#include "trainfit/launch/recipe.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>

#include "launch/recipe_internal.h"
#include "market/offer_plan.h"
#include "trainfit/estimate/perf.h"
#include "trainfit/market/rank.h"

namespace trainfit::recipe_detail {

// ---- text helpers ----

std::string num_text(double v) {
  char b[40];
  if (v == std::floor(v) && std::fabs(v) < 9e15) std::snprintf(b, sizeof b, "%lld", static_cast<long long>(v));
  else std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}
std::string itext(int64_t v) { return std::to_string(v); }
std::string one_decimal(double v) {
  char b[48];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}
std::string clip_text() { return one_decimal(kGradClip); }

// A YAML double-quoted scalar (YAML 1.2 §7.3.1): backslash and quote escaped, control characters as \xNN. Every
// string that comes from the snapshot or the query is written this way, so no value can change the structure.
std::string double_quoted(std::string_view s, const char* control_format) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, control_format, c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string yq(std::string_view s) { return double_quoted(s, "\\x%02x"); }

// Only [A-Za-z0-9._/-] (and the characters in `extra`) survive: for names that go into comments, shell commands
// and job names.
std::string safe_token(std::string_view s, std::string_view fallback, std::string_view extra) {
  std::string out;
  for (char c : s)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
        c == '/' || (c != '\0' && extra.find(c) != std::string_view::npos))
      out += c;
  return out.empty() || out.size() != s.size() ? std::string(fallback) : out;
}

// ---- placeholders ----

std::string Ctx::fill(const std::string& what) {
  std::string p = std::string(kFillPrefix) + what + ">";
  if (std::find(r.placeholders.begin(), r.placeholders.end(), p) == r.placeholders.end()) r.placeholders.push_back(p);
  return p;
}
std::string Ctx::sh_fill(const std::string& what) {
  std::string out = "'";  // (appended piecewise: "'" + string trips g++ 12's false -Wrestrict, GCC bug 105329)
  out += fill(what);
  out += '\'';
  return out;
}

}  // namespace trainfit::recipe_detail

namespace trainfit {

using namespace recipe_detail;

namespace {

// SkyPilot's default disk_size (sky/resources.py DEFAULT_DISK_SIZE_GB): recipes never ask for less.
constexpr double kSkyPilotDefaultDiskGB = 256;

// ---- choosing the row and its numbers ---------------------------------------------------------------------------

// The launchers' dtype for the job's precision, as the estimate resolves it (perf.h resolve_precision: "auto" is
// bf16-mixed where the GPU has BF16 tensor throughput, else fp16-mixed).
const char* recipe_dtype(const Query& q, const GpuSpec& g) {
  switch (resolve_precision(q.train.precision, g)) {
    case Precision::fp16_mixed: return "fp16";
    case Precision::fp8_mixed: return "fp8";
    case Precision::fp32: return "fp32";
    case Precision::automatic:  // resolved above
    case Precision::bf16_mixed:
    case Precision::bf16: break;
  }
  return "bf16";
}

// The offer's own fields, the processes per node and SkyPilot's accelerator name.
void fill_offer(Recipe& r, const Offer& o, const GpuSpec& g, const Provider& pr, const Provider& launcher,
                const RankRow& row) {
  const MemoryLayout& l = r.plan.layout;
  r.offer = o.id;
  r.provider = pr.id;
  if (o.via >= 0) r.via = launcher.id;
  r.instance_type = launch_instance_type(o.instance_type);
  r.region = o.region;
  r.gpu = g.id;
  r.option = row.option;
  r.nodes = row.nodes;
  r.gpus_per_node = o.gpu_count;
  const int used = l.tp * l.pp * l.dp * l.cp;
  r.nproc_per_node = r.nodes > 0 && used % r.nodes == 0 ? used / r.nodes : o.gpu_count;
  if (used != r.nodes * o.gpu_count)
    r.notes.push_back("the layout uses " + itext(used) + " of the " + itext(r.nodes * o.gpu_count) +
                      " GPUs billed; torchrun starts " + itext(r.nproc_per_node) + " processes per node");
  const std::string sky = skypilot_accelerator_name(launcher.id, o.instance_type, g.id);
  if (!sky.empty()) r.accelerators = sky + ":" + itext(o.gpu_count);
  else r.notes.push_back("SkyPilot's accelerator name for " + g.id + " is not known to trainfit: the recipe pins instance_type only");
}

// The precision and the engine the launchers run.
void choose_engine(Recipe& r, const Query& q, const GpuSpec& g) {
  const MemoryLayout& l = r.plan.layout;
  r.precision = recipe_dtype(q, g);
  // The query's framework (framework.h) decides where it can: Megatron-Core runs the Megatron arguments even for
  // a data-parallel plan; otherwise model parallelism needs them and data parallelism + ZeRO runs as HF Trainer.
  const Framework fw = q.train.framework;
  r.engine = (l.tp > 1 || l.pp > 1 || (l.cp > 1 && !hf_context_parallel(l, q.train)) || l.ep > 1 ||
              fw == Framework::megatron_core)
                 ? "megatron"
                 : "hf";
  // torchtitan plans launch torchtitan itself (torchtitan.toml; the profile has full training only), unless the
  // file cannot carry the plan: then the Megatron-LM or Hugging Face arguments, with the note below.
  if (fw == Framework::torchtitan && q.train.method == Method::full && torchtitan_limits(q, r).empty())
    r.engine = "torchtitan";
  // nanotron plans launch nanotron (nanotron.yaml; pre-training only) the same way.
  if (fw == Framework::nanotron && q.train.method == Method::full && nanotron_limits(q, r).empty()) r.engine = "nanotron";
  if (fw != Framework::generic && fw != Framework::hf_trainer && fw != Framework::megatron_core && r.engine != "torchtitan" &&
      r.engine != "nanotron")
    r.notes.push_back(std::string("the training-script arguments follow ") +
                      (r.engine == "megatron" ? "Megatron-LM" : "Hugging Face TrainingArguments") + "; " +
                      to_string(fw) + " takes its own config: carry over the same micro-batch, accumulation, "
                      "parallel sizes and save interval");
}

// The step count, the checkpoint interval in steps and the disk per node.
void fill_schedule(Recipe& r, const Query& q, const RankResult& rr, const CostBreakdown& cost) {
  const Plan& p = r.plan;
  const double seqs = static_cast<double>(p.global_batch) * static_cast<double>(q.train.seq_len);
  r.steps = seqs > 0 ? std::ceil(rr.processed_tokens / seqs) : 0;
  r.checkpoint_interval_s = cost.checkpoint_interval_s;
  // The interval in whole steps (rounded down: never checkpoint less often than the cost model assumed); an
  // interval that spans the whole run (on-demand without failures: only the final save) is the step count.
  const double steps_exact = seqs > 0 ? rr.processed_tokens / seqs : 0;
  double by_time = p.step.total_s > 0 ? std::floor(r.checkpoint_interval_s / p.step.total_s * (1 + 1e-12)) : r.steps;
  if (r.checkpoint_interval_s >= steps_exact * p.step.total_s * (1 - 1e-9)) by_time = r.steps;
  r.save_interval_steps = static_cast<int64_t>(std::clamp(by_time, 1.0, std::max(1.0, r.steps)));
  // Local disk per node: the 16-bit base weights downloaded, two checkpoints kept (save_total_limit 2; each node
  // holds the shards of its own ranks, 1 / nodes of a checkpoint), the dataset staged on every node.
  Result<ParamCounts> pc = count_params(q.model);
  const double weights = pc ? pc->total * 2 : 0;
  const double need_GB = (weights + 2 * rr.checkpoint_bytes / r.nodes + rr.dataset_bytes) / kGB;
  r.disk_size_GB = std::max(kSkyPilotDefaultDiskGB, std::ceil(need_GB / 10) * 10);
}

// Which of SkyPilot and dstack launch the provider.
void launcher_notes(Recipe& r, const Launcher* launch, const std::string& launcher_id) {
  const bool sky = launch && launch->sky, dst = launch && launch->dstack;
  const std::string name = safe_token(launcher_id, "this provider");
  if (!sky && !dst)
    r.notes.push_back("neither SkyPilot nor dstack launches " + name + ": rent the machine" +
                      (r.nodes > 1 ? "s" : "") + " in " + name + "'s console or CLI, copy the training code over "
                      "SSH and run torchrun.sh there (on every node, with NODE_RANK and MASTER_ADDR set)");
  else if (!sky)
    r.notes.push_back("SkyPilot does not launch " + name + "; the dstack recipe does");
  else if (!dst)
    r.notes.push_back("dstack has no backend for " + name + "; the SkyPilot recipe launches it");
}

// How the instances are obtained: the booking for a reserved row, else the offer's availability fact.
void access_notes(Recipe& r, const Snapshot& s, const Snapshot& one, const Offer& offer) {
  const AccessFact& a = access_fact(s, offer);
  if (r.option == PricingOption::reserved) {
    if (const Reservation* rv = reservation_of(one, one.offers[0]))
      r.notes.push_back("book " + rv->name + " for " + itext(r.nodes) + " instance" + (r.nodes == 1 ? "" : "s") +
                        " first, then launch into its reservation: " + reservation_terms_text(*rv));
  } else if (a.how == Access::quota_request) {
    r.notes.push_back("a new account needs a quota increase before this launches" +
                      (a.quota.empty() ? std::string() : ": " + a.quota));
  } else if (a.how == Access::reservation_only || a.how == Access::sales_contact) {
    r.notes.push_back(a.how == Access::sales_contact ? "sold through sales: contact the provider before launching"
                                                     : "sold through a reservation or booking only: book it before launching");
  }
}

// The writers' shared choices: spot, DeepSpeed, the job name, the model reference, the checkpoint directory.
void fill_context(Ctx& c) {
  const Recipe& r = c.r;
  const MemoryLayout& l = r.plan.layout;
  c.spot = r.option == PricingOption::spot;
  // (accelerate's context parallelism runs under FSDP2: no DeepSpeed then.)
  c.deepspeed = r.engine == "hf" && !hf_ring_cp(l, c.q.train) &&
                (l.zero > 0 || l.offload_optimizer || l.offload_params || hf_ulysses(l));
  c.job_name = "trainfit-" + safe_token(c.q.model_id, "custom");
  for (char& ch : c.job_name)
    if (ch == '.' || ch == '/' || ch == '_') ch = '-';
  const std::string hf = safe_token(c.q.model.hf_id, "");
  c.model_ref = hf.empty() ? c.sh_fill("Hugging Face model id or path") : hf;
  c.ckpt_dir = c.spot ? "/checkpoints" : "checkpoints";
}

// What the frameworks do differently from the plan.
void plan_notes(Ctx& c, const std::string& launcher_id) {
  const Query& q = c.q;
  Recipe& r = c.r;
  const MemoryLayout& l = r.plan.layout;
  if (c.r.engine == "hf" && l.recompute == Recompute::selective)
    r.notes.push_back("the plan assumes selective recomputation; Hugging Face gradient_checkpointing recomputes whole "
                      "layers (less memory, about a third more compute than planned)");
  if (c.r.engine == "megatron" && q.model.arch != Arch::params_only) {
    const MegatronArch arch = megatron_arch(q.model, l.tp);
    if (!arch.missing.empty())
      r.notes.push_back("Megatron-LM's GPT model has no flags for " + join_words(arch.missing) +
                        ": the Megatron arguments leave a named blank for them (Megatron-Bridge's model providers "
                        "build such families)");
  }
  if (c.r.engine == "hf" && hf_ulysses(l))
    r.notes.push_back("Ulysses sequence parallelism " + itext(l.cp) + " runs through accelerate's parallelism_config "
                      "(the scripts export it; accelerate_config.yaml carries it): deepspeed >= 0.18.1, accelerate >= "
                      "1.12, transformers >= 5.0 (Hugging Face blog \"ulysses-sp\")");
  if (c.r.engine == "hf" && hf_ring_cp(l, q.train))
    r.notes.push_back("ring context parallelism " + itext(l.cp) + " runs through accelerate's parallelism_config "
                      "(cp_size, cp_backend torch) under FSDP2, which the scripts export and accelerate_config.yaml "
                      "carries (accelerate >= 1.10, docs concept_guides/context_parallelism): the model must run SDPA "
                      "attention (attn_implementation \"sdpa\") with a causal mask, and the FSDP2 plugin checkpoints "
                      "activations in place of --gradient_checkpointing");
  if (c.r.engine == "megatron" && l.zero == 2)
    r.notes.push_back("Megatron-LM's distributed optimizer shards optimizer states only (ZeRO-1); the plan's ZeRO-" +
                      itext(l.zero) + " memory needs gradient sharding too");
  if (c.r.engine == "megatron" && q.train.method == Method::lora)
    r.notes.push_back("a LoRA plan with tensor / pipeline / context / expert parallelism needs a PEFT-capable Megatron "
                      "front end (NeMo, Megatron-Bridge); the arguments describe the parallel layout only, and "
                      "pretrain_gpt.py run with them trains every weight");
  // bitsandbytes' 4-bit base runs under Hugging Face's PEFT stack, which gives data parallelism, ZeRO / FSDP and
  // Ulysses sequence parallelism only; Megatron-LM and NeMo have no 4-bit base.
  if (c.r.engine == "megatron" && q.train.method == Method::qlora)
    r.notes.push_back("no trainer these recipes launch runs QLoRA (a bitsandbytes 4-bit base) with tensor, pipeline, "
                      "ring-context or expert parallelism: plan it with --framework hf-trainer (data parallel, ZeRO / "
                      "FSDP, Ulysses), or use LoRA; the arguments describe the parallel layout only");
  if (c.spot && c.launch && c.launch->sky && !c.launch->sky_mount)
    r.notes.push_back("SkyPilot cannot mount a bucket on " + safe_token(launcher_id, "this provider") +
                      ": the SkyPilot recipe keeps checkpoints on the node's disk (" + c.ckpt_dir +
                      "), so a preemption that replaces the machine restarts from the last checkpoint you copied off");
  if (r.engine == "megatron" && (l.offload_optimizer || l.offload_params))
    r.notes.push_back("the plan offloads to CPU memory, which Megatron-LM does not do: the launchers' Megatron "
                      "arguments need more GPU memory than planned; use the deepspeed recipe");
  if (r.engine == "megatron" && l.zero == 3 && l.pp > 1)
    r.notes.push_back("Megatron-FSDP (ZeRO-3) runs without pipeline parallelism: the launchers' Megatron arguments "
                      "need PP 1, or the distributed optimizer (ZeRO-1) with more GPU memory than planned");
  if (r.engine == "torchtitan" && r.plan.deepep)
    r.notes.push_back("torchtitan.toml asks for DeepEP (parallelism.expert_parallel_comm_backend = \"deepep\"): install "
                      "DeepEP and NVSHMEM on every node (torchtitan/distributed/deepep/README.md)");
  if (r.engine == "torchtitan")
    r.notes.push_back("torchtitan.toml is a v0.2.x job config (pip install torchtitan==0.2.2); torchtitan's main branch "
                      "configures jobs in Python (torchtitan_recipes) instead");
  // nanotron's imports (helpers.py -> scaling/parametrization.py -> nn/moe.py raises without grouped_gemm; models/llama.py
  // imports flash_attn) and its Hugging Face data path (run_train.py: rank 0 tokenizes inside main_rank_first while the
  // others wait at a barrier; then it asserts the dataset holds train_steps x global batch sequences).
  if (r.engine == "nanotron") {
    r.notes.push_back("nanotron.yaml is written for nanotron's main branch (config schema of 7bc9923): run torchrun.sh from "
                      "a nanotron checkout (run_train.py) installed with pip install -e ., plus flash-attn and grouped_gemm, "
                      "which its modules import even for a dense model");
    r.notes.push_back("nanotron tokenizes a Hugging Face dataset on rank 0 before the first step while the other ranks wait "
                      "at a barrier, and refuses a dataset with fewer than train_steps x global batch sequences: "
                      "pre-tokenize a large dataset (nanotron's Nanoset, data_stages.data.dataset.dataset_folder)");
  }
  if (r.engine == "nanotron" && l.recompute == Recompute::selective)
    r.notes.push_back("nanotron recomputes whole layers or nothing (parallelism.recompute_layer): nanotron.yaml keeps every "
                      "activation, which under FlashAttention is what the plan's selective recomputation keeps");
  if (r.precision == "fp8" && r.engine == "torchtitan")
    r.notes.push_back("fp8: torchtitan's float8 model converter (converters = [\"float8\"]) needs torchao installed");
  else if (r.precision == "fp8")
    r.notes.push_back("fp8 needs NVIDIA Transformer Engine; the Hugging Face recipes run bf16 (accelerate: mixed_precision fp8)");
}

// ---- the files ----

// Why format `fmt`'s file does not fit the plan, or "" when it does.
std::string why_not(const Ctx& c, const std::string& fmt) {
  const MemoryLayout& l = c.r.plan.layout;
  if (fmt == "torchtitan") return torchtitan_why_not(c);
  if (fmt == "nanotron") return nanotron_why_not(c);
  if ((c.r.engine == "torchtitan" || c.r.engine == "nanotron") &&
      (fmt == "deepspeed" || fmt == "accelerate" || fmt == "megatron"))
    return c.r.engine == "torchtitan"
               ? "the plan is a torchtitan job: torchtitan.toml carries it (torchrun.sh and the launchers run it)"
               : "the plan is a nanotron job: nanotron.yaml carries it (torchrun.sh and the launchers run it)";
  const bool model_parallel = l.tp > 1 || l.pp > 1 || (l.cp > 1 && !hf_context_parallel(l, c.q.train)) || l.ep > 1;
  if (fmt == "skypilot" && !(c.launch && c.launch->sky))
    return "SkyPilot has no cloud for " + safe_token(c.provider_id, "this provider") +
           " (its catalog may list the machines, but its task schema rejects the cloud name); launch "
           "torchrun.sh on the rented machine";
  if (fmt == "dstack" && !(c.launch && c.launch->dstack))
    return "dstack has no backend for " + safe_token(c.provider_id, "this provider") +
           "; launch torchrun.sh on the rented machine";
  if (fmt == "deepspeed" && hf_ring_cp(l, c.q.train))
    return "the plan's ring context parallelism is accelerate's, which runs under FSDP2, not DeepSpeed: "
           "accelerate_config.yaml and the scripts carry it";
  if (fmt == "deepspeed" && model_parallel)
    return "the plan uses tensor / pipeline / context / expert parallelism, which a DeepSpeed config alone does "
           "not give a Hugging Face model; use the megatron recipe";
  if (fmt == "accelerate" && model_parallel)
    return "the plan uses tensor / pipeline / context / expert parallelism, which accelerate's FSDP and "
           "DeepSpeed plugins do not provide; use the megatron recipe";
  if (fmt == "megatron" && c.q.train.method != Method::full)
    return "Megatron-LM's pretraining scripts train every weight; LoRA / QLoRA runs go through the Hugging Face "
           "recipe (torchrun, deepspeed, accelerate)";
  // Megatron-LM keeps parameters and the distributed optimizer's states on the GPU; the plan's memory counts on
  // them in host memory.
  if (fmt == "megatron" && (l.offload_optimizer || l.offload_params))
    return "the plan offloads the optimizer / parameters to CPU memory, which Megatron-LM's arguments do not "
           "provide; use the deepspeed recipe";
  return "";
}

// The eight files in kRecipeFormats order: each written by its writer, or why it does not apply.
void fill_files(Ctx& c) {
  struct FileKind {
    const char* filename;
    std::string (*write)(Ctx&);
  };
  static constexpr FileKind kFiles[] = {{"trainfit-skypilot.yaml", skypilot_yaml}, {"trainfit.dstack.yml", dstack_yaml},
                                        {"ds_config.json", deepspeed_json},          {"accelerate_config.yaml", accelerate_yaml},
                                        {"torchrun.sh", torchrun_sh},               {"megatron_args.sh", megatron_sh},
                                        {"torchtitan.toml", torchtitan_toml},        {"nanotron.yaml", nanotron_yaml}};
  static_assert(std::size(kFiles) == std::size(kRecipeFormats));
  for (size_t i = 0; i < std::size(kFiles); ++i) {
    RecipeFile file;
    file.format = kRecipeFormats[i];
    file.filename = kFiles[i].filename;
    file.why = why_not(c, file.format);
    file.applies = file.why.empty();
    if (file.applies) file.text = kFiles[i].write(c);
    c.r.files.push_back(std::move(file));
  }
}

}  // namespace

std::string launch_instance_type(const std::string& instance_type) {
  return instance_type.substr(0, instance_type.find('+'));
}

Result<Recipe> make_recipe(const Query& q0, const Snapshot& s) {
  Result<detail::OfferPlan> op = detail::plan_one_offer(q0, s, q0.target.offer, q0.target.pricing, q0.target.nodes,
                                                        "target.offer", "target.nodes");
  if (!op) return op.error();
  const Query& q = op->query;
  const Snapshot& one = op->one;
  const RankResult* rr = &op->rank;
  const RankRow* row = &op->chosen();
  const int oi = op->offer;
  const Offer& o = s.offers[oi];
  const GpuSpec& g = s.gpus[o.gpu];
  const Provider& pr = s.providers[o.provider];
  // The catalog the instance type belongs to, which SkyPilot / dstack launch it through: the marketplace for a
  // resold row (cloud: shadeform, instance_type: massedcompute_A6000x8), else the provider.
  const Provider& launcher = seller_of(s, o);
  Recipe r;
  r.plan = rr->shapes[row->shape].plan().by_nodes[row->plan_index];
  const Plan& p = r.plan;
  const MemoryLayout& l = p.layout;
  // The batch identity every file relies on; the planner guarantees it, and a recipe that broke it would train a
  // different job than the one costed.
  if (l.micro_batch * l.num_microbatches * l.dp != p.global_batch)
    return Error{"global_batch", "the plan's micro-batch x accumulation x data parallel (" + itext(l.micro_batch) + " x " +
                                     itext(l.num_microbatches) + " x " + itext(l.dp) + ") is not its global batch " +
                                     itext(p.global_batch)};
  Result<CostBreakdown> cost = cost_for(q, one, *rr, *row, row->nodes);
  if (!cost) return cost.error();
  fill_offer(r, o, g, pr, launcher, *row);
  choose_engine(r, q, g);
  fill_schedule(r, q, *rr, *cost);

  Ctx c{q, s, r, o, g};
  c.provider_id = launcher.id;
  c.launch = launcher_of(launcher.id);
  launcher_notes(r, c.launch, launcher.id);
  access_notes(r, s, one, s.offers[static_cast<size_t>(op->offer)]);
  fill_context(c);
  plan_notes(c, launcher.id);
  fill_files(c);
  return r;
}

}  // namespace trainfit
