"""The tournament server: every table's feed in, matches rebuilt by the table's own code, standings and seatings out.

``tablepi tournament CONFIG`` (docs/tournament.md). The server subscribes to every table's events on the broker
(a persistent session: what arrives while it is down waits for it), stores them in its own SQLite file, and
replays each table's journals through :class:`tablepi.table.Table` — the same table and rules code that refereed
the deal, so no result is ever typed twice. Duplicated, reordered or late messages change nothing: events are
keyed by (table, journal, seq) and applied in seq order only.
"""
