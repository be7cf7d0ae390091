"""The two engines: how SQLite (sqlite-utils) and PostgreSQL (psycopg 3) are connected to,
run a transaction, and apply and record the migrations. The queries themselves are the
areas' (one set for both engines); ``PgDb`` is the one place their ``?`` placeholders
become psycopg's ``%s``.

SQLite: one connection per OS thread, never shared across threads (under gevent every
greenlet of a thread uses its thread's connection: no query here yields, so each runs
whole), and one writer per process at a time. PostgreSQL: a pool; a connection is held
for one read or one transaction, by one thread (one greenlet under gevent) the whole time.

Imports: stdlib, sqlite-utils, ``spades.storage.base`` and ``spades.storage.migrations``;
psycopg and psycopg_pool only when a PostgreSQL engine is made (so after gevent has
patched the standard library).
"""

from __future__ import annotations

import datetime
import fcntl
import functools
import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

from sqlite_utils import Database

from .base import Duplicate
from .migrations import MIGRATION_SET, MIGRATIONS, PgSchema, sqlite_migrations


def _thread_local() -> threading.local:
    """Storage for one OS thread, also when gevent has patched ``threading.local`` to
    mean one greenlet (a connection per greenlet would be one per open WebSocket)."""
    try:
        from gevent import monkey
    except ImportError:
        return threading.local()
    if monkey.is_module_patched("threading"):
        return monkey.get_original("threading", "local")()
    return threading.local()


_SQLITE_UNIQUE = ("SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY")


class Sqlite:
    """SQLite at ``path``: one connection per OS thread, one writer per process at a time."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._local = _thread_local()
        self._write = threading.RLock()  # one writer per process (see the module docstring)
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)

    @property
    def db(self) -> Database:
        """This thread's connection (opened on first use)."""
        db = getattr(self._local, "db", None)
        if db is None:
            # the busy timeout: another process's writer is waited for, not failed on
            conn = sqlite3.connect(self.path, timeout=10)
            conn.execute("PRAGMA busy_timeout = 10000")
            conn.execute("PRAGMA synchronous = NORMAL")  # safe with WAL: a commit survives a crash of the process
            conn.execute("PRAGMA foreign_keys = ON")
            db = Database(conn)
            self._local.db = db
        return db

    def reading(self) -> AbstractContextManager[Database]:
        return nullcontext(self.db)

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        db = self.db
        with self._write:
            try:
                if db.conn.in_transaction:
                    with db.atomic():
                        yield db
                    return
                db.conn.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                except BaseException:
                    if db.conn.in_transaction:
                        db.conn.execute("ROLLBACK")
                    raise
                try:
                    db.conn.execute("COMMIT")
                except BaseException:
                    if db.conn.in_transaction:
                        db.conn.execute("ROLLBACK")
                    raise
            except sqlite3.IntegrityError as e:
                if isinstance(e, Duplicate) or e.sqlite_errorname not in _SQLITE_UNIQUE:
                    raise
                raise Duplicate(*e.args) from e

    def migrate(self) -> None:
        """Switch to WAL and apply the migrations, one process at a time: several workers
        starting on a new file at once would otherwise both migrate, and one would meet
        "database is locked" (or a table made by the other). The lock is an exclusive
        ``flock`` on ``<path>.migrate``, beside the database: a process that finds it held
        waits for it, then finds the migrations applied and has nothing to do."""
        db = self.db
        with self._write, open(self.path + ".migrate", "a") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            try:
                db.enable_wal()
                sqlite_migrations().apply(db)
            finally:
                fcntl.flock(held, fcntl.LOCK_UN)

    def migrations(self) -> list[str]:
        return [m.name for m in sqlite_migrations().applied(self.db)]

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            self._local.db = None
            db.conn.close()


@functools.lru_cache(maxsize=2048)
def _pg_sql(sql: str) -> str:
    """A query's text for psycopg: ``%s`` for each ``?``, and ``%`` itself doubled."""
    return sql.replace("%", "%%").replace("?", "%s")


class PgDb:
    """A psycopg connection as the queries here use it (sqlite-utils' ``execute`` and
    ``query``): the one place ``?`` placeholders become psycopg's. A unique key taken is
    Duplicate at the statement, as sqlite3 raises IntegrityError there, so an op may turn
    it into what it means (a rematch that exists is a Conflict) on both engines alike."""

    __slots__ = ("conn", "_unique")

    def __init__(self, conn: Any, unique: type[Exception]) -> None:
        self.conn = conn
        self._unique = unique  # psycopg.errors.UniqueViolation (psycopg is imported only for PostgreSQL)

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Any:
        try:
            return self.conn.execute(_pg_sql(sql), parameters)
        except self._unique as e:
            raise Duplicate(str(e)) from e

    def query(self, sql: str, parameters: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return self.execute(sql, parameters).fetchall()

    def advisory_lock(self, key: str) -> None:
        """Hold ``key``'s lock until this transaction ends (``spades.storage.base.lock``)."""
        self.conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [key])


_MIGRATION_LOCK = int.from_bytes(b"spades-m", "big")  # the advisory lock's key, any fixed number


class Postgres:
    """PostgreSQL at ``url``: a pool of connections, one held per transaction or method."""

    def __init__(self, url: str, max_connections: int) -> None:
        # imported here: only PostgreSQL needs them, and after gevent's patching psycopg
        # waits for the server in a way that lets other greenlets run
        import psycopg
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool

        self._unique = psycopg.errors.UniqueViolation
        self._local = threading.local()  # per greenlet under gevent: a transaction is its greenlet's
        self._pool = ConnectionPool(url, min_size=1, max_size=max_connections, open=True, name="spades",
                                    kwargs={"autocommit": True, "row_factory": dict_row})

    @property
    def db(self) -> PgDb:
        db = getattr(self._local, "tx", None)
        if db is None:
            raise RuntimeError("on PostgreSQL a connection is held only inside Store.transaction()")
        return db

    def reading(self) -> AbstractContextManager[PgDb]:
        db = getattr(self._local, "tx", None)
        return nullcontext(db) if db is not None else self._borrowed()

    @contextmanager
    def _borrowed(self) -> Iterator[PgDb]:
        with self._pool.connection() as conn:
            yield PgDb(conn, self._unique)

    @contextmanager
    def transaction(self) -> Iterator[PgDb]:
        db = getattr(self._local, "tx", None)
        try:
            if db is not None:
                with db.conn.transaction():  # a savepoint
                    yield db
                return
            with self._pool.connection() as conn, conn.transaction():
                self._local.tx = db = PgDb(conn, self._unique)
                try:
                    yield db
                finally:
                    self._local.tx = None
        except self._unique as e:
            raise Duplicate(str(e)) from e

    def migrate(self) -> None:
        with self.transaction() as db:
            db.execute("SELECT pg_advisory_xact_lock(?)", [_MIGRATION_LOCK])
            db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (id BIGINT GENERATED ALWAYS AS IDENTITY "
                       "PRIMARY KEY, migration_set TEXT NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL, "
                       "UNIQUE (migration_set, name))")
            done = set(self.migrations())
            for fn in MIGRATIONS:
                if fn.__name__ not in done:
                    fn(PgSchema(db.conn))
                    db.execute("INSERT INTO schema_migrations (migration_set, name, applied_at) VALUES (?, ?, ?)",
                               [MIGRATION_SET, fn.__name__, str(datetime.datetime.now(datetime.UTC))])

    def migrations(self) -> list[str]:
        with self.reading() as db:
            return [r["name"] for r in db.query(
                "SELECT name FROM schema_migrations WHERE migration_set = ? ORDER BY id", [MIGRATION_SET])]

    def close(self) -> None:
        self._pool.close()


