"""A table's change on its way to the sockets of the socket hub (``spades.web.table.hub``),
drawn at most once per part.

A change arrives under its table's lock, so the hub only wraps it (``Published``); each
connection's own greenlet (or thread) then draws it, outside every table's lock. The
public part of a change is rendered once for everyone and each seat's own part once for
that seat (a fragment drawn from the same as in the table's latest drawing is reused, and
a seat's own part whose snapshot shows nothing new is not worked out again: a card
redraws its player's and the next player's, ``spades.web.table.render.private_key``); a
connection is sent a *frame*: the fragments that differ from what it sent before (all
of them at first). Every drawing holds ``CSRF_MARK`` where the form's token goes: each
connection puts its own in at the last step.

Once its renderings are gone, what the hub remembers of a change is its ``Past``: its
number, who held each seat, and the public fragments it changed (``spades.web.table.resume``).

Imports: Flask (app contexts), ``spades.tables`` and the web layer's rendering.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, has_app_context

from ...tables import Change, Snapshot
from .fragments import Rendered
from .render import render_picture, render_private, render_public

# Rendered in place of the CSRF token; every connection swaps in its own. Names cannot
# hold control characters, so the mark never stands for anything else.
CSRF_MARK = "\x00csrf\x00"
PUBLIC_KEY = "public"  # the public part's key among a change's renderings (seats are 0-3)
ALWAYS = "turn"  # the fragment in every frame: whose turn, and the table's version and change number
ANNOUNCE = "announce"  # the screen readers' line: told of each change a frame covers, not diffed


class Published:
    """A change on its way to the connections of its table, rendered at most once per
    part (the public part, each seat's private part; a room member's picture; a line said).

    A part is drawn from the table's latest drawing of the same part (``drawn``, shared
    by the table's changes in this hub, by part: the change's number and its drawing): a
    fragment drawn from the same as there is reused, so what a change costs does not
    depend on how far behind a socket is. A playing table's change goes to a socket as a
    *frame* (``frame``): the fragments that differ from what that socket last sent."""

    __slots__ = ("change", "prev", "past", "drawn", "_parts", "_html", "_lock")

    def __init__(self, change: Change, drawn: dict[Any, tuple[int, Rendered]] | None = None) -> None:
        self.change = change
        self.prev: Published | None = None  # the table's previous change, while the hub keeps it
        self.past = Past(change.seq, change.persons)
        self.drawn = {} if drawn is None else drawn
        self._parts: dict[Any, Rendered] = {}
        self._html: dict[Any, str] = {}
        self._lock = threading.Lock()

    @property
    def table(self) -> bool:
        """A playing table's change (not a room's, not a line said)."""
        return self.change.said is None and isinstance(self.change.snapshots.get(None), Snapshot)

    def parts(self, app: Flask, key: Any) -> Rendered:
        """The public fragments (``PUBLIC_KEY``) or a seat's own, rendered once, marked."""
        with self._lock:
            rendered = self._parts.get(key)
            if rendered is None:
                seq, before = self.drawn.get(key, (-1, None))
                with in_app(app):
                    rendered = render_public(self.change.table(None), before) if key == PUBLIC_KEY \
                        else render_private(self.change.table(key), CSRF_MARK, before=before)
                self._parts[key] = rendered
                if self.change.seq > seq:
                    self.drawn[key] = (self.change.seq, rendered)
                if key == PUBLIC_KEY and self.prev is not None:
                    # which public fragments this change changed, for a socket back from a
                    # drop (the change before is drawn too if no socket sent it)
                    was = self.prev.parts(app, PUBLIC_KEY).fragments
                    self.past.public = frozenset(n for n, h in rendered.fragments.items() if was.get(n) != h)
            return rendered

    def frame(self, app: Flask, key: Any, sent: dict[str, str]) -> str:
        """The frame for a socket of seat ``key`` (None: a watcher) that last sent
        ``sent`` (by fragment name; updated here): the fragments that differ from it and
        ``ALWAYS``; every one for a socket that sent none. With the CSRF mark. Without the
        screen readers' line (``Hub._told``)."""
        html = ""
        for rendered in (self.parts(app, PUBLIC_KEY), self.parts(app, key) if key is not None else None):
            if rendered is None:
                continue
            names = tuple(n for n, h in rendered.fragments.items()
                          if n == ALWAYS or n != ANNOUNCE and (was := sent.get(n)) is not h and was != h)
            sent.update((n, rendered.fragments[n]) for n in names)
            html += rendered.fill(names)
        return html

    def whole(self, app: Flask, key: Any) -> str:
        """Every fragment for seat ``key`` (None: a watcher), with the CSRF mark."""
        return self.parts(app, PUBLIC_KEY).fill() + (self.parts(app, key).fill() if key is not None else "")

    def since(self, app: Flask, key: Any, earlier: frozenset[str] | None) -> str | None:
        """A socket back from a drop: the public fragments changed since its page's change
        (``earlier``: by the changes before this one, which this one's own join; None: the
        page is at this change) and all of its seat's own, in one frame; with the CSRF mark.
        None when what changed is not known."""
        public = self.parts(app, PUBLIC_KEY)
        changed = frozenset() if earlier is None else self.past.public
        if changed is None:
            return None
        names = changed | (earlier or frozenset())
        html = public.fill(tuple(n for n in public.fragments if n == ALWAYS or n in names))  # in their order
        return html + (self.parts(app, key).fill() if key is not None else "")

    def release(self) -> None:
        """Forget the renderings and the change before this one (the hub keeps a few)."""
        self.prev = None
        self._parts = {}

    def html(self, app: Flask, player_id: str | None) -> str:
        """A room member's picture, with the CSRF mark."""
        key = self.change.key_of(player_id)
        return self.once(app, key, lambda: render_picture(self.change.snapshots[key], CSRF_MARK))

    def once(self, app: Flask, key: Any, render: Callable[[], str]) -> str:
        """``render()``'s drawing of this change for listeners of kind ``key``, drawn once
        (a room member's picture, a line said: ``spades.web.table.chat_routing``)."""
        html = self._html.get(key)
        if html is None:
            with self._lock:
                html = self._html.get(key)
                if html is None:
                    with in_app(app):
                        html = self._html[key] = render()
        return html


@dataclass(slots=True)
class Past:
    """What the hub remembers of a table's change once its renderings are gone: its
    number, who held each seat, and the names of the public fragments it changed (None
    until a socket's frame worked them out)."""

    seq: int
    persons: tuple[str | None, ...]
    public: frozenset[str] | None = None


def in_app(app: Flask) -> contextlib.AbstractContextManager[Any]:
    """``app``'s context to draw in: the one this thread is in already (a socket's loop
    runs in its request's, for the socket's life), else a new one for the drawing."""
    if has_app_context() and current_app._get_current_object() is app:  # type: ignore[attr-defined]
        return contextlib.nullcontext()
    return app.app_context()
