"""A table's socket acts for the person its seat belongs to now, whatever its handshake
saw: a socket opened by a guest whose browser then signs in acts for the account, in the
session that sign-in began, and once the account signs out on every device the socket
takes no move and is sent no cards. Through real sockets against a live server: the
sign-out reaching the socket at once (the hub hears it on the bus), the sign-out found
by the socket's own check before a move, a refusal or a frame (as when the bus message
from another process never came), and a socket held by another process of a cluster."""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import json
import re
import threading

import pytest
from conftest import INSTANT, csrf_of, open_ws, start_practice
from helpers.auth import sign_in
from simple_websocket import ConnectionClosed
from werkzeug.serving import make_server

from spades.web import close_app, create_app

HAND = 'id="hand"'  # a seat's own cards (a private fragment): a watcher's frame never holds it
HX = {"HX-Request": "true"}
VERSION = re.compile(r'data-version="(\d+)"')


def uid_of(client) -> str:
    with client.session_transaction() as s:
        return s["uid"]


def seat_view(service, code: str, pid: str) -> dict:
    assert service.wait_idle()
    return service.snapshot(code, pid).view.to_json()
def reach(ws, version: int, seen: dict) -> None:
    """Read ``ws``'s frames until one shows ``version`` or later (every frame names the
    table's version); ``seen[ws]`` keeps the newest shown so far."""
    while seen.get(ws, -1) < version:
        frame = ws.receive(timeout=10)
        assert frame is not None, f"no frame at version {version}"
        if m := VERSION.search(frame):
            seen[ws] = max(seen.get(ws, -1), int(m.group(1)))


def first(ws) -> dict:
    """The socket's first frame, the whole table with the seat's cards: the newest version
    it showed, for ``reach``."""
    frame = ws.receive(timeout=5)
    assert frame is not None and HAND in frame
    return {ws: int(VERSION.search(frame).group(1))}


def rest(ws, quiet: float = 3.0) -> tuple[list[str], bool]:
    """Every frame ``ws`` gets until it is closed (True) or nothing comes for ``quiet`` s."""
    frames = []
    try:
        while (frame := ws.receive(timeout=quiet)) is not None:
            frames.append(frame)
    except ConnectionClosed:
        return frames, True
    return frames, False


def send(ws, **message) -> None:
    """A message from the page; a socket the server closed already takes none (the close
    may not have reached this end yet: the write then fails)."""
    try:
        ws.send(json.dumps(message))
    except (ConnectionClosed, OSError):
        pass


def guest_then_account(mail_app, live_server, smtp, service):
    """A guest's practice table with its page's socket open; the browser signs in with a
    code from the mail, and the socket, now the account's, bids for it. The browser, the
    socket, the table's code, the account and the seat's view as it is after the bid."""
    browser = mail_app.test_client()
    code = start_practice(browser)
    ws = open_ws(live_server, code, browser.get_cookie("session").value)
    seen = first(ws)
    sign_in(browser, smtp, "ann@example.com")  # the seat moves to the account; the socket follows it
    uid = uid_of(browser)
    mine = seat_view(service, code, uid)
    assert mine["phase"] == "bidding" and mine["to_act"] == service.snapshot(code, uid).seat
    reach(ws, mine["version"], seen)
    send(ws, route="act", action="bid", bid="3", version=str(mine["version"]), ack=1)
    reach(ws, mine["version"] + 1, seen)  # taken for the account
    mine = seat_view(service, code, uid)
    assert mine["phase"] == "playing" and mine["legal"]  # the bots played up to the account's card
    reach(ws, mine["version"], seen)
    return browser, ws, code, uid, mine


def test_a_guests_socket_takes_no_move_once_its_browser_signed_in_and_out_everywhere(
        mail_app, live_server, smtp, service):
    browser, ws, code, uid, mine = guest_then_account(mail_app, live_server, smtp, service)
    try:
        assert browser.post("/signout/everywhere", data={"csrf": csrf_of(browser)}).status_code == 303
        send(ws, route="act", action=str(mine["legal"][0]), version=str(mine["version"]), ack=2)
        frames, closed = rest(ws)
        assert closed, "the socket stayed open after signing out everywhere"
        assert not any(HAND in f for f in frames)
        assert seat_view(service, code, uid)["version"] == mine["version"]  # the move was not taken
    finally:
        if ws.connected:
            ws.close()


@pytest.mark.parametrize("app_config", [{"SESSION_CHECK_S": 60, "SESSION_RECHECK_S": 60}])
def test_signing_out_this_browser_closes_its_sockets_at_once_and_no_other_device(
        mail_app, live_server, smtp, service):
    """Plain "Sign out" ends this browser's session: its sockets close at once (the bus,
    with the sockets' own checks a minute apart), the same account's other device plays on."""
    browser, ws, code, uid, mine = guest_then_account(mail_app, live_server, smtp, service)
    laptop = mail_app.test_client()
    sign_in(laptop, smtp, "ann@example.com")
    other = open_ws(live_server, code, laptop.get_cookie("session").value)
    try:
        assert HAND in other.receive(timeout=5)
        assert browser.post("/signout", data={"csrf": csrf_of(browser)}).status_code == 303
        frames, closed = rest(ws, quiet=5.0)
        assert closed and not any(HAND in f for f in frames), "the signed-out socket stayed open"
        send(other, route="act", action=str(mine["legal"][0]), version=str(mine["version"]), ack=3)
        reach(other, mine["version"] + 1, {})  # the laptop's move was taken, and its socket shows it
    finally:
        for s in (ws, other):
            if s.connected:
                s.close()


@pytest.mark.parametrize("app_config", [{"SESSION_CHECK_S": 60, "SESSION_RECHECK_S": 0}])
@pytest.mark.parametrize("then", ["a move", "a message not understood", "a change at the table"])
def test_a_sign_out_the_hub_never_heard_of_is_found_before_the_next_move_refusal_or_frame(
        mail_app, live_server, smtp, service, then):
    """Signed out on every device through another process whose word never reached this
    one (the accounts' service called directly): the socket's own check finds it, and the
    socket neither moves nor gets its cards, whatever comes next."""
    browser, ws, code, uid, mine = guest_then_account(mail_app, live_server, smtp, service)
    try:
        mail_app.extensions["spades.accounts"].sign_out_everywhere(uid)
        if then == "a move":
            send(ws, route="act", action=str(mine["legal"][0]), version=str(mine["version"]), ack=2)
        elif then == "a message not understood":
            ws.send("not json")
        else:  # the browser signs in again and plays the card from the page's form
            sign_in(browser, smtp, "ann@example.com")
            answer = browser.post(f"/g/{code}/act", data={"csrf": csrf_of(browser), "action": mine["legal"][0],
                                                          "version": mine["version"]}, headers=HX)
            assert answer.status_code == 200
        frames, closed = rest(ws)
        assert closed and not any(HAND in f for f in frames), [f[:200] for f in frames]
        if then != "a change at the table":
            assert seat_view(service, code, uid)["version"] == mine["version"]
    finally:
        if ws.connected:
            ws.close()


@pytest.fixture
def pair(tmp_path, redis_url, smtp):
    """Two sites on one database and one Redis, as two workers are, each served on a port;
    their sockets check a session only every minute, so only the bus can close one sooner."""
    pool = cf.ThreadPoolExecutor(2)
    seeds = itertools.count(1)
    apps = [create_app({"SEED_SOURCE": lambda: f"pair-{next(seeds)}", "TESTING": True,
                        "DATABASE": str(tmp_path / "shared.db"), "SECRET_KEY": "pair-secret",
                        "PLAY_DELAYS": INSTANT, "BOT_POOL": pool, "TOURNEY_TICK_S": 0, "NOTICE_TICK_S": 0,
                        "REDIS_URL": redis_url, "CLUSTER_LEASE_S": 1.0, "SESSION_CHECK_S": 60,
                        "SESSION_RECHECK_S": 60, **smtp.config()}) for _ in range(2)]
    servers = [make_server("127.0.0.1", 0, a, threaded=True) for a in apps]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield [(a, f"http://127.0.0.1:{s.server_port}") for a, s in zip(apps, servers)]
    for server in servers:
        server.shutdown()
    for a in apps:
        close_app(a)
    pool.shutdown(wait=False, cancel_futures=True)


def test_signing_out_everywhere_through_one_process_closes_the_sockets_another_holds(pair, smtp):
    (a, _), (b, b_url) = pair
    phone = a.test_client()
    sign_in(phone, smtp, "ann@example.com")
    code = start_practice(phone)
    with phone.session_transaction() as s:
        mine = seat_view(a.extensions["spades.tables"], code, s["uid"])  # the bots bid up to the phone's seat
    ws = open_ws(b_url, code, phone.get_cookie("session").value)  # the phone's page, served by the other worker
    try:
        reach(ws, mine["version"], first(ws))
        assert phone.post("/signout/everywhere", data={"csrf": csrf_of(phone)}).status_code == 303
        frames, closed = rest(ws, quiet=10)
        assert closed, "the socket held by the other process stayed open"
        assert not any(HAND in f for f in frames)
    finally:
        if ws.connected:
            ws.close()
