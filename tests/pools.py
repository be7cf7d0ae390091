"""A bot pool the test drives: the bots answer only when the test runs them, so a bot
never wins a race the test did not ask for (and the think limit never runs out)."""

from __future__ import annotations

import concurrent.futures as cf
import threading


class ManualPool(cf.Executor):
    """Work submitted waits until ``run_all``."""

    def __init__(self) -> None:
        self.pending: list[tuple[cf.Future, object, tuple]] = []
        self.lock = threading.Lock()

    def submit(self, fn, *args, **kwargs):
        future: cf.Future = cf.Future()
        with self.lock:
            self.pending.append((future, fn, args))
        return future

    def run_all(self) -> int:
        """Answer everything submitted so far; how many."""
        with self.lock:
            items, self.pending = self.pending, []
        for future, fn, args in items:
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args))
                except Exception as e:  # pragma: no cover - a bot that fails plays its fallback
                    future.set_exception(e)
        return len(items)
