// Compute-time model: FLOPs per token, efficiency, alpha-beta collectives.
#include "trainfit/estimate/perf.h"

#include "facade_helpers.h"

#include <gtest/gtest.h>

#include <cmath>

namespace trainfit {
namespace {

// Llama-2-7B shape (meta-llama/Llama-2-7b-hf config.json).
ModelSpec llama2_7b() {
  ModelSpec m;
  m.id = "llama-2-7b";
  m.arch = Arch::llama;
  m.hidden_size = 4096;
  m.num_layers = 32;
  m.num_heads = 32;
  m.num_kv_heads = 32;
  m.intermediate_size = 11008;
  m.vocab_size = 32000;
  return m;
}

// Counts written out so these tests do not depend on model.cpp: per layer 4h^2 (attention) + 3 h I (SwiGLU)
// + 2h (norms); embeddings and the untied head V h each; final norm h. Total 6,738,415,616 (HF count).
ParamCounts llama2_7b_counts() {
  ParamCounts p;
  const double h = 4096, I = 11008, V = 32000, L = 32;
  p.embedding = V * h;
  p.head = V * h;
  p.per_layer = 4 * h * h + 3 * h * I + 2 * h;
  p.total = p.embedding + p.head + L * p.per_layer + h;
  p.active = p.total;
  return p;
}

TEST(FlopsPerToken, Llama2CountsMatchTheHuggingFaceTotal) {
  // Public check: Llama-2-7B has 6,738,415,616 parameters.
  EXPECT_DOUBLE_EQ(llama2_7b_counts().total, 6738415616.0);
}

TEST(FlopsPerToken, FullTrainingIsThreeForwardPassesWithCausalAttentionAndLogits) {
  TrainConfig t;
  t.seq_len = 4096;
  const ParamCounts p = llama2_7b_counts();
  auto f = flops_per_token(llama2_7b(), p, t, Recompute::none);
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  const double matmul = 2.0 * (p.total - p.embedding - p.head);
  const double attn = 32.0 * 2.0 * 4096.0 * 4096.0;  // causal: 2 s d_attn per layer (half of PaLM's 4 s d)
  const double logits = 2.0 * 4096.0 * 32000.0;
  EXPECT_DOUBLE_EQ(f->attention_forward, attn);
  EXPECT_DOUBLE_EQ(f->forward, matmul + attn + logits);
  EXPECT_DOUBLE_EQ(f->model, 3.0 * f->forward);
  EXPECT_DOUBLE_EQ(f->hardware, f->model);
  // Close to the 6N rule of thumb (Kaplan et al. 2020): within 10% for a 7B model at 4k context.
  EXPECT_NEAR(f->model / (6.0 * p.total), 1.0, 0.10);
}

TEST(FlopsPerToken, FullRecomputeWithoutCausalMaskMatchesMegatronEquation3) {
  // Narayanan et al. 2021 eq. 3: F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) per iteration with full activation
  // recomputation, for a GPT with 4h MLP, MHA and no causal saving. Per token: 96 l h^2 + 16 l s h + 6 V h.
  // BERT's bidirectional attention has the same unmasked cost; counts are written to match the derivation.
  ModelSpec m;
  m.arch = Arch::bert;
  m.hidden_size = 12288;
  m.num_layers = 96;
  m.num_heads = 96;
  m.vocab_size = 51200;
  const double h = 12288, l = 96, V = 51200, s = 2048;
  ParamCounts p;
  p.embedding = V * h;
  p.total = p.active = 12 * l * h * h + V * h;
  TrainConfig t;
  t.seq_len = 2048;
  auto f = flops_per_token(m, p, t, Recompute::full);
  ASSERT_TRUE(f.ok());
  const double megatron = 96 * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  EXPECT_NEAR(f->hardware / megatron, 1.0, 1e-12);
}

TEST(FlopsPerToken, SelectiveRecomputeAddsOnlyTheAttentionCore) {
  TrainConfig t;
  t.seq_len = 4096;
  auto none = flops_per_token(llama2_7b(), llama2_7b_counts(), t, Recompute::none);
  auto sel = flops_per_token(llama2_7b(), llama2_7b_counts(), t, Recompute::selective);
  auto full = flops_per_token(llama2_7b(), llama2_7b_counts(), t, Recompute::full);
  ASSERT_TRUE(none.ok() && sel.ok() && full.ok());
  EXPECT_DOUBLE_EQ(sel->model, none->model);  // MFU numerator does not change with recompute
  EXPECT_DOUBLE_EQ(sel->hardware - none->hardware, none->attention_forward);
  EXPECT_DOUBLE_EQ(full->hardware - none->hardware, none->forward - none->logits_forward);
  EXPECT_GT(full->hardware, sel->hardware);
}

TEST(FlopsPerToken, LoraSkipsWeightGradientsOfTheFrozenBase) {
  TrainConfig full;
  full.seq_len = 2048;
  TrainConfig lora = full;
  lora.method = Method::lora;
  auto f = flops_per_token(llama2_7b(), llama2_7b_counts(), full, Recompute::none);
  auto l = flops_per_token(llama2_7b(), llama2_7b_counts(), lora, Recompute::none);
  ASSERT_TRUE(f.ok() && l.ok());
  // ~4N instead of ~6N (Hu et al. 2021): between 2/3 and 0.75 of full training once attention is added.
  EXPECT_GT(l->model / f->model, 0.66);
  EXPECT_LT(l->model / f->model, 0.75);
  // Rank-16 adapters on q,k,v,o,gate,up,down of Llama-2-7B: 39,976,960 parameters (PEFT print_trainable_parameters
  // for r=16 on all linear layers of Llama-2-7B).
  EXPECT_DOUBLE_EQ(l->lora_params, 39976960.0);
}

TEST(FlopsPerToken, MixtureOfExpertsCostsActiveParameters) {
  ModelSpec m = llama2_7b();
  m.arch = Arch::mixtral;
  m.num_experts = 8;
  m.experts_per_token = 2;
  ParamCounts p = llama2_7b_counts();
  const double mlp = 3.0 * 4096 * 11008;
  p.total = p.total + 32 * 7 * mlp;  // seven more experts stored
  p.active = p.active + 32 * 1 * mlp;  // one more routed per token
  TrainConfig t;
  auto f = flops_per_token(m, p, t, Recompute::none);
  ASSERT_TRUE(f.ok());
  EXPECT_LT(f->model, 6.0 * p.total * 0.5);
  EXPECT_GT(f->model, 6.0 * (p.active - p.embedding - p.head));
}

TEST(FlopsPerToken, EagerAttentionExecutesTheMaskedHalf) {
  TrainConfig t;
  t.seq_len = 4096;
  TrainConfig e = t;
  e.attention = Attention::eager;
  auto flash = flops_per_token(llama2_7b(), llama2_7b_counts(), t, Recompute::none);
  auto eager = flops_per_token(llama2_7b(), llama2_7b_counts(), e, Recompute::none);
  ASSERT_TRUE(flash.ok() && eager.ok());
  EXPECT_DOUBLE_EQ(eager->model, flash->model);
  EXPECT_DOUBLE_EQ(eager->hardware - flash->hardware, 3.0 * flash->attention_forward);
}

TEST(FlopsPerToken, ParamsOnlyFallsBackToSixN) {
  ModelSpec m;
  m.arch = Arch::params_only;
  m.params = 7e9;
  ParamCounts p;
  p.total = p.active = 7e9;
  TrainConfig t;
  auto f = flops_per_token(m, p, t, Recompute::none);
  ASSERT_TRUE(f.ok());
  EXPECT_FALSE(f->attention_known);
  EXPECT_DOUBLE_EQ(f->model, 6.0 * 7e9);
}

TEST(FlopsPerToken, RejectsUnresolvedRecomputeAndMissingCounts) {
  TrainConfig t;
  EXPECT_FALSE(flops_per_token(llama2_7b(), llama2_7b_counts(), t, Recompute::automatic).ok());
  ParamCounts none;
  ModelSpec m = llama2_7b();
  auto r = flops_per_token(m, none, t, Recompute::none);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "model");
}

// ---------------------------------------------------------------------------------------------
GpuSpec a100() { return test::gpu("a100-sxm-80gb"); }

TEST(Throughput, DensePeakFollowsThePrecisionsMatmulDtype) {
  const GpuSpec g = a100();
  EXPECT_DOUBLE_EQ(dense_peak_flops(g, Precision::bf16_mixed), 312e12);
  EXPECT_DOUBLE_EQ(dense_peak_flops(g, Precision::fp32), 19.5e12);
  EXPECT_DOUBLE_EQ(dense_peak_flops(g, Precision::fp8_mixed), 0.0);  // A100 has no FP8 tensor cores
}

TEST(Throughput, EfficiencyFallsForNarrowModelsAndTinyMicroBatches) {
  const GpuSpec g = a100();
  TrainConfig t;
  ModelSpec big = llama2_7b();
  ModelSpec small = big;
  small.hidden_size = 768;
  const Efficiency e_big = compute_efficiency(g, big, t, 1, 8192);
  const Efficiency e_small = compute_efficiency(g, small, t, 1, 8192);
  const Efficiency e_tiny_batch = compute_efficiency(g, big, t, 1, 128);
  EXPECT_TRUE(e_big.calibrated);
  EXPECT_GT(e_big.value, e_small.value);
  EXPECT_GT(e_big.value, e_tiny_batch.value);
  EXPECT_LE(e_big.value, e_big.generation);
  // Tensor parallelism narrows each GPU's GEMMs.
  EXPECT_LT(compute_efficiency(g, big, t, 8, 8192).value, e_big.value);
}

TEST(Throughput, UserOverrideReplacesTheDefault) {
  TrainConfig t;
  t.compute_efficiency = 0.33;
  const Efficiency e = compute_efficiency(a100(), llama2_7b(), t, 1, 4096);
  EXPECT_TRUE(e.overridden);
  EXPECT_DOUBLE_EQ(e.value, 0.33);
}

TEST(Throughput, UnknownArchitectureIsFlaggedUncalibrated) {
  GpuSpec g = a100();
  g.arch = "Mystery";
  TrainConfig t;
  EXPECT_FALSE(compute_efficiency(g, llama2_7b(), t, 1, 4096).calibrated);
}

// ---------------------------------------------------------------------------------------------
TEST(Collectives, BusBandwidthDefinitionFromNcclTests) {
  // nccl-tests doc/PERFORMANCE.md: all-reduce busbw = algbw * 2(n-1)/n; reduce-scatter / all-gather
  // busbw = algbw * (n-1)/n. With busbw 100 GB/s and 8 ranks, 1 GB all-reduce takes 2*7/8 * 10 ms.
  Link l;
  l.busbw_Bps = 100e9;
  l.latency_s = 0;
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::all_reduce, 1e9, 8, l), 2.0 * 7.0 / 8.0 * 0.01);
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::reduce_scatter, 1e9, 8, l), 7.0 / 8.0 * 0.01);
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::all_gather, 1e9, 8, l), 7.0 / 8.0 * 0.01);
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::all_reduce, 1e9, 1, l), 0.0);
}

TEST(Collectives, LatencyDominatesSmallMessages) {
  Link l;
  l.busbw_Bps = 100e9;
  l.latency_s = 10e-6;
  const double small = collective_time_s(Collective::all_reduce, 1e3, 8, l);
  EXPECT_GT(small, 50e-6);  // 2 * log2(8) steps of 10 us
  EXPECT_LT(small, 70e-6);
}

Offer hgx(double net_Gbps, NetKind net = NetKind::infiniband) {
  Offer o;
  o.gpu_count = 8;
  o.intra_link = LinkClass::nvswitch;
  o.intra_link_GBps = 600;
  o.inter_net = net;
  o.inter_net_Gbps = net_Gbps;
  o.max_nodes = 64;
  return o;
}

TEST(Collectives, NvSwitchRunsAtTheAchievableShareOfThePerDirectionRate) {
  const Link l = group_link(hgx(1600), a100(), 8, 8);
  EXPECT_DOUBLE_EQ(l.busbw_Bps, 300e9 * intra_link_fraction(LinkClass::nvswitch));
}

TEST(Collectives, InterNodeGroupsShareTheNodesNics) {
  const Offer o = hgx(1600);
  const double node_Bps = 1600e9 / 8 * inter_net_fraction(NetKind::infiniband);
  // All 8 GPUs of each node in one group: the whole NIC budget.
  EXPECT_DOUBLE_EQ(group_link(o, a100(), 16, 8).busbw_Bps, node_Bps);
  // One GPU per node per group (DP across nodes with TP 8 inside): 8 groups share the NICs.
  EXPECT_DOUBLE_EQ(group_link(o, a100(), 4, 1).busbw_Bps, node_Bps / 8);
  Offer none = o;
  none.inter_net = NetKind::none;
  EXPECT_FALSE(group_link(none, a100(), 16, 8).usable);
}

TEST(Collectives, NvlinkBridgesOnlyHelpPairs) {
  Offer o = hgx(0, NetKind::none);
  o.intra_link = LinkClass::nvlink_bridge;
  o.intra_link_GBps = 112.5;
  GpuSpec g = a100();
  const Link pair = group_link(o, g, 2, 2);
  const Link four = group_link(o, g, 4, 4);
  EXPECT_STREQ(pair.kind, "nvlink_bridge");
  EXPECT_STREQ(four.kind, "pcie");
  EXPECT_DOUBLE_EQ(four.busbw_Bps, pcie_x16_GBps(4) * 1e9 * intra_link_fraction(LinkClass::pcie));
}

TEST(Collectives, PcieBandwidthDoublesPerGeneration) {
  // PCI-SIG x16 per direction (pricing-and-specs.md §4): Gen3 16, Gen4 32, Gen5 64, Gen6 128 GB/s.
  EXPECT_DOUBLE_EQ(pcie_x16_GBps(3), 16.0);
  EXPECT_DOUBLE_EQ(pcie_x16_GBps(4), 32.0);
  EXPECT_DOUBLE_EQ(pcie_x16_GBps(5), 64.0);
  EXPECT_DOUBLE_EQ(pcie_x16_GBps(6), 128.0);
}

TEST(Utilisation, MfuIsModelFlopsOverPeak) {
  // 312 TFLOP/s peak, 8 GPUs, 1e4 tokens/s at 1e11 FLOPs/token = 1e15 FLOP/s of 2.496e15.
  EXPECT_NEAR(utilisation(1e11, 1e4, 8, 312e12), 1e15 / (8 * 312e12), 1e-15);
  EXPECT_DOUBLE_EQ(utilisation(1e11, 1e4, 0, 312e12), 0.0);
}

}  // namespace
}  // namespace trainfit
