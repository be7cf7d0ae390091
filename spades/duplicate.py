"""Duplicate scoring: the same deals played at several tables, each table's result on a
deal (a *board*) compared with every other table's from the same direction, as duplicate
bridge compares them. A circle's week of boards (``spades.circles.boards``) and a tourney
round on duplicate deals (``spades.tourney.duplicate``) both score with it.

- **Directions.** Side 0 (seats 0 and 2) is North-South, side 1 (seats 1 and 3)
  East-West: a board's result at a table is each direction's points on that hand.
- **Matchpoints.** 2 for each other table beaten from the same direction on that board,
  1 for each tie (``matchpoints``); a team (the people in one direction's seats at one
  table) adds up its boards, a person the boards they played (``tally``). ``top`` is the
  most the boards played could give: 2 for each other table that played each of them.

Imports: stdlib only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["DIRECTIONS", "PersonStanding", "Scores", "Seated", "Standings", "TeamStanding", "matchpoints", "share",
           "tally"]

DIRECTIONS = ("North-South", "East-West")  # side 0 (seats 0 and 2), side 1 (seats 1 and 3)

Scores = Mapping[str, Mapping[int, Sequence[int]]]  # table: board: (North-South points, East-West points)


def matchpoints(scores: Scores) -> dict[str, dict[int, tuple[int, int]]]:
    """Each table's matchpoints on each board it played, per direction: its points on the
    board compared with every other table's that played it from the same direction, 2
    for each table beaten and 1 for each tie.

    Three tables, two boards (board 2 not played at C yet):

    >>> scores = {"A": {1: (120, 50), 2: (61, 40)},
    ...           "B": {1: (120, 80), 2: (40, 40)},
    ...           "C": {1: (-100, 60)}}
    >>> mp = matchpoints(scores)
    >>> mp["A"], mp["B"], mp["C"]
    ({1: (3, 0), 2: (2, 1)}, {1: (3, 4), 2: (0, 1)}, {1: (0, 2)})
    """
    out: dict[str, dict[int, tuple[int, int]]] = {table: {} for table in scores}
    for table, boards in scores.items():
        for board, mine in boards.items():
            points = [0, 0]
            for other, theirs in scores.items():
                if other == table or board not in theirs:
                    continue
                for side in (0, 1):
                    a, b = mine[side], theirs[board][side]
                    points[side] += 2 if a > b else 1 if a == b else 0
            out[table][board] = (points[0], points[1])
    return out


def share(matchpoints: int, top: int) -> float:
    """Matchpoints as a share of the top, in percent (0 when nothing was compared).

    >>> share(5, 6), share(0, 0)
    (83.33333333333333, 0.0)
    """
    return 100.0 * matchpoints / top if top else 0.0


@dataclass(frozen=True, slots=True)
class TeamStanding:
    """A team's week: the people in one direction's seats at one table (names as seated),
    its matchpoints over the boards played, and ``top``, the most those boards could give
    (2 for each other table that played each of them)."""

    table: str
    side: int
    direction: str
    people: tuple[str, ...]
    names: tuple[str, ...]
    matchpoints: int
    boards: int
    top: int

    @property
    def percent(self) -> float:
        return share(self.matchpoints, self.top)


@dataclass(frozen=True, slots=True)
class PersonStanding:
    """A person's week: the matchpoints of the boards they played, out of ``top``."""

    person: str
    name: str
    matchpoints: int
    boards: int
    top: int

    @property
    def percent(self) -> float:
        return share(self.matchpoints, self.top)


@dataclass(frozen=True, slots=True)
class Standings:
    """A week's standings: teams and people, the most matchpoints first (then the best
    share, then by name); ``scores`` and ``points``, each table's points and matchpoints
    by board, to be shown board by board only to those who played it (``played``: the
    boards each person played), or once the week is closed."""

    teams: tuple[TeamStanding, ...]
    people: tuple[PersonStanding, ...]
    scores: dict[str, dict[int, tuple[int, int]]]
    points: dict[str, dict[int, tuple[int, int]]]
    played: dict[str, frozenset[int]]


Seated = Mapping[str, Sequence[Sequence[tuple[str, str]]]]  # table: side: ((person, name), ...)


def tally(scores: Scores, seated: Seated) -> Standings:
    """The week's standings from each table's points by board and who sat in each
    direction there (``seated[table][side]``: (person, name) of each person in that
    side's seats). A team's matchpoints are its direction's at its table; a person's, the
    sum over the boards they played.

    >>> scores = {"A": {1: (120, 50), 2: (61, 40)}, "B": {1: (120, 80), 2: (40, 40)},
    ...           "C": {1: (-100, 60)}}
    >>> seated = {"A": [[("ann", "Ann")], [("bob", "Bob")]], "B": [[("cy", "Cy")], []],
    ...           "C": [[], [("dee", "Dee"), ("eve", "Eve")]]}
    >>> s = tally(scores, seated)
    >>> for t in s.teams:
    ...     print(t.table, t.direction, t.names, t.matchpoints, t.top)
    A North-South ('Ann',) 5 6
    B East-West () 5 6
    B North-South ('Cy',) 3 6
    C East-West ('Dee', 'Eve') 2 4
    A East-West ('Bob',) 1 6
    C North-South () 0 4
    >>> [(p.name, p.matchpoints, p.boards) for p in s.people]
    [('Ann', 5, 2), ('Cy', 3, 2), ('Dee', 2, 1), ('Eve', 2, 1), ('Bob', 1, 2)]
    >>> sorted(s.played["dee"])
    [1]
    """
    points = matchpoints(scores)
    played_by: dict[int, int] = {}
    for boards in scores.values():
        for board in boards:
            played_by[board] = played_by.get(board, 0) + 1
    teams = []
    people: dict[str, list] = {}
    played: dict[str, set[int]] = {}
    for table, boards in scores.items():
        for side in (0, 1):
            who = tuple(seated.get(table, ((), ()))[side]) if table in seated else ()
            total = sum(mp[side] for mp in points[table].values())
            top = sum(2 * (played_by[b] - 1) for b in boards)
            teams.append(TeamStanding(table, side, DIRECTIONS[side], tuple(p for p, _ in who),
                                      tuple(n for _, n in who), total, len(boards), top))
            for person, name in who:
                mine = people.setdefault(person, [name, 0, 0, 0])
                mine[1] += total
                mine[2] += len(boards)
                mine[3] += top
                played.setdefault(person, set()).update(boards)
    teams.sort(key=lambda t: (-t.matchpoints, -t.percent, t.table, t.side))
    ranked = sorted((PersonStanding(p, n, mp, b, top) for p, (n, mp, b, top) in people.items()),
                    key=lambda p: (-p.matchpoints, -p.percent, p.name, p.person))
    return Standings(tuple(teams), tuple(ranked), {t: {b: (s[0], s[1]) for b, s in bs.items()}
                                                   for t, bs in scores.items()}, points,
                     {p: frozenset(b) for p, b in played.items()})
