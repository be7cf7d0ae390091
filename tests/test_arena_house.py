"""The arena under the house rules: ``--seats`` (one bot per seat, rotated around the table
on the same deals), ``--records DIR`` (one replayable record a match), every ``--rules``
shape, and the refusals in words."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from spades.arena import split_seats

ROOT = Path(__file__).resolve().parent.parent
THREE = {"players": 3, "partners": False, "end": "hands", "hands": 2}
BOT = f"cmd:{sys.executable} -m spades.bots.example_bot"
SEATS_KEYS = {"matches", "seats", "specs", "rotations", "wins", "draws", "tied", "win_rate", "ci95", "even_rate",
              "points_per_hand", "decision_ms", "replaced", "figures"}


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "spades", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "SPADES_ARENA_JOBS": ""})


def arena(*args: str) -> tuple[dict, list[str]]:
    """Run ``python -m spades arena``: its summary (the last line) and the lines before it."""
    out = run("arena", *args)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    return json.loads(lines[-1]), lines[:-1]


def replayed(path: Path) -> dict:
    out = run("replay", str(path))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_cutthroat_for_three_rotates_the_seats_and_counts_every_match_once(tmp_path: Path) -> None:
    s, lines = arena("--seats", f"random,{BOT},random", "--rules", json.dumps(THREE), "--matches", "5",
                     "--seed", "7", "--records", str(tmp_path))
    assert set(s) == SEATS_KEYS
    assert s["matches"] == 6 and lines[0].startswith("arena: 6 matches, 2 sets of deals x 3 rotations")
    assert s["seats"] == ["random", BOT, "random"] and s["specs"] == ["random", BOT] and s["rotations"] == 3
    assert sum(s["wins"]) + s["draws"] == 6  # a cutthroat match has one winning seat, hence one SPEC
    assert s["ci95"][0] <= s["win_rate"] <= s["ci95"][1]
    assert s["win_rate"] == round(s["wins"][0] / (6 - s["tied"][0]), 3)
    assert s["even_rate"] == round(2 / 3, 3)  # random holds two of the three seats
    assert set(s["decision_ms"]) == {"random", BOT} and set(s["figures"]) == {"random", BOT}
    assert s["figures"]["random"]["hands"] == 2 * s["figures"][BOT]["hands"]  # two seats to one, every match
    assert s["replaced"] == [0, 0]
    # each set of deals is played once per rotation, on the same cards
    files = sorted(tmp_path.iterdir())
    assert [f.name for f in files[:3]] == ["match-0001-deals-0001-rotation-0.json",
                                          "match-0002-deals-0001-rotation-1.json",
                                          "match-0003-deals-0001-rotation-2.json"]
    records = [json.loads(f.read_text()) for f in files]
    for group in (records[:3], records[3:]):
        assert sorted(tuple(r["arena"]["seats"]).index(BOT) for r in group) == [0, 1, 2]  # the bot in every seat
        assert len({json.dumps(r["hands"][0]["deal"]) for r in group}) == 1
    assert records[0]["hands"][0]["deal"] != records[3]["hands"][0]["deal"]


def test_records_replay_and_end_as_the_arena_counted(tmp_path: Path) -> None:
    s, _ = arena("--seats", f"{BOT},random,random", "--rules", json.dumps(THREE), "--matches", "6",
                 "--seed", "3", "--records", str(tmp_path))
    files = sorted(tmp_path.glob("match-*.json"))
    assert len(files) == s["matches"] == 6
    won: Counter = Counter()
    bids = []
    for f in files:
        record = json.loads(f.read_text())
        assert record["format"] == "spades-match/2" and record["rules"]["players"] == 3
        report = replayed(f)
        assert report["ok"] and report["finished"]
        if report["winner"] is not None:  # cutthroat: side s is seat s
            won[record["arena"]["seats"][report["winner"]]] += 1
        bids += [b for hand in record["hands"] for b in hand["bids"] if isinstance(b, int)]
    assert [won[spec] for spec in s["specs"]] == s["wins"]
    assert max(bids) > 13  # seventeen tricks a hand: bids up to 17 are played, not refused


def test_team_records_are_spades_match_1_at_a_standard_table(tmp_path: Path) -> None:
    s, lines = arena("--team0", "random", "--team1", "random", "--rules", '{"end": "hands", "hands": 1}',
                     "--matches", "2", "--seed", "4", "--records", str(tmp_path))
    files = sorted(tmp_path.iterdir())
    assert [f.name for f in files] == ["match-0001-deals-0001-teams.json", "match-0002-deals-0001-swapped.json"]
    for f, line in zip(files, lines):
        record = json.loads(f.read_text())
        assert record["format"] == "spades-match/1"
        report = replayed(f)
        swapped = record["arena"]["swapped"]
        assert f"team{report['winner'] ^ swapped}" in line  # the side that won is the team the arena counted
    assert sum(s["wins"]) + s["draws"] == 2


def test_jokers_partners_with_teams_play_duplicate_pairs(tmp_path: Path) -> None:
    rules = {"jokers": "jjdd", "min_bid": 4, "ten_for_200": True, "end": "hands", "hands": 2}
    s, _ = arena("--team0", "random", "--team1", BOT, "--rules", json.dumps(rules), "--matches", "2",
                 "--seed", "2", "--records", str(tmp_path), "--jobs", "2")
    assert s["matches"] == 2 and sum(s["wins"]) + s["draws"] == 2
    assert set(s["decision_ms"]) == {"team0", "team1"} and set(s["figures"]) == {"team0", "team1"}
    assert s["replaced"] == [0, 0]  # the example bot's every answer legal at a jokers table (it plays jokers too)
    a, b = (json.loads(f.read_text()) for f in sorted(tmp_path.iterdir()))
    assert a["format"] == b["format"] == "spades-match/2" and a["rules"]["jokers"] == "jjdd"
    assert a["hands"][0]["deal"] == b["hands"][0]["deal"]  # the same deals
    assert a["arena"]["seats"] == ["random", BOT, "random", BOT]
    assert b["arena"]["seats"] == [BOT, "random", BOT, "random"]  # the teams swapped between the sides
    assert any(c in ("BJ", "LJ") for hand in a["hands"][0]["deal"] for c in hand)
    assert replayed(tmp_path / "match-0002-deals-0001-swapped.json")["ok"]


def test_seats_at_a_partners_table_and_with_jobs_give_the_same_matches() -> None:
    args = ("--seats", "random,random,random,random", "--rules", '{"end": "hands", "hands": 1}', "--matches", "4",
            "--seed", "9")
    one, _ = arena(*args)
    two, _ = arena(*args, "--jobs", "2")
    assert one["matches"] == two["matches"] == 4 and one["specs"] == ["random"]
    assert one["wins"] == two["wins"] == [4]  # one SPEC in every seat: it wins every match
    assert one["points_per_hand"] == two["points_per_hand"] and one["figures"] == two["figures"]


def test_bad_shapes_and_counts_are_refused_in_words() -> None:
    cases = [
        (("--seats", "random,random", "--rules", json.dumps(THREE)), "3 in all"),
        (("--seats", "random,random,random", "--rules", "{}"), "4 in all"),
        (("--team0", "random", "--team1", "easy", "--rules", json.dumps(THREE)), "--seats"),
        (("--team0", "random", "--team1", "easy", "--rules", '{"players": 3}'),
         "Three players play cutthroat: partners must be false with 3 players."),
        (("--seats", "random,random,random", "--rules", '{"players": 3, "partners": false, "jokers": "jj"}'),
         "Jokers are played with four players only."),
        (("--team0", "random", "--team1", "easy", "--rules", '{"bidding": "suicide", "partners": false}'),
         "Suicide bidding is played with partners only."),
        (("--team0", "random", "--team1", "easy", "--rules", "{players: 3}"), "--rules is not JSON"),
        (("--seats", "random,random,random,random", "--team0", "easy", "--team1", "easy"), "not both"),
    ]
    for args, words in cases:
        out = run("arena", *args)
        assert out.returncode == 2, args
        assert words in out.stderr and "Traceback" not in out.stderr, (args, out.stderr)


def test_seats_split_at_commas_but_not_inside_a_command() -> None:
    assert split_seats("normal, easy,easy") == ["normal", "easy", "easy"]
    assert split_seats("cmd:bot --names a,b,random,cmd:other") == ["cmd:bot --names a,b", "random", "cmd:other"]
