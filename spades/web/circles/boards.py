"""A circle's duplicate boards on the site (``spades.circles.boards``, ``docs/boards.md``,
"On the site"): the week of boards on the circle's page (``templates/circles/_boards.html``,
its context from ``part``, registered with ``spades.web.circles.home.page_part``), the owner's
week form, a member's table of the week, the reveal once the week closes, and the checks
the table's records make so that no board is seen before it is played.

Routes, each 404 to anyone not in the circle now (the circles' own check and sentence),
403 to a member for the owner's controls:

- ``GET /c/<slug>/boards``: back to the circle's page, at its boards;
- ``POST /c/<slug>/boards`` (owner): a new week: ``boards`` (4 to 12), ``preset`` (house
  rules with partners: ``standard``, ``jj``, ``jjdd``), ``start`` (``now`` or ``later``,
  then ``starts_at``, ``YYYY-MM-DDTHH:MM`` in UTC), ``days`` (1 to 31, 7 by default). One
  week at a time: a week open or to come refuses another (409);
- ``GET /c/<slug>/boards/<week>``: one week's page (earlier weeks, their reveals);
- ``POST /c/<slug>/boards/<week>/close`` (owner): close it now;
- ``POST /c/<slug>/boards/<week>/table``: a table of the week for this member (``tempo``:
  any a table of friends may have), the member in seat 0, members who have not played the
  week chosen by handle as partner (``partner``, seat 2) and opponents (``left``, seat 1;
  ``right``, seat 3), each seated at once, and bots in the seats left empty; linked to the
  circle (its match counts in the season). A handle of nobody in the circle now, or one
  person chosen twice: 400. A seat someone left to a bot may be
  taken by another member with the table's join link (the page offers it), unless they
  played the week's boards elsewhere. A table with someone who sat at another table of
  the week is refused (409, naming them);
- ``GET /c/<slug>/boards/<week>/reveal.json``: the week's secret and boards as a record
  that ``python -m spades verify`` checks, once the week is closed (403 before).

Secrecy: ``join_refusal(code, person)`` says why a person may not take a seat at a table
of boards (``spades.web.rooms.lobby``'s join); whether a table's records are shut while its week
is open is ``spades.web.matches.secrecy``'s.

Imports: Flask and the web layer's circles (their home, services and board views) and limits.
"""

from __future__ import annotations

import json
from typing import NoReturn

from flask import Blueprint, Flask, Response, abort, flash, redirect, render_template, request

from ..site.limits import making
from . import board_views
from . import home as circles_web
from .board_views import (
    NOT_REVEALED,
    SEATS_CHOSEN,
    BoardsView,
    TableAsked,
    WeekAsked,
    boards_view,
    close_early,
    join_refusal,
    revealed,
    start_week_table,
    when,
)
from .home import member_of
from .services import Refusal, circles

bp = Blueprint("boards", __name__)
bp.register_error_handler(404, circles_web.not_here)


def part(slug: str, uid: str) -> dict[str, BoardsView]:
    """The circle page's boards: ``boards`` (``board_views.boards_view``)."""
    return {"boards": boards_view(circles().circle(slug), uid)}


def _refuse(r: Refusal) -> NoReturn:
    abort(r.status, description=r.message)


@bp.get("/c/<slug>/boards")
def boards_home(slug: str):
    member_of(slug)
    return redirect(f"/c/{slug}#boards", 303)


@bp.post("/c/<slug>/boards")
def make_week(slug: str):
    """The owner's new week of boards: 303 back to the circle's page."""
    row, _, uid = member_of(slug)
    form = request.form
    made = board_views.make_week(row, uid, WeekAsked(boards=form.get("boards", "")[:4], days=form.get("days", "")[:4],
                                         preset=form.get("preset", "standard"), start=form.get("start", ""),
                                         starts_at=form.get("starts_at", "")[:20]))
    if isinstance(made, Refusal):
        _refuse(made)
    flash(made.said)
    return redirect(f"/c/{slug}#boards", 303)


@bp.get("/c/<slug>/boards/<week_id>")
def week_page(slug: str, week_id: str):
    row, _, uid = member_of(slug)
    shown = board_views.week_page(row, week_id, uid)
    if isinstance(shown, Refusal):
        _refuse(shown)
    return render_template("circles/boards_week.html", circle=row, boards=shown)


@bp.post("/c/<slug>/boards/<week_id>/close")
def close(slug: str, week_id: str):
    row, _, uid = member_of(slug)
    closed = close_early(row, uid, week_id)
    if isinstance(closed, Refusal):
        _refuse(closed)
    if closed:
        flash("The week of boards is closed: its boards, records and secret are open to the circle.")
    return redirect(f"/c/{slug}#boards", 303)


@bp.post("/c/<slug>/boards/<week_id>/table")
def start_table(slug: str, week_id: str):
    """A table of the week for this member (seat 0), with the members chosen as partner
    (``partner``, seat 2) and opponents (``left``, seat 1; ``right``, seat 3), each by
    handle, and bots in the seats left empty: 303 to it. The members chosen are seated at
    once (the table is on their Rejoin list) and told by a push notice."""
    row, me, uid = member_of(slug)
    asked = TableAsked(tempo=request.form.get("tempo", "normal")[:20],
                       chosen={f: request.form.get(f, "")[:40] for f in SEATS_CHOSEN.values()})

    def limit() -> Refusal | None:
        refusal = making("friends", uid)
        return Refusal(429, refusal.message, refusal.headers) if refusal else None

    started = start_week_table(row, me, uid, week_id, asked, limit)
    if isinstance(started, Refusal):
        if started.headers:  # the site's limit on tables made: its sentence alone, as the other makers say it
            return started.message, started.status, dict(started.headers)
        _refuse(started)
    circles_web.tell(list(started.invited), started.code, started.title, started.body)
    return redirect(f"/g/{started.code}", 303)


@bp.get("/c/<slug>/boards/<week_id>/reveal.json")
def reveal_json(slug: str, week_id: str):
    member_of(slug)
    got = revealed(slug, week_id)
    if isinstance(got, Refusal):
        _refuse(got)
    week, shown = got
    return Response(json.dumps(shown, indent=1), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="boards-{slug}-{week.id}.json"'})


def init_app(app: Flask) -> None:
    circles_web.page_part(part)
    app.register_blueprint(bp)


__all__ = ["NOT_REVEALED", "bp", "init_app", "join_refusal", "part", "when"]
