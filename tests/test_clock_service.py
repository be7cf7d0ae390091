"""Clocks in the table service, with an injected clock and a bot pool the test drives:
stored deadlines, timeouts through the one move path, autopilot and Take over, the
tourney clock, holds for dropped connections, leaving for good, restarts and races.
Nothing here sleeps for the clock: time moves when a test says so."""

from __future__ import annotations

import itertools
import time

import pytest
from conftest import FakeClock
from helpers.clocks import settle
from pools import ManualPool
from watch import watch

from spades import bots
from spades.clocks import SeatClock, tourney_timeout_card
from spades.rules_config import Rules
from spades.storage import SeatRow, Store
from spades.tables import (
    EMOJIS,
    Announced,
    Closing,
    Join,
    Leave,
    Moved,
    NotSeated,
    PickPartner,
    Player,
    Stale,
    Start,
    TableService,
    TakeOver,
    Timeout,
    bot_seed,
)
from spades.tables.values import TOURNEY_BREAK_S

INSTANT = {"slow": 0.0, "normal": 0.0, "fast": 0.0}
HOST, ARI, BO = Player("host"), Player("ari"), Player("bo")
PEOPLE = {0: HOST, 2: ARI, 1: BO}  # the host, Ari across (partner), Bo on the left; seat 3 is a bot


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def pool():
    return ManualPool()


@pytest.fixture
def store(tmp_path):
    return Store(str(tmp_path / "c.db"))


@pytest.fixture
def svc(store, pool, clock):
    seeds = (f"clock-test-{n}" for n in itertools.count())  # the same deals on every run
    service = TableService(store, pool=pool, play_delays=INSTANT, clock=clock, new_seed=lambda: next(seeds))
    yield service
    service.close()


def advance(svc: TableService, pool: ManualPool, clock: FakeClock, seconds: float) -> None:
    clock.now += seconds
    settle(svc, pool)


def start(svc: TableService, pool: ManualPool, rules: Rules) -> str:
    """The host, Ari (partner, across) and Bo at a table for friends, started and settled."""
    code = svc.create_room(HOST.id, "Hana", EMOJIS[0], rules, "easy", 3)
    svc.handle(code, Player(ARI.id), Join("Ari", EMOJIS[1]))
    svc.handle(code, Player(BO.id), Join("Bo", EMOJIS[2]))
    number = next(m.number for m in svc.room_snapshot(code, ARI.id).members if m.me)
    svc.handle(code, Player(HOST.id), PickPartner(number))
    svc.handle(code, Player(HOST.id), Start())
    settle(svc, pool)
    return code


def view(svc: TableService, code: str, seat: int) -> dict:
    return svc.snapshot(code, PEOPLE[seat].id).view.to_json()
def move(svc: TableService, code: str, seat: int) -> None:
    """The person in ``seat`` moves now: bids 3, or plays their first legal card."""
    v = view(svc, code, seat)
    svc.act(code, PEOPLE[seat], 3 if v["phase"] == "bidding" else v["legal"][0], v["version"])


def until_turn(svc, pool, code, seat: int, phase: str | None = None, timeouts: bool = False, clock=None) -> dict:
    """Everyone else moves (people at once, bots through the pool) until it is ``seat``'s
    turn (in ``phase``). Returns the table as seat 0 sees it."""
    for _ in range(200):
        settle(svc, pool)
        v = view(svc, code, 0)
        if v["to_act"] == seat and (phase is None or v["phase"] == phase):
            return v
        assert v["phase"] in ("bidding", "playing"), v["phase"]
        if v["to_act"] in PEOPLE:
            # a seat a bot plays has moved by now: the people only ever move for themselves
            assert svc.snapshot(code, None).around.presence[v["to_act"]] != "bot"
            move(svc, code, v["to_act"])
    raise AssertionError("that turn never came")


def match_id(svc: TableService, code: str) -> int:
    return svc.store.load_table(code).match.id


@pytest.mark.parametrize("tempo,card,bid", [("relaxed", 60, 75), ("normal", 30, 40), ("fast", 15, 25)])
def test_each_tempo_stores_its_deadline_for_the_person_to_act(svc, pool, clock, tempo, card, bid):
    code = start(svc, pool, Rules(tempo=tempo))
    v = until_turn(svc, pool, code, 2, "bidding")
    assert svc.store.clock(match_id(svc, code)) == (2, v["version"], clock.now + bid)
    v = until_turn(svc, pool, code, 2, "playing")
    assert svc.store.clock(match_id(svc, code)) == (2, v["version"], clock.now + card)
    snap = svc.snapshot(code, HOST.id)
    assert snap.around.clock == (2, clock.now + card, card)  # every seat sees whose clock runs, and when it ends


@pytest.mark.parametrize("mode", ["bidding", "no_bidding"])  # no tourney clock either, when chosen
def test_friends_who_choose_untimed_play_without_any_clock(svc, pool, clock, mode):
    code = start(svc, pool, Rules(tempo="untimed", mode=mode))
    for phase in ("bidding", "playing") if mode == "bidding" else ("playing",):
        v = until_turn(svc, pool, code, 2, phase)
        assert svc.store.clock(match_id(svc, code)) is None and svc.snapshot(code, ARI.id).around.clock is None
        advance(svc, pool, clock, 7 * 24 * 3600)  # a week later: still Ari's turn, nobody moved for her
        assert view(svc, code, 2)["version"] == v["version"] and view(svc, code, 2)["to_act"] == 2
        assert svc.seat_clock(code, 2) == SeatClock()
        move(svc, code, 2)


def test_practice_tables_have_no_clock(svc, pool):
    code = svc.create_practice(HOST.id, "Hana", Rules(tempo="off", mode="no_bidding"), "easy")
    settle(svc, pool)
    assert svc.store.clock(match_id(svc, code)) is None and svc.snapshot(code, HOST.id).around.clock is None


def test_a_timeout_moves_with_the_normal_bots_choice(svc, pool, clock):
    code = start(svc, pool, Rules(tempo="fast"))
    v = until_turn(svc, pool, code, 2, "bidding")
    mine = view(svc, code, 2)
    seed = svc.store.load_table(code).match.seed
    number = svc.snapshot(code, ARI.id).around.match_number
    expected = bots.choose(mine, "normal", bot_seed(seed, number, v["version"], 2))
    advance(svc, pool, clock, 24)
    assert view(svc, code, 2)["version"] == v["version"]  # one second left: nothing moved
    advance(svc, pool, clock, 1)
    assert svc.store.actions(match_id(svc, code))[v["version"]] == (v["version"] + 1, 2, str(expected))
    snap = svc.snapshot(code, HOST.id)
    assert snap.view.to_json()["bids"][2] is not None
    assert svc.seat_clock(code, 2).timeouts_in_row == 1 and not snap.autopilot


def bot_plays(svc, pool, code, seat: int) -> None:
    """The other people play on, no time passing, until ``seat`` has moved (a bot for it)."""
    clock_before = svc.clock()
    mine = len([a for a in svc.store.actions(match_id(svc, code)) if a[1] == seat])
    for _ in range(8):  # seat 0 may win a trick and lead again before ``seat`` plays
        until_turn(svc, pool, code, 0)
        if len([a for a in svc.store.actions(match_id(svc, code)) if a[1] == seat]) > mine:
            break
        move(svc, code, 0)
    else:
        raise AssertionError("no bot played that seat")
    assert svc.clock() == clock_before


def timeout_turn(svc, pool, clock, code, seat: int) -> None:
    until_turn(svc, pool, code, seat)
    left = svc.store.clock(match_id(svc, code))[2] - clock.now
    advance(svc, pool, clock, left)


def test_three_timeouts_in_a_row_put_the_seat_on_autopilot_until_take_over(svc, pool, clock):
    code = start(svc, pool, Rules(tempo="fast"))
    events = []
    watch(svc, code, HOST.id, lambda snap: events.append(snap.around.event))
    for _ in range(3):
        assert not svc.snapshot(code, ARI.id).autopilot
        timeout_turn(svc, pool, clock, code, 2)
    ari = svc.snapshot(code, ARI.id)
    assert ari.autopilot and svc.snapshot(code, HOST.id).around.presence[2] == "bot"
    timeouts = [e for e in events if isinstance(e, Moved) and e.by_clock]
    assert [(e.seat, e.autopilot) for e in timeouts] == [(2, False), (2, False), (2, True)]
    # a bot plays Ari's turns now: no clock runs for her, and the table moves on without time passing
    bot_plays(svc, pool, code, 2)
    assert svc.seat_clock(code, 2).timeouts_in_row == 3  # bot moves are not timeouts

    svc.handle(code, Player(ARI.id), TakeOver())
    assert not svc.snapshot(code, ARI.id).autopilot
    v = until_turn(svc, pool, code, 2)
    assert svc.store.clock(match_id(svc, code))[:2] == (2, v["version"])  # her clock runs again


def test_playing_a_card_ends_autopilot_and_the_bots_answer_is_refused(svc, pool, clock):
    code = start(svc, pool, Rules(tempo="fast"))
    for _ in range(3):
        timeout_turn(svc, pool, clock, code, 2)
    assert svc.snapshot(code, ARI.id).autopilot
    # bring Ari's turn round without letting her bot answer
    for _ in range(2000):
        v = view(svc, code, 0)
        if v["to_act"] == 2:
            break
        if v["to_act"] in PEOPLE:
            move(svc, code, v["to_act"])
        else:
            pool.run_all()
            time.sleep(0.002)
    else:
        raise AssertionError("Ari's turn never came")
    version = v["version"]
    assert not svc.idle()  # her bot is thinking
    move(svc, code, 2)  # and she plays first
    settle(svc, pool)  # the bot's answer comes too late
    assert not svc.snapshot(code, ARI.id).autopilot
    moves = [a for a in svc.store.actions(match_id(svc, code)) if a[0] == version + 1]
    assert len(moves) == 1 and moves[0][1] == 2


def test_tourney_timeout_plays_the_lowest_card_and_the_clock_drops_to_15(svc, pool, clock):
    code = start(svc, pool, Rules(mode="no_bidding", tempo="relaxed"))
    v = until_turn(svc, pool, code, 2, "playing")
    assert svc.store.clock(match_id(svc, code))[2] == clock.now + 30  # the tourney clock, whatever the tempo
    mine = view(svc, code, 2)
    led = mine["trick"]["cards"][0] if mine["trick"]["cards"] else None
    expected = tourney_timeout_card(mine["hand"], led)
    advance(svc, pool, clock, 30)
    assert svc.store.actions(match_id(svc, code))[v["version"]] == (v["version"] + 1, 2, expected)
    v = until_turn(svc, pool, code, 2, "playing")
    assert svc.store.clock(match_id(svc, code)) == (2, v["version"], clock.now + 15)


def test_tourney_timeout_when_leading_plays_the_lowest_non_spade(svc, pool, clock):
    code = start(svc, pool, Rules(mode="no_bidding", tempo="normal"))
    for _ in range(13):
        v = until_turn(svc, pool, code, 2, "playing")
        if not view(svc, code, 2)["trick"]["cards"]:
            break
        move(svc, code, 2)
    else:
        raise AssertionError("Ari never led in this hand: choose another seed")
    mine = view(svc, code, 2)
    left = svc.store.clock(match_id(svc, code))[2] - clock.now
    advance(svc, pool, clock, left)
    assert svc.store.actions(match_id(svc, code))[v["version"]][1:] == (2, tourney_timeout_card(mine["hand"], None))


def connect(svc: TableService, code: str, who: Player):
    return watch(svc, code, who.id, lambda snap: None)


def test_a_dropped_seat_is_held_60_s_then_a_bot_plays_it_until_the_player_is_back(svc, pool, clock):
    code = start(svc, pool, Rules(tempo="relaxed"))
    host = connect(svc, code, HOST)
    token = connect(svc, code, ARI)
    assert svc.snapshot(code, HOST.id).around.presence[:3] == ("here", "", "here")
    token()
    assert svc.store.holds(code) == {2: (clock.now, clock.now + 60, False)}
    assert svc.snapshot(code, HOST.id).around.presence[2] == "away"
    clock.now += 59
    settle(svc, pool)
    assert svc.snapshot(code, HOST.id).around.presence[2] == "away"
    clock.now += 1
    settle(svc, pool)
    assert svc.snapshot(code, HOST.id).around.presence[2] == "bot"
    bot_plays(svc, pool, code, 2)  # no time passes: a bot plays Ari's turns
    assert svc.seat_clock(code, 2) == SeatClock()  # those were not timeouts
    connect(svc, code, ARI)  # she is back: the hold and the bot end, her clock runs on her turn
    assert svc.store.holds(code) == {} and svc.snapshot(code, HOST.id).around.presence[2] == "here"
    v = until_turn(svc, pool, code, 2)
    assert svc.store.clock(match_id(svc, code))[:2] == (2, v["version"])
    host()


def test_the_clock_keeps_running_while_a_seat_is_held(svc, pool, clock):
    code = start(svc, pool, Rules(tempo="fast"))
    v = until_turn(svc, pool, code, 2, "bidding")
    connect(svc, code, ARI)()
    advance(svc, pool, clock, 25)  # within the hold: the clock ran out
    assert svc.store.actions(match_id(svc, code))[v["version"]][1] == 2
    assert svc.seat_clock(code, 2).timeouts_in_row == 1


def test_a_page_closing_on_purpose_is_held_10_s(svc, pool, clock):
    code = start(svc, pool, Rules(tempo="relaxed"))
    token = connect(svc, code, ARI)
    svc.handle(code, Player(ARI.id), Closing())  # the beacon before the socket closes
    token()
    assert svc.store.holds(code)[2][1] == clock.now + 10
    token = connect(svc, code, BO)
    token()  # the socket closes first, then the beacon comes
    clock.now += 3
    svc.handle(code, Player(BO.id), Closing())
    assert svc.store.holds(code)[1][1] == clock.now - 3 + 10
    advance(svc, pool, clock, 7)
    assert svc.snapshot(code, HOST.id).around.presence[:3] == ("", "bot", "bot")


def test_a_closing_notice_from_a_page_that_stays_is_forgotten(svc, pool, clock):
    code = start(svc, pool, Rules(tempo="relaxed"))
    token = connect(svc, code, ARI)
    svc.handle(code, Player(ARI.id), Closing())  # another tab closed, this one stays
    clock.now += 30
    token()
    assert svc.store.holds(code)[2][1] == clock.now + 60


def test_leaving_gives_the_seat_to_a_bot_for_good_and_the_partner_is_told(svc, pool, clock):
    code = start(svc, pool, Rules(tempo="relaxed"))
    told = []
    watch(svc, code, HOST.id, told.append)
    svc.handle(code, Player(ARI.id), Leave())
    row = svc.store.db.execute("SELECT kind, player_id, left_player_id FROM seats WHERE table_code = ? AND seat = 2",
                               [code]).fetchone()
    assert row == ("bot", None, "ari")
    last = told[-1].around
    assert last.event == Announced(2, "leave") and last.presence[2] == "left"
    assert svc.snapshot(code, ARI.id).seat is None  # a spectator now
    with pytest.raises(NotSeated):
        svc.act(code, ARI, "3", None)
    bot_plays(svc, pool, code, 2)  # the bot plays her seat from now on, with no clock, also after a restart
    again = TableService(svc.store, pool=pool, play_delays=INSTANT, clock=clock)
    try:
        assert again.snapshot(code, HOST.id).around.presence[2] == "left"
    finally:
        again.close()


def test_a_leaving_host_passes_the_role_to_the_partner(svc, pool):
    code = start(svc, pool, Rules(tempo="relaxed"))
    svc.handle(code, Player(HOST.id), Leave())
    assert svc.snapshot(code, ARI.id).around.host_seat == 2


def test_after_a_restart_an_overdue_clock_fires_once_and_only_once(store, pool, clock):
    first = TableService(store, pool=pool, play_delays=INSTANT, clock=clock)
    code = start(first, pool, Rules(tempo="normal"))
    v = until_turn(first, pool, code, 2, "bidding")
    first.close()  # the process stops; the deadline stays in the database
    clock.now += 3600
    services = []
    try:
        for _ in range(2):  # started twice: the second start finds nothing overdue any more
            again = TableService(store, pool=pool, play_delays=INSTANT, clock=clock)
            services.append(again)
            again.resume_all()
            settle(again, pool)
            actions = store.actions(match_id(again, code))
            assert [a for a in actions if a[0] == v["version"] + 1] == [actions[v["version"]]]
            assert actions[v["version"]][1] == 2
            assert again.seat_clock(code, 2).timeouts_in_row == 1
            again.close()
    finally:
        for s in services:
            s.close()


def test_a_human_move_racing_a_timeout_is_refused_as_stale(svc, pool, clock):
    code = start(svc, pool, Rules(tempo="fast"))
    v = until_turn(svc, pool, code, 2, "bidding")
    advance(svc, pool, clock, 25)  # the timeout played first
    with pytest.raises(Stale) as e:
        svc.act(code, ARI, "4", v["version"])
    assert e.value.version > v["version"]
    assert len([a for a in svc.store.actions(match_id(svc, code)) if a[0] == v["version"] + 1]) == 1

    v = until_turn(svc, pool, code, 2, "playing")
    card = view(svc, code, 2)["legal"][0]
    move(svc, code, 2)  # now she is first: the late timeout is refused
    with pytest.raises(Stale):
        svc.act(code, Timeout(2), card, v["version"])
    assert svc.seat_clock(code, 2).timeouts_in_row == 0


def test_a_table_nobody_is_at_any_more_waits_until_someone_is_back(svc, pool, clock):
    code = start(svc, pool, Rules(tempo="relaxed"))
    for who in (HOST, ARI, BO):
        connect(svc, code, who)()
    advance(svc, pool, clock, 60)  # every hold ran out: nobody is left to play for
    version = view(svc, code, 0)["version"]
    settle(svc, pool)
    assert view(svc, code, 0)["version"] == version and svc.snapshot(code, None).around.presence[:3] == ("bot",) * 3
    connect(svc, code, HOST)  # the host is back: the bots play the others' seats up to the host's turn
    until_turn(svc, pool, code, 0)  # (fails if the table still waited, or if a person had to move for a bot)


def test_a_persons_own_move_ends_their_hold(svc, pool, clock):
    code = start(svc, pool, Rules(tempo="relaxed"))
    connect(svc, code, BO)()
    until_turn(svc, pool, code, 1)
    move(svc, code, 1)  # Bo moves from a page without a socket: he is here
    assert 1 not in svc.store.holds(code) and svc.snapshot(code, None).around.presence[1] != "away"


def test_a_tourney_table_plays_on_by_itself_and_deals_after_a_break(svc, pool, clock):
    """Nobody presses Continue and every person is away past the hold: the bots play their
    seats, and the next hand is dealt once the break between hands has run out."""
    rules = Rules(mode="no_bidding", end="hands", hands=2)
    seats = [SeatRow(0, "human", "ann", "Ann"), SeatRow(1, "bot", None, "Rex"), SeatRow(2, "human", "bo", "Bo"),
             SeatRow(3, "bot", None, "Kit")]
    code = svc.create_seated(seats, rules, {"kind": "tourney", "tourney": "TTTTTT", "level": "normal"})
    for who in (Player("ann"), Player("bo")):  # both open the table, then their pages close
        svc.connect(code, who.id, lambda change: None)
        svc.disconnect(code, who.id)
    clock.now += 61  # past the hold: bots play the people's seats
    for _ in range(400):
        settle(svc, pool)
        view = svc.snapshot(code, None).view.to_json()
        if view["phase"] == "hand_over" or view["finished"]:
            break
        clock.now += 31  # the tourney clock, where a person's seat still has one
    assert view["phase"] == "hand_over" and view["hand_number"] == 1
    clock.now += TOURNEY_BREAK_S - 1
    settle(svc, pool)
    assert svc.snapshot(code, None).view.to_json()["phase"] == "hand_over"  # still in the break
    clock.now += 1
    settle(svc, pool)
    assert svc.snapshot(code, None).view.to_json()["hand_number"] == 2  # dealt without anyone's Continue
