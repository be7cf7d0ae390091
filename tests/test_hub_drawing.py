"""The hub draws a seat's own part only when something it shows changed (a card changes
its player's hand and the next player's playable cards, not the other seats'), and every
page still shows, after every change, what a fresh drawing of its seat's picture shows:
at a table of four and at a cutthroat table of three, through a whole hand and the next
deal."""

from __future__ import annotations

import random
import re

import pytest
from helpers.frames import frames

from spades import bots
from spades.rules_config import Rules, preset_rules
from spades.storage import SeatRow
from spades.tables import Change, Player
from spades.web.table import render
from spades.web.table.connection import Connection

# one fragment of a frame: an element with an id, sent out of band, up to the next one
FRAGMENT = re.compile(r'<(\w+) id="([\w-]+)"[^>]*hx-swap-oob="[^"]*">.*?</\1>(?=<\w+ id="[\w-]+"[^>]*hx-swap-oob|$)',
                      re.S)


def seated(service, players: int) -> tuple[str, list[str]]:
    """A table of ``players`` people (no bots: nothing moves but the test's moves)."""
    people = [f"d{s}" for s in range(players)]
    rules = Rules() if players == 4 else preset_rules("cutthroat-3")
    code = service.create_seated([SeatRow(s, "human", people[s], f"D{s}") for s in range(players)], rules,
                                 {"kind": "friends", "level": "easy", "humans": players}, host=people[0])
    return code, people


def apply(page: dict[str, str], frame: str) -> dict[str, str]:
    """A page's fragments after an update (each replaced whole, by id)."""
    return {**page, **{m.group(2): m.group(0) for m in FRAGMENT.finditer(frame)}}


def shown(page: dict[str, str]) -> dict[str, str]:
    """What a page shows: a fragment that did not change keeps the stamp and the version
    it was drawn at (the page's forms take the version from ``turn``); the screen readers'
    line is told once per move, not kept (it is checked whole through ``Hub.fragments``)."""
    return {k: re.sub(r' data-v="\d+"|(name="version" value=)"\d+"', r"\1", v) for k, v in page.items()
            if k != "announce"}


def play(service, code: str, people: list[str], rng: random.Random, after) -> None:
    """A whole hand and the next deal, each move by the person to act; ``after(move)``
    after each (``move``: the seat that moved and whether it played a card)."""
    dealt = 0
    for _ in range(200):
        v = service.snapshot(code, None).view.to_json()
        if v["phase"] == "hand_over":
            for p in people:  # Continue, person by person: the last one deals
                version = service.snapshot(code, p).view.to_json()["version"]
                service.act(code, Player(p), "deal", version)
                after((people.index(p), False))
            dealt += 1
            continue
        if dealt and v["phase"] == "bidding":
            return
        seat = v["to_act"]
        sv = service.snapshot(code, people[seat]).view.to_json()
        service.act(code, Player(people[seat]), bots.choose(sv, "easy", rng.randrange(1 << 30)), sv["version"])
        after((seat, sv["phase"] == "playing"))
    raise AssertionError("the hand never ended")


@pytest.mark.parametrize("players", [4, 3])
def test_every_page_shows_what_a_fresh_drawing_shows_after_every_change(app, service, players):
    hub = app.extensions["spades.hub"]
    code, people = seated(service, players)
    changes: list[Change] = []
    service.bus.subscribe(changes.append)
    conns = [Connection(code, p, "127.0.0.1", f"token-{p}") for p in people]
    watcher = Connection(code, "someone", "127.0.0.1", "token-w")
    pages: dict[Connection, dict[str, str]] = {}
    for conn in [*conns, watcher]:
        assert hub.open(conn) is None
        pages[conn] = {}

    def check(move: tuple[int, bool]) -> None:
        change = changes[-1]
        for conn in [*conns, watcher]:
            for frame in frames(hub, conn):
                pages[conn] = apply(pages[conn], frame)
        with app.app_context():
            for seat, conn in [*enumerate(conns), (None, watcher)]:
                snap = change.snapshots[seat]
                fresh = apply({}, render.render_fragments(snap, conn.csrf))
                assert shown(pages[conn]) == shown(fresh), (move, seat, change.seq)
                if seat is not None:  # the hub's own drawings, the screen readers' line too, exactly
                    assert hub.fragments(snap, conn.player_id, conn.csrf) == render.render_fragments(snap, conn.csrf)

    play(service, code, people, random.Random(players), check)
    assert len(changes) > 13 * players


@pytest.mark.parametrize("players", [4, 3])
def test_a_card_draws_the_own_part_of_its_player_and_of_the_next_alone(app, service, players, monkeypatch):
    hub = app.extensions["spades.hub"]
    code, people = seated(service, players)
    conns = [Connection(code, p, "127.0.0.1", "t") for p in people]
    for conn in conns:
        assert hub.open(conn) is None
        frames(hub, conn)
    drawn: list[int | None] = []
    private_part = render.private_part
    monkeypatch.setattr(render, "private_part", lambda snap, *a: drawn.append(snap.seat) or private_part(snap, *a))
    cards = 0

    def check(move: tuple[int, bool]) -> None:
        nonlocal cards
        drawn.clear()
        for conn in conns:
            frames(hub, conn)
        seat, card = move
        v = service.snapshot(code, None).view.to_json()
        if card and v["phase"] == "playing":  # a card that did not end the hand
            cards += 1
            assert sorted(drawn) == sorted({seat, v["to_act"]}), (seat, v["to_act"])

    play(service, code, people, random.Random(7), check)
    assert cards >= 13 * players - 2
