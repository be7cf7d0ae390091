"""The analysis of a finished match and the double-dummy solver: a benchmark that prints
figures (never a timed test).

``python -m bench.analysis [--preset NAME] [--house-solver] [--seed S] [--hands N] [--budget B] [--workers W]
[--dd-hands H]``

1. Plays a 5-hand match with Normal bots (seeded; ``--preset``, one of
   ``spades.rules_config.PRESETS``, sets its rules: ``jjdd`` for a jokers match,
   ``cutthroat-3`` for a cutthroat one), then analyses it as the site does:
   through ``spades.tables.analyses.AnalysisQueue`` with lowered-priority worker
   processes (``--workers``, the site's default 2; ``analysis_pool``) at the analyst's
   budget, stored in a fresh SQLite file. Prints the seconds from asking to stored, and
   the processor seconds the workers spent (their user and system time, which other jobs
   on a shared machine do not inflate as they do the wall time).
2. The solver from 7 tricks left: on ``--dd-hands`` seeded hands played at random to
   7 tricks left, the position at that trick's start solved by a fresh ``Solver``
   (every legal card's figure); positions per second. Also the seconds per hand for every
   position from there to the end with one solver per hand, as the analysis does. The
   solver is the standard one at a standard table and ``HouseSolver`` at a house one;
   ``--house-solver`` runs ``HouseSolver`` at a standard table too (the two solvers on
   the same positions).

The last line is one JSON object: ``{"preset": …, "match_seconds": …, "cpu_seconds": …,
"cpu_seconds_per_hand": …, "hands": …, "cards": …, "budget_s": …, "workers": …,
"dd_solver": …, "dd_positions_per_s": …, "dd_hand_seconds": …}`` (``cards``: the cards
the match played, analysed one step each).

Imports: the product (``spades``) only.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from spades import bots
from spades.bots import analysis
from spades.bots.house_solver import HouseSolver, Spot
from spades.bots.solver import Position, Solver
from spades.records import to_record
from spades.rules import Match, parse_action
from spades.rules_config import PRESETS, Rules, preset_rules
from spades.storage import Store
from spades.tables.analyses import AnalysisQueue, analysis_pool
from spades.views import seat_view


def rules_of(preset: str, **settings: object) -> Rules:
    return dataclasses.replace(preset_rules(preset), **settings)  # type: ignore[arg-type]


def played_match(seed: int, hands: int, preset: str = "standard") -> dict:
    """A finished match of ``hands`` hands, every seat the Normal bot, as its record."""
    m = Match(rules_of(preset, end="hands", hands=hands), seed=seed)
    for seat in m.turns():
        m.apply(seat, parse_action(bots.choose(seat_view(m, seat), "normal", seed)))
    return to_record(m)


def _children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def match_seconds(record: dict, budget: float, workers: int) -> tuple[float, float]:
    """(Seconds from asking to stored, the worker processes' processor seconds.)"""
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(str(Path(tmp) / "bench.db"))
        pool = analysis_pool(workers)
        queue = AnalysisQueue(store, pool, workers=workers, budget_s=budget)
        cpu = _children_cpu()
        try:
            start = time.perf_counter()
            queue.ask("BENCH", 1, record)
            assert queue.wait("BENCH", 1, 3600), "the analysis did not finish"
            seconds = time.perf_counter() - start
        finally:
            queue.close()
            pool.shutdown(wait=True)  # the workers end and are waited for: their times are counted
            store.close()
        return seconds, _children_cpu() - cpu


def seven_left(seed: int, rules: Rules) -> Match:
    """A hand bid by the Normal bot and played at random to 7 tricks left."""
    rng = random.Random(seed)
    m = Match(rules, seed=seed)
    while m.phase == "bidding":
        seat = m.to_act
        assert seat is not None
        m.apply(seat, parse_action(bots.choose(seat_view(m, seat), "normal", seed)))
    while len(m.tricks) < m.shape.tricks - 7:
        seat = m.to_act
        m.apply(seat, rng.choice(m.legal_actions(seat)))
    return m


class _Either:
    """The standard solver, or ``HouseSolver``, asked the same way."""

    def __init__(self, m: Match, house: bool) -> None:
        self.house = house
        self.solver: Solver | HouseSolver = (HouseSolver if house else Solver)(m.rules, m.bids, m.blind)

    def card_values(self, m: Match) -> dict[int, int]:
        if isinstance(self.solver, HouseSolver):
            return self.solver.card_values(Spot(tuple(m.held), tuple(m.trick), m.trick_leader, tuple(m.taken),
                                                m.broken))
        return self.solver.card_values(Position(tuple(m.held), tuple(m.trick), m.trick_leader,  # type: ignore[arg-type]
                                                tuple(m.taken), m.broken))  # type: ignore[arg-type]


def solver_figures(hands: int, rules: Rules, house: bool) -> tuple[float, float]:
    """(positions per second at 7 tricks left with a fresh solver, median seconds per hand
    for every position from 7 tricks left with one solver)."""
    solved = 0
    spent = 0.0
    per_hand = []
    for seed in range(hands):
        m = seven_left(seed, rules)
        start = time.perf_counter()
        _Either(m, house).card_values(m)
        spent += time.perf_counter() - start
        solved += 1
        rng = random.Random(seed)
        solver = _Either(m, house)
        start = time.perf_counter()
        while m.phase == "playing":
            solver.card_values(m)
            seat = m.to_act
            m.apply(seat, rng.choice(m.legal_actions(seat)))
        per_hand.append(time.perf_counter() - start)
    return solved / spent, statistics.median(per_hand)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.analysis", description=__doc__.splitlines()[0])
    parser.add_argument("--preset", choices=PRESETS, default="standard")
    parser.add_argument("--house-solver", action="store_true", help="HouseSolver at a standard table too")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hands", type=int, default=5)
    parser.add_argument("--budget", type=float, default=analysis.BUDGET_S)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dd-hands", type=int, default=20)
    args = parser.parse_args(argv)
    rules = rules_of(args.preset)
    house = rules.house or args.house_solver
    record = played_match(args.seed, args.hands, args.preset)
    cards = sum(len(h["plays"]) for h in record["hands"])
    seconds, cpu = match_seconds(record, args.budget, args.workers)
    print(f"analysed a {args.hands}-hand {args.preset} match ({cards} cards) in {seconds:.1f} s, {cpu:.1f} "
          f"processor seconds (budget {args.budget} s, {args.workers} workers)", flush=True)
    per_s, hand_s = solver_figures(args.dd_hands, rules, house)
    solver = "HouseSolver" if house else "Solver"
    print(f"double dummy ({solver}) from 7 tricks left: {per_s:.2f} positions/s; every position of a hand's end: "
          f"{hand_s:.2f} s (median of {args.dd_hands} hands)", flush=True)
    print(json.dumps({"preset": args.preset, "match_seconds": round(seconds, 1), "cpu_seconds": round(cpu, 1),
                      "cpu_seconds_per_hand": round(cpu / args.hands, 2), "hands": args.hands, "cards": cards,
                      "budget_s": args.budget, "workers": args.workers, "dd_solver": solver,
                      "dd_positions_per_s": round(per_s, 2), "dd_hand_seconds": round(hand_s, 2)}))


if __name__ == "__main__":
    main()
