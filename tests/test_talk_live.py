"""Talk at the table over real WebSockets: the watchers' chat reaches the players' sockets
with the change that ends the match, and never before; the host's menu on a line offers
only the one of Silence and Let them talk again that applies, on the page and live after
each silence; nobody else is offered either."""

from __future__ import annotations

import re
import time

import pytest
from conftest import csrf_of, open_ws
from helpers.talk import person

from spades.rules_config import Rules
from spades.storage import SeatRow
from spades.tables import Player, Stale
from spades.web.table.published import CSRF_MARK

HANA, ANN, EVE = "p-hana", "p-ann", "p-eve"
HX = {"HX-Request": "true"}
FINAL = re.compile(r"won the match|A draw")  # the result's headline once the match is over


@pytest.fixture
def table(app, service):
    """A one-hand match for friends: Hana (the host, seat 0) and Ann (seat 2) with two
    bots, and Eve watching; each with a browser."""
    seats = [SeatRow(0, "human", HANA, "Hana", "🦊"), SeatRow(1, "bot", None, "Kit", "🤖"),
             SeatRow(2, "human", ANN, "Ann", "🐼"), SeatRow(3, "bot", None, "Rex", "🤖")]
    code = service.create_seated(seats, Rules(end="hands", hands=1), {"kind": "friends", "level": "easy",
                                                                       "chat": "on"}, host=HANA)
    clients = {pid: person(app, pid) for pid in (HANA, ANN, EVE)}
    clients[EVE].get(f"/g/{code}/watch")
    return code, clients


def socket(live_server, client, code: str):
    ws = open_ws(live_server, code, client.get_cookie("session").value)
    assert ws.receive(timeout=5)  # the table as it is
    return ws


def frames_until(ws, found, timeout: float = 15.0) -> list[str]:
    """The frames ``ws`` receives up to the first one ``found`` says yes to (the last).
    Fails after ``timeout`` seconds without one."""
    got: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        frame = ws.receive(timeout=max(0.01, deadline - time.monotonic()))
        if frame is None:
            break
        got.append(frame)
        if found(frame):
            return got
    raise AssertionError(f"no such frame among {len(got)}: {[f[:200] for f in got[-3:]]}")


def say(client, code: str, text: str):
    r = client.post(f"/g/{code}/chat", data={"csrf": csrf_of(client), "text": text}, headers=HX)
    assert r.status_code == 200, r.get_data(as_text=True)


def play_out(service, code: str, people: tuple[str, ...]) -> None:
    """Each person plays a legal move at their turn until the match is over."""
    for _ in range(3000):
        assert service.wait_idle()
        v = service.snapshot(code, None).view.to_json()
        if v["finished"]:
            return
        for pid in people:
            snap = service.snapshot(code, pid)
            mine = snap.view.to_json()
            if mine["to_act"] != snap.seat or mine["phase"] not in ("bidding", "playing"):
                continue
            legal = mine["legal"]
            move = "look" if "look" in legal else legal[-1] if mine["phase"] == "bidding" else legal[0]
            try:
                service.act(code, Player(pid), str(move), mine["version"])
            except Stale:
                pass
    raise AssertionError("the match did not end")


def test_the_watchers_chat_reaches_the_players_sockets_when_the_match_ends_and_never_before(
        live_server, service, table):
    code, clients = table
    sockets = {pid: socket(live_server, clients[pid], code) for pid in (HANA, ANN)}
    try:
        say(clients[EVE], code, "go team kumquat")
        say(clients[HANA], code, "good luck")
        play_out(service, code, (HANA, ANN))
        for pid, ws in sockets.items():
            got = frames_until(ws, lambda f: "kumquat" in f)
            # the frame with the match's end brings it; none before did (nor the result)
            assert not any("kumquat" in f or FINAL.search(f) for f in got[:-1]), pid
            end = got[-1]
            assert FINAL.search(end) and 'id="chat-log"' in end and 'hx-swap-oob="true"' in end
            assert end.index("go team kumquat") < end.index("good luck")  # the whole chat, in order
            assert CSRF_MARK not in end and f'name="csrf" value="{csrf_of(clients[pid])}"' in end
        # and what the watchers say from now on comes to the players' sockets at once
        say(clients[EVE], code, "well played")
        for ws in sockets.values():
            frames_until(ws, lambda f: "well played" in f)
    finally:
        for ws in sockets.values():
            ws.close()


def _menu(html: str, number: str) -> str:
    """The menu of line ``number`` in ``html``: its buttons' words."""
    m = re.search(rf'<li id="line-{number}".*?</li>', html, re.S)
    assert m, f"line {number} is not there"
    return " | ".join(re.sub(r"\s+", " ", b).strip() for b in re.findall(r"<button[^>]*>([^<]*)</button>", m.group(0)))


def test_the_hosts_menu_offers_only_what_applies_on_the_page_and_live(live_server, service, table):
    code, clients = table
    sockets = {pid: socket(live_server, clients[pid], code) for pid in (HANA, ANN, EVE)}
    try:
        say(clients[ANN], code, "hello all")
        number = re.findall(r'id="line-(\d+)"', clients[HANA].get(f"/g/{code}/chat").get_data(as_text=True))[-1]
        hana = frames_until(sockets[HANA], lambda f: "hello all" in f)[-1]
        eve = frames_until(sockets[EVE], lambda f: "hello all" in f)[-1]
        assert _menu(hana, number) == "Mute Ann | Report | Silence Ann"
        assert _menu(eve, number) == "Mute Ann | Report"
        page = clients[HANA].get(f"/g/{code}").get_data(as_text=True)
        assert _menu(page, number) == "Mute Ann | Report | Silence Ann"
        assert _menu(clients[EVE].get(f"/g/{code}/watch").get_data(as_text=True), number) == "Mute Ann | Report"

        # silenced: the host's sockets get the chat again, the menu letting Ann talk again
        r = clients[HANA].post(f"/g/{code}/silence", data={"csrf": csrf_of(clients[HANA]), "line": number},
                               headers=HX)
        assert r.status_code == 200
        hana = frames_until(sockets[HANA], lambda f: "The host silenced Ann." in f)[-1]
        assert _menu(hana, number) == "Mute Ann | Report | Let Ann talk again"
        ann = frames_until(sockets[ANN], lambda f: "The host silenced Ann." in f)[-1]
        assert "Let Ann talk again" not in ann and "Silence" not in ann
        eve = frames_until(sockets[EVE], lambda f: "The host silenced Ann." in f)[-1]
        assert "Let Ann talk again" not in eve and "Silence" not in eve
        page = clients[HANA].get(f"/g/{code}").get_data(as_text=True)
        assert _menu(page, number) == "Mute Ann | Report | Let Ann talk again"
        assert _menu(clients[HANA].get(f"/g/{code}/chat").get_data(as_text=True), number) == \
            "Mute Ann | Report | Let Ann talk again"

        # and back
        r = clients[HANA].post(f"/g/{code}/silence", data={"csrf": csrf_of(clients[HANA]), "line": number,
                                                           "on": "off"}, headers=HX)
        assert r.status_code == 200
        hana = frames_until(sockets[HANA], lambda f: "The host let Ann talk again." in f)[-1]
        assert _menu(hana, number) == "Mute Ann | Report | Silence Ann"
        assert CSRF_MARK not in hana
    finally:
        for ws in sockets.values():
            ws.close()
