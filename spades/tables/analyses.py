"""Analyses of finished matches, worked out in the background, one match at a time.

``AnalysisQueue.ask(code, number, record)`` starts the analysis of a finished match
(``spades.bots.analysis``) unless it is stored already, running, or waiting; asking again
meanwhile joins the same one, so a match is never analysed twice at once in a process.
``status(code, number)`` says where it stands: ``pending`` (waiting its turn, behind
``ahead`` others), ``running`` with its progress (the share of its hands' parts done, and
the hands done), ``done`` with its hands (stored once, ``Store.put_analysis``), or None
when nobody asked.

With Redis (``remote``: ``spades.bots.worker.AnalysisWorkers``), the parts go to the
analysts (``python -m spades.bots.worker --analyses``) while any is alive. Otherwise the
hands of a match, each in parts (``spades.bots.analysis.PARTS``: runs of its tricks), are
analysed side by side, in hand order, in bot processes of their own
(``workers``, lowered in priority so the site's requests and bot turns come first), the
analyses one after the other in the order they were asked; at most ``max_waiting`` wait
(more: ``Busy``).

Imports: stdlib, ``spades.bots`` and the other ``spades.tables`` modules, and the storage.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import multiprocessing
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..bots import analysis
from ..storage import Store
from .errors import Busy
from .scheduler import end_with_parent

log = logging.getLogger(__name__)

ANALYSIS_BUSY = "Many analyses are being worked out just now. Ask again in a few minutes."
MAX_WAITING = 8
STUCK_S = 900.0  # an analysis with a part unanswered this long is given up (it may be asked for again)
WORKERS = 2  # processes analysing a match's hands side by side
NICE = 10  # the analysis processes yield the processor to the site's


@dataclass(frozen=True, slots=True)
class Progress:
    """Where an analysis stands: ``status`` (``pending``, ``running``, ``done``), the
    share of its hands' parts done, and the hands once done; ``hands_done`` of
    ``hands_total`` hands finished (0 of 0 when not known: a stored analysis, or one
    nobody here is working on); ``ahead``: the analyses to be done before a pending one
    starts (they run one at a time)."""

    status: str
    progress: float
    hands: list | None = None
    hands_done: int = 0
    hands_total: int = 0
    ahead: int = 0

    @property
    def hand_now(self) -> int:
        """The hand being analysed (from 1): the first not done."""
        return min(self.hands_done + 1, self.hands_total)


@dataclass(eq=False)
class _Job:
    code: str
    number: int
    record: dict
    done: int = 0
    total: int = 1
    hands: int = 1
    parts_done: dict[int, int] = field(default_factory=dict)  # hand -> its parts done
    running: bool = False
    finished: threading.Event = field(default_factory=threading.Event)


def analysis_channel(code: str, number: int) -> str:
    """The bus's page channel of a match's analysis (``Bus.publish_page`` as it moves on)."""
    return f"analysis:{code}:{number}"


def _quiet_worker(parent: int) -> None:
    """In an analysis process: yield to the site, and end with it."""
    try:
        os.nice(NICE)
    except OSError:  # pragma: no cover - a system that refuses is served at normal priority
        pass
    end_with_parent(parent)


def analysis_pool(workers: int) -> cf.ProcessPoolExecutor:
    return cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                  initializer=_quiet_worker, initargs=(os.getpid(),))


class AnalysisQueue:
    """Analyses of finished matches for the site (see the module docstring). ``pool``: an
    executor for the hands (tests pass a thread pool); None: ``workers`` processes of its
    own, started on the first analysis. ``analyse_hand``: ``spades.bots.analysis.analyse_hand``
    (with ``budget_s``). ``on_change(code, number)``: told each time an analysis moves on
    (a part done, stored, or given up), outside every lock (the site pushes the page).
    ``remote``: ``spades.bots.worker.AnalysisWorkers`` (analysts through Redis), or None."""

    def __init__(self, store: Store, pool: cf.Executor | None = None, *, workers: int = WORKERS,
                 budget_s: float = analysis.BUDGET_S, max_waiting: int = MAX_WAITING,
                 analyse_hand: Callable[..., dict] = analysis.analyse_hand,
                 on_change: Callable[[str, int], None] | None = None, remote: Any = None,
                 stuck_s: float = STUCK_S) -> None:
        self.store = store
        self.budget_s = budget_s
        self.max_waiting = max_waiting
        self.workers = workers
        self._analyse_hand = analyse_hand
        self._on_change = on_change
        self._remote = remote  # analysts elsewhere, used while any is alive
        self.stuck_s = stuck_s
        self._pool = pool
        self._own_pool = pool is None
        self._jobs: OrderedDict[tuple[str, int], _Job] = OrderedDict()
        self._cond = threading.Condition()
        self._closed = False
        self._thread: threading.Thread | None = None

    def status(self, code: str, number: int) -> Progress | None:
        """Where the analysis of match ``number`` at ``code`` stands; None: not asked for."""
        with self._cond:
            job = self._jobs.get((code, number))
            if job is not None:
                return self._progress(job)
        hands = self.store.analysis(code, number)
        return Progress("done", 1.0, hands, len(hands), len(hands)) if hands is not None else None

    def ask(self, code: str, number: int, record: dict) -> Progress:
        """Start the analysis of a finished match (its full ``record``), or join the one
        under way; the stored one when done. Raises Busy when too many wait."""
        found = self.status(code, number)
        if found is not None:
            return found
        with self._cond:
            job = self._jobs.get((code, number))
            if job is not None:  # asked meanwhile by someone else: the same one
                return self._progress(job)
            if self._closed or len(self._jobs) >= self.max_waiting:
                raise Busy(ANALYSIS_BUSY)
            n = analysis.hand_count(record)
            job = self._jobs[(code, number)] = _Job(code, number, record, total=n * len(analysis.PARTS), hands=n)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="analyses", daemon=True)
                self._thread.start()
            self._cond.notify_all()
            return self._progress(job)

    def wait(self, code: str, number: int, timeout: float) -> bool:
        """Wait for that analysis to be done (tests, the benchmark); whether it is."""
        with self._cond:
            job = self._jobs.get((code, number))
        if job is not None:
            job.finished.wait(timeout)
        return self.store.analysis(code, number) is not None

    def close(self) -> None:
        """Stop: no new analysis starts, and the processes end (a pool passed in is its owner's)."""
        with self._cond:
            self._closed = True
            pool, self._pool = self._pool, None
            self._cond.notify_all()
        if pool is not None and self._own_pool:
            pool.shutdown(wait=False, cancel_futures=True)
        if self._remote is not None:
            self._remote.shutdown()

    # -- the one worker thread -------------------------------------------------------------
    def _progress(self, job: _Job) -> Progress:
        """(Under the lock.)"""
        if not job.running:
            ahead = list(self._jobs.values()).index(job) if job in self._jobs.values() else 0
            return Progress("pending", 0.0, hands_total=job.hands, ahead=ahead)
        parts = len(analysis.PARTS)
        hands_done = sum(1 for n in job.parts_done.values() if n >= parts)
        return Progress("running", round(job.done / max(1, job.total), 3), hands_done=hands_done,
                        hands_total=job.hands)

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._jobs and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                job = next(iter(self._jobs.values()))
                job.running = True
            self._changed(job)  # the page says so at once, not when the first part is done
            pool = self._executor()
            if pool is None:  # closed meanwhile
                return
            try:
                self._run(job, pool)
            except Exception:  # a match that cannot be analysed is a bug: say it, and ask again later
                log.exception("the analysis of %s match %s failed", job.code, job.number)
                if pool is self._pool and self._own_pool:
                    self._replace(pool)
            finally:
                with self._cond:
                    self._jobs.pop((job.code, job.number), None)
                job.finished.set()
                self._changed(job)

    def _changed(self, job: _Job) -> None:
        if self._on_change is not None:
            try:
                self._on_change(job.code, job.number)
            except Exception:  # the page is told next time, or reloads
                log.exception("telling of the analysis of %s failed", job.code)

    def _executor(self) -> cf.Executor | None:
        """The analysts through Redis while any is alive, else this process's own."""
        if self._remote is not None and self._remote.workers() > 0:
            return self._remote
        with self._cond:
            if self._closed:
                return None
            if self._pool is None:
                self._pool = analysis_pool(self.workers)
            return self._pool

    def _run(self, job: _Job, pool: cf.Executor) -> None:
        # each hand in its parts, handed out in hand order: the workers stay busy to the end,
        # and the hands are done one after the other (the page says which is under way)
        futures = {pool.submit(self._analyse_hand, job.record, h, self.budget_s, 0, part): (h, part)
                   for h in range(analysis.hand_count(job.record)) for part in analysis.PARTS}
        parts: dict[tuple[int, int], list[dict]] = {}
        for future in cf.as_completed(futures, timeout=self.stuck_s):
            h, part = futures[future]
            parts[(h, part)] = future.result()["steps"]
            with self._cond:
                job.done += 1
                job.parts_done[h] = job.parts_done.get(h, 0) + 1
            if job.done < job.total:
                self._changed(job)
        hands = [{"hand": h, "steps": [s for part in analysis.PARTS for s in parts[(h, part)]]}
                 for h in range(analysis.hand_count(job.record))]
        self.store.put_analysis(job.code, job.number, hands)

    def _replace(self, pool: cf.Executor) -> None:
        with self._cond:
            if self._pool is pool:
                self._pool = None
        pool.shutdown(wait=False, cancel_futures=True)
