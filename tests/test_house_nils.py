"""Nils at the house-rules tables, as a player meets them: the bid Normal makes (and so the
hint) with a safe hand and with a strong one at each shape, Easy's caution, the nil
bidder's own cards and the partner's cover. Every position is a real match's view: the
cards dealt as given (``Match(deal=...)``), the bids and cards before it played by the
engine."""

from __future__ import annotations

import pytest

from spades.bots import choose, hint
from spades.cards import Card
from spades.rules import Match, parse_action
from spades.rules_config import Rules
from spades.views import seat_view

CUTTHROAT_3 = Rules(players=3, partners=False)
CUTTHROAT_4 = Rules(partners=False)
JJ = Rules(jokers="jj")
JJDD = Rules(jokers="jjdd", min_bid=4, ten_for_200=True)


def dealt(rules: Rules, dealer: int, given: dict[int, str]) -> Match:
    """A match of ``rules`` whose first hand gives the seats in ``given`` those cards
    (text) and shares the rest of the deck out in order; ``dealer`` deals it."""
    cards = {s: [Card.parse(c) for c in text.split()] for s, text in given.items()}
    taken = {c for hand in cards.values() for c in hand}
    rest = [c for c in rules.shape.deck if c not in taken]
    size = rules.shape.hand_size
    hands = []
    for seat in range(rules.shape.players):
        hand = cards.get(seat)
        if hand is None:
            hand, rest = rest[:size], rest[size:]
        assert len(hand) == size, (seat, len(hand))
        hands.append(hand)
    assert not rest
    return Match(rules, seed=1, first_dealer=dealer, deal=hands)


def act(match: Match, *actions: str | int) -> None:
    """Play ``actions`` (bids or cards, JSON form) in turn from the seat to act."""
    for action in actions:
        match.apply(match.to_act, parse_action(action, match.rules.shape.tricks))


def view_of(match: Match) -> dict:
    return seat_view(match, match.to_act)


SAFE = {
    "cutthroat-3": (CUTTHROAT_3, "2S 3S 2H 3H 4H 5H 6H 2D 3D 4D 5D 6D 7D 3C 4C 5C 6C"),
    "cutthroat-4": (CUTTHROAT_4, "2S 3S 2H 3H 4H 5H 2D 3D 4D 6D 3C 4C 5C"),
    "jj": (JJ, "2S 3S 2H 3H 4H 5H 3D 4D 5D 6D 3C 4C 5C"),
}


@pytest.mark.parametrize("name", list(SAFE))
def test_a_safe_hand_bids_nil_and_the_hint_says_so(name: str) -> None:
    """Low cards in every suit, two low trumps: Normal bids nil at every shape, the
    bidder alone in cutthroat (the first to bid, nobody's bid known), and the hint, which
    is Normal's bid, says nil."""
    rules, hand = SAFE[name]
    match = dealt(rules, rules.shape.players - 1, {0: hand})
    view = view_of(match)
    assert view["seat"] == 0
    assert choose(view, "normal", 1) == "nil"
    assert hint(view) == "nil"


STRONG = "AS KS QS JS AH KH AD KD AC KC QC JC TC"


STRONG_AT = {"cutthroat-3": CUTTHROAT_3, "cutthroat-4": CUTTHROAT_4, "jj": JJ, "jjdd": JJDD,
             "whiz": Rules(bidding_variant="whiz"), "suicide": Rules(bidding_variant="suicide")}


@pytest.mark.parametrize("name", list(STRONG_AT))
def test_a_strong_hand_never_bids_nil(name: str) -> None:
    """Top trumps and side aces: a number at every shape and variant, from each level and
    the hint (at three players, four low cards added to the thirteen)."""
    rules = STRONG_AT[name]
    hand = STRONG + (" 3H 4H 5D 6D" if rules.shape.players == 3 else "")
    match = dealt(rules, rules.shape.players - 1, {0: hand})
    view = view_of(match)
    for level in ("easy", "normal", "hard"):
        assert choose(view, level, 1) != "nil", level
    assert hint(view) != "nil"


def test_easy_keeps_to_a_number_where_normal_dares_the_nil() -> None:
    """Cutthroat for four, an unguarded queen of hearts among low cards: worth a nil to
    Normal, not to Easy, which counts a nil's chance lower."""
    match = dealt(CUTTHROAT_4, 3, {0: "2S 3S 2H QH 2D 3D 4D 5D 3C 4C 5C 6C 7C"})
    view = view_of(match)
    assert choose(view, "normal", 1) == "nil"
    assert isinstance(choose(view, "easy", 1), int)


SEEDS = 1500


def test_easy_bids_no_nil_that_normal_would_not() -> None:
    """Over many deals at cutthroat for four, Easy's nils are among Normal's, and fewer."""
    normal = easy = 0
    for seed in range(SEEDS):
        match = Match(CUTTHROAT_4, seed=seed)
        view = view_of(match)
        n, e = choose(view, "normal", seed) == "nil", choose(view, "easy", seed) == "nil"
        assert n or not e, seed
        normal += n
        easy += e
    assert normal > easy


def test_whiz_a_safe_hand_bids_nil_rather_than_its_trumps() -> None:
    """Under whiz the bid is nil or the trumps held: a safe hand with two low spades bids nil."""
    match = dealt(Rules(bidding_variant="whiz"), 3, {0: "2S 3S 2H 3H 4H 5H 2D 3D 4D 6D 3C 4C 5C"})
    view = view_of(match)
    assert set(view["legal"]) == {"nil", 2}
    assert choose(view, "normal", 1) == "nil"


def test_a_void_nil_bidder_throws_its_highest_dangerous_card() -> None:
    """Cutthroat for four: the nil bidder (seat 0) has no clubs and plays last to a trick
    the nine of clubs holds: it throws the ace of hearts, the card likeliest to take a
    trick later, not a low one."""
    match = dealt(CUTTHROAT_4, 0, {0: "2S 3S AH 2H 3H 4H KD 2D 3D 4D 5D 6D 7D",
                                   1: "5C 6C 7C 8C JC QC KC AC 4S 5S 6S 7S 8S",
                                   2: "9C TC 5H 6H 7H 8H 9H TH 8D 9D TD JD QD"})
    act(match, 3, 3, 3, "nil")
    act(match, "5C", "9C", "2C")
    view = view_of(match)
    assert view["seat"] == 0
    assert choose(view, "normal", 1) == "AH"


def test_a_nil_bidder_over_a_lead_sheds_its_highest_when_the_rest_have_shown_out() -> None:
    """The nil bidder (seat 0) must go over the three of diamonds, and both seats after it
    threw other suits on the ace of diamonds: no one behind can go over or under in the
    suit, so the ten goes, not the nine (it is lost anyway, unless someone ruffs)."""
    match = dealt(CUTTHROAT_4, 2, {
        0: "2D 9D TD 2S 3S 2H 3H 4H 5H 2C 3C 4C 5C",
        3: "AD KD QD JD 8D 7D 6D 5D 4D 3D AS KS QS",
    })
    act(match, 4, "nil", 3, 3)
    act(match, "AD", "2D", "6H", "6C")  # seats 1 and 2 hold no diamonds
    act(match, "3D")
    view = view_of(match)
    assert view["seat"] == 0
    assert choose(view, "normal", 1) == "TD"


def test_the_partner_goes_over_a_low_lead_to_cover_the_nil() -> None:
    """Jokers (partners): seat 2 bid nil and plays after its partner (seat 0) to the four
    of hearts; the partner takes it with the ace, so the nil can go under anything."""
    match = dealt(JJ, 2, {0: "AH 9H 3H BJ AS KS AD KD QD AC KC QC JC",
                          2: "2H 5H 7H 2S 3S 3D 4D 5D 6D 3C 4C 5C 6C",
                          3: "4H 6H 8H TH JH 4S 5S 6S 7S 7D 8D 9D 7C"})
    act(match, 3, 4, 3, "nil")
    act(match, "4H")
    view = view_of(match)
    assert view["seat"] == 0
    assert choose(view, "normal", 1) == "AH"
