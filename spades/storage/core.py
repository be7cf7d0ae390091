"""What ``Store`` is before its areas: the engine a path or URL names, migrated on start-up,
its transactions, and ``commit``, which runs row operations in one transaction. Each
area's class (``spades.storage.people``, ``tables`` ...) extends this one, and ``Store``
joins them.

Imports: stdlib, ``spades.storage.base`` and ``spades.storage.engines``.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager

from .base import Db, Op
from .engines import Postgres, Sqlite


class StoreCore:
    """The database at ``path``: a SQLite file, or a PostgreSQL URL (``postgresql://`` or
    ``postgres://``) with at most ``max_connections`` connections at once. The schema is
    migrated on start-up."""

    def __init__(self, path: str, *, max_connections: int = 10) -> None:
        self.path = path
        postgres = path.startswith(("postgresql://", "postgres://"))
        self.engine = "postgresql" if postgres else "sqlite"
        self._engine: Sqlite | Postgres = Postgres(path, max_connections) if postgres else Sqlite(path)
        self._engine.migrate()

    @property
    def db(self) -> Db:
        """SQLite: this thread's connection (opened on first use). PostgreSQL: the connection
        of this thread's (greenlet's) open transaction; RuntimeError outside one."""
        return self._engine.db

    def transaction(self) -> AbstractContextManager[Db]:
        """One write transaction, giving its connection (nested ones are savepoints). Raises
        Duplicate for a unique key taken, and what the engine raises. SQLite: this
        process's writers take turns, and the database's write lock is taken at the start
        (``BEGIN IMMEDIATE``)."""
        return self._engine.transaction()

    def _reading(self) -> AbstractContextManager[Db]:
        """A connection for one method's reads: the open transaction's when there is one."""
        return self._engine.reading()

    def migrations(self) -> list[str]:
        """Names of the migrations applied to this database, in the order they were."""
        return self._engine.migrations()

    def close(self) -> None:
        """PostgreSQL: close the pool. SQLite: close this thread's connection (another
        thread's closes with it)."""
        self._engine.close()

    def commit(self, ops: Sequence[Op]) -> None:
        """Store a change, a list of row operations, in ONE transaction: all or nothing,
        each op applied in order to the transaction's connection. Raises Conflict (a move
        that lost a race), Duplicate, and what the engine raises."""
        with self.transaction() as db:
            for op in ops:
                op.apply(db)
