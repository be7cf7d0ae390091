"""The tourney service on an injected clock, through real tables: knockouts of 6, 8 and 13
teams and a Swiss of 5 teams played to the end, walkovers past the ready window, solos
paired (an odd one with a bot), check-in at a set start time, a restart mid-round, and
every refusal in plain words.

People play their own seats here: the test presses their Ready, plays their first legal
card and presses Continue after each hand; bots at the same tables move through the
table service's scheduler. Each match is one hand (``rules_override``, a test-only
option). Time moves only when a test moves the clock.
"""

from __future__ import annotations

import itertools

import pytest
from conftest import FakeClock
from helpers.tourney import DIRECTOR, INSTANT, everyone, play_table, ready_all, register_teams, settle

from spades.storage import Store
from spades.tables import EMOJIS, Player, TableService
from spades.tourney import (
    AlreadyRegistered,
    BadEntry,
    BadTeamLink,
    NotDirector,
    NothingToReady,
    RegistrationClosed,
    TourneyError,
    TourneyFull,
    TourneyNotFound,
    TourneyOver,
    TourneyService,
    TourneyView,
    page_channel,
)

ONE_HAND = {"end": "hands", "hands": 1}  # tests only: every match is one hand


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "tourney.db")


def services(path: str, pool, clock, seed: str = "tourney-seed") -> tuple[TableService, TourneyService]:
    store = Store(path)
    seeds = (f"table-{n}" for n in itertools.count())
    tables = TableService(store, pool=pool, play_delays=INSTANT, clock=clock, new_seed=lambda: next(seeds))
    tourneys = TourneyService(store, tables, clock=clock, new_seed=lambda: seed, rules_override=ONE_HAND)
    return tables, tourneys


@pytest.fixture
def svc(path, pool, clock):
    tables, tourneys = services(path, pool, clock)
    yield tables, tourneys
    tourneys.close()
    tables.close()


def play_out(tables: TableService, tourneys: TourneyService, code: str, people: list[str]) -> TourneyView:
    """Ready and play every match until the tourney is over."""
    for _ in range(200):
        settle(tables, tourneys)
        view = tourneys.view(code, None)
        if view.status != "running":
            return view
        ready_all(tourneys, code, people)
        settle(tables, tourneys)
        for tv in (tv for r in tourneys.view(code, None).rounds for tv in r.tables):
            if tv.status == "playing":
                play_table(tables, tv.table)
    raise AssertionError("the tourney did not finish")


def played(view: TourneyView) -> list:
    return [tv for r in view.rounds for tv in r.tables if tv.status == "done"]


# -- knockout ------------------------------------------------------------------------------
def test_knockout_of_six_teams_gives_two_byes_and_is_played_to_the_end_at_real_tables(svc):
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "Spring Cup", team_limit=8)
    teams = register_teams(tourneys, code, 6)
    tourneys.start(code, DIRECTOR)
    view = tourneys.view(code, None)
    assert view.status == "running" and view.round_count == 3
    first = view.rounds[0]
    seeds = {t.id: t.seed for t in view.teams}
    assert sorted(seeds[b] for b in first.byes) == [1, 2]  # the first seeds have the byes
    assert [tv.status for tv in first.tables] == ["due", "due"]
    assert [r.target for r in view.rounds] == [300, 500, 500]  # semifinals and final to 500

    view = play_out(tables, tourneys, code, everyone(teams))
    assert view.status == "finished" and view.finished is not None
    assert len(played(view)) == 5 and not view.walkovers
    for tv in played(view):
        assert tv.hands == 1 and tv.table is not None and tv.winner in tv.teams
        snap = tables.snapshot(tv.table, None)
        assert snap.around.tourney == code and snap.view.to_json()["finished"]
        assert list(snap.view.to_json()["scores"]) == list(tv.score)
        a, b = tv.teams
        # team A at seats 0 and 2, team B at 1 and 3
        names = {t.id: [p.name for p in t.players] for t in view.teams}
        seated = snap.around.names
        assert [seated[0], seated[2]] == names[a] and [seated[1], seated[3]] == names[b]
        assert snap.view.to_json()["rules"]["mode"] == "no_bidding"
    assert sorted(r.label for r in view.ranks) == ["1", "2", "3=", "3=", "5=", "5="]
    champion = view.rounds[-1].tables[0].winner
    assert view.ranks[0].team == champion


def test_knockout_of_eight_teams_with_bot_teams_plays_bot_pairings_without_a_table(svc):
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "Bots welcome", team_limit=8, bot_fill=True)
    teams = register_teams(tourneys, code, 5)
    bot_ids = [tourneys.add_bot_team(code, DIRECTOR) for _ in range(3)]
    view = tourneys.view(code, None)
    assert view.places == 8
    for team in view.teams:
        assert team.bot == (team.id in bot_ids)
        assert all(p.bot for p in team.players) == team.bot
    tourneys.start(code, DIRECTOR)
    view = tourneys.view(code, None)
    assert not view.rounds[0].byes and len(view.rounds[0].tables) == 4
    seeds = {t.id: t.seed for t in view.teams}
    assert sorted(seeds[b] for b in bot_ids) == [6, 7, 8]  # bot teams are seeded after the people's

    view = play_out(tables, tourneys, code, everyone(teams))
    assert view.status == "finished" and len(played(view)) == 7
    for tv in played(view):
        both_bots = all(t in bot_ids for t in tv.teams)
        assert (tv.table is None) == both_bots  # two bot teams: the engine plays it, no table
        assert tv.hands >= 1 and tv.winner in tv.teams
    assert sorted(r.rank for r in view.ranks) == [1, 2, 3, 3, 5, 5, 5, 5]


def test_knockout_of_thirteen_teams_runs_to_the_end(svc):
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "Thirteen", team_limit=16)
    teams = register_teams(tourneys, code, 13)
    tourneys.start(code, DIRECTOR)
    view = tourneys.view(code, None)
    assert len(view.rounds[0].byes) == 3 and view.round_count == 4
    view = play_out(tables, tourneys, code, everyone(teams))
    assert view.status == "finished"
    assert len(played(view)) == 12
    assert sorted(r.rank for r in view.ranks) == [1, 2, 3, 3, 5, 5, 5, 5, 9, 9, 9, 9, 9]
    codes = [tv.table for tv in played(view)]
    assert len(set(codes)) == 12  # a table per match
    assert view.rounds_json()[0]["byes"] == list(view.rounds[0].byes)


def test_a_winner_is_asked_ready_for_the_next_match_as_soon_as_its_opponent_is_known(svc):
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "Quick", team_limit=4)
    teams = register_teams(tourneys, code, 4)
    tourneys.start(code, DIRECTOR)
    ready_all(tourneys, code, everyone(teams))
    settle(tables, tourneys)
    first, second = tourneys.view(code, None).rounds[0].tables
    play_table(tables, first.table)
    settle(tables, tourneys)
    view = tourneys.view(code, None)
    final = view.rounds[1].tables[0]
    assert final.status == "waiting" and view.rounds[0].tables[1].status == "playing"
    winner = view.rounds[0].tables[0].winner
    pid = teams[winner][0]
    with pytest.raises(NothingToReady, match="no match waiting"):
        tourneys.ready(code, pid)
    play_table(tables, second.table)
    settle(tables, tourneys)
    mine = tourneys.view(code, pid).my_match
    assert mine is not None and mine.round == 2 and mine.target == 500 and mine.table is None
    assert mine.deadline == mine.due + 120


# -- Swiss ---------------------------------------------------------------------------------
def test_swiss_of_five_teams_over_three_rounds_gives_a_bye_each_round_and_no_repeat(svc):
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "Swiss five", format="swiss", rounds=3, team_limit=6)
    teams = register_teams(tourneys, code, 5)
    tourneys.start(code, DIRECTOR)
    view = play_out(tables, tourneys, code, everyone(teams))
    assert view.status == "finished" and view.round_count == 3
    assert [r.target for r in view.rounds] == [300, 300, 500]
    byes = [b for r in view.rounds for b in r.byes]
    assert len(byes) == 3 and len(set(byes)) == 3  # a bye each round, never twice to a team
    pairs = [frozenset(tv.teams) for r in view.rounds for tv in r.tables]
    assert len(pairs) == 6 and len(set(pairs)) == 6  # no repeat pairing
    assert all(tv.table is not None and tv.hands == 1 for r in view.rounds for tv in r.tables)
    assert len(view.standings) == 5
    for s in view.standings:
        assert s.wins + s.losses == 3 and s.diff == s.points_for - s.points_against
    keys = [(-s.wins, -s.buchholz, -s.diff) for s in view.standings]
    assert keys == sorted(keys)
    assert [r.team for r in view.ranks] == [s.team for s in view.standings]


def test_a_swiss_round_starts_only_when_the_last_table_of_the_round_before_ends(svc):
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "Swiss four", format="swiss", rounds=2, team_limit=4)
    teams = register_teams(tourneys, code, 4)
    tourneys.start(code, DIRECTOR)
    ready_all(tourneys, code, everyone(teams))
    settle(tables, tourneys)
    one, two = tourneys.view(code, None).rounds[0].tables
    play_table(tables, one.table)
    settle(tables, tourneys)
    assert len(tourneys.view(code, None).rounds) == 1
    play_table(tables, two.table)
    settle(tables, tourneys)
    view = tourneys.view(code, None)
    assert len(view.rounds) == 2 and all(tv.status == "due" for tv in view.rounds[1].tables)


# -- walkovers -----------------------------------------------------------------------------
def test_a_team_not_ready_in_the_window_loses_by_walkover(svc, clock):
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "Two teams", team_limit=2)
    teams = register_teams(tourneys, code, 2)
    tourneys.start(code, DIRECTOR)
    (ready_team, a_people), (late_team, b_people) = teams.items()
    for pid in a_people:
        tourneys.ready(code, pid)
    tourneys.ready(code, b_people[0])  # the partner never presses Ready
    tourneys.ready(code, b_people[0])  # pressing twice changes nothing
    mine = tourneys.view(code, a_people[0]).my_match
    assert mine.team_ready and not mine.opponent_ready and mine.table is None
    clock.now += 119
    tourneys.tick()
    assert tourneys.view(code, None).status == "running"
    clock.now += 2
    tourneys.tick()
    view = tourneys.view(code, DIRECTOR)
    assert view.status == "finished" and view.director
    (walkover,) = view.walkovers
    assert walkover.winner == ready_team and walkover.losers == (late_team,)
    assert walkover.reason == "not ready in time"
    final = view.rounds[0].tables[0]
    assert final.status == "walkover" and final.hands == 0 and final.table is None
    assert view.ranks[0].team == ready_team
    late = next(t for t in view.teams if t.id == late_team)
    assert "walkover" in late.note


def test_neither_ready_in_a_knockout_the_team_with_more_people_ready_goes_through(svc, clock):
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "Sleepy", team_limit=2)
    teams = register_teams(tourneys, code, 2)
    tourneys.start(code, DIRECTOR)
    (half, people), (none, _) = teams.items()
    tourneys.ready(code, people[1])
    clock.now += 121
    tourneys.tick()
    view = tourneys.view(code, None)
    assert view.walkovers[0].winner == half and view.status == "finished"


def test_neither_ready_in_swiss_both_take_a_loss(svc, clock):
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "No shows", format="swiss", rounds=1, team_limit=2)
    register_teams(tourneys, code, 2)
    tourneys.start(code, DIRECTOR)
    clock.now += 121
    tourneys.tick()
    view = tourneys.view(code, None)
    assert view.status == "finished"
    (walkover,) = view.walkovers
    assert walkover.winner is None and len(walkover.losers) == 2
    assert [(s.wins, s.losses) for s in view.standings] == [(0, 1), (0, 1)]


def test_the_director_removes_a_running_team_and_its_opponent_goes_through_at_once(svc):
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "Removal", team_limit=2)
    teams = register_teams(tourneys, code, 2)
    tourneys.start(code, DIRECTOR)
    (stay, _), (gone, gone_people) = teams.items()
    tourneys.remove_team(code, DIRECTOR, gone)
    view = tourneys.view(code, None)
    assert view.status == "finished" and view.walkovers[0].winner == stay
    assert view.walkovers[0].reason == "removed by the director"
    with pytest.raises(NothingToReady):
        tourneys.ready(code, gone_people[0])


# -- solos and check-in --------------------------------------------------------------------
def test_solos_are_paired_at_the_start_and_an_odd_one_plays_with_a_bot(svc):
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "Solos", team_limit=4)
    teams = register_teams(tourneys, code, 2)
    solos = ["s1", "s2", "s3"]
    for n, pid in enumerate(solos):
        tourneys.register_solo(code, pid, f"Solo {n}", EMOJIS[n])
    assert tourneys.view(code, None).places == 4  # two teams, and three solos take two places
    with pytest.raises(TourneyFull):
        tourneys.register_team(code, "t9", "Nine", EMOJIS[4])
    tourneys.start(code, DIRECTOR)
    view = tourneys.view(code, None)
    solo_teams = [t for t in view.teams if t.solo and t.state == "in"]
    assert len(solo_teams) == 2 and len([t for t in view.teams if t.state == "in"]) == 4
    with_bot = [t for t in solo_teams if any(p.bot for p in t.players)]
    assert len(with_bot) == 1 and with_bot[0].players[1].bot and with_bot[0].players[1].name == "Bot"
    assert not with_bot[0].bot  # a person's team with a bot partner, not a bot team
    paired = next(t for t in solo_teams if t is not with_bot[0])
    assert {p.name for p in paired.players} <= {"Solo 0", "Solo 1", "Solo 2"} and paired.complete
    mine = {pid: tourneys.view(code, pid).my_team for pid in solos}
    assert sorted(list(mine.values()).count(t.id) for t in solo_teams) == [1, 2]
    view = play_out(tables, tourneys, code, everyone(teams) + solos)
    assert view.status == "finished" and len(played(view)) == 3


def test_at_a_set_start_time_people_check_in_and_the_missing_are_dropped(svc, clock):
    tables, tourneys = svc
    start = clock.now + 3600
    code = tourneys.create(DIRECTOR, "Evening", team_limit=8, start_at=start, checkin_s=600)
    teams = register_teams(tourneys, code, 3)
    tourneys.register_solo(code, "solo", "Sol", EMOJIS[5])
    (full, full_people), (half, half_people), (absent, _) = teams.items()
    with pytest.raises(NothingToReady, match="Check-in opens 10 minutes before the start"):
        tourneys.ready(code, full_people[0])
    with pytest.raises(TourneyError, match="starts by itself"):
        tourneys.start(code, DIRECTOR)
    clock.now = start - 300
    for pid in (*full_people, half_people[0], "solo"):
        tourneys.ready(code, pid)
    tourneys.register_team(code, "late", "Late", EMOJIS[6])  # registering in the window checks in
    assert tourneys.view(code, "late").checked_in
    tourneys.tick()
    assert tourneys.view(code, None).status == "registering"
    clock.now = start
    tourneys.tick()
    view = tourneys.view(code, None)
    assert view.status == "running"
    state = {t.id: t for t in view.teams}
    assert state[full].state == "in" and not state[full].solo
    assert state[absent].state == "dropped" and state[absent].note == "Did not check in."
    # the half-checked-in team's person, the solo and the late registrant (alone) play as solos
    solo_teams = [t for t in view.teams if t.state == "in" and t.solo]
    names = sorted(p.name for t in solo_teams for p in t.players)
    assert names == sorted(["At1", "Sol", "Late", "Bot"])
    dropped_names = [p.name for t in view.teams if t.state == "dropped" for p in t.players]
    assert "Bt1" in dropped_names  # the partner who did not check in


def test_a_set_start_with_fewer_than_two_teams_there_cancels_the_tourney(svc, clock):
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "Empty", team_limit=4, start_at=clock.now + 120, checkin_s=60)
    register_teams(tourneys, code, 2)  # before check-in opens: nobody checks in after
    clock.now += 120
    tourneys.tick()
    view = tourneys.view(code, None)
    assert view.status == "cancelled" and "Fewer than two teams" in view.note


def test_a_set_start_with_no_check_in_window_plays_everyone_registered(svc, clock):
    _, tourneys = svc
    code = tourneys.create(DIRECTOR, "No check-in", team_limit=4, start_at=clock.now + 120, checkin_s=0)
    teams = register_teams(tourneys, code, 2)
    with pytest.raises(NothingToReady, match="no check-in"):
        tourneys.ready(code, next(iter(teams.values()))[0])
    clock.now += 120
    tourneys.tick()
    view = tourneys.view(code, None)
    assert view.status == "running" and [t.state for t in view.teams] == ["in", "in"]


# -- a restart -----------------------------------------------------------------------------
def test_a_restart_mid_round_keeps_the_bracket_and_the_running_tables_finish(path, pool, clock):
    tables, tourneys = services(path, pool, clock)
    code = tourneys.create(DIRECTOR, "Restart", team_limit=8)
    teams = register_teams(tourneys, code, 8)
    tourneys.start(code, DIRECTOR)
    ready_all(tourneys, code, everyone(teams))
    settle(tables, tourneys)
    before = tourneys.view(code, None)
    codes = [tv.table for tv in before.rounds[0].tables]
    assert all(codes) and len(set(codes)) == 4
    play_table(tables, codes[0])
    settle(tables, tourneys)
    winner = tourneys.view(code, None).rounds[0].tables[0].winner
    assert winner is not None
    tourneys.close()  # the tourney service is gone: this table finishes unheard
    play_table(tables, codes[1])
    tables.wait_idle()
    for c in codes[2:]:  # the other two are mid-hand
        for _ in range(3):
            view = tables.snapshot(c, None).view.to_json()
            pid = tables.seats(c)[view["to_act"]].player_id
            tables.act(c, Player(pid), tables.snapshot(c, pid).view.to_json()["legal"][0])
            tables.wait_idle()
    tables.close()

    tables2, tourneys2 = services(path, pool, clock)
    try:
        assert tables2.resume_all() == 2  # the two tables still playing
        assert [tv.status for tv in tourneys2.view(code, None).rounds[0].tables] == ["done"] + ["playing"] * 3
        tourneys2.resume()  # the table that finished while the service was down is recorded
        settle(tables2, tourneys2)
        after = tourneys2.view(code, None)
        first = after.rounds[0].tables
        assert [tv.table for tv in first] == codes
        assert [tv.status for tv in first] == ["done", "done", "playing", "playing"]
        assert first[0].winner == winner and first[1].winner in first[1].teams
        assert after.rounds[1].tables[0].status == "due"  # both its teams are known
        assert tables2.snapshot(codes[2], None).view.to_json()["version"] > 0
        view = play_out(tables2, tourneys2, code, everyone(teams))
        assert view.status == "finished" and len(played(view)) == 7
        assert [tv.table for tv in view.rounds[0].tables] == codes
    finally:
        tourneys2.close()
        tables2.close()


# -- refusals ------------------------------------------------------------------------------
def test_registration_refusals_are_plain_sentences(svc):
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "Small", team_limit=2)
    token = tourneys.register_team(code, "ann", "Ann", EMOJIS[0])
    with pytest.raises(AlreadyRegistered, match="already in this team"):
        tourneys.join_team(code, token, "ann", "Ann", EMOJIS[0])
    with pytest.raises(AlreadyRegistered, match="already registered"):
        tourneys.register_solo(code, "ann", "Ann", EMOJIS[0])
    with pytest.raises(BadTeamLink, match="does not work"):
        tourneys.join_team(code, "not-a-token", "bo", "Bo", EMOJIS[1])
    tourneys.join_team(code, token, "bo", "Bo", EMOJIS[1])
    with pytest.raises(BadTeamLink, match="two players"):
        tourneys.join_team(code, token, "cy", "Cy", EMOJIS[2])
    tourneys.register_solo(code, "cy", "Cy", EMOJIS[2])
    with pytest.raises(TourneyFull, match="all 2 places are taken"):
        tourneys.register_team(code, "di", "Di", EMOJIS[3])
    tourneys.register_solo(code, "di", "Di", EMOJIS[3])  # two solos are one team
    with pytest.raises(TourneyFull):
        tourneys.register_solo(code, "ed", "Ed", EMOJIS[4])
    with pytest.raises(BadEntry):
        tourneys.register_team(code, "fy", "", EMOJIS[0])
    with pytest.raises(BadEntry):
        tourneys.register_team(code, "fy", "Fy", "not an emoji")
    for act in (lambda: tourneys.start(code, "ann"), lambda: tourneys.cancel(code, "ann"),
                lambda: tourneys.add_bot_team(code, "ann"), lambda: tourneys.remove_team(code, "ann", 1)):
        with pytest.raises(NotDirector, match="Only the tourney's director"):
            act()
    with pytest.raises(TourneyError, match="people only"):
        tourneys.add_bot_team(code, DIRECTOR)
    with pytest.raises(TourneyError, match="no such team"):
        tourneys.remove_team(code, DIRECTOR, 99)
    with pytest.raises(TourneyError, match="no such team"):
        tourneys.remove_team(code, DIRECTOR, "junk")  # type: ignore[arg-type]
    with pytest.raises(NothingToReady, match="director starts"):
        tourneys.ready(code, "ann")
    with pytest.raises(NothingToReady, match="not playing"):
        tourneys.ready(code, "stranger")
    with pytest.raises(TourneyNotFound, match="no tourney with that code"):
        tourneys.view("NOPE99", None)
    with pytest.raises(TourneyNotFound):
        tourneys.register_solo(None, "x", "X", EMOJIS[0])  # type: ignore[arg-type]
    tourneys.start(code, DIRECTOR)
    with pytest.raises(RegistrationClosed, match="closed"):
        tourneys.register_solo(code, "gi", "Gi", EMOJIS[5])
    with pytest.raises(RegistrationClosed, match="already started"):
        tourneys.start(code, DIRECTOR)
    tourneys.cancel(code, DIRECTOR)
    assert tourneys.view(code, None).status == "cancelled"
    with pytest.raises(TourneyOver):
        tourneys.cancel(code, DIRECTOR)
    with pytest.raises(NothingToReady, match="over"):
        tourneys.ready(code, "ann")


@pytest.mark.parametrize("fields,words", [
    ({"name": ""}, "name"), ({"name": "x" * 61}, "too long"), ({"format": "league"}, "knockout or Swiss"),
    ({"format": "swiss"}, "rounds"), ({"format": "swiss", "rounds": 0}, "rounds"),
    ({"team_limit": 1}, "2 to 128"), ({"team_limit": "8"}, "2 to 128"), ({"start_at": 5.0}, "future"),
    ({"start_at": "tomorrow"}, "future"), ({"checkin_s": "soon"}, "check-in"), ({"checkin_s": -1}, "check-in"),
    ({"name": None}, "name"), ({"format": None}, "knockout or Swiss"),
])
def test_bad_tourney_settings_are_refused(svc, fields, words):
    _, tourneys = svc
    with pytest.raises(BadEntry, match=words):
        tourneys.create(DIRECTOR, **{"name": "Cup", **fields})


def test_a_team_token_is_shown_to_its_members_only_and_the_director_sees_the_director_flag(svc):
    _, tourneys = svc
    code = tourneys.create(DIRECTOR, "Tokens", team_limit=4)
    token = tourneys.register_team(code, "ann", "Ann", EMOJIS[0])
    assert tourneys.view(code, "ann").token == token
    assert tourneys.view(code, "bo").token is None and tourneys.view(code, None).token is None
    assert tourneys.view(code, DIRECTOR).director and not tourneys.view(code, "ann").director
    (team,) = tourneys.view(code, "ann").teams
    assert team.mine and not team.complete and team.players[0].me


# -- the creator, withdrawing --------------------------------------------------------------
def test_the_creator_who_plays_is_registered_with_the_tourney_alone_or_as_a_team(svc):
    _, tourneys = svc
    code = tourneys.create(DIRECTOR, "Mine", team_limit=4, player=("Dee", EMOJIS[2]))
    view = tourneys.view(code, DIRECTOR)
    (team,) = view.teams
    assert view.director and view.my_team == team.id and view.token is not None
    assert not team.solo and [(p.name, p.emoji, p.me) for p in team.players] == [("Dee", EMOJIS[2], True)]
    assert tourneys.join_team(code, view.token, "bo", "Bo", EMOJIS[1]) == team.id  # the link works
    alone = tourneys.create(DIRECTOR, "Mine alone", team_limit=4, player=("Dee", EMOJIS[2]), solo=True)
    (team,) = tourneys.view(alone, DIRECTOR).teams
    assert team.solo and tourneys.view(alone, DIRECTOR).token is None
    only = tourneys.create(DIRECTOR, "Directed", team_limit=4)
    assert tourneys.view(only, DIRECTOR).teams == () and tourneys.view(only, DIRECTOR).my_team is None
    with pytest.raises(BadEntry):  # a bad name makes no tourney at all
        tourneys.create("cy", "Bad name", team_limit=4, player=("", EMOJIS[0]))
    assert tourneys.store.player_tourneys("cy") == []


def test_withdrawing_before_the_start_frees_the_place_and_a_partner_stays(svc):
    _, tourneys = svc
    code = tourneys.create(DIRECTOR, "Leaving", team_limit=2)
    tourneys.register_solo(code, "sol", "Sol", EMOJIS[0])
    token = tourneys.register_team(code, "ann", "Ann", EMOJIS[1])
    tourneys.join_team(code, token, "bo", "Bo", EMOJIS[2])
    assert tourneys.view(code, None).places == 2
    # a solo who withdraws is gone: the team is left out of the page, its place is free
    tourneys.withdraw(code, "sol")
    view = tourneys.view(code, "sol")
    assert view.my_team is None and view.places == 1
    assert [p.name for t in view.teams for p in t.players] == ["Ann", "Bo"]
    # the team's first player leaves: Bo stays, now first, with the team's link to send again
    tourneys.withdraw(code, "ann")
    (team,) = tourneys.view(code, "bo").teams
    assert [p.name for p in team.players] == ["Bo"] and not team.complete and team.mine
    assert tourneys.view(code, "bo").token == token and tourneys.view(code, "ann").my_team is None
    assert tourneys.join_team(code, token, "cy", "Cy", EMOJIS[3]) == team.id  # a new partner by the same link
    (team,) = tourneys.view(code, "bo").teams
    assert [p.name for p in team.players] == ["Bo", "Cy"]
    tourneys.register_solo(code, "ann", "Ann", EMOJIS[1])  # who withdrew may register again
    # the team's last person leaves: the team is out, and its link says why
    tourneys.withdraw(code, "cy")
    tourneys.withdraw(code, "bo")
    assert [t.players[0].name for t in tourneys.view(code, None).teams] == ["Ann"]
    with pytest.raises(BadTeamLink, match="has withdrawn from the tourney"):
        tourneys.join_team(code, token, "di", "Di", EMOJIS[4])
    with pytest.raises(TourneyError, match="You are not registered in this tourney."):
        tourneys.withdraw(code, "bo")


def test_withdrawing_is_refused_after_the_start_in_a_plain_sentence(svc):
    _, tourneys = svc
    code = tourneys.create(DIRECTOR, "Started", team_limit=4)
    teams = register_teams(tourneys, code, 3)
    (_, (ann, _)), (removed, (cy, _)) = list(teams.items())[:2]
    tourneys.remove_team(code, DIRECTOR, removed)
    with pytest.raises(AlreadyRegistered, match="The director removed your team"):
        tourneys.withdraw(code, cy)
    tourneys.start(code, DIRECTOR)
    with pytest.raises(RegistrationClosed, match="The tourney has started: it is too late to withdraw."):
        tourneys.withdraw(code, ann)
    assert tourneys.view(code, ann).my_team is not None
    tourneys.cancel(code, DIRECTOR)
    with pytest.raises(TourneyOver, match="over"):
        tourneys.withdraw(code, ann)


# -- reads and notices ---------------------------------------------------------------------
def test_listing_shows_listed_tourneys_by_status_and_the_bus_hears_every_change(svc, clock):
    tables, tourneys = svc
    heard: list[str] = []
    tables.bus.listen_pages(heard.append)  # the page channels the socket hub listens to
    public = tourneys.create(DIRECTOR, "Public", team_limit=2)
    hidden = tourneys.create(DIRECTOR, "By link", team_limit=2, listed=False)
    later = tourneys.create(DIRECTOR, "Later", team_limit=4, start_at=clock.now + 7200)
    sooner = tourneys.create(DIRECTOR, "Sooner", team_limit=4, start_at=clock.now + 3600)
    teams = register_teams(tourneys, public, 2)
    tourneys.register_solo(sooner, "solo", "Sol", EMOJIS[0])
    upcoming, running, finished = tourneys.listing()
    assert [s.code for s in upcoming] == [sooner, later, public]  # soonest first, no start time last
    assert [s.places for s in upcoming] == [1, 0, 2]
    assert hidden not in [s.code for s in upcoming + running + finished]
    made_then_entered = [public, hidden, later, sooner, public, public, public, public, sooner]
    assert heard == [page_channel(c) for c in made_then_entered]
    heard.clear()
    tourneys.start(public, DIRECTOR)
    assert heard == [page_channel(public)]
    assert [(s.code, s.places) for s in tourneys.listing().running] == [(public, 2)]
    ready_all(tourneys, public, everyone(teams))
    assert heard.count(page_channel(public)) >= 2  # the Ready marks, the last making the table
    view = play_out(tables, tourneys, public, everyone(teams))
    assert view.status == "finished"
    assert [s.code for s in tourneys.listing().finished] == [public]


def test_a_running_table_shows_its_live_score(svc):
    tables, tourneys = svc
    code = tourneys.create(DIRECTOR, "Live", team_limit=2)
    teams = register_teams(tourneys, code, 2)
    tourneys.start(code, DIRECTOR)
    ready_all(tourneys, code, everyone(teams))
    settle(tables, tourneys)
    (tv,) = tourneys.view(code, None).rounds[0].tables
    assert tv.status == "playing" and tv.live == (0, 0)
    me = teams[tv.teams[0]][0]
    assert tourneys.view(code, me).my_match.table == tv.table
