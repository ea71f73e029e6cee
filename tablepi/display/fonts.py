"""Finding a font that has the suit symbols.

pygame's built-in font draws ♠ ♥ ♦ ♣ as boxes. DejaVu Sans has them and ships with Raspberry Pi OS and Debian
(package ``fonts-dejavu-core``). The search tries an explicit path, the usual install locations, fontconfig and
pygame's own lookup, and refuses condensed variants (narrower, harder to read across a table). If nothing is
found the error names the package to install, instead of a screen of boxes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tablepi.errors import TablepiError

FONT_ENV = "TABLEPI_FONT_DIR"

_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}
_DIRS = (
    "/usr/share/fonts/truetype/dejavu",  # Debian, Raspberry Pi OS, Ubuntu
    "/usr/share/fonts/TTF",  # Arch
    "/usr/share/fonts/dejavu",  # Fedora
    "/usr/share/fonts/dejavu-sans-fonts",  # Fedora, newer
    "/usr/local/share/fonts",
    "/usr/local/share/fonts/dejavu",  # FreeBSD
    "/opt/homebrew/share/fonts",
    "/Library/Fonts",
)


class FontNotFound(TablepiError, FileNotFoundError):
    """No usable DejaVu Sans: the screen could not draw the suit symbols."""


def _usable(path: str | os.PathLike[str] | None, bold: bool) -> Path | None:
    if not path:
        return None
    p = Path(path)
    name = p.name.lower()
    if not p.is_file() or "condensed" in name or "mono" in name or "serif" in name:
        return None
    if ("bold" in name) != bold or "oblique" in name or "light" in name:
        return None
    return p


def _fc_match(bold: bool) -> Path | None:
    exe = shutil.which("fc-match")
    if exe is None:
        return None
    pattern = "DejaVu Sans:style=Bold" if bold else "DejaVu Sans:style=Book"
    try:
        out = subprocess.run([exe, "-f", "%{file}", pattern], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return _usable(out.stdout.strip(), bold) if out.returncode == 0 else None


def _pygame_match(bold: bool) -> Path | None:
    try:
        import pygame.font
    except ImportError:
        return None
    return _usable(pygame.font.match_font("dejavusans", bold=bold), bold)


def find_font(bold: bool = False, extra_dirs: tuple[str, ...] = ()) -> Path:
    """The path of DejaVu Sans (bold or book). Raises :class:`FontNotFound` naming the package to install."""
    env_dir = os.environ.get(FONT_ENV)
    dirs = ((env_dir,) if env_dir else ()) + extra_dirs + _DIRS
    for directory in dirs:
        found = _usable(Path(directory) / _FILES[bold], bold)
        if found is not None:
            return found
    for finder in (_fc_match, _pygame_match):
        found = finder(bold)
        if found is not None:
            return found
    raise FontNotFound(
        f"the font {_FILES[bold]} (DejaVu Sans) was not found; it has the card suit symbols the screen needs. "
        f"Install it with: sudo apt install fonts-dejavu-core (or put the file in ${FONT_ENV})"
    )
