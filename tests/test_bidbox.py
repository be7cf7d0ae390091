"""The bid box in real Chromium at a suicide table: it starts at the least bid the rules
allow (4, not the usual 3), and − and + keep within the bids allowed."""

from __future__ import annotations

import pytest
from helpers.browser import DESKTOP, signed_in
from playwright.sync_api import expect

from spades.rules_config import Rules

PID = "bidbox-ann"


def test_the_bid_box_steps_within_the_bids_the_rules_allow(app, live_server, browser, service):
    rules = Rules(bidding_variant="suicide", end="hands", hands=1, tempo="off", play_speed="fast")
    for _ in range(20):  # a deal (the same on every run) where Ann bids before her partner: nil or 4 up
        code = service.create_practice(PID, "Ann", rules, "easy")
        assert service.wait_idle()
        legal = service.snapshot(code, PID).view.to_json()["legal"]
        if "nil" in legal and 4 in legal:
            break
    else:
        pytest.fail("Ann never bid first for her team")  # pragma: no cover
    page = signed_in(app, live_server, browser, PID, DESKTOP)
    try:
        page.goto(f"{live_server}/g/{code}")
        box = page.locator("#bid-value")
        expect(box).to_have_value("4")
        expect(box).to_have_attribute("min", "4")
        page.get_by_role("button", name="One less").click()
        expect(box).to_have_value("4")
        page.get_by_role("button", name="One more").click()
        expect(box).to_have_value("5")
        expect(page.locator("#hand button[value=nil]")).to_be_visible()
        page.get_by_role("button", name="Bid", exact=True).click()
        expect(page.locator("#hand .bidbox")).to_have_count(0, timeout=15000)
        assert service.snapshot(code, PID).view.to_json()["bids"][0] == 5
    finally:
        page.context.close()
