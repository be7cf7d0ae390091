"""Signing in through the browser with the code from the mail."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

CODE_RE = re.compile(r"\b(\d{6})\b")


def sign_in(page: Page, base: str, inbox, email: str, landing: str = r"/games$") -> None:
    """Sign in on the page with the code from the mail, landing on ``landing`` (the name
    step for an account without a name)."""
    page.goto(base + "/signin")
    page.get_by_label("Email").fill(email)
    before = len(inbox.messages)
    page.get_by_role("button", name="Email me a code").click()
    page.wait_for_url(re.compile(r"/signin/code$"))
    expect(page.locator(".signin-email")).to_have_text(email.lower())
    mail = inbox.wait_for(email.lower())
    assert len(inbox.messages) == before + 1
    page.get_by_label("Code").fill(CODE_RE.search(mail.text).group(1))
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(landing))
