"""House rules at real tables: the host picks them on /new (a preset or one by one), in
the room until the first deal, and on the home page's practice form; a combination
RULES.md does not offer is refused with its reason and makes nothing; tables of every
shape start, play, rematch, lose their host and come back from a restart at the exact
card; the rules line names the house rules and /rules explains each one."""

from __future__ import annotations

import html as html_lib
import random
import re
import sqlite3
import time

import pytest
from conftest import csrf_of
from helpers.house import service_on
from helpers.lobby import join, members, new_table, post

from spades import bots
from spades.rules_config import PRESETS, Rules, preset_rules
from spades.storage import SeatRow
from spades.tables import Player, Rematch, TableService, load_state
from spades.tables.commands import Join, Leave

BASE = {"mode": "bidding", "end": "target", "target": 500, "bag_penalty": True, "tempo": "normal", "play_speed": "fast"}
THREE = {"preset": "cutthroat-3"}


def tables_made(app) -> int:
    with sqlite3.connect(app.config["DATABASE"]) as db:
        return db.execute("SELECT COUNT(*) FROM tables").fetchone()[0]


def new_form(client, **fields) -> dict:
    data = {"csrf": csrf_of(client), "name": "Hana", "emoji": "🦊", "humans": "2", "mode": "bidding",
            "end": "target-500", "bag_penalty": "on", "tempo": "normal", "level": "easy", "speed": "fast"}
    data.update(fields)
    return data


def room_options(client, **fields) -> dict:
    data = {"csrf": csrf_of(client), "mode": "bidding", "end": "target-500", "bag_penalty": "on",
            "tempo": "normal", "level": "easy", "speed": "fast"}
    data.update(fields)
    return data


@pytest.fixture
def friends(app):
    """Three browsers: the host and two friends."""
    return app.test_client(), app.test_client(), app.test_client()


def text_of(page: str) -> str:
    return html_lib.unescape(re.sub(r"\s+", " ", page))


# -- choosing them on /new ------------------------------------------------------------------
@pytest.mark.parametrize("preset", list(PRESETS))
def test_each_preset_on_new_makes_a_table_with_its_rules(app, client, service, preset):
    code = new_table(client, humans=2, preset=preset)
    stored = Rules.from_dict(service.store.load_room(code).options["rules"])
    assert stored == preset_rules(preset, **BASE)
    page = text_of(client.get(f"/g/{code}").get_data(as_text=True))
    line = re.search(r'<p class="rules-line">(.*?)</p>', page).group(1)
    label = PRESETS[preset][0]
    assert (label in line) == (preset != "standard")  # the rules line names the preset
    # the room's options form shows it chosen
    assert re.search(rf'<option value="{preset}" selected>', page)


def test_the_switches_one_by_one_are_read_with_custom_and_said_each_in_the_rules_line(client, service):
    code = new_table(client, humans=2, preset="custom", players="4", partners="on", jokers="none",
                     bidding="standard", min_bid="4", ten_for_200="on", spades_lead="any")
    rules = Rules.from_dict(service.store.load_room(code).options["rules"])
    assert (rules.min_bid, rules.ten_for_200, rules.spades_lead, rules.partners) == (4, True, "any", True)
    page = text_of(client.get(f"/g/{code}").get_data(as_text=True))
    assert "minimum bid 4 · 10-for-200 · spades led any time" in page


def test_a_named_preset_wins_over_the_switches_posted_with_it(client, service):
    """Without JavaScript the switches stay as they were: the preset shown is the one made."""
    code = new_table(client, humans=2, preset="jj", players="4", partners="on", jokers="none", min_bid="0")
    assert Rules.from_dict(service.store.load_room(code).options["rules"]) == preset_rules("jj", **BASE)


def test_a_form_without_the_house_rules_makes_a_standard_table(client, service):
    code = new_table(client, humans=2)  # an older page: no preset, no switches
    assert Rules.from_dict(service.store.load_room(code).options["rules"]) == Rules(**BASE)


@pytest.mark.parametrize("fields,reason", [
    ({"preset": "custom", "players": "3", "partners": "on"},
     "Three players play cutthroat: partners must be false with 3 players."),
    ({"preset": "custom", "partners": "on", "min_bid": "4", "bidding": "whiz"},
     "A minimum bid goes with standard bidding only, not with whiz."),
    ({"preset": "custom", "players": "3", "jokers": "jj"}, "Jokers are played with four players only."),
    ({"preset": "cutthroat-3", "humans": "4"}, "A table of 3 players is for 1 to 3 people."),
    ({"preset": "cutthroat-5"}, "Choose the house rules:"),
    ({"preset": "custom", "partners": "on", "min_bid": "7"}, "Choose the minimum bid: 0, 2, 3, 4 or 5."),
])
def test_a_combination_not_offered_is_refused_with_its_reason_and_nothing_is_made(app, client, fields, reason):
    before = tables_made(app)
    r = client.post("/new", data=new_form(client, **fields))
    assert r.status_code == 400
    page = text_of(r.get_data(as_text=True))
    assert reason in page and 'role="alert"' in page
    assert tables_made(app) == before


def test_one_person_alone_at_a_three_player_table_from_new(client, service):
    code = new_table(client, humans=1, preset="cutthroat-3")
    state = load_state(service.store, code)
    assert [s.kind for s in state.row.seats] == ["human", "bot", "bot"]
    assert state.match.rules == preset_rules("cutthroat-3", **{**BASE, "tempo": "off"})


# -- practice -------------------------------------------------------------------------------
def play_out(service, code: str, me: str, rng: random.Random, limit: float = 120):
    """Seat 0's person plays random legal cards (bids by the easy bot) and deals on; the
    bots play the rest, until the match ends."""
    deadline = time.monotonic() + limit
    snap = service.snapshot(code, me)
    while not snap.view.to_json()["finished"]:
        assert time.monotonic() < deadline, f"the table stalled: {snap.view}"
        assert service.wait_idle(30)
        snap = service.snapshot(code, me)
        v = snap.view.to_json()
        if v["phase"] == "hand_over" and not v["finished"]:
            service.act(code, Player(me), "deal", v["version"])
        elif v["to_act"] == snap.seat and not v["finished"]:
            move = bots.choose(v, "easy", rng.randrange(1 << 30)) if v["phase"] == "bidding" else rng.choice(v["legal"])
            service.act(code, Player(me), move, v["version"])
    return snap


def test_the_home_page_offers_the_presets_and_a_three_player_practice_plays_to_the_end(client, service):
    home = client.get("/").get_data(as_text=True)
    practice = home[home.index('class="practice card-panel"'):]
    for name, (label, _) in PRESETS.items():
        assert f'<option value="{name}"' in practice and label in practice
    r = client.post("/practice", data={"csrf": csrf_of(client), "level": "easy", "speed": "fast",
                                       "end": "hands-5", "bag_penalty": "on", "preset": "cutthroat-3"})
    assert r.status_code == 303
    code = r.headers["Location"].rsplit("/", 1)[1]
    state = load_state(service.store, code)
    assert len(state.row.seats) == 3 and [s.kind for s in state.row.seats] == ["human", "bot", "bot"]
    me = state.row.seats[0].player_id
    snap = play_out(service, code, me, random.Random(3))
    v = snap.view.to_json()
    assert v["finished"] and len(v["scores"]) == 3 and v["sides"] == [[0], [1], [2]]
    record = service.record(code, me)
    assert record["format"] == "spades-match/2" and len(record["hands"]) >= 5
    assert all(len(h["plays"]) == 51 for h in record["hands"])


def test_practice_refuses_a_preset_not_offered(client, app):
    before = tables_made(app)
    r = client.post("/practice", data={"csrf": csrf_of(client), "preset": "cutthroat-2"})
    assert r.status_code == 400 and "Choose the house rules" in r.get_data(as_text=True)
    assert tables_made(app) == before


# -- the room --------------------------------------------------------------------------------
def test_the_host_changes_the_house_rules_in_the_room_and_everyone_sees_them(app, friends, service):
    host, ann, _ = friends
    code = new_table(host, humans=3)
    assert join(ann, code, "Ann").status_code == 303
    r = host.post(f"/g/{code}/options", data=room_options(host, preset="cutthroat-3"))
    assert r.status_code == 303
    assert Rules.from_dict(service.store.load_room(code).options["rules"]) == preset_rules("cutthroat-3", **BASE)
    seen = text_of(ann.get(f"/g/{code}").get_data(as_text=True))
    assert "Cutthroat for 3" in seen and "no partner to pick" in seen
    # a combination not offered: 400 with the reason, nothing changed
    r = host.post(f"/g/{code}/options", data=room_options(host, preset="custom", players="4", partners="on",
                                                          min_bid="4", bidding="whiz"))
    assert r.status_code == 400
    assert "A minimum bid goes with standard bidding only, not with whiz." in text_of(r.get_data(as_text=True))
    assert Rules.from_dict(service.store.load_room(code).options["rules"]) == preset_rules("cutthroat-3", **BASE)
    # one by one: whiz bidding with partners
    r = host.post(f"/g/{code}/options", data=room_options(host, preset="custom", players="4", partners="on",
                                                          bidding="whiz"))
    assert r.status_code == 303
    seen = text_of(ann.get(f"/g/{code}").get_data(as_text=True))
    assert "whiz bidding" in seen and "Cutthroat" not in seen


def test_a_room_cannot_shrink_below_the_people_in_it(friends, service):
    host, ann, bo = friends
    code = new_table(host, humans=4)
    for who, name in ((ann, "Ann"), (bo, "Bo")):
        assert join(who, code, name).status_code == 303
    # three here: a three-player table fits, ...
    assert host.post(f"/g/{code}/options", data=room_options(host, preset="cutthroat-3")).status_code == 303
    # ... and no fourth person may join it
    fourth = type(host)(host.application)
    assert join(fourth, code, "Cy").status_code == 409


def test_the_options_are_refused_after_the_first_deal(friends, service):
    host, ann, _ = friends
    code = new_table(host, humans=2, preset="jj")
    assert join(ann, code, "Ann").status_code == 303
    assert post(host, code, "start").status_code == 303
    r = host.post(f"/g/{code}/options", data=room_options(host, preset="cutthroat-4"))
    assert r.status_code in (400, 409)
    assert load_state(service.store, code).match.rules == preset_rules("jj", **BASE)


def test_a_three_person_cutthroat_room_starts_with_three_people_and_no_partner_question(friends, service):
    host, ann, bo = friends
    code = new_table(host, humans=3, preset="cutthroat-3")
    for who, name in ((ann, "Ann"), (bo, "Bo")):
        assert join(who, code, name).status_code == 303
    page = host.get(f"/g/{code}").get_data(as_text=True)
    seen = text_of(page)
    assert "Cutthroat: everyone plays alone, so there is no partner to pick." in seen
    assert f'action="/g/{code}/partner"' not in page  # no partner buttons, no bot partner
    assert "Plays alone" in seen and "Every seat has a person." in seen
    ann_number = members(page)["Ann"]
    r = post(host, code, "partner", member=ann_number)
    assert r.status_code == 400 and "no partner to pick" in text_of(r.get_data(as_text=True))
    assert post(host, code, "start").status_code == 303
    state = load_state(service.store, code)
    assert [(s.seat, s.kind, s.name) for s in state.row.seats] == [(0, "human", "Hana"), (1, "human", "Ann"),
                                                                    (2, "human", "Bo")]
    assert state.match.rules.shape.players == 3 and len(state.match.cards(0)) == 17


def test_a_two_person_cutthroat_room_fills_the_third_seat_with_a_bot(friends, service):
    host, ann, _ = friends
    code = new_table(host, humans=2, preset="cutthroat-3")
    assert join(ann, code, "Ann").status_code == 303
    page = text_of(host.get(f"/g/{code}").get_data(as_text=True))
    assert "1 empty seat will be played by easy bots." in page
    assert post(host, code, "start").status_code == 303
    state = load_state(service.store, code)
    assert [s.kind for s in state.row.seats] == ["human", "human", "bot"]


# -- a three-seat table: rematch, leaving, a restart ------------------------------------------
PEOPLE = ["p0", "p1", "p2"]


def three_seat_table(service: TableService, **rules) -> str:
    seats = [SeatRow(s, "human", PEOPLE[s], f"P{s}", "🦊") for s in range(3)]
    return service.create_seated(seats, Rules(players=3, partners=False, **rules),
                                 {"kind": "friends", "level": "easy", "humans": 3}, host=PEOPLE[0])


def moves(service: TableService, code: str, n: int, rng: random.Random) -> None:
    """``n`` moves, each by the person to act (the easy bot's choice), deals included."""
    for _ in range(n):
        v = service.snapshot(code, None).view.to_json()
        if v["finished"]:
            return
        if v["phase"] == "hand_over":
            for p in PEOPLE:
                if service.snapshot(code, None).view.to_json()["phase"] != "hand_over":
                    break
                service.act(code, Player(p), "deal", service.snapshot(code, p).view.to_json()["version"])
            continue
        person = PEOPLE[v["to_act"]]
        sv = service.snapshot(code, person).view.to_json()
        service.act(code, Player(person), bots.choose(sv, "easy", rng.randrange(1 << 30)), sv["version"])


def test_rematch_and_leaving_at_a_three_seat_table(service):
    code = three_seat_table(service, end="hands", hands=1, tempo="untimed")
    moves(service, code, 200, random.Random(5))
    assert service.snapshot(code, None).view.to_json()["finished"]
    with pytest.raises(Exception, match="no partner to choose"):
        service.handle(code, Player("p0"), Rematch(service.snapshot(code, "p0").view.to_json()["version"], partner=1))
    snap = service.handle(code, Player("p0"), Rematch(service.snapshot(code, "p0").view.to_json()["version"]))
    state = load_state(service.store, code)
    assert state.match_number == 2 and state.match.rules == Rules(players=3, partners=False, end="hands", hands=1,
                                                                  tempo="untimed")
    assert len(snap.view.to_json()["scores"]) == 3 and len(state.match.cards(0)) == 17
    # the host leaves: a bot takes the seat, and the host passes to the left (seat 1)
    service.handle(code, Player("p0"), Leave())
    state = load_state(service.store, code)
    assert state.row.seats[0].kind == "bot" and state.row.host == "p1"


def test_a_three_seat_table_resumes_after_a_restart_at_the_exact_card(app, tmp_path):
    path = str(tmp_path / "restart.db")
    first, store = service_on(path, "r")
    code = three_seat_table(first, tempo="untimed", jokers="none", bidding_variant="whiz")
    moves(first, code, 3 + 20, random.Random(9))  # the bids and 20 cards: mid-hand, mid-trick
    before = {p: first.snapshot(code, p).view.to_json() for p in PEOPLE}
    assert before["p0"]["phase"] == "playing" and before["p0"]["trick"]["cards"]
    first.close()
    store.close()
    second, store = service_on(path)
    try:
        second.resume_all()
        after = {p: second.snapshot(code, p).view.to_json() for p in PEOPLE}
        for p in PEOPLE:
            for key in ("hand", "trick", "version", "to_act", "bids", "taken", "legal", "rules", "sides"):
                assert after[p][key] == before[p][key], (p, key)
        assert after["p0"]["rules"]["bidding"] == "whiz" and after["p0"]["rules"]["players"] == 3
        moves(second, code, 5, random.Random(1))  # and it plays on
        assert second.snapshot(code, None).view.to_json()["version"] == before["p0"]["version"] + 5
    finally:
        second.close()
        store.close()


def test_a_bid_above_13_at_a_three_seat_table_is_taken_and_comes_back_after_a_restart(tmp_path):
    """Bids go to 17 with three players: a person's bid of 15 is accepted (not refused as
    notation) and the stored bid is read back when the table is loaded again."""
    path = str(tmp_path / "high.db")
    first, store = service_on(path, "h")
    code = three_seat_table(first, tempo="untimed")
    person = PEOPLE[first.snapshot(code, None).view.to_json()["to_act"]]
    view = first.snapshot(code, person).view.to_json()
    assert 15 in view["legal"]
    first.act(code, Player(person), "15", view["version"])
    assert first.snapshot(code, None).view.to_json()["bids"].count(15) == 1
    first.close()
    store.close()
    second, store = service_on(path)
    try:
        second.resume_all()
        assert second.snapshot(code, None).view.to_json()["bids"].count(15) == 1
    finally:
        second.close()
        store.close()


def test_chat_and_watching_at_a_three_seat_table(service):
    from spades.tables.commands.talk import Say
    code = three_seat_table(service, tempo="untimed")
    service.handle(code, Player("p1"), Say("good luck"))
    lines = service.store.chat_lines(code)
    assert [(x.text, x.name) for x in lines][-1:] == [("good luck", "P1")]
    watcher = service.snapshot(code, "someone").view.to_json()  # no seat: a watcher sees no hand
    assert watcher["hand"] is None and len(watcher["bids"]) == 3
    assert len(service.snapshot(code, "p2").view.to_json()["hand"]) == 17


def test_late_joiners_take_any_bot_seat_at_cutthroat(service):
    seats = [SeatRow(0, "human", "p0", "P0", "🦊"), SeatRow(1, "bot", None, "Rex", "🤖"),
             SeatRow(2, "bot", None, "Kit", "🤖")]
    code = service.create_seated(seats, Rules(players=3, partners=False, tempo="untimed"),
                                 {"kind": "friends", "level": "easy", "humans": 3}, host="p0")
    assert service.handle(code, Player("p1"), Join("P1", "🐼")).seat == 1
    assert service.handle(code, Player("p2"), Join("P2", "🐨")).seat == 2


# -- the rules line and /rules ----------------------------------------------------------------
def test_the_rules_line_links_to_rules_showing_the_tables_house_rules(client):
    code = new_table(client, humans=2, preset="cutthroat-3")
    page = client.get(f"/g/{code}").get_data(as_text=True)
    line = text_of(re.search(r'<p class="rules-line">(.*?)</p>', page, re.S).group(1))
    assert "Cutthroat for 3" in line
    url = html_lib.unescape(re.search(r'class="rules-link" href="([^"]+)"', page).group(1))
    assert "preset=cutthroat-3" in url
    rules = client.get(url)
    assert rules.status_code == 200
    shown = text_of(rules.get_data(as_text=True))
    assert "The rules at this table" in shown and "Cutthroat for 3" in shown
    assert "Three players: the" in shown and "17 cards each" in shown and "Cutthroat: everyone plays alone" in shown
    assert "each player's contract is their own bid" in shown
    one_by_one = client.get("/rules?preset=custom&partners=on&bidding=whiz&ten_for_200=on")
    shown = text_of(one_by_one.get_data(as_text=True))
    assert "whiz bidding · 10-for-200" in shown and "Whiz: bid nil or exactly your spades." in shown
    bad = client.get("/rules?preset=custom&players=3&partners=on")
    assert bad.status_code == 400 and "partners must be false with 3 players" in bad.get_data(as_text=True)


def test_rules_explains_each_house_rule_with_its_worked_example(client):
    page = client.get("/rules").get_data(as_text=True)
    house = text_of(page[page.index('id="house"'):page.index('id="options"')])
    for heading in ("Three players", "Cutthroat (no partners)", "Jokers", "Whiz bidding", "Mirror bidding",
                    "Suicide bidding", "Minimum bid", "10-for-200", "Spades led any time"):
        assert f">{heading}</h3>" in house
    assert "leaving 51 cards: 17 each, 17 tricks a hand, and a bid is 1 to 17" in house
    assert 'data-card="2C"' in house
    assert "you bid 4 and take 6: <strong>+42</strong> and 2 bags of your own" in house
    trumps = re.findall(r'data-card="(\w\w)"', house[house.index("<strong>JJDD</strong>"):house.index("down to")])
    assert trumps[2:8] == ["BJ", "LJ", "2D", "2S", "AS", "KS"]  # after the two cards taken out
    assert "you hold 4 spades: you bid nil or 4" in house
    assert "your partner bid 1, so you must bid at least 3" in house
    assert "bids 10 and takes 11: <strong>+201</strong> (1 bag). Bid 10 and take 9: <strong>-200</strong>" in house
    assert "Spades may be led from the first trick on" in house


def test_the_bidding_examples_on_rules_are_what_the_engine_allows():
    """Minimum bid 4: the partner bid 1, so the second bidder of the team bids 3 or more, or
    nil; whiz: nil or exactly the spades held."""
    from spades.rules import Match, parse_action
    match = Match(Rules(min_bid=4), "house-example")
    first = match.to_act
    match.apply(first, parse_action("1"))
    match.apply(match.to_act, parse_action("2"))  # the other team's first bidder
    second = match.to_act
    assert Rules().shape.partner(second) == first
    assert sorted({a.value for a in match.legal_actions(second)}) == [0] + list(range(3, 14))
    whiz = Match(Rules(bidding_variant="whiz"), "house-example")
    seat = whiz.to_act
    spades = whiz.rules.shape.trump_count(sum(1 << c for c in whiz.cards(seat)))
    assert sorted({a.value for a in whiz.legal_actions(seat)}) == sorted({0, spades})


def test_in_the_browser_a_preset_sets_the_switches_and_a_switch_makes_it_one_by_one(live_server, browser):
    from playwright.sync_api import expect
    page = browser.new_context().new_page()
    try:
        page.goto(live_server + "/new")
        page.select_option("select[name=preset]", "jjdd")
        expect(page.locator("input[name=jokers][value=jjdd]")).to_be_checked()
        expect(page.locator("select[name=min_bid]")).to_have_value("4")
        expect(page.locator("input[name=ten_for_200]")).to_be_checked()
        page.locator("details.house-switches summary").click()
        page.locator("label:has(input[name=spades_lead][value=any])").click()
        expect(page.locator("select[name=preset]")).to_have_value("custom")
        page.get_by_label("Your name").fill("Hana")
        page.locator("label:has(input[name=humans][value='2'])").click()
        page.get_by_role("button", name="Create the table").click()
        page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        expect(page.locator("#room .rules-line")).to_contain_text(
            "jokers (JJDD) · minimum bid 4 · 10-for-200 · spades led any time")
    finally:
        page.context.close()
