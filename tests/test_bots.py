"""The computer players: only legal actions at every level, determinism, and the club
player's habits of the Normal bot (scenarios built as seat views, which is all a bot sees)."""

from __future__ import annotations

import math
import random
import time

import pytest
from helpers.bots import heuristic, view

from spades.bots import bidmodel, choose, deals, hint, knowledge, search
from spades.cards import Card, mask_of
from spades.rules import HAND_OVER, Match, Rules, legal_mask, parse_action
from spades.views import seat_view

TINY = 0.003  # Hard's budget in tests: enough to exercise the search, quick to run


def play_hands(levels: list[str], rules: Rules, seed: int, hands: int, scores: list[int] | None = None) -> Match:
    """Play ``hands`` hands with the bots of ``levels`` (by seat); every answer must be listed as legal."""
    match = Match(rules, seed=seed)
    if scores is not None:
        match.scores = list(scores)  # a match situation (e.g. far behind) without playing it out
    while not match.finished:
        if match.phase == HAND_OVER:
            if match.hand_number >= hands:
                break
            match.next_hand()
            continue
        seat = match.to_act
        view = seat_view(match, seat)
        action = choose(view, levels[seat], seed, TINY)
        assert action in view["legal"], (levels[seat], action, view["legal"])
        match.apply(seat, parse_action(action))
    return match


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rules", [
    Rules(),
    Rules(blind_nil=True),
    Rules(mode="no_bidding"),
    Rules(set_scores_zero=True, bag_penalty=False),
    Rules(end="hands", hands=2, blind_nil=True, set_scores_zero=True, target=200),
], ids=["default", "blind_nil", "no_bidding", "variants", "last_hand"])
def test_every_level_answers_only_legal_actions(seed: int, rules: Rules) -> None:
    levels = [["random", "easy", "normal", "hard"], ["hard", "normal", "easy", "normal"]][seed % 2]
    match = play_hands(levels, rules, seed, hands=2)
    assert match.phase in (HAND_OVER, "match_over")
    assert sum(match.taken) == 13


@pytest.mark.parametrize("seed", range(4))
def test_blind_nil_tables_far_behind(seed: int) -> None:
    """Far behind at a blind-nil table the bots bid blind nil before looking, and stay legal."""
    match = play_hands(["normal", "hard", "normal", "hard"], Rules(blind_nil=True), seed, hands=2,
                       scores=[-250, -250])
    assert sum(match.taken) == 13


def test_blind_nil_is_decided_before_looking() -> None:
    m = Match(Rules(blind_nil=True), seed=3)
    m.scores = [0, 300]
    seat = m.to_act
    view = seat_view(m, seat)
    assert view["hand"] is None and view["legal"] == ["blind_nil", "look"]
    team = seat & 1
    m.scores = [0, 0]
    m.scores[1 - team] = 300  # far behind
    assert choose(seat_view(m, seat), "normal", 1) == "blind_nil"
    m.scores = [0, 0]
    assert choose(seat_view(m, seat), "normal", 1) == "look"
    assert choose(seat_view(m, seat), "hard", 1, TINY) == "look"


@pytest.mark.parametrize("level", ["random", "easy", "normal"])
def test_same_view_and_seed_same_action(level: str) -> None:
    m = Match(Rules(), seed=11)
    for _ in range(9):  # into the play
        view = seat_view(m, m.to_act)
        m.apply(m.to_act, parse_action(choose(view, "normal", 0)))
    view = seat_view(m, m.to_act)
    assert len({str(choose(view, level, 5)) for _ in range(3)}) == 1


def test_hard_search_is_deterministic_for_a_seed() -> None:
    """Hard counts its work in card plays, so without a deadline the same seed gives the same card."""
    import random

    m = Match(Rules(), seed=12)
    for _ in range(6):
        view = seat_view(m, m.to_act)
        m.apply(m.to_act, parse_action(choose(view, "normal", 0)))
    known = knowledge.read(seat_view(m, m.to_act))
    picks = {search.choose_card(known, random.Random(4), 0.01, math.inf) for _ in range(2)}
    assert len(picks) == 1


def test_hard_deals_keep_the_voids_and_the_counts() -> None:
    """Every deal of Hard's sampler gives each other seat its number of cards, none in a
    suit it showed out of, and only cards the seat cannot see."""
    import random

    tricks = [(0, "AC 2C 3C 4H"), (0, "6D KD 5D 7D")]  # seat 3 showed out of clubs
    v = view(0, "KH 5H 2H 8C 9C 9D TD 2S 3S 4S 5S", [3, 3, 3, 3], tricks=tricks, dealer=3)
    v["trick"] = None
    known = knowledge.read(v)
    counts = [known.held_count(s) for s in range(4)]
    unseen = ((1 << 52) - 1) & ~known.gone & ~known.hand
    sampler = deals.Sampler(0, counts, unseen, known.voids)
    assert not sampler.free
    rng = random.Random(2)
    for _ in range(50):
        hands = sampler.deal(rng)
        assert hands[0] == 0 and [h.bit_count() for h in hands[1:]] == counts[1:]
        assert hands[1] | hands[2] | hands[3] == unseen
        assert not hands[3] & (((1 << 13) - 1) << 39)  # no club for the seat void in clubs


def test_hard_deals_without_inferences_are_even() -> None:
    """With nothing known of the hidden cards, each lands with each seat in proportion to
    the cards the seat holds, and every deal differs."""
    import random

    counts = [0, 6, 4, 2]
    unseen = (1 << 12) - 1
    sampler = deals.Sampler(0, counts, unseen, [0, 0, 0, 0])
    assert sampler.free
    rng = random.Random(3)
    held = [[0] * 4 for _ in range(12)]
    seen = set()
    for _ in range(6000):
        hands = sampler.deal(rng)
        assert [h.bit_count() for h in hands] == counts and hands[1] | hands[2] | hands[3] == unseen
        seen.add(tuple(hands))
        for c in range(12):
            for s in (1, 2, 3):
                held[c][s] += hands[s] >> c & 1
    for c in range(12):
        for s in (1, 2, 3):
            assert held[c][s] / 6000 == pytest.approx(counts[s] / 12, abs=0.03)
    assert len(seen) > 4600  # of 13,860 equally likely deals, 4,865 differ on average


def test_hard_weighs_deals_by_the_bids() -> None:
    """A seat that bid 6 more likely holds strong cards than weak ones; a nil bidder weak ones."""
    v = view(0, "KH 5H 2H 8C 9C 9D TD 2S 3S 4S 5S 6C 7C", [None, 6, None, "nil"], dealer=0)
    known = knowledge.read(v)
    strong = mask_of(Card.parse(t) for t in ["AS", "KS", "QS", "JS", "9S", "AH", "KH", "AD", "KD", "AC",
                                             "3H", "4H", "5D"])
    weak = mask_of(Card.parse(t) for t in ["2C", "3C", "4C", "5C", "6D", "7D", "8D", "2H", "3H", "4H",
                                           "6H", "7H", "8H"])
    with_strong = [0, strong, 0, weak]
    with_weak = [0, weak, 0, strong]
    assert deals.bid_weight(known, with_strong) > 100 * deals.bid_weight(known, with_weak)


def test_hard_keeps_the_heuristic_choice_unless_the_samples_clearly_say_otherwise() -> None:
    """With few samples, a candidate replaces the heuristic's choice only with a lead larger
    than the noise; with many, the best mean wins."""
    import random

    rng = random.Random(1)
    noisy = search.Tally([10, 20])
    for i in range(16):
        common = rng.gauss(0, 50)  # the deal's luck, the same for both cards
        noisy.add(1.0, {10: common, 20: common + (45 if i % 2 else -35)})
    assert noisy.mean(20) > noisy.mean(10)  # the samples lean to 20...
    assert noisy.pick(10, 0.5) == 10  # ...but 5 points on 16 samples of spread 40 is noise

    clear = search.Tally([10, 20, 30])
    for _ in range(16):
        common = rng.gauss(0, 50)
        clear.add(1.0, {10: common + rng.gauss(0, 2), 20: common + 30 + rng.gauss(0, 2), 30: common})
    assert clear.pick(10, 0.5) == 20
    for i in range(16, search.FEW_SAMPLES):
        common = rng.gauss(0, 50)
        noisy.add(1.0, {10: common, 20: common + (45 if i % 2 else -35)})
    assert noisy.pick(10, 0.5) == 20  # enough samples: the better mean


def test_choose_refuses_when_not_its_turn() -> None:
    m = Match(Rules(), seed=1)
    other = (m.to_act + 1) % 4
    with pytest.raises(ValueError):
        choose(seat_view(m, other), "normal", 0)


# -- scenarios, as seat views ------------------------------------------------------------


def test_cover_partner_nil_overtakes_the_partner() -> None:
    # seat 2 (partner) bid nil and is winning with KH; seat 0 plays last and holds the ace
    v = view(0, "AH 3H 4D 5D 6D 7C 8C 9C 2S 3S 4S 5S 6S", [4, 3, "nil", 3],
             trick=(1, "5H KH 2H"), dealer=0)
    assert choose(v, "normal", 0) == "AH"


def test_cover_partner_nil_plays_high_before_the_partner() -> None:
    # seat 0 plays second, the nil partner (seat 2) plays after: go high so the partner can duck
    v = view(0, "AH QH 3H 4D 5D 6D 7C 8C 9C 2S 3S 4S 5S", [4, 3, "nil", 3], trick=(3, "5H"), dealer=2)
    assert choose(v, "normal", 0) == "AH"


def test_bust_opponent_nil_stays_under_the_nil_card() -> None:
    # seat 1 bid nil and is winning with 9C; seat 2 plays last: stay under with the 8
    v = view(2, "QC 8C 2C 4D 5D 6D 7D 8H 9H TH 2S 3S 4S", [3, "nil", 3, 4], trick=(3, "4C 5C 9C"), dealer=2)
    assert choose(v, "normal", 0) == "8C"


def test_bust_opponent_nil_leads_low() -> None:
    # the heuristics lead low; the search weighs the leads against the sampled deals, where
    # the two and the eight of diamonds and the jack of clubs come out close (Hard's too)
    v = view(0, "AH KH 2D 8D 9D JC QC KC 2S 3S 9S TS JS", [3, "nil", 3, 4], dealer=3)
    card = heuristic(v)
    assert Card.parse(card).rank <= 2 and card != "2S"


def test_duck_once_the_contract_is_made() -> None:
    # team 0 (bids 2 + 2) has its 4 tricks; the opponents need 4 of the 9 left: no set in reach
    tricks = [(0, "AC 2C 3C 4C"), (0, "KC 5C 6C 7C"), (0, "AD 2D 3D 4D"), (0, "KD 5D 6D 7D")]
    v = view(0, "KH 5H 2H 8C 9C 8D 9D 2S 3S", [2, 2, 2, 2], tricks=tricks, trick=(3, "7H"), dealer=2)
    assert choose(v, "normal", 0) == "5H"


def test_duck_throws_a_high_card_rather_than_trump() -> None:
    tricks = [(0, "AC 2C 3C 4C"), (0, "KC 5C 6C 7C"), (0, "AD 2D 3D 4D"), (0, "KD 5D 6D 7D")]
    v = view(0, "QC JC 9C 8D 9D TD 2S 3S 4S", [2, 2, 2, 2], tricks=tricks, trick=(3, "7H"), dealer=2)
    card = choose(v, "normal", 0)
    assert card in ("QC", "TD")


def test_do_not_trump_partner_sure_winner() -> None:
    # partner (seat 2) leads the boss AH; seat 0, void in hearts, must not trump it
    v = view(0, "2D 5D 9D KD 3C 6C 8C 2S 5S 7S 9S JS QS", [4, 3, 4, 2], trick=(2, "AH 4H"), dealer=1)
    card = choose(v, "normal", 0)
    assert not card.endswith("S")


def test_do_not_overtake_partner_boss_when_last() -> None:
    v = view(0, "KH 3H 9D KD 3C 6C 8C 2S 5S 7S 9S JS QS", [4, 3, 4, 2], trick=(1, "4H AH 2H"), dealer=0)
    assert choose(v, "normal", 0) == "3H"


def test_lead_a_boss_card() -> None:
    v = view(0, "AH 4H 3H 5D 6D 7D 8C 9C TC 2S 3S 4S 5S", [4, 3, 4, 2], dealer=3)
    assert choose(v, "normal", 0) == "AH"


WEAK = "2H 3H 4H 5H 2D 3D 4D 6D 2C 3C 4C 5C 2S"


def test_weak_cards_bid_nil() -> None:
    v = view(0, WEAK, [None, None, 3, None], dealer=1)
    v["trick"] = None
    v["legal"] = list(range(1, 14)) + ["nil"]
    assert choose(v, "normal", 0) == "nil"


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_no_nil_after_partner_nil(level: str) -> None:
    v = view(0, WEAK, [None, None, "nil", 3], dealer=1)
    v["trick"] = None
    v["legal"] = list(range(1, 14)) + ["nil"]
    bid = choose(v, level, 0, TINY)
    assert isinstance(bid, int) and bid >= 1


def test_partner_nil_leaves_the_contract_to_this_hand() -> None:
    """After a partner's nil the contract is this hand's alone: at least the number it bids
    first for its team (the nil bidder's tricks will be few, so more are left for it), and
    more than it adds to a partner's bid of 3."""
    hand = "AS KS 4S 3S AH 5H 3H KD 4D 2D 3C 5C 7C"
    first = view(0, hand, [None, None, None, 3], dealer=2)
    after_nil = view(0, hand, [None, None, "nil", 3], dealer=1)
    after_three = view(0, hand, [None, None, 3, 3], dealer=1)
    for v in (first, after_nil, after_three):
        v["trick"] = None
        v["legal"] = list(range(1, 14)) + ["nil"]
    alone = choose(after_nil, "normal", 0)
    assert alone >= choose(first, "normal", 0)
    assert alone > choose(after_three, "normal", 0)


def test_hint_is_a_bid_for_the_seat_to_bid() -> None:
    m = Match(Rules(blind_nil=True), seed=5)
    seat = m.to_act
    m.apply(seat, parse_action("look"))
    v = seat_view(m, seat)
    bid = hint(v)
    assert bid == "nil" or (isinstance(bid, int) and 1 <= bid <= 13)
    assert bid in v["legal"]


@pytest.mark.parametrize("seed", range(12))
def test_the_hint_is_the_models_bid_and_hard_bids_it_but_where_it_weighs_a_nil(seed) -> None:
    """The hint is the bid model's bid, Normal's; Hard bids it too, for the first bidder
    and for those after it, except where a nil has a chance: then Hard bids the model's
    number or nil, whichever its play-outs find worth more."""
    m = Match(Rules(), seed=seed)
    for _ in range(seed % 4):  # some bids before this one
        v = seat_view(m, m.to_act)
        m.apply(m.to_act, parse_action(str(choose(v, "normal", seed))))
    v = seat_view(m, m.to_act)
    known = knowledge.read(v)
    assert hint(v) == choose(v, "normal", seed)
    hard = choose(v, "hard", seed, TINY)
    chance = bidmodel.model().nil_chance(known.hand, known.leader == known.seat)
    if known.bids[known.seat ^ 2] == 0 or (hint(v) != "nil" and chance < search.NIL_FLOOR):
        assert hard == hint(v)
    else:
        number = bidmodel.choose_bid(known.hand, known.situation(), allow_nil=False)
        assert hard in ("nil", number)


def test_easy_bids_and_plays_like_a_person() -> None:
    """Easy keeps to legal moves and is different from Normal now and then (its slips)."""
    diffs = 0
    for seed in range(30):
        m = Match(Rules(), seed=seed)
        v = seat_view(m, m.to_act)
        diffs += choose(v, "easy", seed) != choose(v, "normal", seed)
    assert 0 < diffs < 30


def test_choose_runs_in_a_worker_process() -> None:
    """The site runs bots in a process pool: the entry point and its values must pickle."""
    from concurrent.futures import ProcessPoolExecutor

    m = Match(Rules(), seed=8)
    v = seat_view(m, m.to_act)
    with ProcessPoolExecutor(max_workers=1) as pool:
        bid = pool.submit(choose, v, "hard", 3, TINY).result(timeout=60)
        assert bid in v["legal"]
        assert pool.submit(hint, v).result(timeout=60) in v["legal"]


SCORE_TRICKS = [(0, "AC 2C 3C 4C"), (0, "KC 5C 6C 7C"), (0, "AD 5D 6D 7D"), (0, "2D 8D 3D 4D")]
SCORE_HAND = "KH 5H 2H 8C 9C 9D TD 2S 3S"


@pytest.mark.parametrize("opponent_bids, bags, expected", [
    ((2, 2), (0, 0), "5H"),  # contract made (3 of 3), the opponents need 3 of 9: duck
    ((5, 4), (0, 0), "KH"),  # they need 8 of the 9 left: the set is within reach, take it
    ((5, 4), (9, 0), "5H"),  # ... but not at the price of the tenth bag
])
def test_reads_the_score(opponent_bids: tuple[int, int], bags: tuple[int, int], expected: str) -> None:
    bids = [2, opponent_bids[0], 1, opponent_bids[1]]
    v = view(0, SCORE_HAND, bids, tricks=SCORE_TRICKS, trick=(1, "7H 8H 9H"), dealer=3, bags=bags)
    assert choose(v, "normal", 0) == expected


def test_a_card_on_the_trick_keeps_the_cards_around_it_apart_in_hards_search():
    """Holding K and J of hearts with the queen played to this trick, the king wins the
    trick and the jack does not: Hard weighs both, not one for the two."""
    from spades.bots.search import _candidates, apart

    hand = ["KH", "JH", "4H", "2C", "3C", "5D", "6D", "7D", "8D", "9D", "TD", "2S", "3S"]
    known = knowledge.read({"seat": 1, "dealer": 3, "hand": hand, "bids": [3, 3, 3, 3], "tricks": [],
                            "trick": {"leader": 0, "cards": ["QH"]}, "legal": ["KH", "JH", "4H"]})
    legal = legal_mask(known.hand, known.trick, known.broken)
    shown = {str(Card(c)) for c in _candidates(legal, apart(known, known.hand))}
    assert {"KH", "JH"} <= shown  # the queen between them is on the trick, not gone for this trick's sake


def _to_bid(seed: int, seat: int) -> dict:
    """The view of ``seat`` at its bid in the first hand of ``Match(Rules(), seed)``, the
    seats before it having bid as Normal does."""
    m = Match(Rules(), seed=seed)
    while m.to_act != seat:
        v = seat_view(m, m.to_act)
        m.apply(m.to_act, parse_action(str(choose(v, "normal", seed))))
    return seat_view(m, seat)


def hard_bid(v: dict, seed: int, budget_s: float) -> int:
    """Hard's bid (0 for nil) after the play-outs of ``budget_s`` of work, with no clock to
    stop them sooner: a busy machine sees the same search as an idle one."""
    return search.choose_bid(knowledge.read(v), random.Random(seed), budget_s, time.monotonic() + 600)


def test_hard_bids_nil_beside_a_partners_four_where_the_model_bids_one() -> None:
    """K♥ the only high card outside spades, 9♠ 2♠, and the partner has bid 4: the model
    counts a trick and bids 1 (its nil's chance 0.55); Hard's play-outs find the nil worth
    some 19 points more, the partner's four tricks covering it."""
    v = _to_bid(25, 2)
    assert v["bids"][:2] == [4, 3] and hint(v) == 1
    assert hard_bid(v, 25, 0.1) == 0


def test_hard_bids_its_number_where_the_models_nil_is_weak() -> None:
    """First to bid, with ♣A, ♥K and 9♠ 4♠ 2♠, the model bids nil (a chance of 0.67);
    Hard's play-outs, in which the other team attacks the nil, find 2 worth some 17
    points more."""
    v = _to_bid(26, 2)
    assert v["bids"] == [None, None, None, None] and hint(v) == "nil"
    assert hard_bid(v, 26, 0.1) == 2
