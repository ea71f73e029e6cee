"""firmware/main.py itself on the unix port, on the stand-in machine module. argv: firmware dir, this dir,
service pin level (1: no jumper), SPI writes before the bus fails (-1: never). A tag lies on zone 2, zone 3 has
no module."""

import sys

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])

import machine

machine.SERVICE_LEVEL = int(sys.argv[3])
machine.CRASH_AFTER = int(sys.argv[4])
machine.CHIPS[2].set_uid(b"\x04\xa1\xb2\xc3\xd4\xe5\xf6")
machine.CHIPS[2].card = True
machine.CHIPS[3].absent = True

import main  # noqa: E402, F401  (runs the board's boot path)
