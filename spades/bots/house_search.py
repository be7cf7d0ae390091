"""Hard's card at a house-rules table: determinized Monte Carlo over the unseen cards; and
``choose``, the action of each level at such a table (``spades.bots.choose`` hands it the view).

For a card decision: deal the cards the seat cannot see to the other seats at random,
consistent with what it knows (its hand, the cards played, the voids shown by not
following suit, how many cards each seat still holds: ``sample_hands``), each deal weighed
by how well it fits the other seats' bids (``bid_weight``); for every such
deal and every candidate card, play the rest of the hand out with Normal's heuristic for
every seat (``house_play.play_out``) and value the result for the seat's side
(``house_play.hand_value``: its points minus the mean of the other sides', bags, nils and the
bag penalty counted); pick the candidate with the best weighted mean. The same deals serve every
candidate (common random numbers), and Normal's card stays unless another's paired lead
over it is more than ``TIE`` points and ``DEVIATE_Z`` standard errors (few deals are noisy).

Work is counted in simulated card plays, not seconds (``PLAYS_PER_SECOND`` per second of
budget), so that a decision is the same for the same (view, seed) on any machine; the
budget is also a wall-clock safety stop (``STOP_FACTOR`` times it), which only a very
loaded machine reaches.

Imports: the house bots' module (``spades.bots.house``) only, besides the stdlib.
"""

from __future__ import annotations

import math
import random
import time
import types

from . import house, house_bid, house_play
from .house import State
from .slots import bits, high, low, runs

STOP_FACTOR = 1.5  # the wall-clock safety stop, in budgets (checked after each play-out)
TIE = 0.5  # a candidate must beat Normal's card's mean by this many points to replace it
DEVIATE_Z = 1.0  # ... and by this many standard errors of the paired lead
BID_SPREAD = 1.5  # how far (tricks) a seat's count strays from its bid, as a normal spread
NIL_FIT = 3.0  # a deal giving a nil bidder a hand of nil_risk r weighs exp(-3 r)
TRIES = 40  # deals drawn card by card before the voids are let go


def sample_hands(state: State, rng: random.Random) -> list[int]:
    """Every seat's cards (slots) in one deal of the unseen cards consistent with what the
    seat knows: its own hand, each other seat's count, and the voids shown (a card goes
    only to a seat not known void in its suit; when that cannot be met, which only
    conventions could cause, the voids are let go)."""
    t = state.table
    me = state.seat
    assert state.hand is not None
    unseen = t.deck & ~state.gone & ~state.hand
    seats = [s for s in range(t.players) if s != me]
    counts = {s: state.held_count(s) for s in seats}
    cards = list(bits(unseen))
    for attempt in range(TRIES + 1):
        use_voids = attempt < TRIES
        room = dict(counts)
        hands = [0] * t.players
        hands[me] = state.hand
        rng.shuffle(cards)
        # the cards with the fewest seats to go to first
        allowed = {c: [s for s in seats if not (use_voids and state.voids[s] >> (c >> 4) & 1)] for c in cards}
        order = sorted(cards, key=lambda c: len(allowed[c]))
        ok = True
        for c in order:
            places = [s for s in allowed[c] if room[s] > 0]
            if not places:
                ok = False
                break
            s = places[rng.randrange(len(places))] if len(places) > 1 else places[0]
            hands[s] |= 1 << c
            room[s] -= 1
        if ok:
            return hands
    raise AssertionError("the unseen cards do not fit the seats' counts")  # pragma: no cover


def candidates(state: State) -> list[int]:
    """The legal slots worth comparing: the lowest of each run of equivalent cards
    (``slots.runs``: no other seat's card, nor one on the trick, between them)."""
    t = state.table
    assert state.hand is not None
    legal = t.legal(state.hand, state.trick, state.broken)
    return sorted(low(r) for r in runs(legal, live(state)))


def live(state: State) -> int:
    """The slots still in play that are not the seat's: the unseen cards and the trick's."""
    assert state.hand is not None
    m = state.table.deck & ~state.gone & ~state.hand
    for c in state.trick:
        m |= 1 << c
    return m


# this module, and the house bots' other modules with it, runs compiled (``spades.native``)
COMPILED = not isinstance(candidates, types.FunctionType)
# card plays of the house bots' heuristic in a second of budget, for the Python source and
# the compiled modules: the source runs 100,000-180,000 card plays a second on an idle core
# of the benchmark machine, so 0.5 s of budget ends its work in 0.2-0.35 s there, and a
# loaded machine has room before the stop; compiled, about 3.3 times as many (500,000-600,000
# measured the same way on a loaded machine)
PLAYS_PER_SECOND = 230_000 if COMPILED else 70_000


def bid_weight(state: State, hands: list[int]) -> float:
    """How well a deal fits the other seats' bids: each seat's whole hand (its cards now
    and those it played) counted as a bid is counted (``house_bid.count_tricks``), a nil by its
    risk; 1 for a perfect fit, less the further the counts are from the bids."""
    t = state.table
    w = 1.0
    for s, bid in enumerate(state.game.bids):
        if s == state.seat or bid is None:
            continue
        whole = hands[s] | state.played_by[s]
        if bid == 0:
            w *= math.exp(-NIL_FIT * house_bid.nil_risk(t, whole))
        else:
            d = house_bid.count_tricks(t, whole) - bid
            w *= math.exp(-d * d / (2 * BID_SPREAD * BID_SPREAD))
    return w


def card_values(state: State, rng: random.Random, cands: list[int], work: int,
                deadline: float) -> tuple[dict[int, list[float]], list[float]]:
    """Each candidate's value for the seat's side on each deal played out, within ``work``
    card plays (at least one deal), or until ``deadline`` (wall clock); the same deals for
    every candidate, in the same order; and each deal's weight (``bid_weight``)."""
    g = state.game
    side = g.table.side_of[state.seat]
    values: dict[int, list[float]] = {c: [] for c in cands}
    weights: list[float] = []
    done = 0
    while True:
        hands = sample_hands(state, rng)
        row = []
        for c in cands:
            taken, plays = house_play.play_out(g, hands, state.trick, state.leader, state.gone, state.taken,
                                          state.broken, state.voids, first=c)
            done += plays
            row.append(house_play.hand_value(g, taken, side))
            if weights and time.monotonic() > deadline:
                return values, weights  # the safety stop: this deal is left out, half played
        weights.append(bid_weight(state, hands))
        for c, v in zip(cands, row):
            values[c].append(v)
        if done >= work or time.monotonic() > deadline:
            break
    return values, weights


def _lead(a: list[float], b: list[float], w: list[float]) -> tuple[float, float]:
    """The weighted mean of the paired differences a - b, and its standard error (by the
    deals' effective number)."""
    total = sum(w) or 1.0
    d = [x - y for x, y in zip(a, b)]
    mean = sum(wi * di for wi, di in zip(w, d)) / total
    n_eff = total * total / (sum(wi * wi for wi in w) or 1.0)
    if n_eff < 2:
        return mean, float("inf")
    var = sum(wi * (di - mean) ** 2 for wi, di in zip(w, d)) / total
    return mean, math.sqrt(var / (n_eff - 1))


def choose_card(state: State, rng: random.Random, budget_s: float) -> int:
    """Hard's card (a slot): the candidate with the best mean over the play-outs, Normal's
    card on a near-tie."""
    t = state.table
    assert state.hand is not None
    default = house_play.normal_card(state.game, state.seat, state.hand, state.trick, state.leader, state.gone,
                                state.taken, state.broken, state.voids)
    cands = candidates(state)
    if len(cands) <= 1:
        return default
    # Normal's card stands for its equivalents
    legal = t.legal(state.hand, state.trick, state.broken)
    default_rep = next(low(r) for r in runs(legal, live(state)) if r >> default & 1)
    start = time.monotonic()
    work = max(1, round(budget_s * PLAYS_PER_SECOND))
    values, weights = card_values(state, rng, cands, work, start + STOP_FACTOR * budget_s)
    total = sum(weights) or 1.0
    means = {c: sum(wi * x for wi, x in zip(weights, v)) / total for c, v in values.items()}
    best = max(cands, key=lambda c: (means[c], c == default_rep, -c))
    if best == default_rep:
        return default
    lead, se = _lead(values[best], values[default_rep], weights)
    # another card replaces Normal's only when its lead over the same deals is clear
    if lead < TIE or lead < DEVIATE_Z * se:
        return default
    return best


# -- the levels --------------------------------------------------------------------------

def choose(view: dict, level: str, rng: random.Random, budget_s: float | None, hard_budget_s: float) -> int | str:
    """The action (JSON form) of ``level`` for a house-rules view; one of ``view["legal"]``:
    Easy and Normal by ``spades.bots.house``, Hard's card by this module's search.
    ``spades.bots.choose`` has checked the turn and the level and made ``rng``."""
    legal = view["legal"]
    if level == "random":
        return rng.choice(legal)
    if len(legal) == 1:
        return legal[0]
    if "look" in legal or "blind_nil" in legal:
        return "look"  # the house bots look at their cards before they bid
    state = house.read(view)
    assert state.hand is not None
    if isinstance(legal[0], int) or legal[0] == "nil":
        return house_bid.bid_for(state, "normal" if level == "hard" else level, rng)
    if level == "hard":
        budget = hard_budget_s if budget_s is None else budget_s
        slot = choose_card(state, rng, budget)
    else:
        hand = state.hand
        slot = house_play.normal_card(state.game, state.seat, hand, state.trick, state.leader, state.gone, state.taken,
                           state.broken, state.voids)
        if level == "easy":
            r = rng.random()
            t = state.table
            ok = t.legal(hand, state.trick, state.broken)
            if r < house_play.EASY_ANY:  # a slip: any legal card
                slot = rng.choice(list(bits(ok)))
            elif r < house_play.EASY_ANY + house_play.EASY_HIGH:  # a wasted high card
                slot = high(ok & t.suits[high(ok) >> 4]) if not ok & ~t.trumps else house_play.highest_side(t, ok)
    card = str(state.table.card(slot))
    assert card in legal, (card, legal)
    return card


__all__ = ["PLAYS_PER_SECOND", "candidates", "live", "card_values", "choose_card", "sample_hands", "choose"]
