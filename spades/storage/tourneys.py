"""Tourneys (``spades.tourney.service``): a tourney's row, its teams, players, pairings
and ready marks. Writes are row operations (``NewTourney``, ``PutTourney``,
``PutTourneyTeam`` ...) committed with ``Store.commit``, so a tourney's change is one
transaction, as a table's is; ``TourneyStore`` holds the reads and moving a person's
registrations to an account.

Imports: stdlib and the storage package's ``base``, ``rows`` and ``core``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .base import Db
from .core import StoreCore
from .rows import TourneyData, TourneyMatchRow, TourneyPlayerRow, TourneyRow, TourneySummary, TourneyTeamRow

_TOURNEY_FIELDS = {"name", "format", "rounds", "team_limit", "start_at", "checkin_s", "listed", "bot_fill",
                   "director", "status", "created", "started", "finished", "seed", "engine", "note", "duplicate"}


def _tourney(r: dict[str, Any]) -> TourneyRow:
    return TourneyRow(r["code"], r["name"], r["format"], r["rounds"], r["team_limit"], r["start_at"],
                      r["checkin_s"] or 0.0, bool(r["listed"]), bool(r["bot_fill"]), r["director"], r["status"],
                      r["created"], r["started"], r["finished"], r["seed"] or "",
                      json.loads(r["engine"]) if r["engine"] else None, r["note"] or "",
                      bool(r["duplicate"]))


def move_registrations(db: Db, old_id: str, new_id: str) -> None:
    """A person's registrations, ready marks and directing move to another player id (an
    anonymous browser signing in), except in tourneys where the new id is already in."""
    db.execute("UPDATE tourney_players SET player_id = ? WHERE player_id = ? AND tourney_code NOT IN "
               "(SELECT tourney_code FROM tourney_players WHERE player_id = ?)", [new_id, old_id, new_id])
    # the old id's mark for a pairing the new id has marked already stays (the keys would clash)
    db.execute("UPDATE tourney_ready SET player_id = ? WHERE player_id = ? AND NOT EXISTS "
               "(SELECT 1 FROM tourney_ready r WHERE r.player_id = ? "
               "AND r.tourney_code = tourney_ready.tourney_code AND r.round = tourney_ready.round "
               "AND r.slot = tourney_ready.slot)", [new_id, old_id, new_id])
    db.execute("UPDATE tourneys SET director = ? WHERE director = ?", [new_id, old_id])


@dataclass(frozen=True, slots=True)
class NewTourney:
    """A new tourney (Duplicate, a sqlite3.IntegrityError, when the code is taken)."""

    row: TourneyRow

    def apply(self, db: Db) -> None:
        r = self.row
        db.execute(
            "INSERT INTO tourneys (code, name, format, rounds, team_limit, start_at, checkin_s, listed, bot_fill, "
            "director, status, created, started, finished, seed, engine, note, duplicate) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [r.code, r.name, r.format, r.rounds, r.team_limit, r.start_at, r.checkin_s, int(r.listed),
             int(r.bot_fill), r.director, r.status, r.created, r.started, r.finished, r.seed,
             None if r.engine is None else json.dumps(r.engine), r.note, int(r.duplicate)])


@dataclass(frozen=True, slots=True)
class PutTourney:
    """Some fields of a tourney's row (status, started, engine ...)."""

    code: str
    fields: dict

    def apply(self, db: Db) -> None:
        bad = set(self.fields) - _TOURNEY_FIELDS
        if bad:
            raise ValueError(f"not tourney fields: {sorted(bad)}")
        values = {k: (json.dumps(v) if k == "engine" and v is not None else v) for k, v in self.fields.items()}
        values = {k: (int(v) if isinstance(v, bool) else v) for k, v in values.items()}
        sets = ", ".join(f"{k} = ?" for k in values)
        db.execute(f"UPDATE tourneys SET {sets} WHERE code = ?", [*values.values(), self.code])


@dataclass(frozen=True, slots=True)
class PutTourneyTeam:
    """A team, added or changed."""

    code: str
    team: TourneyTeamRow

    def apply(self, db: Db) -> None:
        t = self.team
        db.execute(
            "INSERT INTO tourney_teams (tourney_code, id, token, solo, bot, state, note, seed, created) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(tourney_code, id) DO UPDATE SET token = excluded.token, "
            "solo = excluded.solo, bot = excluded.bot, state = excluded.state, note = excluded.note, "
            "seed = excluded.seed",
            [self.code, t.id, t.token, int(t.solo), int(t.bot), t.state, t.note, t.seed, t.created])


@dataclass(frozen=True, slots=True)
class PutTourneyPlayer:
    """A person (or a bot partner) in a team's slot, added or changed (Duplicate, a
    sqlite3.IntegrityError, when that person is in another team of the tourney)."""

    code: str
    player: TourneyPlayerRow

    def apply(self, db: Db) -> None:
        p = self.player
        db.execute(
            "INSERT INTO tourney_players (tourney_code, team_id, slot, player_id, name, emoji, bot, checked_in, "
            "joined) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(tourney_code, team_id, slot) DO UPDATE SET "
            "player_id = excluded.player_id, name = excluded.name, emoji = excluded.emoji, bot = excluded.bot, "
            "checked_in = excluded.checked_in",
            [self.code, p.team_id, p.slot, p.player_id, p.name, p.emoji, int(p.bot), p.checked_in, p.joined])


@dataclass(frozen=True, slots=True)
class DropTourneyPlayer:
    """A team's slot emptied (a solo moving into the team it is paired with)."""

    code: str
    team_id: int
    slot: int

    def apply(self, db: Db) -> None:
        db.execute("DELETE FROM tourney_players WHERE tourney_code = ? AND team_id = ? AND slot = ?",
                   [self.code, self.team_id, self.slot])


@dataclass(frozen=True, slots=True)
class PutTourneyMatch:
    """A pairing, added or changed (its ready marks are ``PutTourneyReady``'s)."""

    code: str
    match: TourneyMatchRow

    def apply(self, db: Db) -> None:
        m = self.match
        a, b = m.score if m.score is not None else (None, None)
        db.execute(
            "INSERT INTO tourney_matches (tourney_code, round, slot, team_a, team_b, target, due, table_code, winner, "
            "score_a, score_b, hands, walkover, note, done) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(tourney_code, round, slot) DO UPDATE SET team_a = excluded.team_a, "
            "team_b = excluded.team_b, target = excluded.target, due = excluded.due, "
            "table_code = excluded.table_code, winner = excluded.winner, score_a = excluded.score_a, "
            "score_b = excluded.score_b, hands = excluded.hands, walkover = excluded.walkover, "
            "note = excluded.note, done = excluded.done",
            [self.code, m.round, m.slot, m.team_a, m.team_b, m.target, m.due, m.table_code, m.winner, a, b,
             m.hands, int(m.walkover), m.note, m.done])


@dataclass(frozen=True, slots=True)
class PutTourneyReady:
    """A person pressed Ready for a pairing (pressing twice keeps the first time)."""

    code: str
    round: int
    slot: int
    player_id: str
    at: float

    def apply(self, db: Db) -> None:
        db.execute("INSERT INTO tourney_ready (tourney_code, round, slot, player_id, at) "
                   "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                   [self.code, self.round, self.slot, self.player_id, self.at])


class TourneyStore(StoreCore):
    """Tourneys' reads, and moving a person's registrations; every other write is a row
    operation above, through ``commit``."""

    def load_tourney(self, code: str) -> TourneyData | None:
        """A tourney with its teams, players and pairings (ready marks included), or None."""
        with self._reading() as db:
            rows = list(db.query("SELECT * FROM tourneys WHERE code = ?", [code]))
            if not rows:
                return None
            teams = list(db.query("SELECT * FROM tourney_teams WHERE tourney_code = ? ORDER BY id", [code]))
            players = list(db.query("SELECT * FROM tourney_players WHERE tourney_code = ? ORDER BY team_id, slot",
                                    [code]))
            marks = list(db.query("SELECT round, slot, player_id FROM tourney_ready WHERE tourney_code = ? "
                                  "ORDER BY at", [code]))
            pairings = list(db.query("SELECT * FROM tourney_matches WHERE tourney_code = ? ORDER BY round, slot",
                                     [code]))
        ready: dict[tuple[int, int], list[str]] = {}
        for r in marks:
            ready.setdefault((r["round"], r["slot"]), []).append(r["player_id"])
        return TourneyData(
            _tourney(rows[0]),
            tuple(TourneyTeamRow(r["id"], r["token"], bool(r["solo"]), bool(r["bot"]), r["state"], r["note"] or "",
                                 r["seed"], r["created"]) for r in teams),
            tuple(TourneyPlayerRow(r["team_id"], r["slot"], r["player_id"], r["name"], r["emoji"] or "",
                                   bool(r["bot"]), r["checked_in"], r["joined"]) for r in players),
            tuple(TourneyMatchRow(r["round"], r["slot"], r["team_a"], r["team_b"], r["target"], r["due"],
                                  r["table_code"], r["winner"],
                                  None if r["hands"] is None else (r["score_a"], r["score_b"]), r["hands"],
                                  bool(r["walkover"]), r["note"] or "", r["done"],
                                  tuple(ready.get((r["round"], r["slot"]), ())))
                  for r in pairings))

    def tourney_codes(self, statuses: Sequence[str]) -> list[str]:
        """Codes of the tourneys in those statuses, oldest first."""
        if not statuses:
            return []
        marks = ",".join("?" * len(statuses))
        with self._reading() as db:
            return [r["code"] for r in db.query(
                f"SELECT code FROM tourneys WHERE status IN ({marks}) ORDER BY created, code", list(statuses))]

    def tourney_summaries(self, statuses: Sequence[str], listed_only: bool = True,
                          limit: int = 100, offset: int = 0) -> list[TourneySummary]:
        """Tourneys in those statuses (only the publicly listed ones unless told), with the
        places taken (registering: a team each, two solos one; later: the teams that
        started), ``limit`` of them from the ``offset``-th. Registering ones first, soonest
        start first (no start time last), then running, then finished, latest first."""
        if not statuses:
            return []
        marks = ",".join("?" * len(statuses))
        listed = "AND t.listed = 1" if listed_only else ""
        # COUNTs, not SUMs: an integer on both engines (PostgreSQL sums BIGINTs as NUMERIC), so
        # the halving of the solos is an integer division on both
        with self._reading() as db:
            rows = list(db.query(
                "SELECT t.*, CASE WHEN t.status = 'registering' THEN "
                "(SELECT COUNT(CASE WHEN solo = 0 THEN 1 END) + (COUNT(CASE WHEN solo <> 0 THEN 1 END) + 1) / 2 "
                "FROM tourney_teams WHERE tourney_code = t.code AND state = 'in') "
                "ELSE (SELECT COUNT(*) FROM tourney_teams WHERE tourney_code = t.code AND seed IS NOT NULL) "
                "END AS places "
                f"FROM tourneys t WHERE t.status IN ({marks}) {listed} "
                "ORDER BY CASE t.status WHEN 'registering' THEN 0 WHEN 'running' THEN 1 ELSE 2 END, "
                "CASE WHEN t.status = 'registering' THEN COALESCE(t.start_at, 1e18) "
                "ELSE -COALESCE(t.finished, t.started, t.created) END, t.created DESC, t.code LIMIT ? OFFSET ?",
                [*statuses, limit, offset]))
        return [TourneySummary(r["code"], r["name"], r["format"], r["status"], r["start_at"], r["created"],
                               r["started"], r["finished"], r["team_limit"], r["places"]) for r in rows]

    def tourney_finished_tables(self, code: str) -> list[str]:
        """Tables of the tourney's pairings without a result whose (first) match is over."""
        with self._reading() as db:
            return [r["table_code"] for r in db.query(
                "SELECT tm.table_code FROM tourney_matches tm JOIN matches m ON m.table_code = tm.table_code "
                "AND m.number = 1 WHERE tm.tourney_code = ? AND tm.hands IS NULL AND m.finished = 1 "
                "ORDER BY tm.round, tm.slot", [code])]

    def tourney_round_of_table(self, table_code: str) -> tuple[str, int] | None:
        """The tourney and round whose pairing table ``table_code`` plays, or None."""
        with self._reading() as db:
            rows = list(db.query("SELECT tourney_code, round FROM tourney_matches WHERE table_code = ? LIMIT 1",
                                 [table_code]))
        return (rows[0]["tourney_code"], int(rows[0]["round"])) if rows else None

    def tourney_table(self, code: str, round_number: int, slot: int) -> str | None:
        """The table made for that pairing, found by its options (a table made just before
        a crash, before its code was stored with the pairing), or None."""
        # the options are JSON text and the engines read JSON differently: LIKE narrows the
        # rows down to the tourney's (its code is in them), Python reads the options
        with self._reading() as db:
            rows = list(db.query("SELECT code, options FROM tables WHERE options LIKE ? ORDER BY created",
                                 [f"%{code}%"]))
        for r in rows:
            options = json.loads(r["options"] or "{}")
            if (options.get("tourney"), options.get("round"), options.get("slot")) == (code, round_number, slot):
                return r["code"]
        return None

    def player_tourneys(self, player_id: str) -> list[str]:
        """Codes of the tourneys this person is registered in, newest first."""
        with self._reading() as db:
            return [r["code"] for r in db.query(
                "SELECT t.code FROM tourney_players p JOIN tourneys t ON t.code = p.tourney_code "
                "WHERE p.player_id = ? ORDER BY t.created DESC", [player_id])]

    def move_tourney_player(self, old_id: str, new_id: str) -> None:
        """A person's registrations, ready marks and directing move to another player id
        (an anonymous browser signing in), except in tourneys where the new id is already in."""
        with self.transaction() as db:
            move_registrations(db, old_id, new_id)
