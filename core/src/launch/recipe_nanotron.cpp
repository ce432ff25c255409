// trainfit core — launch recipes: nanotron's config (nanotron.yaml), for plans made under the nanotron profile.
// Written for nanotron's main branch, whose config schema last changed at 7bc9923 (`CUDA_DEVICE_MAX_CONNECTIONS=1
// torchrun ... run_train.py --config-file nanotron.yaml`, README "Quick Start"). Key names are those of
// src/nanotron/config/{config,parallelism_config,models_config}.py at 7bc9923:
//   general.project; logging; parallelism dp, tp, pp, pp_engine, tp_mode, tp_linear_async_communication,
//   recompute_layer, expert_parallel_size, context_parallel_size; model dtype, init_method.std, model_config
//   (LlamaConfig); tokenizer.tokenizer_name_or_path; checkpoints checkpoints_path,
//   checkpoint_interval, resume_checkpoint_path; tokens sequence_length, train_steps, micro_batch_size,
//   batch_accumulation_per_replica; optimizer zero_stage, weight_decay, clip_grad, accumulate_grad_in_fp32,
//   learning_rate_scheduler, optimizer_factory; data_stages.
// The rules the file must meet are nanotron's own (tests/recipe loads it with nanotron's config code):
// get_config_from_file is PyYAML's SafeLoader then dacite.from_dict(strict=True), so an unknown key or a float
// written without a dot (PyYAML reads 3e-4 as a string) is refused; Config.__post_init__ asserts heads % tp == 0,
// kv heads >= tp and heads % kv heads == 0, and a data stage starting at step 1.
#include <string>

#include "launch/recipe_internal.h"
#include "trainfit/catalog/framework.h"
#include "trainfit/catalog/model.h"

namespace trainfit::recipe_detail {
namespace {

// What of the model nanotron.yaml cannot carry ("" when it can): the file writes nanotron's LlamaConfig
// (models/llama.py: pre-norm RMSNorm, rotary, SwiGLU, no biases, head_dim = hidden / heads). Its Qwen2Config (q/k/v
// biases, sliding windows, MoE layers) does not start from a Hugging Face dataset on main (2411b02: run_train.py
// passes sequence_sep_tokens to DataCollatorForCLMWithPositionIds, which has no such field) nor with PP > 1 (that
// collator's last and middle pipeline stages fail), so such models keep the Megatron arguments.
std::string nanotron_model_gap(const ModelSpec& m) {
  if (m.arch == Arch::params_only) return "the model has no architecture (params_only) to write as nanotron's model_config";
  if (m.mlp != Mlp::swiglu || m.norm != Norm::rmsnorm || m.positional != Positional::rope || m.block != Block::pre ||
      m.qk_norm != QkNorm::none || m.kv_lora_rank > 0 || m.attention_sinks || m.dropout)
    return "nanotron.yaml writes nanotron's Llama model (pre-norm RMSNorm, rotary, SwiGLU, no q/k norm); " + m.name +
           " is not one";
  if (m.head_dim > 0 && m.head_dim * m.num_heads != m.hidden_size)
    return "nanotron derives head_dim as hidden / heads (" + itext(m.hidden_size / m.num_heads) + "); " + m.name +
           " has " + itext(m.head_dim);
  if (m.bias != Bias::none || m.sliding_window > 0 || m.num_experts > 1)
    return "biases, sliding windows and MoE layers need nanotron's Qwen2 model, whose data collator does not start "
           "from a Hugging Face dataset or under pipeline parallelism on nanotron's main branch (2411b02)";
  return "";
}

}  // namespace

std::string nanotron_limits(const Query& q, const Recipe& r) {
  const MemoryLayout& l = r.plan.layout;
  // float32 parameters trip FP32GradientAccumulator's dtype assert (optim/gradient_accumulator.py), and its
  // FlashAttention kernels run 16-bit only.
  if (r.precision != "bf16")
    return "nanotron trains in bf16 (model.dtype): no fp16 loss scaling, no FP8 switch, no fp32 (its fp32 gradient "
           "accumulator refuses fp32 parameters), not " + r.precision;
  if (q.train.optimizer != Optimizer::adamw && q.train.optimizer != Optimizer::sgd)
    return "nanotron's optimizer_factory is adamW or plain sgd (helpers.py init_optimizer_and_grad_accumulator)";
  if (l.zero > 1 || l.offload_optimizer || l.offload_params || l.vp > 1 || l.cp > 1 || l.ep > 1)
    return "nanotron runs TP, PP (1F1B) and DP with ZeRO-1 only: no ZeRO-" + itext(l.zero) +
           ", offload, interleaved stages, context or expert parallelism";
  if (q.model.num_kv_heads < l.tp)
    return "nanotron asserts key/value heads >= TP (config.py): " + itext(q.model.num_kv_heads) + " < " + itext(l.tp);
  return nanotron_model_gap(q.model);
}

std::string nanotron_why_not(const Ctx& c) {
  if (c.r.engine == "nanotron") return "";
  if (c.q.train.framework == Framework::nanotron && c.q.train.method == Method::full) return nanotron_limits(c.q, c.r);
  return std::string("the plan is not a nanotron job (framework ") + to_string(c.q.train.framework) +
         "); nanotron.yaml is written for plans made with --framework nanotron";
}

std::string nanotron_yaml(Ctx& c) {
  const Plan& p = c.r.plan;
  const MemoryLayout& l = p.layout;
  const ModelSpec& m = c.q.model;
  std::string t;
  t += "# trainfit recipe: nanotron config for " + plan_summary(p) + "\n";
  t += "# CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun --nnodes=" + itext(c.r.nodes) + " --nproc-per-node=" +
       itext(c.r.nproc_per_node) + " ... run_train.py --config-file nanotron.yaml   (nanotron main; see torchrun.sh)\n";
  t += "general:\n";
  t += "  project: " + yq(c.job_name) + "\n";
  // The trainer reads the log levels at start-up (trainer.py set_ranks_logging_level): the section is required.
  t += "logging:\n"
       "  log_level: info\n"
       "  log_level_replica: info\n"
       "  iteration_step_info_interval: 1\n";

  // nanotron's ParallelContext: dp x tp x pp x cp = world size, cp and ep 1 here (nanotron_limits). The 1F1B engine
  // keeps at most pp micro-batches in flight, as the memory model counts (the default, afab, keeps all of them);
  // REDUCE_SCATTER is Megatron's sequence parallelism (the docstring of ParallelismArgs).
  t += "parallelism:\n";
  t += "  dp: " + itext(l.dp) + "\n";
  t += "  tp: " + itext(l.tp) + "\n";
  t += "  pp: " + itext(l.pp) + "\n";
  t += "  pp_engine: 1f1b\n";
  t += l.sequence_parallel && l.tp > 1 ? "  tp_mode: REDUCE_SCATTER\n" : "  tp_mode: ALL_REDUCE\n";
  t += "  tp_linear_async_communication: false\n";
  t += l.recompute == Recompute::full ? "  recompute_layer: true\n" : "  recompute_layer: false\n";
  t += "  expert_parallel_size: 1\n"
       "  context_parallel_size: 1\n";

  // The architecture the plan was costed for, as nanotron's LlamaConfig (the is_llama_config key picks the class:
  // dacite tries LlamaConfig first). The initialisation std is LlamaConfig's initializer_range default; the trainer
  // warns and uses sequence_length where max_position_embeddings differs.
  t += "model:\n"
       "  dtype: bfloat16\n"
       "  init_method:\n"
       "    std: 0.02\n"
       "  model_config:\n"
       "    is_llama_config: true\n"
       "    hidden_act: silu\n";
  t += "    hidden_size: " + itext(m.hidden_size) + "\n";
  t += "    intermediate_size: " + itext(m.intermediate_size) + "\n";
  t += "    num_hidden_layers: " + itext(m.num_layers) + "\n";
  t += "    num_attention_heads: " + itext(m.num_heads) + "\n";
  t += "    num_key_value_heads: " + itext(m.num_kv_heads) + "\n";
  t += "    max_position_embeddings: " + itext(c.q.train.seq_len) + "\n";
  if (m.rope_theta > 0) t += "    rope_theta: " + one_decimal(double(m.rope_theta)) + "\n";
  t += std::string("    tie_word_embeddings: ") + (m.tie_embeddings ? "true" : "false") + "\n";
  t += "    vocab_size: " + itext(m.vocab_size) + "\n";
  t += "tokenizer:\n";
  const std::string hf = safe_token(m.hf_id, "");
  t += "  tokenizer_name_or_path: " + yq(hf.empty() ? c.fill("tokenizer (Hugging Face id or path)") : hf) + "\n";

  // Checkpoints every save interval of the cost model. resume_checkpoint_path is the same folder: nanotron resumes
  // from its latest.txt when one is there and starts from scratch otherwise (serialize/main.py parse_ckpt_path), so
  // a restarted spot job continues by itself.
  t += "checkpoints:\n";
  t += "  checkpoints_path: " + yq(c.ckpt_dir) + "\n";
  t += "  checkpoint_interval: " + itext(c.r.save_interval_steps) + "\n";
  t += "  resume_checkpoint_path: " + yq(c.ckpt_dir) + "\n";

  // global batch = micro_batch_size x batch_accumulation_per_replica x dp (Config.global_batch_size); under PP the
  // accumulation is the pipeline's micro-batches.
  t += "tokens:\n";
  t += "  sequence_length: " + itext(c.q.train.seq_len) + "\n";
  t += "  train_steps: " + num_text(c.r.steps) + "\n";
  t += "  micro_batch_size: " + itext(l.micro_batch) + "\n";
  t += "  batch_accumulation_per_replica: " + itext(l.num_microbatches) + "\n";

  // The optimizer's hyper-parameters are the user's: the learning rate is a placeholder; the fields nanotron
  // requires besides are torch.optim.AdamW's defaults. lr_warmup_style is required in practice: LRSchedulerArgs
  // checks it before applying its default. Gradients accumulate in fp32, as the nanotron profile's memory counts.
  t += "optimizer:\n";
  t += "  zero_stage: " + itext(l.zero) + "\n";
  t += "  weight_decay: 0.01\n";
  t += "  clip_grad: " + clip_text() + "\n";
  t += "  accumulate_grad_in_fp32: true\n";
  t += "  learning_rate_scheduler:\n";
  t += "    learning_rate: " + yq(c.fill("learning rate")) + "  # a number with a dot: PyYAML reads 3e-4 as a string\n";
  t += "    lr_warmup_style: linear\n";
  t += "    lr_warmup_steps: 0\n";
  t += c.q.train.optimizer == Optimizer::sgd ? "  optimizer_factory:\n    name: sgd\n"
                                              : "  optimizer_factory:\n"
                                                "    name: adamW\n"
                                                "    adam_beta1: 0.9\n"
                                                "    adam_beta2: 0.999\n"
                                                "    adam_eps: 1.0e-08\n"
                                                "    torch_adam_is_fused: true\n";

  // One stage from step 1 on a Hugging Face dataset (PretrainDatasetsArgs: tokenized on the fly, column "text").
  t += "data_stages:\n";
  t += "- name: " + yq("Stable Training Stage") + "\n";
  t += "  start_training_step: 1\n";
  t += "  data:\n";
  t += "    dataset:\n";
  t += "      hf_dataset_or_datasets: " + yq(c.fill("Hugging Face dataset id or path")) + "\n";
  t += "      hf_dataset_splits: train\n";
  return t;
}

}  // namespace trainfit::recipe_detail
