"""Clocks and holds (``spades.clocks``), kept so they survive a restart and fire once: a
match's turn clock, each seat's record with the clock, and the seats held for a person
whose last connection closed. Writes are row operations, part of a table's change.

Imports: stdlib and the storage package's ``base`` and ``core``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import Conflict, Db
from .core import StoreCore


@dataclass(frozen=True, slots=True)
class PutClock:
    """The match's clock: (seat, version, deadline), or None for no clock."""

    match_id: int
    clock: tuple[int, int, float] | None

    def apply(self, db: Db) -> None:
        if self.clock is None:
            db.execute("DELETE FROM clocks WHERE match_id = ?", [self.match_id])
        else:
            db.execute("INSERT INTO clocks (match_id, seat, version, deadline) VALUES (?, ?, ?, ?) "
                       "ON CONFLICT(match_id) DO UPDATE SET seat = excluded.seat, version = excluded.version, "
                       "deadline = excluded.deadline", [self.match_id, *self.clock])


@dataclass(frozen=True, slots=True)
class PutSeatClock:
    """A seat's record with the clock in a match."""

    match_id: int
    seat: int
    timeouts_in_row: int
    timed_out: bool
    autopilot: bool

    def apply(self, db: Db) -> None:
        db.execute("INSERT INTO seat_clocks (match_id, seat, timeouts_in_row, timed_out, autopilot) "
                   "VALUES (?, ?, ?, ?, ?) ON CONFLICT(match_id, seat) DO UPDATE SET "
                   "timeouts_in_row = excluded.timeouts_in_row, timed_out = excluded.timed_out, "
                   "autopilot = excluded.autopilot",
                   [self.match_id, self.seat, self.timeouts_in_row, int(self.timed_out), int(self.autopilot)])


@dataclass(frozen=True, slots=True)
class PutHold:
    """A seat held for its person, whose last connection closed, until ``until``."""

    code: str
    seat: int
    dropped_at: float
    until: float

    def apply(self, db: Db) -> None:
        db.execute("INSERT INTO holds (table_code, seat, dropped_at, until, fired) VALUES (?, ?, ?, ?, 0) "
                   "ON CONFLICT(table_code, seat) DO UPDATE SET dropped_at = excluded.dropped_at, "
                   "until = excluded.until, fired = 0", [self.code, self.seat, self.dropped_at, self.until])


@dataclass(frozen=True, slots=True)
class ClearHold:
    code: str
    seat: int

    def apply(self, db: Db) -> None:
        db.execute("DELETE FROM holds WHERE table_code = ? AND seat = ?", [self.code, self.seat])


@dataclass(frozen=True, slots=True)
class FireHold:
    """The hold ran out: a bot plays the seat (Conflict if it had fired already or is gone)."""

    code: str
    seat: int

    def apply(self, db: Db) -> None:
        if not _fire(db, self.code, self.seat):
            raise Conflict(f"the hold of seat {self.seat} at {self.code} is not waiting")


def _fire(db: Db, code: str, seat: int) -> bool:
    """Mark the hold over; False if it was already, or is gone."""
    cur = db.execute("UPDATE holds SET fired = 1 WHERE table_code = ? AND seat = ? AND fired = 0", [code, seat])
    return cur.rowcount == 1


class ClockStore(StoreCore):
    """Clocks' and holds' reads, and the holds' writes of their own."""

    def clock(self, match_id: int) -> tuple[int, int, float] | None:
        """The match's clock: (seat, version, deadline), or None."""
        with self._reading() as db:
            rows = list(db.query("SELECT seat, version, deadline FROM clocks WHERE match_id = ?", [match_id]))
        return (rows[0]["seat"], rows[0]["version"], rows[0]["deadline"]) if rows else None

    def seat_clocks(self, match_id: int) -> dict[int, tuple[int, bool, bool]]:
        """Each seat's clock record in a match: seat -> (timeouts in a row, timed out, autopilot)."""
        with self._reading() as db:
            return {r["seat"]: (r["timeouts_in_row"], bool(r["timed_out"]), bool(r["autopilot"])) for r in db.query(
                "SELECT * FROM seat_clocks WHERE match_id = ?", [match_id])}

    def holds(self, code: str) -> dict[int, tuple[float, float, bool]]:
        """The table's held seats: seat -> (dropped at, held until, fired)."""
        with self._reading() as db:
            return {r["seat"]: (r["dropped_at"], r["until"], bool(r["fired"])) for r in db.query(
                "SELECT * FROM holds WHERE table_code = ?", [code])}

    def set_hold(self, code: str, seat: int, dropped_at: float, until: float) -> None:
        self.commit([PutHold(code, seat, dropped_at, until)])

    def clear_hold(self, code: str, seat: int) -> None:
        self.commit([ClearHold(code, seat)])

    def fire_hold(self, code: str, seat: int) -> bool:
        """Mark the hold over (a bot takes the seat); False if it was already, or is gone."""
        with self.transaction() as db:
            return _fire(db, code, seat)
