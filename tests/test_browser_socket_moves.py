"""Moves over the table page's socket, in real Chromium: a whole practice hand is played
with no move posted over HTTP, and no frame's private part shows a card of another seat; a
card the site refuses over the socket shows its words (the post's) on the page; with the
socket cut mid-hand the page posts its moves, and goes back to the socket once it is back."""

from __future__ import annotations

import html
import re
import socket
import threading

from helpers.browser import PHONE, SHOWN, my_turn_or_the_end, signed_in
from helpers.sockets import Relay, refuse, shut
from playwright.sync_api import Page, expect

from spades.rules_config import Rules
from spades.tables import load_state

PID = "socket-moves-ann"
SOCKET_ROUTES = ("act", "claim", "takeover", "dismiss", "rematch", "watching", "undo")
ROOT = re.compile(r'<\w+\s[^>]*?\bid="([^"]+)"[^>]*\bhx-swap-oob=')
PRIVATE = ("told", "hand", "next")


def private_faces(frame: str) -> set[str]:
    """The cards whose faces the frame's private fragments show (#told, #hand, #next)."""
    roots = [(m.start(), m.group(1)) for m in ROOT.finditer(frame)]
    out: set[str] = set()
    for k, (start, ident) in enumerate(roots):
        if ident in PRIVATE:
            out |= set(SHOWN.findall(frame[start:roots[k + 1][0] if k + 1 < len(roots) else len(frame)]))
    return out


def practice(service, rules: Rules | None = None) -> tuple[str, set[str]]:
    code = service.create_practice(PID, "Ann", rules or Rules(end="hands", hands=1, tempo="off", play_speed="fast"),
                                   "easy")
    return code, {str(c) for c in load_state(service.store, code).match.cards(0)}


def watch_moves(page: Page, code: str) -> tuple[list[str], list[str], list[str]]:
    """The page's POSTs to the table's socket routes, the frames it received and the
    messages it sent, as they happen."""
    posts: list[str] = []
    received: list[str] = []
    sent: list[str] = []
    moves = re.compile(rf"/g/{code}/({'|'.join(SOCKET_ROUTES)})$")
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" and moves.search(r.url) else None)

    def text(p) -> str:
        return p if isinstance(p, str) else p.decode("utf-8", "replace")

    page.on("websocket", lambda ws: (ws.on("framereceived", lambda p: received.append(text(p))),
                                     ws.on("framesent", lambda p: sent.append(text(p)))))
    return posts, received, sent


def move_once(page: Page) -> bool:
    """Seat 0 bids or plays its first legal card; False once the hand is over."""
    my_turn_or_the_end(page)
    if page.locator("#panel #result > *").count():
        return False
    version = int(page.locator("#turn").get_attribute("data-version"))
    if page.get_by_role("button", name="Bid", exact=True).count():
        page.get_by_role("button", name="Bid", exact=True).click()
    else:
        page.locator("#hand .fan.playable .card.legal").first.wait_for(timeout=15000)
        page.locator("#hand .fan.playable .card.legal").first.click()
    page.wait_for_function("(v) => +document.getElementById('turn').dataset.version > v", arg=version, timeout=15000)
    return True


def test_a_whole_practice_hand_is_played_over_the_socket(app, live_server, browser, service):
    code, mine = practice(service)
    page = signed_in(app, live_server, browser, PID, PHONE)
    posts, received, sent = watch_moves(page, code)
    try:
        page.goto(f"{live_server}/g/{code}")
        expect(page.locator("body.live")).to_have_count(1, timeout=15000)
        moves = 0
        while move_once(page):
            moves += 1
        assert moves >= 14  # a bid and thirteen cards
        assert service.snapshot(code, PID).view.to_json()["finished"]
        assert posts == []  # not one move was an HTTP post
        routes = [m for m in sent if '"route":"act"' in m]
        assert len(routes) == moves, sent
        shown = set().union(*(private_faces(f) for f in received))
        assert shown and shown <= mine  # the page's own cards only
    finally:
        page.context.close()


def test_a_card_refused_over_the_socket_shows_its_words(app, live_server, browser, service):
    code, mine = practice(service)
    page = signed_in(app, live_server, browser, PID, PHONE)
    posts, received, sent = watch_moves(page, code)
    try:
        page.goto(f"{live_server}/g/{code}")
        expect(page.locator("body.live")).to_have_count(1, timeout=15000)
        move_once(page)  # the bid
        my_turn_or_the_end(page)
        button = page.locator("#hand .fan.playable .card.legal").first
        button.wait_for(timeout=15000)
        foreign = next(str(c) for c in load_state(service.store, code).match.cards(1))
        button.evaluate("(b, card) => { b.value = card; }", foreign)  # a card this seat does not hold
        version = service.snapshot(code, PID).view.to_json()["version"]
        button.click()
        message = page.locator("#told .message[data-status='422']")
        expect(message).to_have_count(1, timeout=15000)
        assert message.get_attribute("data-ack")
        answer = page.request.post(f"{live_server}/g/{code}/act", headers={"HX-Request": "true"}, form={
            "csrf": page.locator("main").get_attribute("data-csrf"), "action": foreign, "version": str(version)})
        assert answer.status == 422
        words = html.unescape(re.search(r'class="message" role="alert"[^>]*>([^<]+)<', answer.text()).group(1))
        expect(message).to_have_text(words)
        assert posts == [] and service.snapshot(code, PID).view.to_json()["version"] == version
    finally:
        page.context.close()


class SocketRelay(Relay):
    """A relay whose WebSocket connections can be cut (and new ones refused) while plain
    HTTP goes on through it."""

    def __init__(self, target: str) -> None:
        self.sockets_cut = False
        self.ws_conns: set[socket.socket] = set()
        super().__init__(target)

    def accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(client,), daemon=True).start()

    def serve(self, client: socket.socket) -> None:
        try:
            head = client.recv(4096, socket.MSG_PEEK)
        except OSError:
            return
        is_ws = b"/ws" in head.split(b"\r\n", 1)[0]
        if is_ws and self.sockets_cut:
            refuse(client)
            return
        server = socket.create_connection(self.upstream)
        with self.lock:
            self.open |= {client, server}
            if is_ws:
                self.ws_conns |= {client, server}
        for a, b in ((client, server), (server, client)):
            threading.Thread(target=self.pump, args=(a, b), daemon=True).start()

    def cut_sockets(self) -> None:
        self.sockets_cut = True
        with self.lock:
            shut(self.ws_conns)


def test_with_the_socket_cut_the_moves_are_posted_and_go_back_to_the_socket(app, live_server, browser, service):
    code, mine = practice(service)
    relay = SocketRelay(live_server)
    page = signed_in(app, relay.base, browser, PID, PHONE)
    posts, received, sent = watch_moves(page, code)
    try:
        page.goto(f"{relay.base}/g/{code}")
        expect(page.locator("body.live")).to_have_count(1, timeout=15000)
        assert move_once(page)  # the bid, over the socket
        assert posts == [] and len([m for m in sent if '"route":"act"' in m]) == 1

        my_turn_or_the_end(page)  # the bots bid and lead up to Ann's card, seen live
        relay.cut_sockets()  # then her socket drops (and cannot come back until restored)
        expect(page.locator("body.live")).to_have_count(0, timeout=15000)
        assert move_once(page)  # a card, posted: the post's answer shows it taken
        assert len(posts) == 1 and posts[0].endswith(f"/g/{code}/act")
        expect(page.locator("#hand .card")).to_have_count(12, timeout=15000)

        relay.sockets_cut = False
        expect(page.locator("body.live")).to_have_count(1, timeout=30000)  # the socket comes back by itself
        before = len([m for m in sent if '"route":"act"' in m])
        assert move_once(page)  # and the next card goes over it
        expect(page.locator("#hand .card")).to_have_count(11, timeout=15000)
        assert len(posts) == 1 and len([m for m in sent if '"route":"act"' in m]) == before + 1
    finally:
        page.context.close()
        relay.close()
