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
- ``POST /c/<slug>/channel`` (``url``), ``/channel/kinds`` (``kinds``), ``/channel/remove``:
  the owner's Discord or Slack channel for the circle's news (``spades.web.circles.channel``).

Privacy: every circle address but a valid invite link answers 404 to anyone who is not a
member now (signed out, never in, left, removed), whatever the address names, so a
circle's existence does not leak. A person is named on these pages by a handle (an HMAC
of their id), never by their id. A member's blocks act as everywhere (their chat at
tables); the member list shows everyone.

Limits: invite links made (renewed) and tables started for circles count against
``CIRCLE_INVITES_PER_PERSON`` (config, "10 per hour" by default); a table for the circle
counts as a table for friends too (``spades.web.site.limits.making``).

Imports: Flask, ``spades.circles``, ``spades.rules_config``, ``spades.tables``, the circles'
services and the web layer's identity, limits, options, push and services (no other blueprint).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from flask import Blueprint, Flask, abort, current_app, flash, get_flashed_messages, redirect, render_template, request
from flask import session as flask_session
from werkzeug.exceptions import HTTPException

from ...circles import CircleError
from ...circles.service import IN_ALL, NAME_MAX, PER_DAY
from ...circles.standings import figure
from ...storage import CircleMemberRow, CircleRow
from ...tables import EMOJIS
from ..accounts.push import notify
from ..site.identity import default_emoji
from ..site.limits import making
from . import services
from .services import (
    NOT_HERE,
    PEOPLE,
    TABLE_DEFAULTS,
    Refusal,
    blocked_among,
    circle_page,
    circles,
    day,
    handle,
    membership,
)

log = logging.getLogger(__name__)

bp = Blueprint("circles", __name__)



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


def _uid() -> str | None:
    return flask_session.get("uid") or None


def member_of(slug: str) -> tuple[CircleRow, CircleMemberRow, str]:
    """The circle and this person's membership, or 404 for anyone not in it now."""
    uid = _uid()
    found = membership(slug, uid)
    if found is None or uid is None:
        abort(404, description=NOT_HERE)
    return found[0], found[1], uid


def _refuse(e: CircleError | Refusal) -> NoReturn:
    """Abort with the refusal's status and sentence (someone not in the circle: 404)."""
    if isinstance(e, Refusal):
        abort(e.status, description=e.message)
    abort(e.status, description=str(e) or NOT_HERE)


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
    shown = circle_page(row, me, uid, request.args.get("season", ""), lambda token: invite_url(slug, token))
    if isinstance(shown, Refusal):
        abort(shown.status, description=shown.message)
    parts: dict[str, Any] = {}
    for part in PAGE_PARTS:
        parts.update(part(slug, uid))
    return render_template("circles/page.html", **shown.context(), handle=handle, message=_flashed(), day=day,
                           figure=figure, **parts)


# -- the invite link -------------------------------------------------------------------------
@bp.post("/c/<slug>/invite/renew")
def renew(slug: str):
    row, _, uid = member_of(slug)
    refused = services.renew_invite(row, uid)
    if refused is not None:
        _refuse(refused)
    flash("A new invite link is ready: the old one no longer works.")
    return redirect(f"/c/{slug}#invite", 303)


def _invited(slug: str, token: str) -> CircleRow:
    try:
        return circles().check_invite(slug, token[:400])
    except CircleError as e:
        return abort(e.status, description=str(e))


@bp.get("/c/<slug>/join/<token>")
def invited(slug: str, token: str):
    uid = _uid()
    shown = services.join_page(_invited(slug, token), uid)
    if shown.member:
        return redirect(f"/c/{slug}", 303)
    return render_template("circles/join.html", circle=shown.circle, signed_in=uid is not None,
                           members=shown.members, names=shown.names, token=token), 200


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
    said = services.remove_member(row, uid, request.form.get("person", ""))
    if isinstance(said, Refusal):
        _refuse(said)
    flash(said)
    return redirect(f"/c/{slug}#members", 303)


@bp.post("/c/<slug>/season/next")
def next_season(slug: str):
    row, _, uid = member_of(slug)
    said = services.next_season(row, uid)
    if isinstance(said, Refusal):
        _refuse(said)
    flash(said)
    return redirect(f"/c/{slug}", 303)


# -- a table for the circle ------------------------------------------------------------------
def _table_form(row: CircleRow, values: dict, message: str | None = None, status: int = 200, alone: bool = False):
    return render_template("circles/table.html", circle=row, values=values, emojis=EMOJIS, message=message,
                           people=PEOPLE, alone=alone), status


@bp.get("/c/<slug>/table")
def table_form(slug: str):
    row, _, uid = member_of(slug)
    shown = services.table_form(row, uid, default_emoji(EMOJIS))
    return _table_form(row, dict(shown.values), alone=shown.alone)


@bp.post("/c/<slug>/table")
def start_table(slug: str):
    """A room for the circle with the options chosen; every member is invited. 303 to the room."""
    row, _, uid = member_of(slug)
    form = request.form
    values = {**TABLE_DEFAULTS, **form.to_dict()}

    def limit() -> Refusal | None:
        refusal = making("friends", uid)
        return Refusal(429, refusal.message, refusal.headers) if refusal else None

    started = services.start_circle_table(row, uid, form, limit)
    if isinstance(started, Refusal):
        if not started.form:
            _refuse(started)
        return _table_form(row, values, started.message, started.status)[0], started.status, dict(started.headers)
    flask_session["name"] = started.name
    tell(started.invited, started.code, started.title, started.body)
    return redirect(f"/g/{started.code}", 303)


def tell(people: Sequence[str], code: str, title: str, body: str) -> None:
    """A push notice of table ``code`` to each of these members' browsers that allow them
    (not to one who blocked the person asking), from a thread of its own (each push
    service may take seconds)."""
    if not people:
        return
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    blocked = blocked_among(people, _uid())

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
    from . import channel  # the circle's Discord or Slack channel: its routes and its part of the page

    channel.init_app(app)
    page_part(channel.part)
    app.register_blueprint(bp)


__all__ = ["PAGE_PARTS", "bp", "circles", "handle", "init_app", "invite_url", "member_of", "not_here", "page_part",
           "tell"]
