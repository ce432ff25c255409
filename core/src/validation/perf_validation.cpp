// trainfit core — time references for the validation report: published training runs whose configuration is
// given (model shape, GPU, GPU count, sequence length, batch, layout), our prediction, and the error.
// Error convention: estimate / published - 1 on a time (GPU-hours, days); rates are turned into the time to
// process a fixed number of tokens, so +10% always means "we predict 10% longer than published".
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <algorithm>

#include "trainfit/catalog/framework.h"
#include "trainfit/catalog/model.h"
#include "trainfit/estimate/planner.h"
#include "validation/reference_gpus.h"
#include "validation/reference_models.h"
#include "validation/perf_rows.h"

namespace trainfit {
using perf_detail::FrameworkRun;
using perf_detail::framework_row;
namespace {

// The GPUs of the published runs, as data/inputs/gpus.json gives them (reference_gpus.h).
GpuSpec a100_80gb() { return reference_gpu("a100-sxm-80gb"); }
GpuSpec h100_sxm() { return reference_gpu("h100-sxm"); }
GpuSpec h200_sxm() { return reference_gpu("h200-sxm"); }
GpuSpec b200() { return reference_gpu("b200"); }

// An HGX node: 8 GPUs on NVSwitch, `net_Gbps` per node between nodes.
Offer hgx_node(const GpuSpec& g, double net_Gbps, NetKind net, int max_nodes) {
  Offer o;
  o.id = "reference/" + g.id;
  o.gpu_count = 8;
  o.vcpus = 96;
  o.host_ram_bytes = 1e12;
  o.intra_link = LinkClass::nvswitch;
  o.intra_link_GBps = g.nvlink_GBps;
  o.inter_net = net;
  o.inter_net_Gbps = net_Gbps;
  o.max_nodes = max_nodes;
  return o;
}

// Llama 2 shapes: meta-llama/Llama-2-{7,13,70}b-hf config.json.
ModelSpec llama2(int64_t h, int64_t layers, int64_t heads, int64_t kv, int64_t inter) {
  return llama_like("", h, layers, heads, kv, inter, 32000, 4096);
}

// GPT-style models of the MosaicML and Megatron tables: learned positions, LayerNorm, 4h GELU MLP, MHA,
// tied embeddings. (MPT has no biases; the bias count is < 0.1% of parameters.)
ModelSpec gpt(int64_t h, int64_t layers, int64_t heads, int64_t vocab, int64_t seq) {
  return gpt_like("", h, layers, heads, vocab, seq);
}

TrainConfig fixed_layout(int gpus, int tp, int pp, int zero, Recompute rc, int64_t mb, int64_t gb, int64_t seq,
                         Precision prec = Precision::bf16_mixed) {
  TrainConfig t;
  t.method = Method::full;
  t.precision = prec;
  t.optimizer = Optimizer::adamw;
  t.seq_len = seq;
  t.micro_batch = mb;
  t.global_batch = gb;
  t.recompute = rc;
  t.parallel.automatic = false;
  t.parallel.gpus = gpus;
  t.parallel.tp = tp;
  t.parallel.pp = pp;
  t.parallel.dp = gpus / (tp * pp);
  t.parallel.zero = zero;
  t.parallel.sequence_parallel = false;
  return t;
}

// Tokens/s of a fixed layout, from the time model alone (the run is known to have fitted).
double fixed_tokens_per_s(const ModelSpec& m, const TrainConfig& t, const GpuSpec& g, const Offer& o) {
  MemoryLayout l;
  l.tp = t.parallel.tp;
  l.pp = t.parallel.pp;
  l.dp = t.parallel.dp;
  l.cp = std::max(1, t.parallel.cp);
  l.vp = std::max(1, t.parallel.vp);
  l.ep = std::max(1, t.parallel.ep);
  l.etp = t.parallel.etp;
  l.zero = t.parallel.zero;
  l.sequence_parallel = t.parallel.sequence_parallel;
  l.recompute = t.recompute;
  l.micro_batch = t.micro_batch;
  l.num_microbatches = t.global_batch / (t.micro_batch * l.dp);
  l.gpus_per_node = o.gpu_count;
  const int nodes = (t.parallel.gpus + o.gpu_count - 1) / o.gpu_count;
  Result<LayoutTiming> r = time_layout(m, t, g, o, nodes, l, t.global_batch);
  return r ? r->tokens_per_s : 0.0;
}

TimeReference rate_row(std::string name, std::string source, double published_tok_s_gpu, double est_tok_s,
                       int gpus, bool calibration) {
  TimeReference r;
  r.name = std::move(name);
  r.source = std::move(source);
  r.quantity = "tokens/s per GPU";
  r.published = published_tok_s_gpu;
  r.estimate = est_tok_s / gpus;
  // time-equivalent error: time ~ 1 / rate
  r.relative_error = r.estimate > 0 ? published_tok_s_gpu / r.estimate - 1.0 : 1e9;
  r.calibration = calibration;
  return r;
}

// A whole run's duration: `tokens` at the estimated rate, in days, against the published days.
TimeReference days_row(std::string name, std::string source, double published_days, double tokens, double est_tok_s) {
  TimeReference r;
  r.name = std::move(name);
  r.source = std::move(source);
  r.quantity = "days";
  r.published = published_days;
  r.estimate = est_tok_s > 0 ? tokens / est_tok_s / 86400.0 : 0;
  r.relative_error = r.estimate / published_days - 1.0;
  return r;
}

// Narayanan et al. 2021 eq. 3, per token: 96 l h^2 (1 + s/(6h) + V/(16 l h)) FLOPs with full recomputation.
double megatron_flops_per_token(double l, double h, double s, double V) {
  return 96.0 * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
}

constexpr const char* kMosaic =
    "MosaicML llm-foundry scripts/train/benchmarking/README.md (MPT training benchmarks table)";
constexpr const char* kMegatron = "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU "
                                  "Clusters Using Megatron-LM (SC21), Table 1";

struct MosaicRow {
  const char* name;
  int64_t h, layers, heads, seq;
  int gpus;
  int64_t mb, gb;
  bool ckpt;
  Precision prec;
  double tok_s_gpu;  // Throughput (T/s/GPU) column
  bool calibration;
};



// GPT-3 175B as NeMo trains it: Brown et al. 2020 Table 2.1 shape (96 layers, d_model 12288, 96 heads, 4h GELU
// MLP, learned positions, LayerNorm, tied embeddings), GPT-2 BPE vocabulary 50,257 padded by Megatron to a multiple
// of 128 x TP 4 (make_vocab_size_divisible_by: 128): 50,688.
ModelSpec nemo_gpt3_175b() { return gpt(12288, 96, 96, 50688, 2048); }

// Mixtral 8x22B (mistralai/Mixtral-8x22B-v0.1 config.json: hidden 6,144, 56 layers, 48 heads, 8 key/value heads,
// expert MLP 16,384, vocabulary 32,768, 8 experts, top-2): the Mixtral 8x7B preset's architecture at that shape.
ModelSpec mixtral_8x22b() {
  const ModelSpec* base = find_model("mixtral-8x7b");
  ModelSpec m = base ? *base : ModelSpec{};
  m.name = "Mixtral 8x22B";
  m.hidden_size = 6144;
  m.num_layers = 56;
  m.num_heads = 48;
  m.num_kv_heads = 8;
  m.intermediate_size = 16384;
  m.vocab_size = 32768;
  m.max_position_embeddings = 65536;
  return m;
}


constexpr const char* kNemo2407 =
    "NVIDIA/NeMo docs/source/performance/performance_summary.md @070a0bb (NeMo 24.07, DGX-H100, FP8 pre-training)";
constexpr const char* kBridge2511 =
    "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md @00b7660 (25.11 NeMo container, FP8-CS pre-training)";
constexpr const char* kBridge2602 =
    "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @0a25f91 (26.02 NeMo container, DGX-H100 FP8)";
constexpr const char* kBridgeSft2606 =
    "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @067f987 (26.06, DGX-H100 FP8-CS fine-tuning)";
constexpr const char* kTitan2412 =
    "pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @31a17bf (H100 96GB HBM2e at 500 W, tps per GPU)";
constexpr const char* kTitan2506 = "pytorch/torchtitan benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md @b5bcd76 "
                                   "(H100 96GB at 500 W, vanilla TP tokens/sec per GPU; seq_len unstated: its 8192)";
// Mixture-of-experts rows. Megatron-Bridge's tables force-balance the routing ("we force-balance the token
// distribution among experts and all benchmarks are token-dropless") and run grouped GEMMs with the flex (HybridEP)
// or all-to-all dispatcher (src/megatron/bridge/perf_recipes/qwen/h100/qwen3_moe.py and kin @067f987).
constexpr const char* kBridge260401 =
    "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @067f987 (26.04.01 NeMo container, MoE "
    "pre-training, force-balanced dropless routing)";
constexpr const char* kBridge2509 =
    "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md @067f987 (25.09, DGX-H100 MoE pre-training)";
constexpr const char* kMoeModelZoo =
    "yanring/Megatron-MoE-ModelZoo best_practice/qwen3/readme.md @020b813 (NVIDIA, Megatron-Core, 256 H100 BF16, "
    "seq 4096, GBS 2048, force-balanced; tokens/s = GBS x seq / (step time x GPUs))";
constexpr const char* kMlmMixtral =
    "NVIDIA/Megatron-LM functional test mixtral_8x7b_tp1pp4ep8vpp8_release (model_config.yaml @1296a81, "
    "golden_values_dev_dgx_h100.json @1fb2a0c: iteration-time median 3.23 s over steps 100-200; GBS 256 x seq 4096; "
    "64 GPUs as Megatron-MoE-ModelZoo runtime_configs/benchmarking/runtime.conf @3a2d8b5 runs this job, 8 nodes)";
constexpr const char* kMoeModelZooMixtral =
    "yanring/Megatron-MoE-ModelZoo best_practice/Mixtral/run_mixtral_8x22B.sh @0993e66 (token drop at capacity 1.0: "
    "\"around 470TFLOPS for H100\"; dropless around 455) and runtime_configs/benchmarking/runtime.conf @3a2d8b5 (TP 2, "
    "PP 8, VP 7, EP 8, MBS 1, GBS 256, 16 nodes); tokens/s = TFLOPS / Megatron-LM's 242.2 GFLOPs per token";
constexpr const char* kTitanQwenMoe =
    "mlc-ai/pith-train issue #79 (torchtitan Qwen3-30B-A3B on 8x B200: BF16, seq 8192, FSDP 8, EP 1, micro-batch 8, "
    "GBS 64, selective AC, compiled; 19.52k tokens/s/GPU)";
constexpr const char* kTitanDeepEpReadme =
    "pytorch/torchtitan torchtitan/distributed/deepep/README.md @022f885 (Qwen3-30B-A3B on 8x B200: \"33% faster "
    "than TorchTitan's default expert parallelism (14,796 vs 9,930 tok/s/GPU at EP=8)\"; the job of its table, "
    "torchtitan/models/qwen3/train_configs/qwen3_30b_a3b_with_deepep.toml: FSDP over all GPUs, EP 8, local batch 8, "
    "seq 4096, full AC, BF16)";
constexpr const char* kTitanDeepEpScaling =
    "pytorch/torchtitan torchtitan/distributed/deepep/README.md @022f885 (\"Scaling Results: Qwen3-30B\": strong "
    "scaling on 1-16 nodes of 8 B200 and the weak-scaling row at local batch 10, tokens/s per GPU; config "
    "qwen3_30b_a3b_with_deepep.toml: FSDP over all GPUs, EP 8, seq 4096, full AC, BF16)";
constexpr const char* kTitanH200 =
    "pytorch/torchtitan benchmarks/llama3_8b_h200_2025-06_torchtitan.md @bcdeaa3 (4 and 8 H200 nodes, float8 "
    "tensorwise, llama3_8b.toml: seq 8192, selective op AC)";

// --- Llama 2 (Touvron et al. 2023, "Llama 2: Open Foundation and Fine-Tuned Chat Models", Table 2 "Time (GPU
// hours)", A100-80GB, 2T tokens, 4k context, global batch 4M tokens, AdamW, §2.2). The layout is not
// published: the planner chooses it on 64 HGX A100 nodes with 8x200 Gb/s InfiniBand (Meta RSC, §2.2.1).
void add_llama2_rows(std::vector<TimeReference>& rows) {
  {
    struct L2 {
      const char* name;
      ModelSpec m;
      double gpu_hours;
    } runs[] = {
        {"Llama 2 7B pre-training, 2T tokens, A100-80GB", llama2(4096, 32, 32, 32, 11008), 184320},
        {"Llama 2 13B pre-training, 2T tokens, A100-80GB", llama2(5120, 40, 40, 40, 13824), 368640},
        {"Llama 2 70B pre-training, 2T tokens, A100-80GB", llama2(8192, 80, 64, 8, 28672), 1720320},
    };
    for (const L2& r : runs) {
      TrainConfig t;
      t.seq_len = 4096;
      t.global_batch = 1024;  // 4M tokens
      t.micro_batch = 1;
      Dataset d;
      d.tokens = 2e12;
      const GpuSpec g = a100_80gb();
      // The safe plan (filters.must_fit): a production run leaves the memory band's margin, not a tight layout.
      PlanOptions safe;
      safe.require_fits = true;
      Result<PlanResult> p = plan_job(r.m, t, d, g, hgx_node(g, 1600, NetKind::infiniband, 64), 64, safe);
      TimeReference row;
      row.name = r.name;
      row.source = "Touvron et al. 2023 (Llama 2), Table 2 GPU-hours; layout chosen by the planner on 512 GPUs";
      row.quantity = "GPU-hours";
      row.published = r.gpu_hours;
      if (p && p->fits) {
        row.estimate = p->time_s / kHour_s * p->best.gpus;
        row.relative_error = row.estimate / r.gpu_hours - 1.0;
      } else {
        row.relative_error = 1e9;  // shows as a failure
      }
      row.calibration = false;
      row.fully_specified = false;
      rows.push_back(row);
    }
  }
}

// --- LLaMA 65B (Touvron et al. 2023a, "LLaMA: Open and Efficient Foundation Language Models", §2.4): "when
// training a 65B-parameter model, our code processes around 380 tokens/sec/GPU on 2048 A100 GPU with 80GB of
// RAM"; seq 2048, batch 4M tokens (§2.3, Table 2). Layout unpublished: the planner chooses it on 256 nodes.
void add_llama65b_row(std::vector<TimeReference>& rows) {
  {
    ModelSpec m = llama2(8192, 80, 64, 64, 22016);
    m.max_position_embeddings = 2048;
    TrainConfig t;
    t.seq_len = 2048;
    t.global_batch = 2048;
    // §2.4: "we reduce the amount of activations that are recomputed during the backward pass ... we save the
    // activations that are expensive to compute, such as the outputs of linear layers": selective recompute.
    t.recompute = Recompute::selective;
    Dataset d;
    d.tokens = 1.4e12;
    const GpuSpec g = a100_80gb();
    PlanOptions safe;  // as above: the safe plan
    safe.require_fits = true;
    Result<PlanResult> p = plan_job(m, t, d, g, hgx_node(g, 1600, NetKind::infiniband, 256), 256, safe);
    double tok_s = 0;
    if (p && p->fits && !p->by_nodes.empty() && p->by_nodes.back().nodes == 256) tok_s = p->by_nodes.back().tokens_per_s;
    TimeReference row = rate_row("LLaMA 65B pre-training, 2048 A100-80GB",
                                 "Touvron et al. 2023a (LLaMA) §2.4: 380 tokens/s/GPU; layout chosen by the planner",
                                 380, tok_s, 2048, false);
    // The layout is unpublished: the row checks the planner's choice, not the time of a known layout (like the
    // Llama 2 rows above), so it is informative and outside the time band.
    row.fully_specified = false;
    rows.push_back(row);
  }
}

// --- Megatron-LM (Narayanan et al. 2021). Table 1 gives TFLOP/s per GPU by the eq. 3 count (full recompute),
// seq 2048, vocab 51200, A100-80GB on Selene (8x HDR 200 Gb/s per node), mixed precision; micro-batch 1.
void add_megatron_lm_rows(std::vector<TimeReference>& rows) {
  {
    struct MR {
      const char* name;
      int64_t h, layers, heads;
      int tp, pp, gpus;
      int64_t batch;
      double tflops;
    } runs[] = {
        {"Megatron-LM GPT 39.1B, 512 A100 (TP 8, PP 2)", 8192, 48, 64, 8, 2, 512, 1536, 138},
        {"Megatron-LM GPT 145.6B, 1536 A100 (TP 8, PP 8)", 12288, 80, 96, 8, 8, 1536, 2304, 148},
        {"Megatron-LM GPT 1T, 3072 A100 (TP 8, PP 64)", 25600, 128, 160, 8, 64, 3072, 3072, 163},
    };
    const GpuSpec g = a100_80gb();
    for (const MR& r : runs) {
      const ModelSpec m = gpt(r.h, r.layers, r.heads, 51200, 2048);
      const TrainConfig t = fixed_layout(r.gpus, r.tp, r.pp, 1, Recompute::full, 1, r.batch, 2048);
      const Offer o = hgx_node(g, 1600, NetKind::infiniband, 512);
      const double published = r.tflops * 1e12 / megatron_flops_per_token(r.layers, r.h, 2048, 51200);
      rows.push_back(rate_row(r.name, kMegatron, published, fixed_tokens_per_s(m, t, g, o), r.gpus, false));
    }
    // §5.1 "Estimating end-to-end training time": GPT-3 175B, 300B tokens, 1024 A100, batch 1536, 140 TFLOP/s
    // per GPU, "about 34 days". Layout TP 8 x PP 16 (the paper's 175B configuration).
    {
      const ModelSpec m = gpt(12288, 96, 96, 51200, 2048);
      const TrainConfig t = fixed_layout(1024, 8, 16, 1, Recompute::full, 1, 1536, 2048);
      const double tok_s = fixed_tokens_per_s(m, t, g, hgx_node(g, 1600, NetKind::infiniband, 512));
      rows.push_back(days_row("GPT-3 175B, 300B tokens, 1024 A100 (TP 8, PP 16)",
                              "Narayanan et al. 2021 §5.1 (end-to-end training time: ~34 days)", 34, 300e9, tok_s));
    }
  }
}

// --- MosaicML llm-foundry MPT benchmarks: GPUs, seq len, micro-batch, global batch, FSDP FULL_SHARD (ZeRO-3),
// activation checkpointing, precision and measured tokens/s/GPU are all given per row. A100 rows ran with
// 1600 Gb/s RoCE between nodes (table heading); the H100 heading gives no network: 3200 Gb/s InfiniBand assumed.
// MPT: vocab 50368, 4h GELU MLP, MHA, tied embeddings (llm-foundry scripts/train/yamls/pretrain/mpt-*.yaml).
void add_llm_foundry_rows(std::vector<TimeReference>& rows) {
  {
    const MosaicRow runs[] = {
        {"MPT-125M, seq 2048, 8x A100-80GB", 768, 12, 12, 2048, 8, 32, 512, false, Precision::bf16_mixed, 141737, true},
        {"MPT-1B, seq 2048, 8x A100-80GB", 2048, 24, 16, 2048, 8, 14, 448, false, Precision::bf16_mixed, 20513, true},
        {"MPT-7B, seq 2048, 8x A100-80GB", 4096, 32, 32, 2048, 8, 6, 96, false, Precision::bf16_mixed, 4641, true},
        {"MPT-7B, seq 8192, 8x A100-80GB, checkpointing", 4096, 32, 32, 8192, 8, 8, 128, true, Precision::bf16_mixed,
         3206, false},
        {"MPT-13B, seq 2048, 8x A100-80GB", 5120, 40, 40, 2048, 8, 2, 48, false, Precision::bf16_mixed, 2262, false},
        {"MPT-30B, seq 2048, 8x A100-80GB, checkpointing", 7168, 48, 64, 2048, 8, 3, 504, true, Precision::bf16_mixed,
         916, false},
        {"MPT-70B, seq 2048, 64x A100-80GB, checkpointing", 8192, 80, 64, 2048, 64, 8, 2048, true, Precision::bf16,
         410, false},
        {"MPT-1B, seq 2048, 8x H100", 2048, 24, 16, 2048, 8, 14, 112, false, Precision::bf16_mixed, 45455, true},
        {"MPT-7B, seq 2048, 8x H100", 4096, 32, 32, 2048, 8, 6, 48, false, Precision::bf16_mixed, 10643, true},
        {"MPT-13B, seq 2048, 8x H100", 5120, 40, 40, 2048, 8, 2, 16, false, Precision::bf16_mixed, 4792, false},
        {"MPT-3B, seq 2048, 16x H100", 2560, 32, 20, 2048, 16, 10, 480, false, Precision::bf16_mixed, 24142, false},
        {"MPT-30B, seq 2048, 8x H100, checkpointing", 7168, 48, 64, 2048, 8, 3, 504, true, Precision::bf16_mixed, 2002,
         false},
        {"MPT-70B, seq 2048, 64x H100, checkpointing", 8192, 80, 64, 2048, 64, 8, 2048, true, Precision::bf16_mixed,
         1039, false},
        {"MPT-3B, seq 2048, 8x H100, FP8", 2560, 32, 20, 2048, 8, 10, 480, false, Precision::fp8_mixed, 30586, true},
        // Long context (same table at llm-foundry commit 061f2c7): 32k-65k tokens, micro-batch 1-2, checkpointing.
        // The A100 rows fit attention_efficiency's end-to-end factor (calibration). The table's H100 long rows are
        // left out: they ran FlashAttention-2 on Hopper (~35% of peak, Shah et al. 2024 Fig. 5-6), not the
        // FlashAttention-3-class kernel attention_efficiency assumes there.
        {"MPT-13B, seq 32768, 8x A100-80GB, checkpointing", 5120, 40, 40, 32768, 8, 1, 24, true, Precision::bf16_mixed,
         1016, true},
        {"MPT-7B, seq 32768, 8x A100-80GB, checkpointing", 4096, 32, 32, 32768, 8, 2, 32, true, Precision::bf16_mixed,
         1672, false},
        {"MPT-7B, seq 65536, 8x A100-80GB, checkpointing", 4096, 32, 32, 65536, 8, 1, 16, true, Precision::bf16_mixed,
         1013, true},
        {"MPT-3B, seq 65536, 8x A100-80GB, checkpointing", 2560, 32, 20, 65536, 8, 1, 16, true, Precision::bf16_mixed,
         1767, false},
    };
    for (const MosaicRow& r : runs) {
      const bool hopper = std::string(r.name).find("H100") != std::string::npos;
      const GpuSpec g = hopper ? h100_sxm() : a100_80gb();
      const Offer o = hopper ? hgx_node(g, 3200, NetKind::infiniband, 64) : hgx_node(g, 1600, NetKind::roce, 64);
      const ModelSpec m = gpt(r.h, r.layers, r.heads, 50368, r.seq);
      const TrainConfig t =
          fixed_layout(r.gpus, 1, 1, 3, r.ckpt ? Recompute::full : Recompute::none, r.mb, r.gb, r.seq, r.prec);
      rows.push_back(rate_row(r.name, kMosaic, r.tok_s_gpu, fixed_tokens_per_s(m, t, g, o), r.gpus, r.calibration));
    }
  }
}

// Mixture of experts with expert parallelism (Megatron-Core: distributed optimizer; FSDP2 stacks: ZeRO-3), as the
// framework tables below (add_framework_table_rows, which appends these after its own): each published layout
// evaluated as a fixed layout under its framework profile.
void add_moe_framework_rows(std::vector<TimeReference>& rows) {
  {
    using F = Framework;
    const Precision fp8 = Precision::fp8_mixed, bf16 = Precision::bf16_mixed;
    const Recompute none = Recompute::none, sel = Recompute::selective, full = Recompute::full;
    const FrameworkRun runs[] = {
        {"Megatron-Bridge Qwen3-30B-A3B, 16x H100 FP8 (EP 16)", "qwen3-30b-a3b", F::megatron_core, 0, 16, 1, 1, 1, 1,
         1, 1, 1024, 4096, none, fp8, 8960, false, kBridge260401, true, nullptr, 16},
        // This row's and the EP 32 row's "norm, act" recompute: --recompute-modules layernorm moe_act (run_235b.sh),
        // element-wise kernels re-run in backward; the TP 4 x EP 8 row ran without recompute.
        {"Megatron-Core Qwen3-235B-A22B, 256x H100 BF16, all-to-all (TP 2, PP 32, VP 3, EP 8)", "qwen3-235b-a22b",
         F::megatron_core, 0, 256, 2, 32, 3, 1, 1, 1, 2048, 4096, sel, bf16, 1354, true, kMoeModelZoo, true, nullptr, 8,
         CpScheme::automatic, kRecomputeLayernorm | kRecomputeMoeAct},
        {"Megatron-Core Qwen3-235B-A22B, 256x H100 BF16, DeepEP (TP 4, PP 8, VP 4, EP 8)", "qwen3-235b-a22b",
         F::megatron_core, 0, 256, 4, 8, 4, 1, 1, 1, 2048, 4096, none, bf16, 1130, false, kMoeModelZoo, true, nullptr, 8},
        // Cross-node EP through DeepEP (RDMA between nodes, NVLink forwarding inside them, SM-resident kernels): the
        // alpha-beta all-to-all over the NICs predicts it ~35-40% slow: informative (docs/accuracy.md).
        {"Megatron-Core Qwen3-235B-A22B, 256x H100 BF16, DeepEP (TP 2, PP 8, VP 4, EP 32)", "qwen3-235b-a22b",
         F::megatron_core, 0, 256, 2, 8, 4, 1, 1, 1, 2048, 4096, sel, bf16, 1663, false, kMoeModelZoo, false, nullptr,
         32, CpScheme::automatic, kRecomputeLayernorm | kRecomputeMoeAct},
        // The same run with "+1f1b overlap" (--overlap-moe-expert-parallel-comm): 19.7 -> 17.6 s per step, 12% faster.
        {"Megatron-Core Qwen3-235B-A22B, 256x H100 BF16, DeepEP (TP 2, PP 8, VP 4, EP 32), all-to-all overlapped",
         "qwen3-235b-a22b", F::megatron_core, 0, 256, 2, 8, 4, 1, 1, 1, 2048, 4096, sel, bf16, 1862, false, kMoeModelZoo,
         false, nullptr, 32, CpScheme::automatic, kRecomputeLayernorm | kRecomputeMoeAct, MoeDispatcher::automatic,
         true},
        // Its H100 presets (scripts/performance/configs/qwen/qwen3_workload_base_configs.py @f29a269,
        // QWEN3_235B_A22B_PRETRAIN_CONFIG_H100_FP8_CS_V2: moe_a2a_overlap=True; qwen3_llm_pretrain.py sets the
        // alltoall dispatcher on H100) overlap the all-to-alls with the other micro-batch's compute.
        {"Megatron-Bridge Qwen3-235B-A22B, 256x H100 FP8 (TP 2, PP 8, VP 4, EP 32, all-to-all overlapped)",
         "qwen3-235b-a22b", F::megatron_core, 0, 256, 2, 8, 4, 1, 1, 1, 8192, 4096, none, fp8, 1712, false,
         kBridge260401, true, nullptr, 32, CpScheme::automatic, kRecomputeCoreAttn, MoeDispatcher::alltoall, true},
        // Its recipe's recompute_modules ["layernorm", "moe_act"] (perf_recipes gpt_oss h100 @067f987).
        {"Megatron-Bridge GPT-OSS 120B, 64x H100 BF16 (PP 4, EP 8)", "gpt-oss-120b", F::megatron_core, 0, 64, 1, 4, 1,
         1, 1, 1, 1280, 4096, sel, bf16, 5824, false, kBridge260401, true, nullptr, 8, CpScheme::automatic,
         kRecomputeLayernorm | kRecomputeMoeAct},
        // DeepSeek-V3 as Megatron-Bridge runs it: cross-node EP 64 through DeepEP, a multi-token-prediction layer and
        // the pipeline layout "Et|(tt|)*30mL", blockwise FP8 with FP8 parameter gather and bf16 Adam moments: none of
        // these is a layout trainfit expresses; informative.
        {"Megatron-Bridge DeepSeek-V3, 1024x H100 FP8 (TP 2, PP 8, VP 4, EP 64)", "deepseek-v3", F::megatron_core, 0,
         1024, 2, 8, 4, 1, 1, 1, 8192, 4096, sel, fp8, 1297, false, kBridge2509, false, nullptr, 64},
        {"Megatron-Bridge Qwen3-30B-A3B, 8x B200 MXFP8 (EP 8, micro-batch 4)", "qwen3-30b-a3b", F::megatron_core, 2, 8,
         1, 1, 1, 1, 1, 4, 512, 4096, none, fp8, 27136, true, kBridge260401, true, nullptr, 8},
        {"Megatron-Bridge GPT-OSS 120B, 64x B200 BF16 (EP 8, micro-batch 4)", "gpt-oss-120b", F::megatron_core, 2, 64,
         1, 1, 1, 1, 1, 4, 1280, 4096, none, bf16, 13568, false, kBridge260401, true, nullptr, 8},
        {"Megatron-Bridge Qwen3-235B-A22B, 256x B200 MXFP8 (PP 8, EP 8)", "qwen3-235b-a22b", F::megatron_core, 2, 256,
         1, 8, 1, 1, 1, 1, 8192, 4096, none, fp8, 3776, false, kBridge260401, true, nullptr, 8},
        // Coarse-grained experts (8 of 14,336 / 16,384, top-2) on H100, informative: the 8x7B job's GPU count is
        // not in its test (64 per ModelZoo's config of the same job, and the only count whose model states match
        // the test's memory figures, validation.cpp add_megatron_moe); the 8x22B figure is an approximate TFLOPS
        // ("around"), converted with Megatron-LM's FLOP count (training.py num_floating_point_operations: 12 L h^2
        // (1 + groups/heads + s/(2h) + 1.5 k f/h + V/(2 L h)) per token, causal attention halved).
        {"Megatron-LM Mixtral 8x7B, 64x H100 BF16 (TP 2, PP 4, VP 8, EP 8), release test", "mixtral-8x7b",
         F::megatron_core, 0, 64, 2, 4, 8, 1, 1, 1, 256, 4096, none, bf16, 5067, false, kMlmMixtral, false, nullptr, 8,
         CpScheme::automatic, kRecomputeCoreAttn, MoeDispatcher::alltoall},
        {"Megatron-Core Mixtral 8x22B, 128x H100 BF16 (TP 2, PP 8, VP 7, EP 8), capacity 1.0", "mixtral-8x22b",
         F::megatron_core, 0, 128, 2, 8, 7, 1, 1, 1, 256, 4096, none, bf16, 1941, false, kMoeModelZooMixtral, false,
         mixtral_8x22b, 8, CpScheme::automatic, kRecomputeCoreAttn, MoeDispatcher::alltoall},
        {"torchtitan Qwen3-30B-A3B, 8x B200 BF16 (FSDP 8), seq 8192, micro-batch 8", "qwen3-30b-a3b", F::torchtitan, 2,
         8, 1, 1, 1, 1, 3, 8, 64, 8192, sel, bf16, 19520, false, kTitanQwenMoe},
        // The default dispatcher's run of the DeepEP README's job. Its ratio to the DeepEP run (0.671) sets the
        // default path's overhead (framework.cpp moe_dispatch_overhead_s_per_GB); the level is the profile's.
        {"torchtitan Qwen3-30B-A3B, 8x B200 BF16 (FSDP 8, EP 8, default all-to-all), seq 4096, local batch 8",
         "qwen3-30b-a3b", F::torchtitan, 2, 8, 1, 1, 1, 1, 3, 8, 64, 4096, full, bf16, 9930, true, kTitanDeepEpReadme,
         true, nullptr, 8},
        // The same job with DeepEP (MoEArgs use_deepep): the other half of the ratio above, and the level that
        // torchtitan's grouped-GEMM factor is fitted to (framework.cpp moe_efficiency).
        {"torchtitan Qwen3-30B-A3B, 8x B200 BF16 (FSDP 8, EP 8, DeepEP), seq 4096, local batch 8", "qwen3-30b-a3b",
         F::torchtitan, 2, 8, 1, 1, 1, 1, 3, 8, 64, 4096, full, bf16, 14796, true, kTitanDeepEpReadme, true, nullptr, 8,
         CpScheme::automatic, kRecomputeCoreAttn, MoeDispatcher::deepep},
    };
    for (const FrameworkRun& r : runs) rows.push_back(framework_row(r));
  }
  // The DeepEP README's scaling table, held out: FSDP across 2-16 nodes of 8 B200, EP 8 inside each node, local batch
  // 8 (strong scaling) and 10 (its weak-scaling row on 16 nodes).
  struct Scaling {
    int gpus;
    int64_t local_batch;
    double tok_s_gpu;
  } scaling[] = {{16, 8, 14380}, {32, 8, 14276}, {64, 8, 14107}, {128, 8, 13856}, {128, 10, 14123}};
  for (const Scaling& sc : scaling) {
    char name[128];
    std::snprintf(name, sizeof name,
                  "torchtitan Qwen3-30B-A3B, %dx B200 BF16 (FSDP %d, EP 8, DeepEP), seq 4096, local batch %lld",
                  sc.gpus, sc.gpus, static_cast<long long>(sc.local_batch));
    rows.push_back(framework_row({name, "qwen3-30b-a3b", Framework::torchtitan, 2, sc.gpus, 1, 1, 1, 1, 3,
                                  sc.local_batch, sc.local_batch * sc.gpus, 4096, Recompute::full, Precision::bf16_mixed,
                                  sc.tok_s_gpu, false, kTitanDeepEpScaling, true, nullptr, 8, CpScheme::automatic,
                                  kRecomputeCoreAttn, MoeDispatcher::deepep}));
  }
}

// --- Framework benchmark tables: Megatron-Core / NeMo, torchtitan. Each is the published layout
// evaluated as a fixed layout under its framework profile. Megatron rows: DGX nodes (8 x 400 Gb/s IB),
// distributed optimizer (ZeRO-1 over DP x CP, the NeMo / Megatron-Bridge recipe default), sequence parallel
// with TP, no recomputation (the H100 presets of scripts/performance/configs/llama/llama3_workload_base_configs.py
// @00919dc set none for 70B). torchtitan rows: FSDP2 (ZeRO-3) as published, activation checkpointing as stated.
void add_framework_table_rows(std::vector<TimeReference>& rows) {
  {
    using F = Framework;
    const Precision fp8 = Precision::fp8_mixed, bf16 = Precision::bf16_mixed;
    const Recompute none = Recompute::none, sel = Recompute::selective, full = Recompute::full;
    const FrameworkRun runs[] = {
        {"NeMo Llama 2 7B, 8x H100 FP8 (TP 1, DP 8)", "llama-2-7b", F::megatron_core, 0, 8, 1, 1, 1, 1, 1, 1, 128,
         4096, none, fp8, 16847, true, kNemo2407},
        {"NeMo Llama 2 13B, 16x H100 FP8 (PP 4, VP 10, DP 4)", "llama-2-13b", F::megatron_core, 0, 16, 1, 4, 10, 1, 1,
         1, 128, 4096, none, fp8, 8646, false, kNemo2407},
        {"NeMo GPT-3 175B, 128x H100 FP8 (TP 4, PP 8, VP 6)", "gpt3-175b", F::megatron_core, 0, 128, 4, 8, 6, 1, 1, 1,
         256, 2048, none, fp8, 726, false, kNemo2407, true, nemo_gpt3_175b},
        {"NeMo GPT-3 175B, 512x H100 FP8 (TP 4, PP 8, VP 6, micro-batch 2)", "gpt3-175b", F::megatron_core, 0, 512, 4, 8,
         6, 1, 1, 2, 2048, 2048, none, fp8, 782, false, kNemo2407, true, nemo_gpt3_175b},
        {"NeMo Llama 3 8B, 8x H100 FP8 (CP 2, DP 4)", "llama-3-8b", F::megatron_core, 0, 8, 1, 1, 1, 2, 1, 1, 128,
         8192, none, fp8, 12036, false, kNemo2407},
        {"NeMo Llama 2 70B, 64x H100 FP8 (TP 4, PP 4, VP 20)", "llama-2-70b", F::megatron_core, 0, 64, 4, 4, 20, 1, 1,
         1, 128, 4096, none, fp8, 1707, false, kNemo2407},
        {"NeMo Llama 3 70B, 64x H100 FP8 (TP 4, PP 4, VP 5, CP 2)", "llama-3-70b", F::megatron_core, 0, 64, 4, 4, 5,
         2, 1, 1, 128, 8192, none, fp8, 1533, false, kNemo2407},
        {"Megatron-Bridge Llama 3 70B, 64x H100 FP8-CS (TP 4, PP 8, VP 5)", "llama-3-70b", F::megatron_core, 0, 64, 4,
         8, 5, 1, 1, 1, 128, 8192, none, fp8, 1602, true, kBridge2511},
        // Full SFT of the same model (the perf SFT recipe: no recompute, sequence parallel, distributed optimizer).
        {"Megatron-Bridge Llama 3 70B SFT, 32x H100 FP8-CS, GBS 32, seq 4096 (TP 4, PP 4, VP 5)", "llama-3-70b",
         F::megatron_core, 0, 32, 4, 4, 5, 1, 1, 1, 32, 4096, none, fp8, 1638, false, kBridgeSft2606},
        {"Megatron-Bridge Llama 3 70B, 64x H100 FP8, GBS 256 (TP 4, PP 8, VP 5)", "llama-3-70b", F::megatron_core, 0,
         64, 4, 8, 5, 1, 1, 1, 256, 8192, none, fp8, 1621, false, kBridge2602},
        {"Megatron-Bridge Llama 3.1 405B, 1024x H100 FP8-CS (TP 8, PP 8, VP 8, CP 2)", "llama-3.1-405b",
         F::megatron_core, 0, 1024, 8, 8, 8, 2, 1, 1, 512, 8192, none, fp8, 292, false, kBridge2511},
        {"Megatron-Bridge Llama 3 8B, 8x B200 FP8-CS (DP 8)", "llama-3-8b", F::megatron_core, 2, 8, 1, 1, 1, 1, 1, 2,
         128, 8192, none, fp8, 30624, false, kBridge2511},
        {"Megatron-Bridge Llama 3.1 405B, 128x B200 FP8-CS (TP 4, PP 8, VP 8, CP 2)", "llama-3.1-405b",
         F::megatron_core, 2, 128, 4, 8, 8, 2, 1, 1, 64, 8192, none, fp8, 661, false, kBridge2511},
        {"torchtitan Llama 3.1 8B, 8x H100, FSDP, bf16, compile", "llama-3.1-8b", F::torchtitan, 3, 8, 1, 1, 1, 1, 3,
         2, 16, 8192, sel, bf16, 6667, false, kTitan2412, false},
        {"torchtitan Llama 3.1 8B, 8x H100, FSDP, float8, compile", "llama-3.1-8b", F::torchtitan, 3, 8, 1, 1, 1, 1, 3,
         2, 16, 8192, sel, fp8, 8532, false, kTitan2412, false},
        {"torchtitan Llama 3.1 8B, 128x H100, FSDP, bf16, compile", "llama-3.1-8b", F::torchtitan, 3, 128, 1, 1, 1, 1,
         3, 2, 256, 8192, sel, bf16, 6514, false, kTitan2412, false},
        // The same two runs eager ("FSDP"): with their compiled twins, framework.h eager_efficiency's source.
        {"torchtitan Llama 3.1 8B, 8x H100, FSDP, bf16, eager", "llama-3.1-8b", F::torchtitan, 3, 8, 1, 1, 1, 1, 3,
         2, 16, 8192, sel, bf16, 5762, false, kTitan2412, false, nullptr, 1, CpScheme::automatic, kRecomputeCoreAttn,
         MoeDispatcher::automatic, false, Compile::off},
        {"torchtitan Llama 3.1 8B, 128x H100, FSDP, bf16, eager", "llama-3.1-8b", F::torchtitan, 3, 128, 1, 1, 1, 1,
         3, 2, 256, 8192, sel, bf16, 5605, false, kTitan2412, false, nullptr, 1, CpScheme::automatic, kRecomputeCoreAttn,
         MoeDispatcher::automatic, false, Compile::off},
        {"torchtitan Llama 3.1 70B, 256x H100, FSDP 32 x TP 8, float8, compile", "llama-3.1-70b", F::torchtitan, 3,
         256, 8, 1, 1, 1, 3, 16, 512, 8192, full, fp8, 829, false, kTitan2412, false},
        // The same clusters in June 2025, vanilla TP (what trainfit times), compiled; float8 tensorwise only (the page
        // calls its rowwise baseline low).
        {"torchtitan Llama 3.1 70B, 256x H100, FSDP 32 x TP 8, bf16, compile (2025-06)", "llama-3.1-70b", F::torchtitan,
         3, 256, 8, 1, 1, 1, 3, 16, 512, 8192, full, bf16, 597.3, false, kTitan2506, false},
        {"torchtitan Llama 3.1 70B, 256x H100, FSDP 32 x TP 8, float8, compile (2025-06)", "llama-3.1-70b", F::torchtitan,
         3, 256, 8, 1, 1, 1, 3, 16, 512, 8192, full, fp8, 809.8, false, kTitan2506, false},
        {"torchtitan Llama 3.1 8B, 64x H100, FSDP 8 x TP 8, bf16, compile (2025-06)", "llama-3.1-8b", F::torchtitan, 3,
         64, 8, 1, 1, 1, 3, 12, 96, 8192, sel, bf16, 4378, false, kTitan2506, false},
        {"torchtitan Llama 3.1 8B, 64x H100, FSDP 8 x TP 8, float8, compile (2025-06)", "llama-3.1-8b", F::torchtitan, 3,
         64, 8, 1, 1, 1, 3, 12, 96, 8192, sel, fp8, 5078.1, false, kTitan2506, false},
        // Table 2 of the same page: FSDP + ring context parallelism (torch context_parallel), float8, local batch 1,
        // full activation checkpointing. Its 131k (CP 4) and 262k (CP 8) rows ran at half the estimate (-51%, -55%:
        // docs/accuracy.md "Long context") and stay out of this table until the 2024 ring path is modelled.
        {"torchtitan Llama 3.1 8B, 8x H100, FSDP 8, seq 32768, float8, full AC", "llama-3.1-8b", F::torchtitan, 3, 8,
         1, 1, 1, 1, 3, 1, 8, 32768, full, fp8, 3890, false, kTitan2412, false},
        {"torchtitan Llama 3.1 8B, 8x H100, FSDP 4 x CP 2 (ring), seq 65536, float8, full AC", "llama-3.1-8b",
         F::torchtitan, 3, 8, 1, 1, 1, 2, 3, 1, 4, 65536, full, fp8, 2540, false, kTitan2412, false},
        {"torchtitan Llama 3.1 8B, 64x H200, FSDP, float8, compile", "llama-3.1-8b", F::torchtitan, 1, 64, 1, 1, 1, 1,
         3, 2, 128, 8192, sel, fp8, 10753, false, kTitanH200},
        {"torchtitan Llama 3.1 8B, 32x H200, FSDP, float8, compile", "llama-3.1-8b", F::torchtitan, 1, 32, 1, 1, 1, 1,
         3, 2, 64, 8192, sel, fp8, 10938, false, kTitanH200},
    };
    for (const FrameworkRun& r : runs) rows.push_back(framework_row(r));
  }
  add_moe_framework_rows(rows);
}

// --- trainfit's own runs on a lent H200 (bench/device/measure_moe_longctx.py; results in
// bench/device/h200-2026-12-04): transformers 5.17 / PyTorch 2.11, pure bf16 with fused AdamW, SDPA, one GPU,
// median step time over four steps. The three Qwen3-MoE rows (Qwen3-30B-A3B's shape, 6 or 12 layers, grouped_mm
// experts) calibrate the generic grouped-GEMM factor (framework.h moe_efficiency); the dense Llama 3.2 1B rows at 8k
// and 32k tokens are held out.
void add_own_h200_rows(std::vector<TimeReference>& rows) {
  {
    struct Own {
      const char* name;
      const char* preset;
      int64_t layers, mb, seq;
      double step_s;
      bool calibration;
    } runs[] = {
        {"Qwen3-30B-A3B shape, 6 layers, micro-batch 1, seq 4096, 1x H200 (measured)", "qwen3-30b-a3b", 6, 1, 4096,
         0.102853, true},
        {"Qwen3-30B-A3B shape, 6 layers, micro-batch 4, seq 4096, 1x H200 (measured)", "qwen3-30b-a3b", 6, 4, 4096,
         0.300148, true},
        {"Qwen3-30B-A3B shape, 12 layers, micro-batch 2, seq 4096, 1x H200 (measured)", "qwen3-30b-a3b", 12, 2, 4096,
         0.293949, true},
        {"Llama 3.2 1B, seq 8192, 1x H200 (measured)", "llama-3.2-1b", 0, 1, 8192, 0.191883, false},
        {"Llama 3.2 1B, seq 32768, 1x H200 (measured)", "llama-3.2-1b", 0, 1, 32768, 1.157526, false},
    };
    const GpuSpec g = h200_sxm();
    const Offer o = hgx_node(g, 3200, NetKind::infiniband, 1);
    for (const Own& r : runs) {
      const ModelSpec* base = find_model(r.preset);
      double tok_s = 0;
      if (base) {
        ModelSpec m = *base;
        if (r.layers > 0) m.num_layers = r.layers;
        m.max_position_embeddings = std::max<int64_t>(m.max_position_embeddings, r.seq);
        const TrainConfig t = fixed_layout(1, 1, 1, 0, Recompute::none, r.mb, r.mb, r.seq, Precision::bf16);
        tok_s = fixed_tokens_per_s(m, t, g, o);
      }
      TimeReference row = rate_row(r.name, "bench/device/h200-2026-12-04/results.jsonl (trainfit's own run)",
                                   double(r.mb * r.seq) / r.step_s, tok_s, 1, r.calibration);
      row.tolerance = 0.20;
      row.moe = r.layers > 0;
      rows.push_back(row);
    }
  }
}

// --- nanotron: SmolLM3 3B pre-training, 11.2T tokens at seq 4096 on 384 H100 in 24 days ("The pre-training used
// 384 H100 GPUs over 24 days (~220,000 GPU hours)", summary of huggingface.co/blog/smollm3; 11.2T tokens in three
// 4k stages: HuggingFaceTB/smollm3-configs README). Layout from the stage-1 nanotron config
// (huggingface/smollm text/pretraining/smollm3/stage1_8T.yaml): tp 2 (tp_mode REDUCE_SCATTER = sequence
// parallel), dp 192, pp 1, micro_batch_size 3, batch_accumulation_per_replica 1, sequence_length 4096,
// zero_stage 0, recompute_layer false, bfloat16, accumulate_grad_in_fp32. Model: hidden 2048, 36 layers, 16 heads,
// 4 KV heads, intermediate 11008, vocab 128256, tied embeddings (NoPE every 4th layer changes no FLOPs). The
// 24 days include evaluations, checkpoints and restarts: informative, like the Llama 2 GPU-hours.
void add_nanotron_row(std::vector<TimeReference>& rows) {
  {
    const ModelSpec m = shaped_model(Arch::llama, "", 2048, 36, 16, 4, 11008, 128256, 4096, true);
    const GpuSpec g = h100_sxm();
    TrainConfig t = fixed_layout(384, 2, 1, 0, Recompute::none, 3, 576, 4096, Precision::bf16_mixed);
    t.framework = Framework::nanotron;
    t.parallel.sequence_parallel = true;
    const double tok_s = fixed_tokens_per_s(m, t, g, hgx_node(g, 3200, NetKind::infiniband, 48));
    TimeReference row = days_row(
        "nanotron SmolLM3 3B, 11.2T tokens, 384x H100 (TP 2, DP 192)",
        "huggingface.co/blog/smollm3 (384 H100, 24 days) and smollm3 stage1_8T.yaml (nanotron layout)", 24, 11.2e12,
        tok_s);
    row.fully_specified = false;
    rows.push_back(row);
  }
}

}  // namespace

namespace perf_detail {
TimeReference framework_row(const FrameworkRun& r) {
  ModelSpec custom;
  if (r.custom_model) custom = r.custom_model();
  const ModelSpec* base = r.custom_model ? &custom : find_model(r.model);
  GpuSpec g = r.gpu == 1 ? h200_sxm() : r.gpu == 2 ? b200() : r.gpu == 4 ? a100_80gb() : h100_sxm();
  if (r.gpu == 3) {  // torchtitan's Grand Teton H100: "96GB HBM2e with 2.4 TB/sec", "the default 500W power limit"
    g.id = "h100-hbm2e-96gb-500w";
    g.name = "H100 96GB HBM2e (500 W)";
    g.memory_bytes = 96e9;         // quoted by the run's source (this variant is in no price catalog)
    g.mem_bandwidth_GBps = 2400;  // quoted by the run's source
  }
  // DGX H100 / DGX B200 / the torchtitan clusters: 8 GPUs per node, 8 x 400 Gb/s NICs (InfiniBand or RoCE).
  const Offer o = hgx_node(g, 3200, NetKind::infiniband, 256);
  TrainConfig t = fixed_layout(r.gpus, r.tp, r.pp, r.zero, r.rc, r.mb, r.gb, r.seq, r.prec);
  t.framework = r.framework;
  t.parallel.cp = r.cp;
  t.cp_scheme = r.cp_scheme;
  t.parallel.vp = r.vp;
  t.parallel.dp = r.gpus / (r.tp * r.pp * r.cp);
  t.parallel.ep = r.ep;
  t.parallel.etp = r.ep > 1 ? 1 : 0;
  t.parallel.sequence_parallel = r.tp > 1;  // Megatron recipes and torchtitan TP both shard norms/dropout (SP)
  t.recompute_modules = r.recompute_modules;
  t.moe_dispatcher = r.dispatcher;
  t.moe_a2a_overlap = r.a2a_overlap;
  t.compile = r.compile;
  double tok_s = 0;
  if (base) {
    ModelSpec m = *base;
    m.max_position_embeddings = std::max<int64_t>(m.max_position_embeddings, r.seq);
    tok_s = fixed_tokens_per_s(m, t, g, o);
  }
  TimeReference row = rate_row(r.name, r.source, r.tok_s_gpu, tok_s, r.gpus, r.calibration);
  row.fully_specified = r.fully_specified;
  // The planner's own choice for the same job (framework, precision, sequence, global batch) on the same nodes.
  if (base) {
    ModelSpec m = *base;
    m.max_position_embeddings = std::max<int64_t>(m.max_position_embeddings, r.seq);
    TrainConfig a;
    a.method = Method::full;
    a.framework = r.framework;
    a.precision = r.prec;
    a.seq_len = r.seq;
    a.global_batch = r.gb;
    a.cp_scheme = r.cp_scheme;
    a.recompute_modules = r.recompute_modules;  // the run's modules are the planner's selective candidate
    a.moe_dispatcher = r.dispatcher;
    a.moe_a2a_overlap = r.a2a_overlap;
    a.compile = r.compile;
    Dataset d;
    d.tokens = 1e9;
    const int nodes = r.gpus / o.gpu_count;
    Result<PlanResult> p = plan_job(m, a, d, g, o, nodes);
    if (p && p->fits) {
      for (const Plan& b : p->by_nodes)
        if (b.nodes == nodes && b.why.empty()) {
          row.planner_plan = plan_summary(b);
          row.planner_tok_s_gpu = b.tokens_per_s / b.gpus;
        }
    } else if (p) {
      row.planner_plan = "none fits: " + p->why_not;
    }
  }
  row.tolerance = 0.20;  // framework benchmark rows: within 20%
  row.moe = base && base->num_experts > 1;
  return row;
}
}  // namespace perf_detail

std::vector<TimeReference> time_validation_rows() {
  using namespace perf_detail;
  std::vector<TimeReference> rows;
  for (auto add : {add_llama2_rows, add_llama65b_row, add_megatron_lm_rows, add_llm_foundry_rows,
                   add_framework_table_rows, add_nemo_long_sequence_rows, add_xtuner_ulysses_rows, add_own_h200_rows, add_nanotron_row})
    add(rows);
  return rows;
}

}  // namespace trainfit
