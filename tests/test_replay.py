"""The replay of a finished match and its score sheet: the pure steps and sheet
(``spades.replays``) against the ``replay`` command's report, and the pages over HTTP
(stepping with the links alone, deep links, a running match refused, bad query values,
earlier matches after a rematch, the profile's links)."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import start_practice
from helpers.replay import ANN, finished_practice, play_out

from spades import Rules, replay_report
from spades.records import from_record
from spades.replays import END, StepError, bid_words, load, outcome, score_sheet
from spades.tables import EMOJIS, Player, Rematch
from spades.views import result_json

RECORDS = Path(__file__).parent / "records"
CARD = re.compile(r"\b(?:10|[2-9TJQKA])[SHDC]\b|[♠♥♦♣]")


def as_player(client, pid: str = ANN):
    with client.session_transaction() as s:
        s["pid"] = pid
    return client


# -- reading the pages ---------------------------------------------------------------------
def text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def main_of(page: str) -> str:
    return re.search(r"<main.*?</main>", page, re.S).group(0)


def step_of(page: str) -> tuple[int, str]:
    m = re.search(r'id="replay" class="replay" data-hand="(\d+)" data-trick="(\w+)"', page)
    return int(m.group(1)), m.group(2)


def link(page: str, rel: str) -> str | None:
    m = re.search(rf'href="([^"]+)" rel="{rel}"', page)
    return html.unescape(m.group(1)) if m else None


def seats_of(page: str) -> dict[int, dict]:
    """Each seat box: name, bid, tricks won, cards held."""
    out = {}
    for seat, body in re.findall(r'<div class="seat seat-\w+ team-\d" data-seat="(\d)">(.*?)</div>\s*</div>', page,
                                 re.S):
        out[int(seat)] = {
            "name": text(re.search(r"<strong>(.*?)</strong>", body).group(1)),
            "bid": text(m.group(1)) if (m := re.search(r'class="bid">(.*?)</span>', body)) else None,
            "taken": int(re.search(r'class="taken">(\d+)<', body).group(1)),
            "cards": re.findall(r'data-card="(\w+)"', body),
        }
    return out


def trick_of(page: str) -> dict[int, str]:
    """The card in each seat's slot of the trick in the middle."""
    return {int(s): c for s, c in re.findall(r'class="rt-slot rt-\w+(?: won)?" data-seat="(\d)"><span class="face" '
                                             r'data-card="(\w+)"', page)}


def result_of(page: str) -> dict[str, list[int]]:
    """The hand's result table at its last step: points, total and bags per team."""
    return {col: [int(text(v)) for v in re.findall(rf'data-team="\d" class="r-{col}">(.*?)</td>', page)]
            for col in ("points", "total", "bags")}


def sheet_of(page: str) -> list[dict]:
    """The score sheet's rows: per hand, per team, the numbers in its cells."""
    hands = []
    for number, body in re.findall(r'<tbody class="sheet-hand" data-hand="(\d+)">(.*?)</tbody>', page, re.S):
        teams = []
        for row in re.findall(r'<tr class="team-row team-\d" data-team="\d">(.*?)</tr>', body, re.S):
            cells = dict((col, text(v)) for col, v in re.findall(r'<td data-col="(\w+)"[^>]*>(.*?)</td>', row, re.S))
            took = {int(s): int(n) for s, n in re.findall(r'data-seat="(\d)">[^<]*<span class="took">\((\d+)\)', row)}
            teams.append({"cells": cells, "took": took,
                          "bids": text(re.search(r'class="bids"[^>]*>(.*?)</td>', row, re.S).group(1))})
        hands.append({"hand": int(number), "teams": teams})
    return hands


# -- the pure replay and sheet -------------------------------------------------------------
def golden() -> dict:
    return json.loads((RECORDS / "match-to-200.json").read_text())


def test_score_sheet_of_a_golden_record_equals_the_replay_command():
    record = golden()
    report = replay_report(record)
    match = from_record(record)
    rows = score_sheet([result_json(r) for r in match.results], ("Ann", "Rex", "Bea", "Kit"))
    assert len(rows) == len(report["hands"]) == 4
    for row, hand in zip(rows, report["hands"]):
        assert [s.tricks for s in row.seats] == hand["tricks"]
        assert [t.points for t in row.teams] == hand["score"]
        assert [t.bags_after for t in row.teams] == hand["bags"]
        assert [t.total for t in row.teams] == hand["total"]
        assert [t.name for t in row.teams] == ["Ann & Bea", "Rex & Kit"]
        assert row.dealer == ("Ann", "Rex", "Bea", "Kit")[row.dealer_seat]
        for t in row.teams:
            assert t.points == t.contract_points + t.bags + t.nil_points + t.penalty
    assert outcome(("Ann", "Rex", "Bea", "Kit"), match.finished, match.winner) == "Rex & Kit won the match."


def test_every_step_of_a_golden_record_holds_each_card_once_and_ends_at_the_report():
    record = golden()
    report = replay_report(record)
    game = load(record, ("Ann", "Rex", "Bea", "Kit"))
    assert game.finished and game.winner == 1
    assert len(game.steps) == 4 * 15 and game.steps[0] == (1, 0) and game.steps[-1] == (4, END)
    for hand, trick in game.steps:
        f = game.frame(hand, trick)
        done = 13 if trick == END else trick
        held = [c for s in f.seats for c in s.cards]
        assert len(held) == 52 - 4 * done and all(len(s.cards) == 13 - done for s in f.seats)
        played = record["hands"][hand - 1]["plays"][:4 * done]
        assert sorted(held + played) == sorted(c for cards in record["hands"][hand - 1]["deal"] for c in cards)
        assert sum(s.taken for s in f.seats) == done == sum(t.taken for t in f.teams)
        if done:
            assert [c for _, c in f.last_trick.plays] == played[-4:] and f.last_trick.number == done
        else:
            assert f.last_trick is None
        if trick == END:
            expected = report["hands"][hand - 1]
            assert [s.taken for s in f.seats] == expected["tricks"]
            assert [t.score for t in f.teams] == expected["total"] and [t.bags for t in f.teams] == expected["bags"]
            assert [t.points for t in f.row.teams] == expected["score"]
        elif hand > 1:  # during a hand: the score and bags as the hand before left them
            before = report["hands"][hand - 2]
            assert [t.score for t in f.teams] == before["total"] and [t.bags for t in f.teams] == before["bags"]
    assert game.neighbours((1, 0)) == (None, (1, 1))
    assert game.neighbours((1, 13)) == ((1, 12), (1, END))
    assert game.neighbours((1, END)) == ((1, 13), (2, 0))
    assert game.neighbours((4, END)) == ((4, 13), None)


@pytest.mark.parametrize("hand, trick, says", [
    (0, 0, "This match has 4 hands: there is no hand 0."),
    (5, 0, "there is no hand 5"),
    (1, 14, "Hand 1 has 13 tricks: choose trick 0 (after the bids) to 13, or \"end\" (its result). "
            "There is no trick 14."),
    (2, "later", "There is no trick later."),
])
def test_a_step_the_match_does_not_have_is_refused_with_the_steps_it_has(hand, trick, says):
    with pytest.raises(StepError, match=re.escape(says)):
        load(golden(), ("A", "B", "C", "D")).frame(hand, trick)


def test_the_replay_module_is_pure():
    code = "import sys, spades.replays; print(sorted(m for m in sys.modules if m.split('.')[0] in ('flask', 'jinja2')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_bids_are_written_as_players_say_them():
    assert [bid_words(b, bl) for b, bl in [(4, False), ("nil", False), ("nil", True), (None, False)]] == \
        ["4", "nil", "blind nil", ""]


# -- the replay over HTTP ------------------------------------------------------------------
def test_the_replay_steps_through_the_whole_match_with_plain_links(client, service):
    code = finished_practice(service, hands=2)
    record = client.get(f"/g/{code}/record.json").get_json()
    report = replay_report(record)
    assert report["ok"] and report["finished"]
    url, steps, seen_blind = f"/g/{code}/replay", [], False
    while url:
        r = client.get(url)
        assert r.status_code == 200, url
        page = r.get_data(as_text=True)
        hand, trick = step_of(page)
        steps.append((hand, trick))
        seats = seats_of(page)
        assert [seats[s]["name"] for s in range(4)] == ["Ann", "Rex", "Bea", "Kit"]
        done = 13 if trick == "end" else int(trick)
        assert all(len(seats[s]["cards"]) == 13 - done for s in range(4))
        seen_blind |= seats[0]["bid"] == "blind nil"
        if hand == 2:
            assert seats[0]["bid"] == "nil"
        if trick == "end":
            expected = report["hands"][hand - 1]
            assert [seats[s]["taken"] for s in range(4)] == expected["tricks"]
            assert result_of(page) == {"points": expected["score"], "total": expected["total"],
                                       "bags": expected["bags"]}
        url = link(page, "next")
    assert steps == [(h, t) for h in (1, 2) for t in [*map(str, range(14)), "end"]]
    assert seen_blind
    winner = ("Ann & Bea", "Rex & Kit")[report["winner"]] if report["winner"] is not None else None
    assert (winner + " won the match.") in text(page) if winner else "A draw" in text(page)
    assert link(page, "next") is None and link(page, "prev") == f"/g/{code}/replay?hand=2&trick=13"


def test_a_deep_link_opens_that_hand_and_trick(client, service):
    code = finished_practice(service, hands=2)
    record = client.get(f"/g/{code}/record.json").get_json()
    r = client.get(f"/g/{code}/replay?hand=2&trick=5")
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    assert step_of(page) == (2, "5") and "Hand 2 of 2 · after trick 5 of 13" in text(page)
    plays = record["hands"][1]["plays"]
    fifth = plays[16:20]
    assert sorted(trick_of(page).values()) == sorted(fifth)
    held = [c for s in seats_of(page).values() for c in s["cards"]]
    assert len(held) == 32 and not set(held) & set(plays[:20])
    assert link(page, "prev") == f"/g/{code}/replay?hand=2&trick=4"
    assert link(page, "next") == f"/g/{code}/replay?hand=2&trick=6"
    assert step_of(client.get(f"/g/{code}/replay?hand=1&trick=END").get_data(as_text=True)) == (1, "end")


def test_the_replay_steps_card_by_card_and_a_card_has_its_own_link(client, service):
    code = finished_practice(service, hands=2)
    plays = client.get(f"/g/{code}/record.json").get_json()["hands"][1]["plays"]
    # hand 2, after trick 5: the cards of trick 6 come one by one, then the trick is taken
    url, seen = f"/g/{code}/replay?hand=2&trick=5", []
    for card in (1, 2, 3):
        url = link(client.get(url).get_data(as_text=True), "next-card")
        assert url == f"/g/{code}/replay?hand=2&trick=5&card={card}"
        page = client.get(url).get_data(as_text=True)
        assert step_of(page) == (2, "5") and f'data-card="{card}"' in page
        assert f"Hand 2 of 2 · trick 6 of 13, {card} card{'s' if card > 1 else ''} played" in text(page)
        on_table = trick_of(page)
        assert sorted(on_table.values()) == sorted(plays[20:20 + card])  # in play order, none won yet
        held = [c for s in seats_of(page).values() for c in s["cards"]]
        assert len(held) == 32 - card and not set(held) & set(plays[:20 + card])
        assert link(page, "prev") == f"/g/{code}/replay?hand=2&trick=5"  # a trick back, a trick on
        assert link(page, "next") == f"/g/{code}/replay?hand=2&trick=6"
        seen.append(url)
    assert link(page, "next-card") == f"/g/{code}/replay?hand=2&trick=6"  # the fourth card takes the trick
    assert link(client.get(f"/g/{code}/replay?hand=2&trick=6").get_data(as_text=True), "prev-card") == seen[-1]
    first = client.get(f"/g/{code}/replay").get_data(as_text=True)  # the first step has no card before it
    assert link(first, "prev-card") is None and link(first, "next-card") == f"/g/{code}/replay?hand=1&trick=0&card=1"
    end = client.get(f"/g/{code}/replay?hand=1&trick=13").get_data(as_text=True)
    assert link(end, "next-card") == f"/g/{code}/replay?hand=1&trick=end"
    assert link(client.get(f"/g/{code}/replay?hand=2&trick=end").get_data(as_text=True), "next-card") is None


def test_a_running_match_is_refused_and_shows_no_card(client, service):
    code = start_practice(client, end="hands-5")
    page_of_table = client.get(f"/g/{code}").get_data(as_text=True)
    assert CARD.search(main_of(page_of_table))  # the table shows this seat's cards...
    r = client.get(f"/g/{code}/replay?hand=1&trick=0")
    page = r.get_data(as_text=True)
    assert r.status_code == 403
    assert "Its replay opens when the match is over." in text(page)
    assert f'href="/g/{code}"' in page and "Back to the table" in page
    assert not CARD.search(main_of(page)) and "data-card" not in page  # ...the replay not one
    assert client.get(f"/g/{code}/replay").status_code == 403


def test_the_sheet_of_a_running_match_shows_its_finished_hands_and_no_card(client, service):
    as_player(client)
    code = service.create_practice(ANN, "Ann", Rules(end="hands", hands=5, tempo="off"), "easy")
    play_out(service, code, until_hand_over=True)
    view = client.get(f"/g/{code}/view.json").get_json()
    assert view["phase"] == "hand_over" and not view["finished"]
    r = client.get(f"/g/{code}/record")
    page = r.get_data(as_text=True)
    assert r.status_code == 200 and "still being played" in page
    sheet = sheet_of(page)
    assert [h["hand"] for h in sheet] == [1]
    assert [int(t["cells"]["total"]) for t in sheet[0]["teams"]] == view["scores"]
    assert not CARD.search(main_of(page)) and "data-card" not in page
    assert "won the match" not in page and "Replay it hand by hand" not in page
    assert client.get(f"/g/{code}/replay").status_code == 403


def test_the_score_sheet_gives_the_numbers_of_the_record(client, service):
    code = start_practice(client, end="hands-5", blind_nil="on")
    with client.session_transaction() as s:
        pid = s["pid"]
    play_out(service, code, pid)
    report = replay_report(client.get(f"/g/{code}/record.json").get_json())
    r = client.get(f"/g/{code}/record")
    page = r.get_data(as_text=True)
    assert r.status_code == 200
    sheet = sheet_of(page)
    assert [h["hand"] for h in sheet] == [1, 2, 3, 4, 5] == list(range(1, len(report["hands"]) + 1))
    for h, expected in zip(sheet, report["hands"]):
        cells = [t["cells"] for t in h["teams"]]
        assert [int(c["points"]) for c in cells] == expected["score"]
        assert [int(c["total"]) for c in cells] == expected["total"]
        assert [int(c["bags_after"]) for c in cells] == expected["bags"]
        took = {**h["teams"][0]["took"], **h["teams"][1]["took"]}
        assert [took[s] for s in range(4)] == expected["tricks"]
    first, second = sheet[0]["teams"][0], sheet[1]["teams"][0]
    assert first["bids"].startswith("You blind nil")
    assert re.match(r"You: blind nil (made: \+200|failed: -200)", first["cells"]["nil"])
    assert second["bids"].startswith("You nil") and re.match(r"You: nil (made|failed)", second["cells"]["nil"])
    winner = report["winner"]
    assert (("You & Bea", "Rex & Kit")[winner] + " won the match.") in text(page)
    assert f'href="/g/{code}/record.json" download' in page and f'href="/g/{code}/replay"' in page


@pytest.mark.parametrize("query", [
    "hand=0", "hand=3", "hand=-1", "hand=abc", "hand=1e3", "hand=", "hand=%C2%B2", "hand=1.5", "hand=%00",
    "hand=" + "9" * 40, "trick=14", "trick=-1", "trick=ends", "hand=1&trick=99", "hand=2&trick=%EF%BC%95",
    "match=0", "match=2", "match=x", "match=99999",
    "card=4", "card=x", "card=-1", "hand=1&trick=end&card=1", "hand=1&trick=13&card=1", "hand=2&trick=3&card=9",
])
def test_bad_query_values_are_a_400_that_says_so(client, service, query):
    code = finished_practice(service, hands=2)
    r = client.get(f"/g/{code}/replay?{query}")
    assert r.status_code == 400, query
    page = text(r.get_data(as_text=True))
    assert "No such step" in page or "No such match" in page
    assert "The start of the replay" in page or "The latest match's replay" in page
    if query.startswith("match"):
        sheet = client.get(f"/g/{code}/record?{query}")
        assert sheet.status_code == 400 and "No such match" in sheet.get_data(as_text=True)


def test_unknown_codes_are_a_404(client):
    for url in ("/g/ZZZZZZ/replay", "/g/ZZZZZZ/record", "/g/no!/replay", "/g/ZZZZZZ/replay?hand=x"):
        r = client.get(url)
        assert r.status_code in (404, 400), url
    assert client.get("/g/ZZZZZZ/replay").status_code == 404
    assert "There is no table with that code" in client.get("/g/ZZZZZZ/record").get_data(as_text=True)


def test_an_earlier_match_after_a_rematch_stays_open(app, client, service):
    code = finished_practice(service, hands=2)
    as_player(client)
    before = client.get(f"/g/{code}/record").get_data(as_text=True)
    first_step = client.get(f"/g/{code}/replay?hand=1&trick=3").get_data(as_text=True)
    version = client.get(f"/g/{code}/view.json").get_json()["version"]
    service.handle(code, Player(ANN), Rematch(version))
    assert not client.get(f"/g/{code}/view.json").get_json()["finished"]

    r = client.get(f"/g/{code}/replay?hand=1&trick=3")  # the latest finished match: number 1
    page = r.get_data(as_text=True)
    assert r.status_code == 200 and "Replay of match 1" in page
    assert seats_of(page) == seats_of(first_step) and trick_of(page) == trick_of(first_step)
    assert link(page, "next") == f"/g/{code}/replay?match=1&hand=1&trick=4"
    again = client.get(f"/g/{code}/record?match=1").get_data(as_text=True)
    assert sheet_of(again) == sheet_of(before)
    assert client.get(f"/g/{code}/replay?match=2").status_code == 403  # being played
    assert "still being played" in client.get(f"/g/{code}/record").get_data(as_text=True)
    assert client.get(f"/g/{code}/replay?match=3").status_code == 400

    stranger = app.test_client()  # a finished match is open to everybody, named as it was seated
    for path in (f"/g/{code}/replay?hand=1&trick=3", f"/g/{code}/replay?match=1&hand=1&trick=3"):
        r = stranger.get(path)
        assert r.status_code == 200 and seats_of(r.get_data(as_text=True)) == seats_of(first_step)


def test_the_history_links_to_each_finished_match_s_replay_and_record(client, service):
    as_player(client)
    code = finished_practice(service, hands=2)
    games = client.get("/games").get_data(as_text=True)
    assert f'href="/g/{code}/replay?match=1"' in games and f'href="/g/{code}/record?match=1"' in games
    r = client.get(f"/g/{code}/replay?match=1")
    assert r.status_code == 200 and step_of(r.get_data(as_text=True)) == (1, "0")
    assert client.get(f"/g/{code}/record?match=1").status_code == 200


def test_a_table_still_waiting_for_its_players_has_nothing_to_replay(client, service):
    code = service.create_room("replay-host", "Hana", EMOJIS[0], Rules(), "easy", 2)
    for url in (f"/g/{code}/replay", f"/g/{code}/record", f"/g/{code}/replay?hand=1&trick=1"):
        r = client.get(url)
        assert r.status_code == 403 and "has not started yet" in r.get_data(as_text=True), url
