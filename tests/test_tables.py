"""The table service: one move path, refusals, saved before told, replay and bots carrying on."""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import random
import time

import pytest
from watch import watch

from spades.rules import IllegalAction
from spades.rules_config import Rules
from spades.storage import Store
from spades.tables import BadAction, NotSeated, Player, Rematch, Stale, TableNotFound, TableService

INSTANT = {"slow": 0.0, "normal": 0.0, "fast": 0.0}
ME = Player("me")


@pytest.fixture
def store(database):
    """The service's store, on each engine (``database``: tests/servers.py)."""
    s = Store(database)
    yield s
    s.close()


@pytest.fixture
def make(store, pool):
    """``make(**settings)``: a table service on ``store``; each is closed before the store is."""
    made: list[TableService] = []

    seeds = (f"tables-{n}" for n in itertools.count())  # the same deals on every run

    def make_service(**kw) -> TableService:
        kw.setdefault("play_delays", INSTANT)
        kw.setdefault("new_seed", lambda: next(seeds))
        kw.setdefault("pool", pool)
        made.append(TableService(store, **kw))
        return made[-1]

    yield make_service
    for svc in made:
        svc.close()


def until_my_turn_to_play(svc: TableService, code: str, rng: random.Random):
    """Bid for seat 0 until the play starts and it is seat 0's turn; returns the snapshot."""
    assert svc.wait_idle()
    snap = svc.snapshot(code, ME.id)
    while not (snap.view.to_json()["phase"] == "playing" and snap.view.to_json()["to_act"] == 0):
        v = snap.view.to_json()
        assert v["to_act"] == 0, v
        svc.act(code, ME, 3 if v["phase"] == "bidding" else rng.choice(v["legal"]), v["version"])
        assert svc.wait_idle()
        snap = svc.snapshot(code, ME.id)
    return snap


def play_to_the_end(svc, code: str, seed: int):
    """Seat 0 bids 3, plays random legal cards and deals the next hand when the score is
    level after the last one; the bots play the rest, until the match ends."""
    rng = random.Random(seed)
    snap = svc.snapshot(code, ME.id)
    deadline = time.monotonic() + 60
    while not snap.view.to_json()["finished"]:
        assert time.monotonic() < deadline, f"the table stalled: {snap.view}"
        assert svc.wait_idle()
        snap = svc.snapshot(code, ME.id)
        v = snap.view.to_json()
        if v["phase"] == "hand_over" and not v["finished"]:  # level after the last hand: one more
            svc.act(code, ME, "deal", v["version"])
        elif v["to_act"] == 0:
            svc.act(code, ME, 3 if v["phase"] == "bidding" else rng.choice(v["legal"]), v["version"])
    return snap


def test_stale_and_double_submits_are_refused_with_the_current_version(make):
    svc = make()
    code = svc.create_practice(ME.id, "Ann", Rules(), "normal")
    snap = until_my_turn_to_play(svc, code, random.Random(1))
    v = snap.view.to_json()["version"]
    card = snap.view.to_json()["legal"][0]
    svc.act(code, ME, card, v)
    with pytest.raises(Stale) as e:
        svc.act(code, ME, card, v)  # the same click again
    assert e.value.version > v
    assert card not in svc.snapshot(code, ME.id).view.to_json()["hand"]
    svc.close()


def test_an_illegal_card_changes_nothing_and_stores_nothing(store, make):
    svc = make()
    code = svc.create_practice(ME.id, "Ann", Rules(), "normal")
    rng = random.Random(2)
    for _ in range(13):
        snap = until_my_turn_to_play(svc, code, rng)
        illegal = [c for c in snap.view.to_json()["hand"] if c not in snap.view.to_json()["legal"]]
        if illegal:
            break
        svc.act(code, ME, rng.choice(snap.view.to_json()["legal"]), snap.view.to_json()["version"])
    else:
        pytest.skip("no illegal card came up with this seed")  # pragma: no cover
    match_id = store.load_table(code).match.id
    stored = store.actions(match_id)
    with pytest.raises(IllegalAction) as e:
        svc.act(code, ME, illegal[0], snap.view.to_json()["version"])
    assert str(e.value).startswith(("You must follow suit", "Spades are not broken yet"))
    assert store.actions(match_id) == stored
    assert svc.snapshot(code, ME.id).view == snap.view


def test_refusals_for_strangers_bad_notation_and_unknown_tables(make):
    svc = make()
    code = svc.create_practice(ME.id, "Ann", Rules(), "normal")
    with pytest.raises(NotSeated):
        svc.act(code, Player("someone-else"), "4", None)
    with pytest.raises(BadAction):
        svc.act(code, ME, "XYZ", None)
    with pytest.raises(TableNotFound):
        svc.act("NOSUCH", ME, "4", None)
    with pytest.raises(IllegalAction):
        svc.act(code, ME, "deal", None)  # Continue while the hand is still being played


def test_every_move_is_stored_before_anyone_is_told(store, make):
    svc = make()
    code = svc.create_practice(ME.id, "Ann", Rules(end="hands", hands=1), "easy")
    seen = []

    def listener(snap):
        row = store.load_table(code)  # what a restart would find at this moment
        seen.append((snap.view.to_json()["version"], row.match.version, len(store.actions(row.match.id))))

    watch(svc, code, ME.id, listener)
    play_to_the_end(svc, code, seed=3)
    assert len(seen) > 52
    assert all(view == stored == count for view, stored, count in seen[1:])


def test_a_restarted_service_replays_to_the_same_state_and_the_bots_carry_on(make):
    slow = make(play_delays={"slow": 3600.0, "normal": 3600.0, "fast": 3600.0})
    code = slow.create_practice(ME.id, "Ann", Rules(play_speed="slow"), "normal")
    before = slow.snapshot(code, ME.id).view.to_json()
    slow.close()  # "killed" while a bot was about to move
    again = make()
    assert again.resume_all() == 1
    assert again.wait_idle()
    after = again.snapshot(code, ME.id).view.to_json()
    assert after["hand"] == before["hand"] and after["dealer"] == before["dealer"]
    if before["to_act"] != 0:
        assert after["version"] > before["version"]  # the bots went on bidding
    assert after["to_act"] == 0


def test_a_bot_that_runs_out_of_time_plays_a_legal_fallback(make):
    class NeverPool(cf.Executor):
        def submit(self, fn, *args, **kwargs):
            return cf.Future()  # never answers

    svc = make(pool=NeverPool(), think_limit=0.01)
    code = svc.create_practice(ME.id, "Ann", Rules(), "hard")
    assert svc.wait_idle(timeout=5)
    view = svc.snapshot(code, ME.id).view.to_json()
    assert view["to_act"] == 0 and view["phase"] == "bidding"
    svc.close()


def test_rematch_starts_a_new_match_at_the_same_table(make):
    svc = make()
    code = svc.create_practice(ME.id, "Ann", Rules(end="hands", hands=1), "easy")
    with pytest.raises(IllegalAction):
        svc.handle(code, ME, Rematch(None))
    snap = play_to_the_end(svc, code, seed=4)
    assert svc.record(code, ME.id)["hands"][0]["deal"][1]  # complete once finished
    new = svc.handle(code, ME, Rematch(snap.view.to_json()["version"]))
    assert new.around.match_number == 2 and not new.view.match.finished and new.view.match.hand_number == 1
