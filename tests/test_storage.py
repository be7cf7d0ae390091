"""Storage: migrations, WAL, append-only actions with one version each."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from spades.storage import MIGRATIONS, Conflict, SeatRow, Store

SEATS = [SeatRow(0, "human", "p0", "Ann")] + [SeatRow(s, "bot", None, n) for s, n in ((1, "Rex"), (2, "Bea"), (3, "Kit"))]


@pytest.fixture
def store(tmp_path):
    return Store(str(tmp_path / "s.db"))


def test_schema_is_migrated_once_and_wal_is_on(tmp_path):
    path = str(tmp_path / "m.db")
    store = Store(path)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert MIGRATIONS.pending(store.db) == []
    applied = [m.name for m in MIGRATIONS.applied(store.db)]
    Store(path)  # a second start applies nothing again
    assert [m.name for m in MIGRATIONS.applied(Store(path).db)] == applied
    assert {"players", "tables", "matches", "seats", "actions"} <= set(store.db.table_names())


def test_table_round_trip(store):
    store.create_table("ABCDEF", "p0", {"level": "hard"}, SEATS, "seed1", {"target": 300})
    row = store.load_table("ABCDEF")
    assert row.options == {"level": "hard"}
    assert [s.name for s in row.seats] == ["Ann", "Rex", "Bea", "Kit"]
    assert row.match.number == 1 and row.match.seed == "seed1" and row.match.rules == {"target": 300}
    assert store.load_table("NOPE") is None
    with pytest.raises(sqlite3.IntegrityError):
        store.create_table("ABCDEF", "p0", {}, SEATS, "s", {})


def test_actions_are_appended_in_version_order_and_never_twice(store):
    store.create_table("ABCDEF", "p0", {}, SEATS, "seed1", {})
    match_id = store.load_table("ABCDEF").match.id
    store.append_action(match_id, 1, 2, "4")
    store.append_action(match_id, 2, 3, "nil")
    with pytest.raises(Conflict):
        store.append_action(match_id, 2, 3, "5")  # version 2 exists: a lost race
    with pytest.raises(Conflict):
        store.append_action(match_id, 4, 0, "3")  # a gap
    assert store.actions(match_id) == [(1, 2, "4"), (2, 3, "nil")]
    assert store.load_table("ABCDEF").match.version == 2


def test_finishing_marks_the_table_and_a_rematch_reopens_it(store):
    store.create_table("ABCDEF", "p0", {}, SEATS, "seed1", {})
    match_id = store.load_table("ABCDEF").match.id
    assert store.unfinished_tables() == ["ABCDEF"]
    store.append_action(match_id, 1, 0, "QS", finished=True, winner=1)
    assert store.unfinished_tables() == []
    store.new_match("ABCDEF", 2, "seed2", {})
    with pytest.raises(Conflict):
        store.new_match("ABCDEF", 2, "seed3", {})
    row = store.load_table("ABCDEF")
    assert row.match.number == 2 and row.match.version == 0 and store.unfinished_tables() == ["ABCDEF"]


def test_each_thread_has_its_own_connection(store):
    seen = []
    t = threading.Thread(target=lambda: seen.append(store.db))
    t.start()
    t.join()
    assert seen[0] is not store.db
    assert seen[0].conn is not store.db.conn
