"""The table page walked through in real Chromium on a laptop (1280×800) and a phone
(390×844): a plate that shows a turn-based clock keeps its lines beside the avatar and the
top bar keeps to one line; the end of a match shows what to do next without a scroll; the
hint's bid is chosen in the bid box, not sent; the L and S keys are not shown on a phone;
the between-hands box leaves the top bar's rules link in reach."""

from __future__ import annotations

import re

import pytest
from conftest import OPEN_PANEL, PLATE
from helpers.browser import box
from helpers.lobby import join, new_table, post
from helpers.replay import ANN, finished_practice, play_out
from playwright.sync_api import expect

from spades import Rules

SIZES = [(1280, 800), (390, 844)]


def open_as(browser, live_server: str, client, path: str, width: int, height: int):
    """A browser of ``width``×``height`` (a phone's is touch) signed in as ``client``, on ``path``."""
    phone = width < 600
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone)
    context.add_cookies([{"name": "session", "value": client.get_cookie("session").value, "url": live_server}])
    page = context.new_page()
    page.goto(live_server + path)
    expect(page.locator("body.live")).to_have_count(1, timeout=10000)
    return context, page


def as_ann(app):
    """A test client that is the person in seat 0 of ``test_replay``'s practice tables."""
    client = app.test_client()
    with client.session_transaction() as session:
        session["pid"] = ANN
    client.get("/")
    return client


@pytest.mark.parametrize("width,height", SIZES)
def test_a_plate_with_a_days_clock_keeps_its_lines_and_the_top_bar_one_line(app, live_server, browser, service,
                                                                            width, height):
    hana, ann = app.test_client(), app.test_client()
    code = new_table(hana, humans=2, name="Hana", tempo="days-1")
    join(ann, code, "Ann")
    post(hana, code, "start")
    assert service.wait_idle()
    [waiting] = [t.seat for t in service.store.turns_of(code)]
    mover = next(c for c, s in ((hana, 0), (ann, 2)) if s == waiting)  # the one the table waits on
    context, page = open_as(browser, live_server, mover, f"/g/{code}", width, height)
    try:
        mine = PLATE["bottom"]
        left = page.locator(f"{mine} :is(.move-left, .move-left-short):visible")
        expect(left).to_have_text(re.compile(r"^(1 day|23 hours) left$" if width > 600 else r"^(1d|23h) left$"))
        avatar = box(page.locator(f"{mine} .avatar-box"))
        for line in (".plate-name", ":is(.move-left, .move-left-short):visible", ".chips"):  # beside the avatar
            b = box(page.locator(f"{mine} {line}"))
            assert b["x"] >= avatar["x"] + avatar["width"], (line, b, avatar)
            assert b["y"] < avatar["y"] + avatar["height"], (line, b, avatar)
        plate = box(page.locator(mine))
        assert plate["x"] >= 0 and plate["x"] + plate["width"] <= width, plate

        # the top bar: one line, nothing spilling out of it, the code and the rules link in it
        bar = box(page.locator(".topbar"))
        assert bar["height"] <= 56, bar
        assert page.locator(".topbar").evaluate("e => e.scrollWidth <= e.clientWidth")
        for item in page.locator(".topbar > :visible:not(.table-extras), .table-extras > :visible").all():
            b = box(item)  # (the extras lie in the bar itself on a wide screen)
            assert b["y"] >= bar["y"] and b["y"] + b["height"] <= bar["y"] + bar["height"], (item.inner_text(), b)
            assert b["x"] + b["width"] <= width, (item.inner_text(), b)
        expect(page.locator(".topbar .table-code")).to_contain_text(code)
        expect(page.get_by_role("link", name=re.compile("rules", re.I))).to_be_visible()
        if width < 600:
            # the rest opens from Menu, and closes again with Escape
            extras = page.locator("#table-extras")
            expect(extras).to_be_hidden()
            menu = page.get_by_role("button", name="Menu")
            menu.click()
            expect(menu).to_have_attribute("aria-expanded", "true")
            expect(extras.locator(".table-info")).to_contain_text("1 day a move")
            for name in ("Watch link", "Record"):
                expect(extras.get_by_role("link", name=name)).to_be_visible()
            expect(extras.get_by_role("button", name="Sound: off")).to_be_visible()
            page.keyboard.press("Escape")
            expect(extras).to_be_hidden()
            expect(menu).to_have_attribute("aria-expanded", "false")
        else:
            expect(page.locator(".table-info")).to_be_visible()
            expect(page.get_by_role("link", name="Watch link")).to_be_visible()
    finally:
        context.close()


@pytest.mark.parametrize("width,height", SIZES)
def test_the_end_of_a_match_shows_what_to_do_next_without_a_scroll(app, live_server, browser, service, width, height):
    code = finished_practice(service)
    context, page = open_as(browser, live_server, as_ann(app), f"/g/{code}", width, height)
    try:
        expect(page.locator(OPEN_PANEL)).to_have_count(1)
        expect(page.locator("#panel-title")).to_contain_text(re.compile("won the match|A draw"))
        for control in (page.get_by_role("link", name="Replay"), page.get_by_role("link", name="Analysis"),
                        page.get_by_role("button", name="Rematch")):
            expect(control).to_be_visible()
            b = box(control)
            assert b["y"] >= 0 and b["y"] + b["height"] <= height, (control, b)
        assert page.locator("#panel").evaluate("e => e.scrollTop") == 0
        expect(page.locator("#panel .chart-box")).to_be_visible()  # the chart and the last hand follow
    finally:
        context.close()


def practice_hinting(service, wanted) -> str:
    """A practice table for Ann on which it is her turn to bid and the hint is ``wanted``'s kind."""
    for _ in range(40):
        code = service.create_practice(ANN, "Ann", Rules(tempo="off", play_speed="fast"), "easy")
        assert service.wait_idle()
        if wanted(service.hint(code, ANN)):
            return code
    pytest.fail("no such hint in 40 deals")  # pragma: no cover


@pytest.mark.parametrize("kind", ["number", "nil"])
def test_the_hint_chooses_its_bid_in_the_bid_box_without_sending_it(app, live_server, browser, service, kind):
    code = practice_hinting(service, (lambda h: isinstance(h, int)) if kind == "number" else (lambda h: h == "nil"))
    hint = service.hint(code, ANN)
    context, page = open_as(browser, live_server, as_ann(app), f"/g/{code}", 1280, 800)
    try:
        box_ = page.locator("#bid-value")
        expect(box_).to_have_value("3")
        page.get_by_role("button", name="One more").click()  # the player's own number first
        page.get_by_role("button", name="Hint").click()
        expect(page.locator(".hint")).to_contain_text(f"The Hard bot would bid {hint}")
        if kind == "number":
            expect(box_).to_have_value(str(hint))
            expect(box_).to_be_focused()
            typed = "7" if hint != 7 else "8"
            page.keyboard.type(typed)  # the hint's number is selected: typing replaces it
            expect(box_).to_have_value(typed)
        else:
            expect(page.locator("#hand button[value=nil]")).to_be_focused()
            expect(page.locator("#hand button[value=nil]")).to_have_class(re.compile(r"\bhinted\b"))
        page.wait_for_timeout(300)  # nothing was sent: still Ann's bid to make
        assert service.snapshot(code, ANN).view.to_json()["bids"][0] is None
        expect(page.locator(PLATE["bottom"] + " .chip-bid")).to_have_text("bid –")
    finally:
        context.close()


@pytest.mark.parametrize("width,height", SIZES)
def test_the_l_and_s_keys_are_shown_only_where_there_is_a_keyboard(app, live_server, browser, service, width, height):
    code = service.create_practice(ANN, "Ann", Rules(tempo="off", play_speed="fast"), "easy")
    context, page = open_as(browser, live_server, as_ann(app), f"/g/{code}", width, height)
    try:
        expect(page.locator("#last-trick-box summary")).to_be_visible()
        keys = page.locator(".lookback-box kbd")
        expect(keys).to_have_count(2)
        for k in keys.all():
            if width < 600:
                expect(k).to_be_hidden()
            else:
                expect(k).to_be_visible()
    finally:
        context.close()


@pytest.mark.parametrize("width,height", SIZES)
def test_the_between_hands_box_leaves_the_rules_link_in_reach(app, live_server, browser, service, width, height):
    code = service.create_practice(ANN, "Ann", Rules(tempo="off", play_speed="fast"), "easy")
    play_out(service, code, ANN, until_hand_over=True)
    context, page = open_as(browser, live_server, as_ann(app), f"/g/{code}", width, height)
    try:
        expect(page.locator(OPEN_PANEL)).to_have_count(1)
        expect(page.get_by_role("button", name="Continue")).to_be_visible()
        link = page.locator(".topbar .rules-link")
        expect(link).to_be_visible()
        on_top = link.evaluate("""a => {  // what a tap on the link's middle reaches
            const r = a.getBoundingClientRect();
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            return !!hit && a.contains(hit);
        }""")
        assert on_top
        dialog, bar = box(page.locator("#panel .dialog")), box(page.locator(".topbar"))
        assert dialog["y"] >= bar["y"] + bar["height"], (dialog, bar)  # the box starts under the bar
        link.click()
        page.wait_for_url(re.compile(r"/rules"))
    finally:
        context.close()
