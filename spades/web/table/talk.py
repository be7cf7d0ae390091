"""Talk at the table, as pages show it: the chat box of the table page, each line as the
sockets get it, and what a person does about someone else's lines (mute, report), plus
the reports page for whoever runs the site.

Who hears a line and what its menu offers are decided in ``spades.web.table.chat``, which
the socket hub uses too.

The commands that say something (a message, a reaction, the host's settings and
silencing) are table commands (``spades.tables.commands.talk``), routed like every
other; mute and report belong to the person, not to the table, and are routed here.

Routes: ``GET /g/<CODE>/chat`` (the lines, for a page whose socket was away),
``POST /g/<CODE>/mute`` (``line``: a message's number; ``on``: ``off`` to
unmute), ``POST /g/<CODE>/report`` (``line``), ``GET /admin/reports`` (signed-in
accounts whose address is in the ``ADMIN_EMAILS`` setting).

Imports: Flask, ``spades.tables`` and ``spades.storage`` (row types), and the web layer's
chat lines, codes, identity and services.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, Flask, Response, abort, flash, redirect, render_template, request

from ...storage import ChatRow
from ...tables import NO_TABLE, WATCHING_OFF, BadAction, Snapshot, TableNotFound
from ...tables.commands.talk import KEPT, REACTIONS, line_number
from ..rooms.codes import clean_code
from ..site.identity import csrf_token, player_id
from ..site.services import admin_only, service
from .chat import MUTED_CHANNEL, Heard, heard_lines, hears

bp = Blueprint("talk", __name__)


@dataclass(frozen=True, slots=True)
class Talk:
    """The chat box of one person's table page."""

    code: str
    csrf: str
    mode: str  # on, reactions, off
    filter: bool
    host: bool
    watching: bool
    lines: tuple[Heard, ...]
    me: str | None
    shown: bool  # a table for people (a practice table has only bots to talk to)
    reactions: tuple[tuple[str, str], ...] = tuple(REACTIONS.items())
    message: str | None = None  # the answer to what this person just did (a refusal, "reported")
    focus: bool = False  # the text field takes the focus again (after a message was sent)


def talk_of(snap: Snapshot, pid: str | None, csrf: str, message: str | None = None, focus: bool = False,
            lines: bool = True) -> Talk:
    """This person's chat box at the table, with the lines they hear of the table's last
    ones (none when ``lines`` is false: the chat's form alone)."""
    said: tuple[Heard, ...] = ()
    host = snap.seat is not None and snap.host_seat == snap.seat
    if snap.shared and lines:
        store = service().store
        muted = store.muted(pid) if pid else frozenset()
        said = heard_lines(store, snap.code, pid, snap.seat is not None, bool(snap.view["finished"]), muted, host)
    return Talk(snap.code, csrf, snap.chat, snap.chat_filter, host, snap.seat is None, said, pid, snap.shared,
                message=message, focus=focus)


def _answer(code: str, message: str | None, status: int = 200, focus: bool = False, deleted: tuple[int, ...] = ()):
    """The chat's form for htmx (the line itself comes over the socket), with the
    message; a 303 back to the table for a plain form, the message carried in the session."""
    if not request.headers.get("HX-Request"):
        if message:
            flash(message)
        return redirect(f"/g/{code}", 303)
    try:
        snap = service().snapshot(code, player_id())
    except TableNotFound:
        abort(404, description=NO_TABLE)
    talk = talk_of(snap, player_id(), csrf_token(), message=message, focus=focus, lines=False)
    body = render_template("table/_composer.html", talk=talk, oob=False, deleted=deleted)
    return Response(body, status=status, mimetype="text/html")


def chat_answer(code: str, message: str | None, status: int, retry_after: int | None = None, focus: bool = False):
    """How a talk command is answered (``CHAT_ANSWER``); ``retry_after`` for a flood."""
    response = _answer(code, message, status, focus=focus)
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response


@bp.get("/g/<code>/chat")
def chat_log(code: str):
    """The chat's lines this person hears, as the page shows them: a page whose socket
    was away asks for them again when it is back."""
    code = _table(code)
    pid = player_id()
    try:
        snap = service().snapshot(code, pid)
    except TableNotFound:
        abort(404, description=NO_TABLE)
    if snap.seat is None and not snap.watchable:
        abort(403, description=WATCHING_OFF)
    talk = talk_of(snap, pid, csrf_token())
    return render_template("table/_chat_log.html", lines=talk.lines, code=talk.code, csrf=talk.csrf, oob=False)


def _line_of(code: str) -> ChatRow:
    """The line a form names (``line``) at table ``code``. Aborts 400/404."""
    try:
        number = line_number(request.form)
    except BadAction as e:
        abort(400, description=str(e))
    line = service().store.chat_line(code, number)
    if line is None:
        abort(404, description="That message is not in this table's chat.")
    return line


def _table(code: str) -> str:
    code = clean_code(code)
    try:
        service().status(code)
    except TableNotFound:
        abort(404, description=NO_TABLE)
    return code


@bp.post("/g/<code>/mute")
def mute(code: str):
    """Mute (or, with ``on=off``, unmute) the person who said line ``line``: their
    messages and bubbles are hidden from this person here and at every table, from this
    browser or, signed in, this account."""
    code = _table(code)
    line = _line_of(code)
    pid = player_id(create=True)
    if line.person == pid:
        return _answer(code, "You cannot mute yourself.", 400)
    if line.kind == "notice":
        return _answer(code, "The host's notices cannot be muted.", 400)
    on = request.form.get("on", "on") != "off"
    service().store.set_mute(pid, line.person, on)
    service().bus.publish_page(MUTED_CHANNEL + pid)  # this person's open sockets stop (or start) hearing them
    if not on:
        return _answer(code, f"You unmuted {line.name}. Reload to see what they said.")
    theirs = tuple(x.number for x in service().store.chat_lines(code, KEPT) if x.person == line.person)
    return _answer(code, f"You muted {line.name}: you will not see their messages or reactions, here or at other "
                         "tables.", deleted=theirs)


@bp.post("/g/<code>/report")
def report(code: str):
    """Report line ``line`` for whoever runs the site: kept with the 20 lines before it,
    the table's code and both people."""
    code = _table(code)
    line = _line_of(code)
    pid = player_id(create=True)
    if line.person == pid:
        return _answer(code, "You cannot report your own message.", 400)
    muted = service().store.muted(pid)
    snap = service().snapshot(code, pid)
    if not hears(line, pid, snap.seat is not None, bool(snap.view["finished"]), muted - {line.person}):
        abort(404, description="That message is not in this table's chat.")
    name = service().known_player(pid)[0] or "Someone"
    service().store.save_report(code, line, pid, name)
    return _answer(code, f"Thank you: your report of {line.name}'s message was sent to the people who run the site.")


@bp.get("/admin/reports")
def reports():
    """The reported messages, newest first, each with what was said before it."""
    admin_only("read the reports")
    return render_template("talk/reports.html", reports=service().store.reports())


def init_app(app: Flask) -> None:
    app.config["ADMIN_EMAILS"] = tuple(e.lower() for e in app.config.get("ADMIN_EMAILS", ()))
    app.register_blueprint(bp)
