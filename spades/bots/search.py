"""The Hard bot's search: sample the unseen cards, play each sample out, keep the best.

For a card decision: deal the cards the seat cannot see to the other seats at random,
consistent with what is known (the cards each still holds, the voids they showed) and
weighted by how well each sample fits the bids that were made, and once the other seats
have played, by how well it fits their cards too (``deals.Deals``: a chain of deals in which
each card another seat played is the one Normal's play would choose, but for a factor
``deals.READ_MISS`` a card; against Normal the true deal fits every card but those of its
search against a nil, and a seat that plays otherwise costs a factor, not the deal);
for every sample and every candidate card, play the rest of the hand out, the seat's
team with the Normal heuristics (``policy.play_card``) and the other team with the
attacking play of ``punisher.play_card`` (``ATTACKERS``); score the result as match
value (hand score difference with bags, the bag penalty and nils, plus a bonus when the
hand ends the match, and while the match has hands to go each bag's share of the
penalty to come: ``bag_debt``); pick the card with the best weighted mean. The same
samples serve every candidate (common random numbers), which keeps the comparison fair
at few samples.

Normal's card is the default, and near-ties go to it. With few samples (under
``FEW_SAMPLES``, a small budget under load), another candidate replaces it only when its
paired lead over the samples is larger than ``DEVIATE_Z`` standard errors, so the search
falls back to Normal's judgement instead of following noise; with many, the best mean
wins (the same rule there cost strength in the arena, so it is not used). The search
never stops before its work count: the values are heavy-tailed (a set, a broken nil, the
match bonus), and a few samples that happen to miss the rare swing make a lead look
settled when it is not.

The other team attacks in the play-outs because good opponents do: they break a nil and
set a close contract harder than Normal plays, and a search whose opponents play like
Normal takes risks that they punish (with Normal's play for all four, Hard was set in
10.1% of its hands against ``punisher``, Normal in 8.0%; docs/bots.md). Normal's short
search against a nil (``spades.bots``) keeps Normal's play for all four (``attack``
False): with the attacking play-outs it won 4,851 of 8,000 matches against
``punisher``, 49 fewer.

Hard bids by the bid model, as Normal does (``spades.bots``), but for one choice: where a
nil has a chance, nil and the model's best number are weighed by play-outs from the
first lead (``choose_bid``: the rest of the bidding completed by the model on each
sampled deal, the other team attacking, valued as a card's play-outs are). The numbers
either side of the model's, searched the same way, were set more often and won fewer
matches; with every seat playing Normal's cards they were set more often still
(docs/bots.md). The analysis weighs every candidate bid by ``bid_values`` too.

From ``EXACT_TRICKS`` tricks left, where the double-dummy solver (``spades.bots.solver``,
the analysis's) answers a deal in a few milliseconds, each sampled deal is solved
exactly instead of played out: every candidate's match value with best play by all four
(``ending_solver``, ``solved_values``); a node of the solver counts as ``NODE_WORK`` card
plays. A small budget (the scheduler's under load) solves from fewer tricks left: only
where it holds ``EXACT_DEALS`` solved deals (``solves_exactly``).

Work is counted in simulated card plays, not seconds, so that a decision is the same
for the same (view, seed) on any machine; the wall-clock budget is only a safety stop
(when it cuts a search short, the result may depend on the machine's load).

Imports: ``spades.cards``, ``spades.rules`` (the legal-card rule), ``spades.scoring`` and the
bots' own modules only (the solver and ``punisher`` among them).
"""

from __future__ import annotations

import math
import random
import time
import types
from collections.abc import Callable

from ..cards import FULL_MASK, SUIT_MASKS, cards_of, mask_of
from ..rules import legal_mask
from ..scoring import score_hand
from . import bidmodel, punisher
from .bidmodel import Situation
from .deals import Deals, Sampler, draw
from .knowledge import Known
from .policy import HandCtx, play_card, trick_winner
from .solver import Position, Solver


def _probe() -> None:
    """A function, to tell whether this module runs compiled (``native``)."""


# this module, and the bots' other hot modules with it, runs compiled (``native``)
COMPILED = not isinstance(_probe, types.FunctionType)
# Simulated card plays per second of budget, measured on the project machine (2 shared
# cores) for the Python source and for the compiled modules (about 3.4 times as fast); it
# turns a time budget into a fixed amount of work.
PLAYS_PER_SECOND = 1_200_000 if COMPILED else 350_000
MATCH_WIN_BONUS = 400  # match value of winning the match with this hand, in points


def playout(ctx: HandCtx, hands: list[int], trick: list[int], leader: int, gone: int,
            taken: list[int], broken: bool, players: tuple | None = None) -> tuple[list[int], int]:
    """Play the hand to its end with the Normal heuristics; (tricks taken, plays made).
    ``players``, when given, is each seat's card play (``policy.play_card``'s signature),
    told the voids shown in this play-out."""
    hands = hands[:]
    trick = trick[:]
    taken = taken[:]
    done = taken[0] + taken[1] + taken[2] + taken[3]
    plays = 0
    voids = [0, 0, 0, 0]
    while done < 13:
        seat = (leader + len(trick)) & 3
        if players is None:
            c = play_card(ctx, seat, hands[seat], trick, leader, gone, taken, broken)
        else:
            c = players[seat](ctx, seat, hands[seat], trick, leader, gone, taken, broken, voids)
            if trick and c // 13 != trick[0] // 13:
                voids[seat] |= 1 << (trick[0] // 13)
        plays += 1
        hands[seat] &= ~(1 << c)
        gone |= 1 << c
        trick.append(c)
        if len(trick) == 4:
            winner = (leader + trick_winner(trick)) & 3
            taken[winner] += 1
            done += 1
            if not broken and (trick[0] < 13 or trick[1] < 13 or trick[2] < 13 or trick[3] < 13):
                broken = True
            trick = []
            leader = winner
    return taken, plays


def hand_value(known: Known, ctx: HandCtx, taken: list[int], team: int, final_hand: bool,
               debt: float = 0.0) -> float:
    """Match value for ``team`` of a finished hand: the point difference it makes, plus a
    bonus or malus when the hand ends the match; when it does not, each team's bags of
    the hand are charged ``debt`` points each (``bag_debt``) and a penalty paid is given
    back, so that a bag costs the same whether or not it is the tenth."""
    if not ctx.bidding:
        mine = 10 * (taken[team] + taken[team + 2])
        theirs = 130 - mine
        grown = 0
    else:
        s = score_hand(known.rules, ctx.bids, ctx.blind, taken, ctx.bags)
        mine = s.teams[team].total
        theirs = s.teams[1 - team].total
        # the hand's bags less ten for each penalty paid, ours less theirs
        grown = (s.teams[team].bags_after - ctx.bags[team]) - (s.teams[1 - team].bags_after - ctx.bags[1 - team])
    value = float(mine - theirs)
    a = known.scores[team] + mine
    b = known.scores[1 - team] + theirs
    target = ctx.target
    if (target is not None and max(a, b) >= target) or final_hand:
        if a > b:
            value += MATCH_WIN_BONUS
        elif b > a:
            value -= MATCH_WIN_BONUS
    else:
        value -= debt * grown
    return value


BAG_DEBT = 10.0  # a bag's share of the penalty it leads to: 100 points for ten


def bag_debt(known: Known) -> float:
    """Points each bag of the hand is charged in a play-out's value besides its point:
    ``BAG_DEBT`` under the bag penalty while the match is not near its end (the bid
    model's rule, ``bidmodel.near_end``), else nothing. Counting a bag at one point, the
    search took overtricks freely, and Hard's team collected more bags than any opponent
    (1.3-1.4 a hand; docs/bots.md)."""
    if not known.rules.bag_penalty or not known.rules.bidding or bidmodel.near_end(known.situation()):
        return 0.0
    return BAG_DEBT


DEVIATE_Z = 1.0  # with few samples, standard errors a candidate must lead the default by
FEW_SAMPLES = 64  # samples under which a candidate must lead the default by DEVIATE_Z
CARD_TIE = 0.5  # points of preference for Normal's card


class Tally:
    """Each candidate's value on every sample, and the samples' weights: the means, and
    the paired comparisons the common samples allow."""

    def __init__(self, cands: list[int]) -> None:
        self.values: dict[int, list[float]] = {c: [] for c in cands}
        self.weights: list[float] = []

    def add(self, w: float, values: dict[int, float]) -> None:
        self.weights.append(w)
        for c, v in values.items():
            self.values[c].append(v)

    def mean(self, c: int) -> float:
        return sum((w * v for w, v in zip(self.weights, self.values[c])), 0.0) / sum(self.weights, 0.0)

    def lead(self, a: int, b: int) -> tuple[float, float]:
        """How much ``a`` is worth more than ``b`` on the same samples: (mean, standard error)."""
        ws = self.weights
        total = sum(ws, 0.0)
        diffs = [x - y for x, y in zip(self.values[a], self.values[b])]
        mean = sum((w * d for w, d in zip(ws, diffs)), 0.0) / total
        var = sum((w * (d - mean) ** 2 for w, d in zip(ws, diffs)), 0.0) / total
        n_eff = total * total / sum((w * w for w in ws), 0.0)
        return mean, math.sqrt(var / max(1.0, n_eff - 1.0))

    def pick(self, default: int, tie: float) -> int:
        """The best mean, ``default`` counting ``tie`` points more; with fewer than
        ``FEW_SAMPLES`` samples, ``default`` unless the best leads it by ``DEVIATE_Z``
        standard errors."""
        best = max(self.values, key=lambda c: self.mean(c) + (tie if c == default else 0.0))
        if best == default or default not in self.values or len(self.weights) >= FEW_SAMPLES:
            return best
        m, se = self.lead(best, default)
        return best if m > DEVIATE_Z * se else default


# each team's card play in a play-out, by the team of the seat deciding: its own team
# plays Normal's cards, the other team attacks (breaks nils, sets close contracts)
ATTACKERS = tuple(tuple(play_card if s & 1 == team else punisher.play_card for s in range(4)) for team in (0, 1))
ATTACK_WORK = 1.4  # a card of such a play-out counts as this many card plays of work (measured)


def play_out_after(known: Known, ctx: HandCtx, sampled: list[int], card: int,
                   attack: bool = True) -> tuple[list[int], int]:
    """The seat to act plays ``card`` in the sampled deal and everyone plays the hand out
    (``playout``; with ``attack``, the other team attacking: ``ATTACKERS``): the tricks
    each seat took, and the work of the cards played after ``card`` (``ATTACK_WORK``
    each with ``attack``, else 1)."""
    hands = sampled[:]
    hands[known.seat] &= ~(1 << card)
    trick = known.trick + [card]
    taken = known.taken[:]
    leader = known.leader
    broken = known.broken
    if len(trick) == 4:
        winner = (leader + trick_winner(trick)) & 3
        taken[winner] += 1
        broken = broken or any(x < 13 for x in trick)
        trick = []
        leader = winner
    players = ATTACKERS[known.seat & 1] if attack else None
    result, plays = playout(ctx, hands, trick, leader, known.gone | 1 << card, taken, broken, players)
    return result, int(plays * ATTACK_WORK) if attack else plays


EXACT_TRICKS = 5  # from this many tricks left (the one in progress included), each deal is solved exactly ...
NODE_WORK = 2  # a node of the solver counts as this many card plays (measured: it takes about twice as long)
# ... when the budget holds EXACT_DEALS deals at the typical work of one solved deal with
# that many tricks left (the median nodes of a solve, measured, times NODE_WORK)
SOLVE_WORK = {1: 10, 2: 50, 3: 250, 4: 1_000, 5: 4_000}
EXACT_DEALS = 32


def solves_exactly(tricks_left: int, limit: int) -> bool:
    """Whether the sampled deals are solved exactly: ``tricks_left`` at most
    ``EXACT_TRICKS`` and the work ``limit`` enough for ``EXACT_DEALS`` solved deals."""
    return tricks_left <= EXACT_TRICKS and limit >= EXACT_DEALS * SOLVE_WORK[tricks_left]


def ending_solver(known: Known, ctx: HandCtx, final_hand: bool, debt: float = 0.0) -> Solver:
    """The double-dummy solver of the hand's end on match value (``hand_value``: the bag
    penalty, the bags' ``debt`` and the match bonus included), from team 0's side; one per
    decision, so its table serves every sampled deal."""
    def score(taken: tuple[int, ...]) -> int:
        return round(hand_value(known, ctx, list(taken), 0, final_hand, debt))

    return Solver(known.rules, ctx.bids, ctx.blind, score)


def solved_values(known: Known, solver: Solver, sampled: list[int], cands: list[int],
                  team: int) -> tuple[dict[int, float], int]:
    """Each candidate's match value for ``team`` in the sampled deal with best play by all
    four from there, and the solver's nodes searched (its work)."""
    pos = Position((sampled[0], sampled[1], sampled[2], sampled[3]), tuple(known.trick), known.leader,
                   (known.taken[0], known.taken[1], known.taken[2], known.taken[3]), known.broken)
    sign = 1 if team == 0 else -1
    before = solver.nodes
    values = {c: float(sign * solver.value(pos.play(c))) for c in cands}
    return values, solver.nodes - before


def apart(known: Known, hand: int) -> int:
    """The cards that keep two of the hand's cards from being equivalent: those another
    seat may hold, and those on the trick (holding K and J with the Q played to this
    trick, the king wins it and the jack does not, although the queen is gone)."""
    return (FULL_MASK & ~known.gone & ~hand) | mask_of(known.trick)


def _candidates(legal: int, others: int) -> list[int]:
    """One card of each run of equivalent legal cards (none of ``others`` between them)."""
    out = []
    for s in range(4):
        part = legal & SUIT_MASKS[s]
        prev = -2
        for c in cards_of(part):
            # equivalent to the previous candidate if every card between is ours or gone
            between = SUIT_MASKS[s] & ((1 << c) - 1) & ~((2 << prev) - 1) if prev >= 0 else -1
            if prev >= 0 and not (others & between):
                prev = c
                continue
            out.append(int(c))
            prev = c
    return out


def choose_card(known: Known, rng: random.Random, budget_s: float, deadline: float,
                default: int | None = None, attack: bool = True, bags: bool = True, read: bool = True) -> int:
    """The Hard bot's card (an int) for the seat to act; ``default`` is the card near-ties
    go to (Normal's card for the play-outs, ``play_card`` without ``keep_lead``, when not
    given); ``attack``: the other team attacks in the play-outs (``play_out_after``);
    ``bags``: a bag costs its share of the coming penalty (``bag_debt``), else its point;
    ``read``: the deals fit the other seats' play (``Deals``), not only their bids."""
    return search_card(known, rng, budget_s, deadline, default, attack, bags, read)[0]


def search_card(known: Known, rng: random.Random, budget_s: float, deadline: float,
                default: int | None = None, attack: bool = True,
                bags: bool = True, read: bool = True) -> tuple[int, Tally | None]:
    """``choose_card``'s card and the tally it chose from: each candidate's value on every
    sample (None when only one run of equivalent cards is legal)."""
    me = known.seat
    team = me & 1
    hand = known.hand or 0
    ctx = known.ctx()
    legal = legal_mask(hand, known.trick, known.broken)
    if default is None:
        default = play_card(ctx, me, hand, known.trick, known.leader, known.gone, known.taken,
                            known.broken, known.voids)
    kept_apart = apart(known, hand)
    cands = _candidates(legal, kept_apart)
    if len(cands) == 1:
        return default, None
    rules = known.rules
    final_hand = rules.end == "hands" and _hand_number(known) >= rules.hands
    tally = Tally(cands)
    work = 0
    limit = max(1, round(budget_s * PLAYS_PER_SECOND))
    deals = Deals(known, hand, bidmodel.model(), read)
    debt = bag_debt(known) if bags else 0.0
    solver = ending_solver(known, ctx, final_hand, debt) if solves_exactly(13 - sum(known.taken), limit) else None
    while True:
        sampled, w, drawn = deals.next(rng)
        work += drawn
        if solver is not None:
            values, nodes = solved_values(known, solver, sampled, cands, team)
            work += NODE_WORK * nodes
        else:
            values = {}
            for c in cands:
                result, cost = play_out_after(known, ctx, sampled, c, attack)
                work += cost + 1
                values[c] = hand_value(known, ctx, result, team, final_hand, debt)
        tally.add(w, values)
        if work >= limit or time.monotonic() > deadline:
            break
    rep = candidate_for(default, cands, kept_apart)
    best = tally.pick(rep, CARD_TIE)
    return (default if best == rep else best), tally


MODEL_BID_WORK = 10  # a model bid inside a sample counts as this many card plays of work (measured)
BID_TIE = 1.0  # points of preference for the model's bid
NIL_FLOOR = 0.35  # the model's chance of a nil from which nil is searched against the number


def bid_values(known: Known, rng: random.Random, cands: list[int], work_limit: int, deadline: float,
               score: Callable[[HandCtx, list[int]], float], attack: bool) -> Tally:
    """Each candidate bid's (0: nil) value for the seat to bid over the same sampled deals
    (weighted by the bids made, as for a card): the later seats bid by the model on each
    deal, the hand is played out from its first lead (with ``attack``, the other team
    attacking: ``ATTACKERS``; else every seat plays Normal's cards) and ``score(ctx,
    taken)`` values the tricks taken. Stops at ``work_limit`` or ``deadline``."""
    me = known.seat
    hand = known.hand or 0
    m = bidmodel.model()
    sit = known.situation()
    order = [(known.dealer + 1 + i) % 4 for i in range(4)]
    later = order[order.index(me) + 1:]
    base_ctx = known.ctx()
    leader = (known.dealer + 1) % 4
    players = ATTACKERS[me & 1] if attack else None
    per_play = ATTACK_WORK if attack else 1.0
    tally = Tally(cands)
    sampler = Sampler(me, [13, 13, 13, 13], FULL_MASK & ~hand, [0, 0, 0, 0])
    work = 0
    while True:
        sampled, w, drawn = draw(known, sampler, rng, hand, m)
        work += drawn
        dists = {s: m.dist(sampled[s]) for s in later}
        values = {}
        for c in cands:
            bids = list(known.bids)
            bids[me] = c
            for s in later:
                later_sit = Situation(s, bids, known.rules, sit.scores, sit.bags, known.dealer, sit.final_hand)
                bids[s] = bidmodel.choose_bid(sampled[s], later_sit, m, dists[s])
                work += MODEL_BID_WORK
            ctx = HandCtx(True, bids, list(known.blind), base_ctx.scores, base_ctx.bags,
                          base_ctx.bag_penalty, base_ctx.target)
            result, plays = playout(ctx, sampled, [], leader, 0, [0, 0, 0, 0], False, players)
            work += int(plays * per_play)
            values[c] = score(ctx, result)
        tally.add(w, values)
        if work >= work_limit or time.monotonic() > deadline:
            return tally


def nil_has_a_chance(known: Known, m: bidmodel.BidModel) -> bool:
    """Whether the seat to bid may weigh a nil: its partner has not bid nil and the model
    gives its nil a chance of ``NIL_FLOOR`` or more."""
    return known.bids[known.seat ^ 2] != 0 and m.nil_chance(known.hand or 0, known.leader == known.seat) >= NIL_FLOOR


def choose_bid(known: Known, rng: random.Random, budget_s: float, deadline: float) -> int:
    """The Hard bot's bid (0 for nil) for the seat to bid, which has looked: the bid
    model's, except that where a nil has a chance (``NIL_FLOOR``) and the partner has not
    bid nil, nil and the model's best number are weighed against each other by play-outs
    (``bid_values``: the other team attacking, valued as a card's play-outs are), the
    model's choice keeping near-ties (``BID_TIE``). Only that choice is searched: the
    numbers either side of the model's were set more often and won fewer matches
    (docs/bots.md)."""
    me = known.seat
    hand = known.hand or 0
    m = bidmodel.model()
    sit = known.situation()
    base = bidmodel.choose_bid(hand, sit, m)
    if known.bids[me ^ 2] == 0 or not (base == 0 or nil_has_a_chance(known, m)):
        return base
    number = base or bidmodel.choose_bid(hand, sit, m, allow_nil=False)
    team = me & 1
    debt = bag_debt(known)

    def score(ctx: HandCtx, taken: list[int]) -> float:
        return hand_value(known, ctx, taken, team, sit.final_hand, debt)

    limit = max(1, round(budget_s * PLAYS_PER_SECOND))
    tally = bid_values(known, rng, [number, 0], limit, deadline, score, attack=True)
    return tally.pick(base, BID_TIE)


def candidate_for(card: int, cands: list[int], others: int) -> int:
    """The candidate standing for ``card`` (the lowest of its run of equivalent cards)."""
    rep = card
    for c in cands:
        if c // 13 == card // 13 and c <= card:
            between = SUIT_MASKS[c // 13] & ((1 << card) - 1) & ~((2 << c) - 1)
            if not (others & between):
                return c
    return rep


def _hand_number(known: Known) -> int:
    return known.hand_number
