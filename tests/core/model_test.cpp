// Parameter counts and the bundled model catalog.
#include <gtest/gtest.h>

#include "trainfit/storage/embedded.h"
#include "trainfit/catalog/model.h"

namespace trainfit {
namespace {

const ModelSpec& preset(const char* id) {
  const ModelSpec* m = find_model(id);
  EXPECT_NE(m, nullptr) << id;
  static ModelSpec empty;
  return m ? *m : empty;
}

double total(const char* id) {
  auto c = count_params(preset(id));
  EXPECT_TRUE(c.ok()) << id << ": " << (c.ok() ? "" : c.error().to_string());
  return c.ok() ? c->total : -1;
}

// Five public parameter-count checks. Sources: transformers num_parameters() / Hugging Face Hub API
// safetensors.total for openai-community/gpt2, meta-llama/Llama-2-7b-hf (6,738,417,664 stored tensors
// minus 32 x 64 rotary inv_freq buffers), meta-llama/Meta-Llama-3-8B, mistralai/Mistral-7B-v0.1 and
// mistralai/Mixtral-8x7B-v0.1.
TEST(ParamCount, MatchesThePublicChecksExactly) {
  EXPECT_EQ(total("gpt2"), 124439808.0);
  EXPECT_EQ(total("llama-2-7b"), 6738415616.0);
  EXPECT_EQ(total("llama-3-8b"), 8030261248.0);
  EXPECT_EQ(total("mistral-7b-v0.1"), 7241732096.0);
  EXPECT_EQ(total("mixtral-8x7b"), 46702792704.0);
}

// Every preset with a published count (params_source in data/models.json) reproduces it exactly.
TEST(ParamCount, EveryPresetWithAPublishedCountIsExact) {
  const auto& presets = builtin_presets();
  ASSERT_GE(presets.size(), 25u);
  int checked = 0;
  for (const auto& p : presets) {
    auto c = count_params(p.spec);
    ASSERT_TRUE(c.ok()) << p.spec.id;
    EXPECT_EQ(p.spec.params, c->total) << p.spec.id;
    if (p.params_expected > 0) {
      EXPECT_EQ(c->total, p.params_expected) << p.spec.id << " (" << p.params_source << ")";
#ifndef __EMSCRIPTEN__  // the web modules compile the sources out (common.h TRAINFIT_SOURCE)
      EXPECT_FALSE(p.params_source.empty()) << p.spec.id;
#endif
      ++checked;
    }
#ifndef __EMSCRIPTEN__
    EXPECT_FALSE(p.config_source.empty()) << p.spec.id;
#endif
    EXPECT_FALSE(p.spec.hf_id.empty()) << p.spec.id;
  }
  EXPECT_GE(checked, 25);
}

// Mixtral routes each token to 2 of 8 experts: 12.88B active of 46.7B (Mistral AI, "Mixtral of experts",
// 2024: "13B active parameters"); fit uses total, compute uses active.
TEST(ParamCount, MixtureOfExpertsKeepsTotalAndActiveApart) {
  auto c = count_params(preset("mixtral-8x7b"));
  ASSERT_TRUE(c.ok());
  const double experts_per_layer = 3.0 * 4096 * 14336;
  EXPECT_EQ(c->total - c->active, 32 * 6 * experts_per_layer);
  EXPECT_NEAR(c->active / 1e9, 12.88, 0.01);
}

TEST(ParamCount, DenseModelsHaveActiveEqualToTotal) {
  auto c = count_params(preset("llama-3-8b"));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->active, c->total);
  EXPECT_EQ(c->head, 128256.0 * 4096);       // untied lm_head
  EXPECT_EQ(c->embedding, 128256.0 * 4096);
  auto t = count_params(preset("llama-3.2-1b"));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->head, 0.0);                   // tied: the head reuses the embedding
}

// Qwen2 differs from Llama only by q/k/v biases; Gemma 2 by two extra RMSNorms per layer. A family is a set
// of knob defaults: switching the family switches them.
TEST(ParamCount, ArchitectureVariantsAddTheirExtraTensors) {
  ModelSpec m = preset("qwen2.5-7b");
  auto qwen = count_params(m);
  apply_family(m, Arch::llama);
  auto llama = count_params(m);
  ASSERT_TRUE(qwen.ok() && llama.ok());
  EXPECT_EQ(qwen->total - llama->total, 28.0 * (3584 + 2 * 512));
  ModelSpec g = preset("gemma-2-2b");
  auto gemma = count_params(g);
  apply_family(g, Arch::llama);
  auto plain = count_params(g);
  ASSERT_TRUE(gemma.ok() && plain.ok());
  EXPECT_EQ(gemma->total - plain->total, 26.0 * 2 * 2304);
}

TEST(ParamCount, UntyingAddsTheHead) {
  ModelSpec m = preset("gpt2");
  m.tie_embeddings = false;
  auto c = count_params(m);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->total, 124439808.0 + 50257.0 * 768);
}

TEST(ParamCount, RejectsInconsistentShapesNamingTheField) {
  ModelSpec m = preset("llama-3-8b");
  m.num_kv_heads = 5;
  auto c = count_params(m);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().field, "model.num_kv_heads");
  m = preset("llama-3-8b");
  m.experts_per_token = 3;
  EXPECT_EQ(count_params(m).error().field, "model.experts_per_token");
  m = preset("llama-3-8b");
  m.hidden_size = 0;
  EXPECT_EQ(count_params(m).error().field, "model.hidden_size");
}

// builtin_presets() is C++ generated from data/models.json at build time (cmake/models_table.cmake), so the
// web page needs no JSON parse at start-up. It must be exactly what parsing (and validating) the JSON gives.
TEST(ModelCatalog, GeneratedTableMatchesTheJson) {
  auto parsed = parse_model_presets(embedded_models_json());
  ASSERT_TRUE(parsed.ok()) << parsed.error().to_string();
  const std::vector<ModelPreset>& built = builtin_presets();
  ASSERT_EQ(built.size(), parsed->size());
  ASSERT_GE(built.size(), 30u) << "data/models.json lists 32 presets";
  for (size_t i = 0; i < built.size(); ++i) {
    const ModelPreset& a = built[i];
    const ModelPreset& b = (*parsed)[i];
    EXPECT_TRUE(a.spec == b.spec) << "preset " << i << " (" << b.spec.id << ") differs from the JSON";
    EXPECT_EQ(a.spec.id, b.spec.id);
    EXPECT_EQ(a.spec.params, b.spec.params) << b.spec.id;
    EXPECT_EQ(a.params_expected, b.params_expected) << b.spec.id;
#ifndef __EMSCRIPTEN__  // the web modules compile the sources out (common.h TRAINFIT_SOURCE)
    EXPECT_EQ(a.config_source, b.config_source) << b.spec.id;
    EXPECT_EQ(a.params_source, b.params_source) << b.spec.id;
#endif
  }
}

TEST(ModelCatalog, ErrorsNameTheJsonPointer) {
  auto r = parse_model_catalog(R"({"models": [{"id": "a", "arch": "llama", "hidden_size": 64, "num_layers": 2,
      "num_heads": 4, "intermediate_size": 128, "vocab_size": 100}, {"id": "b", "arch": "llama",
      "hidden_size": "big"}]})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().field, "/models/1/hidden_size");
  auto u = parse_model_catalog(R"({"models": [{"id": "a", "arch": "llama", "hiden_size": 64}]})");
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.error().field, "/models/0/hiden_size");
  auto a = parse_model_catalog(R"({"models": [{"id": "a", "arch": "t5"}]})");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().field, "/models/0/arch");
  EXPECT_FALSE(parse_model_catalog("{not json").ok());
  auto d = parse_model_catalog(R"({"models": [{"id": "a", "arch": "llama", "hidden_size": 64, "num_layers": 2,
      "num_heads": 4, "intermediate_size": 128, "vocab_size": 100}, {"id": "a", "arch": "llama",
      "hidden_size": 64, "num_layers": 2, "num_heads": 4, "intermediate_size": 128, "vocab_size": 100}]})");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().field, "/models/1/id");
}

TEST(ModelCatalog, DuplicateKeysKeepTheLastValueAndParseErrorsSayWhere) {
  // The catalog reader (json_reader.h's tree over nlohmann's SAX parser) keeps nlohmann's rules: of duplicate
  // keys only the last counts, even when an earlier one would be refused.
  auto m = parse_model_json(R"({"arch": "llama", "hidden_size": 256, "num_layers": -1, "num_layers": 2,
      "num_heads": 4, "intermediate_size": 512, "vocab_size": 1000})");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->num_layers, 2);
  auto bad = parse_model_catalog(R"({"models": [{"id": "a" "arch": "llama"}]})");  // column 29: just past the second key
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("line 1, column 29: syntax error while parsing object"), std::string::npos)
      << bad.error().message;
  EXPECT_FALSE(parse_model_catalog("{\"models\": [{\"id\": \"\xff\"}]}").ok()) << "invalid UTF-8 is refused";
}

TEST(ModelCatalog, InlineModelDefaultsKvHeadsToHeads) {
  auto m = parse_model_json(R"({"arch": "llama", "hidden_size": 256, "num_layers": 2, "num_heads": 4,
      "intermediate_size": 512, "vocab_size": 1000})");
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->num_kv_heads, 4);
  EXPECT_EQ(m->id, "custom");
  // 1000*256 embed + head, 2 layers of 4*256^2 + 3*256*512 + 2*256, final norm 256.
  EXPECT_EQ(m->params, 2.0 * 256000 + 2 * (4.0 * 65536 + 3.0 * 131072 + 512) + 256);
}

TEST(ModelCatalog, ParamsOnlyModelDerivesAPlausibleShape) {
  auto m = parse_model_json(R"({"params": 7e9})");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->arch, Arch::params_only);
  EXPECT_EQ(m->params, 7e9);
  // Llama 2 7B has h = 4096 and 32 layers; the aspect-ratio rule lands within one step of it.
  EXPECT_GE(m->hidden_size, 3840);
  EXPECT_LE(m->hidden_size, 4480);
  EXPECT_NEAR(double(m->num_layers), 33.0, 2.0);
  auto c = count_params(m.value());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->total, 7e9);
  EXPECT_FALSE(parse_model_json(R"({"params": -1})").ok());
  EXPECT_FALSE(parse_model_json(R"({"params": 7e9, "hidden_size": 5})").ok());
}

// LoRA sizes (Hu et al. 2021): r * (d_in + d_out) per adapted matrix. LitGPT's published table
// (tutorials/resource-tables.md) lists 4,194,304 trainable parameters for Llama 2 7B, r = 8, q and v.
TEST(LoraCounts, MatchesLitGptTrainableParameters) {
  auto c = lora_counts(preset("llama-2-7b"), 8, {"q", "v"});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->params, 4194304.0);
  auto c13 = lora_counts(preset("llama-2-13b"), 8, {"q", "v"});
  ASSERT_TRUE(c13.ok());
  EXPECT_EQ(c13->params, 6553600.0);  // same table, Llama 2 13B
}

TEST(LoraCounts, ExpertsEachGetAnAdapterAndUnknownTargetsAreErrors) {
  auto moe = lora_counts(preset("mixtral-8x7b"), 16, {"down"});
  ASSERT_TRUE(moe.ok());
  EXPECT_EQ(moe->params, 32.0 * 8 * 16 * (14336 + 4096));
  auto bad = lora_counts(preset("llama-3-8b"), 16, {"qkv"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "lora_targets");
  auto none = lora_counts(preset("gpt2"), 16, {"gate"});
  EXPECT_FALSE(none.ok());
  // GPT-2's fused c_attn carries one adapter for q, k and v: r * (768 + 3 * 768) per layer.
  auto fused = lora_counts(preset("gpt2"), 4, {"q", "v"});
  ASSERT_TRUE(fused.ok());
  EXPECT_EQ(fused->params, 12.0 * 4 * (768 + 3 * 768));
}

// Adafactor (Shazeer & Stern 2018): an n x m matrix keeps n + m second-moment entries.
TEST(Adafactor, FactoredStateIsRowsPlusColumns) {
  ModelSpec m;
  m.arch = Arch::llama;
  m.hidden_size = 8; m.num_layers = 1; m.num_heads = 2; m.num_kv_heads = 2;
  m.intermediate_size = 16; m.vocab_size = 10;
  // embed (10+8) + q,k,v,o 4*(8+8) + gate,up 2*(8+16) + down (16+8) + 2 norms 2*8 + final 8 + head (10+8)
  EXPECT_EQ(adafactor_state_elements(m), 18.0 + 64 + 48 + 24 + 16 + 8 + 18);
}

}  // namespace
}  // namespace trainfit
