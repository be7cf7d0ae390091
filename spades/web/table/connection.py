"""One open WebSocket of the socket hub (``spades.web.table.hub``): its table, its
person, its address and its bounded queue of changes to send.

A change is offered under its table's lock and never waits: a connection whose queue is
full (a stuck or slow reader) is closed, and the page reconnects and gets a snapshot; a
table never waits for a socket, and memory never grows with one. The connection's own
greenlet (or thread) takes what to send: one that fell behind (``BEHIND`` changes
waiting) skips to the newest change of its queue, so it sends one frame, not one per
change missed; a few changes waiting (the bots' answers queued while its loop ran the
move its page sent) go each in turn, so the page sees every card played.

Imports: the web layer's published changes and page channels.
"""

from __future__ import annotations

import math
import queue
import socket
from dataclasses import dataclass, field
from typing import Any

from .page_channel import PagePush
from .published import Published
from .resume import Resumed

BEHIND = 4  # a socket with this many changes waiting or more (the one it takes included) skips to the newest
_NOTHING = object()  # a connection holds nothing taken from its queue
RECHECK = object()  # queued for a connection whose session is to be looked up again now


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


def _is_table_change(item: Any) -> bool:
    return type(item) is Published and item.table
