"""Load the firmware's MicroPython sources into this CPython process, unchanged.

On the board the firmware files sit side by side at the top of the filesystem and import each other by
plain names (``import mfrc522``). Here those names are generic (``config``, ``link``), so they are imported
with the firmware directory on sys.path only for the moment of loading and then taken out of sys.modules
again: the caller gets the module objects, and nothing else in the process can import them by accident.
Each call loads fresh copies, so two emulated boards never share module state.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

from tablepi.errors import ConfigError

MODULES = ("config", "mfrc522", "scanner", "link", "app")


def default_firmware_dir() -> Path:
    """The firmware/ directory of the source tree this package was loaded from."""
    return Path(__file__).resolve().parents[2] / "firmware"


def load_firmware(firmware_dir: Path | str | None = None) -> SimpleNamespace:
    """Import the firmware modules from ``firmware_dir``; returns a namespace ``fw.mfrc522``, ``fw.app``..."""
    directory = Path(firmware_dir) if firmware_dir is not None else default_firmware_dir()
    missing = [name for name in MODULES if not (directory / f"{name}.py").is_file()]
    if missing:
        raise ConfigError(f"firmware directory {directory} lacks {', '.join(m + '.py' for m in missing)}")
    saved = {name: sys.modules.pop(name) for name in MODULES if name in sys.modules}
    sys.path.insert(0, str(directory))
    loaded: dict[str, ModuleType] = {}
    try:
        for name in MODULES:
            loaded[name] = importlib.import_module(name)
    finally:
        sys.path.remove(str(directory))
        for name in MODULES:
            sys.modules.pop(name, None)
        sys.modules.update(saved)
    return SimpleNamespace(**loaded)
