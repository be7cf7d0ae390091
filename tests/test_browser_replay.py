"""The replay in real Chromium: a finished match stepped to its end with the Next button
and again with the arrow keys, each hand's result equal to the ``replay`` command's
report of the same record; a deep link, and a card at a time with Shift; the links alone
without JavaScript; no page breaks the script policy."""

from __future__ import annotations

import pytest
from helpers.replay import finished_practice
from playwright.sync_api import Browser, Page, expect

from spades import replay_report

STEPS = [(h, t) for h in (1, 2) for t in [*map(str, range(14)), "end"]]


@pytest.fixture
def match(service) -> tuple[str, dict]:
    """A finished two-hand practice match and the replay command's report of its record."""
    code = finished_practice(service, hands=2)
    report = replay_report(service.record(code, None))
    assert report["ok"] and report["finished"]
    return code, report


@pytest.fixture
def policy_errors(page: Page) -> list[str]:
    """Messages of the browser's console that tell of a refused script or style."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def at(page: Page, hand: int, trick: str) -> None:
    """The page shows that step, and its script is ready for the next key."""
    replay = page.locator("#replay")
    expect(replay).to_have_attribute("data-hand", str(hand))
    expect(replay).to_have_attribute("data-trick", trick)
    expect(replay.locator(".keys")).to_be_visible()


def check_result(page: Page, hand: dict) -> None:
    """The step at a hand's end shows the report's tricks, points, bags and totals."""
    taken = [int(page.locator(f'.seat[data-seat="{s}"] .taken').inner_text()) for s in range(4)]
    assert taken == hand["tricks"]
    for col, key in (("points", "score"), ("total", "total"), ("bags", "bags")):
        shown = [int(page.locator(f'.r-{col}[data-team="{t}"]').inner_text()) for t in (0, 1)]
        assert shown == hand[key], col
    scores = [int(page.locator(f'.team-box[data-team="{t}"] .score').inner_text()) for t in (0, 1)]
    bags = [int(page.locator(f'.team-box[data-team="{t}"] .bags').inner_text()) for t in (0, 1)]
    assert scores == hand["total"] and bags == hand["bags"]


def step_through(page: Page, report: dict, move) -> int:
    """Go from the first step to the last with ``move``; returns how many results were checked."""
    checked = 0
    for i, (hand, trick) in enumerate(STEPS):
        at(page, hand, trick)
        if trick == "end":
            check_result(page, report["hands"][hand - 1])
            checked += 1
        if i + 1 < len(STEPS):
            move()
    return checked


def test_the_replay_steps_to_the_end_with_the_buttons_and_the_arrow_keys(live_server, page: Page, match, policy_errors):
    code, report = match
    page.goto(f"{live_server}/g/{code}/replay")
    expect(page.locator(".keys")).to_be_visible()  # the script is running
    expect(page.get_by_text("Previous", exact=True)).to_have_attribute("aria-disabled", "true")

    page.evaluate("() => { window.samePage = true; }")
    assert step_through(page, report, lambda: page.locator('#replay a[rel="next"]').click()) == 2
    assert page.evaluate("() => window.samePage === true")  # htmx swapped each step in, no reload
    expect(page).to_have_url(f"{live_server}/g/{code}/replay?hand=2&trick=end")
    expect(page.locator('#replay a[rel="next"]')).to_have_count(0)
    winner = ("Ann & Bea", "Rex & Kit")[report["winner"]]
    expect(page.locator(".outcome")).to_have_text(f"{winner} won the match.")

    page.locator('#replay a[rel="first"]').click()
    at(page, 1, "0")
    assert step_through(page, report, lambda: page.keyboard.press("ArrowRight")) == 2
    page.keyboard.press("ArrowLeft")
    at(page, 2, "13")
    page.go_back()  # every step is in the history
    at(page, 2, "end")
    assert policy_errors == []


def test_a_deep_link_opens_its_step_and_the_keys_go_on_from_there(live_server, page: Page, match, policy_errors):
    code, report = match
    page.goto(f"{live_server}/g/{code}/replay?hand=2&trick=5")
    at(page, 2, "5")
    expect(page.locator("#step-title")).to_contain_text("Hand 2 of 2 · after trick 5 of 13")
    expect(page.locator(".replay-trick .face")).to_have_count(4)
    expect(page.locator(".seat .face")).to_have_count(32)
    page.keyboard.press("Shift+ArrowRight")  # a card at a time
    expect(page.locator("#replay")).to_have_attribute("data-card", "1")
    expect(page).to_have_url(f"{live_server}/g/{code}/replay?hand=2&trick=5&card=1")
    expect(page.locator(".replay-trick .face")).to_have_count(1)
    expect(page.locator(".seat .face")).to_have_count(31)
    page.reload()  # the card's own link opens that card
    expect(page.locator("#replay")).to_have_attribute("data-card", "1")
    expect(page.locator(".keys")).to_be_visible()
    page.keyboard.press("Shift+ArrowLeft")
    expect(page.locator("#replay")).to_have_attribute("data-card", "0")
    at(page, 2, "5")
    page.keyboard.press("ArrowLeft")
    at(page, 2, "4")
    expect(page).to_have_url(f"{live_server}/g/{code}/replay?hand=2&trick=4")
    page.locator('#replay a[rel="next"]').focus()
    page.keyboard.press("Enter")
    at(page, 2, "5")
    expect(page.locator('#replay a[rel="next"]')).to_be_focused()  # a keyboard user stays on Next
    page.get_by_role("link", name="1", exact=True).click()  # the first hand's start
    at(page, 1, "0")
    expect(page.locator(".seat .face")).to_have_count(52)
    expect(page.locator(".replay-trick .face")).to_have_count(0)
    assert policy_errors == []


def test_without_javascript_the_links_step_through(live_server, browser: Browser, match):
    code, report = match
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{live_server}/g/{code}/replay?hand=1&trick=13")
        expect(page.locator(".keys")).to_be_hidden()
        page.get_by_role("link", name="Next step").click()
        page.wait_for_url(f"{live_server}/g/{code}/replay?hand=1&trick=end")
        check_result(page, report["hands"][0])
        page.get_by_role("link", name="Score sheet").click()
        page.wait_for_url(f"{live_server}/g/{code}/record")
        totals = [int(page.locator(f'tbody[data-hand="2"] tr[data-team="{t}"] [data-col="total"]').inner_text())
                  for t in (0, 1)]
        assert totals == report["hands"][1]["total"]
    finally:
        context.close()
