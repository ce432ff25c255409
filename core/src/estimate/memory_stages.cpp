// trainfit core — the stages of MemoryEstimator::estimate (per GPU, bytes): the model's share on this GPU, the
// model states (ZeRO, Rajbhandari et al. 2020), the activations in flight, logits, peak and host RAM.
//
// Index of sections:
//   ---- parameters ----        stage_share: parameters on the worst GPU (TP, PP, expert parallelism)
//   ---- element bytes ----     element_bytes: bytes per weight, gradient, master copy, optimizer state
//   ---- model states ----      model_states: full training, or a frozen base with adapters (LoRA / QLoRA)
//   ---- activations ----       pipeline_chunk_passes_in_flight, token_dims, stage_activations
//   ---- logits ----            logits_bytes: logits and loss buffers
//   ---- placement ----         place_activations: this rank's activations, MoE dispatch, SP gather
//   ---- peak ----              set_band, peak_and_totals: peak, overhead, fragmentation, band
//   ---- loading ----           load_peak: the 16-bit load before quantization
//   ---- host ram ----          host_ram_per_node
#include "estimate/memory_internal.h"

#include <algorithm>
#include <cstdint>

namespace trainfit {

namespace memory_detail {

// ---- parameters ----

namespace {

// Expert parallelism (MoE): a stage's routed experts are split over ep x etp ranks instead of tp, and their
// optimizer states and gradients are sharded over the expert data-parallel ranks, tp x cp x dp / (ep x etp)
// (Megatron-Core MoE: expert and dense parameters keep separate gradient buffers and optimizer shards,
// distributed/distributed_data_parallel.py expert_data_parallel_group; torchtitan FSDP over dp_shard_mod_ep).
void split_experts(const StageJob& j, StageShare& s) {
  const MemoryLayout& l = j.layout;
  const ParamCounts& pc = j.pc;
  const double L = s.L, tp = s.tp, dp = s.dp;
  const int64_t layers_stage = s.layers_stage;
  double& stage_params = s.stage_params;
  double& layer_local = s.layer_local;
  double& zdiv = s.zdiv;
  const int etp_r = l.etp > 0 ? l.etp : l.tp;
  const bool expert_split = pc.expert > 0 && (l.ep > 1 || etp_r != l.tp);
  const double expert_layer = pc.expert / L;  // routed-expert parameters of the average layer
  if (expert_split) {
    const double ept = double(l.ep) * double(etp_r);
    const double exp_local = double(layers_stage) * expert_layer / ept;
    stage_params += exp_local - double(layers_stage) * expert_layer / tp;
    layer_local += expert_layer / ept - expert_layer / tp;
    const double edp = tp * dp / ept;         // expert data parallel (dp here is dp x cp)
    const double sharded = (stage_params - exp_local) / dp + exp_local / edp;
    if (sharded > 0) zdiv = stage_params / sharded;
  }
}

}  // namespace

// Parameters on the worst GPU. TP divides every matrix (embedding and head vocab-parallel, Megatron
// VocabParallelEmbedding; norms are replicated but are < 0.01% and ignored). PP: layers split evenly, the
// first stage holds the embedding, the last the final norm and head (tied: a second copy of the embedding,
// as Megatron keeps it). ZeRO-3 divides what is left by dp.
// ZeRO / the distributed optimizer shard over the data x context parallel ranks (Megatron-Core's
// distributed optimizer uses the DP group with context parallelism, parallel_state.py).
StageShare stage_share(const StageJob& j, double trainable) {
  const ModelSpec& model = j.model;
  const ParamCounts& pc = j.pc;
  const MemoryLayout& l = j.layout;
  StageShare s;
  const double L = double(model.num_layers), tp = double(l.tp), dp = double(l.dp) * double(l.cp);
  s.L = L;
  s.tp = tp;
  s.dp = dp;
  // Uneven stages (pp x vp not dividing the layers, framework.h uneven_pp): the heaviest stage's vp chunks of
  // ceil(L / (pp vp)) layers, each stage's parameters counted with that many (an upper bound: Megatron's and
  // torchtitan's embedding / loss-aware splits give the first and last stages one layer fewer; the activations in
  // flight count each Megatron chunk's own layers, layer_passes).
  const int64_t layers_stage = pipeline_stage_layers(model.num_layers, l.pp, l.vp);
  s.layers_stage = layers_stage;
  if (j.fw.uneven_pp_megatron && l.pp > 1) {
    s.megatron_split = megatron_pipeline_split(model.num_layers, l.pp, l.vp);
    s.uneven_megatron = s.megatron_split.ok && !s.megatron_split.even;
  }
  const double rest = pc.total - L * pc.per_layer - pc.embedding - pc.head;  // final norm, pooler
  const double head_copy = l.pp > 1 ? (pc.head > 0 ? pc.head : pc.embedding) : pc.head;
  const double first_stage = double(layers_stage) * pc.per_layer + pc.embedding + (l.pp == 1 ? head_copy + rest : 0);
  const double last_stage = double(layers_stage) * pc.per_layer + head_copy + rest + (l.pp == 1 ? pc.embedding : 0);
  // One named rank (layout.pp_rank): the first holds the embedding, the last the head, the others neither.
  const bool one_rank = l.pp > 1 && l.pp_rank >= 0;
  const bool is_first = !one_rank || l.pp_rank == 0, is_last = !one_rank || l.pp_rank == l.pp - 1;
  s.one_rank = one_rank;
  s.is_first = is_first;
  s.is_last = is_last;
  const double named_stage =
      is_first ? first_stage : (is_last ? last_stage : double(layers_stage) * pc.per_layer);
  s.stage_params = (one_rank ? named_stage : std::max(first_stage, last_stage)) / tp;
  s.layer_local = pc.per_layer / tp;     // one layer's parameters on this GPU
  s.zdiv = dp;                           // what ZeRO divides this GPU's model states by
  split_experts(j, s);
  const double stage_params = s.stage_params;
  s.stage_frac = pc.total > 0 ? stage_params / pc.total : 0;  // share of the model on this GPU
  s.lora_local = j.fl.full ? 0.0 : trainable * double(layers_stage) / L / tp;
  return s;
}

// ---- element bytes ----

ElementBytes element_bytes(const StageJob& j) {
  const Precision prec = j.prec;
  const TrainConfig& train = j.train;
  const bool mixed = prec == Precision::bf16_mixed || prec == Precision::fp16_mixed || prec == Precision::fp8_mixed;
  const bool amp = j.amp;
  double w_bytes = prec == Precision::fp32 ? 4.0 : (prec == Precision::fp8_mixed ? 3.0 : 2.0);  // fp8: + fp8 copy
  double g_bytes = prec == Precision::fp32 ? 4.0 : 2.0;
  double master_bytes = mixed ? 4.0 : 0.0;
  if (amp && j.fl.full) {
    // PyTorch autocast keeps the parameters (and so their .grad) in fp32 and casts each weight to 16 bits
    // for its GEMM; the cast is cached for the forward and saved by the op for backward: "6 bytes * number
    // of parameters for mixed precision training (maintains a model in fp32 and one in fp16 in memory)",
    // gradients 4 bytes (Hugging Face transformers docs, model_memory_anatomy.md, "Anatomy of Model's Memory").
    w_bytes = 4.0 + 2.0;
    g_bytes = 4.0;
    master_bytes = 0.0;
  }
  // Frameworks that accumulate gradients in an fp32 buffer (framework.h: Megatron-Core's main_grad, nanotron's
  // FP32GradientAccumulator) keep 4 bytes per trained parameter for the whole run.
  // TrainConfig::grad_reduce overrides the framework's default either way.
  g_bytes = grad_element_bytes(train, g_bytes);
  const double state_elem = prec == Precision::bf16 ? 2.0 : 4.0;  // pure bf16 keeps optimizer states in bf16
  double opt_per_param = 0;
  switch (train.optimizer) {
    case Optimizer::adamw: opt_per_param = 2 * state_elem; break;       // exp_avg, exp_avg_sq
    case Optimizer::adamw_8bit:
      // bitsandbytes 8-bit blockwise Adam (Dettmers et al. 2022, Sec. 2): two uint8 states plus one fp32
      // absmax per 256-element block each (bitsandbytes optim/optimizer.py, blocksize 256).
      opt_per_param = 2 * (1.0 + 4.0 / 256.0);
      break;
    case Optimizer::sgd: opt_per_param = 0; break;
    case Optimizer::sgd_momentum: opt_per_param = state_elem; break;
    case Optimizer::lion: opt_per_param = state_elem; break;             // Chen et al. 2023: momentum only
    case Optimizer::adafactor: opt_per_param = 0; break;                 // factored, below
  }
  ElementBytes b;
  b.w_bytes = w_bytes;
  b.g_bytes = g_bytes;
  b.master_bytes = master_bytes;
  b.opt_per_param = opt_per_param;
  return b;
}

// ---- model states ----

namespace {

// Full training: every parameter on this GPU is trained.
ModelStates full_states(const StageJob& j, const StageShare& s, const ElementBytes& b) {
  const ModelSpec& model = j.model;
  const TrainConfig& train = j.train;
  const MemoryLayout& l = j.layout;
  const double stage_params = s.stage_params, layer_local = s.layer_local, zdiv = s.zdiv, stage_frac = s.stage_frac;
  const int64_t layers_stage = s.layers_stage;
  const double w_bytes = b.w_bytes, g_bytes = b.g_bytes, master_bytes = b.master_bytes;
  const double opt_per_param = b.opt_per_param;
  ModelStates ms;
  const double n = stage_params;  // every parameter on this GPU is trained
  double state_total = n * opt_per_param;
  if (train.optimizer == Optimizer::adafactor)
    state_total = adafactor_state_elements(model) * stage_frac * 4.0;  // HF Adafactor: fp32, beta1 = None
  ms.weights = n * w_bytes;
  ms.master = n * master_bytes;
  ms.grads = n * g_bytes;
  ms.states = state_total;
  if (l.zero >= 1) { ms.master /= zdiv; ms.states /= zdiv; }  // P_os
  if (l.zero >= 2) ms.grads /= zdiv;                           // P_os+g
  if (l.zero >= 3) ms.weights /= zdiv;                         // P_os+g+p
  if (l.offload_optimizer) {
    // ZeRO-Offload (Ren et al. 2021, Sec. 4.1): fp32 master, optimizer states and fp32 gradient partitions
    // live in host memory; the GPU keeps its 16-bit weights (and gradient buckets).
    ms.host_offload += ms.master + ms.states + (l.zero >= 2 ? ms.grads * (4.0 / g_bytes) : 0.0);
    ms.master = 0;
    ms.states = 0;
    if (l.zero >= 2) ms.grads = 0;
  }
  if (l.zero >= 3) {
    // Live parameters: FSDP / ZeRO-3 gather one layer and prefetch the next; backward also holds one
    // layer's unsharded gradient before reduce-scatter. FSDP2 stacks (framework.h fsdp2_root_unit): the root
    // unit's (embedding, head) and the last block's full parameters at the start of backward.
    const double layer = layer_local;
    if (l.offload_params) { ms.host_offload += ms.weights; ms.weights = 0; }
    const double root = (stage_params - double(layers_stage) * layer_local) * w_bytes;
    ms.gathered = j.fw.fsdp2_root_unit ? root + layer * w_bytes : 2 * layer * w_bytes + layer * g_bytes;
  }
  return ms;
}

// Frozen base: 16-bit (or fp32) weights; QLoRA stores every linear of the layers in NF4 (Dettmers et al.
// 2023, Sec. 3): 4 bits per weight plus one absmax per 64-weight block, fp32 (4/64 B), or with double
// quantisation an 8-bit absmax and one fp32 constant per 256 absmax blocks (8/64 + 32/(64*256) bits =
// 0.127 bits/param, the paper's figure). Embeddings, head and norms stay 16-bit.
ModelStates adapter_states(const StageJob& j, const StageShare& s, const ElementBytes& b) {
  const ModelSpec& model = j.model;
  const TrainConfig& train = j.train;
  const MemoryLayout& l = j.layout;
  const ParamCounts& pc = j.pc;
  const Method& fl = j.fl;
  const Precision prec = j.prec;
  const double tp = s.tp, dp = s.dp, stage_params = s.stage_params, lora_local = s.lora_local;
  const int64_t layers_stage = s.layers_stage;
  const double g_bytes = b.g_bytes, master_bytes = b.master_bytes, opt_per_param = b.opt_per_param;
  ModelStates ms;
  const double base_w = prec == Precision::fp32 ? 4.0 : 2.0;
  const double layer_params = double(layers_stage) * pc.per_layer / tp;
  const double other = stage_params - layer_params;
  if (fl.qlora) {
    const double norms_in_layer = norm_params_per_layer(model) * double(layers_stage) / tp;
    const double linear = std::max(0.0, layer_params - norms_in_layer);
    ms.weights = linear * 0.5 + (other + norms_in_layer) * base_w;
    // Double-quantised constants (bitsandbytes bnb_4bit_use_double_quant), or one fp32 absmax per
    // 64-weight block without it (Dettmers et al. 2023, Sec. 3: 32/64 = 0.5 bits/param).
    ms.quant = linear * (train.qlora_double_quant ? 0.127 / 8.0 : 4.0 / 64.0);
    // Dequantisation: each 4-bit linear is expanded to a 16-bit copy for its GEMM (forward and again in
    // backward); two of the largest such matrices can be alive at once.
    const double hd = double(effective_head_dim(model));
    const double largest = std::max({double(model.hidden_size) * double(model.intermediate_size),
                                     double(model.hidden_size) * double(model.num_heads) * hd}) / tp;
    ms.quant += 2 * largest * 2.0;
  } else {
    ms.weights = stage_params * base_w;
  }
  if (l.zero >= 3 && !fl.qlora) {
    ms.weights = ms.weights / dp;
    if (l.offload_params) { ms.host_offload += ms.weights; ms.weights = 0; }
    ms.gathered = 2 * pc.per_layer / tp * base_w;
  } else if (l.zero >= 3) {
    // QLoRA under FSDP: bitsandbytes stores the packed NF4 weights in the FSDP dtype (bnb_4bit_quant_storage;
    // Answer.AI fsdp_qlora, PEFT docs accelerate/fsdp), so FSDP shards them like any 16-bit tensor; the
    // quantisation state (absmax constants) is not a parameter and stays whole on every rank. Two gathered
    // layers in packed form, as for the 16-bit base.
    const double norms_layer = norm_params_per_layer(model) / tp;
    const double layer_packed = std::max(0.0, pc.per_layer / tp - norms_layer) * 0.5 + norms_layer * base_w;
    ms.weights = ms.weights / dp;
    if (l.offload_params) { ms.host_offload += ms.weights; ms.weights = 0; }
    ms.gathered = 2 * layer_packed;
  }
  // Adapters: weights, grads, optimizer states (and master copies) in the training precision.
  const double aw = prec == Precision::fp32 ? 4.0 : 2.0;
  double a_states = lora_local * (opt_per_param + master_bytes);
  if (train.optimizer == Optimizer::adafactor) a_states = lora_local * 4.0 * 0.1;  // rank-r matrices barely factor
  if (l.zero >= 1) a_states /= dp;
  if (l.offload_optimizer) { ms.host_offload += a_states; a_states = 0; }
  // ZeRO-2 / -3 shard the adapters' gradients, ZeRO-3 / FSDP full shard their weights too (ZeRO Sec. 5).
  const double a_weights = lora_local * aw / (l.zero >= 3 ? dp : 1.0);
  const double a_grads = lora_local * g_bytes / (l.zero >= 2 ? dp : 1.0);
  ms.lora = a_weights + a_grads + a_states;
  return ms;
}

}  // namespace

ModelStates model_states(const StageJob& j, const StageShare& s, const ElementBytes& b) {
  return j.fl.full ? full_states(j, s, b) : adapter_states(j, s, b);
}

}  // namespace memory_detail

// ---- activations ----

int64_t pipeline_chunk_passes_in_flight(int pp, int vp, int rank, int64_t num_microbatches) {
  if (pp <= 1) return 1;
  const int64_t m = std::max<int64_t>(1, num_microbatches), p = pp, v = std::max(1, vp);
  const int64_t r = std::clamp<int64_t>(rank, 0, p - 1);
  if (v == 1) return std::min(m, p - r);
  return std::min(m * v, 2 * (p - r - 1) + (v - 1) * p + 1);
}

namespace memory_detail {

namespace {

// Activations (Korthikanti Sec. 4.2.3: with 1F1B the first stage keeps p micro-batches of its L/p
// layers in flight; the last stage one micro-batch plus the logits). Interleaved 1F1B (v model chunks per
// rank) warms up with more: pipeline_chunk_passes_in_flight, in units of one chunk of L / (p v) layers;
// `stage_scale` is that in units of the stage's L / p layers. The all-to-all overlap (job.h moe_a2a_overlap) warms
// up `extra` = 1 chunk pass more ("we schedule one extra micro-batch forward step before the 1f1b stages",
// Megatron-Core pipeline_parallel/schedules.py); without a pipeline its combined 1F1B keeps the next micro-batch's
// forward beside the current one's backward.
double stage_scale(const MemoryLayout& l, int rank, int extra) {
  const int64_t m = std::max<int64_t>(1, l.num_microbatches), v = std::max(1, l.vp);
  if (l.pp == 1) return double(std::min<int64_t>(m, 1 + extra));
  const int64_t passes = pipeline_chunk_passes_in_flight(l.pp, l.vp, rank, l.num_microbatches) + extra;
  return double(std::min(passes, m * v)) / double(v);
}

// Layers of local chunk `c` (0 .. v - 1) on pipeline rank `rank`. Megatron-Core's uneven splits (StageShare
// megatron_split: --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split, or
// --decoder-first / last-pipeline-num-layers) give the first chunk and the last one fewer layer, or the first and
// last stages their own counts; every other split is counted with ceil(L / (p v)) layers per chunk (an upper bound).
int64_t chunk_layers(const StageShare& s, const MemoryLayout& l, int rank, int c) {
  const int64_t per = s.layers_stage / std::max(1, l.vp);
  if (!s.uneven_megatron) return per;
  const MegatronPipelineSplit& split = s.megatron_split;
  if (split.first > 0) return rank == 0 ? split.first : (rank == l.pp - 1 ? split.last : per);
  const int64_t global = int64_t(c) * l.pp + rank, chunks = int64_t(l.pp) * std::max(1, l.vp);
  const bool fewer = (global == 0 && split.embedding_counted) || (global == chunks - 1 && split.loss_counted);
  return fewer ? per - 1 : per;
}

// Layers' activations in flight on pipeline rank `rank` (pp >= 2), in layers: its chunk passes in flight
// (pipeline_chunk_passes_in_flight, + `extra`), each counted with its chunk's layers. The interleaved schedule runs
// the forward passes in groups of p micro-batches per chunk, chunk 0 to v - 1, the last group with what is left of
// the m micro-batches (Megatron-Core schedules.py get_schedule_table, microbatch_group_size_per_vp_stage = p).
double layer_passes(const StageShare& s, const MemoryLayout& l, int rank, int extra) {
  const int64_t m = std::max<int64_t>(1, l.num_microbatches), p = l.pp, v = std::max(1, l.vp);
  int64_t left = std::min(pipeline_chunk_passes_in_flight(l.pp, l.vp, rank, l.num_microbatches) + extra, m * v);
  if (!s.uneven_megatron) return double(s.layers_stage / v) * double(left);  // every chunk alike
  double layers = 0;
  for (int64_t g = 0; left > 0 && g * p < m; ++g) {
    const int64_t group = std::min(p, m - g * p);
    for (int64_t c = 0; c < v && left > 0; ++c) {
      const int64_t n = std::min(group, left);
      layers += double(n) * double(chunk_layers(s, l, rank, int(c)));
      left -= n;
    }
  }
  return layers;
}

}  // namespace

TokenDims token_dims(const StageJob& j, const StageShare& s) {
  const MemoryLayout& l = j.layout;
  TokenDims d;
  d.e = act_bytes(j.prec);
  d.tokens = double(l.micro_batch) * double(j.train.seq_len) / double(l.cp);
  d.rep_div = l.sequence_parallel ? s.tp : 1.0;
  d.h = double(j.model.hidden_size);
  d.encoder = j.model.arch == Arch::bert;  // encoder-only: no vocabulary logits, no final norm (stage_activations)
  return d;
}

StageActivations stage_activations(const StageJob& j, const StageShare& s, const TokenDims& d,
                                   const LayerActivations& la, const ActivationTerms& terms, MemoryBreakdown& r) {
  const ModelSpec& model = j.model;
  const MemoryLayout& l = j.layout;
  const Method& fl = j.fl;
  const bool amp = j.amp;
  const int64_t layers_stage = s.layers_stage;
  const double e = d.e, tokens = d.tokens, rep_div = d.rep_div, h = d.h;
  const bool encoder = d.encoder;
  const int extra = runs_a2a_overlap(j.train, l.ep) ? 1 : 0;
  const double first_scale = stage_scale(l, 0, extra);
  // Without a pipeline the stage's scale is the micro-batches in flight (one, two with the overlap).
  const int64_t in_flight = l.pp > 1 ? std::min<int64_t>(l.pp, l.num_microbatches) : int64_t(first_scale);
  r.microbatches_in_flight = in_flight;
  const double interleave = first_scale / double(in_flight);
  r.interleave_factor = interleave;
  r.activations_per_layer = la.stored;
  StageActivations sa;
  sa.extra_passes = extra;
  // One layer recomputed in its backward: the whole layer under full recompute, what an op policy did not save
  // under op-level selective recompute, what Megatron-Core's modules dropped (Korthikanti's selective recompute
  // regenerates only the attention core).
  const bool op_sac = l.recompute == Recompute::selective && terms.op_sac_rep + terms.op_sac_split > 0;
  const double working = l.recompute == Recompute::full ? la.no_recompute
                         : op_sac                       ? la.no_recompute - la.stored
                         : l.recompute == Recompute::selective ? la.module_dropped
                                                               : 0.0;
  sa.working = working;
  // Encoder-only models are counted as BertModel plus a task head (model.cpp): no vocabulary logits, no
  // final norm; instead the embeddings' LayerNorm keeps its input, in the weights' dtype (fp32 under
  // autocast), before the embedding dropout (HF modeling_bert.py BertEmbeddings).
  double embed_acts = model.dropout ? tokens * h / rep_div : 0.0;  // embedding dropout mask
  if (encoder) embed_acts += tokens * h * (amp ? 4.0 : e) / rep_div;
  // The stage layers' activations of the first rank, or of a middle one where an uneven split gives the first
  // fewer layers (with one micro-batch fewer in flight per rank, rank 1 can then hold more).
  double first_layers = double(layers_stage) * first_scale, last_layers = first_layers;  // without a pipeline
  double middle_layers = 0;
  if (l.pp > 1) {
    first_layers = layer_passes(s, l, 0, extra);
    last_layers = layer_passes(s, l, l.pp - 1, extra);
    if (l.pp > 2 && chunk_layers(s, l, 0, 0) < layers_stage / std::max(1, l.vp))
      middle_layers = layer_passes(s, l, 1, extra);
  }
  sa.first_acts = first_layers * la.stored + embed_acts * first_scale + working;
  sa.middle_acts = middle_layers > 0 ? middle_layers * la.stored + working : 0.0;
  sa.last_acts = last_layers * la.stored + working +
                 (encoder ? 0.0
                          : tokens * norm_bytes(model, j.prec, fl.full, amp, j.fw.fused_rmsnorm) * h / rep_div +
                                (fl.full ? tokens * e * h / rep_div : 0.0));  // final norm, lm_head input
  return sa;
}

// ---- logits ----

// Logits and loss: the logits in the compute dtype (e) and the framework's fp32 vocabulary-sized buffers
// (framework.h loss_fp32_buffers: HF / PyTorch cross-entropy keeps the fp32 log-softmax, and at the start of
// backward the fp32 gradients of the log-probs and of the logits, 3 x 4 B; Megatron's vocab-parallel
// cross-entropy works in place on one fp32 copy, 4 B) while every activation is still alive. Vocab-parallel
// under TP. Encoders (sequence classification): b x classes logits, negligible.
// Chunked loss (framework.h loss_chunks): the kept fp32 log-softmax for every token, the other buffers for one
// chunk's tokens.
double logits_bytes(const StageJob& j, const StageShare& s, const TokenDims& d) {
  const FrameworkProfile& fw = j.fw;
  const double e = d.e, tokens = d.tokens, tp = s.tp;
  const int chunks = resolved_loss_chunks(j.train);
  if (d.encoder) return 0.0;
  if (fw.loss_chunk_backward && chunks > 1) {
    // torchtitan components/loss.py ChunkedLossWrapper: per chunk lm_head, loss and backward at once; the chunk's
    // `logits` stay referenced through its backward (e B plus the fp32 loss buffers per logit), and the hidden
    // states' gradient is gathered for every token in an fp32 GradAccumulator.
    const double per_logit = e + 4.0 * double(fw.loss_fp32_buffers);
    return tokens / double(chunks) * double(j.model.vocab_size) * per_logit / tp + tokens * 4.0 * d.h;
  }
  const double fp32_buffers = 1.0 + double(fw.loss_fp32_buffers - 1) / double(std::max(1, chunks));
  const double fp32_loss = 4.0 * fp32_buffers;
  double per_logit = fw.logits_freed_before_backward ? std::max(e + 8.0, fp32_loss) : e + fp32_loss;
  if (j.train.hf_fp32_logits) per_logit += 8.0;  // job.h: fp32 logits in the output + the shifted fp32 copy
  return tokens * double(j.model.vocab_size) * per_logit / tp;
}

// ---- placement ----

GpuActivations place_activations(const StageJob& j, const StageShare& s, const TokenDims& d,
                                 const StageActivations& sa, double logits, const LayerActivations& la) {
  const ModelSpec& model = j.model;
  const MemoryLayout& l = j.layout;
  const int64_t layers_stage = s.layers_stage;
  const bool one_rank = s.one_rank, is_first = s.is_first, is_last = s.is_last;
  // Without a named rank the first stage's part is the larger of rank 0's and a middle rank's.
  const double first_acts = one_rank ? sa.first_acts : std::max(sa.first_acts, sa.middle_acts);
  const double last_acts = sa.last_acts, working = sa.working;
  const double e = d.e, tokens = d.tokens, rep_div = d.rep_div, h = d.h, tp = s.tp;
  GpuActivations ga;
  double& acts_gpu = ga.acts_gpu;
  double& logits_gpu = ga.logits_gpu;
  if (l.pp == 1) {
    acts_gpu = first_acts + (last_acts - double(layers_stage) * la.stored * stage_scale(l, 0, sa.extra_passes) - working);
    logits_gpu = logits;
  } else if (one_rank) {
    const double middle = layer_passes(s, l, l.pp_rank, sa.extra_passes) * la.stored + working;
    acts_gpu = is_first ? first_acts : (is_last ? last_acts : middle);
    logits_gpu = is_last ? logits : 0.0;
  } else if (first_acts >= last_acts + logits) {
    acts_gpu = first_acts;
    logits_gpu = 0;
  } else {
    acts_gpu = last_acts;
    logits_gpu = logits;
  }
  // Expert parallelism's token dispatch (Megatron-Core MoEAlltoAllTokenDispatcher, torchtitan's all-to-all
  // expert parallel): the layer being computed holds its tokens permuted into a send buffer and the tokens
  // received from the other EP ranks, each k copies of the local tokens (balanced routing) of hidden width;
  // SP splits the tokens over the TP ranks. One layer's pair is alive at a time.
  double& dispatch = ga.dispatch;
  // A capacity factor pads both buffers to it; an imbalance swells the busiest rank's receive buffer.
  if (l.ep > 1 && moe_layer_count(model) > 0) {
    dispatch = (moe_send_factor(j.train) + moe_rows_factor(j.train, l.ep)) * tokens * double(model.experts_per_token) * h * e / rep_div;
  }
  acts_gpu += dispatch;
  // Sequence parallelism keeps activations split over the TP ranks, but each column-parallel GEMM all-gathers its
  // input to the whole sequence first and its backward produces the whole-sequence input gradient before the
  // reduce-scatter (Korthikanti et al. 2022 §4.2.2, the g / g-bar operators; Megatron-Core tensor_parallel/layers.py
  // gathers into a global memory buffer that stays allocated): one gathered input and one gradient of
  // tokens x hidden at a time, not divided by TP. Small at 4k-8k tokens; at 1M tokens (Llama 3 8B) 16 GiB.
  const double sp_gather = l.sequence_parallel && tp > 1 ? 2.0 * tokens * h * e : 0.0;
  acts_gpu += sp_gather;

  // Recompute (full, or an op-level selective policy) re-runs a layer's forward in that layer's backward, after
  // the loss gradient has gone through the head and the loss buffers are freed (torch.utils.checkpoint): the
  // recomputed layer's working set and the loss buffers are never alive together.
  if (logits_gpu > 0) acts_gpu -= std::min(working, logits_gpu);
  return ga;
}

// ---- peak ----

namespace {

// The expected total and its band (memory.h kBandLowFactor / kBandHighFactor), set together.
void set_band(MemoryBreakdown& r, double total) {
  r.total = total;
  r.total_low = total * kBandLowFactor;
  r.total_high = total * kBandHighFactor;
}

}  // namespace

// Peak. With one micro-batch per step and no pipeline, gradients are created during backward while
// activations are freed layer by layer (PyTorch zero_grad(set_to_none=True)), so the peak is the larger of
// "all activations + logits" and "all gradients"; with accumulation or pipelining both coexist.
void peak_and_totals(const StageJob& j, const StageShare& s, const ModelStates& ms, const GpuActivations& ga,
                     const TokenDims& d, MemoryBreakdown& r) {
  const ModelSpec& model = j.model;
  const TrainConfig& train = j.train;
  const MemoryLayout& l = j.layout;
  const FrameworkProfile& fw = j.fw;
  const double weights = ms.weights, master = ms.master, grads = ms.grads, states = ms.states, lora = ms.lora;
  const double quant = ms.quant, gathered = ms.gathered;
  const double acts_gpu = ga.acts_gpu, logits_gpu = ga.logits_gpu, dispatch = ga.dispatch;
  const double e = d.e, tokens = d.tokens, tp = s.tp;
  const double static_bytes = weights + master + states + lora + quant + gathered;
  // zero_grad(set_to_none=False) (PyTorch < 2.0 default, torch.nn.Module.zero_grad docs) zeroes the
  // gradients in place instead of freeing them, so they too coexist with the next forward's activations.
  // An fp32 gradient buffer is allocated once for the run (Megatron-Core's ParamAndGradBuffer), so it too
  // coexists with the activations.
  const bool grads_persist = l.num_microbatches > 1 || l.pp > 1 || !j.fl.full || !train.zero_grad_set_to_none ||
                             fw.fp32_grad_buffer;
  const double dynamic = grads_persist ? grads + acts_gpu + logits_gpu : std::max(grads, acts_gpu + logits_gpu);
  r.weights = weights;
  r.master_weights = master;
  r.gradients = grads;
  r.optimizer_states = states;
  r.activations = acts_gpu - dispatch;
  r.moe_dispatch = dispatch;
  r.logits = logits_gpu;
  r.lora_adapters = lora;
  r.quantization = quant;
  r.zero3_gathered = gathered;
  r.allocated_peak = static_bytes + dynamic;
  const int world = l.tp * l.pp * l.dp * l.cp;
  r.overhead = train.overhead_bytes >= 0 ? train.overhead_bytes
                                         : kDefaultCudaOverheadBytes + (world > 1 ? kDefaultNcclOverheadBytes : 0.0);
  const double frag = train.fragmentation >= 0 ? train.fragmentation : kDefaultFragmentation;
  r.fragmentation = frag * dynamic;
  // A trainer that frees its logits before backward (framework.h logits_freed_before_backward: torchtitan's
  // `del pred`) leaves their e-byte block cached, and the log-softmax gradient then needs a new 4-byte-per-logit
  // block: the fp32 upcast's freed block hosts the first backward buffer, the logits' block is too small for the
  // second, and PyTorch's caching allocator never merges blocks of different segments
  // (c10/cuda/CUDACachingAllocator.cpp), so the reserved peak holds the logits' segment beside the loss buffers.
  if (fw.logits_freed_before_backward && logits_gpu > 0 && !(fw.loss_chunk_backward && resolved_loss_chunks(train) > 1))
    r.fragmentation += tokens * double(model.vocab_size) * e / tp;
  set_band(r, r.allocated_peak + r.overhead + r.fragmentation);
}

// ---- loading ----

// A framework that quantizes a 16-bit model after building it on the GPU (framework.h qlora_loads_16bit) holds,
// while it quantizes, every parameter at 16 bits plus a 16-bit clone of the matrix in hand; the largest such
// matrix is the output head or embedding (vocab x hidden) or an MLP projection (intermediate x hidden). The
// training step's totals stand when they are larger; else the load sets the peak, with the same band.
void load_peak(const StageJob& j, MemoryBreakdown& r) {
  r.load_peak = 0;
  r.load_sets_peak = false;
  if (!j.fl.qlora || !j.fw.qlora_loads_16bit) return;
  const ModelSpec& m = j.model;
  const double widest = double(std::max({m.vocab_size, m.intermediate_size, m.moe_intermediate_size}));
  const double bytes16 = 2.0;
  r.load_peak = bytes16 * (j.pc.total + widest * double(m.hidden_size));
  const double load_total = r.load_peak + r.overhead;
  if (load_total <= r.total) return;
  r.load_sets_peak = true;
  r.allocated_peak = std::max(r.allocated_peak, r.load_peak);
  set_band(r, load_total);
  r.notes.push_back(Warning{"framework", "load_peak",
                            std::string("peak set while loading: ") + j.fw.name + " quantizes a 16-bit model"});
}

// ---- host ram ----

// Host RAM per node. Loading: every rank reads a 16-bit copy of the model (from_pretrained with
// low_cpu_mem_usage), except ZeRO-3 / FSDP with rank-0 loading. Offload: the node's ranks' offloaded states.
// DeepSpeed's estimators (runtime/zero/stage_1_and_2.py, stage3.py) take the larger of the two and add a
// 1.5x buffer factor; so does this.
double host_ram_per_node(const StageJob& j, double host_offload) {
  const MemoryLayout& l = j.layout;
  const double gpn = double(l.gpus_per_node);
  const double ckpt_bytes = j.prec == Precision::fp32 ? 4.0 : 2.0;
  const double loading = (l.zero >= 3 ? 1.0 : gpn) * j.pc.total * ckpt_bytes;
  return 1.5 * std::max(loading, gpn * host_offload);
}

}  // namespace memory_detail

}  // namespace trainfit
