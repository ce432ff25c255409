// trainfit core — compute-time model: FLOPs per token, achievable throughput, alpha-beta communication.
#include "trainfit/estimate/perf.h"

#include "trainfit/catalog/framework.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

namespace trainfit {
namespace {

bool contains_ci(const std::string& hay, const char* needle) {
  const size_t n = std::strlen(needle);
  if (n == 0 || hay.size() < n) return false;
  for (size_t i = 0; i + n <= hay.size(); ++i) {
    size_t j = 0;
    while (j < n && std::tolower(static_cast<unsigned char>(hay[i + j])) ==
                        std::tolower(static_cast<unsigned char>(needle[j])))
      ++j;
    if (j == n) return true;
  }
  return false;
}

bool gated_mlp(const ModelSpec& m) { return m.mlp == Mlp::swiglu || m.mlp == Mlp::geglu; }

double head_dim_of(const ModelSpec& m) {
  if (m.head_dim > 0) return static_cast<double>(m.head_dim);
  return m.num_heads > 0 ? static_cast<double>(m.hidden_size) / static_cast<double>(m.num_heads) : 0.0;
}

// The MLP width LoRA adapts per routed expert (MoE: the expert width), or the dense width.
double intermediate_of(const ModelSpec& m) {
  if (m.num_experts > 1 && m.moe_intermediate_size > 0) return static_cast<double>(m.moe_intermediate_size);
  return m.intermediate_size > 0 ? static_cast<double>(m.intermediate_size) : 4.0 * static_cast<double>(m.hidden_size);
}

// Attention-score FLOPs of one forward pass per token, all layers. QK^T and AV are 2 * s * (d_qk + d_v) FLOPs
// per token per layer without a mask (PaLM, Chowdhery et al. 2022, App. B: 6N + 12 L H Q T for training). A
// causal mask halves the work that FlashAttention executes (Dao 2023, FlashAttention-2 Sec. 4.1 counts causal
// FLOPs as half); BERT is bidirectional. Multi-head latent attention: d_qk = heads * (nope + rope), d_v =
// heads * v_head_dim (DeepSeek-V2 Sec. 2.1.2). A sliding window of w tokens (Mistral, Gemma 3, gpt-oss)
// leaves query i min(i, w) keys: w - w^2 / 2s on average over a sequence of s > w (s / 2 without it); the
// layers that attend fully (global_every) keep s / 2.
double attention_flops(const ModelSpec& m, double s) {
  const double layers = static_cast<double>(m.num_layers);
  double d_attn = static_cast<double>(m.num_heads) * head_dim_of(m);
  if (m.kv_lora_rank > 0)
    d_attn = static_cast<double>(m.num_heads) *
             (static_cast<double>(m.qk_nope_head_dim + m.qk_rope_head_dim) + static_cast<double>(m.v_head_dim)) / 2.0;
  const bool causal = m.arch != Arch::bert;
  const double w = static_cast<double>(m.sliding_window);
  if (!causal || w <= 0 || w >= s) return layers * (causal ? 2.0 : 4.0) * s * d_attn;
  const double global = m.global_every > 0 ? static_cast<double>(m.num_layers / m.global_every) : 0.0;
  const double keys = w - w * w / (2.0 * s);
  return global * 2.0 * s * d_attn + (layers - global) * 4.0 * keys * d_attn;
}

// Width used by the efficiency model. params_only models have no hidden size; estimate it from N ~ 12 L h^2
// with the aspect ratio L ~ h / 128 typical of GPT-3 / Llama sizes (Kaplan et al. 2020 §2.1 count).
double width_of(const ModelSpec& m, double params) {
  if (m.hidden_size > 0) return static_cast<double>(m.hidden_size);
  if (params <= 0) return 4096.0;
  return std::cbrt(params * 128.0 / 12.0);
}

}  // namespace

// ------------------------------------------------------------------------------------------------
LoraParams lora_adapter_params(const ModelSpec& m, const TrainConfig& t) {
  LoraParams out;
  if (t.method == Method::full || m.hidden_size <= 0 || m.num_layers <= 0 || t.lora_rank <= 0) return out;
  const double h = static_cast<double>(m.hidden_size);
  const double hd = head_dim_of(m);
  const double q_out = static_cast<double>(m.num_heads) * hd;
  const double kv_heads = static_cast<double>(m.num_kv_heads > 0 ? m.num_kv_heads : m.num_heads);
  const double kv_out = kv_heads * hd;
  const double inter = intermediate_of(m);
  const double experts = static_cast<double>(std::max<int64_t>(1, m.num_experts));
  const double routed = static_cast<double>(std::max<int64_t>(1, std::min(m.experts_per_token, m.num_experts)));
  const double r = static_cast<double>(t.lora_rank);
  double attn = 0, mlp = 0;  // r * (d_in + d_out) summed over targeted matrices (one expert for the MLP)
  for (const std::string& target : t.lora_targets) {
    if (target == "q") attn += r * (h + q_out);
    else if (target == "k") attn += r * (h + kv_out);
    else if (target == "v") attn += r * (h + kv_out);
    else if (target == "o") attn += r * (q_out + h);
    else if (target == "gate") mlp += gated_mlp(m) ? r * (h + inter) : 0.0;
    else if (target == "up") mlp += r * (h + inter);
    else if (target == "down") mlp += r * (inter + h);
  }
  const double layers = static_cast<double>(m.num_layers);
  out.total = layers * (attn + mlp * experts);
  out.active = layers * (attn + mlp * routed);
  return out;
}

// FLOPs per token that Megatron-Core's module recompute re-runs in backward besides the attention core
// (TrainConfig::recompute_modules; 2 FLOPs per weight per token, Kaplan et al. 2020 §2.1, over each module's
// matrices): a dense layer's MLP (mlp), the shared expert (shared_experts), the whole MoE block's router and top-k
// experts with it (moe), MLA's q / kv up-projections (mla_up_proj). layernorm and moe_act re-run element-wise kernels
// only: no FLOPs counted (their memory traffic is below the model's resolution).
double module_recompute_flops(const ModelSpec& m, uint32_t mods) {
  if ((mods & ~uint32_t(kRecomputeCoreAttn)) == 0 || m.hidden_size <= 0 || m.num_layers <= 0) return 0;
  const double h = double(m.hidden_size), L = double(m.num_layers);
  const double moe = moe_layer_count(m), dense = L - moe;
  const double mats = gated_mlp(m) ? 3.0 : 2.0;  // gate, up, down (or fc1, fc2)
  const double shared = 2.0 * mats * h * double(m.shared_expert_intermediate_size);
  const double f_e = double(expert_intermediate_size(m));
  double f = 0;
  if (mods & kRecomputeMlp) f += dense * 2.0 * mats * h * double(m.intermediate_size);
  if (mods & kRecomputeMoe)
    f += moe * (2.0 * h * double(m.num_experts) + 2.0 * mats * double(m.experts_per_token) * h * f_e + shared);
  else if (mods & kRecomputeSharedExperts) f += moe * shared;
  if ((mods & kRecomputeMlaUpProj) && m.kv_lora_rank > 0) {
    const double n = double(m.num_heads), qk = double(m.qk_nope_head_dim + m.qk_rope_head_dim);
    // Without a q latent (q_lora_rank 0) the checkpointed function runs the full query projection from the hidden state.
    const double q_in = double(m.q_lora_rank > 0 ? m.q_lora_rank : m.hidden_size);
    f += L * 2.0 * n * (q_in * qk + double(m.kv_lora_rank) * double(m.qk_nope_head_dim + m.v_head_dim));
  }
  return f;
}

// ------------------------------------------------------------------------------------------------
Result<FlopsPerToken> flops_per_token(const ModelSpec& m, const ParamCounts& p, const TrainConfig& t,
                                      Recompute recompute) {
  if (recompute == Recompute::automatic) return Error{"recompute", "must be resolved before counting FLOPs"};
  if (t.seq_len <= 0) return Error{"seq_len", "must be a positive number of tokens"};
  const double active = p.active > 0 ? p.active : (p.total > 0 ? p.total : m.params);
  if (!(active > 0) || !std::isfinite(active)) return Error{"model", "parameter count is unknown or not positive"};

  FlopsPerToken f;
  const double s = static_cast<double>(t.seq_len);
  double weights_fwd = 0;  // 2 FLOPs per weight per token in the forward pass (Kaplan et al. 2020, §2.1)
  if (m.arch == Arch::params_only || m.hidden_size <= 0 || m.num_layers <= 0 || m.num_heads <= 0) {
    // Only a count is known: the classic 2N forward (6N training) without the attention and logits terms.
    f.attention_known = false;
    weights_fwd = 2.0 * active;
  } else {
    const double h = static_cast<double>(m.hidden_size);
    // Every knob's matrices (gated or plain MLP, biases, q/k norms, MLA projections, routed and shared experts)
    // enter through the active count, which model.cpp builds from the same knobs. Matmul weights exclude the
    // embedding lookup and the head; the head is counted as logits below
    // (tied or not, the h x V product is computed once per token).
    const double matmul_params = std::max(0.0, active - p.embedding - p.head);
    weights_fwd = 2.0 * matmul_params;
    f.attention_forward = attention_flops(m, s);
    f.logits_forward = 2.0 * h * static_cast<double>(m.vocab_size);
  }

  const LoraParams lora = lora_adapter_params(m, t);
  f.lora_params = lora.total;
  f.forward = weights_fwd + f.attention_forward + f.logits_forward + 2.0 * lora.active;

  if (t.method == Method::full) {
    // Backward costs twice the forward (input and weight gradients): 3x forward in all
    // (Narayanan et al. 2021, §5.1 eq. 3 derivation; Kaplan et al. 2020 §2.1).
    f.model = 3.0 * f.forward;
  } else {
    // LoRA / QLoRA: frozen base weights need input gradients but no weight gradients (Hu et al. 2021 §4.2:
    // "no need to calculate the gradients ... for most parameters"): 2x forward for base matmuls and logits,
    // 3x for attention scores (no weights) and for the trained adapters.
    f.model = 2.0 * weights_fwd + 3.0 * f.attention_forward + 2.0 * f.logits_forward + 6.0 * lora.active;
  }

  // Recomputation (Korthikanti et al. 2022 §4.2, §5): full recomputes each layer's forward (not the logits);
  // selective recomputes only the attention-score core, or under Megatron-Core the modules the job names.
  double extra = 0;
  if (recompute == Recompute::full) extra += weights_fwd + f.attention_forward + 2.0 * lora.active;
  f.attention_recomputed = recompute == Recompute::full ||
                           (recompute == Recompute::selective && (t.recompute_modules & kRecomputeCoreAttn));
  if (recompute == Recompute::selective) {
    if (f.attention_recomputed) extra += f.attention_forward;
    f.recompute_modules = f.attention_known ? module_recompute_flops(m, t.recompute_modules) : 0.0;
    extra += f.recompute_modules;
  }
  // Eager (non-fused) attention computes the masked half too: one extra causal-size unit per pass
  // (forward, two backward products, and a recomputed forward).
  if (t.attention == Attention::eager && m.arch != Arch::bert && f.attention_known) {
    const double passes = 3.0 + (f.attention_recomputed ? 1.0 : 0.0);
    extra += passes * f.attention_forward;
  }
  f.recompute = extra;
  f.hardware = f.model + extra;
  return f;
}

// ------------------------------------------------------------------------------------------------
Precision resolve_precision(Precision p, const GpuSpec& g) {
  if (p != Precision::automatic) return p;
  return g.tflops_bf16 > 0 ? Precision::bf16_mixed : Precision::fp16_mixed;
}

double dense_peak_flops(const GpuSpec& g, Precision p) {
  double tflops = 0;
  switch (resolve_precision(p, g)) {
    case Precision::automatic: break;  // resolved above
    case Precision::fp32: tflops = g.tflops_fp32; break;  // PyTorch keeps TF32 matmuls off by default (>=1.12)
    case Precision::bf16_mixed:
    case Precision::bf16: tflops = g.tflops_bf16; break;
    case Precision::fp16_mixed: tflops = g.tflops_fp16; break;
    case Precision::fp8_mixed: tflops = g.tflops_fp8; break;
  }
  return (tflops > 0 && std::isfinite(tflops)) ? tflops * 1e12 : 0.0;
}

const char* compute_dtype_name(Precision p) {
  switch (p) {
    case Precision::fp32: return "FP32";
    case Precision::bf16_mixed:
    case Precision::bf16: return "BF16";
    case Precision::fp16_mixed: return "FP16";
    case Precision::fp8_mixed: return "FP8";
    case Precision::automatic: return "BF16 or FP16";
  }
  return "?";
}

namespace {

struct GenerationCeiling {
  double value;
  bool calibrated;
  const char* basis;
};

// Fraction of the dense peak reached by the compute phases of transformer training on large GEMMs.
// Calibrated values reproduce the published runs in perf_validation.cpp within the stated band.
GenerationCeiling generation_ceiling(const GpuSpec& g, Precision p) {
  if (p == Precision::fp32)
    return {0.70, false, "assumption: SIMT FP32 GEMMs reach ~70% of the vector peak"};
  if (contains_ci(g.arch, "hopper")) {
    if (p == Precision::fp8_mixed)
      return {0.36, true, "MosaicML llm-foundry H100 FP8 benchmarks (scripts/train/benchmarking/README.md)"};
    return {0.54, true, "MosaicML llm-foundry H100 BF16 benchmarks (scripts/train/benchmarking/README.md)"};
  }
  if (contains_ci(g.arch, "ampere"))
    return {0.74, true,
            "MosaicML llm-foundry A100 benchmarks; Narayanan et al. 2021 Table 1; Llama 2 (Touvron et al. 2023) "
            "GPU-hours"};
  if (contains_ci(g.arch, "blackwell")) {
    // Not fitted to the B200 rows of perf_validation.cpp, which check it: FP8 with Megatron-Bridge's dense Llama rows
    // (-1.5%, +0.3%) and NeMo's long-sequence rows; BF16 only through MoE and torchtitan rows (no dense BF16 run).
    // FP8: the Hopper FP8 / BF16 ceiling ratio (0.36 / 0.54) applied to Blackwell's.
    if (p == Precision::fp8_mixed)
      return {0.55 * 0.36 / 0.54, false,
              "assumption: Hopper's FP8 / BF16 ceiling ratio on the Blackwell fraction; held-out dense B200 FP8 runs land "
              "within 10% (docs/accuracy.md)"};
    return {0.55, false,
            "assumption: Hopper-like fraction; no published dense BF16 Blackwell run checks it yet (B200 MoE runs "
            "do: docs/accuracy.md)"};
  }
  if (contains_ci(g.arch, "ada"))
    return {0.60, false, "assumption: Ada GEMMs like Ampere data-centre parts, PCIe-class memory system"};
  if (contains_ci(g.arch, "volta"))
    return {0.40, false, "Shoeybi et al. 2019 §5: 39 TFLOP/s on one V100 (30% of peak) end to end"};
  if (contains_ci(g.arch, "turing"))
    return {0.35, false, "assumption: Volta-like tensor-core efficiency"};
  if (contains_ci(g.arch, "cdna"))
    return {0.40, false, "assumption: ROCm training reaches a lower fraction of the MI300X/MI250X peak"};
  return {0.40, false, "assumption: unknown architecture"};
}

}  // namespace

Efficiency compute_efficiency(const GpuSpec& g, const ModelSpec& m, const TrainConfig& t, int tp,
                              double tokens_per_microbatch) {
  Efficiency e;
  const GenerationCeiling c = generation_ceiling(g, resolve_precision(t.precision, g));
  e.generation = c.value;
  e.calibrated = c.calibrated;
  e.basis = c.basis;
  // GEMM width: each GPU multiplies (tokens x d) by (d x d/tp)-shaped blocks; narrow models leave tensor
  // cores idle. d/(d+512) fits the MosaicML A100 rows from 125M (h=768) to 7B (h=4096) at seq 2048.
  e.width = gemm_width_factor(model_width(m) / static_cast<double>(std::max(1, tp)));
  // Small micro-batches give short GEMMs and launch-bound kernels: t/(t+128) tokens (below ~100 tokens the
  // HBM roofline in the planner takes over).
  e.tokens = microbatch_factor(tokens_per_microbatch);
  // Adapter matmuls are small and unfused (PEFT); QLoRA adds bitsandbytes kernels (dequantisation memory
  // traffic is modelled separately in the planner). Assumption, not calibrated.
  e.method = t.method == Method::full ? 1.0 : (t.method == Method::lora ? 0.90 : 0.80);
  if (resolve_precision(t.precision, g) == Precision::fp8_mixed) e.framework = framework_profile(t.framework).fp8_efficiency;
  // A profile fitted to compiled runs, run eager (framework.h eager_efficiency).
  if (framework_profile(t.framework).compiles && !resolved_compile(t)) e.framework *= framework_profile(t.framework).eager_efficiency;
  if (t.compute_efficiency > 0 && t.compute_efficiency <= 1 && std::isfinite(t.compute_efficiency)) {
    e.value = t.compute_efficiency;
    e.overridden = true;
  } else {
    // A calibration from a measured run (calibrate.cpp) scales the modelled value.
    if (t.efficiency_scale > 0 && std::isfinite(t.efficiency_scale)) e.scale = t.efficiency_scale;
    e.value = e.generation * e.width * e.tokens * e.method * e.framework * e.scale;
  }
  e.value = std::clamp(e.value, 1e-3, 1.0);
  return e;
}

double fp8_attention_rate_ratio(const GpuSpec& g, const TrainConfig& t) {
  if (resolve_precision(t.precision, g) != Precision::fp8_mixed) return 1.0;
  const double bf16 = dense_peak_flops(g, Precision::bf16_mixed) * generation_ceiling(g, Precision::bf16_mixed).value;
  const double fp8 = dense_peak_flops(g, Precision::fp8_mixed) * generation_ceiling(g, Precision::fp8_mixed).value *
                     framework_profile(t.framework).fp8_efficiency;
  if (!(bf16 > 0) || !(fp8 > 0)) return 1.0;
  return bf16 / fp8;
}

double attention_efficiency(const GpuSpec& g, double seq_len, bool fa2) {
  // Kernel fraction of the BF16 dense peak, causal, head dim 128, long sequences, forward + backward:
  // - Ampere: FlashAttention-2 on A100 (Dao 2023, arXiv:2307.08691, §4.1 and Fig. 4): up to 73% of peak in the
  //   forward pass and 63% in the backward; weighted 1 : 2.5 by FLOPs, 0.65 (~200 TFLOP/s of 312).
  // - Hopper: FlashAttention-3 on H100 SXM5 (Shah et al. 2024, arXiv:2407.08608, §4.1 Fig. 5-6): forward up to
  //   740 TFLOP/s BF16 (75%), backward 1.5-1.75x FlashAttention-2's (~0.45 of peak): 0.51 weighted 1 : 2.5.
  //   Transformer Engine's cuDNN fused attention and torch SDPA's FA3 path are of this class.
  // - Blackwell: fitted to NeMo 25.04's Llama 3 8B FP8 rows on DGX-B200 at 32k and 64k tokens (cuDNN fused
  //   attention; perf_validation.cpp, calibration), with Megatron-Core's end-to-end factor: 0.58 of the BF16 peak.
  //   Its 128k-1M rows are held out. Applied to every Blackwell part (RTX 5090, RTX PRO) for want of their figures.
  // - Others: the generation's GEMM ceiling scaled by Ampere's attention / GEMM ratio (assumption).
  double kernel = 0;
  if (contains_ci(g.arch, "ampere"))
    kernel = 0.65;
  else if (fa2 && (contains_ci(g.arch, "hopper") || contains_ci(g.arch, "blackwell")))
    kernel = 0.35;  // FlashAttention-2 on H100: ~35% of the BF16 peak (Shah et al. 2024 Fig. 5-6, its FA2 baseline)
  else if (contains_ci(g.arch, "hopper"))
    kernel = 0.51;
  else if (contains_ci(g.arch, "blackwell"))
    kernel = 0.58;
  else
    kernel = generation_ceiling(g, Precision::bf16_mixed).value * (0.65 / 0.74);
  // Short sequences leave the kernel's tiles and SMs idle: FlashAttention-2 Fig. 4 (causal, head dim 128) climbs
  // from about half its long-sequence rate at 512 tokens to within a few percent of it at 16k: s / (s + 512).
  const double s = std::max(1.0, seq_len);
  const double length = s / (s + 512.0);
  const double peak = dense_peak_flops(g, Precision::bf16_mixed);
  if (!(peak > 0)) return 0.0;
  return std::clamp(kernel * length, 1e-3, 1.0);
}

double model_width(const ModelSpec& m) { return width_of(m, m.params); }
double gemm_width_factor(double d) { return d > 0 ? d / (d + 512.0) : 0.5; }
double microbatch_factor(double tokens) {
  const double t = std::max(1.0, tokens);
  return t / (t + 128.0);
}

double achievable_memory_bandwidth(const GpuSpec& g) {
  // Stream-like kernels reach ~80% of the quoted HBM/GDDR bandwidth (assumption; BabelStream-class results).
  return std::max(1.0, g.mem_bandwidth_GBps) * 1e9 * 0.80;
}

// ------------------------------------------------------------------------------------------------
double pcie_x16_GBps(int gen) {
  // PCI-SIG x16 per direction: Gen3 ~16, Gen4 ~32, Gen5 ~64, Gen6 ~128 GB/s (pricing-and-specs.md §4).
  switch (gen) {
    case 1: return 4.0;
    case 2: return 8.0;
    case 3: return 16.0;
    case 4: return 32.0;
    case 5: return 64.0;
    case 6: return 128.0;
    default: return gen > 6 ? 128.0 : 32.0;  // unknown: assume Gen4
  }
}

double intra_link_fraction(LinkClass link) {
  switch (link) {
    // nccl-tests all_reduce busbw on HGX A100 reaches ~230 of the 300 GB/s per-direction NVLink3 rate (~0.77);
    // HGX H100 ~360 of 450 GB/s without NVLS. 0.8 of the per-direction rate.
    case LinkClass::nvswitch: return 0.80;
    case LinkClass::nvlink: return 0.75;         // V100 hybrid cube mesh: rings cannot use every link
    case LinkClass::nvlink_bridge: return 0.80;  // a bridged pair behaves like one NVLink hop
    case LinkClass::infinity_fabric: return 0.70;  // RCCL rings on MI300X reach a smaller share (assumption)
    // Through PCIe switches / the host bridge (P2P often disabled on cloud VMs): half the x16 rate.
    case LinkClass::pcie: return 0.50;
    case LinkClass::none: return 0.0;
  }
  return 0.0;
}

double inter_net_fraction(NetKind net) {
  switch (net) {
    case NetKind::infiniband: return 0.85;  // NDR/HDR with GPUDirect RDMA: nccl-tests busbw ~85-95% of line rate
    case NetKind::roce: return 0.80;
    case NetKind::efa: return 0.75;          // EFA SRD: lower per-flow efficiency than IB (assumption)
    case NetKind::tcpx: return 0.60;         // GPUDirect-TCPX(O) on GCP A3 (assumption)
    case NetKind::ethernet: return 0.40;     // NCCL over TCP sockets, no RDMA
    case NetKind::none: return 0.0;
  }
  return 0.0;
}

namespace {
double inter_net_latency_s(NetKind net) {
  switch (net) {
    case NetKind::infiniband: return 5e-6;
    case NetKind::roce: return 8e-6;
    case NetKind::efa: return 15e-6;
    case NetKind::tcpx: return 25e-6;
    case NetKind::ethernet: return 50e-6;
    case NetKind::none: return 0.0;
  }
  return 0.0;
}

Link pcie_link(const GpuSpec& g) {
  Link l;
  l.busbw_Bps = pcie_x16_GBps(g.pcie_gen) * 1e9 * intra_link_fraction(LinkClass::pcie);
  l.latency_s = 10e-6;
  l.kind = "pcie";
  return l;
}

// Inside one node, `ranks` GPUs of one group.
// A node's inter-node network rate, bytes/s, at the achievable fraction; 0 when it has none.
double node_network_Bps(const Offer& o) {
  if (o.inter_net == NetKind::none || !(o.inter_net_Gbps > 0)) return 0.0;
  return o.inter_net_Gbps * 1e9 / 8.0 * inter_net_fraction(o.inter_net);
}

Link intra_link(const Offer& o, const GpuSpec& g, int ranks) {
  LinkClass cls = o.intra_link;
  if (cls == LinkClass::none) cls = LinkClass::pcie;  // several GPUs listed without a link class: PCIe
  // NVLink bridges join pairs only; a group of more than two GPUs rings through PCIe.
  if (cls == LinkClass::nvlink_bridge && ranks > 2) return pcie_link(g);
  if (cls == LinkClass::pcie) return pcie_link(g);
  double bidir_GBps = o.intra_link_GBps > 0 ? o.intra_link_GBps : g.nvlink_GBps;
  if (!(bidir_GBps > 0)) return pcie_link(g);
  Link l;
  l.busbw_Bps = bidir_GBps / 2.0 * 1e9 * intra_link_fraction(cls);  // vendors quote bidirectional
  l.latency_s = 5e-6;
  l.kind = link_class_name(cls);
  return l;
}
}  // namespace

Link group_link(const Offer& o, const GpuSpec& g, int group, int per_node) {
  Link l;
  if (group <= 1) {
    l.busbw_Bps = 1e18;
    l.kind = "local";
    return l;
  }
  per_node = std::clamp(per_node, 1, group);
  const int gpus_per_node = std::max(1, o.gpu_count);
  const int nodes = (group + per_node - 1) / per_node;
  Link intra;
  if (per_node > 1) intra = intra_link(o, g, per_node);
  if (nodes <= 1) return intra;
  const double node_Bps = node_network_Bps(o);
  if (!(node_Bps > 0)) {
    l.usable = false;
    l.kind = "no inter-node network";
    return l;
  }
  // Every group of this kind talks at once; each node's NICs are shared by gpus_per_node / per_node groups
  // (nccl multi-node rings: busbw ~ the node's aggregate NIC rate when all GPUs of a node are in one group).
  const double share = static_cast<double>(per_node) / static_cast<double>(gpus_per_node);
  l.busbw_Bps = node_Bps * std::min(1.0, share);
  if (per_node > 1) l.busbw_Bps = std::min(l.busbw_Bps, intra.busbw_Bps);
  l.latency_s = std::max(intra.latency_s, inter_net_latency_s(o.inter_net));
  l.kind = net_kind_name(o.inter_net);
  return l;
}

double collective_time_s(Collective op, double bytes, int n, const Link& link) {
  if (n <= 1 || !(bytes > 0)) return 0.0;
  if (!(link.busbw_Bps > 0)) return 1e30;
  const double nn = static_cast<double>(n);
  // nccl-tests doc/PERFORMANCE.md: busbw = algbw * 2(n-1)/n for all-reduce, * (n-1)/n for reduce-scatter and
  // all-gather, where algbw = bytes / time. Solved for time.
  const double factor = op == Collective::all_reduce ? 2.0 * (nn - 1.0) / nn : (nn - 1.0) / nn;
  // Latency: NCCL's tree/ring latency grows ~ log2(n) steps at scale (NCCL 2.4 double binary trees).
  const double steps = std::ceil(std::log2(nn)) * (op == Collective::all_reduce ? 2.0 : 1.0);
  return factor * bytes / link.busbw_Bps + steps * link.latency_s;
}

double all_to_all_time_s(double bytes, int n, int per_node, const Offer& o, const GpuSpec& g, double cross_node_share) {
  if (n <= 1 || !(bytes > 0)) return 0.0;
  per_node = std::clamp(per_node, 1, n);
  const double nn = static_cast<double>(n), pn = static_cast<double>(per_node);
  // Each rank keeps 1/n of its buffer and sends (per_node - 1)/n to the ranks of its node over the node's links
  // and (n - per_node)/n across nodes (nccl-tests doc/PERFORMANCE.md, alltoall: busbw = algbw x (n-1)/n). Across
  // nodes the node's NICs carry every local rank's share at once. The two parts run concurrently.
  double t_intra = 0, t_inter = 0, latency = 0;
  if (per_node > 1) {
    const Link intra = intra_link(o, g, per_node);
    if (!(intra.busbw_Bps > 0)) return 1e30;
    t_intra = bytes * (pn - 1.0) / nn / intra.busbw_Bps;
    latency = intra.latency_s;
  }
  if (n > per_node) {
    const double node_Bps = node_network_Bps(o);
    if (!(node_Bps > 0)) return 1e30;
    const double ranks_on_node = std::min(pn, static_cast<double>(std::max(1, o.gpu_count)));
    t_inter = bytes * cross_node_share * (nn - pn) / nn * ranks_on_node / node_Bps;
    latency = std::max(latency, inter_net_latency_s(o.inter_net));
  }
  // One message to every peer: NCCL's all-to-all is n - 1 point-to-point sends grouped in one launch.
  return std::max(t_intra, t_inter) + latency;
}

double p2p_time_s(double bytes, const Link& link) {
  if (!(bytes > 0)) return 0.0;
  if (!(link.busbw_Bps > 0)) return 1e30;
  return bytes / link.busbw_Bps + link.latency_s;
}

double utilisation(double flops_per_token, double tokens_per_s, int gpus, double peak) {
  if (gpus <= 0 || !(peak > 0)) return 0.0;
  return flops_per_token * tokens_per_s / (static_cast<double>(gpus) * peak);
}

}  // namespace trainfit
