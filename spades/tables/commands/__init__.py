"""Every table command: one module per area, each command's value and handler declared
together (``spades.tables.registry.declare``). Importing this package declares them all,
and its names are every module's ``__all__``.

To add a command, see docs/architecture.md ("A new table command").

Imports: the ``spades.tables`` modules below the actor.
"""

from . import host, play, presence, room, seats, talk, undo
from .host import *  # noqa: F403
from .play import *  # noqa: F403
from .presence import *  # noqa: F403
from .room import *  # noqa: F403
from .seats import *  # noqa: F403
from .talk import *  # noqa: F403
from .undo import *  # noqa: F403

__all__ = [*host.__all__, *play.__all__, *presence.__all__, *room.__all__, *seats.__all__, *talk.__all__,
           *undo.__all__]
