"""The players' book: every match a named player sat in, his statistics and a team rating (docs/players.md).

The journal and the archive stay the truth: the book (:mod:`tablepi.book.store`, one SQLite file beside the
journal) is filled from them as matches finish and can be rebuilt from them at any time (``tablepi players
rebuild``). What a player chose about his name on the pages (public or initials) is the book's own: it is a
preference, not a game event, and it survives a rebuild.

- :mod:`tablepi.book.facts`: a record's matches as plain facts (who sat where, each deal, each card's cost).
- :mod:`tablepi.book.store`: the SQLite book, filled and rebuilt from those facts; privacy and forgetting.
- :mod:`tablepi.book.stats`: statistics per player and partnership over an evening, a season, all time.
- :mod:`tablepi.book.rating`: the team rating (openskill), reproducible from the matches in order.
- :mod:`tablepi.book.process`: a table's pages served by a process of their own, never slowing the table.
"""
