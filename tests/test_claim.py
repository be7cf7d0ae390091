"""Claim the rest: offered to the person to play exactly when their side takes every
remaining trick whatever anyone plays (checked here by trying every line of play), and a
claimed hand's record replays to the same score."""

from __future__ import annotations

from conftest import csrf_of
from helpers.solver import brute_sweep

from spades.bots.solver import Position
from spades.cards import Card, mask_of
from spades.records import replay_report
from spades.rules import Rules
from spades.tables import Player, Stale

BEN = "claim-ben"


def as_player(client, pid: str):
    with client.session_transaction() as s:
        s["pid"] = pid
    return client


def position(record: dict, hand: int, plays: int) -> Position:
    """Every seat's cards, the trick and the tricks taken after ``plays`` cards of a hand."""
    h = record["hands"][hand]
    deal = [[Card.parse(c) for c in cards] for cards in h["deal"]]
    held = [mask_of(cards) for cards in deal]
    pos = Position(tuple(held), (), (h["dealer"] + 1) % 4, (0, 0, 0, 0), False)  # type: ignore[arg-type]
    for text in h["plays"][:plays]:
        pos = pos.play(Card.parse(text))
    return pos


def test_claim_offered_exactly_when_certain_and_the_record_replays(client, service):
    code = service.create_practice(BEN, "Ben", Rules(mode="no_bidding", end="hands", hands=3, tempo="off",
                                                     play_speed="fast"), "easy")
    as_player(client, BEN)
    csrf = csrf_of(client)
    seen = []  # (hand, cards played, offered, claimed)
    me = Player(BEN)
    for _ in range(2000):
        assert service.wait_idle()
        snap = service.snapshot(code, BEN)
        v = snap.view.to_json()
        if v["finished"]:
            break
        try:
            if v["phase"] == "hand_over":
                service.act(code, me, "deal", v["version"])
            elif v["to_act"] == snap.seat:
                played = sum(len(t["cards"]) for t in v["tricks"]) + len(v["trick"]["cards"])
                page = client.get(f"/g/{code}").get_data(as_text=True)
                offered = "Claim the rest" in page
                seen.append((v["hand_number"] - 1, played, offered))
                if offered:
                    answer = client.post(f"/g/{code}/claim", data={"csrf": csrf, "version": v["version"]},
                                         headers={"HX-Request": "true"})
                    assert answer.status_code == 200, answer.get_data(as_text=True)
                    after = service.snapshot(code, BEN).view.to_json()
                    assert after["phase"] in ("hand_over", "match_over") and len(after["results"]) == v["hand_number"]
                else:
                    service.act(code, me, str(v["legal"][-1]), v["version"])
        except Stale:
            continue
    else:
        raise AssertionError("the match did not end")
    record = client.get(f"/g/{code}/record.json").get_json()
    seat = 0
    for hand, played, offered in seen:
        pos = position(record, hand, played)
        assert pos.to_act == seat
        certain = pos.tricks_left <= 5 and brute_sweep(pos, seat % 2)
        assert offered == certain, (hand, played)
    assert any(o for _, _, o in seen) and any(not o and p >= 32 for _, p, o in seen)  # both ways, near the end
    report = replay_report(record)
    assert report["ok"] and report["finished"]
    final = service.snapshot(code, BEN).view.to_json()
    assert [h["total"] for h in report["hands"]] == [r["totals"] for r in final["results"]]


def test_claim_refused_when_not_certain(client, service):
    code = service.create_practice(BEN, "Ben", Rules(mode="no_bidding", end="hands", hands=1, tempo="off"), "easy")
    as_player(client, BEN)
    service.wait_idle()
    v = service.snapshot(code, BEN).view.to_json()
    answer = client.post(f"/g/{code}/claim", data={"csrf": csrf_of(client), "version": v["version"]},
                         headers={"HX-Request": "true"})
    assert 400 <= answer.status_code < 500
    assert service.snapshot(code, BEN).view.to_json()["version"] == v["version"]  # nothing played
