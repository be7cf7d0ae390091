"""The accounts' small pages as services: the push subscriptions, the turn mails' switch
and the your-turn list, the data download, deleting an account and the sign-in agent a
device is named by, each answered with a small frozen view model (or a value) for its
route, or a ``Refusal`` (a status and its sentence) the route turns into its answer.
The people's, the profile's and sign-in's own are ``people_service``,
``profile_service`` and ``auth_service``.

Imports: Flask (the application's extensions), ``spades.account_delete``,
``spades.account_export``, ``spades.clocks``, ``spades.push`` and the web layer's limits
and services (no blueprint).
"""

from __future__ import annotations

import json
import logging
import math
import time
from dataclasses import dataclass

from flask import Flask

from ...account_delete import confirms, delete_account
from ...account_export import export_account
from ...clocks import time_left
from ...push import Subscription
from ..site.limits import hit
from ..site.refusal import Refusal
from ..site.services import accounts, hub, service

log = logging.getLogger(__name__)


# -- notices in the browser --------------------------------------------------------------------------
def has_push(app: Flask, person: str) -> bool:
    """Whether ``person`` allowed notices in any browser (needs no request)."""
    return bool(app.extensions["spades.tables"].store.push_subscriptions(person))


def keep_subscription(person: str, sub: Subscription) -> None:
    """Keep a browser's push subscription for ``person``."""
    service().store.add_push_subscription(person, sub.endpoint, sub.p256dh, sub.auth)


def forget_subscription(endpoint: str, person: str | None) -> None:
    """Forget ``person``'s browser at ``endpoint`` (nobody's for a browser without a player id)."""
    if person:
        service().store.remove_push_subscription(endpoint, person)


# -- turn-based tables ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class YourTurn:
    """A turn-based table waiting on this person."""

    code: str
    left: str  # "5 hours", "no clock"
    between_hands: bool


def your_turns(pid: str | None) -> list[YourTurn]:
    """The turn-based tables waiting on ``pid``, the least time left first (empty for none)."""
    if not pid:
        return []
    try:
        now = service().now()
        return [YourTurn(t.code, time_left(t.deadline, now), "hand-" in t.turn)
                for t in service().store.waiting_on(pid)]
    except Exception:  # the page must show even if this list cannot
        log.exception("the your-turn list failed")
        return []


def turn_mails_off(person: str) -> None:
    """The notice mails' link pressed: no more turn mails to ``person``."""
    service().store.set_mail_off(person, True)


def turn_mails(pid: str | None, signed_in: bool, choice: str) -> str | Refusal:
    """The profile's switch for the turn mails (``choice``: on or off): the sentence that
    says it is saved; 400 for another choice, 403 to someone not signed in."""
    if choice not in ("on", "off"):
        return Refusal(400, "Say whether you want the mails: on or off.")
    if pid is None or not signed_in:
        return Refusal(403, "Sign in to get mails when it is your turn.")
    service().store.set_mail_off(pid, choice == "off")
    return "Saved: " + ("you get a mail when it is your turn." if choice == "on" else "no more turn mails.")


# -- the person's data ---------------------------------------------------------------------------------
DOWNLOADS_PER_PERSON = "5 per hour"
SIGN_IN_FIRST = "Sign in to download your data: it is kept with your account."


@dataclass(frozen=True, slots=True)
class DataFile:
    """The person's data as a file: its body and its name."""

    body: str
    name: str


def data_file(uid: str | None) -> DataFile | Refusal:
    """Everything kept about account ``uid`` as one JSON file; 403 signed out (or the
    account gone), 429 past ``DOWNLOADS_PER_PERSON`` (with ``Retry-After``)."""
    if not uid:
        return Refusal(403, SIGN_IN_FIRST)
    wait = hit(DOWNLOADS_PER_PERSON, uid, "account-data")
    if wait is not None:
        minutes = max(1, math.ceil(wait / 60))
        return Refusal(429, f"You have downloaded your data {DOWNLOADS_PER_PERSON.split()[0]} times this hour: "
                            f"try again in {minutes} minute{'s' if minutes != 1 else ''}.",
                       {"Retry-After": str(math.ceil(wait))})
    document = export_account(accounts().store, uid)
    if document is None:  # the account went away since this session began
        return Refusal(403, SIGN_IN_FIRST)
    day = time.strftime("%Y-%m-%d", time.gmtime(document["exported"]))
    return DataFile(json.dumps(document, ensure_ascii=False, indent=1), f"spades-data-{day}.json")


# -- deleting an account -------------------------------------------------------------------------------
REFUSED = "That is not the email you sign in with, so nothing was deleted. Type it exactly to delete your account."


@dataclass(frozen=True, slots=True)
class Deletion:
    """What a press of Delete did: ``signed_out`` (no account in this session: nothing to
    delete), ``refused`` (the confirmation was not the account's email) or ``deleted``."""

    signed_out: bool = False
    refused: bool = False
    deleted: bool = False


def delete_if_confirmed(uid: str | None, typed: str) -> Deletion:
    """Delete account ``uid`` when ``typed`` is its email, and close its sockets everywhere."""
    user = accounts().store.user(uid) if uid else None
    if user is None:
        return Deletion(signed_out=True)
    if not confirms(typed, user.email):
        return Deletion(refused=True)
    delete_account(accounts().store, user.email, reload_seats=_reload_seats)
    hub().signed_out(user.id)  # their open sockets, in every process, are closed at once
    return Deletion(deleted=True)


def _reload_seats(codes: list[str], renamed: dict[str, str]) -> None:
    """Tables in memory take the seats' new owner; the account is deleted whatever happens here."""
    try:
        service().reload_seats(codes, renamed)
    except Exception:  # the tables read their seats again when next loaded
        log.exception("reloading the seats of a deleted account failed")


# -- devices -------------------------------------------------------------------------------------------
def note_agent(sid: str, agent: str) -> None:
    """Keep the User-Agent session ``sid`` signed in with (names the device in words)."""
    accounts().store.note_signin_agent(sid, agent)
