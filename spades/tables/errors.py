"""Refusals: what the table service will not do, each with the short sentence a player sees.

Imports: nothing.
"""

from __future__ import annotations


class Refused(Exception):
    """A command the table will not take; ``str(e)`` is the short message a player sees."""


class TableNotFound(Refused):
    """No table has that code."""


class NotStarted(TableNotFound):
    """The table is still a room: its match has not started (no match to show or move in)."""


class NotSeated(Refused):
    """The player has no seat at this table (or it is not that seat's move to make)."""


class Stale(Refused):
    """The command was made against an older version of the table (another tab, a double
    click, a race lost to another move); ``version`` is the table's version now."""

    def __init__(self, message: str, version: int) -> None:
        super().__init__(message)
        self.version = version


class NotSaved(Refused):
    """The database did not take the change: nothing happened, the table goes on as it was."""


class Busy(Refused):
    """The same request of this person's is still being worked on (one at a time)."""


class BadAction(Refused):
    """Text that is not an action at all (bad notation): a malformed request."""


class NotHost(Refused):
    """A host control used by someone who is not the host."""


class NotWatchable(Refused):
    """The host has turned watching off, and this person has no seat at the table."""


class TableClosed(Refused):
    """The code is known but nobody can join any more: its match is over, or the room closed."""


class TableFull(Refused):
    """Every seat for people is taken (or the match has started)."""


class Removed(Refused):
    """The host removed this player from the room."""


class BadPlayer(Refused):
    """A name or emoji that is not allowed."""


class TalkRefused(Refused):
    """The table's chat does not take this from this person: chat off, reactions only,
    silenced, or a tourney table's free text."""


class TooFast(Refused):
    """Too many chat lines in a short time, or the same message again; ``retry_after``:
    seconds until it would be taken."""

    def __init__(self, message: str, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after
