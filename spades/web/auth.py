"""Signing in with an emailed code (optional: everything works without it), signing out,
and signing out on every device.

``/signin`` asks for an email and mails a six-digit code; ``/signin/code`` takes the code.
The answer to ``/signin`` is the same whether or not the address has an account (a code
is sent either way; the account is made when it is used).

Limits (flask-limiter, ``spades.web.limits``) are set so that a stranger can neither
guess a person's code nor keep them from signing in:

- A code belongs to the browser that asked for it (``signin_asker`` in the session): only
  that browser may try it, five tries at most (``spades.accounts``), and asking again voids
  only that browser's code. A stranger's wrong tries lock out the stranger's browser only.
- The client address is throttled first (a few requests in two minutes, and an hourly
  cap, ``ASK_PER_ADDRESS``/``TRY_PER_ADDRESS``); only a request its address let through is
  counted against the email address (``ASK_PER_EMAIL``/``TRY_PER_EMAIL``), whose budget is
  more than twice what one address can send in its window. So no single address can fill
  an email's budget, and when many addresses together do, the email is held up for two
  minutes at most. Guessing stays bounded: 30 tries an hour per address, five per code.

A signed-in session holds ``pid`` (the account's canonical player id, so its seats follow
the person to any browser), ``uid`` and ``gen`` (the account's session generation).
Signing in clears the session and starts a new one with a new CSRF token. Every request
checks ``gen`` against the database, so "sign out on every device" ends all sessions.
Cookies are HttpOnly and SameSite=Lax, and Secure when ``SESSION_COOKIE_SECURE`` is set
(env ``SPADES_SESSION_COOKIE_SECURE=1``) or the request came over https.

Imports: Flask and friends, ``spades.accounts``, ``spades.mail``, ``spades.tables``.
"""

from __future__ import annotations

import logging
import os
import secrets
import time

from flask import Blueprint, Flask, has_request_context, redirect, render_template, request, session, url_for
from flask.sessions import SecureCookieSessionInterface
from flask_limiter.errors import RateLimitExceeded

from ..accounts import (
    CODE_TTL,
    Accounts,
    BadCode,
    BadEmail,
    Expired,
    NoCode,
    SignInError,
    TooManyTries,
    WrongCode,
    normalize_email,
)
from ..mail import MailError
from .identity import csrf_token, player_id
from .limits import hit, limiter
from .services import accounts, hub, mailer, service

log = logging.getLogger(__name__)

bp = Blueprint("auth", __name__)

ASK_PER_ADDRESS = "5 per 2 minutes;20 per hour"
ASK_PER_EMAIL = "12 per 2 minutes"  # > 2 x 5: one address, even across two of its windows, never fills it
TRY_PER_ADDRESS = "10 per 2 minutes;30 per hour"
TRY_PER_EMAIL = "25 per 2 minutes"  # > 2 x 10


def signed_in() -> bool:
    return bool(session.get("uid"))


def _asker() -> str:
    """This browser's sign-in id: the codes it asks for are its own to try."""
    if "signin_asker" not in session:
        session["signin_asker"] = secrets.token_urlsafe(16)
    return session["signin_asker"]


def _email_held_up(limit: str, scope: str, email: str):
    """Count this request, already let through by its address's limit, against the email
    address's budget: None within it, else the page saying how long to wait."""
    wait = hit(limit, email, scope)
    return None if wait is None else _held_up(wait)


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
        held_up = _email_held_up(ASK_PER_EMAIL, "signin-ask-email", email)
        if held_up:
            return held_up
        code = accounts().request_code(email, _asker())
    except BadEmail as e:
        return _signin_page(str(e), 422, email=typed[:254])
    except TooManyTries as e:
        session["signin_email"] = normalize_email(typed)
        return _code_page(str(e), 429)
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
    """Sign in with the code; 303 home. Refusals re-show the form with the reason. The
    email's limit counts the address the code was sent to, as this session holds it
    (never a form field, which a guesser could vary to dodge the limit)."""
    email = session.get("signin_email")
    if not email:
        return redirect(url_for("auth.signin"), 303)
    held_up = _email_held_up(TRY_PER_EMAIL, "signin-try-email", email)
    if held_up:
        return held_up
    try:
        accounts().check_code(email, _asker(), request.form.get("code", "")[:32])
    except (BadCode, WrongCode) as e:
        return _code_page(str(e), 422)
    except (Expired, NoCode) as e:
        return _code_page(str(e), 410, offer_new=True)
    except TooManyTries as e:
        return _code_page(str(e), 429, offer_new=False)
    except SignInError as e:  # pragma: no cover - every refusal is listed above
        return _code_page(str(e), 400)
    anon = None if signed_in() else player_id()
    user, moved = accounts().sign_in(email, anon, session.get("name", ""), session.get("emoji", ""))
    if anon:
        service().reload_seats(moved, {anon: user.id})
        hub().rebind(anon, user.id)  # this browser's open tables follow it into the account
    name, emoji = accounts().store.known_player(user.id) or (user.name, user.emoji)
    _start_session(user.id, user.session_gen, name, emoji)
    return redirect(url_for("profile.games"), 303)


@bp.post("/signout")
def signout():
    accounts().end_session(session.get("sid"))  # a copied cookie is signed out too
    session.clear()
    return redirect(url_for("lobby.home"), 303)


@bp.post("/signout/everywhere")
def signout_everywhere():
    uid = session.get("uid")
    if uid:
        accounts().sign_out_everywhere(uid)
    session.clear()
    return redirect(url_for("lobby.home"), 303)


@bp.errorhandler(RateLimitExceeded)
def _too_many(e: RateLimitExceeded):
    """An address's limit hit: the page of the step, saying when to try again."""
    limit = limiter.current_limit
    return _held_up((limit.reset_at if limit else time.time() + 60) - time.time())


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
    app.extensions["spades.accounts"] = Accounts(service_.store, app.config["SECRET_KEY"])
    app.before_request(_check_session)
    app.jinja_env.globals["current_account"] = current_account
    app.register_blueprint(bp)
