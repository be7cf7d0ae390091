"""The table service: the one path every move takes, and the bots' turns.

``TableService.act(code, who, action, expected_version)``, for a person's click and a
bot's move alike:
1. take the table's lock (one ``RLock`` per table; tables never wait for each other);
2. check who owns the seat (a player by id, or a bot seat);
3. refuse a stale ``expected_version`` with the current view (two tabs, double clicks);
4. apply through ``Match.apply`` / ``Match.next_hand`` (an illegal move raises
   ``IllegalAction`` and changes nothing), then store the action row and the new version
   in ONE transaction; only then
5. publish: each subscriber (a WebSocket connection, registered by the web layer) gets
   the view of ITS seat, still under the lock so every connection sees moves in order;
6. schedule the next bot turn, which comes back through ``act``.

Between hands, Continue (``"deal"``) from a person marks them ready; the next hand is
dealt (the stored ``deal`` move) once every person at the table is ready, or at once when
the host deals without waiting (``"deal_now"``). Only the host starts a rematch, with the
same partner or another seat's player across from them.

Rooms (play with friends): a table created for several people waits (status
``waiting``) with a join code until its host starts it. People join in order; the host
picks a partner (a member or a bot), who sits across (seat 2); everyone else takes the
other team's seats (1, then 3) in join order. ``seat_plan`` is that rule as a pure
function. Every room change takes the room's lock, is committed, then published to the
room's subscribers; ``start`` seats everyone, fills empty seats with bots and deals.

Bots think in a ``ProcessPoolExecutor`` (a Hard bot may think for a second; the server
threads stay free). One scheduler thread waits for their answers and applies each no
sooner than the table's play speed allows, with a deadline after which a legal fallback
move is played so a table never stalls. On start-up every unfinished table is rebuilt by
replaying its stored actions, and its bots carry on from the exact card.

Clocks (RULES.md "Clocks", the pure rules in ``spades.clocks``): at a timed table (any
table for friends; practice tables have none) the seat to act has a deadline, stored in
the ``clocks`` row of its match in the same transaction as the move that started the
turn, for that move's version. The same scheduler thread fires due deadlines: a timeout
is a job like a bot's (the Normal bot's choice, or the tourney card) applied through
``act`` as ``Timeout(seat)`` with the version the deadline was set for, so a deadline
that a move beat is simply refused as stale and nothing fires twice, even after a
restart (overdue rows fire at once). Three timeouts in a row put the seat on autopilot
(a bot plays it until its player takes over or plays a card). When a seated player's
last connection closes, the seat is held (``holds``: 60 s, 10 s when the page said it
was closing); when the hold runs out a bot plays the seat until the player is back.
Leaving for good makes the seat a bot's. The time source is injected (``clock``).

Imports: stdlib, ``spades.storage``, ``spades.bots`` and the core. Never Flask.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import itertools
import logging
import multiprocessing
import secrets
import sqlite3
import threading
import time
import unicodedata
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import bots, clocks
from .cards import NotationError
from .clocks import SeatClock
from .records import to_record
from .rules import BIDDING, HAND_OVER, MATCH_OVER, PLAYING, IllegalAction, Match, parse_action
from .rules_config import Rules
from .storage import Conflict, MemberRow, RoomRow, SeatRow, Store, TableRow
from .views import seat_view

log = logging.getLogger(__name__)

DEAL = "deal"  # the stored text of ``Match.next_hand`` (the Continue button)
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L look-alikes
CODE_LENGTH = 6
PRACTICE_BOTS = {1: "Rex", 2: "Bea", 3: "Kit"}  # Rex on the left, Bea across, Kit on the right
DEAL_NOW = "deal_now"  # the host deals the next hand without waiting (stored as ``deal``)
BOT_PARTNER = 0  # the partner choice "a bot" (members are numbered from 1)
BOT_EMOJI = "🤖"
MAX_NAME = 20
MAX_HUMANS = 4
# The emoji a player may choose, offered in the join form (and checked against this list).
EMOJIS = ("🦊", "🐼", "🐨", "🐯", "🦁", "🐸", "🐙", "🦉", "🐢", "🦄", "🐝", "🐧",
          "🌵", "🌻", "🍀", "🍒", "🔥", "⭐", "🌙", "🎩", "🎲", "🚀", "⚓", "🎸")
PLAY_DELAYS = {"slow": 1.5, "normal": 0.8, "fast": 0.3}  # seconds between bot moves
LEVELS = ("easy", "normal", "hard")
CLOCK_BOT = "normal"  # the level that moves for a person's seat (a timeout, autopilot, a dropped seat)
CLOSING_WINDOW = 10.0  # a page's "closing" notice counts for a connection that closes this soon after


# -- refusals --------------------------------------------------------------------------
class Refused(Exception):
    """A move the table will not take; ``str(e)`` is the short message a player sees."""


class TableNotFound(Refused):
    """No table has that code."""


class NotSeated(Refused):
    """The player has no seat at this table (or it is not that seat's move to make)."""


class Stale(Refused):
    """The move was made against an older version of the table (another tab, a double click)."""

    def __init__(self, message: str, version: int) -> None:
        super().__init__(message)
        self.version = version


class BadAction(Refused):
    """Text that is not an action at all (bad notation): a malformed request."""


class NotHost(Refused):
    """A host control used by someone who is not the host."""


class NotStarted(TableNotFound):
    """The table is still a room: its match has not started (no match to show or move in)."""


class TableClosed(Refused):
    """The code is known but nobody can join any more: its match is over, or the room closed."""


class TableFull(Refused):
    """Every seat for people is taken (or the match has started)."""


class Removed(Refused):
    """The host removed this player from the room."""


class BadPlayer(Refused):
    """A name or emoji that is not allowed."""


def clean_name(text: str | None) -> str:
    """A player's name: trimmed, inner spaces collapsed, 1-20 characters, no control or
    format characters. Raises BadPlayer with the reason.

    >>> clean_name("  Ann   Lee ")
    'Ann Lee'
    """
    name = " ".join((text or "").split())
    if not name:
        raise BadPlayer("Choose a name (1 to 20 characters).")
    if len(name) > MAX_NAME:
        raise BadPlayer("That name is too long: 20 characters at most.")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for ch in name):
        raise BadPlayer("A name can only hold letters, digits, spaces and punctuation.")
    return name


def check_emoji(emoji: str | None) -> str:
    """The emoji if it is one of ``EMOJIS``. Raises BadPlayer."""
    if emoji not in EMOJIS:
        raise BadPlayer("Choose one of the emoji offered.")
    return emoji


def seat_plan(members: list[int], partner: int | None) -> dict[int, int]:
    """Who sits where, from the members in join order (the host first) and the host's
    choice of partner: the host in seat 0, the partner across in seat 2 (none for a bot
    partner), the others on the other team, seats 1 then 3, in join order. Before the
    partner is chosen only the host has a seat. Members beyond the open seats get none.

    >>> seat_plan([1, 2, 3, 4], partner=3)
    {1: 0, 3: 2, 2: 1, 4: 3}
    >>> seat_plan([2, 5], partner=BOT_PARTNER), seat_plan([1, 2], partner=None)
    ({2: 0, 5: 1}, {1: 0})
    """
    plan = {members[0]: 0}
    if partner is None:
        return plan
    if partner != BOT_PARTNER and partner in members[1:]:
        plan[partner] = 2
    open_seats = [1, 3]
    for m in members[1:]:
        if m not in plan and open_seats:
            plan[m] = open_seats.pop(0)
    return plan


def room_capacity(humans: int, partner: int | None) -> int:
    """How many people the room takes: the number the host chose, at most three with a bot
    partner (the host and the other team)."""
    return min(humans, 3) if partner == BOT_PARTNER else humans


# -- who acts --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Player:
    """A person, known by the id in their signed cookie."""

    id: str


@dataclass(frozen=True, slots=True)
class BotSeat:
    """The bot playing ``seat`` (only the scheduler acts as one)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Timeout:
    """The table moving for ``seat`` because its clock ran out (only the scheduler acts as one)."""

    seat: int


Who = Player | BotSeat | Timeout


@dataclass(frozen=True, slots=True)
class Event:
    """What the last accepted move was, for announcements: public information only."""

    seat: int | None
    action: str  # "QS", "4", "nil", "blind_nil", "look", "deal", "rematch", or "" (nothing yet)
    trick_winner: int | None = None  # set when this card completed a trick
    hand_over: bool = False
    by_clock: bool = False  # the table moved for the seat: its time ran out
    autopilot: bool = False  # ... for the third time in a row: a bot plays the seat now


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One seat's picture of a table: the seat view plus the table around it."""

    code: str
    seat: int | None  # None: not seated here (a spectator)
    view: dict
    names: tuple[str, ...]
    kinds: tuple[str, ...]
    match_number: int
    level: str
    play_speed: str
    event: Event
    emojis: tuple[str, ...] = ("", "", "", "")
    host_seat: int | None = None
    ready: tuple[int, ...] = ()  # seats whose person pressed Continue after this hand
    tempo: str = "normal"
    # each seat's player: "here" (connected), "away" (held), "bot" (a bot plays for them:
    # autopilot or a dropped seat), "left" (left for good), "" (a bot's seat, or unknown)
    presence: tuple[str, ...] = ("", "", "", "")
    clock: tuple[int, float, int] | None = None  # (seat to act, deadline epoch s, seconds in its turn)
    now: float = 0.0  # the server's time when this snapshot was taken (the browser corrects its clock)
    autopilot: bool = False  # this seat is on autopilot (its player sees Take over)
    shared: bool = False  # a table for friends (clocks, holds, Leave); not a practice table


Subscriber = Callable[[Snapshot], None]


@dataclass(frozen=True, slots=True)
class Member:
    """One person in a room, as everyone in it may see them (never their player id)."""

    number: int
    name: str
    emoji: str
    host: bool
    seat: int | None  # once the partner is chosen: 0 host, 2 partner, 1 or 3 the other team
    me: bool


@dataclass(frozen=True, slots=True)
class RoomSnapshot:
    """One person's picture of a room."""

    code: str
    status: str  # waiting, playing (started: go to the table), finished, closed
    me: int | None  # my member number; None when not in the room
    removed: bool  # the host removed me
    members: tuple[Member, ...]
    partner: int | None  # member number, BOT_PARTNER, or None (not chosen yet)
    humans: int
    level: str
    rules: dict
    is_host: bool
    capacity: int
    version: int  # counts room changes (for tests and stale pages)


RoomSubscriber = Callable[[RoomSnapshot], None]


@dataclass
class _Room:
    code: str
    lock: threading.RLock = field(default_factory=threading.RLock)
    subscribers: dict[int, tuple[str | None, RoomSubscriber]] = field(default_factory=dict)
    version: int = 0


@dataclass
class _Table:
    code: str
    row: TableRow
    match_id: int
    match_number: int
    seed: str
    match: Match
    lock: threading.RLock = field(default_factory=threading.RLock)
    subscribers: dict[int, tuple[int | None, Subscriber]] = field(default_factory=dict)
    event: Event = Event(None, "")
    ready: set[int] = field(default_factory=set)
    ready_for: tuple[int, int] = (0, 0)  # (match number, hand number) the ready set belongs to
    seat_clocks: dict[int, SeatClock] = field(default_factory=dict)  # this match's, as stored
    clock: tuple[int, int, float] | None = None  # the stored clock: (seat, version, deadline)
    holds: dict[int, tuple[float, float, bool]] = field(default_factory=dict)  # seat: (dropped, until, fired)
    closing: dict[int, float] = field(default_factory=dict)  # seat: when its page said it was closing
    left: set[int] = field(default_factory=set)  # seats left for good

    def seat_of(self, player_id: str) -> int | None:
        for s in self.row.seats:
            if s.kind == "human" and s.player_id == player_id:
                return s.seat
        return None


@dataclass
class _Job:
    """A bot turn being thought about in the pool."""

    code: str
    match_number: int
    version: int
    seat: int
    future: cf.Future
    not_before: float
    deadline: float
    fallback: int | str
    taken: bool = False  # being applied by the scheduler thread (still counts as pending)
    timeout: bool = False  # the table moving for a person whose clock ran out


def bot_seed(seed: str, match_number: int, version: int, seat: int) -> int:
    """A bot's seed for one decision: reproducible from the record, different each move."""
    return zlib.crc32(f"{seed}/{match_number}/{version}/{seat}".encode())


class TableService:
    """All tables of one server process: cache, locks, bot scheduler, subscribers."""

    def __init__(self, store: Store, *, play_delays: dict[str, float] | None = None,
                 think_limit: float = 5.0, bot_budget: float | None = None,
                 pool: cf.Executor | None = None, pool_workers: int = 2,
                 new_seed: Callable[[], str] | None = None, clock: Callable[[], float] = time.time,
                 clock_seconds: float | None = None) -> None:
        self.store = store
        self.clock = clock  # epoch seconds: deadlines are stored in it (tests pass a fake)
        self.clock_seconds = clock_seconds  # tests only: every turn this long, whatever the tempo
        # where each match's seed comes from: random in production, fixed in tests (replayable)
        self.new_seed = new_seed or (lambda: secrets.token_hex(8))
        self.play_delays = dict(PLAY_DELAYS if play_delays is None else play_delays)
        self.think_limit = think_limit
        self.bot_budget = bot_budget
        self._pool = pool
        self._owns_pool = pool is None  # a pool passed in (tests) is its owner's to shut down
        self._pool_workers = pool_workers
        self._pool_lock = threading.Lock()
        self._tables: dict[str, _Table] = {}
        self._rooms: dict[str, _Room] = {}
        self._load_lock = threading.Lock()
        self._jobs: dict[tuple[str, int, int], _Job] = {}
        self._cond = threading.Condition()
        self._stopped = False
        self._poked = False  # something changed since the scheduler last looked (under _cond)
        self._firing = False  # the scheduler is looking at due clocks (under _cond)
        self._tokens = itertools.count(1)  # subscriber tokens, unique across tables (count is atomic)
        self._thread = threading.Thread(target=self._run_scheduler, name="bot-scheduler", daemon=True)
        self._thread.start()

    # -- life cycle ------------------------------------------------------------------
    def resume_all(self) -> int:
        """Load every unfinished table so its bots carry on; returns how many."""
        codes = self.store.unfinished_tables()
        for code in codes:
            try:
                table = self._get(code)
                with table.lock:
                    # nobody is connected to a process that has just started: every person
                    # at the table counts as dropped now (their pages reconnect at once)
                    for s in table.row.seats:
                        if s.kind == "human":
                            self._gone(table, s.seat)
            except Exception:  # one broken table must not stop the others from resuming
                log.exception("could not resume table %s", code)
        self._wake()  # overdue clocks fire at once
        return len(codes)

    def close(self) -> None:
        """Stop the scheduler and the bot pool (pending bot turns resume on the next start)."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        with self._pool_lock:
            if self._pool is not None and self._owns_pool:
                self._pool.shutdown(wait=False, cancel_futures=True)

    def _executor(self) -> cf.Executor:
        with self._pool_lock:
            if self._pool is None:
                # spawn, not fork: forking a threaded server can copy held locks into the child
                self._pool = cf.ProcessPoolExecutor(self._pool_workers,
                                                    mp_context=multiprocessing.get_context("spawn"))
            return self._pool

    def _submit(self, fn: Callable, *args: Any) -> cf.Future:
        try:
            return self._executor().submit(fn, *args)
        except cf.BrokenExecutor:
            log.warning("bot pool broken; starting a new one")
            with self._pool_lock:
                self._pool = None
            return self._executor().submit(fn, *args)

    # -- tables ----------------------------------------------------------------------
    def create_practice(self, player_id: str, name: str, rules: Rules, level: str, emoji: str = "") -> str:
        """A new practice table: the player in seat 0, Bea across, Rex left, Kit right.
        Returns its code; the bots start at once if the first move is theirs."""
        if level not in LEVELS:
            raise BadAction(f"level must be one of {', '.join(LEVELS)}")
        seats = [SeatRow(0, "human", player_id, name, emoji)] + [
            SeatRow(s, "bot", None, n, BOT_EMOJI) for s, n in sorted(PRACTICE_BOTS.items())]
        options = {"kind": "practice", "level": level}
        seed = self.new_seed()
        self.store.ensure_player(player_id, name)
        code = self._new_code(lambda code: self.store.create_table(
            code, player_id, options, seats, seed, dataclasses.asdict(rules)))
        self._get(code)
        return code

    @staticmethod
    def _new_code(create: Callable[[str], None]) -> str:
        """Draw codes until ``create`` accepts one (it raises IntegrityError for a taken code)."""
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                create(code)
                return code
            except sqlite3.IntegrityError:
                continue  # the code is taken: draw another
        raise RuntimeError("no free table code")  # pragma: no cover - 31^6 codes

    def reload_seats(self, codes: list[str]) -> None:
        """Seats that changed owner in the database (a browser's seats moved to an account
        at sign-in): cached tables take their new owners at once. Tables not in memory
        read their seats when they are loaded, so they need nothing."""
        for code in codes:
            table = self._tables.get(code.upper())
            if table is None:
                continue
            fresh = self.store.load_table(table.code)
            if fresh is not None:
                with table.lock:
                    table.row = dataclasses.replace(table.row, seats=fresh.seats, host=fresh.host)

    def _get(self, code: str) -> _Table:
        """The table, loaded and replayed on first access. Raises TableNotFound."""
        code = code.upper()
        table = self._tables.get(code)
        if table is not None:
            return table
        with self._load_lock:
            table = self._tables.get(code)
            if table is None:
                table = self._load(code)
                self._tables[code] = table
        with table.lock:
            self._sync_clock(table)
            self._schedule(table)
        return table

    def _load(self, code: str) -> _Table:
        status = self.store.table_status(code)
        if status == "waiting":
            raise NotStarted("The game at this table has not started yet.")
        if status == "closed":
            raise TableNotFound("This table was closed before its game started.")
        row = self.store.load_table(code)
        if row is None:
            raise TableNotFound("There is no table with that code.")
        match = self._replay(row)
        table = _Table(code, row, row.match.id, row.match.number, row.match.seed, match)
        self._load_clocks(table)
        return table

    def _load_clocks(self, table: _Table) -> None:
        """The clock state of the table's current match, as stored."""
        table.seat_clocks = {seat: SeatClock(*rec) for seat, rec in self.store.seat_clocks(table.match_id).items()}
        table.clock = self.store.clock(table.match_id)
        table.holds = self.store.holds(table.code)
        table.left = set(self.store.left_seats(table.code))

    def _replay(self, row: TableRow) -> Match:
        """Rebuild the match from its seed and stored actions (the state is never stored)."""
        match = Match(Rules.from_dict(row.match.rules), row.match.seed)
        for version, seat, text in self.store.actions(row.match.id):
            if text == DEAL:
                match.next_hand()
            else:
                match.apply(seat, parse_action(text))
            if match.version != version:
                raise RuntimeError(f"table {row.code}: replay reached version {match.version}, stored {version}")
        return match

    def exists(self, code: str) -> bool:
        try:
            self._get(code)
            return True
        except TableNotFound:
            return False

    # -- reading ---------------------------------------------------------------------
    def _snapshot(self, table: _Table, seat: int | None) -> Snapshot:
        seats = table.row.seats
        match = table.match
        ready = tuple(sorted(table.ready)) if (
            match.phase == HAND_OVER and table.ready_for == (table.match_number, match.hand_number)) else ()
        if match.phase == HAND_OVER:  # a seat a bot plays for its person never keeps the others waiting
            ready = tuple(sorted(set(ready) | {s.seat for s in seats if s.kind == "human"
                                                and self._controlled(table, s.seat)}))
        host = table.seat_of(table.row.host) if table.row.host else None
        clock = None
        if table.clock is not None and table.clock[1] == match.version:
            who, _, deadline = table.clock
            seconds = self.clock_seconds or clocks.turn_seconds(
                match.rules, match.phase, table.seat_clocks.get(who, SeatClock()).timed_out) or 0
            clock = (who, deadline, int(round(seconds)))
        autopilot = seat is not None and table.seat_clocks.get(seat, SeatClock()).autopilot
        return Snapshot(table.code, seat, seat_view(match, seat), tuple(s.name for s in seats),
                        tuple(s.kind for s in seats), table.match_number, table.row.options.get("level", "normal"),
                        match.rules.play_speed, table.event, tuple(s.emoji for s in seats), host, ready,
                        match.rules.tempo, self._presence(table), clock, self.clock(), autopilot,
                        self._shared(table))

    def _presence(self, table: _Table) -> tuple[str, ...]:
        connected = {seat for seat, _ in table.subscribers.values()}
        out = []
        for s in table.row.seats:
            if s.kind != "human":
                out.append("left" if s.seat in table.left else "")
            elif self._controlled(table, s.seat):
                out.append("bot")
            elif s.seat in connected:
                out.append("here")
            elif s.seat in table.holds:
                out.append("away")
            else:
                out.append("")
        return tuple(out)

    def snapshot(self, code: str, player_id: str | None) -> Snapshot:
        """What this player sees at the table (a spectator's view when not seated).
        Raises TableNotFound."""
        table = self._get(code)
        with table.lock:
            seat = table.seat_of(player_id) if player_id else None
            return self._snapshot(table, seat)

    def record(self, code: str, player_id: str | None) -> dict:
        """The match record (RECORD.md): complete once finished; while running only what
        this player's seat has seen. Raises TableNotFound."""
        table = self._get(code)
        with table.lock:
            if table.match.finished:
                return to_record(table.match)
            seat = table.seat_of(player_id) if player_id else None
            # -1 is no seat: every seat's deal then lists only the cards already played
            return to_record(table.match, -1 if seat is None else seat)

    def hint(self, code: str, player_id: str, timeout: float = 5.0) -> int | str | None:
        """The bid the Hard bot would make for this player's seat, computed in the bot pool;
        None when there is nothing to bid now. Raises TableNotFound, NotSeated."""
        table = self._get(code)
        with table.lock:
            seat = table.seat_of(player_id)
            if seat is None:
                raise NotSeated("You have no seat at this table.")
            view = seat_view(table.match, seat)
        if view["phase"] != "bidding" or view["hand"] is None or view["to_act"] != seat:
            return None
        try:
            return self._submit(bots.hint, view).result(timeout=timeout)
        except Exception:
            log.exception("hint failed at %s", code)
            return None

    # -- subscribers -----------------------------------------------------------------
    def subscribe(self, code: str, player_id: str | None, callback: Subscriber) -> int:
        """Register a connection for this player's seat; it gets a full snapshot at once
        (under the lock, so no move slips between the snapshot and the updates).
        Returns a token for ``unsubscribe``. Raises TableNotFound."""
        table = self._get(code)
        with table.lock:
            seat = table.seat_of(player_id) if player_id else None
            first = seat is not None and all(s != seat for s, _ in table.subscribers.values())
            if seat is not None and seat in table.holds:  # back: the hold (or the bot) ends
                self.store.clear_hold(table.code, seat)
                del table.holds[seat]
            table.closing.pop(seat, None)
            token = next(self._tokens)
            table.subscribers[token] = (seat, callback)
            if first:  # everyone sees this seat is here again; its clock or bot turn follows
                self._sync_clock(table)
                self._publish(table)
                self._schedule(table)
            else:
                try:
                    callback(self._snapshot(table, seat))
                except Exception:
                    table.subscribers.pop(token, None)
                    raise
        return token

    def unsubscribe(self, code: str, token: int) -> None:
        """A connection closed; the seat's last one starts its hold (at a table for friends)."""
        table = self._tables.get(code.upper())
        if table is not None:
            with table.lock:
                gone = table.subscribers.pop(token, None)
                if gone is not None and gone[0] is not None:
                    self._gone(table, gone[0])

    def _publish(self, table: _Table) -> None:
        snapshots: dict[int | None, Snapshot] = {}
        dropped: set[int] = set()
        for token, (seat, callback) in list(table.subscribers.items()):
            if seat not in snapshots:
                snapshots[seat] = self._snapshot(table, seat)
            try:
                callback(snapshots[seat])
            except Exception:  # a dead or broken connection is dropped, the table goes on
                log.info("dropping subscriber %s of %s", token, table.code, exc_info=True)
                table.subscribers.pop(token, None)
                if seat is not None:
                    dropped.add(seat)
        for seat in dropped:
            self._gone(table, seat)

    # -- the one move path -----------------------------------------------------------
    def act(self, code: str, who: Who, action: object, expected_version: int | None = None) -> Snapshot:
        """Check, apply, store, publish and schedule one move; returns the mover's new snapshot.
        ``action`` is a card, bid, ``"look"``, ``"deal"`` (Continue: ready for the next hand,
        dealt once every person is) or ``"deal_now"`` (the host deals without waiting).
        A person's own move ends their autopilot; a ``Timeout`` counts toward it.
        Raises TableNotFound, NotSeated, NotHost, Stale, BadAction, IllegalAction (nothing changed)."""
        if action in (DEAL, DEAL_NOW):
            parsed: Any = action
        else:
            try:
                parsed = parse_action(action)
            except NotationError as e:
                raise BadAction(str(e)) from None
        table = self._get(code)
        with table.lock:
            match = table.match
            if isinstance(who, Player):
                seat = table.seat_of(who.id)
                if seat is None:
                    raise NotSeated("You have no seat at this table.")
            else:
                seat = who.seat
                if isinstance(who, BotSeat) and not self._controlled(table, seat):
                    raise NotSeated("That seat is not played by a bot.")
                if isinstance(who, Timeout) and (table.row.seats[seat].kind != "human"
                                                 or self._controlled(table, seat)):
                    raise NotSeated("A bot plays that seat: it has no clock.")
            if expected_version is not None and expected_version != match.version:
                raise Stale("The table has moved on since that page was shown: here it is now.", match.version)
            if isinstance(who, Timeout) and (table.clock is None or table.clock[:2] != (seat, match.version)
                                             or table.clock[2] > self.clock()):
                raise Stale("That seat's time has not run out.", match.version)
            if parsed in (DEAL, DEAL_NOW):
                if not self._ready(table, seat, who, parsed):
                    table.event = Event(seat, "ready")
                    self._publish(table)  # everyone sees who is still reading
                    return self._snapshot(table, seat)
                parsed = DEAL
            event = self._apply(table, seat, parsed)
            before = table.seat_clocks.get(seat, SeatClock())
            after = before
            if isinstance(who, Timeout):
                after = before.after_timeout()
                event = dataclasses.replace(event, by_clock=True, autopilot=after.autopilot and not before.autopilot)
            elif isinstance(who, Player) and parsed != DEAL:
                after = before.after_own_move()
            table.seat_clocks[seat] = after
            clock = self._next_clock(table)
            try:
                self.store.save_move(table.match_id, match.version, seat, str(parsed), finished=match.finished,
                                     winner=match.winner, clock=clock, seat_clock=(
                                         None if after == before else (seat, after.timeouts_in_row, after.timed_out,
                                                                       after.autopilot)))
            except BaseException:
                # Not stored means not accepted: rebuild the state from the database so
                # memory never runs ahead of what a restart would find.
                self._tables.pop(table.code, None)
                log.exception("storing a move at %s failed", table.code)
                raise
            table.event = event
            if clock != table.clock:
                table.clock = clock
                self._wake()
            if isinstance(who, Player) and seat in table.holds:
                # their own move says they are here (a page without a socket, say): no bot for them
                self.store.clear_hold(table.code, seat)
                del table.holds[seat]
            self._publish(table)
            self._schedule(table)
            return self._snapshot(table, seat)

    def _ready(self, table: _Table, seat: int, who: Who, action: str) -> bool:
        """Mark ``seat`` ready for the next hand; whether to deal it now (every person at
        the table is ready, or the host deals without waiting). Raises IllegalAction, NotHost."""
        match = table.match
        if table.row.seats[seat].kind != "human" or not isinstance(who, Player):
            raise NotSeated("Only a person at the table deals the next hand.")
        if match.phase != HAND_OVER:
            raise IllegalAction("The match is over." if match.finished else "The hand is not over yet.")
        if action == DEAL_NOW:
            if table.row.host != who.id:
                raise NotHost("Only the host deals without waiting.")
            return True
        key = (table.match_number, match.hand_number)
        if table.ready_for != key:
            table.ready, table.ready_for = set(), key
        table.ready.add(seat)
        return all(s.seat in table.ready or self._controlled(table, s.seat)
                   for s in table.row.seats if s.kind == "human")

    def _apply(self, table: _Table, seat: int, action: Any) -> Event:
        match = table.match
        if action == DEAL:
            if table.row.seats[seat].kind != "human":
                raise NotSeated("Only a person at the table deals the next hand.")
            match.next_hand()
            return Event(seat, DEAL)
        tricks_before = len(match.tricks)
        match.apply(seat, action)
        won = match.tricks[-1][2] if len(match.tricks) > tricks_before else None
        text = action.to_json() if hasattr(action, "to_json") else str(action)
        return Event(seat, str(text), won, match.phase in (HAND_OVER, MATCH_OVER))

    def rematch(self, code: str, who: Player, expected_version: int | None = None,
                partner: int | None = None) -> Snapshot:
        """Start a new match at the same table with the same rules and everyone still at
        it, once the match is over. Only the host starts it; ``partner`` (seat 1, 2 or 3
        as seen from the host's seat 0) is who sits across this time: the two swap seats.
        Raises TableNotFound, NotSeated, NotHost, Stale, IllegalAction, BadAction."""
        table = self._get(code)
        with table.lock:
            seat = table.seat_of(who.id)
            if seat is None:
                raise NotSeated("You have no seat at this table.")
            if table.row.host is not None and table.row.host != who.id:
                raise NotHost("Only the host starts a rematch.")
            if not table.match.finished:
                raise IllegalAction("The match is not over yet.")
            if expected_version is not None and expected_version != table.match.version:
                raise Stale("The table has moved on since that page was shown: here it is now.", table.match.version)
            if partner is not None and partner not in (1, 2, 3):
                raise BadAction("Choose the seat of your new partner: 1, 2 or 3.")
            rules = table.match.rules
            seed = self.new_seed()
            number = table.match_number + 1
            seats = list(table.row.seats)
            across = (seat + 2) % 4
            if partner is not None and (seat + partner) % 4 != across:
                other = (seat + partner) % 4
                seats[across], seats[other] = (dataclasses.replace(seats[other], seat=across),
                                               dataclasses.replace(seats[across], seat=other))
            try:
                if seats != list(table.row.seats):
                    self.store.rematch_seats(table.code, number, seed, dataclasses.asdict(rules), seats)
                else:
                    self.store.new_match(table.code, number, seed, dataclasses.asdict(rules))
            except Conflict:
                raise Stale("A rematch has already started: here it is.", table.match.version) from None
            fresh = self._load(table.code)
            table.row, table.match_id, table.match_number = fresh.row, fresh.match_id, fresh.match_number
            table.seed, table.match = fresh.seed, fresh.match
            self._load_clocks(table)  # a new match: every seat's clock record starts again
            table.event = Event(seat, "rematch")
            self._sync_clock(table)
            self._publish(table)
            self._schedule(table)
            return self._snapshot(table, seat)

    # -- rooms -----------------------------------------------------------------------
    def create_room(self, player_id: str, name: str, emoji: str, rules: Rules, level: str, humans: int) -> str:
        """A table for ``humans`` people (2-4) that waits for them, with its creator as host.
        Returns the join code. Raises BadAction, BadPlayer."""
        if level not in LEVELS:
            raise BadAction(f"level must be one of {', '.join(LEVELS)}")
        if not 2 <= humans <= MAX_HUMANS:
            raise BadAction("A table with friends is for 2 to 4 people.")
        name, emoji = clean_name(name), check_emoji(emoji)
        options = {"kind": "friends", "level": level, "humans": humans, "rules": dataclasses.asdict(rules)}
        self.store.remember_player(player_id, name, emoji)
        return self._new_code(lambda code: self.store.create_room(code, player_id, options, name, emoji))

    def status(self, code: str) -> str:
        """``waiting``, ``playing``, ``finished`` or ``closed``. Raises TableNotFound."""
        status = self.store.table_status(code.upper())
        if status is None:
            raise TableNotFound("There is no table with that code. Check it, or start a new game.")
        return status

    def known_player(self, player_id: str | None) -> tuple[str, str]:
        """The name and emoji this player last chose ("" when unknown), to prefill forms."""
        known = self.store.known_player(player_id) if player_id else None
        name, emoji = known or ("", "")
        return ("" if name == "You" else name), (emoji if emoji in EMOJIS else "")

    def _room(self, code: str) -> _Room:
        with self._load_lock:
            room = self._rooms.get(code)
            if room is None:
                room = self._rooms[code] = _Room(code)
            return room

    def _room_row(self, code: str) -> RoomRow:
        row = self.store.load_room(code)
        if row is None:
            raise TableNotFound("There is no table with that code. Check it, or start a new game.")
        return row

    @staticmethod
    def _active(row: RoomRow) -> list[MemberRow]:
        return [m for m in row.members if m.state == "in"]

    def _room_snapshot(self, room: _Room, row: RoomRow, player_id: str | None) -> RoomSnapshot:
        active = self._active(row)
        host = next((m.number for m in active if m.player_id == row.host), None)
        order = ([host] if host is not None else []) + [m.number for m in active if m.number != host]
        plan = seat_plan(order, row.partner) if order else {}
        mine = next((m for m in row.members if m.player_id == player_id), None) if player_id else None
        me = mine.number if mine is not None and mine.state == "in" else None
        members = tuple(Member(m.number, m.name, m.emoji, m.number == host, plan.get(m.number), m.number == me)
                        for m in sorted(active, key=lambda m: order.index(m.number)))
        humans = int(row.options.get("humans", MAX_HUMANS))
        return RoomSnapshot(row.code, row.status, me, mine is not None and mine.state == "removed", members,
                            row.partner, humans, row.options.get("level", "normal"), row.options.get("rules", {}),
                            me is not None and me == host, room_capacity(humans, row.partner), room.version)

    def room_snapshot(self, code: str, player_id: str | None) -> RoomSnapshot:
        """What this person sees of the room. Raises TableNotFound."""
        code = code.upper()
        room = self._room(code)
        with room.lock:
            return self._room_snapshot(room, self._room_row(code), player_id)

    def subscribe_room(self, code: str, player_id: str | None, callback: RoomSubscriber) -> int:
        """Register a connection for the room; it gets a snapshot at once and one after every
        change. Raises TableNotFound."""
        code = code.upper()
        room = self._room(code)
        with room.lock:
            callback(self._room_snapshot(room, self._room_row(code), player_id))
            token = next(self._tokens)
            room.subscribers[token] = (player_id, callback)
            return token

    def unsubscribe_room(self, code: str, token: int) -> None:
        room = self._rooms.get(code.upper())
        if room is not None:
            with room.lock:
                room.subscribers.pop(token, None)

    def _room_changed(self, room: _Room) -> RoomRow:
        """After a committed change: publish everyone's new picture (caller holds the lock)."""
        room.version += 1
        row = self._room_row(room.code)
        for token, (pid, callback) in list(room.subscribers.items()):
            try:
                callback(self._room_snapshot(room, row, pid))
            except Exception:  # a dead connection is dropped, the room goes on
                log.info("dropping room subscriber %s of %s", token, room.code, exc_info=True)
                room.subscribers.pop(token, None)
        return row

    def _waiting_room(self, code: str, room: _Room, player_id: str, host_only: bool) -> tuple[RoomRow, MemberRow]:
        """The room and this player's membership, checked. Raises TableNotFound,
        TableClosed, NotSeated, NotHost."""
        row = self._room_row(code)
        if row.status != "waiting":
            raise TableClosed("The game at this table has started." if row.status in ("playing", "finished")
                              else "This table was closed.")
        mine = next((m for m in self._active(row) if m.player_id == player_id), None)
        if mine is None:
            raise NotSeated("You are not in this room.")
        if host_only and row.host != player_id:
            raise NotHost("Only the host can do that.")
        return row, mine

    def join(self, code: str, player_id: str, name: str, emoji: str) -> str:
        """Join a table by its code with a name and an emoji. Returns ``"table"`` when this
        player already holds a seat there (the same browser gets its seat back), else
        ``"room"``. Raises TableNotFound, TableClosed, TableFull, Removed, BadPlayer."""
        code = code.upper()
        name, emoji = clean_name(name), check_emoji(emoji)
        room = self._room(code)
        with room.lock:
            row = self._room_row(code)
            if player_id in row.seated:
                return "table"
            self.check_joinable(row, player_id)
            self.store.join_room(code, player_id, name, emoji)
            self.store.remember_player(player_id, name, emoji)
            self._room_changed(room)
            return "room"

    def check_joinable(self, row: RoomRow, player_id: str | None) -> None:
        """Refuse a join with the reason. Raises TableClosed, TableFull, Removed."""
        if row.status == "finished":
            raise TableClosed("The match at this table is over. Start a new game, or ask for a new code.")
        if row.status == "closed":
            raise TableClosed("This table was closed: everyone left before the game started.")
        if row.status == "playing":
            raise TableFull("The game at this table has started and every seat is taken.")
        mine = next((m for m in row.members if m.player_id == player_id), None) if player_id else None
        if mine is not None and mine.state == "removed":
            raise Removed("The host removed you from this table.")
        if mine is not None and mine.state == "in":
            return  # already here: joining again just returns to the room
        active = self._active(row)
        humans = int(row.options.get("humans", MAX_HUMANS))
        if len(active) >= room_capacity(humans, row.partner):
            raise TableFull("This table is full: every seat for people is taken.")

    def joinable(self, code: str, player_id: str | None) -> RoomRow:
        """The room, if this player may join it (or is in it, or seated). Raises
        TableNotFound, TableClosed, TableFull, Removed."""
        code = code.upper()
        row = self._room_row(code)
        if player_id not in row.seated:
            self.check_joinable(row, player_id)
        return row

    def pick_partner(self, code: str, player_id: str, partner: int) -> None:
        """The host's partner: a member's number, or BOT_PARTNER. Raises NotHost,
        NotSeated, TableClosed, BadAction."""
        code = code.upper()
        room = self._room(code)
        with room.lock:
            row, mine = self._waiting_room(code, room, player_id, host_only=True)
            others = [m for m in self._active(row) if m.number != mine.number]
            if partner == BOT_PARTNER:
                if len(others) > 2:
                    raise BadAction("Three friends are here and the other team has two seats: "
                                    "pick one of them as your partner, or remove someone first.")
            elif partner not in [m.number for m in others]:
                raise BadAction("That player is not in the room any more.")
            self.store.update_room(code, partner=partner)
            self._room_changed(room)

    def remove(self, code: str, player_id: str, number: int) -> None:
        """The host removes a member before the start (they cannot come back from this
        browser). Raises NotHost, NotSeated, TableClosed, BadAction."""
        code = code.upper()
        room = self._room(code)
        with room.lock:
            row, mine = self._waiting_room(code, room, player_id, host_only=True)
            if number == mine.number:
                raise BadAction("You cannot remove yourself: leave the room instead.")
            if number not in [m.number for m in self._active(row)]:
                raise BadAction("That player is not in the room any more.")
            self.store.update_room(code, member=(number, "removed"),
                                   partner=None if row.partner == number else "keep")
            self._room_changed(room)

    def leave(self, code: str, player_id: str) -> None:
        """A member leaves the room. A leaving host passes the role to the next person in
        join order (who then picks their own partner); the last one out closes the room.
        Raises NotSeated, TableClosed."""
        code = code.upper()
        room = self._room(code)
        with room.lock:
            row, mine = self._waiting_room(code, room, player_id, host_only=False)
            rest = [m for m in self._active(row) if m.number != mine.number]
            if not rest:
                self.store.update_room(code, member=(mine.number, "left"), partner=None, close=True)
            elif row.host == player_id:
                self.store.update_room(code, member=(mine.number, "left"), host=rest[0].player_id, partner=None)
            else:
                self.store.update_room(code, member=(mine.number, "left"),
                                       partner=None if row.partner == mine.number else "keep")
            self._room_changed(room)

    def start(self, code: str, player_id: str) -> None:
        """The host starts the match: everyone takes their seat (without a partner chosen,
        the first to join sits across; with nobody else, a bot), empty seats become bots,
        and the first hand is dealt. Raises NotHost, NotSeated, TableClosed."""
        code = code.upper()
        room = self._room(code)
        with room.lock:
            row, mine = self._waiting_room(code, room, player_id, host_only=True)
            active = self._active(row)
            order = [mine.number] + [m.number for m in active if m.number != mine.number]
            partner = row.partner if row.partner == BOT_PARTNER or row.partner in order[1:] else \
                (order[1] if len(order) > 1 else BOT_PARTNER)
            plan = seat_plan(order, partner)
            by_number = {m.number: m for m in active}
            seats = [SeatRow(s, "bot", None, PRACTICE_BOTS[s], BOT_EMOJI) for s in range(1, 4)]
            seats.insert(0, SeatRow(0, "human", player_id, mine.name, mine.emoji))
            for number, s in plan.items():
                m = by_number[number]
                seats[s] = SeatRow(s, "human", m.player_id, m.name, m.emoji)
            rules = Rules.from_dict(row.options.get("rules"))
            try:
                self.store.start_room(code, seats, self.new_seed(), dataclasses.asdict(rules))
            except Conflict:
                raise TableClosed("The game at this table has already started.") from None
            self._get(code)  # load it: the bots start if the first move is theirs
            self._room_changed(room)
            room.subscribers.clear()  # every page now moves to the table and connects there

    # -- clocks ----------------------------------------------------------------------
    @staticmethod
    def _shared(table: _Table) -> bool:
        """A table for friends (practice tables have no clocks, holds or leaving)."""
        return table.row.options.get("kind") != "practice"

    def _timed(self, table: _Table) -> bool:
        return self._shared(table) and (self.clock_seconds is not None
                                        or clocks.turn_seconds(table.match.rules, PLAYING) is not None)

    def _hold_over_for(self, table: _Table, seat: int) -> bool:
        """The seat's person is gone: left for good, or away past the hold."""
        hold = table.holds.get(seat)
        return table.row.seats[seat].kind != "human" or (hold is not None and hold[2])

    def _controlled(self, table: _Table, seat: int) -> bool:
        """A bot plays this seat now: a bot's seat, a person's on autopilot or away past the hold."""
        return self._hold_over_for(table, seat) or table.seat_clocks.get(seat, SeatClock()).autopilot

    def _next_clock(self, table: _Table) -> tuple[int, int, float] | None:
        """The clock the table should have now: the running one when it still applies,
        a fresh one for a person's new turn, None when nobody's clock runs."""
        match = table.match
        seat = match.to_act
        if (not self._timed(table) or seat is None or match.phase not in (BIDDING, PLAYING)
                or self._controlled(table, seat)):
            return None
        if table.clock is not None and table.clock[:2] == (seat, match.version):
            return table.clock
        now = self.clock()
        if self.clock_seconds is not None:
            return seat, match.version, now + self.clock_seconds
        deadline = clocks.deadline(match.rules, match.phase, table.seat_clocks.get(seat, SeatClock()), now)
        return None if deadline is None else (seat, match.version, deadline)

    def _sync_clock(self, table: _Table) -> None:
        """Store the clock the table should have, if it changed (caller holds the lock)."""
        clock = self._next_clock(table)
        if clock != table.clock:
            self.store.set_clock(table.match_id, clock)
            table.clock = clock
            self._wake()

    def _fire_clocks(self) -> float | None:
        """Move for every seat whose clock ran out and hand every seat whose hold ran out
        to a bot; seconds until the next stored deadline (None: there is none)."""
        now = self.clock()
        for code, match_id, seat, version in self.store.due_clocks(now):
            try:
                self._timeout(code, match_id, seat, version)
            except Exception:  # a clock that cannot fire must not fire again and again
                log.exception("clock at %s (version %d) failed", code, version)
                self.store.drop_clock(match_id, version)
        for code, seat in self.store.due_holds(now):
            try:
                self._hold_over(code, seat)
            except Exception:
                log.exception("hold at %s seat %d failed", code, seat)
                self.store.clear_hold(code, seat)
        nxt = self.store.next_deadline()
        now = self.clock()
        # a deadline still due is being moved for (its job pokes the scheduler when done):
        # waiting for that poke, not looking again at once, keeps this thread from spinning
        return None if nxt is None or nxt <= now else nxt - now

    def _timeout(self, code: str, match_id: int, seat: int, version: int) -> None:
        """A clock ran out: think about the seat's move as a job (applied through ``act``)."""
        table = self._get(code)
        with table.lock:
            match = table.match
            if table.match_id != match_id or table.clock is None or table.clock[:2] != (seat, version) \
                    or match.version != version:
                self.store.drop_clock(match_id, version)  # a move beat it: nothing to do
                if table.match_id == match_id and table.clock is not None and table.clock[1] == version:
                    table.clock = None
                return
            key = (code, table.match_number, version)
            with self._cond:
                if key in self._jobs:
                    return  # already being played
            view = seat_view(match, seat)
            if clocks.is_tourney(match.rules) and match.phase == PLAYING:
                future: cf.Future = cf.Future()
                led = view["trick"]["cards"][0] if view["trick"] and view["trick"]["cards"] else None
                future.set_result(clocks.tourney_timeout_card(view["hand"], led))
            else:
                future = self._submit(bots.choose, view, CLOCK_BOT,
                                      bot_seed(table.seed, table.match_number, version, seat), self.bot_budget)
            now = time.monotonic()
            job = _Job(code, table.match_number, version, seat, future, not_before=now,
                       deadline=now + self.think_limit, fallback=view["legal"][0], timeout=True)
            with self._cond:
                self._jobs[key] = job
                self._cond.notify_all()
            future.add_done_callback(self._wake)

    def _hold_over(self, code: str, seat: int) -> None:
        """A dropped seat's hold ran out: a bot plays it until its person is back."""
        table = self._get(code)
        with table.lock:
            hold = table.holds.get(seat)
            if hold is None or table.row.seats[seat].kind != "human":
                self.store.clear_hold(code, seat)
                table.holds.pop(seat, None)
                return
            if hold[2] or hold[1] > self.clock() or not self.store.fire_hold(code, seat):
                return
            table.holds[seat] = (hold[0], hold[1], True)
            self._sync_clock(table)
            self._publish(table)
            self._schedule(table)
            self._deal_if_ready(table)

    def _gone(self, table: _Table, seat: int) -> None:
        """The seat's last connection closed: hold it (caller holds the lock)."""
        if (not self._shared(table) or table.row.seats[seat].kind != "human" or seat in table.holds
                or any(s == seat for s, _ in table.subscribers.values()) or table.match.finished):
            return
        now = self.clock()
        said = table.closing.pop(seat, None)
        until = clocks.hold_until(now, closing=said is not None and now - said <= CLOSING_WINDOW)
        self.store.set_hold(table.code, seat, now, until)
        table.holds[seat] = (now, until, False)
        self._wake()
        self._publish(table)

    def closing(self, code: str, player_id: str) -> None:
        """The player's page said it is closing on purpose: the hold is the short one.
        Raises TableNotFound."""
        table = self._get(code)
        with table.lock:
            seat = table.seat_of(player_id)
            if seat is None:
                return
            hold = table.holds.get(seat)
            if hold is None:  # the connection closes next: remember, briefly
                table.closing[seat] = self.clock()
            elif not hold[2]:
                until = min(hold[1], clocks.hold_until(hold[0], closing=True))
                self.store.set_hold(table.code, seat, hold[0], until)
                table.holds[seat] = (hold[0], until, False)
                self._wake()

    def take_over(self, code: str, player_id: str) -> Snapshot:
        """The player takes their seat back from the bot (autopilot ends; their clock runs
        again). Raises TableNotFound, NotSeated."""
        table = self._get(code)
        with table.lock:
            seat = table.seat_of(player_id)
            if seat is None:
                raise NotSeated("You have no seat at this table.")
            before = table.seat_clocks.get(seat, SeatClock())
            if not before.autopilot and not table.holds.get(seat, (0, 0, False))[2]:
                return self._snapshot(table, seat)  # no bot plays for them: nothing to take back
            after = before.after_own_move()
            if after != before:
                self.store.save_seat_clock(table.match_id, seat, after.timeouts_in_row, after.timed_out,
                                           after.autopilot)
                table.seat_clocks[seat] = after
            if seat in table.holds:  # pressing a button means they are here
                self.store.clear_hold(table.code, seat)
                del table.holds[seat]
            table.event = Event(seat, "take_over")
            self._sync_clock(table)
            self._publish(table)
            return self._snapshot(table, seat)

    def leave_table(self, code: str, player_id: str) -> None:
        """The player leaves the match for good: a bot plays their seat from now on, the
        table is told, and a leaving host passes the role on (the partner first).
        Raises TableNotFound, NotSeated."""
        table = self._get(code)
        with table.lock:
            seat = table.seat_of(player_id)
            if seat is None:
                raise NotSeated("You have no seat at this table.")
            host = table.row.host
            if host == player_id:
                others = [table.row.seats[(seat + k) % 4] for k in (2, 1, 3)]
                host = next((s.player_id for s in others if s.kind == "human"), None)
            self.store.leave_seat(table.code, seat, player_id, BOT_EMOJI, host)
            seats = list(table.row.seats)
            seats[seat] = dataclasses.replace(seats[seat], kind="bot", player_id=None, emoji=BOT_EMOJI)
            table.row = dataclasses.replace(table.row, seats=tuple(seats), host=host)
            table.left.add(seat)
            table.holds.pop(seat, None)
            table.ready.discard(seat)
            table.event = Event(seat, "left")
            self._sync_clock(table)
            self._publish(table)
            self._schedule(table)
            self._deal_if_ready(table)

    def _deal_if_ready(self, table: _Table) -> None:
        """Between hands, once a bot took a seat over: deal if everyone left is ready."""
        match = table.match
        if match.phase != HAND_OVER or table.ready_for != (table.match_number, match.hand_number):
            return
        people = [s for s in table.row.seats if s.kind == "human"]
        ready = [s for s in people if s.seat in table.ready]
        if ready and all(s.seat in table.ready or self._controlled(table, s.seat) for s in people):
            try:  # as the first ready person's Continue again: the same path as theirs
                self.act(table.code, Player(ready[0].player_id), DEAL, match.version)
            except (Refused, IllegalAction) as e:
                log.info("no deal at %s: %s", table.code, e)

    # -- bots ------------------------------------------------------------------------
    def _schedule(self, table: _Table) -> None:
        """Ask the pool for the next bot move, if it is a bot's turn (caller holds the lock)."""
        match = table.match
        seat = match.to_act
        if seat is None or match.phase in (HAND_OVER, MATCH_OVER) or not self._controlled(table, seat):
            return
        if not any(s.kind == "human" and not self._hold_over_for(table, s.seat) for s in table.row.seats):
            return  # nobody is at the table any more (all left, or away past the hold): it waits
        key = (table.code, table.match_number, match.version)
        if key in self._jobs:
            return
        view = seat_view(match, seat)
        # a person's seat is played at the clock's level; the bots' seats at the table's
        level = CLOCK_BOT if table.row.seats[seat].kind == "human" else table.row.options.get("level", "normal")
        now = time.monotonic()
        delay = self.play_delays.get(match.rules.play_speed, 0.8)
        future = self._submit(bots.choose, view, level, bot_seed(table.seed, table.match_number, match.version, seat),
                              self.bot_budget)
        job = _Job(table.code, table.match_number, match.version, seat, future,
                   not_before=now + delay, deadline=now + delay + self.think_limit, fallback=view["legal"][0])
        with self._cond:
            self._jobs[key] = job
            self._cond.notify_all()
        future.add_done_callback(self._wake)

    def _wake(self, _future: object = None) -> None:
        with self._cond:
            self._poked = True
            self._cond.notify_all()

    def _run_scheduler(self) -> None:
        """The one scheduler: bot answers, when their time comes, and the stored clocks."""
        clock_wait: float | None = 0.0  # look at the stored clocks at once (overdue after a restart)
        while True:
            ready: list[tuple[_Job, int | str]] = []
            with self._cond:
                if self._stopped:
                    return
                if self._poked or (clock_wait is not None and clock_wait <= 0):
                    self._poked = False
                    self._firing = True
                    look = True
                else:
                    look = False
            if look:
                try:
                    clock_wait = self._fire_clocks()
                except Exception:
                    log.exception("firing clocks failed")
                    clock_wait = 1.0
                finally:
                    with self._cond:
                        self._firing = False
            with self._cond:
                if self._stopped:
                    return
                now = time.monotonic()
                wake = now + 60
                for key, job in list(self._jobs.items()):
                    if job.taken:
                        continue
                    if job.future.done() and now >= job.not_before:
                        try:
                            answer = job.future.result()
                        except Exception:
                            log.exception("bot failed at %s; playing a fallback move", job.code)
                            answer = job.fallback
                        ready.append((job, answer))
                    elif now >= job.deadline:
                        job.future.cancel()
                        log.warning("bot at %s seat %d over its time; playing a fallback move", job.code, job.seat)
                        ready.append((job, job.fallback))
                    else:
                        wake = min(wake, job.not_before if job.future.done() else job.deadline)
                        continue
                    job.taken = True
                if not ready:
                    if not self._poked:
                        # the stored deadlines are in the injected clock's seconds: wait that long
                        wait = wake - now if clock_wait is None else min(wake - now, clock_wait)
                        waited = time.monotonic()
                        self._cond.wait(max(0.0, wait))
                        if clock_wait is not None:
                            clock_wait -= time.monotonic() - waited
                    continue
            for job, answer in ready:
                try:
                    self._bot_move(job, answer)
                finally:
                    with self._cond:
                        self._jobs.pop((job.code, job.match_number, job.version), None)

    def _bot_move(self, job: _Job, answer: int | str) -> None:
        table = self._tables.get(job.code)
        if table is None or table.match_number != job.match_number:
            return
        who: Who = Timeout(job.seat) if job.timeout else BotSeat(job.seat)
        for attempt in (answer, job.fallback):
            try:
                self.act(job.code, who, attempt, expected_version=job.version)
                return
            except (Stale, NotSeated):
                return  # the table moved on (a person's move, a rematch), or the seat's person is back
            except (IllegalAction, BadAction) as e:
                log.warning("bot at %s seat %d answered %r: %s", job.code, job.seat, attempt, e)
            except Exception:
                log.exception("bot move at %s failed", job.code)
                return

    def idle(self) -> bool:
        """No bot turn is pending and no stored clock or hold is due (tests and the
        benchmark wait for this)."""
        with self._cond:
            if self._jobs or self._firing or self._poked:
                return False
        now = self.clock()
        return not self.store.due_clocks(now) and not self.store.due_holds(now)

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no bot turn is pending, or ``timeout``; returns whether idle."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.idle():
                return True
            time.sleep(0.002)
        return self.idle()
