"""The house bots' bids (``spades.bots.house`` says which part does what): a hand counted
as a player counts it (``count_tricks``), the risk of a nil (``nil_risk``) and its chance
(``nil_chance``), the bid each level wants (``desired_bid``) made legal for the variant
(``legal_bid``: the view's list is the authority), and the hint.

Imports: ``spades.rules_config``, ``spades.scoring`` and the house bots' modules only.
"""

from __future__ import annotations

import random

from ..rules_config import STANDARD_SHAPE, SUICIDE_BID, Shape
from ..scoring import DOUBLE_FROM
from .house import State, read
from .slots import SIDE_SUITS, Table, bits, high, low

# what the count leaves out (long side cards, a partner's help, the tricks that fall to
# someone): Normal bots playing each other took this much more than the count at a full
# table, and this much more again for each seat fewer (``lift``)
LIFT, LIFT_PER_SEAT_FEWER = 0.5, 1.3
NIL_KNEE = 0.8  # nil_chance's lines hold up to this risk
SUICIDE_PARTNER = 20  # suicide: a partner held to nil gives up about this much more than one held to a number


def lift(shape: Shape) -> float:
    """The tricks a hand takes beyond its count at this shape of table: 0.5 with four
    players, 1.8 with three (more cards each, and fewer players over a card).

    >>> from spades.rules_config import shape_of
    >>> lift(STANDARD_SHAPE), lift(shape_of(3, False))
    (0.5, 1.8)
    """
    return LIFT + LIFT_PER_SEAT_FEWER * (STANDARD_SHAPE.players - shape.players)


def count_tricks(t: Table, hand: int) -> float:
    """The tricks a hand should take, counted as a player counts them: the sure high
    trumps and guarded ones (jokers and the jjdd 2D are the top trumps), trump length,
    ruffs in short side suits with the trumps to spare, side aces, guarded kings and
    queens; scaled to the table (three players hold 17 cards, and a king there has two
    players over it, not three)."""
    n = t.players
    trumps = hand & t.trumps
    count = trumps.bit_count()
    est = 0.0
    used = 0
    # trumps from the top: one with h higher trumps out wins when we have h cards to spare
    higher_out = 0
    ours_below = count
    for s in range(high(t.trumps), low(t.trumps) - 1, -1):
        if not t.trumps >> s & 1:
            continue
        if hand >> s & 1:
            ours_below -= 1
            if higher_out == 0:
                est += 1.0
                used += 1
            elif higher_out == 1 and ours_below >= 1:
                est += 0.75
                used += 1
            elif higher_out == 2 and ours_below >= 2:
                est += 0.45
                used += 1
        else:
            higher_out += 1
        if higher_out > 3 and ours_below == 0:
            break
    spare = count - used
    share = t.trumps.bit_count() / n  # an even share of the trumps
    # side suits: aces, guarded kings and queens; short suits to ruff in
    ruffs = 0.0
    for s in SIDE_SUITS:
        part = hand & t.suits[s]
        length = part.bit_count()
        suit_size = t.suits[s].bit_count()
        long_suit = length > suit_size / n + 2
        if length == 0:
            r = min(spare, 2 if n == 4 else 1)
            ruffs += r * 0.85
            spare -= r
            continue
        if length == 1 and spare:
            ruffs += 0.6
            spare -= 1
        top = high(t.suits[s])
        for c in bits(part):
            gap = top - c  # cards of the suit above this one
            if gap == 0:
                est += 0.7 if long_suit else 1.0
            elif gap == 1 and length >= 2:
                est += (0.85 if n == 3 else 0.75) * (0.5 if long_suit else 1.0)
            elif gap == 1:
                est += 0.2
            elif gap == 2 and length >= 3:
                est += 0.5 if n == 3 else 0.35
    est += ruffs
    if spare > 0 and count > share + 1:
        est += 0.7 * min(spare, count - share - 1)
    return est + lift(t.shape)


def nil_risk(t: Table, hand: int) -> float:
    """How likely a nil with this hand is to fail, roughly (0 safe .. 1 hopeless): high
    trumps or many trumps, and side high cards without small ones under them."""
    trumps = hand & t.trumps
    count = trumps.bit_count()
    risk = 0.0
    if trumps:
        top = high(t.trumps)
        h = top - high(trumps)  # how many trumps rank above our highest (slots are contiguous)
        if h < 3:
            return 1.0
        risk += max(0.0, 0.5 - 0.06 * h)
        share = t.trumps.bit_count() / t.players
        risk += max(0.0, count - share + 1) * 0.25
    for s in SIDE_SUITS:
        part = hand & t.suits[s]
        if not part:
            continue
        top = high(t.suits[s])
        bottom = low(t.suits[s])
        smalls = 0
        for c in bits(part):
            rank = c - bottom
            if rank <= 5:
                smalls += 1
            elif top - c <= 1:  # an ace or king
                risk += 0.6 if smalls < 3 else 0.2
            elif top - c <= 3:  # queen or jack
                risk += 0.3 if smalls < 2 else 0.05
    return min(1.0, risk)


def nil_chance(t: Table, risk: float) -> float:
    """A nil's chance to be made by a hand of ``risk`` (``nil_risk``) against Normal's
    play: with a partner to cover it, or alone against every other seat (cutthroat, where
    three players hold more cards each), measured by play-outs of dealt hands."""
    if t.players == 3:
        top, slope = 0.45, 0.5
    elif not t.rules.partners:
        top, slope = 0.65, 0.55
    else:
        top, slope = 0.95, 0.3
    if risk <= NIL_KNEE:
        return max(0.0, top - slope * risk)
    # beyond the hands measured, down to next to nothing for a hopeless one
    at_knee = max(0.0, top - slope * NIL_KNEE)
    return max(0.0, at_knee - (at_knee - 0.05) * (risk - NIL_KNEE) / (1 - NIL_KNEE))


def number_worth(bid: int, est: float) -> float:
    """What a bid of ``bid`` tricks is worth, roughly, to a hand counted at ``est``: the
    contract when the count reaches it, a set growing with the shortfall when not."""
    if est + 0.5 >= bid:
        return 10.0 * bid
    return -10.0 * bid * min(1.0, (bid - est) / 2)


def desired_bid(state: State, cautious: bool = False) -> int:
    """The bid a seat wants by its count (0 for nil), before the variant's limits.
    ``cautious``: no daring nils (Easy)."""
    assert state.hand is not None
    t = state.table
    g = state.game
    hand = state.hand
    seat = state.seat
    est = count_tricks(t, hand)
    risk = nil_risk(t, hand)
    partner = t.partner[seat]
    pbid = g.bids[partner] if partner >= 0 else None
    cutthroat = partner < 0
    variant = t.rules.bidding_variant
    raw = est - lift(t.shape)  # the count itself, the cards that win alone
    chance = nil_chance(t, risk) - (0.1 if cautious else 0.0)
    # a nil is worth 100 to its side (to the bidder alone in cutthroat); a partner's
    # nil costs the team some of its tricks to cover it
    nil_worth = 200 * chance - 100 - (0 if cutthroat else 20)
    number = max(1, int(est + 0.4))
    nil = raw < 2.0 and nil_worth >= number_worth(number, est) + 5
    if pbid == 0 and variant != "suicide":
        nil = False  # one nil on a team is enough
    if pbid is not None and 0 < pbid < 3 and raw >= 0.6:
        nil = False  # a partner's small bid cannot carry a nil's team
    if variant == "whiz":
        held = (hand & t.trumps).bit_count()
        return 0 if held == 0 or nil_worth >= number_worth(held, est) else held
    if variant == "suicide":
        if pbid is None:  # the team's first bidder chooses; the partner is held to the other
            number = max(SUICIDE_BID, number)
            return 0 if nil_worth >= number_worth(number, est) + SUICIDE_PARTNER else number
        if pbid == 0:
            return max(SUICIDE_BID, number)
        return 0
    if nil:
        return 0
    bid = max(1, int(est + 0.4))
    if t.rules.ten_for_200:
        bid = _ten_for_200(bid, est, pbid if not cutthroat else None)
    return bid


def _ten_for_200(bid: int, est: float, pbid: int | None) -> int:
    """Under 10-for-200 a contract of ten or more counts double both ways: reach it only
    when the count expects it, and keep under it otherwise."""
    partner = pbid or 0
    team_est = est + partner
    if bid + partner >= DOUBLE_FROM and team_est < DOUBLE_FROM + 0.5:
        return max(1, DOUBLE_FROM - 1 - partner)
    if bid + partner == DOUBLE_FROM - 1 and team_est >= DOUBLE_FROM + 0.5:
        return bid + 1
    return bid


def legal_bid(want: int, legal: list, est: float) -> int | str:
    """The legal bid nearest the one wanted: ``legal`` is the view's list (the authority)."""
    if want == 0 and "nil" in legal:
        return "nil"
    numbers = [b for b in legal if isinstance(b, int)]
    if not numbers:
        return "nil" if "nil" in legal else legal[0]
    target = want if want > 0 else max(1, round(est))
    return min(numbers, key=lambda b: (abs(b - target), b))


def bid_for(state: State, level: str, rng: random.Random) -> int | str:
    """The bid of ``level`` (JSON form: a number or ``"nil"``), one of ``state.legal``."""
    assert state.hand is not None
    legal = [b for b in state.legal if b != "blind_nil" and b != "look"]
    est = count_tricks(state.table, state.hand)
    want = desired_bid(state, cautious=level == "easy")
    if level == "easy" and want > 0:
        r = rng.random()
        if r < 0.15:
            want += 1
        elif r < 0.3:
            want = max(1, want - 1)
    choice = legal_bid(want, legal, est)
    assert choice in state.legal
    return choice


# -- the hint ----------------------------------------------------------------------------

def hint(view: dict) -> int | str:
    """The bid Hard would make (its count, as Normal's), legal for the table's variant."""
    state = read(view)
    if state.hand is None:
        raise ValueError("The seat has not looked at its cards yet.")
    if state.game.bids[state.seat] is not None or not state.table.rules.bidding:
        raise ValueError("The seat has no bid to make.")
    if not [b for b in state.legal if b not in ("look", "blind_nil")]:
        state.legal = variant_bids(state)  # not this seat's turn yet: the bids its variant allows now
    return bid_for(state, "normal", random.Random(0))


def variant_bids(state: State) -> list:
    """The bids the table's variant and minimum allow this seat with the bids made so far
    (``Match``'s rule, for a hint asked before the seat's turn), in the view's order."""
    assert state.hand is not None
    t = state.table
    rules = t.rules
    numbers = list(range(1, t.hand_size + 1))
    held = (state.hand & t.trumps).bit_count()
    p = t.partner[state.seat]
    pbid = state.game.bids[p] if p >= 0 else None
    variant = rules.bidding_variant
    if variant == "whiz":
        numbers = [held] if held else []
    elif variant == "mirror":
        return [held] if held else ["nil"]
    elif variant == "suicide":
        if pbid == 0:
            return [b for b in numbers if b >= SUICIDE_BID]
        if pbid is not None:
            return ["nil"]
        numbers = [b for b in numbers if b >= SUICIDE_BID]
    elif rules.min_bid and pbid:
        numbers = [b for b in numbers if b + pbid >= rules.min_bid]
    return [*numbers, "nil"]


__all__ = ["lift", "count_tricks", "nil_risk", "nil_chance", "desired_bid", "legal_bid", "bid_for", "hint",
           "variant_bids"]
