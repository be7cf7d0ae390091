"""Refusals: what the table service will not do, each with the short sentence a player sees
and the HTTP status it is answered with (``status``; ``status_of`` reads it), over a post
or the page's socket alike. The chat's form answers its own way (``chat_status``): a
refusal of what was said is 403 there, except a flood (429), bad text (400), a failed
save (503) and a lost race (409).

Imports: nothing.
"""

from __future__ import annotations

ILLEGAL_STATUS = 422  # an illegal bid or card (``spades.rules.IllegalAction``)


class Refused(Exception):
    """A command the table will not take; ``str(e)`` is the short message a player sees,
    ``status`` the HTTP status it is answered with, ``chat_status`` the chat's."""

    status = 400
    chat_status = 403


def status_of(e: Exception) -> int:
    """The HTTP status a refused command is answered with: a refusal's own, and
    ``ILLEGAL_STATUS`` for anything else the rules raise (an illegal move)."""
    return e.status if isinstance(e, Refused) else ILLEGAL_STATUS


class TableNotFound(Refused):
    """No table has that code."""

    status = 404


class NotStarted(TableNotFound):
    """The table is still a room: its match has not started (no match to show or move in)."""


class NotSeated(Refused):
    """The player has no seat at this table (or it is not that seat's move to make)."""

    status = 403


class Stale(Refused):
    """The command was made against an older version of the table (another tab, a double
    click, a race lost to another move); ``version`` is the table's version now."""

    status = chat_status = 409

    def __init__(self, message: str, version: int) -> None:
        super().__init__(message)
        self.version = version


class NotSaved(Refused):
    """The database did not take the change: nothing happened, the table goes on as it was."""

    status = chat_status = 503


class Busy(Refused):
    """The same request of this person's is still being worked on (one at a time)."""


class BadAction(Refused):
    """Text that is not an action at all (bad notation): a malformed request."""

    status = chat_status = 400


class NotHost(Refused):
    """A host control used by someone who is not the host."""

    status = 403


class NotWatchable(Refused):
    """The host has turned watching off, and this person has no seat at the table."""


class TableClosed(Refused):
    """The code is known but nobody can join any more: its match is over, or the room closed."""

    status = 409


class TableFull(Refused):
    """Every seat for people is taken (or the match has started)."""


class AtLimit(Refused):
    """The person is at a limit of their own (the turn-based tables they may hold, a week
    of boards played at another table): the table is not full for anyone else."""

    status = 409


class Removed(Refused):
    """The host removed this player from the room."""


class BadPlayer(Refused):
    """A name or emoji that is not allowed."""


class TalkRefused(Refused):
    """The table's chat does not take this from this person: chat off, reactions only,
    silenced, or a tourney table's free text."""

    status = 403


class TooFast(Refused):
    """Too many chat lines in a short time, or the same message again; ``retry_after``:
    seconds until it would be taken."""

    status = chat_status = 429

    def __init__(self, message: str, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after
