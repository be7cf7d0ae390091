"""Circles: a friend group's home on the site (``docs/circles.md``).

- ``service``: ``CircleService``, what the site calls (the circle, its invite link and
  members, its tables, seasons and results), and its refusals;
- ``standings``: a season's standings, partnerships and head to head, worked out from
  its result rows (pure).

The game nights and the duplicate boards of a circle build on the service
(``link_table`` makes a table they open count for the circle).

Imports: the modules above (stdlib, itsdangerous, openskill, ``spades.storage``,
``spades.tables`` and the core). Never Flask.
"""

from __future__ import annotations

from .service import (
    BadCircleName,
    BadInvite,
    CircleError,
    CircleNotFound,
    CircleService,
    InviteExpired,
    InviteReplaced,
    NotInCircle,
    NotOwner,
    OwnerStays,
    RemovedFromCircle,
    Started,
    TooManyCircles,
    slug_of,
)
from .standings import HeadToHead, Partnership, Standing, Standings, work_out

__all__ = [
    "BadCircleName", "BadInvite", "CircleError", "CircleNotFound", "CircleService", "InviteExpired",
    "InviteReplaced", "NotInCircle", "NotOwner", "OwnerStays", "RemovedFromCircle", "Started", "TooManyCircles",
    "slug_of", "HeadToHead", "Partnership", "Standing", "Standings", "work_out",
]
