#!/usr/bin/env bash
# The README's test command: every test of the workspace.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --all-targets
