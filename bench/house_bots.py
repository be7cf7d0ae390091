"""The house-rules bots (``spades.bots.house``, ``house_search``): Hard's decision time and
a quick strength figure per preset, a benchmark that prints figures (never a timed test).

``python -m bench.house_bots [--presets NAME ...] [--decisions N] [--budget 0.5]
[--pairs N] [--hard-pairs N] [--match-budget 0.05] [--hands H] [--seed S]``

Presets: the house presets of ``spades.rules_config.PRESETS`` (``cutthroat-3``,
``cutthroat-4``, ``jjdd``, ``jj``) and the bidding variants on a standard shape
(``whiz``, ``mirror``, ``suicide``); a standard table is played by the standard bots.

Time: ``--decisions`` card decisions with two or more candidates, drawn from matches of
Normal bots, each answered by Hard at ``--budget`` seconds (``spades.bots.choose``, wall
clock): the median and p95 in milliseconds.

Strength: matches played directly with ``spades.rules.Match`` in duplicate: each seed is
played with the levels' seats exchanged (with partners, team 0 then team 1; in cutthroat
for four, seats 0 and 2 then 1 and 3; in cutthroat for three, the first level in each seat
in turn against two of the other), so that the luck of the cards cancels. ``--pairs`` seeds
of Normal against Easy (whole matches to 500), ``--hard-pairs`` of Hard (at
``--match-budget`` a card) against Normal, in matches of ``--hands`` hands (Hard's matches
are short so that the figure comes in minutes on two cores; ``--hands 0``: to 500 too). A match is won by the first
level when the winning side is one of its seats; ``even`` is the share an even match gives;
``points_a_hand`` the points a hand the first level's sides made over the others' (a mean
per side), a figure that settles sooner than the matches won.

The last line is one JSON object: ``{"presets": {NAME: {"hard_ms": {"p50", "p95", "max"},
"normal_vs_easy": {"won", "matches", "share", "even"}, "hard_vs_normal": {...}}}}``.

Imports: the product (``spades``) only.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

from spades.bots import choose
from spades.rules import HAND_OVER, PLAYING, Match, parse_action
from spades.rules_config import PRESETS, Rules, preset_rules
from spades.views import seat_view

VARIANTS = {"whiz": {"bidding_variant": "whiz"}, "mirror": {"bidding_variant": "mirror"},
            "suicide": {"bidding_variant": "suicide"}}
NAMES = tuple(n for n in PRESETS if n != "standard") + tuple(VARIANTS)


def rules_of(name: str, **settings: object) -> Rules:
    """A preset's rules, or a bidding variant's on a standard shape."""
    if name in VARIANTS:
        return Rules(**{**settings, **VARIANTS[name]})  # type: ignore[arg-type]
    return preset_rules(name, **settings)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def decision_times(rules: Rules, count: int, budget: float, seed: int) -> dict:
    """Hard's wall-clock time over ``count`` card decisions drawn from Normal's matches."""
    rng = random.Random(seed)
    views = []
    m = Match(rules, seed=seed)
    while len(views) < count * 4 and not m.finished:
        if m.phase == HAND_OVER:
            m.next_hand()
            continue
        seat = m.to_act
        view = seat_view(m, seat)
        if m.phase == PLAYING and len(view["legal"]) > 1:
            views.append(view)
        m.apply(seat, parse_action(choose(view, "normal", seed), rules.shape.tricks))
    picked = rng.sample(views, min(count, len(views)))
    times = []
    for i, view in enumerate(picked):
        t0 = time.perf_counter()
        choose(view, "hard", seed + i, budget)
        times.append((time.perf_counter() - t0) * 1000)
    return {"p50": round(statistics.median(times)), "p95": round(percentile(times, 0.95)), "max": round(max(times)),
            "decisions": len(times)}


def seatings(rules: Rules) -> list[tuple[int, ...]]:
    """The seats of the first level in each match of a duplicate set."""
    shape = rules.shape
    if shape.partners:
        return [shape.sides[0], shape.sides[1]]
    if shape.players == 4:
        return [(0, 2), (1, 3)]
    return [(s,) for s in shape.seats]


def play(rules: Rules, seed: int, levels: list[str], budget: float,
         seats: tuple[int, ...]) -> tuple[int | None, float, int]:
    """One match with ``levels`` by seat: the winning side's first seat (None for a draw),
    the points the sides of ``seats`` made over the others' (each a mean per side), and
    the hands played."""
    m = Match(rules, seed=seed)
    for seat in m.turns():
        view = seat_view(m, seat)
        action = choose(view, levels[seat], seed, budget)
        if action not in view["legal"]:
            raise AssertionError(f"{levels[seat]} answered {action!r}, not in {view['legal']}")
        m.apply(seat, parse_action(action, rules.shape.tricks))
    sides = rules.shape.sides
    mine = [t for t, side in enumerate(sides) if side[0] in seats]
    theirs = [t for t in range(len(sides)) if t not in mine]
    lead = sum(m.scores[t] for t in mine) / len(mine) - sum(m.scores[t] for t in theirs) / len(theirs)
    return (None if m.winner is None else sides[m.winner][0]), lead, len(m.results)


def duel(rules: Rules, first: str, second: str, pairs: int, seed: int, budget: float) -> dict:
    """The first level's matches won against the second, in duplicate sets of seeds."""
    won = played = hands = 0
    lead = 0.0
    sets = seatings(rules)
    for i in range(pairs):
        for seats in sets:
            levels = [first if s in seats else second for s in rules.shape.seats]
            winner, points, n = play(rules, seed + i, levels, budget, seats)
            played += 1
            hands += n
            lead += points
            if winner is not None and winner in seats:
                won += 1
        print(f"  {first} v {second}: {won}/{played}, {lead / max(1, hands):+.1f} a hand", file=sys.stderr,
              flush=True)
    even = len(sets[0]) / rules.shape.players if not rules.shape.partners else 0.5
    return {"won": won, "matches": played, "share": round(won / played, 3) if played else None,
            "even": round(even, 3), "points_a_hand": round(lead / max(1, hands), 1), "hands": hands}


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(prog="python -m bench.house_bots")
    p.add_argument("--presets", nargs="*", default=list(NAMES), choices=NAMES)
    p.add_argument("--decisions", type=int, default=40)
    p.add_argument("--budget", type=float, default=0.5)
    p.add_argument("--pairs", type=int, default=10)
    p.add_argument("--hard-pairs", type=int, default=4)
    p.add_argument("--match-budget", type=float, default=0.05)
    p.add_argument("--hands", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    out: dict = {"budget": a.budget, "match_budget": a.match_budget, "hands": a.hands, "presets": {}}
    for name in a.presets:
        print(name, file=sys.stderr, flush=True)
        res: dict = {}
        if a.decisions:
            res["hard_ms"] = decision_times(rules_of(name), a.decisions, a.budget, a.seed)
            print(f"  hard_ms {res['hard_ms']}", file=sys.stderr, flush=True)
        if a.pairs:
            res["normal_vs_easy"] = duel(rules_of(name), "normal", "easy", a.pairs, a.seed * 1000, a.match_budget)
        if a.hard_pairs:
            short = rules_of(name, end="hands", hands=a.hands) if a.hands else rules_of(name)
            res["hard_vs_normal"] = duel(short, "hard", "normal", a.hard_pairs, a.seed * 1000 + 500, a.match_budget)
        out["presets"][name] = res
        print(json.dumps({name: res}), flush=True)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
