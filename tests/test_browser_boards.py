"""Duplicate boards in real Chromium: the circle's owner makes a week of 4 boards on the
circle's page, starts a table of the week, plays its first board by clicking (bots in the
other seats), and back on the circle's page sees that board's result at their table; the
page with a week fits a phone (390 by 844) and a laptop (1280 by 800). A member chooses
another as partner in the block's form: both are seated, and the partner's circle page
leads him to the table."""

from __future__ import annotations

import re

from helpers.browser import TOO_WIDE, play_a_hand
from helpers.browser_circles import LAPTOP, PHONE, browser_of
from playwright.sync_api import expect

from spades.circles.boards import boards_of


def test_the_owner_makes_a_week_plays_its_first_board_and_sees_its_result(app, live_server, browser, service):
    circles = app.extensions["spades.circles"]
    page = browser_of(app, browser, live_server, "ann@example.com", "Ann", "🦊", PHONE)
    try:
        uid = circles.store.user_by_email("ann@example.com").id  # the account the browser is signed in to
        row = circles.create(uid, "Friday Spades")
        page.goto(f"{live_server}/c/{row.slug}")
        block = page.locator("#boards")
        expect(block).to_contain_text("No week of boards yet")
        block.locator("input[name=boards]").fill("4")
        block.get_by_role("button", name="Make the week").click()
        expect(block).to_contain_text("closes")
        week = circles.store.board_weeks(row.slug)[0]
        assert week.boards == 4
        for b in boards_of(week):
            expect(block.locator(f"#board-{b.number} .commitment")).to_have_text(b.commitment)
        assert page.evaluate(TOO_WIDE) == [], page.evaluate(TOO_WIDE)

        block.get_by_role("button", name="Play this week's boards").click()
        page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        code = page.url.rsplit("/", 1)[1]
        assert service.store.board_week_of_table(code) == week.id
        pid = uid
        assert service.snapshot(code, pid).seat == 0
        expect(page.locator("body.live")).to_have_count(1, timeout=15000)
        v = play_a_hand(page, service, code, pid)
        assert v["phase"] == "hand_over" and len(v["results"]) == 1
        ns, ew = (t["total"] for t in v["results"][0]["teams"])

        page.goto(f"{live_server}/c/{row.slug}")
        row1 = page.locator("#board-1 .board-scores tbody tr")
        expect(row1).to_have_count(1)
        expect(row1.locator("td").nth(1)).to_have_text(str(ns))
        expect(row1.locator("td").nth(4)).to_have_text(str(ew))
        expect(page.locator("#board-2 .board-scores")).to_have_count(0)  # not played yet
        expect(page.locator("#boards")).to_contain_text("1 of 4 boards")
        expect(page.locator("#boards .boards-people")).to_contain_text("Ann")
        assert page.evaluate(TOO_WIDE) == [], page.evaluate(TOO_WIDE)
        page.set_viewport_size(LAPTOP)
        page.reload()
        expect(page.locator("#board-1 .board-scores tbody tr")).to_have_count(1)
        assert page.evaluate(TOO_WIDE) == [], page.evaluate(TOO_WIDE)
    finally:
        page.context.close()


def test_a_member_chooses_a_partner_in_the_form_and_the_partner_finds_the_table(app, live_server, browser, service):
    circles = app.extensions["spades.circles"]
    ann = browser_of(app, browser, live_server, "ann@example.com", "Ann", "🦊", PHONE)
    bo = browser_of(app, browser, live_server, "bo@example.com", "Bo", "🐼", LAPTOP)
    try:
        ann_id = circles.store.user_by_email("ann@example.com").id
        bo_id = circles.store.user_by_email("bo@example.com").id
        row = circles.create(ann_id, "Friday Spades")
        circles.join(row.slug, circles.invite_token(row.slug), bo_id)
        ann.goto(f"{live_server}/c/{row.slug}")
        block = ann.locator("#boards")
        block.locator("input[name=boards]").fill("4")
        block.get_by_role("button", name="Make the week").click()
        expect(block).to_contain_text("closes")
        block.get_by_label("Partner (across)").select_option(label="Bo")
        expect(block.get_by_label("Opponent on your left")).to_have_value("")  # a bot unless chosen
        assert page_fits(ann)
        block.get_by_role("button", name="Play this week's boards").click()
        ann.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        code = ann.url.rsplit("/", 1)[1]
        assert service.snapshot(code, ann_id).seat == 0 and service.snapshot(code, bo_id).seat == 2

        bo.goto(f"{live_server}/c/{row.slug}")
        expect(bo.locator("#boards")).not_to_contain_text("Play this week's boards")
        bo.locator("#boards").get_by_role("link", name="Back to your table of boards").click()
        bo.wait_for_url(f"{live_server}/g/{code}")
        expect(bo.locator("body.live")).to_have_count(1, timeout=15000)
    finally:
        ann.context.close()
        bo.context.close()


def page_fits(page) -> bool:
    """Whether nothing on the page is wider than the window (the form's selects too)."""
    too_wide = page.evaluate(TOO_WIDE)
    assert too_wide == [], too_wide
    return True
