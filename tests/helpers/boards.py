"""Circles' weekly boards over HTTP: the week, its tables, its boards played."""

from __future__ import annotations

import re

from helpers.circles import post, text
from spades.tables import Continue, Player, Stale


# -- a week at three tables ---------------------------------------------------------------
def card_lists(value, skip=("results",)):
    """Every list of card texts anywhere in a JSON value (the finished hands' own lists
    under ``skip`` left out)."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in skip:
                yield from card_lists(v, skip)
    elif isinstance(value, (list, tuple)):
        if value and all(isinstance(x, str) and len(x) == 2 and x[1] in "SHDC" for x in value):
            yield value
        else:
            for v in value:
                yield from card_lists(v, skip)


def boards_section(page: str) -> str:
    found = re.search(r'<section id="boards".*?</section>', page, re.S)
    assert found, "no boards block on the page"
    return found.group(0)


def make_week(client, slug: str, **fields) -> object:
    return post(client, f"/c/{slug}/boards", **{"boards": "4", "preset": "standard", "start": "now", "days": "7",
                                                 **fields})


def the_week(app, slug: str):
    weeks = app.extensions["spades.tables"].store.board_weeks(slug)
    assert weeks
    return weeks[0]


def start_table(client, slug: str, week_id: str, tempo: str = "normal") -> str:
    r = post(client, f"/c/{slug}/boards/{week_id}/table", tempo=tempo)
    assert r.status_code == 303, text(r.get_data(as_text=True))
    return r.headers["Location"].rsplit("/", 1)[1]


def csrf(client) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', client.get("/").get_data(as_text=True)).group(1)


# -- friends at one table of the week ----------------------------------------------------------------
def handle_of(app, person: str) -> str:
    """How the circle's forms name a person (``spades.web.circles.home.handle``)."""
    from spades.web.circles.home import handle
    with app.app_context():
        return handle(person)


def play_boards(service, code: str, people: list[str], boards: int) -> None:
    """Play a table's first ``boards`` boards: each person's first legal move on their
    turn, every person's Continue after each hand; bots play the other seats."""
    for _ in range(3000):
        assert service.wait_idle()
        for person in people:
            snap = service.snapshot(code, person)
            v = snap.view.to_json()
            if v["finished"] or len(v["results"]) >= boards and v["phase"] != "hand_over":
                return
            try:
                if v["phase"] == "hand_over":
                    if len(v["results"]) >= boards:
                        return
                    service.handle(code, Player(person), Continue(v["version"]))
                elif v["to_act"] == snap.seat and v["legal"]:
                    service.act(code, Player(person), str(v["legal"][0]), v["version"])
            except Stale:
                continue
    raise AssertionError("the boards were not played")


def start_with(client, slug: str, week_id: str, **chosen) -> str:
    """A table of the week started by ``client`` with members chosen by handle: its code."""
    r = post(client, f"/c/{slug}/boards/{week_id}/table", tempo="normal", **chosen)
    assert r.status_code == 303, text(r.get_data(as_text=True))
    return r.headers["Location"].rsplit("/", 1)[1]


def play_through(service, code: str, person: str) -> None:
    """Play a table to the end of its match: the person's first legal move each turn,
    Continue after each hand; the bots play the other seats."""
    for _ in range(3000):
        assert service.wait_idle()
        snap = service.snapshot(code, person)
        v = snap.view.to_json()
        if v["finished"]:
            return
        try:
            if v["phase"] == "hand_over":
                service.handle(code, Player(person), Continue(v["version"]))
            elif v["to_act"] == snap.seat and v["legal"]:
                service.act(code, Player(person), str(v["legal"][0]), v["version"])
        except Stale:
            continue
    raise AssertionError("the table did not finish")
