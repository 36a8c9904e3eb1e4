#!/usr/bin/env bash
# Interop: the official Python SDK (mcp==2.3.0) and TypeScript SDK client
# (@modelcontextprotocol/client@2.4.0) drive the `deploy_service` example end to end:
#   - Python over Streamable HTTP on 2026-07-28 (the SDK's own input_required loop),
#   - Python over stdio on a legacy initialize session (real server-initiated requests),
#   - Python over stdio on 2026-07-28 (negotiated with server/discover),
#   - TypeScript over Streamable HTTP on 2026-07-28,
#   - Python over stdio on a legacy session against the legacy original `legacy_deploy_service`
#     (plain rmcp, no mrtr): the "before" of the port must pass the same cases;
#   - the same for `release_notes` and `repo_tools`: Python over stdio against each port (legacy
#     session and 2026-07-28) and against its legacy original (legacy session), one case set per
#     example run against both.
# Each client prints PASS/FAIL lines; this script ends with the overall `N passed, N failed`
# and exits non-zero if any check failed or any client crashed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

. scripts/setup-tools.sh
. scripts/example-server.sh

EXAMPLE="${INTEROP_EXAMPLE:-deploy_service}"
start_example "$EXAMPLE"

# node resolves bare imports from the script's own folder upwards.
ln -sfn "$INTEROP_NODE_MODULES" interop/node_modules

passed=0
failed=0
run_client() {
    local label="$1"
    shift
    echo "== $label"
    # stdout carries the verdicts; stderr (the SDK's and, on stdio, the server's logs) is kept
    # aside and shown only when the client failed.
    local slug="${label,,}"
    local log="$ROOT/.ci/cache/interop-${slug//[^a-z0-9]/-}.stderr"
    local out status=0
    out="$(timeout 120 "$@" 2>"$log")" || status=$?
    printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed$' || true
    passed=$((passed + $(printf '%s\n' "$out" | grep -c '^PASS ' || true)))
    failed=$((failed + $(printf '%s\n' "$out" | grep -c '^FAIL ' || true)))
    if [[ $status -ne 0 ]] && ! printf '%s\n' "$out" | grep -q '^FAIL '; then
        # The client died without reporting a failed check: count the crash itself.
        echo "FAIL $label: client exited with status $status"
        failed=$((failed + 1))
    fi
    if [[ $status -ne 0 ]]; then
        echo "-- stderr of $label (${log#"$ROOT"/}):"
        tail -n 40 "$log"
    fi
}

run_client "python, Streamable HTTP, 2026-07-28" "$INTEROP_PYTHON" interop/python_client.py --http "$EXAMPLE_URL"
run_client "python, stdio, legacy session" "$INTEROP_PYTHON" interop/python_client.py --stdio "$EXAMPLE_BIN" --stdio
run_client "python, stdio, 2026-07-28" "$INTEROP_PYTHON" interop/python_client.py --era 2026-07-28 --stdio "$EXAMPLE_BIN" --stdio
run_client "typescript, Streamable HTTP, 2026-07-28" "$NODE22/node" interop/ts_client.ts "$EXAMPLE_URL"

OTHERS=(release_notes repo_tools)
echo "building examples legacy_$EXAMPLE ${OTHERS[*]} ${OTHERS[*]/#/legacy_}" >&2
cargo build --quiet -p mrtr-examples --example "legacy_$EXAMPLE" \
    $(for other in "${OTHERS[@]}"; do printf -- '--example %s --example legacy_%s ' "$other" "$other"; done) >&2
BIN="$CARGO_TARGET_DIR/debug/examples"
run_client "python, stdio, legacy original" "$INTEROP_PYTHON" interop/python_client.py --original --stdio "$BIN/legacy_$EXAMPLE" --stdio

for other in "${OTHERS[@]}"; do
    run_client "python, stdio, legacy session, $other" "$INTEROP_PYTHON" interop/python_client.py --server "$other" --stdio "$BIN/$other" --stdio
    run_client "python, stdio, 2026-07-28, $other" "$INTEROP_PYTHON" interop/python_client.py --server "$other" --era 2026-07-28 --stdio "$BIN/$other" --stdio
    run_client "python, stdio, legacy original, $other" "$INTEROP_PYTHON" interop/python_client.py --server "$other" --original --stdio "$BIN/legacy_$other" --stdio
done

echo "interop: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
