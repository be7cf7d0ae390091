"""The socket hub: every open table page's WebSocket, kept by table and by person.

The hub listens to the table service's bus. A change arrives under its table's lock, so
the hub only takes note: it wraps the change once (``spades.web.table.published``) and
offers it to the bounded queue of every connection at that table
(``spades.web.table.connection``). Each connection's own greenlet (or thread) then
renders and sends (``Hub.render``): the change says which seat each person holds at that
very version, so a seat that changed hands (a rematch swap, a seat left to a bot, a
sign-in) reaches the right page at once. Each part is drawn once, outside every table's
lock, and a connection is sent a *frame*: the fragments that differ from what it sent
before, with its own CSRF token put in at the last step.

The hub remembers the last changes of a table with sockets here
(``spades.web.table.resume``): a socket back from a drop gets what changed since its
page's change in one frame, or the whole table. Pages that are not tables open a *page
channel* (``open_page``, ``page_changed``: ``spades.web.table.page_channel``). A line said
goes only to the sockets of the people who hear it, and a player's chat follows the end
of a match (``spades.web.table.chat_routing``).

A connection whose queue is full (a stuck or slow reader) is closed: the page reconnects
and gets a snapshot. Each person may hold ``per_person`` open sockets and each client
address ``per_address`` (a venue behind one address may raise it); the next one is
refused with a reason.

A connection acts for its person in the signed-in session its page holds (``uid``,
``gen``, ``sid``; none for a guest): a guest's socket whose browser signs in follows the
seat to the account (``rebind``) and takes the session that sign-in began. Before each
move it takes and each message it sends, the socket's loop asks ``entitled``, which looks
the session up again in the database when the last look is ``recheck_s`` old (1 s,
``SESSION_RECHECK_S``); a session signed out, here or on every device, closes the socket
before anything more of its seat is sent. Signing out on every device is also said on the
bus (``signed_out``), so every process rechecks that person's sockets at once.

Imports: Flask (templates), ``spades.tables`` and the web layer's rendering, chat lines,
published changes, connections, page channels and what is remembered for a resume.
"""

from __future__ import annotations

import functools
import logging
import math
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from flask import Flask

from ...tables import WATCHING_OFF, Change, Snapshot, TableService
from .chat import MUTED_CHANNEL
from .chat_routing import chat_again, is_host, offer_said, remute, said_frame
from .connection import BEHIND, RECHECK, Connection
from .page_channel import SIGNED_OUT_CHANNEL, PagePush
from .published import ANNOUNCE, CSRF_MARK, PUBLIC_KEY, Published, in_app
from .render import announce_line, render_announcement, render_fragments, stamp_of
from .resume import History, Resumed

# the names other modules take from the hub: its own, and the connection's
__all__ = ["BEHIND", "CSRF_MARK", "RECHECK", "Connection", "Hub"]

log = logging.getLogger(__name__)

# a table loaded afresh (its count of connected people is empty): its sockets say so again
REANNOUNCE = ("loaded", "resume")
TOLD_AT_ONCE = 8  # the most moves one frame's screen readers' line tells (a socket far behind)
RECHECK_S = 1.0  # how long a session looked up holds for the moves and frames of its socket


class Hub:
    """Every WebSocket of this process, by table, by person and by address."""

    def __init__(self, app: Flask, service: TableService, *, per_person: int = 8, per_address: int = 100,
                 queue_size: int = 64) -> None:
        self.app = app
        self.service = service
        self.per_person = per_person
        self.per_address = per_address
        self.queue_size = queue_size
        self.recheck_s = float(app.config.get("SESSION_RECHECK_S", RECHECK_S))
        self._lock = threading.Lock()
        self._by_table: dict[str, set[Connection]] = defaultdict(set)
        self._by_person: dict[str, set[Connection]] = defaultdict(set)
        self._by_address: dict[str, int] = defaultdict(int)
        self._history = History()  # each table's latest change, drawings and last changes
        self._renderers: dict[str, Callable[[str | None], str]] = {}  # each page channel's drawing
        service.bus.subscribe(self._on_change)
        service.bus.listen_pages(self.page_changed)

    # -- the bus ---------------------------------------------------------------------
    def _on_change(self, change: Change) -> None:
        said = change.said
        with self._lock:
            item = self._history.wrap(change)
            conns = list(self._by_table.get(change.code, ()))
            if conns and item.table:
                self._history.remember(item)
        if said is not None:  # a line said: to the people who hear it
            offer_said(item, conns)
            return
        # watching turned off: the pages of people without a seat are closed, with the reason
        watcher = change.snapshot_for(None)  # a room has nobody to turn away
        closed = isinstance(watcher, Snapshot) and not watcher.around.watchable
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
                    self.service.connect(code, conn.player_id, functools.partial(self._prime, conn))
                except Exception as e:  # the table is gone or refuses: the page reconnects
                    log.info("socket at %s could not say it is here again: %s", code, e)
                    conn.kill("reconnect")

    def _prime(self, conn: Connection, change: Change) -> None:
        """The table as it is when ``conn`` joins it (called under the table's lock). A
        socket back from a drop whose change this hub still remembers gets what changed
        since, in one frame; any other, the whole picture."""
        since, conn.since = conn.since, None
        conn.host = is_host(change, conn.player_id)
        with self._lock:
            item = self._history.wrap(change)
            latest = self._history.latest(change.code)
            if latest is not None and latest.change.seq == change.seq:
                item = latest  # the same picture: share its renderings
            elif item.table:
                self._history.remember(item)
            self._by_table[conn.code].add(conn)
            missed = self._history.missed(change.code, since, conn.player_id) if since is not None else None
        if missed is not None and item.table and item is self._history.latest(change.code):
            conn.offer(Resumed(item, *missed))
        else:
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
        if channel.startswith(SIGNED_OUT_CHANNEL):
            with self._lock:
                conns = list(self._by_person.get(channel[len(SIGNED_OUT_CHANNEL):], ()))
            for conn in conns:
                conn.recheck()
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
                    self._history.forget(conn.code)
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
        remute(self.service.store, player_id, conns)

    def rebind(self, old: str, new: str, gen: object, sid: object) -> None:
        """A browser's player id became account ``new``'s at sign-in, in the session of
        generation ``gen`` and id ``sid``: its open sockets follow, acting in that session."""
        with self._lock:
            conns = self._by_person.pop(old, set())
            for conn in conns:
                conn.player_id, conn.uid, conn.gen, conn.sid, conn.checked = new, new, gen, sid, -math.inf
            if conns:
                self._by_person[new] |= conns

    def signed_out(self, uid: str) -> None:
        """Account ``uid`` signed out on every device: every process looks up the session of
        each of its sockets again at once (``entitled``), and closes those it ended."""
        self.service.bus.publish_page(SIGNED_OUT_CHANNEL + uid)

    def entitled(self, conn: Connection) -> bool:
        """Whether ``conn`` may still act for its person and be sent its seat's cards (in
        its own thread): a guest's socket may (a browser's own player id, which nobody signs
        out); an account's while the signed-in session it acts in holds, looked up again
        when the last look is ``recheck_s`` old."""
        if conn.uid is None:
            return True
        now = time.monotonic()
        if now - conn.checked < self.recheck_s:
            return True
        accounts = self.app.extensions["spades.accounts"]
        if conn.uid != conn.player_id or not accounts.session_valid(conn.uid, conn.gen, conn.sid):
            return False
        conn.checked = now
        return True

    def render(self, item: Published | Resumed | PagePush, conn: Connection) -> str:
        """The message for ``conn`` (in its own thread, in order): its frame of a table's
        change (what differs from what it sent before), a room's picture, a line said or
        a page, with its own CSRF token."""
        if isinstance(item, Published) and item.change.said is not None:
            return said_frame(self.app, self.service.store, item, conn).replace(CSRF_MARK, conn.csrf)
        if isinstance(item, PagePush) or (isinstance(item, Published) and not item.table):  # a Resumed is a table's
            if isinstance(item, Published):
                conn.sent.clear()  # a room's picture: the table's first frame is whole
            return item.html(self.app, conn.player_id).replace(CSRF_MARK, conn.csrf)
        key = item.change.key_of(conn.player_id)
        answered, conn.answered = conn.answered, None
        if answered is not None and answered[0] >= conn.sent_seq:
            conn.sent, conn.sent_seq = dict(answered[1]), answered[0]  # the page shows the answer
        if isinstance(item, Resumed):
            latest = item.item
            html = latest.since(self.app, key, item.earlier) if item.seat == key else None
            if html is None:
                html = latest.whole(self.app, key)
            # the page is now as the latest change shows it
            conn.sent = {**latest.parts(self.app, PUBLIC_KEY).fragments,
                         **(latest.parts(self.app, key).fragments if key is not None else {})}
            if key is not None:
                conn.told = latest.parts(self.app, key).keys[ANNOUNCE]  # type: ignore[assignment]
        else:
            html = item.frame(self.app, key, conn.sent) + self._told(item, key, conn)
        conn.sent_seq = max(conn.sent_seq, item.change.seq)
        chat = chat_again(self.app, self.service.store, item.change, key, conn)
        return (html + chat).replace(CSRF_MARK, conn.csrf)

    def _told(self, item: Published, key: Any, conn: Connection) -> str:
        """The screen readers' line of a frame: each move this socket has not told, oldest
        first, those it skipped to reach ``item`` included (a watcher has none). It is told
        even when the mover's answer told it already, for that answer may reach the page
        after this frame; the page tells each stamp once (site.js)."""
        if key is None:
            return ""
        newest = item.parts(self.app, key)
        lines: list[tuple[int, str]] = []
        for passed in conn.passed:
            if passed.change.key_of(conn.player_id) == key:
                snap = passed.change.table(key)
                lines.append((stamp_of(snap), announce_line(snap)))
        lines.append((stamp_of(item.change.table(key)), str(newest.keys[ANNOUNCE])))
        fresh = []
        for stamp, words in lines:
            if words and words != conn.told:
                fresh.append((stamp, words))
            conn.told = words
        if not fresh:
            return ""
        if fresh == lines[-1:]:  # the newest move alone: its own fragment
            return newest.fill((ANNOUNCE,))
        with in_app(self.app):
            return render_announcement(fresh[-TOLD_AT_ONCE:])

    def fragments(self, snap: Snapshot, player_id: str | None, csrf: str) -> str:
        """Every fragment of the table for this person's picture ``snap`` (a mover's
        answer): the renderings the sockets got for the same change when there are some.
        The person's sockets at the table work out their next frames from this answer, which
        their pages now show, and not from what they last sent (a socket behind the move
        would otherwise leave out a fragment that came back to what it sent before it, such
        as "Your turn", which the answer took away)."""
        with self._lock:
            latest = self._history.latest(snap.code)
            conns = [c for c in self._by_person.get(player_id, ()) if c.code == snap.code] if player_id else []
        if latest is not None and latest.change.seq == snap.around.seq and latest.change.key_of(player_id) == snap.seat:
            shown = {**latest.parts(self.app, PUBLIC_KEY).fragments, **latest.parts(self.app, snap.seat).fragments}
            html = latest.whole(self.app, snap.seat)
        else:
            shown, html = {}, render_fragments(snap, csrf)  # renderings the hub does not hold: the next frame is whole
        for conn in conns:  # their pages show this answer now: their next frames differ from it
            conn.answered = (snap.around.seq, shown)
        return html.replace(CSRF_MARK, csrf)

    def counts(self) -> dict[str, int]:
        """Open sockets: in all, tables with any, people with any (for tests and operators)."""
        with self._lock:
            return {"sockets": sum(len(c) for c in self._by_table.values()), "tables": len(self._by_table),
                    "people": len(self._by_person)}
