"""Live updates: one WebSocket per open table page (htmx ws extension), server to client.

The handshake checks the player's signed cookie and the ``Origin`` header before the
upgrade. The connection then joins the socket hub (``spades.web.hub``), which may refuse
it past the caps (per person, per address) with a reason. It gets the table as it is at
once (``?since=N``, the last change its page applied: only what changed since, when the
hub still remembers), then one frame per change, made for the seat its person holds at
that change: the fragments that changed; while the table is still a room, the room's fragment after every join, leave,
partner choice and the start (which sends every page on to the table). Moves never come
this way: they are HTTP posts; incoming messages are capped in size.

Imports: Flask, flask-sock, ``spades.tables`` and the web layer.
"""

from __future__ import annotations

import functools
import logging
import queue
import time
from collections.abc import Callable
from socket import SHUT_WR
from urllib.parse import urlsplit

from flask import Blueprint, Flask, abort, current_app, request, session
from flask_sock import Sock
from markupsafe import escape
from simple_websocket import ConnectionClosed
from simple_websocket import ws as simple_ws
from wsproto.extensions import PerMessageDeflate

from ..tables import NO_TABLE, WATCHING_OFF, NotSaved, Refused, TableNotFound
from .codes import CODE_RE, JOIN_LIMIT, JOIN_LIMIT_MESSAGE, normalize_code
from .hub import Connection, Hub
from .identity import csrf_token, player_id
from .limits import hit_shared

log = logging.getLogger(__name__)

bp = Blueprint("live", __name__)
sock = Sock()
SESSION_CHECK_S = 10.0  # how soon "sign out on every device" closes an open socket
POLICY_VIOLATION = 1008  # the WebSocket close code for a refusal
TRY_AGAIN_LATER = 1013  # the close code for a table that could not be loaded just now: the page connects again
PAGE_CLOSE_WAIT_S = 2.0  # how long a page told it may not watch has to close its socket


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
    conn = Connection(code, player_id() or "", request.remote_addr or "", csrf_token(),
                      queue_size=app.config["SOCKET_QUEUE"], ws=ws,
                      since=int(since) if since.isdigit() and len(since) < 20 else None)
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
    pump(ws, conn, app, hub)


def serve_page(ws, code: str, channel: str, render: Callable[[str | None], str]) -> None:
    """A page that is not a table (a tourney's, an analysis's): its socket on ``channel``,
    each push drawn by ``render(person)``, until it closes."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # Flask types the proxy as Flask
    hub: Hub = app.extensions["spades.hub"]
    conn = Connection(code, player_id() or "", request.remote_addr or "", csrf_token(),
                      queue_size=app.config["SOCKET_QUEUE"], ws=ws)
    refusal = hub.open_page(conn, channel, render)
    if refusal:
        close_with(ws, refusal)
        return
    pump(ws, conn, app, hub)


def pump(ws, conn: Connection, app: Flask, hub: Hub) -> None:
    """Send ``conn``'s queued pictures until the socket closes (or is closed: a signed-out
    session, a stuck reader, the table ending it), then let the hub forget it. A socket the
    page closed wakes its loop at once (``wake_when_closed``), so a waiting socket sleeps
    until its table changes or its session is due a check."""
    uid, gen, sid = session.get("uid"), session.get("gen"), session.get("sid")
    check_every = app.config.get("SESSION_CHECK_S", SESSION_CHECK_S)
    checked = time.monotonic()
    wake_when_closed(ws, conn)
    try:
        while ws.connected and conn.alive:
            try:
                item = conn.take(check_every)
            except queue.Empty:
                if uid and time.monotonic() - checked >= check_every:
                    checked = time.monotonic()
                    if not app.extensions["spades.accounts"].session_valid(uid, gen, sid):
                        close_with(ws, "signed out")  # signed out on every device
                        break
                continue
            if item is None:  # ended by the table (watching turned off): closed with the reason
                break
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


def wake_when_closed(ws, conn: Connection) -> None:
    """When the page closes the socket, or the connection breaks, ``conn``'s loop is woken
    to end too, with no thread or greenlet of its own: simple-websocket's reader sets its
    event on every message and on the close (after marking the socket closed), so the
    event is wrapped to tell ``conn`` then. (A page closed for a message over the size
    limit is the one close it sets the event before: that loop ends at its next frame or
    session check.)"""
    event = getattr(ws, "event", None)
    if event is not None:
        ws.event = _WakingEvent(event, ws, conn)


class _WakingEvent:
    """A socket's event (``wake_when_closed``) that also wakes its connection's loop once
    the socket is closed."""

    __slots__ = ("_event", "_ws", "_conn")

    def __init__(self, event, ws, conn: Connection) -> None:
        self._event, self._ws, self._conn = event, ws, conn

    def set(self) -> None:
        self._event.set()
        if not self._ws.connected:
            self._conn.gone()

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
    app.register_blueprint(bp)
    sock.init_app(app)
