// trainfit core — the step time of one fully specified layout (planner_model.h step_time), in named stages: the
// layout's shape, its per-micro-batch terms, compute with the HBM floor, each collective and its overlap, the 1F1B
// bubble, the data-parallel collectives, the optimizer update and CPU-offload traffic.
//
// Index of sections:
//   ---- assumptions ----            overlap, DDP bucket, offload and activation-traffic constants
//   ---- data-parallel groups ----   dp_collectives: one gradient group's ZeRO collectives
//   ---- shape ----                  StepShape: stage factor, shards, tokens per micro-batch, expert split
//   ---- micro-batch terms ----      MbTerms: efficiency, one TP / PP / CP / EP collective (cached per layout)
//   ---- compute ----                model and recompute time, roofline floor, QLoRA dequantisation
//   ---- micro-batch collectives ---- TP, PP, CP and EP per micro-batch and the part of each left exposed
//   ---- pipeline bubble ----        1F1B fill and drain
//   ---- data parallel ----          the step's gradient groups (dense, experts)
//   ---- optimizer ----              optimizer update and CPU-offload traffic
//   ---- step_time ----              the stages put together
#include "estimate/planner_model.h"

#include "trainfit/catalog/framework.h"

#include <algorithm>
#include <cmath>

namespace trainfit::planner_model {
namespace {

// ---- assumptions ----

// Fraction of a compute window in which a collective can run hidden (PyTorch DDP overlaps bucketed
// all-reduce with backward, Li et al. 2020 VLDB §3.2.3; FSDP/ZeRO-3 prefetch the next all-gather). The rest of
// the window is lost to SM and memory contention. Assumption, checked against the MosaicML FSDP rows.
constexpr double kOverlap = 0.8;
// DDP's default bucket: the last bucket's collective starts only after backward ends (Li et al. 2020 §3.2.3).
constexpr double kBucketBytes = 25e6;
// CPU offload: D2H gradient and H2D parameter copies overlap half with compute (ZeRO-Offload, Ren et al.
// 2021 §4.2 one-step delayed update not assumed). Assumption.
constexpr double kOffloadExposed = 0.5;
// Korthikanti et al. 2022 Table 2: ~34 s*b*h bytes of activations per layer are written in forward and read in
// backward; the roofline counts that traffic twice.
constexpr double kActBytesPerTokenHidden = 34.0 * 2.0;

// ---- data-parallel groups ----

// A collective of the layout, timed on its first use and cached in `slot` (DpTerms).
double once(double& slot, Collective k, double bytes, int n, const Link& L) {
  if (slot < 0) slot = collective_time_s(k, bytes, n, L);
  return slot;
}

// The data-parallel collectives of one gradient group of n ranks on link L (ZeRO, Rajbhandari et al. 2020 §7:
// stage 0-2 move 2 Psi per step, stage 3 3 Psi), for this GPU's gradient, parameter and updated-parameter bytes:
// their total time and the part not hidden behind the step's forward / backward windows. `dt` caches the
// collectives of a layout (DpTerms).
void dp_collectives(const FrameworkProfile& fw, int zero, double mm, double grads, double params, double updated, int n,
                    const Link& L, double fwd_win, double bwd_win, DpTerms& dt, double& dp_comm_s, double& dp_exposed_s) {
  const double grad_bucket = std::min(grads, kBucketBytes);
  if (zero == 2 || (zero == 1 && (fw.dp_overlap_param_gather || fw.zero1_gather_after_step))) {
    // Stage 2: gradients are reduce-scattered every micro-batch (partitioned gradients, DeepSpeed stage 2), the
    // updated parameters all-gathered once per step, behind the next forward. Megatron-Core's distributed
    // optimizer (stage 1) with --overlap-grad-reduce and --overlap-param-gather: the same collectives once per
    // step, the reduce-scatter bucket by bucket behind the last micro-batch's backward and the all-gather of the
    // updated 16-bit parameters behind the next step's forward (Megatron-LM distributed/param_and_grad_buffer.py;
    // framework.h dp_overlap_param_gather). Each is hidden up to kOverlap of its window. A framework that gathers
    // after the optimizer step (framework.h zero1_gather_after_step: nanotron) leaves that all-gather exposed.
    const double per_step = zero == 2 ? mm : 1.0;
    const double rs = once(dt.rs, Collective::reduce_scatter, grads, n, L);
    const double tail = once(dt.rs_tail, Collective::reduce_scatter, grad_bucket, n, L);
    const double ag = once(dt.ag_updated, Collective::all_gather, updated, n, L);
    const bool ag_hidden = zero == 2 || fw.dp_overlap_param_gather;
    dp_comm_s = per_step * rs + ag;
    dp_exposed_s = per_step * std::max(tail, rs - kOverlap * bwd_win) +
                   (ag_hidden ? std::max(0.0, ag - kOverlap * fwd_win) : ag);
  } else if (zero <= 1) {
    // One all-reduce (stage 1: reduce-scatter + all-gather of the same volume) with no_sync accumulation:
    // hidden behind the last micro-batch's backward except the last bucket.
    const double ar = once(dt.ar, Collective::all_reduce, grads, n, L);
    const double tail = once(dt.ar_tail, Collective::all_reduce, grad_bucket, n, L);
    dp_comm_s = ar;
    dp_exposed_s = std::max(tail, ar - kOverlap * bwd_win);
  } else {
    // Stage 3 / FSDP full shard: all-gather parameters for forward and again for backward, reduce-scatter
    // gradients, every micro-batch; prefetch hides them behind the layer computations.
    const double ag = once(dt.ag_params, Collective::all_gather, params, n, L);
    const double rs = once(dt.rs, Collective::reduce_scatter, grads, n, L);
    const double tail = once(dt.ag_tail, Collective::all_gather, std::min(params, kBucketBytes), n, L);
    dp_comm_s = mm * (2.0 * ag + rs);
    dp_exposed_s = mm * (std::max(tail, ag - kOverlap * fwd_win) + std::max(tail, ag + rs - kOverlap * bwd_win));
  }
}

// ---- shape ----

// The sizes every stage of a step reads, derived from the layout once.
struct StepShape {
  double stage = 1;         // heaviest pipeline stage / an even share
  double shard = 1;         // tp x pp / stage: the dense parameters' split
  double tok = 0;           // tokens per micro-batch per GPU
  double mm = 1;            // micro-batches per step
  int etp_r = 1;            // expert tensor parallel degree, resolved
  bool moe = false;         // routed experts in the FLOPs
  bool expert_split = false;  // the experts are sharded apart from the dense part
  double shard_e = 1;       // ep x etp x pp / stage: the experts' split
  double dense_params = 0;  // parameters outside the routed experts
  double full_method = 0;   // 1 in full training (experts are trained), else 0
  int dpg = 1;              // the gradient group: DP x CP ranks
  double edp = 1;           // expert data-parallel ranks
};

StepShape step_shape(const Ctx& c, const StepLayout& s) {
  const TrainConfig& t = *c.train;
  const int tp = s.tp, pp = s.pp, dp = s.dp, cp = s.cp, vp = s.vp, ep = s.ep, etp = s.etp;
  const int64_t mb = s.mb, m = s.m;
  StepShape sh;
  // Uneven pipeline stages (framework.h uneven_pp): the pipeline runs at the pace of its heaviest stage, which
  // holds `stage` times an even share of the model (1 when pp x vp divides the layers); its compute, weights,
  // gradients and collectives are what the step waits for.
  const double stage = pipeline_stage_factor(c.model ? c.model->num_layers : 0, pp, vp);
  sh.stage = stage;
  sh.shard = static_cast<double>(tp) * static_cast<double>(pp) / stage;
  // Context parallelism splits each sequence over cp ranks: a GPU computes mb x seq / cp tokens per micro-batch
  // (Megatron-Core context parallel; the attention's causal load is balanced by its chunk reordering).
  sh.tok = static_cast<double>(mb) * c.seq / static_cast<double>(std::max(1, cp));
  sh.mm = static_cast<double>(m);
  // Expert parallelism: the routed experts live on ep x etp ranks per stage instead of tp (memory.cpp), so this
  // GPU's parameters, gradients and optimizer shard are the dense part over tp plus the experts over ep x etp.
  const int etp_r = etp > 0 ? etp : tp;
  sh.etp_r = etp_r;
  sh.moe = c.expert_share > 0;
  sh.expert_split = c.expert_params > 0 && (ep > 1 || etp_r != tp);
  sh.shard_e = static_cast<double>(ep) * etp_r * pp / stage;
  sh.dense_params = c.params.total - c.expert_params;
  sh.full_method = t.method == Method::full ? 1.0 : 0.0;  // experts are trained only in full training
  const int dpg = dp * std::max(1, cp);  // gradients are reduced (and ZeRO states sharded) over DP x CP ranks
  sh.dpg = dpg;
  // Expert parallelism: the dense parameters' gradients are reduced over the DP x CP ranks, the experts' over the
  // expert data-parallel ranks, tp x dp x cp / (ep x etp), laid out after the EP ranks (Megatron-Core's expert
  // rank order etp-ep-edp-pp; torchtitan's dp_shard_mod_ep mesh), each group with its own bytes and link.
  sh.edp = static_cast<double>(tp) * dpg / (static_cast<double>(ep) * etp_r);
  return sh;
}

// ---- micro-batch terms ----

// The routed experts' grouped-GEMM efficiency and one token all-to-all over the EP group (MoE).
void fill_expert_terms(const Ctx& c, const StepLayout& s, const StepShape& sh, const FrameworkProfile& fw,
                       MbTerms& mt) {
  const int tp = s.tp, ep = s.ep;
  const bool sp = s.sp;
  const double tok = sh.tok;
  const int etp_r = sh.etp_r;
  // The routed experts run as grouped GEMMs of tokens-per-expert rows (Megatron-Core --moe-grouped-gemm,
  // torchtitan torch._grouped_mm): each of the ep x (E / ep) experts of the EP group gets k x its tokens / E
  // of the group's tokens (balanced routing); sequence parallelism gives each TP rank its own tokens/tp when
  // the experts are not TP-split (etp < tp); without it every TP rank holds every token. The GEMMs are as narrow
  // as the expert MLP width per etp rank.
  const double tok_rank = tp > 1 && sp && etp_r < tp ? tok / tp * etp_r : tok;
  // The busiest GPU's rows over the balanced share (job.h moe_rows_factor: padded capacity, or dropless imbalance
  // under EP): its grouped GEMMs, and its dispatch and combine, set the pace of the synchronous layer.
  const double rows = moe_rows_factor(*c.train, ep);
  mt.expert_rows = rows;
  const double per_expert = tok_rank * c.topk * ep / std::max(1.0, c.experts) * rows;
  const double width_e = std::min(c.width, c.expert_width / etp_r);
  // The experts' factor: on Hopper under a profile that models the per-call cost (framework.h moe_gemm_call_s), each
  // local expert's T seconds of GEMMs (6 x rows x hidden x width x the MLP's matrices FLOPs, forward and backward)
  // beside its 6 calls; elsewhere the profile's grouped-GEMM factor at the rows' micro-batch factor.
  const bool per_call = fw.moe_gemm_call_s > 0 && c.hopper;
  const double base = c.base_eff.generation * gemm_width_factor(width_e) *
                      (per_call ? fw.moe_call_efficiency : fw.moe_efficiency) * c.base_eff.method *
                      c.base_eff.framework * c.base_eff.scale;
  double rows_f = microbatch_factor(per_expert);
  if (per_call) {
    const double t_gemms = 6.0 * per_expert * c.width * (c.expert_width / etp_r) * c.expert_matrices / (c.peak * base);
    if (t_gemms > 0 && std::isfinite(t_gemms)) rows_f = t_gemms / (t_gemms + 6.0 * fw.moe_gemm_call_s);
  }
  const double ee = c.base_eff.overridden ? c.base_eff.value : base * rows_f;
  mt.eff_expert = std::clamp(ee, 1e-3, 1.0);
  // Token dispatch and combine (Megatron-Core MoEAlltoAllTokenDispatcher; torchtitan expert parallel
  // all-to-all): each rank sends k copies of its tokens' hidden states, in the activation dtype; the EP group
  // is laid out after the expert-TP ranks (Megatron-Core's expert rank order etp-ep-edp-pp).
  if (ep > 1) {
    const double bytes = (tp > 1 && sp ? tok / tp : tok) * c.topk * c.width * c.act_bytes * rows;
    const int per_node_ep = std::min(ep, std::max(1, c.g / etp_r));
    // The job's dispatcher (framework.h resolved_moe_dispatch: the query's moe.dispatcher or the framework's). One
    // that sends a token once per destination node moves the cross-node share of its k copies once per distinct
    // node: N (1 - (1 - 1/N)^k) of k for N nodes in the group and uniform routing (DeepEP, Liu et al. 2024
    // DeepSeek-V3 §3.2.2: node-then-GPU forwarding).
    const MoeDispatch d = resolved_moe_dispatch(*c.train);
    double cross = 1.0;
    if (d.per_node && ep > per_node_ep) {
      const double nodes = static_cast<double>(ep) / per_node_ep;
      cross = nodes * (1.0 - std::pow(1.0 - 1.0 / nodes, c.topk)) / c.topk;
    }
    // The framework's own cost per byte dispatched (framework.h moe_dispatch_overhead_s_per_GB: torchtitan's
    // default all-to-all path; none under DeepEP) runs on the critical path with the transfer.
    mt.a2a = all_to_all_time_s(bytes, ep, per_node_ep, *c.offer, *c.gpu, cross) + bytes / 1e9 * d.overhead_s_per_GB;
  }
}

// The terms of one layout at one micro-batch (MbTerms): the compute efficiency and one of each per-micro-batch
// collective.
void fill_mb_terms(const Ctx& c, const Links& links, const StepLayout& s, const StepShape& sh,
                   const FrameworkProfile& fw, MbTerms& mt) {
  const int tp = s.tp, pp = s.pp, cp = s.cp;
  const bool sp = s.sp;
  const double tok = sh.tok;
  // The width factor stands for the non-GEMM (memory-bound) share of a layer, which grows as h shrinks: GEMM
  // FLOPs per token go as h^2, norms, activations and residual adds as h. TP divides the GEMMs by tp; without
  // sequence parallelism the norms and dropout stay replicated on every TP rank, so the share is that of a
  // model of width h / tp. Sequence parallelism splits them along the sequence too (Korthikanti et al. 2022
  // §4.2.2), so every part of the layer is divided by tp and the share is that of the full width h.
  const double gemm_width = sp && tp > 1 ? c.width : c.width / tp;
  double e = c.base_eff.overridden
                 ? c.base_eff.value
                 : c.base_eff.generation * gemm_width_factor(gemm_width) * microbatch_factor(tok) * c.base_eff.method *
                       c.base_eff.framework * c.base_eff.scale;
  mt.eff = std::clamp(e, 1e-3, 1.0);
  if (tp > 1) mt.tp_ar = collective_time_s(Collective::all_reduce, tok * c.width * c.act_bytes, tp, links.tp);
  if (pp > 1) mt.pp_p2p = p2p_time_s(tok * c.width * c.act_bytes / tp, links.pp);
  // Ring: one K/V block per ring step. Ulysses: per layer the all-to-alls of q, k, v before attention and of its
  // output after (Jacobs et al. 2023 §3.1, 4 all-to-alls); each rank scatters (cp - 1) / cp of its local tokens'
  // part, the volume of an all-gather over the same ranks (perf.h collective_time_s).
  if (cp > 1 && !c.ulysses) mt.cp_ring = p2p_time_s(2.0 * tok * c.kv_width / tp * c.act_bytes, links.cp);
  if (cp > 1 && c.ulysses)
    mt.cp_ring = collective_time_s(Collective::all_gather, tok * (2.0 * c.q_width + 2.0 * c.kv_width) / tp * c.act_bytes,
                                   cp, links.cp);
  if (sh.moe) fill_expert_terms(c, s, sh, fw, mt);
  mt.filled = true;
}

// ---- compute ----

struct ComputeTimes {
  double t_model = 0;      // model FLOPs of one micro-batch
  double t_rc = 0;         // recomputation (and QLoRA dequantisation) of one micro-batch
  double base_params = 0;  // this GPU's base parameters (dense over tp x pp, experts over ep x etp x pp)
  bool memory_bound = false;
};

ComputeTimes compute_times(const Ctx& c, const StepLayout& s, const StepShape& sh, const MbTerms& mt) {
  const TrainConfig& t = *c.train;
  const Recompute rc = s.rc;
  const FlopsPerToken& f = c.flops[rc_index(rc)];
  const double shard = sh.shard, tok = sh.tok, shard_e = sh.shard_e, dense_params = sh.dense_params;
  const bool moe = sh.moe, expert_split = sh.expert_split;
  const double eff = mt.eff;
  const double rate = c.peak * eff;
  // Seconds per FLOP: the routed experts' share at their grouped-GEMM rate, the rest at the layer's rate.
  const double inv_rate =
      moe ? (1.0 - c.expert_share) / rate + c.expert_share * mt.expert_rows / (c.peak * mt.eff_expert) : 1.0 / rate;

  // Compute per micro-batch per GPU; the roofline floor: weights read once per pass (forward, input-grad,
  // weight-grad, recomputed forward) plus activation traffic, at the achievable HBM bandwidth.
  // The attention-score share runs at the fused-attention rate (Ctx attn_rate), eager attention at the GEMM rate
  // except under FP8, where it keeps the BF16 rate (Ctx attn_factor; 1 otherwise).
  const double af = c.attn_rate > 0 ? 1.0 + c.attn_share[rc_index(rc)] * (rate / c.attn_rate - 1.0)
                                    : c.attn_factor[rc_index(rc)];
  ComputeTimes ct;
  double t_model = moe ? f.model * tok / shard * inv_rate * af : f.model * tok / shard / rate * af;
  double t_rc = moe ? f.recompute * tok / shard * inv_rate * af : f.recompute * tok / shard / rate * af;
  const double passes = (t.method == Method::full ? 3.0 : 2.0) + (rc == Recompute::full ? 1.0 : 0.0);
  const double base_params =
      expert_split ? dense_params / shard + c.expert_params / shard_e : c.params.total / shard;
  const double bytes_mb = passes * base_params * c.weight_read_bytes +
                          kActBytesPerTokenHidden * tok * c.width * c.layers / shard;
  const double t_mem = bytes_mb / c.hbm_Bps;
  bool memory_bound = false;
  if (t_mem > t_model + t_rc) {
    const double scale = t_mem / std::max(1e-30, t_model + t_rc);  // HBM-bound: the floor sets the pace
    t_model *= scale;
    t_rc *= scale;
    memory_bound = true;
  }
  // QLoRA dequantises every NF4 weight before each use: read 0.5 B, write 2 B (Dettmers et al. 2023 §3,
  // bitsandbytes dequantize kernels are memory bound).
  if (t.method == Method::qlora) t_rc += passes * base_params * (c.weight_bytes + 2.0) / c.hbm_Bps;
  ct.t_model = t_model;
  ct.t_rc = t_rc;
  ct.base_params = base_params;
  ct.memory_bound = memory_bound;
  return ct;
}

// ---- micro-batch collectives ----

struct MbComm {  // one micro-batch's collectives on one GPU: total and exposed (on the critical path)
  double t_tp = 0, t_tp_exposed = 0;
  double t_pp = 0, t_pp_exposed = 0;
  double t_cp = 0, t_cp_exposed = 0;
  double t_ep = 0, t_ep_exposed = 0;
};

// Tensor parallel: Megatron's f/g operators all-reduce b*s*h activations twice per layer in forward and twice
// in backward (Narayanan et al. 2021 §2.3 / Shoeybi et al. 2019 Fig. 3); full recompute repeats the forward
// pair. Sequence parallel swaps each for reduce-scatter + all-gather of equal volume (Korthikanti §4.2.2).
// Synchronous: on the critical path.
double tp_time(const Ctx& c, const StepLayout& s, const StepShape& sh, const MbTerms& mt) {
  const int tp = s.tp, pp = s.pp;
  const Recompute rc = s.rc;
  const double stage = sh.stage;
  double t_tp = 0;
  if (tp > 1) {
    double n_ar = 4.0 + (rc == Recompute::full ? 2.0 : 0.0);
    // Megatron-Core's module recompute re-runs a dense MLP's or a shared expert's sequence-parallel gather and
    // scatter (one pair) in the layers that have them.
    const uint32_t mods = c.train->recompute_modules;
    if (rc == Recompute::selective && c.layers > 0) {
      const double moe_frac = std::clamp(c.moe_layers / c.layers, 0.0, 1.0);
      if (mods & kRecomputeMlp) n_ar += 1.0 - moe_frac;
      if ((mods & (kRecomputeSharedExperts | kRecomputeMoe)) && c.model && c.model->shared_expert_intermediate_size > 0)
        n_ar += moe_frac;
    }
    t_tp = n_ar * (c.layers / pp * stage) * mt.tp_ar;  // all-reduce of tok x width activations over the TP group
  }
  return t_tp;
}

// Pipeline: one activation send forward and one gradient send backward per micro-batch per stage, split
// across the TP ranks (scatter/gather optimisation, Narayanan et al. 2021 §4.1).
// Interleaved 1F1B (v chunks per rank) sends v times as often (Narayanan et al. 2021 §2.2.2).
double pp_time(const StepLayout& s, const MbTerms& mt) {
  const int pp = s.pp, vp = s.vp;
  double t_pp = 0;
  if (pp > 1) t_pp = 2.0 * mt.pp_p2p * static_cast<double>(std::max(1, vp));  // p2p of tok x width / tp activations
  return t_pp;
}

// Context parallel (ring attention, Liu et al. 2023; Megatron-Core CP): every layer passes its K/V block
// around the ring, cp - 1 steps in forward and twice that in backward (K/V and their gradients), overlapped
// with the attention blocks; the part beyond kOverlap of the micro-batch's compute is exposed (assumption).
void cp_times(const Ctx& c, const StepLayout& s, const StepShape& sh, const MbTerms& mt, double t_work, MbComm& mc) {
  const int pp = s.pp, cp = s.cp;
  const double stage = sh.stage;
  double t_cp = 0, t_cp_exposed = 0;
  if (cp > 1 && !c.ulysses) {
    t_cp = (c.layers / pp * stage) * 3.0 * static_cast<double>(cp - 1) * mt.cp_ring;
    // accelerate's ring (framework.h ring_cp_fsdp2) all-gathers the other ranks' K/V shards once per attention
    // call (cp_comm_strategy allgather, its default) and waits for them after the local block: "the all-gather kernel
    // results in a bubble of idle time" (accelerate docs concept_guides/context_parallelism, "all-to-all vs
    // all-gather"), so its traffic counts as exposed; a ring that passes blocks hides it behind the compute.
    t_cp_exposed = framework_profile(c.train->framework).ring_cp_fsdp2 ? t_cp : std::max(0.0, t_cp - kOverlap * t_work);
  } else if (cp > 1) {
    // Ulysses: the layer's all-to-alls in forward and again (their gradients) in backward, on the critical path
    // (attention waits for its heads; DeepSpeed's DistributedAttention does not overlap them).
    t_cp = (c.layers / pp * stage) * 2.0 * mt.cp_ring;
    t_cp_exposed = t_cp;
  }
  mc.t_cp = t_cp;
  mc.t_cp_exposed = t_cp_exposed;
}

// Expert parallel all-to-alls: dispatch and combine in forward and again in backward (their gradients), once
// more in a recomputed forward, per MoE layer of the stage; synchronous unless the job overlaps them
// (mb_collectives).
double ep_time(const Ctx& c, const StepLayout& s, const StepShape& sh, const MbTerms& mt) {
  const int pp = s.pp, ep = s.ep;
  const Recompute rc = s.rc;
  const double stage = sh.stage;
  double t_ep = 0;
  if (ep > 1 && sh.moe) {
    // A recomputed MoE block (full, or Megatron-Core's `moe` module) dispatches and combines once more.
    const bool again = rc == Recompute::full || (rc == Recompute::selective && (c.train->recompute_modules & kRecomputeMoe));
    const double n_a2a = 4.0 + (again ? 2.0 : 0.0);
    t_ep = n_a2a * (c.moe_layers / pp * stage) * mt.a2a;
  }
  return t_ep;
}

MbComm mb_collectives(const Ctx& c, const StepLayout& s, const StepShape& sh, const FrameworkProfile& fw,
                      const MbTerms& mt, double t_work) {
  const int vp = s.vp;
  MbComm mc;
  mc.t_tp = tp_time(c, s, sh, mt);
  mc.t_pp = pp_time(s, mt);
  const double t_tp = mc.t_tp, t_pp = mc.t_pp;
  // Frameworks that overlap the TP collectives with the GEMMs that produce or consume them (framework.h
  // tp_comm_overlap: Megatron-Core's --tp-comm-overlap, Transformer Engine userbuffers, which pipeline the
  // sequence-parallel all-gather / reduce-scatter in chunks behind the column / row GEMMs; Wang et al. 2022,
  // "Overlap communication with dependent computation via decomposition") hide up to kOverlap of the
  // micro-batch's compute window; at least (1 - kOverlap) of the traffic stays exposed (the first and last chunk,
  // SM contention). Without it the TP traffic is synchronous: all of it on the critical path; so it is without
  // sequence parallelism, which the userbuffers overlap needs (Megatron-LM arguments.py: --tp-comm-overlap requires
  // --sequence-parallel; the recipes write it only with SP).
  const bool tp_overlap = fw.tp_comm_overlap && (s.sp || s.tp == 1);
  mc.t_tp_exposed = tp_overlap ? std::max((1.0 - kOverlap) * t_tp, t_tp - kOverlap * t_work) : t_tp;
  cp_times(c, s, sh, mt, t_work, mc);
  // Megatron's interleaved schedule posts the next chunk's isend / irecv before computing the current one
  // (schedules.py with overlap_p2p_comm): hidden like the TP traffic above, at most kOverlap of it.
  mc.t_pp_exposed = vp > 1 && fw.pp_p2p_overlap_interleaved
                        ? std::max((1.0 - kOverlap) * t_pp, t_pp - kOverlap * t_work)
                        : t_pp;
  mc.t_ep = ep_time(c, s, sh, mt);
  // Megatron-Core's --overlap-moe-expert-parallel-comm (TrainConfig moe_a2a_overlap; off by default, and torchtitan
  // has none): the combined 1F1B schedule runs one micro-batch's dispatch and combine while the other computes
  // (megatron/core/pipeline_parallel/combined_1f1b.py), hidden like the TP traffic above in what is left of the
  // kOverlap window after the TP and CP traffic hidden there; at least (1 - kOverlap) stays exposed.
  mc.t_ep_exposed = mc.t_ep;
  if (runs_a2a_overlap(*c.train, s.ep)) {
    const double window =
        std::max(0.0, kOverlap * t_work - (mc.t_tp - mc.t_tp_exposed) - (mc.t_cp - mc.t_cp_exposed));
    mc.t_ep_exposed = std::max((1.0 - kOverlap) * mc.t_ep, mc.t_ep - window);
  }
  return mc;
}

// ---- pipeline bubble ----

// 1F1B: (p-1) extra micro-batch slots; bubble fraction (p-1)/(m+p-1) of the pipeline time
// (Narayanan et al. 2021 §2.2.1).
// Interleaving divides the bubble by v (Narayanan et al. 2021 §2.2.2: bubble fraction (p-1)/(v m)).
double bubble_time(const StepLayout& s, double t_stage) {
  const int pp = s.pp, vp = s.vp;
  return pp > 1 ? static_cast<double>(pp - 1) * t_stage / static_cast<double>(std::max(1, vp)) : 0.0;
}

// ---- data parallel ----

// Data parallel (ZeRO, Rajbhandari et al. 2020 §7: stage 0-2 move 2 Psi per step, stage 3 3 Psi): the dense
// gradient group over the DP x CP ranks and, with the experts split apart, the experts' over the expert
// data-parallel ranks; their total time and exposed part into `dp_comm_s` and `dp_exposed_s`.
void dp_times(const Ctx& c, const Links& links, const StepLayout& s, const StepShape& sh, const FrameworkProfile& fw,
              double fwd_win, double bwd_win, DpTerms* dpt, double& dp_comm_s, double& dp_exposed_s) {
  const TrainConfig& t = *c.train;
  const int zero = s.zero, ep = s.ep;
  const double mm = sh.mm, shard = sh.shard, shard_e = sh.shard_e, dense_params = sh.dense_params;
  const double full_method = sh.full_method, edp = sh.edp;
  const int etp_r = sh.etp_r, dpg = sh.dpg;
  const bool expert_split = sh.expert_split;
  if (!expert_split && dpg > 1) {
    const double grads = c.trainable / shard * c.grad_bytes;
    const double params = c.params.total / shard * c.weight_bytes;
    const double updated = c.trainable / shard * (is_mixed(t.precision) ? 2.0 : c.weight_bytes);
    DpTerms local_dp;
    dp_collectives(fw, zero, mm, grads, params, updated, dpg, links.dp, fwd_win, bwd_win, dpt ? *dpt : local_dp,
                   dp_comm_s, dp_exposed_s);
  } else if (expert_split) {
    const double up_bytes = is_mixed(t.precision) ? 2.0 : c.weight_bytes;
    const double dense_trainable = (c.trainable - full_method * c.expert_params) / shard;
    const double expert_trainable = full_method * c.expert_params / shard_e;
    if (dpg > 1) {
      DpTerms local_dp;
      dp_collectives(fw, zero, mm, dense_trainable * c.grad_bytes, dense_params / shard * c.weight_bytes,
                     dense_trainable * up_bytes, dpg, links.dp, fwd_win, bwd_win, dpt ? *dpt : local_dp, dp_comm_s,
                     dp_exposed_s);
    }
    const int n_edp = static_cast<int>(std::lround(edp));
    if (n_edp > 1) {
      const int per_node = std::min(n_edp, std::max(1, c.g / (ep * etp_r)));
      const Link le = group_link(*c.offer, *c.gpu, n_edp, per_node);
      DpTerms expert_dp;
      double comm = 0, exposed = 0;
      dp_collectives(fw, zero, mm, expert_trainable * c.grad_bytes, c.expert_params / shard_e * c.weight_bytes,
                     expert_trainable * up_bytes, n_edp, le, fwd_win, bwd_win, expert_dp, comm, exposed);
      dp_comm_s += comm;
      dp_exposed_s += exposed;
    }
  }
}

// ---- optimizer ----

// Optimizer update: memory bound on the GPU; CPU Adam is host-memory bound (ZeRO-Offload, Ren et al. 2021
// §4.1), all GPUs of a node sharing the host bandwidth. Offload traffic into `offload_s`.
double optimizer_time(const Ctx& c, const StepLayout& s, const StepShape& sh, double& offload_s) {
  const int tp = s.tp, pp = s.pp, zero = s.zero;
  const bool off_opt = s.off_opt;
  const double shard = sh.shard, shard_e = sh.shard_e, dense_params = sh.dense_params;
  const double full_method = sh.full_method, edp = sh.edp;
  const int dpg = sh.dpg;
  double opt_params = c.trainable / shard / (zero >= 1 ? static_cast<double>(dpg) : 1.0);
  if (sh.expert_split && full_method > 0) {
    opt_params = dense_params / shard / (zero >= 1 ? static_cast<double>(dpg) : 1.0) +
                 c.expert_params / shard_e / (zero >= 1 ? edp : 1.0);
  }
  double optimizer_s = 0;
  if (!off_opt) {
    optimizer_s = opt_params * c.opt_update_bytes / c.hbm_Bps;
  } else {
    const double gpus_on_node = std::min<double>(c.g, static_cast<double>(tp) * pp * dpg);
    optimizer_s = opt_params * c.cpu_opt_bytes * gpus_on_node / c.host_Bps;
    const double pcie = opt_params * (c.grad_bytes + 2.0) / c.pcie_Bps;  // grads down, 16-bit params up
    offload_s += kOffloadExposed * pcie;
  }
  return optimizer_s;
}

// ZeRO-Infinity style parameter offload: each GPU fetches its parameter partition from host memory for forward
// and backward; the part beyond kOverlap of the micro-batch's compute is exposed.
double param_fetch_time(const Ctx& c, const StepShape& sh, double base_params, double t_work) {
  const double mm = sh.mm;
  const int dpg = sh.dpg;
  const double fetch = 2.0 * base_params / static_cast<double>(dpg) * c.weight_bytes / c.pcie_Bps;
  return mm * std::max(0.0, fetch - kOverlap * t_work);
}

}  // namespace

// ---- step_time ----

double step_time(const Ctx& c, const Links& links, const StepLayout& s, StepTime* out, double* eff_out,
                 double* bubble_out, MbTerms* mbt, DpTerms* dpt) {
  const FrameworkProfile& fw = framework_profile(c.train->framework);
  const FlopsPerToken& f = c.flops[rc_index(s.rc)];
  const StepShape sh = step_shape(c, s);
  const double mm = sh.mm;

  MbTerms local;
  MbTerms& mt = mbt ? *mbt : local;
  if (!mt.filled) fill_mb_terms(c, links, s, sh, fw, mt);
  if (eff_out) *eff_out = mt.eff;

  const ComputeTimes ct = compute_times(c, s, sh, mt);
  const double t_model = ct.t_model, t_rc = ct.t_rc;
  const double t_work = t_model + t_rc;
  const MbComm mc = mb_collectives(c, s, sh, fw, mt, t_work);
  const double fwd_frac = f.hardware > 0 ? std::clamp(f.forward / f.hardware, 0.0, 1.0) : 1.0 / 3.0;
  const double fwd_win = t_work * fwd_frac;
  const double bwd_win = t_work - fwd_win;
  const double t_stage = t_work + mc.t_tp_exposed + mc.t_pp_exposed + mc.t_cp_exposed + mc.t_ep_exposed;

  const double compute_s = mm * t_model;
  const double recompute_s = mm * t_rc;
  const double tp_s = mm * mc.t_tp_exposed;
  const double pp_s = mm * mc.t_pp_exposed;
  const double cp_s = mm * mc.t_cp_exposed;
  const double ep_s = mm * mc.t_ep_exposed;
  const double bubble_s = bubble_time(s, t_stage);
  double dp_comm_s = 0, dp_exposed_s = 0;
  dp_times(c, links, s, sh, fw, fwd_win, bwd_win, dpt, dp_comm_s, dp_exposed_s);

  double offload_s = 0;
  const double optimizer_s = optimizer_time(c, s, sh, offload_s);
  if (s.off_par) offload_s += param_fetch_time(c, sh, ct.base_params, t_work);

  const double exposed_comm_s = tp_s + pp_s + cp_s + ep_s + dp_exposed_s;
  const double total_s = compute_s + recompute_s + exposed_comm_s + bubble_s + optimizer_s + offload_s;
  if (out) {
    out->compute_s = compute_s;
    out->recompute_s = recompute_s;
    out->exposed_comm_s = exposed_comm_s;
    out->bubble_s = bubble_s;
    out->optimizer_s = optimizer_s;
    out->offload_s = offload_s;
    out->total_s = total_s;
    // Each collective's whole-step time and the part of it on the critical path.
    const double comm[5][2] = {
        {mm * mc.t_tp, tp_s}, {mm * mc.t_pp, pp_s}, {dp_comm_s, dp_exposed_s}, {mm * mc.t_cp, cp_s}, {mm * mc.t_ep, ep_s}};
    double* const into[5][2] = {{&out->tp_comm_s, &out->tp_exposed_s}, {&out->pp_comm_s, &out->pp_exposed_s},
                                {&out->dp_comm_s, &out->dp_exposed_s}, {&out->cp_comm_s, &out->cp_exposed_s},
                                {&out->ep_comm_s, &out->ep_exposed_s}};
    for (int i = 0; i < 5; ++i) {
      *into[i][0] = comm[i][0];
      *into[i][1] = comm[i][1];
    }
    out->memory_bound = ct.memory_bound;
  }
  if (bubble_out) *bubble_out = bubble_s;
  return total_s;
}

}  // namespace trainfit::planner_model
