#!/usr/bin/env bash
# The publish and update path end to end (ctest snapshot_update_tests): `trainfit snapshot manifest` is byte-stable
# and data/snapshot-manifest.json is in step with data/snapshot.bin; `trainfit snapshot update` against a local HTTP
# server (tests/snapshot/serve.py) applies a good update and refuses a tampered file, a wrong id, a bad manifest, an
# older snapshot and an unreachable server, each with its reason, keeping the current snapshot byte for byte; the
# CLI uses the downloaded snapshot and says so, and falls back to the bundled one when it is damaged or absent.
# usage: run_update_tests.sh TRAINFIT_CLI REPO_ROOT
set -uo pipefail
BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
SRC="$(cd "$2" && pwd)"
HERE="$SRC/tests/snapshot"
T="$(mktemp -d)"
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail=0
check() {  # check NAME CONDITION-RESULT(0/1) DETAIL
  if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1: $3"; fail=1; fi
}
contains() { grep -qF -- "$2" <<<"$1"; }
digest() { (cd "$1" && find . -type f | sort | xargs sha256sum); }

export TRAINFIT_TODAY=2026-12-05
# 1. The manifest: byte-stable, and the committed one matches the committed binary and sidecar.
"$BIN" snapshot manifest "$SRC/data/snapshot.bin" --text "$SRC/data/snapshot-text.json" --out "$T/m1.json" >/dev/null
"$BIN" snapshot manifest "$SRC/data/snapshot.bin" --text "$SRC/data/snapshot-text.json" --out "$T/m2.json" >/dev/null
cmp -s "$T/m1.json" "$T/m2.json"; check "manifest is byte-stable" $? "two runs differ"
cmp -s "$T/m1.json" "$SRC/data/snapshot-manifest.json"
check "data/snapshot-manifest.json is in step with data/snapshot.bin" $? "stale: run scripts/update-snapshot (or trainfit snapshot manifest)"
out="$("$BIN" snapshot manifest "$SRC/data/snapshot.bin" --out "$T/m3.json" 2>&1)"; rc=$?
[ $rc -eq 2 ] && contains "$out" "give its text sidecar" && [ ! -e "$T/m3.json" ]
check "manifest of a lean binary without its sidecar is refused" $? "rc=$rc: $out"
head -c 1000 "$SRC/data/snapshot.bin" > "$T/cut.bin"
out="$("$BIN" snapshot manifest "$T/cut.bin" --out "$T/m4.json" 2>&1)"; rc=$?
[ $rc -eq 3 ] && [ ! -e "$T/m4.json" ]; check "manifest of a damaged binary is refused" $? "rc=$rc: $out"

# 2. The published cases, served over HTTP.
python3 "$HERE/make_update_fixtures.py" "$BIN" "$SRC" "$T/site" || { echo "FAIL fixtures"; exit 1; }
python3 "$HERE/serve.py" "$T/site" "$T/port" & SERVER=$!
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.05; done
URL="http://127.0.0.1:$(cat "$T/port")"
D="$T/data"
export TRAINFIT_DATA_DIR="$D"

out="$("$BIN" snapshot status)"; contains "$out" "in use: bundled snapshot"; check "status: bundled before any update" $? "$out"
out="$("$BIN" snapshot update --from "$URL/good/snapshot-manifest.json" 2>&1)"; rc=$?
[ $rc -eq 0 ] && contains "$out" "-> publish-test-2026-12-05"; check "good update applied" $? "rc=$rc: $out"
cmp -s "$D/snapshot-manifest.json" "$T/site/good/snapshot-manifest.json"; check "the manifest is stored byte for byte" $? "differs"
out="$("$BIN" snapshot status)"; contains "$out" "in use: downloaded snapshot publish-test-2026-12-05"
check "status: the downloaded snapshot" $? "$out"
err="$("$BIN" rank --model llama-3.1-8b --method lora --top 1 --format json 2>&1 >"$T/rank.json")"
contains "$err" "prices from the downloaded snapshot publish-test-2026-12-05" && grep -q '"ok":true' "$T/rank.json"
check "rank uses the downloaded snapshot and says so" $? "$err"
out="$("$BIN" snapshot update --from "$URL/good/" 2>&1)"; rc=$?
[ $rc -eq 0 ] && contains "$out" "up to date"; check "same snapshot again: up to date (a folder URL reads its manifest)" $? "rc=$rc: $out"

before="$(digest "$D")"
refused() {  # refused NAME URL EXPECTED-RC PHRASE
  local out rc
  out="$("$BIN" snapshot update --from "$2" 2>&1)"; rc=$?
  [ $rc -eq "$3" ] && contains "$out" "update refused:" && contains "$out" "$4" &&
    contains "$out" "kept the current snapshot: publish-test-2026-12-05" && [ "$(digest "$D")" = "$before" ]
  check "$1 refused, current snapshot kept byte for byte" $? "rc=$rc: $out"
}
refused "tampered file" "$URL/tampered/snapshot-manifest.json" 3 "does not match the manifest's"
refused "wrong id" "$URL/wrongid/snapshot-manifest.json" 3 "the manifest names \"publish-test-2026-12-06\", the binary holds \"publish-test-another-id\""
refused "bad manifest" "$URL/badmanifest/snapshot-manifest.json" 3 "bad manifest"
refused "not JSON" "$URL/good/snapshot.bin" 3 "bad manifest"
refused "missing manifest (HTTP 404)" "$URL/nothing/snapshot-manifest.json" 4 "HTTP 404"
refused "older snapshot" "$URL/older/snapshot-manifest.json" 3 "is older than the current"
closed="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
refused "unreachable server" "http://127.0.0.1:$closed/snapshot-manifest.json" 4 "unreachable"

# The next good one replaces it and its files (the folder holds only the new set).
out="$("$BIN" snapshot update --from "$URL/newer/snapshot-manifest.json" 2>&1)"; rc=$?
[ $rc -eq 0 ] && contains "$out" "publish-test-2026-12-05 -> publish-test-2026-12-06" && [ "$(ls "$D" | wc -l)" -eq 3 ]
check "a second update replaces the first and removes its files" $? "rc=$rc: $out; $(ls "$D")"

# 3. A damaged stored file: the CLI says so and uses the bundled snapshot; an update repairs it.
blob="$(ls "$D"/snapshot-*.bin)"; printf 'x' >> "$blob"
err="$("$BIN" rank --model llama-3.1-8b --method lora --top 1 --format json 2>&1 >"$T/rank2.json")"
contains "$err" "unusable" && contains "$err" "using the bundled one" && grep -q '"ok":true' "$T/rank2.json"
check "a damaged downloaded snapshot falls back to the bundled one" $? "$err"

# 4. Offline with nothing downloaded: the bundled snapshot, silently.
export TRAINFIT_DATA_DIR="$T/empty"
err="$("$BIN" rank --model llama-3.1-8b --method lora --top 1 --format json 2>&1 >"$T/rank3.json")"
[ -z "$err" ] && grep -q '"ok":true' "$T/rank3.json"; check "no downloaded snapshot: bundled, nothing on stderr" $? "$err"
out="$("$BIN" snapshot update --from "http://127.0.0.1:$closed/x.json" 2>&1)"; rc=$?
[ $rc -eq 4 ] && contains "$out" "kept the current snapshot: skypilot-" && [ ! -e "$T/empty" ]
check "offline update with nothing downloaded keeps the bundled one" $? "rc=$rc: $out"

# 5. The publishing job's gate (scripts/check-published-snapshot): the bundled set passes; a tampered copy is refused.
out="$(bash "$SRC/scripts/check-published-snapshot" "$BIN" "$SRC/data" 2>&1)"; rc=$?
[ $rc -eq 0 ] && contains "$out" "passes"; check "the publishing gate passes the bundled snapshot" $? "rc=$rc: $out"
mkdir -p "$T/pub" && cp "$SRC"/data/snapshot.json "$SRC"/data/snapshot.bin "$SRC"/data/snapshot-text.json "$SRC"/data/snapshot-manifest.json "$T/pub/"
python3 -c 'import sys; p=sys.argv[1]; b=bytearray(open(p,"rb").read()); b[-100]^=1; open(p,"wb").write(bytes(b))' "$T/pub/snapshot.bin"
out="$(bash "$SRC/scripts/check-published-snapshot" "$BIN" "$T/pub" 2>&1)"; rc=$?
[ $rc -eq 1 ] && contains "$out" "REFUSED: snapshot.bin is not the packed snapshot.json" && contains "$out" "REFUSED: a reader refuses it"
check "the publishing gate refuses a damaged binary" $? "rc=$rc: $out"
out="$("$BIN" snapshot update --check --from "$URL/tampered/snapshot-manifest.json" 2>&1)"; rc=$?
[ $rc -eq 3 ] && contains "$out" "does not match the manifest's"; check "update --check refuses a tampered file" $? "rc=$rc: $out"

[ $fail -eq 0 ] && echo "snapshot update tests: all passed"
exit $fail
