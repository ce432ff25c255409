// trainfit core — launch recipes: the launcher tables (SkyPilot's accelerator names, which tool launches which
// provider) and the two launchers' task files (SkyPilot, dstack).
// Field names are the tools' own, checked against their documentation:
//   SkyPilot  task YAML: https://docs.skypilot.co/en/v0.9.1/reference/yaml-spec.html (num_nodes, resources.cloud /
//             region / instance_type / accelerators / use_spot / disk_size, file_mounts with name + mode: MOUNT,
//             setup, run); distributed env vars SKYPILOT_NUM_NODES, SKYPILOT_NODE_RANK, SKYPILOT_NODE_IPS,
//             SKYPILOT_NUM_GPUS_PER_NODE: https://docs.skypilot.co/en/stable/running-jobs/distributed-jobs.html
//   dstack    task configuration (type: task, nodes, commands, resources.gpu "name:memory:count", resources.disk,
//             spot_policy, backends, regions): dstack docs/docs/concepts/tasks.md and reference/dstack.yml/task.md;
//             env vars DSTACK_NODES_NUM, DSTACK_NODE_RANK, DSTACK_MASTER_NODE_IP, DSTACK_GPUS_PER_NODE (dstack 0.18
//             release notes, "Clusters")
#include <cmath>
#include <string>
#include <string_view>

#include "launch/recipe_internal.h"

namespace trainfit::recipe_detail {
namespace {

// ---- the launcher tables ----

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

// The rows of the one table of launcher names (its fields: Launcher, recipe_internal.h).
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

}  // namespace

const Launcher* launcher_of(const std::string& provider) {
  for (const Launcher& x : kLaunchers)
    if (provider == x.provider) return &x;
  return nullptr;
}

}  // namespace trainfit::recipe_detail

namespace trainfit {

std::string skypilot_accelerator_name(const std::string& provider, const std::string& instance_type,
                                      const std::string& gpu_id) {
  for (const recipe_detail::AccelName& a : recipe_detail::kAccelNames) {
    if (gpu_id != a.gpu) continue;
    if (*a.provider && provider != a.provider) continue;
    if (*a.instance_prefix && instance_type.rfind(a.instance_prefix, 0) != 0) continue;
    return a.name;
  }
  return "";
}

}  // namespace trainfit

namespace trainfit::recipe_detail {
namespace {

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

// ---- the launchers ----

// The commands both launchers run on every node, before torchrun: the user's setup, the DeepSpeed config, the
// resume point. (SkyPilot's separate `setup` section would do for the first; one block keeps both launchers alike.)
std::string pre_commands(Ctx& c) {
  std::string t = "set -e\n";
  t += c.sh_fill("setup commands (pip install ...)") + "\n";
  if (c.deepspeed) t += "cat > ds_config.json <<'EOF'\n" + deepspeed_json(c) + "EOF\n";
  if (c.r.engine == "torchtitan") t += "cat > torchtitan.toml <<'EOF'\n" + torchtitan_toml(c) + "EOF\n";
  if (c.r.engine == "nanotron") t += "cat > nanotron.yaml <<'EOF'\n" + nanotron_yaml(c) + "EOF\n";
  t += resume_lines(c);
  t += megatron_env(c) + hf_parallelism_env(c);
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

}  // namespace

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

}  // namespace trainfit::recipe_detail
