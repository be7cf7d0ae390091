"""Bot workers elsewhere: decisions through a Redis stream to worker processes.

    python -m spades.bots.worker --redis redis://host:6379/0 [--processes N] [--analyses]

With ``SPADES_REDIS_URL`` set, the site's scheduler sends each decision (the seat view,
level, seed and budget of ``spades.bots.choose``) to the stream ``spades:bots`` whenever
at least one worker is alive, and reads the answer from its own reply list; without a
live worker it thinks in its own process pool, as without Redis.

- **Workers** (this module's ``main``) read the stream as members of one consumer group,
  each decision going to one of them, answer on the asker's reply list, and acknowledge.
  Each announces itself every second (``spades:bots:workers``, a sorted set of last
  beats): the site counts live workers to know how many decisions to have in flight.
- **A worker that dies mid-decision loses nothing**: its decision stays pending in the
  group, and another worker claims it (``XAUTOCLAIM``) once it has been idle
  ``CLAIM_AFTER_S`` and its deadline is still ahead, and answers it. If no worker can in
  time, the site's think limit plays the fallback move, so the table always moves.
- A decision whose deadline has passed is dropped unanswered (the site has moved on).
- **Analysts** (``--analyses``): workers of their own that analyse finished matches' hands
  (``spades.bots.analysis.analyse_hand``) from the stream ``spades:analyses`` for the
  site's ``spades.tables.analyses.AnalysisQueue`` (``AnalysisWorkers``), announcing
  themselves in ``spades:analyses:workers``; a part of a hand takes seconds, so a silent
  analyst's part is taken over after ``ANALYSIS_CLAIM_AFTER_S``. They never take a bot's
  decision, so no table waits behind an analysis.

Imports: stdlib, redis and ``spades.bots``.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import logging
import multiprocessing
import os
import secrets
import socket
import threading
import time
from typing import Any

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from . import choose
from .analysis import analyse_hand

log = logging.getLogger(__name__)

STREAM = "spades:bots"
GROUP = "workers"
WORKERS = "spades:bots:workers"  # sorted set: worker id -> last beat (epoch s)
BEAT_S = 1.0
ALIVE_S = 3.0  # a worker not heard from for this long counts as gone
CLAIM_AFTER_S = 2.0  # a decision pending this long with its worker silent is taken over
STREAM_MAX = 10000  # the stream keeps about this many entries
ANALYSES = "spades:analyses"  # the analysts' stream
ANALYSTS = "spades:analyses:workers"  # sorted set: analyst id -> last beat
ANALYSIS_CLAIM_AFTER_S = 120.0  # a part of a hand takes seconds; its analyst is gone after this
ANALYSIS_DEADLINE_S = 600.0  # a part not started by then is dropped (the site has given up on it)
QUICK_RETRY = Retry(ExponentialBackoff(cap=0.1, base=0.01), 1)  # not redis-py's default backoff of seconds
DOWN = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)  # Redis unreachable


def live_workers(r: redis.Redis, now: float | None = None, beats: str = WORKERS) -> int:
    now = time.time() if now is None else now
    count: Any = r.zcount(beats, now - ALIVE_S, "+inf")  # redis-py types a sync client's answers as awaitable too
    return int(count)


def ensure_group(r: redis.Redis, stream: str = STREAM) -> None:
    try:
        r.xgroup_create(stream, GROUP, id="0", mkstream=True)
    except redis.ResponseError as e:
        if "BUSYGROUP" not in str(e):
            raise


class BotQueue(cf.Executor):
    """The site's side: ``submit(choose, view, level, seed, budget)`` as a future answered
    by a worker through Redis. ``workers()``: how many are alive (0: use the local pool).

    ``outage`` (the site's ``spades.tables.outage.Outage``, or None): told when Redis does
    not answer and when it does again, and asked first (``refusing``) so that while Redis
    is down the scheduler counts no workers at once instead of waiting on Redis."""

    stream = STREAM
    beats = WORKERS

    def __init__(self, url: str, deadline_s: float = 5.0, outage: Any = None) -> None:
        self.url = url
        # one quick retry: the scheduler asks for ``workers()`` under its lock
        self.redis = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5, retry=QUICK_RETRY)
        self.outage = outage
        self.deadline_s = deadline_s
        self.reply = f"spades:bots:reply:{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self._futures: dict[str, cf.Future] = {}
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._alive = (0.0, 0)  # (checked at, count)
        threading.Thread(target=self._read, name="bot-replies", daemon=True).start()

    def workers(self) -> int:
        checked, count = self._alive
        now = time.monotonic()
        if now - checked >= 1.0:
            if self.outage is not None and self.outage.refusing():
                count = 0
            else:
                try:
                    count = live_workers(self.redis, beats=self.beats)
                    self._answered()
                except redis.RedisError as e:
                    self._lost(e)
                    count = 0
            self._alive = (now, count)
        return count

    def _lost(self, error: Exception) -> None:
        if self.outage is not None and isinstance(error, DOWN):
            self.outage.failed(error)  # said once for the whole outage

    def _answered(self) -> None:
        if self.outage is not None:
            self.outage.ok()

    def submit(self, fn, /, *args, **kwargs) -> cf.Future:  # noqa: ANN001
        if fn is not choose:
            raise ValueError("only bot decisions go to the workers")
        view, level, seed, budget = args
        rid = secrets.token_hex(8)
        future: cf.Future = cf.Future()
        with self._lock:
            self._futures[rid] = future
        job = {"id": rid, "reply": self.reply, "view": view, "level": level, "seed": seed, "budget": budget,
               "deadline": time.time() + self.deadline_s}
        return self._send(rid, future, job)

    def _send(self, rid: str, future: cf.Future, job: dict) -> cf.Future:
        try:
            self.redis.xadd(self.stream, {"job": json.dumps(job, separators=(",", ":"))}, maxlen=STREAM_MAX,
                            approximate=True)
        except redis.RedisError as e:
            self._lost(e)
            with self._lock:
                self._futures.pop(rid, None)
            future.set_exception(e)
        return future

    def _read(self) -> None:
        conn = redis.Redis.from_url(self.url, socket_timeout=None, socket_connect_timeout=5, retry=QUICK_RETRY)
        while not self._closed.is_set():
            try:
                item: Any = conn.blpop([self.reply], timeout=1)
            except redis.RedisError as e:
                if not self._closed.is_set():
                    if self.outage is None or not isinstance(e, DOWN):
                        log.warning("bot replies: lost Redis; trying again")
                    self._lost(e)
                    self._closed.wait(0.5)
                continue
            self._answered()
            if item is None:
                continue
            answer = json.loads(item[1])
            with self._lock:
                future = self._futures.pop(answer["id"], None)
            if future is None or not future.set_running_or_notify_cancel():
                continue
            if "error" in answer:
                future.set_exception(RuntimeError(answer["error"]))
            else:
                future.set_result(answer["action"])

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._closed.set()
        with self._lock:
            pending, self._futures = list(self._futures.values()), {}
        for future in pending:
            future.cancel()


class AnalysisWorkers(BotQueue):
    """The site's side for analyses: ``submit(analyse_hand, record, hand, budget_s, seed,
    part)`` as a future answered by an analyst (``--analyses``) through Redis;
    ``workers()``: how many analysts are alive (0: the site analyses in its own processes)."""

    stream = ANALYSES
    beats = ANALYSTS

    def __init__(self, url: str, deadline_s: float = ANALYSIS_DEADLINE_S, outage: Any = None) -> None:
        super().__init__(url, deadline_s, outage)

    def submit(self, fn, /, *args, **kwargs) -> cf.Future:  # noqa: ANN001
        if fn is not analyse_hand:
            raise ValueError("only a hand's analysis goes to the analysts")
        record, hand, budget, seed, part = args
        rid = secrets.token_hex(8)
        future: cf.Future = cf.Future()
        with self._lock:
            self._futures[rid] = future
        job = {"id": rid, "reply": self.reply, "kind": "analysis", "record": record, "hand": hand,
               "budget": budget, "seed": seed, "part": part, "deadline": time.time() + self.deadline_s}
        return self._send(rid, future, job)


# -- the worker --------------------------------------------------------------------------------
def serve(url: str, name: str, stop: threading.Event | None = None, analyses: bool = False) -> None:
    """One worker: decisions (``analyses``: hands to analyse) from the stream until
    ``stop`` (or forever)."""
    stop = stop or threading.Event()
    r = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5)
    stream, beats = (ANALYSES, ANALYSTS) if analyses else (STREAM, WORKERS)
    claim_after = ANALYSIS_CLAIM_AFTER_S if analyses else CLAIM_AFTER_S
    ensure_group(r, stream)
    beat = 0.0
    while not stop.is_set():
        try:
            now = time.time()
            if now - beat >= BEAT_S:
                r.zadd(beats, {name: now})
                r.zremrangebyscore(beats, "-inf", now - 60)
                beat = now
            # a silent worker's decision first, then a new one (redis-py types a sync
            # client's answers as awaitable too: hence Any, and the ignore below)
            claim: Any = r.xautoclaim(stream, GROUP, name, min_idle_time=int(claim_after * 1000), count=1)
            _, claimed, _ = claim
            entries = claimed or [e for _, batch in (r.xreadgroup(GROUP, name, {stream: ">"}, count=1, block=1000)
                                                     or []) for e in batch]  # type: ignore[union-attr]  # redis-py's types
            for entry_id, fields in entries:
                if fields:  # a claimed entry trimmed from the stream meanwhile has none
                    answer(r, json.loads(fields[b"job"]))
                r.xack(stream, GROUP, entry_id)
        except redis.RedisError:
            log.warning("worker %s lost Redis; trying again", name)
            stop.wait(0.5)


def answer(r: redis.Redis, job: dict) -> None:
    """Think about one decision and answer it, unless its asker has given up on it."""
    if time.time() > job["deadline"]:
        return
    try:
        if job.get("kind") == "analysis":
            result: object = analyse_hand(job["record"], job["hand"], job["budget"], job["seed"], job["part"])
        else:
            result = choose(job["view"], job["level"], job["seed"], job["budget"])
        reply = {"id": job["id"], "action": result}
    except Exception as e:  # the site plays its fallback move (an analysis is asked for again)
        log.exception("decision failed")
        reply = {"id": job["id"], "error": f"{type(e).__name__}: {e}"}
    pipe = r.pipeline()
    pipe.rpush(job["reply"], json.dumps(reply))
    pipe.expire(job["reply"], 60)
    pipe.execute()


def _process(url: str, name: str, analyses: bool = False) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    serve(url, name, analyses=analyses)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m spades.bots.worker", description=__doc__.splitlines()[0])
    parser.add_argument("--redis", default=os.environ.get("SPADES_REDIS_URL"),
                        help="the site's Redis (default: SPADES_REDIS_URL)")
    parser.add_argument("--processes", type=int, default=1, help="worker processes (one decision each at a time)")
    parser.add_argument("--analyses", action="store_true",
                        help="analyse finished matches' hands instead of deciding bots' moves")
    args = parser.parse_args(argv)
    if not args.redis:
        parser.error("give --redis or set SPADES_REDIS_URL")
    base = f"{socket.gethostname()}:{os.getpid()}"
    if args.processes == 1:
        _process(args.redis, f"{base}:0", args.analyses)
        return
    procs = [multiprocessing.get_context("spawn").Process(target=_process,
                                                          args=(args.redis, f"{base}:{n}", args.analyses))
             for n in range(args.processes)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()


if __name__ == "__main__":
    main()
