"""The table clocks: a service settled until nothing is pending."""

from __future__ import annotations

import time

from pools import ManualPool

from spades.tables import TableService


def settle(svc: TableService, pool: ManualPool) -> None:
    """Let the bots answer and the scheduler apply everything due, until nothing is pending."""
    svc.wake()
    end = time.monotonic() + 10
    while time.monotonic() < end:
        pool.run_all()
        if svc.idle():
            pool.run_all()
            if svc.idle():
                return
        time.sleep(0.002)
    raise AssertionError("the table did not settle")
