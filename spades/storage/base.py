"""What every module of the storage package shares: the connection as the queries use it
(``Db``), a row operation (``Op``), and the two errors both engines raise (``Conflict``,
``Duplicate``).

Imports: stdlib only.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any, Protocol


class Db(Protocol):
    """A connection as the queries here use it: sqlite-utils' ``Database`` on SQLite,
    ``PgDb`` on PostgreSQL. ``?`` placeholders; ``query`` gives rows as dicts."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Any: ...

    def query(self, sql: str, parameters: Sequence[Any] = ..., /) -> Iterable[dict[str, Any]]: ...


class Op(Protocol):
    """One row operation of a change: ``Store.commit`` hands each the connection of its one
    transaction, in order. An op writes through that connection only (never another
    transaction of its own), so a change is all or nothing; it raises Conflict when the
    rows are not as it expects."""

    def apply(self, db: Db) -> None: ...


def lock(db: Db, key: str) -> None:
    """Hold ``key``'s lock until the transaction of ``db`` ends, so that a check and the
    write it allows (a count against a limit, "none open yet") run one at a time for that
    key across processes and machines. PostgreSQL: an advisory transaction lock
    (``PgDb.advisory_lock``); SQLite needs none: a write transaction holds the database's
    write lock from its start (``BEGIN IMMEDIATE``), so writers already take turns."""
    take = getattr(db, "advisory_lock", None)
    if take is not None:
        take(key)


class Conflict(Exception):
    """A write that lost a race: the stored version is not the one expected."""


class Duplicate(sqlite3.IntegrityError):
    """A unique key is taken (a code drawn twice, a person registering twice), on either
    engine. A ``sqlite3.IntegrityError``, so code written for SQLite catches it as before."""
