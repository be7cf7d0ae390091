"""The punisher bot (spades/bots/punisher.py): legal in every rule set, ``choose`` and
``play_card`` agree, and the club habits of punishing play on hand-built positions:
busting an opponent's nil, covering a partner's nil, setting a close contract, ducking
bags near ten, ordinary play, and sensible bids."""

from __future__ import annotations

import json

import pytest
from helpers.yardstick import DEFAULT_RULES, RULE_SETS, drive, play_view

from spades.bots import punisher
from spades.bots.policy import HandCtx
from spades.cards import CARDS, Card, mask_of
from spades.rules import Match
from spades.rules_config import Rules
from spades.views import seat_view

# --- legality over whole matches ------------------------------------------------------------


@pytest.mark.parametrize("rules", RULE_SETS)
def test_only_legal_actions_all_four_seats(rules: dict) -> None:
    for seed in range(8):
        assert drive(rules, seed, ("punisher", "punisher")) > 0


@pytest.mark.parametrize("rules", RULE_SETS)
def test_only_legal_actions_against_normal(rules: dict) -> None:
    for seed in range(6):
        assert drive(rules, 100 + seed, ("punisher", "normal")) > 0
        assert drive(rules, 100 + seed, ("normal", "punisher")) > 0


def masks_of(view: dict) -> tuple[int, list[int], int, int]:
    """(hand, trick, leader, gone) built from the view's card strings."""
    hand = mask_of(Card.parse(c) for c in view["hand"])
    trick = [Card.parse(c) for c in view["trick"]["cards"]]
    played = [Card.parse(c) for t in view["tricks"] for c in t["cards"]]
    return hand, [int(c) for c in trick], view["trick"]["leader"], mask_of(played + trick)


def test_choose_and_play_card_agree() -> None:
    seen = []

    def check(view: dict, action: object) -> None:
        if not isinstance(action, str) or action in ("nil", "blind_nil", "look"):
            return
        ctx, seat, hand, trick, leader, gone, taken, broken, voids = punisher.position(view)
        assert (hand, trick, leader, gone) == masks_of(view)
        assert str(CARDS[punisher.play_card(ctx, seat, hand, trick, leader, gone, taken, broken, voids)]) == action
        seen.append(action)

    for seed in range(6):
        drive({}, 300 + seed, ("punisher", "normal"), check)
        drive({"mode": "no_bidding"}, 400 + seed, ("punisher", "punisher"), check)
    assert len(seen) > 300


def test_play_card_without_voids_is_legal() -> None:
    ctx = HandCtx(bidding=True, bids=[3, 0, 4, 3])
    hand = mask_of(Card.parse(c) for c in ["AS", "4S", "KH", "2H", "9D", "3C"])
    card = punisher.play_card(ctx, 0, hand, [Card.parse("5H")], 3, mask_of([Card.parse("5H")]), [0] * 4, False)
    assert str(CARDS[card]) in ("KH", "2H")


def test_deterministic_and_off_turn() -> None:
    match = Match(Rules(), seed=5)
    view = seat_view(match, match.to_act)
    assert punisher.choose(view, 1) == punisher.choose(json.loads(json.dumps(view)), 7)
    with pytest.raises(ValueError):
        punisher.choose(seat_view(match, (match.to_act + 1) % 4), 1)


# --- hand-built positions ----------------------------------------------------------------

def card(hand: list[str], **kw) -> str:
    return punisher.choose(play_view(hand, **kw), 0)


NIL_LEFT = (3, "nil", 4, 3)  # seat 1, on our left, bid nil


# busting an opponent's nil

def test_bust_leads_low_in_a_suit_the_nil_bidder_holds() -> None:
    hand = ["AH", "3H", "KD", "9D", "4C", "8C"]
    assert card(hand, bids=NIL_LEFT) == "3H"  # only the deuce of hearts is out under it
    # once the nil bidder has shown out of hearts, the low club instead
    shown = [{"leader": 3, "cards": ["5H", "QH", "7D", "JH"], "winner": 0}]
    assert card(hand, bids=NIL_LEFT, tricks=shown, taken=(1, 0, 0, 0)) == "4C"


def test_bust_prefers_the_lead_it_must_go_over() -> None:
    # the 2, 3 and 4 of clubs are gone: nothing is out under my five of clubs
    gone = [{"leader": 0, "cards": ["AC", "2C", "3C", "4C"], "winner": 0}]
    hand = ["5C", "KC", "6H", "AD", "7D"]
    assert card(hand, bids=NIL_LEFT, tricks=gone, taken=(1, 0, 0, 0)) == "5C"


def test_bust_stays_under_the_nil_bidders_winning_card() -> None:
    # the nil bidder led the eight; I am last: the highest heart that still loses
    assert card(["KH", "6H", "2H", "4D"], bids=NIL_LEFT, leader=1, trick=["8H", "5H", "7H"]) == "6H"
    # void: a high side card, not a trump
    assert card(["5S", "KD", "3C"], bids=NIL_LEFT, leader=1, trick=["8H", "5H", "7H"]) == "KD"


def test_bust_leaves_the_nil_bidder_exposed() -> None:
    # the partner led low and the nil bidder plays last: never overtake the partner
    assert card(["AD", "7D", "3D", "9C"], bids=NIL_LEFT, leader=2, trick=["4D", "2D"]) == "3D"
    # second hand after its partner's low lead, the nil bidder next: stay under the five
    assert card(["KC", "4C", "2C", "8H"], bids=NIL_LEFT, leader=3, trick=["5C"]) == "4C"


def test_bust_keeps_low_exits() -> None:
    # the nil bidder led its three and its partner's ace wins: lose the highest small heart,
    # keeping the lower ones to go under the nil bidder later
    assert card(["KH", "8H", "6H", "2H", "5C"], bids=NIL_LEFT, leader=1, trick=["3H", "QH", "AH"]) == "8H"


def test_bust_ends_once_the_nil_is_broken() -> None:
    hand = ["AH", "3H", "KD", "9D", "4C", "8C"]
    won = {"leader": 1, "cards": ["5C", "TC", "JC", "QC"], "winner": 0}
    broken = [{"leader": 0, "cards": ["2D", "QD", "5D", "6D"], "winner": 1}, won]
    assert card(hand, bids=NIL_LEFT, tricks=broken, taken=(1, 1, 0, 0)) == "AH"  # the nil took a trick
    alive = [{"leader": 0, "cards": ["QD", "2D", "5D", "6D"], "winner": 0}]
    assert card(hand, bids=NIL_LEFT, tricks=alive, taken=(1, 0, 0, 0)) == "3H"  # still alive


# covering a partner's nil

PARTNER_NIL = (3, 2, "nil", 4)


def test_cover_plays_high_before_the_nil_partner() -> None:
    assert card(["KC", "2C", "5H"], bids=PARTNER_NIL, leader=3, trick=["6C"]) == "KC"


def test_cover_overtakes_the_partner_cheaply() -> None:
    assert card(["AH", "QH", "4H", "7C"], bids=PARTNER_NIL, leader=1, trick=["3H", "TH", "5H"]) == "QH"
    # void: trump it with the lowest spade
    assert card(["9S", "3S", "7C"], bids=PARTNER_NIL, leader=1, trick=["3H", "TH", "5H"]) == "3S"


def test_cover_leads_bosses_then_suits_the_partner_is_void_in() -> None:
    assert card(["AD", "7D", "9C", "3C"], bids=PARTNER_NIL) == "AD"
    shown = [{"leader": 1, "cards": ["4C", "5D", "KC", "AC"], "winner": 0}]  # partner out of clubs
    assert card(["KD", "4D", "QC", "3C"], bids=PARTNER_NIL, tricks=shown, taken=(1, 0, 0, 0)) == "QC"


# setting a close contract

SET_BIDS = (2, 5, 2, 5)  # we bid 4, they bid 10
FOUR_PLAYED = [
    {"leader": 1, "cards": ["AC", "2C", "3C", "4C"], "winner": 1},
    {"leader": 1, "cards": ["KC", "5C", "6C", "7C"], "winner": 1},
    {"leader": 1, "cards": ["KD", "AD", "2D", "3D"], "winner": 2},
    {"leader": 2, "cards": ["4D", "5D", "QD", "6D"], "winner": 0},
]
TO_SEAT_3 = [*FOUR_PLAYED, {"leader": 0, "cards": ["7D", "8D", "9D", "JD"], "winner": 3}]  # taken 1 2 1 1
TO_SEAT_2 = [*FOUR_PLAYED, {"leader": 0, "cards": ["7D", "8D", "JD", "9D"], "winner": 2}]  # taken 1 2 2 0


def test_set_wins_a_trick_it_would_otherwise_duck() -> None:
    # they need 7 of the 8 tricks left: second hand takes the sure ace at once
    hand = ["AH", "4H", "8C", "9C", "TC", "JC", "2S", "3S"]
    kw = {"tricks": TO_SEAT_3, "taken": (1, 2, 1, 1), "leader": 3, "trick": ["5H"]}
    assert card(hand, bids=SET_BIDS, **kw) == "AH"
    # when they bid little, second hand low
    assert card(hand, bids=(2, 2, 2, 2), **kw) == "4H"


def test_set_overtakes_the_partner_only_when_needed() -> None:
    kw = {"tricks": TO_SEAT_2, "taken": (1, 2, 2, 0), "leader": 2, "bids": SET_BIDS}
    # they need all 8: the partner's queen may lose to the king, so take it with the ace
    assert card(["AH", "4H", "8C", "9C", "TC", "JC", "2S", "3S"], trick=["QH", "3H"], **kw) == "AH"
    # the partner's queen of clubs is the boss: it needs no help
    assert card(["AS", "4H", "8C", "9C", "JC", "2S", "3S", "5S"], trick=["QC", "TC"], **kw) == "8C"


def test_set_trumps_the_partners_doubtful_card_when_pressing() -> None:
    hand = ["8C", "9C", "TC", "JC", "2S", "3S", "AS", "7S"]
    kw = {"tricks": TO_SEAT_2, "taken": (1, 2, 2, 0), "leader": 2, "trick": ["QH", "3H"]}
    assert card(hand, bids=SET_BIDS, **kw) == "2S"
    assert card(hand, bids=(2, 2, 2, 2), **kw) == "8C"  # no set on: the partner's queen may hold


def test_set_cashes_winners_first() -> None:
    # they need all 8: cash the ace of hearts before they can discard on it
    hand = ["AH", "4H", "8C", "9C", "TC", "JC", "2S", "3S"]
    assert card(hand, bids=SET_BIDS, tricks=TO_SEAT_2, taken=(1, 2, 2, 0), seat=2) == "AH"


SIX_PLAYED = [*TO_SEAT_2, {"leader": 2, "cards": ["4H", "6H", "TH", "AH"], "winner": 1}]  # taken 1 3 2 0
SIX_HAND = ["KH", "8H", "2H", "8C", "9C", "JC", "2S"]
SIX = {"tricks": SIX_PLAYED, "taken": (1, 3, 2, 0), "leader": 1, "trick": ["9H", "3H", "5H"]}


def test_set_out_of_reach_wastes_nothing() -> None:
    # our 3 made, they need 3 of the 7 left: duck with the highest losing heart
    assert card(SIX_HAND, bids=(1, 3, 2, 3), **SIX) == "8H"
    # they need all 7: the set is on, take it
    assert card(SIX_HAND, bids=(1, 5, 2, 5), **SIX) == "KH"


# bags near ten

def test_bags_duck_with_the_contract_made() -> None:
    hand = ["KH", "8H", "2H", "5C", "6C"]
    kw = {"leader": 1, "trick": ["9H", "3H", "5H"], "bids": (2, 3, 2, 3), "bags": (7, 0)}
    assert card(hand, taken=(3, 2, 1, 2), **kw) == "8H"
    # void in hearts: dump the dangerous king of diamonds under their winner
    assert card(["KD", "4D", "5C", "6C", "7C"], taken=(3, 2, 1, 2), **kw) == "KD"
    # every card wins and I play last: the highest, a future winner gone
    assert card(["KH", "QH", "5C", "6C", "7C"], taken=(3, 2, 1, 2), **kw) == "KH"
    # not made yet: win it cheaply
    assert card(hand, taken=(1, 2, 1, 2), **kw) == "KH"
    # no bag penalty: a trick is a point
    assert card(hand, taken=(3, 2, 1, 2), rules={"bag_penalty": False}, **kw) == "KH"


def test_bags_give_way_to_a_set_below_the_next_ten() -> None:
    # they bid 9 and need 6 of the 7 left: two tricks of ours set them
    assert card(SIX_HAND, bids=(1, 5, 2, 4), bags=(7, 0), **SIX) == "KH"  # 7 + 2 bags: go for it
    assert card(SIX_HAND, bids=(1, 5, 2, 4), bags=(8, 0), **SIX) == "8H"  # it would cost the next ten
    # ... unless their contract would win them the match
    assert card(SIX_HAND, bids=(1, 5, 2, 4), bags=(8, 0), scores=(300, 450), **SIX) == "KH"


# ordinary club play

def test_second_hand_low_third_hand_high_fourth_cheapest() -> None:
    assert card(["KC", "8C", "2C", "5H"], leader=3, trick=["5C"]) == "2C"
    assert card(["QD", "3D", "7C"], leader=2, trick=["4D", "9D"]) == "QD"
    assert card(["AD", "KD", "3D", "7C"], leader=2, trick=["4D", "9D"]) == "KD"
    assert card(["AD", "JD", "3D", "7C"], leader=1, trick=["4D", "9D", "TD"]) == "JD"


def test_never_trumps_a_partners_sure_winner() -> None:
    hand = ["5S", "9S", "4D", "8D", "2C"]
    assert card(hand, leader=2, trick=["AH", "4H"])[1] != "S"
    assert card(hand, leader=1, trick=["5H", "KH", "2H"])[1] != "S"
    assert card(hand, leader=1, trick=["5H", "2H", "KH"]) == "5S"  # an opponent's: trump low


def test_cashes_side_bosses_then_draws_trumps() -> None:
    assert card(["AH", "5H", "7D", "3D", "AS", "4S"], broken=True) == "AH"
    assert card(["AS", "5S", "5H", "7D", "3D"], broken=True) == "AS"


def test_no_bidding_wins_every_trick() -> None:
    view = play_view(["KH", "8H", "2H", "5C", "6C"], leader=1, trick=["9H", "3H", "5H"], bids=(None,) * 4,
                     taken=(3, 2, 1, 2), rules={"mode": "no_bidding"}, bags=(9, 9))
    assert punisher.choose(view, 0) == "KH"


def test_own_nil_stays_under() -> None:
    bids = ("nil", 3, 4, 3)
    assert card(["QH", "9H", "2H", "5C"], bids=bids, leader=3, trick=["TH"]) == "9H"
    assert card(["AD", "2D", "5C"], bids=bids, leader=1, trick=["TH", "JH", "QH"]) == "AD"  # shed the ace


# --- bids --------------------------------------------------------------------------------------

def bid_view(hand: list[str], bids=(None, None, None, None), seat: int = 0, rules: dict | None = None,
             bags=(0, 0)) -> dict:
    return {
        "seat": seat, "rules": {**DEFAULT_RULES, **(rules or {})}, "hand_number": 1, "dealer": 3,
        "hand": list(hand), "bids": list(bids), "blind": [False] * 4, "tricks": [], "trick": None,
        "taken": [0] * 4, "spades_broken": False, "scores": [0, 0], "bags": list(bags), "to_act": seat,
        "legal": list(range(1, 14)) + ["nil"],
    }


STRONG = ["AS", "KS", "QS", "AH", "5H", "3H", "AD", "6D", "4D", "AC", "7C", "5C", "2C"]


def test_bids_sure_tricks() -> None:
    assert punisher.choose(bid_view(STRONG), 0) in (6, 7)
    assert punisher.choose(bid_view(STRONG, bids=(None, 5, 4, 4)), 0) <= 6  # the table is over 13


def test_bids_up_near_ten_bags() -> None:
    hand = ["AS", "KS", "5S", "AH", "KH", "3H", "QD", "6D", "4D", "9C", "7C", "5C", "2C"]  # 4.7 tricks
    low = punisher.choose(bid_view(hand), 0)
    assert low == 4
    assert punisher.choose(bid_view(hand, bags=(8, 0)), 0) == low + 1


def test_nil_only_with_a_safe_hand() -> None:
    safe = ["2S", "3S", "4H", "5H", "6H", "JH", "2D", "3D", "9D", "5D", "2C", "3C", "4C"]
    assert punisher.choose(bid_view(safe), 0) == "nil"
    assert punisher.choose(bid_view(safe, bids=(None, 3, "nil", None)), 0) != "nil"  # partner nil
    assert punisher.choose(bid_view(safe, bids=(None, 3, 1, None)), 0) != "nil"  # partner cannot cover
    bare_king = ["2S", "3S", "4H", "5H", "6H", "7H", "KD", "2D", "5C", "6C", "2C", "3C", "4C"]
    assert punisher.choose(bid_view(bare_king), 0) != "nil"
    ace = ["2S", "3S", "AH", "5H", "6H", "7D", "2D", "3D", "5C", "6C", "2C", "3C", "4C"]
    assert punisher.choose(bid_view(ace), 0) != "nil"
    high_spade = ["QS", "3S", "4H", "5H", "6H", "7D", "2D", "3D", "5C", "6C", "2C", "3C", "4C"]
    assert punisher.choose(bid_view(high_spade), 0) != "nil"


def test_nil_rate_is_a_club_rate() -> None:
    nils = hands = 0
    for seed in range(150):
        deal = Match(Rules(), seed=seed)
        for s in range(4):
            hands += 1
            nils += punisher.nil_safe(mask_of(deal.cards(s)))
    assert 0.03 < nils / hands < 0.15


def test_blind_nil_only_far_behind() -> None:
    view = bid_view([], rules={"blind_nil": True})
    view.update(hand=None, legal=["blind_nil", "look"])
    assert punisher.choose(view, 0) == "look"
    view["scores"] = [100, 380]
    assert punisher.choose(view, 0) == "blind_nil"
    view["bids"] = [None, 4, "nil", None]
    assert punisher.choose(view, 0) == "look"
