#!/usr/bin/env bash
# Two real replicas behind a real load balancer, on loopback only:
#   the shared memory of redeemed tickets (one Redis, or three etcd members: STORE), two
#   mrtr-server --http replicas sharing a key and that memory, and nginx round-robin in front
#   of them at /mcp.
#
#   scripts/cluster.sh start            start everything (installs nginx and redis-server if missing)
#   scripts/cluster.sh stop             stop everything this script started, by PID
#   scripts/cluster.sh status           what is running
#   scripts/cluster.sh install          install Debian's nginx, redis-server and etcd if missing
#   scripts/cluster.sh start-one NAME   NAME: redis | etcd (all three members) | etcd-1 | etcd-2
#                                       | etcd-3 | replica-a | replica-b | nginx
#   scripts/cluster.sh stop-one NAME
#
# Settings (environment): MRTR_CLUSTER_STORE (redis: one Redis; sentinel: a Redis primary at +3
# with an asynchronous replica at +4 and one Sentinel at +5 that promotes the replica when the
# primary is down for 1 s; etcd: three etcd members, a write kept once two have it), MRTR_CLUSTER_DIR (target/cluster), MRTR_CLUSTER_PORT (8380: nginx;
# the replicas take +1 and +2, Redis +3; etcd's members +3, +4, +5 for clients and +6, +7, +8
# between members), MRTR_CLUSTER_BIN (target/speed: the native speed profile),
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
STORE=${MRTR_CLUSTER_STORE:-redis}
A_PORT=$((PORT + 1)); B_PORT=$((PORT + 2)); REDIS_PORT=$((PORT + 3))
say() { printf '[cluster] %s\n' "$*"; }
case $STORE in redis|sentinel|etcd) ;; *) echo "MRTR_CLUSTER_STORE (STORE) is redis, sentinel or etcd, not $STORE" >&2; exit 2 ;; esac
COPY_PORT=$((PORT + 4)); SENTINEL_PORT=$((PORT + 5))
# etcd member N (1-3): clients on PORT+2+N, the other members on PORT+5+N.
etcd_client_port() { echo $((PORT + 2 + $1)); }
etcd_peer_port() { echo $((PORT + 5 + $1)); }
ETCD_MEMBERS=""; ETCD_ENDPOINTS=""
for n in 1 2 3; do
  ETCD_MEMBERS+="${ETCD_MEMBERS:+,}etcd-$n=http://127.0.0.1:$(etcd_peer_port $n)"
  ETCD_ENDPOINTS+="${ETCD_ENDPOINTS:+,}127.0.0.1:$(etcd_client_port $n)"
done
STORE_PARTS=redis
case $STORE in etcd) STORE_PARTS="etcd-1 etcd-2 etcd-3" ;; sentinel) STORE_PARTS="redis redis-copy sentinel" ;; esac

port_of() {
  case $1 in
    redis) echo "$REDIS_PORT" ;; redis-copy) echo "$COPY_PORT" ;; sentinel) echo "$SENTINEL_PORT" ;; replica-a) echo "$A_PORT" ;; replica-b) echo "$B_PORT" ;; nginx) echo "$PORT" ;;
    etcd-1|etcd-2|etcd-3) etcd_client_port "${1#etcd-}" ;;
    *) echo "unknown part: $1 (redis, redis-copy, sentinel, etcd-1, etcd-2, etcd-3, replica-a, replica-b or nginx)" >&2; exit 2 ;;
  esac
}

etcd_healthy() { # etcd_healthy: a majority answers a linearized read, within 20 s
  for _ in $(seq 80); do
    ETCDCTL_API=3 etcdctl --endpoints="$ETCD_ENDPOINTS" --command-timeout=1s get --consistency=l probe >/dev/null 2>&1 && return 0
    sleep 0.25
  done
  return 1
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
  command -v nginx >/dev/null && command -v redis-server >/dev/null && command -v etcd >/dev/null \
    && command -v etcdctl >/dev/null && return 0
  say "installing Debian's nginx, redis-server and etcd (they are not started as services)"
  if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nginx redis-server etcd-server etcd-client >/dev/null
  # Debian starts etcd as a service on 2379: this script runs its own members instead.
  if command -v systemctl >/dev/null; then $SUDO systemctl disable --now etcd >/dev/null 2>&1 || true; fi
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
  local name=$1 port
  if [ "$name" = etcd ]; then # all three members at once: none serves until a majority is up
    for n in 1 2 3; do launch_etcd "$n"; done
    etcd_healthy || { say "etcd did not reach a majority within 20 s; its logs:"; tail -n 5 "$DIR"/etcd-*.log; exit 1; }
    return 0
  fi
  port=$(port_of "$name")
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
    redis-copy)
      # The primary's asynchronous replica: it gets each write after the primary answered.
      mkdir -p "$DIR/redis-copy-data"
      setsid redis-server --port "$COPY_PORT" --bind 127.0.0.1 --save '' --dir "$DIR/redis-copy-data" \
        --appendonly yes --appendfsync everysec --maxmemory-policy noeviction --replicaof 127.0.0.1 "$REDIS_PORT" \
        --protected-mode yes --logfile "$DIR/redis-copy.log" </dev/null >/dev/null 2>&1 &
      ;;
    sentinel)
      # One Sentinel (quorum 1): the primary down for 1 s is failed over to the replica.
      printf '%s\n' "port $SENTINEL_PORT" "bind 127.0.0.1" "dir $DIR" "logfile $DIR/sentinel.log" \
        "sentinel monitor mrtr 127.0.0.1 $REDIS_PORT 1" "sentinel down-after-milliseconds mrtr 1000" \
        "sentinel failover-timeout mrtr 5000" > "$DIR/sentinel.conf"
      setsid redis-server "$DIR/sentinel.conf" --sentinel </dev/null >/dev/null 2>&1 &
      ;;
    etcd-1|etcd-2|etcd-3)
      launch_etcd "${name#etcd-}"
      wait_port "$port" || { say "$name did not start; its log:"; tail -n 20 "$DIR/$name.log"; exit 1; }
      return 0
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
      [ "$STORE" = etcd ] && redemption="etcd://$ETCD_ENDPOINTS"
      [ "$STORE" = sentinel ] && redemption="redis+sentinel://127.0.0.1:$SENTINEL_PORT/mrtr"
      local unsafe=(); [ -f "$DIR/unguarded" ] && unsafe=(--unsafe-unguarded-store)
      [ -s "$DIR/$name.redemption" ] && redemption=$(cat "$DIR/$name.redemption")
      local cors=() origins origin
      read -ra origins <<<"${MRTR_CLUSTER_CORS_ORIGIN:-}" # split on spaces, never globbed
      for origin in ${origins[@]+"${origins[@]}"}; do cors+=(--cors-origin "$origin"); done
      MRTR_KEYS=$(cat "$keys") setsid "$BIN/mrtr-server" --http "127.0.0.1:$port" --single-use \
        --redemption "$redemption" --name "$name" $log ${cors[@]+"${cors[@]}"} ${unsafe[@]+"${unsafe[@]}"} \
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
  # A replica in steady state: synced with its primary (the first sync waits for the primary's
  # snapshot), and known to the Sentinel that would promote it (up to 20 s each).
  if [ "$name" = redis-copy ]; then
    for _ in $(seq 200); do redis-cli -p "$COPY_PORT" info replication 2>/dev/null | grep -q 'master_link_status:up' && break; sleep 0.1; done
    redis-cli -p "$COPY_PORT" info replication | grep -q 'master_link_status:up' || { say "the Redis replica did not sync"; exit 1; }
  fi
  if [ "$name" = sentinel ]; then
    for _ in $(seq 200); do redis-cli -p "$SENTINEL_PORT" sentinel replicas mrtr 2>/dev/null | grep -qx "$COPY_PORT" && break; sleep 0.1; done
    redis-cli -p "$SENTINEL_PORT" sentinel replicas mrtr | grep -qx "$COPY_PORT" || { say "the Sentinel did not find the replica"; exit 1; }
  fi
  # The replicas refuse tickets minted in or before the second a Redis without its memory
  # started (whether they were spent is forgotten): let that second pass before any is minted.
  if [ "$name" = redis ]; then sleep 1; fi
}

launch_etcd() { # launch_etcd N: member N in the background (already running: nothing)
  local n=$1 name=etcd-$1
  if running "$name"; then return 0; fi
  mkdir -p "$DIR"
  local state=new; [ -d "$DIR/$name.data/member" ] && state=existing
  # Every write is on a majority's disk before it is answered (etcd's default); old
  # revisions are compacted away, so the expired redemptions' history does not grow forever.
  setsid etcd --name "$name" --data-dir "$DIR/$name.data" \
    --listen-client-urls "http://127.0.0.1:$(etcd_client_port "$n")" \
    --advertise-client-urls "http://127.0.0.1:$(etcd_client_port "$n")" \
    --listen-peer-urls "http://127.0.0.1:$(etcd_peer_port "$n")" \
    --initial-advertise-peer-urls "http://127.0.0.1:$(etcd_peer_port "$n")" \
    --initial-cluster "$ETCD_MEMBERS" --initial-cluster-state "$state" \
    --initial-cluster-token "mrtr-$PORT" --enable-v2=false \
    --auto-compaction-mode periodic --auto-compaction-retention 5m \
    </dev/null >>"$DIR/$name.log" 2>&1 &
  echo $! > "$DIR/$name.pid"
}

stop_one() {
  local name=$1 f=$DIR/$1.pid pid
  if [ "$name" = etcd ]; then for n in 1 2 3; do stop_one "etcd-$n"; done; return 0; fi
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
    case $STORE in
      etcd) start_one etcd ;;
      sentinel) start_one redis; start_one redis-copy; start_one sentinel ;;
      *) start_one redis ;;
    esac
    for part in replica-a replica-b nginx; do start_one "$part"; done
    case $STORE in
      etcd) STORE_LINE="(three etcd members)  etcd://$ETCD_ENDPOINTS" ;;
      sentinel) STORE_LINE="(Redis + a replica)   redis+sentinel://127.0.0.1:$SENTINEL_PORT/mrtr" ;;
      *) STORE_LINE="(one Redis)           redis://127.0.0.1:$REDIS_PORT/0" ;;
    esac
    cat <<EOF
[cluster] running, on loopback only:
  load balancer (nginx, round robin)  http://127.0.0.1:$PORT/mcp
  replica-a                           http://127.0.0.1:$A_PORT/mcp
  replica-b                           http://127.0.0.1:$B_PORT/mcp
  redemptions $STORE_LINE
  pages that may call it (CORS)       ${MRTR_CLUSTER_CORS_ORIGIN:-none (make cluster CORS_ORIGIN=ORIGIN)}

  A round trip that crosses replicas:  $BIN/mrtr-client --token bob-token http://127.0.0.1:$PORT/mcp
  Which replica served each request:   tail -f $DIR/nginx-access.log
  What each replica checked:           tail -f $DIR/replica-a.log $DIR/replica-b.log
  Stop it all:                         make cluster-stop
EOF
    ;;
  stop)
    for part in nginx replica-a replica-b sentinel redis-copy redis etcd-1 etcd-2 etcd-3; do stop_one "$part"; done
    say "stopped"
    ;;
  install) install_missing ;;
  status)
    for part in $STORE_PARTS replica-a replica-b nginx; do
      if running "$part"; then say "$part: running (PID $(cat "$DIR/$part.pid"), port $(port_of "$part"))"; else say "$part: stopped"; fi
    done
    ;;
  start-one) start_one "${2:?which part}" ;;
  stop-one) stop_one "${2:?which part}" ;;
  *) sed -n '2,24p' "$0"; exit 2 ;;
esac
