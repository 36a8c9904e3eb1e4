#!/usr/bin/env bash
# The flow benchmark, in one run: complete deploy_service, summarize_incidents and
# staged_rollout flows from one load generator (32 kept-alive connections) against
#   - the mrtr example (examples/deploy_service),
#   - the same tools written by hand on plain rmcp 3.11 (bench/flows/src/baseline.rs),
#   - the example's server set as that baseline is: sign-only state, no pre-scan
#     (src/bin/mrtr_as_baseline.rs), which splits the port's cost from its defaults' cost,
#   - the python-sdk 2.3 and TypeScript SDK 2.4 reference servers (bench/flows/servers/),
# then the same flows on legacy sessions (live elicitation) against the mrtr example and the
# legacy original. Prints the table and writes bench/flows/flows.svg.
#
#   bash bench/flows/run.sh                 # the measured run (release build), ~3 minutes, then
#                                           # the example and rmcp by hand paired (below)
#   bash bench/flows/run.sh --smoke         # what CI runs: debug build, a few seconds a server,
#                                           # fails unless every server completed flows, 0 errors
#   bash bench/flows/run.sh --seconds 10    # more flags go to the load generator (src/bin/flows.rs)
#   bash bench/flows/run.sh --flow summarize_incidents
#                                           # one tool's flows only (repeatable): which tool a
#                                           # difference between servers comes from
#   bash bench/flows/run.sh --paired        # the servers of an era driven at the same time: the
#                                           # steadier ratio on a shared machine
#
# Instructions per flow under callgrind, the figure a busy machine cannot move (needs valgrind):
#   target/release/instructions --server 'LABEL=COMMAND ..' --legacy 'LABEL=COMMAND ..'
#   (src/bin/instructions.rs; the smoke runs it over a few flows when valgrind is installed;
#   `--cache-sim --by-crate` adds each server's instructions and code misses per flow by crate;
#   `--by-part` the same by part of a round, `--by-function` by the runtime's functions)
# Server CPU per flow by piece of the round (open, resume, suspend, seal), natively (needs perf):
#   target/release/pieces --passes 3 --server 'LABEL=COMMAND ..' ..   (src/bin/pieces.rs; the
#   smoke runs it for a second when perf is installed and may attach)
set -euo pipefail
cd "$(dirname "$0")/../.."

SMOKE=0
if [[ "${1:-}" == "--smoke" ]]; then
    SMOKE=1
    shift
fi

. scripts/setup-tools.sh
# The TypeScript server resolves its packages from a node_modules beside it.
ln -sfn "$TS_SERVER_NODE_MODULES" bench/flows/servers/node_modules

if ((SMOKE)); then
    TARGET=target/debug
    RUN=(--connections 4 --seconds 2 --passes 1 --warmup 0.5 --smoke)
    # The whole workspace, as `cargo test --workspace` built it: the same features, so after the
    # tests this only links the two binaries.
    cargo build --workspace --examples --bins
else
    TARGET=target/release
    RUN=(--connections 32 --seconds 4 --passes 5 --warmup 1 --chart bench/flows/flows.svg)
    cargo build --release -p mrtr-examples --example deploy_service --example legacy_deploy_service
    cargo build --release -p mrtr-flows --bins
fi

# The example logs at warn here, as the SDK servers do: per-request logging is not what is measured.
export RUST_LOG=warn
if ((SMOKE)) && command -v valgrind >/dev/null; then
    # The instruction counter, once over a few flows per era: it runs, and counts are reported.
    "$TARGET/instructions" --flows 3 --warmup 3 \
        --server "mrtr example=$TARGET/examples/deploy_service --http {addr}" \
        --legacy "mrtr example=$TARGET/examples/deploy_service --http {addr}"
fi
if ((SMOKE)) && command -v perf >/dev/null && perf record -q -o /dev/null -- true 2>/dev/null; then
    # The piece splitter, once for a second: perf attaches, samples split, a table comes out.
    "$TARGET/pieces" --passes 1 --seconds 1 --warmup 0.3 --connections 2 \
        --server "mrtr example=$TARGET/examples/deploy_service --http {addr}"
fi
"$TARGET/flows" "${RUN[@]}" \
    --server "mrtr example=$TARGET/examples/deploy_service --http {addr}" \
    --server "rmcp by hand=$TARGET/rmcp_baseline --http {addr}" \
    --server "mrtr (sign-only state, no pre-scan)=$TARGET/mrtr_as_baseline --http {addr}" \
    --server "python-sdk 2.3=$INTEROP_PYTHON bench/flows/servers/python_server.py {port}" \
    --server "TypeScript SDK 2.4=$NODE22/node bench/flows/servers/ts_server.ts {port}" \
    --legacy "mrtr example=$TARGET/examples/deploy_service --http {addr}" \
    --legacy "rmcp legacy original=$TARGET/examples/legacy_deploy_service --http {addr}" \
    "$@"
if ((SMOKE)); then
    exit 0
fi
# The example and rmcp by hand driven at the same time, so that a neighbour's burst on this
# shared machine lands on both (the turns above are seconds apart). Steadier, but not the same
# figure: paired, the two servers also share the caches, and the larger working set (the
# example's) slows both, so paired ratios run a few percent above the turns' (JOURNAL.md,
# December 4). The flags given to this script are for the run above only.
echo
"$TARGET/flows" --paired --connections 16 --seconds 4 --passes 5 --warmup 1 \
    --server "mrtr example=$TARGET/examples/deploy_service --http {addr}" \
    --server "rmcp by hand=$TARGET/rmcp_baseline --http {addr}"
