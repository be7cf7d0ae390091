"""Push notices of a circle's tables, through a push service on loopback: a table for the
circle tells every other member's browser, and a table of the week's boards tells the
members seated at it; nobody else is told, and a member who blocked the starter is not."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import pytest
from conftest import PushService
from helpers.boards import handle_of, make_week, start_with, the_week
from helpers.circles import CIRCLE, invite_link, make, post, signed_in
from helpers.push import BrowserKeys, subscribe, vapid_config


@pytest.fixture
def app_config() -> dict:
    return vapid_config()


def members_with_browsers(app, pushes: PushService) -> tuple[str, dict]:
    """Ann's circle with Bo and Cy in it, each with a browser that allows notices: the
    circle's slug and, by name, each one's client and browser keys."""
    people = {}
    for name, emoji in (("Ann", "🦊"), ("Bo", "🐼"), ("Cy", "🐯")):
        client, keys = signed_in(app, f"{name.lower()}@example.com", name, emoji), BrowserKeys()
        assert subscribe(client, keys.subscription(f"{pushes.base}/{name}")).status_code == 204
        people[name] = (client, keys)
    slug = make(people["Ann"][0])
    for name in ("Bo", "Cy"):
        path = urlsplit(invite_link(people["Ann"][0], slug)).path  # the link is on the site's public address
        assert post(people[name][0], path).status_code == 303
    return slug, people


def told(pushes: PushService, people: dict, count: int) -> dict[str, dict]:
    """The notices received once ``count`` have arrived (they are sent from a thread), by name."""
    end = time.monotonic() + 10
    while len(pushes.received) < count and time.monotonic() < end:
        time.sleep(0.05)
    time.sleep(0.2)  # and no more than that
    return {got.path.strip("/"): people[got.path.strip("/")][1].decrypt(got.body) for got in pushes.received}


def test_a_table_of_boards_tells_the_members_seated_at_it(app, push_service):
    slug, people = members_with_browsers(app, push_service)
    ann = people["Ann"][0]
    assert make_week(ann, slug).status_code == 303
    code = start_with(ann, slug, the_week(app, slug).id, partner=handle_of(app, people["Bo"][0].uid))
    got = told(push_service, people, 1)
    assert list(got) == ["Bo"]  # not Cy, who is not seated, nor Ann, who started it
    assert got["Bo"]["title"] == f"Boards in {CIRCLE}"
    assert got["Bo"]["body"] == "Ann seated you at a table of this week's boards: play it."
    assert got["Bo"]["url"].endswith(f"/g/{code}")


def test_a_table_for_the_circle_tells_every_other_member_but_one_who_blocked_the_starter(app, push_service):
    slug, people = members_with_browsers(app, push_service)
    ann, cy = people["Ann"][0], people["Cy"][0]
    app.extensions["spades.tables"].store.set_block(cy.uid, ann.uid, True)
    r = post(ann, f"/c/{slug}/table", name="Ann", emoji="🦊", humans="3", **{
        "mode": "bidding", "level": "easy", "speed": "fast", "end": "target-500", "tempo": "normal"})
    assert r.status_code == 303
    code = r.headers["Location"].rsplit("/", 1)[1]
    got = told(push_service, people, 1)
    assert list(got) == ["Bo"]
    assert got["Bo"]["body"] == "Ann started a table: join it." and got["Bo"]["url"].endswith(f"/g/{code}")
