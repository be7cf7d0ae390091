"""My devices in real Chromium, on a phone and on a laptop: /me lists both browsers in
words with "this one" marked, and Sign out on the other one signs that browser out."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.5 Mobile/15E148 Safari/604.1")


def sign_in(page: Page, base: str, inbox, email: str) -> None:
    page.goto(base + "/signin")
    page.get_by_label("Email").fill(email)
    before = len(inbox.messages)
    page.get_by_role("button", name="Email me a code").click()
    page.wait_for_url(re.compile(r"/signin/code$"))
    deadline = time.monotonic() + 10
    while len(inbox.messages) == before and time.monotonic() < deadline:  # this sign-in's mail, not the last one
        time.sleep(0.05)
    assert len(inbox.messages) == before + 1
    page.get_by_label("Code").fill(re.search(r"\b(\d{6})\b", inbox.messages[-1].text).group(1))
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/(games|me/name)$"))


@pytest.mark.parametrize("width,height", [(390, 844), (1280, 800)])
def test_me_lists_two_devices_and_signs_out_the_other(live_server, browser, app, smtp, width, height):
    app.config.update(smtp.config())
    here = browser.new_context(viewport={"width": width, "height": height}, user_agent=IPHONE)
    there = browser.new_context(viewport={"width": 1280, "height": 800}, user_agent=FIREFOX)
    try:
        phone, laptop = here.new_page(), there.new_page()
        sign_in(laptop, live_server, smtp, "ann@example.com")
        sign_in(phone, live_server, smtp, "ann@example.com")
        phone.goto(live_server + "/me")
        devices = phone.locator("#devices li")
        expect(devices).to_have_count(2)
        expect(devices.nth(0)).to_contain_text("Safari on iPhone")
        expect(devices.nth(0)).to_contain_text("this one")
        expect(devices.nth(1)).to_contain_text("Firefox on Windows")
        expect(devices.nth(1)).not_to_contain_text("this one")
        other = devices.filter(has_text="Firefox on Windows").get_by_role("button", name="Sign out")
        other.scroll_into_view_if_needed()
        expect(other).to_be_in_viewport()
        assert phone.evaluate("document.documentElement.scrollWidth <= innerWidth")  # nothing sticks out
        other.click()
        phone.wait_for_url(re.compile(r"/me#devices$"))
        expect(phone.locator("main")).to_contain_text("Signed out: Firefox on Windows.")
        expect(phone.locator("#devices li")).to_have_count(1)
        laptop.goto(live_server + "/me")
        expect(laptop.locator("main")).to_contain_text("Not signed in")
        expect(laptop.locator("#devices")).to_have_count(0)
    finally:
        here.close()
        there.close()
