#!/usr/bin/env bash
# Update an installed tablepi from its checkout: pull, reinstall, restart.
#
#   sudo bash /opt/tablepi/src/systemd/update.sh      (a root-owned checkout: the update refuses any other)
#
# The match journal (/var/lib/tablepi) and the configuration (/etc/tablepi) are kept; on restart the
# service replays the journal, so a match in progress goes on where it was. The pull is fast-forward only:
# local changes in the checkout stop the update instead of being merged silently.
#   --dry-run     show the steps, change nothing
#   --no-pull     reinstall the checkout as it is (e.g. after checking out a release tag)
#   --offline BUNDLE   reinstall with packages and wheels from a bundle (install.sh --offline; scripts/bundle.sh)
set -euo pipefail

SOURCE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DRY_RUN=0
PULL=1
BUNDLE=
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --no-pull) PULL=0 ;;
        --offline) BUNDLE=${2:?--offline needs a bundle (scripts/bundle.sh)}; shift ;;
        -h | --help) sed -n '2,12p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "update: unknown option: $1 (try --help)" >&2; exit 2 ;;
    esac
    shift
done

# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Everything below runs as root: git's hooks, install.sh, pip building the package. None of it may come from files
# a non-root user could change, or that user gets root. So the checkout (and every folder above it) must belong to
# root and be writable by nobody else; keep it in e.g. /opt/tablepi/src (docs/install.md).
if [ "$(id -u)" -eq 0 ] || [ "${TABLEPI_UPDATE_CHECK_OWNER:-0}" = 1 ]; then
    untrusted=$(find "$SOURCE" \( -type l -prune \) -o \( ! -user root -o -perm /022 \) -print -quit 2>/dev/null || true)
    dir=$SOURCE
    while [ -z "$untrusted" ] && [ "$dir" != / ]; do
        dir=$(dirname "$dir")
        if [ "$(stat -c %u "$dir")" != 0 ] || { [ -n "$(find "$dir" -maxdepth 0 -perm /022)" ] && [ ! -k "$dir" ]; }; then
            untrusted=$dir
        fi
    done
    if [ -n "$untrusted" ]; then
        echo "update: refusing to run as root: $untrusted (owner $(stat -c %U "$untrusted")) can be changed by a" \
            "user other than root, and this update would run what it holds as root." >&2
        echo "update: keep the checkout root-owned (sudo git clone ... /opt/tablepi/src; sudo chown -R root:root" \
            "DIR; chmod -R go-w DIR), then run its systemd/update.sh with sudo (docs/install.md)." >&2
        exit 1
    fi
fi
if [ "$PULL" = 1 ]; then
    run git -C "$SOURCE" pull --ff-only
fi
# install.sh is idempotent: it upgrades the package, refreshes unit and udev rule, keeps config and journal,
# and restarts the service.
install_args=()
[ "$DRY_RUN" = 1 ] && install_args+=(--dry-run)
[ -n "$BUNDLE" ] && install_args+=(--offline "$BUNDLE")
exec bash "$SOURCE/systemd/install.sh" "${install_args[@]}"
