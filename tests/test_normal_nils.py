"""Normal's play around nils and close contracts, against opponents who attack: hand-built
seat views, each of a habit the Normal bot lacked before it was measured against
``punisher`` (docs/bots.md, "Normal against attackers")."""

from __future__ import annotations

import random

from helpers.bots import heuristic, view

from spades.bots import bidmodel, choose
from spades.rules_config import Rules

# Tricks in which seat 0 (bid 2) took two and its nil partner, seat 2, none
TWO_TAKEN = [(0, "AC 2C 3C 4C"), (0, "KC 5C 6C 7C")]


def test_covering_a_partners_nil_comes_before_ducking_bags() -> None:
    """Our 2 is made, the partner's nil is alive and we lead: a boss over the nil, not a
    low card it may have to win."""
    v = view(0, "AH 2H 8D 9D TC 2S 3S 4S 5S 6S QS", [2, 4, "nil", 4], tricks=TWO_TAKEN, dealer=3)
    assert v["trick"]["leader"] == 0
    assert choose(v, "normal", 0) == "AH"


def test_the_lead_over_a_nil_is_a_boss_of_a_suit_the_nil_has_shown_out_of() -> None:
    """The partner (nil) threw a club on the ace of diamonds: the king of diamonds, now the
    boss, comes before the ace of hearts, so the nil throws another high card away."""
    tricks = [(0, "AD 2D 8C 4D"), (0, "AC 5C 6C 7C")]
    v = view(0, "AH 2H KD 3D TC 2S 3S 4S 5S 6S QS", [2, 4, "nil", 4], tricks=tricks, dealer=3)
    assert choose(v, "normal", 0) == "KD"


def test_before_an_opponents_nil_a_void_seat_throws_a_card_rather_than_ruff() -> None:
    """The nil's partner led the three of diamonds and the nil (seat 1) plays after us:
    a ruff would let it throw anything; a discard leaves it the three to stay under."""
    v = view(0, "AH KH 2H 8C 9C TC 2S 3S 4S 5S 6S QS KS", [4, "nil", 4, 3], trick=(3, "3D"), dealer=2)
    card = choose(v, "normal", 0)
    assert not card.endswith("S")


def test_under_the_nil_partners_low_lead_the_higher_of_two_small_cards() -> None:
    """The nil plays after us and must stay under the four of clubs: the three is played and
    the two is kept, to lead into its clubs later."""
    v = view(0, "2C 3C JC AH KH 2H 8D 9D 2S 3S 4S 5S 6S", [4, "nil", 4, 3], trick=(3, "4C"), dealer=2)
    assert choose(v, "normal", 0) == "3C"


def test_after_an_opponents_nil_has_played_the_lowest_card_is_kept_to_lead_into_it() -> None:
    """The nil (seat 1) led the five of hearts and the partner's king has the trick: we
    throw the nine, and keep the two and the four to lead under the nil."""
    v = view(0, "2H 4H 9H 8D 9D TD 2C 3C 4C 2S 3S 4S 5S", [4, "nil", 4, 3], trick=(1, "5H KH 3H"), dealer=0)
    assert choose(v, "normal", 0) == "9H"


def test_once_an_opponents_nil_has_played_under_we_keep_the_lead_from_its_partner() -> None:
    """The partner led the four of clubs and the nil (seat 3) threw the two under it. The
    nil's partner plays last and would take the lead to play for the nil: we take the trick
    with the lowest of our king-queen-jack (none is sure to hold it while the ace is
    unseen), not the three, so our side leads into the nil again."""
    v = view(0, "KC QC JC 3C AH 2H 8D 9D 2S 3S 4S 5S 6S", [4, 4, 4, "nil"], trick=(2, "4C 2C"), dealer=1)
    assert choose(v, "normal", 0) == "JC"


def test_void_in_the_led_suit_we_ruff_to_keep_the_lead_from_the_nils_partner() -> None:
    """The same trick, without clubs: a trump takes it (the lowest of the top run, as no
    trump of ours is sure to hold), where a discard would leave it to the nil's partner."""
    v = view(0, "AH KH 3H 2H 8D 9D TD 4D 3D KS QS 7S 2S", [4, 4, 4, "nil"], trick=(2, "4C 2C"), dealer=1)
    assert choose(v, "normal", 0) == "QS"


def test_a_nil_void_in_the_suit_led_throws_its_highest_spade_under_a_ruff() -> None:
    """We bid nil, have no diamonds, and an opponent has ruffed the partner's nine with the
    eight of spades: the six of spades goes under it, a spade that could win a trick later,
    rather than the queen of hearts."""
    v = view(2, "6S 4S 3S QH 7H 5H 3H 2H 7C 6C 5C 3C 2C", [3, 4, "nil", 4], trick=(0, "9D 8S"), dealer=3)
    assert choose(v, "normal", 0) == "6S"


def test_once_the_partners_nil_is_under_an_opponents_card_the_high_cards_wait() -> None:
    """The partner (nil) led the two of diamonds and an opponent's nine beat it, so the nil
    is safe in this trick: the three of diamonds, and the ten stays to cover the nil later."""
    v = view(0, "KS QS 3S AH QH 8H 7H 3H AC 5C TD 8D 3D", [5, 4, "nil", 2], trick=(2, "2D 9D"), dealer=1)
    assert choose(v, "normal", 0) == "3D"


def test_void_third_seat_ruffs_a_partners_lead_the_last_seat_may_beat() -> None:
    """The partner led the eight of diamonds; the ace, king, queen, jack, ten and nine are
    still out and the last seat is an opponent: with no diamonds we ruff with the three of
    spades rather than leave the partner's card to be beaten."""
    v = view(0, "AS 8S 3S TC 7C 5C KH TH 7H 6H 5H 4H 3H", [4, 3, 3, 3], trick=(2, "8D 4D"), dealer=1)
    assert choose(v, "normal", 0) == "3S"


def test_a_seat_ducking_bags_never_leads_the_last_card_of_a_suit() -> None:
    """Our 4 is made and no set is in reach. Every other diamond has been played, so the two
    of diamonds would win the trick: the three of clubs goes instead (one card out under it,
    which is fewer than under the nine of hearts)."""
    tricks = [(0, "5H 3H AH 4H"), (2, "JD 3D AD 4D"), (0, "KD 5D 6D 7D"), (0, "QD 8D 9D TD")]
    v = view(0, "2D 9H 3C 4C 5C 6C 7C 8C 2S", [3, 2, 1, 2], tricks=tricks, dealer=3)
    assert v["taken"] == [3, 0, 1, 0] and v["trick"]["leader"] == 0
    assert choose(v, "normal", 0) == "3C"


def test_against_a_nil_the_last_card_kept_is_one_that_cannot_overtake_it() -> None:
    """Two tricks left and the partner's ace of clubs has this one; the opponents' nil
    (seat 3) threw a heart under it. Nobody else holds a heart, so the ace of hearts can
    never win the last trick, where the ace of diamonds could overtake the nil's diamond:
    Normal's search throws the ace of diamonds now, where its heuristics threw the ace of
    hearts."""
    tricks = [(0, "4H 8H 2H 7H"), (1, "KC 8C 6C TC"), (1, "JC 9C 5C 7S"), (0, "5H 3H JH 9H"),
              (2, "QC 4C TS 3C"), (0, "TH 2S 2D KH"), (1, "AS QS 9S JS"), (1, "KS 6S KD 5D"),
              (1, "8S 4S QD 9D"), (1, "5S 2C TD JD"), (1, "3S 6D 8D QH")]
    v = view(0, "AH AD", [3, 5, 2, "nil"], tricks=tricks, trick=(1, "7C AC 6H"), dealer=3,
             scores=(238, 465), bags=(8, 5))
    assert v["taken"] == [2, 8, 1, 0]
    assert heuristic(v) == "AH"
    assert [choose(v, "normal", seed) for seed in range(3)] == ["AD"] * 3


def test_against_a_nil_a_ruff_that_keeps_the_lead_keeps_the_low_trump_to_lead_into_it() -> None:
    """The nil's partner (seat 3) leads the eight of hearts and the nil has thrown under it;
    we hold only spades and ruff to keep the lead from the nil's partner. The queen takes
    it as well as the seven, and the seven stays to lead into the nil's spades later."""
    tricks = [(3, "KD 5D 7D 8D"), (3, "QD AD 6D 2C"), (0, "3C 5C AC JC"), (2, "KH 6H AH JH"),
              (0, "JD 4D 2H 3D"), (0, "9C 8C QC 3S"), (3, "QH 7H 9H TH"), (3, "TD 3H 2D 2S"),
              (2, "4C 5S TC KC")]
    v = view(2, "AS KS QS 7S", [3, "nil", 5, 3], tricks=tricks, trick=(3, "8H 5H 4H"), dealer=2)
    assert v["taken"] == [3, 0, 2, 4]
    assert heuristic(v) == "7S"
    assert [choose(v, "normal", seed) for seed in range(3)] == ["QS"] * 3


def test_a_bid_after_an_opponents_nil_is_never_above_the_same_hands_first_bid() -> None:
    """Breaking the nil spends high cards and leads, so a hand bids no more after an
    opponent's nil than it would bid first (the share of tricks the nil leaves is not
    ours to count on), and for some hands a trick less."""
    rng = random.Random(3)
    after, first = [], []
    for _ in range(40):
        deck = list(range(52))
        rng.shuffle(deck)
        hand = sum(1 << c for c in deck[:13])
        after_nil = bidmodel.Situation(0, [None, None, None, 0], Rules(), [0, 0], [0, 0], dealer=2)
        bidding_first = bidmodel.Situation(0, [None] * 4, Rules(), [0, 0], [0, 0], dealer=3)
        after.append(bidmodel.choose_bid(hand, after_nil))
        first.append(bidmodel.choose_bid(hand, bidding_first))
    assert all(a <= b for a, b in zip(after, first))
    assert sum(a < b for a, b in zip(after, first)) >= 5
