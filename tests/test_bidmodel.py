"""The calibrated bid model: the shipped file loads and has its generator's shape, and the
bids it makes read the hand, the partner, the score and the rules."""

from __future__ import annotations

import json
import random

import pytest

from spades.bots import bidmodel, calibrate
from spades.bots.bidmodel import Situation
from spades.cards import Card, mask_of
from spades.rules_config import Rules


def cards(text: str) -> int:
    return mask_of(Card.parse(t) for t in text.split())


def shape(value: object) -> object:
    """The nesting and lengths of a JSON value (lists by length, numbers as their type)."""
    if isinstance(value, list):
        return [len(value), shape(value[0]) if value else None]
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    return type(value).__name__ if not isinstance(value, int) or isinstance(value, bool) else "number"


@pytest.fixture(scope="module")
def tiny() -> dict:
    """A model fitted by the generator's own code on a few hundred hands."""
    return calibrate.rounded(calibrate.build(300, seed=7))


def test_the_model_reads_its_features_by_suit_as_a_whole_hand() -> None:
    """The predicted tricks and a nil's chance, worked out from per-suit tables, are the
    coefficients times the hand's features, for any 13 cards (and again after the
    coefficients are replaced, as the calibration does)."""
    import math
    import random

    m = bidmodel.load()
    rng = random.Random(11)
    for _coefficients in range(2):
        for _ in range(2000):
            hand = mask_of(rng.sample(range(52), 13))
            leads = rng.random() < 0.5
            feats = bidmodel.trick_features(hand)
            assert m.mean(hand) == pytest.approx(m.coef[0] + sum(c * f for c, f in zip(m.coef[1:], feats)), abs=1e-9)
            x = m.nil_coef[0] + sum(c * f for c, f in zip(m.nil_coef[1:], bidmodel.nil_features(hand, leads)))
            assert m.nil_chance(hand, leads) == pytest.approx(1 / (1 + math.exp(-x)), abs=1e-9)
        m.coef = [c * 1.1 for c in m.coef]
        m.nil_coef = [c * 0.9 for c in m.nil_coef]


def test_the_shipped_model_loads_with_this_schema() -> None:
    m = bidmodel.load()
    assert m.hands >= 100_000
    assert len(m.coef) == len(bidmodel.TRICK_FEATURES) + 1
    for row in m.prior, *m.by_bid, *(r for t in m.tables for r in t):
        assert len(row) == 14 and sum(row) == pytest.approx(1, abs=1e-3)
    assert 0 < m.blind_nil < 1 and 0 < m.duck <= 1


def test_the_generator_makes_the_shipped_shape(tiny: dict) -> None:
    shipped = json.loads(bidmodel.PATH.read_text())
    assert set(tiny) == set(shipped)
    assert {k: shape(v) for k, v in tiny.items() if k != "hands"} == \
        {k: shape(v) for k, v in shipped.items() if k != "hands"}
    assert tiny["schema"] == shipped["schema"] == bidmodel.SCHEMA
    assert bidmodel.BidModel.from_json(tiny).hands == 300


def test_against_attackers_the_nils_are_measured_anew_and_the_shape_holds(tiny: dict) -> None:
    """Fitted with ``punisher`` as the nil bidder's and the contracts' opponents, the same
    deals give a model of the shipped shape with the same trick tables (tricks played to
    win do not depend on it) and other nil chances. (Which way they move is not pinned:
    Normal now attacks a nil about as hard as ``punisher``, and 300 deals cannot tell.)"""
    attacked = calibrate.rounded(calibrate.build(300, seed=7, against="punisher"))
    assert {k: shape(v) for k, v in attacked.items()} == {k: shape(v) for k, v in tiny.items()}
    assert attacked["tables"] == tiny["tables"]
    assert attacked["nil_coef"] != tiny["nil_coef"]


def test_a_model_of_another_schema_is_refused(tiny: dict) -> None:
    with pytest.raises(ValueError):
        bidmodel.BidModel.from_json({**tiny, "schema": bidmodel.SCHEMA + 1})
    with pytest.raises(ValueError):
        bidmodel.BidModel.from_json({**tiny, "trick_features": tiny["trick_features"][:-1]})


def test_the_command_writes_a_model_that_loads(tmp_path) -> None:
    out = tmp_path / "m.json"
    assert calibrate.main(["--hands", "120", "--out", str(out), "--seed", "3"]) == 0
    assert bidmodel.load(out).hands == 120


STRONG = "AS KS QS 5S 4S AH KH 3H AD 4D 2D 3C 5C"
MIDDLE = "AS 7S 4S AH 9H 5H 3H QD 8D 6D 4D 2D 9C"
WEAK = "2H 3H 4H 5H 2D 3D 4D 6D 2C 3C 4C 5C 2S"
MIDDLING_NIL = "2S 3S 5S 4H 5H JH QH 5D 9D TD JD 2C JC"  # the model puts its nil at 0.68


def first(seat: int = 0, **kw) -> Situation:
    """The team's first bid: nobody has bid, no score."""
    args = dict(bids=[None] * 4, rules=Rules(), scores=[0, 0], bags=[0, 0], dealer=(seat + 2) % 4)
    args.update(kw)
    return Situation(seat, **args)


def test_more_tricks_more_bid() -> None:
    m = bidmodel.model()
    assert m.mean(cards(STRONG)) > m.mean(cards(MIDDLE)) > m.mean(cards(WEAK))
    strong, middle = (bidmodel.choose_bid(cards(h), first()) for h in (STRONG, MIDDLE))
    assert strong > middle >= 1
    assert bidmodel.choose_bid(cards(WEAK), first()) == 0  # a nil
    assert m.nil_chance(cards(WEAK)) > 0.6 > m.nil_chance(cards(MIDDLE))


def test_the_partner_bid_adds_up() -> None:
    """The second bidder bids the team's contract less the partner's bid: a bid of 4 from
    the partner leaves less to add than a bid of 1."""
    hand = cards(MIDDLE)
    after_one = bidmodel.choose_bid(hand, first(bids=[None, None, 1, None]))
    after_four = bidmodel.choose_bid(hand, first(bids=[None, None, 4, None]))
    assert 1 <= after_four <= after_one


def test_high_bids_around_the_table_cost_tricks() -> None:
    hand = cards(STRONG)
    quiet = bidmodel.choose_bid(hand, first(bids=[None, 2, None, 2]))
    crowded = bidmodel.choose_bid(hand, first(bids=[None, 6, None, 6]))
    assert crowded < quiet


def test_a_set_that_scores_zero_makes_bids_bolder() -> None:
    for h in (STRONG, MIDDLE):
        plain = bidmodel.choose_bid(cards(h), first())
        bold = bidmodel.choose_bid(cards(h), first(rules=Rules(set_scores_zero=True)))
        assert bold >= plain
    assert sum(bidmodel.choose_bid(cards(h), first(rules=Rules(set_scores_zero=True))) for h in (STRONG, MIDDLE)) > \
        sum(bidmodel.choose_bid(cards(h), first()) for h in (STRONG, MIDDLE))


def test_a_team_behind_at_the_end_bids_its_tricks_not_a_hopeless_nil() -> None:
    """With the opponents at 480 of 500, the first bidder of a team at 300 holding the ace
    and queen of spades, the ace of hearts and the king of clubs bids the tricks it bids
    mid-match: a nil would almost surely fail (a match bonus once made every number look
    300 points worse, and this nil better than any of them)."""
    hand = cards("QS AS 5H 8H JH QH AH 4D 9D QD 7C JC KC")
    assert bidmodel.model().nil_chance(hand) < 0.05
    kw = dict(bids=[3, None, None, None], dealer=0, bags=[2, 3])
    mid_match = bidmodel.choose_bid(hand, first(1, scores=[130, 50], **kw))
    at_the_end = bidmodel.choose_bid(hand, first(1, scores=[480, 300], **kw))
    assert at_the_end == mid_match == 3


def test_a_team_ahead_bids_no_higher_and_some_hands_a_trick_lower() -> None:
    """A set costs a team ahead more than a trick more gains it: 150 points up, a hand bids
    no more than level, some hands a trick less; behind, the same as level."""
    rng = random.Random(5)
    level, ahead, behind = [], [], []
    for _ in range(60):
        deck = list(range(52))
        rng.shuffle(deck)
        hand = sum(1 << c for c in deck[:13])
        level.append(bidmodel.choose_bid(hand, first(scores=[100, 100])))
        ahead.append(bidmodel.choose_bid(hand, first(scores=[250, 100])))
        behind.append(bidmodel.choose_bid(hand, first(scores=[100, 250])))
    assert behind == level
    assert all(a <= b for a, b in zip(ahead, level))
    assert sum(a < b for a, b in zip(ahead, level)) >= 5


def test_a_nil_needs_a_partner_who_can_cover_it() -> None:
    """A nil's chance at the table rises with the partner's bid: with three low spades,
    three jacks and a queen, the second bidder of a team bids nil beside a partner's 6 but
    a trick beside a partner's 2 (by the model's chance alone, 0.68, a nil beside either)."""
    hand = cards(MIDDLING_NIL)
    assert bidmodel.model().nil_chance(hand) == pytest.approx(0.68, abs=0.01)
    assert bidmodel.choose_bid(hand, first(bids=[None, None, 6, None])) == 0
    assert bidmodel.choose_bid(hand, first(bids=[None, None, 2, None])) == 1


def test_the_table_spreads_the_models_nil_chances_and_reads_the_bids_before() -> None:
    """At the table a middling nil is less likely than the model says and a sure one surer;
    an opponent's nil before ours makes ours likelier (its side plays to keep its own)."""
    m = bidmodel.model()
    middling = cards(MIDDLING_NIL)
    sure = cards(WEAK)
    assert bidmodel.table_nil_chance(middling, first()) < m.nil_chance(middling) - 0.03
    assert m.nil_chance(sure) > 0.85 and bidmodel.table_nil_chance(sure, first()) > m.nil_chance(sure)
    beside = first(1, bids=[0, None, None, None], dealer=3)
    assert bidmodel.table_nil_chance(middling, beside) > bidmodel.table_nil_chance(middling, first(1, dealer=3)) + 0.1


def test_blind_nil_only_far_behind() -> None:
    sit = first(rules=Rules(blind_nil=True))
    assert not bidmodel.wants_blind_nil(sit)
    sit.scores = [0, 300]
    assert bidmodel.wants_blind_nil(sit)
    sit.bids = [None, None, 0, None]  # after the partner's nil: never
    assert not bidmodel.wants_blind_nil(sit)


def test_distribution_helpers() -> None:
    d = [0.0] * 14
    d[3] = 1.0
    assert bidmodel.shift(d, 1.5)[4] == pytest.approx(0.5) and bidmodel.shift(d, 1.5)[5] == pytest.approx(0.5)
    two = bidmodel.convolve(d, d)
    assert two[6] == pytest.approx(1.0)
    assert bidmodel.shift(d, -5)[0] == pytest.approx(1.0)  # never below no trick
