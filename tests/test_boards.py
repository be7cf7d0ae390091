"""Duplicate boards: a circle's week of deals, committed before it starts, played at three
tables (one of them turn-based) through the table service: the same deals from the same
dealer at every table, no deal seen before its table plays it, the matchpoints as worked
out by hand, and the commitments checked once the week closes."""

from __future__ import annotations

import dataclasses
import json

import pytest
from helpers.boards import card_lists

from spades.circles.boards import (
    BoardsError,
    board_records_open,
    boards_of,
    close_week,
    new_week,
    reveal,
    seat_refusal,
    start_board_table,
    table_records_open,
    week_secret,
    week_standings,
)
from spades.duplicate import matchpoints, tally
from spades.fairness import FairDeals, hand_seed, verify_record
from spades.rules_config import Rules
from spades.storage import SeatRow
from spades.tables import Continue, NotHost, Player, SetWatching, Stale

BOARDS = 4
CONTRIBUTION = "c0ffee" * 5  # what a page sends with Continue: a table of boards takes none


def test_matchpoints_worked_out_by_hand():
    """Two boards, three tables. Board 1, North-South: A 140 and B 140 tie, C -50 is
    beaten by both: A 2+1, B 2+1, C 0; East-West: A 60 beats B 31 and C 52 (4), C beats
    B (2), B 0. Board 2, North-South: C 100 beats A 80 and B -10 (4), A beats B (2), B 0;
    East-West: all three 20, each ties two (2 each)."""
    scores = {"A": {1: (140, 60), 2: (80, 20)}, "B": {1: (140, 31), 2: (-10, 20)}, "C": {1: (-50, 52), 2: (100, 20)}}
    assert matchpoints(scores) == {"A": {1: (3, 4), 2: (2, 2)}, "B": {1: (3, 0), 2: (0, 2)},
                                   "C": {1: (0, 2), 2: (4, 2)}}
    seated = {"A": [[("ann", "Ann"), ("al", "Al")], [("bob", "Bob")]], "B": [[("cy", "Cy")], [("dee", "Dee")]],
              "C": [[("eve", "Eve")], []]}
    s = tally(scores, seated)
    assert [(t.table, t.direction, t.matchpoints, t.top) for t in s.teams][:3] == [
        ("A", "East-West", 6, 8), ("A", "North-South", 5, 8), ("C", "North-South", 4, 8)]
    assert {p.person: p.matchpoints for p in s.people} == {"ann": 5, "al": 5, "bob": 6, "cy": 3, "dee": 2, "eve": 4}


def test_a_week_refuses_what_boards_cannot_be(service):
    store, now = service.store, service.now()
    with pytest.raises(BoardsError, match="partnership tables"):
        new_week(store, "c", "owner", 6, Rules(partners=False), now)
    with pytest.raises(BoardsError, match="4 to 12 boards"):
        new_week(store, "c", "owner", 3, Rules(), now)
    with pytest.raises(BoardsError, match="before it starts"):
        new_week(store, "c", "owner", 4, Rules(), now - 3600)


class Watch:
    """Checks every snapshot and running record a person gets against the week's deals:
    nothing of a board the table has not reached, nothing of the board being played but
    the seat's own hand and the cards played, no server seed before its hand is over."""

    def __init__(self, week, deals):
        self.week, self.deals = week, deals
        self.secret = week_secret(week.seed)
        self.checked = 0

    def check(self, snap, record):
        v = snap.view.to_json()
        hand, seat = v["hand_number"], snap.seat
        over = v["phase"] in ("hand_over", "match_over")
        seen = {c for cards in card_lists(v) for c in cards}
        if not over:
            played = {c for t in v["tricks"] for c in t["cards"]} | set((v["trick"] or {}).get("cards") or ())
            own = set(self.deals[hand][seat]) if hand <= self.week.boards else set(seen)
            assert seen <= own | played, (snap.code, hand, seat, sorted(seen - own - played))
        assert all(r["number"] <= hand for r in v["results"])
        text = json.dumps(dataclasses.asdict(snap), default=str) + json.dumps(record)
        assert self.secret not in text
        finished = len(v["results"])
        for board in range(finished + 1, self.week.boards + 1):
            assert hand_seed(self.secret, board) not in text, (snap.code, board)
        hands = record["hands"]
        assert len(hands) <= hand
        if hands and not over:
            last = hands[-1]
            assert "fairness" not in last
            shown = {c for cards in last["deal"] for c in cards}
            assert shown <= set(self.deals[hand][seat]) | set(last["plays"])
        self.checked += 1


def play_table(service, code, people, pick, watch, boards=BOARDS):
    """Play a table's hands through the service until ``boards`` hands are over: each
    person's move chosen by ``pick(legal)``, Continue pressed by each person (with a
    contribution, which a table of boards must not take); every snapshot checked."""
    for _ in range(5000):
        assert service.wait_idle()
        snaps = {p: service.snapshot(code, p) for p in people}
        for p, snap in snaps.items():
            watch.check(snap, service.record(code, p))
        v = next(iter(snaps.values())).view.to_json()
        if v["finished"] or len(v["results"]) >= boards:
            return v
        try:
            if v["phase"] == "hand_over":
                for p in snaps:
                    service.handle(code, Player(p), Continue(v["version"], CONTRIBUTION))
                continue
            for p, snap in snaps.items():
                if v["to_act"] == snap.seat:
                    service.act(code, Player(p), str(pick(snap.view.to_json()["legal"])), v["version"])
        except Stale:
            continue
    raise AssertionError("the table did not get through its boards")


def seats(people: dict[int, str]) -> list[SeatRow]:
    return [SeatRow(s, "human", people[s], people[s].title()) if s in people else SeatRow(s, "bot", None, f"Bot {s}")
            for s in range(4)]


def test_a_week_of_boards_at_three_tables(service, client):
    store, now = service.store, service.now()
    week = new_week(store, "friends", "ann", BOARDS, Rules(), now, draw=service.new_seed)
    # the commitments exist from the start, each of its board's seed; the secret stays put
    committed = boards_of(week)
    assert [(b.number, b.dealer) for b in committed] == [(1, 1), (2, 2), (3, 3), (4, 0)]
    assert not board_records_open(week) and reveal(week) is None
    fair = FairDeals(week_secret(week.seed))
    deals = {k: [[str(c) for c in cards] for cards in fair(k, k % 4)] for k in range(1, BOARDS + 1)}
    watch = Watch(week, deals)

    # three tables: two live, one turn-based; people play differently at each
    a = start_board_table(service, week, seats({0: "ann", 1: "bob"}))
    b = start_board_table(service, week, seats({2: "cy", 3: "dee"}), tempo="days-1")
    c = start_board_table(service, week, seats({0: "eve"}))
    assert service.snapshot(b, "cy").around.tempo == "days-1"
    with pytest.raises(BoardsError, match="once"):
        start_board_table(service, week, seats({0: "bob"}))
    assert "once" in seat_refusal(store, c, "bob") and seat_refusal(store, a, "bob") is None
    assert seat_refusal(store, a, "zed") is None
    # nobody watches a table of boards, and nobody there may let watchers in
    with client.session_transaction() as session:
        session["pid"] = "zed"
    assert client.get(f"/g/{a}").status_code == 403
    with pytest.raises(NotHost):
        service.handle(a, Player("ann"), SetWatching(True))
    assert not table_records_open(store, a) and table_records_open(store, "NOPE00")

    # C plays two boards only for now: the standings count what each table has finished
    play_table(service, c, ["eve"], lambda legal: legal[len(legal) // 2], watch, boards=2)
    partial = week_standings(store, week.id)
    assert {t.table: t.boards for t in partial.teams} == {c: 2, a: 0, b: 0}
    play_table(service, a, ["ann", "bob"], lambda legal: legal[0], watch)
    play_table(service, b, ["cy", "dee"], lambda legal: legal[-1], watch)
    play_table(service, c, ["eve"], lambda legal: legal[len(legal) // 2], watch)
    assert watch.checked > 300

    # the same deals from the same dealer at every table: the week's boards
    records = {code: service.record(code, None) for code in (a, b, c)}
    for code, record in records.items():
        for k in range(1, BOARDS + 1):
            hand = record["hands"][k - 1]
            assert hand["dealer"] == k % 4
            assert [sorted(cards) for cards in hand["deal"]] == [sorted(cards) for cards in deals[k]], (code, k)
            assert hand["fairness"]["contributions"] == []
            assert hand["fairness"]["commitment"] == committed[k - 1].commitment

    # the standings: each board's points per direction, compared table by table
    someone = {a: "ann", b: "cy", c: "eve"}
    scores = {code: {r["number"]: tuple(t["total"] for t in r["teams"]) for r in service.snapshot(
        code, someone[code]).view.to_json()["results"] if r["number"] <= BOARDS} for code in (a, b, c)}
    assert len({json.dumps(scores[a]), json.dumps(scores[b]), json.dumps(scores[c])}) > 1  # not all alike
    expected = {}
    for code in scores:
        for side in (0, 1):
            mp = 0
            for k in range(1, BOARDS + 1):
                for other in scores:
                    if other != code:
                        mine, theirs = scores[code][k][side], scores[other][k][side]
                        mp += 2 if mine > theirs else 1 if mine == theirs else 0
            expected[code, side] = mp
    standings = week_standings(store, week.id)
    assert {(t.table, t.side): t.matchpoints for t in standings.teams} == expected
    assert all(t.top == BOARDS * 4 for t in standings.teams)
    assert sum(expected.values()) == BOARDS * 2 * 6  # each pair of tables shares 2 points a board a direction
    people = {p.person: p.matchpoints for p in standings.people}
    assert people == {"ann": expected[a, 0], "bob": expected[a, 1], "cy": expected[b, 0], "dee": expected[b, 1],
                      "eve": expected[c, 0]}
    assert partial.played == {"eve": frozenset({1, 2}), "ann": frozenset(), "bob": frozenset(), "cy": frozenset(),
                              "dee": frozenset()}
    assert standings.played["dee"] == frozenset(range(1, BOARDS + 1))

    # the week closes: the records open, the secret is revealed and every board verifies
    assert close_week(store, week.id)
    week = store.board_week(week.id)
    assert board_records_open(week) and table_records_open(store, a)
    with pytest.raises(BoardsError, match="closed"):
        start_board_table(service, week, seats({0: "fay"}))
    shown = reveal(week)
    assert shown["secret"] == week_secret(week.seed)
    assert verify_record(shown) == {"ok": True, "hands": BOARDS}
    assert [h["fairness"]["commitment"] for h in shown["hands"]] == [b.commitment for b in committed]
    for record in records.values():
        assert verify_record(record)["ok"]
    tampered = json.loads(json.dumps(shown))
    tampered["hands"][2]["deal"][0][0], tampered["hands"][2]["deal"][1][0] = (
        tampered["hands"][2]["deal"][1][0], tampered["hands"][2]["deal"][0][0])
    assert verify_record(tampered)["ok"] is False


def test_a_table_of_boards_deals_the_same_after_a_restart(tmp_path):
    """The boards are stored as the table's deals: a server starting again on the same
    database deals the next board as the week committed it (Continue's contribution,
    sent before the restart, is not taken)."""
    from helpers.house import service_on

    path = str(tmp_path / "boards.db")
    first, store = service_on(path, "r")
    week = new_week(store, "friends", "ann", BOARDS, Rules(), first.now(), draw=first.new_seed)
    fair = FairDeals(week_secret(week.seed))
    deals = {k: [[str(c) for c in cards] for cards in fair(k, k % 4)] for k in range(1, BOARDS + 1)}
    code = start_board_table(first, week, seats({3: "ann"}), tempo="untimed")
    play_table(first, code, ["ann"], lambda legal: legal[0], Watch(week, deals), boards=1)
    version = first.snapshot(code, "ann").view.to_json()["version"]
    first.handle(code, Player("ann"), Continue(version, CONTRIBUTION))
    first.close()

    second, _ = service_on(path, "s")
    second.resume_all()
    assert second.wait_idle()
    v = second.snapshot(code, "ann").view.to_json()
    assert (v["hand_number"], v["dealer"]) == (2, 2)
    assert sorted(v["hand"]) == sorted(deals[2][3])
    assert store.hand_contributions(code, 1) == {1: (), 2: ()}
    watch = Watch(week, deals)
    play_table(second, code, ["ann"], lambda legal: legal[0], watch)
    record = second.record(code, "ann")
    assert [[sorted(c) for c in h["deal"]] for h in record["hands"][:BOARDS]] == [
        [sorted(c) for c in deals[k]] for k in range(1, BOARDS + 1)]
    second.close()
