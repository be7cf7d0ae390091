"""Junk posted to every POST route: never a 500, and a refused post changes nothing.

Hypothesis draws each form field from text that has hurt before (digits that are not
ASCII, huge numbers, control characters, markup) and from plain values; the path's code
is a real table, a real room, or one that does not exist. After each refusal (any
status of 400 and above) the database holds what it held before. The examples are the
same on every run (derandomized), so CI never turns red by chance; run it with
``--hypothesis-seed`` to explore further."""

from __future__ import annotations

import pytest
from conftest import csrf_of, start_practice
from helpers.junk import NASTY
from helpers.lobby import new_table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spades.web.site.limits import limiter

ROUTES = {
    "/practice": ("level", "speed", "end", "name", "bag_penalty", "blind_nil"),
    "/new": ("humans", "mode", "end", "tempo", "level", "speed", "name", "emoji", "bag_penalty"),
    "/j/{code}": ("name", "emoji"),
    "/g/{code}/partner": ("member",),
    "/g/{code}/remove": ("member",),
    "/g/{code}/start": (),
    "/g/{code}/options": ("mode", "end", "tempo", "level", "speed", "blind_nil"),
    "/g/{code}/leave": (),
    "/g/{code}/invite": ("emails",),
    "/g/{code}/act": ("version", "action", "bid"),
    "/g/{code}/hint": (),
    "/g/{code}/rematch": ("version", "partner"),
    "/g/{code}/takeover": (),
    "/g/{code}/leave-table": (),
    "/g/{code}/closing": (),
    "/g/{code}/chat": ("text",),
    "/g/{code}/react": ("reaction",),
    "/g/{code}/chat-settings": ("chat", "filter"),
    "/g/{code}/silence": ("line", "on"),
    "/g/{code}/mute": ("line", "on"),
    "/g/{code}/report": ("line",),
    "/people/invite": ("person",),
    "/people/block": ("person", "on"),
    "/people/mute": ("person", "on"),
    "/signin": ("email",),
    "/signin/code": ("code",),
    "/me": ("name", "emoji"),
}
value = st.one_of(st.sampled_from(NASTY), st.text(max_size=30))


@pytest.fixture
def places(app, client, service):
    """A practice table at the player's turn to bid, a room, and an unknown code."""
    practice = start_practice(client)
    assert service.wait_idle()
    room = new_table(client)
    with client.session_transaction() as session:
        player = session["pid"]
    yield {"practice": practice, "room": room, "unknown": "ZZZZZZ", "player": player}
    limiter.reset()  # the limits this test ran into are not the next test's


def state(service, places) -> tuple:
    """Everything a refused post must leave as it was (once the bots of a table an earlier
    post started have made their moves): the room as stored (its change number is a
    process's count, which starts from the clock when a process first loads the room)."""
    assert service.wait_idle()
    return (service.store.stats(), service.snapshot(places["practice"], None).view.to_json()["version"],
            service.store.load_room(places["room"]), len(service.store.chat_lines(places["practice"])),
            service.store.muted(places["player"]), service.store.blocked(places["player"]))


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(route=st.sampled_from(sorted(ROUTES)), where=st.sampled_from(["practice", "room", "unknown"]),
       values=st.lists(value, min_size=3, max_size=3), htmx=st.booleans())
def test_junk_never_gives_a_500_and_a_refusal_changes_nothing(client, service, places, route, where, values,
                                                              htmx):
    before = state(service, places)
    form = {"csrf": csrf_of(client)}
    for name, text in zip(ROUTES[route], values * 3):
        form[name] = text
    headers = {"HX-Request": "true"} if htmx else {}
    r = client.post(route.format(code=places[where]), data=form, headers=headers)
    assert r.status_code < 500, (route, where, form, r.status_code)
    if r.status_code >= 400:
        assert state(service, places) == before, (route, form, r.status_code)
