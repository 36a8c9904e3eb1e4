#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance@0.2.0-alpha.12)
# against examples/conformance: the 14 `input-required-result-*` scenarios and
# `server-stateless` on the 2026-07-28 wire, and four legacy scenarios on 2025-11-25.
#
# Fails on any FAILURE check; on the MRTR scenarios a WARNING fails too (re-asking missing
# input, ignoring extra keys and rejecting malformed input are SHOULDs the fixtures meet).
# There is no expected-failures file. Prints each scenario's summary line, the failing
# checks in full, and a final `conformance: N passed, N failed` over scenarios.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

. scripts/setup-tools.sh
. scripts/example-server.sh

MRTR_SCENARIOS=(
    basic-elicitation basic-sampling basic-list-roots request-state multiple-input-requests
    multi-round missing-input-response non-tool-request result-type unsupported-methods
    tampered-state capability-check ignore-extra-params validate-input
)
LEGACY_SCENARIOS=(tools-call-elicitation tools-call-sampling elicitation-sep1034-defaults elicitation-sep1330-enums)

start_example "${CONFORMANCE_EXAMPLE:-conformance}"

RESULTS="$ROOT/.ci/cache/conformance-results"
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

# Each CLI run spends most of its ~2 s starting node, so two run at once (the machine has two
# cores); verdicts are still printed in the order above.
PARALLEL="${CONFORMANCE_PARALLEL:-2}"

# launch SCENARIO SPEC_VERSION: runs one scenario in the background, into its own folder.
launch() {
    local scenario="$1" version="$2"
    local dir="$RESULTS/$scenario"
    mkdir -p "$dir"
    # Only the scenario runs count: the example server is a background job of this shell too.
    while [[ ${#RUNNING[@]} -ge $PARALLEL ]]; do
        wait -n "${RUNNING[@]}" || true
        local pid still=()
        for pid in "${RUNNING[@]}"; do
            if kill -0 "$pid" 2>/dev/null; then still+=("$pid"); fi
        done
        RUNNING=("${still[@]}")
    done
    (
        status=0
        "$CONFORMANCE" server --url "$EXAMPLE_URL" --scenario "$scenario" --spec-version "$version" \
            -o "$dir" >"$dir/raw.txt" 2>&1 || status=$?
        sed 's/\x1b\[[0-9;]*m//g' "$dir/raw.txt" >"$dir/output.txt"
        echo "$status" >"$dir/exit"
    ) &
    RUNNING+=("$!")
}
RUNNING=()

passed=0
failed=0

# judge SCENARIO SPEC_VERSION WARNINGS_FAIL: reads a finished run and prints its verdict.
judge() {
    local scenario="$1" version="$2" warnings_fail="$3"
    local dir="$RESULTS/$scenario"
    local status
    status="$(cat "$dir/exit" 2>/dev/null || echo "none")"
    # checks.json is the suite's own record; the exit code only reflects FAILUREs.
    local verdict
    verdict="$(python3 - "$dir" "$warnings_fail" <<'PY'
import glob, json, sys
directory, warnings_fail = sys.argv[1], sys.argv[2] == "1"
checks = [c for f in glob.glob(f"{directory}/*/checks.json") for c in json.load(open(f))]
counts = {}
for check in checks:
    counts[check["status"]] = counts.get(check["status"], 0) + 1
bad = counts.get("FAILURE", 0) + (counts.get("WARNING", 0) if warnings_fail else 0)
print("ok" if checks and not bad else "bad", " ".join(f"{k}={v}" for k, v in sorted(counts.items())) or "no checks recorded")
PY
)"
    local summary
    summary="$(grep -E '^Passed: ' "$dir/output.txt" 2>/dev/null | tail -n 1 || true)"
    if [[ $status == 0 && $verdict == ok* ]]; then
        passed=$((passed + 1))
        printf 'PASS %-45s [%s] %s\n' "$scenario" "$version" "$summary"
    else
        failed=$((failed + 1))
        printf 'FAIL %-45s [%s] %s (exit %s; %s)\n' "$scenario" "$version" "$summary" "$status" "${verdict#* }"
        grep -E 'FAILURE|WARNING|Error:' "$dir/output.txt" 2>/dev/null | sed 's/^/    /' || true
    fi
}

# scenario, wire version, whether a WARNING fails it
PLAN=()
for scenario in "${MRTR_SCENARIOS[@]}"; do
    PLAN+=("input-required-result-$scenario 2026-07-28 1")
done
PLAN+=("server-stateless 2026-07-28 0")
for scenario in "${LEGACY_SCENARIOS[@]}"; do
    PLAN+=("$scenario 2025-11-25 0")
done

for entry in "${PLAN[@]}"; do
    read -r scenario version _ <<<"$entry"
    launch "$scenario" "$version"
done
for pid in "${RUNNING[@]}"; do
    wait "$pid" || true
done
for entry in "${PLAN[@]}"; do
    read -r scenario version warnings_fail <<<"$entry"
    judge "$scenario" "$version" "$warnings_fail"
done

echo "full outputs: ${RESULTS#"$ROOT"/}/<scenario>/output.txt"
echo "conformance: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
