"""Properties over many seeded random matches."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spades import Card, IllegalAction, Match, Rules, from_record, seat_view, to_record
from spades.cards import CARDS, cards_of
from spades.rules import MAX_HANDS, legal_mask

RULESETS = [
    Rules(end="hands", hands=2),
    Rules(end="hands", hands=2, blind_nil=True),
    Rules(end="hands", hands=2, mode="no_bidding"),
    Rules(end="target", target=200, set_scores_zero=True, bag_penalty=False),
]


def brute_force_legal_cards(m: Match, seat: int) -> set[Card]:
    """RULES.md read literally, independent of the engine's masks."""
    cards = set(m.cards(seat))
    if m.trick:
        led = m.trick[0].suit
        follow = {c for c in cards if c.suit == led}
        return follow or cards
    broken = any(c.suit == 0 for _, trick, _ in m.tricks for c in trick)
    if broken:
        return cards
    return {c for c in cards if c.suit != 0} or cards


STATE = ["scores", "bags", "hand_number", "dealer", "held", "bids", "blind", "plays", "trick",
         "tricks", "taken", "broken", "to_act", "phase", "winner"]


def same_state(a: Match, b: Match) -> bool:
    return all(getattr(a, k) == getattr(b, k) for k in STATE)


def check_views(m: Match) -> None:
    for seat in range(4):
        view = seat_view(m, seat)
        text = json.dumps(view)
        for other in range(4):
            if other != seat:
                for card in m.cards(other):
                    assert f'"{card}"' not in text, f"seat {seat} sees {card} of seat {other}"
        if view["hand"] is not None:
            assert sorted(view["hand"]) == sorted(str(c) for c in m.cards(seat))
        else:
            assert not m.looked[seat] and not any(f'"{c}"' in text for c in m.cards(seat))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), which=st.integers(0, len(RULESETS) - 1), cut=st.integers(0, 300))
def test_random_matches(seed, which, cut):
    rules = RULESETS[which]
    rng = random.Random(seed)
    m = Match(rules, seed=seed)
    steps = 0
    while not m.finished:
        if m.phase == "hand_over":
            m.next_hand()
            continue
        seat = m.to_act
        legal = m.legal_actions(seat)
        assert legal
        if m.phase == "playing":
            assert set(legal) == brute_force_legal_cards(m, seat)
            assert cards_of(legal_mask(m.held[seat], m.trick, m.broken)) == tuple(legal)  # the bots' rule
            for card in CARDS:  # every other card is refused, every legal one passes
                try:
                    m.check(seat, card)
                    assert card in legal
                except IllegalAction:
                    assert card not in legal
            for other in range(4):
                assert other == seat or m.legal_actions(other) == ()
        if steps % 7 == 0:
            check_views(m)
        if steps == cut:  # export an unfinished match and rebuild it
            assert same_state(from_record(to_record(m)), m)
        m.apply(seat, rng.choice(legal))
        steps += 1
        if m.phase in ("hand_over", "match_over"):
            last = m.results[-1]
            assert sorted(last.plays) == sorted(CARDS) and sum(last.tricks) == 13 and len(m.tricks) == 13
    rebuilt = from_record(to_record(m))
    assert same_state(rebuilt, m) and rebuilt.finished
    assert [r.totals for r in rebuilt.results] == [r.totals for r in m.results]


# -- the house rules: every preset of RULES.md's "House rules" --------------------------
HOUSE_RULESETS = {
    "standard": Rules(end="hands", hands=2),
    "cutthroat for 3": Rules(end="hands", hands=2, players=3, partners=False),
    "cutthroat for 4": Rules(end="hands", hands=2, partners=False, blind_nil=True),
    "jokers jjdd": Rules(end="hands", hands=2, jokers="jjdd"),
    "jokers jj": Rules(end="hands", hands=2, jokers="jj", blind_nil=True),
    "whiz": Rules(end="hands", hands=2, bidding_variant="whiz", blind_nil=True),
    "mirror": Rules(end="hands", hands=2, bidding_variant="mirror"),
    "suicide": Rules(end="hands", hands=2, bidding_variant="suicide", blind_nil=True),
    "min_bid 4": Rules(end="hands", hands=2, min_bid=4),
    "ten_for_200": Rules(end="target", target=250, ten_for_200=True, set_scores_zero=True),
    "spades_lead any": Rules(end="hands", hands=2, spades_lead="any", jokers="jj"),
    "no bidding, 3 players": Rules(end="hands", hands=1, mode="no_bidding", players=3, partners=False),
}


def literal_trumps(rules: Rules) -> set[str]:
    """RULES.md read literally: spades, both jokers with jokers, the 2 of diamonds with jjdd."""
    trumps = {r + "S" for r in "23456789TJQKA"}
    if rules.jokers != "none":
        trumps |= {"BJ", "LJ"}
    if rules.jokers == "jjdd":
        trumps.add("2D")
    return trumps


def literal_deck(rules: Rules) -> set[str]:
    deck = {r + s for s in "SHDC" for r in "23456789TJQKA"}
    if rules.players == 3:
        deck -= {"2C"}
    elif rules.jokers == "jj":
        deck = deck - {"2C", "2D"} | {"BJ", "LJ"}
    elif rules.jokers == "jjdd":
        deck = deck - {"2C", "2H"} | {"BJ", "LJ"}
    return deck


def literal_legal_cards(m: Match, seat: int) -> set[str]:
    trumps = literal_trumps(m.rules)

    def suit(card: str) -> str:
        return "S" if card in trumps else card[1]

    cards = {str(c) for c in m.cards(seat)}
    if m.trick:
        follow = {c for c in cards if suit(c) == suit(str(m.trick[0]))}
        return follow or cards
    broken = any(str(c) in trumps for _, trick, _ in m.tricks for c in trick)
    if broken or m.rules.spades_lead == "any":
        return cards
    return {c for c in cards if c not in trumps} or cards


def literal_side_score(rules: Rules, seats, bids, blind, tricks, bags_before) -> tuple[int, int]:
    """A side's hand total and bag count after it, from RULES.md's words alone."""
    if rules.mode == "no_bidding":
        return 10 * sum(tricks[s] for s in seats), 0
    numbers = [s for s in seats if bids[s]]
    contract = sum(bids[s] for s in numbers)
    taken = sum(tricks[s] for s in numbers)
    per = 20 if rules.ten_for_200 and contract >= 10 else 10
    bags = sum(tricks[s] for s in seats if not bids[s])
    nils = sum((200 if blind[s] else 100) * (1 if tricks[s] == 0 else -1) for s in seats if not bids[s])
    points = 0
    if numbers and taken >= contract:
        points = per * contract
        bags += taken - contract
    elif numbers and not rules.set_scores_zero:
        points = -per * contract
    count = bags_before + bags
    penalty = 0
    while rules.bag_penalty and count >= 10:
        penalty, count = penalty - 100, count - 10
    return points + bags + nils + penalty, count


def check_house_views(m: Match) -> None:
    for seat in range(m.rules.players):
        view = seat_view(m, seat)
        text = json.dumps(view)
        assert len(view["bids"]) == len(view["taken"]) == m.rules.players
        assert len(view["scores"]) == len(view["bags"]) == len(view["sides"])
        for other in range(m.rules.players):
            if other != seat:
                for card in m.cards(other):
                    assert f'"{card}"' not in text, f"seat {seat} sees {card} of seat {other}"
        if view["hand"] is not None:
            assert sorted(view["hand"]) == sorted(str(c) for c in m.cards(seat))


@pytest.mark.parametrize("name", list(HOUSE_RULESETS))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_matches_under_each_house_preset(name, seed):
    """Seeded random play: each card of the rules' deck dealt once, the tricks add up to
    the hand's tricks, the legal cards are RULES.md's, every bid listed is accepted and
    scores follow RULES.md exactly, per side; no seat view shows another seat's cards."""
    rules = HOUSE_RULESETS[name]
    rng = random.Random(seed)
    m = Match(rules, seed=seed)
    n = rules.players
    deck = literal_deck(rules)
    size = len(deck) // n
    totals = [0] * len(m.scores)
    bags = [0] * len(m.scores)
    steps = 0
    while not m.finished:
        if m.phase == "hand_over":
            m.next_hand()
            continue
        if not m.plays and not any(b is not None for b in m.bids):
            assert sorted(str(c) for d in m.deal for c in d) == sorted(deck)
            assert all(len(d) == size for d in m.deal)
        seat = m.to_act
        legal = m.legal_actions(seat)
        assert legal
        if m.phase == "playing":
            assert {str(c) for c in legal} == literal_legal_cards(m, seat)
            for card in m.shape.deck:
                try:
                    m.check(seat, card)
                    assert card in legal
                except IllegalAction:
                    assert card not in legal
        if steps % 5 == 0:
            check_house_views(m)
        m.apply(seat, rng.choice(legal))
        steps += 1
        if m.phase in ("hand_over", "match_over"):
            last = m.results[-1]
            assert sorted(str(c) for c in last.plays) == sorted(deck)
            assert sum(last.tricks) == size == len(m.tricks)
            for t, side in enumerate(m.shape.sides):
                total, count = literal_side_score(rules, side, last.bids, last.blind, last.tricks, bags[t])
                assert (last.score.teams[t].total, last.score.teams[t].bags_after) == (total, count)
                totals[t] += total
                bags[t] = count
            assert list(last.totals) == totals
            check_house_views(m)
    best = max(totals)
    assert totals.count(best) == 1 or len(m.results) == MAX_HANDS
    assert m.winner == totals.index(best)
    rebuilt = from_record(json.loads(json.dumps(to_record(m))))
    assert same_state(rebuilt, m) and rebuilt.finished
    assert to_record(m)["format"] == ("spades-match/1" if name == "standard" else "spades-match/2")
