"""The table's small pieces of markup, made once per card (template globals: the hot path,
drawn for every seat after every move): a card face, a card in the hand as a button, a
card in a line of text, the hidden fields of every table form.

Imports: Flask, markupsafe, the web layer's pictures and the table options' declarations.
"""

from __future__ import annotations

import functools

from flask import Flask
from markupsafe import Markup, escape

from ..rooms.options import DEFAULT_VALUES, OPTION
from .pictures import CardFace, card

NOT_NOW = ", not playable now"  # a dimmed card's words for screen readers (site.js says the same)


@functools.cache
def _face(text: str) -> Markup:
    c = card(text)  # drawn by CSS from data-card (its rank, suit and colour), as a card in the hand
    return Markup(f'<span class="face" data-card="{c.text}" aria-label="{c.label}" role="img"></span>')


def card_short(text: str) -> str:
    """A card in a line of text (a template global): ``10♦``, or a joker in words ("big joker")."""
    c = card(text)
    return c.label if c.suit == "J" else c.rank + c.symbol


def face(c: CardFace | str) -> Markup:
    """A card face on the felt or in the replay (a template global), from its text or its model."""
    return _face(c if isinstance(c, str) else c.text)


@functools.cache
def card_button(text: str, legal: bool = False, playing: bool = False, strict: bool = False,
                trump: bool = False) -> Markup:
    """A card in the hand as a button that plays it (a template global); ``playing``: it
    is this seat's turn to play, so a card that cannot be played now is dimmed and says
    why when tapped, or, at a tourney table (``strict``: no bidding), cannot be tapped.
    Only the page draws a card so; in an update the hand is the same whoever is to play,
    and the page marks it from the ``told`` fragment's playable suits (site.js); ``trump``:
    a trump not printed as a spade (a joker, the jjdd 2D), marked as a spade for that."""
    c = card(text)
    state = " legal" if legal else " dim" if playing else ""
    label = c.label + (NOT_NOW if playing and not legal else "")
    off = " disabled" if strict and playing and not legal else ""
    # the name is the words, not "A♠": the rank and suit seen are drawn by CSS from
    # data-card, hidden from screen readers (an aria-label that differs from the visible
    # text fails WCAG 2.5.3); drawn that way, a hand of 13 is about 1.4 KB
    suit = ' data-suit="S"' if trump else ""
    return Markup(f'<button class="card{state}" name="action" value="{c.text}" '
                  f'data-card="{c.text}"{suit}{off}><span class="sr-only">{label}</span></button>')


def hidden(version: int | str, csrf: str) -> Markup:
    """The hidden fields every table form carries (a template global); ``version`` may be
    its mark (``VERSION``)."""
    return Markup(f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
                  f'<input type="hidden" name="version" value="{escape(version)}">')


def init_app(app: Flask) -> None:
    """The table's small pieces of markup and the table options' declarations (for the
    options forms), as template globals."""
    app.jinja_env.globals.update(face=face, card_button=card_button, card_short=card_short, hidden=hidden,
                                 table_option=OPTION,
                                 option_defaults=DEFAULT_VALUES)
