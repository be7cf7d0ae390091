"""The people one plays with: the profile's list of people with an account one sat with
lately, "Invite again" (a new table with one's last options and an invitation by mail to
each chosen person; the table is on their Rejoin list once they join it), blocking and
unblocking, and the people one muted at a table, to unmute.

"Invite again" invites as many people as the host's last table seats besides the host
(three; two when it was cutthroat for three). It invites one person at most once an hour
(``INVITE_AGAIN_PER_PERSON``, 429 with ``Retry-After``), and never while a room made for
them waits for them to join (409, the answer pointing to that room), so nobody can be
sent mail after mail.

A person is named on these pages by a handle (an HMAC of their id under the site's
secret), never by their id; a posted handle is looked up among the people the page
listed, so nothing else can be named.

A block: the blocked person cannot join the blocker's tables (``TableService.joinable``;
nor from a browser that signed in to their account, signed in or not now:
``spades.web.rooms.lobby``), is not made the blocker's partner by a tourney's solo pairing, and
their chat is hidden from the blocker as a mute hides it.

Routes: ``POST /people/invite`` (``person``: one or more handles), ``POST /people/block``
(``person``; ``on``: ``off`` to unblock), ``POST /people/mute`` (``person``; ``on=off``).

The rules, the checks and the store's reads and writes are ``people_service``'s; these
routes read the form, call it and answer.

Imports: Flask, ``spades.tables`` (the emoji) and the web layer's identity and the
accounts' services.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from flask import Blueprint, Flask, abort, current_app, flash, g, redirect, request, session

from ...tables import EMOJIS
from ..site.identity import default_emoji, player_id
from . import people_service
from .people_service import (
    INVITE_AGAIN_PER_PERSON,
    MAX_INVITED,
    Person,
    blocked_people,
    handle,
    muted_people,
    played_with,
)
from .profile_service import PEOPLE
from .services import Refusal

bp = Blueprint("people", __name__)


def _me() -> str:
    pid = player_id()
    if pid is None:
        abort(403, description="Play a game first: the people you play with are listed then.")
    return pid


def _back(message: str):
    flash(message, PEOPLE)
    return redirect("/me#people", 303)


def _refuse(message: str, status: int, headers: Mapping[str, str] | None = None, room: str | None = None):
    """The profile with ``message`` by the people one plays with (and a link to ``room``),
    answered with ``status``: a refusal that is not about the form."""
    flash(message, PEOPLE)
    g.people_room = room
    # the profile's own view draws its page (body, status): Flask types its views as any answer
    body, _ = cast("tuple[str, int]", current_app.view_functions["profile.me"]())
    return body, status, dict(headers or {})


def _answer(said: Refusal):
    """A refusal as its answer: said back on the profile, 400 alone, or the profile with its status."""
    if said.back:
        return _back(said.message)
    if said.status == 400:
        abort(400, description=said.message)
    return _refuse(said.message, said.status, said.headers, said.room)


@bp.post("/people/invite")
def invite_again():
    """A new table for friends with this person's last options (the usual ones if they
    never made one), for them and the people chosen: each is invited by mail (to their
    account's address); the table is on their Rejoin list once they join it. The host
    lands in the new room. Refused with 409 while a room made for one of them still waits
    for them (pointing to it), and with 429 when one of them was invited within the hour
    or the host made too many tables."""
    pid = _me()
    done = people_service.invite_again(pid, request.form.getlist("person"), session.get("name") or "",
                                       default_emoji(EMOJIS))
    if isinstance(done, Refusal):
        return _answer(done)
    flash(done.said, PEOPLE)
    return redirect(f"/g/{done.code}", 303)


@bp.post("/people/block")
def block():
    """Block a person one played with (``on=off``: unblock one blocked)."""
    pid = _me()
    said = people_service.block(pid, request.form.getlist("person"), request.form.get("on", "on") != "off")
    return _answer(said) if isinstance(said, Refusal) else _back(said)


@bp.post("/people/mute")
def unmute():
    """Unmute a person muted at a table (``on=off``)."""
    pid = _me()
    said = people_service.unmute(pid, request.form.getlist("person"), request.form.get("on", "off"))
    return _answer(said) if isinstance(said, Refusal) else _back(said)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


__all__ = ["INVITE_AGAIN_PER_PERSON", "MAX_INVITED", "Person", "blocked_people", "bp", "handle", "init_app",
           "muted_people", "played_with"]
