// trainfit core — internal to the validation tables: the row builder the memory tables share, and the tables kept
// in their own files (validation_peaks.cpp: load peaks, torchtitan's MoE peaks).
#pragma once
#include <string>
#include <vector>

#include "trainfit/base/common.h"
#include "trainfit/catalog/job.h"
#include "trainfit/estimate/memory.h"
#include "trainfit/validation/validation.h"

namespace trainfit::validation_detail {

// One reference: its relative error computed from `published` and `estimate`.
ValidationRow row(std::string name, std::string source, RefKind kind, std::string metric, double published,
                  double estimate, double tolerance, std::string note = "", bool fully_specified = true);

// Full bf16-mixed training under the torchtitan profile (FSDP2, SDPA flash), as torchtitan's benchmark runs were.
inline TrainConfig torchtitan_full(int64_t seq_len) {
  TrainConfig t;
  t.method = Method::full;
  t.precision = Precision::bf16_mixed;
  t.framework = Framework::torchtitan;
  t.attention = Attention::flash;
  t.seq_len = seq_len;
  return t;
}

// FSDP2 full shard over dp_shard x cp ranks (ZeRO-3), nodes of 8 GPUs: torchtitan's data-parallel layout.
inline MemoryLayout fsdp_layout(int dp_shard, int cp, int64_t micro_batch, Recompute recompute) {
  MemoryLayout l;
  l.dp = dp_shard;
  l.cp = cp;
  l.zero = 3;
  l.micro_batch = micro_batch;
  l.recompute = recompute;
  l.gpus_per_node = 8;
  return l;
}

Result<bool> add_litgpt_load_peaks(std::vector<ValidationRow>& out);
Result<bool> add_torchtitan_moe(std::vector<ValidationRow>& out);

}  // namespace trainfit::validation_detail
