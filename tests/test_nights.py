"""Game nights (``spades.circles.nights``, ``/c/<slug>/nights``): scheduling in a time
zone (a bad zone is a 400 that gives the form back as typed, with the zone names it looks
like), answers, the 404 every nights address answers to anyone not
in the circle, the owner's controls, the .ics read back with icalendar, and the tick: at
the start, tables from the people who said yes and are on the page, bots in the empty
seats, partners rotated or kept, a weekly night moving on a week."""

from __future__ import annotations

import html
import re
import time
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import icalendar
import pytest
from helpers.circles import post, section, text
from helpers.nights import ahead, circle_of_five, nights, schedule

from spades.circles.nights import seat_people, zone_suggestions
from spades.storage import MoveNight


@pytest.fixture
def app_config():
    return {"NIGHT_TICK_S": 0}


@pytest.fixture
def circle(app):
    """Ann's circle with Bo, Cy and Di in it; Ed signed in and in no circle."""
    return circle_of_five(app)


def start_now(app, night_id: str) -> float:
    """Move the night's next start to a second ago (as if its time had come)."""
    svc = nights(app)
    n = svc.store.night(night_id)
    at = time.time() - 1
    svc.store.commit([MoveNight(n.id, n.occurrence, n.local, at, "scheduled", n.occurrence)])
    return at


def test_the_owner_schedules_a_night_in_its_zone_and_the_page_shows_it(app, circle):
    slug, ann, bo, *_ = circle
    page = ann.get(f"/c/{slug}").get_data(as_text=True)
    assert 'id="nights"' not in page and "Schedule a game night" in page  # the owner's form alone
    assert "Schedule a game night" not in bo.get(f"/c/{slug}").get_data(as_text=True)
    day, at = ahead(2, "America/New_York")
    r = post(ann, f"/c/{slug}/nights", day=day, time=at, zone="America/New_York", weekly="on")
    assert r.status_code == 303 and r.headers["Location"] == f"/c/{slug}#nights"
    [night] = nights(app).nights(slug)
    wall = datetime.fromisoformat(f"{day}T{at}").replace(tzinfo=ZoneInfo("America/New_York"))
    assert night.starts == wall.timestamp() and night.weekly and night.zone == "America/New_York"
    shown = section(bo.get(f"/c/{slug}").get_data(as_text=True), "nights")
    d = datetime.fromisoformat(f"{day}T{at}")
    assert f"{d:%A} {d.day} {d:%B %Y, %H:%M} (America/New_York)" in shown
    assert "every week" in shown and "Not answered (4)" in shown
    assert "Schedule a game night" not in shown and "Cancel this game night" not in shown  # not the owner


def test_a_bad_zone_day_or_time_is_a_400_that_says_so(app, circle):
    slug, ann, *_ = circle
    day, at = ahead()
    r = post(ann, f"/c/{slug}/nights", day=day, time=at, zone="Mars/Olympus_Mons")
    assert r.status_code == 400 and "is not a time zone" in r.get_data(as_text=True)
    r = post(ann, f"/c/{slug}/nights", day="someday", time=at, zone="UTC")
    assert r.status_code == 400 and "as a date" in r.get_data(as_text=True)
    r = post(ann, f"/c/{slug}/nights", day=day, time="25:99", zone="UTC")
    assert r.status_code == 400 and "hours and minutes" in r.get_data(as_text=True)
    past, at = ahead(-1, "UTC")
    r = post(ann, f"/c/{slug}/nights", day=past, time=at, zone="UTC")
    assert r.status_code == 400 and "gone by" in r.get_data(as_text=True)
    assert nights(app).nights(slug) == []


def fields(form: str) -> dict[str, str]:
    """A form's fields as a browser sends them (inputs with a value; a checkbox when checked)."""
    out = {}
    for tag in re.findall(r"<input[^>]*>", form):
        name, value = re.search(r'name="([^"]+)"', tag), re.search(r'value="([^"]*)"', tag)
        if name and (' type="checkbox"' not in tag or " checked" in tag):
            out[name.group(1)] = html.unescape(value.group(1) if value else "")
    return out


def test_a_zone_that_is_not_one_gives_the_form_back_as_typed_with_the_zone_it_looks_like(app, circle):
    slug, ann, *_ = circle
    day, at = ahead(2, "America/New_York")
    r = post(ann, f"/c/{slug}/nights", day=day, time=at, zone="New York", weekly="on")
    page = r.get_data(as_text=True)
    assert r.status_code == 400 and '<section id="night-form"' in page
    assert "\u201cNew York\u201d is not a time zone name: did you mean America/New_York?" in text(page)
    form = re.search(r'<form method="post" action="/c/[^"]+/nights" class="circle-form">.*?</form>', page, re.S)
    assert {k: v for k, v in fields(form.group(0)).items() if k != "csrf"} == {
        "day": day, "time": at, "zone": "New York", "weekly": "on"}  # every field as typed
    [pick] = re.findall(r'<form[^>]*class="inline night-suggestion">.*?</form>', page, re.S)
    assert "Schedule it in America/New_York" in pick
    assert nights(app).nights(slug) == []
    r = ann.post(f"/c/{slug}/nights", data=fields(pick))
    assert r.status_code == 303
    [night] = nights(app).nights(slug)
    assert night.zone == "America/New_York" and night.weekly and night.local == f"{day}T{at}"


@pytest.mark.parametrize("typed, meant", [
    ("new york", ("America/New_York",)), ("  PARIS ", ("Europe/Paris",)), ("europe/paris", ("Europe/Paris",)),
    ("Buenos Aires", ("America/Argentina/Buenos_Aires", "America/Buenos_Aires")), ("Port au Prince",
                                                                                    ("America/Port-au-Prince",)),
    ("Mars/Olympus_Mons", ()), ("<b>x</b>", ()),
])
def test_the_zones_a_name_looks_like(typed, meant):
    assert zone_suggestions(typed) == meant


@pytest.mark.parametrize("day, at, zone", [
    ("2026-02-30", "20:00", "UTC"), ("", "", ""), ("9999-12-31", "23:59", "Pacific/Kiritimati"),
    ("0001-01-01", "00:00", "America/New_York"), ("2030-01-01", "24:00", "UTC"), ("2030-01-01", "7", "UTC"),
    ("2030-01-01", "20:00", "\x00<script>"), ("x" * 5000, "é" * 5000, "/" * 5000), ("2030-01-01", "-1:30", "UTC"),
    ("2030-01-01", "20:00", "../../etc/passwd"), ("2030-01-01", "20:00", "Europe/"),
])
def test_bad_night_input_is_a_400_form_never_a_500(app, circle, day, at, zone):
    slug, ann, *_ = circle
    r = post(ann, f"/c/{slug}/nights", day=day, time=at, zone=zone)
    page = r.get_data(as_text=True)
    assert r.status_code == 400 and 'role="alert"' in page and "<script>" not in page
    assert 'name="zone" value="' in page and nights(app).nights(slug) == []


def test_members_answer_and_change_their_answer(app, circle):
    slug, ann, bo, cy, di, _ = circle
    assert schedule(ann, slug).status_code == 303
    [night] = nights(app).nights(slug)
    for c, a in ((ann, "yes"), (bo, "maybe"), (cy, "no"), (bo, "yes")):
        assert post(c, f"/c/{slug}/nights/{night.id}/answer", answer=a).status_code == 303
    shown = section(bo.get(f"/c/{slug}").get_data(as_text=True), "nights")
    assert "Yes (2) 🦊 Ann, 🐼 Bo" in shown and "Maybe (0)" in shown and "No (1) 🐯 Cy" in shown
    assert "Not answered (1) 🐸 Di" in shown
    page = bo.get(f"/c/{slug}").get_data(as_text=True)
    assert 'value="yes" aria-pressed="true"' in page
    r = post(bo, f"/c/{slug}/nights/{night.id}/answer", answer="perhaps")
    assert r.status_code == 400 and "Answer yes, maybe or no." in r.get_data(as_text=True)


def test_every_nights_address_is_404_to_anyone_not_in_the_circle(app, circle, client):
    slug, ann, bo, cy, di, ed = circle
    schedule(ann, slug)
    [night] = nights(app).nights(slug)
    post(ann, f"/c/{slug}/leave")
    assert post(di, f"/c/{slug}/leave").status_code == 303  # Di left: not a member now
    anon = app.test_client()
    for who in (ed, di, anon):
        for method, path, data in (("post", f"/c/{slug}/nights", {"day": "2030-01-01", "time": "20:00", "zone": "UTC"}),
                                   ("post", f"/c/{slug}/nights/pairing", {"pairing": "fixed"}),
                                   ("post", f"/c/{slug}/nights/{night.id}/answer", {"answer": "yes"}),
                                   ("post", f"/c/{slug}/nights/{night.id}/cancel", {}),
                                   ("get", f"/c/{slug}/nights/{night.id}.ics", {}),
                                   ("post", f"/c/{slug}/nights/here", {}),
                                   ("get", f"/c/no-such-circle/nights/{night.id}.ics", {})):
            r = post(who, path, **data) if method == "post" else who.get(path)
            assert r.status_code == 404, (path, r.status_code)
            assert "There is no circle at this address." in r.get_data(as_text=True)
    assert nights(app).answers(night) == {}


def test_the_owners_controls_are_403_to_other_members(app, circle):
    slug, ann, bo, *_ = circle
    schedule(ann, slug)
    [night] = nights(app).nights(slug)
    assert schedule(bo, slug).status_code == 403
    assert post(bo, f"/c/{slug}/nights/{night.id}/cancel").status_code == 403
    assert post(bo, f"/c/{slug}/nights/pairing", pairing="fixed").status_code == 403
    assert nights(app).nights(slug) == [night] and nights(app).pairing(slug) == "rotate"
    assert post(ann, f"/c/{slug}/nights/{night.id}/cancel").status_code == 303
    assert nights(app).nights(slug) == []
    assert 'id="nights"' not in bo.get(f"/c/{slug}").get_data(as_text=True)


def test_the_ics_read_back_with_icalendar(app, circle):
    slug, ann, bo, *_ = circle
    schedule(ann, slug, zone="Europe/Paris", weekly=True)
    schedule(ann, slug, zone="Asia/Tokyo", days=3)
    weekly, once = nights(app).nights(slug)
    r = bo.get(f"/c/{slug}/nights/{weekly.id}.ics")
    assert r.status_code == 200 and r.mimetype == "text/calendar"
    cal = icalendar.Calendar.from_ical(r.data)
    [ev] = cal.walk("VEVENT")
    start = ev.decoded("dtstart")
    assert start.tzinfo is not None and str(ev["dtstart"].params["TZID"]) == "Europe/Paris"
    assert start.replace(tzinfo=None) == datetime.fromisoformat(weekly.local)
    assert start.timestamp() == weekly.starts
    assert [tz["TZID"] for tz in cal.walk("VTIMEZONE")] == ["Europe/Paris"]
    assert ev["rrule"]["FREQ"] == ["WEEKLY"]
    assert str(ev["url"]) == f"http://localhost/c/{slug}" and "Friday Spades" in str(ev["summary"])
    assert str(ev["uid"]) == f"night-{weekly.id}@localhost"
    again = icalendar.Calendar.from_ical(bo.get(f"/c/{slug}/nights/{weekly.id}.ics").data)
    assert str(again.walk("VEVENT")[0]["uid"]) == str(ev["uid"])  # stable
    ev2 = icalendar.Calendar.from_ical(bo.get(f"/c/{slug}/nights/{once.id}.ics").data).walk("VEVENT")[0]
    assert "rrule" not in ev2 and ev2.decoded("dtstart").timestamp() == once.starts
    assert str(ev2["dtstart"].params["TZID"]) == "Asia/Tokyo" and str(ev2["uid"]) != str(ev["uid"])
    assert bo.get(f"/c/{slug}/nights/nothing.ics").status_code == 404


def test_at_the_start_tables_from_the_yes_people_on_the_page_with_bots(app, circle, service):
    slug, ann, bo, cy, di, _ = circle
    schedule(ann, slug)
    [night] = nights(app).nights(slug)
    for c, a in ((ann, "yes"), (bo, "yes"), (cy, "yes"), (di, "maybe")):
        post(c, f"/c/{slug}/nights/{night.id}/answer", answer=a)
    for c in (ann, bo, di):  # Cy said yes but is not on the page
        assert post(c, f"/c/{slug}/nights/here").status_code == 200
    start_now(app, night.id)
    [code] = nights(app).tick()
    seats = service.store.load_table(code).seats
    people = {s.player_id for s in seats if s.kind == "human"}
    assert people == {ann.uid, bo.uid} and sum(s.kind == "bot" for s in seats) == 2
    assert seats[0].player_id == ann.uid and seats[2].player_id == bo.uid  # partners, opposite
    options = service.store.table_options(code)
    assert options["circle"] == slug and options["night"] == night.id
    assert app.extensions["spades.circles"].store.circle_of_table(code) == (slug, 1)
    assert nights(app).tick() == []  # once
    assert nights(app).store.night(night.id).state == "over" and nights(app).nights(slug) == []
    # the poll sends each of them to the table, once; Di, not seated, stays
    r = post(ann, f"/c/{slug}/nights/here")
    assert r.headers["HX-Redirect"] == f"/g/{code}"
    assert "HX-Redirect" not in post(ann, f"/c/{slug}/nights/here").headers
    assert post(bo, f"/c/{slug}/nights/here").headers["HX-Redirect"] == f"/g/{code}"
    assert "HX-Redirect" not in post(di, f"/c/{slug}/nights/here").headers
    page = bo.get(f"/c/{slug}").get_data(as_text=True)
    assert f"/g/{code}" in section(page, "tables") or f'href="/g/{code}"' in page


def test_the_page_polls_only_while_a_night_is_near(app, circle):
    slug, ann, bo, *_ = circle
    schedule(ann, slug, days=3)
    [night] = nights(app).nights(slug)
    assert "hx-post" not in section(bo.get(f"/c/{slug}").get_data(as_text=True), "nights")
    page = bo.get(f"/c/{slug}").get_data(as_text=True)
    assert f'hx-post="/c/{slug}/nights/here"' not in page
    svc = nights(app)
    svc.store.commit([MoveNight(night.id, 0, night.local, time.time() + 600, "scheduled", 0)])
    page = bo.get(f"/c/{slug}").get_data(as_text=True)
    assert f'hx-post="/c/{slug}/nights/here" hx-trigger="load, every 20s"' in page


def test_pairing_rules_rotate_and_fixed():
    people = ["a", "b", "c", "d"]
    [first], keep = seat_people(people, "rotate", {})
    assert first.seats == ("a", "c", "b", "d") and keep == []
    history = [("a", "b"), ("c", "d")]
    [second], _ = seat_people(people, "rotate", {}, history)
    assert second.seats == ("a", "b", "c", "d")  # a partners c now, b partners d
    [fixed], keep = seat_people(people, "fixed", {})
    assert fixed.seats == ("a", "c", "b", "d") and keep == [("a", "b"), ("c", "d")]
    kept = {"a": "b", "b": "a", "c": "d", "d": "c"}
    [again], keep = seat_people(["a", "c", "d", "b"], "fixed", kept)
    assert {frozenset((again.seats[0], again.seats[2])), frozenset((again.seats[1], again.seats[3]))} == \
        {frozenset("ab"), frozenset("cd")} and keep == []
    # a kept partner away: the other partners someone else for the night only, kept pairs stay
    tables, keep = seat_people(["a", "c", "e"], "fixed", kept)
    assert [t.seats for t in tables] == [("a", "e", "c", None)] and keep == []
    # nine people: three tables, no lone person at a table while another has four
    tables, _ = seat_people([str(i) for i in range(9)], "rotate", {})
    assert sorted(len(t.people) for t in tables) == [2, 3, 4]


def test_rotate_and_fixed_over_two_nights(app, circle, service):
    slug, ann, bo, cy, di, _ = circle
    everyone = (ann, bo, cy, di)

    def night_of_four() -> tuple[set, set]:
        schedule(ann, slug)
        night = nights(app).nights(slug)[-1]
        for c in everyone:
            post(c, f"/c/{slug}/nights/{night.id}/answer", answer="yes")
            post(c, f"/c/{slug}/nights/here")
        start_now(app, night.id)
        [code] = nights(app).tick()
        seats = [s.player_id for s in service.store.load_table(code).seats]
        return {frozenset((seats[0], seats[2])), frozenset((seats[1], seats[3]))}, set(seats)

    pairs1, sat = night_of_four()
    assert sat == {c.uid for c in everyone}
    pairs2, _ = night_of_four()
    assert not pairs1 & pairs2  # rotated: a new partner each
    assert post(ann, f"/c/{slug}/nights/pairing", pairing="fixed").status_code == 303
    pairs3, _ = night_of_four()
    pairs4, _ = night_of_four()
    assert pairs3 == pairs4  # fixed: the same pairs


def test_a_weekly_night_moves_on_a_week_with_fresh_answers(app, circle, service):
    slug, ann, bo, *_ = circle
    schedule(ann, slug, zone="Europe/Paris", weekly=True)
    [night] = nights(app).nights(slug)
    post(ann, f"/c/{slug}/nights/{night.id}/answer", answer="yes")
    post(ann, f"/c/{slug}/nights/here")
    start_now(app, night.id)
    [code] = nights(app).tick()  # Ann alone with three bots
    assert sum(s.kind == "bot" for s in service.store.load_table(code).seats) == 3
    [moved] = nights(app).nights(slug)
    assert moved.id == night.id and moved.occurrence == 1 and moved.state == "scheduled"
    wall = datetime.fromisoformat(night.local) + timedelta(days=7)
    assert moved.local == wall.strftime("%Y-%m-%dT%H:%M")
    assert moved.starts == wall.replace(tzinfo=ZoneInfo("Europe/Paris")).timestamp()
    assert nights(app).answers(moved) == {}
    assert "Not answered (4)" in section(ann.get(f"/c/{slug}").get_data(as_text=True), "nights")


def test_a_weekly_night_keeps_its_wall_time_across_a_clock_change():
    from spades.circles.nights import epoch_of, week_later
    before = "2026-10-22T20:00"  # Paris: summer time until the 25th
    after = week_later(before)
    assert after == "2026-10-29T20:00"
    assert epoch_of(after, "Europe/Paris") - epoch_of(before, "Europe/Paris") == 7 * 86400 + 3600
