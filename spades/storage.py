"""Storage: the only module that writes SQL, on SQLite (the default) or on PostgreSQL.

A table (``tables``) is where matches are played; each match (``matches``) keeps its
seed and rules, and its moves in ``actions``, append-only, one row per version. State is
never stored, only rebuilt: replaying a match's actions in order gives the exact state
back (see ``spades.tables``).

``Store(path)`` opens a SQLite file; ``Store("postgresql://…")`` (or ``postgres://``) a
PostgreSQL database through psycopg 3. Both engines run the same queries, written once
with ``?`` placeholders (``_PgDb`` turns them into psycopg's ``%s``, in one place). What
differs lives in the two engine classes, ``_Sqlite`` and ``_Postgres`` (connections,
transactions, the record of migrations), and in a few lines of the migrations' DDL.

Connections. SQLite: one per OS thread (``Store.db``), never shared across threads.
Under gevent every greenlet of a thread uses its thread's connection: no method here
yields (sqlite3 calls are not gevent switch points), so each runs whole. PostgreSQL: a
pool (psycopg_pool, 1 to ``max_connections`` connections, 10 by default); a connection is
held only for one Store method or one ``transaction()`` block, by one thread (one
greenlet under gevent, where psycopg yields while it waits for the server) the whole
time, never by two at once; ``Store.db`` is the open transaction's connection, and
there is none outside one. Pooled connections are in autocommit mode: a read outside a
transaction is its statement alone. ``Store.close`` closes the pool.

Transactions. Every write is one transaction (``Store.transaction``); a nested one, in
the same thread or greenlet, is a savepoint of the outer one. ``Store.commit`` stores a
list of row operations (``SaveMove``, ``PutClock`` ...) in one transaction, all or
nothing: the table service's whole change. SQLite: one process writes one at a time:
transactions take a process-wide lock first, so a busy process never meets "database is
locked" from itself; ``BEGIN IMMEDIATE`` and the busy timeout cover other processes (a
command-line tool, say). PostgreSQL: transactions run side by side (read committed); a
write guarded by what it expects (``UPDATE … WHERE version = ?``) waits for a concurrent
writer of the same row, then checks its guard against that writer's result.

Errors, the same on both engines: ``Conflict``, a write that lost a race (the version a
move expects is gone, a rematch that exists, a seat no longer a bot's); ``Duplicate``, a
unique key taken (a table or tourney code drawn twice, a person in two teams of one
tourney), raised by any transaction that met one. ``Duplicate`` is a
``sqlite3.IntegrityError``, so code that catches that catches it on both engines.

Migrations. ``MIGRATIONS`` is one list for both engines: functions of a ``Schema``
(tables, columns, indexes: sqlite-utils builds them on SQLite; on PostgreSQL they are
TEXT, BIGINT and DOUBLE PRECISION, an ``id`` primary key an identity), applied in order
on start-up, each once. SQLite records them as sqlite-utils' ``Migrations`` do (table
``_sqlite_migrations``, set ``spades``), so files from before open as they are.
PostgreSQL records them in ``schema_migrations`` and applies them in one transaction
under an advisory lock, so two processes starting at once do not both migrate.

Imports: stdlib and sqlite-utils; psycopg and psycopg_pool only when a PostgreSQL URL
is given (so after gevent has patched the standard library). No Flask, no core.
"""

from __future__ import annotations

import datetime
import functools
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any, Protocol

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations as SqliteMigrations


class Db(Protocol):
    """A connection as the queries here use it: sqlite-utils' ``Database`` on SQLite,
    ``_PgDb`` on PostgreSQL. ``?`` placeholders; ``query`` gives rows as dicts."""

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Any: ...

    def query(self, sql: str, parameters: Sequence[Any] = ..., /) -> Iterable[dict[str, Any]]: ...


class Schema(Protocol):
    """What a migration does, on either engine. ``engine``: ``"sqlite"`` or ``"postgresql"``
    (for the rare statement written twice, a trigger). Column types are ``str``, ``int``
    and ``float``; ``foreign_keys`` are (column, other table, its column)."""

    engine: str

    def create_table(self, name: str, columns: dict[str, type], pk: str | tuple[str, ...], *,
                     not_null: Iterable[str] = (), defaults: dict[str, Any] | None = None,
                     foreign_keys: Iterable[tuple[str, str, str]] = ()) -> None: ...

    def add_column(self, table: str, column: str, type_: type, not_null_default: Any = None) -> None: ...

    def create_index(self, table: str, columns: list[str], *, unique: bool = False) -> None: ...

    def execute(self, sql: str) -> None: ...


Migration = Callable[[Schema], None]
MIGRATIONS: list[Migration] = []
MIGRATION_SET = "spades"  # the name migrations are recorded under


def migration(fn: Migration) -> Migration:
    """Register a migration, named by its function: they apply in the order registered."""
    MIGRATIONS.append(fn)
    return fn


@migration
def m001_tables_matches_seats_actions(s: Schema) -> None:
    s.create_table("players", {"id": str, "name": str, "emoji": str, "created": float}, pk="id")
    s.create_table("tables", {"code": str, "created": float, "host": str, "options": str, "status": str}, pk="code")
    s.create_table(
        "matches",
        {"id": int, "table_code": str, "number": int, "seed": str, "rules": str,
         "version": int, "created": float, "finished": int, "winner": int},
        pk="id", foreign_keys=[("table_code", "tables", "code")],
    )
    s.create_index("matches", ["table_code", "number"], unique=True)
    s.create_table(
        "seats", {"table_code": str, "seat": int, "kind": str, "player_id": str, "name": str},
        pk=("table_code", "seat"), foreign_keys=[("table_code", "tables", "code")],
    )
    s.create_index("seats", ["player_id"])
    # Append-only: one row per accepted move; (match_id, version) is the move's identity,
    # so a move can never be stored twice.
    s.create_table(
        "actions", {"match_id": int, "version": int, "seat": int, "action": str, "at": float},
        pk=("match_id", "version"), foreign_keys=[("match_id", "matches", "id")],
    )


@migration
def m002_lobby(s: Schema) -> None:
    """Rooms where friends gather before a match: who joined, in which order, and the
    host's choice of partner. ``seats.emoji``: the emoji each person chose for the table."""
    s.add_column("seats", "emoji", str, not_null_default="")
    # partner: a member number, 0 for a bot, NULL while the host has not chosen
    s.create_table("rooms", {"code": str, "partner": int, "started": float}, pk="code",
                   foreign_keys=[("code", "tables", "code")])
    # number: join order within the room (1 is the creator); state: in, left or removed
    s.create_table(
        "room_members",
        {"table_code": str, "number": int, "player_id": str, "name": str, "emoji": str,
         "state": str, "joined": float},
        pk=("table_code", "number"), foreign_keys=[("table_code", "tables", "code")],
    )
    s.create_index("room_members", ["table_code", "player_id"], unique=True)
    s.create_index("room_members", ["player_id"])


# m002_lobby (the play-with-friends issue) goes above this line: migrations apply in the
# order they are registered.
@migration
def m003_accounts(s: Schema) -> None:
    """Accounts, sign-in codes and ratings.

    ``users.id`` IS the account's canonical player id (the ``pid`` a signed-in session
    carries), so seats need no second key. ``session_gen`` is bumped by "sign out on every
    device"; a session whose copy differs is cleared. ``login_codes`` keeps only an HMAC of
    each code. ``seats.left_player_id``: the person who left that seat for good when a bot
    took it over (the row then has ``kind = 'bot'``); records count only ``kind = 'human'``
    seats, so a game someone left never counts toward the leaver's record.
    """
    s.create_table(
        "users", {"id": str, "email": str, "name": str, "emoji": str, "created": float, "session_gen": int},
        pk="id", not_null={"email", "session_gen"}, defaults={"session_gen": 0},
    )
    s.create_index("users", ["email"], unique=True)
    s.create_table(
        "login_codes",
        {"id": int, "email": str, "code_hash": str, "created": float, "expires": float,
         "tries": int, "used": int, "voided": int},
        pk="id", defaults={"tries": 0, "used": 0, "voided": 0},
    )
    s.create_index("login_codes", ["email", "id"])
    s.add_column("seats", "left_player_id", str)
    s.create_index("seats", ["left_player_id"])
    s.create_table("ratings", {"player_id": str, "mu": float, "sigma": float, "matches": int, "updated": float},
                   pk="player_id")
    # one row per finished match already counted in the ratings (each match rates once)
    s.create_table("rated_matches", {"match_id": int, "at": float}, pk="match_id",
                   foreign_keys=[("match_id", "matches", "id")])


@migration
def m004_match_seats(s: Schema) -> None:
    """Who sat where in each finished match, frozen when it finished (``match_seats``).

    ``seats`` holds a table's seating now; a rematch may rearrange it (a new partner), so
    a person's record reads finished matches from here. A trigger copies the seats the
    moment a match's ``finished`` turns 1: a seat left to a bot during the match is
    frozen as the bot's (``kind = 'bot'``, ``left_player_id`` = who left)."""
    s.create_table(
        "match_seats",
        {"match_id": int, "seat": int, "kind": str, "player_id": str, "left_player_id": str, "name": str},
        pk=("match_id", "seat"), foreign_keys=[("match_id", "matches", "id")],
    )
    s.create_index("match_seats", ["player_id"])
    if s.engine == "sqlite":
        s.execute("""
        CREATE TRIGGER match_seats_on_finish AFTER UPDATE OF finished ON matches
        WHEN NEW.finished = 1 AND OLD.finished = 0
        BEGIN
            INSERT OR IGNORE INTO match_seats (match_id, seat, kind, player_id, left_player_id, name)
            SELECT NEW.id, seat, kind, player_id, left_player_id, name FROM seats WHERE table_code = NEW.table_code;
        END""")
    else:
        s.execute("""
        CREATE FUNCTION match_seats_on_finish() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO match_seats (match_id, seat, kind, player_id, left_player_id, name)
            SELECT NEW.id, seat, kind, player_id, left_player_id, name FROM seats WHERE table_code = NEW.table_code
            ON CONFLICT DO NOTHING;
            RETURN NULL;
        END $$""")
        s.execute("CREATE TRIGGER match_seats_on_finish AFTER UPDATE OF finished ON matches FOR EACH ROW "
                  "WHEN (NEW.finished = 1 AND OLD.finished = 0) EXECUTE FUNCTION match_seats_on_finish()")
    # matches finished before this migration: their table's seating now is the best we know
    s.execute("INSERT INTO match_seats (match_id, seat, kind, player_id, left_player_id, name) "
              "SELECT m.id, s.seat, s.kind, s.player_id, s.left_player_id, s.name FROM matches m "
              "JOIN seats s ON s.table_code = m.table_code WHERE m.finished = 1 ON CONFLICT DO NOTHING")


@migration
def m005_clocks(s: Schema) -> None:
    """Clocks (``spades.clocks``), kept here so they survive a restart and fire once.

    ``clocks``: the deadline (epoch seconds) of the seat to act in a match, one row per
    match, for the version it was set at: a move at any other version makes it stale.
    ``seat_clocks``: each seat's record with the clock during a match (timeouts in a row,
    ever timed out, autopilot). ``holds``: a seat whose player's last connection closed,
    held ``until``; ``fired`` once a bot took the seat over (until the player is back)."""
    s.create_table("clocks", {"match_id": int, "seat": int, "version": int, "deadline": float},
                   pk="match_id", foreign_keys=[("match_id", "matches", "id")])
    s.create_index("clocks", ["deadline"])
    s.create_table(
        "seat_clocks", {"match_id": int, "seat": int, "timeouts_in_row": int, "timed_out": int, "autopilot": int},
        pk=("match_id", "seat"), foreign_keys=[("match_id", "matches", "id")])
    s.create_table("holds", {"table_code": str, "seat": int, "dropped_at": float, "until": float, "fired": int},
                   pk=("table_code", "seat"), foreign_keys=[("table_code", "tables", "code")])
    s.create_index("holds", ["until"])


@migration
def m006_signins(s: Schema) -> None:
    """One row per signed-in session (``sid``, kept in the signed cookie): signing out ends
    that row, so a copy of the cookie is signed out too. Sessions from before carry no sid
    and are signed out once."""
    s.create_table("signins", {"sid": str, "user_id": str, "created": float, "ended": float}, pk="sid",
                   foreign_keys=[("user_id", "users", "id")])
    s.create_index("signins", ["user_id"])


@migration
def m007_code_askers(s: Schema) -> None:
    """A sign-in code belongs to the browser that asked for it (``asker``, a random id kept
    in that browser's session): only it may try the code, and asking again voids only its
    own earlier code, so a stranger can neither burn nor void a person's code. Codes from
    before have no asker and can no longer be used."""
    s.add_column("login_codes", "asker", str, not_null_default="")
    s.create_index("login_codes", ["email", "asker", "id"])


@migration
def m008_tourneys(s: Schema) -> None:
    """Tourneys (``spades.tourney.service``): one row each, with the engine's state as its
    JSON (``engine``: the knockout bracket, or the Swiss rounds); the teams (``token``: the
    link a first player sends the partner; ``state``: in, removed, dropped, merged); the
    people and bot partners in them (a person is in at most one team of a tourney);
    every pairing with its due time, its table and its result (``hands`` NULL until it
    has one; 0 for a walkover or a no-show); and who pressed Ready for which pairing."""
    s.create_table(
        "tourneys",
        {"code": str, "name": str, "format": str, "rounds": int, "team_limit": int, "start_at": float,
         "checkin_s": float, "listed": int, "bot_fill": int, "director": str, "status": str, "created": float,
         "started": float, "finished": float, "seed": str, "engine": str, "note": str},
        pk="code", not_null={"name", "format", "status"})
    s.create_index("tourneys", ["status"])
    s.create_table(
        "tourney_teams",
        {"tourney_code": str, "id": int, "token": str, "solo": int, "bot": int, "state": str, "note": str,
         "seed": int, "created": float},
        pk=("tourney_code", "id"), foreign_keys=[("tourney_code", "tourneys", "code")])
    s.create_index("tourney_teams", ["tourney_code", "token"], unique=True)
    s.create_table(
        "tourney_players",
        {"tourney_code": str, "team_id": int, "slot": int, "player_id": str, "name": str, "emoji": str,
         "bot": int, "checked_in": float, "joined": float},
        pk=("tourney_code", "team_id", "slot"), foreign_keys=[("tourney_code", "tourneys", "code")])
    # a person is in at most one team of a tourney (bots have no player id: NULLs never clash)
    s.create_index("tourney_players", ["tourney_code", "player_id"], unique=True)
    s.create_index("tourney_players", ["player_id"])
    s.create_table(
        "tourney_matches",
        {"tourney_code": str, "round": int, "slot": int, "team_a": int, "team_b": int, "target": int,
         "due": float, "table_code": str, "winner": int, "score_a": int, "score_b": int, "hands": int,
         "walkover": int, "note": str, "done": float},
        pk=("tourney_code", "round", "slot"), foreign_keys=[("tourney_code", "tourneys", "code")])
    s.create_index("tourney_matches", ["table_code"])
    s.create_table(
        "tourney_ready", {"tourney_code": str, "round": int, "slot": int, "player_id": str, "at": float},
        pk=("tourney_code", "round", "slot", "player_id"), foreign_keys=[("tourney_code", "tourneys", "code")])


class _SqliteSchema:
    """``Schema`` on SQLite: sqlite-utils builds the tables, as it always has here."""

    engine = "sqlite"

    def __init__(self, db: Database) -> None:
        self.db = db

    def create_table(self, name: str, columns: dict[str, type], pk: str | tuple[str, ...], *,
                     not_null: Iterable[str] = (), defaults: dict[str, Any] | None = None,
                     foreign_keys: Iterable[tuple[str, str, str]] = ()) -> None:
        self.db[name].create(columns, pk=pk, not_null=set(not_null) or None, defaults=defaults,
                             foreign_keys=list(foreign_keys) or None)

    def add_column(self, table: str, column: str, type_: type, not_null_default: Any = None) -> None:
        self.db[table].add_column(column, type_, not_null_default=not_null_default)

    def create_index(self, table: str, columns: list[str], *, unique: bool = False) -> None:
        self.db[table].create_index(columns, unique=unique)

    def execute(self, sql: str) -> None:
        self.db.execute(sql)


_PG_TYPES = {str: "TEXT", int: "BIGINT", float: "DOUBLE PRECISION"}


def _name(identifier: str) -> str:
    return f'"{identifier}"'


def _literal(value: Any) -> str:
    """A default value as SQL (the migrations' defaults are numbers and strings)."""
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


class _PgSchema:
    """``Schema`` on PostgreSQL: the same tables in portable DDL (an ``id`` primary key of
    type int is an identity column, as SQLite's INTEGER PRIMARY KEY numbers rows itself),
    indexes named as sqlite-utils names them."""

    engine = "postgresql"

    def __init__(self, db: _PgDb) -> None:
        self.db = db

    def create_table(self, name: str, columns: dict[str, type], pk: str | tuple[str, ...], *,
                     not_null: Iterable[str] = (), defaults: dict[str, Any] | None = None,
                     foreign_keys: Iterable[tuple[str, str, str]] = ()) -> None:
        keys = (pk,) if isinstance(pk, str) else tuple(pk)
        required, defaults = set(not_null), defaults or {}
        parts = []
        for column, type_ in columns.items():
            part = f"{_name(column)} {_PG_TYPES[type_]}"
            if keys == (column,) == ("id",) and type_ is int:
                part += " GENERATED BY DEFAULT AS IDENTITY"
            if column in required:
                part += " NOT NULL"
            if column in defaults:
                part += f" DEFAULT {_literal(defaults[column])}"
            parts.append(part)
        parts.append(f"PRIMARY KEY ({', '.join(map(_name, keys))})")
        parts += [f"FOREIGN KEY ({_name(c)}) REFERENCES {_name(t)} ({_name(o)})" for c, t, o in foreign_keys]
        self.execute(f"CREATE TABLE {_name(name)} ({', '.join(parts)})")

    def add_column(self, table: str, column: str, type_: type, not_null_default: Any = None) -> None:
        default = "" if not_null_default is None else f" NOT NULL DEFAULT {_literal(not_null_default)}"
        self.execute(f"ALTER TABLE {_name(table)} ADD COLUMN {_name(column)} {_PG_TYPES[type_]}{default}")

    def create_index(self, table: str, columns: list[str], *, unique: bool = False) -> None:
        index = _name(f"idx_{table}_{'_'.join(columns)}")
        self.execute(f"CREATE {'UNIQUE ' if unique else ''}INDEX {index} ON {_name(table)} "
                     f"({', '.join(map(_name, columns))})")

    def execute(self, sql: str) -> None:
        self.db.conn.execute(sql)  # as written: no placeholders (a function body has its own $ and %)


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    kind: str  # "human" or "bot"
    player_id: str | None
    name: str
    emoji: str = ""


@dataclass(frozen=True, slots=True)
class MatchRow:
    id: int
    number: int
    seed: str
    rules: dict
    version: int
    finished: bool


@dataclass(frozen=True, slots=True)
class TableRow:
    code: str
    host: str | None
    options: dict
    status: str
    seats: tuple[SeatRow, ...]
    match: MatchRow


@dataclass(frozen=True, slots=True)
class MemberRow:
    """Someone who joined a room: ``number`` is the join order (1 is the creator)."""

    number: int
    player_id: str
    name: str
    emoji: str
    state: str  # "in", "left" or "removed"


@dataclass(frozen=True, slots=True)
class RoomRow:
    """A table seen from its room: status, host, options, partner choice and members."""

    code: str
    host: str | None
    options: dict
    status: str  # "waiting", "playing", "finished" or "closed"
    partner: int | None  # a member number, 0 for a bot, None while not chosen
    members: tuple[MemberRow, ...]
    seated: tuple[str, ...]  # player ids holding a human seat (once started)


class Conflict(Exception):
    """A write that lost a race: the stored version is not the one expected."""


class Duplicate(sqlite3.IntegrityError):
    """A unique key is taken (a code drawn twice, a person registering twice), on either
    engine. A ``sqlite3.IntegrityError``, so code written for SQLite catches it as before."""


class Op(Protocol):
    """One row operation of a table's change (``Store.commit`` runs a list in one transaction)."""

    def apply(self, store: Store) -> None: ...


@dataclass(frozen=True, slots=True)
class SaveMove:
    """An accepted move: its action row and the match's new version (a lost race: Conflict)."""

    match_id: int
    version: int
    seat: int | None
    action: str
    finished: bool = False
    winner: int | None = None

    def apply(self, store: Store) -> None:
        # inside Store.commit's transaction: no savepoint of its own on a move's hot path
        store._append_action(self.match_id, self.version, self.seat, self.action, self.finished, self.winner)


@dataclass(frozen=True, slots=True)
class PutClock:
    """The match's clock: (seat, version, deadline), or None for no clock."""

    match_id: int
    clock: tuple[int, int, float] | None

    def apply(self, store: Store) -> None:
        store._put_clock(self.match_id, self.clock)


@dataclass(frozen=True, slots=True)
class PutSeatClock:
    """A seat's record with the clock in a match."""

    match_id: int
    seat: int
    timeouts_in_row: int
    timed_out: bool
    autopilot: bool

    def apply(self, store: Store) -> None:
        store._put_seat_clock(self.match_id, self.seat, self.timeouts_in_row, self.timed_out, self.autopilot)


@dataclass(frozen=True, slots=True)
class PutHold:
    """A seat held for its person, whose last connection closed, until ``until``."""

    code: str
    seat: int
    dropped_at: float
    until: float

    def apply(self, store: Store) -> None:
        store.set_hold(self.code, self.seat, self.dropped_at, self.until)


@dataclass(frozen=True, slots=True)
class ClearHold:
    code: str
    seat: int

    def apply(self, store: Store) -> None:
        store.clear_hold(self.code, self.seat)


@dataclass(frozen=True, slots=True)
class FireHold:
    """The hold ran out: a bot plays the seat (Conflict if it had fired already or is gone)."""

    code: str
    seat: int

    def apply(self, store: Store) -> None:
        if not store.fire_hold(self.code, self.seat):
            raise Conflict(f"the hold of seat {self.seat} at {self.code} is not waiting")


@dataclass(frozen=True, slots=True)
class LeaveSeat:
    """A person leaves for good: the seat becomes a bot's; ``host`` hosts from now on."""

    code: str
    seat: int
    player_id: str
    emoji: str
    host: str | None

    def apply(self, store: Store) -> None:
        store.leave_seat(self.code, self.seat, self.player_id, self.emoji, self.host)


@dataclass(frozen=True, slots=True)
class TakeSeat:
    """A person joining late takes a bot's seat (Conflict if it is not a bot's any more)."""

    code: str
    seat: int
    player_id: str
    name: str
    emoji: str

    def apply(self, store: Store) -> None:
        store.take_seat(self.code, self.seat, self.player_id, self.name, self.emoji)


@dataclass(frozen=True, slots=True)
class PutOptions:
    """The table's options, changed while it plays (watching on or off, say)."""

    code: str
    options: dict

    def apply(self, store: Store) -> None:
        store.put_options(self.code, self.options)


@dataclass(frozen=True, slots=True)
class NewMatch:
    """A rematch: match ``number`` starts (Conflict if it exists); ``seats`` when they change."""

    code: str
    number: int
    seed: str
    rules: dict
    seats: tuple[SeatRow, ...] | None = None

    def apply(self, store: Store) -> None:
        if self.seats is None:
            store.new_match(self.code, self.number, self.seed, self.rules)
        else:
            store.rematch_seats(self.code, self.number, self.seed, self.rules, list(self.seats))


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


class _Sqlite:
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
        db = self.db
        db.enable_wal()
        with self._write:
            _sqlite_migrations().apply(db)

    def migrations(self) -> list[str]:
        return [m.name for m in _sqlite_migrations().applied(self.db)]

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            self._local.db = None
            db.conn.close()


def _sqlite_migrations() -> SqliteMigrations:
    """``MIGRATIONS`` as sqlite-utils applies and records them (``_sqlite_migrations``)."""
    runner = SqliteMigrations(MIGRATION_SET)
    for fn in MIGRATIONS:
        runner(name=fn.__name__)(functools.partial(_on_sqlite, fn))
    return runner


def _on_sqlite(fn: Migration, db: Database) -> None:
    fn(_SqliteSchema(db))


@functools.lru_cache(maxsize=2048)
def _pg_sql(sql: str) -> str:
    """A query's text for psycopg: ``%s`` for each ``?``, and ``%`` itself doubled."""
    return sql.replace("%", "%%").replace("?", "%s")


class _PgDb:
    """A psycopg connection as the queries here use it (sqlite-utils' ``execute`` and
    ``query``): the one place ``?`` placeholders become psycopg's."""

    __slots__ = ("conn",)

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Any:
        return self.conn.execute(_pg_sql(sql), parameters)

    def query(self, sql: str, parameters: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return self.conn.execute(_pg_sql(sql), parameters).fetchall()


_MIGRATION_LOCK = int.from_bytes(b"spades-m", "big")  # the advisory lock's key, any fixed number


class _Postgres:
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
    def db(self) -> _PgDb:
        db = getattr(self._local, "tx", None)
        if db is None:
            raise RuntimeError("on PostgreSQL a connection is held only inside Store.transaction()")
        return db

    def reading(self) -> AbstractContextManager[_PgDb]:
        db = getattr(self._local, "tx", None)
        return nullcontext(db) if db is not None else self._borrowed()

    @contextmanager
    def _borrowed(self) -> Iterator[_PgDb]:
        with self._pool.connection() as conn:
            yield _PgDb(conn)

    @contextmanager
    def transaction(self) -> Iterator[_PgDb]:
        db = getattr(self._local, "tx", None)
        try:
            if db is not None:
                with db.conn.transaction():  # a savepoint
                    yield db
                return
            with self._pool.connection() as conn, conn.transaction():
                self._local.tx = db = _PgDb(conn)
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
                    fn(_PgSchema(db))
                    db.execute("INSERT INTO schema_migrations (migration_set, name, applied_at) VALUES (?, ?, ?)",
                               [MIGRATION_SET, fn.__name__, str(datetime.datetime.now(datetime.timezone.utc))])

    def migrations(self) -> list[str]:
        with self.reading() as db:
            return [r["name"] for r in db.query(
                "SELECT name FROM schema_migrations WHERE migration_set = ? ORDER BY id", [MIGRATION_SET])]

    def close(self) -> None:
        self._pool.close()


class Store:
    """The database at ``path``: a SQLite file, or a PostgreSQL URL (``postgresql://`` or
    ``postgres://``) with at most ``max_connections`` connections at once. The schema is
    migrated on start-up."""

    def __init__(self, path: str, *, max_connections: int = 10) -> None:
        self.path = path
        postgres = path.startswith(("postgresql://", "postgres://"))
        self.engine = "postgresql" if postgres else "sqlite"
        self._engine: _Sqlite | _Postgres = _Postgres(path, max_connections) if postgres else _Sqlite(path)
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
        """Store a table's change, a list of row operations, in ONE transaction: all or
        nothing. Raises Conflict (a move that lost a race), Duplicate, and what the engine
        raises."""
        with self.transaction():
            for op in ops:
                op.apply(self)

    # -- players ---------------------------------------------------------------------
    def ensure_player(self, player_id: str, name: str = "You", emoji: str = "") -> None:
        """Create the player row if missing (an anonymous browser, known by its cookie)."""
        with self.transaction() as db:
            db.execute("INSERT INTO players (id, name, emoji, created) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                       [player_id, name, emoji, time.time()])

    # -- tables ----------------------------------------------------------------------
    def create_table(self, code: str, host: str | None, options: dict, seats: list[SeatRow],
                     seed: str, rules: dict) -> None:
        """A new table with its seats and its first match. Raises Duplicate (a
        sqlite3.IntegrityError) when the code is taken."""
        now = time.time()
        with self.transaction() as db:
            db.execute("INSERT INTO tables (code, created, host, options, status) VALUES (?, ?, ?, ?, 'playing')",
                       [code, now, host, json.dumps(options)])
            self._insert_seats(db, code, seats)
            self._insert_match(db, code, 1, seed, rules, now)

    @staticmethod
    def _insert_seats(db: Db, code: str, seats: list[SeatRow]) -> None:
        for s in seats:
            db.execute("INSERT INTO seats (table_code, seat, kind, player_id, name, emoji) VALUES (?, ?, ?, ?, ?, ?)",
                       [code, s.seat, s.kind, s.player_id, s.name, s.emoji])

    @staticmethod
    def _insert_match(db: Db, code: str, number: int, seed: str, rules: dict, now: float) -> None:
        db.execute("INSERT INTO matches (table_code, number, seed, rules, version, created, finished, winner) "
                   "VALUES (?, ?, ?, ?, 0, ?, 0, NULL)", [code, number, seed, json.dumps(rules), now])

    def new_match(self, code: str, number: int, seed: str, rules: dict) -> None:
        """Start match ``number`` at a table (a rematch). Raises Conflict if it exists."""
        try:
            with self.transaction() as db:
                self._insert_match(db, code, number, seed, rules, time.time())
                db.execute("UPDATE tables SET status = 'playing' WHERE code = ?", [code])
        except sqlite3.IntegrityError:
            raise Conflict(f"match {number} of {code} already exists") from None

    def load_table(self, code: str) -> TableRow | None:
        """The table and its current (latest) match, or None for an unknown code."""
        with self._reading() as db:
            rows = list(db.query("SELECT * FROM tables WHERE code = ?", [code]))
            if not rows:
                return None
            t = rows[0]
            seats = tuple(SeatRow(r["seat"], r["kind"], r["player_id"], r["name"], r.get("emoji") or "")
                          for r in db.query("SELECT * FROM seats WHERE table_code = ? ORDER BY seat", [code]))
            m = next(iter(db.query("SELECT * FROM matches WHERE table_code = ? ORDER BY number DESC LIMIT 1",
                                   [code])))
        match = MatchRow(m["id"], m["number"], m["seed"], json.loads(m["rules"]), m["version"], bool(m["finished"]))
        return TableRow(t["code"], t["host"], json.loads(t["options"]), t["status"], seats, match)

    def actions(self, match_id: int) -> list[tuple[int, int | None, str]]:
        """A match's moves in order: (version, seat, action text)."""
        with self._reading() as db:
            return [(r["version"], r["seat"], r["action"]) for r in db.query(
                "SELECT version, seat, action FROM actions WHERE match_id = ? ORDER BY version", [match_id])]

    def append_action(self, match_id: int, version: int, seat: int | None, action: str,
                      finished: bool = False, winner: int | None = None) -> None:
        """Store one accepted move and the match's new version in one transaction.
        Raises Conflict unless the stored version is ``version - 1`` (a lost race)."""
        with self.transaction():
            self._append_action(match_id, version, seat, action, finished, winner)

    def _append_action(self, match_id: int, version: int, seat: int | None, action: str, finished: bool,
                       winner: int | None) -> None:
        db = self.db
        cur = db.execute("UPDATE matches SET version = ?, finished = ?, winner = ? WHERE id = ? AND version = ?",
                         [version, int(finished), winner, match_id, version - 1])
        if cur.rowcount != 1:
            raise Conflict(f"match {match_id} is not at version {version - 1}")
        db.execute("INSERT INTO actions (match_id, version, seat, action, at) VALUES (?, ?, ?, ?, ?)",
                   [match_id, version, seat, action, time.time()])
        if finished:
            db.execute("UPDATE tables SET status = 'finished' WHERE code = "
                       "(SELECT table_code FROM matches WHERE id = ?)", [match_id])

    def unfinished_tables(self) -> list[str]:
        """Codes of tables whose current match is still being played (resumed on start-up)."""
        with self._reading() as db:
            return [r["code"] for r in db.query("SELECT code FROM tables WHERE status = 'playing'")]

    def table_exists(self, code: str) -> bool:
        with self._reading() as db:
            return bool(list(db.query("SELECT 1 FROM tables WHERE code = ?", [code])))

    def stats(self) -> dict[str, Any]:
        """Row counts (for diagnostics and tests)."""
        with self._reading() as db:
            return {name: next(iter(db.query(f"SELECT COUNT(*) AS n FROM {name}")))["n"]
                    for name in ("players", "tables", "matches", "seats", "actions")}

    # -- lobby -----------------------------------------------------------------------
    def create_room(self, code: str, host: str, options: dict, name: str, emoji: str) -> None:
        """A table waiting for players (no seats, no match yet) with its creator as member 1.
        Raises Duplicate (a sqlite3.IntegrityError) when the code is taken."""
        now = time.time()
        with self.transaction() as db:
            db.execute("INSERT INTO tables (code, created, host, options, status) VALUES (?, ?, ?, ?, 'waiting')",
                       [code, now, host, json.dumps(options)])
            db.execute("INSERT INTO rooms (code, partner, started) VALUES (?, NULL, NULL)", [code])
            db.execute("INSERT INTO room_members (table_code, number, player_id, name, emoji, state, joined) "
                       "VALUES (?, 1, ?, ?, ?, 'in', ?)", [code, host, name, emoji, now])

    def load_room(self, code: str) -> RoomRow | None:
        """Any table seen from its room (a practice table has no members), or None."""
        with self._reading() as db:
            rows = list(db.query("SELECT t.*, r.partner FROM tables t LEFT JOIN rooms r ON r.code = t.code "
                                 "WHERE t.code = ?", [code]))
            if not rows:
                return None
            t = rows[0]
            members = tuple(MemberRow(r["number"], r["player_id"], r["name"], r["emoji"], r["state"])
                            for r in db.query("SELECT * FROM room_members WHERE table_code = ? ORDER BY number",
                                              [code]))
            seated = tuple(r["player_id"] for r in db.query(
                "SELECT player_id FROM seats WHERE table_code = ? AND kind = 'human' ORDER BY seat", [code]))
        return RoomRow(t["code"], t["host"], json.loads(t["options"]), t["status"], t["partner"], members, seated)

    def join_room(self, code: str, player_id: str, name: str, emoji: str) -> int:
        """Add (or bring back) a member at the end of the join order; a member already in
        only updates name and emoji. Returns the member number."""
        with self.transaction() as db:
            rows = list(db.query("SELECT number, state FROM room_members WHERE table_code = ? AND player_id = ?",
                                 [code, player_id]))
            if rows and rows[0]["state"] == "in":
                db.execute("UPDATE room_members SET name = ?, emoji = ? WHERE table_code = ? AND number = ?",
                           [name, emoji, code, rows[0]["number"]])
                return rows[0]["number"]
            number = next(iter(db.query("SELECT COALESCE(MAX(number), 0) + 1 AS n FROM room_members "
                                        "WHERE table_code = ?", [code])))["n"]
            if rows:  # back after leaving: to the end of the join order
                db.execute("UPDATE room_members SET number = ?, name = ?, emoji = ?, state = 'in', joined = ? "
                           "WHERE table_code = ? AND player_id = ?", [number, name, emoji, time.time(), code, player_id])
            else:
                db.execute("INSERT INTO room_members (table_code, number, player_id, name, emoji, state, joined) "
                           "VALUES (?, ?, ?, ?, ?, 'in', ?)", [code, number, player_id, name, emoji, time.time()])
            return number

    def update_room(self, code: str, *, host: str | None = None, partner: int | None | str = "keep",
                    member: tuple[int, str] | None = None, close: bool = False, options: dict | None = None) -> None:
        """One change to a waiting room, in one transaction: a new host, the partner choice
        (``None`` clears it), a member's new state (number, state), closing the room, the
        table's options."""
        with self.transaction() as db:
            if options is not None:
                db.execute("UPDATE tables SET options = ? WHERE code = ? AND status = 'waiting'",
                           [json.dumps(options), code])
            if member is not None:
                db.execute("UPDATE room_members SET state = ? WHERE table_code = ? AND number = ?",
                           [member[1], code, member[0]])
            if host is not None:
                db.execute("UPDATE tables SET host = ? WHERE code = ?", [host, code])
            if partner != "keep":
                db.execute("UPDATE rooms SET partner = ? WHERE code = ?", [partner, code])
            if close:
                db.execute("UPDATE tables SET status = 'closed' WHERE code = ? AND status = 'waiting'", [code])

    def start_room(self, code: str, seats: list[SeatRow], seed: str, rules: dict) -> None:
        """Seat everyone and start the first match of a waiting table. Raises Conflict when
        it is not waiting any more (started twice, or closed)."""
        now = time.time()
        with self.transaction() as db:
            cur = db.execute("UPDATE tables SET status = 'playing' WHERE code = ? AND status = 'waiting'", [code])
            if cur.rowcount != 1:
                raise Conflict(f"table {code} is not waiting")
            db.execute("UPDATE rooms SET started = ? WHERE code = ?", [now, code])
            self._insert_seats(db, code, seats)
            self._insert_match(db, code, 1, seed, rules, now)

    def rematch_seats(self, code: str, number: int, seed: str, rules: dict, seats: list[SeatRow]) -> None:
        """Start match ``number`` with the seats rearranged (a new partner), in one
        transaction. Raises Conflict if that match exists."""
        try:
            with self.transaction() as db:
                self._insert_match(db, code, number, seed, rules, time.time())
                for s in seats:
                    db.execute("UPDATE seats SET kind = ?, player_id = ?, name = ?, emoji = ? "
                               "WHERE table_code = ? AND seat = ?", [s.kind, s.player_id, s.name, s.emoji, code, s.seat])
                db.execute("UPDATE tables SET status = 'playing' WHERE code = ?", [code])
        except sqlite3.IntegrityError:
            raise Conflict(f"match {number} of {code} already exists") from None

    def table_status(self, code: str) -> str | None:
        with self._reading() as db:
            rows = list(db.query("SELECT status FROM tables WHERE code = ?", [code]))
        return rows[0]["status"] if rows else None

    def remember_player(self, player_id: str, name: str, emoji: str) -> None:
        """Keep the name and emoji a player last chose (to prefill the next join form)."""
        with self.transaction():
            self._upsert_player(player_id, name, emoji)

    def _upsert_player(self, player_id: str, name: str, emoji: str) -> None:  # in a transaction
        self.db.execute("INSERT INTO players (id, name, emoji, created) VALUES (?, ?, ?, ?) "
                        "ON CONFLICT(id) DO UPDATE SET name = excluded.name, emoji = excluded.emoji",
                        [player_id, name, emoji, time.time()])

    def known_player(self, player_id: str) -> tuple[str, str] | None:
        """(name, emoji) a player last chose, or None."""
        with self._reading() as db:
            rows = list(db.query("SELECT name, emoji FROM players WHERE id = ?", [player_id]))
        return (rows[0]["name"], rows[0]["emoji"] or "") if rows else None

    # -- clocks ----------------------------------------------------------------------
    def _put_clock(self, match_id: int, clock: tuple[int, int, float] | None) -> None:
        if clock is None:
            self.db.execute("DELETE FROM clocks WHERE match_id = ?", [match_id])
        else:
            self.db.execute("INSERT INTO clocks (match_id, seat, version, deadline) VALUES (?, ?, ?, ?) "
                            "ON CONFLICT(match_id) DO UPDATE SET seat = excluded.seat, version = excluded.version, "
                            "deadline = excluded.deadline", [match_id, *clock])

    def clock(self, match_id: int) -> tuple[int, int, float] | None:
        """The match's clock: (seat, version, deadline), or None."""
        with self._reading() as db:
            rows = list(db.query("SELECT seat, version, deadline FROM clocks WHERE match_id = ?", [match_id]))
        return (rows[0]["seat"], rows[0]["version"], rows[0]["deadline"]) if rows else None

    def seat_clocks(self, match_id: int) -> dict[int, tuple[int, bool, bool]]:
        """Each seat's clock record in a match: seat -> (timeouts in a row, timed out, autopilot)."""
        with self._reading() as db:
            return {r["seat"]: (r["timeouts_in_row"], bool(r["timed_out"]), bool(r["autopilot"])) for r in db.query(
                "SELECT * FROM seat_clocks WHERE match_id = ?", [match_id])}

    def _put_seat_clock(self, match_id: int, seat: int, timeouts_in_row: int, timed_out: bool,
                        autopilot: bool) -> None:
        self.db.execute("INSERT INTO seat_clocks (match_id, seat, timeouts_in_row, timed_out, autopilot) "
                        "VALUES (?, ?, ?, ?, ?) ON CONFLICT(match_id, seat) DO UPDATE SET "
                        "timeouts_in_row = excluded.timeouts_in_row, timed_out = excluded.timed_out, "
                        "autopilot = excluded.autopilot",
                        [match_id, seat, timeouts_in_row, int(timed_out), int(autopilot)])

    def holds(self, code: str) -> dict[int, tuple[float, float, bool]]:
        """The table's held seats: seat -> (dropped at, held until, fired)."""
        with self._reading() as db:
            return {r["seat"]: (r["dropped_at"], r["until"], bool(r["fired"])) for r in db.query(
                "SELECT * FROM holds WHERE table_code = ?", [code])}

    def set_hold(self, code: str, seat: int, dropped_at: float, until: float) -> None:
        with self.transaction() as db:
            db.execute("INSERT INTO holds (table_code, seat, dropped_at, until, fired) VALUES (?, ?, ?, ?, 0) "
                       "ON CONFLICT(table_code, seat) DO UPDATE SET dropped_at = excluded.dropped_at, "
                       "until = excluded.until, fired = 0", [code, seat, dropped_at, until])

    def clear_hold(self, code: str, seat: int) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM holds WHERE table_code = ? AND seat = ?", [code, seat])

    def fire_hold(self, code: str, seat: int) -> bool:
        """Mark the hold over (a bot takes the seat); False if it was already, or is gone."""
        with self.transaction() as db:
            cur = db.execute("UPDATE holds SET fired = 1 WHERE table_code = ? AND seat = ? AND fired = 0",
                             [code, seat])
            return cur.rowcount == 1

    def leave_seat(self, code: str, seat: int, player_id: str, emoji: str, host: str | None) -> None:
        """The person in ``seat`` leaves the match for good: the seat becomes a bot's, with
        ``left_player_id`` saying who left; ``host`` is the table's host from now on."""
        with self.transaction() as db:
            db.execute("UPDATE seats SET kind = 'bot', player_id = NULL, left_player_id = ?, emoji = ? "
                       "WHERE table_code = ? AND seat = ?", [player_id, emoji, code, seat])
            db.execute("UPDATE tables SET host = ? WHERE code = ?", [host, code])
            db.execute("DELETE FROM holds WHERE table_code = ? AND seat = ?", [code, seat])

    def take_seat(self, code: str, seat: int, player_id: str, name: str, emoji: str) -> None:
        """A person takes a bot's seat at a table that has started (and is remembered by
        that name and emoji). Raises Conflict if the seat is not a bot's."""
        with self.transaction() as db:
            cur = db.execute("UPDATE seats SET kind = 'human', player_id = ?, name = ?, emoji = ?, "
                             "left_player_id = NULL WHERE table_code = ? AND seat = ? AND kind = 'bot'",
                             [player_id, name, emoji, code, seat])
            if cur.rowcount != 1:
                raise Conflict(f"seat {seat} at {code} is not a bot's")
            self._upsert_player(player_id, name, emoji)

    def put_options(self, code: str, options: dict) -> None:
        with self.transaction() as db:
            db.execute("UPDATE tables SET options = ? WHERE code = ?", [json.dumps(options), code])

    def left_seats(self, code: str) -> frozenset[int]:
        """Seats a person left for good (a bot plays them)."""
        with self._reading() as db:
            return frozenset(r["seat"] for r in db.query(
                "SELECT seat FROM seats WHERE table_code = ? AND kind = 'bot' AND left_player_id IS NOT NULL",
                [code]))

    # -- accounts --------------------------------------------------------------------
    def user_by_email(self, email: str) -> UserRow | None:
        """The account with this (lowercased) email, or None."""
        with self._reading() as db:
            return _user(db.query("SELECT * FROM users WHERE email = ?", [email]))

    def user(self, user_id: str) -> UserRow | None:
        with self._reading() as db:
            return _user(db.query("SELECT * FROM users WHERE id = ?", [user_id]))

    def is_account(self, player_id: str) -> bool:
        """Whether this player id is an account's (an anonymous cookie must never carry one)."""
        with self._reading() as db:
            return bool(list(db.query("SELECT 1 FROM users WHERE id = ?", [player_id])))

    def session_gen(self, user_id: str) -> int | None:
        """The account's session generation; None for an unknown account."""
        with self._reading() as db:
            rows = list(db.query("SELECT session_gen FROM users WHERE id = ?", [user_id]))
        return rows[0]["session_gen"] if rows else None

    def bump_session_gen(self, user_id: str) -> int:
        """Invalidate every session of the account (sign out on every device); the new number."""
        with self.transaction() as db:
            db.execute("UPDATE users SET session_gen = session_gen + 1 WHERE id = ?", [user_id])
            db.execute("UPDATE signins SET ended = ? WHERE user_id = ? AND ended IS NULL", [time.time(), user_id])
        return self.session_gen(user_id) or 0

    def start_signin(self, sid: str, user_id: str) -> None:
        """A signed-in session begins."""
        with self.transaction() as db:
            db.execute("INSERT INTO signins (sid, user_id, created) VALUES (?, ?, ?)", [sid, user_id, time.time()])

    def end_signin(self, sid: str) -> None:
        """A signed-in session is over (signed out), whoever holds a copy of its cookie."""
        with self.transaction() as db:
            db.execute("UPDATE signins SET ended = ? WHERE sid = ? AND ended IS NULL", [time.time(), sid])

    def signin_live(self, sid: str, user_id: str) -> bool:
        """Whether that session of that account has not been signed out."""
        with self._reading() as db:
            return bool(list(db.query("SELECT 1 FROM signins WHERE sid = ? AND user_id = ? AND ended IS NULL",
                                      [sid, user_id])))

    def new_login_code(self, email: str, asker: str, code_hash: str, now: float, ttl: float) -> int:
        """Store a new code's hash for ``email`` asked by ``asker``, voiding that asker's
        earlier one (never another asker's); its row id."""
        with self.transaction() as db:
            db.execute("UPDATE login_codes SET voided = 1 WHERE email = ? AND asker = ? AND used = 0 AND voided = 0",
                       [email, asker])
            [row] = db.query("INSERT INTO login_codes (email, asker, code_hash, created, expires, tries, used, voided) "
                             "VALUES (?, ?, ?, ?, ?, 0, 0, 0) RETURNING id", [email, asker, code_hash, now, now + ttl])
            return int(row["id"])

    def latest_login_code(self, email: str, asker: str) -> LoginCodeRow | None:
        with self._reading() as db:
            rows = list(db.query("SELECT * FROM login_codes WHERE email = ? AND asker = ? ORDER BY id DESC LIMIT 1",
                                 [email, asker]))
        if not rows:
            return None
        r = rows[0]
        return LoginCodeRow(r["id"], r["email"], r["code_hash"], r["created"], r["expires"], r["tries"],
                            bool(r["used"]), bool(r["voided"]))

    def spend_login_try(self, code_id: int, max_tries: int) -> int | None:
        """Count one try against a live code, atomically; the tries so far, or None when the
        code is used, voided or out of tries (then nothing is counted)."""
        with self.transaction() as db:
            cur = db.execute("UPDATE login_codes SET tries = tries + 1 "
                             "WHERE id = ? AND used = 0 AND voided = 0 AND tries < ?", [code_id, max_tries])
            if cur.rowcount != 1:
                return None
            return next(iter(db.query("SELECT tries FROM login_codes WHERE id = ?", [code_id])))["tries"]

    def use_login_code(self, code_id: int) -> bool:
        """Mark the code used; False if it already was (two tabs racing with the same code)."""
        with self.transaction() as db:
            cur = db.execute("UPDATE login_codes SET used = 1 WHERE id = ? AND used = 0 AND voided = 0", [code_id])
            return cur.rowcount == 1

    def sign_in(self, email: str, new_id: str, anon_pid: str | None, name: str, emoji: str,
                now: float) -> tuple[UserRow, list[str]]:
        """The account for ``email`` (created with id ``new_id``, ``name`` and ``emoji`` when
        new), with the anonymous player ``anon_pid``'s rows moved to it, all in one
        transaction. Returns the account and the codes of the tables whose seats moved.

        Moved: seats and finished matches' seats (``player_id`` and ``left_player_id``),
        ``tables.host``, room
        memberships, and the rating when the account has none. A table where the account
        already sits keeps the anonymous seat as it is (one person must not hold two seats
        at one table).
        New tables keyed by player id must be added here."""
        with self.transaction() as db:
            user = self.user_by_email(email)
            if user is None:
                # DO NOTHING: one address signing in twice at once (PostgreSQL runs the two side by
                # side) makes one account, which the second sign-in then reads
                made = db.execute("INSERT INTO users (id, email, name, emoji, created, session_gen) "
                                  "VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT DO NOTHING", [new_id, email, name, emoji, now])
                if made.rowcount == 1:
                    db.execute("INSERT INTO players (id, name, emoji, created) VALUES (?, ?, ?, ?) "
                               "ON CONFLICT DO NOTHING", [new_id, name, emoji, now])
                    user = UserRow(new_id, email, name, emoji, now, 0)
                else:
                    user = self.user_by_email(email)
                    assert user is not None
            moved: list[str] = []
            if anon_pid and anon_pid != user.id and not self.is_account(anon_pid):
                moved = [r["table_code"] for r in db.query(
                    "SELECT DISTINCT table_code FROM seats WHERE player_id = ? AND table_code NOT IN "
                    "(SELECT table_code FROM seats WHERE player_id = ?)", [anon_pid, user.id])]
                db.execute("UPDATE seats SET player_id = ? WHERE player_id = ? AND table_code NOT IN "
                           "(SELECT table_code FROM seats WHERE player_id = ?)", [user.id, anon_pid, user.id])
                db.execute("UPDATE seats SET left_player_id = ? WHERE left_player_id = ?", [user.id, anon_pid])
                db.execute("UPDATE match_seats SET player_id = ? WHERE player_id = ?", [user.id, anon_pid])
                db.execute("UPDATE match_seats SET left_player_id = ? WHERE left_player_id = ?", [user.id, anon_pid])
                db.execute("UPDATE tables SET host = ? WHERE host = ?", [user.id, anon_pid])
                db.execute("UPDATE room_members SET player_id = ? WHERE player_id = ? AND table_code NOT IN "
                           "(SELECT table_code FROM room_members WHERE player_id = ?)", [user.id, anon_pid, user.id])
                db.execute("UPDATE ratings SET player_id = ? WHERE player_id = ? AND NOT EXISTS "
                           "(SELECT 1 FROM ratings WHERE player_id = ?)", [user.id, anon_pid, user.id])
                self.move_tourney_player(anon_pid, user.id)  # a savepoint in this transaction
            return user, moved

    def save_profile(self, player_id: str, name: str, emoji: str) -> None:
        """Set a player's name and emoji (and the account's, when it is one)."""
        with self.transaction() as db:
            self._upsert_player(player_id, name, emoji)
            db.execute("UPDATE users SET name = ?, emoji = ? WHERE id = ?", [name, emoji, player_id])

    def player_games(self, player_id: str) -> list[PlayerGame]:
        """Every table where this person holds a seat now (``kind = 'human'``: a seat left to
        a bot is not theirs any more), newest first."""
        games = []
        with self._reading() as db:
            for r in list(db.query("SELECT s.table_code, s.seat, t.status, t.options, t.created FROM seats s "
                                   "JOIN tables t ON t.code = s.table_code "
                                   "WHERE s.player_id = ? AND s.kind = 'human' ORDER BY t.created DESC", [player_id])):
                seats = list(db.query("SELECT kind, name FROM seats WHERE table_code = ? ORDER BY seat",
                                      [r["table_code"]]))
                games.append(PlayerGame(r["table_code"], r["seat"], r["status"], json.loads(r["options"] or "{}"),
                                        r["created"], tuple(s["name"] for s in seats), tuple(s["kind"] for s in seats)))
        return games

    def player_matches(self, player_id: str) -> list[PlayerMatch]:
        """Every match this person played a seat of: finished ones as seated when they
        finished (``match_seats``), the one going on as seated now; oldest first."""
        last = "(SELECT MAX(at) FROM actions a WHERE a.match_id = m.id) AS last_move"
        with self._reading() as db:
            rows = list(db.query(
                f"SELECT ms.seat, m.*, {last} FROM match_seats ms JOIN matches m ON m.id = ms.match_id "
                "WHERE ms.player_id = ? AND ms.kind = 'human' "
                f"UNION ALL SELECT s.seat, m.*, {last} FROM seats s JOIN matches m ON m.table_code = s.table_code "
                "WHERE s.player_id = ? AND s.kind = 'human' AND m.finished = 0 "
                "ORDER BY created, id", [player_id, player_id]))
        return [PlayerMatch(r["table_code"], r["seat"], MatchInfo(
            r["id"], r["number"], r["seed"], json.loads(r["rules"]), r["version"], bool(r["finished"]), r["winner"],
            r["created"], r["last_move"])) for r in rows]

    def player_rooms(self, player_id: str) -> list[str]:
        """Codes of the rooms this person is in that are still waiting to start, newest first."""
        with self._reading() as db:
            return [r["code"] for r in db.query(
                "SELECT t.code FROM room_members m JOIN tables t ON t.code = m.table_code "
                "WHERE m.player_id = ? AND m.state = 'in' AND t.status = 'waiting' ORDER BY t.created DESC",
                [player_id])]

    def unrated_matches(self) -> list[tuple[int, str]]:
        """(match id, table code) of finished matches not yet rated, in the order they finished."""
        with self._reading() as db:
            return [(r["id"], r["table_code"]) for r in db.query(
                "SELECT m.id, m.table_code, (SELECT MAX(at) FROM actions a WHERE a.match_id = m.id) AS done "
                "FROM matches m WHERE m.finished = 1 AND m.id NOT IN (SELECT match_id FROM rated_matches) "
                "ORDER BY done, m.id")]

    def finished_match(self, code: str, number: int | None = None) -> tuple[MatchInfo, tuple[str, ...]] | None:
        """Finished match ``number`` of a table (its latest finished one when None), with
        the seat names as they were when it finished; None when there is none."""
        last = "(SELECT MAX(at) FROM actions a WHERE a.match_id = m.id) AS last_move"
        which = "" if number is None else "AND m.number = ? "
        with self._reading() as db:
            rows = list(db.query(
                f"SELECT m.*, {last} FROM matches m WHERE m.table_code = ? AND m.finished = 1 "
                f"{which}ORDER BY m.number DESC LIMIT 1", [code] if number is None else [code, number]))
            if not rows:
                return None
            r = rows[0]
            names = tuple(s["name"] for s in db.query(
                "SELECT name FROM match_seats WHERE match_id = ? ORDER BY seat", [r["id"]]))
        return MatchInfo(r["id"], r["number"], r["seed"], json.loads(r["rules"]), r["version"], True, r["winner"],
                         r["created"], r["last_move"]), names

    def match_seating(self, match_id: int) -> tuple[tuple[str, str | None], ...]:
        """(kind, player id) of each seat of a finished match, in seat order."""
        with self._reading() as db:
            return tuple((r["kind"], r["player_id"]) for r in db.query(
                "SELECT kind, player_id FROM match_seats WHERE match_id = ? ORDER BY seat", [match_id]))

    def table_options(self, code: str) -> dict:
        with self._reading() as db:
            rows = list(db.query("SELECT options FROM tables WHERE code = ?", [code]))
        return json.loads(rows[0]["options"] or "{}") if rows else {}

    def match_winner(self, match_id: int) -> int | None:
        with self._reading() as db:
            rows = list(db.query("SELECT winner FROM matches WHERE id = ?", [match_id]))
        return rows[0]["winner"] if rows else None

    def ratings(self, player_ids: list[str]) -> dict[str, tuple[float, float, int]]:
        """(mu, sigma, matches rated) of each id that has a rating."""
        if not player_ids:
            return {}
        marks = ",".join("?" * len(player_ids))
        with self._reading() as db:
            return {r["player_id"]: (r["mu"], r["sigma"], r["matches"]) for r in db.query(
                f"SELECT * FROM ratings WHERE player_id IN ({marks})", list(player_ids))}

    def rating_rank(self, player_id: str) -> tuple[int, int]:
        """(rank, rated people): 1 + how many people (not bots, rated as ``bot:…``) are
        rated higher by mu - 3 sigma; (0, n) when this player has no rating."""
        people = "player_id NOT LIKE 'bot:%'"
        with self._reading() as db:
            row = next(iter(db.query(
                f"SELECT (SELECT COUNT(*) FROM ratings WHERE {people}) AS n, "
                f"(SELECT 1 + COUNT(*) FROM ratings o, ratings me WHERE me.player_id = ? AND o.{people} "
                "AND o.mu - 3 * o.sigma > me.mu - 3 * me.sigma) AS r, "
                "(SELECT COUNT(*) FROM ratings WHERE player_id = ?) AS known", [player_id, player_id])))
        return (row["r"] if row["known"] else 0), row["n"]

    def save_ratings(self, match_id: int, new: dict[str, tuple[float, float]]) -> bool:
        """Store the ratings after one match, once: False (nothing written) if that match was
        already rated (two requests rating at the same moment)."""
        now = time.time()
        with self.transaction() as db:
            cur = db.execute("INSERT INTO rated_matches (match_id, at) VALUES (?, ?) ON CONFLICT DO NOTHING",
                             [match_id, now])
            if cur.rowcount != 1:
                return False
            for pid, (mu, sigma) in new.items():
                db.execute("INSERT INTO ratings (player_id, mu, sigma, matches, updated) VALUES (?, ?, ?, 1, ?) "
                           "ON CONFLICT(player_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
                           "matches = ratings.matches + 1, updated = excluded.updated", [pid, mu, sigma, now])
            return True


    # -- tourneys (spades.tourney.service) ---------------------------------------------
    # Writes go through ``commit`` with the row operations at the bottom of this module
    # (``NewTourney``, ``PutTourney``, ``PutTourneyTeam`` ...), so a tourney's change is one
    # transaction; these are the reads and the few writes of their own.
    def load_tourney(self, code: str) -> TourneyData | None:
        """A tourney with its teams, players and pairings (ready marks included), or None."""
        with self._reading() as db:
            rows = list(db.query("SELECT * FROM tourneys WHERE code = ?", [code]))
            if not rows:
                return None
            teams = list(db.query("SELECT * FROM tourney_teams WHERE tourney_code = ? ORDER BY id", [code]))
            players = list(db.query("SELECT * FROM tourney_players WHERE tourney_code = ? ORDER BY team_id, slot",
                                    [code]))
            marks = list(db.query("SELECT round, slot, player_id FROM tourney_ready WHERE tourney_code = ? "
                                  "ORDER BY at", [code]))
            pairings = list(db.query("SELECT * FROM tourney_matches WHERE tourney_code = ? ORDER BY round, slot",
                                     [code]))
        ready: dict[tuple[int, int], list[str]] = {}
        for r in marks:
            ready.setdefault((r["round"], r["slot"]), []).append(r["player_id"])
        return TourneyData(
            _tourney(rows[0]),
            tuple(TourneyTeamRow(r["id"], r["token"], bool(r["solo"]), bool(r["bot"]), r["state"], r["note"] or "",
                                 r["seed"], r["created"]) for r in teams),
            tuple(TourneyPlayerRow(r["team_id"], r["slot"], r["player_id"], r["name"], r["emoji"] or "",
                                   bool(r["bot"]), r["checked_in"], r["joined"]) for r in players),
            tuple(TourneyMatchRow(r["round"], r["slot"], r["team_a"], r["team_b"], r["target"], r["due"],
                                  r["table_code"], r["winner"],
                                  None if r["hands"] is None else (r["score_a"], r["score_b"]), r["hands"],
                                  bool(r["walkover"]), r["note"] or "", r["done"],
                                  tuple(ready.get((r["round"], r["slot"]), ())))
                  for r in pairings))

    def tourney_codes(self, statuses: Sequence[str]) -> list[str]:
        """Codes of the tourneys in those statuses, oldest first."""
        if not statuses:
            return []
        marks = ",".join("?" * len(statuses))
        with self._reading() as db:
            return [r["code"] for r in db.query(
                f"SELECT code FROM tourneys WHERE status IN ({marks}) ORDER BY created, code", list(statuses))]

    def tourney_summaries(self, statuses: Sequence[str], listed_only: bool = True,
                          limit: int = 100) -> list[TourneySummary]:
        """Tourneys in those statuses (only the publicly listed ones unless told), with the
        places taken (registering: a team each, two solos one; later: the teams that
        started). Registering ones soonest start first (no start time last), the others
        latest first."""
        if not statuses:
            return []
        marks = ",".join("?" * len(statuses))
        listed = "AND t.listed = 1" if listed_only else ""
        # COUNTs, not SUMs: an integer on both engines (PostgreSQL sums BIGINTs as NUMERIC), so
        # the halving of the solos is an integer division on both
        with self._reading() as db:
            rows = list(db.query(
                "SELECT t.*, CASE WHEN t.status = 'registering' THEN "
                "(SELECT COUNT(CASE WHEN solo = 0 THEN 1 END) + (COUNT(CASE WHEN solo <> 0 THEN 1 END) + 1) / 2 "
                "FROM tourney_teams WHERE tourney_code = t.code AND state = 'in') "
                "ELSE (SELECT COUNT(*) FROM tourney_teams WHERE tourney_code = t.code AND seed IS NOT NULL) "
                "END AS places "
                f"FROM tourneys t WHERE t.status IN ({marks}) {listed} "
                "ORDER BY CASE WHEN t.status = 'registering' THEN COALESCE(t.start_at, 1e18) "
                "ELSE -COALESCE(t.finished, t.started, t.created) END, t.created DESC LIMIT ?",
                [*statuses, limit]))
        return [TourneySummary(r["code"], r["name"], r["format"], r["status"], r["start_at"], r["created"],
                               r["started"], r["finished"], r["team_limit"], r["places"]) for r in rows]

    def tourney_finished_tables(self, code: str) -> list[str]:
        """Tables of the tourney's pairings without a result whose (first) match is over."""
        with self._reading() as db:
            return [r["table_code"] for r in db.query(
                "SELECT tm.table_code FROM tourney_matches tm JOIN matches m ON m.table_code = tm.table_code "
                "AND m.number = 1 WHERE tm.tourney_code = ? AND tm.hands IS NULL AND m.finished = 1 "
                "ORDER BY tm.round, tm.slot", [code])]

    def tourney_table(self, code: str, round_number: int, slot: int) -> str | None:
        """The table made for that pairing, found by its options (a table made just before
        a crash, before its code was stored with the pairing), or None."""
        # the options are JSON text and the engines read JSON differently: LIKE narrows the
        # rows down to the tourney's (its code is in them), Python reads the options
        with self._reading() as db:
            rows = list(db.query("SELECT code, options FROM tables WHERE options LIKE ? ORDER BY created",
                                 [f"%{code}%"]))
        for r in rows:
            options = json.loads(r["options"] or "{}")
            if (options.get("tourney"), options.get("round"), options.get("slot")) == (code, round_number, slot):
                return r["code"]
        return None

    def player_tourneys(self, player_id: str) -> list[str]:
        """Codes of the tourneys this person is registered in, newest first."""
        with self._reading() as db:
            return [r["code"] for r in db.query(
                "SELECT t.code FROM tourney_players p JOIN tourneys t ON t.code = p.tourney_code "
                "WHERE p.player_id = ? ORDER BY t.created DESC", [player_id])]

    def move_tourney_player(self, old_id: str, new_id: str) -> None:
        """A person's registrations, ready marks and directing move to another player id
        (an anonymous browser signing in), except in tourneys where the new id is already in."""
        with self.transaction() as db:
            db.execute("UPDATE tourney_players SET player_id = ? WHERE player_id = ? AND tourney_code NOT IN "
                       "(SELECT tourney_code FROM tourney_players WHERE player_id = ?)", [new_id, old_id, new_id])
            # the old id's mark for a pairing the new id has marked already stays (the keys would clash)
            db.execute("UPDATE tourney_ready SET player_id = ? WHERE player_id = ? AND NOT EXISTS "
                       "(SELECT 1 FROM tourney_ready r WHERE r.player_id = ? "
                       "AND r.tourney_code = tourney_ready.tourney_code AND r.round = tourney_ready.round "
                       "AND r.slot = tourney_ready.slot)", [new_id, old_id, new_id])
            db.execute("UPDATE tourneys SET director = ? WHERE director = ?", [new_id, old_id])

    def _put_tourney(self, code: str, fields: dict[str, Any]) -> None:
        bad = set(fields) - _TOURNEY_FIELDS
        if bad:
            raise ValueError(f"not tourney fields: {sorted(bad)}")
        values = {k: (json.dumps(v) if k == "engine" and v is not None else v) for k, v in fields.items()}
        values = {k: (int(v) if isinstance(v, bool) else v) for k, v in values.items()}
        sets = ", ".join(f"{k} = ?" for k in values)
        self.db.execute(f"UPDATE tourneys SET {sets} WHERE code = ?", [*values.values(), code])


# -- accounts: rows ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class UserRow:
    id: str  # the account's canonical player id
    email: str
    name: str
    emoji: str
    created: float
    session_gen: int


@dataclass(frozen=True, slots=True)
class LoginCodeRow:
    id: int
    email: str
    code_hash: str
    created: float
    expires: float
    tries: int
    used: bool
    voided: bool


@dataclass(frozen=True, slots=True)
class MatchInfo:
    id: int
    number: int
    seed: str
    rules: dict
    version: int
    finished: bool
    winner: int | None
    created: float
    last_move: float | None


@dataclass(frozen=True, slots=True)
class PlayerGame:
    """A table where a person holds a seat now."""

    code: str
    seat: int
    status: str
    options: dict
    created: float
    names: tuple[str, ...]
    kinds: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PlayerMatch:
    """A match a person played, and the seat they played it from."""

    code: str
    seat: int
    match: MatchInfo


def _user(rows: Any) -> UserRow | None:
    for r in rows:
        return UserRow(r["id"], r["email"], r["name"] or "", r["emoji"] or "", r["created"], r["session_gen"])
    return None


# -- tourneys: rows and row operations ---------------------------------------------------
@dataclass(frozen=True, slots=True)
class TourneyRow:
    """A tourney's own row. ``engine``: the engine's state as JSON (``{"bracket": ...}`` or
    ``{"rounds": [...]}``), None before the start."""

    code: str
    name: str
    format: str  # "knockout" or "swiss"
    rounds: int | None  # Swiss: the number of rounds
    team_limit: int
    start_at: float | None  # None: the director presses Start
    checkin_s: float  # the check-in window before ``start_at``
    listed: bool
    bot_fill: bool  # the director may fill empty places with bot teams
    director: str
    status: str  # registering, running, finished, cancelled
    created: float
    started: float | None = None
    finished: float | None = None
    seed: str = ""
    engine: dict | None = None
    note: str = ""


@dataclass(frozen=True, slots=True)
class TourneyTeamRow:
    id: int
    token: str | None  # the link for the partner (None for bot teams)
    solo: bool  # registered alone: paired with another solo (or a bot) at the start
    bot: bool  # a bot team the director added
    state: str  # "in", "removed" (by the director), "dropped" (at the start), "merged" (into a solo pair)
    note: str = ""
    seed: int | None = None  # from 1, set at the start
    created: float = 0.0


@dataclass(frozen=True, slots=True)
class TourneyPlayerRow:
    team_id: int
    slot: int  # 0 or 1: seats 0 and 2 (or 1 and 3) at the team's tables
    player_id: str | None  # None for a bot
    name: str
    emoji: str
    bot: bool
    checked_in: float | None = None
    joined: float = 0.0


@dataclass(frozen=True, slots=True)
class TourneyMatchRow:
    """A pairing: ``score`` and ``hands`` are None until it has a result (``hands`` 0 for a
    walkover; ``winner`` None with ``hands`` 0 for a no-show). ``ready``: player ids that
    pressed Ready for it (read only: written with ``PutTourneyReady``)."""

    round: int
    slot: int
    team_a: int
    team_b: int
    target: int
    due: float
    table_code: str | None = None
    winner: int | None = None
    score: tuple[int, int] | None = None
    hands: int | None = None
    walkover: bool = False
    note: str = ""
    done: float | None = None
    ready: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TourneyData:
    tourney: TourneyRow
    teams: tuple[TourneyTeamRow, ...]
    players: tuple[TourneyPlayerRow, ...]
    matches: tuple[TourneyMatchRow, ...]


@dataclass(frozen=True, slots=True)
class TourneySummary:
    code: str
    name: str
    format: str
    status: str
    start_at: float | None
    created: float
    started: float | None
    finished: float | None
    team_limit: int
    places: int  # places taken: a team each, two solos one


_TOURNEY_FIELDS = {"name", "format", "rounds", "team_limit", "start_at", "checkin_s", "listed", "bot_fill",
                   "director", "status", "created", "started", "finished", "seed", "engine", "note"}


def _tourney(r: dict) -> TourneyRow:
    return TourneyRow(r["code"], r["name"], r["format"], r["rounds"], r["team_limit"], r["start_at"],
                      r["checkin_s"] or 0.0, bool(r["listed"]), bool(r["bot_fill"]), r["director"], r["status"],
                      r["created"], r["started"], r["finished"], r["seed"] or "",
                      json.loads(r["engine"]) if r["engine"] else None, r["note"] or "")


@dataclass(frozen=True, slots=True)
class NewTourney:
    """A new tourney (Duplicate, a sqlite3.IntegrityError, when the code is taken)."""

    row: TourneyRow

    def apply(self, store: Store) -> None:
        r = self.row
        store.db.execute(
            "INSERT INTO tourneys (code, name, format, rounds, team_limit, start_at, checkin_s, listed, bot_fill, "
            "director, status, created, started, finished, seed, engine, note) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [r.code, r.name, r.format, r.rounds, r.team_limit, r.start_at, r.checkin_s, int(r.listed),
             int(r.bot_fill), r.director, r.status, r.created, r.started, r.finished, r.seed,
             None if r.engine is None else json.dumps(r.engine), r.note])


@dataclass(frozen=True, slots=True)
class PutTourney:
    """Some fields of a tourney's row (status, started, engine ...)."""

    code: str
    fields: dict

    def apply(self, store: Store) -> None:
        store._put_tourney(self.code, self.fields)


@dataclass(frozen=True, slots=True)
class PutTourneyTeam:
    """A team, added or changed."""

    code: str
    team: TourneyTeamRow

    def apply(self, store: Store) -> None:
        t = self.team
        store.db.execute(
            "INSERT INTO tourney_teams (tourney_code, id, token, solo, bot, state, note, seed, created) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(tourney_code, id) DO UPDATE SET token = excluded.token, "
            "solo = excluded.solo, bot = excluded.bot, state = excluded.state, note = excluded.note, "
            "seed = excluded.seed",
            [self.code, t.id, t.token, int(t.solo), int(t.bot), t.state, t.note, t.seed, t.created])


@dataclass(frozen=True, slots=True)
class PutTourneyPlayer:
    """A person (or a bot partner) in a team's slot, added or changed (Duplicate, a
    sqlite3.IntegrityError, when that person is in another team of the tourney)."""

    code: str
    player: TourneyPlayerRow

    def apply(self, store: Store) -> None:
        p = self.player
        store.db.execute(
            "INSERT INTO tourney_players (tourney_code, team_id, slot, player_id, name, emoji, bot, checked_in, "
            "joined) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(tourney_code, team_id, slot) DO UPDATE SET "
            "player_id = excluded.player_id, name = excluded.name, emoji = excluded.emoji, bot = excluded.bot, "
            "checked_in = excluded.checked_in",
            [self.code, p.team_id, p.slot, p.player_id, p.name, p.emoji, int(p.bot), p.checked_in, p.joined])


@dataclass(frozen=True, slots=True)
class DropTourneyPlayer:
    """A team's slot emptied (a solo moving into the team it is paired with)."""

    code: str
    team_id: int
    slot: int

    def apply(self, store: Store) -> None:
        store.db.execute("DELETE FROM tourney_players WHERE tourney_code = ? AND team_id = ? AND slot = ?",
                         [self.code, self.team_id, self.slot])


@dataclass(frozen=True, slots=True)
class PutTourneyMatch:
    """A pairing, added or changed (its ready marks are ``PutTourneyReady``'s)."""

    code: str
    match: TourneyMatchRow

    def apply(self, store: Store) -> None:
        m = self.match
        a, b = m.score if m.score is not None else (None, None)
        store.db.execute(
            "INSERT INTO tourney_matches (tourney_code, round, slot, team_a, team_b, target, due, table_code, winner, "
            "score_a, score_b, hands, walkover, note, done) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(tourney_code, round, slot) DO UPDATE SET team_a = excluded.team_a, "
            "team_b = excluded.team_b, target = excluded.target, due = excluded.due, "
            "table_code = excluded.table_code, winner = excluded.winner, score_a = excluded.score_a, "
            "score_b = excluded.score_b, hands = excluded.hands, walkover = excluded.walkover, "
            "note = excluded.note, done = excluded.done",
            [self.code, m.round, m.slot, m.team_a, m.team_b, m.target, m.due, m.table_code, m.winner, a, b,
             m.hands, int(m.walkover), m.note, m.done])


@dataclass(frozen=True, slots=True)
class PutTourneyReady:
    """A person pressed Ready for a pairing (pressing twice keeps the first time)."""

    code: str
    round: int
    slot: int
    player_id: str
    at: float

    def apply(self, store: Store) -> None:
        store.db.execute("INSERT INTO tourney_ready (tourney_code, round, slot, player_id, at) "
                         "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                         [self.code, self.round, self.slot, self.player_id, self.at])
