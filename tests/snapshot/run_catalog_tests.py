#!/usr/bin/env python3
"""scripts/update-snapshot from a fresh upstream catalog checkout (ctest catalog_update_tests). An upstream-shaped
checkout is made from the extract kept in this repository: catalogs/<path> for every file, GCP's host rows back in
its one vms.csv, and rows the extract leaves out (CPU-only, TPU, Inferentia) mixed in. Then:
  - scripts/extract-catalog gives back the repository's extract byte for byte;
  - scripts/update-snapshot on the checkout with --keep-dates writes the bundled data/snapshot.json, .bin, -text.json
    and manifest exactly;
  - without --keep-dates the snapshot is dated honestly (--created, --captured on every provider read), and a
    checkout that is not a git repository needs --captured;
  - a checkout missing a required file is refused and DIR is left as it was.
usage: run_catalog_tests.py TRAINFIT_CLI REPO_ROOT
"""
import csv
import filecmp
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

CLI, SRC = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
EXTRACT = os.path.join(SRC, "data/raw/skypilot-catalog")
ENV = dict(os.environ, TRAINFIT_BUILD_DIR=os.path.dirname(os.path.dirname(CLI)), TRAINFIT_TODAY="2026-12-05",
           TRAINFIT_DATA_DIR="/nonexistent")
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def row_like(header_line, values):
    """A CSV line with the header's columns, `values` by name, the line ending of the header."""
    header = next(csv.reader([header_line]))
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n" if header_line.endswith("\r\n") else "\n").writerow([values.get(h, "") for h in header])
    return buf.getvalue()


def make_upstream(dst):
    cat = os.path.join(dst, "catalogs")
    for d, _, files in os.walk(EXTRACT):
        for f in files:
            if not f.endswith(".csv"):
                continue
            rel = os.path.relpath(os.path.join(d, f), EXTRACT)
            if rel == "v9/gcp/host_vms.csv":
                continue
            os.makedirs(os.path.join(cat, os.path.dirname(rel)), exist_ok=True)
            shutil.copyfile(os.path.join(d, f), os.path.join(cat, rel))
    # GCP: one vms.csv with a CPU-only VM, a TPU and the host rows between the GPU rows.
    gpu = open(os.path.join(EXTRACT, "v9/gcp/vms.csv"), encoding="utf-8").read().splitlines(keepends=True)
    host = open(os.path.join(EXTRACT, "v9/gcp/host_vms.csv"), encoding="utf-8").read().splitlines(keepends=True)
    extra = [row_like(gpu[0], {"InstanceType": "e2-standard-2", "vCPUs": "2", "MemoryGiB": "8", "Region": "us-central1",
                                "AvailabilityZone": "us-central1-a", "Price": "0.067", "SpotPrice": "0.02"}),
             row_like(gpu[0], {"AcceleratorName": "tpu-v5p-8", "AcceleratorCount": "1", "Region": "us-east5",
                                "AvailabilityZone": "us-east5-a", "Price": "4.2", "SpotPrice": "2.1"})]
    half = len(gpu) // 2
    with open(os.path.join(cat, "v9/gcp/vms.csv"), "w", encoding="utf-8", newline="") as f:
        f.write("".join(gpu[:half] + extra[:1] + host[1:] + extra[1:] + gpu[half:]))
    # AWS: an Inferentia and a CPU-only instance among the GPU rows.
    p = os.path.join(cat, "v9/aws/vms.csv")
    aws = open(p, encoding="utf-8", newline="").read().splitlines(keepends=True)
    aws[2:2] = [row_like(aws[0], {"InstanceType": "inf2.xlarge", "AcceleratorName": "Inferentia2", "AcceleratorCount": "1",
                                  "Price": "0.76", "Region": "us-east-1"}),
                row_like(aws[0], {"InstanceType": "m7i.large", "vCPUs": "2", "Price": "0.1", "Region": "us-east-1"})]
    open(p, "w", encoding="utf-8", newline="").write("".join(aws))
    return dst


def run(args):
    return subprocess.run(args, cwd=SRC, env=ENV, capture_output=True, text=True)


def main():
    t = tempfile.mkdtemp(prefix="trainfit-catalog-")
    try:
        up = make_upstream(os.path.join(t, "skypilot-catalog"))
        r = run(["python3", "scripts/extract-catalog", up, os.path.join(t, "extract")])
        check("extract-catalog reads the checkout", r.returncode == 0, r.stderr)
        same = []  # every file providers.json lists (the extract also keeps older files no provider reads)
        for p in json.load(open(os.path.join(SRC, "data/inputs/providers.json")))["providers"]:
            for ref in p.get("catalog", []):
                rel, other = ref["path"], os.path.join(t, "extract", ref["path"])
                same.append((rel, os.path.exists(other) and filecmp.cmp(os.path.join(EXTRACT, rel), other, shallow=False)))
        check("the extract is the repository's, byte for byte (%d files)" % len(same), all(ok for _, ok in same),
              ", ".join(rel for rel, ok in same if not ok))

        out = os.path.join(t, "same")
        r = run(["bash", "scripts/update-snapshot", up, "--keep-dates", "--out", out])
        check("update-snapshot on the checkout (--keep-dates) succeeds", r.returncode == 0, r.stdout[-500:] + r.stderr[-1500:])
        for f in ("snapshot.json", "snapshot.bin", "snapshot-text.json", "snapshot-manifest.json"):
            a, b = os.path.join(out, f), os.path.join(SRC, "data", f)
            check("  ... its %s is the bundled one" % f, os.path.exists(a) and filecmp.cmp(a, b, shallow=False), a)

        r = run(["bash", "scripts/update-snapshot", up, "--out", os.path.join(t, "undated")])
        check("a checkout that is not a git repository needs --captured", r.returncode == 2 and "--captured" in r.stderr, r.stderr)

        out = os.path.join(t, "dated")
        r = run(["bash", "scripts/update-snapshot", up, "--captured", "2026-12-04", "--created", "2026-12-05", "--out", out])
        check("update-snapshot with --captured and --created succeeds", r.returncode == 0, r.stderr[-1500:])
        if r.returncode == 0:
            m = json.load(open(os.path.join(out, "snapshot-manifest.json")))
            read = [p["id"] for p in json.load(open(os.path.join(SRC, "data/inputs/providers.json")))["providers"] if p.get("catalog")]
            check("  ... built 2026-12-05, id and manifest say so", m["created"] == "2026-12-05" and "-2026-12-05-" in m["snapshot_id"], str(m["snapshot_id"]))
            dates = m["prices"]["providers"]
            check("  ... every provider read is captured 2026-12-04",
                  all(dates[p]["oldest"] == dates[p]["newest"] == "2026-12-04" for p in read if p in dates), json.dumps(dates)[:400])

        os.remove(os.path.join(up, "catalogs/v9/lambda/vms.csv"))
        out = os.path.join(t, "broken")
        os.makedirs(out)
        open(os.path.join(out, "snapshot.json"), "w").write("kept")
        r = run(["bash", "scripts/update-snapshot", up, "--keep-dates", "--out", out])
        check("a checkout without a required file is refused, naming it",
              r.returncode == 2 and "v9/lambda/vms.csv" in r.stderr and open(os.path.join(out, "snapshot.json")).read() == "kept",
              r.stderr[-500:])
    finally:
        shutil.rmtree(t, ignore_errors=True)
    print("catalog update tests: " + ("all passed" if not failures else "%d failed" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main())
