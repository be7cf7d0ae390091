"""Several processes, one owner per table: Redis carries the bus, the owners' leases and
the commands that arrive at a process that does not own their table.

Set ``SPADES_REDIS_URL`` and every process of the site (workers of one machine, or
machines) joins one cluster; without it nothing here runs and one process owns every
table, as always.

- **One owner per table** (``Cluster.claim``): a table's actor (its state, its lock, its
  bots and its clocks) lives in the process holding the table's lease, a Redis key
  ``spades:owner:<CODE>`` set with ``NX`` and an expiry of ``lease_s`` seconds. The owner
  renews its leases every ``lease_s / 3``; a lease it fails to renew (it was paused past
  the expiry and another process took the table) drops the table from its memory at
  once. A process that dies stops renewing: ``lease_s`` later the lease is gone, and the
  next process that needs the table (a command, or the sweep of unfinished tables every
  process runs each second) claims it and loads it from the database, where every
  accepted move was committed before anyone was told. Its bots and clocks carry on from
  the stored deadlines; the table's version check (a move is stored under its
  ``(match, version)`` key) refuses any move of an old owner that did not know it had
  lost the lease, so nothing fires twice. A lease found missing at renewal (Redis
  restarted, or could not be reached for longer than the lease, or the table was made
  while it was down) is taken again: nobody else holds the table then.
- **Commands are forwarded to the owner** (``Cluster.forward``): pushed on the owner's
  inbox list with a deadline, answered on a reply list. The owner alone applies them, so
  a table's commands are decided in one place, in order, against the state in memory,
  exactly as with one process. An owner that does not answer in ``forward_s`` is dead or
  stuck: the caller waits for its lease to lapse and claims the table. A request found
  in an inbox after its deadline is dropped (its sender has given up and said so).
- **The bus across processes** (``ClusterBus``): a change is handed to this process's
  subscribers at once, as before, and published on the Redis channel
  ``spades:changes`` by a sender thread (in order: one thread, one connection). Every
  other process hands it to its own subscribers; its sockets render it (a room's change
  carries each member's picture, as a table's carries each seat's). Page channels (a
  tourney's page) travel on ``spades:pages``.

**Redis down** (``spades.tables.outage``): every call here that meets an unreachable Redis
reports it to the process's ``Outage`` (one warning when it starts, one when it ends) and
raises ``Unreachable``, a refusal the site answers 503 "try again"; while it lasts such
calls are refused at once but for one probe a second. The tables this process owns go
on (their changes reach this process's sockets only); the bus drops what it cannot send.

Values cross as JSON (``encode``/``decode``) of the table service's own dataclasses:
the values of ``spades.tables.values`` and every declared command
(``spades.tables.registry``); never pickle.

Imports: stdlib, redis, ``spades.storage`` (its row types), ``spades.rules`` (its
refusal) and the ``spades.tables`` values, errors and outage tracker.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import queue
import secrets
import socket
import threading
import time
from collections.abc import Callable
from concurrent import futures as cf
from typing import Any
from urllib.parse import urlsplit

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from ..rules import IllegalAction
from ..rules_config import Rules
from ..storage import ChatRow, SeatRow
from ..views import MatchView, OwnView, SeatView, Trick
from . import commands, errors, registry, values  # noqa: F401 - commands: every command declared
from .bus import Bus
from .outage import Outage, Unreachable
from .registry import Command
from .values import Change, Who

log = logging.getLogger(__name__)

PREFIX = "spades:"
CHANGES = PREFIX + "changes"
PAGES = PREFIX + "pages"
LEASE_S = 3.0  # a dead owner's tables move to another process this long after it died
FORWARD_S = 5.0  # a forwarded command not answered in this long: the owner counts as gone
# Redis not answering: one quick retry, not redis-py's default backoff of seconds, so that a
# request or a timer meets an outage in milliseconds (``Outage`` then refuses at once)
QUICK_RETRY = Retry(ExponentialBackoff(cap=0.1, base=0.01), 1)
DOWN = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)  # Redis unreachable (not a bad call)


def client(url: str, **options: Any) -> redis.Redis:
    """A Redis client that gives up quickly when Redis does not answer."""
    return redis.Redis.from_url(url, retry=QUICK_RETRY, **options)


def where(url: str) -> str:
    """The Redis server of ``url`` as a log line may name it (never its password)."""
    parts = urlsplit(url)
    return f"{parts.hostname or 'localhost'}:{parts.port or 6379}{parts.path or ''}"

# -- values as JSON ------------------------------------------------------------------------
_TYPES: dict[str, type] = {cls.__name__: cls for cls in (
    values.Player, values.BotSeat, values.Timeout, values.Server, values.Event, values.Dealt, values.Looked,
    values.BidMade, values.Played, values.Announced, values.Around, values.Snapshot,
    values.Member, values.RoomSnapshot, values.Said, ChatRow, SeatRow, Rules, SeatView, MatchView, OwnView, Trick,
    *(d.cls for d in registry.every()))}
_ERRORS: dict[str, type[Exception]] = {cls.__name__: cls for cls in (
    errors.Refused, errors.TableNotFound, errors.NotStarted, errors.NotSeated, errors.NotSaved, errors.Busy,
    errors.BadAction, errors.NotHost, errors.NotWatchable, errors.TableClosed, errors.TableFull, errors.AtLimit,
    errors.Removed,
    errors.BadPlayer, errors.TalkRefused, errors.TooFast, Unreachable, IllegalAction)}


def encode(obj: Any) -> Any:
    """``obj`` as JSON-ready values: tuples, sets, dicts with other keys than text, and the
    registered dataclasses are tagged so that ``decode`` gives them back as they were."""
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, list):
        return [encode(x) for x in obj]
    if isinstance(obj, tuple):
        return {"~t": [encode(x) for x in obj]}
    if isinstance(obj, (set, frozenset)):
        return {"~s": [encode(x) for x in obj]}
    if dataclasses.is_dataclass(obj) and type(obj).__name__ in _TYPES:
        return {"~c": type(obj).__name__,
                "f": {f.name: encode(getattr(obj, f.name)) for f in dataclasses.fields(obj)}}
    if isinstance(obj, dict):
        if all(isinstance(k, str) and not k.startswith("~") for k in obj):
            return {k: encode(v) for k, v in obj.items()}
        return {"~d": [[encode(k), encode(v)] for k, v in obj.items()]}
    raise TypeError(f"cannot send a {type(obj).__name__} to another process")


def decode(obj: Any) -> Any:
    """The value ``encode`` was given. Raises KeyError for a type not in the registry."""
    if isinstance(obj, list):
        return [decode(x) for x in obj]
    if not isinstance(obj, dict):
        return obj
    if "~t" in obj:
        return tuple(decode(x) for x in obj["~t"])
    if "~s" in obj:
        return frozenset(decode(x) for x in obj["~s"])
    if "~c" in obj:
        return _TYPES[obj["~c"]](**{k: decode(v) for k, v in obj["f"].items()})
    if "~d" in obj:
        return {decode(k): decode(v) for k, v in obj["~d"]}
    return {k: decode(v) for k, v in obj.items()}


def encode_change(change: Change, origin: str) -> str:
    return json.dumps({"origin": origin, "code": change.code, "seq": change.seq, "command": change.command,
                       "snapshots": encode(change.snapshots), "persons": encode(change.persons),
                       "said": encode(change.said)},
                      separators=(",", ":"))


def decode_change(data: dict) -> Change:
    return Change(data["code"], data["seq"], data["command"], decode(data["snapshots"]), decode(data["persons"]),
                  decode(data.get("said")))


def encode_error(e: Exception) -> dict:
    name = type(e).__name__
    if isinstance(e, errors.Stale):
        return {"error": "Stale", "message": str(e), "version": e.version}
    if isinstance(e, errors.TooFast):
        return {"error": "TooFast", "message": str(e), "retry_after": e.retry_after}
    if name in _ERRORS:
        return {"error": name, "message": str(e)}
    log.error("forwarded command failed: %r", e)
    return {"error": "NotSaved", "message": "The table could not take that just now. Try again."}


def decode_error(data: dict) -> Exception:
    if data["error"] == "Stale":
        return errors.Stale(data["message"], data["version"])
    if data["error"] == "TooFast":
        return errors.TooFast(data["message"], data["retry_after"])
    return _ERRORS.get(data["error"], errors.NotSaved)(data["message"])


class OwnerGone(Exception):
    """The table's owner did not answer in time: it is dead or stuck."""


class NotOwner(Exception):
    """This process was asked to apply a command for a table it no longer owns."""


# -- the cluster -----------------------------------------------------------------------------
_CLAIM = """
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return ARGV[1]
end
return v
"""
_RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  local v = redis.call('GET', key)
  if v == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  elseif not v then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
  else
    table.insert(lost, key)
  end
end
return lost
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

Handler = Callable[[str, Who, Command, bool], tuple[Any, Change | None]]


class Cluster:
    """This process among the site's processes: its id, its leases, its inbox."""

    def __init__(self, url: str, *, lease_s: float = LEASE_S, forward_s: float = FORWARD_S,
                 workers: int = 32) -> None:
        self.url = url
        self.redis = client(url, socket_timeout=max(forward_s + 2, 10), socket_connect_timeout=5,
                            health_check_interval=30)
        self.redis.ping()
        self.outage = Outage(where(url))
        self.id = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self.lease_s = lease_s
        self.forward_s = forward_s
        self._claim = self.redis.register_script(_CLAIM)
        self._renew = self.redis.register_script(_RENEW)
        self._release = self.redis.register_script(_RELEASE)
        self._held: set[str] = set()
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._pool = cf.ThreadPoolExecutor(workers, thread_name_prefix="cluster-inbox")

    # -- Redis, down or up ---------------------------------------------------------------
    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)``, a call to Redis, reported to ``outage``. Raises
        Unreachable when Redis does not answer (or is known not to, between probes)."""
        self.outage.admit()
        try:
            result = fn(*args, **kwargs)
        except DOWN as e:
            self.outage.failed(e)
            raise Unreachable() from None
        self.outage.ok()
        return result

    # -- leases --------------------------------------------------------------------------
    @staticmethod
    def _key(code: str) -> str:
        return f"{PREFIX}owner:{code}"

    def claim(self, code: str) -> str | None:
        """None when this process owns table ``code`` now (it was free, or already ours);
        else the id of the process that owns it. Raises Unreachable."""
        owner = self.call(self._claim, keys=[self._key(code)], args=[self.id, int(self.lease_s * 1000)])
        owner = owner.decode() if isinstance(owner, bytes) else owner
        if owner != self.id:
            return owner
        with self._lock:
            self._held.add(code)
        return None

    def hold_new(self, code: str) -> None:
        """Table ``code`` was just made here while Redis could not be reached: nobody else
        can know of it, so it is this process's; its lease is taken at the next renewal
        once Redis answers."""
        with self._lock:
            self._held.add(code)

    def owners(self, codes: list[str]) -> list[str | None]:
        """Who owns each table (None: nobody now). Raises Unreachable."""
        if not codes:
            return []
        owners: list[bytes | None] = self.call(self.redis.mget, [self._key(c) for c in codes])
        return [o.decode() if o else None for o in owners]

    def release(self, code: str) -> None:
        """This process lets the table go (it left memory): the next process to need it claims it."""
        with self._lock:
            self._held.discard(code)
        try:
            self.call(self._release, keys=[self._key(code)], args=[self.id])
        except Unreachable:
            pass  # its lease runs out by itself (the outage is logged once)
        except redis.RedisError:
            log.warning("could not release %s; its lease runs out by itself", code)

    def renew(self) -> list[str]:
        """Renew every lease this process holds (taking again any found missing); returns
        the tables it lost (another process holds them now). While Redis is down it tries
        once a second, so the outage's end is noticed even with no table held. Raises
        Unreachable (nothing is known to be lost then)."""
        with self._lock:
            held = sorted(self._held)
        if not held:
            if self.outage.down:
                self.call(self.redis.ping)
            return []
        lost = self.call(self._renew, keys=[self._key(c) for c in held], args=[self.id, int(self.lease_s * 1000)])
        codes = [k.decode()[len(PREFIX + "owner:"):] for k in lost]
        with self._lock:
            self._held.difference_update(codes)
        return codes

    def holds(self, code: str) -> bool:
        with self._lock:
            return code in self._held

    # -- forwarded commands --------------------------------------------------------------
    def forward(self, owner: str, code: str, who: Who, command: Command,
                want_change: bool) -> tuple[Any, Change | None]:
        """Have ``owner`` apply the command; its answer, or its refusal raised here.
        Raises OwnerGone when it does not answer within ``forward_s``, Unreachable when
        Redis does not answer."""
        rid = secrets.token_hex(8)
        reply = f"{PREFIX}reply:{rid}"
        request = json.dumps({"code": code, "who": encode(who), "command": encode(command),
                              "change": want_change, "reply": reply,
                              "deadline": time.time() + self.forward_s}, separators=(",", ":"))
        inbox = f"{PREFIX}inbox:{owner}"
        pipe = self.redis.pipeline()
        pipe.rpush(inbox, request)
        pipe.pexpire(inbox, int(self.forward_s * 4000))  # a dead owner's inbox goes away
        self.call(pipe.execute)
        answer: Any = self.call(self.redis.blpop, [reply], timeout=self.forward_s)
        if answer is None:
            raise OwnerGone(owner)
        data = json.loads(answer[1])
        if "error" in data:
            if data["error"] == "NotOwner":
                raise NotOwner(code)
            raise decode_error(data)
        change = decode_change(data["change"]) if data.get("change") else None
        return decode(data["snapshot"]), change

    def serve(self, handler: Handler) -> None:
        """Answer the commands other processes forward here, each in a worker of its own,
        until ``close``."""
        threading.Thread(target=self._serve, args=(handler,), name="cluster-inbox", daemon=True).start()

    def _serve(self, handler: Handler) -> None:
        inbox = f"{PREFIX}inbox:{self.id}"
        conn = client(self.url, socket_timeout=None, socket_connect_timeout=5)
        while not self._closed.is_set():
            try:
                item: Any = conn.blpop([inbox], timeout=1)
            except DOWN as e:
                if not self._closed.is_set():
                    self.outage.failed(e)
                    self._closed.wait(0.5)
                continue
            except redis.RedisError:
                if not self._closed.is_set():
                    log.warning("the inbox could not be read; trying again")
                    self._closed.wait(0.5)
                continue
            self.outage.ok()
            if item is not None and not self._closed.is_set():
                self._pool.submit(self._answer, handler, item[1])

    def _answer(self, handler: Handler, raw: bytes) -> None:
        request = json.loads(raw)
        if time.time() > request["deadline"]:
            return  # its sender gave up; applying it now would surprise them
        try:
            snap, change = handler(request["code"], decode(request["who"]), decode(request["command"]),
                                   request["change"])
            answer: dict = {"snapshot": encode(snap)}
            if change is not None:
                answer["change"] = json.loads(encode_change(change, self.id))
        except NotOwner:
            answer = {"error": "NotOwner"}
        except Exception as e:  # every refusal travels back to be raised at the sender
            answer = encode_error(e)
        try:
            pipe = self.redis.pipeline()
            pipe.rpush(request["reply"], json.dumps(answer, separators=(",", ":")))
            pipe.pexpire(request["reply"], int(self.forward_s * 2000))
            self.call(pipe.execute)
        except Unreachable:
            pass  # its sender meets the outage too, and says "try again"
        except redis.RedisError:
            log.warning("could not answer a forwarded command for %s", request["code"])

    def every(self, seconds: float, job: Callable[[], object], name: str) -> None:
        """Run ``job`` every ``seconds`` until ``close`` (a failure is logged, and the next
        round tries again; Redis not answering is the outage's, logged once)."""
        def run() -> None:
            while not self._closed.wait(seconds):
                try:
                    job()
                except Unreachable:
                    continue
                except Exception:
                    log.exception("%s failed; trying again", name)
        threading.Thread(target=run, name=name, daemon=True).start()

    def shared_lock(self, name: str) -> SharedLock:
        """A re-entrant lock that one thread of one process of the cluster holds at a time."""
        return SharedLock(self, name)

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def close(self) -> None:
        """Stop serving and let every lease go (a clean stop hands tables over at once)."""
        if self._closed.is_set():
            return
        self._closed.set()
        with self._lock:
            held = list(self._held)
        for code in held:
            self.release(code)
        self._pool.shutdown(wait=False, cancel_futures=True)


class SharedLock:
    """A re-entrant lock across the cluster: this process's own lock, and while a thread
    holds it at its outermost level, a Redis lock (which expires after ``timeout`` s, so a
    process that dies holding it frees it). Raises TimeoutError when the Redis lock is not
    had within ``wait`` s, Unreachable when Redis does not answer."""

    def __init__(self, cluster: Cluster, name: str, timeout: float = 30.0, wait: float = 30.0) -> None:
        self._cluster = cluster
        self._local = threading.RLock()
        self._depth = 0  # touched only by the thread holding ``_local``
        self._wait = wait
        self._redis = cluster.redis.lock(f"{PREFIX}lock:{name}", timeout=timeout, thread_local=False)

    def __enter__(self) -> SharedLock:
        self._local.acquire()
        if self._depth == 0:
            try:
                if not self._cluster.call(self._redis.acquire, blocking=True, blocking_timeout=self._wait):
                    raise TimeoutError("another process holds the lock")
            except BaseException:
                self._local.release()
                raise
        self._depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        try:
            if self._depth == 0:
                try:
                    self._cluster.call(self._redis.release)
                except redis.exceptions.LockError:
                    log.warning("a shared lock expired while held")
                except Unreachable:
                    pass  # it expires by itself (the outage is logged once)
        finally:
            self._local.release()


# -- the bus ------------------------------------------------------------------------------------
class ClusterBus(Bus):
    """The bus of one process in a cluster: local subscribers as before, plus every other
    process's changes from Redis, and this process's changes sent there."""

    def __init__(self, cluster: Cluster) -> None:
        super().__init__()
        self.cluster = cluster
        self._out: queue.Queue[tuple[str, str] | None] = queue.Queue()
        self._listening = threading.Event()
        threading.Thread(target=self._send, name="cluster-bus-send", daemon=True).start()
        threading.Thread(target=self._listen, name="cluster-bus-listen", daemon=True).start()
        if not self._listening.wait(10):  # the other processes' changes are heard from the start
            log.warning("the bus is not listening to Redis yet")

    def publish(self, change: Change) -> None:
        super().publish(change)
        self._out.put((CHANGES, change))  # type: ignore[arg-type]  # encoded off the table's lock

    def publish_page(self, channel: str) -> None:
        super().publish_page(channel)
        self._out.put((PAGES, channel))

    def _send(self) -> None:
        while True:
            item = self._out.get()
            if item is None:
                return
            topic, what = item
            try:
                if topic == CHANGES:
                    payload = encode_change(what, self.cluster.id)  # type: ignore[arg-type]
                else:
                    payload = json.dumps({"origin": self.cluster.id, "channel": what})
                self.cluster.call(self.cluster.redis.publish, topic, payload)
            except Unreachable:
                continue  # dropped: the other processes' sockets hear the next change, a full picture
            except Exception:
                log.exception("could not send a change to the other processes")

    def _listen(self) -> None:
        while not self.cluster.closed:
            try:
                conn = client(self.cluster.url, socket_timeout=None, socket_connect_timeout=5)
                pubsub = conn.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(CHANGES, PAGES)
                pubsub.get_message(timeout=5)  # the subscription's confirmations: listening now
                pubsub.get_message(timeout=5)
                self._listening.set()
                self.cluster.outage.ok()
                for message in pubsub.listen():
                    if self.cluster.closed:
                        return
                    self._deliver(message)
            except DOWN as e:
                if not self.cluster.closed:
                    self.cluster.outage.failed(e)
                    time.sleep(0.5)
            except redis.RedisError:
                if not self.cluster.closed:
                    log.warning("the bus could not read Redis; listening again")
                    time.sleep(0.5)

    def _deliver(self, message: dict) -> None:
        try:
            data = json.loads(message["data"])
            if data["origin"] == self.cluster.id:
                return
            topic = message["channel"].decode() if isinstance(message["channel"], bytes) else message["channel"]
            if topic == PAGES:
                super().publish_page(data["channel"])
            else:
                super().publish(decode_change(data))
        except Exception:
            log.exception("a change from another process could not be read")

    def close(self) -> None:
        self._out.put(None)
