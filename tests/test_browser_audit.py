"""The accessibility audit in real Chromium: axe-core (vendored, pinned, for the tests
only) over every kind of page, WCAG 2.1 A and AA and axe's best practices (the circle's
pages WCAG 2.2's too), with no violation allowed; one browser session walks all the
pages, another the pages of a signed-in person (circles, the name step)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from conftest import OPEN_PANEL, csrf_of
from helpers.circles import signed_in
from helpers.replay import finished_practice
from playwright.sync_api import Page, expect

from spades.fairness import secret_from
from spades.rules_config import Rules
from spades.storage import SeatRow
from spades.tables import Player, React, Say

AXE = Path(__file__).parent / "vendor" / "axe-core-4.14.1.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
WCAG22 = [*TAGS, "wcag22aa"]  # target size among them
# where the felt lies on the page (not on the screen: a click may scroll)
FELT = "() => { const r = document.getElementById('felt').getBoundingClientRect(); " \
       "return [r.left + scrollX, r.top + scrollY, r.width, r.height]; }"


def audit(page: Page, what: str, tags: list[str] = TAGS) -> list[str]:
    """axe's violations on the page as it is now, one line each (empty: none)."""
    if not page.evaluate("() => !!window.axe"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate("(tags) => axe.run(document, {runOnly: {type: 'tag', values: tags}})"
                          ".then(r => r.violations.map(v => v.id + ' ' + JSON.stringify(v.nodes.map(n => n.target))))",
                          tags)
    return [f"{what}: {v}" for v in found]


def four_people(service, code: str, rules: Rules) -> list[str]:
    """A table of four people, seat 0 first, dealt from a fixed secret (the same cards on
    every run); returns their ids."""
    people = [f"{code.lower()}-{s}" for s in range(4)]
    service.store.create_table(code, people[0], {"kind": "friends", "level": "easy", "humans": 4},
                               [SeatRow(s, "human", people[s], name, "🦊")
                                for s, name in enumerate(["Ann", "Bo", "Cy", "Di"])],
                               "audit", dataclasses.asdict(rules), deal_secret=secret_from(["audit"]))
    return people


def play_until(service, code: str, people: list[str], done) -> None:
    """Everyone plays (bid 3, the first legal card) until ``done(view)``."""
    while not done(v := service.snapshot(code, None).view.to_json()):
        seat = v["to_act"]
        legal = service.snapshot(code, people[seat]).view.to_json()["legal"]
        service.act(code, Player(people[seat]), "3" if v["phase"] == "bidding" else legal[0], v["version"])


def test_every_kind_of_page_passes_the_audit(app, live_server, browser, service):
    tourneys = app.extensions["spades.tourneys"]
    people = four_people(service, "AUDIT1", Rules(tempo="relaxed"))
    play_until(service, "AUDIT1", people, lambda v: v["to_act"] == 0)
    service.handle("AUDIT1", Player(people[1]), Say("Good luck, everyone"))  # the chat's lines and their menus too
    service.handle("AUDIT1", Player(people[2]), React("thumbs"))
    finished = finished_practice(service, hands=1, pid=people[0])
    tourney = tourneys.create(people[0], "Audit cup")
    tourneys.register_team(tourney, people[0], "Ann", "🦊")
    client = app.test_client()
    with client.session_transaction() as session:
        session["pid"], session["csrf"] = people[0], "token"
    client.get("/")
    # the site's script policy would refuse the injected audit script; the pages are audited
    # at rest (a card in flight over a name is no lasting contrast)
    context = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True, reduced_motion="reduce")
    context.add_cookies([{"name": "session", "value": client.get_cookie("session").value, "url": live_server}])
    page = context.new_page()
    errors: list[str] = []
    guest_context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True,
                                        reduced_motion="reduce")
    guest_errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("requestfailed", lambda r: errors.append(f"{r.url} {r.failure}"))
    found: list[str] = []
    try:
        for what, path in (("home", "/"), ("new", "/new"), ("replay", f"/g/{finished}/replay?hand=1&trick=2&card=2"),
                           ("record", f"/g/{finished}/record"), ("tourney", f"/t/{tourney}"),
                           ("sign-in", "/signin"), ("profile", "/me"), ("games", "/games"),
                           ("circles, signed out", "/c")):
            page.goto(live_server + path)
            found += audit(page, what)
        page.goto(f"{live_server}/g/AUDIT1")
        expect(page.locator("body.live")).to_have_count(1, timeout=10000)
        expect(page.locator(".bidbox")).to_be_visible(timeout=10000)
        found += audit(page, "table, bidding")
        service.act("AUDIT1", Player(people[0]), "3", service.snapshot("AUDIT1", None).view.to_json()["version"])
        # seat 0 to play after a trick, holding a card it may not play (not every turn has
        # one: on lead with spades broken, or void in the suit led, every card is legal)
        def with_a_refused_card(v: dict) -> bool:
            if not (v["phase"] == "playing" and v["to_act"] == 0 and v["tricks"]):
                return False
            mine = service.snapshot("AUDIT1", people[0]).view.to_json()
            return len(mine["legal"]) < len(mine["hand"])

        play_until(service, "AUDIT1", people, with_a_refused_card)
        expect(page.locator(".fan.playable")).to_be_visible(timeout=10000)
        felt = page.evaluate(FELT)
        page.locator("#hand .card.dim").first.click()  # refused on the page: nothing moves, nothing is logged
        expect(page.locator("#told .message")).to_contain_text(re.compile("follow suit|not broken"))
        assert page.evaluate(FELT) == felt
        page.locator("#last-trick-box summary").click()  # the last trick opens on the first screen
        faces = page.locator("#lasttrick .face")
        expect(faces).to_have_count(4)
        for face in faces.all():
            box = face.bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 800, box
        found += audit(page, "table, playing, the last trick open")
        page.locator("#sheet-box summary").click()
        found += audit(page, "table, playing, the score sheet open")
        play_until(service, "AUDIT1", people, lambda v: v["phase"] == "hand_over")
        expect(page.locator(OPEN_PANEL)).to_be_visible(timeout=10000)
        found += audit(page, "table, hand over")
        page.goto(live_server + "/new")
        page.get_by_role("button", name=re.compile("Create")).click()
        page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        expect(page.locator("#room")).to_be_visible()
        found += audit(page, "room")

        # a friend waiting in the room is moved to the table when the host starts it,
        # without a piece of the table swapped into the room or a page load cut short
        room = page.url
        guest = guest_context.new_page()
        guest.on("console", lambda m: guest_errors.append(m.text) if m.type == "error" else None)
        guest.on("requestfailed", lambda r: guest_errors.append(f"{r.url} {r.failure}"))
        guest.goto(room.replace("/g/", "/j/"))
        guest.get_by_label("Your name").fill("Eve")
        guest.get_by_role("button", name="Join").click()
        guest.wait_for_url(room)
        expect(guest.locator("body.live")).to_have_count(1, timeout=10000)
        expect(page.locator("#room")).to_contain_text("Eve", timeout=10000)
        page.get_by_role("button", name="Start the game").click()
        expect(guest.locator("#felt")).to_be_visible(timeout=15000)
        expect(guest.locator("body.live")).to_have_count(1, timeout=10000)
        found += audit(guest, "table, on a phone")

        # on a phone the score sheet of a match reads from top to bottom, nothing sideways
        guest.goto(f"{live_server}/g/{finished}/record")
        wide = guest.evaluate("() => [...document.querySelectorAll('body *')]"
                              ".filter(e => e.getBoundingClientRect().right > innerWidth)"
                              ".map(e => e.outerHTML.slice(0, 80))")
        assert wide == [], wide
        expect(guest.locator("tbody[data-hand='1'] [data-col='total']").first).to_be_visible()
        found += audit(guest, "record, on a phone")
        found += audit_signed_in(app, browser, live_server)
    finally:
        context.close()
        guest_context.close()
    assert found == [], "\n".join(found)
    assert errors == [], errors
    assert guest_errors == [], guest_errors


def audit_signed_in(app, browser, live_server: str) -> list[str]:
    """The pages of a signed-in person: no circle yet, the name step, a new circle of one
    (its invite link first, the game nights' form), a week of its boards, the profile."""
    ann = signed_in(app, "ann@example.com", "Ann")
    ann.get("/")
    context = browser.new_context(viewport={"width": 390, "height": 844}, bypass_csp=True, reduced_motion="reduce")
    context.add_cookies([{"name": "session", "value": ann.get_cookie("session").value, "url": live_server}])
    page = context.new_page()
    found: list[str] = []
    try:
        for what, path in (("circles, none yet", "/c"), ("the name step", "/me/name")):
            page.goto(live_server + path)
            found += audit(page, what)
        slug = app.extensions["spades.circles"].create(ann.uid, "Audit circle").slug
        page.goto(f"{live_server}/c/{slug}")
        expect(page.locator("#night-plan")).to_be_visible()  # the owner's game night form and pairing rule
        found += audit(page, "a circle of one", WCAG22)
        r = ann.post(f"/c/{slug}/boards", data={"csrf": csrf_of(ann), "boards": "4", "preset": "standard",
                                                "start": "now", "days": "7"})
        assert r.status_code == 303, r.get_data(as_text=True)
        week = app.extensions["spades.tables"].store.board_weeks(slug)[0]
        page.goto(f"{live_server}/c/{slug}/boards/{week.id}")
        found += audit(page, "a week of boards", WCAG22)
        page.goto(live_server + "/me")
        found += audit(page, "profile, signed in")
    finally:
        context.close()
    return found
