"""The table service with several people: Continue deals once everyone is ready (or the
host deals without waiting), the room's seating at the start, and the host's rematch
with a new partner."""

from __future__ import annotations

import itertools

import pytest
from watch import watch

from spades.rules import IllegalAction
from spades.rules_config import Rules
from spades.storage import Store
from spades.tables import BOT_PARTNER, EMOJIS, Join, NotHost, PickPartner, Player, Rematch, Start, TableService

INSTANT = {"slow": 0.0, "normal": 0.0, "fast": 0.0}
HOST, ARI, BO = Player("host"), Player("ari"), Player("bo")


@pytest.fixture
def svc(tmp_path, pool):
    seeds = (f"friends-{n}" for n in itertools.count())  # the same deals on every run
    service = TableService(Store(str(tmp_path / "f.db")), pool=pool, play_delays=INSTANT,
                           new_seed=lambda: next(seeds))
    yield service
    service.close()


def room(svc: TableService, *, hands: int = 2, partner: Player | None = ARI) -> str:
    """Host, Ari and Bo at a no-bidding table of ``hands`` hands, started."""
    code = svc.create_room(HOST.id, "Hana", EMOJIS[0], Rules(mode="no_bidding", end="hands", hands=hands), "easy", 3)
    svc.handle(code, Player(ARI.id), Join("Ari", EMOJIS[1]))
    svc.handle(code, Player(BO.id), Join("Bo", EMOJIS[2]))
    if partner is not None:
        number = next(m.number for m in svc.room_snapshot(code, partner.id).members if m.me)
        svc.handle(code, Player(HOST.id), PickPartner(number))
    svc.handle(code, Player(HOST.id), Start())
    return code


def play_hand(svc: TableService, code: str) -> dict:
    """Every person plays their first legal card on their turn until the hand is over."""
    people = {s.seat: Player(s.player_id) for s in svc.seats(code) if s.kind == "human"}
    while True:
        assert svc.wait_idle()
        view = svc.snapshot(code, HOST.id).view.to_json()
        if view["phase"] in ("hand_over", "match_over"):
            return view
        seat = view["to_act"]
        if seat in people:
            mine = svc.snapshot(code, people[seat].id).view.to_json()
            svc.act(code, people[seat], mine["legal"][0], mine["version"])


def test_the_start_seats_the_partner_across_and_the_other_beside_a_bot(svc):
    code = room(svc)
    seats = svc.seats(code)
    assert [(s.kind, s.player_id) for s in seats] == [("human", "host"), ("human", "bo"), ("human", "ari"),
                                                      ("bot", None)]
    assert svc.snapshot(code, "bo").seat == 1 and svc.snapshot(code, "host").around.host_seat == 0


def test_continue_deals_once_every_person_is_ready_and_shows_who_is_reading(svc):
    code = room(svc)
    view = play_hand(svc, code)
    assert view["phase"] == "hand_over"
    seen = []
    watch(svc, code, "bo", lambda snap: seen.append(snap.around.ready))
    svc.act(code, HOST, "deal", view["version"])
    svc.act(code, ARI, "deal", view["version"])
    snap = svc.snapshot(code, "bo")
    assert snap.view.to_json()["phase"] == "hand_over" and snap.around.ready == (0, 2)  # Bo is still reading
    assert seen[-1] == (0, 2)  # and everyone was told
    svc.act(code, ARI, "deal", view["version"])  # pressing twice changes nothing
    assert svc.snapshot(code, "bo").view.to_json()["hand_number"] == 1
    svc.act(code, BO, "deal", view["version"])
    after = svc.snapshot(code, "bo")
    assert after.view.match.hand_number == 2 and after.view.match.version == view["version"] + 1
    assert after.around.ready == ()


def test_the_host_deals_without_waiting_and_nobody_else_may(svc):
    code = room(svc, hands=3)
    view = play_hand(svc, code)
    with pytest.raises(NotHost):
        svc.act(code, ARI, "deal_now", view["version"])
    svc.act(code, HOST, "deal_now", view["version"])  # Ari and Bo are still reading
    assert svc.snapshot(code, "ari").view.to_json()["hand_number"] == 2  # the host dealt at once
    with pytest.raises(IllegalAction):  # the new hand is not over: no Continue now
        svc.act(code, HOST, "deal_now", None)


def test_only_the_host_starts_a_rematch_and_may_pick_a_new_partner(svc):
    code = room(svc, hands=1)
    view = play_hand(svc, code)
    assert view["finished"]
    with pytest.raises(NotHost):
        svc.handle(code, ARI, Rematch(view["version"]))
    snap = svc.handle(code, HOST, Rematch(view["version"], 1))  # Bo, on the left, comes across
    seats = svc.seats(code)
    assert [s.player_id for s in seats] == ["host", "ari", "bo", None]
    assert snap.around.match_number == 2 and not snap.view.to_json()["finished"]
    assert svc.snapshot(code, "bo").seat == 2 and svc.snapshot(code, "ari").seat == 1
    assert svc.store.load_table(code).seats[2].name == "Bo"  # stored: a restart seats them the same


def test_a_rematch_with_a_bot_as_partner(svc):
    code = room(svc, hands=1)
    view = play_hand(svc, code)
    svc.handle(code, HOST, Rematch(view["version"], 3))  # the bot on the right comes across
    assert [s.kind for s in svc.seats(code)] == ["human", "human", "bot", "human"]
    assert svc.snapshot(code, "ari").seat == 3  # Ari moved to the other team


def test_a_bot_partner_room(svc):
    code = svc.create_room(HOST.id, "Hana", EMOJIS[0], Rules(), "easy", 3)
    svc.handle(code, Player(ARI.id), Join("Ari", EMOJIS[1]))
    svc.handle(code, Player(HOST.id), PickPartner(BOT_PARTNER))
    svc.handle(code, Player(HOST.id), Start())
    assert [s.kind for s in svc.seats(code)] == ["human", "human", "bot", "bot"]


def test_a_room_survives_a_restart(svc, pool, tmp_path):
    code = svc.create_room(HOST.id, "Hana", EMOJIS[0], Rules(), "easy", 4)
    svc.handle(code, Player(ARI.id), Join("Ari", EMOJIS[1]))
    svc.handle(code, Player(HOST.id), PickPartner(2))
    again = TableService(svc.store, pool=pool, play_delays=INSTANT)
    try:
        snap = again.room_snapshot(code, ARI.id)
        assert [(m.name, m.seat, m.me) for m in snap.members] == [("Hana", 0, False), ("Ari", 2, True)]
        again.handle(code, Player(HOST.id), Start())
        assert again.snapshot(code, ARI.id).seat == 2
    finally:
        again.close()
