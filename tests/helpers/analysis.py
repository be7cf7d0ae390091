"""Analysis: a practice match played out and read as one of its players."""

from __future__ import annotations

from spades import bots
from spades.cards import Card
from spades.records import to_record
from spades.rules import Match, Rules, parse_action
from spades.tables import Player, Stale
from spades.views import seat_view

ANN = "analysis-ann"


def nil_blunder_record() -> dict:
    """One hand: seat 1 bids nil holding the ace and the two of hearts; seat 0 leads a
    heart and seat 1 overtakes with the ace. Everything else is the Normal bot's."""
    c = Card.parse
    nil = [c(t) for t in ["AH", "2H", "3H", "2D", "3D", "4D", "5D", "2C", "3C", "4C", "5C", "2S", "3S"]]
    rest = [x for x in map(Card, range(52)) if x not in nil]
    lead = [c("KH"), c("AS"), c("KS"), c("QS"), c("AD"), c("KD"), c("AC"), c("KC"), c("9D"), c("9C"), c("8D"),
            c("8C"), c("7D")]
    rest = [x for x in rest if x not in lead]
    deal = [lead, nil, rest[:13], rest[13:26]]
    m = Match(Rules(end="hands", hands=1), first_dealer=3, deal=deal)
    while not m.finished:
        seat = m.to_act
        if m.phase == "bidding":
            action = parse_action("nil") if seat == 1 else parse_action(bots.choose(seat_view(m, seat), "normal", 1))
        elif not m.tricks and seat == 0 and not m.trick:
            action = c("KH")
        elif not m.tricks and seat == 1:
            action = c("AH")  # the blunder: the 2 of hearts was safe
        else:
            action = parse_action(bots.choose(seat_view(m, seat), "normal", 1))
        m.apply(seat, action)
    return to_record(m)


# -- over HTTP ---------------------------------------------------------------------------
def play_out(service, code: str, pid: str = ANN) -> None:
    me = Player(pid)
    for _ in range(3000):
        assert service.wait_idle()
        snap = service.snapshot(code, pid)
        v = snap.view.to_json()
        if v["finished"]:
            return
        try:
            if v["phase"] == "hand_over":
                service.act(code, me, "deal", v["version"])
            elif v["to_act"] == snap.seat:
                legal = v["legal"]
                service.act(code, me, "look" if "look" in legal else str(legal[-1] if v["phase"] == "bidding"
                                                                               else legal[0]), v["version"])
        except Stale:
            continue
    raise AssertionError("the match did not end")


def as_player(client, pid: str):
    with client.session_transaction() as s:
        s["pid"] = pid
    return client
