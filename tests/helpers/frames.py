"""The socket's frames read from a client."""

from __future__ import annotations

import queue

from spades.web.table.hub import Connection


def frames(hub, conn: Connection) -> list[str]:
    """What the socket's own loop sends now (``Connection.take``, as ``spades.web.table.live.pump``)."""
    out = []
    while True:
        try:
            item = conn.take(0)
        except queue.Empty:
            return out
        out.append(hub.render(item, conn))
