"""The socket hub over real WebSockets: caps per person and per address with a reason,
the largest message a page may send, and a stuck reader closed without holding up the
other seats."""

from __future__ import annotations

import dataclasses
import html
import re
import socket
import sqlite3
import time
from collections.abc import Callable

import pytest
from conftest import csrf_of, open_ws, start_practice
from simple_websocket import Client, ConnectionClosed

from spades.rules_config import Rules
from spades.storage import SaveMove, SeatRow
from spades.tables import EMOJIS, NotSaved, Player

WAIT_S = 30  # how long a socket's next message or the hub's notice of a close may take on a loaded machine


@pytest.fixture
def app_config() -> dict:
    # the default queue per socket: a short one closes a busy watcher as too slow when the
    # bots' moves come faster than a loaded machine runs its thread (only the stuck reader's
    # test wants it short)
    return {"SOCKETS_PER_PERSON": 2, "SOCKETS_PER_ADDRESS": 4}


def message(ws: Client) -> str:
    """The socket's next message (simple-websocket answers None when none came in time)."""
    got = ws.receive(timeout=WAIT_S)
    assert got is not None, f"no message in {WAIT_S} s"
    return got


def until(condition: Callable[[], bool], what: str) -> None:
    """Wait until ``condition()`` holds (the hub takes note of a socket in that socket's
    own thread), failing with ``what`` if it does not within ``WAIT_S``."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def refusal(ws: Client) -> str:
    """The reason the server closed this socket with; the one message before the close is
    that reason as the page's banner (and no table)."""
    banner = message(ws)
    assert banner.startswith('<div id="offline"') and 'data-final="1"' in banner and 'id="felt"' not in banner
    with pytest.raises(ConnectionClosed) as e:
        ws.receive(timeout=WAIT_S)
    assert html.unescape(re.sub(r"<[^>]+>", "", banner)) == e.value.message
    return f"{e.value.reason} {e.value.message}"


def visitor(app, code: str) -> str:
    """A new browser that opened the table page: its session cookie."""
    client = app.test_client()
    assert client.get(f"/g/{code}").status_code == 200
    return client.get_cookie("session").value


def test_one_person_past_the_cap_is_refused_with_a_reason_and_a_closed_tab_frees_a_place(app, live_server, client):
    code = start_practice(client)
    cookie = client.get_cookie("session").value
    hub = app.extensions["spades.hub"]
    first, second = open_ws(live_server, code, cookie), open_ws(live_server, code, cookie)
    assert 'id="hand"' in message(first) and 'id="hand"' in message(second)
    third = open_ws(live_server, code, cookie)
    assert refusal(third) == "1008 Too many open tables in this browser: 2 at most. Close one and reload."
    first.close()
    until(lambda: hub.counts()["sockets"] == 1, "the closed tab never freed its place")  # noticed in its thread
    again = open_ws(live_server, code, cookie)
    assert 'id="hand"' in message(again)
    again.close()
    second.close()


def test_one_address_past_the_cap_is_refused_and_the_site_stays_up(app, live_server, client):
    code = start_practice(client)
    hub = app.extensions["spades.hub"]
    sockets = [open_ws(live_server, code, visitor(app, code)) for _ in range(4)]
    for ws in sockets:
        first = message(ws)
        assert 'id="trick"' in first and 'id="hand"' not in first  # spectators: the table, no hand
    assert hub.counts()["sockets"] == 4  # each one counted before it was sent its table
    extra = open_ws(live_server, code, visitor(app, code))
    assert refusal(extra) == "1008 Too many connections from your network. Try again later."
    assert client.get("/").status_code == 200
    # the pages close: the address has its places back once the hub has noticed each close
    for ws in sockets:
        ws.close()
    until(lambda: hub.counts()["sockets"] == 0, "the closed sockets were never forgotten")
    again = open_ws(live_server, code, visitor(app, code))
    try:
        assert 'id="trick"' in message(again)
    finally:
        again.close()


def test_a_message_over_the_size_limit_closes_that_socket_only(app, live_server, client):
    code = start_practice(client)
    cookie = client.get_cookie("session").value
    big, other = open_ws(live_server, code, cookie), open_ws(live_server, code, visitor(app, code))
    big.receive(timeout=5)
    other.receive(timeout=5)
    big.send("x" * 10_000)
    with pytest.raises(ConnectionClosed) as e:
        for _ in range(10):
            big.receive(timeout=5)
    assert e.value.reason == 1009  # message too big
    v = client.get(f"/g/{code}/view.json").get_json()
    action = "3" if v["phase"] == "bidding" else v["legal"][0]
    r = client.post(f"/g/{code}/act", data={"csrf": csrf_of(client), "action": action, "version": v["version"]})
    assert r.status_code == 303
    assert "data-v" in other.receive(timeout=5)  # the other page is still told
    other.close()


def stuck_reader(live_server: str, code: str, cookie: str) -> socket.socket:
    """A WebSocket that completes its handshake and then never reads again."""
    port = int(live_server.rsplit(":", 1)[1])
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.sendall((f"GET /g/{code}/ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
               f"Sec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:{port}\r\n"
               f"Cookie: session={cookie}\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += s.recv(1)
    assert answer.startswith(b"HTTP/1.1 101"), answer
    return s


@pytest.mark.parametrize("app_config", [{"SOCKET_QUEUE": 4}])
def test_a_stuck_reader_is_closed_and_never_holds_up_the_other_seats(app, live_server, service):
    code, people = "STUCK1", [f"s{seat}" for seat in range(4)]
    service.store.create_table(code, people[0], {"kind": "friends", "level": "easy"},
                               [SeatRow(s, "human", people[s], f"P{s}", EMOJIS[s]) for s in range(4)], "stuck",
                               dataclasses.asdict(Rules(tempo="relaxed", mode="no_bidding", end="hands", hands=40)))
    cookies = []
    for pid in people[:2]:
        c = app.test_client()
        with c.session_transaction() as session:
            session["pid"], session["csrf"] = pid, "token"
        c.get("/")
        cookies.append(c.get_cookie("session").value)
    hub = app.extensions["spades.hub"]
    stuck = stuck_reader(live_server, code, cookies[0])
    reader = open_ws(live_server, code, cookies[1])
    reader.receive(timeout=5)
    closed_after = None
    for moves in range(1, 2001):  # bounded: kernel buffers hold a few hundred changes, then the queue fills
        v = service.snapshot(code, None).view.to_json()
        if v["phase"] == "hand_over":
            service.act(code, Player(people[0]), "deal_now", v["version"])
        else:
            seat = v["to_act"]
            service.act(code, Player(people[seat]), service.snapshot(code, people[seat]).view.to_json()["legal"][0],
                        v["version"])
        # every change reaches the reading seat while the other socket is stuck
        stamp = 100_000 + service.snapshot(code, None).view.to_json()["version"]
        while True:
            got = max(int(x) for x in re.findall(r'data-v="(\d+)"', reader.receive(timeout=5)))
            if got >= stamp:
                break
        if closed_after is None and hub.counts()["sockets"] == 1:
            closed_after = moves
            break
    stuck.close()
    reader.close()
    print(f"the stuck socket was closed after {closed_after} moves")
    assert closed_after is not None, "the stuck socket was never closed"
    assert hub.counts()["people"] <= 1


def test_a_failed_save_answers_503_and_a_lost_race_409_and_the_page_stays_live(app, live_server, client,
                                                                                service, monkeypatch):
    code = start_practice(client)
    assert service.wait_idle()
    ws = open_ws(live_server, code, client.get_cookie("session").value)
    ws.receive(timeout=5)
    v = client.get(f"/g/{code}/view.json").get_json()
    assert v["to_act"] == 0 and v["phase"] == "bidding"
    headers = {"HX-Request": "true", "X-CSRF-Token": csrf_of(client)}

    def locked(ops):
        raise sqlite3.OperationalError("database is locked")

    real = service.store.commit
    monkeypatch.setattr(service.store, "commit", locked)
    r = client.post(f"/g/{code}/act", data={"action": "3", "version": v["version"]}, headers=headers)
    assert r.status_code == 503 and "nothing changed" in r.get_data(as_text=True)
    assert client.get(f"/g/{code}/view.json").get_json() == v
    monkeypatch.setattr(service.store, "commit", real)

    # another writer stores this version's move first: the click loses the race
    service.store.commit([SaveMove(service.store.load_table(code).match.id, v["version"] + 1, 0, "4")])
    r = client.post(f"/g/{code}/act", data={"action": "3", "version": v["version"]}, headers=headers)
    assert r.status_code == 409 and "moved on" in r.get_data(as_text=True)
    assert client.get(f"/g/{code}/view.json").get_json()["bids"][0] == 4  # the stored move stands

    # the table goes on, and the open page hears of it
    assert service.wait_idle()
    stamp = 100_000 + client.get(f"/g/{code}/view.json").get_json()["version"]
    while True:
        got = max(int(x) for x in re.findall(r'data-v="(\d+)"', ws.receive(timeout=5)))
        if got >= stamp:
            break
    ws.close()


def test_a_table_that_could_not_be_loaded_just_now_lets_the_page_connect_again(app, live_server, client, service,
                                                                                  monkeypatch):
    code = start_practice(client)
    cookie = client.get_cookie("session").value
    connect = service.connect

    def not_now(*args, **kwargs):
        raise NotSaved("The table could not be loaded just now. Try again.")

    monkeypatch.setattr(service, "connect", not_now)
    ws = open_ws(live_server, code, cookie)
    banner = ws.receive(timeout=5)
    assert "could not be loaded just now" in banner and "data-final" not in banner  # the page's banner may go
    with pytest.raises(ConnectionClosed) as e:
        ws.receive(timeout=5)
    assert e.value.reason == 1013  # try again later: the page connects again by itself
    monkeypatch.setattr(service, "connect", connect)
    again = open_ws(live_server, code, cookie)
    try:
        assert 'id="hand"' in again.receive(timeout=5)
    finally:
        again.close()


@pytest.mark.parametrize("app_config", [{"SESSION_CHECK_S": 60}])
def test_a_page_that_closes_its_socket_is_forgotten_without_waiting_for_a_change(app, live_server, client):
    """A waiting socket sleeps until its table changes or its session is due a check (here
    a minute away): the page's close wakes it, so its seat's hold starts at once."""
    code = start_practice(client)
    hub = app.extensions["spades.hub"]
    ws = open_ws(live_server, code, client.get_cookie("session").value)
    assert 'id="hand"' in ws.receive(timeout=5)
    assert hub.counts()["sockets"] == 1
    ws.close()
    deadline = time.monotonic() + 5
    while hub.counts()["sockets"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert hub.counts()["sockets"] == 0
