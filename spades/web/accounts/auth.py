"""Signing in with an emailed code (optional: everything works without it), signing out,
and signing out on every device.

``/signin`` asks for an email and mails a six-digit code; ``/signin/code`` takes the code
and leads to the person's games, or first to the name step (``/me/name``) when the
account has no name of its own.
The answer to ``/signin`` is the same whether or not the address has an account (a code
is sent either way; the account is made when it is used).

Limits are set so that a stranger can neither guess a person's code nor keep them from
signing in where they signed in before:

- A code belongs to the browser that asked for it (``signin_asker`` in the session): only
  that browser may try it, five tries at most, and asking again voids only that browser's
  code. A stranger's wrong tries lock out the stranger's browser only.
- Per address, in the database (``spades.accounts``): at most 5 codes an hour to browsers
  that never signed in to it, and after 100 wrong tries in a row from everywhere it is
  closed to them for an hour. A browser that signed in to the address before carries the
  device cookie (``spades.web.site.identity``) and meets neither: it asks and signs in as
  usual, limited only by its own asks (``ASK_PER_DEVICE``, keyed by its device id). The
  device cookie is set on every successful sign-in and kept after signing out.
- Per client address (flask-limiter, ``spades.web.site.limits``): asks and tries in ten and two
  minutes, and an hourly cap (``ASK_PER_ADDRESS``/``TRY_PER_ADDRESS``). Asks are counted per
  address and per email separately: a household behind one address (several people, each
  their own email) gets 15 asks in ten minutes, while each email keeps its own 5 codes an
  hour (above), whoever asks.

The site's hourly mail (``spades.web.site.allowance``): a code to a browser new to the address
is taken from the sign-in codes' share, or else from their reserve; when neither has room
the ask is refused (429 when its network had its part, 503 when the site or the domain
had), saying when the hour ends. ``/admin/mail`` shows the hour's figures to the
accounts in ``ADMIN_EMAILS``.

A signed-in session holds ``pid`` (the account's canonical player id, so its seats follow
the person to any browser), ``uid`` and ``gen`` (the account's session generation).
Signing in clears the session and starts a new one with a new CSRF token. Every request
checks ``gen`` against the database, so "sign out on every device" ends all sessions, and
the session's last use: one unused for ``SESSION_IDLE_DAYS`` (30) is signed out (the
browser keeps its anonymous part). Cookies are HttpOnly and SameSite=Lax, and Secure
when ``SESSION_COOKIE_SECURE`` is set (env ``SPADES_SESSION_COOKIE_SECURE=1``) or the
request came over https.

Imports: Flask and friends, limits, ``spades.accounts``, ``spades.mail``, ``spades.tables``.
"""

from __future__ import annotations

import os
import secrets
import time

from flask import (
    Blueprint,
    Flask,
    has_request_context,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.sessions import SecureCookieSessionInterface
from flask_limiter.errors import RateLimitExceeded

from ...accounts import (
    CODE_TTL,
    IDLE_S,
    Accounts,
    BadCode,
    BadEmail,
    Expired,
    Locked,
    NoCode,
    SignInError,
    TooManyCodes,
    TooManyTries,
    WrongCode,
    normalize_email,
)
from ...mail import MailError
from ..site.allowance import HOUR, Budget, mail_figures, mail_hour, mail_shares, take_code, tally
from ..site.identity import csrf_token, device, player_id, remember_device, trusted_for
from ..site.limits import hit, limiter
from ..site.services import accounts, admin_only, hub, mailer, service

bp = Blueprint("auth", __name__)

ASK_PER_ADDRESS = "15 per 10 minutes;30 per hour"  # a household's asks; each email has its own 5 an hour
ASK_PER_DEVICE = "10 per hour"  # a browser that signed in to the address before: its own asks only
TRY_PER_ADDRESS = "10 per 2 minutes;30 per hour"


def signed_in() -> bool:
    return bool(session.get("uid"))


def asker() -> str:
    """This browser's sign-in id: the codes it asks for are its own to try."""
    if "signin_asker" not in session:
        session["signin_asker"] = secrets.token_urlsafe(16)
    return session["signin_asker"]


# -- pages -----------------------------------------------------------------------------
def _signin_page(error: str | None = None, status: int = 200, email: str = ""):
    return render_template("auth/signin.html", error=error, email=email or session.get("signin_email", "")), status


def _code_page(error: str | None = None, status: int = 200, offer_new: bool = False):
    return render_template("auth/code.html", email=session.get("signin_email", ""), error=error,
                           offer_new=offer_new, minutes=CODE_TTL // 60), status


@bp.get("/signin")
def signin():
    return _signin_page()


@bp.post("/signin")
@limiter.limit(ASK_PER_ADDRESS)
def ask_code():
    """Mail a code to the address typed; 303 to the code form. The same answer for every
    well-formed address, known or not."""
    typed = request.form.get("email", "")
    try:
        email = normalize_email(typed)
    except BadEmail as e:
        return _signin_page(str(e), 422, email=typed[:254])
    known = device()
    trusted = trusted_for(email)
    if known is not None and trusted:
        wait = hit(ASK_PER_DEVICE, known.id, "signin-ask-device")
        if wait is not None:
            return _held_up(wait)
    elif (full := take_code(email, dry=True)) is not None:
        return _mail_full(*full, email)
    try:
        code = accounts().request_code(email, asker(), trusted)
    except TooManyTries as e:
        session["signin_email"] = email
        return _code_page(str(e), 429)
    except (TooManyCodes, Locked) as e:
        if session.get("signin_email") == email:  # asked again from the code form: a code held still works
            return _code_page(str(e), 429)
        return _signin_page(str(e), 429, email=email)
    if trusted:
        tally("known")
    elif (full := take_code(email)) is not None:  # taken only for a mail that goes
        return _mail_full(*full, email)
    try:
        mailer().send(email, "Your Spades sign-in code", _mail_text(code), None)
    except MailError as e:
        return _signin_page(str(e), 503, email=email)
    session["signin_email"] = email
    return redirect(url_for("auth.code_form"), 303)


@bp.get("/signin/code")
def code_form():
    if not session.get("signin_email"):
        return redirect(url_for("auth.signin"), 303)
    return _code_page()


@bp.post("/signin/code")
@limiter.limit(TRY_PER_ADDRESS)
def check_code():
    """Sign in with the code; 303 to the person's games (to the name step first for an
    account without a name), with the device cookie for the address. Refusals
    re-show the form with the reason. The address is the one the code was sent to, as this
    session holds it (never a form field, which a guesser could vary)."""
    email = session.get("signin_email")
    if not email:
        return redirect(url_for("auth.signin"), 303)
    try:
        accounts().check_code(email, asker(), request.form.get("code", "")[:32], trusted_for(email))
    except (BadCode, WrongCode) as e:
        return _code_page(str(e), 422)
    except (Expired, NoCode) as e:
        return _code_page(str(e), 410, offer_new=True)
    except (TooManyTries, Locked) as e:
        return _code_page(str(e), 429, offer_new=False)
    except SignInError as e:  # pragma: no cover - every refusal is listed above
        return _code_page(str(e), 400)
    anon = None if signed_in() else player_id()
    user, moved = accounts().sign_in(email, anon, session.get("name", ""), session.get("emoji", ""))
    if anon:
        service().reload_seats(moved, {anon: user.id})
    name, emoji = accounts().store.known_player(user.id) or (user.name, user.emoji)
    _start_session(user.id, user.session_gen, name, emoji)
    if anon:  # this browser's open tables follow it into the account, in the session just begun
        hub().rebind(anon, user.id, session["gen"], session["sid"])
    # an account without a name of its own is asked for one (prefilled with the name it
    # used at a table) before anything shows it to friends as nobody in particular
    after = "profile.games" if user.name not in ("", "You") else "profile.name_step"  # "You": a practice's stand-in
    return remember_device(redirect(url_for(after), 303), email)


@bp.post("/signout")
def signout():
    accounts().end_session(session.get("sid"))  # a copied cookie is signed out too
    uid = session.get("uid")
    if uid:
        hub().signed_out(uid)  # every process looks again at their sockets' sessions: this one's close at once
    session.clear()
    return redirect(url_for("lobby.home"), 303)


@bp.post("/signout/everywhere")
def signout_everywhere():
    uid = session.get("uid")
    if uid:
        accounts().sign_out_everywhere(uid)
        hub().signed_out(uid)  # their open sockets, in every process, are closed at once
        accounts().store.remove_push_subscriptions(uid)  # no device of theirs hears of their turns
    session.clear()
    return redirect(url_for("lobby.home"), 303)


@bp.get("/admin/mail")
def mail_allowance():
    """This hour's mail, share by share, for the accounts in ``ADMIN_EMAILS``."""
    admin_only("see the mail figures")
    ends = mail_hour()[1]
    since, until = (time.strftime("%H:%M UTC", time.gmtime(t)) for t in (ends - HOUR, ends))
    return render_template("auth/mail.html", figures=mail_figures(), cap=mail_shares().cap, since=since,
                           until=until)


@bp.errorhandler(RateLimitExceeded)
def _too_many(e: RateLimitExceeded):
    """An address's limit hit: the page of the step, saying when to try again."""
    limit = limiter.current_limit
    return _held_up((limit.reset_at if limit else time.time() + 60) - time.time())


def _mail_full(budget: Budget, seconds: float, email: str):
    """No mail for this code this hour: the sign-in page says why and when to try again
    (429 when this network had its part, 503 when the site or the domain had)."""
    tally("refused")
    minutes = max(1, round(seconds / 60))
    when = f"Try again in {minutes} minute{'' if minutes == 1 else 's'}, or from a browser where you signed in before."
    if budget.scope.endswith("-network"):
        message, status = f"Many sign-in codes have been sent to people on your network this hour. {when}", 429
    elif budget.scope.endswith("-domain"):
        domain = email.rsplit("@", 1)[-1]
        message, status = f"Many sign-in codes have been sent to addresses at {domain} this hour. {when}", 503
    else:
        message, status = f"The site has sent all the mail it may send this hour. {when}", 503
    page, status = _signin_page(message, status, email=email)
    return page, status, {"Retry-After": str(int(seconds) + 1)}


def _held_up(seconds: float):
    """The page of the step, saying when to try again."""
    # reset times are rounded up to the next whole second: round, not ceil, to say "2 minutes"
    wait = max(1, round(seconds / 60))
    s = "" if wait == 1 else "s"
    message = f"Too many tries. Try again in {wait} minute{s}."
    if request.endpoint == "auth.check_code":
        return _code_page(message, 429)
    return _signin_page(message, 429)


# -- helpers ---------------------------------------------------------------------------
def _mail_text(code: str) -> str:
    return (f"Your sign-in code for Spades with friends is\n\n    {code}\n\n"
            f"Type it on the page where you asked for it. It works once, for {CODE_TTL // 60} minutes.\n"
            "If you did not ask for it, ignore this mail: nobody can sign in without the code.\n")


def _start_session(uid: str, gen: int, name: str, emoji: str) -> None:
    """A new session for the account: nothing of the old one is kept (a new CSRF token)."""
    session.clear()
    session["pid"] = uid
    session["uid"] = uid
    session["gen"] = gen
    session["sid"] = accounts().new_session(uid)
    if name:
        session["name"] = name
    if emoji:
        session["emoji"] = emoji
    session.permanent = True
    csrf_token()


def _check_session() -> None:
    """Clear a session that was signed out everywhere (or whose account is gone), and an
    anonymous cookie that somehow carries an account's player id."""
    if request.endpoint == "static":
        return  # a stylesheet needs no identity (and costs no query)
    uid = session.get("uid")
    if uid:
        if not accounts().session_valid(uid, session.get("gen"), session.get("sid")):
            session.clear()
    elif session.get("pid") and accounts().store.is_account(session["pid"]):
        session.clear()


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, Secure also when this request came over https."""

    def get_cookie_secure(self, app: Flask) -> bool:
        if app.config.get("SESSION_COOKIE_SECURE"):
            return True
        return has_request_context() and request.is_secure


def current_account() -> dict | None:
    """For templates: the signed-in account's email, name and emoji, or None."""
    uid = session.get("uid")
    if not uid:
        return None
    store = accounts().store
    user = store.user(uid)
    if user is None:
        return None
    name, emoji = store.known_player(uid) or (user.name, user.emoji)  # the name last chosen anywhere
    return {"email": user.email, "name": name, "emoji": emoji}


def init_app(app: Flask) -> None:
    if os.environ.get("SPADES_SESSION_COOKIE_SECURE", "").lower() in ("1", "true", "yes", "on"):
        app.config["SESSION_COOKIE_SECURE"] = True
    app.session_interface = SessionInterface()
    service_ = app.extensions["spades.tables"]
    idle_days = app.config.get("SESSION_IDLE_DAYS")
    app.extensions["spades.accounts"] = Accounts(service_.store, app.config["SECRET_KEY"],
                                                 idle_s=IDLE_S if idle_days is None else float(idle_days) * 24 * 3600)
    app.before_request(_check_session)
    app.jinja_env.globals["current_account"] = current_account
    app.register_blueprint(bp)
