"""Deleting one's account in real Chromium, on a phone's width and a laptop's: a wrong
confirmation is refused with its sentence, the right one lands on the home page signed out."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from spades.web.accounts.delete import REFUSED

CODE_RE = re.compile(r"\b(\d{6})\b")


def test_delete_my_account_at_both_widths(live_server, browser, app, smtp):
    app.config.update(smtp.config())
    for width, height, email in ((390, 844, "phone.person@example.com"), (1280, 800, "laptop.person@example.com")):
        ctx = browser.new_context(viewport={"width": width, "height": height})
        page = ctx.new_page()
        try:
            page.goto(live_server + "/signin")
            page.get_by_label("Email").fill(email)
            page.get_by_role("button", name="Email me a code").click()
            page.wait_for_url(re.compile(r"/signin/code$"))
            page.get_by_label("Code").fill(CODE_RE.search(smtp.wait_for(email).text).group(1))
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(re.compile(r"/me/name$"))  # a new account is asked for a name first

            page.goto(live_server + "/me")
            section = page.locator("#delete-account")
            expect(section).to_contain_text('Your seat in them is named "A former player"')
            section.get_by_label("Type the email you sign in with").fill("someone.else@example.com")
            section.get_by_role("button", name="Delete my account").click()
            expect(page.get_by_role("alert")).to_have_text(REFUSED)

            page.locator("#delete-account").get_by_label("Type the email you sign in with").fill(email.upper())
            page.locator("#delete-account").get_by_role("button", name="Delete my account").click()
            page.wait_for_url(re.compile(r"/$"))
            page.goto(live_server + "/me")
            expect(page.locator("#account")).to_contain_text("Not signed in")
            expect(page.locator("#delete-account")).to_have_count(0)
        finally:
            ctx.close()
