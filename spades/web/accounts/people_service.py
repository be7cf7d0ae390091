"""The people one plays with, as services for their routes (``spades.web.accounts.people``)
and the profile: the lists (played with, muted, blocked), "Invite again", blocking and
unmuting, each answered with the sentence the person reads, a small frozen view model, or
a ``Refusal`` the route turns into its answer.

A person is named by a handle (an HMAC of their id under the site's secret), never by
their id; a posted handle is looked up among the people the page listed, so nothing else
can be named.

Imports: Flask (the application's settings), ``limits``, ``spades.rules_config``,
``spades.tables`` and the web layer's chat channel, limits, lobby (invitation mail),
services and the accounts' ``Refusal``.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

from flask import current_app
from limits import parse

from ...rules_config import Rules, RulesError
from ...tables import Player, Refused
from ...tables.commands.room import SetOptions
from ..rooms.lobby import send_invitations
from ..site.limits import in_minutes, limiter, making
from ..site.services import service
from ..table.chat import MUTED_CHANNEL
from .services import Refusal

MAX_INVITED = 3  # a table seats four at most: the host and three people
INVITE_AGAIN_PER_PERSON = "1 per hour"  # "Invite again" from one person to another
NOT_LISTED = "That person is not on your list any more. Reload the page."


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


def _named(name: str, emoji: str) -> tuple[str, str]:
    """A person's name as a list shows it: "Someone" only when none is known (the store
    gives the name they last sat at a table with when they chose none)."""
    return (name if name not in ("", "You") else "Someone"), emoji


def _names(ids: frozenset[str] | set[str]) -> dict[str, tuple[str, str]]:
    store = service().store
    return {pid: _named(*(store.known_player(pid) or ("", ""))) for pid in ids}


# -- the lists ----------------------------------------------------------------------------------------
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


def _resolve(handles: Sequence[str], among: set[str]) -> list[str] | Refusal:
    """The ids of the people ``handles`` name among ``among``; 400 for one that names nobody."""
    by_handle = {handle(p): p for p in among}
    ids = []
    for h in handles:
        if h not in by_handle:
            return Refusal(400, NOT_LISTED)
        ids.append(by_handle[h])
    return list(dict.fromkeys(ids))


def _one(handles: Sequence[str], among: set[str]) -> str | Refusal:
    """The one person the form names (its first handle) among ``among``; 400 for none."""
    found = _resolve(handles[:1], among)
    if isinstance(found, Refusal):
        return found
    if not found:
        return Refusal(400, "Choose a person.")
    return found[0]


# -- "Invite again" -----------------------------------------------------------------------------------
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


@dataclass(frozen=True, slots=True)
class Invited:
    """A new table for the people invited again: its code and the sentence the host reads."""

    code: str
    said: str


def invite_again(pid: str, handles: Sequence[str], session_name: str, emoji_default: str) -> Invited | Refusal:
    """A new table for friends with ``pid``'s last options (the usual ones if they never
    made one), for them and the people ``handles`` name: each is invited by mail (to their
    account's address). Refusals said back on the profile (``back``: none chosen, too
    many, one blocked, the room refused), 400 for a handle of nobody listed, 409 while a
    room made for one of them still waits for them (its ``room``), 429 when one of them
    was invited within the hour or the host made too many tables. ``session_name``: the
    name this browser goes by, for a host with none kept; ``emoji_default``: the emoji
    for one with none."""
    store = service().store
    chosen = _resolve(handles, {p.id for p in store.co_players(pid)})
    if isinstance(chosen, Refusal):
        return chosen
    if not chosen:
        return Refusal(303, "Choose the people to invite.", back=True)
    last = store.last_options(pid) or {}
    try:
        rules = Rules.from_dict(last.get("rules"))
    except (RulesError, TypeError, ValueError):  # options from before a rule was refused: the usual ones
        rules = Rules()
    shape = rules.shape  # the last table's shape: three seats in cutthroat for three
    seats = shape.players
    if len(chosen) > min(MAX_INVITED, seats - 1):
        return Refusal(303, f"A table seats {shape.players_word}: choose at most {seats - 1} people.", back=True)
    blocked = store.blocked(pid)
    if any(p in blocked for p in chosen):
        return Refusal(303, "Unblock a person before you invite them.", back=True)
    names = _names(set(chosen))
    for person in chosen:
        pending = store.pending_invitation(pid, person)
        if pending is not None:
            return Refusal(409, f"You invited {names[person][0]} to table {pending} and they have not joined it "
                                "yet. It waits for them: their invitation is in their mail.", room=pending)
    for person in chosen:
        wait = _invited_lately(pid, person)
        if wait is not None:
            return Refusal(429, f"You invited {names[person][0]} less than an hour ago. You can invite them again "
                                f"in {in_minutes(wait)}.", {"Retry-After": str(math.ceil(wait))})
    refusal = making("friends", pid)
    if refusal:
        return Refusal(429, refusal.message, refusal.headers)
    if not all([_count_invitation(pid, person) for person in chosen]):
        return Refusal(429, "You invited them a moment ago: the table is on your Rejoin list.", {"Retry-After": "60"})
    name, emoji = service().known_player(pid)
    name = name or session_name or "A friend"
    emoji = emoji or emoji_default
    level = last.get("level") or "normal"
    try:
        code = service().create_room(pid, name, emoji, rules, level, len(chosen) + 1)
        if "chat" in last or last.get("filter"):
            service().handle(code, Player(pid), SetOptions(rules, level, chat=last.get("chat", "on"),
                                                           filter=bool(last.get("filter"))))
    except Refused as e:
        return Refusal(303, str(e), back=True)
    store.invite(chosen, code, name)
    addresses = [u.email for u in (store.user(p) for p in chosen) if u is not None and u.email]
    refused = send_invitations(code, addresses, name, emoji) if addresses else None
    listed = ", ".join(names[p][0] for p in chosen)
    if refused is not None:
        return Invited(code, f"No invitation mail went to {listed}. {refused[0]}")
    return Invited(code, f"Invitation sent to {listed}.")


# -- blocks and mutes ---------------------------------------------------------------------------------
def block(pid: str, handles: Sequence[str], on: bool) -> str | Refusal:
    """Block the person the form names among those ``pid`` played with (``on`` False:
    unblock one blocked): the sentence that says so, or 400."""
    store = service().store
    among = {p.id for p in store.co_players(pid)} | set(store.blocked(pid))
    person = _one(handles, among)
    if isinstance(person, Refusal):
        return person
    store.set_block(pid, person, on)
    service().bus.publish_page(MUTED_CHANNEL + pid)  # their chat leaves (or returns to) this person's sockets
    name = _names({person})[person][0]
    return (f"You blocked {name}: they cannot join your tables, and you will not see their chat." if on
            else f"You unblocked {name}.")


def unmute(pid: str, handles: Sequence[str], on: str) -> str | Refusal:
    """Unmute a person ``pid`` muted at a table (``on``: "off"; anything else is 400, as
    muting is done from the table's chat): the sentence that says so, or 400."""
    store = service().store
    if on != "off":
        return Refusal(400, "Mute people from the table's chat.")
    person = _one(handles, set(store.muted(pid)))
    if isinstance(person, Refusal):
        return person
    store.set_mute(pid, person, False)
    service().bus.publish_page(MUTED_CHANNEL + pid)
    return f"You unmuted {_names({person})[person][0]}."
