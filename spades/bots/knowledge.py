"""What a seat knows, read from its seat view: masks of cards, voids, the trick, the bids.

A bot never sees a ``Match``; this module turns the JSON view of BOTS.md into the masks
the heuristics and the search work on, and infers what the view implies without saying
it: a seat that did not follow suit is void in it, and a seat that led a spade before
spades were broken held nothing but spades.

It also reads what the play has shown of the cards a seat held (``lacks``, per seat the
cards it is taken not to hold, for Hard's deals), the way a club player reads the play:

- a nil bidder whose nil was alive and who followed under the winning card played its
  highest card that loses, so it held no card of that suit between its card and the
  winner (none above its card when a trump was winning);
- a nil bidder who followed over the winning card had no card under it to play;
- the last seat to play, following under an opponent's winning card of the suit while its
  team still needed tricks (its contract not made, no nil beside it, or no bidding at
  all), could not beat it: no card of the suit above the winner; unless that opponent is
  a live nil bidder, whom a player leaves the trick to on purpose;
- that seat, void in a side suit led, throwing a side card under an opponent's side card
  while its team needed tricks, had no spade left to ruff with (a void in spades).

These are conventions, not rules: ``spades.bots.deals.Sampler`` keeps them where it can
and lets a card go to any seat its voids allow when they leave it nowhere to go.

Imports: ``spades.cards``, ``spades.rules`` (for ``Rules``), ``spades.bots.policy`` and
``spades.bots.bidmodel`` only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..cards import SUIT_MASKS, Card, mask_of
from ..rules import Rules
from .bidmodel import Situation
from .policy import HandCtx, beats

ALL_SIDE_VOID = 0b1110  # void in hearts, diamonds and clubs: only spades left


def bid_value(b: int | str | None) -> int | None:
    """A bid from the view's JSON (``"nil"`` -> 0)."""
    if b is None:
        return None
    if b == "nil" or b == "blind_nil":
        return 0
    return int(b)


@dataclass(slots=True)
class Known:
    """Everything one seat knows about the hand in progress."""

    seat: int
    rules: Rules
    dealer: int
    hand: int | None  # None: not looked yet
    bids: list[int | None]
    blind: list[bool]
    tricks: list[tuple[int, list[int], int]]  # (leader, cards, winner) of finished tricks
    trick: list[int]  # the trick in progress, in play order
    leader: int  # who led (leads) the trick in progress
    taken: list[int]
    broken: bool
    scores: list[int]
    bags: list[int]
    gone: int  # every card played this hand, the current trick included
    played_by: list[int]  # per seat, the mask of cards it played this hand
    voids: list[int]  # per seat, bit s set when known void in suit s
    legal: list
    hand_number: int = 1
    lacks: list[int] = field(default_factory=lambda: [0, 0, 0, 0])  # per seat, cards the play says it lacks

    def ctx(self) -> HandCtx:
        r = self.rules
        return HandCtx(r.bidding, list(self.bids), list(self.blind), list(self.scores), list(self.bags),
                       r.bag_penalty, r.target if r.end == "target" else None)

    def situation(self, seat: int | None = None) -> Situation:
        """What a bid of ``seat`` (this seat by default) depends on besides its cards."""
        r = self.rules
        final = r.end == "hands" and self.hand_number >= r.hands
        return Situation(self.seat if seat is None else seat, list(self.bids), r, list(self.scores),
                         list(self.bags), self.dealer, final)

    def held_count(self, seat: int) -> int:
        return 13 - self.played_by[seat].bit_count()


def read(view: dict) -> Known:
    """The seat's knowledge from its view (BOTS.md)."""
    seat = view["seat"]
    rules = Rules.from_dict(view.get("rules"))
    hand = mask_of(Card.parse(t) for t in view["hand"]) if view.get("hand") is not None else None
    bids = [bid_value(b) for b in view["bids"]]
    blind = list(view.get("blind") or [False] * 4)
    played_by = [0, 0, 0, 0]
    voids = [0, 0, 0, 0]
    gone = 0
    broken = False
    tricks = []
    for t in view.get("tricks") or []:
        cards = [int(Card.parse(c)) for c in t["cards"]]
        _note(cards, t["leader"], broken, played_by, voids)
        tricks.append((t["leader"], cards, t["winner"]))
        for c in cards:
            gone |= 1 << c
            if c < 13:
                broken = True
    cur = view.get("trick")
    if cur:
        trick = [int(Card.parse(c)) for c in cur["cards"]]
        leader = cur["leader"]
    else:
        trick = []
        leader = (view["dealer"] + 1) % 4
    _note(trick, leader, broken, played_by, voids)
    for c in trick:
        gone |= 1 << c
    lacks = [0, 0, 0, 0]
    _read_play(tricks + [(leader, trick, -1)], bids, lacks, voids)
    return Known(seat, rules, view["dealer"], hand, bids, blind, tricks, trick, leader,
                 list(view.get("taken") or [0, 0, 0, 0]), bool(view.get("spades_broken", broken)),
                 list(view.get("scores") or [0, 0]), list(view.get("bags") or [0, 0]), gone,
                 played_by, voids, list(view.get("legal") or []), int(view.get("hand_number") or 1), lacks)


def _needs_tricks(bids: list[int | None], taken: list[int], seat: int) -> bool:
    """Whether ``seat``'s team still plays to win: no bidding, or its contract not made
    and no nil on it."""
    b, p = bids[seat], bids[seat ^ 2]
    if b is None and p is None:
        return True
    if b == 0 or p == 0:
        return False
    return taken[seat] + taken[seat ^ 2] < (b or 0) + (p or 0)


def _read_play(tricks: list[tuple[int, list[int], int]], bids: list[int | None], lacks: list[int],
               voids: list[int]) -> None:
    """What the hand's tricks show of the cards each seat lacks (see the module's docstring)."""
    taken = [0, 0, 0, 0]
    for leader, cards, winner in tricks:
        if not cards:
            continue
        led = cards[0] // 13
        suit = SUIT_MASKS[led]
        win_i = 0
        for i in range(1, len(cards)):
            c, w = cards[i], cards[win_i]
            seat = (leader + i) & 3
            beaten = beats(c, w)
            wseat = (leader + win_i) & 3
            # the last seat needed the trick from an opponent, and that opponent is no live
            # nil bidder (whom it leaves the trick to on purpose)
            would_win = (i == 3 and wseat & 1 != seat & 1 and not (bids[wseat] == 0 and taken[wseat] == 0)
                         and _needs_tricks(bids, taken, seat))
            if c // 13 == led:
                if bids[seat] == 0 and taken[seat] == 0:  # a live nil
                    if beaten and w // 13 == led:
                        lacks[seat] |= suit & ((1 << w) - 1)
                    elif not beaten:
                        lacks[seat] |= suit & ~((2 << c) - 1) & (((1 << w) - 1) if w // 13 == led else -1)
                elif would_win and not beaten and w // 13 == led:
                    lacks[seat] |= suit & ~((2 << w) - 1)
            elif would_win and led != 0 and c >= 13 and w >= 13:
                voids[seat] |= 1  # threw a side card rather than ruff: no spade left
            if beaten:
                win_i = i
        if winner >= 0:
            taken[winner] += 1


def _note(cards: list[int], leader: int, broken: bool, played_by: list[int], voids: list[int]) -> None:
    """Record who played what in one trick and the voids it shows."""
    if not cards:
        return
    led = cards[0] // 13
    if led == 0 and not broken:
        voids[leader] |= ALL_SIDE_VOID  # a spade lead before spades broke: only spades held
    for i, c in enumerate(cards):
        s = (leader + i) & 3
        played_by[s] |= 1 << c
        if c // 13 != led:
            voids[s] |= 1 << led
