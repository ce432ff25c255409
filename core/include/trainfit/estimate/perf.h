// trainfit core — compute-time model: FLOPs per token, achievable per-GPU throughput, and the alpha-beta
// communication model used by the topology planner (planner.h).
// Sources are named next to each formula in perf.cpp; the efficiency defaults and their calibration runs are
// listed in perf_validation.cpp (time_validation_rows()).
#pragma once
#include <cstdint>

#include "trainfit/base/common.h"
#include "trainfit/catalog/job.h"
#include "trainfit/catalog/model.h"
#include "trainfit/storage/snapshot.h"

namespace trainfit {

// ---------------------------------------------------------------------------------------------
// FLOPs per trained token (multiply-add = 2 FLOPs). "model" is what the method needs (the MFU numerator);
// "hardware" is what the GPU executes, recomputation included (the HFU numerator).
struct FlopsPerToken {
  double forward = 0;            // one forward pass: weight matmuls + attention scores + logits
  double attention_forward = 0;  // the attention-score part of `forward` (QK^T and AV; causal for decoders)
  double logits_forward = 0;     // the output projection h x vocab
  double model = 0;              // training FLOPs the method requires per token (MFU numerator)
  double recompute = 0;          // extra FLOPs from activation recomputation (and masked eager attention)
  double recompute_modules = 0;  // the part of `recompute` that Megatron-Core's module recompute re-runs (GEMMs)
  bool attention_recomputed = false;  // the attention core runs again in backward (full, or selective core_attn)
  double hardware = 0;           // model + recompute (HFU numerator)
  double lora_params = 0;        // adapter parameters that are trained (LoRA / QLoRA), 0 for full
  bool attention_known = true;   // false for params_only models (no shape: no attention or logits term)
};

// `recompute` must be resolved (none / selective / full). Errors name the field that makes it impossible.
Result<FlopsPerToken> flops_per_token(const ModelSpec& model, const ParamCounts& params, const TrainConfig& train,
                                      Recompute recompute);

// LoRA adapter parameters for the configured targets and rank (r x (d_in + d_out) per adapted matrix).
// MoE expert matrices count once per expert in `total` and once per routed expert in `active`.
struct LoraParams {
  double total = 0;
  double active = 0;
};
LoraParams lora_adapter_params(const ModelSpec& model, const TrainConfig& train);

// ---------------------------------------------------------------------------------------------
// Achievable throughput.
// Dense (never sparse) tensor peak for the precision's matmul dtype, FLOP/s; 0 when the GPU lacks it.
// "auto" on this GPU: bf16-mixed where it has dense BF16 tensor throughput, else fp16-mixed (job.h).
// Any other precision is returned unchanged.
Precision resolve_precision(Precision precision, const GpuSpec& gpu);
double dense_peak_flops(const GpuSpec& gpu, Precision precision);
const char* compute_dtype_name(Precision precision);

// Fraction of the dense peak that the training kernels reach while computing (communication, pipeline
// bubbles, recomputation and optimizer steps are modelled separately, so this is not the end-to-end MFU).
struct Efficiency {
  double value = 0;        // product of the factors below (or the user's override), in (0, 1]
  double generation = 0;   // ceiling by GPU generation and dtype, calibrated on published runs
  double width = 0;        // GEMM width factor d / (d + 512), d = hidden / tp
  double tokens = 0;       // micro-batch factor t / (t + 128), t = tokens per micro-batch per GPU
  double method = 0;       // LoRA / QLoRA kernel overhead factor
  double framework = 1;    // the framework profile's FP8 and eager factors (framework.h fp8_efficiency, eager_efficiency)
  double scale = 1;        // calibration from a measured run (TrainConfig::efficiency_scale; calibrate.h)
  bool overridden = false; // TrainConfig::compute_efficiency was set
  bool calibrated = false; // the generation ceiling comes from published runs (not an assumption)
  const char* basis = "";  // where the generation ceiling comes from
};
Efficiency compute_efficiency(const GpuSpec& gpu, const ModelSpec& model, const TrainConfig& train, int tp,
                              double tokens_per_microbatch);

// FP8 recipes cast only the GEMM (Linear) inputs to FP8: Transformer Engine keeps dot-product attention in BF16
// unless FP8 attention is asked for (fp8_dpa, off by default), and torchao's float8 converts nn.Linear modules
// only. Under fp8-mixed the attention-score FLOPs therefore run at the BF16 rate: this returns that rate over the
// FP8 GEMM rate (BF16 peak x BF16 ceiling over FP8 peak x FP8 ceiling x the framework's FP8 factor), 1 for any
// other precision or a GPU without both peaks.
double fp8_attention_rate_ratio(const GpuSpec& gpu, const TrainConfig& train);

// Fraction of the BF16 dense peak that fused causal attention (FlashAttention forward + backward) reaches at
// `seq_len` tokens per sequence: the kernel's published fraction per GPU generation and its drop at short
// sequences (perf.cpp). The planner times the attention-score FLOPs at this rate times the framework's
// attention_end_to_end, the GEMMs at compute_efficiency's. 0 when the GPU has no BF16 peak. `fa2`: the framework runs
// FlashAttention-2 on every GPU (framework.h attention_fa2), so Hopper and Blackwell get FA2's rate, not FA3's.
double attention_efficiency(const GpuSpec& gpu, double seq_len, bool fa2 = false);

// The factors of Efficiency, exposed so the planner evaluates them without re-deriving the ceiling.
double model_width(const ModelSpec& model);          // hidden size (params_only: estimated from the count)
double gemm_width_factor(double hidden_per_tp);      // d / (d + 512)
double microbatch_factor(double tokens_per_microbatch);  // t / (t + 128)

// Achievable HBM/GDDR bandwidth for the roofline floor, bytes/s.
double achievable_memory_bandwidth(const GpuSpec& gpu);

// ---------------------------------------------------------------------------------------------
// Communication (alpha-beta). busbw follows nccl-tests' definition (doc/PERFORMANCE.md): the per-rank
// bandwidth that does not depend on the number of ranks.
enum class Collective { all_reduce, reduce_scatter, all_gather };

struct Link {
  double busbw_Bps = 0;      // achievable bus bandwidth, bytes/s
  double latency_s = 0;      // per-hop latency alpha
  bool usable = true;        // false: the layout must not put this traffic there
  const char* kind = "";     // "nvswitch", "pcie", "infiniband", ...
};

// Time of one collective over n ranks on a buffer of `bytes` (the full, unsharded size):
// all-reduce 2(n-1)/n * bytes / busbw, reduce-scatter and all-gather (n-1)/n * bytes / busbw, plus latency.
double collective_time_s(Collective op, double bytes, int n, const Link& link);
// All-to-all over n ranks, per_node of them on each node, each rank holding `bytes` to scatter to all (MoE token
// dispatch and combine under expert parallelism): the in-node part on the node's links, the cross-node part on the
// node's NICs shared by its ranks. 1e30 when the ranks span nodes without a network.
// cross_node_share: the part of the cross-node bytes a dispatcher actually sends (1: every copy).
double all_to_all_time_s(double bytes, int n, int per_node, const Offer& offer, const GpuSpec& gpu,
                         double cross_node_share = 1.0);
// Point-to-point send of `bytes`.
double p2p_time_s(double bytes, const Link& link);

// PCIe x16 bandwidth per direction by generation (GB/s = 1e9 B/s): Gen3 16, Gen4 32, Gen5 64, Gen6 128.
double pcie_x16_GBps(int generation);

// The link a collective runs on when `group` ranks take part, `per_node` of them on each node, on an
// instance with `gpus_per_node` GPUs, all groups of that kind communicating at once.
// Inside a node: NVSwitch/NVLink/Infinity Fabric or PCIe; across nodes: the node's NICs shared by the groups.
Link group_link(const Offer& offer, const GpuSpec& gpu, int group, int per_node);

// Achievable fractions of the quoted link rates (documented in perf.cpp).
double intra_link_fraction(LinkClass link);
double inter_net_fraction(NetKind net);

// Model FLOPs utilisation and hardware FLOPs utilisation for a measured or predicted rate.
double utilisation(double flops_per_token, double tokens_per_s, int gpus, double peak_flops_per_gpu);

}  // namespace trainfit
