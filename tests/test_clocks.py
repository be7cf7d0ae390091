"""The clock rules with an injected time: limits, timeouts, autopilot, tourney cards, holds."""

import pytest

from spades import Rules
from spades.clocks import (
    SeatClock,
    deadline,
    hold_until,
    tourney_timeout_card,
    turn_seconds,
)

TOURNEY = Rules(mode="no_bidding", target=300)


@pytest.mark.parametrize("tempo,card,bid", [("relaxed", 60, 75), ("normal", 30, 40), ("fast", 15, 25)])
def test_each_tempo_has_its_limits(tempo, card, bid):
    rules = Rules(tempo=tempo)
    assert turn_seconds(rules, "playing") == card
    assert turn_seconds(rules, "bidding") == bid
    assert deadline(rules, "playing", SeatClock(), now=1000.0) == 1000.0 + card


def test_tempo_off_has_no_clock():
    assert turn_seconds(Rules(tempo="off"), "playing") is None
    assert deadline(Rules(tempo="off"), "bidding", SeatClock(), now=5.0) is None


def test_tourney_clock_is_30_then_15_after_the_first_timeout():
    clock = SeatClock()
    assert deadline(TOURNEY, "playing", clock, now=0.0) == 30
    clock = clock.after_timeout()
    assert deadline(TOURNEY, "playing", clock, now=0.0) == 15
    clock = clock.after_own_move()  # the drop lasts for the rest of the match
    assert deadline(TOURNEY, "playing", clock, now=0.0) == 15
    assert turn_seconds(Rules(mode="no_bidding", tempo="off"), "playing") == 30


def test_three_timeouts_in_a_row_put_the_seat_on_autopilot_until_take_over():
    clock = SeatClock().after_timeout().after_timeout()
    assert not clock.autopilot
    clock = clock.after_own_move().after_timeout().after_timeout()
    assert not clock.autopilot  # the count starts again after the player's own move
    clock = clock.after_timeout()
    assert clock.autopilot and clock.timeouts_in_row == 3
    clock = clock.after_own_move()  # Take over, or playing a card
    assert not clock.autopilot and clock.timeouts_in_row == 0


@pytest.mark.parametrize("hand,led,card", [
    (["KH", "4H", "2C", "3S"], "9H", "4H"),  # following: lowest of the led suit
    (["KH", "4D", "5C", "2S"], "9S", "2S"),  # following spades
    (["KH", "4D", "4C", "2S"], "9D", "4D"),  # following diamonds, not the lower club tie
    (["KH", "7D", "5C"], "9S", "5C"),  # void in the led spades: lowest non-spade
    (["KH", "2S", "7D"], "9C", "7D"),  # void in clubs: the lowest non-spade, not the 2S
    (["KH", "7D", "5C", "2S"], "3D", "7D"),
    (["QH", "4D", "4C"], "9S", "4C"),  # void: equal ranks, clubs first
    (["AS", "3S", "TS"], "2H", "3S"),  # void with only spades: lowest spade
    (["AS", "3S", "TS", "KD"], None, "KD"),  # leading: lowest non-spade
    (["AS", "3S", "TS"], None, "3S"),  # leading with only spades
    (["2S", "9H", "9D"], None, "9D"),
])
def test_tourney_timeout_card(hand, led, card):
    assert tourney_timeout_card(hand, led) == card


def test_a_dropped_seat_is_held_60_s_or_10_s_when_closing_on_purpose():
    assert hold_until(100.0, closing=False) == 160.0
    assert hold_until(100.0, closing=True) == 110.0
