"""A circle's Discord channel in real Chromium: Ann makes a circle, pastes a webhook on its
page and the test post lands in the loopback fake of Discord; she starts a table for the
circle and, once the sender has run, its news lands there too."""

from __future__ import annotations

import re

import pytest
from helpers.browser_circles import LAPTOP, browser_of
from playwright.sync_api import expect


@pytest.fixture
def app_config(discord):
    return {"PUBLIC_URL": "https://spades.example", "CHANNEL_VIA": discord.base, "CHANNEL_TICK_S": 0}


def test_the_owner_pastes_a_webhook_and_the_circles_news_lands_in_the_channel(app, live_server, browser, discord):
    ann = browser_of(app, browser, live_server, "ann@example.com", "Ann", "🦊", LAPTOP)
    try:
        ann.goto(f"{live_server}/c/new")
        ann.get_by_label("Name of the circle").fill("Friday Spades")
        ann.get_by_role("button", name="Create the circle").click()
        expect(ann.get_by_role("heading", name="Friday Spades", level=1)).to_be_visible()

        url = discord.url()
        ann.get_by_label("Webhook URL").fill(url)
        ann.get_by_role("button", name="Post there").click()
        expect(ann.locator("#channel")).to_contain_text(f"Posting to a Discord channel (…{url[-6:]})")
        assert url.rsplit("/", 1)[1] not in ann.content()
        [test_post] = discord.posts
        assert test_post["content"] == "Spades for **Friday Spades** will post here."

        ann.get_by_role("link", name="Start a table for the circle").click()
        ann.get_by_role("button", name="Start the table").click()
        expect(ann).to_have_url(re.compile(r"/g/[A-Z0-9]+$"))
        code = ann.url.rsplit("/", 1)[1]
        assert app.extensions["spades.channel_sender"].run_once() == 1
        news = discord.posts[-1]
        assert news["content"].startswith("**Ann** started a table for **Friday Spades**")
        assert news["embeds"][0]["url"] == f"https://spades.example/g/{code}"
        assert discord.violations == []
    finally:
        ann.context.close()
