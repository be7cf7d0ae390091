"""The one scheduler: every table's timers (bot turns, clocks, holds) and the bot pool.

A table's actor hands over its ``Plan`` after every command (``plan``); the scheduler
keeps the latest one per table and two heaps of due times: clocks and holds in the
injected clock's seconds (stored deadlines), bot answers in monotonic seconds (play
speed and think limit). Bots think in a process pool (a Hard bot may think for a second;
the server stays free); an answer is played no sooner than the table's play speed
allows, and a bot that has not answered within the think limit is replaced by a legal
fallback move, so a table never stalls.

Thinking fits the load. Decisions wait in the scheduler's own queue and go to the pool
only as workers come free, so the budget of each (how long a Hard bot may think) is set
when it starts, from the queue behind it: alone, a decision gets the full budget; with
``L`` decisions per worker waiting, ``TURN_SLOT_S / L`` (never under ``MIN_BUDGET_S``), so
that the last in the queue is still answered about ``TURN_SLOT_S`` after it was asked
and a person's wait for three bot moves stays short. A decision with a person waiting at
its table (``BotTurn.urgent``) goes ahead of others asked up to ``URGENT_HEAD_START_S``
before it; nothing waits longer than that behind newer ones, so no table starves. Every
``REPORT_S`` the scheduler logs how many decisions it started and their budgets.

With Redis (``remote``: ``spades.bots.worker.BotQueue``), decisions go to bot workers
elsewhere while any is alive, as many in flight as there are live workers; with none, to
the local pool. Either way the think limit plays the fallback move for a decision not
answered in time (a worker that died with it, say). When a timer comes due the scheduler delivers a
command to the table, through the same path as a person's: a bot's move, the move for a
person whose clock ran out (``Timeout``), a hold running out. A delivery made stale by a
newer move is refused by the table and simply dropped, so nothing fires twice. A move
the table could not take (its save failed, say) is asked again while the table still
wants that turn, after ``RETRY_S``, doubling each time up to ``RETRY_MAX_S``, so a table
never waits for a turn nobody is thinking about.

Imports: stdlib, ``spades.bots`` and ``spades.tables`` values (the tourney clock's card: ``state``).
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import heapq
import itertools
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import bots
from ..rules import IllegalAction
from .commands.play import BreakOver, Move
from .commands.presence import HoldExpired
from .errors import BadAction, NotSeated, Stale
from .registry import Command
from .state import BotTurn, Plan, timeout_card
from .values import BotSeat, Server, Timeout, Who

log = logging.getLogger(__name__)

Deliver = Callable[[str, Who, Command], object]
PARENT_CHECK_S = 0.5
TURN_SLOT_S = 0.3  # a queued decision should be answered about this long after it was asked
MIN_BUDGET_S = 0.02  # the least a Hard bot thinks, however long the queue
URGENT_HEAD_START_S = 2.0  # a decision with a person waiting goes ahead of others this much older
REPORT_S = 10.0
RETRY_S = 0.5  # a move the table could not take is asked again after this ...
RETRY_MAX_S = 30.0  # ... doubling each time up to this


def think_budget(base: float, waiting: int, workers: int) -> float:
    """The budget of a decision starting now with ``waiting`` decisions (itself included)
    for ``workers`` workers: the full ``base`` while each worker has one at most, then
    ``TURN_SLOT_S`` shared among those per worker.

    >>> think_budget(0.5, 2, 2), think_budget(0.5, 8, 2), think_budget(0.5, 1000, 2)
    (0.5, 0.075, 0.02)
    """
    load = waiting / max(1, workers)
    if load <= 1:
        return base
    return max(MIN_BUDGET_S, min(base, TURN_SLOT_S / load))


def end_with_parent(parent: int) -> None:
    """In a bot process: exit as soon as the server that started it is gone (stopped,
    killed, or crashed), instead of thinking on for nobody."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


def process_pool(workers: int) -> cf.ProcessPoolExecutor:
    """Processes that think for the server and end with it. Spawned, not forked: forking a
    threaded server can copy held locks into the child."""
    return cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                  initializer=end_with_parent, initargs=(os.getpid(),))


@dataclass
class _Job:
    """A turn being thought about."""

    code: str
    turn: BotTurn
    future: cf.Future
    not_before: float  # monotonic
    deadline: float  # monotonic: play the fallback after this
    taken: bool = False  # being delivered
    budget: float | None = None  # the thinking budget it started with
    retry: float = RETRY_S  # the wait before asking again, should the table not take its move


class Scheduler:
    """Timers of every table of this process, fired in one thread."""

    def __init__(self, deliver: Deliver, clock: Callable[[], float], *, pool: cf.Executor | None = None,
                 pool_workers: int = 2, think_limit: float = 5.0, bot_budget: float | None = None,
                 mono: Callable[[], float] = time.monotonic, remote: Any = None) -> None:
        self._deliver = deliver
        self._clock = clock
        self._mono = mono  # monotonic seconds (tests pass a fake)
        # bot workers elsewhere (``spades.bots.worker.BotQueue``), used while any is alive
        self._remote = remote
        self._pool = pool
        self._owns_pool = pool is None  # a pool passed in (tests) is its owner's to shut down
        self._pool_workers = pool_workers
        self._pool_lock = threading.Lock()
        self.think_limit = think_limit
        self.bot_budget = bot_budget
        self._cond = threading.Condition()
        self._plans: dict[str, Plan] = {}
        self._jobs: dict[str, _Job] = {}
        self._due: list[tuple[float, int, str]] = []  # (clock seconds, n, code): clocks and holds
        self._answers: list[tuple[float, int, str]] = []  # (monotonic seconds, n, code): bot turns
        self._n = itertools.count()
        self._thinking: list[tuple[float, int, _Job]] = []  # (priority, n, job): decisions not started
        self._in_flight = 0
        self._started: list[float] = []  # budgets of the decisions started since the last report
        self._reported = mono()
        self._delivering = 0
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="table-scheduler", daemon=True)
        self._thread.start()

    # -- the bot pool ----------------------------------------------------------------
    @property
    def pool(self) -> cf.Executor | None:
        """The bot pool (None until the first bot thinks)."""
        return self._pool

    def _executor(self) -> cf.Executor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = process_pool(self._pool_workers)
            return self._pool

    def submit(self, fn: Callable, *args: Any) -> cf.Future:
        """Run ``fn(*args)`` in the bot pool (a broken pool is replaced once)."""
        try:
            return self._executor().submit(fn, *args)
        except cf.BrokenExecutor:
            log.warning("bot pool broken; starting a new one")
            with self._pool_lock:
                self._pool = None
            return self._executor().submit(fn, *args)

    # -- plans -----------------------------------------------------------------------
    def plan(self, code: str, plan: Plan) -> None:
        """The timers ``code`` wants now, replacing the ones it wanted before."""
        with self._cond:
            if plan.empty:
                self._plans.pop(code, None)
            else:
                self._plans[code] = plan
            job = self._jobs.get(code)
            wanted = {t.key for t in (plan.bot, plan.clock_turn) if t is not None}
            if job is not None and job.turn.key not in wanted:
                if not job.taken:
                    job.future.cancel()  # the table moved on: that turn is not wanted any more
                del self._jobs[code]  # (a turn being delivered finishes on its own)
                job = None
            if plan.bot is not None and job is None:
                self._start(code, plan.bot, plan.bot.delay)
            for when in ([plan.clock] if plan.clock is not None else []) + [until for _, until in plan.holds] + \
                    ([plan.deal_at] if plan.deal_at is not None else []):
                heapq.heappush(self._due, (when, next(self._n), code))
            self._cond.notify_all()

    def drop(self, code: str) -> None:
        """Forget ``code``'s timers (the table left memory)."""
        self.plan(code, Plan())

    def _start(self, code: str, turn: BotTurn, delay: float, retry: float = RETRY_S) -> None:
        """Think about ``turn`` (caller holds the condition)."""
        future: cf.Future = cf.Future()
        now = self._mono()
        job = _Job(code, turn, future, not_before=now + delay, deadline=now + delay + self.think_limit,
                   retry=retry)
        self._jobs[code] = job
        heapq.heappush(self._answers, (job.deadline, next(self._n), code))
        future.add_done_callback(lambda _f: self._answered(job))
        if turn.tourney:  # the tourney clock plays its card: nothing to think about
            future.set_result(timeout_card(turn.view))
            return
        if len(turn.view.own.legal) == 1:  # a forced move (every level plays it): no worker needed
            future.set_result(turn.view.own.legal[0])
            return
        priority = now - (URGENT_HEAD_START_S if turn.urgent else 0.0)
        heapq.heappush(self._thinking, (priority, next(self._n), job))
        self._dispatch()

    def _dispatch(self) -> None:
        """Start queued decisions while workers are free, each with the budget the queue
        behind it allows (caller holds the condition)."""
        if self._stopped:
            return  # the turns still waiting are asked again on the next start
        alive = self._remote.workers() if self._remote is not None and self._thinking else 0
        remote = self._remote if alive else None
        workers = alive or self._pool_workers
        while self._thinking and self._in_flight < workers:
            _, _, job = heapq.heappop(self._thinking)
            if not job.future.set_running_or_notify_cancel():
                continue  # the table moved on, or its time ran out, while it waited
            waiting = 1 + self._in_flight + sum(1 for _, _, j in self._thinking if not j.future.cancelled())
            base = self.bot_budget if self.bot_budget is not None else bots.HARD_BUDGET_S
            job.budget = think_budget(base, waiting, workers)
            self._started.append(job.budget)
            self._in_flight += 1
            args = (job.turn.view.to_json(), job.turn.level, job.turn.seed, job.budget)
            try:
                inner = remote.submit(bots.choose, *args) if remote is not None else self.submit(bots.choose, *args)
            except cf.BrokenExecutor as e:  # broken again at once: the fallback move is played
                self._in_flight -= 1
                job.future.set_exception(e)
                continue
            except RuntimeError:
                # the pool refuses new work: it was shut down, or the process is exiting (the
                # interpreter shuts pools down before the app's own close). Nothing more is
                # answered here; the turns still waiting are asked again on the next start,
                # not given fallbacks.
                log.warning("the bot pool takes no more work: the scheduler stops")
                self._in_flight -= 1
                self._stopped = True
                self._cond.notify_all()
                return
            except Exception as e:  # no pool at all: the fallback move is played
                self._in_flight -= 1
                job.future.set_exception(e)
                continue
            inner.add_done_callback(functools.partial(self._thought, job))
        now = self._mono()
        if now - self._reported >= REPORT_S and self._started:
            budgets = sorted(self._started)
            log.info("bot thinking: %d decisions in %.0f s, budget median %.0f ms, least %.0f ms, %d waiting",
                     len(budgets), now - self._reported, 1000 * budgets[len(budgets) // 2], 1000 * budgets[0],
                     len(self._thinking))
            self._started = []
            self._reported = now

    def _thought(self, job: _Job, inner: cf.Future) -> None:
        """A worker answered (or failed): its answer is the job's, and the next decision starts."""
        with self._cond:
            self._in_flight -= 1
            self._dispatch()
        try:
            job.future.set_result(inner.result())
        except BaseException as e:  # a failed or cancelled decision: the fallback move is played
            job.future.set_exception(e if isinstance(e, Exception) else RuntimeError("the bot pool stopped"))

    def _answered(self, job: _Job) -> None:
        with self._cond:
            heapq.heappush(self._answers, (job.not_before, next(self._n), job.code))
            self._cond.notify_all()

    # -- the loop --------------------------------------------------------------------
    def wake(self) -> None:
        """Look at the timers now (the injected clock may have moved)."""
        with self._cond:
            self._cond.notify_all()

    def _collect(self) -> list[tuple[str, Who, Command, _Job | None]]:
        """Everything due now (caller holds the condition)."""
        out: list[tuple[str, Who, Command, _Job | None]] = []
        now = self._clock()
        while self._due and self._due[0][0] <= now:
            _, _, code = heapq.heappop(self._due)
            plan = self._plans.get(code)
            if plan is None:
                continue
            turn = plan.clock_turn
            if turn is not None and plan.clock is not None and plan.clock <= now:
                job = self._jobs.get(code)
                if job is None or job.turn.key != turn.key:
                    self._start(code, turn, 0.0)
            for seat, until in plan.holds:
                if until <= now:
                    out.append((code, Server(), HoldExpired(seat), None))
            if plan.deal_at is not None and plan.deal_at <= now:
                out.append((code, Server(), BreakOver(plan.deal_hand), None))
        mono = self._mono()
        while self._answers and self._answers[0][0] <= mono:
            _, _, code = heapq.heappop(self._answers)
            job = self._jobs.get(code)
            if job is None or job.taken:
                continue
            if job.future.done() and mono >= job.not_before:
                try:
                    answer = job.future.result()
                except Exception:
                    log.exception("bot failed at %s; playing a fallback move", code)
                    answer = job.turn.view.own.legal[0]
            elif not job.future.done() and mono >= job.deadline:
                job.future.cancel()
                log.warning("bot at %s seat %d over its time; playing a fallback move", code, job.turn.seat)
                answer = job.turn.view.own.legal[0]
            else:
                continue
            job.taken = True
            who: Who = Timeout(job.turn.seat) if job.turn.by_clock else BotSeat(job.turn.seat)
            out.append((code, who, Move(str(answer), job.turn.version), job))
        # holds that fire are delivered once per pop; drop duplicates from several entries
        seen: set[tuple[str, Command]] = set()
        unique = []
        for item in out:
            key = (item[0], item[2])
            if key not in seen:
                seen.add(key)
                unique.append(item)
        return unique

    def _wait(self) -> float:
        """Seconds until the next timer (caller holds the condition)."""
        wait = 60.0
        if self._due:
            wait = min(wait, self._due[0][0] - self._clock())
        if self._answers:
            wait = min(wait, self._answers[0][0] - self._mono())
        return max(0.0, wait)

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._stopped:
                    return
                due = self._collect()
                if not due:
                    self._cond.wait(self._wait())
                    continue
                self._delivering += 1
            try:
                for code, who, command, job in due:
                    self._fire(code, who, command, job)
            finally:
                with self._cond:
                    self._delivering -= 1
                    self._cond.notify_all()

    def _fire(self, code: str, who: Who, command: Command, job: _Job | None) -> None:
        failed = False  # the table could not take it (a failed save, say): ask again
        try:
            attempts = [command]
            if job is not None and isinstance(command, Move) and command.action != str(job.turn.view.own.legal[0]):
                attempts.append(Move(str(job.turn.view.own.legal[0]), command.version))
            for attempt in attempts:
                try:
                    self._deliver(code, who, attempt)
                    return
                except (Stale, NotSeated):
                    return  # the table moved on (a person's move, a rematch), or the seat's person is back
                except (IllegalAction, BadAction) as e:
                    log.warning("bot at %s answered %r: %s", code, attempt, e)
                except Exception:
                    log.exception("%s at %s failed", type(command).__name__, code)
                    failed = True
                    return
        finally:
            if job is not None:
                with self._cond:
                    if self._jobs.get(code) is job:
                        del self._jobs[code]
                        if failed:
                            self._again(code, job)

    def _again(self, code: str, job: _Job) -> None:
        """The table could not take ``job``'s move and still wants that turn (no newer plan
        replaced it): ask again, later each time (caller holds the condition)."""
        plan = self._plans.get(code)
        if self._stopped or plan is None:
            return
        for turn in (plan.bot, plan.clock_turn):
            if turn is not None and turn.key == job.turn.key:
                log.warning("seat %d at %s is still to play; asking again in %.1f s", turn.seat, code, job.retry)
                self._start(code, turn, job.retry, min(RETRY_MAX_S, 2 * job.retry))
                return

    # -- for tests and the benchmark -------------------------------------------------
    def idle(self) -> bool:
        """No bot turn is pending and no clock or hold is due."""
        with self._cond:
            if self._jobs or self._delivering:
                return False
            now = self._clock()
            for plan in self._plans.values():
                if (plan.clock is not None and plan.clock <= now) or any(u <= now for _, u in plan.holds) \
                        or (plan.deal_at is not None and plan.deal_at <= now):
                    return False
            return True

    def close(self) -> None:
        """Stop the loop and the bot pool (pending turns resume on the next start)."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        with self._pool_lock:
            if self._pool is not None and self._owns_pool:
                self._pool.shutdown(wait=False, cancel_futures=True)
        if self._remote is not None:
            self._remote.shutdown(wait=False, cancel_futures=True)
