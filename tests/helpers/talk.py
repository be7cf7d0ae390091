"""Table talk over HTTP: messages said and the chat read, a browser as a player id."""

from __future__ import annotations

import re

from conftest import csrf_of

HX = {"HX-Request": "true"}


def say(client, code: str, text: str, hx: bool = True):
    return client.post(f"/g/{code}/chat", data={"csrf": csrf_of(client), "text": text}, headers=HX if hx else {})


def chat_of(client, code: str) -> list[str]:
    """The chat lines this person's table page shows, as text."""
    html = client.get(f"/g/{code}").get_data(as_text=True)
    log = re.search(r'<ol id="chat-log".*?</ol>', html, re.S)
    assert log, "the table page has no chat"
    lines = re.findall(r'<li id="line-\d+"[^>]*>(.*?)(?:<details|</li>)', log.group(0), re.S)
    lines = [re.sub(r'<span aria-hidden="true">[^<]*</span>', "", line) for line in lines]  # the emoji
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", line)).strip() for line in lines]


def person(app, pid: str):
    """A browser whose player id is ``pid``."""
    client = app.test_client()
    csrf_of(client)
    with client.session_transaction() as s:
        s["pid"] = pid
    return client
