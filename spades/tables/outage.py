"""Redis down: what this process knows of it, said once.

Every part of a process that talks to the cluster's Redis (leases, forwarded commands,
the bus, the bot queue, the rate limits) reports here whether its last call got through.
``Outage`` keeps one fact, "Redis does not answer since T", and logs one warning when an
outage starts and one when it ends, however many requests and timers met it meanwhile.
While it lasts, a call that needs Redis is refused at once (``Unreachable``, a refusal
the site answers 503 "try again") except one probe a second, so requests neither pile up
behind connection attempts nor fill the log; the periodic jobs' own calls find the end
of it within about a second.

Imports: stdlib and ``spades.tables.errors``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from .errors import NotSaved

log = logging.getLogger(__name__)

UNREACHABLE = "The site cannot reach its other servers just now. Try again in a moment."
PROBE_S = 1.0  # while Redis is down, one call a second tries it again
CLUSTER_MEANS = ("until it does, commands for tables owned by other processes are refused with \"try again\", "
                 "this process's own tables go on, and rate limits are counted in this process")


class Unreachable(NotSaved):
    """Redis does not answer: nothing was done (or, for a forwarded command, nothing is
    known to be done: the table's version check makes trying again safe)."""

    def __init__(self, message: str = UNREACHABLE) -> None:
        super().__init__(message)


class Outage:
    """Whether the Redis at ``where`` answers, as this process last saw it."""

    def __init__(self, where: str, meaning: str = CLUSTER_MEANS, *, probe_s: float = PROBE_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.where = where
        self.meaning = meaning  # what the outage means for the site, said when it starts
        self.probe_s = probe_s
        self.clock = clock
        self._lock = threading.Lock()
        self._since: float | None = None  # when the current outage started (None: Redis answers)
        self._probed = 0.0
        self._recovered: float | None = None
        self.refused = 0  # calls refused at once during the current outage (for the end's line)

    @property
    def down(self) -> bool:
        return self._since is not None

    def refusing(self) -> bool:
        """True when a call should not even try Redis now (it is down, and a probe went out
        less than ``probe_s`` ago); otherwise the caller's call is the probe."""
        with self._lock:
            if self._since is None:
                return False
            now = self.clock()
            if now - self._probed >= self.probe_s:
                self._probed = now
                return False
            self.refused += 1
            return True

    def admit(self) -> None:
        """Raise Unreachable when ``refusing``."""
        if self.refusing():
            raise Unreachable()

    def failed(self, error: BaseException | str) -> None:
        """A call found Redis unreachable: the first such call of an outage logs it."""
        with self._lock:
            if self._since is not None:
                return
            self._since = self._probed = self.clock()
            self.refused = 0
        log.warning("Redis at %s does not answer (%s): %s", self.where, _short(error), self.meaning)

    def ok(self) -> None:
        """A call got through: an outage, if there was one, is over (logged once)."""
        if self._since is None:  # the common case: no lock taken
            return
        with self._lock:
            since, self._since = self._since, None
            if since is None:
                return
            self._recovered = self.clock()
            refused = self.refused
        log.warning("Redis at %s answers again after %.1f s (%d calls refused meanwhile)", self.where,
                    self._recovered - since, refused)

    def recovered_within(self, seconds: float) -> bool:
        """Redis came back less than ``seconds`` ago."""
        recovered = self._recovered
        return recovered is not None and self.clock() - recovered < seconds


def _short(error: BaseException | str) -> str:
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    return text if len(text) <= 200 else text[:197] + "..."
