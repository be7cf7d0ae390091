"""The table page and its moves: ``/g/<CODE>``.

Moves arrive as POSTs, from htmx (answered with the table's fragments, out of band) or
from plain forms without JavaScript (answered with a 303 back to the page, the refusal
message carried in the session). Every move goes through ``TableService.act``.
Around the clocks: Take over (``/takeover``, autopilot ends), Leave for good
(``/leave-table``, a bot takes the seat) and the page's closing notice (``/closing``, sent
by ``navigator.sendBeacon`` on ``pagehide``, which cannot set headers: the CSRF token comes
as a form field).
Refusals: illegal move 422, stale version 409 (also a race lost to another move), not
your seat 403 (htmx), malformed input 400, unknown code 404, a move the database did not
take 503 (nothing changed; the table goes on). Each answer is the table as it is now.

Imports: Flask, ``spades.tables`` and the core.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from flask import Blueprint, Response, abort, flash, get_flashed_messages, redirect, \
    render_template, request, session

from ..rules import IllegalAction
from ..tables import (WATCHING_OFF, BadAction, Busy, NotHost, NotSaved, NotSeated, Player, Snapshot, Stale,
                      TableNotFound)
from .identity import csrf_token, player_id
from .limits import limiter
from .lobby import JOIN_LIMIT, JOIN_LIMIT_MESSAGE, room_page
from .render import render_fragments, table_context
from .services import hub, service

bp = Blueprint("table", __name__)

CODE_RE = re.compile(r"^[A-Za-z0-9]{4,8}$")
NO_TABLE = "There is no table with that code. Check it, or start a new game."


def normalize_code(code: str) -> str:
    """The table code in capitals; a 404 for anything that cannot be a code."""
    if not CODE_RE.match(code):
        abort(404, description=NO_TABLE)
    return code.upper()


def _snapshot(code: str) -> Snapshot:
    """This person's picture of the table; a 403 for someone without a seat when the
    host has turned watching off."""
    try:
        snap = service().snapshot(code, player_id())
    except TableNotFound:
        abort(404, description=NO_TABLE)
    if snap.seat is None and not snap.watchable:
        abort(403, description=WATCHING_OFF)
    return snap


def _hint_for(snap: Snapshot) -> object:
    """A hint asked for at this very version (kept in the session for the no-JS page)."""
    saved = session.get("hint")
    if saved and saved[0] == snap.code and saved[1] == snap.view["version"]:
        return saved[2]
    return None


# Unknown codes count against the same limit as join attempts: the table page must not be
# a way round it to enumerate codes (a page that exists costs nothing).
unknown_codes_limit = limiter.shared_limit(JOIN_LIMIT, scope="join", error_message=JOIN_LIMIT_MESSAGE,
                                           deduct_when=lambda response: response.status_code == 404)


@bp.get("/g/<code>")
@unknown_codes_limit
def page(code: str):
    """The table: a seat's view for its person, the public view for anyone else (watching)."""
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
    messages = get_flashed_messages()
    ctx = table_context(snap, csrf_token(), message=messages[-1] if messages else None, hint=_hint_for(snap))
    return render_template("table/table.html", oob=False, **ctx)


@bp.get("/g/<code>/watch")
def watch(code: str):
    """The link to send watchers: the same page (a person with a seat sees their seat)."""
    return page(code)


def _version() -> int:
    text = request.form.get("version", "")
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        abort(400, description="The move did not say which version of the table it was made on. Reload the page.")
    return int(text)


def _answer(code: str, message: str | None, status: int, hint: object = None, snap: Snapshot | None = None):
    """The current table for this player (``snap`` when the move just made gave it):
    fragments for htmx, a 303 back for plain forms."""
    if request.headers.get("HX-Request"):
        if snap is not None and message is None and hint is None:
            body = hub().fragments(snap, player_id(), csrf_token())  # what this seat's sockets got
        else:
            body = render_fragments(table_context(_snapshot(code), csrf_token(), message=message, hint=hint))
        return Response(body, status=status, mimetype="text/html")
    if message:
        flash(message)
    return redirect(f"/g/{code}", 303)


@bp.post("/g/<code>/act")
def act(code: str):
    """A bid, a card, look, blind nil, or Continue (``deal``)."""
    code = normalize_code(code)
    version = _version()
    action = request.form.get("action", "").strip()
    if action == "bid":
        action = request.form.get("bid", "").strip()
    if not action or len(action) > 12:
        abort(400, description="The move was empty or not understood.")
    return _perform(code, lambda pid: service().act(code, Player(pid), action, version))


def _perform(code: str, call: Callable[[str], object]):
    """Run a table-service call for this browser's player and answer with the table;
    a refusal becomes its short message with its status (see the module docstring)."""
    pid = player_id()
    if pid is None:
        return _answer(code, "You have no seat at this table.", 403)
    try:
        result = call(pid)
    except TableNotFound:
        abort(404, description=NO_TABLE)
    except BadAction as e:
        abort(400, description=str(e))
    except (NotSeated, NotHost) as e:
        return _answer(code, str(e), 403)
    except Stale as e:
        return _answer(code, str(e), 409)
    except IllegalAction as e:
        return _answer(code, str(e), 422)
    except NotSaved as e:
        return _answer(code, str(e), 503)
    return _answer(code, None, 200, snap=result if isinstance(result, Snapshot) else None)


@bp.post("/g/<code>/hint")
@unknown_codes_limit
def hint(code: str):
    """The bid the Hard bot would make (computed in a process of its own, one at a time
    per person)."""
    code = normalize_code(code)
    pid = player_id()
    if pid is None:
        return _answer(code, "You have no seat at this table.", 403)
    try:
        value = service().hint(code, pid)
    except TableNotFound:
        abort(404, description=NO_TABLE)
    except NotSeated as e:
        return _answer(code, str(e), 403)
    except Busy as e:
        return _answer(code, str(e), 429)
    if value is None:
        return _answer(code, "A hint is only given when it is your turn to bid.", 409)
    snap = _snapshot(code)
    session["hint"] = [code, snap.view["version"], value]
    return _answer(code, None, 200, hint=value)


@bp.post("/g/<code>/rematch")
def rematch(code: str):
    """The host starts a new match; ``partner`` (1-3, seats counted from the host) sits across."""
    code = normalize_code(code)
    version = _version()
    text = request.form.get("partner", "")
    if text not in ("", "1", "2", "3"):
        abort(400, description="Choose your partner for the rematch.")
    return _perform(code, lambda pid: service().rematch(code, Player(pid), version, int(text) if text else None))


@bp.post("/g/<code>/watching")
def watching(code: str):
    """The host lets people without a seat watch (``watch=on``) or stops them (``off``)."""
    code = normalize_code(code)
    choice = request.form.get("watch", "")
    if choice not in ("on", "off"):
        abort(400, description="Say whether people may watch: on or off.")
    return _perform(code, lambda pid: service().set_watching(code, pid, choice == "on"))


@bp.post("/g/<code>/dismiss")
def dismiss(code: str):
    """The player puts away the message addressed to them (their time ran out, say)."""
    code = normalize_code(code)
    return _perform(code, lambda pid: service().dismiss(code, pid))


@bp.post("/g/<code>/takeover")
def take_over(code: str):
    """The player takes their seat back from the bot that played it on autopilot."""
    code = normalize_code(code)
    return _perform(code, lambda pid: service().take_over(code, pid))


@bp.post("/g/<code>/leave-table")
def leave_table(code: str):
    """Leave the match for good (the page asked first): a bot plays the seat from now on."""
    code = normalize_code(code)
    pid = player_id()
    try:
        if pid is None:
            raise NotSeated("You have no seat at this table.")
        service().leave_table(code, pid)
    except TableNotFound:
        abort(404, description=NO_TABLE)
    except (NotSeated, NotSaved) as e:
        flash(str(e))
        return redirect(f"/g/{code}", 303)
    if session.get("last_table") == code:
        session.pop("last_table")
    return redirect("/", 303)


@bp.post("/g/<code>/closing")
@unknown_codes_limit
def closing(code: str):
    """The page is closing on purpose (``pagehide``): a shorter hold for the seat."""
    code = normalize_code(code)
    pid = player_id()
    if pid is not None:
        try:
            service().closing(code, pid)
        except TableNotFound:
            abort(404, description=NO_TABLE)
        except NotSaved:
            pass  # the connection's close holds the seat anyway
    return Response(status=204)


@bp.get("/g/<code>/record.json")
@unknown_codes_limit
def record(code: str):
    """The match record (RECORD.md): complete once over; while running, this seat's part."""
    code = normalize_code(code)
    try:
        rec = service().record(code, player_id())
    except TableNotFound:
        abort(404, description=NO_TABLE)
    return Response(json.dumps(rec, indent=1), mimetype="application/json",
                    headers={"Content-Disposition": f'attachment; filename="spades-{code}.json"'})


@bp.get("/g/<code>/view.json")
@unknown_codes_limit
def view(code: str):
    """This player's seat view as JSON (BOTS.md), the same view the page is drawn from."""
    code = normalize_code(code)
    return _snapshot(code).view
