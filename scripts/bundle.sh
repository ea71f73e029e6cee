#!/usr/bin/env bash
# Make an offline bundle for a table without internet: every Debian package and Python wheel systemd/install.sh
# needs, for one architecture, made on any Debian or Ubuntu computer that has internet (apt, python3 with pip,
# dpkg-dev). Then, on the table (as root, from a copy of the bundle, e.g. on a USB stick):
#
#   sudo bash BUNDLE/src/systemd/install.sh --offline BUNDLE
#
#   bash scripts/bundle.sh --arch arm64 --out tablepi-bundle-arm64          a folder
#   bash scripts/bundle.sh --arch arm64 --out tablepi-bundle-arm64 --tar    and tablepi-bundle-arm64.tar beside it
#
# What it holds:
#   debs/      the packages of systemd/debian-packages.txt with all their dependencies, from Debian bookworm
#              (main, updates, security), and their index (install.sh points apt at this folder only)
#   wheels/    the files of requirements-build.txt and requirements-pi.txt for that architecture and Python 3.11
#              (Debian bookworm's), every hash checked against the requirement files
#   src/       this checkout's committed tree (git archive HEAD), the installer included
#   BUNDLE-INFO  arch, date, the commit of src/
# Options:
#   --arch arm64|amd64|armhf  the table's Debian architecture (default: arm64, 64-bit Raspberry Pi OS)
#   --out DIR                 where to write it (default: tablepi-bundle-ARCH); must not exist yet or be a bundle
#   --tar                     also pack DIR into DIR.tar
#   --python-version X.Y      the table's Python (default 3.11, Debian bookworm and Raspberry Pi OS bookworm)
# Raspberry Pi OS ships python3-lgpio (the GPIO driver) preinstalled; it is not in Debian and not in the bundle.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
ARCH=arm64
OUT=
TAR=0
PYVER=3.11

while [ $# -gt 0 ]; do
    case "$1" in
        --arch) ARCH=${2:?--arch needs arm64, amd64 or armhf}; shift ;;
        --out) OUT=${2:?--out needs a folder}; shift ;;
        --tar) TAR=1 ;;
        --python-version) PYVER=${2:?--python-version needs X.Y}; shift ;;
        -h | --help) sed -n '2,26p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "bundle: unknown option: $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done

say() { echo "bundle: $*"; }
die() { echo "bundle: ERROR: $*" >&2; exit 1; }

case "$ARCH" in
    arm64) PLATFORMS=(manylinux2014_aarch64 linux_aarch64) ;;
    amd64) PLATFORMS=(manylinux2014_x86_64 linux_x86_64) ;;
    armhf) PLATFORMS=(manylinux2014_armv7l linux_armv7l) ;;
    *) die "--arch must be arm64, amd64 or armhf, not $ARCH" ;;
esac
OUT=${OUT:-tablepi-bundle-$ARCH}
if [ -e "$OUT" ] && [ ! -f "$OUT/BUNDLE-INFO" ]; then
    die "$OUT exists and is not a bundle: choose another --out"
fi
for tool in apt-get dpkg-scanpackages; do
    command -v "$tool" >/dev/null || die "$tool is missing (apt-get install apt dpkg-dev)"
done
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$KEYRING" ] || die "$KEYRING is missing (apt-get install debian-archive-keyring)"
PY=${PYTHON:-python3}
[ -x "$ROOT/.venv/bin/python" ] && PY=${PYTHON:-$ROOT/.venv/bin/python}

rm -rf "$OUT"
mkdir -p "$OUT/debs" "$OUT/wheels" "$OUT/src"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# 1. wheels: exactly the pinned files, hashes checked by pip (a substituted file stops here).
say "wheels for $ARCH, Python $PYVER"
platform_args=()
for platform in "${PLATFORMS[@]}"; do platform_args+=(--platform "$platform"); done
"$PY" -m pip download -q --disable-pip-version-check --no-deps "${platform_args[@]}" --python-version "$PYVER" \
    --implementation cp --abi "cp${PYVER/./}" --require-hashes \
    -r requirements-build.txt -r requirements-pi.txt -d "$OUT/wheels" 2>"$WORK/pip.log" \
    || { cat "$WORK/pip.log" >&2; die "pip download failed"; }

# 2. Debian packages: apt resolves them for $ARCH in a private state (no installed packages, so every dependency
# comes along; on the table apt takes only what is missing there).
mapfile -t DEBS < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' systemd/debian-packages.txt)
say "Debian packages for $ARCH: ${DEBS[*]} (with their dependencies)"
A=$WORK/apt
mkdir -p "$A/etc/apt/sources.list.d" "$A/etc/apt/preferences.d" "$A/var/lib/apt/lists/partial" \
    "$A/var/cache/apt/archives/partial" "$A/var/lib/dpkg" "$A/log"
touch "$A/var/lib/dpkg/status"
{
    echo "deb [signed-by=$KEYRING] http://deb.debian.org/debian bookworm main"
    echo "deb [signed-by=$KEYRING] http://deb.debian.org/debian bookworm-updates main"
    echo "deb [signed-by=$KEYRING] http://deb.debian.org/debian-security bookworm-security main"
} >"$A/etc/apt/sources.list"
APT=(-o "Dir=$A" -o "Dir::State::status=$A/var/lib/dpkg/status" -o "APT::Architecture=$ARCH"
    -o "APT::Architectures::=$ARCH" -o Debug::NoLocking=1 -o "Dir::Log=$A/log"
    -o Dir::Etc::trusted=/dev/null -o Dir::Etc::trustedparts=/dev/null)
apt-get "${APT[@]}" update -qq >"$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log" >&2; die "apt-get update failed"; }
apt-get "${APT[@]}" install -qq -y --download-only --no-install-recommends "${DEBS[@]}" >"$WORK/apt.log" 2>&1 \
    || { cat "$WORK/apt.log" >&2; die "apt could not resolve ${DEBS[*]} for $ARCH"; }
mv "$A"/var/cache/apt/archives/*.deb "$OUT/debs/"
(cd "$OUT/debs" && dpkg-scanpackages --multiversion . /dev/null 2>/dev/null >Packages)

# 3. the installer and the package: the committed tree of this checkout.
commit=unknown
if git -C "$ROOT" rev-parse --verify -q HEAD >/dev/null; then
    commit=$(git -C "$ROOT" rev-parse HEAD)
    git -C "$ROOT" archive --format=tar HEAD | tar -x -C "$OUT/src"
else
    die "$ROOT is not a git checkout: the bundle carries the committed tree"
fi
printf 'arch=%s\nmade=%s\ncommit=%s\npython=%s\n' "$ARCH" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$commit" "$PYVER" \
    >"$OUT/BUNDLE-INFO"
chmod -R a+rX "$OUT"
say "$OUT: $(find "$OUT/debs" -name '*.deb' | wc -l) packages, $(find "$OUT/wheels" -type f | wc -l) wheels," \
    "$(du -sh "$OUT" | cut -f1)"
if [ "$TAR" = 1 ]; then
    tar -cf "$OUT.tar" -C "$(dirname "$OUT")" "$(basename "$OUT")"
    say "$OUT.tar"
fi
say "on the table: sudo bash $(basename "$OUT")/src/systemd/install.sh --offline $(basename "$OUT")"
