// trainfit — core benchmarks. Each prints its figures; budgets are checked by scripts/check-budgets.
#include <benchmark/benchmark.h>

#include "trainfit/memory.h"
#include "trainfit/model.h"
#include "trainfit/query.h"

namespace {

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

}  // namespace
