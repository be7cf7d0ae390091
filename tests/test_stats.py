"""Stats: a player's record and per-hand figures from known matches (the golden records
in tests/records and seeded matches), and the replay of stored moves."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from spades import tables
from spades.records import from_record
from spades.rules import BLIND_NIL, DEAL, LOOK, Match
from spades.rules_config import Rules
from spades.stats import Played, record_of, replay, results_over_time

RECORDS = Path(__file__).parent / "records"


def golden(name: str) -> Match:
    return from_record(json.loads((RECORDS / f"{name}.json").read_text()))


# match-to-200: bids by hand (seats 0-3): 4 2 nil 4 / 3 4 4 3 / 1 2 5 3 / 3 5 6 4;
# team 0 (seats 0, 2) is set in hands 1, 2 and 4, takes 2 bags in hands 1 and 3; the
# nil of seat 2 in hand 1 fails; team 1 makes every contract and wins 274 to -236.
@pytest.mark.parametrize("seat, expected", [
    (0, dict(played=1, won=0, lost=1, hands=4, bids=4, bid_total=11, bids_made=1, nils=0, sets=3, bags=4)),
    (2, dict(played=1, won=0, lost=1, hands=4, bids=3, bid_total=15, bids_made=1, nils=1, nils_made=0, sets=3, bags=4)),
    (1, dict(played=1, won=1, lost=0, hands=4, bids=4, bid_total=13, bids_made=4, nils=0, sets=0, bags=4)),
    (3, dict(played=1, won=1, lost=0, hands=4, bids=4, bid_total=14, bids_made=4, sets=0, bags=4)),
])
def test_record_of_the_match_to_200(seat, expected):
    rec = record_of([Played(golden("match-to-200"), seat)])
    assert {k: getattr(rec, k) for k in expected} == expected


def test_figures_as_shown():
    rec = record_of([Played(golden("match-to-200"), 0)])
    assert rec.bids_made_pct == 25.0 and rec.average_bid == 2.75 and rec.bags_per_hand == 1.0
    assert rec.nil_pct is None and rec.blind_nil_pct is None
    nil = record_of([Played(golden("match-to-200"), 2)])
    assert nil.nil_pct == 0.0 and nil.average_bid == 5.0


def test_an_unfinished_match_counts_its_hands_but_not_as_played():
    # failed-nil: one hand, seat 2 bid nil and took 2 tricks; team 0 made its 4 with 3 bags
    rec = record_of([Played(golden("failed-nil"), 2)])
    assert (rec.played, rec.won, rec.lost, rec.hands) == (0, 0, 0, 1)
    assert (rec.nils, rec.nils_made, rec.sets, rec.bags) == (1, 0, 0, 3)
    assert results_over_time([Played(golden("failed-nil"), 2)]) == []


def play_out(match: Match, rng: random.Random, blind_seat: int | None = None) -> None:
    """Finish the hand in play: ``blind_seat`` bids blind nil, others bid 3 or nil."""
    while match.phase in ("bidding", "playing"):
        seat = match.to_act
        if match.phase == "bidding":
            if seat == blind_seat and match.can_look(seat):
                match.apply(seat, BLIND_NIL)
                continue
            if match.can_look(seat):
                match.apply(seat, LOOK)
            match.apply(seat, rng.choice(match.legal_actions(seat)))
        else:
            match.apply(seat, rng.choice(match.legal_actions(seat)))


@pytest.mark.parametrize("seed", range(6))
def test_blind_nil_and_nil_success_follow_the_tricks_taken(seed):
    rng = random.Random(seed)
    match = Match(Rules(blind_nil=True, end="hands", hands=3), seed)
    for _ in range(3):
        play_out(match, rng, blind_seat=1)
        if not match.finished:
            match.next_hand()
    assert match.finished
    for seat in range(4):
        rec = record_of([Played(match, seat)])
        nil_hands = [r for r in match.results if r.bids[seat] == 0 and not r.blind[seat]]
        blind_hands = [r for r in match.results if r.blind[seat]]
        number = [r.bids[seat] for r in match.results if r.bids[seat]]
        assert rec.blind_nils == len(blind_hands) == (3 if seat == 1 else 0)
        assert rec.blind_nils_made == sum(r.tricks[seat] == 0 for r in blind_hands)
        assert rec.nils == len(nil_hands) and rec.nils_made == sum(r.tricks[seat] == 0 for r in nil_hands)
        assert rec.bids == len(number) and rec.bid_total == sum(number)
        partner = (seat + 2) % 4
        assert rec.sets == sum(  # a team is set when its number bids exceed its tricks
            1 for r in match.results
            if sum(r.bids[s] for s in (seat, partner) if r.bids[s])
            > sum(r.tricks[s] for s in (seat, partner) if r.bids[s]))
        assert rec.played == 1 and (rec.won + rec.lost + rec.drawn) == 1
        assert rec.won == (match.winner == seat % 2)


def test_replay_of_stored_moves_rebuilds_the_match():
    rng = random.Random(3)
    rules = Rules(end="hands", hands=2)
    original = Match(rules, "seed-x")
    moves = []
    while not original.finished:
        if original.phase == "hand_over":
            original.next_hand()
            moves.append((None, DEAL))
            continue
        seat = original.to_act
        action = rng.choice(original.legal_actions(seat))
        original.apply(seat, action)
        moves.append((seat, str(action)))
    again = replay(rules.to_dict(), "seed-x", moves)
    assert again.scores == original.scores and again.winner == original.winner and again.finished
    assert [r.plays for r in again.results] == [r.plays for r in original.results]
    assert DEAL == tables.DEAL  # the same word the table service stores


def test_results_over_time_are_oldest_first_from_each_seat():
    m = golden("match-to-200")
    res = results_over_time([Played(m, 1, when=20.0, code="BBBBBB"), Played(m, 0, when=10.0, code="AAAAAA")])
    assert [(r.code, r.outcome, r.us, r.them) for r in res] == [("AAAAAA", "lost", -236, 274),
                                                                ("BBBBBB", "won", 274, -236)]
