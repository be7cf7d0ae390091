"""Circles in real Chromium: Ann makes a circle, finds its invite link on her phone's
first screen and copies it, Bo (signed in, in a browser of his own) follows it and
presses Join, and both see each other on the circle's page; the page fits a phone (390 by
844) and a laptop (1280 by 800), its standings read points for and against, and its
table form asks for as many people as the circle has."""

from __future__ import annotations

import re
import time

from helpers.browser import TOO_WIDE
from helpers.browser_circles import LAPTOP, PHONE, browser_of
from helpers.circles import BY_HAND, result, signed_in
from playwright.sync_api import expect

from spades.storage import PutCircleResult


def test_make_a_circle_invite_by_link_and_both_see_each_other(app, live_server, browser):
    ann = browser_of(app, browser, live_server, "ann@example.com", "Ann", "🦊", PHONE,
                     permissions=("clipboard-read", "clipboard-write"))
    bo = browser_of(app, browser, live_server, "bo@example.com", "Bo", "🐼", LAPTOP)
    try:
        ann.goto(f"{live_server}/c/new")
        ann.get_by_label("Name of the circle").fill("Friday Spades")
        ann.get_by_role("button", name="Create the circle").click()
        expect(ann.get_by_role("heading", name="Friday Spades", level=1)).to_be_visible()
        assert re.fullmatch(rf"{live_server}/c/friday-spades-[a-z0-9]{{6}}", ann.url), ann.url
        slug = ann.url.rsplit("/", 1)[1]
        expect(ann.locator(".circle-head .muted")).to_have_text(re.compile(r"· 1 member$"))
        link = ann.locator("a[rel=invite]").get_attribute("href")
        assert link.startswith(f"{live_server}/c/{slug}/join/")
        copy = ann.get_by_role("button", name="Copy the link")
        box = copy.bounding_box()
        assert box is not None and box["y"] + box["height"] <= PHONE["height"], box  # on the first screen
        copy.click()
        expect(ann.locator("#invite [role=status]")).to_have_text("Copied.")
        assert ann.evaluate("navigator.clipboard.readText()") == link

        bo.goto(f"{live_server}/c/{slug}")  # not a member yet: nothing here
        expect(bo.get_by_text("There is no circle at this address.")).to_be_visible()
        bo.goto(link)
        bo.get_by_role("button", name="Join").click()
        expect(bo.get_by_role("heading", name="Friday Spades", level=1)).to_be_visible()
        expect(bo.locator("#members")).to_contain_text("Ann")
        expect(bo.locator("#members")).to_contain_text("Bo")
        expect(bo.locator("a[rel=invite]")).to_have_count(0)  # the owner's alone

        ann.reload()
        expect(ann.locator("#members")).to_contain_text("Bo")
        expect(ann.locator("#members").get_by_role("button", name="Remove")).to_have_count(1)
    finally:
        ann.context.close()
        bo.context.close()


def test_the_circle_page_fits_a_phone_and_a_laptop(app, live_server, browser):
    circles = app.extensions["spades.circles"]
    made = [signed_in(app, f"{n.lower()}@example.com", n) for n in ("Ann", "Bo", "Cy", "Di")]
    row = circles.create(made[0].uid, "A circle with a rather long name for")
    for client in made[1:]:
        circles.join(row.slug, circles.invite_token(row.slug), client.uid)
    now = time.time()
    circles.store.commit([PutCircleResult(row.slug, result(r.match_id, [s[1] for s in r.seats], r.scores, r.winner,
                                                           at=now - 100 + r.match_id)) for r in BY_HAND])
    for viewport in (PHONE, LAPTOP):
        page = browser_of(app, browser, live_server, "ann@example.com", "Ann", "🦊", viewport)
        try:
            page.goto(f"{live_server}/c/{row.slug}")
            expect(page.locator("#standings tbody tr")).to_have_count(4)
            expect(page.locator("#standings thead")).to_contain_text("ForAgainstRating")
            expect(page.locator("#standings tbody tr").filter(has_text="Cy").locator("td")).to_have_text(
                ["3", "0", "360", "760", re.compile("^−")])
            expect(page.locator("#partnerships")).to_contain_text("won 2 of 2")
            assert page.evaluate(TOO_WIDE) == [], viewport
            page.goto(f"{live_server}/c/{row.slug}/table")
            expect(page.locator("input[name=humans][value='4']")).to_be_checked()  # four members
            assert page.evaluate(TOO_WIDE) == [], viewport
            page.goto(f"{live_server}/c")
            assert page.evaluate(TOO_WIDE) == [], viewport
        finally:
            page.context.close()
