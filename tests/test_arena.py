"""The arena of BOTS.md: duplicate pairs, the summary line, and outside bots over the
JSON-lines protocol (a good one, one answering garbage, one too slow)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from spades.arena import play_match
from spades.arena_figures import MatchResult, summarize, wilson

ROOT = Path(__file__).resolve().parent.parent
ONE_HAND = '{"end": "hands", "hands": 1}'
BOT = f"cmd:{sys.executable} -m spades.bots.example_bot"


def arena(*args: str, env: dict | None = None) -> dict:
    """Run ``python -m spades arena`` and return its last line, the summary."""
    out = subprocess.run([sys.executable, "-m", "spades", "arena", *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, env={**os.environ, **(env or {})})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_summary_has_the_keys_of_bots_md() -> None:
    s = arena("--team0", "easy", "--team1", "random", "--matches", "2", "--rules", ONE_HAND, "--seed", "3")
    assert set(s) == {"matches", "wins", "draws", "win_rate", "ci95", "points_per_hand", "decision_ms", "replaced",
                      "figures"}  # BOTS.md's keys, and the figures that explain them
    assert s["matches"] == 2 and sum(s["wins"]) + s["draws"] == 2
    assert set(s["decision_ms"]) == {"team0", "team1"} and set(s["decision_ms"]["team0"]) == {"p50", "p95"}
    assert s["replaced"] == [0, 0]
    assert s["ci95"][0] <= s["win_rate"] <= s["ci95"][1]


def test_duplicate_pair_plays_the_same_deals_with_teams_swapped() -> None:
    """Two equal deterministic teams: swapping seats on the same deals mirrors every score."""
    rules = {"end": "hands", "hands": 2}
    a = play_match(("normal", "normal"), rules, 42, False, 1.0, None)
    b = play_match(("normal", "normal"), rules, 42, True, 1.0, None)
    assert a.hand_points[0] == b.hand_points[1] and a.hand_points[1] == b.hand_points[0]


def test_wilson_interval() -> None:
    lo, hi = wilson(131, 200)
    assert 0.58 < lo < 0.6 and 0.71 < hi < 0.73
    assert wilson(0, 0) == (0.0, 1.0)
    s = summarize([MatchResult(0), MatchResult(None), MatchResult(1), MatchResult(0)])
    assert s["wins"] == [2, 1] and s["draws"] == 1 and s["win_rate"] == round(2 / 3, 3)


def test_figures_explain_the_results_per_team() -> None:
    a = MatchResult(0, hand_points=[[80, -40], [0, 0]], hand_rows=[
        # contract, tricks, set, bags, penalised, nils, nils made, blind nils, blind nils made
        [(7, 8, False, 1, False, 0, 0, 0, 0), (4, 3, True, 0, False, 1, 1, 0, 0)],
        [(None, 5, False, 0, False, 0, 0, 2, 1), (5, 10, False, 5, True, 0, 0, 0, 0)],
    ])
    f = summarize([a])["figures"]
    assert f["team0"] == {"hands": 2, "set_rate": 0.5, "avg_contract": 5.5, "avg_tricks": 5.5, "bags_per_hand": 0.5,
                          "bag_penalties_per_match": 0.0, "nil_bids_per_hand": 0.5, "nil_made": 1.0,
                          "blind_nil_bids_per_hand": 0.0, "blind_nil_made": None, "points_per_hand": 20.0,
                          "nils_busted": 0.5, "sets_caused": 0.0,  # of team 1's two blind nils, one broken
                          "by_hand": {"no_nil": {"share": 0.0, "margin": None},
                                      "our_nil": {"share": 0.5, "margin": -40.0},  # hand 2: team 0's nil
                                      "their_nil": {"share": 0.5, "margin": 80.0},  # hand 1: team 1's blind nils
                                      "both_nil": {"share": 0.0, "margin": None}}}
    assert f["team1"]["set_rate"] == 0.0 and f["team1"]["avg_contract"] == 5.0  # the double nil hand has no contract
    assert f["team1"]["blind_nil_bids_per_hand"] == 1.0 and f["team1"]["blind_nil_made"] == 0.5
    assert f["team1"]["bag_penalties_per_match"] == 1.0
    assert f["team1"]["nils_busted"] == 0.0 and f["team1"]["sets_caused"] == 0.5  # team 0's nil made, 4 set
    assert f["team1"]["by_hand"]["our_nil"] == {"share": 0.5, "margin": -80.0}  # the same hands, the other side
    assert f["team1"]["by_hand"]["their_nil"] == {"share": 0.5, "margin": 40.0}


def test_figures_of_played_matches_add_up() -> None:
    r = play_match(("normal", "easy"), {"end": "hands", "hands": 4}, 9, False, 1.0, None)
    assert [a[1] + b[1] for a, b in zip(*r.hand_rows)] == [13] * 4  # every trick went to one team
    s = summarize([r])["figures"]
    assert all(0 <= s[t]["set_rate"] <= 1 for t in s if s[t]["set_rate"] is not None)


def test_outside_bot_completes_a_match() -> None:
    s = arena("--team0", BOT, "--team1", "normal", "--matches", "2", "--rules", ONE_HAND)
    assert s["matches"] == 2 and sum(s["wins"]) + s["draws"] == 2
    assert s["replaced"] == [0, 0]


def test_garbage_answers_are_replaced_move_by_move() -> None:
    s = arena("--team0", "normal", "--team1", BOT + " --garbage", "--matches", "1", "--rules", ONE_HAND)
    assert s["matches"] == 1 and sum(s["wins"]) + s["draws"] == 1
    # every bid and card of both outside seats: 2 bids and 26 cards
    assert s["replaced"] == [0, 28]


def test_late_answers_are_replaced_and_the_match_ends() -> None:
    s = arena("--team0", BOT + " --sleep 0.4", "--team1", "easy", "--matches", "1", "--rules", ONE_HAND,
              env={"SPADES_ARENA_LIMIT": "0.1"})
    assert s["matches"] == 1 and sum(s["wins"]) + s["draws"] == 1
    assert s["replaced"][0] == 28 and s["replaced"][1] == 0


def test_illegal_answers_are_replaced() -> None:
    """An answer that parses but breaks the rules (a card during the bidding) is replaced too."""
    script = ("import sys, json\n"
              "for line in sys.stdin:\n"
              "    r = json.loads(line)\n"
              "    if r['type'] == 'end': break\n"
              "    print(json.dumps({'card': 'AS'}), flush=True)\n")
    s = arena("--team0", f"cmd:{sys.executable} -c \"{script}\"", "--team1", "normal", "--matches", "1",
              "--rules", ONE_HAND)
    assert s["matches"] == 1
    assert s["replaced"][0] >= 2  # at least both bids; AS itself is legal at most once


def test_bad_spec_is_refused() -> None:
    out = subprocess.run([sys.executable, "-m", "spades", "arena", "--team0", "genius", "--team1", "easy"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "genius" in out.stderr
