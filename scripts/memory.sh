#!/usr/bin/env bash
# Memory of calls waiting on their client: the `deploy_service` example's RSS before and after
# N calls suspended after round 1 on 2026-07-28 (state in the tokens), beside N legacy calls
# parked on `elicitation/create` in open sessions. `bash scripts/memory.sh [--calls N] [--release]`
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS=10000
PROFILE=debug
while (($#)); do
    case "$1" in
        --calls) CALLS="$2"; shift 2 ;;
        --release) PROFILE=release; shift ;;
        *) echo "usage: bash scripts/memory.sh [--calls N] [--release]" >&2; exit 2 ;;
    esac
done
BUILD=(cargo build --quiet -p mrtr-examples --example deploy_service -p mrtr-fleet --bin fleet-memory)
[[ "$PROFILE" == release ]] && BUILD+=(--release)
"${BUILD[@]}"
# Every parked legacy call holds one connection on each side.
ulimit -n "$((CALLS * 2 + 1024))" 2>/dev/null || ulimit -n "$(ulimit -Hn)"
exec "target/$PROFILE/fleet-memory" --server "target/$PROFILE/examples/deploy_service" --calls "$CALLS"
