"""``/fairness``: how deals are made and how to check one, and the site's own figures
over every deal it has made that is over (its seed revealed): the spades in a hand and
the hands' shapes against their exact probabilities, each with a chi-square test and a
chart drawn on the server.

Each deal gives four hands, which are not independent (their spades add up to 13), so
the figures count one hand per deal: the first one dealt, to the dealer's left (every
seat's hand has the same distribution). The figures scan every stored hand, so they are
kept for a minute (``FAIRNESS_CACHE_S``, seconds; tests set 0).

Imports: Flask, ``spades.storage`` (reads, through the table service's store), the
core's ``spades.fairness``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from html import escape

from flask import Blueprint, current_app, render_template
from markupsafe import Markup

from ..fairness import (
    ALGORITHM,
    chi_square,
    hand_seed,
    pooled,
    shape,
    shape_probabilities,
    shuffled,
    spade_probabilities,
)
from ..storage import Store
from .services import service

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


@dataclass(frozen=True, slots=True)
class Figures:
    deals: int
    spades: tuple[Row, ...]
    spades_test: Test | None
    shapes: tuple[Row, ...]  # the most likely shapes, then the others together
    shapes_test: Test | None
    spades_chart: Markup
    shapes_chart: Markup


def first_hands(store: Store) -> list[list[str]]:
    """The first hand dealt (left of the dealer: cards 0, 4, 8 ... of the shuffled deck)
    of every deal whose seed is revealed."""
    return [shuffled(hand_seed(secret, n), given, n)[0::4] for secret, n, given in store.revealed_hands()]


def _test(observed: list[int], probabilities: list[float], deals: int) -> Test | None:
    obs, exp = pooled(observed, [p * deals for p in probabilities])
    result = chi_square(obs, exp) if deals else None
    return None if result is None else Test(result[0], result[1], result[2], len(obs))


def figures_of(hands: list[list[str]]) -> Figures:
    """The figures over these hands (one per deal)."""
    deals = len(hands)
    spade_p, shape_p = spade_probabilities(), shape_probabilities()
    spades = [0] * 14
    shapes: dict[str, int] = dict.fromkeys(shape_p, 0)
    for cards in hands:
        spades[sum(1 for c in cards if c.endswith("S"))] += 1
        shapes[shape(cards)] += 1
    spade_rows = tuple(Row(str(k), spades[k], spade_p[k], deals) for k in range(14))
    names = list(shape_p)
    shown = [Row(n, shapes[n], shape_p[n], deals) for n in names[:SHAPES_SHOWN]]
    rest = names[SHAPES_SHOWN:]
    shown.append(Row("others", sum(shapes[n] for n in rest), sum(shape_p[n] for n in rest), deals))
    return Figures(
        deals, spade_rows, _test(spades, spade_p, deals), tuple(shown),
        _test([shapes[n] for n in names], [shape_p[n] for n in names], deals),
        bar_chart(spade_rows, "Spades in a hand: share of deals (bars) and the exact probability (marks)"),
        bar_chart(tuple(shown), "Hand shapes: share of deals (bars) and the exact probability (marks)"))


_cache_lock = threading.Lock()


def figures(store: Store, keep_s: float = CACHE_S) -> Figures:
    """The figures over every revealed deal, made at most once every ``keep_s`` seconds
    (kept with the application)."""
    now = time.monotonic()
    cache = current_app.extensions.setdefault("spades.fairness", {})
    with _cache_lock:
        kept = cache.get("figures")
        if kept is not None and now - kept[0] < keep_s:
            return kept[1]
    made = figures_of(first_hands(store))
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
    return render_template("fairness/fairness.html", figures=figures(service().store, keep_s), algorithm=ALGORITHM,
                           cache_s=int(keep_s), warn_p=WARN_P)
