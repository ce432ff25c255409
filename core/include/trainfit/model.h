// trainfit core — model catalog and exact parameter counts.
// OWNER NOTE: contract used by the memory estimator, planner and UI; extend, do not rename.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "trainfit/common.h"
#include "trainfit/job.h"

namespace trainfit {

struct ParamCounts {
  double total = 0;        // every parameter stored (MoE: all experts) — what must fit
  double active = 0;       // parameters used per token (MoE: top-k experts) — what compute costs
  double embedding = 0;    // input embeddings (+ untied output head counted in `head`)
  double head = 0;         // untied LM head (0 when tied)
  double per_layer = 0;    // one transformer block (total, all experts)
  double trainable = 0;    // depends on method; filled by the memory estimator
};

// Exact count from the architecture fields (Hugging Face parameter layout).
Result<ParamCounts> count_params(const ModelSpec& m);

// Presets from data/models.json text.
Result<std::vector<ModelSpec>> parse_model_catalog(std::string_view json_text);

// The bundled catalog (compiled in from data/models.json at build time).
const std::vector<ModelSpec>& builtin_models();
const ModelSpec* find_model(std::string_view id);

}  // namespace trainfit
