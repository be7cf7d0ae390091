"""What a seat knows, read from its seat view: masks of cards, voids, the trick, the bids.

A bot never sees a ``Match``; this module turns the JSON view of BOTS.md into the masks
the heuristics and the search work on, and infers what the view implies without saying
it: a seat that did not follow suit is void in it, and a seat that led a spade before
spades were broken held nothing but spades.

Imports: ``spades.cards``, ``spades.rules`` (for ``Rules``), ``spades.bots.policy`` and
``spades.bots.bidmodel`` only.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import Card, mask_of
from ..rules import Rules
from .bidmodel import Situation
from .policy import HandCtx

ALL_SIDE_VOID = 0b1110  # void in hearts, diamonds and clubs: only spades left


def bid_value(b: object) -> int | None:
    """A bid from the view's JSON (``"nil"`` -> 0)."""
    if b is None:
        return None
    if b == "nil" or b == "blind_nil":
        return 0
    return int(b)  # type: ignore[arg-type]


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
    return Known(seat, rules, view["dealer"], hand, bids, blind, tricks, trick, leader,
                 list(view.get("taken") or [0, 0, 0, 0]), bool(view.get("spades_broken", broken)),
                 list(view.get("scores") or [0, 0]), list(view.get("bags") or [0, 0]), gone,
                 played_by, voids, list(view.get("legal") or []), int(view.get("hand_number") or 1))


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
