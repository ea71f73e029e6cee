"""The table's screen: a pure view model (what to show) and a pygame renderer (how to draw it).

- :mod:`tablepi.display.view` — frozen values describing one frame; no pygame, no game state.
- :mod:`tablepi.display.texts` and :mod:`tablepi.display.i18n` — every sentence, from codes, in lb/de/fr/en.
- :mod:`tablepi.display.layout` — pure geometry for 800x480 and 480x320, and touch hit-testing.
- :mod:`tablepi.display.render` — draws a View on a surface; ``Display`` redraws only on change.

Importing this package does not import pygame; only ``render`` and ``touch`` do.
"""
