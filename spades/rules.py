"""The rules of play: actions, their legality, and the state of a match.

One method, ``Match.apply(seat, action)``, validates and applies every action, whoever
makes it (a person, a bot, a clock). An illegal action raises ``IllegalAction`` with the
sentence a player sees and leaves the state exactly as it was. State leaves the core only
through ``spades.views.seat_view``; a match is its record (``spades.records``).

Decisions where RULES.md is silent, kept here so the code and the docs agree:
- A seat may look at its cards at any time during bidding before it has bid (people pick
  up their cards before their turn); only on its turn is looking a listed legal action.
- A seat that has not looked may only bid blind nil or look; after looking, blind nil is
  gone. When bidding ends every seat's cards are shown to it (a blind nil bidder too).
- At the 99-hand cap the higher score wins; level there is a draw.
- Between hands the match waits in ``hand_over`` until ``next_hand()`` deals (the table
  decides when: every person pressed Continue, or the host dealt). With no one to wait for
  (bots playing a match out), ``for seat in match.turns()`` deals each hand as it ends.
- Deals come from the seed's generator unless the match is given ``deals``, a function
  of (hand number, dealer) giving each hand's cards (a table's provably fair deals,
  ``spades.fairness``); the seed still draws the first dealer either way.

Imports: stdlib and the rest of the core only.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from .cards import (
    _BY_SUIT_MASK,
    CARDS,
    SIDE_MASK,
    SPADE_MASK,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_SINGULAR,
    Card,
    NotationError,
    cards_of,
    mask_of,
)
from .rules_config import MAX_HANDS, Rules, RulesError
from .scoring import HandScore, score_hand

__all__ = [
    "Bid", "Look", "LOOK", "NIL", "BLIND_NIL", "BIDS", "Action", "IllegalAction", "Match",
    "Rules", "RulesError", "NotationError", "parse_action", "HandResult", "Deals",
]


class IllegalAction(ValueError):
    """A move the rules do not allow now; ``str(error)`` is the sentence a player sees."""


@dataclass(frozen=True, slots=True)
class Bid:
    """A bid: 1-13, nil (0), or blind nil (0, blind)."""

    value: int
    blind: bool = False

    def __str__(self) -> str:
        if self.value == 0:
            return "blind_nil" if self.blind else "nil"
        return str(self.value)

    def to_json(self) -> int | str:
        return str(self) if self.value == 0 else self.value


class Look:
    """A seat that may still bid blind nil picks up its cards."""

    __slots__ = ()

    def __str__(self) -> str:
        return "look"

    __repr__ = __str__

    def to_json(self) -> str:
        return "look"


LOOK = Look()
NIL = Bid(0)
BLIND_NIL = Bid(0, True)
BIDS: tuple[Bid, ...] = (NIL,) + tuple(Bid(n) for n in range(1, 14))
Action = Card | Bid | Look
Deals = Callable[[int, int], Sequence[Sequence[Card]]]  # (hand number, dealer) -> each seat's cards


def parse_action(value: object) -> Action:
    """An action from its text or JSON form: ``"QS"``, ``4``, ``"4"``, ``"nil"``,
    ``"blind_nil"``, ``"look"``; passes actions through. Raises NotationError.

    >>> parse_action("qs"), parse_action(4), parse_action("nil"), parse_action("look")
    (QS, Bid(value=4, blind=False), Bid(value=0, blind=False), look)
    """
    if isinstance(value, (Card, Bid, Look)):
        return value
    if isinstance(value, bool):
        raise NotationError(f"{value!r} is not a bid or a card.")
    if isinstance(value, int):
        if 0 <= value <= 13:
            return BIDS[value]
        raise NotationError(f"{value} is not a bid: bids are 1 to 13, or nil.")
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "nil":
            return NIL
        if text in ("blind_nil", "blind nil"):
            return BLIND_NIL
        if text == "look":
            return LOOK
        if text.isascii() and text.isdigit():  # "²" is a digit to str.isdigit, not to int
            return parse_action(int(text))
        return Card.parse(value)
    raise NotationError(f"{value!r} is not a bid or a card.")


@dataclass(frozen=True, slots=True)
class HandResult:
    """A finished hand: what happened and how it scored."""

    number: int
    dealer: int
    deal: tuple[tuple[Card, ...], ...]
    bids: tuple[int | None, ...]
    blind: tuple[bool, ...]
    plays: tuple[Card, ...]
    tricks: tuple[int, ...]
    score: HandScore
    totals: tuple[int, int]


_BID_ACTIONS: tuple[Bid, ...] = tuple(BIDS[n] for n in range(1, 14)) + (NIL,)
_BLIND_CHOICE: tuple[Action, ...] = (BLIND_NIL, LOOK)

def card_refusal(led: int | None) -> str:
    """Why a card held is not playable now: the suit led must be followed (``led``: its
    suit), or, leading, spades are not broken yet (``led`` None).

    >>> card_refusal(1)
    'You must follow suit: hearts were led and you hold a heart.'
    """
    if led is None:
        return "Spades are not broken yet: lead another suit."
    return f"You must follow suit: {SUIT_NAMES[led]} were led and you hold a {SUIT_SINGULAR[led]}."


def legal_mask(held: int, trick: list[int], broken: bool) -> int:
    """The legal cards of ``held`` (a mask) on a trick whose cards so far are ``trick``:
    follow suit if you can; no spade lead before spades are broken unless only spades are
    left. ``Match.legal_actions`` applies the same rule inline, on its hot path."""
    if trick:
        return (held & SUIT_MASKS[trick[0] // 13]) or held
    if broken:
        return held
    return (held & SIDE_MASK) or held


# Phases of a match
BIDDING, PLAYING, HAND_OVER, MATCH_OVER = "bidding", "playing", "hand_over", "match_over"
DEAL = "deal"  # how a stored list of actions writes ``Match.next_hand`` (the Continue button)


class Match:
    """The full state of one match, changed only by ``apply`` and ``next_hand``."""

    __slots__ = (
        "rules", "seed", "phase", "hand_number", "dealer", "deal", "held", "bids", "blind",
        "looked", "plays", "trick_leader", "trick", "tricks", "taken", "broken", "to_act",
        "scores", "bags", "results", "version", "winner", "_win", "_rng", "deals",
    )

    def __init__(self, rules: Rules | None = None, seed: int | str = 0, first_dealer: int | None = None,
                 deal: list[list[Card]] | None = None, deals: Deals | None = None) -> None:
        """A new match with its first hand dealt. The seed decides the first dealer
        (unless given) and every deal (unless given: ``deal``, the first hand's cards;
        ``deals``, a function giving every hand's cards from its number and dealer)."""
        self.rules = rules or Rules()
        self.seed = seed
        self.deals = deals
        self.scores = [0, 0]
        self.bags = [0, 0]
        self.results: list[HandResult] = []
        self.version = 0
        self.winner: int | None = None
        self.hand_number = 0
        # One generator per match draws the first dealer and then every deal in order,
        # so rebuilding a match by replaying its actions deals the same cards again.
        self._rng = random.Random(seed)
        dealer_draw = self._rng.randrange(4)
        if first_dealer is None:
            first_dealer = dealer_draw
        self._deal(first_dealer, deal)

    # -- dealing ---------------------------------------------------------------------
    def _shuffle(self) -> list[list[Card]]:
        """The next seeded deal: the same seed gives the same deals in the same order."""
        r = self._rng.random
        keys = [r() for _ in range(52)]  # sorting by random keys: a fast unbiased shuffle
        deck = sorted(CARDS, key=keys.__getitem__)
        return [deck[0:13], deck[13:26], deck[26:39], deck[39:52]]

    def _deal(self, dealer: int, deal: Sequence[Sequence[Card]] | None) -> None:
        self.hand_number += 1
        if deal is None:
            deal = self._shuffle() if self.deals is None else self.deals(self.hand_number, dealer)
        self.dealer = dealer
        self.deal = [list(cards) for cards in deal]
        self.held = [mask_of(cards) for cards in self.deal]
        self.bids: list[int | None] = [None] * 4
        self.blind = [False] * 4
        self.looked = [not self.rules.blind_nil] * 4
        self.plays: list[Card] = []
        self.trick_leader = (dealer + 1) % 4
        self.trick: list[Card] = []
        self._win: Card = CARDS[0]
        self.tricks: list[tuple[int, tuple[Card, ...], int]] = []
        self.taken = [0, 0, 0, 0]
        self.broken = False
        self.to_act: int | None = (dealer + 1) % 4
        if self.rules.bidding:
            self.phase = BIDDING
        else:
            self.phase = PLAYING
            self.looked = [True] * 4

    def next_hand(self, deal: list[list[Card]] | None = None) -> None:
        """Deal the next hand (the deal passes left). Raises IllegalAction between no hands."""
        if self.phase != HAND_OVER:
            raise IllegalAction("The hand is not over yet." if self.phase != MATCH_OVER
                                else "The match is over.")
        self._deal((self.dealer + 1) % 4, deal)
        self.version += 1

    # -- what may be done ------------------------------------------------------------
    def legal_actions(self, seat: int | None) -> tuple[Action, ...]:
        """The legal actions of ``seat`` now: empty unless it is that seat's turn."""
        if seat != self.to_act or seat is None:
            return ()
        if self.phase is PLAYING:
            held = self.held[seat]
            trick = self.trick
            if trick:
                led = trick[0] // 13
                follow = _BY_SUIT_MASK[led][held >> (13 * led) & 0x1FFF]
                return follow or cards_of(held)
            if self.broken or not held & SIDE_MASK:
                return cards_of(held)
            return cards_of(held & SIDE_MASK)
        if not self.looked[seat]:
            return _BLIND_CHOICE
        return _BID_ACTIONS

    def can_look(self, seat: int) -> bool:
        return self.phase == BIDDING and not self.looked[seat] and self.bids[seat] is None

    def check(self, seat: int, action: Action) -> None:
        """Raise IllegalAction (with the player's sentence) unless ``action`` is legal."""
        phase = self.phase
        if type(action) is Card:
            if phase != PLAYING:
                if phase == BIDDING:
                    raise IllegalAction("Bidding is not over yet: wait for the bids before playing.")
                raise IllegalAction("The hand is over." if phase == HAND_OVER else "The match is over.")
            if seat != self.to_act:
                raise IllegalAction("It is not your turn.")
            held = self.held[seat]
            if not held >> action & 1:
                raise IllegalAction("That card is not in your hand.")
            if self.trick:
                led = self.trick[0] // 13
                if action // 13 != led and held & SUIT_MASKS[led]:
                    raise IllegalAction(card_refusal(led))
            elif action < 13 and not self.broken and held & ~SPADE_MASK:
                raise IllegalAction(card_refusal(None))
            return
        if type(action) is Look:
            if phase != BIDDING:
                raise IllegalAction("You can look at your cards only during the bidding.")
            if self.looked[seat]:
                raise IllegalAction("You have already looked at your cards.")
            if self.bids[seat] is not None:
                raise IllegalAction("You have already bid.")
            return
        if type(action) is Bid:
            if phase != BIDDING:
                raise IllegalAction("The bidding is over." if phase == PLAYING or self.rules.bidding
                                    else "This table plays without bidding.")
            if seat != self.to_act:
                raise IllegalAction("It is not your turn.")
            if action.blind:
                if not self.rules.blind_nil:
                    raise IllegalAction("Blind nil is not allowed at this table.")
                if self.looked[seat]:
                    raise IllegalAction("Blind nil must be bid before you look at your cards.")
            elif not self.looked[seat]:
                raise IllegalAction("Look at your cards before you bid (or bid blind nil).")
            return
        raise NotationError(f"{action!r} is not an action.")

    # -- applying --------------------------------------------------------------------
    def apply(self, seat: int, action: Action) -> None:
        """Check and apply one action of ``seat``. Raises IllegalAction, leaving the state as it was."""
        # The common case, a legal card, is checked and played inline: bots simulate
        # millions of these, and a function call is a measurable part of each.
        if type(action) is Card and self.phase is PLAYING and seat == self.to_act:
            held = self.held[seat]
            trick = self.trick
            if held >> action & 1 and (
                (action // 13 == trick[0] // 13 or not held & SUIT_MASKS[trick[0] // 13]) if trick
                else (action >= 13 or self.broken or not held & SIDE_MASK)
            ):
                self.held[seat] = held & ~(1 << action)
                self.plays.append(action)
                self.version += 1
                if not trick:
                    self._win = action
                else:
                    # The winning card so far is overtaken by a higher card of its suit,
                    # or by the first spade on a trick without one.
                    win = self._win
                    if action // 13 == win // 13:
                        if action > win:
                            self._win = action
                    elif action < 13:
                        self._win = action
                trick.append(action)
                if len(trick) < 4:
                    self.to_act = (seat + 1) & 3
                else:
                    self._end_trick()
                return
        self.check(seat, action)  # raises with the reason, or passes for a bid or a look
        if type(action) is Bid:
            self._bid(seat, action)
        elif type(action) is Look:
            self.looked[seat] = True
        else:  # pragma: no cover - every legal card took the path above
            raise AssertionError(f"legal card {action} missed the play path")
        self.version += 1

    def _bid(self, seat: int, bid: Bid) -> None:
        self.bids[seat] = bid.value
        self.blind[seat] = bid.blind
        if bid.blind:
            self.looked[seat] = True  # the bid is made; from now on the seat sees its cards
        nxt = (seat + 1) % 4
        if self.bids[nxt] is None:
            self.to_act = nxt
        else:
            self.phase = PLAYING
            self.looked = [True] * 4
            self.to_act = self.trick_leader

    def _end_trick(self) -> None:
        trick = self.trick
        win = self._win
        winner = (self.trick_leader + trick.index(win)) & 3
        if win < 13:  # the winner is a spade only if a spade was played: spades are broken
            self.broken = True
        self.tricks.append((self.trick_leader, tuple(trick), winner))
        self.taken[winner] += 1
        self.trick = []
        self.trick_leader = winner
        if len(self.tricks) < 13:
            self.to_act = winner
        else:
            self._end_hand()

    def _end_hand(self) -> None:
        self.to_act = None
        score = score_hand(self.rules, self.bids, self.blind, self.taken, self.bags)
        for t in (0, 1):
            self.scores[t] += score.teams[t].total
            self.bags[t] = score.teams[t].bags_after
        self.results.append(HandResult(
            self.hand_number, self.dealer, tuple(tuple(c) for c in self.deal), tuple(self.bids),
            tuple(self.blind), tuple(self.plays), tuple(self.taken), score, (self.scores[0], self.scores[1]),
        ))
        self.phase = HAND_OVER
        if self._match_decided():
            self.phase = MATCH_OVER

    def _match_decided(self) -> bool:
        a, b = self.scores
        n = self.hand_number
        rules = self.rules
        reached = (max(a, b) >= rules.target) if rules.end == "target" else n >= rules.hands
        if (reached and a != b) or n >= MAX_HANDS:
            self.winner = None if a == b else (0 if a > b else 1)
            return True
        return False

    # -- questions -------------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.phase == MATCH_OVER

    def turns(self) -> Iterator[int]:
        """Each seat to act, in turn, until the match is over: the next hand is dealt
        whenever one ends. The caller applies the seat's action before asking for the next
        (the way bots play a match out: the arena, the tourneys' bot tables, benchmarks)."""
        while not self.finished:
            if self.phase == HAND_OVER:
                self.next_hand()
                continue
            seat = self.to_act
            assert seat is not None
            yield seat

    def cards(self, seat: int) -> list[Card]:
        """The cards ``seat`` holds now (for views and bots of that seat only)."""
        return list(cards_of(self.held[seat]))

