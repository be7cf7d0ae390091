"""Records, ratings and the profile at every shape of table: a cutthroat match counts in
each person's record as their own side's result, moves a cutthroat rating kept apart from
the partnership rating, and reads on the profile, the history and the Rejoin list as
"Against Rex and Kit", with its rules in a word; a partnership match under house rules
(Jokers JJDD) still counts in the partnership rating."""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import FakeClock, csrf_of
from helpers.accounts import play_stored
from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from spades.accounts import Accounts
from spades.records import from_record
from spades.rules import BIDS, Match
from spades.rules_config import Rules
from spades.stats import Played, record_of, replay, results_over_time
from spades.storage import MIGRATION_SET, MIGRATIONS, SeatRow, Store
from spades.storage.migrations import SqliteSchema
from spades.storage.people import CUTTHROAT, PARTNERS
from spades.views import view_of
from spades.web.accounts.profile import game_line, history_lines, rules_word

RECORDS = Path(__file__).parent / "records"
CUTTHROAT_3 = Rules(players=3, partners=False, end="hands", hands=1)
CUTTHROAT_4 = Rules(partners=False, end="hands", hands=1)
JJDD = Rules(jokers="jjdd", min_bid=4, ten_for_200=True, end="hands", hands=1)


def golden(name: str) -> Match:
    return from_record(json.loads((RECORDS / f"{name}.json").read_text()))


@pytest.fixture
def store(database) -> Iterator[Store]:
    s = Store(database)
    yield s
    s.close()


@pytest.fixture
def accounts(store) -> Accounts:
    return Accounts(store, "secret", FakeClock())


def stored_match(store: Store, code: str, seats: list[SeatRow], rules: Rules, seed: str) -> Match:
    """A match played out by random legal moves at a new table with ``seats``, stored move
    by move as the table service stores them (the next hand dealt while the lead is shared)."""
    store.create_table(code, None, {"level": "normal"}, seats, seed, rules.to_dict())
    return play_stored(store, code, rules, seed)


def people(prefix: str, n: int) -> list[SeatRow]:
    return [SeatRow(s, "human", f"{prefix}{s}", f"{prefix.upper()}{s}") for s in range(n)]


# -- the record ------------------------------------------------------------------------
@pytest.mark.parametrize("seat, expected", [
    (0, dict(played=1, won=1, lost=0, drawn=0, hands=2, bids=2, bid_total=6, bids_made=2, sets=0, bags=6)),
    (1, dict(played=1, won=0, lost=1, drawn=0, hands=2, bids=2, bid_total=6, bids_made=2, sets=0, bags=11)),
    (2, dict(played=1, won=0, lost=1, drawn=0, hands=2, bids=2, bid_total=6, bids_made=1, sets=1, bags=0)),
])
def test_a_cutthroat_for_three_match_counts_for_each_player_alone(seat, expected):
    """house-cutthroat-3.json: three players, each a side alone, two hands.
    Hand 1: bids 3, 3, 3; tricks 7, 8, 2: seat 0 makes 3 with 4 bags (34), seat 1 makes 3
    with 5 bags (35), seat 2 takes 2 of 3: set (-30).
    Hand 2: bids 3, 3, 3; tricks 5, 9, 3: seat 0 makes with 2 bags (32), seat 1 makes with
    6 bags (36, and 5 + 6 = 11 bags cost 100: -64), seat 2 makes exactly (30).
    Totals 66, -29, 0: seat 0 is the one highest and won; seats 1 and 2 lost.
    Per player: seat 0 made both bids (100%), 6 bags in 2 hands (3.0 a hand), no set;
    seat 1 made both, 11 bags taken (5.5 a hand; the penalty does not undo the bags taken);
    seat 2 made one of two (50%), no bag, one set."""
    rec = record_of([Played(golden("house-cutthroat-3"), seat)])
    assert {k: getattr(rec, k) for k in expected} == expected
    assert rec.average_bid == 3.0
    assert rec.bids_made_pct == {0: 100.0, 1: 100.0, 2: 50.0}[seat]
    assert rec.bags_per_hand == {0: 3.0, 1: 5.5, 2: 0.0}[seat]


def test_a_cutthroat_result_is_the_players_score_against_the_best_of_the_others():
    """house-cutthroat-4.json: totals -60, 65, 2, 61; seat 1 won. Seat 3 (61) lost by 4 to
    seat 1's 65; seat 0 lost by 125. Seat 0 was set in both hands (bid 3, took 0 then 1)."""
    m = golden("house-cutthroat-4")
    res = results_over_time([Played(m, s, when=float(s), code="CCCCCC") for s in range(4)])
    assert [(r.seat, r.outcome, r.us, r.them, r.others) for r in res] == [
        (0, "lost", -60, 65, (65, 61, 2)), (1, "won", 65, 61, (61, 2, -60)),
        (2, "lost", 2, 65, (65, 61, -60)), (3, "lost", 61, 65, (65, 2, -60))]
    assert res[1].against == "61, 2 and -60"
    assert Played(m, 3).margin == -4 and Played(m, 1).margin == 4
    assert record_of([Played(m, 0)]).sets == 2


def test_a_shared_first_place_at_the_cap_is_a_draw_for_those_sharing_it_and_a_loss_for_the_rest():
    m = Match(Rules(players=3, partners=False), seed=1)
    m.phase, m.winner, m.scores = "match_over", None, [40, 40, 10]  # as the 99-hand cap leaves it
    assert [Played(m, s).outcome for s in range(3)] == ["drawn", "drawn", "lost"]


def test_a_partnership_match_under_house_rules_reads_as_two_teams():
    """house-jjdd-minbid-10for200.json: team 1 (seats 1 and 3) wins 262 to -100; hand 1
    team 1 bid 4 + 6 = 10 and took 10: 10-for-200 gives 200."""
    m = golden("house-jjdd-minbid-10for200")
    assert [Played(m, s).outcome for s in range(4)] == ["lost", "won", "lost", "won"]
    rec = record_of([Played(m, 3)])
    assert (rec.bids, rec.bid_total, rec.bids_made, rec.sets, rec.bags) == (2, 9, 2, 0, 2)


def test_a_stored_three_player_match_replays_bids_above_13():
    rules = Rules(players=3, partners=False, end="hands", hands=1)
    match = Match(rules, "high")
    first = match.to_act
    match.apply(first, BIDS[17])
    again = replay(rules.to_dict(), "high", [(first, str(BIDS[17]))])
    assert again.bids == match.bids and again.bids[first] == 17


# -- ratings ---------------------------------------------------------------------------
def test_a_cutthroat_match_moves_the_cutthroat_rating_and_not_the_partnership_rating(accounts, store):
    seats = people("c", 3)
    m = stored_match(store, "CUTTHR", seats, CUTTHROAT_3, "c3")
    assert m.finished and m.winner is not None and len(set(m.scores)) == 3
    assert accounts.rate_pending() == 1 and accounts.rate_pending() == 0
    order = sorted(range(3), key=lambda s: -m.scores[s])  # seats, highest score first
    first, second, last = (accounts.rating(f"c{s}", CUTTHROAT) for s in order)
    # Plackett-Luce from a newcomer's 25: the winner rises most, the last falls; the second
    # of three beat one player and lost to one, so it moves a little up
    assert first.mu > 25 > last.mu and first.mu > second.mu > last.mu
    assert first.shown > second.shown > last.shown and first.matches == 1 and first.rank == 1
    assert first.players == 3
    assert all(accounts.rating(f"c{s}") is None for s in range(3))  # no partnership rating from it
    assert store.ratings([f"c{s}" for s in range(3)], PARTNERS) == {}


def test_a_cutthroat_for_four_match_with_a_bot_rates_the_bot_by_its_seat(accounts, store):
    seats = people("f", 3) + [SeatRow(3, "bot", None, "Kit")]
    m = stored_match(store, "CUTFOU", seats, CUTTHROAT_4, "c4")
    assert accounts.rate_pending() == 1
    rated = store.ratings(["f0", "f1", "f2", "bot:normal:3"], CUTTHROAT)
    assert set(rated) == {"f0", "f1", "f2", "bot:normal:3"}
    best = max(range(4), key=lambda s: m.scores[s])
    assert max(rated, key=lambda p: rated[p][0]) == (["f0", "f1", "f2", "bot:normal:3"][best])
    assert accounts.rating("f0", CUTTHROAT).players == 3  # the bot is not among the people


def test_a_jjdd_partnership_match_moves_the_partnership_rating(accounts, store):
    seats = people("j", 4)
    m = stored_match(store, "JJDDJJ", seats, JJDD, "jj")
    assert m.winner is not None
    assert accounts.rate_pending() == 1
    winners = [f"j{s}" for s in range(4) if s % 2 == m.winner]
    losers = [f"j{s}" for s in range(4) if s % 2 != m.winner]
    assert all(accounts.rating(w).mu > 25 > accounts.rating(x).mu for w in winners for x in losers)
    assert all(accounts.rating(p, CUTTHROAT) is None for p in winners + losers)


def test_ratings_from_before_the_cutthroat_rating_read_unchanged(tmp_path):
    path = str(tmp_path / "old.db")
    old = Migrations(MIGRATION_SET)
    for fn in MIGRATIONS[:MIGRATIONS.index(next(f for f in MIGRATIONS if f.__name__ == "m017_cutthroat_ratings"))]:
        old(name=fn.__name__)(lambda db, fn=fn: fn(SqliteSchema(db)))
    old.apply(Database(path))
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO ratings (player_id, mu, sigma, matches, updated) VALUES ('old', 30, 2, 7, 1)")
    store = Store(path)
    try:
        assert "m017_cutthroat_ratings" in store.migrations()
        acc = Accounts(store, "secret", FakeClock())
        before = acc.rating("old")
        assert (before.mu, before.sigma, before.matches, before.rank, before.shown) == (30.0, 2.0, 7, 1, 1600)
        assert acc.rating("old", CUTTHROAT) is None
    finally:
        store.close()


def test_signing_in_takes_the_browsers_cutthroat_rating_along(accounts, store):
    stored_match(store, "SIGNIN", people("s", 3), CUTTHROAT_3, "c3")
    accounts.rate_pending()
    mine = accounts.rating("s0", CUTTHROAT)
    user, _ = accounts.sign_in("s0@example.com", "s0", "S0", "")
    moved = accounts.rating(user.id, CUTTHROAT)
    assert (moved.mu, moved.matches) == (mine.mu, 1) and accounts.rating("s0", CUTTHROAT) is None


# -- the pages -------------------------------------------------------------------------
def save(client, name: str) -> str:
    client.post("/me", data={"csrf": csrf_of(client), "name": name, "emoji": "🦊"})
    with client.session_transaction() as s:
        return s["pid"]


def test_the_profile_shows_both_ratings_and_a_cutthroat_game_line(client, app):
    pid = save(client, "Ann")
    store = app.extensions["spades.tables"].store
    bots = [SeatRow(s, "bot", None, n) for s, n in ((1, "Rex"), (2, "Bea"), (3, "Kit"))]
    stored_match(store, "PARTNE", [SeatRow(0, "human", pid, "Ann")] + bots, Rules(end="hands", hands=1), "p1")
    me = client.get("/me").get_data(as_text=True)
    assert re.search(r"Rating <strong>\d+</strong>, number 1 of 1 rated player\b", me)
    assert "Cutthroat rating" not in me  # not until they play cutthroat
    assert "With Bea against Rex and Kit" in me
    cut = stored_match(store, "CUTTHR", [SeatRow(0, "human", pid, "Ann"), SeatRow(1, "bot", None, "Rex"),
                                         SeatRow(2, "bot", None, "Kit")], CUTTHROAT_3, "c3")
    me = client.get("/me").get_data(as_text=True)
    assert re.search(r"Rating <strong>\d+</strong>, number 1 of 1 rated player\b", me)
    assert re.search(r"Cutthroat rating <strong>\d+</strong>, number 1 of 1 rated player\b", me)
    assert "from 1 match with partners" in me and "from 1 cutthroat match," in me
    recent = re.search(r'<ol class="history-list">.*?</ol>', me, re.S).group(0)
    line = re.search(r'<li class="result-[a-z]+"><a href="/g/CUTTHR">.*?</li>', recent, re.S).group(0)
    assert "Against Rex and Kit" in line and "Cutthroat for 3" in line
    outcome = "won" if cut.winner == 0 else "lost"
    others = sorted(cut.scores[1:], reverse=True)
    assert f"{outcome.capitalize()}</span> {cut.scores[0]} to {others[0]} and {others[1]}" in line
    assert re.search(r'class="played">2<', me)
    games = client.get("/games").get_data(as_text=True)
    history = re.search(r'<section id="history".*?</section>', games, re.S).group(0)
    assert "Against Rex and Kit" in history and "Cutthroat for 3" in history
    assert "With Bea against Rex and Kit" in history
    assert re.search(rf'<rect class="result-{outcome}"', me)


def test_game_lines_at_every_shape():
    names3, names4 = ("Ann", "Rex", "Kit"), ("Ann", "Rex", "Bea", "Kit")
    cases = [
        (Rules(), names4, 0, "Bea", "Rex and Kit", "us 0, them 0", ""),
        (Rules(), names4, 1, "Kit", "Bea and Ann", "us 0, them 0", ""),
        (Rules(players=3, partners=False), names3, 1, "", "Kit and Ann", "you 0, Kit 0, Ann 0", "Cutthroat for 3"),
        (Rules(partners=False), names4, 2, "", "Kit, Ann and Rex", "you 0, Kit 0, Ann 0, Rex 0", "Cutthroat for 4"),
        (Rules(jokers="jjdd", min_bid=4, ten_for_200=True), names4, 0, "Bea", "Rex and Kit", "us 0, them 0",
         "Jokers JJDD"),
        (Rules(jokers="jj", bidding_variant="whiz"), names4, 3, "Rex", "Ann and Bea", "us 0, them 0", "House rules"),
    ]
    for rules, names, seat, partner, opponents, scores, word in cases:
        m = Match(rules, seed=2)
        line = game_line("ABCDEF", seat, names, view_of(m, seat).match)
        assert (line.partner, line.opponents, line.scores, line.rules) == (partner, opponents, scores, word)
        assert line.turn in ("Your turn to bid", f"{names[m.to_act]} to bid")


def test_the_rejoin_list_says_a_cutthroat_game_in_words(app):
    m = Match(Rules(partners=False), seed=4)
    for seat in m.turns():  # one hand played, so the scores are each player's own
        m.apply(seat, m.legal_actions(seat)[0])
        if m.phase == "hand_over":
            break
    view = dataclasses.replace(view_of(m, 0).match, phase="bidding", to_act=2)  # as once the next hand is dealt
    line = game_line("QWERTY", 0, ("Ann", "Rex", "Bea", "Kit"), view)
    with app.test_request_context("/games"):
        html = app.jinja_env.get_template("profile/_rejoin.html").render(lines=[line])
    s = m.scores
    assert "Against Rex, Bea and Kit · Cutthroat for 4" in re.sub(r"<[^>]+>", "", html)
    assert f"Hand 1 · you {s[0]}, Rex {s[1]}, Bea {s[2]}, Kit {s[3]}" in html and "Bea to bid" in html
    assert "With <strong>" not in html


def test_rules_in_a_word():
    assert rules_word(Rules()) == "" and rules_word(Rules(end="hands", hands=5)) == ""
    assert rules_word(Rules(players=3, partners=False)) == "Cutthroat for 3"
    assert rules_word(Rules(jokers="jj")) == "Jokers JJ"
    assert rules_word(Rules(spades_lead="any")) == "House rules"


def test_history_lines_name_the_company_of_finished_matches():
    m = golden("house-cutthroat-3")
    [line] = history_lines(results_over_time([Played(m, 2, code="AAAAAA", names=("Ann", "Rex", "Kit"))]))
    assert (line.company, line.rules, line.result.outcome, line.result.against) == (
        "Against Ann and Rex", "Cutthroat for 3", "lost", "66 and -29")
    [unknown] = history_lines(results_over_time([Played(m, 2)]))  # names not kept: no line, no error
    assert unknown.company == ""


def test_invite_again_counts_the_seats_of_the_last_table(client, app):
    """The host's last table was cutthroat for three: it seats the host and two more."""
    pid = save(client, "Hana")
    store = app.extensions["spades.tables"].store
    friends = []
    for n in ("Ann", "Bo", "Cy"):
        user, _ = store.sign_in(f"{n.lower()}@example.com", f"u-{n}", None, n, "", 1.0)
        friends.append(user.id)
    seats = [SeatRow(0, "human", pid, "Hana")] + [SeatRow(s + 1, "human", u, n)
                                                    for s, (u, n) in enumerate(zip(friends, ("Ann", "Bo", "Cy")))]
    store.create_table("FOURPL", pid, {"level": "normal", "rules": Rules().to_dict()}, seats, "s", Rules().to_dict())
    three = Rules(players=3, partners=False)
    store.create_table("THREEP", pid, {"level": "normal", "rules": three.to_dict()}, seats[:3], "t",
                       three.to_dict())
    me = client.get("/me").get_data(as_text=True)
    handles = dict((name, h) for h, name in re.findall(r'name="person" value="([0-9a-f]+)"> \S* ?([^<]+?)</label>',
                                                        me))
    assert set(handles) == {"Ann", "Bo", "Cy"}
    r = client.post("/people/invite", data={"csrf": csrf_of(client), "person": list(handles.values())})
    assert r.status_code == 303
    assert "A table seats three: choose at most 2 people." in client.get("/me").get_data(as_text=True)
