"""Emulated reader hardware: an MFRC522 at register level, virtual ISO 14443A / NTAG213 tags, and a runner
that runs the real firmware sources against four emulated chips and speaks the line protocol on a pty.

The test double of the serial reader backend, driven like the real thing: tags are laid on and lifted from
zones, readers can be made to fail, and everything in between is the firmware's own code.
"""

from tablepi.emulator.bus import EmulatedPin, EmulatedSpiBus
from tablepi.emulator.mfrc522 import EmulatedMFRC522
from tablepi.emulator.tags import Iso14443aTag, Ntag213, crc_a

__all__ = ["EmulatedMFRC522", "EmulatedPin", "EmulatedSpiBus", "Iso14443aTag", "Ntag213", "crc_a"]
