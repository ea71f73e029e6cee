#!/usr/bin/env bash
# Install tablepi as a service on Raspberry Pi OS Bookworm (or any Debian bookworm with systemd).
#
#   sudo bash systemd/install.sh            from a checkout of tablepi (e.g. /home/pi/tablepi)
#   sudo bash systemd/install.sh --offline BUNDLE     without internet, from a bundle made by scripts/bundle.sh
#
# Idempotent: running it again upgrades the package from the checkout, refreshes the unit and udev rule, and
# never touches /etc/tablepi/tablepi.toml once it exists, nor the match journal in /var/lib/tablepi.
#
# Steps: Debian packages (systemd/debian-packages.txt) -> system user 'tablepi' and its groups -> virtualenv
# /opt/tablepi/venv with the package (copied, not editable: the service cannot see /home) -> default config ->
# unit, udev rule, serial and display drivers loaded at boot -> enable and (re)start the service.
#
# Options:
#   --dry-run          print every step, change nothing
#   --destdir DIR      stage the files under DIR (also: DESTDIR=DIR); system steps (apt, users, systemctl,
#                      udevadm) are skipped, as for building a package
#   --no-venv          skip the virtualenv (with --destdir: stage only the files)
#   --no-start         install and enable, but do not (re)start the service now
#   --source DIR       the tablepi checkout to install (default: the one this script is in)
#   --offline BUNDLE   take the Debian packages and Python wheels from BUNDLE (a folder or .tar made by
#                      scripts/bundle.sh for this machine's architecture), never from the internet
set -euo pipefail

SOURCE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DESTDIR=${DESTDIR:-}
DRY_RUN=0
WITH_VENV=1
START=1
BUNDLE=

while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --destdir) DESTDIR=${2:?--destdir needs a directory}; shift ;;
        --no-venv) WITH_VENV=0 ;;
        --no-start) START=0 ;;
        --source) SOURCE=$(cd "${2:?--source needs a directory}" && pwd); shift ;;
        --offline) BUNDLE=${2:?--offline needs a bundle (scripts/bundle.sh)}; shift ;;
        -h | --help) sed -n '2,26p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "install: unknown option: $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done

PREFIX=/opt/tablepi
VENV=$PREFIX/venv
CONF_DIR=/etc/tablepi
UNIT_DIR=/etc/systemd/system
UDEV_DIR=/etc/udev/rules.d
USER_NAME=tablepi
MODULES_DIR=/etc/modules-load.d
GROUPS_WANTED=(dialout gpio video render input plugdev)

say() { echo "install: $*"; }
die() { echo "install: ERROR: $*" >&2; exit 1; }

# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

LIVE=1 # 0 when staging into DESTDIR: nothing on the running system may change
[ -n "$DESTDIR" ] && LIVE=0

if [ ! -f "$SOURCE/pyproject.toml" ] || [ ! -f "$SOURCE/systemd/tablepi.service" ]; then
    die "$SOURCE is not a tablepi checkout (no pyproject.toml / systemd/tablepi.service)"
fi
if [ "$LIVE" = 1 ] && [ "$DRY_RUN" = 0 ] && [ "$(id -u)" -ne 0 ]; then
    die "run as root: sudo bash $0 (or --dry-run to see the steps, --destdir DIR to stage files)"
fi

# The Debian packages, one per line (systemd/debian-packages.txt says why each is there).
mapfile -t DEBS < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SOURCE/systemd/debian-packages.txt")

# --offline: the bundle's folder (a .tar is unpacked into a temporary folder first), checked against this machine.
if [ -n "$BUNDLE" ]; then
    # The bundle is only read (a USB stick, a read-only share): what the install writes goes into a scratch folder.
    SCRATCH=$(mktemp -d)
    trap 'rm -rf "$SCRATCH"' EXIT
    if [ -f "$BUNDLE" ]; then
        tar -xf "$BUNDLE" -C "$SCRATCH" || die "cannot unpack the bundle $BUNDLE"
        BUNDLE=$(find "$SCRATCH" -maxdepth 2 -name BUNDLE-INFO -printf '%h\n' | head -n 1)
        [ -n "$BUNDLE" ] || die "the tar file holds no tablepi bundle (no BUNDLE-INFO): make one with scripts/bundle.sh"
    fi
    [ -f "$BUNDLE/BUNDLE-INFO" ] || die "$BUNDLE is not a tablepi bundle (no BUNDLE-INFO): make one with scripts/bundle.sh"
    BUNDLE=$(cd "$BUNDLE" && pwd)
    bundle_arch=$(sed -n 's/^arch=//p' "$BUNDLE/BUNDLE-INFO")
    if [ "$LIVE" = 1 ] && [ "$bundle_arch" != "$(dpkg --print-architecture)" ]; then
        die "the bundle $BUNDLE is for $bundle_arch, this machine is $(dpkg --print-architecture): scripts/bundle.sh --arch $(dpkg --print-architecture)"
    fi
    say "offline: packages and wheels from $BUNDLE ($(sed -n 's/^made=//p' "$BUNDLE/BUNDLE-INFO"))"
fi

on_a_pi() { grep -qs 'Raspberry Pi' /proc/device-tree/model; }

system_packages() {
    local missing=() pkg
    local wanted=("${DEBS[@]}")
    # gpiozero's pin driver on Bookworm; packaged by Raspberry Pi OS only.
    on_a_pi && wanted+=(python3-lgpio)
    for pkg in "${wanted[@]}"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        say "system packages present"
        return
    fi
    say "installing system packages: ${missing[*]}"
    local apt=()
    if [ -n "$BUNDLE" ]; then
        # Only the bundle's own package index (no other source, no list of another source dropped).
        local list="$SCRATCH/bundle.list"
        echo "deb [trusted=yes] file:$BUNDLE/debs ./" >"$list"
        apt=(-o "Dir::Etc::SourceList=$list" -o Dir::Etc::SourceParts=/nonexistent -o APT::Get::List-Cleanup=false)
    fi
    run apt-get "${apt[@]}" update -qq
    run env DEBIAN_FRONTEND=noninteractive apt-get "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}"
}

user_and_groups() {
    local group
    for group in "${GROUPS_WANTED[@]}"; do
        # Raspberry Pi OS has them all; on other systems create the missing ones so the unit can start.
        getent group "$group" >/dev/null || run groupadd --system "$group"
    done
    if id -u "$USER_NAME" >/dev/null 2>&1; then
        say "user $USER_NAME exists"
    else
        run useradd --system --user-group --home-dir /var/lib/tablepi --no-create-home \
            --shell /usr/sbin/nologin --comment "tablepi Konter a Matt table" "$USER_NAME"
    fi
    # Only the service's groups are managed here (the unit also lists them as SupplementaryGroups).
    run usermod --append --groups "$(IFS=,; echo "${GROUPS_WANTED[*]}")" "$USER_NAME"
}

python_env() {
    local venv=$DESTDIR$VENV
    local python=${PYTHON:-python3}
    "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' \
        || die "$python is older than 3.11"
    if [ ! -x "$venv/bin/python" ]; then
        say "creating $venv"
        # System site-packages: Raspberry Pi OS ships the GPIO driver (python3-lgpio) as a Debian package.
        run "$python" -m venv --system-site-packages "$venv"
    fi
    say "installing tablepi from $SOURCE into $venv"
    # pygame's wheel has no KMSDRM video driver; pygame-ce (the dependency) has. Both are the `pygame` module.
    if "$venv/bin/python" -m pip show -q pygame >/dev/null 2>&1; then
        run "$venv/bin/python" -m pip uninstall -q -y pygame pygame-ce
    fi
    # Exact versions, every file's hash checked (requirements-*.txt): nothing unpinned is fetched, nothing is
    # resolved at install time. Build tools first, then the dependencies and tablepi built without fetching more
    # (pyscard compiles with the pinned swig; the venv's bin/ on PATH is where that swig is).
    local pip=("$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps)
    [ -n "$BUNDLE" ] && pip+=(--no-index --find-links "$BUNDLE/wheels")
    run "${pip[@]}" --require-hashes -r "$SOURCE/requirements-build.txt"
    run env PATH="$venv/bin:$PATH" "${pip[@]}" --require-hashes --no-build-isolation -r "$SOURCE/requirements-pi.txt"
    run "${pip[@]}" --no-build-isolation --no-index --force-reinstall "$SOURCE"
    # The docs the unit points to.
    run install -D -m 0644 "$SOURCE/docs/install.md" "$DESTDIR$PREFIX/docs/install.md"
}

files() {
    run install -d -m 0755 "$DESTDIR$UNIT_DIR" "$DESTDIR$UDEV_DIR"
    run install -m 0644 "$SOURCE/systemd/tablepi.service" "$DESTDIR$UNIT_DIR/tablepi.service"
    run install -m 0644 "$SOURCE/systemd/99-tablepi-reader.rules" "$DESTDIR$UDEV_DIR/99-tablepi-reader.rules"
    # The serial and display drivers loaded at boot, before the service starts: the unit's DeviceAllow=char-...
    # is resolved then, and a driver loaded later would stay forbidden (tablepi-modules.conf says more).
    run install -D -m 0644 "$SOURCE/systemd/tablepi-modules.conf" "$DESTDIR$MODULES_DIR/tablepi.conf"
    run install -d -m 0750 "$DESTDIR$CONF_DIR"
    if [ -e "$DESTDIR$CONF_DIR/tablepi.toml" ]; then
        say "keeping the existing $CONF_DIR/tablepi.toml"
    else
        say "installing the default $CONF_DIR/tablepi.toml"
        run install -m 0640 "$SOURCE/tablepi/default-config.toml" "$DESTDIR$CONF_DIR/tablepi.toml"
    fi
    if [ "$LIVE" = 1 ]; then
        run chgrp "$USER_NAME" "$CONF_DIR" "$CONF_DIR/tablepi.toml"
    fi
    feed_network
}

# The unit allows no network beyond localhost; the MQTT feed ([feed] enabled) and the players' pages on the bar's
# network ([web] enabled) need it: a drop-in says so.
feed_network() {
    local dropin=$DESTDIR$UNIT_DIR/tablepi.service.d/feed-network.conf
    if section_enabled feed || section_enabled web; then
        say "[feed] or [web] is enabled: allowing the service network access (tablepi.service.d/feed-network.conf)"
        run install -D -m 0644 "$SOURCE/systemd/feed-network.conf" "$dropin"
    elif [ -e "$dropin" ]; then
        run rm -f "$dropin"
    fi
}

# Whether the installed configuration's [$1] section says enabled = true.
section_enabled() {
    grep -Eqs '^[[:space:]]*enabled[[:space:]]*=[[:space:]]*true' \
        <(sed -n "/^\[$1\]/,/^\[/p" "$DESTDIR$CONF_DIR/tablepi.toml")
}

activate() {
    run systemctl restart systemd-modules-load.service
    run udevadm control --reload-rules
    run udevadm trigger --subsystem-match=tty --action=change
    run systemctl daemon-reload
    run systemctl enable tablepi.service
    if [ "$START" = 1 ]; then
        run systemctl restart tablepi.service
        say "started; follow it with: journalctl -u tablepi -f"
    fi
}

if [ "$DRY_RUN" = 1 ]; then
    say "dry run: nothing is changed"
fi
if [ "$LIVE" = 1 ]; then
    system_packages
    user_and_groups
else
    say "staging into $DESTDIR: skipping apt, user and group creation, systemctl and udevadm"
fi
if [ "$WITH_VENV" = 1 ]; then
    python_env
fi
files
if [ "$LIVE" = 1 ]; then
    activate
fi
say "done"
