"""The table settings of RULES.md as one immutable value, passed in and never global, and
the shape of the table they make (``Rules.shape``): the one place that says how many seats,
which sides, which cards and which trumps.

Imports: stdlib and ``spades.cards`` only.

>>> Rules.from_dict({"target": 300}).target, Rules().end
(300, 'target')
>>> s = Rules(players=3, partners=False).shape
>>> s.players, s.sides, s.hand_size, len(s.deck), s.removed
(3, ((0,), (1,), (2,)), 17, 51, (2C,))
>>> Rules.from_dict({"jokers": "jjdd"}).shape.trumps[:4]
(BJ, LJ, 2D, 2S)
"""

from __future__ import annotations

import functools
from dataclasses import Field, dataclass, field, fields

from .cards import (
    BJ,
    CARDS,
    FULL_MASK,
    LJ,
    RANK_COUNT,
    SPADES,
    SUIT_MASKS,
    Card,
    display_order,
    mask_of,
)

# The values the settings may take (the options forms offer them: ``spades.web.rooms.options``).
MODES = ("bidding", "no_bidding")
ENDS = ("target", "hands")
CLOCK_TEMPOS = ("relaxed", "normal", "fast")  # a turn clock at each of these paces
TURN_TEMPOS = ("hours-12", "days-1", "days-3")  # a move may take this long: a turn-based table
UNTIMED = "untimed"  # friends who chose to play without a clock (also turn-based)
TURN_BASED = TURN_TEMPOS + (UNTIMED,)  # tables that last days: people come back when it is their turn
FRIENDS_TEMPOS = CLOCK_TEMPOS + TURN_TEMPOS + (UNTIMED,)  # the tempos a table of friends may choose
NO_CLOCK = "off"  # the tempo of a table without clocks (a practice table)
TEMPOS = FRIENDS_TEMPOS + (NO_CLOCK,)
PLAY_SPEEDS = ("slow", "normal", "fast")
MAX_TARGET = 10000
MAX_HANDS = 99  # safety cap: no match goes past 99 hands
# the house rules (RULES.md, "House rules"), each key's default first
PLAYER_COUNTS = (4, 3)
JOKER_DECKS = ("none", "jj", "jjdd")
BIDDING_VARIANTS = ("standard", "whiz", "mirror", "suicide")
MIN_BIDS = (0, 2, 3, 4, 5)
SPADES_LEADS = ("broken", "any")
# the house rules' keys as RECORD.md writes them; a match with any of them away from its
# default is recorded as spades-match/2
HOUSE_KEYS = ("players", "partners", "jokers", "bidding", "min_bid", "ten_for_200", "spades_lead")
SUICIDE_BID = 4  # under "suicide" the number bidder of a team bids at least this
FORMAT_1, FORMAT_2 = "spades-match/1", "spades-match/2"  # RECORD.md's formats: standard, house rules


# numbers in words, by number (a table's seats: ``Shape.players_word``, ``ordinal_word``)
_CARDINALS = ("zero", "one", "two", "three", "four", "five", "six")
_ORDINALS = ("zeroth", "first", "second", "third", "fourth", "fifth", "sixth")


def ordinal_word(n: int) -> str:
    """A place among a table's seats in words: the card that ends a trick at a table of
    ``n`` seats is the ``ordinal_word(n)`` card.

    >>> ordinal_word(STANDARD_SHAPE.players), ordinal_word(3)
    ('fourth', 'third')
    """
    return _ORDINALS[n]


class RulesError(ValueError):
    """A rules object with an unknown key or value, or house rules that do not go together;
    ``str(error)`` says why in a sentence."""


# -- the shape of the table --------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Shape:
    """The table as the rules make it: seats, sides, deck and trumps, with the look-up
    tables the engine needs, made once per shape (``shape_of``). Seat ``s``'s left-hand
    neighbour is ``left[s]``; ``sides[t]`` are side ``t``'s seats (a team of two across
    the table, or one player alone) and ``side_of[s]`` is seat ``s``'s side."""

    players: int
    partners: bool
    jokers: str
    seats: tuple[int, ...]  # 0 .. players-1, clockwise
    left: tuple[int, ...]  # the seat to the left of each seat (the next to play)
    sides: tuple[tuple[int, ...], ...]
    side_of: tuple[int, ...]
    deck: tuple[Card, ...]  # the cards of the deck, in the order before a shuffle
    deck_mask: int
    removed: tuple[Card, ...]  # cards of the 52 left out of this deck
    hand_size: int  # cards dealt to each seat, and tricks in a hand
    trumps: tuple[Card, ...]  # the trump order, highest first
    trump_mask: int
    suit_masks: tuple[int, ...]  # each suit as play sees it (jokers and the jjdd 2D among the spades)
    side_mask: int  # every card of the deck that is not a trump
    suit_of: tuple[int, ...]  # a card's suit for play, by card number (jokers included)
    power: tuple[int, ...]  # a card's strength within its suit for play: higher beats lower
    standard: bool  # four seats, two teams, 52 cards: the engine's inline path applies

    @property
    def tricks(self) -> int:
        """Tricks in a hand (one per card a seat holds)."""
        return self.hand_size

    @property
    def side_count(self) -> int:
        return len(self.sides)

    @property
    def players_word(self) -> str:
        """The number of seats in words, for sentences a person reads.

        >>> shape_of(3, False).players_word, STANDARD_SHAPE.players_word
        ('three', 'four')
        """
        return _CARDINALS[self.players]

    def partner(self, seat: int) -> int | None:
        """The seat's partner, or None in cutthroat."""
        others = [s for s in self.sides[self.side_of[seat]] if s != seat]
        return others[0] if others else None

    def trump_count(self, held: int) -> int:
        """How many trumps a mask of cards holds (jokers and the jjdd 2D count)."""
        return (held & self.trump_mask).bit_count()

    def display_order(self, cards: list[Card]) -> list[Card]:
        """Cards as a player holds them: the trumps first, highest first, then the other
        suits as ``spades.cards.display_order`` sorts them."""
        trumps = [c for c in self.trumps if c in cards]
        return trumps + display_order(c for c in cards if not self.trump_mask >> c & 1)


def _card(text: str) -> Card:
    return Card.parse(text)


def shape_of(players: int = PLAYER_COUNTS[0], partners: bool = True, jokers: str = JOKER_DECKS[0]) -> Shape:
    """The shape of a table of ``players`` seats, with or without partners, and its deck:
    one value per shape, made once. The combination must be one RULES.md offers (``Rules``
    checks)."""
    return _shape(players, partners, jokers)


@functools.cache
def _shape(players: int, partners: bool, jokers: str) -> Shape:
    seats = tuple(range(players))
    sides: tuple[tuple[int, ...], ...]
    if partners:
        half = players // 2
        sides = tuple((s, s + half) for s in range(half))  # partners sit opposite
    else:
        sides = tuple((s,) for s in seats)
    side_of = tuple(next(t for t, side in enumerate(sides) if s in side) for s in seats)
    spade = [CARDS[SPADES * RANK_COUNT + r] for r in range(RANK_COUNT)][::-1]  # AS down to 2S
    removed: tuple[Card, ...] = ()
    trumps: list[Card] = spade
    if players == 3:
        removed = (_card("2C"),)
    elif jokers == "jj":
        removed = (_card("2C"), _card("2D"))
        trumps = [BJ, LJ] + spade
    elif jokers == "jjdd":
        removed = (_card("2C"), _card("2H"))
        trumps = [BJ, LJ, _card("2D"), _card("2S")] + spade[:-1]
    deck = tuple(c for c in CARDS if c not in removed) + ((LJ, BJ) if jokers != "none" else ())
    size = len(deck) // players
    trump_mask = mask_of(trumps)
    deck_mask = mask_of(deck)
    suit_masks = tuple((m & deck_mask & ~trump_mask) | (trump_mask if s == SPADES else 0)
                       for s, m in enumerate(SUIT_MASKS))
    every = CARDS + (LJ, BJ)
    suit_of = tuple(SPADES if trump_mask >> c & 1 else c.suit for c in every)
    power = tuple(len(trumps) - trumps.index(c) if c in trumps else c.rank for c in every)
    return Shape(players, partners, jokers, seats, tuple((s + 1) % players for s in seats), sides, side_of, deck,
                 deck_mask, removed, size, tuple(trumps), trump_mask, suit_masks, deck_mask & ~trump_mask,
                 suit_of, power, deck_mask == FULL_MASK and players == 4 and partners)


STANDARD_SHAPE = shape_of()
# the most tricks a hand of any shape has (bids go up to it)
MOST_TRICKS = max(shape_of(n, False).hand_size for n in PLAYER_COUNTS)


@dataclass(frozen=True, slots=True)
class Rules:
    """Every setting of RULES.md with its default."""

    # each setting with its default and the values it may take: one of a few words, a
    # whole number from 1 up to a most, or (a bool) true or false
    mode: str = field(default="bidding", metadata={"one_of": MODES})
    end: str = field(default="target", metadata={"one_of": ENDS})
    target: int = field(default=500, metadata={"most": MAX_TARGET})
    hands: int = field(default=5, metadata={"most": MAX_HANDS})
    bag_penalty: bool = True
    blind_nil: bool = False
    set_scores_zero: bool = False
    tempo: str = field(default="normal", metadata={"one_of": TEMPOS})
    play_speed: str = field(default="normal", metadata={"one_of": PLAY_SPEEDS})
    # the house rules (RULES.md); the bidding variant's key is "bidding" in JSON, but
    # ``Rules.bidding`` has long meant "this table bids" (``mode``), so the field is named apart
    players: int = field(default=4, metadata={"one_of": PLAYER_COUNTS})
    partners: bool = True
    jokers: str = field(default="none", metadata={"one_of": JOKER_DECKS})
    bidding_variant: str = field(default="standard", metadata={"one_of": BIDDING_VARIANTS, "key": "bidding"})
    min_bid: int = field(default=0, metadata={"one_of": MIN_BIDS})
    ten_for_200: bool = False
    spades_lead: str = field(default="broken", metadata={"one_of": SPADES_LEADS})

    def __post_init__(self) -> None:
        # in the order the fields are declared: the first value that is not allowed is told
        for f in fields(self):
            problem = _problem(f, getattr(self, f.name))
            if problem:
                raise RulesError(problem)
        problem = _combination_problem(self)
        if problem:
            raise RulesError(problem)

    @classmethod
    def from_dict(cls, data: dict | None) -> Rules:
        """Rules from a JSON object; missing keys take their defaults, unknown keys are ignored.
        The bidding variant is read from ``"bidding"`` (RECORD.md) or ``"bidding_variant"``."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise RulesError("rules must be a JSON object")
        names = {f.name for f in fields(cls)}
        given = {k: v for k, v in data.items() if k in names}
        if "bidding" in data:
            given["bidding_variant"] = data["bidding"]
        return cls(**given)

    def to_dict(self) -> dict:
        """The game keys of RECORD.md (tempo and play speed are table settings, left out);
        the house keys only when one of them is away from its default (spades-match/2), so
        that every other match's rules are what they always were. A new dict each call
        (every seat view carries one), copied from one made once."""
        return dict(_game_keys(self))

    @property
    def bidding(self) -> bool:
        """Whether this table bids (``mode``); the bidding variant is ``bidding_variant``."""
        return self.mode == "bidding"

    @property
    def house(self) -> bool:
        """Whether any house rule is away from its default (the match is spades-match/2)."""
        return any(getattr(self, f.name) != f.default for f in _HOUSE_FIELDS)

    @property
    def shape(self) -> Shape:
        """The table's shape: seats, sides, deck, trumps (made once per shape)."""
        return _shape(self.players, self.partners, self.jokers)


def record_rules(fmt: object, given: object) -> Rules:
    """The rules of a match record of format ``fmt`` (RECORD.md): ``given`` its ``rules``
    object. A spades-match/1 record knows no house rules: their keys there are extra keys,
    ignored as any other, so a /1 record is always a standard table. Raises RulesError."""
    if given is None:
        given = {}
    if fmt == FORMAT_1 and isinstance(given, dict):
        given = {k: v for k, v in given.items() if k not in HOUSE_KEYS and k != "bidding_variant"}
    if not isinstance(given, dict):
        raise RulesError("rules must be a JSON object")
    try:
        return Rules.from_dict(given)
    except TypeError as e:
        raise RulesError(str(e)) from None


def _key(f: Field) -> str:
    """A setting's key in JSON (RULES.md's name)."""
    return f.metadata.get("key", f.name)


def _problem(f: Field, value: object) -> str | None:
    """What is wrong with a setting's value, by what its field declares; None when it is allowed."""
    if "one_of" in f.metadata:
        allowed = f.metadata["one_of"]
        # the same type as the values offered: 4.0 and True are not 4 players
        return None if value in allowed and type(value) is type(allowed[0]) else \
            f"{_key(f)} must be one of {', '.join(str(a) for a in allowed)}"
    if f.type == "bool":  # the annotation, a string here
        return None if type(value) is bool else f"{f.name} must be true or false"
    # a bool is an int to Python, and not a whole number here
    if type(value) is not int or not 1 <= value <= f.metadata["most"]:
        return f"{f.name} must be a positive whole number"
    return None


def _combination_problem(r: Rules) -> str | None:
    """Why house rules that are each allowed do not go together (RULES.md offers only
    these combinations), in a sentence the host's page can show; None when they do."""
    if r.players == 3 and r.partners:
        return "Three players play cutthroat: partners must be false with 3 players."
    if r.jokers != "none" and r.players != 4:
        return "Jokers are played with four players only."
    if r.bidding_variant == "suicide" and not r.partners:
        return "Suicide bidding is played with partners only."
    if r.min_bid and not r.partners:
        return "A minimum bid is a team's: it needs partners."
    if r.min_bid and r.bidding_variant != "standard":
        return "A minimum bid goes with standard bidding only, not with " + r.bidding_variant + "."
    if r.blind_nil and r.bidding_variant == "mirror":
        return "Mirror bidding has no blind nil: each player bids their spades."
    if r.mode == "no_bidding" and (r.bidding_variant != "standard" or r.min_bid or r.ten_for_200):
        return "A table without bidding has no bidding variant, minimum bid or 10-for-200."
    return None


_BASE_FIELDS = tuple(f for f in fields(Rules) if f.name not in ("tempo", "play_speed") and _key(f) not in HOUSE_KEYS)
_HOUSE_FIELDS = tuple(f for f in fields(Rules) if _key(f) in HOUSE_KEYS)


@functools.lru_cache(maxsize=256)
def _game_keys(rules: Rules) -> dict:
    d = {f.name: getattr(rules, f.name) for f in _BASE_FIELDS}
    if rules.house:
        d.update({_key(f): getattr(rules, f.name) for f in _HOUSE_FIELDS})
    return d


# The house rules a host picks in one click (the new-table form, the room, practice), by
# form value: a label and the house keys it sets (every other house key at its default).
# "Jokers JJDD" is the room most played on the best-known Spades sites: Joker-Joker-Deuce-
# Deuce with a minimum bid of 4 and 10-for-200; "Jokers JJ" adds the two jokers alone.
PRESETS: dict[str, tuple[str, dict[str, object]]] = {
    "standard": ("Standard", {}),
    "cutthroat-3": ("Cutthroat for 3", {"players": 3, "partners": False}),
    "cutthroat-4": ("Cutthroat for 4", {"partners": False}),
    "jjdd": ("Jokers JJDD", {"jokers": "jjdd", "min_bid": 4, "ten_for_200": True}),
    "jj": ("Jokers JJ", {"jokers": "jj"}),
}
HOUSE_DEFAULTS: dict[str, object] = {f.name: f.default for f in _HOUSE_FIELDS}


def preset_rules(name: str, **settings: object) -> Rules:
    """The rules of a preset (``PRESETS``) with the other settings given (its house rules
    replace any given); raises KeyError
    for a name that is not a preset and RulesError as ``Rules`` does."""
    return Rules(**{**settings, **HOUSE_DEFAULTS, **PRESETS[name][1]})  # type: ignore[arg-type]


def preset_of(rules: Rules) -> str | None:
    """The preset whose house rules these are, or None (house rules chosen one by one)."""
    for name, (_, keys) in PRESETS.items():
        if all(getattr(rules, f.name) == keys.get(f.name, f.default) for f in _HOUSE_FIELDS):
            return name
    return None
