// trainfit core — time references at long context: NeMo's long-sequence tables (Megatron-Core ring context
// parallelism, 32k-1M tokens) and XTuner's Ulysses rows (128k, 256k). Error convention as in perf_validation.cpp:
// + = we predict longer.
#include <cstdio>
#include <vector>

#include "validation/perf_rows.h"

namespace trainfit::perf_detail {
namespace {

// NeMo's model FLOPs per token for Llama (nemo/utils/flops_formulas.py `llama2` / `llama3` @e1335c8): l h^2 (12 +
// 12 g/a + 18 f/h + 12 s/h + 6 V/(l h)), g / a the KV / query heads, f the MLP width. It counts the full s x s
// attention (twice the causal work). The file is later than the H100 table; that the tables count this way is shown
// by NeMo 24.07's Llama 2 7B row, which it reproduces (776 TFLOPS and 16,847 tokens/s per GPU: 46.1 GFLOPs per token).
double nemo_llama_flops_per_token(double l, double h, double g_over_a, double f, double s, double V) {
  return l * h * h * (12.0 + 12.0 * g_over_a + 18.0 * f / h + 12.0 * s / h + 6.0 * V / (l * h));
}

}  // namespace

// --- NeMo's long-sequence tables (NVIDIA/NeMo docs/source/performance/performance_long_sequence.md): Llama 2 7B FP8
// on DGX-H100 (NeMo 24.03.01, table unchanged since b39e679) and Llama 3 8B FP8 on DGX-B200 (NeMo 25.04.rc2; its GPU
// counts as of 14d427f, which equal TP x CP x DP on every row: @19fadb6 copied the H100 table's counts), 32k to 1M
// tokens, Megatron-Core ring context parallelism (p2p, the only CP of 24.03), a constant 4M tokens per step. The
// "with CP" column's TFLOPS per GPU are divided by NeMo's formula above. Micro-batch and recompute are not published:
// micro-batch 1 (the 1M rows hold one sequence per data-parallel rank) and no recompute (the layouts keep sequence /
// (TP x CP) constant, 8,192 tokens per H100 and 16,384 per B200 up to 256k, the pattern a fixed activation budget
// without recompute forces; with full recompute no TP would be needed at these sizes). The B200 rows at 32k and 64k
// calibrate Blackwell's attention rate (perf.cpp attention_efficiency); the others are held out.
void add_nemo_long_sequence_rows(std::vector<TimeReference>& rows) {
  using F = Framework;
  struct Long {
    int gpu, gpus, tp, cp;
    int64_t gb, seq;
    double tflops;
    bool calibration;
  };
  const Long runs[] = {
      {0, 32, 2, 2, 128, 32768, 610, false},  {0, 64, 4, 2, 64, 65536, 574, false},
      {0, 128, 4, 4, 32, 131072, 555, false}, {0, 256, 4, 8, 16, 262144, 549, false},
      {0, 512, 8, 16, 8, 524288, 549, false}, {0, 1024, 8, 32, 4, 1048576, 536, false},
      {2, 8, 1, 2, 128, 32768, 1624, true},   {2, 16, 1, 4, 64, 65536, 1600, true},
      {2, 32, 2, 4, 32, 131072, 1588, false}, {2, 64, 4, 4, 16, 262144, 1590, false},
      {2, 128, 4, 8, 8, 524288, 1619, false}, {2, 256, 4, 16, 4, 1048576, 1608, false},
  };
  for (const Long& r : runs) {
    const bool h100 = r.gpu == 0;
    // Llama 2 7B: 32 layers, h 4096, 32 heads (MHA), f 11008, V 32,000; Llama 3 8B: GQA 8 of 32, f 14336, V 128,256.
    const double flops = h100 ? nemo_llama_flops_per_token(32, 4096, 1.0, 11008, double(r.seq), 32000)
                              : nemo_llama_flops_per_token(32, 4096, 0.25, 14336, double(r.seq), 128256);
    char name[160];
    std::snprintf(name, sizeof name, "NeMo %s, %dx %s FP8, seq %lld (TP %d, CP %d, DP %d)",
                  h100 ? "Llama 2 7B" : "Llama 3 8B", r.gpus, h100 ? "H100" : "B200", (long long)r.seq, r.tp, r.cp,
                  r.gpus / (r.tp * r.cp));
    const FrameworkRun run{name, h100 ? "llama-2-7b" : "llama-3-8b", F::megatron_core, r.gpu, r.gpus, r.tp, 1, 1,
                           r.cp, 1, 1, r.gb, r.seq, Recompute::none, Precision::fp8_mixed, r.tflops * 1e12 / flops,
                           r.calibration,
                           h100 ? "NVIDIA/NeMo docs/source/performance/performance_long_sequence.md @19fadb6 (NeMo "
                                  "24.03.01, DGX-H100, FP8; TFLOPS / NeMo's Llama FLOPs per token)"
                                : "NVIDIA/NeMo docs/source/performance/performance_long_sequence.md @14d427f (NeMo "
                                  "25.04.rc2, DGX-B200, FP8; TFLOPS / NeMo's Llama FLOPs per token)"};
    rows.push_back(framework_row(run));
  }
}

// --- XTuner's sequence-parallel benchmark (InternLM/xtuner docs/zh_cn/acceleration/benchmark.rst @7575f2c91; configs
// xtuner/configs/llama_speed_benchmark/llama2_7b/*_sp8.py at the same commit): DeepSpeed-Ulysses-style all-to-all
// sequence parallelism (xtuner/parallel/sequence/attention.py: q, k, v before attention, the output after), Llama 2
// 7B on one node of 8 A100-SXM4-80GB, SP 8 (DP 1), one packed sequence per SP group, gradient accumulation 8 (8
// sequences per step), dense causal attention over the packed sequence (use_varlen_attn False), full activation
// checkpointing (SupervisedFinetune's default; the published TFLOPs, recomputed from the tokens/s with XTuner's
// throughput_hook.py and its recompute factor, agree within 0.1%), bf16 with fp32 AdamW on the GPU. The ZeRO stage is
// not published: stage 3 (deepspeed_zero3.json, "SP + ZeRO-3" on the page; stage 2 moves these rows by ~1%).
// Published: tokens per GPU per second (TGS). The hf-trainer profile (XTuner runs Hugging Face transformers models
// with flash_attn 2 under DeepSpeed, the stack accelerate's Ulysses launches): the 128k row calibrates its attention
// rate (framework.cpp attention_end_to_end), the 256k row is held out.
void add_xtuner_ulysses_rows(std::vector<TimeReference>& rows) {
  constexpr const char* kXtuner = "InternLM/xtuner docs/zh_cn/acceleration/benchmark.rst @7575f2c91 (Llama 2 7B, "
                                  "8x A100-SXM4-80GB, sequence parallel 8, TGS)";
  constexpr const char* kXtunerPage = "InternLM/xtuner docs/zh_cn/acceleration/benchmark.rst @7575f2c91 (A100-SXM4-80GB, "
                                      "sequence parallel 1-16 on 8-32 GPUs, TGS)";
  // Every row: the hf-trainer profile on A100-SXM4-80GB, ZeRO-3, micro-batch 1, one sequence per GPU per step
  // (gradient accumulation = SP), full recompute, bf16, Ulysses SP.
  const struct {
    const char* name;
    const char* model;
    int gpus, sp;
    int64_t seq;
    double tok_s_gpu;
    bool calibration, fully_specified;
    const char* source;
  } xtuner[] = {
      {"XTuner Llama 2 7B, 8x A100 80GB, seq 131072, Ulysses SP 8, ZeRO-3, full recompute", "llama-2-7b", 8, 8, 131072,
       948.6, true, true, kXtuner},
      {"XTuner Llama 2 7B, 8x A100 80GB, seq 262144, Ulysses SP 8, ZeRO-3, full recompute", "llama-2-7b", 8, 8, 262144,
       540.1, false, true, kXtuner},
      // The same page's other rows (lines 57-162, configs xtuner/configs/llama_speed_benchmark/{llama2_7b,
      // llama2_70b}/*.py), held out: the 32k row without sequence parallelism (DP 8), the 1M row over two nodes (SP
      // 16, DP 2), Llama 2 70B at 32k and 128k on four nodes (SP 4 and 8; the page's 70B rows are not monotonic in
      // length, so these two are informative).
      {"XTuner Llama 2 7B, 8x A100 80GB, seq 32768, no SP (DP 8), ZeRO-3, full recompute", "llama-2-7b", 8, 1, 32768,
       2234.2, false, true, kXtunerPage},
      {"XTuner Llama 2 7B, 32x A100 80GB, seq 1048576, Ulysses SP 16, ZeRO-3, full recompute", "llama-2-7b", 32, 16,
       1048576, 133.6, false, true, kXtunerPage},
      {"XTuner Llama 2 70B, 32x A100 80GB, seq 32768, Ulysses SP 4, ZeRO-3, full recompute", "llama-2-70b", 32, 4, 32768,
       300.9, false, false, kXtunerPage},
      {"XTuner Llama 2 70B, 32x A100 80GB, seq 131072, Ulysses SP 8, ZeRO-3, full recompute", "llama-2-70b", 32, 8,
       131072, 144.7, false, false, kXtunerPage},
  };
  for (const auto& x : xtuner)
    rows.push_back(framework_row({x.name, x.model, Framework::hf_trainer, 4, x.gpus, 1, 1, 1, x.sp, 3, 1, x.gpus, x.seq,
                                  Recompute::full, Precision::bf16_mixed, x.tok_s_gpu, x.calibration, x.source,
                                  x.fully_specified, nullptr, 1, CpScheme::ulysses}));
}

}  // namespace trainfit::perf_detail
