// Framework profiles: the planner proposes only what the query's framework can launch, names what
// it skipped, and the memory counts the buffers the framework keeps.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "facade_helpers.h"
#include "trainfit/facade/api.h"
#include "trainfit/storage/bundled.h"
#include "trainfit/catalog/framework.h"
#include "trainfit/estimate/memory.h"
#include "trainfit/catalog/model.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {
namespace {
using json = nlohmann::json;

json call(const char* verb, const std::string& q) { return test::facade(verb, q); }

// "QLoRA of Llama 3.1 8B on 4x L4 with TP 2" was once proposed; under hf-trainer QLoRA is DDP or FSDP only.
TEST(Framework, QloraUnderHfTrainerIsNeverPlannedWithTpOrPp) {
  for (const char* offer : {"aws/g6.12xlarge/us-east-1", "aws/p5.48xlarge/us-east-1", "aws/g5.12xlarge/us-east-1"}) {
    const json p = call("plan", std::string(R"({"model":"llama-3.1-8b","method":"qlora","framework":"hf-trainer",
        "target":{"offer":")") + offer + R"("}})");
    ASSERT_TRUE(p["ok"].get<bool>()) << p.dump();
    if (!p["plan"]["fits"].get<bool>()) continue;
    for (const json& b : p["plan"]["by_nodes"]) {
      if (b["verdict"] == "no_fit") continue;
      EXPECT_EQ(b["tp"], 1) << offer;
      EXPECT_EQ(b["pp"], 1) << offer;
    }
    EXPECT_EQ(p["plan"]["framework"], "hf-trainer");
  }
  // The ranking over every offer never does either.
  const json r = call("rank", R"({"model":"llama-3.1-8b","method":"qlora","framework":"hf-trainer","top":2000})");
  for (const json& row : r["rows"]) {
    if (row["state"] != "ranked") continue;
    const std::string plan = row["plan"].get<std::string>();
    EXPECT_NE(plan.find("TP 1, PP 1,"), std::string::npos) << plan;
  }
}

TEST(Framework, SkippedLayoutsAreNamedNotSupportedByTheFramework) {
  const json p = call("plan", R"({"model":"mixtral-8x7b","method":"lora","framework":"hf-trainer",
      "target":{"offer":"aws/p5.48xlarge/us-east-1"}})");
  ASSERT_TRUE(p["ok"].get<bool>());
  bool named = false;
  for (const json& w : p["plan"]["warnings"])
    named = named || w["message"].get<std::string>().find("not supported by hf-trainer") != std::string::npos;
  EXPECT_TRUE(named) << p["plan"]["warnings"].dump();
}

TEST(Framework, AFixedLayoutTheFrameworkCannotRunIsRefusedWithTheReason) {
  const json e = call("estimate", R"({"method":"qlora","framework":"hf-trainer","parallel":{"gpus":4,"tp":2,"dp":2}})");
  EXPECT_FALSE(e["ok"].get<bool>());
  EXPECT_EQ(e["error"]["field"], "parallel");
  EXPECT_NE(e["error"]["message"].get<std::string>().find("not supported by hf-trainer"), std::string::npos);
  const json m = call("rank", R"({"method":"qlora","framework":"megatron-core"})");
  EXPECT_EQ(m["error"]["field"], "framework");
  const json bad = call("rank", R"({"framework":"deepspeed-chat"})");
  EXPECT_EQ(bad["error"]["field"], "framework");
}

// Megatron-FSDP (--use-megatron-fsdp, optim_grads_params) is Megatron-Core's ZeRO-3: a fixed layout with it is
// estimated, with pipeline parallelism refused by name, and its Megatron arguments carry the flags. The layout is
// Megatron-MoE-ModelZoo's Qwen3-235B-A22B "intra-node EP" row (TP 2, EP 8, micro-batch 4, full recompute).
TEST(Framework, MegatronFsdpIsMegatronCoresZero3WithoutPipelineParallelism) {
  EXPECT_EQ(framework_layout_error(Framework::megatron_core, Method::full, 2, 1, 1, 128, 3, false, 8), "");
  EXPECT_EQ(framework_layout_error(Framework::megatron_core, Method::full, 2, 4, 1, 32, 3, false, 8),
            "ZeRO-3 with PP 4 is not supported by megatron-core for full fine-tuning (TP, PP, CP, sequence parallel; "
            "DDP, the distributed optimizer (ZeRO-1) or Megatron-FSDP (ZeRO-3, without PP))");
  EXPECT_NE(framework_layout_error(Framework::megatron_core, Method::full, 2, 1, 1, 128, 2, false, 8), "");
  const std::string job =
      R"({"model":"qwen3-235b-a22b","method":"full","framework":"megatron-core","seq_len":4096,"micro_batch":4,)"
      R"("global_batch":2048,"recompute":"full","dataset":{"tokens":1e9},"target":{"offer":"aws/p5.48xlarge/us-west-2",)"
      R"("nodes":32},"parallel":{"gpus":256,"tp":2,"pp":1,"dp":128,"ep":8,"etp":1,"zero":3,"sequence_parallel":true}})";
  json eq = json::parse(job);
  eq["target"] = {{"gpu", "h100-sxm"}};
  const json e = call("estimate", eq.dump());
  ASSERT_TRUE(e["ok"].get<bool>()) << e.dump();
  EXPECT_EQ(e["fit"]["verdict"], "fits") << e.dump();
  const std::string megatron = test::recipe_file(job.c_str(), "megatron");
  // Megatron-FSDP asserts the fsdp_dtensor checkpoint format and CUDA_DEVICE_MAX_CONNECTIONS other than 1 (TP 2
  // would otherwise export 1): megatron/training/arguments.py validate_args.
  EXPECT_NE(megatron.find("--use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params --ckpt-format "
                          "fsdp_dtensor\n"),
            std::string::npos)
      << megatron;
  EXPECT_NE(megatron.find("unset CUDA_DEVICE_MAX_CONNECTIONS\n"), std::string::npos) << megatron;
  EXPECT_EQ(megatron.find("export CUDA_DEVICE_MAX_CONNECTIONS=1"), std::string::npos) << megatron;
  EXPECT_NE(megatron.find("--overlap-grad-reduce --overlap-param-gather"), std::string::npos) << megatron;
  eq["parallel"]["pp"] = 4;
  eq["parallel"]["dp"] = 32;
  const json refused = call("estimate", eq.dump());
  EXPECT_FALSE(refused["ok"].get<bool>());
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("ZeRO-3 with PP 4"), std::string::npos) << refused.dump();
}

// Megatron-Core accumulates gradients in an fp32 main_grad buffer (4 B per parameter for the whole run): the same
// layout needs 2 B per parameter more than under `generic`, and they do not free between micro-batches.
TEST(Framework, MegatronCoreCountsItsFp32GradientBuffer) {
  const ModelSpec* m = find_model("llama-3.1-8b");
  ASSERT_NE(m, nullptr);
  TrainConfig t;
  t.method = Method::full;
  t.seq_len = 4096;
  MemoryLayout l;
  l.tp = 2;
  l.dp = 4;
  l.zero = 1;
  l.recompute = Recompute::selective;
  const MemoryBreakdown g = *estimate_memory(*m, t, l);
  t.framework = Framework::megatron_core;
  const MemoryBreakdown mc = *estimate_memory(*m, t, l);
  EXPECT_DOUBLE_EQ(mc.gradients, 2.0 * g.gradients);
  EXPECT_GT(mc.total, g.total + g.gradients * 0.99);
}

// torchtune's chunked cross-entropy (CEWithChunkedOutputLoss, 8 chunks): the 16-bit logits and the kept fp32
// log-softmax for every token, the fp32 upcast and gradient for one chunk at a time: 2 + 4 x (1 + 2/8) = 7 bytes
// per logit against the Hugging Face path's 2 + 3 x 4 = 14.
TEST(Framework, TorchtuneChunkedLossHoldsHalfTheLogitBytes) {
  const ModelSpec* m = find_model("llama-3.1-8b");
  ASSERT_NE(m, nullptr);
  TrainConfig t;
  t.method = Method::lora;
  t.precision = Precision::bf16;
  t.seq_len = 2048;
  MemoryLayout l;
  l.micro_batch = 2;
  l.recompute = Recompute::full;
  const MemoryBreakdown g = *estimate_memory(*m, t, l);
  t.framework = Framework::torchtune;
  const MemoryBreakdown tt = *estimate_memory(*m, t, l);
  EXPECT_NEAR(tt.logits / g.logits, 7.0 / 14.0, 1e-9);
  EXPECT_DOUBLE_EQ(g.logits, 2.0 * 2048 * 128256 * 14.0);
}

TEST(Framework, EveryProfileNamesItsSourcesAndGenericRestrictsNothing) {
  int n = 0;
  const FrameworkProfile* t = framework_profiles(&n);
  ASSERT_EQ(n, 7);
  EXPECT_EQ(t[0].id, Framework::generic);
  for (int i = 0; i < n; ++i) {
    EXPECT_STRNE(t[i].source, "") << t[i].name;
    for (Method meth : {Method::full, Method::lora, Method::qlora}) EXPECT_STRNE(t[i].method(meth).source, "") << t[i].name;
#ifndef __EMSCRIPTEN__  // the web module compiles the sources out (common.h TRAINFIT_SOURCE)
    if (t[i].fp32_grad_buffer) {
      EXPECT_STRNE(t[i].fp32_grad_source, "") << t[i].name;
    }
    if (t[i].uneven_pp) {
      EXPECT_STRNE(t[i].uneven_pp_source, "") << t[i].name;
    }
    if (t[i].zero1_gather_after_step) {
      EXPECT_STRNE(t[i].zero1_gather_source, "") << t[i].name;
    }
#endif
  }
  for (Method meth : {Method::full, Method::lora, Method::qlora})
    EXPECT_EQ(framework_layout_error(Framework::generic, meth, 8, 4, 2, 8, 3, true), "");
}

}  // namespace
}  // namespace trainfit

namespace trainfit {
namespace {

// Interleaved 1F1B (Narayanan et al. 2021 §2.2.2; Korthikanti et al. 2022 §4.2.3): v virtual stages per rank
// divide the pipeline bubble by v and multiply the first stage's activations by 1 + (p - 1) / (p v).
TEST(Framework, InterleavedPipelineTradesMemoryForASmallerBubble) {
  const std::string base = R"({"model":"llama-3.1-8b","method":"full","framework":"megatron-core","seq_len":4096,
      "global_batch":32,"micro_batch":1,"recompute":"selective","dataset":{"tokens":1e8},
      "target":{"offer":"aws/p5.48xlarge/us-east-1","gpu":"h100-sxm"},)";
  const json plain = call("plan", base + R"("parallel":{"gpus":8,"tp":2,"pp":4,"dp":1,"zero":1}})");
  const json inter = call("plan", base + R"("parallel":{"gpus":8,"tp":2,"pp":4,"vp":4,"dp":1,"zero":1}})");
  ASSERT_TRUE(plain["ok"].get<bool>() && inter["ok"].get<bool>()) << plain.dump() << inter.dump();
  ASSERT_TRUE(plain["plan"]["fits"].get<bool>() && inter["plan"]["fits"].get<bool>());
  const json& a = plain["plan"]["best"];
  const json& b = inter["plan"]["best"];
  EXPECT_EQ(b["vp"], 4);
  EXPECT_NEAR(b["step"]["bubble_s"].get<double>(), a["step"]["bubble_s"].get<double>() / 4.0,
              0.02 * a["step"]["bubble_s"].get<double>());
  const json ea = call("estimate", base + R"("parallel":{"gpus":8,"tp":2,"pp":4,"dp":1,"zero":1}})");
  const json eb = call("estimate", base + R"("parallel":{"gpus":8,"tp":2,"pp":4,"vp":4,"dp":1,"zero":1}})");
  const double factor = 1.0 + 3.0 / 16.0;  // 1 + (p - 1) / (p v), p = 4, v = 4
  EXPECT_NEAR(eb["memory"]["activations_bytes"].get<double>() / ea["memory"]["activations_bytes"].get<double>(), factor,
              0.02);
  EXPECT_NE(b["summary"].get<std::string>().find("(VP 4)"), std::string::npos);
  // Frameworks without interleaving refuse a fixed vp; vp must divide the layers with pp.
  EXPECT_EQ(call("estimate", R"({"framework":"hf-trainer","parallel":{"gpus":4,"pp":4,"vp":2}})")["error"]["field"],
            "parallel.vp");
  EXPECT_EQ(call("estimate", R"({"model":"llama-3.1-8b","parallel":{"gpus":4,"pp":4,"vp":3}})")["error"]["field"],
            "parallel.vp");
  // megatron-core runs uneven stages (framework.h uneven_pp): 32 layers over PP 3 (the loss counted as a layer:
  // 33 = 3 x 11) put ceil(32 / 3) = 11 layers on the heaviest stage, 3 more than PP 4's 8; a split Megatron-LM's
  // arguments cannot express (PP 4 x VP 3: 32, 33, 34 do not divide into 12 chunks) is refused.
  const std::string mc = R"({"model":"llama-3.1-8b","method":"full","framework":"megatron-core",)";
  const json uneven = call("estimate", mc + R"("parallel":{"gpus":3,"pp":3,"dp":1,"zero":1}})");
  const json even = call("estimate", mc + R"("parallel":{"gpus":4,"pp":4,"dp":1,"zero":1}})");
  ASSERT_TRUE(uneven["ok"].get<bool>() && even["ok"].get<bool>()) << uneven.dump() << even.dump();
  // bf16 weights: 2 B per parameter.
  EXPECT_NEAR(uneven["memory"]["weights_bytes"].get<double>() - even["memory"]["weights_bytes"].get<double>(),
              3 * 2.0 * uneven["params"]["per_layer"].get<double>(), 1.0);
  EXPECT_EQ(call("estimate", mc + R"("parallel":{"gpus":4,"pp":4,"vp":3,"dp":1,"zero":1}})")["error"]["field"],
            "parallel.vp");
}

// LitGPT quantizes a 16-bit model on the GPU (framework.h qlora_loads_16bit): while loading, every weight at 16 bits
// plus a 16-bit clone of the widest matrix (Llama 3.1 8B's head, 128,256 x 4,096). With a short sequence that load
// sets the peak, and the verdict judges it; the same job under another trainer, or a long sequence whose training
// step is larger, keeps the training step's peak. The JSON names which phase sets it.
TEST(Framework, LitgptQloraLoadPeakIsTheSixteenBitModel) {
  const ModelSpec* m = find_model("llama-3.1-8b");
  ASSERT_NE(m, nullptr);
  TrainConfig t;
  t.method = Method::qlora;
  t.framework = Framework::litgpt;
  t.lora_targets = {"q", "v"};
  t.precision = Precision::bf16;
  t.seq_len = 512;
  MemoryLayout l;
  l.micro_batch = 2;
  auto a = estimate_memory(*m, t, l);
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  const double load = 2.0 * (8030261248.0 + 128256.0 * 4096.0);
  EXPECT_DOUBLE_EQ(a->load_peak, load);
  EXPECT_TRUE(a->load_sets_peak);
  EXPECT_DOUBLE_EQ(a->allocated_peak, load);
  EXPECT_DOUBLE_EQ(a->total, load + a->overhead);
  EXPECT_DOUBLE_EQ(a->total_high, a->total * kBandHighFactor);
  ASSERT_FALSE(a->notes.empty());
  EXPECT_EQ(a->notes.back().code, "load_peak");

  TrainConfig hf = t;
  hf.framework = Framework::hf_trainer;
  auto b = estimate_memory(*m, hf, l);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->load_peak, 0.0);
  EXPECT_FALSE(b->load_sets_peak);
  EXPECT_LT(b->total, a->total);

  TrainConfig longer = t;
  longer.seq_len = 8192;
  auto c = estimate_memory(*m, longer, l);
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c->load_peak, load);
  EXPECT_FALSE(c->load_sets_peak);
  EXPECT_GT(c->allocated_peak, load);

  TrainConfig lora = t;  // a 16-bit base needs no quantization pass
  lora.method = Method::lora;
  auto d = estimate_memory(*m, lora, l);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->load_peak, 0.0);

  const std::string q = R"({"model":"llama-3.1-8b","method":"qlora","framework":"litgpt","precision":"bf16",)"
                        R"("lora_targets":["q","v"],"micro_batch":2,"seq_len":)";
  const json ja = call("estimate", q + "512}");
  ASSERT_TRUE(ja["ok"].get<bool>()) << ja.dump();
  EXPECT_EQ(ja["memory"]["peak_set_by"], "loading");
  EXPECT_DOUBLE_EQ(ja["memory"]["load_peak_bytes"].get<double>(), load);
  const json jb = call("estimate", q + "8192}");
  EXPECT_EQ(jb["memory"]["peak_set_by"], "training") << jb.dump();
}

}  // namespace
}  // namespace trainfit
