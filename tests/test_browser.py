"""The practice table in real Chromium: bid, play a whole hand by clicking, an illegal
card refused with its reason, a reload mid-trick, the score table and Continue."""

from __future__ import annotations

import re

import pytest
from conftest import OPEN_PANEL, PLATE
from helpers.browser import version, wait_for_me
from playwright.sync_api import Page, expect

# where the felt lies on the page (not on the screen: a click may scroll)
FELT = "() => { const r = document.getElementById('felt').getBoundingClientRect(); " \
       "return [r.left + scrollX, r.top + scrollY, r.width, r.height]; }"


def plates_around_the_felt(page: Page) -> dict[str, str]:
    """Where each seat's plate is drawn, from the middle of the felt (the page's CSS)."""
    return page.evaluate("""() => {
        const f = document.getElementById('felt').getBoundingClientRect(), out = {};
        document.querySelectorAll('#felt .plate').forEach(p => {
            const r = p.getBoundingClientRect();
            const dx = r.left + r.width / 2 - (f.left + f.width / 2);
            const dy = r.top + r.height / 2 - (f.top + f.height / 2);
            out[p.dataset.seat] = Math.abs(dx) > Math.abs(dy) ? (dx < 0 ? 'left' : 'right')
                                                              : (dy < 0 ? 'top' : 'bottom');
        });
        return out;
    }""")


def test_practice_hand_in_chromium(live_server, page: Page):
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(live_server + "/")
    page.get_by_label("Your name").fill("Ann")
    page.get_by_role("button", name="Practice", exact=True).click()
    page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
    expect(page.locator("body.live")).to_have_count(1, timeout=10000)  # the WebSocket is up
    expect(page.locator(PLATE["top"])).to_contain_text("Bea")
    expect(page.locator(PLATE["left"])).to_contain_text("Rex")
    expect(page.locator(PLATE["right"])).to_contain_text("Kit")
    assert plates_around_the_felt(page) == {"0": "bottom", "1": "left", "2": "top", "3": "right"}

    # bid: wait for our turn to bid, use + once, and Bid
    expect(page.locator(".bidbox")).to_be_visible(timeout=15000)
    page.get_by_role("button", name="One more").click()
    expect(page.locator("#bid-value")).to_have_value("4")
    before = version(page)
    page.get_by_role("button", name="Bid", exact=True).click()
    expect(page.locator(PLATE["bottom"] + " .chip-bid")).to_have_text("bid 4", timeout=15000)
    expect(page.locator("#announce")).to_contain_text(re.compile(r"(bid|played the) "))  # screen readers hear moves

    saw_illegal = reloaded = False
    prev = before
    for _ in range(13):
        wait_for_me(page, prev)
        if page.locator(OPEN_PANEL).count():
            break
        prev = version(page)
        dim = page.locator(".fan.playable .card.dim")
        if not saw_illegal and dim.count():
            felt = page.evaluate(FELT)
            dim.first.click()
            expect(page.locator("#told .message")).to_contain_text(
                re.compile(r"You must follow suit|Spades are not broken yet"))
            assert version(page) == prev  # refused: nothing changed
            assert page.evaluate(FELT) == felt  # ... and nothing moved
            saw_illegal = True
        if not reloaded and page.locator(".trick:not(.last) .face").count():
            trick = page.locator(".trick .face").evaluate_all("els => els.map(e => e.dataset.card)")
            hand = page.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)")
            page.reload()
            expect(page.locator(".fan.playable")).to_be_visible()
            assert page.locator(".trick .face").evaluate_all("els => els.map(e => e.dataset.card)") == trick
            assert page.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)") == hand
            assert version(page) == prev
            expect(page.locator("body.live")).to_have_count(1, timeout=10000)
            reloaded = True
        cards_before = page.locator("#hand .card").count()
        page.locator(".fan.playable .card.legal").first.click()
        expect(page.locator("#hand .card")).to_have_count(cards_before - 1)
    wait_for_me(page, prev)
    panel = page.locator(OPEN_PANEL)
    expect(panel).to_be_visible()
    for text in ("Hand 1", "Contract", "Tricks", "Bags", "Nil", "Bag penalty", "Total"):
        expect(panel).to_contain_text(text)
    assert reloaded  # seat 0 followed to at least one trick among 13
    page.get_by_role("button", name="Continue").click()
    expect(page.locator(OPEN_PANEL)).to_have_count(0)
    expect(page.locator(".hand-no")).to_have_text("Hand 2")
    assert saw_illegal  # the seeded deal offers an illegal card on some turn
    assert errors == [], errors  # an illegal card is told on the page, not refused over HTTP


def test_phone_portrait_shows_the_whole_hand_and_the_keyboard_plays(live_server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        page.goto(live_server + "/")
        page.get_by_role("button", name="Practice now").tap()  # one tap, from the first screen
        page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        expect(page.locator(".bidbox")).to_be_visible(timeout=15000)
        # every one of the 13 cards lies inside the screen and is the element found at its centre
        hits = page.evaluate("""() => Array.from(document.querySelectorAll('#hand .card')).map(c => {
            const r = c.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
            return {inside: r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight,
                    hit: document.elementFromPoint(x, y)?.closest('.card') === c, w: r.width};
        })""")
        assert len(hits) == 13
        assert [h for h in hits if not (h["inside"] and h["hit"] and h["w"] >= 40)] == []
        prev = version(page)
        page.locator("#bid-value").fill("2")
        page.locator("#bid-value").press("Enter")  # Enter in the bid box submits the bid
        wait_for_me(page, prev)
        prev = version(page)
        if not page.locator(".fan.playable").count():
            pytest.skip("the hand ended before seat 0 played")  # pragma: no cover
        # keyboard: focus the first card, move with the arrows to a legal one, Enter plays it
        page.locator("#hand .card").first.focus()
        cards = page.locator("#hand .card").evaluate_all("els => els.map(e => e.classList.contains('legal'))")
        target = cards.index(True)
        for _ in range(target):
            page.keyboard.press("ArrowRight")
        focused = page.evaluate("document.activeElement.dataset.card")
        assert focused == page.locator("#hand .card").nth(target).get_attribute("data-card")
        page.keyboard.press("Enter")
        expect(page.locator(f'#hand .card[data-card="{focused}"]')).to_have_count(0)
    finally:
        context.close()


@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_practice_and_friends_start_from_the_first_screen(live_server, browser, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(live_server + "/")
        hard = page.locator(".quick-start label:has(input[name=level][value=hard])")
        for control in (page.get_by_role("button", name="Practice now"),
                        page.get_by_role("link", name="Create a table"), hard):
            box = control.bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, box
        hard.click()  # Hard bots without a scroll
        page.get_by_role("button", name="Practice now").click()
        page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        expect(page.locator(PLATE["top"])).to_contain_text("Bea")
        expect(page.locator(".table-info")).to_contain_text("Hard bots")
    finally:
        context.close()


def overlaps(a: dict, b: dict) -> bool:
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] and \
        a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


def test_a_phone_shows_the_rules_full_names_and_plates_apart(app, live_server, browser, service):
    import dataclasses

    from spades.rules_config import Rules
    from spades.storage import SeatRow

    names, people = ["Hanalei", "Bartholomew", "Anastasia", "Kit"], ["h", "b", "a", None]
    service.store.create_table("PHONE1", "h", {"kind": "friends", "level": "easy", "humans": 3},
                               [SeatRow(s, "human" if people[s] else "bot", people[s], names[s], "🦊")
                                for s in range(4)], "phone", dataclasses.asdict(Rules(tempo="relaxed")))
    client = app.test_client()
    with client.session_transaction() as session:
        session["pid"], session["csrf"] = "h", "token"
    client.get("/")
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    context.add_cookies([{"name": "session", "value": client.get_cookie("session").value, "url": live_server}])
    page = context.new_page()
    try:
        page.goto(live_server + "/g/PHONE1")
        # the rules link in the one-line top bar, the rules line under Menu
        expect(page.locator(".topbar").get_by_role("link", name="Rules")).to_be_visible()
        page.get_by_role("button", name="Menu").click()
        rules = page.locator(".table-info")
        expect(rules).to_be_visible()
        expect(rules).to_contain_text("relaxed tempo · to 500 · bag penalty")
        for members in page.locator(".team-members").all():  # "Hanalei & Anastasia" in full, not "Hanalei & …"
            assert members.evaluate("e => e.scrollWidth <= e.clientWidth"), members.inner_text()
        expect(page.locator("body.live")).to_have_count(1, timeout=10000)
        plates = page.evaluate("""() => [...document.querySelectorAll(".plate")].map(e => {
            const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; })""")
        assert len(plates) == 4
        for i, a in enumerate(plates):
            assert a["x"] >= 0 and a["x"] + a["width"] <= 390, a
            for b in plates[i + 1:]:
                assert not overlaps(a, b), (a, b)
    finally:
        context.close()


def test_a_lost_connection_says_so_plainly_and_the_table_comes_back_by_itself(live_server, browser):
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(live_server + "/")
        page.get_by_role("button", name="Practice now").click()
        page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        expect(page.locator("body.live")).to_have_count(1, timeout=10000)
        expect(page.locator("#offline")).to_be_hidden()
        expect(page.locator(".bidbox")).to_be_visible(timeout=15000)
        context.set_offline(True)
        page.locator(".bidbox button[value=bid]").click()  # a bid while the network is gone
        banner = page.locator("#offline")
        expect(banner).to_be_visible(timeout=10000)
        expect(banner).to_contain_text("Reconnecting")
        expect(banner).to_contain_text("did not count")
        context.set_offline(False)
        expect(banner).to_be_hidden(timeout=20000)  # back by itself
        expect(page.locator("body.live")).to_have_count(1)
        expect(page.locator(".bidbox")).to_be_visible()  # the bid did not count: still this seat's to make
    finally:
        context.close()


def test_the_turn_takes_the_focus_and_the_live_region_tells_each_move_once(live_server, page: Page):
    page.goto(live_server + "/")
    page.get_by_role("button", name="Practice now").click()
    page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
    expect(page.locator("body.live")).to_have_count(1, timeout=10000)
    page.evaluate("""() => {
        window.told = [];
        const region = document.getElementById("announce");
        // each move is a span of its own; one update may tell several moves
        new MutationObserver(records => records.forEach(r => r.addedNodes.forEach(n => {
            const words = n.textContent.trim();
            if (words) window.told.push(words);
        }))).observe(region, {childList: true, subtree: true});
    }""")
    expect(page.locator(".bidbox")).to_be_visible(timeout=15000)
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'bid-value'",
                           timeout=5000)
    page.keyboard.press("Enter")  # the focused bid box: bid 3
    page.wait_for_function("() => window.told.some(t => t.startsWith('You bid 3.'))", timeout=10000)
    page.wait_for_function("() => document.querySelector('#told.my-turn') && "
                           "document.querySelector('#hand .fan.playable')", timeout=20000)
    page.wait_for_function("() => document.activeElement && document.activeElement.matches('#hand .card.legal')",
                           timeout=5000)
    told = page.evaluate("window.told")
    assert [t for t in told if t.startswith("You bid 3.")] == ["You bid 3."], told
    assert any(t.endswith("Your turn.") for t in told), told


def test_the_hint_never_pushes_the_hand_out_of_a_laptop_screen(live_server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    try:
        page.goto(live_server + "/")
        page.get_by_role("button", name="Practice now").click()
        page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        expect(page.locator(".bidbox")).to_be_visible(timeout=15000)
        page.get_by_role("button", name="Hint").click()
        expect(page.locator(".hint")).to_be_visible(timeout=10000)
        bottoms = page.evaluate("() => Array.from(document.querySelectorAll('#hand .card'))"
                                ".map(c => c.getBoundingClientRect().bottom)")
        assert len(bottoms) == 13 and max(bottoms) <= 800, bottoms
        # the longest words a hint can have fit as well (four reasons, two of them ruffs)
        longest = "The Hard bot would bid 10: ♠A, 3 long spades, a ruff in hearts and a ruff in diamonds."
        bottoms = page.evaluate("""(words) => {
            document.querySelector('.hint').textContent = words;
            return Array.from(document.querySelectorAll('#hand .card')).map(c => c.getBoundingClientRect().bottom);
        }""", longest)
        assert max(bottoms) <= 800, (longest, bottoms)
    finally:
        context.close()


@pytest.mark.parametrize("width,height", [(390, 844), (768, 1024), (1280, 800)])
def test_no_card_plate_or_clock_covers_another(app, live_server, browser, service, width, height):
    import dataclasses

    from spades.rules_config import Rules
    from spades.storage import SeatRow
    from spades.tables import Player

    code, names = f"BOX{width}", ["Hanalei", "Bartholomew", "Anastasia", "Kit"]
    people = [f"box{width}-{s}" for s in range(4)]
    service.store.create_table(code, people[0], {"kind": "friends", "level": "easy", "humans": 4},
                               [SeatRow(s, "human", people[s], names[s], "🦊") for s in range(4)], "boxes",
                               dataclasses.asdict(Rules(tempo="relaxed")),
                               deal_secret="5e" * 32)  # a fixed deal: seat 0 soon holds a card it may not play
    for _ in range(8):  # four bids and a whole trick: four cards on the felt, a clock on the next plate
        v = service.snapshot(code, None).view.to_json()
        seat = v["to_act"]
        mine = service.snapshot(code, people[seat]).view.to_json()
        service.act(code, Player(people[seat]), "3" if v["phase"] == "bidding" else mine["legal"][0], v["version"])
    client = app.test_client()
    with client.session_transaction() as session:
        session["pid"], session["csrf"] = people[0], "token"
    client.get("/")
    context = browser.new_context(viewport={"width": width, "height": height})
    context.add_cookies([{"name": "session", "value": client.get_cookie("session").value, "url": live_server}])
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(f"{live_server}/g/{code}")
        expect(page.locator("body.live")).to_have_count(1, timeout=10000)  # the socket's picture is in
        expect(page.locator(".slot .face")).to_have_count(4)
        expect(page.locator(".plate .clock")).to_have_count(1)
        boxes = page.evaluate("""() => {  // every box at one moment, between two pushes
            const box = e => {
                const r = e.getBoundingClientRect();
                return {x: r.x, y: r.y, width: r.width, height: r.height};
            };
            return {faces: [...document.querySelectorAll(".slot .face")].map(box),
                    plates: [...document.querySelectorAll(".plate")].map(box),
                    clock: box(document.querySelector(".plate .clock")),
                    name: box(document.querySelector(".plate:has(.clock) .plate-name"))};
        }""")
        faces, plates, clock = boxes["faces"], boxes["plates"], boxes["clock"]
        assert not overlaps(clock, boxes["name"]), (clock, boxes["name"])  # the seconds never cover the name
        for i, a in enumerate(faces):
            for b in faces[i + 1:] + plates + [clock]:
                assert not overlaps(a, b), (a, b)
        for i, a in enumerate(plates):
            for b in plates[i + 1:]:
                assert not overlaps(a, b), (a, b)

        # on this screen too, a card that may not be played is refused in place: the same
        # reason, nothing moves, nothing is logged
        for _ in range(40):
            v = service.snapshot(code, people[0]).view.to_json()
            if v["to_act"] == 0 and set(v["hand"] or ()) - set(v["legal"]):
                break
            mine = service.snapshot(code, people[v["to_act"]]).view.to_json()
            service.act(code, Player(people[v["to_act"]]), mine["legal"][0], mine["version"])
        else:
            pytest.fail("seat 0 never held a card it may not play")  # pragma: no cover
        dim = page.locator(".fan.playable .card.dim").first
        expect(dim).to_be_visible(timeout=10000)
        felt = page.evaluate(FELT)
        dim.click()
        expect(page.locator("#told .message")).to_contain_text(re.compile("follow suit|not broken"))
        assert page.evaluate(FELT) == felt
        assert errors == [], errors
    finally:
        context.close()
