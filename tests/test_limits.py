"""Limits on making things, over HTTP: practice tables, tables for friends and tourneys
per person and per client address, a listed tourney only for a signed-in director, and
the public list of tourneys a page at a time. Every refusal says what to do and how long
to wait (429 with Retry-After) and makes nothing."""

from __future__ import annotations

import re

from conftest import csrf_of
from helpers.auth import sign_in


def from_address(app, address: str):
    """A new browser (no cookie yet) at client address ``address``."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def practice(client):
    return client.post("/practice", data={"csrf": csrf_of(client), "level": "easy", "speed": "fast",
                                          "end": "target-500"})


def new_table(client, humans: str):
    return client.post("/new", data={"csrf": csrf_of(client), "humans": humans, "mode": "bidding",
                                     "end": "target-500", "tempo": "relaxed", "level": "easy", "speed": "fast",
                                     "name": "Ann", "emoji": "🐼", "bag_penalty": "on"})


def new_tourney(client, name: str = "Friday cup", listed: bool = False):
    return client.post("/t/new", data={"csrf": csrf_of(client), "tourney_name": name, "format": "knockout",
                                       "team_limit": "4", "start": "director", "listed": "on" if listed else "",
                                       "name": "Ann", "emoji": "🐼"})


def tables(service) -> int:
    return service.store.db["tables"].count


def waits_a_while(response) -> bool:
    """A 429 that says when to come back: Retry-After in seconds, within the hour."""
    return response.status_code == 429 and 1 <= int(response.headers["Retry-After"]) <= 3600


def listed_codes(html: str) -> list[str]:
    return re.findall(r'<li><a href="/t/([A-Z0-9]{6})">', html)


def test_one_person_may_start_30_practice_tables_an_hour_then_is_told_how_long_to_wait(app, service):
    ann = from_address(app, "10.0.0.1")
    for _ in range(30):
        assert practice(ann).status_code == 303
    made = tables(service)
    refused = practice(ann)
    assert waits_a_while(refused)
    text = refused.get_data(as_text=True)
    assert "You have started 30 practice tables within an hour, the most one person may. Try again in" in text
    assert waits_a_while(new_table(ann, "1"))  # a table for one through /new is a practice table too
    assert tables(service) == made == 30
    assert practice(from_address(app, "10.0.0.2")).status_code == 303  # someone else is not held up


def test_one_address_is_limited_whoever_asks_from_it(app, service):
    app.config["PRACTICE_PER_ADDRESS"] = "3 per hour"  # a script that drops its cookie every time
    for _ in range(3):
        assert practice(from_address(app, "10.0.0.7")).status_code == 303
    refused = practice(from_address(app, "10.0.0.7"))
    assert waits_a_while(refused)
    assert "3 practice tables have been started from your network within an hour" in refused.get_data(as_text=True)
    assert tables(service) == 3
    assert practice(from_address(app, "10.0.0.8")).status_code == 303


def test_tables_for_friends_are_limited_and_the_form_says_so(app, service):
    ann = from_address(app, "10.0.1.1")
    for _ in range(20):
        assert new_table(ann, "2").status_code == 303
    refused = new_table(ann, "4")
    assert waits_a_while(refused)
    page = refused.get_data(as_text=True)
    assert "You have started 20 tables for friends within an hour" in page
    assert 'action="/new"' in page  # the form again, as typed, with the reason
    assert tables(service) == 20
    assert practice(ann).status_code == 303  # practice counts apart


def test_a_listed_tourney_needs_a_signed_in_director_and_spam_never_reaches_the_list(app, smtp):
    app.config.update(smtp.config())
    tourneys = app.extensions["spades.tourneys"]
    spammer = from_address(app, "10.0.2.1")
    form = spammer.get("/t/new").get_data(as_text=True)
    assert 'name="listed"' not in form and "sign in</a> first" in form
    answers = [new_tourney(spammer, "Spam", listed=True).status_code for _ in range(50)]
    assert answers == [403] * 50
    assert "Sign in to list a tourney" in new_tourney(spammer, "Spam", listed=True).get_data(as_text=True)
    assert tourneys.listing().upcoming == ()
    assert listed_codes(app.test_client().get("/t").get_data(as_text=True)) == []

    ann = from_address(app, "10.0.2.2")
    sign_in(ann, smtp, "ann@example.com")
    assert 'name="listed" checked' in ann.get("/t/new").get_data(as_text=True)
    r = new_tourney(ann, "Open cup", listed=True)
    assert r.status_code == 303
    code = r.headers["Location"].rsplit("/", 1)[1]
    assert listed_codes(app.test_client().get("/t").get_data(as_text=True)) == [code]


def test_one_person_may_make_5_tourneys_an_hour_and_one_address_10(app, service):
    ann = from_address(app, "10.0.3.1")
    assert [new_tourney(ann).status_code for _ in range(5)] == [303] * 5
    refused = new_tourney(ann)
    assert waits_a_while(refused)
    assert "You have started 5 tourneys within an hour, the most one person may." in refused.get_data(as_text=True)
    others = [new_tourney(from_address(app, "10.0.3.1")).status_code for _ in range(6)]
    assert others == [303] * 5 + [429]  # ten from the address in all
    assert service.store.db["tourneys"].count == 10


def test_the_list_of_tourneys_comes_a_page_at_a_time(app):
    tourneys = app.extensions["spades.tourneys"]
    made = {tourneys.create(f"director-{n}", f"Cup {n}", team_limit=4) for n in range(45)}
    visitor = app.test_client()
    pages = [visitor.get("/t").get_data(as_text=True)] + \
        [visitor.get(f"/t?page={n}").get_data(as_text=True) for n in (2, 3)]
    shown = [listed_codes(page) for page in pages]
    assert [len(codes) for codes in shown] == [20, 20, 5]
    assert set(sum(shown, [])) == made and len(sum(shown, [])) == 45  # each once
    assert 'href="/t?page=2">Next page' in pages[0] and "Previous page" not in pages[0]
    assert 'href="/t">Previous page' in pages[1] and 'href="/t?page=3">Next page' in pages[1]
    assert 'href="/t?page=2">Previous page' in pages[2] and "Next page" not in pages[2]
    assert "no tourneys on this page" in visitor.get("/t?page=9").get_data(as_text=True)
    for junk in ("0", "x", "-1", "²", "999999"):
        assert visitor.get(f"/t?page={junk}").status_code == 400, junk


def test_one_person_may_ask_for_10_hints_a_minute_then_is_told_how_long_to_wait(app, service):
    ann, bo = from_address(app, "10.0.4.1"), from_address(app, "10.0.4.1")
    tables = []
    for client in (ann, bo):
        code = practice(client).headers["Location"].rsplit("/", 1)[1]
        tables.append(code)
    service.wait_idle()

    def hint(client, code, htmx=True):
        return client.post(f"/g/{code}/hint", data={"csrf": csrf_of(client)},
                           headers={"HX-Request": "true"} if htmx else {})

    answers = [hint(ann, tables[0]) for _ in range(10)]
    assert [r.status_code for r in answers] == [200] * 10
    assert "The Hard bot would bid" in answers[-1].get_data(as_text=True)
    refused = hint(ann, tables[0])
    assert waits_a_while(refused) and int(refused.headers["Retry-After"]) <= 60
    text = refused.get_data(as_text=True)
    assert "That is a lot of hints: at most 10 a minute. Try again in" in text and "The Hard bot would bid" not in text
    plain = hint(ann, tables[0], htmx=False)  # a page without JavaScript: back to the table, the reason shown
    assert plain.status_code == 303
    assert "That is a lot of hints: at most 10 a minute." in ann.get(f"/g/{tables[0]}").get_data(as_text=True)
    assert hint(bo, tables[1]).status_code == 200  # someone else is not held up
