"""A bare WebSocket fan-out app: the yardstick the load benchmark holds the site against.

    gunicorn -c gunicorn.conf.py bench.barews:app

Served by the site's own server settings, it does the least a table must do per move and
nothing else: no session, no database, no rendering, no rules.

- ``GET /``: 200 (the benchmark waits for it before it starts).
- ``/ws/<table>``: a WebSocket that joins the table's listeners; it is sent the table's
  current frame at once (as the site sends a snapshot on connect), then every new one.
- A move: the table's sequence number goes up by one and a frame carrying it is sent to
  every socket of the table. It comes as the site's does, as a message on a socket of the
  table (one JSON object, ``{"route": "move", "ack": n}``; nothing else is answered), or as
  ``POST /move/<table>`` (``--post``), whose answer carries the number too.

Frames and answers are text starting with ``<sequence number>:``, padded to
``BAREWS_FRAME_BYTES`` and ``BAREWS_ANSWER_BYTES`` bytes (env; the benchmark passes the
site's average sizes). The padding is HTML-like text, so that a socket with
permessage-deflate compresses it about as well as the site's fragments.

Imports: Flask, flask-sock, and the site's socket settings (``spades.web.table.live``).
"""

from __future__ import annotations

import json
import os
import random
import threading

from flask import Flask, Response
from flask_sock import Sock

from spades.web.table.live import compress_each_message_alone

FRAME_BYTES = int(os.environ.get("BAREWS_FRAME_BYTES", "6000"))
ANSWER_BYTES = int(os.environ.get("BAREWS_ANSWER_BYTES", "6000"))
# a socket's ping, as the site configures it (idle sockets stay open through proxies)
PING_INTERVAL_S = 25

_WORDS = ('<div class="', '<span class="', '<button class="card ', 'legal', 'red', 'black', '" name="action" ',
          'value="', 'aria-label="', '</span>', '</div>', '</button>', 'plate', 'chip', 'team', 'bid', 'won',
          'queen of hearts', 'king of spades', '10 of clubs', 'jack of diamonds', '♠', '♥', '♦', '♣', '\n  ',
          'hx-swap-oob="true"', 'data-v="', '">', ' ', 'Hand', 'Your turn', 'is playing…', 'taken', 'score')


def _filler(size: int) -> str:
    """``size`` characters of HTML-like text, the same on every run."""
    rng = random.Random(7)
    parts: list[str] = []
    n = 0
    while n < size:
        word = rng.choice(_WORDS)
        parts.append(word)
        n += len(word)
    return "".join(parts)[:size]


def _padded(seq: int, size: int, filler: str) -> str:
    """``seq:`` then filler, ``size`` bytes in UTF-8 (the filler's symbols take several)."""
    head = f"{seq}:"
    text = head + filler[:max(0, size - len(head))]
    excess = len(text.encode()) - size
    while excess > 0:  # multi-byte symbols: trim characters until the bytes fit
        text = text[:-max(1, excess // 3)]
        excess = len(text.encode()) - size
    return text


class _Table:
    """One table's listeners and sequence number."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seq = 0
        self.sockets: dict[int, tuple[object, threading.Lock]] = {}


app = Flask(__name__)
app.config["SOCK_SERVER_OPTIONS"] = {"ping_interval": PING_INTERVAL_S}
compress_each_message_alone()  # the site's socket settings: the same transport
sock = Sock(app)
_tables: dict[str, _Table] = {}
_tables_lock = threading.Lock()
_frame_filler = _filler(FRAME_BYTES)
_answer_filler = _filler(ANSWER_BYTES)


def _table(name: str) -> _Table:
    with _tables_lock:
        table = _tables.get(name)
        if table is None:
            table = _tables[name] = _Table()
        return table


def _send(table: _Table, key: int, ws, send_lock: threading.Lock, frame: str) -> None:
    """Send one frame; a socket that fails is dropped (the sender goes on to the next)."""
    try:
        with send_lock:  # two moves' sends must not interleave their bytes on one socket
            ws.send(frame)
    except Exception:
        with table.lock:
            table.sockets.pop(key, None)


@app.get("/")
def home() -> Response:
    return Response("bare", mimetype="text/plain")


@sock.route("/ws/<name>")
def listen(ws, name: str) -> None:
    table = _table(name)
    send_lock = threading.Lock()
    key = id(ws)
    with table.lock:
        table.sockets[key] = (ws, send_lock)
        frame = _padded(table.seq, FRAME_BYTES, _frame_filler)
    _send(table, key, ws, send_lock, frame)
    try:
        while ws.connected:
            text = ws.receive(timeout=PING_INTERVAL_S)  # a move, or nothing (this notices the close)
            if text is None:
                continue
            try:
                message = json.loads(text)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("route") == "move":
                _move(table)
    finally:
        with table.lock:
            table.sockets.pop(key, None)


def _move(table: _Table) -> int:
    """The table's next sequence number, sent to each of its sockets."""
    with table.lock:
        table.seq += 1
        seq = table.seq
        listeners = list(table.sockets.items())
    frame = _padded(seq, FRAME_BYTES, _frame_filler)
    for key, (ws, send_lock) in listeners:
        _send(table, key, ws, send_lock, frame)
    return seq


@app.post("/move/<name>")
def move(name: str) -> Response:
    seq = _move(_table(name))
    return Response(_padded(seq, ANSWER_BYTES, _answer_filler), mimetype="text/html")
