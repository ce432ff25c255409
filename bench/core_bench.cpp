// trainfit — core benchmarks (the performance budgets of scripts/check-budgets). Each prints its figures;
// budgets are checked by scripts/check-budgets, never here. Run everything with scripts/bench.
//   trainfit_bench --write-synthetic N   prints the N-offer synthetic snapshot (JSON) for the wasm benchmark.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "synthetic.h"
#include "trainfit/engine.h"

namespace {
using trainfit::bench::bundled_snapshot;

// The two queries every ranking figure uses. "lora8b" is the default page (Llama 3.1 8B LoRA); "full70b" is
// the heaviest common case: full fine-tuning of a 70B model, which plans multi-node layouts on every big shape.
// The benchmarks' jobs: the page's default (an 8B LoRA), a 70B full pre-training, and an MoE pre-training under
// megatron-core, whose planner searches expert parallelism, dispatchers and recompute-module lists.
trainfit::Query query_named(const std::string& name) {
  const char* json = name == "full70b" ? R"({"model":"llama-3.1-70b","method":"full","seq_len":4096,)"
                                         R"("global_batch":512,"dataset":{"tokens":2e9}})"
                     : name == "moe30b" ? R"({"model":"qwen3-30b-a3b","method":"full","framework":"megatron-core",)"
                                          R"("seq_len":4096,"global_batch":512,"dataset":{"tokens":2e9}})"
                                        : nullptr;
  if (!json) return trainfit::default_query();
  auto q = trainfit::parse_query_json(json);
  if (!q) {
    std::fprintf(stderr, "bench query: %s\n", q.error().to_string().c_str());
    std::exit(2);
  }
  return *q;
}

void report_rank(benchmark::State& state, const trainfit::RankResult& r, size_t offers) {
  state.counters["offers"] = static_cast<double>(offers);
  state.counters["shapes"] = r.shapes_planned;
  state.counters["shared"] = r.shapes_shared;  // of those, plans shared with a host-RAM / vCPU twin
  state.counters["ranked"] = r.ranked;
  state.counters["cost_evals"] = r.cost_evaluations;
  // Seconds per offer (shown as e.g. "1.5u" = 1.5 us): flat across sizes means linear growth.
  state.counters["per_offer"] = benchmark::Counter(static_cast<double>(offers),
                                                   benchmark::Counter::kIsIterationInvariantRate |
                                                       benchmark::Counter::kInvert);
}

void BM_ParseQueryHash(benchmark::State& state) {
  const std::string hash = "model=llama-3.1-8b&method=qlora&seq_len=4096&micro_batch=2&dataset.tokens=1e9";
  for (auto _ : state) benchmark::DoNotOptimize(trainfit::parse_query_hash(hash));
}
BENCHMARK(BM_ParseQueryHash);

void BM_EstimateMemory(benchmark::State& state) {
  const trainfit::Query q = trainfit::default_query();
  trainfit::MemoryLayout layout;
  layout.micro_batch = q.train.micro_batch;
  for (auto _ : state) benchmark::DoNotOptimize(trainfit::estimate_memory(q.model, q.train, layout));
}
BENCHMARK(BM_EstimateMemory);

// Loading (parse + validate + flag) the bundled snapshot: part of every CLI run and of the page's start.
void BM_LoadBundledSnapshot(benchmark::State& state) {
  const std::string_view text = trainfit::embedded_snapshot_json();
  for (auto _ : state) benchmark::DoNotOptimize(trainfit::load_snapshot(text));
  state.counters["bytes"] = static_cast<double>(text.size());
}
BENCHMARK(BM_LoadBundledSnapshot)->Unit(benchmark::kMillisecond);

// A plan for one instance type over all node counts (< 1 ms). 8x H100 SXM, up to 64 nodes.
void BM_PlanOneInstance(benchmark::State& state, const char* query) {
  const trainfit::Snapshot& s = bundled_snapshot();
  const trainfit::Query q = query_named(query);
  int pick = -1;
  for (int i = 0; i < static_cast<int>(s.offers.size()); ++i) {
    const auto& o = s.offers[i];
    if (s.gpus[o.gpu].id == "h100-sxm" && o.gpu_count == 8 && (pick < 0 || o.max_nodes > s.offers[pick].max_nodes)) pick = i;
  }
  if (pick < 0) {
    state.SkipWithError("no 8x h100-sxm offer in the bundled snapshot");
    return;
  }
  const auto& o = s.offers[pick];
  int layouts = 0, checks = 0;
  for (auto _ : state) {
    auto r = trainfit::plan_job(q.model, q.train, q.dataset, s.gpus[o.gpu], o, o.max_nodes);
    if (!r) {
      state.SkipWithError(r.error().to_string().c_str());
      return;
    }
    layouts = r->layouts_evaluated;
    checks = r->memory_checks;
    benchmark::DoNotOptimize(r);
  }
  state.counters["max_nodes"] = o.max_nodes;
  state.counters["layouts"] = layouts;
  state.counters["memory_checks"] = checks;
}
BENCHMARK_CAPTURE(BM_PlanOneInstance, lora8b, "lora8b")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PlanOneInstance, full70b, "full70b")->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_PlanOneInstance, moe30b, "moe30b")->Unit(benchmark::kMicrosecond);

// Ranks `s` from scratch (no PlanCache: every shape planned, every offer costed) once per iteration.
void rank_from_scratch(benchmark::State& state, const trainfit::Query& q, const trainfit::Snapshot& s) {
  trainfit::RankResult last;
  for (auto _ : state) {
    auto r = trainfit::rank_offers(q, s);
    if (!r) {
      state.SkipWithError(r.error().to_string().c_str());
      return;
    }
    last = std::move(r).value();
  }
  report_rank(state, last, s.offers.size());
}

// Full ranking of the bundled snapshot, from scratch (every shape planned, every offer costed).
void BM_RankBundled(benchmark::State& state, const char* query) {
  rank_from_scratch(state, query_named(query), bundled_snapshot());
}
BENCHMARK_CAPTURE(BM_RankBundled, lora8b, "lora8b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RankBundled, full70b, "full70b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RankBundled, moe30b, "moe30b")->Unit(benchmark::kMillisecond);

// Re-ranking after an input change that leaves the job alone (a filter, the sort key, a cost option), with
// the PlanCache the UI keeps: what the page does on such a change. Alternates two sort keys so each
// iteration is a real change.
void BM_ReRankCached(benchmark::State& state, const char* query) {
  const int n = static_cast<int>(state.range(0));
  const trainfit::Snapshot s = n > 0 ? trainfit::bench::synthetic_snapshot(bundled_snapshot(), n) : bundled_snapshot();
  trainfit::Query q = query_named(query);
  trainfit::PlanCache cache;
  trainfit::RankResult last;
  if (!trainfit::rank_offers(q, s, &cache)) {
    state.SkipWithError("first ranking failed");
    return;
  }
  bool flip = false;
  for (auto _ : state) {
    q.sort = flip ? trainfit::SortKey::time : trainfit::SortKey::total_cost;
    flip = !flip;
    auto r = trainfit::rank_offers(q, s, &cache);
    if (!r) {
      state.SkipWithError(r.error().to_string().c_str());
      return;
    }
    last = std::move(r).value();
  }
  report_rank(state, last, s.offers.size());
  state.counters["shapes_cached"] = last.shapes_cached;
}
BENCHMARK_CAPTURE(BM_ReRankCached, lora8b, "lora8b")->Arg(0)->Arg(100000)->Unit(benchmark::kMillisecond);

// A full evaluation (topology planning included) of 1k / 10k / 100k synthetic offers, one thread.
void BM_RankSynthetic(benchmark::State& state, const char* query) {
  const int n = static_cast<int>(state.range(0));
  rank_from_scratch(state, query_named(query), trainfit::bench::synthetic_snapshot(bundled_snapshot(), n));
}
BENCHMARK_CAPTURE(BM_RankSynthetic, lora8b, "lora8b")->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RankSynthetic, full70b, "full70b")->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

// The JSON facade as the page's JS API calls it (tf_call("rank", q) with top 10): the native side of the
// wasm/native ratio that scripts/bench prints.
void BM_ApiRank(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const trainfit::Snapshot s = n > 0 ? trainfit::bench::synthetic_snapshot(bundled_snapshot(), n) : bundled_snapshot();
  const std::string query = R"({"top":10})";
  for (auto _ : state) {
    std::string doc = trainfit::api_call("rank", query, &s);
    if (doc.find("\"ok\":false") != std::string::npos) {
      state.SkipWithError(doc.substr(0, 200).c_str());
      return;
    }
    benchmark::DoNotOptimize(doc);
  }
  state.counters["offers"] = static_cast<double>(s.offers.size());
}
BENCHMARK(BM_ApiRank)->Arg(0)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--write-synthetic") == 0) {
    const int n = std::atoi(argv[2]);
    if (n <= 0) {
      std::fprintf(stderr, "usage: trainfit_bench --write-synthetic OFFERS\n");
      return 2;
    }
    const std::string text = trainfit::snapshot_to_json(trainfit::bench::synthetic_snapshot(bundled_snapshot(), n));
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
