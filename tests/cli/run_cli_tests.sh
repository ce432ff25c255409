#!/usr/bin/env bash
# CLI tests: golden outputs (tests/cli/golden/NAME.out, updated only on purpose with UPDATE_GOLDEN=1) and exit
# codes. Usage: run_cli_tests.sh PATH/TO/trainfit SOURCE_DIR
set -uo pipefail
BIN="$1"; SRC="$2"
GOLD="$SRC/tests/cli/golden"
# Pin the date: snapshot ages and stale flags must not change the goldens from one day to the next.
export TRAINFIT_TODAY=2026-12-02
# And the prices: the bundled snapshot, never one `trainfit snapshot update` downloaded on this machine.
export TRAINFIT_DATA_DIR="$SRC/tests/cli/no-downloaded-snapshot"
CASES="$SRC/tests/cli/cases.txt"
pass=0; fail=0
while IFS='|' read -r name want_rc args; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  name="$(echo "$name" | xargs)"; want_rc="$(echo "$want_rc" | xargs)"
  out="$(cd "$SRC" && eval "\"$BIN\" $args" 2>&1)"; rc=$?
  if [ "$rc" != "$want_rc" ]; then
    echo "FAIL $name: exit $rc, expected $want_rc"; echo "$out" | head -20; fail=$((fail + 1)); continue
  fi
  if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
    mkdir -p "$GOLD"; printf '%s\n' "$out" > "$GOLD/$name.out"; echo "updated $name"; pass=$((pass + 1)); continue
  fi
  if [ ! -f "$GOLD/$name.out" ]; then echo "FAIL $name: no golden file $GOLD/$name.out"; fail=$((fail + 1)); continue; fi
  if ! diff -u "$GOLD/$name.out" <(printf '%s\n' "$out") > /tmp/trainfit-cli-diff.$$; then
    echo "FAIL $name: output differs from golden"; head -40 /tmp/trainfit-cli-diff.$$; fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
  rm -f /tmp/trainfit-cli-diff.$$
done < "$CASES"
# The web module carries no validation tables: it fetches data/validation.json, which must be this build's
# `validate` document byte for byte (UPDATE_GOLDEN=1 rewrites it with the goldens).
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
  (cd "$SRC" && "$BIN" validate --format json > "$SRC/data/validation.json"); pass=$((pass + 1))
elif cmp -s "$SRC/data/validation.json" <(cd "$SRC" && "$BIN" validate --format json); then
  pass=$((pass + 1))
else
  echo "FAIL validation_json: data/validation.json is not this build's validate document (UPDATE_GOLDEN=1)"
  fail=$((fail + 1))
fi
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
