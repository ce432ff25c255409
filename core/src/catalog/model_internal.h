// trainfit core (internal) — what the model catalog's sources share (model.cpp counts, model_spec.cpp checks).
#pragma once
#include "trainfit/catalog/model.h"

namespace trainfit::model_detail {

// Multi-head latent attention (DeepSeek MLA): the model has a compressed key/value latent.
inline bool is_mla(const ModelSpec& m) { return m.kv_lora_rank > 0; }

}  // namespace trainfit::model_detail
