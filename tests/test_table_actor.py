"""One path for every change: concurrent moves, lost races, failed saves, every side
command through the one handler, and finished tables leaving memory. Driven through the
table service's public API (``handle`` observers, the bus, the store)."""

from __future__ import annotations

import dataclasses
import itertools
import sqlite3
import threading
import time

import pytest
from conftest import FakeClock
from watch import watch

from spades.rules_config import Rules
from spades.storage import SaveMove, SeatRow, Store
from spades.tables import (
    EMOJIS,
    Closing,
    Leave,
    NotSaved,
    Player,
    Rematch,
    Stale,
    TableService,
    TakeOver,
    command_name,
)

INSTANT = {"slow": 0.0, "normal": 0.0, "fast": 0.0}
PEOPLE = [Player(f"p{s}") for s in range(4)]


@pytest.fixture
def store(tmp_path):
    return Store(str(tmp_path / "a.db"))


@pytest.fixture
def svc(store, pool):
    seeds = (f"actor-{n}" for n in itertools.count())
    service = TableService(store, pool=pool, play_delays=INSTANT, new_seed=lambda: next(seeds))
    yield service
    service.close()


def four_people(store: Store, code: str = "FOUR01", rules: Rules | None = None) -> str:
    """A table for friends with four people seated and no bot."""
    store.create_table(code, PEOPLE[0].id, {"kind": "friends", "level": "easy"},
                       [SeatRow(s, "human", PEOPLE[s].id, f"P{s}", EMOJIS[s]) for s in range(4)], "four",
                       dataclasses.asdict(rules or Rules(tempo="relaxed")))
    return code


def to_act(svc: TableService, code: str) -> tuple[Player, dict]:
    v = svc.snapshot(code, None).view.to_json()
    who = PEOPLE[v["to_act"]]
    return who, svc.snapshot(code, who.id).view.to_json()
def test_two_threads_moving_at_once_one_wins_and_the_other_is_told_it_is_stale(svc, store):
    code = four_people(store)
    who, v = to_act(svc, code)
    results: list[object] = []
    start = threading.Barrier(2)

    def click():
        start.wait()
        try:
            results.append(svc.act(code, who, "3", v["version"]).view.to_json()["version"])
        except Stale as e:
            results.append(e)

    threads = [threading.Thread(target=click) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert sorted(type(r).__name__ for r in results) == ["Stale", "int"]
    assert [a[0] for a in store.actions(store.load_table(code).match.id)] == [v["version"] + 1]


def test_a_lost_race_is_refused_as_stale_with_the_table_as_stored(svc, store):
    code = four_people(store)
    who, v = to_act(svc, code)
    # another process stored this version's move first (the database checks every version)
    store.commit([SaveMove(store.load_table(code).match.id, v["version"] + 1, v["to_act"], "4")])
    with pytest.raises(Stale) as e:
        svc.act(code, who, "3", v["version"])
    assert e.value.version == v["version"] + 1
    now = svc.snapshot(code, who.id).view.to_json()
    assert now["version"] == v["version"] + 1 and now["bids"][v["to_act"]] == 4  # reloaded: theirs stands


def test_a_failed_save_changes_nothing_and_the_table_and_its_watchers_go_on(svc, store, monkeypatch):
    code = four_people(store)
    seen: list[int] = []
    watch(svc, code, PEOPLE[1].id, lambda snap: seen.append(snap.view.to_json()["version"]))
    who, v = to_act(svc, code)
    real = store.commit

    def locked(ops):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(store, "commit", locked)
    with pytest.raises(NotSaved):
        svc.act(code, who, "3", v["version"])
    assert svc.snapshot(code, who.id).view.to_json() == v  # nothing changed, in memory or stored
    assert store.load_table(code).match.version == v["version"]
    monkeypatch.setattr(store, "commit", real)
    svc.act(code, who, "3", v["version"])  # the same click again goes through
    assert seen[-1] == v["version"] + 1  # and the watcher heard of it


def test_a_bot_move_that_could_not_be_saved_is_thought_about_again(svc, store, monkeypatch):
    real = store.commit
    refused: list[int] = []

    def locked_once_for_a_bot(ops):
        if threading.current_thread().name == "table-scheduler" and not refused:
            refused.append(len(ops))
            raise sqlite3.OperationalError("database is locked")
        return real(ops)

    monkeypatch.setattr(store, "commit", locked_once_for_a_bot)
    code = svc.create_practice(PEOPLE[0].id, "Ann", Rules(), "easy")
    deadline = time.monotonic() + 20
    moved_since = None
    while time.monotonic() < deadline:
        v = svc.snapshot(code, PEOPLE[0].id).view.to_json()
        if refused and moved_since is None:
            moved_since = v["version"]
        if moved_since is not None and v["version"] >= moved_since + 3:
            break  # the bots play on after the save that failed
        if v["to_act"] == 0:
            svc.act(code, PEOPLE[0], "3" if v["phase"] == "bidding" else v["legal"][0], v["version"])
        time.sleep(0.02)
    assert refused, "no bot move was refused"
    assert v["version"] >= moved_since + 3, f"the table stalled at version {v['version']}, to act {v['to_act']}"


def test_every_side_command_goes_through_the_one_handler(store, pool):
    clock = FakeClock()
    seeds = itertools.count()
    svc = TableService(store, pool=pool, play_delays=INSTANT, clock=clock,
                       new_seed=(lambda: f"side-{next(seeds)}"))
    handled: list[str] = []
    published: list[str] = []
    svc.observe(lambda code, who, command: handled.append(command_name(command)))
    svc.bus.subscribe(lambda change: published.append(change.command))
    try:
        code = four_people(store, rules=Rules(tempo="relaxed", end="hands", hands=1, mode="no_bidding"))
        close = watch(svc, code, PEOPLE[2].id, lambda snap: None)  # connected
        svc.handle(code, Player(PEOPLE[2].id), Closing())  # the page says it is closing ...
        close()  # ... and its socket closes: disconnected, a short hold
        clock.now += 11
        svc.wake()
        assert svc.wait_idle()  # the hold ran out: a bot plays seat 2
        assert svc.snapshot(code, None).around.presence[2] == "bot"
        svc.handle(code, Player(PEOPLE[2].id), TakeOver())
        while not svc.snapshot(code, None).view.to_json()["finished"]:
            who, v = to_act(svc, code)
            if v["phase"] == "hand_over":  # never with one hand; kept for other rules
                svc.act(code, PEOPLE[1], "deal", v["version"])
                svc.act(code, PEOPLE[0], "deal_now", v["version"])
                continue
            svc.act(code, who, v["legal"][0], v["version"])
        version = svc.snapshot(code, None).view.to_json()["version"]
        svc.handle(code, PEOPLE[0], Rematch(version, 1))
        assert [s.player_id for s in svc.seats(code)] == ["p0", "p2", "p1", "p3"]  # the new partner across
        svc.handle(code, Player(PEOPLE[3].id), Leave())
    finally:
        svc.close()
    for name in ("connected", "closing", "disconnected", "hold_expired", "take_over", "move", "rematch", "leave"):
        assert name in handled, name
    # a change anyone can see is published under the command that made it
    for name in ("connected", "hold_expired", "take_over", "move", "rematch", "leave"):
        assert name in published, name


def test_continue_and_deal_now_go_through_the_one_handler(svc, store):
    handled: list[str] = []
    svc.observe(lambda code, who, command: handled.append(command_name(command)))
    code = four_people(store, rules=Rules(tempo="relaxed", end="hands", hands=3, mode="no_bidding"))
    for _ in range(52):
        who, v = to_act(svc, code)
        svc.act(code, who, v["legal"][0], v["version"])
    v = svc.snapshot(code, None).view.to_json()
    assert v["phase"] == "hand_over"
    snap = svc.act(code, PEOPLE[1], "deal", v["version"])
    assert snap.around.ready == (1,) and snap.view.to_json()["phase"] == "hand_over"  # waits for the others
    snap = svc.act(code, PEOPLE[0], "deal_now", v["version"])  # the host deals without waiting
    assert snap.view.to_json()["phase"] == "playing" and snap.view.to_json()["hand_number"] == 2
    assert handled[-2:] == ["continue", "deal_now"]


def test_a_finished_table_leaves_memory_and_comes_back_when_asked(svc, store):
    code = svc.create_practice(PEOPLE[0].id, "Ann", Rules(mode="no_bidding", end="hands", hands=1), "easy")
    while True:
        assert svc.wait_idle()
        v = svc.snapshot(code, PEOPLE[0].id).view.to_json()
        if v["finished"]:
            break
        action = "deal" if v["phase"] == "hand_over" else v["legal"][0]  # level: one more hand
        svc.act(code, PEOPLE[0], action, v["version"])
    assert svc.wait_idle()
    assert not svc.in_memory(code)  # over, and nobody connected
    again = svc.snapshot(code, PEOPLE[0].id)  # back from the database
    assert again.view.to_json() == v and not svc.in_memory(code)  # a look does not keep it either
    assert svc.handle(code, PEOPLE[0], Rematch(v["version"])).around.match_number == 2
