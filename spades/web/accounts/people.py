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

Imports: Flask, ``spades.rules_config``, ``spades.tables`` and the web layer's identity,
limits, lobby (invitation mail) and services.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import time
from dataclasses import dataclass
from typing import cast

from flask import Blueprint, Flask, abort, current_app, flash, g, redirect, request, session
from limits import parse

from ...rules_config import Rules, RulesError
from ...tables import EMOJIS, Player, Refused
from ...tables.commands.room import SetOptions
from ..rooms.lobby import send_invitations
from ..site.identity import default_emoji, player_id
from ..site.limits import in_minutes, limiter, making
from ..site.services import service
from ..table.chat import MUTED_CHANNEL

bp = Blueprint("people", __name__)

MAX_INVITED = 3  # a table seats four at most: the host and three people
INVITE_AGAIN_PER_PERSON = "1 per hour"  # "Invite again" from one person to another


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
    return {pid: _named(*(store.known_player(pid) or ("", ""))) for pid in ids}


def played_with(pid: str) -> list[Person]:
    """The people with an account this person sat with lately (blocked ones marked)."""
    blocked = service().store.blocked(pid)
    return [Person(handle(p.id), p.name or "Someone", p.emoji, p.id in blocked)
            for p in service().store.co_players(pid)]


def _named(name: str, emoji: str) -> tuple[str, str]:
    """A person's name as a list shows it: "Someone" only when none is known (the store
    gives the name they last sat at a table with when they chose none)."""
    return (name if name not in ("", "You") else "Someone"), emoji


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


def _refuse(message: str, status: int, headers: dict[str, str] | None = None, room: str | None = None):
    """The profile with ``message`` by the people one plays with (and a link to ``room``),
    answered with ``status``: a refusal that is not about the form."""
    flash(message)
    g.people_room = room
    # the profile's own view draws its page (body, status): Flask types its views as any answer
    body, _ = cast("tuple[str, int]", current_app.view_functions["profile.me"]())
    return body, status, headers or {}


def _invited_lately(pid: str, person: str) -> float | None:
    """None when ``pid`` may invite ``person`` again now, else the seconds to wait."""
    if not limiter.enabled:
        return None
    item, strategy = parse(INVITE_AGAIN_PER_PERSON), limiter.limiter
    if strategy.test(item, pid, person, "invite-again"):
        return None
    return max(1.0, strategy.get_window_stats(item, pid, person, "invite-again").reset_time - time.time())


def _count_invitation(pid: str, person: str) -> bool:
    """Count an invitation from ``pid`` to ``person``; False when another one (a second
    press at the same moment) took the hour's first."""
    return not limiter.enabled or limiter.limiter.hit(parse(INVITE_AGAIN_PER_PERSON), pid, person, "invite-again")


@bp.post("/people/invite")
def invite_again():
    """A new table for friends with this person's last options (the usual ones if they
    never made one), for them and the people chosen: each is invited by mail (to their
    account's address); the table is on their Rejoin list once they join it. The host
    lands in the new room. Refused with 409 while a room made for one of them still waits
    for them (pointing to it), and with 429 when one of them was invited within the hour
    or the host made too many tables."""
    pid = _me()
    store = service().store
    chosen = _resolve(pid, request.form.getlist("person"), {p.id for p in store.co_players(pid)})
    if not chosen:
        return _back("Choose the people to invite.")
    last = store.last_options(pid) or {}
    try:
        rules = Rules.from_dict(last.get("rules"))
    except (RulesError, TypeError, ValueError):  # options from before a rule was refused: the usual ones
        rules = Rules()
    shape = rules.shape  # the last table's shape: three seats in cutthroat for three
    seats = shape.players
    if len(chosen) > min(MAX_INVITED, seats - 1):
        return _back(f"A table seats {shape.players_word}: choose at most {seats - 1} people.")
    blocked = store.blocked(pid)
    if any(p in blocked for p in chosen):
        return _back("Unblock a person before you invite them.")
    names = _names(set(chosen))
    for person in chosen:
        pending = store.pending_invitation(pid, person)
        if pending is not None:
            return _refuse(f"You invited {names[person][0]} to table {pending} and they have not joined it yet. "
                           "It waits for them: their invitation is in their mail.", 409, room=pending)
    for person in chosen:
        wait = _invited_lately(pid, person)
        if wait is not None:
            return _refuse(f"You invited {names[person][0]} less than an hour ago. You can invite them again in "
                           f"{in_minutes(wait)}.", 429, {"Retry-After": str(math.ceil(wait))})
    refusal = making("friends", pid)
    if refusal:
        return _refuse(refusal.message, 429, refusal.headers)
    if not all([_count_invitation(pid, person) for person in chosen]):
        return _refuse("You invited them a moment ago: the table is on your Rejoin list.", 429,
                       {"Retry-After": "60"})
    name, emoji = service().known_player(pid)
    name = name or session.get("name") or "A friend"
    emoji = emoji or default_emoji(EMOJIS)
    level = last.get("level") or "normal"
    try:
        code = service().create_room(pid, name, emoji, rules, level, len(chosen) + 1)
        if "chat" in last or last.get("filter"):
            service().handle(code, Player(pid), SetOptions(rules, level, chat=last.get("chat", "on"),
                                                           filter=bool(last.get("filter"))))
    except Refused as e:
        return _back(str(e))
    store.invite(chosen, code, name)
    addresses = [u.email for u in (store.user(p) for p in chosen) if u is not None and u.email]
    refused = send_invitations(code, addresses, name, emoji) if addresses else None
    listed = ", ".join(names[p][0] for p in chosen)
    if refused is not None:
        flash(f"No invitation mail went to {listed}. {refused[0]}")
    else:
        flash(f"Invitation sent to {listed}.")
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


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
