// One query, one answer: over 1,000 random valid queries and offers, every verb agrees with every
// other through the facade every surface uses (api_call): the memory of the layout `plan` picks equals
// `estimate` of that layout fixed; `plan` at the rank row's node count is the rank row's plan; `cost` for the
// row's pricing option and node count is the row's cost; and the fit verdict is the same in all of them.
// (The CLI prints these documents unchanged and the JS API returns them: tests/e2e/parity.test.js.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "trainfit/facade/api.h"
#include "trainfit/storage/bundled.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {
namespace {
using json = nlohmann::json;

// A small snapshot: a dozen offers of different shapes (one GPU, NVLink nodes, multi-node, PCIe, no BF16),
// so a thousand rankings stay fast even under the sanitizers.
const Snapshot& small_snapshot() {
  static const Snapshot s = [] {
    Result<Snapshot> all = load_snapshot(embedded_snapshot_json());
    EXPECT_TRUE(all.ok());
    Snapshot out = *all;
    out.offers.clear();
    const char* wanted[] = {"aws/p5.48xlarge/", "aws/g6e.xlarge/", "aws/g5.12xlarge/", "aws/g4dn.12xlarge/",
                            "lambda/gpu_1x_h100_pcie/", "lambda/gpu_8x_a100_80gb_sxm4/", "gcp/a3-highgpu-8g/",
                            "gcp/g2-standard-4/", "aws/p4d.24xlarge/", "nebius/", "aws/g6.12xlarge/", "lambda/gpu_1x_a10/"};
    for (const char* w : wanted) {
      for (const Offer& o : all->offers)
        if (o.id.rfind(w, 0) == 0) {
          out.offers.push_back(o);
          break;
        }
    }
    return out;
  }();
  return s;
}

json call(const char* verb, const json& q) { return json::parse(api_call(verb, q.dump(), &small_snapshot())); }

json random_query(std::mt19937_64& rng) {
  auto pick = [&](std::initializer_list<const char*> v) { return *(v.begin() + rng() % v.size()); };
  auto pick_i = [&](std::initializer_list<int64_t> v) { return *(v.begin() + rng() % v.size()); };
  json q;
  q["model"] = pick({"qwen2.5-0.5b", "llama-3.2-1b", "llama-3.2-3b", "qwen2.5-7b", "llama-3.1-8b", "mistral-7b-v0.1",
                     "gemma-2-9b", "qwen2.5-14b", "llama-2-13b", "gpt-oss-20b", "qwen3-30b-a3b"});
  q["method"] = pick({"full", "lora", "qlora"});
  q["framework"] = pick({"generic", "generic", "hf-trainer", "torchtune", "megatron-core", "torchtitan"});
  if (q["framework"] == "megatron-core" && q["method"] == "qlora") q["framework"] = "hf-trainer";
  if (q["framework"] == "torchtitan" && q["method"] != "full") q["framework"] = "generic";
  // fp8-mixed: the framework profiles' FP8 factors and the GPUs without FP8 (rows that are not ranked).
  q["precision"] = pick({"auto", "auto", "bf16-mixed", "fp16-mixed", "fp8-mixed"});
  q["recompute"] = pick({"auto", "auto", "none", "selective", "full"});
  // 16k tokens: the search adds context parallelism, in the framework's scheme or the one the query names.
  q["seq_len"] = pick_i({512, 1024, 2048, 4096, 16384});
  const std::string fw = q["framework"].get<std::string>();
  if (fw == "generic" || fw == "megatron-core") q["cp_scheme"] = pick({"auto", "ring", "ulysses"});
  else if (fw == "hf-trainer") q["cp_scheme"] = pick({"auto", "ring", "ulysses"});
  q["micro_batch"] = pick_i({1, 2, 4});
  q["global_batch"] = pick_i({0, 16, 32, 64, 128});
  if (q["global_batch"].get<int64_t>() != 0 && q["global_batch"].get<int64_t>() < q["micro_batch"].get<int64_t>())
    q["global_batch"] = 0;
  q["dataset"] = {{"tokens", std::pow(10.0, 6.0 + static_cast<double>(rng() % 30) / 10.0)}};
  q["filters"] = {{"show_all", true}, {"max_nodes", pick_i({1, 2, 4})}, {"must_fit", rng() % 4 == 0}};
  return q;
}

// Megatron-Core's module recompute for a megatron-core full-training query, from its own generator (so the queries
// above stay the ones they were): the default list, none, or the lists its recipes use for MoE and dense models.
void add_recompute_modules(json& q, std::mt19937_64& rng) {
  if (q["framework"] != "megatron-core" || q["method"] != "full") return;
  const bool moe = q["model"] == "gpt-oss-20b" || q["model"] == "qwen3-30b-a3b";
  const char* lists[] = {R"(["core_attn"])", "[]", moe ? R"(["layernorm","moe_act"])" : R"(["mlp"])",
                         moe ? R"(["layernorm","moe"])" : R"(["core_attn","mlp"])"};
  q["recompute_modules"] = json::parse(lists[rng() % 4]);
}

// Mixture-of-experts routing for the MoE models, from its own generator: a capacity factor under megatron-core
// (the one framework with one), an imbalance elsewhere, or neither.
void add_moe_routing(json& q, std::mt19937_64& rng) {
  if (q["model"] != "gpt-oss-20b" && q["model"] != "qwen3-30b-a3b") return;
  const int r = static_cast<int>(rng() % 3);
  if (r == 0) return;
  if (q["framework"] == "megatron-core") q["moe"] = {{"capacity_factor", r == 1 ? 1.0 : 1.25}};
  else q["moe"] = {{"imbalance", r == 1 ? 1.2 : 1.5}};
}

// The expert-parallel token dispatcher for full training of the MoE models under the trainers with expert parallelism, from its own
// generator: DeepEP where the trainer runs it and no capacity factor pads the experts, else the plain all-to-all.
void add_moe_dispatcher(json& q, std::mt19937_64& rng) {
  if (q["model"] != "gpt-oss-20b" && q["model"] != "qwen3-30b-a3b") return;
  const std::string fw = q["framework"].get<std::string>();
  if (fw != "generic" && fw != "megatron-core" && fw != "torchtitan") return;
  if (q["method"] != "full") return;  // expert parallelism is full training's (megatron-core's LoRA aside)
  const int r = static_cast<int>(rng() % 3);
  if (r == 0) return;
  const bool padded = q.contains("moe") && q["moe"].contains("capacity_factor");
  q["moe"]["dispatcher"] = r == 1 || padded ? "alltoall" : "deepep";
}

// torch.compile for a torchtitan query, from its own generator: the default (compiled), or eager half the time.
void add_compile(json& q, std::mt19937_64& rng) {
  if (q["framework"] != "torchtitan") return;
  if (rng() % 2) q["compile"] = "off";
}

// Megatron-Core MoE jobs under recompute auto with the default module list, where the planner also tries the
// published recipes' lists (planner.cpp module_list_alternatives): rare among the random queries, so added.
json module_search_query(int k) {
  json q = {{"model", k % 2 ? "gpt-oss-20b" : "qwen3-30b-a3b"}, {"method", "full"}, {"framework", "megatron-core"},
            {"recompute", "auto"}, {"seq_len", k < 2 ? 4096 : 16384}, {"micro_batch", 1}, {"global_batch", 64}};
  q["dataset"] = {{"tokens", 1e8}};
  q["filters"] = {{"show_all", true}, {"max_nodes", 2}};
  return q;
}

TEST(OneQueryOneAnswer, EveryVerbAgreesOnAThousandRandomQueries) {
  std::mt19937_64 rng(20261202);
  std::mt19937_64 module_rng(20261205);
  std::mt19937_64 routing_rng(20261206);
  std::mt19937_64 dispatcher_rng(20261207);
  std::mt19937_64 compile_rng(20261208);
  int compared = 0, tight = 0, queries = 0, expert_parallel = 0, cp_ring = 0, cp_ulysses = 0, module_lists = 0;
  int planner_lists = 0, routed = 0, deepep = 0, eager = 0;
  for (int i = 0; i < 1004; ++i) {
    json q = i < 1000 ? random_query(rng) : module_search_query(i - 1000);
    if (i < 1000) add_recompute_modules(q, module_rng);
    if (i < 1000) add_moe_routing(q, routing_rng);
    if (i < 1000) add_moe_dispatcher(q, dispatcher_rng);
    if (i < 1000) add_compile(q, compile_rng);
    const json rank = call("rank", q);
    ASSERT_TRUE(rank.value("ok", false)) << q.dump() << " -> " << rank.dump();
    ++queries;
    for (const json& row : rank["rows"]) {
      if (row["state"] != "ranked") continue;
      if (rng() % 3 != 0) continue;  // a third of the ranked rows of each query: ~thousands of comparisons
      const int nodes = row["nodes"].get<int>();
      json t = q;
      t["target"] = {{"offer", row["offer"]}, {"nodes", nodes}, {"pricing", row["option"]}};
      const std::string where = q.dump() + " offer " + row["offer"].get<std::string>();

      // plan at the row's node count = the rank row.
      const json plan = call("plan", t);
      ASSERT_TRUE(plan.value("ok", false)) << where << plan.dump();
      const json* p = nullptr;
      for (const json& b : plan["plan"]["by_nodes"])
        if (b["nodes"].get<int>() == nodes) p = &b;
      ASSERT_NE(p, nullptr) << where;
      EXPECT_EQ((*p)["summary"], row["plan"]) << where;
      EXPECT_EQ((*p)["memory_bytes"], row["memory_bytes"]) << where;
      EXPECT_EQ((*p)["verdict"], row["verdict"]) << where;
      tight += row["verdict"] == "tight";
      module_lists += q.contains("recompute_modules") && q["recompute_modules"] != json::parse(R"(["core_attn"])") &&
                      row["plan"].get<std::string>().find("selective (") != std::string::npos;
      planner_lists += !q.contains("recompute_modules") && (*p).contains("recompute_modules");
      expert_parallel += (*p)["ep"].get<int>() > 1;
      const bool ep_plan = (*p)["ep"].get<int>() > 1;
      routed += ep_plan && q.contains("moe") && (q["moe"].contains("capacity_factor") || q["moe"].contains("imbalance"));
      deepep += ep_plan && q.contains("moe") && q["moe"].value("dispatcher", "") == "deepep";
      eager += q.value("compile", "auto") == "off";
      if ((*p)["cp"].get<int>() > 1) ((*p)["cp_scheme"] == "ulysses" ? cp_ulysses : cp_ring) += 1;

      // estimate of that layout, fixed, on that GPU = the plan's memory and verdict.
      json e = q;
      e["parallel"] = {{"gpus", (*p)["tp"].get<int>() * (*p)["pp"].get<int>() * (*p)["dp"].get<int>() * (*p)["cp"].get<int>()},
                       {"tp", (*p)["tp"]}, {"pp", (*p)["pp"]}, {"dp", (*p)["dp"]}, {"cp", (*p)["cp"]}, {"vp", (*p)["vp"]},
                       {"ep", (*p)["ep"]}, {"etp", (*p)["ep"].get<int>() > 1 ? (*p)["etp"].get<int>() : 0},
                       {"zero", (*p)["zero"]}, {"sequence_parallel", (*p)["tp"].get<int>() > 1},
                       {"offload_optimizer", (*p)["offload_optimizer"]}, {"offload_params", (*p)["offload_params"]}};
      e["recompute"] = (*p)["recompute"];
      // The plan's module list where it names one (the query's, or one the planner tried under recompute auto), and
      // its context-parallel scheme (under cp_scheme auto the search tries both where the framework runs both; a
      // fixed layout on auto takes the framework's default).
      if ((*p).contains("recompute_modules")) e["recompute_modules"] = (*p)["recompute_modules"];
      if ((*p).contains("cp_scheme")) e["cp_scheme"] = (*p)["cp_scheme"];
      e["micro_batch"] = (*p)["micro_batch"];
      e["global_batch"] = (*p)["global_batch"];
      e["target"] = {{"gpu", row["gpu"]}};
      const json est = call("estimate", e);
      ASSERT_TRUE(est.value("ok", false)) << where << est.dump();
      EXPECT_EQ(est["memory"]["total_bytes"], row["memory_bytes"]) << where;
      EXPECT_EQ(est["fit"]["verdict"], row["verdict"]) << where;
      EXPECT_EQ(est["grad_accum"], (*p)["grad_accum"]) << where;

      // plan of that layout, fixed, on that offer = the same step time (the time model's terms, sequence
      // parallelism and the framework's overlaps included, do not depend on how the layout was reached).
      json f = t;
      f["parallel"] = e["parallel"];
      f["recompute"] = e["recompute"];
      if (e.contains("recompute_modules")) f["recompute_modules"] = e["recompute_modules"];
      if (e.contains("cp_scheme")) f["cp_scheme"] = e["cp_scheme"];
      f["micro_batch"] = e["micro_batch"];
      f["global_batch"] = e["global_batch"];
      const json fixed = call("plan", f);
      ASSERT_TRUE(fixed.value("ok", false)) << where << fixed.dump();
      EXPECT_EQ(fixed["plan"]["best"]["step"]["total_s"], (*p)["step"]["total_s"]) << where;
      EXPECT_EQ(fixed["plan"]["best"]["tokens_per_s"], (*p)["tokens_per_s"]) << where;

      // cost for the row's option and node count = the rank row's total.
      const json cost = call("cost", t);
      ASSERT_TRUE(cost.value("ok", false)) << where << cost.dump();
      bool found = false;
      for (const json& c : cost["costs"])
        if (c["option"] == row["option"] && c.contains("cost")) {
          found = true;
          EXPECT_EQ(c["nodes"], row["nodes"]) << where;
          EXPECT_EQ(c["cost"]["total_usd"], row["total_usd"]) << where;
        }
      EXPECT_TRUE(found) << where;
      ++compared;
    }
  }
  EXPECT_EQ(queries, 1004);
  EXPECT_GT(compared, 1000) << "too few ranked rows were compared";
  EXPECT_GT(tight, 0) << "no tight plan among the random queries: the verdict's middle state went untested";
  EXPECT_GT(expert_parallel, 0) << "no expert-parallel plan among the random queries: EP went untested";
  EXPECT_GT(cp_ring, 0) << "no ring context-parallel plan among the random queries";
  EXPECT_GT(cp_ulysses, 0) << "no Ulysses context-parallel plan among the random queries";
  EXPECT_GT(module_lists, 0) << "no plan with Megatron-Core's module recompute among the random queries";
  EXPECT_GT(planner_lists, 0) << "no plan with a module list the planner chose under recompute auto";
  EXPECT_GT(routed, 0) << "no expert-parallel plan with a capacity factor or an imbalance among the random queries";
  EXPECT_GT(deepep, 0) << "no expert-parallel plan with the DeepEP dispatcher among the random queries";
  EXPECT_GT(eager, 0) << "no torchtitan plan run eager (compile off) among the random queries";
}

}  // namespace
}  // namespace trainfit
