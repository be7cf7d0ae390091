"""Yardstick: an independent, conventional rule-based Spades bot (a measuring stick).

Written from public descriptions of expert club play (sure-trick bid counting, "second
hand low, third hand high", cash your bosses, never trump your partner's winner, duck
once the contract is made to keep bags down, cover a partner's nil, set the opponents'
nil), not from the site's Normal/Hard code. It reads only the seat view of BOTS.md
and works on card strings ("QS"); it keeps no state and uses no randomness, so an
answer depends on the view alone (the seed is accepted for the arena's signature).

``choose(view, seed) -> int | str`` returns a legal action in JSON form.

Imports: stdlib only (and nothing from the web layer).
"""

from __future__ import annotations

RANKS = "23456789TJQKA"
SUITS = "SHDC"
SIDE = "HDC"
DECK = [r + s for s in SUITS for r in RANKS]
A, K, Q, J, T = 12, 11, 10, 9, 8


def rank(card: str) -> int:
    return RANKS.index(card[0])


def suit(card: str) -> str:
    return card[1]


def _is_nil(bid: object) -> bool:
    return bid == "nil" or bid == "blind_nil" or bid == 0


# ----------------------------------------------------------------------------------
# Bidding
# ----------------------------------------------------------------------------------

def count_tricks(hand: list[str]) -> float:
    """Sure and likely tricks of a hand, counted the club way (a little conservative)."""
    by_suit = {s: sorted((rank(c) for c in hand if suit(c) == s), reverse=True) for s in SUITS}
    total = 0.0
    # side suits: aces, guarded kings, twice-guarded queens
    for s in SIDE:
        ranks = by_suit[s]
        n = len(ranks)
        if A in ranks:
            total += 1.0 if n <= 6 else 0.5
        if K in ranks:
            if A in ranks:
                total += 0.9 if n <= 5 else 0.4
            elif n >= 2:
                total += 0.7 if n <= 5 else 0.3
        if Q in ranks and n >= 3:
            if A in ranks or K in ranks:
                total += 0.4 if n <= 5 else 0.0
            else:
                total += 0.25 if n <= 4 else 0.0
    # spades: honours by length, then length beyond three
    sp = by_suit["S"]
    n = len(sp)
    honours = 0.0
    if A in sp:
        honours += 1.0
    if K in sp:
        honours += 1.0 if (A in sp or n >= 3) else (0.75 if n >= 2 else 0.25)
    if Q in sp:
        honours += 1.0 if (A in sp and K in sp) else (0.6 if n >= 3 else 0.2)
    if J in sp and n >= 4:
        honours += 0.4
    total += honours
    total += max(0, n - 3)
    # ruffing: short side suits with spades to spare (spades not already counted)
    spare = max(0, min(n, 3) - int(honours + 0.5))
    ruffs = 0.0
    for s in SIDE:
        length = len(by_suit[s])
        if length == 0:
            ruffs += 1.0
        elif length == 1:
            ruffs += 0.5
        elif length == 2:
            ruffs += 0.25
    total += min(ruffs, spare)
    return total


def nil_worthy(hand: list[str]) -> bool:
    """A hand that can hope to take no trick: no high or many spades, no bare side honours."""
    sp = [rank(c) for c in hand if suit(c) == "S"]
    if len(sp) > 3 or any(r > 7 for r in sp):  # nothing above the nine of spades
        return False
    danger = 0.0
    for s in SIDE:
        ranks = sorted((rank(c) for c in hand if suit(c) == s), reverse=True)
        n = len(ranks)
        if A in ranks:
            return False
        if K in ranks and n < 4:
            return False
        lows = sum(1 for r in ranks if r <= 5)  # 2-7 guard the high cards
        highs = sum(1 for r in ranks if r >= J)
        if n <= 2 and highs:
            danger += highs
        elif highs > lows:
            danger += highs - lows
    return danger <= 1


def choose_bid(view: dict) -> int | str:
    hand = view["hand"]
    seat = view["seat"]
    partner = (seat + 2) % 4
    bids = view["bids"]
    rules = view.get("rules") or {}
    legal = view["legal"]
    partner_bid = bids[partner]
    partner_nil = partner_bid is not None and _is_nil(partner_bid)
    tricks = count_tricks(hand)

    if "nil" in legal and not partner_nil and nil_worthy(hand) and tricks < 2.5:
        weak_partner = isinstance(partner_bid, int) and 0 < partner_bid <= 2
        if not weak_partner:
            return "nil"

    bid = int(tricks - 0.3 + 0.5)  # round, shaded a little down
    if partner_nil:
        bid += 1  # we carry the contract and cover the nil
    placed = [b for s, b in enumerate(bids) if s != seat and b is not None]
    table = sum(b for b in placed if isinstance(b, int) and not isinstance(b, bool))
    if table + bid > 13:
        bid -= 1 if table + bid <= 15 else 2
    elif len(placed) == 3 and table + bid <= 10 and tricks - bid >= 0.5:
        bid += 1  # last to bid, the table is short of tricks: claim the spare
    if rules.get("bag_penalty", True):
        mine = view.get("bags", [0, 0])[seat % 2]
        if mine >= 7 and tricks - bid >= 0.4:
            bid += 1  # near the bag penalty: bid the near-trick rather than take it as a bag
    bid = max(1, min(13, bid))
    if bid not in legal:
        numbers = [b for b in legal if isinstance(b, int)]
        bid = min(numbers, key=lambda b: abs(b - bid)) if numbers else legal[0]
    return bid


def choose_blind(view: dict) -> str:
    """Blind nil only when far behind and the partner has not bid nil or weak."""
    seat = view["seat"]
    team = seat % 2
    scores = view.get("scores", [0, 0])
    partner_bid = view["bids"][(seat + 2) % 4]
    behind = scores[1 - team] - scores[team]
    if ("blind_nil" in view["legal"] and behind >= 200
            and not (partner_bid is not None and (_is_nil(partner_bid) or partner_bid < 3))):
        return "blind_nil"
    return "look"


# ----------------------------------------------------------------------------------
# Play
# ----------------------------------------------------------------------------------

class Table:
    """What the seat can read from the view: played cards, voids, the trick so far."""

    def __init__(self, view: dict) -> None:
        self.seat = view["seat"]
        self.partner = (self.seat + 2) % 4
        self.opps = ((self.seat + 1) % 4, (self.seat + 3) % 4)
        self.hand = list(view["hand"])
        self.legal = [c for c in view["legal"] if isinstance(c, str)]
        self.rules = view.get("rules") or {}
        self.bids = view.get("bids") or [None] * 4
        self.taken = view.get("taken") or [0, 0, 0, 0]
        self.played: set[str] = set()
        self.void: list[set[str]] = [set() for _ in range(4)]
        self.partner_led: set[str] = set()
        for t in view.get("tricks") or []:
            self._read(t["leader"], t["cards"])
        cur = view.get("trick") or {"leader": self.seat, "cards": []}
        self.leader = cur["leader"]
        self.cards = list(cur["cards"])
        self._read(self.leader, self.cards)
        mine = set(self.hand)
        self.unseen = {c for c in DECK if c not in mine and c not in self.played}

    def _read(self, leader: int, cards: list[str]) -> None:
        if not cards:
            return
        led = suit(cards[0])
        if leader == self.partner:
            self.partner_led.add(led)
        for i, c in enumerate(cards):
            self.played.add(c)
            if suit(c) != led:
                self.void[(leader + i) % 4].add(led)

    # --- the trick in progress -----------------------------------------------------
    def winner(self) -> tuple[int, str]:
        """(seat, card) winning the trick in progress (which has cards)."""
        led = suit(self.cards[0])
        best_i, best = 0, self.cards[0]
        for i, c in enumerate(self.cards[1:], 1):
            if beats(c, best, led):
                best_i, best = i, c
        return (self.leader + best_i) % 4, best

    def boss(self, card: str) -> bool:
        """No card of its suit above it is still out (unplayed and not in my hand)."""
        s, r = suit(card), rank(card)
        return not any(suit(u) == s and rank(u) > r for u in self.unseen)

    def sure(self, card: str, led: str) -> bool:
        """``card``, winning now, cannot be beaten by the players still to act (as far as
        the seat can tell: higher cards of the suit or a trump may be out)."""
        to_come = [(self.leader + i) % 4 for i in range(len(self.cards) + 1, 4)]
        if not to_come:
            return True
        if suit(card) == "S":
            return self.boss(card)
        if not self.boss(card):
            return False
        spades_out = any(suit(u) == "S" for u in self.unseen)
        return not (spades_out and any(led in self.void[p] for p in to_come))

    def is_nil(self, s: int) -> bool:
        return _is_nil(self.bids[s])

    def contract_made(self) -> bool:
        team = (self.seat, self.partner)
        contract = sum(b for s in team if isinstance(self.bids[s], int) and not self.is_nil(s)
                       for b in [self.bids[s]])
        got = sum(self.taken[s] for s in team if not self.is_nil(s))
        return contract > 0 and got >= contract


def beats(c: str, best: str, led: str) -> bool:
    if suit(c) == suit(best):
        return rank(c) > rank(best)
    return suit(c) == "S"


def lowest(cards: list[str]) -> str:
    """The lowest card, non-spades before spades, shorter-suit ties broken by order."""
    return min(cards, key=lambda c: (suit(c) == "S", rank(c), SUITS.index(suit(c))))


def highest(cards: list[str]) -> str:
    return max(cards, key=lambda c: (suit(c) != "S", rank(c), -SUITS.index(suit(c))))


def cheapest_equal(t: Table, card: str) -> str:
    """The lowest card of my run that is worth as much as ``card`` (no card out between)."""
    s = suit(card)
    mine = sorted((c for c in t.legal if suit(c) == s and rank(c) <= rank(card)), key=rank, reverse=True)
    best = card
    for c in mine[1:]:
        if any(suit(u) == s and rank(c) < rank(u) < rank(best) for u in t.unseen):
            break
        best = c
    return best


def choose_card(view: dict) -> str:
    t = Table(view)
    legal = t.legal
    if len(legal) == 1:
        return legal[0]
    if t.rules.get("mode") == "no_bidding":
        return lead_win(t) if not t.cards else follow_win(t)
    if t.is_nil(t.seat):
        return play_nil(t)
    if t.is_nil(t.partner) and t.taken[t.partner] == 0:
        return play_cover(t)
    ducking = t.rules.get("bag_penalty", True) and t.contract_made()
    live_nil = [o for o in t.opps if t.is_nil(o) and t.taken[o] == 0]
    if not t.cards:
        if live_nil:
            card = lead_bust(t, live_nil[0])
            if card:
                return card
        return lead_duck(t) if ducking else lead_win(t)
    if live_nil:
        card = follow_bust(t, live_nil)
        if card:
            return card
    return follow_duck(t) if ducking else follow_win(t)


# --- winning tricks --------------------------------------------------------------------

def lead_win(t: Table) -> str:
    legal = t.legal
    spades_out = any(suit(u) == "S" for u in t.unseen)
    opp_void = t.void[t.opps[0]] | t.void[t.opps[1]]
    # 1. cash side bosses where no opponent has shown out (or no trumps are left out)
    bosses = [c for c in legal if suit(c) != "S" and t.boss(c)
              and (not spades_out or suit(c) not in opp_void)
              and any(suit(u) == suit(c) for u in t.unseen)]
    if bosses:
        return max(bosses, key=lambda c: (sum(1 for h in t.hand if suit(h) == suit(c)), rank(c)))
    # 2. draw trumps with the boss spade
    boss_spades = [c for c in legal if suit(c) == "S" and t.boss(c)]
    if boss_spades and spades_out:
        return max(boss_spades, key=rank)
    side = [c for c in legal if suit(c) != "S"]
    if side:
        # 3. partner's suit, low
        partners = [c for c in side if suit(c) in t.partner_led and suit(c) not in opp_void]
        if partners:
            return lowest(partners)
        # 4. a low singleton, to ruff the suit later
        has_spades = any(suit(c) == "S" for c in t.hand)
        singles = [c for c in side if sum(1 for h in t.hand if suit(h) == suit(c)) == 1 and rank(c) < J]
        if has_spades and singles:
            return lowest(singles)
        # 5. low from the longest suit, not away from a guarded honour if avoidable
        def score(c: str) -> tuple:
            cards = [h for h in t.hand if suit(h) == suit(c)]
            bare_honour = any(rank(h) >= Q for h in cards) and not t.boss(max(cards, key=rank))
            return (not bare_honour, len(cards), -rank(c))
        best_suit = suit(max(side, key=score))
        return lowest([c for c in side if suit(c) == best_suit])
    # only spades
    return max(legal, key=rank) if t.boss(max(legal, key=rank)) else min(legal, key=rank)


def follow_win(t: Table) -> str:
    legal = t.legal
    led = suit(t.cards[0])
    pos = len(t.cards) + 1  # 2nd, 3rd or 4th hand
    who, best = t.winner()
    partner_winning = who == t.partner
    winners = [c for c in legal if beats(c, best, led)]
    following = suit(legal[0]) == led
    if partner_winning and (pos == 4 or not following or t.sure(best, led)):
        return dump(t)  # never trump or overtake a partner's winner
    if not winners:
        return dump(t)
    if following:
        if pos == 2:
            # second hand low, unless a boss takes a high lead cheaply
            boss = [c for c in winners if t.boss(c)]
            if boss and rank(t.cards[0]) >= T:
                return cheapest_equal(t, min(boss, key=rank))
            return min(legal, key=rank)
        if pos == 4:
            return min(winners, key=rank)
        # third hand high: the cheapest sure winner, else our highest (its cheapest equal)
        sure = [c for c in winners if t.sure(c, led)]
        if sure:
            return cheapest_equal(t, min(sure, key=rank))
        if partner_winning:
            return min(legal, key=rank)  # partner's card may hold: keep our high cards
        return cheapest_equal(t, max(winners, key=rank))
    # void: trump in with the lowest spade that wins
    if partner_winning:
        return dump(t)
    spades = [c for c in winners if suit(c) == "S"]
    if spades:
        return min(spades, key=rank)
    return dump(t)


def dump(t: Table) -> str:
    """A card that gives nothing away: the lowest of the led suit, else a low discard
    from a short side suit (making a void), keeping spades."""
    legal = t.legal
    if t.cards and suit(legal[0]) == suit(t.cards[0]):
        return min(legal, key=rank)
    side = [c for c in legal if suit(c) != "S"]
    if not side:
        return min(legal, key=rank)
    def key(c: str) -> tuple:
        length = sum(1 for h in t.hand if suit(h) == suit(c))
        return (t.boss(c), rank(c), length)
    return min(side, key=key)


# --- ducking (contract made, bags cost) ---------------------------------------------------

def lead_duck(t: Table) -> str:
    legal = t.legal
    def key(c: str) -> tuple:
        higher_out = sum(1 for u in t.unseen if suit(u) == suit(c) and rank(u) > rank(c))
        return (suit(c) == "S", -higher_out, rank(c))
    return min(legal, key=key)


def follow_duck(t: Table) -> str:
    legal = t.legal
    led = suit(t.cards[0])
    _, best = t.winner()
    losers = [c for c in legal if not beats(c, best, led)]
    if losers:
        side = [c for c in losers if suit(c) != "S"]
        pool = side or losers
        return max(pool, key=rank)  # the highest card that still loses: dump the danger
    return min(legal, key=rank)


# --- nil: my own, the partner's, the opponents' --------------------------------------------

def play_nil(t: Table) -> str:
    legal = t.legal
    if not t.cards:
        return min(legal, key=lambda c: (suit(c) == "S", rank(c)))
    led = suit(t.cards[0])
    _, best = t.winner()
    losers = [c for c in legal if not beats(c, best, led)]
    if losers:
        side = [c for c in losers if suit(c) != "S"]
        return max(side or losers, key=rank)
    if len(t.cards) == 3:
        return max(legal, key=rank)  # taken anyway: get rid of the highest
    return min(legal, key=rank)


def play_cover(t: Table) -> str:
    """Partner bid nil: win the tricks the nil bidder might take."""
    legal = t.legal
    if not t.cards:
        side = [c for c in legal if suit(c) != "S"]
        pool = side or legal
        bosses = [c for c in pool if t.boss(c)]
        return max(bosses or pool, key=rank)  # lead high so the partner can play under
    led = suit(t.cards[0])
    who, best = t.winner()
    partner_played = any((t.leader + i) % 4 == t.partner for i in range(len(t.cards)))
    winners = [c for c in legal if beats(c, best, led)]
    if partner_played:
        if who == t.partner:
            if winners:
                return min(winners, key=rank)  # overtake the nil bidder
            return dump(t)
        return follow_win(t) if not t.contract_made() else follow_duck(t)
    # the partner plays after me: play high so the partner can stay under
    following = suit(legal[0]) == led
    if following:
        return max(legal, key=rank)
    if winners:
        spades = [c for c in winners if suit(c) == "S"]
        return max(spades, key=rank) if spades else max(winners, key=rank)
    return dump(t)


def lead_bust(t: Table, nil_seat: int) -> str | None:
    """Lead low in a suit the nil bidder may still have to follow."""
    side = [c for c in t.legal if suit(c) != "S" and suit(c) not in t.void[nil_seat]]
    if not side:
        return None
    def key(c: str) -> tuple:
        lows = sum(1 for h in t.hand if suit(h) == suit(c) and rank(h) <= 5)
        return (rank(c), -lows)
    return min(side, key=key)


def follow_bust(t: Table, live_nil: list[int]) -> str | None:
    """An opponent nil is winning the trick: stay under it."""
    who, best = t.winner()
    if who not in live_nil:
        return None
    led = suit(t.cards[0])
    losers = [c for c in t.legal if not beats(c, best, led)]
    if not losers:
        return None
    side = [c for c in losers if suit(c) != "S"]
    return max(side or losers, key=rank)


# ----------------------------------------------------------------------------------

def choose(view: dict, seed: int = 0) -> int | str:
    """The yardstick's action (JSON form) for ``view``; ``seed`` is accepted, not needed."""
    legal = view.get("legal") or []
    if not legal or view.get("to_act") != view.get("seat"):
        raise ValueError("It is not this seat's turn: there is nothing to choose.")
    if "blind_nil" in legal or "look" in legal:
        action: int | str = choose_blind(view)
    elif isinstance(legal[0], int) or legal[0] == "nil":
        action = choose_bid(view)
    else:
        action = choose_card(view)
    return action if action in legal else legal[0]
