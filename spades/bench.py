"""Benchmarks that print figures (never timed tests).

``python -m spades.bench engine [--seconds S] [--rounds R]`` plays random full hands
(every bid and card chosen at random among the legal ones) through the engine's API and,
in the same run, through OpenSpiel's ``spades`` game driven from Python, alternating the
two in rounds so that a noisy, shared machine disturbs both alike. It prints each round,
then as its last line one JSON object:
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

from .rules import MATCH_OVER, Match
from .rules_config import Rules


def engine_hands(seconds: float, seed: int) -> float:
    """Hands per second through ``Match.legal_actions`` / ``Match.apply`` / ``next_hand``."""
    rng = random.Random(seed)
    choice = rng.choice
    rules = Rules(end="hands", hands=99)
    match = Match(rules, seed=seed)
    hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            while match.to_act is not None:
                seat = match.to_act
                match.apply(seat, choice(match.legal_actions(seat)))
            hands += 1
            if match.phase == MATCH_OVER:
                match = Match(rules, seed=rng.random())
            else:
                match.next_hand()
        now = time.perf_counter()
        if now >= deadline:
            return hands / (now - start)


def openspiel_hands(seconds: float, seed: int) -> float:
    """Hands per second through OpenSpiel's spades (one hand per game by default)."""
    import pyspiel

    game = pyspiel.load_game("spades")
    rng = random.Random(seed)
    choice = rng.choice
    hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(choice(state.legal_actions()))
            hands += 1
        now = time.perf_counter()
        if now >= deadline:
            return hands / (now - start)


def bench_engine(seconds: float, rounds: int) -> dict:
    engine, spiel = [], []
    for r in range(rounds):
        engine.append(engine_hands(seconds, r))
        spiel.append(openspiel_hands(seconds, r))
        print(f"round {r + 1}: engine {engine[-1]:.0f} hands/s, openspiel {spiel[-1]:.0f} hands/s", flush=True)
    e, o = statistics.median(engine), statistics.median(spiel)
    return {"engine_hands_per_s": round(e), "openspiel_hands_per_s": round(o), "ratio": round(e / o, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spades.bench")
    sub = parser.add_subparsers(dest="what", required=True)
    e = sub.add_parser("engine", help="engine hands per second against OpenSpiel's spades")
    e.add_argument("--seconds", type=float, default=2.0, help="length of each timed run")
    e.add_argument("--rounds", type=int, default=5)
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
