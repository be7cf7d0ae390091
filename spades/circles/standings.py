"""A season's standings and partnerships, worked out from its result rows alone (pure:
no storage, no clock).

- **Standings**: for each person who played a match of the season, matches played and
  won, points for (their side's final score, summed) and against (the best other side's
  final score, summed), and a rating within the circle: openskill's Plackett-Luce model,
  as the site's ratings (``spades.accounts``), over the season's matches in the order they
  finished, every person starting afresh; shown as its conservative estimate
  (``mu - 3 sigma``). A bot is rated as the seat it played (``bot:<seat>``).
- **Partnerships** (tables with partners): each pair of people who sat as partners,
  their matches together and won, and points for and against; each person's **best
  partner** (the most won together, then the best share won, then the most played,
  then the best points for less against).
- **Head to head**: each pair of people who sat on different sides, how often each
  one's side finished ahead.

Imports: stdlib, openskill and ``spades.storage`` (the result row).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from openskill.models import PlackettLuce, PlackettLuceRating

from ..storage import CircleResultRow

__all__ = ["HeadToHead", "Partnership", "Standing", "Standings", "figure", "work_out"]

MINUS = "\u2212"  # a true minus sign: "-59" next to a dash reads as a range


def figure(value: float, places: int = 0) -> str:
    """A number as the standings show it: ``places`` decimals, a negative one with a true
    minus sign, never "-0".

    >>> figure(-59), figure(254), figure(-1.46, 1), figure(-0.04, 1)
    ('−59', '254', '−1.5', '0.0')
    """
    text = f"{value:.{places}f}"
    if text.startswith("-"):
        text = text[1:] if float(text) == 0 else MINUS + text[1:]
    return text


@dataclass(slots=True)
class Standing:
    """A person's season: matches played and won, points for and against, and the rating."""

    person: str
    name: str
    played: int = 0
    won: int = 0
    points_for: int = 0
    points_against: int = 0
    mu: float = 25.0
    sigma: float = 25.0 / 3

    @property
    def rating(self) -> float:
        """The conservative estimate (mu - 3 sigma): it grows as the skill is known."""
        return self.mu - 3 * self.sigma


@dataclass(slots=True)
class Partnership:
    """Two people who sat as partners (``a`` < ``b``): their matches together."""

    a: str
    b: str
    played: int = 0
    won: int = 0
    points_for: int = 0
    points_against: int = 0

    def other(self, person: str) -> str:
        return self.b if person == self.a else self.a


@dataclass(slots=True)
class HeadToHead:
    """Two people on different sides (``a`` < ``b``): the matches where each one's side
    finished ahead of the other's (``played`` counts ties too)."""

    a: str
    b: str
    played: int = 0
    a_won: int = 0
    b_won: int = 0

    def wins_of(self, person: str) -> tuple[int, int]:
        """(this person's wins, the other's) against each other."""
        return (self.a_won, self.b_won) if person == self.a else (self.b_won, self.a_won)


@dataclass(frozen=True, slots=True)
class Standings:
    """A season worked out: the people by rating (then won, then name), the
    partnerships by matches won together, each person's best partner and the head to
    head pairs."""

    rows: tuple[Standing, ...] = ()
    partnerships: tuple[Partnership, ...] = ()
    best_partner: dict[str, Partnership] = field(default_factory=dict)
    head_to_head: dict[tuple[str, str], HeadToHead] = field(default_factory=dict)
    matches: int = 0

    def against(self, person: str) -> list[tuple[str, int, int]]:
        """This person's record against each other person: (the other, their wins, the other's)."""
        out = []
        for (a, b), h in self.head_to_head.items():
            if person in (a, b):
                mine, theirs = h.wins_of(person)
                out.append((b if person == a else a, mine, theirs))
        return out


def _ranks(result: CircleResultRow) -> list[float]:
    """Each side's place (0 is first): with partners the winning side first and the others
    level behind it (all level without a winner); without, by final score."""
    sides = range(len(result.sides))
    if result.partners:
        return [0.0 if result.winner is None or result.winner == t else 1.0 for t in sides]
    return [float(sum(v > mine for v in result.scores)) for mine in result.scores]


def _better(p: Partnership) -> tuple[int, float, int, int]:
    """How a partnership ranks as someone's best: the most won, the best share won, the
    most played, the best points for less against."""
    return p.won, p.won / p.played, p.played, p.points_for - p.points_against


def _won(r: CircleResultRow, t: int) -> int:
    """1 when side ``t`` won the match, else 0."""
    return int(r.winner is not None and r.winner == t)


def _against(r: CircleResultRow, t: int) -> int:
    """The points against side ``t``: the best other side's final score."""
    return max((v for u, v in enumerate(r.scores) if u != t), default=0)


def _seat_ids(r: CircleResultRow) -> tuple[list[str], dict[int, str]]:
    """Each seat's id for the rating (a person's, or ``bot:<seat>`` for a bot or an empty
    seat), and the seats that people played, with their ids."""
    ids = [pid if kind == "human" and pid else f"bot:{seat}" for seat, (kind, pid, _) in enumerate(r.seats)]
    humans = {seat: pid for seat, (kind, pid, _) in enumerate(r.seats) if kind == "human" and pid}
    return ids, humans


def _add_standings(people: dict[str, Standing], r: CircleResultRow, humans: dict[int, str],
                   side_of: dict[int, int]) -> None:
    """Each seated person's match added to their standing."""
    for seat, pid in humans.items():
        t = side_of.get(seat)
        if t is None:
            continue
        s = people.setdefault(pid, Standing(pid, r.seats[seat][2]))
        s.name = r.seats[seat][2] or s.name
        s.played += 1
        s.won += _won(r, t)
        s.points_for += r.scores[t]
        s.points_against += _against(r, t)


def _add_partnerships(pairs: dict[tuple[str, str], Partnership], r: CircleResultRow,
                      humans: dict[int, str]) -> None:
    """The match added to each partnership it has: two people on one side."""
    for t, side in enumerate(r.sides):
        together = sorted(humans[s] for s in side if s in humans)
        if len(together) != 2 or together[0] == together[1]:
            continue
        a, b = together
        p = pairs.setdefault((a, b), Partnership(a, b))
        p.played += 1
        p.won += _won(r, t)
        p.points_for += r.scores[t]
        p.points_against += _against(r, t)


def _add_head_to_head(h2h: dict[tuple[str, str], HeadToHead], humans: dict[int, str],
                      side_of: dict[int, int], ranks: list[float]) -> None:
    """The match added to each pair of people on different sides, ahead by the sides' places."""
    seated = sorted(humans.items())
    for i, (sa, pa) in enumerate(seated):
        for sb, pb in seated[i + 1:]:
            ta, tb = side_of.get(sa), side_of.get(sb)
            if ta is None or tb is None or ta == tb or pa == pb:
                continue
            (a, xa), (b, xb) = sorted(((pa, ta), (pb, tb)))
            h = h2h.setdefault((a, b), HeadToHead(a, b))
            h.played += 1
            h.a_won += int(ranks[xa] < ranks[xb])
            h.b_won += int(ranks[xb] < ranks[xa])


def _rate(model: PlackettLuce, ratings: dict[str, tuple[float, float]], r: CircleResultRow,
          ids: list[str], ranks: list[float]) -> None:
    """Every seat's rating moved by its side's place (a match where one id holds two seats,
    or with fewer than two sides, is not rated)."""
    if len(set(ids)) != len(ids) or len(r.sides) < 2:
        return

    def rating(name: str) -> PlackettLuceRating:
        if name in ratings:
            mu, sigma = ratings[name]
            return model.rating(mu=mu, sigma=sigma, name=name)
        return model.rating(name=name)

    new = model.rate([[rating(ids[seat]) for seat in side] for side in r.sides], ranks=ranks)
    for side, team in zip(r.sides, new):
        for seat, x in zip(side, team):
            ratings[ids[seat]] = (x.mu, x.sigma)


def _best_partners(partnerships: Iterable[Partnership]) -> dict[str, Partnership]:
    """Each person's best partnership (``_better``; the first of equals)."""
    best: dict[str, Partnership] = {}
    for p in partnerships:
        for person in (p.a, p.b):
            held = best.get(person)
            if held is None or _better(p) > _better(held):
                best[person] = p
    return best


def work_out(results: Iterable[CircleResultRow], model: PlackettLuce | None = None) -> Standings:
    """The standings of these results (in the order they finished)."""
    model = model or PlackettLuce()
    people: dict[str, Standing] = {}
    pairs: dict[tuple[str, str], Partnership] = {}
    h2h: dict[tuple[str, str], HeadToHead] = {}
    ratings: dict[str, tuple[float, float]] = {}
    count = 0
    for r in results:
        count += 1
        ranks = _ranks(r)
        ids, humans = _seat_ids(r)
        side_of = {seat: t for t, side in enumerate(r.sides) for seat in side}
        _add_standings(people, r, humans, side_of)
        _add_partnerships(pairs, r, humans)
        _add_head_to_head(h2h, humans, side_of, ranks)
        _rate(model, ratings, r, ids, ranks)
    for pid, standing in people.items():
        if pid in ratings:
            standing.mu, standing.sigma = ratings[pid]
    rows = tuple(sorted(people.values(), key=lambda s: (-round(s.rating, 6), -s.won, s.name.lower(), s.person)))
    partnerships = tuple(sorted(pairs.values(), key=lambda p: (-p.won, -p.played, p.a, p.b)))
    return Standings(rows, partnerships, _best_partners(partnerships), h2h, count)
