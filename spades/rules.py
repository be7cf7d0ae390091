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
  ``spades.fairness``); the seed still draws the first dealer either way. A seeded deal
  shuffles the rules' deck (``Rules.shape.deck``) by one random key per card and gives
  each seat the next ``hand_size`` cards, starting with seat 0 (the standard deck's draws
  are exactly what they always were, so stored matches deal the same cards again).

House rules (RULES.md, "House rules"), where RULES.md is silent:
- The shape of the table (seats, sides, deck, trumps) is ``Rules.shape``. A match without
  house rules is a ``StandardMatch`` (``Match`` makes one), which plays on an inline path
  written for four seats and 52 cards; every other match on ``Match``'s path, which reads
  the shape's tables.
- Whiz and mirror count a player's trumps: spades, the jokers and the jjdd 2 of
  diamonds. A whiz player holding no trump can only bid nil ("Whiz: you hold no spades,
  so you bid nil."); under mirror a player with none bids nil (no blind nil: the rules
  refuse ``blind_nil`` with mirror). Blind nil under whiz is allowed (it is a nil).
- Suicide: a team's first bidder may bid nil, blind nil or 4 up to the hand's tricks; the
  second is held to the other: a number from 4 after a nil, nil (or blind nil) after a
  number. A second bidder who has not looked and must bid a number may only look.
- Minimum bid: only the team's second bidder can be refused (the first bidder's number
  is never short, since the partner can still make it up); a nil by either partner
  lifts the minimum, and so does a blind nil. The words name the minimum:
  "Your team must bid at least 4."
- Bids go from 1 to the hand's tricks (17 with three players); a bid above is refused
  with "Bids are 1 to 17, or nil." (13 at a standard table, today's words).
- Under ``"jjdd"`` the 2 of diamonds is a trump and not a diamond: it never follows a
  diamond lead, and a player whose only "diamond" is that 2 is void in diamonds. A
  refused card names the suit as play sees it ("spades were led and you hold a spade"
  when the spade held is a joker).
- ``spades_lead: "any"`` lets any trump be led at any time; ``spades_broken`` still
  tells whether a trump has been played (leading one breaks them, as does playing one).
- Three players (and cutthroat) end the match on "the highest side": when the match
  would end and two or more sides share the highest score, another hand is played; at the
  99-hand cap a shared lead is a draw.
- A deal given to the match (``deal=`` or ``deals``) must give each seat ``hand_size``
  cards of the rules' deck; ``spades.records`` says which card is wrong, in words.
- Combinations refused beyond those RULES.md names (``spades.rules_config``): a table
  without bidding takes no bidding variant, minimum bid or 10-for-200; ``players: 3``
  needs ``partners: false`` written out (it is not switched on silently). A table
  without bidding may have three players, cutthroat, jokers or spades led any time.
- A spades-match/1 record's house keys are extra keys and ignored (a /1 record is a
  standard match); a /2 record with every house key at its default is read as it says.
- A seeded or fair deal of a house deck shuffles the deck in the order of
  ``Shape.deck``: the 52 cards in their order without the removed ones, then LJ, BJ.

Imports: stdlib and the rest of the core only.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from .cards import (
    _BY_SUIT_MASK,
    CARDS,
    RANK_COUNT,
    SIDE_MASK,
    SPADES,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_SINGULAR,
    Card,
    NotationError,
    any_cards_of,
    cards_of,
    mask_of,
)
from .rules_config import MAX_HANDS, MOST_TRICKS, STANDARD_SHAPE, SUICIDE_BID, Rules, RulesError, Shape
from .scoring import HandScore, score_hand

__all__ = [
    "Bid", "Look", "LOOK", "NIL", "BLIND_NIL", "BIDS", "Action", "IllegalAction", "Match",
    "Rules", "RulesError", "NotationError", "parse_action", "HandResult", "Deals",
]


class IllegalAction(ValueError):
    """A move the rules do not allow now; ``str(error)`` is the sentence a player sees."""


@dataclass(frozen=True, slots=True)
class Bid:
    """A bid: 1 up to the hand's tricks (13, or 17 with three players), nil (0), or blind nil (0, blind)."""

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
# every bid by its number: BIDS[n] (0 is nil), up to the most tricks of any shape
BIDS: tuple[Bid, ...] = (NIL,) + tuple(Bid(n) for n in range(1, MOST_TRICKS + 1))
Action = Card | Bid | Look
Deals = Callable[[int, int], Sequence[Sequence[Card]]]  # (hand number, dealer) -> each seat's cards


def parse_action(value: object, tricks: int = STANDARD_SHAPE.hand_size) -> Action:
    """An action from its text or JSON form: ``"QS"``, ``"BJ"``, ``4``, ``"4"``, ``"nil"``,
    ``"blind_nil"``, ``"look"``; passes actions through. Bids go up to ``tricks`` (the
    table's ``Rules.shape.tricks``; a standard table's by default). Raises NotationError.

    >>> parse_action("qs"), parse_action(4), parse_action("nil"), parse_action("look")
    (QS, Bid(value=4, blind=False), Bid(value=0, blind=False), look)
    >>> parse_action("15", tricks=17)
    Bid(value=15, blind=False)
    """
    if isinstance(value, (Card, Bid, Look)):
        return value
    if isinstance(value, bool):
        raise NotationError(f"{value!r} is not a bid or a card.")
    if isinstance(value, int):
        if 0 <= value <= min(tricks, MOST_TRICKS):
            return BIDS[value]
        raise NotationError(f"{value} is not a bid: bids are 1 to {tricks}, or nil.")
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "nil":
            return NIL
        if text in ("blind_nil", "blind nil"):
            return BLIND_NIL
        if text == "look":
            return LOOK
        if text.isascii() and text.isdigit():  # "²" is a digit to str.isdigit, not to int
            return parse_action(int(text), tricks)
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
    tricks: tuple[int, ...]  # per seat
    score: HandScore
    totals: tuple[int, ...]  # per side
    sides: tuple[tuple[int, ...], ...] = STANDARD_SHAPE.sides  # each side's seats (``Shape.sides``)


def bid_actions(tricks: int) -> tuple[Bid, ...]:
    """The bids of a hand of ``tricks`` tricks in the order they are listed: 1 up, then nil."""
    return tuple(BIDS[n] for n in range(1, tricks + 1)) + (NIL,)


_BID_ACTIONS: tuple[Bid, ...] = bid_actions(STANDARD_SHAPE.tricks)
_BLIND_CHOICE: tuple[Action, ...] = (BLIND_NIL, LOOK)
_LOOK_ONLY: tuple[Action, ...] = (LOOK,)

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
    """The legal cards of ``held`` (a mask) on a trick whose cards so far are ``trick``,
    at a standard table: follow suit if you can; no spade lead before spades are broken
    unless only spades are left. ``Match.legal_actions`` applies the same rule inline, on
    its hot path; ``shape_legal_mask`` is the rule at a table of any shape."""
    if trick:
        return (held & SUIT_MASKS[trick[0] // RANK_COUNT]) or held
    if broken:
        return held
    return (held & SIDE_MASK) or held


def shape_legal_mask(shape: Shape, held: int, trick: Sequence[int], broken: bool, lead_any: bool = False) -> int:
    """``legal_mask`` at a table of any shape: the suit led as play sees it (jokers and the
    jjdd 2D are spades), and with ``lead_any`` (``spades_lead: "any"``) trumps may be led
    at any time."""
    if trick:
        return (held & shape.suit_masks[shape.suit_of[trick[0]]]) or held
    if broken or lead_any:
        return held
    return (held & shape.side_mask) or held


# Phases of a match
BIDDING, PLAYING, HAND_OVER, MATCH_OVER = "bidding", "playing", "hand_over", "match_over"
DEAL = "deal"  # how a stored list of actions writes ``Match.next_hand`` (the Continue button)


class Match:
    """The full state of one match, changed only by ``apply`` and ``next_hand``."""

    __slots__ = (
        "rules", "seed", "phase", "hand_number", "dealer", "deal", "held", "bids", "blind",
        "looked", "plays", "trick_leader", "trick", "tricks", "taken", "broken", "to_act",
        "scores", "bags", "results", "version", "winner", "_win", "_rng", "deals",
        "shape", "_players", "_lead_any", "_size", "_trumps",
    )

    def __new__(cls, rules: Rules | None = None, *args: object, **kwargs: object) -> Match:
        """A standard table (no house rule) is a ``StandardMatch``: the same rules, played
        on a path written for four seats and 52 cards."""
        if cls is Match and (rules is None or not rules.house):
            cls = StandardMatch
        return object.__new__(cls)

    def __init__(self, rules: Rules | None = None, seed: int | str = 0, first_dealer: int | None = None,
                 deal: list[list[Card]] | None = None, deals: Deals | None = None) -> None:
        """A new match with its first hand dealt. The seed decides the first dealer
        (unless given) and every deal (unless given: ``deal``, the first hand's cards;
        ``deals``, a function giving every hand's cards from its number and dealer)."""
        self.rules = rules or Rules()
        self.shape: Shape = self.rules.shape
        self._players = self.shape.players
        # the shape's figures the card path reads, each one slot away
        self._size, self._trumps = self.shape.hand_size, self.shape.trump_mask
        self._lead_any = self.rules.spades_lead == "any"
        self.seed = seed
        self.deals = deals
        self.scores = [0] * self.shape.side_count  # per side
        self.bags = [0] * self.shape.side_count
        self.results: list[HandResult] = []
        self.version = 0
        self.winner: int | None = None
        self.hand_number = 0
        # One generator per match draws the first dealer and then every deal in order,
        # so rebuilding a match by replaying its actions deals the same cards again.
        self._rng = random.Random(seed)
        dealer_draw = self._rng.randrange(self._players)
        if first_dealer is None:
            first_dealer = dealer_draw
        self._deal(first_dealer, deal)

    # -- dealing ---------------------------------------------------------------------
    def _shuffle(self) -> list[list[Card]]:
        """The next seeded deal: the same seed gives the same deals in the same order."""
        r = self._rng.random
        shape = self.shape
        deck = shape.deck
        keys = [r() for _ in deck]  # sorting by random keys: a fast unbiased shuffle
        if shape.standard:  # the 52 cards are their own positions: the deal of old
            cards = sorted(deck, key=keys.__getitem__)
        else:
            cards = [deck[i] for i in sorted(range(len(deck)), key=keys.__getitem__)]
        n = shape.hand_size
        return [cards[s * n:(s + 1) * n] for s in shape.seats]

    def _deal(self, dealer: int, deal: Sequence[Sequence[Card]] | None) -> None:
        shape = self.shape
        n = self._players
        self.hand_number += 1
        given = deal is not None or self.deals is not None
        if deal is None:
            deal = self._shuffle() if self.deals is None else self.deals(self.hand_number, dealer)
        self.dealer = dealer
        self.deal = [list(cards) for cards in deal]
        self.held = [mask_of(cards) for cards in self.deal]
        if given:  # a seeded deal is right by construction; a given one is checked
            size = shape.hand_size
            every = 0
            for cards, held in zip(self.deal, self.held):
                every |= held
                if len(cards) != size or held.bit_count() != size:
                    every = -1
            if len(self.deal) != n or every != shape.deck_mask:
                raise ValueError(f"a deal at this table is {n} hands of {size} different cards of its deck")
        self.bids: list[int | None] = [None] * n
        self.blind = [False] * n
        self.looked = [not self.rules.blind_nil] * n
        self.plays: list[Card] = []
        self.trick_leader = shape.left[dealer]
        self.trick: list[Card] = []
        self._win: Card = CARDS[0]
        self.tricks: list[tuple[int, tuple[Card, ...], int]] = []
        self.taken = [0] * n
        self.broken = False
        self.to_act: int | None = shape.left[dealer]
        if self.rules.bidding:
            self.phase = BIDDING
        else:
            self.phase = PLAYING
            self.looked = [True] * n

    def next_hand(self, deal: list[list[Card]] | None = None) -> None:
        """Deal the next hand (the deal passes left). Raises IllegalAction between no hands."""
        if self.phase != HAND_OVER:
            raise IllegalAction("The hand is not over yet." if self.phase != MATCH_OVER
                                else "The match is over.")
        self._deal(self.shape.left[self.dealer], deal)
        self.version += 1

    # -- what may be done ------------------------------------------------------------
    def legal_actions(self, seat: int | None) -> tuple[Action, ...]:
        """The legal actions of ``seat`` now: empty unless it is that seat's turn."""
        if seat != self.to_act or seat is None:
            return ()
        if self.phase is PLAYING:
            return any_cards_of(shape_legal_mask(self.shape, self.held[seat], self.trick, self.broken,
                                                 self._lead_any))
        if not self.looked[seat]:
            if self._bid_problem(seat, BLIND_NIL) is not None:
                return _LOOK_ONLY  # suicide: the partner's nil leaves this seat a number to bid
            return _BLIND_CHOICE
        return tuple([b for b in bid_actions(self.shape.tricks) if self._bid_problem(seat, b) is None])

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
            shape = self.shape
            suit_of = shape.suit_of
            if self.trick:
                led = suit_of[self.trick[0]]
                if suit_of[action] != led and held & shape.suit_masks[led]:
                    raise IllegalAction(card_refusal(led))
            elif (suit_of[action] == SPADES and not self.broken and not self._lead_any
                  and held & shape.side_mask):
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
            problem = self._bid_problem(seat, action)
            if problem is not None:
                raise IllegalAction(problem)
            return
        raise NotationError(f"{action!r} is not an action.")

    def _bid_problem(self, seat: int, bid: Bid) -> str | None:
        """Why ``seat`` may not bid ``bid`` under the table's bidding variant and minimum
        (the bid's range included), in the player's words; None when it may."""
        value = bid.value
        if not 0 <= value <= self._size:
            return f"Bids are 1 to {self._size}, or nil."
        rules = self.rules
        variant = rules.bidding_variant
        if variant == "standard" and not rules.min_bid:
            return None
        partner = self.shape.partner(seat)
        partner_bid = None if partner is None else self.bids[partner]
        if variant == "standard":  # a minimum bid: the team's second bidder may not leave it short
            if value and partner_bid and value + partner_bid < rules.min_bid:
                return f"Your team must bid at least {rules.min_bid}."
            return None
        if variant == "suicide":
            if partner_bid is None:
                return None if value == 0 or value >= SUICIDE_BID else f"Suicide: bid nil or at least {SUICIDE_BID}."
            if partner_bid == 0:
                return None if value >= SUICIDE_BID else \
                    f"Suicide: your partner bid nil, so you bid at least {SUICIDE_BID}."
            return None if value == 0 else f"Suicide: your partner bid {partner_bid}, so you bid nil."
        held = self.shape.trump_count(self.held[seat])
        spades = f"{held} spade{'' if held == 1 else 's'}"
        if variant == "whiz":
            if value == 0 or value == held:
                return None
            return f"Whiz: bid nil or your {spades}." if held else "Whiz: you hold no spades, so you bid nil."
        # mirror: exactly the trumps held, nil with none
        if value == held:
            return None
        return f"Mirror: bid your {spades}." if held else "Mirror: you hold no spades, so you bid nil."

    # -- applying --------------------------------------------------------------------
    def apply(self, seat: int, action: Action) -> None:
        """Check and apply one action of ``seat``. Raises IllegalAction, leaving the state as it was."""
        self.check(seat, action)  # raises with the reason, or passes
        if type(action) is Card:
            self._play(seat, action)
            return
        if type(action) is Bid:
            self._bid(seat, action)
        else:
            self.looked[seat] = True
        self.version += 1

    def _play(self, seat: int, card: Card) -> None:
        """Play a card already checked, at a table of any shape: the trick is won by the
        highest trump in it, or the highest card of the suit led (the shape's order)."""
        shape = self.shape
        self.held[seat] &= ~(1 << card)
        self.plays.append(card)
        self.version += 1
        trick = self.trick
        if not trick:
            self._win = card
        else:
            win = self._win
            suit_of, power = shape.suit_of, shape.power
            if suit_of[card] == suit_of[win]:
                if power[card] > power[win]:
                    self._win = card
            elif suit_of[card] == SPADES:
                self._win = card
        trick.append(card)
        if len(trick) < self._players:
            self.to_act = shape.left[seat]
        else:
            self._end_trick()

    def _bid(self, seat: int, bid: Bid) -> None:
        self.bids[seat] = bid.value
        self.blind[seat] = bid.blind
        if bid.blind:
            self.looked[seat] = True  # the bid is made; from now on the seat sees its cards
        nxt = self.shape.left[seat]
        if self.bids[nxt] is None:
            self.to_act = nxt
        else:
            self.phase = PLAYING
            self.looked = [True] * self._players
            self.to_act = self.trick_leader

    def _end_trick(self) -> None:
        trick = self.trick
        win = self._win
        winner = (self.trick_leader + trick.index(win)) % self._players
        if self._trumps >> win & 1:  # a trump wins only if one was played: spades are broken
            self.broken = True
        self.tricks.append((self.trick_leader, tuple(trick), winner))
        self.taken[winner] += 1
        self.trick = []
        self.trick_leader = winner
        if len(self.tricks) < self._size:
            self.to_act = winner
        else:
            self._end_hand()

    def _end_hand(self) -> None:
        self.to_act = None
        score = score_hand(self.rules, self.bids, self.blind, self.taken, self.bags)
        for t, side in enumerate(score.teams):
            self.scores[t] += side.total
            self.bags[t] = side.bags_after
        self.results.append(HandResult(
            self.hand_number, self.dealer, tuple(tuple(c) for c in self.deal), tuple(self.bids),
            tuple(self.blind), tuple(self.plays), tuple(self.taken), score, tuple(self.scores),
            self.shape.sides,
        ))
        self.phase = HAND_OVER
        if self._match_decided():
            self.phase = MATCH_OVER

    def _match_decided(self) -> bool:
        """Whether the match ends after this hand, and who won: the one highest side once a
        side reached the target (or after the hands), another hand while the lead is shared;
        at the cap a shared lead is a draw."""
        scores = self.scores
        best = max(scores)
        alone = scores.count(best) == 1
        n = self.hand_number
        rules = self.rules
        reached = best >= rules.target if rules.end == "target" else n >= rules.hands
        if (reached and alone) or n >= MAX_HANDS:
            self.winner = scores.index(best) if alone else None
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
        return list(any_cards_of(self.held[seat]))


class StandardMatch(Match):
    """A match at a standard table (no house rule: four seats, two teams, 52 cards,
    spades led once broken, standard bidding): ``Match`` makes one for such rules. It plays
    by the same rules on a path written for that table, the one the bots' simulations and
    the engine's benchmark run: a legal card is checked and played inline (a function call
    is a measurable part of each of the millions a bot plays), a card's suit is its number
    // 13 (``RANK_COUNT``), a spade is below 13, and the next seat is ``(seat + 1) & 3``."""

    __slots__ = ()

    def legal_actions(self, seat: int | None) -> tuple[Action, ...]:
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

    def apply(self, seat: int, action: Action) -> None:
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
        else:
            self.looked[seat] = True
        self.version += 1

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

    def _match_decided(self) -> bool:
        a, b = self.scores
        n = self.hand_number
        rules = self.rules
        reached = (max(a, b) >= rules.target) if rules.end == "target" else n >= rules.hands
        if (reached and a != b) or n >= MAX_HANDS:
            self.winner = None if a == b else (0 if a > b else 1)
            return True
        return False
