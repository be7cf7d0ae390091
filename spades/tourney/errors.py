"""The tourney service's refusals: each is a ``TourneyError`` (a ``ValueError``, from the
engine) whose text is one sentence a person can read; the pages show it as it is.

Imports: ``spades.tourney.model`` only (so the refusals load without the service).
"""

from __future__ import annotations

from .model import TourneyError

__all__ = [
    "TourneyError", "TourneyNotFound", "NotDirector", "RegistrationClosed", "TourneyFull", "AlreadyRegistered",
    "BadTeamLink", "NothingToReady", "BadEntry", "TourneyOver",
]


class TourneyNotFound(TourneyError):
    """No tourney has that code."""


class NotDirector(TourneyError):
    """Only the tourney's director may do that."""


class RegistrationClosed(TourneyError):
    """The tourney has started (or is over): nobody registers now."""


class TourneyFull(TourneyError):
    """Every place is taken."""


class AlreadyRegistered(TourneyError):
    """The person is in a team of this tourney already (or was removed from it)."""


class BadTeamLink(TourneyError):
    """The team link is unknown, or its team is complete."""


class NothingToReady(TourneyError):
    """The person has no check-in open and no match waiting for Ready."""


class BadEntry(TourneyError):
    """A name, an emoji or a tourney setting that cannot be taken."""


class TourneyOver(TourneyError):
    """The tourney is finished or cancelled."""
