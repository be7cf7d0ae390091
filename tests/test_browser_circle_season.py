"""A circle's season end to end in real Chromium: Ann makes a circle, Bo joins by its
invite link, Ann starts a table for the circle from its page, Bo finds it under "Tables
now" and joins, Ann starts the game, they play the match out (its cards through the table
service, as clicking every card is tested elsewhere), and the circle's page shows the
season's standings, their partnership and the match among the recent ones; Ann closes the
season, the next one starts empty, and the first one's standings stay at ``?season=1``."""

from __future__ import annotations

import re

from helpers.browser_circles import LAPTOP, PHONE, browser_of, make_and_join
from playwright.sync_api import expect

from spades.tables import Player


def play_out(service, code: str, people: dict[int, str]) -> None:
    """Every person's move until the match is over (the bots move by themselves)."""
    for _ in range(2000):
        assert service.wait_idle()
        snap = service.snapshot(code, None)
        v = snap.view.to_json()
        if v["finished"]:
            return
        if v["phase"] == "hand_over":
            for seat, pid in people.items():
                if seat not in snap.around.ready:
                    service.act(code, Player(pid), "deal", v["version"])
                    break
            continue
        seat = v["to_act"]
        pid = people.get(seat)
        if pid is None:
            continue  # a bot's turn: wait_idle waits for it
        mine = service.snapshot(code, pid).view.to_json()
        service.act(code, Player(pid), "3" if mine["phase"] == "bidding" else str(mine["legal"][0]), mine["version"])
    raise AssertionError("the match did not end")


def test_a_season_of_a_circle_from_its_making_to_the_next(app, live_server, browser, service):
    ann = browser_of(app, browser, live_server, "ann@example.com", "Ann", "🦊", PHONE)
    bo = browser_of(app, browser, live_server, "bo@example.com", "Bo", "🐼", LAPTOP)
    try:
        slug = make_and_join(ann, bo, live_server, "Tuesday Spades")
        expect(bo.locator("#members")).to_contain_text("Ann")

        # a table for the circle: two people, bots in the other seats, a match of five hands
        ann.get_by_role("link", name="Start a table for the circle").click()
        ann.locator("label:has(input[name=humans][value='2'])").click()
        ann.locator("select[name=end]").select_option("hands-5")
        ann.get_by_role("button", name="Start the table").click()
        ann.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        code = ann.url.rsplit("/", 1)[1]

        bo.goto(f"{live_server}/c/{slug}")
        expect(bo.locator("#tables")).to_contain_text("waiting for people")
        bo.locator("#tables").get_by_role("link", name=code).click()
        bo.get_by_role("button", name="Join").click()
        ann.locator("#room", has_text="Bo").wait_for()
        ann.get_by_role("button", name="Start the game").click()
        for page in (ann, bo):
            page.wait_for_url(re.compile(rf"/g/{code}$"))
            expect(page.locator("body.live")).to_have_count(1, timeout=15000)

        seats = service.seats(code)
        people = {s.seat: s.player_id for s in seats if s.kind == "human"}
        assert len(people) == 2
        play_out(service, code, people)
        final = service.snapshot(code, None).view.to_json()
        expect(ann.get_by_role("button", name="Rematch")).to_be_visible(timeout=15000)  # the match is over

        # the season's standings, the partnership (or head to head) and the match among the recent ones
        for page in (ann, bo):
            page.goto(f"{live_server}/c/{slug}")
            rows = page.locator("#standings tbody tr")
            expect(rows).to_have_count(2)
            expect(rows.filter(has_text="Ann").locator("td").first).to_have_text("1")
            expect(rows.filter(has_text="Bo").locator("td").first).to_have_text("1")
            expect(page.locator("#recent")).to_contain_text("Ann & Bo")  # the match, by its sides
            expect(page.locator(f"#recent a[href*=\"{code}\"]")).to_have_count(1)
        ann_seat, bo_seat = (next(s.seat for s in seats if s.kind == "human" and s.name == n) for n in ("Ann", "Bo"))
        partners = ann_seat % 2 == bo_seat % 2  # the room seats a late joiner on the other team or across
        ann_won = final["winner"] == ann_seat % 2
        expect(ann.locator("#standings tbody tr").filter(has_text="Ann").locator("td").nth(1)) \
            .to_have_text("1" if ann_won else "0")
        if partners:
            expect(ann.locator("#partnerships")).to_contain_text("Bo")

        # Ann closes the season: the next one starts with nothing, the first keeps its standings
        ann.get_by_role("button", name="Close season 1 and start the next").click()
        expect(ann.get_by_role("heading", name="Season 2 standings")).to_be_visible()
        expect(ann.locator("#standings")).to_contain_text("No match of this season has finished yet.")
        ann.locator("#standings .seasons").get_by_role("link", name="1").click()
        expect(ann.locator("#standings tbody tr")).to_have_count(2)
        expect(ann.get_by_role("heading", name="Season 1 (over)")).to_be_visible()
    finally:
        ann.context.close()
        bo.context.close()
