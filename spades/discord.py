"""``/spades`` in Discord: the check of Discord's signature on an interaction, the
command's definition, and its registration with Discord.

Discord posts each use of the command to the site (``spades.web.site.discord``), signed
with Ed25519: the signature (hex, header ``X-Signature-Ed25519``) is over the timestamp
(header ``X-Signature-Timestamp``, seconds) followed by the raw body, and checks against
the application's public key (hex, from the Developer Portal). ``check_signature`` says
whether a request is Discord's and recent (within ``SKEW_S`` of now).

The command (``COMMANDS``): ``/spades table`` (``players`` 1 to 4 people, ``preset`` one of
the house rules' presets, ``target`` one of the site's targets; all optional) and
``/spades practice`` (``preset``, ``target``). Discord allows options beside subcommands
only inside them, hence the two subcommands. ``register`` puts the definition in place of
the application's commands (Discord's bulk overwrite: ``PUT
/applications/{app id}/commands``, the bot's token as ``Authorization: Bot …``); it is
run by ``python -m spades discord register``.

Why these libraries: ``cryptography`` (Ed25519) and ``requests`` (the one HTTP call) are
well kept, and already dependencies of the site, so the check adds none and no
cryptography is written by hand.

Imports: ``cryptography``, ``requests`` and the core (``spades.rules_config``); never Flask.
"""

from __future__ import annotations

import time
from typing import Any

import requests
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .rules_config import PRESETS

API = "https://discord.com/api/v10"  # Discord's HTTP API
SKEW_S = 300  # a signed request more than this far from now (either way) is refused
TARGETS = (200, 250, 300, 500)  # the targets the site offers (spades.web.rooms.options.TARGETS)
MAX_PEOPLE = 4  # people at one table (spades.tables.MAX_HUMANS)

# Discord's interaction and option types, answer types and message flags (its API's numbers)
PING, APPLICATION_COMMAND = 1, 2
PONG, CHANNEL_MESSAGE = 1, 4
SUB_COMMAND, STRING, INTEGER = 1, 3, 4
EPHEMERAL = 64  # a message only the person who asked sees
LINK_BUTTON, ACTION_ROW, BUTTON = 5, 1, 2

_PRESET = {"type": STRING, "name": "preset", "description": "House rules (standard unless chosen)",
           "choices": [{"name": label, "value": name} for name, (label, _) in PRESETS.items()]}
_TARGET = {"type": INTEGER, "name": "target", "description": "Points the match is played to (500 unless chosen)",
           "choices": [{"name": f"{t} points", "value": t} for t in TARGETS]}
COMMANDS: list[dict[str, Any]] = [{
    "name": "spades",
    "type": 1,  # a slash command
    "description": "Play Spades: a table for this channel, or a practice game",
    "options": [
        {"type": SUB_COMMAND, "name": "table",
         "description": "A table for friends: the first to open the link hosts it",
         "options": [{"type": INTEGER, "name": "players", "description": "How many people play (bots take the rest)",
                      "min_value": 1, "max_value": MAX_PEOPLE}, _PRESET, _TARGET]},
        {"type": SUB_COMMAND, "name": "practice", "description": "A practice game against the bots, just for you",
         "options": [_PRESET, _TARGET]},
    ],
}]


def public_key(text: str) -> Ed25519PublicKey:
    """The application's public key from its hex text. Raises ValueError for one that is not
    64 hex digits."""
    try:
        raw = bytes.fromhex(text.strip())
    except ValueError:
        raise ValueError("the Discord public key must be hex, as the Developer Portal shows it") from None
    if len(raw) != 32:
        raise ValueError("the Discord public key must be 64 hex digits, as the Developer Portal shows it")
    return Ed25519PublicKey.from_public_bytes(raw)


def check_signature(key: Ed25519PublicKey, signature: str | None, timestamp: str | None, body: bytes,
                    now: float | None = None) -> bool:
    """Whether ``body`` was signed by Discord (``signature``, hex, over ``timestamp`` then
    the body) at a time within ``SKEW_S`` of ``now``."""
    if not signature or not timestamp:
        return False
    try:
        sent = int(timestamp)
        sig = bytes.fromhex(signature)
    except ValueError:
        return False
    if abs((time.time() if now is None else now) - sent) > SKEW_S:
        return False
    try:
        key.verify(sig, timestamp.encode() + body)
    except (InvalidSignature, ValueError):
        return False
    return True


class RegisterError(Exception):
    """Discord did not take the commands (its status and words), or did not answer."""


def register(app_id: str, bot_token: str, api: str = API, timeout: float = 15.0) -> list[str]:
    """Put ``COMMANDS`` in place of the application's commands; the names Discord now
    holds. Raises RegisterError (never with the token in its words)."""
    url = f"{api.rstrip('/')}/applications/{app_id}/commands"
    try:
        answer = requests.put(url, json=COMMANDS, headers={"Authorization": f"Bot {bot_token}"}, timeout=timeout)
    except requests.RequestException as e:
        raise RegisterError(f"Discord did not answer ({type(e).__name__})") from None
    if answer.status_code != 200:
        try:
            said = answer.json().get("message", "")
        except ValueError:
            said = ""
        raise RegisterError(f"Discord refused the commands: {answer.status_code} {said}".rstrip())
    try:
        return [str(c.get("name")) for c in answer.json()]
    except (ValueError, AttributeError, TypeError):
        raise RegisterError("Discord's answer was not a list of commands") from None
