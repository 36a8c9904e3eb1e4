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

passed=0
failed=0

# run_scenario SCENARIO SPEC_VERSION WARNINGS_FAIL
run_scenario() {
    local scenario="$1" version="$2" warnings_fail="$3"
    local dir="$RESULTS/$scenario" status=0
    mkdir -p "$dir"
    "$CONFORMANCE" server --url "$EXAMPLE_URL" --scenario "$scenario" --spec-version "$version" \
        -o "$dir" >"$dir/raw.txt" 2>&1 || status=$?
    sed 's/\x1b\[[0-9;]*m//g' "$dir/raw.txt" >"$dir/output.txt"
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
    summary="$(grep -E '^Passed: ' "$dir/output.txt" | tail -n 1 || true)"
    if [[ $status -eq 0 && $verdict == ok* ]]; then
        passed=$((passed + 1))
        printf 'PASS %-45s [%s] %s\n' "$scenario" "$version" "$summary"
    else
        failed=$((failed + 1))
        printf 'FAIL %-45s [%s] %s (exit %s; %s)\n' "$scenario" "$version" "$summary" "$status" "${verdict#* }"
        grep -E 'FAILURE|WARNING|Error:' "$dir/output.txt" | sed 's/^/    /' || true
    fi
}

for scenario in "${MRTR_SCENARIOS[@]}"; do
    run_scenario "input-required-result-$scenario" 2026-07-28 1
done
run_scenario server-stateless 2026-07-28 0
for scenario in "${LEGACY_SCENARIOS[@]}"; do
    run_scenario "$scenario" 2025-11-25 0
done

echo "full outputs: ${RESULTS#"$ROOT"/}/<scenario>/output.txt"
echo "conformance: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
