"""Circles on the site (``/c``): a friend group's home (``spades.circles``,
``docs/circles.md``).

- ``GET /c`` (and ``GET /c/new``): the person's circles and the form to make one;
  ``POST /c`` (``name``): a new circle, 303 to ``/c/<slug>``. Only for the signed in
  (others are told to sign in, 403); at most ``PER_DAY`` a day and ``IN_ALL`` in all (429).
- ``GET /c/<slug>``: the circle's page (members only): its tables now playing or waiting,
  the next game night (``templates/circles/_nights.html``, its context from a function
  registered with ``page_part``), this season's standings (or
  an earlier one's, ``?season=N``), recent matches, partnerships; the owner sees the
  invite link as ``<a rel="invite">``, with a Copy button, and may renew it (first on
  the page while the owner is the circle's only member). A member who never chose a
  name is shown by the name they last sat at a table with ("Someone" only when none is
  known).
- ``GET /c/<slug>/join/<token>``: the invite link; ``POST`` the same address (the Join
  button) makes the signed-in person a member. A bad link answers 404, an expired or
  replaced one 410, each with its sentence.
- ``POST /c/<slug>/invite/renew`` (owner), ``/leave``, ``/remove`` (owner, ``person``: a
  member's handle), ``/season/next`` (owner), ``GET``/``POST /c/<slug>/table``: a table
  for the circle with every option of a new table (a room; every member invited: the
  Rejoin list's invitation, a push notice to each browser that allows them), for as many
  people as the circle has members by default (2 to 4).

Privacy: every circle address but a valid invite link answers 404 to anyone who is not a
member now (signed out, never in, left, removed), whatever the address names, so a
circle's existence does not leak. A person is named on these pages by a handle (an HMAC
of their id), never by their id. A member's blocks act as everywhere (their chat at
tables); the member list shows everyone.

Limits: invite links made (renewed) and tables started for circles count against
``CIRCLE_INVITES_PER_PERSON`` (config, "10 per hour" by default); a table for the circle
counts as a table for friends too (``spades.web.site.limits.making``).

Imports: Flask, ``spades.circles``, ``spades.rules_config``, ``spades.tables`` and the web
layer's identity, limits, options, push and services (no other blueprint).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, NoReturn

from flask import Blueprint, Flask, abort, current_app, flash, get_flashed_messages, redirect, render_template, request
from flask import session as flask_session
from werkzeug.exceptions import HTTPException

from ...circles import CircleError, CircleService
from ...circles.service import IN_ALL, NAME_MAX, PER_DAY
from ...circles.standings import figure
from ...rules_config import TURN_BASED
from ...storage import CircleMemberRow, CircleResultRow, CircleRow
from ...tables import EMOJIS, MAX_HUMANS, TOO_MANY_TURN_TABLES, AtLimit, BadPlayer, Refused, check_emoji, clean_name
from ..accounts.push import notify
from ..rooms.options import DEFAULT_VALUES, table_options
from ..site.identity import default_emoji
from ..site.limits import hit, in_minutes, making
from ..site.services import service

log = logging.getLogger(__name__)

bp = Blueprint("circles", __name__)

CIRCLE_INVITES_PER_PERSON = "10 per hour"  # invite links renewed and tables started, per person
NOT_HERE = "There is no circle at this address."
MIN_PEOPLE = 2  # a table for the circle is a room (``TableService.create_room``): 2 people at least
PEOPLE = tuple(str(n) for n in range(MIN_PEOPLE, MAX_HUMANS + 1))  # the form's choices
TABLE_DEFAULTS = {"humans": str(MAX_HUMANS), **DEFAULT_VALUES}


@bp.errorhandler(404)
def not_here(e: HTTPException):
    """A 404 of a circle's address says what it is about (the site's own 404 page speaks of
    table codes): the same sentence whether the circle exists or not."""
    body = render_template("errors/error.html", status=404, title="Nothing here", message=e.description or NOT_HERE)
    return body, 404


# what other parts of the site add to a circle's page (the game nights, the boards): each
# takes the circle's slug and the member's id and gives names for its templates' context
PageContext = Callable[[str, str], dict[str, Any]]
PAGE_PARTS: list[PageContext] = []


def page_part(fn: PageContext) -> PageContext:
    """Register ``fn`` to add to every circle page's context (``_nights.html`` reads
    ``nights`` from it, say). Call it from the part's ``init_app``; it runs only for members."""
    if fn not in PAGE_PARTS:
        PAGE_PARTS.append(fn)
    return fn


def circles() -> CircleService:
    """This application's circles."""
    return current_app.extensions["spades.circles"]


def handle(person: str) -> str:
    """How the circle's pages name a person: never their id."""
    key = current_app.config["SECRET_KEY"].encode()
    return hmac.new(key, f"circle-person/{person}".encode(), hashlib.sha256).hexdigest()[:20]


def _uid() -> str | None:
    return flask_session.get("uid") or None


def member_of(slug: str) -> tuple[CircleRow, CircleMemberRow, str]:
    """The circle and this person's membership, or 404 for anyone not in it now."""
    uid = _uid()
    row = circles().store.circle(slug) if len(slug) <= 40 else None
    member = circles().member(slug, uid) if row is not None else None
    if row is None or member is None or uid is None:
        abort(404, description=NOT_HERE)
    return row, member, uid


def _refuse(e: CircleError) -> NoReturn:
    """Abort with the refusal's status and sentence (someone not in the circle: 404)."""
    abort(e.status, description=str(e) or NOT_HERE)


def _invites_counted(uid: str) -> None:
    """Count one invitation round (a renewed link, a table for the circle): 429 past the limit."""
    limit = current_app.config.get("CIRCLE_INVITES_PER_PERSON", CIRCLE_INVITES_PER_PERSON)
    wait = hit(limit, uid, "circle-invites")
    if wait is not None:
        abort(429, description=f"You have sent the most circle invitations one person may in an hour. "
                               f"Try again in {in_minutes(wait)}.")


def invite_url(slug: str, token: str) -> str:
    """The invite link, whole (the page copies it from here)."""
    base = current_app.config.get("PUBLIC_URL") or request.host_url
    return base.rstrip("/") + f"/c/{slug}/join/{token}"


def _flashed() -> str | None:
    got: list[str] = get_flashed_messages()  # type: ignore[assignment]
    return got[-1] if got else None


# -- the person's circles and a new one ----------------------------------------------------
@bp.get("/c")
@bp.get("/c/new")
def mine():
    uid = _uid()
    listed = circles().circles_of(uid) if uid else []
    return render_template("circles/mine.html", signed_in=uid is not None, listed=listed, message=_flashed(),
                           name="", name_max=NAME_MAX, per_day=PER_DAY, in_all=IN_ALL)


@bp.post("/c")
def create():
    """A new circle for the signed-in person: 303 to its page."""
    uid = _uid()
    name = request.form.get("name", "")[:400]
    if uid is None:
        return render_template("circles/mine.html", signed_in=False, listed=[], name=name, name_max=NAME_MAX,
                               per_day=PER_DAY, in_all=IN_ALL,
                               message="Sign in to make a circle: a circle belongs to an account."), 403
    try:
        row = circles().create(uid, name)
    except CircleError as e:
        return render_template("circles/mine.html", signed_in=True, listed=circles().circles_of(uid), name=name,
                               name_max=NAME_MAX, per_day=PER_DAY, in_all=IN_ALL, message=str(e)), e.status
    return redirect(f"/c/{row.slug}", 303)


# -- the circle's page ----------------------------------------------------------------------
@bp.get("/c/<slug>")
def page(slug: str):
    row, me, uid = member_of(slug)
    svc = circles()
    current = svc.current_season(slug)
    seasons = svc.seasons(slug)
    shown = current
    asked = request.args.get("season", "")
    if asked:
        shown = next((s for s in seasons if str(s.number) == asked), None)  # type: ignore[assignment]
        if shown is None:
            abort(404, description="This circle has no such season.")
    standings = svc.standings(slug, shown.number)
    members = svc.members(slug)
    names = _named(members, {s.person: s.name for s in standings.rows})
    state = {m.person: m.state for m in members}
    count = sum(m.state == "in" for m in members)
    owner = row.owner == uid
    recent = svc.recent(slug, 10)
    tables = svc.open_tables(slug)
    parts: dict[str, Any] = {}
    for part in PAGE_PARTS:
        parts.update(part(slug, uid))
    return render_template(
        "circles/page.html", circle=row, me=me, owner=owner, members=members, names=names, state=state,
        handle=handle, season=shown, current=current, seasons=seasons, standings=standings,
        partnerships=standings.partnerships[:10], best=standings.best_partner,
        against=sorted(standings.against(uid), key=lambda x: names.get(x[0], ("",))[0].lower()),
        recent=[_recent_line(r, uid) for r in recent], tables=tables, uid=uid,
        invite=invite_url(slug, svc.invite_token(slug)) if owner else None, message=_flashed(), day=_day,
        count=count, invite_first=owner and count == 1, figure=figure, **parts)


def _named(members: Sequence[CircleMemberRow], played: dict[str, str] | None = None) -> dict[str, tuple[str, str]]:
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


def _day(ts: float | None) -> str:
    """A date as the page shows it ("7 Dec 2026", UTC)."""
    if ts is None:
        return ""
    return datetime.fromtimestamp(ts, UTC).strftime("%-d %b %Y")


def _recent_line(r: CircleResultRow, uid: str) -> dict:
    """A recent match in words: each side's names and score, the winner's first."""
    sides: list[dict] = []
    for t, side in enumerate(r.sides):
        names = " & ".join(r.seats[s][2] or "Someone" for s in side)
        sides.append({"names": names, "score": r.scores[t] if t < len(r.scores) else 0, "won": r.winner == t,
                      "mine": any(r.seats[s][1] == uid for s in side)})
    sides.sort(key=lambda x: (not x["won"], -x["score"]))
    return {"code": r.table_code, "number": r.number, "day": _day(r.finished), "sides": sides}


# -- the invite link -------------------------------------------------------------------------
@bp.post("/c/<slug>/invite/renew")
def renew(slug: str):
    row, me, uid = member_of(slug)
    if row.owner != uid:
        abort(403, description="Only the circle's owner may renew its invite link.")
    _invites_counted(uid)
    circles().renew_invite(slug, uid)
    flash("A new invite link is ready: the old one no longer works.")
    return redirect(f"/c/{slug}#invite", 303)


def _invited(slug: str, token: str) -> CircleRow:
    try:
        return circles().check_invite(slug, token[:400])
    except CircleError as e:
        return abort(e.status, description=str(e))


@bp.get("/c/<slug>/join/<token>")
def invited(slug: str, token: str):
    row = _invited(slug, token)
    uid = _uid()
    if uid is not None and circles().member(slug, uid) is not None:
        return redirect(f"/c/{slug}", 303)
    members = [m for m in circles().members(slug) if m.state == "in"]
    return render_template("circles/join.html", circle=row, signed_in=uid is not None, members=members,
                           names=_named(members), token=token), 200


@bp.post("/c/<slug>/join/<token>")
def join(slug: str, token: str):
    _invited(slug, token)
    uid = _uid()
    if uid is None:
        abort(403, description="Sign in first, then follow the invite link again to join the circle.")
    try:
        circles().join(slug, token[:400], uid)
    except CircleError as e:
        _refuse(e)
    return redirect(f"/c/{slug}", 303)


# -- members ---------------------------------------------------------------------------------
@bp.post("/c/<slug>/leave")
def leave(slug: str):
    _, _, uid = member_of(slug)
    try:
        circles().leave(slug, uid)
    except CircleError as e:
        _refuse(e)
    flash("You left the circle.")
    return redirect("/c", 303)


@bp.post("/c/<slug>/remove")
def remove(slug: str):
    row, _, uid = member_of(slug)
    if row.owner != uid:
        abort(403, description="Only the circle's owner may remove a member.")
    by_handle = {handle(m.person): m for m in circles().members(slug) if m.state == "in"}
    member = by_handle.get(request.form.get("person", ""))
    if member is None:
        abort(400, description="That person is not in the circle any more. Reload the page.")
    try:
        circles().remove(slug, uid, member.person)
    except CircleError as e:
        _refuse(e)
    flash(f"You removed {member.name or 'them'} from the circle. Their results stay in the standings.")
    return redirect(f"/c/{slug}#members", 303)


@bp.post("/c/<slug>/season/next")
def next_season(slug: str):
    row, _, uid = member_of(slug)
    if row.owner != uid:
        abort(403, description="Only the circle's owner may close the season.")
    season = circles().next_season(slug, uid)
    flash(f"Season {season.number - 1} is closed; season {season.number} starts now.")
    return redirect(f"/c/{slug}", 303)


# -- a table for the circle ------------------------------------------------------------------
def _table_form(row: CircleRow, values: dict, message: str | None = None, status: int = 200, alone: bool = False):
    return render_template("circles/table.html", circle=row, values=values, emojis=EMOJIS, message=message,
                           people=PEOPLE, alone=alone), status


@bp.get("/c/<slug>/table")
def table_form(slug: str):
    row, _, uid = member_of(slug)
    name, emoji = service().known_player(uid)
    # as many people as the circle has, up to a full table (a room is for 2 at least)
    count = sum(m.state == "in" for m in circles().members(slug))
    humans = str(max(MIN_PEOPLE, min(count, MAX_HUMANS)))
    values = {**TABLE_DEFAULTS, "humans": humans, "name": name, "emoji": emoji or default_emoji(EMOJIS)}
    return _table_form(row, values, alone=count == 1)


@bp.post("/c/<slug>/table")
def start_table(slug: str):
    """A room for the circle with the options chosen; every member is invited. 303 to the room."""
    row, _, uid = member_of(slug)
    form = request.form
    values = {**TABLE_DEFAULTS, **form.to_dict()}
    humans = form.get("humans", "")
    if humans not in PEOPLE:
        return _table_form(row, values, f"Choose how many people will play: {MIN_PEOPLE} to {MAX_HUMANS}.", 400)
    chosen = table_options(form, people=int(humans))
    if isinstance(chosen, str):
        return _table_form(row, values, chosen, 400)
    rules, level = chosen
    try:
        name, emoji = clean_name(form.get("name")), check_emoji(form.get("emoji"))
    except BadPlayer as e:
        return _table_form(row, values, str(e), 400)
    if rules.tempo in TURN_BASED and service().at_turn_limit(uid):
        return _table_form(row, values, TOO_MANY_TURN_TABLES, 409)
    refusal = making("friends", uid)
    if refusal:
        return _table_form(row, values, refusal.message, 429)[0], 429, refusal.headers
    _invites_counted(uid)
    try:
        started = circles().start_table(slug, uid, name, emoji, rules, level, int(humans))
    except CircleError as e:
        return _refuse(e)
    except AtLimit as e:  # the turn-based tables' limit, counted as the room is stored
        return _table_form(row, values, str(e), 409)
    except Refused as e:
        return _table_form(row, values, str(e), 400)
    flask_session["name"] = name
    tell(started.invited, started.code, f"A table for {row.name}", f"{name} started a table: join it.")
    return redirect(f"/g/{started.code}", 303)


def tell(people: Sequence[str], code: str, title: str, body: str) -> None:
    """A push notice of table ``code`` to each of these members' browsers that allow them
    (not to one who blocked the person asking), from a thread of its own (each push
    service may take seconds)."""
    if not people:
        return
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    blocked = {p for p in people if _uid() in app.extensions["spades.tables"].store.blocked(p)}

    def run() -> None:
        for person in people:
            if person in blocked:
                continue  # a member who blocked the starter is not called to their table
            try:
                notify(app, person, title, body, f"/g/{code}")
            except Exception:  # one browser must not stop the others
                log.exception("circle notice to %s failed", person)
    threading.Thread(target=run, name="circle-notices", daemon=True).start()


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


__all__ = ["PAGE_PARTS", "bp", "circles", "handle", "init_app", "invite_url", "member_of", "not_here", "page_part",
           "tell"]
