// trainfit validation (internal) — model shapes the published runs name but the preset catalog does not carry.
#pragma once
#include <cstdint>

#include "trainfit/catalog/model.h"

namespace trainfit {

// A model of family `arch` and the given shape (config.json field names), id "custom", its other knobs the
// family's defaults (apply_family).
inline ModelSpec shaped_model(Arch arch, const char* name, int64_t h, int64_t layers, int64_t heads, int64_t kv,
                              int64_t inter, int64_t vocab, int64_t max_pos, bool tied) {
  ModelSpec m;
  m.id = "custom";
  m.name = name;
  apply_family(m, arch);
  m.hidden_size = h;
  m.num_layers = layers;
  m.num_heads = heads;
  m.num_kv_heads = kv;
  m.intermediate_size = inter;
  m.vocab_size = vocab;
  m.max_position_embeddings = max_pos;
  m.tie_embeddings = tied;
  return m;
}

// A Llama-family model of the given shape, untied embeddings.
inline ModelSpec llama_like(const char* name, int64_t h, int64_t layers, int64_t heads, int64_t kv, int64_t inter,
                            int64_t vocab, int64_t max_pos) {
  return shaped_model(Arch::llama, name, h, layers, heads, kv, inter, vocab, max_pos, false);
}

// A GPT-2-family model (learned positions, LayerNorm, biases, GELU MLP of 4h), multi-head attention, tied
// embeddings: the GPT-3 / Megatron / MPT shapes.
inline ModelSpec gpt_like(const char* name, int64_t h, int64_t layers, int64_t heads, int64_t vocab,
                          int64_t max_pos) {
  return shaped_model(Arch::gpt2, name, h, layers, heads, heads, 4 * h, vocab, max_pos, true);
}

}  // namespace trainfit
