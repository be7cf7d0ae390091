"""A person's own data to take away: ``GET /me/data.json``, everything the site keeps
about the signed-in person in one JSON document (``spades.account_export``), downloaded
as a file (``Content-Disposition: attachment``) that no cache keeps (``no-store``).

Signed out, the answer is 403 with a sentence: the document is an account's, and a
browser without one has nothing kept beyond what its own pages show. A person may
download it ``DOWNLOADS_PER_PERSON``; past that, 429 with Retry-After and a sentence.

Imports: Flask and the accounts' services.
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response, render_template, session
from werkzeug.exceptions import TooManyRequests

from .services import DOWNLOADS_PER_PERSON, SIGN_IN_FIRST, Refusal, data_file

bp = Blueprint("account_data", __name__)


def _signed_out() -> tuple[str, int]:
    return render_template("errors/error.html", status=403, title="Sign in first", message=SIGN_IN_FIRST), 403


@bp.get("/me/data.json")
def download():
    """The signed-in person's data as one JSON file (see the module docstring)."""
    got = data_file(session.get("uid"))
    if isinstance(got, Refusal):
        if got.status == 429:  # the sentence, and Retry-After in whole seconds
            raise TooManyRequests(got.message, retry_after=int(got.headers["Retry-After"]))
        return _signed_out()
    return Response(got.body, mimetype="application/json", headers={
        "Cache-Control": "no-store",
        "Content-Disposition": f'attachment; filename="{got.name}"',
    })


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


__all__ = ["DOWNLOADS_PER_PERSON", "SIGN_IN_FIRST", "bp", "init_app"]
