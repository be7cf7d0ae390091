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

Bots think in a ``ProcessPoolExecutor`` (a Hard bot may think for a second; the server
threads stay free). One scheduler thread waits for their answers and applies each no
sooner than the table's play speed allows, with a deadline after which a legal fallback
move is played so a table never stalls. On start-up every unfinished table is rebuilt by
replaying its stored actions, and its bots carry on from the exact card.

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
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import bots
from .cards import NotationError
from .records import to_record
from .rules import HAND_OVER, MATCH_OVER, IllegalAction, Match, parse_action
from .rules_config import Rules
from .storage import Conflict, SeatRow, Store, TableRow
from .views import seat_view

log = logging.getLogger(__name__)

DEAL = "deal"  # the stored text of ``Match.next_hand`` (the Continue button)
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L look-alikes
CODE_LENGTH = 6
PRACTICE_BOTS = {1: "Rex", 2: "Bea", 3: "Kit"}  # Rex on the left, Bea across, Kit on the right
PLAY_DELAYS = {"slow": 1.5, "normal": 0.8, "fast": 0.3}  # seconds between bot moves
LEVELS = ("easy", "normal", "hard")


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


# -- who acts --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Player:
    """A person, known by the id in their signed cookie."""

    id: str


@dataclass(frozen=True, slots=True)
class BotSeat:
    """The bot playing ``seat`` (only the scheduler acts as one)."""

    seat: int


Who = Player | BotSeat


@dataclass(frozen=True, slots=True)
class Event:
    """What the last accepted move was, for announcements: public information only."""

    seat: int | None
    action: str  # "QS", "4", "nil", "blind_nil", "look", "deal", "rematch", or "" (nothing yet)
    trick_winner: int | None = None  # set when this card completed a trick
    hand_over: bool = False


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


Subscriber = Callable[[Snapshot], None]


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


def bot_seed(seed: str, match_number: int, version: int, seat: int) -> int:
    """A bot's seed for one decision: reproducible from the record, different each move."""
    return zlib.crc32(f"{seed}/{match_number}/{version}/{seat}".encode())


class TableService:
    """All tables of one server process: cache, locks, bot scheduler, subscribers."""

    def __init__(self, store: Store, *, play_delays: dict[str, float] | None = None,
                 think_limit: float = 5.0, bot_budget: float | None = None,
                 pool: cf.Executor | None = None, pool_workers: int = 2,
                 new_seed: Callable[[], str] | None = None) -> None:
        self.store = store
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
        self._load_lock = threading.Lock()
        self._jobs: dict[tuple[str, int, int], _Job] = {}
        self._cond = threading.Condition()
        self._stopped = False
        self._tokens = itertools.count(1)  # subscriber tokens, unique across tables (count is atomic)
        self._thread = threading.Thread(target=self._run_scheduler, name="bot-scheduler", daemon=True)
        self._thread.start()

    # -- life cycle ------------------------------------------------------------------
    def resume_all(self) -> int:
        """Load every unfinished table so its bots carry on; returns how many."""
        codes = self.store.unfinished_tables()
        for code in codes:
            try:
                self._get(code)
            except Exception:  # one broken table must not stop the others from resuming
                log.exception("could not resume table %s", code)
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
    def create_practice(self, player_id: str, name: str, rules: Rules, level: str) -> str:
        """A new practice table: the player in seat 0, Bea across, Rex left, Kit right.
        Returns its code; the bots start at once if the first move is theirs."""
        if level not in LEVELS:
            raise BadAction(f"level must be one of {', '.join(LEVELS)}")
        seats = [SeatRow(0, "human", player_id, name)] + [
            SeatRow(s, "bot", None, n) for s, n in sorted(PRACTICE_BOTS.items())]
        options = {"kind": "practice", "level": level}
        seed = self.new_seed()
        self.store.ensure_player(player_id, name)
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                self.store.create_table(code, player_id, options, seats, seed, dataclasses.asdict(rules))
                break
            except sqlite3.IntegrityError:
                continue  # the code is taken: draw another
        else:  # pragma: no cover - 31^6 codes
            raise RuntimeError("no free table code")
        self._get(code)
        return code

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
            self._schedule(table)
        return table

    def _load(self, code: str) -> _Table:
        row = self.store.load_table(code)
        if row is None:
            raise TableNotFound("There is no table with that code.")
        match = self._replay(row)
        return _Table(code, row, row.match.id, row.match.number, row.match.seed, match)

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
        return Snapshot(table.code, seat, seat_view(table.match, seat), tuple(s.name for s in seats),
                        tuple(s.kind for s in seats), table.match_number, table.row.options.get("level", "normal"),
                        table.match.rules.play_speed, table.event)

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
            token = next(self._tokens)
            callback(self._snapshot(table, seat))
            table.subscribers[token] = (seat, callback)
        return token

    def unsubscribe(self, code: str, token: int) -> None:
        table = self._tables.get(code.upper())
        if table is not None:
            with table.lock:
                table.subscribers.pop(token, None)

    def _publish(self, table: _Table) -> None:
        snapshots: dict[int | None, Snapshot] = {}
        for token, (seat, callback) in list(table.subscribers.items()):
            if seat not in snapshots:
                snapshots[seat] = self._snapshot(table, seat)
            try:
                callback(snapshots[seat])
            except Exception:  # a dead or broken connection is dropped, the table goes on
                log.info("dropping subscriber %s of %s", token, table.code, exc_info=True)
                table.subscribers.pop(token, None)

    # -- the one move path -----------------------------------------------------------
    def act(self, code: str, who: Who, action: object, expected_version: int | None = None) -> Snapshot:
        """Check, apply, store, publish and schedule one move; returns the mover's new snapshot.
        ``action`` is a card, bid, ``"look"`` or ``"deal"`` (Continue to the next hand).
        Raises TableNotFound, NotSeated, Stale, BadAction, IllegalAction (nothing changed)."""
        if action == DEAL:
            parsed: Any = DEAL
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
                if table.row.seats[seat].kind != "bot":
                    raise NotSeated("That seat is not played by a bot.")
            if expected_version is not None and expected_version != match.version:
                raise Stale("The table has moved on since that page was shown: here it is now.", match.version)
            event = self._apply(table, seat, parsed)
            try:
                self.store.append_action(table.match_id, match.version, seat, str(parsed),
                                         finished=match.finished, winner=match.winner)
            except BaseException:
                # Not stored means not accepted: rebuild the state from the database so
                # memory never runs ahead of what a restart would find.
                self._tables.pop(table.code, None)
                log.exception("storing a move at %s failed", table.code)
                raise
            table.event = event
            self._publish(table)
            self._schedule(table)
            return self._snapshot(table, seat)

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

    def rematch(self, code: str, who: Player, expected_version: int | None = None) -> Snapshot:
        """Start a new match at the same table with the same seats and rules, once the
        match is over. Raises TableNotFound, NotSeated, Stale, IllegalAction."""
        table = self._get(code)
        with table.lock:
            seat = table.seat_of(who.id)
            if seat is None:
                raise NotSeated("You have no seat at this table.")
            if not table.match.finished:
                raise IllegalAction("The match is not over yet.")
            if expected_version is not None and expected_version != table.match.version:
                raise Stale("The table has moved on since that page was shown: here it is now.", table.match.version)
            rules = table.match.rules
            seed = self.new_seed()
            number = table.match_number + 1
            try:
                self.store.new_match(table.code, number, seed, dataclasses.asdict(rules))
            except Conflict:
                raise Stale("A rematch has already started: here it is.", table.match.version) from None
            fresh = self._load(table.code)
            table.row, table.match_id, table.match_number = fresh.row, fresh.match_id, fresh.match_number
            table.seed, table.match = fresh.seed, fresh.match
            table.event = Event(seat, "rematch")
            self._publish(table)
            self._schedule(table)
            return self._snapshot(table, seat)

    # -- bots ------------------------------------------------------------------------
    def _schedule(self, table: _Table) -> None:
        """Ask the pool for the next bot move, if it is a bot's turn (caller holds the lock)."""
        match = table.match
        seat = match.to_act
        if seat is None or match.phase in (HAND_OVER, MATCH_OVER) or table.row.seats[seat].kind != "bot":
            return
        key = (table.code, table.match_number, match.version)
        if key in self._jobs:
            return
        view = seat_view(match, seat)
        level = table.row.options.get("level", "normal")
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
            self._cond.notify_all()

    def _run_scheduler(self) -> None:
        while True:
            ready: list[tuple[_Job, int | str]] = []
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
                    self._cond.wait(max(0.0, wake - now))
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
        for attempt in (answer, job.fallback):
            try:
                self.act(job.code, BotSeat(job.seat), attempt, expected_version=job.version)
                return
            except Stale:
                return  # the table moved on (a rematch, or this move was already made)
            except (IllegalAction, BadAction) as e:
                log.warning("bot at %s seat %d answered %r: %s", job.code, job.seat, attempt, e)
            except Exception:
                log.exception("bot move at %s failed", job.code)
                return

    def idle(self) -> bool:
        """No bot turn is pending (tests and the benchmark wait for this)."""
        with self._cond:
            return not self._jobs

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until no bot turn is pending, or ``timeout``; returns whether idle."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.idle():
                return True
            time.sleep(0.002)
        return self.idle()
