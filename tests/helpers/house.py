"""House tables: a table service on a store."""

from __future__ import annotations

from spades.storage import Store
from spades.tables import TableService


def service_on(path: str, seeds: str | None = None) -> tuple[TableService, Store]:
    """A table service on the database at ``path``, as a server starting on it (its seeds
    drawn as ``seeds``-0, -1, … when given), bots moving at once; and its store."""
    store = Store(path)
    new_seed = iter(f"{seeds}-{n}" for n in range(100)).__next__ if seeds else None
    extra = {"new_seed": new_seed} if new_seed else {}
    return TableService(store, play_delays={"slow": 0.0, "normal": 0.0, "fast": 0.0}, sweep_s=0, **extra), store
