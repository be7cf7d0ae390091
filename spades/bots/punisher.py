"""Punisher: a sparring bot for the arena that plays the way strong club players punish
their opponents (a second measuring stick beside ``spades.bots.yardstick``).

Written from public descriptions of expert club play. Busting an opponent's nil: lead
low in the suits the nil bidder still holds, stay under its winning card, leave it
exposed when it plays after you, keep low cards as exits, and never overtake a card it
would have to beat. Covering a partner's nil: play high before it, overtake or trump its
winning card cheaply, lead bosses and high cards. Setting a close contract: when the
opponents need nearly every trick left, win tricks that would otherwise be ducked and
cash winners before they can discard; when the set is out of reach, waste nothing; a
set that stops the opponents winning the match is pressed whatever the bags. Bags: with
the contract made, duck extra tricks (the highest card that still loses, high cards
dumped under others' winners), unless a set is in reach for fewer bags than the next
ten. Otherwise ordinary club play: second hand low, third hand high, the cheapest
winning card, never trump a partner's sure winner, draw trumps with the boss spade, cash
side bosses. Bids count sure tricks the conventional way, shaded beside a strong
partner or against a nil, up near ten bags or with tricks to spare as the last bidder;
nil only with a really safe hand. No-bidding mode plays to win every trick.

Hard's search also plays the other team's cards with ``play_card`` in its play-outs
(``spades.bots.search.ATTACKERS``): its model of opponents who attack. Nothing here
depends on Hard or Normal, so the arena still measures them against an independent
card play, though Hard's figures against ``punisher`` flatter it (its play-outs know how
these opponents play), and the yardstick and Normal are the fairer tests of Hard.

API:
- ``choose(view, seed=0) -> int | str``: a legal action in JSON form for the seat view of
  BOTS.md; ValueError when it is not the seat's turn. Deterministic (the seed is unused).
- ``play_card(ctx, seat, hand, trick, leader, gone, taken, broken, voids=None) -> int``:
  the card (0-51) on bit masks, with the signature of ``spades.bots.policy.play_card``,
  fast enough for simulated play-outs; ``choose`` plays the card it returns for the
  masks of ``position(view)``.
- ``choose_bid(view)``, ``choose_blind(view)``, ``count_tricks(hand)``, ``nil_safe(hand)``.

Imports: ``spades.cards``, ``spades.rules.legal_mask`` and ``spades.bots.policy.HandCtx``
(as a data type only).
"""

from __future__ import annotations

from ..cards import CARDS, FULL_MASK, SIDE_MASK, SPADE_MASK, SUIT_MASKS, Card, mask_of
from ..rules import legal_mask
from .policy import HandCtx

__all__ = ["choose", "play_card", "choose_bid", "choose_blind", "count_tricks", "nil_safe", "position"]

WIN, PRESS, DUCK = 0, 1, 2  # play for tricks; the same, pressing for a set; avoid tricks (bags)
_ABOVE = tuple(SUIT_MASKS[c // 13] & ~((2 << c) - 1) for c in range(52))  # same suit, higher
_BELOW = tuple(SUIT_MASKS[c // 13] & ((1 << c) - 1) for c in range(52))  # same suit, lower
_SMALL = mask_of([c for c in range(52) if c % 13 <= 8])  # tens and below: the exits


def _low(m: int) -> int:
    """The lowest card of a non-empty mask."""
    return (m & -m).bit_length() - 1


def _high(m: int) -> int:
    """The highest card of a non-empty mask."""
    return m.bit_length() - 1


def _top_rank(m: int) -> int:
    """The highest-ranked card of a mask across suits (the most dangerous one), or -1."""
    best, rank = -1, -1
    for s in (1, 2, 3, 0):
        part = m & SUIT_MASKS[s]
        if part:
            c = _high(part)
            if c % 13 > rank:
                best, rank = c, c % 13
    return best


def _winner(trick: list[int]) -> int:
    """The index of the card winning the trick so far."""
    best, w = 0, trick[0]
    for i in range(1, len(trick)):
        c = trick[i]
        if (c > w and c // 13 == w // 13) or (c < 13 <= w):
            best, w = i, c
    return best


def _beaters(legal: int, w: int) -> int:
    """The cards of ``legal`` that beat the winning card ``w``."""
    return (legal & _ABOVE[w]) | (legal & SPADE_MASK if w >= 13 else 0)


def _sure(c: int, led: int, after: list[int], others: int, voids: list[int] | None) -> bool:
    """``c``, winning the trick led in suit ``led`` now, cannot be beaten by the seats still
    to play (as far as the cards out, the known voids and the length of the suit tell)."""
    if not after:
        return True
    s = c // 13
    if s != led:  # a trump on a side suit: beaten only by an overtrump
        return not others & _ABOVE[c] or not _ruff_risk(led, after, others, voids)
    if others & _ABOVE[c] and (voids is None or not all(voids[p] >> s & 1 for p in after)):
        return False
    return s == 0 or not _ruff_risk(s, after, others, voids)


def _ruff_risk(s: int, after: list[int], others: int, voids: list[int] | None) -> bool:
    """A seat still to play may be void in the side suit ``s`` and hold a spade."""
    if not others & SPADE_MASK:
        return False
    if voids is not None:
        for p in after:
            if voids[p] >> s & 1 and not voids[p] & 1:
                return True
    return (others & SUIT_MASKS[s]).bit_count() < len(after)


def _cheapest_sure(beat: int, led: int, after: list[int], others: int, voids: list[int] | None) -> int:
    """The lowest card of ``beat`` that is a sure winner, or -1."""
    while beat:
        c = _low(beat)
        if _sure(c, led, after, others, voids):
            return c
        beat &= beat - 1
    return -1


def _equal_down(c: int, hand: int, others: int) -> int:
    """The lowest card of my run through ``c`` with no card out between (worth the same)."""
    while True:
        below = hand & _BELOW[c]
        if not below:
            return c
        nxt = _high(below)
        if others & _ABOVE[nxt] & _BELOW[c]:
            return c
        c = nxt


# -- the stance for the trick ----------------------------------------------------------

def _top_tricks(hand: int, others: int) -> int:
    """Tricks my cards take off the top: boss runs, side runs cut to the suit's length out."""
    total = 0
    for s in range(4):
        m, out = hand & SUIT_MASKS[s], others & SUIT_MASKS[s]
        run = 0
        while m:
            h = _high(m)
            if out & _ABOVE[h]:
                break
            run += 1
            m ^= 1 << h
        total += run if s == 0 else min(run, 1 + out.bit_count() // 3)
    return total


def _decisive(ctx: HandCtx, team: int, theirs: int) -> bool:
    """The opponents' contract, made, would take them past the target and win the match."""
    if ctx.target is None:
        return False
    ours, their_score = ctx.scores[team], ctx.scores[team ^ 1]
    return their_score + 10 * theirs >= ctx.target and their_score + 10 * theirs > ours


def _mode(ctx: HandCtx, seat: int, hand: int, others: int, taken: list[int]) -> int:
    """WIN, PRESS or DUCK for ``seat`` (not a live nil) from the contracts and bags."""
    bids, team = ctx.bids, seat & 1
    mine = got = theirs = their_got = nil_bags = 0
    for s in range(4):
        b = bids[s] or 0
        if s & 1 == team:
            if b:
                mine += b
                got += taken[s]
            else:
                nil_bags += taken[s]
        elif b:
            theirs += b
            their_got += taken[s]
    left = 13 - taken[0] - taken[1] - taken[2] - taken[3]
    their_need = theirs - their_got
    deny = left - their_need + 1  # tricks we must take to set them
    reach = decisive = False
    if 0 < their_need <= left:
        partner = seat ^ 2
        help_ = max(0, (bids[partner] or 0) - taken[partner])
        decisive = _decisive(ctx, team, theirs)
        reach = deny <= 1 + decisive + _top_tricks(hand, others) + help_
    need = mine - got
    if (bids[seat] and 0 < need <= left) or need > left or not ctx.bag_penalty:
        return PRESS if reach else WIN
    if reach and decisive:
        return PRESS
    if reach:
        bags = ctx.bags[team] % 10 + max(0, got - mine) + nil_bags
        if bags + deny < 10 or theirs >= 10:
            return PRESS
    return DUCK


# -- the card ------------------------------------------------------------------------------

def play_card(ctx: HandCtx, seat: int, hand: int, trick: list[int], leader: int, gone: int,
              taken: list[int], broken: bool, voids: list[int] | None = None) -> int:
    """The card (an int 0-51) for ``seat``; ``gone`` holds every card played this hand."""
    legal = legal_mask(hand, trick, broken)
    if not legal & (legal - 1):
        return _low(legal)
    others = FULL_MASK & ~gone & ~hand
    if not ctx.bidding:
        if not trick:
            return _lead_win(hand, legal, others, voids, seat)
        return _follow(hand, legal, trick, leader, seat, others, voids, WIN)
    bids = ctx.bids
    if bids[seat] == 0 and not taken[seat]:
        return _lead_low(legal, others) if not trick else _follow_low(legal, trick)
    partner = seat ^ 2
    if bids[partner] == 0 and not taken[partner]:
        card = _cover(hand, legal, trick, leader, seat, others, voids)
        if card >= 0:
            return card
    nils = [o for o in (seat ^ 1, seat ^ 3) if bids[o] == 0 and not taken[o]]
    if nils:
        card = _bust(legal, trick, leader, seat, others, voids, nils)
        if card >= 0:
            return card
    mode = _mode(ctx, seat, hand, others, taken)
    if not trick:
        if mode == DUCK:
            return _lead_low(legal, others)
        return _lead_win(hand, legal, others, voids, seat, mode == PRESS)
    card = _follow(hand, legal, trick, leader, seat, others, voids, mode)
    if nils:
        card = _keep_exits(card, legal, trick)
    return card


def _follow(hand: int, legal: int, trick: list[int], leader: int, seat: int, others: int,
            voids: list[int] | None, mode: int) -> int:
    """A card on a trick in progress, for tricks (WIN, PRESS) or against them (DUCK)."""
    if mode == DUCK:
        return _follow_low(legal, trick)
    after = [(leader + i) & 3 for i in range(len(trick) + 1, 4)]
    wi = _winner(trick)
    w = trick[wi]
    return _follow_win(hand, legal, trick, w, (leader + wi) & 3 == seat ^ 2, after, others, voids,
                       mode == PRESS)


def _follow_win(hand: int, legal: int, trick: list[int], w: int, partner_wins: bool, after: list[int],
                others: int, voids: list[int] | None, press: bool) -> int:
    """Club play for tricks: second hand low, third hand high, fourth hand cheapest. A
    partner's sure winner is left alone; one that may be beaten is overtaken by a sure
    winner of the suit (trumped only when pressing for a set)."""
    led = trick[0] // 13
    following = legal & SUIT_MASKS[led]
    beat = _beaters(legal, w)
    if partner_wins:
        if not after or _sure(w, led, after, others, voids):
            return _dump(legal, following, others)
        card = _cheapest_sure(beat, led, after, others, voids) if following or press else -1
        return card if card >= 0 else _dump(legal, following, others)
    if not beat:
        return _dump(legal, following, others)
    if not after:
        return _low(beat)
    sure = _cheapest_sure(beat, led, after, others, voids)
    if following:
        if len(trick) == 1:  # second hand low, unless a sure winner takes a high lead or a set is on
            if sure >= 0 and (press or w % 13 >= 8):
                return sure
            return _low(following)
        if sure >= 0:
            return sure
        return _equal_down(_high(beat), hand, others)
    return _low(beat)  # trump with the lowest spade that wins


def _dump(legal: int, following: int, others: int) -> int:
    """A card that gives nothing away: the lowest of the led suit, else the lowest side
    card (a non-boss from a short suit first), keeping spades."""
    if following:
        return _low(following)
    best, key = -1, None
    for s in (1, 2, 3):
        m = legal & SUIT_MASKS[s]
        if m:
            c = _low(m)
            k = (not others & _ABOVE[_high(m)], c % 13, m.bit_count())
            if key is None or k < key:
                best, key = c, k
    return best if best >= 0 else _low(legal)


def _lead_win(hand: int, legal: int, others: int, voids: list[int] | None, seat: int,
              press: bool = False) -> int:
    """A lead for tricks: side bosses, then the boss spade to draw trumps, then a low
    singleton (to ruff later), then low from the longest suit not led away from an honour."""
    spades_out = others & SPADE_MASK
    opps = (seat ^ 1, seat ^ 3)
    best, length = -1, -1
    for s in (1, 2, 3):
        m = legal & SUIT_MASKS[s]
        if not m:
            continue
        h, out = _high(m), others & SUIT_MASKS[s]
        if others & _ABOVE[h] or (spades_out and not out):
            continue
        if spades_out and voids is not None and any(voids[o] >> s & 1 and not voids[o] & 1 for o in opps):
            continue
        n = (hand & SUIT_MASKS[s]).bit_count()
        if n > length or (press and n == length):
            best, length = _equal_down(h, hand, others), n
    if best >= 0:
        return best
    spades = legal & SPADE_MASK
    if spades and spades_out and not others & _ABOVE[_high(spades)]:
        return _equal_down(_high(spades), hand, others)
    side = legal & SIDE_MASK
    if not side:
        h = _high(legal)
        return h if not others & _ABOVE[h] else _low(legal)
    if hand & SPADE_MASK:
        for s in (1, 2, 3):
            m = side & SUIT_MASKS[s]
            if m and not m & (m - 1) and m.bit_count() == (hand & SUIT_MASKS[s]).bit_count() \
                    and m & _SMALL and others & _ABOVE[_low(m)]:
                return _low(m)
    best, key = -1, None
    for s in (1, 2, 3):
        m = side & SUIT_MASKS[s]
        if not m:
            continue
        h, n = _high(m), m.bit_count()
        guarded_honour = h % 13 >= 10 and others & _ABOVE[h] and n <= 3
        opp_ruffs = voids is not None and spades_out and any(voids[o] >> s & 1 and not voids[o] & 1
                                                              for o in opps)
        partner_ruffs = voids is not None and voids[seat ^ 2] >> s & 1 and not voids[seat ^ 2] & 1
        k = (bool(opp_ruffs), not partner_ruffs, bool(guarded_honour), n, _low(m) % 13)
        if key is None or k < key:
            best, key = _low(m), k
    return best


# -- avoiding tricks: my own nil, or bags once the contract is made ---------------------------

def _lead_low(legal: int, others: int) -> int:
    """The low card others must go over: the fewest cards out under it, many over it,
    a side suit before spades."""
    best, key = -1, None
    for s in (1, 2, 3, 0):
        m = legal & SUIT_MASKS[s]
        if not m:
            continue
        c = _low(m)
        over, under = (others & _ABOVE[c]).bit_count(), (others & _BELOW[c]).bit_count()
        k = (s == 0, over == 0, under, -over)
        if key is None or k < key:
            best, key = c, k
    return best


def _follow_low(legal: int, trick: list[int]) -> int:
    """The highest card that still loses (high cards dumped under others' winners); when
    every card wins, the lowest if someone may still overtake, else the highest."""
    w = trick[_winner(trick)]
    lose = legal & ~_beaters(legal, w)
    if lose:
        return _shed(lose, w)
    return _low(legal) if len(trick) < 3 else _high(legal)


def _shed(lose: int, w: int) -> int:
    """The losing card to get rid of: the highest of the suit followed, a high spade under
    a higher trump, else the highest side card."""
    suited = lose & SUIT_MASKS[w // 13]
    if suited:
        return _high(suited)
    if lose & SIDE_MASK:
        return _top_rank(lose & SIDE_MASK)
    return _high(lose)


# -- a partner's nil -----------------------------------------------------------------------------

def _cover(hand: int, legal: int, trick: list[int], leader: int, seat: int, others: int,
           voids: list[int] | None) -> int:
    """For the partner's live nil: high before it, overtake its winning card cheaply, lead
    bosses and high cards; -1 when the partner is safe in this trick."""
    p = seat ^ 2
    if not trick:
        return _lead_cover(hand, legal, others, voids, p)
    wi = _winner(trick)
    w = trick[wi]
    beat = _beaters(legal, w)
    if (p - leader) & 3 < len(trick):  # the partner has played
        if (leader + wi) & 3 == p and beat:
            following = beat & SUIT_MASKS[trick[0] // 13]
            return _low(following or beat & SPADE_MASK or beat)
        return -1
    following = legal & SUIT_MASKS[trick[0] // 13]
    if following:
        return _high(following) if beat else -1
    if beat & SPADE_MASK:
        return _low(beat & SPADE_MASK)
    return -1


def _lead_cover(hand: int, legal: int, others: int, voids: list[int] | None, p: int) -> int:
    """A lead that shields the nil partner: a boss (a suit it is void in first), else the
    highest card of a suit it is void in, else my highest card."""
    best, key = -1, None
    for s in (1, 2, 3, 0):
        m = legal & SUIT_MASKS[s]
        if not m:
            continue
        h = _high(m)
        boss = not others & _ABOVE[h] and others & SUIT_MASKS[s]
        void = voids is not None and voids[p] >> s & 1
        k = (not boss, not void, -(h % 13), -m.bit_count())
        if key is None or k < key:
            best, key = h, k
    return best


# -- an opponent's nil ----------------------------------------------------------------------------

def _bust(legal: int, trick: list[int], leader: int, seat: int, others: int, voids: list[int] | None,
          nils: list[int]) -> int:
    """Against a live opponent's nil: lead low into its suits, stay under its winning
    card, do not raise the bar it must stay under; -1 when it has nothing to say."""
    if not trick:
        return _lead_bust(legal, others, voids, nils)
    wi = _winner(trick)
    w, wseat = trick[wi], (leader + wi) & 3
    led = trick[0] // 13
    for n in nils:
        if (n - leader) & 3 < len(trick):  # the nil bidder has played
            if wseat == n:
                lose = legal & ~_beaters(legal, w)
                return _shed(lose, w) if lose else _high(legal & SUIT_MASKS[led] or legal)
            continue
        if voids is not None and voids[n] >> led & 1:
            continue  # it will discard
        if wseat != seat ^ 2 and (others & _BELOW[w]).bit_count() > 4 and w // 13 == led:
            continue  # its partner's card leaves it room to duck anyway
        lose = legal & ~_beaters(legal, w)
        if lose:
            suited = lose & SUIT_MASKS[led]
            return _high(suited) if suited else _shed(lose, w)
        return _low(legal)
    return -1


def _lead_bust(legal: int, others: int, voids: list[int] | None, nils: list[int]) -> int:
    """A low lead in a suit the nil bidder still holds, where it has the fewest cards out
    under mine to duck with; -1 when no suit fits."""
    best, key = -1, None
    for n in nils:
        partner_of_nil = n ^ 2
        for s in (1, 2, 3, 0):
            m = legal & SUIT_MASKS[s]
            if not m or (voids is not None and voids[n] >> s & 1):
                continue
            c = _low(m)
            over, under = (others & _ABOVE[c]).bit_count(), (others & _BELOW[c]).bit_count()
            if not over or under > 5:
                continue
            ruffed = voids is not None and s and voids[partner_of_nil] >> s & 1 and not voids[partner_of_nil] & 1
            k = (bool(ruffed), under, s == 0, -over)
            if key is None or k < key:
                best, key = c, k
    return best


def _keep_exits(card: int, legal: int, trick: list[int]) -> int:
    """While an opponent's nil lives, a losing card of the led suit is the highest small
    one, so the lowest cards stay as exits under the nil bidder."""
    w = trick[_winner(trick)]
    if card // 13 != trick[0] // 13 or _beaters(1 << card, w):
        return card
    small = legal & SUIT_MASKS[trick[0] // 13] & ~_beaters(legal, w) & _SMALL
    return _high(small) if small & (small - 1) else card


# -- bidding ----------------------------------------------------------------------------------------

def count_tricks(hand: int) -> float:
    """Sure and likely tricks of a hand (a mask), counted the club way: spade honours and
    length, side aces, guarded kings and queens, ruffs with spare spades."""
    sp = hand & SPADE_MASK
    n = sp.bit_count()
    ace, king, queen, jack = sp >> 12 & 1, sp >> 11 & 1, sp >> 10 & 1, sp >> 9 & 1
    honours = ace + king * (0.4 if n < 2 else 0.85 if n == 2 else 1.0)
    honours += queen * (1.0 if n >= 3 and (ace or king) else 0.6 if n >= 3 else 0.2)
    honours += jack * (0.3 if n == 3 else 0.4 if n >= 4 else 0.0)
    length = 0.35 if n == 3 else 0.8 * (n - 3) if n > 3 else 0.0
    spade_tricks = min(float(n), honours + length)
    total = spade_tricks
    ruffs = 0.0
    for s in (1, 2, 3):
        m = hand >> (13 * s) & 0x1FFF
        n_s = m.bit_count()
        a, k, q = m >> 12 & 1, m >> 11 & 1, m >> 10 & 1
        total += a * (1.0 if n_s <= 6 else 0.8)
        if k:
            total += (0.9 if n_s <= 3 else 0.7) if a else _KING[min(n_s, 6)]
        if q:
            total += _QUEEN[min(n_s, 5)] + (0.1 if a or k else 0.0)
        ruffs += (1.2, 0.6, 0.2)[n_s] if n_s <= 2 else 0.0
    spare = max(0.0, n - spade_tricks)
    return total + min(ruffs, spare * 0.6)


_KING = (0.0, 0.1, 0.8, 0.8, 0.7, 0.7, 0.6)  # a king without the ace, by the suit's length
_QUEEN = (0.0, 0.0, 0.1, 0.45, 0.4, 0.3)  # a queen, by the suit's length


_GUARDS = (1, 1, 2, 2)  # lower cards a ten, jack, queen, king need beside it for a nil


def nil_safe(hand: int) -> bool:
    """A hand that can hope to take no trick: few low spades, no side ace, every side
    honour guarded by enough lower cards."""
    sp = hand & SPADE_MASK
    n = sp.bit_count()
    if n > 3 or (n and _high(sp) > (9 if n <= 2 else 7)):
        return False
    for s in (1, 2, 3):
        m = hand >> (13 * s) & 0x1FFF
        if m >> 12 & 1:
            return False
        rest = m
        while rest:
            r = rest.bit_length() - 1
            rest ^= 1 << r
            if r >= 8 and rest.bit_count() < _GUARDS[r - 8]:
                return False
    return count_tricks(hand) < 2.0


def _bid_value(bid: int | str | None) -> int | None:
    return None if bid is None else 0 if bid in ("nil", "blind_nil") else int(bid)


def choose_bid(view: dict) -> int | str:
    """The bid: nil with a safe hand beside a partner who can cover, else the sure tricks
    shaded down a little, adjusted for the partner's bid, the table and bags near ten."""
    hand = mask_of([Card.parse(c) for c in view["hand"]])
    seat, legal = view["seat"], view["legal"]
    bids = [_bid_value(b) for b in view["bids"]]
    rules = view.get("rules") or {}
    partner = bids[seat ^ 2]
    if "nil" in legal and nil_safe(hand) and partner != 0 and (partner is None or partner >= 3):
        return "nil"
    tricks = count_tricks(hand)
    bags = (view.get("bags") or [0, 0])[seat & 1]
    lift = 0.35 if rules.get("bag_penalty", True) and bags >= 7 else 0.0
    strong_partner = partner is not None and partner >= 6  # holding some of the same tricks
    shade = 0.3 if strong_partner else 0.0
    if 0 in (bids[seat ^ 1], bids[seat ^ 3]):
        shade += 0.3  # busting their nil costs tricks
    bid = int(tricks + lift - shade)
    placed = sum(b for s, b in enumerate(bids) if s != seat and b)
    if placed + bid > 13:
        bid -= 1  # the table is overbid: someone is set, shade ours
    elif all(b is not None for s, b in enumerate(bids) if s != seat) and placed + bid <= 10 \
            and tricks - bid >= 0.5:
        bid += 1  # the last bid, tricks to spare on the table: claim one rather than take a bag
    numbers = [b for b in legal if isinstance(b, int)]
    bid = max(1, min(13, bid))
    if bid not in legal and numbers:
        bid = min(numbers, key=lambda b: abs(b - bid))
    return bid


def choose_blind(view: dict) -> str:
    """Blind nil only when well behind late in the match, beside a partner who can cover."""
    seat = view["seat"]
    scores = view.get("scores") or [0, 0]
    rules = view.get("rules") or {}
    partner = _bid_value(view["bids"][seat ^ 2])
    behind = scores[(seat & 1) ^ 1] - scores[seat & 1]
    late = rules.get("end", "target") != "target" or scores[(seat & 1) ^ 1] >= rules.get("target", 500) - 150
    if ("blind_nil" in view["legal"] and behind >= 200 and late
            and (partner is None or partner >= 4)):
        return "blind_nil"
    return "look"


# -- the seat view -------------------------------------------------------------------------------

def position(view: dict) -> tuple:
    """The arguments of ``play_card`` read from a seat view: (ctx, seat, hand, trick,
    leader, gone, taken, broken, voids), the voids taken from the cards played."""
    rules = view.get("rules") or {}
    bids = [_bid_value(b) for b in view.get("bids") or [None] * 4]
    ctx = HandCtx(bidding=rules.get("mode", "bidding") == "bidding", bids=bids,
                  blind=list(view.get("blind") or [False] * 4), scores=list(view.get("scores") or [0, 0]),
                  bags=list(view.get("bags") or [0, 0]), bag_penalty=bool(rules.get("bag_penalty", True)),
                  target=rules.get("target", 500) if rules.get("end", "target") == "target" else None)
    hand = mask_of([Card.parse(c) for c in view["hand"]])
    voids = [0, 0, 0, 0]
    gone = 0
    current = view.get("trick") or {"leader": view["seat"], "cards": []}
    for t in [*(view.get("tricks") or []), current]:
        cards = [Card.parse(c) for c in t["cards"]]
        gone |= mask_of(cards)
        for i, c in enumerate(cards):
            if c // 13 != cards[0] // 13:
                voids[(t["leader"] + i) & 3] |= 1 << (cards[0] // 13)
    trick = [int(Card.parse(c)) for c in current["cards"]]
    return (ctx, view["seat"], hand, trick, current["leader"], gone, list(view.get("taken") or [0] * 4),
            bool(view.get("spades_broken")), voids)


def choose(view: dict, seed: int = 0) -> int | str:
    """A legal action (JSON form) for the seat view; ValueError when it is not its turn."""
    legal = view.get("legal") or []
    if not legal or view.get("to_act") != view.get("seat"):
        raise ValueError("It is not this seat's turn: there is nothing to choose.")
    if len(legal) == 1:
        return legal[0]
    if "look" in legal or "blind_nil" in legal:
        return choose_blind(view)
    if isinstance(legal[0], int) or "nil" in legal:
        return choose_bid(view)
    return str(CARDS[play_card(*position(view))])
