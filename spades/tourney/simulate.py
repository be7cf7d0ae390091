"""``python -m spades tourney simulate``: a whole tourney through the real table service.

A temporary SQLite database, the real ``TableService`` (bots move at once) and the real
``TourneyService``; ``2 * teams`` people register (``--solos K`` of them alone, the rest
as teams through the team link), the director presses Start, and ``Autoplay`` plays every
person: each presses Ready as soon as their match is due, lets the Normal bot choose each
of their bids and cards, and presses Continue after every hand. Prints ONE JSON line::

    {"format", "teams": [{"id", "players": [names]}], "rounds": [{"number", "target",
     "tables": [{"teams": [id, id], "winner": id, "score": [a, b], "hands": n}],
     "byes": [id]}], "ranks": [{"team": id, "rank": r}], "seconds": s}

(teams in seed order; a walkover has ``hands`` 0 and a bye no table), and to standard
error how many tables played at once at most. ``--seed`` makes the draws and the deals
the same on every run (only ``seconds`` changes).

Imports: stdlib, ``spades.storage``, ``spades.tables``, ``spades.bots`` and the tourney
service. Never Flask.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import math
import os
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable
from typing import Any

from .. import bots
from ..storage import Store
from ..tables import EMOJIS, Change, Player, Refused, Snapshot, TableService
from ..tables.scheduler import process_pool
from ..views import SeatView
from .model import TourneyError
from .service import TourneyService
from .views import channel_tourney

__all__ = ["Autoplay", "simulate", "main", "parser"]

INSTANT = {"slow": 0.0, "normal": 0.0, "fast": 0.0}
DIRECTOR = "director"


def _seed(view: SeatView) -> int:
    """The Normal bot's seed for a person's seat, from what the seat sees (so a seeded
    tourney plays the same cards on every run, whatever its table codes)."""
    hand = list(view.own.hand) if view.own.hand is not None else None
    return zlib.crc32(json.dumps([hand, view.match.version, view.seat]).encode())


class Autoplay:
    """The people of a simulated tourney, played by bots through the public commands.

    Hears the table service's bus (under a table's lock, so it only queues work): the
    tables' changes and the tourneys' page channels. ``workers`` run the work: a
    person's move (the Normal bot thinks in ``think``, a process pool, or in the worker
    itself when None), Continue after a hand, Ready for a match that became due. Counts
    the tourney tables playing at once (``max_tables``)."""

    def __init__(self, tables: TableService, tourneys: TourneyService, people: list[str],
                 workers: cf.Executor, think: cf.Executor | None = None) -> None:
        self.tables = tables
        self.tourneys = tourneys
        self.people = list(people)
        self.workers = workers
        self.think = think
        self.playing: set[str] = set()
        self.max_tables = 0
        self._asked: dict[str, tuple[int, str]] = {}  # table: the last (version, what) queued
        self._readying: set[str] = set()  # tourneys with a Ready round queued
        self._teams: dict[str, dict[int, list[str]]] = {}  # tourney: team id -> its people
        self._lock = threading.Lock()
        self._closed = False
        self._bus = tables.bus.subscribe(self._on_table)
        tables.bus.listen_pages(self._on_page)

    def close(self) -> None:
        self._closed = True  # the bus keeps its page listeners: this one ignores what comes
        self.tables.bus.unsubscribe(self._bus)

    # -- tables ------------------------------------------------------------------------
    def _on_table(self, change: Change) -> None:
        snap = change.snapshots.get(None) if change.snapshots else None
        if not isinstance(snap, Snapshot) or not snap.around.tourney:  # a room's pictures belong to no tourney
            return
        view = snap.view.match
        with self._lock:
            if view.finished:
                self.playing.discard(change.code)
                return
            self.playing.add(change.code)
            self.max_tables = max(self.max_tables, len(self.playing))
            phase, version = view.phase, view.version
            if phase in ("bidding", "playing"):
                seat = view.to_act
                pid = change.persons[seat] if seat is not None else None
                if pid is None or self._asked.get(change.code) == (version, "move"):
                    return  # a bot's turn (the table's scheduler plays it), or queued already
                self._asked[change.code] = (version, "move")
                mine = change.snapshots[seat]
                assert isinstance(mine, Snapshot)  # a playing table's pictures are by seat
                def job() -> None:
                    self._move(change.code, pid, mine.view)
            elif phase == "hand_over":
                if self._asked.get(change.code) == (version, "deal"):
                    return
                self._asked[change.code] = (version, "deal")
                persons = [p for p in change.persons if p is not None]
                def job() -> None:
                    self._deal(change.code, persons, version)
            else:
                return
        self.workers.submit(self._safely, job)

    def _move(self, code: str, pid: str, view: SeatView) -> None:
        args = (view.to_json(), "normal", _seed(view))
        action = self.think.submit(bots.choose, *args).result() if self.think is not None else bots.choose(*args)
        self.tables.act(code, Player(pid), action, view.match.version)

    def _deal(self, code: str, persons: list[str], version: int) -> None:
        for pid in persons:
            try:
                self.tables.act(code, Player(pid), "deal", version)
            except Refused:
                return  # dealt already (everyone was ready)

    # -- the tourney -------------------------------------------------------------------
    def _on_page(self, channel: str) -> None:
        code = channel_tourney(channel)
        if code is None or self._closed:
            return
        with self._lock:
            if code in self._readying:
                return  # a Ready round for this tourney is queued already: it reads the latest view
            self._readying.add(code)
        self.workers.submit(self._safely, lambda: self._ready_all(code))

    def _ready_all(self, code: str) -> None:
        """Everyone whose team has a match waiting presses Ready."""
        with self._lock:
            self._readying.discard(code)
        view = self.tourneys.view(code, None)
        if view.status != "running":
            return
        if code not in self._teams:  # who is in which team, once (teams are final at the start)
            self._teams[code] = {}
            for pid in self.people:
                team = self.tourneys.view(code, pid).my_team
                if team is not None:
                    self._teams[code].setdefault(team, []).append(pid)
        for r in view.rounds:
            for tv in r.tables:
                if tv.status != "due":
                    continue
                for team in tv.teams:
                    for pid in self._teams[code].get(team, []):  # type: ignore[arg-type]
                        try:
                            self.tourneys.ready(code, pid)
                        except TourneyError:
                            pass  # nothing waiting for them any more

    @staticmethod
    def _safely(job: Callable[[], None]) -> None:
        try:
            job()
        except (Refused, TourneyError):
            pass  # a stale move or a match already decided: the next change brings new work
        except Exception:  # pragma: no cover - shown, and the run times out
            import traceback
            traceback.print_exc()


def simulate(teams: int, format: str, rounds: int | None = None, solos: int = 0, seed: int | None = None,
             pool: str = "thread", workers: int = 1, hands: int | None = None,
             timeout: float = 900.0) -> tuple[dict[str, Any], int]:
    """Run one tourney; returns its JSON (see the module docstring) and the most tables
    that played at once. ``pool``: where the bots think ("thread": in the workers;
    "process": in a pool of processes). ``hands``: every match that many hands (shorter
    runs; the rounds keep their targets in the JSON). Raises TourneyError, TimeoutError."""
    if not 2 <= teams <= 128:
        raise TourneyError("--teams is 2 to 128.")
    if not 0 <= solos <= 2 * teams:
        raise TourneyError("--solos is 0 to twice the teams.")
    if format == "swiss" and rounds is None:
        rounds = max(1, math.ceil(math.log2(teams)))
    started = time.perf_counter()
    seed_text = f"sim-{seed}" if seed is not None else None
    think = process_pool(os.cpu_count() or 2) if pool == "process" else None
    bot_pool = cf.ThreadPoolExecutor(2, thread_name_prefix="sim-bots")
    runners = cf.ThreadPoolExecutor(workers, thread_name_prefix="sim-people")
    with tempfile.TemporaryDirectory(prefix="spades-tourney-") as tmp:
        store = Store(os.path.join(tmp, "tourney.db"))
        tables = TableService(store, play_delays=INSTANT, pool=bot_pool)
        override = {"end": "hands", "hands": hands} if hands else None
        tourneys = TourneyService(store, tables, new_seed=(lambda: seed_text) if seed_text else None,
                                  rules_override=override)
        try:
            code = tourneys.create(DIRECTOR, "Simulated tourney", format=format, rounds=rounds, team_limit=teams)
            people = _register(tourneys, code, teams, solos)
            auto = Autoplay(tables, tourneys, people, runners, think)
            changed = threading.Event()
            tables.bus.listen_pages(lambda _channel: changed.set())  # the bus goes with this run
            tourneys.start(code, DIRECTOR)
            end = time.monotonic() + timeout
            while True:
                view = tourneys.view(code, None)
                if view.status != "running":
                    break
                if time.monotonic() > end:
                    raise TimeoutError(f"the tourney did not finish in {timeout:.0f} s")
                changed.wait(1.0)  # as the app does: a tick a second, and a look after each change
                changed.clear()
                tourneys.tick()
            auto.close()
            result = {
                "format": format,
                "teams": [{"id": t.id, "players": [p.name for p in t.players]}
                          for t in view.teams if t.seed is not None],
                "rounds": view.rounds_json(),
                "ranks": [{"team": r.team, "rank": r.rank} for r in view.ranks],
                "seconds": round(time.perf_counter() - started, 2),
            }
            return result, auto.max_tables
        finally:
            tourneys.close()
            tables.close()
            runners.shutdown(wait=True, cancel_futures=True)
            bot_pool.shutdown(wait=False, cancel_futures=True)
            if think is not None:
                think.shutdown(wait=False, cancel_futures=True)


def _register(tourneys: TourneyService, code: str, teams: int, solos: int) -> list[str]:
    """``2 * teams`` people (one fewer when ``solos`` is odd, so a solo gets a bot partner):
    ``solos`` of them alone, the others in teams through the team link."""
    count = 2 * teams - (solos % 2)
    people = [f"p{n}" for n in range(1, count + 1)]
    names = {pid: f"P{n}" for n, pid in enumerate(people, 1)}
    emoji = {pid: EMOJIS[n % len(EMOJIS)] for n, pid in enumerate(people)}
    alone, paired = people[:solos], people[solos:]
    for pid in alone:
        tourneys.register_solo(code, pid, names[pid], emoji[pid])
    for a, b in zip(paired[::2], paired[1::2]):
        token = tourneys.register_team(code, a, names[a], emoji[a])
        tourneys.join_team(code, token, b, names[b], emoji[b])
    return people


def parser(prog: str = "python -m spades tourney") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Tourney tools.")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("simulate", help="run a whole tourney with bots in every seat; print its JSON")
    s.add_argument("--teams", type=int, required=True, help="teams (2 to 128)")
    s.add_argument("--format", choices=("knockout", "swiss"), required=True)
    s.add_argument("--rounds", type=int, help="Swiss rounds (default: log2 of the teams, rounded up)")
    s.add_argument("--solos", type=int, default=0, help="people who register alone (paired at the start)")
    s.add_argument("--seed", type=int, help="the same draws and deals on every run")
    s.add_argument("--pool", choices=("thread", "process"), default="thread",
                   help="where the people's bots think (threads: measured faster, see docs/tourneys.md)")
    s.add_argument("--workers", type=int, default=1,
                   help="threads playing the people (one measured fastest: the work holds the GIL)")
    s.add_argument("--hands", type=int, help="every match this many hands (shorter runs, for tests)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        result, most = simulate(args.teams, args.format, args.rounds, args.solos, args.seed, args.pool,
                                max(1, args.workers), args.hands)
    except (TourneyError, TimeoutError) as e:
        print(f"tourney simulate: {e}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    print(f"tables at once at most: {most}", file=sys.stderr)
    return 0
