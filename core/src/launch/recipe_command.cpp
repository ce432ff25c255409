// trainfit core — launch recipes: the training command the launchers and torchrun.sh share (Megatron-LM or
// Hugging Face Trainer arguments, the environment they need, torchrun around them).
// Field names are the tools' own, checked against their documentation:
//   torchrun  https://pytorch.org/docs/stable/elastic/run.html (--nnodes, --nproc-per-node, --node-rank,
//             --master-addr, --master-port); the training script's arguments are Hugging Face TrainingArguments
//             (per_device_train_batch_size, gradient_accumulation_steps, max_steps, bf16, fp16,
//             gradient_checkpointing, max_grad_norm, save_steps, save_total_limit, deepspeed, resume_from_checkpoint)
//             and, for LoRA, TRL's ModelConfig (use_peft, lora_r, lora_target_modules, load_in_4bit,
//             use_bnb_nested_quant)
//   Megatron  megatron/training/arguments.py (--tensor-model-parallel-size, --pipeline-model-parallel-size,
//             --context-parallel-size, --num-layers-per-virtual-pipeline-stage, --sequence-parallel,
//             --account-for-embedding-in-pipeline-split, --account-for-loss-in-pipeline-split,
//             --num-virtual-stages-per-pipeline-rank, --decoder-first/last-pipeline-num-layers,
//             --use-distributed-optimizer, --use-megatron-fsdp, --data-parallel-sharding-strategy, --ckpt-format,
//             --overlap-grad-reduce, --overlap-param-gather, --recompute-granularity, --recompute-modules,
//             --recompute-method, --recompute-num-layers, --micro-batch-size, --global-batch-size, --seq-length,
//             --bf16, --fp16, --fp8-format, --clip-grad, --train-iters, --save, --load, --save-interval)
#include <algorithm>
#include <string>
#include <vector>

#include "launch/recipe_internal.h"
#include "trainfit/catalog/framework.h"

namespace trainfit::recipe_detail {
namespace {

bool llama_family(Arch a) {
  return a == Arch::llama || a == Arch::qwen2 || a == Arch::mistral || a == Arch::mixtral || a == Arch::gemma2;
}

}  // namespace

// "a", "a and b", "a, b and c".
std::string join_words(const std::vector<std::string>& w) {
  std::string t;
  for (size_t i = 0; i < w.size(); ++i) t += (i == 0 ? "" : i + 1 == w.size() ? " and " : ", ") + w[i];
  return t;
}

// ---- the Megatron-LM arguments ----

// The architecture flags and the parts no flag expresses (MegatronArch, recipe_internal.h).
MegatronArch megatron_arch(const ModelSpec& m, int tp) {
  MegatronArch r;
  auto add = [&](std::string f) { r.flags.push_back(std::move(f)); };
  if (m.arch == Arch::bert) r.missing.push_back("an encoder (Megatron-LM trains BERT with pretrain_bert.py)");
  switch (m.mlp) {
    case Mlp::swiglu: add("--swiglu"); break;
    // GPT-2's gelu_new is the tanh approximation, Megatron's --openai-gelu; other GELU models use the erf default.
    case Mlp::gelu: if (m.arch == Arch::gpt2) add("--openai-gelu"); break;
    case Mlp::relu: r.missing.push_back("a ReLU MLP"); break;
    case Mlp::geglu: r.missing.push_back("a GeGLU MLP"); break;
  }
  if (m.norm == Norm::rmsnorm) add("--normalization RMSNorm");
  switch (m.positional) {
    case Positional::rope:
      add("--position-embedding-type rope");
      // Megatron's default --rotary-base is 10000; Llama 3 uses 500000, Qwen3 1000000.
      if (m.rope_theta > 0) add("--rotary-base " + itext(m.rope_theta));
      // Llama 3.x rope scaling (--use-rope-scaling, --rope-scaling-factor: "as used in llama3.x").
      if (m.rope_llama3_factor > 0) add("--use-rope-scaling --rope-scaling-factor " + itext(m.rope_llama3_factor));
      break;
    case Positional::learned: break;
    case Positional::none: add("--position-embedding-type none"); break;
    case Positional::alibi: r.missing.push_back("ALiBi positions"); break;
  }
  switch (m.bias) {
    case Bias::none: add("--disable-bias-linear"); break;
    case Bias::qkv: add("--disable-bias-linear --add-qkv-bias"); break;
    case Bias::attention: r.missing.push_back("biases on the attention projections only"); break;
    case Bias::all: break;
  }
  if (m.block == Block::post) r.missing.push_back("post-norm blocks");
  else if (m.block == Block::sandwich) r.missing.push_back("sandwich norms (pre + post)");
  else if (m.block == Block::parallel) r.missing.push_back("parallel attention + MLP blocks");
  // Per-head q/k norm (Qwen3): Megatron's --qk-layernorm normalises each head with the model's norm.
  if (m.qk_norm == QkNorm::head) add("--qk-layernorm");
  else if (m.qk_norm == QkNorm::full) r.missing.push_back("a q/k norm over the whole projection");
  // kv_channels defaults to hidden / heads; Qwen3 and Mistral Nemo use head_dim 128 that differs from it.
  if (m.kv_lora_rank > 0) {
    add("--multi-latent-attention --kv-lora-rank " + itext(m.kv_lora_rank) + " --qk-head-dim " +
        itext(m.qk_nope_head_dim) + " --qk-pos-emb-head-dim " + itext(m.qk_rope_head_dim) + " --v-head-dim " +
        itext(m.v_head_dim));
    if (m.q_lora_rank > 0) add("--q-lora-rank " + itext(m.q_lora_rank));
  } else if (m.num_heads > 0 && effective_head_dim(m) != m.hidden_size / m.num_heads) {
    add("--kv-channels " + itext(effective_head_dim(m)));
  }
  // Sliding windows: Megatron's window (left, right) attends to left + 1 tokens including itself (Megatron-Bridge
  // exaone45_bridge.py: (sliding_window - 1, 0)); --window-attn-skip-freq N = one full layer after N - 1 windowed.
  if (m.sliding_window > 0) {
    add("--window-size " + itext(m.sliding_window - 1) + ",0");
    if (m.global_every > 0) add("--window-attn-skip-freq " + itext(m.global_every));
  }
  if (m.attention_sinks) add("--softmax-type learnable");
  // MoE layers: dense first layers (DeepSeek) or interleaving (Llama 4) as --moe-layer-freq's list (1 = MoE).
  if (m.num_experts > 1 && (m.first_k_dense > 0 || m.moe_layer_step > 1)) {
    std::string pattern = "[";
    for (int64_t i = 0; i < m.num_layers; ++i) pattern += std::string(i ? "," : "") + (is_moe_layer(m, i) ? "1" : "0");
    add("--moe-layer-freq '" + pattern + "]'");
  }
  if (!m.tie_embeddings) add("--untie-embeddings-and-output-weights");
  // Megatron pads the vocabulary to a multiple of 128 x TP unless --padded-vocab-size is given; the model's own
  // size keeps its parameter count (rounded up to a multiple of TP, which the vocab-parallel embedding needs).
  if (m.vocab_size > 0) add("--padded-vocab-size " + itext((m.vocab_size + tp - 1) / tp * tp));
  // Megatron's dropout defaults are 0.1; models trained without dropout (every modern LLM) set 0.
  if (!m.dropout) add("--attention-dropout 0.0 --hidden-dropout 0.0");
  // Families whose remaining parts no knob describes.
  if (m.arch == Arch::deepseek_v3)
    r.missing.push_back("DeepSeek-V3's router (sigmoid scores with expert bias, group-limited top-k) and YaRN rope");
  if (m.arch == Arch::llama4) r.missing.push_back("Llama 4's chunked attention, NoPE layers and sigmoid router");
  if (m.arch == Arch::gpt_oss) r.missing.push_back("gpt-oss's clamped SwiGLU and YaRN rope");
  if (m.arch == Arch::gemma2) r.missing.push_back("Gemma 2's logit soft-capping");
  return r;
}

// The Megatron-LM arguments of the plan, one "--flag value" per entry.
std::vector<std::string> megatron_args(Ctx& c) {
  const Plan& p = c.r.plan;
  const MemoryLayout& l = p.layout;
  const ModelSpec& m = c.q.model;
  std::vector<std::string> a;
  a.push_back("--tensor-model-parallel-size " + itext(l.tp));
  a.push_back("--pipeline-model-parallel-size " + itext(l.pp));
  if (l.cp > 1) a.push_back("--context-parallel-size " + itext(l.cp));
  // Ulysses under Megatron-Core: the a2a communication type (transformer_config.py cp_comm_type; p2p, the ring, is
  // its default).
  if (l.cp > 1 && l.cp_ulysses) a.push_back("--cp-comm-type a2a");
  // Expert parallelism (Megatron-LM arguments.py --expert-model-parallel-size / --expert-tensor-parallel-size): the
  // routed experts over ep ranks, each expert over etp ranks (written when it differs from TP, Megatron's default).
  if (l.ep > 1) a.push_back("--expert-model-parallel-size " + itext(l.ep));
  if (l.etp > 0 && l.etp != l.tp) a.push_back("--expert-tensor-parallel-size " + itext(l.etp));
  // Interleaved 1F1B: vp virtual stages per pipeline rank, each num_layers / (pp x vp) layers (Megatron-LM
  // arguments.py); written only when the plan has them.
  // Uneven stages (framework.h megatron_pipeline_split): the embedding / loss counted as a layer, or the first and
  // last stages' own counts.
  const MegatronPipelineSplit split = megatron_pipeline_split(m.num_layers, l.pp, l.vp);
  if (l.pp > 1 && m.num_layers > 0 && split.ok && !split.even) {
    if (split.embedding_counted) a.push_back("--account-for-embedding-in-pipeline-split");
    if (split.loss_counted) a.push_back("--account-for-loss-in-pipeline-split");
    if (split.first > 0) a.push_back("--decoder-first-pipeline-num-layers " + itext(split.first));
    if (split.last > 0) a.push_back("--decoder-last-pipeline-num-layers " + itext(split.last));
    if (l.vp > 1) a.push_back("--num-virtual-stages-per-pipeline-rank " + itext(l.vp));
  } else if (l.vp > 1 && l.pp > 1 && m.num_layers > 0) {
    a.push_back("--num-layers-per-virtual-pipeline-stage " + itext(m.num_layers / (static_cast<int64_t>(l.pp) * l.vp)));
  }
  if (l.sequence_parallel) a.push_back("--sequence-parallel");
  // The megatron-core profile's time assumes the TP collectives overlapped with the GEMMs (framework.h
  // tp_comm_overlap; Transformer Engine userbuffers, which need sequence parallelism); the interleaved p2p overlap
  // it also assumes is Megatron-LM's default.
  if (framework_profile(c.q.train.framework).tp_comm_overlap && l.tp > 1 && l.sequence_parallel)
    a.push_back("--tp-comm-overlap");
  // Megatron's distributed optimizer shards the optimizer states over data parallel ranks (ZeRO-1).
  if (l.zero >= 1) a.push_back("--use-distributed-optimizer");
  // ZeRO-3: Megatron-FSDP sharding parameters, gradients and optimizer states over the data-parallel ranks (its v1,
  // the default, runs with the distributed optimizer; arguments.py use_megatron_fsdp), which asserts the fsdp_dtensor
  // checkpoint format.
  if (l.zero == 3)
    a.push_back("--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params --ckpt-format fsdp_dtensor");
  // grad_reduce bf16: a 16-bit gradient buffer reduced in bf16 (framework.h grad_element_bytes).
  if (c.q.train.grad_reduce == GradReduce::bf16) a.push_back("--grad-reduce-in-bf16");
  // ... with the gradient reduce-scatter and parameter all-gather overlapped, as the megatron-core profile's time
  // assumes (framework.h dp_overlap_param_gather).
  if ((l.zero == 1 || l.zero == 3) && l.dp * l.cp > 1 && framework_profile(c.q.train.framework).dp_overlap_param_gather)
    a.push_back("--overlap-grad-reduce --overlap-param-gather");
  if (l.recompute == Recompute::full)
    a.push_back("--recompute-granularity full --recompute-method uniform --recompute-num-layers 1");
  else if (l.recompute == Recompute::selective && p.recompute_modules == kRecomputeCoreAttn)
    a.push_back("--recompute-granularity selective");  // Megatron-Core's default module list: core_attn
  else if (l.recompute == Recompute::selective && p.recompute_modules != 0)  // the plan's (the planner may pick one)
    a.push_back("--recompute-granularity selective --recompute-modules " + recompute_modules_text(p.recompute_modules, " "));
  // An empty module list recomputes nothing: Megatron without a recompute flag (--recompute-modules takes one name or
  // more, transformer_config.py recompute_modules).
  a.push_back("--micro-batch-size " + itext(l.micro_batch));
  a.push_back("--global-batch-size " + itext(p.global_batch));
  a.push_back("--seq-length " + itext(c.q.train.seq_len));
  if (m.arch != Arch::params_only) {
    a.push_back("--num-layers " + itext(m.num_layers));
    a.push_back("--hidden-size " + itext(m.hidden_size));
    if (m.intermediate_size > 0) a.push_back("--ffn-hidden-size " + itext(m.intermediate_size));
    a.push_back("--num-attention-heads " + itext(m.num_heads));
    if (m.num_kv_heads > 0 && m.num_kv_heads != m.num_heads)
      a.push_back("--group-query-attention --num-query-groups " + itext(m.num_kv_heads));
    a.push_back("--max-position-embeddings " + itext(std::max(m.max_position_embeddings, c.q.train.seq_len)));
    if (m.num_experts > 1) {
      a.push_back("--num-experts " + itext(m.num_experts) + " --moe-router-topk " + itext(m.experts_per_token));
      // The routed experts' width, grouped GEMMs and the token dispatcher the plan was timed with (framework.h
      // moe_efficiency; Plan::deepep, from runs_deepep): flex with DeepEP where the plan runs it, else the all-to-all.
      if (m.moe_intermediate_size > 0) a.push_back("--moe-ffn-hidden-size " + itext(m.moe_intermediate_size));
      if (m.shared_expert_intermediate_size > 0)
        a.push_back("--moe-shared-expert-intermediate-size " + itext(m.shared_expert_intermediate_size));
      a.push_back("--moe-grouped-gemm");
      // A capacity factor, padded (the query's moe.capacity_factor); the flex dispatcher refuses the padding.
      const double cf = c.q.train.moe_capacity_factor;
      if (cf > 0)
        a.push_back("--moe-expert-capacity-factor " + num_text(cf) + " --moe-pad-expert-input-to-capacity");
      if (c.r.plan.deepep)
        a.push_back("--moe-token-dispatcher-type flex --moe-enable-deepep");
      else
        a.push_back("--moe-token-dispatcher-type alltoall");
      if (c.r.plan.a2a_overlap) a.push_back("--overlap-moe-expert-parallel-comm");
    }
    const MegatronArch arch = megatron_arch(m, l.tp);
    a.insert(a.end(), arch.flags.begin(), arch.flags.end());
    if (!arch.missing.empty())
      a.push_back(c.sh_fill("Megatron-LM flags for " + join_words(arch.missing)));
  } else {
    a.push_back("--num-layers " + c.sh_fill("num layers") + " --hidden-size " + c.sh_fill("hidden size") +
                " --num-attention-heads " + c.sh_fill("attention heads"));
  }
  if (c.r.precision == "bf16") a.push_back("--bf16");
  else if (c.r.precision == "fp16") a.push_back("--fp16");
  else if (c.r.precision == "fp8") a.push_back("--bf16 --fp8-format hybrid");
  a.push_back("--clip-grad " + clip_text());
  a.push_back("--train-iters " + num_text(c.r.steps));
  a.push_back("--lr " + c.sh_fill("learning rate"));
  a.push_back("--data-path " + c.sh_fill("dataset path (Megatron indexed dataset prefix)"));
  a.push_back("--tokenizer-type HuggingFaceTokenizer --tokenizer-model " + c.model_ref);
  // --load of the save directory resumes from its latest checkpoint (latest_checkpointed_iteration.txt).
  a.push_back("--save " + c.ckpt_dir + " --load " + c.ckpt_dir);
  a.push_back("--save-interval " + itext(c.r.save_interval_steps));
  return a;
}

// ---- the environment and the Hugging Face arguments ----

// Megatron-LM's validate_args (megatron/training/arguments.py at d98e8a64) asserts CUDA_DEVICE_MAX_CONNECTIONS=1
// when tensor or context parallelism is > 1 on GPUs before Blackwell (the communication kernels are then queued
// ahead of the GEMMs they overlap); set for every such plan (Blackwell no longer needs it; the value is allowed).
// Under Megatron-FSDP it asserts the opposite (not 1, or unset: only a warning for TP / CP then), so a ZeRO-3
// plan unsets it, as the Megatron-FSDP guide recommends (docs/user-guide/features/megatron_fsdp.md).
// A plan whose only model parallelism is Ulysses context parallelism runs on the Hugging Face path: DeepSpeed's
// ALST / Ulysses through accelerate's parallelism_config (sp_backend deepspeed; Hugging Face blog "ulysses-sp",
// accelerate >= 1.12, deepspeed >= 0.18.1, transformers >= 5.0).
bool hf_ulysses(const MemoryLayout& l) { return l.cp > 1 && l.cp_ulysses && l.tp == 1 && l.pp == 1 && l.ep == 1; }

// The ring through accelerate's context parallelism (parallelism_config cp_size, cp_backend torch: accelerate docs
// concept_guides/context_parallelism, accelerate >= 1.10), which runs under FSDP2 only (ZeRO-2 / 3 here).
bool hf_ring_cp(const MemoryLayout& l, const TrainConfig& t) {
  return l.cp > 1 && !l.cp_ulysses && l.tp == 1 && l.pp == 1 && l.ep == 1 && l.zero >= 2 &&
         framework_profile(t.framework).ring_cp_fsdp2;
}

// The environment accelerate's launcher exports for a parallelism_config (accelerate utils/launch.py
// prepare_extend_env_parallelism_config: ACCELERATE_USE_PARALLELISM_CONFIG and PARALLELISM_CONFIG_*), read by
// Accelerator.__init__ when the Trainer starts under torchrun: dp_replicate x dp_shard x sp (or cp) = the processes.
// The ring also needs the FSDP2 plugin, which accelerate's launcher exports the same way (utils/launch.py
// prepare_multi_gpu_env: ACCELERATE_USE_FSDP, FSDP_VERSION, FSDP_*); activation checkpointing is then FSDP's, as
// the Trainer refuses it next to --gradient_checkpointing.
std::string hf_parallelism_env(Ctx& c) {
  const MemoryLayout& l = c.r.plan.layout;
  if (c.r.engine != "hf" || !hf_context_parallel(l, c.q.train)) return "";
  std::string t = "export ACCELERATE_USE_PARALLELISM_CONFIG=true\n" +
                  accelerate_settings_env("PARALLELISM_CONFIG_", parallelism_settings(l));
  if (hf_ring_cp(l, c.q.train)) t += "export ACCELERATE_USE_FSDP=true\n" + accelerate_settings_env("FSDP_", fsdp_settings(l, true));
  return t;
}

// for_megatron_file: the megatron arguments file, written for a plan the Hugging Face path launches too.
// nanotron's README ("Quick Start", and the sbatch script of its slurm_launcher.py) exports it for every run.
std::string megatron_env(Ctx& c, bool for_megatron_file) {
  const MemoryLayout& l = c.r.plan.layout;
  if (c.r.engine == "nanotron" && !for_megatron_file) return "export CUDA_DEVICE_MAX_CONNECTIONS=1\n";
  if (c.r.engine != "megatron" && !for_megatron_file) return "";
  if (l.zero == 3) return "unset CUDA_DEVICE_MAX_CONNECTIONS\n";
  // The all-to-all overlap runs its communication on streams of their own, which want more than one hardware queue
  // (validate_args: it "requires setting a larger CUDA_DEVICE_MAX_CONNECTIONS"; with TP / CP before Blackwell only a
  // warning, "1 or 32, which depends on which parallelization you want to prioritize", so the TP / CP rule keeps 1).
  if (!(l.tp > 1 || l.cp > 1)) return c.r.plan.a2a_overlap ? "export CUDA_DEVICE_MAX_CONNECTIONS=32\n" : "";
  return "export CUDA_DEVICE_MAX_CONNECTIONS=1\n";
}

namespace {

// The Hugging Face Trainer (+ TRL for LoRA) arguments of the plan.
std::vector<std::string> hf_args(Ctx& c) {
  const Plan& p = c.r.plan;
  const MemoryLayout& l = p.layout;
  std::vector<std::string> a;
  a.push_back("--model_name_or_path " + c.model_ref);
  a.push_back("--dataset_name " + c.sh_fill("dataset path"));
  a.push_back("--max_length " + itext(c.q.train.seq_len));
  a.push_back("--per_device_train_batch_size " + itext(l.micro_batch));
  a.push_back("--gradient_accumulation_steps " + itext(l.num_microbatches));
  a.push_back("--max_steps " + num_text(c.r.steps));
  if (c.r.precision == "bf16" || c.r.precision == "fp8") a.push_back("--bf16");
  else if (c.r.precision == "fp16") a.push_back("--fp16");
  // (Under accelerate's context parallelism the FSDP2 plugin checkpoints: hf_parallelism_env.)
  if (l.recompute != Recompute::none && !hf_ring_cp(l, c.q.train)) a.push_back("--gradient_checkpointing");
  a.push_back("--max_grad_norm " + clip_text());
  a.push_back("--output_dir " + c.ckpt_dir);
  a.push_back("--save_strategy steps --save_steps " + itext(c.r.save_interval_steps) + " --save_total_limit 2");
  if (c.deepspeed) a.push_back("--deepspeed ds_config.json");
  const TrainConfig& t = c.q.train;
  if (t.method != Method::full) {
    std::string targets;
    if (llama_family(c.q.model.arch)) {
      // (appended piecewise: "" + string trips g++ 12's false -Wrestrict, GCC bug 105329)
      for (const std::string& x : t.lora_targets) {
        targets += targets.empty() ? "" : " ";
        targets += safe_token(x, "?");
        targets += "_proj";
      }
    } else {
      targets = c.sh_fill("LoRA target module names");
    }
    a.push_back("--use_peft --lora_r " + itext(t.lora_rank) + " --lora_target_modules " + targets);
    if (t.method == Method::qlora) {
      a.push_back("--load_in_4bit");
      if (t.qlora_double_quant) a.push_back("--use_bnb_nested_quant");
    }
  }
  return a;
}

std::vector<std::string> train_args(Ctx& c) {
  if (c.r.engine == "torchtitan") return {"--job.config_file torchtitan.toml"};
  if (c.r.engine == "nanotron") return {"--config-file nanotron.yaml"};
  return c.r.engine == "megatron" ? megatron_args(c) : hf_args(c);
}

}  // namespace

// The spot resume step: the Trainer's checkpoints are <output_dir>/checkpoint-<step>; the newest one is resumed.
// (Megatron resumes by itself from --load, torchtitan from its checkpoint folder.)
std::string resume_lines(Ctx& c) {
  if (!c.spot || c.r.engine != "hf") return "";
  return "RESUME=\"\"\n"
         "LAST=$(ls -d " + c.ckpt_dir + "/checkpoint-* 2>/dev/null | sort -V | tail -n 1)\n"
         "if [ -n \"$LAST\" ]; then RESUME=\"--resume_from_checkpoint $LAST\"; fi\n";
}

// ---- the torchrun command ----

// torchrun with the given node-count / rank / address expressions, then the script and its arguments, one per
// line (backslash continuations), every line prefixed by `indent`.
std::string torchrun_command(Ctx& c, const std::string& nnodes, const std::string& nproc, const std::string& rank,
                             const std::string& addr, const std::string& indent) {
  std::vector<std::string> lines = {"torchrun",
                                    "  --nnodes=" + nnodes,
                                    "  --nproc-per-node=" + nproc,
                                    "  --node-rank=" + rank,
                                    "  --master-addr=" + addr,
                                    "  --master-port=" + itext(kMasterPort),
                                    c.r.engine == "torchtitan" ? std::string("  -m torchtitan.train")  // torchrun --module
                                    : c.r.engine == "nanotron" ? std::string("  run_train.py")  // nanotron's checkout root
                                    : "  " + c.sh_fill(c.r.engine == "megatron" ? "training script (Megatron-LM pretrain_gpt.py)"
                                                                              : "training script")};
  for (const std::string& a : train_args(c)) lines.push_back("  " + a);
  if (c.spot && c.r.engine == "hf") lines.push_back("  $RESUME");  // unquoted: empty, or two words
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += indent + lines[i] + (i + 1 < lines.size() ? " \\\n" : "\n");
  return out;
}

std::string indent_lines(const std::string& text, const std::string& indent) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find('\n', i);
    if (j == std::string::npos) j = text.size();
    if (j > i) out += indent;
    out.append(text, i, j - i);
    out += '\n';
    i = j + 1;
  }
  return out;
}

}  // namespace trainfit::recipe_detail
