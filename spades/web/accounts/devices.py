"""A person's devices and address: each signed-in device with its own Sign out, and
changing the account's email with a code sent to the new address.

Routes: ``POST /me/devices/<id>/signout`` (ends that device's session, whoever holds a
copy of its cookie, and closes its open sockets; a device is named by a keyed hash of its
session, never the session id), ``POST /me/email`` (``email``: mails a code to the new
address), ``POST /me/email/code`` (``code``: the address changes, and a notice goes to the
old one). Both sections are fragments of ``/me`` (``profile/_devices.html``,
``profile/_email.html``), filled by ``my_devices`` and ``email_change``.

A code to change the address is a sign-in code for the new address in every rule and
limit (``spades.accounts``: its codes an hour, its wrong tries in a row, the site's mail
for codes, the asks per client address), but it belongs to the change: it never signs
anyone in, and a sign-in code never changes an address. Each address keeps its own guard
row, so the old address's wrong tries or lock never pass to the new one, nor back.

The User-Agent a session signed in with is noted after the sign-in's response (once per
session, marked in it), to name the device in words (``device_words``).

Imports: Flask, ``spades.accounts``, ``spades.mail`` and the web layer's auth, allowance,
identity, limits and services (the accounts' own too).
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass

from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    flash,
    g,
    make_response,
    redirect,
    request,
    session,
    url_for,
)
from flask.typing import ResponseReturnValue
from werkzeug.wrappers import Response

from ...accounts import (
    CODE_TTL,
    BadCode,
    BadEmail,
    EmailTaken,
    Expired,
    NoCode,
    SameEmail,
    SignInError,
    WrongCode,
    normalize_email,
)
from ...mail import MailError
from ..site.allowance import Budget, take_code, tally
from ..site.identity import device, remember_device, trusted_for
from ..site.limits import hit, in_minutes, limiter
from ..site.services import accounts, hub, mailer
from .auth import ASK_PER_ADDRESS, ASK_PER_DEVICE, TRY_PER_ADDRESS, asker
from .services import note_agent

log = logging.getLogger(__name__)

bp = Blueprint("account_devices", __name__)

PENDING = "email_change"  # the session's key for the address a change waits on
NOTED = "agent_noted"  # the session's mark that its User-Agent is stored


# -- devices in words ---------------------------------------------------------------------
_BROWSERS = (  # the first that matches names the browser: those built on Chrome say Chrome too
    ("Edge", r"Edg(?:e|A|iOS)?/"), ("Opera", r"OPR/|Opera"), ("Samsung Internet", r"SamsungBrowser/"),
    ("Firefox", r"Firefox/|FxiOS/"), ("Chrome", r"Chrome/|CriOS/|Chromium/"), ("Safari", r"Safari/"),
)
_SYSTEMS = (
    ("iPhone", r"iPhone"), ("iPad", r"iPad"), ("Android", r"Android"), ("ChromeOS", r"CrOS"),
    ("Windows", r"Windows"), ("macOS", r"Mac OS X|Macintosh"), ("Linux", r"Linux|X11"),
)


def device_words(agent: str) -> str:
    """A browser and system in words, from a User-Agent.

    >>> device_words("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0")
    'Firefox on Windows'
    >>> device_words("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    ...              "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1")
    'Safari on iPhone'
    >>> device_words("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    ...              "Chrome/131.0.0.0 Mobile Safari/537.36")
    'Chrome on Android'
    >>> device_words("curl/8.5.0"), device_words("")
    ('A browser', 'A browser')
    """
    browser = next((name for name, pattern in _BROWSERS if re.search(pattern, agent)), None)
    system = next((name for name, pattern in _SYSTEMS if re.search(pattern, agent)), None)
    if browser and system:
        return f"{browser} on {system}"
    if browser or system:
        return f"{browser} browser" if browser else f"A browser on {system}"
    return "A browser"


def _day(epoch: float) -> str:
    return time.strftime("%-d %b %Y", time.gmtime(epoch))


@dataclass(frozen=True, slots=True)
class DeviceLine:
    """One device as ``/me`` lists it."""

    id: str
    words: str
    first: str
    last: str
    this: bool


def my_devices() -> list[DeviceLine]:
    """For ``/me``: the signed-in account's devices, this one first."""
    uid, sid = session.get("uid"), session.get("sid")
    if not uid:
        return []
    lines = [DeviceLine(d.id, device_words(d.agent), _day(d.created), _day(d.seen), d.sid == sid)
             for d in accounts().devices(uid)]
    return sorted(lines, key=lambda line: not line.this)


@dataclass(frozen=True, slots=True)
class EmailChange:
    """For ``/me``: the address a code was mailed to (empty: none waits), and a refusal."""

    pending: str
    error: str
    minutes: int


def email_change() -> EmailChange:
    return EmailChange(session.get(PENDING, ""), g.get("email_error", ""), CODE_TTL // 60)


def masked(email: str) -> str:
    """An address as a notice to another address shows it.

    >>> masked("nina@example.com")
    'n…@example.com'
    """
    local, _, domain = email.partition("@")
    return f"{local[:1]}…@{domain}"


# -- routes -------------------------------------------------------------------------------
def _me(error: str, status: int) -> ResponseReturnValue:
    """``/me`` again, with the address section saying why."""
    g.email_error = error
    response = make_response(current_app.view_functions["profile.me"]())
    response.status_code = status
    return response


def _signed_in() -> str | None:
    return session.get("uid")


@bp.post("/me/devices/<device>/signout")
def sign_out_device(device: str) -> ResponseReturnValue:
    """End one device's session (this one's too: then it is signed out, as by Sign out);
    its sockets close. 303 back to ``/me``; 404 for a device the account does not have."""
    uid = _signed_in()
    if not uid:
        return redirect(url_for("auth.signin"), 303)
    ended = accounts().end_device(uid, device[:64])
    if ended is None:
        abort(404)
    hub().signed_out(uid)  # each of the account's sockets looks its session up again, at once
    if ended.sid == session.get("sid"):
        session.clear()
        return redirect(url_for("lobby.home"), 303)
    flash(f"Signed out: {device_words(ended.agent)}.")
    return redirect(url_for("profile.me") + "#devices", 303)


@bp.post("/me/email")
@limiter.limit(ASK_PER_ADDRESS)
def ask_email() -> ResponseReturnValue:
    """Mail a code to the new address (``email``); 303 to ``/me``, where the code is typed."""
    uid = _signed_in()
    if not uid:
        return redirect(url_for("auth.signin"), 303)
    typed = request.form.get("email", "")[:300]
    try:
        email = normalize_email(typed)
    except BadEmail as e:
        return _me(str(e), 422)
    known = device()
    trusted = trusted_for(email)
    if known is not None and trusted:
        wait = hit(ASK_PER_DEVICE, known.id, "email-ask-device")
        if wait is not None:
            return _me(f"Too many tries. Try again in {in_minutes(wait)}.", 429)
    elif (full := take_code(email, dry=True)) is not None:
        return _mail_full(*full)
    try:
        email, code = accounts().ask_email_change(uid, email, asker(), trusted)
    except EmailTaken as e:
        return _me(str(e), 409)
    except SameEmail as e:
        return _me(str(e), 422)
    except SignInError as e:  # too many codes or tries for that address: its sign-in limits
        return _me(str(e), 429)
    if trusted:
        tally("known")
    elif (full := take_code(email)) is not None:
        return _mail_full(*full)
    try:
        mailer().send(email, "Your Spades code to change your address", _code_text(code))
    except MailError as e:
        return _me(str(e), 503)
    session[PENDING] = email
    return redirect(url_for("profile.me") + "#email", 303)


@bp.post("/me/email/code")
@limiter.limit(TRY_PER_ADDRESS)
def confirm_email() -> ResponseReturnValue:
    """The code from the new address's mail: the account takes that address (303 to
    ``/me``), and the old address is told. The address is the one this session asked for."""
    uid, email = _signed_in(), session.get(PENDING)
    if not uid or not email:
        return redirect(url_for("profile.me"), 303)
    try:
        old = accounts().change_email(uid, email, asker(), request.form.get("code", "")[:32], trusted_for(email))
    except EmailTaken as e:
        session.pop(PENDING, None)
        return _me(str(e), 409)
    except (BadCode, WrongCode) as e:
        return _me(str(e), 422)
    except (Expired, NoCode) as e:
        return _me(str(e), 410)
    except SignInError as e:  # out of tries, or the address closed
        return _me(str(e), 429)
    session.pop(PENDING, None)
    try:
        mailer().send(old, "Your Spades address was changed", _notice_text(email))
    except MailError:  # the change is made; the notice cannot be taken back nor held
        log.warning("the notice of an address change could not be mailed to the old address")
    flash(f"Your address is now {email}.")
    return remember_device(redirect(url_for("profile.me") + "#email", 303), email)


@bp.post("/me/email/cancel")
def cancel_email() -> Response:
    """Forget the address a code was mailed to (its code is never used)."""
    session.pop(PENDING, None)
    return redirect(url_for("profile.me") + "#email", 303)


def _mail_full(budget: Budget, seconds: float) -> ResponseReturnValue:
    """No mail for this code this hour: say when to try again (as sign-in does)."""
    tally("refused")
    status = 429 if budget.scope.endswith("-network") else 503
    return _me(f"The site cannot mail a code to that address now. Try again in {in_minutes(seconds)}.", status)


def _code_text(code: str) -> str:
    return (f"Your code to make this the address of your Spades account is\n\n    {code}\n\n"
            f"Type it on your page where you asked for it. It works once, for {CODE_TTL // 60} minutes.\n"
            "If you did not ask for it, ignore this mail: your address is not used without the code.\n")


def _notice_text(new: str) -> str:
    return (f"Your Spades account's address was changed to {masked(new)}.\n\n"
            "Sign-in codes now go to the new address. If this was not you, someone signed in as you changed "
            "it: reply to this mail so the people who run the site can give the account back to you.\n")


@bp.after_app_request
def _note_agent(response: Response) -> Response:
    """Keep the User-Agent a signed-in session began with, once per session."""
    sid = session.get("sid")
    if sid and session.get("uid") and not session.get(NOTED):
        note_agent(sid, request.headers.get("User-Agent", ""))
        session[NOTED] = 1
    return response


def init_app(app: Flask) -> None:
    app.jinja_env.globals.update(my_devices=my_devices, email_change=email_change)
    app.register_blueprint(bp)


__all__ = ["bp", "device_words", "init_app", "masked", "my_devices"]
