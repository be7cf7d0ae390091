"""A game night's reminder over a real SMTP conversation (aiosmtpd on loopback): sent in
the day before the start, once per person and occurrence however often the tick runs,
to those who said yes or maybe or have not answered; its stop link (no sign-in) turns
that person's game-night mails of that circle off. It says when in words true as it goes,
in the night's zone. However many nights an owner schedules and cancels, a member gets
one reminder a day from a circle (claimed in the database, so processes ticking at once
send one), reminders are taken from their share of the site's hourly mail, and
scheduling and cancelling are limited per person. And the push notice a quarter of an
hour before, once, to those who said yes or maybe."""

from __future__ import annotations

import logging
import re
import threading
import time
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from conftest import FakeClock
from helpers.circles import post
from helpers.nights import ahead, circle_of_five, nights, schedule

from spades.circles.nights import REMINDER_GAP_S, NightService, soon_words
from spades.storage import Duplicate, MoveNight, Store
from spades.storage.nights import ClaimNightReminder, DropNightReminder

BASE = "http://spades.test"


@pytest.fixture
def app_config(smtp):
    return {**smtp.config(), "PUBLIC_URL": BASE, "NIGHT_TICK_S": 0}


@pytest.fixture
def circle(app):
    """Ann's circle with Bo, Cy and Di in it; Ed signed in and in no circle."""
    return circle_of_five(app)


def starts_in(app, night_id: str, seconds: float) -> float:
    svc = nights(app)
    n = svc.store.night(night_id)
    now = time.time()
    svc.store.commit([MoveNight(n.id, n.occurrence, n.local, now + seconds, "scheduled", n.occurrence)])
    return now


def to(smtp, address: str) -> list:
    return [m for m in smtp.messages if address in m.rcpt_tos]


def test_the_reminder_goes_out_once_the_day_before_and_its_stop_link_works(app, circle, smtp):
    slug, ann, bo, cy, di, ed = circle
    schedule(ann, slug, weekly=True)
    [night] = nights(app).nights(slug)
    for c, a in ((ann, "yes"), (bo, "no"), (cy, "maybe")):  # Di has not answered
        post(c, f"/c/{slug}/nights/{night.id}/answer", answer=a)
    nights(app).tick()
    assert smtp.messages == []  # two days ahead: nothing yet
    now = starts_in(app, night.id, 20 * 3600)
    nights(app).tick(now)
    nights(app).tick(now + 60)  # ticking again sends nothing more
    assert sorted(r for m in smtp.messages for r in m.rcpt_tos) == ["ann@example.com", "cy@example.com",
                                                                    "di@example.com"]
    [mail] = to(smtp, "di@example.com")
    assert mail.message["Subject"] == f"Game night {soon_words(now + 20 * 3600, 'Europe/Paris', now)}: Friday Spades"
    text = mail.text
    assert nights(app).when(night) in text and "You have not answered yet" in text
    assert f"{BASE}/c/{slug}/nights/{night.id}.ics" in text
    assert "You said maybe." in to(smtp, "cy@example.com")[0].text
    stop = re.search(rf"{BASE}(/nights/off/\S+)", to(smtp, "cy@example.com")[0].text).group(1)
    assert to(smtp, "cy@example.com")[0].message["List-Unsubscribe"] == f"<{BASE}{stop}>"

    anon = app.test_client()  # no sign-in needed
    page = anon.get(stop)
    assert page.status_code == 200 and "Stop the game-night mails" in page.get_data(as_text=True)
    assert nights(app).store.night_mail_off(slug) == set()  # a visit alone turns nothing off
    done = anon.post(stop)
    assert done.status_code == 200 and "No more game-night mails" in done.get_data(as_text=True)
    assert anon.post("/nights/off/forged-token").status_code == 400

    # the next week: Ann and Di are reminded again, Cy (stopped) and Bo (said no last week,
    # not answered now) as the rule says
    smtp.messages.clear()
    nights(app).tick(time.time() + 21 * 3600)  # the start: the night moves on a week
    [moved] = nights(app).nights(slug)
    assert moved.occurrence == 1
    nights(app).tick(moved.starts - 3600)  # an hour before next week's start
    assert sorted(r for m in smtp.messages for r in m.rcpt_tos) == ["ann@example.com", "bo@example.com",
                                                                    "di@example.com"]


def test_a_reminder_the_mail_server_refused_is_tried_again_on_the_next_tick(app, circle, smtp):
    slug, ann, *_ = circle
    schedule(ann, slug)
    [night] = nights(app).nights(slug)
    svc = nights(app)
    good = svc.mailer
    svc.mailer = type(good)(host="127.0.0.1", port=1, timeout=1.0)  # nobody listens: every send fails
    now = starts_in(app, night.id, 3600)
    svc.tick(now)
    assert smtp.messages == [] and svc.store.night_sent(night.id, 0, "mail") == set()  # tried again later
    svc.mailer = good
    svc.tick(now + 30)
    assert len(smtp.messages) == 4


def test_the_push_notice_a_quarter_of_an_hour_before_to_yes_and_maybe_once(app, circle):
    slug, ann, bo, cy, di, _ = circle
    schedule(ann, slug)
    [night] = nights(app).nights(slug)
    for c, a in ((ann, "yes"), (bo, "no"), (cy, "maybe")):
        post(c, f"/c/{slug}/nights/{night.id}/answer", answer=a)
    sent = []
    nights(app).push = lambda person, title, body, url: sent.append((person, title, url)) or 1
    now = starts_in(app, night.id, 20 * 60)
    nights(app).tick(now)
    assert sent == []  # twenty minutes ahead: not yet
    now = starts_in(app, night.id, 14 * 60)
    nights(app).tick(now)
    nights(app).tick(now + 5)
    assert sorted(sent) == sorted([(ann.uid, "Game night soon: Friday Spades", f"/c/{slug}"),
                                   (cy.uid, "Game night soon: Friday Spades", f"/c/{slug}")])


# -- item: when, in words true as the mail goes ------------------------------------------------
def paris(wall: str) -> float:
    return datetime.fromisoformat(wall).replace(tzinfo=ZoneInfo("Europe/Paris")).timestamp()


def test_the_reminder_says_when_in_words_true_as_it_goes_in_the_nights_zone(app, circle, smtp):
    slug, ann, *_ = circle
    svc = nights(app)
    # (now, the night's day and time, what the mail says): each over a day after the one before
    for now_wall, day, at, words in (("2027-01-15T08:00", "2027-01-15", "20:00", "tonight at 20:00 (Europe/Paris)"),
                                     ("2027-01-17T21:00", "2027-01-18", "20:00", "tomorrow at 20:00 (Europe/Paris)"),
                                     ("2027-01-20T19:57", "2027-01-20", "20:00", "in 3 minutes"),
                                     ("2027-01-22T09:30", "2027-01-22", "14:00", "today at 14:00 (Europe/Paris)")):
        now = paris(now_wall)
        svc.clock = FakeClock()
        svc.clock.now = now
        assert post(ann, f"/c/{slug}/nights", day=day, time=at, zone="Europe/Paris").status_code == 303
        smtp.messages.clear()
        svc.tick(now)
        [mail] = to(smtp, "di@example.com")
        assert mail.message["Subject"] == f"Game night {words}: Friday Spades"
        assert f"Friday Spades plays Spades {words}." in mail.text
        d = datetime.fromisoformat(f"{day}T{at}")
        assert f"When: {d:%A} {d.day} {d:%B %Y, %H:%M} (Europe/Paris)." in mail.text
        assert "tomorrow" not in mail.text.lower() or words.startswith("tomorrow")


# -- item: one reminder a day from a circle, the mail allowance, the changes limited -------------
def within_the_day(client, slug: str, count: int = 8) -> list[int]:
    """The owner schedules ``count`` nights in the next day, an hour apart: the statuses."""
    return [post(client, f"/c/{slug}/nights", **dict(zip(("day", "time"), ahead((2 + n) / 24), strict=True)),
                 zone="Europe/Paris").status_code for n in range(count)]


def cancel_all(app, client, slug: str) -> list[int]:
    return [post(client, f"/c/{slug}/nights/{n.id}/cancel").status_code for n in nights(app).nights(slug)]


def reminders(smtp) -> dict[str, int]:
    got: dict[str, int] = {}
    for m in smtp.messages:
        if m.message["Subject"].startswith("Game night "):
            for r in m.rcpt_tos:
                got[r] = got.get(r, 0) + 1
    return got


MEMBERS = {f"{n}@example.com": 1 for n in ("ann", "bo", "cy", "di")}


def test_scheduling_and_cancelling_nights_again_and_again_mails_each_member_once_a_day(app, circle, smtp):
    """The attack: eight nights in the next day, the reminder tick, all cancelled, four
    times over (the changes' limit out of the way): one reminder each, not 32; the next
    day, one more."""
    slug, ann, *_ = circle
    app.config.update(NIGHT_CHANGES_PER_PERSON="1000 per hour")
    for _ in range(4):
        assert within_the_day(ann, slug) == [303] * 8
        nights(app).tick()
        assert cancel_all(app, ann, slug) == [303] * 8
    assert reminders(smtp) == MEMBERS
    post(ann, f"/c/{slug}/nights", **dict(zip(("day", "time"), ahead(2), strict=True)), zone="Europe/Paris")
    [night] = nights(app).nights(slug)
    nights(app).tick(night.starts - REMINDER_GAP_S + 60)  # a day after the first reminders
    assert reminders(smtp) == {m: 2 for m in MEMBERS}


def test_scheduling_and_cancelling_are_limited_per_person_with_a_sentence(app, circle, smtp):
    slug, ann, bo, *_ = circle
    statuses = []
    for _ in range(4):  # the attack as it was run, with the limit in place
        statuses += within_the_day(ann, slug)
        nights(app).tick()
        statuses += cancel_all(app, ann, slug)
    assert statuses == [303] * 20 + [429] * 32  # 8 + 8, then 4 more; the rest refused
    assert reminders(smtp) == MEMBERS
    r = post(ann, f"/c/{slug}/nights/{nights(app).nights(slug)[0].id}/cancel")
    assert r.status_code == 429 and 3000 < int(r.headers["Retry-After"]) <= 3600
    assert ("You have scheduled or cancelled the most game nights one person may in an hour (20). "
            "Try again in 60 minutes.") in r.get_data(as_text=True)
    r = post(ann, f"/c/{slug}/nights", day="2030-01-01", time="20:00", zone="New York")
    page = r.get_data(as_text=True)
    assert r.status_code == 429 and "the most game nights one person may" in page
    assert 'name="zone" value="New York"' in page  # the form kept as typed
    app.config.update(NIGHT_CHANGES_PER_PERSON="1 per hour")  # another owner is counted apart
    other = post(bo, "/c", name="Bo's circle").headers["Location"].rsplit("/", 1)[1]
    assert within_the_day(bo, other, 2) == [303, 429]


def test_reminders_are_taken_from_their_share_of_the_mail_and_wait_for_the_next_hour(app, circle, smtp,
                                                                                     caplog):
    slug, ann, *_ = circle
    app.config.update(MAIL_HOURLY_CAP=30)  # the reminders' share: 3
    schedule(ann, slug)
    [night] = nights(app).nights(slug)
    hours = FakeClock()
    app.extensions["spades.accounts"].clock = hours  # the allowance's clock hour
    now = night.starts - 20 * 3600
    caplog.set_level(logging.WARNING)
    nights(app).tick(now)
    assert sum(reminders(smtp).values()) == 3
    held = [r.getMessage() for r in caplog.records if r.name == "spades.circles.nights"]
    assert len(held) == 1 and "the mail allowance refused a reminder" in held[0] and "1 waiting" in held[0]
    assert any("the game nights' reminders' share is spent" in r.getMessage() for r in caplog.records)
    nights(app).tick(now + 60)
    assert sum(reminders(smtp).values()) == 3  # still the same hour: nothing asked, nothing logged
    assert len([r for r in caplog.records if r.name == "spades.circles.nights"]) == 1
    hours.now += 3600
    nights(app).tick(now + 3600)  # the next hour: the one left waiting goes
    assert reminders(smtp) == MEMBERS


def test_two_processes_ticking_at_once_send_each_member_one_reminder_a_day(app, circle, smtp):
    slug, ann, *_ = circle
    within_the_day(ann, slug)
    one = nights(app)
    workers = [NightService(Store(app.config["DATABASE"]), one.circles, one.secret, mailer=one.mailer,
                            base_url=one.base_url) for _ in range(2)]  # their own connections, no shared lock
    start = threading.Barrier(len(workers))
    now = time.time()

    def tick(worker: NightService) -> None:
        start.wait()
        worker.tick(now)

    threads = [threading.Thread(target=tick, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert reminders(smtp) == MEMBERS
    for w in workers:
        w.store.close()


def test_a_reminder_is_claimed_once_a_day_per_circle_by_connections_claiming_at_once(database):
    stores = [Store(database) for _ in range(6)]
    try:
        start, won = threading.Barrier(len(stores)), []

        def claim(store: Store) -> None:
            start.wait()
            try:
                store.commit([ClaimNightReminder("friday", "ann", 1000.0, REMINDER_GAP_S)])
                won.append(store)
            except Duplicate:
                pass

        threads = [threading.Thread(target=claim, args=(s,)) for s in stores]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(won) == 1
        store = stores[0]
        with pytest.raises(Duplicate):
            store.commit([ClaimNightReminder("friday", "ann", 1000.0 + REMINDER_GAP_S - 1, REMINDER_GAP_S)])
        store.commit([ClaimNightReminder("other", "ann", 1001.0, REMINDER_GAP_S)])  # another circle
        store.commit([ClaimNightReminder("friday", "bo", 1001.0, REMINDER_GAP_S)])  # another member
        store.commit([DropNightReminder("friday", "bo", 1001.0)])  # given back: claimed again
        store.commit([ClaimNightReminder("friday", "bo", 1002.0, REMINDER_GAP_S)])
        store.commit([ClaimNightReminder("friday", "ann", 1000.0 + REMINDER_GAP_S, REMINDER_GAP_S)])  # a day on
        assert store.reminded_since("friday", 1000.5) == {"ann", "bo"}
    finally:
        for s in stores:
            s.close()
