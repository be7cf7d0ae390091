"""Page channels of the socket hub (``spades.web.table.hub``): the sockets of pages that
are not tables.

A page that is not a table (a tourney's page) opens a *page channel*: ``Hub.open_page``
with a render function of the person, and ``Hub.page_changed`` pushes a fresh rendering
(``PagePush``), made once per person and shared by their connections, to every socket on
that channel. Two kinds of channel carry no page but news for a person's sockets: one
who muted or blocked someone (``spades.web.table.chat.MUTED_CHANNEL``) and an account
signed out on every device (``SIGNED_OUT_CHANNEL``), said on the bus so that every
process hears it.

Imports: Flask (app contexts) and the web layer's published changes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from flask import Flask

from .published import in_app

SIGNED_OUT_CHANNEL = "signed-out/"  # a page channel: the account after the slash signed out on every device


class PagePush:
    """A page channel's news: its picture rendered at most once per person."""

    __slots__ = ("render", "_html", "_lock")

    def __init__(self, render: Callable[[str | None], str]) -> None:
        self.render = render
        self._html: dict[str | None, str] = {}
        self._lock = threading.Lock()

    def html(self, app: Flask, player_id: str | None) -> str:
        """This person's picture of the page, with the CSRF mark."""
        with self._lock:
            html = self._html.get(player_id)
            if html is None:
                with in_app(app):
                    html = self._html[player_id] = self.render(player_id)
        return html
