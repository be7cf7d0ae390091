"""Security headers on every answer: scripts from this site only, never framed, no type
sniffing, and referrers kept to this site; HSTS on https; and no caching of the answers
that are one person's.

The pages have no inline script and no ``hx-on`` handlers (htmx never needs ``eval``
here); styles may be inline (attributes), and images may be inline SVG or ``data:``.
WebSockets go back to this site only.

``Cache-Control: no-store`` on every answer of the areas whose answers carry a person's
cards, account or lists (``NO_STORE``): the table page and its fragments (htmx answers to
moves and every command), ``view.json``, ``record.json``, the hint, the replay and score
sheet, the analysis, the table's chat, the sign-in pages, the profile and the people one
plays with, the your-turn list and the push subscription, and every page of a circle (its
members, the owner's secret invite link, the join page, its weeks of boards, its game
nights and their ``.ics`` files, its table form); and on the home page, the join
and new-table forms and the tourney pages (``NO_STORE_KNOWN``) once the browser is
someone (a player id or an account in its session): they then show that person's Rejoin
list, name and registrations. A new visitor's home page, like the rules, the fairness
page and the static files, may be kept (the app on a phone shows it offline). So neither
a shared computer's cache nor its back button keeps a hand or a person's lists.
``Strict-Transport-Security`` only on a request that came over https
(``request.is_secure``, which follows ``X-Forwarded-Proto`` when ProxyFix is set up).

Imports: Flask only.
"""

from __future__ import annotations

from flask import Flask, Response, request, session

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
# blueprints whose answers are one person's
NO_STORE = frozenset({"table", "replay", "analysis", "auth", "profile", "talk", "people", "notices", "push",
                      "circles", "boards", "nights"})
# ... and those whose answers are one person's once the browser is someone
NO_STORE_KNOWN = frozenset({"lobby", "tourney"})


def secure(response: Response) -> Response:
    headers = response.headers
    headers.setdefault("Content-Security-Policy", POLICY)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("Referrer-Policy", "same-origin")
    if request.is_secure:
        headers.setdefault("Strict-Transport-Security", HSTS)
    if request.blueprint in NO_STORE or (request.blueprint in NO_STORE_KNOWN and _someone()):
        headers["Cache-Control"] = "no-store"
    return response


def _someone() -> bool:
    """The session names a person (a browser's player id, or an account)."""
    return bool(session.get("pid") or session.get("uid"))


def init_app(app: Flask) -> None:
    app.after_request(secure)
