"""Several processes, one owner per table, through a real Redis: two table services in
this test process stand for two processes (each its own ``Cluster``: its own id, leases,
inbox and bus), sharing one database (SQLite, then PostgreSQL).

What a player would see: a move made through either process is applied once, by the
table's owner, and heard by both; a process that stops renewing its leases (it died)
hands its tables to the other, whose bots and clocks carry on from the database."""

from __future__ import annotations

import dataclasses
import itertools
import threading
import time

import pytest
from helpers.cluster import wait_for
from watch import watch

from spades.rules import IllegalAction, Match
from spades.rules_config import Rules
from spades.storage import SeatRow, Store
from spades.tables import (
    EMOJIS,
    Announced,
    Around,
    BadAction,
    Change,
    Join,
    NotSeated,
    Played,
    Player,
    Reseat,
    Say,
    Snapshot,
    Stale,
    TableService,
    TooFast,
)
from spades.tables.cluster import Cluster, decode, encode
from spades.views import view_of

INSTANT = {"slow": 0.0, "normal": 0.0, "fast": 0.0}
PEOPLE = [Player(f"p{s}") for s in range(4)]
LEASE_S = 1.0


@pytest.fixture
def store_path(database):
    """One database both processes share: a SQLite file, then a PostgreSQL database."""
    return database


def node(store_path: str, redis_url: str, pool) -> TableService:
    seeds = (f"cluster-{n}" for n in itertools.count())
    return TableService(Store(store_path), pool=pool, play_delays=INSTANT, new_seed=lambda: next(seeds),
                        cluster=Cluster(redis_url, lease_s=LEASE_S, forward_s=2.0))


@pytest.fixture
def nodes(store_path, redis_url, pool):
    a, b = node(store_path, redis_url, pool), node(store_path, redis_url, pool)
    yield a, b
    for n in (a, b):
        n.close()


def four_people(store: Store, code: str = "FOUR01") -> str:
    store.create_table(code, PEOPLE[0].id, {"kind": "friends", "level": "easy"},
                       [SeatRow(s, "human", PEOPLE[s].id, f"P{s}", EMOJIS[s]) for s in range(4)], "four",
                       dataclasses.asdict(Rules(tempo="relaxed")))
    return code


def test_values_cross_as_json_and_come_back_equal():
    match = Match(Rules(players=3, partners=False, tempo="fast"), "values")
    around = Around("ABC123", 1, "easy", "normal", Played(1, card="QS", trick_winner=2, by_clock=True),
                    ("A", "B", "C"), ("human",) * 3, ready=(0, 2), clock=(2, 1.5, 30))
    snap = Snapshot(around, view_of(match, 2), notice=Announced(2, "undo", "card"), offers=frozenset({"undo"}))
    change = Change("ABC123", 7, "move", {2: snap, None: Snapshot(around, view_of(match, None))}, ("a", None, "c"))
    assert decode(encode(change.snapshots)) == change.snapshots
    seats = Reseat((SeatRow(0, "human", "p0", "Ann", "🦊"),), "p0", (("old", "new"),))
    assert decode(encode(seats)) == seats


def test_a_move_made_at_either_process_is_applied_once_by_the_owner_and_heard_by_both(nodes):
    a, b = nodes
    code = four_people(a.store)
    first = a.snapshot(code, None).view.to_json()
    a.act(code, PEOPLE[first["to_act"]], "3", first["version"])  # a now owns the table
    assert a.in_memory(code) and not b.in_memory(code)

    heard = {"a": [], "b": []}
    stop_a = watch(a, code, "p0", lambda s: heard["a"].append(s.view.to_json()["version"]))
    stop_b = watch(b, code, "p1", lambda s: heard["b"].append(s.view.to_json()["version"]))
    v = b.snapshot(code, None).view.to_json()
    snap = b.act(code, PEOPLE[v["to_act"]], "4", v["version"])  # forwarded to a
    assert snap.view.to_json()["version"] == v["version"] + 1
    assert not b.in_memory(code)  # b never loaded it: the owner applied it
    assert wait_for(lambda: v["version"] + 1 in heard["a"] and v["version"] + 1 in heard["b"])
    match_id = a.store.load_table(code).match.id
    assert [x[0] for x in a.store.actions(match_id)][-1] == v["version"] + 1
    stop_a()
    stop_b()


def test_refusals_travel_back_with_their_message(nodes):
    a, b = nodes
    code = four_people(a.store)
    v = a.snapshot(code, None).view.to_json()
    a.act(code, PEOPLE[v["to_act"]], "3", v["version"])
    v = b.snapshot(code, None).view.to_json()
    with pytest.raises(Stale):
        b.act(code, PEOPLE[v["to_act"]], "4", v["version"] - 1)
    with pytest.raises(IllegalAction):
        b.act(code, PEOPLE[v["to_act"]], "AS", v["version"])  # a card while bidding
    with pytest.raises(BadAction, match="bids are 1 to 13"):
        b.act(code, PEOPLE[v["to_act"]], "14", v["version"])
    with pytest.raises(NotSeated):
        b.act(code, Player("stranger"), "4", v["version"])
    assert b.snapshot(code, None).view.to_json()["version"] == v["version"]  # nothing changed


def test_a_process_that_dies_hands_its_tables_to_another_whose_bots_carry_on(store_path, redis_url, pool):
    a, b = node(store_path, redis_url, pool), node(store_path, redis_url, pool)
    try:
        code = a.create_practice("p0", "Ann", Rules(), "easy")
        assert wait_for(lambda: a.snapshot(code, "p0").view.to_json()["to_act"] == 0)
        v = a.snapshot(code, "p0").view.to_json()
        a.act(code, Player("p0"), v["legal"][0], v["version"])
        # a dies: its leases are no longer renewed and it answers nobody (nothing released)
        a.cluster._closed.set()
        a.scheduler.close()
        assert wait_for(lambda: b.in_memory(code), timeout=LEASE_S + 5)  # b's sweep adopted it
        v = b.snapshot(code, "p0").view.to_json()
        version = v["version"]
        # the person plays on through b, and b's bots answer
        while v["to_act"] != 0:
            assert wait_for(lambda: b.snapshot(code, "p0").view.to_json()["to_act"] == 0)
            v = b.snapshot(code, "p0").view.to_json()
        b.act(code, Player("p0"), v["legal"][0], v["version"])
        assert wait_for(lambda: b.snapshot(code, "p0").view.to_json()["version"] >= version + 4)
    finally:
        a.close()
        b.close()


def test_a_command_for_a_dead_owners_table_waits_for_its_lease_and_is_applied(store_path, redis_url, pool):
    a, b = node(store_path, redis_url, pool), node(store_path, redis_url, pool)
    try:
        code = four_people(a.store)
        v = a.snapshot(code, None).view.to_json()
        a.act(code, PEOPLE[v["to_act"]], "3", v["version"])
        a.cluster._closed.set()  # dead: it neither answers nor renews
        v = b.snapshot(code, None).view.to_json()
        snap = b.act(code, PEOPLE[v["to_act"]], "4", v["version"])
        assert snap.view.to_json()["version"] == v["version"] + 1 and b.in_memory(code)
    finally:
        a.close()
        b.close()


def test_a_room_change_reaches_the_other_process_as_each_persons_picture(nodes):
    a, b = nodes
    code = a.create_room("host", "Hana", "🦊", Rules(), "easy", 2)
    pictures = []
    b.bus.subscribe(lambda change: change.code == code and pictures.append(change.snapshot_for("host")))
    a.handle(code, Player("guest"), Join("Gus", "🐼"))
    assert wait_for(lambda: pictures and len(pictures[-1].members) == 2)
    assert pictures[-1].is_host


def test_the_shared_lock_lets_one_process_in_at_a_time(redis_url):
    one, two = Cluster(redis_url), Cluster(redis_url)
    inside, overlaps = [], []

    def work(lock):
        for _ in range(20):
            with lock, lock:  # re-entrant within a thread
                inside.append(1)
                if len(inside) > 1:
                    overlaps.append(1)
                time.sleep(0.001)
                inside.pop()

    threads = [threading.Thread(target=work, args=(c.shared_lock("t"),)) for c in (one, two)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not overlaps
    one.close()
    two.close()


def test_two_people_taking_the_last_place_through_two_processes_cannot_both_get_it(nodes):
    a, b = nodes
    code = a.create_room("host", "Hana", "🦊", Rules(), "easy", 2)  # one place besides the host
    start = threading.Barrier(2)
    results = []

    def join(node, pid):
        start.wait()
        try:
            node.handle(code, Player(pid), Join(pid.title(), "🐼"))
            results.append("room")
        except Exception as e:  # the refusal a person would read
            results.append(type(e).__name__)

    threads = [threading.Thread(target=join, args=(n, p)) for n, p in ((a, "ann"), (b, "bob"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert sorted(results) == ["TableFull", "room"]
    assert len(a.room_snapshot(code, "host").members) == 2


def test_a_line_said_through_either_process_reaches_the_other_and_a_flood_is_refused_with_its_wait(nodes):
    a, b = nodes
    code = four_people(a.store)
    a.handle(code, PEOPLE[0], Say("hello"))  # a owns the table
    heard: list[Change] = []
    token = b.bus.subscribe(lambda change: heard.append(change) if change.said is not None else None)
    b.handle(code, PEOPLE[1], Say("hi there"))  # forwarded to a, published to both
    assert wait_for(lambda: any(c.said.line.text == "hi there" for c in heard))
    line = next(c.said.line for c in heard if c.said.line.text == "hi there")
    assert (line.name, line.seat, line.room, line.person) == ("P1", 1, "players", PEOPLE[1].id)
    for text in ("two", "three", "four", "five"):
        b.handle(code, PEOPLE[1], Say(text))
    with pytest.raises(TooFast) as refused:
        b.handle(code, PEOPLE[1], Say("six"))
    assert 1 <= refused.value.retry_after <= 10
    b.bus.unsubscribe(token)


def test_a_room_with_pages_open_on_two_processes_keeps_one_owner_and_refuses_nobody(nodes):
    """The host's page is open on one process, a joiner's on the other: the room stays in
    its owner's memory while a page is open (it is not loaded and let go at each command,
    each load making every page say it is here again), and pages opening and closing at
    once through both processes are all taken."""
    a, b = nodes
    code = a.create_room("host", "Hana", "🦊", Rules(), "easy", 2)
    a.connect(code, "host", lambda change: None)
    assert a.in_memory(code)
    b.handle(code, Player("guest"), Join("Gus", "🐼"))  # forwarded to the owner
    b.connect(code, "guest", lambda change: None)
    assert a.in_memory(code) and not b.in_memory(code)
    failures = []

    def reconnect(node, pid):
        try:
            for _ in range(15):
                node.connect(code, pid, lambda change: None)
                node.disconnect(code, pid)
        except Exception as e:  # what the page would have been refused with
            failures.append(repr(e))

    threads = [threading.Thread(target=reconnect, args=(n, p)) for n, p in ((a, "host"), (b, "guest"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert failures == []
    assert a.in_memory(code) and not b.in_memory(code)
    assert {m.name for m in a.room_snapshot(code, "host").members} == {"Hana", "Gus"}
    a.disconnect(code, "host")
    b.disconnect(code, "guest")
    assert wait_for(lambda: not a.in_memory(code))  # the last page closed: the room leaves memory


def test_a_room_let_go_while_a_page_connects_is_held_by_whoever_has_it_in_memory(nodes, redis_url):
    """The last page of a room closes (it leaves memory and its lease is released) just as
    another page of it connects in the same process: the process that then has the room
    in memory holds its lease, so no other process can load it beside."""
    import redis

    a, _ = nodes
    code = a.create_room("host", "Hana", "🦊", Rules(), "easy", 2)
    a.connect(code, "guest", lambda change: None)
    release, racing = a.cluster.release, []

    def slow_release(c: str) -> None:  # another page connects while the lease is let go
        if not racing:
            racing.append(threading.Thread(target=a.connect, args=(code, "host", lambda change: None)))
            racing[0].start()
            time.sleep(0.3)
        release(c)

    a.cluster.release = slow_release
    a.disconnect(code, "guest")  # the room's last page: it leaves memory
    racing[0].join(10)
    a.cluster.release = release
    assert a.in_memory(code)  # the host's page keeps it there
    assert a.cluster.holds(code)
    assert redis.Redis.from_url(redis_url).get(f"spades:owner:{code}").decode() == a.cluster.id
