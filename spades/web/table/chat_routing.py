"""A table's chat on its sockets: which connection of the socket hub
(``spades.web.table.hub``) hears a line said, and the chat frames they are sent.

A line said at a table (``Change.said``) goes only to the sockets of the people who hear
it (``spades.web.table.chat.hears``: the watchers' chat, mutes and blocks), rendered once
for its sayer, once for the host (whose menu on it offers to silence its speaker) and once
for everyone else; after the host's own notice (a silence, the chat's settings) the
host's sockets get their whole chat, its menus as they now apply. A player's socket
gets its chat again, the watchers' lines in it, with the change that ends the match
(and without them with the one that starts the next). A person who mutes or blocks
someone: their sockets' mutes follow at once (``remute``).

Imports: Flask, ``spades.tables``, ``spades.storage`` (the store's type) and the web
layer's chat lines, published changes and connections.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask

from ...storage import Store
from ...tables import Change, Snapshot
from .chat import hears, render_log, render_said
from .connection import Connection
from .published import CSRF_MARK, Published, in_app


def offer_said(item: Published, conns: Iterable[Connection]) -> None:
    """Queue the line said of ``item`` for those of ``conns`` whose people hear it (see
    ``spades.web.table.talk``); called under the table's lock."""
    change = item.change
    said = change.said
    assert said is not None
    for conn in conns:
        if conn.kind == "table" and hears(said.line, conn.player_id, change.key_of(conn.player_id) is not None,
                                          said.open, conn.muted):
            conn.offer(item)


def said_html(app: Flask, item: Published, own: bool, host: bool, log: Callable[[], str]) -> str:
    """The line said of ``item``, as its sayer (``own``), the table's host (``host``) or
    anyone else gets it, drawn once for each, with the CSRF mark; after the host's notice
    its sayer gets the whole chat (``log``: the sayer's, drawn with the mark)."""
    said = item.change.said
    assert said is not None
    host = host and not own
    return item.once(app, ("said", own, host), lambda: render_said(
        item.change.code, said, own, host, CSRF_MARK, log() if own and said.line.kind == "notice" else ""))


def said_frame(app: Flask, store: Store, item: Published, conn: Connection) -> str:
    """A line said, for ``conn`` (see ``said_html``), with the CSRF mark."""
    said = item.change.said
    assert said is not None
    return said_html(app, item, said.line.person == conn.player_id, conn.host, lambda: render_log(
        store, item.change.code, conn.player_id, True, said.open, conn.muted, True, CSRF_MARK,
        upto=said.line.number))


def chat_again(app: Flask, store: Store, change: Change, key: Any, conn: Connection) -> str:
    """A player's chat again when the match ended or the next began since its last
    frame (the watchers' lines came in, or go), with the CSRF mark; "" otherwise (and
    when no watchers' line is concerned)."""
    conn.host = is_host(change, conn.player_id)
    if not isinstance(key, int):
        return ""
    snap = change.table(key)
    was, conn.chat_open = conn.chat_open, snap.view.match.finished
    if not snap.around.shared or was == conn.chat_open or was is None and not conn.chat_open:
        return ""
    with in_app(app):
        return render_log(store, change.code, conn.player_id, True, conn.chat_open, conn.muted,
                          conn.host, CSRF_MARK, watchers_only=True)


def is_host(change: Change, player_id: str | None) -> bool:
    """This person holds the host's seat at a playing table's ``change``."""
    key = change.key_of(player_id)
    snap = change.snapshots.get(key) if isinstance(key, int) else None
    return isinstance(snap, Snapshot) and snap.around.host_seat == key


def remute(store: Store, player_id: str, conns: Iterable[Connection]) -> None:
    """Person ``player_id`` muted or blocked someone (or no longer does): ``conns``, their
    sockets, hear as their mutes now say."""
    conns = list(conns)
    if conns:
        muted = store.muted(player_id)
        for conn in conns:
            conn.muted = muted
