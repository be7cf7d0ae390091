"""Storage, on SQLite and on PostgreSQL: migrations applied once, append-only actions with
one version each, all-or-nothing commits, Conflict and Duplicate, transactions in threads."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import threading

import pytest

from spades.storage import (
    MIGRATIONS,
    Conflict,
    CreateRoom,
    Duplicate,
    FireHold,
    JoinRoom,
    LeaveSeat,
    NewTourney,
    PutClock,
    PutHold,
    PutSeatClock,
    PutTourneyMatch,
    PutTourneyPlayer,
    PutTourneyReady,
    PutTourneyTeam,
    SaveMove,
    SeatRow,
    StartRoom,
    Store,
    TakeSeat,
    TourneyMatchRow,
    TourneyPlayerRow,
    TourneyRow,
    TourneyTeamRow,
    UpdateRoom,
)

SEATS = [SeatRow(0, "human", "p0", "Ann")] + [SeatRow(s, "bot", None, n)
                                              for s, n in ((1, "Rex"), (2, "Bea"), (3, "Kit"))]
NAMES = [fn.__name__ for fn in MIGRATIONS]


@pytest.fixture
def store(database):
    s = Store(database)
    yield s
    s.close()


def a_match(store: Store, code: str = "ABCDEF") -> int:
    store.create_table(code, "p0", {}, SEATS, "seed1", {})
    return store.load_table(code).match.id


def test_the_schema_is_migrated_once(database):
    store = Store(database)
    assert store.migrations() == NAMES
    assert store.stats() == {"players": 0, "tables": 0, "matches": 0, "seats": 0, "actions": 0}
    again = Store(database)  # a second start applies nothing again
    assert again.migrations() == NAMES
    store.close()
    again.close()


def test_a_sqlite_file_is_in_wal_mode_and_records_migrations_as_sqlite_utils_does(tmp_path):
    path = str(tmp_path / "m.db")
    store = Store(path)
    assert store.engine == "sqlite"
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with sqlite3.connect(path) as conn:  # the record files from before carry: each kept as it was
        recorded = conn.execute("SELECT migration_set, name, applied_at FROM _sqlite_migrations ORDER BY id").fetchall()
    assert [(s, n) for s, n, _ in recorded] == [("spades", n) for n in NAMES]
    Store(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT migration_set, name, applied_at FROM _sqlite_migrations ORDER BY id").fetchall() \
            == recorded


def test_two_processes_starting_at_once_on_postgresql_migrate_once(pg_database):
    start = threading.Barrier(3)
    stores: list[Store] = []
    errors: list[BaseException] = []

    def open_store() -> None:
        start.wait()
        try:
            stores.append(Store(pg_database))
        except BaseException as e:  # pragma: no cover - what the advisory lock prevents
            errors.append(e)

    threads = [threading.Thread(target=open_store) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(stores) == 3
    assert all(s.engine == "postgresql" and s.migrations() == NAMES for s in stores)
    for s in stores:
        s.close()


def test_table_round_trip(store):
    store.create_table("ABCDEF", "p0", {"level": "hard"}, SEATS, "seed1", {"target": 300})
    row = store.load_table("ABCDEF")
    assert row.options == {"level": "hard"}
    assert [s.name for s in row.seats] == ["Ann", "Rex", "Bea", "Kit"]
    assert row.match.number == 1 and row.match.seed == "seed1" and row.match.rules == {"target": 300}
    assert store.load_table("NOPE") is None
    with pytest.raises(Duplicate) as e:
        store.create_table("ABCDEF", "p0", {}, SEATS, "s", {})
    assert isinstance(e.value, sqlite3.IntegrityError)  # what the table service catches for a taken code
    assert store.stats()["tables"] == 1


def test_actions_are_appended_in_version_order_and_never_twice(store):
    match_id = a_match(store)
    store.append_action(match_id, 1, 2, "4")
    store.append_action(match_id, 2, 3, "nil")
    with pytest.raises(Conflict):
        store.append_action(match_id, 2, 3, "5")  # version 2 exists: a lost race
    with pytest.raises(Conflict):
        store.append_action(match_id, 4, 0, "3")  # a gap
    assert store.actions(match_id) == [(1, 2, "4"), (2, 3, "nil")]
    assert store.load_table("ABCDEF").match.version == 2


def test_finishing_marks_the_table_and_a_rematch_reopens_it(store):
    match_id = a_match(store)
    assert store.unfinished_tables() == ["ABCDEF"]
    store.append_action(match_id, 1, 0, "QS", finished=True, winner=1)
    assert store.unfinished_tables() == []
    assert store.match_seating(match_id)[0] == ("human", "p0")  # frozen when it finished
    info, names = store.finished_match("ABCDEF")
    assert (info.number, info.winner, names) == (1, 1, ("Ann", "Rex", "Bea", "Kit"))
    store.new_match("ABCDEF", 2, "seed2", {})
    with pytest.raises(Conflict):
        store.new_match("ABCDEF", 2, "seed3", {})
    row = store.load_table("ABCDEF")
    assert row.match.number == 2 and row.match.version == 0 and store.unfinished_tables() == ["ABCDEF"]
    assert store.finished_match("ABCDEF", 2) is None and store.finished_match("ABCDEF", 1)[0].id == match_id


def test_holds_seats_and_clocks(store):
    match_id = a_match(store)
    store.commit([PutHold("ABCDEF", 0, 10.0, 70.0), PutSeatClock(match_id, 0, 1, True, False)])
    store.commit([PutHold("ABCDEF", 0, 20.0, 80.0), PutSeatClock(match_id, 0, 2, True, True)])  # written over
    assert store.holds("ABCDEF") == {0: (20.0, 80.0, False)} and store.seat_clocks(match_id) == {0: (2, True, True)}
    store.commit([FireHold("ABCDEF", 0)])
    with pytest.raises(Conflict):
        store.commit([FireHold("ABCDEF", 0)])  # it fired already
    store.commit([LeaveSeat("ABCDEF", 0, "p0", "🦊", None)])
    assert store.holds("ABCDEF") == {} and store.left_seats("ABCDEF") == {0}
    store.commit([TakeSeat("ABCDEF", 0, "p9", "Zed", "🐙")])
    with pytest.raises(Conflict):
        store.commit([TakeSeat("ABCDEF", 0, "p8", "Yan", "")])  # not a bot's any more
    assert store.load_table("ABCDEF").seats[0] == SeatRow(0, "human", "p9", "Zed", "🐙")
    assert store.known_player("p9") == ("Zed", "🐙") and [g.code for g in store.player_games("p9")] == ["ABCDEF"]


def test_a_room_from_waiting_to_playing(store):
    def numbers():
        return [(m.number, m.name, m.state) for m in store.load_room("ROOMMM").members]

    store.commit([CreateRoom("ROOMMM", "h", {"kind": "friends"}, "Hal", "")])
    with pytest.raises(Duplicate):
        store.commit([CreateRoom("ROOMMM", "g", {}, "Gus", "")])
    store.commit([JoinRoom("ROOMMM", "g", "Gus", "")])
    store.commit([JoinRoom("ROOMMM", "g", "Gustav", "")])  # already in: the new name only
    assert numbers() == [(1, "Hal", "in"), (2, "Gustav", "in")]
    store.commit([UpdateRoom("ROOMMM", member=(2, "left"), partner=0)])
    store.commit([JoinRoom("ROOMMM", "g", "Gus", "")])  # back: to the end of the order
    assert store.player_rooms("g") == ["ROOMMM"] and store.known_player("g") == ("Gus", "")
    store.commit([StartRoom("ROOMMM", SEATS, "seed", {})])
    with pytest.raises(Conflict):
        store.commit([StartRoom("ROOMMM", SEATS, "seed", {})])
    room = store.load_room("ROOMMM")
    assert room.status == "playing" and room.partner == 0 and room.seated == ("p0",)
    assert [(m.number, m.name, m.state) for m in room.members] == [(1, "Hal", "in"), (3, "Gus", "in")]


def test_a_commit_is_all_or_nothing(store):
    match_id = a_match(store)
    with pytest.raises(Conflict):
        store.commit([SaveMove(match_id, 1, 2, "4"), PutClock(match_id, (3, 1, 99.0)), SaveMove(match_id, 1, 3, "5")])
    assert store.actions(match_id) == [] and store.clock(match_id) is None
    assert store.load_table("ABCDEF").match.version == 0
    store.commit([SaveMove(match_id, 1, 2, "4"), PutClock(match_id, (3, 1, 99.0))])
    store.commit([SaveMove(match_id, 2, 3, "5"), PutClock(match_id, (0, 2, 120.0))])
    assert store.actions(match_id) == [(1, 2, "4"), (2, 3, "5")] and store.clock(match_id) == (0, 2, 120.0)


def test_a_transaction_rolls_back_and_a_nested_one_is_a_savepoint(store):
    with pytest.raises(RuntimeError, match="boom"), store.transaction():
        store.ensure_player("p1", "Bo")
        assert store.known_player("p1") == ("Bo", "")  # a read in the transaction sees its write
        raise RuntimeError("boom")
    assert store.known_player("p1") is None
    a_match(store)
    with store.transaction():
        store.ensure_player("p2", "Cy")
        with pytest.raises(Conflict):
            store.new_match("ABCDEF", 1, "again", {})  # fails in its savepoint only
        store.ensure_player("p3", "Di")
    assert store.known_player("p2") == ("Cy", "") and store.known_player("p3") == ("Di", "")


def test_a_taken_unique_key_is_a_duplicate_on_both_engines(store):
    row = TourneyRow("TTTTTT", "Cup", "knockout", None, 8, None, 0.0, True, False, "d", "registering", 1.0)
    store.commit([NewTourney(row)])
    with pytest.raises(Duplicate):
        store.commit([NewTourney(row)])  # the code drawn twice
    team = [PutTourneyTeam("TTTTTT", TourneyTeamRow(i, f"tok{i}", True, False, "in")) for i in (1, 2)]
    ann = [PutTourneyPlayer("TTTTTT", TourneyPlayerRow(i, 0, "ann", "Ann", "", False)) for i in (1, 2)]
    store.commit([*team, ann[0]])
    with pytest.raises(sqlite3.IntegrityError) as e:  # as the tourney service catches it
        store.commit([ann[1]])  # Ann in a second team of the same tourney
    assert isinstance(e.value, Duplicate)
    assert [p.team_id for p in store.load_tourney("TTTTTT").players] == [1]


def test_tourney_rows(store):
    """The tourney queries: places taken, ready marks moving to an account, a pairing's table."""
    store.commit([NewTourney(TourneyRow("TTTTTT", "Cup", "knockout", None, 8, None, 0.0, True, False, "d",
                                        "registering", 1.0)),
                  PutTourneyTeam("TTTTTT", TourneyTeamRow(1, "t1", False, False, "in")),
                  *[PutTourneyTeam("TTTTTT", TourneyTeamRow(i, f"t{i}", True, False, "in")) for i in (2, 3, 4)],
                  *[PutTourneyMatch("TTTTTT", TourneyMatchRow(1, slot, 1, 2, 100, 5.0)) for slot in (0, 1)],
                  PutTourneyReady("TTTTTT", 1, 0, "acct", 1.0), PutTourneyReady("TTTTTT", 1, 0, "anon", 2.0),
                  PutTourneyReady("TTTTTT", 1, 1, "anon", 3.0)])
    [summary] = store.tourney_summaries(["registering"])
    assert summary.places == 1 + 2  # a team, and three solos make two places
    store.move_tourney_player("anon", "acct")
    ready = {(m.round, m.slot): m.ready for m in store.load_tourney("TTTTTT").matches}
    assert ready == {(1, 0): ("acct", "anon"), (1, 1): ("acct",)}  # a mark already there stays single
    store.create_table("PAIRED", None, {"tourney": "TTTTTT", "round": 1, "slot": 1}, SEATS, "s", {})
    store.create_table("OTHERS", None, {"tourney": "TTTTTT", "round": 1, "slot": 11}, SEATS, "s", {})
    assert store.tourney_table("TTTTTT", 1, 1) == "PAIRED" and store.tourney_table("TTTTTT", 1, 0) is None


def test_two_threads_writing_at_once(database):
    """Eight threads share four connections: each stores its own table's moves while all of
    them race for the same versions of one shared match, where exactly one wins each."""
    store = Store(database, max_connections=4)
    shared = a_match(store, "SHARED")
    mine = {n: a_match(store, f"MINE{n:02d}") for n in range(8)}
    won: dict[int, list[int]] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def play(n: int) -> None:
        try:
            start.wait()
            for v in range(1, 26):
                store.commit([SaveMove(mine[n], v, v % 4, "QS"), PutClock(mine[n], ((v + 1) % 4, v, float(v)))])
                try:
                    store.commit([SaveMove(shared, v, n % 4, f"T{n}")])
                    won.setdefault(v, []).append(n)
                except Conflict:
                    pass
        except BaseException as e:  # pragma: no cover - shown by the assert below
            errors.append(e)

    threads = [threading.Thread(target=play, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert all(len(store.actions(m)) == 25 for m in mine.values())
    stored = store.actions(shared)
    assert [v for v, _, _ in stored] == sorted(won) == list(range(1, len(stored) + 1))
    assert all(len(winners) == 1 and f"T{winners[0]}" == stored[v - 1][2] for v, winners in won.items())
    store.close()


def test_each_thread_has_its_own_sqlite_connection(tmp_path):
    store = Store(str(tmp_path / "s.db"))
    seen = []
    t = threading.Thread(target=lambda: seen.append(store.db))
    t.start()
    t.join()
    assert seen[0] is not store.db
    assert seen[0].conn is not store.db.conn


def test_on_postgresql_a_connection_is_held_only_in_a_transaction(pg_database):
    store = Store(pg_database)
    with pytest.raises(RuntimeError):
        store.db  # noqa: B018 - reading the property outside a transaction must raise
    held, inside = threading.Barrier(2), []

    def backend() -> None:
        with store.transaction() as db:
            inside.append(next(iter(db.query("SELECT pg_backend_pid() AS pid")))["pid"])
            held.wait()  # both transactions open at once

    threads = [threading.Thread(target=backend) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(inside)) == 2
    store.close()


def test_greenlets_share_the_pool_under_gevent(pg_database):
    """As in production (gunicorn's gevent worker): many greenlets, few connections, each
    transaction its own greenlet's while psycopg waits for the server."""
    script = textwrap.dedent(f"""
        from gevent import monkey
        monkey.patch_all()
        import gevent
        from spades.storage import Conflict, SaveMove, SeatRow, Store

        store = Store({pg_database!r}, max_connections=3)
        seats = [SeatRow(s, "bot", None, "B") for s in range(4)]
        ids = []
        for n in range(12):
            store.create_table(f"GEVT{{n:02d}}", None, {{}}, seats, "s", {{}})
            ids.append(store.load_table(f"GEVT{{n:02d}}").match.id)

        def play(match_id):
            for v in range(1, 11):
                store.commit([SaveMove(match_id, v, v % 4, "QS")])
                gevent.sleep(0)

        gevent.joinall([gevent.spawn(play, m) for m in ids], raise_error=True)
        assert all(len(store.actions(m)) == 10 for m in ids)
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "ok", done.stderr
