"""Brute-force double-dummy answers to check the solver by."""

from __future__ import annotations

from spades.bots.solver import Position
from spades.rules import Rules
from spades.scoring import score_hand


def _legal(pos: Position) -> list[int]:
    m = pos.legal()
    return [c for c in range(52) if m >> c & 1]


def brute(pos: Position, rules: Rules, bids, blind, memo=None, measure=None) -> int:
    """Team 0 minus team 1 by plain minimax over every legal card (no pruning, no merging;
    a position met again is looked up), in points or by ``measure(taken)``."""
    memo = {} if memo is None else memo
    if pos in memo:
        return memo[pos]
    if pos.tricks_left == 0:
        if measure is not None:
            return measure(pos.taken)
        if not rules.bidding:
            return 10 * (pos.taken[0] + pos.taken[2] - pos.taken[1] - pos.taken[3])
        s = score_hand(Rules(bag_penalty=False), list(bids), list(blind), list(pos.taken), [0, 0])
        return s.teams[0].total - s.teams[1].total
    values = [brute(pos.play(c), rules, bids, blind, memo, measure) for c in _legal(pos)]
    memo[pos] = max(values) if pos.to_act % 2 == 0 else min(values)
    return memo[pos]


def brute_sweep(pos: Position, team: int, memo: dict | None = None) -> bool:
    """Whether ``team`` takes every trick left in every line of play: every legal card
    tried (no merging; a position met again is looked up)."""
    memo = {} if memo is None else memo
    if pos.tricks_left == 0:
        return True
    if pos in memo:
        return memo[pos]
    ok = True
    for c in _legal(pos):
        after = pos.play(c)
        if (sum(after.taken) > sum(pos.taken) and after.leader % 2 != team) or not brute_sweep(after, team, memo):
            ok = False
            break
    memo[pos] = ok
    return ok
