"""One tourney as stored, read from its rows with its engine rebuilt: the pure reads every
other part of the service asks (who is in which team, what is pending, who is ready).

Nothing here writes: the rows come from ``Store.load_tourney`` and the changes go back as
the storage's ops, made by ``commands`` and ``transitions``.

Imports: stdlib, the pure engine, the refusals, and ``spades.storage`` (its rows, and the
one read ``load_tourney``).
"""

from __future__ import annotations

import math
from typing import Any

from ..storage import Store, TourneyData, TourneyMatchRow, TourneyPlayerRow
from .errors import TourneyNotFound
from .knockout import Bracket, ready_matches
from .model import Pairing, Round, round_from_json

__all__ = ["Tourney", "load", "find"]


class Tourney:
    """A tourney as stored, with its engine rebuilt; pure reads only."""

    def __init__(self, data: TourneyData) -> None:
        self.row = data.tourney
        self.code = self.row.code
        self.teams = {t.id: t for t in data.teams}
        self.players: dict[int, list[TourneyPlayerRow]] = {t.id: [] for t in data.teams}
        for p in data.players:
            self.players.setdefault(p.team_id, []).append(p)
        self.matches = {(m.round, m.slot): m for m in data.matches}
        engine = self.row.engine or {}
        self.bracket: Bracket | None = Bracket.from_json(engine["bracket"]) if "bracket" in engine else None
        self.swiss: list[Round] = [round_from_json(r) for r in engine.get("rounds", [])]

    @property
    def status(self) -> str:
        return self.row.status

    @property
    def knockout(self) -> bool:
        return self.row.format == "knockout"

    def player(self, player_id: str | None) -> TourneyPlayerRow | None:
        if not player_id:
            return None
        for team_players in self.players.values():
            for p in team_players:
                if p.player_id == player_id:
                    return p
        return None

    def persons(self, team_id: int) -> list[str]:
        return [p.player_id for p in self.players.get(team_id, []) if not p.bot and p.player_id]

    def places(self, extra_teams: int = 0, extra_solos: int = 0) -> int:
        """Places taken: every team registered as one, two solos as one (once started: the
        teams that started)."""
        if self.status != "registering":
            return sum(t.seed is not None for t in self.teams.values())
        live = [t for t in self.teams.values() if t.state == "in"]
        solos = sum(t.solo for t in live) + extra_solos
        return sum(not t.solo for t in live) + extra_teams + math.ceil(solos / 2)

    def checkin_opens(self) -> float | None:
        return None if self.row.start_at is None else self.row.start_at - self.row.checkin_s

    def seed_order(self) -> list[int]:
        """Teams that started, best seed first."""
        seeded = [(t.seed, t.id) for t in self.teams.values() if t.seed is not None]
        return [tid for _, tid in sorted(seeded, key=lambda s: s[0])]

    def pairings(self) -> list[Pairing]:
        """Every pairing so far (knockout: the whole bracket, opponents unknown included)."""
        if self.bracket is not None:
            return self.bracket.pairings()
        return [p for r in self.swiss for p in r.pairings]

    def pending(self) -> list[Pairing]:
        """Pairings with both teams known and no result: due, or playing."""
        if self.bracket is not None:
            return ready_matches(self.bracket)
        return [p for p in (self.swiss[-1].pairings if self.swiss else ()) if p.result is None]

    def team_ready(self, team_id: int, match: TourneyMatchRow) -> bool:
        team = self.teams[team_id]
        return team.state == "in" and all(pid in match.ready for pid in self.persons(team_id))

    def ready_count(self, team_id: int, match: TourneyMatchRow) -> int:
        return sum(pid in match.ready for pid in self.persons(team_id))

    def current(self, team_id: int) -> TourneyMatchRow | None:
        """The team's match waiting for its result (due or playing)."""
        for p in self.pending():
            if team_id in p.teams:
                return self.matches.get(p.key)
        return None

    def better_seed(self, a: int, b: int) -> int:
        """Of two teams, the one seeded higher (a team without a seed counts as last)."""
        seeds = {tid: self.teams[tid].seed or 10**6 for tid in (a, b)}
        return a if seeds[a] <= seeds[b] else b

    def engine_json(self) -> dict[str, Any]:
        if self.bracket is not None:
            return {"bracket": self.bracket.to_json()}
        return {"rounds": [r.to_json() for r in self.swiss]}

    def done(self) -> bool:
        if self.bracket is not None:
            return self.bracket.done
        return len(self.swiss) == self.row.rounds and self.swiss[-1].complete


def load(store: Store, code: str) -> Tourney | None:
    """The tourney with this code (as stored, already upper case), or None."""
    data = store.load_tourney(code)
    return None if data is None else Tourney(data)


def find(store: Store, code: str) -> Tourney:
    """The tourney with this code as a person typed it. Raises TourneyNotFound."""
    t = load(store, code.strip().upper()) if isinstance(code, str) else None
    if t is None:
        raise TourneyNotFound("There is no tourney with that code.")
    return t
