#!/usr/bin/env python3
"""The core's layout, checked (README, "The code"): every core source sits in one layer folder, includes point
only down the layer order below (or within a layer), the shells reach the core only through its one entry header
(core/include/trainfit/engine.h, the public headers of every layer with the facade on top), and no product source or function grows past the size limits (700 and 120 lines).

usage: check_layers.py REPO_ROOT      exit 0 when the layout holds, 1 with one line per breach otherwise
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from function_lengths import functions  # noqa: E402

# Bottom to top. A file may include its own layer and any layer below; storage and catalog are peers (neither
# includes the other).
LAYERS = ["base", "storage", "catalog", "estimate", "query", "market", "launch", "facade", "validation"]
RANK = {"base": 0, "storage": 1, "catalog": 1, "estimate": 2, "query": 3, "market": 4, "launch": 5, "facade": 6,
        "validation": 7}
SHELLS = ["app", "cli", "web", "native", "bench"]
ENTRY = "engine.h"  # core/include/trainfit/engine.h: the one header the shells include
MAX_FILE_LINES = 700  # product sources, generated and pure data tables aside
MAX_FUNCTION_LINES = 120  # a function defined at namespace scope (function_lengths.py), tables included
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of_include(inc):
    """The layer an include names: "trainfit/<layer>/x.h" (public) or "<layer>/x.h" (the core's own headers)."""
    parts = inc.split("/")
    if parts[0] == "trainfit" and len(parts) == 3 and parts[1] in RANK:
        return parts[1]
    if len(parts) == 2 and parts[0] in RANK:
        return parts[0]
    return None


def main(root):
    breaches = []
    for top in ("core/include/trainfit", "core/src"):
        for name in sorted(os.listdir(os.path.join(root, top))):
            path = os.path.join(root, top, name)
            if os.path.isfile(path):
                if top == "core/include/trainfit" and name == ENTRY:
                    continue
                breaches.append(f"{top}/{name}: not in a layer folder ({', '.join(LAYERS)})")
            elif name not in RANK:
                breaches.append(f"{top}/{name}/: not a layer ({', '.join(LAYERS)})")
    sources = []
    for top in ["core"] + SHELLS:
        for d, _, files in os.walk(os.path.join(root, top)):
            sources += [os.path.join(d, f) for f in files if f.endswith((".cpp", ".h"))]
    for path in sorted(sources):
        rel = os.path.relpath(path, root)
        text = open(path, encoding="utf-8").read()
        parts = rel.split("/")
        if rel == "core/include/trainfit/" + ENTRY:
            continue  # the entry includes every layer's public headers
        own = parts[3] if rel.startswith("core/include/trainfit/") else parts[2] if rel.startswith("core/src/") else None
        for inc in INCLUDE.findall(text):
            target = layer_of_include(inc)
            if own is not None:
                if inc.endswith(".inc"):
                    continue  # generated tables (build dir)
                if inc == "trainfit/" + ENTRY:
                    breaches.append(f"{rel}: includes \"{inc}\", the shells' entry; the core includes its layers")
                    continue
                if target is None:
                    if "/" in inc or not os.path.exists(os.path.join(os.path.dirname(path), inc)):
                        breaches.append(f"{rel}: includes \"{inc}\", which names no layer")
                    continue
                if RANK[target] > RANK[own] or (RANK[target] == RANK[own] and target != own):
                    breaches.append(f"{rel} ({own}) includes \"{inc}\" ({target}): includes point down the layers only")
            elif target is not None:
                breaches.append(f"{rel}: includes \"{inc}\"; the shells include the core through \"trainfit/{ENTRY}\" only")
        if "/generated/" in rel:
            continue
        lines = text.count("\n")
        if lines > MAX_FILE_LINES:
            breaches.append(f"{rel}: {lines} lines, over {MAX_FILE_LINES} (split it along its seams)")
        for n, line, sig in functions(path):
            if n > MAX_FUNCTION_LINES:
                breaches.append(f"{rel}:{line}: {sig[:60]} is {n} lines, over {MAX_FUNCTION_LINES} (split it into named stages)")
    for b in breaches:
        print(b)
    print(f"check_layers: {len(sources)} sources, {len(breaches)} breaches")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
