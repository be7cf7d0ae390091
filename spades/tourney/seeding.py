"""Before the first round: solos paired into teams, and the teams put in seed order.

- ``pair_solos``: the solos left over at the start are shuffled with the given
  ``random.Random`` and paired in that order; with an odd number, the last one drawn
  plays with a bot, shown as the partner ``BOT`` (``None``).
- ``seed_teams``: by rating when every person in the field has one (a team's rating is
  the mean of its players' ratings, highest first), otherwise at random. A bot partner
  has no rating and is left out of its team's mean, so one solo with a bot does not turn
  rating seeding off for everyone. Teams with equal ratings are in random order.

Imports: stdlib and ``spades.tourney.model`` only.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence

from .model import Team, TeamId, TourneyError

__all__ = ["BOT", "pair_solos", "seed_teams", "team_rating"]

BOT = None  # the partner a lone solo gets: a computer player


def pair_solos(solo_ids: Sequence[str], rng: random.Random,
               apart: Collection[frozenset[str]] = ()) -> list[tuple[str, str | None]]:
    """Solos paired at random; an odd one out gets ``BOT`` as partner. Two people in
    ``apart`` (one blocked the other) are not made partners while a swap with another
    pair can keep them apart.

    Raises ``TourneyError`` for a solo listed twice.

    >>> pair_solos(["ann"], random.Random(1))
    [('ann', None)]
    >>> pairs = pair_solos(["ann", "bob", "cy", "di"], random.Random(1), apart={frozenset(("ann", "bob"))})
    >>> any({a, b} == {"ann", "bob"} for a, b in pairs)
    False
    """
    solos: list[str | None] = list(solo_ids)
    if len(set(solos)) != len(solos):
        raise TourneyError("A player is listed twice.")
    rng.shuffle(solos)
    if len(solos) % 2:
        solos.append(BOT)
    pairs: list[list[str | None]] = [list(p) for p in zip(solos[::2], solos[1::2])]

    def clash(a: str | None, b: str | None) -> bool:
        return a is not BOT and b is not BOT and frozenset((a, b)) in apart

    for pair in pairs:
        if not clash(*pair):
            continue
        for other in pairs:  # swap this pair's second with either of another pair's people
            if other is pair:
                continue
            for k in (0, 1):
                if not clash(pair[0], other[k]) and not clash(pair[1], other[1 - k]):
                    pair[1], other[k] = other[k], pair[1]
                    break
            else:
                continue
            break
    return [(a, b) for a, b in pairs]  # type: ignore[misc]


def team_rating(team: Team, ratings: Mapping[str, float]) -> float | None:
    """The mean rating of the team's people (a bot left out); ``None`` if one has no rating."""
    people = [p for p in team.players if p is not BOT]
    if not people or any(p not in ratings for p in people):
        return None
    return sum(ratings[p] for p in people) / len(people)


def seed_teams(teams: Sequence[Team], rng: random.Random,
               ratings: Mapping[str, float] | None = None) -> list[TeamId]:
    """Team ids in seed order: by rating when every person has one, else at random.

    Pass ``ratings=None`` for a random draw. Raises ``TourneyError`` for a team listed twice.
    """
    order = list(teams)
    if len({t.id for t in order}) != len(order):
        raise TourneyError("A team is listed twice.")
    rng.shuffle(order)  # always drawn, so ties in rating fall at random too
    if ratings is not None:
        by_team = [team_rating(t, ratings) for t in order]
        rated = {t.id: r for t, r in zip(order, by_team) if r is not None}
        if len(rated) == len(order):  # every team rated (their ids are distinct)
            order.sort(key=lambda t: -rated[t.id])
    return [t.id for t in order]
