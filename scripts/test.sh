#!/usr/bin/env bash
# Sets up and runs the whole test suite. This is the README's test command; .ci/run calls it.
#
# 1. a virtual environment in .venv with the package and its test extra;
# 2. a Docker engine (scripts/ensure-docker.sh installs Debian's docker.io and starts dockerd
#    when run as root) and the sandbox image (built offline from Debian packages);
# 3. pytest over tests/, with Docker tests REQUIRED when an engine is up or when CI=true
#    (JUDGE_REQUIRE_DOCKER=1 turns "no engine -> skip" into a failure).
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[test]'

# the toolchains of the other languages (node, g++, go, rustc, java) for the process sandbox
bash scripts/ensure-toolchains.sh || echo "test.sh: some language toolchains are missing" >&2

if bash scripts/ensure-docker.sh; then
    export JUDGE_REQUIRE_DOCKER=1
    .venv/bin/judge sandbox build
elif [ "${CI:-}" = "true" ]; then
    echo "test.sh: CI needs a Docker engine and none could be started" >&2
    exit 1
else
    echo "test.sh: no Docker engine: docker tests will be skipped" >&2
fi

exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
