"""The socket hub: every open table page's WebSocket, kept by table and by person.

The hub listens to the table service's bus. A change arrives under its table's lock, so
the hub only takes note: it wraps the change once (``Published``) and offers it to the
bounded queue of every connection at that table. Each connection's own greenlet (or
thread) then renders and sends: the change says which seat each person holds at that very
version, so a seat that changed hands (a rematch swap, a seat left to a bot, a sign-in)
reaches the right page at once. The public part of a change is rendered once for
everyone and each seat's own part once for that seat, outside every table's lock (a
fragment drawn from the same as in the table's latest drawing is reused, and a seat's
own part whose snapshot shows nothing new is not worked out again: a card redraws its
player's and the next player's, ``spades.web.table.render.private_key``); a connection
is sent a *frame*: the fragments that differ from what it sent before (all of them at
first). A connection that fell behind (``BEHIND`` changes waiting) skips to the newest
change of its queue, so it sends one frame, not one per change missed; a few changes
waiting (the bots' answers queued while its loop ran the move its page sent) go each in
turn, so the page sees every card played. Each connection puts its own CSRF token in at
the last step.

The hub remembers the last ``HISTORY`` changes of a table with sockets here (their
number and the public fragments each changed): a socket back from a drop names the last
change its page applied (``Connection.since``) and gets, in one frame, every public
fragment changed since and its seat's own fragments (the page ends up as a fresh one
would); a change no longer remembered gets the whole table.

Pages that are not tables (a tourney's page) open a *page channel*: ``open_page`` with a
render function of the person, and ``page_changed`` pushes a fresh rendering, made once
per person and shared by their connections, to every socket on that channel.

A connection whose queue is full (a stuck or slow reader) is closed: the page reconnects
and gets a snapshot; a table never waits for a socket, and memory never grows with one.
Each person may hold ``per_person`` open sockets and each client address
``per_address`` (a venue behind one address may raise it); the next one is refused with
a reason.

A connection acts for its person in the signed-in session its page holds (``uid``,
``gen``, ``sid``; none for a guest): a guest's socket whose browser signs in follows the
seat to the account (``rebind``) and takes the session that sign-in began. Before each
move it takes and each message it sends, the socket's loop asks ``entitled``, which looks
the session up again in the database when the last look is ``recheck_s`` old (1 s,
``SESSION_RECHECK_S``); a session signed out, here or on every device, closes the socket
before anything more of its seat is sent. Signing out on every device is also said on the
bus (``signed_out``), so every process rechecks that person's sockets at once.

A line said at a table (``Change.said``) goes only to the sockets of the people who hear
it (``spades.web.table.chat.hears``: the watchers' chat, mutes and blocks), rendered once for
its sayer, once for the host (whose menu on it offers to silence its speaker) and once
for everyone else; after the host's own notice (a silence, the chat's settings) the
host's sockets get their whole chat, its menus as they now apply. A player's socket
gets its chat again, the watchers' lines in it, with the change that ends the match
(and without them with the one that starts the next).

Imports: Flask (templates), ``spades.tables`` and the web layer's rendering.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import queue
import socket
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, current_app, has_app_context

from ...tables import WATCHING_OFF, Change, Snapshot, TableService
from .chat import MUTED_CHANNEL, hears, render_log, render_said
from .fragments import Rendered
from .render import (
    PUBLIC,
    announce_line,
    render_announcement,
    render_fragments,
    render_picture,
    render_private,
    render_public,
    stamp_of,
)

log = logging.getLogger(__name__)

# Rendered in place of the CSRF token; every connection swaps in its own. Names cannot
# hold control characters, so the mark never stands for anything else.
CSRF_MARK = "\x00csrf\x00"
# a table loaded afresh (its count of connected people is empty): its sockets say so again
REANNOUNCE = ("loaded", "resume")
PUBLIC_KEY = "public"  # the public part's key among a change's renderings (seats are 0-3)
ALWAYS = "turn"  # the fragment in every frame: whose turn, and the table's version and change number
ANNOUNCE = "announce"  # the screen readers' line: told of each change a frame covers, not diffed
TOLD_AT_ONCE = 8  # the most moves one frame's screen readers' line tells (a socket far behind)
HISTORY = 64  # changes remembered per table with sockets here, for a socket back from a drop
BEHIND = 4  # a socket with this many changes waiting or more (the one it takes included) skips to the newest
_NOTHING = object()  # a connection holds nothing taken from its queue
RECHECK = object()  # queued for a connection whose session is to be looked up again now
RECHECK_S = 1.0  # how long a session looked up holds for the moves and frames of its socket
SIGNED_OUT_CHANNEL = "signed-out/"  # a page channel: the account after the slash signed out on every device


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
                with _in_app(app):
                    rendered = render_public(self.change.snapshots[None], before) if key == PUBLIC_KEY \
                        else render_private(self.change.snapshots[key], CSRF_MARK, before=before)
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
        html = public.fill(tuple(n for n in PUBLIC if n == ALWAYS or n in names))
        return html + (self.parts(app, key).fill() if key is not None else "")

    def release(self) -> None:
        """Forget the renderings and the change before this one (the hub keeps a few)."""
        self.prev = None
        self._parts = {}

    def html(self, app: Flask, player_id: str | None) -> str:
        """A room member's picture, with the CSRF mark."""
        key = self.change.key_of(player_id)
        return self._once(app, key, lambda: render_picture(self.change.snapshots[key], CSRF_MARK))

    def said_html(self, app: Flask, own: bool, host: bool, log: Callable[[], str]) -> str:
        """The line said, as its sayer (``own``), the table's host (``host``) or anyone
        else gets it, with the CSRF mark; after the host's notice its sayer gets the whole
        chat (``log``: the sayer's, drawn with the mark)."""
        said = self.change.said
        assert said is not None
        host = host and not own
        return self._once(app, ("said", own, host), lambda: render_said(
            self.change.code, said, own, host, CSRF_MARK, log() if own and said.line.kind == "notice" else ""))

    def _once(self, app: Flask, key: Any, render: Callable[[], str]) -> str:
        html = self._html.get(key)
        if html is None:
            with self._lock:
                html = self._html.get(key)
                if html is None:
                    with _in_app(app):
                        html = self._html[key] = render()
        return html


class Resumed:
    """The latest change of a table for a socket back from a drop (``Hub._prime``): the
    public fragments changed since its page's change (``earlier``, by the changes before
    the latest, and the latest's own) and its seat's own fragments, in one frame; ``seat``
    is the seat its person held at that change (another seat now: the whole table)."""

    __slots__ = ("item", "seat", "earlier")

    def __init__(self, item: Published, seat: Any, earlier: frozenset[str] | None) -> None:
        self.item, self.seat, self.earlier = item, seat, earlier

    @property
    def change(self) -> Change:
        return self.item.change


@dataclass(slots=True)
class Past:
    """What the hub remembers of a table's change once its renderings are gone: its
    number, who held each seat, and the names of the public fragments it changed (None
    until a socket's frame worked them out)."""

    seq: int
    persons: tuple[str | None, ...]
    public: frozenset[str] | None = None


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
                with _in_app(app):
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
    host: bool = False  # its person is the table's host, as the last change it was sent says
    chat_open: bool | None = None  # its chat holds the watchers' lines (the match was over); None: as the page had it
    reason: str = ""
    # the signed-in session the socket acts in (``Hub.entitled``); None: a guest's
    uid: str | None = None
    gen: object = None
    sid: object = None
    checked: float = -math.inf  # when the session was last found to hold (monotonic seconds)
    since: int | None = None  # a socket back from a drop: the last change its page applied
    sent: dict[str, str] = field(default_factory=dict)  # the table's fragments as this socket last sent them
    sent_seq: int = -1  # the change ``sent`` shows
    told: str = ""  # the screen readers' line this socket last told
    passed: list[Published] = field(default_factory=list)  # the changes ``take`` skipped for the one it gave
    # a mover's answer to its own move redraws its page behind this socket's back: (the
    # change it shows, its fragments), taken by the socket's thread before its next frame
    answered: tuple[int, dict[str, str]] | None = None
    queue: queue.Queue = field(init=False)  # changes to send; None: close with ``reason``
    _held: Any = field(default=_NOTHING, init=False)  # taken from the queue behind a change, sent next

    def __post_init__(self) -> None:
        self.queue = queue.Queue(maxsize=self.queue_size)

    def take(self, timeout: float) -> Any:
        """The next thing to send (raises ``queue.Empty`` after ``timeout``). A socket that
        fell behind (``BEHIND`` changes waiting or more) skips a table's change with newer
        ones of the same table right behind it for the newest: it sends one frame of what
        changed since it last sent, not every change in turn. A few changes waiting are sent
        each in turn, so that a page sees every card played (its own move, run in its
        socket's loop, lets the bots' answers queue behind it)."""
        item, self._held = self._held, _NOTHING
        if item is _NOTHING:
            item = self.queue.get(timeout=timeout)
        self.passed = []
        if 1 + self.queue.qsize() < BEHIND:
            return item
        while _is_table_change(item):
            try:
                later = self.queue.get_nowait()
            except queue.Empty:
                break
            if not _is_table_change(later):
                self._held = later
                break
            self.passed.append(item)
            item = later
        return item

    def offer(self, item: Published | Resumed | PagePush) -> None:
        """Queue a change for this socket; never blocks (called under a table's lock)."""
        if not self.alive or self.reason:
            return
        if not isinstance(item, PagePush):  # a socket never takes an older change after a newer one
            if item.change.seq <= self.seen:
                return
            self.seen = item.change.seq
        try:
            self.queue.put_nowait(item)
        except queue.Full:
            self.kill("too slow: reconnect for the table as it is now")

    def recheck(self) -> None:
        """Look the session up again before anything more is sent or taken (never blocks:
        a full queue's loop is busy and checks before its next frame)."""
        self.checked = -math.inf
        try:
            self.queue.put_nowait(RECHECK)
        except queue.Full:
            pass

    def gone(self) -> None:
        """The page closed this socket: its loop ends without waiting for its next change
        (never blocks; a loop whose queue is full is busy and meets the closed socket when
        it sends)."""
        self.alive = False
        try:
            self.queue.put_nowait(None)
        except queue.Full:
            pass

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


def _in_app(app: Flask) -> contextlib.AbstractContextManager[Any]:
    """``app``'s context to draw in: the one this thread is in already (a socket's loop
    runs in its request's, for the socket's life), else a new one for the drawing."""
    if has_app_context() and current_app._get_current_object() is app:  # type: ignore[attr-defined]
        return contextlib.nullcontext()
    return app.app_context()


def _is_table_change(item: Any) -> bool:
    return type(item) is Published and item.table


def _is_host(change: Change, player_id: str | None) -> bool:
    """This person holds the host's seat at a playing table's ``change``."""
    key = change.key_of(player_id)
    snap = change.snapshots.get(key) if isinstance(key, int) else None
    return isinstance(snap, Snapshot) and snap.host_seat == key


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
        self._latest: dict[str, Published] = {}  # each table's last change, for the mover's answer
        self._drawn: dict[str, dict[Any, tuple[int, Rendered]]] = {}  # each table's latest drawing of each part
        self._history: dict[str, deque[Past]] = {}  # each table's last changes, for a socket back from a drop
        self._renderers: dict[str, Callable[[str | None], str]] = {}  # each page channel's drawing
        service.bus.subscribe(self._on_change)
        service.bus.listen_pages(self.page_changed)

    # -- the bus ---------------------------------------------------------------------
    def _on_change(self, change: Change) -> None:
        said = change.said
        with self._lock:
            item = Published(change, self._drawn.get(change.code))
            conns = list(self._by_table.get(change.code, ()))
            if conns and item.table:
                self._remember(item)
        if said is not None:  # a line said: to the people who hear it (see spades.web.table.talk)
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

    def _remember(self, item: Published) -> None:
        """``item`` is its table's latest change (caller holds the lock): the one before
        is what its frames differ from; older ones keep only their ``Past``."""
        code = item.change.code
        latest = self._latest.get(code)
        if latest is not None:
            if latest.prev is not None:
                latest.prev.release()  # renderings kept: this change's and the one before it
            item.prev = latest
        self._latest[code] = item
        self._drawn.setdefault(code, item.drawn)
        history = self._history.get(code)
        if history is None:
            history = self._history[code] = deque(maxlen=HISTORY)
        history.append(item.past)

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
        conn.host = _is_host(change, conn.player_id)
        with self._lock:
            item = Published(change, self._drawn.get(change.code))
            latest = self._latest.get(change.code)
            if latest is not None and latest.change.seq == change.seq:
                item = latest  # the same picture: share its renderings
            elif item.table:
                self._remember(item)
            self._by_table[conn.code].add(conn)
            missed = self._missed(change.code, since, conn.player_id) if since is not None else None
        if missed is not None and item.table and item is self._latest.get(change.code):
            conn.offer(Resumed(item, *missed))
        else:
            conn.offer(item)

    def _missed(self, code: str, since: int, player_id: str) -> tuple[Any, frozenset[str] | None] | None:
        """What changed in ``code`` after change ``since`` (caller holds the lock): the
        seat the person held then and the public fragments changed, or None when this
        hub does not remember it all."""
        history = self._history.get(code)
        found = [k for k, past in enumerate(history or ()) if past.seq == since]
        if history is None or not found:
            return None
        after = list(history)[found[0] + 1:-1]  # the latest's own changes are worked out with its frame
        changed = [past.public for past in after if past.public is not None]
        if len(changed) < len(after):
            return None
        seat = next((s for s, pid in enumerate(history[found[0]].persons) if pid == player_id), None)
        if since == history[-1].seq:
            return seat, None  # the page is up to date
        return seat, frozenset[str]().union(*changed)

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
                    self._latest.pop(conn.code, None)
                    self._drawn.pop(conn.code, None)
                    self._history.pop(conn.code, None)
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
            return self._said(item, conn).replace(CSRF_MARK, conn.csrf)
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
        return (html + self._chat(item.change, key, conn)).replace(CSRF_MARK, conn.csrf)

    def _said(self, item: Published, conn: Connection) -> str:
        """A line said, for ``conn`` (see ``Published.said_html``), with the CSRF mark."""
        said = item.change.said
        assert said is not None
        return item.said_html(self.app, said.line.person == conn.player_id, conn.host, lambda: render_log(
            self.service.store, item.change.code, conn.player_id, True, said.open, conn.muted, True, CSRF_MARK,
            upto=said.line.number))

    def _chat(self, change: Change, key: Any, conn: Connection) -> str:
        """A player's chat again when the match ended or the next began since its last
        frame (the watchers' lines came in, or go), with the CSRF mark; "" otherwise (and
        when no watchers' line is concerned)."""
        conn.host = _is_host(change, conn.player_id)
        if not isinstance(key, int):
            return ""
        snap = change.snapshots[key]
        was, conn.chat_open = conn.chat_open, bool(snap.view["finished"])
        if not snap.shared or was == conn.chat_open or was is None and not conn.chat_open:
            return ""
        with _in_app(self.app):
            return render_log(self.service.store, change.code, conn.player_id, True, conn.chat_open, conn.muted,
                              conn.host, CSRF_MARK, watchers_only=True)

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
                snap = passed.change.snapshots[key]
                lines.append((stamp_of(snap), announce_line(snap)))
        lines.append((stamp_of(item.change.snapshots[key]), newest.keys[ANNOUNCE]))  # type: ignore[arg-type]
        fresh = []
        for stamp, words in lines:
            if words and words != conn.told:
                fresh.append((stamp, words))
            conn.told = words
        if not fresh:
            return ""
        if fresh == lines[-1:]:  # the newest move alone: its own fragment
            return newest.fill((ANNOUNCE,))
        with _in_app(self.app):
            return render_announcement(fresh[-TOLD_AT_ONCE:])

    def fragments(self, snap: Snapshot, player_id: str | None, csrf: str) -> str:
        """Every fragment of the table for this person's picture ``snap`` (a mover's
        answer): the renderings the sockets got for the same change when there are some.
        The person's sockets at the table work out their next frames from this answer, which
        their pages now show, and not from what they last sent (a socket behind the move
        would otherwise leave out a fragment that came back to what it sent before it, such
        as "Your turn", which the answer took away)."""
        with self._lock:
            latest = self._latest.get(snap.code)
            conns = [c for c in self._by_person.get(player_id, ()) if c.code == snap.code] if player_id else []
        if latest is not None and latest.change.seq == snap.seq and latest.change.key_of(player_id) == snap.seat:
            shown = {**latest.parts(self.app, PUBLIC_KEY).fragments, **latest.parts(self.app, snap.seat).fragments}
            html = latest.whole(self.app, snap.seat)
        else:
            shown, html = {}, render_fragments(snap, csrf)  # renderings the hub does not hold: the next frame is whole
        for conn in conns:  # their pages show this answer now: their next frames differ from it
            conn.answered = (snap.seq, shown)
        return html.replace(CSRF_MARK, csrf)

    def counts(self) -> dict[str, int]:
        """Open sockets: in all, tables with any, people with any (for tests and operators)."""
        with self._lock:
            return {"sockets": sum(len(c) for c in self._by_table.values()), "tables": len(self._by_table),
                    "people": len(self._by_person)}
