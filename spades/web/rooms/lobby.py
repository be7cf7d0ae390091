"""The home page, new tables, joining, and the room where friends wait for the start.

- ``GET /`` home; ``POST /practice`` one click against the bots (three, or two at a
  three-player table: the house rules' presets are offered).
- ``GET /new``, ``POST /new``: a table for 1-4 people (1-3 for three players) with every
  option, the house rules included (``spades.web.rooms.options``). One person plays
  at once (the practice path); more get a room with a join code, a link, a QR code and
  an email box.
- ``GET /j?code=…`` (the code typed on the home page) and ``GET /j/<CODE>`` (the link):
  the join form, or straight back to your room or seat. ``POST /j/<CODE>``: join with a
  name and an emoji. Join attempts are rate-limited per address so codes cannot be
  enumerated. A browser that signed in to an account the host blocked cannot join, signed
  out or not (``_joinable``).
- The room lives at the table's own address, ``/g/<CODE>`` (``spades.web.table.page`` shows
  it while the table waits); its controls post to ``/g/<CODE>/partner``, ``remove``,
  ``leave``, ``start`` and ``invite``. The table service checks every host control.

Plain forms with a 303 after each change; everyone else in the room hears of it over
the WebSocket (``spades.web.table.live``).

Imports: Flask and friends, segno, ``spades.mail``, ``spades.tables`` and the core.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import segno
from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    get_flashed_messages,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_limiter.util import get_remote_address
from markupsafe import Markup

from ...accounts import EMAIL_RE
from ...bots import DEFAULT_LEVEL
from ...mail import MailError, subject_name
from ...rules_config import NO_CLOCK, TURN_BASED, Rules, RulesError
from ...tables import (
    EMOJIS,
    MAX_HUMANS,
    NO_TABLE,
    TOO_MANY_TURN_TABLES,
    WATCHING_OFF,
    AtLimit,
    BadPlayer,
    NotSaved,
    NotSeated,
    Player,
    Refused,
    Removed,
    TableClosed,
    TableFull,
    TableNotFound,
    check_emoji,
    clean_name,
)
from ...tables.commands.room import Join, SetOptions
from ...tables.errors import status_of
from ...text import clean_text
from ..circles.boards import join_refusal
from ..site.allowance import Budget, invitation_budgets, take
from ..site.identity import csrf_token, default_emoji, device, player_id
from ..site.limits import limiter, making, too_many
from ..site.services import mailer, service
from .codes import clean_code, join_limit
from .options import DEFAULT_VALUES, OPTION, PRESET_VALUES, house_settings, table_options
from .room import room_context

bp = Blueprint("lobby", __name__)


@bp.app_context_processor
def _house_presets() -> dict:
    """The options forms' presets as their switches' values (``static/house_rules.js`` sets them)."""
    return {"house_presets": PRESET_VALUES}


MAX_INVITES = 10  # addresses in one go
INVITES_AN_HOUR = 20  # recipients a person may invite in an hour
INVITES_PER_PERSON = f"{INVITES_AN_HOUR} per hour"
INVITES_PER_ADDRESS = "40 per hour"  # recipients from one client address (a few hosts at one venue)
# why a full table may or may not be watched, after the refusal's words (room/refused.html)
WATCH_AFTER_START = "Its game has not started yet: once it has, you can watch it from this link."
NO_WATCHERS = "Nobody watches this table: other tables play the same deals."


@bp.get("/")
def home():
    return render_template("lobby/home.html", name=session.get("name", ""), last_table=session.get("last_table"))


@bp.post("/practice")
def practice():
    """Start a practice match from the home page's form (the level, the play speed, how the
    match ends, two on/off rules and the house rules' preset; the rest are the defaults);
    303 to its table. Bad values, and a combination of house rules RULES.md does not
    offer, are a 400 with the reason."""
    form = request.form
    settings: dict = {}
    for name, default in (("level", DEFAULT_LEVEL), ("speed", "normal"), ("end", "target-500"),
                          ("bag_penalty", None), ("blind_nil", None)):
        chosen = OPTION[name].parse(form.get(name, default))
        if chosen is None:
            abort(400, description=OPTION[name].message)
        settings.update(chosen)
    house = house_settings(form)
    if isinstance(house, str):
        abort(400, description=house)
    settings.update(house)
    try:
        name = clean_name(form["name"]) if clean_text(form.get("name")) else "You"
    except BadPlayer as e:
        abort(400, description=str(e))
    level = settings.pop("level")
    session["name"] = name if name != "You" else session.get("name", "")
    refusal = making("practice", player_id(create=True))
    if refusal:
        too_many(refusal)
    try:
        rules = Rules(**settings, tempo=NO_CLOCK)
    except RulesError as e:
        abort(400, description=str(e))
    code = service().create_practice(player_id(create=True), name, rules, level,
                                     contribution=form.get("contribution", ""))  # to the first deal (fairness)
    return redirect(f"/g/{code}", 303)


# -- a new table ---------------------------------------------------------------------------
def _prefill() -> tuple[str, str]:
    """The name and emoji this browser chose last time (from the player row)."""
    name, emoji = service().known_player(player_id())
    return name or session.get("name", ""), emoji


NEW_DEFAULTS = {"humans": "4", **DEFAULT_VALUES}


@bp.get("/new")
def new():
    name, emoji = _prefill()
    values = {**NEW_DEFAULTS, "name": name, "emoji": emoji or default_emoji(EMOJIS)}
    return render_template("lobby/new.html", values=values, emojis=EMOJIS, message=None)


@bp.post("/new")
def create():
    """One person: the practice match starts at once. More: the room, with its code."""
    form = request.form
    # the form shown again as posted: an unticked checkbox posts nothing, so it shows off
    values = {**NEW_DEFAULTS, **{o.name: "" for o in OPTION.values() if o.kind == "on_off"}, **form.to_dict()}

    def refuse(message: str):
        return render_template("lobby/new.html", values=values, emojis=EMOJIS, message=message), 400

    humans = form.get("humans", "")
    if humans not in tuple(str(n) for n in range(1, MAX_HUMANS + 1)):
        return refuse(f"Choose how many people will play: 1 to {MAX_HUMANS}.")
    n = int(humans)
    options = table_options(form, people=n)
    if isinstance(options, str):
        return refuse(options)
    rules, level = options
    try:
        name = clean_name(form.get("name"))
        emoji = check_emoji(form.get("emoji"))
    except BadPlayer as e:
        return refuse(str(e))
    session["name"] = name
    pid = player_id(create=True)
    refusal = making("practice" if n == 1 else "friends", pid)
    if refusal:
        return refuse(refusal.message)[0], 429, refusal.headers
    if n > 1 and rules.tempo in TURN_BASED and service().at_turn_limit(pid):
        return refuse(TOO_MANY_TURN_TABLES)[0], 409
    if n == 1:
        code = service().create_practice(pid, name, rules, level, emoji, contribution=form.get("contribution", ""))
    else:
        try:
            code = service().create_room(pid, name, emoji, rules, level, n)
        except AtLimit as e:  # the turn-based tables' limit, counted as the room is stored
            return refuse(str(e))[0], 409
    return redirect(f"/g/{code}", 303)


# -- joining -------------------------------------------------------------------------------
def refused(e: Refused, code: str | None = None):
    """A join that cannot happen, in words, with the way on (create a table, try a code)."""
    status = {TableNotFound: 404, TableClosed: 410, TableFull: 409, Removed: 403}.get(type(e), e.status)
    if isinstance(e, NotSaved):  # nothing happened (Redis or the database away): try again
        status = 503
    full = isinstance(e, TableFull)
    watchable, watching = _watching(code) if full and code is not None else (False, "")
    return render_template("room/refused.html", message=str(e), code=code, full=full, watchable=watchable,
                           watching=watching), status


def _watching(code: str) -> tuple[bool, str]:
    """Whether people without a seat may watch this full table now, and the sentence that
    says so or why not, whichever is true: its game has not started yet, its deals are
    played at other tables too, or its host turned watching off ("" when it cannot be read)."""
    try:
        if service().status(code) == "waiting":
            return False, WATCH_AFTER_START
        snap = service().snapshot(code, None)
    except Refused:
        return False, ""
    if snap.around.watchable:
        return True, "You can watch the game."
    return False, NO_WATCHERS if snap.around.watch_fixed else WATCHING_OFF


def _joinable(code: str, pid: str | None):
    """``TableService.joinable``, and not from a browser that signed in to an account the
    host blocked, whoever it is signed in as now (its device cookie says which), nor a
    table of boards to anyone its circle's rules keep out (``join_refusal``): Removed."""
    row = service().joinable(code, pid)
    if pid not in row.seated:
        refusal = join_refusal(code, pid)  # a table of boards: the circle's members, each once a week
        if refusal:
            raise Removed(refusal)
    known = device()
    if known is None or not row.host or pid == row.host or pid in row.seated:
        return row
    store = service().store
    blocked = store.blocked(row.host)
    if blocked and any((u := store.user_by_email(e)) is not None and u.id in blocked for e in known.emails):
        raise Removed("You cannot join this table.")
    return row


def _join_form(code: str, message: str | None = None, status: int = 200, values: dict | None = None):
    pid = player_id()
    try:
        row = _joinable(code, pid)
    except Refused as e:
        return refused(e, code)
    if pid is not None and (pid in row.seated or any(m.player_id == pid and m.state == "in" for m in row.members)):
        return redirect(f"/g/{code}", 303)  # already in: back to the room or the seat
    here = [m for m in row.members if m.state == "in"]
    if values is None:
        name, emoji = _prefill()
        values = {"name": name, "emoji": emoji or default_emoji(EMOJIS, (m.emoji for m in here))}
    host = next((m for m in row.members if m.player_id == row.host), None)
    return render_template("room/join.html", code=code, host=host, here=here, values=values, emojis=EMOJIS,
                           message=message, humans=row.options.get("humans", 4),
                           started=row.status == "playing"), status


@bp.get("/j")
@join_limit
def join_typed():
    """The code typed in the home page's box (a GET form: joining happens on the next page)."""
    return _join_form(clean_code(request.args.get("code")))


@bp.get("/j/<code>")
@join_limit
def join_link(code: str):
    return _join_form(clean_code(code))


@bp.post("/j/<code>")
@join_limit
def join(code: str):
    code = clean_code(code)
    values = {"name": request.form.get("name", ""), "emoji": request.form.get("emoji", "")}
    pid = player_id(create=True)
    try:
        _joinable(code, pid)
        service().handle(code, Player(pid), Join(values["name"], values["emoji"]))
    except BadPlayer as e:
        return _join_form(code, str(e), 400, values)
    except Refused as e:
        return refused(e, code)
    session["name"] = clean_text(values["name"])
    return redirect(f"/g/{code}", 303)


# -- the room ------------------------------------------------------------------------------
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")


def public_url(path: str) -> str | None:
    """An absolute link to ``path`` for someone else (an invitation): from ``PUBLIC_URL``
    when set; otherwise from the request's host only when it can be trusted (Flask checked
    it against ``TRUSTED_HOSTS``, or it is this machine's loopback, as in development).
    None when neither holds: the Host header is the client's to choose, so a link built
    from it could send the invited friend anywhere."""
    base = current_app.config.get("PUBLIC_URL")
    if base:
        return base.rstrip("/") + path
    host = urlsplit("//" + request.host).hostname or ""
    if current_app.config.get("TRUSTED_HOSTS") or host in LOOPBACK_HOSTS:
        return request.host_url.rstrip("/") + path
    return None


def join_url(code: str) -> str:
    """The join link shown in the room (to the person who asked for the page)."""
    path = url_for("lobby.join_link", code=code)
    return public_url(path) or request.host_url.rstrip("/") + path


def qr_svg(url: str) -> Markup:
    """The join link as a QR code, inline SVG drawn on the server (segno escapes nothing
    of ours: the URL is built from a checked code)."""
    svg = segno.make(url, error="m").svg_inline(scale=4, dark="#134a2d", title="QR code of the join link")
    return Markup(svg)


def room_page(code: str, message: str | None = None, status: int = 200, emails: str = ""):
    """The room at ``/g/<CODE>`` while the table waits: members only (others go to the
    join form; someone removed is told so)."""
    pid = player_id()
    try:
        snap = service().room_snapshot(code, pid)
    except TableNotFound:
        abort(404, description=NO_TABLE)
    if snap.removed:
        return refused(Removed("The host removed you from this table."), code)
    if snap.me is None:
        return redirect(url_for("lobby.join_link", code=code), 303)
    session["last_table"] = code  # the home page links back to the room
    if message is None:
        flashed: list[str] = get_flashed_messages()  # type: ignore[assignment]  # Flask's type covers with_categories
        message = flashed[-1] if flashed else None
    ctx = room_context(snap, csrf_token())
    url = join_url(code)
    return render_template("room/room.html", oob=False, join_url=url, qr=qr_svg(url), message=message,
                           emails=emails, **ctx), status


def room_refusal(code: str, message: str, status: int):
    """The room with the reason a room control was refused (or, once the table has moved
    on, the refusal page)."""
    try:
        waiting = service().status(code) == "waiting"
    except TableNotFound:
        abort(404, description=NO_TABLE)
    if waiting:
        page = room_page(code, message, status)
        if isinstance(page, tuple):
            return page
    return refused(TableClosed(message), code)[0], status


@bp.post("/g/<code>/options")
def options(code: str):
    """The host changes the table's options before the first deal; everyone in the room
    sees them (the other room controls are routed from their declarations, in
    ``spades.web.table.page``)."""
    code = clean_code(code)
    chosen = table_options(request.form, people=2)  # a room is for two people or more
    if isinstance(chosen, str):
        return room_refusal(code, chosen, 400)
    pid = player_id()
    try:
        if pid is None:
            raise NotSeated("You are not in this room.")
        chat = request.form.get("chat", "on")
        service().handle(code, Player(pid), SetOptions(*chosen, chat=chat, filter=request.form.get("filter") == "on"))
    except TableNotFound:
        abort(404, description=NO_TABLE)
    except Refused as e:
        return room_refusal(code, str(e), status_of(e))
    return redirect(f"/g/{code}", 303)


@bp.post("/g/<code>/invite")
@limiter.limit("20 per hour", error_message="Too many invitations from here. Wait a while and try again.")
def invite(code: str):
    """Email the join link to each address typed (comma, space or one per line). Every
    address is checked first; a mail server that fails gives a message, not an error page.
    At most ``INVITES_PER_PERSON`` recipients an hour per person and ``INVITES_PER_ADDRESS``
    per client address, within the invitations' share of the site's hourly mail; all or
    nothing (``send_invitations``). The sender's name goes into the subject only as
    ``spades.mail.subject_name`` lets it ("A friend" otherwise)."""
    code = clean_code(code)
    text = request.form.get("emails", "")[:4000]
    try:
        snap = service().room_snapshot(code, player_id()) if player_id() else None
    except TableNotFound:
        abort(404, description=NO_TABLE)
    if snap is None or snap.me is None or snap.status != "waiting":
        return room_refusal(code, "Only people in the room can send invitations.", 403)
    addresses = [a for a in re.split(r"[\s,;]+", text) if a]
    if not addresses:
        return room_page(code, "Type an email address to send an invitation to.", 400, text)
    bad = [a for a in addresses if len(a) > 254 or not EMAIL_RE.match(a)]
    if bad:
        return room_page(code, f"That does not look like an email address: {', '.join(bad[:3])}. "
                               "Nothing was sent.", 400, text)
    if len(addresses) > MAX_INVITES:
        return room_page(code, f"Invite at most {MAX_INVITES} people at a time. Nothing was sent.", 400, text)
    me = next(m for m in snap.members if m.me)
    recipients = list(dict.fromkeys(addresses))  # each address once, in the order typed
    refusal = send_invitations(code, recipients, me.name, me.emoji)
    if refusal is not None:
        message, status, kept = refusal
        return room_page(code, message, status, " ".join(kept) if kept is not None else text)
    flash(f"Invitation sent to {', '.join(recipients)}.")
    return redirect(f"/g/{code}", 303)


def send_invitations(code: str, recipients: list[str], name: str,
                     emoji: str) -> tuple[str, int, list[str] | None] | None:
    """Mail the join link of table ``code`` to each address, from ``name``: None when
    all were sent, else (the message, the status, the addresses still to send or None
    for all of them). Within this person's and this client address's invitations an
    hour and the invitations' share of the site's hourly mail (``spades.web.site.allowance``), all
    or nothing; a mail server that fails gives a message, not an error page."""
    url, home = public_url(url_for("lobby.join_link", code=code)), public_url("/")
    if url is None or home is None:
        return ("Invitations cannot be sent from this address: the site's public address is not set. "
                "Share the link instead.", 400, None)
    person = Budget(INVITES_PER_PERSON, str(player_id()), "invite-person")
    held = take([person, Budget(INVITES_PER_ADDRESS, get_remote_address(), "invite-address"),
                 *invitation_budgets()], len(recipients))
    if held is not None:
        budget, wait = held
        minutes = max(1, round(wait / 60))
        when = f"Try again in {minutes} minute{'' if minutes == 1 else 's'}, or share the link instead. " \
               "Nothing was sent."
        if budget is person:
            return f"You can invite {INVITES_AN_HOUR} people an hour. {when}", 429, None
        if budget.mail:  # the invitations' share of the site's mail
            return f"The site has sent all the mail it may send this hour. {when}", 503, None
        return f"Too many invitations from here this hour. {when}", 429, None
    sender = subject_name(name)
    subject = f"{sender or 'A friend'} invites you to play Spades"
    body = render_template("room/invite_mail.txt", name=sender, emoji=emoji, url=url, home=home, code=code) + "\n"
    sent, failed = [], []
    post = mailer()
    for address in recipients:
        try:
            post.send(address, subject, body)
            sent.append(address)
        except MailError:
            failed.append(address)
    if failed:
        done = f" Sent to {', '.join(sent)}." if sent else ""
        return (f"The invitation to {', '.join(failed)} could not be sent: the mail server did not answer. "
                f"Try again in a moment, or share the link instead.{done}", 502, failed)
    return None
