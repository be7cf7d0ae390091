"""Download my data in real Chromium: a person who played a practice match and signed in
finds "Download my data" on /me on a phone (390×844) and a laptop (1280×800), and the
file that arrives holds their account and that match with its record."""

from __future__ import annotations

import json
import re

from playwright.sync_api import expect

CODE_RE = re.compile(r"\b(\d{6})\b")


def test_me_offers_the_download_and_the_file_holds_the_persons_match(live_server, browser, app, smtp):
    app.config.update(smtp.config())
    context = browser.new_context(viewport={"width": 390, "height": 844}, accept_downloads=True)
    page = context.new_page()
    try:
        page.goto(live_server + "/")
        page.get_by_label("Your name").first.fill("Ann")
        page.get_by_role("button", name="Practice", exact=True).click()
        page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        code = page.url.rsplit("/", 1)[1]

        page.goto(live_server + "/signin")
        page.get_by_label("Email").fill("ann@example.com")
        page.get_by_role("button", name="Email me a code").click()
        page.wait_for_url(re.compile(r"/signin/code$"))
        page.get_by_label("Code").fill(CODE_RE.search(smtp.wait_for("ann@example.com").text).group(1))
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(re.compile(r"/games$"))

        for width, height in ((390, 844), (1280, 800)):
            page.set_viewport_size({"width": width, "height": height})
            page.goto(live_server + "/me")
            link = page.get_by_role("link", name="Download my data")
            link.scroll_into_view_if_needed()
            expect(link).to_be_visible()
            box = link.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width  # on the screen

        with page.expect_download() as info:
            link.click()
        download = info.value
        assert re.fullmatch(r"spades-data-\d{4}-\d{2}-\d{2}\.json", download.suggested_filename)
        with open(download.path(), encoding="utf-8") as f:
            data = json.load(f)
        assert data["account"]["email"] == "ann@example.com"
        [match] = [m for m in data["matches"] if m["table"] == code]
        assert match["names"][match["seat"]] == "Ann" and match["record"]["format"] == "spades-match/1"
    finally:
        context.close()
