"""No page, fragment or push for a seat ever holds another seat's cards.

Full seeded matches are driven through the table service; every update each seat (and a
spectator) is sent is rendered exactly as the WebSocket would send it, and checked against
the cards the other seats hold at that moment.
"""

from __future__ import annotations

import dataclasses
import random
import re

import pytest
from conftest import csrf_of, start_practice
from watch import watch

from spades import bots
from spades.rules_config import Rules
from spades.storage import SeatRow
from spades.tables import Player, load_state
from spades.web.table.render import render_fragments

CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][SHDC])(?![A-Za-z0-9])")


def card_texts(html: str) -> set[str]:
    """Every card notation in the HTML: data attributes, values and any bare token."""
    return set(CARD_TOKEN.findall(html))


def held_by_others(match, seat: int | None) -> set[str]:
    """The cards the other seats (all four, for a spectator) hold at this moment."""
    return {str(c) for s in range(4) if s != seat for c in match.cards(s)}


def shown_cards(html: str) -> set[str]:
    return set(re.findall(r'data-card="(\w\w)"', html)) | set(re.findall(r'value="([2-9TJQKA][SHDC])"', html))


@pytest.mark.parametrize("seed,blind", [(1, False), (2, True), (3, False)])
def test_rendered_updates_never_hold_another_seats_cards(app, service, seed, blind):
    code = f"HID{seed}X"
    players = [f"p{s}" for s in range(4)]
    rules = Rules(end="hands", hands=2, blind_nil=blind)
    service.store.create_table(code, players[0], {"level": "easy"},
                               [SeatRow(s, "human", players[s], f"P{s}") for s in range(4)],
                               f"seed{seed}", dataclasses.asdict(rules))
    checked = []

    def listener_for(seat):
        def listen(snap):
            with app.app_context():
                html = render_fragments(snap, "token")
            # called under the table lock, after the commit: the stored match is this very moment's
            match = load_state(service.store, code).match
            mine = {str(c) for c in match.cards(seat)} if seat is not None else set()
            others = held_by_others(match, seat)
            assert not (card_texts(html) & others), (seat, card_texts(html) & others)
            assert not (shown_cards(html) & others)
            if seat is not None and snap.view.to_json()["hand"] is None:
                assert not (shown_cards(html) & mine)  # not even its own before it looks
            checked.append(seat)
        return listen

    for s in range(4):
        watch(service, code, players[s], listener_for(s))
    watch(service, code, None, listener_for(None))
    rng = random.Random(seed)
    while True:
        v = service.snapshot(code, players[0]).view.to_json()
        if v["finished"]:
            break
        if v["phase"] == "hand_over":
            for s in range(4):  # every person presses Continue; the last press deals
                service.act(code, Player(players[s]), "deal", v["version"])
            continue
        seat = v["to_act"]
        sv = service.snapshot(code, players[seat]).view.to_json()
        action = bots.choose(sv, rng.choice(["easy", "normal"]), rng.randrange(1 << 30))
        service.act(code, Player(players[seat]), action, sv["version"])
    assert len(checked) > 5 * 100  # every seat and the spectator, after every move of two hands


def test_the_page_of_a_practice_table_never_shows_the_bots_cards(client, service):
    code = start_practice(client)
    rng = random.Random(9)
    pages = 0
    while pages < 30:
        assert service.wait_idle()
        html = client.get(f"/g/{code}").get_data(as_text=True)
        match = load_state(service.store, code).match
        assert not (card_texts(html) & held_by_others(match, 0))  # the bots' cards
        pages += 1
        v = client.get(f"/g/{code}/view.json").get_json()
        if v["phase"] == "hand_over":
            break
        action = "3" if v["phase"] == "bidding" else rng.choice(v["legal"])
        client.post(f"/g/{code}/act", data={"csrf": csrf_of(client), "action": action, "version": v["version"]})


def test_a_practice_match_with_bots_never_pushes_their_cards(app, service):
    """Seat 0 and a spectator listen while the bots play two hands through the scheduler."""
    rules = Rules(end="hands", hands=2, blind_nil=True)
    code = service.create_practice("me", "Ann", rules, "normal")
    checked = []

    def listener_for(seat):
        def listen(snap):
            with app.app_context():
                html = render_fragments(snap, "token")
            assert not (card_texts(html) & held_by_others(load_state(service.store, code).match, seat))
            checked.append(seat)
        return listen

    watch(service, code, "me", listener_for(0))
    watch(service, code, None, listener_for(None))
    while True:
        assert service.wait_idle()
        v = service.snapshot(code, "me").view.to_json()
        if v["finished"]:
            break
        if v["phase"] == "hand_over":
            service.act(code, Player("me"), "deal", v["version"])
        elif v["to_act"] == 0:
            service.act(code, Player("me"), bots.choose(v, "normal", v["version"]), v["version"])
    assert checked.count(0) > 100 and checked.count(None) > 100


def test_the_frames_each_socket_is_sent_never_hold_another_seats_cards(app, service):
    """Four people and a watcher, each with a connection in the socket hub, through two
    hands and a rematch in which two of them swap seats: every frame each connection is
    sent (only the fragments that changed) is checked as it is made, under the table's
    lock, against the cards the other seats hold at that very moment."""
    from spades.tables.commands.host import Rematch
    from spades.web.table.hub import Connection

    hub = app.extensions["spades.hub"]
    code = "HIDFRM"
    players = [f"f{s}" for s in range(4)]
    service.store.create_table(code, players[0], {"level": "easy"},
                               [SeatRow(s, "human", players[s], f"F{s}") for s in range(4)],
                               "frames", dataclasses.asdict(Rules(end="hands", hands=2)))
    conns = {who: Connection(code, who, "127.0.0.1", "token", queue_size=10_000) for who in [*players, ""]}
    for conn in conns.values():
        assert hub.open(conn) is None
    frames: dict[str, list[str]] = {who: [] for who in conns}

    def check(change) -> None:  # a bus listener after the hub's: the frames this change made
        if change.code != code:
            return
        match = load_state(service.store, code).match
        for who, conn in conns.items():
            while not conn.queue.empty():
                frame = hub.render(conn.queue.get_nowait(), conn)
                seat = change.key_of(who) if who else None
                assert not (card_texts(frame) & held_by_others(match, seat)), (who, seat)
                frames[who].append(frame)

    service.bus.subscribe(check)
    rng = random.Random(5)

    def play_out() -> None:
        while True:
            v = service.snapshot(code, players[0]).view.to_json()
            if v["finished"]:
                return
            if v["phase"] == "hand_over":
                for p in players:
                    service.act(code, Player(p), "deal", v["version"])
                continue
            person = load_state(service.store, code).persons()[v["to_act"]]
            sv = service.snapshot(code, person).view.to_json()
            service.act(code, Player(person), bots.choose(sv, "easy", rng.randrange(1 << 30)), sv["version"])

    play_out()
    v = service.snapshot(code, players[0]).view.to_json()
    service.handle(code, Player(players[0]), Rematch(v["version"], 1))  # f1 comes across, f2 goes to seat 1
    assert service.snapshot(code, players[1]).seat == 2
    for _ in range(12):  # the new match's bids and a trick: f1 and f2 in their new seats
        v = service.snapshot(code, None).view.to_json()
        person = load_state(service.store, code).persons()[v["to_act"]]
        sv = service.snapshot(code, person).view.to_json()
        service.act(code, Player(person), bots.choose(sv, "easy", rng.randrange(1 << 30)), sv["version"])
    for who in conns:
        assert len(frames[who]) > 100
        # after the first (whole) frame, a frame is the fragments that changed
        assert sum(map(len, frames[who][1:])) / (len(frames[who]) - 1) < len(frames[who][0]) / 2
    assert not any('id="hand"' in f for f in frames[""])  # a watcher's frames carry no private part
    assert all(any(shown_cards(f) for f in frames[p]) for p in players)  # each person's own cards did come
