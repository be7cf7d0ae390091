"""Circles' game nights: a time ahead, a night scheduled, the night service."""

from __future__ import annotations

from datetime import datetime, timedelta
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from helpers.circles import invite_link, make, post, signed_in


def circle_of_five(app):
    """Ann's circle with Bo, Cy and Di in it; Ed signed in and in no circle: its slug and
    the five people's clients."""
    ann, bo, cy, di, ed = (signed_in(app, f"{n.lower()}@example.com", n, e)
                           for n, e in (("Ann", "🦊"), ("Bo", "🐼"), ("Cy", "🐯"), ("Di", "🐸"), ("Ed", "🐙")))
    slug = make(ann)
    link = urlsplit(invite_link(ann, slug)).path  # PUBLIC_URL may name another host
    for c in (bo, cy, di):
        assert post(c, link).status_code == 303
    return slug, ann, bo, cy, di, ed


def ahead(days: float = 2, zone: str = "Europe/Paris") -> tuple[str, str]:
    """A day and a time ``days`` from now in ``zone``, to the minute."""
    d = datetime.now(ZoneInfo(zone)) + timedelta(days=days)
    return d.strftime("%Y-%m-%d"), d.strftime("%H:%M")


def schedule(client, slug: str, zone: str = "Europe/Paris", weekly: bool = False, days: float = 2):
    day, at = ahead(days, zone)
    return post(client, f"/c/{slug}/nights", day=day, time=at, zone=zone, **({"weekly": "on"} if weekly else {}))


def nights(app):
    return app.extensions["spades.nights"]
