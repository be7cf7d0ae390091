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
never below). A card that is the only legal one (or one of a run of equivalent cards)
is not weighed: it costs nothing. From ``DD_TRICKS`` tricks left every card also gets its
double-dummy figure (``spades.bots.solver``): the hand's difference with best play by
all four, every card known.

The budget is the most a step may take: the analyst stops drawing deals once the step's
verdict is settled (``settled``: after ``SETTLE_MIN`` deals, the range of its cost,
``SETTLE_Z`` standard errors either side on the common deals, lies within one of the
verdict's bands, and a cost of an inaccuracy or more known to ``SETTLE_SE``), so a clear
step takes a few hundred deals and a close one the budget (the figures are in
docs/bots.md).

``analyse_hand(record, hand, budget_s, seed, part)`` analyses one hand of a finished record
(RECORD.md), or one of its ``PARTS`` (a run of its tricks), and returns JSON values only,
so the site runs the parts side by side in worker processes (``spades.tables.analyses``).
Steps are listed as the JSON route gives them (``index``: a bid's seat, a card's
position in ``plays``), with ``expected``, the choice's worth to the acting team (None
for a forced card), for the page's chart.

A blind nil is bid before its seat has seen a card, and the analyst has no say in it: it
is listed with cost 0.

**House rules.** A record whose rules are house rules (``Rules.house``: three players,
cutthroat, jokers, a bidding or scoring variant, spades led any time) is analysed by the
house bots' parts (``spades.bots.house`` and ``house_search``), which work at a table of
any shape, on the same seat views: a candidate's worth is the hand's points for the
acting seat's side minus the mean of the other sides' (``house_play.hand_value``: with
partners, the difference with the other team), over deals of the unseen cards
(``house_search.sample_hands``), every seat playing Normal's cards (``house_play.play_out``).
A card's candidates are one of each run of equivalent legal cards
(``house_search.candidates``), and Normal's card is the analyst's choice on a near-tie
(``house_search.TIE``); a bid's candidates are Normal's bid, one either side, the bid
made and nil, as far as the variant allows them (the view's legal bids), the later seats
bidding Normal's bids on each deal. A step whose seat had one choice (whiz and mirror
bids often) costs nothing. Costs, verdicts and ``settled`` are the standard table's;
work is counted in the house bots' card plays (``house_search.PLAYS_PER_SECOND``). The
double-dummy figures, from ``DD_TRICKS`` tricks left, are ``spades.bots.house_solver``'s:
with partners, the team's points less the other team's, as on the standard table; in
cutthroat, the most points the player can make sure of with every other player against
them. A hand's parts split it by its own size (``splits_of``: a hand of 17 tricks of
three cards, or 13 of four).

Imports: the core (records, views, rules, scoring, cards) and the bots' own modules: the
whole record is read to replay the match, and each decision is thought about from its
seat's view only.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Protocol

from ..cards import CARDS, Card, any_cards_of
from ..records import from_record
from ..rules import BIDS, BLIND_NIL, LOOK, Match, legal_mask
from ..rules_config import STANDARD_SHAPE, Shape
from ..scoring import score_hand
from ..views import seat_view
from . import bidmodel, house, house_bid, house_play, house_search, knowledge
from .deals import Deals
from .house_solver import HouseSolver, Spot
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
from .slots import bits, low, runs
from .solver import Position, Solver, equivalents

# the most work the analyst spends on a decision (a clear one stops sooner: ``settled``), in seconds of
# Hard's work count (PLAYS_PER_SECOND)
BUDGET_S = 0.4
DD_TRICKS = 7  # double-dummy figures from this many tricks left
# a hand's parts, analysed side by side: the bids (and the cards before the first of these),
# then the cards from each to the next: two tricks at a time while a card has many
# candidates and long play-outs, then three, then the last four tricks
SPLITS = (0, 8, 16, 24, 36)
PARTS = tuple(range(len(SPLITS) + 1))
SPLIT_TRICKS = tuple(c // STANDARD_SHAPE.players for c in SPLITS)  # the same splits in tricks: 0, 2, 4, 6, 9
SETTLE_Z = 2.0  # a step's deals stop once its cost, this many standard errors either side, ...
SETTLE_MIN = 128  # ... after at least this many deals, lies within one verdict's band ...
SETTLE_SE = 2.5  # ... and a cost that is not the best's is known to this standard error, in points
BID_ROUNDS = 32  # a bid's deals are drawn in up to this many rounds of its budget, settled or not after each
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


def splits_of(shape: Shape) -> tuple[int, ...]:
    """A hand's ``SPLITS`` at a table of ``shape`` (in cards played): the standard
    table's tricks, scaled to the hand's own number of tricks, times the cards a trick has.

    >>> from spades.rules_config import shape_of
    >>> splits_of(STANDARD_SHAPE) == SPLITS, splits_of(shape_of(3, False))
    (True, (0, 9, 15, 24, 36))
    """
    if shape.standard:
        return SPLITS
    return tuple(round(t * shape.tricks / STANDARD_SHAPE.tricks) * shape.players for t in SPLIT_TRICKS)


def settled(tally: Tally, made: int, default: int, tie: float) -> bool:
    """Whether the verdict on the choice ``made`` is settled by the deals drawn so far:
    at least ``SETTLE_MIN`` of them, the least the step may cost (the analyst's pick's
    lead over it, ``SETTLE_Z`` standard errors less) and the most (any candidate's lead,
    as many more) read the same verdict, and a cost marked inaccuracy or mistake is
    known to ``SETTLE_SE``. ``default`` and ``tie``: the pick's preference, as
    ``Tally.pick``."""
    if len(tally.weights) < SETTLE_MIN:
        return False
    pick = tally.pick(default, tie)
    low = error = 0.0
    if pick != made:
        lead, error = tally.lead(pick, made)
        low = lead - SETTLE_Z * error
    high = 0.0
    for c in tally.values:
        if c != made:
            lead, se = tally.lead(c, made)
            high = max(high, lead + SETTLE_Z * se)
    found = verdict(high)
    return verdict(max(0.0, low)) == found and (found == BEST or error <= SETTLE_SE)


def _next_check(n: int) -> int:
    """The number of deals at which to look again whether a step is settled (a look
    reads every deal, so they grow apart)."""
    return max(n + 64, n * 5 // 4)


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


def card_worths(known: knowledge.Known, rng: random.Random, work_limit: int,
                made: int | None = None) -> tuple[dict[int, int], Tally, int]:
    """The seat's legal cards, each mapped to the card standing for its run of
    equivalents; the candidates' worths over sampled deals; and Normal's card. With the
    card ``made``, the deals stop once its verdict is ``settled`` (else at ``work_limit``)."""
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
    check = SETTLE_MIN
    while work < work_limit:
        sampled, w, drawn = deals.next(rng)
        work += drawn
        values = {}
        for c in cands:
            result, cost = play_out_after(known, ctx, sampled, c)
            work += cost + 1
            values[c] = _points(ctx.bidding, known, ctx, result, team)
        tally.add(w, values)
        if made is not None and len(tally.weights) >= check:
            if settled(tally, reps[made], reps[default], CARD_TIE):
                break
            check = _next_check(check)
    return reps, tally, default


def bid_worths(known: knowledge.Known, rng: random.Random, work_limit: int, made: int) -> tuple[Tally, int]:
    """The worths of Hard's candidate bids and the bid ``made`` (0: nil) over sampled
    deals (``search.bid_values``, every seat playing Normal's cards, in up to
    ``BID_ROUNDS`` rounds until the verdict on ``made`` is ``settled``), and the model's
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

    ordered = sorted(cands)
    tally = Tally(ordered)
    per_round = max(1, work_limit // BID_ROUNDS)
    check = SETTLE_MIN
    for _ in range(BID_ROUNDS):
        more = bid_values(known, rng, ordered, per_round, math.inf, score, attack=False)
        for i, w in enumerate(more.weights):
            tally.add(w, {c: more.values[c][i] for c in ordered})
        if len(tally.weights) >= check:
            if settled(tally, made, base, BID_TIE):
                break
            check = _next_check(len(tally.weights))
    return tally, base


def _bid_text(value: int) -> int | str:
    return "nil" if value == 0 else value


def analyse_hand(record: dict, hand: int, budget_s: float = BUDGET_S, seed: int = 0,
                 part: int | None = None) -> dict:
    """Hand ``hand`` (from 0) of a finished match record, analysed: ``{"hand": H,
    "steps": [...]}`` with every bid (in bidding order) and every card (in play order);
    ``part`` (one of ``PARTS``): only the bids and the cards before the first of the
    hand's splits (part 0), or only the cards from one split to the next (workers share a
    hand; each part's steps are the same as the whole hand's). Raises RecordError or
    IllegalStep (``spades.records``) for a record the rules refuse, IndexError for a hand
    or a part it does not have. One walk for every shape: a house-rules record's parts
    split its hand by its own size (``splits_of``), and its steps are weighed by the house
    bots' parts (``_House``), a standard record's by the standard bots' (``_Standard``)."""
    h = record["hands"][hand]
    match = _start_of(record, hand)
    shape = match.shape
    analyst: _Analyst = _House(match, budget_s) if match.rules.house else _Standard(match, budget_s)
    cards = shape.players * shape.tricks
    splits = splits_of(shape)
    first, upto = ((0, *splits)[part], (*splits, cards)[part]) if part is not None else (0, cards)
    bids = part is None or part == 0
    steps: list[dict] = []

    def rng(kind: str, index: int) -> random.Random:
        return random.Random(f"analysis/{seed}/{hand}/{kind}/{index}")

    if match.rules.bidding:
        blind = h.get("blind") or [False] * shape.players
        seat = shape.left[match.dealer]
        for _ in shape.seats:
            bid = h["bids"][seat]
            value = 0 if bid == "nil" else int(bid)
            if blind[seat]:
                match.apply(seat, BLIND_NIL)
                if bids:
                    steps.append(_step(seat, "bid", "nil", "nil", 0.0, None, None))
                seat = shape.left[seat]
                continue
            if match.can_look(seat):
                match.apply(seat, LOOK)
            if bids:
                best, cost, expected = analyst.bid(match, seat, value, rng("bid", seat))
                steps.append(_step(seat, "bid", _bid_text(value), _bid_text(best), cost, expected, None))
            match.apply(seat, BIDS[value])
            seat = shape.left[seat]
    for index, text in enumerate(h["plays"]):
        acting = match.to_act
        assert acting is not None
        seat = acting
        card = Card.parse(text)
        if not first <= index < upto:
            match.apply(seat, card)
            continue
        chosen, cost, expected = analyst.card(match, seat, card, rng("play", index))
        dd = analyst.double_dummy(match) if shape.tricks - len(match.tricks) <= DD_TRICKS else None
        steps.append(_step(seat, "play", str(card), str(chosen), cost, expected, dd, index))
        match.apply(seat, card)
    return {"hand": hand, "steps": steps}


class _Analyst(Protocol):
    """How one kind of table weighs a step (``analyse_hand`` walks the hand): a bid's best
    bid, cost and expected worth; a card's; and the double-dummy figures of the spot."""

    def bid(self, match: Match, seat: int, value: int, rng: random.Random) -> tuple[int, float, float | None]: ...

    def card(self, match: Match, seat: int, card: Card, rng: random.Random) -> tuple[Card, float, float | None]: ...

    def double_dummy(self, match: Match) -> dict[str, int]: ...


class _Standard:
    """A standard table's steps: Hard's search on the seat's knowledge (``knowledge``),
    the bid model, and ``solver.Solver``."""

    def __init__(self, match: Match, budget_s: float) -> None:
        self.limit = max(1, int(budget_s * PLAYS_PER_SECOND))
        self.solver: Solver | None = None

    def bid(self, match: Match, seat: int, value: int, rng: random.Random) -> tuple[int, float, float | None]:
        tally, base = bid_worths(knowledge.read(seat_view(match, seat)), rng, self.limit, value)
        best = tally.pick(base, BID_TIE)
        return best, max(0.0, tally.mean(best) - tally.mean(value)), tally.mean(value)

    def card(self, match: Match, seat: int, card: Card, rng: random.Random) -> tuple[Card, float, float | None]:
        reps, tally, default = card_worths(knowledge.read(seat_view(match, seat)), rng, self.limit, card)
        if len(tally.values) == 1:
            return card, 0.0, None
        pick = tally.pick(reps[default], CARD_TIE)
        cost = max(0.0, tally.mean(pick) - tally.mean(reps[card]))
        if reps[card] == pick:
            best = card
        elif reps[default] == pick:
            best = CARDS[default]
        else:
            best = CARDS[min(c for c, r in reps.items() if r == pick)]
        return best, cost, tally.mean(reps[card])

    def double_dummy(self, match: Match) -> dict[str, int]:
        if self.solver is None:
            self.solver = Solver(match.rules, match.bids, match.blind)
        pos = Position(tuple(match.held), tuple(match.trick), match.trick_leader,  # type: ignore[arg-type]
                       tuple(match.taken), match.broken)  # type: ignore[arg-type]
        return {str(CARDS[c]): v for c, v in sorted(self.solver.card_values(pos).items())}


# -- a house-rules hand ------------------------------------------------------------------
def house_card_worths(state: house.State, rng: random.Random, work_limit: int,
                      made: int | None = None) -> tuple[dict[int, int], Tally, int]:
    """At a house-rules table: the seat's legal cards (slots), each mapped to the
    candidate standing for its run of equivalents; the candidates' worths over sampled
    deals (Normal's play-outs, ``house_play.hand_value`` for the seat's side); and Normal's
    card. With the card ``made`` (a slot), the deals stop once its verdict is ``settled``
    (else at ``work_limit`` card plays)."""
    t = state.table
    g = state.game
    assert state.hand is not None
    side = t.side_of[state.seat]
    default = house_play.normal_card(g, state.seat, state.hand, state.trick, state.leader, state.gone, state.taken,
                                state.broken, state.voids)
    reps = {c: low(r) for r in runs(t.legal(state.hand, state.trick, state.broken), house_search.live(state))
            for c in bits(r)}
    cands = sorted(set(reps.values()))  # house_search.candidates
    tally = Tally(cands)
    if len(cands) == 1:
        return reps, tally, default
    work = 0
    check = SETTLE_MIN
    while work < work_limit:
        hands = house_search.sample_hands(state, rng)
        values = {}
        for c in cands:
            taken, plays = house_play.play_out(g, hands, state.trick, state.leader, state.gone, state.taken,
                                               state.broken, state.voids, first=c)
            work += plays + 1
            values[c] = house_play.hand_value(g, taken, side)
        tally.add(1.0, values)
        if made is not None and len(tally.weights) >= check:
            if settled(tally, reps[made], reps[default], house_search.TIE):
                break
            check = _next_check(check)
    return reps, tally, default


def _later_bids(state: house.State, hands: list[int], bids: list[int | None], rng: random.Random) -> int:
    """The bids of the seats after this one, each Normal's on its dealt cards with the
    bids before it (``bids`` is filled in); the work done, in bids."""
    t = state.table
    g = state.game
    game = house.Game(t, bids, g.blind, g.scores, g.bags)
    n = t.players
    seat = t.left[state.seat]
    done = 0
    while bids[seat] is None:
        other = house.State(seat, game, state.dealer, hands[seat], [], state.leader, [0] * n, False, 0, [0] * n,
                            [0] * n, [])
        other.legal = house_bid.variant_bids(other)
        bids[seat] = house.bid_value(house_bid.bid_for(other, "normal", rng))
        seat = t.left[seat]
        done += 1
    return done


def house_bid_worths(state: house.State, rng: random.Random, work_limit: int, made: int) -> tuple[Tally, int]:
    """At a house-rules table: the worths of the candidate bids (0: nil) over sampled
    deals, the later seats bidding Normal's bids and every seat playing Normal's cards,
    until the verdict on ``made`` is ``settled`` (else ``work_limit`` card plays); and
    Normal's own bid. The candidates are Normal's bid, one either side, ``made`` and nil,
    those the view allows."""
    t = state.table
    g = state.game
    n = t.players
    side = t.side_of[state.seat]
    legal = {house.bid_value(b) for b in state.legal if b not in ("look", "blind_nil")}
    base = house.bid_value(house_bid.bid_for(state, "normal", rng))
    assert base is not None
    cands = sorted({c for c in (base - 1, base, base + 1, 0) if c in legal} | {made, base})
    tally = Tally(cands)
    if len(cands) == 1:
        return tally, base
    work = 0
    check = SETTLE_MIN
    while work < work_limit:
        hands = house_search.sample_hands(state, rng)
        values = {}
        for c in cands:
            bids = list(g.bids)
            bids[state.seat] = c
            work += _later_bids(state, hands, bids, rng)
            game = house.Game(t, bids, g.blind, g.scores, g.bags)
            taken, plays = house_play.play_out(game, hands, [], state.leader, 0, [0] * n, False, [0] * n)
            work += plays
            values[c] = house_play.hand_value(game, taken, side)
        tally.add(1.0, values)
        if len(tally.weights) >= check:
            if settled(tally, made, base, BID_TIE):
                break
            check = _next_check(check)
    return tally, base


class _House:
    """A house-rules table's steps: the house bots' parts on the seat's view
    (``house.read``), Normal's bids and play-outs, and ``house_solver.HouseSolver``."""

    def __init__(self, match: Match, budget_s: float) -> None:
        self.limit = max(1, int(budget_s * house_search.PLAYS_PER_SECOND))
        self.solver: HouseSolver | None = None

    def bid(self, match: Match, seat: int, value: int, rng: random.Random) -> tuple[int, float, float | None]:
        tally, base = house_bid_worths(house.read(seat_view(match, seat)), rng, self.limit, value)
        if len(tally.values) == 1:
            return value, 0.0, None
        best = tally.pick(base, BID_TIE)
        return best, max(0.0, tally.mean(best) - tally.mean(value)), tally.mean(value)

    def card(self, match: Match, seat: int, card: Card, rng: random.Random) -> tuple[Card, float, float | None]:
        state = house.read(seat_view(match, seat))
        t = state.table
        reps, tally, default = house_card_worths(state, rng, self.limit, t.slot(card))
        if len(tally.values) == 1:
            return card, 0.0, None
        made = reps[t.slot(card)]
        pick = tally.pick(reps[default], house_search.TIE)
        cost = max(0.0, tally.mean(pick) - tally.mean(made))
        if made == pick:
            best = card
        elif reps[default] == pick:
            best = t.card(default)
        else:
            best = t.card(pick)
        return best, cost, tally.mean(made)

    def double_dummy(self, match: Match) -> dict[str, int]:
        if self.solver is None:
            self.solver = HouseSolver(match.rules, match.bids, match.blind)
        spot = Spot(tuple(match.held), tuple(match.trick), match.trick_leader, tuple(match.taken), match.broken)
        values = self.solver.card_values(spot)
        return {str(c): values[c] for c in any_cards_of(sum(1 << c for c in values))}


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


__all__ = ["BUDGET_S", "SPLITS", "PARTS", "splits_of", "SETTLE_Z", "SETTLE_MIN", "SETTLE_SE", "settled", "DD_TRICKS",
           "INACCURACY", "MISTAKE", "verdict", "analyse_hand", "analyse", "public", "card_worths", "bid_worths",
           "house_card_worths", "house_bid_worths", "hand_count"]
