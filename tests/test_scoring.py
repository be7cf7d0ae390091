"""Hand scoring, one row per rule of RULES.md."""

import pytest

from spades import Rules, score_hand

NIL = 0
OFF = Rules(bag_penalty=False)
ZERO = Rules(set_scores_zero=True)
NOBID = Rules(mode="no_bidding", target=300)
B = [False] * 4


# (rules, bids, blind, tricks, bags_before, team, expected total, expected bags after)
CASES = [
    ("bid 7 take 9", Rules(), [4, 3, 3, 3], B, [5, 3, 4, 1], [0, 0], 0, 72, 2),
    ("bid 7 take 6", Rules(), [4, 3, 3, 3], B, [3, 4, 3, 3], [0, 0], 0, -70, 0),
    ("4 and nil, nil takes 2, partner 5", Rules(), [4, 3, NIL, 3], B, [5, 3, 2, 3], [0, 0], 0, -57, 3),
    ("both nil, one takes 2", Rules(), [NIL, 5, NIL, 5], B, [2, 6, 0, 5], [0, 0], 0, 2, 2),
    ("both nil, both made", Rules(), [NIL, 5, NIL, 5], B, [0, 6, 0, 7], [0, 0], 0, 200, 0),
    ("8 bags + 5", Rules(), [2, 3, 2, 3], B, [5, 2, 4, 2], [8, 0], 0, 40 + 5 - 100, 3),
    ("9 bags + 13", Rules(), [NIL, 3, NIL, 3], B, [7, 0, 6, 0], [9, 0], 0, -200 + 13 - 200, 2),
    ("exactly 10 bags", Rules(), [3, 3, 3, 3], B, [4, 3, 3, 3], [9, 0], 0, 61 - 100, 0),
    ("blind nil made", Rules(blind_nil=True), [NIL, 4, 5, 4], [True, False, False, False], [0, 4, 5, 4], [0, 0],
     0, 250, 0),
    ("blind nil failed", Rules(blind_nil=True), [NIL, 4, 5, 4], [True, False, False, False], [1, 4, 4, 4], [0, 0],
     0, -200 - 50 + 1, 1),
    ("nil trick never helps partner", Rules(), [NIL, 4, 5, 4], B, [1, 4, 4, 4], [0, 0], 0, -100 - 50 + 1, 1),
    ("penalty off: bags still +1", OFF, [2, 3, 2, 3], B, [5, 2, 4, 2], [8, 0], 0, 45, 13),
    ("penalty off: 20 bags cost nothing", OFF, [1, 3, 1, 3], B, [7, 0, 6, 0], [15, 0], 0, 31, 26),
    ("set scores zero", ZERO, [4, 3, 3, 3], B, [3, 4, 3, 3], [0, 0], 0, 0, 0),
    ("set scores zero keeps the nil", ZERO, [4, 3, NIL, 3], B, [2, 6, 2, 3], [0, 0], 0, -100 + 2, 2),
    ("set contract, other team", Rules(), [4, 3, 3, 3], B, [5, 3, 4, 1], [0, 0], 1, -60, 0),
    ("no bidding: 10 per trick", NOBID, [None] * 4, B, [4, 3, 2, 4], [0, 0], 0, 60, 0),
    ("no bidding: 10 per trick, other team", NOBID, [None] * 4, B, [4, 3, 2, 4], [0, 0], 1, 70, 0),
]


@pytest.mark.parametrize("name,rules,bids,blind,tricks,before,team,total,bags", CASES, ids=[c[0] for c in CASES])
def test_score_table(name, rules, bids, blind, tricks, before, team, total, bags):
    assert sum(tricks) == 13
    result = score_hand(rules, bids, blind, tricks, before).teams[team]
    assert (result.total, result.bags_after) == (total, bags)
    assert result.total == result.contract_points + result.bags + result.nil_points + result.penalty


def test_parts_of_the_failed_nil_example():
    t = score_hand(Rules(), [4, 3, NIL, 3], B, [5, 3, 2, 3], [0, 0]).teams[0]
    assert (t.contract, t.made, t.contract_points, t.bags, t.nil_points, t.penalty) == (4, True, 40, 3, -100, 0)
    assert t.nils == ((2, False, False),)
