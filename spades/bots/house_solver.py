"""The double-dummy solver at a table of any shape: the end of a hand with every seat's
cards known, under the house rules (three or four seats, partners or cutthroat, jokers,
spades led any time).

``HouseSolver(rules, bids, blind, measure)`` answers, for a ``Spot`` (each seat's cards,
the trick in progress, who led it, the tricks taken, spades broken), what best play by
all gives one *hero*: a side of the table, and the rest of the table against it.

- With partners the hero is a team and the other team plays against it, as
  ``spades.bots.solver`` does: a zero-sum game on the hero's value.
- In cutthroat nobody has a partner, so "best play by all" needs a decision: the hero
  is the player alone and every other player plays against them (the "paranoid" search,
  zero-sum again). The figure is the most that player can make sure of, whatever the
  others do: it is what "the most this player can take" means at a cutthroat table.

The measure (``measure``) of a finished hand, from the hero's side:

- ``"points"`` (the default): the hand's points, bags and nil results included, bag
  penalty left out (``spades.scoring`` with ``bag_penalty`` off). With partners, the
  hero team's points minus the other team's, the standard solver's figure; in cutthroat,
  the hero's own points (the others' points are not the hero's to lose).
- ``"tricks"``: the hero side's tricks from the spot on.

``value(spot, hero)`` is that figure for side ``hero``; ``card_values(spot)`` gives it,
for each legal card of the seat to act, after that card, from the acting seat's side.

The search works on the house bots' slots (``spades.bots.slots``: 16 to a suit, the
trumps first, a higher slot beating a lower one of its suit), and is alpha-beta, with
null-window tests halving the finishes the hand can still have (a few tests prune far
more than one wide search), and a transposition table at the start of each trick keyed
on the cards left (each seat's), who leads, the tricks taken as far as the measure tells
them apart and spades broken, keeping bounds; one table per hero, shared across the
spots of a hand. Equivalent cards are tried once (``slots.runs``): cards of one suit (as
play sees it: jokers and the jjdd 2D are spades) in one hand, with no live card (another
seat's, or one on the trick) between them, win and lose the same tricks.

Imports: ``spades.rules_config``, ``spades.rules`` (legality), ``spades.scoring`` and
``spades.bots.slots``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..rules import shape_legal_mask
from ..rules_config import Rules, Shape
from ..scoring import score_hand
from .slots import SLOT_BITS, SUIT_COUNT, SUIT_SLOTS, bits, high, numbers, runs, slot_mask, table
from .slots import trick_winner as trick_winner_slot

INF = 1 << 20
MEASURES = ("points", "tricks")


@dataclass(frozen=True, slots=True)
class Spot:
    """A moment of a hand with every seat's cards known, at a table of any shape.
    ``hands[s]``: the mask of seat s's cards; ``trick``: the cards of the trick in
    progress in play order, led by ``leader``; ``taken[s]``: tricks seat s has taken;
    ``broken``: spades (trumps) broken."""

    hands: tuple[int, ...]
    trick: tuple[int, ...]
    leader: int
    taken: tuple[int, ...]
    broken: bool


def to_act(shape: Shape, spot: Spot) -> int:
    """The seat to play at ``spot``."""
    seat = spot.leader
    for _ in spot.trick:
        seat = shape.left[seat]
    return seat


def trick_winner(shape: Shape, trick: tuple[int, ...] | list[int]) -> int:
    """The index in ``trick`` (card numbers) of its winning card: the highest trump in
    it, or the highest card of the suit led (``slots.trick_winner`` on their slots)."""
    slot_of = numbers(shape)
    return trick_winner_slot([slot_of[c] for c in trick])


def play(shape: Shape, spot: Spot, card: int) -> Spot:
    """The spot after the seat to act plays ``card`` (assumed legal)."""
    seat = to_act(shape, spot)
    hands = list(spot.hands)
    hands[seat] &= ~(1 << card)
    trick = spot.trick + (card,)
    if len(trick) < shape.players:
        return dataclasses.replace(spot, hands=tuple(hands), trick=trick)
    winner = spot.leader
    for _ in range(trick_winner(shape, trick)):
        winner = shape.left[winner]
    taken = list(spot.taken)
    taken[winner] += 1
    broken = spot.broken or any(shape.trump_mask >> c & 1 for c in trick)
    return Spot(tuple(hands), (), winner, tuple(taken), broken)


def equivalents(shape: Shape, legal: int, live_others: int) -> dict[int, int]:
    """Each legal card's representative (card numbers): the top card of its run
    (``slots.runs``), cards of one suit adjacent in power with no card of
    ``live_others`` between them."""
    slot_of = numbers(shape)
    card_of = {x: c for c, x in enumerate(slot_of) if x >= 0}
    rep: dict[int, int] = {}
    for run in runs(slot_mask(slot_of, legal), slot_mask(slot_of, live_others)):
        top = card_of[high(run)]
        for x in bits(run):
            rep[card_of[x]] = top
    return rep


def _layout(hands: list[int]) -> tuple[int, ...]:
    """The cards left as the play sees them: per suit, who holds each card left, in
    power order. Hands of the same layout win the same tricks whatever the cards' own
    ranks (the cards gone between them make no difference)."""
    n = len(hands)
    every = 0
    for h in hands:
        every |= h
    out = []
    for s in range(SUIT_COUNT):
        m = every >> (SLOT_BITS * s) & SUIT_SLOTS
        code = 1
        while m:
            low = m & -m
            bit = low << (SLOT_BITS * s)
            for seat in range(n):
                if hands[seat] & bit:
                    code = code * n + seat
                    break
            m ^= low
        out.append(code)
    return tuple(out)


class HouseSolver:
    """Double-dummy values of one hand's spots under its rules, bids and blind nils
    (``bids[s]``: 0 for nil, None without bidding), by ``measure`` (``MEASURES``). Keep
    one per hand: spots of the same hand share its tables."""

    def __init__(self, rules: Rules, bids: list[int | None] | tuple[int | None, ...],
                 blind: list[bool] | tuple[bool, ...], measure: str = "points") -> None:
        if measure not in MEASURES:
            raise ValueError(f"measure must be one of {', '.join(MEASURES)}")
        self.rules = dataclasses.replace(rules, bag_penalty=False)
        self.shape = shape = rules.shape
        self.measure = measure
        self.bids = list(bids)
        self.blind = list(blind)
        self.lead_any = rules.spades_lead == "any"
        self._table = table(rules)
        self._n = shape.players
        nil = [rules.bidding and (self.bids[s] or 0) == 0 for s in shape.seats]
        # the seats whose own tricks the measure tells apart (a nil bidder's, with partners)
        self._apart = [measure == "points" and len(side) > 1 and any(nil[s] for s in side) for side in shape.sides]
        self._nil = nil
        self._finals: dict[tuple, int] = {}
        self._tt: dict[int, dict[tuple, tuple[int, int]]] = {}
        self._spans: dict[tuple, tuple[int, int]] = {}
        self.nodes = 0
        self._hero = 0
        self._heroes = frozenset[int]()

    # -- the measure ---------------------------------------------------------------------
    def side_of(self, seat: int) -> int:
        return self.shape.side_of[seat]

    def final(self, hero: int, start: tuple[int, ...], taken: tuple[int, ...]) -> int:
        """Side ``hero``'s figure for a finished hand's tricks ``taken`` (``start``: the
        tricks taken at the spot asked about, for the ``"tricks"`` measure)."""
        shape = self.shape
        if self.measure == "tricks":
            return sum(taken[s] - start[s] for s in shape.sides[hero])
        key = (hero, taken)
        v = self._finals.get(key)
        if v is None:
            s = score_hand(self.rules, self.bids, self.blind, list(taken), [0] * shape.side_count)
            mine = s.teams[hero].total
            if shape.partners:
                v = mine - sum(t.total for i, t in enumerate(s.teams) if i != hero)
            else:
                v = mine
            self._finals[key] = v
        return v

    def _taken_key(self, taken: tuple[int, ...]) -> tuple[int, ...]:
        """The tricks taken as far as the hero's measure tells them apart: nothing for
        the tricks from here; for points, by side (a nil bidder and partner apart), or
        in cutthroat the hero's own."""
        if self.measure == "tricks":
            return ()
        if not self.shape.partners:  # the hero's points are a matter of the hero's tricks alone
            return (taken[self.shape.sides[self._hero][0]],)
        out: list[int] = []
        for t, side in enumerate(self.shape.sides):
            if self._apart[t]:
                out += [taken[s] for s in side]
            else:
                out.append(sum(taken[s] for s in side))
        return tuple(out)

    def _reachable(self, hero: int, start: tuple[int, ...], taken: tuple[int, ...], left: int) -> set[int]:
        """Every final figure some sharing of the ``left`` tricks gives."""
        out: set[int] = set()
        n = self._n

        def share(seat: int, rest: int, t: list[int]) -> None:
            if seat == n - 1:
                t[seat] = taken[seat] + rest
                out.add(self.final(hero, start, tuple(t)))
                return
            for k in range(rest + 1):
                t[seat] = taken[seat] + k
                share(seat + 1, rest - k, t)

        share(0, left, list(taken))
        return out

    def _span(self, tkey: tuple[int, ...], start: tuple[int, ...], taken: tuple[int, ...],
              left: int) -> tuple[int, int]:
        """The lowest and highest final figure the ``left`` tricks can still give."""
        key = (self._hero, tkey, left) if self.measure == "points" else (self._hero, left)
        span = self._spans.get(key)
        if span is None:
            finals = self._reachable(self._hero, start, taken, left)
            span = self._spans[key] = (min(finals), max(finals))
        return span

    # -- questions -----------------------------------------------------------------------
    def legal(self, spot: Spot) -> int:
        """The legal cards (a mask) of the seat to act."""
        return shape_legal_mask(self.shape, spot.hands[to_act(self.shape, spot)], spot.trick, spot.broken,
                                self.lead_any)

    def value(self, spot: Spot, hero: int) -> int:
        """Side ``hero``'s figure with best play by all from ``spot``: the hero's side
        maximising it, every other seat minimising it."""
        self._hero = hero
        self._heroes = frozenset(self.shape.sides[hero])
        start = spot.taken
        left = self.shape.tricks - sum(spot.taken)
        finals = sorted(self._reachable(hero, start, spot.taken, left))
        slot_of = numbers(self.shape)
        hands = [slot_mask(slot_of, h) for h in spot.hands]
        trick = [slot_of[c] for c in spot.trick]
        lo, hi = 0, len(finals) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            v = finals[mid]
            got = self._search(hands, trick, spot.leader, spot.taken, spot.broken, start, v - 1, v)
            if got >= v:
                lo = mid
            else:
                hi = mid - 1
        return finals[lo]

    def card_values(self, spot: Spot) -> dict[int, int]:
        """For each legal card of the seat to act: its side's figure after it, with best
        play by all from there (``value`` with the acting seat's side as the hero)."""
        shape = self.shape
        seat = to_act(shape, spot)
        hero = shape.side_of[seat]
        legal = self.legal(spot)
        others = 0
        for s in shape.seats:
            if s != seat:
                others |= spot.hands[s]
        for c in spot.trick:
            others |= 1 << c
        reps = equivalents(shape, legal, others)
        out: dict[int, int] = {}
        done: dict[int, int] = {}
        for card, rep in reps.items():
            if rep not in done:
                after = play(shape, spot, rep)
                if self.measure == "tricks":  # the tricks from the spot asked about, this card's trick included
                    gained = sum(after.taken[s] - spot.taken[s] for s in shape.sides[hero])
                    done[rep] = gained + self.value(after, hero)
                else:
                    done[rep] = self.value(after, hero)
            out[card] = done[rep]
        return out

    # -- the search ----------------------------------------------------------------------
    def _search(self, hands: list[int], trick: list[int], leader: int, taken: tuple[int, ...], broken: bool,
                start: tuple[int, ...], alpha: int, beta: int) -> int:
        self.nodes += 1
        if trick:
            return self._moves(hands, trick, leader, taken, broken, start, alpha, beta)
        left = hands[leader].bit_count()
        if left == 0:
            return self.final(self._hero, start, taken)
        tkey = self._taken_key(taken)
        if self.measure == "tricks":  # the table holds the tricks from here on, whatever came before
            base = sum(taken[s] - start[s] for s in self.shape.sides[self._hero])
            lo, hi = base, base + left
        else:
            base = 0
            lo, hi = self._span(tkey, start, taken, left)  # no play can end outside these
        if lo >= beta or hi <= alpha or lo == hi:
            return lo if lo >= beta or lo == hi else hi
        key = (_layout(hands), leader, tkey, broken)
        table = self._tt.setdefault(self._hero, {})
        entry = table.get(key)
        if entry is not None:
            lo, hi = max(lo, entry[0] + base), min(hi, entry[1] + base)
            if lo >= beta:
                return lo
            if hi <= alpha:
                return hi
            if lo == hi:
                return lo
        a0, b0 = max(alpha, lo), min(beta, hi)
        v = self._moves(hands, trick, leader, taken, broken, start, a0, b0)
        if v <= a0:
            hi = min(hi, v)
        elif v >= b0:
            lo = max(lo, v)
        else:
            lo = hi = v
        table[key] = (lo - base, hi - base)
        return v

    def _ordered(self, cards: list[int], trick: list[int], leader: int, seat: int, mine: bool) -> list[int]:
        """The slots in the order most likely to settle a search early: leading, the
        trumps and then the other suits, highest first; following, the cheapest card that
        takes the trick from the other side, then the rest from the lowest (a nil bidder:
        its highest card that loses first)."""
        if len(cards) == 1:
            return cards
        if not trick:
            return cards if self._nil[seat] else sorted(cards, key=lambda c: -(c & 15) - 16 * (c < SLOT_BITS))
        w = trick_winner_slot(trick)
        win = trick[w]
        winner = leader
        for _ in range(w):
            winner = self.shape.left[winner]

        def strength(c: int) -> int:
            return (c & 15) + (100 if c < SLOT_BITS else 0)

        up = sorted((c for c in cards if (c > win if c >> 4 == win >> 4 else c < SLOT_BITS)), key=strength)
        down = sorted((c for c in cards if not (c > win if c >> 4 == win >> 4 else c < SLOT_BITS)), key=strength)
        if self._nil[seat]:
            return down[::-1] + up
        if (winner in self._heroes) == mine:  # a friend is winning: low first
            return down + up
        return up + down

    def _moves(self, hands: list[int], trick: list[int], leader: int, taken: tuple[int, ...], broken: bool,
               start: tuple[int, ...], alpha: int, beta: int) -> int:
        left = self.shape.left
        n = len(trick)
        seat = leader
        for _ in range(n):
            seat = left[seat]
        held = hands[seat]
        legal = self._table.legal(held, trick, broken)
        others = 0
        for s, h in enumerate(hands):
            if s != seat:
                others |= h
        for c in trick:
            others |= 1 << c
        maxing = seat in self._heroes
        best = -INF if maxing else INF
        last = n == self._n - 1
        for c in self._ordered([high(r) for r in runs(legal, others)], trick, leader, seat, maxing):
            hands[seat] = held & ~(1 << c)
            trick.append(c)
            if last:
                winner = leader
                for _ in range(trick_winner_slot(trick)):
                    winner = left[winner]
                t = list(taken)
                t[winner] += 1
                after = broken or min(trick) < SLOT_BITS
                v = self._search(hands, [], winner, tuple(t), after, start, alpha, beta)
            else:
                v = self._search(hands, trick, leader, taken, broken, start, alpha, beta)
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

__all__ = ["Spot", "HouseSolver", "MEASURES", "equivalents", "play", "to_act", "trick_winner"]
