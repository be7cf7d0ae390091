"""Live updates: one WebSocket per open table page (htmx ws extension), server to client.

Each connection registers with the table service for ITS player's seat and receives that
seat's fragments as out-of-band swaps: a full snapshot on every (re)connect, then one
message per accepted move. The service calls back under the table's lock, so the callback
only renders and queues; this connection's own thread sends, under a per-connection lock.
A connection that fails to send is dropped. The handshake checks the player's signed
cookie and the ``Origin`` header before the upgrade.

While the table is still a room (waiting for its players), the same address carries the
room instead: its fragment after every join, leave, partner choice and the start (which
sends every page on to the table).

Imports: Flask, flask-sock, ``spades.tables``.
"""

from __future__ import annotations

import logging
import queue
import time
import threading
from urllib.parse import urlsplit

from flask import Blueprint, Flask, abort, current_app, request, session
from flask_sock import Sock

from ..tables import RoomSnapshot, Snapshot, TableNotFound, TableService
from .identity import csrf_token, player_id
from .render import render_fragments, render_room, room_context, table_context
from .table import normalize_code

log = logging.getLogger(__name__)

bp = Blueprint("live", __name__)
sock = Sock()
IDLE_CHECK_S = 1.0  # how soon a closed socket is noticed (its seat's hold starts then)
SESSION_CHECK_S = 10.0  # how soon "sign out on every device" closes an open socket


def origin_allowed() -> bool:
    """The page that opens the socket must come from this site (or a configured origin)."""
    origin = request.headers.get("Origin")
    if not origin:
        return False
    parts = urlsplit(origin)
    if parts.netloc and parts.netloc == request.host:
        return True
    return origin.rstrip("/") in set(current_app.config.get("TRUSTED_ORIGINS") or ())


@bp.before_request
def handshake() -> None:
    if not origin_allowed():
        abort(403, description="This connection did not come from this site.")
    if player_id() is None:
        abort(403, description="Open the table page first.")


@sock.route("/g/<code>/ws", bp=bp)
def socket(ws, code: str) -> None:
    code = normalize_code(code)
    app = current_app._get_current_object()
    service: TableService = app.extensions["spades.tables"]
    outbox: queue.Queue[str] = queue.Queue()
    send_lock = threading.Lock()

    csrf = csrf_token()

    def on_update(snap: Snapshot) -> None:
        # runs in whichever thread made the move; render now, send from this connection's thread
        if not ws.connected:
            raise ConnectionError("socket closed")  # the service drops this subscriber
        try:
            with app.app_context():
                outbox.put(render_fragments(table_context(snap, csrf)))
        except Exception:
            log.exception("rendering an update for %s failed; closing the socket (the page reconnects)", code)
            ws.close()
            raise

    def on_room(snap: RoomSnapshot) -> None:
        if not ws.connected:
            raise ConnectionError("socket closed")
        with app.app_context():
            outbox.put(render_room(room_context(snap, csrf)))

    try:
        if service.status(code) == "waiting":
            token = service.subscribe_room(code, player_id(), on_room)
            unsubscribe = service.unsubscribe_room
        else:
            token = service.subscribe(code, player_id(), on_update)
            unsubscribe = service.unsubscribe
    except TableNotFound:
        ws.close(reason=1008, message="no such table")
        return
    uid, gen = session.get("uid"), session.get("gen")
    check_every = app.config.get("SESSION_CHECK_S", SESSION_CHECK_S)
    checked = time.monotonic()
    try:
        while ws.connected:
            try:
                message = outbox.get(timeout=IDLE_CHECK_S)
            except queue.Empty:
                if uid and time.monotonic() - checked >= check_every:
                    checked = time.monotonic()
                    if not app.extensions["spades.accounts"].session_valid(uid, gen):
                        ws.close(reason=1008, message="signed out")  # signed out on every device
                        break
                continue
            with send_lock:
                ws.send(message)
    except Exception as e:  # a closed socket ends this connection only
        log.debug("socket for %s closed: %s", code, e)
    finally:
        unsubscribe(code, token)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    sock.init_app(app)
