"""Play with friends over HTTP: a new table with every option, joining by link or typed
code, the room (partner, remove, leave, start), invitations by mail, and every refusal."""

from __future__ import annotations

import re

import pytest
from conftest import csrf_of, open_ws, start_practice
from helpers.lobby import A_EMOJI, B_EMOJI, HOST_EMOJI, join, members, new_table, post
from watch import watch

from spades.tables import EMOJIS, Announced, load_state, seat_plan


@pytest.fixture
def friends(app):
    """Three browsers: the host and two friends."""
    return app.test_client(), app.test_client(), app.test_client()


# -- the seating rule -----------------------------------------------------------------------
@pytest.mark.parametrize("order,partner,expected", [
    ([1], None, {1: 0}),
    ([1, 2, 3], None, {1: 0}),  # teams not set: only the host has a seat
    ([1, 2, 3], 3, {1: 0, 3: 2, 2: 1}),  # the partner across, the other beside a bot
    ([1, 2, 3, 4], 2, {1: 0, 2: 2, 3: 1, 4: 3}),
    ([1, 2, 3, 4], 4, {1: 0, 4: 2, 2: 1, 3: 3}),
    ([1, 2, 3], 0, {1: 0, 2: 1, 3: 3}),  # a bot partner: both friends on the other team
    ([3, 1, 2], 2, {3: 0, 2: 2, 1: 1}),  # a new host (the role passed on) sits in seat 0
    ([1, 2, 3, 4], 0, {1: 0, 2: 1, 3: 3}),  # more people than seats: the last gets none
])
def test_seat_plan(order, partner, expected):
    assert seat_plan(order, partner) == expected


# -- create ---------------------------------------------------------------------------------
def test_one_person_plays_at_once_with_the_options_chosen(client, service):
    code = new_table(client, humans=1, mode="no_bidding", end="hands-9", set_scores_zero="on", bag_penalty="")
    assert service.status(code) == "playing"
    rules = load_state(service.store, code).match.rules
    assert (rules.mode, rules.end, rules.hands, rules.set_scores_zero, rules.bag_penalty, rules.tempo) == \
        ("no_bidding", "hands", 9, True, False, "off")
    page = client.get(f"/g/{code}").get_data(as_text=True)
    assert 'id="felt"' in page and HOST_EMOJI in page


def test_a_room_shows_code_link_qr_and_invite_box_and_keeps_every_option(client, service):
    code = new_table(client, humans=3, mode="no_bidding", end="target-250", blind_nil="on", tempo="fast",
                     level="hard", speed="slow")
    assert re.fullmatch(r"[A-HJKMNP-Z2-9]{6}", code)
    page = client.get(f"/g/{code}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert f"/j/{code}" in html and "<svg" in html and 'name="emails"' in html and 'id="room"' in html
    assert "Start the game" in html and "Hana" in html
    assert 'ws-connect="/g/' + code + '/ws"' in html
    snap = service.room_snapshot(code, None)
    assert snap.rules["mode"] == "no_bidding" and snap.rules["target"] == 250 and snap.rules["blind_nil"]
    assert snap.rules["tempo"] == "fast" and snap.rules["play_speed"] == "slow" and snap.level == "hard"


@pytest.mark.parametrize("field,value,message", [
    ("humans", "5", "1 to 4"), ("mode", "poker", "bidding"), ("end", "target-1000", "match ends"),
    ("tempo", "blitz", "tempo"), ("level", "godlike", "level"), ("speed", "warp", "speed"),
    ("name", "", "Choose a name"), ("name", "x" * 21, "too long"), ("name", "\x07\u202e", "Choose a name"),
    ("name", "Bad\ue000", "letters"),
    ("emoji", "💩", "emoji offered"), ("emoji", "", "emoji offered"),
])
def test_bad_new_table_options_are_refused_with_a_message(client, field, value, message):
    data = {"csrf": csrf_of(client), "name": "Hana", "emoji": HOST_EMOJI, "humans": "3", "mode": "bidding",
            "end": "target-500", "tempo": "normal", "level": "easy", "speed": "fast", field: value}
    r = client.post("/new", data=data)
    assert r.status_code == 400 and message in r.get_data(as_text=True)


# -- join -----------------------------------------------------------------------------------
def test_join_by_link_and_by_typed_code_then_partner_start_and_seats(friends, service):
    host, a, b = friends
    code = new_table(host)
    form = a.get(f"/j/{code}")
    assert form.status_code == 200 and "Hana" in form.get_data(as_text=True)  # who invites
    assert join(a, code, "Ari", A_EMOJI).status_code == 303
    typed = b.get(f"/j?code={code.lower()[:3]} {code.lower()[3:]}")  # case and a space do not matter
    assert typed.status_code == 200 and f'action="/j/{code}"' in typed.get_data(as_text=True)
    assert join(b, code, "Bo", B_EMOJI).status_code == 303
    html = host.get(f"/g/{code}").get_data(as_text=True)
    numbers = members(html)
    assert list(numbers) == ["Hana", "Ari", "Bo"]  # in join order
    assert post(host, code, "partner", member=numbers["Bo"]).status_code == 303
    html = a.get(f"/g/{code}").get_data(as_text=True)
    assert "Bo is the host&#39;s partner." in html and "Other team" in html
    assert "Start the game" not in html  # not the host: no controls
    assert post(host, code, "start").status_code == 303
    assert [(s.kind, s.name, s.emoji) for s in service.seats(code)] == [
        ("human", "Hana", HOST_EMOJI), ("human", "Ari", A_EMOJI), ("human", "Bo", B_EMOJI), ("bot", "Kit", "🤖")]
    assert a.get(f"/g/{code}/view.json").get_json()["seat"] == 1
    assert b.get(f"/g/{code}/view.json").get_json()["seat"] == 2
    # the same browser joining again goes back to its seat
    again = a.get(f"/j/{code}")
    assert again.status_code == 303 and again.headers["Location"].endswith(f"/g/{code}")
    assert join(a, code, "Ari", A_EMOJI).headers["Location"].endswith(f"/g/{code}")
    assert a.get(f"/g/{code}/view.json").get_json()["seat"] == 1


def test_joining_after_the_teams_are_set_takes_the_other_teams_open_seat(app, friends, service):
    host, a, b = friends
    code = new_table(host, humans=4)
    join(a, code, "Ari")
    numbers = members(host.get(f"/g/{code}").get_data(as_text=True))
    post(host, code, "partner", member=numbers["Ari"])
    join(b, code, "Bo", B_EMOJI)
    c = app.test_client()
    join(c, code, "Cy", EMOJIS[3])
    seats = {m.name: m.seat for m in service.room_snapshot(code, None).members}
    assert seats == {"Hana": 0, "Ari": 2, "Bo": 1, "Cy": 3}


def test_joining_twice_from_one_browser_keeps_one_place_and_updates_the_name(friends, service):
    host, a, _ = friends
    code = new_table(host)
    join(a, code, "Ari")
    r = join(a, code, "Ariel", EMOJIS[5])
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/g/{code}")
    assert [(m.name, m.emoji) for m in service.room_snapshot(code, None).members][1:] == [("Ariel", EMOJIS[5])]
    assert a.get(f"/j/{code}").status_code == 303  # the link takes a member back to the room


def test_the_join_form_is_prefilled_from_the_player_row(friends):
    host, a, _ = friends
    code = new_table(host)
    join(a, code, "Ari", EMOJIS[7])
    other = new_table(host)
    html = a.get(f"/j/{other}").get_data(as_text=True)
    assert 'value="Ari"' in html and f'value="{EMOJIS[7]}" checked' in html


def test_names_are_escaped(friends):
    host, a, _ = friends
    code = new_table(host)
    assert join(a, code, "<b>Ari</b>").status_code == 303
    html = host.get(f"/g/{code}").get_data(as_text=True)
    assert "<b>Ari</b>" not in html and "&lt;b&gt;Ari&lt;/b&gt;" in html


@pytest.mark.parametrize("name,emoji,message", [
    ("", A_EMOJI, "Choose a name"), ("   ", A_EMOJI, "Choose a name"), ("x" * 21, A_EMOJI, "too long"),
    ("Ari\nBo", A_EMOJI, None), ("\u200b\x00", A_EMOJI, "Choose a name"), ("Ari\ue000", A_EMOJI, "letters"),
    ("Ari", "X", "emoji offered"), ("Ari", "", "emoji offered"), ("Ari", A_EMOJI + A_EMOJI, "emoji offered"),
])
def test_bad_names_and_emoji_are_refused(friends, service, name, emoji, message):
    host, a, _ = friends
    code = new_table(host)
    r = join(a, code, name, emoji)
    if message is None:  # a newline is whitespace: collapsed, not refused
        assert r.status_code == 303 and service.room_snapshot(code, None).members[1].name == "Ari Bo"
        return
    assert r.status_code == 400 and message in r.get_data(as_text=True)
    assert len(service.room_snapshot(code, None).members) == 1


# -- refusals -------------------------------------------------------------------------------
def test_a_wrong_code_is_a_clear_404(client):
    for path in ("/j/ZZZZZZ", "/j?code=ZZZZZZ", "/j?code=", "/j/bad!code"):
        r = client.get(path)
        assert r.status_code == 404, path
        assert "There is no table with that code" in r.get_data(as_text=True)
    r = join(client, "ZZZZZZ", "Ari")
    assert r.status_code == 404 and "no table with that code" in r.get_data(as_text=True)


def test_a_finished_table_says_so(friends, service):
    host, a, _ = friends
    code = new_table(host, humans=1)
    service.store.db.execute("UPDATE tables SET status = 'finished' WHERE code = ?", [code])
    service.store.db.conn.commit()
    r = a.get(f"/j/{code}")
    assert r.status_code == 410 and "match at this table is over" in r.get_data(as_text=True)


def test_a_full_table_says_so_and_offers_to_create_one(friends):
    host, a, b = friends
    code = new_table(host, humans=2)
    join(a, code, "Ari")
    for r in (b.get(f"/j/{code}"), join(b, code, "Bo", B_EMOJI)):
        html = r.get_data(as_text=True)
        assert r.status_code == 409 and "This table is full" in html and 'href="/new"' in html


def test_a_late_joiner_takes_a_bots_seat_on_the_other_team_and_then_the_table_is_full(app, friends, service):
    host, a, b = friends
    code = new_table(host, humans=3)
    join(a, code, "Ari")
    post(host, code, "start")  # Hana in seat 0, Ari across, bots in seats 1 and 3
    assert service.wait_idle()  # the bots wait for a person's turn: their cards stay as they are
    told = []
    watch(service, code, service.seats(code)[0].player_id, lambda snap: told.append(snap.around.event))
    bots_cards = sorted(str(c) for c in load_state(service.store, code).match.cards(1))
    form = b.get(f"/j/{code}")
    assert form.status_code == 200 and "The game has started" in form.get_data(as_text=True)
    r = join(b, code, "Bo", B_EMOJI)
    assert r.status_code == 303 and r.headers["Location"] == f"/g/{code}"
    mine = b.get(f"/g/{code}/view.json").get_json()
    assert mine["seat"] == 1 and sorted(mine["hand"]) == bots_cards  # that seat's cards, at once
    assert [(s.kind, s.name) for s in service.seats(code)][1] == ("human", "Bo")
    assert Announced(1, "join") in told  # the table is told
    assert "Bo joined the table" in host.get(f"/g/{code}").get_data(as_text=True)
    late = app.test_client()  # three people now, as the table was made for: no seat for a fourth
    r = late.get(f"/j/{code}")
    html = r.get_data(as_text=True)
    assert r.status_code == 409 and "You can watch the game" in html and f'href="/g/{code}/watch"' in html
    assert join(late, code, "Cy", EMOJIS[3]).status_code == 409


def test_a_bot_partner_leaves_two_seats_for_friends(app, friends, service):
    host, a, b = friends
    code = new_table(host, humans=4)
    join(a, code, "Ari")
    join(b, code, "Bo", B_EMOJI)
    c = app.test_client()
    join(c, code, "Cy", EMOJIS[3])
    r = post(host, code, "partner", member="bot")
    assert r.status_code == 400 and "pick one of them as your partner" in r.get_data(as_text=True)
    post(host, code, "remove", member=members(host.get(f"/g/{code}").get_data(as_text=True))["Cy"])
    assert post(host, code, "partner", member="bot").status_code == 303
    assert join(app.test_client(), code, "Di", EMOJIS[4]).status_code == 409  # three is the most now
    post(host, code, "start")
    assert [s.kind for s in service.seats(code)] == ["human", "human", "bot", "human"]


def test_host_controls_are_checked_on_the_server(friends, service):
    host, a, b = friends
    code = new_table(host)
    join(a, code, "Ari")
    join(b, code, "Bo", B_EMOJI)
    numbers = members(host.get(f"/g/{code}").get_data(as_text=True))
    for what, data in (("start", {}), ("partner", {"member": numbers["Bo"]}), ("partner", {"member": "bot"}),
                       ("remove", {"member": numbers["Bo"]})):
        r = post(a, code, what, **data)
        assert r.status_code == 403 and "Only the host" in r.get_data(as_text=True), what
    stranger = post(host.application.test_client(), code, "start")
    assert stranger.status_code == 403
    snap = service.room_snapshot(code, None)
    assert snap.status == "waiting" and snap.partner is None and len(snap.members) == 3


def test_the_host_removes_a_joiner_who_cannot_come_back(friends, service):
    host, a, b = friends
    code = new_table(host)
    join(a, code, "Ari")
    join(b, code, "Bo", B_EMOJI)
    numbers = members(host.get(f"/g/{code}").get_data(as_text=True))
    post(host, code, "partner", member=numbers["Ari"])
    assert post(host, code, "remove", member=numbers["Ari"]).status_code == 303
    snap = service.room_snapshot(code, None)
    assert [m.name for m in snap.members] == ["Hana", "Bo"] and snap.partner is None  # teams to be set again
    for r in (a.get(f"/g/{code}"), a.get(f"/j/{code}"), join(a, code, "Ari")):
        assert r.status_code == 403 and "removed you" in r.get_data(as_text=True)
    r = post(host, code, "remove", member=numbers["Hana"])
    assert r.status_code == 400 and "leave the room instead" in r.get_data(as_text=True)
    assert post(host, code, "start").status_code == 303  # a seat is left for a late joiner, not for Ari
    for r in (a.get(f"/j/{code}"), join(a, code, "Ari")):
        assert r.status_code == 403 and "removed you" in r.get_data(as_text=True)


def test_when_the_host_leaves_the_role_passes_to_the_next_by_join_order(friends, service):
    host, a, b = friends
    code = new_table(host)
    join(a, code, "Ari")
    join(b, code, "Bo", B_EMOJI)
    post(host, code, "partner", member=members(host.get(f"/g/{code}").get_data(as_text=True))["Bo"])
    r = post(host, code, "leave")
    assert r.status_code == 303 and r.headers["Location"].endswith("/")
    snap = service.room_snapshot(code, None)
    assert [(m.name, m.host) for m in snap.members] == [("Ari", True), ("Bo", False)] and snap.partner is None
    assert "Start the game" in a.get(f"/g/{code}").get_data(as_text=True)
    assert post(host, code, "start").status_code == 403  # the old host has no say any more
    assert post(a, code, "start").status_code == 303
    seats = service.seats(code)
    assert [s.name for s in seats] == ["Ari", "Rex", "Bo", "Kit"]  # without a choice: the first to join across
    assert host.get(f"/j/{code}").status_code == 200  # started without them: a bot's seat is theirs to take


def test_the_last_one_out_closes_the_room(friends, service):
    host, a, _ = friends
    code = new_table(host)
    post(host, code, "leave")
    assert service.status(code) == "closed"
    r = a.get(f"/j/{code}")
    assert r.status_code == 410 and "closed" in r.get_data(as_text=True)
    assert a.get(f"/g/{code}").status_code == 404


def test_join_attempts_are_rate_limited(client):
    codes = [f"ZZZZ{a}{b}" for a in "ABCDE" for b in "ABCDE"]
    answers = [client.get(f"/j/{c}").status_code for c in codes[:21]]
    assert answers[:20] == [404] * 20 and answers[20] == 429
    r = client.get("/j?code=ABCDEF")
    assert r.status_code == 429 and "Too many join attempts" in r.get_data(as_text=True)
    for path in ("/g/ZZZZZZ", "/g/ZZZZZZ/view.json", "/g/ZZZZZZ/record.json"):
        assert client.get(path).status_code == 429  # no way round the limit


def test_unknown_codes_on_table_pages_count_toward_the_join_limit(client):
    assert [client.get(f"/g/ZZZZZ{c}/view.json").status_code for c in "ABCDEFGHJK"] == [404] * 10
    assert [client.get(f"/g/ZZZZZ{c}").status_code for c in "ABCDEFGHJK"] == [404] * 10
    assert client.get("/j/ZZZZZZ").status_code == 429


@pytest.mark.parametrize("ask", ["hint", "closing", "ws"])
def test_unknown_codes_asked_of_a_hint_the_closing_notice_or_the_socket_count_too(app, client, ask):
    csrf = csrf_of(client)
    start_practice(client)  # a browser with an identity, as the socket's handshake wants

    def knock(code: str) -> int:
        if ask == "ws":  # the upgrade request, answered before any upgrade
            return client.get(f"/g/{code}/ws", headers={"Origin": "http://localhost", "Connection": "Upgrade",
                                                        "Upgrade": "websocket"}).status_code
        return client.post(f"/g/{code}/{ask}", data={"csrf": csrf}).status_code

    assert [knock(f"ZZZZZ{c}") for c in "ABCDEFGHJK"] == [404] * 10
    assert [client.get(f"/g/ZZZZY{c}").status_code for c in "ABCDEFGHJK"] == [404] * 10  # one counter
    assert knock("ZZZZZX") == 429


def test_posts_without_csrf_are_refused(friends):
    host, a, _ = friends
    code = new_table(host)
    csrf_of(a)
    for path in (f"/j/{code}", "/new", f"/g/{code}/start", f"/g/{code}/partner", f"/g/{code}/leave",
                 f"/g/{code}/invite", f"/g/{code}/remove"):
        r = a.post(path, data={"name": "Ari", "emoji": A_EMOJI, "member": "1", "emails": "x@example.com"})
        assert r.status_code == 400 and "expired" in r.get_data(as_text=True), path
    r = host.post(f"/g/{code}/start", data={"csrf": "forged"})
    assert r.status_code == 400


# -- live -----------------------------------------------------------------------------------
def test_the_room_is_pushed_live_to_everyone_in_it(live_server, friends, service):
    host, a, _ = friends
    code = new_table(host)
    ws = open_ws(live_server, code, host.get_cookie("session").value)
    try:
        first = ws.receive(timeout=5)
        assert 'id="room"' in first and "Hana" in first and "Ari" not in first
        join(a, code, "Ari")
        pushed = ws.receive(timeout=5)
        assert "Ari" in pushed and 'hx-swap-oob="true"' in pushed and 'value="' in pushed  # with the host's controls
        post(host, code, "start")
        started = ws.receive(timeout=5)
        assert f'data-go="/g/{code}"' in started
    finally:
        ws.close()


# -- at the table and after -----------------------------------------------------------------
def test_a_rematch_with_a_new_partner_over_http(friends, service):
    host, a, b = friends
    code = new_table(host, humans=3, mode="no_bidding", end="hands-5")
    join(a, code, "Ari")
    join(b, code, "Bo", B_EMOJI)
    post(host, code, "partner", member=members(host.get(f"/g/{code}").get_data(as_text=True))["Ari"])
    post(host, code, "start")
    # play the match out quickly: everyone plays their first legal card, the host deals at once
    people = {0: host, 2: a, 1: b}
    while True:
        assert service.wait_idle()
        v = host.get(f"/g/{code}/view.json").get_json()
        if v["finished"]:
            break
        if v["phase"] == "hand_over":
            assert post(host, code, "act", action="deal_now", version=v["version"]).status_code == 303
            continue
        seat = v["to_act"]
        if seat in people:
            mine = people[seat].get(f"/g/{code}/view.json").get_json()
            post(people[seat], code, "act", action=mine["legal"][0], version=mine["version"])
    page = host.get(f"/g/{code}").get_data(as_text=True)
    offered = re.findall(r'name="partner" value="(\d)"[^>]*><span>([^<]+)</span>', page)
    assert offered == [("2", "Ari (again)"), ("1", "Bo"), ("3", "Kit")]
    assert "to start a rematch" in a.get(f"/g/{code}").get_data(as_text=True)
    r = a.post(f"/g/{code}/rematch", data={"csrf": csrf_of(a), "version": v["version"]}, headers={"HX-Request": "1"})
    assert r.status_code == 403 and "Only the host" in r.get_data(as_text=True)
    r = host.post(f"/g/{code}/rematch", data={"csrf": csrf_of(host), "version": v["version"], "partner": "1"})
    assert r.status_code == 303
    assert b.get(f"/g/{code}/view.json").get_json()["seat"] == 2  # Bo is the new partner
    assert a.get(f"/g/{code}/view.json").get_json()["seat"] == 1  # everyone came along
    assert host.get(f"/g/{code}/view.json").get_json()["hand_number"] == 1


def test_the_host_changes_the_options_before_the_first_deal_and_everyone_sees_them(friends, service):
    host, a, _ = friends
    code = new_table(host, humans=3, level="easy", tempo="normal", end="target-500")
    join(a, code, "Ari")
    form = {"mode": "bidding", "end": "hands-5", "bag_penalty": "", "blind_nil": "on", "tempo": "relaxed",
            "level": "hard", "speed": "fast"}
    assert post(a, code, "options", **form).status_code == 403  # only the host
    assert post(host, code, "options", **{**form, "end": "hands-6"}).status_code == 400  # not an option
    assert post(host, code, "options", **form).status_code == 303
    seen = a.get(f"/g/{code}").get_data(as_text=True)
    assert "Hard bots · fast play · relaxed tempo · 5 hands · blind nil" in seen
    assert "Change the options" not in seen  # the form is the host's
    snap = service.room_snapshot(code, None)
    assert snap.level == "hard" and snap.rules["end"] == "hands" and snap.rules["blind_nil"]
    assert post(host, code, "start").status_code == 303
    rules = load_state(service.store, code).match.rules
    assert (rules.end, rules.hands, rules.blind_nil, rules.bag_penalty, rules.tempo) == ("hands", 5, True, False,
                                                                                       "relaxed")
    assert post(host, code, "options", **form).status_code == 409  # dealt: too late


def test_friends_may_choose_to_play_without_a_clock(friends, service):
    host, a, _ = friends
    code = new_table(host, humans=2, level="easy", tempo="untimed", end="target-500")
    assert 'value="untimed" checked' in host.get(f"/g/{code}").get_data(as_text=True)  # the room's options
    join(a, code, "Ari")
    assert "Easy bots · fast play · no clock · to 500" in a.get(f"/g/{code}").get_data(as_text=True)
    form = {"mode": "bidding", "end": "target-500", "bag_penalty": "on", "tempo": "fast", "level": "easy",
            "speed": "normal"}
    assert post(host, code, "options", **form).status_code == 303
    assert post(host, code, "options", **{**form, "tempo": "untimed"}).status_code == 303  # and back again
    assert post(host, code, "start").status_code == 303
    assert load_state(service.store, code).match.rules.tempo == "untimed"
    page = a.get(f"/g/{code}").get_data(as_text=True)
    assert "no clock" in page and 'class="clock"' not in page and 'class="ring"' not in page
