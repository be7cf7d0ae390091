"""The analysis in real Chromium: refused with no card shown while the match runs; once it
is over, the page shows its progress until its socket says the analysis is done and opens
it, then steps through the hand with Next, every step marked, double-dummy figures from
seven tricks left; every step link is a target of 24 px at least (WCAG 2.2's target size,
by axe's rule)."""

from __future__ import annotations

import concurrent.futures as cf
import threading
from pathlib import Path

import pytest
from helpers.analysis import ANN, as_player, play_out
from playwright.sync_api import Page, expect

from spades.rules import Rules

AXE = Path(__file__).parent / "vendor" / "axe-core-4.14.1.min.js"


@pytest.fixture
def browser_context_args(browser_context_args):
    """The site's script policy would refuse axe's script, injected by the test."""
    return {**browser_context_args, "bypass_csp": True}


@pytest.fixture
def app_config():
    pool = cf.ThreadPoolExecutor(1)
    yield {"ANALYSIS_POOL": pool, "ANALYSIS_BUDGET": 0.004}
    pool.shutdown(wait=False, cancel_futures=True)


def test_the_analysis_page_in_a_browser(live_server, page: Page, app, app_config, service):
    code = service.create_practice(ANN, "Ann", Rules(end="hands", hands=1, tempo="off", play_speed="fast"), "easy")
    client = as_player(app.test_client(), ANN)
    client.get("/")
    page.context.add_cookies([{"name": "session", "value": client.get_cookie("session").value, "url": live_server}])

    page.goto(f"{live_server}/g/{code}/analysis")
    expect(page.get_by_text("still being played. Its analysis opens when the match is over.")).to_be_visible()
    expect(page.locator("[data-card]")).to_have_count(0)

    play_out(service, code)
    # the analysis's one thread is held until the first answer has been read (at this budget
    # the analysis is done, and the page moved on, before its body could be read otherwise)
    gate = threading.Event()
    app_config["ANALYSIS_POOL"].submit(gate.wait, 30)
    first = page.goto(f"{live_server}/g/{code}/analysis")
    assert 'id="analysis-progress"' in first.text()  # the progress first, then the analysis it opens
    gate.set()
    analysis = page.locator("#analysis")
    expect(analysis).to_have_attribute("data-step", "0", timeout=30_000)  # the socket said it was done
    expect(page.locator(".verdict-box")).to_be_visible()
    expect(page.locator(".ev-chart polyline")).to_have_count(1)
    expect(page.locator(".step-list li")).to_have_count(56)
    expect(page.locator('.seat[data-seat="0"] .held [data-card]')).to_have_count(13)  # face up, every seat
    for step in range(1, 6):
        page.locator('#analysis a[rel="next"]').click()
        expect(analysis).to_have_attribute("data-step", str(step))
    expect(page.locator("#step-title")).to_contain_text("step 6 of 56")
    page.locator('.step-list li[data-step="40"] a').click()  # a card with 4 tricks left
    expect(analysis).to_have_attribute("data-step", "40")
    expect(page.locator(".dd-table td")).not_to_have_count(0)
    expect(page.locator(".losses tbody tr")).to_have_count(4)
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("() => axe.run('.step-list', {runOnly: {type: 'rule', values: ['target-size']}})"
                          ".then(r => r.violations.flatMap(v => v.nodes.map(n => n.target.join(' '))))")
    assert found == []
