"""Storage: the only module that writes SQL. SQLite through sqlite-utils, in WAL mode.

A table (``tables``) is where matches are played; each match (``matches``) keeps its
seed and rules, and its moves in ``actions``, append-only, one row per version. State is
never stored, only rebuilt: replaying a match's actions in order gives the exact state
back (see ``spades.tables``). The schema grows through ``MIGRATIONS`` (sqlite-utils
``Migrations``), applied on start-up.

Connections are opened per thread (``Store.db``) and never shared across threads, as
SQLite wants. Every write is one transaction.

Imports: stdlib and sqlite-utils only (no Flask, no core).
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

MIGRATIONS = Migrations("spades")


@MIGRATIONS()
def m001_tables_matches_seats_actions(db: Database) -> None:
    db["players"].create({"id": str, "name": str, "emoji": str, "created": float}, pk="id")
    db["tables"].create(
        {"code": str, "created": float, "host": str, "options": str, "status": str},
        pk="code",
    )
    db["matches"].create(
        {"id": int, "table_code": str, "number": int, "seed": str, "rules": str,
         "version": int, "created": float, "finished": int, "winner": int},
        pk="id", foreign_keys=[("table_code", "tables", "code")],
    )
    db["matches"].create_index(["table_code", "number"], unique=True)
    db["seats"].create(
        {"table_code": str, "seat": int, "kind": str, "player_id": str, "name": str},
        pk=("table_code", "seat"), foreign_keys=[("table_code", "tables", "code")],
    )
    db["seats"].create_index(["player_id"])
    # Append-only: one row per accepted move; (match_id, version) is the move's identity,
    # so a move can never be stored twice.
    db["actions"].create(
        {"match_id": int, "version": int, "seat": int, "action": str, "at": float},
        pk=("match_id", "version"), foreign_keys=[("match_id", "matches", "id")],
    )


class Conflict(Exception):
    """A write that lost a race: the stored version is not the one expected."""


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    kind: str  # "human" or "bot"
    player_id: str | None
    name: str


@dataclass(frozen=True, slots=True)
class MatchRow:
    id: int
    number: int
    seed: str
    rules: dict
    version: int
    finished: bool


@dataclass(frozen=True, slots=True)
class TableRow:
    code: str
    host: str | None
    options: dict
    status: str
    seats: tuple[SeatRow, ...]
    match: MatchRow


class Store:
    """The database at ``path``: one connection per thread, schema migrated on first use."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._local = threading.local()
        directory = os.path.dirname(os.path.abspath(path))
        os.makedirs(directory, exist_ok=True)
        db = self.db
        db.enable_wal()
        MIGRATIONS.apply(db)

    @property
    def db(self) -> Database:
        """This thread's connection (opened on first use)."""
        db = getattr(self._local, "db", None)
        if db is None:
            # timeout: writers wait for each other instead of failing with "database is locked"
            import sqlite3

            conn = sqlite3.connect(self.path, timeout=10)
            conn.execute("PRAGMA busy_timeout = 10000")
            conn.execute("PRAGMA synchronous = NORMAL")  # safe with WAL: a commit survives a crash of the process
            conn.execute("PRAGMA foreign_keys = ON")
            db = Database(conn)
            self._local.db = db
        return db

    # -- players ---------------------------------------------------------------------
    def ensure_player(self, player_id: str, name: str = "You", emoji: str = "") -> None:
        """Create the player row if missing (an anonymous browser, known by its cookie)."""
        db = self.db
        with db.atomic():
            db.execute("INSERT OR IGNORE INTO players (id, name, emoji, created) VALUES (?, ?, ?, ?)",
                       [player_id, name, emoji, time.time()])

    # -- tables ----------------------------------------------------------------------
    def create_table(self, code: str, host: str | None, options: dict, seats: list[SeatRow],
                     seed: str, rules: dict) -> None:
        """A new table with its seats and its first match. Raises sqlite3.IntegrityError
        when the code is taken."""
        db = self.db
        now = time.time()
        with db.atomic():
            db["tables"].insert({"code": code, "created": now, "host": host,
                                 "options": json.dumps(options), "status": "playing"})
            db["seats"].insert_all([{"table_code": code, "seat": s.seat, "kind": s.kind,
                                     "player_id": s.player_id, "name": s.name} for s in seats])
            self._insert_match(code, 1, seed, rules, now)

    def _insert_match(self, code: str, number: int, seed: str, rules: dict, now: float) -> None:
        self.db["matches"].insert({"table_code": code, "number": number, "seed": seed,
                                   "rules": json.dumps(rules), "version": 0, "created": now,
                                   "finished": 0, "winner": None})

    def new_match(self, code: str, number: int, seed: str, rules: dict) -> None:
        """Start match ``number`` at a table (a rematch). Raises Conflict if it exists."""
        import sqlite3

        db = self.db
        try:
            with db.atomic():
                self._insert_match(code, number, seed, rules, time.time())
                db.execute("UPDATE tables SET status = 'playing' WHERE code = ?", [code])
        except sqlite3.IntegrityError:
            raise Conflict(f"match {number} of {code} already exists") from None

    def load_table(self, code: str) -> TableRow | None:
        """The table and its current (latest) match, or None for an unknown code."""
        db = self.db
        rows = list(db.query("SELECT * FROM tables WHERE code = ?", [code]))
        if not rows:
            return None
        t = rows[0]
        seats = tuple(SeatRow(r["seat"], r["kind"], r["player_id"], r["name"])
                      for r in db.query("SELECT * FROM seats WHERE table_code = ? ORDER BY seat", [code]))
        m = next(iter(db.query("SELECT * FROM matches WHERE table_code = ? ORDER BY number DESC LIMIT 1",
                               [code])))
        match = MatchRow(m["id"], m["number"], m["seed"], json.loads(m["rules"]), m["version"], bool(m["finished"]))
        return TableRow(t["code"], t["host"], json.loads(t["options"]), t["status"], seats, match)

    def actions(self, match_id: int) -> list[tuple[int, int | None, str]]:
        """A match's moves in order: (version, seat, action text)."""
        return [(r["version"], r["seat"], r["action"]) for r in self.db.query(
            "SELECT version, seat, action FROM actions WHERE match_id = ? ORDER BY version", [match_id])]

    def append_action(self, match_id: int, version: int, seat: int | None, action: str,
                      finished: bool = False, winner: int | None = None) -> None:
        """Store one accepted move and the match's new version in one transaction.
        Raises Conflict unless the stored version is ``version - 1`` (a lost race)."""
        db = self.db
        with db.atomic():
            cur = db.execute("UPDATE matches SET version = ?, finished = ?, winner = ? "
                             "WHERE id = ? AND version = ?",
                             [version, int(finished), winner, match_id, version - 1])
            if cur.rowcount != 1:
                raise Conflict(f"match {match_id} is not at version {version - 1}")
            db.execute("INSERT INTO actions (match_id, version, seat, action, at) VALUES (?, ?, ?, ?, ?)",
                       [match_id, version, seat, action, time.time()])
            if finished:
                db.execute("UPDATE tables SET status = 'finished' WHERE code = "
                           "(SELECT table_code FROM matches WHERE id = ?)", [match_id])

    def unfinished_tables(self) -> list[str]:
        """Codes of tables whose current match is still being played (resumed on start-up)."""
        return [r["code"] for r in self.db.query("SELECT code FROM tables WHERE status = 'playing'")]

    def table_exists(self, code: str) -> bool:
        return bool(list(self.db.query("SELECT 1 FROM tables WHERE code = ?", [code])))

    def stats(self) -> dict[str, Any]:
        """Row counts (for diagnostics and tests)."""
        return {name: self.db[name].count for name in ("players", "tables", "matches", "seats", "actions")}
