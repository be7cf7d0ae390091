"""Seating rules, pure: names and emoji people may choose, and who sits where in a room.

Imports: stdlib, ``spades.text``, ``spades.rules_config`` (the table's shape) and
``spades.tables.errors`` / ``values`` only.
"""

from __future__ import annotations

import unicodedata

from ..rules_config import STANDARD_SHAPE, Shape
from ..text import clean_text
from .errors import BadPlayer
from .values import BOT_PARTNER, EMOJIS, MAX_NAME


def clean_name(text: str | None) -> str:
    """A player's name: cleaned (``spades.text.clean_text``: control, direction and
    invisible characters out, inner spaces collapsed), 1-20 characters. Raises BadPlayer
    with the reason.

    >>> clean_name("  Ann   Lee ")
    'Ann Lee'
    """
    name = clean_text(text)
    if not name:
        raise BadPlayer("Choose a name (1 to 20 characters).")
    if len(name) > MAX_NAME:
        raise BadPlayer("That name is too long: 20 characters at most.")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for ch in name):
        raise BadPlayer("A name can only hold letters, digits, spaces and punctuation.")
    return name


def check_emoji(emoji: str | None) -> str:
    """The emoji if it is one of ``EMOJIS``. Raises BadPlayer."""
    if emoji not in EMOJIS:
        raise BadPlayer("Choose one of the emoji offered.")
    return emoji


def seat_plan(members: list[int], partner: int | None, shape: Shape = STANDARD_SHAPE) -> dict[int, int]:
    """Who sits where, from the members in join order (the host first), the host's choice
    of partner and the table's shape. With partners: the host in seat 0, the partner
    across (none for a bot partner), the others on the other team, from the host's left,
    in join order; before the partner is chosen only the host has a seat. In cutthroat
    there is no partner to choose: everyone has a seat at once, the host in seat 0 and the
    others from the host's left in join order. Members beyond the open seats get none.

    >>> seat_plan([1, 2, 3, 4], partner=3)
    {1: 0, 3: 2, 2: 1, 4: 3}
    >>> seat_plan([2, 5], partner=BOT_PARTNER), seat_plan([1, 2], partner=None)
    ({2: 0, 5: 1}, {1: 0})
    >>> from spades.rules_config import shape_of
    >>> seat_plan([4, 7, 9], partner=None, shape=shape_of(3, False))
    {4: 0, 7: 1, 9: 2}
    """
    plan = {members[0]: 0}
    across = shape.partner(0)
    if across is None:
        plan.update((m, s) for m, s in zip(members[1:], shape.seats[1:]))
        return plan
    if partner is None:
        return plan
    if partner != BOT_PARTNER and partner in members[1:]:
        plan[partner] = across
    open_seats = [s for s in shape.seats[1:] if s != across]
    for m in members[1:]:
        if m not in plan and open_seats:
            plan[m] = open_seats.pop(0)
    return plan


def room_capacity(humans: int, partner: int | None, shape: Shape = STANDARD_SHAPE) -> int:
    """How many people the room takes: the number the host chose, at most the table's
    seats, and with a bot partner one fewer (the host and the other team)."""
    most = shape.players - 1 if partner == BOT_PARTNER and shape.partners else shape.players
    return min(humans, most)
