"""A tourney on duplicate deals, through real tables on an injected clock: every table of a
round is dealt the same hands (contributions with Continue are not taken), nobody watches
those tables, their records stay shut until the round is over, and then the round's teams
are compared hand by hand, with matchpoints worked out here by hand. A tourney without
the option deals each table its own hands, as before."""

from __future__ import annotations

import itertools

import pytest
from conftest import FakeClock
from helpers.tourney import DIRECTOR, INSTANT, everyone, play_table, ready_all, register_teams, settle

from spades.rules import IllegalAction
from spades.rules_config import Rules
from spades.storage import Store
from spades.tables import Player, SetWatching, TableService
from spades.tourney import TourneyService
from spades.tourney.duplicate import records_open, round_deals, round_seed
from spades.tourney.transitions import play_bots

TWO_HANDS = {"end": "hands", "hands": 2}  # tests only: every match is two hands
CONTRIBUTION = "0123456789abcdef" * 2


@pytest.fixture
def svc(tmp_path, pool):
    store = Store(str(tmp_path / "duplicate.db"))
    seeds = (f"table-{n}" for n in itertools.count())
    clock = FakeClock()
    tables = TableService(store, pool=pool, play_delays=INSTANT, clock=clock, new_seed=lambda: next(seeds))
    tourneys = TourneyService(store, tables, clock=clock, new_seed=lambda: "dup-seed", rules_override=TWO_HANDS)
    yield tables, tourneys
    tourneys.close()
    tables.close()


def round_one(tables: TableService, tourneys: TourneyService, duplicate: bool) -> tuple[str, list[str], list[str]]:
    """A Swiss tourney of four teams of people, one round, everyone ready: its code, the
    people, and its two tables' codes."""
    code = tourneys.create(DIRECTOR, "Duplicate night", format="swiss", rounds=1, team_limit=4,
                           duplicate=duplicate)
    people = everyone(register_teams(tourneys, code, 4))
    tourneys.start(code, DIRECTOR)
    ready_all(tourneys, code, people)
    settle(tables, tourneys)
    codes = [tv.table for tv in tourneys.view(code, None).rounds[0].tables]
    assert len(codes) == 2 and all(codes)
    return code, people, codes


def deals(tables: TableService, code: str) -> list[list[list[str]]]:
    return [[sorted(cards) for cards in hand["deal"]] for hand in tables.record(code, None)["hands"]]


def test_every_table_of_a_round_plays_the_same_hands_and_the_teams_are_compared(svc):
    tables, tourneys = svc
    code, people, (a, b) = round_one(tables, tourneys, duplicate=True)
    view = tourneys.view(code, None)
    assert view.duplicate and not view.rounds[0].over and view.rounds[0].compared == ()

    # the same first hand, from the same dealer, at both tables
    first = {}
    for table in (a, b):
        seats = tables.seats(table)
        first[table] = [tuple(tables.snapshot(table, s.player_id).view.to_json()["hand"]) for s in seats]
        assert tables.snapshot(table, None).view.match.dealer == tables.snapshot(a, None).view.match.dealer
    assert first[a] == first[b]

    # nobody watches, and the host cannot let anyone in
    host = tables.seats(a)[0].player_id
    assert not tables.snapshot(a, None).around.watchable and tables.snapshot(a, host).around.watch_fixed
    with pytest.raises(IllegalAction, match="other tables play the same deals"):
        tables.handle(a, Player(host), SetWatching(True))

    # table A finishes first, its people offering contributions with Continue: not taken
    play_table(tables, a, CONTRIBUTION)
    settle(tables, tourneys)
    assert not records_open(tables.store, a) and not records_open(tables.store, b)
    view = tourneys.view(code, None)
    assert not view.rounds[0].over and view.rounds[0].compared == ()

    play_table(tables, b)
    settle(tables, tourneys)
    assert records_open(tables.store, a) and records_open(tables.store, b) and records_open(tables.store, "NOPE00")
    assert deals(tables, a) == deals(tables, b) and len(deals(tables, a)) == 2
    assert all(hand["fairness"]["contributions"] == [] for hand in tables.record(a, None)["hands"])

    # compared: hand k's points per direction at A against B's, worked out here
    points = {t: [tuple(team["total"] for team in r["teams"]) for r in tables.snapshot(t, None).view.match.results]
              for t in (a, b)}
    view = tourneys.view(code, None)
    assert view.status == "finished" and view.rounds[0].over
    expected = {}
    for tv, mine, theirs in ((view.rounds[0].tables[0], points[a], points[b]),
                             (view.rounds[0].tables[1], points[b], points[a])):
        for side, team in enumerate(tv.teams):
            expected[team] = sum(2 if m[side] > t[side] else 1 if m[side] == t[side] else 0
                                 for m, t in zip(mine, theirs, strict=True))
    compared = view.rounds[0].compared
    assert {c.team: c.matchpoints for c in compared} == expected
    assert all(c.top == 4 and c.hands == 2 for c in compared)
    assert [c.matchpoints for c in compared] == sorted(expected.values(), reverse=True)
    assert {c.direction for c in compared} == {"North-South", "East-West"}
    assert sum(expected.values()) == 8  # two tables share 2 points a hand a direction


def test_two_bot_teams_play_the_round_s_deals_too_and_are_compared(svc):
    """One team of people and three bot teams: two bot teams meet, without a table; the
    engine plays their match on the round's deals, and it is compared with the table's."""
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "With bots", format="swiss", rounds=1, team_limit=4, bot_fill=True,
                           duplicate=True)
    people = everyone(register_teams(tourneys, code, 1))
    bots = [tourneys.add_bot_team(code, DIRECTOR) for _ in range(3)]
    tourneys.start(code, DIRECTOR)
    ready_all(tourneys, code, people)
    settle(tables, tourneys)
    table = next(tv for tv in tourneys.view(code, None).rounds[0].tables if tv.table)
    assert not tourneys.view(code, None).rounds[0].over
    play_table(tables, table.table)
    settle(tables, tourneys)

    rules = Rules.from_dict(tables.record(table.table, None)["rules"])
    seed = round_seed("dup-seed", 1)
    engine = play_bots(rules, seed, round_deals(rules, seed))
    assert [[sorted(str(c) for c in cards) for cards in r.deal] for r in engine.results] == deals(tables, table.table)
    view = tourneys.view(code, None)
    pairing = next(tv for tv in view.rounds[0].tables if not tv.table)
    assert set(pairing.teams) <= set(bots) and pairing.hands == 2
    assert pairing.score == tuple(engine.results[-1].totals)  # the bots' match is the one on the round's deals
    ours = [tuple(team["total"] for team in r["teams"]) for r in tables.snapshot(table.table, None).view.match.results]
    theirs = [(r.score.teams[0].total, r.score.teams[1].total) for r in engine.results]
    expected = {}
    for tv, mine, other in ((table, ours, theirs), (pairing, theirs, ours)):
        for side, team in enumerate(tv.teams):
            expected[team] = sum(2 if m[side] > t[side] else 1 if m[side] == t[side] else 0
                                 for m, t in zip(mine, other, strict=True))
    assert {c.team: c.matchpoints for c in view.rounds[0].compared} == expected


def test_without_the_option_each_table_has_its_own_hands_and_may_be_watched(svc):
    tables, tourneys = svc
    code, _, (a, b) = round_one(tables, tourneys, duplicate=False)
    assert not tourneys.view(code, None).duplicate
    hands = [tables.snapshot(t, tables.seats(t)[0].player_id).view.to_json()["hand"] for t in (a, b)]
    assert hands[0] != hands[1]
    assert tables.snapshot(a, None).around.watchable and not tables.snapshot(a, None).around.watch_fixed
    play_table(tables, a)
    assert records_open(tables.store, a)
