"""The values of a tourney: teams, results, pairings, rounds and ranks, and their JSON.

Every value is a small frozen dataclass; the knockout and Swiss modules build them and
return new ones instead of changing old ones. ``to_json`` gives exactly the shapes the
site stores and the tourney command prints::

    round: {"number", "target", "tables": [table], "byes": [id]}
    table: {"teams": [id, id], "winner": id, "score": [a, b], "hands": n}
    rank:  {"team": id, "rank": r}

Decisions where the rules are silent:
- A team id is an ``int`` or a ``str`` (anything JSON keeps as it is).
- A score is in the order of the pairing's ``teams``, never winner first.
- A walkover (one team not ready in time: "a loss for the round") is a result with
  ``hands == 0``, score ``(0, 0)`` and the ready team as ``winner``. Both teams not ready
  is a result with ``winner None`` (both lose; Swiss only, a knockout needs a winner).
  A played match has ``hands >= 1``, so ``hands == 0`` alone tells a walkover in JSON,
  which keeps the table's shape exactly as above.
- A table not played yet writes ``winner``, ``score`` and ``hands`` as ``null``.
- A shared rank is the number shared: two teams third equal both have rank 3 ("3=").

Imports: stdlib only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeAlias

__all__ = [
    "TeamId", "TourneyError", "TARGET", "FINAL_TARGET", "Team", "Result", "Pairing",
    "Round", "Rank", "rounds_json", "ranks_json", "round_from_json", "rank_label",
]

TeamId: TypeAlias = int | str

TARGET = 300        # a tourney match's target (RULES.md: no bidding, to 300)
FINAL_TARGET = 500  # the final rounds: knockout semifinals and final, Swiss last round


class TourneyError(ValueError):
    """A request the tourney cannot take; ``str(error)`` says why in plain words."""


@dataclass(frozen=True, slots=True)
class Team:
    """A team: its id and its two players' names (``None`` for a bot partner)."""

    id: TeamId
    players: tuple[str | None, ...]

    def to_json(self, bot_name: str = "Bot") -> dict[str, Any]:
        """``{"id", "players": [names]}``, a bot partner named ``bot_name``."""
        return {"id": self.id, "players": [bot_name if p is None else p for p in self.players]}


@dataclass(frozen=True, slots=True)
class Result:
    """How a pairing ended. Build one with ``played``, ``walkover`` or ``no_show``.

    Raises ``TourneyError`` for an inconsistent result (a walkover with points, no hands
    played but a score, ...).
    """

    winner: TeamId | None
    score: tuple[int, int] = (0, 0)
    hands: int = 0

    def __post_init__(self) -> None:
        if self.hands < 0:
            raise TourneyError("A match cannot have fewer than 0 hands.")
        if self.hands == 0 and tuple(self.score) != (0, 0):
            raise TourneyError("A match that was not played has no score.")
        if self.winner is None and self.hands:
            raise TourneyError("A played match has a winner.")
        object.__setattr__(self, "score", (int(self.score[0]), int(self.score[1])))

    @classmethod
    def played(cls, winner: TeamId, score: Sequence[int], hands: int) -> Result:
        """A match played to its end: ``score`` in the order of the pairing's teams."""
        if hands < 1:
            raise TourneyError("A played match has at least one hand.")
        a, b = score
        return cls(winner, (a, b), hands)

    @classmethod
    def walkover(cls, winner: TeamId) -> Result:
        """The other team was not ready in time: it loses, no points either way."""
        return cls(winner, (0, 0), 0)

    @classmethod
    def no_show(cls) -> Result:
        """Neither team was ready in time: both lose, no points (Swiss only)."""
        return cls(None, (0, 0), 0)

    @property
    def is_walkover(self) -> bool:
        """True when the match was not played (a walkover or a no-show)."""
        return self.hands == 0


@dataclass(frozen=True, slots=True)
class Pairing:
    """One match of a round: two teams at one table.

    ``round`` counts from 1; ``slot`` is the pairing's place in its round, from 0: the
    table number in Swiss, the position top to bottom in a knockout bracket (so a knockout
    round 1 with byes skips the byes' slots). A team not known yet (a knockout match
    waiting for an earlier winner) is ``None``.
    """

    round: int
    slot: int
    teams: tuple[TeamId | None, TeamId | None]
    target: int
    result: Result | None = None

    @property
    def key(self) -> tuple[int, int]:
        """``(round, slot)``: what ``record_result`` takes."""
        return (self.round, self.slot)

    @property
    def known(self) -> bool:
        """Both opponents are known."""
        return self.teams[0] is not None and self.teams[1] is not None

    @property
    def ready(self) -> bool:
        """Both opponents are known and the match has no result yet: it can start now."""
        return self.known and self.result is None

    @property
    def loser(self) -> TeamId | None:
        """The team that lost (``None`` before the result, or for a no-show)."""
        if self.result is None or self.result.winner is None:
            return None
        a, b = self.teams
        return b if self.result.winner == a else a

    def with_result(self, result: Result, *, allow_no_show: bool = True) -> Pairing:
        """This pairing with ``result``; raises ``TourneyError`` if it cannot take it."""
        if not self.known:
            raise TourneyError("This match is waiting for its opponents.")
        if self.result is not None:
            raise TourneyError("This match already has a result.")
        if result.winner is None and not allow_no_show:
            raise TourneyError("A knockout match needs a winner, even by walkover.")
        if result.winner is not None and result.winner not in self.teams:
            raise TourneyError(f"{result.winner!r} does not play in this match.")
        if result.winner is not None and result.hands:
            mine, theirs = result.score if result.winner == self.teams[0] else result.score[::-1]
            if mine < theirs:
                raise TourneyError("The winner cannot have the lower score.")
        return replace(self, result=result)

    def to_json(self) -> dict[str, Any]:
        """``{"teams": [id, id], "winner": id, "score": [a, b], "hands": n}``."""
        r = self.result
        return {
            "teams": list(self.teams),
            "winner": None if r is None else r.winner,
            "score": None if r is None else list(r.score),
            "hands": None if r is None else r.hands,
        }


@dataclass(frozen=True, slots=True)
class Round:
    """A round: its number (from 1), its target, its pairings and the teams with a bye."""

    number: int
    target: int
    pairings: tuple[Pairing, ...]
    byes: tuple[TeamId, ...] = ()

    @property
    def complete(self) -> bool:
        """Every pairing has a result."""
        return all(p.result is not None for p in self.pairings)

    def to_json(self) -> dict[str, Any]:
        """``{"number", "target", "tables", "byes"}``; only tables whose teams are known."""
        return {
            "number": self.number,
            "target": self.target,
            "tables": [p.to_json() for p in self.pairings if p.known],
            "byes": list(self.byes),
        }


@dataclass(frozen=True, slots=True, order=True)
class Rank:
    """A team's place: ``rank`` is shared by teams level (3 and 3 for "3=")."""

    rank: int
    team: TeamId

    def to_json(self) -> dict[str, Any]:
        return {"team": self.team, "rank": self.rank}


class _Ranked(Protocol):
    @property
    def team(self) -> TeamId: ...
    @property
    def rank(self) -> int: ...


def rounds_json(rounds: Iterable[Round]) -> list[dict[str, Any]]:
    """The ``rounds`` list of the tourney JSON; a round with no table and no bye yet is left out."""
    out = []
    for r in rounds:
        j = r.to_json()
        if j["tables"] or j["byes"]:
            out.append(j)
    return out


def ranks_json(ranks: Iterable[_Ranked]) -> list[dict[str, Any]]:
    """The ``ranks`` list of the tourney JSON, from ``Rank``s or Swiss ``Standing``s."""
    return [{"team": r.team, "rank": r.rank} for r in ranks]


def round_from_json(data: dict[str, Any]) -> Round:
    """A Swiss round back from its JSON (slots are the tables' order).

    Raises ``TourneyError`` for a table that is not consistent.
    """
    pairings = []
    for slot, t in enumerate(data["tables"]):
        a, b = t["teams"]
        p = Pairing(data["number"], slot, (a, b), data["target"])
        if t.get("hands") is not None:
            p = p.with_result(Result(t["winner"], tuple(t["score"]), t["hands"]))
        pairings.append(p)
    return Round(data["number"], data["target"], tuple(pairings), tuple(data.get("byes", ())))


def rank_label(rank: int, ranks: Iterable[int]) -> str:
    """A rank as people write it: ``"3="`` when another team has it too.

    >>> rank_label(3, [1, 2, 3, 3]), rank_label(2, [1, 2, 3, 3])
    ('3=', '2')
    """
    return f"{rank}=" if list(ranks).count(rank) > 1 else str(rank)
