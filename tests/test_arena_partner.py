"""The arena's partner figures in the ``--seats`` form: the partner's nils, the needless
overtakes of a partner's winning card (``partner_overtakes``, on hands driven through the
engine with chosen cards) and the side's win rate; kept at a partners table only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from spades import bots
from spades.arena_figures import hand_tricks, partner_overtakes
from spades.cards import CARDS, Card, mask_of
from spades.records import from_record
from spades.rules import BIDS, HAND_OVER, MATCH_OVER, NIL, Match, parse_action
from spades.rules_config import Rules
from spades.views import seat_view

ROOT = Path(__file__).resolve().parent.parent
PARTNER_KEYS = {"partner_nils", "partner_nil_made", "overtook_partner", "overtook_partner_count", "side_win_rate"}
HEARTS = 1  # Card.suit of a heart


def deal_of(fixed: dict[int, str], no_more_hearts: tuple[int, ...] = ()) -> list[list[Card]]:
    """A deal giving each seat its ``fixed`` cards ("KH 2S"), the rest of the deck dealt
    around; the seats in ``no_more_hearts`` get no heart beyond their fixed ones."""
    hands = {s: [Card.parse(c) for c in fixed.get(s, "").split()] for s in range(4)}
    taken = {c for cards in hands.values() for c in cards}
    rest = sorted((c for c in CARDS if c not in taken), key=lambda c: c.suit != HEARTS)  # hearts first
    for card in rest:
        open_seats = [s for s in range(4) if len(hands[s]) < 13
                      and not (card.suit == HEARTS and s in no_more_hearts)]
        hands[min(open_seats, key=lambda s: len(hands[s]))].append(card)
    return [hands[s] for s in range(4)]


def first_trick(deal: list[list[Card]], cards: str, bids: tuple[int, ...] = (3, 3, 3, 3)) -> Match:
    """A standard match on ``deal`` (seat 0 leads), the ``bids`` made (0 is nil) and the
    first trick's ``cards`` played in seat order."""
    match = Match(Rules(), first_dealer=3, deal=deal)
    for seat, bid in enumerate(bids):
        match.apply(seat, NIL if bid == 0 else BIDS[bid])
    for seat, card in enumerate(cards.split()):
        match.apply(seat, Card.parse(card))
    assert len(match.tricks) == 1
    return match


def overtakes(match: Match) -> list[int]:
    return partner_overtakes(match.shape, match.deal, match.bids, match.shape.left[match.dealer], match.plays)


def test_a_needless_overtake_of_the_partners_winning_card_is_counted() -> None:
    # seat 0 leads the KH, seat 2 (its partner) holds the 3H yet plays the AH; seat 3 follows low
    match = first_trick(deal_of({0: "KH", 1: "2H", 2: "AH 3H", 3: "4H"}), "KH 2H AH 4H")
    assert match.tricks[0][2] == 2  # the ace took the trick the king would have taken
    assert overtakes(match) == [0, 0, 1, 0]


def test_an_overtake_is_not_counted_when_every_legal_card_beats_or_the_partner_lost_anyway() -> None:
    # only beating cards: the AH is seat 2's one heart, and it must follow suit
    match = first_trick(deal_of({0: "KH", 1: "2H", 2: "AH", 3: "4H"}, no_more_hearts=(2,)), "KH 2H AH 4H")
    assert overtakes(match) == [0, 0, 0, 0]
    # a later card beat the partner's card: seat 3, void in hearts, trumps (the ace gained nothing either)
    match = first_trick(deal_of({0: "KH", 1: "2H", 2: "AH 3H", 3: "2S"}, no_more_hearts=(3,)), "KH 2H AH 2S")
    assert match.tricks[0][2] == 3 and overtakes(match) == [0, 0, 0, 0]
    # the partner's card was not winning: seat 1's queen over seat 0's jack, seat 3 overtakes its partner
    match = first_trick(deal_of({0: "JH", 1: "QH", 2: "2H", 3: "KH 3H"}), "JH QH 2H KH")
    assert overtakes(match) == [0, 0, 0, 1]  # seat 2's 2H beat nothing; seat 3 needlessly topped seat 1


def test_no_overtake_over_a_nil_partner_or_by_a_nil_bidder() -> None:
    cards = {0: "KH", 1: "2H", 2: "AH 3H", 3: "4H"}
    # the partner bid nil: taking its trick covers the nil
    match = first_trick(deal_of(cards), "KH 2H AH 4H", bids=(0, 3, 4, 3))
    assert overtakes(match) == [0, 0, 0, 0]
    # the seat itself bid nil
    match = first_trick(deal_of(cards), "KH 2H AH 4H", bids=(4, 3, 0, 3))
    assert overtakes(match) == [0, 0, 0, 0]


def test_the_walk_of_a_hand_finds_the_engines_tricks_and_legal_cards() -> None:
    for rules in (Rules(), Rules.from_dict({"jokers": "jjdd", "spades_lead": "any"})):
        match = Match(rules, seed=5)
        legal: list[int] = []
        hands = 0
        for seat in match.turns():
            if match.phase == "playing":
                legal.append(mask_of(match.legal_actions(seat)))
            match.apply(seat, parse_action(bots.choose(seat_view(match, seat), "random", seat), match.shape.tricks))
            if match.phase in (HAND_OVER, MATCH_OVER):
                walk = list(hand_tricks(match.shape, match.deal, match.shape.left[match.dealer], match.plays,
                                        rules.spades_lead == "any"))
                assert [(leader, trick) for leader, trick, _, _ in walk] == [(t[0], t[1]) for t in match.tricks]
                assert [(t[0] + w[-1]) % 4 for t, (_, _, w, _) in zip(match.tricks, walk)] == \
                    [t[2] for t in match.tricks]
                assert [m for _, _, _, masks in walk for m in masks] == legal
                legal = []
                hands += 1
                if hands == 3:
                    break


def arena(*args: str) -> dict:
    out = subprocess.run([sys.executable, "-m", "spades", "arena", *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, env={**os.environ, "SPADES_ARENA_JOBS": ""})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_seats_summary_gives_partner_figures_at_a_partners_table_only(tmp_path: Path) -> None:
    s = arena("--seats", "normal,yardstick,yardstick,yardstick", "--rules", '{"end": "hands", "hands": 2}',
              "--matches", "8", "--seed", "3", "--records", str(tmp_path))
    normal, stick = s["figures"]["normal"], s["figures"]["yardstick"]
    assert set(normal) >= PARTNER_KEYS and set(stick) >= PARTNER_KEYS
    assert s["draws"] == 0
    assert normal["side_win_rate"] == s["win_rate"]
    # yardstick's seats: one beside normal, two across, seat by seat
    assert stick["side_win_rate"] == round((s["wins"][0] + 2 * (s["matches"] - s["wins"][0])) / (3 * s["matches"]), 3)
    # the counts are those of the records' hands, seat by seat
    counts = {"normal": 0, "yardstick": 0}
    nils = {"normal": 0, "yardstick": 0}
    for f in sorted(tmp_path.glob("match-*.json")):
        record = json.loads(f.read_text())
        match = from_record(record)
        shape = match.shape
        for r in match.results:
            over = partner_overtakes(shape, r.deal, r.bids, shape.left[r.dealer], r.plays)
            for seat, spec in enumerate(record["arena"]["seats"]):
                counts[spec] += over[seat]
                nils[spec] += r.bids[shape.partner(seat)] == 0
    for spec, figs in s["figures"].items():
        assert figs["overtook_partner_count"] == counts[spec]
        assert figs["overtook_partner"] == round(counts[spec] / figs["hands"], 3)
        assert figs["partner_nils"] == nils[spec]
        assert (figs["partner_nil_made"] is None) == (nils[spec] == 0)

    cut = arena("--seats", "normal,yardstick,yardstick,yardstick", "--rules",
                '{"partners": false, "end": "hands", "hands": 1}', "--matches", "4", "--seed", "3")
    for figs in cut["figures"].values():
        assert not PARTNER_KEYS & set(figs)
        assert "nil_made" in figs
