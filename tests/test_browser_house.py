"""House rules at the table in real Chromium (RULES.md "House rules"): three friends play
a hand of cutthroat from /new, each in their own browser, on a phone and on a desktop; each
preset picked on the home page plays a whole practice hand; a Jokers JJDD practice hand
shows its jokers among the trumps; a whiz table refuses a bid with its reason, on the page.
No page ever holds a card another seat holds."""

from __future__ import annotations

import re

import pytest
from conftest import OPEN_PANEL
from helpers.browser import (
    DESKTOP,
    PHONE,
    TOO_WIDE,
    cards_on,
    moved,
    my_turn_or_the_end,
    new_context,
    others_cards_on,
    play_a_hand,
    signed_in,
)
from playwright.sync_api import Browser, Page, expect

from spades.rules_config import Rules
from spades.tables import load_state

# where a plate is drawn on the felt, from the felt's middle (the page's CSS)
PLACES = """() => {
    const f = document.getElementById('felt').getBoundingClientRect(), out = {};
    document.querySelectorAll('#felt .plate').forEach(p => {
        const r = p.getBoundingClientRect();
        const dx = r.left + r.width / 2 - (f.left + f.width / 2), dy = r.top + r.height / 2 - (f.top + f.height / 2);
        out[p.dataset.seat] = (dy < 0 ? 'upper ' : 'lower ')
            + (Math.abs(dx) < f.width / 8 ? 'middle' : dx < 0 ? 'left' : 'right');
    });
    return out;
}"""
# the widths check, but for the score sheet's rows: the sheet scrolls sideways in its own box
# (.sheet-scroll, as at every table), the page never does
TOO_WIDE_BUT_THE_SHEET = TOO_WIDE.replace('!e.closest(".sr-only")', '!e.closest(".sr-only, .sheet-scroll > *")')
assert TOO_WIDE_BUT_THE_SHEET != TOO_WIDE


def seat_of(page: Page) -> int:
    """The page's own seat, from the side it draws the table from (#told.from-N)."""
    return int(re.search(r"\bfrom-(\d)\b", page.locator("#told").get_attribute("class")).group(1))


def three_friends(browser: Browser, live_server: str, viewport: dict) -> tuple[str, list[Page]]:
    """Hana creates a Cutthroat for 3 table for three people on /new; Ann and Bo join by its
    link; Hana starts the game. The table's code and the three pages."""
    pages = [new_context(browser, viewport).new_page() for _ in range(3)]
    hana, ann, bo = pages
    hana.goto(live_server + "/new")
    hana.get_by_label("Your name").fill("Hana")
    hana.locator("label:has(input[name=humans][value='3'])").click()
    hana.locator("select[name=preset]").select_option("cutthroat-3")
    hana.get_by_role("button", name="Create the table").click()
    hana.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
    code = hana.url.rsplit("/", 1)[1]
    for page, name in ((ann, "Ann"), (bo, "Bo")):
        page.goto(f"{live_server}/j/{code}")
        page.get_by_label("Your name").fill(name)
        page.get_by_role("button", name="Join").click()
        hana.locator("#room", has_text=name).wait_for()
    hana.get_by_role("button", name="Start the game").click()
    for page in pages:
        page.wait_for_url(re.compile(rf"/g/{code}$"))
        expect(page.locator("body.live")).to_have_count(1, timeout=15000)
    return code, pages


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_three_friends_play_a_hand_of_cutthroat(app, live_server, browser, service, viewport):
    code, pages = three_friends(browser, live_server, viewport)
    try:
        by_seat = {seat_of(p): p for p in pages}
        assert sorted(by_seat) == [0, 1, 2]
        names = service.snapshot(code, None).around.names
        for seat, page in by_seat.items():
            expect(page.locator("#felt .plate")).to_have_count(3)
            expect(page.locator("#scores .team")).to_have_count(3)
            expect(page.locator(".table-info")).to_contain_text("Cutthroat for 3")
            # its own seat at the bottom, the next seat round at the upper left, the third at the upper right
            places = page.evaluate(PLACES)
            assert places[str(seat)] == "lower middle", places
            assert places[str((seat + 1) % 3)] == "upper left", places
            assert places[str((seat + 2) % 3)] == "upper right", places
            # one score box per player, with their score and bags; their own marked first
            first = page.evaluate("""() => [...document.querySelectorAll('#scores .team')].map(b => {
                const r = b.getBoundingClientRect();
                return [r.top, r.left, b.querySelector('.team-members').textContent, b.className];
            }).sort((a, b) => a[0] - b[0] || a[1] - b[1])[0]""")
            assert first[2].startswith(names[seat]) and f"side-{seat}" in first[3], first
            for box in page.locator("#scores .team").all():
                expect(box.locator(".team-bags")).to_have_text("0 bags")
                expect(box.locator(".team-score")).to_have_text("0")
            assert page.evaluate(TOO_WIDE) == [], (seat, page.evaluate(TOO_WIDE))

        # talk: a line and a reaction reach the others, the reaction's bubble at its sender's plate
        watcher = new_context(browser, viewport).new_page()
        pages.append(watcher)
        watcher.goto(f"{live_server}/g/{code}/watch")
        expect(watcher.locator("#told.watching.seats-3")).to_have_count(1, timeout=15000)
        expect(watcher.locator("#felt .plate")).to_have_count(3)
        assert watcher.evaluate(PLACES) == {"0": "lower middle", "1": "upper left", "2": "upper right"}
        expect(watcher.locator("#hand .card")).to_have_count(0)
        hana = pages[0]
        hana.locator("#chat-text").fill("good luck, both")
        hana.locator("#chat-text").press("Enter")
        seat_of_bo = seat_of(pages[2])
        pages[2].get_by_role("button", name="👍").click()
        for page in pages[:3]:
            expect(page.locator("#chat-log")).to_contain_text("Hana: good luck, both")
            expect(page.locator("#chat-log")).to_contain_text("Bo: 👍")
        expect(hana.locator(f".plate[data-seat='{seat_of_bo}'] .bubble")).to_have_text("👍")
        assert watcher.evaluate(TOO_WIDE) == []
        pages.remove(watcher)

        moves = 0
        while True:
            v = service.snapshot(code, None).view.to_json()
            if v["phase"] != "bidding" and v["phase"] != "playing":
                break
            for page in pages:  # every page shows this very moment before anyone moves
                expect(page.locator("#turn")).to_have_attribute("data-version", str(v["version"]), timeout=15000)
            if moves % 6 == 0:
                match = load_state(service.store, code).match
                for seat, page in [*by_seat.items(), (None, watcher)]:
                    assert not others_cards_on(page, match, seat), (seat, others_cards_on(page, match, seat))
                    if seat is not None:  # the check sees the cards a page does hold: its own
                        assert cards_on(page, {str(c) for c in match.cards(seat)}) == \
                            {str(c) for c in match.cards(seat)}
            page = by_seat[v["to_act"]]
            if v["phase"] == "bidding":
                page.get_by_role("button", name="Bid", exact=True).click()
            else:
                page.locator("#hand .fan.playable .card.legal").first.click()
            moved(page, v["version"])
            moves += 1
            assert moves <= 3 + 51, "the hand did not end"
        assert moves == 3 + 51  # three bids and seventeen tricks of three cards

        for seat, page in by_seat.items():
            expect(page.locator(OPEN_PANEL)).to_be_visible(timeout=15000)
            heads = page.locator("#result .score-table thead th")
            expect(heads).to_have_count(4)  # the line's heading and a column per player
            for k, name in enumerate(names):
                expect(heads.nth(k + 1)).to_have_text(name)
            assert page.evaluate(TOO_WIDE_BUT_THE_SHEET) == [], (seat, page.evaluate(TOO_WIDE_BUT_THE_SHEET))
            page.get_by_role("button", name="Continue").click()
        for page in pages:  # the next hand is dealt once all three pressed Continue
            expect(page.locator("#scores .hand-no")).to_contain_text("Hand 2", timeout=15000)
            expect(page.locator("#sheet .score-sheet thead tr").first.locator("th")).to_have_count(4)
        v = service.snapshot(code, None).view.to_json()
        scores = v["scores"]
        assert len(set(scores)) > 1  # the deals are the same on every run: this hand leaves someone ahead
        leaders = [n for n, score in zip(names, scores) if score == max(scores)]  # each marked, a shared lead too
        expect(pages[0].locator("#scores .team.leader")).to_have_count(len(leaders))
        for name in leaders:
            expect(pages[0].locator("#scores .team.leader", has_text=name).locator(".leader-tag")).to_have_text("leads")
    finally:
        for page in {*pages, *(p for p in [locals().get("watcher")] if p)}:
            page.context.close()


def test_a_jjdd_practice_hand_shows_the_jokers_among_the_trumps(app, live_server, browser, service):
    rules = Rules(jokers="jjdd", min_bid=4, ten_for_200=True, end="hands", hands=1, tempo="off", play_speed="fast")
    for _ in range(12):  # a deal (the same on every run) that gives the player a joker
        code = service.create_practice("jjdd-ann", "Ann", rules, "easy")
        held = [str(c) for c in load_state(service.store, code).match.cards(0)]
        if {"BJ", "LJ"} & set(held):
            break
    else:
        pytest.fail("no practice deal gave seat 0 a joker")
    page = signed_in(app, live_server, browser, "jjdd-ann", PHONE)
    try:
        page.goto(f"{live_server}/g/{code}")
        expect(page.locator("body.live")).to_have_count(1, timeout=15000)
        cards = page.locator("#hand .card")
        expect(cards).to_have_count(13)
        shown = [c.get_attribute("data-card") for c in cards.all()]
        trumps = [str(c) for c in rules.shape.trumps]
        held_trumps = [t for t in shown if t in trumps]
        assert shown[:len(held_trumps)] == held_trumps == [t for t in trumps if t in shown]  # trumps first, high first
        for joker, name in (("BJ", "big joker"), ("LJ", "little joker")):
            if joker in held:
                card = page.locator(f'#hand .card[data-card="{joker}"]')
                expect(card).to_be_visible()
                expect(page.get_by_role("button", name=name)).to_have_count(1)
                assert card.evaluate("c => getComputedStyle(c, '::before').content").find(joker) >= 0
        assert page.evaluate(TOO_WIDE) == []
        # the hand, played by clicking its first playable card (a bid of 4: the table's minimum)
        joker_played = False
        for _ in range(14):  # a bid and thirteen cards of one's own
            my_turn_or_the_end(page)
            v = service.snapshot(code, "jjdd-ann").view.to_json()
            if v["phase"] not in ("bidding", "playing"):
                break
            expect(page.locator("#turn")).to_have_attribute("data-version", str(v["version"]), timeout=15000)
            if v["phase"] == "bidding":
                page.locator("#bid-value").fill("4")
                page.get_by_role("button", name="Bid", exact=True).click()
            else:
                legal = page.locator("#hand .fan.playable .card.legal")
                joker = page.locator('#hand .fan.playable .card.legal:is([data-card="BJ"], [data-card="LJ"])')
                target = joker.first if joker.count() else legal.first
                text = target.get_attribute("data-card")
                target.click()
                joker_played = joker_played or text in ("BJ", "LJ")
            moved(page, v["version"])
            assert v["version"] < service.snapshot(code, "jjdd-ann").view.to_json()["version"]  # the click was taken
        assert joker_played
        expect(page.locator(OPEN_PANEL)).to_be_visible(timeout=15000)
    finally:
        page.context.close()


def test_a_refused_whiz_bid_says_why_on_the_page(app, live_server, browser, service):
    rules = Rules(bidding_variant="whiz", end="hands", hands=1, tempo="off", play_speed="fast")
    code = service.create_practice("whiz-ann", "Ann", rules, "easy")
    page = signed_in(app, live_server, browser, "whiz-ann", DESKTOP)
    try:
        page.goto(f"{live_server}/g/{code}")
        expect(page.locator("body.live")).to_have_count(1, timeout=15000)
        expect(page.locator(".bidbox")).to_be_visible(timeout=15000)
        spades = sum(str(c)[1] == "S" for c in load_state(service.store, code).match.cards(0))
        page.locator("#bid-value").fill(str(spades + 1))  # neither nil nor the spades held
        page.get_by_role("button", name="Bid", exact=True).click()
        words = f"Whiz: bid nil or your {spades} spade{'' if spades == 1 else 's'}." if spades else \
            "Whiz: you hold no spades, so you bid nil."
        expect(page.locator("#told .message")).to_have_text(words, timeout=15000)
        assert service.snapshot(code, None).view.to_json()["bids"][0] is None  # nothing was bid
    finally:
        page.context.close()


# every card face that moves on the felt, and whether a finished trick went to its winner
MOTION_LOG = """(() => {
  window.moved = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (frames, options) {
    window.moved.push({face: this.matches("#felt .trick .face") ? this.dataset.card : null,
                       ghost: this.classList.contains("motion-ghost")});
    return animate.call(this, frames, options);
  };
})();"""


def test_cards_fly_at_a_three_seat_table(app, live_server, browser, service):
    """The played cards fly from their plates to the trick, and the trick to its winner,
    at a table of three seats as at four (static/motion.js finds the plates by seat)."""
    rules = Rules(players=3, partners=False, end="hands", hands=1, tempo="off", play_speed="fast")
    code = service.create_practice("fly-ann", "Ann", rules, "easy")
    page = signed_in(app, live_server, browser, "fly-ann", DESKTOP, motion="no-preference")
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.add_init_script(MOTION_LOG)
    try:
        page.goto(f"{live_server}/g/{code}")
        expect(page.locator("body.live")).to_have_count(1, timeout=15000)
        for _ in range(4):  # the bid, then the first playable card, until two tricks are taken
            if len(service.snapshot(code, "fly-ann").view.to_json()["tricks"]) >= 2:
                break
            my_turn_or_the_end(page)
            v = service.snapshot(code, "fly-ann").view.to_json()
            expect(page.locator("#turn")).to_have_attribute("data-version", str(v["version"]), timeout=15000)
            if v["phase"] == "bidding":
                page.get_by_role("button", name="Bid", exact=True).click()
            else:
                page.locator("#hand .fan.playable .card.legal").first.click()
            moved(page, v["version"])
        # cards of every seat flew to the trick, and a finished trick went to its winner (its
        # flight starts as the felt that shows it arrives: wait for it)
        page.wait_for_function("() => new Set(window.moved.filter(m => m.face).map(m => m.face)).size >= 3"
                               " && window.moved.some(m => m.ghost)", timeout=15000)
        assert errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize("preset,label,players", [("cutthroat-4", "Cutthroat for 4", 4), ("jj", "Jokers JJ", 4),
                                                  ("cutthroat-3", "Cutthroat for 3", 3)])
def test_a_preset_picked_on_the_home_page_plays_a_whole_practice_hand(app, live_server, browser, service, preset,
                                                                      label, players):
    """The home page's practice form with a preset: the table has the preset's seats and
    rules line, and a whole hand is played by clicking (a bid, then the first playable
    card each turn) until the hand's result shows, a column per side in its table."""
    pid = f"preset-{preset}"
    page = signed_in(app, live_server, browser, pid, PHONE)
    try:
        page.goto(live_server + "/")
        form = page.locator("form.practice")
        form.locator("select[name=preset]").select_option(preset)
        form.locator("input[name=level][value=easy]").check()
        form.get_by_role("button", name="Practice", exact=True).click()
        page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        code = page.url.rsplit("/", 1)[1]
        expect(page.locator("body.live")).to_have_count(1, timeout=15000)
        expect(page.locator("#felt .plate")).to_have_count(players)
        expect(page.locator(".table-info")).to_contain_text(label)  # the rules line (in the Menu on a phone)
        v = play_a_hand(page, service, code, pid)
        assert v["phase"] == "hand_over" and len(v["results"]) == 1 and sum(v["taken"]) == 52 // players
        expect(page.locator(OPEN_PANEL)).to_be_visible(timeout=15000)
        sides = len(v["sides"])
        expect(page.locator("#result .score-table thead th")).to_have_count(sides + 1)
        assert page.evaluate(TOO_WIDE_BUT_THE_SHEET) == []
    finally:
        page.context.close()
