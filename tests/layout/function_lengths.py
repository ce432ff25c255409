#!/usr/bin/env python3
"""Lengths of the functions defined at namespace scope in C++ sources (the code is formatted so that such a
definition opens on a line starting at column 0 and closes with a "}" at column 0).

usage: function_lengths.py [--over N] FILE...   prints "lines  file:line  signature", longest first
"""
import re
import sys

OPEN = re.compile(r"^[A-Za-z_].*\)\s*(const\s*)?(noexcept\s*)?(->\s*[^{]+)?\{\s*(//.*)?$")


def functions(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        start = i
        # An attribute ([[gnu::noinline]]) may open the definition's line.
        line = re.sub(r"^\[\[[^\]]*\]\]\s*", "", line)
        # A signature may wrap: join up to 4 lines until one ends with "{".
        if re.match(r"^[A-Za-z_]", line) and not line.startswith(("namespace", "struct", "class", "enum", "union",
                                                                   "extern", "using", "typedef", "static_assert",
                                                                   "template", "#")):
            sig = line
            j = i
            while not sig.rstrip().endswith("{") and j - i < 4 and j + 1 < len(lines) and not sig.rstrip().endswith(";"):
                j += 1
                sig += " " + lines[j].strip()
            if sig.count("{") > 0 and sig.count("{") == sig.count("}"):
                i = j + 1  # defined on its own line(s), body included
                continue
            if OPEN.match(sig.strip()) and "=" not in sig.split("(")[0]:
                k = j + 1
                while k < len(lines) and not lines[k].startswith("}"):
                    k += 1
                out.append((k - start + 1, start + 1, sig.split("{")[0].strip()))
                i = k + 1
                continue
        i += 1
    return out


def main(argv):
    over = 0
    if argv and argv[0] == "--over":
        over = int(argv[1])
        argv = argv[2:]
    rows = []
    for path in argv:
        rows += [(n, path, line, sig) for n, line, sig in functions(path)]
    for n, path, line, sig in sorted(rows, reverse=True):
        if n > over:
            print(f"{n:5d}  {path}:{line}  {sig[:110]}")


if __name__ == "__main__":
    main(sys.argv[1:])
