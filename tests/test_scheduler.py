"""The bots' thinking fits the load: decisions start as workers come free, a decision with
a person waiting goes first (but never starves the others), and the budget of each shrinks
with the queue behind it. Driven with an injected monotonic clock and a pool whose
decisions the test answers by hand."""

from __future__ import annotations

import concurrent.futures as cf
import threading
import zlib

import pytest

from spades.rules import Match
from spades.rules_config import Rules
from spades.tables.scheduler import MIN_BUDGET_S, TURN_SLOT_S, URGENT_HEAD_START_S, Scheduler
from spades.tables.state import BotTurn, Plan
from spades.views import OwnView, SeatView, match_view


class HandPool(cf.Executor):
    """Records each decision asked for; the test answers them."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, float, cf.Future]] = []  # (table, budget, future)
        self.lock = threading.Lock()

    def submit(self, fn, *args, **kwargs):  # noqa: ANN001
        _view, _level, seed, budget = args
        future: cf.Future = cf.Future()
        future.set_running_or_notify_cancel()
        with self.lock:
            self.asked.append((TABLES[seed], budget, future))
        return future

    def answer(self, table: str) -> None:
        with self.lock:
            future = next(f for t, _, f in self.asked if t == table)
        future.set_result("3")


class Mono:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


TABLES: dict[int, str] = {}  # a turn's seed: its table (the pool is handed the seed)


def view_with(legal: tuple[int | str, ...]) -> SeatView:
    """A seat view whose seat may do ``legal``."""
    return SeatView(match_view(Match(Rules(), "scheduler")), OwnView(1, None, legal))


def turn(table: str, urgent: bool = False, legal: tuple[int | str, ...] = (3, 4)) -> BotTurn:
    seed = zlib.crc32(table.encode())
    TABLES[seed] = table
    return BotTurn(seat=1, match_number=1, version=1, level="hard", view=view_with(legal), seed=seed, delay=0.0,
                   urgent=urgent)


@pytest.fixture
def setup():
    pool, mono = HandPool(), Mono()
    delivered: list[tuple[str, str]] = []
    sched = Scheduler(lambda code, who, command: delivered.append((code, command.action)), lambda: 0.0,
                      pool=pool, pool_workers=1, think_limit=60.0, bot_budget=0.5, mono=mono)
    yield sched, pool, mono, delivered
    sched.close()


def started(pool: HandPool) -> list[str]:
    with pool.lock:
        return [t for t, _, _ in pool.asked]


def test_a_decision_with_a_person_waiting_goes_first(setup):
    sched, pool, mono, _ = setup
    sched.plan("BUSY", Plan(bot=turn("BUSY")))  # the only worker thinks about this one
    sched.plan("A", Plan(bot=turn("A")))
    mono.now += 0.5
    sched.plan("B", Plan(bot=turn("B")))
    mono.now += 0.5
    sched.plan("P", Plan(bot=turn("P", urgent=True)))  # a person waits at P
    assert started(pool) == ["BUSY"]
    for table in ("BUSY", "P", "A"):
        pool.answer(table)
    assert started(pool) == ["BUSY", "P", "A", "B"]


def test_no_table_starves_behind_tables_with_people(setup):
    sched, pool, mono, _ = setup
    sched.plan("BUSY", Plan(bot=turn("BUSY")))
    sched.plan("OLD", Plan(bot=turn("OLD")))  # a bot-only table, asked first
    mono.now += URGENT_HEAD_START_S + 1
    sched.plan("P", Plan(bot=turn("P", urgent=True)))
    pool.answer("BUSY")
    assert started(pool) == ["BUSY", "OLD"]  # waited longer than the head start: it goes first


def test_the_budget_shrinks_with_the_queue_and_comes_back_when_it_empties(setup):
    sched, pool, mono, _ = setup
    tables = [f"T{n}" for n in range(10)]
    for t in tables:
        sched.plan(t, Plan(bot=turn(t)))
    for t in tables:
        pool.answer(t)
    budgets = [b for _, b, _ in pool.asked]
    assert budgets[0] == 0.5  # alone when it started: the full budget
    # the second started with 9 waiting (itself and 8 behind) for 1 worker
    assert budgets[1] == pytest.approx(max(MIN_BUDGET_S, TURN_SLOT_S / 9))
    assert all(a <= b for a, b in zip(budgets[1:], budgets[2:]))  # more budget as the queue drains
    assert budgets[-1] == 0.5
    sched.plan("LATER", Plan(bot=turn("LATER")))
    assert pool.asked[-1][1] == 0.5


def test_a_decision_dropped_while_it_waited_never_starts(setup):
    sched, pool, mono, _ = setup
    sched.plan("BUSY", Plan(bot=turn("BUSY")))
    sched.plan("GONE", Plan(bot=turn("GONE")))
    sched.plan("GONE", Plan())  # the table moved on (a person played, say)
    pool.answer("BUSY")
    assert started(pool) == ["BUSY"]


def test_a_forced_move_is_played_without_a_worker(setup):
    sched, pool, mono, delivered = setup
    forced = turn("F", legal=("QS",))
    sched.plan("F", Plan(bot=forced))
    for _ in range(500):
        if delivered:
            break
        threading.Event().wait(0.01)
    assert delivered == [("F", "QS")] and started(pool) == []


def test_a_pool_shut_down_with_the_process_gets_no_fallback_moves(setup):
    """At exit the interpreter shuts the bot pool down before the app closes: the turns
    still waiting are left for the next start, not answered with fallback moves."""
    sched, pool, mono, delivered = setup
    sched.plan("BUSY", Plan(bot=turn("BUSY")))
    sched.plan("WAITS", Plan(bot=turn("WAITS")))

    def refuse(*args, **kwargs):  # noqa: ANN002, ANN003
        raise RuntimeError("cannot schedule new futures after interpreter shutdown")

    pool.submit = refuse
    pool.answer("BUSY")  # the decision under way finishes; the next one cannot start
    threading.Event().wait(0.5)  # a fallback move would be played at once
    assert delivered == []  # the scheduler stopped: both turns are asked again on the next start
