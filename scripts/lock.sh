#!/usr/bin/env bash
# Print the hash lines of requirements-pi.txt / requirements-build.txt for the versions given, by downloading
# each file pip would install on the Pi (aarch64) and on x86_64, and hashing it:
#   bash scripts/lock.sh pygame-ce==2.5.8 pyserial==3.5 ...
# Paste the output into the lock file; tests/test_lock.py checks the lock against pyproject.toml.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-.venv/bin/python}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for spec in "$@"; do
    name=${spec%%==*}
    dir="$TMP/$name"
    mkdir -p "$dir"
    for platform in manylinux2014_aarch64 manylinux2014_x86_64; do
        "$PY" -m pip download -q --no-deps --only-binary=:all: --platform "$platform" --python-version 3.11 \
            --implementation cp --abi cp311 -d "$dir" "$spec" 2>/dev/null || true
    done
    if ! ls "$dir"/* >/dev/null 2>&1; then
        "$PY" -m pip download -q --no-deps --no-binary "$name" -d "$dir" "$spec"
    fi
    echo "$spec \\"
    hashes=()
    for file in "$dir"/*; do
        hashes+=("    --hash=$("$PY" -m pip hash "$file" | sed -n 's/^--hash=//p')")
    done
    (IFS=$'\n'; echo "${hashes[*]}" | sort -u | sed '$!s/$/ \\/')
done
