#!/usr/bin/env bash
# The fleet harness: Redis, three instances of the `fleet_service` example (`deploy_service`,
# `summarize_incidents` and `release_notes` in one server; same MRTR_STATE_KEYS, single use on
# Redis) behind nginx (round robin, no stickiness, HTTP/1.1 keep-alive to the upstreams), and
# `fleet-load` driving complete multi-round flows through nginx for a fixed time. During the load:
# the README's three-stage key rotation (add accept-only, promote, retire) as rolling restarts one
# instance at a time, and one instance killed with SIGKILL and brought back. Rounds the SIGKILL
# strands (their lease taken, no answer) are retried by the client until the lease runs out and
# another instance takes them over; the example's effects are idempotent by the round's key, so
# they still happen once.
#
#   bash scripts/fleet.sh [--seconds N] [--flows N] [--release]
#
# Defaults: 60 s, 200 flows in flight, debug build. The last line is
# `fleet: N flows completed, M failed, K resumed elsewhere, D duplicate effects`; the exit code is
# non-zero when a target is missed (a failed flow, no round resumed on another instance, a
# duplicate or missing effect) or a step of the choreography failed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

RUN_SECONDS=60
FLOWS=200
PROFILE=debug
while (($#)); do
    case "$1" in
        --seconds) RUN_SECONDS="$2"; shift 2 ;;
        --flows) FLOWS="$2"; shift 2 ;;
        --release) PROFILE=release; shift ;;
        *) echo "usage: bash scripts/fleet.sh [--seconds N] [--flows N] [--release]" >&2; exit 2 ;;
    esac
done
if ((RUN_SECONDS < 10)); then
    echo "fleet: --seconds must be at least 10 (the rotation and the kill need the time)" >&2
    exit 2
fi

bash scripts/setup-debian.sh redis-server:redis-server nginx:nginx bc:bc
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

BUILD=(cargo build --quiet -p mrtr-examples --example fleet_service -p mrtr-fleet --bin fleet-load)
[[ "$PROFILE" == release ]] && BUILD+=(--release)
"${BUILD[@]}"
SERVER="$ROOT/target/$PROFILE/examples/fleet_service"
LOAD="$ROOT/target/$PROFILE/fleet-load"

WORK="$(mktemp -d /tmp/mrtr-fleet.XXXXXX)"
mkdir -p "$WORK/effects" "$WORK/nginx"
PIDS=()
KEEP_WORK=1
cleanup() {
    # Quietly: the shell would report each process killed here after the summary line.
    exec 2>/dev/null
    # nginx first, by its fast shutdown: a SIGKILLed master would orphan its workers (the old
    # ones a reload left finishing requests among them), and they would hold our stdout open.
    if [[ -n "${NGINX_PID:-}" ]]; then
        kill -TERM "$NGINX_PID" 2>/dev/null || true
        (sleep 5 && kill -KILL "$NGINX_PID") >/dev/null 2>&1 &
        local watchdog=$!
        wait "$NGINX_PID" 2>/dev/null || true
        kill "$watchdog" 2>/dev/null || true
    fi
    for pid in "${PIDS[@]}"; do
        kill -KILL "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    # Logs stay for a failed run (the messages name them); a passing run leaves nothing.
    [[ "$KEEP_WORK" == 0 ]] && rm -rf "$WORK"
    return 0
}
trap cleanup EXIT

T0=$(date +%s.%N)
log() { printf 'fleet [%6.1f s] %s\n' "$(echo "$(date +%s.%N) - $T0" | bc)" "$*" >>"$WORK/choreography.log"; }
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() {
    for _ in $(seq 200); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.05
    done
    echo "fleet: nothing listens on port $1 after 10 s" >&2
    return 1
}
key() { head -c 32 /dev/urandom | basenc --base64url | tr -d '='; }

# The single-use lease: longer than any round takes here (p99 under 2 s on a loaded debug
# build), short enough that a round stranded by the SIGKILL is taken over within the run.
LEASE_MS=3000
# A TTL short enough that the retire stage can wait one TTL after the promote stage, as the
# README's rotation requires, within the run; and at least twice the lease, so that the token of
# a stranded round is still valid when its lease runs out and a retry takes it over.
TTL=$((RUN_SECONDS / 6 > 6 ? RUN_SECONDS / 6 : 6))
K1="$(key)"
K2="$(key)"

REDIS_PORT="$(free_port)"
redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no >"$WORK/redis.log" 2>&1 &
PIDS+=($!)
wait_port "$REDIS_PORT"

declare -a PORT PID
start_instance() { # N KEYS
    local n="$1" keys="$2"
    MRTR_STATE_KEYS="$keys" MRTR_STATE_TTL="$TTL" MRTR_AUDIENCE=deploy-service \
        MRTR_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/" MRTR_REDIS_TIMEOUT_MS=2000 \
        MRTR_REDIS_LEASE_MS="$LEASE_MS" MRTR_INSTANCE="i$n" \
        MRTR_EFFECT_LOG="$WORK/effects/i$n.log" MRTR_EFFECT_LEDGER="$WORK/effects/ledger" \
        RUST_LOG=warn \
        "$SERVER" --http "127.0.0.1:${PORT[$n]}" >>"$WORK/i$n.out" 2>&1 &
    PID[$n]=$!
    PIDS+=("${PID[$n]}")
    wait_port "${PORT[$n]}"
}
stop_instance() { # N: SIGINT, the server drains its requests in flight and exits
    kill -INT "${PID[$1]}"
    wait "${PID[$1]}" 2>/dev/null || true
}
rolling_restart() { # STAGE KEYS: per instance, drain it at nginx, restart it, put it back
    log "rotation: $1 (MRTR_STATE_KEYS=${2//:[A-Za-z0-9_-]*/:…}), rolling restart"
    for n in 1 2 3; do
        reload_nginx "$n"
        sleep 0.3
        stop_instance "$n"
        start_instance "$n" "$2"
        reload_nginx
        log "  i$n drained, restarted, back in rotation"
    done
}

for n in 1 2 3; do
    PORT[$n]="$(free_port)"
    start_instance "$n" "k1:$K1"
done

NGINX_PORT="$(free_port)"
USER_LINE=""
[[ "$(id -u)" == 0 ]] && USER_LINE="user root;"
write_nginx_conf() { # [DRAINED]: that instance is marked down (taken out of rotation)
    local servers="" n down
    for n in 1 2 3; do
        down=""
        [[ "${1:-}" == "$n" ]] && down=" down"
        servers+="        server 127.0.0.1:${PORT[$n]} max_fails=1 fail_timeout=1s$down;"$'\n'
    done
    cat >"$WORK/nginx/nginx.conf" <<EOF
$USER_LINE
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    tcp_nodelay on;
    # Round robin (nginx's default), no stickiness: any round may land on any instance.
    upstream mcp {
$servers        keepalive 256;
    }
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location /mcp {
            proxy_pass http://mcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            # rmcp refuses Host headers that are not the loopback (DNS rebinding): pass the
            # client's own.
            proxy_set_header Host \$http_host;
            proxy_buffering off;
        }
    }
}
EOF
}
reload_nginx() { # [DRAINED]: new workers route around it; old workers finish their requests
    write_nginx_conf "${1:-}"
    "$NGINX" -p "$WORK/nginx" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" -s reload
}
write_nginx_conf
"$NGINX" -p "$WORK/nginx" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" &
NGINX_PID=$!
PIDS+=("$NGINX_PID")
wait_port "$NGINX_PORT"
log "redis :$REDIS_PORT, instances :${PORT[1]} :${PORT[2]} :${PORT[3]}, nginx :$NGINX_PORT, TTL ${TTL}s, $FLOWS flows for ${RUN_SECONDS}s ($PROFILE build)"

"$LOAD" --url "http://127.0.0.1:$NGINX_PORT/mcp" --flows "$FLOWS" --seconds "$RUN_SECONDS" \
    --effects "$WORK/effects" >"$WORK/load.out" 2>&1 &
LOAD_PID=$!
PIDS+=("$LOAD_PID")

at() { # wait until SECONDS into the run
    local wait
    wait=$(echo "$1 - ($(date +%s.%N) - $T0)" | bc)
    if (($(echo "$wait > 0" | bc))); then sleep "$wait"; fi
}
CHOREOGRAPHY=ok
{
    at "$(echo "$RUN_SECONDS * 0.05" | bc)"
    rolling_restart "1/3 add k2 accept-only" "k1:$K1,k2:$K2"
    at "$(echo "$RUN_SECONDS * 0.20" | bc)"
    rolling_restart "2/3 promote k2" "k2:$K2,k1:$K1"
    PROMOTED=$(echo "$(date +%s.%N) - $T0" | bc)
    at "$(echo "$RUN_SECONDS * 0.40" | bc)"
    log "SIGKILL i2"
    kill -KILL "${PID[2]}"
    wait "${PID[2]}" 2>/dev/null || true
    sleep 1
    start_instance 2 "k2:$K2,k1:$K1"
    log "  i2 back"
    # Retire only once every k1 token has expired: one TTL after the last promoted instance.
    at "$(echo "$PROMOTED + $TTL + 1" | bc)"
    rolling_restart "3/3 retire k1" "k2:$K2"
} || CHOREOGRAPHY=failed

LOAD_RC=0
wait "$LOAD_PID" || LOAD_RC=$?
log "load finished"
cat "$WORK/choreography.log"
for n in 1 2 3; do
    if grep -q "panicked" "$WORK/i$n.out"; then
        echo "fleet: instance i$n panicked (see $WORK/i$n.out)"
        CHOREOGRAPHY=failed
    fi
done
[[ "$CHOREOGRAPHY" == ok ]] || echo "fleet: a step of the choreography failed (logs in $WORK)"
grep -v '^fleet: ' "$WORK/load.out" || true
[[ "$LOAD_RC" == 0 ]] || echo "fleet: logs in $WORK"
LAST="$(grep '^fleet: ' "$WORK/load.out" | tail -1 || true)"
if [[ -z "$LAST" ]]; then
    echo "fleet: the load generator printed no summary (exit $LOAD_RC)"
    exit 1
fi
echo "$LAST"
if [[ "$CHOREOGRAPHY" == ok && "$LOAD_RC" == 0 ]]; then
    KEEP_WORK=0
    exit 0
fi
exit 1
