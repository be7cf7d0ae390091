"""Talk at the table, as pages show it: the chat box of the table page, each line as the
sockets get it, and what a person does about someone else's lines (mute, report), plus
the reports page for whoever runs the site.

Who hears a line (``hears``): a player's line reaches everyone at the table, players and
watchers; a watcher's line reaches the watchers, and the players only once the match is
over. Nobody gets the lines of a person they muted or blocked, at this table or any
other, except the host's notices; everyone gets their own. The same rule picks the
lines of the page (the table's last ``KEPT``) and the lines a socket is sent
(``spades.web.hub``); when the match ends, the players' sockets are sent their chat
again, the watchers' lines in it (and without them when the next match starts).

Each line of someone else's but a notice has a menu: mute and report, and on the host's
page the one of Silence and Let them talk again that applies to its speaker now
(``Heard``, decided here). The host's sockets are sent their chat again after each of
the host's notices, so the menus follow a silence at once.

The commands that say something (a message, a reaction, the host's settings and
silencing) are table commands (``spades.tables.commands.talk``), routed like every
other; mute and report belong to the person, not to the table, and are routed here.

Routes: ``GET /g/<CODE>/chat`` (the lines, for a page whose socket was away),
``POST /g/<CODE>/mute`` (``line``: a message's number; ``on``: ``off`` to
unmute), ``POST /g/<CODE>/report`` (``line``), ``GET /admin/reports`` (signed-in
accounts whose address is in the ``ADMIN_EMAILS`` setting).

Imports: Flask, ``spades.tables`` and ``spades.storage`` (row types), and the web layer's
identity and services.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from flask import Blueprint, Flask, Response, abort, flash, redirect, render_template, request
from markupsafe import Markup

from ..storage import ChatRow, Store
from ..tables import KEPT, NO_TABLE, REACTIONS, WATCHING_OFF, BadAction, Said, Snapshot, TableNotFound, line_number
from .identity import csrf_token, player_id
from .lobby import clean_code
from .services import admin_only, service

bp = Blueprint("talk", __name__)

MUTED_CHANNEL = "muted/"  # a page channel: the person after the slash muted or blocked someone


def hears(line: ChatRow, me: str | None, player: bool, open_: bool, muted: frozenset[str]) -> bool:
    """Whether this person gets ``line`` (see the module docstring); ``player``: they
    hold a seat at the table; ``open_``: the match is over."""
    if line.person == me:
        return True
    if line.kind != "notice" and line.person in muted:
        return False
    return line.room == "players" or not player or open_


@dataclass(frozen=True, slots=True)
class Heard:
    """A chat line as one person's page shows it: ``menu``: the line's menu (mute and
    report) is offered, for someone else's message or reaction; ``host``: what the host's
    page offers about its speaker, ``silence`` or ``unsilence`` (let them talk again),
    "" on anyone else's page."""

    line: ChatRow
    menu: bool = False
    host: str = ""


def heard(line: ChatRow, me: str | None, host: bool, silenced: Set[str]) -> Heard:
    """``line`` on the page of person ``me`` (``host``: the table's host, who has silenced
    ``silenced``)."""
    menu = line.kind != "notice" and line.person != me
    choice = ("unsilence" if line.person in silenced else "silence") if menu and host else ""
    return Heard(line, menu, choice)


def heard_lines(store: Store, code: str, me: str | None, player: bool, open_: bool, muted: frozenset[str],
                host: bool, upto: int | None = None) -> tuple[Heard, ...]:
    """The lines of table ``code``'s last ``KEPT`` this person hears (see ``hears``), as
    their page shows them; only up to line ``upto`` when it is given."""
    silenced = store.silenced(code) if host else set()
    return tuple(heard(x, me, host, silenced) for x in store.chat_lines(code, KEPT)
                 if (upto is None or x.number <= upto) and hears(x, me, player, open_, muted))


def render_log(store: Store, code: str, me: str | None, player: bool, open_: bool, muted: frozenset[str],
               host: bool, csrf: str, upto: int | None = None, watchers_only: bool = False) -> str:
    """This person's chat at table ``code`` again, out of band (for their socket); with
    ``watchers_only``, "" when none of the watchers' lines they may hear is there (the end
    of a match changes nothing of their chat then)."""
    if watchers_only and not any(hears(x, me, player, True, muted) != hears(x, me, player, False, muted)
                                 for x in store.chat_lines(code, KEPT)):
        return ""
    lines = heard_lines(store, code, me, player, open_, muted, host, upto)
    return render_template("table/_chat_log.html", lines=lines, code=code, csrf=csrf, oob=True)


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


def render_said(code: str, said: Said, own: bool, host: bool, csrf: str, log: str = "") -> str:
    """A line said at table ``code``, as the sockets of one kind of listener get it (their
    own line, someone else's on the host's page, or on anyone else's): added to the chat,
    a reaction's bubble at the sender's plate, and after the host's notice the chat's
    tools as the table's chat now allows. ``log``: the listener's whole chat, sent
    instead of the line (the host's, after their notice: ``render_log``).

    A line someone says comes from a person the host has not silenced (a silenced person
    is refused), so the host's page offers to silence them."""
    return render_template("table/_said.html", said=said, line=said.line, log=Markup(log), csrf=csrf, code=code,
                           heard=heard(said.line, said.line.person if own else None, host, frozenset()),
                           reactions=tuple(REACTIONS.items()))


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
