"""Hard's search reads the play and solves the hand's end: the cards a seat is shown to
lack (and the deals that respect them), and exact play from ``search.EXACT_TRICKS`` tricks
left, checked against brute force on hand-built endings."""

from __future__ import annotations

import random

import pytest
from helpers.bots import view
from helpers.solver import brute

from spades.bots import deals, knowledge, policy, search
from spades.bots.solver import Position
from spades.cards import Card, mask_of
from spades.rules import Rules


def cards(text: str) -> int:
    return mask_of(Card.parse(t) for t in text.split())


# -- what the play shows ---------------------------------------------------------------------

def test_a_nil_bidder_under_the_winner_lacks_the_cards_between() -> None:
    """The nil bidder (seat 1) played the five under the king: it held no heart from the six
    to the queen (it would have thrown the highest that loses), but may hold the ace or the four."""
    v = view(0, "AC 2C 3C 4C 5C 6D 7D 8D 9D TD JD 2S", [3, "nil", 3, 4], tricks=[(0, "KH 5H 2H 3H")])
    known = knowledge.read(v)
    assert known.lacks[1] & cards("6H 7H 8H 9H TH JH QH") == cards("6H 7H 8H 9H TH JH QH")
    assert not known.lacks[1] & cards("AH 4H")
    assert known.lacks[0] == known.lacks[2] == known.lacks[3] == 0  # the others' plays say nothing


def test_a_nil_bidder_over_the_winner_had_nothing_under_it() -> None:
    v = view(0, "AC 2C 3C 4C 5C 6D 7D 8D 9D TD JD 2S", [3, "nil", 3, 4], tricks=[(0, "6H 9H 2H 3H")])
    known = knowledge.read(v)
    assert known.lacks[1] & cards("4H 5H") == cards("4H 5H")  # it could have ducked with these
    assert not known.lacks[1] & cards("TH AH")


def test_the_last_seat_that_needs_tricks_could_not_beat_the_winner() -> None:
    """Seat 3, last to play, followed under seat 0's nine with its contract to make: it had
    no diamond above the nine; void, it threw a heart rather than ruff: no spade left."""
    v = view(0, "AC 2C 3C 4C 5C 6H 7H 8H 2S 3S 4S", [3, 3, 3, 3], tricks=[(0, "9D 2D 4D 3D"), (0, "8D 5D 6D 5H")])
    known = knowledge.read(v)
    assert known.lacks[3] & cards("TD JD QD KD AD") == cards("TD JD QD KD AD")
    assert known.voids[3] & 1  # spades
    # a team whose contract is made may duck on purpose: nothing is read then
    made = [(1, "KH 9C 2H 3H"), (1, "QH TC 4H 5H"), (0, "9D 2D 4D 3D")]  # seats 1 and 3 bid 1 each
    v = view(0, "AC 2C 3C 4C 5C 6H 7H 8H 2S 3S", [3, 1, 3, 1], tricks=made)
    assert not knowledge.read(v).lacks[3] & cards("TD JD QD KD AD")


def test_hards_deals_give_no_seat_a_card_it_is_shown_to_lack() -> None:
    v = view(0, "AC 2C 3C 4C 5C 6D 7D 8D 9D TD JD 2S", [3, "nil", 3, 4], tricks=[(0, "KH 5H 2H 3H")])
    known = knowledge.read(v)
    counts = [known.held_count(s) for s in range(4)]
    unseen = ((1 << 52) - 1) & ~known.gone & ~(known.hand or 0)
    sampler = deals.Sampler(0, counts, unseen, known.voids, known.lacks)
    assert not sampler.free
    rng = random.Random(3)
    for _ in range(50):
        hands = sampler.deal(rng)
        assert [h.bit_count() for h in hands[1:]] == counts[1:] and hands[1] | hands[2] | hands[3] == unseen
        assert not hands[1] & cards("6H 7H 8H 9H TH JH QH")
    # a card the reading leaves nowhere goes where the voids allow
    lacks = [0, unseen, unseen, unseen]
    hands = deals.Sampler(0, counts, unseen, known.voids, lacks).deal(rng)
    assert hands[1] | hands[2] | hands[3] == unseen


def test_a_play_out_with_players_asks_each_seat_and_tells_it_the_voids_shown() -> None:
    from spades.bots.policy import HandCtx
    from spades.rules import legal_mask

    seen: list[tuple[int, list[int]]] = []

    def lowest(ctx, seat, hand, trick, leader, gone, taken, broken, voids):
        seen.append((seat, voids[:]))
        m = legal_mask(hand, trick, broken)
        return (m & -m).bit_length() - 1

    hands = [cards("2H 3H"), cards("4H 2C"), cards("5H 6H"), cards("7H 8H")]
    taken, plays = search.playout(HandCtx(False, [None] * 4), hands, [], 0, 0, [3, 3, 3, 2], False,
                                  (lowest,) * 4)
    assert plays == 8 and sum(taken) == 13
    # seat 1 followed the first heart, then threw its club on the second: void in hearts after
    assert [v[1] for _s, v in seen[:5]] == [0, 0, 0, 0, 0] and seen[-1][1][1] == 1 << 1


def test_the_play_outs_other_team_sets_a_close_contract_that_normals_play_lets_make() -> None:
    """Hard's play-outs give the other team attacking play (``search.ATTACKERS``): seats 0
    and 2 bid 6 and take exactly 6 when every seat plays Normal's cards (Normal's search,
    ``attack`` False), but attacked they are set."""
    hands = ["2S 9S TS 5H 7H 8H 3D 4D 7D TD JD QD 2C", "4S 5S 8S QS AS 2H 6H 2D 7C 8C 9C TC JC",
             "6S 7S JS KS 9H QH KH AH 5D 6D 8D 9D KC", "3S 3H 4H TH JH KD AD 3C 4C 5C 6C QC AC"]
    bids = [2, 4, 4, 2]
    known = knowledge.read(view(0, hands[0], bids))
    deal = [cards(h) for h in hands]
    lead = int(Card.parse("2C"))
    assert policy.play_card(known.ctx(), 0, deal[0], [], 0, 0, [0] * 4, False) == lead
    attacked, _work = search.play_out_after(known, known.ctx(), deal, lead)
    quiet, _plays = search.play_out_after(known, known.ctx(), deal, lead, attack=False)
    assert quiet[0] + quiet[2] == 6
    assert attacked[0] + attacked[2] < 6


# -- exact endings ---------------------------------------------------------------------------

def ending(hands: list[str], trick: str, leader: int, bids: list, taken: list[int], scores=(0, 0),
           bags=(0, 0)) -> tuple[knowledge.Known, list[int]]:
    """Seat 0 to play with ``hands[s]`` left to each seat (``trick`` already played, led by
    ``leader``); each other seat has shown out of every suit it does not hold, so seat 0's
    view pins the deal down and the search's deals are the true one."""
    masks = [cards(h) for h in hands]
    on_trick = [Card.parse(t) for t in trick.split()]
    gone = ((1 << 52) - 1) & ~(masks[0] | masks[1] | masks[2] | masks[3])
    played_by = [0, 0, 0, 0]
    rest = [c for c in range(52) if gone >> c & 1 and c not in [int(x) for x in on_trick]]
    for i, c in enumerate(on_trick):
        played_by[(leader + i) & 3] |= 1 << int(c)
    for s in range(4):
        n = 13 - masks[s].bit_count() - played_by[s].bit_count()
        for c in rest[:n]:
            played_by[s] |= 1 << c
        rest = rest[n:]
    voids = [0] + [sum(1 << u for u in range(4) if not masks[s] >> 13 * u & 0x1FFF) for s in (1, 2, 3)]
    known = knowledge.Known(0, Rules(), 3, masks[0], [knowledge.bid_value(b) for b in bids], [False] * 4,
                            [], [int(c) for c in on_trick], leader, list(taken), True, list(scores), list(bags),
                            gone, played_by, voids, [], 5)
    return known, masks


def exact_values(known: knowledge.Known, masks: list[int]) -> dict[str, int]:
    """Each legal card's match value for seat 0's team by brute force: every card of every
    seat tried to the hand's end, on the measure Hard's search uses."""
    ctx = known.ctx()
    pos = Position(tuple(masks), tuple(known.trick), known.leader, tuple(known.taken), True)  # type: ignore[arg-type]

    debt = search.bag_debt(known)

    def measure(taken):
        return round(search.hand_value(known, ctx, list(taken), 0, False, debt))

    legal = pos.legal()
    memo: dict = {}
    return {str(Card(c)): brute(pos.play(c), known.rules, ctx.bids, ctx.blind, memo, measure)
            for c in range(52) if legal >> c & 1}


def plays(known: knowledge.Known) -> dict[str, str]:
    """The card of today's Normal bot, and of Hard with its exact ending and without it."""
    ctx = known.ctx()
    normal = policy.play_card(ctx, 0, known.hand, known.trick, known.leader, known.gone, known.taken,
                              known.broken, known.voids)
    hard = search.choose_card(known, random.Random(1), 0.5, float("inf"))
    return {"normal": str(Card(normal)), "hard": str(Card(hard))}


def check_ending(known: knowledge.Known, masks: list[int], normal: str, normal_now: str | None = None) -> str:
    """Hard's card is one of brute force's best; ``normal``, the Normal bot's card before
    these endings were solved exactly (Hard's play-outs chose it too), costs at least 90
    points, and is still Normal's card unless ``normal_now`` says what Normal plays now.
    Returns Hard's card."""
    values = exact_values(known, masks)
    chosen = plays(known)
    assert chosen["normal"] == (normal_now or normal)
    assert values[chosen["hard"]] == max(values.values())
    assert values[chosen["hard"]] - values[normal] >= 90
    return chosen["hard"]


# Within 150 points of the target a bag counts by the penalty it brings now, not by its
# share of a later one (``search.bag_debt``): the endings that turn on the tenth bag, or
# that weigh a set or a nil against the bag penalty, are played there.

def test_setting_a_close_contract_ruffs_rather_than_ducks_once_ours_is_made() -> None:
    """Our 3 is made (6 taken), the partner's nil is safe, and Normal ducks the ace of
    hearts under the ten of diamonds. The opponents bid 5 and have 3: ruffing with the king
    and playing on holds them to 4 (set); the bag penalty comes to us either way."""
    known, masks = ending(["KS JH AH 4C", "QD KD AD", "3H 4H 6H", "2C TC AC"], "TD QH 3C", 1,
                          [3, 3, "nil", 2], [6, 2, 0, 1], scores=(140, 360), bags=(7, 2))
    assert check_ending(known, masks, normal="AH") == "KS"


def test_setting_a_close_contract_keeps_the_nine_to_win_a_later_trick() -> None:
    """The opponents bid 8 and have 5 with the queen of hearts winning this trick: they need
    two of the three after it. Throwing the nine (Normal, our 1 long made) lets them have
    them; keeping it under the queen takes one back: set. Normal now counts the set in reach
    (the four of spades is the last trump, a sure trick) and keeps the nine too."""
    known, masks = ending(["4S 3H 5H 9H", "2H 6H JH", "8D TD AD", "TC KC AC"], "QH 4D QC", 1,
                          [1, 3, "nil", 5], [4, 2, 0, 3], scores=(290, 260))
    assert check_ending(known, masks, normal="9H", normal_now="3H") in ("3H", "5H")


def test_bags_against_a_team_near_ten_leave_it_an_eighth_trick() -> None:
    """The opponents bid 7, have 6 and carry 9 bags: an eighth trick is their tenth bag.
    Ruffing the king of hearts low (Normal) wins us three of the four tricks left and
    holds them to exactly 7; the ace of spades, or a club thrown, lets them have the eighth."""
    known, masks = ending(["3S JS AS 7C", "2S 5S 6S KS", "2C 5C 6C TC", "5H 7H 8H"], "KH", 3,
                          [3, 2, 2, 5], [2, 1, 1, 5], scores=(360, 40), bags=(3, 9))
    assert check_ending(known, masks, normal="3S") in ("AS", "7C")


def test_bags_near_ten_win_a_trick_now_rather_than_two_later() -> None:
    """Our 5 is made with 8 bags. Ducking the nine of clubs (Normal) leaves us two more
    tricks later, the tenth bag; winning it now with the queen costs one bag, no penalty."""
    known, masks = ending(["2H AH 3C QC", "4C 6C 7C", "4D 7D TD", "3H 5H JH"], "9C 2D 4H", 1,
                          [4, 4, 1, 2], [2, 4, 3, 0], scores=(360, 120), bags=(8, 1))
    assert check_ending(known, masks, normal="3C") == "QC"


def test_bags_near_ten_do_not_ruff_beside_a_safe_nil() -> None:
    """Our 3 is made with 5 taken and 4 bags before the hand; the partner's nil holds only
    clubs. Ruffing the king of hearts (Normal) takes us to nine tricks, the tenth bag;
    throwing a diamond leaves the opponents two of the tricks: eight bags."""
    known, masks = ending(["4S 3D 7D 9C", "2D 4D 9D JD", "5C TC QC AC", "6H 9H AH"], "KH", 3,
                          [3, 5, "nil", 2], [5, 1, 0, 3], scores=(360, 50), bags=(4, 2))
    assert check_ending(known, masks, normal="4S") in ("3D", "7D")


@pytest.mark.parametrize("scores, expected", [((100, 120), "2H"), ((400, 380), "AH")])
def test_overtricks_are_left_to_opponents_who_made_theirs_while_bags_have_time_to_cost(scores, expected) -> None:
    """Both contracts are made (our 6 with 7 taken, their 4 with 4) and two tricks are
    left. The ace of hearts wins both: two bags for us; the two under the king gives both
    to them. Early in the match each bag is a tenth of a coming 100-point penalty, so the
    bags go to them; within 150 of the target, only the point counts and we take them."""
    known, masks = ending(["AH 2H", "5D", "6D", "7D"], "KH 3H 4H", 1,
                          [3, 2, 3, 2], [4, 2, 3, 2], scores=scores, bags=(2, 2))
    assert search.bag_debt(known) == (search.BAG_DEBT if scores[0] < 350 else 0.0)
    assert plays(known)["hard"] == expected


def test_a_small_budget_solves_exactly_from_fewer_tricks_left() -> None:
    # Hard's 0.5 s and the scheduler's 0.03 s at 64 busy tables, in the Python source's work
    full, loaded = 175_000, 10_500
    assert [left for left in range(1, 14) if search.solves_exactly(left, full)] == [1, 2, 3, 4, 5]
    assert [left for left in range(1, 14) if search.solves_exactly(left, loaded)] == [1, 2, 3]


def test_busting_a_nil_is_worth_more_than_our_own_contract() -> None:
    """Seat 3's nil is alive with the ten of spades and the king of diamonds; our 7 needs 3
    of the 4 tricks left. Normal's jack of diamonds makes our 7 and lets the nil through;
    only the queen of clubs breaks it (the nil bidder takes two tricks), and that is worth
    more than our contract: 57 points."""
    known, masks = ending(["AS JD 2C QC", "4H 5H 7H AH", "3C 5C TC JC", "TS 5D 6D KD"], "", 0,
                          [4, 5, 3, "nil"], [4, 5, 0, 0], scores=(350, 260), bags=(3, 7))
    values = exact_values(known, masks)
    assert values["QC"] - max(v for c, v in values.items() if c != "QC") == 57
    assert plays(known) == {"normal": "JD", "hard": "QC"}


def test_covering_a_nil_keeps_the_spade_that_overtakes_the_partners() -> None:
    """The partner's nil holds the eight of spades and three hearts to the king. Normal
    ruffs the jack of clubs with the ten and the nil bidder takes three tricks; throwing
    the four of hearts keeps the ten over the partner's eight: the nil is made."""
    known, masks = ending(["TS 4H 9H AD", "2D 8D TD QD", "8S 5H TH KH", "3C 9C QC"], "JC", 3,
                          [1, 5, "nil", 1], [5, 3, 0, 1], scores=(0, 230), bags=(9, 2))
    assert check_ending(known, masks, normal="TS") == "4H"


def test_a_last_seat_that_leaves_the_trick_to_a_nil_bidder_may_hold_anything() -> None:
    """Seat 3 stays under seat 0's nine with its contract to make, but seat 0 bid nil: it may
    have ducked on purpose to break the nil, so nothing is read of its diamonds or spades."""
    v = view(1, "AC 2C 3C 4C 5C 6H 7H 8H 2S 3S 4S 5S", ["nil", 3, 3, 3], tricks=[(0, "9D 2D 4D 3D")])
    assert not knowledge.read(v).lacks[3]
    v = view(1, "AC 2C 3C 4C 5C 6H 7H 8H 2S 3S 4S 5S", ["nil", 3, 3, 3], tricks=[(0, "9D 2D 4D 5H")])
    assert not knowledge.read(v).voids[3] & 1  # void in diamonds only: it did not ruff the nil's nine


# -- deals that fit the play -------------------------------------------------------------

def _normal_positions(seeds: range) -> list[tuple[knowledge.Known, list[int]]]:
    """Card decisions from the middle of the first hand of Normal bots' matches: the seat's
    knowledge and every seat's true cards then."""
    import spades.bots as bots
    from spades.rules import HAND_OVER, PLAYING, Match, parse_action
    from spades.views import seat_view

    out = []
    for seed in seeds:
        match = Match(Rules(), seed=seed)
        while match.phase != HAND_OVER:
            seat = match.to_act
            v = seat_view(match, seat)
            if match.phase == PLAYING and len(match.plays) in (14, 23, 30):
                out.append((knowledge.read(v), list(match.held)))
            match.apply(seat, parse_action(bots.choose(v, "normal", seed)))
    return out


def test_normals_true_cards_fit_its_play_where_no_nil_is_bid() -> None:
    """Replayed from the cards each opponent really held, Normal's play chooses every card
    it played (but for equivalents): the reading costs the true deal nothing."""
    checked = 0
    for known, held in _normal_positions(range(8)):
        if 0 in known.bids:
            continue  # Normal searches against a nil, and its card may differ from the heuristics'
        reading = deals.Reading(known)
        for s in (known.seat ^ 1, known.seat ^ 3):
            assert reading.log_fit(s, held[s]) == 0.0
            checked += 1
    assert checked >= 20


def test_hards_deals_fit_the_play_better_than_deals_by_the_bids_alone() -> None:
    """The chain's deals give each seat its count of cards, none of a suit it showed void
    in, and miss fewer of the cards the others played than deals kept by the bids alone."""
    rng = random.Random(5)
    m = deals.bidmodel.model()
    misses = {True: 0.0, False: 0.0}
    for known, _held in _normal_positions(range(4)):
        hand = known.hand or 0
        reading = deals.Reading(known)
        unseen = deals.FULL_MASK & ~known.gone & ~hand
        for read in (True, False):
            source = deals.Deals(known, hand, m, read)
            assert (source.chain is not None) == read
            for _ in range(30):
                hands, w, work = source.next(rng)
                assert work > 0 and w > 0
                assert hands[known.seat] == hand
                assert hands[0] | hands[1] | hands[2] | hands[3] == unseen | hand
                for s in range(4):
                    if s != known.seat:
                        assert hands[s].bit_count() == known.held_count(s)
                        for suit in range(4):
                            if known.voids[s] >> suit & 1:
                                assert not hands[s] & deals.SUIT_MASKS[suit]
                        misses[read] += reading.log_fit(s, hands[s]) / reading.log_miss[s]
    assert misses[True] < 0.75 * misses[False]
