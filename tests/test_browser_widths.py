"""Every kind of page on a phone, in real Chromium at 390 by 844: nothing is wider than
the screen, so nothing scrolls sideways (the page's scroll width is the screen's, and no
element's right edge is past it). A table of three seats (cutthroat, 17 cards a hand) is
measured too, playing and told again (its replay and record)."""

from __future__ import annotations

import concurrent.futures as cf
import re
import threading

import pytest
from helpers.browser import TOO_WIDE
from helpers.replay import finished_practice, play_out
from playwright.sync_api import Page, expect

from spades.rules_config import Rules
from spades.tables import Player, Stale

ANN = "widths-ann"
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def app_config():
    pool = cf.ThreadPoolExecutor(1)
    yield {"ANALYSIS_POOL": pool, "ANALYSIS_BUDGET": 0.004, "TOURNEY_RULES_OVERRIDE": {"end": "hands", "hands": 1}}
    pool.shutdown(wait=False, cancel_futures=True)


def too_wide(page: Page, what: str) -> list[str]:
    """The page's parts wider than the screen, each line naming the page (empty: none)."""
    return [f"{what}: {line}" for line in page.evaluate(TOO_WIDE)]


def playing(service, code: str, pid: str) -> None:
    """Seat 0 bids 3 and plays its first legal card until it is its turn to play a card
    after the first trick (bots play the rest)."""
    me = Player(pid)
    for _ in range(500):
        assert service.wait_idle()
        snap = service.snapshot(code, pid)
        v = snap.view.to_json()
        if v["phase"] == "playing" and v["to_act"] == snap.seat and v["tricks"]:
            return
        try:
            if v["to_act"] == snap.seat:
                legal = v["legal"]
                service.act(code, me, "look" if "look" in legal else "3" if v["phase"] == "bidding" else str(legal[0]),
                            v["version"])
        except Stale:
            continue
    raise AssertionError("never seat 0's turn to play")


def duplicate_round_over(tourneys, service) -> str:
    """A Swiss tourney on duplicate deals, its one round played and compared, its teams
    with long names: its code."""
    from helpers.tourney import play_table

    code = tourneys.create("director", "Widths duplicate", format="swiss", rounds=1, team_limit=4, duplicate=True)
    for i in range(4):
        token = tourneys.register_team(code, f"w{i}a", f"Alexandra{i}", "🦊")
        tourneys.join_team(code, token, f"w{i}b", f"Bartholomew{i}", "🐼")
    tourneys.start(code, "director")
    for i in range(4):
        for pid in (f"w{i}a", f"w{i}b"):
            tourneys.ready(code, pid)
    for tv in tourneys.view(code, None).rounds[0].tables:
        play_table(service, tv.table)
    assert service.wait_idle() and tourneys.wait_idle(10)
    assert tourneys.view(code, None).rounds[0].compared
    return code


def test_no_page_is_wider_than_a_phone(app, live_server, browser, service, app_config):
    tourneys = app.extensions["spades.tourneys"]
    finished = finished_practice(service, hands=1, pid=ANN)
    table = service.create_practice(ANN, "Ann", Rules(end="hands", hands=2, tempo="off", play_speed="fast"), "easy")
    playing(service, table, ANN)
    three = Rules(players=3, partners=False, end="hands", hands=1, tempo="off", play_speed="fast")
    finished3 = service.create_practice(ANN, "Ann", three, "easy")
    play_out(service, finished3, ANN)
    table3 = service.create_practice(ANN, "Ann", three, "easy")
    playing(service, table3, ANN)
    tourney = tourneys.create(ANN, "Widths cup")
    tourneys.register_team(tourney, ANN, "Ann", "🦊")
    compared = duplicate_round_over(tourneys, service)
    client = app.test_client()
    with client.session_transaction() as session:
        session["pid"] = ANN
    client.get("/")
    context = browser.new_context(viewport=PHONE, reduced_motion="reduce")
    context.add_cookies([{"name": "session", "value": client.get_cookie("session").value, "url": live_server}])
    page = context.new_page()
    found: list[str] = []
    try:
        for what, path in (("home", "/"), ("new table", "/new"), ("rules", "/rules"), ("fair deals", "/fairness"),
                           ("sign in", "/signin"), ("profile", "/me"), ("games", "/games"), ("turns", "/turns"),
                           ("tourneys", "/t"), ("new tourney", "/t/new"), ("tourney", f"/t/{tourney}"),
                           ("tourney, a duplicate round compared", f"/t/{compared}"),
                           ("replay", f"/g/{finished}/replay"),
                           ("replay, a trick", f"/g/{finished}/replay?hand=1&trick=6&card=3"),
                           ("record", f"/g/{finished}/record"), ("not found", "/g/ZZZZZZ/replay"),
                           ("replay, three seats", f"/g/{finished3}/replay?hand=1&trick=4&card=2"),
                           ("replay, three seats' result", f"/g/{finished3}/replay?hand=1&trick=end"),
                           ("record, three seats", f"/g/{finished3}/record")):
            page.goto(live_server + path)
            found += too_wide(page, what)

        page.goto(f"{live_server}/g/{table}")
        expect(page.locator("body.live")).to_have_count(1, timeout=10000)
        expect(page.locator("#hand .card").first).to_be_visible(timeout=10000)
        found += too_wide(page, "table, playing")
        page.goto(f"{live_server}/g/{table3}")
        expect(page.locator("body.live")).to_have_count(1, timeout=10000)
        expect(page.locator("#felt .plate")).to_have_count(3)
        expect(page.locator("#hand .card").first).to_be_visible(timeout=10000)
        found += too_wide(page, "table of three seats, playing")
        watcher = browser.new_context(viewport=PHONE, reduced_motion="reduce").new_page()
        try:  # someone without a seat: seat 0 at the bottom
            watcher.goto(f"{live_server}/g/{table3}/watch")
            expect(watcher.locator("#told.watching.seats-3")).to_have_count(1)
            found += too_wide(watcher, "table of three seats, watching")
        finally:
            watcher.context.close()

        # the analysis while it is worked out (its one thread held), then done
        gate = threading.Event()
        app_config["ANALYSIS_POOL"].submit(gate.wait, 30)
        page.goto(f"{live_server}/g/{finished}/analysis")
        expect(page.locator("#analysis-progress")).to_be_visible()
        found += too_wide(page, "analysis, in progress")
        gate.set()
        expect(page.locator("#analysis")).to_have_attribute("data-step", "0", timeout=30_000)
        found += too_wide(page, "analysis, a bid")
        for step in (20, 40):
            page.goto(f"{live_server}/g/{finished}/analysis?hand=1&step={step}")
            found += too_wide(page, f"analysis, step {step}")

        page.goto(live_server + "/new")
        page.get_by_role("button", name=re.compile("Create")).click()
        page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        expect(page.locator("#room")).to_be_visible()
        found += too_wide(page, "waiting room")
    finally:
        context.close()
    assert found == [], "\n".join(found)
