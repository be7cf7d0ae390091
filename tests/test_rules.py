"""Legality and the flow of a match: every refusal names its reason and changes nothing."""

import copy

import pytest

from spades import BLIND_NIL, LOOK, NIL, Card, IllegalAction, Match, NotationError, Rules, parse_action, seat_view
from spades.rules import BIDS, MAX_HANDS

C = Card.parse


def deal_of(*hands: str) -> list[list[Card]]:
    return [[C(t) for t in h.split()] for h in hands]


# Seat 0 holds only spades and hearts; seat 1 leads first (dealer 0).
DEAL = deal_of(
    "AS KS QS JS TS 9S 8S AH KH QH JH TH 9H",
    "2S 3S 4S 5S 2H 3H 4H 5H AD KD QD JD TD",
    "6S 7S 6H 7H 8H 9D 8D 7D 6D 5D 4D 3D 2D",
    "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
)


def bid_all(m: Match, bids=(3, 3, 3, 3)) -> None:
    for _ in range(4):
        seat = m.to_act
        m.apply(seat, BIDS[bids[seat]])


def snapshot(m: Match):
    return copy.deepcopy({k: getattr(m, k) for k in Match.__slots__ if k != "_rng"})


def refused(m: Match, seat: int, action, reason: str) -> None:
    before = snapshot(m)
    with pytest.raises(IllegalAction) as e:
        m.apply(seat, parse_action(action))
    assert str(e.value) == reason
    assert snapshot(m) == before


def test_first_bidder_and_leader_is_left_of_dealer():
    m = Match(first_dealer=2, deal=DEAL)
    assert (m.dealer, m.to_act, m.phase) == (2, 3, "bidding")
    bid_all(m)
    assert (m.phase, m.to_act) == ("playing", 3)


def test_refusals_with_the_players_words():
    m = Match(first_dealer=0, deal=DEAL)
    refused(m, 0, 3, "It is not your turn.")
    refused(m, 1, "AD", "Bidding is not over yet: wait for the bids before playing.")
    refused(m, 1, "blind_nil", "Blind nil is not allowed at this table.")
    bid_all(m)
    refused(m, 2, "9D", "It is not your turn.")
    refused(m, 1, "AH", "That card is not in your hand.")
    refused(m, 1, "2S", "Spades are not broken yet: lead another suit.")
    refused(m, 1, 4, "The bidding is over.")
    m.apply(1, C("2H"))
    refused(m, 2, "9D", "You must follow suit: hearts were led and you hold a heart.")
    m.apply(2, C("6H"))
    m.apply(3, C("2C"))  # void in hearts: any card
    m.apply(0, C("AH"))
    assert m.tricks[-1][2] == 0 and m.to_act == 0


def test_bad_notation_is_not_an_illegal_move():
    with pytest.raises(NotationError):
        parse_action("1Z")
    with pytest.raises(NotationError):
        parse_action(14)
    assert not isinstance(NotationError("x"), IllegalAction)


def test_a_leader_with_only_spades_may_lead_one_and_breaks_them():
    deal = deal_of(
        "AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S",
        "AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H",
        "AD KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D",
        "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
    )
    m = Match(first_dealer=3, deal=deal)
    bid_all(m)
    assert m.to_act == 0 and m.legal_actions(0)[0] == C("2S")
    for seat, card in [(0, "2S"), (1, "2H"), (2, "2D"), (3, "2C")]:
        m.apply(seat, C(card))
    assert m.broken and m.taken[0] == 1


def test_spades_break_when_played_on_another_suit():
    m = Match(first_dealer=0, deal=DEAL)
    bid_all(m)
    for seat, card in [(1, "AD"), (2, "2D"), (3, "2C")]:
        m.apply(seat, C(card))
    assert not m.broken
    m.apply(0, C("8S"))  # void in diamonds: trumps
    assert m.broken and m.to_act == 0 and seat_view(m, 0)["spades_broken"]
    assert C("9S") in m.legal_actions(0)  # spades may be led now


def test_blind_nil_hides_cards_until_look_or_bid():
    m = Match(Rules(blind_nil=True), first_dealer=0, deal=DEAL)
    v = seat_view(m, 1)
    assert v["hand"] is None and v["legal"] == ["blind_nil", "look"]
    assert seat_view(m, 2)["hand"] is None and seat_view(m, 2)["legal"] == []
    refused(m, 1, 4, "Look at your cards before you bid (or bid blind nil).")
    m.apply(2, LOOK)  # out of turn: people pick up their cards early
    assert seat_view(m, 2)["hand"] is not None
    refused(m, 2, LOOK, "You have already looked at your cards.")
    m.apply(1, BLIND_NIL)
    assert m.blind[1] and m.bids[1] == 0
    refused(m, 2, "blind_nil", "Blind nil must be bid before you look at your cards.")
    m.apply(2, BIDS[4])
    m.apply(3, LOOK)
    m.apply(3, NIL)
    m.apply(0, LOOK)
    m.apply(0, BIDS[5])
    assert m.phase == "playing" and all(seat_view(m, s)["hand"] for s in range(4))


def play_out(m: Match) -> None:
    while m.to_act is not None:
        seat = m.to_act
        m.apply(seat, m.legal_actions(seat)[0])


@pytest.mark.parametrize("scores,hand,end,expected", [
    ([500, 480], 7, "target", (True, 0)),
    ([510, 510], 7, "target", (False, None)),  # level at the target: another hand
    ([499, 480], 7, "target", (False, None)),
    ([120, 130], 5, "hands", (True, 1)),
    ([120, 120], 5, "hands", (False, None)),  # level after N hands: another hand
    ([120, 120], 6, "hands", (False, None)),
    ([40, 40], MAX_HANDS, "target", (True, None)),  # level at the cap: a draw
    ([40, 30], MAX_HANDS, "target", (True, 0)),
])
def test_match_end(scores, hand, end, expected):
    m = Match(Rules(end=end), first_dealer=0, deal=DEAL)
    m.hand_number = hand
    m.scores = list(scores)
    assert (m._match_decided(), m.winner) == expected


def test_hands_pass_left_and_the_match_ends_by_hands():
    m = Match(Rules(end="hands", hands=5), seed=7)
    dealers = []
    while True:
        dealers.append(m.dealer)
        bid_all(m, (1, 2, 3, 4))
        play_out(m)
        if m.finished:
            break
        refused(m, 0, "AS", "The hand is over.")
        m.next_hand()
    assert all((b - a) % 4 == 1 for a, b in zip(dealers, dealers[1:]))
    assert len(m.results) >= 5 and (m.scores[0] != m.scores[1] or len(m.results) == MAX_HANDS)
    assert m.winner == (0 if m.scores[0] > m.scores[1] else 1)
    with pytest.raises(IllegalAction, match="The match is over."):
        m.next_hand()


def test_turns_gives_each_seat_to_act_and_deals_between_hands():
    m = Match(Rules(end="hands", hands=3), seed=11)
    asked = []
    for seat in m.turns():
        assert seat == m.to_act and m.legal_actions(seat)
        asked.append(seat)
        m.apply(seat, m.legal_actions(seat)[0])
    assert m.finished and len(m.results) >= 3
    # 4 bids and 52 cards a hand, and the first bidder moves left from hand to hand
    assert len(asked) == 56 * len(m.results)
    firsts = asked[::56]
    assert all((b - a) % 4 == 1 for a, b in zip(firsts, firsts[1:]))
    assert list(m.turns()) == []


def test_no_bidding_mode_starts_with_play_and_scores_ten_a_trick():
    m = Match(Rules(mode="no_bidding", end="hands", hands=1), seed=3)
    assert m.phase == "playing" and m.legal_actions(m.to_act)
    refused(m, m.to_act, 3, "The bidding is over.")
    play_out(m)
    assert m.scores[0] + m.scores[1] == 130 and m.bags == [0, 0]


def test_the_same_seed_deals_the_same_cards():
    a, b = Match(seed=42), Match(seed=42)
    assert a.deal == b.deal and a.dealer == b.dealer
    assert Match(seed=43).deal != a.deal
