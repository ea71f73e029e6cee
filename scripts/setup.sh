#!/usr/bin/env bash
# Prepare a checkout of tablepi for development, tests and the demo.
#
# Idempotent: run it as often as you like; a second run only checks.
#   1. Debian packages the tests need (pcscd + virtual reader driver, PC/SC headers for pyscard, socat,
#      DejaVu fonts for the suit symbols, a C compiler if there is none). Installed with apt-get when
#      running as root; otherwise the script says exactly what to install and stops.
#   2. A virtualenv in .venv (Python 3.11 or newer) with the package installed editable with the
#      dev and pcsc extras (pyscard is compiled from source, it has no Linux wheel).
#
# Options:
#   --checkers   also install the optional checkers the test suite uses when present
#                (shellcheck, systemd-analyze); best effort, never fatal.
#   --appliance  also install what the appliance test needs (scripts/appliance.sh: QEMU for arm64 and amd64,
#                qemu-user for building an arm64 system, mmdebstrap and arch-test, dpkg-dev for the offline bundle).
# Environment:
#   PYTHON=/path/to/python3.x   interpreter to build .venv from (default: newest python3.1x found)
#   TABLEPI_SETUP_FORCE=1       reinstall the Python package even if nothing changed
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
VENV="$ROOT/.venv"
STAMP="$VENV/.tablepi-setup-stamp"

REQUIRED_DEBS=(libpcsclite-dev pcscd vsmartcard-vpcd socat fonts-dejavu-core xvfb xdotool imagemagick)
# The feed and tournament tests: a real broker and a real headless browser.
REQUIRED_DEBS+=(mosquitto mosquitto-clients chromium chromium-driver openssl)
# The offline bundle's test (scripts/bundle.sh indexes the packages it downloads).
REQUIRED_DEBS+=(dpkg-dev debian-archive-keyring)
# The players' pages: a real QR decoder (zbarimg) reads the code the screen shows.
REQUIRED_DEBS+=(zbar-tools)
CHECKER_DEBS=(shellcheck systemd)
WITH_CHECKERS=0
APPLIANCE_DEBS=(qemu-system-arm qemu-system-x86 qemu-user-static qemu-utils binfmt-support mmdebstrap
    e2fsprogs git arch-test)
WITH_APPLIANCE=0

for arg in "$@"; do
    case "$arg" in
        --checkers) WITH_CHECKERS=1 ;;
        --appliance) WITH_APPLIANCE=1 ;;
        -h | --help) sed -n '2,22p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "setup: unknown option: $arg (try --help)" >&2; exit 2 ;;
    esac
done

say() { echo "setup: $*"; }
die() { echo "setup: ERROR: $*" >&2; exit 1; }

LOG=$(mktemp "${TMPDIR:-/tmp}/tablepi-setup.XXXXXX")
trap 'rm -f "$LOG"' EXIT

# Run a command quietly; on failure show what it printed (the last lines are where the reason is).
quiet() {
    local what=$1
    shift
    if ! "$@" >"$LOG" 2>&1; then
        echo "setup: ERROR: $what failed: $*" >&2
        tail -n 40 "$LOG" >&2
        exit 1
    fi
}

deb_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

APT_UPDATED=0
apt_install() {
    if [ "$APT_UPDATED" = 0 ]; then
        quiet "apt-get update" apt-get update -qq
        APT_UPDATED=1
    fi
    quiet "apt-get install" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "$@"
}

# ---------------------------------------------------------------- 1. system packages
system_packages() {
    local wanted=("${REQUIRED_DEBS[@]}")
    command -v gcc >/dev/null 2>&1 || wanted+=(build-essential)
    [ "$WITH_APPLIANCE" = 1 ] && wanted+=("${APPLIANCE_DEBS[@]}")

    if ! command -v dpkg-query >/dev/null 2>&1; then
        say "not a Debian system: skipping apt; make sure these (or their equivalents) are installed:"
        say "  ${wanted[*]}"
        return 0
    fi

    local missing=() pkg
    for pkg in "${wanted[@]}"; do
        deb_installed "$pkg" || missing+=("$pkg")
    done

    if [ "${#missing[@]}" -eq 0 ]; then
        say "system packages present"
    elif [ "$(id -u)" -eq 0 ]; then
        say "installing system packages: ${missing[*]}"
        apt_install "${missing[@]}"
    else
        die "missing system packages: ${missing[*]}
       install them as root, then run this script again:
         sudo apt-get update && sudo apt-get install -y ${missing[*]}"
    fi

    if [ "$WITH_CHECKERS" = 1 ]; then
        local extra=()
        for pkg in "${CHECKER_DEBS[@]}"; do
            deb_installed "$pkg" || extra+=("$pkg")
        done
        if [ "${#extra[@]}" -gt 0 ]; then
            if [ "$(id -u)" -eq 0 ]; then
                say "installing checkers: ${extra[*]}"
                if ! (apt_install "${extra[@]}"); then
                    say "could not install ${extra[*]}: the tests that need them will be skipped"
                fi
            else
                say "optional checkers not installed (${extra[*]}): the tests that need them will be skipped"
            fi
        fi
    fi

    # The tests run their own pcscd in the foreground; a system one owns the same socket.
    if command -v systemctl >/dev/null 2>&1 \
        && systemctl is-active --quiet pcscd.socket pcscd.service 2>/dev/null; then
        say "note: the system pcscd (systemd) is running; it is left alone."
        say "      The PC/SC end-to-end tests start their own pcscd and need the system one stopped:"
        say "      sudo systemctl stop pcscd.socket pcscd.service"
    fi
}

# ---------------------------------------------------------------- 2. Python virtualenv
python_ok() {
    "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' >/dev/null 2>&1
}

find_python() {
    if [ -n "${PYTHON:-}" ]; then
        python_ok "$PYTHON" || die "PYTHON=$PYTHON is not a working Python 3.11 or newer"
        echo "$PYTHON"
        return
    fi
    local candidate
    for candidate in python3.13 python3.12 python3.11 python3; do
        if command -v "$candidate" >/dev/null 2>&1 && python_ok "$candidate"; then
            command -v "$candidate"
            return
        fi
    done
    die "no Python 3.11 or newer found (set PYTHON=/path/to/python3.11 or install python3)"
}

make_venv() {
    if [ -x "$VENV/bin/python" ] && python_ok "$VENV/bin/python" \
        && "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
        return 0
    fi
    local py
    py=$(find_python)
    say "creating .venv with $("$py" -c 'import sys; print("Python %d.%d.%d" % sys.version_info[:3])')"
    rm -rf "$VENV"
    if ! "$py" -m venv "$VENV" >"$LOG" 2>&1; then
        rm -rf "$VENV"
        if grep -q -i 'ensurepip' "$LOG" && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
            local ver
            ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
            say "installing python$ver-venv (venv support is a separate Debian package)"
            apt_install "python$ver-venv"
            quiet "python -m venv" "$py" -m venv "$VENV"
        else
            cat "$LOG" >&2
            die "could not create .venv with $py (on Debian: apt-get install python3-venv)"
        fi
    fi
}

install_package() {
    local want
    want=$({ sha256sum pyproject.toml setup.py tablepi/analysis/_kernel.c; "$VENV/bin/python" -VV; } \
        | sha256sum | cut -d' ' -f1)
    if [ "${TABLEPI_SETUP_FORCE:-0}" != 1 ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] \
        && "$VENV/bin/python" -c 'import tablepi, smartcard, pytest, paho.mqtt, starlette, uvicorn, selenium' >/dev/null 2>&1; then
        say "python environment up to date (.venv)"
        return 0
    fi
    say "installing tablepi into .venv with extras dev,pcsc (pyscard compiles; about a minute)"
    export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
    # pygame and pygame-ce install the same `pygame` module; removing one deletes the other's files: take both
    # out before installing the pinned pygame-ce (pyproject.toml says why).
    if "$VENV/bin/python" -m pip show -q pygame >/dev/null 2>&1; then
        say "replacing pygame with pygame-ce"
        quiet "pip uninstall" "$VENV/bin/python" -m pip uninstall -q -y pygame pygame-ce
    fi
    quiet "pip install" "$VENV/bin/python" -m pip install -q -e "${ROOT}[dev,pcsc]"
    echo "$want" >"$STAMP"
}

system_packages
make_venv
install_package
say "ready: $VENV"
