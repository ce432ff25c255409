#!/usr/bin/env python3
"""The CI workflow definitions (.github/workflows/*.yml) read with a real YAML parser (PyYAML), and the snapshot
publishing job's shape checked: scheduled (a valid five-field cron) and startable by hand; every `run` block is valid
bash; every scripts/ tool it calls exists and is executable; it rebuilds the snapshot, runs `trainfit validate`, the
snapshot checks and the publishing gate, all before the publish step; nothing that checks may be skipped or allowed
to fail (no `continue-on-error`, no `if:` on those steps), and only the artifact upload runs after a failure.
usage: check_workflows.py REPO_ROOT      exit 0 when every check holds, 1 with one line per problem otherwise
"""
import os
import re
import subprocess
import sys

import yaml


def cron_ok(expr):
    fields = expr.split()
    if len(fields) != 5:
        return False
    ranges = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]
    for f, (lo, hi) in zip(fields, ranges):
        for part in f.split(","):
            m = re.fullmatch(r"(\*|\d+(?:-\d+)?)(?:/(\d+))?", part)
            if not m:
                return False
            if m.group(1) != "*":
                nums = [int(x) for x in m.group(1).split("-")]
                if any(n < lo or n > hi for n in nums):
                    return False
    return True


def main(root):
    problems = []
    wf_dir = os.path.join(root, ".github/workflows")
    files = sorted(f for f in os.listdir(wf_dir) if f.endswith((".yml", ".yaml")))
    docs = {}
    for f in files:
        try:
            docs[f] = yaml.safe_load(open(os.path.join(wf_dir, f), encoding="utf-8"))
        except yaml.YAMLError as e:
            problems.append("%s: not valid YAML: %s" % (f, e))
    wf = docs.get("publish-snapshot.yml")
    if wf is None:
        problems.append("publish-snapshot.yml: missing or unreadable")
        return problems
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` key as true
    if not isinstance(on, dict):
        problems.append("publish-snapshot.yml: no `on` triggers")
        on = {}
    crons = [s.get("cron", "") for s in on.get("schedule") or [] if isinstance(s, dict)]
    if not crons or not all(cron_ok(c) for c in crons):
        problems.append("publish-snapshot.yml: on.schedule needs valid five-field cron entries, has %r" % crons)
    if "workflow_dispatch" not in on:
        problems.append("publish-snapshot.yml: on.workflow_dispatch missing (start it by hand)")
    jobs = wf.get("jobs") or {}
    if len(jobs) != 1:
        problems.append("publish-snapshot.yml: one job expected, found %d" % len(jobs))
    steps = next(iter(jobs.values()), {}).get("steps") or []
    runs = []
    for i, st in enumerate(steps):
        name = st.get("name", st.get("uses", "step %d" % i))
        if "run" in st:
            r = subprocess.run(["bash", "-n"], input=st["run"], text=True, capture_output=True)
            if r.returncode:
                problems.append("step %r: not valid bash: %s" % (name, r.stderr.strip()))
            for tool in re.findall(r"\bscripts/[A-Za-z0-9_-]+", st["run"]):
                p = os.path.join(root, tool)
                if not (os.path.isfile(p) and os.access(p, os.X_OK)):
                    problems.append("step %r: %s is not an executable file of the repository" % (name, tool))
            runs.append((i, name, st))
        if st.get("continue-on-error"):
            problems.append("step %r: continue-on-error lets a failed check through" % name)

    def first(pattern):
        for i, name, st in runs:
            if re.search(pattern, st["run"]):
                return i, st
        problems.append("publish-snapshot.yml: no step runs %s" % pattern)
        return None, None

    order = [first(p) for p in (r"scripts/update-snapshot\b", r"trainfit validate\b", r"trainfit_core_tests\b.*Snapshot",
                                r"scripts/check-published-snapshot\b", r"git push origin HEAD:gh-pages")]
    idx = [i for i, _ in order]
    if None not in idx and idx != sorted(idx):
        problems.append("publish-snapshot.yml: the steps must rebuild, validate, check, gate, then publish; order %r" % idx)
    for i, st in order:
        if st is not None and "if" in st:
            problems.append("step %r: a condition (`if:`) on a rebuild, check or publish step" % st.get("name"))
    for st in steps:
        if "if" in st and "upload-artifact" not in str(st.get("uses", "")):
            problems.append("step %r: only the artifact upload may run after a failure" % st.get("name"))
    publish = order[-1][1] or {}
    for f in ("snapshot.bin", "snapshot-text.json", "snapshot-manifest.json"):
        if f not in publish.get("run", ""):
            problems.append("the publish step does not publish %s" % f)
    return problems


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    found = main(sys.argv[1])
    for p in found:
        print(p)
    print("workflow tests: " + ("ok" if not found else "%d problems" % len(found)))
    sys.exit(1 if found else 0)
