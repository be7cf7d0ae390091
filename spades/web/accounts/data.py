"""A person's own data to take away: ``GET /me/data.json``, everything the site keeps
about the signed-in person in one JSON document (``spades.account_export``), downloaded
as a file (``Content-Disposition: attachment``) that no cache keeps (``no-store``).

Signed out, the answer is 403 with a sentence: the document is an account's, and a
browser without one has nothing kept beyond what its own pages show. A person may
download it ``DOWNLOADS_PER_PERSON``; past that, 429 with Retry-After and a sentence.

Imports: Flask, ``spades.account_export`` and the web layer's services.
"""

from __future__ import annotations

import json
import math
import time

from flask import Blueprint, Flask, Response, render_template, session
from werkzeug.exceptions import TooManyRequests

from ...account_export import export_account
from ..site.limits import hit
from ..site.services import accounts

bp = Blueprint("account_data", __name__)

DOWNLOADS_PER_PERSON = "5 per hour"
SIGN_IN_FIRST = "Sign in to download your data: it is kept with your account."


def _signed_out() -> tuple[str, int]:
    return render_template("errors/error.html", status=403, title="Sign in first", message=SIGN_IN_FIRST), 403


def _too_many(wait: float) -> TooManyRequests:
    """The refusal past the limit: the sentence, and Retry-After in whole seconds."""
    minutes = max(1, math.ceil(wait / 60))
    return TooManyRequests(f"You have downloaded your data {DOWNLOADS_PER_PERSON.split()[0]} times this hour: "
                           f"try again in {minutes} minute{'s' if minutes != 1 else ''}.",
                           retry_after=math.ceil(wait))


@bp.get("/me/data.json")
def download():
    """The signed-in person's data as one JSON file (see the module docstring)."""
    uid = session.get("uid")
    if not uid:
        return _signed_out()
    wait = hit(DOWNLOADS_PER_PERSON, uid, "account-data")
    if wait is not None:
        raise _too_many(wait)
    document = export_account(accounts().store, uid)
    if document is None:  # the account went away since this session began
        return _signed_out()
    day = time.strftime("%Y-%m-%d", time.gmtime(document["exported"]))
    body = json.dumps(document, ensure_ascii=False, indent=1)
    return Response(body, mimetype="application/json", headers={
        "Cache-Control": "no-store",
        "Content-Disposition": f'attachment; filename="spades-data-{day}.json"',
    })


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


__all__ = ["bp", "init_app"]
