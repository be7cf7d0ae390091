"""One actor per table: the one path every command takes.

``TableActor.handle(who, command)``, for every change to a table (joining its room, a
card, Continue, a rematch, a socket that closed, a clock that ran out, a bot's answer):
1. take the table's lock (tables never wait for each other);
2-4. ``decide``: who may do it, a stale version refused with the current view, the change
   worked out with no I/O (``spades.tables.decide`` and the command's handler);
5. commit the change's rows in ONE transaction; a lost race is refused as stale, and a
   failed save is refused with the table reloaded from the database as it was: memory
   never runs ahead of what a restart would find, and the table's sockets stay;
6. publish the change on the bus: every picture of it, built here under the lock so it
   is exactly this version (rendering happens elsewhere, outside every lock);
7. hand the timers the new state wants to the scheduler (``spades.tables.state.plan``).

A table that waits for its people is in its room phase (``RoomState``); the host's Start
turns it into a playing table (``TableState``) on the same actor: the room's last picture
(which sends its pages on to the table) is published, then the table's first.

Imports: stdlib, ``spades.storage``, the core and the other ``spades.tables`` modules.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from ..clocks import SeatClock
from ..fairness import FairDeals, new_secret, secret_from
from ..rules import DEAL, HAND_OVER, Match, parse_action
from ..rules_config import Rules
from ..storage import BoardPlayed, Conflict, MatchRow, PutTurns, Store, TurnTablesFull
from .bus import Bus
from .commands.presence import Started
from .decide import Decision, decide
from .errors import AtLimit, NotSaved, NotStarted, Stale, TableNotFound
from .registry import Command, command_name
from .rooms import RoomState
from .scheduler import Scheduler
from .state import Plan, Settings, TableState, plan, snapshot, snapshots, waiting_on
from .values import NO_TABLE, PLAYED_ELSEWHERE, TOO_MANY_TURN_TABLES, Change, Server, Who

log = logging.getLogger(__name__)

Observer = Callable[[str, Who, Command], None]
State = TableState | RoomState


class Retired(Exception):
    """This actor left memory; the service loads the table afresh."""


def load_state(store: Store, code: str, rooms: bool = False) -> State:
    """The table as stored, its match replayed with the deals it was dealt; with
    ``rooms``, a table still waiting for its people is its room (with its first deal's
    commitment). Raises TableNotFound, NotStarted."""
    status = store.table_status(code)
    if status is None:
        raise TableNotFound(NO_TABLE)
    if status == "waiting":
        room = store.load_room(code) if rooms else None
        if room is None:
            raise NotStarted("The game at this table has not started yet.")
        # the first match's secret is drawn with the room (here for a room from before fair
        # deals), so its commitment is shown before the host's Start sends a contribution
        secret = store.ensure_deal_secret(code, 1, new_secret())
        shape = Rules.from_dict(room.options.get("rules")).shape  # a commitment is the same over every deck
        return RoomState(code, room, deal_commitment=FairDeals(secret, shape=shape).commitment(1) if secret else "")
    if status == "closed":
        raise TableNotFound("This table was closed before its game started.")
    row = store.load_table(code)
    if row is None:
        raise TableNotFound(NO_TABLE)
    rules = Rules.from_dict(row.match.rules)
    fair = stored_deals(store, code, row.match, rules)
    match = Match(rules, row.match.seed, deals=fair)
    for version, seat, text in store.actions(row.match.id):
        if version > match.version + 1:  # moves taken back (``TakeBack``) were changes too
            match.version = version - 1
        if text == DEAL:
            match.next_hand()
        else:
            assert seat is not None  # only a deal is stored without a seat
            match.apply(seat, parse_action(text, match.shape.tricks))
        if match.version != version:
            raise RuntimeError(f"table {code}: replay reached version {match.version}, stored {version}")
    # the last change may have been a takeback (the stored version is past the last move's);
    # a move stored between reading the match and its moves (a reader outside the table's
    # lock) leaves the replay ahead
    match.version = max(match.version, row.match.version)
    state = TableState(code, row, row.match.id, row.match.number, row.match.seed, match, fair=fair)
    state.seat_clocks = {seat: SeatClock(*rec) for seat, rec in store.seat_clocks(row.match.id).items()}
    state.clock = store.clock(row.match.id)
    state.holds = store.holds(code)
    state.left = set(store.left_seats(code))
    lines = store.chat_lines(code, 100)
    state.chat_number = lines[-1].number if lines else 0
    turns = sorted(store.turns_of(code), key=lambda t: t.seat)
    state.waits = tuple((t.person, t.turn, t.deadline) for t in turns)
    if turns and state.match.phase == HAND_OVER:  # a turn-based table's wait for Continue goes on from when it began
        state.hand_over_at = min(t.since for t in turns)
    state.speakers = {x.number: (x.person, x.name) for x in lines}
    state.silenced = store.silenced(code)
    return state


def stored_deals(store: Store, code: str, m: MatchRow, rules: Rules | None = None) -> FairDeals | None:
    """A match's fair deals as stored, over the deck and seats of its ``rules``' shape (the
    match's own when not given); None for a match dealt from its seed (from before
    fair deals). A match that starts without a secret of its own (a rematch) gets one
    here, before anyone has seen its first deal: from the match before's secret (which
    never leaves the server) and this match's seed, so a test's rematches deal the same
    cards on every run; from the operating system's random numbers when there is none."""
    data = store.fair_deals(code, m.number)
    if data is None and m.version == 0 and store.deal_secret(code, m.number) is None:
        before = store.deal_secret(code, m.number - 1) if m.number > 1 else None
        secret = secret_from([before, f"match {m.number}", m.seed]) if before else new_secret()
        store.ensure_deal_secret(code, m.number, secret, first_hand=True)
        data = store.fair_deals(code, m.number)
    shape = (rules or Rules.from_dict(m.rules)).shape
    return FairDeals.stored(data, shape)


class TableActor:
    """One table in memory: its state, its lock, and the one handler of its commands."""

    def __init__(self, code: str, store: Store, bus: Bus, scheduler: Scheduler, settings: Settings,
                 clock: Callable[[], float], observers: list[Observer]) -> None:
        self.code = code
        self.store = store
        self.bus = bus
        self.scheduler = scheduler
        self.settings = settings
        self.clock = clock
        self.observers = observers
        self.lock = threading.RLock()
        self.state: State = load_state(store, code, rooms=True)
        # counts on from any earlier owner's changes (a socket keeps only newer ones)
        self.state.seq = time.time_ns() // 1000
        self._break_from(clock())
        self.retired = False
        self.touched = clock()  # when a command last came (a table left alone may leave memory)

    def handle(self, who: Who, command: Command, prime: Callable[[Change], None] | None = None) -> object:
        """Run one command; returns the picture of the seat (or, in a room, the person) it
        concerned. ``prime`` (a new connection) is handed the table as it is after the
        command, before any later change is published. Raises the refusals of ``decide``,
        Stale for a lost race, NotSaved for a failed save (nothing changed), Retired."""
        with self.lock:
            if self.retired:
                raise Retired(self.code)
            for observe in self.observers:
                observe(self.code, who, command)
            now = self.touched = self.clock()
            decision = decide(self.state, who, command, now, self.settings)
            self._commit(command, decision)
            before = self.state
            if decision.reload:
                self._reload()
                if decision.begin:
                    self._begin(now)
            self._sync_turns(now)
            change = None
            if decision.said is not None:  # a line said changes no picture: the change carries the line
                self.state.seq += 1
                persons = self.state.persons() if isinstance(self.state, TableState) else ()
                change = Change(self.code, self.state.seq, command_name(command), {}, persons, decision.said)
            elif decision.publish:
                if type(before) is not type(self.state):  # a room that started: its pages move on first
                    self.state.seq += 1
                    before.seq = self.state.seq
                    self.bus.publish(self._change(command_name(command), now, before))
                self.state.seq += 1
                change = self._change(command_name(command), now)
            if prime is not None:
                prime(change if change is not None and change.snapshots else self._change(command_name(command), now))
            if change is not None:
                self.bus.publish(change)
            self.scheduler.plan(self.code, self.timers())
            if change is not None and change.snapshots and decision.seat in change.snapshots \
                    and isinstance(self.state, TableState):
                return change.snapshots[decision.seat]  # the seat's picture in the change just published
            return self._picture(who, decision, now)

    def begin(self) -> None:
        """A match started at a new table: the person to act gets their clock, stored
        before anyone is told, and its bots start."""
        self.handle(Server(), Started())

    def announce(self, command: str) -> None:
        """Publish the table as it is, naming ``command`` (a table loaded by a new owner)."""
        with self.lock:
            self.state.seq += 1
            self.bus.publish(self._change(command, self.clock()))

    def idle_in_memory(self, now: float | None = None, idle_after: float | None = None,
                       horizon: float = 0.0) -> bool:
        """Nothing keeps this table in memory: nobody is connected, and its match is over
        (or, in a room, whatever its status); or (with ``now``) nobody touched it for
        ``idle_after`` seconds, no bot is thinking for it and none of its timers (kept in
        the database: clocks, holds, a turn-based table's wait) is due within ``horizon``."""
        with self.lock:
            state = self.state
            if any(state.connections.values()):
                return False
            if isinstance(state, RoomState) or state.match.finished:
                return True
            if now is None or idle_after is None or now - self.touched < idle_after:
                return False
            timers = self.timers()
            if timers.bot is not None:
                return False
            due = [t for t in (timers.clock, timers.deal_at, *(until for _, until in timers.holds)) if t is not None]
            return not due or min(due) - now > horizon

    def retire(self) -> None:
        with self.lock:
            self.retired = True

    def _commit(self, command: Command, decision: Decision) -> None:
        """Store the decision's rows in one transaction. Raises Stale (a lost race),
        AtLimit (a person's turn-based tables or week of boards, counted in the
        transaction) or NotSaved, with the table reloaded as stored."""
        if not decision.rows:
            return
        try:
            self.store.commit(decision.rows)
        except TurnTablesFull:  # the person's limit, counted in the change's transaction
            self._recover()
            raise AtLimit(TOO_MANY_TURN_TABLES) from None
        except BoardPlayed:  # a week of boards the person played at another table
            self._recover()
            raise AtLimit(PLAYED_ELSEWHERE) from None
        except Conflict:
            self._recover()
            raise Stale(decision.conflict, self._version()) from None
        except Exception:
            log.exception("storing %s at %s failed; the table goes on as stored", command, self.code)
            self._recover()
            raise NotSaved("The table could not save that just now, so nothing changed. Try again.") from None

    def _begin(self, now: float) -> None:
        """A new match was loaded: its first clock, stored before anyone is told."""
        if not isinstance(self.state, TableState):
            return
        started = decide(self.state, Server(), Started(), now, self.settings)
        try:
            self.store.commit(started.rows)
        except Exception:  # the match stands; its clock comes with the next change
            log.exception("storing the first clock at %s failed", self.code)
            self._reload()

    def _sync_turns(self, now: float) -> None:
        """A turn-based table stores whom it waits on when that changed (the your-turn
        lists, the notices and the timers of tables out of memory read it). The moves
        are stored already: a failure here is logged and tried again with the next change."""
        state = self.state
        if not isinstance(state, TableState):
            return
        waits = waiting_on(state, now, self.settings)
        key = tuple((w.person, w.turn, w.deadline) for w in waits)
        if key == state.waits:
            return
        try:
            self.store.commit([PutTurns(self.code, waits)])
            state.waits = key
        except Exception:
            log.exception("storing whom %s waits on failed", self.code)

    def _version(self) -> int:
        return self.state.match.version if isinstance(self.state, TableState) else self.state.seq

    def _picture(self, who: Who, decision: Decision, now: float) -> object:
        state = self.state
        if isinstance(state, RoomState):
            return state.picture(getattr(who, "id", None))
        return snapshot(state, decision.seat, now, self.settings)

    def timers(self) -> Plan:
        """The timers the table wants now (none while it is a room)."""
        return plan(self.state, self.settings) if isinstance(self.state, TableState) else Plan()

    def _change(self, command: str, now: float, state: State | None = None) -> Change:
        state = state or self.state
        if isinstance(state, RoomState):
            return Change(self.code, state.seq, command, dict(state.pictures()))
        return Change(self.code, state.seq, command, snapshots(state, now, self.settings), state.persons())

    def _recover(self) -> None:
        """A change was not stored: the table as stored (another writer's move, say) is
        told to everyone and its timers planned, so it goes on from there."""
        self._reload()
        if self.retired:
            return
        self.state.seq += 1
        self.bus.publish(self._change("reloaded", self.clock()))
        self.scheduler.plan(self.code, self.timers())

    def _reload(self) -> None:
        """The state as stored, keeping what only this process knows (connections, who is
        ready, pages closing, the last event). A table that cannot even be read retires."""
        old = self.state
        try:
            fresh = load_state(self.store, self.code, rooms=True)
        except Exception:
            log.exception("reloading %s failed; it will be loaded afresh", self.code)
            self.retired = True
            return
        fresh.connections, fresh.seq = old.connections, old.seq
        if isinstance(fresh, TableState) and isinstance(old, TableState):
            fresh.event = old.event
            fresh.talked, fresh.last_said = old.talked, old.last_said
            if fresh.match_number == old.match_number:
                fresh.ready, fresh.ready_for, fresh.closing = old.ready, old.ready_for, old.closing
                fresh.hand_over_at = old.hand_over_at
                fresh.offers, fresh.offers_for = old.offers, old.offers_for
        self.state = fresh
        self._break_from(self.clock())

    def _break_from(self, now: float) -> None:
        """A table loaded between hands (a restart) starts its break now, if none runs."""
        state = self.state
        if isinstance(state, TableState) and state.match.phase == HAND_OVER and state.hand_over_at is None:
            state.hand_over_at = now
