"""The compiled bots (``spades.native``): built by the set-up, loaded only for today's
sources, and choosing exactly what the Python source chooses for the same work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from spades import native

ROOT = Path(__file__).resolve().parent.parent

# every action of two hands of Normal bots (bids, cards, its search against nils), and
# Hard's searched card at every third card decision with the same work in both builds
PLAY = """
import json, math, random
from spades.bots import choose, knowledge, search
from spades.rules import HAND_OVER, Match, Rules, parse_action
from spades.views import seat_view
out = {"compiled": search.COMPILED, "actions": [], "hard": []}
match = Match(Rules(), seed=41)
decisions = 0
while match.hand_number <= 2 and not match.finished:
    if match.phase == HAND_OVER:
        match.next_hand()
        continue
    seat = match.to_act
    view = seat_view(match, seat)
    action = choose(view, "normal", 7)
    out["actions"].append(action)
    if match.phase == "playing":
        decisions += 1
        if decisions % 3 == 0:
            card, tally = search.search_card(knowledge.read(view), random.Random(decisions),
                                             20_000 / search.PLAYS_PER_SECOND, math.inf)
            out["hard"].append([card, tally and [len(tally.weights)] + [round(tally.mean(c), 9) for c in tally.values]])
    match.apply(seat, parse_action(action))
# the same at a cutthroat table of three: the house bots, Hard's play-outs and the house solver
from spades.bots import house, house_search
from spades.bots.house_solver import HouseSolver, Spot
from spades.rules_config import preset_rules
match = Match(preset_rules("cutthroat-3"), seed=43)
out["house"], decisions = [], 0
while match.phase != HAND_OVER:
    seat = match.to_act
    view = seat_view(match, seat)
    action = choose(view, "normal", 7)
    out["house"].append(action)
    if match.phase == "playing":
        decisions += 1
        state = house.read(view)
        if decisions % 4 == 0:
            cands = house_search.candidates(state)
            values, _ = house_search.card_values(state, random.Random(decisions), cands, 4_000, math.inf)
            out["house"].append({str(state.table.card(c)): round(sum(v), 9) for c, v in values.items()})
        if len(match.tricks) >= 13:
            solver = HouseSolver(match.rules, match.bids, match.blind)
            spot = Spot(tuple(match.held), tuple(match.trick), match.trick_leader, tuple(match.taken), match.broken)
            out["house"].append(sorted(solver.card_values(spot).items()))
    match.apply(seat, parse_action(action))
print(json.dumps(out))
"""


def run(native_on: bool) -> dict:
    env = {**os.environ, "SPADES_NATIVE": "1" if native_on else "0"}
    done = subprocess.run([sys.executable, "-c", PLAY], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300, check=True)
    return json.loads(done.stdout)


def test_the_compiled_bots_choose_what_the_source_chooses() -> None:
    compiled, source = run(True), run(False)
    assert compiled["compiled"] is True, "scripts/setup builds the compiled bots: python -m spades.native"
    assert source["compiled"] is False
    assert len(compiled["hard"]) >= 8 and any(h[1] for h in compiled["hard"])
    assert compiled["actions"] == source["actions"]
    assert compiled["hard"] == source["hard"]
    assert len(compiled["house"]) > 51 and sum(isinstance(h, dict) for h in compiled["house"]) >= 8
    assert compiled["house"] == source["house"]


def test_an_edited_source_runs_as_python_until_the_next_build(tmp_path: Path, monkeypatch) -> None:
    """The build is found by a hash of the sources: a changed module has none."""
    sources = []
    for path in native.SOURCES:
        copy = tmp_path / path.name
        copy.write_bytes(path.read_bytes())
        sources.append(copy)
    monkeypatch.setattr(native, "SOURCES", tuple(sources))
    monkeypatch.setattr(native, "BUILDS", tmp_path / "builds")
    monkeypatch.delenv("SPADES_NATIVE", raising=False)
    monkeypatch.setattr(sys, "path", sys.path[:])
    built = native.BUILDS / native.key()
    built.mkdir(parents=True)
    (built / "done").write_text(built.name)
    path: list[str] = []
    assert native.load(path) is True and path == [str(built / "spades" / "bots")]

    sources[0].write_text(sources[0].read_text() + "\n# an edit\n")
    path = []
    assert native.load(path) is False and path == []

    sources[0].write_text(sources[0].read_text().removesuffix("\n# an edit\n"))
    monkeypatch.setenv("SPADES_NATIVE", "0")
    assert native.load(path) is False and path == []


def test_pytest_leaves_out_the_compiled_modules_paths() -> None:
    """pytest's doctest collection imports a module by its path, and a compiled one is
    not at its path: pyproject.toml leaves out each of them."""
    import tomllib

    addopts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    ignored = {word.removeprefix("--ignore=spades/bots/").removesuffix(".py") for word in addopts.split()
               if word.startswith("--ignore=spades/bots/")}
    assert ignored == set(native.COMPILED)
