"""The bots at a house-rules table (``spades.bots.house``, ``house_search``): every action
legal at every preset and variant, the forced bids, the hint, jokers and the jjdd 2D as the
top trumps, Hard's determinism; and a standard table's choices exactly as they were."""

from __future__ import annotations

import random

import pytest

from spades.bots import choose, hint, house, house_bid, house_search, slots
from spades.cards import Card
from spades.rules import HAND_OVER, PLAYING, Match, parse_action
from spades.rules_config import STANDARD_SHAPE, Rules, shape_of
from spades.views import seat_view

TINY = 0.003  # Hard's budget in tests: enough to run the search, quick

PRESETS = {
    "standard": Rules(),
    "cutthroat-3": Rules(players=3, partners=False),
    "cutthroat-4": Rules(partners=False),
    "jjdd": Rules(jokers="jjdd", min_bid=4, ten_for_200=True),
    "jj": Rules(jokers="jj"),
    "whiz": Rules(bidding_variant="whiz"),
    "mirror": Rules(bidding_variant="mirror"),
    "suicide": Rules(bidding_variant="suicide"),
    "lead-any-blind": Rules(spades_lead="any", blind_nil=True),
    "no-bidding-3": Rules(players=3, partners=False, mode="no_bidding"),
}
HOUSE = {k: v for k, v in PRESETS.items() if k != "standard"}


def short(rules: Rules, hands: int = 1) -> Rules:
    """The same table, its match ending after ``hands`` hands."""
    return Rules.from_dict({**rules.to_dict(), "end": "hands", "hands": hands})


def play_match(rules: Rules, levels: list[str], seed: int) -> Match:
    """A whole match by the bots of ``levels`` (by seat); every action and hint must be legal."""
    match = Match(rules, seed=seed)
    for seat in match.turns():
        view = seat_view(match, seat)
        action = choose(view, levels[seat], seed, TINY)
        assert action in view["legal"], (levels[seat], action, view["legal"])
        if match.phase != PLAYING and view["hand"] is not None and action not in ("look", "blind_nil"):
            assert hint(view) in view["legal"]
        match.apply(seat, parse_action(action, rules.shape.tricks))
    return match


@pytest.mark.parametrize("name", list(HOUSE))
def test_whole_matches_every_level_legal(name: str) -> None:
    rules = short(HOUSE[name])
    n = rules.shape.players
    for levels in (["hard", "normal", "easy", "random"][:n], ["easy", "hard", "normal", "hard"][:n]):
        match = play_match(rules, levels, seed=7)
        assert match.finished
        assert sum(match.results[-1].tricks) == rules.shape.tricks


def test_dispatch_only_for_house_rules() -> None:
    """A view of a standard table goes to the standard bots; a house table's to the house bots."""
    assert not Rules().house and Rules(jokers="jj").house
    m = Match(Rules(jokers="jj"), seed=1)
    view = seat_view(m, m.to_act)
    assert "jokers" in view["rules"]
    assert choose(view, "normal", 1) == house_bid.bid_for(house.read(view), "normal", random.Random(0))


def bid_view(rules: Rules, seed: int, before: int = 0, bids: list[str | int] | None = None) -> tuple[Match, dict]:
    """A match of ``rules`` at a bid, after ``before`` bids (``bids`` given, else Normal's)."""
    match = Match(rules, seed=seed)
    for i in range(before):
        seat = match.to_act
        action = bids[i] if bids else choose(seat_view(match, seat), "normal", seed)
        match.apply(seat, parse_action(action, rules.shape.tricks))
    return match, seat_view(match, match.to_act)


@pytest.mark.parametrize("seed", range(8))
def test_whiz_bids_nil_or_the_trumps(seed: int) -> None:
    rules = Rules(jokers="jj", bidding_variant="whiz")
    match, view = bid_view(rules, seed)
    trumps = rules.shape.trump_count(match.held[match.to_act])
    assert set(view["legal"]) == ({"nil", trumps} if trumps else {"nil"})
    for level in ("easy", "normal", "hard"):
        assert choose(view, level, seed, TINY) in view["legal"]
    assert hint(view) in view["legal"]


@pytest.mark.parametrize("seed", range(8))
def test_mirror_bids_the_trumps_jjdd_2d_counted(seed: int) -> None:
    rules = Rules(jokers="jjdd", bidding_variant="mirror")
    match, view = bid_view(rules, seed)
    held = match.held[match.to_act]
    trumps = rules.shape.trump_count(held)
    assert trumps == sum(1 for c in view["hand"] if c in ("BJ", "LJ", "2D") or c.endswith("S"))
    want = trumps or "nil"
    for level in ("easy", "normal", "hard"):
        assert choose(view, level, seed, TINY) == want
    assert hint(view) == want


def test_suicide_second_bidder_takes_the_other() -> None:
    rules = Rules(bidding_variant="suicide")
    for first, legal_after in (("nil", set(range(4, 14))), (5, {"nil"})):
        # the first bidder, then an opponent; the first bidder's partner is to bid
        _, view = bid_view(rules, 3, before=2, bids=[first, "nil" if first != "nil" else 6])
        assert set(view["legal"]) == legal_after
        for level in ("easy", "normal", "hard"):
            assert choose(view, level, 3, TINY) in legal_after
        assert hint(view) in legal_after


def test_suicide_first_bidder_nil_or_four_up() -> None:
    for seed in range(6):
        _, view = bid_view(Rules(bidding_variant="suicide"), seed)
        assert set(view["legal"]) == {"nil", *range(4, 14)}
        assert choose(view, "normal", seed) in view["legal"]


def test_min_bid_second_bidder_keeps_the_team_up() -> None:
    rules = Rules(jokers="jjdd", min_bid=4, ten_for_200=True)
    _, view = bid_view(rules, 2, before=2, bids=[1, 2])
    assert 1 not in view["legal"] and 2 not in view["legal"] and 3 in view["legal"]
    for level in ("easy", "normal", "hard"):
        assert choose(view, level, 2, TINY) in view["legal"]
    assert hint(view) in view["legal"]


def test_hint_before_the_turn_is_legal_for_the_variant() -> None:
    """The hint asked while another seat bids answers a bid the variant will allow."""
    match = Match(Rules(bidding_variant="whiz"), seed=4)
    other = match.shape.left[match.to_act]
    view = seat_view(match, other)
    assert view["legal"] == []
    trumps = match.shape.trump_count(match.held[other])
    assert hint(view) in ("nil", trumps)


def trick_view(rules: Rules, hand: list[str], trick: list[str], leader: int, seat: int) -> dict:
    """A seat view in the first trick of a hand (bids of 3 each), ``seat`` to play."""
    t = slots.table(rules)
    n = rules.shape.players
    held = t.mask([Card.parse(c) for c in hand])
    legal = t.cards(t.legal(held, [t.slot(Card.parse(c)) for c in trick], False))
    return {"seat": seat, "rules": rules.to_dict(), "hand_number": 1, "dealer": (leader - 1) % n, "hand": hand,
            "bids": [3] * n, "blind": [False] * n, "tricks": [], "trick": {"leader": leader, "cards": trick},
            "taken": [0] * n, "spades_broken": False, "scores": [0] * len(rules.shape.sides),
            "bags": [0] * len(rules.shape.sides), "to_act": seat, "legal": [str(c) for c in legal]}


def test_big_joker_wins_a_spade_trick() -> None:
    """Last to play on a spade trick an opponent's ace leads, a seat that needs tricks and
    holds the big joker takes it: the joker is the top trump."""
    rules = Rules(jokers="jj")
    hand = ["BJ", "3S", "4H", "7H", "9H", "2H", "5D", "8D", "TD", "3C", "6C", "9C", "JC"]
    view = trick_view(rules, hand, ["AS", "5S", "KS"], leader=0, seat=3)
    assert set(view["legal"]) == {"BJ", "3S"}
    assert choose(view, "normal", 1) == "BJ"
    # Hard's play-outs judge a trick by the same order: the big joker over the little one
    # over the ace of spades, and Hard's card is one of the two
    t = slots.table(rules)
    assert slots.beats(t.slot(Card.parse("BJ")), t.slot(Card.parse("LJ")))
    assert slots.beats(t.slot(Card.parse("LJ")), t.slot(Card.parse("AS")))
    assert slots.trick_winner([t.slot(Card.parse(c)) for c in ("AS", "5S", "KS", "BJ")]) == 3
    assert choose(view, "hard", 1, TINY) in ("BJ", "3S")


def test_jjdd_two_of_diamonds_is_a_trump() -> None:
    """Under jjdd the 2 of diamonds follows a spade lead and beats the ace of spades."""
    rules = Rules(jokers="jjdd")
    hand = ["2D", "3S", "4H", "7H", "9H", "3H", "5D", "8D", "TD", "3C", "6C", "9C", "JC"]
    view = trick_view(rules, hand, ["AS", "5S", "KS"], leader=0, seat=3)
    assert set(view["legal"]) == {"2D", "3S"}
    assert choose(view, "normal", 1) == "2D"
    t = slots.table(rules)
    assert slots.beats(t.slot(Card.parse("2D")), t.slot(Card.parse("AS")))
    assert slots.beats(t.slot(Card.parse("LJ")), t.slot(Card.parse("2D")))
    assert slots.beats(t.slot(Card.parse("3S")), t.slot(Card.parse("AH")))  # a trump on a side suit


def test_jokers_count_as_top_trumps_in_the_bid() -> None:
    t = slots.table(Rules(jokers="jj"))
    jokers = t.mask([Card.parse(c) for c in ("BJ", "LJ", "2H", "3H", "4H", "5D", "6D", "7D", "3C", "4C", "5C",
                                            "6C", "7C")])
    smalls = t.mask([Card.parse(c) for c in ("2S", "3S", "2H", "3H", "4H", "5D", "6D", "7D", "3C", "4C", "5C",
                                            "6C", "7C")])
    assert house_bid.count_tricks(t, jokers) >= house_bid.count_tricks(t, smalls) + 1.5
    assert house_bid.nil_risk(t, jokers) == 1.0


def test_hard_is_the_same_for_the_same_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hard's work is counted in card plays: the same (view, seed) gives the same card.
    (The wall-clock stop is moved far out so that a loaded machine cannot cut a run short.)"""
    monkeypatch.setattr(house_search, "STOP_FACTOR", 1000.0)
    for rules in (HOUSE["cutthroat-3"], HOUSE["jjdd"]):
        match = Match(rules, seed=9)
        views = []
        for seat in match.turns():
            view = seat_view(match, seat)
            if match.phase == PLAYING and len(view["legal"]) > 2:
                views.append(view)
            match.apply(seat, parse_action(choose(view, "normal", 9), rules.shape.tricks))
            if match.phase == HAND_OVER:
                break
        for view in views[:6]:
            assert choose(view, "hard", 5, 0.01) == choose(view, "hard", 5, 0.01)


def test_sampled_deals_keep_counts_and_voids() -> None:
    rules = HOUSE["cutthroat-4"]
    match = Match(rules, seed=3)
    for seat in match.turns():
        view = seat_view(match, seat)
        if match.phase == PLAYING and len(match.tricks) >= 6:
            break
        match.apply(seat, parse_action(choose(view, "normal", 3), rules.shape.tricks))
    state = house.read(seat_view(match, match.to_act))
    rng = random.Random(1)
    for _ in range(20):
        hands = house_search.sample_hands(state, rng)
        assert hands[state.seat] == state.hand
        every = 0
        for s, h in enumerate(hands):
            assert h.bit_count() == state.held_count(s)
            assert not every & h
            every |= h
            for suit in range(4):
                if state.voids[s] >> suit & 1:
                    assert not h & state.table.suits[suit]
        assert every | state.gone == state.table.deck


# what the standard bots chose before the house bots came (recorded from the code then;
# seed 11's last two since Normal trusts its partner's winning card, c08bbd4, whose play
# between steps 27 and 36 took that match another way): (seed, step) -> (easy, normal,
# hint) on views of a standard match played by Normal
STANDARD = {
    (3, 0): (5, 4, 4), (3, 9): ("9D", "9D", None), (3, 18): ("4C", "4C", None), (3, 27): ("6H", "6H", None),
    (3, 36): ("AS", "AS", None), (3, 45): ("7S", "7S", None), (11, 0): (3, 3, 3), (11, 9): ("2C", "2C", None),
    (11, 18): ("KC", "KC", None), (11, 27): ("3H", "3H", None), (11, 36): ("6D", "6D", None),
    (11, 45): ("3S", "3S", None),
}


@pytest.mark.parametrize("seed", [3, 11])
def test_standard_table_choices_unchanged(seed: int) -> None:
    m = Match(Rules(), seed=seed)
    for step, seat in enumerate(m.turns()):
        if step > 45:
            break
        v = seat_view(m, seat)
        if (seed, step) in STANDARD:
            easy, normal, hinted = STANDARD[(seed, step)]
            assert choose(v, "easy", 5) == easy
            assert choose(v, "normal", 5) == normal
            if hinted is not None:
                assert hint(v) == hinted
        m.apply(seat, parse_action(choose(v, "normal", 1)))


def test_runs_of_equivalent_cards_are_parted_by_live_cards_only() -> None:
    """Slots 0, 1 and 3 with slot 2 live: {3} and {0, 1}; with nothing live between them
    cards of a suit are one run, and the lowest stands for it; suits never share a run."""
    assert slots.runs(0b1011, 0b0100) == [0b1000, 0b0011]
    assert slots.runs(0b1011, 0) == [0b1011]
    t = slots.table(Rules(jokers="jj"))
    three, four = t.slot(Card.parse("3D")), t.slot(Card.parse("4D"))
    assert slots.runs((1 << three) | (1 << four), 0) == [(1 << three) | (1 << four)]
    ace, two = t.slot(Card.parse("AS")), t.slot(Card.parse("2H"))
    assert slots.runs((1 << ace) | (1 << two), 0) == [1 << ace, 1 << two]
    assert slots.lowest_equivalent((1 << three) | (1 << four), 0) == three


def test_the_lift_reads_the_seat_count() -> None:
    assert house_bid.lift(STANDARD_SHAPE) == 0.5 and house_bid.lift(shape_of(3, False)) == 1.8


def test_a_nil_bidders_exposed_cards_are_those_no_round_goes_over() -> None:
    assert house_bid.exposed(0b1000_0001, 0b0111_0110, 2) == 0b1000_0000
    assert house_bid.exposed(0b0000_0001, 0b0111_0110, 2) == 0
