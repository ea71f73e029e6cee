"""The tournament server's own SQLite file: every feed message it has, the rounds it drew, the director's acts.

Everything the server knows is rebuilt from this file at start (and from what the broker held for it meanwhile).
Events are keyed by (table, journal, seq): storing one twice is a no-op.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    tbl TEXT NOT NULL, journal TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, received REAL NOT NULL,
    PRIMARY KEY (tbl, journal, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rounds (number INTEGER PRIMARY KEY, seating TEXT NOT NULL, started REAL NOT NULL,
    who TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS audit (id INTEGER PRIMARY KEY, at REAL NOT NULL, who TEXT NOT NULL, what TEXT NOT NULL,
    why TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS quarantine (id INTEGER PRIMARY KEY, at REAL NOT NULL, topic TEXT NOT NULL,
    tbl TEXT NOT NULL, size INTEGER NOT NULL, reason TEXT NOT NULL, head TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
"""
#: What the store keeps of a quarantined payload: its first bytes, for the director to see what it was.
QUARANTINE_HEAD = 200


class Store:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(_SCHEMA)

    def add_messages(self, rows: list[tuple[str, str, int, str, float]]) -> None:
        """Store messages in one transaction; one already stored is left as it is."""
        self.db.execute("BEGIN")
        try:
            self.db.executemany("INSERT OR IGNORE INTO messages VALUES (?, ?, ?, ?, ?)", rows)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def messages(self) -> Iterator[tuple[str, dict[str, Any], float]]:
        for tbl, body, received in self.db.execute(
                "SELECT tbl, body, received FROM messages ORDER BY tbl, journal, seq"):
            yield tbl, json.loads(body), received

    def message(self, table: str, journal: str, seq: int) -> dict[str, Any] | None:
        """The stored message (table, journal, seq), or None."""
        row = self.db.execute("SELECT body FROM messages WHERE tbl = ? AND journal = ? AND seq = ?",
                              (table, journal, seq)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def add_round(self, number: int, seating: dict[str, Any], who: str, started: float) -> None:
        """Round ``number``: ``{"tables": [...], "byes": [...]}`` (a store from before byes has the list only),
        drawn at ``started`` (the server's clock)."""
        self.db.execute("INSERT INTO rounds VALUES (?, ?, ?, ?)", (number, json.dumps(seating), started, who))

    def rounds(self) -> list[tuple[int, Any, float, str]]:
        return [(n, json.loads(s), t, w) for n, s, t, w in
                self.db.execute("SELECT number, seating, started, who FROM rounds ORDER BY number")]

    def audit(self, who: str, what: str, why: str, body: dict[str, Any]) -> dict[str, Any]:
        at = time.time()
        cur = self.db.execute("INSERT INTO audit (at, who, what, why, body) VALUES (?, ?, ?, ?, ?)",
                              (at, who, what, why, json.dumps(body, ensure_ascii=False)))
        return {"id": cur.lastrowid, "at": at, "who": who, "what": what, "why": why, **body}

    def audit_log(self) -> list[dict[str, Any]]:
        return [{"id": i, "at": at, "who": who, "what": what, "why": why, **json.loads(body)}
                for i, at, who, what, why, body in
                self.db.execute("SELECT id, at, who, what, why, body FROM audit ORDER BY id")]

    def instance(self) -> str:
        """This server's own id, made once with its store: its broker client id is made from it, so no other
        program's fixed id can be this server's session (docs/feed.md, "Client ids")."""
        self.db.execute("INSERT OR IGNORE INTO meta VALUES ('instance', ?)", (secrets.token_hex(8),))
        return str(self.db.execute("SELECT value FROM meta WHERE key = 'instance'").fetchone()[0])

    def quarantine(self, rows: list[tuple[float, str, str, int, str, str]]) -> None:
        """Messages that could not be read: (when, topic, table, size, why, first bytes)."""
        self.db.executemany("INSERT INTO quarantine (at, topic, tbl, size, reason, head) VALUES (?, ?, ?, ?, ?, ?)",
                            rows)

    def quarantined(self, last: int = 20) -> tuple[int, list[dict[str, Any]]]:
        """How many messages are quarantined, and the ``last`` ones (newest first)."""
        count = int(self.db.execute("SELECT count(*) FROM quarantine").fetchone()[0])
        rows = self.db.execute("SELECT at, topic, tbl, size, reason, head FROM quarantine ORDER BY id DESC LIMIT ?",
                               (last,))
        return count, [{"at": at, "topic": topic, "table": tbl, "size": size, "reason": reason, "head": head}
                       for at, topic, tbl, size, reason, head in rows]

    def close(self) -> None:
        self.db.close()
