#!/usr/bin/env python3
"""GPU datasheet figures are typed in one place, data/inputs/gpus.json, each with its source. This fails on a
literal copy of one elsewhere (a GPU figure field: tflops_*, mem_bandwidth_GBps, memory_bytes, cuda_memory_bytes,
nvlink_GBps, set in C++ or JavaScript to a number that gpus.json gives some GPU for that field), and on any other
GPU figure typed in code unless its line says it is a made-up GPU (a test's fictional one). Code and tests look
GPUs up instead (the bundled snapshot, whose GPU rows the importer writes from gpus.json).

usage: check_gpu_figures.py REPO_ROOT
"""
import json
import os
import re
import sys

FIELDS = ["tflops_fp32", "tflops_tf32", "tflops_bf16", "tflops_fp16", "tflops_fp8", "tflops_fp4", "mem_bandwidth_GBps",
          "memory_bytes", "cuda_memory_bytes", "nvlink_GBps"]
# A test's deliberately fictional GPU says so on the line; so does a figure a published run's own source quotes for
# a variant that no catalog sells (and so gpus.json does not list).
SYNTHETIC = ("made-up GPU", "quoted by the run's source")
DIRS = ["core", "app", "cli", "web", "native", "bench", "tests/core", "tests/app", "tests/e2e"]
NUMBER = r"([0-9][0-9.]*(?:e[0-9]+)?(?:\s*\*\s*[0-9.]+)*)"


def value(text):
    v = 1.0
    for part in text.split("*"):
        v *= float(part.strip())
    return v


def main(root):
    gpus = json.load(open(os.path.join(root, "data/inputs/gpus.json")))["gpus"]
    known = {f: {} for f in FIELDS}
    for g in gpus:
        for f in FIELDS:
            v = g.get(f)
            if isinstance(v, (int, float)) and v > 0:
                known[f].setdefault(float(v), g["id"])
    patterns = [(f, re.compile(r"[.>]" + f + r"\s*=\s*" + NUMBER + r"\s*[;,)]")) for f in FIELDS]
    patterns += [(f, re.compile(r"[{\"]" + f + r"\"?\s*[,:]\s*" + NUMBER + r"\s*[},]")) for f in FIELDS]
    breaches = []
    for top in DIRS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [x for x in dirs if x not in ("node_modules", "corpus")]
            for name in files:
                if not name.endswith((".cpp", ".h", ".js")):
                    continue
                path = os.path.join(d, name)
                for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                    for f, pat in patterns:
                        for m in pat.finditer(line):
                            try:
                                v = value(m.group(1))
                            except ValueError:
                                continue
                            where = f"{os.path.relpath(path, root)}:{n}: {f} = {m.group(1).strip()}"
                            if any(x in line for x in SYNTHETIC):
                                continue
                            if v in known[f]:
                                breaches.append(f"{where} copies {known[f][v]}'s figure from data/inputs/gpus.json; "
                                                "look the GPU up instead")
                            elif v > 0:
                                breaches.append(f"{where}: a GPU figure typed outside data/inputs/gpus.json (look the "
                                                f"GPU up, or say on the line \"{SYNTHETIC[0]}\" or \"{SYNTHETIC[1]}\")")
    for b in breaches:
        print(b)
    print(f"check_gpu_figures: {len(breaches)} literal copies")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
