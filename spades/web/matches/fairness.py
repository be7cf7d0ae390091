"""``/fairness``: how deals are made and how to check one, and the site's own figures
over every deal it has made that is over (its seed revealed): the trumps in a hand and
the hands' shapes against their exact probabilities, each with a chi-square test and a
chart drawn on the server.

Each kind of deck is counted apart (``Deck``: four players' 52 cards, three players' 51,
the two joker decks), each deal from its own deck and seats (its match's rules' shape),
against that deck's own probabilities: a hand of 17 from 51, or of 13 with 15 or 16
trumps, is not a hand of 13 from 52. A deal's hands are not independent (their spades add
up), so the figures count one hand per deal: the first one dealt, to the dealer's left
(every seat's hand has the same distribution). A deal played at several tables (the same
secret, hand and contributions: a duplicate tourney's round, a week of boards) is counted
once. The figures scan every stored hand, so they are kept for a minute
(``FAIRNESS_CACHE_S``, seconds; tests set 0).

Imports: Flask, ``spades.storage`` (reads, through the table service's store), the
core's ``spades.fairness`` and ``spades.rules_config``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from html import escape

from flask import Blueprint, current_app, render_template
from markupsafe import Markup

from ...fairness import (
    ALGORITHM,
    chi_square,
    first_dealt,
    hand_seed,
    pooled,
    shape,
    shape_probabilities,
    trump_probabilities,
    trumps,
)
from ...rules_config import JOKER_DECKS, PLAYER_COUNTS, STANDARD_SHAPE, Rules, Shape
from ...storage import Store
from ..site.services import service

bp = Blueprint("fairness", __name__)

CACHE_S = 60.0  # the figures are made again at most this often
SHAPES_SHOWN = 12  # the most likely shapes, one row each; the rest as one row
WARN_P = 0.01  # a p-value under this is worth a look


@dataclass(frozen=True, slots=True)
class Row:
    """One category: how many hands fell in it, and how many the exact probability expects."""

    label: str
    observed: int
    probability: float
    deals: int

    @property
    def share(self) -> float:
        return self.observed / self.deals if self.deals else 0.0

    @property
    def expected(self) -> float:
        return self.probability * self.deals


@dataclass(frozen=True, slots=True)
class Test:
    """A chi-square test of observed counts against the exact probabilities (categories
    with few expected hands joined until each expects at least 5)."""

    statistic: float
    df: int
    p_value: float
    groups: int

    @property
    def warning(self) -> bool:
        return self.p_value < WARN_P


def deck_words(table: Shape) -> str:
    """The deck a table of this shape deals, in words: who plays, the cards, each seat's share.

    >>> from spades.rules_config import shape_of
    >>> deck_words(STANDARD_SHAPE), deck_words(shape_of(3, False))
    ('Four players: 52 cards, 13 to each seat', 'Three players: 51 cards, without 2C; 17 to each seat')
    >>> deck_words(shape_of(4, True, "jj"))
    'Four players, jokers (jj): 52 cards, the two jokers in place of 2C and 2D; 13 to each seat'
    """
    removed = " and ".join(str(c) for c in table.removed)
    who = f"{table.players_word.capitalize()} players"
    if table.jokers != JOKER_DECKS[0]:
        return f"{who}, jokers ({table.jokers}): {len(table.deck)} cards, the two jokers in place of {removed}; " \
               f"{table.hand_size} to each seat"
    if removed:
        return f"{who}: {len(table.deck)} cards, without {removed}; {table.hand_size} to each seat"
    return f"{who}: {len(table.deck)} cards, {table.hand_size} to each seat"


def trump_words(table: Shape) -> str:
    """What the first figure counts: the spades, or the trumps where a deck has more.

    >>> from spades.rules_config import shape_of
    >>> trump_words(STANDARD_SHAPE), trump_words(shape_of(4, True, "jjdd"))
    ('Spades in a hand', 'Trumps in a hand (the spades, BJ, LJ and 2D)')
    """
    others = _other_trumps(table)
    if not others:
        return "Spades in a hand"
    return f"Trumps in a hand (the spades, {', '.join(others[:-1])} and {others[-1]})"


def _other_trumps(table: Shape) -> list[str]:
    """The trumps that are not spades: the jokers, and the jjdd 2D."""
    return [str(c) for c in table.trumps if not str(c).endswith("S")]


@dataclass(frozen=True, slots=True)
class Figures:
    """The figures of one kind of deck (a table shape's deck and seats)."""

    deals: int
    trumps: tuple[Row, ...]  # by the number of trumps (spades, at a deck without jokers)
    trumps_test: Test | None
    shapes: tuple[Row, ...]  # the most likely shapes, then the others together
    shapes_test: Test | None
    trumps_chart: Markup
    shapes_chart: Markup
    deck: str  # the deck in words (``deck_words``)
    slug: str  # the deck as a word for the page: "4-none", "3-none", "4-jj", "4-jjdd"
    trumps_title: str  # ``trump_words``
    trump_word: str  # the trumps' column: "Spades", or "Trumps" where the deck has more
    shapes_note: str  # how the shapes' suits are counted
    hand_size: int


def _kind(table: Shape) -> tuple[int, int]:
    """Where a kind of deck comes on the page: without jokers first, more players first."""
    return JOKER_DECKS.index(table.jokers), PLAYER_COUNTS.index(table.players)


def first_hands(store: Store) -> dict[Shape, list[list[str]]]:
    """The first hand dealt (left of the dealer: cards 0, P, 2P ... of the shuffled deck
    for P players) of every deal whose seed is revealed, from its match's deck, by kind
    of deck (the standard one first); a deal played at several tables once."""
    kinds: dict[tuple[int, int], Shape] = {}
    hands: dict[tuple[int, int], list[list[str]]] = {}
    seen: set[tuple[str, int, tuple[str, ...], tuple[int, int]]] = set()
    for secret, n, given, rules in store.revealed_hands():
        table = Rules.from_dict(rules).shape
        kind = _kind(table)
        if (secret, n, given, kind) in seen:
            continue
        seen.add((secret, n, given, kind))
        kinds.setdefault(kind, table)  # partners or not, four seats deal the same deck alike
        hands.setdefault(kind, []).append(first_dealt(hand_seed(secret, n), given, n, table))
    return {kinds[k]: hands[k] for k in sorted(kinds)}


def _test(observed: list[int], probabilities: list[float], deals: int) -> Test | None:
    obs, exp = pooled(observed, [p * deals for p in probabilities])
    result = chi_square(obs, exp) if deals else None
    return None if result is None else Test(result[0], result[1], result[2], len(obs))


def figures_of(hands: list[list[str]], table: Shape = STANDARD_SHAPE) -> Figures:
    """The figures over these first hands (one per deal) of a table shape's deck."""
    deals = len(hands)
    trump_p, shape_p = trump_probabilities(table), shape_probabilities(table)
    held = [0] * len(trump_p)
    shapes: dict[str, int] = dict.fromkeys(shape_p, 0)
    for cards in hands:
        held[trumps(cards, table)] += 1
        shapes[shape(cards, table)] += 1
    trump_rows = tuple(Row(str(k), held[k], trump_p[k], deals) for k in range(len(trump_p)))
    names = list(shape_p)
    shown = [Row(n, shapes[n], shape_p[n], deals) for n in names[:SHAPES_SHOWN]]
    rest = names[SHAPES_SHOWN:]
    shown.append(Row("others", sum(shapes[n] for n in rest), sum(shape_p[n] for n in rest), deals))
    deck, title, more = deck_words(table), trump_words(table), _other_trumps(table)
    return Figures(
        deals, trump_rows, _test(held, trump_p, deals), tuple(shown),
        _test([shapes[n] for n in names], [shape_p[n] for n in names], deals),
        bar_chart(trump_rows, f"{deck}. {title}: share of deals (bars) and the exact probability (marks)"),
        bar_chart(tuple(shown), f"{deck}. Hand shapes: share of deals (bars) and the exact probability (marks)"),
        deck, f"{table.players}-{table.jokers}", title, "Trumps" if more else "Spades",
        "Suit lengths, longest first" + (" (the trumps as one suit)" if more else ""), table.hand_size)


_cache_lock = threading.Lock()


def figures(store: Store, keep_s: float = CACHE_S) -> tuple[Figures, ...]:
    """The figures over every revealed deal, one set per kind of deck that has any, made
    at most once every ``keep_s`` seconds (kept with the application)."""
    now = time.monotonic()
    cache = current_app.extensions.setdefault("spades.fairness", {})
    with _cache_lock:
        kept = cache.get("figures")
        if kept is not None and now - kept[0] < keep_s:
            return kept[1]
    made = tuple(figures_of(hands, table) for table, hands in first_hands(store).items())
    with _cache_lock:
        cache["figures"] = (now, made)
    return made


WIDTH, HEIGHT, PAD, FOOT = 640, 220, 34, 30


def bar_chart(rows: tuple[Row, ...], title: str) -> Markup:
    """An SVG bar chart: each category's share of the deals as a bar, its exact
    probability as a mark across it."""
    top = max([r.share for r in rows] + [r.probability for r in rows] + [0.01])
    step = (WIDTH - 2 * PAD) / len(rows)
    plot = HEIGHT - PAD - FOOT

    def y(v: float) -> float:
        return PAD + plot * (1 - v / top)

    parts = [f'<svg class="chart fair-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}" '
             f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>',
             f'<line x1="{PAD}" y1="{y(0):.1f}" x2="{WIDTH - PAD}" y2="{y(0):.1f}" class="axis"/>',
             f'<text x="{PAD - 4}" y="{y(top) + 4:.1f}" text-anchor="end" class="tick">{top:.0%}</text>']
    for i, r in enumerate(rows):
        x = PAD + i * step
        parts.append(f'<rect x="{x + step * .15:.1f}" y="{y(r.share):.1f}" width="{step * .7:.1f}" '
                     f'height="{y(0) - y(r.share):.1f}" class="bar"><title>{escape(r.label)}: {r.observed} '
                     f'({r.share:.1%}; exact {r.probability:.2%})</title></rect>')
        parts.append(f'<line x1="{x + step * .05:.1f}" x2="{x + step * .95:.1f}" y1="{y(r.probability):.1f}" '
                     f'y2="{y(r.probability):.1f}" class="exact"/>')
        parts.append(f'<text x="{x + step / 2:.1f}" y="{HEIGHT - FOOT + 14}" text-anchor="middle" class="tick">'
                     f'{escape(r.label)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


@bp.get("/fairness")
def page():
    """How deals are made, how to check one, and the site's figures."""
    keep_s = float(current_app.config.get("FAIRNESS_CACHE_S", CACHE_S))
    decks = figures(service().store, keep_s)
    return render_template("fairness/fairness.html", decks=decks, deals=sum(f.deals for f in decks),
                           algorithm=ALGORITHM, cache_s=int(keep_s), warn_p=WARN_P)
