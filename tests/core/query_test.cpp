// Tests of the shared query model: JSON and URL-hash forms, their round trips, and the field-named errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "trainfit/query/query.h"

namespace trainfit {

TEST(Query, DefaultQueryIsValidAndNamesARealPreset) {
  const Query q = default_query();
  EXPECT_EQ(q.model_id, "llama-3.1-8b");
  EXPECT_GT(q.model.hidden_size, 0);
  EXPECT_TRUE(parse_query_json("{}").ok());
  EXPECT_TRUE(parse_query_hash("").ok());
}

TEST(Query, JsonAndHashGiveTheSameQuery) {
  auto a = parse_query_json(R"({"model":"qwen2.5-7b","method":"qlora","seq_len":4096,"micro_batch":2,
                               "dataset":{"tokens":5e8},"filters":{"providers":["aws","lambda"],"pricing":"spot"}})");
  auto b = parse_query_hash(
      "#model=qwen2.5-7b&method=qlora&seq_len=4096&micro_batch=2&dataset.tokens=5e8&filters.providers=aws,lambda"
      "&filters.pricing=spot");
  ASSERT_TRUE(a.ok()) << a.error().to_string();
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  EXPECT_EQ(query_to_json(*a), query_to_json(*b));
  EXPECT_EQ(query_to_hash(*a), query_to_hash(*b));
}

TEST(Query, HashRoundTripReproducesTheQueryExactly) {
  auto q = parse_query_json(R"({"model":"mixtral-8x7b","method":"full","precision":"fp8-mixed","optimizer":"adamw-8bit",
      "recompute":"selective","parallel":{"tp":2,"pp":2,"dp":4,"zero":1,"sequence_parallel":true},
      "dataset":{"examples":1e5,"avg_tokens":812.5,"epochs":3,"packing":false},"sort":"time","top":20,
      "cost":{"dev_runs":12,"dev_run_minutes":7.5}})");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  EXPECT_EQ(q->train.parallel.gpus, 16);
  auto back = parse_query_hash(query_to_hash(*q));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(query_to_json(*back, true), query_to_json(*q, true));
}

// Numbers in the hash are the shortest "%.Pg" text that reads back as the same double, exponent without "+" or
// leading zeros ("7e9"): checked against printf's texts on random values of a free-valued key.
TEST(Query, HashNumbersAreTheShortestTextThatRoundTrips) {
  auto shortest = [](double v) {
    char b[64];
    for (int p = 1; p <= 17; ++p) {
      std::snprintf(b, sizeof b, "%.*g", p, v);
      if (std::strtod(b, nullptr) == v) break;
    }
    std::string s = b;
    const size_t e = s.find('e');
    if (e == std::string::npos) return s;
    std::string ex = s.substr(e + 1);
    const bool neg = ex[0] == '-';
    ex.erase(0, 1);
    while (ex.size() > 1 && ex[0] == '0') ex.erase(0, 1);
    return s.substr(0, e) + "e" + (neg ? "-" : "") + ex;
  };
  std::mt19937_64 rng(20261206);
  std::uniform_real_distribution<double> exponent(4.0, 14.0), mantissa(1.0, 10.0);
  for (int i = 0; i < 400; ++i) {
    Query q = default_query();
    double v = mantissa(rng) * std::pow(10.0, exponent(rng));
    if (i % 3 == 0) v = std::round(v);
    if (i % 5 == 0) v = std::max(1e6, std::round(v / 1e6) * 1e6);
    if (v == default_query().dataset.tokens) continue;  // a default value is left out of the hash
    q.dataset.tokens = v;
    const std::string h = query_to_hash(q);
    const size_t at = h.find("dataset.tokens=");
    ASSERT_NE(at, std::string::npos) << h;
    const size_t from = at + std::string("dataset.tokens=").size();
    EXPECT_EQ(h.substr(from, h.find('&', from) - from), shortest(v)) << h;
    auto back = parse_query_hash(h);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(back->dataset.tokens, v);
  }
}

// A part of a query (the CLI's --hash under --model) is checked key by key: a cross-key problem that another part
// fixes is no error yet; the finished query is checked whole, and a key's own problem is an error at once.
TEST(Query, PartsAreCheckedKeyByKeyAndTheWholeAtTheEnd) {
  const char* part = "#parallel.gpus=8&parallel.dp=8&parallel.ep=8&parallel.zero=3";
  auto whole = parse_query_hash(part);  // the default model is dense
  ASSERT_FALSE(whole.ok());
  EXPECT_EQ(whole.error().field, "parallel.ep");
  auto p = parse_query_hash_part(part);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  Query q = *p;
  auto moe = parse_query_json(R"({"model":"qwen3-30b-a3b","parallel":{"dp":8,"ep":8,"zero":3},"method":"full"})");
  ASSERT_TRUE(moe.ok()) << moe.error().to_string();
  q.model = moe->model;
  q.model_id = moe->model_id;
  q.train.method = moe->train.method;
  auto finished = parse_query_json(query_to_json(q));
  ASSERT_TRUE(finished.ok()) << finished.error().to_string();
  EXPECT_EQ(query_to_json(*finished), query_to_json(*moe));
  // The dense model left in place: the whole query is refused, naming the key.
  auto dense = parse_query_json(query_to_json(*p));
  ASSERT_FALSE(dense.ok());
  EXPECT_EQ(dense.error().field, "parallel.ep");
  // A key's own problem is found in the part.
  EXPECT_EQ(parse_query_hash_part("#parallel.ep=abc").error().field, "parallel.ep");
  EXPECT_EQ(parse_query_json_part(R"({"seq_len":0})").error().field, "seq_len");
  EXPECT_FALSE(parse_query_json_part("{").ok());
}

TEST(Query, InlineModelRoundTripsThroughTheHash) {
  auto q = parse_query_json(R"({"model":{"arch":"llama","hidden_size":2048,"num_layers":16,"num_heads":32,
      "num_kv_heads":8,"intermediate_size":8192,"vocab_size":128256,"tie_embeddings":true}})");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  EXPECT_EQ(q->model_id, "custom");
  auto back = parse_query_hash(query_to_hash(*q));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->model.num_kv_heads, 8);
  EXPECT_TRUE(back->model.tie_embeddings);
  EXPECT_EQ(query_to_json(*back, true), query_to_json(*q, true));
}

TEST(Query, ParamsOnlyModelIsAccepted) {
  auto q = parse_query_json(R"({"model":{"params":7e9}})");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  EXPECT_EQ(q->model.arch, Arch::params_only);
  EXPECT_EQ(q->model.params, 7e9);
}

TEST(Query, SerializationIsDeterministicAndMinimal) {
  const Query q = default_query();
  EXPECT_EQ(query_to_hash(q), "");
  EXPECT_EQ(query_to_json(q), "{}");
}

struct BadCase {
  const char* json;
  const char* field;
  const char* message_part;
};

class QueryRejects : public ::testing::TestWithParam<BadCase> {};

TEST_P(QueryRejects, NamesTheFieldAndTheProblem) {
  const BadCase c = GetParam();
  auto q = parse_query_json(c.json);
  ASSERT_FALSE(q.ok()) << c.json;
  EXPECT_EQ(q.error().field, c.field) << q.error().to_string();
  EXPECT_NE(q.error().message.find(c.message_part), std::string::npos) << q.error().to_string();
}

INSTANTIATE_TEST_SUITE_P(
    BadInputs, QueryRejects,
    ::testing::Values(BadCase{"[1,2]", "", "JSON object"}, BadCase{"{\"seq_len\":", "", "not valid JSON"},
                      BadCase{R"({"seq_len":"long"})", "seq_len", "must be a number"},
                      BadCase{R"({"seq_len":0})", "seq_len", "positive"},
                      BadCase{R"({"seq_len":-4})", "seq_len", "positive"},
                      BadCase{R"({"seq_len":1000000000})", "seq_len", "too large"},
                      BadCase{R"({"seq_len":2048.5})", "seq_len", "whole number"},
                      BadCase{R"({"micro_batch":1e30})", "micro_batch", "too large"},
                      BadCase{R"({"model":{"params":1e30}})", "model.params", "too large"},
                      BadCase{R"({"model":"gpt-5"})", "model", "unknown model preset"},
                      BadCase{R"({"method":"dora"})", "method", "expected one of"},
                      BadCase{R"({"sequence_length":4096})", "sequence_length", "unknown key"},
                      BadCase{R"({"dataset":5})", "dataset", "must be an object"},
                      BadCase{R"({"parallel":{"tp":3}})", "parallel.tp", "must divide"},
                      BadCase{R"({"model":"gpt2","parallel":{"pp":13}})", "parallel.pp", "cannot exceed the layer count"},
                      BadCase{R"({"model":"gpt2","method":"lora","lora_rank":1000})", "lora_rank", "hidden size"},
                      BadCase{R"({"lora_targets":["q","mlp"]})", "lora_targets", "unknown target"},
                      BadCase{R"({"parallel":{"zero":4}})", "parallel.zero", "too large"},
                      BadCase{R"({"filters":{"must_fit":"yes"}})", "filters.must_fit", "true or false"},
                      BadCase{R"({"global_batch":2,"micro_batch":4})", "global_batch", "at least micro_batch"},
                      BadCase{R"({"model":{"arch":"llama","hidden_size":4096}})", "model.num_layers", "required"},
                      // Expert parallelism: the split must divide the experts and the TP x CP x DP ranks, the
                      // model must be a mixture of experts, the method full, and the framework must launch it.
                      BadCase{R"({"model":"qwen3-30b-a3b","method":"full","parallel":{"dp":6,"ep":3}})",
                              "parallel.ep", "must divide the experts (128)"},
                      BadCase{R"({"model":"qwen3-30b-a3b","method":"full","parallel":{"dp":4,"ep":8}})",
                              "parallel.ep", "must divide tp x cp x dp (4)"},
                      BadCase{R"({"model":"qwen3-30b-a3b","method":"full","parallel":{"tp":2,"dp":2,"ep":4,"etp":2}})",
                              "parallel.etp", "must divide tp x cp x dp (4)"},
                      // Sequence parallelism off with TP where the framework cannot run it so.
                      BadCase{R"({"framework":"torchtitan","method":"full","parallel":{"tp":2,"dp":4,"sequence_parallel":false}})",
                              "parallel.sequence_parallel", "always shards the norms"},
                      BadCase{R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core","parallel":{"tp":2,"dp":4,"ep":8,"etp":1,"sequence_parallel":false}})",
                              "parallel.sequence_parallel", "sequence parallelism must be used"},
                      // etp left out follows tp: the message says that etp 1 would run (TP 2 x EP 4 on 4 ranks).
                      BadCase{R"({"model":"qwen3-30b-a3b","method":"full","parallel":{"tp":2,"dp":2,"ep":4}})",
                              "parallel.ep", "parallel.etp = 1 keeps every expert whole"},
                      BadCase{R"({"parallel":{"dp":8,"ep":2}})", "parallel.ep", "mixture-of-experts"},
                      BadCase{R"({"model":"qwen3-30b-a3b","method":"lora","parallel":{"dp":8,"ep":8}})",
                              "parallel.ep", "full training only"},
                      BadCase{R"({"model":"qwen3-30b-a3b","method":"full","framework":"hf-trainer","parallel":{"dp":8,"ep":8}})",
                              "parallel", "EP 8 is not supported by hf-trainer"},
                      BadCase{R"({"parallel":{"ep":0}})", "parallel.ep", "must be positive"},
                      BadCase{R"({"moe":{"a2a_overlap":"yes"}})", "moe.a2a_overlap", "true or false"},
                      BadCase{R"({"model":"qwen3-30b-a3b","method":"full","framework":"nanotron",)"
                              R"("moe":{"a2a_overlap":true}})",
                              "moe.a2a_overlap", "nanotron has no expert-parallel all-to-all overlap"}));

TEST(QueryHash, RejectsGarbageOverlongAndInjection) {
  EXPECT_FALSE(parse_query_hash("#%%%").ok());
  EXPECT_FALSE(parse_query_hash("#seq_len=abc").ok());
  EXPECT_EQ(parse_query_hash("#seq_len=abc").error().field, "seq_len");
  EXPECT_FALSE(parse_query_hash(std::string(10000, 'a')).ok());
  auto inj = parse_query_hash("#model=%3Cscript%3Ealert(1)%3C/script%3E");
  ASSERT_FALSE(inj.ok());
  EXPECT_EQ(inj.error().field, "model");
  EXPECT_FALSE(parse_query_hash("#seq_len=4096%00").ok());
  EXPECT_FALSE(parse_query_hash("#justakey").ok());
  EXPECT_EQ(parse_query_hash("#seq_len=nan").error().field, "seq_len");
  EXPECT_EQ(parse_query_hash("#seq_len=inf").error().field, "seq_len");
}

}  // namespace trainfit
