"""A match told for people to read: a replay step by step, and a score sheet. Pure values.

``load(record, names)`` replays a RECORD.md document once with the core and keeps each
hand's deal, bids, tricks and result; ``Replay.frame(hand, trick)`` is the match at one
step of it, face up: every seat's cards still held, the trick just taken and who took it,
the bids, the tricks taken so far, and each side's score and bags at that point (a team's,
or one player's in cutthroat: ``Rules.shape``). A hand's steps are ``0`` (the bids are in,
no card played), ``1`` up to the hand's tricks (after each trick: 13, or 17 with three
players) and ``END`` (its result). Hands are counted from 1, as players count them.
Between two tricks lie the card steps: ``Replay.frame(hand, trick, card)`` with ``card``
1 up to one less than the players is the match once that many cards of the next trick are
on the table (``card`` 0 is the trick step itself; the last player's card completes the
trick, the next trick step).

``score_sheet(results, names)`` turns a match's finished hands, as
``spades.views.result_json`` gives them (a seat view's ``results``), into the rows of a
printed score sheet: no card of anybody, so it may be shown while a match goes on.

Imports: the rest of the core only.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card, display_order
from .records import replay_steps
from .rules import HAND_OVER, MATCH_OVER
from .rules_config import STANDARD_SHAPE, ordinal_word
from .views import result_json

Sides = tuple[tuple[int, ...], ...]  # each side's seats (``spades.rules_config.Shape.sides``)

END = "end"  # the step after a hand's last trick: the hand's result
Step = tuple[int, int | str]  # (hand from 1, trick from 0, or END)
CardStep = tuple[int, int | str, int]  # a step and the cards of the next trick on the table (0 to players-1)


class StepError(ValueError):
    """A step the replayed match does not have; ``str(e)`` says which steps it has."""


# -- the score sheet ---------------------------------------------------------------------
def bid_words(bid: int | str | None, blind: bool = False) -> str:
    """A bid as a score sheet writes it: ``"4"``, ``"nil"``, ``"blind nil"``, or ``""``
    when there was none (no bidding, or not bid yet).

    >>> bid_words(4), bid_words("nil"), bid_words("nil", True), bid_words(0, True), bid_words(None)
    ('4', 'nil', 'blind nil', 'blind nil', '')
    """
    if bid is None:
        return ""
    if bid in ("nil", 0):
        return "blind nil" if blind else "nil"
    return str(bid)


def team_names(names: tuple[str, ...] | list[str], sides: Sides = STANDARD_SHAPE.sides) -> tuple[str, ...]:
    """Each side's name from the seat names: at a standard table seats 0 and 2, then 1 and
    3; in cutthroat each player's own name.

    >>> team_names(("Ann", "Rex", "Bea", "Kit"))
    ('Ann & Bea', 'Rex & Kit')
    >>> team_names(("Ann", "Rex", "Bea"), ((0,), (1,), (2,)))
    ('Ann', 'Rex', 'Bea')
    """
    return tuple(" & ".join(names[s] for s in side) for side in sides)


@dataclass(frozen=True, slots=True)
class SheetBid:
    """One seat's line in a hand: its bid (``bid_words``) and the tricks it took."""

    seat: int
    name: str
    bid: str
    tricks: int


@dataclass(frozen=True, slots=True)
class SheetNil:
    """A nil or blind nil bid and whether it was made; ``str()`` says it in words."""

    seat: int
    name: str
    blind: bool
    made: bool
    points: int  # +-100, or +-200 blind

    def __str__(self) -> str:
        return f"{self.name}: {'blind nil' if self.blind else 'nil'} {'made' if self.made else 'failed'}"


@dataclass(frozen=True, slots=True)
class SheetTeam:
    """One side's result for one hand (a team's, or one player's in cutthroat), every part
    of it, and its running totals."""

    name: str
    bids: str  # the side's bids as written: "4 + nil"; "" without bidding
    contract: int | None  # the sum of the number bids; None without bidding
    tricks: int  # tricks taken by the team's non-nil bidders (by both seats without bidding)
    made: bool | None  # the contract made; None when there was none to make
    contract_points: int
    bags: int  # bags taken this hand
    nils: tuple[SheetNil, ...]
    nil_points: int
    penalty: int  # the bag penalty of this hand: 0 or a negative number
    points: int  # the hand's points, penalty included
    bags_after: int  # the running bag count after the hand (after any penalty)
    total: int  # the running score after the hand


@dataclass(frozen=True, slots=True)
class SheetRow:
    """One hand of the score sheet."""

    hand: int  # from 1
    dealer_seat: int
    dealer: str
    seats: tuple[SheetBid, ...]  # one per seat
    teams: tuple[SheetTeam, ...]  # one per side


def score_sheet(results: list[dict], names: tuple[str, ...] | list[str]) -> list[SheetRow]:
    """The score sheet of a match: one row per finished hand, in order.

    ``results`` are the finished hands as ``spades.views.result_json`` gives them (a seat
    view's ``"results"``), ``names`` the seat names. Raises KeyError, IndexError or
    TypeError for a result that is not shaped like ``result_json``'s.

    >>> from spades import Match, Rules
    >>> from spades.views import result_json
    >>> m = Match(Rules(end="hands", hands=1, mode="no_bidding"), seed=1)
    >>> while not m.finished:
    ...     m.apply(m.to_act, m.legal_actions(m.to_act)[0])
    >>> row = score_sheet([result_json(r) for r in m.results], ("Ann", "Rex", "Bea", "Kit"))[0]
    >>> row.hand, row.teams[0].name, row.teams[0].contract, row.teams[0].total == m.scores[0]
    (1, 'Ann & Bea', None, True)
    """
    rows = []
    for r in results:
        bids, blind, tricks = r["bids"], r["blind"], r["tricks"]
        bidding = any(b is not None for b in bids)
        seats = tuple(SheetBid(s, names[s], bid_words(bids[s], blind[s]), tricks[s]) for s in range(len(bids)))
        sides = _sides_of(r)
        teams = team_names(names, sides)
        sheet_teams = []
        for t, side in enumerate(sides):
            team = r["teams"][t]
            nils = tuple(SheetNil(n["seat"], names[n["seat"]], n["blind"], n["made"],
                                  (200 if n["blind"] else 100) * (1 if n["made"] else -1)) for n in team["nils"])
            sheet_teams.append(SheetTeam(
                name=teams[t],
                bids=" + ".join(seats[s].bid for s in side) if bidding else "",
                contract=team["contract"] if bidding else None,
                tricks=team["tricks"], made=team["made"], contract_points=team["contract_points"],
                bags=team["bags"], nils=nils, nil_points=team["nil_points"], penalty=team["penalty"],
                points=team["total"], bags_after=team["bags_after"], total=r["totals"][t]))
        rows.append(SheetRow(r["number"], r["dealer"], names[r["dealer"]], seats, tuple(sheet_teams)))
    return rows


def _sides_of(result: dict) -> Sides:
    """The sides of a ``result_json``: each team's ``seats`` (a standard table's when a
    result from before they were written has none)."""
    teams = result["teams"]
    if all("seats" in t for t in teams):
        return tuple(tuple(t["seats"]) for t in teams)
    return STANDARD_SHAPE.sides


def outcome(names: tuple[str, ...] | list[str], finished: bool, winner: int | None,
            sides: Sides = STANDARD_SHAPE.sides) -> str:
    """The match's end in words: who won, a draw, or ``""`` while it goes on.

    >>> outcome(("Ann", "Rex", "Bea", "Kit"), True, 1), outcome(("A", "B", "C", "D"), True, None)
    ('Rex & Kit won the match.', 'A draw at the 99-hand cap.')
    """
    if not finished:
        return ""
    if winner is None:
        return "A draw at the 99-hand cap."
    return f"{team_names(names, sides)[winner]} won the match."


# -- the replay --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class HandPlay:
    """One hand as it was played: what the frames of that hand are made from."""

    number: int  # from 1
    dealer: int
    deal: tuple[tuple[Card, ...], ...]
    bids: tuple[int | None, ...]  # 0 is nil; None: no bid (no bidding, or not bid yet)
    blind: tuple[bool, ...]
    tricks: tuple[tuple[int, tuple[Card, ...], int], ...]  # (leader, cards in play order, winner)
    result: dict | None  # ``result_json`` once the hand is scored
    scores_before: tuple[int, ...]  # per side
    bags_before: tuple[int, ...]

    @property
    def steps(self) -> list[int | str]:
        """This hand's steps: 0, one per trick taken, and END once it is scored."""
        return list(range(len(self.tricks) + 1)) + ([END] if self.result is not None else [])


@dataclass(frozen=True, slots=True)
class SeatFrame:
    """One seat at one step: its cards still held (display order) and its bid and tricks."""

    seat: int
    name: str
    cards: tuple[str, ...]
    bid: str  # ``bid_words``
    taken: int
    dealer: bool


@dataclass(frozen=True, slots=True)
class TrickFrame:
    """A trick just taken: who played what, in order, and who won it."""

    number: int  # from 1
    leader: int
    plays: tuple[tuple[int, str], ...]  # (seat, card)
    winner: int
    winner_name: str

    def card_of(self, seat: int) -> str | None:
        return next((c for s, c in self.plays if s == seat), None)


@dataclass(frozen=True, slots=True)
class TeamFrame:
    """One side at one step (a team, or one player in cutthroat): its contract, tricks
    this hand, and its score and bags then."""

    name: str
    contract: int | None  # None without bidding
    taken: int  # tricks taken this hand so far by the side's seats
    score: int
    bags: int


@dataclass(frozen=True, slots=True)
class Frame:
    """The match at one step of the replay."""

    hand: int
    trick: int | str  # 0 up to the hand's tricks, or END
    seats: tuple[SeatFrame, ...]
    last_trick: TrickFrame | None  # the trick just taken (None before the first)
    teams: tuple[TeamFrame, ...]  # one per side
    row: SheetRow | None  # the hand's score sheet row, at END
    card: int = 0  # cards of the next trick on the table
    playing: tuple[tuple[int, str], ...] = ()  # those cards: (seat, card) in play order

    @property
    def step(self) -> Step:
        return (self.hand, self.trick)

    @property
    def card_step(self) -> CardStep:
        return (self.hand, self.trick, self.card)

    def playing_card_of(self, seat: int) -> str | None:
        return next((c for s, c in self.playing if s == seat), None)


@dataclass(frozen=True, slots=True)
class Replay:
    """A replayed match: its hands, the seat names, and how it ended."""

    hands: tuple[HandPlay, ...]
    names: tuple[str, ...]
    finished: bool
    winner: int | None
    bidding: bool
    sides: Sides = STANDARD_SHAPE.sides  # each side's seats

    @property
    def steps(self) -> list[Step]:
        """Every step of the match in order: ``(hand, trick)``."""
        return [(h.number, t) for h in self.hands for t in h.steps]

    @property
    def card_steps(self) -> list[CardStep]:
        """Every step of the match card by card: each trick step, then each card of the
        trick that follows it until the last (which is the next trick step)."""
        out: list[CardStep] = []
        for h in self.hands:
            for t in h.steps:
                out.append((h.number, t, 0))
                if isinstance(t, int) and t < len(h.tricks):
                    out += [(h.number, t, k) for k in range(1, len(h.tricks[t][1]))]
        return out

    def card_neighbours(self, step: CardStep) -> tuple[CardStep | None, CardStep | None]:
        """The steps one card before and after ``step`` (None at either end). Raises StepError."""
        steps = self.card_steps
        try:
            i = steps.index(step)
        except ValueError:
            raise StepError(self._no_card(*step)) from None
        return (steps[i - 1] if i else None), (steps[i + 1] if i + 1 < len(steps) else None)

    def trick_neighbours(self, step: CardStep) -> tuple[Step | None, Step | None]:
        """The trick steps around ``step``: its own trick step and the next one when some
        cards of a trick are on the table. Raises StepError."""
        hand, trick, card = step
        if not card:
            return self.neighbours((hand, trick))
        self.card_neighbours(step)  # it exists
        assert isinstance(trick, int)
        return (hand, trick), (hand, trick + 1)

    def neighbours(self, step: Step) -> tuple[Step | None, Step | None]:
        """The steps before and after ``step`` (None at either end). Raises StepError."""
        steps = self.steps
        try:
            i = steps.index(step)
        except ValueError:
            raise StepError(self._no_step(*step)) from None
        return (steps[i - 1] if i else None), (steps[i + 1] if i + 1 < len(steps) else None)

    def frame(self, hand: int, trick: int | str, card: int = 0) -> Frame:
        """The match after ``trick`` tricks of hand ``hand`` (0: after the bids; END: the
        hand's result) and ``card`` cards of the next trick. Raises StepError for a step
        this match does not have."""
        if not 1 <= hand <= len(self.hands) or trick not in self.hands[hand - 1].steps:
            raise StepError(self._no_step(hand, trick))
        if card and (hand, trick, card) not in self.card_steps:
            raise StepError(self._no_card(hand, trick, card))
        h = self.hands[hand - 1]
        n = len(h.deal)  # the players
        done = h.tricks if isinstance(trick, str) else h.tricks[:trick]  # END is the only text step
        playing: tuple[tuple[int, str], ...] = ()
        if card:
            leader, cards, _ = h.tricks[trick]  # type: ignore[index]
            playing = tuple(((leader + i) % n, str(c)) for i, c in enumerate(cards[:card]))
        played = {c for _, cards, _ in done for c in cards} | {Card.parse(c) for _, c in playing}
        taken = [0] * n
        for _, _, winner in done:
            taken[winner] += 1
        seats = tuple(SeatFrame(s, self.names[s],
                                tuple(str(c) for c in display_order(c for c in h.deal[s] if c not in played)),
                                bid_words(h.bids[s], h.blind[s]), taken[s], s == h.dealer) for s in range(n))
        last = None
        if done:
            leader, cards, winner = done[-1]
            last = TrickFrame(len(done), leader, tuple(((leader + i) % n, str(c)) for i, c in enumerate(cards)),
                              winner, self.names[winner])
        names = team_names(self.names, self.sides)
        row = score_sheet([h.result], self.names)[0] if trick == END and h.result is not None else None
        teams = tuple(TeamFrame(
            names[t],
            sum(b for b in (h.bids[s] for s in side) if b) if self.bidding else None,
            sum(taken[s] for s in side),
            row.teams[t].total if row else h.scores_before[t],
            row.teams[t].bags_after if row else h.bags_before[t]) for t, side in enumerate(self.sides))
        return Frame(hand, trick, seats, last, teams, row, card, playing)

    def _no_card(self, hand: int, trick: int | str, card: int) -> str:
        if not 1 <= hand <= len(self.hands) or trick not in self.hands[hand - 1].steps:
            return self._no_step(hand, trick)
        h = self.hands[hand - 1]
        if not isinstance(trick, int) or trick >= len(h.tricks):
            return f"After trick {trick} of hand {hand} no card is played: choose card 0. There is no card {card}."
        n = len(h.deal)
        return (f"Card {card} of trick {trick + 1} is not a step: choose card 0 to {n - 1} (the {ordinal_word(n)} "
                f"card ends the trick, trick {trick + 1}).")

    def _no_step(self, hand: int, trick: int | str) -> str:
        n = len(self.hands)
        if not isinstance(hand, int) or not 1 <= hand <= n:
            return f"This match has {n} hand{'s' if n != 1 else ''}: there is no hand {hand}."
        h = self.hands[hand - 1]
        end = ', or "end" (its result)' if h.result is not None else ""
        return (f"Hand {hand} has {len(h.tricks)} trick{'s' if len(h.tricks) != 1 else ''}: choose trick 0 "
                f"(after the bids) to {len(h.tricks)}{end}. There is no trick {trick}.")


def load(record: object, names: tuple[str, ...] | list[str]) -> Replay:
    """Replay a match record (RECORD.md) for reading, with the seat names (one per seat).
    Raises RecordError or IllegalStep (``spades.records``) for a record the rules refuse."""
    hands = []
    scores: tuple[int, ...] = ()
    bags: tuple[int, ...] = ()
    match = None
    for match in replay_steps(record):
        if match.hand_number == 1:
            scores = bags = tuple(0 for _ in match.shape.sides)
        scored = match.phase in (HAND_OVER, MATCH_OVER) and bool(match.results) and \
            match.results[-1].number == match.hand_number
        hands.append(HandPlay(
            match.hand_number, match.dealer, tuple(tuple(cards) for cards in match.deal), tuple(match.bids),
            tuple(match.blind), tuple(match.tricks), result_json(match.results[-1]) if scored else None,
            scores, bags))
        if scored:
            scores, bags = tuple(match.scores), tuple(match.bags)
    assert match is not None  # replay_steps raises for a record without hands
    return Replay(tuple(hands), tuple(names), match.finished, match.winner, match.rules.bidding, match.shape.sides)


__all__ = ["END", "Step", "CardStep", "StepError", "bid_words", "team_names", "SheetBid", "SheetNil", "SheetTeam",
           "SheetRow", "score_sheet", "outcome", "HandPlay", "SeatFrame", "TrickFrame", "TeamFrame", "Frame", "Replay",
           "load"]
