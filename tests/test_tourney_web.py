"""Tourney pages over HTTP: creating (every bad field said, nothing made), registering
alone and as a team by link, the director's controls and everyone else's refusals, a
table of the tourney linking back to it, and junk posted to every tourney route (never a
500; a refused post changes nothing)."""

from __future__ import annotations

import re

import pytest
from conftest import csrf_of
from helpers.junk import NASTY
from helpers.tourney import create, new_tourney
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


@pytest.fixture
def app_config() -> dict:
    # these tests make many tourneys from one browser (tests/test_limits.py holds the limits)
    return {"TOURNEY_RULES_OVERRIDE": {"end": "hands", "hands": 1}, "TOURNEY_TICK_S": 0,
            "TOURNEYS_PER_PERSON": "1000 per hour", "TOURNEYS_PER_ADDRESS": "1000 per hour",
            "TOURNEY_SEED_SOURCE": lambda: "byes"}  # the same draw on every run


def post(client, path: str, **fields):
    return client.post(path, data={"csrf": csrf_of(client), **fields})


def team_link(page: str) -> str:
    """The team link a page shows its first player, to send the partner."""
    return re.search(r'<code id="team-link-url" class="link-text">(http[^<]+/team/[^<]+)</code>', page).group(1)


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
    r = create(client, **{"play": "team", field: value})  # playing in it: the name is needed
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
    link = team_link(page)
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


def test_the_listing_shows_listed_tourneys_only(app, client, smtp):
    from helpers.auth import sign_in
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


def test_the_team_link_has_a_copy_button_and_the_page_says_what_happens_next(app, client):
    code = new_tourney(client)
    post(client, f"/t/{code}/register", name="Ann", emoji="🐼", **{"as": "team"})
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert f"/t/{code}/team/" in team_link(page)  # the whole link, as text that wraps
    assert 'data-copy="team-link-url"' in page and "Copy the link</button>" in page
    assert "Send this link to your partner. Opening it, they join your team." in page
    assert "If nobody has joined by the start, you get a partner then" in page
    assert "The director starts the tourney." in page
    assert "this page asks you “Ready?”: press Ready within 2 minutes, or your team loses that match." in page
    assert "Once both teams are ready, your table opens here." in page
    bo = app.test_client()
    post(bo, f"/t/{code}/team/{team_link(page).rsplit('/', 1)[1]}", name="Bo", emoji="🐨")
    page = bo.get(f"/t/{code}").get_data(as_text=True)
    assert "As a team with 🐼 Ann." in page and "team-link-url" not in page  # complete: no link to send


def test_a_timed_tourney_says_when_it_starts_and_when_check_in_opens(client):
    code = new_tourney(client, start="time", start_at="2099-01-02T19:30", checkin="10", play="solo")
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Alone: at the start you get a partner, another person who registered alone (or a bot)." in page
    assert "The tourney starts by itself at 19:30. Check in on this page from 19:20" in page


def test_a_registered_person_withdraws_before_the_start_and_not_after(app, client):
    code = new_tourney(client, bot_fill="on")
    bo = app.test_client()
    post(bo, f"/t/{code}/register", name="Bo", emoji="🐨", **{"as": "solo"})
    page = bo.get(f"/t/{code}").get_data(as_text=True)
    assert f'action="/t/{code}/withdraw"' in page and ">Withdraw</button>" in page
    assert post(bo, f"/t/{code}/withdraw").status_code == 303
    page = bo.get(f"/t/{code}").get_data(as_text=True)
    assert "Register alone" in page and "You are registered" not in page and "No team yet." in page
    assert not flashed(bo, code)
    post(bo, f"/t/{code}/register", name="Bo", emoji="🐨", **{"as": "solo"})  # and may come back
    post(client, f"/t/{code}/bot-team")
    assert post(client, f"/t/{code}/start").status_code == 303
    assert "Withdraw</button>" not in bo.get(f"/t/{code}").get_data(as_text=True)
    assert post(bo, f"/t/{code}/withdraw").status_code == 303
    assert flashed(bo, code) == ("The tourney has started: it is too late to withdraw. If you cannot play, "
                                 "tell the director, who can remove your team.")
    stranger = app.test_client()
    stranger.get(f"/t/{code}")
    post(stranger, f"/t/{code}/withdraw")
    assert flashed(stranger, code)


def test_a_partner_who_stays_after_the_other_withdraws_gets_the_link_to_send(app, client):
    code = new_tourney(client, play="team")  # Ann plays in her tourney, as a team
    link = team_link(client.get(f"/t/{code}").get_data(as_text=True))
    bo = app.test_client()
    post(bo, link.split("localhost", 1)[1], name="Bo", emoji="🐨")
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "As a team with 🐨 Bo." in page and "Bo stays registered and may find another partner" in page
    post(client, f"/t/{code}/withdraw")
    page = bo.get(f"/t/{code}").get_data(as_text=True)
    assert "waiting for your partner" in page and team_link(page) == link


def test_the_creator_plays_in_it_unless_they_only_direct_it(client):
    form = client.get("/t/new").get_data(as_text=True)
    assert re.search(r'name="play" value="team" checked', form)  # playing is the default
    code = new_tourney(client, play="team", name="Ann")
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "You are registered" in page and "You direct this tourney" in page and "Register a team" not in page
    assert "🐼 Ann" in page and f"/t/{code}/team/" in team_link(page)
    code = new_tourney(client, play="solo", name="Ann")
    assert "Alone: at the start you get a partner" in client.get(f"/t/{code}").get_data(as_text=True)
    code = new_tourney(client, play="no", name="")  # directing only: no name needed
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Register a team" in page and "You are registered" not in page
    r = create(client, play="maybe")
    assert r.status_code == 400 and "Say whether you play in it" in r.get_data(as_text=True)


def test_the_form_shows_rounds_for_swiss_and_the_start_time_for_a_timed_start_only(client, service):
    form = client.get("/t/new").get_data(as_text=True)
    rounds = re.search(r'<fieldset class="depends" data-shown-when="([^"]+)">\s*<label class="field">Rounds', form)
    start = re.search(r'<fieldset class="depends" data-shown-when="([^"]+)">\s*<label class="field">Start time', form)
    assert rounds and rounds.group(1) == "format=swiss" and start and start.group(1) == "start=time"
    # without the script every field is sent: the ones that do not apply are not read
    code = new_tourney(client, format="knockout", rounds="junk", start="director", start_at="junk", checkin="x")
    page = client.get(f"/t/{code}").get_data(as_text=True)
    status = re.search(r'<p class="tourney-status">(.*?)</p>', page, re.S).group(1)
    assert "Knockout" in status and "rounds" not in status and "starts at" not in status
    assert "starts when the director presses Start" in status


TOURNEY_ROUTES = {
    "/t/new": ("tourney_name", "format", "team_limit", "rounds", "start", "start_at", "checkin", "play", "name",
               "emoji"),
    "/t/{code}/register": ("as", "name", "emoji"),
    "/t/{code}/team/{token}": ("name", "emoji"),
    "/t/{code}/withdraw": (),
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


def test_a_registration_follows_the_person_into_their_account(app, client, smtp):
    from helpers.auth import sign_in
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


def test_a_duplicate_tourney_shuts_a_round_s_replays_until_every_table_finished(app, client, service):
    from helpers.tourney import play_table

    from spades.web.matches.secrecy import ROUND_SHUT

    code = new_tourney(client, format="swiss", rounds="1", duplicate="on")
    tourneys = app.extensions["spades.tourneys"]
    people = []
    for i in range(4):
        token = tourneys.register_team(code, f"d{i}a", f"A{i}", "🐼")
        tourneys.join_team(code, token, f"d{i}b", f"B{i}", "🐨")
        people += [f"d{i}a", f"d{i}b"]
    assert post(client, f"/t/{code}/start").status_code == 303
    for pid in people:
        tourneys.ready(code, pid)
    a, b = (tv.table for tv in tourneys.view(code, None).rounds[0].tables)
    assert a and b
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert "Swiss, 1 round, duplicate deals" in " ".join(page.split())
    assert f"/g/{a}/watch" not in page and client.get(f"/g/{a}").status_code == 403  # nobody watches

    play_table(service, a)
    service.wait_idle(10)
    tourneys.wait_idle(10)
    r = client.get(f"/g/{a}/replay")
    assert r.status_code == 403 and ROUND_SHUT in " ".join(r.get_data(as_text=True).split())
    assert client.get(f"/g/{a}/analysis").status_code == 403
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert f"/g/{a}/replay" not in page and "once every table has finished" in page and "Matchpoints" not in page

    play_table(service, b)
    service.wait_idle(10)
    tourneys.wait_idle(10)
    assert client.get(f"/g/{a}/replay").status_code == 200
    page = client.get(f"/t/{code}").get_data(as_text=True)
    assert f"/g/{a}/replay" in page and f"/g/{b}/replay" in page
    assert "Matchpoints" in page and page.count("North-South") == 2 and page.count("East-West") == 2
