// Worked fit examples, each through the facade (api_call) the CLI, the UI and the JS API use.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "facade_helpers.h"
#include "trainfit/facade/api.h"
#include "trainfit/storage/bundled.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {
namespace {
using json = nlohmann::json;

json call(const char* verb, const std::string& q) { return test::facade(verb, q); }

// The QLoRA paper's headline (Dettmers et al. 2023: a 65B model on one 48 GB GPU) as a plain query.
TEST(FitVerdict, QloraHeadlineFitsA48GbCardAndNotA24GbOne) {
  const std::string job = R"("model":"llama-2-70b","method":"qlora","micro_batch":1,"seq_len":512)";
  const json a6000 = call("estimate", "{" + job + R"(,"target":{"gpu":"rtx-a6000"}})");
  ASSERT_TRUE(a6000["ok"].get<bool>()) << a6000.dump();
  EXPECT_NE(a6000["fit"]["verdict"], "no_fit");
  EXPECT_EQ(a6000["fit"]["cuda_memory_bytes"], 49140.0 * 1048576.0);  // nvidia-smi total, not 48e9
  const json l4 = call("estimate", "{" + job + R"(,"target":{"gpu":"l4"}})");
  EXPECT_EQ(l4["fit"]["verdict"], "no_fit");
  EXPECT_FALSE(l4["matched"].get<bool>());
}

// torchtune's memory table: Llama 3.2 3B full fine-tune, batch 2, seq 4096, one A100 80GB, 60.0 GiB peak.
TEST(FitVerdict, TorchtuneLlama32FullFineTuneFitsOneA100) {
  const json r = call("estimate", R"({"model":"llama-3.2-3b","method":"full","precision":"bf16","micro_batch":2,
      "seq_len":4096,"global_batch":2,"recompute":"none","target":{"gpu":"a100-sxm-80gb"}})");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_NE(r["fit"]["verdict"], "no_fit");
}

// `estimate` applies the accumulation `plan` derives from global_batch: the same query, one answer.
TEST(FitVerdict, EstimateAppliesGradientAccumulationLikePlan) {
  const std::string q = R"({"model":"llama-2-7b","method":"full","precision":"fp8-mixed","micro_batch":1,
      "seq_len":4096,"global_batch":128,"recompute":"none","parallel":{"gpus":8,"dp":8,"zero":1},
      "target":{"gpu":"h100-sxm"}})";
  const json e = call("estimate", q);
  ASSERT_TRUE(e["ok"].get<bool>()) << e.dump();
  EXPECT_EQ(e["grad_accum"], 16);
  json pq = json::parse(q);
  pq["target"] = {{"offer", "aws/p5.48xlarge/us-east-1"}};
  const json p = call("plan", pq.dump());
  ASSERT_TRUE(p["ok"].get<bool>()) << p.dump();
  ASSERT_TRUE(p["plan"]["fits"].get<bool>()) << p.dump();
  EXPECT_EQ(p["plan"]["best"]["memory_bytes"], e["memory"]["total_bytes"]);
  EXPECT_EQ(p["plan"]["best"]["verdict"], e["fit"]["verdict"]);
  // A global batch that does not split is refused with the field named.
  json bad = json::parse(q);
  bad["global_batch"] = 12;
  EXPECT_EQ(call("estimate", bad.dump())["error"]["field"], "global_batch");
}

// A fixed TP layout: `estimate` and `plan` count the same memory, with sequence parallelism unless the query turns it
// off (the planner used to pair TP with SP whatever the query said, while `estimate` took the key's default, off).
TEST(FitVerdict, FixedTensorParallelLayoutGetsOneAnswerWithAndWithoutSequenceParallelism) {
  const std::string q = R"({"model":"llama-3.1-8b","method":"full","seq_len":8192,"micro_batch":1,
      "global_batch":16,"recompute":"selective","parallel":{"gpus":8,"tp":4,"dp":2,"zero":1},
      "target":{"offer":"aws/p5.48xlarge/us-east-1","gpu":"h100-sxm"}})";
  double activations[2] = {0, 0}, tokens_per_s[2] = {0, 0};
  for (int sp = 1; sp >= 0; --sp) {
    json jq = json::parse(q);
    if (!sp) jq["parallel"]["sequence_parallel"] = false;
    const json e = call("estimate", jq.dump());
    ASSERT_TRUE(e["ok"].get<bool>()) << e.dump();
    const json p = call("plan", jq.dump());
    ASSERT_TRUE(p["ok"].get<bool>()) << p.dump();
    EXPECT_EQ(p["plan"]["best"]["memory_bytes"], e["memory"]["total_bytes"]) << "sequence_parallel " << sp;
    activations[sp] = e["memory"]["activations_bytes"].get<double>();
    tokens_per_s[sp] = p["plan"]["best"]["tokens_per_s"].get<double>();
  }
  // The plan is timed with the query's choice too: replicated norms cost each TP rank the full width's share.
  EXPECT_NE(tokens_per_s[0], tokens_per_s[1]);
  // Without SP the norms' and dropouts' activations are replicated on the 4 TP ranks (Korthikanti et al. 2022 §4.2.2).
  EXPECT_GT(activations[0], 1.2 * activations[1]);
}

// A fixed layout with context parallelism is evaluated by every verb (gpus = tp x pp x dp x cp).
TEST(FitVerdict, FixedLayoutWithContextParallelismWorksEverywhere) {
  const std::string q = R"({"model":"llama-3.1-8b","method":"full","seq_len":32768,"micro_batch":1,
      "global_batch":4,"parallel":{"gpus":8,"dp":4,"cp":2,"zero":1},"target":{"offer":"aws/p5.48xlarge/us-east-1",
      "gpu":"h100-sxm"}})";
  const json e = call("estimate", q);
  ASSERT_TRUE(e["ok"].get<bool>()) << e.dump();
  const json p = call("plan", q);
  ASSERT_TRUE(p["ok"].get<bool>()) << p.dump();
  ASSERT_TRUE(p["plan"]["fits"].get<bool>()) << p.dump();
  EXPECT_EQ(p["plan"]["best"]["cp"], 2);
  EXPECT_EQ(p["plan"]["best"]["dp"], 4);
  EXPECT_NE(p["plan"]["best"]["summary"].get<std::string>().find("CP 2"), std::string::npos);
  EXPECT_GT(p["plan"]["best"]["step"]["cp_comm_s"].get<double>(), 0);
  EXPECT_EQ(p["plan"]["best"]["memory_bytes"], e["memory"]["total_bytes"]);
  const json c = call("cost", q);
  ASSERT_TRUE(c["ok"].get<bool>()) << c.dump();
  // CP halves the activations of a sequence: the same layout with cp 1 needs more memory per GPU.
  json no_cp = json::parse(q);
  no_cp["parallel"] = {{"gpus", 8}, {"dp", 8}, {"zero", 1}};
  no_cp["global_batch"] = 8;
  EXPECT_GT(call("estimate", no_cp.dump())["memory"]["activations_bytes"].get<double>(),
            1.9 * e["memory"]["activations_bytes"].get<double>());
}

// For long sequences the search tries context parallelism and uses it when one sequence's activations are what
// does not fit.
TEST(FitVerdict, PlannerChoosesContextParallelismForLongSequences) {
  const json p = call("plan", R"({"model":"llama-3.1-8b","method":"full","seq_len":131072,"micro_batch":1,
      "global_batch":8,"target":{"offer":"aws/p5.48xlarge/us-east-1"}})");
  ASSERT_TRUE(p["ok"].get<bool>()) << p.dump();
  ASSERT_TRUE(p["plan"]["fits"].get<bool>()) << p.dump();
  EXPECT_GT(p["plan"]["best"]["cp"].get<int>(), 1);
  // Short sequences never pay for it.
  const json s = call("plan", R"({"model":"llama-3.1-8b","method":"full","seq_len":2048,
      "target":{"offer":"aws/p5.48xlarge/us-east-1"}})");
  EXPECT_EQ(s["plan"]["best"]["cp"], 1);
}

// precision "auto": bf16-mixed where the GPU has BF16, fp16-mixed on a T4 (no BF16), named in the plan; a T4
// offer is ranked instead of "unsupported".
TEST(FitVerdict, AutoPrecisionTrainsFp16OnGpusWithoutBf16) {
  const json t4 = call("plan", R"({"model":"qwen2.5-0.5b","method":"lora","target":{"offer":"aws/g4dn.xlarge/us-east-1"}})");
  ASSERT_TRUE(t4["ok"].get<bool>()) << t4.dump();
  EXPECT_EQ(t4["plan"]["precision"], "fp16-mixed");
  const json h100 = call("plan", R"({"model":"qwen2.5-0.5b","method":"lora","target":{"offer":"aws/p5.48xlarge/us-east-1"}})");
  EXPECT_EQ(h100["plan"]["precision"], "bf16-mixed");
  const json forced = call("plan", R"({"model":"qwen2.5-0.5b","method":"lora","precision":"bf16-mixed",
      "target":{"offer":"aws/g4dn.xlarge/us-east-1"}})");
  EXPECT_FALSE(forced["matched"].get<bool>());  // asking for BF16 on a T4 still says why not
}

// The default query ranks nearly every priced offer: no GPU is left "unsupported" for a missing datasheet figure
// (estimated figures are used and flagged), no T4/V100 for lack of BF16. What is left does not fit.
TEST(FitVerdict, DefaultQueryLeavesNoOfferUnsupported) {
  const json r = call("rank", "{}");
  ASSERT_TRUE(r["ok"].get<bool>());
  EXPECT_EQ(r["counts"]["unsupported"], 0);
  // 95% of the offers whose GPU count is a power of two: the market added Hyperstack's 16 GB RTX A4000 (1x too small)
  // and the 8-12 GB GeForce cards of the marketplaces (Vast.ai RTX 3060/3070/3080, RTX A2000 6 GB). Offers of 3, 5,
  // 6, 7, 9-12 GPUs (RunPod pods, 1,300+ of them, a few Daytona/Lium/Vast ones) get no parallel layout from the
  // planner today (it splits 32 heads and the batch by powers of two only): left out of the share.
  const json all = call("rank", R"({"filters":{"show_all":true}})");
  const Snapshot& s = test::bundled_snapshot();
  int ranked = 0, no_fit = 0;
  for (const json& row : all["rows"]) {
    const int i = s.find_offer(row["offer"].get<std::string>());
    ASSERT_GE(i, 0);
    const int n = s.offers[i].gpu_count;
    const std::string state = row["state"].get<std::string>();
    if ((n & (n - 1)) != 0) continue;
    ranked += state == "ranked";
    no_fit += state == "does_not_fit";
  }
  EXPECT_GE(ranked, 0.95 * (ranked + no_fit)) << ranked << " ranked, " << no_fit << " do not fit";
  bool saw_estimated = false;
  for (const json& row : r["rows"])
    for (const json& f : row["flags"]) saw_estimated = saw_estimated || f == "estimated_spec";
  EXPECT_TRUE(saw_estimated) << "offers on estimated GPU figures are ranked and flagged";
}

// filters.must_fit keeps only `fits`: no ranked row is tight, and one that was tight is replanned or dropped.
TEST(FitVerdict, MustFitKeepsOnlyFittingPlans) {
  const json all = call("rank", R"({"model":"llama-3.1-8b","method":"lora"})");
  ASSERT_GT(all["counts"]["tight"].get<int>(), 0) << "the default job should have tight rows for this test";
  const json strict = call("rank", R"({"model":"llama-3.1-8b","method":"lora","filters":{"must_fit":true}})");
  EXPECT_EQ(strict["counts"]["tight"], 0);
  for (const json& row : strict["rows"])
    if (row["state"] == "ranked") {
      EXPECT_EQ(row["verdict"], "fits") << row["offer"];
    }
}

}  // namespace
}  // namespace trainfit
