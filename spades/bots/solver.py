"""The double-dummy solver: the end of a hand with every seat's cards known.

``Solver(rules, bids, blind)`` answers, for a position (each seat's cards, the trick in
progress, who led it, the tricks taken, spades broken), the hand's score difference with
best play by all four seats from there: team 0's points minus team 1's, this hand's
points with bags and nil results but not the bag penalty (``spades.scoring`` scores the
finished hand, with ``bag_penalty`` off). Partners play together; the teams against
each other (minimax on the difference).

- ``Solver.value(position)``: that difference (team 0 minus team 1).
- ``Solver.card_values(position)``: for each legal card of the seat to act, the
  difference after playing it, from that seat's team's side (its team minus the other).
- ``Solver(rules, bids, blind, score=f)``: the same search on another measure of a
  finished hand, ``f(taken)`` (team 0's value minus team 1's, an int, a function of the
  tricks as the score tells them apart: by team, a nil bidder's alone); Hard's search
  solves its endings on match value (the bag penalty and the match bonus included).
- ``sweeps(position, team)``: whether ``team`` takes every remaining trick whatever
  anyone plays (every line of play, not best play): a claim is certain.

The search is alpha-beta with a transposition table at the start of each trick (the
cards left by their shape: who holds each card left of each suit, in rank order; the
leader, the tricks taken as far as the score can tell them apart, spades broken) keeping
bounds, so one ``Solver`` shares its table across the positions of a
hand. Equivalent cards are tried once: cards of one suit in one hand with no other live
card (another seat's, or one on the trick) between them win and lose the same tricks.

**Why apart from ``house_solver``.** The house solver answers the same questions at a
table of any shape, this one at the standard table only, on card numbers 0-51 with the
four seats written into its loops, and that is worth its code: both compiled, on the
same standard positions from 7 tricks left (``python -m bench.analysis --dd-hands 12``
against ``--house-solver``), this one solves 16.1 positions a second and a hand's end in
0.06 s, the house solver 11.1 and 0.11 s. (The standard bots' play, ``policy``, is kept
for its measured strength, not its speed: see docs/bots.md.)

Imports: ``spades.cards``, ``spades.rules_config`` and ``spades.scoring`` only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from ..cards import SIDE_MASK, SUIT_MASKS, cards_of
from ..rules_config import Rules
from ..scoring import score_hand

INF = 1 << 20


@dataclass(frozen=True, slots=True)
class Position:
    """A moment of a hand with every seat's cards known. ``hands[s]``: the mask of seat
    s's cards; ``trick``: the cards of the trick in progress in play order, led by
    ``leader``; ``taken[s]``: tricks seat s has taken; ``broken``: spades broken."""

    hands: tuple[int, int, int, int]
    trick: tuple[int, ...]
    leader: int
    taken: tuple[int, int, int, int]
    broken: bool

    @property
    def to_act(self) -> int:
        return (self.leader + len(self.trick)) & 3

    @property
    def tricks_left(self) -> int:
        """Tricks still to be completed, the one in progress included."""
        return 13 - sum(self.taken)

    def legal(self) -> int:
        """The legal cards (a mask) of the seat to act."""
        held = self.hands[self.to_act]
        if self.trick:
            return (held & SUIT_MASKS[self.trick[0] // 13]) or held
        if self.broken:
            return held
        return (held & SIDE_MASK) or held

    def play(self, card: int) -> Position:
        """The position after the seat to act plays ``card`` (assumed legal)."""
        seat = self.to_act
        hands = list(self.hands)
        hands[seat] &= ~(1 << card)
        trick = self.trick + (card,)
        if len(trick) < 4:
            return dataclasses.replace(self, hands=tuple(hands), trick=trick)  # type: ignore[arg-type]
        win = _winner(trick)
        winner = (self.leader + win) & 3
        taken = list(self.taken)
        taken[winner] += 1
        return Position(tuple(hands), (), winner, tuple(taken),  # type: ignore[arg-type]
                        self.broken or any(c < 13 for c in trick))


def _winner(trick: tuple[int, ...] | list[int]) -> int:
    """The index in ``trick`` of its winning card."""
    best = 0
    for i in range(1, len(trick)):
        c, w = trick[i], trick[best]
        if c // 13 == w // 13:
            if c > w:
                best = i
        elif c < 13:
            best = i
    return best


def _shape(hands: list[int]) -> tuple[int, int, int, int]:
    """The cards left as the play sees them: per suit, who holds each card left, in rank
    order. Hands of the same shape win the same tricks whatever the cards' own ranks."""
    h0, h1, h2, h3 = hands
    out = []
    for shift in (0, 13, 26, 39):
        a, b, c = h0 >> shift & 0x1FFF, h1 >> shift & 0x1FFF, h2 >> shift & 0x1FFF
        m = a | b | c | (h3 >> shift & 0x1FFF)
        code = 1
        while m:
            low = m & -m
            code = code * 4 + (0 if a & low else 1 if b & low else 2 if c & low else 3)
            m ^= low
        out.append(code)
    return out[0], out[1], out[2], out[3]


def _choices(legal: int, live_others: int) -> list[int]:
    """One card of each run of equivalent cards of ``legal``, highest first: cards of a
    suit with no card of ``live_others`` ranked between them."""
    out = []
    for s in range(4):
        part = legal & SUIT_MASKS[s]
        if not part:
            continue
        cards = cards_of(part)
        prev = -1
        for c in reversed(cards):
            if prev >= 0 and not live_others & (((1 << prev) - 1) & ~((2 << c) - 1)):
                continue  # nothing live between this card and the run's card above it
            out.append(int(c))
            prev = c
    return out


def _turn(hands: list[int], trick: list[int], leader: int, broken: bool) -> tuple[int, int, int, int]:
    """The seat to play, its cards, the ones it may play, and every card still in play
    elsewhere (the other hands and the trick: what separates equivalent cards)."""
    n = len(trick)
    seat = (leader + n) & 3
    held = hands[seat]
    if n:
        legal = (held & SUIT_MASKS[trick[0] // 13]) or held
    elif broken:
        legal = held
    else:
        legal = (held & SIDE_MASK) or held
    others = 0
    for s in range(4):
        if s != seat:
            others |= hands[s]
    for c in trick:
        others |= 1 << c
    return seat, held, legal, others


def equivalents(legal: int, live_others: int) -> dict[int, int]:
    """Each legal card's representative (the top card of its run, as ``_choices`` picks)."""
    rep: dict[int, int] = {}
    for s in range(4):
        part = legal & SUIT_MASKS[s]
        top = -1
        low = -1
        for c in reversed(cards_of(part)):
            if top >= 0 and not live_others & (((1 << low) - 1) & ~((2 << c) - 1)):
                rep[int(c)] = top
            else:
                top = int(c)
                rep[int(c)] = top
            low = int(c)
    return rep


class Solver:
    """Double-dummy values of one hand's positions under its rules, bids and blind nils
    (``bids[s]``: 0 for nil, None without bidding). Keep one per hand: positions of the
    same hand share its table."""

    def __init__(self, rules: Rules, bids: list[int | None] | tuple[int | None, ...],
                 blind: list[bool] | tuple[bool, ...],
                 score: Callable[[tuple[int, ...]], int] | None = None) -> None:
        self.rules = dataclasses.replace(rules, bag_penalty=False)
        self._score = score
        self.bids = list(bids)
        self.blind = list(blind)
        self.bidding = rules.bidding
        # seats whose own tricks the score tells apart (nil bidders); the others count by team
        self._nil = [self.bidding and (self.bids[s] or 0) == 0 for s in range(4)]
        self._finals: dict[tuple[int, ...], int] = {}
        self._tt: dict[tuple, tuple[int, int]] = {}
        self._spans: dict[tuple, tuple[int, int]] = {}
        self.nodes = 0

    # -- the score ---------------------------------------------------------------------
    def final(self, taken: tuple[int, ...] | list[int]) -> int:
        """Team 0's points minus team 1's for a finished hand's tricks (no bag penalty), or
        the measure the solver was given."""
        key = tuple(taken)
        v = self._finals.get(key)
        if v is None:
            if self._score is not None:
                v = self._score(key)
            elif not self.bidding:
                v = 10 * (taken[0] + taken[2] - taken[1] - taken[3])
            else:
                s = score_hand(self.rules, self.bids, self.blind, list(taken), [0, 0])
                v = s.teams[0].total - s.teams[1].total
            self._finals[key] = v
        return v

    def _taken_key(self, taken: tuple[int, ...]) -> tuple[int, ...]:
        """The tricks taken as far as the score can tell them apart."""
        nil = self._nil
        out = []
        for t in (0, 1):
            a, b = taken[t], taken[t + 2]
            if nil[t] or nil[t + 2]:
                out += [a, b]
            else:
                out += [a + b, -1]
        return tuple(out)

    # -- questions ---------------------------------------------------------------------
    def value(self, pos: Position) -> int:
        """Team 0's points minus team 1's with best play by all four from ``pos``."""
        # The finishes the hand can still have, and a search with a null window for each
        # test "at least v?", halving them: tests prune far more than one wide search.
        finals = sorted(self._reachable(pos.taken, pos.tricks_left))
        lo, hi = 0, len(finals) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            v = finals[mid]
            if self._search(list(pos.hands), list(pos.trick), pos.leader, pos.taken, pos.broken, v - 1, v) >= v:
                lo = mid
            else:
                hi = mid - 1
        return finals[lo]

    def _span(self, tkey: tuple[int, ...], taken: tuple[int, ...], left: int) -> tuple[int, int]:
        """The lowest and highest final difference the ``left`` tricks can still give."""
        key = (tkey, left)
        span = self._spans.get(key)
        if span is None:
            finals = self._reachable(taken, left)
            span = self._spans[key] = (min(finals), max(finals))
        return span

    def _reachable(self, taken: tuple[int, ...], left: int) -> set[int]:
        """Every final difference some sharing of the ``left`` tricks gives."""
        out = set()
        for a in range(left + 1):
            for b in range(left - a + 1):
                for c in range(left - a - b + 1):
                    d = left - a - b - c
                    out.add(self.final((taken[0] + a, taken[1] + b, taken[2] + c, taken[3] + d)))
        return out

    def card_values(self, pos: Position) -> dict[int, int]:
        """For each legal card of the seat to act: the hand's difference after it, with
        best play by all from there, from the seat's team's side."""
        seat = pos.to_act
        sign = 1 if seat & 1 == 0 else -1
        legal = pos.legal()
        others = 0
        for s in range(4):
            if s != seat:
                others |= pos.hands[s]
        for c in pos.trick:
            others |= 1 << c
        reps = equivalents(legal, others)
        out: dict[int, int] = {}
        done: dict[int, int] = {}
        for card, rep in reps.items():
            if rep not in done:
                after = pos.play(rep)
                done[rep] = sign * self.value(after)
            out[card] = done[rep]
        return out

    # -- the search --------------------------------------------------------------------
    def _search(self, hands: list[int], trick: list[int], leader: int, taken: tuple[int, ...], broken: bool,
                alpha: int, beta: int) -> int:
        self.nodes += 1
        n = len(trick)
        if n == 0:
            left = hands[leader].bit_count()
            if left == 0:
                return self.final(taken)
            tkey = self._taken_key(taken)
            lo, hi = self._span(tkey, taken, left)  # no play can end outside these
            if lo >= beta or hi <= alpha or lo == hi:
                return lo if lo >= beta or lo == hi else hi
            key = (_shape(hands), leader, tkey, broken)
            entry = self._tt.get(key)
            if entry is not None:
                lo, hi = max(lo, entry[0]), min(hi, entry[1])
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo == hi:
                    return lo
            a0, b0 = max(alpha, lo), min(beta, hi)
            v = self._moves(hands, trick, leader, taken, broken, a0, b0)
            if v <= a0:
                hi = min(hi, v)
            elif v >= b0:
                lo = max(lo, v)
            else:
                lo = hi = v
            self._tt[key] = (lo, hi)
            return v
        return self._moves(hands, trick, leader, taken, broken, alpha, beta)

    def _ordered(self, cards: list[int], trick: list[int], leader: int, seat: int) -> list[int]:
        """The cards in the order most likely to settle a search early: leading, the high
        cards first; following, the cheapest card that takes the trick from the other
        team, then the rest from the lowest (a nil bidder: its highest card that loses first)."""
        if len(cards) == 1:
            return cards
        if not trick:  # leading: the suits' top cards first (sure tricks), then low cards
            return cards if self._nil[seat] else sorted(cards, key=lambda c: -(c % 13) - 13 * (c < 13))
        win = trick[_winner(trick)]
        winner = (leader + _winner(trick)) & 3
        beats = [c for c in cards if (c // 13 == win // 13 and c > win) or (c < 13 and win >= 13)]
        if self._nil[seat]:
            under = [c for c in cards if c not in beats]
            return under + beats[::-1]
        if winner & 1 == seat & 1:  # the partner is winning: low first
            return cards[::-1]
        rest = [c for c in cards if c not in beats]
        return beats[::-1] + rest[::-1]

    def _moves(self, hands: list[int], trick: list[int], leader: int, taken: tuple[int, ...], broken: bool,
               alpha: int, beta: int) -> int:
        n = len(trick)
        seat, held, legal, others = _turn(hands, trick, leader, broken)
        maxing = seat & 1 == 0
        best = -INF if maxing else INF
        for c in self._ordered(_choices(legal, others), trick, leader, seat):
            hands[seat] = held & ~(1 << c)
            trick.append(c)
            if n == 3:
                winner = (leader + _winner(trick)) & 3
                t = list(taken)
                t[winner] += 1
                v = self._search(hands, [], winner, tuple(t), broken or any(x < 13 for x in trick), alpha, beta)
            else:
                v = self._search(hands, trick, leader, taken, broken, alpha, beta)
            trick.pop()
            hands[seat] = held
            if maxing:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            else:
                if v < best:
                    best = v
                    if v < beta:
                        beta = v
            if alpha >= beta:
                break
        return best


def sweeps(pos: Position, team: int) -> bool:
    """Whether ``team`` (0 or 1) takes every remaining trick, the one in progress
    included, whatever any seat plays (every legal line of play)."""
    seen: set[tuple] = set()

    def every_line(hands: list[int], trick: list[int], leader: int, broken: bool) -> bool:
        n = len(trick)
        if n == 0:
            if not hands[leader]:
                return True
            key = (_shape(hands), leader, broken)
            if key in seen:
                return True
        seat, held, legal, others = _turn(hands, trick, leader, broken)
        for c in _choices(legal, others):
            hands[seat] = held & ~(1 << c)
            trick.append(c)
            if n == 3:
                winner = (leader + _winner(trick)) & 3
                ok = winner & 1 == team and every_line(hands, [], winner, broken or any(x < 13 for x in trick))
            else:
                ok = every_line(hands, trick, leader, broken)
            trick.pop()
            hands[seat] = held
            if not ok:
                return False
        if n == 0:
            seen.add((_shape(hands), leader, broken))
        return True

    if pos.tricks_left <= 0:
        return False
    return every_line(list(pos.hands), list(pos.trick), pos.leader, pos.broken)


__all__ = ["Position", "Solver", "sweeps", "equivalents"]
