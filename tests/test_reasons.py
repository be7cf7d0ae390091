"""The hint's few words: where a hand's tricks come from, as a player counts them."""

from __future__ import annotations

import pytest

from spades.bots.reasons import explain

CASES = [
    (["AS", "7S", "4S", "AH", "9H", "5H", "3H", "QD", "8D", "6D", "4D", "2D", "9C"], 3,
     "3: ♠A, ♥A and a ruff in clubs"),
    (["AS", "KS", "QS", "JS", "5S", "AH", "AD", "AC", "3H", "4D", "5C", "6C", "7C"], 7,
     "7: ♠A, ♠K, ♠Q and ♥A"),  # a few words: four reasons at most
    (["KS", "3H", "QH", "8H", "5H", "KD", "8D", "6D", "4D", "9C", "5C", "2C", "7H"], 1,
     "1: ♦K"),  # a bare king of spades is no sure trick; a guarded side king is
    (["9S", "4S", "2S", "QH", "8H", "5H", "3H", "JD", "8D", "6D", "4D", "9C", "2C"], "nil",
     "nil: no spade above the 9 and no side ace"),
    (["KS", "4S", "QH", "8H", "5H", "3H", "JD", "8D", "6D", "4D", "9C", "5C", "2C"], "nil", "nil: risky, with ♠K"),
    (["TS", "KS", "2S", "AH", "8H", "5H", "3H", "JD", "8D", "6D", "4D", "9C", "2C"], "nil",
     "nil: risky, with ♠K, ♠10 and ♥A"),  # the high cards first, as a player names them
    (["3S", "QH", "8H", "5H", "3H", "JD", "8D", "6D", "4D", "9C", "5C", "2C", "7H"], 1,
     "1: no sure trick, so a low bid"),
    (["AS", "QS", "9S", "8S", "7S", "6S", "AH", "KH", "QD", "JD", "TD", "9D", "8D"], 6,
     "6: ♠A, ♠Q, ♥A and ♥K"),
]


@pytest.mark.parametrize("hand,bid,words", CASES)
def test_the_reasons_of_a_bid(hand, bid, words):
    assert explain(hand, bid) == words


@pytest.mark.parametrize("seed", range(4))
def test_the_words_name_the_hint(seed):
    """The hint is Hard's calibrated bid; its few words start with that bid."""
    from spades.bots import hint
    from spades.rules import Match, Rules
    from spades.views import seat_view

    m = Match(Rules(), seed=seed)
    v = seat_view(m, m.to_act)
    bid = hint(v)
    assert bid in v["legal"]
    words = explain(v["hand"], bid)
    assert words.startswith(f"{bid}: ") and len(words.split()) <= 12


JJDD_TOP = ("BJ", "LJ", "2D", "2S")  # the jjdd trumps above the ace of spades


def test_the_jokers_and_the_jjdd_two_of_diamonds_are_named_as_trumps_above_the_ace():
    """At a jokers table the trumps above the ace are spades for the count and named first;
    the ace of spades is fifth from the top there, so four trumps do not make it sure."""
    hand = ["BJ", "AS", "7S", "4S", "AH", "9H", "5H", "3H", "QD", "8D", "6D", "4D", "9C"]
    assert explain(hand, 4, JJDD_TOP) == "4: BJ, ♥A, a long spade and a ruff in clubs"
    hand = ["LJ", "2D", "7S", "AH", "9H", "5H", "3H", "QD", "8D", "6D", "4D", "9C", "3C"]
    assert explain(hand, 2, JJDD_TOP) == "2: LJ, 2♦ and ♥A"  # the 2D a trump, not a diamond
    hand = ["LJ", "7S", "4S", "9H", "5H", "3H", "QD", "8D", "6D", "4D", "9C", "3C", "2H"]
    assert explain(hand, "nil", ("BJ", "LJ")) == "nil: risky, with LJ"
