"""Watching in real Chromium: every frame a watcher's page receives is scanned for cards
someone still holds; the watcher opens the last trick and the score sheet from the
keyboard; the host turning watching off closes the watcher's page with the reason."""

from __future__ import annotations

import random
import re

from conftest import csrf_of, start_practice
from helpers.browser import SHOWN
from helpers.web import move, view
from playwright.sync_api import Page, expect

from spades.tables import load_state


def held_now(service, code: str) -> set[str]:
    match = load_state(service.store, code).match
    return {str(c) for s in range(4) for c in match.cards(s)}


def caught_up(page: Page, client, code: str) -> None:
    """The watcher's page shows the table's latest version."""
    stamp = 100000 + view(client, code)["version"]
    page.wait_for_function("(s) => +document.getElementById('turn').dataset.v >= s", arg=stamp, timeout=10000)


def test_a_watcher_never_receives_a_held_card_and_looks_back(live_server, client, service, page: Page):
    code = start_practice(client, end="hands-5")
    service.wait_idle()
    frames: list[str] = []
    leaks: list[set[str]] = []

    def scan(payload) -> None:
        text = payload if isinstance(payload, str) else payload.decode("utf-8", "replace")
        frames.append(text)
        # moves wait for the watcher to catch up, so a frame never lags a new deal
        leaked = set(SHOWN.findall(text)) & held_now(service, code)
        if leaked:
            leaks.append(leaked)

    page.on("websocket", lambda ws: ws.on("framereceived", scan))
    page.goto(f"{live_server}/g/{code}/watch")
    expect(page.locator("body.live")).to_have_count(1, timeout=10000)
    expect(page.locator(".status")).to_contain_text("Watching")
    assert set(SHOWN.findall(page.content())) & held_now(service, code) == set()
    expect(page.locator(".team-members")).to_have_count(2)
    assert all(" & " in t for t in page.locator(".team-members").all_inner_texts())

    rng = random.Random(11)
    looked_back = False
    moves = 0
    while True:
        assert service.wait_idle()
        caught_up(page, client, code)
        v = view(client, code)
        if v["results"] and v["phase"] != "hand_over":
            break
        if v["phase"] == "hand_over":
            page.keyboard.press("s")  # the score sheet, as the watcher sees it
            sheet = page.locator("#sheet")
            expect(sheet).to_be_visible()
            totals = sheet.locator("td.running").all_inner_texts()
            assert [int(t.split()[0]) for t in totals] == v["results"][0]["totals"]
            assert move(client, code, "deal", v["version"]).status_code == 200
            moves += 1
            continue
        if len(v["tricks"]) == 1 and not looked_back:
            page.keyboard.press("l")
            box = page.locator("#lasttrick")
            expect(box).to_be_visible()
            expect(box).to_contain_text(re.compile(r"Trick 1: \w+ wins?"))
            assert box.locator(".face").evaluate_all("els => els.map(e => e.dataset.card)") == v["tricks"][0]["cards"]
            page.keyboard.press("l")
            expect(box).to_be_hidden()
            looked_back = True
        action = "3" if v["phase"] == "bidding" else rng.choice(v["legal"])
        assert move(client, code, action, v["version"]).status_code == 200
        moves += 1
    # the page caught up after each move over its socket alone (a busy socket may carry
    # several moves in one frame): the first picture, then at least a frame a move
    assert looked_back and moves > 13 and len(frames) > moves
    assert leaks == []
    assert all('class="card' not in f.split('id="hand"')[1].split("</section>")[0] for f in frames if 'id="hand"' in f)


def test_turning_watching_off_closes_the_watchers_page_with_the_reason(live_server, client, service, page: Page):
    code = start_practice(client)
    service.wait_idle()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{live_server}/g/{code}/watch")
    expect(page.locator("body.live")).to_have_count(1, timeout=10000)
    r = client.post(f"/g/{code}/watching", data={"csrf": csrf_of(client), "watch": "off"})
    assert r.status_code == 303
    expect(page.locator("#offline")).to_contain_text("The host has turned watching off for this table.", timeout=10000)
    # the board that would no longer change is gone, and so is the live dot
    for gone in ("#felt", "#scores", "#status", ".lookback"):
        expect(page.locator(gone)).to_have_count(0)
    expect(page.locator("#conn")).to_be_hidden()
    expect(page.get_by_role("link", name="Home")).to_be_visible()
    page.wait_for_timeout(1500)  # time enough for a reconnect the page must not try
    assert errors == [], errors
    page.reload()
    expect(page.locator("body")).to_contain_text("The host has turned watching off for this table.")
