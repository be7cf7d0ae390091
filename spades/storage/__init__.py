"""Storage: the only package that writes SQL, on SQLite (the default) or on PostgreSQL.

``Store(path)`` opens a SQLite file; ``Store("postgresql://…")`` (or ``postgres://``) a
PostgreSQL database through psycopg 3. ``Store`` is the one entry point: everything a
caller needs is imported from here. Its modules:

- ``base``: the connection protocol (``Db``), a row operation (``Op``), ``Conflict`` and
  ``Duplicate``;
- ``engines``: SQLite and PostgreSQL (connections, transactions, the record of
  migrations); ``core``: the engine a path names, ``transaction`` and ``commit``;
- ``migrations``: the schema, one list of migrations for both engines;
- ``rows``: the row values handed out and taken in (``SeatRow``, ``TableRow`` ...);
- one module per area, each a part of ``Store`` and its row operations: ``people``
  (players, accounts, sign-in codes, profiles, ratings, records), ``tables`` (tables,
  matches, seats, moves, options, fair deals' secrets and hands), ``clocks`` (clocks and holds), ``rooms``,
  ``tourneys``, ``talk``, ``turns`` (whom turn-based tables wait on), ``push`` (browsers' push
  subscriptions), ``analyses`` (finished matches' analyses), ``circles`` (friend groups,
  their members, seasons, tables and results), ``boards`` (weeks of duplicate boards and
  their tables), ``nights`` (circles' game nights).

Queries. Both engines run the same queries, written once with ``?`` placeholders
(``engines.PgDb`` turns them into psycopg's ``%s``, in one place). What differs lives in
the two engine classes and in a few lines of the migrations' DDL.

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
the same thread or greenlet, is a savepoint of the outer one. A change is a list of row
operations (``SaveMove``, ``PutClock``, ``JoinRoom``, ``PutTourney`` ...): frozen values
whose ``apply(db)`` writes through the connection it is handed. ``Store.commit`` applies
a list in one transaction, all or nothing: the table service's whole change. An op never
opens a transaction of its own nor calls back into ``Store``. SQLite: one process
writes one at a time: transactions take a process-wide lock first, so a busy process
never meets "database is locked" from itself; ``BEGIN IMMEDIATE`` and the busy timeout
cover other processes (a command-line tool, say). PostgreSQL: transactions run side by
side (read committed); a write guarded by what it expects (``UPDATE … WHERE version =
?``) waits for a concurrent writer of the same row, then checks its guard against that
writer's result.

Errors, the same on both engines: ``Conflict``, a write that lost a race (the version a
move expects is gone, a rematch that exists, a seat no longer a bot's, a room started
already); ``Duplicate``, a unique key taken (a table or tourney code drawn twice, a
person in two teams of one tourney), raised by any transaction that met one.
``Duplicate`` is a ``sqlite3.IntegrityError``, so code that catches that catches it on
both engines.

Migrations. ``MIGRATIONS`` is one list for both engines, applied in order on start-up,
each once. SQLite records them as sqlite-utils' ``Migrations`` do (table
``_sqlite_migrations``, set ``spades``), so files from before open as they are.
PostgreSQL records them in ``schema_migrations`` and applies them in one transaction
under an advisory lock, so two processes starting at once do not both migrate.

Imports: stdlib and sqlite-utils; psycopg and psycopg_pool only when a PostgreSQL URL
is given (so after gevent has patched the standard library). No Flask, no core.
"""

from __future__ import annotations

from .analyses import AnalysisStore
from .base import Conflict, Db, Duplicate, Op, lock
from .boards import (
    AddBoardTable,
    BoardPlayed,
    BoardSeat,
    BoardStore,
    BoardTable,
    BoardWeekRow,
    ClaimBoardSeats,
    NewBoardWeek,
)
from .channels import ChannelRow, ChannelStore, PostRow
from .circles import (
    CircleMemberRow,
    CircleResultRow,
    CircleRow,
    CirclesOwned,
    CircleStore,
    CircleTableRow,
    FinishedMatch,
    LinkCircleTable,
    NewCircle,
    NewSeason,
    PutCircleMember,
    PutCircleNonce,
    PutCircleResult,
    PutSeason,
    SeasonRow,
    WithinCircles,
)
from .clocks import ClearHold, ClockStore, FireHold, PutClock, PutHold, PutSeatClock
from .erase import EraseStore
from .export import ExportStore
from .migrations import MIGRATION_SET, MIGRATIONS, Migration, Schema, migration
from .nights import (
    AddNightTable,
    ClaimNightSend,
    DropNightSend,
    MoveNight,
    NewNight,
    NightRow,
    NightStore,
    NightTableRow,
    PutFixedPair,
    PutHere,
    PutNightAnswer,
    PutNightMailOff,
    PutPairing,
)
from .people import CODES, LOCKED, CodeGuard, Held, PeopleStore, RememberPlayer
from .push import PushStore, PushSubscriptionRow
from .retention import RetentionStore
from .rooms import CreateRoom, JoinRoom, RoomStore, StartRoom, UpdateRoom
from .rows import (
    ChatRow,
    CoPlayer,
    LoginCodeRow,
    MatchInfo,
    MatchRow,
    MemberRow,
    PlayerGame,
    PlayerMatch,
    ReportRow,
    RoomRow,
    SeatRow,
    TableRow,
    TourneyData,
    TourneyMatchRow,
    TourneyPlayerRow,
    TourneyRow,
    TourneySummary,
    TourneyTeamRow,
    TurnRow,
    UserRow,
)
from .tables import (
    LeaveSeat,
    NewMatch,
    PutDealSecret,
    PutHand,
    PutOptions,
    RenameSeat,
    SaveMove,
    TableStore,
    TakeBack,
    TakeSeat,
)
from .talk import PutSilence, SaveLine, TalkStore
from .tourneys import (
    DropTourneyPlayer,
    NewTourney,
    PutTourney,
    PutTourneyMatch,
    PutTourneyPlayer,
    PutTourneyReady,
    PutTourneyTeam,
    TourneyStore,
)
from .turns import PutAway, PutTurns, TurnStore, TurnTablesFull, Waiting, WithinTurnTables


class Store(PeopleStore, TableStore, ClockStore, RoomStore, TourneyStore, TalkStore, TurnStore, PushStore,
            AnalysisStore, CircleStore, BoardStore, NightStore, ChannelStore, ExportStore, EraseStore,
            RetentionStore):
    """The database at ``path``: a SQLite file, or a PostgreSQL URL (``postgresql://`` or
    ``postgres://``) with at most ``max_connections`` connections at once. The schema is
    migrated on start-up. Its methods are its areas' (``spades.storage.people``,
    ``tables``, ``clocks``, ``rooms``, ``tourneys``, ``talk``, ``turns``, ``push``, ``analyses``,
    ``circles``, ``boards``, ``channels``);
    connections, ``transaction`` and ``commit`` are ``spades.storage.core``'s."""


__all__ = [
    "MIGRATIONS", "MIGRATION_SET", "ClearHold", "Conflict", "CreateRoom", "Db", "DropTourneyPlayer", "Duplicate",
    "lock",
    "FireHold", "JoinRoom", "LeaveSeat", "RenameSeat", "LoginCodeRow", "MatchInfo", "MatchRow", "MemberRow",
    "Migration",
    "NewMatch", "NewTourney", "Op", "PlayerGame", "PlayerMatch", "PutClock", "PutDealSecret", "PutHand", "PutHold",
    "PutOptions", "PutSeatClock",
    "PutTourney", "PutTourneyMatch", "PutTourneyPlayer", "PutTourneyReady", "PutTourneyTeam", "RememberPlayer",
    "RoomRow", "Schema", "SaveMove", "SeatRow", "StartRoom", "Store", "TableRow", "TakeBack", "TakeSeat", "TourneyData",
    "TourneyMatchRow", "TourneyPlayerRow", "TourneyRow", "TourneySummary", "TourneyTeamRow", "UpdateRoom",
    "UserRow", "migration",
    "CODES", "LOCKED", "CodeGuard", "Held",  # sign-in guards (people)
    "ChatRow", "CoPlayer", "PutSilence", "ReportRow", "SaveLine",  # talk
    "PutAway", "PutTurns", "TurnRow", "TurnTablesFull", "Waiting", "WithinTurnTables",  # turn-based tables
    "PushSubscriptionRow",  # push
    "CircleMemberRow", "CircleResultRow", "CircleRow", "CircleTableRow", "FinishedMatch", "LinkCircleTable",
    "CirclesOwned", "NewCircle", "NewSeason", "PutCircleMember", "PutCircleNonce", "PutCircleResult", "PutSeason",
    "SeasonRow", "WithinCircles",  # circles
    "AddBoardTable", "BoardPlayed", "BoardSeat", "BoardTable", "BoardWeekRow", "ClaimBoardSeats",
    "NewBoardWeek",  # duplicate boards
    "AddNightTable", "ClaimNightSend", "DropNightSend", "MoveNight", "NewNight", "NightRow", "NightStore",
    "NightTableRow", "PutFixedPair", "PutHere", "PutNightAnswer", "PutNightMailOff", "PutPairing",  # game nights
    "ChannelRow", "PostRow",  # a circle's channel
]
