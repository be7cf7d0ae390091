"""Match records: the golden examples, the replay command, export and rebuild."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from spades import Match, Rules, from_record, replay_report, to_record
from spades.rules import BIDS

RECORDS = Path(__file__).parent / "records"
GOLDEN = sorted(p for p in RECORDS.glob("*.json") if not p.name.endswith(".expected.json"))


def replay_cli(arg: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "spades", "replay", arg], input=stdin,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_records_give_their_expected_output(path):
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    run = replay_cli(str(path))
    got = json.loads(run.stdout)
    assert {k: got.get(k) for k in expected} == expected
    assert run.returncode == (0 if expected["ok"] else 1)


def test_replay_reads_standard_input_and_names_the_reason():
    run = replay_cli("-", (RECORDS / "illegal-card.json").read_text())
    assert run.returncode == 1
    assert json.loads(run.stdout)["reason"] == "You must follow suit: clubs were led and you hold a club."


@pytest.mark.parametrize("text", ["not json", "{}", '{"hands": 3}', "[]", '{"hands": [], "format": "x"}'])
def test_not_a_record_exits_2_with_one_line(text):
    run = replay_cli("-", text)
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1


def test_missing_file_exits_2():
    assert replay_cli("/nonexistent/record.json").returncode == 2


def load(name: str) -> dict:
    return json.loads((RECORDS / f"{name}.json").read_text())


def test_bad_deal_duplicate_card():
    record = load("failed-nil")
    record["hands"][0]["deal"][1][0] = "2C"  # seat 0 holds 2C already
    out = replay_report(record)
    assert out["ok"] is False and (out["step"], out["card"], out["index"]) == ("deal", "2C", 1)


def test_bad_deal_unknown_card_and_short_hand():
    record = load("failed-nil")
    record["hands"][0]["deal"][2][0] = "1X"
    assert replay_report(record)["step"] == "deal"
    record = load("failed-nil")
    record["hands"][0]["deal"][3].pop()
    out = replay_report(record)
    assert (out["step"], out["index"]) == ("deal", 3)


def test_bad_bid_is_named_by_seat():
    record = load("failed-nil")
    record["hands"][0]["bids"][1] = 14
    out = replay_report(record)
    assert (out["step"], out["index"], out["seat"], out["reason"]) == ("bid", 1, 1, "Bids are 1 to 13, or nil.")
    record["hands"][0]["bids"][1] = "nil"
    record["hands"][0]["blind"] = [False, True, False, False]
    assert replay_report(record)["reason"] == "Blind nil is not allowed at this table."


def test_unfinished_hand_is_listed_with_nulls():
    record = load("failed-nil")
    record["hands"][0]["plays"] = record["hands"][0]["plays"][:10]
    out = replay_report(record)
    assert out["ok"] and out["hands"][0]["score"] is None and sum(out["hands"][0]["tricks"]) == 2
    assert out["finished"] is False and out["winner"] is None


def test_finished_match_record_round_trip():
    m = from_record(load("match-to-200"))
    assert m.finished and m.winner == 1 and m.scores == [-236, 274]
    assert to_record(m)["hands"] == load("match-to-200")["hands"]


def test_seat_record_hides_unplayed_cards_of_other_seats():
    m = Match(Rules(), seed=5)
    for _ in range(4):
        m.apply(m.to_act, BIDS[3])
    for _ in range(6):
        m.apply(m.to_act, m.legal_actions(m.to_act)[0])
    rec = to_record(m, seat=2)
    hand = rec["hands"][-1]
    assert len(hand["deal"][2]) == 13
    played = set(hand["plays"])
    for s in (0, 1, 3):
        assert set(hand["deal"][s]) <= played
    full = to_record(m)
    assert all(len(d) == 13 for d in full["hands"][-1]["deal"])
