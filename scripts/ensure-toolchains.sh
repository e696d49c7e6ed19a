#!/usr/bin/env bash
# ensure-toolchains.sh - the host toolchains the process sandbox uses for the other languages
# (judge/languages/): node, g++, go, rustc, javac/java, pypy3, all from Debian packages, and a
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
missing=()
for tool in "${!PACKAGE[@]}"; do
    [ -x "$tool" ] || missing+=("${PACKAGE[$tool]}")
done
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        packages=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
        say "installing $packages"
        export DEBIAN_FRONTEND=noninteractive
        apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null && apt-get -o DPkg::Lock::Timeout=600 install -y -qq $packages >/dev/null \
            || say "apt-get install failed"
    else
        say "missing: ${missing[*]} (run as root on Debian/Ubuntu to install them)"
    fi
fi

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

status=0
for tool in /usr/bin/node /usr/bin/g++ /usr/bin/go /usr/bin/rustc /usr/bin/javac /usr/bin/java \
            /usr/bin/pypy3 /usr/bin/chromium; do
    if [ -x "$tool" ]; then
        case "$tool" in
            */go) version=$("$tool" version 2>&1 | head -1) ;;
            */chromium) version=$("$tool" --version 2>/dev/null | head -1) ;;
            *) version=$("$tool" --version 2>&1 | head -1) ;;
        esac
        say "$tool: $version"
    else
        say "$tool: MISSING"
        status=1
    fi
done
exit $status
