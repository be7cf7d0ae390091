"""The bots of a house-rules table (``Rules.house``): what a seat knows, read from its view.

The house bots (Easy, Normal and Hard, and the bid hint) play at every shape of table
(three players, cutthroat, jokers) and under every bidding and scoring variant (whiz,
mirror, suicide, a minimum bid, 10-for-200, spades led any time). The standard table's
bots (``policy``, ``bidmodel``, ``search``) are written for four seats and 52 bits, and
stay as they are; ``spades.bots.choose`` and ``hint`` hand a view to the house bots when
its rules are house rules (``house_search.choose``, ``house_bid.hint``). Everything about
the table comes from its ``Rules.shape``: the seats and who sits to the left, the sides
(a team, or one player alone), the partner or none, the deck, the hand size and the
trumps. Play works on bit masks of slots (``spades.bots.slots``).

The house bots, by part:

- here, ``read(view) -> State``: what a seat knows (its hand, the bids, the tricks, the
  voids shown), in slots; ``Game``, what is fixed for a hand once bid;
- ``house_bid``: the count of a hand (``count_tricks``, ``nil_risk``), the bid of each
  level (``bid_for``) made legal for the variant (``view["legal"]`` is the authority),
  and the hint;
- ``house_play``: Normal's card (``normal_card``), a hand played out by it
  (``play_out``) and a finished hand's worth to a side (``hand_value``);
- ``house_search``: the unseen cards dealt (``sample_hands``), Hard's card, and
  ``choose``, the action of each level.

Imports: ``spades.rules_config`` and ``spades.bots.slots`` only.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import Card
from ..rules_config import Rules
from .slots import TRUMP, Table, table

# -- what a seat knows -------------------------------------------------------------------

@dataclass(slots=True)
class Game:
    """What is fixed for a hand once bid (or while bidding, the bids so far): the table,
    the bids and the match's scores and bags (per side)."""

    table: Table
    bids: list[int | None]  # 0 for nil; None not yet bid
    blind: list[bool]
    scores: list[int]
    bags: list[int]


@dataclass(slots=True)
class State:
    """Everything one seat knows about the hand in progress, in slots."""

    seat: int
    game: Game
    dealer: int
    hand: int | None  # None: not looked yet
    trick: list[int]
    leader: int
    taken: list[int]
    broken: bool
    gone: int  # every slot played this hand, the trick in progress included
    played_by: list[int]  # per seat, the slots it played this hand
    voids: list[int]  # per seat, bit s set when it is known void in suit s
    legal: list  # the view's legal actions (the authority)
    hand_number: int = 1
    tricks_done: int = 0

    @property
    def table(self) -> Table:
        return self.game.table

    def held_count(self, seat: int) -> int:
        """How many cards ``seat`` still holds."""
        return self.game.table.hand_size - self.played_by[seat].bit_count()


def bid_value(b: object) -> int | None:
    """A bid from the view's JSON (``"nil"`` -> 0)."""
    if b is None:
        return None
    if b == "nil" or b == "blind_nil":
        return 0
    return int(b)  # type: ignore[call-overload]


def read(view: dict) -> State:
    """The seat's knowledge from its view (BOTS.md), at a table of any shape."""
    rules = Rules.from_dict(view.get("rules"))
    t = table(rules)
    n = t.players
    seat = view["seat"]
    hand = t.mask([Card.parse(c) for c in view["hand"]]) if view.get("hand") is not None else None
    game = Game(t, [bid_value(b) for b in view["bids"]], list(view.get("blind") or [False] * n),
                list(view.get("scores") or [0] * len(t.sides)), list(view.get("bags") or [0] * len(t.sides)))
    played_by = [0] * n
    voids = [0] * n
    gone = 0
    broken = False
    done = 0
    for tr in view.get("tricks") or []:
        slots = [t.slot(Card.parse(c)) for c in tr["cards"]]
        _note(t, slots, tr["leader"], broken, played_by, voids)
        for s in slots:
            gone |= 1 << s
            if s >> 4 == TRUMP:
                broken = True
        done += 1
    cur = view.get("trick")
    if cur:
        trick = [t.slot(Card.parse(c)) for c in cur["cards"]]
        leader = cur["leader"]
    else:
        trick = []
        leader = t.left[view["dealer"]]
    _note(t, trick, leader, broken, played_by, voids)
    for s in trick:
        gone |= 1 << s
    return State(seat, game, view["dealer"], hand, trick, leader, list(view.get("taken") or [0] * n),
                 bool(view.get("spades_broken", broken)), gone, played_by, voids, list(view.get("legal") or []),
                 int(view.get("hand_number") or 1), done)


def _note(t: Table, slots: list[int], leader: int, broken: bool, played_by: list[int], voids: list[int]) -> None:
    """Record who played what in one trick and the voids it shows."""
    if not slots:
        return
    led = slots[0] >> 4
    if led == TRUMP and not broken and not t.lead_any:
        voids[leader] |= 0b1110  # a trump lead before trumps broke: only trumps held
    s = leader
    for c in slots:
        played_by[s] |= 1 << c
        if c >> 4 != led:
            voids[s] |= 1 << led
        s = t.left[s]


__all__ = ["Game", "State", "bid_value", "read"]
