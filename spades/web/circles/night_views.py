"""A circle's game nights as services (``spades.circles.nights``): the block on the
circle's page, the night form again and the page's poll as frozen view models, for the
routes of ``spades.web.circles.nights``.

Imports: Flask, ``spades.circles``, ``spades.storage`` and the circles' services.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime

from flask import current_app

from ...circles.nights import PUSH_S, REMIND_S, SEATED_S
from ...storage import CircleRow, NightRow
from .services import circles, nights

POLL_S = 20  # the circle's page says "here" this often while a night is near
POLL_DAY_S = 300  # ... and this often while one is within a day
ZONES = ("UTC", "Europe/London", "Europe/Paris", "Europe/Berlin", "Europe/Madrid", "Europe/Rome", "Europe/Athens",
         "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles", "America/Toronto",
         "America/Sao_Paulo", "America/Mexico_City", "Asia/Kolkata", "Asia/Tokyo", "Asia/Singapore",
         "Australia/Sydney", "Pacific/Auckland", "Africa/Lagos", "Africa/Johannesburg")


# -- game nights -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class NightShown:
    """The next night: when, who said what (``said``: names by answer), this member's answer."""

    id: str
    when: str
    zone: str
    weekly: bool
    utc: str
    said: Mapping[str, tuple[str, ...]]
    mine: str | None
    ics: str


@dataclass(frozen=True)
class LaterNight:
    id: str
    when: str
    weekly: bool


@dataclass(frozen=True)
class NightFormValues:
    """The night form's fields, as typed (or the usual ones)."""

    day: str
    time: str
    zone: str
    weekly: bool


@dataclass(frozen=True)
class NightsView:
    """The nights' block: the next night (or None) and the later ones, ``owner`` (the
    schedule form, the pairing and the cancel button), the poll's period (None: none)."""

    slug: str
    next: NightShown | None
    later: tuple[LaterNight, ...]
    owner: bool
    pairing: str
    zones: tuple[str, ...]
    form: NightFormValues
    poll: int | None


@dataclass(frozen=True)
class PollView:
    """The page's "here" poll alone."""

    slug: str
    poll: int | None


def poll_every(slug: str) -> int | None:
    """How often a member's circle page says "here" (seconds), None: not now."""
    svc = nights()
    now = svc.clock()
    upcoming = svc.nights(slug)
    if (upcoming and upcoming[0].starts - now <= PUSH_S) or svc.store.circle_night_tables(slug, since=now - SEATED_S):
        return int(current_app.config.get("NIGHT_POLL_S", POLL_S))
    if upcoming and upcoming[0].starts - now <= REMIND_S:
        return POLL_DAY_S
    return None


def _night_shown(night: NightRow, uid: str) -> NightShown:
    svc = nights()
    answers = svc.answers(night)
    members = [m for m in circles().members(night.circle) if m.state == "in"]
    said: dict[str, list[str]] = {"yes": [], "maybe": [], "no": [], "none": []}
    for m in members:
        said[answers.get(m.person, "none")].append(f"{m.emoji} {m.name or 'Someone'}".strip())
    return NightShown(id=night.id, when=svc.when(night), zone=night.zone, weekly=night.weekly,
                      utc=datetime.fromtimestamp(night.starts, UTC).isoformat(),
                      said={k: tuple(v) for k, v in said.items()}, mine=answers.get(uid),
                      ics=f"/c/{night.circle}/nights/{night.id}.ics")


def nights_part(row: CircleRow, uid: str) -> dict[str, NightsView]:
    """The circle page's game nights: ``nights`` while one is scheduled (or has just
    seated people: the page's poll goes on), else ``night_plan`` for the owner alone (the
    schedule form), else nothing."""
    svc = nights()
    upcoming = svc.nights(row.slug)
    owner = row.owner == uid
    poll = poll_every(row.slug)
    shown = NightsView(
        slug=row.slug, next=_night_shown(upcoming[0], uid) if upcoming else None,
        later=tuple(LaterNight(n.id, svc.when(n), n.weekly) for n in upcoming[1:]),
        owner=owner, pairing=svc.pairing(row.slug), zones=ZONES,
        form=NightFormValues(day=date.fromtimestamp(svc.clock()).isoformat(), time="20:00",
                             zone=upcoming[-1].zone if upcoming else "UTC", weekly=False),
        poll=poll,
    )
    if upcoming or poll:
        return {"nights": shown}
    return {"night_plan": shown} if owner else {}


@dataclass(frozen=True)
class NightForm:
    """The night form again, filled with what was typed."""

    slug: str
    form: NightFormValues
    zones: tuple[str, ...] = ZONES
