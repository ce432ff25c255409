// Architecture knobs, Hugging Face config.json reading, and the presets of today's models.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "trainfit/facade/api.h"
#include "trainfit/estimate/memory.h"
#include "trainfit/catalog/model.h"
#include "trainfit/estimate/perf.h"
#include "trainfit/query/query.h"

namespace trainfit {
namespace {

const ModelSpec& preset(const char* id) {
  const ModelSpec* m = find_model(id);
  EXPECT_NE(m, nullptr) << id;
  static ModelSpec empty;
  return m ? *m : empty;
}

ParamCounts counts(const ModelSpec& m) {
  auto c = count_params(m);
  EXPECT_TRUE(c.ok()) << m.id << ": " << (c.ok() ? "" : c.error().to_string());
  return c.ok() ? *c : ParamCounts{};
}

std::string read_fixture(const std::string& name) {
  std::string text;
  const std::string path = std::string(TRAINFIT_SOURCE_DIR) + "/tests/fixtures/hf_configs/" + name + ".json";
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
  }
  EXPECT_FALSE(text.empty()) << path;
  return text;
}

// Every new preset's total against its published figure (sources: params_source in data/models.json, Hugging
// Face Hub API safetensors.total unless said otherwise). Written out here so a changed catalog entry cannot
// silently move its own expectation.
TEST(TodaysPresets, TotalsMatchThePublishedCountsExactly) {
  const std::pair<const char*, double> published[] = {
      {"llama-3.3-70b", 70553706496.0},   {"qwen3-0.6b", 751632384.0 - 151936.0 * 1024},  // tied head stored twice
      {"qwen3-1.7b", 2031739904.0 - 151936.0 * 2048},                                      // likewise
      {"qwen3-4b", 4022468096.0},         {"qwen3-8b", 8190735360.0},
      {"qwen3-14b", 14768307200.0},       {"qwen3-32b", 32762123264.0},
      {"qwen3-30b-a3b", 30532122624.0},   {"qwen3-235b-a22b", 235093634560.0},
      {"deepseek-v3", 671026419200.0},    // main model, no MTP layer (DeepSeek-V3 report: 671B)
      {"gemma-3-1b", 999885952.0},        {"gemma-3-4b", 3880263168.0},  // text model: GGUF n_params
      {"gemma-3-12b", 11766034176.0},     {"gemma-3-27b", 27009346304.0},
      {"mistral-small-3-24b", 23572403200.0}, {"mistral-nemo-12b", 12247782400.0},
      {"phi-4", 14659507200.0},           {"olmo-2-7b", 7298617344.0},
      {"olmo-2-13b", 13716198400.0},      {"olmo-2-32b", 32234279936.0},
  };
  for (const auto& [id, n] : published) EXPECT_EQ(counts(preset(id)).total, n) << id;
}

// No exact published count exists for these (Llama 4: the model card's 109B / 400B include the vision encoder
// and are rounded; gpt-oss: the Hub total counts MXFP4-packed blocks). They are checked against the count
// written out from the config here, and against the rounded published figures.
TEST(TodaysPresets, PresetsWithoutAnExactPublishedCountMatchTheirConfigAndTheRoundedFigures) {
  // Llama 4 Scout text_config: per layer q/o 5120 x 5120, k/v 5120 x 1024, 2 norms, router 5120 x 16,
  // 16 experts + 1 shared expert of 3 x 5120 x 8192; embedding and head 202048 x 5120; final norm.
  const double attn = 2 * 5120.0 * 5120 + 2 * 5120.0 * 1024, expert = 3 * 5120.0 * 8192, vocab = 202048.0 * 5120;
  const ParamCounts scout = counts(preset("llama-4-scout"));
  EXPECT_EQ(scout.total, 48 * (attn + 2 * 5120 + 5120 * 16 + 17 * expert) + 2 * vocab + 5120);
  EXPECT_EQ(scout.active, 48 * (attn + 2 * 5120 + 5120 * 16 + 2 * expert) + 2 * vocab + 5120);
  EXPECT_NEAR(scout.active / 1e9, 17.0, 0.5);  // model card: 17B active
  // Maverick: 24 MoE layers (128 experts + shared), 24 dense layers of width 16384.
  const ParamCounts mav = counts(preset("llama-4-maverick"));
  const double dense = 3 * 5120.0 * 16384;
  EXPECT_EQ(mav.total, 24 * (attn + 2 * 5120 + 5120 * 128 + 129 * expert) + 24 * (attn + 2 * 5120 + dense) +
                           2 * vocab + 5120);
  EXPECT_NEAR(mav.total / 1e9, 400.0, 1.0);   // model card: 400B total
  EXPECT_NEAR(mav.active / 1e9, 17.0, 0.5);   // 17B active
  // gpt-oss model card (arXiv 2508.10925, Table 1): totals 20.91B / 116.83B; active 3.61B / 5.13B count the
  // unembedding but not the embedding lookup.
  const ParamCounts g20 = counts(preset("gpt-oss-20b")), g120 = counts(preset("gpt-oss-120b"));
  EXPECT_NEAR(g20.total / 1e9, 20.91, 0.005);
  EXPECT_NEAR(g120.total / 1e9, 116.83, 0.005);
  EXPECT_NEAR((g20.active - g20.embedding) / 1e9, 3.61, 0.005);
  EXPECT_NEAR((g120.active - g120.embedding) / 1e9, 5.13, 0.005);
}

// MoE presets report total and active; memory always holds the total.
TEST(TodaysPresets, MoePresetsReportActiveCountsAndMemoryUsesTheTotal) {
  // Model cards: Qwen3-30B-A3B 3.3B activated, Qwen3-235B-A22B 22B; DeepSeek-V3 37B (DeepSeek counts the output
  // head but not the input embedding: 36.6B, README_WEIGHTS.md).
  EXPECT_NEAR(counts(preset("qwen3-30b-a3b")).active / 1e9, 3.3, 0.06);
  EXPECT_NEAR(counts(preset("qwen3-235b-a22b")).active / 1e9, 22.0, 0.25);
  const ParamCounts ds = counts(preset("deepseek-v3"));
  EXPECT_NEAR((ds.active - ds.embedding) / 1e9, 36.6, 0.05);
  TrainConfig t;
  t.method = Method::full;
  t.precision = Precision::bf16;
  t.optimizer = Optimizer::sgd;
  MemoryLayout l;
  l.recompute = Recompute::full;
  auto m = estimate_memory(preset("qwen3-30b-a3b"), t, l);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->weights, 2.0 * 30532122624.0);  // bf16 weights of every expert
  auto models = api_call("models", "", nullptr);
  EXPECT_NE(models.find("\"params_active\":3353032704"), std::string::npos);
}

// A config.json and the hand-entered preset are two independent routes to the same model: every fixture (the
// Hub's config.json of the preset, tests/fixtures/hf_configs) gives the preset's exact counts and knobs.
TEST(HfConfig, EveryFixtureReproducesItsPreset) {
  for (const char* id : {"qwen3-8b", "qwen3-30b-a3b", "deepseek-v3", "gemma-3-4b", "llama-4-maverick", "gpt-oss-20b",
                         "olmo-2-32b", "phi-4", "gpt2", "mistral-nemo-12b", "mixtral-8x7b", "llama-3.3-70b"}) {
    auto m = model_from_hf_config(read_fixture(id));
    ASSERT_TRUE(m.ok()) << id << ": " << m.error().to_string();
    const ModelSpec& p = preset(id);
    const ParamCounts a = counts(*m), b = counts(p);
    EXPECT_EQ(a.total, b.total) << id;
    EXPECT_EQ(a.active, b.active) << id;
    for (std::string_view k : text_knobs()) EXPECT_STREQ(text_knob(*m, k), text_knob(p, k)) << id << " " << k;
    for (const IntKnob& k : int_knobs()) EXPECT_EQ((*m).*k.member, p.*k.member) << id << " " << k.key;
    EXPECT_EQ(m->arch, p.arch) << id;
    EXPECT_EQ(m->rope_theta, p.rope_theta) << id;  // the preset's rotary base is the config's rope_theta
    EXPECT_EQ(m->rope_llama3_factor, p.rope_llama3_factor) << id;
  }
}

// Mistral Small 3.1 / 3.2 (model_type mistral3): the text model under text_config is Mistral Small 3's, whose
// Hub safetensors.total is 23,572,403,200 (data/models.json mistral-small-3-24b); the vision tower is not counted
// and the model's name says so (fixture: tests/fixtures/hf_configs/README.md).
TEST(HfConfig, Mistral3ReadsTheTextModelUnderTextConfig) {
  auto m = model_from_hf_config(read_fixture("mistral-small-3.2-24b"));
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->arch, Arch::mistral);
  EXPECT_EQ(counts(*m).total, 23572403200.0);
  EXPECT_EQ(counts(*m).total, counts(preset("mistral-small-3-24b")).total);
  EXPECT_EQ(m->max_position_embeddings, 131072);
  EXPECT_NE(m->name.find("vision tower not counted"), std::string::npos) << m->name;
  // A text-only mistral3 document names no vision tower; a broken text_config names its field.
  auto t = model_from_hf_config(R"({"model_type": "mistral3", "text_config": {"hidden_size": 64,
      "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100}})");
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  EXPECT_EQ(t->name.find("vision"), std::string::npos) << t->name;
  auto bad = model_from_hf_config(R"({"model_type": "mistral3", "text_config": {"hidden_size": 64,
      "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "hf_config.text_config.vocab_size");
}

// GLM-4.5-Air and GLM-4.5 (model_type glm4_moe; fixtures: tests/fixtures/hf_configs/README.md), counted from
// the config by hand: per layer q 96 x 128 and o from/to hidden, k and v 8 x 128, biases on q, k, v (no o bias),
// two RMSNorms (+ per-head q/k norms of 128 on GLM-4.5); dense layers a SwiGLU of intermediate_size, MoE layers a
// router (experts x hidden) and experts + 1 shared expert of 3 x hidden x moe_intermediate_size; untied
// 151552-token embedding and head; final norm. The MTP layer is not counted. Published (transformers
// docs/source/en/model_doc/glm4_moe.md, zai-org/GLM-4.5 README): GLM-4.5-Air 106B total / 12B active, GLM-4.5
// 355B / 32B; the active figures leave the embedding and head out.
TEST(HfConfig, Glm4MoeCountsMatchTheConfigAndThePublishedTotals) {
  struct Case { const char* file; double h, layers, dense, inter, moe, experts, qk_norm, published, active; };
  for (const Case& k : {Case{"glm-4.5-air", 4096, 46, 1, 10944, 1408, 128, 0, 106e9, 12e9},
                        Case{"glm-4.5", 5120, 92, 3, 12288, 1536, 160, 1, 355e9, 32e9}}) {
    auto m = model_from_hf_config(read_fixture(k.file));
    ASSERT_TRUE(m.ok()) << k.file << ": " << m.error().to_string();
    const double attn = 2 * k.h * 12288 + 2 * k.h * 1024 + (12288 + 2 * 1024) + 2 * k.h + k.qk_norm * 2 * 128;
    const double expert = 3 * k.h * k.moe;
    const double dense_layer = attn + 3 * k.h * k.inter;
    const double moe_layer = attn + k.experts * k.h + (k.experts + 1) * expert;
    const double vocab = 151552 * k.h;
    const double total = k.dense * dense_layer + (k.layers - k.dense) * moe_layer + 2 * vocab + k.h;
    const double active = k.dense * dense_layer + (k.layers - k.dense) * (moe_layer - (k.experts - 8) * expert);
    const ParamCounts c = counts(*m);
    EXPECT_EQ(c.total, total) << k.file;
    EXPECT_NEAR(c.active, active + 2 * vocab + k.h, 1.0) << k.file;
    EXPECT_NEAR(c.total / k.published, 1.0, 0.01) << k.file;          // 106.85B, 352.80B
    EXPECT_NEAR(active / k.active, 1.0, 0.02) << k.file;              // 12.18B, 32.08B
    EXPECT_EQ(m->num_experts, k.experts);
    EXPECT_EQ(m->first_k_dense, k.dense);
    EXPECT_EQ(m->bias, Bias::qkv);
    EXPECT_NE(m->name.find("1 MTP layer(s) not counted"), std::string::npos) << m->name;
  }
  auto field = [](const std::string& text) {
    auto m = model_from_hf_config(text);
    return m.ok() ? std::string("(accepted)") : m.error().field;
  };
  const std::string glm = R"("model_type": "glm4_moe", "hidden_size": 64, "num_hidden_layers": 4,
      "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "moe_intermediate_size": 32)";
  EXPECT_EQ(field("{" + glm + R"(, "n_routed_experts": 8, "num_experts_per_tok": 9})"), "hf_config.num_experts_per_tok");
  EXPECT_EQ(field("{" + glm + R"(, "partial_rotary_factor": 2})"), "hf_config.partial_rotary_factor");
  EXPECT_EQ(field("{" + glm + R"(, "num_nextn_predict_layers": -1})"), "hf_config.num_nextn_predict_layers");
  EXPECT_EQ(field("{" + glm + R"(, "n_routed_experts": 8, "first_k_dense_replace": 4})"), "hf_config.first_k_dense_replace");
  EXPECT_EQ(field("{" + glm + "}"), "(accepted)");
}

TEST(HfConfig, UnknownTypesAndContradictionsNameTheField) {
  auto field = [](const std::string& text) {
    auto m = model_from_hf_config(text);
    return m.ok() ? std::string("(accepted)") : m.error().field;
  };
  EXPECT_EQ(field(R"({"model_type": "mamba", "hidden_size": 768})"), "hf_config.model_type");
  EXPECT_EQ(field(R"({"hidden_size": 768})"), "hf_config.model_type");
  const std::string llama = R"("model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
      "intermediate_size": 14336, "vocab_size": 128256)";
  EXPECT_EQ(field("{" + llama + R"(, "num_attention_heads": 32, "num_key_value_heads": 5})"),
            "hf_config.num_key_value_heads");
  EXPECT_EQ(field("{" + llama + R"(, "num_attention_heads": "32"})"), "hf_config.num_attention_heads");
  EXPECT_EQ(field("{" + llama + "}"), "hf_config.num_attention_heads");  // required
  EXPECT_EQ(field("{" + llama + R"(, "num_attention_heads": 32, "hidden_act": "tanh"})"), "hf_config.hidden_act");
  EXPECT_EQ(field(R"({"model_type": "mixtral", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "intermediate_size": 128, "vocab_size": 100, "num_local_experts": 8, "num_experts_per_tok": 9})"),
            "hf_config.num_experts_per_tok");
  EXPECT_EQ(field(R"({"model_type": "gemma3", "tie_word_embeddings": true,
      "text_config": {"tie_word_embeddings": false}})"),
            "hf_config.text_config.tie_word_embeddings");
  EXPECT_EQ(field(R"({"model_type": "gpt_oss", "hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
      "intermediate_size": 64, "vocab_size": 100, "sliding_window": 8,
      "layer_types": ["sliding_attention", "full_attention"]})"),
            "hf_config.layer_types");
  EXPECT_EQ(field(R"({"model_type": "gemma3_text", "sliding_window_pattern": 4, "num_hidden_layers": 4,
      "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention"]})"),
            "hf_config.sliding_window_pattern");
  EXPECT_EQ(field(R"({"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "intermediate_size": 64, "vocab_size": 100, "num_experts": 4, "num_experts_per_tok": 2,
      "mlp_only_layers": [0]})"),
            "hf_config.mlp_only_layers");
  EXPECT_EQ(field("[1, 2]"), "hf_config");
  EXPECT_EQ(field("{\"model_type\": \"llama\""), "hf_config");
  EXPECT_EQ(field(std::string(100, '[')), "hf_config");
}

// GPT-style model with grouped-query attention and a plain GELU MLP (a user's example): expressible now,
// and counted as GPT-2's layout with fewer key/value columns.
TEST(Knobs, GroupedQueryAttentionWorksForEveryFamily) {
  ModelSpec m = preset("gpt2");
  m.num_kv_heads = 4;
  const ParamCounts c = counts(m);
  const double kv_saved = 12.0 * 2 * (768 - 4 * 64) * (768 + 1);  // fused c_attn columns and biases
  EXPECT_EQ(c.total, 124439808.0 - kv_saved);
  auto q = parse_query_json(R"({"model": {"arch": "gpt2", "hidden_size": 2048, "num_layers": 24, "num_heads": 16,
      "num_kv_heads": 4, "intermediate_size": 8192, "vocab_size": 50257, "max_position_embeddings": 2048},
      "method": "full"})");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  EXPECT_TRUE(count_params(q->model).ok());
}

// Each knob adds or removes exactly its tensors (HF modeling_*.py layouts, model.cpp).
TEST(Knobs, EachKnobChangesTheCountByItsTensors) {
  const ModelSpec base = preset("llama-3-8b");  // h 4096, 32 layers, 32 heads, 8 kv, i 14336
  const double L = 32, h = 4096, i = 14336, q = 4096, kv = 1024, total = counts(base).total;
  auto with = [&](auto set) {
    ModelSpec m = base;
    set(m);
    return counts(m).total - total;
  };
  EXPECT_EQ(with([](ModelSpec& m) { m.mlp = Mlp::gelu; }), -L * h * i);                 // no gate_proj
  EXPECT_EQ(with([](ModelSpec& m) { m.norm = Norm::layernorm; }), L * 2 * h + h);        // norm biases
  EXPECT_EQ(with([](ModelSpec& m) { m.bias = Bias::qkv; }), L * (q + 2 * kv));
  EXPECT_EQ(with([](ModelSpec& m) { m.bias = Bias::attention; }), L * (q + 2 * kv + h));
  EXPECT_EQ(with([](ModelSpec& m) { m.bias = Bias::all; }), L * (q + 2 * kv + h + 2 * i + h));
  EXPECT_EQ(with([](ModelSpec& m) { m.block = Block::sandwich; }), L * 2 * h);
  EXPECT_EQ(with([](ModelSpec& m) { m.block = Block::parallel; }), -L * h);
  EXPECT_EQ(with([](ModelSpec& m) { m.qk_norm = QkNorm::head; }), L * 2 * 128);
  EXPECT_EQ(with([](ModelSpec& m) { m.qk_norm = QkNorm::full; }), L * (q + kv));
  EXPECT_EQ(with([](ModelSpec& m) { m.attention_sinks = true; }), L * 32);
  EXPECT_EQ(with([](ModelSpec& m) {
              m.positional = Positional::learned;
              m.max_position_embeddings = 8192;
            }),
            8192 * h);
  EXPECT_EQ(with([](ModelSpec& m) { m.positional = Positional::alibi; }), 0.0);
  EXPECT_EQ(with([](ModelSpec& m) { m.sliding_window = 4096; }), 0.0);
  // MoE with a shared expert and one dense first layer: 31 MoE layers of 8 experts (+ router), one shared.
  const double mlp = 3 * h * i;
  EXPECT_EQ(with([](ModelSpec& m) {
              m.num_experts = 8;
              m.experts_per_token = 2;
              m.shared_expert_intermediate_size = 14336;
              m.first_k_dense = 1;
            }),
            31 * (7 * mlp + h * 8 + mlp));
}

// MLA (DeepSeek-V2 Sec. 2.1.2): down-projections, latent norms and up-projections replace q/k/v.
TEST(Knobs, MultiHeadLatentAttentionCountsItsProjections) {
  ModelSpec m = preset("llama-3-8b");
  m.num_kv_heads = m.num_heads;
  m.q_lora_rank = 1024;
  m.kv_lora_rank = 512;
  m.qk_nope_head_dim = 96;
  m.qk_rope_head_dim = 32;
  m.v_head_dim = 128;
  const double h = 4096, H = 32;
  const double mla = h * 1024 + 1024 + 1024 * H * 128 + h * (512 + 32) + 512 + 512 * H * (96 + 128) + H * 128 * h;
  const double gqa = 2 * h * 4096 + 2 * h * 1024;
  EXPECT_EQ(counts(m).total - counts(preset("llama-3-8b")).total, 32 * (mla - gqa));
  m.v_head_dim = 0;
  EXPECT_EQ(count_params(m).error().field, "model.v_head_dim");
}

// Memory and FLOPs follow the knobs (memory.cpp, perf.cpp cite the sources).
TEST(Knobs, ActivationsAndFlopsFollowTheKnobs) {
  TrainConfig t;
  t.method = Method::full;
  t.seq_len = 8192;
  MemoryLayout l;
  l.recompute = Recompute::none;
  const ModelSpec base = preset("llama-3-8b");
  auto acts = [&](const ModelSpec& m) { return layer_activations(m, t, l)->stored; };
  ModelSpec qk = base;
  qk.qk_norm = QkNorm::head;
  // q and k RMSNorms keep their fp32 input and the 16-bit output: (4 + 2) B x (4096 + 1024) per token.
  EXPECT_EQ(acts(qk) - acts(base), 8192.0 * 6 * (4096 + 1024));
  ModelSpec gelu = base;
  gelu.mlp = Mlp::gelu;
  EXPECT_EQ(acts(base) - acts(gelu), 8192.0 * 2 * 2 * 14336);  // gated: up and activation outputs on top
  // A 4096-token window over 8192 tokens: query i sees min(i, w) keys, 3/4 of the causal work per layer.
  const ParamCounts pc = counts(base);
  ModelSpec swa = base;
  swa.sliding_window = 4096;
  auto full = flops_per_token(base, pc, t, Recompute::none), win = flops_per_token(swa, pc, t, Recompute::none);
  ASSERT_TRUE(full.ok() && win.ok());
  EXPECT_DOUBLE_EQ(win->attention_forward / full->attention_forward, 0.75);  // (w - w^2/2s) / (s/2) = 3072 / 4096
  swa.global_every = 2;  // every 2nd layer full: halfway between
  auto mixed = flops_per_token(swa, pc, t, Recompute::none);
  EXPECT_DOUBLE_EQ(mixed->attention_forward / full->attention_forward, 0.875);
}

// model.* knob keys: JSON, links and the facade agree; inline models write a knob only when it differs from
// the family's default, so links stay short and round-trip.
TEST(Knobs, QueryKeysRoundTripAndDefaultsComeFromTheFamily) {
  auto q = parse_query_hash(
      "#model.arch=gpt2&model.hidden_size=1024&model.num_layers=8&model.num_heads=16&model.num_kv_heads=4&"
      "model.intermediate_size=4096&model.vocab_size=50257&model.max_position_embeddings=1024&model.norm=rmsnorm");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  EXPECT_EQ(q->model.mlp, Mlp::gelu);         // the family's default
  EXPECT_EQ(q->model.norm, Norm::rmsnorm);    // the override
  const std::string hash = query_to_hash(*q);
  EXPECT_NE(hash.find("model.norm=rmsnorm"), std::string::npos) << hash;
  EXPECT_EQ(hash.find("model.mlp"), std::string::npos) << hash;
  auto again = parse_query_hash(hash);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->model == q->model);
  auto bad = parse_query_json(R"({"model": {"arch": "llama", "mlp": "tanh"}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "model.mlp");
}

// The facade's hf_config verb: what the CLI's --hf-config, the UI's paste box and the JS API call.
TEST(HfConfig, TheFacadeReturnsAModelObjectTheQueryAccepts) {
  const auto out = nlohmann::json::parse(api_call("hf_config", read_fixture("qwen3-30b-a3b"), nullptr));
  ASSERT_TRUE(out.value("ok", false)) << out.dump();
  auto q = parse_query_json(nlohmann::json{{"model", out["model"]}}.dump());
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  EXPECT_EQ(counts(q->model).total, 30532122624.0);
  const std::string bad = api_call("hf_config", R"({"model_type": "t5"})", nullptr);
  EXPECT_NE(bad.find("\"field\":\"hf_config.model_type\""), std::string::npos) << bad;
}

}  // namespace
}  // namespace trainfit
