#!/usr/bin/env bash
# ensure-toolchains.sh - the host toolchains the process sandbox uses for the other languages
# (judge/languages/): node, g++, go, rustc, javac/java, pypy3, and the polyglot image's languages
# (kotlin, scala, mono, ldc, lua, perl, php, R, racket, ruby, tsc, junit4, pytest) and the
# libraries SandboxFusion's routes offer (javatuples, lodash, Perl's Test::Deep and Data::Compare), all from Debian packages, and a
# precompiled <bits/stdc++.h> for C++ (halves each C++ compile). Also chromium, the headless
# browser tests/reports/test_report_html.py opens the HTML report in (not a sandbox toolchain).
#
# Idempotent: a tool already on PATH is left alone; as root on Debian/Ubuntu the missing ones
# are installed with apt-get (nodejs, g++, golang-go, rustc, default-jdk-headless, pypy3, chromium). The
# toolchains must live where the sandbox's unprivileged users can run them (/usr/bin, not
# ~/.cargo). Exit 0 when every toolchain answers, else 1 naming the missing ones.
set -u

say() { printf '[ensure-toolchains] %s\n' "$*"; }
PCH_DIR="${JUDGE_PCH_DIR:-/usr/local/lib/judge-pch}"

declare -A PACKAGE=( [/usr/bin/node]=nodejs [/usr/bin/g++]=g++ [/usr/bin/go]=golang-go
                     [/usr/bin/rustc]=rustc [/usr/bin/javac]=default-jdk-headless
                     [/usr/bin/java]=default-jdk-headless [/usr/bin/pypy3]=pypy3
                     [/usr/bin/chromium]=chromium )
# the languages beyond the native seven (the polyglot image's, sandboxes/polyglot/base.json; npm
# only to install jest below, where nodejs does not bundle it as Debian's does not),
# installed without recommends (R's and Racket's recommends are hundreds of MB the judge never runs)
declare -A EXTRA=( [/usr/bin/kotlinc]=kotlin [/usr/bin/scalac]=scala [/usr/bin/mcs]=mono-mcs
                   [/usr/bin/mono]=mono-runtime [/usr/bin/ldc2]=ldc [/usr/bin/lua5.4]=lua5.4
                   [/usr/bin/perl]=perl [/usr/bin/php]=php-cli [/usr/bin/Rscript]=r-base-core
                   [/usr/bin/racket]=racket [/usr/bin/ruby]=ruby [/usr/bin/tsc]=node-typescript
                   [/usr/share/java/junit4.jar]=junit4 [/usr/bin/pytest-3]=python3-pytest
                   [/usr/share/java/javatuples.jar]=libjavatuples-java
                   [/usr/share/nodejs/lodash/package.json]=node-lodash
                   [/usr/bin/npm]=npm
                   [/usr/share/perl5/Test/Deep.pm]=libtest-deep-perl
                   [/usr/share/perl5/Data/Compare.pm]=libdata-compare-perl
                   [/usr/share/java/junit-platform-console-standalone.jar]=junit5
                   [/usr/share/gocode/src/github.com/stretchr/testify/assert/assertions.go]=golang-github-stretchr-testify-dev )
install_missing() {  # install_missing ARRAY-NAME [APT OPTIONS...]
    local -n table="$1"; shift
    local missing=() tool
    for tool in "${!table[@]}"; do
        [ -e "$tool" ] || missing+=("${table[$tool]}")
    done
    [ "${#missing[@]}" -gt 0 ] || return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        packages=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
        say "installing $packages"
        export DEBIAN_FRONTEND=noninteractive
        { [ -n "${APT_UPDATED:-}" ] || apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null; } \
            && APT_UPDATED=1 \
            && apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@" $packages >/dev/null \
            || say "apt-get install failed"
    else
        say "missing: ${missing[*]} (run as root on Debian/Ubuntu to install them)"
    fi
}
install_missing PACKAGE
install_missing EXTRA --no-install-recommends

# C++: a precompiled header with the judge's exact flags (judge/languages/cpp.py)
if [ -x /usr/bin/g++ ] && [ "$(id -u)" = 0 ]; then
    header=$(echo '#include <bits/stdc++.h>' | g++ -std=c++17 -x c++ -H -fsyntax-only - 2>&1 \
             | sed -n 's/^\. //p' | head -1)
    if [ -n "$header" ] && { [ ! -f "$PCH_DIR/bits/stdc++.h.gch" ] || [ "$header" -nt "$PCH_DIR/bits/stdc++.h.gch" ]; }; then
        say "precompiling $header into $PCH_DIR"
        mkdir -p "$PCH_DIR/bits"
        ln -sf "$header" "$PCH_DIR/bits/stdc++.h"
        g++ -std=c++17 -O2 -w -x c++-header "$header" -o "$PCH_DIR/bits/stdc++.h.gch.tmp" \
            && mv "$PCH_DIR/bits/stdc++.h.gch.tmp" "$PCH_DIR/bits/stdc++.h.gch"
        chmod -R a+rX "$PCH_DIR"
    fi
fi

# go test (judge/languages/frameworks.py GoTest): testify and its dependencies installed
# precompiled into Debian's GOPATH, so a test compiles only its own package
if [ -x /usr/bin/go ] && [ -d /usr/share/gocode/src/github.com/stretchr/testify ] && [ "$(id -u)" = 0 ] \
        && [ ! -d /usr/share/gocode/pkg/linux_amd64/github.com/stretchr/testify ]; then
    say "precompiling testify into /usr/share/gocode/pkg"
    gocache=$(mktemp -d)
    ( export GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$gocache"
      go install $(go list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' \
                   github.com/stretchr/testify/...) ) || say "precompiling testify failed"
    rm -rf "$gocache"
    chmod -R a+rX /usr/share/gocode/pkg 2>/dev/null
fi

# go test: vet's facts of testify and the standard library, computed once into the build cache a
# go_test compile copies before it starts (judge/languages/frameworks.py GoTest); rebuilt when
# the go version or the package list changes (the stamp)
GOWARM_SRC="$(cd "$(dirname "$0")/.." && pwd)/sandboxes/native/go-warm/warm_test.go"
GOWARM=/usr/local/lib/judge-gocache
if [ -x /usr/bin/go ] && [ -d /usr/share/gocode/src/github.com/stretchr/testify ] && [ "$(id -u)" = 0 ] \
        && [ -f "$GOWARM_SRC" ]; then
    stamp=$( (go version; cat "$GOWARM_SRC") | sha256sum | cut -d' ' -f1)
    if [ "$(cat "$GOWARM/.judge-stamp" 2>/dev/null)" != "$stamp" ]; then
        say "computing go vet's facts of testify and the standard library into $GOWARM"
        work=$(mktemp -d)
        cp "$GOWARM_SRC" "$work/"
        rm -rf "$GOWARM"
        if ( cd "$work" && export GO111MODULE=off GOPATH=/usr/share/gocode CGO_ENABLED=1 GOFLAGS= \
                 GOCACHE="$GOWARM" && go test -c -o "$work/prog" warm_test.go ); then
            echo "$stamp" > "$GOWARM/.judge-stamp"
            chmod -R a+rX,go-w "$GOWARM"
        else
            say "the go build cache could not be warmed (go_test compiles vet everything)"
            rm -rf "$GOWARM"
        fi
        rm -rf "$work"
    fi
fi

# jest (judge/languages/jest.py): the npm packages pinned by sandboxes/jest/package-lock.json,
# installed with `npm ci` into JEST_HOME with the judge's runner and reporter, once per lockfile
# (the stamp: SHA-256 of the lockfile, run.js and reporter.js); also what the polyglot image copies
JEST_HOME=/usr/local/lib/judge-jest
JEST_SRC="$(cd "$(dirname "$0")/.." && pwd)/sandboxes/jest"
jest_stamp=$(cat "$JEST_SRC/package-lock.json" "$JEST_SRC/judge/run.js" "$JEST_SRC/judge/reporter.js" \
             | sha256sum | cut -d' ' -f1)
if [ "$(cat "$JEST_HOME/judge-jest.stamp" 2>/dev/null)" != "$jest_stamp" ]; then
    if [ "$(id -u)" = 0 ] && command -v npm >/dev/null; then
        say "installing jest (npm ci, sandboxes/jest/package-lock.json) into $JEST_HOME"
        jest_tmp=$(mktemp -d /usr/local/lib/.judge-jest.XXXXXX)
        cp "$JEST_SRC/package.json" "$JEST_SRC/package-lock.json" "$jest_tmp/" \
            && mkdir -p "$jest_tmp/judge" && cp "$JEST_SRC/judge/run.js" "$JEST_SRC/judge/reporter.js" "$jest_tmp/judge/" \
            && ( cd "$jest_tmp" && npm ci --ignore-scripts --no-audit --no-fund --omit=dev --loglevel=error >/dev/null ) \
            && printf '%s\n' "$jest_stamp" > "$jest_tmp/judge-jest.stamp" \
            && chmod -R a+rX,go-w "$jest_tmp" \
            && rm -rf "$JEST_HOME" && mv "$jest_tmp" "$JEST_HOME" \
            || { say "installing jest failed (npm ci: is the npm registry reachable?)"; rm -rf "$jest_tmp"; }
    else
        say "jest: not installed (needs root and npm: the npm registry is reached once per lockfile)"
    fi
fi
if [ "$(cat "$JEST_HOME/judge-jest.stamp" 2>/dev/null)" = "$jest_stamp" ]; then
    say "$JEST_HOME: jest $(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$JEST_HOME/node_modules/jest/package.json")"
else
    say "$JEST_HOME: jest MISSING"
    jest_missing=1
fi

status=0
for tool in /usr/bin/node /usr/bin/g++ /usr/bin/go /usr/bin/rustc /usr/bin/javac /usr/bin/java \
            /usr/bin/pypy3 /usr/bin/chromium $(printf '%s\n' "${!EXTRA[@]}" | sort); do
    if [ "${tool#/usr/share/}" != "$tool" ]; then  # a library, not a program
        if [ -f "$tool" ]; then say "$tool: present"; else say "$tool: MISSING"; status=1; fi
        continue
    fi
    if [ -x "$tool" ]; then
        case "$tool" in
            */go) version=$("$tool" version 2>&1 | head -1) ;;
            */chromium) version=$("$tool" --version 2>/dev/null | head -1) ;;
            */lua5.4) version=$("$tool" -v 2>&1 | head -1) ;;
            */scalac|*/kotlinc) version=$("$tool" -version 2>&1 | grep -iv 'warning\|^$' | head -1) ;;
            */perl) version=$("$tool" -e 'print "perl $^V"') ;;
            */mono|*/mcs|*/racket|*/tsc|*/ldc2|*/Rscript|*/pytest-3)
                version=$("$tool" --version 2>&1 | grep -v '^$' | head -1) ;;
            *) version=$("$tool" --version 2>&1 | head -1) ;;
        esac
        say "$tool: $version"
    else
        say "$tool: MISSING"
        status=1
    fi
done
[ -z "${jest_missing:-}" ] || status=1
exit $status
