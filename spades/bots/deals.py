"""The deals Hard's search judges a card on: the cards a seat cannot see, dealt to the
other seats again and again, consistent with what is known and weighted by what the
bids and the play show.

- ``Sampler`` deals the unseen cards at random within the seats' counts, their voids and
  the cards the play says they lack (``knowledge``);
- ``draw`` keeps a deal with the chance the bids give it (``bid_fit``, ``bid_weight``);
- ``Reading`` and ``Chain``: once the other seats have played, a Markov chain of deals in
  which each card they played is the one Normal's play would choose, but for a factor
  ``READ_MISS`` a card;
- ``Deals`` gives one decision its deals, by the bids or from the chain.

Work is counted in simulated card plays, as the search counts it (``DRAW_WORK``,
``SWAP_WORK``).

Imports: ``spades.cards`` and the bots' own modules (``bidmodel``, ``knowledge``, ``policy``) only.
"""

from __future__ import annotations

import math
import random

from ..cards import FULL_MASK, SUIT_MASKS, cards_of
from . import bidmodel
from .knowledge import ALL_SIDE_VOID, Known
from .policy import play_card, trick_winner


class Sampler:
    """Deals the cards a seat cannot see to the other seats, again and again: ``counts[s]``
    cards each, no card in a suit the seat is known void in, nor one the play says it
    lacks (``lacks[s]``, a mask; ``knowledge``) unless that leaves the card nowhere to go.
    Everything that stays the same between deals is worked out once.

    A deal hands out the cards one by one, the most constrained first, each to one of the
    seats that may hold it with a chance in proportion to the room that seat has left.
    Cards any seat may hold come out evenly whatever their order (as in drawing without
    putting back), so no shuffle is needed; when the constraints leave a card with no room
    the deal is tried again, and after 30 such tries the play's inferences are dropped for
    that deal."""

    def __init__(self, me: int, counts: list[int], unseen: int, voids: list[int],
                 lacks: list[int] | None = None) -> None:
        seats = tuple(s for s in range(4) if s != me)
        self.counts = counts
        cards = [int(c) for c in cards_of(unseen)]
        allowed = {}
        for c in cards:
            fits = tuple(s for s in seats if not voids[s] >> (c // 13) & 1)
            read = tuple(s for s in fits if not (lacks and lacks[s] >> c & 1))
            allowed[c] = read or fits
        # nothing inferred bears on these cards: every deal succeeds at the first try
        self.free = all(len(fit) == len(seats) for fit in allowed.values())
        # per seat, the unseen cards it may hold (its voids and, where they leave room, lacks)
        self.may_hold = [0, 0, 0, 0]
        for c, fit in allowed.items():
            for s in fit:
                self.may_hold[s] |= 1 << c
        # the most constrained cards first, so a void-heavy seat does not run out of room
        self.plan = sorted(allowed.items(), key=lambda item: len(item[1]))
        self.loose = [(c, seats) for c in cards]
        self.stuck = 0

    def deal(self, rng: random.Random) -> list[int]:
        """One deal (the seat's own entry is 0)."""
        if not self.free:
            for _ in range(30):
                hands = self._hand_out(rng, self.plan)
                if hands is not None:
                    return hands
            self.stuck += 1  # the inferences cannot all be met by chance: drop them here
        hands = self._hand_out(rng, self.loose)
        assert hands is not None  # without constraints there is always room
        return hands

    def _hand_out(self, rng: random.Random, plan: list[tuple[int, tuple[int, ...]]]) -> list[int] | None:
        """The cards of ``plan`` dealt to their seats (None when a card finds no room)."""
        room = self.counts[:]
        hands = [0, 0, 0, 0]
        rand = rng.random
        for c, seats in plan:
            total = 0
            for s in seats:
                total += room[s]
            if not total:
                return None
            x = rand() * total  # below total: the integer steps below land on a seat with room
            for s in seats:
                x -= room[s]
                if x < 0:
                    break
            hands[s] |= 1 << c
            room[s] -= 1
        return hands


DRAWS = 12  # deals tried for one that fits the bids
DRAW_WORK = 5  # a deal and its weight count as this many card plays of work (measured)
BID_SD = 1.0  # spread of a bidder's predicted tricks around what its bid says, in tricks


def bid_fit(known: Known, s: int, held: int, m: bidmodel.BidModel) -> float:
    """The log of how likely seat ``s``'s bid is when it holds ``held`` now, by the bid
    model: a seat that bid n should hold about the tricks of the hands that bid n (its
    predicted tricks near that mean), a nil bidder a hand whose nil has a chance (blind
    nil, or no bid yet, says nothing)."""
    b = known.bids[s]
    if b is None or known.blind[s]:
        return 0.0
    full = held | known.played_by[s]
    if b == 0:
        return math.log(max(0.02, m.nil_chance(full)))
    d = m.mean(full) - m.bid_stats(b)[0]
    return -d * d / (2 * BID_SD * BID_SD)


def bid_weight(known: Known, hands: list[int], m: bidmodel.BidModel | None = None) -> float:
    """How likely the sampled cards are given the bids made (``bid_fit`` of every other seat)."""
    m = m or bidmodel.model()
    w = 0.0
    for s in range(4):
        if s != known.seat:
            w += bid_fit(known, s, hands[s], m)
    return math.exp(w)


def draw(known: Known, sampler: Sampler, rng: random.Random, hand: int,
         m: bidmodel.BidModel) -> tuple[list[int], float, int]:
    """A deal that fits the bids made: (hands, weight, work). Deals are kept with the
    chance ``bid_weight`` gives them (every weight is at most 1), so the play-outs are
    spent on deals the bids make likely; after ``DRAWS`` refusals the last deal is kept
    with its weight."""
    work = 0
    for _ in range(DRAWS):
        hands = sampler.deal(rng)
        hands[known.seat] = hand
        w = bid_weight(known, hands, m)
        work += DRAW_WORK
        if w >= 1.0 or rng.random() < w:
            return hands, 1.0, work
    return hands, w, work


READ_MISS = 0.08  # a deal's factor for each opponent's card Normal's play would not have chosen in it
READ_MISS_PARTNER = 0.5  # the same for the partner's cards (a partner may search, as Hard does)


class Reading:
    """The cards the other seats played this hand, each with what its seat saw when it
    played it (the trick, the cards gone, the tricks taken, the voids shown), so that
    Normal's choice can be replayed from the cards a deal gives that seat (``log_fit``)."""

    def __init__(self, known: Known) -> None:
        me = known.seat
        self.me = me
        self.ctx = known.ctx()
        # per seat: (trick, leader, gone, taken, broken, voids, card, the seat's cards from this one on)
        self.events: list[list[tuple[list[int], int, int, list[int], bool, list[int], int, int]]] = [[], [], [], []]
        self.log_miss = [math.log(READ_MISS_PARTNER if s == me ^ 2 else READ_MISS) for s in range(4)]
        gone = 0
        taken = [0, 0, 0, 0]
        broken = False
        voids = [0, 0, 0, 0]  # as knowledge notes them: a suit not followed, a spade led unbroken
        for leader, cards in [(t[0], t[1]) for t in known.tricks] + [(known.leader, known.trick)]:
            if not cards:
                continue
            led = cards[0] // 13
            if led == 0 and not broken:
                voids[leader] |= ALL_SIDE_VOID
            for i in range(len(cards)):
                c = cards[i]
                s = (leader + i) & 3
                if s != me:
                    self.events[s].append((cards[:i], leader, gone, taken[:], broken, voids[:], c, 0))
                gone |= 1 << c
                if c // 13 != led:
                    voids[s] |= 1 << led
            if len(cards) == 4:
                taken[(leader + trick_winner(cards)) & 3] += 1
                broken = broken or cards[0] < 13 or cards[1] < 13 or cards[2] < 13 or cards[3] < 13
        for evs in self.events:
            later = 0
            for j in range(len(evs) - 1, -1, -1):
                e = evs[j]
                later |= 1 << e[6]
                evs[j] = (e[0], e[1], e[2], e[3], e[4], e[5], e[6], later)
        self.plays = sum(len(evs) for evs in self.events)

    def log_fit(self, s: int, held: int) -> float:
        """The log of a deal's factor for seat ``s`` holding ``held`` now: ``log_miss[s]``
        for each card it played that Normal's play (``play_card``, with ``keep_lead`` for
        an opponent) would not have chosen from the cards it then held, nor a card
        equivalent to it from that seat's view (no card between them that it could not see)."""
        out = 0.0
        opponent = (s ^ self.me) & 1 == 1
        for trick, leader, gone, taken, broken, voids, card, later in self.events[s]:
            hand = held | later
            c = play_card(self.ctx, s, hand, trick, leader, gone, taken, broken, voids, keep_lead=opponent)
            if c != card:
                lo, hi = (c, card) if c < card else (card, c)
                between = SUIT_MASKS[lo // 13] & ((1 << hi) - 1) & ~((2 << lo) - 1)
                if lo // 13 != hi // 13 or (FULL_MASK & ~gone & ~hand) & between:
                    out += self.log_miss[s]
        return out


CHAIN_BURN = 40  # swaps before a chain's first deal
CHAIN_STEP = 3  # swaps between two deals of a chain
CHAIN_DEALS = 25  # deals of one chain before another starts from a fresh deal
SWAP_WORK = 9  # a proposed swap counts as this many card plays of work (measured), each card it replays one more


class Chain:
    """Deals that fit the play as well as the bids: a Markov chain (Metropolis-Hastings)
    over the deals the sampler allows, each step proposing to swap a card between two
    other seats, which holds each deal in proportion to ``bid_fit`` times
    ``Reading.log_fit`` of every other seat. Weighting independent deals by the same
    factors left few that counted (docs/bots.md, "Reading every card of the other seats");
    the chain spends its work on deals that fit instead. Every ``CHAIN_DEALS`` deals it
    starts again from a fresh deal (``Sampler.deal``), so that one chain's start does not
    colour a whole decision."""

    def __init__(self, known: Known, sampler: Sampler, reading: Reading, hand: int,
                 m: bidmodel.BidModel) -> None:
        self.known = known
        self.sampler = sampler
        self.reading = reading
        self.hand = hand
        self.m = m
        self.others = [s for s in range(4) if s != known.seat]
        self.hands: list[int] = []
        self.fit = [0.0, 0.0, 0.0, 0.0]  # per seat, log of its factor in the current deal
        self.left = 0

    def _fit(self, s: int, held: int) -> float:
        return bid_fit(self.known, s, held, self.m) + self.reading.log_fit(s, held)

    def _swaps(self, rng: random.Random, n: int) -> int:
        """``n`` proposed swaps; the work they took."""
        work = 0
        hands = self.hands
        may = self.sampler.may_hold
        events = self.reading.events
        for _ in range(n):
            a, b = rng.sample(self.others, 2)
            give = hands[a] & may[b]
            take = hands[b] & may[a]
            if not give or not take:
                continue
            x = _pick(give, rng)
            y = _pick(take, rng)
            na = hands[a] & ~(1 << x) | 1 << y
            nb = hands[b] & ~(1 << y) | 1 << x
            fa = self._fit(a, na)
            fb = self._fit(b, nb)
            work += SWAP_WORK + len(events[a]) + len(events[b])
            # the chance of proposing the swap back, over that of proposing this one
            back = math.log(give.bit_count() * take.bit_count()) - math.log(
                max(1, (nb & may[a]).bit_count() * (na & may[b]).bit_count()))
            gain = fa + fb - self.fit[a] - self.fit[b] + back
            if gain >= 0 or rng.random() < math.exp(gain):
                hands[a], hands[b] = na, nb
                self.fit[a], self.fit[b] = fa, fb
        return work

    def deal(self, rng: random.Random) -> tuple[list[int], int]:
        """The chain's next deal (the seat's own entry its hand) and the work it took."""
        work = 0
        if self.left == 0:
            self.hands = self.sampler.deal(rng)
            self.hands[self.known.seat] = self.hand
            for s in self.others:
                self.fit[s] = self._fit(s, self.hands[s])
            work += DRAW_WORK + self.reading.plays + self._swaps(rng, CHAIN_BURN)
            self.left = CHAIN_DEALS
        else:
            work += self._swaps(rng, CHAIN_STEP)
        self.left -= 1
        return self.hands[:], work


def _pick(mask: int, rng: random.Random) -> int:
    """A card of ``mask`` at random."""
    k = rng.randrange(mask.bit_count())
    while k:
        mask &= mask - 1
        k -= 1
    return (mask & -mask).bit_length() - 1


class Deals:
    """The deals one card decision is judged on: drawn and kept by the bids (``draw``);
    with ``read``, once the other seats have played a card this hand, from a ``Chain``
    that fits their play too."""

    def __init__(self, known: Known, hand: int, m: bidmodel.BidModel, read: bool = True) -> None:
        self.known = known
        self.hand = hand
        self.m = m
        counts = [known.held_count(s) for s in range(4)]
        self.sampler = Sampler(known.seat, counts, FULL_MASK & ~known.gone & ~hand, known.voids, known.lacks)
        reading = Reading(known) if read else None
        self.chain = Chain(known, self.sampler, reading, hand, m) if reading is not None and reading.plays else None

    def next(self, rng: random.Random) -> tuple[list[int], float, int]:
        """A deal, its weight and the work it took."""
        if self.chain is not None:
            hands, work = self.chain.deal(rng)
            return hands, 1.0, work
        return draw(self.known, self.sampler, rng, self.hand, self.m)
