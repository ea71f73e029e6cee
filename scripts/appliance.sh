#!/usr/bin/env bash
# The appliance test: tablepi as a bar owner gets it, from a blank Debian bookworm system to a refereed trick on a
# KMS screen, in QEMU (docs/install.md, "The appliance test"; the README has the figures).
#
#   bash scripts/appliance.sh --arch arm64            build (or reuse) the system, then run tests/appliance
#   bash scripts/appliance.sh --arch amd64 --fresh-base
#   bash scripts/appliance.sh --arch arm64 --prepare  only build/refresh the cached system and bundle, print paths
#
# 1. A Debian bookworm system from Debian's packages (mmdebstrap; arm64 through qemu-user), its kernel and a
#    small initramfs (MODULES=list), as a raw disk image, cached outside the checkout in
#    $TABLEPI_APPLIANCE_CACHE (default /var/cache/tablepi-appliance)/<arch>-<variant>-<hash>: the hash covers the
#    package list and this script, so a changed list or kernel package builds a new one. Never written by a run:
#    each run boots a qcow2 overlay on it.
#    --variant full (default): the packages of systemd/debian-packages.txt preinstalled (what a run needs
#    fastest); --variant bare: without them, so install.sh installs them from the bundle (what catches a
#    missing package; slower).
# 2. The offline bundle (scripts/bundle.sh) for the architecture, cached the same way: the guest has no network.
# 3. pytest tests/appliance with the paths above (see tests/appliance/test_appliance.py for every check).
#
# Options:
#   --arch arm64|amd64   the guest (default arm64, the Pi's); everything runs under TCG (software emulation)
#   --variant full|bare  see 1.
#   --fresh-base         rebuild the system image (and the bundle) even if cached
#   --prepare            stop after 1 and 2; print the paths as KEY=VALUE lines
#   --keep DIR           keep the run's folder (overlay, console log, screenshots) in DIR
# Needs root (mmdebstrap into a folder, binfmt_misc for arm64) and: mmdebstrap qemu-system-arm qemu-system-x86
# qemu-user-static qemu-utils e2fsprogs dpkg-dev (scripts/setup.sh --appliance installs them).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
ARCH=arm64
VARIANT=full
FRESH=0
PREPARE=0
KEEP=
PYTEST_ARGS=()

while [ $# -gt 0 ]; do
    case "$1" in
        --arch) ARCH=${2:?--arch needs arm64 or amd64}; shift ;;
        --variant) VARIANT=${2:?--variant needs full or bare}; shift ;;
        --fresh-base) FRESH=1 ;;
        --prepare) PREPARE=1 ;;
        --keep) KEEP=${2:?--keep needs a folder}; shift ;;
        --) shift; PYTEST_ARGS=("$@"); break ;;
        -h | --help) sed -n '2,29p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "appliance: unknown option: $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done

say() { echo "appliance: $*"; }
die() { echo "appliance: ERROR: $*" >&2; exit 1; }

case "$ARCH" in
    arm64) KERNEL_PKG=linux-image-arm64 ;;
    amd64) KERNEL_PKG=linux-image-amd64 ;;
    *) die "--arch must be arm64 or amd64, not $ARCH" ;;
esac
case "$VARIANT" in full | bare) ;; *) die "--variant must be full or bare, not $VARIANT" ;; esac
[ "$(id -u)" -eq 0 ] || die "run as root (mmdebstrap builds into a folder; arm64 needs binfmt_misc)"
for tool in mmdebstrap qemu-img mkfs.ext4 dpkg-scanpackages; do
    command -v "$tool" >/dev/null || die "$tool is missing: bash scripts/setup.sh --appliance"
done

CACHE=${TABLEPI_APPLIANCE_CACHE:-/var/cache/tablepi-appliance}
mkdir -p "$CACHE"
mapfile -t DEBS < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' systemd/debian-packages.txt)
# The system: init, udev, the kernel, Python (Raspberry Pi OS Lite has all of these), the guest agent through
# which the test runs commands, kmod and procps for the checks.
SYSTEM=(systemd-sysv udev dbus kmod procps "$KERNEL_PKG" initramfs-tools python3 qemu-guest-agent)
INCLUDE=("${SYSTEM[@]}")
[ "$VARIANT" = full ] && INCLUDE+=("${DEBS[@]}")
HASH=$( { echo "${INCLUDE[*]}"; sed -n '/^build_base()/,/^}/p' "${BASH_SOURCE[0]}" | grep -v '^[[:space:]]*#'; } | sha256sum | cut -c1-12)
BASE=$CACHE/$ARCH-$VARIANT-$HASH
BUNDLE_HASH=$( { cat systemd/debian-packages.txt requirements-pi.txt requirements-build.txt scripts/bundle.sh; } \
    | sha256sum | cut -c1-12)
BUNDLE=$CACHE/bundle-$ARCH-$BUNDLE_HASH

binfmt() {
    [ "$ARCH" = arm64 ] || return 0
    [ "$(uname -m)" = aarch64 ] && return 0
    if [ ! -e /proc/sys/fs/binfmt_misc/register ]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || die "cannot mount binfmt_misc"
    fi
    if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
        if command -v update-binfmts >/dev/null; then
            update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
        fi
        if [ -x /usr/lib/systemd/systemd-binfmt ]; then
            /usr/lib/systemd/systemd-binfmt >/dev/null 2>&1 || true
        fi
    fi
    [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || die "qemu-aarch64 is not registered in binfmt_misc" \
        "(apt-get install qemu-user-static binfmt-support)"
}

build_base() {
    local tmp=$BASE.tmp rootfs
    rm -rf "$tmp"
    mkdir -p "$tmp"
    rootfs=$tmp/rootfs
    say "building the $ARCH system ($VARIANT): ${INCLUDE[*]}"
    # MODULES=list: the initramfs holds only what finds the root disk (MODULES=most takes ~10 min per build under
    # qemu-user). Set before the kernel is installed, so the initramfs is built once.
    # The reader of the test is QEMU's usb-serial (an FTDI, ttyUSB): it cannot present the Pico's USB identity, so
    # a rule beside the project's gives it the same name and group (the project's own rule is installed as is).
    # The hooks are run by mmdebstrap with the new root as $1 (single quotes: not expanded here).
    # shellcheck disable=SC2016
    mmdebstrap --variant=minbase --architectures="$ARCH" --include="$(IFS=,; echo "${INCLUDE[*]}")" \
        --aptopt='APT::Install-Recommends "false"' \
        --setup-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d"' \
        --setup-hook='printf "MODULES=list\nCOMPRESS=gzip\n" > "$1/etc/initramfs-tools/conf.d/appliance.conf"' \
        --setup-hook='printf "virtio_pci\nvirtio_blk\next4\ncrc32c_generic\n" > "$1/usr/share/initramfs-tools/modules.d/appliance"' \
        --customize-hook='echo tablepi-appliance > "$1/etc/hostname"' \
        --customize-hook='echo "/dev/vda / ext4 defaults,errors=remount-ro 0 1" > "$1/etc/fstab"' \
        --customize-hook='mkdir -p "$1/mnt/share"' \
        --customize-hook='printf "%s\n" "SUBSYSTEM==\"tty\", ATTRS{idVendor}==\"0403\", SYMLINK+=\"tablepi-reader\", GROUP=\"dialout\", MODE=\"0660\", ENV{ID_MM_DEVICE_IGNORE}=\"1\", TAG+=\"systemd\"" > "$1/etc/udev/rules.d/98-appliance-reader.rules"' \
        --customize-hook='chroot "$1" passwd -d root' \
        --customize-hook='chroot "$1" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer' \
        --customize-hook='cp -L "$1/vmlinuz" "$1/initrd.img" "$1/.."' \
        bookworm "$rootfs" http://deb.debian.org/debian >"$tmp/mmdebstrap.log" 2>&1 \
        || { tail -n 40 "$tmp/mmdebstrap.log" >&2; die "mmdebstrap failed (log: $tmp/mmdebstrap.log)"; }
    # Room for the virtualenv, pyscard's build and the packages install.sh may add.
    local size_mb
    size_mb=$(( $(du -sm "$rootfs" | cut -f1) + 2500 ))
    mkfs.ext4 -q -L tablepi -d "$rootfs" "$tmp/base.raw" "${size_mb}M"
    rm -rf "$rootfs"
    echo "${INCLUDE[*]}" >"$tmp/packages"
    rm -rf "$BASE"
    mv "$tmp" "$BASE"
}

# The whole run is one function: bash reads it entirely before running it (an edit to this file during a
# long build cannot change what runs).
main() {
    binfmt
    if [ "$FRESH" = 1 ] || [ ! -f "$BASE/base.raw" ]; then
        started=$(date +%s)
        build_base
        say "system built in $(( $(date +%s) - started )) s: $BASE ($(du -sh --apparent-size "$BASE/base.raw" | cut -f1)" \
            "apparent, $(du -sh "$BASE/base.raw" | cut -f1) used)"
        echo "$(( $(date +%s) - started ))" >"$BASE/build-seconds"
    else
        say "cached system: $BASE"
    fi
    if [ "$FRESH" = 1 ] || [ ! -f "$BUNDLE/BUNDLE-INFO" ]; then
        started=$(date +%s)
        bash scripts/bundle.sh --arch "$ARCH" --out "$BUNDLE.tmp" >/dev/null
        rm -rf "$BUNDLE"
        mv "$BUNDLE.tmp" "$BUNDLE"
        say "bundle made in $(( $(date +%s) - started )) s: $BUNDLE"
    else
        say "cached bundle: $BUNDLE"
    fi
    # Cached systems and bundles no longer named by the lists above are old: keep the cache from growing.
    find "$CACHE" -mindepth 1 -maxdepth 1 -name "$ARCH-$VARIANT-*" ! -path "$BASE" -exec rm -rf {} +
    find "$CACHE" -mindepth 1 -maxdepth 1 -name "bundle-$ARCH-*" ! -path "$BUNDLE" -exec rm -rf {} +

    if [ "$PREPARE" = 1 ]; then
        echo "BASE=$BASE"
        echo "BUNDLE=$BUNDLE"
        exit 0
    fi
    PY=$ROOT/.venv/bin/python
    [ -x "$PY" ] || die "no .venv: bash scripts/setup.sh first"
    export TABLEPI_APPLIANCE_ARCH=$ARCH TABLEPI_APPLIANCE_BASE=$BASE TABLEPI_APPLIANCE_BUNDLE=$BUNDLE
    [ -n "$KEEP" ] && export TABLEPI_APPLIANCE_KEEP=$KEEP
    exec "$PY" -m pytest -p no:cacheprovider -v tests/appliance -m slow "${PYTEST_ARGS[@]}"
}

main
