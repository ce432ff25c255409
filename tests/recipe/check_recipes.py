#!/usr/bin/env python3
"""Launch-recipe tests: for each query in tests/recipe/queries/, `trainfit recipe` must
  - write with --out exactly the bytes of the facade document's files (what the UI copies),
  - match the golden files in tests/recipe/golden/<case>/ (UPDATE_GOLDEN=1 rewrites them, on purpose only),
  - give files that parse: YAML with PyYAML (Debian python3-yaml), JSON with json, shell with `bash -n`
    (the YAML's run / commands blocks too),
  - agree with the plan field by field (batch sizes, ZeRO stage, TP/PP, node and GPU counts, the SkyPilot
    accelerators string against the snapshot's offer, checkpoint interval, spot bucket and resume step),
  - use placeholders of the one form <FILL: ...>, each listed in the document,
  - be accepted by the target tool's own validation code (upstream_checks.py, tests/recipe/upstream/SOURCE.md), for
    the fixed plans here and for one offer of every provider / marketplace in the snapshot; a format that is not
    written says why.
Usage: check_recipes.py PATH/TO/trainfit SOURCE_DIR
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

import yaml

import upstream_checks as up

BIN, SRC = sys.argv[1], sys.argv[2]
QUERIES = os.path.join(SRC, "tests/recipe/queries")
GOLDEN = os.path.join(SRC, "tests/recipe/golden")
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
# The bundled snapshot, never one `trainfit snapshot update` downloaded on this machine (a folder that does not exist).
ENV = dict(os.environ, TRAINFIT_TODAY="2026-11-29", TRAINFIT_DATA_DIR=os.path.join(SRC, "tests/recipe/no-downloaded-snapshot"))
FILL = re.compile(r"<FILL: [^<>]+>")
failures = []


def check(cond, case, what):
    if not cond:
        failures.append(f"{case}: {what}")


def run(args):
    return subprocess.run([BIN] + args, cwd=SRC, env=ENV, capture_output=True, text=True)


def bash_syntax_ok(text):
    return subprocess.run(["bash", "-n"], input=text, text=True, capture_output=True).returncode == 0


with open(os.path.join(SRC, "data/snapshot.json")) as f:
    SNAP = json.load(f)
OFFERS = [dict(zip(SNAP["offers"]["columns"], row)) for row in SNAP["offers"]["rows"]]
GPUS = {g["id"]: g for g in SNAP["gpus"]}
# dstack spells Vast.ai "vastai" (BackendType); every other provider id is its backend name where it has one.
DSTACK_NAME = {"vast": "vastai"}


def snapshot_offer(offer_id):
    for o in OFFERS:
        if o["id"] == offer_id:
            return o
    raise SystemExit(f"offer {offer_id} not in the snapshot")


def launcher(offer):
    """The catalog the offer is launched through: the marketplace of a resold row, else the provider."""
    return offer["via"] or offer["provider"]


def arch_major(gpu_id):
    """CUDA compute capability major of the GPU generation (Blackwell 10; the rest of the snapshot is older)."""
    return 10 if GPUS[gpu_id]["arch"] == "Blackwell" else 9


def query_model(query):
    """The query's model as data/models.json writes it (a catalog id), or the inline model object."""
    m = query.get("model")
    if isinstance(m, dict):
        return m
    with open(os.path.join(SRC, "data", "models.json")) as f:
        return next((x for x in json.load(f)["models"] if x["id"] == m), {})


def query_layers(query):
    """The query's model's layer count."""
    return query_model(query).get("num_layers", 0)


def upstream_case(case, doc, plan, offer, query_method, layers=0):
    """Every file of one recipe through its tool's own validation code (upstream_checks.py)."""
    files = {f["format"]: f for f in doc["files"]}
    spot = doc["option"] == "spot"
    lid = launcher(offer)
    problems = []
    f = files["skypilot"]
    if f["applies"]:
        problems += up.skypilot_problems(yaml.safe_load(f["text"]), spot)
    else:
        check(lid not in up.SKY["clouds"]["values"] and f["why"], case, f"skypilot not written for {lid}, a SkyPilot cloud")
    f = files["dstack"]
    if f["applies"]:
        y = yaml.safe_load(f["text"])
        problems += up.dstack_problems(y, spot)
        check(y["backends"] == [DSTACK_NAME.get(lid, lid)], case, f"dstack backends {y['backends']} for {lid}")
        # The memory range holds the datasheet label (the catalogs list a little less: 179.06 for a 180 GB B200).
        mem = y["resources"]["gpu"].split(":")[-2]
        lo, _, hi = mem.partition("..")
        label = GPUS[offer["gpu"]]["memory_bytes"] / 1e9
        check(float(lo[:-2]) <= 0.9 * label + 1 and float(hi[:-2]) >= label, case, f"dstack memory range {mem}")
    else:
        check(DSTACK_NAME.get(lid, lid) not in up.DSTACK["backends"]["values"] and f["why"], case,
              f"dstack not written for {lid}, a dstack backend")
    if files["deepspeed"]["applies"]:
        problems += up.deepspeed_problems(json.loads(files["deepspeed"]["text"]), plan["dp"])
    if files["accelerate"]["applies"]:
        problems += up.accelerate_problems(files["accelerate"]["text"])
    env_major = arch_major(offer["gpu"])
    if files["megatron"]["applies"]:
        t = files["megatron"]["text"]
        problems += up.megatron_problems(up.megatron_words(t), t, plan["tp"], plan["cp"], env_major)
    else:
        check(query_method in ("lora", "qlora") or plan["offload_optimizer"] or plan["offload_params"]
              or doc["engine"] in ("torchtitan", "nanotron"), case, "megatron not written for a full fine-tune without offload")
    if files["torchtitan"]["applies"]:
        problems += up.torchtitan_problems(files["torchtitan"]["text"], doc["nodes"] * doc["nproc_per_node"],
                                           layers, plan["pp"] * max(1, plan.get("vp", 1)))[0]
    if files["nanotron"]["applies"]:
        problems += up.nanotron_problems(files["nanotron"]["text"], doc["nodes"] * doc["nproc_per_node"])[0]
    if doc["engine"] == "megatron":
        for fmt in ("torchrun", "skypilot", "dstack"):
            if not files[fmt]["applies"]:
                continue
            t = files[fmt]["text"]
            if fmt == "skypilot":
                t = yaml.safe_load(t)["run"]
            elif fmt == "dstack":
                t = "\n".join(yaml.safe_load(t)["commands"])
            ws = words(t.split("\ntorchrun", 1)[1])
            ws = ws[next(i for i, w in enumerate(ws) if "training script" in w) + 1:]  # the script's arguments
            problems += [f"{fmt}: {m}" for m in up.megatron_problems(ws, t, plan["tp"], plan["cp"], env_major)]
    for fmt in ("torchrun", "skypilot", "dstack"):
        if files[fmt]["applies"]:
            t = files[fmt]["text"]
            if fmt == "skypilot":
                t = yaml.safe_load(t)["run"]
            elif fmt == "dstack":
                t = "\n".join(yaml.safe_load(t)["commands"])
            problems += up.torchrun_problems(fmt, t, doc["nodes"], offer["gpu_count"], doc["nproc_per_node"],
                                             "torchtitan.train" if doc["engine"] == "torchtitan" else None,
                                             "run_train.py" if doc["engine"] == "nanotron" else None)
    for m in problems:
        check(False, case, m)
    # Every format saves at the one interval the cost model priced.
    k = str(doc["save_interval_steps"])
    for fmt in ("torchrun", "skypilot", "dstack", "megatron"):
        if files[fmt]["applies"] and doc["engine"] not in ("torchtitan", "nanotron"):  # their interval is in their file
            check(("--save_steps " + k) in files[fmt]["text"] or ("--save-interval " + k) in files[fmt]["text"], case,
                  f"{fmt}: save interval is not {k}")


def flag_value(args, flag):
    """The value after `flag` in a list of shell words (None when absent)."""
    for i, w in enumerate(args):
        if w == flag and i + 1 < len(args):
            return args[i + 1]
        if w.startswith(flag + "="):
            return w.split("=", 1)[1]
    return None


def words(text):
    return shlex.split(text.replace("\\\n", " "), comments=True)


def check_case(case, query_path):
    r = run(["recipe", "--query", query_path, "--format", "json"])
    check(r.returncode == 0, case, f"recipe --format json exit {r.returncode}: {r.stderr}")
    if r.returncode != 0:
        return
    doc = json.loads(r.stdout)
    with open(query_path) as f:
        query = json.load(f)
    plan = doc["plan"]
    files = {f["format"]: f for f in doc["files"]}
    mb, ga, dp, gb = plan["micro_batch"], plan["grad_accum"], plan["dp"], plan["global_batch"]
    # The batch identity, and the query's global batch kept exactly.
    check(mb * ga * dp == gb, case, f"micro {mb} x accum {ga} x dp {dp} != global {gb}")
    if "global_batch" in query:
        check(gb == query["global_batch"], case, f"global batch {gb} != query's {query['global_batch']}")
    if "nodes" in query.get("target", {}):
        check(doc["nodes"] == query["target"]["nodes"], case, "node count differs from target.nodes")
    if query.get("target", {}).get("pricing") in ("spot", "on-demand"):
        check(doc["option"] == query["target"]["pricing"], case, "pricing option differs from target.pricing")

    # --out writes the same bytes as the document (what the UI's copy button copies).
    with tempfile.TemporaryDirectory() as out:
        w = run(["recipe", "--query", query_path, "--format", "all", "--out", out])
        check(w.returncode == 0, case, f"--format all --out: exit {w.returncode}: {w.stderr}")
        for f in doc["files"]:
            path = os.path.join(out, f["filename"])
            if not f["applies"]:
                check(not os.path.exists(path), case, f"{f['format']} does not apply but was written")
                check(f["why"] != "", case, f"{f['format']} does not apply and says no why")
                continue
            with open(path) as g:
                check(g.read() == f["text"], case, f"{f['filename']}: --out bytes differ from the document")
            gold = os.path.join(GOLDEN, case, f["filename"])
            if UPDATE:
                os.makedirs(os.path.dirname(gold), exist_ok=True)
                with open(gold, "w") as g:
                    g.write(f["text"])
            elif not os.path.exists(gold):
                check(False, case, f"no golden file {gold}")
            else:
                with open(gold) as g:
                    check(g.read() == f["text"], case, f"{f['filename']} differs from {gold}")

    # Placeholders: one form, all listed, all used.
    used = set()
    for f in doc["files"]:
        used |= set(FILL.findall(f["text"]))
        check(f["text"].count("<FILL") == len(FILL.findall(f["text"])), case, f"{f['format']}: malformed placeholder")
    check(used == set(doc["placeholders"]), case, f"placeholders used {sorted(used)} != listed {doc['placeholders']}")

    offer = snapshot_offer(doc["offer"])
    spot = doc["option"] == "spot"
    megatron = doc["engine"] == "megatron"
    # torchtitan's plans launch torchtitan (torchtitan.toml) whenever that file carries the plan.
    titan = doc["engine"] == "torchtitan"
    check(titan == (query.get("framework") == "torchtitan" and files["torchtitan"]["applies"]), case,
          "engine torchtitan exactly when torchtitan.toml applies to a torchtitan plan")
    nano = doc["engine"] == "nanotron"
    check(nano == (query.get("framework") == "nanotron" and files["nanotron"]["applies"]), case,
          "engine nanotron exactly when nanotron.yaml applies to a nanotron plan")
    # Ulysses-only context parallelism runs on the Hugging Face path (DeepSpeed ALST through accelerate).
    hf_ulysses = plan["cp"] > 1 and plan.get("cp_scheme") == "ulysses" and plan["tp"] == 1 and plan["pp"] == 1 \
        and plan["ep"] == 1
    # So does hf-trainer's ring: accelerate's context parallelism (cp_size, cp_backend torch), under FSDP2.
    hf_ring = plan["cp"] > 1 and plan.get("cp_scheme") == "ring" and plan["tp"] == 1 and plan["pp"] == 1 \
        and plan["ep"] == 1 and query.get("framework") == "hf-trainer"
    check(not hf_ring or plan["zero"] in (2, 3), case, "hf-trainer's ring runs under FSDP2 (ZeRO-2 or 3)")
    check(titan or nano or megatron == (plan["tp"] > 1 or plan["pp"] > 1 or (plan["cp"] > 1 and not hf_ulysses
                                                                            and not hf_ring)
                                or plan["ep"] > 1 or query.get("framework") == "megatron-core"),
          case, "engine does not follow the layout / framework")

    def train_args_ok(args, fmt):
        if titan:
            # torchrun -m torchtitan.train --job.config_file torchtitan.toml: every number is in the file.
            check("-m" in args and args[args.index("-m") + 1] == "torchtitan.train", case, f"{fmt}: -m torchtitan.train")
            check(flag_value(args, "--job.config_file") == "torchtitan.toml", case, f"{fmt}: --job.config_file")
            return
        if nano:
            # torchrun run_train.py --config-file nanotron.yaml: every number is in the file.
            check("run_train.py" in args, case, f"{fmt}: run_train.py")
            check(flag_value(args, "--config-file") == "nanotron.yaml", case, f"{fmt}: --config-file")
            return
        if megatron:
            check(flag_value(args, "--micro-batch-size") == str(mb), case, f"{fmt}: --micro-batch-size")
            check(flag_value(args, "--global-batch-size") == str(gb), case, f"{fmt}: --global-batch-size")
            check(flag_value(args, "--tensor-model-parallel-size") == str(plan["tp"]), case, f"{fmt}: TP")
            check(flag_value(args, "--pipeline-model-parallel-size") == str(plan["pp"]), case, f"{fmt}: PP")
            check(flag_value(args, "--save-interval") == str(doc["save_interval_steps"]), case, f"{fmt}: --save-interval")
            check(("--sequence-parallel" in args) == plan["sequence_parallel"], case, f"{fmt}: --sequence-parallel")
            check(("--use-distributed-optimizer" in args) == (plan["zero"] >= 1), case, f"{fmt}: distributed optimizer")
            vp = plan.get("vp", 1)
            vflag = flag_value(args, "--num-layers-per-virtual-pipeline-stage")
            vstages = flag_value(args, "--num-virtual-stages-per-pipeline-rank")
            if vp > 1 and vflag is None:
                # megatron/training/arguments.py validate_args: with --num-virtual-stages-per-pipeline-rank the layers,
                # plus the embedding and the loss where they are accounted for, divide into pp x vp chunks.
                counted = int(flag_value(args, "--num-layers")) + ("--account-for-embedding-in-pipeline-split" in args) + \
                          ("--account-for-loss-in-pipeline-split" in args)
                check(vstages == str(vp) and counted % (plan["pp"] * vp) == 0, case,
                      f"{fmt}: virtual stages {vstages} over {counted} layers")
            elif vp > 1:
                check(int(vflag) * plan["pp"] * vp == int(flag_value(args, "--num-layers")), case,
                      f"{fmt}: layers per virtual stage {vflag}")
            else:
                check(vflag is None and vstages is None, case, f"{fmt}: virtual stages the plan lacks")
            rc = flag_value(args, "--recompute-granularity")
            modules = query.get("recompute_modules")
            if plan["recompute"] == "selective" and modules == []:
                check(rc is None, case, f"{fmt}: an empty module list is Megatron without a recompute flag")
            else:
                check(rc == (None if plan["recompute"] == "none" else plan["recompute"]), case, f"{fmt}: recompute {rc}")
            if "--recompute-modules" in args:
                # transformer_config.py (TransformerConfig.__post_init__) accepts these names only.
                at = args.index("--recompute-modules") + 1
                named = []
                while at < len(args) and not args[at].startswith("--"):
                    named.append(args[at])
                    at += 1
                allowed = up.MEGATRON.get("recompute_modules", [])
                check(named and all(n in allowed for n in named), case, f"{fmt}: --recompute-modules {named}")
                check(sorted(named) == sorted(modules or []), case, f"{fmt}: modules {named} for {modules}")
            check(flag_value(args, "--train-iters") == str(int(doc["steps"])), case, f"{fmt}: --train-iters")
        else:
            check(flag_value(args, "--per_device_train_batch_size") == str(mb), case, f"{fmt}: micro-batch")
            check(flag_value(args, "--gradient_accumulation_steps") == str(ga), case, f"{fmt}: accumulation")
            check(flag_value(args, "--save_steps") == str(doc["save_interval_steps"]), case, f"{fmt}: save_steps")
            check(flag_value(args, "--max_steps") == str(int(doc["steps"])), case, f"{fmt}: max_steps")
            ds = (plan["zero"] > 0 or plan["offload_optimizer"] or plan["offload_params"]) and not hf_ring
            check((flag_value(args, "--deepspeed") == "ds_config.json") == ds, case, f"{fmt}: --deepspeed")
            # The Trainer refuses --gradient_checkpointing next to FSDP's activation checkpointing, which the ring's
            # FSDP2 plugin sets (FSDP_ACTIVATION_CHECKPOINTING).
            check(("--gradient_checkpointing" in args) == (plan["recompute"] != "none" and not hf_ring), case,
                  f"{fmt}: checkpointing")
            check(("--use_peft" in args) == (query.get("method") in ("lora", "qlora")), case, f"{fmt}: LoRA flags")
        dirs = [flag_value(args, "--save"), flag_value(args, "--output_dir")]
        check(("/checkpoints" in dirs) == spot, case, f"{fmt}: spot checkpoints go to the bucket mount")

    # SkyPilot.
    if files["skypilot"]["applies"]:
        sky = yaml.safe_load(files["skypilot"]["text"])
        res = sky["resources"]
        check(sky["num_nodes"] == doc["nodes"], case, "skypilot num_nodes")
        check(res["cloud"] == launcher(offer) and res["region"] == offer["region"], case, "skypilot cloud/region")
        # A GCP N1 offer is "<host>+<ACCEL>:<count>": SkyPilot launches the host with the GPU in `accelerators`.
        host, plus, attached = offer["instance_type"].partition("+")
        check(res["instance_type"] == host, case, "skypilot instance_type")
        check(not plus or res["accelerators"] == attached, case, f"skypilot accelerators vs the offer's {attached}")
        name, _, count = res["accelerators"].partition(":")
        check(int(count) == offer["gpu_count"] == doc["gpus_per_node"], case, f"skypilot accelerators {res['accelerators']}")
        check(res["accelerators"] == doc["accelerators"], case, "skypilot accelerators vs document")
        check(res["use_spot"] is spot, case, "skypilot use_spot")
        check(res["disk_size"] == doc["disk_size_GB"] and res["disk_size"] >= 256, case, "skypilot disk_size")
        run_block = sky["run"]
        check(bash_syntax_ok(run_block), case, "skypilot run block: bash -n fails")
        for var in ("SKYPILOT_NUM_NODES", "SKYPILOT_NODE_RANK", "SKYPILOT_NODE_IPS"):
            check(var in run_block, case, f"skypilot run lacks {var}")
        args = words(run_block.split("torchrun \\\n", 1)[1])
        check(flag_value(args, "--nnodes") == "$SKYPILOT_NUM_NODES", case, "skypilot --nnodes")
        check(flag_value(args, "--nproc-per-node") in ("$SKYPILOT_NUM_GPUS_PER_NODE", str(doc["nproc_per_node"])), case,
              "skypilot --nproc-per-node")
        train_args_ok(args, "skypilot")
        if spot:
            mount = (sky.get("file_mounts") or {}).get("/checkpoints")
            can_mount = res["cloud"] not in up.SKY["storage_mounting_unsupported"]["values"]
            check((mount is not None and mount.get("mode") == "MOUNT") == can_mount, case, "spot: checkpoint bucket mount")
            check(can_mount or any("cannot mount a bucket" in n for n in doc["notes"]), case, "spot: no mount and no note")
            check((res.get("job_recovery") or {}).get("strategy") == "FAILOVER", case, "spot: no job_recovery")
            check(megatron or titan or nano or "--resume_from_checkpoint" in run_block, case, "spot: no resume step")
            check(doc["save_interval_steps"] < doc["steps"], case, "spot: checkpoints only at the end")
        else:
            check("file_mounts" not in sky, case, "on-demand recipe mounts a bucket")
        if files["deepspeed"]["applies"] and plan["zero"] > 0:
            check("cat > ds_config.json" in run_block, case, "skypilot run does not write ds_config.json")
        if titan:
            check("cat > torchtitan.toml <<'EOF'\n" + files["torchtitan"]["text"] + "EOF\n" in run_block, case,
                  "skypilot run does not write this recipe's torchtitan.toml")
        if nano:
            check("cat > nanotron.yaml <<'EOF'\n" + files["nanotron"]["text"] + "EOF\n" in run_block, case,
                  "skypilot run does not write this recipe's nanotron.yaml")

    # dstack.
    if files["dstack"]["applies"]:
        ds = yaml.safe_load(files["dstack"]["text"])
        check(ds["type"] == "task" and ds["nodes"] == doc["nodes"], case, "dstack nodes")
        check(ds["spot_policy"] == ("spot" if spot else "on-demand"), case, "dstack spot_policy")
        check(ds["resources"]["gpu"].endswith(":" + str(offer["gpu_count"])), case, "dstack gpu count")
        check(ds["regions"] == [offer["region"]], case, "dstack region")
        cmds = "\n".join(ds["commands"])
        check(bash_syntax_ok(cmds), case, "dstack commands: bash -n fails")
        args = words(cmds.split("torchrun \\\n", 1)[1])
        check(flag_value(args, "--nnodes") == "$DSTACK_NODES_NUM", case, "dstack --nnodes")
        check(flag_value(args, "--master-addr") == "$DSTACK_MASTER_NODE_IP", case, "dstack --master-addr")
        train_args_ok(args, "dstack")
        if titan:
            check("cat > torchtitan.toml <<'EOF'\n" + files["torchtitan"]["text"] + "EOF" in cmds, case,
                  "dstack commands do not write this recipe's torchtitan.toml")
        if nano:
            check("cat > nanotron.yaml <<'EOF'\n" + files["nanotron"]["text"] + "EOF" in cmds, case,
                  "dstack commands do not write this recipe's nanotron.yaml")

    # torchrun.sh.
    t = files["torchrun"]["text"]
    check(bash_syntax_ok(t), case, "torchrun.sh: bash -n fails")
    args = words(t[t.index("\ntorchrun") + 1:])
    check(flag_value(args, "--nnodes") == str(doc["nodes"]), case, "torchrun --nnodes")
    check(flag_value(args, "--nproc-per-node") == str(doc["nproc_per_node"]), case, "torchrun --nproc-per-node")
    check(doc["nproc_per_node"] * doc["nodes"] == plan["tp"] * plan["pp"] * plan["dp"] * plan["cp"], case,
          "processes != GPUs the layout uses")
    train_args_ok(args, "torchrun")
    if hf_ring or hf_ulysses:
        # accelerate launch's environment for the parallelism_config (utils/launch.py), which the Trainer's
        # Accelerator reads under torchrun; the ring's FSDP2 plugin's too.
        env = dict(re.findall(r"^export ([A-Z0-9_]+)=(\S*)$", t, re.M))
        check(env.get("ACCELERATE_USE_PARALLELISM_CONFIG") == "true", case, "torchrun.sh: parallelism_config not exported")
        for problem in up.torchrun_env_problems(env, doc["nodes"] * doc["nproc_per_node"],
                                                flag_value(args, "--deepspeed") is not None):
            check(False, case, "torchrun.sh: " + problem)
        check(int(env.get("PARALLELISM_CONFIG_DP_SHARD_SIZE", 0)) * int(env.get("PARALLELISM_CONFIG_CP_SIZE", 1))
              * int(env.get("PARALLELISM_CONFIG_SP_SIZE", 1)) == plan["dp"] * plan["cp"], case,
              f"torchrun.sh: parallelism sizes {env}")
        if hf_ring:
            check(env.get("PARALLELISM_CONFIG_CP_SIZE") == str(plan["cp"]) and env.get("ACCELERATE_USE_FSDP") == "true"
                  and env.get("FSDP_VERSION") == "2"
                  and env.get("FSDP_RESHARD_AFTER_FORWARD") == ("true" if plan["zero"] == 3 else "false")
                  and env.get("FSDP_ACTIVATION_CHECKPOINTING") == ("true" if plan["recompute"] != "none" else "false"),
                  case, f"torchrun.sh: the ring's FSDP2 environment {env}")

    # DeepSpeed JSON.
    if files["deepspeed"]["applies"]:
        d = json.loads(files["deepspeed"]["text"])
        check(d["train_batch_size"] == gb, case, "deepspeed train_batch_size")
        check(d["train_micro_batch_size_per_gpu"] == mb, case, "deepspeed micro batch")
        check(d["gradient_accumulation_steps"] == ga, case, "deepspeed accumulation")
        check(d["train_micro_batch_size_per_gpu"] * d["gradient_accumulation_steps"] * dp == d["train_batch_size"], case,
              "deepspeed batch identity")
        check(d["zero_optimization"]["stage"] == plan["zero"], case, "deepspeed ZeRO stage")
        check(("offload_optimizer" in d["zero_optimization"]) == plan["offload_optimizer"], case, "deepspeed offload")
        check(d["bf16"]["enabled"] == (doc["precision"] in ("bf16", "fp8")), case, "deepspeed bf16")
        check(d["fp16"]["enabled"] == (doc["precision"] == "fp16"), case, "deepspeed fp16")
        check(d["gradient_clipping"] == 1.0, case, "deepspeed gradient_clipping")
    else:
        check(megatron or titan or nano or hf_ring, case, "deepspeed refused for a data-parallel plan")

    # accelerate.
    if files["accelerate"]["applies"]:
        a = yaml.safe_load(files["accelerate"]["text"])
        check(a["num_machines"] == doc["nodes"], case, "accelerate num_machines")
        check(a["num_processes"] == doc["nodes"] * doc["nproc_per_node"], case, "accelerate num_processes")
        check("gradient_accumulation_steps" not in a, case, "accelerate: top-level gradient_accumulation_steps")
        # FSDP has no optimizer-only offload (its CPU offload moves parameters, gradients and optimizer together).
        fsdp_ok = not (plan["offload_optimizer"] and not plan["offload_params"])
        ulysses = plan["cp"] > 1 and plan.get("cp_scheme") == "ulysses"
        want = "DEEPSPEED" if ulysses else "FSDP" if hf_ring or plan["zero"] in (2, 3) and fsdp_ok else (
            "DEEPSPEED" if plan["zero"] > 0 or plan["offload_optimizer"] else ("MULTI_GPU" if a["num_processes"] > 1 else "NO"))
        if ulysses:
            # accelerate's sequence-parallel config: dp_replicate x dp_shard x sp = num_processes, DeepSpeed's backend.
            pc = a.get("parallelism_config") or {}
            check(pc.get("parallelism_config_sp_size") == plan["cp"] and pc.get("parallelism_config_sp_backend") == "deepspeed"
                  and pc.get("parallelism_config_dp_replicate_size", 1) * pc.get("parallelism_config_dp_shard_size", 1)
                  * plan["cp"] == a["num_processes"], case, f"accelerate parallelism_config {pc}")
        check(a["distributed_type"] == want, case, f"accelerate distributed_type {a['distributed_type']} != {want}")
        if hf_ring:
            # FSDP2 (accelerate docs concept_guides/context_parallelism: context parallelism only under FSDP2), the
            # ring's sizes: dp_replicate x dp_shard x cp = num_processes.
            f2 = a["fsdp_config"]
            check(f2.get("fsdp_version") == 2 and f2.get("fsdp_reshard_after_forward") is (plan["zero"] == 3), case,
                  f"accelerate FSDP2 {f2}")
            pc = a.get("parallelism_config") or {}
            check(pc.get("parallelism_config_cp_size") == plan["cp"] and pc.get("parallelism_config_cp_backend") == "torch"
                  and pc.get("parallelism_config_dp_replicate_size", 1) * pc.get("parallelism_config_dp_shard_size", 1)
                  * plan["cp"] == a["num_processes"], case, f"accelerate parallelism_config {pc}")
        elif want == "FSDP":
            check(a["fsdp_config"]["fsdp_sharding_strategy"] == ("FULL_SHARD" if plan["zero"] == 3 else "SHARD_GRAD_OP"),
                  case, "accelerate FSDP sharding")
        if want == "DEEPSPEED":
            check(a["deepspeed_config"].get("deepspeed_config_file") == "ds_config.json", case, "accelerate ds config file")

    # Megatron.
    if files["megatron"]["applies"]:
        m = files["megatron"]["text"]
        check(bash_syntax_ok(m), case, "megatron_args.sh: bash -n fails")
        body = m[m.index("MEGATRON_ARGS=(") + len("MEGATRON_ARGS=("):m.rindex(")")]
        megatron_args = words(body)
        saved = megatron
        megatron = True
        train_args_ok(megatron_args, "megatron")
        megatron = saved

    # torchtitan's job config: the plan's numbers, as torchtitan reads them (upstream_case runs its own checks).
    if files["torchtitan"]["applies"]:
        _, cfg = up.torchtitan_problems(files["torchtitan"]["text"], doc["nodes"] * doc["nproc_per_node"],
                                        query_layers(query))
        if cfg is not None:
            p, t = cfg.parallelism, cfg.training
            shard = plan["zero"] == 3
            check((p.data_parallel_shard_degree, p.data_parallel_replicate_degree) == ((dp, 1) if shard else (1, dp)),
                  case, "torchtitan: FSDP over the plan's data-parallel ranks exactly when it is ZeRO-3")
            check((p.tensor_parallel_degree, p.pipeline_parallel_degree, p.context_parallel_degree)
                  == (plan["tp"], plan["pp"], plan["cp"]), case, "torchtitan: TP / PP / CP degrees")
            check(p.expert_parallel_degree == plan["ep"], case, "torchtitan: EP degree")
            if plan["ep"] > 1:
                check(p.expert_tensor_parallel_degree == (plan.get("etp") or plan["tp"]), case, "torchtitan: ETP degree")
                check((p.expert_parallel_comm_backend == "deepep") == (plan.get("dispatcher") == "deepep"), case,
                      "torchtitan: DeepEP exactly where the plan runs it")
            local = mb * ga if plan["pp"] > 1 else mb
            check((t.local_batch_size, t.global_batch_size, t.seq_len) == (local, gb, query["seq_len"]), case,
                  "torchtitan: local / global batch, sequence length")
            if plan["pp"] > 1:
                check(p.pipeline_parallel_microbatch_size == mb, case, "torchtitan: pipeline micro-batch")
                check(p.pipeline_parallel_schedule == ("Interleaved1F1B" if plan.get("vp", 1) > 1 else "1F1B"), case,
                      "torchtitan: pipeline schedule")
            check(t.steps == int(doc["steps"]), case, "torchtitan: steps")
            check(cfg.checkpoint.enable and cfg.checkpoint.interval == doc["save_interval_steps"], case,
                  "torchtitan: checkpoint interval")
            check(cfg.activation_checkpoint.mode == plan["recompute"], case, "torchtitan: activation checkpointing")
            check((cfg.job.dump_folder == "/checkpoints") == spot, case, "torchtitan: spot checkpoints go to the bucket")

    # nanotron's config: the plan's numbers, as nanotron reads them (upstream_case runs its own checks).
    if files["nanotron"]["applies"]:
        _, cfg = up.nanotron_problems(files["nanotron"]["text"], doc["nodes"] * doc["nproc_per_node"])
        if cfg is not None:
            # The plan, as nanotron reads it back: its batch identity (Config.global_batch_size), degrees, schedule.
            p, tok = cfg.parallelism, cfg.tokens
            check(cfg.global_batch_size == plan["global_batch"], case, f"nanotron global batch {cfg.global_batch_size}")
            check((tok.micro_batch_size, tok.batch_accumulation_per_replica) == (plan["micro_batch"], plan["grad_accum"]),
                  case, "nanotron micro-batch / accumulation")
            check((p.dp, p.tp, p.pp) == (plan["dp"], plan["tp"], plan["pp"]), case, "nanotron dp / tp / pp")
            check(cfg.optimizer.zero_stage == plan["zero"], case, "nanotron zero_stage")
            check(p.recompute_layer == (plan["recompute"] == "full"), case, "nanotron recompute_layer")
            check((p.tp_mode.name == "REDUCE_SCATTER") == (plan["sequence_parallel"] and plan["tp"] > 1), case,
                  "nanotron tp_mode vs sequence parallelism")
            check(type(p.pp_engine).__name__ == "OneForwardOneBackwardPipelineEngine", case, "nanotron pp_engine 1f1b")
            check(cfg.checkpoints.checkpoint_interval == doc["save_interval_steps"], case, "nanotron checkpoint_interval")
            check(str(cfg.checkpoints.checkpoints_path) == ("/checkpoints" if spot else "checkpoints"), case,
                  "nanotron checkpoints_path")
            check(cfg.checkpoints.resume_checkpoint_path == cfg.checkpoints.checkpoints_path, case,
                  "nanotron resumes from its own checkpoints")
            check(tok.train_steps == int(doc["steps"]) and tok.sequence_length == query["seq_len"], case,
                  "nanotron train_steps / sequence_length")
            # The architecture the plan was costed for, as nanotron's LlamaConfig holds it.
            mc, m = cfg.model.model_config, query_model(query)
            check(type(mc).__name__ == "LlamaConfig", case, f"nanotron model class {type(mc).__name__}")
            got = (mc.hidden_size, mc.intermediate_size, mc.num_hidden_layers, mc.num_attention_heads,
                   mc.num_key_value_heads, mc.vocab_size, mc.tie_word_embeddings, mc.rope_theta)
            want = (m["hidden_size"], m["intermediate_size"], m["num_layers"], m["num_heads"], m["num_kv_heads"],
                    m["vocab_size"], m.get("tie_embeddings", False), float(m.get("rope_theta", 10000)))
            check(got == want, case, f"nanotron model_config {got} != the model's {want}")
            check(repr(cfg.model.dtype) == "torch.bfloat16" and doc["precision"] == "bf16", case, "nanotron dtype")

    upstream_case(case, doc, plan, offer, query.get("method"), query_layers(query))

    # The checkpoint interval in steps follows the cost model's interval.
    step_s = plan["step"]["total_s"]
    k = doc["save_interval_steps"]
    check(k == 1 or k == doc["steps"] or k * step_s <= doc["checkpoint_interval_s"] * (1 + 1e-9), case,
          "save interval longer than planned")
    check(k == doc["steps"] or (k + 1) * step_s > doc["checkpoint_interval_s"], case, "save interval shorter than planned")


def check_cli_errors():
    q = os.path.join(QUERIES, "tp_pp_two_nodes.json")
    r = run(["recipe", "--query", q, "--format", "deepspeed"])
    check(r.returncode == 1 and "deepspeed: not written" in r.stderr, "cli", "a format that does not apply: exit 1 + why")
    r = run(["recipe", "--query", q, "--format", "skypilot,megatron"])
    check(r.returncode == 2 and "--out" in r.stderr, "cli", "several formats without --out: exit 2 naming --out")
    r = run(["recipe", "--query", q, "--format", "yaml"])
    check(r.returncode == 2, "cli", "unknown format: exit 2")
    r = run(["recipe", "--model", "llama-3.1-8b", "--offer", "no/such/offer", "--format", "skypilot"])
    check(r.returncode == 2 and "target.offer" in r.stderr, "cli", "unknown offer: exit 2 naming target.offer")
    r = run(["recipe", "--query", q, "--nodes", "3", "--format", "skypilot"])
    check(r.returncode == 2 and "target.nodes" in r.stderr, "cli", f"impossible node count: {r.returncode} {r.stderr}")


def check_overlap_asserts():
    """The all-to-all overlap case's Megatron arguments pass Megatron-Core's asserts for it, and each way of breaking
    them is caught: no virtual stages under PP, no expert parallelism, full recompute, another dispatcher."""
    q = os.path.join(QUERIES, "moe_a2a_overlap_megatron_h100.json")
    r = run(["recipe", "--query", q, "--format", "megatron"])
    check(r.returncode == 0, "overlap", f"recipe failed: {r.stderr.strip()}")
    if r.returncode != 0:
        return
    ws = up.megatron_words(r.stdout)
    check("--overlap-moe-expert-parallel-comm" in ws, "overlap", "the flag is not written")
    check(not up.megatron_problems(ws, r.stdout, 1, 1, 9), "overlap", "the written arguments fail Megatron's asserts")

    def without(flag, n):
        i = ws.index(flag)
        return ws[:i] + ws[i + 1 + n:]

    def with_value(flag, value):
        i = ws.index(flag)
        return ws[:i + 1] + [value] + ws[i + 2:]
    broken = {
        "no virtual stages": without("--num-layers-per-virtual-pipeline-stage", 1),
        "EP 1": with_value("--expert-model-parallel-size", "1"),
        "full recompute": with_value("--recompute-granularity", "full"),
        "allgather dispatcher": with_value("--moe-token-dispatcher-type", "allgather"),
    }
    for what, variant in broken.items():
        probs = [p for p in up.megatron_problems(variant, r.stdout, 1, 1, 9) if "overlap" in p]
        check(probs, "overlap", f"{what}: not caught")


def check_ranked_rows():
    """The top rows of two rankings (the default LoRA job; a full fine-tune on spot that needs several GPUs): each
    row's recipe parses (PyYAML, json, bash -n) and asks for that row's GPUs, nodes and batch."""
    jobs = [["--model", "llama-3.1-8b", "--method", "lora"],
            ["--model", "llama-3.1-8b", "--method", "full", "--tokens", "2e9", "--global-batch", "128", "--spot"]]
    checked = 0
    for job in jobs:
        r = run(["rank", "--format", "json", "--top", "12"] + job)
        check(r.returncode == 0, "rows", f"rank exit {r.returncode}: {r.stderr}")
        if r.returncode != 0:
            continue
        for row in json.loads(r.stdout)["rows"]:
            case = f"row {row['offer']} {row['option']}"
            args = ["recipe", "--format", "json", "--offer", row["offer"], "--nodes", str(row["nodes"]),
                    "--spot" if row["option"] == "spot" else "--on-demand"] + [a for a in job if a != "--spot"]
            d = run(args)
            check(d.returncode == 0, case, f"recipe exit {d.returncode}: {d.stderr}")
            if d.returncode != 0:
                continue
            doc = json.loads(d.stdout)
            plan = doc["plan"]
            check(doc["nodes"] == row["nodes"] and doc["plan"]["summary"] == row["plan"], case, "plan differs from the row")
            check(plan["micro_batch"] * plan["grad_accum"] * plan["dp"] == plan["global_batch"], case, "batch identity")
            for f in doc["files"]:
                if not f["applies"]:
                    continue
                name = f["filename"]
                try:
                    if name.endswith(".json"):
                        json.loads(f["text"])
                    elif name.endswith((".yaml", ".yml")):
                        y = yaml.safe_load(f["text"])
                        if f["format"] == "skypilot":
                            check(y["num_nodes"] == row["nodes"], case, "skypilot num_nodes")
                            check(y["resources"]["accelerators"] == doc["accelerators"] and
                                  doc["accelerators"].endswith(":" + str(row["gpus_per_node"])), case, "accelerators")
                            check(bash_syntax_ok(y["run"]), case, "skypilot run: bash -n")
                        if f["format"] == "dstack":
                            check(bash_syntax_ok("\n".join(y["commands"])), case, "dstack commands: bash -n")
                    else:
                        check(bash_syntax_ok(f["text"]), case, f"{name}: bash -n")
                except Exception as e:  # a parse error is a failure, with the parser's words
                    check(False, case, f"{name}: {e}")
            checked += 1
    check(checked >= 20, "rows", f"only {checked} ranked rows checked")


def check_every_provider():
    """One offer of every provider and marketplace in the snapshot (the first direct offer of each provider, the first
    row of each marketplace-provider pair), a small full fine-tune on one node: every file the recipe writes is
    accepted by its tool's validation code (upstream_case), every file it does not write says why."""
    picked = {}
    for o in OFFERS:
        picked.setdefault((o["provider"], o["via"]), []).append(o)
    checked = 0
    for (prov, via), offers in sorted(picked.items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        case = f"provider {prov}" + (f" via {via}" if via else "")
        # The first offer the job runs on (an offer can be too small, or its GPU count not divide the batch).
        for o in offers[:10]:
            q = {"model": "llama-3.2-1b", "method": "full", "seq_len": 1024, "global_batch": 32,
                 "dataset": {"tokens": 2e7}, "target": {"offer": o["id"]}}
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump(q, f)
                path = f.name
            try:
                r = run(["recipe", "--query", path, "--format", "json"])
            finally:
                os.unlink(path)
            if r.returncode == 0:
                break
        check(r.returncode == 0, case, f"no recipe for its first offers: {r.stderr.strip()}")
        if r.returncode != 0:
            continue
        doc = json.loads(r.stdout)
        upstream_case(case, doc, doc["plan"], snapshot_offer(doc["offer"]), "full")
        for f in doc["files"]:
            check(f["applies"] == (f["text"] != ""), case, f"{f['format']}: applies and text disagree")
            check(f["applies"] or f["why"], case, f"{f['format']}: not written and no why")
        checked += 1
    check(checked == len(picked), "providers", f"{checked} of {len(picked)} provider offers checked")
    print(f"recipes: {checked} provider / marketplace offers through the upstream checks")


cases = sorted(f[:-5] for f in os.listdir(QUERIES) if f.endswith(".json"))
for case in cases:
    check_case(case, os.path.join(QUERIES, case + ".json"))
check_cli_errors()
check_overlap_asserts()
check_every_provider()
check_ranked_rows()
for f in failures:
    print("FAIL", f)
print(f"recipes: {len(cases)} cases, {len(failures)} failures")
sys.exit(1 if failures else 0)
