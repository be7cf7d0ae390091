"""Turn-based tables: whom each one waits on, kept so that a person's list of tables
waiting on them, the notices and the timers of tables out of memory are read from the
database alone. The table's actor writes the rows with a table's change
(``PutTurns``), and when a person's last page of the table closes or one opens again
during their wait (``PutAway``); the notices read and mark them.

Imports: stdlib and the storage package's ``base``, ``rows`` and ``core``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .base import Conflict, Db, lock
from .core import StoreCore
from .rows import TurnRow

_TURN = ("SELECT table_code, person, seat, turn, since, deadline, notify, pushed, notified, warned, away "
         "FROM turns")
MARKS = ("pushed", "notified", "warned")  # what went out about a wait


def _turn(r: dict) -> TurnRow:
    return TurnRow(r["table_code"], r["person"], r["seat"], r["turn"], r["since"], r["deadline"], bool(r["notify"]),
                   bool(r["pushed"]), bool(r["notified"]), bool(r["warned"]), r["away"])


@dataclass(frozen=True, slots=True)
class Waiting:
    """One person a table waits on: their seat, which wait it is (``turn``: a new value
    starts the row again), since when, until when (None: no clock) and whether a notice
    is due (they had no page of the table open)."""

    person: str
    seat: int
    turn: str
    since: float
    deadline: float | None
    notify: bool


@dataclass(frozen=True, slots=True)
class PutTurns:
    """The people table ``code`` waits on now (none: it waits on nobody, or is over)."""

    code: str
    waiting: tuple[Waiting, ...]

    def apply(self, db: Db) -> None:
        people = [w.person for w in self.waiting]
        marks = ", ".join("?" * len(people))
        db.execute(f"DELETE FROM turns WHERE table_code = ?{f' AND person NOT IN ({marks})' if people else ''}",
                   [self.code, *people])
        for w in self.waiting:
            rows = list(db.query("SELECT turn FROM turns WHERE table_code = ? AND person = ?", [self.code, w.person]))
            if rows and rows[0]["turn"] == w.turn:
                db.execute("UPDATE turns SET deadline = ?, seat = ? WHERE table_code = ? AND person = ?",
                           [w.deadline, w.seat, self.code, w.person])
                continue
            db.execute("DELETE FROM turns WHERE table_code = ? AND person = ?", [self.code, w.person])
            db.execute("INSERT INTO turns (table_code, person, seat, turn, since, deadline, notify, pushed, notified, "
                       "warned) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, 0)",
                       [self.code, w.person, w.seat, w.turn, w.since, w.deadline, int(w.notify)])


@dataclass(frozen=True, slots=True)
class PutAway:
    """``person``'s last page of table ``code`` closed at ``at`` during their wait (the
    first time stands until a page opens again), or (``at`` None) a page is open again.
    Nothing happens when the table does not wait on them."""

    code: str
    person: str
    at: float | None

    def apply(self, db: Db) -> None:
        db.execute("UPDATE turns SET away = " + ("COALESCE(away, ?)" if self.at is not None else "?")
                   + " WHERE table_code = ? AND person = ?", [self.at, self.code, self.person])


class TurnStore(StoreCore):
    """Whom turn-based tables wait on, and the notices about it."""

    def turns_of(self, code: str) -> list[TurnRow]:
        with self._reading() as db:
            return [_turn(r) for r in db.query(f"{_TURN} WHERE table_code = ?", [code])]

    def waiting_on(self, person: str) -> list[TurnRow]:
        """The turn-based tables waiting on this person, the least time left first (no clock last)."""
        with self._reading() as db:
            rows = [_turn(r) for r in db.query(f"{_TURN} WHERE person = ?", [person])]
        return sorted(rows, key=lambda t: (t.deadline is None, t.deadline or 0.0, t.since))

    def waiting_count(self, person: str) -> int:
        with self._reading() as db:
            [row] = db.query("SELECT COUNT(*) AS n FROM turns WHERE person = ?", [person])
            return int(row["n"])

    def turn_tables(self, person: str, tempos: tuple[str, ...]) -> int:
        """The unfinished tables (rooms included) with one of ``tempos`` where this person
        holds a seat or waits in the room."""
        with self._reading() as db:
            return _turn_tables(db, person, tempos)

    def due_tables(self, until: float) -> list[str]:
        """The playing tables with a timer due by ``until``: a turn clock, a hold, or a
        turn-based table's wait for Continue (the tables out of memory come back for it)."""
        with self._reading() as db:
            return [r["code"] for r in db.query(
                "SELECT m.table_code AS code FROM clocks c JOIN matches m ON m.id = c.match_id "
                "WHERE c.deadline <= ? AND m.finished = 0 "
                "UNION SELECT table_code AS code FROM holds WHERE until <= ? AND fired = 0 "
                "UNION SELECT table_code AS code FROM turns WHERE deadline IS NOT NULL AND deadline <= ?",
                [until, until, until])]

    def waiting_tables(self) -> set[str]:
        """The turn-based tables waiting on a person (nothing moves there until that
        person does, or a timer in the database comes due: they need no process until then)."""
        with self._reading() as db:
            return {r["table_code"] for r in db.query("SELECT DISTINCT table_code FROM turns")}

    def notices_due(self, away_by: float | None = None) -> list[TurnRow]:
        """The waits whose person should be told and was not yet: they had no page of the
        table open when it began, or (with ``away_by``) their last one closed during the
        wait at ``away_by`` or before and none opened since."""
        with self._reading() as db:
            if away_by is None:
                return [_turn(r) for r in db.query(f"{_TURN} WHERE notify = 1 AND notified = 0 ORDER BY since")]
            return [_turn(r) for r in db.query(
                f"{_TURN} WHERE notified = 0 AND (notify = 1 OR (away IS NOT NULL AND away <= ?)) ORDER BY since",
                [away_by])]

    def warnings_due(self, now: float, share: float) -> list[TurnRow]:
        """The timed waits with ``share`` of their time used and no warning yet."""
        with self._reading() as db:
            return [_turn(r) for r in db.query(
                f"{_TURN} WHERE deadline IS NOT NULL AND warned = 0 AND since + (deadline - since) * ? <= ?",
                [share, now])]

    def mark_turns(self, rows: list[TurnRow], what: str) -> None:
        """``what`` (one of ``MARKS``) went out about these waits (a wait that started
        again since is left as it is)."""
        if what not in MARKS:
            raise ValueError(what)
        with self.transaction() as db:
            for t in rows:
                db.execute(f"UPDATE turns SET {what} = 1 WHERE table_code = ? AND person = ? AND turn = ?",
                           [t.code, t.person, t.turn])

    # -- a person's notice mails ------------------------------------------------------------
    def mail_prefs(self, person: str) -> tuple[bool, float | None]:
        """(notice mails off, when the last one went out)."""
        with self._reading() as db:
            rows = list(db.query("SELECT mail_off, last_mail FROM notice_prefs WHERE person = ?", [person]))
        return (bool(rows[0]["mail_off"]), rows[0]["last_mail"]) if rows else (False, None)

    def set_mail_off(self, person: str, off: bool) -> None:
        with self.transaction() as db:
            db.execute("INSERT INTO notice_prefs (person, mail_off) VALUES (?, ?) "
                       "ON CONFLICT(person) DO UPDATE SET mail_off = excluded.mail_off", [person, int(off)])

    def mailed(self, person: str, at: float) -> None:
        with self.transaction() as db:
            db.execute("INSERT INTO notice_prefs (person, mail_off, last_mail) VALUES (?, 0, ?) "
                       "ON CONFLICT(person) DO UPDATE SET last_mail = excluded.last_mail", [person, at])


def _turn_tables(db: Db, person: str, tempos: tuple[str, ...], besides: str = "") -> int:
    rows = list(db.query(
        "SELECT t.options FROM tables t WHERE t.status IN ('waiting', 'playing') AND t.code <> ? AND t.code IN "
        "(SELECT table_code FROM seats WHERE player_id = ? AND kind = 'human' UNION "
        "SELECT table_code FROM room_members WHERE player_id = ? AND state = 'in')", [besides, person, person]))
    return sum(1 for r in rows if json.loads(r["options"] or "{}").get("rules", {}).get("tempo") in tempos)


class TurnTablesFull(Conflict):
    """One more turn-based table would pass a person's limit."""


@dataclass(frozen=True, slots=True)
class WithinTurnTables:
    """Check, in the transaction that seats ``person`` at table ``code`` (or puts them in
    its room), that they hold fewer than ``most`` other unfinished tables with one of
    ``tempos``: TurnTablesFull otherwise. Under the person's lock (``lock``), so joins and
    new tables at the same moment on several workers count each other."""

    person: str
    code: str
    most: int
    tempos: tuple[str, ...]

    def apply(self, db: Db) -> None:
        lock(db, "turn-tables/" + self.person)
        if _turn_tables(db, self.person, self.tempos, self.code) >= self.most:
            raise TurnTablesFull(f"{self.person} is at {self.most} turn-based tables")
