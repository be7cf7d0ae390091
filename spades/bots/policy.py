"""The Normal bot's card play on card masks (its bids are ``bidmodel``'s).

The same functions serve the Normal and Easy levels directly and the Hard level inside
its play-outs, so they work on bare bit masks (``spades.cards``) and small ints, never on
views or ``Match`` objects: a play-out calls ``play_card`` about fifty times per hand and
speed there is strength.

Vocabulary: ``hand`` is the mask of the cards the seat holds, ``gone`` the mask of every
card played this hand (the trick in progress included), ``others`` the cards neither gone
nor in the seat's hand (held by someone else). A card is the *boss* of its suit when no
card of ``others`` in that suit ranks above it.

``play_card`` first settles the seat's stance for the trick (``_stance``: win it, duck it
or, bidding nil, avoid it; and which nils are still alive), then leads (``_lead``) or
follows by that stance, one helper per step.

Imports: ``spades.cards``, and ``spades.rules`` for the legal-card rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..cards import FULL_MASK, SPADE_MASK, SPADES, SUIT_MASKS
from ..rules import legal_mask

ACE, KING, QUEEN, JACK, TEN = 12, 11, 10, 9, 8
SIDE_SUITS = (1, 2, 3)
SMALL_CARDS = sum(1 << c for c in range(52) if c % 13 <= TEN)  # tens and below: the cards to lead into a nil

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
              taken: list[int], broken: bool, voids: list[int] | None = None, keep_lead: bool = False) -> int:
    """The Normal bot's card (an int 0-51) for ``seat``. ``keep_lead``: once an opponent's
    nil has played under the trick, take it from the nil's partner still to play (Normal's
    and Easy's own cards; Hard's play-outs and default card go without it, which measured
    better for Hard: docs/bots.md)."""
    legal = legal_mask(hand, trick, broken)
    if legal & (legal - 1) == 0:
        return low(legal)
    others = FULL_MASK & ~gone & ~hand
    mode, cover, nil_opp = _stance(ctx, seat, taken, hand, others)
    if not trick:
        return _lead(ctx, seat, hand, legal, others, mode, cover, nil_opp, voids, broken)
    pos = len(trick)
    seats_after = [(leader + i) & 3 for i in range(pos + 1, 4)]

    led = trick[0] // 13
    wi = trick_winner(trick)
    w = trick[wi]
    winner_seat = (leader + wi) & 3
    follow = hand & SUIT_MASKS[led]

    if mode == AVOID:
        return _lose(legal, follow, w, seats_after)
    partner = seat ^ 2
    # the nils still alive come first: covering the partner's, then setting an opponent's
    if cover:
        card = _cover_nil(legal, follow, w, led, winner_seat == partner, partner in seats_after, bool(seats_after))
        if card >= 0:
            return card
    if nil_opp >= 0:
        card = _set_nil(legal, follow, w, led, nil_opp, winner_seat, partner, seats_after, others, voids,
                        keep_lead)
        if card >= 0:
            return card
    if mode == DUCK:
        card = _lose(legal, follow, w, seats_after)
    else:
        card = _win(hand, legal, follow, w, led, pos, winner_seat == partner, seats_after, others, voids)
    if nil_opp >= 0 and follow >> card & 1 and not beats(card, w):
        # a nil to break: of two small cards that lose, the lowest stays to lead under it
        small = follow & ~beating(follow, w) & SMALL_CARDS
        if small & (small - 1):
            return high(small)
    return card


def _stance(ctx: HandCtx, seat: int, taken: list[int], hand: int, others: int) -> tuple[str, bool, int]:
    """The seat's mode for the trick (WIN, DUCK or AVOID), whether its partner's nil is still
    alive (to cover), and an opponent whose nil is still alive (-1 if none)."""
    if not ctx.bidding:
        return WIN, False, -1
    bids = ctx.bids
    if bids[seat] == 0:
        return AVOID, False, -1
    team = seat & 1
    # team_need for both teams, written out: this runs for every card of a play-out
    a, b = bids[team], bids[team + 2]
    contract = (a or 0) + (b or 0)
    got = (taken[team] if a else 0) + (taken[team + 2] if b else 0)
    a, b = bids[1 - team], bids[3 - team]
    o_contract = (a or 0) + (b or 0)
    o_got = (taken[1 - team] if a else 0) + (taken[3 - team] if b else 0)
    partner = seat ^ 2
    cover = bids[partner] == 0 and taken[partner] == 0
    nil_opp = -1
    for o in ((seat + 1) & 3, (seat + 3) & 3):
        if bids[o] == 0 and taken[o] == 0:
            nil_opp = o
    mode = WIN
    if contract - got <= 0 and contract > 0:
        mode = _mode_when_made(ctx, seat, taken, got - contract, o_contract - o_got, hand, others)
    return mode, cover, nil_opp


def _mode_when_made(ctx: HandCtx, seat: int, taken: list[int], over: int, o_need: int, hand: int,
                    others: int) -> str:
    """WIN or DUCK for a team whose contract is made, ``over`` tricks beyond it: extra
    tricks are bags, unless a set is within reach and chasing it stays clear of the bag
    penalty. A set is in reach when our sure tricks and what the partner bid and has not
    taken yet come within one of the tricks it needs."""
    remaining = 13 - taken[0] - taken[1] - taken[2] - taken[3]
    if o_need <= 0 or o_need > remaining:
        return DUCK
    to_set = remaining - o_need + 1
    bag_room = 10 - ctx.bags[seat & 1] - over if ctx.bag_penalty else 99
    partner = seat ^ 2
    if bag_room > to_set and to_set <= 1 + max(0, (ctx.bids[partner] or 0) - taken[partner]) \
            + _top_tricks(hand, others):
        return WIN
    return DUCK


def _top_tricks(hand: int, others: int) -> int:
    """The tricks ``hand`` takes from the top: each suit's run of bosses, a side suit's cut
    to the rounds before someone is out of it."""
    total = 0
    for s in range(4):
        part = hand & SUIT_MASKS[s]
        if not part:
            continue
        theirs = others & SUIT_MASKS[s]
        run = popcount(part & ~((1 << high(theirs)) - 1)) if theirs else popcount(part)
        total += run if s == 0 else min(run, 1 + popcount(theirs) // 3)
    return total


def _cover_nil(legal: int, follow: int, w: int, led: int, partner_winning: bool,
               partner_after: bool, anyone_after: bool) -> int:
    """A card that takes the trick over the partner's nil, or -1 to play on as usual."""
    if partner_winning:
        # overtake the partner's nil card if we can, as cheaply as possible
        win = beating(legal, w)
        if win:
            return _cheapest(win, led)
    elif partner_after:
        # play high so the partner can duck under us
        win = beating(legal, w)
        if win:
            if follow:
                return high(win)
            return _cheapest(win, led)
    elif anyone_after:
        # the nil has played under another seat's card: it is safe in this trick, so the
        # high cards are kept to cover it later
        return _discard_low(legal, follow)
    return -1


def _set_nil(legal: int, follow: int, w: int, led: int, nil_opp: int, winner_seat: int,
             partner: int, seats_after: list[int], others: int, voids: list[int] | None,
             keep_lead: bool) -> int:
    """A card that leaves the trick to the opponent ``nil_opp``'s nil, or (``keep_lead``)
    that keeps the lead from its partner once the nil has played under; -1 to play on."""
    lose = legal & ~beating(legal, w)
    if winner_seat == nil_opp:
        # the nil bidder is winning: stay under it
        if lose:
            return _highest_in(lose, led, follow)
        return -1
    if nil_opp not in seats_after:
        # it has played under the trick: its partner, still to play, would take the lead
        # and lead for it, unless our side surely has the trick already (asked only when
        # keeping the lead: play-outs go without it and pass here on every such card)
        if keep_lead and (nil_opp ^ 2) in seats_after \
                and not (winner_seat == partner and _sure(w, led, others, seats_after, voids)):
            return _keep_lead(legal, w, led, others, seats_after, voids)
        return -1
    if voids is not None and voids[nil_opp] >> led & 1:
        return -1  # it will throw a card away
    if winner_seat != partner and w // 13 == led and popcount(others & below(w)) > 4:
        return -1  # its partner's high card leaves it room to duck anyway
    # do not raise the card it must stay under: the highest of the suit that loses (low
    # cards are kept to lead into its suits), or a discard rather than a ruff
    if lose & follow:
        return high(lose & follow)
    if lose:
        return _discard_low(lose, 0)
    return -1


def _keep_lead(legal: int, w: int, led: int, others: int, seats_after: list[int],
               voids: list[int] | None) -> int:
    """A card that takes the trick from the seats after us: the cheapest that none of them
    can beat, else the lowest of our highest run (a trump when void in the led suit); -1
    when no card of ours wins it."""
    win = beating(legal, w)
    if not win:
        return -1
    rest = win
    while rest:
        c = low(rest)
        if _sure(c, led, others, seats_after, voids):
            return c
        rest &= rest - 1
    top = high(win)
    return _lowest_equivalent(win & SUIT_MASKS[top // 13], others)


def _win(hand: int, legal: int, follow: int, w: int, led: int, pos: int, partner_winning: bool,
         seats_after: list[int], others: int, voids: list[int] | None) -> int:
    """A card for the WIN mode: take the trick, unless the partner surely has it."""
    if partner_winning and (not seats_after or _sure(w, led, others, seats_after, voids)):
        return _discard_low(legal, follow)
    if follow and partner_winning and w // 13 == led and not (others & above(w)):
        # the partner's card is the boss of the suit led: a higher card of the suit would
        # take the trick only when the partner's does (a ruff beats both)
        return low(follow)
    if follow:
        return _follow_to_win(follow, w, led, pos, partner_winning, seats_after, others)
    # void in the led suit: ruff with the lowest winning trump, over the partner's card
    # too (here it may still be beaten: the partner led and the last seat is to play)
    trumps = beating(hand & SPADE_MASK, w) if led != 0 else 0
    if trumps:
        return low(trumps)
    return _discard_low(legal, 0)


def _follow_to_win(follow: int, w: int, led: int, pos: int, partner_winning: bool,
                   seats_after: list[int], others: int) -> int:
    """A card of the led suit for the WIN mode (``follow`` is not empty)."""
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
    # third hand high: the cheapest card that nobody behind can beat, else our highest;
    # but over a partner's card that at most two cards out can beat, low: the seat behind
    # must hold one of them, and our high card stays to win later
    if partner_winning and popcount(others & above(w)) <= 2:
        return low(follow)
    top = high(win)
    if not (others & above(top)):
        return _lowest_equivalent(win & ~_has_higher(others, led), others)
    if partner_winning:
        return low(follow)
    return top


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
        # the voids shown are what is known: a boss holds unless a seat behind showed out
        return not any(voids[s] >> led & 1 for s in seats_after)
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


def _lose(legal: int, follow: int, w: int, seats_after: list[int]) -> int:
    """Avoid the trick (a contract made, or a nil): the highest card that still loses,
    else give it cheaply. Void in the suit led: under a ruff, the highest spade that stays
    under it (a spade kept may win a trick later), else the highest side card."""
    lose = legal & ~beating(legal, w)
    if follow:
        lose_f = lose & follow
        if lose_f:
            return high(lose_f)
        # every card wins: the last seat wins with its highest, others hope to be overtaken
        return high(follow) if not seats_after else low(follow)
    if lose:
        if w // 13 == SPADES and lose & SPADE_MASK:
            return high(lose & SPADE_MASK)
        side = lose & ~SPADE_MASK
        return highest_by_rank(side) if side else high(lose)
    return low(legal)


def _lead(ctx: HandCtx, seat: int, hand: int, legal: int, others: int, mode: str, cover: bool,
          nil_opp: int, voids: list[int] | None, broken: bool) -> int:
    """The card to lead: low to avoid the trick or set a nil, high over the partner's nil,
    else the card likeliest to win."""
    # covering the partner's nil comes before setting an opponent's, and before ducking bags
    if cover:
        return _lead_over_nil(legal, others, seat ^ 2, voids)
    if mode in (DUCK, AVOID) or nil_opp >= 0:
        return _lead_low(legal, others, nil_opp, voids)
    return _lead_to_win(seat, hand, legal, others, voids)


def _lead_low(legal: int, others: int, nil_opp: int, voids: list[int] | None) -> int:
    """The low lead: the card fewest others can go under, sparing spades."""
    # against a nil, from a suit the nil bidder still holds
    best = -1
    best_key: tuple = (99,)
    for s in (1, 2, 3, 0):
        part = legal & SUIT_MASKS[s]
        if not part:
            continue
        c = low(part)
        theirs_below = popcount(others & below(c))
        nil_void = nil_opp >= 0 and voids is not None and voids[nil_opp] >> s & 1
        sure_win = not (others & above(c))  # nobody can go over it: the trick is ours
        key = (1 if sure_win else 0, 1 if nil_void else 0, 1 if s == 0 else 0, theirs_below, c % 13)
        if key < best_key:
            best, best_key = c, key
    return best


def _lead_over_nil(legal: int, others: int, partner: int, voids: list[int] | None) -> int:
    """The lead over the partner's nil: a boss, in a suit the partner is void in first (it
    throws a high card on it), else the highest card (a spade as readily as a side card)."""
    best = -1
    best_key: tuple = ()
    for s in (1, 2, 3, 0):
        part = legal & SUIT_MASKS[s]
        if not part:
            continue
        top = high(part)
        boss = not (others & above(top)) and others & SUIT_MASKS[s]
        void = voids is not None and voids[partner] >> s & 1
        key = (1 if boss else 0, 1 if void else 0, top % 13, popcount(part))
        if key > best_key:
            best, best_key = top, key
    return best


def _lead_to_win(seat: int, hand: int, legal: int, others: int, voids: list[int] | None) -> int:
    """The lead of the WIN mode: cash a boss, draw trumps, make a void, else lead low and long."""
    best, best_n = _side_boss(seat, legal, others, voids)
    if best >= 0 and best_n >= 2:
        return best
    sp = legal & SPADE_MASK
    theirs_sp = others & SPADE_MASK
    boss_sp = sp and theirs_sp and not (theirs_sp & above(high(sp)))
    if boss_sp and popcount(sp) >= 2:
        return high(sp)  # draw trumps with the boss spade
    if best >= 0:
        return best
    card = _singleton_to_ruff(hand, legal)
    if card < 0:
        card = _low_from_longest(seat ^ 2, legal, voids)
    if card >= 0:
        return card
    return high(sp) if boss_sp else low(legal)


def _side_boss(seat: int, legal: int, others: int, voids: list[int] | None) -> tuple[int, int]:
    """The side-suit boss to cash and the others' cards in its suit (-1, -1 if none)."""
    # a boss the opponents will follow (none void in its suit while spades are out), in the
    # suit the others hold most of
    opps = ((seat + 1) & 3, (seat + 3) & 3)
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
    return best, best_n


def _singleton_to_ruff(hand: int, legal: int) -> int:
    """A singleton side card below the king, or -1: leading it makes a void to ruff in."""
    # only worth it with spades to ruff with
    if popcount(hand & SPADE_MASK) < 2:
        return -1
    for s in SIDE_SUITS:
        part = legal & SUIT_MASKS[s]
        if popcount(part) == 1 and high(part) % 13 < KING:
            return high(part)
    return -1


def _low_from_longest(partner: int, legal: int, voids: list[int] | None) -> int:
    """The lowest card of our longest side suit, or -1 with no side card."""
    # the partner may win it; a suit the partner is void in goes last
    best = -1
    best_key: tuple = (-1,)
    for s in SIDE_SUITS:
        part = legal & SUIT_MASKS[s]
        if part:
            partner_void = voids is not None and voids[partner] >> s & 1
            key = (0 if partner_void else 1, popcount(part))
            if key > best_key:
                best, best_key = low(part), key
    return best
