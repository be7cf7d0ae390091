"""A game night's reminder over a real SMTP conversation (aiosmtpd on loopback): sent in
the day before the start, once per person and occurrence however often the tick runs,
to those who said yes or maybe or have not answered; its stop link (no sign-in) turns
that person's game-night mails of that circle off. And the push notice a quarter of an
hour before, once, to those who said yes or maybe."""

from __future__ import annotations

import re
import time

import pytest
from test_circles import post
from test_nights import circle, nights, schedule  # noqa: F401 - the fixture

from spades.storage import MoveNight

BASE = "http://spades.test"


@pytest.fixture
def app_config(smtp):
    return {**smtp.config(), "PUBLIC_URL": BASE, "NIGHT_TICK_S": 0}


def starts_in(app, night_id: str, seconds: float) -> float:
    svc = nights(app)
    n = svc.store.night(night_id)
    now = time.time()
    svc.store.commit([MoveNight(n.id, n.occurrence, n.local, now + seconds, "scheduled", n.occurrence)])
    return now


def to(smtp, address: str) -> list:
    return [m for m in smtp.messages if address in m.rcpt_tos]


def test_the_reminder_goes_out_once_the_day_before_and_its_stop_link_works(app, circle, smtp):  # noqa: F811
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
    assert mail.message["Subject"] == "Game night tomorrow: Friday Spades"
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
    now = starts_in(app, night.id, 3600)
    nights(app).tick(now)
    assert sorted(r for m in smtp.messages for r in m.rcpt_tos) == ["ann@example.com", "bo@example.com",
                                                                    "di@example.com"]


def test_a_reminder_the_mail_server_refused_is_tried_again_on_the_next_tick(app, circle, smtp):  # noqa: F811
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


def test_the_push_notice_a_quarter_of_an_hour_before_to_yes_and_maybe_once(app, circle):  # noqa: F811
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
