"""The people one plays with: the profile's list of people with an account one sat with
lately, "Invite again" (a new table with one's last options, an invitation to each chosen
person by mail and on their Rejoin list), blocking and unblocking, and the people one
muted at a table, to unmute.

A person is named on these pages by a handle (an HMAC of their id under the site's
secret), never by their id; a posted handle is looked up among the people the page
listed, so nothing else can be named.

A block: the blocked person cannot join the blocker's tables (``TableService.joinable``),
is not made the blocker's partner by a tourney's solo pairing, and their chat is hidden
from the blocker as a mute hides it.

Routes: ``POST /people/invite`` (``person``: one or more handles), ``POST /people/block``
(``person``; ``on``: ``off`` to unblock), ``POST /people/mute`` (``person``; ``on=off``).

Imports: Flask, ``spades.rules_config``, ``spades.tables`` and the web layer's identity,
limits, lobby (invitation mail) and services.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from flask import Blueprint, Flask, abort, current_app, flash, redirect, request, session

from ..rules_config import Rules
from ..tables import Player, Refused, SetOptions
from .identity import player_id
from .limits import making
from .lobby import send_invitations
from .services import service
from .talk import MUTED_CHANNEL

bp = Blueprint("people", __name__)

MAX_INVITED = 3  # a table seats four


@dataclass(frozen=True, slots=True)
class Person:
    handle: str
    name: str
    emoji: str
    blocked: bool = False


def handle(person: str) -> str:
    """How pages name a person: never their id."""
    key = current_app.config["SECRET_KEY"].encode()
    return hmac.new(key, f"person/{person}".encode(), hashlib.sha256).hexdigest()[:20]


def _names(ids: frozenset[str] | set[str]) -> dict[str, tuple[str, str]]:
    store = service().store
    return {pid: store.known_player(pid) or ("Someone", "") for pid in ids}


def played_with(pid: str) -> list[Person]:
    """The people with an account this person sat with lately (blocked ones marked)."""
    blocked = service().store.blocked(pid)
    return [Person(handle(p.id), p.name or "Someone", p.emoji, p.id in blocked)
            for p in service().store.co_players(pid)]


def muted_people(pid: str) -> list[Person]:
    """The people this person muted (and did not block)."""
    store = service().store
    muted = store.muted(pid) - store.blocked(pid)
    return sorted((Person(handle(p), name, emoji) for p, (name, emoji) in _names(muted).items()),
                  key=lambda x: x.name.lower())


def blocked_people(pid: str) -> list[Person]:
    """The people this person blocked."""
    return sorted((Person(handle(p), name, emoji, True)
                   for p, (name, emoji) in _names(set(service().store.blocked(pid))).items()),
                  key=lambda x: x.name.lower())


def _resolve(pid: str, handles: list[str], among: set[str]) -> list[str]:
    """The ids of the people ``handles`` name among ``among``. Aborts 400 for one that names nobody."""
    by_handle = {handle(p): p for p in among}
    ids = []
    for h in handles:
        if h not in by_handle:
            abort(400, description="That person is not on your list any more. Reload the page.")
        ids.append(by_handle[h])
    return list(dict.fromkeys(ids))


def _one(pid: str, among: set[str]) -> str:
    """The one person the form names among ``among``. Aborts 400."""
    found = _resolve(pid, request.form.getlist("person")[:1], among)
    if not found:
        abort(400, description="Choose a person.")
    return found[0]


def _me() -> str:
    pid = player_id()
    if pid is None:
        abort(403, description="Play a game first: the people you play with are listed then.")
    return pid


def _back(message: str):
    flash(message)
    return redirect("/me#people", 303)


@bp.post("/people/invite")
def invite_again():
    """A new table for friends with this person's last options (the usual ones if they
    never made one), for them and the people chosen: each is invited by mail (to their
    account's address) and on their Rejoin list. The host lands in the new room."""
    pid = _me()
    store = service().store
    chosen = _resolve(pid, request.form.getlist("person"), {p.id for p in store.co_players(pid)})
    if not chosen:
        return _back("Choose the people to invite.")
    if len(chosen) > MAX_INVITED:
        return _back(f"A table seats four: choose at most {MAX_INVITED} people.")
    blocked = store.blocked(pid)
    if any(p in blocked for p in chosen):
        return _back("Unblock a person before you invite them.")
    refusal = making("friends", pid)
    if refusal:
        return _back(refusal.message)
    name, emoji = service().known_player(pid)
    name = name or session.get("name") or "A friend"
    last = store.last_options(pid) or {}
    rules = Rules.from_dict(last.get("rules"))
    level = last.get("level") or "normal"
    try:
        code = service().create_room(pid, name, emoji or "🦊", rules, level, len(chosen) + 1)
        if "chat" in last or last.get("filter"):
            service().handle(code, Player(pid), SetOptions(rules, level, chat=last.get("chat", "on"),
                                                           filter=bool(last.get("filter"))))
    except Refused as e:
        return _back(str(e))
    store.invite(chosen, code, name)
    addresses = [u.email for u in (store.user(p) for p in chosen) if u is not None and u.email]
    refused = send_invitations(code, addresses, name, emoji) if addresses else None
    names = ", ".join(_names(set(chosen))[p][0] for p in chosen)
    if refused is not None:
        flash(f"{names} will find the invitation on their Rejoin list. {refused[0]}")
    else:
        flash(f"Invitation sent to {names}.")
    return redirect(f"/g/{code}", 303)


@bp.post("/people/block")
def block():
    """Block a person one played with (``on=off``: unblock one blocked)."""
    pid = _me()
    store = service().store
    on = request.form.get("on", "on") != "off"
    among = {p.id for p in store.co_players(pid)} | set(store.blocked(pid))
    person = _one(pid, among)
    store.set_block(pid, person, on)
    service().bus.publish_page(MUTED_CHANNEL + pid)  # their chat leaves (or returns to) this person's sockets
    name = _names({person})[person][0]
    return _back(f"You blocked {name}: they cannot join your tables, and you will not see their chat." if on
                 else f"You unblocked {name}.")


@bp.post("/people/mute")
def unmute():
    """Unmute a person muted at a table (``on=off``)."""
    pid = _me()
    store = service().store
    if request.form.get("on", "off") != "off":
        abort(400, description="Mute people from the table's chat.")
    person = _one(pid, set(store.muted(pid)))
    store.set_mute(pid, person, False)
    service().bus.publish_page(MUTED_CHANNEL + pid)
    return _back(f"You unmuted {_names({person})[person][0]}.")


def invitations() -> list:
    """For templates: the tables this person was invited to that still wait (their Rejoin list)."""
    pid = player_id()
    if not pid or not session.get("uid"):
        return []
    try:
        return service().store.invitations(pid)
    except Exception:  # the home page must show even if this list cannot
        return []


def init_app(app: Flask) -> None:
    app.jinja_env.globals.update(invitations=invitations)
    app.register_blueprint(bp)
