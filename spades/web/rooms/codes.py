"""Table codes as pages and links carry them: their shape, cleaning a typed or linked
code, and the one rate limit on trying codes that every route naming a table shares (the
lobby's join forms, the table's pages, replays, analyses, the WebSocket).

Imports: Flask, ``spades.tables`` (the refusal's words) and the web layer's limiter.
"""

from __future__ import annotations

import re

from flask import abort

from ...tables import NO_TABLE
from ..site.limits import limiter

CODE_RE = re.compile(r"^[A-Za-z0-9]{4,8}$")
JOIN_LIMIT = "20 per minute"
JOIN_LIMIT_MESSAGE = "Too many join attempts. Wait a minute and try again."
# one counter for every way of trying a code: the link, the home page box, the join form
join_limit = limiter.shared_limit(JOIN_LIMIT, scope="join", error_message=JOIN_LIMIT_MESSAGE)
# Unknown codes count against the same limit as join attempts: the table page must not be
# a way round it to enumerate codes (a page that exists costs nothing).
unknown_codes_limit = limiter.shared_limit(JOIN_LIMIT, scope="join", error_message=JOIN_LIMIT_MESSAGE,
                                           deduct_when=lambda response: response.status_code == 404)


def clean_code(text: str | None) -> str:
    """A typed or linked code in capitals, spaces and dashes dropped; a 404 for anything
    that cannot be a code (case does not matter: codes are shown in capitals)."""
    code = re.sub(r"[\s-]", "", text or "").upper()
    if not CODE_RE.match(code):
        abort(404, description=NO_TABLE)
    return code


def normalize_code(code: str) -> str:
    """The table code in capitals; a 404 for anything that cannot be a code."""
    if not CODE_RE.match(code):
        abort(404, description=NO_TABLE)
    return code.upper()
