"""Three friends in real Chromium, each in their own browser context (their own cookie):
the host creates a table for three, one friend joins by the link and one by typing the
code, everyone sees the room change live (the options the host is changing stay as they
are), the host picks a partner and starts; the third plays on the other team beside a
bot. They play a hand by clicking, everyone presses Continue, and on the next hand (played
through the table service, the pages following it) the host deals without waiting."""

from __future__ import annotations

import re

from conftest import OPEN_PANEL, PLATE
from helpers.browser import play_until_hand_over
from playwright.sync_api import Page, expect

EMOJI = {"Hana": "🦊", "Ann": "🐼", "Bob": "🐨"}


def pick_emoji(page: Page, who: str) -> None:
    page.locator(f"label:has(input[name=emoji][value='{EMOJI[who]}'])").click()


def play_hand_through_the_service(service, code: str) -> None:
    """The people bid 3 or play their first legal card through the table service until the
    hand is over; the bots play on their own."""
    from spades.tables import Player, Stale

    people = [s.player_id for s in service.seats(code)]
    for _ in range(500):
        assert service.wait_idle()
        v = service.snapshot(code, None).view.to_json()
        if v["phase"] not in ("bidding", "playing"):
            return
        person = people[v["to_act"]]
        if person is None:
            continue  # a bot's turn: it moves on its own
        mine = service.snapshot(code, person).view.to_json()
        try:
            service.act(code, Player(person), "3" if v["phase"] == "bidding" else mine["legal"][0], v["version"])
        except Stale:
            continue
    raise AssertionError("the hand did not end")


def cards(page: Page) -> set[str]:
    return set(page.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)"))


def test_three_friends_join_pick_partners_play_continue_and_deal(live_server, browser, service):
    contexts = [browser.new_context() for _ in range(3)]
    host, ann, bob = (c.new_page() for c in contexts)
    try:
        # the host creates a table for three people
        host.goto(live_server + "/new")
        host.get_by_label("Your name").fill("Hana")
        pick_emoji(host, "Hana")
        host.locator("label:has(input[name=humans][value='3'])").click()
        host.get_by_role("button", name="Create the table").click()
        host.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        code = host.locator(".join-code strong").inner_text()
        link = host.locator(".join-link input").input_value()
        assert link.endswith(f"/j/{code}") and host.locator(".qr svg").count() == 1
        expect(host.locator("body.live")).to_have_count(1, timeout=10000)

        # Ann follows the link
        ann.goto(link)
        ann.get_by_label("Your name").fill("Ann")
        pick_emoji(ann, "Ann")
        ann.get_by_role("button", name="Join").click()
        ann.wait_for_url(re.compile(rf"/g/{code}$"))
        expect(host.locator("#room")).to_contain_text("Ann")  # pushed to the host, live

        # the host is changing the options when Bob arrives: the push keeps their choice
        host.locator("details.options > summary").click()
        host.locator("details.options label:has(input[name=speed][value='slow'])").click()

        # Bob types the code (in lower case) on the home page
        bob.goto(live_server + "/")
        bob.get_by_label("Have a code?").fill(code.lower())
        bob.locator(".friends").get_by_role("button", name="Join").click()
        bob.get_by_label("Your name").fill("Bob")
        pick_emoji(bob, "Bob")
        bob.get_by_role("button", name="Join").click()
        bob.wait_for_url(re.compile(rf"/g/{code}$"))
        expect(host.locator("#room")).to_contain_text("Bob")
        expect(ann.locator("#room")).to_contain_text("Bob")  # and to Ann
        expect(host.locator("details.options")).to_have_attribute("open", "")
        expect(host.locator("details.options input[name=speed][value='slow']")).to_be_checked()
        host.locator("details.options > summary").click()  # closed again, nothing saved

        # the host picks Bob as partner: Ann, live, is told she is on the other team
        expect(bob.locator("body.live")).to_have_count(1, timeout=10000)
        host.locator("li.member", has_text="Bob").get_by_role("button", name="Partner").click()
        expect(ann.locator("#room")).to_contain_text("Bob is the host's partner.")
        expect(ann.locator("li.member.is-me")).to_contain_text("Other team")
        assert ann.get_by_role("button", name="Start the game").count() == 0  # host only

        # the host starts; every page moves to the table
        host.get_by_role("button", name="Start the game").click()
        for p in (host, ann, bob):
            expect(p.locator("#felt")).to_be_visible(timeout=10000)
        expect(host.locator(PLATE["top"])).to_contain_text("Bob")  # the partner across
        expect(host.locator(PLATE["left"])).to_contain_text("Ann")  # the other team...
        expect(host.locator(PLATE["right"])).to_contain_text("Kit")  # ...beside a bot
        expect(ann.locator(PLATE["bottom"])).to_contain_text("Ann")
        expect(ann.locator(PLATE["bottom"] + " .avatar")).to_have_text(EMOJI["Ann"])
        for p in (host, ann, bob):
            expect(p.locator("body.live")).to_have_count(1, timeout=10000)
            expect(p.locator("#hand .card")).to_have_count(13)
        hands = [cards(p) for p in (host, ann, bob)]
        assert not (hands[0] & hands[1] or hands[0] & hands[2] or hands[1] & hands[2])  # each their own

        pages = [host, ann, bob]
        play_until_hand_over(pages)
        for p in pages:
            expect(p.locator(OPEN_PANEL)).to_contain_text("Hand 1")

        # Continue: the hand waits for everyone, and shows who is still reading
        host.get_by_role("button", name="Continue").click()
        expect(host.locator("#panel .reading")).to_contain_text("Ann, Bob")
        expect(host.get_by_role("button", name="Deal now")).to_be_visible()
        ann.get_by_role("button", name="Continue").click()
        expect(bob.locator("#panel .reading")).to_contain_text("You")
        expect(host.locator("#panel .reading")).to_have_text(re.compile(r"Still reading: Bob$"))
        expect(bob.locator(OPEN_PANEL)).to_be_visible()
        bob.get_by_role("button", name="Continue").click()
        for p in pages:
            expect(p.locator(".hand-no")).to_have_text("Hand 2")
            expect(p.locator(OPEN_PANEL)).to_have_count(0)

        # the next hand: the host deals without waiting for the others
        play_hand_through_the_service(service, code)
        for p in pages:
            expect(p.locator(OPEN_PANEL)).to_be_visible(timeout=15000)
        assert ann.get_by_role("button", name="Deal now").count() == 0
        host.get_by_role("button", name="Deal now").click()
        for p in pages:
            expect(p.locator(".hand-no")).to_have_text("Hand 3")
            expect(p.locator(OPEN_PANEL)).to_have_count(0)
    finally:
        for c in contexts:
            c.close()
