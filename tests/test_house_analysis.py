"""The analysis of a match played under house rules: the double-dummy solver of any shape
(``spades.bots.house_solver``) against brute force and against the standard solver, the
analysis of every house record's hands, and the analysis page of a cutthroat-for-3 match
and of a JJDD match."""

from __future__ import annotations

import dataclasses
import random

import pytest

from spades.bots.house_solver import HouseSolver, Spot, equivalents, play, to_act
from spades.bots.solver import Position, Solver
from spades.cards import Card
from spades.rules import shape_legal_mask
from spades.rules_config import Rules
from spades.scoring import score_hand

C = Card.parse
CUTTHROAT_3 = Rules(players=3, partners=False)
CUTTHROAT_4 = Rules(partners=False)
JJDD = Rules(jokers="jjdd", min_bid=4, ten_for_200=True)
JJ = Rules(jokers="jj")
LEAD_ANY = Rules(spades_lead="any", bidding_variant="mirror")


# -- the solver --------------------------------------------------------------------------
def brute(rules: Rules, bids: list[int], spot: Spot, hero: int, measure: str) -> int:
    """Side ``hero``'s figure by trying every line of play: written from RULES.md alone
    (the trick to the highest trump, else the highest card of the suit led; a trump
    played breaks spades), no table, no pruning, no merged cards."""
    shape = rules.shape
    plain = dataclasses.replace(rules, bag_penalty=False)
    n = shape.players

    def final(taken: tuple[int, ...]) -> int:
        if measure == "tricks":
            return sum(taken[s] - spot.taken[s] for s in shape.sides[hero])
        sides = score_hand(plain, list(bids), [False] * n, list(taken), [0] * shape.side_count).teams
        mine = sides[hero].total
        return mine - sum(t.total for i, t in enumerate(sides) if i != hero) if shape.partners else mine

    def every(hands: list[int], trick: list[int], leader: int, taken: tuple[int, ...], broken: bool) -> int:
        if not trick and not hands[leader]:
            return final(taken)
        seat = leader
        for _ in trick:
            seat = shape.left[seat]
        legal = shape_legal_mask(shape, hands[seat], trick, broken, rules.spades_lead == "any")
        values = []
        for c in range(54):
            if not legal >> c & 1:
                continue
            held = list(hands)
            held[seat] &= ~(1 << c)
            t = trick + [c]
            if len(t) < n:
                values.append(every(held, t, leader, taken, broken))
                continue
            trumps = [x for x in t if shape.trump_mask >> x & 1]
            top = max(trumps or [x for x in t if shape.suit_of[x] == shape.suit_of[t[0]]], key=lambda x: shape.power[x])
            winner = leader
            for _ in range(t.index(top)):
                winner = shape.left[winner]
            after = list(taken)
            after[winner] += 1
            values.append(every(held, [], winner, tuple(after), broken or bool(trumps)))
        return max(values) if seat in shape.sides[hero] else min(values)

    return every(list(spot.hands), list(spot.trick), spot.leader, spot.taken, spot.broken)


def random_spot(rules: Rules, tricks_left: int, rng: random.Random) -> Spot:
    """A spot with ``tricks_left`` tricks to play (the jokers dealt first when the deck
    has them), the earlier tricks shared at random, and a few cards of the trick played."""
    shape = rules.shape
    n = shape.players
    deck = list(shape.deck)
    rng.shuffle(deck)
    deck.sort(key=lambda c: c < 52)  # the jokers (and 2D) into play whenever there are any
    cards = deck[:2] + rng.sample(deck[2:], n * tricks_left - 2)
    rng.shuffle(cards)
    hands = [0] * n
    for i, c in enumerate(cards):
        hands[i % n] |= 1 << c
    taken = [0] * n
    for _ in range(shape.tricks - tricks_left):
        taken[rng.randrange(n)] += 1
    spot = Spot(tuple(hands), (), rng.randrange(n), tuple(taken), rng.random() < 0.5)
    for _ in range(rng.randrange(n)):
        legal = shape_legal_mask(shape, spot.hands[to_act(shape, spot)], spot.trick, spot.broken,
                                 rules.spades_lead == "any")
        spot = play(shape, spot, rng.choice([c for c in range(54) if legal >> c & 1]))
    return spot


@pytest.mark.parametrize("rules", [CUTTHROAT_3, CUTTHROAT_4, JJDD, JJ, LEAD_ANY],
                         ids=["cutthroat-3", "cutthroat-4", "jjdd", "jj", "lead-any"])
def test_the_solver_agrees_with_every_line_of_play(rules):
    """Small spots of 2 to 4 tricks (2 or 3 with four seats), jokers in play where the deck
    has them, bids with nils: every side's figure, by points and by tricks, is brute force's."""
    rng = random.Random(f"house-solver/{rules}")
    shape = rules.shape
    jokers_seen = 0
    for _ in range(12):
        spot = random_spot(rules, rng.choice([2, 3, 4] if shape.players == 3 else [2, 3]), rng)
        jokers_seen += any(h >> 52 for h in spot.hands)
        bids = [rng.choice([0, 1, 2, 3, 4]) for _ in shape.seats]
        for measure in ("points", "tricks"):
            solver = HouseSolver(rules, bids, [False] * shape.players, measure)
            for hero in range(shape.side_count):
                assert solver.value(spot, hero) == brute(rules, bids, spot, hero, measure), (spot, bids, hero, measure)
    assert jokers_seen or shape.jokers == "none"


def test_card_values_are_each_cards_line_solved_on():
    """A card's figure is the side's figure once it is played: for every legal card."""
    rng = random.Random(3)
    for rules in (CUTTHROAT_3, JJDD):
        shape = rules.shape
        for _ in range(6):
            spot = random_spot(rules, 3, rng)
            bids = [rng.choice([0, 2, 3]) for _ in shape.seats]
            hero = shape.side_of[to_act(shape, spot)]
            values = HouseSolver(rules, bids, [False] * shape.players).card_values(spot)
            legal = shape_legal_mask(shape, spot.hands[to_act(shape, spot)], spot.trick, spot.broken)
            assert set(values) == {c for c in range(54) if legal >> c & 1}
            for card, v in values.items():
                assert v == brute(rules, bids, play(shape, spot, card), hero, "points")


def test_the_solver_gives_the_standard_solvers_figures_on_a_standard_table():
    rng = random.Random(11)
    rules = Rules()
    for _ in range(8):
        spot = random_spot(rules, rng.choice([4, 5, 6]), rng)
        bids = [rng.choice([0, 2, 3, 4, 5]) for _ in range(4)]
        pos = Position(spot.hands, spot.trick, spot.leader, spot.taken, spot.broken)  # type: ignore[arg-type]
        standard = Solver(rules, bids, [False] * 4).card_values(pos)
        assert HouseSolver(rules, bids, [False] * 4).card_values(spot) == standard
        by_tricks = Solver(rules, bids, [False] * 4, score=lambda t: t[0] + t[2] - t[1] - t[3]).card_values(pos)
        seat = to_act(rules.shape, spot)
        before = spot.taken[seat % 2] + spot.taken[seat % 2 + 2]
        assert HouseSolver(rules, bids, [False] * 4, "tricks").card_values(spot) == {
            c: (v + 13) // 2 - before for c, v in by_tricks.items()}


def test_equivalent_cards_follow_the_trump_order_of_jjdd():
    """Under JJDD the trumps run BJ, LJ, 2D, 2S, AS: the big joker and the 2 of diamonds
    are one run when the little joker is gone, and the 2D is no diamond."""
    shape = JJDD.shape
    mine = (1 << 53) | (1 << C("2D")) | (1 << C("2S")) | (1 << C("5D"))
    reps = equivalents(shape, mine, 1 << C("AS"))
    assert reps[C("2D")] == 53 and reps[C("2S")] == 53 and reps[C("5D")] == C("5D")
    reps = equivalents(shape, mine, (1 << 52) | (1 << C("AS")))
    assert reps[C("2D")] == C("2D") and reps[C("2S")] == C("2D")
