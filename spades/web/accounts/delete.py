"""Deleting one's account for good: ``POST /me/delete``, confirmed by typing the account's email.

The person types the address they sign in with (compared as sign-in compares addresses);
anything else is refused with a sentence, 400, and changes nothing. The right one deletes
the account (``spades.account_delete``), signs it out on every device (its sessions are
gone with it, and its open sockets are closed at once), forgets this browser's device
cookie and answers 303 to ``/``.

Imports: Flask, the web layer's identity and the accounts' services.
"""

from __future__ import annotations

from flask import Blueprint, Flask, redirect, render_template_string, request, session, url_for
from werkzeug.wrappers import Response

from ..site.identity import DEVICE_COOKIE, DEVICE_PATHS
from .services import REFUSED, delete_if_confirmed

bp = Blueprint("account_delete", __name__)

# the section alone, on a page of its own, when the confirmation was wrong
_AGAIN = """{% extends "base.html" %}{% block title %}Delete my account{% endblock %}
{% block main %}<main class="home-main profile-main">{% include "profile/_delete.html" %}
<p><a href="{{ url_for('profile.me') }}">Back to your profile</a></p></main>{% endblock %}"""


@bp.post("/me/delete")
def delete() -> Response | tuple[str, int]:
    """Delete the signed-in account when ``confirm`` is its email: 303 to ``/``, signed out
    everywhere. A wrong or missing confirmation: the section again with the reason, 400.
    Not signed in: 303 to sign-in."""
    typed = request.form.get("confirm", "")
    done = delete_if_confirmed(session.get("uid"), typed)
    if done.signed_out:
        session.clear()
        return redirect(url_for("auth.signin"), 303)
    if done.refused:
        return render_template_string(_AGAIN, delete_error=REFUSED, delete_typed=typed[:320]), 400
    session.clear()
    response = redirect(url_for("lobby.home"), 303)
    for path in DEVICE_PATHS:  # this browser no longer offers the address as one it signed in to
        response.delete_cookie(DEVICE_COOKIE, path=path)
    return response


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


__all__ = ["REFUSED", "bp", "init_app"]
