"""Cards and their text forms: the smallest values of the rules core.

A card is an ``int`` from 0 to 51 (``suit * 13 + rank``) that prints as its notation,
rank ``23456789TJQKA`` and suit ``SHDC``. Sets of cards are 52-bit masks, which keeps
the engine fast enough for bots that simulate thousands of hands per decision.
Imports: stdlib only.

>>> Card.parse("QS"), str(Card.parse("td")), Card.parse("2C").suit_name
(QS, 'TD', 'clubs')
>>> cards_of(mask_of([Card.parse("AS"), Card.parse("2H")]))
(AS, 2H)
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "SHDC"
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
SUIT_SINGULAR = ("spade", "heart", "diamond", "club")


class NotationError(ValueError):
    """Text that is not a card, bid or action: bad notation, not an illegal move."""


class Card(int):
    """One of the 52 cards; ``str(card)`` is its notation (``"QS"``)."""

    __slots__ = ()

    @property
    def suit(self) -> int:
        return self // 13

    @property
    def rank(self) -> int:
        """0 for a two up to 12 for an ace."""
        return self % 13

    @property
    def suit_name(self) -> str:
        return SUIT_NAMES[self // 13]

    def __str__(self) -> str:
        return _TEXT[self]

    __repr__ = __str__

    @staticmethod
    def parse(text: object) -> Card:
        """The card for ``text`` such as ``"QS"``; raises NotationError."""
        if isinstance(text, str):
            card = _BY_TEXT.get(text.strip().upper())
            if card is not None:
                return card
        raise NotationError(f"{text!r} is not a card (rank 23456789TJQKA + suit SHDC, e.g. QS).")


_TEXT = [r + s for s in SUITS for r in RANKS]
CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(52))
_BY_TEXT = {t: CARDS[i] for i, t in enumerate(_TEXT)}
SUIT_MASKS: tuple[int, ...] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
SPADE_MASK = SUIT_MASKS[SPADES]
FULL_MASK = (1 << 52) - 1
SIDE_MASK = FULL_MASK & ~SPADE_MASK  # the side suits: hearts, diamonds and clubs


def mask_of(cards: Iterable[int]) -> int:
    """The bit mask of a collection of cards."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# _BY_SUIT_MASK[s][m]: the cards of suit s whose ranks are the bits of the 13-bit m.
# 4 x 8192 small tuples: listing a hand's legal cards is then a few look-ups, not a loop.
_BY_SUIT_MASK: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(tuple(CARDS[13 * s + r] for r in range(13) if m >> r & 1) for m in range(1 << 13))
    for s in range(4)
)
_S0, _S1, _S2, _S3 = _BY_SUIT_MASK


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, lowest index first (spades 2..A, hearts, diamonds, clubs)."""
    return (_S0[mask & 0x1FFF] + _S1[mask >> 13 & 0x1FFF]
            + _S2[mask >> 26 & 0x1FFF] + _S3[mask >> 39 & 0x1FFF])


def display_order(cards: Iterable[Card]) -> list[Card]:
    """Cards sorted as a player holds them: spades, hearts, clubs, diamonds, high first."""
    return sorted(cards, key=_display_key)


_SUIT_DISPLAY = (0, 1, 3, 2)  # alternate colours: S H C D


def _display_key(c: Card) -> tuple[int, int]:
    return (_SUIT_DISPLAY[c // 13], -(c % 13))
