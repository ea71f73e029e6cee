#!/usr/bin/env bash
# Show tablepi playing a recorded match: set up the checkout, then run `tablepi demo`.
# With no screen (no X11/Wayland display and not a Raspberry Pi with a display attached) the demo runs
# headless and writes its frames as PNG files to demo-out/. Extra arguments go to `tablepi demo`.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh

have_display() {
    if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
        return 0
    fi
    # A Raspberry Pi console without a desktop: pygame draws through KMS/DRM or the framebuffer.
    if grep -qs 'Raspberry Pi' /proc/device-tree/model; then
        compgen -G '/dev/dri/card*' >/dev/null || [ -e /dev/fb0 ]
        return
    fi
    return 1
}

if have_display; then
    exec .venv/bin/tablepi demo "$@"
fi

OUT=demo-out
echo "demo: no display found: running headless, frames go to $OUT/"
.venv/bin/tablepi demo --headless --out "$OUT" "$@"
echo "demo: done: the PNG frames are in $(pwd)/$OUT/"
