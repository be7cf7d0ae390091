"""Engine speed against OpenSpiel: a benchmark that prints figures (never a timed test).

``python -m bench.engine [--seconds S] [--rounds R]`` plays random full hands
(every bid and card chosen at random among the legal ones) through the engine's API and,
in the same run, through OpenSpiel's ``spades`` game driven from Python, alternating the
two in short slices within each round so that a noisy, shared machine disturbs both
alike. It prints each round, then as its last line one JSON object:
``{"engine_hands_per_s": X, "openspiel_hands_per_s": Y, "ratio": X/Y}`` (medians of the
rounds). OpenSpiel's hand includes its 52 chance moves of the deal; the engine's hand
includes its seeded shuffle and the scoring of the hand.

Imports: the core; ``pyspiel`` from the optional ``bench`` extra (``pip install -e .[bench]``).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

from spades.rules import MATCH_OVER, Match
from spades.rules_config import Rules


class EngineRunner:
    """Random hands through ``Match.legal_actions`` / ``Match.apply`` / ``next_hand``."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.rules = Rules(end="hands", hands=99)
        self.match = Match(self.rules, seed=seed)

    def hands(self, n: int) -> None:
        choice = self.rng.choice
        match = self.match
        for _ in range(n):
            while match.to_act is not None:
                seat = match.to_act
                match.apply(seat, choice(match.legal_actions(seat)))
            if match.phase == MATCH_OVER:
                match = Match(self.rules, seed=self.rng.random())
            else:
                match.next_hand()
        self.match = match


class OpenSpielRunner:
    """Random hands through OpenSpiel's spades (one hand per game by default)."""

    def __init__(self, seed: int) -> None:
        import pyspiel

        self.game = pyspiel.load_game("spades")
        self.rng = random.Random(seed)

    def hands(self, n: int) -> None:
        choice = self.rng.choice
        game = self.game
        for _ in range(n):
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(choice(state.legal_actions()))


def _rate(runner, seconds: float) -> tuple[int, float]:
    hands, start = 0, time.perf_counter()
    while True:
        runner.hands(20)
        hands += 20
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return hands, elapsed


def bench_engine(seconds: float, rounds: int, slice_s: float = 0.25) -> dict:
    """Each round alternates the two in short slices, so load on the machine hits both alike."""
    engine_rates, spiel_rates = [], []
    for r in range(rounds):
        runners = (EngineRunner(r), OpenSpielRunner(r))
        totals = [[0, 0.0], [0, 0.0]]
        for _ in range(max(1, round(seconds / slice_s))):
            for i, runner in enumerate(runners):
                n, t = _rate(runner, slice_s)
                totals[i][0] += n
                totals[i][1] += t
        engine_rates.append(totals[0][0] / totals[0][1])
        spiel_rates.append(totals[1][0] / totals[1][1])
        print(f"round {r + 1}: engine {engine_rates[-1]:.0f} hands/s, openspiel {spiel_rates[-1]:.0f} hands/s, "
              f"ratio {engine_rates[-1] / spiel_rates[-1]:.3f}", flush=True)
    e, o = statistics.median(engine_rates), statistics.median(spiel_rates)
    return {"engine_hands_per_s": round(e), "openspiel_hands_per_s": round(o), "ratio": round(e / o, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.engine",
                                     description="engine hands per second against OpenSpiel's spades")
    parser.add_argument("--seconds", type=float, default=2.0, help="length of each timed run")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("OpenSpiel is not installed: pip install -e '.[bench]'", file=sys.stderr)
        return 2
    print(json.dumps(bench_engine(args.seconds, args.rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
