"""Moves over the table page's socket, through real WebSockets: a bid and a card sent as
JSON are taken and every seat's socket sees them; a refusal (an illegal card, a stale
version, a watcher's move, a malformed message, too many at once) comes back on that
socket with the post's words, its ack and its status, and changes nothing; a socket whose
person signed out on every device cannot move."""

from __future__ import annotations

import html
import json
import re
import time

import pytest
from conftest import csrf_of, open_ws, start_practice
from helpers.auth import sign_in
from helpers.talk import person

from spades.rules_config import Rules
from spades.storage import SeatRow

PEOPLE = ("p-hana", "p-kit", "p-ann", "p-rex")
EVE = "p-eve"
HX = {"HX-Request": "true"}
MESSAGE = re.compile(r'<p class="message" role="alert"([^>]*)>([^<]*)</p>')


@pytest.fixture
def table(app, service, live_server):
    """Four people at a one-hand table, Eve watching; each with a browser and an open
    socket that has had the table as it is."""
    seats = [SeatRow(n, "human", pid, pid[2:].title(), "🦊") for n, pid in enumerate(PEOPLE)]
    code = service.create_seated(seats, Rules(end="hands", hands=1), {"kind": "friends", "level": "easy"},
                                 host=PEOPLE[0])
    clients = {pid: person(app, pid) for pid in (*PEOPLE, EVE)}
    clients[EVE].get(f"/g/{code}/watch")
    sockets = {}
    for pid, client in clients.items():
        sockets[pid] = open_ws(live_server, code, client.get_cookie("session").value)
        assert sockets[pid].receive(timeout=5)
    yield code, clients, sockets
    for ws in sockets.values():
        ws.close()


def view(service, code: str, pid: str | None = None) -> dict:
    service.wait_idle()
    return service.snapshot(code, pid).view.to_json()
def to_act(service, code: str) -> str:
    return PEOPLE[view(service, code)["to_act"]]


def frame_with(ws, needle: str, timeout: float = 10.0) -> str:
    """The first frame ``ws`` receives that holds ``needle``."""
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        frame = ws.receive(timeout=max(0.01, deadline - time.monotonic()))
        if frame is None:
            break
        if needle in frame:
            return frame
        seen.append(frame[:120])
    raise AssertionError(f"no frame with {needle!r}: {seen[-3:]}")


def refusal(ws, timeout: float = 10.0) -> tuple[dict[str, str], str]:
    """The next refusal this socket gets: its message's marks and words."""
    frame = frame_with(ws, "data-status=", timeout)
    m = MESSAGE.search(frame)
    assert m, frame[:500]
    return dict(re.findall(r"(data-\w+)=\"([^\"]*)\"", m.group(1))), html.unescape(m.group(2))


def posted_words(client, code: str, form: dict) -> tuple[int, str]:
    r = client.post(f"/g/{code}/act", data={"csrf": csrf_of(client), **form}, headers=HX)
    m = MESSAGE.search(r.get_data(as_text=True))
    return r.status_code, html.unescape(m.group(2)) if m else ""


def send(ws, **message) -> None:
    ws.send(json.dumps(message))


def test_a_bid_and_a_card_over_the_socket_reach_every_seat(table, service):
    code, clients, sockets = table
    for _ in range(4):  # every seat bids over its own socket
        mover = to_act(service, code)
        v = view(service, code)["version"]
        send(sockets[mover], route="act", action="bid", bid="3", version=str(v), ack=1)
        for pid in (*PEOPLE, EVE):
            frame_with(sockets[pid], f'data-version="{v + 1}"')
    assert view(service, code)["phase"] == "playing"
    mover = to_act(service, code)
    mine = view(service, code, mover)
    card = str(mine["legal"][0])
    send(sockets[mover], route="act", action=card, version=str(mine["version"]), ack=2)
    for pid in (*PEOPLE, EVE):
        frame = frame_with(sockets[pid], f'data-version="{mine["version"] + 1}"')
        assert "data-status=" not in frame  # a move taken: no refusal, to the mover either
    assert card not in view(service, code, mover)["hand"]


def _to_play(service, code, sockets):
    for _ in range(4):
        mover = to_act(service, code)
        v = view(service, code)["version"]
        send(sockets[mover], route="act", action="bid", bid="3", version=str(v))
        frame_with(sockets[mover], f'data-version="{v + 1}"')
    return to_act(service, code)


def test_an_illegal_card_gets_the_posts_words_with_its_ack_and_status_and_changes_nothing(table, service):
    code, clients, sockets = table
    mover = _to_play(service, code, sockets)
    mine = view(service, code, mover)
    other = next(p for p in PEOPLE if p != mover)
    card = str(view(service, code, other)["hand"][0])  # not in the mover's hand
    send(sockets[mover], route="act", action=card, version=str(mine["version"]), ack=7)
    marks, words = refusal(sockets[mover])
    assert marks == {"data-status": "422", "data-ack": "7"}
    status, posted = posted_words(clients[mover], code, {"action": card, "version": mine["version"]})
    assert (status, words) == (422, posted) and words
    assert view(service, code, mover)["version"] == mine["version"]


def test_a_stale_version_is_refused_with_the_posts_words_and_the_table_as_it_is(table, service):
    code, clients, sockets = table
    mover = to_act(service, code)
    v = view(service, code)["version"]
    send(sockets[mover], route="act", action="bid", bid="3", version=str(v))
    frame_with(sockets[mover], f'data-version="{v + 1}"')
    nxt = to_act(service, code)
    frame_with(sockets[nxt], f'data-version="{v + 1}"')
    send(sockets[nxt], route="act", action="bid", bid="3", version=str(v), ack=3)
    frame = frame_with(sockets[nxt], "data-status=")
    assert f'data-version="{v + 1}"' in frame  # the table as it is now comes with the words
    m = MESSAGE.search(frame)
    marks, words = dict(re.findall(r"(data-\w+)=\"([^\"]*)\"", m.group(1))), html.unescape(m.group(2))
    assert marks == {"data-status": "409", "data-ack": "3"}
    status, posted = posted_words(clients[nxt], code, {"action": "bid", "bid": "3", "version": v})
    assert (status, words) == (409, posted) and words
    assert view(service, code)["version"] == v + 1


def test_a_malformed_message_is_refused_and_the_socket_stays_open(table, service, caplog):
    code, clients, sockets = table
    mover = to_act(service, code)
    ws = sockets[mover]
    for text, status in (("not json", "400"), ("[1, 2]", "400"), ('{"route": "nope", "ack": 4}', "404"),
                         ('{"route": "act", "action": 5}', "400"), ('{"route": "chat", "text": "hi"}', "400"),
                         ('{"route": "act", "action": "bid", "bid": "3", "version": "x"}', "400")):
        ws.send(text)
        marks, words = refusal(ws)
        assert marks["data-status"] == status and words, text
    v = view(service, code)["version"]
    send(ws, route="act", action="bid", bid="3", version=str(v))
    frame_with(ws, f'data-version="{v + 1}"')  # still open, and taking moves
    assert "Traceback" not in caplog.text


def test_the_chat_route_says_to_use_the_form(table, service):
    code, clients, sockets = table
    send(sockets[PEOPLE[0]], route="chat", text="hello", ack=9)
    marks, words = refusal(sockets[PEOPLE[0]])
    assert marks == {"data-status": "400", "data-ack": "9"} and "use the page's form" in words


def test_a_watchers_socket_cannot_move(table, service):
    code, clients, sockets = table
    v = view(service, code)["version"]
    send(sockets[EVE], route="act", action="bid", bid="3", version=str(v), ack=5)
    marks, words = refusal(sockets[EVE])
    assert marks == {"data-status": "403", "data-ack": "5"} and words
    assert view(service, code)["version"] == v


@pytest.mark.parametrize("app_config", [{"SOCKET_MOVES_PER_S": 1}])
def test_too_many_messages_at_once_are_refused(table, service):
    code, clients, sockets = table
    ws = sockets[EVE]
    statuses = []
    for k in range(4):
        send(ws, route="nope", ack=k)
        statuses.append(refusal(ws)[0]["data-status"])
    assert statuses[:2] == ["404", "404"] and statuses[-1] == "429"


def test_a_socket_whose_person_signed_out_everywhere_cannot_move(mail_app, live_server, smtp, service):
    from simple_websocket import ConnectionClosed

    phone, laptop = mail_app.test_client(), mail_app.test_client()
    sign_in(phone, smtp, "ann@example.com")
    code = start_practice(phone)
    sign_in(laptop, smtp, "ann@example.com")
    ws = open_ws(live_server, code, phone.get_cookie("session").value)
    try:
        assert 'id="hand"' in ws.receive(timeout=5)
        service.wait_idle()
        with phone.session_transaction() as s:
            pid = s["pid"]
        before = service.snapshot(code, pid).view.to_json()
        assert before["to_act"] == service.snapshot(code, pid).seat  # the bots bid up to this seat
        assert laptop.post("/signout/everywhere", data={"csrf": csrf_of(laptop)}).status_code == 303
        with pytest.raises(ConnectionClosed):  # closed at once (the bus), or on the move at the latest
            send(ws, route="act", action="bid", bid="3", version=str(before["version"]))
            while True:
                if ws.receive(timeout=5) is None:
                    raise AssertionError("the socket stayed open after signing out everywhere")
        assert service.snapshot(code, pid).view.to_json()["version"] == before["version"]
    finally:
        if ws.connected:
            ws.close()
