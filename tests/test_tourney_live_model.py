"""The live part of a tourney's page as a model (``spades.web.tourney.live``), through the
tourney service on an injected clock: what the director, a registered player and a
watcher are each offered, the check-in window opening and closing with the time, a
removed team, and a duplicate round that keeps its tables unwatched and its comparison
back while another table of the round still plays. The template only lays these out
(``tests/test_tourney_web.py`` reads the pages)."""

from __future__ import annotations

import itertools

import pytest
from conftest import FakeClock
from helpers.tourney import DIRECTOR, INSTANT, everyone, ready_all, register_teams, settle

from spades.storage import Store
from spades.tables import EMOJIS, TableService
from spades.tourney import TourneyService
from spades.web.tourney.live import LiveModel, live_page

HOUR = 3600.0


@pytest.fixture
def svc(tmp_path, pool):
    store = Store(str(tmp_path / "live.db"))
    seeds = (f"table-{n}" for n in itertools.count())
    clock = FakeClock()
    tables = TableService(store, pool=pool, play_delays=INSTANT, clock=clock, new_seed=lambda: next(seeds))
    tourneys = TourneyService(store, tables, clock=clock, new_seed=lambda: "live-seed",
                              rules_override={"end": "hands", "hands": 1})
    yield tables, tourneys, clock
    tourneys.close()
    tables.close()


def test_the_director_a_player_and_a_watcher_are_each_offered_their_own_controls(svc):
    _, tourneys, _ = svc
    code = tourneys.create(DIRECTOR, "Cup", bot_fill=True)
    teams = register_teams(tourneys, code, 1)
    bots = tourneys.add_bot_team(code, DIRECTOR)
    ann = teams[next(iter(teams))][0]

    director = live_page(tourneys, code, DIRECTOR)
    assert director.directing and director.bot_team and director.register and director.my_team is None
    assert all(line.removable for line in director.teams) and {line.id for line in director.teams} == {*teams, bots}

    player = live_page(tourneys, code, ann)
    assert not player.directing and not player.bot_team and not player.register
    assert not any(line.removable for line in player.teams)
    assert player.my_team is not None and not player.my_team.removed and not player.my_team.check_in
    assert player.my_team.partner_line == f"As a team with {EMOJIS[1]} Bt0."
    assert player.my_team.starts == "The director starts the tourney."
    assert "Bt0 stays registered" in player.my_team.withdraw_note and player.my_team.ready_within == "2 minutes"

    watcher = live_page(tourneys, code, None)
    assert watcher.register and not watcher.directing and watcher.my_team is None
    assert not any(line.removable for line in watcher.teams) and watcher.walkovers == ()
    assert watcher.heading == "Knockout" and watcher.stage == (
        "2 of 16 teams registered · starts when the director presses Start")


def test_a_removed_team_is_told_so_and_cannot_be_removed_again(svc):
    _, tourneys, _ = svc
    code = tourneys.create(DIRECTOR, "Cup")
    teams = register_teams(tourneys, code, 2)
    out = next(iter(teams))
    tourneys.remove_team(code, DIRECTOR, out)
    line = next(tm for tm in live_page(tourneys, code, DIRECTOR).teams if tm.id == out)
    assert not line.removable and line.state == "removed" and "Removed by the director." in line.notes
    mine = live_page(tourneys, code, teams[out][0]).my_team
    assert mine is not None and mine.removed and not mine.check_in


def test_check_in_opens_with_its_window_and_closes_once_checked_in(svc):
    _, tourneys, clock = svc
    start = clock.now + HOUR
    code = tourneys.create(DIRECTOR, "Timed", start_at=start, checkin_s=600)
    ann = everyone(register_teams(tourneys, code, 1))[0]

    def mine() -> LiveModel:
        model = live_page(tourneys, code, ann)
        assert model.my_team is not None
        return model

    before = mine().my_team
    assert before is not None and not before.check_in and not before.checked_in
    assert before.starts.startswith("The tourney starts by itself at ") and before.checkin_from
    assert ", check-in from " in mine().stage

    clock.now = start - 300  # inside the window
    assert mine().my_team.check_in  # type: ignore[union-attr]
    assert not live_page(tourneys, code, None).my_team  # a watcher has nothing to check in
    tourneys.ready(code, ann)
    after = mine().my_team
    assert after is not None and not after.check_in and after.checked_in


def test_without_a_check_in_window_nobody_is_asked_to_check_in(svc):
    """A 0-minute check-in: the window's opening is the start itself; once the time has
    come (before the tick starts it) the service would refuse a check-in, so no button."""
    _, tourneys, clock = svc
    start = clock.now + HOUR
    code = tourneys.create(DIRECTOR, "Sharp", start_at=start, checkin_s=0)
    ann = everyone(register_teams(tourneys, code, 1))[0]
    clock.now = start + 1
    mine = live_page(tourneys, code, ann).my_team
    assert mine is not None and not mine.check_in and mine.checkin_from == ""


@pytest.mark.parametrize("duplicate", [True, False])
def test_a_duplicate_round_still_playing_elsewhere_keeps_its_tables_shut(svc, duplicate):
    """One team of people and three bot teams, one Swiss round: the two bot teams' match
    is over at once, the people's table still plays."""
    tables, tourneys, _ = svc
    code = tourneys.create(DIRECTOR, "Dup", format="swiss", rounds=1, team_limit=4, bot_fill=True,
                           duplicate=duplicate)
    people = everyone(register_teams(tourneys, code, 1))
    for _ in range(3):
        tourneys.add_bot_team(code, DIRECTOR)
    tourneys.start(code, DIRECTOR)
    ready_all(tourneys, code, people)
    settle(tables, tourneys)

    view = tourneys.view(code, None)
    played = next(tv for tv in view.rounds[0].tables if tv.table)
    bots_done = next(tv for tv in view.rounds[0].tables if not tv.table)
    assert bots_done.status == "done" and played.status == "playing"  # the case this test names

    model = live_page(tourneys, code, None)
    (rnd,) = model.rounds
    line = next(tl for tl in rnd.tables if tl.status == "playing")
    assert rnd.same_hands_note is duplicate and rnd.compared == ()
    if duplicate:  # nobody watches a table of a duplicate round
        assert (line.link, line.link_word) == ("", "")
    else:
        assert (line.link, line.link_word) == (f"/g/{played.table}/watch", "Watch")
    assert model.heading == ("Swiss, 1 round, duplicate deals" if duplicate else "Swiss, 1 round")
    assert model.stage == "under way" and model.my_team is None and not model.register and not model.directing
