#!/usr/bin/env bash
# Run everything CI runs: setup, the whole pytest suite (slow end-to-end tests included), ruff, mypy --strict
# on the package, and the appliance test (scripts/appliance.sh: a Debian system built from Debian's packages,
# tablepi installed in it offline by install.sh, booted in QEMU with a KMS screen, touch and a reader).
# TABLEPI_APPLIANCE chooses its guest: amd64 (the default: its system builds natively in minutes, so a fresh
# machine passes within CI's time), arm64 (the Pi's; its system builds under qemu-user, ~40 minutes cold, then
# cached), or off. It needs root (it builds a system image); without root it is reported as not run. Every step
# runs even if an earlier one failed, so one run shows all problems; the exit status is non-zero if any step
# failed. Extra arguments go to pytest (e.g. -x, -k name), and then the appliance test is not run.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

APPLIANCE=${TABLEPI_APPLIANCE:-amd64}
[ $# -gt 0 ] && APPLIANCE=off
setup_args=(--checkers)
[ "$APPLIANCE" != off ] && [ "$(id -u)" -eq 0 ] && setup_args+=(--appliance)
bash scripts/setup.sh "${setup_args[@]}" || { echo "test: setup failed; nothing was tested" >&2; exit 1; }

PY=.venv/bin/python
failed=()
results=()

step() {
    local name=$1
    shift
    echo
    echo "== $name: $*"
    "$@"
    local rc=$?
    if [ "$name" = pytest ] && [ "$rc" -eq 5 ]; then
        echo "test: pytest collected no tests: that is a failure (a suite that runs nothing proves nothing)" >&2
        rc=1
    fi
    if [ "$rc" -eq 0 ]; then
        results+=("$name=ok")
    else
        results+=("$name=FAILED($rc)")
        failed+=("$name")
    fi
}

step pytest "$PY" -m pytest -q "$@"
step ruff "$PY" -m ruff check tablepi tests bench

# mypy --strict on the whole package (hardware libraries without type hints are declared in pyproject.toml).
step mypy "$PY" -m mypy --strict tablepi

# The appliance: root only (it builds a system image and boots it); its system is cached between runs.
if [ "$APPLIANCE" != off ]; then
    if [ "$(id -u)" -eq 0 ]; then
        step appliance bash scripts/appliance.sh --arch "$APPLIANCE"
    else
        echo "test: the appliance test needs root (it builds and boots a system image): not run" >&2
        results+=("appliance=not-run(not-root)")
    fi
fi

echo
if [ "${#failed[@]}" -eq 0 ]; then
    echo "test summary: ALL OK (${results[*]})"
    exit 0
fi
echo "test summary: FAILED: ${failed[*]} (${results[*]})"
exit 1
