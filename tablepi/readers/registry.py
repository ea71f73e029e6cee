"""Backends by name, imported lazily (python-can ``BACKENDS``, gpiozero pin factories).

Only :func:`open_reader` imports a backend's module, so ``import tablepi.readers`` never needs pyserial or
pyscard, and a missing optional library is reported as a :class:`ReaderError` naming what to install.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from tablepi.errors import ConfigError, ReaderError
from tablepi.readers.base import Reader

#: name -> (module, class). ``module:Class`` strings are accepted too, for backends outside tablepi.
BACKENDS: dict[str, tuple[str, str]] = {
    "serial": ("tablepi.readers.serial", "SerialReader"),
    "pcsc": ("tablepi.readers.pcsc", "PcscReader"),
    "sim": ("tablepi.readers.sim", "SimReader"),
}

#: What to install when a backend's import fails, by backend name.
_INSTALL_HINTS = {
    "serial": "pyserial (a core dependency of tablepi: reinstall tablepi)",
    "pcsc": "pyscard and the PC/SC daemon: `pip install 'tablepi[pcsc]'` and `apt install pcscd`",
}


def reader_class(backend: str) -> type[Reader]:
    """The class registered under ``backend``; imports its module now."""
    if not isinstance(backend, str) or not backend:
        raise ConfigError(f"reader backend must be a name such as 'serial', not {backend!r}")
    if backend in BACKENDS:
        module_name, class_name = BACKENDS[backend]
    elif ":" in backend:
        module_name, _, class_name = backend.partition(":")
    else:
        known = ", ".join(sorted(BACKENDS))
        raise ConfigError(f"unknown reader backend {backend!r} (known: {known}, or 'package.module:Class')")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        hint = _INSTALL_HINTS.get(backend, "its module")
        missing = err.name or str(err)
        raise ReaderError(
            f"reader backend {backend!r} cannot load: missing {missing!r}; install {hint}", backend=backend
        ) from err
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Reader)):
        raise ConfigError(f"reader backend {backend!r}: {module_name}.{class_name} is not a Reader class")
    return cls


def open_reader(backend: str, **options: Any) -> Reader:
    """Make the reader ``backend`` with its configuration ``options`` (see docs/readers.md for each backend).

    An option the backend does not have is a :class:`ConfigError` naming it, not a TypeError deep inside.
    """
    cls = reader_class(backend)
    params = inspect.signature(cls.__init__).parameters
    accepts_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    allowed = {n for n, p in params.items() if n != "self" and p.kind is not inspect.Parameter.VAR_POSITIONAL}
    unknown = sorted(set(options) - allowed)
    if unknown and not accepts_any:
        raise ConfigError(
            f"reader backend {backend!r} has no option {unknown[0]!r} (options: {', '.join(sorted(allowed))})"
        )
    return cls(**options)
