"""Cards and their text forms: the smallest values of the rules core.

A card is an ``int`` from 0 to 51 (``suit * 13 + rank``) that prints as its notation,
rank ``23456789TJQKA`` and suit ``SHDC``; the house rules' jokers are 52 (``LJ``, the
little joker) and 53 (``BJ``, the big one). Sets of cards are bit masks (52 bits for the
standard deck, bits 52 and 53 for the jokers), which keeps the engine fast enough for bots
that simulate thousands of hands per decision. Which cards a table plays with, and which
of them are trumps, is the table's shape (``spades.rules_config.Shape``), not this module.
Imports: stdlib only.

>>> Card.parse("QS"), str(Card.parse("td")), Card.parse("2C").suit_name
(QS, 'TD', 'clubs')
>>> cards_of(mask_of([Card.parse("AS"), Card.parse("2H")]))
(AS, 2H)
>>> Card.parse("bj"), Card.parse("BJ").suit_name, any_cards_of(mask_of([BJ, LJ, CARDS[0]]))
(BJ, 'spades', (2S, LJ, BJ))
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "SHDC"
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
SUIT_SINGULAR = ("spade", "heart", "diamond", "club")
RANK_COUNT = len(RANKS)  # ranks per suit: a card's number is suit * RANK_COUNT + rank


class NotationError(ValueError):
    """Text that is not a card, bid or action: bad notation, not an illegal move."""


class Card(int):
    """One of the 52 cards or a joker; ``str(card)`` is its notation (``"QS"``, ``"BJ"``)."""

    __slots__ = ()

    @property
    def suit(self) -> int:
        """The card's suit; a joker is a spade (the 2 of diamonds of ``"jjdd"`` is a spade
        only at such a table: ``Shape.suit_of`` tells)."""
        return self // RANK_COUNT if self < _JOKER_BASE else SPADES

    @property
    def rank(self) -> int:
        """0 for a two up to 12 for an ace; 13 for the little joker, 14 for the big one."""
        return self % RANK_COUNT if self < _JOKER_BASE else self - _JOKER_BASE + RANK_COUNT

    @property
    def suit_name(self) -> str:
        return SUIT_NAMES[self.suit]

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
        raise NotationError(f"{text!r} is not a card (rank 23456789TJQKA + suit SHDC, e.g. QS; "
                            "BJ and LJ for the jokers).")


_RANK_WORDS = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
JOKER_WORDS = {"BJ": "big joker", "LJ": "little joker"}


def card_words(text: str) -> str:
    """A card's notation in words, as a sentence names it.

    >>> card_words("TD"), card_words("QS"), card_words("7H"), card_words("BJ")
    ('10 of diamonds', 'queen of spades', '7 of hearts', 'big joker')
    """
    joker = JOKER_WORDS.get(text)
    if joker is not None:
        return joker
    return f"{_RANK_WORDS.get(text[0], text[0])} of {SUIT_NAMES[SUITS.index(text[1])]}"


_TEXT = [r + s for s in SUITS for r in RANKS] + ["LJ", "BJ"]
_JOKER_BASE = len(SUITS) * RANK_COUNT  # the first joker's number, just after the 52 cards
# the 52 cards of the standard deck, in order (2S 3S ... AS, 2H ... AC)
CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(_JOKER_BASE))
LJ, BJ = Card(_JOKER_BASE), Card(_JOKER_BASE + 1)
JOKERS: tuple[Card, ...] = (LJ, BJ)
_BY_TEXT = {t: Card(i) for i, t in enumerate(_TEXT)}
_SUIT_BITS = (1 << RANK_COUNT) - 1
SUIT_MASKS: tuple[int, ...] = tuple(_SUIT_BITS << (RANK_COUNT * s) for s in range(len(SUITS)))
SPADE_MASK = SUIT_MASKS[SPADES]
FULL_MASK = (1 << _JOKER_BASE) - 1  # the standard deck
SIDE_MASK = FULL_MASK & ~SPADE_MASK  # the side suits: hearts, diamonds and clubs
JOKER_MASK = (1 << LJ) | (1 << BJ)


def mask_of(cards: Iterable[int]) -> int:
    """The bit mask of a collection of cards."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


# _BY_SUIT_MASK[s][m]: the cards of suit s whose ranks are the bits of the 13-bit m.
# 4 x 8192 small tuples: listing a hand's legal cards is then a few look-ups, not a loop.
_BY_SUIT_MASK: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(tuple(CARDS[RANK_COUNT * s + r] for r in range(RANK_COUNT) if m >> r & 1) for m in range(1 << RANK_COUNT))
    for s in range(len(SUITS))
)
_S0, _S1, _S2, _S3 = _BY_SUIT_MASK
_BY_JOKER_BITS: tuple[tuple[Card, ...], ...] = ((), (LJ,), (BJ,), (LJ, BJ))


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask of the standard deck, lowest index first (spades 2..A, hearts,
    diamonds, clubs); jokers are left out (``any_cards_of`` lists them)."""
    return (_S0[mask & 0x1FFF] + _S1[mask >> 13 & 0x1FFF]
            + _S2[mask >> 26 & 0x1FFF] + _S3[mask >> 39 & 0x1FFF])


def any_cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask that may hold jokers: as ``cards_of``, then LJ and BJ."""
    return cards_of(mask) + _BY_JOKER_BITS[mask >> _JOKER_BASE & 3]


def display_order(cards: Iterable[Card]) -> list[Card]:
    """Cards sorted as a player holds them: spades, hearts, clubs, diamonds, high first."""
    return sorted(cards, key=_display_key)


_SUIT_DISPLAY = (0, 1, 3, 2)  # alternate colours: S H C D


def _display_key(c: Card) -> tuple[int, int]:
    return (_SUIT_DISPLAY[c.suit], -c.rank)  # the jokers above the ace of spades
