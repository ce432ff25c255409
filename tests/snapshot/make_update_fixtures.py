#!/usr/bin/env python3
"""Published snapshots for the update tests (tests/snapshot/run_update_tests.sh, tests/e2e/update.test.js), built
from the bundled data/snapshot.json with the CLI under test, one folder per case, each a manifest beside its files:

  good/       a newer snapshot (id "publish-test-2026-12-05", built 2026-12-05), packed lean, its manifest
  newer/      the next one (id "publish-test-2026-12-06"); the three bad cases are made from it, so that they are
              refused as such after good/ was applied, not taken for the snapshot already in use:
  tampered/   newer's manifest, one byte of newer's binary changed (same size: only the SHA-256 catches it)
  wrongid/    newer's manifest naming the files of a snapshot with another id (sizes and hashes made to match)
  badmanifest/ newer's files, a manifest whose first file's sha256 is not a SHA-256
  older/      a snapshot built 2020-01-01 with its own valid manifest (older than the bundled one)

usage: make_update_fixtures.py TRAINFIT_CLI REPO_ROOT OUT_DIR
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys


def pack(cli, root, out, snap_id, created):
    doc = json.load(open(os.path.join(root, "data/snapshot.json"), encoding="utf-8"))
    doc["id"] = snap_id
    doc["created"] = created
    os.makedirs(out, exist_ok=True)
    src = os.path.join(out, "source.json")
    with open(src, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    run = lambda *a: subprocess.run([cli, "snapshot"] + list(a), check=True, capture_output=True, text=True)
    run("pack", src, os.path.join(out, "snapshot.bin"), "--lean", os.path.join(out, "snapshot-text.json"))
    run("manifest", os.path.join(out, "snapshot.bin"), "--text", os.path.join(out, "snapshot-text.json"),
        "--out", os.path.join(out, "snapshot-manifest.json"))
    os.remove(src)


def main(cli, root, out):
    shutil.rmtree(out, ignore_errors=True)
    good = os.path.join(out, "good")
    pack(cli, root, good, "publish-test-2026-12-05", "2026-12-05")
    newer = os.path.join(out, "newer")
    pack(cli, root, newer, "publish-test-2026-12-06", "2026-12-06")

    tampered = os.path.join(out, "tampered")
    shutil.copytree(newer, tampered)
    p = os.path.join(tampered, "snapshot.bin")
    b = bytearray(open(p, "rb").read())
    b[len(b) // 2] ^= 0x01
    open(p, "wb").write(bytes(b))

    wrongid = os.path.join(out, "wrongid")
    pack(cli, root, wrongid, "publish-test-another-id", "2026-12-06")
    m = json.load(open(os.path.join(newer, "snapshot-manifest.json")))
    for f in m["files"]:
        data = open(os.path.join(wrongid, f["name"]), "rb").read()
        f["bytes"], f["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    json.dump(m, open(os.path.join(wrongid, "snapshot-manifest.json"), "w"), indent=1)

    bad = os.path.join(out, "badmanifest")
    shutil.copytree(newer, bad)
    m = json.load(open(os.path.join(newer, "snapshot-manifest.json")))
    m["files"][0]["sha256"] = "not-a-sha256"
    json.dump(m, open(os.path.join(bad, "snapshot-manifest.json"), "w"), indent=1)

    pack(cli, root, os.path.join(out, "older"), "publish-test-2020-01-01", "2020-01-01")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
