"""Signing in and rejoining in real Chromium, two browser contexts (two devices): a
practice game started anonymously on the first follows the person to their account; the
second device signs in with the same email, finds the game in Rejoin Games and lands in
the same seat with the same cards; signing out on every device ends the first's session."""

from __future__ import annotations

import re

from conftest import PLATE
from helpers.browser_auth import sign_in
from playwright.sync_api import Page, expect


def cards(page: Page) -> list[str]:
    return page.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)")


def test_sign_in_on_two_devices_and_rejoin_the_same_seat(live_server, browser, app, smtp):
    app.config.update(smtp.config())
    laptop_ctx, phone_ctx = browser.new_context(), browser.new_context()
    laptop, phone = laptop_ctx.new_page(), phone_ctx.new_page()
    try:
        laptop.goto(live_server + "/")
        laptop.get_by_label("Your name").first.fill("Ann")
        laptop.get_by_role("button", name="Practice", exact=True).click()
        laptop.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        code = laptop.url.rsplit("/", 1)[1]
        expect(laptop.locator("#hand .card")).to_have_count(13, timeout=15000)
        hand = cards(laptop)

        sign_in(laptop, live_server, smtp, "Ann@Example.com")
        game = laptop.locator(f"#rejoin [data-code='{code}']")
        expect(game).to_contain_text("With Bea against Rex and Kit")
        expect(laptop.locator("#account-link")).to_contain_text("Ann")

        # the phone has never seen the game; once signed in it is there, one click away
        phone.goto(live_server + "/games")
        expect(phone.locator(f"#rejoin [data-code='{code}']")).to_have_count(0)
        sign_in(phone, live_server, smtp, "ann@example.com")
        phone.goto(live_server + "/")
        phone.locator(f"#rejoin [data-code='{code}']").get_by_role("link", name=f"Back to {code}").click()
        phone.wait_for_url(re.compile(f"/g/{code}$"))
        expect(phone.locator("#hand .card")).to_have_count(13, timeout=15000)
        assert cards(phone) == hand
        expect(phone.locator(PLATE["top"])).to_contain_text("Bea")

        # sign out on every device, from the phone: the laptop is a visitor again
        phone.goto(live_server + "/me")
        phone.get_by_role("button", name="Sign out on every device").click()
        phone.wait_for_url(re.compile(r"/$"))
        laptop.goto(live_server + f"/g/{code}")
        expect(laptop.locator(PLATE["top"])).to_contain_text("Bea")
        expect(laptop.locator("#hand .card")).to_have_count(0)
        laptop.goto(live_server + "/me")
        expect(laptop.locator("#account")).to_contain_text("Not signed in")
    finally:
        laptop_ctx.close()
        phone_ctx.close()
