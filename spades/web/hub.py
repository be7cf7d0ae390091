"""The socket hub: every open table page's WebSocket, kept by table and by person.

The hub listens to the table service's bus. A change arrives under its table's lock, so
the hub only takes note: it wraps the change once (``Published``) and offers it to the
bounded queue of every connection at that table. Each connection's own greenlet (or
thread) then renders and sends: the change says which seat each person holds at that very
version, so a seat that changed hands (a rematch swap, a seat left to a bot, a sign-in)
reaches the right page at once. A seat's fragments are rendered once per change, outside
every lock, and shared by every connection of that seat (and one rendering for all
spectators); each connection puts its own CSRF token in at the last step.

Pages that are not tables (a tourney's page) open a *page channel*: ``open_page`` with a
render function of the person, and ``page_changed`` pushes a fresh rendering, made once
per person and shared by their connections, to every socket on that channel.

A connection whose queue is full (a stuck or slow reader) is closed: the page reconnects
and gets a snapshot; a table never waits for a socket, and memory never grows with one.
Each person may hold ``per_person`` open sockets and each client address
``per_address`` (a venue behind one address may raise it); the next one is refused with
a reason.

A line said at a table (``Change.said``) goes only to the sockets of the people who hear
it (``spades.web.talk.hears``: the watchers' chat, mutes and blocks), rendered once for
its sayer and once for everyone else.

Imports: Flask (templates), ``spades.tables`` and the web layer's rendering.
"""

from __future__ import annotations

import logging
import queue
import socket
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Flask

from ..tables import WATCHING_OFF, Change, Snapshot, TableService
from .render import render_fragments, render_picture, table_context
from .talk import MUTED_CHANNEL, hears, render_said

log = logging.getLogger(__name__)

# Rendered in place of the CSRF token; every connection swaps in its own. Names cannot
# hold control characters, so the mark never stands for anything else.
CSRF_MARK = "\x00csrf\x00"
# a table loaded afresh (its count of connected people is empty): its sockets say so again
REANNOUNCE = ("loaded", "resume")


class Published:
    """A change on its way to the connections of its table, rendered at most once per
    picture (a seat's, the watchers', a room member's)."""

    __slots__ = ("change", "_html", "_lock")
    ordered = True  # a socket never takes an older change after a newer one

    def __init__(self, change: Change) -> None:
        self.change = change
        self._html: dict[Any, str] = {}
        self._lock = threading.Lock()

    def html(self, app: Flask, player_id: str | None) -> str:
        """This person's fragments (or the line said, as its sayer or anyone else gets
        it), with the CSRF mark."""
        change = self.change
        said = change.said
        key = change.key_of(player_id) if said is None else ("said", said.line.person == player_id)
        html = self._html.get(key)
        if html is None:
            with self._lock:
                html = self._html.get(key)
                if html is None:
                    with app.app_context():
                        html = render_picture(change.snapshots[key], CSRF_MARK) if said is None \
                            else render_said(change.code, said, key[1], CSRF_MARK)
                    self._html[key] = html
        return html


class PagePush:
    """A page channel's news: its picture rendered at most once per person."""

    __slots__ = ("render", "_html", "_lock")
    ordered = False

    def __init__(self, render: Callable[[str | None], str]) -> None:
        self.render = render
        self._html: dict[str | None, str] = {}
        self._lock = threading.Lock()

    def html(self, app: Flask, player_id: str | None) -> str:
        """This person's picture of the page, with the CSRF mark."""
        with self._lock:
            html = self._html.get(player_id)
            if html is None:
                with app.app_context():
                    html = self._html[player_id] = self.render(player_id)
        return html


@dataclass(eq=False)
class Connection:
    """One open WebSocket: its table, its person, its address and its queue of changes."""

    code: str
    player_id: str
    address: str
    csrf: str
    queue_size: int = 64
    ws: Any = None
    kind: str = ""  # "table" (a table, or its room while it waits) or "page", once connected
    alive: bool = True
    seen: int = -1  # the last table change queued (a change can arrive twice around the connect)
    muted: frozenset[str] = frozenset()  # the people whose chat lines this person does not get
    reason: str = ""
    queue: queue.Queue = field(init=False)  # changes to send; None: close with ``reason``

    def __post_init__(self) -> None:
        self.queue = queue.Queue(maxsize=self.queue_size)

    def offer(self, item: Published) -> None:
        """Queue a change for this socket; never blocks (called under a table's lock)."""
        if not self.alive or self.reason:
            return
        if item.ordered:
            if item.change.seq <= self.seen:
                return
            self.seen = item.change.seq
        try:
            self.queue.put_nowait(item)
        except queue.Full:
            self.kill("too slow: reconnect for the table as it is now")

    def end(self, reason: str) -> None:
        """Close this socket with ``reason`` once what is queued is sent (never blocks)."""
        if self.reason:
            return
        self.reason = reason
        try:
            self.queue.put_nowait(None)
        except queue.Full:
            self.kill(reason)

    def kill(self, reason: str) -> None:
        """Close this socket from outside its own thread (a blocked send ends too)."""
        self.alive = False
        self.reason = reason
        sock = getattr(self.ws, "sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Hub:
    """Every WebSocket of this process, by table, by person and by address."""

    def __init__(self, app: Flask, service: TableService, *, per_person: int = 8, per_address: int = 100,
                 queue_size: int = 64) -> None:
        self.app = app
        self.service = service
        self.per_person = per_person
        self.per_address = per_address
        self.queue_size = queue_size
        self._lock = threading.Lock()
        self._by_table: dict[str, set[Connection]] = defaultdict(set)
        self._by_person: dict[str, set[Connection]] = defaultdict(set)
        self._by_address: dict[str, int] = defaultdict(int)
        self._latest: dict[str, Published] = {}  # each table's last change, for the mover's answer
        self._renderers: dict[str, Callable[[str | None], str]] = {}  # each page channel's drawing
        service.bus.subscribe(self._on_change)
        service.bus.listen_pages(self.page_changed)

    # -- the bus ---------------------------------------------------------------------
    def _on_change(self, change: Change) -> None:
        item = Published(change)
        said = change.said
        with self._lock:
            conns = list(self._by_table.get(change.code, ()))
            if conns and said is None:
                self._latest[change.code] = item
        if said is not None:  # a line said: to the people who hear it (see spades.web.talk)
            for conn in conns:
                if conn.kind == "table" and hears(said.line, conn.player_id, change.key_of(conn.player_id) is not None,
                                                  said.open, conn.muted):
                    conn.offer(item)
            return
        # watching turned off: the pages of people without a seat are closed, with the reason
        closed = not change.snapshot_for(None).watchable
        for conn in conns:
            if closed and change.key_of(conn.player_id) is None:
                conn.end(WATCHING_OFF)
            else:
                conn.offer(item)
        if change.command in REANNOUNCE and conns:
            threading.Thread(target=self._reannounce, args=(change.code, conns), daemon=True).start()

    def _reannounce(self, code: str, conns: list[Connection]) -> None:
        """The table was loaded afresh (a new owner, after another process died): its
        count of who is connected starts at nobody, so each of these sockets says so again."""
        for conn in conns:
            if conn.alive and conn.kind == "table" and not conn.reason:
                try:
                    self.service.connect(code, conn.player_id, lambda change, c=conn: self._prime(c, change))
                except Exception as e:  # the table is gone or refuses: the page reconnects
                    log.info("socket at %s could not say it is here again: %s", code, e)
                    conn.kill("reconnect")

    def _prime(self, conn: Connection, change: Change) -> None:
        """The table as it is when ``conn`` joins it (called under the table's lock)."""
        item = Published(change)
        with self._lock:
            latest = self._latest.get(change.code)
            if latest is not None and latest.change.seq == change.seq:
                item = latest  # the same picture: share its renderings
            self._by_table[conn.code].add(conn)
        conn.offer(item)

    # -- connections -----------------------------------------------------------------
    def _admit(self, conn: Connection, what: str) -> str | None:
        """Count ``conn`` against its person's and its address's caps (caller holds the
        lock); the reason it is refused, or None."""
        if len(self._by_person[conn.player_id]) >= self.per_person:
            return f"Too many open {what} in this browser: {self.per_person} at most. Close one and reload."
        if self._by_address[conn.address] >= self.per_address:
            return "Too many connections from your network. Try again later."
        self._by_person[conn.player_id].add(conn)
        self._by_address[conn.address] += 1
        return None

    def open(self, conn: Connection) -> str | None:
        """Register ``conn`` and connect it to its table; the reason it is refused, or
        None. Raises TableNotFound (nothing registered). It hears the table's changes from
        the moment it is registered, so none is missed while its table (perhaps in
        another process) primes it; an older picture than one already queued is dropped."""
        with self._lock:
            refusal = self._admit(conn, "tables")
            if refusal is None:
                self._by_table[conn.code].add(conn)
        if refusal:
            return refusal
        conn.kind = "table"
        try:
            conn.muted = self.service.store.muted(conn.player_id) if conn.player_id else frozenset()
            self.service.connect(conn.code, conn.player_id, lambda change: self._prime(conn, change))
        except BaseException:
            self._unregister(conn)
            raise
        return None

    def open_page(self, conn: Connection, channel: str, render: Callable[[str | None], str]) -> str | None:
        """Register ``conn`` on a page channel (``channel`` never looks like a table code)
        and send it the page as it is, drawn by ``render(person)`` with the CSRF mark;
        the reason it is refused, or None."""
        with self._lock:
            refusal = self._admit(conn, "pages")
            if refusal:
                return refusal
            conn.code, conn.kind = channel, "page"
            self._by_table[channel].add(conn)
            self._renderers[channel] = render
        conn.offer(PagePush(render))
        return None

    def page_changed(self, channel: str) -> None:
        """The page of ``channel`` changed: every socket on it gets the new picture. (A
        person who muted or blocked someone: their sockets' chat follows.)"""
        if channel.startswith(MUTED_CHANNEL):
            self._muted_changed(channel[len(MUTED_CHANNEL):])
            return
        with self._lock:
            conns = list(self._by_table.get(channel, ()))
            render = self._renderers.get(channel)
        if render is None:
            return
        item = PagePush(render)
        for conn in conns:
            conn.offer(item)

    def close(self, conn: Connection) -> None:
        """``conn`` closed: forget it, and tell its table (the seat's last one starts its hold)."""
        conn.alive = False
        self._unregister(conn)
        if conn.kind == "table":
            self.service.disconnect(conn.code, conn.player_id)

    def _unregister(self, conn: Connection) -> None:
        with self._lock:
            table = self._by_table.get(conn.code)
            if table is not None:
                table.discard(conn)
                if not table:
                    del self._by_table[conn.code]
                    self._latest.pop(conn.code, None)
                    self._renderers.pop(conn.code, None)
            person = self._by_person.get(conn.player_id)
            if person is not None and conn in person:
                person.discard(conn)
                if not person:
                    del self._by_person[conn.player_id]
                self._by_address[conn.address] -= 1
                if self._by_address[conn.address] <= 0:
                    del self._by_address[conn.address]

    def _muted_changed(self, player_id: str) -> None:
        with self._lock:
            conns = list(self._by_person.get(player_id, ()))
        if conns:
            muted = self.service.store.muted(player_id)
            for conn in conns:
                conn.muted = muted

    def rebind(self, old: str, new: str) -> None:
        """A browser's player id became an account's at sign-in: its open sockets follow."""
        with self._lock:
            conns = self._by_person.pop(old, set())
            for conn in conns:
                conn.player_id = new
            self._by_person[new] |= conns

    def render(self, item: Published | PagePush, conn: Connection) -> str:
        """The message for ``conn``: its person's fragments with its own CSRF token."""
        return item.html(self.app, conn.player_id).replace(CSRF_MARK, conn.csrf)

    def fragments(self, snap: Snapshot, player_id: str | None, csrf: str) -> str:
        """The table's fragments for this person's picture ``snap`` (a mover's answer):
        the rendering the sockets got for the same change when there is one."""
        with self._lock:
            latest = self._latest.get(snap.code)
        if latest is not None and latest.change.seq == snap.seq and latest.change.key_of(player_id) == snap.seat:
            return latest.html(self.app, player_id).replace(CSRF_MARK, csrf)
        return render_fragments(table_context(snap, csrf))

    def counts(self) -> dict[str, int]:
        """Open sockets: in all, tables with any, people with any (for tests and operators)."""
        with self._lock:
            return {"sockets": sum(len(c) for c in self._by_table.values()), "tables": len(self._by_table),
                    "people": len(self._by_person)}
