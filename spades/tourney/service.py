"""Tourneys as a service: registration, check-in, the start, Ready, a table for every
pairing, results from the tables, walkovers, and the reads the pages show.

The pure engine (``spades.tourney``: brackets, Swiss pairings, standings, solos, seeding)
decides who plays whom; this module keeps a tourney in the database (``spades.storage``,
``m008_tourneys``: its row with the engine's state as JSON, its teams, people, pairings
and Ready marks), opens a table for each pairing through the table service, and hears on
the table service's bus when a tourney table's match is over. Every change is one
transaction, made under one lock (the service is the tourneys' only writer in a process).

Every change is announced on the table service's bus, outside every lock:
``Bus.publish_page`` on the tourney's page channel (``page_channel``), which the socket
hub of every process hears and redraws the tourney's page for its sockets.

How things move (``docs/tourneys.md`` has every rule and decision):
- Commands (register, ready, start, remove, cancel, add a bot team) check, write, then run
  ``_advance``: whatever became due happens at once (a start at its time, new pairings,
  tables for pairings whose teams are ready, walkovers past the ready window, results of
  finished tables, the next Swiss round, the end).
- A finished tourney table on the bus only puts its tourney in a queue (the bus calls
  subscribers under the table's lock): a worker thread runs ``_advance`` for it.
- ``tick(now)`` runs ``_advance`` for every tourney not over: the app calls it every
  second; tests call it with their clock.
- ``resume()`` at start-up records the tables that finished while the server was down and
  gives pairings still waiting for Ready a fresh window (nobody could press it meanwhile);
  the table service resumes the unfinished tables itself.

A table plays while a person sits at it (the table service's rule): a pairing of two bot
teams is therefore played out at once by the engine, with Normal bots, seeded like a
table, and has no table code.

Imports: stdlib, ``spades.storage``, ``spades.tables``, ``spades.bots``, the core and the
pure tourney engine. Never Flask.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import math
import random
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from .. import bots
from ..rules import HAND_OVER, Match, parse_action
from ..rules_config import Rules, RulesError
from ..stats import replay
from ..storage import (DropTourneyPlayer, Duplicate, NewTourney, Op, PutTourney, PutTourneyMatch, PutTourneyPlayer,
                       PutTourneyReady, PutTourneyTeam, SeatRow, Store, TourneyData, TourneyMatchRow,
                       TourneyPlayerRow, TourneyRow, TourneyTeamRow)
from ..tables import BOT_EMOJI, CODE_ALPHABET, Change, Refused, TableService, bot_seed, check_emoji, clean_name
from ..views import seat_view
from .knockout import Bracket, knockout_bracket, knockout_ranks, ready_matches, record_result
from .model import Pairing, Result, Round, Team, TourneyError, rank_label, round_from_json
from .seeding import pair_solos, seed_teams
from .swiss import record_swiss_result, swiss_pairings, swiss_standings

__all__ = [
    "TourneyService", "TourneyView", "TeamView", "PersonView", "MatchView", "TableView", "RoundView",
    "RankView", "StandingView", "WalkoverView", "Listing", "TourneySummaryView",
    "TourneyNotFound", "NotDirector", "RegistrationClosed", "TourneyFull", "AlreadyRegistered",
    "BadTeamLink", "NothingToReady", "BadEntry", "TourneyOver",
    "FORMATS", "READY_WINDOW_S", "CHECKIN_S", "MAX_TEAMS", "MAX_ROUNDS", "BOT_NAME", "page_channel",
    "channel_tourney",
]

log = logging.getLogger(__name__)

FORMATS = ("knockout", "swiss")
READY_WINDOW_S = 120.0  # a team not ready this long after its match is due loses it
CHECKIN_S = 600.0  # the check-in window before a set start time
MAX_TEAMS = 128
MAX_ROUNDS = 15
MAX_TOURNEY_NAME = 60
TOURNEY_CODE_LENGTH = 6
BOT_NAME = "Bot"  # a solo's bot partner
BOT_TEAM_NAMES = ("Rex", "Bea", "Kit", "Max", "Ivy", "Zed", "Lou", "Ada", "Ned", "Uma", "Gus", "Flo")
LEVEL = "normal"  # the bots of tourney tables, and the bot teams' level
CHANNEL_PREFIX = "t/"  # a page channel never looks like a table code (the socket hub's rule)


def page_channel(code: str) -> str:
    """The bus's page channel of a tourney: ``Bus.publish_page`` on it after every change,
    so every socket on the tourney's page, in any process, redraws its live part.

    >>> page_channel("ABCDEF")
    't/ABCDEF'
    """
    return CHANNEL_PREFIX + code


def channel_tourney(channel: str) -> str | None:
    """The tourney's code of a page channel, or None for another page's channel.

    >>> channel_tourney("t/ABCDEF"), channel_tourney("room/X")
    ('ABCDEF', None)
    """
    return channel[len(CHANNEL_PREFIX):] if channel.startswith(CHANNEL_PREFIX) else None


# -- refusals ------------------------------------------------------------------------------
class TourneyNotFound(TourneyError):
    """No tourney has that code."""


class NotDirector(TourneyError):
    """Only the tourney's director may do that."""


class RegistrationClosed(TourneyError):
    """The tourney has started (or is over): nobody registers now."""


class TourneyFull(TourneyError):
    """Every place is taken."""


class AlreadyRegistered(TourneyError):
    """The person is in a team of this tourney already (or was removed from it)."""


class BadTeamLink(TourneyError):
    """The team link is unknown, or its team is complete."""


class NothingToReady(TourneyError):
    """The person has no check-in open and no match waiting for Ready."""


class BadEntry(TourneyError):
    """A name, an emoji or a tourney setting that cannot be taken."""


class TourneyOver(TourneyError):
    """The tourney is finished or cancelled."""


# -- what the pages read -----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PersonView:
    """One player of a team, as everyone may see them (never a player id)."""

    name: str
    emoji: str
    bot: bool
    me: bool
    checked_in: bool  # pressed Ready in the check-in window (bots: always)
    ready: bool  # pressed Ready for the team's current match (bots: always)


@dataclass(frozen=True, slots=True)
class TeamView:
    id: int
    players: tuple[PersonView, ...]
    bot: bool  # a bot team the director added
    solo: bool  # registered alone (paired with another solo, or a bot, at the start)
    complete: bool  # two players
    state: str  # "in", "removed" (by the director), "dropped" (at the start: not complete or not checked in)
    seed: int | None  # from 1, once started
    note: str  # why it was removed or dropped, a walkover it took, how it was paired
    mine: bool


@dataclass(frozen=True, slots=True)
class MatchView:
    """A person's current match, from their team's side."""

    round: int
    slot: int
    target: int
    opponent: int
    opponent_players: tuple[PersonView, ...]
    due: float  # when it was due (epoch seconds)
    deadline: float  # not ready by then: a walkover (knockout) or a loss for the round (Swiss)
    ready: bool  # this person pressed Ready
    team_ready: bool  # the whole team did
    opponent_ready: bool
    table: str | None  # the table's code once both teams are ready


@dataclass(frozen=True, slots=True)
class TableView:
    """A pairing of a round: the engine's table JSON plus its table and how it stands."""

    round: int
    slot: int
    teams: tuple[int | None, int | None]  # None: a knockout opponent not known yet
    target: int
    winner: int | None
    score: tuple[int, int] | None  # in the order of ``teams``
    hands: int | None  # 0: a walkover or a no-show
    table: str | None  # the table's code once made (None for walkovers and bot-only pairings)
    live: tuple[int, int] | None  # the running score while the table plays
    due: float | None
    status: str  # "waiting" (opponent unknown), "due" (asking Ready), "playing", "done", "walkover"

    def to_json(self) -> dict[str, Any]:
        """``{"teams", "winner", "score", "hands"}``: the engine's table JSON."""
        return {"teams": list(self.teams), "winner": self.winner,
                "score": None if self.score is None else list(self.score), "hands": self.hands}


@dataclass(frozen=True, slots=True)
class RoundView:
    number: int
    target: int
    tables: tuple[TableView, ...]
    byes: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        """The engine's round JSON: ``{"number", "target", "tables", "byes"}`` (known tables only)."""
        return {"number": self.number, "target": self.target,
                "tables": [t.to_json() for t in self.tables if None not in t.teams], "byes": list(self.byes)}


@dataclass(frozen=True, slots=True)
class RankView:
    team: int
    rank: int
    label: str  # "3=" when shared


@dataclass(frozen=True, slots=True)
class StandingView:
    """A team's line in the Swiss standings."""

    team: int
    rank: int
    label: str
    wins: int
    losses: int
    byes: int
    buchholz: int
    points_for: int
    points_against: int
    diff: int


@dataclass(frozen=True, slots=True)
class WalkoverView:
    """A pairing decided without a table: who went through (None: a no-show, both lost)."""

    round: int
    slot: int
    winner: int | None
    losers: tuple[int, ...]
    reason: str  # "not ready in time" or "removed by the director"


@dataclass(frozen=True, slots=True)
class TourneyView:
    code: str
    name: str
    format: str  # "knockout" or "swiss"
    status: str  # "registering", "running", "finished", "cancelled"
    director: bool  # this person directs it
    start_at: float | None  # None: the director presses Start
    checkin_opens: float | None
    team_limit: int
    places: int  # places taken (a team each, two solos one)
    listed: bool
    bot_fill: bool
    round_count: int | None  # Swiss: as set; knockout: once started
    ready_window_s: float
    created: float
    started: float | None
    finished: float | None
    note: str  # why it was cancelled, say
    teams: tuple[TeamView, ...]
    my_team: int | None
    token: str | None  # the team link's token, for the team's own members only
    checked_in: bool
    my_match: MatchView | None
    rounds: tuple[RoundView, ...]
    ranks: tuple[RankView, ...]  # knockout: the teams out and the winner; Swiss: the standings' ranks
    standings: tuple[StandingView, ...]  # Swiss only
    walkovers: tuple[WalkoverView, ...]

    def rounds_json(self) -> list[dict[str, Any]]:
        """The rounds as the engine's JSON (a round with no known table and no bye left out)."""
        return [r for r in (rv.to_json() for rv in self.rounds) if r["tables"] or r["byes"]]


@dataclass(frozen=True, slots=True)
class TourneySummaryView:
    code: str
    name: str
    format: str
    status: str
    start_at: float | None
    started: float | None
    finished: float | None
    team_limit: int
    places: int


class Listing(NamedTuple):
    """The publicly listed tourneys: not started yet, running, and the latest finished."""

    upcoming: tuple[TourneySummaryView, ...]
    running: tuple[TourneySummaryView, ...]
    finished: tuple[TourneySummaryView, ...]


# -- one tourney in memory, read from its rows ---------------------------------------------
class _Tourney:
    """A tourney as stored, with its engine rebuilt; pure reads only."""

    def __init__(self, data: TourneyData) -> None:
        self.row = data.tourney
        self.code = self.row.code
        self.teams = {t.id: t for t in data.teams}
        self.players: dict[int, list[TourneyPlayerRow]] = {t.id: [] for t in data.teams}
        for p in data.players:
            self.players.setdefault(p.team_id, []).append(p)
        self.matches = {(m.round, m.slot): m for m in data.matches}
        engine = self.row.engine or {}
        self.bracket: Bracket | None = Bracket.from_json(engine["bracket"]) if "bracket" in engine else None
        self.swiss: list[Round] = [round_from_json(r) for r in engine.get("rounds", [])]

    @property
    def status(self) -> str:
        return self.row.status

    @property
    def knockout(self) -> bool:
        return self.row.format == "knockout"

    def player(self, player_id: str | None) -> TourneyPlayerRow | None:
        if not player_id:
            return None
        for team_players in self.players.values():
            for p in team_players:
                if p.player_id == player_id:
                    return p
        return None

    def persons(self, team_id: int) -> list[str]:
        return [p.player_id for p in self.players.get(team_id, []) if not p.bot and p.player_id]

    def places(self, extra_teams: int = 0, extra_solos: int = 0) -> int:
        """Places taken: every team registered as one, two solos as one (once started: the
        teams that started)."""
        if self.status != "registering":
            return sum(t.seed is not None for t in self.teams.values())
        live = [t for t in self.teams.values() if t.state == "in"]
        solos = sum(t.solo for t in live) + extra_solos
        return sum(not t.solo for t in live) + extra_teams + math.ceil(solos / 2)

    def checkin_opens(self) -> float | None:
        return None if self.row.start_at is None else self.row.start_at - self.row.checkin_s

    def seed_order(self) -> list[int]:
        """Teams that started, best seed first."""
        seeded = [t for t in self.teams.values() if t.seed is not None]
        return [t.id for t in sorted(seeded, key=lambda t: t.seed)]

    def pairings(self) -> list[Pairing]:
        """Every pairing so far (knockout: the whole bracket, opponents unknown included)."""
        if self.bracket is not None:
            return self.bracket.pairings()
        return [p for r in self.swiss for p in r.pairings]

    def pending(self) -> list[Pairing]:
        """Pairings with both teams known and no result: due, or playing."""
        if self.bracket is not None:
            return ready_matches(self.bracket)
        return [p for p in (self.swiss[-1].pairings if self.swiss else ()) if p.result is None]

    def team_ready(self, team_id: int, match: TourneyMatchRow) -> bool:
        team = self.teams[team_id]
        return team.state == "in" and all(pid in match.ready for pid in self.persons(team_id))

    def ready_count(self, team_id: int, match: TourneyMatchRow) -> int:
        return sum(pid in match.ready for pid in self.persons(team_id))

    def current(self, team_id: int) -> TourneyMatchRow | None:
        """The team's match waiting for its result (due or playing)."""
        for p in self.pending():
            if team_id in p.teams:
                return self.matches.get(p.key)
        return None

    def engine_json(self) -> dict[str, Any]:
        if self.bracket is not None:
            return {"bracket": self.bracket.to_json()}
        return {"rounds": [r.to_json() for r in self.swiss]}

    def done(self) -> bool:
        if self.bracket is not None:
            return self.bracket.done
        return len(self.swiss) == self.row.rounds and self.swiss[-1].complete


def _table_seed(tourney_seed: str, round_number: int, slot: int) -> str:
    """A pairing's deals: reproducible from the tourney's seed, which no table seed reveals."""
    return hashlib.sha256(f"{tourney_seed}/{round_number}/{slot}".encode()).hexdigest()[:16]


def _play_bots(rules: Rules, seed: str) -> Match:
    """A match of four Normal bots, played out at once (two bot teams: no person at the table)."""
    match = Match(rules, seed)
    while not match.finished:
        if match.phase == HAND_OVER:
            match.next_hand()
            continue
        seat = match.to_act
        assert seat is not None
        action = bots.choose(seat_view(match, seat), LEVEL, bot_seed(seed, 1, match.version, seat))
        match.apply(seat, parse_action(action))  # type: ignore[arg-type]
    return match


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
        # tourneys whose tables finished, for the worker (the bus calls us under a table's lock)
        self._queue: list[str] = []
        self._busy = False
        self._stopped = False
        self._cond = threading.Condition()
        self._worker = threading.Thread(target=self._work, name="tourney-worker", daemon=True)
        self._worker.start()
        self._bus_token = tables.bus.subscribe(self._on_change)

    # -- life cycle ------------------------------------------------------------------
    def resume(self) -> int:
        """At start-up: record the tables that finished while the server was down, give
        pairings still waiting for Ready a fresh window, and do whatever is due. Returns
        how many tourneys it looked at (those registering or running)."""
        now = self.clock()
        codes = self.store.tourney_codes(["registering", "running"])
        for code in codes:
            with self._lock:
                t = self._load(code)
                if t is not None and t.status == "running":
                    ops: list[Op] = [PutTourneyMatch(code, replace(m, due=now)) for m in t.matches.values()
                                     if m.hands is None and m.table_code is None]
                    if ops:
                        self.store.commit(ops)
                try:
                    self._advance(code, now)
                except Exception:  # one broken tourney must not stop the others
                    log.exception("could not resume tourney %s", code)
            self._notify(code)
        return len(codes)

    def close(self) -> None:
        """Stop hearing the tables and stop the worker (what is queued is done on ``resume``)."""
        self.tables.bus.unsubscribe(self._bus_token)
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if threading.current_thread() is not self._worker:
            self._worker.join(timeout=5)

    @property
    def closed(self) -> bool:
        """``close`` was called: the service hears and does nothing more."""
        return self._stopped

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until the worker has nothing queued; returns whether it got there."""
        end = time.monotonic() + timeout
        with self._cond:
            while self._queue or self._busy:
                left = end - time.monotonic()
                if left <= 0 or self._stopped:
                    return not (self._queue or self._busy)
                self._cond.wait(left)
        return True

    def tick(self, now: float | None = None) -> None:
        """Everything time-based, for every tourney not over: a start at its time, walkovers
        past the ready window, tables for pairings that became ready, missed results."""
        now = self.clock() if now is None else now
        for code in self.store.tourney_codes(["registering", "running"]):
            with self._lock:
                try:
                    changed = self._advance(code, now)
                except Exception:
                    log.exception("tourney %s could not advance", code)
                    changed = False
            if changed:
                self._notify(code)

    # -- the director --------------------------------------------------------------------
    def create(self, director_id: str, name: str, *, format: str = "knockout", rounds: int | None = None,
               team_limit: int = 16, start_at: float | None = None, checkin_s: float | None = None,
               listed: bool = True, bot_fill: bool = False) -> str:
        """A new tourney directed by its creator; returns its code. ``rounds``: Swiss only.
        ``start_at`` (epoch seconds): it starts by itself then, people checking in during
        the ``checkin_s`` before; None: the director presses Start. Raises BadEntry."""
        if not director_id:
            raise BadEntry("Open the site in a browser first: a tourney needs a director.")
        name = " ".join(str(name or "").split())
        if not name:
            raise BadEntry("Give the tourney a name.")
        if len(name) > MAX_TOURNEY_NAME:
            raise BadEntry(f"That name is too long: {MAX_TOURNEY_NAME} characters at most.")
        if format not in FORMATS:
            raise BadEntry("Choose knockout or Swiss.")
        if format == "swiss":
            if type(rounds) is not int or not 1 <= rounds <= MAX_ROUNDS:
                raise BadEntry(f"A Swiss tourney plays 1 to {MAX_ROUNDS} rounds.")
        else:
            rounds = None
        if type(team_limit) is not int or not 2 <= team_limit <= MAX_TEAMS:
            raise BadEntry(f"A tourney takes 2 to {MAX_TEAMS} teams.")
        now = self.clock()
        window = self.checkin_s if checkin_s is None else checkin_s
        if start_at is not None:
            if not isinstance(start_at, (int, float)) or not math.isfinite(start_at) or start_at <= now:
                raise BadEntry("The start time must be in the future.")
        if not isinstance(window, (int, float)) or not 0 <= window <= 24 * 3600:
            raise BadEntry("The check-in window is 0 to 24 hours.")
        row = TourneyRow("", name, format, rounds, team_limit, None if start_at is None else float(start_at),
                         float(window), bool(listed), bool(bot_fill), director_id, "registering", now,
                         seed=self.new_seed())
        with self._lock:
            for _ in range(20):
                code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(TOURNEY_CODE_LENGTH))
                try:
                    self.store.commit([NewTourney(replace(row, code=code))])
                    break
                except Duplicate:
                    continue  # the code is taken: draw another
            else:  # pragma: no cover - 31^6 codes
                raise RuntimeError("no free tourney code")
        self._notify(code)
        return code

    def start(self, code: str, player_id: str) -> None:
        """The director starts the tourney now (with a start time: once check-in is open).
        Raises TourneyNotFound, NotDirector, RegistrationClosed, TourneyError (too few teams)."""
        with self._lock:
            t = self._directed(code, player_id)
            if t.status != "registering":
                raise RegistrationClosed("This tourney has already started." if t.status == "running"
                                         else "This tourney is over.")
            now = self.clock()
            opens = t.checkin_opens()
            if opens is not None and now < opens:
                raise TourneyError("This tourney starts by itself at its start time; you can start it "
                                   "early once check-in has opened.")
            self._start(t, now, auto=False)
            self._advance(t.code, now)
        self._notify(t.code)

    def add_bot_team(self, code: str, player_id: str) -> int:
        """The director fills one place with a team of two Normal bots; returns its id.
        Raises TourneyNotFound, NotDirector, RegistrationClosed, TourneyFull, TourneyError."""
        with self._lock:
            t = self._directed(code, player_id)
            self._open(t)
            if not t.row.bot_fill:
                raise TourneyError("This tourney is for people only: it was made without bot teams.")
            self._room_for(t, teams=1)
            team_id = max(t.teams, default=0) + 1
            now = self.clock()
            number = sum(team.bot for team in t.teams.values())
            ops: list[Op] = [PutTourneyTeam(t.code, TourneyTeamRow(team_id, None, False, True, "in", created=now))]
            for slot in (0, 1):
                k = 2 * number + slot
                name = BOT_TEAM_NAMES[k % len(BOT_TEAM_NAMES)]
                if k >= len(BOT_TEAM_NAMES):
                    name = f"{name} {k // len(BOT_TEAM_NAMES) + 1}"
                ops.append(PutTourneyPlayer(t.code, TourneyPlayerRow(team_id, slot, None, name, BOT_EMOJI, True,
                                                                     now, now)))
            self.store.commit(ops)
        self._notify(t.code)
        return team_id

    def remove_team(self, code: str, player_id: str, team_id: int) -> None:
        """The director removes a team: before the start it is out; once running it loses
        its match at once (and every later one). Raises TourneyNotFound, NotDirector,
        TourneyOver, TourneyError (no such team)."""
        with self._lock:
            t = self._directed(code, player_id)
            if t.status not in ("registering", "running"):
                raise TourneyOver("This tourney is over.")
            try:
                team = t.teams.get(int(team_id))
            except (TypeError, ValueError):
                team = None
            if team is None or team.state != "in":
                raise TourneyError("There is no such team in this tourney.")
            self.store.commit([PutTourneyTeam(t.code, replace(team, state="removed",
                                                                note="Removed by the director."))])
            self._advance(t.code, self.clock())
        self._notify(t.code)

    def cancel(self, code: str, player_id: str) -> None:
        """The director calls the tourney off. Tables already playing finish as ordinary
        matches; nothing more is recorded. Raises TourneyNotFound, NotDirector, TourneyOver."""
        with self._lock:
            t = self._directed(code, player_id)
            if t.status not in ("registering", "running"):
                raise TourneyOver("This tourney is over.")
            self.store.commit([PutTourney(t.code, {"status": "cancelled", "finished": self.clock(),
                                                   "note": "Cancelled by the director."})])
        self._notify(t.code)

    # -- people --------------------------------------------------------------------------
    def register_team(self, code: str, player_id: str, name: str, emoji: str) -> str:
        """Register a team with this person as its first player; returns the team's token
        (the link to send the partner). Raises TourneyNotFound, RegistrationClosed,
        AlreadyRegistered, TourneyFull, BadEntry."""
        _, token = self._register(code, player_id, name, emoji, solo=False)
        assert token is not None
        return token

    def _register(self, code: str, player_id: str, name: str, emoji: str, *, solo: bool) -> tuple[int, str | None]:
        """A new team with this person as its first player: a solo, or a team with a link
        token for the partner. Returns (team id, token)."""
        name, emoji = self._entry(player_id, name, emoji)
        with self._lock:
            t = self._get(code)
            self._open(t)
            self._not_registered(t, player_id)
            self._room_for(t, **({"solos": 1} if solo else {"teams": 1}))
            now = self.clock()
            team_id = max(t.teams, default=0) + 1
            token = None if solo else secrets.token_urlsafe(12)
            self._commit_entry(t, [
                PutTourneyTeam(t.code, TourneyTeamRow(team_id, token, solo, False, "in", created=now)),
                PutTourneyPlayer(t.code, TourneyPlayerRow(team_id, 0, player_id, name, emoji, False,
                                                          self._checked_in(t, now), now))])
        self._notify(t.code)
        return team_id, token

    def join_team(self, code: str, token: str, player_id: str, name: str, emoji: str) -> int:
        """The partner follows the team link: the team is complete. Returns the team's id.
        Raises TourneyNotFound, RegistrationClosed, BadTeamLink, AlreadyRegistered, BadEntry."""
        name, emoji = self._entry(player_id, name, emoji)
        with self._lock:
            t = self._get(code)
            self._open(t)
            team = next((tm for tm in t.teams.values() if token and isinstance(token, str) and tm.token == token),
                        None)
            if team is None or team.state != "in":
                raise BadTeamLink("That team link does not work: ask your partner to send it again.")
            if player_id in t.persons(team.id):
                raise AlreadyRegistered("You are already in this team: send the link to your partner.")
            self._not_registered(t, player_id)
            if len(t.players.get(team.id, [])) >= 2:
                raise BadTeamLink("That team already has its two players.")
            now = self.clock()
            self._commit_entry(t, [PutTourneyPlayer(t.code, TourneyPlayerRow(
                team.id, 1, player_id, name, emoji, False, self._checked_in(t, now), now))])
        self._notify(t.code)
        return team.id

    def register_solo(self, code: str, player_id: str, name: str, emoji: str) -> int:
        """Register alone: paired at random with another solo at the start (an odd one out
        with a Normal bot). Returns the solo's team id until then. Raises TourneyNotFound,
        RegistrationClosed, AlreadyRegistered, TourneyFull, BadEntry."""
        team_id, _ = self._register(code, player_id, name, emoji, solo=True)
        return team_id

    def ready(self, code: str, player_id: str) -> None:
        """The person presses Ready: in the check-in window, they check in; once running,
        they are ready for their team's current match (its table is made once both teams
        are ready). Pressing it again changes nothing. Raises TourneyNotFound,
        NothingToReady."""
        with self._lock:
            t = self._get(code)
            me = t.player(player_id)
            if me is None or t.teams[me.team_id].state != "in":
                raise NothingToReady("You are not playing in this tourney.")
            now = self.clock()
            if t.status == "registering":
                opens = t.checkin_opens()
                if opens is None:
                    raise NothingToReady("Nothing to be ready for yet: the director starts the tourney.")
                if now < opens:
                    minutes = max(1, round(t.row.checkin_s / 60))
                    raise NothingToReady(f"Check-in opens {minutes} minutes before the start.")
                if me.checked_in is not None:
                    return
                self.store.commit([PutTourneyPlayer(t.code, replace(me, checked_in=now))])
            elif t.status == "running":
                match = t.current(me.team_id)
                if match is None:
                    raise NothingToReady("Your team has no match waiting for it now.")
                if player_id in match.ready or match.table_code is not None:
                    return
                self.store.commit([PutTourneyReady(t.code, match.round, match.slot, player_id, now)])
            else:
                raise NothingToReady("This tourney is over.")
            self._advance(t.code, now)
        self._notify(t.code)

    # -- reads -----------------------------------------------------------------------------
    def view(self, code: str, player_id: str | None) -> TourneyView:
        """The tourney as this person (None: anyone) sees it. Raises TourneyNotFound."""
        with self._lock:
            t = self._get(code)
        now_playing = {m.table_code for m in t.matches.values() if m.table_code and m.hands is None}
        live: dict[str, tuple[int, int]] = {}
        for table in now_playing:
            try:
                scores = self.tables.snapshot(table, None).view["scores"]
                live[table] = (int(scores[0]), int(scores[1]))
            except (Refused, KeyError, IndexError, TypeError):
                continue  # a table that cannot be read now shows no live score
        return _view(t, player_id, live, self.ready_window_s)

    def listing(self, finished_limit: int = 20) -> Listing:
        """The publicly listed tourneys: upcoming (registering), running, and the latest finished."""
        def rows(statuses: Sequence[str], limit: int = 100) -> tuple[TourneySummaryView, ...]:
            return tuple(TourneySummaryView(s.code, s.name, s.format, s.status, s.start_at, s.started, s.finished,
                                            s.team_limit, s.places)
                         for s in self.store.tourney_summaries(statuses, limit=limit))
        return Listing(rows(["registering"]), rows(["running"]), rows(["finished"], finished_limit))

    # -- checks ----------------------------------------------------------------------------
    def _load(self, code: str) -> _Tourney | None:
        data = self.store.load_tourney(code)
        return None if data is None else _Tourney(data)

    def _get(self, code: str) -> _Tourney:
        t = self._load(code.strip().upper()) if isinstance(code, str) else None
        if t is None:
            raise TourneyNotFound("There is no tourney with that code.")
        return t

    def _directed(self, code: str, player_id: str) -> _Tourney:
        t = self._get(code)
        if not player_id or t.row.director != player_id:
            raise NotDirector("Only the tourney's director can do that.")
        return t

    @staticmethod
    def _open(t: _Tourney) -> None:
        if t.status != "registering":
            raise RegistrationClosed("Registration for this tourney is closed.")

    @staticmethod
    def _entry(player_id: str, name: str, emoji: str) -> tuple[str, str]:
        if not player_id or not isinstance(player_id, str):
            raise BadEntry("Open the site in a browser first: registering needs a player.")
        try:
            return clean_name(name), check_emoji(emoji)
        except Refused as e:
            raise BadEntry(str(e)) from None

    @staticmethod
    def _not_registered(t: _Tourney, player_id: str) -> None:
        me = t.player(player_id)
        if me is None:
            return
        if t.teams[me.team_id].state == "removed":
            raise AlreadyRegistered("The director removed your team from this tourney.")
        raise AlreadyRegistered("You are already registered in this tourney.")

    @staticmethod
    def _room_for(t: _Tourney, teams: int = 0, solos: int = 0) -> None:
        if t.places(teams, solos) > t.row.team_limit:
            raise TourneyFull(f"This tourney is full: all {t.row.team_limit} places are taken.")

    def _checked_in(self, t: _Tourney, now: float) -> float | None:
        """Registering during the check-in window counts as checking in."""
        opens = t.checkin_opens()
        return now if opens is not None and now >= opens else None

    def _commit_entry(self, t: _Tourney, ops: list[Op]) -> None:
        try:
            self.store.commit(ops)
        except Duplicate:  # the same person registering twice at once
            raise AlreadyRegistered("You are already registered in this tourney.") from None

    # -- the start -------------------------------------------------------------------------
    def _start(self, t: _Tourney, now: float, auto: bool) -> None:
        """Teams made final (solos paired, people not checked in dropped), seeded, and the
        engine started. Raises TourneyError when fewer than two teams can play (the
        director's Start); at the start time such a tourney is cancelled instead."""
        opens = t.checkin_opens()
        checkin = opens is not None and now >= opens  # people had their chance to check in
        present = (lambda p: p.checked_in is not None) if checkin else (lambda p: True)
        absent_note = "Did not check in." if checkin else "Not complete at the start."
        ops: list[Op] = []
        teams = {tid: team for tid, team in t.teams.items()}
        players = {tid: list(ps) for tid, ps in t.players.items()}
        drops: list[Op] = []
        final: list[int] = []
        solos: list[TourneyPlayerRow] = []
        next_id = max(teams, default=0) + 1
        for tid in sorted(teams):
            team = teams[tid]
            if team.state != "in":
                continue
            if team.bot:
                final.append(tid)
                continue
            here = [p for p in players[tid] if not p.bot and present(p)]
            away = [p for p in players[tid] if not p.bot and not present(p)]
            if len(here) == 2:
                final.append(tid)
                continue
            if not here:
                teams[tid] = replace(team, state="dropped", note=absent_note)
                continue
            person = here[0]
            for p in players[tid]:
                drops.append(DropTourneyPlayer(t.code, tid, p.slot))
            if away:  # the partner who did not check in leaves the team, to a dropped one of their own
                teams[next_id] = TourneyTeamRow(next_id, None, False, False, "dropped", "Did not check in.",
                                                created=now)
                players[next_id] = [replace(away[0], team_id=next_id, slot=0)]
                next_id += 1
            if not team.solo:
                why = "did not check in" if away else "did not join"
                teams[tid] = replace(team, solo=True, note=f"The partner {why}: paired as a solo.")
            players[tid] = [replace(person, slot=0)]
            solos.append(players[tid][0])
        rng = random.Random(f"{t.row.seed}/start")
        if len(final) + math.ceil(len(solos) / 2) < 2:
            if not auto:
                raise TourneyError("A tourney needs at least two teams to start.")
            self.store.commit([PutTourney(t.code, {"status": "cancelled", "finished": now,
                                                   "note": "Fewer than two teams were there at the start."})])
            return
        by_person = {p.player_id: p for p in solos}
        for a, b in pair_solos([p.player_id for p in solos], rng):
            first = by_person[a]
            if b is None:
                partner = TourneyPlayerRow(first.team_id, 1, None, BOT_NAME, BOT_EMOJI, True, now, now)
            else:
                second = by_person[b]
                partner = replace(second, team_id=first.team_id, slot=1)
                teams[second.team_id] = replace(teams[second.team_id], state="merged",
                                                note=f"Paired with team {first.team_id}.")
                players[second.team_id] = []
            players[first.team_id] = [first, partner]
            final.append(first.team_id)
        # seeds: the people's teams by rating when every person has one (else at random),
        # bot teams after them at random
        people = [Team(tid, tuple(p.player_id if not p.bot else None for p in players[tid]))
                  for tid in final if not teams[tid].bot]
        pids = [pid for team in people for pid in team.players if pid is not None]
        rated = {pid: mu - 3 * sigma for pid, (mu, sigma, _) in self.store.ratings(pids).items()}
        order = seed_teams(people, rng, rated)
        robots = sorted(tid for tid in final if teams[tid].bot)
        rng.shuffle(robots)
        order += robots
        for n, tid in enumerate(order, 1):
            teams[tid] = replace(teams[tid], seed=n)
        if t.knockout:
            engine: dict[str, Any] = {"bracket": knockout_bracket(order).to_json()}
        else:
            assert t.row.rounds is not None
            first_round = swiss_pairings(order, [], 1, random.Random(f"{t.row.seed}/swiss"),
                                         total_rounds=t.row.rounds)
            engine = {"rounds": [first_round.to_json()]}
        changed_teams = [tid for tid in teams if teams[tid] != t.teams.get(tid)]
        ops += drops
        ops += [PutTourneyTeam(t.code, teams[tid]) for tid in sorted(changed_teams)]
        moved = {tid for tid in players if players[tid] != t.players.get(tid, [])}
        ops += [PutTourneyPlayer(t.code, p) for tid in sorted(moved) for p in players[tid]]
        ops.append(PutTourney(t.code, {"status": "running", "started": now, "engine": engine}))
        self.store.commit(ops)

    # -- moving on ---------------------------------------------------------------------------
    def _advance(self, code: str, now: float) -> bool:
        """Do everything due for one tourney (caller holds the lock); whether anything changed."""
        changed = False
        for _ in range(10_000):  # each step changes one thing; a tourney has far fewer
            t = self._load(code)
            if t is None or not self._step(t, now):
                return changed
            changed = True
        raise RuntimeError(f"tourney {code} does not settle")  # pragma: no cover

    def _step(self, t: _Tourney, now: float) -> bool:
        """One change that is due, committed; False when nothing is."""
        if t.status == "registering":
            if t.row.start_at is not None and now >= t.row.start_at:
                self._start(t, now, auto=True)
                return True
            return False
        if t.status != "running":
            return False
        for table in self.store.tourney_finished_tables(t.code):
            key = next(k for k, m in t.matches.items() if m.table_code == table)
            self._table_result(t, key, table, now)
            return True
        pending = t.pending()
        new = [p for p in pending if p.key not in t.matches]
        if new:
            self.store.commit([PutTourneyMatch(t.code, TourneyMatchRow(p.round, p.slot, p.teams[0], p.teams[1],
                                                                       p.target, now)) for p in new])
            return True
        for p in pending:
            m = t.matches[p.key]
            a, b = m.team_a, m.team_b
            out = [tid for tid in (a, b) if t.teams[tid].state != "in"]
            if out:  # a table already playing plays on as a plain match
                self._walkover(t, p, m, not_ready=out, reason="removed by the director", now=now)
            elif m.table_code is not None:
                continue
            elif t.teams[a].bot and t.teams[b].bot:
                self._bots_play(t, p, m, now)
            elif t.team_ready(a, m) and t.team_ready(b, m):
                self._make_table(t, p, m)
            elif now >= m.due + self.ready_window_s:
                late = [tid for tid in (a, b) if not t.team_ready(tid, m)]
                self._walkover(t, p, m, not_ready=late, reason="not ready in time", now=now)
            else:
                continue
            return True
        if pending:
            return False
        if t.done():
            self.store.commit([PutTourney(t.code, {"status": "finished", "finished": now})])
            return True
        if not t.knockout:  # the round is over: the next one
            playing = [tid for tid in t.seed_order() if t.teams[tid].state == "in"]
            if len(playing) < 2:
                self.store.commit([PutTourney(t.code, {"status": "finished", "finished": now,
                                                       "note": "Fewer than two teams were left to play."})])
                return True
            assert t.row.rounds is not None
            nxt = swiss_pairings(playing, t.swiss, len(t.swiss) + 1, random.Random(f"{t.row.seed}/swiss"),
                                 total_rounds=t.row.rounds)
            self.store.commit([PutTourney(t.code, {"engine": {"rounds": [r.to_json() for r in [*t.swiss, nxt]]}})])
            return True
        return False  # pragma: no cover - a knockout not done always has a match pending

    def _record(self, t: _Tourney, p: Pairing, m: TourneyMatchRow, result: Result, now: float,
                note: str = "", extra: Sequence[Op] = ()) -> None:
        """The result in the engine and with the pairing, in one transaction."""
        if t.bracket is not None:
            t.bracket = record_result(t.bracket, p.key, result)
        else:
            index = next(i for i, r in enumerate(t.swiss) if r.number == p.round)
            t.swiss[index] = record_swiss_result(t.swiss[index], p.slot, result)
        row = replace(m, winner=result.winner, score=result.score, hands=result.hands,
                      walkover=result.is_walkover, note=note, done=now)
        self.store.commit([*extra, PutTourneyMatch(t.code, row), PutTourney(t.code, {"engine": t.engine_json()})])

    def _better_seed(self, t: _Tourney, a: int, b: int) -> int:
        seeds = {tid: t.teams[tid].seed or 10**6 for tid in (a, b)}
        return a if seeds[a] <= seeds[b] else b

    def _walkover(self, t: _Tourney, p: Pairing, m: TourneyMatchRow, not_ready: list[int], reason: str,
                  now: float) -> None:
        """One team not ready (or removed) loses; both: in a knockout the team with more
        people ready goes through, then the better seed; in Swiss both take a loss."""
        a, b = m.team_a, m.team_b
        if len(not_ready) == 1:
            winner: int | None = b if not_ready[0] == a else a
        elif t.knockout:
            ca, cb = (t.ready_count(x, m) if t.teams[x].state == "in" else -1 for x in (a, b))
            winner = a if ca > cb else b if cb > ca else self._better_seed(t, a, b)
        else:
            winner = None
        result = Result.no_show() if winner is None else Result.walkover(winner)
        losers = [x for x in (a, b) if x != winner]
        word = "a walkover" if t.knockout else "a loss"
        notes = [PutTourneyTeam(t.code, replace(t.teams[x], note=f"Round {p.round}: {word}, {reason}."))
                 for x in losers if t.teams[x].state == "in"]
        self._record(t, p, m, result, now, note=reason, extra=notes)

    def _table_result(self, t: _Tourney, key: tuple[int, int], table: str, now: float) -> None:
        """A table's first match is over: its result goes to the engine (team A sat at 0 and 2)."""
        m = t.matches[key]
        p = next(x for x in t.pairings() if x.key == key)
        found = self.store.finished_match(table, 1)
        if p.result is not None or found is None:  # the engine has it already: the pairing's row catches up
            r = p.result or Result.no_show()
            self.store.commit([PutTourneyMatch(t.code, replace(m, winner=r.winner, score=r.score, hands=r.hands,
                                                               walkover=r.is_walkover, done=m.done or now))])
            return
        info, _ = found
        match = replay(info.rules, info.seed, ((seat, text) for _, seat, text in self.store.actions(info.id)))
        self._record(t, p, m, self._played(t, m, match), now)

    def _played(self, t: _Tourney, m: TourneyMatchRow, match: Match) -> Result:
        a, b = m.team_a, m.team_b
        if match.winner is None:  # level at the 99-hand cap: the better seed goes through
            winner = self._better_seed(t, a, b)
        else:
            winner = a if match.winner == 0 else b
        return Result.played(winner, (match.scores[0], match.scores[1]), max(1, len(match.results)))

    def _bots_play(self, t: _Tourney, p: Pairing, m: TourneyMatchRow, now: float) -> None:
        """Two bot teams: nobody would sit at their table, so the engine plays it out now."""
        match = _play_bots(self._rules(p.target), _table_seed(t.row.seed, p.round, p.slot))
        self._record(t, p, m, self._played(t, m, match), now, note="played by bots, without a table")

    def _rules(self, target: int) -> Rules:
        base = Rules(mode="no_bidding", end="target", target=target, tempo="normal", play_speed="normal")
        if not self.rules_override:
            return base
        try:
            return Rules.from_dict({**dataclasses.asdict(base), **self.rules_override})
        except RulesError:  # checked in the constructor
            return base

    def _make_table(self, t: _Tourney, p: Pairing, m: TourneyMatchRow) -> None:
        """Both teams are ready: their table, team A at seats 0 and 2, team B at 1 and 3."""
        code = self.store.tourney_table(t.code, p.round, p.slot)  # made just before a crash?
        if code is None:
            seats = []
            for team, seat_pair in ((m.team_a, (0, 2)), (m.team_b, (1, 3))):
                for player, seat in zip(sorted(t.players[team], key=lambda x: x.slot), seat_pair):
                    if player.bot:
                        seats.append(SeatRow(seat, "bot", None, player.name, BOT_EMOJI))
                    else:
                        seats.append(SeatRow(seat, "human", player.player_id, player.name, player.emoji))
            people = [s for s in sorted(seats, key=lambda s: s.seat) if s.kind == "human"]
            options = {"kind": "tourney", "level": LEVEL, "tourney": t.code, "round": p.round, "slot": p.slot,
                       "humans": len(people)}
            code = self.tables.create_seated(seats, self._rules(p.target), options,
                                             host=people[0].player_id if people else None,
                                             seed=_table_seed(t.row.seed, p.round, p.slot))
        self.store.commit([PutTourneyMatch(t.code, replace(m, table_code=code))])

    # -- the bus and the worker ------------------------------------------------------------
    def _on_change(self, change: Change) -> None:
        """A table changed (called under its lock): a finished tourney table queues its tourney."""
        snaps = change.snapshots
        snap = snaps.get(None) if snaps else None
        if snap is None or not snap.tourney or not snap.view.get("finished"):
            return
        with self._cond:
            if self._stopped:
                return
            if snap.tourney not in self._queue:
                self._queue.append(snap.tourney)
            self._cond.notify_all()

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._stopped:
                    self._cond.wait()
                if self._stopped:
                    return
                code = self._queue.pop(0)
                self._busy = True
            try:
                with self._lock:
                    changed = self._advance(code, self.clock())
                if changed:
                    self._notify(code)
            except Exception:
                log.exception("tourney %s could not take a table's result", code)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _notify(self, code: str) -> None:
        """Tell every page of the tourney, in every process, that it changed (outside every
        lock: in one process the socket hub's listener runs in this thread)."""
        self.tables.bus.publish_page(page_channel(code))


# -- the view ------------------------------------------------------------------------------
def _view(t: _Tourney, player_id: str | None, live: dict[str, tuple[int, int]],
          ready_window_s: float) -> TourneyView:
    me = t.player(player_id)
    my_team = me.team_id if me is not None else None
    pending = {p.key: p for p in t.pending()}
    current: dict[int, TourneyMatchRow] = {}
    for key in pending:
        m = t.matches.get(key)
        if m is not None:
            current[m.team_a] = current[m.team_b] = m

    def persons(team_id: int) -> tuple[PersonView, ...]:
        m = current.get(team_id)
        return tuple(PersonView(p.name, p.emoji, p.bot, p.player_id is not None and p.player_id == player_id,
                                p.bot or p.checked_in is not None,
                                p.bot or (m is not None and p.player_id in m.ready))
                     for p in sorted(t.players.get(team_id, []), key=lambda x: x.slot))

    teams = tuple(TeamView(team.id, persons(team.id), team.bot, team.solo, len(t.players.get(team.id, [])) == 2,
                           team.state, team.seed, team.note, team.id == my_team)
                  for team in sorted(t.teams.values(), key=lambda x: (x.seed or 10**6, x.id))
                  if team.state != "merged")

    my_match = None
    if my_team is not None and my_team in current and t.teams[my_team].state == "in":
        m = current[my_team]
        other = m.team_b if m.team_a == my_team else m.team_a
        my_match = MatchView(m.round, m.slot, m.target, other, persons(other), m.due, m.due + ready_window_s,
                             player_id in m.ready, t.team_ready(my_team, m), t.team_ready(other, m), m.table_code)

    def table_view(p: Pairing) -> TableView:
        m = t.matches.get(p.key)
        r = p.result
        if not p.known:
            status = "waiting"
        elif r is not None:
            status = "walkover" if r.is_walkover else "done"
        elif m is not None and m.table_code:
            status = "playing"
        else:
            status = "due"
        table = m.table_code if m is not None else None
        return TableView(p.round, p.slot, (p.teams[0], p.teams[1]), p.target,  # type: ignore[arg-type]
                         None if r is None else r.winner,  # type: ignore[arg-type]
                         None if r is None else r.score, None if r is None else r.hands, table,
                         live.get(table) if status == "playing" and table else None,
                         m.due if m is not None else None, status)

    engine_rounds: Sequence[Round] = t.bracket.rounds() if t.bracket is not None else t.swiss
    rounds = tuple(RoundView(r.number, r.target, tuple(table_view(p) for p in r.pairings),
                             tuple(r.byes))  # type: ignore[arg-type]
                   for r in engine_rounds)

    ranks: tuple[RankView, ...] = ()
    standings: tuple[StandingView, ...] = ()
    if t.bracket is not None:
        got = knockout_ranks(t.bracket)
        numbers = [x.rank for x in got]
        ranks = tuple(RankView(x.team, x.rank, rank_label(x.rank, numbers)) for x in got)  # type: ignore[arg-type]
    elif t.swiss:
        got_s = swiss_standings(t.seed_order(), t.swiss)
        numbers = [x.rank for x in got_s]
        standings = tuple(StandingView(x.team, x.rank, rank_label(x.rank, numbers), x.wins, x.losses,  # type: ignore[arg-type]
                                       x.byes, x.buchholz, x.points_for, x.points_against, x.diff) for x in got_s)
        ranks = tuple(RankView(s.team, s.rank, s.label) for s in standings)

    walkovers = tuple(WalkoverView(m.round, m.slot, m.winner, tuple(x for x in (m.team_a, m.team_b) if x != m.winner),
                                   m.note or "not ready in time")
                      for m in sorted(t.matches.values(), key=lambda x: (x.round, x.slot))
                      if m.hands == 0 and m.walkover)

    team_row = t.teams.get(my_team) if my_team is not None else None
    round_count = t.row.rounds if not t.knockout else (t.bracket.round_count if t.bracket is not None else None)
    return TourneyView(
        t.code, t.row.name, t.row.format, t.status, bool(player_id) and player_id == t.row.director,
        t.row.start_at, t.checkin_opens(), t.row.team_limit, t.places(), t.row.listed, t.row.bot_fill,
        round_count, ready_window_s, t.row.created, t.row.started, t.row.finished, t.row.note, teams,
        my_team, team_row.token if team_row is not None else None,
        me is not None and me.checked_in is not None, my_match, rounds, ranks, standings, walkovers)

