"""Talk at the table and the people one plays with: a table's chat lines and the people
its host silenced (written as row operations, part of the table's change), and each
person's mutes, blocks, reports and invitations (written at once: they belong to the
person, not to a table).

Imports: stdlib and the storage package's ``base``, ``rows`` and ``core``.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from .base import Db
from .core import StoreCore
from .rows import ChatRow, CoPlayer, ReportRow

_LINE = "SELECT number, at, person, name, emoji, seat, room, kind, text FROM chat_lines"


def _line(r: dict) -> ChatRow:
    return ChatRow(r["number"], r["at"], r["person"], r["name"] or "", r["emoji"] or "", r["seat"], r["room"],
                   r["kind"], r["text"])


@dataclass(frozen=True, slots=True)
class SaveLine:
    """A message or a reaction said at a table (Duplicate when its number is taken)."""

    code: str
    line: ChatRow

    def apply(self, db: Db) -> None:
        x = self.line
        db.execute("INSERT INTO chat_lines (table_code, number, at, person, name, emoji, seat, room, kind, text) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [self.code, x.number, x.at, x.person, x.name, x.emoji, x.seat, x.room, x.kind, x.text])


@dataclass(frozen=True, slots=True)
class PutSilence:
    """The host silences ``person`` at the table (``on``), or lets them talk again."""

    code: str
    person: str
    on: bool
    at: float

    def apply(self, db: Db) -> None:
        db.execute("DELETE FROM chat_silenced WHERE table_code = ? AND person = ?", [self.code, self.person])
        if self.on:
            db.execute("INSERT INTO chat_silenced (table_code, person, at) VALUES (?, ?, ?)",
                       [self.code, self.person, self.at])


class TalkStore(StoreCore):
    """Chat lines, silences, mutes, blocks, reports and invitations."""

    # -- a table's chat ---------------------------------------------------------------
    def chat_lines(self, code: str, limit: int = 100) -> list[ChatRow]:
        """The table's last ``limit`` lines, oldest first."""
        with self._reading() as db:
            rows = list(db.query(f"{_LINE} WHERE table_code = ? ORDER BY number DESC LIMIT ?", [code, limit]))
        return [_line(r) for r in reversed(rows)]

    def chat_line(self, code: str, number: int) -> ChatRow | None:
        with self._reading() as db:
            rows = list(db.query(f"{_LINE} WHERE table_code = ? AND number = ?", [code, number]))
        return _line(rows[0]) if rows else None

    def silenced(self, code: str) -> set[str]:
        with self._reading() as db:
            return {r["person"] for r in db.query("SELECT person FROM chat_silenced WHERE table_code = ?", [code])}

    # -- a person's mutes and blocks ------------------------------------------------------
    def _set(self, table: str, owner: str, person: str, on: bool) -> None:
        with self.transaction() as db:
            db.execute(f"DELETE FROM {table} WHERE owner = ? AND person = ?", [owner, person])
            if on:
                db.execute(f"INSERT INTO {table} (owner, person, at) VALUES (?, ?, ?)", [owner, person, time.time()])

    def set_mute(self, owner: str, person: str, on: bool) -> None:
        self._set("mutes", owner, person, on)

    def set_block(self, owner: str, person: str, on: bool) -> None:
        self._set("blocks", owner, person, on)

    def muted(self, owner: str) -> frozenset[str]:
        """Whose talk this person does not see: the people they muted or blocked."""
        with self._reading() as db:
            return frozenset(r["person"] for r in db.query(
                "SELECT person FROM mutes WHERE owner = ? UNION SELECT person FROM blocks WHERE owner = ?",
                [owner, owner]))

    def blocked(self, owner: str) -> frozenset[str]:
        with self._reading() as db:
            return frozenset(r["person"] for r in db.query("SELECT person FROM blocks WHERE owner = ?", [owner]))

    def blocks_between(self, people: list[str]) -> set[frozenset[str]]:
        """The pairs among ``people`` where one blocked the other."""
        if len(people) < 2:
            return set()
        marks = ", ".join("?" * len(people))
        with self._reading() as db:
            rows = db.query(f"SELECT owner, person FROM blocks WHERE owner IN ({marks}) AND person IN ({marks})",
                            [*people, *people])
            return {frozenset((r["owner"], r["person"])) for r in rows}

    # -- reports --------------------------------------------------------------------------
    def save_report(self, code: str, line: ChatRow, reporter: str, reporter_name: str, before: int = 20) -> int:
        """Keep a report of ``line`` with the ``before`` lines said before it at the table."""
        with self.transaction() as db:
            context = [_line(r) for r in db.query(
                f"{_LINE} WHERE table_code = ? AND number < ? ORDER BY number DESC LIMIT ?",
                [code, line.number, before])]
            said = [{"number": x.number, "at": x.at, "name": x.name, "room": x.room, "text": x.text}
                    for x in reversed(context)]
            [made] = db.query("INSERT INTO reports (at, table_code, number, reporter, reporter_name, reported, "
                              "reported_name, text, context) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                              [time.time(), code, line.number, reporter, reporter_name, line.person, line.name,
                               line.text, json.dumps(said)])
            return int(made["id"])

    def reports(self, limit: int = 200) -> list[ReportRow]:
        """The latest reports, newest first."""
        with self._reading() as db:
            rows = list(db.query("SELECT * FROM reports ORDER BY id DESC LIMIT ?", [limit]))
        return [ReportRow(r["id"], r["at"], r["table_code"], r["number"], r["reporter"], r["reporter_name"],
                          r["reported"], r["reported_name"], r["text"], tuple(json.loads(r["context"] or "[]")))
                for r in rows]

    # -- the people one plays with ----------------------------------------------------------
    def co_players(self, person: str, limit: int = 20) -> list[CoPlayer]:
        """The people with an account who sat at a table with ``person``, the most recent
        first (bots and browsers without an account left out), with the name and emoji
        they last chose (or sat with)."""
        with self._reading() as db:
            rows = list(db.query(
                "SELECT o.player_id AS id, MAX(t.created) AS last, COUNT(DISTINCT t.code) AS tables "
                "FROM seats me JOIN seats o ON o.table_code = me.table_code AND o.player_id != me.player_id "
                "JOIN tables t ON t.code = me.table_code JOIN users u ON u.id = o.player_id "
                "WHERE me.player_id = ? AND o.kind = 'human' GROUP BY o.player_id ORDER BY last DESC LIMIT ?",
                [person, limit]))
            out = []
            for r in rows:
                [seat] = db.query(
                    "SELECT s.name, s.emoji, p.name AS chosen, p.emoji AS chosen_emoji FROM seats s "
                    "JOIN tables t ON t.code = s.table_code LEFT JOIN players p ON p.id = s.player_id "
                    "WHERE s.player_id = ? ORDER BY t.created DESC LIMIT 1", [r["id"]])
                chosen = seat["chosen"] not in (None, "", "You")
                out.append(CoPlayer(r["id"], seat["chosen"] if chosen else seat["name"],
                                    (seat["chosen_emoji"] if chosen else seat["emoji"]) or "", r["last"], r["tables"]))
        return out

    def last_options(self, host: str) -> dict | None:
        """The options of the last table for friends this person made."""
        with self._reading() as db:
            rows = list(db.query("SELECT options FROM tables WHERE host = ? ORDER BY created DESC LIMIT 20", [host]))
        for r in rows:
            options = json.loads(r["options"] or "{}")
            if options.get("kind") not in ("practice", "tourney") and "rules" in options:
                return options
        return None

    def invite(self, people: list[str], code: str, by_name: str) -> None:
        with self.transaction() as db:
            for person in people:
                db.execute("INSERT INTO invitations (person, table_code, by_name, at) VALUES (?, ?, ?, ?)",
                           [person, code, by_name, time.time()])


def move_talk(db: Db, anon_pid: str, user_id: str) -> None:
    """A browser's mutes and blocks become the account's at sign-in (see ``PeopleStore.sign_in``)."""
    for table in ("mutes", "blocks"):
        db.execute(f"UPDATE {table} SET owner = ? WHERE owner = ? AND person NOT IN "
                   f"(SELECT person FROM {table} WHERE owner = ?)", [user_id, anon_pid, user_id])
        db.execute(f"DELETE FROM {table} WHERE owner = ?", [anon_pid])
