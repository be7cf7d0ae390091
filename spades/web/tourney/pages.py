"""Tourney pages: ``/t`` (the listed tourneys, a page of ``LIST_PAGE`` at a time,
``?page=N``), ``/t/new`` (a listed tourney needs a signed-in director; each person and
each client address may make a few an hour), ``/t/<CODE>`` (register alone or as a team,
withdraw before the start, the team link with its Copy button, Ready?, the bracket or the
standings, each table's score with a Watch link, the director's controls) and
``/t/<CODE>/team/<TOKEN>`` (the partner's link). The creator registers with the new
tourney unless they say they only direct it.

Every control is a plain form answered with a 303 back to the page (a refusal is its
sentence, flashed); the page's live part (``tourney/_live.html``) is pushed again over
the WebSocket ``/t/<CODE>/ws`` after every change of the tourney (the tourney service
announces it on the table service's bus, page channel ``t/<CODE>``, which the socket hub
of every process hears), so registrations, Ready marks, new tables, scores and results
show without a reload; that part is a view model (``live.live_page``), which decides
what each person is offered. A person whose table has just been made is taken to it by the page
(``data-go``, once per table).

Imports: Flask, ``spades.tourney`` (the service and its views), ``spades.tables`` (names)
and the web layer.
"""

from __future__ import annotations

import datetime as dt
import re

from flask import (
    Blueprint,
    Flask,
    abort,
    flash,
    get_flashed_messages,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from ...tables import EMOJIS, BadPlayer, check_emoji, clean_name
from ...tourney.errors import TourneyError, TourneyNotFound
from ...tourney.service import LIST_PAGE
from ...tourney.views import TourneyView, page_channel
from ..accounts.auth import signed_in
from ..rooms.codes import CODE_RE
from ..rooms.lobby import public_url
from ..site.identity import csrf_token, player_id
from ..site.limits import making
from ..site.services import service
from ..table.hub import CSRF_MARK
from ..table.live import origin_allowed, serve_page, sock
from .live import LiveModel, clock_time, live_page, tourneys

bp = Blueprint("tourney", __name__)

TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
NO_TOURNEY = "There is no tourney with that code. Check it, or create one."
LISTED_NEEDS_SIGN_IN = ("Sign in to list a tourney on the tourneys page, or untick \"Listed\" to make it "
                        "by link only.")
NEW_DEFAULTS = {"format": "knockout", "rounds": "3", "team_limit": "8", "start": "director", "checkin": "10",
                "listed": "on", "bot_fill": "", "duplicate": "", "play": "team"}
# whether the creator plays in their tourney: as a team (they get the link to send), alone,
# or not at all; a form that does not say (an older page) registers nobody
PLAY = {"team": "team", "solo": "solo", "no": None, "": None}


def _token(token: str) -> None:
    """A 404 for anything that cannot be a team link's token."""
    if not TOKEN_RE.match(token):
        abort(404, description="That team link is not right. Ask your partner to send it again.")


def _code(code: str) -> str:
    if not CODE_RE.match(code):
        abort(404, description=NO_TOURNEY)
    return code.upper()


def _view(code: str, pid: str | None) -> TourneyView:
    try:
        return tourneys().view(code, pid)
    except TourneyNotFound:
        abort(404, description=NO_TOURNEY)


def _live(code: str, pid: str | None) -> LiveModel:
    try:
        return live_page(tourneys(), code, pid)
    except TourneyNotFound:
        abort(404, description=NO_TOURNEY)


def _person() -> tuple[str, str, str]:
    """This browser's player id, and the name and emoji the form gave. Raises BadPlayer."""
    name = clean_name(request.form.get("name"))
    emoji = check_emoji(request.form.get("emoji"))
    session["name"] = name
    return player_id(create=True), name, emoji


def live_context(live: LiveModel, pid: str | None, typed: str = "") -> dict:
    """What the live part of the page reads: its model, and the register form's values (a
    push has no request: ``typed`` is the name this browser last typed, from its session)."""
    name, emoji = service().known_player(pid)
    return {"live": live, "values": {"name": name or typed, "emoji": emoji or EMOJIS[0]}, "emojis": EMOJIS}


def live_html(code: str, pid: str | None, csrf: str) -> str:
    """The live part of the tourney page for this person, as the socket pushes it."""
    return render_template("tourney/_live.html", csrf=csrf, oob=True, **live_context(_live(code, pid), pid))


# -- pages ---------------------------------------------------------------------------------
@bp.get("/t")
def listing():
    """The listed tourneys, ``LIST_PAGE`` a page (``?page=N``, from 1), with links to the
    pages before and after."""
    text = request.args.get("page", "1")
    if not (text.isascii() and text.isdigit() and len(text) <= 5) or int(text) < 1:
        abort(400, description="There is no such page of tourneys. The list starts at page 1.")
    page = int(text)
    return render_template("tourney/list.html", listing=tourneys().listing((page - 1) * LIST_PAGE, LIST_PAGE),
                           page=page)


@bp.get("/t/new")
def new():
    name, emoji = service().known_player(player_id())
    return render_template("tourney/new.html",
                           values={**NEW_DEFAULTS, "listed": "on" if signed_in() else "",
                                   "name": name or session.get("name", ""), "emoji": emoji or EMOJIS[0]},
                           emojis=EMOJIS, signed_in=signed_in())


@bp.post("/t/new")
def create():
    """A new tourney, directed by its creator; 303 to its page. A listed one needs its
    director signed in (403 otherwise); each person and each client address may make
    ``TOURNEYS_PER_PERSON`` and ``TOURNEYS_PER_ADDRESS`` (429 past either)."""
    form = request.form
    values = {**NEW_DEFAULTS, "listed": "", "bot_fill": "", "duplicate": "", **form.to_dict()}

    def refuse(message: str, status: int = 400, headers: dict | None = None):
        return render_template("tourney/new.html", values=values, emojis=EMOJIS, message=message,
                               signed_in=signed_in()), status, headers or {}

    fmt = form.get("format", "")
    if fmt not in ("knockout", "swiss"):
        return refuse("Choose knockout or Swiss.")
    numbers = {}
    for key, low, high, what in (("team_limit", 2, 64, "The team limit is 2 to 64."),
                                 ("rounds", 1, 15, "A Swiss tourney plays 1 to 15 rounds."),
                                 ("checkin", 0, 120, "The check-in window is 0 to 120 minutes.")):
        text = form.get(key, "").strip()
        if key == "rounds" and fmt != "swiss" or key == "checkin" and form.get("start") != "time":
            continue
        if not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:
            return refuse(what)
        numbers[key] = int(text)
    start_at = None
    if form.get("start") == "time":
        try:
            start_at = dt.datetime.fromisoformat(form.get("start_at", "")).timestamp()
        except ValueError:
            return refuse("Give the start as a date and time.")
    elif form.get("start") != "director":
        return refuse("Choose how the tourney starts.")
    listed = form.get("listed") == "on"
    if listed and not signed_in():
        return refuse(LISTED_NEEDS_SIGN_IN, 403)
    play = form.get("play", "")
    if play not in PLAY:
        return refuse("Say whether you play in it: with a partner, alone, or not at all.")
    try:
        if PLAY[play] is None:  # directing only: the name asked for the players is not needed
            pid, player = player_id(create=True) or "", None
        else:
            pid, name, emoji = _person()
            player = (name, emoji)
        refusal = making("tourney", pid)
        if refusal:
            return refuse(refusal.message, 429, refusal.headers)
        code = tourneys().create(pid, form.get("tourney_name", ""), format=fmt, rounds=numbers.get("rounds"),
                                 team_limit=numbers["team_limit"], start_at=start_at,
                                 checkin_s=numbers["checkin"] * 60 if "checkin" in numbers else None,
                                 listed=listed, bot_fill=form.get("bot_fill") == "on", player=player,
                                 solo=PLAY[play] == "solo", duplicate=form.get("duplicate") == "on")
    except (BadPlayer, TourneyError) as e:
        return refuse(str(e))
    return redirect(f"/t/{code}", 303)


@bp.get("/t/<code>")
def page(code: str):
    code = _code(code)
    pid = player_id(create=True)  # a visitor gets an identity too, so the live part can reach them
    live = _live(code, pid)
    messages = get_flashed_messages()
    return render_template("tourney/page.html", csrf=csrf_token(), oob=False, team_url=_team_url(live),
                           message=messages[-1] if messages else None,
                           **live_context(live, pid, session.get("name", "")))


def _team_url(live: LiveModel) -> str | None:
    """The link a team's first player sends the partner, while the team waits for them."""
    if live.team_link_token is None:
        return None
    path = url_for("tourney.team_link", code=live.code, token=live.team_link_token)
    return public_url(path) or request.host_url.rstrip("/") + path


@bp.get("/t/<code>/team/<token>")
def team_link(code: str, token: str):
    """The partner's link: the form that joins this team (the service checks the token)."""
    code = _code(code)
    _token(token)
    pid = player_id(create=True)
    t = _view(code, pid)
    if t.my_team is not None:
        return redirect(f"/t/{code}", 303)
    name, emoji = service().known_player(pid)
    return render_template("tourney/join_team.html", t=t, token=token, emojis=EMOJIS,
                           values={"name": name or session.get("name", ""), "emoji": emoji or EMOJIS[0]})


# -- controls ----------------------------------------------------------------------------
def _control(code: str, call) -> object:
    """Run a tourney command for this browser; a refusal is flashed. 303 back to the page."""
    code = _code(code)
    try:
        call(code)
    except TourneyNotFound:
        abort(404, description=NO_TOURNEY)
    except (BadPlayer, TourneyError) as e:
        flash(str(e))
    return redirect(f"/t/{code}", 303)


@bp.post("/t/<code>/register")
def register(code: str):
    """Register alone (``as=solo``) or as a team (``as=team``: the team link follows)."""
    how = request.form.get("as", "")
    if how not in ("solo", "team"):
        abort(400, description="Register alone or as a team.")

    def call(c: str) -> None:
        pid, name, emoji = _person()
        if how == "solo":
            tourneys().register_solo(c, pid, name, emoji)
        else:
            tourneys().register_team(c, pid, name, emoji)
    return _control(code, call)


@bp.post("/t/<code>/team/<token>")
def join_team(code: str, token: str):
    _token(token)

    def call(c: str) -> None:
        pid, name, emoji = _person()
        tourneys().join_team(c, token, pid, name, emoji)
    return _control(code, call)


def _team_number() -> int:
    text = request.form.get("team", "")
    if not (text.isascii() and text.isdigit()) or len(text) > 6:
        abort(400, description="Say which team.")
    return int(text)


@bp.post("/t/<code>/withdraw")
def withdraw(code: str):
    """Leave the tourney before its start (``TourneyService.withdraw``)."""
    return _control(code, lambda c: tourneys().withdraw(c, player_id() or ""))


@bp.post("/t/<code>/ready")
def ready(code: str):
    return _control(code, lambda c: tourneys().ready(c, player_id() or ""))


@bp.post("/t/<code>/start")
def start(code: str):
    return _control(code, lambda c: tourneys().start(c, player_id() or ""))


@bp.post("/t/<code>/bot-team")
def bot_team(code: str):
    return _control(code, lambda c: tourneys().add_bot_team(c, player_id() or ""))


@bp.post("/t/<code>/remove")
def remove(code: str):
    team = _team_number()
    return _control(code, lambda c: tourneys().remove_team(c, player_id() or "", team))


@bp.post("/t/<code>/cancel")
def cancel(code: str):
    return _control(code, lambda c: tourneys().cancel(c, player_id() or ""))


# -- the live part -----------------------------------------------------------------------
@bp.before_request
def _socket_handshake() -> None:
    """The socket's checks, before the upgrade: a known tourney, this site's page."""
    if request.endpoint != "tourney.socket":
        return
    code = (request.view_args or {}).get("code", "")
    if not CODE_RE.match(code):
        abort(404, description=NO_TOURNEY)
    _view(code.upper(), None)
    if not origin_allowed():
        abort(403, description="This connection did not come from this site.")
    if player_id() is None:
        abort(403, description="Open the tourney page first.")


@sock.route("/t/<code>/ws", bp=bp)
def socket(ws, code: str) -> None:
    code = code.upper()
    serve_page(ws, code, page_channel(code), lambda pid: live_html(code, pid, CSRF_MARK))


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.jinja_env.filters.setdefault("clock_time", clock_time)
