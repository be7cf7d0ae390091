"""The table page without its live connection, in real Chromium, on a network that drops
WebSockets (each socket the page opens is closed at once, "try again later"): the page
checks the table itself every few seconds and says so in its banner; a card is posted, and
the bots' answers appear without a reload (and no card another seat holds). Once the
socket gets through, the banner goes and the checks stop."""

from __future__ import annotations

import re

import pytest
from helpers.browser import DESKTOP, my_turn_or_the_end, others_cards_on, signed_in
from playwright.sync_api import WebSocketRoute, expect

from spades.rules_config import Rules
from spades.tables import Player, load_state

PID = "fallback-ann"
POLLING = "Live updates are off: checking the table every few seconds."


@pytest.fixture
def app_config() -> dict:
    """Bots that answer a moment after a move (its post's answer is the table before theirs)."""
    return {"PLAY_DELAYS": {"slow": 0.2, "normal": 0.2, "fast": 0.2}}


def test_without_its_socket_the_page_checks_the_table_and_play_goes_on(app, live_server, browser, service):
    code = service.create_practice(PID, "Ann", Rules(end="hands", hands=1, tempo="off", play_speed="fast"), "easy")
    page = signed_in(app, live_server, browser, PID, DESKTOP)
    blocked = True

    def socket(ws: WebSocketRoute) -> None:
        if blocked:
            ws.close(code=1013, reason="blocked")  # a code the page's socket retries after
        else:
            ws.connect_to_server()

    page.route_web_socket(re.compile(r"/ws(\?.*)?$"), socket)
    # the socket tries again every half second (not after the ws extension's growing waits)
    page.add_init_script("window.addEventListener('load', () => { htmx.config.wsReconnectDelay = () => 500; })")
    checks: list[str] = []
    page.on("request", lambda r: checks.append(r.url) if r.url.endswith("/view.json") else None)
    try:
        me = Player(PID)
        while (v := service.snapshot(code, PID).view.to_json())["phase"] == "bidding":  # Ann's bid, at the service
            assert service.wait_idle()
            if v["to_act"] == 0:
                service.act(code, me, "3", v["version"])
        assert service.wait_idle()
        page.goto(f"{live_server}/g/{code}")
        expect(page.locator("#offline")).to_have_text(POLLING, timeout=10000)
        page.evaluate("() => { window.notReloaded = true; }")
        my_turn_or_the_end(page)
        before = service.snapshot(code, PID).view.to_json()
        page.locator("#hand .fan.playable .card.legal").first.click()  # posted, as without script
        expect(page.locator("#hand .card")).to_have_count(12, timeout=10000)
        assert service.wait_idle()
        after = service.snapshot(code, PID).view.to_json()
        assert after["version"] > before["version"] + 1  # the bots played after Ann
        # their cards appear without a reload, from the page's own checks
        expect(page.locator("#turn")).to_have_attribute("data-version", str(after["version"]), timeout=10000)
        for t in after["trick"]["cards"] or after["tricks"][-1]["cards"]:
            expect(page.locator(f'#trick [data-card="{t}"]')).to_have_count(1)
        assert page.evaluate("() => window.notReloaded === true")
        expect(page.locator("#offline")).to_have_text(POLLING)
        assert others_cards_on(page, load_state(service.store, code).match, 0) == set()  # the checks show Ann's own

        blocked = False  # the network lets the socket through again
        expect(page.locator("body.live")).to_have_count(1, timeout=10000)
        expect(page.locator("#offline")).to_be_hidden()
        seen = len(checks)
        page.wait_for_timeout(3500)  # longer than the checks' interval
        assert len(checks) == seen
    finally:
        page.context.close()
