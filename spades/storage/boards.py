"""Duplicate boards (``spades.circles.boards``): a circle's weeks of boards and the tables
that play them. A week's row keeps its seed, from which its deal secret is made: it is
read by the boards' service only, and never leaves the server before the week closes.

Imports: stdlib and the storage package's ``base`` and ``core``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from .base import Conflict, Db, lock
from .core import StoreCore


@dataclass(frozen=True, slots=True)
class BoardWeekRow:
    """A circle's week of boards: ``boards`` deals played as the hands of every table of
    the week, under ``rules`` (a ``Rules`` as a dict, its tempo left to each table);
    ``seed`` is server-side only. ``closed``: when its owner closed it before ``ends``."""

    id: str
    circle: str
    boards: int
    rules: dict
    seed: str
    starts: float
    ends: float
    closed: float | None
    created: float
    made_by: str


@dataclass(frozen=True, slots=True)
class BoardSeat:
    """One seat of a table of boards as the standings read it: who played it (a person's
    id, or None for a bot's seat all along), the person who left it to a bot, and its name."""

    seat: int
    player_id: str | None
    left_player_id: str | None
    name: str


@dataclass(frozen=True, slots=True)
class BoardTable:
    """A table of a week, its first match as stored (the boards are that match's hands:
    its rules, seed and moves rebuild it; ``version`` counts its changes) and its seats:
    as they were when the match finished, else as they are now."""

    code: str
    match_id: int
    number: int
    rules: dict
    seed: str
    version: int
    finished: bool
    seats: tuple[BoardSeat, ...]


def _week(r: dict[str, Any]) -> BoardWeekRow:
    return BoardWeekRow(r["id"], r["circle"], r["boards"], json.loads(r["rules"]), r["seed"], r["starts"], r["ends"],
                   r["closed"], r["created"] or 0.0, r["made_by"] or "")


@dataclass(frozen=True, slots=True)
class NewBoardWeek:
    """A new week of boards (Duplicate, a sqlite3.IntegrityError, when the id is taken)."""

    row: BoardWeekRow

    def apply(self, db: Db) -> None:
        r = self.row
        db.execute("INSERT INTO board_weeks (id, circle, boards, rules, seed, starts, ends, closed, created, made_by) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [r.id, r.circle, r.boards, json.dumps(r.rules), r.seed, r.starts, r.ends, r.closed, r.created,
                    r.made_by])


class BoardPlayed(Conflict):
    """People who played the week's boards at another table already (``people``: their ids,
    in the order asked): the change that would seat them is not made."""

    def __init__(self, people: tuple[str, ...]) -> None:
        super().__init__(f"played the week at another table: {', '.join(people)}")
        self.people = people


@dataclass(frozen=True, slots=True)
class ClaimBoardSeats:
    """``people`` play week ``week``'s boards at table ``code``: one row per person and
    week, kept for good (leaving the seat, someone else taking it or a sign-in moving it
    does not free the person for another table of the week). Raises BoardPlayed, naming
    those who played the week at another table; a person back at their own table is fine.
    The key makes it hold with any number of writers at once: the second of two
    transactions seating one person at two tables meets the first's row."""

    week: str
    code: str
    people: tuple[str, ...]
    at: float

    def apply(self, db: Db) -> None:
        for person in self.people:
            db.execute("INSERT INTO board_players (week, person, table_code, at) VALUES (?, ?, ?, ?) "
                       "ON CONFLICT DO NOTHING", [self.week, person, self.code, self.at])
        marks = ", ".join("?" for _ in self.people)
        elsewhere = {r["person"] for r in db.query(
            f"SELECT person FROM board_players WHERE week = ? AND person IN ({marks}) AND table_code <> ?",
            [self.week, *self.people, self.code])}
        if elsewhere:
            raise BoardPlayed(tuple(p for p in self.people if p in elsewhere))


@dataclass(frozen=True, slots=True)
class AddBoardTable:
    """Table ``code`` plays week ``week``'s boards (Duplicate when it plays a week already)."""

    week: str
    code: str
    at: float

    def apply(self, db: Db) -> None:
        db.execute("INSERT INTO board_tables (table_code, week, created) VALUES (?, ?, ?)",
                   [self.code, self.week, self.at])


@dataclass(frozen=True, slots=True)
class NewBoardWeekAlone:
    """A new week of a circle that has none open or to come at ``now`` (a week whose
    ``closed`` is unset and whose ``ends`` is later): Conflict when it has one. Checked and
    written in one transaction, under the circle's lock on PostgreSQL (SQLite has one
    writer at a time), so two owners' clicks at once make one week."""

    row: BoardWeekRow
    now: float

    def apply(self, db: Db) -> None:
        lock(db, "board-weeks/" + self.row.circle)
        busy = list(db.query("SELECT id FROM board_weeks WHERE circle = ? AND closed IS NULL AND ends > ?",
                             [self.row.circle, self.now]))
        if busy:
            raise Conflict("a week of boards is open or about to start")
        NewBoardWeek(self.row).apply(db)


class BoardStore(StoreCore):
    """Weeks of boards, and the tables that play them."""

    def new_board_week(self, row: BoardWeekRow, now: float) -> None:
        """Store a new week. Raises Duplicate when its id is taken and Conflict when the
        circle has a week open or to come at ``now`` (``NewBoardWeekAlone``)."""
        self.commit([NewBoardWeekAlone(row, now)])

    def board_week(self, week_id: str) -> BoardWeekRow | None:
        with self._reading() as db:
            rows = list(db.query("SELECT * FROM board_weeks WHERE id = ?", [week_id]))
        return _week(rows[0]) if rows else None

    def board_weeks(self, circle: str) -> list[BoardWeekRow]:
        """A circle's weeks, the latest to start first."""
        with self._reading() as db:
            rows = list(db.query("SELECT * FROM board_weeks WHERE circle = ? ORDER BY starts DESC, created DESC",
                                 [circle]))
        return [_week(r) for r in rows]

    def close_board_week(self, week_id: str, at: float | None = None) -> bool:
        """Close a week now (its owner's choice); whether it was open to close."""
        at = time.time() if at is None else at
        with self.transaction() as db:
            return db.execute("UPDATE board_weeks SET closed = ? WHERE id = ? AND closed IS NULL",
                              [at, week_id]).rowcount > 0

    def board_week_of_table(self, code: str) -> str | None:
        """The week whose boards a table plays, or None for any other table."""
        with self._reading() as db:
            rows = list(db.query("SELECT week FROM board_tables WHERE table_code = ?", [code]))
        return rows[0]["week"] if rows else None

    def board_table_codes(self, week_id: str) -> list[str]:
        """The codes of a week's tables, in the order they were started."""
        with self._reading() as db:
            return [r["table_code"] for r in db.query(
                "SELECT table_code FROM board_tables WHERE week = ? ORDER BY created, table_code", [week_id])]

    def board_week_players(self, week_id: str) -> dict[str, str]:
        """Everyone who ever sat at a table of the week, and that table's code (kept for
        good: ``ClaimBoardSeats``)."""
        with self._reading() as db:
            return {r["person"]: r["table_code"] for r in db.query(
                "SELECT person, table_code FROM board_players WHERE week = ?", [week_id])}

    def board_tables(self, week_id: str) -> list[BoardTable]:
        """Each table of the week with its first match (the one that plays the boards) and
        who sat where, in the order the tables were started."""
        out = []
        with self._reading() as db:
            matches = list(db.query(
                "SELECT b.table_code, m.id, m.number, m.rules, m.seed, m.version, m.finished FROM board_tables b "
                "JOIN matches m ON m.table_code = b.table_code AND m.number = 1 "
                "WHERE b.week = ? ORDER BY b.created, b.table_code", [week_id]))
            for m in matches:
                seats = list(db.query("SELECT seat, kind, player_id, left_player_id, name FROM match_seats "
                                      "WHERE match_id = ? ORDER BY seat", [m["id"]])) if m["finished"] else []
                if not seats:
                    seats = list(db.query("SELECT seat, kind, player_id, left_player_id, name FROM seats "
                                          "WHERE table_code = ? ORDER BY seat", [m["table_code"]]))
                out.append(BoardTable(
                    m["table_code"], m["id"], m["number"], json.loads(m["rules"]), m["seed"], m["version"],
                    bool(m["finished"]),
                    tuple(BoardSeat(s["seat"], s["player_id"] if s["kind"] == "human" else None,
                                    s["left_player_id"] or None, s["name"] or "") for s in seats)))
        return out
