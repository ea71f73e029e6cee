"""Runs before main.py: the USB identity of the reader, so the Pi's udev rule can tell it from any other Pico.

MicroPython's built-in USB CDC stays as it is (the REPL and the line protocol still use it); only the
manufacturer and product strings of its device descriptor change (config.USB_MANUFACTURER, USB_PRODUCT). The
serial number stays the board's unique id. On a port without ``machine.USBDevice`` (older firmware, the unix port
in tests) nothing happens and the default strings remain.
"""

import config

try:
    import machine

    _usb = machine.USBDevice()
    _usb.active(False)
    _usb.builtin_driver = _usb.BUILTIN_CDC
    _usb.config(_usb.BUILTIN_CDC.desc_dev, _usb.BUILTIN_CDC.desc_cfg,
                desc_strs={1: config.USB_MANUFACTURER, 2: config.USB_PRODUCT})
    _usb.active(True)
except (ImportError, AttributeError, OSError, TypeError, ValueError):
    pass
