"""A newcomer's first sign-in in real Chromium (a phone): the site asks what friends
should call them, the emoji already offered; once saved, the top bar names them and
links to circles, and the circles page says what a circle is."""

from __future__ import annotations

import re

from helpers.browser_auth import sign_in
from playwright.sync_api import expect


def test_a_first_sign_in_asks_for_a_name_and_the_top_bar_leads_to_circles(live_server, browser, app, smtp):
    app.config.update(smtp.config())
    context = browser.new_context(viewport={"width": 390, "height": 844}, reduced_motion="reduce")
    page = context.new_page()
    try:
        sign_in(page, live_server, smtp, "newcomer@example.com", landing=r"/me/name$")
        expect(page.get_by_role("heading", name="What should friends call you?", level=1)).to_be_visible()
        expect(page.get_by_label("Name")).to_be_focused()
        offered = page.locator("input[name=emoji]:checked")
        expect(offered).to_have_count(1)
        emoji = offered.get_attribute("value")
        page.get_by_label("Name").fill("Nia")
        page.get_by_role("button", name="Save").click()
        page.wait_for_url(re.compile(r"/games$"))
        bar = page.locator("#account-link")
        expect(bar).to_contain_text(f"{emoji} Nia")
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")  # the bar fits a phone
        bar.get_by_role("link", name="Circles").click()
        page.wait_for_url(re.compile(r"/c$"))
        expect(page.get_by_role("heading", name="Circles", level=1)).to_be_visible()
        expect(page.locator("main")).to_contain_text("A circle is a home for a group of friends")
    finally:
        context.close()
