"""Circles over HTTP: people signed in, circles made, links and sections read."""

from __future__ import annotations

import html
import re
import time

from conftest import csrf_of

from spades.storage import CircleResultRow

CIRCLE = "Friday Spades"


# -- people ----------------------------------------------------------------------------------
def signed_in(app, email: str, name: str, emoji: str = "🦊"):
    """A test client signed in to a new account ``email`` (made as signing in makes it;
    ``name`` "": an account that never chose a name)."""
    accounts = app.extensions["spades.accounts"]
    user, _ = accounts.store.sign_in(email, f"u-{(name or email.split('@')[0]).lower()}", None, name, emoji,
                                     time.time())
    client = app.test_client()
    with client.session_transaction() as s:
        s["pid"] = s["uid"] = user.id
        s["gen"] = user.session_gen
        s["sid"] = accounts.new_session(user.id)
    client.uid = user.id
    return client


def post(client, path: str, **data):
    return client.post(path, data={"csrf": csrf_of(client), **data})


def make(client, name: str = CIRCLE) -> str:
    r = post(client, "/c", name=name)
    assert r.status_code == 303, r.get_data(as_text=True)
    return r.headers["Location"].rsplit("/", 1)[1]


def invite_link(client, slug: str) -> str:
    page = client.get(f"/c/{slug}").get_data(as_text=True)
    href = html.unescape(re.search(r'<a rel="invite" href="([^"]+)"', page).group(1))
    return href.replace("http://localhost", "")


def text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def section(page: str, name: str) -> str:
    return text(re.search(rf'<section id="{name}".*?</section>', page, re.S).group(0))


# -- the season's standings, by hand -----------------------------------------------------------
def result(match_id: int, seats: list[str | None], scores: tuple[int, ...], winner: int | None,
           partners: bool = True, season: int = 1, at: float | None = None) -> CircleResultRow:
    """A result row: ``seats`` the people in seat order (None: a bot)."""
    names = {"u-ann": "Ann", "u-bo": "Bo", "u-cy": "Cy", "u-di": "Di"}
    rows = tuple(("human", p, names[p]) if p else ("bot", None, "Rex") for p in seats)
    sides = ((0, 2), (1, 3)) if partners else tuple((s,) for s in range(len(seats)))
    return CircleResultRow(match_id, season, f"T{match_id}", 1, at or 1000.0 + match_id, partners, rows, sides,
                           scores, winner)


# three matches worked out by hand:
#   1: Ann & Bo 250 beat Cy & Di 120
#   2: Ann & Cy 90 lose to Bo & Di 310
#   3: Ann & Bo 200 beat Cy & a bot 150
BY_HAND = [result(1, ["u-ann", "u-cy", "u-bo", "u-di"], (250, 120), 0),
           result(2, ["u-ann", "u-bo", "u-cy", "u-di"], (90, 310), 1),
           result(3, ["u-ann", "u-cy", "u-bo", None], (200, 150), 0)]
