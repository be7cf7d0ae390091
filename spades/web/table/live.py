"""Live updates and moves: one WebSocket per open table page (htmx ws extension).

The handshake checks the player's signed cookie and the ``Origin`` header before the
upgrade. The connection then joins the socket hub (``spades.web.table.hub``), which may refuse
it past the caps (per person, per address) with a reason. It gets the table as it is at
once (``?since=N``, the last change its page applied: only what changed since, when the
hub still remembers), then one frame per change, made for the seat its person holds at
that change: the fragments that changed; while the table is still a room, the room's fragment after every join, leave,
partner choice and the start (which sends every page on to the table).

Moves come this way too, while the page's socket is open (``static/moves.js``; without
script, or while the socket is down, the same forms post to ``/g/<CODE>/<route>``). A
message is one JSON object: the form's fields under their form names (text), ``"route"``:
the declaration's route word (``act`` for a bid or a card, ``claim``, ...) and optionally
``"ack"``: an integer the page chooses; other keys the page's htmx adds (``HEADERS``) are
ignored. Only a command declared with a route whose answer is the table
(``TABLE_ANSWER``, at a playing table: ``socket_routes``) is taken; anything else (chat, a
room's controls, leaving) is refused with words saying to use the page's form. The command
runs on the path of the post (``spec.from_form`` → ``TableService.handle``) for the
person the socket's seat belongs to now (the handshake's, or the account a guest's browser
signed in to since: ``Hub.rebind``). That person's signed-in session is checked again
(``Hub.entitled``: at most a second old) before each message is taken and each frame is
sent, and every ``SESSION_CHECK_S`` while the socket is idle: a session signed out, here or
on every device, closes the socket with ``SIGNED_OUT`` before anything more of its seat
goes out or any move is taken. A move
taken is answered by nothing more than the change's frame, which every socket of the table
gets, the mover's included. A refusal is answered on that socket alone with the table as it
is now and the refusal's words in the message of ``#told``, as a refused post shows them
(``render_fragments``); that message element carries ``data-status``, the HTTP status the
post would have had (``status_of``: illegal 422, stale 409, not your seat 403, ...), and
``data-ack``, the message's ack when it had one. A message that is not such an object (not
JSON, nested past what the parser takes, an unknown route, a field that is not text) is
refused the same way (400; an unknown route 404) and the socket stays open; more than
``MOVES_PER_S`` a second (a burst of ``MOVES_BURST``) is refused with 429
(``SOCKET_MOVES_PER_S`` in the app's settings).
Incoming messages are capped in size (``SOCK_SERVER_OPTIONS``).

Threads: a socket's loop (``pump``) waits on its connection's queue; simple-websocket's
reader (a thread, or a greenlet under gevent: it is there for every socket anyway) wakes
it for each incoming message by queueing ``INCOMING`` (``_WakingEvent``), and the loop
reads what came with ``receive(timeout=0)`` between its sends: no thread of its own. The
move runs in the loop, in the handshake's request context (its session, the app's
service), like the post's view.

Imports: Flask, flask-sock, ``spades.tables`` and the web layer.
"""

from __future__ import annotations

import functools
import json
import logging
import queue
import time
from collections.abc import Callable, Mapping
from socket import SHUT_WR
from urllib.parse import urlsplit

from flask import Blueprint, Flask, abort, current_app, request, session
from flask_sock import Sock
from markupsafe import escape
from simple_websocket import ConnectionClosed
from simple_websocket import ws as simple_ws
from wsproto.extensions import PerMessageDeflate

from ...rules import IllegalAction
from ...tables import (
    NO_TABLE,
    WATCHING_OFF,
    Declared,
    NotSaved,
    NotSeated,
    NotWatchable,
    Player,
    Refused,
    TableNotFound,
    TableService,
    routed,
)
from ...tables.errors import status_of
from ...tables.registry import ROOM, TABLE_ANSWER
from ..rooms.codes import CODE_RE, JOIN_LIMIT, JOIN_LIMIT_MESSAGE, normalize_code
from ..site.identity import csrf_token, player_id
from ..site.limits import hit_shared
from .hub import RECHECK, Connection, Hub
from .render import render_fragments

log = logging.getLogger(__name__)

bp = Blueprint("live", __name__)
sock = Sock()
SESSION_CHECK_S = 10.0  # how soon an idle socket finds its session signed out (the bus says it sooner)
POLICY_VIOLATION = 1008  # the WebSocket close code for a refusal
TRY_AGAIN_LATER = 1013  # the close code for a table that could not be loaded just now: the page connects again
PAGE_CLOSE_WAIT_S = 2.0  # how long a page told it may not watch has to close its socket
MOVES_PER_S = 20.0  # a socket's moves a second (a person makes a few at most; the load bench's seats fewer)
MOVES_BURST = 40  # ... taken at once after a quiet while
INCOMING = object()  # queued by a socket's reader: a message came in (``_WakingEvent``)
IDLE = object()  # nothing came for a while (a socket's loop checks its session)
MESSAGE_TAG = '<p class="message" role="alert"'  # the refusal's words in ``#told`` (table/_told.html)
USE_THE_FORM = "That is not sent over the live connection: use the page's form."
NOT_UNDERSTOOD = "That message was not understood: a move is a JSON object with its route and its form's fields."
SIGNED_OUT = "You were signed out. Sign in again to play at this table."


def origin_allowed() -> bool:
    """The page that opens the socket must come from this site, scheme and host (or from a
    configured origin)."""
    origin = request.headers.get("Origin")
    if not origin:
        return False
    parts = urlsplit(origin)
    if parts.netloc and parts.netloc == request.host and parts.scheme == request.scheme:
        return True
    return origin.rstrip("/") in set(current_app.config.get("TRUSTED_ORIGINS") or ())


@bp.before_request
def handshake() -> None:
    """Checked before the upgrade, so a refusal is a plain HTTP answer. An unknown code
    counts toward the join limit, as on every table address."""
    code = (request.view_args or {}).get("code", "")
    if not CODE_RE.match(code):
        abort(404, description=NO_TABLE)
    try:
        current_app.extensions["spades.tables"].status(code.upper())
    except TableNotFound:
        hit_shared(JOIN_LIMIT, "join", JOIN_LIMIT_MESSAGE)
        abort(404, description=NO_TABLE)
    if not origin_allowed():
        abort(403, description="This connection did not come from this site.")
    if player_id() is None:
        abort(403, description="Open the table page first.")


@sock.route("/g/<code>/ws", bp=bp)
def socket(ws, code: str) -> None:
    code = normalize_code(code)
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # Flask types the proxy as Flask
    hub: Hub = app.extensions["spades.hub"]
    since = request.args.get("since", "")
    conn = connection(code, app, ws, int(since) if since.isdigit() and len(since) < 20 else None)
    try:
        refusal = hub.open(conn)
    except TableNotFound:
        refusal = "no such table"
    except NotSaved as e:  # the table could not be loaded just now: the page tries again
        close_with(ws, str(e), again=True)
        return
    except Refused as e:
        refusal = str(e)
    if refusal:
        close_with(ws, refusal, ended=refusal == WATCHING_OFF)
        return
    pump(ws, conn, app, hub, Mover(ws, conn, app, hub))


def serve_page(ws, code: str, channel: str, render: Callable[[str | None], str]) -> None:
    """A page that is not a table (a tourney's, an analysis's): its socket on ``channel``,
    each push drawn by ``render(person)``, until it closes."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # Flask types the proxy as Flask
    hub: Hub = app.extensions["spades.hub"]
    conn = connection(code, app, ws)
    refusal = hub.open_page(conn, channel, render)
    if refusal:
        close_with(ws, refusal)
        return
    pump(ws, conn, app, hub)


def connection(code: str, app: Flask, ws, since: int | None = None) -> Connection:
    """This request's socket as the hub keeps it: its table (or page), its person, the
    signed-in session it acts in (none for a guest) and its queue."""
    uid = session.get("uid") or None
    return Connection(code, player_id() or "", request.remote_addr or "", csrf_token(),
                      queue_size=app.config["SOCKET_QUEUE"], ws=ws, since=since, uid=uid,
                      gen=session.get("gen") if uid else None, sid=session.get("sid") if uid else None)


def pump(ws, conn: Connection, app: Flask, hub: Hub, mover: Mover | None = None) -> None:
    """Send ``conn``'s queued pictures until the socket closes (or is closed: a signed-out
    session, a stuck reader, the table ending it), then let the hub forget it; with a
    ``mover`` (a table's socket), take the moves that come in between the sends. A socket
    the page closed wakes its loop at once (``wake_when_closed``), so a waiting socket
    sleeps until its table changes, a message comes or its session is due a check. Nothing
    is taken or sent for a session signed out (``Hub.entitled``, before each)."""
    check_every = app.config.get("SESSION_CHECK_S", SESSION_CHECK_S)
    wake_when_closed(ws, conn, mover)
    try:
        while ws.connected and conn.alive:
            try:
                item = conn.take(check_every)
            except queue.Empty:
                item = IDLE
            if item is not None and not hub.entitled(conn):
                close_with(ws, SIGNED_OUT)
                break
            if mover is not None and (item is INCOMING or ws.input_buffer) and not mover.read():
                break  # signed out: closed
            if item is None:  # ended by the table (watching turned off), or the page closed it
                break
            if item is INCOMING or item is IDLE or item is RECHECK:
                continue
            try:
                message = hub.render(item, conn)
            except Exception:
                log.exception("rendering an update for %s failed; closing the socket (the page reconnects)", conn.code)
                break
            ws.send(message)
    except Exception as e:  # a closed socket ends this connection only
        log.debug("socket for %s closed: %s", conn.code, e)
    finally:
        hub.close(conn)
        if conn.reason and ws.connected:
            try:
                close_with(ws, conn.reason, ended=conn.reason == WATCHING_OFF)
            except Exception:
                pass


@functools.cache
def socket_routes() -> Mapping[str, Declared]:
    """The commands a table page may send over its socket, by route: those declared with
    a route whose answer is the table, at a playing table."""
    return {d.route: d for d in routed() if d.route and d.answer == TABLE_ANSWER and d.phase != ROOM}


class Mover:
    """A table socket's incoming moves (see the module docstring): read, checked, run and,
    when refused, answered on this socket."""

    def __init__(self, ws, conn: Connection, app: Flask, hub: Hub) -> None:
        self.ws, self.conn, self.app, self.hub = ws, conn, app, hub
        self.rate = float(app.config.get("SOCKET_MOVES_PER_S", MOVES_PER_S))
        self.burst = max(1.0, self.rate * MOVES_BURST / MOVES_PER_S)
        self.tokens, self.filled = self.burst, time.monotonic()
        self.waiting = False  # an INCOMING is in the connection's queue

    def poke(self) -> None:
        """A message came in (called by the socket's reader): wake the loop once."""
        if self.waiting:
            return
        self.waiting = True
        try:
            self.conn.queue.put_nowait(INCOMING)
        except queue.Full:  # the loop is busy sending: it reads the messages after its next frame
            self.waiting = False

    def read(self) -> bool:
        """Take every message that came in; False when the socket was closed meanwhile
        (its person signed out on every device)."""
        self.waiting = False
        while True:
            try:
                text = self.ws.receive(timeout=0)
            except ConnectionClosed:
                return True  # the loop meets the closed socket
            if text is None:
                return True
            if not self.take(text):
                return False

    def take(self, text: str | bytes) -> bool:
        """One message: run its move, or answer why not. False when the person has signed
        out (the socket is closed: no move is taken, and no answer shows the seat)."""
        if not self.hub.entitled(self.conn):
            close_with(self.ws, SIGNED_OUT)
            return False
        try:
            message = json.loads(text)
        except (ValueError, RecursionError):  # not JSON (not UTF-8 either), or nested too deep to read
            message = None
        ack = message.get("ack") if isinstance(message, dict) else None
        if not isinstance(ack, int) or isinstance(ack, bool) or abs(ack) >= 2 ** 53:
            ack = None
        if not self.allowed():
            self.refuse(f"Too many moves at once: at most {self.rate:g} a second. Wait a moment.", 429, ack)
            return True
        if not isinstance(message, dict):
            self.refuse(NOT_UNDERSTOOD, 400, ack)
            return True
        route, spec = message.get("route"), None
        if isinstance(route, str):
            spec = socket_routes().get(route)
        if spec is None:
            known = isinstance(route, str) and any(d.route == route for d in routed())
            self.refuse(USE_THE_FORM if known else f"{NOT_UNDERSTOOD} (No such route.)", 400 if known else 404, ack)
            return True
        fields = {k: v for k, v in message.items() if k not in ("route", "ack", "HEADERS")}
        wrong = next((k for k, v in fields.items() if not isinstance(v, str)), None)
        if wrong is not None:
            self.refuse(f"{NOT_UNDERSTOOD} (The field {wrong[:40]!r} is not text.)", 400, ack)
            return True
        self.run(spec, fields, ack)
        return True

    def allowed(self) -> bool:
        """A token of this socket's bucket (``rate`` a second, ``burst`` at most)."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.filled) * self.rate)
        self.filled = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True

    def run(self, spec: Declared, fields: dict[str, str], ack: int | None) -> None:
        """The post's path: the form becomes the command, the table's actor runs it; a move
        taken reaches this page with the change's frame."""
        service = self.app.extensions["spades.tables"]
        try:
            command = spec.from_form(fields)
            if not self.conn.player_id:
                raise NotSeated("You have no seat at this table.")
            service.handle(self.conn.code, Player(self.conn.player_id), command)
        except (IllegalAction, Refused) as e:
            self.refuse(str(e), status_of(e), ack)
        except Exception:
            log.exception("a move over the socket at %s failed", self.conn.code)
            self.refuse("Something went wrong with that move. Try again.", 500, ack)

    def refuse(self, words: str, status: int, ack: int | None) -> None:
        """Answer a refused message on this socket: the table as it is now with ``words``
        in its message (as a refused post shows them), marked with the status and the ack.
        The socket's next frame is then a whole one (the page shows this answer)."""
        marks = f' data-status="{status}"' + (f' data-ack="{ack}"' if ack is not None else "")
        service: TableService = self.app.extensions["spades.tables"]
        try:
            snap = service.snapshot(self.conn.code, self.conn.player_id or None)
            if snap.seat is None and not snap.around.watchable:
                raise NotWatchable(WATCHING_OFF)  # this socket is about to be closed with the reason
        except Refused:  # a room, a table gone, watching turned off: the words alone, in the banner
            self.ws.send(f'<div id="offline" class="offline-banner" role="alert" hx-swap-oob="true"{marks}>'
                         f'{escape(words)}</div>')
            return
        html = render_fragments(snap, self.conn.csrf, message=words).replace(MESSAGE_TAG, MESSAGE_TAG + marks, 1)
        self.conn.answered = (snap.around.seq, {})
        self.ws.send(html)


def wake_when_closed(ws, conn: Connection, mover: Mover | None = None) -> None:
    """When the page closes the socket, or the connection breaks, ``conn``'s loop is woken
    to end too, with no thread or greenlet of its own: simple-websocket's reader sets its
    event on every message and on the close (after marking the socket closed), so the
    event is wrapped to tell ``conn`` then, and ``mover`` of every message. (A page closed
    for a message over the size limit is the one close it sets the event before: that loop
    ends at its next frame or session check.)"""
    event = getattr(ws, "event", None)
    if event is not None:
        ws.event = _WakingEvent(event, ws, conn, mover)


class _WakingEvent:
    """A socket's event (``wake_when_closed``) that also wakes its connection's loop for
    each message (a table's socket) and once the socket is closed."""

    __slots__ = ("_event", "_ws", "_conn", "_mover")

    def __init__(self, event, ws, conn: Connection, mover: Mover | None = None) -> None:
        self._event, self._ws, self._conn, self._mover = event, ws, conn, mover

    def set(self) -> None:
        self._event.set()
        if not self._ws.connected:
            self._conn.gone()
        elif self._mover is not None and self._ws.input_buffer:
            self._mover.poke()

    def clear(self) -> None:
        self._event.clear()

    def is_set(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._event.wait(timeout)


def close_with(ws, reason: str, ended: bool = False, again: bool = False) -> None:
    """Close the socket as refused, with ``reason``, said first as the page's banner (a
    development server's close can reach the browser as an abnormal one, without it).
    ``ended``: this page may not see the table any more (watching was turned off), so the
    reason takes the place of the whole board, and with the board goes the element that
    holds the socket: the page neither shows a table that no longer changes nor tries to
    connect again. ``again``: a passing failure (the table could not be loaded just now):
    the banner says so until the page, which connects again by itself, is back."""
    oob = "" if ended else ' hx-swap-oob="true"'
    final = "" if again else ' data-final="1"'
    banner = f'<div id="offline" class="offline-banner" role="alert"{final}{oob}>{escape(reason)}</div>'
    if ended:
        banner = (f'<main id="table-main" class="table-main ended" hx-swap-oob="true"><h1 class="sr-only">The table'
                  f'</h1>{banner}<p class="actions"><a class="btn primary" href="/">Home</a></p></main>'
                  f'<span class="conn" id="conn" hidden hx-swap-oob="true"></span>')
    ws.send(banner)
    if ended:
        # the page closes the socket itself once the board is gone: a close begun by the
        # page is a clean one even where the server writes more after it (the development
        # server's HTTP answer would reach the page as a broken frame)
        deadline = time.monotonic() + PAGE_CLOSE_WAIT_S
        try:
            while ws.connected and time.monotonic() < deadline:
                ws.receive(timeout=max(0.0, deadline - time.monotonic()))
        except ConnectionClosed:
            pass
    if ws.connected:
        ws.close(reason=TRY_AGAIN_LATER if again else POLICY_VIOLATION, message=reason)
    end_stream(ws)


def end_stream(ws) -> None:
    """Nothing more goes down this connection after the close: a development server would
    write its HTTP answer after it, which the page reads as a broken frame and a reason to
    connect again."""
    raw = getattr(ws, "sock", None)
    if raw is not None:
        try:
            # the writing half only: the peer still reads the close frame already sent (a
            # shut reading half can answer the peer's own close with a reset, which may
            # throw the close frame away before the peer reads it)
            raw.shutdown(SHUT_WR)
        except OSError:
            pass


def compress_each_message_alone() -> None:
    """Pages ask for compressed messages (permessage-deflate), and simple-websocket accepts
    with wsproto's defaults, which keep a compressor of about 130 KB per open socket for
    its whole life. Each message here is a whole set of fragments, so it is compressed on
    its own (``server_no_context_takeover``): nothing stays between messages, and an idle
    socket costs a few kilobytes. simple-websocket names the extension at each handshake,
    so the configured one is put in its place."""
    simple_ws.PerMessageDeflate = functools.partial(PerMessageDeflate, server_no_context_takeover=True)


def init_app(app: Flask) -> None:
    compress_each_message_alone()
    app.jinja_env.globals["socket_routes"] = " ".join(sorted(socket_routes()))  # the table page's moves.js
    app.register_blueprint(bp)
    sock.init_app(app)
