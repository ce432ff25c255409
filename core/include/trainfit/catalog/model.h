// trainfit core — model catalog and exact parameter counts.
// OWNER NOTE: contract used by the memory estimator, planner and UI; extend, do not rename.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "trainfit/base/common.h"
#include "trainfit/catalog/job.h"

namespace trainfit {

struct ParamCounts {
  // MoE: `total` holds every expert, `active` the shared parts plus experts_per_token experts per MoE layer.
  double total = 0;        // every parameter stored (MoE: all experts) — what must fit
  double active = 0;       // parameters used per token (MoE: top-k experts) — what compute costs
  double embedding = 0;    // input embeddings (+ untied output head counted in `head`)
  double head = 0;         // untied LM head (0 when tied)
  double per_layer = 0;    // one transformer block (total, all experts; the average when dense and MoE mix)
  double expert = 0;       // MoE: the routed experts' parameters, all layers (what expert parallelism splits;
                           // the router and shared experts are dense parameters)
  double trainable = 0;    // depends on method; filled by the memory estimator
};

// Exact count from the architecture fields (Hugging Face parameter layout).
// params_only specs return the given total (active = total) and zero for the breakdown.
Result<ParamCounts> count_params(const ModelSpec& m);

// The architectures by their ids in data/models.json and in queries ("llama", "gpt2", ...: catalog/names.h kArchs).
bool arch_from_id(std::string_view id, Arch* out);
std::string arch_choices();  // "gpt2, llama, ..." for messages

// A family is a set of knob defaults: apply_family sets `arch` and every knob (mlp, norm, positional, bias,
// block, qk_norm, dropout, attention_sinks) to the family's values; the shape is left alone.
void apply_family(ModelSpec& m, Arch a);
ModelSpec family_spec(Arch a);

// The knobs that take a name ("mlp", "norm", "positional", "bias", "block", "qk_norm"): current value, and a
// setter that returns "" or the problem ("unknown value ...; expected one of: ...").
const std::vector<std::string_view>& text_knobs();
const char* text_knob(const ModelSpec& m, std::string_view key);
std::string set_text_knob(ModelSpec& m, std::string_view key, std::string_view value);
std::vector<const char*> text_knob_values(std::string_view key);  // the values a named knob takes
// The integer knobs (sliding window, MoE layout, multi-head latent attention), by JSON key.
struct IntKnob {
  const char* key;
  int64_t ModelSpec::*member;
};
const std::vector<IntKnob>& int_knobs();

// MoE layers of the stack: layer l (0-based) is MoE iff num_experts > 1, l >= first_k_dense and
// (l - first_k_dense + 1) is a multiple of moe_layer_step (DeepSeek first_k_dense_replace, Llama 4
// interleave_moe_layer_step, Qwen3-MoE decoder_sparse_step).
double moe_layer_count(const ModelSpec& m);
bool is_moe_layer(const ModelSpec& m, int64_t layer);
// A routed expert's MLP width: moe_intermediate_size, or the dense width where the config gives none (Mixtral).
int64_t expert_intermediate_size(const ModelSpec& m);

// Norm parameters in one transformer block (block norms, q/k norms, MLA's latent norms): what QLoRA keeps
// in 16 bits besides the quantised linears.
double norm_params_per_layer(const ModelSpec& m);

// Checks the architecture fields (positive sizes, heads dividing, experts_per_token <= num_experts, ...).
// `field_prefix` is prepended to the field names in the error ("/models/3", "model").
Result<bool> validate_model(const ModelSpec& m, const std::string& field_prefix = "model");

// head_dim, or hidden_size / num_heads when the config leaves it implicit (0).
int64_t effective_head_dim(const ModelSpec& m);

// A params-only model ({"params": 7e9}): the shape activations need is derived with a standard aspect
// ratio (documented in model.cpp); `params` keeps the user's total. The estimator warns that it did this.
Result<ModelSpec> model_from_params(double params);

// One model object with the keys of a data/models.json entry ("arch", "hidden_size", ...; or {"params": N}).
// Unknown keys and wrong types are errors naming the key.
Result<ModelSpec> parse_model_json(std::string_view json_text);

// A Hugging Face config.json (untrusted text): every knob derived from its fields (model_type decides the
// family; hf_config.cpp lists the supported types). Unknown model types and contradictory fields are errors
// naming the config field ("hf_config.num_key_value_heads").
Result<ModelSpec> model_from_hf_config(std::string_view json_text);

// Linear layers of one transformer block, for LoRA and Adafactor (Hugging Face module layout).
// Target names: "q", "k", "v", "o", "gate", "up", "down" (GPT-2 style and BERT/OPT/Falcon MLPs have
// only "up" = fc1 and "down" = fc2), or "all". Fused projections (GPT-2 c_attn, Falcon query_key_value,
// Phi-3 qkv_proj / gate_up_proj) carry one adapter when any of their parts is targeted, as PEFT does.
struct LoraCounts {
  double params = 0;             // adapter parameters, all layers (MoE: every expert's copy)
  double targeted_linears = 0;   // adapted linear modules per layer (MoE experts counted once each)
  bool attn_input = false;       // some q/k/v projection is adapted (its input must be kept for backward)
  bool attn_output = false;      // o is adapted
  bool mlp_input = false;        // gate/up (fc1) adapted
  bool mlp_output = false;       // down (fc2) adapted
};
Result<LoraCounts> lora_counts(const ModelSpec& m, int rank, const std::vector<std::string>& targets);

// Elements Adafactor keeps for its factored second moment (Shazeer & Stern 2018, Alg. 4: rows + cols per
// weight matrix, the full size for vectors), summed over the model.
double adafactor_state_elements(const ModelSpec& m);

// A catalog entry: the spec plus where its numbers come from.
struct ModelPreset {
  ModelSpec spec;
  std::string config_source;     // address of the config.json the fields were copied from
  double params_expected = 0;    // exact published parameter count; 0 when no public source gives one
  std::string params_source;     // where params_expected comes from
};
Result<std::vector<ModelPreset>> parse_model_presets(std::string_view json_text);
const std::vector<ModelPreset>& builtin_presets();

// Presets from data/models.json text.
Result<std::vector<ModelSpec>> parse_model_catalog(std::string_view json_text);

// The bundled catalog (compiled in from data/models.json at build time).
const std::vector<ModelSpec>& builtin_models();
const ModelSpec* find_model(std::string_view id);

}  // namespace trainfit
