"""Tables that wait in the database, not in memory: 10,000 turn-based tables waiting on a
person load nowhere at start-up; a command brings one back; those whose move's time ran
out come back for their timer, each fired once, also after a restart; a table left alone
leaves memory again."""

from __future__ import annotations

import itertools
import sqlite3
import threading
import time

import pytest
from conftest import FakeClock

from bench.idle import one_waiting_table, waiting_copies
from spades.storage import Store
from spades.tables import Player, TableService
from spades.tables.cluster import Cluster

INSTANT = {"slow": 0.0, "normal": 0.0, "fast": 0.0}
TABLES, DUE = 10_000, 200


@pytest.fixture
def clock():
    return FakeClock()


def service_on(path: str, clock: FakeClock, pool) -> TableService:
    seeds = (f"idle-{n}" for n in itertools.count())
    return TableService(Store(path), play_delays=INSTANT, clock=clock, new_seed=lambda: next(seeds), pool=pool,
                        sweep_s=0)


def rows(path: str, sql: str) -> list[sqlite3.Row]:
    """Rows of the test's own SQLite file, read straight from it."""
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def versions(path: str, codes: list[str]) -> dict[str, int]:
    wanted = set(codes)
    return {r["table_code"]: r["version"] for r in rows(path, "SELECT table_code, version FROM matches")
            if r["table_code"] in wanted}


def settled(svc: TableService, codes: list[str], version: int, timeout: float = 60) -> dict[str, int]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        svc.wake()  # the fake clock moved: the scheduler looks at its deadlines again
        seen = versions(svc.store.path, codes)
        if all(v > version for v in seen.values()) and svc.wait_idle(1):
            return seen
        time.sleep(0.1)
    raise AssertionError("the due tables did not move")


def test_ten_thousand_waiting_tables_load_only_when_touched_or_due(tmp_path, clock, pool):
    path = str(tmp_path / "idle.db")
    maker = service_on(path, clock, pool)
    template = one_waiting_table(maker)
    [wait] = maker.store.turns_of(template)
    version = maker.snapshot(template, None).view.to_json()["version"]
    maker.close()
    codes = waiting_copies(path, template, TABLES, DUE, clock.now + 1000)  # the first 200 run out in 1000 s
    due, later = codes[:DUE], codes[DUE:]

    svc = service_on(path, clock, pool)
    try:
        assert svc.resume_all() == 0  # every table waits on a person, with no timer due soon
        assert not any(svc.in_memory(c) for c in codes[:500] + codes[-500:])
        snap = svc.snapshot(later[0], wait.person)  # a person opens one: it loads
        assert svc.in_memory(later[0]) and snap.view.to_json()["to_act"] == wait.seat

        clock.now += 1000 - 60  # a minute before the due ones' time runs out, they come back for it
        gone, woken = svc.sweep()
        assert woken == DUE and not any(svc.in_memory(c) for c in later[1:])
        assert versions(path, due[:10]) == {c: version for c in due[:10]}
        clock.now += 61
        after = settled(svc, due, version)
        assert all(after[c] == version + 1 for c in due)  # a bot played the missed move, once
        assert all(v == version for c, v in versions(path, later).items())
    finally:
        svc.close()

    again = service_on(path, clock, pool)  # a restart: nothing fires twice
    try:
        again.resume_all()
        clock.now += 60
        again.sweep()
        assert again.wait_idle(10)
        assert versions(path, due) == after
        assert not any(again.in_memory(c) for c in due + later[:100])
    finally:
        again.close()


def test_a_table_left_alone_leaves_memory_and_comes_back_as_it_was(tmp_path, clock, pool):
    svc = service_on(str(tmp_path / "alone.db"), clock, pool)
    try:
        code = one_waiting_table(svc)
        [wait] = svc.store.turns_of(code)
        before = svc.snapshot(code, wait.person)
        assert svc.sweep() == (0, 0) and svc.in_memory(code)  # touched just now
        clock.now += svc.idle_after_s + 1
        assert svc.sweep() == (1, 0) and not svc.in_memory(code)
        v = svc.snapshot(code, wait.person).view.to_json()
        assert v == before.view.to_json()
        svc.act(code, Player(wait.person), "3", v["version"])
        assert svc.snapshot(code, None).view.to_json()["version"] == v["version"] + 1
    finally:
        svc.close()


def test_two_processes_share_the_due_timers_and_fire_each_once(tmp_path, clock, pool, redis_url):
    path = str(tmp_path / "shared.db")
    maker = service_on(path, clock, pool)
    template = one_waiting_table(maker)
    maker.close()
    codes = waiting_copies(path, template, 300, 60, clock.now + 1000)
    nodes = [TableService(Store(path), play_delays=INSTANT, clock=clock, pool=pool, sweep_s=0,
                          cluster=Cluster(redis_url, lease_s=3.0)) for _ in range(2)]
    try:
        clock.now += 1001
        woken = [0, 0]

        def sweep(i: int) -> None:
            woken[i] = nodes[i].sweep()[1]

        threads = [threading.Thread(target=sweep, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sum(woken) == 60  # each due table claimed by one process
        for node in nodes:
            node.wake()
        after = settled(nodes[0], codes[:60], 0)
        assert set(after.values()) == {1}
        moves = {r["table_code"]: r["n"] for r in rows(
            path, "SELECT m.table_code, COUNT(*) AS n FROM actions a JOIN matches m ON m.id = a.match_id "
                  "GROUP BY m.table_code")}
        assert {moves.get(c, 0) for c in codes[:60]} == {1} and moves.get(codes[100], 0) == 0  # one move each
    finally:
        for node in nodes:
            node.close()
