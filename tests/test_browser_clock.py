"""The clock in real Chromium, with a 6-second turn (``CLOCK_SECONDS_OVERRIDE``): two
friends at a table, the ring and its count going down around the avatar of the seat to
act in both browsers, the tab title saying whose turn it is, the table moving for the
seat when nobody clicks, and after the third time a bot playing for it, said once. (Six
seconds leave the first turn time to be looked at in both browsers while both run on a
busy machine; four were once gone before the tab's title was read.)"""

from __future__ import annotations

import re
import time

import pytest
from conftest import PLATE, two_friends
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout


@pytest.fixture
def app_config() -> dict:
    return {"CLOCK_SECONDS_OVERRIDE": 6}


def countdown(page: Page, seat: str) -> list[int]:
    """The numbers the seat's clock shows, read until it goes down (or the turn ends)."""
    return page.evaluate("""(seat) => new Promise(resolve => {
        const seen = [];
        const read = () => {
            const c = document.querySelector(`.plate[data-seat="${seat}"] .clock`);
            if (!c) return resolve(seen);
            const n = parseInt(c.textContent, 10);
            if (!seen.length || seen[seen.length - 1] !== n) seen.push(n);
            if (seen.length >= 2) return resolve(seen);
            setTimeout(read, 50);
        };
        read();
    })""", seat)


def test_the_ring_counts_down_and_the_table_moves_when_time_runs_out(live_server, browser):
    contexts = [browser.new_context(viewport={"width": 390, "height": 844}) for _ in range(2)]
    host, ann = (c.new_page() for c in contexts)
    try:
        two_friends(host, ann, live_server)
        for p in (host, ann):
            expect(p.locator("#felt")).to_be_visible(timeout=10000)
            expect(p.locator("body.live")).to_have_count(1, timeout=10000)

        # the bots bid at once; then a person's clock runs, seen in both browsers
        expect(host.locator(".plate .clock")).to_have_count(1, timeout=10000)
        seat = host.locator(".plate:has(.clock)").get_attribute("data-seat")
        mine, other = (host, ann) if seat == "0" else (ann, host)
        expect(other.locator(f'.plate[data-seat="{seat}"] .clock')).to_have_count(1)
        expect(mine.locator("#told.my-turn")).to_have_count(1)
        expect(mine).to_have_title(re.compile(r"^● Your turn — "))
        expect(other).not_to_have_title(re.compile(r"^●"))
        ring = mine.locator(PLATE["bottom"] + " .ring-left")
        assert ring.evaluate("r => getComputedStyle(r).animationName") == "ring-run"
        assert ring.evaluate("r => r.style.animationDuration") == "6s"
        seen = countdown(mine, seat)
        assert len(seen) == 2 and seen[0] <= 6 and seen[1] < seen[0], seen  # counting down

        # nobody clicks: when the time is up the table bids for that seat
        bid = mine.locator(PLATE["bottom"] + " .chip-bid")
        expect(bid).to_have_text("bid –")
        expect(bid).not_to_have_text("bid –", timeout=10000)
        expect(other.locator(f'.plate[data-seat="{seat}"] .chip-bid')).not_to_have_text("bid –")

        # two more run out (two cards): a bot plays for the seat, told once, in one box with
        # Take over, and the cards stay on the phone's screen
        box = mine.locator("#told .autopilot")
        deadline = time.monotonic() + 60
        while not box.count():  # the other person moves on their turns: the hand waits for them
            assert time.monotonic() < deadline, "no autopilot"
            act = other.locator("#hand .bidbox button[value=bid], #hand .fan.playable .card.legal").first
            try:
                if act.count():
                    act.click(timeout=2000)
            except PlaywrightTimeout:
                pass  # the hand changed under the click: look again
            mine.wait_for_timeout(200)
        expect(box).to_be_visible()
        expect(box).to_contain_text("Your time ran out three times in a row")
        expect(mine.locator(".status .notice")).to_have_count(0)
        expect(mine.locator(".status")).not_to_contain_text("Three in a row")
        bottoms = mine.evaluate("() => [...document.querySelectorAll('#hand .card')]"
                                ".map(c => c.getBoundingClientRect().bottom)")
        assert bottoms and max(bottoms) <= 844, bottoms
        box.get_by_role("button", name="Take over").click()
        expect(box).to_have_count(0, timeout=10000)
    finally:
        for c in contexts:
            c.close()
