"""The lobby over HTTP: tables created, joined and posted to."""

from __future__ import annotations

import re

from conftest import csrf_of

from spades.tables import EMOJIS

HOST_EMOJI, A_EMOJI, B_EMOJI = EMOJIS[0], EMOJIS[1], EMOJIS[2]


def new_table(client, humans: int = 3, name: str = "Hana", emoji: str = HOST_EMOJI, **fields) -> str:
    data = {"csrf": csrf_of(client), "name": name, "emoji": emoji, "humans": str(humans), "mode": "bidding",
            "end": "target-500", "bag_penalty": "on", "tempo": "normal", "level": "easy", "speed": "fast"}
    data.update(fields)
    r = client.post("/new", data=data)
    assert r.status_code == 303, r.get_data(as_text=True)
    return r.headers["Location"].rsplit("/", 1)[1]


def join(client, code: str, name: str, emoji: str = A_EMOJI, path: str | None = None):
    return client.post(path or f"/j/{code}", data={"csrf": csrf_of(client), "name": name, "emoji": emoji})


def post(client, code: str, what: str, **data):
    return client.post(f"/g/{code}/{what}", data={"csrf": csrf_of(client), **data})


def members(html: str) -> dict[str, str]:
    """Name -> member number, as listed in the room fragment."""
    return {name: number for number, name in re.findall(
        r'data-member="(\d+)">\s*<span class="member-emoji"[^>]*>[^<]*</span>\s*'
        r'<span class="member-name">([^<(]+?)(?: \(you\))?</span>',
        html)}
