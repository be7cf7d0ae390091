"""The house rules of RULES.md ("House rules"): the shape of the table as data, each
variant's legal moves and refusals in the player's words, scoring per side, the rules
that do not go together, and spades-match/2 records.

Each example record in ``tests/records/house-*.json`` is worked out by hand here for at
least one hand, from RULES.md alone; ``test_records.py`` checks the whole output of each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spades import Card, IllegalAction, Match, Rules, RulesError, from_record, replay_report, seat_view, to_record
from spades.fairness import FairDeals, verify_record
from spades.rules import BIDS, BLIND_NIL, LOOK, NIL, Bid, parse_action
from spades.rules_config import STANDARD_SHAPE, shape_of

C = Card.parse
RECORDS = Path(__file__).parent / "records"


def record(name: str) -> dict:
    return json.loads((RECORDS / f"{name}.json").read_text())


def hand_report(name: str, hand: int) -> dict:
    out = replay_report(record(name))
    assert out["ok"] is True
    return out["hands"][hand]


def deal_of(*hands: str) -> list[list[Card]]:
    return [[C(t) for t in h.split()] for h in hands]


def refused(m: Match, seat: int, action, reason: str) -> None:
    before = (list(m.bids), list(m.held), list(m.plays), m.to_act, m.version, m.phase)
    with pytest.raises(IllegalAction) as e:
        m.apply(seat, parse_action(action, m.shape.tricks))
    assert str(e.value) == reason
    assert (list(m.bids), list(m.held), list(m.plays), m.to_act, m.version, m.phase) == before


def play(m: Match, *moves: tuple[int, str]) -> None:
    for seat, card in moves:
        m.apply(seat, C(card))


# -- the shape --------------------------------------------------------------------------
def test_the_standard_shape_is_todays_table():
    s = Rules().shape
    assert s is STANDARD_SHAPE and s.standard
    assert (s.players, s.seats, s.sides, s.side_of, s.left) == (4, (0, 1, 2, 3), ((0, 2), (1, 3)), (0, 1, 0, 1),
                                                                 (1, 2, 3, 0))
    assert (len(s.deck), s.hand_size, s.tricks, s.removed, s.side_count) == (52, 13, 13, (), 2)
    assert [str(c) for c in s.trumps] == [r + "S" for r in "AKQJT98765432"]
    assert s.partner(0) == 2 and s.partner(3) == 1


@pytest.mark.parametrize("rules,players,sides,size,removed,top", [
    ({"players": 3, "partners": False}, 3, ((0,), (1,), (2,)), 17, ["2C"], ["AS", "KS"]),
    ({"partners": False}, 4, ((0,), (1,), (2,), (3,)), 13, [], ["AS", "KS"]),
    ({"jokers": "jj"}, 4, ((0, 2), (1, 3)), 13, ["2C", "2D"], ["BJ", "LJ", "AS", "KS"]),
    ({"jokers": "jjdd"}, 4, ((0, 2), (1, 3)), 13, ["2C", "2H"], ["BJ", "LJ", "2D", "2S", "AS"]),
])
def test_each_shape_gives_its_seats_sides_deck_and_trumps(rules, players, sides, size, removed, top):
    s = Rules.from_dict(rules).shape
    assert (s.players, s.sides, s.hand_size, [str(c) for c in s.removed]) == (players, sides, size, removed)
    assert [str(c) for c in s.trumps[:len(top)]] == top
    assert len(s.deck) == players * size and len(set(s.deck)) == len(s.deck)
    assert not s.standard
    if rules.get("jokers") == "jjdd":  # the 2D is a trump, not a diamond; the 3S is the lowest trump
        assert [str(c) for c in s.trumps[-2:]] == ["4S", "3S"]
        assert not s.suit_masks[2] >> C("2D") & 1 and s.suit_masks[0] >> C("2D") & 1


# -- rules that do not go together ------------------------------------------------------
@pytest.mark.parametrize("given,says", [
    ({"players": 3}, "Three players play cutthroat: partners must be false with 3 players."),
    ({"players": 3, "partners": False, "jokers": "jj"}, "Jokers are played with four players only."),
    ({"players": 3, "partners": False, "jokers": "jjdd"}, "Jokers are played with four players only."),
    ({"bidding": "suicide", "partners": False}, "Suicide bidding is played with partners only."),
    ({"min_bid": 4, "partners": False}, "A minimum bid is a team's: it needs partners."),
    ({"min_bid": 3, "bidding": "whiz"}, "A minimum bid goes with standard bidding only, not with whiz."),
    ({"min_bid": 5, "bidding": "suicide"}, "A minimum bid goes with standard bidding only, not with suicide."),
    ({"bidding": "mirror", "blind_nil": True}, "Mirror bidding has no blind nil: each player bids their spades."),
    ({"mode": "no_bidding", "bidding": "whiz"},
     "A table without bidding has no bidding variant, minimum bid or 10-for-200."),
    ({"mode": "no_bidding", "ten_for_200": True},
     "A table without bidding has no bidding variant, minimum bid or 10-for-200."),
    ({"players": 5}, "players must be one of 4, 3"),
    ({"players": 4.0}, "players must be one of 4, 3"),
    ({"jokers": "joker"}, "jokers must be one of none, jj, jjdd"),
    ({"bidding": "blind"}, "bidding must be one of standard, whiz, mirror, suicide"),
    ({"min_bid": 1}, "min_bid must be one of 0, 2, 3, 4, 5"),
    ({"ten_for_200": "yes"}, "ten_for_200 must be true or false"),
    ({"spades_lead": "always"}, "spades_lead must be one of broken, any"),
    ({"partners": 0}, "partners must be true or false"),
])
def test_a_combination_rules_md_does_not_offer_is_refused_with_why(given, says):
    with pytest.raises(RulesError) as e:
        Rules.from_dict(given)
    assert str(e.value) == says


def test_the_house_keys_are_in_the_rules_json_only_when_one_is_not_default():
    assert Rules().to_dict() == {"mode": "bidding", "end": "target", "target": 500, "hands": 5,
                                 "bag_penalty": True, "blind_nil": False, "set_scores_zero": False}
    d = Rules(bidding_variant="whiz").to_dict()
    assert (d["bidding"], d["players"], d["partners"], d["jokers"]) == ("whiz", 4, True, "none")
    assert Rules.from_dict(d) == Rules(bidding_variant="whiz")


# -- whiz -------------------------------------------------------------------------------
# Seat 0 holds 7 spades, seat 1 four, seat 2 two, seat 3 none; seat 1 bids first (dealer 0).
DEAL = deal_of(
    "AS KS QS JS TS 9S 8S AH KH QH JH TH 9H",
    "2S 3S 4S 5S 2H 3H 4H 5H AD KD QD JD TD",
    "6S 7S 6H 7H 8H 9D 8D 7D 6D 5D 4D 3D 2D",
    "AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C",
)


def test_whiz_bids_nil_or_the_spades_held():
    m = Match(Rules(bidding_variant="whiz"), first_dealer=0, deal=DEAL)
    assert m.legal_actions(1) == (BIDS[4], NIL)
    refused(m, 1, 3, "Whiz: bid nil or your 4 spades.")
    m.apply(1, BIDS[4])
    refused(m, 2, 1, "Whiz: bid nil or your 2 spades.")
    m.apply(2, NIL)
    assert m.legal_actions(3) == (NIL,)
    refused(m, 3, 1, "Whiz: you hold no spades, so you bid nil.")
    m.apply(3, NIL)
    m.apply(0, BIDS[7])
    assert m.phase == "playing"


def test_whiz_record_worked_by_hand():
    """house-whiz.json, hand 1: bids nil, 1, 3, 3 (seats 0-3); tricks 6, 2, 3, 2.
    Team 0 (seats 0 and 2): seat 0's nil failed (6 tricks): -100 and 6 bags; seat 2 bid 3
    and took 3: contract 3 made, +30, no extra. 30 + 6 - 100 = -64, bags 6.
    Team 1 (seats 1 and 3): contract 1 + 3 = 4, tricks 2 + 2 = 4: +40, no bags.
    Hand 2: bids 2, 4, 2, 5; tricks 2, 3, 1, 7. Team 0: contract 4, took 3: set, -40, bags
    stay 6. Team 1: contract 9, took 10: +90 + 1 bag = 91, bags 1. Totals -104, 131: team 1."""
    assert hand_report("house-whiz", 0) == {"tricks": [6, 2, 3, 2], "score": [-64, 40], "bags": [6, 0],
                                            "total": [-64, 40]}
    out = replay_report(record("house-whiz"))
    assert out["hands"][1]["total"] == [-104, 131] and (out["finished"], out["winner"]) == (True, 1)


def test_a_bid_the_variant_forbids_is_refused_in_the_record_at_its_step():
    r = record("house-whiz")
    r["hands"][0]["bids"][1] = 2  # seat 1 holds one spade (JS)
    assert replay_report(r) == {"ok": False, "hand": 0, "step": "bid", "index": 1, "seat": 1, "card": None,
                                "reason": "Whiz: bid nil or your 1 spade."}


def test_jokers_and_the_jjdd_two_count_as_spades_for_whiz():
    deal = deal_of(
        "BJ 2S AS KS QS JS TS 9S 8S 7S 6S 5S 4S",
        "2D 3D AH KH QH JH TH 9H 8H 7H 6H 5H 4H",
        "LJ 3H AD KD QD JD TD 9D 8D 7D 6D 5D 4D",
        "3S AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C",
    )
    m = Match(Rules(bidding_variant="whiz", jokers="jjdd"), first_dealer=0, deal=deal)
    refused(m, 1, 2, "Whiz: bid nil or your 1 spade.")
    m.apply(1, BIDS[1])
    refused(m, 2, 2, "Whiz: bid nil or your 1 spade.")
    m.apply(2, NIL)
    m.apply(3, BIDS[1])
    assert m.legal_actions(0) == (BIDS[13], NIL)


# -- mirror -----------------------------------------------------------------------------
def test_mirror_bids_exactly_the_spades_held_and_nil_with_none():
    m = Match(Rules(bidding_variant="mirror"), first_dealer=0, deal=DEAL)
    assert m.legal_actions(1) == (BIDS[4],)
    refused(m, 1, "nil", "Mirror: bid your 4 spades.")
    refused(m, 1, 3, "Mirror: bid your 4 spades.")
    m.apply(1, BIDS[4])
    m.apply(2, BIDS[2])
    assert m.legal_actions(3) == (NIL,)
    refused(m, 3, 1, "Mirror: you hold no spades, so you bid nil.")


def test_mirror_and_lead_any_record_worked_by_hand():
    """house-mirror-lead-any.json, hand 1: bids 5, 4, 2, 2 (each seat's spades); tricks 3,
    4, 1, 5. Team 0 (seats 0 and 2): contract 7, took 4: set, -70, no bags. Team 1 (seats
    1 and 3): contract 6, took 9: +60 + 3 bags = 63, bags 3.
    Hand 2: bids 3, 3, 2, 5; tricks 1, 1, 5, 6. Team 0: contract 5, took 6: 50 + 1 = 51,
    bags 1; total -19. Team 1: contract 8, took 7: -80, bags stay 3; total -17. The hands
    are over and team 1 (-17) is ahead of team 0 (-19): team 1 wins."""
    assert hand_report("house-mirror-lead-any", 0) == {"tricks": [3, 4, 1, 5], "score": [-70, 63],
                                                       "bags": [0, 3], "total": [-70, 63]}
    out = replay_report(record("house-mirror-lead-any"))
    assert out["hands"][1]["total"] == [-19, -17] and out["winner"] == 1


def test_spades_lead_any_lets_a_spade_lead_the_first_trick():
    m = Match(Rules(spades_lead="any"), first_dealer=0, deal=DEAL)
    for _ in range(4):
        m.apply(m.to_act, BIDS[3])
    assert C("2S") in m.legal_actions(1) and not m.broken
    m.apply(1, C("2S"))
    play(m, (2, "6S"), (3, "2C"), (0, "AS"))
    assert m.broken and seat_view(m, 0)["spades_broken"] and m.tricks[-1][2] == 0
    std = Match(first_dealer=0, deal=DEAL)
    for _ in range(4):
        std.apply(std.to_act, BIDS[3])
    refused(std, 1, "2S", "Spades are not broken yet: lead another suit.")


# -- suicide ----------------------------------------------------------------------------
def test_suicide_the_first_bidder_chooses_and_the_second_is_held_to_the_other():
    m = Match(Rules(bidding_variant="suicide"), first_dealer=0, deal=DEAL)
    assert m.legal_actions(1) == tuple(BIDS[n] for n in range(4, 14)) + (NIL,)
    refused(m, 1, 3, "Suicide: bid nil or at least 4.")
    m.apply(1, NIL)
    m.apply(2, BIDS[5])
    assert m.legal_actions(3) == tuple(BIDS[n] for n in range(4, 14))
    refused(m, 3, "nil", "Suicide: your partner bid nil, so you bid at least 4.")
    refused(m, 3, 2, "Suicide: your partner bid nil, so you bid at least 4.")
    m.apply(3, BIDS[4])
    assert m.legal_actions(0) == (NIL,)
    refused(m, 0, 4, "Suicide: your partner bid 5, so you bid nil.")
    m.apply(0, NIL)
    assert m.phase == "playing"


def test_suicide_blind_nil_is_the_teams_nil():
    m = Match(Rules(bidding_variant="suicide", blind_nil=True), first_dealer=0, deal=DEAL)
    m.apply(1, BLIND_NIL)
    m.apply(2, LOOK)
    m.apply(2, BIDS[6])
    assert m.legal_actions(3) == (LOOK,)  # the partner's blind nil leaves a number to bid
    refused(m, 3, "blind_nil", "Suicide: your partner bid nil, so you bid at least 4.")
    m.apply(3, LOOK)
    m.apply(3, BIDS[4])
    assert m.legal_actions(0) == (BLIND_NIL, LOOK)  # the partner bid a number: a nil, blind or not
    m.apply(0, BLIND_NIL)
    assert m.phase == "playing" and m.blind == [True, True, False, False]


def test_suicide_record_worked_by_hand():
    """house-suicide-blind.json, hand 1: bids nil, nil, 4, 4; tricks 4, 2, 1, 6.
    Team 0 (seats 0 and 2): seat 0's nil failed with 4 tricks: -100, 4 bags; seat 2 bid 4
    and took 1: set, -40. -40 + 4 - 100 = -136, bags 4.
    Team 1 (seats 1 and 3): seat 1's nil failed with 2: -100, 2 bags; seat 3 bid 4, took
    6: +40 and 2 bags. 40 + 4 - 100 = -56, bags 4.
    Hand 2: bids nil, nil, 4, 4; tricks 3, 7, 2, 1. Team 0: nil failed (3 bags), 4 set:
    -40 + 3 - 100 = -137, bags 7. Team 1: nil failed with 7 (7 bags), 4 set (1 trick):
    -40 + 7 - 100 = -133, bags 4 + 7 = 11: -100, bags 1, so -233. Totals -273, -289."""
    assert hand_report("house-suicide-blind", 0) == {"tricks": [4, 2, 1, 6], "score": [-136, -56],
                                                     "bags": [4, 4], "total": [-136, -56]}
    assert hand_report("house-suicide-blind", 1) == {"tricks": [3, 7, 2, 1], "score": [-137, -233],
                                                     "bags": [7, 1], "total": [-273, -289]}


# -- minimum bid ------------------------------------------------------------------------
def test_min_bid_holds_the_teams_second_bidder_and_a_nil_lifts_it():
    m = Match(Rules(min_bid=4), first_dealer=0, deal=DEAL)
    assert len(m.legal_actions(1)) == 14  # the first bidder: any bid
    m.apply(1, BIDS[1])
    m.apply(2, BIDS[2])
    assert m.legal_actions(3) == tuple(BIDS[n] for n in range(3, 14)) + (NIL,)
    refused(m, 3, 2, "Your team must bid at least 4.")
    m.apply(3, BIDS[3])
    refused(m, 0, 1, "Your team must bid at least 4.")
    m.apply(0, NIL)  # a team with a nil has no minimum
    assert m.phase == "playing"
    m2 = Match(Rules(min_bid=4), first_dealer=0, deal=DEAL)
    m2.apply(1, NIL)
    m2.apply(2, BIDS[2])
    m2.apply(3, BIDS[1])  # the partner bid nil
    assert m2.to_act == 0


def test_jjdd_min_bid_and_ten_for_200_record_worked_by_hand():
    """house-jjdd-minbid-10for200.json (jjdd, min_bid 4, ten_for_200), hand 1: bids 2, 4,
    2, 6; tricks 2, 4, 1, 6. Team 0 (seats 0 and 2): contract 2 + 2 = 4 (the minimum),
    took 3: set, -40. Team 1 (seats 1 and 3): contract 4 + 6 = 10, took 10: made, and 10
    or more counts double: 20 x 10 = +200, no bags.
    Hand 2: bids 3 each; tricks 2, 4, 3, 4. Team 0: contract 6, took 5: -60; total -100.
    Team 1: contract 6, took 8: +60 + 2 bags = 62; total 262, and team 1 wins."""
    assert hand_report("house-jjdd-minbid-10for200", 0) == {"tricks": [2, 4, 1, 6], "score": [-40, 200],
                                                            "bags": [0, 0], "total": [-40, 200]}
    assert hand_report("house-jjdd-minbid-10for200", 1)["total"] == [-100, 262]


def test_ten_for_200_counts_a_contract_of_ten_double_both_ways():
    from spades import score_hand
    on = Rules(ten_for_200=True)
    assert score_hand(on, [6, 1, 4, 1], [False] * 4, [6, 1, 5, 1], [0, 0]).teams[0].total == 201  # bid 10 take 11
    assert score_hand(on, [6, 1, 4, 1], [False] * 4, [5, 1, 4, 3], [0, 0]).teams[0].total == -200
    assert score_hand(Rules(ten_for_200=True, set_scores_zero=True), [6, 1, 4, 1], [False] * 4, [5, 1, 4, 3],
                      [0, 0]).teams[0].total == 0
    assert score_hand(on, [5, 1, 4, 1], [False] * 4, [5, 1, 4, 3], [0, 0]).teams[0].total == 90  # 9: single
    assert score_hand(Rules(), [6, 1, 4, 1], [False] * 4, [6, 1, 5, 1], [0, 0]).teams[0].total == 101


# -- jokers -----------------------------------------------------------------------------
JJ_DEAL = deal_of(
    "BJ AS KS QS JS TS 9S 8S 7S 6S 5S 4S 3S",
    "LJ 2S AH KH QH JH TH 9H 8H 7H 6H 5H 4H",
    "3H 2H AD KD QD JD TD 9D 8D 7D 6D 5D 4D",
    "3D AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C",
)


def test_jokers_are_spades_for_following_leading_breaking_and_winning():
    m = Match(Rules(jokers="jj"), first_dealer=0, deal=JJ_DEAL)
    for _ in range(4):
        m.apply(m.to_act, BIDS[3])
    refused(m, 1, "LJ", "Spades are not broken yet: lead another suit.")
    refused(m, 1, "2S", "Spades are not broken yet: lead another suit.")
    m.apply(1, C("AH"))
    refused(m, 2, "AD", "You must follow suit: hearts were led and you hold a heart.")
    play(m, (2, "3H"), (3, "3D"), (0, "3S"))  # seat 0 is void in hearts and trumps
    assert m.tricks[-1][2] == 0 and m.broken
    m.apply(0, C("AS"))
    refused(m, 1, "KH", "You must follow suit: spades were led and you hold a spade.")  # the little joker
    play(m, (1, "LJ"), (2, "2H"), (3, "AC"))
    assert m.tricks[-1][2] == 1  # LJ beats AS
    m.apply(1, C("2S"))
    play(m, (2, "AD"), (3, "KC"), (0, "BJ"))
    assert m.tricks[-1][2] == 0 and C("BJ") not in m.cards(0)  # BJ beats the 2S led


def test_a_hand_of_nothing_but_trumps_may_lead_a_joker_which_breaks_spades():
    m = Match(Rules(jokers="jj"), first_dealer=3, deal=JJ_DEAL)
    for _ in range(4):
        m.apply(m.to_act, BIDS[3])
    assert m.to_act == 0 and set(m.legal_actions(0)) == set(m.cards(0)) and C("BJ") in m.legal_actions(0)
    m.apply(0, C("BJ"))
    refused(m, 1, "AH", "You must follow suit: spades were led and you hold a spade.")
    play(m, (1, "2S"), (2, "2H"), (3, "3D"))
    assert m.broken and m.tricks[-1][2] == 0


def test_jjdd_two_of_diamonds_is_a_trump_and_not_a_diamond():
    deal = deal_of(
        "BJ 2S AS KS QS JS TS 9S 8S 7S 6S 5S 4S",
        "2D 3D AH KH QH JH TH 9H 8H 7H 6H 5H 4H",
        "LJ 3H AD KD QD JD TD 9D 8D 7D 6D 5D 4D",
        "3S AC KC QC JC TC 9C 8C 7C 6C 5C 4C 3C",
    )
    m = Match(Rules(jokers="jjdd"), first_dealer=1, deal=deal)
    for _ in range(4):
        m.apply(m.to_act, BIDS[3])
    m.apply(2, C("AD"))
    play(m, (3, "3S"), (0, "4S"))
    refused(m, 1, "2D", "You must follow suit: diamonds were led and you hold a diamond.")
    m.apply(1, C("3D"))
    assert m.tricks[-1][2] == 0 and m.broken  # 4S beats 3S; the 2D was not a diamond
    m.apply(0, C("2S"))
    refused(m, 1, "KH", "You must follow suit: spades were led and you hold a spade.")  # its 2D
    m.apply(1, C("2D"))
    refused(m, 2, "KD", "You must follow suit: spades were led and you hold a spade.")  # its LJ
    play(m, (2, "LJ"), (3, "AC"))
    assert m.tricks[-1][2] == 2  # 2D beat 2S, LJ beat 2D
    assert seat_view(m, 0)["hand"][0] == "BJ"  # trumps first in the hand shown


def test_jokers_record_worked_by_hand():
    """house-jokers-jj.json, hand 1: bids 3 each; tricks 8, 2, 2, 1. Team 0 (seats 0 and
    2): contract 6, took 10: +60 + 4 bags = 64, bags 4. Team 1 (seats 1 and 3): contract 6,
    took 3: set, -60. Hand 2: tricks 4, 4, 3, 2: team 0 took 7 of 6: 61, bags 5; team 1
    took 6 of 6: 60. Totals 125, 0: team 0 wins."""
    assert hand_report("house-jokers-jj", 0) == {"tricks": [8, 2, 2, 1], "score": [64, -60], "bags": [4, 0],
                                                 "total": [64, -60]}
    assert replay_report(record("house-jokers-jj"))["winner"] == 0


# -- three players and cutthroat --------------------------------------------------------
def test_three_players_hold_17_cards_and_bid_up_to_17():
    m = Match(Rules(players=3, partners=False), seed=5)
    assert [len(d) for d in m.deal] == [17, 17, 17] and C("2C") not in [c for d in m.deal for c in d]
    seat = m.to_act
    assert seat == (m.dealer + 1) % 3
    assert m.legal_actions(seat) == tuple(BIDS[n] for n in range(1, 18)) + (NIL,)
    refused(m, seat, Bid(18), "Bids are 1 to 17, or nil.")
    m.apply(seat, parse_action("17", tricks=17))
    with pytest.raises(Exception, match="bids are 1 to 13"):
        parse_action("17")
    while m.to_act is not None:
        m.apply(m.to_act, m.legal_actions(m.to_act)[0])
    assert len(m.tricks) == 17 and sum(m.taken) == 17 and len(m.scores) == 3
    assert seat_view(m, 0)["sides"] == [[0], [1], [2]]


def test_a_standard_table_refuses_a_bid_above_13_in_todays_words():
    m = Match(first_dealer=0, deal=DEAL)
    refused(m, 1, Bid(14), "Bids are 1 to 13, or nil.")


def test_cutthroat_for_three_record_worked_by_hand():
    """house-cutthroat-3.json (3 players, each a side), hand 1: bids 3, 3, 3; tricks 7, 8,
    2. Seat 0: 30 + 4 bags = 34, bags 4. Seat 1: 30 + 5 = 35, bags 5. Seat 2: took 2 of 3:
    set, -30.
    Hand 2: tricks 5, 9, 3. Seat 0: 30 + 2 = 32, bags 6. Seat 1: 30 + 6 = 36, bags 5 + 6 =
    11: -100, keeps 1, so -64. Seat 2: 30, bags 0. Totals 66, -29, 0: seat 0 is the highest."""
    assert hand_report("house-cutthroat-3", 0) == {"tricks": [7, 8, 2], "score": [34, 35, -30],
                                                   "bags": [4, 5, 0], "total": [34, 35, -30]}
    assert hand_report("house-cutthroat-3", 1) == {"tricks": [5, 9, 3], "score": [32, -64, 30],
                                                   "bags": [6, 1, 0], "total": [66, -29, 0]}


def test_cutthroat_for_four_record_worked_by_hand():
    """house-cutthroat-4.json (4 players, no partners), hand 1: bids 3 each; tricks 0, 8,
    2, 3. Seat 0: set, -30. Seat 1: 30 + 5 bags = 35. Seat 2: set, -30. Seat 3: exactly
    3: +30. Each keeps its own bags: 0, 5, 0, 0."""
    assert hand_report("house-cutthroat-4", 0) == {"tricks": [0, 8, 2, 3], "score": [-30, 35, -30, 30],
                                                   "bags": [0, 5, 0, 0], "total": [-30, 35, -30, 30]}


def test_cutthroat_nil_is_scored_for_the_player_alone():
    from spades import score_hand
    s = score_hand(Rules(partners=False), [0, 4, 3, 6], [False] * 4, [2, 4, 1, 6], [0, 9, 0, 0])
    assert [t.total for t in s.teams] == [-100 + 2, 40, -30, 60]
    assert [t.bags_after for t in s.teams] == [2, 9, 0, 0]


@pytest.mark.parametrize("scores,end,hand,expected", [
    ([510, 510, 100], "target", 4, (False, None)),  # two share the lead: another hand
    ([510, 505, 520], "target", 4, (True, 2)),  # the highest wins, not the first to reach
    ([120, 130, 130], "hands", 5, (False, None)),
    ([140, 130, 130], "hands", 5, (True, 0)),
    ([40, 40, 10], 99, 99, (True, None)),  # a shared lead at the cap: a draw
])
def test_cutthroat_match_end_takes_the_one_highest_player(scores, end, hand, expected):
    m = Match(Rules(players=3, partners=False, end="target" if end == 99 else end), seed=1)
    m.hand_number = hand
    m.scores = list(scores)
    assert (m._match_decided(), m.winner) == expected


# -- records and fair deals -------------------------------------------------------------
def test_a_standard_match_is_recorded_as_spades_match_1_and_a_house_match_as_2():
    m = Match(Rules(end="hands", hands=1), seed=3)
    for seat in m.turns():
        m.apply(seat, m.legal_actions(seat)[0])
    rec = to_record(m)
    assert rec["format"] == "spades-match/1" and set(rec["rules"]) == {
        "mode", "end", "target", "hands", "bag_penalty", "blind_nil", "set_scores_zero"}
    h = Match(Rules(end="hands", hands=1, players=3, partners=False), seed=3)
    for seat in h.turns():
        h.apply(seat, h.legal_actions(seat)[0])
    rec = to_record(h)
    assert rec["format"] == "spades-match/2" and rec["rules"]["players"] == 3
    assert [len(d) for d in rec["hands"][0]["deal"]] == [17, 17, 17] and len(rec["hands"][0]["bids"]) == 3
    assert len(rec["hands"][0]["plays"]) == 51
    out = replay_report(rec)
    assert out["ok"] and out["hands"][0]["total"] == list(h.scores) and len(out["hands"][0]["tricks"]) == 3


def test_a_deal_that_does_not_fit_the_rules_is_refused_at_the_deal():
    r = record("house-jokers-jj")
    deal = r["hands"][0]["deal"]
    deal[0][deal[0].index("BJ")] = "2C"  # removed from the jj deck
    out = replay_report(r)
    assert (out["step"], out["index"], out["card"], out["reason"]) == ("deal", 0, "2C",
                                                                       "2C is not in this table's deck.")
    r = record("failed-nil")
    r["hands"][0]["deal"][0][0] = "BJ"
    out = replay_report(r)
    assert (out["step"], out["card"], out["reason"]) == ("deal", "BJ", "BJ is not in this table's deck.")
    r = record("house-cutthroat-3")
    r["hands"][0]["deal"].append([])
    assert replay_report(r)["reason"] == "A deal is three lists of 17 cards."


def test_a_spades_match_1_record_ignores_house_keys():
    r = record("failed-nil")
    expected = replay_report(r)
    r["rules"]["players"] = 3
    r["rules"]["jokers"] = "jj"
    assert replay_report(r) == expected


@pytest.mark.parametrize("rules", [
    Rules(end="hands", hands=2, players=3, partners=False),
    Rules(end="hands", hands=2, jokers="jjdd"),
    Rules(end="hands", hands=2, jokers="jj", partners=False),
])
def test_fair_deals_and_verify_work_for_every_deck(rules):
    deals = FairDeals("11" * 32, {1: ("c0ffee",)}, shape=rules.shape)
    m = Match(rules, seed=9, deals=deals)
    for seat in m.turns():
        m.apply(seat, m.legal_actions(seat)[0])
    rec = json.loads(json.dumps(to_record(m)))
    assert all("fairness" in h for h in rec["hands"])
    assert sorted(c for d in rec["hands"][0]["deal"] for c in d) == sorted(str(c) for c in rules.shape.deck)
    assert verify_record(rec) == {"ok": True, "hands": len(rec["hands"])}
    a, b = rec["hands"][0]["deal"][0][0], rec["hands"][0]["deal"][1][0]
    rec["hands"][0]["deal"][0][0], rec["hands"][0]["deal"][1][0] = b, a
    out = verify_record(rec)
    assert out["ok"] is False and out["hand"] == 0 and "which the algorithm deals to seat" in out["reason"]


def test_the_seven_house_records_are_among_the_golden_records():
    """test_records.py replays every record of tests/records against its expected output."""
    names = sorted(p.stem for p in RECORDS.glob("house-*.json") if not p.name.endswith(".expected.json"))
    assert names == ["house-cutthroat-3", "house-cutthroat-4", "house-jjdd-minbid-10for200", "house-jokers-jj",
                     "house-mirror-lead-any", "house-suicide-blind", "house-whiz"]
    assert all((RECORDS / f"{n}.expected.json").is_file() for n in names)


def test_shapes_are_made_once():
    assert shape_of(3, False) is Rules(players=3, partners=False).shape


# -- the replay and score sheet at every shape -------------------------------------------
HOUSE = sorted(p.stem for p in RECORDS.glob("house-*.json") if not p.name.endswith(".expected.json"))


@pytest.mark.parametrize("name", HOUSE)
def test_the_replay_and_sheet_of_each_house_record_agree_with_the_replay_command(name):
    from spades.replays import END, load, outcome, score_sheet
    from spades.views import result_json

    rec = record(name)
    report = replay_report(rec)
    match = from_record(rec)
    n = match.shape.players
    names = ("Ann", "Rex", "Bea", "Kit")[:n]
    rows = score_sheet([result_json(r) for r in match.results], names)
    for row, hand in zip(rows, report["hands"], strict=True):
        assert [s.tricks for s in row.seats] == hand["tricks"]
        assert [t.points for t in row.teams] == hand["score"] and [t.total for t in row.teams] == hand["total"]
        assert [t.bags_after for t in row.teams] == hand["bags"]
    sides = match.shape.sides
    winner = " & ".join(names[s] for s in sides[report["winner"]])
    assert outcome(names, True, report["winner"], sides) == f"{winner} won the match."
    game = load(rec, names)
    size = match.shape.hand_size
    assert len(game.card_steps) == len(rec["hands"]) * (size * n + 2)
    for hand, trick, card in game.card_steps:
        f = game.frame(hand, trick, card)
        done = size if trick == END else trick
        assert len(f.seats) == n and len(f.teams) == len(sides)
        held = [c for s in f.seats for c in s.cards]
        assert len(held) + len(f.playing) == n * (size - done)
        if trick == END:
            expected = report["hands"][hand - 1]
            assert [s.taken for s in f.seats] == expected["tricks"] and [t.score for t in f.teams] == expected["total"]


def test_the_documents_algorithm_deals_every_deck_as_the_site_does():
    """docs/fairness.md's Python, run as written, over each house deck."""
    import re

    from spades.fairness import deck_of, hand_seed

    doc = (Path(__file__).parent.parent / "docs" / "fairness.md").read_text()
    code = next(b for b in re.findall(r"```python\n(.*?)```", doc, re.S) if "def deal(" in b)
    space: dict = {}
    exec(code, space)
    for rules in (Rules(players=3, partners=False), Rules(jokers="jj"), Rules(jokers="jjdd"), Rules()):
        shape = rules.shape
        seed = hand_seed("22" * 32, 2)
        site = FairDeals("22" * 32, {2: ("ab",)}, shape=shape)(2, 1)
        written = space["deal"](seed, ["ab"], 2, 1, list(deck_of(shape)), shape.players)
        assert [sorted(map(str, cards)) for cards in site] == [sorted(cards) for cards in written]


def test_a_stored_match_of_three_is_dealt_over_its_own_deck():
    rules = Rules(players=3, partners=False)
    deals = FairDeals.stored(("33" * 32, {1: ("beef",)}), rules.shape)
    assert deals is not None and [len(c) for c in Match(rules, seed=1, deals=deals).deal] == [17, 17, 17]
    assert [len(c) for c in FairDeals.stored(("33" * 32, {}))(1, 0)] == [13, 13, 13, 13]


def test_a_deal_of_another_shape_given_to_a_match_is_refused():
    with pytest.raises(ValueError, match="3 hands of 17 different cards"):
        Match(Rules(players=3, partners=False), seed=1, deals=FairDeals("44" * 32))  # a standard deck's deals
    with pytest.raises(ValueError, match="4 hands of 13"):
        Match(Rules(jokers="jj"), first_dealer=0, deal=DEAL)  # 2C and 2D are not in the jj deck


def test_presets_make_the_house_rules_they_name():
    """Each preset the host picks makes a table of the shape its label says, and a table's
    rules are known again as their preset (or as none, when chosen one by one)."""
    from spades.rules_config import PRESETS, preset_of, preset_rules

    assert list(PRESETS) == ["standard", "cutthroat-3", "cutthroat-4", "jjdd", "jj"]
    assert preset_rules("standard") == Rules()
    assert preset_rules("cutthroat-3").shape.sides == ((0,), (1,), (2,))
    assert preset_rules("cutthroat-4").shape.sides == ((0,), (1,), (2,), (3,))
    jjdd = preset_rules("jjdd", target=300)
    assert (jjdd.jokers, jjdd.min_bid, jjdd.ten_for_200, jjdd.target) == ("jjdd", 4, True, 300)
    assert preset_rules("jj").shape.trumps[:3] == (Card.parse("BJ"), Card.parse("LJ"), Card.parse("AS"))
    for name in PRESETS:
        assert preset_of(preset_rules(name, target=250)) == name
    assert preset_of(Rules(min_bid=3)) is None
    # a preset's house keys win over the same keys given one by one
    assert preset_rules("standard", players=3, partners=False) == Rules()
