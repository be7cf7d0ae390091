"""Bid hints, fairly: one hint process, people served in turn.

A hint is the Hard bot's bid for a person's seat, worked out in a process of its own so
that asking never slows a bot's turn at another table. Hints are worked out one at a
time. Each person has at most one hint waiting or being worked out: asking again
meanwhile is refused (``Busy``), so looping requests cannot push a person ahead of anyone
else; the people waiting are served in the order they asked, which, one hint each, is
round robin. At most ``max_waiting`` wait at once (more: ``Busy``), and each hint's
thinking budget is what the queue allows: every hint waiting should be answered within
``within_s`` of its asking, so the next one gets the least of (time left to the deadline
of the i-th waiting) / i, Hard's full budget when that is more, never under ``least_s``.
So however many loop, a person who asks is answered in about ``within_s``. A person who
stops waiting (``ask``'s timeout) leaves the queue: nothing is worked out for nobody.

Imports: stdlib, ``spades.bots`` and the other ``spades.tables`` modules.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent import futures as cf
from dataclasses import dataclass, field

from .. import bots
from .errors import Busy
from .scheduler import process_pool

log = logging.getLogger(__name__)

HINT_BUSY = "The hint helper is busy. Try again in a moment."
WITHIN_S = 3.0  # a hint is answered this long after it was asked, when the queue allows
MAX_WAITING = 64  # at the least budget, 64 hints take under WITHIN_S
LEAST_S = 0.02  # a hint's budget never goes below this (Hard still beats Normal at 20 ms)
OVERHEAD_S = 0.01  # a hint's cost besides its thinking: to the hint process and back
STUCK_S = 30.0  # a hint process that has not answered in this long is replaced


@dataclass(eq=False)
class _Hint:
    person: str
    view: dict
    asked: float  # monotonic
    done: threading.Event = field(default_factory=threading.Event)
    value: int | str | None = None
    failed: bool = False


class HintQueue:
    """Hints for people, one at a time in one process, served in turn.

    ``pool``: an executor to think in (tests pass a thread pool, shared with the bots);
    None: a process of its own, started on the first hint and stopped by ``close``.
    ``think``: ``spades.bots.hint`` (a test may pass a slower one)."""

    def __init__(self, pool: cf.Executor | None = None, *, max_waiting: int = MAX_WAITING,
                 within_s: float = WITHIN_S, least_s: float = LEAST_S,
                 think: Callable[[dict, float], int | str] = bots.hint,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_waiting = max_waiting
        self.within_s = within_s
        self.least_s = least_s
        self.clock = clock
        self.think = think
        self._pool = pool
        self._own_pool = pool is None
        self._waiting: OrderedDict[str, _Hint] = OrderedDict()  # by person, in the order they asked
        self._working: _Hint | None = None
        self._cond = threading.Condition()
        self._closed = False
        self._thread: threading.Thread | None = None

    def ask(self, person: str, view: dict, timeout: float) -> int | str:
        """The hint for ``view`` (the person's seat view at their turn to bid), waiting at
        most ``timeout`` s for it. Raises Busy (this person's last hint is still on its
        way, too many wait, or it did not come in time)."""
        hint = _Hint(person, view, self.clock())
        with self._cond:
            if self._closed:
                raise Busy(HINT_BUSY)
            mine = self._working is not None and self._working.person == person
            if mine or person in self._waiting or len(self._waiting) >= self.max_waiting:
                raise Busy(HINT_BUSY)
            self._waiting[person] = hint
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="hints", daemon=True)
                self._thread.start()
            self._cond.notify_all()
        if not hint.done.wait(timeout):
            with self._cond:
                if self._waiting.get(person) is hint:
                    del self._waiting[person]  # given up: not worked out for nobody
            raise Busy(HINT_BUSY)
        if hint.failed or hint.value is None:
            raise Busy(HINT_BUSY)
        return hint.value

    def budget(self, asked: list[float], now: float) -> float:
        """The thinking budget of the next hint, when the hints waiting (it first) were
        asked at ``asked``: the most that lets each be answered ``within_s`` after its
        asking, were they all given the same, between ``least_s`` and Hard's full budget.

        >>> queue = HintQueue()
        >>> queue.budget([0.0], 0.0), round(queue.budget([0.0] * 30, 0.0), 3), queue.budget([0.0] * 64, 2.9)
        (0.5, 0.09, 0.02)
        """
        room = min((a + self.within_s - now) / i for i, a in enumerate(asked, 1)) - OVERHEAD_S
        return max(self.least_s, min(bots.HARD_BUDGET_S, room))

    def close(self) -> None:
        """Refuse new hints, answer the waiting ones Busy, and stop the hint process (a
        pool passed in is its owner's to stop)."""
        with self._cond:
            self._closed = True
            waiting, self._waiting = list(self._waiting.values()), OrderedDict()
            pool, self._pool = self._pool, None
            self._cond.notify_all()
        for hint in waiting:
            hint.failed = True
            hint.done.set()
        if pool is not None and self._own_pool:
            pool.shutdown(wait=False, cancel_futures=True)

    # -- the one worker --------------------------------------------------------------------
    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._waiting and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                budget = self.budget([h.asked for h in self._waiting.values()], self.clock())
                _, hint = self._waiting.popitem(last=False)  # the one who asked first
                self._working = hint
                if self._pool is None:
                    self._pool = process_pool(1)
                pool = self._pool
            try:
                hint.value = pool.submit(self.think, hint.view, budget).result(timeout=budget + STUCK_S)
            except (cf.BrokenExecutor, cf.TimeoutError):
                hint.failed = True
                self._replace(pool)
            except RuntimeError:  # the pool was shut down (closing)
                hint.failed = True
            except Exception:  # a hint that cannot be worked out is a bug: say it, answer "busy"
                log.exception("a hint could not be worked out")
                hint.failed = True
            finally:
                with self._cond:
                    self._working = None
                hint.done.set()

    def _replace(self, pool: cf.Executor) -> None:
        """The hint process died or hung: the next hint starts a new one."""
        if not self._own_pool:
            return
        log.warning("the hint process stopped answering; starting a new one")
        with self._cond:
            if self._pool is pool:
                self._pool = None
        pool.shutdown(wait=False, cancel_futures=True)
