"""Sign-in at its limits: browsers at client addresses, mails counted, codes read, the accounts clock."""

from __future__ import annotations

import re

from conftest import FakeClock, csrf_of

from spades.accounts import CODES_PER_HOUR

HOUR = 3600.0
CAPPED = f"This address has been sent {CODES_PER_HOUR} codes in the last hour."


def browser(app, address: str):
    """A fresh browser whose every request comes from the client address ``address``."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def ask(client, email: str):
    return client.post("/signin", data={"csrf": csrf_of(client), "email": email})


def try_code(client, code: str):
    return client.post("/signin/code", data={"csrf": csrf_of(client), "code": code})


def error_of(response) -> str:
    m = re.search(r'class="field-error"[^>]*>([^<]+)<', response.get_data(as_text=True))
    return m.group(1).replace("&#39;", "'") if m else ""


def code_in(text: str) -> str:
    return re.search(r"\b(\d{6})\b", text).group(1)


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
