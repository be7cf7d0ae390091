"""The arena's figures (``spades.arena`` plays the matches and documents each key): the
results of one match (``MatchResult`` for two teams, ``SeatsResult`` for one bot per
seat), the summary objects made of them (``summarize``, ``summarize_seats``) with their
figures per team or SPEC, and what the partner figures count from a hand's deal and
plays (``hand_tricks``, ``partner_overtakes``).

Imports: the core (``spades.cards``, ``spades.rules``, ``spades.rules_config``) and the
stdlib.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from .cards import SPADES, any_cards_of, mask_of
from .rules import shape_legal_mask
from .rules_config import Shape


@dataclass
class MatchResult:
    """One match's figures, by team (team = which SPEC: 0 is ``--team0``)."""

    winner: int | None
    hand_points: list[list[int]] = field(default_factory=lambda: [[], []])
    decision_ms: list[list[float]] = field(default_factory=lambda: [[], []])
    replaced: list[int] = field(default_factory=lambda: [0, 0])
    # per team, one row per hand: (contract or None, team tricks, set, bags, penalised,
    # nil bids, nils made, blind nil bids, blind nils made)
    hand_rows: list[list[tuple]] = field(default_factory=lambda: [[], []])
    record: dict | None = None  # the match's record, when the run writes records


@dataclass
class SeatsResult:
    """One match of the ``--seats`` form, by SPEC (``k`` indexes the run's distinct SPECs)."""

    lineup: tuple[int, ...]  # the SPEC of each seat
    won_seats: tuple[int, ...]  # the seats of the winning side; () when it ended level
    winners: tuple[int, ...]  # the SPECs with a seat on the winning side; () when it ended level
    tied: tuple[int, ...]  # the SPECs with a seat among the level leaders, when it ended level
    hands: int
    hand_points: list[list[int]]  # per SPEC, one per seat and hand: the side's hand score
    decision_ms: list[list[float]]
    replaced: list[int]
    # per SPEC, one row per seat and hand: (the seat's number bid or None, its tricks, the
    # side's contract set (None: no contract), the side's bags, penalised, the seat's nil
    # bids, nils made, blind nil bids, blind nils made)
    hand_rows: list[list[tuple]]
    sides: float  # the share of the sides the first SPEC sat in
    record: dict | None = None
    partners: bool = False  # a partners table: the partner figures below are kept
    # per SPEC, one row per seat and hand (like ``hand_rows``), at a partners table only:
    # (the partner's nil bids (blind included), of them made, the seat's needless
    # overtakes of its partner, ``partner_overtakes``)
    partner_rows: list[list[tuple]] = field(default_factory=list)
    # per SPEC, over its seats of the match: the seats whose side won, and the seats whose
    # side was not among the level leaders of a draw
    side_won: list[int] = field(default_factory=list)
    side_decided: list[int] = field(default_factory=list)


def beats(shape: Shape, card: int, win: int) -> bool:
    """Whether ``card``, played to a trick that ``win`` is winning so far, takes the lead
    from it: a higher card of its suit (the shape's order), or a trump on a card that is
    not one (the rule of ``Match._play``)."""
    suit_of = shape.suit_of
    if suit_of[card] == suit_of[win]:
        return shape.power[card] > shape.power[win]
    return suit_of[card] == SPADES


def hand_tricks(shape: Shape, deal: Sequence[Sequence[int]], leader: int, plays: Sequence[int],
                lead_any: bool = False) -> Iterator[tuple[int, tuple[int, ...], list[int], list[int]]]:
    """The tricks of a hand from its deal, its first leader and its cards in the order
    played (``HandResult.plays``, or a hand under way: ``Match.plays``, whose last trick
    may be short): per trick its leader, its cards, the winning position after each card
    (an index into the cards), and each card's legal cards as a mask (the engine's
    ``shape_legal_mask`` on the cards the seat held then)."""
    held = [mask_of(cards) for cards in deal]
    broken = False
    n = shape.players
    for start in range(0, len(plays), n):
        trick = tuple(plays[start:start + n])
        win = 0
        winning: list[int] = []
        legal: list[int] = []
        seat = leader
        for i, card in enumerate(trick):
            legal.append(shape_legal_mask(shape, held[seat], trick[:i], broken, lead_any))
            held[seat] &= ~(1 << card)
            if i and beats(shape, card, trick[win]):
                win = i
            winning.append(win)
            seat = shape.left[seat]
        yield leader, trick, winning, legal
        if len(trick) == n:
            if shape.trump_mask >> trick[win] & 1:  # a trump won: spades are broken
                broken = True
            leader = _seat_at(shape, leader, win)


def partner_overtakes(shape: Shape, deal: Sequence[Sequence[int]], bids: Sequence[int | None], leader: int,
                      plays: Sequence[int], lead_any: bool = False) -> list[int]:
    """Per seat, the cards it played in the hand that needlessly beat its partner's
    winning card (the module's docstring, ``overtook_partner``): the partner's card was
    winning the trick so far, the card beats it though the seat held a legal card that
    would not, neither the partner nor the seat bid nil (blind nil included), and no card
    played after it in the trick beat the partner's card. All zero in cutthroat."""
    counts = [0] * shape.players
    for first, trick, winning, legal in hand_tricks(shape, deal, leader, plays, lead_any):
        seat = first
        for i, card in enumerate(trick):
            partner = shape.partner(seat)
            if i and partner is not None and bids[seat] != 0 and bids[partner] != 0:
                w = winning[i - 1]
                best = trick[w]
                if (_seat_at(shape, first, w) == partner and beats(shape, card, best)
                        and any(not beats(shape, c, best) for c in any_cards_of(legal[i]))
                        and not any(beats(shape, later, best) for later in trick[i + 1:])):
                    counts[seat] += 1
            seat = shape.left[seat]
    return counts


def _seat_at(shape: Shape, leader: int, position: int) -> int:
    seat = leader
    for _ in range(position):
        seat = shape.left[seat]
    return seat


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``wins / n``."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _percentile(values: list[float], q: float) -> float:
    """A percentile in milliseconds, to a tenth (Normal decides in well under one)."""
    if not values:
        return 0.0
    v = sorted(values)
    return round(v[min(len(v) - 1, int(q * len(v)))], 2)


def summarize(results: list[MatchResult]) -> dict:
    """The summary object of BOTS.md."""
    wins = [sum(1 for r in results if r.winner == t) for t in (0, 1)]
    draws = sum(1 for r in results if r.winner is None)
    decided = wins[0] + wins[1]
    lo, hi = wilson(wins[0], decided)
    ppm = []
    for t in (0, 1):
        pts = [p for r in results for p in r.hand_points[t]]
        ppm.append(round(sum(pts) / len(pts), 1) if pts else 0.0)
    times = [[ms for r in results for ms in r.decision_ms[t]] for t in (0, 1)]
    margins = [[a - b for r in results for a, b in zip(r.hand_points[t], r.hand_points[1 - t])] for t in (0, 1)]
    return {
        "matches": len(results),
        "wins": wins,
        "draws": draws,
        "win_rate": round(wins[0] / decided, 3) if decided else 0.0,
        "ci95": [round(lo, 3), round(hi, 3)],
        "points_per_hand": ppm,
        "decision_ms": {f"team{t}": {"p50": _percentile(times[t], 0.5), "p95": _percentile(times[t], 0.95)}
                        for t in (0, 1)},
        "replaced": [sum(r.replaced[t] for r in results) for t in (0, 1)],
        "figures": {f"team{t}": figures([row for r in results for row in r.hand_rows[t]], len(results), ppm[t],
                                        [row for r in results for row in r.hand_rows[1 - t]],
                                        margins[t])
                    for t in (0, 1)},
    }


def summarize_seats(results: list[SeatsResult], seats: list[str], specs: tuple[str, ...]) -> dict:
    """The summary object of the ``--seats`` form (the module's docstring says each key)."""
    k_count = len(specs)
    wins = [sum(1 for r in results if k in r.winners) for k in range(k_count)]
    tied = [sum(1 for r in results if k in r.tied) for k in range(k_count)]
    decided = len(results) - tied[0]
    lo, hi = wilson(wins[0], decided)
    ppm = []
    for k in range(k_count):
        pts = [p for r in results for p in r.hand_points[k]]
        ppm.append(round(sum(pts) / len(pts), 1) if pts else 0.0)
    times = [[ms for r in results for ms in r.decision_ms[k]] for k in range(k_count)]
    seat_matches = [sum(r.lineup.count(k) for r in results) for k in range(k_count)]
    figs = {spec: seat_figures([row for r in results for row in r.hand_rows[k]], seat_matches[k], ppm[k])
            for k, spec in enumerate(specs)}
    if results and results[0].partners:
        for k, spec in enumerate(specs):
            figs[spec].update(partner_figures([row for r in results for row in r.partner_rows[k]],
                                              sum(r.side_won[k] for r in results),
                                              sum(r.side_decided[k] for r in results)))
    return {
        "matches": len(results),
        "seats": list(seats),
        "specs": list(specs),
        "rotations": len(seats),
        "wins": wins,
        "draws": sum(1 for r in results if not r.winners),
        "tied": tied,
        "win_rate": round(wins[0] / decided, 3) if decided else 0.0,
        "ci95": [round(lo, 3), round(hi, 3)],
        "even_rate": round(sum(r.sides for r in results) / len(results), 3) if results else 0.0,
        "points_per_hand": ppm,
        "decision_ms": {spec: {"p50": _percentile(times[k], 0.5), "p95": _percentile(times[k], 0.95)}
                        for k, spec in enumerate(specs)},
        "replaced": [sum(r.replaced[k] for r in results) for k in range(k_count)],
        "figures": figs,
    }


def _share(part: float, whole: float, digits: int = 3) -> float | None:
    return round(part / whole, digits) if whole else None


def _bags_and_nils(rows: list[tuple], matches: int) -> dict:
    """The bag and nil figures of a team's or a SPEC's hand rows (the two row layouts
    share columns 3-8: bags, bag penalties, nils bid and made, blind nils bid and made)
    over ``matches``."""
    share = _share
    nils, blinds = sum(row[5] for row in rows), sum(row[7] for row in rows)
    return {
        "bags_per_hand": share(sum(row[3] for row in rows), len(rows), 2),
        "bag_penalties_per_match": share(sum(row[4] for row in rows), matches, 2),
        "nil_bids_per_hand": share(nils, len(rows)),
        "nil_made": share(sum(row[6] for row in rows), nils),
        "blind_nil_bids_per_hand": share(blinds, len(rows)),
        "blind_nil_made": share(sum(row[8] for row in rows), blinds),
    }


def figures(rows: list[tuple], matches: int, points_per_hand: float, theirs: list[tuple],
            margins: list[int]) -> dict:
    """One team's figures over its hands' rows (see ``MatchResult.hand_rows``); ``theirs``,
    the other team's rows of the same hands, tell what the team did to it: the share of
    its nils (blind nils included) the team broke and of its contracts the team set.
    ``margins`` (the team's points less the other team's, hand by hand) give ``by_hand``:
    for the hands where neither team, only this one, only the other or both bid nil (blind
    nils included), their share of the hands and the team's average margin in them."""
    share = _share
    kinds: dict[str, list[int]] = {"no_nil": [], "our_nil": [], "their_nil": [], "both_nil": []}
    for ours, other, margin in zip(rows, theirs, margins):
        we, they = bool(ours[5] + ours[7]), bool(other[5] + other[7])
        kinds["both_nil" if we and they else "our_nil" if we else "their_nil" if they else "no_nil"].append(margin)

    contracted = [row for row in rows if row[0] is not None]
    their_contracts = [row for row in theirs if row[0] is not None]
    their_nils = sum(row[5] + row[7] for row in theirs)
    return {
        "hands": len(rows),
        "set_rate": share(sum(row[2] for row in contracted), len(contracted)),
        "avg_contract": share(sum(row[0] for row in contracted), len(contracted), 2),
        "avg_tricks": share(sum(row[1] for row in contracted), len(contracted), 2),
        **_bags_and_nils(rows, matches),
        "points_per_hand": points_per_hand,
        "nils_busted": share(their_nils - sum(row[6] + row[8] for row in theirs), their_nils),
        "sets_caused": share(sum(row[2] for row in their_contracts), len(their_contracts)),
        "by_hand": {kind: {"share": share(len(m), len(rows)), "margin": share(sum(m), len(m), 2)}
                    for kind, m in kinds.items()},
    }


def seat_figures(rows: list[tuple], seat_matches: int, points_per_hand: float) -> dict:
    """One SPEC's figures over its seats' hands (see ``SeatsResult.hand_rows``);
    ``seat_matches`` counts the seats it played, match by match."""
    share = _share
    with_contract = [row for row in rows if row[2] is not None]
    numbered = [row for row in rows if row[0] is not None]
    return {
        "hands": len(rows),
        "points_per_hand": points_per_hand,
        "set_rate": share(sum(row[2] for row in with_contract), len(with_contract)),
        "avg_bid": share(sum(row[0] for row in numbered), len(numbered), 2),
        "avg_tricks": share(sum(row[1] for row in numbered), len(numbered), 2),
        **_bags_and_nils(rows, seat_matches),
    }


def partner_figures(rows: list[tuple], side_won: int, side_decided: int) -> dict:
    """One SPEC's partner figures at a partners table, over its seats' hands (see
    ``SeatsResult.partner_rows``), and its seats' matches: ``side_won`` of the
    ``side_decided`` seats not on a level side won by their side."""
    share = _share
    nils = sum(row[0] for row in rows)
    overtook = sum(row[2] for row in rows)
    return {
        "partner_nils": nils,
        "partner_nil_made": share(sum(row[1] for row in rows), nils),
        "overtook_partner": share(overtook, len(rows)),
        "overtook_partner_count": overtook,
        "side_win_rate": round(side_won / side_decided, 3) if side_decided else 0.0,
    }
