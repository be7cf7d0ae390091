"""A live connection to a table, as a page's WebSocket has one, through the table service's
public API: ``connect`` (the table as it is, at once), then every change the bus carries,
each as this person's picture. Returns the function that closes it."""

from __future__ import annotations

from collections.abc import Callable

from spades.tables import Change, Snapshot, TableService


def watch(svc: TableService, code: str, player_id: str | None,
          callback: Callable[[Snapshot], object]) -> Callable[[], None]:
    seen = [-1]
    code = code.upper()

    def deliver(change: Change) -> None:
        if change.code != code or change.seq <= seen[0]:
            return
        seen[0] = change.seq
        picture = change.snapshot_for(player_id)
        if isinstance(picture, Snapshot):  # a room's pictures come before its table's
            callback(picture)

    token = svc.bus.subscribe(deliver)
    svc.connect(code, player_id or "", deliver)

    def close() -> None:
        svc.bus.unsubscribe(token)
        svc.disconnect(code, player_id or "")

    return close
