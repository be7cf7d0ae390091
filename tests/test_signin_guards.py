"""Sign-in that a stranger can neither block nor brute-force, mail that cannot flood, any
CSRF token a 400, headers and idle sessions: each attack of the attack round replayed
over HTTP, from distinct client addresses, with the code read from a real SMTP server."""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator

import pytest
from conftest import FakeClock, csrf_of, start_practice
from helpers.guards import CAPPED, HOUR, accounts_clock, ask, browser, code_in, error_of, mails_to, sign_in, try_code
from helpers.lobby import new_table, post

from spades.accounts import (
    CODES_PER_HOUR,
    MAX_FAILURES,
    Accounts,
    Locked,
    TooManyCodes,
    TooManyTries,
    WrongCode,
)
from spades.storage import Store

DAY = 24 * HOUR
LOCKED = "Too many wrong codes for this address from everywhere."


@pytest.fixture
def app_config(smtp):
    return smtp.config()


@pytest.fixture
def clock(app) -> FakeClock:
    """The accounts' clock (codes, their hourly counts, sessions), moved by the tests."""
    return accounts_clock(app)


def wrong(code: str) -> str:
    return f"{(int(code) + 1) % 10**6:06d}"


def signed_in(client) -> bool:
    return "Signed in as" in client.get("/me").get_data(as_text=True)


def stranger_guesses(app, address: str, email: str, tries: int = 5) -> list[int]:
    """A stranger's browser asks for a code for ``email`` and types ``tries`` wrong ones."""
    client = browser(app, address)
    assert ask(client, email).status_code == 303
    return [try_code(client, "000000" if n % 2 else "999999").status_code for n in range(tries)]


# -- finding 1: any CSRF token is a 400 --------------------------------------------------------
def post_routes(app) -> list[str]:
    """Every POST route that asks for the page's CSRF token (not a ``csrf_exempt`` one,
    whose URL carries its own signed proof: the turn mails' one-click stop link)."""
    paths = []
    for rule in app.url_map.iter_rules():
        if "POST" in (rule.methods or ()) and not getattr(app.view_functions[rule.endpoint], "csrf_exempt", False):
            paths.append(re.sub(r"<[^>]+>", "ABCDE", re.sub(r"<int:[^>]+>", "1", rule.rule)))
    return sorted(set(paths))


@pytest.mark.parametrize("how", ["field", "header", "multipart"])
def test_a_csrf_token_of_any_text_is_a_400_on_every_post_route(app, client, caplog, how):
    start_practice(client)  # a session with a real token
    routes = post_routes(app)
    assert len(routes) >= 25
    exempt = {rule.rule for rule in app.url_map.iter_rules()
              if getattr(app.view_functions[rule.endpoint], "csrf_exempt", False)}
    # the stop links of the notice mails and the game nights' reminders: their signed URL is their proof;
    # Discord's interactions: Discord's signature over the body is theirs
    assert exempt == {"/notices/off/<token>", "/nights/off/<token>", "/discord/interactions"}
    caplog.set_level(logging.WARNING)
    for path in routes:
        if how == "field":
            r = client.post(path, data={"csrf": "é", "email": "ann@example.com"})
        elif how == "header":
            r = client.post(path, data={"email": "ann@example.com"}, headers={"X-CSRF-Token": "é"})
        else:
            r = client.post(path, data={"csrf": "\u202e😀", "file": (io.BytesIO(b"x"), "x.txt")})
        assert r.status_code == 400, (path, r.status_code)
        assert "This form has expired. Reload the page and try again." in r.get_data(as_text=True)
    assert not [rec for rec in caplog.records if rec.levelno >= logging.ERROR]


# -- finding 4: code mails per address, and the site's hourly cap (tests/test_mail_allowance.py)
def test_an_address_gets_at_most_five_codes_an_hour_whoever_asks(app, smtp, clock):
    statuses = []
    for n in range(12):  # 12 asks from 4 addresses, as in the attack
        statuses.append(ask(browser(app, f"198.51.100.{n % 4 + 1}"), "victim@example.com"))
    assert [r.status_code for r in statuses] == [303] * CODES_PER_HOUR + [429] * (12 - CODES_PER_HOUR)
    assert error_of(statuses[-1]).startswith(CAPPED) and "ask again in 60 minutes" in error_of(statuses[-1])
    assert mails_to(smtp, "victim@example.com") == CODES_PER_HOUR
    clock.now += HOUR  # an hour after the first: room again
    assert ask(browser(app, "198.51.100.9"), "victim@example.com").status_code == 303
    assert mails_to(smtp, "victim@example.com") == CODES_PER_HOUR + 1


def test_the_site_sends_at_most_its_hourly_cap_of_mail(app, smtp, clock):
    person = browser(app, "192.0.2.50")
    sign_in(person, smtp, "pat@example.com")  # a browser that signed in before
    app.config.update(MAIL_HOURLY_CAP=50)  # invitations 10, reminders 5, sign-in codes 20, the reserve 15
    answers = [ask(browser(app, f"10.{n}.0.1"), f"r{n}@example{n % 9}.com") for n in range(40)]
    assert [r.status_code for r in answers] == [303] * (20 + 15) + [503] * 5
    assert "The site has sent all the mail it may send this hour." in error_of(answers[-1])
    assert int(answers[-1].headers["Retry-After"]) > 0
    assert len(smtp.messages) == 1 + 35
    host = browser(app, "192.0.2.60")
    code = new_table(host)
    assert post(host, code, "invite", emails=" ".join(f"i{n}@example.com" for n in range(10))).status_code == 303
    r = post(host, code, "invite", emails="ari@example.com")
    assert r.status_code == 503 and "all the mail it may send this hour" in r.get_data(as_text=True)
    assert len(smtp.messages) == 1 + 35 + 10
    sign_in(person, smtp, "pat@example.com")  # the code for its own address still comes
    assert len(smtp.messages) == 1 + 35 + 10 + 1


def test_invitations_are_capped_per_person_and_a_name_goes_into_a_subject_only_as_letters(app, smtp):
    host = browser(app, "203.0.113.20")
    code = new_table(host, name="Win 500 at x.io")
    first = " ".join(f"p{i}@example.com" for i in range(10))
    assert post(host, code, "invite", emails=first).status_code == 303
    mail = smtp.wait_for("p0@example.com")
    assert mail.message["Subject"] == "A friend invites you to play Spades"
    assert "Win" not in mail.text and "x.io" not in mail.text
    second = " ".join(f"q{i}@example.com" for i in range(10))
    assert post(host, code, "invite", emails=second).status_code == 303
    assert len(smtp.messages) == 20
    r = post(host, code, "invite", emails="one-more@example.com")
    html = r.get_data(as_text=True)
    assert r.status_code == 429 and "You can invite 20 people an hour." in html and "Nothing was sent." in html
    assert len(smtp.messages) == 20
    named = browser(app, "203.0.113.21")
    code = new_table(named, name="Zoë O'Neil")
    assert post(named, code, "invite", emails="zed@example.com").status_code == 303
    assert smtp.wait_for("zed@example.com").message["Subject"] == "Zoë O'Neil invites you to play Spades"


# -- findings 2 and 3: nobody can block a person's sign-in, nor guess without end --------------
def test_a_browser_that_signed_in_before_is_never_held_back_by_strangers(app, smtp, clock):
    ann = browser(app, "198.51.100.40")
    sign_in(ann, smtp, "ann@example.com")
    assert ann.post("/signout", data={"csrf": csrf_of(ann)}).status_code == 303
    clock.now += HOUR  # her own code is out of this hour's count
    strangers = [browser(app, f"203.0.113.{n}") for n in (1, 2, 3)]
    asks = [ask(s, "ann@example.com").status_code for s in strangers for _ in range(5)]  # 15 asks
    assert asks.count(303) == CODES_PER_HOUR and 429 in asks
    for s in strangers:
        for _ in range(10):  # 30 wrong tries, each address up to its limit
            try_code(s, "123456")
    r = ask(ann, "ann@example.com")  # her own ask, where she signed in before
    assert r.status_code == 303, error_of(r)
    r = try_code(ann, code_in(smtp.messages[-1].text))
    assert r.status_code == 303, error_of(r)
    assert signed_in(ann)


def test_a_good_code_a_person_holds_works_after_strangers_burn_tries(app, smtp, clock):
    bea = browser(app, "198.51.100.50")  # a browser new to the address
    assert ask(bea, "bea@example.com").status_code == 303
    code = code_in(smtp.wait_for("bea@example.com").text)
    for n in (1, 2, 3):  # 30 wrong tries from 3 addresses, as in the attack
        stranger = browser(app, f"203.0.113.{10 + n}")
        ask(stranger, "bea@example.com")
        for _ in range(10):
            assert try_code(stranger, "123456").status_code in (410, 422, 429)
    r = try_code(bea, code)
    assert r.status_code == 303, error_of(r)
    assert signed_in(bea)


def test_a_hundred_wrong_codes_in_a_row_close_the_address_to_new_browsers(app, smtp, clock):
    cat = browser(app, "198.51.100.60")
    sign_in(cat, smtp, "cat@example.com")  # her laptop
    failures, n = 0, 0
    while failures < MAX_FAILURES:  # guessers from 20 addresses, 5 codes an hour, 5 tries each
        clock.now += HOUR
        for _ in range(CODES_PER_HOUR):
            n += 1
            statuses = stranger_guesses(app, f"10.9.{n}.1", "cat@example.com")
            assert statuses == [422] * 4 + [429]
            failures += 5
    clock.now += HOUR - 60  # 59 minutes after the hundredth
    late = browser(app, "10.9.99.1")
    r = ask(late, "cat@example.com")
    assert r.status_code == 429 and error_of(r).startswith(LOCKED)
    assert "Ask for a new code from a browser where you signed in before, or try again in" in error_of(r)
    assert mails_to(smtp, "cat@example.com") == 1 + MAX_FAILURES // 5  # no mail for the refused ask
    # her laptop asks and signs in as usual; that starts the count again
    assert cat.post("/signout", data={"csrf": csrf_of(cat)}).status_code == 303
    sign_in(cat, smtp, "cat@example.com")
    clock.now += 60  # the strangers' last codes are out of the hour's count
    assert ask(late, "cat@example.com").status_code == 303


def test_past_the_cap_a_new_browser_waits_an_hour_then_one_wrong_try_closes_it_again(app, smtp, clock):
    n = 0
    for _hour in range(MAX_FAILURES // (5 * CODES_PER_HOUR)):
        for _ in range(CODES_PER_HOUR):
            n += 1
            stranger_guesses(app, f"10.8.{n}.1", "dan@example.com")
        clock.now += HOUR
    clock.now -= HOUR - 60  # a minute after the hundredth wrong try
    dan = browser(app, "198.51.100.70")
    r = ask(dan, "dan@example.com")
    assert r.status_code == 429 and "try again in 59 minutes" in error_of(r)
    clock.now += HOUR
    assert ask(dan, "dan@example.com").status_code == 303  # an hour on: open again
    code = code_in(smtp.wait_for("dan@example.com").text)
    guesser = browser(app, "10.8.200.1")
    assert ask(guesser, "dan@example.com").status_code == 303
    r = try_code(guesser, "000000" if code != "000000" else "111111")
    assert r.status_code == 422  # the 101st wrong try is checked ...
    r = try_code(guesser, code)
    assert r.status_code == 429 and error_of(r).startswith(LOCKED)  # ... and closes it for another hour
    clock.now += HOUR
    assert try_code(dan, code).status_code == 410  # her code expired meanwhile: she asks again
    assert ask(dan, "dan@example.com").status_code == 303
    assert try_code(dan, code_in(smtp.messages[-1].text)).status_code == 303


# -- finding 9: headers and idle sessions ---------------------------------------------------------
def test_answers_that_carry_a_hand_are_never_stored(app, client):
    code = start_practice(client)
    v = client.get(f"/g/{code}/view.json")
    assert v.get_json()["hand"] and v.headers["Cache-Control"] == "no-store"
    for path in (f"/g/{code}", f"/g/{code}/record.json", f"/g/{code}/record", f"/g/{code}/replay", "/signin",
                 "/me"):
        assert client.get(path).headers.get("Cache-Control") == "no-store", path
    r = client.post(f"/g/{code}/act", data={"csrf": csrf_of(client), "action": "bid", "bid": "3", "version": "0"},
                    headers={"HX-Request": "true"})  # a move's answer: the fragments
    assert r.headers.get("Cache-Control") == "no-store"
    assert "no-store" not in app.test_client().get("/").headers.get("Cache-Control", "")  # a new visitor's


def test_hsts_only_over_https(client):
    assert "Strict-Transport-Security" not in client.get("/").headers
    r = client.get("/", base_url="https://localhost")
    assert r.headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    r = client.get("/", headers={"X-Forwarded-Proto": "https"})  # no ProxyFix here: not trusted
    assert "Strict-Transport-Security" not in r.headers


def test_a_session_unused_for_30_days_is_signed_out_and_use_keeps_it(app, smtp, clock):
    eve, phone = browser(app, "198.51.100.80"), browser(app, "198.51.100.81")
    sign_in(eve, smtp, "eve@example.com")
    sign_in(phone, smtp, "eve@example.com")
    clock.now += 20 * DAY
    assert signed_in(eve)  # used on day 20 ...
    clock.now += 25 * DAY
    assert signed_in(eve)  # ... so still signed in on day 45
    assert not signed_in(phone)  # unused since day 0
    clock.now += 31 * DAY
    assert not signed_in(eve)
    sign_in(eve, smtp, "eve@example.com")
    sign_in(phone, smtp, "eve@example.com")
    clock.now += 2 * DAY
    assert signed_in(phone)
    assert phone.post("/signout/everywhere", data={"csrf": csrf_of(phone)}).status_code == 303
    assert not signed_in(eve)


# -- the guards on each engine ---------------------------------------------------------------------
@pytest.fixture
def accounts(database) -> Iterator[Accounts]:
    store = Store(database)
    yield Accounts(store, "secret", FakeClock())
    store.close()


def burn(accounts: Accounts, email: str, asker: str, trusted: bool = False) -> None:
    """Ask for a code and spend its five tries on wrong codes."""
    code = accounts.request_code(email, asker, trusted)
    for _ in range(5):
        with pytest.raises((WrongCode, TooManyTries)):
            accounts.check_code(email, asker, wrong(code), trusted)


def test_the_guards_hold_on_each_engine(accounts):
    clock, email = accounts.clock, "fay@example.com"
    for n in range(3 * CODES_PER_HOUR):  # 75 wrong tries in three hours
        burn(accounts, email, f"stranger-{n}")
        if n % CODES_PER_HOUR == CODES_PER_HOUR - 1:
            clock.now += HOUR
    held = accounts.request_code(email, "held")  # a browser new to the address holds a code
    for n in range(CODES_PER_HOUR - 1):
        burn(accounts, email, f"late-{n}")  # 95
    with pytest.raises(TooManyCodes):
        accounts.request_code(email, "someone")
    burn(accounts, email, "her-tablet", trusted=True)  # 100: her own wrong tries count too
    with pytest.raises(Locked):  # the exception: a held code, in a browser new to the address
        accounts.check_code(email, "held", held)
    with pytest.raises(Locked):
        accounts.request_code(email, "someone")
    mine = accounts.request_code(email, "her-laptop", trusted=True)
    accounts.check_code(email, "her-laptop", mine, trusted=True)  # signing in starts the count again
    accounts.check_code(email, "held", held)
