"""Security headers on every answer: scripts from this site only, never framed, no type
sniffing, and referrers kept to this site.

The pages have no inline script and no ``hx-on`` handlers (htmx never needs ``eval``
here); styles may be inline (attributes), and images may be inline SVG or ``data:``.
WebSockets go back to this site only.

Imports: Flask only.
"""

from __future__ import annotations

from flask import Flask, Response

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


def secure(response: Response) -> Response:
    headers = response.headers
    headers.setdefault("Content-Security-Policy", POLICY)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("Referrer-Policy", "same-origin")
    return response


def init_app(app: Flask) -> None:
    app.after_request(secure)
