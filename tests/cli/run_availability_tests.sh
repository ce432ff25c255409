#!/usr/bin/env bash
# `trainfit availability` and `rank --stock` against a local stand-in for the provider's API (stock_server.py, the
# recorded responses in tests/fixtures/stock): no key changes nothing; a good key lists the offers with capacity and
# saves a report that `rank --stock` applies; a bad key reports the API's own error; an unreachable server says so.
set -uo pipefail
BIN="$1"; SRC="$2"
export TRAINFIT_DATA_DIR="$(mktemp -d)"   # never a snapshot downloaded on this machine
WORK="$(mktemp -d)"
trap 'kill $SERVER 2>/dev/null; rm -rf "$WORK" "$TRAINFIT_DATA_DIR"' EXIT
python3 "$SRC/tests/cli/stock_server.py" > "$WORK/port" & SERVER=$!
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
URL="http://127.0.0.1:$(head -1 "$WORK/port")/api/v1/instance-types"
fails=0
check() {  # check NAME CONDITION...
  local name="$1"; shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}

out=$(env -u LAMBDA_API_KEY "$BIN" availability --url "$URL" --save "$WORK/none.json"); rc=$?
check "no key: exit 0" test $rc -eq 0
check "no key: says so" grep -q "no API key in LAMBDA_API_KEY" <<< "$out"
check "no key: nothing saved" test ! -e "$WORK/none.json"

out=$(LAMBDA_API_KEY=test-key "$BIN" availability --url "$URL" --save "$WORK/stock.json"); rc=$?
check "good key: exit 0" test $rc -eq 0
check "good key: in-stock offer listed" grep -q "lambda/gpu_1x_h100_pcie/us-east-1" <<< "$out"
check "good key: counts" grep -q "6 of 374 offers" <<< "$out"
check "good key: report saved" grep -q '"format": "trainfit-stock-1"' "$WORK/stock.json"

json=$(LAMBDA_API_KEY=test-key "$BIN" availability --url "$URL" --format json)
check "json: every offer" python3 -c "import json,sys; d=json.loads(sys.argv[1]); assert d['ok'] and len(d['offers']) == 374 and sum(o['in_stock'] for o in d['offers']) == 6" "$json"

"$BIN" rank --model llama-3.1-8b --method lora --provider lambda --stock "$WORK/stock.json" --format json \
  > "$WORK/rank.json" 2>"$WORK/err"
check "rank --stock: flag on a row without capacity" python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); rows={r['offer']: r for r in d['rows']}
assert 'no_live_stock' in rows['lambda/gpu_1x_h100_pcie/us-west-2']['flags']
assert 'no_live_stock' not in rows['lambda/gpu_1x_h100_pcie/us-east-1']['flags']" "$WORK/rank.json"
check "rank --stock: says what it applied" grep -q "368 of 374 offers flagged no_live_stock" "$WORK/err"
"$BIN" rank --model llama-3.1-8b --method lora --provider lambda --stock "$WORK/stock.json" --launchable --format json \
  > "$WORK/launch.json" 2>/dev/null
check "rank --stock --launchable: no flagged row" python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); assert d['rows']; assert all('no_live_stock' not in r['flags'] for r in d['rows'])" "$WORK/launch.json"
echo '{"format": "trainfit-stock-1", "provider": "lambda"}' > "$WORK/bad.json"
"$BIN" rank --model llama-3.1-8b --stock "$WORK/bad.json" > /dev/null 2> "$WORK/err"; rc=$?
check "rank --stock bad file: exit 2 naming the field" bash -c "test $rc -eq 2 && grep -q 'stock.checked_at' '$WORK/err'"

LAMBDA_API_KEY=wrong "$BIN" availability --url "$URL" > /dev/null 2> "$WORK/err"; rc=$?
check "bad key: exit 1" test $rc -eq 1
check "bad key: the API's error" grep -q "HTTP 401 (the Lambda API answered global/invalid-api-key" "$WORK/err"

LAMBDA_API_KEY=x "$BIN" availability --url "http://127.0.0.1:1/api/v1/instance-types" > /dev/null 2> "$WORK/err"; rc=$?
check "unreachable: exit 1, nothing changed" bash -c "test $rc -eq 1 && grep -q 'nothing was changed' '$WORK/err'"

"$BIN" availability --response "$SRC/tests/fixtures/stock/lambda_error.json" > /dev/null 2> "$WORK/err"; rc=$?
check "recorded error response: exit 2" bash -c "test $rc -eq 2 && grep -q 'response.error' '$WORK/err'"
"$BIN" availability --provider aws > /dev/null 2> "$WORK/err"; rc=$?
check "provider without an API: exit 2" bash -c "test $rc -eq 2 && grep -q 'no live stock API' '$WORK/err'"

echo "availability: $fails failed"
[ $fails -eq 0 ]
