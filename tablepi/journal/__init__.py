"""The journal subsystem: every table event durable before it is shown, and every match kept after it ends.

One layer above the table (it stores the table's events and replays them through it), below the app, the feed,
the players' book and the tournament (which read what it wrote). docs/journal.md tells how it behaves; in order of
dependence:

- :mod:`~tablepi.journal.record`: the game-record format (docs/records.md), one JSON line per table event; every
  line is checked with the code that reads it back before it is written.
- :mod:`~tablepi.journal.eventlog`: the second copy, a checksummed append-only text file beside the database.
- :mod:`~tablepi.journal.salvage`: reads a journal however damaged, without changing it, and keeps the damage in
  ``quarantine/``.
- :mod:`~tablepi.journal.lock`: one writer per journal (an advisory lock file naming its holder).
- :mod:`~tablepi.journal.archive`: finished matches, compressed game records in ``archive/``.
- :mod:`~tablepi.journal.evening`: the evening's matches (since the table was switched on, or since midnight), the
  archived ones included.
- :mod:`~tablepi.journal.journal`: :class:`~tablepi.journal.journal.Journal` (SQLite plus the second copy) and
  :class:`~tablepi.journal.journal.JournaledTable`, what the app runs: journal first, then the table.

Nothing is re-exported here: importing the record format does not load the database code.
"""
