"""Each recipe format fed to its tool's own validation code (tests/recipe/upstream, see SOURCE.md there):
  accelerate  the real load_config_from_file (accelerate/commands/config/config_args.py)
  deepspeed   the real DeepSpeedZeroConfig (pydantic, unknown keys forbidden), the engine's client-optimizer rule and
              the batch identity
  megatron    every flag against the flags of megatron/training/arguments.py and its dataclasses; the
              CUDA_DEVICE_MAX_CONNECTIONS rule of validate_args
  dstack      backends, retry events, spot policy against dstack's enums
  skypilot    cloud, storage mount mode and job_recovery against SkyPilot's cloud registry and task schema
  torchrun    every launch line, expanded by bash in the launcher's environment, parsed by an argparse parser built
              from the options of torch/distributed/run.py get_args_parser (types, choices, flags without a value)
              plus the --nnodes rule of config_from_args
  torchtitan  the real JobConfig built from the TOML file (unknown keys raise), then torchtitan's own rules for the
              parallel dimensions, the batch sizes and the pipeline's virtual stages (torchtitan_checks.py)
  nanotron    the real get_config_from_file (PyYAML SafeLoader, dacite strict: unknown keys and mistyped values raise;
              Config.__post_init__'s head / TP asserts) on the file with its placeholders filled, then the rules
              nanotron's runtime adds (a logging section, LlamaConfig for a Hugging Face dataset, ParallelContext's
              world size, async TP only with REDUCE_SCATTER, ZeRO 0 or 1)
Each function returns a list of problems (empty: accepted)."""
import json
import os
import shlex
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
UP = os.path.join(HERE, "upstream")
sys.path.insert(0, os.path.join(UP, "accelerate"))
sys.path.insert(0, os.path.join(UP, "deepspeed"))
sys.path.insert(0, os.path.join(UP, "torchtitan"))
sys.path.insert(0, os.path.join(UP, "nanotron"))  # nanotron's config package, its stubs and dacite (Debian's 1.8.0)

from accelerate.commands.config.config_args import load_config_from_file  # noqa: E402
from deepspeed.runtime import constants as ds_constants  # noqa: E402
from deepspeed.runtime.zero.config import DeepSpeedZeroConfig  # noqa: E402
from torchtitan.config.job_config import JobConfig  # noqa: E402
import torchtitan_checks as titan  # noqa: E402
from nanotron.config import Config as NanotronConfig, get_config_from_file as nanotron_config_from_file  # noqa: E402


def _load(path):
    with open(os.path.join(UP, path)) as f:
        return json.load(f)


MEGATRON = _load("megatron/arguments.json")
MEGATRON_FLAGS = set(MEGATRON["flags"])
DSTACK = _load("dstack/tables.json")
SKY = _load("skypilot/tables.json")

# accelerate's DeepSpeedPlugin._deepspeed_config_checks (src/accelerate/utils/dataclasses.py at the commit in
# SOURCE.md): with deepspeed_config_file, these deepspeed_config keys raise ValueError.
ACCEL_DS_KEYS_WITH_FILE = {"gradient_accumulation_steps", "gradient_clipping", "zero_stage", "offload_optimizer_device",
                           "offload_param_device", "offload_param_nvme_path", "offload_optimizer_nvme_path",
                           "zero3_save_16bit_model", "mixed_precision"}


# The fsdp_config and parallelism_config keys accelerate launch applies (launch_config_keys.json, from commands/launch.py).
ACCEL_KEYS = _load("accelerate/launch_config_keys.json")


def parallelism_env_problems(env, num_processes, distributed_type, fsdp_version):
    """The real ParallelismConfig built from accelerate's environment (PARALLELISM_CONFIG_*) as Accelerator.__init__
    builds it, and its _validate_accelerator against the processes, the distributed type and the FSDP version."""
    from accelerate.parallelism_config import ParallelismConfig
    keys = [k for k in os.environ if k.startswith("PARALLELISM_CONFIG_")]
    saved = {k: os.environ.get(k) for k in set(keys) | set(env)}
    for k in keys:
        del os.environ[k]
    os.environ.update(env)
    try:
        config = ParallelismConfig()

        class Accelerator:  # what _validate_accelerator reads of the Accelerator the launch makes
            pass

        a = Accelerator()
        a.num_processes = int(num_processes)
        a.distributed_type = distributed_type
        a.is_fsdp2 = distributed_type == "FSDP" and int(fsdp_version) == 2
        a.multi_device = distributed_type.startswith("MULTI_")
        a.is_main_process = False
        config._validate_accelerator(a)
    except Exception as e:  # the class's own words
        return [f"accelerate ParallelismConfig: {e}"]
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return []


def parallelism_config_problems(cfg):
    """accelerate launch's environment for a config file's parallelism_config (utils/launch.py
    prepare_extend_env_parallelism_config, with launch.py's defaults), checked by parallelism_env_problems."""
    pc = getattr(cfg, "parallelism_config", None) or {}
    if not pc:
        return []
    get = lambda k, d: pc.get("parallelism_config_" + k, d)  # noqa: E731
    env = {"ACCELERATE_USE_PARALLELISM_CONFIG": "true"}
    for k, d in (("dp_replicate_size", 1), ("dp_shard_size", 1), ("tp_size", 1), ("cp_size", 1), ("cp_backend", "torch"),
                 ("sp_size", 1), ("sp_backend", "deepspeed")):
        env["PARALLELISM_CONFIG_" + k.upper()] = str(get(k, d))
    if int(get("cp_size", 1)) > 1:
        env["PARALLELISM_CONFIG_CP_COMM_STRATEGY"] = str(get("cp_comm_strategy", "allgather"))
    if int(get("sp_size", 1)) > 1:
        env["PARALLELISM_CONFIG_SP_SEQ_LENGTH"] = str(get("sp_seq_length", None))
        env["PARALLELISM_CONFIG_SP_SEQ_LENGTH_IS_VARIABLE"] = str(get("sp_seq_length_is_variable", True))
        env["PARALLELISM_CONFIG_SP_ATTN_IMPLEMENTATION"] = str(get("sp_attn_implementation", None))
    fsdp = getattr(cfg, "fsdp_config", None) or {}
    return parallelism_env_problems(env, getattr(cfg, "num_processes", 1),
                                    str(getattr(cfg, "distributed_type", "NO")).split(".")[-1],
                                    fsdp.get("fsdp_version", 1))


def torchrun_env_problems(env, num_processes, deepspeed):
    """A torchrun script's exported accelerate environment, as its Trainer's Accelerator reads it: the parallelism
    config through parallelism_env_problems, with the plugin the environment (ACCELERATE_USE_FSDP, FSDP_VERSION) or
    the --deepspeed argument selects."""
    if env.get("ACCELERATE_USE_PARALLELISM_CONFIG") != "true":
        return []
    dtype = "FSDP" if env.get("ACCELERATE_USE_FSDP") == "true" else "DEEPSPEED" if deepspeed else "MULTI_GPU"
    return parallelism_env_problems({k: v for k, v in env.items() if k.startswith("PARALLELISM_CONFIG_")},
                                    num_processes, dtype, env.get("FSDP_VERSION", "1"))


def accelerate_problems(text):
    out = []
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        cfg = load_config_from_file(path)
    except Exception as e:  # the loader's own words
        return [f"accelerate load_config_from_file: {e}"]
    finally:
        os.unlink(path)
    for section in ("fsdp_config", "parallelism_config"):
        unknown = sorted(set(getattr(cfg, section, None) or {}) - set(ACCEL_KEYS[section]))
        if unknown:
            out.append(f"accelerate: {section} keys that accelerate launch does not take: {unknown}")
    out += parallelism_config_problems(cfg)
    ds = getattr(cfg, "deepspeed_config", None) or {}
    if ds.get("deepspeed_config_file"):
        bad = sorted(set(ds) & ACCEL_DS_KEYS_WITH_FILE)
        if bad:
            out.append(f"accelerate: deepspeed_config_file next to {bad} (DeepSpeedPlugin refuses it)")
    return out


def deepspeed_problems(d, dp, client_optimizer=True):
    out = []
    try:
        z = DeepSpeedZeroConfig(**d.get("zero_optimization", {}))
    except Exception as e:
        return [f"DeepSpeedZeroConfig: {e}"]
    # deepspeed/runtime/config.py _batch_assertion
    if d["train_batch_size"] != d["train_micro_batch_size_per_gpu"] * d["gradient_accumulation_steps"] * dp:
        out.append("deepspeed: train_batch_size != micro x accumulation x world size")
    # deepspeed/runtime/engine.py: a client optimizer (the HF Trainer's AdamW) with the optimizer offloaded to
    # cpu / nvme raises ZeRORuntimeException unless zero_force_ds_cpu_optimizer is false.
    offloaded = z.offload_optimizer is not None and str(getattr(z.offload_optimizer.device, "value",
                                                                z.offload_optimizer.device)) in ("cpu", "nvme")
    force = d.get(ds_constants.ZERO_FORCE_DS_CPU_OPTIMIZER, ds_constants.ZERO_FORCE_DS_CPU_OPTIMIZER_DEFAULT)
    if client_optimizer and offloaded and "optimizer" not in d and force:
        out.append("deepspeed: ZeRO-Offload with the Trainer's optimizer needs zero_force_ds_cpu_optimizer false")
    return out


TORCHRUN = _load("torchrun/flags.json")


def torchrun_parser():
    """torchrun's command line as get_args_parser declares it (torchrun/flags.json): an error exits via SystemExit."""
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message):
            raise ValueError(message)

    p = Parser(prog="torchrun", add_help=False)
    for o in TORCHRUN["options"]:
        if o["type"] is None:
            p.add_argument(*o["names"], action="store_true")
        else:
            kind = {"str": str, "int": int, "float": float}[o["type"]]
            choices = o["choices"] if isinstance(o["choices"], list) else None
            p.add_argument(*o["names"], type=kind, choices=choices)
    p.add_argument("training_script", type=str)
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


# The variables each launcher sets on a node (SkyPilot: docs "Environment variables"; dstack: "Distributed tasks";
# torchrun.sh: the ones it tells the user to set), for a node of `nodes` x `gpus` GPUs.
def launcher_env(nodes, gpus):
    return {"NODE_RANK": "0", "MASTER_ADDR": "10.0.0.1", "RESUME": "", "LAST": "",
            "SKYPILOT_NUM_NODES": str(nodes), "SKYPILOT_NUM_GPUS_PER_NODE": str(gpus), "SKYPILOT_NODE_RANK": "0",
            "SKYPILOT_NODE_IPS": "10.0.0.1\n10.0.0.2",
            "DSTACK_NODES_NUM": str(nodes), "DSTACK_GPUS_PER_NODE": str(gpus), "DSTACK_NODE_RANK": "0",
            "DSTACK_MASTER_NODE_IP": "10.0.0.1", "PATH": os.environ.get("PATH", "")}


def torchrun_problems(fmt, script, nodes, gpus_per_node, nproc_per_node, module=None, script_name=None):
    """The torchrun command of a launch script, as torchrun receives it on a node: the command is cut out of the
    script (from `torchrun` to the line without a continuation), run by bash with a `torchrun` function that prints
    its arguments, in the launcher's environment; then parsed with torchrun's options."""
    import subprocess
    start = script.find("torchrun \\")
    if start < 0:
        return [f"{fmt}: no torchrun command"]
    lines = script[start:].split("\n")
    cmd = []
    for ln in lines:
        cmd.append(ln)
        if not ln.rstrip().endswith("\\"):
            break
    program = 'torchrun() { printf "%s\\0" "$@"; }\n' + "\n".join(cmd) + "\n"
    r = subprocess.run(["bash", "-c", program], capture_output=True, env=launcher_env(nodes, gpus_per_node))
    if r.returncode != 0:
        return [f"{fmt}: the torchrun command fails in bash: {r.stderr.decode()[:200]}"]
    argv = r.stdout.decode().split("\0")[:-1]
    try:
        a = torchrun_parser().parse_args(argv)
    except ValueError as e:
        return [f"{fmt}: torchrun rejects its arguments: {e}"]
    out = []
    mn, _, mx = a.nnodes.partition(":") if a.nnodes else ("1", "", "")
    try:
        lo, hi = int(mn), int(mx or mn)
        if not 0 < lo <= hi:
            out.append(f"{fmt}: torchrun --nnodes {a.nnodes}: config_from_args asserts 0 < min <= max")
        elif hi != nodes:
            out.append(f"{fmt}: torchrun --nnodes {a.nnodes} on {nodes} nodes")
    except ValueError:
        out.append(f"{fmt}: torchrun --nnodes {a.nnodes} is not N or MIN:MAX")
    if a.nproc_per_node != str(nproc_per_node):
        out.append(f"{fmt}: torchrun starts {a.nproc_per_node} processes per node, the plan uses {nproc_per_node}")
    if nodes > 1 and a.master_addr in (None, "127.0.0.1"):
        out.append(f"{fmt}: a multi-node torchrun without --master-addr")
    if module is not None and not (a.module and a.training_script == module):
        out.append(f"{fmt}: torchrun does not run the module {module} (-m)")
    if script_name is not None and (a.module or a.training_script != script_name):
        out.append(f"{fmt}: torchrun runs {a.training_script}, not {script_name}")
    return out


def megatron_problems(words, env_text, tp, cp, gpu_arch_major):
    out = [f"megatron: unknown flag {w}" for w in words if w.startswith("--") and w not in MEGATRON_FLAGS]
    fsdp = "--use-megatron-fsdp" in words
    # validate_args: TP or CP > 1 before Blackwell (compute capability < 10) needs CUDA_DEVICE_MAX_CONNECTIONS=1,
    # except under Megatron-FSDP (only a warning there), which asserts the opposite: not 1, or unset, and the
    # fsdp_dtensor checkpoint format (megatron/training/arguments.py @d98e8a64, lines 1166-1170; the sharding
    # strategies of --data-parallel-sharding-strategy, lines 3190-3191).
    if fsdp:
        if "export CUDA_DEVICE_MAX_CONNECTIONS=1" in env_text:
            out.append("megatron: Megatron-FSDP with CUDA_DEVICE_MAX_CONNECTIONS=1 (validate_args asserts not 1)")
        if "--ckpt-format" not in words or words[words.index("--ckpt-format") + 1] != "fsdp_dtensor":
            out.append("megatron: Megatron-FSDP without --ckpt-format fsdp_dtensor (validate_args asserts)")
        if "--data-parallel-sharding-strategy" in words and words[words.index("--data-parallel-sharding-strategy") + 1] \
                not in ("no_shard", "optim", "optim_grads", "optim_grads_params"):
            out.append("megatron: --data-parallel-sharding-strategy not one of Megatron's choices")
    elif (tp > 1 or cp > 1) and gpu_arch_major < 10 and "CUDA_DEVICE_MAX_CONNECTIONS=1" not in env_text:
        out.append("megatron: TP/CP > 1 without CUDA_DEVICE_MAX_CONNECTIONS=1 (validate_args asserts)")
    # The flex (DeepEP) dispatcher's own asserts (megatron/core/transformer/moe/token_dispatcher.py,
    # MoEFlexTokenDispatcher.__init__): expert TP x EP > 1, --moe-enable-deepep, no padding to capacity.
    def int_flag(flag, default):
        return int(words[words.index(flag) + 1]) if flag in words else default
    if "--moe-token-dispatcher-type" in words and words[words.index("--moe-token-dispatcher-type") + 1] == "flex":
        etp = int_flag("--expert-tensor-parallel-size", int_flag("--tensor-model-parallel-size", 1))
        if etp * int_flag("--expert-model-parallel-size", 1) <= 1:
            out.append("megatron: flex token dispatcher with expert TP x EP = 1 (it asserts TPxEP > 1)")
        if "--moe-enable-deepep" not in words:
            out.append("megatron: flex token dispatcher without --moe-enable-deepep")
        if "--moe-pad-expert-input-to-capacity" in words:
            out.append("megatron: flex token dispatcher with --moe-pad-expert-input-to-capacity (it asserts)")
    # The all-to-all overlap's own asserts (megatron/core/transformer/transformer_config.py,
    # overlap_moe_expert_parallel_comm): EP > 1, the alltoall or flex dispatcher, no full recompute, virtual pipeline
    # stages whenever PP > 1, a bf16 or fp16 model.
    if "--overlap-moe-expert-parallel-comm" in words:
        if int_flag("--expert-model-parallel-size", 1) <= 1:
            out.append("megatron: --overlap-moe-expert-parallel-comm without expert parallelism (it asserts EP > 1)")
        if "--moe-token-dispatcher-type" not in words or \
                words[words.index("--moe-token-dispatcher-type") + 1] not in ("alltoall", "flex"):
            out.append("megatron: --overlap-moe-expert-parallel-comm needs the alltoall or flex dispatcher")
        if "--recompute-granularity" in words and words[words.index("--recompute-granularity") + 1] == "full":
            out.append("megatron: --overlap-moe-expert-parallel-comm with full recompute (it asserts)")
        if int_flag("--pipeline-model-parallel-size", 1) > 1 and "--num-layers-per-virtual-pipeline-stage" not in words \
                and "--num-virtual-stages-per-pipeline-rank" not in words:
            out.append("megatron: --overlap-moe-expert-parallel-comm with PP > 1 and no virtual stages (it asserts)")
        if "--bf16" not in words and "--fp16" not in words:
            out.append("megatron: --overlap-moe-expert-parallel-comm on a model neither bf16 nor fp16 (it asserts)")
    ch = MEGATRON.get("choices", {})
    for flag, allowed in ch.items():
        if allowed and flag in words:
            v = words[words.index(flag) + 1]
            if v not in allowed:
                out.append(f"megatron: {flag} {v} not in {allowed}")
    return out


def dstack_problems(y, spot):
    out = []
    for b in y.get("backends", []):
        if b not in DSTACK["backends"]["values"]:
            out.append(f"dstack: backend {b} is not a BackendType")
    if y.get("spot_policy") not in DSTACK["spot_policy"]["values"]:
        out.append(f"dstack: spot_policy {y.get('spot_policy')}")
    retry = y.get("retry")
    if retry is not None:
        for e in retry.get("on_events", []):
            if e not in DSTACK["retry_events"]["values"]:
                out.append(f"dstack: retry event {e}")
    if spot and (not retry or "interruption" not in retry.get("on_events", [])):
        out.append("dstack: a spot run without retry on interruption")
    return out


def skypilot_problems(y, spot):
    out = []
    res = y["resources"]
    cloud = res.get("cloud")
    if cloud not in SKY["clouds"]["values"]:
        out.append(f"skypilot: cloud {cloud} is not a SkyPilot cloud")
    for path, m in (y.get("file_mounts") or {}).items():
        mode = m.get("mode", "MOUNT") if isinstance(m, dict) else None
        if mode is not None and mode not in SKY["file_mount_modes"]["values"]:
            out.append(f"skypilot: mount mode {mode}")
        if mode in ("MOUNT", "MOUNT_CACHED") and cloud in SKY["storage_mounting_unsupported"]["values"]:
            out.append(f"skypilot: {cloud} cannot mount storage ({path})")
    jr = res.get("job_recovery")
    if jr is not None:
        if not isinstance(jr, (str, dict)):
            out.append("skypilot: job_recovery must be a string or an object")
        elif isinstance(jr, dict):
            extra = set(jr) - set(SKY["job_recovery"]["keys"])
            if extra:
                out.append(f"skypilot: job_recovery keys {sorted(extra)}")
            if jr.get("strategy") not in SKY["job_recovery"]["strategies"] + [None]:
                out.append(f"skypilot: job_recovery strategy {jr.get('strategy')}")
            if not isinstance(jr.get("max_restarts_on_errors", 0), int) or jr.get("max_restarts_on_errors", 0) < 0:
                out.append("skypilot: max_restarts_on_errors must be an integer >= 0")
    if spot and jr is None:
        out.append("skypilot: a spot run without job_recovery")
    return out


def megatron_words(text):
    """The words of the MEGATRON_ARGS=( ... ) array of megatron_args.sh."""
    body = text[text.index("MEGATRON_ARGS=(") + len("MEGATRON_ARGS=("):text.rindex(")")]
    return shlex.split(body.replace("\\\n", " "), comments=True)


def torchtitan_problems(toml_text, world_size, num_layers, expected_stages=0):
    """A torchtitan.toml as torchtitan v0.2.2 reads it: tomllib, then ConfigManager._dict_to_dataclass into the real
    JobConfig (unknown tables or keys raise), then the checks train.py runs before any GPU work (ParallelDims on the
    world size, the gradient accumulation, the pipeline's virtual stages). Returns (problems, JobConfig or None)."""
    import tomllib
    try:
        data = tomllib.loads(toml_text)
    except tomllib.TOMLDecodeError as e:
        return [f"torchtitan.toml: not TOML: {e}"], None
    try:
        cfg = titan.dict_to_dataclass(JobConfig, data)
    except (ValueError, TypeError) as e:
        return [f"torchtitan.toml: JobConfig refuses it: {e}"], None
    out = []
    p, t = cfg.parallelism, cfg.training
    try:
        dp_shard = titan.validate_parallel_dims(p.data_parallel_replicate_degree, p.data_parallel_shard_degree,
                                                p.context_parallel_degree, p.tensor_parallel_degree,
                                                p.pipeline_parallel_degree, p.expert_parallel_degree,
                                                p.expert_tensor_parallel_degree, world_size)
        titan.gradient_accumulation_steps(t.global_batch_size, t.local_batch_size,
                                          p.data_parallel_replicate_degree * dp_shard)
        if p.pipeline_parallel_degree > 1:
            single = p.pipeline_parallel_schedule in ("1F1B", "GPipe")
            iw, ow = p.pipeline_parallel_first_stage_less_layers, p.pipeline_parallel_last_stage_less_layers
            stages = titan.pipeline_virtual_stages(num_layers, p.pipeline_parallel_degree,
                                                   p.pipeline_parallel_layers_per_stage, single, iw, ow)
            # pipeline_llm: the stages' modules are the file's, else torchtitan's own split; pipeline_module_split
            # asserts a whole number of stages per rank and keeps only the layers named (one left out would be
            # dropped silently, so every layer must be named once, in order).
            modules = p.module_fqns_per_model_part or titan.generate_llm_fqn_per_model_part(stages, num_layers, iw, ow)
            assert len(modules) % p.pipeline_parallel_degree == 0, (
                f"num_stages {len(modules)} must be evenly divisible by pp_degree {p.pipeline_parallel_degree}")
            named = [m for stage in modules for m in stage if m.startswith("layers.")]
            if named != [f"layers.{i}" for i in range(num_layers)]:
                out.append("torchtitan.toml: the pipeline stages do not hold every layer once, in order")
            if modules[0][0] != "tok_embeddings" or modules[-1][-2:] != ["norm", "output"]:
                out.append("torchtitan.toml: the embedding is not on the first stage or the output on the last")
            if expected_stages and len(modules) != expected_stages:
                out.append(f"torchtitan.toml: {len(modules)} pipeline stages, the plan runs {expected_stages}")
            if t.local_batch_size % p.pipeline_parallel_microbatch_size != 0:
                out.append("torchtitan.toml: local_batch_size is not a whole number of pipeline micro-batches")
    except (AssertionError, ValueError) as e:
        out.append(f"torchtitan.toml: torchtitan refuses it: {e}")
    return out, cfg


def nanotron_problems(yaml_text, world_size):
    """A nanotron.yaml as nanotron's run_train.py reads it (DistributedTrainer -> get_config_from_file), after the
    user has filled its placeholders (the learning rate with a number, the rest with names), then the checks its
    runtime makes before training: the trainer's log levels (trainer.py), LlamaConfig's collator for a Hugging Face
    dataset (run_train.py gives Qwen2Config's an argument it lacks), ParallelContext (parallel/context.py @2411b02: tp x pp x cp x dp = world size,
    ranks laid out (ep, pp, dp, cp, tp), so ep 1), TensorParallelRowLinear (async communication is refused under
    ALL_REDUCE) and the optimizer's ZeRO stage (helpers.py: 0, or > 0 for ZeRO-1). Returns (problems, Config or None)."""
    import re
    text = yaml_text.replace('"<FILL: learning rate>"', "3.0e-04")
    text = re.sub(r'"<FILL: [^"]*>"', '"filled"', text)
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        cfg = nanotron_config_from_file(path, config_class=NanotronConfig)
    except Exception as e:  # dacite's and the __post_init__ asserts' own words
        return [f"nanotron get_config_from_file: {type(e).__name__}: {e}"], None
    finally:
        os.unlink(path)
    out = []
    p = cfg.parallelism
    if cfg.logging is None:  # trainer.py: set_ranks_logging_level(..., logging_config=self.config.logging)
        out.append("nanotron: no logging section (the trainer reads its log levels at start-up)")
    if type(cfg.model.model_config).__name__ != "LlamaConfig":  # run_train.py: Qwen2Config's collator (see recipe_nanotron.cpp)
        out.append(f"nanotron: {type(cfg.model.model_config).__name__} does not start from a Hugging Face dataset")
    if p.tp * p.pp * p.context_parallel_size * p.dp != world_size:
        out.append(f"nanotron: tp x pp x cp x dp = {p.tp * p.pp * p.context_parallel_size * p.dp} on {world_size} GPUs")
    if p.expert_parallel_size != 1:
        out.append("nanotron: main's ParallelContext starts expert_parallel_size 1 only")
    if p.tp_linear_async_communication and p.tp_mode.name == "ALL_REDUCE":
        out.append("nanotron: tp_linear_async_communication under ALL_REDUCE (TensorParallelRowLinear raises)")
    if cfg.optimizer.zero_stage not in (0, 1):
        out.append(f"nanotron: zero_stage {cfg.optimizer.zero_stage} (ZeRO-1 is the only sharding)")
    return out, cfg
