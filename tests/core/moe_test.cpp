// Mixture of experts with expert parallelism: the routed experts' parameters, their sharding over the EP and
// expert-data-parallel ranks, the dispatch buffers, the all-to-all time, and the planner's EP search.
#include "trainfit/catalog/framework.h"
#include "trainfit/estimate/memory.h"
#include "trainfit/catalog/model.h"
#include "trainfit/estimate/perf.h"
#include "trainfit/estimate/planner.h"
#include "trainfit/query/query.h"
#include "trainfit/launch/recipe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "facade_helpers.h"

namespace trainfit {
namespace {

const ModelSpec& qwen3_moe() {
  const ModelSpec* m = find_model("qwen3-30b-a3b");
  EXPECT_NE(m, nullptr);
  return *m;
}

// One 8-GPU B200 node with NVSwitch (Nebius), from the bundled snapshot.
const Offer& b200_node() {
  const Snapshot& snap = test::bundled_snapshot();
  const int oi = snap.find_offer("nebius/gpu-b200-sxm_8gpu-160vcpu-1792gb/us-central1");
  EXPECT_GE(oi, 0);
  return snap.offers[std::max(oi, 0)];
}

TrainConfig full_training(Framework fw = Framework::megatron_core) {
  TrainConfig t;
  t.method = Method::full;
  t.precision = Precision::bf16_mixed;
  t.framework = fw;
  t.seq_len = 4096;
  return t;
}

// A fixed layout: `gpus` GPUs all data parallel, the experts split over `ep` of them (whole: ETP 1), full recompute.
TrainConfig fixed_ep_job(Framework fw, int gpus, int ep, int zero, int64_t micro_batch) {
  TrainConfig t = full_training(fw);
  t.global_batch = 64;
  t.micro_batch = micro_batch;
  t.recompute = Recompute::full;
  t.parallel.automatic = false;
  t.parallel.gpus = gpus;
  t.parallel.dp = gpus;
  t.parallel.ep = ep;
  t.parallel.etp = 1;
  t.parallel.zero = zero;
  return t;
}

// The best plan's step on `nodes` nodes of `offer` (the job must fit).
StepTime fixed_step(const TrainConfig& t, const Offer& offer, int nodes) {
  Dataset d;
  d.tokens = 1e10;
  auto r = plan_job(qwen3_moe(), t, d, test::bundled_snapshot().gpus[offer.gpu], offer, nodes);
  EXPECT_TRUE(r.ok() && r->fits) << (r.ok() ? r->why_not : r.error().to_string());
  return r.ok() ? r->best.step : StepTime{};
}

// Qwen3-30B-A3B (config.json of Qwen/Qwen3-30B-A3B): 48 layers, 128 experts of SwiGLU width 768 on hidden 2048,
// every layer MoE: 48 x 128 x 3 x 2048 x 768 = 28,991,029,248 routed-expert parameters of the 30,532,122,624.
TEST(Moe, RoutedExpertParametersAreCountedApart) {
  auto c = count_params(qwen3_moe());
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c->expert, 48.0 * 128 * 3 * 2048 * 768);
  EXPECT_DOUBLE_EQ(c->total, 30532122624.0);
  const ModelSpec* dense = find_model("llama-3.1-8b");
  ASSERT_NE(dense, nullptr);
  EXPECT_EQ(count_params(*dense)->expert, 0.0);
}

// Expert parallelism divides the experts' weights by ep (the dense part stays whole with TP 1), and ZeRO-1 shards the
// dense optimizer states over DP and the experts' over the expert-data-parallel ranks (tp x dp / ep).
TEST(Moe, ExpertParallelShardsExpertsAndTheirStatesByTheirOwnGroups) {
  const ModelSpec& m = qwen3_moe();
  const TrainConfig t = full_training();
  const ParamCounts pc = *count_params(m);
  MemoryLayout l;
  l.dp = 8;
  l.zero = 1;
  l.recompute = Recompute::full;
  const MemoryBreakdown no_ep = *estimate_memory(m, t, l);
  l.ep = 8;
  const MemoryBreakdown ep8 = *estimate_memory(m, t, l);
  const double dense = pc.total - pc.expert;
  // Megatron-Core keeps fp32 gradients (framework.h fp32_grad_buffer): 4 B; 16-bit weights: 2 B.
  EXPECT_NEAR(no_ep.weights, pc.total * 2, 1);
  EXPECT_NEAR(ep8.weights, dense * 2 + pc.expert / 8 * 2, 1);
  EXPECT_NEAR(ep8.gradients, (dense + pc.expert / 8) * 4, 1);
  // Optimizer states (Adam, 8 B) and fp32 master (4 B): dense over DP 8, experts over EDP = 8 / 8 = 1.
  EXPECT_NEAR(ep8.optimizer_states, (dense / 8 + pc.expert / 8) * 8, 16);
  EXPECT_NEAR(ep8.master_weights, (dense / 8 + pc.expert / 8) * 4, 16);
  EXPECT_NEAR(no_ep.optimizer_states, pc.total / 8 * 8, 16);
  EXPECT_LT(ep8.total, no_ep.total);
  // Dispatch buffers: send and receive, k copies of the micro-batch's tokens at hidden width, 2 B.
  EXPECT_EQ(no_ep.moe_dispatch, 0.0);
  EXPECT_NEAR(ep8.moe_dispatch, 2.0 * 4096 * 8 * 2048 * 2, 1);
  // The components of the table add up to the total (gradients and activations coexist: fp32 grad buffer).
  double sum = 0;
  for (const MemoryComponent& c : kMemoryComponents) sum += ep8.*c.bytes;
  EXPECT_NEAR(sum, ep8.total, 1e-6 * ep8.total);
}

// torchtitan's op-level selective checkpointing on an MoE layer (activation_checkpoint.py: the experts' grouped
// GEMMs are not in the save list, the router's gate is forced to recompute, topk is saved): per token, the layer
// input (2 x 2048), q (2 x 4096, the 1st matmul), v (2 x 512, the 3rd), the attention output (2 x 4096) with its
// fp32 logsumexp (4 x 32 heads) and the top-8 scores (fp32) and indices (int64): 21,728 bytes. With expert
// parallelism the all-to-all results are saved too: 8 dispatched copies and 8 returned outputs of 2 x 2048.
TEST(Moe, OpSelectiveCheckpointingRecomputesTheExpertsAndSavesTheAllToAlls) {
  TrainConfig t = full_training(Framework::torchtitan);
  t.seq_len = 8192;
  MemoryLayout l;
  l.dp = 8;
  l.zero = 3;
  l.recompute = Recompute::selective;
  auto fsdp = estimate_memory(qwen3_moe(), t, l);
  ASSERT_TRUE(fsdp.ok()) << fsdp.error().to_string();
  EXPECT_DOUBLE_EQ(fsdp->activations_per_layer, 8192.0 * 21728.0);
  l.ep = 8;
  auto ep = estimate_memory(qwen3_moe(), t, l);
  ASSERT_TRUE(ep.ok()) << ep.error().to_string();
  EXPECT_DOUBLE_EQ(ep->activations_per_layer, 8192.0 * (21728.0 + 2.0 * 8 * 2 * 2048));
  // Korthikanti's selective recompute (any other framework) keeps the whole MoE block: far more.
  t.framework = Framework::generic;
  l.ep = 1;
  auto generic = estimate_memory(qwen3_moe(), t, l);
  ASSERT_TRUE(generic.ok());
  EXPECT_GT(generic->activations_per_layer, 4 * fsdp->activations_per_layer);
}

// The same under DeepEP (torchtitan distributed/deepep/deepep.py: deepep::dispatch and deepep::combine on the op
// policy's save list): its dispatch deduplicates the destination ranks of a token's experts (deepseek-ai/DeepEP
// impls/dispatch.cuh), so the policy keeps per received row the hidden state (2 x 2048), the top-k indices (int64),
// scores (fp32) and routing metadata (k + 2 int32), and per token the combine's one output row (2 x 2048) and the
// handle's top-k indices (int64) and buffer slots (int32). 128 experts, 16 on each of 8 ranks: a token's 8 distinct
// experts miss a given rank with probability C(112, 8) / C(128, 8), so they reach 8 (1 - that) = 5.34 ranks.
TEST(Moe, OpSelectiveCheckpointingUnderDeepEpSavesOneRowPerDestinationRank) {
  // Binomial coefficients from lgamma: a computation apart from the estimator's product.
  auto choose = [](double n, double k) { return std::exp(std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1)); };
  auto ranks_reached = [&](double experts, double k, double r) {
    return r * (1 - choose(experts - experts / r, k) / choose(experts, k));
  };
  auto saved = [](double ranks, double k) {  // bytes per token of one MoE layer (every Qwen3-30B-A3B layer is one)
    return ranks * (2 * 2048 + k * (8 + 4) + 4 * (k + 2)) + 2 * 2048 + k * (8 + 4);
  };
  TrainConfig t = full_training(Framework::torchtitan);
  t.seq_len = 8192;
  t.moe_dispatcher = MoeDispatcher::deepep;
  MemoryLayout l;
  l.dp = 8;
  l.ep = 8;
  l.zero = 3;
  l.recompute = Recompute::selective;
  l.gpus_per_node = 8;
  const double ranks = ranks_reached(128, 8, 8);
  EXPECT_NEAR(ranks, 5.34, 0.005);
  auto deepep = estimate_memory(qwen3_moe(), t, l);
  ASSERT_TRUE(deepep.ok()) << deepep.error().to_string();
  EXPECT_NEAR(deepep->activations_per_layer, 8192.0 * (21728.0 + saved(ranks, 8)), 1e-9 * deepep->activations_per_layer);
  // The plain all-to-all keeps its 16 copies: 2.4x what DeepEP keeps of this exchange.
  t.moe_dispatcher = MoeDispatcher::alltoall;
  auto a2a = estimate_memory(qwen3_moe(), t, l);
  ASSERT_TRUE(a2a.ok());
  EXPECT_DOUBLE_EQ(a2a->activations_per_layer, 8192.0 * (21728.0 + 2.0 * 8 * 2 * 2048));
  t.moe_dispatcher = MoeDispatcher::deepep;
  // Top-2 routing (the same model with k = 2): 2 (8 + 4) bytes of top-k per row and token, (2 + 2) x 4 of metadata;
  // the layer's other saved tensors scale with k too (the router's top-k), so compare the exchange alone.
  ModelSpec top2 = qwen3_moe();
  top2.experts_per_token = 2;
  auto k2 = estimate_memory(top2, t, l);
  t.moe_dispatcher = MoeDispatcher::alltoall;
  auto k2_a2a = estimate_memory(top2, t, l);
  ASSERT_TRUE(k2.ok() && k2_a2a.ok());
  EXPECT_NEAR(k2->activations_per_layer - k2_a2a->activations_per_layer,
              8192.0 * (saved(ranks_reached(128, 2, 8), 2) - 2.0 * 2 * 2 * 2048), 1e-6 * k2->activations_per_layer);
  t.moe_dispatcher = MoeDispatcher::deepep;
  // An imbalance of 2 doubles the busiest rank's received rows, but DeepEP sends it at most one row per token from
  // each of the 8 ranks (2 x 5.34 > 8); the plain all-to-all's received half doubles: (1 + 2) / 2 of its 16 copies.
  // The rest of the layer is the same under both dispatchers.
  t.moe_imbalance = 2;
  auto skewed = estimate_memory(qwen3_moe(), t, l);
  t.moe_dispatcher = MoeDispatcher::alltoall;
  auto skewed_a2a = estimate_memory(qwen3_moe(), t, l);
  t.moe_dispatcher = MoeDispatcher::deepep;
  t.moe_imbalance = 1;
  ASSERT_TRUE(skewed.ok() && skewed_a2a.ok());
  EXPECT_GT(2 * ranks, 8.0);
  EXPECT_NEAR(skewed->activations_per_layer - skewed_a2a->activations_per_layer,
              8192.0 * (saved(8, 8) - 1.5 * 2.0 * 8 * 2 * 2048), 1e-6 * skewed->activations_per_layer);
  // One expert per rank (EP 128 of 128 experts): every one of a token's 8 experts is on its own rank.
  l.dp = 128;
  l.ep = 128;
  auto wide = estimate_memory(qwen3_moe(), t, l);
  ASSERT_TRUE(wide.ok()) << wide.error().to_string();
  EXPECT_NEAR(wide->activations_per_layer, 8192.0 * (21728.0 + saved(8, 8)), 1e-9 * wide->activations_per_layer);
}

TEST(Moe, ExpertLayoutErrorsNameTheKey) {
  const ModelSpec& m = qwen3_moe();
  EXPECT_TRUE(expert_layout_error(m, 1, 1, 8, 8, 0).message.empty());
  EXPECT_EQ(expert_layout_error(m, 1, 1, 6, 3, 0).field, "parallel.ep");
  EXPECT_EQ(expert_layout_error(m, 1, 1, 4, 8, 0).field, "parallel.ep");
  EXPECT_EQ(expert_layout_error(m, 2, 1, 2, 4, 2).field, "parallel.etp");
  EXPECT_TRUE(expert_layout_error(m, 2, 1, 4, 4, 2).message.empty());
  // etp must divide the expert MLP width (768 = 2^8 x 3).
  EXPECT_EQ(expert_layout_error(m, 1, 1, 8, 1, 5).field, "parallel.etp");
}

// All-to-all: inside an NVSwitch node at the link's rate; across nodes the NICs carry every local rank's share and
// the same bytes take longer.
TEST(Moe, AllToAllAcrossNodesIsSlowerThanInsideANode) {
  const GpuSpec g = test::gpu("h100-sxm");
  Offer o;
  o.gpu_count = 8;
  o.intra_link = LinkClass::nvswitch;
  o.intra_link_GBps = 900;
  o.inter_net = NetKind::infiniband;
  o.inter_net_Gbps = 3200;
  const double bytes = 512e6;
  const double inside = all_to_all_time_s(bytes, 8, 8, o, g);
  const double across = all_to_all_time_s(bytes, 16, 8, o, g);
  EXPECT_GT(inside, 0.0);
  EXPECT_GT(across, inside);
  EXPECT_EQ(all_to_all_time_s(bytes, 1, 1, o, g), 0.0);
  o.inter_net = NetKind::none;
  o.inter_net_Gbps = 0;
  EXPECT_GE(all_to_all_time_s(bytes, 16, 8, o, g), 1e29);  // no network: the layout cannot run
}

// The planner searches EP where the framework launches it (Megatron-Core, torchtitan), never under hf-trainer or nanotron,
// and a fixed EP layout is evaluated exactly, with its all-to-all in the step.
TEST(Moe, PlannerProposesExpertParallelLayoutsWhereTheFrameworkRunsThem) {
  const Offer& offer = b200_node();
  const GpuSpec& gpu = test::bundled_snapshot().gpus[offer.gpu];
  Dataset d;
  d.tokens = 1e10;
  TrainConfig t = full_training(Framework::megatron_core);
  t.global_batch = 256;
  // Qwen3-30B-A3B on one B200 node: expert parallelism is searched (the model finds EP and pipeline layouts within
  // a few percent of each other here: EP's larger grouped GEMMs against its all-to-alls), so an EP layout is the
  // plan or one of its runners-up.
  auto r = plan_job(qwen3_moe(), t, d, gpu, offer, 1);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->fits) << r->why_not;
  bool ep_seen = r->best.layout.ep > 1;
  for (const Plan& p : r->runners_up) ep_seen = ep_seen || p.layout.ep > 1;
  EXPECT_TRUE(ep_seen) << plan_summary(r->best);

  // hf-trainer, and nanotron, whose main branch starts only ep = 1 (its ParallelContext), plan without EP.
  // nanotron also keeps every expert whole on each TP rank (nn/moe.py GroupedMLP: plain parameters, not TP-sharded),
  // so its layouts run expert TP 1 whatever their TP.
  for (Framework fw : {Framework::hf_trainer, Framework::nanotron}) {
    t.framework = fw;
    auto h = plan_job(qwen3_moe(), t, d, gpu, offer, 1);
    ASSERT_TRUE(h.ok());
    std::vector<Plan> plans = h->runners_up;
    if (h->fits) plans.push_back(h->best);
    for (const Plan& p : plans) {
      EXPECT_EQ(p.layout.ep, 1) << plan_summary(p);
      if (fw == Framework::nanotron) {
        EXPECT_EQ(p.layout.etp, 1) << plan_summary(p);
      }
      else EXPECT_EQ(p.layout.etp, 0) << plan_summary(p);
    }
  }
  EXPECT_NE(framework_layout_error(Framework::nanotron, Method::full, 1, 1, 1, 8, 1, false, 8, CpScheme::ring)
                .find("EP 8 is not supported by nanotron"),
            std::string::npos);

  // A fixed layout: TP 1, DP 8, EP 8, ZeRO-1.
  t.framework = Framework::megatron_core;
  t.parallel.automatic = false;
  t.parallel.gpus = 8;
  t.parallel.dp = 8;
  t.parallel.ep = 8;
  t.parallel.zero = 1;
  t.micro_batch = 1;
  auto f = plan_job(qwen3_moe(), t, d, gpu, offer, 1);
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  ASSERT_TRUE(f->fits) << f->why_not;
  EXPECT_EQ(f->best.layout.ep, 8);
  EXPECT_GT(f->best.step.ep_comm_s, 0.0);
}

// DeepSeek-V3 (671B) cannot be trained on H100 nodes without splitting its 256 experts: the Megatron-Core plan on up
// to 128 p5-class nodes (8 H100, NVSwitch, 3,200 Gb/s) uses expert parallelism, and its all-to-all is in the step.
TEST(Moe, DeepSeekV3OnAnH100ClusterIsPlannedWithExpertParallelism) {
  const ModelSpec* m = find_model("deepseek-v3");
  ASSERT_NE(m, nullptr);
  const Snapshot& snap = test::bundled_snapshot();
  const int oi = snap.find_offer("aws/p5.48xlarge/us-east-1");
  ASSERT_GE(oi, 0);
  const Offer& offer = snap.offers[oi];
  TrainConfig t = full_training(Framework::megatron_core);
  t.precision = Precision::fp8_mixed;
  t.global_batch = 8192;
  Dataset d;
  d.tokens = 1e11;
  auto r = plan_job(*m, t, d, snap.gpus[offer.gpu], offer, 128);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->fits) << r->why_not;
  EXPECT_GT(r->best.layout.ep, 1) << plan_summary(r->best);
  EXPECT_EQ(256 % r->best.layout.ep, 0);
  EXPECT_GT(r->best.step.ep_comm_s, 0.0);
  EXPECT_GT(r->best.nodes, 8) << plan_summary(r->best);
}

// The same query through the facade: the plan document carries ep / etp and the step its all-to-all.
TEST(Moe, FacadePlanDocumentCarriesExpertParallelism) {
  const std::string q =
      R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","seq_len":4096,"global_batch":256,)"
      R"("micro_batch":1,"parallel":{"dp":8,"ep":8,"zero":1},)"
      R"("dataset":{"tokens":1e10},"target":{"offer":"nebius/gpu-b200-sxm_8gpu-160vcpu-1792gb/us-central1"}})";
  const nlohmann::json doc = test::facade("plan", q);
  ASSERT_TRUE(doc["ok"].get<bool>()) << doc.dump();
  const auto& best = doc["plan"]["best"];
  EXPECT_EQ(best["ep"].get<int>(), 8) << best.dump();
  EXPECT_EQ(best["etp"].get<int>(), 1);
  EXPECT_GT(best["step"]["ep_comm_s"].get<double>(), 0.0);
  EXPECT_GT(doc["plan"]["memory"]["moe_dispatch_bytes"].get<double>(), 0.0);
  // The hash form of a fixed EP layout round-trips.
  auto h = parse_query_hash("#model=qwen3-30b-a3b&method=full&parallel.dp=8&parallel.ep=8");
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->train.parallel.ep, 8);
  EXPECT_NE(query_to_hash(*h).find("parallel.ep=8"), std::string::npos);
}

// torchtitan carves its expert-parallel ranks out of the FSDP x CP x TP ranks (parallel_dims.py efsdp): a fixed
// layout with EP across data-parallel replicas and no FSDP is refused on the query, naming the parallel key, as its
// recipe refuses it; with ZeRO-3 it plans, and the search never proposes the other.
TEST(Moe, TorchtitanTakesExpertParallelismFromItsFsdpRanks) {
  const std::string base = R"({"model":"qwen3-30b-a3b","method":"full","framework":"torchtitan","seq_len":4096,)"
                           R"("dataset":{"tokens":1e9},"target":{"offer":"aws/p5.48xlarge/us-east-1"},)";
  const nlohmann::json refused = test::facade("plan", base + R"("parallel":{"dp":16,"ep":16,"zero":0}})");
  ASSERT_FALSE(refused["ok"].get<bool>()) << refused.dump();
  EXPECT_EQ(refused["error"]["field"], "parallel");
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("without FSDP"), std::string::npos);
  const nlohmann::json planned = test::facade("plan", base + R"("parallel":{"dp":16,"ep":16,"zero":3}})");
  ASSERT_TRUE(planned["ok"].get<bool>()) << planned.dump();
  EXPECT_EQ(planned["plan"]["best"]["ep"].get<int>(), 16);
  // Inside the TP ranks EP needs no FSDP: TP 4 x EP 4 on one node, ZeRO-0.
  EXPECT_EQ(framework_layout_error(Framework::torchtitan, Method::full, 4, 1, 1, 1, 0, false, 4), "");
  EXPECT_NE(framework_layout_error(Framework::torchtitan, Method::full, 1, 2, 1, 4, 0, false, 4), "");
  EXPECT_EQ(framework_layout_error(Framework::torchtitan, Method::full, 1, 2, 1, 4, 3, false, 4), "");
}

}  // namespace
}  // namespace trainfit

namespace trainfit {
namespace {

// grad_reduce: Megatron-Core keeps an fp32 gradient buffer by default (accumulate_allreduce_grads_in_fp32); with
// --grad-reduce-in-bf16 it is 16-bit, and any framework can be asked for an fp32 one.
TEST(GradReduce, OverridesTheFrameworksGradientBufferDtype) {
  const ModelSpec* m = find_model("llama-3.1-8b");
  ASSERT_NE(m, nullptr);
  TrainConfig t;
  t.method = Method::full;
  t.precision = Precision::bf16_mixed;
  t.framework = Framework::megatron_core;
  MemoryLayout l;
  l.recompute = Recompute::full;
  const double n = count_params(*m)->total;
  EXPECT_NEAR(estimate_memory(*m, t, l)->gradients, n * 4, 1);
  t.grad_reduce = GradReduce::bf16;
  EXPECT_NEAR(estimate_memory(*m, t, l)->gradients, n * 2, 1);
  t.framework = Framework::generic;
  t.grad_reduce = GradReduce::automatic;
  EXPECT_NEAR(estimate_memory(*m, t, l)->gradients, n * 2, 1);
  t.grad_reduce = GradReduce::fp32;
  EXPECT_NEAR(estimate_memory(*m, t, l)->gradients, n * 4, 1);
  auto q = parse_query_json(R"({"method":"full","grad_reduce":"bf16"})");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  EXPECT_EQ(q->train.grad_reduce, GradReduce::bf16);
  EXPECT_NE(query_to_hash(*q).find("grad_reduce=bf16"), std::string::npos);
  auto bad = parse_query_json(R"({"grad_reduce":"fp16"})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "grad_reduce");
}

}  // namespace
}  // namespace trainfit

namespace trainfit {
namespace {

// The Megatron recipe of an expert-parallel plan carries the EP degree, the experts' shape and the dispatcher the
// time model assumed; a DeepSpeed config or an accelerate file cannot run EP and says so.
TEST(Moe, MegatronRecipeCarriesTheExpertParallelArguments) {
  Query q = test::query_of(
      R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","seq_len":4096,"global_batch":512,)"
      R"("micro_batch":1,"grad_reduce":"bf16","parallel":{"dp":8,"ep":8,"etp":1,"zero":1},"dataset":{"tokens":1e10},)"
      R"("target":{"offer":"nebius/gpu-b200-sxm_8gpu-160vcpu-1792gb/us-central1"}})");
  auto r = make_recipe(q, test::bundled_snapshot());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->engine, "megatron");
  std::string megatron;
  for (const RecipeFile& f : r->files) {
    if (f.format == "megatron") megatron = f.text;
    if (f.format == "deepspeed" || f.format == "accelerate") {
      EXPECT_FALSE(f.applies) << f.format;
      EXPECT_NE(f.why.find("expert"), std::string::npos) << f.why;
    }
  }
  for (const char* want : {"--expert-model-parallel-size 8", "--num-experts 128 --moe-router-topk 8",
                           "--moe-ffn-hidden-size 768", "--moe-grouped-gemm", "--moe-token-dispatcher-type alltoall",
                           "--grad-reduce-in-bf16"})
    EXPECT_NE(megatron.find(want), std::string::npos) << want << "\n" << megatron;
}


// Eight GPUs of data parallelism, the experts split over all of them (whole: ETP 1), micro-batch 2, no recompute.
MemoryLayout ep8_layout() {
  return MemoryLayout{.dp = 8, .ep = 8, .etp = 1, .recompute = Recompute::none, .micro_batch = 2};
}

// Routing: a capacity factor pads every expert to C x its balanced share (Megatron-Core
// --moe-expert-capacity-factor with --moe-pad-expert-input-to-capacity); dropless routing's imbalance reaches the
// busiest GPU only through expert parallelism. Both scale the routed experts' rows: their kept activations, the
// dispatch buffers, the grouped GEMMs and the all-to-alls.
TEST(MoeRouting, CapacityAndImbalanceScaleTheRoutedRowsExactly) {
  const ModelSpec& m = qwen3_moe();
  TrainConfig t = full_training();
  MemoryLayout l = ep8_layout();
  const double dropless = layer_activations(m, t, l)->no_recompute;
  t.moe_capacity_factor = 1.0;  // balanced routing fills each expert exactly: nothing padded
  EXPECT_DOUBLE_EQ(layer_activations(m, t, l)->no_recompute, dropless);
  t.moe_capacity_factor = 1.5;
  const double c15 = layer_activations(m, t, l)->no_recompute;
  t.moe_capacity_factor = 2.0;
  const double c20 = layer_activations(m, t, l)->no_recompute;
  EXPECT_GT(c15, dropless);
  EXPECT_NEAR(c20 - dropless, 2.0 * (c15 - dropless), 1e-6 * dropless);  // linear in C - 1
  // The routed part of a Qwen3-30B-A3B layer: at least the k = 8 expert outputs and their SwiGLU (2 x 768 wide)
  // of 8,192 tokens, in bf16.
  EXPECT_GT(c20 - dropless, 8192.0 * 8 * (2048 + 2 * 768) * 2);
  t.moe_capacity_factor = 0;
  t.moe_imbalance = 1.5;
  EXPECT_DOUBLE_EQ(layer_activations(m, t, l)->no_recompute, c15);  // the same rows on the busiest GPU
  l.ep = 1;
  l.dp = 8;
  EXPECT_DOUBLE_EQ(layer_activations(m, t, l)->no_recompute,
                   [&] { TrainConfig b = t; b.moe_imbalance = 1; return layer_activations(m, b, l)->no_recompute; }());
  // Dispatch buffers: sent and received, each k x tokens x hidden; the busiest rank receives 1.5x.
  l.ep = 8;
  TrainConfig b = full_training();
  const double d1 = MemoryEstimator(m, b).estimate(l)->moe_dispatch;
  EXPECT_DOUBLE_EQ(d1, 2.0 * 8192 * 8 * 2048 * 2);
  EXPECT_DOUBLE_EQ(MemoryEstimator(m, t).estimate(l)->moe_dispatch, 1.25 * d1);
  b.moe_capacity_factor = 1.25;
  EXPECT_DOUBLE_EQ(MemoryEstimator(m, b).estimate(l)->moe_dispatch, 1.25 * d1);
  // torchtitan's op-level policy saves the all-to-all results (2 x k x hidden per token, bf16): the received copies
  // grow with the imbalance, the returned outputs do not.
  TrainConfig tt = full_training(Framework::torchtitan);
  l.recompute = Recompute::selective;
  const double saved = layer_activations(m, tt, l)->stored;
  tt.moe_imbalance = 1.5;
  EXPECT_NEAR(layer_activations(m, tt, l)->stored - saved, 0.5 * 0.5 * (2.0 * 8 * 2048 * 2) * 8192, 1.0);
}

// Megatron-Core applies the routing scores inside the experts' fused SwiGLU (moe/experts.py TEGroupedMLP:
// weighted_bias_swiglu_impl), so its routed rows keep fc1's input, the activation's 2i-wide input and fc2's input and
// no expert output; the Hugging Face block multiplies the expert output by its score and keeps it.
TEST(MoeRouting, MegatronKeepsNoExpertOutputForTheScoreMultiply) {
  const ModelSpec& m = qwen3_moe();
  const MemoryLayout l = ep8_layout();
  // The routed rows' bytes: capacity factor 2 pads them to twice their dropless size.
  auto routed = [&](TrainConfig t) {
    const double dropless = layer_activations(m, t, l)->no_recompute;
    t.moe_capacity_factor = 2.0;
    return layer_activations(m, t, l)->no_recompute - dropless;
  };
  const double tokens = 2.0 * 4096, k = 8, h = 2048, i = 768;
  EXPECT_NEAR(routed(full_training(Framework::megatron_core)), tokens * k * (2 * h + 2 * 2 * i + 2 * i), 1.0);
  // Hugging Face's eager block: the gate and up outputs, the activation and the product, and the kept expert output.
  EXPECT_NEAR(routed(full_training(Framework::hf_trainer)), tokens * k * (2 * h + 3 * 2 * i + 2 * i + 2 * h), 1.0);
}

TEST(MoeRouting, TheBusiestRankSetsTheStep) {
  const Offer& offer = b200_node();
  const TrainConfig t = fixed_ep_job(Framework::megatron_core, 8, 8, 1, 2);
  auto step = [&](const TrainConfig& c) { return fixed_step(c, offer, 1); };
  const StepTime base = step(t);
  TrainConfig c = t;
  c.moe_capacity_factor = 1.0;
  EXPECT_DOUBLE_EQ(step(c).total_s, base.total_s);
  c.moe_capacity_factor = 1.25;
  const StepTime padded = step(c);
  EXPECT_GT(padded.compute_s, base.compute_s);
  EXPECT_NEAR(padded.ep_comm_s, 1.25 * base.ep_comm_s, 0.02 * base.ep_comm_s);  // latency aside, 1.25x the bytes
  c.moe_capacity_factor = 0;
  c.moe_imbalance = 1.25;
  EXPECT_NEAR(step(c).total_s, padded.total_s, 1e-9);
  // Without expert parallelism every GPU computes all its tokens' routes: an imbalance changes nothing.
  c.parallel.ep = 1;
  c.parallel.zero = 3;  // Megatron-FSDP: without EP the experts' states need sharding to fit
  TrainConfig e1 = t;
  e1.parallel.ep = 1;
  e1.parallel.zero = 3;
  EXPECT_DOUBLE_EQ(step(c).total_s, step(e1).total_s);
}

TEST(MoeRouting, QueryKeysCheckedAndTheMegatronRecipeWritesTheCapacity) {
  const std::string base =
      R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","seq_len":4096,"global_batch":512,)"
      R"("micro_batch":1,"parallel":{"dp":8,"ep":8,"etp":1,"zero":1},"dataset":{"tokens":1e10},)"
      R"("target":{"offer":"nebius/gpu-b200-sxm_8gpu-160vcpu-1792gb/us-central1"},)";
  Query q = test::query_of((base + R"("moe":{"capacity_factor":1.25}})").c_str());
  EXPECT_EQ(q.train.moe_capacity_factor, 1.25);
  auto back = parse_query_hash(query_to_hash(q));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->train.moe_capacity_factor, 1.25);
  auto r = make_recipe(q, test::bundled_snapshot());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  std::string megatron;
  for (const RecipeFile& f : r->files)
    if (f.format == "megatron") megatron = f.text;
  EXPECT_NE(megatron.find("--moe-expert-capacity-factor 1.25 --moe-pad-expert-input-to-capacity"), std::string::npos)
      << megatron;
  // Refused, naming the key: another framework (dropless only), a dense model, both keys, out of range.
  auto refused = [](const std::string& text, const char* field, const char* words) {
    auto p = parse_query_json(text);
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_EQ(p.error().field, field) << text;
    EXPECT_NE(p.error().message.find(words), std::string::npos) << p.error().message;
  };
  refused(R"({"model":"qwen3-30b-a3b","method":"full","framework":"torchtitan","moe":{"capacity_factor":1}})",
          "moe.capacity_factor", "dropless");
  refused(R"({"model":"llama-3.1-8b","moe":{"imbalance":1.2}})", "moe.imbalance", "mixture-of-experts");
  refused(R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","moe":{"capacity_factor":1,"imbalance":1.2}})",
          "moe.imbalance", "not both");
  refused(R"({"model":"qwen3-30b-a3b","moe":{"imbalance":0.5}})", "moe.imbalance", "too small");
  refused(R"({"model":"qwen3-30b-a3b","moe":{"capacity_factor":-1}})", "moe.capacity_factor", "too small");
  refused(R"({"model":"qwen3-30b-a3b","moe":{"capacity_factor":17}})", "moe.capacity_factor", "too large");
  refused(R"({"model":"qwen3-30b-a3b","moe":{"dropless":true}})", "moe.dropless", "unknown key");
  refused(R"({"model":"qwen3-30b-a3b","moe":1.25})", "moe", "");
}

// The token dispatcher (moe.dispatcher). torchtitan's default path pays its dispatch overhead (framework.cpp
// moe_dispatch_overhead_s_per_GB); DeepEP does not, so on one node the step's expert-parallel time drops by exactly that overhead. Across
// nodes DeepEP sends a token once per destination node, the plain all-to-all once per routed expert.
TEST(MoeDispatcher, DeepEpDropsTheOverheadAndSendsOncePerNode) {
  // The B200 node, clustered over 8 x 400 Gb/s InfiniBand (a DGX B200's NICs).
  Offer offer = b200_node();
  offer.inter_net = NetKind::infiniband;
  offer.inter_net_Gbps = 3200;
  offer.max_nodes = 4;
  const TrainConfig t = fixed_ep_job(Framework::torchtitan, 8, 8, 3, 8);
  auto step = [&](const TrainConfig& c, int nodes) { return fixed_step(c, offer, nodes); };
  const StepTime dflt = step(t, 1);
  TrainConfig deepep = t;
  deepep.moe_dispatcher = MoeDispatcher::deepep;
  const StepTime fused = step(deepep, 1);
  EXPECT_LT(fused.total_s, dflt.total_s);
  // The dispatched bytes per MoE layer and micro-batch, each way: 8 x 4096 tokens x k 8 x hidden 2048 x 2 B.
  const double gb_per_layer = 8.0 * 4096 * 8 * 2048 * 2 / 1e9;
  const double overhead = framework_profile(Framework::torchtitan).moe_dispatch_overhead_s_per_GB;
  EXPECT_GT(overhead, 0.0);
  // Six all-to-alls per MoE layer and micro-batch under full recompute (dispatch and combine in forward, again in
  // the recomputed forward, and in backward), 48 MoE layers, one micro-batch.
  const double expected = 6 * 48 * gb_per_layer * overhead;
  EXPECT_NEAR(dflt.ep_comm_s - fused.ep_comm_s, expected, 1e-6 * expected);
  TrainConfig a2a = t;
  a2a.moe_dispatcher = MoeDispatcher::alltoall;
  EXPECT_DOUBLE_EQ(step(a2a, 1).total_s, dflt.total_s);  // torchtitan's default is its all-to-all
  // Megatron-Core, EP 16 over two nodes: its default (flex / DeepEP across nodes) is DeepEP; the plain all-to-all
  // sends more across the NICs; inside one node the two cost the same.
  TrainConfig m = fixed_ep_job(Framework::megatron_core, 16, 16, 1, 2);
  const StepTime mauto = step(m, 2);
  TrainConfig mdeep = m;
  mdeep.moe_dispatcher = MoeDispatcher::deepep;
  EXPECT_DOUBLE_EQ(step(mdeep, 2).total_s, mauto.total_s);
  TrainConfig mall = m;
  mall.moe_dispatcher = MoeDispatcher::alltoall;
  EXPECT_GT(step(mall, 2).ep_comm_s, mauto.ep_comm_s);
  m.parallel.gpus = m.parallel.dp = m.parallel.ep = 8;
  mall.parallel = m.parallel;
  EXPECT_DOUBLE_EQ(step(mall, 1).total_s, step(m, 1).total_s);
}

TEST(MoeDispatcher, QueryKeyCheckedAndTheMegatronRecipeWritesIt) {
  const std::string base =
      R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","seq_len":4096,"global_batch":512,)"
      R"("micro_batch":1,"parallel":{"dp":8,"ep":8,"etp":1,"zero":1},"dataset":{"tokens":1e10},)"
      R"("target":{"offer":"nebius/gpu-b200-sxm_8gpu-160vcpu-1792gb/us-central1"},)";
  auto megatron_args = [](const Query& q) {
    auto r = make_recipe(q, test::bundled_snapshot());
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    std::string text;
    if (r.ok())
      for (const RecipeFile& f : r->files)
        if (f.format == "megatron") text = f.text;
    return text;
  };
  // Inside one node the default is the all-to-all; DeepEP asked for is written as the flex dispatcher.
  EXPECT_NE(megatron_args(test::query_of((base + R"("loss_chunks":0})").c_str())).find("--moe-token-dispatcher-type alltoall"),
            std::string::npos);
  Query q = test::query_of((base + R"("moe":{"dispatcher":"deepep"}})").c_str());
  EXPECT_EQ(q.train.moe_dispatcher, MoeDispatcher::deepep);
  auto back = parse_query_hash(query_to_hash(q));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->train.moe_dispatcher, MoeDispatcher::deepep);
  EXPECT_NE(megatron_args(q).find("--moe-token-dispatcher-type flex --moe-enable-deepep"), std::string::npos);
  auto refused = [](const std::string& text, const char* field, const char* words) {
    auto p = parse_query_json(text);
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_EQ(p.error().field, field) << text;
    EXPECT_NE(p.error().message.find(words), std::string::npos) << p.error().message;
  };
  refused(R"({"model":"llama-3.1-8b","moe":{"dispatcher":"alltoall"}})", "moe.dispatcher", "mixture-of-experts");
  refused(R"({"model":"qwen3-30b-a3b","method":"full","framework":"nanotron","moe":{"dispatcher":"deepep"}})",
          "moe.dispatcher", "nanotron runs no expert parallelism");
  refused(R"({"model":"qwen3-30b-a3b","method":"full","framework":"hf-trainer","moe":{"dispatcher":"alltoall"}})",
          "moe.dispatcher", "no expert parallelism");
  refused(R"({"model":"qwen3-30b-a3b","method":"lora","framework":"generic","moe":{"dispatcher":"deepep"}})",
          "moe.dispatcher", "no expert parallelism for lora");
  refused(R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","moe":{"capacity_factor":1.25,)"
          R"("dispatcher":"deepep"}})",
          "moe.dispatcher", "capacity factor");
  refused(R"({"model":"qwen3-30b-a3b","moe":{"dispatcher":"nccl"}})", "moe.dispatcher", "");
  // A plan without expert parallelism keeps the all-to-all arguments (Megatron's flex dispatcher needs TP x EP > 1).
  Query no_ep = test::query_of(
      R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","seq_len":4096,"global_batch":512,)"
      R"("micro_batch":1,"parallel":{"dp":8,"zero":3},"moe":{"dispatcher":"deepep"},"dataset":{"tokens":1e10},)"
      R"("target":{"offer":"nebius/gpu-b200-sxm_8gpu-160vcpu-1792gb/us-central1"}})");
  EXPECT_NE(megatron_args(no_ep).find("--moe-token-dispatcher-type alltoall"), std::string::npos);
  // torchtitan plans launch torchtitan: its job config names the expert-parallel backend, the default all-to-all
  // ("standard": no key) unless the plan runs DeepEP; the Megatron arguments do not apply.
  const std::string titan =
      R"({"model":"qwen3-30b-a3b","method":"full","framework":"torchtitan","seq_len":4096,"global_batch":128,)"
      R"("micro_batch":8,"recompute":"full","parallel":{"dp":16,"ep":16,"etp":1,"zero":3},"dataset":{"tokens":1e10},)"
      R"("target":{"offer":"aws/p6-b200.48xlarge/us-east-1","nodes":2},)";
  auto titan_file = [](const Query& q) {
    auto r = make_recipe(q, test::bundled_snapshot());
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    std::string text;
    if (r.ok()) {
      EXPECT_EQ(r->engine, "torchtitan");
      for (const RecipeFile& f : r->files) {
        if (f.format == "torchtitan") text = f.text;
        if (f.format == "megatron") {
          EXPECT_FALSE(f.applies);
        }
      }
    }
    return text;
  };
  const std::string standard = titan_file(test::query_of((titan + R"("loss_chunks":0})").c_str()));
  EXPECT_NE(standard.find("expert_parallel_degree = 16\n"), std::string::npos) << standard;
  EXPECT_EQ(standard.find("expert_parallel_comm_backend"), std::string::npos) << standard;
  EXPECT_NE(titan_file(test::query_of((titan + R"("moe":{"dispatcher":"deepep"}})").c_str()))
                .find("expert_parallel_comm_backend = \"deepep\"\n"),
            std::string::npos);
}

// Megatron-Core's module-level selective recompute (--recompute-modules; megatron/core/transformer/
// transformer_config.py): moe_act drops the routed experts' activation output (fc2's input, k x f_e elements per
// token of every MoE layer, split by TP); moe drops the whole block but its input and re-runs its GEMMs and all-to-alls.
TEST(RecomputeModules, MoeActDropsTheExpertActivationOutputExactly) {
  const ModelSpec& m = qwen3_moe();
  TrainConfig t = full_training();
  MemoryLayout l;
  l.tp = 2;
  l.dp = 4;
  l.ep = 4;
  l.etp = 1;
  l.sequence_parallel = true;
  l.recompute = Recompute::selective;
  const LayerActivations core = *layer_activations(m, t, l);
  t.recompute_modules = kRecomputeCoreAttn | kRecomputeMoeAct;
  const LayerActivations act = *layer_activations(m, t, l);
  // 4096 tokens x top-8 x width 768 x 2 bytes (bf16 fc2 input), over TP 2: 24 MiB per layer.
  EXPECT_NEAR(core.stored - act.stored, 4096.0 * 8 * 768 * 2 / 2, 1.0);
  t.recompute_modules = kRecomputeLayernorm | kRecomputeMoe;
  const LayerActivations whole = *layer_activations(m, t, l);
  EXPECT_LT(whole.stored, act.stored);
  EXPECT_GE(whole.stored, 4096.0 * 2 * 2048 / 2);  // at least the layer's input (SP: / TP)
  EXPECT_EQ(whole.no_recompute, core.no_recompute);
}

TEST(RecomputeModules, FlopsCountTheModulesReRunAndNotTheAttentionCore) {
  const ModelSpec& m = qwen3_moe();
  const ParamCounts pc = *count_params(m);
  TrainConfig t = full_training();
  const FlopsPerToken core = *flops_per_token(m, pc, t, Recompute::selective);
  EXPECT_TRUE(core.attention_recomputed);
  EXPECT_DOUBLE_EQ(core.recompute, core.attention_forward);
  t.recompute_modules = kRecomputeLayernorm | kRecomputeMoeAct;  // element-wise kernels only
  const FlopsPerToken act = *flops_per_token(m, pc, t, Recompute::selective);
  EXPECT_FALSE(act.attention_recomputed);
  EXPECT_DOUBLE_EQ(act.recompute, 0.0);
  t.recompute_modules = kRecomputeLayernorm | kRecomputeMoe;
  const FlopsPerToken moe = *flops_per_token(m, pc, t, Recompute::selective);
  // 48 MoE layers x (router 2 h E + top-8 SwiGLU experts 2 x 3 x k h f_e).
  EXPECT_DOUBLE_EQ(moe.recompute, 48.0 * (2.0 * 2048 * 128 + 2.0 * 3 * 8 * 2048 * 768));
  EXPECT_DOUBLE_EQ(moe.recompute_modules, moe.recompute);
  EXPECT_DOUBLE_EQ(moe.model, core.model);
}

TEST(RecomputeModules, QueryKeyCheckedOnEverySurface) {
  const std::string base =
      R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","recompute":"selective",)";
  Result<Query> q = parse_query_json(base + R"("recompute_modules":["moe","layernorm"]})");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  EXPECT_EQ(q->train.recompute_modules, uint32_t(kRecomputeLayernorm | kRecomputeMoe));
  // The link form writes Megatron's names in table order and reads them back; an empty value is the empty list.
  const std::string hash = query_to_hash(*q);
  EXPECT_NE(hash.find("recompute_modules=layernorm%2Cmoe"), std::string::npos) << hash;
  Result<Query> back = parse_query_hash(hash);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->train.recompute_modules, q->train.recompute_modules);
  Result<Query> none = parse_query_hash("model=qwen3-30b-a3b&method=full&framework=megatron-core&recompute_modules=");
  ASSERT_TRUE(none.ok()) << none.error().to_string();
  EXPECT_EQ(none->train.recompute_modules, 0u);
  auto refused = [&](const std::string& text, const char* words) {
    Result<Query> r = parse_query_json(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().field, "recompute_modules") << r.error().to_string();
    EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().to_string();
  };
  refused(base + R"("recompute_modules":["attn"]})", "expected some of: core_attn");
  refused(R"({"model":"qwen3-30b-a3b","method":"full","framework":"torchtitan","recompute_modules":["moe"]})",
          "only megatron-core");
  // Under recompute full the list is accepted and ignored, as Megatron ignores it outside selective granularity.
  EXPECT_TRUE(parse_query_json(base.substr(0, base.find("\"recompute\"")) + R"("recompute":"full","recompute_modules":["moe"]})").ok());
  refused(R"({"model":"llama-3.1-8b","method":"full","framework":"megatron-core","recompute_modules":["moe_act"]})",
          "mixture-of-experts");
  refused(base + R"("recompute_modules":["mla_up_proj"]})", "multi-head latent attention");
  refused(base + R"("recompute_modules":["shared_experts"]})", "shared experts");
  refused(base + R"("recompute_modules":["mlp"]})", "every layer of this model is MoE");
  refused(R"({"model":"qwen3-30b-a3b","method":"lora","framework":"megatron-core","recompute_modules":["moe"]})",
          "full training only");
}

// The JSON documents name the module list where it is not the default (the plan's text does too), and leave the key
// out otherwise, so default queries' documents are as they were.
TEST(RecomputeModules, PlanAndEstimateDocumentsCarryTheList) {
  const std::string job =
      R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","recompute":"selective",)"
      R"("parallel":{"dp":8,"ep":8,"etp":1,"zero":1},"micro_batch":1,"global_batch":64,"dataset":{"tokens":1e10},)"
      R"("target":{"offer":"nebius/gpu-b200-sxm_8gpu-160vcpu-1792gb/us-central1","gpu":"b200"})";
  const nlohmann::json plan = test::facade("plan", job + R"(,"recompute_modules":["moe","layernorm"]})");
  ASSERT_EQ(plan["ok"], true) << plan.dump();
  EXPECT_EQ(plan["plan"]["best"]["recompute_modules"], nlohmann::json::parse(R"(["layernorm","moe"])"));
  EXPECT_NE(plan["plan"]["best"]["summary"].get<std::string>().find("selective (layernorm, moe) recompute"),
            std::string::npos);
  const nlohmann::json est = test::facade("estimate", job + R"(,"recompute_modules":[]})");
  ASSERT_EQ(est["ok"], true) << est.dump();
  EXPECT_EQ(est["recompute_modules"], nlohmann::json::array());
  const nlohmann::json plain = test::facade("plan", job + "}");
  ASSERT_EQ(plain["ok"], true) << plain.dump();
  EXPECT_FALSE(plain["plan"]["best"].contains("recompute_modules"));
  EXPECT_EQ(plain["plan"]["best"]["summary"].get<std::string>().find("selective ("), std::string::npos);
}

TEST(RecomputeModules, MegatronRecipeWritesTheModuleList) {
  const std::string megatron = test::recipe_file(
      R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","seq_len":4096,"global_batch":512,)"
      R"("micro_batch":1,"recompute":"selective","recompute_modules":["layernorm","moe_act"],)"
      R"("parallel":{"dp":8,"ep":8,"etp":1,"zero":1},"dataset":{"tokens":1e10},)"
      R"("target":{"offer":"nebius/gpu-b200-sxm_8gpu-160vcpu-1792gb/us-central1"}})",
      "megatron");
  EXPECT_NE(megatron.find("--recompute-granularity selective --recompute-modules layernorm moe_act"), std::string::npos)
      << megatron;
}

// Under recompute auto a megatron-core MoE job also tries the published recipes' module lists: Qwen3-235B-A22B at
// 128k tokens on 32 p5 nodes plans as Megatron-MoE-ModelZoo ran it (layernorm, moe), faster than full recompute,
// and its recipe carries the list the plan chose. A list the query names, or a dense model, keeps the query's.
TEST(RecomputeModules, AutoTriesThePublishedListsForMegatronMoe) {
  const std::string job =
      R"({"model":"qwen3-235b-a22b","method":"full","framework":"megatron-core","precision":"bf16-mixed",)"
      R"("seq_len":131072,"global_batch":256,"dataset":{"tokens":1e9},)"
      R"("target":{"offer":"aws/p5.48xlarge/us-west-2","nodes":32})";
  const nlohmann::json plan = test::facade("plan", job + R"(,"recompute":"auto"})");
  ASSERT_EQ(plan["ok"], true) << plan.dump();
  const nlohmann::json& best = plan["plan"]["best"];
  EXPECT_NE(best["summary"].get<std::string>().find("selective (layernorm, moe) recompute"), std::string::npos)
      << best["summary"];
  EXPECT_EQ(best["recompute_modules"], nlohmann::json::parse(R"(["layernorm","moe"])"));
  const nlohmann::json full = test::facade("plan", job + R"(,"recompute":"full"})");
  ASSERT_EQ(full["ok"], true) << full.dump();
  EXPECT_LT(best["step"]["total_s"].get<double>(), full["plan"]["best"]["step"]["total_s"].get<double>());
  // The plan's layout with its list, fixed: the same step (plan = estimate of what the plan names).
  nlohmann::json fixed = nlohmann::json::parse(job + "}");
  fixed["recompute"] = best["recompute"];
  fixed["recompute_modules"] = best["recompute_modules"];
  fixed["micro_batch"] = best["micro_batch"];
  fixed["parallel"] = {{"tp", best["tp"]}, {"pp", best["pp"]}, {"dp", best["dp"]}, {"cp", best["cp"]},
                       {"vp", best["vp"]}, {"ep", best["ep"]}, {"etp", best["etp"]}, {"zero", best["zero"]},
                       {"sequence_parallel", best["sequence_parallel"]}};
  const nlohmann::json again = test::facade("plan", fixed.dump());
  ASSERT_EQ(again["ok"], true) << again.dump();
  EXPECT_EQ(again["plan"]["best"]["step"]["total_s"], best["step"]["total_s"]);

  // Calibrating on a measured step times the plan as planned, with its list.
  const nlohmann::json cal = test::facade(
      "calibrate", job + R"(,"recompute":"auto","calibration":{"offer":"aws/p5.48xlarge/us-west-2","nodes":32,)"
                         R"("step_time_s":500}})");
  ASSERT_EQ(cal["ok"], true) << cal.dump();
  EXPECT_NEAR(cal["estimated_step_s"].get<double>(), best["step"]["total_s"].get<double>(),
              1e-9 * best["step"]["total_s"].get<double>());

  const std::string megatron = test::recipe_file((job + R"(,"recompute":"auto"})").c_str(), "megatron");
  EXPECT_NE(megatron.find("--recompute-granularity selective --recompute-modules layernorm moe\n"), std::string::npos)
      << megatron;

  // The same list asked for (recompute selective) plans the same layout: the node count's leanest layouts by
  // model-state sharding (high PP) hold too many micro-batches' activations at 128k, and the search looks past them
  // (it answered "does not fit" before).
  const nlohmann::json asked =
      test::facade("plan", job + R"(,"recompute":"selective","recompute_modules":["layernorm","moe"]})");
  ASSERT_EQ(asked["ok"], true) << asked.dump();
  EXPECT_EQ(asked["plan"]["best"]["summary"], best["summary"]) << asked["plan"].value("why_not", "");
  EXPECT_EQ(asked["plan"]["best"]["step"]["total_s"], best["step"]["total_s"]);

  const nlohmann::json named = test::facade("plan", job + R"(,"recompute":"auto","recompute_modules":["layernorm","moe_act"]})");
  ASSERT_EQ(named["ok"], true) << named.dump();
  EXPECT_EQ(named["plan"]["best"]["summary"].get<std::string>().find("(layernorm, moe)"), std::string::npos);
  const nlohmann::json dense = test::facade(
      "plan", R"({"model":"llama-3.1-70b","method":"full","framework":"megatron-core","seq_len":131072,)"
              R"("global_batch":256,"dataset":{"tokens":1e9},"target":{"offer":"aws/p5.48xlarge/us-west-2","nodes":32}})");
  ASSERT_EQ(dense["ok"], true) << dense.dump();
  EXPECT_EQ(dense["plan"]["best"]["summary"].get<std::string>().find("selective ("), std::string::npos);
}

// A recomputed MoE block dispatches and combines once more: with EP its all-to-all time grows by half.
TEST(RecomputeModules, TheMoeModuleRepeatsTheAllToAlls) {
  const ModelSpec& m = qwen3_moe();
  TrainConfig t = full_training();
  t.global_batch = 64;
  const GpuSpec h100 = test::gpu("h100-sxm");
  const GpuSpec* g = &h100;
  Offer o;
  o.id = "test/h100x8";
  o.gpu_count = 8;
  o.intra_link = LinkClass::nvswitch;
  o.intra_link_GBps = g->nvlink_GBps;
  o.max_nodes = 1;
  MemoryLayout l;
  l.dp = 8;
  l.ep = 8;
  l.etp = 1;
  l.zero = 1;
  l.micro_batch = 1;
  l.num_microbatches = 8;
  l.gpus_per_node = 8;
  l.recompute = Recompute::selective;
  t.recompute_modules = kRecomputeLayernorm | kRecomputeMoeAct;
  const LayoutTiming act = *time_layout(m, t, *g, o, 1, l, 64);
  t.recompute_modules = kRecomputeLayernorm | kRecomputeMoe;
  const LayoutTiming moe = *time_layout(m, t, *g, o, 1, l, 64);
  EXPECT_NEAR(moe.step.ep_comm_s, 1.5 * act.step.ep_comm_s, 1e-9 * act.step.ep_comm_s);
  EXPECT_GT(moe.step.recompute_s, act.step.recompute_s);
}

}  // namespace
}  // namespace trainfit

namespace trainfit {
namespace {

// Megatron-Core's --overlap-moe-expert-parallel-comm (TrainConfig moe_a2a_overlap): the all-to-alls hide behind
// another micro-batch's compute, up to the overlap window and never below a fifth of them; the combined 1F1B
// schedule warms up one micro-batch more, so its activations are in flight too.
TEST(MoeA2aOverlap, HidesTheAllToAllsAndHoldsOneMicroBatchMore) {
  Offer offer = b200_node();
  offer.inter_net = NetKind::infiniband;
  offer.inter_net_Gbps = 3200;
  offer.max_nodes = 4;
  TrainConfig t = fixed_ep_job(Framework::megatron_core, 16, 16, 1, 2);
  t.recompute = Recompute::none;
  const StepTime plain = fixed_step(t, offer, 2);
  TrainConfig o = t;
  o.moe_a2a_overlap = true;
  const StepTime over = fixed_step(o, offer, 2);
  ASSERT_GT(plain.ep_comm_s, 0.0);
  EXPECT_DOUBLE_EQ(plain.ep_exposed_s, plain.ep_comm_s);     // synchronous without it
  EXPECT_DOUBLE_EQ(over.ep_comm_s, plain.ep_comm_s);          // the same traffic
  EXPECT_LT(over.ep_exposed_s, plain.ep_exposed_s);
  EXPECT_GE(over.ep_exposed_s, 0.2 * over.ep_comm_s - 1e-12);  // at least (1 - kOverlap) stays on the critical path
  EXPECT_NEAR(plain.total_s - over.total_s, plain.ep_exposed_s - over.ep_exposed_s, 1e-9 * plain.total_s);
  // Memory: without a pipeline the next micro-batch's forward runs beside the current one's backward: twice the
  // stored activations of one micro-batch (4 micro-batches per step here: 64 / (16 x 2)).
  MemoryLayout l;
  l.dp = 16;
  l.ep = 16;
  l.etp = 1;
  l.zero = 1;
  l.micro_batch = 2;
  l.num_microbatches = 2;
  const MemoryBreakdown a = *estimate_memory(qwen3_moe(), t, l);
  const MemoryBreakdown b = *estimate_memory(qwen3_moe(), o, l);
  EXPECT_EQ(a.microbatches_in_flight, 1);
  EXPECT_EQ(b.microbatches_in_flight, 2);
  EXPECT_NEAR(b.activations - a.activations, a.activations_per_layer * 48, 1e-6 * a.activations);
  // One micro-batch per step: nothing to overlap with, nothing more in flight.
  l.num_microbatches = 1;
  EXPECT_DOUBLE_EQ(estimate_memory(qwen3_moe(), o, l)->activations, estimate_memory(qwen3_moe(), t, l)->activations);
  // Interleaved pipeline (PP 2 x VP 4, 8 micro-batches): one chunk pass (48 / 8 = 6 layers) more on the first stage.
  l.num_microbatches = 8;
  l.dp = 8;
  l.ep = 8;
  l.pp = 2;
  l.vp = 4;
  const MemoryBreakdown c = *estimate_memory(qwen3_moe(), t, l);
  const MemoryBreakdown d = *estimate_memory(qwen3_moe(), o, l);
  EXPECT_NEAR(d.activations - c.activations, c.activations_per_layer * 6, 1e-6 * c.activations);
  // Without expert parallelism the overlap does not run, and changes nothing.
  l.ep = 1;
  EXPECT_DOUBLE_EQ(estimate_memory(qwen3_moe(), o, l)->total, estimate_memory(qwen3_moe(), t, l)->total);
}

TEST(MoeA2aOverlap, MegatronRulesOnTheQueryThePlannerAndTheRecipe) {
  auto refused = [](const std::string& text, const char* words) {
    auto p = parse_query_json(text);
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_EQ(p.error().field, "moe.a2a_overlap") << text;
    EXPECT_NE(p.error().message.find(words), std::string::npos) << p.error().message;
  };
  refused(R"({"model":"llama-3.1-8b","method":"full","framework":"megatron-core","moe":{"a2a_overlap":true}})",
          "mixture-of-experts");
  refused(R"({"model":"qwen3-30b-a3b","method":"full","framework":"torchtitan","moe":{"a2a_overlap":true}})",
          "torchtitan has no expert-parallel all-to-all overlap");
  refused(R"({"model":"qwen3-30b-a3b","method":"lora","framework":"megatron-core","moe":{"a2a_overlap":true}})",
          "for lora");
  refused(R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","recompute":"full",)"
          R"("moe":{"a2a_overlap":true}})",
          "full recompute");
  refused(R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","precision":"fp32",)"
          R"("moe":{"a2a_overlap":true}})",
          "bf16 or fp16");
  refused(R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","global_batch":64,)"
          R"("parallel":{"pp":2,"dp":8,"ep":8,"zero":1},"moe":{"a2a_overlap":true}})",
          "virtual pipeline stages");
  refused(R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","global_batch":64,)"
          R"("parallel":{"dp":8,"zero":1},"moe":{"a2a_overlap":true}})",
          "expert parallelism");
  refused(R"({"model":"qwen3-30b-a3b","moe":{"a2a_overlap":1}})", "");
  // The key round-trips through the URL hash.
  const Query q = test::query_of(
      R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","seq_len":4096,"global_batch":512,)"
      R"("moe":{"a2a_overlap":true},"dataset":{"tokens":1e10},)"
      R"("target":{"offer":"aws/p6-b200.48xlarge/us-east-1","nodes":2}})");
  auto back = parse_query_hash(query_to_hash(q));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_TRUE(back->train.moe_a2a_overlap);
  // The search proposes only what Megatron-Core launches with it: EP > 1, VP > 1 where PP > 1, no full recompute;
  // every such plan says so, and its Megatron arguments carry the flag.
  const Snapshot& snap = test::bundled_snapshot();
  const Offer& offer = snap.offers[snap.find_offer("aws/p6-b200.48xlarge/us-east-1")];
  Dataset d;
  d.tokens = 1e10;
  auto r = plan_job(qwen3_moe(), q.train, d, snap.gpus[offer.gpu], offer, 2);
  ASSERT_TRUE(r.ok() && r->fits) << (r.ok() ? r->why_not : r.error().to_string());
  for (const Plan& p : r->by_nodes) {
    if (p.tokens_per_s <= 0) continue;
    EXPECT_GT(p.layout.ep, 1) << plan_summary(p);
    EXPECT_TRUE(p.layout.pp == 1 || p.layout.vp > 1) << plan_summary(p);
    EXPECT_NE(p.layout.recompute, Recompute::full) << plan_summary(p);
    EXPECT_TRUE(p.a2a_overlap);
    EXPECT_NE(plan_summary(p).find("overlapped"), std::string::npos) << plan_summary(p);
  }
  auto recipe = make_recipe(q, snap);
  ASSERT_TRUE(recipe.ok()) << recipe.error().to_string();
  bool written = false;
  for (const RecipeFile& f : recipe->files)
    if (f.format == "megatron") written = f.text.find("--overlap-moe-expert-parallel-comm") != std::string::npos;
  EXPECT_TRUE(written);
}

}  // namespace
}  // namespace trainfit
