"""The table service: what the web layer (and the tourneys) call, a thin facade.

It keeps one ``TableActor`` per table in memory, loading a table from the database the
first time it is asked for and letting it go when its match is over and nobody is
connected to it (it comes back from the database when asked again). Every change goes
through the table's actor as a command (``handle``); reads take a picture under the
table's lock. The scheduler fires timers back into ``handle``; the bus carries every
published change to the web layer's socket hub.

With a ``Cluster`` (several processes sharing Redis, ``spades.tables.cluster``) a table's
actor lives only in the process that owns it: ``handle`` claims a table that nobody owns
and forwards a command for a table another process owns; a read of a table owned
elsewhere replays it from the database (where every accepted move is). Each process
renews its leases and, every second, adopts unfinished tables that nobody owns (their
owner died) so their bots and clocks carry on. A table loaded by a new owner is
announced (``loaded``/``resume``) so that every process's sockets at it say so again.

Imports: stdlib, ``spades.storage``, ``spades.bots``, the core and the other
``spades.tables`` modules. Never Flask.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from concurrent import futures as cf
from typing import Any

from .. import bots
from ..bots import TABLE_LEVELS as LEVELS
from ..bots.worker import BotQueue
from ..clocks import SeatClock
from ..fairness import FairDeals, clean_contribution, secret_from
from ..records import to_record, with_takebacks
from ..rules_config import TURN_BASED, Rules
from ..storage import CreateRoom, Duplicate, Op, PutDealSecret, RoomRow, SeatRow, Store, TurnTablesFull
from ..views import SeatView
from .actor import Observer, Retired, TableActor, load_state
from .bus import Bus
from .cluster import Cluster, ClusterBus, NotOwner, OwnerGone
from .commands.play import act_command
from .commands.presence import Connected, Disconnected, Reseat, Resume
from .errors import AtLimit, BadAction, NotSaved, NotSeated, NotStarted, Removed, TableFull, TableNotFound
from .outage import Unreachable
from .registry import Command
from .rooms import RoomState, check_joinable, room_snapshot
from .scheduler import Scheduler
from .seating import check_emoji, clean_name
from .state import Settings, TableState, late_seat, turn_limit
from .state import snapshot as picture
from .values import (
    BOT_EMOJI,
    CODE_ALPHABET,
    CODE_LENGTH,
    EMOJIS,
    MAX_HUMANS,
    MAX_TURN_TABLES,
    NO_TABLE,
    PLAY_DELAYS,
    TOO_MANY_TURN_TABLES,
    Change,
    Player,
    RoomSnapshot,
    Server,
    Snapshot,
    Who,
    practice_bots,
)

log = logging.getLogger(__name__)


IDLE_AFTER_S = 300.0  # a table nobody touched this long (and nobody is connected to) may leave memory ...
TIMER_HORIZON_S = 120.0  # ... unless a timer of its is due this soon; out of memory, it comes back this early
SWEEP_S = 30.0  # how often the tables in memory are looked over


class TableService:
    """All tables of one server process."""

    def __init__(self, store: Store, *, play_delays: dict[str, float] | None = None,
                 think_limit: float = 5.0, bot_budget: float | None = None,
                 pool: cf.Executor | None = None, pool_workers: int = 2,
                 new_seed: Callable[[], str] | None = None, clock: Callable[[], float] = time.time,
                 clock_seconds: float | None = None, bus: Bus | None = None,
                 cluster: Cluster | None = None, idle_after_s: float = IDLE_AFTER_S,
                 sweep_s: float = SWEEP_S) -> None:
        self.store = store
        self.clock = clock  # epoch seconds: deadlines are stored in it (tests pass a fake)
        # where each match's seed comes from: random in production, fixed in tests (replayable)
        self.new_seed = new_seed or (lambda: secrets.token_hex(8))
        self.settings = Settings(dict(PLAY_DELAYS if play_delays is None else play_delays), clock_seconds)
        self.cluster = cluster
        self.bus = bus or (ClusterBus(cluster) if cluster is not None else Bus())
        remote = BotQueue(cluster.url, think_limit, cluster.outage) if cluster is not None else None
        self.scheduler = Scheduler(self.handle, self.now, pool=pool, pool_workers=pool_workers,
                                   think_limit=think_limit, bot_budget=bot_budget, remote=remote)
        self._actors: dict[str, TableActor] = {}
        self._load_lock = threading.Lock()
        self.idle_after_s = idle_after_s
        self._stop = threading.Event()
        self._observers: list[Observer] = []
        if cluster is not None:
            cluster.serve(self._serve_forwarded)
            cluster.every(cluster.lease_s / 3, self._renew_leases, "cluster-leases")
            cluster.every(1.0, self._adopt_orphans, "cluster-sweep")
        if sweep_s > 0:
            threading.Thread(target=self._keep_sweeping, args=(sweep_s,), name="tables-sweep", daemon=True).start()

    # -- life cycle ------------------------------------------------------------------
    def resume_all(self) -> int:
        """Load every unfinished table so its bots and clocks carry on (in a cluster, those
        that no other process owns); returns how many. A turn-based table waiting on a
        person stays in the database until a command or a timer comes for it (``sweep``)."""
        if self.cluster is not None:
            codes = self._adopt_orphans()
        else:
            codes = self._to_resume()
            for code in codes:
                self._resume(code)
        self.scheduler.wake()  # overdue clocks fire at once
        return len(codes)

    def _to_resume(self) -> list[str]:
        """The unfinished tables that need a process now: all but the turn-based ones
        waiting on a person with no timer due soon."""
        waiting = self.store.waiting_tables() - set(self.store.due_tables(self.now() + TIMER_HORIZON_S))
        return [c for c in self.store.unfinished_tables() if c not in waiting]

    def sweep(self) -> tuple[int, int]:
        """Tables nobody touched for ``idle_after_s`` and nobody is connected to, with no
        timer due within ``TIMER_HORIZON_S``, leave memory; tables out of memory with a
        timer due by then come back (in a cluster, those nobody owns, claimed first: one
        process fires each). Returns (let go, brought back)."""
        now = self.now()
        gone = 0
        for code, actor in list(self._actors.items()):
            if actor.idle_in_memory(now, self.idle_after_s, TIMER_HORIZON_S):
                self._forget(code, actor)
                gone += 1
        due = [c for c in self.store.due_tables(now + TIMER_HORIZON_S) if c not in self._actors]
        if self.cluster is not None and due:
            owners = self.cluster.owners(due)
            due = [c for c, owner in zip(due, owners) if owner is None and self.cluster.claim(c) is None]
        for code in due:
            try:
                self._actor(code)
            except Exception:  # one broken table must not keep the others' timers
                log.exception("table %s could not be loaded for its timer", code)
        if due:
            self.scheduler.wake()
        return gone, len(due)

    def _keep_sweeping(self, every: float) -> None:
        while not self._stop.wait(every):
            try:
                self.sweep()
            except Exception:  # the database busy, Redis away: the next sweep tries again
                log.exception("sweeping the tables in memory failed")

    def _resume(self, code: str) -> None:
        """Load the table (nobody is connected to this process yet) so it carries on."""
        try:
            if self.cluster is not None:  # claimed: load it here, announcing it once
                self._actor(code, adopting=True).handle(Server(), Resume())
            else:
                self.handle(code, Server(), Resume())
        except Exception:  # one broken table must not stop the others from resuming
            log.exception("could not resume table %s", code)
            if self.cluster is not None:
                self.cluster.release(code)

    def now(self) -> float:
        """The time, from ``clock`` as it is now (a test may swap in a fake one)."""
        return self.clock()

    def close(self) -> None:
        """Stop the scheduler and the bot processes (pending turns resume on the next start);
        in a cluster, let this process's tables go to the others at once."""
        self._stop.set()
        self.scheduler.close()
        if self.cluster is not None:
            self.cluster.close()
            self.bus.close()

    def observe(self, observer: Observer) -> None:
        """Call ``observer(code, who, command)`` for every command a table handles."""
        self._observers.append(observer)

    # -- the one path ----------------------------------------------------------------
    def handle(self, code: str, who: Who, command: Command, prime: Callable[[Change], None] | None = None) -> Any:
        """Run one command (``spades.tables.commands``) at table ``code`` through its actor:
        the one entry point for every change to a table or its room. Returns the picture
        of the seat it concerned (a ``Snapshot``; in a room, the person's ``RoomSnapshot``).
        A command with an empty ``seed`` gets a fresh one here (decisions are pure), and
        one with an empty ``known`` the person's name and emoji as the site knows them.
        Raises TableNotFound and the command's refusals, Stale (a lost race), NotSaved (a
        failed save: nothing changed; Unreachable, a NotSaved: Redis does not answer, so a
        table this process does not hold can be neither claimed nor forwarded to)."""
        code = code.upper()
        if getattr(command, "seed", None) == "":
            command = dataclasses.replace(command, seed=self.new_seed())  # type: ignore[type-var]
        if hasattr(command, "known") and command.known is None and isinstance(who, Player):
            command = dataclasses.replace(command, known=self.known_player(who.id))  # type: ignore[type-var]
        for _ in range(3):
            if self.cluster is not None and code not in self._actors:
                owner = self._claim(code)
                if owner is not None:
                    try:
                        return self._forward(owner, code, who, command, prime)
                    except OwnerGone:  # it died: claim the table once its lease lapses
                        log.warning("table %s: its owner %s did not answer in time", code, owner)
                        continue
                    except NotOwner:  # it let the table go meanwhile: claim it again
                        continue
            actor = self._actor(code)
            try:
                snap = actor.handle(who, command, prime)
            except Retired:
                self._forget(code, actor)
                continue
            self._let_go(code, actor)
            return snap
        raise NotSaved("The table could not be loaded just now. Try again.")

    def _actor(self, code: str, adopting: bool = False) -> TableActor:
        """The table's actor, loaded and replayed on first access (in a cluster, once this
        process owns the table; ``adopting``: a Resume follows, which announces it).
        Raises TableNotFound."""
        code = code.upper()
        actor = self._actors.get(code)
        if actor is not None:
            return actor
        loaded = False
        with self._load_lock:
            actor = self._actors.get(code)
            if actor is None:
                try:
                    actor = TableActor(code, self.store, self.bus, self.scheduler, self.settings, self.now,
                                       self._observers)
                except BaseException:
                    if self.cluster is not None:
                        self.cluster.release(code)
                    raise
                self._actors[code] = actor
                loaded = True
        with actor.lock:
            self.scheduler.plan(code, actor.timers())
        if loaded and self.cluster is not None and not adopting:
            actor.announce("loaded")
        return actor

    # -- several processes -----------------------------------------------------------
    def _claim(self, code: str) -> str | None:
        """``Cluster.claim``, never while this process lets the table go (``_forget``): a
        lease taken again just before its release would leave the table in this process's
        memory with nobody's lease, free for another process to load as well."""
        assert self.cluster is not None
        with self._load_lock:
            return None if code in self._actors else self.cluster.claim(code)

    def _forward(self, owner: str, code: str, who: Who, command: Command,
                 prime: Callable[[Change], None] | None) -> Any:
        """The command, applied by the process that owns the table."""
        assert self.cluster is not None
        snap, change = self.cluster.forward(owner, code, who, command, prime is not None)
        if prime is not None and change is not None:
            prime(change)
        return snap

    def _serve_forwarded(self, code: str, who: Who, command: Command,
                         want_change: bool) -> tuple[Any, Change | None]:
        """A command another process forwarded here: applied if this process still owns
        the table. Raises NotOwner, and the command's refusals."""
        assert self.cluster is not None
        if not self.cluster.holds(code):
            raise NotOwner(code)
        changes: list[Change] = []
        snap = self.handle(code, who, command, changes.append if want_change else None)
        return snap, (changes[0] if changes else None)

    def _renew_leases(self) -> None:
        """Keep this process's tables; a table whose lease another process took leaves memory."""
        assert self.cluster is not None
        for code in self.cluster.renew():
            log.warning("table %s is owned by another process now; letting it go", code)
            actor = self._actors.get(code)
            if actor is not None:
                self._forget(code, actor)

    def _adopt_orphans(self) -> list[str]:
        """Claim and load every unfinished table nobody owns (its owner died); returns them."""
        assert self.cluster is not None
        codes = [c for c in self._to_resume() if c not in self._actors]
        owners = self.cluster.owners(codes)
        if self.cluster.outage.recovered_within(self.cluster.lease_s):
            return []  # Redis just came back: its owners take their leases again first
        adopted = []
        for code, owner in zip(codes, owners):
            if owner is None and self.cluster.claim(code) is None:
                log.info("adopting table %s", code)
                self._resume(code)
                adopted.append(code)
        return adopted

    def _started(self, code: str) -> None:
        """A match started at a new table: it loads here, the first clock runs, its bots start
        (with Redis down too: a new code is nobody else's, and its lease is taken once
        Redis answers)."""
        if self.cluster is not None:
            try:
                self.cluster.claim(code)  # a new code: nobody else owns it
            except Unreachable:
                self.cluster.hold_new(code)
        self._actor(code).begin()

    def _let_go(self, code: str, actor: TableActor) -> None:
        """A finished table nobody is connected to leaves memory."""
        if actor.idle_in_memory():
            self._forget(code, actor)

    def _forget(self, code: str, actor: TableActor) -> None:
        """The table leaves memory (it comes back from the database when asked)."""
        actor.retire()
        with self._load_lock:
            if self._actors.get(code) is actor:
                del self._actors[code]
            if code in self._actors:
                return  # loaded again meanwhile: its timers and its lease are the new actor's
            self.scheduler.drop(code)
            if self.cluster is not None:
                self.cluster.release(code)  # under the lock: see ``_claim``

    def _read(self, code: str, fn: Callable[[TableState], object]) -> object:
        """``fn`` of the table's state, under its lock. Raises TableNotFound."""
        code = code.upper()
        if self.cluster is not None and code not in self._actors:
            state = load_state(self.store, code)  # owned elsewhere, or by nobody now (never a room)
            assert isinstance(state, TableState)
            return fn(state)
        for _ in range(3):
            actor = self._actor(code)
            with actor.lock:
                if isinstance(actor.state, RoomState):
                    raise NotStarted("The game at this table has not started yet.")
                if not actor.retired:
                    result = fn(actor.state)
                    break
            self._forget(code, actor)
        else:
            raise NotSaved("The table could not be loaded just now. Try again.")
        self._let_go(code, actor)
        return result

    def in_memory(self, code: str) -> bool:
        """Whether this process holds the table in memory now."""
        return code.upper() in self._actors

    def tables_in_memory(self) -> int:
        return len(self._actors)

    # -- commands ------------------------------------------------------------------------
    def act(self, code: str, who: Who, action: object, expected_version: int | None = None) -> Snapshot:
        """A move by its text: a card, bid, ``"look"``, ``"deal"`` (Continue: ready for the
        next hand, dealt once every person is) or ``"deal_now"`` (the host deals without
        waiting). Raises TableNotFound, NotSeated, NotHost, Stale, BadAction,
        IllegalAction, NotSaved."""
        return self.handle(code, who, act_command(str(action), expected_version))

    def connect(self, code: str, player_id: str, prime: Callable[[Change], None]) -> None:
        """A page's live connection opened: ``prime`` gets the table (or its room) as it
        is, before any later change is published. Raises TableNotFound, NotWatchable."""
        self.handle(code, Player(player_id), Connected(), prime)

    def disconnect(self, code: str, player_id: str) -> None:
        """A table connection closed (the seat's last one starts its hold)."""
        try:
            self.handle(code, Player(player_id), Disconnected())
        except (TableNotFound, Unreachable):
            pass  # Unreachable: its owner elsewhere still counts this socket (the seat's clock runs on)
        except NotSaved as e:  # the table could not be reached just now: its owner still counts this socket
            log.warning("table %s: a closed connection could not be told: %s", code, e)

    def reload_seats(self, codes: list[str], renamed: dict[str, str] | None = None) -> None:
        """Seats that changed owner in the database (a browser's seats moved to an account
        at sign-in): tables in memory take their new owners at once; ``renamed`` maps the
        old player id to the new one. Tables not in memory read their seats when loaded."""
        pairs = tuple((renamed or {}).items())
        rooms = [room for new in (renamed or {}).values() for room in self.store.player_rooms(new)]
        for code in [*codes, *rooms]:
            code = code.upper()
            try:
                if code not in self._actors and (self.cluster is None or self.cluster.owners([code])[0] is None):
                    continue
                fresh = self.store.load_table(code) if code not in rooms else None
                self.handle(code, Server(), Reseat(fresh.seats if fresh else (), fresh.host if fresh else None,
                                                   pairs))
            except Unreachable:
                continue  # owned elsewhere while Redis is down: its owner reads the seats when it reloads

    # -- tables ----------------------------------------------------------------------
    def create_practice(self, player_id: str, name: str, rules: Rules, level: str, emoji: str = "",
                        contribution: str = "") -> str:
        """A new practice table of the rules' shape: the player in seat 0 and bots in the
        others (at four seats Bea across, Rex left, Kit right; at three Rex left, Kit right:
        ``practice_bots``), its first hand dealt fairly with the player's ``contribution``
        (hex from the Practice button; anything else counts as none). Returns its code; the
        bots start at once if the first move is theirs."""
        if level not in LEVELS:
            raise BadAction(f"level must be one of {', '.join(LEVELS)}")
        seats = [SeatRow(0, "human", player_id, name, emoji)] + [
            SeatRow(s, "bot", None, n, BOT_EMOJI) for s, n in sorted(practice_bots(rules.shape.players).items())]
        options = {"kind": "practice", "level": level}
        seed = self.new_seed()
        # the deal secret from three more draws of the seed source: random in production, fixed in tests
        secret = secret_from([seed, self.new_seed(), self.new_seed(), self.new_seed()])
        given = clean_contribution(contribution)
        self.store.ensure_player(player_id, name)
        code = self._new_code(lambda code: self.store.create_table(
            code, player_id, options, seats, seed, dataclasses.asdict(rules), secret, (given,) if given else ()))
        self._started(code)
        return code

    def create_seated(self, seats: list[SeatRow], rules: Rules, options: dict, host: str | None = None,
                      seed: str | None = None, also: Callable[[str], Sequence[Op]] | None = None) -> str:
        """A new table with these seats (people and bots: one for each seat of the rules'
        shape), rules and options, its match started at once (a tourney's pairing, say);
        ``seed`` the match's, which also makes its deal secret (drawn when None). Returns
        its code. A table plays while a person is at it: bots move, and the next hand is
        dealt when its people press Continue. Raises BadAction for seats that are not the
        shape's (0-3, or 0-2 for three players) once each, or a person's seat without a
        player id; ``also(code)``: more ops stored in the table's transaction (a table of
        boards claims its people's week), and what they raise."""
        shape = rules.shape
        if sorted(s.seat for s in seats) != list(shape.seats):
            numbers = ", ".join(str(n) for n in shape.seats[:-1])
            raise BadAction(f"A table of {shape.players} has seats {numbers} and {shape.seats[-1]}, each once.")
        for s in seats:
            if s.kind not in ("human", "bot") or (s.kind == "human") != bool(s.player_id):
                raise BadAction("A person's seat needs a player id, a bot's has none.")
            if s.kind == "human" and s.player_id:
                self.store.ensure_player(s.player_id, s.name, s.emoji)
        seats = sorted(seats, key=lambda s: s.seat)
        # its fair deals' secret: from the seed given (a tourney pairing's: its deals are
        # reproducible from the tourney's seed), else from four draws of the seed source
        draws = [seed] if seed else [self.new_seed() for _ in range(4)]
        seed = seed or draws[0]
        secret = secret_from(draws)
        code = self._new_code(lambda code: self.store.create_table(
            code, host, dict(options), seats, seed, dataclasses.asdict(rules), secret,
            also=also(code) if also else ()))
        self._started(code)
        return code

    @staticmethod
    def _new_code(create: Callable[[str], None]) -> str:
        """Draw codes until ``create`` accepts one (it raises Duplicate for a taken code)."""
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                create(code)
                return code
            except Duplicate:
                continue  # the code is taken: draw another
        raise RuntimeError("no free table code")  # pragma: no cover - 31^6 codes

    def status(self, code: str) -> str:
        """``waiting``, ``playing``, ``finished`` or ``closed``. Raises TableNotFound."""
        status = self.store.table_status(code.upper())
        if status is None:
            raise TableNotFound(NO_TABLE)
        return status

    def known_player(self, player_id: str | None) -> tuple[str, str]:
        """The name and emoji this player last chose ("" when unknown), to prefill forms."""
        known = self.store.known_player(player_id) if player_id else None
        name, emoji = known or ("", "")
        return ("" if name == "You" else name), (emoji if emoji in EMOJIS else "")

    # -- reading ---------------------------------------------------------------------
    def snapshot(self, code: str, player_id: str | None) -> Snapshot:
        """What this player sees at the table (a spectator's view when not seated).
        Raises TableNotFound."""
        return self._read(code, lambda state: picture(state, state.seat_of(player_id), self.now(),  # type: ignore[return-value]
                                                      self.settings))

    def seats(self, code: str) -> tuple[SeatRow, ...]:
        """Who sits where now. Raises TableNotFound."""
        return self._read(code, lambda s: s.row.seats)  # type: ignore[return-value]

    def seat_clock(self, code: str, seat: int) -> SeatClock:
        """The seat's record with the clock in the current match. Raises TableNotFound."""
        return self._read(code, lambda s: s.seat_clocks.get(seat, SeatClock()))  # type: ignore[return-value]

    def record(self, code: str, player_id: str | None) -> dict:
        """The match record (RECORD.md): complete once finished; while running only what
        this player's seat has seen; with ``takebacks`` if moves were taken back. Raises
        TableNotFound."""
        def read(state: TableState) -> tuple[int, dict]:
            if state.match.finished:
                return state.match_number, to_record(state.match)
            seat = state.seat_of(player_id)
            # -1 is no seat: every seat's deal then lists only the cards already played
            return state.match_number, to_record(state.match, -1 if seat is None else seat)
        found: tuple[int, dict] = self._read(code, read)  # type: ignore[assignment]
        number, record = found
        return with_takebacks(record, self.store.takebacks(code.upper(), number))

    def hint(self, code: str, player_id: str) -> int | str | None:
        """The bid the Hard bot would make for this player's seat by its count (the bid
        model's, ``bots.hint``: a fraction of a millisecond); None when it is not this
        seat's turn to bid. Raises TableNotFound, NotSeated."""
        def read(state: TableState) -> SeatView:
            seat = state.seat_of(player_id)
            if seat is None:
                raise NotSeated("You have no seat at this table.")
            return state.view_for(seat)
        view: SeatView = self._read(code, read)  # type: ignore[assignment]
        if view.match.phase != "bidding" or view.own.hand is None or not view.my_turn:
            return None
        return bots.hint(view.to_json())

    # -- rooms ---------------------------------------------------------------------------
    def create_room(self, player_id: str, name: str, emoji: str, rules: Rules, level: str, humans: int) -> str:
        """A table for ``humans`` people (2 up to the rules' players) that waits for them,
        with its creator as host. Returns the join code. Raises BadAction, BadPlayer, and
        AtLimit for a turn-based table past the creator's ``MAX_TURN_TABLES`` (counted
        in the room's transaction)."""
        if level not in LEVELS:
            raise BadAction(f"level must be one of {', '.join(LEVELS)}")
        most = min(MAX_HUMANS, rules.shape.players)
        if not 2 <= humans <= most:
            raise BadAction(f"A table with friends is for 2 to {most} people.")
        name, emoji = clean_name(name), check_emoji(emoji)
        options = {"kind": "friends", "level": level, "humans": humans, "rules": dataclasses.asdict(rules)}
        # the first match's deal secret, drawn now: the room shows its commitment before the start
        secret = secret_from([self.new_seed() for _ in range(4)])
        try:
            return self._new_code(lambda code: self.store.commit(
                turn_limit(player_id, code, rules.tempo)
                + [CreateRoom(code, player_id, options, name, emoji), PutDealSecret(code, 1, secret)]))
        except TurnTablesFull:
            raise AtLimit(TOO_MANY_TURN_TABLES) from None

    def room_snapshot(self, code: str, player_id: str | None) -> RoomSnapshot:
        """What this person sees of the room (whatever its status). Raises TableNotFound."""
        code = code.upper()
        actor = self._actors.get(code)
        if actor is not None:
            with actor.lock:
                if isinstance(actor.state, RoomState):
                    return actor.state.picture(player_id)
        row = self.store.load_room(code)
        if row is None:
            raise TableNotFound(NO_TABLE)
        secret = self.store.deal_secret(code, 1) if row.status == "waiting" else None
        shape = Rules.from_dict(row.options.get("rules")).shape
        return room_snapshot(row, 0, player_id, FairDeals(secret, shape=shape).commitment(1) if secret else "")

    def joinable(self, code: str, player_id: str | None) -> RoomRow:
        """The table as its join form shows it, if this player may join it (or is in it):
        not when the host blocked them. Raises TableNotFound, TableClosed, TableFull, Removed,
        AtLimit."""
        code = code.upper()
        row = self.store.load_room(code)
        if row is None:
            raise TableNotFound(NO_TABLE)
        if player_id in row.seated:
            return row
        if player_id and row.host and player_id in self.store.blocked(row.host):
            raise Removed("You cannot join this table.")
        if player_id and row.options.get("rules", {}).get("tempo") in TURN_BASED and self.at_turn_limit(player_id):
            raise AtLimit(TOO_MANY_TURN_TABLES)
        if row.status != "playing":
            check_joinable(row, player_id)
            return row
        if any(m.player_id == player_id and m.state == "removed" for m in row.members):
            raise Removed("The host removed you from this table.")
        if self._read(code, late_seat) is None:
            raise TableFull("Every seat for people at this table is taken.")
        return row

    def at_turn_limit(self, player_id: str) -> bool:
        """This person is seated at (or waits in the rooms of) ``MAX_TURN_TABLES``
        turn-based tables already."""
        return self.store.turn_tables(player_id, TURN_BASED) >= MAX_TURN_TABLES

    # -- for tests and the benchmarks ------------------------------------------------
    def wake(self) -> None:
        """Look at the timers now (after an injected clock moved)."""
        self.scheduler.wake()

    def idle(self) -> bool:
        """No bot turn is pending and no clock or hold is due."""
        return self.scheduler.idle()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until ``idle``, or ``timeout``; returns whether idle."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.idle():
                return True
            time.sleep(0.002)
        return self.idle()
