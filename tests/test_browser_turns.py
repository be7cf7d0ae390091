"""The your-turn list in real Chromium: the home page of a person at a turn-based table
shows the table once it waits on them, and the top bar counts it, without a reload."""

from __future__ import annotations

import re

import pytest
from conftest import csrf_of
from helpers.lobby import join, new_table, post
from playwright.sync_api import expect


@pytest.fixture
def app_config():
    return {"TURN_LIST_POLL_S": 1}


def test_the_your_turn_list_updates_as_the_table_comes_to_you(app, live_server, browser):
    hana, ann = app.test_client(), app.test_client()
    code = new_table(hana, humans=2, name="Hana", tempo="days-1")
    join(ann, code, "Ann")
    post(hana, code, "start")
    service = app.extensions["spades.tables"]
    assert service.wait_idle()
    clients = {"Hana": hana, "Ann": ann}
    waiting = [t.seat for t in service.store.turns_of(code)]
    seats = {s.name: s.seat for s in service.seats(code)}
    first = next(n for n, s in seats.items() if s in waiting)  # the one the table waits on now
    other = "Ann" if first == "Hana" else "Hana"
    context = browser.new_context()
    context.add_cookies([{"name": "session", "value": clients[other].get_cookie("session").value,
                          "url": live_server}])
    page = context.new_page()
    try:
        page.goto(live_server + "/")
        expect(page.locator("#your-turn")).to_be_hidden()
        expect(page.locator("#turn-count")).to_be_hidden()
        # the first person bids; the bots move at once; then the table waits on the other
        mover = clients[first]
        while service.snapshot(code, None).view.to_json()["to_act"] != seats[other]:
            v = service.snapshot(code, None).view.to_json()
            assert v["to_act"] == seats[first]
            mover.post(f"/g/{code}/act", data={"csrf": csrf_of(mover), "action": "bid", "bid": "3",
                                                "version": str(v["version"])})
            assert service.wait_idle()
        expect(page.locator("#your-turn")).to_be_visible(timeout=10000)
        expect(page.locator("#your-turn")).to_contain_text(code)
        expect(page.locator("#your-turn")).to_contain_text(re.compile(r"Your move · (1 day|23 hours) left"))
        expect(page.locator("#turn-count .badge")).to_have_text("1")
    finally:
        context.close()
