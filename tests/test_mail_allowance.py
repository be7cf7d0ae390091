"""The site's hourly mail allowance, over HTTP with a real SMTP server and the real limits
(memory storage): a stranger spraying sign-in asks from many client addresses cannot stop a
new person's sign-in, invitations and sign-in codes do not drain each other, a household
behind one address signs in, and whoever runs the site sees the hour's figures."""

from __future__ import annotations

import logging

import pytest
from conftest import FakeClock, csrf_of
from helpers.guards import CAPPED, HOUR, accounts_clock, browser, code_in, error_of, mails_to, sign_in
from helpers.lobby import new_table, post

from spades.accounts import CODES_PER_HOUR

NETWORK_FULL = "Many sign-in codes have been sent to people on your network this hour."
SITE_FULL = "The site has sent all the mail it may send this hour."



# as in the sign-in tests: a real SMTP server for the app, and the accounts' clock
@pytest.fixture
def app_config(smtp):
    return smtp.config()


@pytest.fixture
def clock(app) -> FakeClock:
    """The accounts' clock (codes, their hourly counts, sessions), moved by the tests."""
    return accounts_clock(app)


class Asker:
    """A browser at one client address that asks for codes (its CSRF token read once)."""

    def __init__(self, app, address: str) -> None:
        self.client = browser(app, address)
        self.csrf = csrf_of(self.client)

    def ask(self, email: str):
        return self.client.post("/signin", data={"csrf": self.csrf, "email": email})


def spray(app, addresses: list[str], asks: int = 5) -> list[int]:
    """A stranger's asks for codes to new addresses (at seven domains), ``asks`` from each
    client address, taking turns; the statuses."""
    askers = [Asker(app, a) for a in addresses]
    return [s.ask(f"x{n}.{k}@mail{n % 7}.example").status_code for k in range(asks) for n, s in enumerate(askers)]


SPRAYS = {
    "110 IPv4 networks": [f"203.{n // 100}.{n % 100}.9" for n in range(110)],
    "one IPv4 network": [f"198.18.0.{n + 1}" for n in range(110)],
    "110 IPv6 networks in one /48": [f"2001:db8:7:{n:x}::1" for n in range(110)],
}


@pytest.mark.parametrize("addresses", SPRAYS.values(), ids=SPRAYS.keys())
def test_a_spray_of_asks_leaves_a_new_person_their_code(app, smtp, clock, addresses):
    statuses = spray(app, addresses)
    assert len(statuses) == 550 and statuses.count(303) < 500 and set(statuses) <= {303, 429, 503}
    sent = len(smtp.messages)
    assert sent == statuses.count(303) < app.config["MAIL_HOURLY_CAP"]
    newcomer = Asker(app, "192.0.2.77")  # a new person on a network fresh this hour
    r = newcomer.ask("newcomer@example.org")
    assert r.status_code == 303 and r.headers["Location"].endswith("/signin/code"), error_of(r)
    assert code_in(smtp.wait_for("newcomer@example.org").text)
    assert len(smtp.messages) == sent + 1 < app.config["MAIL_HOURLY_CAP"]


def test_one_network_gets_21_codes_an_hour_then_is_told_so(app, smtp, clock):
    askers = [Asker(app, f"198.51.100.{n}") for n in (1, 2)]  # two machines behind one /24
    statuses = [askers[n % 2].ask(f"p{n}@example.com").status_code for n in range(22)]
    assert statuses == [303] * 21 + [429]  # 20 from the codes' share, one from the reserve
    r = askers[0].ask("p99@example.com")
    assert r.status_code == 429 and error_of(r).startswith(NETWORK_FULL)
    assert "Try again in 60 minutes, or from a browser where you signed in before." in error_of(r)
    assert HOUR - 60 <= int(r.headers["Retry-After"]) <= HOUR + 1
    assert len(smtp.messages) == 21
    assert Asker(app, "198.51.101.1").ask("q@example.com").status_code == 303  # the next /24 is not held
    clock.now += HOUR  # a new hour: the network's part again
    assert askers[0].ask("p99@example.com").status_code == 303


def test_invitations_and_sign_in_codes_do_not_spend_each_others_share(app, smtp, clock):
    app.config.update(MAIL_HOURLY_CAP=50)  # invitations 10, reminders 5, codes 20 (2 a network), reserve 15
    hosts = [browser(app, "192.0.2.60"), browser(app, "192.0.2.61")]
    tables = [new_table(h) for h in hosts]
    r = post(hosts[0], tables[0], "invite", emails=" ".join(f"i{n}@example.com" for n in range(10)))
    assert r.status_code == 303
    r = post(hosts[1], tables[1], "invite", emails="one-more@example.com")
    assert r.status_code == 503 and SITE_FULL in r.get_data(as_text=True)
    assert len(smtp.messages) == 10
    statuses = spray(app, [f"203.0.{n}.9" for n in range(40)], asks=2)  # 80 asks from 40 networks
    assert statuses.count(303) == 20 + 15 and len(smtp.messages) == 10 + 35 <= 50
    r = Asker(app, "192.0.2.77").ask("late@example.org")  # both sign-in shares spent now
    assert r.status_code == 503 and error_of(r).startswith(SITE_FULL)
    clock.now += HOUR
    r = Asker(app, "192.0.2.77").ask("late@example.org")
    assert r.status_code == 303, error_of(r)
    assert post(hosts[1], tables[1], "invite", emails="one-more@example.com").status_code == 303


def test_a_spent_share_is_logged_once_an_hour_and_shown_to_who_runs_the_site(app, smtp, clock, caplog):
    app.config.update(MAIL_HOURLY_CAP=50, ADMIN_EMAILS=("boss@example.com",))
    boss, stranger = browser(app, "192.0.2.10"), browser(app, "192.0.2.11")
    assert stranger.get("/admin/mail").status_code == 403
    for client, email in ((boss, "boss@example.com"), (stranger, "stranger@example.com")):
        sign_in(client, smtp, email)  # two codes from the codes' share
    caplog.set_level(logging.WARNING, logger="spades.web.site.allowance")
    statuses = spray(app, [f"203.0.{n}.9" for n in range(30)], asks=3)  # 90 asks from 30 networks
    assert statuses.count(303) == 18 + 15  # the rest of the codes' share and the reserve (one a network)
    warnings = [rec.getMessage() for rec in caplog.records if rec.name == "spades.web.site.allowance"]
    assert len(warnings) == 2, warnings
    assert warnings[0].startswith("mail: the sign-in codes' share is spent: codes to new browsers come from the "
                                  "reserve, one per network until ")
    assert "(20 of 20 sent this hour, cap 50)" in warnings[0]
    assert warnings[1].startswith("mail: the reserve for sign-in codes is spent") and "(15 of 15 sent" in warnings[1]
    sign_in(boss, smtp, "boss@example.com")  # where it signed in before: outside the cap
    page = boss.get("/admin/mail").get_data(as_text=True)
    for what, sent, of in (("Invitations", 0, 10), ("Game-night reminders", 0, 5),
                           ("Sign-in codes to new browsers", 20, 20),
                           ("The reserve for sign-in codes", 15, 15), ("All of these", 35, 50),
                           ("Codes to browsers that signed in before (not capped)", 1, ""),
                           ("Sign-in codes refused for want of mail", 90 - 33, "")):
        assert f'<th scope="row">{what}</th><td>{sent}</td><td>{of}</td>' in page, what
    assert "From 08:00 UTC to 09:00 UTC" in page
    r = stranger.get("/admin/mail")
    assert r.status_code == 403 and "Only the people who run the site may see the mail figures." in r.get_data(
        as_text=True)


def test_a_household_on_one_address_signs_in_and_each_email_keeps_its_own_limit(app, smtp, clock):
    home = "198.51.100.30"
    people = [f"member{n}@example.com" for n in range(8)]
    for email in people:  # eight people at one address, within two minutes
        r = Asker(app, home).ask(email)
        assert r.status_code == 303, error_of(r)
        assert mails_to(smtp, email) == 1
    again = Asker(app, home)
    statuses = [again.ask(people[0]).status_code for _ in range(CODES_PER_HOUR)]
    assert statuses == [303] * (CODES_PER_HOUR - 1) + [429]  # her own five codes an hour
    r = again.ask(people[0])
    assert r.status_code == 429 and error_of(r).startswith(CAPPED)
    assert mails_to(smtp, people[0]) == CODES_PER_HOUR


def test_one_recipient_domain_cannot_take_the_codes_of_the_others(app, smtp, clock):
    app.config.update(MAIL_HOURLY_CAP=50)  # to one domain: 10 from the codes' share, 5 from the reserve
    statuses = [Asker(app, f"203.0.{n}.9").ask(f"p{n}@big.example").status_code for n in range(16)]
    assert statuses == [303] * 15 + [503]
    r = Asker(app, "203.0.99.9").ask("p99@big.example")
    assert r.status_code == 503
    assert error_of(r).startswith("Many sign-in codes have been sent to addresses at big.example this hour.")
    r = Asker(app, "203.0.100.9").ask("ann@small.example")  # another domain: its code comes
    assert r.status_code == 303 and mails_to(smtp, "ann@small.example") == 1
