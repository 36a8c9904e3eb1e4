#!/usr/bin/env bash
# Installs Debian packages the tests need, only when their command is missing:
# `bash scripts/setup-debian.sh COMMAND:PACKAGE ...` (e.g. redis-server:redis-server).
# Runs `apt-get update` once, and only if something has to be installed.
set -euo pipefail

missing=()
for pair in "$@"; do
    command="${pair%%:*}"
    package="${pair#*:}"
    if ! command -v "$command" >/dev/null 2>&1 && ! [[ -x "/usr/sbin/$command" ]]; then
        missing+=("$package")
    fi
done
if ((${#missing[@]} == 0)); then
    exit 0
fi
echo "setup-debian: installing ${missing[*]}" >&2
SUDO=""
if [[ "$(id -u)" != 0 ]]; then
    SUDO="sudo"
fi
$SUDO apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
