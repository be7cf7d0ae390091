"""The analysis of a finished match: a blunder marked with its cost, the JSON route's shape
over HTTP, the refusals (a running match shows no card), and the rules page."""

from __future__ import annotations

import concurrent.futures as cf
import re
import threading

import pytest
from conftest import start_practice
from helpers.analysis import ANN, as_player, nil_blunder_record, play_out

from spades.bots.analysis import INACCURACY, MISTAKE, PARTS, SETTLE_MIN, analyse_hand, settled, verdict
from spades.bots.search import CARD_TIE, Tally
from spades.cards import Card
from spades.records import replay_report
from spades.replays import bid_words
from spades.rules import Rules, parse_action

CARD = re.compile(r'data-card="[2-9TJQKA][SHDC]"')
CODE = re.compile(r"\b[2-9TJQKA][SHDC]\b")  # a card as the record writes it: TD, 7C


@pytest.fixture
def app_config():
    pool = cf.ThreadPoolExecutor(1)
    yield {"ANALYSIS_POOL": pool, "ANALYSIS_BUDGET": 0.004}
    pool.shutdown(wait=False, cancel_futures=True)


def test_a_nil_bidder_overtaking_with_the_ace_is_a_mistake():
    record = nil_blunder_record()
    assert replay_report(record)["ok"]
    hand = analyse_hand(record, 0, budget_s=0.01)
    steps = hand["steps"]
    assert [s["kind"] for s in steps] == ["bid"] * 4 + ["play"] * 52
    assert [s["index"] for s in steps if s["kind"] == "bid"] == [0, 1, 2, 3]  # seat 0 bids first (dealer 3)
    assert [s["index"] for s in steps if s["kind"] == "play"] == list(range(52))
    ace = steps[4 + 1]
    assert (ace["seat"], ace["action"]) == (1, "AH")
    assert ace["cost"] >= MISTAKE and verdict(ace["cost"]) == "mistake"
    assert ace["best"] != "AH"
    assert all(s["cost"] >= 0 for s in steps)
    # double-dummy figures from 7 tricks left, for every legal card
    dd = [s for s in steps if s["double_dummy"] is not None]
    assert [s["index"] for s in dd] == list(range(24, 52))
    assert all(s["action"] in s["double_dummy"] for s in dd)
    assert INACCURACY < MISTAKE


def test_the_analysis_of_a_finished_match_through_the_json_route(app, client, service):
    code = service.create_practice(ANN, "Ann", Rules(end="hands", hands=1, tempo="off", play_speed="fast"), "easy")
    # while it runs: refused, and nothing of the match shown
    page = as_player(client, ANN).get(f"/g/{code}/analysis")
    assert page.status_code == 403 and not CARD.search(page.get_data(as_text=True))
    assert client.get(f"/g/{code}/analysis.json").status_code == 403
    play_out(service, code)
    # somebody who did not play may not set it going
    other = app.test_client()
    as_player(other, "someone-else")
    refused = other.get(f"/g/{code}/analysis.json")
    assert refused.status_code == 403 and "only the people who played" in refused.get_json()["error"]
    first = client.get(f"/g/{code}/analysis.json").get_json()
    assert first["status"] in ("pending", "running", "done")
    again = client.get(f"/g/{code}/analysis.json").get_json()  # joins the same one
    assert again["status"] in ("pending", "running", "done")
    assert app.extensions["spades.analyses"].wait(code, 1, 60)
    done = client.get(f"/g/{code}/analysis.json").get_json()
    assert done["status"] == "done" and done["progress"] == 1.0
    assert len(done["hands"]) == 1 and done["hands"][0]["hand"] == 0
    steps = done["hands"][0]["steps"]
    assert len(steps) == 56
    assert set(steps[0]) == {"index", "seat", "kind", "action", "best", "cost", "double_dummy"}
    record = client.get(f"/g/{code}/record.json").get_json()
    assert [s["action"] for s in steps if s["kind"] == "play"] == record["hands"][0]["plays"]
    # now anyone who may see the replay may see it
    assert other.get(f"/g/{code}/analysis.json").get_json()["status"] == "done"
    page = other.get(f"/g/{code}/analysis?hand=1&step=10").get_data(as_text=True)
    assert "step 11 of 56" in page and "Points lost, by player" in page
    # the cards are named as on the table (10♦, coloured by suit), never as the record writes them
    listed = re.search(r'<ol class="step-list".*?</ol>', page, re.S).group(0)
    words = re.sub(r"<[^>]+>", " ", listed)
    assert not CODE.search(words), CODE.search(words)
    tenth = steps[10]["action"]
    shown = tenth.replace("T", "10")[:-1] + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[tenth[-1]]
    assert f'<span class="card-name" data-card="{tenth}">{shown}</span>' in listed
    # the words a casual player may not know are said in plain words where they are used
    assert "<dfn>Expected</dfn>" in page and "is a choice that loses 5 points or more on average" in page
    # a better bid is said as a bid: "Better: bid 3", "(better bid nil)"
    missed = [(i, s) for i, s in enumerate(steps) if s["kind"] == "bid" and verdict(s["cost"]) != "best"]
    assert missed  # Ann bids 13 (play_out's last legal bid)
    for i, s in missed:
        best = bid_words(s["best"])
        at = other.get(f"/g/{code}/analysis?hand=1&step={i}").get_data(as_text=True)
        assert f'Better: <strong class="step-best">bid {best}</strong>' in at
        assert f"(better bid {best})" in at
    late = other.get(f"/g/{code}/analysis?hand=1&step=40").get_data(as_text=True)
    assert "<dfn>Double dummy</dfn> means as if all four hands were face up" in late
    assert other.get(f"/g/{code}/analysis?hand=2").status_code == 400
    assert other.get(f"/g/{code}/analysis?step=x").status_code == 400


def test_refusals_never_fail(client):
    assert client.get("/g/ZZZZZZ/analysis.json").status_code == 404
    assert client.get("/g/ZZZZZZ/analysis").status_code == 404


def test_the_rules_page_and_a_tables_rules(client, service):
    page = client.get("/rules")
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and CARD.search(text) and "Worked examples" in text
    assert "+72" in text  # bid 7, take 9
    assert 'href="/rules"' in client.get("/").get_data(as_text=True)
    code = service.create_practice(ANN, "Ann", Rules(end="hands", hands=5, blind_nil=True), "hard")
    table = as_player(client, ANN).get(f"/g/{code}").get_data(as_text=True)
    link = re.search(r'href="(/rules\?[^"]+)"', table).group(1).replace("&amp;", "&")
    mine = client.get(link).get_data(as_text=True)
    assert "The rules at this table" in mine and "Blind nil is allowed" in mine and "after 5 hands" in mine
    assert client.get("/rules?end=forever").status_code == 400
    practice = start_practice(client)  # through the form: a practice table has no clock
    table = client.get(f"/g/{practice}").get_data(as_text=True)
    link = re.search(r'href="(/rules\?[^"]+)"', table).group(1).replace("&amp;", "&")
    mine = client.get(link).get_data(as_text=True)
    assert "tempo=&" in link and "The rules at this table" in mine and "tempo ·" not in mine


def test_a_hands_parts_are_the_whole_hand():
    record = nil_blunder_record()
    whole = analyse_hand(record, 0, budget_s=0.002)["steps"]
    parts = [s for part in PARTS for s in analyse_hand(record, 0, budget_s=0.002, part=part)["steps"]]
    assert len(PARTS) > 2 and parts == whole


def test_asking_again_joins_the_analysis_under_way(tmp_path):
    """Two asks while one runs make one analysis (its hands submitted once); more matches
    than may wait are refused Busy; once done the stored analysis is given."""
    from pools import ManualPool

    from spades.storage import Store
    from spades.tables import Busy
    from spades.tables.analyses import AnalysisQueue

    store = Store(str(tmp_path / "q.db"))
    pool = ManualPool()
    queue = AnalysisQueue(store, pool, budget_s=0.002, max_waiting=2)
    record = nil_blunder_record()
    try:
        assert queue.status("ABC", 1) is None
        assert queue.ask("ABC", 1, record).status in ("pending", "running")
        assert queue.ask("ABC", 1, record).status in ("pending", "running")
        queue.ask("DEF", 1, record)
        with pytest.raises(Busy):
            queue.ask("GHI", 1, record)
        for _ in range(200):  # the worker thread hands the first match's parts to the pool
            if len(pool.pending) == len(PARTS):
                break
            threading.Event().wait(0.01)
        assert len(pool.pending) == len(PARTS) and queue.status("ABC", 1).status == "running"
        assert pool.run_all() == len(PARTS)
        assert queue.wait("ABC", 1, 30)
        done = queue.ask("ABC", 1, record)
        assert done.status == "done" and len(done.hands[0]["steps"]) == 56
        assert store.analysis("ABC", 1) == done.hands
    finally:
        queue.close()
        store.close()


def test_a_step_stops_drawing_deals_once_its_verdict_is_settled():
    """The budget is the most a step takes: the deals stop once the verdict cannot change
    (``settled``), never before ``SETTLE_MIN`` of them."""
    def tally(leads: list[float]) -> Tally:
        t = Tally([1, 2])
        for lead in leads:
            t.add(1.0, {1: 0.0, 2: lead})
        return t

    assert not settled(tally([0.0] * (SETTLE_MIN - 1)), 1, 1, CARD_TIE)  # too few deals to say
    assert settled(tally([0.0] * SETTLE_MIN), 1, 1, CARD_TIE)  # the cards are worth the same: best
    assert settled(tally([40.0] * SETTLE_MIN), 1, 1, CARD_TIE)  # a mistake on every deal: 40 points
    assert verdict(40.0) == "mistake"
    # worth 5 points more on average, give or take 50 a deal: an inaccuracy or not, nobody can say yet
    assert not settled(tally([55.0, -45.0] * 200), 1, 1, CARD_TIE)
    # the card made is the best by far on every deal: settled
    assert settled(tally([-30.0] * SETTLE_MIN), 1, 1, CARD_TIE)


def test_a_clear_card_takes_a_few_hundred_deals_not_the_budget():
    import random

    from spades.bots import knowledge
    from spades.bots.analysis import _start_of, card_worths
    from spades.bots.search import PLAYS_PER_SECOND
    from spades.views import seat_view

    record = nil_blunder_record()
    hand = record["hands"][0]
    match = _start_of(record, 0)
    while match.phase == "bidding":
        seat = match.to_act
        match.apply(seat, parse_action("look" if match.can_look(seat) else str(hand["bids"][seat])))
    for text in hand["plays"][:10]:
        match.apply(match.to_act, Card.parse(text))
    known = knowledge.read(seat_view(match, match.to_act))  # the 11th card: two choices, clearly the same
    budget = int(0.3 * PLAYS_PER_SECOND)
    _, every, _ = card_worths(known, random.Random(1), budget)
    _, enough, _ = card_worths(known, random.Random(1), budget, Card.parse(hand["plays"][10]))
    assert len(every.values) == 2
    assert SETTLE_MIN <= len(enough.weights) < len(every.weights) / 4


def test_the_progress_says_which_hand_and_why_it_waits(app, tmp_path):
    """Two matches asked at once: the second says it is queued behind the first; the first
    says which hand is being analysed as its parts are done, and the page is told as soon
    as it starts (not only when its first part is done)."""
    from flask import render_template
    from pools import ManualPool

    from spades.storage import Store
    from spades.tables.analyses import AnalysisQueue

    def fake(record, hand, budget, seed, part):
        return {"hand": hand, "steps": []}

    told: list[tuple[str, int]] = []
    store = Store(str(tmp_path / "p.db"))
    pool = ManualPool()
    queue = AnalysisQueue(store, pool, analyse_hand=fake, on_change=lambda c, n: told.append((c, n)))
    record = {"hands": [{}, {}, {}]}

    def words(code: str) -> str:
        with app.test_request_context():
            html = render_template("analysis/_progress.html", progress=queue.status(code, 1), go="/", oob=False)
        return " ".join(re.sub(r"<[^>]+>", " ", html).split())

    try:
        queue.ask("ABC", 1, record)
        queue.ask("DEF", 1, record)
        for _ in range(200):  # the worker thread hands the first match's parts to the pool
            if len(pool.pending) == 3 * len(PARTS):
                break
            threading.Event().wait(0.01)
        assert told == [("ABC", 1)]  # told it started, before any part was done
        assert "Analysing hand 1 of 3:" in words("ABC")
        assert queue.status("DEF", 1).ahead == 1
        assert "Queued: the server analyses one match at a time, and 1 other analysis is ahead" in words("DEF")
        items, pool.pending = pool.pending, []
        for future, fn, args in items[:len(PARTS) + 1]:  # the first hand, and a part of the second
            future.set_result(fn(*args))
        for _ in range(200):  # the worker thread takes the answers in
            if queue.status("ABC", 1).progress > len(PARTS) / len(items):
                break
            threading.Event().wait(0.01)
        progress = queue.status("ABC", 1)
        assert (progress.hands_done, progress.hands_total, progress.hand_now) == (1, 3, 2)
        assert "Analysing hand 2 of 3 (1 done)" in words("ABC")
        for future, fn, args in items[len(PARTS) + 1:]:
            future.set_result(fn(*args))
        assert queue.wait("ABC", 1, 30)
        assert queue.status("ABC", 1).status == "done"
    finally:
        queue.close()
        store.close()
