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

Imports: Flask, ``spades.circles``, ``spades.rules_config``, ``spades.tables`` and the web
layer's circles, limits, options and services.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Flask, Response, abort, flash, redirect, render_template, request

from ...circles import CircleError
from ...circles.boards import (
    MAX_BOARDS,
    MIN_BOARDS,
    WEEK_BUSY,
    BoardsError,
    WeekBusy,
    boards_of,
    close_week,
    new_week,
    reveal,
    seat_refusal,
    start_board_table,
    week_standings,
    week_state,
)
from ...duplicate import DIRECTIONS, Standings
from ...rules_config import FRIENDS_TEMPOS, PRESETS, TURN_BASED, preset_rules
from ...storage import BoardTable, BoardWeekRow, SeatRow
from ...tables import BOT_EMOJI, PRACTICE_BOTS, TOO_MANY_TURN_TABLES, BadAction, Refused
from ..rooms.options import OPTION
from ..site.limits import making
from ..site.services import service
from . import home as circles_web
from .home import circles, member_of

bp = Blueprint("boards", __name__)
bp.register_error_handler(404, circles_web.not_here)

NOT_REVEALED = "The week's boards and their secret are revealed when the week closes."
PRESETS_WITH_PARTNERS = tuple(k for k in ("standard", "jj", "jjdd") if k in PRESETS)
DAYS = 7  # a week's length unless the owner says otherwise
EARLIER = 12  # earlier weeks listed on the page


# -- seats, for the rest of the site ---------------------------------------------------------------
def join_refusal(code: str, person: str | None) -> str | None:
    """Why ``person`` may not take a seat at table ``code``, or None: a table of boards
    seats the members of its circle now (anyone else, a browser signed out included, is
    refused), and each of them once a week (``seat_refusal``)."""
    store = service().store
    code = code.upper()
    week_id = store.board_week_of_table(code)
    week = store.board_week(week_id) if week_id is not None else None
    if week is None:
        return None
    members = {m.person for m in circles().members(week.circle) if m.state == "in"}
    return seat_refusal(store, code, person or "", members)


# -- what the page shows -------------------------------------------------------------------------
def when(ts: float) -> str:
    """A moment as the boards' block says it: ``Mon 14 Dec 2026, 20:00 UTC``."""
    return datetime.fromtimestamp(ts, UTC).strftime("%a %-d %b %Y, %H:%M UTC")


def _tempo_words() -> dict[str, str]:
    """Each pace a table of friends may choose, as the options form says it."""
    return {c.value: c.label for c in OPTION["tempo"].choices}


def _sides(table: BoardTable) -> list[str]:
    """The names in each direction's seats at a table (bots too), North-South first. A
    direction of bots only is named with the people it played against, so that the bots'
    teams of several tables are told apart: "Rex & Kit (bots, against Ann & Bea)"."""
    names = [" & ".join(s.name or "Someone" for s in table.seats if s.seat % 2 == side) for side in (0, 1)]
    people = [any(s.player_id or s.left_player_id for s in table.seats if s.seat % 2 == side) for side in (0, 1)]
    return [names[side] if people[side] or not people[1 - side] else f"{names[side]} (bots, against {names[1 - side]})"
            for side in (0, 1)]


def _sat_at(table: BoardTable, person: str) -> bool:
    return any(person in (s.player_id, s.left_player_id) for s in table.seats)


def shown_week(slug: str) -> BoardWeekRow | None:
    """The week the circle's page shows: the one open now, else the next to start, else
    the latest closed."""
    store, now = service().store, service().now()
    weeks = store.board_weeks(slug)
    states = [(w, week_state(w, now)) for w in weeks]
    for state in ("open", "upcoming"):
        found = [w for w, s in states if s == state]
        if found:
            return min(found, key=lambda w: w.starts)
    return weeks[0] if weeks else None


def week_context(slug: str, week: BoardWeekRow, uid: str) -> dict[str, Any]:
    """Everything the block shows of one week to member ``uid``. A board's points at every
    table show only to someone who played it, or to everyone once the week is closed."""
    store, now = service().store, service().now()
    state = week_state(week, now)
    tables = store.board_tables(week.id)
    standings: Standings | None = week_standings(store, week.id)
    assert standings is not None
    words = _tempo_words()
    mine = next((t.code for t in tables if _sat_at(t, uid)), None)
    sat = set(store.board_week_players(week.id)) if state == "open" else set()
    closed = state == "closed"
    played = standings.played.get(uid, frozenset())
    listed = []
    for t in tables:
        tempo = t.rules.get("tempo", "normal")
        done = len(standings.scores.get(t.code, {}))
        free = any(s.player_id is None and s.left_player_id for s in t.seats)  # a seat someone left
        listed.append({
            "code": t.code, "sides": _sides(t), "done": min(done, week.boards), "finished": t.finished,
            "turn_based": tempo in TURN_BASED, "tempo": words.get(tempo, tempo), "mine": t.code == mine,
            "joinable": state == "open" and mine is None and uid not in sat and free and not t.finished,
        })
    labels = {t.code: _sides(t) for t in tables}
    by_board = []
    for b in boards_of(week):
        rows = [{"table": code, "ns": labels.get(code, ["", ""])[0], "ew": labels.get(code, ["", ""])[1],
                 "points": scores[b.number], "mp": standings.points[code][b.number], "mine": code == mine}
                for code, scores in standings.scores.items() if b.number in scores]
        shown = closed or b.number in played
        by_board.append({"number": b.number, "dealer": DIRECTIONS[b.dealer % 2], "seat": b.dealer,
                         "commitment": b.commitment, "played": len(rows), "shown": shown,
                         "rows": rows if shown else [], "top": 2 * max(len(rows) - 1, 0)})
    return {
        "id": week.id, "slug": slug, "state": state, "boards": by_board, "count": week.boards,
        "starts": when(week.starts), "ends": when(week.closed if week.closed is not None else week.ends),
        "early": week.closed is not None and week.closed < week.ends,
        "rules": PRESETS.get(_preset_of(week.rules), ("Standard", {}))[0],
        "tables": listed, "mine": mine,
        "teams": [{"names": labels.get(t.table, ["", ""])[t.side], "direction": ("N-S", "E-W")[t.side],
                   "boards": t.boards, "matchpoints": t.matchpoints, "top": t.top, "percent": t.percent}
                  for t in standings.teams if t.boards],
        "people": list(standings.people), "closed": closed,
        "may_start": state == "open" and mine is None and uid not in sat,
        "played_elsewhere": state == "open" and mine is None and uid in sat,
        "choices": _choices(slug, uid, sat) if state == "open" and mine is None and uid not in sat else [],
        "reveal": f"/c/{slug}/boards/{week.id}/reveal.json" if closed else None,
    }


def _choices(slug: str, uid: str, sat: set[str]) -> list[tuple[str, str]]:
    """The members this member may seat at their table of the week, as (handle, name):
    those in the circle now who have not played the week's boards, by name."""
    members = [m for m in circles().members(slug) if m.state == "in" and m.person != uid and m.person not in sat]
    return sorted(((circles_web.handle(m.person), m.name or "Someone") for m in members), key=lambda c: c[1].lower())


def _preset_of(rules: dict) -> str:
    """The partnership preset a week's rules are (``standard`` when no other matches)."""
    for name in ("jjdd", "jj"):
        if name in PRESETS and all(rules.get(k) == v for k, v in PRESETS[name][1].items()):
            return name
    return "standard"


def _form_defaults() -> dict[str, Any]:
    return {"boards": 8, "preset": "standard", "days": DAYS, "min": MIN_BOARDS, "max": MAX_BOARDS,
            "presets": [(k, PRESETS[k][0]) for k in PRESETS_WITH_PARTNERS],
            "starts_at": datetime.fromtimestamp(service().now() + 3600, UTC).strftime("%Y-%m-%dT%H:00")}


def part(slug: str, uid: str) -> dict[str, Any]:
    """The circle page's boards: ``boards``, the week shown (or None), the earlier weeks,
    the owner's week form and the paces a table of the week may have."""
    store, now = service().store, service().now()
    owner = circles().circle(slug).owner == uid
    week = shown_week(slug)
    earlier = [{"id": w.id, "starts": when(w.starts), "count": w.boards}
               for w in store.board_weeks(slug) if week_state(w, now) == "closed" and (week is None or w.id != week.id)]
    busy = week is not None and week_state(week, now) != "closed"
    return {"boards": {
        "slug": slug, "owner": owner, "week": week_context(slug, week, uid) if week is not None else None,
        "earlier": earlier[:EARLIER], "form": _form_defaults() if owner and not busy else None,
        "tempos": [(v, _tempo_words().get(v, v)) for v in FRIENDS_TEMPOS], "standalone": False,
    }}


# -- routes ----------------------------------------------------------------------------------------
def _owner(slug: str) -> str:
    row, _, uid = member_of(slug)
    if row.owner != uid:
        abort(403, description="Only the circle's owner may do that.")
    return uid


def _week(slug: str, week_id: str) -> BoardWeekRow:
    """The circle's week ``week_id``; a 404 for any other (the person is a member already)."""
    week = service().store.board_week(week_id[:40])
    if week is None or week.circle != slug:
        abort(404, description="This circle has no such week of boards.")
    return week


def _whole(text: str, low: int, high: int, what: str) -> int:
    if not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:
        abort(400, description=f"Choose {what} from {low} to {high}.")
    return int(text)


@bp.get("/c/<slug>/boards")
def boards_home(slug: str):
    member_of(slug)
    return redirect(f"/c/{slug}#boards", 303)


@bp.post("/c/<slug>/boards")
def make_week(slug: str):
    """The owner's new week of boards: 303 back to the circle's page."""
    uid = _owner(slug)
    form = request.form
    store, now = service().store, service().now()
    if any(week_state(w, now) != "closed" for w in store.board_weeks(slug)):
        abort(409, description=WEEK_BUSY)
    count = _whole(form.get("boards", "")[:4], MIN_BOARDS, MAX_BOARDS, "the number of boards")
    days = _whole(form.get("days", str(DAYS))[:4] or str(DAYS), 1, 31, "the week's length in days")
    preset = form.get("preset", "standard")
    if preset not in PRESETS_WITH_PARTNERS:
        abort(400, description="Duplicate boards are played at partnership tables: choose house rules with "
                               "partners.")
    starts = now
    if form.get("start") == "later":
        text = form.get("starts_at", "")[:20]
        try:
            starts = datetime.strptime(text, "%Y-%m-%dT%H:%M").replace(tzinfo=UTC).timestamp()
        except ValueError:
            abort(400, description="Give the start as a day and a time (UTC), like 2026-12-14T20:00.")
    try:
        week = new_week(store, slug, uid, count, preset_rules(preset), starts, starts + days * 86400.0,
                        draw=service().new_seed, now=now)
    except WeekBusy as e:  # another request made one a moment ago
        abort(409, description=str(e))
    except BoardsError as e:
        abort(400, description=str(e))
    flash(f"A week of {week.boards} boards: its deals are committed"
          f"{' and it is open now' if week.starts <= now else ', it opens ' + when(week.starts)}.")
    return redirect(f"/c/{slug}#boards", 303)


@bp.get("/c/<slug>/boards/<week_id>")
def week_page(slug: str, week_id: str):
    row, _, uid = member_of(slug)
    week = _week(slug, week_id)
    shown = {"slug": slug, "owner": row.owner == uid, "week": week_context(slug, week, uid), "earlier": [],
             "form": None, "tempos": [(v, _tempo_words().get(v, v)) for v in FRIENDS_TEMPOS], "standalone": True}
    return render_template("circles/boards_week.html", circle=row, boards=shown)


@bp.post("/c/<slug>/boards/<week_id>/close")
def close(slug: str, week_id: str):
    _owner(slug)
    week = _week(slug, week_id)
    if close_week(service().store, week.id, service().now()):
        flash("The week of boards is closed: its boards, records and secret are open to the circle.")
    return redirect(f"/c/{slug}#boards", 303)


SEATS_CHOSEN = {2: "partner", 1: "left", 3: "right"}  # the form's field of each seat a member may fill


def _chosen(slug: str, uid: str) -> dict[int, tuple[str, str, str]]:
    """The members the form seats with this member, by seat: (person, name, emoji), each
    named by the circles' handle (never an id); an empty choice is a bot. A handle of no
    member now: 400; someone chosen twice (or the member themselves): 400; someone who
    blocked this member, or whom they blocked: 409."""
    members = {circles_web.handle(m.person): m for m in circles().members(slug) if m.state == "in"}
    chosen: dict[int, tuple[str, str, str]] = {}
    for seat, field in SEATS_CHOSEN.items():
        picked = request.form.get(field, "")[:40]
        if not picked:
            continue
        m = members.get(picked)
        if m is None:
            abort(400, description="That person is not in the circle now. Reload the page and choose again.")
        if m.person == uid or m.person in (p for p, _, _ in chosen.values()):
            abort(400, description=f"{m.name or 'Someone'} is chosen for two seats: each person takes one seat.")
        if service().store.blocks_between([uid, m.person]):  # as a blocked person cannot join the blocker's room
            abort(409, description=f"{m.name or 'Someone'} cannot be seated at your table. Choose someone else.")
        name, emoji = service().known_player(m.person)
        chosen[seat] = (m.person, name or m.name or "Someone", emoji or m.emoji)
    return chosen


@bp.post("/c/<slug>/boards/<week_id>/table")
def start_table(slug: str, week_id: str):
    """A table of the week for this member (seat 0), with the members chosen as partner
    (``partner``, seat 2) and opponents (``left``, seat 1; ``right``, seat 3), each by
    handle, and bots in the seats left empty: 303 to it. The members chosen are seated at
    once (the table is on their Rejoin list) and told by a push notice."""
    row, me, uid = member_of(slug)
    week = _week(slug, week_id)
    tempo = request.form.get("tempo", "normal")[:20]
    if tempo not in FRIENDS_TEMPOS:
        abort(400, description="Choose a pace for the table: live or turn-based.")
    chosen = _chosen(slug, uid)
    if tempo in TURN_BASED and service().at_turn_limit(uid):
        abort(409, description=TOO_MANY_TURN_TABLES)
    refusal = making("friends", uid)
    if refusal:
        return refusal.message, 429, refusal.headers
    name, emoji = service().known_player(uid)
    seats = [SeatRow(0, "human", uid, name or me.name or "Someone", emoji or me.emoji)] + [
        SeatRow(s, "human", *chosen[s]) if s in chosen else SeatRow(s, "bot", None, PRACTICE_BOTS[s], BOT_EMOJI)
        for s in (1, 2, 3)]
    season = circles().current_season(slug).number
    members = {m.person for m in circles().members(slug) if m.state == "in"}
    try:
        code = start_board_table(service(), week, seats, tempo=tempo, options={"circle": slug, "season": season},
                                 now=service().now(), members=members, by=uid)
    except BoardsError as e:
        abort(409, description=str(e))
    except (BadAction, Refused) as e:
        abort(400, description=str(e))
    try:
        circles().link_table(slug, code, uid)
    except CircleError as e:  # pragma: no cover - the member was checked a moment ago
        abort(e.status, description=str(e))
    circles_web.tell([person for person, _, _ in chosen.values()], code, f"Boards in {row.name}",
                     f"{seats[0].name} seated you at a table of this week's boards: play it.")
    return redirect(f"/g/{code}", 303)


@bp.get("/c/<slug>/boards/<week_id>/reveal.json")
def reveal_json(slug: str, week_id: str):
    member_of(slug)
    week = _week(slug, week_id)
    shown = reveal(week, service().now())
    if shown is None:
        abort(403, description=NOT_REVEALED)
    return Response(json.dumps(shown, indent=1), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="boards-{slug}-{week.id}.json"'})


def init_app(app: Flask) -> None:
    circles_web.page_part(part)
    app.register_blueprint(bp)


__all__ = ["bp", "init_app", "join_refusal", "part"]
