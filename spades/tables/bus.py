"""The bus: "table X changed" (a ``Change``, with each seat's snapshot) to whoever listens,
and "page channel C changed" (a tourney's page, say) to the page listeners.

In one process the bus is a function call: ``publish`` hands the change to every
subscriber in the publisher's thread, in order. Table actors publish under their table's
lock, so every subscriber sees a table's changes in the order they happened; a
subscriber must therefore only take note (queue the change) and return at once: nothing
renders or sends here. A failing subscriber is logged and dropped; the table goes on.

With several processes (``spades.tables.cluster``) a subclass also sends every change to
the other processes and hands theirs to this process's subscribers.

Imports: stdlib and ``spades.tables.values``.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable

from .values import Change

log = logging.getLogger(__name__)

Subscriber = Callable[[Change], None]
PageListener = Callable[[str], None]


class Bus:
    """Changes of every table, to every subscriber (the web layer's socket hub)."""

    def __init__(self) -> None:
        self._subscribers: dict[int, Subscriber] = {}
        self._tokens = itertools.count(1)
        self._lock = threading.Lock()
        self._pages: list[PageListener] = []

    def subscribe(self, callback: Subscriber) -> int:
        """Hear every change from now on; returns a token for ``unsubscribe``."""
        with self._lock:
            token = next(self._tokens)
            self._subscribers[token] = callback
            return token

    def unsubscribe(self, token: int) -> None:
        with self._lock:
            self._subscribers.pop(token, None)

    def publish(self, change: Change) -> None:
        for token, callback in list(self._subscribers.items()):
            try:
                callback(change)
            except Exception:
                log.exception("bus subscriber %s failed on %s; dropped", token, change.code)
                self.unsubscribe(token)

    def listen_pages(self, callback: PageListener) -> None:
        """Hear every ``publish_page`` from now on."""
        with self._lock:
            self._pages.append(callback)

    def publish_page(self, channel: str) -> None:
        """The page of ``channel`` changed (its listeners redraw it for their sockets)."""
        for callback in list(self._pages):
            try:
                callback(channel)
            except Exception:
                log.exception("page listener failed on %s", channel)

    def close(self) -> None:
        """Nothing to stop in one process."""
