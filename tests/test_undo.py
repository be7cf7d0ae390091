"""Undo at a practice table: the person takes back their last bid or card and the bots'
moves after it, back to the hand's first bid; the table's version only goes up; the record
keeps the line finally played; a match with takebacks says so and is not rated; a table
with two people has no undo; a server killed right after an undo resumes at the undone
position."""

from __future__ import annotations

import html
import sqlite3

import pytest
from conftest import csrf_of
from helpers.restart import Browser, Server, practice_and_bid, wait_for_turn
from servers import free_port

from spades.rules import IllegalAction, Rules
from spades.storage import SeatRow
from spades.tables import Player, Undo
from spades.tables.commands.undo import NOT_HERE, NOTHING

BEN = "undo-ben"
ANN = "undo-ann"
KEYS = ("hand", "trick", "tricks", "bids", "taken", "to_act", "phase", "legal")


def as_player(client, pid: str):
    with client.session_transaction() as s:
        s["pid"] = pid
    return client


def my_turn(service, code: str) -> dict:
    """The view once the bots are done and it is Ben's move (or the hand is over)."""
    assert service.wait_idle()
    return service.snapshot(code, BEN).view.to_json()
def undo(client, code: str, version: int | None, csrf: str):
    data = {"csrf": csrf} if version is None else {"csrf": csrf, "version": version}
    return client.post(f"/g/{code}/undo", data=data, headers={"HX-Request": "true"})


def test_undo_takes_back_a_card_then_the_bid_and_the_bots_moves_after_each(client, service):
    code = service.create_practice(BEN, "Ben", Rules(end="hands", hands=1, tempo="off"), "normal")
    as_player(client, BEN)
    csrf = csrf_of(client)
    me = Player(BEN)
    at_bid = my_turn(service, code)
    assert at_bid["phase"] == "bidding" and at_bid["to_act"] == 0
    assert "undo" not in service.snapshot(code, BEN).offers  # nothing of Ben's in this hand yet
    service.act(code, me, "3", at_bid["version"])
    at_card = my_turn(service, code)
    assert at_card["phase"] == "playing" and at_card["to_act"] == 0
    assert "undo" in service.snapshot(code, BEN).offers
    card = at_card["legal"][0]
    service.act(code, me, card, at_card["version"])
    after = my_turn(service, code)
    assert after["to_act"] == 0 and len(after["tricks"]) + len(after["trick"]["cards"]) > 1  # the bots moved on

    page = client.get(f"/g/{code}").get_data(as_text=True)
    assert 'action="/g/' + code + '/undo"' in page and ">Undo<" in page
    answer = undo(client, code, after["version"], csrf)
    assert answer.status_code == 200, answer.get_data(as_text=True)
    assert "You took back your last card and the bots&#39; moves after it." in answer.get_data(as_text=True) \
        or "You took back your last card and the bots' moves after it." in answer.get_data(as_text=True)
    back = service.snapshot(code, BEN).view.to_json()
    for key in KEYS:
        assert back[key] == at_card[key], key
    assert back["version"] > after["version"]  # a takeback is a change: the version goes up
    assert my_turn(service, code)["version"] == back["version"]  # the bots wait: it is Ben's turn again

    # a page from before the takeback is stale: its move and a second undo are refused, changing nothing
    stale = client.post(f"/g/{code}/act", data={"csrf": csrf, "version": after["version"], "action": after["legal"][0]},
                        headers={"HX-Request": "true"})
    assert stale.status_code == 409
    assert undo(client, code, after["version"], csrf).status_code == 409
    assert service.snapshot(code, BEN).view.to_json()["version"] == back["version"]

    # again: the bid goes, with every bot's bid after it
    answer = undo(client, code, back["version"], csrf)
    assert answer.status_code == 200
    assert "You took back your last bid" in answer.get_data(as_text=True)
    again = service.snapshot(code, BEN).view.to_json()
    for key in KEYS:
        assert again[key] == at_bid[key], key
    assert again["version"] > back["version"]
    # and back at the hand's first bid there is nothing left to take back
    refused = undo(client, code, again["version"], csrf)
    assert refused.status_code == 422 and NOTHING in refused.get_data(as_text=True)
    assert service.snapshot(code, BEN).view.to_json()["version"] == again["version"]

    # play a different line: the record holds only the line finally played
    service.act(code, me, "4", again["version"])
    v = my_turn(service, code)
    other = v["legal"][-1]
    assert other != card
    service.act(code, me, other, v["version"])
    record = client.get(f"/g/{code}/record.json").get_json()
    hand = record["hands"][0]
    assert hand["bids"][0] == 4
    mine = [c for i, c in enumerate(hand["plays"]) if (hand["dealer"] + 1 + i) % 4 == 0][:1]
    assert mine == [other]


def test_a_match_with_takebacks_says_so_and_is_not_rated(app, client, service):
    rules = Rules(mode="no_bidding", end="hands", hands=1, tempo="off")
    code = service.create_practice(BEN, "Ben", rules, "easy")
    plain = service.create_practice(BEN, "Ben", rules, "easy")
    as_player(client, BEN)
    csrf = csrf_of(client)
    me = Player(BEN)
    took_back = False
    for table in (code, plain):
        for _ in range(200):
            v = my_turn(service, table)
            if v["finished"]:
                break
            if table == code and not took_back and len(v["tricks"]) == 3:
                assert undo(client, table, v["version"], csrf).status_code == 200
                took_back = True
                continue
            service.act(table, me, v["legal"][-1], v["version"])
        assert service.snapshot(table, BEN).view.to_json()["finished"]
    assert took_back
    accounts = app.extensions["spades.accounts"]
    assert accounts.rate_pending() == 1  # the plain match only
    assert accounts.rating(BEN).matches == 1
    sheet = client.get(f"/g/{code}/record").get_data(as_text=True)
    assert "Played with takebacks" in sheet and "not rated" in sheet
    assert "takebacks" not in client.get(f"/g/{plain}/record").get_data(as_text=True)
    profile = client.get("/me").get_data(as_text=True)
    assert profile.count("with takebacks") == 1


def test_no_undo_at_a_table_with_two_people(client, service):
    seats = [SeatRow(0, "human", BEN, "Ben", ""), SeatRow(1, "bot", None, "Rex", ""),
             SeatRow(2, "human", ANN, "Ann", ""), SeatRow(3, "bot", None, "Kit", "")]
    code = service.create_seated(seats, Rules(tempo="off"), {"kind": "friends", "level": "normal"}, host=BEN)
    assert service.wait_idle()
    v = service.snapshot(code, BEN).view.to_json()
    seat = v["to_act"]
    pid = BEN if seat == 0 else ANN if seat == 2 else None
    if pid is not None:
        service.act(code, Player(pid), "3", v["version"])
        assert service.wait_idle()
    for person in (BEN, ANN):
        assert "undo" not in service.snapshot(code, person).offers
    as_player(client, BEN)
    before = service.snapshot(code, BEN).view.to_json()
    refused = undo(client, code, before["version"], csrf_of(client))
    assert refused.status_code == 422 and NOT_HERE in html.unescape(refused.get_data(as_text=True))
    assert service.snapshot(code, BEN).view.to_json()["version"] == before["version"]
    with pytest.raises(IllegalAction, match=NOT_HERE):
        service.handle(code, Player(BEN), Undo(None))


def test_a_server_killed_right_after_an_undo_resumes_at_the_undone_position(tmp_path):
    db = tmp_path / "undo.db"
    port = free_port()
    # the bots may be quick: an undo is made, and the server killed, on the person's turn,
    # when no bot is to move
    server = Server(db, port, delay="0.2")
    browser = Browser()
    try:
        code, v = practice_and_bid(browser, server.url)
        v = wait_for_turn(browser, server.url, code, v["version"])
        at_card = v
        browser.post(f"{server.url}/g/{code}/act", action=v["legal"][0], version=v["version"])
        v = wait_for_turn(browser, server.url, code, v["version"])
        browser.post(f"{server.url}/g/{code}/undo", version=v["version"])
        undone = browser.view(server.url, code)
        server.kill()
    finally:
        if server.proc.poll() is None:
            server.kill()
    for key in KEYS:
        assert undone[key] == at_card[key], key
    with sqlite3.connect(db) as conn:
        stored, takebacks = conn.execute("SELECT version, takebacks FROM matches").fetchone()
    assert (stored, takebacks) == (undone["version"], 1)

    server = Server(db, port, delay="0.2")
    try:
        after = browser.view(server.url, code)
        for key in (*KEYS, "version"):
            assert after[key] == undone[key], key
        page = browser.post(f"{server.url}/g/{code}/act", action=after["legal"][-1], version=after["version"])
        assert "data-card" in page
        assert browser.view(server.url, code)["version"] > after["version"]
    finally:
        server.kill()
