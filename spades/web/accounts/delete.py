"""Deleting one's account for good: ``POST /me/delete``, confirmed by typing the account's email.

The person types the address they sign in with (compared as sign-in compares addresses);
anything else is refused with a sentence, 400, and changes nothing. The right one deletes
the account (``spades.account_delete``), signs it out on every device (its sessions are
gone with it, and its open sockets are closed at once), forgets this browser's device
cookie and answers 303 to ``/``.

Imports: Flask and the web layer's services; ``spades.account_delete``.
"""

from __future__ import annotations

import logging

from flask import Blueprint, Flask, redirect, render_template_string, request, session, url_for
from werkzeug.wrappers import Response

from ...account_delete import confirms, delete_account
from ..site.identity import DEVICE_COOKIE, DEVICE_PATHS
from ..site.services import accounts, hub, service

log = logging.getLogger(__name__)

bp = Blueprint("account_delete", __name__)

REFUSED = "That is not the email you sign in with, so nothing was deleted. Type it exactly to delete your account."

# the section alone, on a page of its own, when the confirmation was wrong
_AGAIN = """{% extends "base.html" %}{% block title %}Delete my account{% endblock %}
{% block main %}<main class="home-main profile-main">{% include "profile/_delete.html" %}
<p><a href="{{ url_for('profile.me') }}">Back to your profile</a></p></main>{% endblock %}"""


@bp.post("/me/delete")
def delete() -> Response | tuple[str, int]:
    """Delete the signed-in account when ``confirm`` is its email: 303 to ``/``, signed out
    everywhere. A wrong or missing confirmation: the section again with the reason, 400.
    Not signed in: 303 to sign-in."""
    uid = session.get("uid")
    user = accounts().store.user(uid) if uid else None
    if user is None:
        session.clear()
        return redirect(url_for("auth.signin"), 303)
    typed = request.form.get("confirm", "")
    if not confirms(typed, user.email):
        return render_template_string(_AGAIN, delete_error=REFUSED, delete_typed=typed[:320]), 400
    delete_account(accounts().store, user.email, reload_seats=_reload_seats)
    hub().signed_out(user.id)  # their open sockets, in every process, are closed at once
    session.clear()
    response = redirect(url_for("lobby.home"), 303)
    for path in DEVICE_PATHS:  # this browser no longer offers the address as one it signed in to
        response.delete_cookie(DEVICE_COOKIE, path=path)
    return response


def _reload_seats(codes: list[str], renamed: dict[str, str]) -> None:
    """Tables in memory take the seats' new owner; the account is deleted whatever happens here."""
    try:
        service().reload_seats(codes, renamed)
    except Exception:  # the tables read their seats again when next loaded
        log.exception("reloading the seats of a deleted account failed")


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


__all__ = ["REFUSED", "bp", "init_app"]
