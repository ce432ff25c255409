// trainfit core — the planner's time model (planner_model.h): the context of one instance type and the links of a
// layout (the step time of a layout is in planner_step.cpp).
#include "estimate/planner_model.h"

#include "trainfit/catalog/framework.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

namespace trainfit::planner_model {
namespace {

double optimizer_state_bytes(Optimizer o) {
  switch (o) {
    case Optimizer::adamw: return 8;       // m, v in fp32 (Loshchilov & Hutter 2019; ZeRO §3 K=12 incl. master)
    case Optimizer::adamw_8bit: return 2;  // Dettmers et al. 2022: 8-bit block-wise m, v
    case Optimizer::sgd: return 0;
    case Optimizer::sgd_momentum: return 4;
    case Optimizer::adafactor: return 0.1; // factored second moment (Shazeer & Stern 2018): O(rows + cols)
    case Optimizer::lion: return 4;        // one momentum (Chen et al. 2023)
  }
  return 8;
}

}  // namespace

Links layout_links(const Ctx& c, int nodes, int tp, int pp, int dp, int cp) {
  Links l;
  const int g = c.g;
  if (tp > g || g % tp != 0) {
    l.excluded = "tensor parallel across nodes is excluded: per-layer all-reduces need NVLink-class bandwidth";
    return l;
  }
  // Rank order tp -> cp -> dp -> pp (Megatron-Core's default order "tp-cp-ep-dp-pp", parallel_state.py): TP
  // groups inside a node, then CP, then DP, then pipeline stages. Gradients are reduced over the DP x CP ranks.
  const int dpcp = dp * cp;
  const int per_node_cp = std::min(cp, std::max(1, g / tp));
  const int per_node_dp = std::min(dpcp, std::max(1, g / tp));
  const int per_node_pp = std::min(pp, std::max(1, g / (tp * dpcp)));
  l.tp = group_link(*c.offer, *c.gpu, tp, tp);
  l.dp = group_link(*c.offer, *c.gpu, dpcp, per_node_dp);
  l.pp = group_link(*c.offer, *c.gpu, pp, per_node_pp);
  if (cp > 1) l.cp = group_link(*c.offer, *c.gpu, cp, per_node_cp);
  if (nodes > 1 && (!l.dp.usable || !l.pp.usable || (cp > 1 && !l.cp.usable))) {
    l.excluded = "the instance has no inter-node network";
    return l;
  }
  if (tp > 1 && std::string_view(l.tp.kind) == "pcie") l.tp_over_pcie = true;
  return l;
}

JobPart job_part_late(JobPart& j, const ModelSpec& model, const TrainConfig& train);

JobPart job_part(const ModelSpec& model, const TrainConfig& train) {
  JobPart j;
  auto early = [&](const char* field, const char* message) {
    j.has_early = true;
    j.early_field = field;
    j.early_message = message;
    return j;
  };
  if (train.seq_len <= 0) return early("seq_len", "must be a positive number of tokens");
  if (train.micro_batch <= 0) return early("micro_batch", "must be at least 1");
  if (train.global_batch < 0) return early("global_batch", "must be 0 (a default the DP width divides) or positive");
  try {
    return job_part_late(j, model, train);
  } catch (const std::exception& e) {  // reported where plan_job's own catch would have reported it
    j.has_late = true;
    j.late_field = "plan";
    j.late_message = e.what();
    return j;
  }
}

JobPart job_part_late(JobPart& j, const ModelSpec& model, const TrainConfig& train) {
  auto late = [&](const Error& e) {
    j.has_late = true;
    j.late_field = e.field;
    j.late_message = e.message;
    return j;
  };
  if (!(train.headroom >= 0 && train.headroom < 1)) return late(Error{"headroom", "must be in [0, 1)"});
  if (train.compute_efficiency > 1 || (train.compute_efficiency == 0) || std::isnan(train.compute_efficiency))
    return late(Error{"compute_efficiency", "must be in (0, 1], or negative for the calibrated default"});

  Result<ParamCounts> pc = count_params(model);
  if (!pc) return late(pc.error());
  j.params = *pc;
  if (!(j.params.total > 0)) j.params.total = model.params;
  if (!(j.params.active > 0)) j.params.active = j.params.total;
  if (!(j.params.total > 0) || !std::isfinite(j.params.total))
    return late(Error{"model", "parameter count is unknown or not positive"});

  for (int i = 0; i < 3; ++i) {
    Result<FlopsPerToken> f = flops_per_token(model, j.params, train, kRcModes[i]);
    if (!f) return late(f.error());
    j.flops[i] = *f;
    // Attention-score FLOPs executed: forward and two backward products (flops_per_token: 3x forward for full and
    // LoRA alike), once more when the forward is recomputed, plus eager attention's masked half (its `recompute`).
    const double passes = 3.0 + (f->attention_recomputed ? 1.0 : 0.0);
    const double eager = f->recompute - (kRcModes[i] == Recompute::full ? f->forward - f->logits_forward - f->attention_forward
                                                                         : 0.0) -
                         (f->attention_recomputed ? f->attention_forward : 0.0) - f->recompute_modules;
    const double attn = passes * f->attention_forward + std::max(0.0, eager);
    j.attn_share[i] = f->hardware > 0 ? std::clamp(attn / f->hardware, 0.0, 1.0) : 0.0;
  }
  j.width = model_width(model);
  j.kv_width = model.num_kv_heads > 0 ? static_cast<double>(model.num_kv_heads) * static_cast<double>(effective_head_dim(model))
                                      : j.width;
  j.layers = model.num_layers > 0 ? static_cast<double>(model.num_layers)
                                  : std::max(1.0, j.params.total / (12.0 * j.width * j.width));
  j.seq = static_cast<double>(train.seq_len);
  if (j.params.expert > 0 && j.flops[0].forward > 0) {
    // Routed experts' forward FLOPs per token: 2 x the k active experts' parameters (Kaplan et al. 2020's 2N per
    // token, counted over the parameters a token uses).
    const double E = static_cast<double>(model.num_experts), k = static_cast<double>(model.experts_per_token);
    j.expert_share = std::clamp(2.0 * j.params.expert * k / E / j.flops[0].forward, 0.0, 1.0);
    j.topk = k;
    j.experts = E;
    j.expert_width = static_cast<double>(expert_intermediate_size(model));
    j.moe_layers = moe_layer_count(model);
  }
  j.act_bytes = train.precision == Precision::fp32 ? 4.0 : 2.0;
  j.weight_bytes = train.precision == Precision::fp32 ? 4.0 : 2.0;
  j.weight_read_bytes = j.weight_bytes;
  if (train.method == Method::qlora) j.weight_bytes = 0.53;  // NF4 4 bits + double-quantised constants
  j.lora = lora_adapter_params(model, train);
  j.trainable = train.method == Method::full ? j.params.total : std::max(j.lora.total, 1.0);
  j.grad_bytes = grad_element_bytes(train, train.precision == Precision::fp32 ? 4.0 : 2.0);
  const double master = (is_mixed(train.precision) || train.precision == Precision::fp32) ? 4.0 : 2.0;
  const double state = optimizer_state_bytes(train.optimizer);
  j.opt_update_bytes = 2.0 * (master + state) + j.grad_bytes + (is_mixed(train.precision) ? 2.0 : 0.0);
  return j;
}

Result<Ctx> make_ctx(const JobPart& j, const ModelSpec& model, const TrainConfig& train, const GpuSpec& gpu,
                     const Offer& offer) {
  Ctx c;
  c.model = &model;
  c.train = &train;
  c.gpu = &gpu;
  c.hopper = gpu.arch == "Hopper";
  c.offer = &offer;
  if (j.has_early) return Error{j.early_field, j.early_message};
  if (offer.gpu_count <= 0) return Error{"offer/gpu_count", "must be at least 1"};
  if (!(gpu_capacity_bytes(gpu) > 0)) return Error{"gpu/memory_bytes", "GPU memory is unknown"};
  if (!(gpu.mem_bandwidth_GBps > 0)) return Error{"gpu/mem_bandwidth_GBps", "GPU memory bandwidth is unknown"};
  if (j.has_late) return Error{j.late_field, j.late_message};

  c.params = j.params;
  for (int i = 0; i < 3; ++i) c.flops[i] = j.flops[i];
  c.precision = resolve_precision(train.precision, gpu);
  c.peak = dense_peak_flops(gpu, c.precision);
  if (!(c.peak > 0)) {
    std::string msg = gpu.name.empty() ? gpu.id : gpu.name;
    msg += " has no dense ";
    msg += compute_dtype_name(c.precision);
    msg += " tensor throughput in the snapshot; choose another precision";
    return Error{"precision", msg};
  }
  c.hbm_Bps = achievable_memory_bandwidth(gpu);
  c.base_eff = compute_efficiency(gpu, model, train, 1, 1.0);
  const double attn_ratio = c.base_eff.overridden ? 1.0 : fp8_attention_rate_ratio(gpu, train);
  for (int i = 0; i < 3; ++i) c.attn_factor[i] = 1.0 + j.attn_share[i] * (1.0 / attn_ratio - 1.0);
  if (!c.base_eff.overridden && train.attention == Attention::flash &&
      framework_profile(train.framework).attention_end_to_end > 0) {
    c.attn_rate = dense_peak_flops(gpu, Precision::bf16_mixed) *
                  attention_efficiency(gpu, j.seq, framework_profile(train.framework).attention_fa2) *
                  framework_profile(train.framework).attention_end_to_end;
    for (int i = 0; i < 3; ++i) c.attn_share[i] = j.attn_share[i];
  }
  c.width = j.width;
  c.kv_width = j.kv_width;
  c.q_width = model.num_heads > 0 ? static_cast<double>(model.num_heads) * static_cast<double>(effective_head_dim(model))
                                  : j.width;
  c.ulysses = resolved_cp_scheme(train) == CpScheme::ulysses;
  c.expert_share = j.expert_share;
  c.expert_params = j.params.expert;
  c.topk = j.topk;
  c.experts = j.experts;
  c.expert_width = j.expert_width;
  c.moe_layers = j.moe_layers;
  c.expert_matrices = c.expert_params / std::max(1.0, c.experts * c.moe_layers * c.width * c.expert_width);
  c.layers = j.layers;
  c.seq = j.seq;
  c.g = offer.gpu_count;
  c.act_bytes = j.act_bytes;
  c.weight_bytes = j.weight_bytes;
  c.weight_read_bytes = j.weight_read_bytes;
  c.lora = j.lora;
  c.trainable = j.trainable;
  c.grad_bytes = j.grad_bytes;
  c.opt_update_bytes = j.opt_update_bytes;
  // Host memory bandwidth for CPU Adam: ~1.5 GB/s per vCPU up to 150 GB/s per node (assumption: a two-socket
  // DDR4/DDR5 server streams 150-300 GB/s; CPU Adam does not reach the full figure).
  c.host_Bps = (offer.vcpus > 0 ? std::min(150.0, offer.vcpus * 1.5) : 50.0) * 1e9;
  c.pcie_Bps = pcie_x16_GBps(gpu.pcie_gen) * 1e9 * 0.8;  // pinned-memory cudaMemcpy reaches ~80% of x16
  return c;
}

}  // namespace trainfit::planner_model
