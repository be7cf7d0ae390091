"""The tourneys' timers and worker: what moves a tourney on when nobody presses anything.

- A finished tourney table on the table service's bus only puts its tourney in a queue
  (the bus calls subscribers under the table's lock); the worker thread then runs the
  transitions for it under the service's lock.
- ``tick(now)`` runs them for every tourney not over (a start at its time, walkovers past
  the ready window, a result the bus did not bring): the app calls it every second, tests
  with their clock; ``keep_ticking`` runs it every so often in a thread of its own.
- ``resume(now)`` at start-up gives pairings still waiting for Ready a fresh window and
  does whatever is due (the table service resumes the unfinished tables itself).

Every change is announced on the bus's page channel of its tourney
(``views.page_channel``), outside every lock: the socket hub of each process redraws the
tourney's page for its sockets.

Imports: stdlib, ``transitions``, ``views`` (the channel's name), ``spades.storage`` and
``spades.tables`` (the bus and its ``Change``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from ..storage import Store
from ..tables import Bus, Change, Snapshot
from ..tables.outage import Unreachable
from .transitions import Transitions
from .views import page_channel

__all__ = ["Worker"]

log = logging.getLogger(__name__)


class Worker:
    """Hears finished tourney tables on ``bus`` and runs ``machine`` for their tourneys in a
    thread of its own; ``tick`` and ``resume`` run it for every tourney not over. ``lock``
    is the service's one lock: every change of every tourney is made under it."""

    def __init__(self, store: Store, bus: Bus, lock: AbstractContextManager[Any], machine: Transitions,
                 clock: Callable[[], float]) -> None:
        self.store = store
        self.bus = bus
        self.machine = machine
        self.clock = clock
        self._lock = lock
        # tourneys whose tables finished, for the thread (the bus calls us under a table's lock)
        self._queue: list[str] = []
        self._busy = False
        self._stopped = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._work, name="tourney-worker", daemon=True)
        self._thread.start()
        self._bus_token = bus.subscribe(self._on_change)

    def announce(self, code: str) -> None:
        """Tell every page of the tourney, in every process, that it changed (call outside
        every lock: in one process the hub's listener runs in this thread)."""
        self.bus.publish_page(page_channel(code))

    def tick(self, now: float) -> None:
        """Everything due at ``now`` for every tourney not over."""
        for code in self.store.tourney_codes(["registering", "running"]):
            with self._lock:
                try:
                    changed = self.machine.advance(code, now)
                except Exception:
                    log.exception("tourney %s could not advance", code)
                    changed = False
            if changed:
                self.announce(code)

    def keep_ticking(self, every: float) -> None:
        """``tick`` every ``every`` seconds, in a thread of its own, until ``close``."""
        def run() -> None:
            while True:
                with self._cond:
                    self._cond.wait_for(lambda: self._stopped, timeout=every)
                    if self._stopped:
                        return
                try:
                    self.tick(self.clock())
                except Unreachable:  # Redis down (logged once by the outage): the next tick tries again
                    continue
                except Exception:  # a bad moment (the database busy, say): the next tick tries again
                    log.exception("tourney timers failed; trying again")
        threading.Thread(target=run, name="tourney-ticks", daemon=True).start()

    def resume(self, now: float) -> int:
        """At start-up: fresh Ready windows and whatever is due, for every tourney not over;
        returns how many it looked at."""
        codes = self.store.tourney_codes(["registering", "running"])
        for code in codes:
            with self._lock:
                self.machine.reopen_windows(code, now)
                try:
                    self.machine.advance(code, now)
                except Exception:  # one broken tourney must not stop the others
                    log.exception("could not resume tourney %s", code)
            self.announce(code)
        return len(codes)

    def close(self) -> None:
        """Stop hearing the tables and stop the thread (what is queued is done on ``resume``)."""
        self.bus.unsubscribe(self._bus_token)
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)

    @property
    def closed(self) -> bool:
        return self._stopped

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Wait until the thread has nothing queued; returns whether it got there."""
        end = time.monotonic() + timeout
        with self._cond:
            while self._queue or self._busy:
                left = end - time.monotonic()
                if left <= 0 or self._stopped:
                    return not (self._queue or self._busy)
                self._cond.wait(left)
        return True

    def _on_change(self, change: Change) -> None:
        """A table changed (called under its lock): a finished tourney table queues its tourney."""
        snap = change.snapshots.get(None) if change.snapshots else None
        # a room's change carries room pictures, which belong to no tourney
        if not isinstance(snap, Snapshot) or not snap.around.tourney or not snap.view.match.finished:
            return
        with self._cond:
            if self._stopped:
                return
            if snap.around.tourney not in self._queue:
                self._queue.append(snap.around.tourney)
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
                    changed = self.machine.advance(code, self.clock())
                if changed:
                    self.announce(code)
            except Unreachable:
                pass  # Redis down (logged once by the outage): a tick takes the result later
            except Exception:
                log.exception("tourney %s could not take a table's result", code)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
