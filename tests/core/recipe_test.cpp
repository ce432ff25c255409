// trainfit — launch recipes (recipe.h): every ranked row gets files that agree with its plan, the numbers come
// from the plan and the cost model, hostile snapshot strings cannot change a file's structure, and bad targets
// are refused with the field named. (tests/recipe/check_recipes.py parses the files with PyYAML and bash.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "trainfit/catalog/model.h"
#include "trainfit/facade/api.h"
#include "trainfit/storage/bundled.h"
#include "trainfit/query/query.h"
#include "trainfit/market/rank.h"
#include "trainfit/launch/recipe.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {
namespace {

const Snapshot& bundled() {
  static const Snapshot s = *load_snapshot(embedded_snapshot_json());
  return s;
}

const RecipeFile& file_of(const Recipe& r, const std::string& format) {
  for (const RecipeFile& f : r.files)
    if (f.format == format) return f;
  static const RecipeFile none;
  ADD_FAILURE() << "no " << format << " file";
  return none;
}

Query target(Query q, const std::string& offer, PricingFilter pricing, int nodes = 0) {
  q.target.offer = offer;
  q.target.pricing = pricing;
  q.target.nodes = nodes;
  return q;
}

// Checks one recipe against the plan it was written from (the DeepSpeed JSON parsed, the launchers searched).
void expect_agrees_with_plan(const Recipe& r, const Offer& o) {
  const MemoryLayout& l = r.plan.layout;
  EXPECT_EQ(l.micro_batch * l.num_microbatches * l.dp, r.plan.global_batch);
  EXPECT_EQ(r.gpus_per_node, o.gpu_count);
  EXPECT_EQ(r.nproc_per_node * r.nodes, l.tp * l.pp * l.dp * l.cp);
  ASSERT_EQ(r.files.size(), static_cast<size_t>(kRecipeFormatCount));
  // A launcher that does not know the provider writes no file and says why; the notes name the launch path.
  const RecipeFile& skyf = file_of(r, "skypilot");
  const RecipeFile& dstackf = file_of(r, "dstack");
  EXPECT_EQ(skyf.applies, !skyf.text.empty());
  EXPECT_EQ(dstackf.applies, !dstackf.text.empty());
  if (!skyf.applies) {
    EXPECT_FALSE(skyf.why.empty());
  }
  if (!dstackf.applies) {
    EXPECT_FALSE(dstackf.why.empty());
  }
  if (!skyf.applies || !dstackf.applies) {
    EXPECT_FALSE(r.notes.empty());
  }
  const std::string& sky = skyf.text;
  if (skyf.applies) {
    EXPECT_NE(sky.find("num_nodes: " + std::to_string(r.nodes) + "\n"), std::string::npos) << sky;
    if (!r.accelerators.empty()) {
      EXPECT_EQ(r.accelerators.substr(r.accelerators.find(':') + 1), std::to_string(o.gpu_count));
      EXPECT_NE(sky.find("accelerators: \"" + r.accelerators + "\""), std::string::npos);
    }
    EXPECT_NE(sky.find(std::string("use_spot: ") + (r.option == PricingOption::spot ? "true" : "false")), std::string::npos);
  }
  if (dstackf.applies) {
    EXPECT_NE(dstackf.text.find("nodes: " + std::to_string(r.nodes) + "\n"), std::string::npos);
  }
  const RecipeFile& ds = file_of(r, "deepspeed");
  if (ds.applies) {
    nlohmann::json d = nlohmann::json::parse(ds.text);
    EXPECT_EQ(d["train_batch_size"].get<int64_t>(), r.plan.global_batch);
    EXPECT_EQ(d["train_micro_batch_size_per_gpu"].get<int64_t>(), l.micro_batch);
    EXPECT_EQ(d["gradient_accumulation_steps"].get<int64_t>(), l.num_microbatches);
    EXPECT_EQ(d["zero_optimization"]["stage"].get<int>(), l.zero);
  } else {
    EXPECT_TRUE(l.tp > 1 || l.pp > 1 || l.cp > 1) << ds.why;
  }
  for (const RecipeFile& f : r.files) {
    // Every placeholder is of the one form and listed.
    for (size_t at = f.text.find("<FILL"); at != std::string::npos; at = f.text.find("<FILL", at + 1)) {
      const size_t end = f.text.find('>', at);
      ASSERT_NE(end, std::string::npos);
      const std::string p = f.text.substr(at, end - at + 1);
      EXPECT_EQ(p.rfind(kFillPrefix, 0), 0u) << p;
      EXPECT_NE(std::find(r.placeholders.begin(), r.placeholders.end(), p), r.placeholders.end()) << p;
    }
  }
  EXPECT_GE(r.save_interval_steps, 1);
  EXPECT_LE(static_cast<double>(r.save_interval_steps), std::max(1.0, r.steps));
  EXPECT_GE(r.disk_size_GB, 256);
}

TEST(Recipe, EveryRankedRowOfTheDefaultJobGetsFilesThatAgreeWithItsPlan) {
  const Query q = default_query();
  Result<RankResult> rr = rank_offers(q, bundled());
  ASSERT_TRUE(rr.ok());
  int checked = 0;
  for (const RankRow& row : rr->rows) {
    if (row.state != RowState::ranked) continue;
    const Offer& o = bundled().offers[row.offer];
    SCOPED_TRACE(o.id);
    const PricingFilter pf = pricing_filter_of(row.option);
    Result<Recipe> r = make_recipe(target(q, o.id, pf, row.nodes), bundled());
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_EQ(r->nodes, row.nodes);
    EXPECT_EQ(r->option, row.option);
    const Plan& p = rr->shapes[row.shape].plan().by_nodes[row.plan_index];
    EXPECT_EQ(r->plan.layout.tp, p.layout.tp);
    EXPECT_EQ(r->plan.layout.dp, p.layout.dp);
    EXPECT_EQ(r->plan.layout.micro_batch, p.layout.micro_batch);
    EXPECT_EQ(r->plan.global_batch, p.global_batch);
    expect_agrees_with_plan(*r, o);
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

TEST(Recipe, TwoNodeTensorAndPipelineLayoutWritesMegatronArgumentsAndRefusesDeepSpeedAlone) {
  Result<Query> q = parse_query_json(R"({"model": "qwen2.5-32b", "method": "full", "seq_len": 4096,
      "micro_batch": 1, "global_batch": 128, "recompute": "full",
      "parallel": {"gpus": 16, "tp": 4, "pp": 2, "dp": 2, "zero": 1, "sequence_parallel": true},
      "dataset": {"tokens": 5e9}, "target": {"offer": "aws/p5.48xlarge/us-east-1", "nodes": 2, "pricing": "on-demand"}})");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  Result<Recipe> r = make_recipe(*q, bundled());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->engine, "megatron");
  EXPECT_EQ(r->nodes, 2);
  EXPECT_EQ(r->accelerators, "H100:8");
  EXPECT_EQ(r->plan.layout.num_microbatches, 64);  // 128 / (1 x DP 2)
  const std::string& m = file_of(*r, "megatron").text;
  // Qwen2.5's config.json rope_theta is 1000000; Megatron-LM validate_args asserts CUDA_DEVICE_MAX_CONNECTIONS=1
  // with TP > 1 on Hopper.
  for (const char* want : {"--tensor-model-parallel-size 4\n", "--pipeline-model-parallel-size 2\n",
                           "--sequence-parallel\n", "--use-distributed-optimizer\n", "--micro-batch-size 1\n",
                           "--global-batch-size 128\n", "--recompute-granularity full", "--bf16\n",
                           "--rotary-base 1000000\n", "export CUDA_DEVICE_MAX_CONNECTIONS=1\n"})
    EXPECT_NE(m.find(want), std::string::npos) << want << "\n" << m;
  EXPECT_EQ(m.find("--num-layers-per-virtual-pipeline-stage"), std::string::npos);
  EXPECT_NE(m.find("--save-interval " + std::to_string(r->save_interval_steps) + "\n"), std::string::npos);
  EXPECT_FALSE(file_of(*r, "deepspeed").applies);
  EXPECT_FALSE(file_of(*r, "accelerate").applies);
  expect_agrees_with_plan(*r, bundled().offers[bundled().find_offer("aws/p5.48xlarge/us-east-1")]);
}

// The Megatron arguments rebuild each family's architecture from the model's knobs (Megatron-LM arguments.py and
// transformer_config.py at d98e8a64): what a flag expresses is written, what none does is a named blank and a note,
// never another architecture trained silently.
std::string megatron_text(const std::string& query, Recipe* out = nullptr) {
  Result<Query> q = parse_query_json(query);
  EXPECT_TRUE(q.ok()) << q.error().to_string();
  if (!q.ok()) return "";
  Result<Recipe> r = make_recipe(*q, bundled());
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  if (!r.ok()) return "";
  if (out) *out = *r;
  return file_of(*r, "megatron").text;
}

std::string megatron_query(const std::string& model, const std::string& offer, const std::string& extra = "") {
  return R"({"model": ")" + model + R"(", "method": "full", "framework": "megatron-core", "seq_len": 4096,)" + extra +
         R"( "dataset": {"tokens": 1e9}, "target": {"offer": ")" + offer + R"(", "pricing": "on-demand"}})";
}

// torchtitan plans launch torchtitan: torchtitan.toml (its v0.2.x job config) with the plan's degrees and batches,
// torchrun running the module; the Megatron, DeepSpeed and accelerate files step aside. A plan made for another
// framework gets no torchtitan file, and a torchtitan plan the file cannot carry (fp16: torchtitan trains in bf16 or
// fp32) falls back to the Megatron / Hugging Face arguments with a note. (tests/recipe runs torchtitan's own checks.)
TEST(Recipe, TorchtitanPlansWriteTorchtitansJobConfig) {
  const char* job = R"({"model": "llama-3.1-8b", "method": "full", "framework": "torchtitan", "seq_len": 4096,
      "micro_batch": 1, "global_batch": 64, "recompute": "selective", "parallel": {"gpus": 8, "dp": 8, "zero": 3},
      "dataset": {"tokens": 1e9}, "target": {"offer": "aws/p5.48xlarge/us-east-1", "nodes": 1, "pricing": "on-demand"}})";
  Result<Query> q = parse_query_json(job);
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  Result<Recipe> r = make_recipe(*q, bundled());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->engine, "torchtitan");
  const RecipeFile& t = file_of(*r, "torchtitan");
  ASSERT_TRUE(t.applies) << t.why;
  EXPECT_EQ(t.filename, "torchtitan.toml");
  for (const char* want : {"name = \"llama3\"\n", "flavor = \"8B\"\n", "local_batch_size = 1\n", "global_batch_size = 64\n",
                           "seq_len = 4096\n", "data_parallel_shard_degree = 8\n", "data_parallel_replicate_degree = 1\n",
                           "mode = \"selective\"\nselective_ac_option = \"op\"\n"})
    EXPECT_NE(t.text.find(want), std::string::npos) << want << "\n" << t.text;
  EXPECT_NE(t.text.find("interval = " + std::to_string(r->save_interval_steps) + "\n"), std::string::npos);
  EXPECT_NE(file_of(*r, "torchrun").text.find("  -m torchtitan.train \\\n  --job.config_file torchtitan.toml\n"),
            std::string::npos) << file_of(*r, "torchrun").text;
  for (const char* other : {"megatron", "deepspeed", "accelerate"}) {
    EXPECT_FALSE(file_of(*r, other).applies) << other;
    EXPECT_NE(file_of(*r, other).why.find("torchtitan job"), std::string::npos) << file_of(*r, other).why;
  }
  // Compiled by default (the profile's rates are compiled runs'); a job run eager says so.
  EXPECT_NE(t.text.find("[compile]\nenable = true\ncomponents = [\"model\", \"loss\"]\n"), std::string::npos) << t.text;
  Query eager = *q;
  eager.train.compile = Compile::off;
  Result<Recipe> e = make_recipe(eager, bundled());
  ASSERT_TRUE(e.ok()) << e.error().to_string();
  EXPECT_NE(file_of(*e, "torchtitan").text.find("[compile]\nenable = false\n"), std::string::npos)
      << file_of(*e, "torchtitan").text;
  // The same job under Megatron-Core: no torchtitan file, and why.
  Query generic = *q;
  generic.train.framework = Framework::megatron_core;
  Result<Recipe> g = make_recipe(generic, bundled());
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_NE(g->engine, "torchtitan");
  EXPECT_FALSE(file_of(*g, "torchtitan").applies);
  EXPECT_NE(file_of(*g, "torchtitan").why.find("not a torchtitan job"), std::string::npos);
  // fp16: torchtitan.toml cannot say it, so the launchers keep the other arguments and the file says why.
  Query fp16 = *q;
  fp16.train.precision = Precision::fp16_mixed;
  Result<Recipe> h = make_recipe(fp16, bundled());
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_NE(h->engine, "torchtitan");
  EXPECT_NE(file_of(*h, "torchtitan").why.find("not fp16"), std::string::npos) << file_of(*h, "torchtitan").why;
}

// nanotron plans launch nanotron: nanotron.yaml (its main branch's config) with the plan's degrees, 1F1B, batches and
// the architecture as LlamaConfig or Qwen2Config; torchrun runs run_train.py on it. Another framework's plan gets no
// nanotron file, and a model nanotron's classes cannot build (Qwen3's q/k norm) or fp16 falls back to the Megatron
// arguments with a note. (tests/recipe loads every file with nanotron's own config code.)
TEST(Recipe, NanotronPlansWriteNanotronsConfig) {
  const char* job = R"({"model": "llama-3.1-8b", "method": "full", "framework": "nanotron", "seq_len": 4096,
      "micro_batch": 2, "global_batch": 64, "recompute": "full", "parallel": {"gpus": 8, "tp": 2, "pp": 2, "dp": 2,
      "zero": 1, "sequence_parallel": true}, "dataset": {"tokens": 1e9},
      "target": {"offer": "aws/p5.48xlarge/us-east-1", "nodes": 1, "pricing": "on-demand"}})";
  Result<Query> q = parse_query_json(job);
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  Result<Recipe> r = make_recipe(*q, bundled());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->engine, "nanotron");
  const RecipeFile& n = file_of(*r, "nanotron");
  ASSERT_TRUE(n.applies) << n.why;
  EXPECT_EQ(n.filename, "nanotron.yaml");
  for (const char* want : {"  dp: 2\n  tp: 2\n  pp: 2\n  pp_engine: 1f1b\n  tp_mode: REDUCE_SCATTER\n",
                           "  recompute_layer: true\n", "    is_llama_config: true\n", "    num_key_value_heads: 8\n",
                           "    rope_theta: 500000.0\n", "  micro_batch_size: 2\n  batch_accumulation_per_replica: 16\n",
                           "  zero_stage: 1\n", "  accumulate_grad_in_fp32: true\n"})
    EXPECT_NE(n.text.find(want), std::string::npos) << want << "\n" << n.text;
  EXPECT_NE(n.text.find("  checkpoint_interval: " + std::to_string(r->save_interval_steps) + "\n"), std::string::npos);
  const std::string& sh = file_of(*r, "torchrun").text;
  EXPECT_NE(sh.find("  run_train.py \\\n  --config-file nanotron.yaml\n"), std::string::npos) << sh;
  EXPECT_NE(sh.find("export CUDA_DEVICE_MAX_CONNECTIONS=1\n"), std::string::npos) << sh;
  for (const char* other : {"megatron", "deepspeed", "accelerate", "torchtitan"}) {
    EXPECT_FALSE(file_of(*r, other).applies) << other;
    EXPECT_FALSE(file_of(*r, other).why.empty()) << other;
  }
  // The same job under Megatron-Core: no nanotron file, and why.
  Query generic = *q;
  generic.train.framework = Framework::megatron_core;
  Result<Recipe> g = make_recipe(generic, bundled());
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_NE(g->engine, "nanotron");
  EXPECT_NE(file_of(*g, "nanotron").why.find("not a nanotron job"), std::string::npos);
  // Models nanotron.yaml cannot write: Qwen3's per-head q/k RMSNorm; Qwen2.5's q/k/v biases (nanotron's Qwen2 model,
  // which its main branch cannot feed from a Hugging Face dataset). The launchers keep the Megatron arguments.
  for (const auto& [id, why] : {std::pair<const char*, const char*>{"qwen3-8b", "Llama model"},
                                {"qwen2.5-7b", "Qwen2 model"}}) {
    Query other = *q;
    other.model = *find_model(id);
    other.model_id = id;
    Result<Recipe> h = make_recipe(other, bundled());
    ASSERT_TRUE(h.ok()) << id << ": " << h.error().to_string();
    EXPECT_EQ(h->engine, "megatron") << id;
    EXPECT_NE(file_of(*h, "nanotron").why.find(why), std::string::npos) << file_of(*h, "nanotron").why;
    EXPECT_TRUE(file_of(*h, "megatron").applies) << id;
  }
  // fp32: nanotron's fp32 gradient accumulator refuses fp32 parameters.
  Query fp32 = *q;
  fp32.train.precision = Precision::fp32;
  Result<Recipe> f = make_recipe(fp32, bundled());
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_NE(f->engine, "nanotron");
  EXPECT_NE(file_of(*f, "nanotron").why.find("not fp32"), std::string::npos) << file_of(*f, "nanotron").why;
}

TEST(Recipe, MegatronArgumentsCarryEachFamilysArchitecture) {
  const std::string h100 = "lambda/gpu_8x_h100_sxm5/us-east-1";
  // Qwen3: per-head q/k RMSNorm, head_dim 128 (hidden 2048 / 32 heads would be 64), rotary base 1e6, no dropout
  // (Megatron's default is 0.1), the config's vocabulary unpadded.
  std::string m = megatron_text(megatron_query("qwen3-30b-a3b", h100));
  for (const char* want : {"--qk-layernorm\n", "--kv-channels 128\n", "--rotary-base 1000000\n",
                           "--attention-dropout 0.0 --hidden-dropout 0.0\n", "--padded-vocab-size 151936\n",
                           "--num-experts 128 --moe-router-topk 8\n", "--swiglu\n", "--normalization RMSNorm\n"})
    EXPECT_NE(m.find(want), std::string::npos) << want << "\n" << m;
  EXPECT_EQ(m.find("<FILL: Megatron-LM flags"), std::string::npos) << m;
  // Mistral Nemo: head_dim 128 where hidden 5120 / 32 heads = 160.
  m = megatron_text(megatron_query("mistral-nemo-12b", h100));
  EXPECT_NE(m.find("--kv-channels 128\n"), std::string::npos) << m;
  // GPT-2: Megatron's defaults (LayerNorm, learned positions, biases, tied, dropout 0.1) plus the tanh GELU.
  m = megatron_text(megatron_query("gpt2", h100));
  EXPECT_NE(m.find("--openai-gelu\n"), std::string::npos) << m;
  for (const char* absent : {"--swiglu", "--disable-bias-linear", "--untie-embeddings", "--attention-dropout"})
    EXPECT_EQ(m.find(absent), std::string::npos) << absent << "\n" << m;
  // Gemma 3: windowed layers with one global layer in six are flags; the GeGLU MLP and sandwich norms are not.
  Recipe r;
  m = megatron_text(megatron_query("gemma-3-1b", h100), &r);
  EXPECT_NE(m.find("--window-size 511,0\n"), std::string::npos) << m;
  EXPECT_NE(m.find("--window-attn-skip-freq 6\n"), std::string::npos) << m;
  EXPECT_NE(m.find("<FILL: Megatron-LM flags for a GeGLU MLP and sandwich norms (pre + post)>"), std::string::npos) << m;
  bool noted = false;
  for (const std::string& n : r.notes) noted = noted || n.find("no flags for a GeGLU MLP") != std::string::npos;
  EXPECT_TRUE(noted);
}

// DeepSeek-V3: multi-head latent attention from its config (q_lora_rank 1536, kv_lora_rank 512, qk 128 + 64, v 128),
// the first three layers dense (first_k_dense_replace 3) as --moe-layer-freq's list, the router left as a blank.
TEST(Recipe, MegatronArgumentsForDeepSeekV3CarryLatentAttentionAndTheDenseLayers) {
  const std::string m = megatron_text(megatron_query("deepseek-v3", "aws/p5.48xlarge/us-east-1",
      R"( "precision": "fp8-mixed", "global_batch": 8192, "filters": {"max_nodes": 128},)"));
  for (const char* want : {"--multi-latent-attention --kv-lora-rank 512 --qk-head-dim 128 --qk-pos-emb-head-dim 64 "
                           "--v-head-dim 128\n", "--q-lora-rank 1536\n", "--moe-shared-expert-intermediate-size 2048\n",
                           "--expert-model-parallel-size "})
    EXPECT_NE(m.find(want), std::string::npos) << want << "\n" << m;
  std::string pattern = "--moe-layer-freq '[0,0,0";
  for (int i = 3; i < 61; ++i) pattern += ",1";
  EXPECT_NE(m.find(pattern + "]'\n"), std::string::npos) << m;
  EXPECT_NE(m.find("DeepSeek-V3's router"), std::string::npos) << m;
  EXPECT_EQ(m.find("--kv-channels"), std::string::npos) << m;
}

// Uneven pipeline stages (framework.h megatron_pipeline_split): Llama 3.1 405B's 126 layers over PP 16 x VP 4 are
// launched as Megatron does the published 405B recipe: embedding and loss counted as a layer each (128 = 64 x 2),
// virtual stages by count, not --num-layers-per-virtual-pipeline-stage (which needs an even split).
TEST(Recipe, UnevenPipelineLayoutCountsTheEmbeddingAndLossInTheSplit) {
  Result<Query> q = parse_query_json(R"({"model": "llama-3.1-405b", "method": "full", "framework": "megatron-core",
      "precision": "fp8-mixed", "seq_len": 8192, "micro_batch": 1, "global_batch": 512, "recompute": "none",
      "parallel": {"gpus": 512, "tp": 8, "pp": 16, "vp": 4, "cp": 4, "dp": 1, "zero": 1, "sequence_parallel": true},
      "dataset": {"tokens": 1e9}, "filters": {"max_nodes": 64},
      "target": {"offer": "aws/p5.48xlarge/us-east-1", "nodes": 64, "pricing": "on-demand"}})");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  Result<Recipe> r = make_recipe(*q, bundled());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->engine, "megatron");
  const std::string& m = file_of(*r, "megatron").text;
  for (const char* want : {"--pipeline-model-parallel-size 16\n", "--account-for-embedding-in-pipeline-split\n",
                           "--account-for-loss-in-pipeline-split\n", "--num-virtual-stages-per-pipeline-rank 4\n",
                           "--context-parallel-size 4\n"})
    EXPECT_NE(m.find(want), std::string::npos) << want << "\n" << m;
  EXPECT_EQ(m.find("--num-layers-per-virtual-pipeline-stage"), std::string::npos) << m;
}

TEST(Recipe, SpotRecipeCheckpointsToABucketAtTheCostModelsIntervalAndResumes) {
  Query q = default_query();
  q.train.method = Method::full;
  q.train.global_batch = 256;
  q.dataset.tokens = 5e9;
  q = target(q, "aws/p5.48xlarge/us-east-1", PricingFilter::spot);
  Result<Recipe> r = make_recipe(q, bundled());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->option, PricingOption::spot);
  // Young/Daly under the assumed interruption rate: far shorter than the run, so several saves.
  EXPECT_GT(r->checkpoint_interval_s, 0);
  EXPECT_LT(r->save_interval_steps, r->steps);
  EXPECT_LE(r->save_interval_steps * r->plan.step.total_s, r->checkpoint_interval_s * (1 + 1e-9));
  const std::string& sky = file_of(*r, "skypilot").text;
  EXPECT_NE(sky.find("file_mounts:\n  /checkpoints:\n    name: \"<FILL: checkpoint bucket>\"\n    mode: MOUNT\n"),
            std::string::npos) << sky;
  EXPECT_NE(sky.find("--resume_from_checkpoint"), std::string::npos);
  EXPECT_NE(sky.find("--save_steps " + std::to_string(r->save_interval_steps) + " "), std::string::npos);
  EXPECT_NE(file_of(*r, "dstack").text.find("spot_policy: spot\n"), std::string::npos);
  // A preempted run is resubmitted: SkyPilot managed-job recovery, dstack retry on interruption.
  EXPECT_NE(sky.find("  job_recovery:\n    strategy: FAILOVER\n"), std::string::npos) << sky;
  EXPECT_NE(file_of(*r, "dstack").text.find("retry:\n  on_events: [no-capacity, interruption]\n"), std::string::npos);
  // Every format saves at the same number of steps.
  for (const char* f : {"torchrun", "dstack"})
    EXPECT_NE(file_of(*r, f).text.find("--save_steps " + std::to_string(r->save_interval_steps) + " "), std::string::npos);
}

// ZeRO-3 with the optimizer offloaded on a provider no launcher knows (Lium): DeepSpeed's config lets the
// Trainer's AdamW run offloaded, accelerate points at that config, Megatron-LM is not written (it has no offload),
// SkyPilot and dstack are not written and the notes give the SSH + torchrun path.
TEST(Recipe, OffloadPlanOnAnUnlaunchedProviderWritesOnlyWhatRunsIt) {
  Result<Query> q = parse_query_json(R"({"model": "llama-3.1-8b", "method": "full", "seq_len": 2048,
      "micro_batch": 1, "global_batch": 64, "recompute": "full",
      "parallel": {"gpus": 8, "dp": 8, "zero": 3, "offload_optimizer": true}, "dataset": {"tokens": 1e9},
      "target": {"offer": "lium/B200_8x/FI", "pricing": "on-demand"}})");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  Result<Recipe> r = make_recipe(*q, bundled());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  nlohmann::json d = nlohmann::json::parse(file_of(*r, "deepspeed").text);
  EXPECT_EQ(d["zero_force_ds_cpu_optimizer"], false);
  const std::string& a = file_of(*r, "accelerate").text;
  EXPECT_NE(a.find("deepspeed_config_file: ds_config.json\n"), std::string::npos) << a;
  EXPECT_EQ(a.find("gradient_accumulation_steps"), std::string::npos) << a;
  EXPECT_FALSE(file_of(*r, "megatron").applies);
  EXPECT_FALSE(file_of(*r, "skypilot").applies);
  EXPECT_FALSE(file_of(*r, "dstack").applies);
  ASSERT_FALSE(r->notes.empty());
  EXPECT_NE(r->notes[0].find("torchrun.sh"), std::string::npos) << r->notes[0];
}

// A QLoRA plan that context parallelism makes (the generic profile restricts nothing) has no trainer among the
// recipes' to run it: the Megatron arguments describe the layout only, and the notes say so and name the way out.
TEST(Recipe, QloraWithContextParallelismSaysNoTrainerRunsIt) {
  Result<Query> q = parse_query_json(R"({"model": "llama-3.1-8b", "method": "qlora", "seq_len": 32768,
      "micro_batch": 1, "global_batch": 64, "parallel": {"gpus": 8, "cp": 8, "dp": 1, "zero": 3},
      "dataset": {"tokens": 1e9}, "target": {"offer": "aws/p5.48xlarge/us-east-1", "pricing": "on-demand"}})");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  Result<Recipe> r = make_recipe(*q, bundled());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_FALSE(file_of(*r, "megatron").applies);
  EXPECT_FALSE(file_of(*r, "deepspeed").applies);
  bool said = false;
  for (const std::string& n : r->notes) said = said || n.find("no trainer these recipes launch runs QLoRA") != std::string::npos;
  EXPECT_TRUE(said);
}

// dstack spells Vast.ai "vastai" and RTX 6000 Ada "RTX6000Ada"; memory is a range around the datasheet label.
TEST(Recipe, DstackNamesComeFromItsBackendAndCatalogSpelling) {
  Query q = default_query();
  int vast_ada = -1;
  for (int i = 0; i < static_cast<int>(bundled().offers.size()); ++i) {
    const Offer& o = bundled().offers[i];
    if (bundled().providers[o.provider].id == "vast" && o.via < 0 && bundled().gpus[o.gpu].id == "rtx-6000-ada") {
      vast_ada = i;
      break;
    }
  }
  ASSERT_GE(vast_ada, 0);
  Result<Recipe> r = make_recipe(target(q, bundled().offers[vast_ada].id, PricingFilter::on_demand), bundled());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const std::string& t = file_of(*r, "dstack").text;
  EXPECT_NE(t.find("backends: [\"vastai\"]\n"), std::string::npos) << t;
  EXPECT_NE(t.find("gpu: \"RTX6000Ada:43GB..53GB:"), std::string::npos) << t;
}

TEST(Recipe, HostileSnapshotStringsStayInsideQuotedScalars) {
  Snapshot s = bundled();
  const int oi = s.find_offer("lambda/gpu_1x_h100_pcie/us-east-1");
  ASSERT_GE(oi, 0);
  s.offers[oi].region = "us\"\nrun: rm -rf /";
  s.offers[oi].instance_type = "x\\y";
  Query q = target(default_query(), s.offers[oi].id, PricingFilter::on_demand);
  Result<Recipe> r = make_recipe(q, s);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  const std::string& sky = file_of(*r, "skypilot").text;
  EXPECT_NE(sky.find("  region: \"us\\\"\\x0arun: rm -rf /\"\n"), std::string::npos) << sky;
  EXPECT_NE(sky.find("  instance_type: \"x\\\\y\"\n"), std::string::npos) << sky;
  EXPECT_EQ(sky.find("\nrun: rm"), std::string::npos);
}

TEST(Recipe, BadTargetsAreRefusedNamingTheField) {
  Query q = default_query();
  Result<Recipe> none = make_recipe(q, bundled());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().field, "target.offer");
  Result<Recipe> unknown = make_recipe(target(q, "no/such/offer", PricingFilter::any), bundled());
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().field, "target.offer");
  // A single-GPU instance cannot be clustered into 3 nodes (max_nodes 1).
  Result<Recipe> nodes = make_recipe(target(q, "lambda/gpu_1x_h100_pcie/us-east-1", PricingFilter::any, 3), bundled());
  ASSERT_FALSE(nodes.ok());
  EXPECT_EQ(nodes.error().field, "target.nodes");
  // Lambda sells no spot capacity.
  Result<Recipe> spot = make_recipe(target(q, "lambda/gpu_1x_h100_pcie/us-east-1", PricingFilter::spot), bundled());
  ASSERT_FALSE(spot.ok());
  // The facade says the same in its error document.
  const std::string doc = api_call("recipe", R"({"target": {"offer": "no/such/offer"}})", &bundled());
  EXPECT_NE(doc.find("\"field\":\"target.offer\""), std::string::npos) << doc;
}

// A GCP N1 offer is a host VM plus attached GPUs, named "<host>+<ACCEL>:<count>" by the importer: SkyPilot launches
// it as instance_type = the host and accelerators = the GPU (sky/catalog/gcp_catalog.py pairs them the same way),
// dstack as the host machine type with the GPU in `gpu`.
TEST(Recipe, GcpN1OfferLaunchesItsHostMachineWithTheGpuAsAccelerators) {
  EXPECT_EQ(launch_instance_type("n1-highmem-4+T4:1"), "n1-highmem-4");
  EXPECT_EQ(launch_instance_type("p5.48xlarge"), "p5.48xlarge");
  Result<Recipe> r = make_recipe(target(default_query(), "gcp/n1-highmem-4+T4:1/us-central1", PricingFilter::on_demand),
                                 bundled());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->instance_type, "n1-highmem-4");
  EXPECT_EQ(r->accelerators, "T4:1");
  const std::string& sky = file_of(*r, "skypilot").text;
  EXPECT_NE(sky.find("  instance_type: \"n1-highmem-4\"\n  accelerators: \"T4:1\"\n"), std::string::npos) << sky;
  const std::string& dstack = file_of(*r, "dstack").text;
  EXPECT_NE(dstack.find("instance_types: [\"n1-highmem-4\"]\n"), std::string::npos) << dstack;
  // 16 GB +-10 %: a range that holds the catalog's figure (dstack matches memory against it).
  EXPECT_NE(dstack.find("gpu: \"T4:14GB..18GB:1\""), std::string::npos) << dstack;
}

TEST(Recipe, SkyPilotAcceleratorNamesFollowEachProvidersCatalog) {
  // AcceleratorName of the SkyPilot catalogs (v9 gcp/vms.csv, cudo/vms.csv, fluidstack/vms.csv, aws/vms.csv).
  EXPECT_EQ(skypilot_accelerator_name("gcp", "a3-megagpu-8g", "h100-sxm"), "H100-MEGA");
  EXPECT_EQ(skypilot_accelerator_name("gcp", "a3-highgpu-8g", "h100-sxm"), "H100");
  EXPECT_EQ(skypilot_accelerator_name("cudo", "any", "h100-sxm"), "H100-SXM");
  EXPECT_EQ(skypilot_accelerator_name("fluidstack", "any", "h100-sxm"), "H100-NVLINK");
  EXPECT_EQ(skypilot_accelerator_name("aws", "p4de.24xlarge", "a100-sxm-80gb"), "A100-80GB");
  EXPECT_EQ(skypilot_accelerator_name("aws", "x", "no-such-gpu"), "");
}

// The web page's module shows the recipe the JS API's module writes, read back from its document
// (api.h recipe_from_document): every field the Launch section shows comes back as make_recipe made it.
TEST(Recipe, TheDocumentReadBackGivesTheFilesMakeRecipeWrote) {
  for (const char* offer : {"aws/p5.48xlarge/us-east-1", "lambda/gpu_1x_h100_pcie/us-east-1"}) {
    Result<Query> base = parse_query_json(R"({"model": "llama-3.1-8b", "method": "full"})");
    ASSERT_TRUE(base);
    const Query q = target(*base, offer, PricingFilter::on_demand);
    const Result<Recipe> made = make_recipe(q, bundled());
    ASSERT_TRUE(made) << made.error().to_string();
    const Result<Recipe> read = recipe_from_document(api_call("recipe", query_to_json(q), &bundled()));
    ASSERT_TRUE(read) << read.error().to_string();
    EXPECT_EQ(read->offer, made->offer);
    EXPECT_EQ(read->instance_type, made->instance_type);
    EXPECT_EQ(read->accelerators, made->accelerators);
    EXPECT_EQ(read->option, made->option);
    EXPECT_EQ(read->nodes, made->nodes);
    EXPECT_EQ(read->notes, made->notes);
    EXPECT_EQ(read->placeholders, made->placeholders);
    ASSERT_EQ(read->files.size(), made->files.size());
    for (size_t i = 0; i < made->files.size(); ++i) {
      EXPECT_EQ(read->files[i].format, made->files[i].format);
      EXPECT_EQ(read->files[i].filename, made->files[i].filename);
      EXPECT_EQ(read->files[i].text, made->files[i].text);
      EXPECT_EQ(read->files[i].applies, made->files[i].applies);
      EXPECT_EQ(read->files[i].why, made->files[i].why);
    }
  }
  // A refused target comes back as the document's own error.
  const Result<Recipe> refused = recipe_from_document(api_call("recipe", R"({"target": {"offer": "nope"}})", &bundled()));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().field, "target.offer");
}

}  // namespace
}  // namespace trainfit
