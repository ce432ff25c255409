// trainfit core — the planner's time model, shared by the planner's files: the per-instance context (Ctx), the
// links of a layout, the step time of one fully specified layout (perf.h model: compute at the calibrated
// efficiency with an HBM roofline floor, alpha-beta collectives with documented overlap, the 1F1B bubble, the
// optimizer update and CPU-offload traffic), and the job's half of the context. planner_model.cpp defines them,
// planner_step.cpp the step time; the planner's search (planner_search.h) times layouts with them. Internal to
// the core.
#pragma once
#include <cstdint>
#include <string>

#include "trainfit/estimate/memory.h"
#include "trainfit/estimate/perf.h"
#include "trainfit/estimate/planner.h"

namespace trainfit::planner_model {

inline int rc_index(Recompute r) { return r == Recompute::none ? 0 : (r == Recompute::selective ? 1 : 2); }
inline constexpr Recompute kRcModes[3] = {Recompute::none, Recompute::selective, Recompute::full};
// A mixed precision (bf16, fp16 or fp8 mixed; "auto" counts as one).
inline bool is_mixed(Precision p) {
  return p == Precision::bf16_mixed || p == Precision::fp16_mixed || p == Precision::fp8_mixed || p == Precision::automatic;
}

struct Ctx {
  const ModelSpec* model = nullptr;
  const TrainConfig* train = nullptr;
  const GpuSpec* gpu = nullptr;
  bool hopper = false;  // gpu->arch is Hopper (framework.h moe_gemm_call_s)
  const Offer* offer = nullptr;
  ParamCounts params;
  LoraParams lora;
  FlopsPerToken flops[3];
  Precision precision = Precision::bf16_mixed;  // the job's precision resolved for this GPU ("auto")
  double peak = 0;
  double hbm_Bps = 0;
  Efficiency base_eff;
  // Compute-time factor of each recompute mode (rc_index) for FP8 attention at the BF16 rate (perf.h
  // fp8_attention_rate_ratio): 1 + attention share of the hardware FLOPs x (GEMM rate / attention rate - 1); 1 when
  // the precision is not fp8-mixed or the factor is overridden by a fixed efficiency (mfu).
  double attn_factor[3] = {1, 1, 1};
  // Fused (FlashAttention) jobs: the attention-score FLOPs run at attn_rate (FLOP/s, perf.h attention_efficiency
  // at the job's sequence length on the BF16 peak), the rest at the layout's GEMM rate; step_time then uses
  // 1 + attn_share x (GEMM rate / attn_rate - 1) in place of attn_factor. 0: attn_factor applies (eager
  // attention, a fixed efficiency).
  double attn_rate = 0;
  double attn_share[3] = {0, 0, 0};
  double width = 0;              // hidden size (estimated for params_only)
  double kv_width = 0;           // K/V width per token (num_kv_heads x head_dim; width for params_only)
  double q_width = 0;            // query (and attention output) width per token: num_heads x head_dim
  bool ulysses = false;          // context parallelism by head-scattering all-to-alls (job.h CpScheme::ulysses)
  double layers = 0;             // layer count (estimated for params_only)
  double seq = 0;
  int g = 1;                     // GPUs per node
  double act_bytes = 2;          // activation / TP message dtype
  double weight_bytes = 2;       // bytes per base weight as stored (QLoRA: NF4 + constants)
  double weight_read_bytes = 2;  // bytes per weight the matmuls read
  double trainable = 0;
  double grad_bytes = 2;         // gradient dtype on the wire
  double opt_update_bytes = 0;   // HBM bytes per trainable parameter per optimizer step
  double cpu_opt_bytes = 28;     // host bytes per parameter for CPU Adam (fp32 param, grad, m, v)
  double host_Bps = 0;           // host memory bandwidth per node available to the CPU optimizer
  double pcie_Bps = 0;           // GPU <-> host, per GPU
  // Mixture of experts (zero for dense models): the routed experts' share of the forward FLOPs per token, their
  // parameter count, tokens routed per token (top-k), expert count, expert MLP width, MoE layers.
  double expert_share = 0;
  double expert_params = 0;
  double topk = 0, experts = 0, expert_width = 0, moe_layers = 0;
  double expert_matrices = 0;  // weight matrices of one expert MLP (3 gated, 2 plain), from the routed parameters
};

struct Links {
  Link tp, dp, pp, cp;  // dp: the gradient group, data x context parallel ranks
  bool tp_over_pcie = false;
  const char* excluded = nullptr;
};

Links layout_links(const Ctx& c, int nodes, int tp, int pp, int dp, int cp = 1);

// Terms of a step time that depend only on the layout (TP, PP, DP, links) and the micro-batch, not on ZeRO,
// recompute or offload. The searcher times up to a dozen groups per layout and micro-batch, so step_time keeps
// these here once computed (the collectives' log2 and divisions were a fifth of a ranking). A cached value
// is the same expression with the same inputs: step times are bit-identical with or without the caches.
struct MbTerms {  // one layout at one micro-batch
  bool filled = false;
  double eff = 0;     // compute efficiency, clamped
  double tp_ar = 0;   // one TP all-reduce of the micro-batch's activations (tp > 1)
  double pp_p2p = 0;  // one pipeline send (pp > 1)
  double cp_ring = 0; // one context-parallel ring step: a K/V block to the next rank (cp > 1)
  double eff_expert = 0;  // compute efficiency of the routed experts' grouped GEMMs (MoE)
  double a2a = 0;         // one MoE token all-to-all (dispatch or combine) over the EP group (ep > 1)
  double expert_rows = 1; // the busiest GPU's routed rows over the balanced share (job.h moe_rows_factor)
};
struct DpTerms {  // one layout: its data-parallel collectives' times, each filled on first use (< 0: not yet)
  double ar = -1, ar_tail = -1;          // ZeRO 0-1
  double rs = -1;                        // ZeRO 2 and 3, the distributed optimizer
  double rs_tail = -1, ag_updated = -1;  // ZeRO 2, the distributed optimizer
  double ag_params = -1, ag_tail = -1;   // ZeRO 3
};

// The layout step_time times: parallel degrees, ZeRO stage, recompute mode, CPU offload, the micro-batch size `mb`
// and the micro-batches per step `m`. `sp`: sequence parallel with tp > 1, which shards the norms and dropout over
// the TP ranks too (the efficiency's width factor). ep / etp: expert parallel and expert tensor parallel degrees
// (etp 0 = tp; job.h ParallelConfig).
struct StepLayout {
  int tp = 1, pp = 1, dp = 1, zero = 0;
  Recompute rc = Recompute::none;
  bool off_opt = false, off_par = false;
  int64_t mb = 1, m = 1;
  int cp = 1, vp = 1;
  bool sp = false;
  int ep = 1, etp = 0;
};

// The step time of one fully specified layout (planner_step.cpp): returns its total seconds and the
// pipeline-bubble part in `bubble_out`; `out` (may be null: the search needs only the two) gets the whole
// breakdown, `eff_out` the compute efficiency. `mbt` and `dpt` (may be null) cache the layout's terms above. The
// parts are locals, written to `out` once at the end (no zeroed StepTime per evaluation).
double step_time(const Ctx& c, const Links& links, const StepLayout& layout, StepTime* out, double* eff_out,
                 double* bubble_out, MbTerms* mbt, DpTerms* dpt);

// The half of a Ctx that depends only on the job (model and training setup), with its errors split by where
// make_ctx reports them: `early` before the instance's figures are checked, `late` after them (so a plan
// built from a prepared job fails with the same error as one built from scratch).
struct JobPart {
  std::string early_field, early_message;  // seq_len / micro_batch / global_batch
  std::string late_field, late_message;    // headroom, compute_efficiency, parameter count, FLOPs
  bool has_early = false, has_late = false;
  ParamCounts params;
  LoraParams lora;
  FlopsPerToken flops[3];
  double attn_share[3] = {0, 0, 0};  // attention-score part of flops[i].hardware (forward, backward, recomputed)
  double kv_width = 0;  // num_kv_heads x head_dim: the K and V width a context-parallel ring sends
  double expert_share = 0, topk = 0, experts = 0, expert_width = 0, moe_layers = 0;  // Ctx's MoE terms
  double width = 0, layers = 0, seq = 0, act_bytes = 2, weight_bytes = 2, weight_read_bytes = 2, trainable = 0,
         grad_bytes = 2, opt_update_bytes = 0;
};

JobPart job_part(const ModelSpec& model, const TrainConfig& train);

// A Ctx for one instance type from the job's half: the checks in make_ctx's order, then the instance's figures.
Result<Ctx> make_ctx(const JobPart& j, const ModelSpec& model, const TrainConfig& train, const GpuSpec& gpu,
                     const Offer& offer);

}  // namespace trainfit::planner_model
