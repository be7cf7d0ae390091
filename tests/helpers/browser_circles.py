"""Circles in the browser: screen sizes, browsers of people, a circle made and joined."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, expect

from helpers.circles import signed_in

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}


def browser_of(app, browser: Browser, live_server: str, email: str, name: str, emoji: str, viewport: dict,
               permissions: tuple[str, ...] = ()) -> Page:
    """A browser of its own, signed in to a new account ``email``."""
    client = signed_in(app, email, name, emoji)
    client.get("/")
    context = browser.new_context(viewport=viewport, reduced_motion="reduce", permissions=list(permissions))
    context.add_cookies([{"name": "session", "value": client.get_cookie("session").value, "url": live_server}])
    return context.new_page()


def make_and_join(owner: Page, member: Page, live_server: str, name: str) -> str:
    """``owner`` makes a circle on its form and ``member`` joins it by the invite link the
    owner's page shows: the circle's slug."""
    owner.goto(f"{live_server}/c/new")
    owner.get_by_label("Name of the circle").fill(name)
    owner.get_by_role("button", name="Create the circle").click()
    expect(owner.get_by_role("heading", name=name, level=1)).to_be_visible()
    member.goto(owner.locator("a[rel=invite]").get_attribute("href"))
    member.get_by_role("button", name="Join").click()
    expect(member.get_by_role("heading", name=name, level=1)).to_be_visible()
    return owner.url.rsplit("/", 1)[1]
