"""The benchmark scripts still run against today's code (their figures are not checked).

The benchmarks are the top-level ``bench`` package (run from the repository, as the test
command runs pytest); the idle-tables test borrows ``bench.idle``'s copies of a waiting
table, no other test imports it."""

import json
import threading

from bench import idle, render
from bench.engine import EngineRunner


def test_the_web_benchmark_plays_through_hand_ends(capsys):
    before = set(threading.enumerate())
    render.main(["--moves", "60", "--pages", "3"])  # 60 cards: past the first hand's end
    out = capsys.readouterr().out
    assert "table page render: median" in out and "over 60 cards" in out
    # its site is closed: no thread of it goes on ticking on the removed database
    left = [t for t in set(threading.enumerate()) - before if t.name == "turn-notices"]
    for t in left:
        t.join(2)
    assert not [t for t in left if t.is_alive()]


def test_the_engine_runner_plays_whole_hands():
    runner = EngineRunner(seed=1)
    runner.hands(30)
    assert runner.match.hand_number > 1 or runner.match.results


def test_the_idle_tables_benchmark_fires_every_due_timer(capsys):
    idle.main(["--tables", "300", "--due", "30"])
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["resumed"] == 0 and figures["woken"] == 30 and figures["left_due"] == 0


def test_the_deviations_benchmark_tries_the_other_bots_cards_and_bids_one_off(capsys):
    from bench import deviations
    figures = deviations.main(["--team0", "normal", "--team1", "punisher", "--matches", "2", "--seed", "3"])
    assert figures["cards"] and figures["bids"]
    tried = ("-1", "+1", "nil for its number", "its best number for its nil")
    assert set(figures["bids"]) <= {f"{p} of its team, {t}" for p in ("first", "second") for t in tried}
    # Normal's own card in its own place is no deviation
    same = deviations.main(["--team0", "normal", "--team1", "punisher", "--other", "normal", "--matches", "2"])
    assert same["cards"] == {} and same["bids"]
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == same


def test_the_deviations_benchmark_judges_the_last_hands_by_the_match(capsys):
    from bench import deviations
    args = ["--team0", "normal", "--team1", "punisher", "--matches", "2", "--seed", "3"]
    whole = deviations.main(args)
    late = deviations.main([*args, "--to-the-end", "300"])
    assert late["bids"] and set(late["cards"]) <= set(whole["cards"])
    for group, figures in late["bids"].items():
        assert ", us " in group and ", them " in group  # where the score stood
        assert -100 <= figures["gain"] <= 100  # matches won in 100
    # only the hands that start with a team at 300 or more are tried
    decisions = [sum(g["n"] for kind in ("cards", "bids") for g in f[kind].values()) for f in (whole, late)]
    assert 0 < decisions[1] < decisions[0]
    assert "matches won in 100" in capsys.readouterr().out


def test_the_search_quality_benchmark_pairs_the_changed_search_with_the_shipped_one(capsys):
    from bench import search_quality
    from spades.bots import search
    args = ["--positions", "3", "--seed", "2", "--budgets", "0.01", "--reference", "0.02"]
    same = search_quality.main([*args, "--set", f"CARD_TIE={search.CARD_TIE}"])  # the shipped value: nothing changes
    assert same["decisions"] >= 1
    assert same["changed"]["0.01"]["gain"] == 0.0 and same["changed"]["0.01"]["loss"] == same["budgets"]["0.01"]["loss"]
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == same


def test_the_reading_benchmark_pairs_a_changed_reading_with_the_shipped_one(capsys):
    from bench import reading
    from spades.bots import deals
    args = ["--matches", "1", "--seed", "4", "--deals", "30", "--every", "2"]
    same = reading.main([*args, "--set", f"READ_MISS={deals.READ_MISS}"])  # the shipped value: nothing changes
    assert same["positions"] >= 10
    for group, f in same["changed"].items():
        assert f["gain"] == 0.0 and f["placed"] == same["shipped"][group]["placed"]
        assert 0.0 < f["placed"] <= 1.0
    # the fewer cards are left unseen, the better the deals place them
    assert same["shipped"]["tricks 8-13"]["placed"] > same["shipped"]["first trick"]["placed"]
    # reading the play places the cards better than the bids alone (the positions differ
    # from the run above: Hard's seats play them out on the clock)
    bids = reading.main([*args, "--bids-only"])
    assert bids["changed"]["all"]["gain"] < 0.0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == bids
