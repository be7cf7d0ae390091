"""Talk at the table, as pages show it: the chat box of the table page, each line as the
sockets get it, and what a person does about someone else's lines (mute, report), plus
the reports page for whoever runs the site.

Who hears a line and what its menu offers are decided in ``spades.web.table.chat``, which
the socket hub uses too. Each route reads the request, calls one of the chat's services
(``spades.web.table.talk_service``: who may do it, the rules, the store) and renders the
view model or the refusal it gets back.

The commands that say something (a message, a reaction, the host's settings and
silencing) are table commands (``spades.tables.commands.talk``), routed like every
other; mute and report belong to the person, not to the table, and are routed here.

Routes: ``GET /g/<CODE>/chat`` (the lines, for a page whose socket was away),
``POST /g/<CODE>/mute`` (``line``: a message's number; ``on``: ``off`` to
unmute), ``POST /g/<CODE>/report`` (``line``), ``GET /admin/reports`` (signed-in
accounts whose address is in the ``ADMIN_EMAILS`` setting).

Imports: Flask, and the web layer's codes, identity and the chat's services.
"""

from __future__ import annotations

from typing import NoReturn

from flask import Blueprint, Flask, Response, abort, flash, redirect, render_template, request

from ..rooms.codes import clean_code
from ..site.identity import csrf_token, player_id
from . import talk_service
from .talk_service import Refusal, talk_of

# what other modules take from here (talk_of: the table's page builds its chat box with it)
__all__ = ["bp", "chat_answer", "init_app", "talk_of"]

bp = Blueprint("talk", __name__)


def _answer(code: str, message: str | None, status: int = 200, focus: bool = False, deleted: tuple[int, ...] = ()):
    """The chat's form for htmx (the line itself comes over the socket), with the
    message; a 303 back to the table for a plain form, the message carried in the session."""
    if not request.headers.get("HX-Request"):
        if message:
            flash(message)
        return redirect(f"/g/{code}", 303)
    talk = talk_service.composer(code, player_id(), csrf_token(), message, focus)
    if isinstance(talk, Refusal):
        _refused(talk)
    body = render_template("table/_composer.html", talk=talk, oob=False, deleted=deleted)
    return Response(body, status=status, mimetype="text/html")


def _refused(refusal: Refusal) -> NoReturn:
    """An error page for ``refusal``."""
    abort(refusal.status, description=refusal.message)


def _said_no(code: str, refusal: Refusal):
    """``refusal`` in the chat's form when it is said there, else as an error page."""
    if not refusal.form:
        _refused(refusal)
    return _answer(code, refusal.message, refusal.status)


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
    log = talk_service.chat_log(clean_code(code), player_id())
    if isinstance(log, Refusal):
        _refused(log)
    return render_template("table/_chat_log.html", lines=log.lines, code=log.code, csrf=csrf_token(), oob=False)


@bp.post("/g/<code>/mute")
def mute(code: str):
    """Mute (or, with ``on=off``, unmute) the person who said line ``line``: their
    messages and bubbles are hidden from this person here and at every table, from this
    browser or, signed in, this account."""
    code = clean_code(code)
    muted = talk_service.mute(code, request.form, lambda: player_id(create=True))
    if isinstance(muted, Refusal):
        return _said_no(code, muted)
    return _answer(code, muted.message, deleted=muted.deleted)


@bp.post("/g/<code>/report")
def report(code: str):
    """Report line ``line`` for whoever runs the site: kept with the 20 lines before it,
    the table's code and both people."""
    code = clean_code(code)
    reported = talk_service.report(code, request.form, lambda: player_id(create=True))
    if isinstance(reported, Refusal):
        return _said_no(code, reported)
    return _answer(code, reported.message)


@bp.get("/admin/reports")
def reports():
    """The reported messages, newest first, each with what was said before it."""
    return render_template("talk/reports.html", reports=talk_service.reports().reports)


def init_app(app: Flask) -> None:
    app.config["ADMIN_EMAILS"] = tuple(e.lower() for e in app.config.get("ADMIN_EMAILS", ()))
    app.register_blueprint(bp)
