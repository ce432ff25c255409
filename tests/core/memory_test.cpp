// Training-memory estimator behaviour. Published-number checks live in validation_test.cpp.
#include <gtest/gtest.h>
#include <limits>

#include <algorithm>
#include <chrono>

#include "trainfit/estimate/memory.h"

namespace trainfit {
namespace {

ModelSpec preset(const char* id) {
  const ModelSpec* m = find_model(id);
  EXPECT_NE(m, nullptr) << id;
  return m ? *m : ModelSpec{};
}

MemoryBreakdown est(const ModelSpec& m, const TrainConfig& t, const MemoryLayout& l) {
  auto r = estimate_memory(m, t, l);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  return r.ok() ? r.value() : MemoryBreakdown{};
}

TrainConfig full_ft() {
  TrainConfig t;
  t.method = Method::full;
  t.precision = Precision::bf16_mixed;
  t.optimizer = Optimizer::adamw;
  t.seq_len = 2048;
  return t;
}

// ZeRO Sec. 5.1-5.3: P_os divides master + optimizer states, P_g the gradients, P_p the weights, each by N_d.
TEST(MemoryEstimator, ZeroStage3DividesAllModelStatesByDp) {
  const ModelSpec m = preset("llama-3-8b");
  MemoryLayout l0, l3;
  l3.dp = 8;
  l3.zero = 3;
  const auto a = est(m, full_ft(), l0), b = est(m, full_ft(), l3);
  EXPECT_DOUBLE_EQ(b.weights, a.weights / 8);
  EXPECT_DOUBLE_EQ(b.gradients, a.gradients / 8);
  EXPECT_DOUBLE_EQ(b.master_weights, a.master_weights / 8);
  EXPECT_DOUBLE_EQ(b.optimizer_states, a.optimizer_states / 8);
  EXPECT_GT(b.zero3_gathered, 0.0);
  EXPECT_EQ(a.zero3_gathered, 0.0);
  // Mixed-precision Adam: 2 + 4 + 2 + 8 = 16 bytes per parameter (ZeRO Sec. 3.1, K = 12).
  EXPECT_DOUBLE_EQ(a.weights + a.master_weights + a.gradients + a.optimizer_states, 16 * 8030261248.0);
}

TEST(MemoryEstimator, ZeroStage1And2ShardOnlyWhatTheyOwn) {
  const ModelSpec m = preset("llama-3-8b");
  MemoryLayout z1, z2;
  z1.dp = z2.dp = 4;
  z1.zero = 1;
  z2.zero = 2;
  const auto a = est(m, full_ft(), z1), b = est(m, full_ft(), z2);
  EXPECT_DOUBLE_EQ(a.weights, 2 * 8030261248.0);
  EXPECT_DOUBLE_EQ(a.gradients, 2 * 8030261248.0);
  EXPECT_DOUBLE_EQ(b.gradients, a.gradients / 4);
  EXPECT_DOUBLE_EQ(a.optimizer_states, b.optimizer_states);
}

// ZeRO-Offload (Ren et al. 2021): optimizer states and fp32 master move to host RAM.
TEST(MemoryEstimator, OptimizerOffloadMovesStatesToHostRam) {
  const ModelSpec m = preset("llama-3-8b");
  MemoryLayout on, off;
  on.dp = off.dp = 8;
  on.zero = off.zero = 2;
  on.gpus_per_node = off.gpus_per_node = 8;
  off.offload_optimizer = true;
  const auto a = est(m, full_ft(), on), b = est(m, full_ft(), off);
  EXPECT_EQ(b.optimizer_states, 0.0);
  EXPECT_EQ(b.master_weights, 0.0);
  EXPECT_LT(b.total, a.total);
  // 8 ranks x (4 master + 8 Adam + 4 fp32 grads) / 8 per parameter, x 1.5 DeepSpeed buffer factor.
  EXPECT_DOUBLE_EQ(b.host_ram_per_node_bytes, 1.5 * 16 * 8030261248.0);
}

TEST(MemoryEstimator, OptimizerStateBytesFollowTheOptimizer) {
  const ModelSpec m = preset("qwen2.5-0.5b");
  const double n = 494032768.0;
  auto states = [&](Optimizer o, Precision p) {
    TrainConfig t = full_ft();
    t.optimizer = o;
    t.precision = p;
    return est(m, t, MemoryLayout{}).optimizer_states;
  };
  EXPECT_DOUBLE_EQ(states(Optimizer::adamw, Precision::bf16_mixed), 8 * n);
  EXPECT_DOUBLE_EQ(states(Optimizer::adamw, Precision::bf16), 4 * n);  // pure bf16: states in bf16
  EXPECT_DOUBLE_EQ(states(Optimizer::adamw_8bit, Precision::bf16_mixed), 2 * (1 + 4.0 / 256) * n);
  EXPECT_DOUBLE_EQ(states(Optimizer::sgd, Precision::bf16_mixed), 0.0);
  EXPECT_DOUBLE_EQ(states(Optimizer::sgd_momentum, Precision::bf16_mixed), 4 * n);
  EXPECT_DOUBLE_EQ(states(Optimizer::lion, Precision::bf16_mixed), 4 * n);
  const double ada = states(Optimizer::adafactor, Precision::bf16_mixed);
  EXPECT_GT(ada, 0.0);
  EXPECT_LT(ada, 0.02 * 4 * n);  // factored: rows + cols, not rows x cols
}

TEST(MemoryEstimator, PrecisionChangesWeightAndMasterBytes) {
  const ModelSpec m = preset("qwen2.5-0.5b");
  TrainConfig t = full_ft();
  t.precision = Precision::fp32;
  auto f32 = est(m, t, MemoryLayout{});
  EXPECT_DOUBLE_EQ(f32.weights, 4 * 494032768.0);
  EXPECT_EQ(f32.master_weights, 0.0);
  t.precision = Precision::bf16;
  EXPECT_EQ(est(m, t, MemoryLayout{}).master_weights, 0.0);
  t.precision = Precision::fp8_mixed;
  auto f8 = est(m, t, MemoryLayout{});
  EXPECT_DOUBLE_EQ(f8.master_weights, 4 * 494032768.0);
}

TEST(MemoryEstimator, LoraTrainsOnlyAdaptersAndKeepsTotalApart) {
  const ModelSpec m = preset("llama-3-8b");
  TrainConfig t = full_ft();
  t.method = Method::lora;
  t.lora_rank = 16;
  const auto r = est(m, t, MemoryLayout{});
  EXPECT_EQ(r.params.total, 8030261248.0);
  // r * (in + out) summed over q, k, v, o, gate, up, down for 32 layers.
  const double per_layer = 16.0 * ((4096 + 4096) * 2 + (4096 + 1024) * 2 + (4096 + 14336) * 3);
  EXPECT_DOUBLE_EQ(r.params.trainable, 32 * per_layer);
  EXPECT_EQ(r.gradients, 0.0);
  EXPECT_EQ(r.optimizer_states, 0.0);
  EXPECT_GT(r.lora_adapters, 0.0);
  EXPECT_DOUBLE_EQ(r.weights, 2 * 8030261248.0);
  EXPECT_LT(r.total, est(m, full_ft(), MemoryLayout{}).total);
}

// QLoRA (Dettmers et al. 2023): NF4 weights (0.5 B) + double-quantised constants (0.127 bit/param).
TEST(MemoryEstimator, QloraStoresLinearsInFourBits) {
  const ModelSpec m = preset("llama-2-7b");
  TrainConfig t = full_ft();
  t.method = Method::qlora;
  t.precision = Precision::bf16;
  const auto q = est(m, t, MemoryLayout{});
  const double linear = 32 * (4 * 4096.0 * 4096 + 3 * 4096.0 * 11008);
  const double rest = 6738415616.0 - linear;
  EXPECT_DOUBLE_EQ(q.weights, linear * 0.5 + rest * 2);
  EXPECT_GT(q.quantization, linear * 0.127 / 8);
  t.method = Method::lora;
  EXPECT_LT(q.weights, est(m, t, MemoryLayout{}).weights / 3);
}

TEST(MemoryEstimator, FlashAttentionRemovesTheQuadraticTerm) {
  const ModelSpec m = preset("llama-3-8b");
  TrainConfig t = full_ft();
  auto acts = [&](Attention a, int64_t s) {
    TrainConfig c = t;
    c.attention = a;
    c.seq_len = s;
    auto r = layer_activations(m, c, MemoryLayout{});
    return r.ok() ? r->stored : -1.0;
  };
  EXPECT_NEAR(acts(Attention::flash, 4096) / acts(Attention::flash, 2048), 2.0, 1e-9);
  EXPECT_GT(acts(Attention::eager, 4096) / acts(Attention::eager, 2048), 2.5);
}

TEST(MemoryEstimator, RecomputeLowersStoredActivations) {
  const ModelSpec m = preset("llama-3-8b");
  TrainConfig t = full_ft();
  t.attention = Attention::eager;
  MemoryLayout none, sel, full;
  sel.recompute = Recompute::selective;
  full.recompute = Recompute::full;
  const auto a = est(m, t, none), b = est(m, t, sel), c = est(m, t, full);
  EXPECT_GT(a.activations, b.activations);
  EXPECT_GT(b.activations, c.activations);
  EXPECT_DOUBLE_EQ(c.activations_per_layer, 2048.0 * 2 * 4096);  // Korthikanti Table 2: 2sbh per layer
}

// Korthikanti Sec. 4.2.3: with 1F1B the first stage keeps p micro-batches of its L/p layers.
TEST(MemoryEstimator, PipelineFirstStageHoldsPMicroBatches) {
  const ModelSpec m = preset("llama-3-8b");
  MemoryLayout l;
  l.pp = 4;
  l.num_microbatches = 16;
  const auto r = est(m, full_ft(), l);
  EXPECT_EQ(r.layers_per_stage, 8);
  EXPECT_EQ(r.microbatches_in_flight, 4);
  l.num_microbatches = 2;
  EXPECT_EQ(est(m, full_ft(), l).microbatches_in_flight, 2);
}

// Megatron-Core schedules.py: 1F1B holds min(m, p - r) micro-batches on rank r; interleaved 1F1B warms up with
// 2 (p - r - 1) + (v - 1) p chunk passes, + 1, at most m v (the Megatron-LM PP 4 x VP 8 functional test: m = 4).
TEST(MemoryEstimator, PipelineRanksHoldTheScheduleCountOfChunkPasses) {
  EXPECT_EQ(pipeline_chunk_passes_in_flight(4, 1, 0, 16), 4);
  EXPECT_EQ(pipeline_chunk_passes_in_flight(4, 1, 3, 16), 1);
  EXPECT_EQ(pipeline_chunk_passes_in_flight(4, 1, 0, 2), 2);
  EXPECT_EQ(pipeline_chunk_passes_in_flight(4, 8, 3, 4), 29);   // (8 - 1) x 4 + 1
  EXPECT_EQ(pipeline_chunk_passes_in_flight(4, 8, 0, 4), 32);   // capped at m v = 32
  EXPECT_EQ(pipeline_chunk_passes_in_flight(4, 4, 0, 32), 19);  // v p + p - 1 = (1 + (p-1)/(p v)) p v
  EXPECT_EQ(pipeline_chunk_passes_in_flight(1, 1, 0, 8), 1);
}

// The last rank holds the head, one micro-batch in flight and the loss buffers; the first the embedding and p
// micro-batches; without a rank the estimate is the worse of the two stages' parts.
TEST(MemoryEstimator, NamedPipelineRankIsEstimatedOnItsOwn) {
  const ModelSpec m = preset("llama-3-8b");
  MemoryLayout l;
  l.pp = 4;
  l.num_microbatches = 8;
  const auto worst = est(m, full_ft(), l);
  l.pp_rank = 0;
  const auto first = est(m, full_ft(), l);
  l.pp_rank = 3;
  const auto last = est(m, full_ft(), l);
  EXPECT_EQ(first.logits, 0.0);
  EXPECT_GT(last.logits, 0.0);
  EXPECT_GT(first.activations, 3.5 * (last.activations - 0.0));  // 4 micro-batches vs 1 (plus the head input)
  EXPECT_GE(worst.total, first.total);
  EXPECT_GE(worst.total, last.total);
  l.pp_rank = 4;
  EXPECT_FALSE(estimate_memory(m, full_ft(), l).ok());
}

// Megatron-Core's embedding- and loss-counted split (--account-for-embedding-in-pipeline-split /
// --account-for-loss-in-pipeline-split): 30 layers + 2 over PP x VP chunks, the first and the last chunk one layer
// fewer. The interleaved schedule's forward passes run in groups of p micro-batches per chunk (schedules.py
// get_schedule_table), so each rank's in-flight passes are counted with their own chunk's layers; with few layers
// per chunk the second rank, one pass fewer but no short chunk, holds the most.
TEST(MemoryEstimator, MegatronCountedSplitHoldsEachChunksOwnLayers) {
  ModelSpec m = preset("llama-3-8b");
  m.num_layers = 30;
  TrainConfig t = full_ft();
  t.framework = Framework::megatron_core;
  MemoryLayout l;
  l.pp = 4;
  l.vp = 2;
  l.num_microbatches = 8;
  auto layer = layer_activations(m, t, l);
  ASSERT_TRUE(layer.ok());
  const double stored = layer.value().stored;
  auto acts = [&](int rank) {
    l.pp_rank = rank;
    return est(m, t, l).activations;
  };
  // Rank 0: 2 x 3 + 4 + 1 = 11 passes, chunk 0 (3 layers) 4 + 3, chunk 1 (4 layers) 4: 37 layers (not 11 x 4);
  // rank 1: 9 passes of 4-layer chunks.
  EXPECT_NEAR(acts(0), 37 * stored, 1.0);
  EXPECT_NEAR(acts(1), 36 * stored, 1.0);
  // PP 8 x VP 2, 2 layers a chunk, 16 micro-batches: rank 0 holds 15 passes of 1 layer and 8 of 2 (31 layers),
  // rank 1 21 passes of 2 (42): the estimate without a named rank is rank 1's.
  l.pp = 8;
  l.num_microbatches = 16;
  EXPECT_NEAR(acts(0), 31 * stored, 1.0);
  EXPECT_NEAR(acts(1), 42 * stored, 1.0);
  EXPECT_NEAR(acts(-1), 42 * stored, 1.0);
  // The same split under a framework without Megatron's counted split: every chunk counted with 2 layers.
  t.framework = Framework::torchtitan;
  layer = layer_activations(m, t, l);
  ASSERT_TRUE(layer.ok());
  EXPECT_NEAR(acts(0), 46 * layer.value().stored, 1.0);
}

// Loss buffers are framework data (framework.h loss_fp32_buffers): generic / HF keep logits + 3 fp32 buffers,
// Megatron's vocab-parallel cross-entropy logits + 1, torchtitan drops the logits before backward (3 fp32).
TEST(MemoryEstimator, LossBuffersFollowTheFrameworkProfile) {
  const ModelSpec m = preset("llama-3-8b");
  TrainConfig t = full_ft();
  MemoryLayout l;
  const double logits = 2048.0 * double(m.vocab_size);
  EXPECT_DOUBLE_EQ(est(m, t, l).logits, logits * (2 + 12));
  t.framework = Framework::megatron_core;
  EXPECT_DOUBLE_EQ(est(m, t, l).logits, logits * (2 + 4));
  t.framework = Framework::torchtitan;
  t.loss_chunks = 1;  // one cross-entropy over the batch (torchtitan before ChunkedLossWrapper)
  EXPECT_DOUBLE_EQ(est(m, t, l).logits, logits * 12);
  // torchtitan's default, ChunkedLossWrapper with 8 chunks: one chunk's logits (2 B) and fp32 loss buffers (12 B),
  // plus the fp32 gradient of the hidden states for every token.
  t.loss_chunks = 0;
  EXPECT_DOUBLE_EQ(est(m, t, l).logits, logits / 8 * (2 + 12) + 2048.0 * 4 * double(m.hidden_size));
  t.loss_chunks = 4;
  EXPECT_DOUBLE_EQ(est(m, t, l).logits, logits / 4 * (2 + 12) + 2048.0 * 4 * double(m.hidden_size));
  t.loss_chunks = 0;
  t.framework = Framework::generic;
  t.hf_fp32_logits = true;  // transformers < 4.46 LlamaForCausalLM: fp32 logits + shifted fp32 copy
  EXPECT_DOUBLE_EQ(est(m, t, l).logits, logits * (2 + 12 + 8));
}

// torchtitan's "op" selective checkpointing (parallelize_llama.py): a Llama layer keeps its input and the outputs of
// the 1st, 3rd, 5th and 7th matmuls (wq, wv, w1, w2) and of the flash-attention kernel (with its fp32 logsumexp); eager,
// the kernel's inputs too.
TEST(MemoryEstimator, TorchtitanSelectiveRecomputeKeepsEveryOtherMatmul) {
  const ModelSpec m = preset("llama-3.1-8b");
  TrainConfig t = full_ft();
  t.framework = Framework::torchtitan;
  MemoryLayout l;
  l.recompute = Recompute::selective;
  const auto la = layer_activations(m, t, l);
  ASSERT_TRUE(la.ok());
  const double h = 4096, kv = 1024, f = 14336, tokens = 2048;
  EXPECT_DOUBLE_EQ(la->stored, tokens * (2 * h + 2 * h + 2 * kv + 2 * f + 2 * h + 2 * h + 4 * 32));
  // Run eager (compile off; the profile is compiled by default), the policy also keeps the attention kernel's inputs,
  // the rotated q and k and v in bf16 (memory_activations.cpp op_sac_terms); compile on keeps what auto does, and a
  // fully recomputed layer keeps its input either way.
  t.compile = Compile::on;
  const auto on = layer_activations(m, t, l);
  t.compile = Compile::off;
  const auto eager = layer_activations(m, t, l);
  ASSERT_TRUE(on.ok() && eager.ok());
  EXPECT_DOUBLE_EQ(on->stored, la->stored);
  EXPECT_DOUBLE_EQ(eager->stored - la->stored, tokens * 2 * (h + 2 * kv));
  MemoryLayout full = l;
  full.recompute = Recompute::full;
  const auto full_eager = layer_activations(m, t, full);
  t.compile = Compile::automatic;
  const auto full_compiled = layer_activations(m, t, full);
  ASSERT_TRUE(full_eager.ok() && full_compiled.ok());
  EXPECT_DOUBLE_EQ(full_eager->stored, full_compiled->stored);
  t.framework = Framework::generic;  // Korthikanti's selective recompute keeps more
  const auto k = layer_activations(m, t, l);
  ASSERT_TRUE(k.ok());
  EXPECT_GT(k->stored, la->stored);
}

// Full recompute re-runs a layer in its backward, after the loss buffers are freed: the peak holds the larger of
// the two, not both.
TEST(MemoryEstimator, RecomputedLayerDoesNotOverlapTheLossBuffers) {
  const ModelSpec m = preset("llama-3-8b");
  MemoryLayout none, full;
  full.recompute = Recompute::full;
  const auto la = layer_activations(m, full_ft(), none);
  ASSERT_TRUE(la.ok());
  const auto r = est(m, full_ft(), full);
  const double stored = 32.0 * 2048 * 2 * 4096;
  EXPECT_LT(r.activations + r.logits, stored + la->no_recompute + r.logits);
  EXPECT_GE(r.activations + r.logits, stored + std::max(la->no_recompute, r.logits) - 1.0);
}

TEST(MemoryEstimator, ContextParallelDividesActivations) {
  const ModelSpec m = preset("llama-3-8b");
  MemoryLayout a, b;
  b.cp = 4;
  auto x = layer_activations(m, full_ft(), a), y = layer_activations(m, full_ft(), b);
  ASSERT_TRUE(x.ok() && y.ok());
  EXPECT_NEAR(x->stored / y->stored, 4.0, 1e-9);
}

TEST(MemoryEstimator, MixtureOfExpertsActivationsScaleWithTopK) {
  ModelSpec m = preset("mixtral-8x7b");
  auto a = layer_activations(m, full_ft(), MemoryLayout{});
  m.experts_per_token = 1;
  auto b = layer_activations(m, full_ft(), MemoryLayout{});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GT(a->split, 1.8 * b->split);
  // Fit uses all experts' weights.
  EXPECT_DOUBLE_EQ(est(preset("mixtral-8x7b"), full_ft(), MemoryLayout{}).weights, 2 * 46702792704.0);
}

TEST(MemoryEstimator, VerdictIsFitsTightOrNoFitByTheBand) {
  const auto r = est(preset("llama-3-8b"), full_ft(), MemoryLayout{});
  EXPECT_LT(r.total_low, r.total);
  EXPECT_GT(r.total_high, r.total);
  EXPECT_DOUBLE_EQ(r.total, r.allocated_peak + r.overhead + r.fragmentation);
  EXPECT_EQ(fit_verdict(r, r.total_high + 1), FitVerdict::fits);
  EXPECT_EQ(fit_verdict(r, r.total_high), FitVerdict::fits);          // the band's top exactly at the limit
  EXPECT_EQ(fit_verdict(r, r.total_high - 1), FitVerdict::tight);     // expected fits, the band's top does not
  EXPECT_EQ(fit_verdict(r, r.total), FitVerdict::tight);
  EXPECT_EQ(fit_verdict(r, r.total - 1), FitVerdict::no_fit);
  EXPECT_EQ(fit_verdict(r, 0), FitVerdict::no_fit);
  EXPECT_EQ(fit_verdict(r, std::numeric_limits<double>::quiet_NaN()), FitVerdict::no_fit);
  EXPECT_DOUBLE_EQ(usable_bytes(100, 0.05), 95);
  EXPECT_STREQ(to_string(FitVerdict::tight), "tight");
}

TEST(MemoryEstimator, OverheadDefaultsAndOverrides) {
  const ModelSpec m = preset("qwen2.5-0.5b");
  TrainConfig t = full_ft();
  EXPECT_DOUBLE_EQ(est(m, t, MemoryLayout{}).overhead, kDefaultCudaOverheadBytes);
  MemoryLayout multi;
  multi.dp = 2;
  EXPECT_DOUBLE_EQ(est(m, t, multi).overhead, kDefaultCudaOverheadBytes + kDefaultNcclOverheadBytes);
  t.overhead_bytes = 1e9;
  t.fragmentation = 0;
  const auto r = est(m, t, MemoryLayout{});
  EXPECT_DOUBLE_EQ(r.overhead, 1e9);
  EXPECT_EQ(r.fragmentation, 0.0);
}

TEST(MemoryEstimator, ParamsOnlyModelWarnsAboutTheApproximation) {
  auto m = model_from_params(7e9);
  ASSERT_TRUE(m.ok());
  const auto r = est(m.value(), full_ft(), MemoryLayout{});
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0].code, "params_only_activations");
  EXPECT_DOUBLE_EQ(r.weights, 2 * 7e9);
  EXPECT_TRUE(est(preset("llama-3-8b"), full_ft(), MemoryLayout{}).notes.empty());
}

TEST(MemoryEstimator, RejectsBadInputsNamingTheField) {
  const ModelSpec m = preset("llama-3-8b");
  TrainConfig t = full_ft();
  t.seq_len = 0;
  EXPECT_EQ(estimate_memory(m, t, MemoryLayout{}).error().field, "seq_len");
  MemoryLayout l;
  l.tp = 3;
  EXPECT_EQ(estimate_memory(m, full_ft(), l).error().field, "parallel.tp");
  l = MemoryLayout{};
  l.recompute = Recompute::automatic;
  EXPECT_EQ(estimate_memory(m, full_ft(), l).error().field, "recompute");
  l = MemoryLayout{};
  l.zero = 4;
  EXPECT_EQ(estimate_memory(m, full_ft(), l).error().field, "parallel.zero");
  t = full_ft();
  t.method = Method::lora;
  t.lora_targets = {"attn"};
  EXPECT_EQ(estimate_memory(m, t, MemoryLayout{}).error().field, "lora_targets");
}

TEST(MemoryEstimator, MaxMicroBatchIsTheLargestThatFits) {
  const ModelSpec m = preset("llama-3-8b");
  TrainConfig t = full_ft();
  t.method = Method::lora;
  MemoryLayout l;
  const double gpu = 76e9;
  for (FitLevel level : {FitLevel::expected, FitLevel::safe}) {
    auto b = max_micro_batch(m, t, l, gpu, level);
    ASSERT_TRUE(b.ok());
    ASSERT_GT(b.value(), 0);
    l.micro_batch = b.value();
    EXPECT_NE(fit_verdict(est(m, t, l), gpu), level == FitLevel::safe ? FitVerdict::tight : FitVerdict::no_fit);
    EXPECT_NE(fit_verdict(est(m, t, l), gpu), FitVerdict::no_fit);
    l.micro_batch = b.value() + 1;
    EXPECT_NE(fit_verdict(est(m, t, l), gpu), level == FitLevel::safe ? FitVerdict::fits : FitVerdict::tight);
    EXPECT_NE(fit_verdict(est(m, t, l), gpu), FitVerdict::fits);
  }
  // The safe value is never above the expected one.
  EXPECT_LE(max_micro_batch(m, t, MemoryLayout{}, gpu, FitLevel::safe).value(),
            max_micro_batch(m, t, MemoryLayout{}, gpu, FitLevel::expected).value());
  // Full fine-tuning of 70B does not fit one GPU at all.
  auto none = max_micro_batch(preset("llama-3-70b"), full_ft(), MemoryLayout{}, gpu, FitLevel::expected);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none.value(), 0);
  EXPECT_FALSE(max_micro_batch(m, t, MemoryLayout{}, -1, FitLevel::safe).ok());
}

TEST(MemoryEstimator, MaxSeqLenIsTheLargestThatFitsAndRespectsCp) {
  const ModelSpec m = preset("llama-3-8b");
  TrainConfig t = full_ft();
  t.method = Method::qlora;
  MemoryLayout l;
  l.recompute = Recompute::full;
  auto s = max_seq_len(m, t, l, 22.8e9, FitLevel::safe);
  ASSERT_TRUE(s.ok());
  ASSERT_GT(s.value(), 0);
  t.seq_len = s.value();
  EXPECT_EQ(fit_verdict(est(m, t, l), 22.8e9), FitVerdict::fits);
  t.seq_len = s.value() + 1;
  EXPECT_NE(fit_verdict(est(m, t, l), 22.8e9), FitVerdict::fits);
  l.cp = 4;
  auto c = max_seq_len(m, full_ft(), l, 76e9, FitLevel::expected, 1 << 20);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.value() % 4, 0);
}

// The planner calls the estimator thousands of times per ranking.
TEST(MemoryEstimator, IsCheapEnoughForThePlanner) {
  const ModelSpec m = preset("llama-3-70b");
  TrainConfig t = full_ft();
  MemoryLayout l;
  l.tp = 8;
  l.dp = 4;
  l.zero = 1;
  const auto start = std::chrono::steady_clock::now();
  double sink = 0;
  for (int i = 0; i < 2000; ++i) {
    l.micro_batch = 1 + i % 8;
    auto r = estimate_memory(m, t, l);
    sink += r.ok() ? r->total : 0;
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / 2000;
  EXPECT_GT(sink, 0);
  EXPECT_LT(us, 200.0);  // generous for Debug / sanitizer builds; Release is a few microseconds
}

// PyTorch autocast keeps fp32 parameters and gradients plus 16-bit weight copies: 6 B + 4 B per parameter
// and no separate master copy (HF transformers docs, model_memory_anatomy.md, "Anatomy of Model's Memory").
TEST(MemoryEstimator, AutocastKeepsFp32WeightsAndGradsPlus16BitCopies) {
  const ModelSpec m = preset("llama-3-8b");
  TrainConfig t = full_ft();
  t.autocast = true;
  const auto amp = est(m, t, MemoryLayout{});
  const double n = amp.params.total;
  EXPECT_DOUBLE_EQ(amp.weights, 6.0 * n);
  EXPECT_DOUBLE_EQ(amp.gradients, 4.0 * n);
  EXPECT_DOUBLE_EQ(amp.master_weights, 0.0);
  // autocast has no effect on pure 16-bit training
  TrainConfig pure = full_ft();
  pure.precision = Precision::bf16;
  TrainConfig pure_amp = pure;
  pure_amp.autocast = true;
  EXPECT_DOUBLE_EQ(est(m, pure, MemoryLayout{}).total, est(m, pure_amp, MemoryLayout{}).total);
}

// LitGPT's fused qkv (lit_gpt/model.py): V is a view of the fused output, RoPE makes new q and k, so the
// q + 2kv buffer is kept on top: e * (q + kv) more bytes per token and layer. GPT-2 (no RoPE) is unchanged.
TEST(MemoryEstimator, FusedQkvKeepsTheWholeBufferOnlyWithRope) {
  const ModelSpec m = preset("llama-3-8b");
  TrainConfig t = full_ft();
  MemoryLayout l;
  auto plain = layer_activations(m, t, l);
  t.fused_qkv = true;
  auto fused = layer_activations(m, t, l);
  ASSERT_TRUE(plain.ok() && fused.ok());
  const double hd = double(m.hidden_size) / double(m.num_heads);
  const double extra = 2.0 * (double(m.num_heads) * hd + double(m.num_kv_heads) * hd) * double(t.seq_len);
  EXPECT_DOUBLE_EQ(fused->split - plain->split, extra);
  const ModelSpec g = preset("gpt2");
  TrainConfig tg = full_ft();
  auto a = layer_activations(g, tg, l);
  tg.fused_qkv = true;
  auto b = layer_activations(g, tg, l);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_DOUBLE_EQ(a->stored, b->stored);
}

// bitsandbytes NF4 without double quantisation keeps one fp32 absmax per 64 weights (0.5 bit/param);
// with it 0.127 bit/param (Dettmers et al. 2023, Sec. 3).
TEST(MemoryEstimator, Nf4WithoutDoubleQuantKeepsFp32Absmax) {
  const ModelSpec m = preset("llama-2-7b");
  TrainConfig t;
  t.method = Method::qlora;
  t.precision = Precision::bf16;
  MemoryLayout l;
  l.recompute = Recompute::none;
  const auto dq = est(m, t, l);
  t.qlora_double_quant = false;
  const auto nodq = est(m, t, l);
  // 32 layers x (4 x 4096^2 + 3 x 4096 x 11008) linear weights
  const double linear = 32.0 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008);
  EXPECT_NEAR(nodq.quantization - dq.quantization, linear * (4.0 / 64.0 - 0.127 / 8.0), 1.0);
}

// zero_grad(set_to_none=False) keeps gradients allocated, so they add to the activations even with one
// micro-batch (with set_to_none the peak is the larger of the two).
TEST(MemoryEstimator, GradientsKeptByZeroGradAddToActivations) {
  const ModelSpec m = preset("bert-large");
  TrainConfig t = full_ft();
  t.seq_len = 512;
  MemoryLayout l;
  l.micro_batch = 4;
  const auto freed = est(m, t, l);
  t.zero_grad_set_to_none = false;
  const auto kept = est(m, t, l);
  EXPECT_DOUBLE_EQ(kept.allocated_peak - freed.allocated_peak,
                   std::min(freed.gradients, freed.activations + freed.logits));
}

// Encoder-only models are counted as BertModel + a task head: no b x s x vocab logits.
TEST(MemoryEstimator, EncoderOnlyModelsHaveNoVocabularyLogits) {
  const ModelSpec m = preset("bert-large");
  TrainConfig t = full_ft();
  t.seq_len = 512;
  EXPECT_DOUBLE_EQ(est(m, t, MemoryLayout{}).logits, 0.0);
  EXPECT_GT(est(preset("gpt2"), full_ft(), MemoryLayout{}).logits, 0.0);
}

// The planner's MemoryEstimator (layout-independent work done once) must answer exactly like a fresh
// estimate_memory for every layout it is reused for, errors included and in the same order.
TEST(MemoryEstimatorReuse, SameAnswerAsFreshEstimateForEveryLayout) {
  for (const char* id : {"llama-3.1-8b", "gpt2", "mixtral-8x7b", "bert-base"}) {
    for (Method method : {Method::full, Method::lora, Method::qlora}) {
      TrainConfig t = full_ft();
      t.method = method;
      t.attention = method == Method::lora ? Attention::eager : Attention::flash;
      const ModelSpec m = preset(id);
      const MemoryEstimator reused(m, t);
      for (int tp : {1, 2, 4})
        for (int pp : {1, 2})
          for (int zero = 0; zero <= 3; ++zero)
            for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full})
              for (int64_t mb : {1, 3, 8}) {
                MemoryLayout l;
                l.tp = tp;
                l.pp = pp;
                l.dp = 4;
                l.zero = zero;
                l.recompute = rc;
                l.sequence_parallel = tp > 1;
                l.offload_optimizer = zero >= 2 && mb == 3;
                l.micro_batch = mb;
                l.num_microbatches = 2;
                l.gpus_per_node = 8;
                const auto a = reused.estimate(l);
                const auto b = MemoryEstimator(m, t).estimate(l);
                ASSERT_EQ(a.ok(), b.ok()) << id;
                if (!a.ok()) {
                  EXPECT_EQ(a.error().to_string(), b.error().to_string());
                  continue;
                }
                EXPECT_EQ(a->total_high, b->total_high);
                EXPECT_EQ(a->activations, b->activations);
                EXPECT_EQ(a->host_ram_per_node_bytes, b->host_ram_per_node_bytes);
              }
    }
  }
}

TEST(MemoryEstimatorReuse, ErrorsComeInTheOrderEstimateMemoryGives) {
  TrainConfig t = full_ft();
  t.method = Method::lora;
  t.lora_targets = {"no-such-linear"};
  const ModelSpec m = preset("llama-3.1-8b");
  const MemoryEstimator e(m, t);
  MemoryLayout bad;
  bad.tp = 0;  // the layout check comes before the method's error
  ASSERT_FALSE(e.estimate(bad).ok());
  EXPECT_EQ(e.estimate(bad).error().field, "parallel");
  const auto method_error = e.estimate(MemoryLayout{});
  ASSERT_FALSE(method_error.ok());
  EXPECT_EQ(method_error.error().to_string(), estimate_memory(m, t, MemoryLayout{}).error().to_string());
  EXPECT_NE(method_error.error().field, "parallel");
}

}  // namespace
}  // namespace trainfit
