"""Security headers on every answer: scripts from this site only, never framed, no type
sniffing, and referrers kept to this site; HSTS on https; and no caching of the answers
that are one person's.

The pages have no inline script and no ``hx-on`` handlers (htmx never needs ``eval``
here); styles may be inline (attributes), and images may be inline SVG or ``data:``.
WebSockets go back to this site only.

``Cache-Control: no-store`` on every answer of the areas whose answers carry a person's
cards or account (``NO_STORE``): the table page and its fragments (htmx answers to moves
and every command), ``view.json``, ``record.json``, the hint, the replay and score sheet, the analysis,
the sign-in pages and the profile; so neither a shared computer's cache nor its back
button keeps a hand. ``Strict-Transport-Security`` only on a request that came over https
(``request.is_secure``, which follows ``X-Forwarded-Proto`` when ProxyFix is set up).

Imports: Flask only.
"""

from __future__ import annotations

from flask import Flask, Response, request

POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
])
HSTS = "max-age=31536000; includeSubDomains"
NO_STORE = frozenset({"table", "replay", "analysis", "auth", "profile"})  # blueprints whose answers are one person's


def secure(response: Response) -> Response:
    headers = response.headers
    headers.setdefault("Content-Security-Policy", POLICY)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("Referrer-Policy", "same-origin")
    if request.is_secure:
        headers.setdefault("Strict-Transport-Security", HSTS)
    if request.blueprint in NO_STORE:
        headers["Cache-Control"] = "no-store"
    return response


def init_app(app: Flask) -> None:
    app.after_request(secure)
