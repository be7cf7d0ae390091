"""The circles' pages as services: who may do what, the rules of a form, the store's reads
and writes, each answered with a small frozen view model for a template, or a
``Refusal`` (a status and its sentence) the route turns into its answer. The routes of
``home`` read the request, call one of these and render; the boards' and the game
nights' own are ``board_views`` and ``night_views``.

Imports: Flask (the application's extensions and settings), ``spades.circles``,
``spades.rules_config``, ``spades.storage``, ``spades.tables`` and the web layer's limits,
options and services (no blueprint).
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime

from flask import current_app

from ...circles import CircleError, CircleService
from ...circles.nights import NightService
from ...circles.standings import Partnership, Standings
from ...rules_config import TURN_BASED
from ...storage import CircleMemberRow, CircleResultRow, CircleRow, CircleTableRow, SeasonRow
from ...tables import MAX_HUMANS, TOO_MANY_TURN_TABLES, AtLimit, BadPlayer, Refused, check_emoji, clean_name
from ..rooms.options import DEFAULT_VALUES, rules_line, table_options
from ..site.limits import hit, in_minutes
from ..site.refusal import Refusal
from ..site.services import service

NOT_HERE = "There is no circle at this address."
ONLY_OWNER = "Only the circle's owner may do that."


# -- the application's circles -------------------------------------------------------------------
def circles() -> CircleService:
    """This application's circles."""
    return current_app.extensions["spades.circles"]


def nights() -> NightService:
    """This application's game nights."""
    return current_app.extensions["spades.nights"]


def handle(person: str) -> str:
    """How the circle's pages name a person: never their id."""
    key = current_app.config["SECRET_KEY"].encode()
    return hmac.new(key, f"circle-person/{person}".encode(), hashlib.sha256).hexdigest()[:20]


def membership(slug: str, uid: str | None) -> tuple[CircleRow, CircleMemberRow] | None:
    """The circle and this person's membership while they are in it; None for anyone
    else (signed out, never in, left, removed) and for a circle that is not one."""
    row = circles().store.circle(slug) if len(slug) <= 40 else None
    member = circles().member(slug, uid) if row is not None else None
    if row is None or member is None or uid is None:
        return None
    return row, member


def owner_refusal(row: CircleRow, uid: str, message: str = ONLY_OWNER) -> Refusal | None:
    """None for the circle's owner; a 403 with ``message`` for any other member."""
    return None if row.owner == uid else Refusal(403, message)


def circle_name(slug: str) -> str:
    """The circle's name, "the circle" once there is none (a stop link outlives it)."""
    row = circles().store.circle(slug)
    return row.name if row is not None else "the circle"


def blocked_among(people: Sequence[str], uid: str | None) -> set[str]:
    """Those of ``people`` who blocked ``uid``."""
    store = service().store
    return {p for p in people if uid in store.blocked(p)}


# -- the circle's page ------------------------------------------------------------------------------
@dataclass(frozen=True)
class RecentSide:
    names: str
    score: int
    won: bool
    mine: bool


@dataclass(frozen=True)
class RecentLine:
    """A recent match in words: each side's names and score, the winner's first."""

    code: str
    number: int
    day: str
    sides: tuple[RecentSide, ...]


@dataclass(frozen=True)
class CirclePage:
    """What the circle's page shows a member. ``owner`` (the invite link, the season's
    close; a member's is the Leave button), ``removable`` (the members this member may
    remove), ``invite_first`` (the owner alone: the invite link first on the page)."""

    circle: CircleRow
    me: CircleMemberRow
    uid: str
    owner: bool
    members: tuple[CircleMemberRow, ...]
    names: Mapping[str, tuple[str, str]]
    state: Mapping[str, str]
    removable: frozenset[str]
    season: SeasonRow
    current: SeasonRow
    seasons: tuple[SeasonRow, ...]
    standings: Standings
    partnerships: tuple[Partnership, ...]
    best: Mapping[str, Partnership]
    against: tuple[tuple[str, int, int], ...]
    recent: tuple[RecentLine, ...]
    tables: tuple[CircleTableRow, ...]
    invite: str | None
    count: int
    invite_first: bool

    def context(self) -> dict[str, object]:
        """The page's names for its template, each field by its name."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def day(ts: float | None) -> str:
    """A date as the page shows it ("7 Dec 2026", UTC)."""
    if ts is None:
        return ""
    return datetime.fromtimestamp(ts, UTC).strftime("%-d %b %Y")


def named(members: Sequence[CircleMemberRow], played: Mapping[str, str] | None = None) -> dict[str, tuple[str, str]]:
    """Each member's (name, emoji) as the circle's pages show them: the name they chose,
    else the one they last sat at a table with, else the one they played the circle's
    matches under (``played``); "Someone" only when none is known."""
    names: dict[str, tuple[str, str]] = {}
    for m in members:
        name, emoji = (m.name, m.emoji) if m.name else service().known_player(m.person)
        names[m.person] = (name or (played or {}).get(m.person) or "Someone", emoji or m.emoji)
    for person, name in (played or {}).items():
        names.setdefault(person, (name or "Someone", ""))
    return names


def _recent_line(r: CircleResultRow, uid: str) -> RecentLine:
    sides: list[RecentSide] = []
    for t, side in enumerate(r.sides):
        names = " & ".join(r.seats[s][2] or "Someone" for s in side)
        sides.append(RecentSide(names=names, score=r.scores[t] if t < len(r.scores) else 0, won=r.winner == t,
                                mine=any(r.seats[s][1] == uid for s in side)))
    sides.sort(key=lambda x: (not x.won, -x.score))
    return RecentLine(code=r.table_code, number=r.number, day=day(r.finished), sides=tuple(sides))


def circle_page(row: CircleRow, me: CircleMemberRow, uid: str, asked_season: str,
                invite_url: Callable[[str], str]) -> CirclePage | Refusal:
    """The circle's page for member ``uid``: this season's standings, or those of season
    ``asked_season`` (404 for a season the circle never had). ``invite_url``: the whole
    invite link of a token (the owner's alone)."""
    svc = circles()
    slug = row.slug
    current = svc.current_season(slug)
    seasons = svc.seasons(slug)
    shown = current
    if asked_season:
        asked = next((s for s in seasons if str(s.number) == asked_season), None)
        if asked is None:
            return Refusal(404, "This circle has no such season.")
        shown = asked
    standings = svc.standings(slug, shown.number)
    members = svc.members(slug)
    names = named(members, {s.person: s.name for s in standings.rows})
    count = sum(m.state == "in" for m in members)
    owner = row.owner == uid
    if svc.news is not None:  # a week of boards opened or closed since: the channel told once each
        svc.news.weeks_seen(slug)
    return CirclePage(
        circle=row, me=me, uid=uid, owner=owner, members=tuple(members), names=names,
        state={m.person: m.state for m in members},
        removable=frozenset(m.person for m in members if owner and m.state == "in" and m.role != "owner"),
        season=shown, current=current, seasons=tuple(seasons), standings=standings,
        partnerships=tuple(standings.partnerships[:10]), best=standings.best_partner,
        against=tuple(sorted(standings.against(uid), key=lambda x: names.get(x[0], ("",))[0].lower())),
        recent=tuple(_recent_line(r, uid) for r in svc.recent(slug, 10)), tables=tuple(svc.open_tables(slug)),
        invite=invite_url(svc.invite_token(slug)) if owner else None,
        count=count, invite_first=owner and count == 1)


# -- the owner's controls and the circle's table ----------------------------------------------------
CIRCLE_INVITES_PER_PERSON = "10 per hour"  # invite links renewed and tables started, per person
MIN_PEOPLE = 2  # a table for the circle is a room (``TableService.create_room``): 2 people at least
PEOPLE = tuple(str(n) for n in range(MIN_PEOPLE, MAX_HUMANS + 1))  # the form's choices
TABLE_DEFAULTS = {"humans": str(MAX_HUMANS), **DEFAULT_VALUES}


def invitations_counted(uid: str) -> Refusal | None:
    """Count one invitation round (a renewed link, a table for the circle): a 429 past
    ``CIRCLE_INVITES_PER_PERSON``, else None."""
    limit = current_app.config.get("CIRCLE_INVITES_PER_PERSON", CIRCLE_INVITES_PER_PERSON)
    wait = hit(limit, uid, "circle-invites")
    if wait is None:
        return None
    return Refusal(429, f"You have sent the most circle invitations one person may in an hour. "
                        f"Try again in {in_minutes(wait)}.")


def renew_invite(row: CircleRow, uid: str) -> Refusal | None:
    """A new invite link by the owner (403 to other members, 429 past the limit)."""
    refused = owner_refusal(row, uid, "Only the circle's owner may renew its invite link.")
    if refused is not None:
        return refused
    limited = invitations_counted(uid)
    if limited is not None:
        return limited
    circles().renew_invite(row.slug, uid)
    return None


def remove_member(row: CircleRow, uid: str, person_handle: str) -> str | Refusal:
    """The owner removes the member named by ``person_handle``: the sentence that says so
    (403 to other members, 400 for a handle of nobody in the circle now)."""
    refused = owner_refusal(row, uid, "Only the circle's owner may remove a member.")
    if refused is not None:
        return refused
    by_handle = {handle(m.person): m for m in circles().members(row.slug) if m.state == "in"}
    member = by_handle.get(person_handle)
    if member is None:
        return Refusal(400, "That person is not in the circle any more. Reload the page.")
    try:
        circles().remove(row.slug, uid, member.person)
    except CircleError as e:
        return Refusal(e.status, str(e) or NOT_HERE)
    return f"You removed {member.name or 'them'} from the circle. Their results stay in the standings."


def next_season(row: CircleRow, uid: str) -> str | Refusal:
    """The owner closes the season and starts the next: the sentence that says so."""
    refused = owner_refusal(row, uid, "Only the circle's owner may close the season.")
    if refused is not None:
        return refused
    season = circles().next_season(row.slug, uid)
    return f"Season {season.number - 1} is closed; season {season.number} starts now."


@dataclass(frozen=True)
class JoinPage:
    """The invite link's page: ``member`` (already in: to the circle's page)."""

    circle: CircleRow
    member: bool
    members: tuple[CircleMemberRow, ...]
    names: Mapping[str, tuple[str, str]]


def join_page(row: CircleRow, uid: str | None) -> JoinPage:
    """What the invite link's page shows this person."""
    if uid is not None and circles().member(row.slug, uid) is not None:
        return JoinPage(row, True, (), {})
    members = tuple(m for m in circles().members(row.slug) if m.state == "in")
    return JoinPage(row, False, members, named(members))


@dataclass(frozen=True)
class TableForm:
    """The form for a table of the circle: its values, ``alone`` (the member is the
    circle's only one)."""

    values: Mapping[str, object]
    alone: bool


def table_form(row: CircleRow, uid: str, default_emoji: str) -> TableForm:
    """The circle's table form filled for this member: as many people as the circle has,
    up to a full table (a room is for 2 at least)."""
    name, emoji = service().known_player(uid)
    count = sum(m.state == "in" for m in circles().members(row.slug))
    humans = str(max(MIN_PEOPLE, min(count, MAX_HUMANS)))
    return TableForm({**TABLE_DEFAULTS, "humans": humans, "name": name, "emoji": emoji or default_emoji},
                     alone=count == 1)


@dataclass(frozen=True)
class CircleTableStarted:
    """A table for the circle: its code, the name its starter sat with, the members
    invited and the words of their notice."""

    code: str
    name: str
    invited: tuple[str, ...]
    title: str
    body: str


def start_circle_table(row: CircleRow, uid: str, form: Mapping[str, str],
                       making: Callable[[], Refusal | None]) -> CircleTableStarted | Refusal:
    """A room for the circle with the options of ``form`` (``humans``, the table's options,
    ``name``, ``emoji``), every member invited: 400 for a form that is not one, 409 past the
    turn-based tables' limit, 429 past the limits on tables made (``making``, counted once
    the form passed) and on invitations. A refusal's sentence is the form's to show."""
    humans = form.get("humans", "")
    if humans not in PEOPLE:
        return Refusal(400, f"Choose how many people will play: {MIN_PEOPLE} to {MAX_HUMANS}.", form=True)
    chosen = table_options(form, people=int(humans))
    if isinstance(chosen, str):
        return Refusal(400, chosen, form=True)
    rules, level = chosen
    try:
        name, emoji = clean_name(form.get("name")), check_emoji(form.get("emoji"))
    except BadPlayer as e:
        return Refusal(400, str(e), form=True)
    if rules.tempo in TURN_BASED and service().at_turn_limit(uid):
        return Refusal(409, TOO_MANY_TURN_TABLES, form=True)
    limited = making()
    if limited is not None:
        return Refusal(limited.status, limited.message, limited.headers, form=True)
    limited = invitations_counted(uid)
    if limited is not None:
        return limited
    try:
        started = circles().start_table(row.slug, uid, name, emoji, rules, level, int(humans))
    except CircleError as e:
        return Refusal(e.status, str(e) or NOT_HERE)
    except AtLimit as e:  # the turn-based tables' limit, counted as the room is stored
        return Refusal(409, str(e), form=True)
    except Refused as e:
        return Refusal(400, str(e), form=True)
    if (told := circles().news) is not None:  # the circle's channel: queued only, never raising
        told.table_started(row.slug, started.code, name, rules_line(dataclasses.asdict(rules), level))
    return CircleTableStarted(started.code, name, tuple(started.invited), f"A table for {row.name}",
                              f"{name} started a table: join it.")
