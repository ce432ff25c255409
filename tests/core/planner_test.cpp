// Topology picker: dataset tokens, layout timing, the search, and validation against published runs.
#include "trainfit/estimate/planner.h"

#include "trainfit/catalog/framework.h"
#include "trainfit/estimate/memory.h"
#include "trainfit/catalog/model.h"

#include "facade_helpers.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

namespace trainfit {
namespace {

ModelSpec llama(int64_t h, int64_t layers, int64_t heads, int64_t kv, int64_t inter, int64_t vocab = 32000) {
  ModelSpec m;
  m.id = "custom";
  m.arch = Arch::llama;
  m.hidden_size = h;
  m.num_layers = layers;
  m.num_heads = heads;
  m.num_kv_heads = kv;
  m.intermediate_size = inter;
  m.vocab_size = vocab;
  m.max_position_embeddings = 4096;
  return m;
}
ModelSpec llama2_7b() { return llama(4096, 32, 32, 32, 11008); }
ModelSpec llama2_70b() { return llama(8192, 80, 64, 8, 28672); }
ModelSpec small_1b() { return llama(2048, 16, 32, 8, 8192, 128256); }  // Llama-3.2-1B shape

GpuSpec h100() { return test::gpu("h100-sxm"); }

GpuSpec l40s() { return test::gpu("l40s"); }

Offer node(int gpus, LinkClass link, double link_GBps, NetKind net, double net_Gbps, int max_nodes) {
  Offer o;
  o.id = "test";
  o.gpu_count = gpus;
  o.vcpus = 192;
  o.host_ram_bytes = 2e12;
  o.intra_link = link;
  o.intra_link_GBps = link_GBps;
  o.inter_net = net;
  o.inter_net_Gbps = net_Gbps;
  o.max_nodes = max_nodes;
  return o;
}
Offer p5(int max_nodes = 16) { return node(8, LinkClass::nvswitch, 900, NetKind::efa, 3200, max_nodes); }

Dataset tokens(double n) {
  Dataset d;
  d.tokens = n;
  return d;
}

// ---------------------------------------------------------------------------------------------
TEST(DatasetTokens, PackingKeepsTokensAndPaddingFillsWholeSequences) {
  Dataset d;
  d.examples = 1000;
  d.avg_tokens_per_example = 300;
  d.epochs = 3;
  auto packed = dataset_tokens(d, 1024);
  ASSERT_TRUE(packed.ok());
  EXPECT_DOUBLE_EQ(packed->useful, 1000 * 300 * 3.0);
  EXPECT_DOUBLE_EQ(packed->processed, packed->useful);
  d.packing = false;
  auto padded = dataset_tokens(d, 1024);
  ASSERT_TRUE(padded.ok());
  EXPECT_DOUBLE_EQ(padded->processed, 1000 * 1024 * 3.0);
  EXPECT_DOUBLE_EQ(padded->sequences, 3000.0);
}

TEST(DatasetTokens, TokensWinAndMissingSizeIsAnError) {
  Dataset d;
  d.tokens = 5e9;
  d.examples = 10;
  d.avg_tokens_per_example = 10;
  auto t = dataset_tokens(d, 2048);
  ASSERT_TRUE(t.ok());
  EXPECT_DOUBLE_EQ(t->processed, 5e9);
  Dataset empty;
  auto e = dataset_tokens(empty, 2048);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().field, "dataset");
  d.epochs = 0;
  EXPECT_FALSE(dataset_tokens(d, 2048).ok());
}

// ---------------------------------------------------------------------------------------------
MemoryLayout layout(int tp, int pp, int dp, int zero, Recompute rc, int64_t mb, int64_t m) {
  MemoryLayout l;
  l.tp = tp;
  l.pp = pp;
  l.dp = dp;
  l.zero = zero;
  l.recompute = rc;
  l.micro_batch = mb;
  l.num_microbatches = m;
  l.gpus_per_node = 8;
  return l;
}

TEST(LayoutTiming, OneFOneBBubbleIsPMinusOneOverMPlusPMinusOne) {
  // Narayanan et al. 2021 §2.2.1: bubble fraction (p-1)/(m+p-1) of the pipeline's time.
  TrainConfig t;
  t.seq_len = 2048;
  const int p = 4, m = 8;
  auto r = time_layout(llama2_7b(), t, h100(), p5(), 1, layout(1, p, 1, 0, Recompute::none, 1, m), m);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const StepTime& s = r->step;
  const double pipeline = s.compute_s + s.recompute_s + s.tp_exposed_s + s.pp_exposed_s + s.bubble_s;
  EXPECT_NEAR(s.bubble_s / pipeline, double(p - 1) / (m + p - 1), 1e-9);
}

// nanotron under ZeRO-1 reduce-scatters its fp32 gradients behind the last backward (DDP's comm hook) but all-gathers
// the updated parameters after the optimizer step (framework.h zero1_gather_after_step): that half of its
// data-parallel traffic is exposed, where the generic profile hides most of it behind the last backward.
TEST(LayoutTiming, NanotronZeroOneGathersItsParametersAfterTheStep) {
  TrainConfig t;
  t.seq_len = 4096;
  const MemoryLayout l = layout(1, 1, 16, 1, Recompute::none, 1, 4);  // DP 16 over two nodes, ZeRO-1
  auto generic = time_layout(llama2_7b(), t, h100(), p5(), 2, l, 64);
  t.framework = Framework::nanotron;
  auto nano = time_layout(llama2_7b(), t, h100(), p5(), 2, l, 64);
  ASSERT_TRUE(generic.ok() && nano.ok());
  EXPECT_GT(nano->step.dp_exposed_s, 0.3 * nano->step.dp_comm_s);  // the 16-bit all-gather: a third of it
  EXPECT_LT(nano->step.dp_exposed_s, 0.9 * nano->step.dp_comm_s);   // the reduce-scatter, mostly hidden
  EXPECT_LT(generic->step.dp_exposed_s, 0.5 * generic->step.dp_comm_s);
  EXPECT_GT(nano->step.dp_exposed_s, generic->step.dp_exposed_s);
  EXPECT_GT(nano->step.total_s, generic->step.total_s);
}

TEST(LayoutTiming, TensorParallelOverPcieCostsFarMoreThanOverNvSwitch) {
  TrainConfig t;
  t.seq_len = 4096;
  const MemoryLayout l = layout(8, 1, 1, 0, Recompute::none, 1, 8);
  Offer pcie = node(8, LinkClass::pcie, 0, NetKind::none, 0, 1);
  GpuSpec g = h100();
  auto over_pcie = time_layout(llama2_7b(), t, g, pcie, 1, l, 8);
  auto over_nvs = time_layout(llama2_7b(), t, g, p5(), 1, l, 8);
  ASSERT_TRUE(over_pcie.ok() && over_nvs.ok());
  EXPECT_GT(over_pcie->step.tp_exposed_s, 5.0 * over_nvs->step.tp_exposed_s);
}

TEST(LayoutTiming, TensorParallelAcrossNodesIsExcludedWithAReason) {
  TrainConfig t;
  auto r = time_layout(llama2_7b(), t, h100(), p5(), 2, layout(16, 1, 1, 0, Recompute::none, 1, 1), 1);
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->excluded.find("tensor parallel across nodes"), std::string::npos);
}

TEST(LayoutTiming, SlowNetworkExposesZero3Traffic) {
  // Same ZeRO-3 layout over 2 nodes: 100 Gb/s Ethernet vs 3200 Gb/s EFA.
  TrainConfig t;
  t.seq_len = 4096;
  const MemoryLayout l = layout(1, 1, 16, 3, Recompute::none, 1, 4);
  auto fast = time_layout(llama2_7b(), t, h100(), p5(), 2, l, 64);
  auto slow = time_layout(llama2_7b(), t, h100(), node(8, LinkClass::nvswitch, 900, NetKind::ethernet, 100, 16), 2,
                          l, 64);
  ASSERT_TRUE(fast.ok() && slow.ok());
  EXPECT_GT(slow->step.dp_exposed_s, 10.0 * fast->step.dp_exposed_s + 1e-3);
  EXPECT_LT(slow->tokens_per_s, 0.5 * fast->tokens_per_s);
}

TEST(LayoutTiming, FullRecomputeCostsAboutAThirdMore) {
  TrainConfig t;
  t.seq_len = 4096;
  auto none = time_layout(llama2_7b(), t, h100(), p5(), 1, layout(1, 1, 8, 3, Recompute::none, 4, 2), 64);
  auto full = time_layout(llama2_7b(), t, h100(), p5(), 1, layout(1, 1, 8, 3, Recompute::full, 4, 2), 64);
  ASSERT_TRUE(none.ok() && full.ok());
  const double ratio = none->tokens_per_s / full->tokens_per_s;
  EXPECT_GT(ratio, 1.2);
  EXPECT_LT(ratio, 1.4);
  EXPECT_GT(full->step.recompute_s, 0.0);
  EXPECT_DOUBLE_EQ(none->step.recompute_s, 0.0);
}

TEST(LayoutTiming, TinyBatchesHitTheHbmRoofline) {
  TrainConfig t;
  t.seq_len = 16;
  auto r = time_layout(llama2_7b(), t, h100(), p5(), 1, layout(1, 1, 1, 0, Recompute::none, 1, 1), 1);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->step.memory_bound);
}

// ---------------------------------------------------------------------------------------------
// global_batch 0: per replica the power of two nearest 64 / DP, rounded up to the micro-batch (planner.h).
TEST(DefaultGlobalBatch, IsAMultipleOfTheDataParallelWidthNearSixtyFour) {
  EXPECT_EQ(default_global_batch(1, 1), 64);
  EXPECT_EQ(default_global_batch(8, 4), 64);
  EXPECT_EQ(default_global_batch(64, 1), 64);
  EXPECT_EQ(default_global_batch(3, 1), 48);   // 16 per replica (64 / 3 = 21.3: 16 is nearer in ratio than 32)
  EXPECT_EQ(default_global_batch(5, 1), 80);   // 16 (12.8)
  EXPECT_EQ(default_global_batch(6, 1), 48);   // 8 (10.7)
  EXPECT_EQ(default_global_batch(10, 1), 80);  // 8 (6.4)
  EXPECT_EQ(default_global_batch(12, 1), 48);  // 4 (5.3)
  EXPECT_EQ(default_global_batch(10, 3), 90);  // 8 rounded up to a multiple of the micro-batch 3
  EXPECT_EQ(default_global_batch(128, 1), 128);
  EXPECT_EQ(default_global_batch(0, 0), 64);   // degenerate inputs clamp to 1
}

// A pod whose GPU count is not a power of two gets a layout when global_batch is unset (GPT-2 124M shape:
// 12 heads, 12 layers), the plan's batch splits over its DP width and the plan says it chose it.
TEST(Planner, UnsetGlobalBatchGivesPodsOfAnyWidthALayout) {
  const ModelSpec gpt2 = llama(768, 12, 12, 12, 3072, 50257);
  for (int gpus : {3, 5, 6, 10, 12}) {
    TrainConfig t;
    t.seq_len = 1024;
    t.micro_batch = 4;
    t.global_batch = 0;
    auto r = plan_job(gpt2, t, tokens(1e8), l40s(), node(gpus, LinkClass::pcie, 32, NetKind::none, 0, 1), 1);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ASSERT_TRUE(r->fits) << gpus << " GPUs: " << r->why_not;
    const Plan& b = r->best;
    EXPECT_TRUE(b.global_batch_default);
    EXPECT_EQ(b.global_batch % b.layout.dp, 0) << plan_summary(b);
    EXPECT_EQ(b.global_batch, b.layout.dp * b.layout.micro_batch * b.layout.num_microbatches) << plan_summary(b);
    EXPECT_EQ(b.global_batch, default_global_batch(b.layout.dp, 1)) << plan_summary(b);
    bool noted = false;
    for (const Warning& w : r->warnings)
      if (w.code == "global_batch_default") {
        noted = true;
        EXPECT_NE(w.message.find(std::to_string(b.global_batch) + " sequences per step"), std::string::npos) << w.message;
      }
    EXPECT_EQ(noted, b.global_batch != 64) << gpus << " GPUs";
  }
}

// A global batch the query sets is kept exactly, never replaced by the default: 60 on 10 GPUs (it splits over
// DP 10 and 5); 64 only on a layout whose DP width divides it.
// A fixed layout keeps the query's micro-batch; when it does not fit, the why-not says so (the search would have
// tried smaller ones): Qwen3-8B at 131k tokens over Ulysses CP 16 fits at micro-batch 1 (estimate: ~30 GiB), not 4.
TEST(Planner, FixedLayoutThatDoesNotFitNamesItsMicroBatch) {
  const std::string q = R"({"model":"qwen3-8b","method":"full","framework":"hf-trainer","seq_len":131072,)"
                        R"("recompute":"full","parallel":{"dp":1,"cp":16,"zero":3},"dataset":{"tokens":1e9},)"
                        R"("target":{"offer":"aws/p5.48xlarge/us-east-1"}})";
  const nlohmann::json at4 = test::facade("plan", q.substr(0, q.size() - 1) + R"(,"micro_batch":4})");
  ASSERT_TRUE(at4["ok"].get<bool>()) << at4.dump();
  EXPECT_FALSE(at4["plan"]["fits"].get<bool>());
  EXPECT_NE(at4["plan"]["why_not"].get<std::string>().find("micro-batch of 4"), std::string::npos) << at4.dump();
  const nlohmann::json at1 = test::facade("plan", q.substr(0, q.size() - 1) + R"(,"micro_batch":1})");
  ASSERT_TRUE(at1["ok"].get<bool>()) << at1.dump();
  EXPECT_TRUE(at1["plan"]["fits"].get<bool>());
}

TEST(Planner, SetGlobalBatchIsHonouredExactly) {
  const ModelSpec gpt2 = llama(768, 12, 12, 12, 3072, 50257);
  TrainConfig t;
  t.seq_len = 1024;
  t.micro_batch = 4;
  t.global_batch = 60;
  auto r = plan_job(gpt2, t, tokens(1e8), l40s(), node(10, LinkClass::pcie, 32, NetKind::none, 0, 1), 1);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->fits) << r->why_not;
  EXPECT_EQ(r->best.global_batch, 60);
  EXPECT_FALSE(r->best.global_batch_default);
  for (const Plan& p : r->runners_up) EXPECT_EQ(p.global_batch, 60) << plan_summary(p);
  for (const Warning& w : r->warnings) EXPECT_NE(w.code, "global_batch_default");
  t.global_batch = 64;
  auto r64 = plan_job(gpt2, t, tokens(1e8), l40s(), node(10, LinkClass::pcie, 32, NetKind::none, 0, 1), 1);
  ASSERT_TRUE(r64.ok()) << r64.error().to_string();
  if (r64->fits) {
    EXPECT_EQ(r64->best.global_batch, 64);
    EXPECT_EQ(64 % r64->best.layout.dp, 0) << plan_summary(r64->best);
  }
}

// ---------------------------------------------------------------------------------------------
TEST(Planner, SmallLoraJobStaysOnOneGpuInstance) {
  TrainConfig t;
  t.method = Method::lora;
  t.seq_len = 2048;
  t.micro_batch = 4;
  t.global_batch = 16;
  Offer one = node(1, LinkClass::none, 0, NetKind::none, 0, 1);
  auto r = plan_job(llama2_7b(), t, tokens(1e8), h100(), one, 1);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->fits) << r->why_not;
  EXPECT_EQ(r->topology, Topology::single_gpu);
  EXPECT_EQ(r->best.gpus, 1);
  EXPECT_GT(r->best.mfu, 0.0);
  EXPECT_GE(r->best.hfu, r->best.mfu);
  EXPECT_LE(r->time_low_s, r->time_s);
  EXPECT_GE(r->time_high_s, r->time_s);
  // The expected peak fits; the band's top may not (a tight micro-batch wins when it is clearly faster).
  EXPECT_LE(r->best.memory_bytes, r->best.memory_limit_bytes);
}

TEST(Planner, SeventyBillionFullFineTuneNeedsShardingAcrossAnNvSwitchNode) {
  TrainConfig t;
  t.seq_len = 4096;
  t.global_batch = 64;
  auto r = plan_job(llama2_70b(), t, tokens(1e9), h100(), p5(1), 1);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->fits) << r->why_not;
  EXPECT_EQ(r->topology, Topology::multi_gpu_node);
  const MemoryLayout& l = r->best.layout;
  EXPECT_TRUE(l.zero == 3 || l.tp * l.pp > 1 || l.offload_optimizer) << plan_summary(r->best);
  const StepTime& s = r->best.step;
  EXPECT_NEAR(s.total_s, s.compute_s + s.recompute_s + s.exposed_comm_s + s.bubble_s + s.optimizer_s + s.offload_s,
              1e-9 * s.total_s);
}

// target.nodes (PlanOptions::nodes) plans exactly that node count, one the power-of-two search would skip (3) included;
// more nodes than the offer allows is no plan, saying both numbers.
TEST(Planner, AnExactNodeCountIsPlannedEvenWhenThePowerOfTwoSearchSkipsIt) {
  TrainConfig t;
  t.seq_len = 4096;
  t.global_batch = 96;
  PlanOptions three;
  three.nodes = 3;
  auto r = plan_job(llama2_70b(), t, tokens(1e9), h100(), p5(16), 16, three);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->fits) << r->why_not;
  EXPECT_EQ(r->best.nodes, 3) << plan_summary(r->best);
  ASSERT_EQ(r->by_nodes.size(), 1u);
  for (const Plan& p : r->runners_up) EXPECT_EQ(p.nodes, 3) << plan_summary(p);
  auto free = plan_job(llama2_70b(), t, tokens(1e9), h100(), p5(16), 16);
  ASSERT_TRUE(free.ok() && free->fits);
  for (const Plan& p : free->by_nodes) EXPECT_NE(p.nodes, 3);  // 1, 2, 4, 8, 16
  PlanOptions many;
  many.nodes = 17;
  auto over = plan_job(llama2_70b(), t, tokens(1e9), h100(), p5(16), 16, many);
  ASSERT_TRUE(over.ok());
  EXPECT_FALSE(over->fits);
  EXPECT_EQ(over->why_not, "no plan on 17 nodes: this offer clusters at most 16");
  EXPECT_TRUE(over->nodes_unavailable);
  EXPECT_FALSE(r->nodes_unavailable);
}

// Answer.AI's FSDP-QLoRA headline (answer.ai/posts/2024-03-06-fsdp-qlora; PEFT docs accelerate/fsdp: Llama 2 70B
// QLoRA on 2x 24 GB GPUs with fsdp_offload_params, AnswerDotAI/fsdp_qlora benchmarks_03_2024.md: 14.92 GiB reserved
// on 2x RTX 3090 at batch 2, seq 2048, in `trainfit validate`). Under hf-trainer (QLoRA: DDP or FSDP) the planner
// reaches it only through ZeRO-3 with parameter offload, and the plan's memory is the fixed-layout estimate.
GpuSpec rtx3090() { return test::gpu("rtx-3090"); }

TEST(Planner, QloraOfSeventyBOnTwoTwentyFourGbGpusIsPlannedWithFsdpUnderHfTrainer) {
  const ModelSpec* m = find_model("llama-2-70b");
  ASSERT_NE(m, nullptr);
  TrainConfig t;
  t.method = Method::qlora;
  t.framework = Framework::hf_trainer;
  t.precision = Precision::bf16;
  t.lora_rank = 64;
  t.seq_len = 2048;
  t.global_batch = 4;
  Offer two = node(2, LinkClass::pcie, 32, NetKind::none, 0, 1);
  two.host_ram_bytes = 256e9;
  auto r = plan_job(*m, t, tokens(1e7), rtx3090(), two, 1);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->fits) << r->why_not;
  const Plan& p = r->best;
  EXPECT_EQ(p.gpus, 2) << plan_summary(p);
  EXPECT_EQ(p.layout.tp, 1) << plan_summary(p);
  EXPECT_EQ(p.layout.pp, 1) << plan_summary(p);
  EXPECT_EQ(p.layout.zero, 3) << plan_summary(p);
  EXPECT_TRUE(p.layout.offload_params) << plan_summary(p);  // 70B in NF4 is ~37 GB: two 24 GB cards need offload
  // The plan's memory is memory.cpp's fixed-layout estimate of that layout (packed NF4 sharded, constants whole).
  auto e = estimate_memory(*m, t, p.layout);
  ASSERT_TRUE(e.ok()) << e.error().to_string();
  EXPECT_DOUBLE_EQ(e->total, p.memory_bytes);
  EXPECT_LE(p.memory_high_bytes, p.memory_limit_bytes);
}

TEST(Planner, QloraIsShardedWithZero3OnlyWhereTheFrameworkRunsIt) {
  TrainConfig t;
  t.method = Method::qlora;
  t.seq_len = 4096;
  t.global_batch = 256;
  t.framework = Framework::litgpt;  // one GPU only for QLoRA (framework.cpp)
  auto r = plan_job(llama2_7b(), t, tokens(1e9), h100(), p5(1), 1);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  for (const Plan& p : r->by_nodes)
    if (p.why.empty()) {
      EXPECT_LT(p.layout.zero, 3) << plan_summary(p);
    }
}

TEST(Planner, DoesNotFitSaysByHowMuch) {
  TrainConfig t;
  t.seq_len = 4096;
  Offer one = node(1, LinkClass::none, 0, NetKind::none, 0, 1);
  GpuSpec small = l40s();
  auto r = plan_job(llama2_70b(), t, tokens(1e9), small, one, 1);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->fits);
  EXPECT_GT(r->shortfall_bytes, 0.0);
  EXPECT_NE(r->why_not.find("short by"), std::string::npos) << r->why_not;
}

TEST(Planner, MoreNodesHelpOnFastFabricAndRunnersUpSayWhyTheyLost) {
  TrainConfig t;
  t.seq_len = 4096;
  t.global_batch = 512;
  auto r = plan_job(llama2_7b(), t, tokens(1e11), h100(), p5(8), 8);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->fits) << r->why_not;
  EXPECT_EQ(r->topology, Topology::multi_node);
  ASSERT_FALSE(r->runners_up.empty());
  for (const Plan& p : r->runners_up) EXPECT_FALSE(p.why.empty()) << plan_summary(p);
  ASSERT_EQ(r->by_nodes.size(), 4u);  // 1, 2, 4, 8 nodes
  EXPECT_LT(r->by_nodes[0].tokens_per_s, r->best.tokens_per_s);
}

TEST(Planner, SlowInterconnectKeepsTheJobOnOneNode) {
  // The seed: "a slow fabric can cancel the benefit of more hardware". 10 Gb/s Ethernet between nodes.
  TrainConfig t;
  t.seq_len = 4096;
  t.global_batch = 64;
  Offer slow = node(8, LinkClass::nvswitch, 900, NetKind::ethernet, 10, 8);
  auto r = plan_job(llama2_7b(), t, tokens(1e10), h100(), slow, 8);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->fits) << r->why_not;
  EXPECT_EQ(r->best.nodes, 1) << plan_summary(r->best);
}

TEST(Planner, FixedLayoutIsEvaluatedExactly) {
  TrainConfig t;
  t.seq_len = 2048;
  t.micro_batch = 2;
  t.global_batch = 64;
  t.recompute = Recompute::selective;
  t.parallel.automatic = false;
  t.parallel.gpus = 8;
  t.parallel.tp = 2;
  t.parallel.pp = 1;
  t.parallel.dp = 4;
  t.parallel.zero = 1;
  auto r = plan_job(llama2_7b(), t, tokens(1e9), h100(), p5(), 4);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->fits) << r->why_not;
  const MemoryLayout& l = r->best.layout;
  EXPECT_EQ(l.tp, 2);
  EXPECT_EQ(l.dp, 4);
  EXPECT_EQ(l.zero, 1);
  EXPECT_EQ(l.recompute, Recompute::selective);
  EXPECT_EQ(l.micro_batch, 2);
  EXPECT_EQ(l.num_microbatches, 8);
  t.parallel.dp = 3;
  auto bad = plan_job(llama2_7b(), t, tokens(1e9), h100(), p5(), 4);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "parallel/dp");
}

TEST(Planner, UserRecomputeChoiceIsRespected) {
  TrainConfig t;
  t.seq_len = 2048;
  t.global_batch = 64;
  t.recompute = Recompute::full;
  auto r = plan_job(small_1b(), t, tokens(1e9), h100(), p5(1), 1);
  ASSERT_TRUE(r.ok() && r->fits);
  EXPECT_EQ(r->best.layout.recompute, Recompute::full);
  EXPECT_GT(r->best.hfu, r->best.mfu);
}

TEST(Planner, StorageThatCannotFeedTheGpusIsWarnedAndBoundsTime) {
  TrainConfig t;
  t.seq_len = 2048;
  t.global_batch = 64;
  PlanOptions o;
  o.storage_read_MBps = 0.05;  // 50 kB/s
  auto r = plan_job(small_1b(), t, tokens(1e9), h100(), p5(1), 1, o);
  ASSERT_TRUE(r.ok() && r->fits);
  EXPECT_TRUE(r->data.storage_bound);
  bool warned = false;
  for (const Warning& w : r->warnings) warned |= w.code == "storage_bound";
  EXPECT_TRUE(warned);
  EXPECT_NEAR(r->best.tokens_per_s, 0.05e6 / 4.0, 1e-6);
}

TEST(Planner, PrecisionTheGpuLacksIsAnError) {
  TrainConfig t;
  t.precision = Precision::fp8_mixed;
  GpuSpec a = h100();
  a.tflops_fp8 = 0;
  auto r = plan_job(small_1b(), t, tokens(1e9), a, p5(1), 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "precision");
}

TEST(Planner, NoNanOnDegenerateInputs) {
  TrainConfig t;
  t.seq_len = 0;
  EXPECT_FALSE(plan_job(small_1b(), t, tokens(1e9), h100(), p5(1), 1).ok());
  t.seq_len = 2048;
  t.compute_efficiency = 2.0;
  EXPECT_FALSE(plan_job(small_1b(), t, tokens(1e9), h100(), p5(1), 1).ok());
  t.compute_efficiency = -1;
  Dataset inf;
  inf.tokens = INFINITY;
  EXPECT_FALSE(plan_job(small_1b(), t, inf, h100(), p5(1), 1).ok());
}

TEST(Planner, OneInstanceOverAllNodeCountsPlansInUnderAMillisecond) {
  // One instance type over all node counts in < 1 ms natively (Release build; the
  // bound is loosened 20x here because unit tests run in Debug and under sanitizers).
  TrainConfig t;
  t.seq_len = 4096;
  t.global_batch = 1024;
  const auto start = std::chrono::steady_clock::now();
  const int reps = 20;
  for (int i = 0; i < reps; ++i) {
    auto r = plan_job(llama2_70b(), t, tokens(1e12), h100(), p5(16), 16);
    ASSERT_TRUE(r.ok() && r->fits);
  }
  const double per_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / reps;
  std::printf("plan_job 70B on p5 x1..16: %.3f ms per plan (this build)\n", per_ms);
  EXPECT_LT(per_ms, 20.0);
}

// ---------------------------------------------------------------------------------------------
TEST(TimeValidation, PublishedRunsArePredictedWithinTwentyFivePercent) {
  // Sources are cited per row in perf_validation.cpp (Llama 2 Table 2 GPU-hours, Megatron-LM Table 1 and §5.1,
  // MosaicML llm-foundry benchmark tables).
  const std::vector<TimeReference> rows = time_validation_rows();
  ASSERT_GE(rows.size(), 15u);
  for (const TimeReference& r : rows) {
    std::printf("%-55s %-18s published %12.1f estimate %12.1f error %+6.1f%%%s%s\n", r.name.c_str(),
                r.quantity.c_str(), r.published, r.estimate, 100 * r.relative_error,
                r.calibration ? " (calibration)" : "", r.fully_specified ? "" : " (not fully specified)");
    // Fully specified runs within their tolerance. Llama 2's GPU-hours (GPU count unpublished; the figure includes
    // evaluation, checkpointing and failures) are held to 40%.
    EXPECT_LT(std::fabs(r.relative_error), r.fully_specified ? r.tolerance : 0.40) << r.name << " — " << r.source;
  }
}

TEST(TimeValidation, TheTimeBandCoversEveryFullySpecifiedValidationError) {
  for (const TimeReference& r : time_validation_rows()) {
    if (!r.fully_specified) continue;
    const double actual_over_predicted = 1.0 / (1.0 + r.relative_error);
    // Mixture-of-experts runs are covered by their own band (planner.h kMoeTimeBand*).
    const double low = r.moe ? kMoeTimeBandLow : kTimeBandLow, high = r.moe ? kMoeTimeBandHigh : kTimeBandHigh;
    EXPECT_GE(actual_over_predicted, 1.0 - low) << r.name;
    EXPECT_LE(actual_over_predicted, 1.0 + high) << r.name;
  }
}

// A published Megatron-Bridge FP8 pre-training run (docs/performance-summary.md @00b7660): the preset's model with
// the run's 8,192-token context, Megatron-Core's full training in FP8 at `global_batch` sequences.
struct MegatronRun {
  ModelSpec model;
  TrainConfig train;
};
std::optional<MegatronRun> megatron_fp8_pretraining(const char* model_id, int64_t global_batch) {
  const ModelSpec* m = find_model(model_id);
  if (!m) return std::nullopt;
  MegatronRun run{*m, TrainConfig{}};
  run.model.max_position_embeddings = 8192;
  run.train.method = Method::full;
  run.train.framework = Framework::megatron_core;
  run.train.precision = Precision::fp8_mixed;
  run.train.seq_len = 8192;
  run.train.global_batch = global_batch;
  return run;
}

// A Megatron-profile plan of Llama 3 70B pre-training (seq 8192, global batch 128, FP8) on
// 8 DGX H100 nodes (8 x 400 Gb/s InfiniBand) uses tensor x pipeline parallelism with sequence parallelism and runs
// within 20% of the published 1,602 tokens/s per GPU (NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md
// @00b7660, 25.11 NeMo container, DGX-H100: "LLAMA3_70B | 64 | FP8-CS | 128 | 1 | 8192 | 0 | 4 | 8 | 1 | 5 | 1 |
// 64 | 1602 | 719"). Before the framework terms it found 886 tokens/s per GPU (full recompute, TP 2 x PP 8).
TEST(Planner, MegatronPlansLlama3SeventyBOnSixtyFourH100sWithTpPpSpNearThePublishedThroughput) {
  const std::optional<MegatronRun> run = megatron_fp8_pretraining("llama-3-70b", 128);
  ASSERT_TRUE(run.has_value());
  const ModelSpec& model = run->model;
  const TrainConfig& t = run->train;
  const Offer dgx = node(8, LinkClass::nvswitch, 900, NetKind::infiniband, 3200, 8);
  auto r = plan_job(model, t, tokens(1e10), h100(), dgx, 8);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->fits);
  const Plan& p = r->best;
  EXPECT_EQ(p.gpus, 64) << plan_summary(p);
  EXPECT_GT(p.layout.tp, 1) << plan_summary(p);
  EXPECT_GT(p.layout.pp, 1) << plan_summary(p);
  EXPECT_TRUE(p.layout.sequence_parallel) << plan_summary(p);
  const double per_gpu = p.tokens_per_s / p.gpus;
  std::printf("%s: %.0f tokens/s per GPU (published 1602)\n", plan_summary(p).c_str(), per_gpu);
  EXPECT_LT(std::fabs(1602.0 / per_gpu - 1.0), 0.20) << plan_summary(p);
}

// Uneven pipeline stages (framework.h uneven_pp): Llama 3.1 405B has 126 layers, which no PP degree above 2 that
// divides a power-of-two GPU count divides. Megatron-Bridge trains it on 1,024 H100 at 292 tokens/s per GPU
// (NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md @00b7660, 25.11, FP8-CS, GBS 512, seq 8192, TP 8, PP 8,
// VP 8, CP 2: 126 layers + embedding + loss = 128 = 64 chunks of 2, --account-for-embedding/loss-in-pipeline-split).
// Before, the planner found no layout; now it plans one with PP x VP not dividing 126, within 20%.
TEST(Planner, MegatronPlansLlama405BOnAThousandH100sWithUnevenPipelineStages) {
  std::optional<MegatronRun> run = megatron_fp8_pretraining("llama-3.1-405b", 512);
  ASSERT_TRUE(run.has_value());
  const ModelSpec& model = run->model;
  TrainConfig& t = run->train;
  const Offer dgx = node(8, LinkClass::nvswitch, 900, NetKind::infiniband, 3200, 128);
  auto r = plan_job(model, t, tokens(1e10), h100(), dgx, 128);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->fits) << r->why_not;
  const Plan* at = nullptr;
  for (const Plan& p : r->by_nodes)
    if (p.nodes == 128 && p.why.empty()) at = &p;
  ASSERT_NE(at, nullptr);
  const MemoryLayout& l = at->layout;
  EXPECT_GT(l.pp, 2) << plan_summary(*at);
  EXPECT_NE(126 % (l.pp * l.vp), 0) << plan_summary(*at);
  const double per_gpu = at->tokens_per_s / at->gpus;
  std::printf("%s: %.0f tokens/s per GPU (published 292)\n", plan_summary(*at).c_str(), per_gpu);
  EXPECT_LT(std::fabs(292.0 / per_gpu - 1.0), 0.20) << plan_summary(*at);
  // generic runs no uneven stages: the same search stays on PP degrees that divide the layers.
  t.framework = Framework::generic;
  t.precision = Precision::bf16_mixed;
  auto g = plan_job(model, t, tokens(1e10), h100(), dgx, 128);
  ASSERT_TRUE(g.ok());
  for (const Plan& p : g->by_nodes)
    if (p.why.empty()) {
      EXPECT_EQ(126 % p.layout.pp, 0) << plan_summary(p);
    }
}

// The heaviest stage sets the pace: 1 when pp x vp divides the layers; otherwise the better of ceil(L / (p v))
// layers per chunk and the embedding / loss counted as a layer each.
TEST(LayoutTiming, UnevenPipelineStagesRunAtThePaceOfTheHeaviestStage) {
  EXPECT_DOUBLE_EQ(pipeline_stage_factor(80, 8, 5), 1.0);
  EXPECT_DOUBLE_EQ(pipeline_stage_factor(126, 8, 8), 1.0);          // 128 = 64 x 2 with embedding and loss
  EXPECT_DOUBLE_EQ(pipeline_stage_factor(31, 4, 1), 32.0 / 31.0);   // 8 + 8 + 8 + 7: 8 x 4 / 31
  EXPECT_DOUBLE_EQ(pipeline_stage_factor(30, 4, 1), 1.0);           // 32 = 4 x 8 with embedding and loss
  EXPECT_EQ(pipeline_stage_layers(126, 16, 1), 8);
  EXPECT_EQ(pipeline_stage_layers(126, 8, 8), 16);
  EXPECT_FALSE(pipeline_split_ok(framework_profile(Framework::generic), 126, 8, 1));
  EXPECT_TRUE(pipeline_split_ok(framework_profile(Framework::megatron_core), 126, 8, 8));
  EXPECT_TRUE(pipeline_split_ok(framework_profile(Framework::torchtitan), 126, 16, 1));
  EXPECT_FALSE(pipeline_split_ok(framework_profile(Framework::megatron_core), 126, 64, 2));  // a chunk with no layer
  // Megatron-LM's forms: even; embedding + loss counted (126 + 2 = 64 x 2); loss counted (31 + 1 = 8 x 4); first /
  // last stage counts without virtual stages (29 over PP 4: 8, 8 in the middle, 6 + 7 at the ends).
  EXPECT_TRUE(megatron_pipeline_split(80, 8, 5).even);
  const MegatronPipelineSplit a = megatron_pipeline_split(126, 8, 8);
  EXPECT_TRUE(a.ok && a.embedding_counted && a.loss_counted);
  const MegatronPipelineSplit b = megatron_pipeline_split(31, 4, 2);
  EXPECT_TRUE(b.ok && b.loss_counted && !b.embedding_counted);
  const MegatronPipelineSplit c = megatron_pipeline_split(29, 4, 1);
  EXPECT_TRUE(c.ok && !c.loss_counted && !c.embedding_counted);
  EXPECT_EQ(c.first + c.last + 2 * 8, 29);
  EXPECT_LE(std::max(c.first, c.last), 8);
  EXPECT_FALSE(megatron_pipeline_split(37, 4, 3).ok);  // 37, 38, 39 do not divide into 12; no counts with VP
  EXPECT_FALSE(pipeline_split_ok(framework_profile(Framework::megatron_core), 37, 4, 3));
  EXPECT_TRUE(pipeline_split_ok(framework_profile(Framework::torchtitan), 37, 4, 3));
}

// Megatron-Core's --tp-comm-overlap and interleaved p2p overlap (framework.h): the same fixed layout exposes less
// TP and PP traffic under megatron-core than under the synchronous generic model, and never more time.
TEST(LayoutTiming, MegatronOverlapsTensorAndPipelineTrafficThatGenericExposes) {
  TrainConfig t;
  t.method = Method::full;
  t.precision = Precision::bf16_mixed;
  t.seq_len = 4096;
  MemoryLayout l = layout(4, 4, 4, 1, Recompute::none, 1, 32);
  l.vp = 5;
  l.sequence_parallel = true;
  const Offer dgx = node(8, LinkClass::nvswitch, 900, NetKind::infiniband, 3200, 8);
  auto generic = time_layout(llama2_70b(), t, h100(), dgx, 8, l, 128);
  t.framework = Framework::megatron_core;
  auto megatron = time_layout(llama2_70b(), t, h100(), dgx, 8, l, 128);
  ASSERT_TRUE(generic.ok() && megatron.ok());
  EXPECT_GT(generic->step.tp_exposed_s, 0);
  EXPECT_LT(megatron->step.tp_exposed_s, 0.5 * generic->step.tp_exposed_s);
  EXPECT_GE(megatron->step.tp_exposed_s, (1 - 0.8) * megatron->step.tp_comm_s * 0.999);  // at most kOverlap hidden
  EXPECT_LT(megatron->step.pp_exposed_s, generic->step.pp_exposed_s);
  EXPECT_DOUBLE_EQ(megatron->step.tp_comm_s, generic->step.tp_comm_s);  // same traffic, less of it exposed
  EXPECT_LT(megatron->step.total_s, generic->step.total_s);
}

// Sequence parallelism shards the norms and dropout over the TP ranks (Korthikanti et al. 2022 §4.2.2), so the
// efficiency's width factor is that of the full hidden size, not hidden / tp.
TEST(LayoutTiming, SequenceParallelKeepsTheFullWidthEfficiency) {
  TrainConfig t;
  t.method = Method::full;
  t.precision = Precision::bf16_mixed;
  t.seq_len = 4096;
  MemoryLayout l = layout(8, 1, 1, 0, Recompute::full, 1, 8);
  auto plain = time_layout(llama2_70b(), t, h100(), p5(), 1, l, 8);
  l.sequence_parallel = true;
  auto sp = time_layout(llama2_70b(), t, h100(), p5(), 1, l, 8);
  ASSERT_TRUE(plain.ok() && sp.ok());
  EXPECT_NEAR(sp->efficiency / plain->efficiency, gemm_width_factor(8192) / gemm_width_factor(1024), 1e-9);
}

// FP8 recipes cast only the GEMM inputs (Transformer Engine's attention stays BF16 unless fp8_dpa; torchao's
// float8 converts nn.Linear): the attention-score FLOPs run at the BF16 rate, so FP8 gains less at long sequences,
// where attention is a larger share of the work.
TEST(LayoutTiming, Fp8SpeedsUpTheGemmsButNotTheAttention) {
  TrainConfig t;
  t.method = Method::full;
  t.precision = Precision::fp8_mixed;
  // H100: BF16 989.4 x 0.54 against FP8 1978.9 x 0.36 (perf.cpp generation ceilings).
  EXPECT_NEAR(fp8_attention_rate_ratio(h100(), t), 989.4 * 0.54 / (1978.9 * 0.36), 1e-9);
  t.precision = Precision::bf16_mixed;
  EXPECT_EQ(fp8_attention_rate_ratio(h100(), t), 1.0);
  auto fp8_gain = [&](int64_t seq) {
    TrainConfig u;
    u.method = Method::full;
    u.seq_len = seq;
    const MemoryLayout l = layout(1, 1, 8, 1, Recompute::none, 1, 1);
    u.precision = Precision::bf16_mixed;
    auto bf16 = time_layout(llama2_7b(), u, h100(), p5(), 1, l, 8);
    u.precision = Precision::fp8_mixed;
    auto fp8 = time_layout(llama2_7b(), u, h100(), p5(), 1, l, 8);
    EXPECT_TRUE(bf16.ok() && fp8.ok());
    return bf16->step.compute_s / fp8->step.compute_s;
  };
  EXPECT_GT(fp8_gain(1024), fp8_gain(16384));
  EXPECT_GT(fp8_gain(16384), 1.0);
}

// Published throughput of Megatron/NeMo, torchtitan and nanotron runs is in the validation set, with
// a source each; the fully specified ones are held to 20% (PublishedRunsArePredictedWithinTwentyFivePercent).
TEST(TimeValidation, EveryPreTrainingFrameworkHasPublishedThroughputRows) {
  int megatron = 0, titan = 0, nanotron = 0, b200 = 0, h200 = 0;
  for (const TimeReference& r : time_validation_rows()) {
    const bool is_megatron = r.name.rfind("NeMo", 0) == 0 || r.name.rfind("Megatron-Bridge", 0) == 0;
    const bool is_titan = r.name.rfind("torchtitan", 0) == 0;
    const bool is_nanotron = r.name.rfind("nanotron", 0) == 0;
    if (!is_megatron && !is_titan && !is_nanotron) continue;
    EXPECT_FALSE(r.source.empty()) << r.name;
    EXPECT_GT(r.estimate, 0) << r.name;
    if (r.fully_specified) {
      EXPECT_DOUBLE_EQ(r.tolerance, 0.20) << r.name;
    }
    megatron += is_megatron && r.fully_specified;
    titan += is_titan && r.fully_specified;
    nanotron += is_nanotron;
    b200 += r.name.find("B200") != std::string::npos && r.fully_specified;
    h200 += r.name.find("H200") != std::string::npos && r.fully_specified;
  }
  EXPECT_GE(megatron, 8);
  EXPECT_GE(titan, 2);
  EXPECT_GE(nanotron, 1);
  EXPECT_GE(b200, 2);
  EXPECT_GE(h200, 2);
}

// The megatron-core FP8 factor (framework.h fp8_efficiency) is the one its calibration rows give: over them, the
// geometric mean of published / estimated tokens/s is 1 (within 1%). The other Megatron rows are held out.
TEST(TimeValidation, MegatronFp8FactorIsTheGeometricMeanOfItsCalibrationRows) {
  double log_sum = 0;
  int n = 0, held_out = 0;
  for (const TimeReference& r : time_validation_rows()) {
    const bool megatron = r.source.find("Megatron-Bridge") != std::string::npos || r.source.find("NeMo") != std::string::npos;
    if (!megatron || r.moe) continue;  // MoE rows calibrate moe_efficiency (below)
    // NeMo's long-sequence rows calibrate Blackwell's attention rate (below), not the FP8 factor.
    if (r.source.find("performance_long_sequence") != std::string::npos) continue;
    if (!r.calibration) {
      ++held_out;
      continue;
    }
    log_sum += std::log(r.published / r.estimate);
    ++n;
  }
  ASSERT_GE(n, 2);
  EXPECT_GE(held_out, 5);
  EXPECT_NEAR(std::exp(log_sum / n), 1.0, 0.01);
  EXPECT_GT(framework_profile(Framework::megatron_core).fp8_efficiency, 1.0);
  EXPECT_EQ(framework_profile(Framework::generic).fp8_efficiency, 1.0);
}

// torchtitan's eager factor (framework.h eager_efficiency) is what its Llama 3.1 8B tables give: each eager row ("FSDP")
// over its compiled twin ("FSDP + torch.compile"), estimated, is the published ratio (5,762 / 6,667 on 8 H100, 5,605 /
// 6,514 on 128) within 1.5%; compiled is the profile's default.
TEST(TimeValidation, TorchtitanEagerFactorIsItsTablesCompiledRatio) {
  const std::vector<TimeReference> rows = time_validation_rows();
  int pairs = 0;
  for (const TimeReference& eager : rows) {
    if (eager.name.rfind("torchtitan", 0) != 0 || eager.name.find(", bf16, eager") == std::string::npos) continue;
    const std::string twin = eager.name.substr(0, eager.name.size() - 5) + "compile";
    for (const TimeReference& compiled : rows)
      if (compiled.name == twin) {
        ++pairs;
        EXPECT_NEAR((eager.estimate / compiled.estimate) / (eager.published / compiled.published), 1.0, 0.015)
            << eager.name;
      }
  }
  EXPECT_EQ(pairs, 2);
  EXPECT_LT(framework_profile(Framework::torchtitan).eager_efficiency, 1.0);
  EXPECT_TRUE(framework_profile(Framework::torchtitan).compiles);
  EXPECT_FALSE(framework_profile(Framework::hf_trainer).compiles);
}

// Blackwell's fused-attention fraction (perf.cpp attention_efficiency) is the one NeMo's B200 long-sequence calibration
// rows give (geometric mean of published / estimated within 2%), and the held-out long-sequence rows, H100 and B200,
// 32k to 1M tokens, are within 20%: attention dominates their step, so this holds the attention rate itself.
TEST(TimeValidation, LongSequenceRowsHoldTheAttentionRate) {
  double log_sum = 0;
  int n = 0, held_out = 0, h100 = 0;
  for (const TimeReference& r : time_validation_rows()) {
    if (r.source.find("performance_long_sequence") == std::string::npos) continue;
    EXPECT_LE(std::fabs(r.relative_error), 0.20) << r.name;
    if (r.calibration) {
      EXPECT_NE(r.name.find("B200"), std::string::npos) << r.name;
      log_sum += std::log(r.published / r.estimate);
      ++n;
    } else {
      ++held_out;
      h100 += r.name.find("H100") != std::string::npos;
    }
  }
  ASSERT_EQ(n, 2);
  EXPECT_NEAR(std::exp(log_sum / n), 1.0, 0.02);
  EXPECT_EQ(held_out, 10);
  EXPECT_EQ(h100, 6);
}

// hf-trainer's attention rate (framework.cpp attention_end_to_end) is what XTuner's Ulysses row at 128k gives (within
// 2%), and its held-out Ulysses rows (Llama 2 7B at 256k on one node and 1M over two; Llama 2 70B at 32k and 128k on
// four nodes) are within 20%: the all-to-all scheme's long-context rows.
TEST(TimeValidation, UlyssesRowsHoldTheHfTrainerAttentionRate) {
  int calibration = 0, held_out = 0;
  for (const TimeReference& r : time_validation_rows()) {
    if (r.name.find("Ulysses") == std::string::npos || r.source.find("xtuner") == std::string::npos) continue;
    if (r.calibration) {
      ++calibration;
      EXPECT_NEAR(r.published / r.estimate, 1.0, 0.02) << r.name;
    } else {
      ++held_out;
      EXPECT_LE(std::fabs(r.relative_error), 0.20) << r.name;
    }
  }
  EXPECT_EQ(calibration, 1);
  EXPECT_EQ(held_out, 4);
}

// On Hopper, Megatron-Core's experts pay a fixed cost per expert GEMM call (framework.h moe_gemm_call_s): Mixtral's
// 8 wide experts then run near the dense rate and the published Mixtral runs on H100 (Megatron-LM's 8x7B release
// test, ModelZoo's 8x22B, informative rows) come within 20%, where the single grouped-GEMM factor that Qwen3's
// 128 narrow experts give had them 70-90% slow; ModelZoo's cross-node EP 32 Qwen3-235B rows come within 20% too.
TEST(TimeValidation, HopperExpertCallCostLeavesCoarseExpertsNearTheDenseRate) {
  int mixtral = 0, ep32 = 0;
  for (const TimeReference& r : time_validation_rows()) {
    const bool is_mixtral = r.name.find("Mixtral") != std::string::npos;
    const bool is_ep32 =
        r.name.find("Qwen3-235B-A22B, 256x H100 BF16, DeepEP (TP 2, PP 8, VP 4, EP 32)") != std::string::npos;
    if (!is_mixtral && !is_ep32) continue;
    mixtral += is_mixtral;
    ep32 += is_ep32;
    EXPECT_LT(std::fabs(r.relative_error), 0.20) << r.name;
  }
  EXPECT_EQ(mixtral, 2);
  EXPECT_EQ(ep32, 2);  // without and with the all-to-all overlap
}

// The grouped-GEMM factors (framework.h moe_efficiency) are the ones their calibration rows give: over Megatron-Core's
// MoE calibration rows (within 4%: megatron-core's factor is set below their exact fit so that every held-out row
// stays within 20%, framework.cpp), over torchtitan's (its DeepEP README's job run both ways, which also sets the
// default dispatcher's overhead: within 1%) and over trainfit's own H200 runs (generic, within 3%), the geometric mean
// of published / estimated tokens/s is 1; the other MoE rows are held out, and at least 8 MoE rows from 2 frameworks
// are fully specified, 8 of them within 20%.
TEST(TimeValidation, MoeFactorsAreTheGeometricMeanOfTheirCalibrationRows) {
  double log_meg = 0, log_own = 0, log_titan = 0;
  int n_meg = 0, n_own = 0, n_titan = 0, full = 0, within = 0, titan = 0, megatron = 0;
  for (const TimeReference& r : time_validation_rows()) {
    if (!r.moe) continue;
    const bool own = r.source.find("bench/device") != std::string::npos;
    const bool is_titan = r.name.find("torchtitan") != std::string::npos;
    if (r.calibration && own) {
      log_own += std::log(r.published / r.estimate);
      ++n_own;
    } else if (r.calibration && is_titan) {
      log_titan += std::log(r.published / r.estimate);
      ++n_titan;
    } else if (r.calibration) {
      log_meg += std::log(r.published / r.estimate);
      ++n_meg;
    }
    if (own || !r.fully_specified) continue;
    ++full;
    within += std::fabs(r.relative_error) <= 0.20;
    titan += r.name.find("torchtitan") != std::string::npos;
    megatron += r.name.find("Megatron") != std::string::npos;
  }
  ASSERT_GE(n_meg, 2);
  ASSERT_GE(n_own, 3);
  EXPECT_NEAR(std::exp(log_meg / n_meg), 1.0, 0.04);
  EXPECT_NEAR(std::exp(log_own / n_own), 1.0, 0.03);
  ASSERT_EQ(n_titan, 2);  // the default all-to-all and DeepEP
  EXPECT_NEAR(std::exp(log_titan / n_titan), 1.0, 0.01);
  EXPECT_GE(full, 8);
  EXPECT_GE(within, 8);
  EXPECT_GE(titan, 8);  // FSDP alone, EP 8 both ways, DeepEP's scaling to 16 nodes
  EXPECT_GE(megatron, 7);
}

// The ranking prepares the job-level half of planning once (PlanJob) and plans every instance shape from it:
// the result must be exactly the one-shot plan_job's, errors included and in the same order.
TEST(Planner, PreparedJobPlansExactlyLikeTheOneShotCall) {
  auto same = [](const Result<PlanResult>& a, const Result<PlanResult>& b) {
    ASSERT_EQ(a.ok(), b.ok());
    if (!a.ok()) {
      EXPECT_EQ(a.error().to_string(), b.error().to_string());
      return;
    }
    EXPECT_EQ(a->fits, b->fits);
    EXPECT_EQ(a->why_not, b->why_not);
    EXPECT_EQ(plan_summary(a->best), plan_summary(b->best));
    EXPECT_EQ(a->time_s, b->time_s);
    EXPECT_EQ(a->best.memory_bytes, b->best.memory_bytes);
    EXPECT_EQ(a->layouts_evaluated, b->layouts_evaluated);
    EXPECT_EQ(a->memory_checks, b->memory_checks);
    ASSERT_EQ(a->runners_up.size(), b->runners_up.size());
    for (size_t i = 0; i < a->runners_up.size(); ++i) EXPECT_EQ(a->runners_up[i].why, b->runners_up[i].why);
    ASSERT_EQ(a->by_nodes.size(), b->by_nodes.size());
    for (size_t i = 0; i < a->by_nodes.size(); ++i) EXPECT_EQ(a->by_nodes[i].tokens_per_s, b->by_nodes[i].tokens_per_s);
  };
  const Dataset data = tokens(1e9);
  Offer no_gpus = p5(4);
  no_gpus.gpu_count = 0;
  GpuSpec no_bf16 = l40s();
  no_bf16.tflops_bf16 = 0;
  no_bf16.tflops_fp16 = 0;
  for (const ModelSpec& m : {small_1b(), llama2_7b(), llama2_70b()}) {
    for (Method method : {Method::full, Method::lora, Method::qlora}) {
      for (double headroom : {0.05, 1.5}) {  // 1.5: the headroom error comes after the offer's and GPU's checks
        TrainConfig t;
        t.method = method;
        t.seq_len = 4096;
        t.micro_batch = 1;
        t.global_batch = 256;
        t.headroom = headroom;
        const PlanJob job(m, t, data);
        for (const GpuSpec& g : {h100(), l40s(), no_bf16})
          for (const Offer& o : {p5(4), node(4, LinkClass::pcie, 64, NetKind::ethernet, 100, 2), no_gpus})
            same(plan_job(job, g, o, 4), plan_job(m, t, data, g, o, 4));
      }
    }
  }
  // The jobs whose searches fill the rest of a memory check's layout: context parallelism in both schemes (the
  // Ulysses flag), expert parallelism (EP, ETP) with pipeline stages, offload. The prepared job memoises its memory
  // checks across shapes (planner_search.h MemoryMemo), so a shape planned after others must still get the plan
  // it gets alone.
  struct Long {
    const char* model;
    Framework framework;
    Method method;
    int64_t seq;
    CpScheme scheme;
  };
  for (const Long& c : {Long{"qwen2.5-7b", Framework::hf_trainer, Method::full, 65536, CpScheme::automatic},
                        Long{"qwen2.5-7b", Framework::hf_trainer, Method::full, 65536, CpScheme::ring},
                        Long{"qwen3-30b-a3b", Framework::megatron_core, Method::full, 4096, CpScheme::automatic},
                        Long{"qwen3-30b-a3b", Framework::megatron_core, Method::full, 32768, CpScheme::automatic}}) {
    const ModelSpec* m = find_model(c.model);
    ASSERT_NE(m, nullptr) << c.model;
    TrainConfig t;
    t.framework = c.framework;
    t.method = c.method;
    t.seq_len = c.seq;
    t.cp_scheme = c.scheme;
    t.micro_batch = 1;
    t.global_batch = 64;
    const PlanJob job(*m, t, data);
    for (const GpuSpec& g : {h100(), l40s()})
      for (const Offer& o : {p5(4), node(4, LinkClass::pcie, 64, NetKind::ethernet, 100, 2), node(8, LinkClass::pcie, 64, NetKind::none, 0, 1)})
        same(plan_job(job, g, o, 4), plan_job(*m, t, data, g, o, 4));
  }
}

}  // namespace
}  // namespace trainfit
