"""Clocks on the pages: the deadline in the fragments, the timeout told in words, Take
over, Leave for good and the closing beacon. Time is a fake clock the tests move."""

from __future__ import annotations

import re

import pytest
from conftest import FakeClock, csrf_of, open_ws, start_practice
from watch import watch

from spades.tables import EMOJIS, BidMade, Player
from spades.web.table.render import render_public


@pytest.fixture
def clock(service):
    fake = FakeClock()
    service.clock = fake  # the service reads its time source on every use
    return fake


def post(client, code: str, what: str, **data):
    return client.post(f"/g/{code}/{what}", data={"csrf": csrf_of(client), **data})


@pytest.fixture
def table(app, service, clock):
    """Hana (the host, seat 0) and Ann (across, seat 2) at a fast-tempo table with two bots."""
    host, ann = app.test_client(), app.test_client()
    r = host.post("/new", data={"csrf": csrf_of(host), "name": "Hana", "emoji": EMOJIS[0], "humans": "2",
                                "mode": "bidding", "end": "target-500", "bag_penalty": "on", "tempo": "fast",
                                "level": "easy", "speed": "fast"})
    code = r.headers["Location"].rsplit("/", 1)[1]
    assert ann.post(f"/j/{code}", data={"csrf": csrf_of(ann), "name": "Ann", "emoji": EMOJIS[1]}).status_code == 303
    assert post(host, code, "start").status_code == 303
    service.wait_idle()
    return code, host, ann


def pid(service, code: str, seat: int) -> str:
    return service.seats(code)[seat].player_id


def play_until(service, clock, code: str, done, time_out: tuple[int, ...] = (2,)) -> None:
    """Hana moves at once on her turns; the seats in ``time_out`` let their clocks run out."""
    for _ in range(300):
        assert service.wait_idle()
        if done():
            return
        v = service.snapshot(code, pid(service, code, 0)).view.to_json()
        seat = v["to_act"]
        if seat in time_out:
            clock.now = service.snapshot(code, None).around.clock[1]  # the deadline every seat sees
            service.wake()
        elif seat == 0:
            service.act(code, Player(pid(service, code, 0)), 3 if v["phase"] == "bidding" else v["legal"][0],
                        v["version"])
    raise AssertionError("it never happened")


def test_the_turn_fragment_carries_the_seat_to_act_and_the_servers_deadline_and_now(table, service, clock):
    code, host, ann = table
    play_until(service, clock, code, lambda: service.snapshot(code, None).view.to_json()["to_act"] == 2, time_out=())
    html = host.get(f"/g/{code}").get_data(as_text=True)
    turn = re.search(r'<i id="turn"[^>]*>', html).group(0)
    seat, deadline, now, seconds = map(int, re.search(
        r'data-seat="(\d)" data-deadline="(\d+)" data-now="(\d+)" data-seconds="(\d+)"', turn).groups())
    assert (seat, deadline - now, seconds) == (2, 25_000, 25)  # a fast tempo's bid, in epoch milliseconds
    assert html.count("data-deadline") == 1  # the ring goes round seat 2's avatar (tests/test_browser_clock.py)


def test_practice_pages_have_no_clock(client):
    code = start_practice(client)
    assert "data-deadline" not in client.get(f"/g/{code}").get_data(as_text=True)


def test_a_timeout_is_told_and_three_put_ann_on_autopilot_until_she_takes_over(app, table, service, clock):
    code, host, ann = table
    pushed = []  # what Hana's page is sent, as her WebSocket would render it
    watch(service, code, pid(service, code, 0), pushed.append)
    autopilot = lambda: service.seat_clock(code, 2).autopilot  # noqa: E731
    play_until(service, clock, code, autopilot)
    with app.app_context():
        told = [render_public(s).fill(("status",)) for s in pushed if s.around.event.by_clock]
    assert len(told) == 3
    assert "Ann&#39;s time ran out: the table bid " in told[0]
    assert "Ann&#39;s time ran out: the table played the " in told[1]
    assert "Three in a row: a bot plays for Ann until they take over." in told[2]
    page = ann.get(f"/g/{code}").get_data(as_text=True)
    assert "Take over" in page and "a bot is playing for you" in page
    assert "bot playing" in host.get(f"/g/{code}").get_data(as_text=True)
    r = ann.post(f"/g/{code}/takeover", data={"csrf": csrf_of(ann)}, headers={"HX-Request": "true"})
    assert r.status_code == 200 and "Take over" not in r.get_data(as_text=True)
    assert not autopilot()


def test_leave_for_good_hands_the_seat_to_a_bot_and_tells_the_partner(table, service):
    code, host, ann = table
    assert "Leave for good" in ann.get(f"/g/{code}").get_data(as_text=True)
    r = post(ann, code, "leave-table")
    assert r.status_code == 303 and r.headers["Location"] == "/"
    page = host.get(f"/g/{code}").get_data(as_text=True)
    assert "Your partner Ann left the table: a bot plays their seat from now on." in page
    assert "left · bot playing" in page
    assert service.seats(code)[2].kind == "bot"
    mine = ann.get(f"/g/{code}").get_data(as_text=True)
    assert "data-card" not in re.search(r'<section id="hand".*?</section>', mine, re.S).group(0)
    assert "Leave for good" not in mine


def test_the_closing_beacon_takes_the_csrf_token_as_a_form_field(table, service, clock):
    code, host, ann = table
    close = watch(service, code, pid(service, code, 2), lambda snap: None)  # Ann's page is open
    assert ann.post(f"/g/{code}/closing", data={}).status_code == 400
    assert service.store.holds(code) == {}
    assert ann.post(f"/g/{code}/closing", data={"csrf": csrf_of(ann)}).status_code == 204
    close()  # then its socket closes: the short hold
    assert service.store.holds(code)[2][:2] == (clock.now, clock.now + 10)


def test_closing_the_last_socket_holds_the_seat_and_everyone_sees_it(live_server, table, service):
    from simple_websocket import Client

    code, host, ann = table

    def socket(client) -> Client:
        return open_ws(live_server, code, client.get_cookie("session").value)

    watcher = socket(host)
    try:
        watcher.receive(timeout=5)
        mine = socket(ann)
        mine.receive(timeout=5)
        mine.close()
        pushed = ""
        while "presence-away" not in pushed:  # pushed to Hana once the server notices
            pushed = watcher.receive(timeout=10)
            assert pushed is not None, "no push"
        plate = re.search(r'data-seat="2".*?</div>', pushed, re.S).group(0)
        assert "presence-away" in plate and 2 in service.store.holds(code)
    finally:
        watcher.close()


def test_a_message_to_you_stays_until_you_act_or_put_it_away(table, service, clock):
    code, host, ann = table
    ann_pid = pid(service, code, 2)
    status = lambda: re.search(r'<div id="status".*?(?=<section id="felt")',  # noqa: E731
                               ann.get(f"/g/{code}").get_data(as_text=True), re.S).group(0)
    # Ann's bid, made by the table, is the last of the bidding (this seed): in the play
    # that follows it is no longer news, though nobody put it away
    play_until(service, clock, code, lambda: service.seat_clock(code, 2).timeouts_in_row >= 1)
    snap = service.snapshot(code, ann_pid)
    assert snap.view.to_json()["phase"] == "playing" and isinstance(snap.notice, BidMade)
    assert "Your time ran out" not in status()
    # a card the table played for her is told until she acts or puts it away
    play_until(service, clock, code, lambda: service.snapshot(code, None).view.to_json()["to_act"] == 2, time_out=())
    v = service.snapshot(code, ann_pid).view.to_json()
    service.act(code, Player(ann_pid), v["legal"][0], v["version"])  # her own move: the count starts again
    play_until(service, clock, code, lambda: service.seat_clock(code, 2).timeouts_in_row >= 1
               and service.snapshot(code, None).view.to_json()["to_act"] != 2)
    assert "Your time ran out: the table played" in status()
    for _ in range(50):  # the others move on; the message to Ann stays
        assert service.wait_idle()
        v = service.snapshot(code, ann_pid).view.to_json()
        if v["to_act"] == 2:
            break
        if v["to_act"] == 0:
            mine = service.snapshot(code, pid(service, code, 0)).view.to_json()
            service.act(code, Player(pid(service, code, 0)), 3 if mine["phase"] == "bidding" else mine["legal"][0],
                        mine["version"])
    assert service.snapshot(code, ann_pid).around.event.seat != 2  # the last move was someone else's
    assert "Your time ran out" in status()
    r = ann.post(f"/g/{code}/dismiss", data={"csrf": csrf_of(ann)}, headers={"HX-Request": "true"})
    assert r.status_code == 200 and "Your time ran out" not in r.get_data(as_text=True)
    assert "Your time ran out" not in status()
