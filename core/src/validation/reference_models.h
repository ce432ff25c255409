// trainfit validation (internal) — model shapes the published runs name but the preset catalog does not carry.
#pragma once
#include <cstdint>

#include "trainfit/catalog/model.h"

namespace trainfit {

// A Llama-family model of the given shape (config.json field names), its other knobs the family's defaults.
inline ModelSpec llama_like(const char* name, int64_t h, int64_t layers, int64_t heads, int64_t kv, int64_t inter,
                            int64_t vocab, int64_t max_pos) {
  ModelSpec m;
  m.id = "custom";
  m.name = name;
  apply_family(m, Arch::llama);
  m.hidden_size = h;
  m.num_layers = layers;
  m.num_heads = heads;
  m.num_kv_heads = kv;
  m.intermediate_size = inter;
  m.vocab_size = vocab;
  m.max_position_embeddings = max_pos;
  return m;
}

}  // namespace trainfit
