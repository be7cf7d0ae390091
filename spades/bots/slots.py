"""The cards as the house bots, their search, the house solver and the analysis of a
house-rules hand see them: *slots*, one numbering at a table of any shape.

A card's slot is ``16 * suit + power``, its suit and its strength as play sees them
(``Shape.suit_of``, ``Shape.power``; a trump's power less one, as jjdd has 16 trumps), so
that within a suit a higher slot always beats a lower one and a trick's winner, the
runs of equivalent cards and the legal cards are a few integer operations. A joker and
the jjdd 2 of diamonds are spades above the ace (their power). A card removed from the
deck leaves its slot empty (the 2 of diamonds of a jokers deck): nothing here counts on
a suit's slots being contiguous. ``Table.slot`` and ``Table.card`` convert; the legal
cards come from ``spades.rules.shape_legal_mask`` applied to the table's shape in slot
numbering (``Table.slot_shape``).

Here, once: the table in slots (``table(rules)``, made once per rules), the bit helpers
(``bits``, ``low``, ``high``), the order of the cards (``beats``, ``trick_winner``,
``above``, ``below``, ``beating``) and the runs of equivalent cards (``runs``): cards of
one suit in one hand with no live card of another seat, or on the trick, between them
win and lose the same tricks.

The standard table's bots (``policy``, ``solver``, ``search``) number a card 0-51 by
``13 * suit + rank`` and stay apart: the standard solver for its speed (measured in
``spades.bots.solver``'s docstring), the standard play for its measured strength (the
house play-out is as fast: ``python -m bench.house_bots --playouts``; docs/bots.md).

Imports: ``spades.cards``, ``spades.rules`` and ``spades.rules_config`` only.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..cards import SPADES, Card
from ..rules import shape_legal_mask
from ..rules_config import Rules, Shape

SLOT_BITS = 16  # slots per suit: a card's slot is 16 * suit + power
SUIT_SLOTS = (1 << SLOT_BITS) - 1  # a suit's slots, shifted to suit 0
SUIT_COUNT = 4
TRUMP = SPADES  # the trump suit as play sees it (suit 0: jokers and the jjdd 2D among them)
SIDE_SUITS = (1, 2, 3)


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

    def card_mask(self, m: int) -> int:
        """The mask of card numbers of a slot mask (``mask``'s inverse)."""
        out = 0
        for s in bits(m):
            out |= 1 << int(self.card_of[s])
        return out

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
def numbers(shape: Shape) -> tuple[int, ...]:
    """Each card number's slot at a table of ``shape`` (-1: not in its deck)."""
    out = [-1] * 54
    for c in shape.deck:
        # a side card's power is its rank (0-12); a trump's runs from 1 (16 trumps in jjdd)
        out[c] = SLOT_BITS * shape.suit_of[c] + shape.power[c] - (1 if shape.suit_of[c] == TRUMP else 0)
    return tuple(out)


def slot_mask(slot_of: tuple[int, ...], cards: int) -> int:
    """The slot mask of a mask of card numbers (``slot_of``: ``numbers(shape)``)."""
    out = 0
    while cards:
        lo = cards & -cards
        out |= 1 << slot_of[lo.bit_length() - 1]
        cards ^= lo
    return out


@functools.lru_cache(maxsize=64)
def table(rules: Rules) -> Table:
    """The table of ``rules`` in slots."""
    shape = rules.shape
    slot_of: dict[int, int] = {}
    card_of: dict[int, Card] = {}
    deck = 0
    suits = [0] * SUIT_COUNT
    number = numbers(shape)
    for c in shape.deck:
        s = number[c]
        slot_of[int(c)] = s
        card_of[s] = c
        deck |= 1 << s
        suits[shape.suit_of[c]] |= 1 << s
    suit_of = tuple(s // SLOT_BITS for s in range(SLOT_BITS * SUIT_COUNT))
    slot_shape = dataclasses.replace(
        shape, deck_mask=deck, trump_mask=suits[TRUMP], suit_masks=tuple(suits), side_mask=deck & ~suits[TRUMP],
        suit_of=suit_of, power=tuple(s % SLOT_BITS for s in range(SLOT_BITS * SUIT_COUNT)), standard=False)
    partner = tuple(_or_none(shape.partner(s)) for s in shape.seats)
    return Table(rules, shape, shape.players, shape.left, shape.sides, shape.side_of, partner,
                 shape.hand_size, slot_of, card_of, deck, tuple(suits), suits[TRUMP], slot_shape,
                 rules.spades_lead == "any",
                 tuple(tuple(o for o in shape.seats if shape.side_of[o] != shape.side_of[s]) for s in shape.seats))


def _or_none(seat: int | None) -> int:
    return -1 if seat is None else seat


# -- bits --------------------------------------------------------------------------------

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


# -- the order of the cards --------------------------------------------------------------

def beats(a: int, w: int) -> bool:
    """Whether slot ``a`` beats ``w``, the slot winning the trick so far."""
    if a >> 4 == w >> 4:
        return a > w
    return a >> 4 == TRUMP


def trick_winner(trick: Sequence[int]) -> int:
    """The index in ``trick`` (slots) of the slot winning it so far (``beats``, written
    out: the play-outs and the double-dummy search ask it at every trick)."""
    best = 0
    for i in range(1, len(trick)):
        c, w = trick[i], trick[best]
        if c >> 4 == w >> 4:
            if c > w:
                best = i
        elif c >> 4 == TRUMP:
            best = i
    return best


def above(t: Table, slot: int) -> int:
    """The slots of ``slot``'s suit above it."""
    return t.suits[slot >> 4] & ~((2 << slot) - 1)


def below(t: Table, slot: int) -> int:
    """The slots of ``slot``'s suit below it."""
    return t.suits[slot >> 4] & ((1 << slot) - 1)


def beating(t: Table, m: int, w: int) -> int:
    """The slots of ``m`` that would beat ``w``."""
    if w >> 4 == TRUMP:
        return m & above(t, w)
    return (m & above(t, w)) | (m & t.trumps)


# -- runs of equivalent cards ------------------------------------------------------------

def runs(m: int, live: int) -> list[int]:
    """The runs of equivalent slots of ``m`` (one hand's), each a mask: slots of one suit
    with no slot of ``live`` (every other seat's cards, and the trick's) between them.
    Suit by suit from the trumps, each suit's highest run first: slots 0, 1 and 3 with
    slot 2 live are the runs {3} and {0, 1}."""
    out = []
    for s in range(SUIT_COUNT):
        base = SLOT_BITS * s
        part = m & (SUIT_SLOTS << base)
        while part:
            top = part.bit_length() - 1
            under = live & ((1 << top) - (1 << base))  # live slots of the suit below the top
            floor = under.bit_length() if under else base
            run = part & ~((1 << floor) - 1)
            out.append(run)
            part ^= run
    return out


def lowest_equivalent(m: int, live: int) -> int:
    """The lowest slot of ``m`` (one suit) as good as its highest."""
    return low(runs(m, live)[0])


__all__ = ["SLOT_BITS", "SUIT_COUNT", "TRUMP", "SIDE_SUITS", "Table", "table", "numbers", "slot_mask", "bits", "low",
           "high", "suit", "power", "beats", "trick_winner", "above", "below", "beating", "runs", "lowest_equivalent"]
