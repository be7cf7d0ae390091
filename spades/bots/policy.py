"""The Normal bot's card play on card masks (its bids are ``bidmodel``'s).

The same functions serve the Normal and Easy levels directly and the Hard level inside
its play-outs, so they work on bare bit masks (``spades.cards``) and small ints, never on
views or ``Match`` objects: a play-out calls ``play_card`` about fifty times per hand and
speed there is strength.

Vocabulary: ``hand`` is the mask of the cards the seat holds, ``gone`` the mask of every
card played this hand (the trick in progress included), ``others`` the cards neither gone
nor in the seat's hand (held by someone else). A card is the *boss* of its suit when no
card of ``others`` in that suit ranks above it.

Imports: ``spades.cards``, and ``spades.rules`` for the legal-card rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..cards import FULL_MASK, SPADE_MASK, SUIT_MASKS
from ..rules import legal_mask

ACE, KING, QUEEN, JACK, TEN = 12, 11, 10, 9, 8
SIDE_SUITS = (1, 2, 3)

# Modes of play for one seat in one trick
WIN, DUCK, AVOID = "win", "duck", "avoid"


@dataclass(slots=True)
class HandCtx:
    """What is fixed for a whole hand once the bidding is over (or not bid at all).

    ``bids[s]`` is None (not yet bid), 0 (nil or blind nil) or 1-13; in no-bidding mode
    every bid is None and ``bidding`` is False.
    """

    bidding: bool
    bids: list[int | None]
    blind: list[bool] = field(default_factory=lambda: [False] * 4)
    scores: list[int] = field(default_factory=lambda: [0, 0])
    bags: list[int] = field(default_factory=lambda: [0, 0])
    bag_penalty: bool = True
    target: int | None = 500  # None when the match ends after a number of hands


# -- small mask helpers --------------------------------------------------------------

def low(m: int) -> int:
    """The lowest card of a non-empty mask (lowest rank when the mask is one suit)."""
    return (m & -m).bit_length() - 1


def high(m: int) -> int:
    """The highest card of a non-empty mask (highest rank when the mask is one suit)."""
    return m.bit_length() - 1


def popcount(m: int) -> int:
    return m.bit_count()


def above(card: int) -> int:
    """The mask of the cards of the same suit ranking above ``card``."""
    return SUIT_MASKS[card // 13] & ~((2 << card) - 1)


def below(card: int) -> int:
    """The mask of the cards of the same suit ranking below ``card``."""
    return SUIT_MASKS[card // 13] & ((1 << card) - 1)


def beats(a: int, w: int) -> bool:
    """Whether card ``a`` beats ``w``, the card winning the trick so far."""
    if a < 13:
        return w >= 13 or a > w
    return a // 13 == w // 13 and a > w


def trick_winner(trick: list[int]) -> int:
    """The index in ``trick`` of the card winning it so far."""
    best = 0
    for i in range(1, len(trick)):
        if beats(trick[i], trick[best]):
            best = i
    return best


def beating(m: int, w: int) -> int:
    """The cards of ``m`` that would beat ``w``."""
    if w < 13:
        return m & above(w)
    return (m & above(w)) | (m & SPADE_MASK)


def lowest_by_rank(m: int, spades_last: bool = True) -> int:
    """The lowest-ranked card of ``m``; a spade only if there is nothing else (when asked)."""
    best = -1
    best_rank = 99
    for s in (1, 2, 3, 0):
        part = m & SUIT_MASKS[s]
        if part:
            c = low(part)
            r = c % 13
            if s == 0 and spades_last and best >= 0:
                continue
            if r < best_rank:
                best, best_rank = c, r
    return best


def highest_by_rank(m: int, spades_last: bool = True) -> int:
    """The highest-ranked card of ``m``; a spade only if there is nothing else (when asked)."""
    best = -1
    best_rank = -1
    for s in (1, 2, 3, 0):
        part = m & SUIT_MASKS[s]
        if part:
            c = high(part)
            r = c % 13
            if s == 0 and spades_last and best >= 0:
                continue
            if r > best_rank:
                best, best_rank = c, r
    return best


# -- play ------------------------------------------------------------------------------

def team_need(ctx: HandCtx, team: int, taken: list[int]) -> tuple[int, int]:
    """(contract, tricks toward it) of ``team``; nil bidders are left out of both."""
    contract = 0
    got = 0
    for s in (team, team + 2):
        b = ctx.bids[s]
        if b:
            contract += b
            got += taken[s]
    return contract, got


def play_card(ctx: HandCtx, seat: int, hand: int, trick: list[int], leader: int, gone: int,
              taken: list[int], broken: bool, voids: list[int] | None = None) -> int:
    """The Normal bot's card (an int 0-51) for ``seat``."""
    legal = legal_mask(hand, trick, broken)
    if legal & (legal - 1) == 0:
        return low(legal)
    others = FULL_MASK & ~gone & ~hand
    partner = seat ^ 2
    team = seat & 1
    pos = len(trick)
    remaining = 13 - taken[0] - taken[1] - taken[2] - taken[3]

    mode = WIN
    cover = False  # partner's nil still alive
    nil_opp = -1  # an opponent whose nil is still alive
    if ctx.bidding:
        bids = ctx.bids
        if bids[seat] == 0:
            mode = AVOID
        else:
            # team_need for both teams, written out: this runs for every card of a play-out
            a, b = bids[team], bids[team + 2]
            contract = (a or 0) + (b or 0)
            got = (taken[team] if a else 0) + (taken[team + 2] if b else 0)
            a, b = bids[1 - team], bids[3 - team]
            o_contract = (a or 0) + (b or 0)
            o_got = (taken[1 - team] if a else 0) + (taken[3 - team] if b else 0)
            need = contract - got
            o_need = o_contract - o_got
            if bids[partner] == 0 and taken[partner] == 0:
                cover = True
            for o in ((seat + 1) & 3, (seat + 3) & 3):
                if bids[o] == 0 and taken[o] == 0:
                    nil_opp = o
            if need <= 0 and contract > 0:
                # contract made: extra tricks are bags, unless a set is within reach
                to_set = remaining - o_need + 1
                bag_room = 10 - ctx.bags[team] - (got - contract) if ctx.bag_penalty else 99
                if o_contract and o_need > 0 and to_set <= max(1, remaining // 3) and bag_room > to_set:
                    mode = WIN
                else:
                    mode = DUCK
    if not trick:
        return _lead(ctx, seat, hand, legal, others, mode, cover, nil_opp, voids, broken)
    seats_after = [(leader + i) & 3 for i in range(pos + 1, 4)]

    led = trick[0] // 13
    wi = trick_winner(trick)
    w = trick[wi]
    winner_seat = (leader + wi) & 3
    follow = hand & SUIT_MASKS[led]

    if mode == AVOID:
        return _avoid(legal, follow, w, pos)

    if cover:
        if winner_seat == partner:
            # overtake the partner's nil card if we can, as cheaply as possible
            win = beating(legal, w)
            if win:
                return _cheapest(win, led)
        elif partner in seats_after:
            # play high so the partner can duck under us
            win = beating(legal, w)
            if win:
                if follow:
                    return high(win)
                return _cheapest(win, led)

    if nil_opp >= 0:
        if winner_seat == nil_opp:
            # the nil bidder is winning: stay under it
            lose = legal & ~beating(legal, w)
            if lose:
                return _highest_in(lose, led, follow)
        elif nil_opp in seats_after and follow and mode != WIN:
            return low(follow)
        elif nil_opp in seats_after and follow and winner_seat != partner:
            # under a low card the nil bidder must go lower still: keep ours low
            lose = follow & ~beating(follow, w)
            if lose:
                return low(lose)

    if mode == DUCK:
        return _duck(legal, follow, w, pos, seats_after)

    # WIN
    partner_winning = winner_seat == partner
    if partner_winning and (not seats_after or _sure(w, led, others, seats_after, voids)):
        return _discard_low(legal, follow)
    if follow:
        win = beating(follow, w)
        if not win:
            return low(follow)
        if not seats_after:
            return low(win)
        if pos == 1:
            # second hand low, but take a high lead with a boss card
            boss = win & ~_has_higher(others, led)
            if boss and (w % 13 >= JACK or popcount(others & SUIT_MASKS[led]) <= 3):
                return _lowest_equivalent(boss, others)
            return low(follow)
        # third hand high: the cheapest card that nobody behind can beat, else our highest
        top = high(win)
        if not (others & above(top)):
            return _lowest_equivalent(win & ~_has_higher(others, led), others)
        if partner_winning:
            return low(follow)
        return top
    # void in the led suit
    trumps = beating(hand & SPADE_MASK, w) if led != 0 else 0
    if trumps and not partner_winning:
        if seats_after:
            # beat a possible overruff cheaply: the lowest trump above most of the rest
            return low(trumps)
        return low(trumps)
    return _discard_low(legal, 0)


def _has_higher(others: int, suit: int) -> int:
    """The cards of ``suit`` (in any mask) that some card of ``others`` outranks."""
    theirs = others & SUIT_MASKS[suit]
    if not theirs:
        return 0
    return SUIT_MASKS[suit] & ((1 << high(theirs)) - 1)


def _lowest_equivalent(m: int, others: int) -> int:
    """The lowest card of ``m`` (one suit) that is as good as its highest: no card of
    ``others`` lies between them."""
    h = high(m)
    theirs = others & below(h)
    if not theirs:
        return low(m)
    return low(m & above(high(theirs)))


def _sure(w: int, led: int, others: int, seats_after: list[int], voids: list[int] | None) -> bool:
    """Whether the winning card ``w`` cannot be beaten by the seats still to play."""
    if w < 13:
        return not (others & above(w))
    if others & above(w):
        return False
    if not (others & SPADE_MASK):
        return True
    if voids is not None:
        return (not any(voids[s] >> led & 1 for s in seats_after)
                and popcount(others & SUIT_MASKS[led]) >= 2 * len(seats_after))
    return popcount(others & SUIT_MASKS[led]) >= 4


def _cheapest(win: int, led: int) -> int:
    """The cheapest of several winning cards: in the led suit if any, else the lowest trump."""
    part = win & SUIT_MASKS[led]
    return low(part) if part else low(win)


def _highest_in(m: int, led: int, follow: int) -> int:
    """The highest card of ``m``: in the led suit when following, else a high discard."""
    if follow:
        return high(m & SUIT_MASKS[led]) if m & SUIT_MASKS[led] else high(m)
    return highest_by_rank(m)


def _discard_low(legal: int, follow: int) -> int:
    """Lose the least useful card: the lowest of the suit followed, else a low side card
    from the suit we hold most of (keeping short suits short for ruffing)."""
    if follow:
        return low(legal)
    best = -1
    best_key = (99, 0)
    for s in SIDE_SUITS:
        part = legal & SUIT_MASKS[s]
        if part:
            c = low(part)
            key = (c % 13, -popcount(part))
            if key < best_key:
                best, best_key = c, key
    return best if best >= 0 else low(legal)


def _duck(legal: int, follow: int, w: int, pos: int, seats_after: list[int]) -> int:
    """Avoid the trick: the highest card that still loses, else give it cheaply."""
    lose = legal & ~beating(legal, w)
    if follow:
        lose_f = lose & follow
        if lose_f:
            return high(lose_f)
        # every card wins: the last seat wins with its highest, others hope to be overtaken
        return high(follow) if not seats_after else low(follow)
    if lose:
        side = lose & ~SPADE_MASK
        return highest_by_rank(side) if side else high(lose)
    return low(legal)


def _avoid(legal: int, follow: int, w: int, pos: int) -> int:
    """A nil bidder's card: the highest card that loses, throwing danger early."""
    lose = legal & ~beating(legal, w)
    if follow:
        lose_f = lose & follow
        if lose_f:
            return high(lose_f)
        return low(follow) if pos < 3 else high(follow)
    if lose:
        side = lose & ~SPADE_MASK
        return highest_by_rank(side) if side else high(lose)
    return low(legal)


def _lead(ctx: HandCtx, seat: int, hand: int, legal: int, others: int, mode: str, cover: bool,
          nil_opp: int, voids: list[int] | None, broken: bool) -> int:
    opps = ((seat + 1) & 3, (seat + 3) & 3)
    partner = seat ^ 2
    if mode in (AVOID, DUCK) or nil_opp >= 0:
        # lead low; against a nil, from a suit the nil bidder still holds
        best = -1
        best_key: tuple = (99,)
        for s in (1, 2, 3, 0):
            part = legal & SUIT_MASKS[s]
            if not part:
                continue
            c = low(part)
            theirs_below = popcount(others & below(c))
            nil_void = nil_opp >= 0 and voids is not None and voids[nil_opp] >> s & 1
            key = (1 if nil_void else 0, 1 if s == 0 else 0, theirs_below, c % 13)
            if key < best_key:
                best, best_key = c, key
        if mode != WIN or not cover:
            return best
    if cover:
        # lead from strength so the nil partner can play under: bosses first, then high cards
        for s in (1, 2, 3, 0):
            part = legal & SUIT_MASKS[s]
            if part and not (others & above(high(part))) and (others & SUIT_MASKS[s]):
                return high(part)
        return highest_by_rank(legal)
    # WIN: cash a side-suit boss that the opponents will follow
    best = -1
    best_n = -1
    for s in SIDE_SUITS:
        part = legal & SUIT_MASKS[s]
        if not part:
            continue
        top = high(part)
        theirs = others & SUIT_MASKS[s]
        if theirs and not (theirs & above(top)):
            if voids is not None and any(voids[o] >> s & 1 for o in opps) and others & SPADE_MASK:
                continue
            n = popcount(theirs)
            if n > best_n:
                best, best_n = top, n
    if best >= 0 and best_n >= 2:
        return best
    sp = legal & SPADE_MASK
    theirs_sp = others & SPADE_MASK
    if sp and theirs_sp and not (theirs_sp & above(high(sp))) and popcount(sp) >= 2:
        return high(sp)  # draw trumps with the boss spade
    if best >= 0:
        return best
    # a singleton side card to make a void we can ruff, when we have spades to ruff with
    if popcount(hand & SPADE_MASK) >= 2:
        for s in SIDE_SUITS:
            part = legal & SUIT_MASKS[s]
            if part and popcount(part) == 1 and (part & ~(1 << high(part)) == 0) and high(part) % 13 < KING:
                return high(part)
    # otherwise low from the longest side suit (the partner may win it)
    best = -1
    best_key2: tuple = (-1,)
    for s in SIDE_SUITS:
        part = legal & SUIT_MASKS[s]
        if part:
            partner_void = voids is not None and voids[partner] >> s & 1
            key = (0 if partner_void else 1, popcount(part))
            if key > best_key2:
                best, best_key2 = low(part), key
    if best >= 0:
        return best
    return low(legal) if not (sp and theirs_sp and not (theirs_sp & above(high(sp)))) else high(sp)
