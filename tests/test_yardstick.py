"""The yardstick bot (spades/bots/yardstick.py): legal in every rule set, club habits on
hand-built positions, sensible bids, and the arena's ``--team0 yardstick``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.yardstick import DEFAULT_RULES, RULE_SETS, drive, play_view

from spades.bots import yardstick
from spades.rules import Match
from spades.rules_config import Rules
from spades.views import seat_view

ROOT = Path(__file__).resolve().parent.parent


# --- legality over whole matches ------------------------------------------------------------


@pytest.mark.parametrize("rules", RULE_SETS)
def test_only_legal_actions_all_four_seats(rules: dict) -> None:
    for seed in range(8):
        assert drive(rules, seed, ("yardstick", "yardstick")) > 0


@pytest.mark.parametrize("rules", RULE_SETS)
def test_only_legal_actions_against_normal(rules: dict) -> None:
    for seed in range(8):
        assert drive(rules, 100 + seed, ("yardstick", "normal")) > 0
        assert drive(rules, 100 + seed, ("normal", "yardstick")) > 0


def test_deterministic() -> None:
    match = Match(Rules(), seed=5)
    view = seat_view(match, match.to_act)
    assert yardstick.choose(view, 1) == yardstick.choose(json.loads(json.dumps(view)), 1)
    with pytest.raises(ValueError):
        yardstick.choose(seat_view(match, (match.to_act + 1) % 4), 1)


# --- hand-built positions ----------------------------------------------------------------


def test_leads_a_boss() -> None:
    hand = ["AH", "5H", "7D", "3D", "4C", "9C"]
    assert yardstick.choose(play_view(hand), 0) == "AH"
    # once the ace of hearts is gone, the king is the boss
    done = [{"leader": 0, "cards": ["AH", "2H", "3H", "4H"], "winner": 0}]
    hand = ["KH", "5H", "7D", "3D", "4C", "9C"]
    assert yardstick.choose(play_view(hand, tricks=done, taken=(1, 0, 0, 0)), 0) == "KH"


def test_never_trumps_a_partners_winning_card() -> None:
    hand = ["5S", "9S", "4D", "8D", "2C"]  # void in hearts
    # third hand: the partner (seat 2) led the ace of hearts
    card = yardstick.choose(play_view(hand, leader=2, trick=["AH", "4H"]), 0)
    assert card[1] != "S"
    # fourth hand: the partner's king is winning
    card = yardstick.choose(play_view(hand, leader=1, trick=["5H", "KH", "2H"]), 0)
    assert card[1] != "S"
    # an opponent winning instead: trump in with the lowest spade that wins
    assert yardstick.choose(play_view(hand, leader=1, trick=["5H", "2H", "KH"]), 0) == "5S"


def test_third_hand_high_second_hand_low() -> None:
    # third hand: the partner led low, the second hand played the nine
    assert yardstick.choose(play_view(["QD", "3D", "7C"], leader=2, trick=["4D", "9D"]), 0) == "QD"
    # holding ace-king, the king wins as well and is cheaper
    assert yardstick.choose(play_view(["AD", "KD", "3D", "7C"], leader=2, trick=["4D", "9D"]), 0) == "KD"
    # second hand low
    assert yardstick.choose(play_view(["KC", "8C", "2C", "5H"], leader=3, trick=["5C"]), 0) == "2C"


def test_covers_a_partners_nil() -> None:
    bids = (3, 2, "nil", 4)
    # the nil partner's ten is winning: overtake it
    card = yardstick.choose(play_view(["QH", "4H", "7C"], leader=1, trick=["3H", "TH", "5H"], bids=bids), 0)
    assert card == "QH"
    # void: trump the nil partner's winning card
    card = yardstick.choose(play_view(["3S", "7C"], leader=1, trick=["3H", "TH", "5H"], bids=bids), 0)
    assert card == "3S"
    # the partner plays after me: play high so the partner can stay under
    card = yardstick.choose(play_view(["KC", "2C", "5H"], leader=3, trick=["6C"], bids=bids), 0)
    assert card == "KC"


def test_ducks_once_the_contract_is_made_with_bag_penalty() -> None:
    bids, taken = (2, 3, 2, 3), (3, 2, 1, 2)  # our contract 4, we have 4
    hand = ["KH", "8H", "2H", "5C"]
    trick = ["9H", "3H", "5H"]
    assert yardstick.choose(play_view(hand, leader=1, trick=trick, bids=bids, taken=taken), 0) == "8H"
    # without the bag penalty a trick is a point: win it cheaply
    card = yardstick.choose(play_view(hand, leader=1, trick=trick, bids=bids, taken=taken,
                                      rules={"bag_penalty": False}), 0)
    assert card == "KH"
    # contract not made yet: win it
    assert yardstick.choose(play_view(hand, leader=1, trick=trick, bids=bids, taken=(1, 2, 1, 2)), 0) == "KH"


def test_no_bidding_wins_tricks() -> None:
    hand = ["KH", "8H", "2H", "5C"]
    view = play_view(hand, leader=1, trick=["9H", "3H", "5H"], bids=(None,) * 4, taken=(3, 2, 1, 2),
                     rules={"mode": "no_bidding"})
    assert yardstick.choose(view, 0) == "KH"


def bid_view(hand: list[str], bids=(None, None, None, None), seat: int = 0, rules: dict | None = None) -> dict:
    return {
        "seat": seat, "rules": {**DEFAULT_RULES, **(rules or {})}, "hand_number": 1, "dealer": 3,
        "hand": list(hand), "bids": list(bids), "blind": [False] * 4, "tricks": [], "trick": None,
        "taken": [0] * 4, "spades_broken": False, "scores": [0, 0], "bags": [0, 0], "to_act": seat,
        "legal": list(range(1, 14)) + ["nil"],
    }


def test_bids_sure_tricks() -> None:
    strong = ["AS", "KS", "QS", "AH", "5H", "3H", "AD", "6D", "4D", "AC", "7C", "5C", "2C"]
    assert yardstick.choose(bid_view(strong), 0) in (5, 6, 7)
    # partner bid nil: a trick more to cover
    assert yardstick.choose(bid_view(strong, bids=(None, 3, "nil", None)), 0) >= 6
    # the table is already over 13: shade down
    assert yardstick.choose(bid_view(strong, bids=(None, 5, 4, 4)), 0) <= 5


def test_bids_nil_or_one_with_no_high_cards() -> None:
    weak = ["2S", "3S", "4H", "5H", "6H", "7H", "2D", "3D", "4D", "5D", "2C", "3C", "4C"]
    assert yardstick.choose(bid_view(weak), 0) in ("nil", 1)
    # five low spades take tricks by length: no nil, a number
    long_spades = ["2S", "3S", "4S", "5S", "6S", "5H", "6H", "7H", "2D", "3D", "4D", "2C", "3C"]
    bid = yardstick.choose(bid_view(long_spades), 0)
    assert isinstance(bid, int) and bid >= 1
    # an ace and a bare king: never nil
    ace_and_bare_king = ["2S", "3S", "AH", "5H", "KD", "3D", "4D", "5D", "6D", "2C", "3C", "4C", "5C"]
    assert yardstick.choose(bid_view(ace_and_bare_king), 0) != "nil"


def test_blind_nil_only_far_behind() -> None:
    view = bid_view([], rules={"blind_nil": True})
    view.update(hand=None, legal=["blind_nil", "look"])
    assert yardstick.choose(view, 0) == "look"
    view["scores"] = [100, 320]
    assert yardstick.choose(view, 0) == "blind_nil"
    view["bids"] = [None, 4, "nil", None]  # never beside a partner's nil
    assert yardstick.choose(view, 0) == "look"


# --- the arena ------------------------------------------------------------------------------

def test_arena_accepts_yardstick() -> None:
    out = subprocess.run([sys.executable, "-m", "spades", "arena", "--team0", "yardstick", "--team1", "normal",
                          "--matches", "2", "--rules", '{"end": "hands", "hands": 1}', "--seed", "3"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["matches"] == 2 and summary["replaced"] == [0, 0]
