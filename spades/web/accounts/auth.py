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

The checks, the limits, the mail and the store's reads and writes are ``auth_service``'s;
these routes read the request, call it, write the session's cookie and answer.

Imports: Flask and friends, ``spades.accounts`` (made here for the app) and the web
layer's allowance, identity, limits and services (the accounts' own too).
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

from ...accounts import CODE_TTL, IDLE_S, Accounts
from ..site.allowance import HOUR, mail_figures, mail_hour, mail_shares
from ..site.identity import csrf_token, device, player_id, remember_device, trusted_for
from ..site.limits import limiter
from ..site.services import admin_only
from . import auth_service
from .auth_service import ASK_PER_ADDRESS, ASK_PER_DEVICE, TRY_PER_ADDRESS, SignedIn, StepRefusal, held_up

bp = Blueprint("auth", __name__)


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


def _refused(said: StepRefusal):
    """A refusal on its step's page (the address it holds from now on kept in the session)."""
    if said.hold is not None:
        session["signin_email"] = said.hold
    if said.on_code_form:
        page, status = _code_page(said.message, said.status, offer_new=said.offer_new)
    else:
        page, status = _signin_page(said.message, said.status, email=said.email)
    return (page, status, dict(said.headers)) if said.headers else (page, status)


@bp.get("/signin")
def signin():
    return _signin_page()


@bp.post("/signin")
@limiter.limit(ASK_PER_ADDRESS)
def ask_code():
    """Mail a code to the address typed; 303 to the code form. The same answer for every
    well-formed address, known or not."""
    known = device()
    asked = auth_service.ask_for_code(request.form.get("email", ""), session.get("signin_email"),
                                      known.id if known is not None else None, trusted_for, asker)
    if isinstance(asked, StepRefusal):
        return _refused(asked)
    session["signin_email"] = asked
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
    done = auth_service.sign_in_with_code(email, asker(), request.form.get("code", "")[:32], trusted_for(email),
                                          None if signed_in() else player_id(), session.get("name", ""),
                                          session.get("emoji", ""))
    if isinstance(done, StepRefusal):
        return _refused(done)
    _start_session(done)
    # an account without a name of its own is asked for one (prefilled with the name it
    # used at a table) before anything shows it to friends as nobody in particular
    after = "profile.games" if done.named else "profile.name_step"
    return remember_device(redirect(url_for(after), 303), email)


@bp.post("/signout")
def signout():
    auth_service.sign_out(session.get("sid"), session.get("uid"))
    session.clear()
    return redirect(url_for("lobby.home"), 303)


@bp.post("/signout/everywhere")
def signout_everywhere():
    auth_service.sign_out_everywhere(session.get("uid"))
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


def _held_up(seconds: float):
    """The page of the step, saying when to try again."""
    if request.endpoint == "auth.check_code":
        return _code_page(held_up(seconds), 429)
    return _signin_page(held_up(seconds), 429)


# -- helpers ---------------------------------------------------------------------------
def _start_session(signed: SignedIn) -> None:
    """A new session for the account: nothing of the old one is kept (a new CSRF token)."""
    session.clear()
    session["pid"] = signed.uid
    session["uid"] = signed.uid
    session["gen"] = signed.gen
    session["sid"] = signed.sid
    if signed.name:
        session["name"] = signed.name
    if signed.emoji:
        session["emoji"] = signed.emoji
    session.permanent = True
    csrf_token()


def _check_session() -> None:
    """Clear a session that was signed out everywhere (or whose account is gone), and an
    anonymous cookie that somehow carries an account's player id."""
    if request.endpoint == "static":
        return  # a stylesheet needs no identity (and costs no query)
    if auth_service.session_ended(session.get("uid"), session.get("gen"), session.get("sid"), session.get("pid")):
        session.clear()


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, Secure also when this request came over https."""

    def get_cookie_secure(self, app: Flask) -> bool:
        if app.config.get("SESSION_COOKIE_SECURE"):
            return True
        return has_request_context() and request.is_secure


def current_account() -> dict | None:
    """For templates: the signed-in account's email, name and emoji, or None."""
    return auth_service.account_of(session.get("uid"))


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


__all__ = ["ASK_PER_ADDRESS", "ASK_PER_DEVICE", "TRY_PER_ADDRESS", "asker", "bp", "current_account", "init_app",
           "signed_in"]
