"""Turn-based tables with an injected clock (nobody sleeps through a day) and a real SMTP
server: whom a table waits on, the "your turn" mails (once per person per hour, listing
every table waiting on them), the 80% warning once, a missed move played by a bot and
the seat taken back, the wait for Continue between hands, the limit of 20 tables, a
person who closes the page on their turn told once after the grace (kept over a
restart), and the link that stops the mails (one press, or a mail program's one-click)."""

from __future__ import annotations

import itertools
import re

import pytest
from conftest import FakeClock, csrf_of
from helpers.auth import sign_in
from helpers.clocks import settle
from helpers.lobby import join, new_table, post
from pools import ManualPool

from spades.mail import Mailer
from spades.notices import Notices, unsubscribe_token
from spades.rules_config import Rules
from spades.storage import PutAway, PutTurns, SeatRow, Store, Waiting
from spades.tables import (
    EMOJIS,
    MAX_TURN_TABLES,
    Connected,
    Continue,
    Disconnected,
    Player,
    Resume,
    Server,
    TableService,
    TakeOver,
)

HOUR, DAY = 3600.0, 86400.0
NAMES = ("Ann", "Bo", "Cy", "Di")
BASE = "https://spades.example"


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def pool():
    return ManualPool()


@pytest.fixture
def store(tmp_path):
    store = Store(str(tmp_path / "t.db"))
    for i, name in enumerate(NAMES):
        store.sign_in(f"{name.lower()}@example.com", f"u-{name.lower()}", None, name, EMOJIS[i], 0.0)
    return store


@pytest.fixture
def svc(store, pool, clock):
    seeds = (f"turn-test-{n}" for n in itertools.count())
    service = TableService(store, pool=pool, play_delays={"slow": 9.0, "normal": 9.0, "fast": 9.0}, clock=clock,
                           new_seed=lambda: next(seeds))
    yield service
    service.close()


@pytest.fixture
def notices(store, smtp, clock):
    host, port = smtp.config()["SPADES_SMTP_HOST"], smtp.config()["SPADES_SMTP_PORT"]
    return Notices(store, Mailer(host=host, port=int(port)), "secret", BASE, clock=clock)


def person(seat: int) -> Player:
    return Player(f"u-{NAMES[seat].lower()}")


def table(svc: TableService, tempo: str = "hours-12", people: int = 4) -> str:
    seats = [SeatRow(s, "human", person(s).id, NAMES[s], EMOJIS[s]) if s < people else
             SeatRow(s, "bot", None, f"Bot{s}", "🤖") for s in range(4)]
    options = {"kind": "friends", "humans": people, "rules": {"tempo": tempo}}
    return svc.create_seated(seats, Rules(tempo=tempo), options, host=person(0).id)


def to_act(svc: TableService, code: str) -> int:
    return svc.snapshot(code, None).view.to_json()["to_act"]


def move(svc: TableService, code: str) -> None:
    seat = to_act(svc, code)
    v = svc.snapshot(code, person(seat).id).view.to_json()
    svc.act(code, person(seat), 3 if v["phase"] == "bidding" else v["legal"][0], v["version"])


def until_turn(svc: TableService, pool: ManualPool, code: str, seat: int) -> None:
    """The others move (and press Continue between hands) until it is ``seat``'s turn."""
    for _ in range(100):
        settle(svc, pool)
        v = svc.snapshot(code, None).view.to_json()
        if v["phase"] == "hand_over":
            for s in range(4):
                if s != seat:
                    svc.handle(code, person(s), Continue())
            svc.handle(code, person(seat), Continue())
        elif v["to_act"] == seat:
            return
        else:
            move(svc, code)
    raise AssertionError("that turn never came")


def mails_to(smtp, name: str) -> list:
    return [m for m in smtp.messages if f"{name.lower()}@example.com" in m.rcpt_tos]


def test_a_table_waits_on_one_person_and_bots_move_at_once(svc, pool, clock):
    code = table(svc, people=2)
    settle(svc, pool)
    seat = to_act(svc, code)
    assert seat in (0, 1)  # the bots (2 and 3) moved at once, whatever the play speed
    [wait] = svc.store.turns_of(code)
    assert (wait.person, wait.seat, wait.deadline) == (person(seat).id, seat, clock.now + 12 * HOUR)
    assert [t.code for t in svc.store.waiting_on(person(seat).id)] == [code]
    assert svc.store.waiting_on(person(1 - seat).id) == []


def test_three_days_of_mails_warnings_a_missed_move_and_the_seat_taken_back(svc, pool, clock, notices, smtp):
    a, b = table(svc), table(svc)
    settle(svc, pool)
    notices.tick()
    first = {code: to_act(svc, code) for code in (a, b)}
    for seat in first.values():
        mine = [code for code, s in first.items() if s == seat]
        [mail] = mails_to(smtp, NAMES[seat])[-1:]
        assert all(f"Table {c}" in mail.text for c in mine) and "/notices/off/" in mail.text
        assert "♠" not in mail.text and not re.search(r"\b[2-9TJQKA][SHDC]\b", mail.text)  # never a card
    sent = len(smtp.messages)
    notices.tick()
    assert len(smtp.messages) == sent  # told once

    # the person to act at table a moves; the next one is told, once an hour at most
    clock.now += 10 * 60
    mover = to_act(svc, a)
    move(svc, a)
    settle(svc, pool)
    nxt = to_act(svc, a)
    assert nxt != mover
    before = len(mails_to(smtp, NAMES[nxt]))
    notices.tick()
    told_already = any(first[c] == nxt for c in (a, b))  # mailed in the last hour: waits for the next one
    assert len(mails_to(smtp, NAMES[nxt])) == before + (0 if told_already else 1)
    if told_already:
        clock.now += HOUR
        notices.tick()
        assert len(mails_to(smtp, NAMES[nxt])) == before + 1

    # 80% of the 12 hours: one warning, once
    clock.now += 9.7 * HOUR
    notices.tick()
    warnings = [m for m in mails_to(smtp, NAMES[nxt]) if "left at table" in m.message["Subject"]]
    assert len(warnings) == 1 and a in warnings[0].message["Subject"]
    notices.tick()
    assert len([m for m in mails_to(smtp, NAMES[nxt]) if "left at table" in m.message["Subject"]]) == 1

    # the time runs out: a bot (Normal) plays the move and the person keeps the seat
    version = svc.snapshot(a, None).view.to_json()["version"]
    clock.now += 3 * HOUR
    settle(svc, pool)
    pool.run_all()
    settle(svc, pool)
    view = svc.snapshot(a, None)
    assert view.view.to_json()["version"] > version and view.around.kinds[nxt] == "human"
    assert svc.snapshot(a, person(nxt).id).notice is not None  # told that the table moved for them

    # three missed moves in a row: a bot plays until they take over
    for _ in range(2):
        until_turn(svc, pool, a, nxt)
        clock.now += 12 * HOUR + 1
        settle(svc, pool)
        pool.run_all()
        settle(svc, pool)
    assert svc.seat_clock(a, nxt).autopilot
    svc.handle(a, person(nxt), TakeOver())
    assert not svc.seat_clock(a, nxt).autopilot
    until_turn(svc, pool, a, nxt)
    move(svc, a)  # their own move, from the seat they took back
    assert svc.seat_clock(a, nxt).timeouts_in_row == 0

    # on to the third day: someone moves every few hours, the notices tick every half hour;
    # nobody ever gets two "your turn" mails within an hour
    start, when = clock.now, {name: [] for name in NAMES}
    for step in range(int(1.5 * DAY // (HOUR / 2))):
        clock.now += HOUR / 2
        settle(svc, pool)
        pool.run_all()
        if step % 5 == 0:
            for code in (a, b):
                v = svc.snapshot(code, None).view.to_json()
                if v["phase"] in ("bidding", "playing") and v["to_act"] is not None:
                    move(svc, code)
                elif v["phase"] == "hand_over":
                    svc.handle(code, person(step // 5 % 4), Continue())
        seen = {name: len(mails_to(smtp, name)) for name in NAMES}
        notices.tick()
        for name in NAMES:
            for m in mails_to(smtp, name)[seen[name]:]:
                if m.message["Subject"].startswith("Your turn"):
                    when[name].append(clock.now)
    assert clock.now - FakeClock().now >= 3 * DAY and clock.now - start >= DAY
    assert sum(len(w) for w in when.values()) >= 4
    for name, times in when.items():
        assert all(later - earlier >= HOUR for earlier, later in zip(times, times[1:])), name


class Pushes(list):
    """The push notices sent, as (person, title, url)."""

    def __call__(self, person: str, title: str, body: str, url: str) -> int:
        self.append((person, title, url))
        return 1


def turn_with_the_page_open(svc: TableService, pool: ManualPool, clock, notices) -> str:
    """A table for Ann alone (bots in the other seats): her first wait told, her page
    opened, an hour on, her move made: the new wait begins with her page open. Its code."""
    code = table(svc, people=1)
    settle(svc, pool)
    notices.tick()  # her first wait began with no page open: told at once
    svc.handle(code, person(0), Connected())
    clock.now += HOUR
    move(svc, code)
    until_turn(svc, pool, code, 0)
    [wait] = svc.store.turns_of(code)
    assert not wait.notify
    return code


def your_turn_mails(smtp, name: str) -> list:
    return [m for m in mails_to(smtp, name) if m.message["Subject"].startswith("Your turn")]


def test_a_person_who_closes_the_page_on_their_turn_is_told_once_after_two_minutes(svc, pool, clock, smtp):
    pushes = Pushes()
    notices = Notices(svc.store, Mailer(host=smtp.host, port=int(smtp.port)), "secret", BASE, push=pushes,
                      clock=clock)
    code = turn_with_the_page_open(svc, pool, clock, notices)
    mailed, pushed = len(your_turn_mails(smtp, "Ann")), len(pushes)
    notices.tick()
    assert (len(your_turn_mails(smtp, "Ann")), len(pushes)) == (mailed, pushed)  # her page is open: nothing

    svc.handle(code, person(0), Disconnected())  # she closes the tab, on her turn
    clock.now += 119
    notices.tick()
    assert (len(your_turn_mails(smtp, "Ann")), len(pushes)) == (mailed, pushed)  # within the grace
    clock.now += 2
    notices.tick()
    [mail] = your_turn_mails(smtp, "Ann")[mailed:]
    assert mail.message["Subject"] == f"Your turn at table {code}" and f"{BASE}/g/{code}" in mail.text
    assert pushes[pushed:] == [(person(0).id, f"Your turn at {code}", f"{BASE}/g/{code}")]

    # once per wait: back and away again, nothing more
    svc.handle(code, person(0), Connected())
    svc.handle(code, person(0), Disconnected())
    clock.now += 10 * 60
    notices.tick()
    assert (len(your_turn_mails(smtp, "Ann")), len(pushes)) == (mailed + 1, pushed + 1)


def test_back_within_the_grace_is_told_nothing(svc, pool, clock, notices, smtp):
    code = turn_with_the_page_open(svc, pool, clock, notices)
    mailed = len(mails_to(smtp, "Ann"))
    svc.handle(code, person(0), Disconnected())
    clock.now += 90
    svc.handle(code, person(0), Connected())  # a reload, a tab put back
    clock.now += HOUR
    notices.tick()
    assert len(mails_to(smtp, "Ann")) == mailed


def test_the_hourly_rule_holds_for_a_person_who_closed_the_page(svc, pool, clock, notices, smtp):
    code = turn_with_the_page_open(svc, pool, clock, notices)
    other = table(svc, people=1)  # a second table waits on Ann, who has no page of it open
    settle(svc, pool)
    notices.tick()
    assert len(your_turn_mails(smtp, "Ann")) == 2 and f"Table {other}:" in your_turn_mails(smtp, "Ann")[-1].text
    svc.handle(code, person(0), Disconnected())
    clock.now += 10 * 60
    notices.tick()
    assert len(your_turn_mails(smtp, "Ann")) == 2  # mailed ten minutes ago: the next mail waits for the hour
    clock.now += HOUR
    notices.tick()
    [mail] = your_turn_mails(smtp, "Ann")[2:]
    assert mail.message["Subject"] == "Your turn at 2 tables" and f"{BASE}/g/{code}" in mail.text


def test_the_time_away_is_kept_over_a_restart(svc, pool, clock, notices, smtp, store):
    code = turn_with_the_page_open(svc, pool, clock, notices)
    svc.handle(code, person(0), Disconnected())  # she closes the tab; then the process stops
    svc.close()
    mailed = len(your_turn_mails(smtp, "Ann"))
    again = TableService(store, pool=pool, clock=clock)
    try:
        clock.now += 121
        Notices(store, notices.mailer, "secret", BASE, clock=clock).tick()
        [mail] = your_turn_mails(smtp, "Ann")[mailed:]
        assert f"{BASE}/g/{code}" in mail.text
    finally:
        again.close()


def test_a_page_open_as_the_process_stopped_counts_as_closed_from_the_restart(store, svc, pool, clock, notices,
                                                                                smtp):
    code = turn_with_the_page_open(svc, pool, clock, notices)
    svc.close()  # stopped with her page open: no word of its closing ever comes
    mailed = len(your_turn_mails(smtp, "Ann"))
    again = TableService(store, pool=pool, clock=clock)
    try:
        again.handle(code, Server(), Resume())
        clock.now += 119
        notices.tick()
        assert len(your_turn_mails(smtp, "Ann")) == mailed  # her page may yet come back
        clock.now += 2
        notices.tick()
        [mail] = your_turn_mails(smtp, "Ann")[mailed:]
        assert f"{BASE}/g/{code}" in mail.text
    finally:
        again.close()


def test_between_hands_the_table_waits_for_continue_or_the_moves_time(svc, pool, clock):
    code = table(svc, people=2, tempo="days-1")
    settle(svc, pool)
    while svc.snapshot(code, None).view.to_json()["phase"] != "hand_over":
        move(svc, code)
        settle(svc, pool)
    waits = {t.person: t for t in svc.store.turns_of(code)}
    assert set(waits) == {person(0).id, person(1).id}
    assert all(t.deadline == clock.now + DAY for t in waits.values())
    svc.handle(code, person(0), Continue())
    assert [t.person for t in svc.store.turns_of(code)] == [person(1).id]
    clock.now += DAY + 1
    settle(svc, pool)
    assert svc.snapshot(code, None).view.to_json()["phase"] == "bidding"  # dealt when the time ran out


def test_a_twenty_first_turn_based_table_is_refused(svc, store):
    for _ in range(MAX_TURN_TABLES):
        table(svc, people=1)
    assert svc.at_turn_limit(person(0).id)
    assert not svc.at_turn_limit(person(1).id)


def test_the_link_in_the_mail_asks_for_a_press_and_a_forged_one_is_refused(app, client):
    store = app.extensions["spades.tables"].store
    store.sign_in("eve@example.com", "u-eve", None, "Eve", EMOJIS[0], 0.0)
    token = unsubscribe_token(app.config["SECRET_KEY"], "u-eve")
    r = client.get(f"/notices/off/{token}")  # a visit (or a mail scanner following the link) changes nothing
    page = r.get_data(as_text=True)
    assert r.status_code == 200 and "Stop the turn mails?" in page and f'action="/notices/off/{token}"' in page
    assert store.mail_prefs("u-eve")[0] is False
    r = client.post(f"/notices/off/{token}")  # the button: no CSRF token needed, the link is signed
    assert r.status_code == 200 and "No more turn mails" in r.get_data(as_text=True)
    assert store.mail_prefs("u-eve")[0] is True
    for forged in (token[:-2] + "xx", unsubscribe_token("another secret", "u-eve"), "nonsense"):
        for r in (client.get(f"/notices/off/{forged}"), client.post(f"/notices/off/{forged}")):
            assert r.status_code == 400 and "This link is not valid" in r.get_data(as_text=True)


def test_a_mail_programs_one_click_turns_the_mails_off_without_a_session(app):
    store = app.extensions["spades.tables"].store
    store.sign_in("eve@example.com", "u-eve", None, "Eve", EMOJIS[0], 0.0)
    token = unsubscribe_token(app.config["SECRET_KEY"], "u-eve")
    stranger = app.test_client()  # no cookie, no CSRF token: as a mail program posts (RFC 8058)
    r = stranger.post(f"/notices/off/{token}", data={"List-Unsubscribe": "One-Click"})
    assert r.status_code == 200 and store.mail_prefs("u-eve")[0] is True
    r = stranger.post("/me/notices", data={"mail": "on"})  # the site's other forms still need the token
    assert r.status_code == 400 and store.mail_prefs("u-eve")[0] is True


@pytest.fixture
def app_config():
    return {"FRIENDS_TABLES_PER_PERSON": "100 per hour", "FRIENDS_TABLES_PER_ADDRESS": "100 per hour"}


def test_the_twenty_first_turn_based_table_is_refused_with_the_reason(app, client):
    codes = [new_table(client, humans=2, tempo="days-3") for _ in range(MAX_TURN_TABLES)]
    home = client.get(f"/g/{codes[0]}").get_data(as_text=True)
    assert "3 days a move" in home
    r = client.post("/new", data={"csrf": csrf_of(client), "name": "Hana", "emoji": EMOJIS[0], "humans": "2",
                                  "mode": "bidding", "end": "target-500", "tempo": "hours-12", "level": "easy",
                                  "speed": "fast"})
    assert r.status_code == 409 and "20 turn-based tables already" in r.get_data(as_text=True)
    assert new_table(client, humans=2, tempo="normal")  # a table played at once is still fine
    other = app.test_client()
    busy = [new_table(other, humans=2, tempo="untimed") for _ in range(MAX_TURN_TABLES)]
    r = join(other, codes[1], "Ola")
    assert r.status_code == 409 and "20 turn-based tables already" in r.get_data(as_text=True)
    assert busy


def test_the_table_page_says_how_long_the_person_has(app, client):
    code = new_table(client, humans=2, name="Hana", tempo="hours-12")
    ann = app.test_client()
    join(ann, code, "Ann")
    post(client, code, "start")
    service = app.extensions["spades.tables"]
    service.wait_idle()
    pages = [c.get(f"/g/{code}").get_data(as_text=True) for c in (client, ann)]
    told = [p for p in pages if re.search(r"Your turn to bid\. You have (12|11) hours for this move\.", p)]
    assert len(told) == 1  # the person to bid; the other waits
    assert 'class="turn-count"' in told[0] and not re.search(r'class="turn-count"[^>]*hidden', told[0])
    assert all(re.search(r'class="presence move-left"[^>]*>(12|11) hours left<', p) for p in pages)


def test_the_profile_turns_the_mails_off_and_on_for_a_signed_in_person(app, client, smtp):
    app.config.update(smtp.config())
    store = app.extensions["spades.tables"].store
    r = client.post("/me/notices", data={"csrf": csrf_of(client), "mail": "off"})
    assert r.status_code == 403 and "Sign in" in r.get_data(as_text=True)
    sign_in(client, smtp, "zed@example.com")
    assert "Stop these mails" in client.get("/me").get_data(as_text=True)
    assert client.post("/me/notices", data={"csrf": csrf_of(client), "mail": "off"}).status_code == 303
    with client.session_transaction() as s:
        uid = s["uid"]
    assert store.mail_prefs(uid)[0] is True and "Mail me when it is my turn" in client.get("/me").get_data(as_text=True)
    client.post("/me/notices", data={"csrf": csrf_of(client), "mail": "on"})
    assert store.mail_prefs(uid)[0] is False
    r = client.post("/me/notices", data={"csrf": csrf_of(client), "mail": "maybe"})
    assert r.status_code == 400


def test_the_time_away_is_stored_with_the_wait_on_either_engine(database):
    store = Store(database)
    wait = Waiting("u-ann", 0, "1/7", 1000.0, 2000.0, False)
    store.commit([PutTurns("ABCDEF", (wait,))])
    assert store.notices_due(away_by=5000.0) == []  # her page is open
    store.commit([PutAway("ABCDEF", "u-ann", 1100.0)])
    store.commit([PutAway("ABCDEF", "u-ann", 1150.0)])  # the first closing stands
    store.commit([PutTurns("ABCDEF", (wait,))])  # the same wait stored again keeps it
    assert store.notices_due(away_by=1099.0) == []
    [due] = store.notices_due(away_by=1100.0)
    assert (due.person, due.away) == ("u-ann", 1100.0)
    store.commit([PutAway("ABCDEF", "u-ann", None), PutAway("ABCDEF", "u-bo", 1100.0)])  # back; Bo has no wait
    assert store.notices_due(away_by=5000.0) == [] and [t.away for t in store.turns_of("ABCDEF")] == [None]
