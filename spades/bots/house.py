"""The bots of a house-rules table (``Rules.house``): Easy, Normal and Hard, and the bid
hint, at every shape of table (three players, cutthroat, jokers) and under every bidding
and scoring variant (whiz, mirror, suicide, a minimum bid, 10-for-200, spades led any time).

The standard table's bots (``policy``, ``bidmodel``, ``search``) are written for four
seats and 52 bits, and stay as they are; ``spades.bots.choose`` and ``hint`` hand a view
to the house bots when its rules are house rules (``house_search.choose``, ``hint``).
Everything about the table comes from its ``Rules.shape``: the seats and who sits to the
left, the sides (a team, or one player alone), the partner or none, the deck, the hand
size and the trumps.

**Slots.** Play here works on bit masks of *slots*, not of card numbers: a card's slot is
``16 * suit + power`` (a trump's power less one: jjdd has 16 trumps), its suit and its
strength as play sees them (``Shape.suit_of``, ``Shape.power``), so that within a suit a
higher slot always beats a lower one. A joker and the jjdd 2 of diamonds are spades above
the ace (their power), which makes every comparison one of integers, whatever the deck:
``Table.slot`` and ``Table.card`` convert.
The legal cards come from ``spades.rules.shape_legal_mask`` applied to the table's shape
in slot numbering (``Table.slot_shape``).

Public functions, for the levels and for the analysis of a house-rules match:

- ``read(view) -> State``: what a seat knows (its hand, the bids, the tricks, the voids
  shown), in slots.
- ``bid_for(state, level, rng) -> int`` / ``count_tricks(table, hand)``: the bid by a
  count of the cards, made legal for the variant (``view["legal"]`` is the authority).
- ``normal_card(game, seat, hand, trick, leader, gone, taken, broken, voids)``: Normal's
  card (a slot) for one seat; ``state_card(state)`` the same for a read state.
- ``play_out(game, hands, trick, leader, gone, taken, broken, voids, ...)``: a hand played
  to its end from a position where every seat's cards are known, every seat by Normal's
  heuristic; the tricks each seat took.
- ``hand_value(game, taken, side)``: a finished hand's worth to a side: its points minus
  the mean of the other sides' (bags, nils and the bag penalty counted by
  ``spades.scoring``).
- ``house_search.sample_hands(state, rng)``: the unseen cards dealt to the other seats,
  consistent with what the seat knows; ``house_search.choose_card``: Hard's card.

Imports: ``spades.cards``, ``spades.rules``, ``spades.rules_config`` and ``spades.scoring``
only.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..cards import SPADES, Card
from ..rules import shape_legal_mask
from ..rules_config import STANDARD_SHAPE, SUICIDE_BID, Rules, Shape
from ..scoring import DOUBLE_FROM, score_hand

SLOT_BITS = 16  # slots per suit: a card's slot is 16 * suit + power
SUIT_COUNT = 4
TRUMP = SPADES  # the trump suit as play sees it (suit 0: jokers and the jjdd 2D among them)
SIDE_SUITS = (1, 2, 3)

# what the count leaves out (long side cards, a partner's help, the tricks that fall to
# someone): Normal bots playing each other took this much more than the count at a full
# table, and this much more again for each seat fewer (``lift``)
LIFT, LIFT_PER_SEAT_FEWER = 0.5, 1.3
EASY_ANY, EASY_HIGH = 0.15, 0.10  # Easy's slips: a share of its cards any legal card, the highest one
NIL_KNEE = 0.8  # nil_chance's lines hold up to this risk
SUICIDE_PARTNER = 20  # suicide: a partner held to nil gives up about this much more than one held to a number

# Modes of play for one seat in one trick
WIN, DUCK, AVOID = "win", "duck", "avoid"


# -- the table in slots ------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Table:
    """A table's shape with everything play needs, in slots (made once per rules: ``table``)."""

    rules: Rules
    shape: Shape
    players: int
    left: tuple[int, ...]
    sides: tuple[tuple[int, ...], ...]
    side_of: tuple[int, ...]
    partner: tuple[int, ...]  # each seat's partner, -1 in cutthroat
    hand_size: int
    slot_of: dict[int, int]  # card number -> slot
    card_of: dict[int, Card]  # slot -> card
    deck: int  # every slot of the deck
    suits: tuple[int, ...]  # the slots of each suit as play sees it
    trumps: int  # the slots of the trumps (``suits[TRUMP]``)
    slot_shape: Shape  # the shape in slot numbering, for ``shape_legal_mask``
    lead_any: bool  # spades may be led at any time
    opps: tuple[tuple[int, ...], ...]  # each seat's opponents

    def slot(self, card: int) -> int:
        return self.slot_of[card]

    def card(self, slot: int) -> Card:
        return self.card_of[slot]

    def mask(self, cards: Sequence[int]) -> int:
        """The slot mask of some cards."""
        m = 0
        for c in cards:
            m |= 1 << self.slot_of[c]
        return m

    def cards(self, m: int) -> list[Card]:
        """The cards of a slot mask, lowest slot first."""
        return [self.card_of[s] for s in bits(m)]

    def opponents(self, seat: int) -> tuple[int, ...]:
        """Every seat not on ``seat``'s side (every other seat in cutthroat)."""
        return self.opps[seat]

    def legal(self, held: int, trick: Sequence[int], broken: bool) -> int:
        """The legal slots of ``held`` on ``trick`` (slots): ``shape_legal_mask``'s rule."""
        return shape_legal_mask(self.slot_shape, held, trick, broken, self.lead_any)


@functools.lru_cache(maxsize=64)
def table(rules: Rules) -> Table:
    """The table of ``rules`` in slots."""
    shape = rules.shape
    slot_of: dict[int, int] = {}
    card_of: dict[int, Card] = {}
    deck = 0
    suits = [0] * SUIT_COUNT
    for c in shape.deck:
        # a side card's power is its rank (0-12); a trump's runs from 1 (16 trumps in jjdd)
        s = SLOT_BITS * shape.suit_of[c] + shape.power[c] - (1 if shape.suit_of[c] == TRUMP else 0)
        slot_of[int(c)] = s
        card_of[s] = c
        deck |= 1 << s
        suits[shape.suit_of[c]] |= 1 << s
    suit_of = tuple(s // SLOT_BITS for s in range(SLOT_BITS * SUIT_COUNT))
    slot_shape = dataclasses.replace(
        shape, deck_mask=deck, trump_mask=suits[TRUMP], suit_masks=tuple(suits), side_mask=deck & ~suits[TRUMP],
        suit_of=suit_of, power=tuple(s % SLOT_BITS for s in range(SLOT_BITS * SUIT_COUNT)), standard=False)
    partner = tuple(_or_none(shape.partner(s)) for s in shape.seats)
    return Table(rules, shape, shape.players, shape.left, shape.sides, shape.side_of, partner, shape.hand_size,
                 slot_of, card_of, deck, tuple(suits), suits[TRUMP], slot_shape, rules.spades_lead == "any",
                 tuple(tuple(o for o in shape.seats if shape.side_of[o] != shape.side_of[s]) for s in shape.seats))


def _or_none(seat: int | None) -> int:
    return -1 if seat is None else seat


# -- small mask helpers ------------------------------------------------------------------

def bits(m: int) -> Iterator[int]:
    """The slots of a mask, lowest first."""
    while m:
        lo = m & -m
        yield lo.bit_length() - 1
        m ^= lo


def low(m: int) -> int:
    """The lowest slot of a non-empty mask."""
    return (m & -m).bit_length() - 1


def high(m: int) -> int:
    """The highest slot of a non-empty mask."""
    return m.bit_length() - 1


def suit(slot: int) -> int:
    return slot >> 4


def power(slot: int) -> int:
    return slot & 15


def beats(a: int, w: int) -> bool:
    """Whether slot ``a`` beats ``w``, the slot winning the trick so far."""
    if a >> 4 == w >> 4:
        return a > w
    return a >> 4 == TRUMP


def trick_winner(trick: Sequence[int]) -> int:
    """The index in ``trick`` of the slot winning it so far (``beats``, written out: the
    play-outs and the double-dummy search, ``house_solver``, ask it at every trick)."""
    best = 0
    for i in range(1, len(trick)):
        c, w = trick[i], trick[best]
        if c >> 4 == w >> 4:
            if c > w:
                best = i
        elif c >> 4 == TRUMP:
            best = i
    return best


# -- what a seat knows -------------------------------------------------------------------

@dataclass(slots=True)
class Game:
    """What is fixed for a hand once bid (or while bidding, the bids so far): the table,
    the bids and the match's scores and bags (per side)."""

    table: Table
    bids: list[int | None]  # 0 for nil; None not yet bid
    blind: list[bool]
    scores: list[int]
    bags: list[int]


@dataclass(slots=True)
class State:
    """Everything one seat knows about the hand in progress, in slots."""

    seat: int
    game: Game
    dealer: int
    hand: int | None  # None: not looked yet
    trick: list[int]
    leader: int
    taken: list[int]
    broken: bool
    gone: int  # every slot played this hand, the trick in progress included
    played_by: list[int]  # per seat, the slots it played this hand
    voids: list[int]  # per seat, bit s set when it is known void in suit s
    legal: list  # the view's legal actions (the authority)
    hand_number: int = 1
    tricks_done: int = 0

    @property
    def table(self) -> Table:
        return self.game.table

    def held_count(self, seat: int) -> int:
        """How many cards ``seat`` still holds."""
        return self.game.table.hand_size - self.played_by[seat].bit_count()


def bid_value(b: object) -> int | None:
    """A bid from the view's JSON (``"nil"`` -> 0)."""
    if b is None:
        return None
    if b == "nil" or b == "blind_nil":
        return 0
    return int(b)  # type: ignore[call-overload]


def read(view: dict) -> State:
    """The seat's knowledge from its view (BOTS.md), at a table of any shape."""
    rules = Rules.from_dict(view.get("rules"))
    t = table(rules)
    n = t.players
    seat = view["seat"]
    hand = t.mask([Card.parse(c) for c in view["hand"]]) if view.get("hand") is not None else None
    game = Game(t, [bid_value(b) for b in view["bids"]], list(view.get("blind") or [False] * n),
                list(view.get("scores") or [0] * len(t.sides)), list(view.get("bags") or [0] * len(t.sides)))
    played_by = [0] * n
    voids = [0] * n
    gone = 0
    broken = False
    done = 0
    for tr in view.get("tricks") or []:
        slots = [t.slot(Card.parse(c)) for c in tr["cards"]]
        _note(t, slots, tr["leader"], broken, played_by, voids)
        for s in slots:
            gone |= 1 << s
            if s >> 4 == TRUMP:
                broken = True
        done += 1
    cur = view.get("trick")
    if cur:
        trick = [t.slot(Card.parse(c)) for c in cur["cards"]]
        leader = cur["leader"]
    else:
        trick = []
        leader = t.left[view["dealer"]]
    _note(t, trick, leader, broken, played_by, voids)
    for s in trick:
        gone |= 1 << s
    return State(seat, game, view["dealer"], hand, trick, leader, list(view.get("taken") or [0] * n),
                 bool(view.get("spades_broken", broken)), gone, played_by, voids, list(view.get("legal") or []),
                 int(view.get("hand_number") or 1), done)


def _note(t: Table, slots: list[int], leader: int, broken: bool, played_by: list[int], voids: list[int]) -> None:
    """Record who played what in one trick and the voids it shows."""
    if not slots:
        return
    led = slots[0] >> 4
    if led == TRUMP and not broken and not t.lead_any:
        voids[leader] |= 0b1110  # a trump lead before trumps broke: only trumps held
    s = leader
    for c in slots:
        played_by[s] |= 1 << c
        if c >> 4 != led:
            voids[s] |= 1 << led
        s = t.left[s]


# -- bidding -----------------------------------------------------------------------------

def lift(shape: Shape) -> float:
    """The tricks a hand takes beyond its count at this shape of table: 0.5 with four
    players, 1.8 with three (more cards each, and fewer players over a card).

    >>> from spades.rules_config import shape_of
    >>> lift(STANDARD_SHAPE), lift(shape_of(3, False))
    (0.5, 1.8)
    """
    return LIFT + LIFT_PER_SEAT_FEWER * (STANDARD_SHAPE.players - shape.players)


def count_tricks(t: Table, hand: int) -> float:
    """The tricks a hand should take, counted as a player counts them: the sure high
    trumps and guarded ones (jokers and the jjdd 2D are the top trumps), trump length,
    ruffs in short side suits with the trumps to spare, side aces, guarded kings and
    queens; scaled to the table (three players hold 17 cards, and a king there has two
    players over it, not three)."""
    n = t.players
    trumps = hand & t.trumps
    count = trumps.bit_count()
    est = 0.0
    used = 0
    # trumps from the top: one with h higher trumps out wins when we have h cards to spare
    higher_out = 0
    ours_below = count
    for s in range(high(t.trumps), low(t.trumps) - 1, -1):
        if not t.trumps >> s & 1:
            continue
        if hand >> s & 1:
            ours_below -= 1
            if higher_out == 0:
                est += 1.0
                used += 1
            elif higher_out == 1 and ours_below >= 1:
                est += 0.75
                used += 1
            elif higher_out == 2 and ours_below >= 2:
                est += 0.45
                used += 1
        else:
            higher_out += 1
        if higher_out > 3 and ours_below == 0:
            break
    spare = count - used
    share = t.trumps.bit_count() / n  # an even share of the trumps
    # side suits: aces, guarded kings and queens; short suits to ruff in
    ruffs = 0.0
    for s in SIDE_SUITS:
        part = hand & t.suits[s]
        length = part.bit_count()
        suit_size = t.suits[s].bit_count()
        long_suit = length > suit_size / n + 2
        if length == 0:
            r = min(spare, 2 if n == 4 else 1)
            ruffs += r * 0.85
            spare -= r
            continue
        if length == 1 and spare:
            ruffs += 0.6
            spare -= 1
        top = high(t.suits[s])
        for c in bits(part):
            gap = top - c  # cards of the suit above this one
            if gap == 0:
                est += 0.7 if long_suit else 1.0
            elif gap == 1 and length >= 2:
                est += (0.85 if n == 3 else 0.75) * (0.5 if long_suit else 1.0)
            elif gap == 1:
                est += 0.2
            elif gap == 2 and length >= 3:
                est += 0.5 if n == 3 else 0.35
    est += ruffs
    if spare > 0 and count > share + 1:
        est += 0.7 * min(spare, count - share - 1)
    return est + lift(t.shape)


def nil_risk(t: Table, hand: int) -> float:
    """How likely a nil with this hand is to fail, roughly (0 safe .. 1 hopeless): high
    trumps or many trumps, and side high cards without small ones under them."""
    trumps = hand & t.trumps
    count = trumps.bit_count()
    risk = 0.0
    if trumps:
        top = high(t.trumps)
        h = top - high(trumps)  # how many trumps rank above our highest (slots are contiguous)
        if h < 3:
            return 1.0
        risk += max(0.0, 0.5 - 0.06 * h)
        share = t.trumps.bit_count() / t.players
        risk += max(0.0, count - share + 1) * 0.25
    for s in SIDE_SUITS:
        part = hand & t.suits[s]
        if not part:
            continue
        top = high(t.suits[s])
        bottom = low(t.suits[s])
        smalls = 0
        for c in bits(part):
            rank = c - bottom
            if rank <= 5:
                smalls += 1
            elif top - c <= 1:  # an ace or king
                risk += 0.6 if smalls < 3 else 0.2
            elif top - c <= 3:  # queen or jack
                risk += 0.3 if smalls < 2 else 0.05
    return min(1.0, risk)


def nil_chance(t: Table, risk: float) -> float:
    """A nil's chance to be made by a hand of ``risk`` (``nil_risk``) against Normal's
    play: with a partner to cover it, or alone against every other seat (cutthroat, where
    three players hold more cards each), measured by play-outs of dealt hands."""
    if t.players == 3:
        top, slope = 0.45, 0.5
    elif not t.rules.partners:
        top, slope = 0.65, 0.55
    else:
        top, slope = 0.95, 0.3
    if risk <= NIL_KNEE:
        return max(0.0, top - slope * risk)
    # beyond the hands measured, down to next to nothing for a hopeless one
    at_knee = max(0.0, top - slope * NIL_KNEE)
    return max(0.0, at_knee - (at_knee - 0.05) * (risk - NIL_KNEE) / (1 - NIL_KNEE))


def number_worth(bid: int, est: float) -> float:
    """What a bid of ``bid`` tricks is worth, roughly, to a hand counted at ``est``: the
    contract when the count reaches it, a set growing with the shortfall when not."""
    if est + 0.5 >= bid:
        return 10.0 * bid
    return -10.0 * bid * min(1.0, (bid - est) / 2)


def desired_bid(state: State, cautious: bool = False) -> int:
    """The bid a seat wants by its count (0 for nil), before the variant's limits.
    ``cautious``: no daring nils (Easy)."""
    assert state.hand is not None
    t = state.table
    g = state.game
    hand = state.hand
    seat = state.seat
    est = count_tricks(t, hand)
    risk = nil_risk(t, hand)
    partner = t.partner[seat]
    pbid = g.bids[partner] if partner >= 0 else None
    cutthroat = partner < 0
    variant = t.rules.bidding_variant
    raw = est - lift(t.shape)  # the count itself, the cards that win alone
    chance = nil_chance(t, risk) - (0.1 if cautious else 0.0)
    # a nil is worth 100 to its side (to the bidder alone in cutthroat); a partner's
    # nil costs the team some of its tricks to cover it
    nil_worth = 200 * chance - 100 - (0 if cutthroat else 20)
    number = max(1, int(est + 0.4))
    nil = raw < 2.0 and nil_worth >= number_worth(number, est) + 5
    if pbid == 0 and variant != "suicide":
        nil = False  # one nil on a team is enough
    if pbid is not None and 0 < pbid < 3 and raw >= 0.6:
        nil = False  # a partner's small bid cannot carry a nil's team
    if variant == "whiz":
        held = (hand & t.trumps).bit_count()
        return 0 if held == 0 or nil_worth >= number_worth(held, est) else held
    if variant == "suicide":
        if pbid is None:  # the team's first bidder chooses; the partner is held to the other
            number = max(SUICIDE_BID, number)
            return 0 if nil_worth >= number_worth(number, est) + SUICIDE_PARTNER else number
        if pbid == 0:
            return max(SUICIDE_BID, number)
        return 0
    if nil:
        return 0
    bid = max(1, int(est + 0.4))
    if t.rules.ten_for_200:
        bid = _ten_for_200(bid, est, pbid if not cutthroat else None)
    return bid


def _ten_for_200(bid: int, est: float, pbid: int | None) -> int:
    """Under 10-for-200 a contract of ten or more counts double both ways: reach it only
    when the count expects it, and keep under it otherwise."""
    partner = pbid or 0
    team_est = est + partner
    if bid + partner >= DOUBLE_FROM and team_est < DOUBLE_FROM + 0.5:
        return max(1, DOUBLE_FROM - 1 - partner)
    if bid + partner == DOUBLE_FROM - 1 and team_est >= DOUBLE_FROM + 0.5:
        return bid + 1
    return bid


def legal_bid(want: int, legal: list, est: float) -> int | str:
    """The legal bid nearest the one wanted: ``legal`` is the view's list (the authority)."""
    if want == 0 and "nil" in legal:
        return "nil"
    numbers = [b for b in legal if isinstance(b, int)]
    if not numbers:
        return "nil" if "nil" in legal else legal[0]
    target = want if want > 0 else max(1, round(est))
    return min(numbers, key=lambda b: (abs(b - target), b))


def bid_for(state: State, level: str, rng: random.Random) -> int | str:
    """The bid of ``level`` (JSON form: a number or ``"nil"``), one of ``state.legal``."""
    assert state.hand is not None
    legal = [b for b in state.legal if b != "blind_nil" and b != "look"]
    est = count_tricks(state.table, state.hand)
    want = desired_bid(state, cautious=level == "easy")
    if level == "easy" and want > 0:
        r = rng.random()
        if r < 0.15:
            want += 1
        elif r < 0.3:
            want = max(1, want - 1)
    choice = legal_bid(want, legal, est)
    assert choice in state.legal
    return choice


# -- play --------------------------------------------------------------------------------

def side_need(game: Game, side: int, taken: list[int]) -> tuple[int, int]:
    """(contract, tricks toward it) of a side; nil bidders are left out of both."""
    contract = got = 0
    for s in game.table.sides[side]:
        b = game.bids[s]
        if b:
            contract += b
            got += taken[s]
    return contract, got


def _stance(game: Game, seat: int, taken: list[int], hand: int, others: int) -> tuple[str, bool, list[int]]:
    """The seat's mode (WIN, DUCK or AVOID), whether its partner's nil is alive (to
    cover), and the opponents whose nil is alive."""
    t = game.table
    bids = game.bids
    nil_opps = [o for o in t.opponents(seat) if bids[o] == 0 and taken[o] == 0]
    if bids[seat] == 0:
        return AVOID, False, nil_opps
    p = t.partner[seat]
    cover = p >= 0 and bids[p] == 0 and taken[p] == 0
    side = t.side_of[seat]
    contract, got = side_need(game, side, taken)
    mode = WIN
    if contract > 0 and got >= contract:
        mode = _mode_when_made(game, seat, taken, got - contract, hand, others)
    return mode, cover, nil_opps


def _mode_when_made(game: Game, seat: int, taken: list[int], over: int, hand: int, others: int) -> str:
    """WIN or DUCK for a side whose contract is made: extra tricks are bags, unless a set
    of an opponent is within reach and chasing it stays clear of the bag penalty."""
    t = game.table
    remaining = t.hand_size - sum(taken)
    side = t.side_of[seat]
    bag_room = 10 - game.bags[side] - over if t.rules.bag_penalty else 99
    p = t.partner[seat]
    helper = max(0, (game.bids[p] or 0) - taken[p]) if p >= 0 else 0
    tops = _top_tricks(t, hand, others)
    for o in range(len(t.sides)):
        if o == side:
            continue
        contract, got = side_need(game, o, taken)
        need = contract - got
        if contract and 0 < need <= remaining:
            to_set = remaining - need + 1
            if bag_room > to_set and to_set <= 1 + helper + tops:
                return WIN
    return DUCK


def _top_tricks(t: Table, hand: int, others: int) -> int:
    """The tricks ``hand`` takes from the top: each suit's run of bosses."""
    total = 0
    for s in range(SUIT_COUNT):
        part = hand & t.suits[s]
        if not part:
            continue
        theirs = others & t.suits[s]
        run = (part & ~((1 << high(theirs)) - 1)).bit_count() if theirs else part.bit_count()
        total += run if s == TRUMP else min(run, 1 + theirs.bit_count() // t.players)
    return total


def normal_card(game: Game, seat: int, hand: int, trick: list[int], leader: int, gone: int,
                taken: list[int], broken: bool, voids: list[int] | None = None) -> int:
    """Normal's card (a slot) for ``seat`` holding ``hand`` (slots) on ``trick``."""
    t = game.table
    legal = t.legal(hand, trick, broken)
    if legal & (legal - 1) == 0:
        return low(legal)
    others = t.deck & ~gone & ~hand
    mode, cover, nil_opps = _stance(game, seat, taken, hand, others)
    partner = t.partner[seat]
    if not trick:
        return _lead(t, seat, hand, legal, others, mode, cover, nil_opps, voids)
    seats_after = []
    s = t.left[seat]
    for _ in range(t.players - 1 - len(trick)):
        seats_after.append(s)
        s = t.left[s]
    led = trick[0] >> 4
    wi = trick_winner(trick)
    w = trick[wi]
    winner_seat = leader
    for _ in range(wi):
        winner_seat = t.left[winner_seat]
    follow = hand & t.suits[led]
    if mode == AVOID:
        return _lose(t, legal, follow, w, seats_after)
    if cover:
        card = _cover_nil(t, legal, follow, w, led, winner_seat == partner, partner in seats_after,
                          bool(seats_after))
        if card >= 0:
            return card
    for nil_opp in nil_opps:
        card = _set_nil(t, legal, follow, w, led, nil_opp, winner_seat, partner, seats_after, others, voids)
        if card >= 0:
            return card
    if mode == DUCK:
        return _lose(t, legal, follow, w, seats_after)
    return _win(t, hand, legal, follow, w, led, len(trick), winner_seat == partner, seats_after, others, voids)


def state_card(state: State) -> Card:
    """Normal's card for a read state (whose seat is to play)."""
    assert state.hand is not None
    slot = normal_card(state.game, state.seat, state.hand, state.trick, state.leader, state.gone, state.taken,
                       state.broken, state.voids)
    return state.table.card(slot)


def _above(t: Table, slot: int) -> int:
    return t.suits[slot >> 4] & ~((2 << slot) - 1)


def _below(t: Table, slot: int) -> int:
    return t.suits[slot >> 4] & ((1 << slot) - 1)


def _beating(t: Table, m: int, w: int) -> int:
    """The slots of ``m`` that would beat ``w``."""
    if w >> 4 == TRUMP:
        return m & _above(t, w)
    return (m & _above(t, w)) | (m & t.trumps)


def _sure(t: Table, w: int, led: int, others: int, seats_after: list[int], voids: list[int] | None) -> bool:
    """Whether the winning slot ``w`` cannot be beaten by the seats still to play."""
    if others & _above(t, w):
        return False
    if w >> 4 == TRUMP or not seats_after or not (others & t.trumps):
        return True
    if voids is not None and any(voids[s] >> led & 1 for s in seats_after):
        return False
    return (others & t.suits[led]).bit_count() >= 2 * len(seats_after)


def _lowest_equivalent(t: Table, m: int, others: int) -> int:
    """The lowest slot of ``m`` (one suit) as good as its highest: no card of others between."""
    h = high(m)
    theirs = others & _below(t, h)
    if not theirs:
        return low(m)
    return low(m & ~((2 << high(theirs)) - 1))


def _discard_low(t: Table, legal: int, follow: int) -> int:
    """Lose the least useful card: the lowest of the suit followed, else a low side card
    from the suit we hold most of (keeping short suits short for ruffing)."""
    if follow:
        return low(legal)
    best = -1
    best_key = (99, 0)
    for s in SIDE_SUITS:
        part = legal & t.suits[s]
        if part:
            c = low(part)
            key = (c & 15, -part.bit_count())
            if key < best_key:
                best, best_key = c, key
    return best if best >= 0 else low(legal)


def _lose(t: Table, legal: int, follow: int, w: int, seats_after: list[int]) -> int:
    """Avoid the trick: the highest card that still loses, else give it cheaply."""
    lose = legal & ~_beating(t, legal, w)
    if follow:
        lose_f = lose & follow
        if lose_f:
            return high(lose_f)
        return high(follow) if not seats_after else low(follow)
    if lose:
        if w >> 4 == TRUMP and lose & t.trumps:
            return high(lose & t.trumps)
        side = lose & ~t.trumps
        if side:
            best = -1
            for s in SIDE_SUITS:
                part = side & t.suits[s]
                if part and (best < 0 or (part.bit_length() - 1) & 15 > best & 15):
                    best = high(part)
            return best
        return high(lose)
    return low(legal)


def _cover_nil(t: Table, legal: int, follow: int, w: int, led: int, partner_winning: bool,
               partner_after: bool, anyone_after: bool) -> int:
    """A card that takes the trick over the partner's nil, or -1 to play on as usual."""
    if partner_winning or partner_after:
        win = _beating(t, legal, w)
        if win:
            if partner_after and follow:
                return high(win)
            part = win & t.suits[led]
            return low(part) if part else low(win)
    elif anyone_after:
        return _discard_low(t, legal, follow)
    return -1


def _set_nil(t: Table, legal: int, follow: int, w: int, led: int, nil_opp: int, winner_seat: int,
             partner: int, seats_after: list[int], others: int, voids: list[int] | None) -> int:
    """A card that leaves the trick to an opponent's live nil, or -1 to play on."""
    lose = legal & ~_beating(t, legal, w)
    if winner_seat == nil_opp:
        if lose:
            part = lose & t.suits[led]
            if follow and part:
                return high(part)
            return highest_side(t, lose)
        return -1
    if nil_opp not in seats_after:
        return -1
    if voids is not None and voids[nil_opp] >> led & 1:
        return -1  # it will throw a card away
    if winner_seat != partner and w >> 4 == led and (others & _below(t, w)).bit_count() > 4:
        return -1  # room under the winner for it to duck anyway
    if lose & follow:
        return high(lose & follow)
    if lose:
        return _discard_low(t, lose, 0)
    return -1


def highest_side(t: Table, m: int) -> int:
    """The highest-ranked side card of ``m`` (a trump only when there is none)."""
    side = m & ~t.trumps
    if not side:
        return high(m)
    best = -1
    for s in SIDE_SUITS:
        part = side & t.suits[s]
        if part and (best < 0 or high(part) & 15 > best & 15):
            best = high(part)
    return best


def _win(t: Table, hand: int, legal: int, follow: int, w: int, led: int, pos: int, partner_winning: bool,
         seats_after: list[int], others: int, voids: list[int] | None) -> int:
    """A card for the WIN mode: take the trick cheaply, unless the partner surely has it."""
    if partner_winning and _sure(t, w, led, others, seats_after, voids):
        return _discard_low(t, legal, follow)
    if follow:
        win = _beating(t, follow, w)
        if not win:
            return low(follow)
        if not seats_after:
            return low(win)
        theirs = others & t.suits[led]
        if pos == 1 and len(seats_after) >= 1:
            # second hand low, but take a high lead with a boss
            boss = win & ~(_below(t, high(theirs)) if theirs else 0)
            if boss and (w & 15 >= 9 or theirs.bit_count() <= 3):
                return _lowest_equivalent(t, boss, others)
            return low(follow)
        top = high(win)
        if not (others & _above(t, top)):
            boss = win & ~(_below(t, high(theirs)) if theirs else 0)
            return _lowest_equivalent(t, boss or win, others)
        if partner_winning:
            return low(follow)
        return top
    if led != TRUMP:
        trumps = _beating(t, hand & t.trumps, w)
        if trumps:
            return low(trumps)
    return _discard_low(t, legal, 0)


def _lead(t: Table, seat: int, hand: int, legal: int, others: int, mode: str, cover: bool,
          nil_opps: list[int], voids: list[int] | None) -> int:
    """The card to lead: high over the partner's nil, low to duck or set a nil, else the
    card likeliest to win (to our strength)."""
    if cover:
        return _lead_over_nil(t, legal, others, t.partner[seat], voids)
    if mode != WIN or nil_opps:
        return _lead_low(t, legal, others, nil_opps, voids)
    return _lead_to_win(t, seat, hand, legal, others, voids)


def _lead_low(t: Table, legal: int, others: int, nil_opps: list[int], voids: list[int] | None) -> int:
    """The low lead: the card fewest others can go under, sparing trumps; against a nil,
    in a suit the nil bidder still holds."""
    best = -1
    best_key: tuple = (99,)
    for s in (1, 2, 3, 0):
        part = legal & t.suits[s]
        if not part:
            continue
        c = low(part)
        theirs_below = (others & _below(t, c)).bit_count()
        nil_void = voids is not None and any(voids[o] >> s & 1 for o in nil_opps)
        sure_win = not (others & _above(t, c))
        key = (1 if sure_win else 0, 1 if nil_void else 0, 1 if s == TRUMP else 0, theirs_below, c & 15)
        if key < best_key:
            best, best_key = c, key
    return best


def _lead_over_nil(t: Table, legal: int, others: int, partner: int, voids: list[int] | None) -> int:
    """The lead over the partner's nil: a boss, in a suit the partner is void in first."""
    best = -1
    best_key: tuple = ()
    for s in (1, 2, 3, 0):
        part = legal & t.suits[s]
        if not part:
            continue
        top = high(part)
        boss = not (others & _above(t, top)) and bool(others & t.suits[s])
        void = voids is not None and voids[partner] >> s & 1
        key = (1 if boss else 0, 1 if void else 0, top & 15, part.bit_count())
        if key > best_key:
            best, best_key = top, key
    return best


def _lead_to_win(t: Table, seat: int, hand: int, legal: int, others: int, voids: list[int] | None) -> int:
    """Cash a side boss, draw trumps with the boss trump, make a void to ruff, else lead
    low from the longest side suit."""
    opps = t.opponents(seat)
    best, best_n = -1, -1
    for s in SIDE_SUITS:
        part = legal & t.suits[s]
        if not part:
            continue
        top = high(part)
        theirs = others & t.suits[s]
        if theirs and not (theirs & _above(t, top)):
            if voids is not None and any(voids[o] >> s & 1 for o in opps) and others & t.trumps:
                continue
            n = theirs.bit_count()
            if n > best_n:
                best, best_n = top, n
    if best >= 0 and best_n >= 2:
        return best
    sp = legal & t.trumps
    theirs_sp = others & t.trumps
    boss_sp = bool(sp and theirs_sp and not (theirs_sp & _above(t, high(sp))))
    if boss_sp and sp.bit_count() >= 2:
        return high(sp)
    if best >= 0:
        return best
    if (hand & t.trumps).bit_count() >= 2:
        for s in SIDE_SUITS:
            part = legal & t.suits[s]
            if part.bit_count() == 1 and (t.suits[s] & ~((2 << high(part)) - 1)).bit_count() >= 2:
                return high(part)
    p = t.partner[seat]
    card = -1
    key: tuple = (-1,)
    for s in SIDE_SUITS:
        part = legal & t.suits[s]
        if part:
            pv = p >= 0 and voids is not None and voids[p] >> s & 1
            k = (0 if pv else 1, part.bit_count())
            if k > key:
                card, key = low(part), k
    if card >= 0:
        return card
    return high(sp) if boss_sp else low(legal)


# -- a hand played out, and its value ----------------------------------------------------

def play_out(game: Game, hands: list[int], trick: list[int], leader: int, gone: int, taken: list[int],
             broken: bool, voids: list[int], first: int = -1) -> tuple[list[int], int]:
    """Play the hand to its end from a position where every seat's cards are known
    (``hands``, slots), every seat by Normal's heuristic; ``first`` (a slot), when given,
    is the card of the seat to play now. Returns the tricks each seat took and the card
    plays simulated. The lists given are not changed."""
    t = game.table
    n = t.players
    left = t.left
    hands = list(hands)
    trick = list(trick)
    taken = list(taken)
    voids = list(voids)
    seat = leader
    for _ in range(len(trick)):
        seat = left[seat]
    plays = 0
    while True:
        hand = hands[seat]
        if not hand:
            break
        if first >= 0:
            card, first = first, -1
        else:
            card = normal_card(game, seat, hand, trick, leader, gone, taken, broken, voids)
        plays += 1
        if trick and card >> 4 != trick[0] >> 4:
            voids[seat] |= 1 << (trick[0] >> 4)
        hands[seat] = hand & ~(1 << card)
        gone |= 1 << card
        trick.append(card)
        if len(trick) < n:
            seat = left[seat]
            continue
        wi = trick_winner(trick)
        if trick[wi] >> 4 == TRUMP:
            broken = True
        winner = leader
        for _ in range(wi):
            winner = left[winner]
        taken[winner] += 1
        trick = []
        leader = seat = winner
    return taken, plays


def hand_value(game: Game, taken: list[int], side: int) -> float:
    """A finished hand's worth to ``side``: its points (bags, nils and the bag penalty
    counted by ``spades.scoring``) minus the mean of the other sides' points."""
    t = game.table
    bids: list[int | None] = [b or 0 for b in game.bids]
    points = score_hand(t.rules, bids, game.blind, taken, game.bags).points
    others = [p for i, p in enumerate(points) if i != side]
    return points[side] - sum(others) / len(others)


# -- the levels --------------------------------------------------------------------------

def hint(view: dict) -> int | str:
    """The bid Hard would make (its count, as Normal's), legal for the table's variant."""
    state = read(view)
    if state.hand is None:
        raise ValueError("The seat has not looked at its cards yet.")
    if state.game.bids[state.seat] is not None or not state.table.rules.bidding:
        raise ValueError("The seat has no bid to make.")
    if not [b for b in state.legal if b not in ("look", "blind_nil")]:
        state.legal = variant_bids(state)  # not this seat's turn yet: the bids its variant allows now
    return bid_for(state, "normal", random.Random(0))


def variant_bids(state: State) -> list:
    """The bids the table's variant and minimum allow this seat with the bids made so far
    (``Match``'s rule, for a hint asked before the seat's turn), in the view's order."""
    assert state.hand is not None
    t = state.table
    rules = t.rules
    numbers = list(range(1, t.hand_size + 1))
    held = (state.hand & t.trumps).bit_count()
    p = t.partner[state.seat]
    pbid = state.game.bids[p] if p >= 0 else None
    variant = rules.bidding_variant
    if variant == "whiz":
        numbers = [held] if held else []
    elif variant == "mirror":
        return [held] if held else ["nil"]
    elif variant == "suicide":
        if pbid == 0:
            return [b for b in numbers if b >= SUICIDE_BID]
        if pbid is not None:
            return ["nil"]
        numbers = [b for b in numbers if b >= SUICIDE_BID]
    elif rules.min_bid and pbid:
        numbers = [b for b in numbers if b + pbid >= rules.min_bid]
    return [*numbers, "nil"]
