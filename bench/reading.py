"""How well Hard's deals place the cards it cannot see: a benchmark that prints figures
(never a timed test).

``python -m bench.reading [--against SPEC] [--matches N] [--seed S] [--deals N]
[--every K] [--jobs J] [--set NAME=VALUE ...] [--bids-only]``

Positions: ``--matches`` matches of Hard (team 0, a quick 0.01 s a decision) against
``--against`` (a built-in SPEC of the arena, default ``normal``), duplicate pairs as there;
every ``--every``-th card decision of a team-0 seat. At each, ``--deals`` deals from
``spades.bots.deals.Deals``, the deals Hard's search judges its cards on, and for every
card the seat cannot see, the share of the deals (by their weights) that give it to the
seat that holds it:

- **placed**: that share, averaged over the cards (a third or so is what knowing only the
  seats' counts and voids gives);
- **log**: the mean log of the share, counted as (k + 0.5) / (n + 1.5) of n deals, so that
  deals sure of a wrong place cost more than deals unsure of it (higher is better).

Each figure also by the cards played so far (``first trick``: 0-3, ``tricks 2-7``: 4-27,
``tricks 8-13``: 28 and more) and by the live nil (``our nil``, ``their nil``, ``no
nil``; a hand with both counts as both). It measures the reading alone, not the cards
chosen: a change that places the cards better is still to be played in the arena.

``--set NAME=VALUE`` (a constant of ``spades.bots.deals``, the value a Python literal,
e.g. ``--set READ_MISS=0.2``) and ``--bids-only`` (deals by the bids alone, the reading of
the play off) run every position a second time, on the same deals' seeds, and print the
paired differences. A position costs about ``--deals`` deals twice; 12 matches give about
1,000 positions, about 25 seconds compiled with ``--jobs 2``.

The last line is one JSON object: ``{"positions": …, "shipped": {GROUP: {"n", "placed",
"log"}}, "changed": {GROUP: {"n", "placed", "log", "gain", "gain_se"}}}`` (``changed``
only with ``--set`` or ``--bids-only``; ``gain`` is the changed ``placed`` less the
shipped one, on the same positions, and ``gain_se`` its standard error; ``all`` is the
group of every position).

Imports: the product (``spades``) and ``bench.search_quality`` (its ``--set``).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
from concurrent.futures import ProcessPoolExecutor

from bench.search_quality import constants, parse_changes
from spades.arena import BUILTIN, builtin_action, pair_seed
from spades.bots import bidmodel, deals, knowledge
from spades.cards import FULL_MASK, cards_of
from spades.rules import PLAYING, Match, parse_action
from spades.rules_config import Rules
from spades.views import seat_view

HARD_BUDGET = 0.01  # seconds a decision for the Hard seats that play the positions out


def placed(known: knowledge.Known, held: list[int], n: int, seed: int, read: bool) -> tuple[float, float]:
    """For ``n`` deals of the seat's search: the mean share of the deals that give each
    unseen card to the seat holding it (``held``), and the mean log of that share."""
    hand = known.hand or 0
    cards = [int(c) for c in cards_of(FULL_MASK & ~known.gone & ~hand)]
    holder = {c: s for s in range(4) if s != known.seat for c in cards if held[s] >> c & 1}
    rng = random.Random(seed)
    source = deals.Deals(known, hand, bidmodel.model(), read)
    hits = dict.fromkeys(cards, 0.0)
    total = 0.0
    for _ in range(n):
        hands, w, _work = source.next(rng)
        total += w
        for c in cards:
            if hands[holder[c]] >> c & 1:
                hits[c] += w
    shares = [hits[c] / total for c in cards]
    logs = [math.log((x * n + 0.5) / (n + 1.5)) for x in shares]
    return statistics.mean(shares), statistics.mean(logs)


def groups(known: knowledge.Known) -> list[str]:
    """The groups a position counts in (``all`` among them)."""
    played = 4 * len(known.tricks) + len(known.trick)
    stage = "first trick" if played < 4 else "tricks 2-7" if played < 28 else "tricks 8-13"
    out = ["all", stage]
    bids = known.bids
    ours = 0 in (bids[known.seat], bids[known.seat ^ 2])
    theirs = 0 in (bids[known.seat ^ 1], bids[known.seat ^ 3])
    if ours:
        out.append("our nil")
    if theirs:
        out.append("their nil")
    if not ours and not theirs:
        out.append("no nil")
    return out


def one_match(job: tuple) -> list[tuple[list[str], tuple[float, float], tuple[float, float] | None]]:
    """Play match ``index`` of the pairs and measure its positions: per position, its
    groups and (placed, log) shipped and, with a change, changed."""
    index, against, seed, n, every, changes, bids_only = job
    match = Match(Rules(), seed=pair_seed(seed, index))
    hard_team = 1 if index % 2 else 0  # the arena's pairs: the second of each swaps seats
    out = []
    decisions = 0
    for seat in match.turns():
        view = seat_view(match, seat)
        hard = seat & 1 == hard_team
        if hard and match.phase == PLAYING:
            decisions += 1
            known = knowledge.read(view)
            if decisions % every == 0 and FULL_MASK & ~known.gone & ~(known.hand or 0):
                deal_seed = seed * 1_000_003 + index * 10_007 + decisions
                shipped = placed(known, match.held, n, deal_seed, True)
                changed = None
                if changes or bids_only:
                    with constants(changes, deals):
                        changed = placed(known, match.held, n, deal_seed, not bids_only)
                out.append((groups(known), shipped, changed))
        spec = "hard" if hard else against
        action = builtin_action(spec, view, seed * 8 + seat + index * 64, HARD_BUDGET)
        match.apply(seat, parse_action(action))
    return out


def summary(rows: list[tuple[tuple[float, float], tuple[float, float] | None]], which: int) -> dict:
    """A group's figures for the shipped deals (``which`` 0) or the changed ones (1)."""
    figures = [r[which] for r in rows if r[which] is not None]
    out = {"n": len(figures), "placed": round(statistics.mean(f[0] for f in figures), 4),
           "log": round(statistics.mean(f[1] for f in figures), 4)}
    if which == 1:
        gains = [r[1][0] - r[0][0] for r in rows if r[1] is not None]
        out["gain"] = round(statistics.mean(gains), 4)
        out["gain_se"] = round(statistics.stdev(gains) / len(gains) ** 0.5, 4) if len(gains) > 1 else 0.0
    return out


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(prog="python -m bench.reading")
    p.add_argument("--against", default="normal")
    p.add_argument("--matches", type=int, default=12)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--every", type=int, default=3)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--bids-only", action="store_true")
    a = p.parse_args(argv)
    if a.against not in BUILTIN:
        p.error(f"--against {a.against}: one of {', '.join(BUILTIN)}")
    changes = parse_changes(p, a.set, deals)
    jobs = [(i, a.against, a.seed, a.deals, max(1, a.every), changes, a.bids_only) for i in range(a.matches)]
    by_group: dict[str, list] = {}
    with ProcessPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        for done, positions in enumerate(pool.map(one_match, jobs), 1):
            for names, shipped, changed in positions:
                for g in names:
                    by_group.setdefault(g, []).append((shipped, changed))
            print(f"match {done}/{a.matches}: {len(positions)} positions", flush=True)
    order = ["all", "first trick", "tricks 2-7", "tricks 8-13", "our nil", "their nil", "no nil"]
    names = [g for g in order if g in by_group]
    out: dict = {"positions": len(by_group.get("all", [])),
                 "shipped": {g: summary(by_group[g], 0) for g in names}}
    label = ", ".join([*a.set, *(["the bids only"] if a.bids_only else [])])
    for g in names:
        f = out["shipped"][g]
        print(f"{g}: {f['n']} positions, placed {f['placed']}, log {f['log']}")
    if changes or a.bids_only:
        out["changed"] = {g: summary(by_group[g], 1) for g in names}
        for g in names:
            f = out["changed"][g]
            print(f"{g} with {label}: placed {f['placed']} (gain {f['gain']} ± {f['gain_se']}), log {f['log']}")
    print(json.dumps(out), flush=True)
    return out


if __name__ == "__main__":
    main()
