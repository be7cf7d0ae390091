"""Friendly error pages: unknown codes (404), malformed input (400), too many (429, with
Retry-After), the other servers out of reach (503 "try again": Redis does not answer and
the request needed it), and never a bare 500.

Imports: Flask, redis (its connection errors) and ``spades.tables`` (``Unreachable``).
"""

from __future__ import annotations

import logging

from flask import Flask, current_app, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError, SecurityError

from ...tables.cluster import DOWN
from ...tables.outage import UNREACHABLE, Unreachable

log = logging.getLogger(__name__)

TITLES = {400: "That did not look right", 403: "Not your seat", 404: "Nothing here",
          405: "Not like that", 413: "Too much", 429: "Slow down", 503: "Try again in a moment"}
RETRY_AFTER_S = 5  # what a 503 "try again" asks for: about how soon a Redis restart is noticed


def _page(status: int, message: str | None):
    body = render_template("errors/error.html", status=status, title=TITLES.get(status, "Something went wrong"),
                           message=message)
    return body, status


def handle_http(e: HTTPException):
    if e.code is None or e.code < 400:
        return e
    if isinstance(e, InternalServerError):
        return handle_any(e.original_exception or e)
    if isinstance(e, SecurityError):  # a Host not in TRUSTED_HOSTS: no link can be built for it
        return "This site is not served at that address.", 400, {"Content-Type": "text/plain; charset=utf-8"}
    message = e.description if e.code != 404 or "table" in (e.description or "") else \
        "There is no page at this address. Check the table code, or start a new game."
    retry_after = getattr(e, "retry_after", None)
    headers = {"Retry-After": str(retry_after)} if isinstance(retry_after, int) else {}
    if request.headers.get("HX-Request"):
        # htmx shows this in the status line instead of swapping a whole page in
        return render_template("errors/_problem.html", message=message), e.code, headers
    return (*_page(e.code, message), headers)


def handle_unreachable(e: Exception):
    """Redis does not answer and this request needed it (a table another process owns, a
    tourney's lock): 503, "try again". The outage itself is logged once, not here."""
    if not isinstance(e, Unreachable):  # a path that met Redis without the tracker: it hears of it now
        cluster = getattr(current_app.extensions.get("spades.tables"), "cluster", None)
        if cluster is not None:
            cluster.outage.failed(e)
        else:
            log.warning("Redis did not answer on %s %s: %s", request.method, request.path, e)
    headers = {"Retry-After": str(RETRY_AFTER_S)}
    if request.headers.get("HX-Request"):
        return render_template("errors/_problem.html", message=UNREACHABLE), 503, headers
    return (*_page(503, UNREACHABLE), headers)


def handle_any(e: BaseException):
    log.exception("unhandled error on %s %s", request.method, request.path, exc_info=e)
    try:
        return _page(500, "Something went wrong on our side. The table is saved; reload to carry on.")
    except Exception:  # the template itself failed: still answer in words, not a stack trace
        return "Something went wrong on our side. Reload to carry on.", 500


def init_app(app: Flask) -> None:
    app.register_error_handler(HTTPException, handle_http)
    app.register_error_handler(Unreachable, handle_unreachable)
    for error in DOWN:
        app.register_error_handler(error, handle_unreachable)
    app.register_error_handler(Exception, handle_any)
