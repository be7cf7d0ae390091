"""What the socket hub (``spades.web.table.hub``) remembers of each table with sockets
here, for the next frame and for a socket back from a drop.

Each table's latest change (``History.latest``: the one its next frame differs from, and
the mover's answer's drawings), its latest drawing of each part (shared by its changes),
and its last ``HISTORY`` changes as ``Past`` values (their number, who held each seat,
and the public fragments each changed). A socket back from a drop names the last change
its page applied (``Connection.since``) and gets, in one frame (``Resumed``), every
public fragment changed since and its seat's own fragments (the page ends up as a fresh
one would); a change no longer remembered gets the whole table.

Imports: ``spades.tables`` and the web layer's published changes.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ...tables import Change
from .fragments import Rendered
from .published import Past, Published

HISTORY = 64  # changes remembered per table with sockets here, for a socket back from a drop


class Resumed:
    """The latest change of a table for a socket back from a drop (``Hub._prime``): the
    public fragments changed since its page's change (``earlier``, by the changes before
    the latest, and the latest's own) and its seat's own fragments, in one frame; ``seat``
    is the seat its person held at that change (another seat now: the whole table)."""

    __slots__ = ("item", "seat", "earlier")

    def __init__(self, item: Published, seat: Any, earlier: frozenset[str] | None) -> None:
        self.item, self.seat, self.earlier = item, seat, earlier

    @property
    def change(self) -> Change:
        return self.item.change


class History:
    """Each table's latest change, its drawings and its last changes, in one hub (whose
    lock the caller holds for every method)."""

    def __init__(self) -> None:
        self._latest: dict[str, Published] = {}  # each table's last change, for the mover's answer
        self._drawn: dict[str, dict[Any, tuple[int, Rendered]]] = {}  # each table's latest drawing of each part
        self._history: dict[str, deque[Past]] = {}  # each table's last changes, for a socket back from a drop

    def wrap(self, change: Change) -> Published:
        """``change`` on its way to the sockets, drawn from its table's latest drawings."""
        return Published(change, self._drawn.get(change.code))

    def latest(self, code: str) -> Published | None:
        """Table ``code``'s latest change remembered, if any."""
        return self._latest.get(code)

    def remember(self, item: Published) -> None:
        """``item`` is its table's latest change: the one before is what its frames differ
        from; older ones keep only their ``Past``."""
        code = item.change.code
        latest = self._latest.get(code)
        if latest is not None:
            if latest.prev is not None:
                latest.prev.release()  # renderings kept: this change's and the one before it
            item.prev = latest
        self._latest[code] = item
        self._drawn.setdefault(code, item.drawn)
        history = self._history.get(code)
        if history is None:
            history = self._history[code] = deque(maxlen=HISTORY)
        history.append(item.past)

    def missed(self, code: str, since: int, player_id: str) -> tuple[Any, frozenset[str] | None] | None:
        """What changed in ``code`` after change ``since``: the seat the person held then
        and the public fragments changed, or None when this hub does not remember it all."""
        history = self._history.get(code)
        found = [k for k, past in enumerate(history or ()) if past.seq == since]
        if history is None or not found:
            return None
        after = list(history)[found[0] + 1:-1]  # the latest's own changes are worked out with its frame
        changed = [past.public for past in after if past.public is not None]
        if len(changed) < len(after):
            return None
        seat = next((s for s, pid in enumerate(history[found[0]].persons) if pid == player_id), None)
        if since == history[-1].seq:
            return seat, None  # the page is up to date
        return seat, frozenset[str]().union(*changed)

    def forget(self, code: str) -> None:
        """Table ``code`` has no sockets here any more."""
        self._latest.pop(code, None)
        self._drawn.pop(code, None)
        self._history.pop(code, None)
