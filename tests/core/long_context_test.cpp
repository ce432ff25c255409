// Long context: the two context-parallel schemes (job.h CpScheme). Ring attention passes K/V blocks around the
// CP ranks (Liu et al. 2023); DeepSpeed-Ulysses switches a sequence split to a head split with all-to-alls (Jacobs
// et al. 2023), so its degree must divide the heads, and today's Hugging Face stack launches it (accelerate's
// parallelism_config with sp_backend deepspeed: Hugging Face blog "ulysses-sp", 2026-03-09).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "facade_helpers.h"
#include "trainfit/catalog/framework.h"
#include "trainfit/estimate/memory.h"
#include "trainfit/catalog/model.h"
#include "trainfit/launch/recipe.h"

namespace trainfit {
namespace {

// Qwen3-4B at 131,072 tokens under hf-trainer on one 8x H100 node: the plan uses Ulysses sequence parallelism
// (hf-trainer ran no context parallelism before: "CP 4 is not supported by hf-trainer") and names the scheme.
TEST(LongContext, HfTrainerPlansUlyssesSequenceParallelism) {
  const std::string q =
      R"({"model":"qwen3-4b","method":"full","framework":"hf-trainer","seq_len":131072,"global_batch":8,)"
      R"("dataset":{"tokens":1e9},"target":{"offer":"lambda/gpu_8x_h100_sxm5/us-east-1"}})";
  const nlohmann::json doc = test::facade("plan", q);
  ASSERT_TRUE(doc["ok"].get<bool>()) << doc.dump();
  const auto& best = doc["plan"]["best"];
  EXPECT_GT(best["cp"].get<int>(), 1) << best.dump();
  EXPECT_EQ(best["cp_scheme"], "ulysses");
  EXPECT_NE(best["summary"].get<std::string>().find("(Ulysses)"), std::string::npos) << best["summary"];
  EXPECT_GT(best["step"]["cp_comm_s"].get<double>(), 0.0);
  EXPECT_EQ(resolved_cp_scheme(TrainConfig{}), CpScheme::ring);  // generic's default
}

// With cp_scheme auto the search plans both schemes where the framework runs both, and keeps the other one's plan
// only where it is at least 2% faster (planner.cpp kOtherCpSchemeMargin) or the default finds none: Qwen2.5-7B's 28
// heads take Ulysses only at CP 2 or 4, too little at 131k tokens on one 8x H100 node, so hf-trainer's plan is the
// ring at CP 8 (accelerate's context parallelism, under FSDP2), and the plan says so.
TEST(LongContext, ThePlannerPicksTheScheme) {
  auto plan = [](const char* scheme) {
    const std::string q =
        std::string(R"({"model":"qwen2.5-7b","method":"full","framework":"hf-trainer","seq_len":131072,)") +
        R"("global_batch":8,"micro_batch":1,"recompute":"full","cp_scheme":")" + scheme +
        R"(","filters":{"max_nodes":1},"dataset":{"tokens":1e9},"target":{"offer":"lambda/gpu_8x_h100_sxm5/us-east-1"}})";
    return test::facade("plan", q);
  };
  const nlohmann::json ulysses = plan("ulysses"), automatic = plan("auto");
  ASSERT_TRUE(ulysses["ok"].get<bool>()) << ulysses.dump();
  EXPECT_FALSE(ulysses["plan"]["fits"].get<bool>()) << ulysses["plan"]["best"].dump();
  ASSERT_TRUE(automatic["ok"].get<bool>()) << automatic.dump();
  ASSERT_TRUE(automatic["plan"]["fits"].get<bool>()) << automatic.dump();
  const auto& best = automatic["plan"]["best"];
  EXPECT_EQ(best["cp"], 8) << best.dump();
  EXPECT_EQ(best["cp_scheme"], "ring");
  EXPECT_GE(best["zero"].get<int>(), 2) << best.dump();
  // Its recipe is accelerate's ring on the Hugging Face path, as for a query that names the ring.
  const std::string auto_q =
      R"({"model":"qwen2.5-7b","method":"full","framework":"hf-trainer","seq_len":131072,"global_batch":8,)"
      R"("micro_batch":1,"recompute":"full","filters":{"max_nodes":1},"dataset":{"tokens":1e9},)"
      R"("target":{"offer":"lambda/gpu_8x_h100_sxm5/us-east-1","pricing":"on-demand"}})";
  const nlohmann::json recipe = test::facade("recipe", auto_q);
  ASSERT_TRUE(recipe["ok"].get<bool>()) << recipe.dump();
  EXPECT_EQ(recipe["engine"], "hf");
  for (const auto& f : recipe["files"])
    if (f["format"] == "accelerate") {
      EXPECT_NE(f["text"].get<std::string>().find("  parallelism_config_cp_size: 8\n"), std::string::npos) << f["text"];
    }
  // accelerate's ring runs SDPA only: with the eager attention the search does not try it.
  const std::string eager =
      R"({"model":"qwen2.5-7b","method":"full","framework":"hf-trainer","seq_len":131072,"attention":"eager",)"
      R"("global_batch":8,"micro_batch":1,"recompute":"full","filters":{"max_nodes":1},"dataset":{"tokens":1e9},)"
      R"("target":{"offer":"lambda/gpu_8x_h100_sxm5/us-east-1"}})";
  const nlohmann::json no_ring = test::facade("plan", eager);
  ASSERT_TRUE(no_ring["ok"].get<bool>()) << no_ring.dump();
  EXPECT_FALSE(no_ring["plan"]["fits"].get<bool>()) << no_ring["plan"]["best"].dump();
  // Where both schemes fit and run alike, the framework's default stays (megatron-core: the ring; hf-trainer:
  // Ulysses).
  const std::string llama =
      R"({"model":"llama-3.1-8b","method":"full","framework":"hf-trainer","seq_len":131072,"global_batch":8,)"
      R"("micro_batch":1,"recompute":"full","filters":{"max_nodes":1},"dataset":{"tokens":1e9},)"
      R"("target":{"offer":"lambda/gpu_8x_h100_sxm5/us-east-1"}})";
  const nlohmann::json hf = test::facade("plan", llama);
  ASSERT_TRUE(hf["ok"].get<bool>()) << hf.dump();
  EXPECT_EQ(hf["plan"]["best"]["cp_scheme"], "ulysses") << hf["plan"]["best"].dump();
}

// The runners-up of a plan on cp_scheme auto come from both schemes' searches: the scheme that lost is listed with
// why, whichever won.
TEST(LongContext, RunnersUpComeFromBothSchemes) {
  auto plan = [](const char* model, int seq, const char* offer, const char* scheme = "auto") {
    const std::string q = std::string(R"({"model":")") + model + R"(","method":"full","framework":"hf-trainer","seq_len":)" +
                          std::to_string(seq) + R"(,"global_batch":8,"micro_batch":1,"recompute":"full","cp_scheme":")" +
                          scheme + R"(","dataset":{"tokens":1e9},"target":{"offer":")" + offer + R"(","nodes":1}})";
    return test::facade("plan", q);
  };
  auto runner_in = [](const nlohmann::json& p, const char* scheme) -> const nlohmann::json* {
    for (const auto& r : p["plan"]["runners_up"])
      if (r.value("cp", 1) > 1 && r.value("cp_scheme", "") == scheme) return &r;
    return nullptr;
  };
  auto no_false_gpu_reason = [](const nlohmann::json& p) {
    for (const auto& r : p["plan"]["runners_up"]) {
      if (r["why"].get<std::string>().find("more GPUs") != std::string::npos) {
        EXPECT_GT(r["gpus"].get<int>(), p["plan"]["best"]["gpus"].get<int>()) << r.dump();
      }
    }
  };
  // Ulysses, hf-trainer's default, is kept: accelerate's ring is listed, its step shorter by less than the margin.
  const nlohmann::json h100 = plan("qwen2.5-7b", 65536, "lambda/gpu_8x_h100_sxm5/us-east-1");
  ASSERT_TRUE(h100["ok"].get<bool>() && h100["plan"]["fits"].get<bool>()) << h100.dump();
  EXPECT_EQ(h100["plan"]["best"]["cp_scheme"], "ulysses") << h100["plan"]["best"].dump();
  const nlohmann::json* ring = runner_in(h100, "ring");
  ASSERT_NE(ring, nullptr) << h100["plan"]["runners_up"].dump();
  EXPECT_EQ((*ring)["why"].get<std::string>().rfind("the ring, ", 0), 0u) << (*ring)["why"];
  EXPECT_NE((*ring)["why"].get<std::string>().find("framework's default (Ulysses)"), std::string::npos) << (*ring)["why"];
  no_false_gpu_reason(h100);
  // On 8 L40S (PCIe) Ulysses' all-to-alls cost more: the ring wins although Ulysses fits, and Ulysses is listed.
  const char* l40s = "aws/g6e.48xlarge/ap-northeast-1";
  const nlohmann::json only_ulysses = plan("llama-3.2-3b", 32768, l40s, "ulysses");
  ASSERT_TRUE(only_ulysses["ok"].get<bool>()) << only_ulysses.dump();
  EXPECT_TRUE(only_ulysses["plan"]["fits"].get<bool>()) << only_ulysses.dump();
  const nlohmann::json pcie = plan("llama-3.2-3b", 32768, l40s);
  ASSERT_TRUE(pcie["ok"].get<bool>() && pcie["plan"]["fits"].get<bool>()) << pcie.dump();
  EXPECT_EQ(pcie["plan"]["best"]["cp_scheme"], "ring") << pcie["plan"]["best"].dump();
  const nlohmann::json* ulysses = runner_in(pcie, "ulysses");
  ASSERT_NE(ulysses, nullptr) << pcie["plan"]["runners_up"].dump();
  EXPECT_NE((*ulysses)["why"].get<std::string>().find("% slower"), std::string::npos) << (*ulysses)["why"];
  no_false_gpu_reason(pcie);
}

// Ulysses needs cp to divide the heads per TP rank; K/V heads fewer than cp are replicated (ALST), more must divide.
TEST(LongContext, UlyssesDegreeMustDivideTheHeads) {
  const ModelSpec* m = find_model("llama-3.1-8b");  // 32 heads, 8 K/V heads
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(cp_layout_error(*m, 1, 8, CpScheme::ulysses).message.empty());
  EXPECT_TRUE(cp_layout_error(*m, 1, 16, CpScheme::ulysses).message.empty());  // K/V heads replicated
  EXPECT_EQ(cp_layout_error(*m, 1, 3, CpScheme::ulysses).field, "parallel.cp");
  EXPECT_EQ(cp_layout_error(*m, 4, 16, CpScheme::ulysses).field, "parallel.cp");  // 8 heads per TP rank
  EXPECT_TRUE(cp_layout_error(*m, 1, 3, CpScheme::ring).message.empty());       // a ring has no such limit
}

// The same fixed layout under both schemes: the same memory (each rank holds seq / cp tokens' activations either
// way), different communication: the ring's K/V passes overlap with attention, Ulysses' all-to-alls do not.
TEST(LongContext, BothSchemesShareMemoryAndDifferInCommunication) {
  auto plan = [](const char* scheme) {
    const std::string q = std::string(R"({"model":"llama-3.1-8b","method":"full","seq_len":65536,"global_batch":4,"micro_batch":1,)") +
                          R"("recompute":"full","cp_scheme":")" + scheme +
                          R"(","parallel":{"gpus":8,"cp":4,"dp":2,"zero":3},)"
                          R"("dataset":{"tokens":1e9},"target":{"offer":"lambda/gpu_8x_h100_sxm5/us-east-1"}})";
    return test::facade("plan", q);
  };
  const nlohmann::json ring = plan("ring"), ulysses = plan("ulysses");
  ASSERT_TRUE(ring["ok"].get<bool>()) << ring.dump();
  ASSERT_TRUE(ulysses["ok"].get<bool>()) << ulysses.dump();
  const auto &r = ring["plan"]["best"], &u = ulysses["plan"]["best"];
  EXPECT_EQ(r["cp_scheme"], "ring");
  EXPECT_EQ(u["cp_scheme"], "ulysses");
  EXPECT_EQ(r["memory_bytes"], u["memory_bytes"]);
  EXPECT_GT(u["step"]["cp_comm_s"].get<double>(), 0.0);
  EXPECT_GT(r["step"]["cp_comm_s"].get<double>(), 0.0);
}

// The recipes carry the scheme: Megatron's --cp-comm-type a2a for Ulysses; the Hugging Face path writes accelerate's
// parallelism_config (sp_size, sp_backend deepspeed).
TEST(LongContext, RecipesCarryTheScheme) {
  const std::string meg =
      R"({"model":"llama-3.1-8b","method":"full","framework":"megatron-core","seq_len":32768,"global_batch":8,)"
      R"("micro_batch":1,)"
      R"("recompute":"full","cp_scheme":"ulysses","parallel":{"gpus":8,"cp":4,"dp":2,"zero":1},)"
      R"("dataset":{"tokens":1e9},"target":{"offer":"lambda/gpu_8x_h100_sxm5/us-east-1","pricing":"on-demand"}})";
  nlohmann::json doc = test::facade("recipe", meg);
  ASSERT_TRUE(doc["ok"].get<bool>()) << doc.dump();
  std::string megatron, accelerate;
  for (const auto& f : doc["files"])
    if (f["format"] == "megatron") megatron = f["text"].get<std::string>();
  EXPECT_NE(megatron.find("--context-parallel-size 4\n"), std::string::npos) << megatron;
  EXPECT_NE(megatron.find("--cp-comm-type a2a\n"), std::string::npos) << megatron;

  const std::string hf =
      R"({"model":"qwen3-4b","method":"full","framework":"hf-trainer","seq_len":65536,"global_batch":8,)"
      R"("micro_batch":1,)"
      R"("recompute":"full","parallel":{"gpus":4,"cp":4,"dp":1,"zero":3},)"
      R"("dataset":{"tokens":1e9},"target":{"offer":"lambda/gpu_8x_h100_sxm5/us-east-1","pricing":"on-demand"}})";
  doc = test::facade("recipe", hf);
  ASSERT_TRUE(doc["ok"].get<bool>()) << doc.dump();
  EXPECT_EQ(doc["engine"], "hf");
  for (const auto& f : doc["files"])
    if (f["format"] == "accelerate") accelerate = f["text"].get<std::string>();
  EXPECT_NE(accelerate.find("parallelism_config_sp_size: 4\n"), std::string::npos) << accelerate;
  EXPECT_NE(accelerate.find("parallelism_config_sp_backend: deepspeed\n"), std::string::npos) << accelerate;
}

// hf-trainer's ring is accelerate's context parallelism (cp_size, cp_backend torch), which runs under FSDP2 only: the
// search keeps ZeRO-2 / 3, and the recipe is FSDP2 with the parallelism_config, with no DeepSpeed file and the FSDP2
// plugin's activation checkpointing in place of --gradient_checkpointing (the Trainer refuses both at once).
TEST(LongContext, HfTrainerRingRunsAccelerateContextParallelismUnderFsdp2) {
  const std::string q =
      R"({"model":"qwen3-4b","method":"full","framework":"hf-trainer","seq_len":131072,"global_batch":8,)"
      R"("recompute":"full","cp_scheme":"ring","filters":{"max_nodes":1},)"
      R"("dataset":{"tokens":1e9},"target":{"offer":"lambda/gpu_8x_h100_sxm5/us-east-1","pricing":"on-demand"}})";
  const nlohmann::json plan = test::facade("plan", q);
  ASSERT_TRUE(plan["ok"].get<bool>()) << plan.dump();
  const auto& best = plan["plan"]["best"];
  EXPECT_GT(best["cp"].get<int>(), 1) << best.dump();
  EXPECT_EQ(best["cp_scheme"], "ring");
  EXPECT_GE(best["zero"].get<int>(), 2) << best.dump();
  for (const auto& r : plan["plan"]["runners_up"]) {
    if (r["cp"].get<int>() > 1) {
      EXPECT_GE(r["zero"].get<int>(), 2) << r.dump();
    }
  }

  const nlohmann::json doc = test::facade("recipe", q);
  ASSERT_TRUE(doc["ok"].get<bool>()) << doc.dump();
  EXPECT_EQ(doc["engine"], "hf");
  std::string accelerate, torchrun;
  bool deepspeed = true;
  for (const auto& f : doc["files"]) {
    if (f["format"] == "accelerate") accelerate = f["text"].get<std::string>();
    if (f["format"] == "torchrun") torchrun = f["text"].get<std::string>();
    if (f["format"] == "deepspeed") deepspeed = f["applies"].get<bool>();
  }
  EXPECT_FALSE(deepspeed);
  EXPECT_NE(accelerate.find("distributed_type: FSDP\n"), std::string::npos) << accelerate;
  EXPECT_NE(accelerate.find("  fsdp_version: 2\n"), std::string::npos) << accelerate;
  EXPECT_NE(accelerate.find("  parallelism_config_cp_size: " + std::to_string(best["cp"].get<int>()) + "\n"),
            std::string::npos) << accelerate;
  EXPECT_NE(accelerate.find("  parallelism_config_cp_backend: torch\n"), std::string::npos) << accelerate;
  EXPECT_NE(torchrun.find("export FSDP_VERSION=2\n"), std::string::npos) << torchrun;
  EXPECT_NE(torchrun.find("export FSDP_ACTIVATION_CHECKPOINTING=true\n"), std::string::npos) << torchrun;
  EXPECT_EQ(torchrun.find("--gradient_checkpointing"), std::string::npos) << torchrun;
  EXPECT_EQ(torchrun.find("--deepspeed"), std::string::npos) << torchrun;
}

}  // namespace
}  // namespace trainfit

namespace trainfit {
namespace {

// estimate --gpu answers the longest sequence per context-parallel degree added to the layout, in the job's scheme:
// more CP ranks, longer sequences; none where the framework runs no context parallelism (torchtune).
TEST(LongContext, EstimateGivesTheLongestSequencePerContextParallelDegree) {
  const std::string q = R"({"model":"qwen3-4b","method":"full","framework":"hf-trainer","seq_len":32768,)"
                        R"("micro_batch":1,"recompute":"full","parallel":{"gpus":1,"zero":3,"offload_optimizer":true},)"
                        R"("target":{"gpu":"h100-sxm"}})";
  const nlohmann::json doc = test::facade("estimate", q);
  ASSERT_TRUE(doc["ok"].get<bool>()) << doc.dump();
  const auto& fit = doc["fit"];
  EXPECT_EQ(fit["cp_scheme"], "ulysses");
  ASSERT_EQ(fit["max_seq_len_by_cp"].size(), 3u) << fit.dump();
  int64_t previous = fit["max_seq_len"].get<int64_t>();
  for (const auto& c : fit["max_seq_len_by_cp"]) {
    EXPECT_GT(c["max_seq_len"].get<int64_t>(), previous) << c.dump();
    EXPECT_LE(c["max_seq_len_safe"].get<int64_t>(), c["max_seq_len"].get<int64_t>());
    EXPECT_EQ(c["max_seq_len"].get<int64_t>() % c["cp"].get<int64_t>(), 0);
    previous = c["max_seq_len"].get<int64_t>();
  }
  const nlohmann::json tt = test::facade(
      "estimate", R"({"model":"llama-3.2-1b","method":"full","framework":"torchtune","seq_len":4096,"target":{"gpu":"h100-sxm"}})");
  ASSERT_TRUE(tt["ok"].get<bool>()) << tt.dump();
  EXPECT_TRUE(tt["fit"]["max_seq_len_by_cp"].empty());
}

}  // namespace
}  // namespace trainfit

namespace trainfit {
namespace {

// The longest sequence per CP degree on cp_scheme auto takes the framework's other scheme for a degree its default
// cannot run, as the planner does: hf-trainer's Ulysses splits Qwen2.5-7B's 28 heads 2 or 4 ways, the ring 8.
TEST(LongContext, EstimateReachesPastTheDefaultSchemeOnAuto) {
  const std::string q = R"({"model":"qwen2.5-7b","method":"full","framework":"hf-trainer","seq_len":65536,)"
                        R"("micro_batch":1,"recompute":"full","parallel":{"gpus":1,"zero":3},"target":{"gpu":"h100-sxm"}})";
  const nlohmann::json doc = test::facade("estimate", q);
  ASSERT_TRUE(doc["ok"].get<bool>()) << doc.dump();
  const auto& fit = doc["fit"];
  EXPECT_EQ(fit["cp_scheme"], "ulysses");
  ASSERT_EQ(fit["max_seq_len_by_cp"].size(), 3u) << fit.dump();
  EXPECT_EQ(fit["max_seq_len_by_cp"][0]["cp_scheme"], "ulysses");
  EXPECT_EQ(fit["max_seq_len_by_cp"][1]["cp_scheme"], "ulysses");
  EXPECT_EQ(fit["max_seq_len_by_cp"][2]["cp"], 8);
  EXPECT_EQ(fit["max_seq_len_by_cp"][2]["cp_scheme"], "ring");
  // Named, the scheme is the only one: no CP 8 in Ulysses.
  nlohmann::json named = nlohmann::json::parse(q);
  named["cp_scheme"] = "ulysses";
  const nlohmann::json u = test::facade("estimate", named.dump());
  ASSERT_TRUE(u["ok"].get<bool>()) << u.dump();
  EXPECT_EQ(u["fit"]["max_seq_len_by_cp"].size(), 2u) << u["fit"].dump();
}

}  // namespace
}  // namespace trainfit
