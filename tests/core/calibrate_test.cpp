// trainfit — calibration from one measured run (calibrate.h): the fit reproduces the measured step time, the
// calibrated query re-ranks every offer (rows say "calibrated from"), the link carries it, a published run on one
// layout makes the estimate of a second published layout closer, and the measured-run parser reads log text.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "trainfit/catalog/model.h"
#include "trainfit/estimate/memory.h"
#include "trainfit/facade/api.h"
#include "trainfit/storage/bundled.h"
#include "trainfit/launch/calibrate.h"
#include "trainfit/estimate/planner.h"
#include "trainfit/query/query.h"
#include "trainfit/market/rank.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {
namespace {

const Snapshot& bundled() {
  static const Snapshot s = *load_snapshot(embedded_snapshot_json());
  return s;
}

constexpr const char* kOffer = "lambda/gpu_1x_h100_pcie/us-east-1";

CalibrationResult calibrated_default(double slowdown, double peak_GiB = 0) {
  Query q = default_query();
  q.calibration.offer = kOffer;
  // First the uncalibrated estimate, then a "measured" run `slowdown` times slower.
  q.calibration.step_time_s = 100;  // any admissible time, to read the uncalibrated estimate
  Result<CalibrationResult> probe = calibrate(q, bundled());
  EXPECT_TRUE(probe.ok()) << (probe ? "" : probe.error().to_string());
  q.calibration.step_time_s = probe->estimated_step_s * slowdown;
  q.calibration.peak_GiB = peak_GiB;
  Result<CalibrationResult> r = calibrate(q, bundled());
  EXPECT_TRUE(r.ok()) << (r ? "" : r.error().to_string());
  return *r;
}

TEST(Calibrate, FittedFactorReproducesTheMeasuredStepTime) {
  const CalibrationResult r = calibrated_default(1.25);
  EXPECT_NEAR(r.calibrated_step_s / r.measured_step_s, 1.0, 1e-6);
  EXPECT_LT(r.efficiency_scale, 1.0);
  EXPECT_LT(r.efficiency_after, r.efficiency_before);
  EXPECT_EQ(r.gpu, "h100-pcie");
  EXPECT_EQ(r.query.calibration.gpu, "h100-pcie");
  EXPECT_GT(r.query.calibration.efficiency_scale, 0);
  // A run exactly as estimated leaves the model as it was.
  const CalibrationResult same = calibrated_default(1.0);
  EXPECT_NEAR(same.efficiency_scale, 1.0, 1e-6);
}

TEST(Calibrate, CalibratedQueryReRanksEveryOfferAndTheLinkCarriesIt) {
  const CalibrationResult r = calibrated_default(1.5);
  Result<RankResult> before = rank_offers(default_query(), bundled());
  Result<RankResult> after = rank_offers(r.query, bundled());
  ASSERT_TRUE(before.ok() && after.ok());
  // The measured offer's plan (same layout) now takes the measured time per step.
  const int oi = bundled().find_offer(kOffer);
  bool found = false;
  for (const RankRow& row : after->rows) {
    if (row.offer != oi || row.plan_index < 0) continue;
    const Plan& p = after->shapes[row.shape].plan().by_nodes[row.plan_index];
    if (p.layout.micro_batch != r.plan.layout.micro_batch || p.layout.recompute != r.plan.layout.recompute) continue;
    EXPECT_NEAR(p.step.total_s / r.measured_step_s, 1.0, 1e-4);
    found = true;
  }
  EXPECT_TRUE(found);
  // Every other GPU is slower too (the factor applies to each GPU's own modelled efficiency).
  double sum_before = 0, sum_after = 0;
  for (const RankRow& row : before->rows)
    if (row.state == RowState::ranked) sum_before += row.time_s;
  for (const RankRow& row : after->rows)
    if (row.state == RowState::ranked) sum_after += row.time_s;
  EXPECT_GT(sum_after, sum_before * 1.2);
  // Rows say where the calibration came from; the link round-trips it.
  const nlohmann::json doc = nlohmann::json::parse(api_call("rank", query_to_json(r.query), &bundled()));
  ASSERT_TRUE(doc["ok"].get<bool>());
  int marked = 0;
  for (const auto& row : doc["rows"])
    if (row.contains("plan")) {
      EXPECT_EQ(row["calibrated_from"].get<std::string>(), bundled().gpus[bundled().find_gpu("h100-pcie")].name);
      ++marked;
    }
  EXPECT_GT(marked, 100);
  Result<Query> back = parse_query_hash(query_to_hash(r.query));
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == r.query);
}

TEST(Calibrate, MeasuredPeakFitsTheAllocatorReserve) {
  const CalibrationResult r = calibrated_default(1.0, 60);
  EXPECT_EQ(r.measured_peak_GiB, 60);
  EXPECT_GT(r.estimated_reserved_GiB, 0);
  if (60 > r.estimated_reserved_GiB) {
    EXPECT_GT(r.fragmentation_after, r.fragmentation_before);
  }
  EXPECT_EQ(r.query.train.fragmentation, r.fragmentation_after);
  // With the fitted reserve the estimate of the reserved peak matches the measurement.
  Result<MemoryBreakdown> m = estimate_memory(r.query.model, r.query.train, r.plan.layout);
  ASSERT_TRUE(m.ok());
  EXPECT_NEAR((m->allocated_peak + m->fragmentation) / kGiB, 60, 0.05);
}

TEST(Calibrate, ImpossibleMeasurementsAreRefusedNamingTheField) {
  Query q = default_query();
  q.calibration.offer = kOffer;
  q.calibration.step_time_s = 1e-6;  // faster than the GPU's peak allows
  Result<CalibrationResult> fast = calibrate(q, bundled());
  ASSERT_FALSE(fast.ok());
  EXPECT_EQ(fast.error().field, "calibration.step_time_s");
  q.calibration.step_time_s = 1e6;  // slower than compute at 0.1% efficiency
  Result<CalibrationResult> slow = calibrate(q, bundled());
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.error().field, "calibration.step_time_s");
  q.calibration.step_time_s = 0;
  EXPECT_EQ(calibrate(q, bundled()).error().field, "calibration.step_time_s");
  q.calibration.step_time_s = 10;
  q.calibration.offer = "no/such/offer";
  EXPECT_EQ(calibrate(q, bundled()).error().field, "calibration.offer");
  q.calibration.offer = kOffer;
  q.mfu = 0.4;
  EXPECT_EQ(calibrate(q, bundled()).error().field, "mfu");
  // The facade reports the same as an error document.
  const std::string doc = api_call("calibrate", R"({"calibration": {"offer": "no/such/offer", "step_time_s": 3}})", &bundled());
  EXPECT_NE(doc.find("\"field\":\"calibration.offer\""), std::string::npos) << doc;
}

// MosaicML llm-foundry MPT benchmarks (scripts/train/benchmarking/README.md; the rows perf_validation.cpp uses):
// GPUs, sequence length, micro-batch, global batch, FSDP FULL_SHARD, activation checkpointing and tokens/s/GPU.
struct MptRun {
  const char* gpu;
  int64_t h, layers, heads, seq, mb, gb;
  bool ckpt;
  double tok_s_gpu;
};

ModelSpec mpt(const MptRun& r) {
  ModelSpec m;  // GPT-style: learned positions, LayerNorm, 4h GELU MLP, MHA, tied embeddings, vocab 50368
  m.id = "custom";
  m.arch = Arch::gpt2;
  m.hidden_size = r.h;
  m.num_layers = r.layers;
  m.num_heads = r.heads;
  m.num_kv_heads = r.heads;
  m.intermediate_size = 4 * r.h;
  m.vocab_size = 50368;
  m.max_position_embeddings = r.seq;
  m.tie_embeddings = true;
  return m;
}

struct MptSetup {
  ModelSpec model;
  TrainConfig train;
  GpuSpec gpu;
  Offer offer;
  MemoryLayout layout;
  double published_step_s = 0;
};

MptSetup setup(const MptRun& r) {
  MptSetup s;
  s.model = mpt(r);
  s.train.method = Method::full;
  s.train.precision = Precision::bf16_mixed;
  s.train.seq_len = r.seq;
  s.train.micro_batch = r.mb;
  s.train.global_batch = r.gb;
  s.gpu = bundled().gpus[bundled().find_gpu(r.gpu)];
  s.offer.id = "reference/hgx";
  s.offer.gpu_count = 8;
  s.offer.vcpus = 96;
  s.offer.host_ram_bytes = 1e12;
  s.offer.intra_link = LinkClass::nvswitch;
  s.offer.intra_link_GBps = s.gpu.nvlink_GBps;
  s.offer.inter_net = NetKind::infiniband;
  s.offer.inter_net_Gbps = 3200;
  s.offer.max_nodes = 1;
  s.layout.dp = 8;
  s.layout.zero = 3;
  s.layout.recompute = r.ckpt ? Recompute::full : Recompute::none;
  s.layout.micro_batch = r.mb;
  s.layout.num_microbatches = r.gb / (r.mb * 8);
  s.layout.gpus_per_node = 8;
  s.published_step_s = static_cast<double>(r.gb * r.seq) / (r.tok_s_gpu * 8);
  return s;
}

double step_s(const MptSetup& s, double scale) {
  TrainConfig t = s.train;
  t.efficiency_scale = scale;
  Result<LayoutTiming> r = time_layout(s.model, t, s.gpu, s.offer, 1, s.layout, s.train.global_batch);
  EXPECT_TRUE(r.ok());
  return r ? r->step.total_s : 0;
}

// Measure on layout A, predict layout B: the calibrated estimate must be closer to B's published figure.
void expect_calibration_helps(const MptRun& a, const MptRun& b) {
  const MptSetup sa = setup(a), sb = setup(b);
  Result<double> scale = fit_efficiency_scale(sa.model, sa.train, sa.gpu, sa.offer, 1, sa.layout, sa.train.global_batch,
                                              sa.published_step_s);
  ASSERT_TRUE(scale.ok()) << scale.error().to_string();
  const double before = std::fabs(step_s(sb, 1.0) / sb.published_step_s - 1);
  const double after = std::fabs(step_s(sb, *scale) / sb.published_step_s - 1);
  ::testing::Test::RecordProperty("error_before", std::to_string(before));
  ::testing::Test::RecordProperty("error_after", std::to_string(after));
  std::printf("  calibrated on %s seq %lld: factor %.3f; %s seq %lld error %.1f%% -> %.1f%%\n", a.gpu,
              static_cast<long long>(a.seq), *scale, b.gpu, static_cast<long long>(b.seq), before * 100, after * 100);
  EXPECT_LT(after, before);
}

TEST(Calibrate, PublishedRunOnOneLayoutBringsTheEstimateOfAnotherCloser) {
  // MPT-7B on 8x A100-80GB: measured at seq 2048 (micro 6, global 96, 4641 tok/s/GPU), predicted at seq 8192
  // with activation checkpointing (micro 8, global 128, 3206 tok/s/GPU): 35.3% -> 8.8% time error.
  // (Across GPUs a factor carries one GPU's residual to the others: calibrating MPT-30B on its A100 row takes its
  // H100 row from 35.3% to 5.9%, not to zero. Both under the generic profile; validate holds llm-foundry's.)
  expect_calibration_helps({"a100-sxm-80gb", 4096, 32, 32, 2048, 6, 96, false, 4641},
                           {"a100-sxm-80gb", 4096, 32, 32, 8192, 8, 128, true, 3206});
}

// torchtitan's DeepEP table for Qwen3-30B-A3B on B200 (pytorch/torchtitan torchtitan/distributed/deepep/README.md
// @022f885, "Scaling Results: Qwen3-30B", Memory/GPU = max_memory_reserved; config qwen3_30b_a3b_with_deepep.toml:
// FSDP over every GPU, EP 8 inside a node, seq 4096, full activation checkpointing, one cross-entropy): the generic
// estimate misses about a third of every run's per-token memory. The reserve fitted on the one-node run carries
// that to the other node counts and local batches: each within 10%, and local batch 16 on 16 nodes, which ran out
// of memory, no longer fits.
TEST(Calibrate, OneNodePeakCarriesToTheOtherNodeCountsOfItsTable) {
  const ModelSpec* m = find_model("qwen3-30b-a3b");
  ASSERT_NE(m, nullptr);
  TrainConfig t;
  t.method = Method::full;
  t.precision = Precision::bf16_mixed;
  t.framework = Framework::torchtitan;
  t.seq_len = 4096;
  t.loss_chunks = 1;
  t.moe_dispatcher = MoeDispatcher::deepep;
  auto layout = [](int gpus, int64_t local_batch) {
    MemoryLayout l;
    l.dp = gpus;
    l.ep = 8;
    l.zero = 3;
    l.micro_batch = local_batch;
    l.recompute = Recompute::full;
    l.gpus_per_node = 8;
    return l;
  };
  auto reserved_GiB = [&](const TrainConfig& c, const MemoryLayout& l) {
    Result<MemoryBreakdown> e = estimate_memory(*m, c, l);
    EXPECT_TRUE(e.ok());
    return e ? (e->allocated_peak + e->fragmentation) / kGiB : 0.0;
  };
  Result<double> f = fit_fragmentation(*m, t, layout(8, 8), 167.93);
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  EXPECT_GT(*f, 0.2);  // the estimate is well below the measured peak
  EXPECT_LE(*f, 1.0);
  TrainConfig calibrated = t;
  calibrated.fragmentation = *f;
  EXPECT_NEAR(reserved_GiB(calibrated, layout(8, 8)), 167.93, 0.1);
  const struct {
    int gpus;
    int64_t local_batch;
    double measured_GiB;
  } held_out[] = {{16, 8, 138.75}, {32, 8, 124.58}, {64, 8, 117.50}, {128, 8, 114.78}, {128, 10, 142.21}};
  for (const auto& r : held_out) {
    const double before = reserved_GiB(t, layout(r.gpus, r.local_batch)) / r.measured_GiB - 1;
    const double after = reserved_GiB(calibrated, layout(r.gpus, r.local_batch)) / r.measured_GiB - 1;
    std::printf("  %d GPUs, local batch %lld: %.1f%% -> %.1f%%\n", r.gpus, static_cast<long long>(r.local_batch),
                before * 100, after * 100);
    EXPECT_LT(std::fabs(after), 0.10) << r.gpus << " GPUs, local batch " << r.local_batch;
    EXPECT_LT(std::fabs(after), std::fabs(before));
  }
  // B200: 167.93 GiB is 94.15% of the memory the table counts (178.4 GiB).
  Result<MemoryBreakdown> oom = estimate_memory(*m, calibrated, layout(128, 16));
  ASSERT_TRUE(oom.ok());
  EXPECT_EQ(fit_verdict(*oom, 167.93 / 0.9415 * kGiB), FitVerdict::no_fit);
  Result<MemoryBreakdown> uncalibrated = estimate_memory(*m, t, layout(128, 16));
  ASSERT_TRUE(uncalibrated.ok());
  EXPECT_NE(fit_verdict(*uncalibrated, 167.93 / 0.9415 * kGiB), FitVerdict::no_fit);  // what calibration fixes
}

TEST(MeasuredRun, ParsesFlagsLogLinesAndJsonLikeText) {
  Result<MeasuredRun> a = parse_measured_run("step_time_s=1.84 peak_GiB=61.2");
  ASSERT_TRUE(a.ok());
  EXPECT_DOUBLE_EQ(a->step_time_s, 1.84);
  EXPECT_DOUBLE_EQ(a->peak_GiB, 61.2);
  // A log line: units, other words, the last value wins.
  Result<MeasuredRun> b =
      parse_measured_run("iter 10 | step_time: 2100ms | loss 2.1\niter 20 | step_time: 1840ms | max_memory_reserved: 65.7GB");
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  EXPECT_NEAR(b->step_time_s, 1.84, 1e-12);
  EXPECT_NEAR(b->peak_GiB, 65.7e9 / kGiB, 1e-9);
  Result<MeasuredRun> c = parse_measured_run(R"({"tokens_per_s": 35000, "peak_GiB": "70GiB"})");
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->tokens_per_s, 35000);
  EXPECT_EQ(c->peak_GiB, 70);
  EXPECT_EQ(c->step_time_s, 0);
}

}  // namespace
}  // namespace trainfit

namespace trainfit {
namespace {

// A plan in the framework's other context-parallel scheme (cp_scheme auto: the planner picked the ring for
// Qwen2.5-7B's 28 heads at CP 8 under hf-trainer) is calibrated in that scheme: its step and memory are recomputed
// from the plan's layout as the plan ran it (planner.h plan_train), not refused as an Ulysses layout.
TEST(Calibrate, APlanInTheOtherContextParallelSchemeIsCalibratedInIt) {
  Result<Query> q = parse_query_json(
      R"({"model":"qwen2.5-7b","method":"full","framework":"hf-trainer","seq_len":131072,"global_batch":8,)"
      R"("micro_batch":1,"recompute":"full","filters":{"max_nodes":1},"dataset":{"tokens":1e9},)"
      R"("calibration":{"offer":"lambda/gpu_8x_h100_sxm5/us-east-1","step_time_s":100,"peak_GiB":70}})");
  ASSERT_TRUE(q.ok()) << q.error().to_string();
  Result<CalibrationResult> r = calibrate(*q, bundled());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_GT(r->estimated_step_s, 0);
}

}  // namespace
}  // namespace trainfit
