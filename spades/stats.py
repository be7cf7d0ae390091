"""A player's record and per-hand figures, computed from stored matches by replaying
them with the core. Pure functions: no database, no Flask.

A match is rebuilt from its seed, rules and stored actions (``replay``), or from a
RECORD.md document (``spades.records.from_record``); ``record_of`` then reads the finished
hands (``Match.results``) from one seat's point of view.

A player's side is ``Rules.shape.side_of[seat]``: a team of two at a table with partners
(seats 0 and 2, 1 and 3, house rules such as jokers, whiz or a minimum bid included), the
player alone in cutthroat (``partners: false``, three or four players). Every figure is
read for that side, so one set of definitions holds at every shape.

Definitions, where the rules leave them open:
- *won* / *lost* / *drawn*: won when the player's side is the match's winner (the one
  highest score at the end); drawn when the match ended with no winner and the player's
  side shares the highest score (only at the 99-hand cap: a shared lead otherwise plays
  another hand); lost otherwise. In cutthroat that means: won = finished highest alone;
  at the cap, the players sharing the highest score have drawn and the others have lost;
- *bids made*: of the hands where the player bid a number (not nil), the share where
  their side made its contract (with partners the contract is the team's: partners bid
  together; in cutthroat it is the player's own bid);
- *average bid*: the mean of those number bids;
- *nil* / *blind nil success*: nils (blind nils) the player bid and made;
- *bags per hand*: bags the player's side took, per hand played (in cutthroat, the
  player's own bags);
- *sets*: hands in which the player's side failed its contract (in cutthroat, the
  player's own bid);
- *the score against*: with partners, the other team's score; in cutthroat, the highest
  of the other players' scores (``Result.them``; every other score is in ``others``), so
  the margin is how far the player finished ahead of the best of the rest, or behind.
Only finished hands count; a match counts as played once it is over.

Imports: the core only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .rules import DEAL, Deals, Match, parse_action
from .rules_config import Rules


def replay(rules: dict, seed: str | int, actions: Iterable[tuple[int | None, str]],
           deals: Deals | None = None) -> Match:
    """The match rebuilt from its rules, seed and stored ``(seat, action text)`` moves,
    dealt by ``deals`` when it was dealt fairly (``spades.fairness.FairDeals.stored``).
    Raises IllegalAction or NotationError for a move the rules refuse (a corrupt store)."""
    match = Match(Rules.from_dict(rules), seed, deals=deals)
    tricks = match.shape.tricks  # bids go up to 17 with three players
    for seat, text in actions:
        if text == DEAL:
            match.next_hand()
        else:
            match.apply(seat, parse_action(text, tricks))  # type: ignore[arg-type]
    return match


@dataclass(frozen=True, slots=True)
class Played:
    """One match seen from one seat: the replayed match, when it was played, and the seat
    names as they were when it finished (empty when unknown)."""

    match: Match
    seat: int
    when: float = 0.0
    code: str = ""
    number: int = 1
    names: tuple[str, ...] = ()
    takebacks: int = 0  # moves its person took back (a practice table's undo)

    @property
    def side(self) -> int:
        """The player's side: their team with partners, the player alone in cutthroat."""
        return self.match.shape.side_of[self.seat]

    @property
    def team(self) -> int:
        """The player's side (the name from before cutthroat: a side is a team of one or two)."""
        return self.side

    @property
    def outcome(self) -> str | None:
        """"won", "lost" or "drawn" once the match is over; None while it goes on."""
        m = self.match
        if not m.finished:
            return None
        if m.winner is not None:
            return "won" if m.winner == self.side else "lost"
        return "drawn" if m.scores[self.side] == max(m.scores) else "lost"

    @property
    def others(self) -> tuple[int, ...]:
        """The other sides' scores, highest first."""
        scores = self.match.scores
        return tuple(sorted((v for t, v in enumerate(scores) if t != self.side), reverse=True))

    @property
    def margin(self) -> int:
        """The player's side's score minus the best other side's, as it stands."""
        return self.match.scores[self.side] - self.others[0]


@dataclass(frozen=True, slots=True)
class Record:
    """A player's record over a set of matches."""

    played: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0
    hands: int = 0
    bids: int = 0  # number bids (1 up to the hand's tricks)
    bid_total: int = 0
    bids_made: int = 0
    nils: int = 0
    nils_made: int = 0
    blind_nils: int = 0
    blind_nils_made: int = 0
    bags: int = 0
    sets: int = 0

    @property
    def bids_made_pct(self) -> float | None:
        return 100.0 * self.bids_made / self.bids if self.bids else None

    @property
    def average_bid(self) -> float | None:
        return self.bid_total / self.bids if self.bids else None

    @property
    def nil_pct(self) -> float | None:
        return 100.0 * self.nils_made / self.nils if self.nils else None

    @property
    def blind_nil_pct(self) -> float | None:
        return 100.0 * self.blind_nils_made / self.blind_nils if self.blind_nils else None

    @property
    def bags_per_hand(self) -> float | None:
        return self.bags / self.hands if self.hands else None


def record_of(played: Iterable[Played]) -> Record:
    """The record and per-hand figures of one player over ``played``.

    >>> record_of([]).played, record_of([]).bids_made_pct
    (0, None)
    """
    n: dict[str, int] = dict.fromkeys(Record.__dataclass_fields__, 0)
    for p in played:
        outcome = p.outcome
        if outcome is not None:
            n["played"] += 1
            n[outcome] += 1
        seat, side = p.seat, p.side
        for r in p.match.results:
            ts = r.score.teams[side]
            n["hands"] += 1
            n["bags"] += ts.bags
            if ts.made is False:
                n["sets"] += 1
            bid = r.bids[seat]
            if bid is None:  # no-bidding mode
                continue
            if bid == 0:
                made = next((m for s, _, m in ts.nils if s == seat), False)
                kind = "blind_nils" if r.blind[seat] else "nils"
                n[kind] += 1
                n[kind + "_made"] += int(made)
            else:
                n["bids"] += 1
                n["bid_total"] += bid
                n["bids_made"] += int(ts.made is True)
    return Record(**n)


@dataclass(frozen=True, slots=True)
class Result:
    """One finished match for the chart and the history list: the player's side's score
    (``us``), the best other side's (``them``) and every other side's, highest first
    (``others``: one score with partners, two or three in cutthroat); the seat and seat
    names, and the rules, to say whom it was played with and against and at what table."""

    when: float
    code: str
    number: int
    outcome: str
    us: int
    them: int
    others: tuple[int, ...] = ()
    seat: int = 0
    names: tuple[str, ...] = ()
    rules: Rules = Rules()
    takebacks: int = 0  # moves taken back in it (a practice table's undo): "with takebacks"

    @property
    def against(self) -> str:
        """The other sides' scores in words: "210", "210 and 150", "210, 150 and 90".

        >>> Result(0, "", 1, "won", 320, 210, (210, 150, 90)).against
        '210, 150 and 90'
        """
        return in_words([str(v) for v in self.others or (self.them,)])


def in_words(items: list[str]) -> str:
    """A list as a sentence says it: "A", "A and B", "A, B and C".

    >>> in_words(["Rex", "Kit", "Bea"])
    'Rex, Kit and Bea'
    """
    return " and ".join(filter(None, [", ".join(items[:-1]), items[-1]])) if items else ""


def results_over_time(played: Iterable[Played]) -> list[Result]:
    """The finished matches, oldest first."""
    out = [Result(p.when, p.code, p.number, p.outcome, p.match.scores[p.side], p.others[0], p.others,
                  p.seat, p.names, p.match.rules, p.takebacks)
           for p in played if p.outcome is not None]
    return sorted(out, key=lambda r: (r.when, r.code, r.number))
