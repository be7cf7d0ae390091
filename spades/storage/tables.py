"""Tables and their moves: a table (``tables``) is where matches are played; each match
(``matches``) keeps its seed and rules, and its moves in ``actions``, append-only, one row
per version; ``seats`` says who sits where now. State is never stored, only rebuilt:
replaying a match's actions in order gives the exact state back (``spades.tables``).
Writes to a table that plays are row operations (``SaveMove``, ``NewMatch``, ``TakeSeat``
...), committed with the rest of the table's change.

Fair deals (``spades.fairness``): a match's secret in ``deal_secrets`` (``PutDealSecret``;
an empty one marks a match from before, dealt from its seed) and each hand dealt from
it, with its contributions, in ``hands`` (``PutHand``, committed with the hand's deal).

Imports: stdlib and the storage package's ``base``, ``rows``, ``core`` and ``people``
(a person taking a seat is remembered by that name).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .base import Conflict, Db, Op
from .core import StoreCore
from .people import upsert_player
from .rows import MatchRow, SeatRow, TableRow


def insert_seats(db: Db, code: str, seats: Iterable[SeatRow]) -> None:
    """A new table's seats."""
    for s in seats:
        db.execute("INSERT INTO seats (table_code, seat, kind, player_id, name, emoji) VALUES (?, ?, ?, ?, ?, ?)",
                   [code, s.seat, s.kind, s.player_id, s.name, s.emoji])


def insert_match(db: Db, code: str, number: int, seed: str, rules: dict, now: float) -> None:
    """Match ``number`` of a table, at version 0 (a sqlite3.IntegrityError if it exists)."""
    db.execute("INSERT INTO matches (table_code, number, seed, rules, version, created, finished, winner) "
               "VALUES (?, ?, ?, ?, 0, ?, 0, NULL)", [code, number, seed, json.dumps(rules), now])


@dataclass(frozen=True, slots=True)
class SaveMove:
    """An accepted move: its action row and the match's new version (a lost race: Conflict)."""

    match_id: int
    version: int
    seat: int | None
    action: str
    finished: bool = False
    winner: int | None = None

    def apply(self, db: Db) -> None:
        # the guard on the version is what makes two writers of one match take turns
        cur = db.execute("UPDATE matches SET version = ?, finished = ?, winner = ? WHERE id = ? AND version = ?",
                         [self.version, int(self.finished), self.winner, self.match_id, self.version - 1])
        if cur.rowcount != 1:
            raise Conflict(f"match {self.match_id} is not at version {self.version - 1}")
        db.execute("INSERT INTO actions (match_id, version, seat, action, at) VALUES (?, ?, ?, ?, ?)",
                   [self.match_id, self.version, self.seat, self.action, time.time()])
        if self.finished:
            db.execute("UPDATE tables SET status = 'finished' WHERE code = "
                       "(SELECT table_code FROM matches WHERE id = ?)", [self.match_id])


@dataclass(frozen=True, slots=True)
class TakeBack:
    """The person at ``seat`` takes back their last bid or card of the hand going on, and
    every move after it (undo, at a practice table): those moves leave ``actions``, and
    the match's version goes on *up* by as many (a rewind is a change like any other: a
    page or a bot's turn from before it is stale), with one more takeback counted. A lost
    race (the match is not at ``version``): Conflict."""

    match_id: int
    version: int  # the match's version the takeback was decided at
    seat: int

    def apply(self, db: Db) -> None:
        hand = "(SELECT COALESCE(MAX(version), 0) FROM actions WHERE match_id = ? AND action = 'deal')"
        rows = list(db.query(f"SELECT MAX(version) AS v FROM actions WHERE match_id = ? AND seat = ? "
                             f"AND action NOT IN ('deal', 'look') AND version > {hand}",
                             [self.match_id, self.seat, self.match_id]))
        first = rows[0]["v"] if rows else None
        if first is None:
            raise Conflict(f"match {self.match_id}: seat {self.seat} has no move to take back in this hand")
        taken = next(iter(db.query("SELECT COUNT(*) AS n FROM actions WHERE match_id = ? AND version >= ?",
                                   [self.match_id, first])))["n"]
        cur = db.execute("UPDATE matches SET version = ?, takebacks = takebacks + 1 "
                         "WHERE id = ? AND version = ? AND finished = 0",
                         [self.version + taken, self.match_id, self.version])
        if cur.rowcount != 1:
            raise Conflict(f"match {self.match_id} is not at version {self.version}")
        db.execute("DELETE FROM actions WHERE match_id = ? AND version >= ?", [self.match_id, first])


@dataclass(frozen=True, slots=True)
class LeaveSeat:
    """A person leaves for good: the seat becomes a bot's, with ``left_player_id`` saying
    who left (and their hold is over); ``host`` hosts from now on."""

    code: str
    seat: int
    player_id: str
    emoji: str
    host: str | None

    def apply(self, db: Db) -> None:
        db.execute("UPDATE seats SET kind = 'bot', player_id = NULL, left_player_id = ?, emoji = ? "
                   "WHERE table_code = ? AND seat = ?", [self.player_id, self.emoji, self.code, self.seat])
        db.execute("UPDATE tables SET host = ? WHERE code = ?", [self.host, self.code])
        db.execute("DELETE FROM holds WHERE table_code = ? AND seat = ?", [self.code, self.seat])


@dataclass(frozen=True, slots=True)
class TakeSeat:
    """A person joining late takes a bot's seat, and is remembered by that name and emoji
    (Conflict if it is not a bot's any more)."""

    code: str
    seat: int
    player_id: str
    name: str
    emoji: str

    def apply(self, db: Db) -> None:
        cur = db.execute("UPDATE seats SET kind = 'human', player_id = ?, name = ?, emoji = ?, "
                         "left_player_id = NULL WHERE table_code = ? AND seat = ? AND kind = 'bot'",
                         [self.player_id, self.name, self.emoji, self.code, self.seat])
        if cur.rowcount != 1:
            raise Conflict(f"seat {self.seat} at {self.code} is not a bot's")
        upsert_player(db, self.player_id, self.name, self.emoji)


@dataclass(frozen=True, slots=True)
class RenameSeat:
    """The person in a seat changed their name or emoji: the table shows the new ones."""

    code: str
    seat: int
    player_id: str
    name: str
    emoji: str

    def apply(self, db: Db) -> None:
        db.execute("UPDATE seats SET name = ?, emoji = ? WHERE table_code = ? AND seat = ? AND player_id = ? "
                   "AND kind = 'human'", [self.name, self.emoji, self.code, self.seat, self.player_id])


@dataclass(frozen=True, slots=True)
class PutOptions:
    """The table's options, changed while it plays (watching on or off, say)."""

    code: str
    options: dict

    def apply(self, db: Db) -> None:
        db.execute("UPDATE tables SET options = ? WHERE code = ?", [json.dumps(self.options), self.code])


@dataclass(frozen=True, slots=True)
class NewMatch:
    """A rematch: match ``number`` starts (Conflict if it exists); ``seats`` when they change."""

    code: str
    number: int
    seed: str
    rules: dict
    seats: tuple[SeatRow, ...] | None = None

    def apply(self, db: Db) -> None:
        # a unique key taken is Duplicate (an IntegrityError) at the statement on both engines
        try:
            insert_match(db, self.code, self.number, self.seed, self.rules, time.time())
            for s in self.seats or ():
                db.execute("UPDATE seats SET kind = ?, player_id = ?, name = ?, emoji = ? "
                           "WHERE table_code = ? AND seat = ?",
                           [s.kind, s.player_id, s.name, s.emoji, self.code, s.seat])
            db.execute("UPDATE tables SET status = 'playing' WHERE code = ?", [self.code])
        except sqlite3.IntegrityError:
            raise Conflict(f"match {self.number} of {self.code} already exists") from None


@dataclass(frozen=True, slots=True)
class PutDealSecret:
    """Match ``number``'s deal secret (kept when the match has one already: a room draws
    its first match's before the start, to show that deal's commitment)."""

    code: str
    number: int
    secret: str = field(repr=False)

    def apply(self, db: Db) -> None:
        db.execute("INSERT INTO deal_secrets (table_code, match_number, secret, created) VALUES (?, ?, ?, ?) "
                   "ON CONFLICT DO NOTHING", [self.code, self.number, self.secret, time.time()])


@dataclass(frozen=True, slots=True)
class PutHand:
    """Hand ``hand`` of match ``number`` was dealt from the match's secret with these
    contributions (Conflict if that hand is stored already; ``keep``: then it stays as it is)."""

    code: str
    number: int
    hand: int
    contributions: tuple[str, ...] = ()
    keep: bool = False

    def apply(self, db: Db) -> None:
        sql = ("INSERT INTO hands (table_code, match_number, hand, contributions, dealt) VALUES (?, ?, ?, ?, ?)"
               + (" ON CONFLICT DO NOTHING" if self.keep else ""))
        try:
            db.execute(sql, [self.code, self.number, self.hand, json.dumps(list(self.contributions)), time.time()])
        except sqlite3.IntegrityError:
            raise Conflict(f"hand {self.hand} of match {self.number} at {self.code} is dealt already") from None


class TableStore(StoreCore):
    """Tables, matches, seats and moves: the reads, and the writes of their own."""

    def create_table(self, code: str, host: str | None, options: dict, seats: list[SeatRow],
                     seed: str, rules: dict, deal_secret: str | None = None,
                     contributions: Sequence[str] = (), also: Sequence[Op] = ()) -> None:
        """A new table with its seats and its first match, dealt fairly from ``deal_secret``
        and the first hand's ``contributions`` when given, and the ops ``also`` in the same
        transaction (a table of boards claims its people's week). Raises Duplicate (a
        sqlite3.IntegrityError) when the code is taken, and what ``also`` raises."""
        now = time.time()
        with self.transaction() as db:
            for op in also:
                op.apply(db)
            db.execute("INSERT INTO tables (code, created, host, options, status) VALUES (?, ?, ?, ?, 'playing')",
                       [code, now, host, json.dumps(options)])
            insert_seats(db, code, seats)
            insert_match(db, code, 1, seed, rules, now)
            if deal_secret:
                PutDealSecret(code, 1, deal_secret).apply(db)
                PutHand(code, 1, 1, tuple(contributions)).apply(db)

    def new_match(self, code: str, number: int, seed: str, rules: dict) -> None:
        """Start match ``number`` at a table (a rematch). Raises Conflict if it exists."""
        self.commit([NewMatch(code, number, seed, rules)])

    def rematch_seats(self, code: str, number: int, seed: str, rules: dict, seats: list[SeatRow]) -> None:
        """Start match ``number`` with the seats rearranged (a new partner), in one
        transaction. Raises Conflict if that match exists."""
        self.commit([NewMatch(code, number, seed, rules, tuple(seats))])

    def append_action(self, match_id: int, version: int, seat: int | None, action: str,
                      finished: bool = False, winner: int | None = None) -> None:
        """Store one accepted move and the match's new version in one transaction.
        Raises Conflict unless the stored version is ``version - 1`` (a lost race)."""
        self.commit([SaveMove(match_id, version, seat, action, finished, winner)])

    def leave_seat(self, code: str, seat: int, player_id: str, emoji: str, host: str | None) -> None:
        """The person in ``seat`` leaves the match for good: the seat becomes a bot's, with
        ``left_player_id`` saying who left; ``host`` is the table's host from now on."""
        self.commit([LeaveSeat(code, seat, player_id, emoji, host)])

    def take_seat(self, code: str, seat: int, player_id: str, name: str, emoji: str) -> None:
        """A person takes a bot's seat at a table that has started (and is remembered by
        that name and emoji). Raises Conflict if the seat is not a bot's."""
        self.commit([TakeSeat(code, seat, player_id, name, emoji)])

    def put_options(self, code: str, options: dict) -> None:
        self.commit([PutOptions(code, options)])

    def load_table(self, code: str) -> TableRow | None:
        """The table and its current (latest) match, or None for an unknown code."""
        with self._reading() as db:
            rows = list(db.query("SELECT * FROM tables WHERE code = ?", [code]))
            if not rows:
                return None
            t = rows[0]
            seats = tuple(SeatRow(r["seat"], r["kind"], r["player_id"], r["name"], r.get("emoji") or "")
                          for r in db.query("SELECT * FROM seats WHERE table_code = ? ORDER BY seat", [code]))
            m = next(iter(db.query("SELECT * FROM matches WHERE table_code = ? ORDER BY number DESC LIMIT 1",
                                   [code])))
        match = MatchRow(m["id"], m["number"], m["seed"], json.loads(m["rules"]), m["version"], bool(m["finished"]))
        return TableRow(t["code"], t["host"], json.loads(t["options"]), t["status"], seats, match)

    def takebacks(self, code: str, number: int) -> int:
        """How many times a move was taken back in match ``number`` of a table (undo)."""
        with self._reading() as db:
            rows = list(db.query("SELECT takebacks FROM matches WHERE table_code = ? AND number = ?", [code, number]))
        return int(rows[0]["takebacks"] or 0) if rows else 0

    def actions(self, match_id: int) -> list[tuple[int, int | None, str]]:
        """A match's moves in order: (version, seat, action text)."""
        with self._reading() as db:
            return [(r["version"], r["seat"], r["action"]) for r in db.query(
                "SELECT version, seat, action FROM actions WHERE match_id = ? ORDER BY version", [match_id])]

    # -- fair deals ------------------------------------------------------------------
    def deal_secret(self, code: str, number: int) -> str | None:
        """Match ``number``'s deal secret: None when it has none (yet), "" for a match
        dealt from its seed (from before fair deals)."""
        with self._reading() as db:
            rows = list(db.query("SELECT secret FROM deal_secrets WHERE table_code = ? AND match_number = ?",
                                 [code, number]))
        return rows[0]["secret"] if rows else None

    def ensure_deal_secret(self, code: str, number: int, secret: str, first_hand: bool = False) -> str:
        """Match ``number``'s deal secret, ``secret`` stored if it had none (with its
        first hand's row, no contributions, when ``first_hand``)."""
        stored = self.deal_secret(code, number)
        if stored is not None:
            return stored
        ops: list[PutDealSecret | PutHand] = [PutDealSecret(code, number, secret)]
        if first_hand:
            ops.append(PutHand(code, number, 1, keep=True))
        self.commit(ops)
        stored = self.deal_secret(code, number)
        assert stored is not None
        return stored

    def hand_contributions(self, code: str, number: int) -> dict[int, tuple[str, ...]]:
        """The contributions each hand of match ``number`` was dealt with, by hand number."""
        with self._reading() as db:
            return {r["hand"]: tuple(json.loads(r["contributions"])) for r in db.query(
                "SELECT hand, contributions FROM hands WHERE table_code = ? AND match_number = ?", [code, number])}

    def fair_deals(self, code: str, number: int) -> tuple[str, dict[int, tuple[str, ...]]] | None:
        """What rebuilds match ``number``'s deals: its secret and each hand's contributions;
        None for a match dealt from its seed."""
        secret = self.deal_secret(code, number)
        return (secret, self.hand_contributions(code, number)) if secret else None

    def revealed_hands(self) -> list[tuple[str, int, tuple[str, ...], dict]]:
        """Every fairly dealt hand that is over (a later hand was dealt, or its match is
        finished), as (match secret, hand number, contributions, the match's rules): the
        hands whose seeds are revealed, never one being played."""
        with self._reading() as db:
            rows = db.query(
                "SELECT d.secret, h.hand, h.contributions, m.rules FROM hands h "
                "JOIN deal_secrets d ON d.table_code = h.table_code AND d.match_number = h.match_number "
                "JOIN matches m ON m.table_code = h.table_code AND m.number = h.match_number "
                "WHERE d.secret <> '' AND (m.finished = 1 OR EXISTS (SELECT 1 FROM hands n "
                "WHERE n.table_code = h.table_code AND n.match_number = h.match_number AND n.hand = h.hand + 1))")
            return [(r["secret"], r["hand"], tuple(json.loads(r["contributions"])), json.loads(r["rules"]))
                    for r in rows]

    def unfinished_tables(self) -> list[str]:
        """Codes of tables whose current match is still being played (resumed on start-up)."""
        with self._reading() as db:
            return [r["code"] for r in db.query("SELECT code FROM tables WHERE status = 'playing'")]

    def table_exists(self, code: str) -> bool:
        with self._reading() as db:
            return bool(list(db.query("SELECT 1 FROM tables WHERE code = ?", [code])))

    def table_status(self, code: str) -> str | None:
        with self._reading() as db:
            rows = list(db.query("SELECT status FROM tables WHERE code = ?", [code]))
        return rows[0]["status"] if rows else None

    def table_options(self, code: str) -> dict:
        with self._reading() as db:
            rows = list(db.query("SELECT options FROM tables WHERE code = ?", [code]))
        return json.loads(rows[0]["options"] or "{}") if rows else {}

    def left_seats(self, code: str) -> frozenset[int]:
        """Seats a person left for good (a bot plays them)."""
        with self._reading() as db:
            return frozenset(r["seat"] for r in db.query(
                "SELECT seat FROM seats WHERE table_code = ? AND kind = 'bot' AND left_player_id IS NOT NULL",
                [code]))

    def stats(self) -> dict[str, Any]:
        """Row counts (for diagnostics and tests)."""
        with self._reading() as db:
            return {name: next(iter(db.query(f"SELECT COUNT(*) AS n FROM {name}")))["n"]
                    for name in ("players", "tables", "matches", "seats", "actions")}
