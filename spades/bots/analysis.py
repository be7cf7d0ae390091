"""The analysis of a finished match: every bid and card against what the analyst would
have done, and the double-dummy figures of the hand's end.

The analyst is Hard's search (``spades.bots.search``) with a larger budget and a fixed
seed, on what the acting seat could see at that moment (its seat view, read by
``spades.bots.knowledge``, never the other seats' cards): for a bid, the bid model's
number, one either side, nil when it has a chance, and the bid made; for a card, one
card of each run of equivalent legal cards. Each candidate is worth the hand's expected
point difference for the seat's team (its points minus the other team's, bags, nils and
the bag penalty included, no match bonus), over the same sampled deals (Hard's,
``deals.Deals``: for a card, fitting the play so far), the later seats bidding by the
model; a card's play-outs are Hard's (the seat's team plays Normal's
cards, the other team attacks), a bid's give every seat Normal's cards; the analyst's choice is the
best of them (Hard's pick, for a card; Hard itself bids by the model), and a step's cost
is the best candidate's worth less the worth of the choice made (0 when it was the best,
never below). From ``DD_TRICKS`` tricks left every card also gets its
double-dummy figure (``spades.bots.solver``): the hand's difference with best play by
all four, every card known.

``analyse_hand(record, hand, budget_s, seed)`` analyses one hand of a finished record
(RECORD.md) and returns JSON values only, so the site runs it in a worker process, hand
by hand (``spades.tables.analyses``). Steps are listed as the JSON route gives them
(``index``: a bid's seat, a card's position in ``plays``), with ``expected``, the
choice's worth to the acting team (None for a forced card), for the page's chart.

A blind nil is bid before its seat has seen a card, and the analyst has no say in it: it
is listed with cost 0.

Imports: the core (records, views, rules, scoring, cards) and the bots' own modules: the
whole record is read to replay the match, and each decision is thought about from its
seat's view only.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from ..cards import CARDS, Card
from ..records import from_record
from ..rules import BIDS, BLIND_NIL, LOOK, Match, legal_mask
from ..scoring import score_hand
from ..views import seat_view
from . import bidmodel, knowledge
from .deals import Deals
from .policy import HandCtx, play_card
from .search import (
    BID_TIE,
    CARD_TIE,
    PLAYS_PER_SECOND,
    Tally,
    apart,
    bid_values,
    nil_has_a_chance,
    play_out_after,
)
from .solver import Position, Solver, equivalents

# the analyst's work per decision, in seconds of Hard's work count (PLAYS_PER_SECOND): more than Hard's 0.5
BUDGET_S = 0.6
DD_TRICKS = 7  # double-dummy figures from this many tricks left
SPLIT = 52 - 4 * DD_TRICKS  # a hand's two parts: the bids and the cards before this one, and the rest
PARTS = (0, 1)
INACCURACY = 5.0  # a choice costing this many points or more in expectation is an inaccuracy ...
MISTAKE = 20.0  # ... and this many or more a mistake
BEST, INACCURATE, MISTAKEN = "best", "inaccuracy", "mistake"


def verdict(cost: float) -> str:
    """How a step's cost reads: ``best`` (under ``INACCURACY``), ``inaccuracy`` or ``mistake``.

    >>> verdict(0), verdict(7.5), verdict(20)
    ('best', 'inaccuracy', 'mistake')
    """
    if cost >= MISTAKE:
        return MISTAKEN
    if cost >= INACCURACY:
        return INACCURATE
    return BEST


def hand_count(record: dict) -> int:
    return len(record["hands"])


def _points(rules_bidding: bool, known: knowledge.Known, ctx: HandCtx, taken: list[int], team: int) -> float:
    """The team's points minus the other team's for a finished hand's tricks."""
    if not rules_bidding:
        return 10.0 * (taken[team] + taken[team + 2] - taken[1 - team] - taken[3 - team])
    s = score_hand(known.rules, ctx.bids, ctx.blind, taken, ctx.bags)
    return float(s.teams[team].total - s.teams[1 - team].total)


def _start_of(record: dict, hand: int) -> Match:
    """The match as it stood when hand ``hand`` (from 0) was dealt."""
    h = record["hands"][hand]
    upto = {**record, "hands": record["hands"][:hand] + [{"dealer": h["dealer"], "deal": h["deal"], "plays": []}]}
    return from_record(upto)


def card_worths(known: knowledge.Known, rng: random.Random, work_limit: int) -> tuple[dict[int, int], Tally, int]:
    """The seat's legal cards, each mapped to the card standing for its run of
    equivalents; the candidates' worths over sampled deals; and Normal's card."""
    me = known.seat
    team = me & 1
    hand = known.hand or 0
    ctx = known.ctx()
    legal = legal_mask(hand, known.trick, known.broken)
    default = play_card(ctx, me, hand, known.trick, known.leader, known.gone, known.taken, known.broken, known.voids)
    reps = equivalents(legal, apart(known, hand))
    cands = sorted(set(reps.values()))
    tally = Tally(cands)
    if len(cands) == 1:
        return reps, tally, default
    deals = Deals(known, hand, bidmodel.model())
    work = 0
    while work < work_limit:
        sampled, w, drawn = deals.next(rng)
        work += drawn
        values = {}
        for c in cands:
            result, cost = play_out_after(known, ctx, sampled, c)
            work += cost + 1
            values[c] = _points(ctx.bidding, known, ctx, result, team)
        tally.add(w, values)
    return reps, tally, default


def bid_worths(known: knowledge.Known, rng: random.Random, work_limit: int, made: int) -> tuple[Tally, int]:
    """The worths of Hard's candidate bids and the bid ``made`` (0: nil) over sampled
    deals (``search.bid_values``, every seat playing Normal's cards), and the model's
    own bid."""
    me = known.seat
    team = me & 1
    hand = known.hand or 0
    m = bidmodel.model()
    sit = known.situation()
    base = bidmodel.choose_bid(hand, sit, m)
    number = base or bidmodel.choose_bid(hand, sit, m, allow_nil=False)
    cands = {max(1, number - 1), number, min(13, number + 1), made, base}
    if nil_has_a_chance(known, m):
        cands.add(0)

    def score(ctx: HandCtx, taken: list[int]) -> float:
        return _points(True, known, ctx, taken, team)

    return bid_values(known, rng, sorted(cands), work_limit, math.inf, score, attack=False), base


def _bid_text(value: int) -> int | str:
    return "nil" if value == 0 else value


def analyse_hand(record: dict, hand: int, budget_s: float = BUDGET_S, seed: int = 0,
                 part: int | None = None) -> dict:
    """Hand ``hand`` (from 0) of a finished match record, analysed: ``{"hand": H,
    "steps": [...]}`` with every bid (in bidding order) and every card (in play order);
    ``part`` 0 or 1: only the bids and the cards before ``SPLIT``, or only the cards
    from there (two workers share a hand; each part's steps are the same as the whole
    hand's). Raises RecordError or IllegalStep (``spades.records``) for a record the
    rules refuse, IndexError for a hand it does not have."""
    h = record["hands"][hand]
    match = _start_of(record, hand)
    limit = max(1, int(budget_s * PLAYS_PER_SECOND))
    steps: list[dict] = []

    def rng(kind: str, index: int) -> random.Random:
        return random.Random(f"analysis/{seed}/{hand}/{kind}/{index}")

    if match.rules.bidding:
        blind = h.get("blind") or [False] * 4
        for seat in [(match.dealer + 1 + i) % 4 for i in range(4)]:
            bid = h["bids"][seat]
            value = 0 if bid == "nil" else int(bid)
            if blind[seat]:
                match.apply(seat, BLIND_NIL)
                if part != 1:
                    steps.append(_step(seat, "bid", "nil", "nil", 0.0, None, None))
                continue
            if match.can_look(seat):
                match.apply(seat, LOOK)
            if part == 1:
                match.apply(seat, BIDS[value])
                continue
            known = knowledge.read(seat_view(match, seat))
            tally, base = bid_worths(known, rng("bid", seat), limit, value)
            best = tally.pick(base, BID_TIE)
            cost = max(0.0, tally.mean(best) - tally.mean(value))
            steps.append(_step(seat, "bid", _bid_text(value), _bid_text(best), cost, tally.mean(value), None))
            match.apply(seat, BIDS[value])
    solver = Solver(match.rules, match.bids, match.blind)
    for index, text in enumerate(h["plays"]):
        seat = match.to_act
        assert seat is not None
        card = Card.parse(text)
        if (part == 0 and index >= SPLIT) or (part == 1 and index < SPLIT):
            match.apply(seat, card)
            continue
        known = knowledge.read(seat_view(match, seat))
        reps, tally, default = card_worths(known, rng("play", index), limit)
        if len(tally.values) == 1:
            best, cost, expected = card, 0.0, None
        else:
            pick = tally.pick(reps[default], CARD_TIE)
            cost = max(0.0, tally.mean(pick) - tally.mean(reps[card]))
            expected = tally.mean(reps[card])
            if reps[card] == pick:
                best = card
            elif reps[default] == pick:
                best = CARDS[default]
            else:
                best = CARDS[min(c for c, r in reps.items() if r == pick)]
        dd = None
        if 13 - len(match.tricks) <= DD_TRICKS:
            pos = Position(tuple(match.held), tuple(match.trick), match.trick_leader,  # type: ignore[arg-type]
                           tuple(match.taken), match.broken)  # type: ignore[arg-type]
            dd = {str(CARDS[c]): v for c, v in sorted(solver.card_values(pos).items())}
        steps.append(_step(seat, "play", str(card), str(best), cost, expected, dd, index))
        match.apply(seat, card)
    return {"hand": hand, "steps": steps}


def _step(seat: int, kind: str, action: int | str, best: int | str, cost: float, expected: float | None,
          dd: dict | None, index: int | None = None) -> dict:
    return {"index": seat if index is None else index, "seat": seat, "kind": kind, "action": action, "best": best,
            "cost": round(cost, 1), "double_dummy": dd,
            "expected": None if expected is None else round(expected, 1)}


def analyse(record: dict, budget_s: float = BUDGET_S, seed: int = 0,
            progress: Callable[[float], None] | None = None) -> list[dict]:
    """Every hand of a finished record, analysed in order (``analyse_hand`` each)."""
    out = []
    n = hand_count(record)
    for hand in range(n):
        out.append(analyse_hand(record, hand, budget_s, seed))
        if progress is not None:
            progress((hand + 1) / n)
    return out


PUBLIC_STEP_KEYS = ("index", "seat", "kind", "action", "best", "cost", "double_dummy")


def public(hands: list[dict]) -> list[dict]:
    """The hands as the JSON route gives them: each step with exactly its public keys."""
    return [{"hand": h["hand"], "steps": [{k: s[k] for k in PUBLIC_STEP_KEYS} for s in h["steps"]]}
            for h in hands]


__all__ = ["BUDGET_S", "SPLIT", "PARTS", "DD_TRICKS", "INACCURACY", "MISTAKE", "verdict", "analyse_hand", "analyse",
           "public", "card_worths", "bid_worths", "hand_count"]
