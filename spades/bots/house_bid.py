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
# the count's side cards and ruffs at a full table, and how they grow for each seat fewer
# (0.85 for a guarded king and 0.5 for a queen with two guards at three seats; one ruff a void)
KING, KING_PER_SEAT_FEWER = 0.75, 0.10
QUEEN, QUEEN_PER_SEAT_FEWER = 0.35, 0.15
RUFFS_PER_VOID = 2
# nil_risk's weights (measured: see its docstring)
NIL_TRUMP_GAP, NIL_TRUMP_LONG = 0.08, 0.15  # a trump's risk falls by this for each trump over it; trumps past a share
NIL_EXPOSED_TRUMP = 0.1  # each trump no low round goes over (``exposed``)
NIL_LOW_FLOOR, NIL_LOW_FLOOR_TRUMP = 0.1, 0.05  # each of the others' cards under our lowest of a suit, past one
NIL_SMALL = 6  # a side card up to this far from its suit's lowest (the 8 of a full suit) is a small one
NIL_ACE_KING, NIL_ACE_KING_GUARDED = 0.3, 0.05  # an ace or king; with three small cards
NIL_QUEEN_JACK, NIL_QUEEN_JACK_GUARDED = 0.3, 0.02  # a queen or jack; with two small cards
NIL_MIDDLE = 0.05  # a middle card (10 or 9) without two small cards
# nil_chance's lines by shape (cutthroat for three, cutthroat for four, partners): top, slope, and the
# risk they hold to (measured: see its docstring); beyond it, down to NIL_FLOOR at risk 1
NIL_LINES = ((0.82, 3.1, 0.2), (0.82, 0.84, 0.8), (1.05, 0.5, 0.9))
NIL_CAP, NIL_FLOOR = 0.97, 0.02
# what a number bid is worth to a hand with a count under 2 tricks (``raw``), by shape as above:
# the mean points of such hands' numbers in the same play-outs (nil_risk under 0.7), at a partners
# table the team's points less those of the partner's contract when the hand bid nil instead
WEAK_NUMBER = (0.0, 4.0, -15.0)
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
    fewer = STANDARD_SHAPE.players - n  # seats fewer than four: fewer players over a card, more cards each
    # side suits: aces, guarded kings and queens; short suits to ruff in
    ruffs = 0.0
    for s in SIDE_SUITS:
        part = hand & t.suits[s]
        length = part.bit_count()
        suit_size = t.suits[s].bit_count()
        long_suit = length > suit_size / n + 2
        if length == 0:
            r = min(spare, max(1, RUFFS_PER_VOID - fewer))
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
                est += (KING + KING_PER_SEAT_FEWER * fewer) * (0.5 if long_suit else 1.0)
            elif gap == 1:
                est += 0.2
            elif gap == 2 and length >= 3:
                est += QUEEN + QUEEN_PER_SEAT_FEWER * fewer
    est += ruffs
    if spare > 0 and count > share + 1:
        est += 0.7 * min(spare, count - share - 1)
    return est + lift(t.shape)


def nil_risk(t: Table, hand: int) -> float:
    """How likely a nil with this hand is to fail, roughly (0 safe .. 1 hopeless), at a
    table of any shape: one of the top three trumps is hopeless; else high trumps, trumps
    beyond an even share, trumps no low round of the others' goes over (``exposed``), and
    in each side suit aces and kings (less with three small cards under them), queens and
    jacks (less with two), middle cards without two small ones (a small card: up to the
    8), and a suit whose lowest card has more than one of the others' cards under it (the
    seat that leads the suit low, or plays after us, finds a card to go under ours: at
    three players the others hold 34 cards). The weights were chosen by play-outs of dealt
    hands, Normal's play at every seat (the data of ``nil_chance``), for the share of nils
    made among the lowest-risk hands: among the 1, 3, 6 and 12% lowest it rose from 0.23,
    0.19, 0.15, 0.11 to 0.44, 0.32, 0.20, 0.13 at cutthroat for three, from 0.50, 0.43,
    0.38, 0.30 to 0.72, 0.58, 0.48, 0.35 at cutthroat for four, and from 0.94, 0.87, 0.82,
    0.72 to 0.96, 0.92, 0.85, 0.77 at a partners table (jj). A credit for a void ranked
    the hands no better (a void already adds no risk of its suit) and has no weight."""
    trumps = hand & t.trumps
    count = trumps.bit_count()
    per_round = t.players - 1
    risk = 0.0
    if trumps:
        h = (t.trumps & ~((2 << high(trumps)) - 1)).bit_count()  # trumps above our highest
        if h < 3:
            return 1.0
        risk += max(0.0, 0.5 - NIL_TRUMP_GAP * h)
        share = t.trumps.bit_count() / t.players
        risk += max(0.0, count - share + 1) * NIL_TRUMP_LONG
        risk += NIL_LOW_FLOOR_TRUMP * max(0, (t.trumps & ~hand & ((1 << low(trumps)) - 1)).bit_count() - 1)
        risk += NIL_EXPOSED_TRUMP * exposed(trumps, t.trumps & ~hand, per_round).bit_count()
    for s in SIDE_SUITS:
        part = hand & t.suits[s]
        if not part:
            continue
        top = high(t.suits[s])
        bottom = low(t.suits[s])
        risk += NIL_LOW_FLOOR * max(0, (t.suits[s] & ~hand & ((1 << low(part)) - 1)).bit_count() - 1)
        smalls = 0
        for c in bits(part):
            if c - bottom <= NIL_SMALL:
                smalls += 1
            elif top - c <= 1:  # an ace or king
                risk += NIL_ACE_KING if smalls < 3 else NIL_ACE_KING_GUARDED
            elif top - c <= 3:  # queen or jack
                risk += NIL_QUEEN_JACK if smalls < 2 else NIL_QUEEN_JACK_GUARDED
            elif smalls < 2:  # a middle card
                risk += NIL_MIDDLE
    return min(1.0, risk)


def exposed(mine: int, theirs: int, per_round: int) -> int:
    """The cards of ``mine`` (slots of one suit) that no round of the suit goes over when
    the other seats play ``per_round`` of ``theirs`` a round, their lowest first, and ours
    go one a round, each under the round's highest card when one can: a nil bidder's
    cards that must be thrown away or take a trick (slots 0 and 7 against 1, 2, 4, 5 and
    6, two a round: the 0 goes under a round, the 7 cannot)."""
    cards = list(bits(theirs))
    m = len(cards)
    maxima: list[int] = []
    j = 0
    while j * per_round < m:
        maxima.append(cards[min((j + 1) * per_round, m) - 1])
        j += 1
    out = 0
    i = 0
    for c in bits(mine):
        while i < len(maxima) and maxima[i] < c:
            i += 1
        if i < len(maxima):
            i += 1
        else:
            out |= 1 << c
    return out


def nil_chance(t: Table, risk: float) -> float:
    """A nil's chance to be made by a hand of ``risk`` (``nil_risk``) against Normal's
    play: with a partner to cover it, or alone against every other seat (cutthroat, where
    the others all try to set it, and at three they hold more cards each). Measured by
    play-outs of dealt hands, Normal's play at every seat, the others bidding their count:
    8,000 deals a shape (seed 11), every seat with a count under 3 tricks tried as the nil.
    Made, by risk (the hands in brackets)::

        risk          0-.1       .1-.2      .2-.3      .3-.4      .4-.5      .5-.6
        cutthroat-3   .73 (30)   .31 (111)  .25 (150)  .07 (201)  .09 (250)  .06 (296)
        cutthroat-4   .80 (65)   .72 (111)  .58 (171)  .52 (241)  .44 (346)  .35 (414)
        partners, jj  .95 (42)   .98 (95)   .95 (153)  .89 (262)  .85 (319)  .77 (401)

        risk          .6-.7      .7-.8      .8-.9      .9-1       1
        cutthroat-3   .03 (310)  .02 (352)  .02 (348)  .01 (375)  .01 (7538)
        cutthroat-4   .26 (447)  .20 (597)  .19 (557)  .13 (615)  .03 (18822)
        partners, jj  .72 (488)  .68 (531)  .65 (572)  .56 (652)  .22 (18121)

    The lines (``NIL_LINES``) are least-squares fits up to their knee: 0.82 - 3.1 r to 0.2
    at three (the chance falls fast there: two seats holding 34 cards set it; a fit to 0.4,
    0.60 - 1.45 r, put the safest hands at half where they made 0.73), 0.82 - 0.84 r to 0.8
    at four, 1.05 - 0.5 r to 0.9 with a partner (at most ``NIL_CAP``)."""
    top, slope, knee = NIL_LINES[_nil_shape(t)]
    if risk <= knee:
        return min(NIL_CAP, max(0.0, top - slope * risk))
    # beyond the hands measured, down to next to nothing for a hopeless one
    at_knee = min(NIL_CAP, max(0.0, top - slope * knee))
    return max(0.0, at_knee + (NIL_FLOOR - at_knee) * (risk - knee) / (1 - knee))


def _nil_shape(t: Table) -> int:
    """0: cutthroat for three; 1: cutthroat for four; 2: partners."""
    if not t.rules.partners:
        return 0 if t.players == 3 else 1
    return 2


def number_worth(bid: int, est: float) -> float:
    """What a bid of ``bid`` tricks is worth, roughly, to a hand counted at ``est``: the
    contract when the count reaches it, a set growing with the shortfall when not."""
    if est + 0.5 >= bid:
        return 10.0 * bid
    return -10.0 * bid * min(1.0, (bid - est) / 2)


def number_value(t: Table, bid: int, est: float, raw: float, cautious: bool = False) -> float:
    """What a number bid is worth to a hand, to weigh against a nil: ``number_worth``,
    but for a hand counted under 2 tricks (``raw``, the count without the lift) no more
    than such hands' numbers made in play-outs (``WEAK_NUMBER``): the count's lift
    flatters the weakest hands, and their numbers are often set. ``cautious`` (Easy):
    the count taken at its word."""
    worth = number_worth(bid, est)
    if raw < 2.0 and not cautious:
        return min(worth, WEAK_NUMBER[_nil_shape(t)])
    return worth


def desired_bid(state: State, cautious: bool = False) -> int:
    """The bid a seat wants by its count (0 for nil), before the variant's limits: nil
    when its expected value (100 made, -100 set: the bidder's own in cutthroat) beats the
    number's (``number_value``), at every shape. ``cautious`` (Easy): a nil's chance
    counted 0.1 lower, and a weak hand's number at its count (``number_value``), as a
    player who trusts the count bids it."""
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
    # a nil is worth 100 to its side (to the bidder alone in cutthroat); the cost of
    # covering it is in the measured chance and in the number's worth at a partners table
    nil_worth = 200 * chance - 100
    number = max(1, int(est + 0.4))
    nil = raw < 2.0 and nil_worth > number_value(t, number, est, raw, cautious)
    if pbid == 0 and variant != "suicide":
        nil = False  # one nil on a team is enough
    if pbid is not None and 0 < pbid < 3 and raw >= 0.6:
        nil = False  # a partner's small bid cannot carry a nil's team
    if variant == "whiz":
        held = (hand & t.trumps).bit_count()
        return 0 if held == 0 or nil_worth > number_value(t, held, est, raw, cautious) else held
    if variant == "suicide":
        if pbid is None:  # the team's first bidder chooses; the partner is held to the other
            number = max(SUICIDE_BID, number)
            return 0 if nil_worth >= number_value(t, number, est, raw, cautious) + SUICIDE_PARTNER else number
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


__all__ = ["lift", "count_tricks", "nil_risk", "exposed", "nil_chance", "number_worth", "number_value", "desired_bid",
           "legal_bid", "bid_for", "hint", "variant_bids"]
