// The bad-input matrix: every query key, snapshot defect and hostile link gets an Error that names
// the field and the problem, within a time bound, and every number in every facade document is finite.
// The query keys are not listed by hand: they are read from the full JSON form of a few queries, so a key
// added to the key table is covered here without touching this file.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "trainfit/facade/api.h"
#include "trainfit/storage/bundled.h"
#include "trainfit/launch/calibrate.h"
#include "trainfit/query/query.h"
#include "trainfit/storage/manifest.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Per-case time bound. Real cases take milliseconds; the bound is generous for a Debug + ASan build on a
// shared 2-core machine, and exists to catch hangs and accidental quadratic work, not to benchmark. (2 s was too
// tight: the ASan build read back 2 MB of blanks in 2.54 s with the other core busy, 2026-12-07.)
constexpr double kCaseBound_s = 5.0;
// A 20 MB document (100k offers) is linear work but slow where nlohmann is unoptimised or interpreted:
// measured 6 s native release, 16-25 s Debug, 47 s in the wasm build under node, all on 2 busy cores. The
// bound is a hang detector for every build, not a benchmark.
constexpr double kBigDocumentBound_s = 180.0;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// ---------------------------------------------------------------------------------------------- queries

Result<Query> parse_timed(const std::string& text) {
  const auto t0 = Clock::now();
  Result<Query> q = parse_query_json(text);
  EXPECT_LT(seconds_since(t0), kCaseBound_s) << text.substr(0, 200);
  return q;
}

// Expect `text` to be refused with an error on `field` whose message contains `words`.
void expect_rejected(const std::string& text, const std::string& field, const std::string& words) {
  Result<Query> q = parse_timed(text);
  ASSERT_FALSE(q.ok()) << "accepted: " << text.substr(0, 200);
  EXPECT_EQ(q.error().field, field) << text.substr(0, 200) << " -> " << q.error().to_string();
  EXPECT_NE(q.error().message.find(words), std::string::npos)
      << text.substr(0, 200) << " -> " << q.error().to_string() << " (expected \"" << words << "\")";
}

// Flatten a query document into "a.b" paths with their values.
void flatten(const json& j, const std::string& prefix, std::vector<std::pair<std::string, json>>* out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
    if (it->is_object()) flatten(*it, path, out);
    else out->push_back({path, *it});
  }
}

// The document that sets `path` to the raw JSON text `value_text` (nested for dotted paths).
std::string doc_with(const std::string& path, const std::string& value_text) {
  std::string open, close;
  size_t start = 0, dot;
  while ((dot = path.find('.', start)) != std::string::npos) {
    open += "\"" + path.substr(start, dot - start) + "\":{";
    close += "}";
    start = dot + 1;
  }
  const std::string leaf = "\"" + path.substr(start) + "\":" + value_text;
  if (path.rfind("model.", 0) != 0) return "{" + open + leaf + close + "}";
  // model.* keys describe an inline model: give it a valid body so only the key under test is wrong.
  const std::pair<const char*, const char*> base[] = {{"arch", "\"llama\""},   {"hidden_size", "4096"},
                                                      {"num_layers", "32"},    {"num_heads", "32"},
                                                      {"vocab_size", "32000"}, {"intermediate_size", "11008"}};
  std::string fields;
  for (const auto& [k, v] : base)
    if (path.substr(6) != k) fields += "\"" + std::string(k) + "\":" + v + ",";
  return "{\"model\":{" + fields + leaf + "}}";
}

// Every key of the query model with its type, read from full documents (manual parallel layout, inline
// model, explicit overhead/fragmentation so their "default" sentinels do not hide them).
std::vector<std::pair<std::string, json>> all_keys() {
  std::vector<std::pair<std::string, json>> keys;
  const char* docs[] = {
      R"({"parallel":{"tp":1},"overhead_GiB":1,"fragmentation":0.1})",
      R"({"model":{"arch":"llama","hidden_size":4096,"num_layers":32,"num_heads":32,"num_kv_heads":8,"head_dim":128,
          "vocab_size":32000,"intermediate_size":11008,"max_position_embeddings":4096,"type_vocab_size":2}})",
      R"({"model":{"params":7e9}})"};
  std::set<std::string> seen;
  for (const char* d : docs) {
    Result<Query> q = parse_query_json(d);
    EXPECT_TRUE(q.ok()) << d << " -> " << (q.ok() ? "" : q.error().to_string());
    if (!q) continue;
    std::vector<std::pair<std::string, json>> flat;
    flatten(json::parse(query_to_json(*q, true)), "", &flat);
    for (auto& kv : flat)
      if (seen.insert(kv.first).second) keys.push_back(kv);
  }
  return keys;
}

TEST(BadInputMatrix, KeyListCoversEveryGroupOfTheQueryModel) {
  // The enumeration above must actually find the key table, or the matrix below would silently shrink.
  const auto keys = all_keys();
  std::set<std::string> names;
  for (const auto& [k, v] : keys) names.insert(k);
  for (const char* k : {"seq_len", "micro_batch", "lora_rank", "method", "parallel.tp", "parallel.zero",
                        "parallel.offload_params", "overhead_GiB", "fragmentation", "dataset.tokens",
                        "filters.providers", "filters.must_fit", "cost.egress_GB", "target.offer", "sort", "top",
                        "model.params", "model.hidden_size", "model.num_kv_heads", "model.tie_embeddings",
                        "model.mlp", "model.qk_norm", "model.sliding_window", "model.kv_lora_rank",
                        "model.moe_layer_step", "model.attention_sinks"})
    EXPECT_TRUE(names.count(k)) << k;
  EXPECT_GE(keys.size(), 70u);
}

TEST(BadInputMatrix, EveryKeyWithTheWrongTypeIsNamed) {
  for (const auto& [key, v] : all_keys()) {
    SCOPED_TRACE(key);
    if (key == "parallel") continue;  // "auto"/"manual" text or an object; covered below
    if (v.is_number()) {
      expect_rejected(doc_with(key, "\"12\""), key, "must be a number");
      expect_rejected(doc_with(key, "null"), key, "must be a number");
      expect_rejected(doc_with(key, "[1]"), key, "must be a number");
      expect_rejected(doc_with(key, "true"), key, "must be a number");
    } else if (v.is_boolean()) {
      expect_rejected(doc_with(key, "1"), key, "true or false");
      expect_rejected(doc_with(key, "\"true\""), key, "true or false");
      expect_rejected(doc_with(key, "null"), key, "true or false");
    } else if (v.is_string()) {
      expect_rejected(doc_with(key, "5"), key, "must be a string");
      expect_rejected(doc_with(key, "[\"a\"]"), key, "must be a string");
      expect_rejected(doc_with(key, "null"), key, "must be a string");
    } else if (v.is_array()) {
      expect_rejected(doc_with(key, "\"q,k\""), key, "must be a list");
      expect_rejected(doc_with(key, "[1]"), key, "list of strings");
      expect_rejected(doc_with(key, "[[\"q\"]]"), key, "list of strings");
    } else {
      ADD_FAILURE() << "unexpected value type for " << key << ": " << v.dump();
    }
  }
}

TEST(BadInputMatrix, EveryNumberKeyRefusesNegativeAbsurdAndNonFiniteValues) {
  for (const auto& [key, v] : all_keys()) {
    if (!v.is_number()) continue;
    SCOPED_TRACE(key);
    // No key of the query model takes a negative value.
    Result<Query> neg = parse_timed(doc_with(key, "-1"));
    ASSERT_FALSE(neg.ok());
    EXPECT_EQ(neg.error().field, key) << neg.error().to_string();
    EXPECT_TRUE(neg.error().message.find("positive") != std::string::npos ||
                neg.error().message.find("too small") != std::string::npos)
        << neg.error().to_string();
    expect_rejected(doc_with(key, "1e30"), key, "too large");
    expect_rejected(doc_with(key, "-1e30"), key, "");
    // NaN and infinity cannot be written in JSON: as strings they are the wrong type, as literals the
    // document is not JSON and the message names the last key read.
    for (const char* text : {"\"NaN\"", "\"nan\"", "\"inf\"", "\"-Infinity\"", "\"1e999\""})
      expect_rejected(doc_with(key, text), key, "must be a number");
    const std::string leaf = key.substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
    for (const char* text : {"NaN", "Infinity", "-Infinity", "1e999", "-1e999"})
      expect_rejected(doc_with(key, text), "", "after key \"" + leaf + "\"");
  }
}

TEST(BadInputMatrix, ZeroIsEitherMeaningfulOrRefusedByName) {
  // Keys where 0 has no meaning must say so; keys where it means "none" / "default" must accept it.
  const std::set<std::string> must_refuse = {
      "seq_len",          "micro_batch",       "lora_rank",         "dataset.epochs",     "filters.max_nodes",
      "parallel.tp",      "parallel.pp",       "parallel.dp",       "parallel.cp",        "parallel.gpus",
      "model.hidden_size", "model.num_layers", "model.num_heads",   "model.vocab_size",   "model.params",
      "model.intermediate_size", "model.num_experts", "model.experts_per_token"};
  int refused = 0;
  for (const auto& [key, v] : all_keys()) {
    if (!v.is_number()) continue;
    SCOPED_TRACE(key);
    Result<Query> q = parse_timed(doc_with(key, "0"));
    if (must_refuse.count(key)) {
      ASSERT_FALSE(q.ok());
      EXPECT_EQ(q.error().field, key) << q.error().to_string();
      EXPECT_FALSE(q.error().message.empty());
      ++refused;
    } else if (!q.ok()) {
      // A zero that is in range may still break a cross-field rule; that rule must name a field.
      EXPECT_FALSE(q.error().field.empty()) << q.error().to_string();
      EXPECT_FALSE(q.error().message.empty());
    }
  }
  EXPECT_EQ(refused, static_cast<int>(must_refuse.size()));
}

TEST(BadInputMatrix, MissingKeysKeepTheirDefaultsButAnInlineModelNeedsItsShape) {
  // Removing any one key from a full document still parses (missing = default).
  Result<Query> base = parse_query_json(R"({"parallel":{"zero":1},"overhead_GiB":1})");
  ASSERT_TRUE(base.ok());
  std::vector<std::pair<std::string, json>> flat;
  const json full = json::parse(query_to_json(*base, true));
  flatten(full, "", &flat);
  for (const auto& [key, v] : flat) {
    json d = full;
    json* node = &d;
    std::string path = key;
    size_t dot;
    while ((dot = path.find('.')) != std::string::npos) {
      node = &(*node)[path.substr(0, dot)];
      path = path.substr(dot + 1);
    }
    node->erase(path);
    Result<Query> q = parse_timed(d.dump());
    EXPECT_TRUE(q.ok()) << "without " << key << ": " << (q.ok() ? "" : q.error().to_string());
  }
  // An inline model without one of its shape fields is refused naming that field.
  for (const char* k : {"hidden_size", "num_layers", "num_heads", "vocab_size"}) {
    json m = {{"arch", "llama"}, {"hidden_size", 4096}, {"num_layers", 32}, {"num_heads", 32}, {"vocab_size", 32000},
              {"intermediate_size", 11008}};
    m.erase(k);
    expect_rejected(json{{"model", m}}.dump(), std::string("model.") + k, "required");
  }
  expect_rejected(R"({"model":{"arch":"params"}})", "model.params", "must be given");
  expect_rejected(R"({"dataset":{"tokens":0}})", "dataset.tokens", "give tokens");
}

TEST(BadInputMatrix, GroupsThatAreNotObjectsAreNamed) {
  for (const char* g : {"dataset", "filters", "cost", "target"})
    for (const char* v : {"5", "\"x\"", "[]", "null", "true"}) expect_rejected(std::string("{\"") + g + "\":" + v + "}", g, "");
  expect_rejected(R"({"parallel":5})", "parallel", "");
  expect_rejected(R"({"parallel":"sometimes"})", "parallel", "auto");
  expect_rejected(R"({"model":5})", "model", "");
  expect_rejected(R"({"parallel":{"tpp":2}})", "parallel.tpp", "unknown key");
  expect_rejected(R"({"model":{"arch":"llama","depth":2}})", "model.depth", "unknown key");
}

TEST(BadInputMatrix, TextAndListKeysRefuseOverlongAndUnknownValues) {
  const std::string huge(100000, 'x');
  for (const auto& [key, v] : all_keys()) {
    SCOPED_TRACE(key);
    if (key == "parallel") continue;
    if (v.is_string()) {
      expect_rejected(doc_with(key, "\"" + huge + "\""), key, "too long");
    } else if (v.is_array()) {
      expect_rejected(doc_with(key, "[\"" + huge + "\"]"), key, "1 to 64 characters");
      expect_rejected(doc_with(key, "[\"\"]"), key, "1 to 64 characters");
      std::string many = "[";
      for (int i = 0; i < 300; ++i) many += std::string(i ? "," : "") + "\"q\"";
      expect_rejected(doc_with(key, many + "]"), key, "too many");
    }
  }
  for (const char* key : {"method", "precision", "optimizer", "recompute", "attention", "sort", "filters.pricing",
                          "filters.interconnect", "target.pricing", "model.arch", "model.mlp", "model.norm",
                          "model.positional", "model.bias", "model.block", "model.qk_norm"})
    expect_rejected(doc_with(key, "\"<script>alert(1)</script>\""), key, "expected one of");
  expect_rejected(R"({"model":"../../etc/passwd"})", "model", "unknown model preset");
}

TEST(BadInputMatrix, AbsurdJobsAreRefusedByName) {
  expect_rejected(R"({"model":{"params":1e30}})", "model.params", "too large");
  expect_rejected(R"({"seq_len":1000000000})", "seq_len", "too large");
  expect_rejected(R"({"seq_len":1e9})", "seq_len", "too large");
  expect_rejected(R"({"micro_batch":1e12})", "micro_batch", "too large");
  expect_rejected(R"({"dataset":{"tokens":1e30}})", "dataset.tokens", "too large");
  expect_rejected(R"({"parallel":{"gpus":100000000}})", "parallel.gpus", "too large");
  expect_rejected(R"({"parallel":{"tp":1024,"pp":1024,"dp":65536}})", "parallel.tp", "must divide");
  // Regression (UBSan in unit-asan): deriving parallel.gpus multiplied these in int and overflowed before
  // this check could run. Seed fuzz_query_json/regression_parallel_product_overflow.json.
  expect_rejected(R"({"model":{"params":1e9},"parallel":{"tp":1024,"pp":1024,"dp":65536}})", "parallel",
                  "absurdly large");
  // Fuzz find (seed fuzz_query_json/layout_over_gpu_limit.json): a fixed layout of 1024 x 106 GPUs parsed, but its
  // derived parallel.gpus (108,544) was over that key's limit, so the query written back did not parse again.
  expect_rejected(R"({"model":{"params":2e9},"parallel":{"tp":1024,"pp":106}})", "parallel.gpus", "too large");
  Result<Query> link = parse_query_hash("#model.params=1e9&parallel.tp=1024&parallel.pp=1024&parallel.dp=65536");
  ASSERT_FALSE(link.ok());
  EXPECT_EQ(link.error().field, "parallel");
  expect_rejected(R"({"seq_len":4096.5})", "seq_len", "whole number");
  expect_rejected(R"({"top":-0.5})", "top", "");
}

TEST(BadInputMatrix, ContradictoryLayoutsAreRefusedByName) {
  // Llama-3.1-8B has 32 query heads, 8 key/value heads and 32 layers (its config.json); GPT-2 has 12 and 12.
  expect_rejected(R"({"model":"llama-3.1-8b","parallel":{"tp":3}})", "parallel.tp", "must divide the attention heads");
  expect_rejected(R"({"model":"llama-3.1-8b","parallel":{"tp":16}})", "parallel.tp", "must divide the attention heads");
  expect_rejected(R"({"model":"llama-3.1-8b","parallel":{"pp":33}})", "parallel.pp", "cannot exceed the layer count");
  expect_rejected(R"({"model":"gpt2","method":"lora","lora_rank":769})", "lora_rank", "hidden size");
  expect_rejected(R"({"model":"gpt2","method":"qlora","lora_rank":4096})", "lora_rank", "hidden size");
  expect_rejected(R"({"model":{"arch":"llama","hidden_size":4096,"num_layers":32,"num_heads":32,"num_kv_heads":5,
                      "intermediate_size":11008,"vocab_size":32000}})",
                  "model.num_kv_heads", "must divide");
  expect_rejected(R"({"model":{"arch":"mixtral","hidden_size":4096,"num_layers":32,"num_heads":32,"vocab_size":32000,
                      "intermediate_size":14336,"num_experts":8,"experts_per_token":9}})",
                  "model.experts_per_token", "between 1 and num_experts");
  // An inline model's every field is checked: one without its MLP width is refused by name.
  expect_rejected(R"({"model":{"arch":"llama","hidden_size":4096,"num_layers":32,"num_heads":32,"vocab_size":32000}})",
                  "model.intermediate_size", "positive");
  // Context-parallel schemes: a name the table lacks, a scheme the framework does not run, Ulysses over more ranks
  // than heads divide (Llama 3.1 8B: 32 heads, 8 K/V heads).
  expect_rejected(R"({"cp_scheme":"spiral"})", "cp_scheme", "expected one of");
  expect_rejected(R"({"framework":"nanotron","cp_scheme":"ulysses"})", "cp_scheme", "not run by nanotron");
  // A fixed layout on auto takes the framework's default (hf-trainer: Ulysses); the error names the ring.
  expect_rejected(R"({"model":"qwen2.5-7b","framework":"hf-trainer","seq_len":65536,"parallel":{"gpus":8,"cp":8,"zero":3}})",
                  "parallel.cp", "cp_scheme ring splits the sequence without that limit");
  // hf-trainer's ring is accelerate's context parallelism: FSDP2 (ZeRO-2 / 3, its own CPU offload) and SDPA only.
  expect_rejected(R"({"framework":"hf-trainer","cp_scheme":"ring","parallel":{"gpus":8,"cp":4,"dp":2,"zero":1}})",
                  "parallel", "Ring CP 4 with ZeRO-1");
  expect_rejected(R"({"framework":"hf-trainer","cp_scheme":"ring","attention":"eager"})", "attention", "SDPA");
  expect_rejected(R"({"framework":"hf-trainer","cp_scheme":"ring","parallel":{"gpus":8,"cp":4,"dp":2,"zero":2,)"
                  R"("offload_optimizer":true}})",
                  "parallel.offload_optimizer", "FSDP2");
  expect_rejected(R"({"framework":"torchtitan","cp_scheme":"ulysses"})", "cp_scheme", "not run by torchtitan");
  // torch.compile: a name the table lacks; on where the profile is fitted to eager runs only.
  expect_rejected(R"({"compile":"yes"})", "compile", "expected one of");
  expect_rejected(R"({"framework":"hf-trainer","compile":"on"})", "compile", "modelled under torchtitan only");
  expect_rejected(R"({"model":"llama-3.1-8b","seq_len":65536,"cp_scheme":"ulysses","parallel":{"gpus":6,"cp":6}})",
                  "parallel.cp", "attention heads");
  // Loss chunks: a count of chunks, 0 for the framework's default.
  // A model object's every rule is the query's (validate_model): a shared expert needs routed experts.
  expect_rejected(R"({"model":{"arch":"llama","hidden_size":2048,"num_layers":4,"num_heads":16,"num_kv_heads":16,"vocab_size":32000,"intermediate_size":5632,)"
                  R"("num_experts":1,"shared_expert_intermediate_size":1}})",
                  "model.shared_expert_intermediate_size", "num_experts > 1");
  expect_rejected(R"({"loss_chunks":-1})", "loss_chunks", "too small");
  expect_rejected(R"({"loss_chunks":5000})", "loss_chunks", "too large");
  expect_rejected(R"({"loss_chunks":2.5})", "loss_chunks", "whole number");
  expect_rejected(R"({"parallel":{"zero":2,"offload_params":true}})", "parallel.offload_params", "ZeRO stage 3");
  expect_rejected(R"({"parallel":{"gpus":6,"tp":4}})", "parallel.gpus", "must equal");
  expect_rejected(R"({"global_batch":2,"micro_batch":4})", "global_batch", "at least micro_batch");
  expect_rejected(R"({"filters":{"min_gpus":8,"max_gpus":4}})", "filters.max_gpus", "at least");
}

// Architecture knobs that contradict each other or the shape are refused by the estimate, naming the knob.
TEST(BadInputMatrix, ContradictoryArchitectureKnobsAreNamed) {
  const std::string shape = R"("arch":"llama","hidden_size":1024,"num_layers":8,"num_heads":16,"num_kv_heads":16,
      "vocab_size":32000,"intermediate_size":4096)";
  auto estimate_field = [&](const std::string& extra) {
    const json doc = json::parse(api_call("estimate", "{\"model\":{" + shape + extra + "}}", nullptr));
    return doc.value("ok", false) ? std::string("(accepted)") : doc["error"].value("field", "");
  };
  EXPECT_EQ(estimate_field(R"(,"global_every":2)"), "model.global_every");              // no window to leave
  EXPECT_EQ(estimate_field(R"(,"q_lora_rank":512)"), "model.q_lora_rank");              // MLA needs kv_lora_rank
  EXPECT_EQ(estimate_field(R"(,"kv_lora_rank":512,"qk_rope_head_dim":64)"), "model.v_head_dim");
  EXPECT_EQ(estimate_field(R"(,"kv_lora_rank":512,"qk_nope_head_dim":64,"v_head_dim":64,"num_kv_heads":4)"),
            "model.num_kv_heads");
  EXPECT_EQ(estimate_field(R"(,"shared_expert_intermediate_size":1024)"), "model.shared_expert_intermediate_size");
  EXPECT_EQ(estimate_field(R"(,"num_experts":8,"experts_per_token":2,"first_k_dense":8)"), "model.first_k_dense");
  EXPECT_EQ(estimate_field(R"(,"positional":"learned")"), "model.max_position_embeddings");
  EXPECT_EQ(estimate_field(R"(,"num_experts":8,"experts_per_token":2,"moe_layer_step":9)"), "model.moe_layer_step");
  const json bad = json::parse(api_call("query", R"({"model":{"arch":"llama","block":"diagonal"}})", nullptr));
  EXPECT_EQ(bad["error"].value("field", ""), "model.block");
}

// fuzz_hf_config, 2026-12-02 (tests/fuzz/corpus/fuzz_hf_config/regression_tiny_hidden.json): a config may describe a model
// narrower than the default LoRA rank (Gemma 3 with hidden_size 14). The config is accepted; a LoRA query with it
// is refused naming lora_rank (the rank cannot exceed the hidden size), a full fine-tune with it is not.
TEST(BadInputMatrix, AModelNarrowerThanTheLoraRankIsRefusedNamingTheRank) {
  const std::string config = R"({"architectures":["Gemma3ForConditionalGeneration"],"model_type":"gemma3",
      "text_config":{"hidden_size":14,"vision_use_head":false}})";
  const json doc = json::parse(api_call("hf_config", config, nullptr));
  ASSERT_TRUE(doc.value("ok", false)) << doc.dump();
  const json lora = json::parse(api_call("query", json{{"model", doc["model"]}}.dump(), nullptr));
  EXPECT_FALSE(lora.value("ok", true));
  EXPECT_EQ(lora["error"].value("field", ""), "lora_rank");
  const json full = json::parse(api_call("query", json{{"model", doc["model"]}, {"method", "full"}}.dump(), nullptr));
  EXPECT_TRUE(full.value("ok", false)) << full.dump();
}

// A Hugging Face config.json is untrusted text (CLI --hf-config, the UI's paste box, the JS API): every defect
// is an error naming the config field, quickly, never a crash (fuzz_hf_config covers the rest).
TEST(BadInputMatrix, HfConfigDefectsNameTheConfigField) {
  auto field = [](const std::string& text) {
    const auto t0 = Clock::now();
    const json doc = json::parse(api_call("hf_config", text, nullptr));
    EXPECT_LT(seconds_since(t0), kCaseBound_s);
    EXPECT_FALSE(doc.value("ok", true)) << text.substr(0, 120);
    return doc.contains("error") ? doc["error"].value("field", "") : std::string();
  };
  const std::string llama = R"("model_type":"llama","hidden_size":4096,"num_hidden_layers":32,
      "num_attention_heads":32,"intermediate_size":14336,"vocab_size":128256)";
  EXPECT_EQ(field(""), "hf_config");
  EXPECT_EQ(field("null"), "hf_config");
  EXPECT_EQ(field(std::string(2 << 20, ' ')), "hf_config");              // over 1 MiB
  EXPECT_EQ(field(std::string(10000, '[') + std::string(10000, ']')), "hf_config");  // nested too deeply
  EXPECT_EQ(field(R"({"model_type":5})"), "hf_config.model_type");
  EXPECT_EQ(field(R"({"model_type":"<script>"})"), "hf_config.model_type");
  EXPECT_EQ(field("{" + llama + R"(,"hidden_size":-4096})"), "hf_config.hidden_size");
  EXPECT_EQ(field("{" + llama + R"(,"hidden_size":1e300})"), "hf_config.hidden_size");
  EXPECT_EQ(field("{" + llama + R"(,"num_hidden_layers":32.5})"), "hf_config.num_hidden_layers");
  EXPECT_EQ(field("{" + llama + R"(,"num_hidden_layers":100000})"), "hf_config.num_hidden_layers");
  EXPECT_EQ(field("{" + llama + R"(,"tie_word_embeddings":"yes"})"), "hf_config.tie_word_embeddings");
  EXPECT_EQ(field("{" + llama + R"(,"mlp_bias":true,"attention_bias":false})"), "hf_config.mlp_bias");
  EXPECT_EQ(field("{" + llama + R"(,"sliding_window":-1})"), "hf_config.sliding_window");
  // The rotary base and Llama 3 rope scaling, carried into the Megatron arguments.
  EXPECT_EQ(field("{" + llama + R"(,"rope_theta":-500000})"), "hf_config.rope_theta");
  EXPECT_EQ(field("{" + llama + R"(,"rope_theta":"500000"})"), "hf_config.rope_theta");
  // Above the query's own limit for model.rope_theta (1e12), so an accepted config is always a valid query (fuzzing
  // found 1000000151329, under the reader's 2^40 for integers).
  EXPECT_EQ(field("{" + llama + R"(,"rope_theta":1000000151329})"), "hf_config.rope_theta");
  EXPECT_EQ(field("{" + llama + R"(,"rope_scaling":{"rope_type":"llama3","factor":8.5}})"), "hf_config.rope_scaling.factor");
  EXPECT_EQ(field("{" + llama + R"(,"rope_scaling":{"type":"llama3","factor":1e9}})"), "hf_config.rope_scaling.factor");
  EXPECT_EQ(field(R"({"model_type":"gemma3","text_config":[]})"), "hf_config.text_config");
  EXPECT_EQ(field(R"({"model_type":"mistral3","text_config":"mistral"})"), "hf_config.text_config");
  EXPECT_EQ(field(R"({"model_type":"glm4_moe","hidden_size":4096,"num_hidden_layers":46,"num_attention_heads":96,
      "intermediate_size":10944,"vocab_size":151552,"n_routed_experts":128,"num_experts_per_tok":8})"),
            "hf_config.moe_intermediate_size");
  EXPECT_EQ(field(R"({"model_type":"glm4_moe","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,
      "intermediate_size":128,"vocab_size":100,"use_qk_norm":"yes"})"), "hf_config.use_qk_norm");
  EXPECT_EQ(field(R"({"model_type":"mistral3","text_config":{"hidden_size":5120}})"), "hf_config.text_config.num_hidden_layers");
  EXPECT_EQ(field(R"({"model_type":"deepseek_v3","hidden_size":1024,"num_hidden_layers":4,"num_attention_heads":8,
      "intermediate_size":2048,"vocab_size":1000,"kv_lora_rank":128})"),
            "hf_config.qk_nope_head_dim");
}

TEST(BadInputMatrix, MalformedDocumentsAreRefusedQuickly) {
  expect_rejected("", "", "not valid JSON");
  expect_rejected("{", "", "not valid JSON");
  expect_rejected("{\"seq_len\":", "", "after key \"seq_len\"");
  expect_rejected("\xff\xfe{}", "", "not valid JSON");
  expect_rejected("{\"model\":\"\xff\"}", "", "not valid JSON");
  expect_rejected("[]", "", "JSON object");
  expect_rejected("42", "", "JSON object");
  expect_rejected(std::string(1 << 20, '['), "", "nested too deeply");  // refused before building a tree
  expect_rejected(std::string(1000, '{'), "", "nested too deeply");
  expect_rejected(R"({"model":{"arch":"llama","x":[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]}})", "", "nested too deeply");
  expect_rejected(std::string((1 << 20) + 1, ' '), "", "too large");
  // Duplicate keys: nlohmann keeps the last one; still one well-defined answer, not a crash.
  Result<Query> dup = parse_timed(R"({"seq_len":1024,"seq_len":4096})");
  ASSERT_TRUE(dup.ok());
  EXPECT_EQ(dup->train.seq_len, 4096);
}

// ---------------------------------------------------------------------------------------------- hashes

Result<Query> hash_timed(const std::string& text) {
  const auto t0 = Clock::now();
  Result<Query> q = parse_query_hash(text);
  EXPECT_LT(seconds_since(t0), kCaseBound_s) << text.substr(0, 200);
  return q;
}

TEST(BadInputMatrix, GarbageHashesGetAnError) {
  for (const char* h : {"#%", "#%%%", "#%zz=1", "#seq_len=%4", "#&&&=", "#=", "#===", "#seq_len", "#seq_len=",
                              "#seq_len=4096&seq_len", "#\x01\x02", "#seq_len=%00", "#seq_len=12abc",
                              "#seq_len=0x10", "#seq_len=+4096", "#seq_len=%204096", "#seq_len=nan", "#seq_len=inf", "#mfu=-inf", "#mfu=NaN",
                              "#seq_len=1e999", "#model.params=1e30", "#seq_len=1000000000",
                              "#filters.must_fit=maybe", "#parallel.tp=3", "#model=%FF%FE",
                              "#%E2%80%AEseq_len=1"}) {
    SCOPED_TRACE(h);
    Result<Query> q = hash_timed(h);
    ASSERT_FALSE(q.ok());
    EXPECT_FALSE(q.error().message.empty());
  }
  // Non-finite numbers in links name the key.
  for (const char* h : {"#seq_len=nan", "#mfu=inf", "#dataset.tokens=-inf", "#seq_len=1e999"}) {
    Result<Query> q = hash_timed(h);
    ASSERT_FALSE(q.ok()) << h;
    EXPECT_EQ(q.error().field, std::string(h + 1, std::string(h).find('=') - 1)) << q.error().to_string();
  }
}

TEST(BadInputMatrix, OverlongHashesAreRefusedBeforeParsing) {
  for (size_t n : {(256u << 10) + 1, 10u << 20}) {
    Result<Query> q = hash_timed("#" + std::string(n, 'a'));
    ASSERT_FALSE(q.ok());
    EXPECT_NE(q.error().message.find("too long"), std::string::npos) << q.error().to_string();
  }
  // Many tiny pairs inside the limit: linear work, still an error on the unknown key.
  std::string many = "#";
  for (int i = 0; i < 2000; ++i) many += "a=1&";
  EXPECT_FALSE(hash_timed(many).ok());
  std::string repeats = "#";
  while (repeats.size() < 200000) repeats += "seq_len=4096&";
  EXPECT_TRUE(hash_timed(repeats).ok());
}

TEST(BadInputMatrix, TheLongestValidQueryStillHasALinkThatOpens) {
  // Regression (fuzz_query_hash, seed regression_link_longer_than_input): list items made of '"' tripled in
  // length when percent-encoded, and the query's own link was refused as too long.
  json lists = json::array();
  for (int i = 0; i < 256; ++i) lists.push_back(std::string(60, '"') + std::to_string(1000 + i));
  const json doc = {{"filters", {{"providers", lists}, {"regions", lists}, {"gpus", lists}}},
                    {"target", {{"offer", std::string(256, '<')}, {"gpu", std::string(256, '>')}}}};
  Result<Query> q = parse_timed(doc.dump());
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  const std::string link = query_to_hash(*q);
  EXPECT_GT(link.size(), 140000u);
  Result<Query> back = hash_timed(link);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(query_to_json(*back, true), query_to_json(*q, true));
}

TEST(BadInputMatrix, InjectionLookingHashesAreDataNotCode) {
  const char* hostile[] = {"#model=%3Cscript%3Ealert(1)%3C%2Fscript%3E",
                           "#model=%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E",
                           "#target.offer=javascript%3Aalert(1)&model=nope",
                           "#__proto__=1",
                           "#constructor.prototype.polluted=1",
                           "#model=llama-3.1-8b'%20OR%201%3D1%20--",
                           "#model=..%2F..%2Fetc%2Fpasswd",
                           "#%3Cscript%3E=1",
                           "#method=lora%0Aseq_len%3D1",
                           "#lora_targets=q,%3Csvg%20onload%3Dalert(1)%3E"};
  for (const char* h : hostile) {
    SCOPED_TRACE(h);
    Result<Query> q = hash_timed(h);
    ASSERT_FALSE(q.ok());
    EXPECT_FALSE(q.error().message.empty());
    // The facade turns the error into a JSON document that parses, whatever bytes it quotes.
    const std::string doc = api_call("query", std::string("{\"target\":{\"offer\":") + json(h).dump() + "}}", nullptr);
    EXPECT_TRUE(json::accept(doc)) << doc;
  }
  // Free text that is accepted stays inert: it round-trips as the same bytes and never widens the query.
  Result<Query> ok = hash_timed("#target.offer=%3Cscript%3Ealert(1)%3C%2Fscript%3E%26seq_len%3D1");
  ASSERT_TRUE(ok.ok()) << ok.error().to_string();
  EXPECT_EQ(ok->target.offer, "<script>alert(1)</script>&seq_len=1");
  EXPECT_EQ(ok->train.seq_len, default_query().train.seq_len);
  Result<Query> back = parse_query_hash(query_to_hash(*ok));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->target.offer, ok->target.offer);
}

TEST(BadInputMatrix, LinksWithInvalidUtf8AreRefusedByName) {
  // Regression (fuzz_query_hash): "#target.offer=%FF" parsed, then query_to_json threw (nlohmann refuses to
  // dump invalid UTF-8) and the exception escaped the core.
  for (const char* h : {"#target.offer=%FF", "#model.name=%C3", "#target.gpu=%ED%A0%80", "#target.offer=%C0%AF",
                        "#target.offer=%F4%90%80%80", "#target.offer=%E2%82"}) {
    Result<Query> q = hash_timed(h);
    ASSERT_FALSE(q.ok()) << h;
    EXPECT_NE(q.error().message.find("UTF-8"), std::string::npos) << q.error().to_string();
  }
  EXPECT_EQ(parse_query_hash("#target.offer=%FF").error().field, "target.offer");
  EXPECT_FALSE(parse_query_hash("#%FF%FE=1").ok());
  // Well-formed multi-byte text is fine and round-trips.
  Result<Query> ok = hash_timed("#target.offer=%E2%9C%93%F0%9F%9A%80%C3%A9");
  ASSERT_TRUE(ok.ok()) << ok.error().to_string();
  EXPECT_EQ(ok->target.offer, "\u2713\U0001F680\u00e9");
  EXPECT_TRUE(json::accept(query_to_json(*ok, true)));
}

TEST(BadInputMatrix, ErrorsQuotingInvalidUtf8StillGiveAJsonDocument) {
  // A link can carry any byte (%FF); an error quoting it must not make the facade throw while dumping.
  Result<Query> q = parse_query_hash("#%FF%FE=1");
  ASSERT_FALSE(q.ok());
  const std::string doc = api_call("estimate", "{\"model\":\"\xff\"}", nullptr);
  ASSERT_TRUE(json::accept(doc)) << doc;
  const json d = json::parse(doc);
  EXPECT_FALSE(d["ok"].get<bool>());
  EXPECT_EQ(d["error"]["message"].get<std::string>().rfind("internal error", 0), std::string::npos) << doc;
}

// Regressions found by the fuzzers (inputs also in tests/fuzz/corpus/): a query's own link or full JSON
// must parse back to the same query.
TEST(BadInputMatrix, FullJsonOfTheDefaultQueryParsesBack) {
  // fuzz_query_json: "{}" -> query_to_json(full) wrote overhead_GiB = -1 (the "default" sentinel), which the
  // parser then refused as negative.
  Result<Query> q = parse_query_json("{}");
  ASSERT_TRUE(q.ok());
  const std::string full = query_to_json(*q, true);
  Result<Query> back = parse_query_json(full);
  ASSERT_TRUE(back.ok()) << full << " -> " << back.error().to_string();
  EXPECT_EQ(query_to_json(*back, true), full);
  EXPECT_LT(back->train.overhead_bytes, 0);  // still "documented default"
}

TEST(BadInputMatrix, InlineModelLinkWithImplicitKvHeadsParsesBack) {
  // fuzz_query_hash: an inline model without num_kv_heads (0 = same as num_heads) was linked as
  // model.num_kv_heads=0, which the parser refused as not positive.
  // The 0 is resolved to num_heads when the query is finished (the estimators refused a 0): the link written back
  // names it.
  const char* link = "model.arch=llama&model.hidden_size=2048&model.num_layers=16&model.num_heads=16&"
                     "model.vocab_size=32000&model.intermediate_size=5632&model.name=My%20model";
  Result<Query> q = parse_query_hash(link);
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  const std::string hash = query_to_hash(*q);
  Result<Query> back = parse_query_hash(hash);
  ASSERT_TRUE(back.ok()) << hash << " -> " << back.error().to_string();
  EXPECT_EQ(query_to_json(*back, true), query_to_json(*q, true));
  EXPECT_EQ(back->model.num_kv_heads, 16);
  EXPECT_TRUE(count_params(back->model).ok());
}

TEST(BadInputMatrix, ManualDefaultLayoutSurvivesTheLinkWhateverTheOtherValuesSay) {
  // Regression (fuzz_query_hash): a manual layout with every parallel value at its default is linked as
  // "parallel=manual"; the writer looked for the text "parallel." anywhere in the link, so a list item
  // containing it made the layout come back as automatic. Seed regression_parallel_text_in_value.
  Result<Query> q = parse_query_hash("#parallel.tp=1&filters.providers=aws,parallel.x");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  ASSERT_FALSE(q->train.parallel.automatic);
  Result<Query> back = parse_query_hash(query_to_hash(*q));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_FALSE(back->train.parallel.automatic) << query_to_hash(*q);
  EXPECT_EQ(query_to_json(*back, true), query_to_json(*q, true));
}

// ---------------------------------------------------------------------------------------------- snapshots

const json& bundled_doc() {
  static const json d = json::parse(embedded_snapshot_json());
  return d;
}

SnapshotReport load_timed(const std::string& text, double bound_s = kCaseBound_s) {
  SnapshotReport r;
  const auto t0 = Clock::now();
  std::optional<Snapshot> s = load_snapshot_report(text, SnapshotLoadOptions{}, &r);
  EXPECT_LT(seconds_since(t0), bound_s) << text.size() << " bytes";
  EXPECT_EQ(s.has_value(), r.ok());
  return r;
}

// Expect an error whose pointer starts with `pointer` and whose message contains `words`.
void expect_snapshot_error(const SnapshotReport& r, const std::string& pointer, const std::string& words) {
  bool found = false;
  for (const auto& e : r.errors) {
    EXPECT_FALSE(e.message.empty()) << e.field;
    found = found || (e.field.rfind(pointer, 0) == 0 && e.message.find(words) != std::string::npos);
  }
  std::string all;
  for (const auto& e : r.errors) all += "\n  " + e.to_string();
  EXPECT_TRUE(found) << "no error at " << pointer << " containing \"" << words << "\"; got:" << all;
}

int column(const char* name) {
  const json& cols = bundled_doc()["offers"]["columns"];
  for (size_t i = 0; i < cols.size(); ++i)
    if (cols[i] == name) return static_cast<int>(i);
  ADD_FAILURE() << "no column " << name;
  return 0;
}

TEST(BadSnapshot, BundledSnapshotLoadsCleanly) {
  const SnapshotReport r = load_timed(std::string(embedded_snapshot_json()));
  EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors[0].to_string());
}

TEST(BadSnapshot, TruncatedDocumentsAreRefusedWherever_TheyAreCut) {
  const std::string text(embedded_snapshot_json());
  for (double f : {0.0, 0.001, 0.1, 0.5, 0.9, 0.999}) {
    const size_t n = static_cast<size_t>(f * static_cast<double>(text.size()));
    const SnapshotReport r = load_timed(text.substr(0, n));
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_NE(r.errors[0].message.find("not valid JSON"), std::string::npos) << r.errors[0].to_string();
  }
  // Cut one byte before the end: the last brace is missing.
  EXPECT_FALSE(load_timed(text.substr(0, text.find_last_of('}'))).ok());
}

// The text sidecar of the lean binary (data/snapshot-text.json, apply_snapshot_text): fetched by the page, so
// untrusted. Truncated, hostile or foreign sidecars are refused quickly with a field, and change nothing.
TEST(BadSnapshot, TruncatedOrHostileTextSidecarsAreRefusedAndChangeNothing) {
  const LeanPack lean = pack_snapshot_lean(embedded_snapshot_json()).value();
  const Snapshot before = load_snapshot_binary(lean.binary, SnapshotLoadOptions{}).value();
  std::vector<std::string> bad;
  for (double f : {0.0, 0.01, 0.5, 0.99}) bad.push_back(lean.text_json.substr(0, static_cast<size_t>(f * lean.text_json.size())));
  json j = json::parse(lean.text_json);
  j["gpus"][before.gpus[0].id]["tflops_bf16"] = "9999";  // a number's name: not a text field
  bad.push_back(j.dump());
  j = json::parse(lean.text_json);
  j["snapshot_id"] = before.id + "-old";  // a cached sidecar of another snapshot
  bad.push_back(j.dump());
  bad.push_back(std::string(1u << 20, '{'));
  bad.push_back("{\"format\":\"trainfit-snapshot-text\",\"version\":1e300}");
  bad.push_back(std::string("{\"a\":\"\xff\xfe\"}"));
  for (const std::string& text : bad) {
    Snapshot s = before;
    const auto t0 = Clock::now();
    Result<size_t> r = apply_snapshot_text(s, text);
    EXPECT_LT(seconds_since(t0), kCaseBound_s);
    ASSERT_FALSE(r.ok()) << text.substr(0, 200);
    EXPECT_FALSE(r.error().message.empty());
    EXPECT_TRUE(s == before) << r.error().to_string();
  }
  Snapshot s = before;
  ASSERT_TRUE(apply_snapshot_text(s, lean.text_json).ok());  // the good one applies
  EXPECT_FALSE(s.text_left_out);
}

TEST(BadSnapshot, OtherSchemaVersionsAreRefusedByName) {
  for (const json& v : {json(2), json(0), json(-1), json(1.5), json("1"), json(nullptr), json(1e300)}) {
    json d = bundled_doc();
    d["schema_version"] = v;
    expect_snapshot_error(load_timed(d.dump()), "/schema_version", "");
  }
  json d = bundled_doc();
  d.erase("schema_version");
  EXPECT_FALSE(load_timed(d.dump()).ok());
}

TEST(BadSnapshot, FiftyMegabyteDocumentIsRefusedBeforeParsing) {
  std::string text(embedded_snapshot_json());
  text.insert(text.size() - 1, std::string(50u << 20, ' '));
  const SnapshotReport r = load_timed(text);  // the size check comes first: well within the small bound
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors[0].field, "");
  EXPECT_NE(r.errors[0].message.find("limit"), std::string::npos) << r.errors[0].to_string();
}

TEST(BadSnapshot, HundredThousandOffersLoadWithinTheBound) {
  json d = bundled_doc();
  const json rows = d["offers"]["rows"];
  json many = json::array();
  const int id = column("id");
  for (int i = 0; many.size() < 100000; ++i) {
    json row = rows[static_cast<size_t>(i) % rows.size()];
    row[id] = row[id].get<std::string>() + "/copy" + std::to_string(i);
    many.push_back(std::move(row));
  }
  d["offers"]["rows"] = std::move(many);
  const std::string text = d.dump();
  d = json();  // keep the peak memory to one tree (the wasm test build has 1 GB)
  ASSERT_LT(text.size(), 32u << 20);  // inside the default input limit: this is a real load
  SnapshotReport r;
  const auto t0 = Clock::now();
  std::optional<Snapshot> s = load_snapshot_report(text, SnapshotLoadOptions{}, &r);
  const double took_s = seconds_since(t0);
  EXPECT_LT(took_s, kBigDocumentBound_s);
  ASSERT_TRUE(s.has_value()) << (r.errors.empty() ? "" : r.errors[0].to_string());
  EXPECT_EQ(s->offers.size(), 100000u);
  std::printf("[ measured ] 100k-offer snapshot (%.1f MB) loaded in %.2f s\n", text.size() / 1e6, took_s);
}

TEST(BadSnapshot, DuplicateIdsAreNamed) {
  {
    json d = bundled_doc();
    d["offers"]["rows"][5][column("id")] = d["offers"]["rows"][4][column("id")];
    expect_snapshot_error(load_timed(d.dump()), "/offers/rows/5", "duplicate");
  }
  {
    json d = bundled_doc();
    d["gpus"][1]["id"] = d["gpus"][0]["id"];
    expect_snapshot_error(load_timed(d.dump()), "/gpus/1", "duplicate");
  }
  {
    json d = bundled_doc();
    d["providers"][1]["id"] = d["providers"][0]["id"];
    expect_snapshot_error(load_timed(d.dump()), "/providers/1", "duplicate");
  }
}

TEST(BadSnapshot, UnknownGpuAndProviderReferencesAreNamed) {
  json d = bundled_doc();
  d["offers"]["rows"][3][column("gpu")] = "h900-imaginary";
  d["offers"]["rows"][7][column("provider")] = "nocloud";
  const SnapshotReport r = load_timed(d.dump());
  expect_snapshot_error(r, "/offers/rows/3/" + std::to_string(column("gpu")), "unknown GPU");
  expect_snapshot_error(r, "/offers/rows/7/" + std::to_string(column("provider")), "unknown provider");
}

// The marketplace column (Offer::via): a provider id other than the offer's own, or null.
TEST(BadSnapshot, AViaNamingNoProviderTheOffersOwnOrNotAStringIsNamed) {
  const int via = column("via");
  ASSERT_GE(via, 0);
  const std::string cell = "/offers/rows/4/" + std::to_string(via);
  json d = bundled_doc();
  d["offers"]["rows"][4][via] = "nocloud";
  expect_snapshot_error(load_timed(d.dump()), cell, "via: unknown provider \"nocloud\"");
  d["offers"]["rows"][4][via] = d["offers"]["rows"][4][column("provider")];
  expect_snapshot_error(load_timed(d.dump()), cell, "own provider");
  for (const json& bad : {json(3), json(""), json(true), json::array()}) {
    d["offers"]["rows"][4][via] = bad;
    SCOPED_TRACE(bad.dump());
    expect_snapshot_error(load_timed(d.dump()), cell, "via");
  }
}

TEST(BadSnapshot, NegativeMissingAndNonFinitePricesAreNamed) {
  const int price = column("price_usd_per_h"), spot = column("spot_usd_per_h");
  const std::string cell = "/offers/rows/2/" + std::to_string(price);
  for (const json& bad : {json(-1), json(-0.01), json(-1e300), json("12.5"), json("NaN"), json(1e300), json(true)}) {
    json d = bundled_doc();
    d["offers"]["rows"][2][price] = bad;
    SCOPED_TRACE(bad.dump());
    expect_snapshot_error(load_timed(d.dump()), cell, "");
  }
  {
    json d = bundled_doc();
    d["offers"]["rows"][2][price] = nullptr;
    d["offers"]["rows"][2][spot] = nullptr;
    d["offers"]["rows"][2][column("spot_max_usd_per_h")] = nullptr;
    expect_snapshot_error(load_timed(d.dump()), "/offers/rows/2", "neither an on-demand nor a spot price");
  }
  {
    // Raw non-finite literals are not JSON at all.
    std::string text = bundled_doc().dump();
    const std::string needle = "\"storage_usd_per_GB_month\":";
    const size_t at = text.find(needle);
    ASSERT_NE(at, std::string::npos);
    text.insert(at + needle.size(), "NaN,\"x\":");
    EXPECT_FALSE(load_timed(text).ok());
  }
  {
    json d = bundled_doc();
    d["providers"][0]["storage_usd_per_GB_month"] = -0.08;
    expect_snapshot_error(load_timed(d.dump()), "/providers/0/storage_usd_per_GB_month", "");
  }
}

TEST(BadSnapshot, MissingOrBrokenBillingRulesAreNamed) {
  {
    json d = bundled_doc();
    d["providers"][0].erase("billing");
    expect_snapshot_error(load_timed(d.dump()), "/providers/0/billing", "missing");
  }
  {
    json d = bundled_doc();
    d["providers"][0]["billing"] = nullptr;
    expect_snapshot_error(load_timed(d.dump()), "/providers/0/billing", "");
  }
  {
    json d = bundled_doc();
    d["providers"][0]["billing"].erase("increment_s");
    expect_snapshot_error(load_timed(d.dump()), "/providers/0/billing/increment_s", "missing");
  }
  {
    json d = bundled_doc();
    d["providers"][0]["billing"]["increment_s"] = 0;
    expect_snapshot_error(load_timed(d.dump()), "/providers/0/billing/increment_s", "");
  }
  {
    json d = bundled_doc();
    d["providers"][0]["billing"]["minimum_s"] = -60;
    expect_snapshot_error(load_timed(d.dump()), "/providers/0/billing/minimum_s", "");
  }
  {
    json d = bundled_doc();
    d["providers"][0]["billing_exceptions"] = json::array({{{"increment_s", 3600}, {"minimum_s", 3600}}});
    expect_snapshot_error(load_timed(d.dump()), "/providers/0/billing_exceptions/0", "");
  }
}

TEST(BadSnapshot, HostileShapesAreRefusedQuickly) {
  for (const std::string& text : {std::string(""), std::string("null"), std::string("[]"), std::string("\"snapshot\""),
                                 std::string(1 << 20, '['), std::string(1 << 20, '{'), std::string("{\"offers\":5}"),
                                 std::string("{\"schema_version\":1,\"offers\":{\"columns\":[],\"rows\":[[]]}}")}) {
    const SnapshotReport r = load_timed(text);
    ASSERT_FALSE(r.ok()) << text.substr(0, 60);
    EXPECT_FALSE(r.errors[0].message.empty());
  }
  // Many errors: bounded list, the rest counted.
  json d = bundled_doc();
  for (auto& row : d["offers"]["rows"]) row[column("gpu_count")] = -1;
  const SnapshotReport r = load_timed(d.dump());
  EXPECT_LE(r.errors.size(), 200u);
  EXPECT_GT(r.errors_dropped, 0);
}

// ---------------------------------------------------------------------------------------------- outputs

// Walks a document and records the path of every number that is not finite and every null (the facade
// writes null where a computation gave NaN or infinity, so a null is where a non-finite value was hidden).
void walk(const json& j, const std::string& path, std::vector<std::string>* bad, std::vector<std::string>* nulls) {
  if (j.is_number() && !std::isfinite(j.get<double>())) bad->push_back(path);
  if (j.is_null()) nulls->push_back(path);
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it) walk(*it, path + "/" + it.key(), bad, nulls);
  if (j.is_array())
    for (size_t i = 0; i < j.size(); ++i) walk(j[i], path + "/" + std::to_string(i), bad, nulls);
}

const Snapshot& bundled_snapshot() {
  static const Snapshot s = [] {
    Result<Snapshot> r = load_snapshot(embedded_snapshot_json());
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : Snapshot{};
  }();
  return s;
}

// ---------------------------------------------------------------------------------------------- measured runs

// Text pasted from a training log (calibrate.h parse_measured_run): every defect gets an error naming the key,
// quickly, whatever the size.
TEST(BadMeasuredRun, EveryDefectIsNamedQuickly) {
  const std::pair<std::string, const char*> cases[] = {
      {"", "step_time_s"},
      {"hello world, no numbers here", "step_time_s"},
      {"step_time_s=", "step_time_s"},
      {"step_time_s=abc", "step_time_s"},
      {"step_time_s=-1", "step_time_s"},
      {"step_time_s=0", "step_time_s"},
      {"step_time_s=nan", "step_time_s"},
      {"step_time_s=inf", "step_time_s"},
      {"step_time_s=1e999", "step_time_s"},
      {"step_time_s=0x10", "step_time_s"},
      {"step_time_s=5h", "step_time_s"},
      {"step_time_s=1e7", "step_time_s"},
      {"tokens_per_s=1e13", "tokens_per_s"},
      {"step_time_s=1 peak_GiB=99999", "peak_GiB"},
      {"step_time_s=1 peak_GiB=12parsecs", "peak_GiB"},
      {"step_time_s=1 peak_GiB=-3", "peak_GiB"},
      {"step_time_s=\xff\xfe", "step_time_s"},
      {std::string(70000, 'a'), "measured"},
  };
  for (const auto& [text, field] : cases) {
    SCOPED_TRACE(text.substr(0, 60));
    const auto t0 = Clock::now();
    Result<MeasuredRun> m = parse_measured_run(text);
    EXPECT_LT(seconds_since(t0), kCaseBound_s);
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error().field, field) << m.error().to_string();
    EXPECT_FALSE(m.error().message.empty());
  }
  // 64 KiB of separators and half-pairs: linear, and still a clear error.
  std::string noisy;
  while (noisy.size() < 60000) noisy += "step_time:,|;=\n";
  const auto t0 = Clock::now();
  Result<MeasuredRun> m = parse_measured_run(noisy);
  EXPECT_LT(seconds_since(t0), kCaseBound_s);
  EXPECT_FALSE(m.ok());
}

TEST(FiniteOutputs, EveryNumberInEveryDocumentIsFinite) {
  const Snapshot& snap = bundled_snapshot();
  ASSERT_FALSE(snap.offers.empty());
  // Offers for plan / cost: the first H100 8-GPU and a single-GPU one.
  std::string big_offer, small_offer;
  for (const auto& o : snap.offers) {
    if (big_offer.empty() && o.gpu_count == 8 && snap.gpus[o.gpu].id == "h100-sxm" && o.price_usd_per_h > 0)
      big_offer = o.id;
    if (small_offer.empty() && o.gpu_count == 1 && o.spot_usd_per_h > 0) small_offer = o.id;
  }
  ASSERT_FALSE(big_offer.empty());
  ASSERT_FALSE(small_offer.empty());
  const std::vector<std::string> queries = {
      // Valid jobs, small to extreme.
      "{}",
      R"({"model":"gpt2","method":"full","precision":"fp32"})",
      R"({"model":"llama-3.1-70b","method":"full","recompute":"full","dataset":{"tokens":1e11}})",
      R"({"model":"llama-3.1-8b","method":"qlora","seq_len":32768,"micro_batch":1})",
      R"({"model":"mixtral-8x7b","method":"lora","filters":{"pricing":"spot"},"sort":"usd_per_mtok"})",
      R"({"model":{"params":1e14},"method":"full","dataset":{"tokens":1e16}})",
      R"({"model":{"params":1000},"method":"full","dataset":{"tokens":1}})",
      R"({"seq_len":4194304,"micro_batch":65536,"dataset":{"tokens":1e16,"epochs":10000}})",
      R"({"dataset":{"tokens":0,"examples":1e13,"avg_tokens":1e8}})",
      R"({"parallel":{"tp":8,"pp":4,"dp":1,"zero":3,"offload_params":true,"offload_optimizer":true}})",
      R"({"mfu":1,"overhead_GiB":64,"fragmentation":1,"headroom":0.9})",
      R"({"mfu":1e-300,"dataset":{"tokens":1e16}})",
      R"({"cost":{"checkpoint_interval_s":1e7,"eval_overhead":10,"volume_GB":1e7,"egress_GB":1e7,
          "spot_interruption_rate_per_h":100,"dev_runs":100000,"dev_run_minutes":1e5}})",
      R"({"cost":{"checkpoint_interval_s":1e-9,"spot_interruption_rate_per_h":1e-9}})",
      R"({"filters":{"deadline_h":1e-6,"budget_usd":1e-6,"max_usd_per_h":1e-6,"show_all":true}})",
      R"({"filters":{"max_nodes":1024,"show_all":true,"must_fit":true},"model":"llama-3.1-405b","method":"full"})",
      R"({"filters":{"providers":["nope"],"gpus":["nope"]}})",
      R"({"top":1,"sort":"time"})",
      R"({"sort":"cost_under_deadline","filters":{"deadline_h":1}})",
      // Invalid queries: documents must still be clean.
      R"({"seq_len":0})",
      R"({"model":{"params":1e30}})",
      "{", "[]",
      R"({"target":{"offer":"nope"}})",
  };
  const auto with_target = [](const std::string& q, const std::string& offer) {
    json d = json::parse(q, nullptr, false);
    if (d.is_discarded() || !d.is_object()) return q;
    d["target"]["offer"] = offer;
    d["target"]["gpu"] = "h100-sxm";
    return d.dump();
  };
  int documents = 0, numbers_ok = 0;
  for (const char* verb : {"estimate", "rank", "plan", "cost", "recipe", "calibrate", "query", "models", "validate"}) {
    for (const std::string& q0 : queries) {
      for (const std::string& offer : {big_offer, small_offer}) {
        const std::string q = with_target(q0, offer);
        SCOPED_TRACE(std::string(verb) + " " + q.substr(0, 160));
        const auto t0 = Clock::now();
        const std::string out = api_call(verb, q, &snap);
        // rank walks every offer of the bundled snapshot: allow it more than a single parse.
        EXPECT_LT(seconds_since(t0), 10 * kCaseBound_s);
        const json doc = json::parse(out, nullptr, false);
        ASSERT_FALSE(doc.is_discarded()) << out.substr(0, 300);
        ASSERT_TRUE(doc.contains("ok") && doc["ok"].is_boolean()) << out.substr(0, 300);
        if (!doc["ok"].get<bool>()) {
          EXPECT_FALSE(doc["error"]["message"].get<std::string>().empty());
          EXPECT_EQ(doc["error"]["message"].get<std::string>().rfind("internal error", 0), std::string::npos) << out;
        }
        std::vector<std::string> bad, nulls;
        walk(doc, "", &bad, &nulls);
        EXPECT_TRUE(bad.empty()) << "non-finite at " << bad.front();
        for (const auto& p : nulls) ADD_FAILURE() << "null (a hidden non-finite value?) at " << p;
        ++documents;
        numbers_ok += bad.empty();
        if (std::string(verb) == "models" || std::string(verb) == "validate") break;  // query-independent
      }
      if (std::string(verb) == "models" || std::string(verb) == "validate") break;
    }
  }
  EXPECT_EQ(numbers_ok, documents);
  std::printf("[ measured ] %d facade documents walked, all numbers finite\n", documents);
}

}  // namespace
}  // namespace trainfit

namespace trainfit {
namespace {

// The validation report the web page fetches (data/validation.json, api.h set_validation_document) is untrusted:
// anything but the validate verb's document is refused with a reason and changes nothing.
TEST(BadInputMatrix, AFetchedValidationReportThatIsNotOneIsRefused) {
  const std::string before = api_call("validate", "{}", nullptr);
  for (const char* bad : {"", "null", "[]", "{", "{\"ok\":false,\"rows\":[]}", "{\"ok\":true}", "{\"ok\":true,\"rows\":{}}",
                          "{\"ok\":true,\"rows\":[1]}", "{\"ok\":true,\"rows\":[{\"kind\":3}]}", "<script>alert(1)</script>",
                          // `ok` of another type (a fuzzer find: once thrown out of the reader instead of refused)
                          "{\"ok\":1,\"rows\":[]}", "{\"ok\":\"true\",\"rows\":[]}", "{\"ok\":null,\"rows\":[]}"}) {
    std::string why;
    EXPECT_FALSE(set_validation_document(bad, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
  EXPECT_EQ(api_call("validate", "{}", nullptr), before);
  std::string why;
  EXPECT_TRUE(set_validation_document(R"({"ok":true,"matched":true,"rows":[{"kind":"memory","name":"x"}]})", &why)) << why;
}

}  // namespace
}  // namespace trainfit

// ---------------------------------------------------------------------------------------------- manifests

namespace trainfit {
namespace {

// A published manifest (storage/manifest.h) as a server could send it: every defect refused quickly with the
// field it concerns, never a crash or an accepted half.
TEST(BadManifest, EveryDefectIsRefusedNamingItsField) {
  const Snapshot snap = load_snapshot(embedded_snapshot_json()).value();
  const ManifestFile bin{"", "snapshot.bin", 1000, std::string(64, 'a')};
  const ManifestFile text{"", "snapshot-text.json", 500, std::string(64, 'b')};
  const json good = json::parse(snapshot_manifest_json(make_snapshot_manifest(snap, bin, &text)));
  ASSERT_TRUE(parse_snapshot_manifest(good.dump()).ok());
  struct Case {
    const char* pointer;
    std::function<void(json&)> edit;
  };
  const std::vector<Case> cases = {
      {"/format", [](json& j) { j["format"] = "trainfit-snapshot-text"; }},
      {"/format", [](json& j) { j.erase("format"); }},
      {"/version", [](json& j) { j["version"] = 2; }},
      {"/version", [](json& j) { j["version"] = "1"; }},
      {"/version", [](json& j) { j["version"] = 1e300; }},
      {"/snapshot_id", [](json& j) { j["snapshot_id"] = ""; }},
      {"/snapshot_id", [](json& j) { j["snapshot_id"] = "a\"b"; }},
      {"/snapshot_id", [](json& j) { j["snapshot_id"] = "line\nbreak"; }},
      {"/snapshot_id", [](json& j) { j["snapshot_id"] = std::string(201, 'x'); }},
      {"/created", [](json& j) { j["created"] = "2026-13-01"; }},
      {"/schema_version", [](json& j) { j["schema_version"] = -1; }},
      {"/binary_version", [](json& j) { j["binary_version"] = 1.5; }},
      {"/lean", [](json& j) { j["lean"] = "yes"; }},
      {"/extra", [](json& j) { j["extra"] = 1; }},
      {"/prices", [](json& j) { j["prices"] = json::array(); }},
      {"/prices/newest", [](json& j) { j["prices"]["newest"] = "1999-01-01"; }},
      {"/prices/providers/aws", [](json& j) { j["prices"]["providers"]["aws"]["oldest"] = "1990-01-01"; }},
      {"/prices/providers/aws/oldest", [](json& j) { j["prices"]["providers"]["aws"]["oldest"] = 20260920; }},
      {"/files", [](json& j) { j["files"] = json::array(); }},
      {"/files", [](json& j) { j["files"].erase(1); }},
      {"/files", [](json& j) { j["lean"] = false; }},
      {"/files/0/role", [](json& j) { std::swap(j["files"][0], j["files"][1]); }},
      {"/files/0/name", [](json& j) { j["files"][0]["name"] = "../../etc/passwd"; }},
      {"/files/0/name", [](json& j) { j["files"][0]["name"] = "https://evil.example/x.bin"; }},
      {"/files/1/name", [](json& j) { j["files"][1]["name"] = "snapshot.bin"; }},
      {"/files/0/bytes", [](json& j) { j["files"][0]["bytes"] = 0; }},
      {"/files/0/bytes", [](json& j) { j["files"][0]["bytes"] = 1e12; }},
      {"/files/0/bytes", [](json& j) { j["files"][0]["bytes"] = -5; }},
      {"/files/0/sha256", [](json& j) { j["files"][0]["sha256"] = std::string(64, 'A'); }},
      {"/files/1/sha256", [](json& j) { j["files"][1]["sha256"] = std::string(63, 'a'); }},
      {"/files/1/size", [](json& j) { j["files"][1]["size"] = 1; }},
  };
  for (const Case& c : cases) {
    json j = good;
    c.edit(j);
    const auto t0 = Clock::now();
    Result<SnapshotManifest> r = parse_snapshot_manifest(j.dump());
    EXPECT_LT(seconds_since(t0), kCaseBound_s);
    ASSERT_FALSE(r.ok()) << c.pointer << ": accepted " << j.dump().substr(0, 300);
    EXPECT_EQ(r.error().field, c.pointer) << r.error().to_string();
    EXPECT_FALSE(r.error().message.empty());
  }
}

TEST(BadManifest, MalformedTruncatedAndHugeDocumentsAreRefusedQuickly) {
  const Snapshot snap = load_snapshot(embedded_snapshot_json()).value();
  const ManifestFile bin{"", "snapshot.bin", 1000, std::string(64, 'a')};
  const std::string good = snapshot_manifest_json(make_snapshot_manifest(snap, bin, nullptr));
  std::vector<std::string> bad = {"", "null", "[]", "\"manifest\"", std::string(1u << 20, '['), std::string(2u << 20, ' '),
                                  std::string("{\"format\":\"\xff\xfe\"}"), "{\"format\":\"trainfit-snapshot-manifest\"}"};
  for (double f : {0.01, 0.3, 0.7, 0.99}) bad.push_back(good.substr(0, static_cast<size_t>(f * good.size())));
  for (const std::string& text : bad) {
    const auto t0 = Clock::now();
    Result<SnapshotManifest> r = parse_snapshot_manifest(text);
    EXPECT_LT(seconds_since(t0), kCaseBound_s);
    ASSERT_FALSE(r.ok()) << text.substr(0, 100);
    EXPECT_FALSE(r.error().message.empty());
  }
}

// The facade's documents read back (api.h recipe_from_document, model_from_hf_config_document: what the web page's
// module does with the JS API module's answers): text that is not the verb's document is an error with a message,
// quickly, never a throw; an error document keeps its own field (fuzz_facade_docs covers the rest).
TEST(BadInputMatrix, DocumentsReadBackRefuseWhatIsNotTheVerbsDocument) {
  const std::vector<std::string> bad = {"", "null", "not json", "[1,2]", "{\"ok\":1}", "{\"ok\":\"true\"}",
                                        "{\"ok\":false,\"error\":7}", std::string(10000, '[') + std::string(10000, ']'),
                                        std::string(2 << 20, ' ')};
  for (const std::string& text : bad) {
    const auto t0 = Clock::now();
    const Result<Recipe> r = recipe_from_document(text);
    const Result<ModelSpec> m = model_from_hf_config_document(text);
    EXPECT_LT(seconds_since(t0), kCaseBound_s);
    ASSERT_FALSE(r.ok()) << text.substr(0, 40);
    ASSERT_FALSE(m.ok()) << text.substr(0, 40);
    EXPECT_FALSE(r.error().message.empty());
    EXPECT_FALSE(m.error().message.empty());
  }
  const std::string err = R"({"ok": false, "error": {"field": "hf_config.hidden_size", "message": "must be positive"}})";
  EXPECT_EQ(model_from_hf_config_document(err).error().field, "hf_config.hidden_size");
  EXPECT_EQ(recipe_from_document(err).error().message, "must be positive");
  for (const char* empty : {R"({"ok": false, "error": {"message": ""}})", R"({"ok": false, "error": {"message": 7}})"}) {
    EXPECT_FALSE(recipe_from_document(empty).error().message.empty()) << empty;
    EXPECT_FALSE(model_from_hf_config_document(empty).error().message.empty()) << empty;
  }
  // A document whose model is not a valid model is refused by the query parser, naming the key.
  const Result<ModelSpec> m = model_from_hf_config_document(R"({"ok": true, "model": {"hidden_size": -4}})");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().field.rfind("model", 0), 0u) << m.error().field;
  // Wrong types inside an ok recipe document are skipped, never thrown on.
  const Result<Recipe> r = recipe_from_document(R"({"ok": true, "files": 7, "notes": [1, "n"], "nodes": "x", "option": []})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->notes, std::vector<std::string>{"n"});
  EXPECT_EQ(r->nodes, 1);
  EXPECT_TRUE(r->files.empty());
}

}  // namespace
}  // namespace trainfit
