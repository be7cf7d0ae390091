"""A practice match played out to the end, for replays."""

from __future__ import annotations

from spades import Rules
from spades.tables import Player, Stale

ANN = "replay-ann"  # the player id of the person who plays seat 0 in these tests


# -- playing a match out -------------------------------------------------------------------
def choose(view: dict) -> str:
    """Seat 0's move: blind nil in hand 1, nil in hand 2, 3 after that; the first legal card."""
    legal = view["legal"]
    if view["phase"] == "bidding":
        if view["hand_number"] == 1 and "blind_nil" in legal:
            return "blind_nil"
        if "look" in legal:
            return "look"
        return "nil" if view["hand_number"] == 2 else "3"
    return str(legal[0])


def play_out(service, code: str, pid: str = ANN, until_hand_over: bool = False) -> None:
    """Seat 0 plays until the match is over (or the first hand is): bots play the rest."""
    me = Player(pid)
    for _ in range(5000):
        assert service.wait_idle()
        snap = service.snapshot(code, pid)
        v = snap.view.to_json()
        if v["finished"] or (until_hand_over and v["phase"] == "hand_over"):
            return
        try:
            if v["phase"] == "hand_over":
                service.act(code, me, "deal", v["version"])
            elif v["to_act"] == snap.seat:
                service.act(code, me, choose(v), v["version"])
        except Stale:
            continue  # a bot moved in between: look again
    raise AssertionError("the match did not end")


def finished_practice(service, hands: int = 2, pid: str = ANN) -> str:
    """A practice match of ``hands`` hands with blind nil on, played to its end."""
    code = service.create_practice(pid, "Ann", Rules(end="hands", hands=hands, blind_nil=True, tempo="off",
                                                     play_speed="fast"), "easy")
    play_out(service, code, pid)
    return code
