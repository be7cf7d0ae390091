"""Turn-based tables on the site: the your-turn list (the home page, the Games page and a
count in the top bar), the notices' worker (``spades.notices``) ticking in the
background, the link in every notice mail that turns them off without signing in, and
the profile's setting.

Routes: ``GET /turns`` (the your-turn list and the top bar's count, asked for again by
the pages that show them), ``GET /notices/off/<token>`` (turns a person's notice mails off; a forged or
garbled link is a 400 that says so), ``POST /me/notices`` (``mail``: ``on`` or ``off``).

Settings: ``NOTICE_TICK_S`` (60; 0: no background ticks, as in tests, which call
``tick``); the links use ``PUBLIC_URL`` (without it no notice mail is sent: a link could
not be made).

Imports: Flask, ``spades.notices``, ``spades.storage`` and the web layer's identity and
services.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from flask import Blueprint, Flask, abort, current_app, flash, redirect, render_template, request, session

from ..clocks import time_left
from ..notices import Notices, unsubscribed_person
from .identity import player_id
from .services import mailer, service

log = logging.getLogger(__name__)

bp = Blueprint("notices", __name__)


@dataclass(frozen=True, slots=True)
class YourTurn:
    """A turn-based table waiting on this person."""

    code: str
    left: str  # "5 hours", "no clock"
    between_hands: bool


def your_turns() -> list[YourTurn]:
    """For templates: the turn-based tables waiting on this person, the least time left first."""
    pid = player_id()
    if not pid:
        return []
    try:
        now = service().now()
        return [YourTurn(t.code, time_left(t.deadline, now), "hand-" in t.turn)
                for t in service().store.waiting_on(pid)]
    except Exception:  # the page must show even if this list cannot
        log.exception("the your-turn list failed")
        return []


@bp.get("/turns")
def turns():
    """The your-turn list again (the home and Games pages ask every ``TURN_LIST_POLL_S``), with
    the top bar's count."""
    return render_template("notices/_your_turn.html", turns=your_turns(), oob=True)


@bp.get("/notices/off/<token>")
def off(token: str):
    """The link in every notice mail: no more notice mails for its person (no sign-in needed)."""
    person = unsubscribed_person(current_app.config["SECRET_KEY"], token)
    if person is None:
        abort(400, description="This link is not valid: copy the whole link from the mail, or turn the mails off "
                               "on your profile.")
    service().store.set_mail_off(person, True)
    return render_template("notices/off.html")


@bp.post("/me/notices")
def mail_setting():
    """The profile's switch for the notice mails (``mail``: on or off)."""
    pid = player_id()
    choice = request.form.get("mail", "")
    if choice not in ("on", "off"):
        abort(400, description="Say whether you want the mails: on or off.")
    if pid is None or not session.get("uid"):
        abort(403, description="Sign in to get mails when it is your turn.")
    service().store.set_mail_off(pid, choice == "off")
    flash("Saved: " + ("you get a mail when it is your turn." if choice == "on" else "no more turn mails."))
    return redirect("/me#notices", 303)


def start(app: Flask) -> Notices:
    """The notices' worker for this app (ticking every ``NOTICE_TICK_S`` in a thread)."""
    tables = app.extensions["spades.tables"]
    cluster = tables.cluster
    with app.app_context():
        post = mailer()
    notices = Notices(tables.store, post, app.config["SECRET_KEY"], (app.config.get("PUBLIC_URL") or "").rstrip("/")
                      or None, push=app.extensions.get("spades.push"),
                      lock=cluster.shared_lock("notices") if cluster is not None else None, clock=tables.now)
    every = float(app.config.get("NOTICE_TICK_S", 60))
    if every > 0:
        stop = app.extensions.setdefault("spades.notices.stop", threading.Event())

        def run() -> None:
            while not stop.wait(every):
                try:
                    notices.tick()
                except Exception:  # the database busy, Redis away: the next tick tries again
                    log.exception("turn notices failed; trying again")
        threading.Thread(target=run, name="turn-notices", daemon=True).start()
    return notices


def init_app(app: Flask) -> None:
    app.extensions["spades.notices"] = start(app)
    app.jinja_env.globals.update(your_turns=your_turns)
    app.register_blueprint(bp)
