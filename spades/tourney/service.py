"""Tourneys as a service: the facade the site calls (``TourneyService``), public methods
only. ``docs/tourneys.md`` has every rule and decision.

Each command takes the service's one lock, loads the tourney, lets ``commands`` check it
and give the rows, commits them in one transaction, lets ``transitions`` do whatever
became due, and then, outside the lock, announces the change on the table service's bus
(``Bus.publish_page`` on the tourney's page channel, ``views.page_channel``): the socket
hub of every process redraws the tourney's page. The ``worker`` moves tourneys on when
nobody presses anything (finished tables heard on the bus, ``tick``, ``resume``).

The parts, each a module of this package:
- ``errors``: the refusals; ``state``: one tourney as stored, with pure reads;
- ``views``: what the pages read, and the page channel's name;
- ``commands``: who may do what now, and the rows it writes;
- ``transitions``: the start, and every change that follows by itself;
- ``worker``: the thread that hears finished tables, the ticks, the resume.

Imports: stdlib, the parts above, ``spades.storage``, ``spades.tables`` and the rules
core. Never Flask.
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import replace

from ..rules_config import Rules
from ..storage import Op, Store, TourneyRow
from ..tables import TableService
from . import commands
from .commands import FORMATS, MAX_ROUNDS, MAX_TEAMS
from .duplicate import Compared, compare, round_over
from .errors import (
    AlreadyRegistered,
    BadEntry,
    BadTeamLink,
    NotDirector,
    NothingToReady,
    RegistrationClosed,
    TourneyFull,
    TourneyNotFound,
    TourneyOver,
)
from .state import Tourney, find
from .transitions import BOT_NAME, Transitions
from .views import (
    Listing,
    MatchView,
    PersonView,
    RankView,
    RoundView,
    StandingView,
    TableView,
    TeamView,
    TourneySummaryView,
    TourneyView,
    WalkoverView,
    build_view,
    listing,
    live_scores,
)
from .worker import Worker

# the names the site and the tests import from here, wherever they live now
__all__ = [
    "TourneyService", "TourneyView", "TeamView", "PersonView", "MatchView", "TableView", "RoundView",
    "RankView", "StandingView", "WalkoverView", "Listing", "TourneySummaryView",
    "TourneyNotFound", "NotDirector", "RegistrationClosed", "TourneyFull", "AlreadyRegistered",
    "BadTeamLink", "NothingToReady", "BadEntry", "TourneyOver",
    "FORMATS", "READY_WINDOW_S", "CHECKIN_S", "LIST_PAGE", "MAX_TEAMS", "MAX_ROUNDS", "BOT_NAME",
]

READY_WINDOW_S = 120.0  # a team not ready this long after its match is due loses it
CHECKIN_S = 600.0  # the check-in window before a set start time
LIST_PAGE = 20  # listed tourneys a page


class TourneyService:
    """Every tourney of one server process, over the store and the table service.

    ``clock``: epoch seconds (tests pass a fake one). ``ready_window_s``: how long a team
    has to press Ready once its match is due. ``checkin_s``: the default check-in window
    before a set start time. ``new_seed``: each tourney's seed (draws, seeding, deals).
    ``rules_override``: TESTS ONLY, merged into every table's rules (``{"end": "hands",
    "hands": 1}`` makes each match one hand); never set it in the app.
    """

    def __init__(self, store: Store, tables: TableService, *, clock: Callable[[], float] = time.time,
                 ready_window_s: float = READY_WINDOW_S, checkin_s: float = CHECKIN_S,
                 new_seed: Callable[[], str] | None = None, rules_override: dict | None = None) -> None:
        self.store = store
        self.tables = tables
        self.clock = clock
        self.ready_window_s = float(ready_window_s)
        self.checkin_s = float(checkin_s)
        self.new_seed = new_seed or (lambda: secrets.token_hex(8))
        self.rules_override = dict(rules_override or {})
        Rules.from_dict({**dataclasses.asdict(Rules()), **self.rules_override})  # refuse a bad override now
        # one writer: every change of every tourney (with several processes, the lock is
        # the cluster's, so one process at a time changes tourneys)
        self._lock = tables.cluster.shared_lock("tourneys") if tables.cluster is not None else threading.RLock()
        self._machine = Transitions(store, tables, self.ready_window_s, self.rules_override)
        self._rounds_compared: dict[tuple[str, int], tuple[Compared, ...]] = {}  # (code, round): compared
        self._worker = Worker(store, tables.bus, self._lock, self._machine, clock)

    # -- life cycle ------------------------------------------------------------------------
    def resume(self) -> int:
        """At start-up: record the tables that finished while the server was down, give
        pairings still waiting for Ready a fresh window, and do whatever is due. Returns
        how many tourneys it looked at (those registering or running)."""
        return self._worker.resume(self.clock())

    def close(self) -> None:
        """Stop hearing the tables and stop the worker (what is queued is done on ``resume``)."""
        self._worker.close()

    @property
    def closed(self) -> bool:
        """``close`` was called: the service hears and does nothing more."""
        return self._worker.closed

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until the worker has nothing queued; returns whether it got there."""
        return self._worker.wait_idle(timeout)

    def keep_ticking(self, every: float) -> None:
        """``tick`` every ``every`` seconds in a thread of its own, until ``close``."""
        self._worker.keep_ticking(every)

    def tick(self, now: float | None = None) -> None:
        """Everything time-based, for every tourney not over: a start at its time, walkovers
        past the ready window, tables for pairings that became ready, missed results."""
        self._worker.tick(self.clock() if now is None else now)

    # -- the director ----------------------------------------------------------------------
    def create(self, director_id: str, name: str, *, format: str = "knockout", rounds: int | None = None,
               team_limit: int = 16, start_at: float | None = None, checkin_s: float | None = None,
               listed: bool = True, bot_fill: bool = False, player: tuple[str, str] | None = None,
               solo: bool = False, duplicate: bool = False) -> str:
        """A new tourney directed by its creator; returns its code. ``rounds``: Swiss only.
        ``start_at`` (epoch seconds): it starts by itself then, people checking in during
        the ``checkin_s`` before; None: the director presses Start. ``player``: the
        creator's name and emoji when they play in it too: they are registered with it,
        in the same transaction, alone when ``solo``, otherwise as a team (its link is in
        their view's ``token``). ``duplicate``: every table of a round is dealt the same
        hands, and the round's teams are compared as duplicate once it is over
        (``spades.tourney.duplicate``). Raises BadEntry."""
        entered = commands.entry(director_id, *player) if player is not None else None
        now = self.clock()
        row = commands.new_tourney(director_id, name, format, rounds, team_limit, start_at,
                                   self.checkin_s if checkin_s is None else checkin_s, listed, bot_fill, now,
                                   duplicate)
        row = replace(row, seed=self.new_seed())

        def creator(new: TourneyRow) -> list[Op]:
            assert entered is not None
            return commands.creator_entry(new, director_id, *entered, solo=solo, now=now)
        with self._lock:
            code = commands.commit_new(self.store, row, creator if entered is not None else None)
        self._worker.announce(code)
        return code

    def start(self, code: str, player_id: str) -> None:
        """The director starts the tourney now (with a start time: once check-in is open).
        Raises TourneyNotFound, NotDirector, RegistrationClosed, TourneyError (too few teams)."""
        with self._lock:
            t = commands.directed(self.store, code, player_id)
            now = self.clock()
            commands.check_start(t, now)
            self._machine.start(t, now, auto=False)
            self._machine.advance(t.code, now)
        self._worker.announce(t.code)

    def add_bot_team(self, code: str, player_id: str) -> int:
        """The director fills one place with a team of two Normal bots; returns its id.
        Raises TourneyNotFound, NotDirector, RegistrationClosed, TourneyFull, TourneyError."""
        with self._lock:
            t = commands.directed(self.store, code, player_id)
            team_id, ops = commands.bot_team(t, self.clock())
            self.store.commit(ops)
        self._worker.announce(t.code)
        return team_id

    def remove_team(self, code: str, player_id: str, team_id: int) -> None:
        """The director removes a team: before the start it is out; once running it loses
        its match at once (and every later one). Raises TourneyNotFound, NotDirector,
        TourneyOver, TourneyError (no such team)."""
        with self._lock:
            t = commands.directed(self.store, code, player_id)
            self.store.commit([commands.remove_team(t, team_id)])
            self._machine.advance(t.code, self.clock())
        self._worker.announce(t.code)

    def cancel(self, code: str, player_id: str) -> None:
        """The director calls the tourney off. Tables already playing finish as ordinary
        matches; nothing more is recorded. Raises TourneyNotFound, NotDirector, TourneyOver."""
        with self._lock:
            t = commands.directed(self.store, code, player_id)
            self.store.commit([commands.cancel(t, self.clock())])
        self._worker.announce(t.code)

    # -- people ----------------------------------------------------------------------------
    def register_team(self, code: str, player_id: str, name: str, emoji: str) -> str:
        """Register a team with this person as its first player; returns the team's token
        (the link to send the partner). Raises TourneyNotFound, RegistrationClosed,
        AlreadyRegistered, TourneyFull, BadEntry."""
        _, token = self._register(code, player_id, name, emoji, solo=False)
        assert token is not None
        return token

    def register_solo(self, code: str, player_id: str, name: str, emoji: str) -> int:
        """Register alone: paired at random with another solo at the start (an odd one out
        with a Normal bot). Returns the solo's team id until then. Raises TourneyNotFound,
        RegistrationClosed, AlreadyRegistered, TourneyFull, BadEntry."""
        team_id, _ = self._register(code, player_id, name, emoji, solo=True)
        return team_id

    def _register(self, code: str, player_id: str, name: str, emoji: str, *, solo: bool) -> tuple[int, str | None]:
        name, emoji = commands.entry(player_id, name, emoji)
        with self._lock:
            t = find(self.store, code)
            team_id, token, ops = commands.register(t, player_id, name, emoji, solo=solo, now=self.clock())
            commands.commit_entry(self.store, ops)
        self._worker.announce(t.code)
        return team_id, token

    def join_team(self, code: str, token: str, player_id: str, name: str, emoji: str) -> int:
        """The partner follows the team link: the team is complete. Returns the team's id.
        Raises TourneyNotFound, RegistrationClosed, BadTeamLink, AlreadyRegistered, BadEntry."""
        name, emoji = commands.entry(player_id, name, emoji)
        with self._lock:
            t = find(self.store, code)
            team_id, ops = commands.join(t, token, player_id, name, emoji, self.clock())
            commands.commit_entry(self.store, ops)
        self._worker.announce(t.code)
        return team_id

    def withdraw(self, code: str, player_id: str) -> None:
        """The person leaves the tourney before the start (``commands.withdraw`` says what
        that means for their team). Raises TourneyNotFound, RegistrationClosed (started),
        TourneyOver, AlreadyRegistered (their team was removed), TourneyError (not
        registered)."""
        with self._lock:
            t = find(self.store, code)
            self.store.commit(commands.withdraw(t, player_id))
        self._worker.announce(t.code)

    def ready(self, code: str, player_id: str) -> None:
        """The person presses Ready: in the check-in window, they check in; once running,
        they are ready for their team's current match (its table is made once both teams
        are ready). Pressing it again changes nothing. Raises TourneyNotFound,
        NothingToReady."""
        with self._lock:
            t = find(self.store, code)
            now = self.clock()
            op = commands.ready(t, player_id, now)
            if op is None:
                return  # marked already: nothing changed, nothing to announce
            self.store.commit([op])
            self._machine.advance(t.code, now)
        self._worker.announce(t.code)

    # -- reads -----------------------------------------------------------------------------
    def view(self, code: str, player_id: str | None) -> TourneyView:
        """The tourney as this person (None: anyone) sees it. Raises TourneyNotFound."""
        with self._lock:
            t = find(self.store, code)
        return build_view(t, player_id, live_scores(self.tables, t), self.ready_window_s, self._compared(t))

    def _compared(self, t: Tourney) -> dict[int, tuple[Compared, ...]]:
        """A duplicate tourney's rounds over, their teams compared (``spades.tourney.duplicate``);
        kept once worked out, as a round over never changes."""
        if not t.row.duplicate or t.status not in ("running", "finished"):
            return {}
        out = {}
        for number in sorted({p.round for p in t.pairings()}):
            key = (t.code, number)
            if key not in self._rounds_compared and round_over(t, number):
                self._rounds_compared[key] = compare(t, number, lambda p: self._machine.pairing_points(t, p))
            out[number] = self._rounds_compared.get(key, ())
        return out

    def listing(self, offset: int = 0, limit: int = LIST_PAGE) -> Listing:
        """A page of the publicly listed tourneys: ``limit`` from the ``offset``-th, upcoming
        (registering, soonest first), then running, then finished (latest first);
        ``Listing.more`` says whether another page follows."""
        return listing(self.store, max(0, offset), max(1, limit))
