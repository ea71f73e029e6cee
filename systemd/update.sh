#!/usr/bin/env bash
# Update an installed tablepi from its checkout: pull, reinstall, restart.
#
#   sudo bash systemd/update.sh           (from the checkout that install.sh was run from)
#
# The match journal (/var/lib/tablepi) and the configuration (/etc/tablepi) are kept; on restart the
# service replays the journal, so a match in progress goes on where it was. The pull is fast-forward only:
# local changes in the checkout stop the update instead of being merged silently.
#   --dry-run     show the steps, change nothing
#   --no-pull     reinstall the checkout as it is (e.g. after checking out a release tag)
set -euo pipefail

SOURCE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DRY_RUN=0
PULL=1
for arg in "$@"; do
    case "$arg" in
        --dry-run) DRY_RUN=1 ;;
        --no-pull) PULL=0 ;;
        -h | --help) sed -n '2,11p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "update: unknown option: $arg (try --help)" >&2; exit 2 ;;
    esac
done

# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if [ "$PULL" = 1 ]; then
    # The checkout usually belongs to the login user, not root: pull as its owner.
    owner=$(stat -c %U "$SOURCE")
    if [ "$owner" != "$(id -un)" ] && command -v runuser >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
        run runuser -u "$owner" -- git -C "$SOURCE" pull --ff-only
    else
        run git -C "$SOURCE" pull --ff-only
    fi
fi
# install.sh is idempotent: it upgrades the package, refreshes unit and udev rule, keeps config and journal,
# and restarts the service.
install_args=()
[ "$DRY_RUN" = 1 ] && install_args+=(--dry-run)
exec bash "$SOURCE/systemd/install.sh" "${install_args[@]}"
