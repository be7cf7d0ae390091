"""The WebSocket: its handshake checks, the snapshot on connect, and pushes of each move."""

from __future__ import annotations

import re
import socket
import time

import pytest
from conftest import csrf_of, open_ws, start_practice
from simple_websocket import ConnectionError as WsConnectionError


def session_cookie(client) -> str:
    return client.get_cookie("session").value


def test_a_connection_gets_its_seats_snapshot_and_then_each_move(live_server, client, service):
    code = start_practice(client)
    service.wait_idle()
    ws = open_ws(live_server, code, session_cookie(client))
    try:
        snapshot = ws.receive(timeout=5)
        for fragment in ("turn", "status", "scores", "plate-0", "trick", "result", "told", "hand", "next", "announce"):
            assert re.search(rf'id="{fragment}"[^>]*hx-swap-oob=', snapshot), fragment
        mine = set(service.snapshot(code, _pid(service, code)).view.to_json()["hand"])
        assert set(re.findall(r'data-card="(\w\w)"', snapshot)) == mine
        v = client.get(f"/g/{code}/view.json").get_json()
        client.post(f"/g/{code}/act", data={"csrf": csrf_of(client), "action": "bid", "bid": "2",
                                             "version": v["version"]})
        pushed = ws.receive(timeout=5)
        assert "You bid 2." in pushed
    finally:
        ws.close()


def _pid(service, code) -> str:
    return service.seats(code)[0].player_id


@pytest.mark.parametrize("origin", [None, "http://evil.example"])
def test_the_handshake_refuses_a_foreign_or_missing_origin(live_server, client, origin):
    code = start_practice(client)
    with pytest.raises(WsConnectionError):
        open_ws(live_server, code, session_cookie(client), origin)


def test_the_handshake_refuses_a_browser_without_a_session(live_server, client):
    code = start_practice(client)
    with pytest.raises(WsConnectionError):
        open_ws(live_server, code)


def test_a_closed_connection_is_dropped(live_server, app, client, service):
    code = start_practice(client)
    service.wait_idle()
    ws = open_ws(live_server, code, session_cookie(client))
    ws.receive(timeout=5)
    hub = app.extensions["spades.hub"]
    assert hub.counts()["sockets"] == 1
    ws.close()
    v = client.get(f"/g/{code}/view.json").get_json()
    client.post(f"/g/{code}/act", data={"csrf": csrf_of(client), "action": "bid", "bid": "2", "version": v["version"]})
    service.wait_idle()
    for _ in range(100):
        if not hub.counts()["sockets"]:
            break
        time.sleep(0.05)
    assert hub.counts() == {"sockets": 0, "tables": 0, "people": 0}


def test_an_origin_with_another_scheme_is_refused(live_server, client):
    code = start_practice(client)
    with pytest.raises(WsConnectionError):
        open_ws(live_server, code, session_cookie(client), "https://127.0.0.1")


def test_a_code_that_cannot_be_one_is_a_plain_404_before_any_upgrade(live_server, client):
    start_practice(client)
    port = int(live_server.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall((f"GET /g/x!/ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                   f"Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:{port}\r\n"
                   f"Cookie: session={session_cookie(client)}\r\n\r\n").encode())
        answer = s.recv(200)
    assert answer.startswith(b"HTTP/1.1 404")


def test_every_answer_carries_the_security_headers(client):
    for path in ("/", "/new", "/g/ZZZZZZ", "/static/site.js"):
        headers = client.get(path).headers
        csp = headers["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-eval" not in csp
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "same-origin" and headers["X-Frame-Options"] == "DENY"
