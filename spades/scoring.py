"""Scoring a hand: a pure function of the bids, the tricks, the bag counts and the rules.

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
    """One team's result for one hand, each part of the total kept for the score table."""

    contract: int  # sum of the non-nil bids (0 in no-bidding mode or with two nils)
    tricks: int  # tricks taken by the team's non-nil bidders
    made: bool | None  # the contract; None when the team had no contract to make
    contract_points: int  # +10 x contract, -10 x contract, 0, or 10 x tricks (no-bidding)
    bags: int  # bags taken this hand (extra tricks plus every nil bidder's tricks)
    nil_points: int  # the sum of the team's nil and blind nil results
    penalty: int  # the bag penalty applied after this hand (0 or a negative number)
    total: int  # the hand's points: contract_points + bags + nil_points + penalty
    bags_after: int  # the team's running bag count after any penalty
    nils: tuple[tuple[int, bool, bool], ...] = ()  # (seat, blind, made) for each nil bid


@dataclass(frozen=True, slots=True)
class HandScore:
    teams: tuple[TeamScore, TeamScore]

    @property
    def points(self) -> list[int]:
        return [self.teams[0].total, self.teams[1].total]

    @property
    def bags(self) -> list[int]:
        return [self.teams[0].bags_after, self.teams[1].bags_after]


def score_hand(
    rules: Rules,
    bids: list[int | None],
    blind: list[bool],
    tricks: list[int],
    bags_before: list[int],
) -> HandScore:
    """Score a finished hand. ``bids[s]`` is 0 for nil; ignored in no-bidding mode."""
    return HandScore(
        (
            _score_team(rules, 0, bids, blind, tricks, bags_before[0]),
            _score_team(rules, 1, bids, blind, tricks, bags_before[1]),
        )
    )


def _score_team(
    rules: Rules, team: int, bids: list[int | None], blind: list[bool], tricks: list[int], bags_before: int
) -> TeamScore:
    seats = (team, team + 2)
    if rules.mode == "no_bidding":
        taken = tricks[seats[0]] + tricks[seats[1]]
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
            worth = 200 if blind[s] else 100
            nil_points += worth if made else -worth
            bags += tricks[s]  # a nil bidder's tricks are always bags, never the partner's
            nils.append((s, blind[s], made))
        else:
            bidders += 1
            contract += bid
            taken += tricks[s]
    if bidders == 0:
        made_contract = None
        contract_points = 0
    elif taken >= contract:
        made_contract = True
        contract_points = 10 * contract
        bags += taken - contract
    else:
        made_contract = False
        contract_points = 0 if rules.set_scores_zero else -10 * contract
    count = bags_before + bags
    penalty = 0
    if rules.bag_penalty:
        while count >= 10:
            penalty -= 100
            count -= 10
    total = contract_points + bags + nil_points + penalty
    return TeamScore(contract, taken, made_contract, contract_points, bags, nil_points, penalty, total, count,
                     tuple(nils))
