# Sourced by conformance.sh and interop.sh: build one example server, start it on a free
# loopback port, wait until it accepts connections, and stop it when the calling script exits.
#
#   start_example NAME   sets EXAMPLE_BIN, EXAMPLE_PORT, EXAMPLE_URL (http://127.0.0.1:PORT/mcp)
#
# The server's log goes to $EXAMPLE_LOG (default .ci/cache/NAME.log) and is printed when it
# dies early, so a failed start explains itself.

: "${CARGO_TARGET_DIR:=$ROOT/target}"
export CARGO_TARGET_DIR

EXAMPLE_PIDS=()

stop_examples() {
    local pid
    for pid in "${EXAMPLE_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    EXAMPLE_PIDS=()
}
trap stop_examples EXIT
trap 'exit 130' INT TERM

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_example() {
    local name="$1"
    echo "building example $name" >&2
    cargo build --quiet -p mrtr-examples --example "$name" >&2
    EXAMPLE_BIN="$CARGO_TARGET_DIR/debug/examples/$name"
    EXAMPLE_PORT="$(free_port)"
    EXAMPLE_URL="http://127.0.0.1:$EXAMPLE_PORT/mcp"
    EXAMPLE_LOG="${EXAMPLE_LOG:-$ROOT/.ci/cache/$name.log}"
    "$EXAMPLE_BIN" --http "127.0.0.1:$EXAMPLE_PORT" >"$EXAMPLE_LOG" 2>&1 &
    local pid=$!
    EXAMPLE_PIDS+=("$pid")
    local tries
    for tries in $(seq 1 100); do
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "example $name exited before it was ready; its log:" >&2
            cat "$EXAMPLE_LOG" >&2
            return 1
        fi
        if (exec 3<>"/dev/tcp/127.0.0.1/$EXAMPLE_PORT") 2>/dev/null; then
            echo "example $name serving at $EXAMPLE_URL (pid $pid)" >&2
            return 0
        fi
        sleep 0.1
    done
    echo "example $name did not accept connections on port $EXAMPLE_PORT within 10 s" >&2
    return 1
}
