#!/usr/bin/env bash
# Two real replicas behind a real load balancer, on loopback only:
#   Redis (the shared memory of redeemed tickets), two mrtr-server --http replicas sharing a
#   key and that memory, and nginx round-robin in front of them at /mcp.
#
#   scripts/cluster.sh start            start everything (installs nginx and redis-server if missing)
#   scripts/cluster.sh stop             stop everything this script started, by PID
#   scripts/cluster.sh status           what is running
#   scripts/cluster.sh install          install Debian's nginx and redis-server if missing
#   scripts/cluster.sh start-one NAME   NAME: redis | replica-a | replica-b | nginx
#   scripts/cluster.sh stop-one NAME
#
# Settings (environment): MRTR_CLUSTER_DIR (target/cluster), MRTR_CLUSTER_PORT (8380: nginx;
# the replicas take +1 and +2, Redis +3), MRTR_CLUSTER_BIN (target/speed: the native speed profile),
# MRTR_CLUSTER_QUIET=1 (no per-request log lines, for make bench), MRTR_CLUSTER_CORS_ORIGIN
# (origins a web page may call the cluster from, separated by spaces: each replica gets
# --cors-origin for each; make cluster CORS_ORIGIN=... sets it). Each replica's
# keys are read from DIR/<replica>.keys (ID=HEX,…; written with a fresh random key at the
# first start, mode 600, never printed). Logs: DIR/*.log; nginx's access log names the
# replica (upstream) that served each request.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIR=${MRTR_CLUSTER_DIR:-$ROOT/target/cluster}
PORT=${MRTR_CLUSTER_PORT:-8380}
BIN=${MRTR_CLUSTER_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/speed}
A_PORT=$((PORT + 1)); B_PORT=$((PORT + 2)); REDIS_PORT=$((PORT + 3))
say() { printf '[cluster] %s\n' "$*"; }

port_of() {
  case $1 in
    redis) echo "$REDIS_PORT" ;; replica-a) echo "$A_PORT" ;; replica-b) echo "$B_PORT" ;; nginx) echo "$PORT" ;;
    *) echo "unknown part: $1 (redis, replica-a, replica-b or nginx)" >&2; exit 2 ;;
  esac
}

alive() { # alive PID: running, and not a zombie waiting to be reaped by whoever adopted it
  kill -0 "$1" 2>/dev/null && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]
}

running() { # running NAME: true when the PID in DIR/NAME.pid is alive
  local f=$DIR/$1.pid
  [ -f "$f" ] && alive "$(cat "$f")"
}

wait_port() { # wait_port PORT: up to 10 s
  for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.1; done
  return 1
}

install_missing() {
  command -v nginx >/dev/null && command -v redis-server >/dev/null && return 0
  say "installing Debian's nginx and redis-server (they are not started as services)"
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nginx redis-server >/dev/null
}

write_nginx_conf() {
  mkdir -p "$DIR/nginx-tmp"
  cat > "$DIR/nginx.conf" <<EOF
# Written by scripts/cluster.sh: round robin over two replicas, loopback only.
worker_processes 1;
pid $DIR/nginx.pid;
error_log $DIR/nginx-error.log warn;
events { worker_connections 512; }
http {
  log_format mrtr '\$time_iso8601 \$http_mcp_method \$http_mcp_name -> \$status, served by \$upstream_addr';
  access_log $DIR/nginx-access.log mrtr;
  client_body_temp_path $DIR/nginx-tmp/body;
  proxy_temp_path $DIR/nginx-tmp/proxy;
  fastcgi_temp_path $DIR/nginx-tmp/fastcgi;
  uwsgi_temp_path $DIR/nginx-tmp/uwsgi;
  scgi_temp_path $DIR/nginx-tmp/scgi;
  client_body_buffer_size 1m;
  client_max_body_size 2m;
  upstream replicas {
    server 127.0.0.1:$A_PORT max_fails=1 fail_timeout=2s;
    server 127.0.0.1:$B_PORT max_fails=1 fail_timeout=2s;
    keepalive 32;
    keepalive_requests 100000;
  }
  keepalive_requests 100000;
  server {
    listen 127.0.0.1:$PORT;
    location /mcp {
      proxy_pass http://replicas;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # The replicas check Host and Origin themselves (DNS rebinding): pass them through.
      # Everything else passes as it is, both ways: a CORS preflight (OPTIONS with its
      # Access-Control-Request-* headers) and its answer, and each replica's Mrtr-Replica.
      proxy_set_header Host \$http_host;
      proxy_buffering off;
      proxy_connect_timeout 1s;
      # A replica that refuses the connection is skipped; a request it has already
      # received is never sent twice.
      proxy_next_upstream error timeout;
    }
  }
}
EOF
}

start_one() {
  local name=$1 port; port=$(port_of "$name")
  if running "$name"; then say "$name is already running (PID $(cat "$DIR/$name.pid"))"; return 0; fi
  mkdir -p "$DIR"
  case $name in
    redis)
      # A memory that neither forgets nor evicts: every write on disk before it is answered
      # (append-only file, fsync always), and never an eviction (mrtr-server refuses a Redis
      # whose maxmemory-policy is not noeviction). If the memory is lost all the same (its
      # files gone), the replicas refuse what was minted before it began (cluster test).
      mkdir -p "$DIR/redis-data"
      setsid redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --dir "$DIR/redis-data" \
        --appendonly yes --appendfsync always --maxmemory-policy noeviction \
        --protected-mode yes --logfile "$DIR/redis.log" </dev/null >/dev/null 2>&1 &
      ;;
    replica-a|replica-b)
      local keys=$DIR/$name.keys
      if [ ! -s "$keys" ]; then
        [ -s "$DIR/fleet.key" ] || { (umask 077; od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > "$DIR/fleet.key"); }
        (umask 077; printf 'k1=%s' "$(cat "$DIR/fleet.key")" > "$keys")
      fi
      local log=--log-checks; [ "${MRTR_CLUSTER_QUIET:-}" = 1 ] && log=
      # A test may route one replica's Redis traffic elsewhere (a fault proxy): $name.redemption.
      local redemption="redis://127.0.0.1:$REDIS_PORT/0"
      [ -s "$DIR/$name.redemption" ] && redemption=$(cat "$DIR/$name.redemption")
      local cors=() origins origin
      read -ra origins <<<"${MRTR_CLUSTER_CORS_ORIGIN:-}" # split on spaces, never globbed
      for origin in ${origins[@]+"${origins[@]}"}; do cors+=(--cors-origin "$origin"); done
      MRTR_KEYS=$(cat "$keys") setsid "$BIN/mrtr-server" --http "127.0.0.1:$port" --single-use \
        --redemption "$redemption" --name "$name" $log ${cors[@]+"${cors[@]}"} \
        </dev/null >>"$DIR/$name.log" 2>&1 &
      ;;
    nginx)
      write_nginx_conf
      setsid nginx -p "$DIR" -c "$DIR/nginx.conf" -g 'daemon off;' </dev/null >>"$DIR/nginx-error.log" 2>&1 &
      ;;
  esac
  echo $! > "$DIR/$name.pid"
  if ! wait_port "$port"; then
    say "$name did not start on port $port; its log:"
    tail -n 20 "$DIR/$name.log" "$DIR/nginx-error.log" 2>/dev/null || true
    exit 1
  fi
  # The replicas refuse tickets minted in or before the second a Redis without its memory
  # started (whether they were spent is forgotten): let that second pass before any is minted.
  if [ "$name" = redis ]; then sleep 1; fi
}

stop_one() {
  local name=$1 f=$DIR/$1.pid pid
  port_of "$name" >/dev/null
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if alive "$pid"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do alive "$pid" || break; sleep 0.05; done
    alive "$pid" && kill -9 "$pid" 2>/dev/null
  fi
  rm -f "$f"
}

case ${1:-} in
  start)
    install_missing
    [ -x "$BIN/mrtr-server" ] || cargo build -q --profile speed -p mrtr-native --bin mrtr-server
    for part in redis replica-a replica-b nginx; do start_one "$part"; done
    cat <<EOF
[cluster] running, on loopback only:
  load balancer (nginx, round robin)  http://127.0.0.1:$PORT/mcp
  replica-a                           http://127.0.0.1:$A_PORT/mcp
  replica-b                           http://127.0.0.1:$B_PORT/mcp
  redemptions (Redis)                 redis://127.0.0.1:$REDIS_PORT/0
  pages that may call it (CORS)       ${MRTR_CLUSTER_CORS_ORIGIN:-none (make cluster CORS_ORIGIN=ORIGIN)}

  A round trip that crosses replicas:  $BIN/mrtr-client --token bob-token http://127.0.0.1:$PORT/mcp
  Which replica served each request:   tail -f $DIR/nginx-access.log
  What each replica checked:           tail -f $DIR/replica-a.log $DIR/replica-b.log
  Stop it all:                         make cluster-stop
EOF
    ;;
  stop)
    for part in nginx replica-a replica-b redis; do stop_one "$part"; done
    say "stopped"
    ;;
  install) install_missing ;;
  status)
    for part in redis replica-a replica-b nginx; do
      if running "$part"; then say "$part: running (PID $(cat "$DIR/$part.pid"), port $(port_of "$part"))"; else say "$part: stopped"; fi
    done
    ;;
  start-one) start_one "${2:?which part}" ;;
  stop-one) stop_one "${2:?which part}" ;;
  *) sed -n '2,20p' "$0"; exit 2 ;;
esac
