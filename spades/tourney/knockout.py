"""Knockout (single elimination): the bracket, its results, the matches ready to start, ranks.

A ``Bracket`` is its teams in seed order plus the results recorded so far; every round,
pairing, bye and rank is worked out from those two, so a bracket stored as
``Bracket.to_json()`` comes back whole with ``Bracket.from_json``. Recording a result
returns a new bracket.

- The bracket has the next power of two of places. Seeds are placed as in tennis and
  NCAA brackets (1 v 16, 8 v 9, 4 v 13, 5 v 12 | 2 v 15, 7 v 10, 3 v 14, 6 v 11), so seeds 1
  and 2 can only meet in the final, 1 to 4 only in the semifinals, and the empty places
  fall opposite the first seeds: those are the byes. A bye is not a match (no table); it
  shows in round 1's ``byes`` (listed top to bottom, like the pairings) and the team is
  already in round 2.
- A winner's next match starts as soon as its opponent is known: ``ready_matches`` lists
  every match with both teams known and no result, whatever round it is in.
- Targets: the semifinals and the final play to 500 (``FINAL_TARGET``), every other match
  to 300 (``TARGET``). The semifinals are the round before the last, so with 3 or 4 teams
  round 1 is the semifinals (a bye counts as a semifinal place).
- Ranks: 1 the winner, 2 the finalist, 3 both semifinal losers, 5 the quarterfinal losers,
  then 9, 17, 33: a team that loses in the round with 2**k matches left is ranked
  ``2**k + 1``, whether it lost at the table or by walkover. While the bracket runs,
  ``knockout_ranks`` ranks the teams already out (their rank will not change) and the
  winner once the final is over; teams still in have no rank yet.

Decisions where the rules are silent:
- A knockout needs at least two teams and no team twice (``TourneyError``).
- A walkover needs a winner: when neither team was ready the site names one (for
  example the better seed); ``Result.no_show()`` is refused here.
- A result is recorded once; a second result for the same match is refused.

Imports: stdlib and ``spades.tourney.model`` only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .model import FINAL_TARGET, TARGET, Pairing, Rank, Result, Round, TeamId, TourneyError

__all__ = [
    "Bracket", "knockout_bracket", "record_result", "ready_matches", "knockout_ranks",
    "target_for", "bracket_order",
]

_EMPTY = object()  # an empty place in round 1: the team drawn opposite it has a bye


def bracket_order(size: int) -> list[int]:
    """The seeds (from 1) top to bottom in a bracket of ``size`` places, a power of two.

    >>> bracket_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    if size < 1 or size & (size - 1):
        raise TourneyError("A bracket has a power of two of places.")
    order = [1]
    while len(order) < size:
        m = 2 * len(order) + 1
        order = [x for s in order for x in (s, m - s)]
    return order


def target_for(round_number: int, round_count: int) -> int:
    """The target of a knockout round: 500 for the semifinals and the final, else 300.

    >>> [target_for(r, 4) for r in (1, 2, 3, 4)]
    [300, 300, 500, 500]
    """
    return FINAL_TARGET if round_number >= round_count - 1 else TARGET


@dataclass(frozen=True, slots=True)
class Bracket:
    """A knockout: ``teams`` in seed order and the results so far, keyed ``(round, slot)``."""

    teams: tuple[TeamId, ...]
    results: tuple[tuple[tuple[int, int], Result], ...] = ()

    @property
    def size(self) -> int:
        """Places in the bracket: the next power of two of the number of teams."""
        return 1 << (len(self.teams) - 1).bit_length()

    @property
    def round_count(self) -> int:
        """Rounds to play: ``ceil(log2(teams))``."""
        return self.size.bit_length() - 1

    def rounds(self) -> tuple[Round, ...]:
        """Every round, with its pairings (teams ``None`` while not known) and byes."""
        results = dict(self.results)
        n, count = len(self.teams), self.round_count
        entrants: list[Any] = [self.teams[s - 1] if s <= n else _EMPTY
                               for s in bracket_order(self.size)]
        out = []
        for number in range(1, count + 1):
            target = target_for(number, count)
            pairings, byes, winners = [], [], []
            for slot in range(len(entrants) // 2):
                a, b = entrants[2 * slot], entrants[2 * slot + 1]
                if a is _EMPTY or b is _EMPTY:
                    team = b if a is _EMPTY else a
                    byes.append(team)
                    winners.append(team)
                    continue
                p = Pairing(number, slot, (a, b), target, results.get((number, slot)))
                pairings.append(p)
                winners.append(None if p.result is None else p.result.winner)
            out.append(Round(number, target, tuple(pairings), tuple(byes)))
            entrants = winners
        return tuple(out)

    def pairings(self) -> list[Pairing]:
        """Every match of the bracket, round by round, top to bottom."""
        return [p for r in self.rounds() for p in r.pairings]

    def pairing(self, key: tuple[int, int]) -> Pairing:
        """The match at ``(round, slot)``; raises ``TourneyError`` if there is none."""
        for p in self.pairings():
            if p.key == tuple(key):
                return p
        raise TourneyError(f"There is no match {key!r} in this bracket.")

    @property
    def champion(self) -> TeamId | None:
        """The winner of the final, once it is played."""
        final = self.rounds()[-1].pairings[0]
        return None if final.result is None else final.result.winner

    @property
    def done(self) -> bool:
        return self.champion is not None

    def to_json(self) -> dict[str, Any]:
        """``{"teams": [ids in seed order], "results": [{"round", "slot", "winner", "score", "hands"}]}``."""
        return {
            "teams": list(self.teams),
            "results": [{"round": k[0], "slot": k[1], "winner": r.winner,
                         "score": list(r.score), "hands": r.hands} for k, r in self.results],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Bracket:
        """A bracket back from ``to_json``; every result is checked again (``TourneyError``)."""
        bracket = knockout_bracket(data["teams"])
        for r in data["results"]:
            result = Result(r["winner"], tuple(r["score"]), r["hands"])
            bracket = record_result(bracket, (r["round"], r["slot"]), result)
        return bracket


def knockout_bracket(team_ids_in_seed_order: Sequence[TeamId]) -> Bracket:
    """A new bracket; the first seeds get the byes.

    Raises ``TourneyError`` for fewer than two teams or a team listed twice.
    """
    teams = tuple(team_ids_in_seed_order)
    if len(teams) < 2:
        raise TourneyError("A knockout needs at least two teams.")
    if len(set(teams)) != len(teams):
        raise TourneyError("A team is listed twice.")
    return Bracket(teams)


def record_result(bracket: Bracket, key: tuple[int, int], result: Result) -> Bracket:
    """The bracket with ``result`` for the match at ``key`` = ``(round, slot)``.

    ``result`` is ``Result.played(winner, score, hands)`` or ``Result.walkover(winner)``.
    Raises ``TourneyError`` when there is no such match, its opponents are not both known,
    it already has a result, the winner does not play in it, the winner has the lower
    score, or the result has no winner.
    """
    key = (int(key[0]), int(key[1]))
    bracket.pairing(key).with_result(result, allow_no_show=False)
    results = tuple(sorted(bracket.results + ((key, result),), key=lambda kr: kr[0]))
    return Bracket(bracket.teams, results)


def ready_matches(bracket: Bracket) -> list[Pairing]:
    """The matches that can start now: both opponents known, no result yet (any round)."""
    return [p for p in bracket.pairings() if p.ready]


def knockout_ranks(bracket: Bracket) -> list[Rank]:
    """Ranks so far, best first: every team out of the bracket, and the winner when known.

    Teams level share a rank (both semifinal losers are 3); within a rank, seed order.
    """
    count = bracket.round_count
    ranks: list[Rank] = []
    for p in bracket.pairings():
        if p.result is None:
            continue
        winner, loser = p.result.winner, p.loser
        assert winner is not None and loser is not None  # a knockout match always has a winner
        ranks.append(Rank(2 ** (count - p.round) + 1, loser))
        if p.round == count:
            ranks.append(Rank(1, winner))
    seed = {t: i for i, t in enumerate(bracket.teams)}
    return sorted(ranks, key=lambda r: (r.rank, seed[r.team]))
