"""Circles (``spades.circles``): a friend group's row, its members, its seasons, the tables
played for it and each finished match's result as the standings read it.

Writes are row operations (``NewCircle``, ``PutCircleMember``, ``PutSeason`` ...) committed
with ``Store.commit``, so a circle's change is one transaction, as a table's is;
``CircleStore`` holds the reads. A result row (``PutCircleResult``) is written once per
finished match of a circle's table (its ``match_id`` is the key), so a page never replays
a match: it reads the rows.

Imports: stdlib and the storage package's ``base`` and ``core``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .base import Conflict, Db, lock
from .core import StoreCore


@dataclass(frozen=True, slots=True)
class CircleRow:
    """A circle: its short address, name, owner, when it was made, and its invite link's
    nonce (a new one when the owner renews the link) with when that was drawn."""

    slug: str
    name: str
    owner: str
    created: float
    invite_nonce: str
    invite_made: float


@dataclass(frozen=True, slots=True)
class CircleMemberRow:
    """A person in a circle: ``role`` owner or member; ``state`` in, left or removed
    (``left``: when they left or were removed); the name and emoji they last chose."""

    person: str
    role: str
    state: str
    joined: float
    left: float | None = None
    name: str = ""
    emoji: str = ""


@dataclass(frozen=True, slots=True)
class SeasonRow:
    """A circle's season ``number`` (from 1): started, due to end, closed once over."""

    number: int
    started: float
    ends: float
    closed: float | None = None


@dataclass(frozen=True, slots=True)
class CircleTableRow:
    """A table played for a circle that is not over: its status (``waiting``: a room),
    its options, its seats' names (a room's: the people in it so far) and the people a
    turn-based table waits on now (their player ids)."""

    code: str
    season: int
    status: str
    created: float
    options: dict
    names: tuple[str, ...]
    waiting_on: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class CircleResultRow:
    """A finished match of a circle's table: ``seats`` (kind, player id or None, name) in
    seat order, ``sides`` the seats of each side, ``scores`` each side's final score,
    ``winner`` the winning side (None: level), ``partners`` a partnership table."""

    match_id: int
    season: int
    table_code: str
    number: int
    finished: float
    partners: bool
    seats: tuple[tuple[str, str | None, str], ...]
    sides: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    winner: int | None


@dataclass(frozen=True, slots=True)
class FinishedMatch:
    """A finished match of a circle's table with no result row yet: what recording it needs."""

    match_id: int
    table_code: str
    number: int
    rules: dict
    seed: str
    winner: int | None
    finished: float
    seats: tuple[tuple[str, str | None, str], ...]


def _circle(r: dict[str, Any]) -> CircleRow:
    return CircleRow(r["slug"], r["name"], r["owner"], r["created"], r["invite_nonce"], r["invite_made"] or 0.0)


def _result(r: dict[str, Any]) -> CircleResultRow:
    return CircleResultRow(r["match_id"], r["season"], r["table_code"], r["number"], r["finished"],
                           bool(r["partners"]), tuple((k, p, n) for k, p, n in json.loads(r["seats"])),
                           tuple(tuple(x) for x in json.loads(r["sides"])), tuple(json.loads(r["scores"])),
                           r["winner"])


@dataclass(frozen=True, slots=True)
class NewCircle:
    """A new circle (Duplicate, a sqlite3.IntegrityError, when the slug is taken)."""

    row: CircleRow

    def apply(self, db: Db) -> None:
        r = self.row
        db.execute("INSERT INTO circles (slug, name, owner, created, invite_nonce, invite_made) "
                   "VALUES (?, ?, ?, ?, ?, ?)", [r.slug, r.name, r.owner, r.created, r.invite_nonce, r.invite_made])


class CirclesOwned(Conflict):
    """One more circle would pass a limit: ``day`` True for the day's, False for the total."""

    def __init__(self, day: bool) -> None:
        super().__init__("circles a day" if day else "circles in all")
        self.day = day


@dataclass(frozen=True, slots=True)
class WithinCircles:
    """Check, in the transaction that makes a circle, that ``owner`` made fewer than
    ``in_all`` circles and fewer than ``per_day`` after ``since``: CirclesOwned otherwise.
    Under the owner's lock (``lock``), so two requests at once count each other."""

    owner: str
    since: float
    per_day: int
    in_all: int

    def apply(self, db: Db) -> None:
        lock(db, "circles-owned/" + self.owner)
        row = next(iter(db.query("SELECT COUNT(*) AS n, SUM(CASE WHEN created > ? THEN 1 ELSE 0 END) AS day "
                                 "FROM circles WHERE owner = ?", [self.since, self.owner])))
        if int(row["n"] or 0) >= self.in_all:
            raise CirclesOwned(day=False)
        if int(row["day"] or 0) >= self.per_day:
            raise CirclesOwned(day=True)


@dataclass(frozen=True, slots=True)
class PutCircleNonce:
    """The circle's invite link renewed: links signed with another nonce are replaced."""

    slug: str
    nonce: str
    at: float

    def apply(self, db: Db) -> None:
        db.execute("UPDATE circles SET invite_nonce = ?, invite_made = ? WHERE slug = ?",
                   [self.nonce, self.at, self.slug])


@dataclass(frozen=True, slots=True)
class PutCircleMember:
    """A person's membership, added or changed (joined again, left, removed)."""

    slug: str
    member: CircleMemberRow

    def apply(self, db: Db) -> None:
        m = self.member
        db.execute("INSERT INTO circle_members (slug, person, role, state, joined, \"left\") VALUES (?, ?, ?, ?, ?, ?) "
                   "ON CONFLICT(slug, person) DO UPDATE SET role = excluded.role, state = excluded.state, "
                   "joined = excluded.joined, \"left\" = excluded.\"left\"",
                   [self.slug, m.person, m.role, m.state, m.joined, m.left])


@dataclass(frozen=True, slots=True)
class PutSeason:
    """A season, added or changed (closed)."""

    slug: str
    season: SeasonRow

    def apply(self, db: Db) -> None:
        x = self.season
        db.execute("INSERT INTO circle_seasons (slug, number, started, ends, closed) VALUES (?, ?, ?, ?, ?) "
                   "ON CONFLICT(slug, number) DO UPDATE SET started = excluded.started, ends = excluded.ends, "
                   "closed = excluded.closed", [self.slug, x.number, x.started, x.ends, x.closed])


@dataclass(frozen=True, slots=True)
class NewSeason:
    """The next season (Duplicate when another request opened it first)."""

    slug: str
    season: SeasonRow

    def apply(self, db: Db) -> None:
        x = self.season
        db.execute("INSERT INTO circle_seasons (slug, number, started, ends, closed) VALUES (?, ?, ?, ?, ?)",
                   [self.slug, x.number, x.started, x.ends, x.closed])


@dataclass(frozen=True, slots=True)
class LinkCircleTable:
    """Table ``code`` is played for the circle, started in season ``season`` by ``by``."""

    code: str
    slug: str
    season: int
    by: str | None
    at: float

    def apply(self, db: Db) -> None:
        db.execute("INSERT INTO circle_tables (table_code, slug, season, by, created) VALUES (?, ?, ?, ?, ?) "
                   "ON CONFLICT DO NOTHING", [self.code, self.slug, self.season, self.by, self.at])


@dataclass(frozen=True, slots=True)
class PutCircleResult:
    """A finished match's result row (kept as it is when it exists)."""

    slug: str
    result: CircleResultRow

    def apply(self, db: Db) -> None:
        x = self.result
        db.execute("INSERT INTO circle_results (match_id, slug, season, table_code, number, finished, partners, seats, "
                   "sides, scores, winner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                   [x.match_id, self.slug, x.season, x.table_code, x.number, x.finished, int(x.partners),
                    json.dumps([list(s) for s in x.seats]), json.dumps([list(s) for s in x.sides]),
                    json.dumps(list(x.scores)), x.winner])


_MEMBER = ("SELECT m.person, m.role, m.state, m.joined, m.\"left\", p.name, p.emoji FROM circle_members m "
           "LEFT JOIN players p ON p.id = m.person")


def _member(r: dict[str, Any]) -> CircleMemberRow:
    return CircleMemberRow(r["person"], r["role"], r["state"], r["joined"], r["left"], r["name"] or "",
                           r["emoji"] or "")


class CircleStore(StoreCore):
    """Circles, their members, seasons, tables and results: the reads."""

    def circle(self, slug: str) -> CircleRow | None:
        with self._reading() as db:
            rows = list(db.query("SELECT * FROM circles WHERE slug = ?", [slug]))
        return _circle(rows[0]) if rows else None

    def circle_member(self, slug: str, person: str) -> CircleMemberRow | None:
        """The person's membership of the circle in any state (None: never a member)."""
        with self._reading() as db:
            rows = list(db.query(f"{_MEMBER} WHERE m.slug = ? AND m.person = ?", [slug, person]))
        return _member(rows[0]) if rows else None

    def circle_members(self, slug: str) -> list[CircleMemberRow]:
        """Everyone who ever belonged to the circle (those who left or were removed too),
        in the order they joined."""
        with self._reading() as db:
            return [_member(r) for r in db.query(f"{_MEMBER} WHERE m.slug = ? ORDER BY m.joined, m.person", [slug])]

    def person_circles(self, person: str) -> list[tuple[CircleRow, str]]:
        """The circles the person is in now, with their role, the newest first."""
        with self._reading() as db:
            return [(_circle(r), r["role"]) for r in db.query(
                "SELECT c.*, m.role FROM circle_members m JOIN circles c ON c.slug = m.slug "
                "WHERE m.person = ? AND m.state = 'in' ORDER BY m.joined DESC", [person])]

    def seasons(self, slug: str) -> list[SeasonRow]:
        """The circle's seasons, the first first."""
        with self._reading() as db:
            return [SeasonRow(r["number"], r["started"], r["ends"], r["closed"]) for r in db.query(
                "SELECT number, started, ends, closed FROM circle_seasons WHERE slug = ? ORDER BY number", [slug])]

    def circle_of_table(self, code: str) -> tuple[str, int] | None:
        """The circle (slug) and season a table is played for, or None."""
        with self._reading() as db:
            rows = list(db.query("SELECT slug, season FROM circle_tables WHERE table_code = ?", [code]))
        return (rows[0]["slug"], rows[0]["season"]) if rows else None

    def circle_open_tables(self, slug: str) -> list[CircleTableRow]:
        """The circle's tables whose room waits or whose match is being played, the newest
        first, with the names at them and whom they wait on."""
        out = []
        with self._reading() as db:
            rows = list(db.query(
                "SELECT c.table_code, c.season, t.status, t.created, t.options FROM circle_tables c "
                "JOIN tables t ON t.code = c.table_code WHERE c.slug = ? AND t.status IN ('waiting', 'playing') "
                "ORDER BY t.created DESC LIMIT 50", [slug]))
            for r in rows:
                code = r["table_code"]
                if r["status"] == "waiting":
                    names = tuple(x["name"] for x in db.query(
                        "SELECT name FROM room_members WHERE table_code = ? AND state = 'in' ORDER BY number", [code]))
                else:
                    names = tuple(x["name"] for x in db.query(
                        "SELECT name FROM seats WHERE table_code = ? ORDER BY seat", [code]))
                waiting = tuple(x["person"] for x in db.query(
                    "SELECT person FROM turns WHERE table_code = ? ORDER BY seat", [code]))
                out.append(CircleTableRow(code, r["season"], r["status"], r["created"],
                                          json.loads(r["options"] or "{}"), names, waiting))
        return out

    def unrecorded_matches(self, slug: str) -> list[FinishedMatch]:
        """The finished matches of the circle's tables with no result row yet, in the order
        they finished."""
        out = []
        with self._reading() as db:
            rows = list(db.query(
                "SELECT m.id, m.table_code, m.number, m.rules, m.seed, m.winner, m.created, "
                "(SELECT MAX(at) FROM actions a WHERE a.match_id = m.id) AS last_move FROM circle_tables c "
                "JOIN matches m ON m.table_code = c.table_code WHERE c.slug = ? AND m.finished = 1 "
                "AND NOT EXISTS (SELECT 1 FROM circle_results r WHERE r.match_id = m.id) ORDER BY m.id", [slug]))
            for r in rows:
                seats = tuple((s["kind"], s["player_id"], s["name"] or "") for s in db.query(
                    "SELECT kind, player_id, name FROM match_seats WHERE match_id = ? ORDER BY seat", [r["id"]]))
                out.append(FinishedMatch(r["id"], r["table_code"], r["number"], json.loads(r["rules"]), r["seed"],
                                         r["winner"], r["last_move"] or r["created"], seats))
        return sorted(out, key=lambda x: (x.finished, x.match_id))

    def circle_results(self, slug: str, season: int | None = None) -> list[CircleResultRow]:
        """The circle's result rows (of one season when given), in the order the matches finished."""
        which, args = ("AND season = ? ", [slug, season]) if season is not None else ("", [slug])
        with self._reading() as db:
            return [_result(r) for r in db.query(
                f"SELECT * FROM circle_results WHERE slug = ? {which}ORDER BY finished, match_id", args)]

    def recent_results(self, slug: str, limit: int = 10) -> list[CircleResultRow]:
        """The circle's last ``limit`` results, the newest first."""
        with self._reading() as db:
            return [_result(r) for r in db.query(
                "SELECT * FROM circle_results WHERE slug = ? ORDER BY finished DESC, match_id DESC LIMIT ?",
                [slug, limit])]

    def results_stamp(self, slug: str, season: int) -> tuple[int, int]:
        """How many result rows a season has and the highest match id among them: what a
        cache of its standings is kept against."""
        with self._reading() as db:
            r = next(iter(db.query("SELECT COUNT(*) AS n, COALESCE(MAX(match_id), 0) AS top FROM circle_results "
                                   "WHERE slug = ? AND season = ?", [slug, season])))
        return int(r["n"]), int(r["top"])

    def names_of(self, people: Sequence[str]) -> dict[str, tuple[str, str]]:
        """The name and emoji each of ``people`` last chose (those known)."""
        if not people:
            return {}
        marks = ", ".join("?" * len(people))
        with self._reading() as db:
            return {r["id"]: (r["name"] or "", r["emoji"] or "") for r in db.query(
                f"SELECT id, name, emoji FROM players WHERE id IN ({marks})", list(people))}
