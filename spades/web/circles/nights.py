"""A circle's game nights on the site (``spades.circles.nights``, ``docs/circles.md``,
"Game nights"): the next night on the circle's page (``templates/circles/_nights.html``,
its context from ``part``, registered with ``spades.web.circles.home.page_part``), the
members' answers, the owner's schedule form, the calendar file, the page's "here" poll
that sends a person to their table, and the worker that ticks the nights.

Routes, each 404 to anyone not in the circle now (the circles' own check and sentence),
403 to a member for the owner's controls:

- ``POST /c/<slug>/nights`` (owner): ``day`` (``YYYY-MM-DD``), ``time`` (``HH:MM``),
  ``zone`` (an IANA name), ``weekly`` (``on``); a day, time or zone that is not one (or a
  start refused) answers 400 with the night form again (``night_form.html``): what was
  typed in every field, the sentence, and for a zone that is not one the names it looks
  like (``New York``: America/New_York), each a button that schedules it there;
- ``POST /c/<slug>/nights/pairing`` (owner): ``pairing``, ``rotate`` or ``fixed``;
- ``POST /c/<slug>/nights/<id>/answer``: ``answer`` yes, maybe or no;
- ``POST /c/<slug>/nights/<id>/cancel`` (owner);

scheduling and cancelling count together against ``NIGHT_CHANGES_PER_PERSON`` per person
(``"20 per hour"``, in the limiter's shared storage): past it, 429 with the sentence;
- ``GET /c/<slug>/nights/<id>.ics``: the night for a calendar (icalendar);
- ``POST /c/<slug>/nights/here``: the page's poll (htmx, while a night is near): the
  person is on the page now; answered with the poll element again, or with
  ``HX-Redirect`` to the table a night has just seated them at.

And, outside ``/c`` as it needs no sign-in: ``GET``/``POST /nights/off/<token>``, the
stop link of the reminder mails (a page with one button; its press, or a mail
program's one-click POST, turns that person's game-night mails of that circle off).

Settings: ``NIGHT_TICK_S`` (15; 0 in tests unless they ask: nothing ticks), how often
the worker ticks; ``NIGHT_POLL_S`` (20), how often the page says "here" while a night
is within a quarter of an hour (every five minutes while one is within a day);
``NIGHT_CHANGES_PER_PERSON`` above. The reminders are taken from the reminders' share of
the site's hourly mail (``spades.web.site.allowance``).

Imports: Flask, ``spades.circles`` and the web layer's allowance, circles (their home,
services and night views), identity, limits, notices (the site's address for links) and services.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, abort, current_app, flash, redirect, render_template, request

from ...circles import CircleError
from ...circles.nights import BadZone, NightError, NightService, stopped_by
from ...storage import CircleRow
from ..rooms.notices import site_address, tick_every
from ..site.allowance import reminder_budgets, take
from ..site.identity import csrf_exempt
from ..site.limits import TooMany, hit, in_minutes, too_many
from ..site.services import mailer
from . import home as circles_web
from .home import NOT_HERE, circles, member_of, page_part
from .night_views import ZONES, NightForm, NightFormValues, NightsView, PollView, nights_part, poll_every
from .services import circle_name, nights, owner_refusal

bp = Blueprint("nights", __name__)
bp.register_error_handler(404, circles_web.not_here)

NIGHT_CHANGES_PER_PERSON = "20 per hour"  # nights scheduled and cancelled, together, per person


def _refuse(e: CircleError):
    abort(e.status, description=str(e) or NOT_HERE)


def part(slug: str, uid: str) -> dict[str, NightsView]:
    """The circle page's game nights (``night_views.nights_part``)."""
    return nights_part(circles().circle(slug), uid)


def _owner(slug: str) -> str:
    return _owner_of(slug)[1]


def _owner_of(slug: str) -> tuple[CircleRow, str]:
    """The circle and its owner's id, for the owner's controls: 404 to anyone not in it,
    403 to other members."""
    row, _, uid = member_of(slug)
    refused = owner_refusal(row, uid)
    if refused is not None:
        abort(refused.status, description=refused.message)
    return row, uid


def _changes_counted(uid: str) -> TooMany | None:
    """Count one night scheduled or cancelled by this person: None within the limit, else
    the refusal (``NIGHT_CHANGES_PER_PERSON``)."""
    limit = current_app.config.get("NIGHT_CHANGES_PER_PERSON", NIGHT_CHANGES_PER_PERSON)
    wait = hit(limit, uid, "night-changes")
    if wait is None:
        return None
    return TooMany(f"You have scheduled or cancelled the most game nights one person may in an hour "
                   f"({limit.split()[0]}). Try again in {in_minutes(wait)}.", wait)


def _night_form(row: CircleRow, values: NightFormValues, message: str, status: int,
                suggestions: tuple[str, ...] = (), headers: dict[str, str] | None = None):
    """The night form again: what was typed, the sentence, the zones meant (buttons)."""
    p = NightForm(row.slug, values, ZONES)
    body = render_template("circles/night_form.html", circle=row, p=p, message=message, suggestions=suggestions)
    return body, status, headers or {}


@bp.post("/c/<slug>/nights")
def schedule(slug: str):
    row, uid = _owner_of(slug)
    form = request.form
    day, at, zone = form.get("day", "")[:20], form.get("time", "")[:10], form.get("zone", "")[:80]
    weekly = form.get("weekly") == "on"
    values = NightFormValues(day, at, zone, weekly)  # the form again, as typed
    refusal = _changes_counted(uid)
    if refusal is not None:
        return _night_form(row, values, refusal.message, 429, headers=refusal.headers)
    try:
        night = nights().schedule(slug, uid, day, at, zone, weekly)
    except BadZone as e:
        return _night_form(row, values, str(e), e.status, e.suggestions)
    except NightError as e:
        return _night_form(row, values, str(e), e.status)
    except CircleError as e:
        return _refuse(e)
    flash(f"Game night scheduled: {nights().when(night)}.")
    return redirect(f"/c/{slug}#nights", 303)


@bp.post("/c/<slug>/nights/pairing")
def pairing(slug: str):
    uid = _owner(slug)
    choice = request.form.get("pairing", "")
    try:
        nights().set_pairing(slug, uid, choice)
    except CircleError as e:
        return _refuse(e)
    flash("Partners rotate from night to night." if choice == "rotate" else "Partners keep their pairs.")
    return redirect(f"/c/{slug}#nights", 303)


@bp.post("/c/<slug>/nights/<night_id>/answer")
def answer(slug: str, night_id: str):
    _, _, uid = member_of(slug)
    try:
        nights().answer(slug, uid, night_id, request.form.get("answer", ""))
    except CircleError as e:
        return _refuse(e)
    return redirect(f"/c/{slug}#nights", 303)


@bp.post("/c/<slug>/nights/<night_id>/cancel")
def cancel(slug: str, night_id: str):
    uid = _owner(slug)
    refusal = _changes_counted(uid)
    if refusal is not None:
        too_many(refusal)
    try:
        night = nights().cancel(slug, uid, night_id)
    except CircleError as e:
        return _refuse(e)
    flash(f"Game night cancelled: {nights().when(night)}.")
    return redirect(f"/c/{slug}#nights", 303)


@bp.get("/c/<slug>/nights/<night_id>.ics")
def ics(slug: str, night_id: str):
    row, _, _ = member_of(slug)
    try:
        night = nights().night(slug, night_id)
    except CircleError as e:
        return _refuse(e)
    base = site_address(current_app.config.get("PUBLIC_URL")) or request.host_url.rstrip("/")
    # the UID's host: the site's public address when it has one, so a night's UID is one
    body = nights().ics(night, row.name, f"{base}/c/{slug}", urlsplit(base).hostname or "spades")
    return Response(body, mimetype="text/calendar",
                    headers={"Content-Disposition": f'attachment; filename="game-night-{night.id}.ics"'})


@bp.post("/c/<slug>/nights/here")
def here(slug: str):
    """The page's poll: this person is on the circle's page now."""
    _, _, uid = member_of(slug)
    code = nights().here(slug, uid)
    if code is not None:
        return Response("", 200, headers={"HX-Redirect": f"/g/{code}"})
    return render_template("circles/night_poll.html", nights=PollView(slug, poll_every(slug)), again=True)


@bp.route("/nights/off/<token>", methods=["GET", "POST"])
@csrf_exempt  # the signed token is the proof; a mail program's one-click POST has no session
def off(token: str):
    """The stop link of the game nights' mails (no sign-in needed)."""
    who = stopped_by(current_app.config["SECRET_KEY"], token[:400])
    if who is None:
        abort(400, description="This link is not valid: copy the whole link from the mail.")
    name = circle_name(who[0])
    if request.method == "GET":
        return render_template("circles/night_off.html", done=False, token=token, circle=name)
    nights().stop_mails(token[:400])
    return render_template("circles/night_off.html", done=True, token=token, circle=name)


def start(app: Flask) -> NightService:
    """The game nights' service for this app, ticking every ``NIGHT_TICK_S`` in a thread
    (stopped with the notices' worker when the app closes)."""
    tables = app.extensions["spades.tables"]
    cluster = tables.cluster
    with app.app_context():
        post = mailer()

    def allow() -> float | None:
        """One reminder from the reminders' share of this hour's mail: None, or the seconds
        until the share has room."""
        with app.app_context():
            held = take(reminder_budgets())
        return None if held is None else held[1]

    svc = NightService(tables.store, app.extensions["spades.circles"], app.config["SECRET_KEY"], mailer=post,
                       base_url=site_address(app.config.get("PUBLIC_URL")), push=app.extensions.get("spades.push"),
                       lock=cluster.shared_lock("nights") if cluster is not None else None, clock=tables.now,
                       allow=allow)
    tick_every(app, float(app.config.get("NIGHT_TICK_S", 0 if app.testing else 15)), "game nights", svc.tick)
    return svc


def init_app(app: Flask) -> None:
    app.extensions["spades.nights"] = start(app)
    page_part(part)
    app.register_blueprint(bp)


__all__ = ["bp", "init_app", "nights", "part"]
