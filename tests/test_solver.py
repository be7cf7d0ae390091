"""The double-dummy solver against brute force on small random end positions, and the
certain sweep a claim needs."""

from __future__ import annotations

import random

import pytest
from helpers.solver import _legal, brute, brute_sweep

from spades.bots import knowledge, search
from spades.bots.solver import Position, Solver, sweeps
from spades.cards import Card, mask_of
from spades.rules import Rules


def random_position(rng: random.Random, k: int) -> tuple[Position, list, list]:
    """k cards each to play (some already on the trick), random bids with nils."""
    deck = list(range(52))
    rng.shuffle(deck)
    hands = [mask_of(deck[i * k:(i + 1) * k]) for i in range(4)]
    leader = rng.randrange(4)
    done = 13 - k
    taken = [0, 0, 0, 0]
    for _ in range(done):
        taken[rng.randrange(4)] += 1
    broken = rng.random() < 0.5
    pos = Position(tuple(hands), (), leader, tuple(taken), broken)  # type: ignore[arg-type]
    for _ in range(rng.randrange(4)):  # part of the first trick already played
        legal = _legal(pos)
        pos = pos.play(rng.choice(legal))
    bids = [rng.choice([0, 1, 2, 3, 4, 5]) for _ in range(4)]
    blind = [b == 0 and rng.random() < 0.3 for b in bids]
    return pos, bids, blind


@pytest.mark.parametrize("seed", range(30))
def test_solver_matches_brute_force(seed):
    rng = random.Random(seed)
    k = 1 + seed % 4  # 1 to 4 cards each; the 5-card case below
    pos, bids, blind = random_position(rng, k)
    rules = Rules(mode="no_bidding") if seed % 10 == 9 else Rules()  # seeds 9, 19, 29: no bidding
    solver = Solver(rules, bids if rules.bidding else [None] * 4, blind)
    assert solver.value(pos) == brute(pos, rules, bids, blind)
    sign = 1 if pos.to_act % 2 == 0 else -1
    values = solver.card_values(pos)
    assert set(values) == set(_legal(pos))
    memo: dict = {}
    for c, v in values.items():
        assert v == sign * brute(pos.play(c), rules, bids, blind, memo)


@pytest.mark.parametrize("seed", range(3))
def test_solver_five_cards_each(seed):
    rng = random.Random(100 + seed)
    pos, bids, blind = random_position(rng, 5)
    rules = Rules()
    assert Solver(rules, bids, blind).value(pos) == brute(pos, rules, bids, blind)


@pytest.mark.parametrize("seed", range(12))
def test_solver_on_match_value_matches_brute_force(seed):
    """Hard's endings are solved on match value: the bag penalty near ten bags and the
    bonus of a hand that ends the match move the best card; the solver with that measure
    gives brute force's figure for every card."""
    rng = random.Random(700 + seed)
    pos, bids, blind = random_position(rng, 1 + seed % 4)
    rules = Rules()
    v = {"seat": pos.to_act, "rules": rules.to_dict(), "dealer": 3, "hand": [], "bids": bids,
         "blind": blind, "tricks": [], "trick": None, "taken": list(pos.taken), "scores": [430, 410],
         "bags": [8, 9], "legal": [], "hand_number": 4}
    known = knowledge.read(v)
    known.bids = list(bids)
    ctx = known.ctx()
    solver = search.ending_solver(known, ctx, False)

    def measure(taken):
        return int(search.hand_value(known, ctx, list(taken), 0, False))

    assert solver.value(pos) == brute(pos, rules, bids, blind, measure=measure)
    sign = 1 if pos.to_act % 2 == 0 else -1
    memo: dict = {}
    for c, value in solver.card_values(pos).items():
        assert value == sign * brute(pos.play(c), rules, bids, blind, memo, measure)


def test_spades_not_broken_holds_back_the_lead():
    """Leading, spades not broken: the only spade holder with a side card must lead it."""
    c = Card.parse
    hands = (mask_of([c("AS"), c("2H")]), mask_of([c("3H"), c("4H")]),
             mask_of([c("5H"), c("6H")]), mask_of([c("7H"), c("8H")]))
    pos = Position(hands, (), 0, (3, 3, 3, 2), False)
    assert set(Solver(Rules(), [3, 3, 3, 3], [False] * 4).card_values(pos)) == {c("2H")}
    assert Solver(Rules(), [3, 3, 3, 3], [False] * 4).value(pos) == brute(pos, Rules(), [3, 3, 3, 3], [False] * 4)


@pytest.mark.parametrize("seed", range(20))
def test_sweep_matches_every_line(seed):
    rng = random.Random(500 + seed)
    pos, _, _ = random_position(rng, 1 + seed % 4)
    for team in (0, 1):
        assert sweeps(pos, team) == brute_sweep(pos, team)


def test_sweep_both_ways():
    c = Card.parse
    # seat 0 leads with the two top spades left, spades broken: certain
    hands = (mask_of([c("AS"), c("KS")]), mask_of([c("2H"), c("3H")]),
             mask_of([c("4H"), c("5H")]), mask_of([c("6H"), c("7H")]))
    assert sweeps(Position(hands, (), 0, (5, 3, 3, 0), True), 0)
    # the same cards with spades not broken: seat 0 still leads a spade (only spades)
    assert sweeps(Position(hands, (), 0, (5, 3, 3, 0), False), 0)
    # a heart ace in seat 1 beats a low heart lead: not certain
    hands = (mask_of([c("AS"), c("2D")]), mask_of([c("AD"), c("3H")]),
             mask_of([c("4H"), c("5H")]), mask_of([c("6H"), c("7H")]))
    assert not sweeps(Position(hands, (), 0, (5, 3, 3, 0), True), 0)
