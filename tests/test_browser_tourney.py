"""A tourney in real Chromium, each person in their own browser context: Ann creates a
knockout and registers a team, Bo follows her team link, Cy and Di register alone; Ann
(the director) fills a place with a bot team and starts; the players of round 1 press
Ready and are taken to their table, sitting with their own team; they play the match
(one hand, in tests); a watcher's tourney page shows the result without a reload."""

from __future__ import annotations

import re
import time

import pytest
from conftest import PLATE
from helpers.browser import play_until_hand_over
from playwright.sync_api import Page, expect

EMOJI = {"Ann": "🐼", "Bo": "🐨", "Cy": "🦊", "Di": "🐯"}


@pytest.fixture
def app_config() -> dict:
    return {"TOURNEY_RULES_OVERRIDE": {"end": "hands", "hands": 1}, "TOURNEY_TICK_S": 0.2,
            "TOURNEY_SEED_SOURCE": lambda: "browser-tourney"}


def who(page: Page, name: str) -> None:
    page.get_by_label("Your name").fill(name)
    page.locator(f"label:has(input[name=emoji][value='{EMOJI[name]}'])").click()


def test_four_people_a_bot_team_a_knockout_round_and_live_standings(live_server, browser):
    contexts = [browser.new_context() for _ in range(5)]
    ann, bo, cy, di, watcher = (c.new_page() for c in contexts)
    people = {"Ann": ann, "Bo": bo, "Cy": cy, "Di": di}
    try:
        ann.goto(live_server + "/t/new")
        ann.get_by_label("Name of the tourney").fill("Friday cup")
        ann.get_by_label("Teams at most").fill("4")
        ann.get_by_label(re.compile("Bot teams welcome")).check()
        who(ann, "Ann")  # she plays in it too, with a partner (the form's choice unless changed)
        ann.get_by_role("button", name="Create the tourney").click()
        ann.wait_for_url(re.compile(r"/t/[A-Z2-9]{6}$"))
        code = ann.url.rsplit("/", 1)[1]
        expect(ann.locator(".my-team")).to_contain_text("You are registered")
        link = ann.locator("#team-link-url").inner_text().strip()
        assert f"/t/{code}/team/" in link

        bo.goto(link)
        who(bo, "Bo")
        bo.get_by_role("button", name="Join the team").click()
        bo.wait_for_url(re.compile(rf"/t/{code}$"))
        for name in ("Cy", "Di"):
            p = people[name]
            p.goto(f"{live_server}/t/{code}")
            who(p, name)
            p.get_by_role("button", name=re.compile("Register alone")).click()
            expect(p.locator(".my-team")).to_contain_text("You are registered")
        watcher.goto(f"{live_server}/t/{code}")
        expect(watcher.locator("body.live")).to_have_count(1, timeout=10000)
        expect(watcher.locator(".team-list")).to_contain_text("Ann")  # registrations show live
        expect(watcher.locator(".team-list")).to_contain_text("Bo")
        expect(watcher.locator(".team-list")).to_contain_text("Di")

        ann.reload()
        ann.get_by_role("button", name="Add a bot team").click()
        ann.get_by_role("button", name="Start").click()
        expect(watcher.locator(".round").first).to_contain_text("Round 1", timeout=10000)  # started: live

        # the players of round 1 are asked Ready? (their pages change live), press it, and
        # are taken to their table
        round1 = watcher.locator(".round").first
        expect(round1.locator(".pairing.status-due")).to_have_count(1, timeout=10000)
        in_round1 = round1.locator(".pairing.status-due .teams").inner_text()
        playing = [n for n in people if n in in_round1]
        assert len(playing) in (2, 4), in_round1  # one team and the bots, or both human teams
        for name in playing:
            expect(people[name].locator(".my-match")).to_contain_text("Ready?", timeout=10000)
        for name in playing:
            people[name].get_by_role("button", name="Ready", exact=True).click()
        for name in playing:
            p = people[name]
            p.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"), timeout=15000)
            expect(p.locator("body.live")).to_have_count(1, timeout=10000)
            expect(p.locator(PLATE["bottom"])).to_contain_text(name)  # in their own seat
            partner = {"Ann": "Bo", "Bo": "Ann", "Cy": "Di", "Di": "Cy"}[name]
            expect(p.locator(PLATE["top"])).to_contain_text(partner)  # their own partner across
            expect(p.locator(".record-link", has_text="Tourney")).to_have_attribute("href", f"/t/{code}")
        tables = {people[n].url for n in playing}
        assert len(tables) == 1  # the two human teams at one table, or one team with the bots

        before = watcher.locator(".round").first.inner_text()
        play_until_hand_over([people[n] for n in playing])
        # the watcher's page, never reloaded, shows the result
        expect(watcher.locator(".round").first.locator(".winner")).to_have_count(1, timeout=15000)
        assert watcher.locator(".round").first.inner_text() != before
        deadline = time.monotonic() + 5
        while "won by" not in watcher.locator(".round").first.inner_text() and time.monotonic() < deadline:
            watcher.wait_for_timeout(100)
        assert "won by" in watcher.locator(".round").first.inner_text()
        replay = watcher.locator(".round").first.get_by_role("link", name="Replay")
        expect(replay).to_have_attribute("href", re.compile(r"^/g/[A-Z2-9]{6}/replay$"))  # look back at it
    finally:
        for c in contexts:
            c.close()


def test_what_a_person_types_to_register_stays_when_the_page_changes_live(live_server, browser):
    contexts = [browser.new_context() for _ in range(2)]
    ann, bo = (c.new_page() for c in contexts)
    try:
        ann.goto(live_server + "/t/new")
        ann.get_by_label("Name of the tourney").fill("Tuesday cup")
        ann.locator("label:has(input[name=play][value=no])").click()  # she registers later
        ann.get_by_role("button", name="Create the tourney").click()
        ann.wait_for_url(re.compile(r"/t/[A-Z2-9]{6}$"))
        bo.goto(ann.url)
        expect(bo.locator("body.live")).to_have_count(1, timeout=10000)
        expect(bo.locator(".tourney-status")).to_contain_text("0 of")
        who(bo, "Bo")  # Bo is still typing when Ann registers
        who(ann, "Ann")
        ann.get_by_role("button", name=re.compile("Register alone")).click()
        expect(ann.locator(".my-team")).to_contain_text("You are registered")
        expect(bo.locator(".tourney-status")).to_contain_text("1 of")  # Bo's page heard of it
        expect(bo.get_by_label("Your name")).to_have_value("Bo")  # and kept what Bo typed
        expect(bo.locator(f"input[name=emoji][value='{EMOJI['Bo']}']")).to_be_checked()
        bo.get_by_role("button", name=re.compile("Register alone")).click()
        expect(bo.locator(".my-team")).to_contain_text("You are registered")
        expect(bo.locator(".team-list")).to_contain_text("Bo")
    finally:
        for c in contexts:
            c.close()


def test_on_a_phone_the_form_shows_the_fields_that_apply_and_the_team_link_fits_and_copies(live_server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  permissions=["clipboard-read", "clipboard-write"])
    ann = context.new_page()
    try:
        ann.goto(live_server + "/t/new")
        rounds, start_time = ann.get_by_label("Rounds"), ann.get_by_label("Start time")
        expect(rounds).to_be_hidden()  # a knockout started by hand: neither applies
        expect(start_time).to_be_hidden()
        expect(ann.get_by_label("Check-in opens")).to_be_hidden()
        ann.locator("label:has(input[name=format][value=swiss])").click()
        expect(rounds).to_be_visible()
        ann.locator("label:has(input[name=start][value=time])").click()
        expect(start_time).to_be_visible()
        ann.locator("label:has(input[name=start][value=director])").click()
        ann.locator("label:has(input[name=format][value=knockout])").click()
        expect(rounds).to_be_hidden()
        rounds_input = ann.locator("input[name=rounds]")
        expect(rounds_input).to_be_disabled()  # hidden, so neither checked nor sent
        ann.locator("label:has(input[name=play][value=no])").click()
        expect(ann.get_by_label("Your name")).to_be_hidden()  # directing only: no name asked
        ann.locator("label:has(input[name=play][value=team])").click()
        ann.get_by_label("Name of the tourney").fill("Phone cup")
        who(ann, "Ann")
        ann.get_by_role("button", name="Create the tourney").click()
        ann.wait_for_url(re.compile(r"/t/[A-Z2-9]{6}$"))
        code = ann.url.rsplit("/", 1)[1]

        box = ann.locator("#team-link-url")
        expect(box).to_contain_text(f"/t/{code}/team/")
        link = box.inner_text().strip()
        fits = box.evaluate("e => e.scrollWidth <= e.clientWidth && e.getBoundingClientRect().right <= innerWidth")
        assert fits, box.bounding_box()  # the whole link shows, wrapped, inside the screen
        assert ann.evaluate("document.documentElement.scrollWidth <= innerWidth")  # nothing sticks out
        expect(ann.locator(".team-link")).to_contain_text("Send this link to your partner")
        ann.get_by_role("button", name="Copy the link").click()
        expect(ann.locator(".team-link [role=status]")).to_have_text("Copied.")
        assert ann.evaluate("navigator.clipboard.readText()") == link
        expect(ann.locator(".my-team")).to_contain_text("press Ready within 2 minutes")
    finally:
        context.close()
