"""The site over HTTP: the practice flow, refusals with their reasons, and no 500s."""

from __future__ import annotations

import json
import random
import re
import time
from email.utils import parsedate_to_datetime

import pytest
from conftest import csrf_of, start_practice
from helpers.web import HX, move, to_my_card_turn, view

from spades.tables import load_state


def test_home_page_offers_practice_with_every_option(client):
    html = client.get("/").get_data(as_text=True)
    for text in ('value="easy"', 'value="hard"', 'value="slow"', 'value="fast"', 'value="target-200"',
                 'value="target-500" selected', 'value="hands-11"', 'name="bag_penalty"', 'name="blind_nil"'):
        assert text in html


def test_practice_starts_a_match_with_bea_across_and_rex_left(client, service):
    code = start_practice(client, name="Ann")
    assert re.fullmatch(r"[A-Z2-9]{6}", code)
    service.wait_idle()
    html = client.get(f"/g/{code}").get_data(as_text=True)
    # the page is drawn from seat 0's side (its plate at the bottom, by CSS: tests/test_browser_seats.py)
    assert 'class="status-private from-0 us-0' in html
    names = dict(re.findall(r'id="plate-(\d)".*?class="plate-name">(\w+)', html, re.S))
    assert names == {"0": "Ann", "1": "Rex", "2": "Bea", "3": "Kit"}
    cards = re.findall(r'<button class="card[^"]*" name="action" value="(\w\w)"', html)
    assert len(cards) == 13 and cards == view(client, code)["hand"]  # sorted by suit, as the view says
    assert 'ws-connect="/g/' + code + '/ws"' in html


def test_bidding_a_card_and_the_stale_double_submit(client, service):
    code = start_practice(client)
    v = to_my_card_turn(client, service, code, random.Random(0))
    card = v["legal"][0]
    r = move(client, code, card, v["version"])
    assert r.status_code == 200 and 'hx-swap-oob="true"' in r.get_data(as_text=True)
    again = move(client, code, card, v["version"])
    assert again.status_code == 409
    body = again.get_data(as_text=True)
    assert "The table has moved on" in body and 'id="hand"' in body  # the message and the current table
    plain = move(client, code, card, v["version"], htmx=False)
    assert plain.status_code == 303
    assert "The table has moved on" in client.get(f"/g/{code}").get_data(as_text=True)


def test_an_illegal_card_is_refused_with_its_reason(client, service):
    code = start_practice(client)
    rng = random.Random(5)
    for _ in range(13):
        v = to_my_card_turn(client, service, code, rng)
        illegal = [c for c in v["hand"] if c not in v["legal"]]
        if illegal:
            break
        move(client, code, rng.choice(v["legal"]), v["version"])
    else:
        pytest.skip("no illegal card with this seed")  # pragma: no cover
    r = move(client, code, illegal[0], v["version"])
    assert r.status_code == 422
    assert re.search(r"You must follow suit: \w+ were led and you hold a \w+\."
                     r"|Spades are not broken yet: lead another suit\.",
                     r.get_data(as_text=True))
    assert view(client, code) == v  # nothing changed
    plain = move(client, code, illegal[0], v["version"], htmx=False)
    assert plain.status_code == 303
    page = client.get(f"/g/{code}").get_data(as_text=True)
    assert 'role="alert"' in page and ("follow suit" in page or "not broken" in page)


def test_hint_shows_the_hard_bots_bid(client, service):
    code = start_practice(client)
    service.wait_idle()
    v = view(client, code)
    r = client.post(f"/g/{code}/hint", data={"csrf": csrf_of(client), "version": v["version"]}, headers=HX)
    assert r.status_code == 200
    said = re.search(r"The Hard bot would bid (\w+): ([^<]+)\.<", r.get_data(as_text=True))
    assert said, r.get_data(as_text=True)  # the bid, and why in a few words
    hand = {c[1]: [x[0] for x in v["hand"] if x[1] == c[1]] for c in v["hand"]}
    for reason in said.group(2).replace(" and ", ", ").split(", "):
        if reason[0] in "♠♥♦♣":  # a card named as a reason is in the hand
            assert reason[1] in hand.get("SHDC"["♠♥♦♣".index(reason[0])], []), (reason, v["hand"])


def test_blind_nil_choice_comes_first_and_no_card_is_sent_before_it(client, service):
    code = start_practice(client, blind_nil="on")
    service.wait_idle()
    v = view(client, code)
    assert v["hand"] is None and v["can_look"]
    cards = load_state(service.store, code).match.cards(0)
    page = client.get(f"/g/{code}").get_data(as_text=True)
    assert "Look at my cards" in page and "data-card" not in page.split('id="hand"')[1].split("</section>")[0]
    for c in cards:
        assert f'"{c}"' not in page and f'"{c}"' not in json.dumps(v)
    assert 'value="blind_nil"' in page  # it is this seat's turn: Blind nil is offered
    r = move(client, code, "look", v["version"])
    assert r.status_code == 200
    assert sorted(view(client, code)["hand"]) == sorted(str(c) for c in cards)


def test_a_whole_short_match_score_table_continue_chart_record_and_rematch(client, service):
    code = start_practice(client, end="hands-5")
    rng = random.Random(7)
    saw_score_table = False
    while True:
        assert service.wait_idle()
        v = view(client, code)
        if v["finished"]:
            break
        if v["phase"] == "hand_over":
            page = client.get(f"/g/{code}").get_data(as_text=True)
            assert "Contract points" in page and "Bag penalty" in page and ">Continue<" in page
            saw_score_table = True
            assert move(client, code, "deal", v["version"]).status_code == 200
            continue
        action = "3" if v["phase"] == "bidding" else rng.choice(v["legal"])
        assert move(client, code, action, v["version"]).status_code == 200
    assert saw_score_table
    page = client.get(f"/g/{code}").get_data(as_text=True)
    assert "<svg" in page and "Score by hand" in page and ">Rematch<" in page
    assert "won the match" in page or "A draw" in page
    assert f'href="/g/{code}/replay"' in page and f'href="/g/{code}/record"' in page  # look back at it
    record = client.get(f"/g/{code}/record.json")
    assert record.headers["Content-Disposition"].startswith("attachment")
    rec = record.get_json()
    assert rec["format"] == "spades-match/1" and len(rec["hands"]) >= 5
    assert all(len(d) == 13 for d in rec["hands"][0]["deal"])  # complete once over
    r = client.post(f"/g/{code}/rematch", data={"csrf": csrf_of(client), "version": v["version"]}, headers=HX)
    assert r.status_code == 200
    assert view(client, code)["hand_number"] == 1 and not view(client, code)["finished"]


def test_record_while_running_holds_only_my_cards(client, service):
    code = start_practice(client)
    service.wait_idle()
    rec = client.get(f"/g/{code}/record.json").get_json()
    deal = rec["hands"][0]["deal"]
    assert len(deal[0]) == 13 and all(len(deal[s]) == 0 for s in (1, 2, 3))


def test_unknown_code_is_a_friendly_404(client):
    for path in ("/g/ZZZZZZ", "/g/bad!code", "/g/ZZZZZZ/record.json", "/nowhere"):
        r = client.get(path)
        assert r.status_code == 404
        assert "Back to the home page" in r.get_data(as_text=True) or path.endswith(".json")


def test_a_stranger_sees_no_cards_and_cannot_move(app, client, service):
    code = start_practice(client)
    service.wait_idle()
    stranger = app.test_client()
    page = stranger.get(f"/g/{code}").get_data(as_text=True)
    assert "data-card" not in page.split('id="felt"')[0] + page.split('id="hand"')[1]
    r = move(stranger, code, "3", view(client, code)["version"])
    assert r.status_code == 403 and "no seat" in r.get_data(as_text=True)


@pytest.mark.parametrize("data", [
    {},
    {"action": "QS"},
    {"action": "QS", "version": "abc"},
    {"action": "QS", "version": "-1"},
    {"action": "ZZ", "version": "0"},
    {"action": "x" * 5000, "version": "0"},
    {"action": "", "version": "0"},
    {"action": "99", "version": "0"},
    {"action": "blind_nil", "version": "0"},
    {"action": "bid", "bid": "", "version": "0"},
    {"action": "rematch", "version": "99999999999999999999"},
])
def test_garbage_moves_get_a_400_or_a_refusal_never_a_500(client, service, data):
    code = start_practice(client)
    service.wait_idle()
    now = str(view(client, code)["version"])
    data = {k: now if v == "0" else v for k, v in data.items()}  # current: refused for the garbage, not as stale
    r = client.post(f"/g/{code}/act", data={"csrf": csrf_of(client), **data}, headers=HX)
    assert r.status_code in (400, 422), r.get_data(as_text=True)
    assert r.get_data(as_text=True).strip()


def test_posts_without_the_csrf_token_are_refused(client):
    r = client.post("/practice", data={"level": "easy"})
    assert r.status_code == 400 and "expired" in r.get_data(as_text=True)
    code = start_practice(client)
    assert client.post(f"/g/{code}/act", data={"action": "3", "version": "0", "csrf": "wrong"}).status_code == 400


@pytest.mark.parametrize("field,value", [("level", "godlike"), ("speed", "warp"), ("end", "target-1"), ("end", "")])
def test_bad_practice_options_are_a_400_with_a_message(client, field, value):
    data = {"csrf": csrf_of(client), "level": "easy", "speed": "slow", "end": "hands-5", field: value}
    r = client.post("/practice", data=data)
    assert r.status_code == 400 and "Choose" in r.get_data(as_text=True)


def test_an_unexpected_error_renders_a_friendly_page(app, client, monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("kaboom")

    monkeypatch.setattr("spades.web.rooms.lobby.render_template", boom)
    r = client.get("/")
    assert r.status_code == 500 and "kaboom" not in r.get_data(as_text=True)
    assert "Something went wrong on our side" in r.get_data(as_text=True)


def test_every_fragment_carries_the_stamp_that_orders_updates(client, service):
    code = start_practice(client)
    service.wait_idle()
    v = view(client, code)
    r = move(client, code, "bid", v["version"], bid="3")
    now = view(client, code)["version"]
    stamps = re.findall(r'id="([\w-]+)" data-v="(\d+)"', r.get_data(as_text=True))
    names = {name for name, _ in stamps}  # every fragment, public and this seat's own
    assert names == {"turn", "status", "scores", "plate-0", "plate-1", "plate-2", "plate-3", "trick", "result",
                     "lasttrick", "sheet", "told", "hand", "next"}
    # match 1: 100000 + the version the answer was drawn at (bots may have moved on since)
    assert all(100000 + v["version"] < int(stamp) <= 100000 + now for _, stamp in stamps)


def test_a_blind_nil_bidder_cannot_read_their_cards_in_the_record_before_looking(client, service):
    code = start_practice(client, blind_nil="on")
    service.wait_idle()
    v = view(client, code)
    assert v["hand"] is None and v["can_look"]
    record = client.get(f"/g/{code}/record.json").get_json()
    assert record["hands"][-1]["deal"][0] == []  # not one card of seat 0 before it looks
    r = client.post(f"/g/{code}/act", data={"csrf": csrf_of(client), "action": "look", "version": v["version"]})
    assert r.status_code == 303
    mine = view(client, code)["hand"]
    assert sorted(client.get(f"/g/{code}/record.json").get_json()["hands"][-1]["deal"][0]) == sorted(mine)


@pytest.mark.parametrize("mode", ["no_bidding", "bidding"])
def test_at_a_tourney_table_only_legal_cards_can_be_tapped(client, service, mode):
    from helpers.lobby import new_table

    code = new_table(client, humans=1, mode=mode)
    rng = random.Random(5)
    for _ in range(200):
        assert service.wait_idle()
        v = view(client, code)
        if v["to_act"] != 0:
            continue
        if v["phase"] == "bidding":
            client.post(f"/g/{code}/act", data={"csrf": csrf_of(client), "action": "3", "version": v["version"]})
            continue
        illegal = [c for c in v["hand"] if c not in v["legal"]]
        if illegal:
            break
        client.post(f"/g/{code}/act", data={"csrf": csrf_of(client), "action": rng.choice(v["legal"]),
                                             "version": v["version"]})
    else:
        raise AssertionError("no turn with a card that cannot be played came up")
    page = client.get(f"/g/{code}").get_data(as_text=True)
    buttons = {c: re.search(rf'<button[^>]*data-card="{c}"[^>]*>', page).group(0) for c in v["hand"]}
    assert all("disabled" not in buttons[c] for c in v["legal"])
    assert all(("disabled" in buttons[c]) == (mode == "no_bidding") for c in illegal)
    assert all('class="card' in buttons[c] and " dim" in buttons[c] for c in illegal)  # and still dimmed


def test_the_home_page_offers_the_way_back_to_a_table_once(client, service):
    code = start_practice(client)
    assert service.wait_idle()
    client.get(f"/g/{code}")  # the table's page: the home page remembers it
    home = client.get("/").get_data(as_text=True)
    assert home.count(f'href="/g/{code}"') == 1


def test_pages_name_their_icon_and_it_is_served(client):
    icon = re.search(r'<link rel="icon" href="([^"]+)"', client.get("/").get_data(as_text=True)).group(1)
    r = client.get(icon)
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and b"<svg" in r.data


def test_a_persons_pages_and_fragments_are_never_stored_the_public_ones_may_be(app, client, service):
    assert "no-store" not in client.get("/").headers.get("Cache-Control", "")  # a new visitor's home page
    code = start_practice(client)
    for path in ("/", f"/g/{code}/chat", "/new", f"/j/{code}", "/turns", "/games", "/t"):
        r = client.get(path)
        assert r.status_code < 400 and r.headers.get("Cache-Control") == "no-store", path
    for path in ("/rules", "/fairness", "/sw.js"):
        assert "no-store" not in client.get(path).headers.get("Cache-Control", ""), path


def session_cookie_days(response) -> float | None:
    """How many days from now the session cookie set by ``response`` lasts (None: not set)."""
    for header in response.headers.getlist("Set-Cookie"):
        if header.startswith("session="):
            expires = re.search(r"Expires=([^;]+)", header).group(1)
            return (parsedate_to_datetime(expires).timestamp() - time.time()) / 86400
    return None


def test_the_session_cookie_lasts_as_long_as_an_unused_session_from_its_last_day_of_use(client):
    r = client.post("/practice", data={"csrf": csrf_of(client), "level": "easy", "speed": "fast",
                                       "end": "target-500"})
    assert r.status_code == 303 and 29.9 < session_cookie_days(r) <= 30  # SESSION_IDLE_DAYS, not 400 days
    assert session_cookie_days(client.get("/rules")) is None  # not signed again with every answer ...
    with client.session_transaction() as s:
        s["day"] -= 1  # ... but on a new day of use
    assert 29.9 < session_cookie_days(client.get("/rules")) <= 30
    assert session_cookie_days(client.get("/rules")) is None


def test_a_practice_table_offers_no_watch_link_nor_watching_switch_a_friends_table_does(app, client, service):
    from helpers.lobby import join, new_table, post

    code = start_practice(client)
    service.wait_idle()
    page = client.get(f"/g/{code}").get_data(as_text=True)
    assert "Watch link" not in page and f'href="/g/{code}/watch"' not in page  # one person with bots
    assert "Watching on: turn off" not in page and f'action="/g/{code}/watching"' not in page
    assert f'href="/g/{code}/record"' in page  # the rest of the top bar stays
    hana, ann = app.test_client(), app.test_client()
    friends = new_table(hana, humans=2, name="Hana")
    join(ann, friends, "Ann")
    post(hana, friends, "start")
    service.wait_idle()
    host = hana.get(f"/g/{friends}").get_data(as_text=True)
    assert f'href="/g/{friends}/watch"' in host and "Watching on: turn off" in host
    other = ann.get(f"/g/{friends}").get_data(as_text=True)
    assert f'href="/g/{friends}/watch"' in other and "Watching on: turn off" not in other  # the host's switch


def test_the_sealed_deal_is_said_in_plain_words_with_its_check_and_its_hash_last(app, client, service):
    from helpers.lobby import new_table

    def sentences(html: str) -> list[str]:
        return re.findall(r'<p class="fair-deal[^"]*">(.*?)</p>', html, re.S)

    code = start_practice(client)
    service.wait_idle()
    commitment = service.snapshot(code, None).around.deal_commitment
    [sheet] = sentences(client.get(f"/g/{code}").get_data(as_text=True))
    assert sheet.startswith("This hand's deal is sealed before anyone bids; "
                            '<a href="/fairness">check it afterwards</a>.'), sheet
    assert f"<code>{commitment}</code>" in sheet and "committed" not in sheet
    while (v := view(client, code))["phase"] != "hand_over":  # to the end of the hand: the next deal's words
        assert move(client, code, "3" if v["phase"] == "bidding" else v["legal"][0], v["version"]).status_code == 200
        service.wait_idle()
    upcoming = service.snapshot(code, None).around.next_commitment
    page = client.get(f"/g/{code}").get_data(as_text=True)
    [following] = [s for s in sentences(page) if upcoming in s]
    assert following.startswith("The next hand's deal is sealed before anyone bids") and "committed" not in following
    room = sentences(app.test_client().get(f"/g/{new_table(app.test_client(), humans=2)}").get_data(as_text=True))
    for said in [sheet, following, *room]:
        assert "check it afterwards" in said and not re.search(r"</code>\s*[.;:,]", said), said  # the hash ends it
