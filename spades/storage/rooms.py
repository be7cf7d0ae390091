"""Rooms: a table waiting for players (status ``waiting``, no seats, no match yet), who
joined it in which order (``room_members``), and the host's choice of partner (``rooms``).
A room's writes are row operations (``CreateRoom``, ``JoinRoom``, ``UpdateRoom``,
``StartRoom``), committed with ``Store.commit`` like a table's change; ``RoomStore`` keeps
the reads and the methods that commit one op each.

Imports: stdlib and the storage package's ``base``, ``rows``, ``core``, ``people`` and
``tables`` (a room that starts becomes a table with seats and a first match).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass

from .base import Conflict, Db
from .core import StoreCore
from .people import upsert_player
from .rows import MemberRow, RoomRow, SeatRow
from .tables import insert_match, insert_seats


def _create(db: Db, code: str, host: str, options: dict, name: str, emoji: str) -> None:
    now = time.time()
    db.execute("INSERT INTO tables (code, created, host, options, status) VALUES (?, ?, ?, ?, 'waiting')",
               [code, now, host, json.dumps(options)])
    db.execute("INSERT INTO rooms (code, partner, started) VALUES (?, NULL, NULL)", [code])
    db.execute("INSERT INTO room_members (table_code, number, player_id, name, emoji, state, joined) "
               "VALUES (?, 1, ?, ?, ?, 'in', ?)", [code, host, name, emoji, now])


def _join(db: Db, code: str, player_id: str, name: str, emoji: str) -> None:
    """Add (or bring back) a member at the end of the join order; a member already in only
    updates name and emoji."""
    rows = list(db.query("SELECT number, state FROM room_members WHERE table_code = ? AND player_id = ?",
                         [code, player_id]))
    if rows and rows[0]["state"] == "in":
        db.execute("UPDATE room_members SET name = ?, emoji = ? WHERE table_code = ? AND number = ?",
                   [name, emoji, code, rows[0]["number"]])
        return
    number = next(iter(db.query("SELECT COALESCE(MAX(number), 0) + 1 AS n FROM room_members "
                                "WHERE table_code = ?", [code])))["n"]
    if rows:  # back after leaving: to the end of the join order
        db.execute("UPDATE room_members SET number = ?, name = ?, emoji = ?, state = 'in', joined = ? "
                   "WHERE table_code = ? AND player_id = ?", [number, name, emoji, time.time(), code, player_id])
    else:
        db.execute("INSERT INTO room_members (table_code, number, player_id, name, emoji, state, joined) "
                   "VALUES (?, ?, ?, ?, ?, 'in', ?)", [code, number, player_id, name, emoji, time.time()])


@dataclass(frozen=True, slots=True)
class CreateRoom:
    """A table waiting for players with its creator ``host`` as member 1, who is also
    remembered by that name and emoji (Duplicate, a sqlite3.IntegrityError, when the code
    is taken)."""

    code: str
    host: str
    options: dict
    name: str
    emoji: str

    def apply(self, db: Db) -> None:
        _create(db, self.code, self.host, self.options, self.name, self.emoji)
        upsert_player(db, self.host, self.name, self.emoji)


@dataclass(frozen=True, slots=True)
class JoinRoom:
    """Someone joins a room: added (or brought back) at the end of the join order, or, when
    already in, only their name and emoji change; either way they are remembered by that
    name and emoji."""

    code: str
    player_id: str
    name: str
    emoji: str

    def apply(self, db: Db) -> None:
        _join(db, self.code, self.player_id, self.name, self.emoji)
        upsert_player(db, self.player_id, self.name, self.emoji)


@dataclass(frozen=True, slots=True)
class UpdateRoom:
    """One change to a waiting room: a new ``host``, the ``partner`` choice (a member
    number, 0 for a bot, None to clear it, ``"keep"`` to leave it), a ``member``'s new state
    (number, state), the table's ``options``, ``close`` the room. The options change and
    the closing apply only while the table is waiting."""

    code: str
    _: KW_ONLY
    host: str | None = None
    partner: int | None | str = "keep"
    member: tuple[int, str] | None = None
    options: dict | None = None
    close: bool = False

    def apply(self, db: Db) -> None:
        if self.options is not None:
            db.execute("UPDATE tables SET options = ? WHERE code = ? AND status = 'waiting'",
                       [json.dumps(self.options), self.code])
        if self.member is not None:
            db.execute("UPDATE room_members SET state = ? WHERE table_code = ? AND number = ?",
                       [self.member[1], self.code, self.member[0]])
        if self.host is not None:
            db.execute("UPDATE tables SET host = ? WHERE code = ?", [self.host, self.code])
        if self.partner != "keep":
            db.execute("UPDATE rooms SET partner = ? WHERE code = ?", [self.partner, self.code])
        if self.close:
            db.execute("UPDATE tables SET status = 'closed' WHERE code = ? AND status = 'waiting'", [self.code])


@dataclass(frozen=True, slots=True)
class StartRoom:
    """Everyone takes their seat and the first match starts (Conflict when the table is not
    waiting any more: started twice, or closed)."""

    code: str
    seats: Sequence[SeatRow]
    seed: str
    rules: dict

    def apply(self, db: Db) -> None:
        now = time.time()
        cur = db.execute("UPDATE tables SET status = 'playing' WHERE code = ? AND status = 'waiting'", [self.code])
        if cur.rowcount != 1:
            raise Conflict(f"table {self.code} is not waiting")
        db.execute("UPDATE rooms SET started = ? WHERE code = ?", [now, self.code])
        insert_seats(db, self.code, self.seats)
        insert_match(db, self.code, 1, self.seed, self.rules, now)


class RoomStore(StoreCore):
    """Rooms' reads (their writes are the ops above, committed with ``Store.commit``)."""

    def load_room(self, code: str) -> RoomRow | None:
        """Any table seen from its room (a practice table has no members), or None."""
        with self._reading() as db:
            rows = list(db.query("SELECT t.*, r.partner FROM tables t LEFT JOIN rooms r ON r.code = t.code "
                                 "WHERE t.code = ?", [code]))
            if not rows:
                return None
            t = rows[0]
            members = tuple(MemberRow(r["number"], r["player_id"], r["name"], r["emoji"], r["state"])
                            for r in db.query("SELECT * FROM room_members WHERE table_code = ? ORDER BY number",
                                              [code]))
            seated = tuple(r["player_id"] for r in db.query(
                "SELECT player_id FROM seats WHERE table_code = ? AND kind = 'human' ORDER BY seat", [code]))
        return RoomRow(t["code"], t["host"], json.loads(t["options"]), t["status"], t["partner"], members, seated)

    def player_rooms(self, player_id: str) -> list[str]:
        """Codes of the rooms this person is in that are still waiting to start, newest first."""
        with self._reading() as db:
            return [r["code"] for r in db.query(
                "SELECT t.code FROM room_members m JOIN tables t ON t.code = m.table_code "
                "WHERE m.player_id = ? AND m.state = 'in' AND t.status = 'waiting' ORDER BY t.created DESC",
                [player_id])]
