"""Properties over many seeded random matches."""

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from spades import Card, IllegalAction, Match, Rules, from_record, seat_view, to_record
from spades.cards import CARDS, cards_of
from spades.rules import legal_mask

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
