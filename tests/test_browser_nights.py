"""A game night in real Chromium: Ann makes a circle, Bo joins by its invite link, Ann
schedules a game night, both answer yes and have the circle's page open, and at its
start both pages go to the same table, where they sit with two bots. The circle's page
with a night fits a phone (390 by 844) and a laptop (1280 by 800). A city typed for the
zone gives the night form back as typed, with a button for the zone it looks like."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from helpers.browser import TOO_WIDE
from helpers.browser_circles import LAPTOP, PHONE, browser_of, make_and_join
from helpers.circles import signed_in
from playwright.sync_api import expect

from spades.storage import MoveNight

ZONE = "Europe/Paris"


@pytest.fixture
def app_config():
    return {"NIGHT_TICK_S": 0.5, "NIGHT_POLL_S": 1}


def wait_for(condition, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def move_start(app, night_id: str, at: float) -> None:
    """The night's next start moved to ``at`` (the test does not wait for the clock)."""
    store = app.extensions["spades.nights"].store
    n = store.night(night_id)
    store.commit([MoveNight(n.id, n.occurrence, n.local, at, "scheduled", n.occurrence)])


def test_both_answer_yes_and_land_at_the_same_table_with_bots(app, live_server, browser):
    ann = browser_of(app, browser, live_server, "ann@example.com", "Ann", "🦊", PHONE)
    bo = browser_of(app, browser, live_server, "bo@example.com", "Bo", "🐼", LAPTOP)
    try:
        slug = make_and_join(ann, bo, live_server, "Friday Spades")

        ann.reload()
        soon = datetime.now(ZoneInfo(ZONE)) + timedelta(hours=3)
        plan = ann.locator("#night-plan")
        plan.get_by_label("Day").fill(soon.strftime("%Y-%m-%d"))
        plan.get_by_label("Time", exact=True).fill(soon.strftime("%H:%M"))
        plan.get_by_label("Time zone").fill(ZONE)
        plan.get_by_role("button", name="Schedule it").click()
        expect(ann.locator("#nights .night-when")).to_contain_text(f"{soon:%H:%M} ({ZONE})")
        [night] = app.extensions["spades.nights"].nights(slug)

        for page in (ann, bo):
            page.goto(f"{live_server}/c/{slug}")
            page.locator("#nights").get_by_role("button", name="Yes", exact=True).click()
            expect(page.locator("#nights .said-yes")).to_contain_text(
                "Ann" if page is ann else "Bo")
        expect(bo.locator("#nights .said-yes dd")).to_have_text("🦊 Ann, 🐼 Bo")

        # ten minutes to go: their pages say "here" every second from the moment they open
        move_start(app, night.id, time.time() + 600)
        store = app.extensions["spades.nights"].store
        for page in (ann, bo):
            page.reload()
        wait_for(lambda: store.here_since(slug, time.time() - 5) == {
            signed_in_uid(app, "ann@example.com"), signed_in_uid(app, "bo@example.com")})
        move_start(app, night.id, time.time())  # its time has come
        ann.wait_for_url(f"{live_server}/g/*", timeout=20_000)
        bo.wait_for_url(f"{live_server}/g/*", timeout=20_000)
        code = ann.url.rsplit("/", 1)[1]
        assert bo.url.rsplit("/", 1)[1] == code
        seats = app.extensions["spades.tables"].store.load_table(code).seats
        assert sorted(s.kind for s in seats) == ["bot", "bot", "human", "human"]
        assert {s.name for s in seats if s.kind == "human"} == {"Ann", "Bo"}
    finally:
        ann.context.close()
        bo.context.close()


def signed_in_uid(app, email: str) -> str:
    return app.extensions["spades.accounts"].store.user_by_email(email).id


def test_the_circle_page_with_a_night_fits_a_phone_and_a_laptop(app, live_server, browser):
    circles, nights = app.extensions["spades.circles"], app.extensions["spades.nights"]
    made = [signed_in(app, f"{n.lower()}@example.com", n) for n in ("Ann", "Bo", "Cy", "Di", "Ed")]
    row = circles.create(made[0].uid, "A circle with a rather long name for")
    for client in made[1:]:
        circles.join(row.slug, circles.invite_token(row.slug), client.uid)
    soon = datetime.now(ZoneInfo("America/Argentina/Buenos_Aires")) + timedelta(days=2)
    night = nights.schedule(row.slug, made[0].uid, soon.strftime("%Y-%m-%d"), soon.strftime("%H:%M"),
                            "America/Argentina/Buenos_Aires", True)
    # a later one-off night elsewhere: 23:59 in Auckland the day after is after Buenos Aires's
    # night whatever the time of day now (the same date could come first, by the clock)
    later = soon + timedelta(days=1)
    nights.schedule(row.slug, made[0].uid, later.strftime("%Y-%m-%d"), "23:59", "Pacific/Auckland", False)
    for client, answer in zip(made, ("yes", "maybe", "no", "yes"), strict=False):
        nights.answer(row.slug, client.uid, night.id, answer)
    for viewport in (PHONE, LAPTOP):
        for email, name in (("ann@example.com", "Ann"), ("bo@example.com", "Bo")):
            page = browser_of(app, browser, live_server, email, name, "🦊", viewport)
            try:
                page.goto(f"{live_server}/c/{row.slug}")
                expect(page.locator("#nights .night-when")).to_contain_text("America/Argentina/Buenos_Aires")
                if name == "Ann":
                    page.locator("#nights summary").click()  # the schedule form open
                    expect(page.get_by_label("Time zone")).to_be_visible()
                assert page.evaluate(TOO_WIDE) == [], (viewport, name)
            finally:
                page.context.close()


def test_a_city_typed_for_the_zone_gives_the_form_back_with_the_zone_it_looks_like(app, live_server, browser):
    owner = signed_in(app, "ann@example.com", "Ann")
    row = app.extensions["spades.circles"].create(owner.uid, "Friday Spades")
    ann = browser_of(app, browser, live_server, "ann@example.com", "Ann", "🦊", PHONE)
    try:
        ann.goto(f"{live_server}/c/{row.slug}")
        soon = datetime.now(ZoneInfo("America/New_York")) + timedelta(days=2)
        plan = ann.locator("#night-plan")
        plan.get_by_label("Day").fill(soon.strftime("%Y-%m-%d"))
        plan.get_by_label("Time", exact=True).fill("19:30")
        plan.get_by_label("Time zone").fill("New York")
        plan.get_by_label("Every week").check()
        plan.get_by_role("button", name="Schedule it").click()
        form = ann.locator("#night-form")
        expect(form.get_by_role("alert")).to_have_text(
            "\u201cNew York\u201d is not a time zone name: did you mean America/New_York?")
        expect(form.get_by_label("Day")).to_have_value(soon.strftime("%Y-%m-%d"))
        expect(form.get_by_label("Time", exact=True)).to_have_value("19:30")
        expect(form.get_by_label("Time zone")).to_have_value("New York")
        expect(form.get_by_label("Every week")).to_be_checked()
        assert ann.evaluate(TOO_WIDE) == []
        form.get_by_role("button", name="Schedule it in America/New_York").click()
        expect(ann.locator("#nights .night-when")).to_contain_text("19:30 (America/New_York)")
        expect(ann.locator("#nights .night-when")).to_contain_text("every week")
    finally:
        ann.context.close()
