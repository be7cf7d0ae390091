"""Game nights (``spades.circles.nights``): a circle's scheduled evenings, the members'
answers, who is on the circle's page now, the reminders and notices sent, the tables a
night made, the circle's pairing rule and fixed pairs, and who turned the nights' mails off.

Writes are row operations (``NewNight``, ``PutNightAnswer``, ``MoveNight`` ...) committed
with ``Store.commit``; ``NightStore`` holds the reads. A reminder, a push notice or a
person's move to their table is claimed once per person and occurrence of a night
(``ClaimNightSend``: a plain insert, so a second claim is a ``Duplicate``), which is what
keeps each one to once however often the tick runs. A reminder mail is also claimed once
a day per person and circle (``ClaimNightReminder``: one row per circle and person, moved
on by a conditional upsert), so however many nights a circle schedules or cancels, and
however many processes send, a member gets at most one reminder a day from it.

Imports: stdlib and the storage package's ``base`` and ``core``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .base import Conflict, Db, Duplicate
from .core import StoreCore


@dataclass(frozen=True, slots=True)
class NightRow:
    """A game night of circle ``circle``: its next occurrence's wall-clock start ``local``
    (``YYYY-MM-DDTHH:MM``) in the IANA zone ``zone`` and that moment in epoch seconds
    (``starts``); ``first`` the first occurrence's wall-clock start (a weekly night's
    calendar series starts there); ``occurrence`` counts the occurrences gone by (0 for
    the first); ``state`` scheduled, cancelled or over."""

    id: str
    circle: str
    local: str
    zone: str
    starts: float
    weekly: bool
    first: str
    occurrence: int
    state: str
    created: float
    made_by: str


@dataclass(frozen=True, slots=True)
class NightTableRow:
    """A table a night made at one of its occurrences, and its seats' people in seat order
    (an empty string for a bot's seat)."""

    night: str
    occurrence: int
    code: str
    people: tuple[str, ...]
    created: float


def _night(r: dict[str, Any]) -> NightRow:
    return NightRow(r["id"], r["circle"], r["local"], r["zone"], r["starts"], bool(r["weekly"]), r["first"],
                    r["occurrence"], r["state"], r["created"], r["made_by"] or "")


def _table(r: dict[str, Any]) -> NightTableRow:
    return NightTableRow(r["night"], r["occurrence"], r["code"], tuple(json.loads(r["people"])), r["created"])


@dataclass(frozen=True, slots=True)
class NewNight:
    """A game night scheduled."""

    row: NightRow

    def apply(self, db: Db) -> None:
        r = self.row
        db.execute("INSERT INTO game_nights (id, circle, local, zone, starts, weekly, first, occurrence, state, "
                   "created, made_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [r.id, r.circle, r.local, r.zone, r.starts, int(r.weekly), r.first, r.occurrence, r.state,
                    r.created, r.made_by])


@dataclass(frozen=True, slots=True)
class MoveNight:
    """Night ``id`` at occurrence ``occurrence`` goes on to its next one (``local``,
    ``starts``) or ends (``state`` over or cancelled). Conflict when another process moved
    it first."""

    id: str
    occurrence: int
    local: str
    starts: float
    state: str
    next_occurrence: int

    def apply(self, db: Db) -> None:
        cur = db.execute("UPDATE game_nights SET local = ?, starts = ?, state = ?, occurrence = ? "
                         "WHERE id = ? AND occurrence = ? AND state = 'scheduled'",
                         [self.local, self.starts, self.state, self.next_occurrence, self.id, self.occurrence])
        if cur.rowcount != 1:
            raise Conflict(f"game night {self.id} moved on already")


@dataclass(frozen=True, slots=True)
class PutNightAnswer:
    """A member's answer (yes, maybe or no) to one occurrence of a night, given or changed."""

    night: str
    occurrence: int
    person: str
    answer: str
    at: float

    def apply(self, db: Db) -> None:
        db.execute("INSERT INTO night_answers (night, occurrence, person, answer, at) VALUES (?, ?, ?, ?, ?) "
                   "ON CONFLICT(night, occurrence, person) DO UPDATE SET answer = excluded.answer, at = excluded.at",
                   [self.night, self.occurrence, self.person, self.answer, self.at])


@dataclass(frozen=True, slots=True)
class PutHere:
    """A member's circle page said "here" at ``at``."""

    circle: str
    person: str
    at: float

    def apply(self, db: Db) -> None:
        db.execute("INSERT INTO night_presence (circle, person, seen) VALUES (?, ?, ?) "
                   "ON CONFLICT(circle, person) DO UPDATE SET seen = excluded.seen",
                   [self.circle, self.person, self.at])


@dataclass(frozen=True, slots=True)
class ClaimNightSend:
    """One ``kind`` of message (mail, push, seated) to ``person`` for an occurrence of a
    night, claimed before it is sent: Duplicate when it was claimed already."""

    night: str
    occurrence: int
    person: str
    kind: str
    at: float

    def apply(self, db: Db) -> None:
        db.execute("INSERT INTO night_sent (night, occurrence, person, kind, at) VALUES (?, ?, ?, ?, ?)",
                   [self.night, self.occurrence, self.person, self.kind, self.at])


@dataclass(frozen=True, slots=True)
class DropNightSend:
    """A claim given back (the mail could not be sent: the next tick tries again)."""

    night: str
    occurrence: int
    person: str
    kind: str

    def apply(self, db: Db) -> None:
        db.execute("DELETE FROM night_sent WHERE night = ? AND occurrence = ? AND person = ? AND kind = ?",
                   [self.night, self.occurrence, self.person, self.kind])


@dataclass(frozen=True, slots=True)
class ClaimNightReminder:
    """A reminder mail of circle ``circle`` to ``person`` at ``at``, claimed before it is
    sent: Duplicate when one was claimed less than ``every`` seconds (a day) before. The
    check and the write are one statement (an upsert whose update holds only when the last
    claim is old enough), so two processes claiming at once get one claim between them on
    either engine: SQLite takes writers one at a time, PostgreSQL locks the conflicting row
    and reads its latest version before the update's condition."""

    circle: str
    person: str
    at: float
    every: float

    def apply(self, db: Db) -> None:
        cur = db.execute("INSERT INTO night_reminded (circle, person, at) VALUES (?, ?, ?) "
                         "ON CONFLICT(circle, person) DO UPDATE SET at = excluded.at "
                         "WHERE night_reminded.at <= excluded.at - ?",
                         [self.circle, self.person, self.at, self.every])
        if cur.rowcount != 1:
            raise Duplicate(f"{self.person} had a reminder of {self.circle} within {self.every:.0f} s")


@dataclass(frozen=True, slots=True)
class DropNightReminder:
    """A reminder claim given back (the mail was not sent): the row goes, if it is still
    the one claimed at ``at`` (the claim before it was a day old or more, so nothing of
    the rule is lost with it)."""

    circle: str
    person: str
    at: float

    def apply(self, db: Db) -> None:
        db.execute("DELETE FROM night_reminded WHERE circle = ? AND person = ? AND at = ?",
                   [self.circle, self.person, self.at])


@dataclass(frozen=True, slots=True)
class AddNightTable:
    """A table made by a night's occurrence, with the people seated at it."""

    row: NightTableRow

    def apply(self, db: Db) -> None:
        r = self.row
        db.execute("INSERT INTO night_tables (code, night, occurrence, people, created) VALUES (?, ?, ?, ?, ?)",
                   [r.code, r.night, r.occurrence, json.dumps(list(r.people)), r.created])


@dataclass(frozen=True, slots=True)
class PutPairing:
    """The circle's pairing rule for its nights: ``rotate`` or ``fixed``."""

    circle: str
    pairing: str

    def apply(self, db: Db) -> None:
        db.execute("INSERT INTO night_settings (circle, pairing) VALUES (?, ?) "
                   "ON CONFLICT(circle) DO UPDATE SET pairing = excluded.pairing", [self.circle, self.pairing])


@dataclass(frozen=True, slots=True)
class PutFixedPair:
    """Two members who keep partnering at the circle's nights (the fixed pairs' rule)."""

    circle: str
    a: str
    b: str

    def apply(self, db: Db) -> None:
        for one, other in ((self.a, self.b), (self.b, self.a)):
            db.execute("INSERT INTO night_pairs (circle, person, partner) VALUES (?, ?, ?) "
                       "ON CONFLICT(circle, person) DO UPDATE SET partner = excluded.partner",
                       [self.circle, one, other])


@dataclass(frozen=True, slots=True)
class PutNightMailOff:
    """A person turned the game nights' mails of a circle off."""

    circle: str
    person: str
    at: float

    def apply(self, db: Db) -> None:
        db.execute("INSERT INTO night_mail_off (circle, person, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                   [self.circle, self.person, self.at])


class NightStore(StoreCore):
    """Game nights, their answers, presence, messages sent and tables: the reads."""

    def night(self, night_id: str) -> NightRow | None:
        with self._reading() as db:
            rows = list(db.query("SELECT * FROM game_nights WHERE id = ?", [night_id]))
        return _night(rows[0]) if rows else None

    def circle_nights(self, circle: str) -> list[NightRow]:
        """The circle's scheduled nights, the soonest first."""
        with self._reading() as db:
            return [_night(r) for r in db.query(
                "SELECT * FROM game_nights WHERE circle = ? AND state = 'scheduled' ORDER BY starts, id", [circle])]

    def nights_due(self, before: float) -> list[NightRow]:
        """Every scheduled night starting before ``before`` (epoch seconds), the soonest first."""
        with self._reading() as db:
            return [_night(r) for r in db.query(
                "SELECT * FROM game_nights WHERE state = 'scheduled' AND starts < ? ORDER BY starts, id", [before])]

    def night_answers(self, night: str, occurrence: int) -> dict[str, str]:
        """Each member's answer to the occurrence: person -> yes, maybe or no."""
        with self._reading() as db:
            return {r["person"]: r["answer"] for r in db.query(
                "SELECT person, answer FROM night_answers WHERE night = ? AND occurrence = ? ORDER BY at",
                [night, occurrence])}

    def here_since(self, circle: str, since: float) -> set[str]:
        """The people whose circle page said "here" after ``since``."""
        with self._reading() as db:
            return {r["person"] for r in db.query(
                "SELECT person FROM night_presence WHERE circle = ? AND seen > ?", [circle, since])}

    def night_tables(self, night: str, occurrence: int | None = None) -> list[NightTableRow]:
        """The tables a night made (at one occurrence when given), the oldest first."""
        which, args = ("AND occurrence = ? ", [night, occurrence]) if occurrence is not None else ("", [night])
        with self._reading() as db:
            rows = list(db.query(f"SELECT * FROM night_tables WHERE night = ? {which}ORDER BY created, code", args))
        return [_table(r) for r in rows]

    def circle_night_tables(self, circle: str, since: float = 0.0) -> list[NightTableRow]:
        """The tables every night of the circle made after ``since``, the oldest first."""
        with self._reading() as db:
            rows = list(db.query("SELECT t.* FROM night_tables t JOIN game_nights n ON n.id = t.night "
                                 "WHERE n.circle = ? AND t.created > ? ORDER BY t.created, t.code", [circle, since]))
        return [_table(r) for r in rows]

    def night_sent(self, night: str, occurrence: int, kind: str) -> set[str]:
        """Whom a ``kind`` of message went to for an occurrence."""
        with self._reading() as db:
            return {r["person"] for r in db.query(
                "SELECT person FROM night_sent WHERE night = ? AND occurrence = ? AND kind = ?",
                [night, occurrence, kind])}

    def reminded_since(self, circle: str, since: float) -> set[str]:
        """The people mailed a reminder of the circle's nights after ``since``."""
        with self._reading() as db:
            return {r["person"] for r in db.query(
                "SELECT person FROM night_reminded WHERE circle = ? AND at > ?", [circle, since])}

    def night_pairing(self, circle: str) -> str:
        """The circle's pairing rule (``rotate`` unless its owner chose ``fixed``)."""
        with self._reading() as db:
            rows = list(db.query("SELECT pairing FROM night_settings WHERE circle = ?", [circle]))
        return rows[0]["pairing"] if rows else "rotate"

    def fixed_partners(self, circle: str) -> dict[str, str]:
        """The circle's fixed pairs: person -> partner (both ways)."""
        with self._reading() as db:
            return {r["person"]: r["partner"] for r in db.query(
                "SELECT person, partner FROM night_pairs WHERE circle = ?", [circle])}

    def night_mail_off(self, circle: str) -> set[str]:
        """The people who turned the circle's game-night mails off."""
        with self._reading() as db:
            return {r["person"] for r in db.query("SELECT person FROM night_mail_off WHERE circle = ?", [circle])}
