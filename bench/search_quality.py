"""What Hard's card at a budget gives away against a longer search: a benchmark that prints
figures (never a timed test).

``python -m bench.search_quality [--positions N] [--seed S] [--budgets 0.5 2]
[--reference 4] [--set NAME=VALUE ...]``

Positions: ``--positions`` matches of Normal bots (RULES.md defaults, seeded by ``--seed``)
stopped at a card decision drawn at random in the first hand, leads and follows alike.
For each position and each budget, Hard's card (``search.search_card``), the best card of
a search at ``--reference`` seconds (another seed), and both judged on the samples of a
third search at the reference budget (a third seed): the loss is what the judge's mean
gives the reference card over the budget's card, in points of match value (by Hard's own
play-outs, so it says how far a budget is from what Hard's model would choose with more
time, not how good that choice is). Positions with one candidate are left out. The
reference and the judge run with the shipped constants.

``--set NAME=VALUE`` (a constant of ``spades.bots.search``, the value a Python literal,
e.g. ``--set CARD_TIE=0``) runs each budget a second time with the constants changed,
on the same positions and seeds, and prints the paired difference of the two losses.

Searches stop on their work count, not the clock (the deadline is set far out), so the
figures are the same on a loaded machine, only slower. Each position costs about the
budgets twice (with ``--set``) plus twice the reference, in seconds.

The last line is one JSON object: ``{"positions": …, "decisions": …, "reference_s": …,
"budgets": {B: {"loss", "se", "samples"}}, "changed": {B: {"loss", "se", "samples",
"gain", "gain_se"}}}`` (``changed`` only with ``--set``; ``gain`` is the shipped loss less
the changed one, positive when the change gives away less; ``samples`` the median
samples a decision).

Imports: the product (``spades``) only.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import random
import statistics
import time
import types
from collections.abc import Iterator

from spades import bots
from spades.bots import knowledge, search
from spades.rules import BIDDING, PLAYING, Match, parse_action
from spades.rules_config import Rules
from spades.views import seat_view

FAR = 10_000.0  # seconds: a deadline that never stops a search before its work count


def position(seed: int) -> knowledge.Known:
    """The seat to act at a random card decision of a hand of Normal bots."""
    rng = random.Random(seed)
    m = Match(Rules(), seed=seed)
    stop = rng.randrange(0, 48)
    played = 0
    while m.phase == BIDDING or (m.phase == PLAYING and played < stop):
        seat = m.to_act
        assert seat is not None
        if m.phase == PLAYING:
            played += 1
        m.apply(seat, parse_action(bots.choose(seat_view(m, seat), "normal", seed)))
    assert m.phase == PLAYING and m.to_act is not None
    return knowledge.read(seat_view(m, m.to_act))


@contextlib.contextmanager
def constants(changes: dict[str, object], module: types.ModuleType = search) -> Iterator[None]:
    """``module`` (``spades.bots.search`` by default) with ``changes`` to its constants,
    put back after."""
    before = {name: getattr(module, name) for name in changes}
    for name, value in changes.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(module, name, value)


def parse_changes(p: argparse.ArgumentParser, items: list[str], module: types.ModuleType) -> dict[str, object]:
    """The ``--set NAME=VALUE`` items as {name: value}: each an upper-case constant of
    ``module``, each value a Python literal (else the parser's error)."""
    changes: dict[str, object] = {}
    for item in items:
        name, _, text = item.partition("=")
        if not name.isupper() or not hasattr(module, name):
            p.error(f"{module.__name__} has no constant {name}")
        try:
            changes[name] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            p.error(f"--set {item}: the value is not a Python literal")
    return changes


def searched(known: knowledge.Known, budget: float, seed: int) -> tuple[int, search.Tally | None]:
    """Hard's search to the end of its work: (its card, its tally)."""
    return search.search_card(known, random.Random(seed), budget, time.monotonic() + FAR)


def loss(known: knowledge.Known, judge: search.Tally, best: int, card: int) -> float:
    """What ``judge``'s mean gives ``best`` over ``card`` (each read as the candidate
    standing for it)."""
    cands = list(judge.values)
    others = search.apart(known, known.hand or 0)
    return judge.mean(search.candidate_for(best, cands, others)) - judge.mean(search.candidate_for(card, cands, others))


def mean_se(xs: list[float]) -> tuple[float | None, float]:
    """The mean and its standard error, rounded (None and 0 without figures)."""
    se = statistics.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else 0.0
    return (round(statistics.mean(xs), 3) if xs else None), round(se, 3)


def summary(losses: list[float], samples: list[int]) -> dict:
    """A budget's figures: its mean loss, that mean's standard error, the median samples."""
    loss_, se = mean_se(losses)
    return {"loss": loss_, "se": se, "samples": statistics.median(samples) if samples else None}


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(prog="python -m bench.search_quality")
    p.add_argument("--positions", type=int, default=40)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--budgets", type=float, nargs="+", default=[0.5, 2.0])
    p.add_argument("--reference", type=float, default=4.0)
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    a = p.parse_args(argv)
    changes = parse_changes(p, a.set, search)
    shipped: dict[float, tuple[list[float], list[int]]] = {b: ([], []) for b in a.budgets}
    changed: dict[float, tuple[list[float], list[int]]] = {b: ([], []) for b in a.budgets}
    decisions = 0
    for i in range(a.positions):
        known = position(a.seed * 100_000 + i)
        best, judge = searched(known, a.reference, 3 * i + 1)
        if judge is None:
            continue
        _, judge = searched(known, a.reference, 3 * i + 2)
        assert judge is not None
        decisions += 1
        for b in a.budgets:
            runs = [(shipped, {})] + ([(changed, changes)] if changes else [])
            for into, change in runs:
                with constants(change):
                    card, tally = searched(known, b, 3 * i)
                assert tally is not None
                into[b][0].append(loss(known, judge, best, card))
                into[b][1].append(len(tally.weights))
        print(f"position {i + 1}/{a.positions}", flush=True)
    out: dict = {"positions": a.positions, "decisions": decisions, "reference_s": a.reference,
                 "budgets": {str(b): summary(*shipped[b]) for b in a.budgets}}
    for b in a.budgets:
        f = out["budgets"][str(b)]
        print(f"{b} s: gives away {f['loss']} ± {f['se']} points a decision ({decisions} decisions, "
              f"median {f['samples']} samples)")
    if changes:
        out["changed"] = {}
        for b in a.budgets:
            s = summary(*changed[b])
            gains = [x - y for x, y in zip(shipped[b][0], changed[b][0])]
            s["gain"], s["gain_se"] = mean_se(gains)
            out["changed"][str(b)] = s
            print(f"{b} s with {', '.join(a.set)}: gives away {s['loss']} ± {s['se']} (median {s['samples']} "
                  f"samples); paired gain {s['gain']} ± {s['gain_se']}")
    print(json.dumps(out), flush=True)
    return out


if __name__ == "__main__":
    main()
