"""Bot workers through a real Redis: a worker process answers the site's decisions with
legal actions; a worker killed in the middle of a decision loses nothing (another takes
it over and answers); a table whose worker is gone still moves, by its fallback move in
time."""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import redis
from helpers.cluster import wait_for

from spades import bots
from spades.bots.worker import GROUP, STREAM, WORKERS, BotQueue, live_workers
from spades.rules import PLAYING, Match, parse_action
from spades.rules_config import Rules
from spades.storage import Store
from spades.tables import Player, TableService
from spades.tables.cluster import Cluster
from spades.views import seat_view

ROOT = Path(__file__).resolve().parent.parent


def start_worker(url: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "spades.bots.worker", "--redis", url], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_a_worker_answers_the_sites_decisions_with_legal_actions(redis_url):
    worker = start_worker(redis_url)
    queue = BotQueue(redis_url, deadline_s=20)
    try:
        assert wait_for(lambda: queue.workers() == 1)
        views = [seat_view(Match(Rules(), f"w{n}"), Match(Rules(), f"w{n}").to_act) for n in range(5)]
        futures = [queue.submit(bots.choose, v, "hard", n, 0.05) for n, v in enumerate(views)]
        for v, f in zip(views, futures):
            assert f.result(timeout=20) in v["legal"]
    finally:
        queue.shutdown()
        worker.kill()
        worker.wait(10)


def test_a_worker_killed_mid_decision_loses_nothing(redis_url):
    r = redis.Redis.from_url(redis_url)
    first = start_worker(redis_url)
    queue = BotQueue(redis_url, deadline_s=30)
    second = None
    try:
        assert wait_for(lambda: queue.workers() == 1)
        match = Match(Rules(), "killed")
        while match.phase != PLAYING:  # Hard searches its cards (it bids by the model at once)
            match.apply(match.to_act, parse_action(str(bots.choose(seat_view(match, match.to_act), "normal"))))
        view = seat_view(match, match.to_act)
        future = queue.submit(bots.choose, view, "hard", 1, 3.0)  # thinks for seconds
        assert wait_for(lambda: r.xpending(STREAM, GROUP)["pending"] == 1)  # taken by the first worker
        os.kill(first.pid, signal.SIGKILL)
        first.wait(10)
        second = start_worker(redis_url)
        assert future.result(timeout=25) in view["legal"]  # the second took it over
    finally:
        queue.shutdown()
        for w in (first, second):
            if w is not None:
                w.kill()
                w.wait(10)


def test_a_table_whose_worker_is_gone_still_moves_in_time(redis_url, tmp_path):
    r = redis.Redis.from_url(redis_url)
    r.zadd(WORKERS, {"gone": time.time() + 60})  # a worker that said it was alive, then died
    seeds = (f"gone-{n}" for n in itertools.count())
    pool = cf.ThreadPoolExecutor(2)
    service = TableService(Store(str(tmp_path / "g.db")), pool=pool, think_limit=1.0,
                           play_delays={"slow": 0, "normal": 0, "fast": 0}, new_seed=lambda: next(seeds),
                           cluster=Cluster(redis_url))
    try:
        assert live_workers(r) == 1
        code = service.create_practice("p0", "Ann", Rules(), "hard")
        # the bots' decisions go to the stream, where nobody answers: each seat's fallback
        # move is played once its think limit is up, and it is Ann's turn again
        ann_moves = 0
        while service.snapshot(code, "p0").view.to_json()["version"] - ann_moves < 3:
            assert wait_for(lambda: service.snapshot(code, "p0").view.to_json()["to_act"] == 0, timeout=15)
            view = service.snapshot(code, "p0").view.to_json()
            action = "look" if "look" in view["legal"] else (3 if 3 in view["legal"] else view["legal"][0])
            service.act(code, Player("p0"), action, view["version"])
            ann_moves += 1
        assert r.xlen(STREAM) >= 1
    finally:
        service.close()
        pool.shutdown(wait=False, cancel_futures=True)


def test_an_analyst_process_analyses_a_finished_match(redis_url, tmp_path):
    """With an analyst alive (``--analyses``), a match's hands go to it through Redis, not
    to the site's own processes (here a pool that never runs anything), and are stored."""
    from helpers.analysis import nil_blunder_record
    from pools import ManualPool

    from spades.bots.worker import ANALYSTS, AnalysisWorkers
    from spades.tables.analyses import AnalysisQueue

    analyst = subprocess.Popen([sys.executable, "-m", "spades.bots.worker", "--redis", redis_url, "--analyses"],
                               cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    store = Store(str(tmp_path / "a.db"))
    local = ManualPool()
    queue = AnalysisQueue(store, local, budget_s=0.01, remote=AnalysisWorkers(redis_url))
    try:
        assert wait_for(lambda: live_workers(redis.Redis.from_url(redis_url), beats=ANALYSTS) == 1)
        assert live_workers(redis.Redis.from_url(redis_url)) == 0  # an analyst takes no bot decision
        queue.ask("ANL", 1, nil_blunder_record())
        assert queue.wait("ANL", 1, 60)
        assert not local.pending
        steps = store.analysis("ANL", 1)[0]["steps"]
        assert len(steps) == 56 and steps[5]["action"] == "AH" and steps[5]["cost"] > 0
    finally:
        queue.close()
        store.close()
        analyst.kill()
        analyst.wait(10)
