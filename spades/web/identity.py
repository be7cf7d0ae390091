"""Who is this browser: a player id in Flask's signed session cookie, and CSRF tokens.

Without sign-in, a random player id in the (itsdangerous-signed) session identifies the
browser, so the same browser always gets its seat back. Every state-changing POST carries
the session's CSRF token: a hidden ``csrf`` field in forms, the ``X-CSRF-Token`` header
from HTMX (set once with ``hx-headers`` on the page body). Tokens are compared as UTF-8
bytes, so any text at all (``é``, a lone surrogate) is a 400 with the usual words, never
an error.

Imports: Flask only.
"""

from __future__ import annotations

import hmac
import secrets

from flask import Flask, abort, request, session

CSRF_FIELD = "csrf"
CSRF_HEADER = "X-CSRF-Token"
CSRF_MESSAGE = "This form has expired. Reload the page and try again."


def player_id(create: bool = False) -> str | None:
    """This browser's player id; with ``create``, one is made on first need."""
    pid = session.get("pid")
    if pid is None and create:
        pid = secrets.token_urlsafe(16)
        session["pid"] = pid
        session.permanent = True
    return pid


def csrf_token() -> str:
    """The session's CSRF token (created on first use)."""
    token = session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
        session.permanent = True
    return token


def _utf8(text: object) -> bytes:
    """Any text as bytes, never raising (``compare_digest`` refuses non-ASCII ``str``)."""
    return str(text).encode("utf-8", "surrogatepass")


def _check_csrf() -> None:
    if request.method != "POST":
        return
    expected = session.get("csrf")
    given = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD) or ""
    if not expected or not hmac.compare_digest(_utf8(expected), _utf8(given)):
        abort(400, description=CSRF_MESSAGE)


def init_app(app: Flask) -> None:
    app.before_request(_check_csrf)
    app.jinja_env.globals["csrf_token"] = csrf_token
