"""The yardstick: rule sets and matches driven between bots."""

from __future__ import annotations

from spades import bots
from spades.arena import SPARRING
from spades.rules import Match, parse_action
from spades.rules_config import Rules
from spades.views import seat_view

RULE_SETS = [{}, {"blind_nil": True}, {"mode": "no_bidding"}, {"set_scores_zero": True},
             {"bag_penalty": False}]
DEFAULT_RULES = {"mode": "bidding", "end": "target", "target": 500, "hands": 5,
                 "bag_penalty": True, "blind_nil": False, "set_scores_zero": False}


def drive(rules: dict, seed: int, specs: tuple[str, str], check=None) -> int:
    """Play a short match through the Match API, seats 0/2 ``specs[0]``, 1/3 ``specs[1]``
    (a sparring bot of the arena, ``yardstick`` or ``punisher``, or a site level); assert
    every sparring bot's answer is legal (and pass its views and answers to ``check``).
    Returns the number of the sparring bots' answers."""
    match = Match(Rules.from_dict({**rules, "end": "hands", "hands": 2}), seed=seed)
    asked = 0
    for seat in match.turns():
        view = seat_view(match, seat)
        spec = specs[seat % 2]
        if spec in SPARRING:
            action = SPARRING[spec](view, seed * 8 + seat)
            assert action in view["legal"], (action, view["legal"])
            assert action != 0  # never 0 as a number: nil is "nil"
            if check:
                check(view, action)
            asked += 1
        else:
            action = bots.choose(view, spec, seed * 8 + seat)
        match.apply(seat, parse_action(action))
    return asked


def legal_cards(hand: list[str], trick: list[str], broken: bool) -> list[str]:
    if trick:
        follow = [c for c in hand if c[1] == trick[0][1]]
        return follow or list(hand)
    side = [c for c in hand if c[1] != "S"]
    return list(hand) if broken or not side else side


def play_view(hand: list[str], *, seat: int = 0, leader: int | None = None, trick: list[str] = (),
              tricks: list[dict] = (), bids=(3, 3, 3, 3), taken=(0, 0, 0, 0), rules: dict | None = None,
              broken: bool = False, bags=(0, 0), scores=(0, 0)) -> dict:
    trick = list(trick)
    return {
        "seat": seat, "rules": {**DEFAULT_RULES, **(rules or {})}, "hand_number": 1, "dealer": 3,
        "hand": list(hand), "bids": list(bids), "blind": [False] * 4, "tricks": list(tricks),
        "trick": {"leader": seat if leader is None else leader, "cards": trick}, "taken": list(taken),
        "spades_broken": broken, "scores": list(scores), "bags": list(bags), "to_act": seat,
        "legal": legal_cards(hand, trick, broken),
    }
