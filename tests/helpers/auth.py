"""Signing in over HTTP with the code from the mail."""

from __future__ import annotations

import re

from conftest import csrf_of

HX = {"HX-Request": "true"}


def code_in(text: str) -> str:
    return re.search(r"\b(\d{6})\b", text).group(1)


def ask(client, email: str):
    return client.post("/signin", data={"csrf": csrf_of(client), "email": email})


def try_code(client, code: str):
    return client.post("/signin/code", data={"csrf": csrf_of(client), "code": code})


def error_of(response) -> str:
    """The form's error as a person reads it (its apostrophes unescaped)."""
    m = re.search(r'class="field-error"[^>]*>([^<]+)<', response.get_data(as_text=True))
    return m.group(1).replace("&#39;", "'") if m else ""


def sign_in(client, smtp, email: str):
    """Ask for a code, read it from the mail, type it: the 303 that ends signing in."""
    before = len(smtp.messages)
    assert ask(client, email).status_code == 303
    msg = smtp.wait_for(email.lower())
    assert len(smtp.messages) == before + 1
    response = try_code(client, code_in(msg.text))
    assert response.status_code == 303, error_of(response)
    return response
