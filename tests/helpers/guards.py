"""Sign-in at its limits: browsers at client addresses, mails counted, codes read, the accounts clock."""

from __future__ import annotations

from conftest import FakeClock

from helpers.auth import ask, code_in, error_of, try_code  # noqa: F401 - the sign-in steps the guards' tests take
from spades.accounts import CODES_PER_HOUR

HOUR = 3600.0
CAPPED = f"This address has been sent {CODES_PER_HOUR} codes in the last hour."


def browser(app, address: str):
    """A fresh browser whose every request comes from the client address ``address``."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def mails_to(smtp, email: str) -> int:
    return sum(email in m.rcpt_tos for m in smtp.messages)


def sign_in(client, smtp, email: str) -> None:
    before = mails_to(smtp, email)
    r = ask(client, email)
    assert r.status_code == 303, error_of(r)
    assert mails_to(smtp, email) == before + 1
    r = try_code(client, code_in(smtp.messages[-1].text))
    assert r.status_code == 303, error_of(r)


def accounts_clock(app) -> FakeClock:
    """The accounts' clock (codes, their hourly counts, sessions) put in ``app``, for a test to move."""
    fake = FakeClock()
    app.extensions["spades.accounts"].clock = fake
    return fake
