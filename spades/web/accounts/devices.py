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

The devices in words, the checks, the limits and the mail are ``devices_service``'s;
these routes read the request, call it and answer.

Imports: Flask, ``spades.accounts`` (the codes' lifetime) and the web layer's auth,
identity, limits and the accounts' services.
"""

from __future__ import annotations

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

from ...accounts import CODE_TTL
from ..site.identity import device, remember_device, trusted_for
from ..site.limits import limiter
from . import devices_service
from .auth import ASK_PER_ADDRESS, TRY_PER_ADDRESS, asker
from .devices_service import DeviceLine, EmailRefusal, device_words, masked
from .profile_service import DEVICES, EMAIL
from .services import note_agent

bp = Blueprint("account_devices", __name__)

PENDING = "email_change"  # the session's key for the address a change waits on
NOTED = "agent_noted"  # the session's mark that its User-Agent is stored


def my_devices() -> list[DeviceLine]:
    """For ``/me``: the signed-in account's devices, this one first."""
    return devices_service.devices_of(session.get("uid"), session.get("sid"))


@dataclass(frozen=True, slots=True)
class EmailChange:
    """For ``/me``: the address a code was mailed to (empty: none waits), and a refusal."""

    pending: str
    error: str
    minutes: int


def email_change() -> EmailChange:
    return EmailChange(session.get(PENDING, ""), g.get("email_error", ""), CODE_TTL // 60)


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
    ended = devices_service.sign_out_device(uid, device, session.get("sid"))
    if ended is None:
        abort(404)
    if ended.this:
        session.clear()
        return redirect(url_for("lobby.home"), 303)
    flash(f"Signed out: {ended.words}.", DEVICES)
    return redirect(url_for("profile.me") + "#devices", 303)


@bp.post("/me/email")
@limiter.limit(ASK_PER_ADDRESS)
def ask_email() -> ResponseReturnValue:
    """Mail a code to the new address (``email``); 303 to ``/me``, where the code is typed."""
    uid = _signed_in()
    if not uid:
        return redirect(url_for("auth.signin"), 303)
    known = device()
    asked = devices_service.ask_change(uid, request.form.get("email", "")[:300],
                                       known.id if known is not None else None, trusted_for, asker)
    if isinstance(asked, EmailRefusal):
        return _me(asked.message, asked.status)
    session[PENDING] = asked
    return redirect(url_for("profile.me") + "#email", 303)


@bp.post("/me/email/code")
@limiter.limit(TRY_PER_ADDRESS)
def confirm_email() -> ResponseReturnValue:
    """The code from the new address's mail: the account takes that address (303 to
    ``/me``), and the old address is told. The address is the one this session asked for."""
    uid, email = _signed_in(), session.get(PENDING)
    if not uid or not email:
        return redirect(url_for("profile.me"), 303)
    said = devices_service.confirm_change(uid, email, asker(), request.form.get("code", "")[:32],
                                          trusted_for(email))
    if isinstance(said, EmailRefusal):
        if said.forget:
            session.pop(PENDING, None)
        return _me(said.message, said.status)
    session.pop(PENDING, None)
    flash(said, EMAIL)
    return remember_device(redirect(url_for("profile.me") + "#email", 303), email)


@bp.post("/me/email/cancel")
def cancel_email() -> Response:
    """Forget the address a code was mailed to (its code is never used)."""
    session.pop(PENDING, None)
    return redirect(url_for("profile.me") + "#email", 303)


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
