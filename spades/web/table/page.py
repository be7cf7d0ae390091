"""The table page and its moves: ``/g/<CODE>``.

Commands arrive as POSTs to ``/g/<CODE>/<route>``, one route per command a person sends
from a page, made from the command's declaration (``spades.tables.registry``): its form
becomes the command, ``TableService.handle`` runs it, and the answer is the one the
declaration names. While a table page's socket is open, its moves (the commands answered
with the table) come over that socket instead, on the same path (``spades.web.table.live``);
these posts are what a page without script, or with its socket down, sends. At the
table: from htmx the table's fragments, out of band; from plain forms without JavaScript
a 303 back to the page, the refusal message carried in the session. Leave for good goes
home; the page's closing notice (sent by ``navigator.sendBeacon`` on ``pagehide``, which
cannot set headers: the CSRF token comes as a form field) gets a 204. In the room: a 303
back to it, or the room with the refusal.
Refusals, each with its class's status (``spades.tables.errors.status_of``, the same
over the socket): illegal move 422, stale version 409 (also a race lost to another move),
not your seat 403 (htmx), malformed input 400, unknown code 404, a move the database did
not take 503 (nothing changed; the table goes on). Each answer is the table as it is now.
Talk (``CHAT_ANSWER``) is answered with the chat's form and the refusal beside it: chat
off, reactions only or silenced 403, too fast 429 with ``Retry-After``, bad text 400. A
person may ask for ``HINTS_PER_PERSON`` hints (429 with ``Retry-After`` past it).

Imports: Flask, ``spades.tables`` and the core.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    get_flashed_messages,
    redirect,
    render_template,
    request,
    session,
)
from flask.typing import ResponseReturnValue

from ...rules import IllegalAction
from ...storage import CircleRow
from ...tables import (
    NO_TABLE,
    WATCHING_OFF,
    BadAction,
    Declared,
    NotSaved,
    NotSeated,
    Player,
    Refused,
    Snapshot,
    TableNotFound,
    routed,
)
from ...tables.errors import status_of
from ...tables.registry import BEACON_ANSWER, CHAT_ANSWER, HOME_ANSWER, ROOM, ROOM_ANSWER
from ..matches.secrecy import records_shut
from ..rooms.codes import normalize_code, unknown_codes_limit
from ..rooms.lobby import room_page, room_refusal
from ..site.identity import csrf_token, player_id
from ..site.limits import hit
from ..site.services import hub, service
from .render import render_fragments, table_context
from .talk import chat_answer, talk_of

bp = Blueprint("table", __name__)

HINTS_A_MINUTE = 10  # one person's hints, at all their tables together (a bid turn needs one)
HINTS_PER_PERSON = f"{HINTS_A_MINUTE} per minute"


def _snapshot(code: str) -> Snapshot:
    """This person's picture of the table; a 403 for someone without a seat when the
    host has turned watching off."""
    try:
        snap = service().snapshot(code, player_id())
    except TableNotFound:
        abort(404, description=NO_TABLE)
    if snap.seat is None and not snap.around.watchable:
        abort(403, description=WATCHING_OFF)
    return snap


def _hint_for(snap: Snapshot) -> object:
    """A hint asked for at this very version (kept in the session for the no-JS page)."""
    saved = session.get("hint")
    if saved and saved[0] == snap.code and saved[1] == snap.view.match.version:
        return saved[2]
    return None


@bp.get("/g/<code>")
@unknown_codes_limit
def page(code: str):
    """The table: a seat's view for its person, the public view for anyone else (watching);
    a table for a circle links back to it for the circle's members."""
    code = normalize_code(code)
    player_id(create=True)  # a visitor gets an identity too, so the live updates can reach them
    try:
        status = service().status(code)
    except TableNotFound:
        abort(404, description=NO_TABLE)
    if status == "waiting":
        return room_page(code)
    if status == "closed":
        abort(404, description="This table was closed before its game started. Start a new game.")
    snap = _snapshot(code)
    if snap.seat is not None:
        session["last_table"] = code
    messages: list[str] = get_flashed_messages()  # type: ignore[assignment]  # Flask's type covers with_categories
    ctx = table_context(snap, csrf_token(), message=messages[-1] if messages else None, hint=_hint_for(snap))
    return render_template("table/table.html", oob=False, marked=True, talk=talk_of(snap, player_id(), csrf_token()),
                           circle=_circle_of(code), **ctx)


def _circle_of(code: str) -> CircleRow | None:
    """The circle a table is for (a table for the circle, a game night's, a table of its
    boards), to link back to it: only for someone in the circle now, as a circle's address
    is shown to nobody else."""
    slug, uid = service().store.table_options(code).get("circle"), session.get("uid")
    if not slug or not uid:
        return None
    circles = current_app.extensions["spades.circles"]
    return circles.store.circle(slug) if circles.member(slug, uid) is not None else None


@bp.get("/g/<code>/watch")
def watch(code: str):
    """The link to send watchers: the same page (a person with a seat sees their seat)."""
    return page(code)


def _answer(code: str, message: str | None, status: int, hint: object = None, snap: Snapshot | None = None):
    """The current table for this player (``snap`` when the move just made gave it):
    fragments for htmx, a 303 back for plain forms."""
    if request.headers.get("HX-Request"):
        if snap is not None and message is None and hint is None:
            body = hub().fragments(snap, player_id(), csrf_token())  # what this seat's sockets got
        else:
            body = render_fragments(_snapshot(code), csrf_token(), message=message, hint=hint)
        return Response(body, status=status, mimetype="text/html")
    if message:
        flash(message)
    return redirect(f"/g/{code}", 303)


@bp.post("/g/<code>/hint")
@unknown_codes_limit
def hint(code: str):
    """The bid the Hard bot would make (the bid model's), with the words that explain it;
    409 when it is not this person's turn to bid; 429 with ``Retry-After`` past
    ``HINTS_PER_PERSON``."""
    code = normalize_code(code)
    pid = player_id()
    if pid is None:
        return _answer(code, "You have no seat at this table.", 403)
    wait = hit(HINTS_PER_PERSON, pid, "hint-person")
    if wait is not None:
        seconds = math.ceil(wait)
        answer = _answer(code, f"That is a lot of hints: at most {HINTS_A_MINUTE} a minute. "
                               f"Try again in {seconds} s.", 429)
        answer.headers["Retry-After"] = str(seconds)
        return answer
    try:
        value = service().hint(code, pid)
    except TableNotFound:
        abort(404, description=NO_TABLE)
    except NotSeated as e:
        return _answer(code, str(e), 403)
    if value is None:
        return _answer(code, "A hint is only given when it is your turn to bid.", 409)
    snap = _snapshot(code)
    session["hint"] = [code, snap.view.match.version, value]
    return _answer(code, None, 200, hint=value)


# -- commands posted from a page ---------------------------------------------------------
def _refused(code: str, e: Refused, room: bool):
    """A refused command, answered as its page shows refusals (see the module docstring)."""
    if isinstance(e, TableNotFound):
        abort(404, description=NO_TABLE)
    status = status_of(e)
    if room:
        return room_refusal(code, str(e), status)
    if isinstance(e, BadAction):
        abort(400, description=str(e))
    return _answer(code, str(e), status)


def _command_view(spec: Declared) -> Callable[[str], ResponseReturnValue]:
    """The route of a command a person posts from a page: the form becomes the command,
    the table's actor runs it, and the page is answered as the declaration says."""
    room = spec.phase == ROOM

    def view(code: str):
        code = normalize_code(code)
        pid = player_id()
        try:
            command = spec.from_form(request.form)
            if pid is None:
                raise NotSeated("You are not in this room." if room else "You have no seat at this table.")
            result = service().handle(code, Player(pid), command)
        except IllegalAction as e:
            return _answer(code, str(e), status_of(e))
        except Refused as e:
            if spec.answer == CHAT_ANSWER and not isinstance(e, TableNotFound):
                return chat_answer(code, str(e), e.chat_status, retry_after=getattr(e, "retry_after", None))
            if spec.answer == BEACON_ANSWER:
                if isinstance(e, TableNotFound):
                    abort(404, description=NO_TABLE)
                return Response(status=204)  # the connection's close holds the seat anyway
            if spec.answer == HOME_ANSWER and not room and isinstance(e, (NotSeated, NotSaved)):
                flash(str(e))
                return redirect(f"/g/{code}", 303)
            return _refused(code, e, room)
        if spec.answer == BEACON_ANSWER:
            return Response(status=204)
        if spec.answer == HOME_ANSWER:
            if session.get("last_table") == code:
                session.pop("last_table")  # the home page must not offer the way back
            return redirect("/", 303)
        if spec.answer == ROOM_ANSWER:
            return redirect(f"/g/{code}", 303)
        if spec.answer == CHAT_ANSWER:
            return chat_answer(code, None, 200, focus=spec.route == "chat")
        return _answer(code, None, 200, snap=result if isinstance(result, Snapshot) else None)

    view.__doc__ = spec.handler.__doc__
    return unknown_codes_limit(view) if spec.limited else view


for _spec in routed():
    bp.add_url_rule(f"/g/<code>/{_spec.route}", endpoint=_spec.name, view_func=_command_view(_spec),
                    methods=["POST"])


@bp.get("/g/<code>/record.json")
@unknown_codes_limit
def record(code: str):
    """The match record (RECORD.md): complete once over; while running, this seat's part."""
    code = normalize_code(code)
    try:
        rec = service().record(code, player_id())
        shut = records_shut(code)
        snap = service().snapshot(code, player_id()) if shut else None
    except TableNotFound:
        abort(404, description=NO_TABLE)
    if shut and snap is not None and (snap.seat is None or snap.view.match.finished):
        abort(403, description=shut)  # deals other tables still play: only a seat's own part until then
    return Response(json.dumps(rec, indent=1), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="spades-{code}.json"'})


@bp.get("/g/<code>/view.json")
@unknown_codes_limit
def view(code: str):
    """This player's seat view as JSON (BOTS.md), the same view the page is drawn from,
    with ``deal_commitment``: this hand's deal commitment (docs/fairness.md; null for a
    match from before fair deals), and between hands ``next_deal_commitment``."""
    code = normalize_code(code)
    snap = _snapshot(code)
    out = {**snap.view.to_json(), "deal_commitment": snap.around.deal_commitment or None}
    if snap.around.next_commitment:
        out["next_deal_commitment"] = snap.around.next_commitment
    return out
