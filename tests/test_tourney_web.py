"""Tourney pages over HTTP: creating (every bad field said, nothing made), registering
alone and as a team by link, the director's controls and everyone else's refusals, a
table of the tourney linking back to it, and junk posted to every tourney route (never a
500; a refused post changes nothing)."""

from __future__ import annotations

import re

import pytest
from conftest import csrf_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from servers import smtp  # noqa: F401 - the fixture
from test_post_junk import NASTY


@pytest.fixture
def app_config() -> dict:
    # these tests make many tourneys from one browser (tests/test_limits.py holds the limits)
    return {"TOURNEY_RULES_OVERRIDE": {"end": "hands", "hands": 1}, "TOURNEY_TICK_S": 0,
            "TOURNEYS_PER_PERSON": "1000 per hour", "TOURNEYS_PER_ADDRESS": "1000 per hour",
            "TOURNEY_SEED_SOURCE": lambda: "byes"}  # the same draw on every run


def create(client, **fields) -> object:
    """A tourney by link (a listed one needs its director signed in)."""
    data = {"csrf": csrf_of(client), "tourney_name": "Friday cup", "format": "knockout", "team_limit": "4",
            "start": "director", "listed": "", "name": "Ann", "emoji": "🐼", **fields}
    return client.post("/t/new", data=data)


def new_tourney(client, **fields) -> str:
    r = create(client, **fields)
    assert r.status_code == 303, r.get_data(as_text=True)
    return r.headers["Location"].rsplit("/", 1)[1]


def post(client, path: str, **fields):
    return client.post(path, data={"csrf": csrf_of(client), **fields})


def flashed(client, code: str) -> str:
    m = re.search(r'class="message" role="alert">([^<]+)<', client.get(f"/t/{code}").get_data(as_text=True))
    return m.group(1) if m else ""


@pytest.mark.parametrize("field,value,message", [
    ("format", "league", "Choose knockout or Swiss."),
    ("team_limit", "1", "The team limit is 2 to 64."),
    ("team_limit", "²", "The team limit is 2 to 64."),
    ("start", "soon", "Choose how the tourney starts."),
    ("tourney_name", "   ", "Give the tourney a name."),
    ("name", "", None),
])
def test_a_bad_field_is_said_and_nothing_is_made(client, service, field, value, message):
    r = create(client, **{field: value})
    assert r.status_code == 400
    if message:
        assert message in r.get_data(as_text=True)
    assert service.store.db["tourneys"].count == 0


def test_a_swiss_tourney_needs_its_rounds_and_a_timed_one_its_time(client):
    assert "1 to 15 rounds" in create(client, format="swiss", rounds="0").get_data(as_text=True)
    assert "date and time" in create(client, start="time", start_at="tomorrow", checkin="10").get_data(as_text=True)
    assert create(client, format="swiss", rounds="3").status_code == 303


def test_register_alone_and_as_a_team_by_link(app, client):
    code = new_tourney(client)
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Friday cup" in page and "You direct this tourney" in page and "Register a team" in page
    assert post(client, f"/t/{code}/register", name="Ann", emoji="🐼", **{"as": "team"}).status_code == 303
    page = client.get(f"/t/{code}").get_data(as_text=True)
    link = re.search(r'value="(http[^"]+/t/' + code + r'/team/[^"]+)"', page).group(1)
    path = link.split("localhost", 1)[1]
    bo = app.test_client()
    form = bo.get(path).get_data(as_text=True)
    assert "Join the team" in form
    assert post(bo, path, name="Bo", emoji="🐨").status_code == 303
    assert "Bo" in bo.get(f"/t/{code}").get_data(as_text=True)
    assert "You are registered" in bo.get(f"/t/{code}").get_data(as_text=True)
    assert bo.get(path).status_code == 303  # in a team already: on to the tourney
    cy = app.test_client()
    assert post(cy, f"/t/{code}/register", name="Cy", emoji="🦊", **{"as": "solo"}).status_code == 303
    assert "alone" in cy.get(f"/t/{code}").get_data(as_text=True)
    post(cy, f"/t/{code}/register", name="Cy", emoji="🦊", **{"as": "solo"})
    assert flashed(cy, code)  # registering twice is refused in words


def test_only_the_director_directs_and_refusals_are_said(app, client):
    code = new_tourney(client, bot_fill="on")
    other = app.test_client()
    other.get(f"/t/{code}")
    for path in ("start", "bot-team", "cancel"):
        assert post(other, f"/t/{code}/{path}").status_code == 303
        assert flashed(other, code), path
    assert "You direct this tourney" not in other.get(f"/t/{code}").get_data(as_text=True)
    assert post(client, f"/t/{code}/remove", team="x").status_code == 400
    assert other.get(f"/t/{code}/team/not-a-token!").status_code == 404
    assert post(other, f"/t/{code}/team/abcdefghijk", name="Di", emoji="🐯").status_code == 303
    assert flashed(other, code)  # a team link that is not one


def test_unknown_codes_are_a_404(client):
    assert client.get("/t/ZZZZZZ").status_code == 404
    assert client.get("/t/bad!").status_code == 404
    assert post(client, "/t/ZZZZZZ/start").status_code == 404
    assert post(client, "/t/ZZZZZZ/register", name="Ann", emoji="🐼", **{"as": "solo"}).status_code == 404


def test_the_listing_shows_listed_tourneys_only(app, client, smtp):  # noqa: F811
    from test_auth import sign_in
    app.config.update(smtp.config())
    sign_in(client, smtp, "ann@example.com")  # a listed tourney needs a signed-in director
    listed = new_tourney(client, tourney_name="Open cup", listed="on")
    hidden = new_tourney(client, tourney_name="Secret cup", listed="")
    page = client.get("/t").get_data(as_text=True)
    assert f'href="/t/{listed}"' in page and f'href="/t/{hidden}"' not in page


def test_a_tourney_table_links_back_to_its_tourney(app, client, service):
    code = new_tourney(client, bot_fill="on")
    tourneys = app.extensions["spades.tourneys"]
    post(client, f"/t/{code}/register", name="Ann", emoji="🐼", **{"as": "team"})
    with client.session_transaction() as session:
        token = tourneys.view(code, session["pid"]).token
    bo = app.test_client()
    assert post(bo, f"/t/{code}/team/{token}", name="Bo", emoji="🐨").status_code == 303
    post(client, f"/t/{code}/bot-team")
    assert post(client, f"/t/{code}/start").status_code == 303
    post(client, f"/t/{code}/ready")
    post(bo, f"/t/{code}/ready")
    table = tourneys.view(code, None).rounds[0].tables[0].table
    assert table is not None  # Ann and Bo against the bot team: the table is made
    page = client.get(f"/g/{table}").get_data(as_text=True)
    assert f'href="/t/{code}">Tourney<' in page
    # no bidding at a tourney table: nothing on it speaks of bids or bags, and nobody hosts it
    assert "chip-bid" not in page and "host-tag" not in page and "bag" not in page.lower(), page
    assert "tourney clock · no bidding" in page  # its clock is the tourney's, whatever the tempo
    assert f'href="/g/{table}/watch"' in client.get(f"/t/{code}").get_data(as_text=True)


TOURNEY_ROUTES = {
    "/t/new": ("tourney_name", "format", "team_limit", "rounds", "start", "start_at", "checkin", "name", "emoji"),
    "/t/{code}/register": ("as", "name", "emoji"),
    "/t/{code}/team/{token}": ("name", "emoji"),
    "/t/{code}/ready": (),
    "/t/{code}/start": (),
    "/t/{code}/bot-team": (),
    "/t/{code}/remove": ("team",),
    "/t/{code}/cancel": (),
}


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(route=st.sampled_from(sorted(TOURNEY_ROUTES)), real=st.booleans(),
       values=st.lists(st.one_of(st.sampled_from(NASTY), st.text(max_size=20)), min_size=3, max_size=3))
def test_junk_never_gives_a_500(app, client, route, real, values):
    code = new_tourney(client) if real else "ZZZZZZ"
    stranger = app.test_client()
    form = {"csrf": csrf_of(stranger)}
    for name, text in zip(TOURNEY_ROUTES[route], values * 3):
        form[name] = text
    before = app.extensions["spades.tourneys"].view(code, None) if real else None
    r = stranger.post(route.format(code=code, token="abcdefghij"), data=form)
    assert r.status_code < 500, (route, form, r.status_code)
    if real and (r.status_code >= 400 or flashed(stranger, code)):
        assert app.extensions["spades.tourneys"].view(code, None) == before, (route, form)


def test_a_registration_follows_the_person_into_their_account(app, client, smtp):  # noqa: F811
    from test_auth import sign_in
    app.config.update(smtp.config())
    code = new_tourney(client)
    post(client, f"/t/{code}/register", name="Ann", emoji="🐼", **{"as": "solo"})
    sign_in(client, smtp, "ann@example.com")
    assert "You are registered" in client.get(f"/t/{code}").get_data(as_text=True)
    assert "You direct this tourney" in client.get(f"/t/{code}").get_data(as_text=True)


def test_a_team_with_a_bye_is_told_so_on_the_tourney_page(app, client):
    code = new_tourney(client, bot_fill="on")
    tourneys = app.extensions["spades.tourneys"]
    post(client, f"/t/{code}/register", name="Ann", emoji="🐼", **{"as": "team"})
    with client.session_transaction() as session:
        ann = session["pid"]
    bo, cy = app.test_client(), app.test_client()
    assert post(bo, f"/t/{code}/team/{tourneys.view(code, ann).token}", name="Bo", emoji="🐨").status_code == 303
    post(cy, f"/t/{code}/register", name="Cy", emoji="🦊", **{"as": "solo"})
    post(client, f"/t/{code}/bot-team")
    assert post(client, f"/t/{code}/start").status_code == 303
    view = tourneys.view(code, ann)
    assert view.rounds[0].byes == (view.my_team,)  # three teams: Ann's has the bye in this draw
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Your match: a bye in round 1" in page and "goes through to the next round" in page
    cy_page = cy.get(f"/t/{code}").get_data(as_text=True)  # Cy has a match to play, not a bye
    assert "Your match: round 1" in cy_page and "Your match: a bye" not in cy_page
