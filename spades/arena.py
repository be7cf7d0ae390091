"""The arena of BOTS.md: play matches between two teams of bots and print a summary.

``python -m spades arena --team0 SPEC --team1 SPEC --matches N [--rules JSON] [--seed S]``
with the extra options ``--jobs``, ``--limit`` and ``--budget``. A SPEC is ``random``,
``easy``, ``normal``, ``hard``, ``yardstick`` (a conventional club-play bot,
``spades.bots.yardstick``, for measuring), ``punisher`` (a sparring bot that attacks
nils and sets close contracts, ``spades.bots.punisher``) or ``cmd:COMMAND``, an outside
bot speaking JSON lines (one process per seat). Matches are played in duplicate
pairs: both matches of a pair use the same seed, hence the same first dealer and the same
deals, with the teams swapped between seats 0/2 and 1/3, so the luck of the cards cancels
out. An outside bot's illegal, unreadable or late answer is replaced by the Normal bot's
move and counted in ``replaced``.

The last line printed is the summary JSON of BOTS.md. ``ci95`` is the Wilson score
interval of ``win_rate`` (team 0's share of decided matches, draws left out). Beside the
keys of BOTS.md, ``figures`` explains the results, per team (``team0`` is ``--team0``'s
SPEC): ``set_rate`` (hands the team's contract was set, of the hands it had one),
``avg_contract`` and ``avg_tricks`` (per hand with a contract; tricks of the whole team),
``bags_per_hand``, ``bag_penalties_per_match`` (the times its bags cost 10 x 10 bags),
``nil_bids_per_hand``/``nil_made`` and ``blind_nil_bids_per_hand``/``blind_nil_made``
(bids per hand, and the share made), ``points_per_hand``, and what it did to the other
team: ``nils_busted`` (the share of the other team's nils and blind nils it broke) and
``sets_caused`` (the share of the other team's contracts it set).

The extra options also come from the environment: ``SPADES_ARENA_LIMIT`` (seconds an
outside bot may think, default 10), ``SPADES_ARENA_JOBS`` (worker processes, default 1)
and ``SPADES_HARD_BUDGET`` (Hard's thinking time per decision in seconds, default
``spades.bots.HARD_BUDGET_S``).

Imports: the core, ``spades.bots``, and the stdlib.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import queue
import shlex
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from . import bots
from .bots import punisher, yardstick
from .cards import NotationError
from .rules import IllegalAction, Match, parse_action
from .rules_config import Rules, RulesError
from .views import seat_view

DEFAULT_LIMIT_S = 10.0
SPARRING = {"yardstick": yardstick.choose, "punisher": punisher.choose}  # the measuring sticks, not site levels
BUILTIN = (*bots.LEVELS, *SPARRING)


class OutsideBot:
    """One seat's outside bot: a process spoken to in JSON lines (BOTS.md)."""

    def __init__(self, command: str, limit_s: float) -> None:
        self.limit_s = limit_s
        self.proc = subprocess.Popen(
            shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.owed = 0  # answers to earlier requests that came too late and must be skipped
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def ask(self, view: dict) -> object:
        """The bot's answer (a parsed JSON value), or None if it is late or unreadable."""
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps({"type": "act", "view": view}) + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            return None
        deadline = time.monotonic() + self.limit_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.owed += 1
                return None
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                self.owed += 1
                return None
            if line is None:  # the bot exited; every later answer is missing too
                self.lines.put(None)
                return None
            if self.owed:
                self.owed -= 1  # a late answer to an earlier request: not this one's
                continue
            try:
                return json.loads(line)
            except ValueError:
                return None

    def close(self) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps({"type": "end"}) + "\n")
            self.proc.stdin.flush()
            self.proc.stdin.close()
        except (OSError, ValueError):
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def answer_action(answer: object) -> object:
    """The action named by an outside bot's answer, or None when it names none."""
    if not isinstance(answer, dict):
        return None
    if "card" in answer:
        return answer["card"] if isinstance(answer["card"], str) else None
    if "bid" in answer:
        return answer["bid"]
    if answer.get("look") is True:
        return "look"
    return None


@dataclass
class MatchResult:
    """One match's figures, by team (team = which SPEC: 0 is ``--team0``)."""

    winner: int | None
    hand_points: list[list[int]] = field(default_factory=lambda: [[], []])
    decision_ms: list[list[float]] = field(default_factory=lambda: [[], []])
    replaced: list[int] = field(default_factory=lambda: [0, 0])
    # per team, one row per hand: (contract or None, team tricks, set, bags, penalised,
    # nil bids, nils made, blind nil bids, blind nils made)
    hand_rows: list[list[tuple]] = field(default_factory=lambda: [[], []])


def builtin_action(spec: str, view: dict, bot_seed: int, budget_s: float | None = None) -> object:
    """The action (JSON form) of a built-in SPEC, a level or a sparring bot, for a seat view."""
    if spec in SPARRING:
        return SPARRING[spec](view, bot_seed)
    return bots.choose(view, spec, bot_seed, budget_s)


def play_match(specs: tuple[str, str], rules_json: dict, seed: int, swapped: bool,
               limit_s: float, budget_s: float | None) -> MatchResult:
    """Play one match; ``swapped`` puts ``specs[0]`` in seats 1 and 3 instead of 0 and 2."""
    rules = Rules.from_dict(rules_json)
    match = Match(rules, seed=seed)
    team_of_seat = [(s & 1) ^ (1 if swapped else 0) for s in range(4)]
    outside: dict[int, OutsideBot] = {}
    result = MatchResult(None)
    try:
        for s in range(4):
            spec = specs[team_of_seat[s]]
            if spec.startswith("cmd:"):
                outside[s] = OutsideBot(spec[4:], limit_s)
        for seat in match.turns():
            team = team_of_seat[seat]
            spec = specs[team]
            view = seat_view(match, seat)
            bot_seed = seed * 8 + seat
            start = time.perf_counter()
            if seat in outside:
                action = answer_action(outside[seat].ask(view))
            else:
                action = builtin_action(spec, view, bot_seed, budget_s)
            result.decision_ms[team].append((time.perf_counter() - start) * 1000)
            try:
                if action is None:
                    raise NotationError("no answer")
                match.apply(seat, parse_action(action))
            except (IllegalAction, NotationError, ValueError, TypeError):
                if seat not in outside:
                    raise  # a built-in bot must never be illegal: that is a bug to see
                result.replaced[team] += 1
                match.apply(seat, parse_action(bots.choose(view, "normal", bot_seed)))
    finally:
        for bot in outside.values():
            bot.close()
    for r in match.results:
        for s_team in (0, 1):
            seat_team = s_team ^ (1 if swapped else 0)  # the score index of that SPEC's seats
            t = r.score.teams[seat_team]
            result.hand_points[s_team].append(t.total)
            plain = [made for _, blind, made in t.nils if not blind]
            blind = [made for _, is_blind, made in t.nils if is_blind]
            result.hand_rows[s_team].append((
                t.contract if t.made is not None else None, r.tricks[seat_team] + r.tricks[seat_team + 2],
                t.made is False, t.bags, t.penalty < 0, len(plain), sum(plain), len(blind), sum(blind)))
    result.winner = None if match.winner is None else team_of_seat[match.winner]
    return result


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``wins / n``."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _percentile(values: list[float], q: float) -> float:
    """A percentile in milliseconds, to a tenth (Normal decides in well under one)."""
    if not values:
        return 0.0
    v = sorted(values)
    return round(v[min(len(v) - 1, int(q * len(v)))], 2)


def summarize(results: list[MatchResult]) -> dict:
    """The summary object of BOTS.md."""
    wins = [sum(1 for r in results if r.winner == t) for t in (0, 1)]
    draws = sum(1 for r in results if r.winner is None)
    decided = wins[0] + wins[1]
    lo, hi = wilson(wins[0], decided)
    ppm = []
    for t in (0, 1):
        pts = [p for r in results for p in r.hand_points[t]]
        ppm.append(round(sum(pts) / len(pts), 1) if pts else 0.0)
    times = [[ms for r in results for ms in r.decision_ms[t]] for t in (0, 1)]
    margins = [[a - b for r in results for a, b in zip(r.hand_points[t], r.hand_points[1 - t])] for t in (0, 1)]
    return {
        "matches": len(results),
        "wins": wins,
        "draws": draws,
        "win_rate": round(wins[0] / decided, 3) if decided else 0.0,
        "ci95": [round(lo, 3), round(hi, 3)],
        "points_per_hand": ppm,
        "decision_ms": {f"team{t}": {"p50": _percentile(times[t], 0.5), "p95": _percentile(times[t], 0.95)}
                        for t in (0, 1)},
        "replaced": [sum(r.replaced[t] for r in results) for t in (0, 1)],
        "figures": {f"team{t}": figures([row for r in results for row in r.hand_rows[t]], len(results), ppm[t],
                                        [row for r in results for row in r.hand_rows[1 - t]],
                                        margins[t])
                    for t in (0, 1)},
    }


def figures(rows: list[tuple], matches: int, points_per_hand: float, theirs: list[tuple],
            margins: list[int]) -> dict:
    """One team's figures over its hands' rows (see ``MatchResult.hand_rows``); ``theirs``,
    the other team's rows of the same hands, tell what the team did to it: the share of
    its nils (blind nils included) the team broke and of its contracts the team set.
    ``margins`` (the team's points less the other team's, hand by hand) give ``by_hand``:
    for the hands where neither team, only this one, only the other or both bid nil (blind
    nils included), their share of the hands and the team's average margin in them."""
    def share(part: float, whole: float, digits: int = 3) -> float | None:
        return round(part / whole, digits) if whole else None

    kinds: dict[str, list[int]] = {"no_nil": [], "our_nil": [], "their_nil": [], "both_nil": []}
    for ours, other, margin in zip(rows, theirs, margins):
        we, they = bool(ours[5] + ours[7]), bool(other[5] + other[7])
        kinds["both_nil" if we and they else "our_nil" if we else "their_nil" if they else "no_nil"].append(margin)

    contracted = [row for row in rows if row[0] is not None]
    nils, blinds = sum(row[5] for row in rows), sum(row[7] for row in rows)
    their_contracts = [row for row in theirs if row[0] is not None]
    their_nils = sum(row[5] + row[7] for row in theirs)
    return {
        "hands": len(rows),
        "set_rate": share(sum(row[2] for row in contracted), len(contracted)),
        "avg_contract": share(sum(row[0] for row in contracted), len(contracted), 2),
        "avg_tricks": share(sum(row[1] for row in contracted), len(contracted), 2),
        "bags_per_hand": share(sum(row[3] for row in rows), len(rows), 2),
        "bag_penalties_per_match": share(sum(row[4] for row in rows), matches, 2),
        "nil_bids_per_hand": share(nils, len(rows)),
        "nil_made": share(sum(row[6] for row in rows), nils),
        "blind_nil_bids_per_hand": share(blinds, len(rows)),
        "blind_nil_made": share(sum(row[8] for row in rows), blinds),
        "points_per_hand": points_per_hand,
        "nils_busted": share(their_nils - sum(row[6] + row[8] for row in theirs), their_nils),
        "sets_caused": share(sum(row[2] for row in their_contracts), len(their_contracts)),
        "by_hand": {kind: {"share": share(len(m), len(rows)), "margin": share(sum(m), len(m), 2)}
                    for kind, m in kinds.items()},
    }


def _check_spec(spec: str) -> str:
    if spec in BUILTIN or (spec.startswith("cmd:") and spec[4:].strip()):
        return spec
    raise ValueError(f"unknown team {spec!r}: {', '.join(BUILTIN)} or cmd:COMMAND")


def pair_seed(base: int, index: int) -> int:
    """The seed of match ``index`` of a run seeded ``base``: both matches of a pair share it
    (the second of each pair swaps the seats)."""
    return base * 100_000 + index // 2


def _play_one(job: tuple) -> tuple[int, MatchResult]:
    index, specs, rules_json, seed, swapped, limit_s, budget_s = job
    return index, play_match(specs, rules_json, seed, swapped, limit_s, budget_s)


def main(args: argparse.Namespace) -> int:
    """Run the arena for parsed arguments; print progress lines and the summary last."""
    try:
        specs = (_check_spec(args.team0), _check_spec(args.team1))
        rules_json = json.loads(args.rules or "{}")
        Rules.from_dict(rules_json)
    except (ValueError, RulesError) as e:
        print(f"arena: {e}", file=sys.stderr)
        return 2
    limit_s = float(getattr(args, "limit", None) or os.environ.get("SPADES_ARENA_LIMIT") or DEFAULT_LIMIT_S)
    jobs = int(getattr(args, "jobs", None) or os.environ.get("SPADES_ARENA_JOBS") or 1)
    budget = getattr(args, "budget", None) or os.environ.get("SPADES_HARD_BUDGET")
    budget_s = float(budget) if budget else None
    base = int(args.seed or 0)
    todo = [(i, specs, rules_json, pair_seed(base, i), i % 2 == 1, limit_s, budget_s)
            for i in range(max(0, int(args.matches)))]
    results: list[MatchResult | None] = [None] * len(todo)
    done = 0
    if jobs > 1 and len(todo) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for index, r in pool.map(_play_one, todo):
                results[index] = r
                done += 1
                _progress(done, len(todo), r)
    else:
        for job in todo:
            index, r = _play_one(job)
            results[index] = r
            done += 1
            _progress(done, len(todo), r)
    print(json.dumps(summarize([r for r in results if r is not None])), flush=True)
    return 0


def _progress(done: int, total: int, r: MatchResult) -> None:
    who = "draw" if r.winner is None else f"team{r.winner}"
    print(f"match {done}/{total}: {who} in {len(r.hand_points[0])} hands, replaced {r.replaced}", flush=True)


def parser(prog: str = "python -m spades.arena") -> argparse.ArgumentParser:
    """The arena's command line (``python -m spades arena`` uses it too)."""
    p = argparse.ArgumentParser(prog=prog)
    p.add_argument("--team0", required=True)
    p.add_argument("--team1", required=True)
    p.add_argument("--matches", type=int, default=20)
    p.add_argument("--rules", default="{}")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default 1)")
    p.add_argument("--limit", type=float, default=None, help="seconds an outside bot may think (default 10)")
    p.add_argument("--budget", type=float, default=None, help="Hard's thinking time per decision, seconds")
    return p


if __name__ == "__main__":
    sys.exit(main(parser().parse_args()))
