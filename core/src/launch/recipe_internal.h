// trainfit core — launch recipes, shared by their files: the writers' context (Ctx), the launcher row, the text
// helpers and the writers each file provides to the others.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trainfit/launch/recipe.h"

namespace trainfit::recipe_detail {

// Gradient clipping: the plan does not choose it; 1.0 is the default of Hugging Face TrainingArguments
// (max_grad_norm) and of Megatron-LM (--clip-grad), so the recipe writes that default explicitly.
inline constexpr double kGradClip = 1.0;
// torchrun's rendezvous port on the master node (SkyPilot's and dstack's examples use 8008).
inline constexpr int kMasterPort = 8008;

// ---- text helpers (recipe.cpp) ----

std::string num_text(double v);
std::string itext(int64_t v);
// A number with one decimal ("1.0", "500000.0"): what YAML 1.1 readers (PyYAML) and TOML take as a float.
std::string one_decimal(double v);
std::string clip_text();
// A double-quoted string: '"' and '\\' escaped, control characters (and DEL) written with `control_format`
// (one printf conversion of the byte).
std::string double_quoted(std::string_view s, const char* control_format);
// A YAML double-quoted scalar.
std::string yq(std::string_view s);
// s if it holds only [A-Za-z0-9._/-] (and the characters in `extra`), else fallback.
std::string safe_token(std::string_view s, std::string_view fallback, std::string_view extra = "");

// ---- the launcher row and the writers' context ----

// Which tool launches which provider, under which name: the one table of launcher names (the GPU names are
// kAccelNames in recipe_launchers.cpp, dstack's derived from them by dstack_gpu_name).
//   sky        SkyPilot's cloud name: the clouds registered in SkyPilot's CLOUD_REGISTRY (sky/clouds/__init__.py,
//              skypilot-org/skypilot; Verda: sky/clouds/verda.py at 4744be40, Mithril: sky/clouds/mithril.py at
//              977f5bd8, Yotta: sky/clouds/yotta.py at 1a70f410). Lium, Spheron, Daytona, Hyperstack and JarvisLabs
//              have catalog files (skypilot-catalog v8) but SkyPilot's task schema rejects them as clouds: nullptr.
//   sky_mount  the cloud lacks CloudImplementationFeatures.STORAGE_MOUNTING in _CLOUD_UNSUPPORTED_FEATURES, so a
//              bucket can be mounted (mode: MOUNT); Verda and Yotta list it as unsupported (yotta.py at 1a70f410)
//   dstack     dstack's BackendType value (src/dstack/_internal/core/models/backends/base.py, dstackai/dstack at
//              511c318c): Vast.ai is "vastai"; providers without a backend: nullptr
struct Launcher {
  const char* provider;
  const char* sky;
  bool sky_mount;
  const char* dstack;
};
// The kLaunchers row of a provider (the table is in recipe_launchers.cpp); nullptr when no tool launches it.
const Launcher* launcher_of(const std::string& provider);

// Everything the writers share.
struct Ctx {
  const Query& q;
  const Snapshot& s;
  Recipe& r;
  const Offer& offer;
  const GpuSpec& gpu;
  std::string provider_id;
  const Launcher* launch = nullptr;  // kLaunchers row of provider_id; nullptr: no tool launches it
  bool spot = false;
  bool deepspeed = false;        // the hf engine runs DeepSpeed (ZeRO > 0 or offload)
  std::string job_name;
  std::string model_ref;         // Hugging Face repo id or placeholder
  std::string ckpt_dir;          // where checkpoints go ("/checkpoints" bucket mount for spot)

  // The placeholder for `what`, listed in Recipe::placeholders on first use (defined in recipe.cpp).
  std::string fill(const std::string& what);
  // A placeholder inside a shell command: single-quoted, so an unfilled one fails as "No such file" instead of
  // being read as a redirection.
  std::string sh_fill(const std::string& what);
};

// ---- the training command (recipe_command.cpp) ----

// "a", "a and b", "a, b and c".
std::string join_words(const std::vector<std::string>& w);
// The Megatron-LM flags that rebuild the model's architecture in pretrain_gpt.py's GPT model, knob by knob, and the
// parts no flag expresses (the recipe leaves a named blank for them instead of training another architecture).
// Flag names and defaults: megatron/training/arguments.py and megatron/core/transformer/transformer_config.py at
// d98e8a64 (defaults: LayerNorm, GELU, learned positions, biases on, tied embeddings, dropout 0.1).
struct MegatronArch {
  std::vector<std::string> flags;
  std::vector<std::string> missing;
};
MegatronArch megatron_arch(const ModelSpec& m, int tp);
// The Megatron-LM arguments of the plan, one "--flag value" per entry.
std::vector<std::string> megatron_args(Ctx& c);
// A plan whose only model parallelism is Ulysses context parallelism runs on the Hugging Face path.
bool hf_ulysses(const MemoryLayout& l);
// So does a ring-only plan under a trainer whose ring is accelerate's context parallelism (framework.h
// ring_cp_fsdp2): FSDP2, not DeepSpeed.
bool hf_ring_cp(const MemoryLayout& l, const TrainConfig& t);
// Either of the two: context parallelism on the Hugging Face path.
inline bool hf_context_parallel(const MemoryLayout& l, const TrainConfig& t) { return hf_ulysses(l) || hf_ring_cp(l, t); }
// The environment of accelerate's parallelism_config for a Hugging Face Ulysses or ring plan, with its FSDP2
// plugin's for the ring ("" otherwise).
std::string hf_parallelism_env(Ctx& c);
// accelerate's plugin settings, written once for both of its readers: a config file's section (`prefix` + key:
// value) and the environment accelerate launch exports for it (PREFIX_KEY=value, utils/launch.py).
struct AccelerateSetting {
  const char* key;
  std::string value;
};
std::vector<AccelerateSetting> fsdp_settings(const MemoryLayout& l, bool v2);  // fsdp_config; v2: FSDP2's keys
std::vector<AccelerateSetting> parallelism_settings(const MemoryLayout& l);      // parallelism_config
std::string accelerate_settings_yaml(const char* section, const char* prefix, const std::vector<AccelerateSetting>& s);
std::string accelerate_settings_env(const char* prefix, const std::vector<AccelerateSetting>& s);
// CUDA_DEVICE_MAX_CONNECTIONS=1 for Megatron plans with TP or CP > 1; for_megatron_file: the megatron arguments
// file, written for a plan the Hugging Face path launches too.
std::string megatron_env(Ctx& c, bool for_megatron_file = false);
// The spot resume step of the Hugging Face Trainer ("" otherwise).
std::string resume_lines(Ctx& c);
// torchrun with the given node-count / rank / address expressions, then the script and its arguments, one per
// line (backslash continuations), every line prefixed by `indent`.
std::string torchrun_command(Ctx& c, const std::string& nnodes, const std::string& nproc, const std::string& rank,
                             const std::string& addr, const std::string& indent);
std::string indent_lines(const std::string& text, const std::string& indent);

// ---- the framework configs (recipe_configs.cpp) ----

std::string deepspeed_json(Ctx& c);
std::string accelerate_yaml(Ctx& c);
std::string torchrun_sh(Ctx& c);
std::string megatron_sh(Ctx& c);

// ---- torchtitan's job config (recipe_torchtitan.cpp) ----

// What of a torchtitan plan torchtitan.toml cannot carry ("" when it carries all of it): fp16, an optimizer-only
// offload, an expert layout torchtitan's meshes do not build, a pipeline split it cannot make.
std::string torchtitan_limits(const Query& q, const Recipe& r);
// Why torchtitan.toml does not apply ("" when the launchers run it): another framework's plan, or the limits above.
std::string torchtitan_why_not(const Ctx& c);
std::string torchtitan_toml(Ctx& c);

// ---- nanotron's config (recipe_nanotron.cpp) ----

// What of a nanotron plan nanotron.yaml cannot carry ("" when it carries all of it): a precision other than bf16, an
// optimizer other than AdamW or SGD, a layout beyond TP x PP x DP with ZeRO-1, a model it cannot write.
std::string nanotron_limits(const Query& q, const Recipe& r);
// Why nanotron.yaml does not apply ("" when the launchers run it): another framework's plan, or the limits above.
std::string nanotron_why_not(const Ctx& c);
std::string nanotron_yaml(Ctx& c);

// ---- the launchers (recipe_launchers.cpp) ----

std::string skypilot_yaml(Ctx& c);
std::string dstack_yaml(Ctx& c);

}  // namespace trainfit::recipe_detail
