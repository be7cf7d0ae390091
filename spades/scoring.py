"""Scoring a hand: a pure function of the bids, the tricks, the bag counts and the rules,
one result per side of the table (``Rules.shape.sides``): per team, or per player in
cutthroat, each side with its own bag count and penalty.

Imports: stdlib and ``spades.rules_config`` only.

>>> from spades.rules_config import Rules
>>> s = score_hand(Rules(), [4, 3, 3, 3], [False] * 4, [5, 3, 4, 1], [0, 0])
>>> s.teams[0].total, s.teams[0].bags_after, s.teams[1].total
(72, 2, -60)
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules_config import Rules


@dataclass(frozen=True, slots=True)
class TeamScore:
    """One side's result for one hand (a team's, or one player's in cutthroat), each part
    of the total kept for the score table."""

    contract: int  # sum of the non-nil bids (0 in no-bidding mode or with two nils)
    tricks: int  # tricks taken by the team's non-nil bidders
    made: bool | None  # the contract; None when the team had no contract to make
    contract_points: int  # +10 x contract, -10 x contract (20 with ten_for_200 from 10), 0, or 10 x tricks (no-bidding)
    bags: int  # bags taken this hand (extra tricks plus every nil bidder's tricks)
    nil_points: int  # the sum of the team's nil and blind nil results
    penalty: int  # the bag penalty applied after this hand (0 or a negative number)
    total: int  # the hand's points: contract_points + bags + nil_points + penalty
    bags_after: int  # the team's running bag count after any penalty
    nils: tuple[tuple[int, bool, bool], ...] = ()  # (seat, blind, made) for each nil bid


@dataclass(frozen=True, slots=True)
class HandScore:
    """A hand's result per side (``Rules.shape.sides``): each team of two, or each player
    alone in cutthroat. ``teams`` keeps its old name: a side is a team of one or two."""

    teams: tuple[TeamScore, ...]

    @property
    def points(self) -> list[int]:
        return [t.total for t in self.teams]

    @property
    def bags(self) -> list[int]:
        return [t.bags_after for t in self.teams]


BAG_LIMIT = 10  # every full ten bags cost a penalty
BAG_PENALTY = 100
DOUBLE_FROM = 10  # with ten_for_200, a contract of this many tricks or more counts double
NIL_POINTS, BLIND_NIL_POINTS = 100, 200


def score_hand(
    rules: Rules,
    bids: list[int | None],
    blind: list[bool],
    tricks: list[int],
    bags_before: list[int],
) -> HandScore:
    """Score a finished hand, one result per side. ``bids[s]`` is 0 for nil; ignored in
    no-bidding mode. ``bags_before[t]`` is side ``t``'s running bag count."""
    sides = rules.shape.sides
    if len(sides) == 2:  # two teams (a bot's play-outs score millions of these): no loop
        return HandScore((_score_team(rules, sides[0], bids, blind, tricks, bags_before[0]),
                          _score_team(rules, sides[1], bids, blind, tricks, bags_before[1])))
    return HandScore(tuple([_score_team(rules, seats, bids, blind, tricks, bags_before[t])
                            for t, seats in enumerate(sides)]))


def _score_team(
    rules: Rules, seats: tuple[int, ...], bids: list[int | None], blind: list[bool], tricks: list[int],
    bags_before: int
) -> TeamScore:
    """One side's result: a team's (RULES.md, "Scoring a hand"), or in cutthroat the same
    applied to one player alone."""
    if rules.mode == "no_bidding":
        taken = sum(tricks[s] for s in seats)
        return TeamScore(0, taken, None, 10 * taken, 0, 0, 0, 10 * taken, 0)
    contract = 0
    taken = 0
    bags = 0
    nil_points = 0
    nils = []
    bidders = 0
    for s in seats:
        bid = bids[s] or 0
        if bid == 0:
            made = tricks[s] == 0
            worth = BLIND_NIL_POINTS if blind[s] else NIL_POINTS
            nil_points += worth if made else -worth
            bags += tricks[s]  # a nil bidder's tricks are always bags, never the partner's
            nils.append((s, blind[s], made))
        else:
            bidders += 1
            contract += bid
            taken += tricks[s]
    per_trick = 20 if rules.ten_for_200 and contract >= DOUBLE_FROM else 10
    if bidders == 0:
        made_contract = None
        contract_points = 0
    elif taken >= contract:
        made_contract = True
        contract_points = per_trick * contract
        bags += taken - contract
    else:
        made_contract = False
        contract_points = 0 if rules.set_scores_zero else -per_trick * contract
    count = bags_before + bags
    penalty = 0
    if rules.bag_penalty:
        while count >= BAG_LIMIT:
            penalty -= BAG_PENALTY
            count -= BAG_LIMIT
    total = contract_points + bags + nil_points + penalty
    return TeamScore(contract, taken, made_contract, contract_points, bags, nil_points, penalty, total, count,
                     tuple(nils))
