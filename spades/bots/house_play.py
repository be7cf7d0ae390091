"""The house bots' play (``spades.bots.house`` says which part does what): Normal's card
for one seat (``normal_card``, a slot), with its stance in the hand (win, duck or avoid
the tricks; cover a partner's nil; set an opponent's); a hand played out to its end with
every seat's cards known, every seat by Normal's card (``play_out``, the work of Hard's
search and of the analysis); and a finished hand's worth to a side (``hand_value``).

Imports: ``spades.cards``, ``spades.scoring`` and the house bots' modules only.
"""

from __future__ import annotations

from ..cards import Card
from ..scoring import score_hand
from .house import Game, State
from .slots import (
    SIDE_SUITS,
    SUIT_COUNT,
    TRUMP,
    Table,
    above,
    beating,
    below,
    high,
    low,
    lowest_equivalent,
    trick_winner,
)

EASY_ANY, EASY_HIGH = 0.15, 0.10  # Easy's slips: a share of its cards any legal card, the highest one

# Modes of play for one seat in one trick
WIN, DUCK, AVOID = "win", "duck", "avoid"


def side_need(game: Game, side: int, taken: list[int]) -> tuple[int, int]:
    """(contract, tricks toward it) of a side; nil bidders are left out of both."""
    contract = got = 0
    for s in game.table.sides[side]:
        b = game.bids[s]
        if b:
            contract += b
            got += taken[s]
    return contract, got


def _stance(game: Game, seat: int, taken: list[int], hand: int, others: int) -> tuple[str, bool, list[int]]:
    """The seat's mode (WIN, DUCK or AVOID), whether its partner's nil is alive (to
    cover), and the opponents whose nil is alive."""
    t = game.table
    bids = game.bids
    nil_opps = [o for o in t.opponents(seat) if bids[o] == 0 and taken[o] == 0]
    if bids[seat] == 0:
        return AVOID, False, nil_opps
    p = t.partner[seat]
    cover = p >= 0 and bids[p] == 0 and taken[p] == 0
    side = t.side_of[seat]
    contract, got = side_need(game, side, taken)
    mode = WIN
    if contract > 0 and got >= contract:
        mode = _mode_when_made(game, seat, taken, got - contract, hand, others)
    return mode, cover, nil_opps


def _mode_when_made(game: Game, seat: int, taken: list[int], over: int, hand: int, others: int) -> str:
    """WIN or DUCK for a side whose contract is made: extra tricks are bags, unless a set
    of an opponent is within reach and chasing it stays clear of the bag penalty."""
    t = game.table
    remaining = t.hand_size - sum(taken)
    side = t.side_of[seat]
    bag_room = 10 - game.bags[side] - over if t.rules.bag_penalty else 99
    p = t.partner[seat]
    helper = max(0, (game.bids[p] or 0) - taken[p]) if p >= 0 else 0
    tops = _top_tricks(t, hand, others)
    for o in range(len(t.sides)):
        if o == side:
            continue
        contract, got = side_need(game, o, taken)
        need = contract - got
        if contract and 0 < need <= remaining:
            to_set = remaining - need + 1
            if bag_room > to_set and to_set <= 1 + helper + tops:
                return WIN
    return DUCK


def _top_tricks(t: Table, hand: int, others: int) -> int:
    """The tricks ``hand`` takes from the top: each suit's run of bosses."""
    total = 0
    for s in range(SUIT_COUNT):
        part = hand & t.suits[s]
        if not part:
            continue
        theirs = others & t.suits[s]
        run = (part & ~((1 << high(theirs)) - 1)).bit_count() if theirs else part.bit_count()
        total += run if s == TRUMP else min(run, 1 + theirs.bit_count() // t.players)
    return total


def normal_card(game: Game, seat: int, hand: int, trick: list[int], leader: int, gone: int,
                taken: list[int], broken: bool, voids: list[int] | None = None) -> int:
    """Normal's card (a slot) for ``seat`` holding ``hand`` (slots) on ``trick``."""
    t = game.table
    legal = t.legal(hand, trick, broken)
    if legal & (legal - 1) == 0:
        return low(legal)
    others = t.deck & ~gone & ~hand
    mode, cover, nil_opps = _stance(game, seat, taken, hand, others)
    partner = t.partner[seat]
    if not trick:
        return _lead(t, seat, hand, legal, others, mode, cover, nil_opps, voids)
    seats_after = []
    s = t.left[seat]
    for _ in range(t.players - 1 - len(trick)):
        seats_after.append(s)
        s = t.left[s]
    led = trick[0] >> 4
    wi = trick_winner(trick)
    w = trick[wi]
    winner_seat = leader
    for _ in range(wi):
        winner_seat = t.left[winner_seat]
    follow = hand & t.suits[led]
    if mode == AVOID:
        return _avoid(t, legal, follow, w, led, seats_after, voids)
    if cover:
        card = _cover_nil(t, legal, follow, w, led, winner_seat == partner, partner in seats_after,
                          bool(seats_after))
        if card >= 0:
            return card
    for nil_opp in nil_opps:
        card = _set_nil(t, legal, follow, w, led, nil_opp, winner_seat, partner, seats_after, others, voids)
        if card >= 0:
            return card
    if mode == DUCK:
        return _lose(t, legal, follow, w, seats_after)
    return _win(t, hand, legal, follow, w, led, len(trick), winner_seat == partner, seats_after, others, voids)


def state_card(state: State) -> Card:
    """Normal's card for a read state (whose seat is to play)."""
    assert state.hand is not None
    slot = normal_card(state.game, state.seat, state.hand, state.trick, state.leader, state.gone, state.taken,
                       state.broken, state.voids)
    return state.table.card(slot)








def _sure(t: Table, w: int, led: int, others: int, seats_after: list[int], voids: list[int] | None) -> bool:
    """Whether the winning slot ``w`` cannot be beaten by the seats still to play."""
    if others & above(t, w):
        return False
    if w >> 4 == TRUMP or not seats_after or not (others & t.trumps):
        return True
    if voids is not None and any(voids[s] >> led & 1 for s in seats_after):
        return False
    return (others & t.suits[led]).bit_count() >= 2 * len(seats_after)




def _discard_low(t: Table, legal: int, follow: int) -> int:
    """Lose the least useful card: the lowest of the suit followed, else a low side card
    from the suit we hold most of (keeping short suits short for ruffing)."""
    if follow:
        return low(legal)
    best = -1
    best_key = (99, 0)
    for s in SIDE_SUITS:
        part = legal & t.suits[s]
        if part:
            c = low(part)
            key = (c & 15, -part.bit_count())
            if key < best_key:
                best, best_key = c, key
    return best if best >= 0 else low(legal)


def _lose(t: Table, legal: int, follow: int, w: int, seats_after: list[int]) -> int:
    """Avoid the trick: the highest card that still loses, else give it cheaply."""
    lose = legal & ~beating(t, legal, w)
    if follow:
        lose_f = lose & follow
        if lose_f:
            return high(lose_f)
        return high(follow) if not seats_after else low(follow)
    if lose:
        if w >> 4 == TRUMP and lose & t.trumps:
            return high(lose & t.trumps)
        side = lose & ~t.trumps
        if side:
            best = -1
            for s in SIDE_SUITS:
                part = side & t.suits[s]
                if part and (best < 0 or (part.bit_length() - 1) & 15 > best & 15):
                    best = high(part)
            return best
        return high(lose)
    return low(legal)


def _avoid(t: Table, legal: int, follow: int, w: int, led: int, seats_after: list[int],
           voids: list[int] | None) -> int:
    """The nil bidder's card, ``_lose``'s, but for one case: when every card of the suit
    led wins and every later seat has shown out of it, the highest (a ruff may take it,
    else the trick is lost anyway, so the most dangerous card goes). Void, ``_lose``
    throws a trump under a ruff, else the highest-ranked side card: by play-outs, a
    discard chosen by how exposed a suit's cards are lost more nils at a partners table
    and saved none at three."""
    if (follow and seats_after and voids is not None and not follow & ~beating(t, follow, w)
            and all(voids[s] >> led & 1 for s in seats_after)):
        return high(follow)
    return _lose(t, legal, follow, w, seats_after)


def _cover_nil(t: Table, legal: int, follow: int, w: int, led: int, partner_winning: bool,
               partner_after: bool, anyone_after: bool) -> int:
    """A card that takes the trick over the partner's nil, or -1 to play on as usual."""
    if partner_winning or partner_after:
        win = beating(t, legal, w)
        if win:
            if partner_after and follow:
                return high(win)
            part = win & t.suits[led]
            return low(part) if part else low(win)
    elif anyone_after:
        return _discard_low(t, legal, follow)
    return -1


def _set_nil(t: Table, legal: int, follow: int, w: int, led: int, nil_opp: int, winner_seat: int,
             partner: int, seats_after: list[int], others: int, voids: list[int] | None) -> int:
    """A card that leaves the trick to an opponent's live nil, or -1 to play on."""
    lose = legal & ~beating(t, legal, w)
    if winner_seat == nil_opp:
        if lose:
            part = lose & t.suits[led]
            if follow and part:
                return high(part)
            return highest_side(t, lose)
        return -1
    if nil_opp not in seats_after:
        return -1
    if voids is not None and voids[nil_opp] >> led & 1:
        return -1  # it will throw a card away
    if winner_seat != partner and w >> 4 == led and (others & below(t, w)).bit_count() > 4:
        return -1  # room under the winner for it to duck anyway
    if lose & follow:
        return high(lose & follow)
    if lose:
        return _discard_low(t, lose, 0)
    return -1


def highest_side(t: Table, m: int) -> int:
    """The highest-ranked side card of ``m`` (a trump only when there is none)."""
    side = m & ~t.trumps
    if not side:
        return high(m)
    best = -1
    for s in SIDE_SUITS:
        part = side & t.suits[s]
        if part and (best < 0 or high(part) & 15 > best & 15):
            best = high(part)
    return best


def _win(t: Table, hand: int, legal: int, follow: int, w: int, led: int, pos: int, partner_winning: bool,
         seats_after: list[int], others: int, voids: list[int] | None) -> int:
    """A card for the WIN mode: take the trick cheaply, unless the partner surely has it."""
    if partner_winning and _sure(t, w, led, others, seats_after, voids):
        return _discard_low(t, legal, follow)
    if follow:
        win = beating(t, follow, w)
        if not win:
            return low(follow)
        if not seats_after:
            return low(win)
        theirs = others & t.suits[led]
        if pos == 1 and len(seats_after) >= 1:
            # second hand low, but take a high lead with a boss
            boss = win & ~(below(t, high(theirs)) if theirs else 0)
            if boss and (w & 15 >= 9 or theirs.bit_count() <= 3):
                return lowest_equivalent(boss, others)
            return low(follow)
        top = high(win)
        if not (others & above(t, top)):
            boss = win & ~(below(t, high(theirs)) if theirs else 0)
            return lowest_equivalent(boss or win, others)
        if partner_winning:
            return low(follow)
        return top
    if led != TRUMP:
        trumps = beating(t, hand & t.trumps, w)
        if trumps:
            return low(trumps)
    return _discard_low(t, legal, 0)


def _lead(t: Table, seat: int, hand: int, legal: int, others: int, mode: str, cover: bool,
          nil_opps: list[int], voids: list[int] | None) -> int:
    """The card to lead: high over the partner's nil, low to duck or set a nil, else the
    card likeliest to win (to our strength)."""
    if cover:
        return _lead_over_nil(t, legal, others, t.partner[seat], voids)
    if mode != WIN or nil_opps:
        return _lead_low(t, legal, others, nil_opps, voids)
    return _lead_to_win(t, seat, hand, legal, others, voids)


def _lead_low(t: Table, legal: int, others: int, nil_opps: list[int], voids: list[int] | None) -> int:
    """The low lead: the card fewest others can go under, sparing trumps; against a nil,
    in a suit the nil bidder still holds."""
    best = -1
    best_key: tuple = (99,)
    for s in (1, 2, 3, 0):
        part = legal & t.suits[s]
        if not part:
            continue
        c = low(part)
        theirs_below = (others & below(t, c)).bit_count()
        nil_void = voids is not None and any(voids[o] >> s & 1 for o in nil_opps)
        sure_win = not (others & above(t, c))
        key = (1 if sure_win else 0, 1 if nil_void else 0, 1 if s == TRUMP else 0, theirs_below, c & 15)
        if key < best_key:
            best, best_key = c, key
    return best


def _lead_over_nil(t: Table, legal: int, others: int, partner: int, voids: list[int] | None) -> int:
    """The lead over the partner's nil: a boss, in a suit the partner is void in first."""
    best = -1
    best_key: tuple = ()
    for s in (1, 2, 3, 0):
        part = legal & t.suits[s]
        if not part:
            continue
        top = high(part)
        boss = not (others & above(t, top)) and bool(others & t.suits[s])
        void = voids is not None and voids[partner] >> s & 1
        key = (1 if boss else 0, 1 if void else 0, top & 15, part.bit_count())
        if key > best_key:
            best, best_key = top, key
    return best


def _lead_to_win(t: Table, seat: int, hand: int, legal: int, others: int, voids: list[int] | None) -> int:
    """Cash a side boss, draw trumps with the boss trump, make a void to ruff, else lead
    low from the longest side suit."""
    opps = t.opponents(seat)
    best, best_n = -1, -1
    for s in SIDE_SUITS:
        part = legal & t.suits[s]
        if not part:
            continue
        top = high(part)
        theirs = others & t.suits[s]
        if theirs and not (theirs & above(t, top)):
            if voids is not None and any(voids[o] >> s & 1 for o in opps) and others & t.trumps:
                continue
            n = theirs.bit_count()
            if n > best_n:
                best, best_n = top, n
    if best >= 0 and best_n >= 2:
        return best
    sp = legal & t.trumps
    theirs_sp = others & t.trumps
    boss_sp = bool(sp and theirs_sp and not (theirs_sp & above(t, high(sp))))
    if boss_sp and sp.bit_count() >= 2:
        return high(sp)
    if best >= 0:
        return best
    if (hand & t.trumps).bit_count() >= 2:
        for s in SIDE_SUITS:
            part = legal & t.suits[s]
            if part.bit_count() == 1 and (t.suits[s] & ~((2 << high(part)) - 1)).bit_count() >= 2:
                return high(part)
    p = t.partner[seat]
    card = -1
    key: tuple = (-1,)
    for s in SIDE_SUITS:
        part = legal & t.suits[s]
        if part:
            pv = p >= 0 and voids is not None and voids[p] >> s & 1
            k = (0 if pv else 1, part.bit_count())
            if k > key:
                card, key = low(part), k
    if card >= 0:
        return card
    return high(sp) if boss_sp else low(legal)


# -- a hand played out, and its value ----------------------------------------------------

def play_out(game: Game, hands: list[int], trick: list[int], leader: int, gone: int, taken: list[int],
             broken: bool, voids: list[int], first: int = -1) -> tuple[list[int], int]:
    """Play the hand to its end from a position where every seat's cards are known
    (``hands``, slots), every seat by Normal's heuristic; ``first`` (a slot), when given,
    is the card of the seat to play now. Returns the tricks each seat took and the card
    plays simulated. The lists given are not changed."""
    t = game.table
    n = t.players
    left = t.left
    hands = list(hands)
    trick = list(trick)
    taken = list(taken)
    voids = list(voids)
    seat = leader
    for _ in range(len(trick)):
        seat = left[seat]
    plays = 0
    while True:
        hand = hands[seat]
        if not hand:
            break
        if first >= 0:
            card, first = first, -1
        else:
            card = normal_card(game, seat, hand, trick, leader, gone, taken, broken, voids)
        plays += 1
        if trick and card >> 4 != trick[0] >> 4:
            voids[seat] |= 1 << (trick[0] >> 4)
        hands[seat] = hand & ~(1 << card)
        gone |= 1 << card
        trick.append(card)
        if len(trick) < n:
            seat = left[seat]
            continue
        wi = trick_winner(trick)
        if trick[wi] >> 4 == TRUMP:
            broken = True
        winner = leader
        for _ in range(wi):
            winner = left[winner]
        taken[winner] += 1
        trick = []
        leader = seat = winner
    return taken, plays


def hand_value(game: Game, taken: list[int], side: int) -> float:
    """A finished hand's worth to ``side``: its points (bags, nils and the bag penalty
    counted by ``spades.scoring``) minus the mean of the other sides' points."""
    t = game.table
    bids: list[int | None] = [b or 0 for b in game.bids]
    points = score_hand(t.rules, bids, game.blind, taken, game.bags).points
    others = [p for i, p in enumerate(points) if i != side]
    return points[side] - sum(others) / len(others)


__all__ = ["normal_card", "state_card", "play_out", "hand_value", "highest_side", "side_need", "EASY_ANY",
           "EASY_HIGH"]
