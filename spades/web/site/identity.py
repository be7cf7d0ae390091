"""Who is this browser: a player id in Flask's signed session cookie, CSRF tokens, and the
device cookie that says which addresses this browser signed in to before.

Without sign-in, a random player id in the (itsdangerous-signed) session identifies the
browser, so the same browser always gets its seat back. Every state-changing POST carries
the session's CSRF token: a hidden ``csrf`` field in forms, the ``X-CSRF-Token`` header
from HTMX (set once with ``hx-headers`` on the page body). Tokens are compared as UTF-8
bytes, so any text at all (``é``, a lone surrogate) is a 400 with the usual words, never
an error. A view marked ``csrf_exempt`` is reached without one: its URL carries its own
signed proof (the one-click stop link of a notice mail, posted by a mail program).

A person who never chose an emoji is offered one their player id picks, and not one
already taken at the table they join (``default_emoji``).

The device cookie (``spades_device``, sent to the ``/signin`` and ``/j`` (join) pages only,
HttpOnly, SameSite Lax, Secure as the session is, for ``DEVICE_DAYS``): an
itsdangerous-signed list of the last ``DEVICE_EMAILS`` addresses this browser signed in to
and a random device id, set when it signs in (one copy for each of ``DEVICE_PATHS``). It
holds nothing secret beyond those, and grants nothing by itself: it lets the browser past
the per-address limits that strangers' requests could fill (``spades.accounts``), and it
keeps a person someone blocked out of the blocker's tables on a browser where they signed
in, after they sign out too (``spades.web.rooms.lobby``). A forged, stale or garbled one is
ignored.

Imports: Flask (with werkzeug) and itsdangerous only.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar, overload

from flask import Flask, abort, current_app, request, session
from itsdangerous import BadData, URLSafeTimedSerializer
from werkzeug.wrappers import Response

CSRF_FIELD = "csrf"
CSRF_HEADER = "X-CSRF-Token"
CSRF_MESSAGE = "This form has expired. Reload the page and try again."

DEVICE_COOKIE = "spades_device"
DEVICE_PATH = "/signin"  # the sign-in pages ...
DEVICE_PATHS = (DEVICE_PATH, "/j")  # ... and the join pages, and no other request, carry it
DEVICE_DAYS = 400  # browsers keep a cookie 400 days at most
DEVICE_EMAILS = 5  # addresses one browser remembers
_DEVICE_SALT = "spades-device"
View = TypeVar("View", bound=Callable)


@overload
def player_id(create: Literal[True]) -> str: ...
@overload
def player_id(create: bool = False) -> str | None: ...
def player_id(create: bool = False) -> str | None:
    """This browser's player id; with ``create``, one is made on first need."""
    pid = session.get("pid")
    if pid is None and create:
        pid = secrets.token_urlsafe(16)
        session["pid"] = pid
        session["day"] = _today()
        session.permanent = True
    return pid


def default_emoji(choices: Sequence[str], taken: Iterable[str] = ()) -> str:
    """The emoji a form offers a person who never chose one: the first of ``choices`` not
    ``taken`` (the emoji of the people already at the table), counting from a place this
    browser's player id picks (a random one for a browser without an id yet), so that
    friends do not all start with the same one."""
    pid = player_id()
    start = (int.from_bytes(hashlib.sha256(pid.encode()).digest()[:4], "big") if pid
             else secrets.randbelow(len(choices))) % len(choices)
    used = set(taken)
    order = [choices[(start + n) % len(choices)] for n in range(len(choices))]
    return next((e for e in order if e not in used), order[0])


def csrf_token() -> str:
    """The session's CSRF token (created on first use)."""
    token = session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
        session.permanent = True
    return token


def _day_of_use() -> None:
    """A browser that is someone (a player id, an account) gets its session cookie again on
    its first request of each day (UTC): the cookie lasts ``PERMANENT_SESSION_LIFETIME``
    (``SESSION_IDLE_DAYS``) from its last day of use, as the server's idle sign-out counts,
    though it is not sent with every answer."""
    if request.endpoint == "static" or not (session.get("pid") or session.get("uid")):
        return
    today = _today()
    if session.get("day") != today:
        session["day"] = today


def _today() -> int:
    return int(time.time() // 86400)


def _utf8(text: object) -> bytes:
    """Any text as bytes, never raising (``compare_digest`` refuses non-ASCII ``str``)."""
    return str(text).encode("utf-8", "surrogatepass")


def csrf_exempt(view: View) -> View:
    """Mark a view whose POSTs need no CSRF token: only for one that checks a signed token
    of its own in its URL (a cross-site POST could not forge it either)."""
    view.csrf_exempt = True  # type: ignore[attr-defined]
    return view


def _check_csrf() -> None:
    if request.method != "POST":
        return
    if getattr(current_app.view_functions.get(request.endpoint or ""), "csrf_exempt", False):
        return
    expected = session.get("csrf")
    given = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD) or ""
    if not expected or not hmac.compare_digest(_utf8(expected), _utf8(given)):
        abort(400, description=CSRF_MESSAGE)


# -- the device cookie -----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Device:
    """What this browser's device cookie says: its id and the addresses it signed in to."""

    id: str
    emails: tuple[str, ...]


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=_DEVICE_SALT)


def device() -> Device | None:
    """This browser's device cookie, if it carries a valid one."""
    raw = request.cookies.get(DEVICE_COOKIE)
    if not raw or len(raw) > 4096:
        return None
    try:
        data = _serializer().loads(raw, max_age=DEVICE_DAYS * 24 * 3600)
    except (BadData, UnicodeError, ValueError, TypeError):
        return None
    if not isinstance(data, dict):
        return None
    did, emails = data.get("d"), data.get("e")
    if not isinstance(did, str) or not isinstance(emails, list) or not all(isinstance(e, str) for e in emails):
        return None
    return Device(did, tuple(emails))


def trusted_for(email: str) -> bool:
    """Whether this browser signed in to ``email`` before (its device cookie says so)."""
    known = device()
    return known is not None and email in known.emails


def remember_device(response: Response, email: str) -> Response:
    """Set the device cookie on ``response``: ``email`` first among the addresses this
    browser signed in to, its id kept (or made)."""
    known = device()
    did = known.id if known else secrets.token_urlsafe(12)
    emails = [email, *(e for e in (known.emails if known else ()) if e != email)][:DEVICE_EMAILS]
    config = current_app.config
    value = _serializer().dumps({"d": did, "e": emails})
    for path in DEVICE_PATHS:
        response.set_cookie(DEVICE_COOKIE, value, max_age=DEVICE_DAYS * 24 * 3600, path=path, httponly=True,
                            samesite="Lax", secure=bool(config.get("SESSION_COOKIE_SECURE")) or request.is_secure)
    return response


def init_app(app: Flask) -> None:
    app.before_request(_check_csrf)
    app.before_request(_day_of_use)
    app.jinja_env.globals["csrf_token"] = csrf_token
