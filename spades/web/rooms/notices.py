"""Turn-based tables on the site: the your-turn list (the home page, the Games page and a
count in the top bar), the notices' worker (``spades.notices``) ticking in the
background, the link in every notice mail that turns them off without signing in, and
the profile's setting.

Routes: ``GET /turns`` (the your-turn list and the top bar's count, asked for again by
the pages that show them), ``GET /notices/off/<token>`` (the link in every notice mail:
a page with one button, so that a mail scanner following links turns nothing off),
``POST /notices/off/<token>`` (the button, or a mail program's one-click from the
``List-Unsubscribe`` header, RFC 8058: turns the person's notice mails off, with no
session or CSRF token, the signed token being the proof; a forged or garbled link is a
400 that says so), ``POST /me/notices`` (``mail``: ``on`` or ``off``).

Settings: ``NOTICE_TICK_S`` (60; 0: no background ticks, as in tests, which call
``tick``); ``NOTICE_AWAY_S`` (120): how long a person's pages of a table waiting on them
must all have been closed before they are told; the links use ``PUBLIC_URL`` (without an
``http://`` or ``https://`` one no notice is sent, as a link could not be made, and the
start-up log says so once; ``scripts/serve`` sets it to the address it serves on).

Imports: Flask, ``spades.notices``, the accounts' services (the your-turn list, the mails'
switch) and the web layer's identity and services.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from urllib.parse import urlsplit

from flask import Blueprint, Flask, abort, current_app, flash, redirect, render_template, request, session

from ...notices import AWAY_S, Notices, unsubscribed_person
from ..accounts.services import Refusal, YourTurn, turn_mails, turn_mails_off
from ..accounts.services import your_turns as waiting_on
from ..site.identity import csrf_exempt, player_id
from ..site.services import mailer

log = logging.getLogger(__name__)

bp = Blueprint("notices", __name__)


def your_turns() -> list[YourTurn]:
    """For templates: the turn-based tables waiting on this person, the least time left first."""
    return waiting_on(player_id())


@bp.get("/turns")
def turns():
    """The your-turn list again (the home and Games pages ask every ``TURN_LIST_POLL_S``), with
    the top bar's count."""
    return render_template("notices/_your_turn.html", turns=your_turns(), oob=True)


@bp.route("/notices/off/<token>", methods=["GET", "POST"])
@csrf_exempt  # the signed token in the link is the proof; a mail program's one-click POST has no session
def off(token: str):
    """The link in every notice mail (no sign-in needed): a visit shows the button, its
    press (or a mail program's one-click POST) turns the person's notice mails off."""
    person = unsubscribed_person(current_app.config["SECRET_KEY"], token)
    if person is None:
        abort(400, description="This link is not valid: copy the whole link from the mail, or turn the mails off "
                               "on your profile.")
    if request.method == "GET":
        return render_template("notices/off.html", done=False, token=token)
    turn_mails_off(person)
    return render_template("notices/off.html", done=True)


@bp.post("/me/notices")
def mail_setting():
    """The profile's switch for the notice mails (``mail``: on or off)."""
    said = turn_mails(player_id(), bool(session.get("uid")), request.form.get("mail", ""))
    if isinstance(said, Refusal):
        abort(said.status, description=said.message)
    flash(said)
    return redirect("/me#notices", 303)


def site_address(value: object) -> str | None:
    """The site's public address for the notices' links (``PUBLIC_URL`` without its last
    ``/``), or None when it is missing or is not an ``http://`` or ``https://`` address."""
    text = str(value or "").strip().rstrip("/")
    try:
        parts = urlsplit(text)
        usable = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # a port that is not a number, a bad IPv6 address
        usable = False
    return text if usable else None


def start(app: Flask) -> Notices:
    """The notices' worker for this app (ticking every ``NOTICE_TICK_S`` in a thread). A
    site with no usable ``PUBLIC_URL`` says once, in its log, that it sends no notices."""
    tables = app.extensions["spades.tables"]
    cluster = tables.cluster
    with app.app_context():
        post = mailer()
    given = app.config.get("PUBLIC_URL")
    base = site_address(given)
    if base is None:
        log.warning("SPADES_PUBLIC_URL %s: no turn mails or push notices are sent, as their links need the "
                    "site's address (set it, e.g. SPADES_PUBLIC_URL=https://spades.example)",
                    f"({given!r}) is not an http:// or https:// address" if given else "is not set")
    notices = Notices(tables.store, post, app.config["SECRET_KEY"], base, push=app.extensions.get("spades.push"),
                      lock=cluster.shared_lock("notices") if cluster is not None else None, clock=tables.now,
                      away_s=float(app.config.get("NOTICE_AWAY_S", AWAY_S)))
    tick_every(app, float(app.config.get("NOTICE_TICK_S", 60)), "turn notices", notices.tick)
    return notices


def tick_every(app: Flask, every: float, what: str, tick: Callable[[], object]) -> None:
    """Call ``tick`` every ``every`` seconds (0: never) in a thread of its own until the app
    closes (``spades.notices.stop``); a failed tick is logged and the next one tries again
    (the database busy, Redis away)."""
    if every <= 0:
        return
    stop = app.extensions.setdefault("spades.notices.stop", threading.Event())

    def run() -> None:
        while not stop.wait(every):
            try:
                tick()
            except Exception:
                log.exception("%s failed; trying again", what)
    threading.Thread(target=run, name=what.replace(" ", "-"), daemon=True).start()


def init_app(app: Flask) -> None:
    app.extensions["spades.notices"] = start(app)
    app.jinja_env.globals.update(your_turns=your_turns)
    app.register_blueprint(bp)
