#!/usr/bin/env bash
# ensure-docker.sh - make sure a Docker engine answers, starting one if we can.
#
# Idempotent:
#   * `docker info` already works                -> the engine is left alone; as root on
#                                                   Debian/Ubuntu, what the image build needs
#                                                   (debootstrap, for the offline base) is still
#                                                   installed when missing (a failed install is a
#                                                   warning: other bases may work, see
#                                                   `judge sandbox build`); exit 0.
#   * root on Debian/Ubuntu without dockerd      -> apt-get install docker.io (+ debootstrap,
#                                                   used to build the sandbox base image offline).
#   * dockerd installed but not running          -> start it detached (setsid nohup), log to
#                                                   $DOCKERD_LOG (default /tmp/dockerd.log), and
#                                                   wait up to $DOCKER_WAIT_S (default 60) seconds.
#   * anything else                              -> exit non-zero with the reason.
#
# If the host kernel has no working iptables, dockerd is retried with
# --iptables=false --ip6tables=false --bridge=none (sandboxes run with network "none" anyway).
#
# Client/daemon API: the docker CLI and the docker SDK negotiate the API version down to the
# daemon's; if an old CLI refuses to talk, set DOCKER_API_VERSION to the daemon's API version
# (printed at the end).
set -u

LOG="${DOCKERD_LOG:-/tmp/dockerd.log}"
WAIT_S="${DOCKER_WAIT_S:-60}"

say()  { printf '[ensure-docker] %s\n' "$*"; }
die()  { printf '[ensure-docker] ERROR: %s\n' "$*" >&2; exit 1; }

docker_ok() { timeout 10 docker info >/dev/null 2>&1; }

report_versions() {
    local srv cli
    srv=$(timeout 10 docker version --format '{{.Server.Version}} (API {{.Server.APIVersion}}, min API {{.Server.MinAPIVersion}})' 2>/dev/null)
    cli=$(timeout 10 docker version --format '{{.Client.Version}} (API {{.Client.APIVersion}})' 2>/dev/null)
    say "engine up: server ${srv:-?}; client $(command -v docker) ${cli:-?}"
}

if ! command -v docker >/dev/null 2>&1 && ! command -v dockerd >/dev/null 2>&1; then
    NEED_CLIENT=1
else
    NEED_CLIENT=0
fi

# What `judge sandbox build` needs beside the engine: debootstrap, for the offline base (the
# last resort after JUDGE_BASE_IMAGE, a local base and a registry pull). Installed whenever we
# can, also when Docker already runs: that is the most common machine.
build_tools_ok() { command -v debootstrap >/dev/null 2>&1; }

install_build_tools() {
    build_tools_ok && return 0
    if [ "$(id -u)" != 0 ]; then
        say "warning: debootstrap is missing and we are not root: the offline base image cannot be built here (a local or pulled base still works)"
        return 1
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        say "warning: debootstrap is missing and this is not a Debian-like system: install it by hand, or set JUDGE_BASE_IMAGE"
        return 1
    fi
    say "installing debootstrap with apt-get (needed to build the sandbox base image offline)"
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get -o DPkg::Lock::Timeout=600 update -qq && apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends debootstrap; } >/dev/null; then
        say "warning: apt-get install debootstrap failed (is the Debian mirror reachable?)"
        return 1
    fi
    build_tools_ok
}

if [ "$NEED_CLIENT" = 0 ] && docker_ok; then
    install_build_tools || true
    report_versions
    exit 0
fi

if [ "$(id -u)" != 0 ]; then
    die "no Docker engine answers and we are not root: start dockerd (or ask an admin), or add yourself to the docker group"
fi

# ---------------------------------------------------------------- install
if ! command -v dockerd >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1; then
    if ! command -v apt-get >/dev/null 2>&1; then
        die "dockerd is missing and this is not a Debian-like system (no apt-get): install Docker by hand"
    fi
    pkgs=()
    command -v dockerd     >/dev/null 2>&1 || pkgs+=(docker.io)
    command -v debootstrap >/dev/null 2>&1 || pkgs+=(debootstrap)
    say "installing ${pkgs[*]} with apt-get (non-interactive)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -qq || die "apt-get update failed (is the Debian mirror reachable?)"
    # policy-rc.d 101: do not try to start services from maintainer scripts (no systemd here)
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${pkgs[@]}" iptables ca-certificates \
        || die "apt-get install ${pkgs[*]} failed"
fi
command -v dockerd >/dev/null 2>&1 || die "dockerd still missing after install"

# ---------------------------------------------------------------- start
if pgrep -x dockerd >/dev/null 2>&1; then
    say "dockerd is already running (pid $(pgrep -x dockerd | head -1)); waiting for it to answer"
else
    extra=()
    if ! iptables -t nat -L -n >/dev/null 2>&1; then
        say "iptables does not work on this kernel: starting dockerd without iptables/bridge"
        extra=(--iptables=false --ip6tables=false --bridge=none)
    fi
    # containerd: docker.io's dockerd starts its own containerd when none is running.
    say "starting dockerd${extra[*]:+ ${extra[*]}} (log: $LOG)"
    setsid nohup dockerd "${extra[@]}" >>"$LOG" 2>&1 < /dev/null &
    disown || true
fi

for ((i = 0; i < WAIT_S; i++)); do
    if docker_ok; then
        install_build_tools || true
        report_versions
        exit 0
    fi
    if ! pgrep -x dockerd >/dev/null 2>&1; then
        # died: retry once without networking features if the log blames iptables/bridge
        if [ -z "${ENSURE_DOCKER_RETRIED:-}" ] && grep -qiE 'iptables|bridge|nat' "$LOG"; then
            say "dockerd exited (network setup failed, see $LOG); retrying without iptables/bridge"
            export ENSURE_DOCKER_RETRIED=1
            setsid nohup dockerd --iptables=false --ip6tables=false --bridge=none >>"$LOG" 2>&1 < /dev/null &
            disown || true
        else
            tail -n 20 "$LOG" >&2
            die "dockerd exited; see $LOG"
        fi
    fi
    sleep 1
done
tail -n 20 "$LOG" >&2
die "dockerd did not answer within ${WAIT_S}s; see $LOG"
