// trainfit core — the reality set (reality.h). Each row is a configuration someone published as trained on named
// hardware, or as running out of memory there, with what the source leaves unsaid filled in the way stated in
// the row's note (the framework's default at the time, or the setting least favourable to the expected outcome).
// GPU memory is the driver-reported total (nvidia-smi "Total", MiB) of data/inputs/gpus.json.
#include "trainfit/validation/reality.h"

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <string>

#include "trainfit/catalog/model.h"
#include "trainfit/launch/calibrate.h"
#include "validation/reference_gpus.h"
#include "validation/reference_models.h"

namespace trainfit {
namespace {

// nvidia-smi totals of the GPUs the reports ran on (data/inputs/gpus.json cuda_memory_bytes, each with its source
// there: the RTX 4090's from github.com/RLinf/RLinf/issues/255, the RTX 3090's from
// github.com/meta-llama/llama-cookbook/issues/100).
struct Capacities {
  double a100_80 = reference_capacity("a100-sxm-80gb");
  double a100_40 = reference_capacity("a100-sxm-40gb");
  double h100 = reference_capacity("h100-sxm");
  double b200 = reference_capacity("b200");
  double a6000 = reference_capacity("rtx-a6000");
  double rtx4090 = reference_capacity("rtx-4090");
  double rtx3090 = reference_capacity("rtx-3090");
};

// MPT (llm-foundry scripts/train/yamls/pretrain/mpt-*.yaml): d_model, n_layers, n_heads, expansion_ratio 4,
// vocab 50368 (GPT-NeoX tokenizer padded), tied embeddings, no biases, ALiBi. Described as GPT-2 (GELU 4h MLP,
// LayerNorm): GPT-2's learned positions and biases add < 0.3% parameters, which the band covers.
ModelSpec mpt(const char* name, int64_t d, int64_t layers, int64_t heads) {
  return gpt_like(name, d, layers, heads, 50368, 2048);
}

const ModelSpec& preset(const char* id) {
  static const ModelSpec none;
  const ModelSpec* m = find_model(id);
  return m ? *m : none;
}

struct Case {
  const char* name;
  const char* source;
  const char* note;
  bool ran;
  ModelSpec model;
  TrainConfig train;
  MemoryLayout layout;
  double capacity;
  std::string gap;  // reality.h RealityRow::gap
};

TrainConfig lora(int rank, std::initializer_list<const char*> targets, Precision p, int64_t seq) {
  TrainConfig t;
  t.method = Method::lora;
  t.lora_rank = rank;
  t.lora_targets.assign(targets.begin(), targets.end());
  t.precision = p;
  t.seq_len = seq;
  return t;
}
TrainConfig full(Precision p, int64_t seq, bool autocast = false) {
  TrainConfig t;
  t.method = Method::full;
  t.precision = p;
  t.seq_len = seq;
  t.autocast = autocast;
  return t;
}
// Full training under a framework's profile (framework.h).
TrainConfig full_on(Framework f, Precision p, int64_t seq) {
  TrainConfig t = full(p, seq);
  t.framework = f;
  return t;
}

// A layout of `dp` data-parallel ranks; `split` gives the model-parallel degrees beside them (tp, pp, vp, cp, ep,
// sequence_parallel, cp_ulysses). Nodes of 8 GPUs; a job of fewer GPUs (tp x pp x cp x dp) runs on one node of
// that many.
MemoryLayout layout(int64_t mb, int64_t accum, Recompute rc, int dp = 1, int zero = 0, MemoryLayout split = {}) {
  MemoryLayout l = split;
  l.micro_batch = mb;
  l.num_microbatches = accum;
  l.recompute = rc;
  l.dp = dp;
  l.zero = zero;
  l.gpus_per_node = std::min(8, dp * l.tp * l.pp * l.cp);
  return l;
}

// bitsandbytes paged optimizers keep their states in CUDA unified memory, evicted to host RAM when the GPU runs
// short (Dettmers et al. 2023 §3): for a fit, the states are off the GPU, as with optimizer offload.
MemoryLayout paged(MemoryLayout l) {
  l.offload_optimizer = true;
  return l;
}


// Configurations that trained: the QLoRA paper, torchtune, Megatron-Bridge FP8.
void add_trained_cases(std::vector<Case>& c) {
  const Capacities cap;
  const auto all = {"q", "k", "v", "o", "gate", "up", "down"};
  // ---- Configurations that trained.
  {
    TrainConfig t = lora(64, all, Precision::bf16_mixed, 512);
    t.method = Method::qlora;
    c.push_back({"QLoRA paper: LLaMA 65B QLoRA r=64 all linears, micro-batch 1, seq 512, 1x 48 GB (RTX A6000)",
                 "Dettmers et al. 2023 (QLoRA), abstract: \"finetune a 65B parameter model on a single 48GB GPU\"; "
                 "github.com/artidoro/qlora scripts/finetune_guanaco_65b.sh (r=64, all linear layers, checkpointing)",
                 "micro-batch 1 and seq 512 for the paper's headline; gradient checkpointing on (qlora.py default); "
                 "paged AdamW (QLoRA §3 \"Paged Optimizers\": states page out to CPU RAM under memory pressure) "
                 "modelled as optimizer offload",
                 true, llama_like("LLaMA 65B", 8192, 80, 64, 64, 22016, 32000, 2048), t,
                 paged(layout(1, 16, Recompute::full)), cap.a6000});
    c.push_back({"QLoRA paper: LLaMA 33B QLoRA r=64 all linears, micro-batch 1, seq 512, 1x 24 GB consumer GPU",
                 "Dettmers et al. 2023 (QLoRA) §1: Guanaco 33B \"can be trained on a single consumer GPU\" (24 GB); "
                 "github.com/artidoro/qlora scripts/finetune_guanaco_33b.sh",
                 "the paper does not name the card: RTX 4090 (24,564 MiB); micro-batch 1, seq 512, checkpointing on; "
                 "paged AdamW modelled as optimizer offload",
                 true, llama_like("LLaMA 33B", 6656, 60, 52, 52, 17920, 32000, 2048), t,
                 paged(layout(1, 16, Recompute::full)), cap.rtx4090});
  }
  // torchtune README "Memory and training speed" table: batch size 2, no accumulation, packed to 2048 tokens,
  // torch.compile on; configs recipes/configs/llama3_1/8B_lora_single_device.yaml (lora_attn_modules q, v,
  // output_proj; apply_lora_to_mlp; rank 8; activation checkpointing on), 8B_qlora_single_device.yaml, 70B_lora.yaml.
  {
    const char* src = "pytorch/torchtune README.md @ a9ea6d5 (\"Memory and training speed\" table)";
    TrainConfig t = lora(8, all, Precision::bf16, 2048);
    t.framework = Framework::torchtune;  // its chunked loss (framework.h loss_chunks)
    c.push_back({"torchtune Llama 3.1 8B LoRA r=8, batch 2, seq 2048 packed, 1x RTX 4090 (16.2 GiB measured)", src,
                 "config defaults: LoRA on q, v, o and the MLP, activation checkpointing on", true,
                 preset("llama-3.1-8b"), t, layout(2, 1, Recompute::full), cap.rtx4090});
    c.push_back({"torchtune Llama 3.1 8B LoRA r=8, batch 2, seq 2048 packed, 1x RTX A6000 (30.3 GiB measured)", src,
                 "activation checkpointing not stated: assumed off (the larger peak)", true, preset("llama-3.1-8b"), t,
                 layout(2, 1, Recompute::none), cap.a6000,
                 "the table does not say whether activation checkpointing was on: off, the estimate is 53 GiB (no fit), "
                 "on, 21 GiB; torch.compile's fused activations (which the estimate does not model) lie between"});
    TrainConfig q = t;
    q.method = Method::qlora;
    c.push_back({"torchtune Llama 3.1 8B QLoRA r=8, batch 2, seq 2048 packed, 1x RTX 4090 (7.4 GiB measured)", src,
                 "config defaults: activation checkpointing on", true, preset("llama-3.1-8b"), q,
                 layout(2, 1, Recompute::full), cap.rtx4090});
    c.push_back({"torchtune Llama 3.1 70B LoRA r=8, batch 2, seq 2048 packed, 8x A100 80GB FSDP (27.6 GiB measured)",
                 src, "FSDP full shard (ZeRO-3) over 8 GPUs; activation checkpointing on (70B_lora.yaml)", true,
                 preset("llama-3.1-70b"), t, layout(2, 1, Recompute::full, 8, 3), cap.a100_80});
  }
  // Megatron-Bridge's FP8 SFT of Llama 3 70B on 32 H100 (docs/performance-summary-archive.md @067f987, 26.06 row:
  // GBS 32, MBS 1, seq 4096, TP 4, PP 4, VP 5, DP 2, 1,638 tokens/s per GPU). Its recipe (perf_recipes llama3 70B SFT,
  // tag v0.5.0): full SFT, FP8 current scaling, distributed optimizer with grad_reduce_in_fp32=False, sequence
  // parallel, no recompute, fp8_param_gather (FP8 weights: the 16-bit copy counted here is an over-estimate).
  {
    TrainConfig t = full_on(Framework::megatron_core, Precision::fp8_mixed, 4096);
    t.grad_reduce = GradReduce::bf16;
    const MemoryLayout l = layout(1, 16, Recompute::none, 2, 1, {.tp = 4, .pp = 4, .vp = 5, .sequence_parallel = true});
    c.push_back({"Megatron-Bridge Llama 3 70B FP8 SFT, TP 4 x PP 4 (VP 5) x DP 2, micro-batch 1, seq 4096, 32x H100",
                 "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @067f987 (26.06, fine-tuning table)",
                 "megatron-core profile with grad_reduce bf16 (the recipe's grad_reduce_in_fp32=False); FP8 parameter "
                 "gather not modelled (weights counted at 16 bits + an FP8 copy)",
                 true, preset("llama-3-70b"), t, l, cap.h100});
  }
  // NeMo 24.07's FP8 pre-training of Llama 3 8B on 8 H100 (NVIDIA/NeMo docs/source/performance/performance_summary.md
  // @070a0bb: TP 1, PP 1, CP 2, DP 4, MBS 1, GBS 128, seq 8192, 12,036 tokens/s per GPU). NeMo's performance scripts
  // reduce gradients in bf16 under FP8 (scripts/performance: with --fp8, bf16_with_fp8_mixed() and
  // plugins.grad_reduce_in_fp32 = False, ddp.grad_reduce_in_fp32 = False); no activation recompute stated.
  {
    TrainConfig t = full_on(Framework::megatron_core, Precision::fp8_mixed, 8192);
    t.grad_reduce = GradReduce::bf16;
    const MemoryLayout l = layout(1, 32, Recompute::none, 4, 1, {.cp = 2});
    c.push_back({"NeMo Llama 3 8B FP8 pre-training, CP 2 x DP 4, micro-batch 1, seq 8192, 8x H100",
                 "NVIDIA/NeMo docs/source/performance/performance_summary.md @070a0bb (NeMo 24.07, DGX-H100)",
                 "megatron-core profile with grad_reduce bf16 (NeMo's FP8 performance recipes); with fp32 gradients "
                 "and no recompute the estimate is 85 GiB (no fit)",
                 true, preset("llama-3-8b"), t, l, cap.h100});
  }
}

// Mixture of experts: torchtitan's DeepEP scaling table (a run and the out-of-memory row beside it).
void add_moe_cases(std::vector<Case>& c) {
  const Capacities cap;
  // torchtitan's DeepEP scaling table for Qwen3-30B-A3B on B200 (pytorch/torchtitan torchtitan/distributed/deepep/
  // README.md @022f885, "Scaling Results: Qwen3-30B"; config qwen3_30b_a3b_with_deepep.toml: FSDP over every GPU,
  // EP 8 inside a node, seq 4096, full activation checkpointing): weak scaling on 16 nodes ran local batch 10
  // (142.21 GiB reserved) and ran out of memory at local batch 16. The run that fits is judged; the OOM is not: the
  // fork that published the table held every MoE layer's routing graph across checkpointing (the note below).
  {
    TrainConfig t = full_on(Framework::torchtitan, Precision::bf16_mixed, 4096);
    t.loss_chunks = 1;  // that fork's train.py: one (compiled) cross-entropy over the batch, no ChunkedLossWrapper
    t.moe_dispatcher = MoeDispatcher::deepep;  // full checkpointing: the memory counts the all-to-all's buffers either way
    MemoryLayout l = layout(10, 1, Recompute::full, 128, 3, {.ep = 8});
    const char* src = "pytorch/torchtitan torchtitan/distributed/deepep/README.md @022f885 (Qwen3-30B, 16 nodes x 8 B200)";
    const char* note = "torchtitan profile, FSDP 128 with EP 8, full activation checkpointing, seq 4096";
    c.push_back({"torchtitan + DeepEP Qwen3-30B-A3B, local batch 10, seq 4096, FSDP 128 x EP 8, 128x B200 (142.2 GiB)",
                 src, note, true, preset("qwen3-30b-a3b"), t, l, cap.b200});
    l.micro_batch = 16;
    c.push_back({"torchtitan + DeepEP Qwen3-30B-A3B, local batch 16, seq 4096, FSDP 128 x EP 8, 128x B200: out of memory",
                 src, note, false, preset("qwen3-30b-a3b"), t, l, cap.b200,
                 "answered fits, not no_fit: about 159 GiB expected of 179. The table's peaks run 25-30% above the "
                 "estimate at every scale (167.9 GiB on 8 GPUs at local batch 8 against 128), about 1.1 MB per "
                 "token, and the code that produced it leaked memory: its DeepEP manager keeps each MoE layer's "
                 "routing scores after combine (torchtitan/distributed/deepep/utils.py @022f885, setup_metadata: "
                 "self.token_probs, never cleared), which under full checkpointing holds the layer's recomputed "
                 "attention and router graph (~58 KiB per token per layer by our reading) until the next forward; "
                 "the same file puts local batch 8 at ~163 GB before its clean-ups and ~112 GB after"});
    // The same two runs after `trainfit calibrate` on the table's one-node run (8 B200, local batch 8: 167.93 GiB
    // reserved, its strong-scaling row): the allocator reserve fitted there (calibrate.h fit_fragmentation) carries
    // whatever per-token memory the generic estimate misses to the 16-node runs, as a user who measured one node
    // before renting sixteen would have it.
    MemoryLayout one_node = layout(8, 1, Recompute::full, 8, 3, {.ep = 8});
    Result<double> f = fit_fragmentation(preset("qwen3-30b-a3b"), t, one_node, 167.93);
    const char* calibrated_note = "as above, with the allocator reserve fitted to the one-node run's 167.93 GiB";
    std::string gap = f ? std::string() : "the calibration on the one-node run failed: " + f.error().message;
    t.fragmentation = f ? *f : -1;
    l.micro_batch = 10;
    c.push_back({"torchtitan + DeepEP Qwen3-30B-A3B, local batch 10, 128x B200, calibrated on its 8-GPU run",
                 src, calibrated_note, true, preset("qwen3-30b-a3b"), t, l, cap.b200, gap});
    l.micro_batch = 16;
    c.push_back({"torchtitan + DeepEP Qwen3-30B-A3B, local batch 16, 128x B200, calibrated on its 8-GPU run: out of memory",
                 src, calibrated_note, false, preset("qwen3-30b-a3b"), t, l, cap.b200, gap});
  }
  // Lambda's torchtitan sweep (LambdaLabsML/torchtitan torchtitan/models/qwen3/config_registry.py @14f8425): on one
  // 8x B200 node, seq 8192, op-level selective checkpointing, compiled, standard expert parallelism 8 "OOMed at
  // bs=6 (jobs 1186, 1207)", where FSDP alone ran at 120.77 GiB: the policy saves the all-to-all results.
  {
    const TrainConfig t = full_on(Framework::torchtitan, Precision::bf16_mixed, 8192);
    MemoryLayout l = layout(6, 1, Recompute::selective, 8, 3, {.ep = 8});
    c.push_back({"torchtitan Qwen3-30B-A3B, local batch 6, seq 8192, FSDP 8 x EP 8, op SAC, 8x B200: out of memory",
                 "LambdaLabsML/torchtitan torchtitan/models/qwen3/config_registry.py @14f8425 (jobs 1186, 1207)",
                 "torchtitan profile, FSDP 8 with EP 8 (all-to-all dispatch), selective op checkpointing, 8 loss chunks",
                 false, preset("qwen3-30b-a3b"), t, l, cap.b200});
    // The same EP 8 through DeepEP v2 (eager: its ops do not compile): local batch 4 trained (job 1212, 168.07 GiB
    // after ~30 steps) and local batch 6 ran out of memory (job 1213). DeepEP sends a token once per destination
    // rank, so the policy keeps ~(5.34 + 1) rows of each token where the all-to-all keeps 16.
    TrainConfig d = t;
    d.moe_dispatcher = MoeDispatcher::deepep;
    d.compile = Compile::off;
    const char* deepep_note = "torchtitan profile, FSDP 8 with EP 8 through DeepEP, selective op checkpointing, 8 loss "
                              "chunks, eager (the run's DeepEP ops do not compile)";
    l.micro_batch = 4;
    c.push_back({"torchtitan + DeepEP Qwen3-30B-A3B, local batch 4, seq 8192, FSDP 8 x EP 8, op SAC, 8x B200 (168.07 GiB)",
                 "LambdaLabsML/torchtitan torchtitan/models/qwen3/config_registry.py @14f8425 (job 1212)", deepep_note,
                 true, preset("qwen3-30b-a3b"), d, l, cap.b200});
    l.micro_batch = 6;
    c.push_back({"torchtitan + DeepEP Qwen3-30B-A3B, local batch 6, seq 8192, FSDP 8 x EP 8, op SAC, 8x B200: out of memory",
                 "LambdaLabsML/torchtitan torchtitan/models/qwen3/config_registry.py @14f8425 (job 1213)", deepep_note,
                 false, preset("qwen3-30b-a3b"), d, l, cap.b200});
  }
  // The same sweep's eager runs out of memory (the docstrings of qwen3_30b_a3b_noac_bs2_nocudagraphs and
  // qwen3_30b_a3b_8k_bs6_selac): without checkpointing at local batch 2 (jobs 1165 and 1169: step 1 peaked at
  // 176.25 GiB, step 2 ran out) and 4 (job 1157, step 1); under op-level selective checkpointing at local batch 8
  // (job 1175, step 2), which the compiled run of the same batch survives at 139.82 GiB (validation_peaks.cpp).
  {
    TrainConfig t = full_on(Framework::torchtitan, Precision::bf16_mixed, 8192);
    t.compile = Compile::off;
    const char* src = "LambdaLabsML/torchtitan torchtitan/models/qwen3/config_registry.py @14f8425";
    const char* note = "torchtitan profile, FSDP 8, seq 8192, 8 loss chunks, eager (no torch.compile)";
    c.push_back({"torchtitan Qwen3-30B-A3B, local batch 2, seq 8192, FSDP 8, no checkpointing, 8x B200: out of memory",
                 src, note, false, preset("qwen3-30b-a3b"), t, layout(2, 1, Recompute::none, 8, 3), cap.b200});
    c.push_back({"torchtitan Qwen3-30B-A3B, local batch 4, seq 8192, FSDP 8, no checkpointing, 8x B200: out of memory",
                 src, note, false, preset("qwen3-30b-a3b"), t, layout(4, 1, Recompute::none, 8, 3), cap.b200});
    c.push_back({"torchtitan Qwen3-30B-A3B, local batch 8, seq 8192, FSDP 8, op SAC, eager, 8x B200: out of memory",
                 src, note, false, preset("qwen3-30b-a3b"), t, layout(8, 1, Recompute::selective, 8, 3), cap.b200,
                 "answered tight, not no_fit: entered eager (compile off), the estimate counts the attention inputs "
                 "that eager op-level checkpointing keeps, 0.47 MiB per token over 48 layers (170 GiB here; the "
                 "compiled run of this batch trained at 139.82 GiB, estimated 139), where the sweep's eager runs keep "
                 "~0.70 MiB per token more than its compiled ones (jobs 1176 and 1182, local batch 6: 154.21 against "
                 "120.77 GiB): the rest, ~0.23 MiB per token, is not established (the loss, which the compiled runs "
                 "compile too, by our reading of the code)"});
  }
}

// Megatron-MoE-ModelZoo's long-context Qwen3-235B-A22B runs (yanring/Megatron-MoE-ModelZoo best_practice/qwen3/
// readme.md @e865051, "Long Context": 32 nodes of 8 H100, BF16, TP 4, PP 8, VPP 4, EP 8, CP 1-8, GBS 256, DeepEP,
// `--recompute-granularity selective --recompute-modules layernorm moe`, distributed optimizer): each trained.
// Without the module list (no recompute, or the attention core only) trainfit answers no_fit on every one.
void add_moe_long_context_cases(std::vector<Case>& c) {
  const Capacities cap;
  TrainConfig t = full_on(Framework::megatron_core, Precision::bf16_mixed, 16384);
  t.recompute_modules = kRecomputeLayernorm | kRecomputeMoe;
  const struct {
    int cp;
    const char* name;
  } runs[] = {
      {1, "Megatron-Core Qwen3-235B-A22B, seq 16384, TP 4 x PP 8 (VP 4) x EP 8, recompute layernorm moe, 256x H100"},
      {2, "Megatron-Core Qwen3-235B-A22B, seq 32768, TP 4 x PP 8 (VP 4) x CP 2 x EP 8, recompute layernorm moe, 256x H100"},
      {4, "Megatron-Core Qwen3-235B-A22B, seq 65536, TP 4 x PP 8 (VP 4) x CP 4 x EP 8, recompute layernorm moe, 256x H100"},
      {8, "Megatron-Core Qwen3-235B-A22B, seq 131072, TP 4 x PP 8 (VP 4) x CP 8 x EP 8, recompute layernorm moe, 256x H100"},
  };
  for (const auto& r : runs) {
    t.seq_len = 16384 * int64_t(r.cp);
    const int dp = 8 / r.cp;
    const MemoryLayout l = layout(1, 256 / dp, Recompute::selective, dp, 1,
                                  {.tp = 4, .pp = 8, .cp = r.cp, .vp = 4, .ep = 8, .etp = 1, .sequence_parallel = true});
    c.push_back({r.name, "yanring/Megatron-MoE-ModelZoo best_practice/qwen3/readme.md @e865051 (Long Context, H100)",
                 "megatron-core profile, distributed optimizer, sequence parallel, micro-batch 1 (not in the command)",
                 true, preset("qwen3-235b-a22b"), t, l, cap.h100});
  }
}

// Long context (NeMo, Hugging Face Ulysses), torchtune, llm-foundry and LitGPT tables (runs and the out-of-memory rows beside them).
void add_long_context_and_table_cases(std::vector<Case>& c) {
  const Capacities cap;
  // Long context. NVIDIA's NeMo long-sequence page (NVIDIA/NeMo docs/source/performance/performance_long_sequence.md
  // @19fadb6, "LLAMA3-8B (FP8) - B200", NeMo 25.04): at 1024K tokens "even with full activation recomputation it is
  // impossible to run the LLAMA3-8B model ... without CP due to the GPU memory constraints", TP being capped at 8 by
  // the 8 query groups. Batch 4 over 4 data-parallel ranks (the CP run's TP 4 x DP 4): one micro-batch each.
  {
    const TrainConfig t = full_on(Framework::megatron_core, Precision::fp8_mixed, 1048576);
    const MemoryLayout l = layout(1, 1, Recompute::full, 4, 1, {.tp = 8, .sequence_parallel = true});
    c.push_back({"NeMo Llama 3 8B FP8, seq 1,048,576 without CP, TP 8 x DP 4, full recompute, B200: out of memory",
                 "NVIDIA/NeMo docs/source/performance/performance_long_sequence.md @19fadb6 (LLAMA3-8B FP8 B200, note 1)",
                 "megatron-core profile, distributed optimizer, sequence parallel; the published run needed CP 16",
                 false, preset("llama-3-8b"), t, l, cap.b200,
                 "answered tight (may run out of memory), not no_fit: the estimate counts the stored activations, "
                 "the 1M-token logits and loss and the sequence-parallel gathers (about 162 GiB of 179); the fused "
                 "attention and Transformer Engine workspaces at 1M tokens are not modelled"});
  }
  // Hugging Face's Ulysses blog (huggingface/blog ulysses-sp.md @01d33d5, 2026-03-09): Qwen3-4B SFT with TRL on
  // H100 80GB, DeepSpeed ZeRO-3 with CPU optimizer offload, gradient checkpointing, FlashAttention-2, SP 4 on 4
  // GPUs (DP 1), micro-batch 1 x 8 accumulation: 98,304 tokens ran (66.0 GB peak); 131,072 "OOM (requires ~81 GB)".
  {
    TrainConfig t = full_on(Framework::hf_trainer, Precision::bf16_mixed, 131072);
    t.cp_scheme = CpScheme::ulysses;
    MemoryLayout l = layout(1, 8, Recompute::full, 1, 3, {.cp = 4, .cp_ulysses = true});
    l.offload_optimizer = true;
    const char* src = "huggingface/blog ulysses-sp.md @01d33d5 (Qwen3-4B, SP 4 on 4x H100 80GB)";
    const char* note = "hf-trainer profile, DeepSpeed Ulysses SP 4, ZeRO-3 + CPU optimizer offload, full recompute";
    c.push_back({"HF Ulysses Qwen3-4B SFT, seq 131,072, SP 4, ZeRO-3 + optimizer offload, 4x H100: out of memory", src,
                 note, false, preset("qwen3-4b"), t, l, cap.h100,
                 "answered tight (may run out of memory), not no_fit: about 78 GiB expected of 79.6, where the blog "
                 "reports ~81 needed; DeepSpeed's ZeRO-3 prefetch and Ulysses all-to-all buffers are not modelled"});
    t.seq_len = 98304;
    c.push_back({"HF Ulysses Qwen3-4B SFT, seq 98,304, SP 4, ZeRO-3 + optimizer offload, 4x H100 (66.0 GB peak)", src,
                 note, true, preset("qwen3-4b"), t, l, cap.h100});
  }
  // torchtune docs, "Memory optimization overview" (Llama 3.2 3B full fine-tune, batch 2, seq 4096 packed, 1x A100).
  {
    const char* src = "pytorch/torchtune docs/source/tutorials/memory_optimizations.rst (Llama 3.2 3B table)";
    c.push_back({"torchtune Llama 3.2 3B full, batch 2, seq 4096 packed, 1x A100 80GB (60.0 GiB peak active)", src,
                 "pure bf16 (torchtune dtype bf16), torch AdamW, no activation checkpointing", true,
                 preset("llama-3.2-3b"), full(Precision::bf16, 4096), layout(2, 1, Recompute::none), cap.a100_80});
    c.push_back({"torchtune Llama 3.2 3B full + activation checkpointing, batch 2, seq 4096, 1x A100 80GB (24.9 GiB)",
                 src, "pure bf16, torch AdamW", true, preset("llama-3.2-3b"), full(Precision::bf16, 4096),
                 layout(2, 1, Recompute::full), cap.a100_80});
  }
  // llm-foundry scripts/train/benchmarking/README.md throughput tables: FSDP FULL_SHARD over every GPU,
  // micro-batch, global batch and activation checkpointing per row; amp_bf16 (H100, A100 80GB) or pure bf16
  // (A100 40GB rows, "MP Mode PURE").
  {
    const char* src = "mosaicml/llm-foundry scripts/train/benchmarking/README.md (throughput tables)";
    const char* note = "MPT described as GPT-2 shape (see mpt()); AdamW (LionW in some yamls needs less); FSDP = ZeRO-3";
    struct M {
      const char* name;
      ModelSpec m;
      int64_t seq, mb, accum;
      bool ac;
      int gpus;
      bool pure;
      double cap;
    } rows[] = {
        {"MPT-7B, 8x H100, micro-batch 6, seq 2048, no checkpointing", mpt("MPT-7B", 4096, 32, 32), 2048, 6, 1, false, 8, false, cap.h100},
        {"MPT-13B, 8x H100, micro-batch 2, seq 2048, no checkpointing", mpt("MPT-13B", 5120, 40, 40), 2048, 2, 1, false, 8, false, cap.h100},
        {"MPT-30B, 8x H100, micro-batch 3, seq 2048, checkpointing", mpt("MPT-30B", 7168, 48, 64), 2048, 3, 21, true, 8, false, cap.h100},
        {"MPT-70B, 32x H100, micro-batch 2, seq 2048, checkpointing", mpt("MPT-70B", 8192, 80, 64), 2048, 2, 16, true, 32, false, cap.h100},
        {"MPT-7B, 8x H100, micro-batch 1, seq 65536, checkpointing", mpt("MPT-7B", 4096, 32, 32), 65536, 1, 2, true, 8, false, cap.h100},
        {"MPT-7B, 8x A100 80GB, micro-batch 6, seq 2048, no checkpointing", mpt("MPT-7B", 4096, 32, 32), 2048, 6, 2, false, 8, false, cap.a100_80},
        {"MPT-13B, 8x A100 40GB, micro-batch 4, seq 2048, checkpointing, pure bf16", mpt("MPT-13B", 5120, 40, 40), 2048, 4, 16, true, 8, true, cap.a100_40},
        {"MPT-7B, 8x A100 40GB, micro-batch 12, seq 2048, checkpointing, pure bf16", mpt("MPT-7B", 4096, 32, 32), 2048, 12, 4, true, 8, true, cap.a100_40},
        {"MPT-3B, 8x A100 40GB, micro-batch 1, seq 8192, no checkpointing, pure bf16", mpt("MPT-3B", 2560, 32, 20), 8192, 1, 8, false, 8, true, cap.a100_40},
    };
    for (const M& r : rows) {
      // At 64k tokens per micro-batch the logits dominate: llm-foundry's fused cross-entropy (flash-attn's
      // xentropy kernel) keeps no fp32 log-softmax copy, which the generic estimate (46 GB of logits) does.
      const char* gap = r.seq > 32768 ? "llm-foundry's fused cross-entropy keeps no fp32 log-softmax of the 64k-token "
                                        "batch (~46 GB here); not modelled yet"
                                      : "";
      c.push_back({r.name, src, note, true, r.m, full(r.pure ? Precision::bf16 : Precision::bf16_mixed, r.seq),
                   layout(r.mb, r.accum, r.ac ? Recompute::full : Recompute::none, r.gpus, 3), r.cap, gap});
    }
  }
  // LitGPT tutorials/resource-tables.md (2023-10-20), "Finetuning with LoRA on 1 GPU": Alpaca padded to the
  // longest example (1304 tokens for Llama 2), LoRA r=8 on q and v, bf16-true, 1x A100-SXM4-40GB.
  TrainConfig lg = lora(8, {"q", "v"}, Precision::bf16, 1304);
  lg.fused_qkv = true;
  {
    const char* src = "Lightning-AI/litgpt tutorials/resource-tables.md (2023-10-20), Max GPU RAM";
    const char* note = "LitGPT's fused qkv, no activation checkpointing";
    c.push_back({"LitGPT Llama 2 7B LoRA, micro-batch 1, 1x A100 40GB (21.30 GB)", src, note, true,
                 preset("llama-2-7b"), lg, layout(1, 128, Recompute::none), cap.a100_40});
    c.push_back({"LitGPT Llama 2 7B LoRA, micro-batch 2, 1x A100 40GB (29.07 GB)", src, note, true,
                 preset("llama-2-7b"), lg, layout(2, 64, Recompute::none), cap.a100_40});
    c.push_back({"LitGPT Llama 2 13B LoRA, micro-batch 1, 1x A100 40GB (38.12 GB)", src, note, true,
                 preset("llama-2-13b"), lg, layout(1, 128, Recompute::none), cap.a100_40});
    TrainConfig q = lg;
    q.method = Method::qlora;
    c.push_back({"LitGPT Llama 2 13B QLoRA bnb.nf4-dq, micro-batch 1, 1x A100 40GB (22.55 GB)", src, note, true,
                 preset("llama-2-13b"), q, layout(1, 128, Recompute::none), cap.a100_40});
    // ---- Out-of-memory reports.
    c.push_back({"LitGPT Llama 2 7B LoRA, micro-batch 4, 1x A100 40GB: OOM", src, note, false, preset("llama-2-7b"), lg,
                 layout(4, 32, Recompute::none), cap.a100_40});
    c.push_back({"LitGPT Llama 2 13B LoRA, micro-batch 2, 1x A100 40GB: OOM", src, note, false, preset("llama-2-13b"),
                 lg, layout(2, 64, Recompute::none), cap.a100_40});
  }
}

// Out-of-memory reports from users' issues.
void add_oom_reports(std::vector<Case>& c) {
  const Capacities cap;
  const auto all = {"q", "k", "v", "o", "gate", "up", "down"};
  // Stanford Alpaca train.py (HF Trainer, --bf16/--fp16 True = autocast with fp32 parameters, AdamW, FSDP
  // "full_shard auto_wrap", model_max_length 512).
  c.push_back({"Stanford Alpaca LLaMA 7B full, FSDP full shard, 4x RTX 3090, bf16 autocast, batch 1, seq 512: OOM",
               "github.com/tatsu-lab/stanford_alpaca issue reports (reality_set.json: alpaca-7b-full-fsdp-4x3090)",
               "fp32 parameters, gradients and Adam states sharded over 4 GPUs: 28 GB per GPU before activations", false,
               preset("llama-2-7b"), full(Precision::bf16_mixed, 512, true), layout(1, 1, Recompute::none, 4, 3),
               cap.rtx3090});
  c.push_back({"Stanford Alpaca LLaMA 13B full, FSDP full shard, 2x A100 80GB, fp16 autocast, batch 1, seq 512: OOM",
               "github.com/tatsu-lab/stanford_alpaca issue: \"Tried to allocate 606.00 MiB (GPU 1; 79.18 GiB total "
               "capacity ...)\" (reality_set.json: alpaca-13b-full-fsdp-2xa100-80)",
               "gradient accumulation 8", false, preset("llama-2-13b"), full(Precision::fp16_mixed, 512, true),
               layout(1, 8, Recompute::none, 2, 3), cap.a100_80});
  c.push_back({"LLaMA 7B full fine-tune on 1x A100 80GB, fp16 autocast with GradScaler, batch 1, seq 512: OOM",
               "code-alpaca issue traceback 'self.scaler.scale(loss).backward()' (reality_set.json: alpaca-7b-full-1xa100-80)",
               "batch and sequence not stated: the smallest (1 x 512) assumed", false, preset("llama-2-7b"),
               full(Precision::fp16_mixed, 512, true), layout(1, 1, Recompute::none), cap.a100_80});
  c.push_back({"Mistral 7B full fine-tune on 1x RTX 3090 24 GB, bf16, batch 1, seq 512: OOM",
               "abacaj/fine-tune-mistral issue: \"Tried to allocate 732.00 MiB (GPU 0; 24.00 GiB total capacity)\" "
               "(reality_set.json: abacaj-mistral7b-full-1x3090)",
               "script defaults not restated: the smallest batch and sequence assumed", false,
               preset("mistral-7b-v0.1"), full(Precision::bf16_mixed, 512), layout(1, 1, Recompute::full), cap.rtx3090});
  {
    TrainConfig t = lora(8, all, Precision::bf16, 1024);
    c.push_back({"LongLoRA Llama 2 70B LoRA SFT, DeepSpeed ZeRO-2 on 8x A100 80GB: OOM",
                 "dvlab-research/LongLoRA issue (reality_set.json: longlora-70b-sft-zero2)",
                 "ZeRO-2 keeps the 140 GB of bf16 base weights on every GPU; sequence not restated: 1024 assumed",
                 false, preset("llama-2-70b"), t, layout(1, 1, Recompute::full, 8, 2), cap.a100_80});
  }
}

std::vector<Case> cases() {
  std::vector<Case> c;
  for (auto add : {add_trained_cases, add_long_context_and_table_cases, add_moe_cases, add_moe_long_context_cases,
                   add_oom_reports})
    add(c);
  return c;
}

}  // namespace

Result<std::vector<RealityRow>> reality_rows() {
  std::vector<RealityRow> out;
  for (Case& k : cases()) {
    if (k.model.num_layers == 0) return Error{"model", std::string("reality set: preset missing for ") + k.name};
    Result<MemoryBreakdown> m = estimate_memory(k.model, k.train, k.layout);
    if (!m) return Error{m.error().field, std::string(k.name) + ": " + m.error().message};
    RealityRow r;
    r.name = k.name;
    r.source = k.source;
    r.note = k.note;
    r.ran = k.ran;
    r.usable_bytes = k.capacity;
    r.expected_bytes = m->total;
    r.high_bytes = m->total_high;
    r.verdict = fit_verdict(*m, k.capacity);
    r.gap = k.gap;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace trainfit
