// trainfit core — launch recipes (recipe.h): the plan of one ranked offer written as the files that launch it.
// Field names are the tools' own, checked against their documentation:
//   SkyPilot  task YAML: https://docs.skypilot.co/en/v0.9.1/reference/yaml-spec.html (num_nodes, resources.cloud /
//             region / instance_type / accelerators / use_spot / disk_size, file_mounts with name + mode: MOUNT,
//             setup, run); distributed env vars SKYPILOT_NUM_NODES, SKYPILOT_NODE_RANK, SKYPILOT_NODE_IPS,
//             SKYPILOT_NUM_GPUS_PER_NODE: https://docs.skypilot.co/en/stable/running-jobs/distributed-jobs.html
//   dstack    task configuration (type: task, nodes, commands, resources.gpu "name:memory:count", resources.disk,
//             spot_policy, backends, regions): dstack docs/docs/concepts/tasks.md and reference/dstack.yml/task.md;
//             env vars DSTACK_NODES_NUM, DSTACK_NODE_RANK, DSTACK_MASTER_NODE_IP, DSTACK_GPUS_PER_NODE (dstack 0.18
//             release notes, "Clusters")
//   DeepSpeed config JSON: https://www.deepspeed.ai/docs/config-json/ (train_batch_size =
//             train_micro_batch_size_per_gpu x gradient_accumulation_steps x data-parallel GPUs; gradient_clipping;
//             bf16.enabled / fp16.enabled; zero_optimization.stage, offload_optimizer.device, offload_param.device)
//   accelerate config YAML (accelerate config / examples/config_yaml_templates): compute_environment,
//             distributed_type, mixed_precision, num_machines, num_processes, machine_rank, main_process_ip,
//             main_process_port, fsdp_config.fsdp_sharding_strategy, deepspeed_config.zero_stage, ...
//   torchrun  https://pytorch.org/docs/stable/elastic/run.html (--nnodes, --nproc-per-node, --node-rank,
//             --master-addr, --master-port); the training script's arguments are Hugging Face TrainingArguments
//             (per_device_train_batch_size, gradient_accumulation_steps, max_steps, bf16, fp16,
//             gradient_checkpointing, max_grad_norm, save_steps, save_total_limit, deepspeed, resume_from_checkpoint)
//             and, for LoRA, TRL's ModelConfig (use_peft, lora_r, lora_target_modules, load_in_4bit,
//             use_bnb_nested_quant)
//   Megatron  megatron/training/arguments.py (--tensor-model-parallel-size, --pipeline-model-parallel-size,
//             --context-parallel-size, --num-layers-per-virtual-pipeline-stage, --sequence-parallel,
//             --account-for-embedding-in-pipeline-split, --account-for-loss-in-pipeline-split,
//             --num-virtual-stages-per-pipeline-rank, --decoder-first/last-pipeline-num-layers,
//             --use-distributed-optimizer, --recompute-granularity,
//             --recompute-method, --recompute-num-layers, --micro-batch-size, --global-batch-size, --seq-length,
//             --bf16, --fp16, --fp8-format, --clip-grad, --train-iters, --save, --load, --save-interval)
#include "trainfit/launch/recipe.h"

#include "trainfit/catalog/framework.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "market/offer_plan.h"
#include "trainfit/market/rank.h"

namespace trainfit {
namespace {

// SkyPilot's default disk_size (sky/resources.py DEFAULT_DISK_SIZE_GB): recipes never ask for less.
constexpr double kSkyPilotDefaultDiskGB = 256;
// Gradient clipping: the plan does not choose it; 1.0 is the default of Hugging Face TrainingArguments
// (max_grad_norm) and of Megatron-LM (--clip-grad), so the recipe writes that default explicitly.
constexpr double kGradClip = 1.0;
// torchrun's rendezvous port on the master node (SkyPilot's and dstack's examples use 8008).
constexpr int kMasterPort = 8008;

std::string num_text(double v) {
  char b[40];
  if (v == std::floor(v) && std::fabs(v) < 9e15) std::snprintf(b, sizeof b, "%lld", static_cast<long long>(v));
  else std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}
std::string itext(int64_t v) { return std::to_string(v); }
std::string clip_text() {
  char b[16];
  std::snprintf(b, sizeof b, "%.1f", kGradClip);
  return b;
}

// A YAML double-quoted scalar (YAML 1.2 §7.3.1): backslash and quote escaped, control characters as \xNN. Every
// string that comes from the snapshot or the query is written this way, so no value can change the structure.
std::string yq(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// Only [A-Za-z0-9._/-] (and the characters in `extra`) survive: for names that go into comments, shell commands
// and job names.
std::string safe_token(std::string_view s, std::string_view fallback, std::string_view extra = "") {
  std::string out;
  for (char c : s)
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
        c == '/' || (c != '\0' && extra.find(c) != std::string_view::npos))
      out += c;
  return out.empty() || out.size() != s.size() ? std::string(fallback) : out;
}

// The accelerator names SkyPilot's catalogs use (AcceleratorName column of the v9 vms.csv files of aws, gcp,
// lambda, oci, nebius, cudo, fluidstack and v8 runpod, vast, shadeform, primeintellect, spheron, lium, seeweb, checked against the bundled snapshot's offers). First
// match wins; provider "" matches any provider, instance prefix "" any instance type.
struct AccelName {
  const char* provider;
  const char* instance_prefix;
  const char* gpu;
  const char* name;
};
constexpr AccelName kAccelNames[] = {
    {"gcp", "a3-megagpu", "h100-sxm", "H100-MEGA"},
    {"cudo", "", "h100-sxm", "H100-SXM"},
    {"fluidstack", "", "h100-sxm", "H100-NVLINK"},
    {"cudo", "", "a100-pcie-80gb", "A100"},
    {"cudo", "", "rtx-a6000", "RTXA6000"},
    {"cudo", "", "rtx-a5000", "RTXA5000"},
    // Vast.ai's v8 AcceleratorName column (data/raw/skypilot-catalog/v8/vast/vms.csv): "A100" for 40 and 80 GB.
    {"vast", "", "a100-sxm-80gb", "A100"},
    {"vast", "", "a100-pcie-80gb", "A100"},
    {"vast", "", "rtx-a6000", "RTXA6000"},
    {"vast", "", "rtx-6000-ada", "RTX6000-Ada"},
    {"vast", "", "rtx-pro-6000-blackwell-server", "RTXPRO6000S"},
    {"vast", "", "rtx-a2000", "RTXA2000"},
    {"vast", "", "rtx-3060-ti", "RTX3060"},
    {"vast", "", "rtx-4070-ti-super", "RTX4070"},
    {"vast", "", "rtx-4060-ti-16gb", "RTX4060"},
    // Shadeform's v8 AcceleratorName column (v8/shadeform/vms.csv); its generic names (A6000, A100-80GB, L40S...)
    // are the defaults below.
    {"shadeform", "", "rtx-6000-ada", "RTX6000Ada"},
    {"shadeform", "", "rtx-a4000", "A4000"},
    {"shadeform", "", "rtx-a5000", "A5000"},
    // Prime Intellect, Spheron, Lium and Seeweb (their v8 AcceleratorName columns).
    {"primeintellect", "", "rtx-6000-ada", "RTX6000Ada"},
    {"primeintellect", "", "rtx-a4000", "A4000"},
    {"spheron", "", "h100-sxm", "H100_SXM5"},
    {"spheron", "", "h100-pcie", "H100_PCIE"},
    {"spheron", "", "h100-nvl", "H100_NVL"},
    {"spheron", "", "a100-sxm-80gb", "A100_80G_SXM4"},
    {"spheron", "", "a100-pcie-80gb", "A100_80G_PCIE"},
    {"spheron", "", "l40s", "L40S_PCIE"},
    {"spheron", "", "l40", "L40_PCIE"},
    {"spheron", "", "l4", "L4_PCIE"},
    {"spheron", "", "rtx-6000-ada", "RTX6000ADA_PCIE"},
    {"spheron", "", "rtx-5090", "RTX5090_PCIE"},
    {"spheron", "", "rtx-a5000", "A5000_PCIE"},
    {"spheron", "", "rtx-a4000", "A4000_PCIE"},
    {"spheron", "", "a16", "A16_PCIE"},
    {"spheron", "", "v100-pcie-32gb", "V100_32G_PCIE"},
    {"lium", "", "rtx-6000-ada", "RTX6000-Ada"},
    {"lium", "", "h100-sxm", "H100-SXM"},
    {"lium", "", "rtx-pro-6000-blackwell-workstation", "RTXPRO6000-WK"},
    {"seeweb", "", "rtx-a6000", "RTXA6000"},
    {"", "", "a16", "A16"},
    {"", "", "l40", "L40"},
    {"", "", "rtx-5090", "RTX5090"},
    {"", "", "rtx-4090", "RTX4090"},
    {"", "", "rtx-3090", "RTX3090"},
    {"", "", "rtx-3080", "RTX3080"},
    {"", "", "rtx-3070", "RTX3070"},
    {"", "", "rtx-3060", "RTX3060"},
    {"", "", "h100-nvl", "H100"},
    {"", "", "h100-sxm", "H100"},
    {"", "", "h100-pcie", "H100"},
    {"", "", "h200-sxm", "H200"},
    {"", "", "gh200-96gb", "GH200"},
    {"", "", "b200", "B200"},
    {"", "", "b300", "B300"},
    {"", "", "a100-sxm-80gb", "A100-80GB"},
    {"", "", "a100-pcie-80gb", "A100-80GB"},
    {"", "", "a100-sxm-40gb", "A100"},
    {"", "", "a100-pcie-40gb", "A100"},
    {"", "", "l40s", "L40S"},
    {"", "", "l4", "L4"},
    {"", "", "t4", "T4"},
    {"", "", "v100-sxm2-16gb", "V100"},
    {"", "", "v100-sxm2-32gb", "V100-32GB"},
    {"", "", "a10", "A10"},
    {"", "", "a10g", "A10G"},
    {"", "", "rtx-a6000", "A6000"},
    {"", "", "quadro-rtx-6000", "RTX6000"},
    {"", "", "a40", "A40"},
    {"", "", "rtx-pro-6000-blackwell-server", "RTXPRO6000"},
};

// Which tool launches which provider, under which name: the one table of launcher names (the GPU names are
// kAccelNames above, dstack's derived from them by dstack_gpu_name).
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
constexpr Launcher kLaunchers[] = {
    {"aws", "aws", true, "aws"},
    {"gcp", "gcp", true, "gcp"},
    {"azure", "azure", true, "azure"},
    {"nebius", "nebius", true, "nebius"},
    {"oci", "oci", true, "oci"},
    {"lambda", "lambda", false, "lambda"},
    {"cudo", "cudo", false, "cudo"},
    {"runpod", "runpod", false, "runpod"},
    {"verda", "verda", false, "verda"},
    {"vast", "vast", false, "vastai"},
    {"fluidstack", "fluidstack", false, nullptr},
    {"shadeform", "shadeform", false, nullptr},
    {"primeintellect", "primeintellect", false, nullptr},
    {"hyperbolic", "hyperbolic", false, nullptr},
    {"seeweb", "seeweb", false, nullptr},
    {"mithril", "mithril", false, nullptr},
    {"yotta", "yotta", false, nullptr},
    {"paperspace", "paperspace", false, nullptr},
    {"jarvislabs", nullptr, false, "jarvislabs"},
    {"crusoe", nullptr, false, "crusoe"},
    {"vultr", nullptr, false, "vultr"},
};
const Launcher* launcher_of(const std::string& provider) {
  for (const Launcher& x : kLaunchers)
    if (provider == x.provider) return &x;
  return nullptr;
}

// dstack's GPU names (gpuhunt): the SkyPilot name without a memory or form-factor suffix ("A100-80GB" -> "A100",
// "RTX6000-Ada" -> "RTX6000Ada", cudo "RTXA6000" -> "A6000"); the memory goes in the "name:memory:count" form.
std::string dstack_gpu_name(const std::string& sky) {
  for (const char* suffix : {"-80GB", "-32GB", "-SXM", "-NVLINK", "-MEGA"}) {
    const std::string_view sv(suffix);
    if (sky.size() > sv.size() && sky.compare(sky.size() - sv.size(), sv.size(), sv) == 0)
      return sky.substr(0, sky.size() - sv.size());
  }
  if (sky == "RTX6000-Ada") return "RTX6000Ada";
  if (sky == "RTXPRO6000S") return "RTXPRO6000";
  if (sky.rfind("RTXA", 0) == 0) return sky.substr(3);
  return sky;
}

// dstack matches resources.gpu memory against its catalog's figure (gpuhunt: AWS p6-b200 179.06 for a 180 GB
// B200, L40S 44.99 for 48 GB): a single value must equal it, so the recipe asks for the datasheet label +-10 %,
// a range that holds the catalog figure and still tells the 40 GB from the 80 GB A100.
std::string dstack_memory_range(double memory_bytes) {
  const double label = memory_bytes / kGB;
  return num_text(std::floor(label * 0.9)) + "GB.." + num_text(std::ceil(label * 1.1)) + "GB";
}

bool llama_family(Arch a) {
  return a == Arch::llama || a == Arch::qwen2 || a == Arch::mistral || a == Arch::mixtral || a == Arch::gemma2;
}

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

  std::string fill(const std::string& what) {
    std::string p = std::string(kFillPrefix) + what + ">";
    if (std::find(r.placeholders.begin(), r.placeholders.end(), p) == r.placeholders.end()) r.placeholders.push_back(p);
    return p;
  }
  // A placeholder inside a shell command: single-quoted, so an unfilled one fails as "No such file" instead of
  // being read as a redirection.
  std::string sh_fill(const std::string& what) { return "'" + fill(what) + "'"; }
};

// ---- the training command (shared by the launchers and torchrun.sh) -------------------------------------------

// "a", "a and b", "a, b and c".
std::string join_words(const std::vector<std::string>& w) {
  std::string t;
  for (size_t i = 0; i < w.size(); ++i) t += (i == 0 ? "" : i + 1 == w.size() ? " and " : ", ") + w[i];
  return t;
}

// The Megatron-LM flags that rebuild the model's architecture in pretrain_gpt.py's GPT model, knob by knob, and the
// parts no flag expresses (the recipe leaves a named blank for them instead of training another architecture).
// Flag names and defaults: megatron/training/arguments.py and megatron/core/transformer/transformer_config.py at
// d98e8a64 (defaults: LayerNorm, GELU, learned positions, biases on, tied embeddings, dropout 0.1).
struct MegatronArch {
  std::vector<std::string> flags;
  std::vector<std::string> missing;
};

MegatronArch megatron_arch(const ModelSpec& m, int tp) {
  MegatronArch r;
  auto add = [&](std::string f) { r.flags.push_back(std::move(f)); };
  if (m.arch == Arch::bert) r.missing.push_back("an encoder (Megatron-LM trains BERT with pretrain_bert.py)");
  switch (m.mlp) {
    case Mlp::swiglu: add("--swiglu"); break;
    // GPT-2's gelu_new is the tanh approximation, Megatron's --openai-gelu; other GELU models use the erf default.
    case Mlp::gelu: if (m.arch == Arch::gpt2) add("--openai-gelu"); break;
    case Mlp::relu: r.missing.push_back("a ReLU MLP"); break;
    case Mlp::geglu: r.missing.push_back("a GeGLU MLP"); break;
  }
  if (m.norm == Norm::rmsnorm) add("--normalization RMSNorm");
  switch (m.positional) {
    case Positional::rope:
      add("--position-embedding-type rope");
      // Megatron's default --rotary-base is 10000; Llama 3 uses 500000, Qwen3 1000000.
      if (m.rope_theta > 0) add("--rotary-base " + itext(m.rope_theta));
      // Llama 3.x rope scaling (--use-rope-scaling, --rope-scaling-factor: "as used in llama3.x").
      if (m.rope_llama3_factor > 0) add("--use-rope-scaling --rope-scaling-factor " + itext(m.rope_llama3_factor));
      break;
    case Positional::learned: break;
    case Positional::none: add("--position-embedding-type none"); break;
    case Positional::alibi: r.missing.push_back("ALiBi positions"); break;
  }
  switch (m.bias) {
    case Bias::none: add("--disable-bias-linear"); break;
    case Bias::qkv: add("--disable-bias-linear --add-qkv-bias"); break;
    case Bias::attention: r.missing.push_back("biases on the attention projections only"); break;
    case Bias::all: break;
  }
  if (m.block == Block::post) r.missing.push_back("post-norm blocks");
  else if (m.block == Block::sandwich) r.missing.push_back("sandwich norms (pre + post)");
  else if (m.block == Block::parallel) r.missing.push_back("parallel attention + MLP blocks");
  // Per-head q/k norm (Qwen3): Megatron's --qk-layernorm normalises each head with the model's norm.
  if (m.qk_norm == QkNorm::head) add("--qk-layernorm");
  else if (m.qk_norm == QkNorm::full) r.missing.push_back("a q/k norm over the whole projection");
  // kv_channels defaults to hidden / heads; Qwen3 and Mistral Nemo use head_dim 128 that differs from it.
  if (m.kv_lora_rank > 0) {
    add("--multi-latent-attention --kv-lora-rank " + itext(m.kv_lora_rank) + " --qk-head-dim " +
        itext(m.qk_nope_head_dim) + " --qk-pos-emb-head-dim " + itext(m.qk_rope_head_dim) + " --v-head-dim " +
        itext(m.v_head_dim));
    if (m.q_lora_rank > 0) add("--q-lora-rank " + itext(m.q_lora_rank));
  } else if (m.num_heads > 0 && effective_head_dim(m) != m.hidden_size / m.num_heads) {
    add("--kv-channels " + itext(effective_head_dim(m)));
  }
  // Sliding windows: Megatron's window (left, right) attends to left + 1 tokens including itself (Megatron-Bridge
  // exaone45_bridge.py: (sliding_window - 1, 0)); --window-attn-skip-freq N = one full layer after N - 1 windowed.
  if (m.sliding_window > 0) {
    add("--window-size " + itext(m.sliding_window - 1) + ",0");
    if (m.global_every > 0) add("--window-attn-skip-freq " + itext(m.global_every));
  }
  if (m.attention_sinks) add("--softmax-type learnable");
  // MoE layers: dense first layers (DeepSeek) or interleaving (Llama 4) as --moe-layer-freq's list (1 = MoE).
  if (m.num_experts > 1 && (m.first_k_dense > 0 || m.moe_layer_step > 1)) {
    std::string pattern = "[";
    for (int64_t i = 0; i < m.num_layers; ++i) pattern += std::string(i ? "," : "") + (is_moe_layer(m, i) ? "1" : "0");
    add("--moe-layer-freq '" + pattern + "]'");
  }
  if (!m.tie_embeddings) add("--untie-embeddings-and-output-weights");
  // Megatron pads the vocabulary to a multiple of 128 x TP unless --padded-vocab-size is given; the model's own
  // size keeps its parameter count (rounded up to a multiple of TP, which the vocab-parallel embedding needs).
  if (m.vocab_size > 0) add("--padded-vocab-size " + itext((m.vocab_size + tp - 1) / tp * tp));
  // Megatron's dropout defaults are 0.1; models trained without dropout (every modern LLM) set 0.
  if (!m.dropout) add("--attention-dropout 0.0 --hidden-dropout 0.0");
  // Families whose remaining parts no knob describes.
  if (m.arch == Arch::deepseek_v3)
    r.missing.push_back("DeepSeek-V3's router (sigmoid scores with expert bias, group-limited top-k) and YaRN rope");
  if (m.arch == Arch::llama4) r.missing.push_back("Llama 4's chunked attention, NoPE layers and sigmoid router");
  if (m.arch == Arch::gpt_oss) r.missing.push_back("gpt-oss's clamped SwiGLU and YaRN rope");
  if (m.arch == Arch::gemma2) r.missing.push_back("Gemma 2's logit soft-capping");
  return r;
}

// The Megatron-LM arguments of the plan, one "--flag value" per entry.
std::vector<std::string> megatron_args(Ctx& c) {
  const Plan& p = c.r.plan;
  const MemoryLayout& l = p.layout;
  const ModelSpec& m = c.q.model;
  std::vector<std::string> a;
  a.push_back("--tensor-model-parallel-size " + itext(l.tp));
  a.push_back("--pipeline-model-parallel-size " + itext(l.pp));
  if (l.cp > 1) a.push_back("--context-parallel-size " + itext(l.cp));
  // Ulysses under Megatron-Core: the a2a communication type (transformer_config.py cp_comm_type; p2p, the ring, is
  // its default).
  if (l.cp > 1 && l.cp_ulysses) a.push_back("--cp-comm-type a2a");
  // Expert parallelism (Megatron-LM arguments.py --expert-model-parallel-size / --expert-tensor-parallel-size): the
  // routed experts over ep ranks, each expert over etp ranks (written when it differs from TP, Megatron's default).
  if (l.ep > 1) a.push_back("--expert-model-parallel-size " + itext(l.ep));
  if (l.etp > 0 && l.etp != l.tp) a.push_back("--expert-tensor-parallel-size " + itext(l.etp));
  // Interleaved 1F1B: vp virtual stages per pipeline rank, each num_layers / (pp x vp) layers (Megatron-LM
  // arguments.py); written only when the plan has them.
  // Uneven stages (framework.h megatron_pipeline_split): the embedding / loss counted as a layer, or the first and
  // last stages' own counts.
  const MegatronPipelineSplit split = megatron_pipeline_split(m.num_layers, l.pp, l.vp);
  if (l.pp > 1 && m.num_layers > 0 && split.ok && !split.even) {
    if (split.embedding_counted) a.push_back("--account-for-embedding-in-pipeline-split");
    if (split.loss_counted) a.push_back("--account-for-loss-in-pipeline-split");
    if (split.first > 0) a.push_back("--decoder-first-pipeline-num-layers " + itext(split.first));
    if (split.last > 0) a.push_back("--decoder-last-pipeline-num-layers " + itext(split.last));
    if (l.vp > 1) a.push_back("--num-virtual-stages-per-pipeline-rank " + itext(l.vp));
  } else if (l.vp > 1 && l.pp > 1 && m.num_layers > 0) {
    a.push_back("--num-layers-per-virtual-pipeline-stage " + itext(m.num_layers / (static_cast<int64_t>(l.pp) * l.vp)));
  }
  if (l.sequence_parallel) a.push_back("--sequence-parallel");
  // The megatron-core profile's time assumes the TP collectives overlapped with the GEMMs (framework.h
  // tp_comm_overlap; Transformer Engine userbuffers, which need sequence parallelism); the interleaved p2p overlap
  // it also assumes is Megatron-LM's default.
  if (framework_profile(c.q.train.framework).tp_comm_overlap && l.tp > 1 && l.sequence_parallel)
    a.push_back("--tp-comm-overlap");
  // Megatron's distributed optimizer shards the optimizer states over data parallel ranks (ZeRO-1).
  if (l.zero >= 1) a.push_back("--use-distributed-optimizer");
  // grad_reduce bf16: a 16-bit gradient buffer reduced in bf16 (framework.h grad_element_bytes).
  if (c.q.train.grad_reduce == GradReduce::bf16) a.push_back("--grad-reduce-in-bf16");
  // ... with the gradient reduce-scatter and parameter all-gather overlapped, as the megatron-core profile's time
  // assumes (framework.h dp_overlap_param_gather).
  if (l.zero == 1 && l.dp * l.cp > 1 && framework_profile(c.q.train.framework).dp_overlap_param_gather)
    a.push_back("--overlap-grad-reduce --overlap-param-gather");
  if (l.recompute == Recompute::full)
    a.push_back("--recompute-granularity full --recompute-method uniform --recompute-num-layers 1");
  else if (l.recompute == Recompute::selective)
    a.push_back("--recompute-granularity selective");
  a.push_back("--micro-batch-size " + itext(l.micro_batch));
  a.push_back("--global-batch-size " + itext(p.global_batch));
  a.push_back("--seq-length " + itext(c.q.train.seq_len));
  if (m.arch != Arch::params_only) {
    a.push_back("--num-layers " + itext(m.num_layers));
    a.push_back("--hidden-size " + itext(m.hidden_size));
    if (m.intermediate_size > 0) a.push_back("--ffn-hidden-size " + itext(m.intermediate_size));
    a.push_back("--num-attention-heads " + itext(m.num_heads));
    if (m.num_kv_heads > 0 && m.num_kv_heads != m.num_heads)
      a.push_back("--group-query-attention --num-query-groups " + itext(m.num_kv_heads));
    a.push_back("--max-position-embeddings " + itext(std::max(m.max_position_embeddings, c.q.train.seq_len)));
    if (m.num_experts > 1) {
      a.push_back("--num-experts " + itext(m.num_experts) + " --moe-router-topk " + itext(m.experts_per_token));
      // The routed experts' width, grouped GEMMs and the token dispatcher the megatron-core time model assumes
      // (framework.h moe_efficiency, moe_dispatch_per_node): all-to-all inside a node, DeepEP across nodes.
      if (m.moe_intermediate_size > 0) a.push_back("--moe-ffn-hidden-size " + itext(m.moe_intermediate_size));
      if (m.shared_expert_intermediate_size > 0)
        a.push_back("--moe-shared-expert-intermediate-size " + itext(m.shared_expert_intermediate_size));
      a.push_back("--moe-grouped-gemm");
      if (l.ep > c.r.gpus_per_node)
        a.push_back("--moe-token-dispatcher-type flex --moe-enable-deepep");
      else
        a.push_back("--moe-token-dispatcher-type alltoall");
    }
    const MegatronArch arch = megatron_arch(m, l.tp);
    a.insert(a.end(), arch.flags.begin(), arch.flags.end());
    if (!arch.missing.empty())
      a.push_back(c.sh_fill("Megatron-LM flags for " + join_words(arch.missing)));
  } else {
    a.push_back("--num-layers " + c.sh_fill("num layers") + " --hidden-size " + c.sh_fill("hidden size") +
                " --num-attention-heads " + c.sh_fill("attention heads"));
  }
  if (c.r.precision == "bf16") a.push_back("--bf16");
  else if (c.r.precision == "fp16") a.push_back("--fp16");
  else if (c.r.precision == "fp8") a.push_back("--bf16 --fp8-format hybrid");
  a.push_back("--clip-grad " + clip_text());
  a.push_back("--train-iters " + num_text(c.r.steps));
  a.push_back("--lr " + c.sh_fill("learning rate"));
  a.push_back("--data-path " + c.sh_fill("dataset path (Megatron indexed dataset prefix)"));
  a.push_back("--tokenizer-type HuggingFaceTokenizer --tokenizer-model " + c.model_ref);
  // --load of the save directory resumes from its latest checkpoint (latest_checkpointed_iteration.txt).
  a.push_back("--save " + c.ckpt_dir + " --load " + c.ckpt_dir);
  a.push_back("--save-interval " + itext(c.r.save_interval_steps));
  return a;
}

// Megatron-LM's validate_args (megatron/training/arguments.py at d98e8a64) asserts CUDA_DEVICE_MAX_CONNECTIONS=1
// when tensor or context parallelism is > 1 on GPUs before Blackwell (the communication kernels are then queued
// ahead of the GEMMs they overlap); set for every such plan (Blackwell no longer needs it; the value is allowed).
// A plan whose only model parallelism is Ulysses context parallelism runs on the Hugging Face path: DeepSpeed's
// ALST / Ulysses through accelerate's parallelism_config (sp_backend deepspeed; Hugging Face blog "ulysses-sp",
// accelerate >= 1.12, deepspeed >= 0.18.1, transformers >= 5.0).
bool hf_ulysses(const MemoryLayout& l) { return l.cp > 1 && l.cp_ulysses && l.tp == 1 && l.pp == 1 && l.ep == 1; }

// The environment accelerate's launcher exports for a parallelism_config (accelerate commands/launch.py:
// ACCELERATE_USE_PARALLELISM_CONFIG and PARALLELISM_CONFIG_*), read by Accelerator.__init__ when the Trainer starts
// under torchrun: dp_replicate x dp_shard x sp = the processes.
std::string ulysses_env(Ctx& c) {
  const MemoryLayout& l = c.r.plan.layout;
  if (c.r.engine != "hf" || !hf_ulysses(l)) return "";
  return "export ACCELERATE_USE_PARALLELISM_CONFIG=true\n"
         "export PARALLELISM_CONFIG_DP_REPLICATE_SIZE=1\n"
         "export PARALLELISM_CONFIG_DP_SHARD_SIZE=" + itext(l.dp) + "\n"
         "export PARALLELISM_CONFIG_SP_SIZE=" + itext(l.cp) + "\n"
         "export PARALLELISM_CONFIG_SP_BACKEND=deepspeed\n";
}

// for_megatron_file: the megatron arguments file, written for a plan the Hugging Face path launches too.
std::string megatron_env(Ctx& c, bool for_megatron_file = false) {
  const MemoryLayout& l = c.r.plan.layout;
  if ((c.r.engine != "megatron" && !for_megatron_file) || !(l.tp > 1 || l.cp > 1)) return "";
  return "export CUDA_DEVICE_MAX_CONNECTIONS=1\n";
}

// The Hugging Face Trainer (+ TRL for LoRA) arguments of the plan.
std::vector<std::string> hf_args(Ctx& c) {
  const Plan& p = c.r.plan;
  const MemoryLayout& l = p.layout;
  std::vector<std::string> a;
  a.push_back("--model_name_or_path " + c.model_ref);
  a.push_back("--dataset_name " + c.sh_fill("dataset path"));
  a.push_back("--max_length " + itext(c.q.train.seq_len));
  a.push_back("--per_device_train_batch_size " + itext(l.micro_batch));
  a.push_back("--gradient_accumulation_steps " + itext(l.num_microbatches));
  a.push_back("--max_steps " + num_text(c.r.steps));
  if (c.r.precision == "bf16" || c.r.precision == "fp8") a.push_back("--bf16");
  else if (c.r.precision == "fp16") a.push_back("--fp16");
  if (l.recompute != Recompute::none) a.push_back("--gradient_checkpointing");
  a.push_back("--max_grad_norm " + clip_text());
  a.push_back("--output_dir " + c.ckpt_dir);
  a.push_back("--save_strategy steps --save_steps " + itext(c.r.save_interval_steps) + " --save_total_limit 2");
  if (c.deepspeed) a.push_back("--deepspeed ds_config.json");
  const TrainConfig& t = c.q.train;
  if (t.method != Method::full) {
    std::string targets;
    if (llama_family(c.q.model.arch)) {
      for (const std::string& x : t.lora_targets) targets += (targets.empty() ? "" : " ") + safe_token(x, "?") + "_proj";
    } else {
      targets = c.sh_fill("LoRA target module names");
    }
    a.push_back("--use_peft --lora_r " + itext(t.lora_rank) + " --lora_target_modules " + targets);
    if (t.method == Method::qlora) {
      a.push_back("--load_in_4bit");
      if (t.qlora_double_quant) a.push_back("--use_bnb_nested_quant");
    }
  }
  return a;
}

std::vector<std::string> train_args(Ctx& c) { return c.r.engine == "megatron" ? megatron_args(c) : hf_args(c); }

// The spot resume step: the Trainer's checkpoints are <output_dir>/checkpoint-<step>; the newest one is resumed.
// (Megatron resumes by itself from --load.)
std::string resume_lines(Ctx& c) {
  if (!c.spot || c.r.engine == "megatron") return "";
  return "RESUME=\"\"\n"
         "LAST=$(ls -d " + c.ckpt_dir + "/checkpoint-* 2>/dev/null | sort -V | tail -n 1)\n"
         "if [ -n \"$LAST\" ]; then RESUME=\"--resume_from_checkpoint $LAST\"; fi\n";
}

// torchrun with the given node-count / rank / address expressions, then the script and its arguments, one per
// line (backslash continuations), every line prefixed by `indent`.
std::string torchrun_command(Ctx& c, const std::string& nnodes, const std::string& nproc, const std::string& rank,
                             const std::string& addr, const std::string& indent) {
  std::vector<std::string> lines = {"torchrun",
                                    "  --nnodes=" + nnodes,
                                    "  --nproc-per-node=" + nproc,
                                    "  --node-rank=" + rank,
                                    "  --master-addr=" + addr,
                                    "  --master-port=" + itext(kMasterPort),
                                    "  " + c.sh_fill(c.r.engine == "megatron" ? "training script (Megatron-LM pretrain_gpt.py)"
                                                                              : "training script")};
  for (const std::string& a : train_args(c)) lines.push_back("  " + a);
  if (c.spot && c.r.engine != "megatron") lines.push_back("  $RESUME");  // unquoted: empty, or two words
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += indent + lines[i] + (i + 1 < lines.size() ? " \\\n" : "\n");
  return out;
}

std::string indent_lines(const std::string& text, const std::string& indent) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find('\n', i);
    if (j == std::string::npos) j = text.size();
    if (j > i) out += indent;
    out.append(text, i, j - i);
    out += '\n';
    i = j + 1;
  }
  return out;
}

// ---- the framework configs -------------------------------------------------------------------------------------

std::string deepspeed_json(Ctx& c) {
  const Plan& p = c.r.plan;
  const MemoryLayout& l = p.layout;
  nlohmann::ordered_json d;
  d["train_batch_size"] = p.global_batch;
  d["train_micro_batch_size_per_gpu"] = l.micro_batch;
  d["gradient_accumulation_steps"] = l.num_microbatches;
  d["gradient_clipping"] = kGradClip;
  d["bf16"] = {{"enabled", c.r.precision == "bf16" || c.r.precision == "fp8"}};
  d["fp16"] = {{"enabled", c.r.precision == "fp16"}};
  nlohmann::ordered_json z;
  z["stage"] = l.zero;
  if (l.offload_optimizer) z["offload_optimizer"] = {{"device", "cpu"}, {"pin_memory", true}};
  if (l.offload_params) z["offload_param"] = {{"device", "cpu"}, {"pin_memory", true}};
  d["zero_optimization"] = z;
  // The Hugging Face Trainer hands DeepSpeed its own AdamW (a client optimizer). With the optimizer offloaded,
  // DeepSpeed's engine raises ZeRORuntimeException unless zero_force_ds_cpu_optimizer is false
  // (deepspeed/runtime/engine.py _configure_zero_optimizer; the key's default is True in
  // deepspeed/runtime/constants.py ZERO_FORCE_DS_CPU_OPTIMIZER_DEFAULT). The client AdamW then steps on the CPU.
  if (l.offload_optimizer) d["zero_force_ds_cpu_optimizer"] = false;
  return d.dump(2) + "\n";
}

std::string accelerate_yaml(Ctx& c) {
  const Plan& p = c.r.plan;
  const MemoryLayout& l = p.layout;
  const int procs = c.r.nproc_per_node * c.r.nodes;
  std::string t;
  t += "# trainfit recipe: Hugging Face accelerate config for " + plan_summary(p) + "\n";
  t += "# accelerate launch --config_file accelerate_config.yaml --machine_rank $NODE_RANK --main_process_ip $MASTER_ADDR\n";
  t += "#   followed by the training script and its arguments, as in torchrun.sh\n";
  t += "compute_environment: LOCAL_MACHINE\n";
  std::string type;
  if (hf_ulysses(l)) type = "DEEPSPEED";  // Ulysses is DeepSpeed's (sp_backend deepspeed)
  else if (l.zero == 0 && !l.offload_optimizer && !l.offload_params) type = procs > 1 ? "MULTI_GPU" : "NO";
  // FSDP has no optimizer-only offload and no ZeRO-1: those plans use accelerate's DeepSpeed plugin.
  else if ((l.zero == 2 || l.zero == 3) && !(l.offload_optimizer && !l.offload_params)) type = "FSDP";
  else type = "DEEPSPEED";
  // Quoted: YAML 1.1 readers (PyYAML) would take a bare NO for the boolean false.
  t += "distributed_type: " + (type == "NO" ? "\"NO\"" : type) + "\n";
  t += std::string("mixed_precision: ") +
       (c.r.precision == "bf16" ? "bf16" : c.r.precision == "fp16" ? "fp16" : c.r.precision == "fp8" ? "fp8" : "\"no\"") + "\n";
  t += "num_machines: " + itext(c.r.nodes) + "\n";
  t += "num_processes: " + itext(procs) + "\n";
  t += "machine_rank: 0\n";
  if (c.r.nodes > 1) {
    t += "main_process_ip: " + yq(c.fill("master node address")) + "\n";
    t += "main_process_port: " + itext(kMasterPort) + "\n";
  }
  // accelerate's config loader takes only ClusterConfig's keys at the top level (accelerate/commands/config/
  // config_args.py; gradient_accumulation_steps is not one): the accumulation is the training script's
  // --gradient_accumulation_steps, or DeepSpeed's config.
  if (type == "FSDP") {
    t += "fsdp_config:\n";
    t += std::string("  fsdp_sharding_strategy: ") + (l.zero == 3 ? "FULL_SHARD" : "SHARD_GRAD_OP") + "\n";
    t += std::string("  fsdp_offload_params: ") + (l.offload_params ? "true" : "false") + "\n";
    t += "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n";
    t += "  fsdp_state_dict_type: SHARDED_STATE_DICT\n";
    t += std::string("  fsdp_activation_checkpointing: ") + (l.recompute != Recompute::none ? "true" : "false") + "\n";
    t += "  fsdp_use_orig_params: true\n";
  } else if (type == "DEEPSPEED") {
    // The recipe's ds_config.json, not accelerate's own DeepSpeed keys: only the file carries
    // zero_force_ds_cpu_optimizer, which an offloaded optimizer from the Trainer needs. With a config file,
    // accelerate (utils/dataclasses.py DeepSpeedPlugin._deepspeed_config_checks) refuses zero_stage, offload and
    // accumulation keys next to it; zero3_init_flag is allowed.
    t += "deepspeed_config:\n";
    t += "  deepspeed_config_file: ds_config.json\n";
    t += std::string("  zero3_init_flag: ") + (l.zero == 3 ? "true" : "false") + "\n";
  }
  // Sequence parallelism (accelerate docs concept_guides/sequence_parallelism: dp_replicate x dp_shard x sp_size =
  // num_processes; sp_backend deepspeed is ALST / Ulysses).
  if (hf_ulysses(l)) {
    t += "parallelism_config:\n";
    t += "  parallelism_config_dp_replicate_size: 1\n";
    t += "  parallelism_config_dp_shard_size: " + itext(l.dp) + "\n";
    t += "  parallelism_config_sp_size: " + itext(l.cp) + "\n";
    t += "  parallelism_config_sp_backend: deepspeed\n";
    t += "  parallelism_config_sp_seq_length_is_variable: true\n";
    t += "  parallelism_config_sp_attn_implementation: flash_attention_2\n";
  }
  return t;
}

std::string torchrun_sh(Ctx& c) {
  std::string t = "#!/bin/bash\n";
  t += "# trainfit recipe: " + plan_summary(c.r.plan) + "\n";
  if (c.r.nodes > 1)
    t += "# Run on every node; set NODE_RANK (0.." + itext(c.r.nodes - 1) + ") and MASTER_ADDR (node 0's address).\n";
  else
    t += "# One node: run as is (NODE_RANK defaults to 0, MASTER_ADDR to 127.0.0.1).\n";
  if (c.deepspeed) t += "# Needs ds_config.json (this recipe's deepspeed file) in the working directory.\n";
  t += "set -e\n";
  t += resume_lines(c);
  t += megatron_env(c) + ulysses_env(c);
  const std::string rank = c.r.nodes > 1 ? "\"${NODE_RANK:?set NODE_RANK}\"" : "\"${NODE_RANK:-0}\"";
  const std::string addr = c.r.nodes > 1 ? "\"${MASTER_ADDR:?set MASTER_ADDR}\"" : "\"${MASTER_ADDR:-127.0.0.1}\"";
  t += torchrun_command(c, itext(c.r.nodes), itext(c.r.nproc_per_node), rank, addr, "");
  return t;
}

std::string megatron_sh(Ctx& c) {
  std::string t = "#!/bin/bash\n";
  t += "# trainfit recipe: Megatron-LM arguments for " + plan_summary(c.r.plan) + "\n";
  t += "# torchrun ... pretrain_gpt.py \"${MEGATRON_ARGS[@]}\"   (see torchrun.sh for the launcher arguments)\n";
  t += megatron_env(c, true);
  t += "MEGATRON_ARGS=(\n";
  for (const std::string& a : megatron_args(c)) t += "  " + a + "\n";
  t += ")\n";
  return t;
}

// The commands both launchers run on every node, before torchrun: the user's setup, the DeepSpeed config, the
// resume point. (SkyPilot's separate `setup` section would do for the first; one block keeps both launchers alike.)
std::string pre_commands(Ctx& c) {
  std::string t = "set -e\n";
  t += c.sh_fill("setup commands (pip install ...)") + "\n";
  if (c.deepspeed) t += "cat > ds_config.json <<'EOF'\n" + deepspeed_json(c) + "EOF\n";
  t += resume_lines(c);
  t += megatron_env(c) + ulysses_env(c);
  return t;
}

std::string header_comment(Ctx& c, const char* launch) {
  std::string t = "# trainfit recipe: " + plan_summary(c.r.plan) + "\n";
  // '+' and ':' are literal in a comment line: a GCP N1 offer id is gcp/<host>+<ACCEL>:<count>/<region>.
  t += "# Offer " + safe_token(c.r.offer, "(offer)", "+:") + " of snapshot " + safe_token(c.s.id, "(snapshot)") + ", " +
       pricing_option_name(c.r.option) + ", " + itext(c.r.nodes) + " node" + (c.r.nodes == 1 ? "" : "s") + ".\n";
  t += std::string("# Launch: ") + launch + "\n";
  t += "# Replace every FILL placeholder before launching.\n";
  return t;
}

std::string skypilot_yaml(Ctx& c) {
  std::string t = header_comment(c, c.spot ? "sky jobs launch trainfit-skypilot.yaml (a managed job: preemptions are recovered)"
                                           : "sky launch -c trainfit trainfit-skypilot.yaml");
  t += "name: " + c.job_name + "\n";
  t += "num_nodes: " + itext(c.r.nodes) + "\n";
  t += "resources:\n";
  t += "  cloud: " + yq(c.provider_id) + "\n";
  if (c.offer.region != kAnyRegion) t += "  region: " + yq(c.offer.region) + "\n";  // "any": SkyPilot picks one
  t += "  instance_type: " + yq(c.r.instance_type) + "\n";
  if (!c.r.accelerators.empty()) t += "  accelerators: " + yq(c.r.accelerators) + "\n";
  t += std::string("  use_spot: ") + (c.spot ? "true" : "false") + "\n";
  t += "  disk_size: " + num_text(c.r.disk_size_GB) + "\n";
  // A managed spot job is relaunched after a preemption (sky/jobs recovery_strategy.py: FAILOVER retries the same
  // region first); max_restarts_on_errors also restarts a run that failed on its own, up to that count.
  if (c.spot) {
    t += "  job_recovery:\n";
    t += "    strategy: FAILOVER\n";
    t += "    max_restarts_on_errors: 3\n";
  }
  t += "workdir: " + yq(c.fill("local directory with the training code")) + "\n";
  if (c.spot && c.launch && c.launch->sky_mount) {
    t += "file_mounts:\n";
    t += "  " + c.ckpt_dir + ":\n";
    t += "    name: " + yq(c.fill("checkpoint bucket")) + "\n";
    t += "    mode: MOUNT\n";
  }
  std::string run = pre_commands(c);
  std::string nproc = "$SKYPILOT_NUM_GPUS_PER_NODE";
  if (c.r.nproc_per_node != c.r.gpus_per_node) nproc = itext(c.r.nproc_per_node);  // the layout leaves GPUs idle
  run += "MASTER_ADDR=$(echo \"$SKYPILOT_NODE_IPS\" | head -n1)\n";
  run += torchrun_command(c, "$SKYPILOT_NUM_NODES", nproc, "$SKYPILOT_NODE_RANK", "$MASTER_ADDR", "");
  t += "run: |\n" + indent_lines(run, "  ");
  return t;
}

std::string dstack_yaml(Ctx& c) {
  std::string t = header_comment(c, "dstack apply -f trainfit.dstack.yml");
  t += "type: task\n";
  t += "name: " + c.job_name + "\n";
  t += "nodes: " + itext(c.r.nodes) + "\n";
  t += "backends: [" + yq(c.launch && c.launch->dstack ? c.launch->dstack : c.provider_id) + "]\n";
  if (c.offer.region != kAnyRegion) t += "regions: [" + yq(c.offer.region) + "]\n";
  t += "instance_types: [" + yq(c.r.instance_type) + "]\n";
  t += std::string("spot_policy: ") + (c.spot ? "spot" : "on-demand") + "\n";
  // dstack resubmits a run whose instance was reclaimed or could not be had (ProfileRetry.on_events, RetryEvent
  // values in src/dstack/_internal/core/models/profiles.py at 511c318c); the checkpoints on the volume resume it.
  if (c.spot) {
    t += "retry:\n";
    t += "  on_events: [no-capacity, interruption]\n";
    t += "  duration: 1d\n";
  }
  t += "resources:\n";
  const std::string sky = skypilot_accelerator_name(c.provider_id, c.offer.instance_type, c.gpu.id);
  std::string gpu = sky.empty() ? "" : dstack_gpu_name(sky) + ":";
  gpu += dstack_memory_range(c.gpu.memory_bytes) + ":" + itext(c.r.gpus_per_node);
  t += "  gpu: " + yq(gpu) + "\n";
  t += "  disk: " + yq(num_text(c.r.disk_size_GB) + "GB..") + "\n";
  if (c.spot) {
    t += "volumes:\n";
    t += "  - name: " + yq(c.fill("checkpoint volume")) + "\n";
    t += "    path: " + c.ckpt_dir + "\n";
  }
  std::string cmds = pre_commands(c);
  std::string nproc = "$DSTACK_GPUS_PER_NODE";
  if (c.r.nproc_per_node != c.r.gpus_per_node) nproc = itext(c.r.nproc_per_node);
  cmds += torchrun_command(c, "$DSTACK_NODES_NUM", nproc, "$DSTACK_NODE_RANK", "$DSTACK_MASTER_NODE_IP", "");
  // One block-scalar command: the shell keeps the heredoc, the variables and the continuations together.
  t += "commands:\n  - |\n" + indent_lines(cmds, "    ");
  return t;
}

// ---- choosing the row and its numbers ---------------------------------------------------------------------------

std::string resolve_precision(const Query& q, const GpuSpec& g) {
  const std::string p = to_string(q.train.precision);
  if (p == "bf16-mixed" || p == "bf16") return "bf16";
  if (p == "fp16-mixed") return "fp16";
  if (p == "fp8-mixed") return "fp8";
  if (p == "fp32") return "fp32";
  // "auto": bf16-mixed where the GPU has BF16 tensor throughput, else fp16-mixed.
  return g.tflops_bf16 > 0 ? "bf16" : "fp16";
}

void fill_files(Ctx& c) {
  Recipe& r = c.r;
  const MemoryLayout& l = r.plan.layout;
  const bool model_parallel = l.tp > 1 || l.pp > 1 || (l.cp > 1 && !hf_ulysses(l)) || l.ep > 1;
  for (const char* f : kRecipeFormats) {
    RecipeFile file;
    file.format = f;
    const std::string fmt = f;
    if (fmt == "skypilot") {
      file.filename = "trainfit-skypilot.yaml";
      if (c.launch && c.launch->sky) {
        file.text = skypilot_yaml(c);
      } else {
        file.applies = false;
        file.why = "SkyPilot has no cloud for " + safe_token(c.provider_id, "this provider") +
                   " (its catalog may list the machines, but its task schema rejects the cloud name); launch "
                   "torchrun.sh on the rented machine";
      }
    } else if (fmt == "dstack") {
      file.filename = "trainfit.dstack.yml";
      if (c.launch && c.launch->dstack) {
        file.text = dstack_yaml(c);
      } else {
        file.applies = false;
        file.why = "dstack has no backend for " + safe_token(c.provider_id, "this provider") +
                   "; launch torchrun.sh on the rented machine";
      }
    } else if (fmt == "deepspeed") {
      file.filename = "ds_config.json";
      if (model_parallel) {
        file.applies = false;
        file.why = "the plan uses tensor / pipeline / context / expert parallelism, which a DeepSpeed config alone does "
                   "not give a Hugging Face model; use the megatron recipe";
      } else {
        file.text = deepspeed_json(c);
      }
    } else if (fmt == "accelerate") {
      file.filename = "accelerate_config.yaml";
      if (model_parallel) {
        file.applies = false;
        file.why = "the plan uses tensor / pipeline / context / expert parallelism, which accelerate's FSDP and "
                   "DeepSpeed plugins do not provide; use the megatron recipe";
      } else {
        file.text = accelerate_yaml(c);
      }
    } else if (fmt == "torchrun") {
      file.filename = "torchrun.sh";
      file.text = torchrun_sh(c);
    } else {
      file.filename = "megatron_args.sh";
      if (c.q.train.method != Method::full) {
        file.applies = false;
        file.why = "Megatron-LM's pretraining scripts train every weight; LoRA / QLoRA runs go through the Hugging Face "
                   "recipe (torchrun, deepspeed, accelerate)";
      } else if (l.offload_optimizer || l.offload_params) {
        // Megatron-LM keeps parameters and the distributed optimizer's states on the GPU; the plan's memory
        // counts on them in host memory.
        file.applies = false;
        file.why = "the plan offloads the optimizer / parameters to CPU memory, which Megatron-LM's arguments do not "
                   "provide; use the deepspeed recipe";
      } else {
        file.text = megatron_sh(c);
      }
    }
    r.files.push_back(std::move(file));
  }
}

}  // namespace

std::string skypilot_accelerator_name(const std::string& provider, const std::string& instance_type,
                                      const std::string& gpu_id) {
  for (const AccelName& a : kAccelNames) {
    if (gpu_id != a.gpu) continue;
    if (*a.provider && provider != a.provider) continue;
    if (*a.instance_prefix && instance_type.rfind(a.instance_prefix, 0) != 0) continue;
    return a.name;
  }
  return "";
}

std::string launch_instance_type(const std::string& instance_type) {
  return instance_type.substr(0, instance_type.find('+'));
}

Result<Recipe> make_recipe(const Query& q0, const Snapshot& s) {
  Result<detail::OfferPlan> op = detail::plan_one_offer(q0, s, q0.target.offer, q0.target.pricing, q0.target.nodes,
                                                        "target.offer", "target.nodes");
  if (!op) return op.error();
  const Query& q = op->query;
  const Snapshot& one = op->one;
  const RankResult* rr = &op->rank;
  const RankRow* row = &op->chosen();
  const int oi = op->offer;
  const Offer& o = s.offers[oi];
  const GpuSpec& g = s.gpus[o.gpu];
  const Provider& pr = s.providers[o.provider];
  // The catalog the instance type belongs to, which SkyPilot / dstack launch it through: the marketplace for a
  // resold row (cloud: shadeform, instance_type: massedcompute_A6000x8), else the provider.
  const Provider& launcher = seller_of(s, o);
  Recipe r;
  r.plan = rr->shapes[row->shape].plan.by_nodes[row->plan_index];
  const Plan& p = r.plan;
  const MemoryLayout& l = p.layout;
  // The batch identity every file relies on; the planner guarantees it, and a recipe that broke it would train a
  // different job than the one costed.
  if (l.micro_batch * l.num_microbatches * l.dp != p.global_batch)
    return Error{"global_batch", "the plan's micro-batch x accumulation x data parallel (" + itext(l.micro_batch) + " x " +
                                     itext(l.num_microbatches) + " x " + itext(l.dp) + ") is not its global batch " +
                                     itext(p.global_batch)};
  Result<CostBreakdown> cost = cost_for(q, one, *rr, *row, row->nodes);
  if (!cost) return cost.error();
  r.offer = o.id;
  r.provider = pr.id;
  if (o.via >= 0) r.via = launcher.id;
  r.instance_type = launch_instance_type(o.instance_type);
  r.region = o.region;
  r.gpu = g.id;
  r.option = row->option;
  r.nodes = row->nodes;
  r.gpus_per_node = o.gpu_count;
  const int used = l.tp * l.pp * l.dp * l.cp;
  r.nproc_per_node = r.nodes > 0 && used % r.nodes == 0 ? used / r.nodes : o.gpu_count;
  if (used != r.nodes * o.gpu_count)
    r.notes.push_back("the layout uses " + itext(used) + " of the " + itext(r.nodes * o.gpu_count) +
                      " GPUs billed; torchrun starts " + itext(r.nproc_per_node) + " processes per node");
  const std::string sky = skypilot_accelerator_name(launcher.id, o.instance_type, g.id);
  if (!sky.empty()) r.accelerators = sky + ":" + itext(o.gpu_count);
  else r.notes.push_back("SkyPilot's accelerator name for " + g.id + " is not known to trainfit: the recipe pins instance_type only");
  r.precision = resolve_precision(q, g);
  // The query's framework (framework.h) decides where it can: Megatron-Core runs the Megatron arguments even for
  // a data-parallel plan; otherwise model parallelism needs them and data parallelism + ZeRO runs as HF Trainer.
  const Framework fw = q.train.framework;
  r.engine = (l.tp > 1 || l.pp > 1 || (l.cp > 1 && !hf_ulysses(l)) || l.ep > 1 || fw == Framework::megatron_core)
                 ? "megatron"
                 : "hf";
  if (fw != Framework::generic && fw != Framework::hf_trainer && fw != Framework::megatron_core)
    r.notes.push_back(std::string("the training-script arguments follow ") +
                      (r.engine == "megatron" ? "Megatron-LM" : "Hugging Face TrainingArguments") + "; " +
                      to_string(fw) + " takes its own config: carry over the same micro-batch, accumulation, "
                      "parallel sizes and save interval");
  const double seqs = static_cast<double>(p.global_batch) * static_cast<double>(q.train.seq_len);
  r.steps = seqs > 0 ? std::ceil(rr->processed_tokens / seqs) : 0;
  r.checkpoint_interval_s = cost->checkpoint_interval_s;
  // The interval in whole steps (rounded down: never checkpoint less often than the cost model assumed); an
  // interval that spans the whole run (on-demand without failures: only the final save) is the step count.
  const double steps_exact = seqs > 0 ? rr->processed_tokens / seqs : 0;
  double by_time = p.step.total_s > 0 ? std::floor(r.checkpoint_interval_s / p.step.total_s * (1 + 1e-12)) : r.steps;
  if (r.checkpoint_interval_s >= steps_exact * p.step.total_s * (1 - 1e-9)) by_time = r.steps;
  r.save_interval_steps = static_cast<int64_t>(std::clamp(by_time, 1.0, std::max(1.0, r.steps)));
  // Local disk per node: the 16-bit base weights downloaded, two checkpoints kept (save_total_limit 2; each node
  // holds the shards of its own ranks, 1 / nodes of a checkpoint), the dataset staged on every node.
  Result<ParamCounts> pc = count_params(q.model);
  const double weights = pc ? pc->total * 2 : 0;
  const double need_GB = (weights + 2 * rr->checkpoint_bytes / r.nodes + rr->dataset_bytes) / kGB;
  r.disk_size_GB = std::max(kSkyPilotDefaultDiskGB, std::ceil(need_GB / 10) * 10);

  Ctx c{q, s, r, o, g};
  c.provider_id = launcher.id;
  c.launch = launcher_of(launcher.id);
  {
    const bool sky = c.launch && c.launch->sky, dst = c.launch && c.launch->dstack;
    const std::string name = safe_token(launcher.id, "this provider");
    if (!sky && !dst)
      r.notes.push_back("neither SkyPilot nor dstack launches " + name + ": rent the machine" +
                        (r.nodes > 1 ? "s" : "") + " in " + name + "'s console or CLI, copy the training code over "
                        "SSH and run torchrun.sh there (on every node, with NODE_RANK and MASTER_ADDR set)");
    else if (!sky)
      r.notes.push_back("SkyPilot does not launch " + name + "; the dstack recipe does");
    else if (!dst)
      r.notes.push_back("dstack has no backend for " + name + "; the SkyPilot recipe launches it");
  }
  {
    // How the instances are obtained: the booking for a reserved row, else the offer's availability fact.
    const AccessFact& a = access_fact(s, s.offers[static_cast<size_t>(op->offer)]);
    if (r.option == PricingOption::reserved) {
      if (const Reservation* rv = reservation_of(one, one.offers[0]))
        r.notes.push_back("book " + rv->name + " for " + itext(r.nodes) + " instance" + (r.nodes == 1 ? "" : "s") +
                          " first, then launch into its reservation: " + reservation_terms_text(*rv));
    } else if (a.how == Access::quota_request) {
      r.notes.push_back("a new account needs a quota increase before this launches" +
                        (a.quota.empty() ? std::string() : ": " + a.quota));
    } else if (a.how == Access::reservation_only || a.how == Access::sales_contact) {
      r.notes.push_back(a.how == Access::sales_contact ? "sold through sales: contact the provider before launching"
                                                       : "sold through a reservation or booking only: book it before launching");
    }
  }
  c.spot = r.option == PricingOption::spot;
  c.deepspeed = r.engine == "hf" && (l.zero > 0 || l.offload_optimizer || l.offload_params || hf_ulysses(l));
  c.job_name = "trainfit-" + safe_token(q.model_id, "custom");
  for (char& ch : c.job_name)
    if (ch == '.' || ch == '/' || ch == '_') ch = '-';
  const std::string hf = safe_token(q.model.hf_id, "");
  c.model_ref = hf.empty() ? c.sh_fill("Hugging Face model id or path") : hf;
  c.ckpt_dir = c.spot ? "/checkpoints" : "checkpoints";
  if (c.r.engine == "hf" && l.recompute == Recompute::selective)
    r.notes.push_back("the plan assumes selective recomputation; Hugging Face gradient_checkpointing recomputes whole "
                      "layers (less memory, about a third more compute than planned)");
  if (c.r.engine == "megatron" && q.model.arch != Arch::params_only) {
    const MegatronArch arch = megatron_arch(q.model, l.tp);
    if (!arch.missing.empty())
      r.notes.push_back("Megatron-LM's GPT model has no flags for " + join_words(arch.missing) +
                        ": the Megatron arguments leave a named blank for them (Megatron-Bridge's model providers "
                        "build such families)");
  }
  if (c.r.engine == "hf" && hf_ulysses(l))
    r.notes.push_back("Ulysses sequence parallelism " + itext(l.cp) + " runs through accelerate's parallelism_config "
                      "(the scripts export it; accelerate_config.yaml carries it): deepspeed >= 0.18.1, accelerate >= "
                      "1.12, transformers >= 5.0 (Hugging Face blog \"ulysses-sp\")");
  if (c.r.engine == "megatron" && l.zero >= 2)
    r.notes.push_back("Megatron-LM's distributed optimizer shards optimizer states only (ZeRO-1); the plan's ZeRO-" +
                      itext(l.zero) + " memory needs gradient sharding too");
  if (c.r.engine == "megatron" && q.train.method != Method::full)
    r.notes.push_back("a LoRA plan with tensor / pipeline parallelism needs a PEFT-capable Megatron front end (NeMo); "
                      "the arguments describe the parallel layout only");
  if (c.spot && c.launch && c.launch->sky && !c.launch->sky_mount)
    r.notes.push_back("SkyPilot cannot mount a bucket on " + safe_token(launcher.id, "this provider") +
                      ": the SkyPilot recipe keeps checkpoints on the node's disk (" + c.ckpt_dir +
                      "), so a preemption that replaces the machine restarts from the last checkpoint you copied off");
  if (r.engine == "megatron" && (l.offload_optimizer || l.offload_params))
    r.notes.push_back("the plan offloads to CPU memory, which Megatron-LM does not do: the launchers' Megatron "
                      "arguments need more GPU memory than planned; use the deepspeed recipe");
  if (r.precision == "fp8")
    r.notes.push_back("fp8 needs NVIDIA Transformer Engine; the Hugging Face recipes run bf16 (accelerate: mixed_precision fp8)");
  fill_files(c);
  return r;
}

}  // namespace trainfit
