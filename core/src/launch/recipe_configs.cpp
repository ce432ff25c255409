// trainfit core — launch recipes: the framework configs (DeepSpeed JSON, accelerate YAML) and the two shell
// scripts (torchrun.sh, megatron_args.sh).
// Field names are the tools' own, checked against their documentation:
//   DeepSpeed config JSON: https://www.deepspeed.ai/docs/config-json/ (train_batch_size =
//             train_micro_batch_size_per_gpu x gradient_accumulation_steps x data-parallel GPUs; gradient_clipping;
//             bf16.enabled / fp16.enabled; zero_optimization.stage, offload_optimizer.device, offload_param.device)
//   accelerate config YAML (accelerate config / examples/config_yaml_templates): compute_environment,
//             distributed_type, mixed_precision, num_machines, num_processes, machine_rank, main_process_ip,
//             main_process_port, fsdp_config.fsdp_sharding_strategy, deepspeed_config.zero_stage, ...
#include <cctype>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "launch/recipe_internal.h"

namespace trainfit::recipe_detail {

std::string deepspeed_json(Ctx& c) {
  const Plan& p = c.r.plan;
  const MemoryLayout& l = p.layout;
  nlohmann::ordered_json d;
  d["train_batch_size"] = p.global_batch;
  d["train_micro_batch_size_per_gpu"] = l.micro_batch;
  d["gradient_accumulation_steps"] = l.num_microbatches;
  d["gradient_clipping"] = kGradClip;
  d["bf16"] = {{"enabled", c.r.precision == "bf16" || c.r.precision == "fp8"}};
  d["fp16"] = {{"enabled", c.r.precision == "fp16"}};
  nlohmann::ordered_json z;
  z["stage"] = l.zero;
  if (l.offload_optimizer) z["offload_optimizer"] = {{"device", "cpu"}, {"pin_memory", true}};
  if (l.offload_params) z["offload_param"] = {{"device", "cpu"}, {"pin_memory", true}};
  d["zero_optimization"] = z;
  // The Hugging Face Trainer hands DeepSpeed its own AdamW (a client optimizer). With the optimizer offloaded,
  // DeepSpeed's engine raises ZeRORuntimeException unless zero_force_ds_cpu_optimizer is false
  // (deepspeed/runtime/engine.py _configure_zero_optimizer; the key's default is True in
  // deepspeed/runtime/constants.py ZERO_FORCE_DS_CPU_OPTIMIZER_DEFAULT). The client AdamW then steps on the CPU.
  if (l.offload_optimizer) d["zero_force_ds_cpu_optimizer"] = false;
  return d.dump(2) + "\n";
}

std::vector<AccelerateSetting> fsdp_settings(const MemoryLayout& l, bool v2) {
  const std::string checkpointing = l.recompute != Recompute::none ? "true" : "false";
  const std::string offload = l.offload_params ? "true" : "false";
  // FSDP2 (accelerate utils/dataclasses.py FullyShardedDataParallelPlugin: fsdp_version 2 takes reshard_after_forward,
  // true = FULL_SHARD / ZeRO-3, false = SHARD_GRAD_OP / ZeRO-2, and no use_orig_params), as accelerate's
  // examples/torch_native_parallelism/configs/cp.yaml writes it.
  if (v2)
    return {{"version", "2"},
            {"reshard_after_forward", l.zero == 3 ? "true" : "false"},
            {"offload_params", offload},
            {"auto_wrap_policy", "TRANSFORMER_BASED_WRAP"},
            {"state_dict_type", "SHARDED_STATE_DICT"},
            {"activation_checkpointing", checkpointing}};
  return {{"sharding_strategy", l.zero == 3 ? "FULL_SHARD" : "SHARD_GRAD_OP"},
          {"offload_params", offload},
          {"auto_wrap_policy", "TRANSFORMER_BASED_WRAP"},
          {"state_dict_type", "SHARDED_STATE_DICT"},
          {"activation_checkpointing", checkpointing},
          {"use_orig_params", "true"}};
}

// Sequence parallelism (accelerate docs concept_guides/sequence_parallelism: dp_replicate x dp_shard x sp_size =
// num_processes; sp_backend deepspeed is ALST / Ulysses) or the ring (concept_guides/context_parallelism: cp_size,
// cp_backend torch, the K/V shards all-gathered, the comm strategy the guide recommends).
std::vector<AccelerateSetting> parallelism_settings(const MemoryLayout& l) {
  std::vector<AccelerateSetting> s = {{"dp_replicate_size", "1"}, {"dp_shard_size", itext(l.dp)}};
  if (l.cp_ulysses) {
    s.push_back({"sp_size", itext(l.cp)});
    s.push_back({"sp_backend", "deepspeed"});
    s.push_back({"sp_seq_length_is_variable", "true"});
    s.push_back({"sp_attn_implementation", "flash_attention_2"});
  } else {
    s.push_back({"cp_size", itext(l.cp)});
    s.push_back({"cp_backend", "torch"});
    s.push_back({"cp_comm_strategy", "allgather"});
  }
  return s;
}

std::string accelerate_settings_yaml(const char* section, const char* prefix, const std::vector<AccelerateSetting>& s) {
  std::string t = std::string(section) + ":\n";
  for (const AccelerateSetting& x : s) t += std::string("  ") + prefix + x.key + ": " + x.value + "\n";
  return t;
}

std::string accelerate_settings_env(const char* prefix, const std::vector<AccelerateSetting>& s) {
  std::string t;
  for (const AccelerateSetting& x : s) {
    std::string name = std::string(prefix) + x.key;
    for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    t += "export " + name + "=" + x.value + "\n";
  }
  return t;
}

std::string accelerate_yaml(Ctx& c) {
  const Plan& p = c.r.plan;
  const MemoryLayout& l = p.layout;
  const int procs = c.r.nproc_per_node * c.r.nodes;
  std::string t;
  t += "# trainfit recipe: Hugging Face accelerate config for " + plan_summary(p) + "\n";
  t += "# accelerate launch --config_file accelerate_config.yaml --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR\n";
  t += "#   followed by the training script and its arguments, as in torchrun.sh\n";
  t += "compute_environment: LOCAL_MACHINE\n";
  std::string type;
  const bool ring = hf_ring_cp(l, c.q.train);  // accelerate's context parallelism: FSDP2 only
  if (hf_ulysses(l)) type = "DEEPSPEED";  // Ulysses is DeepSpeed's (sp_backend deepspeed)
  else if (ring) type = "FSDP";
  else if (l.zero == 0 && !l.offload_optimizer && !l.offload_params) type = procs > 1 ? "MULTI_GPU" : "NO";
  // FSDP has no optimizer-only offload and no ZeRO-1: those plans use accelerate's DeepSpeed plugin.
  else if ((l.zero == 2 || l.zero == 3) && !(l.offload_optimizer && !l.offload_params)) type = "FSDP";
  else type = "DEEPSPEED";
  // Quoted: YAML 1.1 readers (PyYAML) would take a bare NO for the boolean false.
  t += "distributed_type: " + (type == "NO" ? "\"NO\"" : type) + "\n";
  t += std::string("mixed_precision: ") +
       (c.r.precision == "bf16" ? "bf16" : c.r.precision == "fp16" ? "fp16" : c.r.precision == "fp8" ? "fp8" : "\"no\"") + "\n";
  t += "num_machines: " + itext(c.r.nodes) + "\n";
  t += "num_processes: " + itext(procs) + "\n";
  t += "machine_rank: 0\n";
  if (c.r.nodes > 1) {
    t += "main_process_ip: " + yq(c.fill("master node address")) + "\n";
    t += "main_process_port: " + itext(kMasterPort) + "\n";
  }
  // accelerate's config loader takes only ClusterConfig's keys at the top level (accelerate/commands/config/
  // config_args.py; gradient_accumulation_steps is not one): the accumulation is the training script's
  // --gradient_accumulation_steps, or DeepSpeed's config.
  if (type == "FSDP") t += accelerate_settings_yaml("fsdp_config", "fsdp_", fsdp_settings(l, ring));
  if (type == "DEEPSPEED") {
    // The recipe's ds_config.json, not accelerate's own DeepSpeed keys: only the file carries
    // zero_force_ds_cpu_optimizer, which an offloaded optimizer from the Trainer needs. With a config file,
    // accelerate (utils/dataclasses.py DeepSpeedPlugin._deepspeed_config_checks) refuses zero_stage, offload and
    // accumulation keys next to it; zero3_init_flag is allowed.
    t += "deepspeed_config:\n";
    t += "  deepspeed_config_file: ds_config.json\n";
    t += std::string("  zero3_init_flag: ") + (l.zero == 3 ? "true" : "false") + "\n";
  }
  if (hf_context_parallel(l, c.q.train))
    t += accelerate_settings_yaml("parallelism_config", "parallelism_config_", parallelism_settings(l));
  return t;
}

std::string torchrun_sh(Ctx& c) {
  std::string t = "#!/bin/bash\n";
  t += "# trainfit recipe: " + plan_summary(c.r.plan) + "\n";
  if (c.r.nodes > 1)
    t += "# Run on every node; set NODE_RANK (0.." + itext(c.r.nodes - 1) + ") and MASTER_ADDR (node 0's address).\n";
  else
    t += "# One node: run as is (NODE_RANK defaults to 0, MASTER_ADDR to 127.0.0.1).\n";
  if (c.deepspeed) t += "# Needs ds_config.json (this recipe's deepspeed file) in the working directory.\n";
  if (c.r.engine == "torchtitan")
    t += "# Needs torchtitan.toml (this recipe's torchtitan file) in the working directory, torchtitan installed.\n";
  if (c.r.engine == "nanotron")
    t += "# Run from a nanotron checkout (run_train.py) with nanotron.yaml (this recipe's nanotron file) beside it.\n";
  t += "set -e\n";
  t += resume_lines(c);
  t += megatron_env(c) + hf_parallelism_env(c);
  const std::string rank = c.r.nodes > 1 ? "\"${NODE_RANK:?set NODE_RANK}\"" : "\"${NODE_RANK:-0}\"";
  const std::string addr = c.r.nodes > 1 ? "\"${MASTER_ADDR:?set MASTER_ADDR}\"" : "\"${MASTER_ADDR:-127.0.0.1}\"";
  t += torchrun_command(c, itext(c.r.nodes), itext(c.r.nproc_per_node), rank, addr, "");
  return t;
}

std::string megatron_sh(Ctx& c) {
  std::string t = "#!/bin/bash\n";
  t += "# trainfit recipe: Megatron-LM arguments for " + plan_summary(c.r.plan) + "\n";
  t += "# torchrun ... pretrain_gpt.py \"${MEGATRON_ARGS[@]}\"   (see torchrun.sh for the launcher arguments)\n";
  t += megatron_env(c, true);
  t += "MEGATRON_ARGS=(\n";
  for (const std::string& a : megatron_args(c)) t += "  " + a + "\n";
  t += ")\n";
  return t;
}

}  // namespace trainfit::recipe_detail
