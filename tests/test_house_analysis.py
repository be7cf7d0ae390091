"""The analysis of a match played under house rules: the double-dummy solver of any shape
(``spades.bots.house_solver``) against brute force and against the standard solver, the
analysis of every house record's hands, and the analysis page of a cutthroat-for-3 match
and of a JJDD match."""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import json
import random
import re
from pathlib import Path

import pytest
from helpers.analysis import as_player, play_out

from spades.bots import house, house_search
from spades.bots.analysis import DD_TRICKS, PARTS, SPLITS, _start_of, analyse_hand, splits_of
from spades.bots.house_solver import HouseSolver, Spot, equivalents, play, to_act
from spades.bots.solver import Position, Solver
from spades.cards import Card
from spades.rules import parse_action, shape_legal_mask
from spades.rules_config import Rules
from spades.scoring import score_hand

C = Card.parse
RECORDS = Path(__file__).parent / "records"
CARD_TEXT = re.compile(r"[2-9TJQKA][SHDC]|BJ|LJ")
CUTTHROAT_3 = Rules(players=3, partners=False)
CUTTHROAT_4 = Rules(partners=False)
JJDD = Rules(jokers="jjdd", min_bid=4, ten_for_200=True)
JJ = Rules(jokers="jj")
LEAD_ANY = Rules(spades_lead="any", bidding_variant="mirror")


# -- the solver --------------------------------------------------------------------------
def brute(rules: Rules, bids: list[int], spot: Spot, hero: int, measure: str) -> int:
    """Side ``hero``'s figure by trying every line of play: written from RULES.md alone
    (the trick to the highest trump, else the highest card of the suit led; a trump
    played breaks spades), no table, no pruning, no merged cards."""
    shape = rules.shape
    plain = dataclasses.replace(rules, bag_penalty=False)
    n = shape.players

    def final(taken: tuple[int, ...]) -> int:
        if measure == "tricks":
            return sum(taken[s] - spot.taken[s] for s in shape.sides[hero])
        sides = score_hand(plain, list(bids), [False] * n, list(taken), [0] * shape.side_count).teams
        mine = sides[hero].total
        return mine - sum(t.total for i, t in enumerate(sides) if i != hero) if shape.partners else mine

    def every(hands: list[int], trick: list[int], leader: int, taken: tuple[int, ...], broken: bool) -> int:
        if not trick and not hands[leader]:
            return final(taken)
        seat = leader
        for _ in trick:
            seat = shape.left[seat]
        legal = shape_legal_mask(shape, hands[seat], trick, broken, rules.spades_lead == "any")
        values = []
        for c in range(54):
            if not legal >> c & 1:
                continue
            held = list(hands)
            held[seat] &= ~(1 << c)
            t = trick + [c]
            if len(t) < n:
                values.append(every(held, t, leader, taken, broken))
                continue
            trumps = [x for x in t if shape.trump_mask >> x & 1]
            top = max(trumps or [x for x in t if shape.suit_of[x] == shape.suit_of[t[0]]], key=lambda x: shape.power[x])
            winner = leader
            for _ in range(t.index(top)):
                winner = shape.left[winner]
            after = list(taken)
            after[winner] += 1
            values.append(every(held, [], winner, tuple(after), broken or bool(trumps)))
        return max(values) if seat in shape.sides[hero] else min(values)

    return every(list(spot.hands), list(spot.trick), spot.leader, spot.taken, spot.broken)


def random_spot(rules: Rules, tricks_left: int, rng: random.Random) -> Spot:
    """A spot with ``tricks_left`` tricks to play (the jokers dealt first when the deck
    has them), the earlier tricks shared at random, and a few cards of the trick played."""
    shape = rules.shape
    n = shape.players
    deck = list(shape.deck)
    rng.shuffle(deck)
    deck.sort(key=lambda c: c < 52)  # the jokers (and 2D) into play whenever there are any
    cards = deck[:2] + rng.sample(deck[2:], n * tricks_left - 2)
    rng.shuffle(cards)
    hands = [0] * n
    for i, c in enumerate(cards):
        hands[i % n] |= 1 << c
    taken = [0] * n
    for _ in range(shape.tricks - tricks_left):
        taken[rng.randrange(n)] += 1
    spot = Spot(tuple(hands), (), rng.randrange(n), tuple(taken), rng.random() < 0.5)
    for _ in range(rng.randrange(n)):
        legal = shape_legal_mask(shape, spot.hands[to_act(shape, spot)], spot.trick, spot.broken,
                                 rules.spades_lead == "any")
        spot = play(shape, spot, rng.choice([c for c in range(54) if legal >> c & 1]))
    return spot


@pytest.mark.parametrize("rules", [CUTTHROAT_3, CUTTHROAT_4, JJDD, JJ, LEAD_ANY],
                         ids=["cutthroat-3", "cutthroat-4", "jjdd", "jj", "lead-any"])
def test_the_solver_agrees_with_every_line_of_play(rules):
    """Small spots of 2 to 4 tricks (2 or 3 with four seats), jokers in play where the deck
    has them, bids with nils: every side's figure, by points and by tricks, is brute force's."""
    rng = random.Random(f"house-solver/{rules}")
    shape = rules.shape
    jokers_seen = 0
    for _ in range(12):
        spot = random_spot(rules, rng.choice([2, 3, 4] if shape.players == 3 else [2, 3]), rng)
        jokers_seen += any(h >> 52 for h in spot.hands)
        bids = [rng.choice([0, 1, 2, 3, 4]) for _ in shape.seats]
        for measure in ("points", "tricks"):
            solver = HouseSolver(rules, bids, [False] * shape.players, measure)
            for hero in range(shape.side_count):
                assert solver.value(spot, hero) == brute(rules, bids, spot, hero, measure), (spot, bids, hero, measure)
    assert jokers_seen or shape.jokers == "none"


def test_card_values_are_each_cards_line_solved_on():
    """A card's figure is the side's figure once it is played: for every legal card."""
    rng = random.Random(3)
    for rules in (CUTTHROAT_3, JJDD):
        shape = rules.shape
        for _ in range(6):
            spot = random_spot(rules, 3, rng)
            bids = [rng.choice([0, 2, 3]) for _ in shape.seats]
            hero = shape.side_of[to_act(shape, spot)]
            values = HouseSolver(rules, bids, [False] * shape.players).card_values(spot)
            legal = shape_legal_mask(shape, spot.hands[to_act(shape, spot)], spot.trick, spot.broken)
            assert set(values) == {c for c in range(54) if legal >> c & 1}
            for card, v in values.items():
                assert v == brute(rules, bids, play(shape, spot, card), hero, "points")


def test_the_solver_gives_the_standard_solvers_figures_on_a_standard_table():
    rng = random.Random(11)
    rules = Rules()
    for _ in range(8):
        spot = random_spot(rules, rng.choice([4, 5, 6]), rng)
        bids = [rng.choice([0, 2, 3, 4, 5]) for _ in range(4)]
        pos = Position(spot.hands, spot.trick, spot.leader, spot.taken, spot.broken)  # type: ignore[arg-type]
        standard = Solver(rules, bids, [False] * 4).card_values(pos)
        assert HouseSolver(rules, bids, [False] * 4).card_values(spot) == standard
        by_tricks = Solver(rules, bids, [False] * 4, score=lambda t: t[0] + t[2] - t[1] - t[3]).card_values(pos)
        seat = to_act(rules.shape, spot)
        before = spot.taken[seat % 2] + spot.taken[seat % 2 + 2]
        assert HouseSolver(rules, bids, [False] * 4, "tricks").card_values(spot) == {
            c: (v + 13) // 2 - before for c, v in by_tricks.items()}


def test_equivalent_cards_follow_the_trump_order_of_jjdd():
    """Under JJDD the trumps run BJ, LJ, 2D, 2S, AS: the big joker and the 2 of diamonds
    are one run when the little joker is gone, and the 2D is no diamond."""
    shape = JJDD.shape
    mine = (1 << 53) | (1 << C("2D")) | (1 << C("2S")) | (1 << C("5D"))
    reps = equivalents(shape, mine, 1 << C("AS"))
    assert reps[C("2D")] == 53 and reps[C("2S")] == 53 and reps[C("5D")] == C("5D")
    reps = equivalents(shape, mine, (1 << 52) | (1 << C("AS")))
    assert reps[C("2D")] == C("2D") and reps[C("2S")] == C("2D")


# -- the analysis of a house-rules hand ----------------------------------------------------
HOUSE_RECORDS = sorted(p.name[:-5] for p in RECORDS.glob("house-*.json") if not p.name.endswith(".expected.json"))


def record(name: str) -> dict:
    return json.loads((RECORDS / f"{name}.json").read_text())


def cards_in(value: object) -> set[str]:
    """Every card named anywhere in a view (JSON), as the record writes them."""
    if isinstance(value, str):
        return {value} if CARD_TEXT.fullmatch(value) else set()
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


@pytest.mark.parametrize("name", HOUSE_RECORDS)
def test_every_step_of_a_house_hand_is_weighed_from_its_seats_view(name, monkeypatch):
    """Each bid and card listed once, in order; costs never below 0; double-dummy figures
    (every legal card's, the card played among them) from ``DD_TRICKS`` tricks left and
    not before; and every step thought about on what its seat could see: the analyst reads
    the acting seat's view, in which no card of another seat's hand appears, and draws
    its deals from what it read."""
    rec = record(name)
    rules = Rules.from_dict(rec["rules"])
    shape = rules.shape
    read_states: list = []
    real_read, real_sample = house.read, house_search.sample_hands

    def read(view: dict):
        assert view["to_act"] == view["seat"]
        seen = set(view["hand"] or []) | {c for t in view["tricks"] for c in t["cards"]}
        seen |= set((view["trick"] or {}).get("cards") or [])
        assert cards_in(view) <= seen | set(view["legal"])
        state = real_read(view)
        read_states.append(state)
        return state

    def sample(state, rng):
        assert any(state is s for s in read_states)
        return real_sample(state, rng)

    monkeypatch.setattr(house, "read", read)
    monkeypatch.setattr(house_search, "sample_hands", sample)
    for h in range(len(rec["hands"])):
        read_states.clear()
        steps = analyse_hand(rec, h, budget_s=0.003)["steps"]
        plays = rec["hands"][h]["plays"]
        blind = rec["hands"][h].get("blind") or [False] * shape.players
        bids = [s for s in steps if s["kind"] == "bid"]
        assert sorted(s["seat"] for s in bids) == list(shape.seats)
        assert [s["index"] for s in steps if s["kind"] == "play"] == list(range(len(plays)))
        assert [s["action"] for s in steps if s["kind"] == "play"] == plays
        assert all(s["cost"] >= 0 for s in steps)
        assert len(read_states) == len(steps) - sum(blind)  # a blind nil is not weighed
        first_dd = (shape.tricks - DD_TRICKS) * shape.players
        assert [s["index"] for s in steps if s["double_dummy"] is not None] == list(range(first_dd, len(plays)))
        assert all(s["action"] in s["double_dummy"] for s in steps if s["double_dummy"] is not None)


def test_a_house_hands_parts_are_the_whole_hand():
    """Split by the hand's own size (17 tricks of three cards): the parts together are
    the whole hand, each step once."""
    rec = record("house-cutthroat-3")
    assert splits_of(CUTTHROAT_3.shape) == (0, 9, 15, 24, 36)
    assert splits_of(Rules().shape) == SPLITS and splits_of(JJDD.shape) == SPLITS
    whole = analyse_hand(rec, 1, budget_s=0.002)["steps"]
    parts = [s for part in PARTS for s in analyse_hand(rec, 1, budget_s=0.002, part=part)["steps"]]
    assert parts == whole and len(whole) == 3 + 51


def test_a_cutthroat_double_dummy_figure_is_the_players_own_points():
    """In cutthroat the figure is what the player can make sure of with everyone else
    against them: their own points alone, as the solver gives them."""
    rec = record("house-cutthroat-3")
    steps = analyse_hand(rec, 0, budget_s=0.002, part=PARTS[-1])["steps"]
    match = _start_of(rec, 0)
    hand = rec["hands"][0]
    while match.phase == "bidding":
        seat = match.to_act
        match.apply(seat, parse_action("look" if match.can_look(seat) else str(hand["bids"][seat]), 17))
    solver = HouseSolver(match.rules, match.bids, match.blind)
    for text in hand["plays"]:
        step = next((s for s in steps if s["action"] == text), None)
        if step is not None and step["double_dummy"]:
            spot = Spot(tuple(match.held), tuple(match.trick), match.trick_leader, tuple(match.taken), match.broken)
            assert step["double_dummy"] == {str(Card(c)): v for c, v in solver.card_values(spot).items()}
            hero = match.to_act
            assert max(step["double_dummy"].values()) == solver.value(spot, CUTTHROAT_3.shape.side_of[hero])
        match.apply(match.to_act, C(text))


# -- the page ------------------------------------------------------------------------------
ANN = "house-analysis-ann"


@pytest.fixture
def app_config():
    pool = cf.ThreadPoolExecutor(1)
    yield {"ANALYSIS_POOL": pool, "ANALYSIS_BUDGET": 0.002}
    pool.shutdown(wait=False, cancel_futures=True)


def analysed(app, client, service, rules: Rules) -> tuple[str, list[dict]]:
    """A one-hand practice match under ``rules`` played to its end (Ann and Easy bots),
    analysed through the page's JSON route: its code and the hand's steps."""
    code = service.create_practice(ANN, "Ann", dataclasses.replace(rules, end="hands", hands=1, tempo="off",
                                                                   play_speed="fast"), "easy")
    play_out(service, code, ANN)
    as_player(client, ANN)
    assert client.get(f"/g/{code}/analysis.json").status_code == 200
    assert app.extensions["spades.analyses"].wait(code, 1, 120)
    done = client.get(f"/g/{code}/analysis.json").get_json()
    assert done["status"] == "done"
    return code, done["hands"][0]["steps"]


def words(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_analysis_page_of_a_cutthroat_match_for_three(app, client, service):
    code, steps = analysed(app, client, service, CUTTHROAT_3)
    assert len(steps) == 3 + 51
    first = client.get(f"/g/{code}/analysis?hand=1&step=0").get_data(as_text=True)
    felt = re.search(r'<section class="replay-felt".*?</section>', first, re.S).group(0)
    # three seats face up, none drawn across the table, each with its 17 cards
    assert 'aria-label="The three hands, face up"' in felt
    assert re.findall(r'class="seat seat-(\w+) side-(\d)', felt) == [("bottom", "0"), ("left", "1"), ("right", "2")]
    assert [int(n) for n in re.findall(r"holds (\d+) cards", felt)] == [17, 17, 17]
    names = re.findall(r'<p class="seat-name"><strong>(.*?)</strong>', felt)
    assert len(names) == 3 and names[0] == "Ann"
    # the points lost: a row per player; the chart: a line per player, with its key
    losses = re.search(r'<table class="score-table loss-table">.*?</table>', first, re.S).group(0)
    assert re.findall(r'<tr data-seat="(\d)"', losses) == ["0", "1", "2"]
    chart = re.search(r'<section class="card-panel chart-box".*?</section>', first, re.S).group(0)
    assert "Each player: expected score through hand 1" in chart
    assert re.findall(r'class="ev ev-side" data-side="(\d)"', chart) == ["0", "1", "2"]
    key = words(re.search(r'<ul class="chart-key".*?</ul>', chart, re.S).group(0))
    assert all(f"{name}:" in key for name in names)
    assert "others' average" in chart
    # from 7 tricks left: the double-dummy figures, said of the player alone
    late = next(i for i, s in enumerate(steps) if s["double_dummy"])
    assert steps[late]["index"] == (17 - DD_TRICKS) * 3
    page = client.get(f"/g/{code}/analysis?hand=1&step={late}").get_data(as_text=True)
    assert "as if all three hands were face up and everyone played perfectly from here, every other player" in page
    assert "the most points" in page and "team" not in words(re.search(r'<p class="dd-caption">.*?</p>', page,
                                                                        re.S).group(0))
    dd = re.search(r'<table class="dd-table">.*?</table>', page, re.S).group(0)
    assert set(re.findall(r'<td data-card="(\w\w)"', dd)) == set(steps[late]["double_dummy"])
    # the trick so far drawn by the seats that played it, and the tricks won counted by its trumps
    mid = client.get(f"/g/{code}/analysis?hand=1&step={3 + 3 * 5 + 1}").get_data(as_text=True)
    slots = re.findall(r'<div class="rt-slot rt-(\w+)" data-seat="(\d)"', mid)
    assert len(slots) == 1 and dict((("0", "bottom"), ("1", "left"), ("2", "right")))[slots[0][1]] == slots[0][0]
    won = sum(int(t) for t in re.findall(r'<span class="taken">(\d+)</span>', mid))
    assert won == 5


def test_the_analysis_page_of_a_jjdd_match(app, client, service):
    code, steps = analysed(app, client, service, JJDD)
    assert len(steps) == 4 + 52
    record = client.get(f"/g/{code}/record.json").get_json()
    deal = record["hands"][0]["deal"]
    first = client.get(f"/g/{code}/analysis?hand=1&step=0").get_data(as_text=True)
    felt = re.search(r'<section class="replay-felt".*?</section>', first, re.S).group(0)
    assert 'aria-label="The four hands, face up"' in felt
    assert re.findall(r'class="seat seat-(\w+) team-(\d)', felt) == [("bottom", "0"), ("left", "1"), ("top", "0"),
                                                                     ("right", "1")]
    # each seat's cards as at the table: the trumps first (big joker, little joker, 2♦, 2♠, A♠ ...)
    trumps = ["BJ", "LJ", "2D", "2S"] + [r + "S" for r in "AKQJT9876543"]
    for seat, cards in enumerate(deal):
        held = re.search(rf'<div class="seat [^"]*" data-seat="{seat}">.*?</div>\s*</div>', felt, re.S).group(0)
        shown = re.findall(r'data-card="(\w\w)"', held)
        assert sorted(shown) == sorted(cards)
        mine = [c for c in trumps if c in cards]
        assert shown[:len(mine)] == mine
    # a joker named as at the table in the list of steps
    joker = next(i for i, s in enumerate(steps) if s["action"] in ("BJ", "LJ"))
    page = client.get(f"/g/{code}/analysis?hand=1&step={joker}").get_data(as_text=True)
    listed = re.search(r'<ol class="step-list".*?</ol>', page, re.S).group(0)
    name = {"BJ": "big joker", "LJ": "little joker"}[steps[joker]["action"]]
    assert f'<span class="card-name" data-card="{steps[joker]["action"]}">{name}</span>' in listed
    # partners: the chart is the viewer's team's difference, the figures the team's
    assert "expected score difference through hand 1" in page
    late = next(i for i, s in enumerate(steps) if s["double_dummy"])
    assert steps[late]["index"] == (13 - DD_TRICKS) * 4
    page = client.get(f"/g/{code}/analysis?hand=1&step={late}").get_data(as_text=True)
    assert "as if all four hands were face up" in page and "score difference for" in page
