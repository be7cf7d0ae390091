"""Rate limits (flask-limiter): join attempts, sign-in requests and code tries, and how
many tables and tourneys a person and an address may make.

One ``limiter`` for the application; views decorate themselves with
``@limiter.limit("10 per minute", error_message=...)``, keyed by the client address unless
they pass another ``key_func`` (an email address, say). A breach answers 429 with the
message, rendered by ``spades.web.site.errors`` as a friendly page or htmx fragment. A view
that decides for itself what to count calls ``hit``; one that makes something calls
``making`` ("practice", "friends" or "tourney") before it makes it, which counts the
person and the client address against the app's settings (``PRACTICE_PER_PERSON``,
``PRACTICE_PER_ADDRESS``, ``FRIENDS_TABLES_…``, ``TOURNEYS_…``: "N per hour") and says,
past either, what to do. ``network`` names the network a client address belongs to (its
/24, or an IPv6 /64 or /48), for limits that one household or one attacker's block of
addresses should meet together (the mail allowance, ``spades.web.site.allowance``).

Storage: ``RATELIMIT_STORAGE_URI`` in the app config: ``memory://`` for one process, and
the site's ``REDIS_URL`` by default when one is set, so that every process counts against
the same limits. A Redis storage is kept through ``FailoverStorage``: while Redis does not
answer, each process counts in its own memory (the limits still hold, per process), the
outage is logged once (with the cluster's, when it is the same Redis), and the counts go
back to Redis by themselves once it answers.
Tests may set ``RATELIMIT_ENABLED = False`` for an app that is not about limits.

Imports: Flask, flask-limiter and limits, redis, and ``spades.tables`` (the outage tracker).
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Sequence
from typing import Any, NamedTuple

from flask import Flask, abort, current_app
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage, MovingWindowSupport, SlidingWindowCounterSupport, Storage, storage_from_string
from limits.strategies import FixedWindowRateLimiter
from werkzeug.exceptions import TooManyRequests

from ...tables.cluster import DOWN, QUICK_RETRY, where
from ...tables.outage import Outage

# no storage here: one given to the constructor would win over ``RATELIMIT_STORAGE_URI``
limiter = Limiter(get_remote_address, headers_enabled=True)

# what one person and one client address may make: their settings and the words for them
MAKING = {
    "practice": ("PRACTICE_PER_PERSON", "PRACTICE_PER_ADDRESS", "practice tables"),
    "friends": ("FRIENDS_TABLES_PER_PERSON", "FRIENDS_TABLES_PER_ADDRESS", "tables for friends"),
    "tourney": ("TOURNEYS_PER_PERSON", "TOURNEYS_PER_ADDRESS", "tourneys"),
}


def hit(limit: str, key: str, scope: str) -> float | None:
    """Count this request under ``key`` against ``limit`` (one "N per period"), from inside a
    view that decides for itself what to count (a limit checked only after another passed,
    say): None while within it, else the seconds until it lets requests through again."""
    if not limiter.enabled:
        return None
    item = parse(limit)
    if limiter.limiter.hit(item, key, scope):
        return None
    return max(1.0, limiter.limiter.get_window_stats(item, key, scope).reset_time - time.time())


def network(address: str | None, v6_prefix: int = 64) -> str:
    """The network the client ``address`` belongs to, as one household or one hosting
    customer holds it: its /24 for IPv4 (an IPv4 address written as IPv6 included), its
    /``v6_prefix`` for IPv6; anything else is its own network.

    >>> network("198.51.100.7"), network("::ffff:198.51.100.7"), network("2001:db8:1:2:3::9")
    ('198.51.100.0/24', '198.51.100.0/24', '2001:db8:1:2::/64')
    >>> network("2001:db8:1:2:3::9", 48), network("unix:"), network(None)
    ('2001:db8:1::/48', 'unix:', '')
    """
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return address or ""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    prefix = 24 if ip.version == 4 else v6_prefix
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


def hit_shared(limit: str, scope: str, message: str) -> None:
    """Count this request against the shared limit ``scope`` from outside a view (the
    WebSocket's handshake, which answers before its view runs), keyed by the client
    address as the views' shared limits are. Aborts with 429 and ``message`` past it."""
    if hit(limit, get_remote_address(), scope) is not None:
        abort(429, description=message)


class TooMany(NamedTuple):
    """A refusal to make one more: the sentence a person reads, and the seconds to wait."""

    message: str
    wait: float

    @property
    def headers(self) -> dict[str, str]:
        return {"Retry-After": str(math.ceil(self.wait))}


def making(kind: str, person: str) -> TooMany | None:
    """Count one more ``kind`` ("practice", "friends", "tourney") made by ``person`` from
    this client address, if both are within their limits: None then (counted), else what
    to tell the person (nothing counted): ``take_all``, so requests at the same moment to
    several workers cannot all pass."""
    if not limiter.enabled:
        return None
    person_setting, address_setting, noun = MAKING[kind]
    counts = [(parse(current_app.config[address_setting]), get_remote_address(), f"make-{kind}-address"),
              (parse(current_app.config[person_setting]), person, f"make-{kind}-person")]
    n = take_all(counts)
    if n is None:
        return None
    item, key, scope = counts[n]
    wait = max(1.0, limiter.limiter.get_window_stats(item, key, scope).reset_time - time.time())
    when = in_minutes(wait)
    if n == 0:
        return TooMany(f"{item.amount} {noun} have been started from your network within an hour, the most "
                       f"one address may. Try again in {when}.", wait)
    return TooMany(f"You have started {item.amount} {noun} within an hour, the most one person may. "
                   f"Try again in {when}.", wait)


def take_all(counts: Sequence[tuple[RateLimitItem, str, str]], cost: int = 1) -> int | None:
    """Take ``cost`` from every one of ``counts`` (limit, key, scope), or from none: None,
    or the index of the first without room. Each is taken with one atomic increment of the
    limiter's storage (Redis's INCRBY across processes), never looked at first and written
    after, so requests at the same moment to several workers cannot all pass; when one has
    no room, those taken (and its own, which a fixed window counts) are given back, so a
    refused request spends nothing. (Another strategy than a fixed window, which has no
    give-back, looks first and takes after.)"""
    strategy = limiter.limiter
    if not isinstance(strategy, FixedWindowRateLimiter):
        for n, (item, key, scope) in enumerate(counts):
            if not strategy.test(item, key, scope, cost=cost):
                return n
        for item, key, scope in counts:
            strategy.hit(item, key, scope, cost=cost)
        return None
    for n, (item, key, scope) in enumerate(counts):
        if not strategy.hit(item, key, scope, cost=cost):
            for done, done_key, done_scope in counts[:n + 1]:
                strategy.storage.incr(done.key_for(done_key, done_scope), done.get_expiry(), amount=-cost)
            return n
    return None


def too_many(refusal: TooMany) -> None:
    """Abort with 429, the refusal's sentence and a Retry-After header."""
    raise TooManyRequests(description=refusal.message, retry_after=math.ceil(refusal.wait))


def in_minutes(seconds: float) -> str:
    """A wait in whole minutes, rounded up, in words ("1 minute", "12 minutes")."""
    minutes = max(1, math.ceil(seconds / 60))
    return f"{minutes} minute{'' if minutes == 1 else 's'}"


# -- Redis, and memory while it does not answer ---------------------------------------------
class FailoverStorage(Storage, MovingWindowSupport, SlidingWindowCounterSupport):
    """The limits' counts in Redis (``failover+redis://…``, any ``redis://`` URL with the
    prefix), and in this process's memory while Redis does not answer: a request is never
    refused, delayed or failed because the counts' store is away. ``outage`` says when it
    is (``spades.tables.outage``; the app gives it the cluster's when both use one Redis)."""

    STORAGE_SCHEME = ["failover+redis", "failover+rediss", "failover+redis+unix"]

    def __init__(self, uri: str, wrap_exceptions: bool = False, **options: Any) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        redis_uri = uri.split("+", 1)[1]
        quick = {"retry": QUICK_RETRY, "socket_connect_timeout": 2, "socket_timeout": 2}
        self.primary: Any = storage_from_string(redis_uri, **{**quick, **options})
        self.memory = MemoryStorage()
        self.outage = Outage(where(redis_uri), "until it does, rate limits are counted in this process")

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return self.primary.base_exceptions

    def _use(self, name: str, *args: Any) -> Any:
        if not self.outage.refusing():
            try:
                result = getattr(self.primary, name)(*args)
            except DOWN as e:
                self.outage.failed(e)
            else:
                self.outage.ok()
                return result
        return getattr(self.memory, name)(*args)

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        return self._use("incr", key, expiry, amount)

    def get(self, key: str) -> int:
        return self._use("get", key)

    def get_expiry(self, key: str) -> float:
        return self._use("get_expiry", key)

    def check(self) -> bool:
        return True  # always usable: memory stands in for Redis

    def reset(self) -> int | None:
        self.memory.reset()
        return self._use("reset")

    def clear(self, key: str) -> None:
        self.memory.clear(key)
        self._use("clear", key)

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        return self._use("acquire_entry", key, limit, expiry, amount)

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        return self._use("get_moving_window", key, limit, expiry)

    def acquire_sliding_window_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        return self._use("acquire_sliding_window_entry", key, limit, expiry, amount)

    def get_sliding_window(self, key: str, expiry: int) -> tuple[int, float, int, float]:
        return self._use("get_sliding_window", key, expiry)

    def clear_sliding_window(self, key: str, expiry: int) -> None:
        self.memory.clear_sliding_window(key, expiry)
        self._use("clear_sliding_window", key, expiry)


def init_app(app: Flask, outage: Outage | None = None) -> None:
    """The limiter for ``app``; a Redis storage fails over to memory (``outage``: the
    cluster's tracker, shared when the storage is the cluster's Redis)."""
    uri = app.config.setdefault("RATELIMIT_STORAGE_URI", "memory://")
    if uri.split("://", 1)[0] in ("redis", "rediss", "redis+unix"):
        app.config["RATELIMIT_STORAGE_URI"] = "failover+" + uri
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", True)
    limiter.init_app(app)
    storage = limiter.storage
    if isinstance(storage, FailoverStorage) and outage is not None and uri == app.config.get("REDIS_URL"):
        storage.outage = outage

