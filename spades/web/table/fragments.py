"""How a part of the table becomes out-of-band HTML fragments, cheaply enough to do after
every move (``spades.web.table.render`` decides what each fragment shows; this module draws
them).

- **Marks.** A fragment's values that change with every move without changing what it
  shows (its stamp, the version its forms carry, the server's now for the clocks, the
  table's change number) are drawn as marks (``STAMP``, ``VERSION``, ``NOW``, ``SEQ``), so
  two drawings compare equal when nothing shown changed; ``Rendered.fill`` puts the
  values in.
- **Keys.** Each fragment is drawn from a *piece*: its template, what the template is
  given, and a key made of exactly what the template shows. ``drawn`` takes a fragment
  from an earlier drawing whose key is equal instead of drawing it again.
- **One template render.** Each template is looked up once per app, with the
  environment's globals copied out once (``Template.render`` copies every global into
  each call's context): this is the hot path, run for every seat after every move.

Imports: Flask and Jinja only.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

from flask import current_app
from jinja2 import Template
from jinja2.runtime import new_context

# the marks of the values that change with every move (names cannot hold control characters)
STAMP, VERSION, NOW, SEQ = "\x1dS\x1d", "\x1dV\x1d", "\x1dN\x1d", "\x1dQ\x1d"

# a fragment to draw: its template, what the template is given, and what it is drawn from
Piece = tuple[str, dict[str, Any], object]


@dataclasses.dataclass(frozen=True, slots=True)
class Rendered:
    """One part's fragments, by id, with marks in place of the values that change with
    every move, the values to put in (``fill``), and what each fragment was drawn from
    (``keys``: a fragment whose key equals the one before is not drawn again). Each
    fragment has its values put in once (``filled``), however many sockets send it."""

    fragments: dict[str, str]
    values: tuple[tuple[str, str], ...]
    keys: dict[str, object] = dataclasses.field(default_factory=dict)
    filled: dict[str, str] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    def fill(self, names: Iterable[str] | None = None) -> str:
        """The named fragments (all by default), joined, with the values put in."""
        filled = self.filled
        parts = []
        for name in self.fragments if names is None else names:
            html = filled.get(name)
            if html is None:
                html = self.fragments[name]
                for mark, value in self.values:
                    html = html.replace(mark, value)
                filled[name] = html
            parts.append(html)
        return "".join(parts)


def drawn(pieces: dict[str, Piece], before: Rendered | None, values: tuple[tuple[str, str], ...]) -> Rendered:
    """Each piece's fragment, out of band and marked, without the templates' indentation
    (a line break and the spaces around it are one space; none between two tags); a
    fragment drawn from the same as ``before``'s is taken from it."""
    fragments: dict[str, str] = {}
    keys: dict[str, object] = {}
    for name, (template, ctx, key) in pieces.items():
        keys[name] = key
        if before is not None and name in before.keys and before.keys[name] == key:
            fragments[name] = before.fragments[name]
            continue
        html = _draw(template, ctx)
        fragments[name] = _BETWEEN_TAGS.sub("><", _LINE_BREAKS.sub("\n", html.strip()))
    return Rendered(fragments, values, keys)


def _draw(name: str, ctx: dict[str, Any]) -> str:
    """A fragment's template rendered out of band with its marks and ``ctx``: looked up
    once per app with its globals and marks copied once, unless the templates reload when
    changed (debug). Its context is made as ``Template.new_context(shared=True)`` makes it
    but without a set of the globals' names (which only an ``import`` of globals that the
    template's own lack would use; these templates share the environment's)."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # one look-up of the proxy, not one per use
    env = app.jinja_env
    drawers: dict[str, tuple[Template, dict[str, Any]]] = app.extensions.setdefault("spades.fragments", {})
    found = drawers.get(name)
    if found is None:
        template = env.get_template(name)
        found = (template, {**template.globals, "oob": True, "stamp": STAMP, "now_ms": NOW, "version": VERSION,
                            "seq": SEQ})
        if not env.auto_reload:
            drawers[name] = found
    template, given = found
    context = new_context(env, template.name, template.blocks, {**given, **ctx}, True, None)
    try:
        return env.concat(template.root_render_func(context))
    except Exception:
        return env.handle_exception()


_LINE_BREAKS = re.compile(r"\s*\n\s*")
_BETWEEN_TAGS = re.compile(r">\n<")
