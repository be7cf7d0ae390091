"""Provably fair deals (``spades-deal/1``): each hand's deal follows from a server seed
committed to before the hand, the random contributions the people at the table sent after
seeing that commitment, and the hand's number. ``docs/fairness.md`` specifies it closely
enough to reimplement; this module is the site's one implementation.

- A match has a secret of its own (32 random bytes, kept server-side); hand ``n``'s server
  seed is HMAC-SHA256(secret, ``"spades-deal/1 hand n"``), so revealing one hand's seed
  reveals nothing of the next. The commitment is SHA-256 of the seed's 32 bytes.
- The deal: key = SHA-256(``"spades-deal/1"`` ‖ seed ‖ count ‖ each contribution with its
  length ‖ hand number), stretched with SHA-256 in counter mode into 32-bit draws for a
  Fisher–Yates shuffle by rejection sampling (no modulo bias) of the rules' deck
  (``Rules.shape.deck``: the standard 52 cards, or a house rules' deck, its removed cards
  left out and the jokers last, LJ then BJ); the shuffled deck is dealt one card at a time
  around the table (3 or 4 seats), starting with the seat left of the dealer.
- ``FairDeals``: a match's deals as ``spades.rules.Match`` takes them (``deals=``), with
  each hand's commitment and, once the hand is over, its revealed ``fairness`` for the
  record. ``verify_record``: the ``verify`` command. The figures' exact probabilities (for
  each table shape's deck) and the chi-square test of the ``/fairness`` page are at the end.

Imports: stdlib, ``spades.cards`` and ``spades.rules_config`` only.

>>> deals = FairDeals("00" * 32, {1: ("c0ffee",)})
>>> deals.commitment(1) == hashlib.sha256(bytes.fromhex(deals.server_seed(1))).hexdigest()
True
>>> [len(cards) for cards in deals(1, 3)], deals.reveal(1)["contributions"]
([13, 13, 13, 13], ['c0ffee'])
>>> from spades.rules_config import shape_of
>>> [len(cards) for cards in FairDeals("00" * 32, shape=shape_of(3, False))(1, 2)]
[17, 17, 17]
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import math
import secrets
import string
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TypeGuard

from .cards import CARDS, JOKERS, RANKS, SUITS, Card
from .rules_config import FORMAT_1, STANDARD_SHAPE, RulesError, Shape, record_rules

ALGORITHM = "spades-deal/1"
# The deck before the shuffle: 2S 3S ... AS, 2H ... AH, 2D ... AD, 2C ... AC
DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
MAX_CONTRIBUTION = 64  # hex digits a contribution may have
_HEX = frozenset(string.hexdigits.lower())


class NotARecord(ValueError):
    """A document that is not a match record at all (exit 2 of ``verify``)."""


# -- the algorithm ---------------------------------------------------------------------
def clean_contribution(text: object) -> str | None:
    """A contribution as the deal takes it: 1-64 hex digits, lowercased; None for anything
    else (which counts as no contribution, never as an error).

    >>> clean_contribution("C0FFEE"), clean_contribution("xyz"), clean_contribution("a" * 65)
    ('c0ffee', None, None)
    """
    if not isinstance(text, str):
        return None
    text = text.strip().lower()
    if not 1 <= len(text) <= MAX_CONTRIBUTION or not set(text) <= _HEX:
        return None
    return text


def new_secret() -> str:
    """A fresh match secret: 32 bytes from the operating system, as hex."""
    return secrets.token_hex(32)


def secret_from(draws: Iterable[str]) -> str:
    """A match secret made from draws of a seed source (the table service's: random in
    production, fixed in tests, so a test's deals are the same on every run)."""
    return hashlib.sha256(("spades-deal/1 secret/" + "/".join(draws)).encode()).hexdigest()


@functools.lru_cache(maxsize=4096)
def hand_seed(secret: str, hand: int) -> str:
    """Hand ``hand``'s server seed (hex) from the match's secret: HMAC-SHA256 keyed with the
    secret's bytes over ``"spades-deal/1 hand <n>"``."""
    return hmac.new(bytes.fromhex(secret), f"{ALGORITHM} hand {hand}".encode(), hashlib.sha256).hexdigest()


def commitment(server_seed: str) -> str:
    """The commitment shown before the hand: SHA-256 of the seed's bytes, lowercase hex."""
    return hashlib.sha256(bytes.fromhex(server_seed)).hexdigest()


@functools.lru_cache(maxsize=4096)
def hand_commitment(secret: str, hand: int) -> str:
    """Hand ``hand``'s commitment from the match's secret (every picture of a table shows it)."""
    return commitment(hand_seed(secret, hand))


def deal_key(server_seed: str, contributions: Sequence[str], hand: int) -> bytes:
    """The key every draw of the hand comes from (docs/fairness.md, "The key")."""
    parts = [ALGORITHM.encode(), bytes.fromhex(server_seed), bytes([len(contributions)])]
    for c in contributions:
        parts += [bytes([len(c)]), c.encode("ascii")]
    parts.append(hand.to_bytes(4, "big"))
    return hashlib.sha256(b"".join(parts)).digest()


def draws(key: bytes) -> Iterator[int]:
    """Unsigned 32-bit numbers, big-endian, from the blocks SHA-256(key ‖ counter), the
    counter a 4-byte big-endian number from 0."""
    counter = 0
    while True:
        block = hashlib.sha256(key + counter.to_bytes(4, "big")).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i:i + 4], "big")
        counter += 1


def deck_of(shape: Shape) -> tuple[str, ...]:
    """A table's deck before the shuffle: ``DECK`` without the cards its rules remove, then
    the jokers if it has them, LJ and BJ.

    >>> from spades.rules_config import shape_of
    >>> deck_of(STANDARD_SHAPE) == DECK, deck_of(shape_of(4, True, "jj"))[-3:]
    (True, ('AC', 'LJ', 'BJ'))
    """
    return tuple(str(c) for c in shape.deck)


def shuffled(server_seed: str, contributions: Sequence[str], hand: int, deck: Sequence[str] = DECK) -> list[str]:
    """The deck after the hand's Fisher–Yates shuffle: for i from the last position (51 in
    the standard deck) down to 1, j is a draw below 2^32 - (2^32 mod (i+1)) taken mod (i+1)
    (draws at or over that bound are thrown away), and cards i and j swap."""
    cards = list(deck)
    stream = draws(deal_key(server_seed, contributions, hand))
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        bound = 2**32 - 2**32 % n
        u = next(stream)
        while u >= bound:
            u = next(stream)
        j = u % n
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def dealt(server_seed: str, contributions: Sequence[str], hand: int, dealer: int,
          shape: Shape = STANDARD_SHAPE) -> list[list[str]]:
    """Each seat's cards (text, in the order dealt): card k of the shuffled deck of the
    table's shape goes to seat (dealer + 1 + k) mod players."""
    deck = shuffled(server_seed, contributions, hand, deck_of(shape))
    seats: list[list[str]] = [[] for _ in shape.seats]
    for k, text in enumerate(deck):
        seats[(dealer + 1 + k) % shape.players].append(text)
    return seats


_BY_TEXT = {str(c): c for c in CARDS + JOKERS}


class FairDeals:
    """One match's deals under ``spades-deal/1``: ``secret`` (hex, server-side only) and
    the contributions each hand was dealt with (``contributions[n]``; filled in as each
    hand is dealt), over the deck and seats of ``shape`` (the match's ``Rules.shape``; a
    standard table's unless given). Called as ``deals(hand, dealer)`` it gives the hand's
    cards, which is how ``spades.rules.Match`` takes them."""

    __slots__ = ("secret", "contributions", "shape")

    def __init__(self, secret: str, contributions: Mapping[int, Sequence[str]] | None = None,
                 shape: Shape = STANDARD_SHAPE) -> None:
        self.secret = secret
        self.contributions: dict[int, tuple[str, ...]] = {n: tuple(c) for n, c in (contributions or {}).items()}
        self.shape = shape

    @classmethod
    def stored(cls, data: tuple[str, Mapping[int, Sequence[str]]] | None,
               shape: Shape = STANDARD_SHAPE) -> FairDeals | None:
        """The deals of a stored match from its secret and contributions (``Store.fair_deals``),
        over the deck and seats of ``shape`` (the match's ``Rules.shape``); None for a match
        dealt before fair deals (its seed deals it)."""
        return None if data is None else cls(*data, shape=shape)

    def server_seed(self, hand: int) -> str:
        return hand_seed(self.secret, hand)

    def commitment(self, hand: int) -> str:
        """Hand ``hand``'s commitment (it may be shown at any time)."""
        return hand_commitment(self.secret, hand)

    def __call__(self, hand: int, dealer: int) -> list[list[Card]]:
        given = self.contributions.get(hand, ())
        cards = dealt(self.server_seed(hand), given, hand, dealer, self.shape)
        return [[_BY_TEXT[t] for t in seat] for seat in cards]

    def reveal(self, hand: int) -> dict:
        """The record's ``fairness`` of a hand that is over (never of one being played)."""
        return {"commitment": self.commitment(hand), "server_seed": self.server_seed(hand),
                "contributions": list(self.contributions.get(hand, ())), "algorithm": ALGORITHM}


# -- checking a record -----------------------------------------------------------------
def verify_record(record: object) -> dict:
    """The ``verify`` command's report: ``{"ok": true, "hands": N}`` (N hands checked; an
    unfinished last hand without ``fairness`` is passed over, its seed still secret), or
    ``{"ok": false, "hand": H, "reason": ...}`` for the first hand (from 0) whose
    commitment or deal does not check. Raises NotARecord."""
    if not isinstance(record, dict) or not isinstance(record.get("hands"), list) or not record["hands"]:
        raise NotARecord('it needs a non-empty "hands" list')
    shape = _shape_of(record)
    hands = record["hands"]
    checked = 0
    for h, hand in enumerate(hands):
        if not isinstance(hand, dict):
            raise NotARecord(f"hand {h} is not an object")
        fair = hand.get("fairness")
        if fair is None:
            plays = hand.get("plays")
            if h == len(hands) - 1 and (not isinstance(plays, list) or len(plays) < len(shape.deck)):
                continue  # the hand being played: its seed is revealed when it ends
            return _failed(h, "This hand has no fairness data: its deal cannot be checked.")
        reason = _check_hand(h + 1, hand, fair, shape)
        if reason is not None:
            return _failed(h, reason)
        checked += 1
    return {"ok": True, "hands": checked}


def _shape_of(record: dict) -> Shape:
    """The shape of the table a record was played at, from its rules (a spades-match/1
    record's house keys are extra keys, ignored, as ``replay`` ignores them)."""
    try:
        return record_rules(record.get("format", FORMAT_1), record.get("rules")).shape
    except RulesError as e:
        raise NotARecord(f"bad rules: {e}") from None


def _failed(hand: int, reason: str) -> dict:
    return {"ok": False, "hand": hand, "reason": reason}


def _is_hex(value: object, digits: int) -> TypeGuard[str]:
    return isinstance(value, str) and len(value) == digits and set(value) <= _HEX


def _check_hand(number: int, hand: dict, fair: object, shape: Shape) -> str | None:
    """Why hand ``number``'s commitment or deal does not check, or None."""
    if not isinstance(fair, dict):
        return "fairness must be an object."
    if fair.get("algorithm") != ALGORITHM:
        return f"Unknown algorithm {fair.get('algorithm')!r}: this checks {ALGORITHM}."
    seed, committed, given = fair.get("server_seed"), fair.get("commitment"), fair.get("contributions")
    if not _is_hex(seed, 64) or not _is_hex(committed, 64):
        return "server_seed and commitment must be 64 lowercase hex digits."
    if not isinstance(given, list) or len(given) > 255 or any(clean_contribution(c) != c for c in given):
        return "contributions must be a list of 1-64 lowercase hex digits each."
    if commitment(seed) != committed:
        return "The server seed does not match the commitment: SHA-256 of the seed differs."
    dealer, deal = hand.get("dealer"), hand.get("deal")
    n, size = shape.players, shape.hand_size
    if type(dealer) is not int or dealer not in shape.seats:
        return f"dealer must be a seat 0-{n - 1}."
    if not isinstance(deal, list) or len(deal) != n or not all(isinstance(d, list) for d in deal):
        return f"A deal is {shape.players_word} lists of {size} cards."
    expected = dealt(seed, given, number, dealer, shape)
    owner = {text: s for s, cards in enumerate(expected) for text in cards}
    for s, cards in enumerate(deal):
        for text in cards:
            card = _BY_TEXT.get(text.strip().upper()) if isinstance(text, str) else None
            if card is None:
                return f"{text!r} is not a card."
            if str(card) not in owner:
                return f"Seat {s} holds {card}, which is not in this table's deck."
            if owner[str(card)] != s:
                return f"Seat {s} holds {card}, which the algorithm deals to seat {owner[str(card)]}."
        if len(cards) != size or len(set(cards)) != size:
            return f"Seat {s} holds {len(set(cards))} different cards; the algorithm deals {size}."
    return None


# -- the figures: exact probabilities and the chi-square test ---------------------------
# Each table shape's deck has its own figures: a first hand of ``hand_size`` cards from its
# deck, its trumps (the spades, and the jokers and the jjdd 2D where the deck has them)
# and its suits as play sees them (the trumps one suit).
def first_dealt(server_seed: str, contributions: Sequence[str], hand: int, table: Shape = STANDARD_SHAPE
                ) -> list[str]:
    """The cards of the first seat dealt (left of the dealer, whoever deals): cards 0,
    P, 2P ... of the shuffled deck of the table's shape, for P players."""
    return shuffled(server_seed, contributions, hand, deck_of(table))[0::table.players]


def trumps(cards: Iterable[str], table: Shape = STANDARD_SHAPE) -> int:
    """How many trumps the cards hold: the spades, and the jokers (and 2D at jjdd).

    >>> from spades.rules_config import shape_of
    >>> trumps(["AS", "2D", "BJ", "KH"]), trumps(["AS", "2D", "BJ", "KH"], shape_of(4, True, "jjdd"))
    (1, 3)
    """
    return sum(1 for text in cards if table.trump_mask >> _BY_TEXT[text] & 1)


def trump_probabilities(table: Shape = STANDARD_SHAPE) -> list[float]:
    """P(a hand holds k trumps), k = 0 up to the most it can (hypergeometric: a hand of
    ``hand_size`` from the deck, which holds ``len(trumps)`` trumps).

    >>> p = trump_probabilities(); len(p), round(sum(p), 12), round(p[3], 4)
    (14, 1.0, 0.2863)
    >>> from spades.rules_config import shape_of
    >>> p = trump_probabilities(shape_of(4, True, "jj")); len(p), round(sum(p), 12)
    (14, 1.0)
    """
    size, held, rest = table.hand_size, len(table.trumps), len(table.deck) - len(table.trumps)
    hands = math.comb(len(table.deck), size)
    return [math.comb(held, k) * math.comb(rest, size - k) / hands for k in range(min(held, size) + 1)]


def shape(cards: Iterable[str], table: Shape = STANDARD_SHAPE) -> str:
    """A hand's shape: its suit lengths as play sees the suits, longest first.

    >>> from spades.rules_config import shape_of
    >>> shape(["AS", "KS", "2D", "3C"]), shape(["AS", "KS", "2D", "LJ", "3C"], shape_of(4, True, "jjdd"))
    ('2-1-1-0', '4-1-0-0')
    """
    counts = [0] * len(SUITS)
    for text in cards:
        counts[table.suit_of[_BY_TEXT[text]]] += 1
    return "-".join(str(n) for n in sorted(counts, reverse=True))


def shape_probabilities(table: Shape = STANDARD_SHAPE) -> dict[str, float]:
    """P(each shape) of a hand, the most likely first: for every way to give the hand's
    cards to the suits (as play sees them, each no longer than it is in the deck), the
    ways to hold them, over C(deck, hand).

    >>> p = shape_probabilities(); len(p), round(sum(p.values()), 12), list(p)[:3]
    (39, 1.0, ['4-4-3-2', '5-3-3-2', '5-4-3-1'])
    >>> from spades.rules_config import shape_of
    >>> p = shape_probabilities(shape_of(3, False)); round(sum(p.values()), 12), list(p)[0]
    (1.0, '5-5-4-3')
    """
    suits = [sum(1 for c in table.deck if table.suit_of[c] == s) for s in range(len(SUITS))]
    ways: dict[tuple[int, ...], int] = {}

    def give(left: int, i: int, lengths: tuple[int, ...], count: int) -> None:
        if i == len(suits) - 1:
            if left <= suits[i]:
                key = tuple(sorted((*lengths, left), reverse=True))
                ways[key] = ways.get(key, 0) + count * math.comb(suits[i], left)
            return
        for n in range(min(left, suits[i]) + 1):
            give(left - n, i + 1, (*lengths, n), count * math.comb(suits[i], n))

    give(table.hand_size, 0, (), 1)
    hands = math.comb(len(table.deck), table.hand_size)
    # likeliest first; equally likely shapes with the longest suits first
    ordered = sorted(ways.items(), key=lambda kv: (-kv[1], tuple(-n for n in kv[0])))
    return {"-".join(map(str, lengths)): n / hands for lengths, n in ordered}


def pooled(observed: Sequence[int], expected: Sequence[float], minimum: float = 5.0
           ) -> tuple[list[int], list[float]]:
    """Neighbouring categories joined from both ends until each expected count is at least
    ``minimum`` (the chi-square test's usual condition); categories in a natural order.

    >>> pooled([1, 2, 10, 9, 3, 1], [0.5, 4, 9, 9, 6, 1])
    ([13, 9, 4], [13.5, 9, 7])
    """
    obs, exp = list(observed), list(expected)
    while len(exp) > 1 and exp[0] < minimum:
        o, e = obs.pop(0), exp.pop(0)
        obs[0] += o
        exp[0] += e
    while len(exp) > 1 and exp[-1] < minimum:
        o, e = obs.pop(), exp.pop()
        obs[-1] += o
        exp[-1] += e
    return obs, exp


def chi_square(observed: Sequence[int], expected: Sequence[float]) -> tuple[float, int, float] | None:
    """Pearson's statistic, its degrees of freedom (categories - 1) and p-value; None with
    fewer than two categories.

    >>> chi_square([50, 50], [50.0, 50.0])
    (0.0, 1, 1.0)
    """
    if len(observed) < 2:
        return None
    x = sum((o - e) ** 2 / e for o, e in zip(observed, expected))
    df = len(observed) - 1
    return x, df, chi2_sf(x, df)


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom: the regularized upper
    incomplete gamma function Q(df/2, x/2).

    >>> round(chi2_sf(3.841458820694124, 1), 6), round(chi2_sf(18.307038053275146, 10), 6)
    (0.05, 0.05)
    >>> round(chi2_sf(1.0, 2), 6) == round(math.exp(-0.5), 6), chi2_sf(0.0, 4)
    (True, 1.0)
    """
    if x <= 0:
        return 1.0
    return _gamma_q(df / 2, x / 2)


def _gamma_q(a: float, x: float) -> float:
    """Q(a, x): by its series below a + 1 (as 1 - P), by Lentz's continued fraction above."""
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1 / a
        n = a
        for _ in range(10_000):
            n += 1
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return math.exp(log_front) * h
