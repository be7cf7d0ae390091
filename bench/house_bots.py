"""Hard's decision time at a house-rules table (``spades.bots.house_search``), per preset:
a benchmark that prints figures (never a timed test). How strong the levels are is the
arena's to measure (``python -m spades arena --seats ...`` or ``--team0/--team1`` with
``--rules``: docs/bots.md, "The house-rules bots").

``python -m bench.house_bots [--presets NAME ...] [--decisions N] [--budget 0.5] [--seed S]``

Presets: the house presets of ``spades.rules_config.PRESETS`` (``cutthroat-3``,
``cutthroat-4``, ``jjdd``, ``jj``) and the bidding variants on a standard shape
(``whiz``, ``mirror``, ``suicide``); a standard table is played by the standard bots.
``--decisions`` card decisions with two or more candidates, drawn from matches of Normal
bots, each answered by Hard at ``--budget`` seconds (``spades.bots.choose``, wall clock):
the median, p95 and most in milliseconds. The last line is one JSON object:
``{"budget": B, "presets": {NAME: {"hard_ms": {"p50", "p95", "max", "decisions"}}}}``.

``--playouts N`` measures instead the two engines of Normal's play on the same ``N``
dealt standard hands (bids of 3 each): the standard bots' play-out (``search.playout``,
``policy``, cards 0-51) and the house bots' (``house_play.play_out``, slots) at a
standard table, alternated hand by hand so that a shared machine slows both alike; the
last line is ``{"playouts": N, "standard_plays_per_s": X, "house_plays_per_s": Y,
"ratio": X / Y}``. Each runs compiled when the build is there (``spades.native``).

Imports: the product (``spades``) only.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
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
    views: list[dict] = []
    m = Match(rules, seed=seed)
    while len(views) < count * 4 and not m.finished:
        if m.phase == HAND_OVER:
            m.next_hand()
            continue
        seat = m.to_act
        assert seat is not None
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


def playout_rates(count: int, seed: int) -> dict:
    """Card plays a second of the standard and the house play-outs on the same deals."""
    from spades.bots import house, house_play, search, slots
    from spades.bots.policy import HandCtx

    rules = Rules()
    t = slots.table(rules)
    rng = random.Random(seed)
    spent = {"standard": 0.0, "house": 0.0}
    plays = {"standard": 0, "house": 0}
    for _ in range(count):
        deck = list(range(52))
        rng.shuffle(deck)
        hands = [sum(1 << c for c in deck[13 * s:13 * s + 13]) for s in range(4)]
        t0 = time.perf_counter()
        _, n = search.playout(HandCtx(True, [3, 3, 3, 3]), hands, [], 0, 0, [0, 0, 0, 0], False)
        spent["standard"] += time.perf_counter() - t0
        plays["standard"] += n
        held = [t.mask([c for c in range(52) if h >> c & 1]) for h in hands]
        game = house.Game(t, [3, 3, 3, 3], [False] * 4, [0, 0], [0, 0])
        t0 = time.perf_counter()
        _, n = house_play.play_out(game, held, [], 0, 0, [0, 0, 0, 0], False, [0, 0, 0, 0])
        spent["house"] += time.perf_counter() - t0
        plays["house"] += n
    std, hse = plays["standard"] / spent["standard"], plays["house"] / spent["house"]
    return {"playouts": count, "compiled": search.COMPILED, "standard_plays_per_s": round(std),
            "house_plays_per_s": round(hse), "ratio": round(std / hse, 2)}


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(prog="python -m bench.house_bots")
    p.add_argument("--presets", nargs="*", default=list(NAMES), choices=NAMES)
    p.add_argument("--decisions", type=int, default=40)
    p.add_argument("--budget", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--playouts", type=int, default=0, help="compare the two play-outs on this many hands instead")
    a = p.parse_args(argv)
    if a.playouts:
        rates = playout_rates(a.playouts, a.seed)
        print(json.dumps(rates))
        return rates
    out: dict = {"budget": a.budget, "presets": {}}
    for name in a.presets:
        res = {"hard_ms": decision_times(rules_of(name), a.decisions, a.budget, a.seed)}
        out["presets"][name] = res
        print(json.dumps({name: res}), flush=True)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
