"""Undo at a practice table of three seats in real Chromium, on a phone: a card played and a
bid made are taken back with the Undo button, the bots' moves after each go with them, the
page says so, and the page shows the table as it was before the move (its cards back in the
hand). The first Undo of the match says that the match will not be rated, and takes nothing
back until pressed again. The Undo button is on the screen under a hand of 17 cards. No
frame the page receives names a card another seat holds."""

from __future__ import annotations

from helpers.browser import PHONE, SHOWN, my_turn_or_the_end, signed_in
from playwright.sync_api import expect

from spades.rules_config import Rules
from spades.tables import load_state

PID = "undo-page-ann"


def test_undo_a_card_and_then_the_bid_on_the_page(app, live_server, browser, service):
    rules = Rules(players=3, partners=False, end="hands", hands=1, tempo="off", play_speed="fast")
    code = service.create_practice(PID, "Ann", rules, "easy")
    match = load_state(service.store, code).match
    others = {str(c) for s in (1, 2) for c in match.cards(s)}  # the bots' cards of this hand
    page = signed_in(app, live_server, browser, PID, PHONE)
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda p: frames.append(
        p if isinstance(p, str) else p.decode("utf-8", "replace"))))
    try:
        page.goto(f"{live_server}/g/{code}")
        expect(page.locator("body.live")).to_have_count(1, timeout=15000)
        my_turn_or_the_end(page)
        expect(page.locator("form.undo")).to_have_count(0)  # nothing of Ann's to take back yet
        at_bid = service.snapshot(code, PID).view.to_json()
        expect(page.locator("#turn")).to_have_attribute("data-version", str(at_bid["version"]), timeout=15000)
        page.get_by_role("button", name="Bid", exact=True).click()
        # the bots bid (and lead, perhaps) until it is Ann's turn to play
        page.wait_for_function("() => document.querySelector('#hand .fan.playable')", timeout=15000)
        at_card = service.snapshot(code, PID).view.to_json()
        assert at_card["phase"] == "playing" and at_card["bids"][0] is not None
        expect(page.locator("#turn")).to_have_attribute("data-version", str(at_card["version"]), timeout=15000)
        expect(page.locator("#hand .card")).to_have_count(17)
        played = page.locator("#hand .fan.playable .card.legal").first.get_attribute("data-card")
        page.locator(f'#hand .card[data-card="{played}"]').click()
        expect(page.locator("#hand .card")).to_have_count(16, timeout=15000)
        my_turn_or_the_end(page)
        after = service.snapshot(code, PID).view.to_json()
        expect(page.locator("#turn")).to_have_attribute("data-version", str(after["version"]), timeout=15000)

        undo = page.get_by_role("button", name="Undo")
        bottom = undo.evaluate("b => b.getBoundingClientRect().bottom + scrollY")  # where it lies on the page
        assert bottom <= PHONE["height"], bottom  # on the screen as the page opens, under the cards
        undo.click()  # the match's first: it says what a takeback costs, and takes nothing back
        expect(page.locator("form.undo [role=alert]")).to_have_text(
            "Taking a move back means this match will not be rated. Press Undo again to take it back.")
        assert service.snapshot(code, PID).view.to_json()["version"] == after["version"]
        undo.click()
        expect(page.locator("#status")).to_contain_text("Ann took back their last card and the bots' moves after it.",
                                                        timeout=15000)
        expect(page.locator(f'#hand .card[data-card="{played}"]')).to_have_count(1)
        expect(page.locator("#hand .card")).to_have_count(17)
        back = service.snapshot(code, PID).view.to_json()
        assert back["trick"] == at_card["trick"] and back["tricks"] == at_card["tricks"]
        assert back["version"] > after["version"]
        expect(page.locator("#turn")).to_have_attribute("data-version", str(back["version"]), timeout=15000)

        page.get_by_role("button", name="Undo").click()  # the bid, and the bots' bids after it: asked once a match
        expect(page.locator("#status")).to_contain_text("Ann took back their last bid", timeout=15000)
        expect(page.get_by_role("button", name="Bid", exact=True)).to_be_visible()
        again = service.snapshot(code, PID).view.to_json()
        assert again["phase"] == "bidding" and again["bids"] == at_bid["bids"] and again["to_act"] == 0
        expect(page.locator("form.undo")).to_have_count(0)  # back at the hand's first bid of Ann's

        # and the hand goes on from there
        expect(page.locator("#turn")).to_have_attribute("data-version", str(again["version"]), timeout=15000)
        page.get_by_role("button", name="Bid", exact=True).click()
        page.wait_for_function("() => document.querySelector('#hand .fan.playable')", timeout=15000)
        assert service.snapshot(code, PID).view.to_json()["bids"][0] is not None
        final = service.snapshot(code, PID).view.to_json()
        played_by_bots = set(at_card["trick"]["cards"]) | set(after["trick"]["cards"]) | set(final["trick"]["cards"])
        for t in after["tricks"] + final["tricks"]:
            played_by_bots |= set(t["cards"])
        named = {c for f in frames for c in SHOWN.findall(f)}
        assert named & others - played_by_bots == set()  # a bot's card is named only once it was played
    finally:
        page.context.close()

