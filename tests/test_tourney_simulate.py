"""``python -m spades tourney simulate`` prints exactly one JSON line of the agreed shape,
for a 13-team knockout and a 5-team Swiss over 3 rounds (real tables, bots everywhere)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def simulate(*args: str) -> tuple[dict, int]:
    out = subprocess.run([sys.executable, "-m", "spades", "tourney", "simulate", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 1, out.stdout  # ONE line on standard output
    most = re.search(r"tables at once at most: (\d+)", out.stderr)
    assert most, out.stderr
    return json.loads(lines[0]), int(most.group(1))


def check_shape(data: dict, fmt: str, teams: int) -> None:
    assert list(data) == ["format", "teams", "rounds", "ranks", "seconds"]
    assert data["format"] == fmt
    assert isinstance(data["seconds"], (int, float)) and data["seconds"] > 0
    assert len(data["teams"]) == teams
    ids = set()
    for team in data["teams"]:
        assert list(team) == ["id", "players"]
        assert len(team["players"]) == 2 and all(isinstance(p, str) and p for p in team["players"])
        ids.add(team["id"])
    assert len(ids) == teams
    for number, r in enumerate(data["rounds"], 1):
        assert list(r) == ["number", "target", "tables", "byes"]
        assert r["number"] == number and r["target"] in (300, 500)
        assert set(r["byes"]) <= ids
        for table in r["tables"]:
            assert list(table) == ["teams", "winner", "score", "hands"]
            a, b = table["teams"]
            assert {a, b} <= ids and table["winner"] in (a, b)
            assert table["hands"] >= 1 and len(table["score"]) == 2
            mine, theirs = table["score"] if table["winner"] == a else table["score"][::-1]
            assert mine > theirs
    assert sorted(r["team"] for r in data["ranks"]) == sorted(ids)
    for r in data["ranks"]:
        assert list(r) == ["team", "rank"]


def test_a_13_team_knockout_prints_its_bracket_and_ranks():
    data, most = simulate("--teams", "13", "--format", "knockout", "--seed", "5")
    check_shape(data, "knockout", 13)
    rounds = data["rounds"]
    assert [r["target"] for r in rounds] == [300, 300, 500, 500]
    assert len(rounds[0]["byes"]) == 3 and len(rounds[0]["tables"]) == 5
    assert [len(r["tables"]) for r in rounds] == [5, 4, 2, 1]
    assert sorted(r["rank"] for r in data["ranks"]) == [1, 2, 3, 3, 5, 5, 5, 5, 9, 9, 9, 9, 9]
    final = rounds[-1]["tables"][0]
    assert data["ranks"][0] == {"team": final["winner"], "rank": 1}
    assert most == 5  # the five first-round tables at once


def test_a_5_team_swiss_over_3_rounds_with_solos_prints_the_same_shape_and_repeats_with_its_seed():
    data, most = simulate("--teams", "5", "--format", "swiss", "--rounds", "3", "--solos", "3", "--seed", "8")
    check_shape(data, "swiss", 5)
    assert [r["target"] for r in data["rounds"]] == [300, 300, 500]
    assert all(len(r["tables"]) == 2 and len(r["byes"]) == 1 for r in data["rounds"])
    pairs = [frozenset(t["teams"]) for r in data["rounds"] for t in r["tables"]]
    assert len(set(pairs)) == 6
    assert sum(p == "Bot" for t in data["teams"] for p in t["players"]) == 1  # 3 solos: one bot partner
    assert most == 2
    again, _ = simulate("--teams", "5", "--format", "swiss", "--rounds", "3", "--solos", "3", "--seed", "8")
    del data["seconds"], again["seconds"]
    assert again == data


def test_bad_arguments_are_refused_in_words():
    out = subprocess.run([sys.executable, "-m", "spades", "tourney", "simulate", "--teams", "1", "--format",
                          "knockout"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--teams is 2 to 128" in out.stderr and out.stdout == ""
