"""Swiss: each round's pairings from the rounds before, results, and the standings.

- Round 1 is drawn at random with the given ``random.Random``; with an odd number of
  teams the last team drawn has the bye.
- Later rounds put the teams in *pairing order* (wins, most first; then point difference,
  best first; then the order of the ``teams`` argument, so pass them in seed order) and
  pair neighbours: the first team with the next one it has not met, and so on, by a
  backtracking search over that list. Only when no pairing without a repeat exists are
  repeats allowed: first no pair that has met twice, then three times, and so on.
- With an odd number of teams one has a bye: a win, no points for or against, and no
  opponent (it adds nothing to Buchholz). The bye goes to the lowest team in pairing
  order among those with the fewest byes so far, so no team has a second bye while
  another in the round has none. If giving it to that team leaves only pairings with a
  repeat, the next lowest team with the fewest byes has it instead; a second bye is never
  given to avoid a repeat.
- Targets: the last round plays to 500, the others to 300, so ``swiss_pairings`` is told
  the number of rounds (``total_rounds``).
- A loss for the round (a team not ready in time, ``Result.walkover(ready_team)``): the team
  not ready has a loss, its opponent a win, and neither gets points for or against. If
  neither was ready (``Result.no_show()``) both have a loss and no points. Either way the
  two have met: they are not paired again while avoidable, and each counts the other's
  wins in its Buchholz.
- Standings: wins, then Buchholz (the sum of the wins of every opponent met, counted as
  often as met, as they stand now, byes included in those wins), then point difference.
  Teams level on all three share a rank (two teams level for third are both 3, "3="),
  listed in the order of ``teams``. A pairing counts once it has a result, so standings
  during a round count the finished tables only.
- Teams may leave between rounds: pass only the teams still playing; their past
  opponents' wins still count.

Imports: stdlib and ``spades.tourney.model`` only.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from .model import FINAL_TARGET, TARGET, Pairing, Result, Round, TeamId, TourneyError

__all__ = ["Standing", "swiss_pairings", "record_swiss_result", "swiss_standings", "swiss_target"]


@dataclass(frozen=True, slots=True)
class Standing:
    """A team's line in the Swiss standings."""

    team: TeamId
    rank: int
    wins: int
    losses: int
    byes: int
    buchholz: int
    points_for: int
    points_against: int

    @property
    def diff(self) -> int:
        """Point difference: points for minus points against."""
        return self.points_for - self.points_against


@dataclass
class _Tally:
    wins: int = 0
    losses: int = 0
    byes: int = 0
    points_for: int = 0
    points_against: int = 0
    opponents: list[TeamId] = field(default_factory=list)


def _tally(rounds: Sequence[Round]) -> tuple[dict[TeamId, _Tally], Counter[frozenset[TeamId]]]:
    """Each team's record over the finished pairings, and how often each pair has met."""
    tallies: dict[TeamId, _Tally] = {}
    met: Counter[frozenset[TeamId]] = Counter()

    def t(team: TeamId) -> _Tally:
        return tallies.setdefault(team, _Tally())

    for r in rounds:
        for team in r.byes:
            t(team).byes += 1
            t(team).wins += 1
        for p in r.pairings:
            if p.result is None:
                continue
            a, b = p.teams
            assert a is not None and b is not None  # a pairing with a result has both teams
            met[frozenset((a, b))] += 1
            for me, other, mine, theirs in ((a, b, *p.result.score), (b, a, *p.result.score[::-1])):
                tally = t(me)
                tally.opponents.append(other)
                tally.points_for += mine
                tally.points_against += theirs
                if p.result.winner == me:
                    tally.wins += 1
                else:
                    tally.losses += 1
    return tallies, met


def swiss_target(round_number: int, total_rounds: int) -> int:
    """500 for the last round, 300 for the others.

    >>> [swiss_target(r, 3) for r in (1, 2, 3)]
    [300, 300, 500]
    """
    return FINAL_TARGET if round_number == total_rounds else TARGET


def _check_teams(teams: Sequence[TeamId]) -> list[TeamId]:
    teams = list(teams)
    if len(teams) < 2:
        raise TourneyError("A Swiss needs at least two teams.")
    if len(set(teams)) != len(teams):
        raise TourneyError("A team is listed twice.")
    return teams


def swiss_pairings(teams: Sequence[TeamId], history: Sequence[Round], round_number: int,
                   rng: random.Random, *, total_rounds: int) -> Round:
    """The pairings of round ``round_number`` (from 1), given every earlier round with results.

    ``rng`` draws round 1 only; later rounds follow from the results. Raises
    ``TourneyError`` for fewer than two teams, a team listed twice, a round number that
    does not follow ``history`` or lies past ``total_rounds``, or an earlier round with a
    table still unfinished.
    """
    teams = _check_teams(teams)
    if not 1 <= round_number <= total_rounds:
        raise TourneyError(f"Round {round_number} is not one of the {total_rounds} rounds.")
    if len(history) != round_number - 1:
        raise TourneyError(f"Round {round_number} follows {round_number - 1} rounds, "
                           f"not {len(history)}.")
    if not all(r.complete for r in history):
        raise TourneyError("A table of an earlier round has no result yet.")
    target = swiss_target(round_number, total_rounds)

    if round_number == 1:
        order = list(teams)
        rng.shuffle(order)
        byes = [order.pop()] if len(order) % 2 else []
        pairs = list(zip(order[::2], order[1::2]))
    else:
        tallies, met = _tally(history)
        blank = _Tally()
        seed = {team: i for i, team in enumerate(teams)}

        def key(team: TeamId) -> tuple[int, int, int]:
            tally = tallies.get(team, blank)
            return (-tally.wins, -(tally.points_for - tally.points_against), seed[team])

        order = sorted(teams, key=key)
        pairs, byes = _pair(order, met, {tm: tallies.get(tm, blank).byes for tm in order})

    pairings = tuple(Pairing(round_number, slot, (a, b), target) for slot, (a, b) in enumerate(pairs))
    return Round(round_number, target, pairings, tuple(byes))


def _pair(order: list[TeamId], met: Counter[frozenset[TeamId]],
          byes: dict[TeamId, int]) -> tuple[list[tuple[TeamId, TeamId]], list[TeamId]]:
    """Pairs (and the bye) for teams in pairing order, with as few repeats as the rules allow."""
    candidates: list[TeamId | None]
    if len(order) % 2:
        fewest = min(byes.values())
        candidates = [t for t in reversed(order) if byes[t] == fewest]
    else:
        candidates = [None]
    most = max(met.values(), default=0)
    for limit in range(most + 1):
        for bye in candidates:
            rest = [t for t in order if t != bye]
            pairs = _neighbour_pairs(rest, met, limit)
            if pairs is not None:
                return pairs, ([] if bye is None else [bye])
    raise AssertionError("with every pair allowed, an even list always pairs")


def _neighbour_pairs(order: list[TeamId], met: Counter[frozenset[TeamId]],
                     limit: int) -> list[tuple[TeamId, TeamId]] | None:
    """The first pairing, in search order, where no pair has met more than ``limit`` times.

    The search takes the first unpaired team and tries the unpaired teams after it nearest
    first; remaining sets that cannot be paired are remembered, which keeps it quick.
    """
    n = len(order)
    allowed = [[j for j in range(i + 1, n) if met[frozenset((order[i], order[j]))] <= limit]
               for i in range(n)]
    dead: set[int] = set()

    def solve(left: int) -> list[tuple[int, int]] | None:
        if not left:
            return []
        if left in dead:
            return None
        i = (left & -left).bit_length() - 1
        rest = left & ~(1 << i)
        for j in allowed[i]:
            if rest >> j & 1:
                sub = solve(rest & ~(1 << j))
                if sub is not None:
                    return [(i, j), *sub]
        dead.add(left)
        return None

    found = solve((1 << n) - 1)
    return None if found is None else [(order[i], order[j]) for i, j in found]


def record_swiss_result(round_: Round, slot: int, result: Result) -> Round:
    """The round with ``result`` for its table ``slot``.

    ``result`` is ``Result.played``, ``Result.walkover`` or ``Result.no_show``. Raises
    ``TourneyError`` for a slot with no table, a table that already has a result, a winner
    not at that table, or a winner with the lower score.
    """
    if not 0 <= slot < len(round_.pairings):
        raise TourneyError(f"Round {round_.number} has no table {slot}.")
    pairings = list(round_.pairings)
    pairings[slot] = pairings[slot].with_result(result)
    return replace(round_, pairings=tuple(pairings))


def swiss_standings(teams: Sequence[TeamId], rounds: Sequence[Round]) -> list[Standing]:
    """The standings, best first: wins, then Buchholz, then point difference (shared ranks).

    Raises ``TourneyError`` for a team listed twice.
    """
    teams = list(teams)
    if len(set(teams)) != len(teams):
        raise TourneyError("A team is listed twice.")
    tallies, _ = _tally(rounds)
    blank = _Tally()
    rows = []
    for team in teams:
        t = tallies.get(team, blank)
        buchholz = sum(tallies[o].wins for o in t.opponents)
        rows.append((team, t, buchholz))
    seed = {team: i for i, team in enumerate(teams)}

    def level(row: tuple[TeamId, _Tally, int]) -> tuple[int, int, int]:
        _, t, buchholz = row
        return (-t.wins, -buchholz, -(t.points_for - t.points_against))

    rows.sort(key=lambda row: (level(row), seed[row[0]]))
    out: list[Standing] = []
    for i, row in enumerate(rows):
        team, t, buchholz = row
        rank = out[-1].rank if i and level(rows[i - 1]) == level(row) else i + 1
        out.append(Standing(team, rank, t.wins, t.losses, t.byes, buchholz,
                            t.points_for, t.points_against))
    return out
