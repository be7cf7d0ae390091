"""A player's record and per-hand figures, computed from stored matches by replaying
them with the core. Pure functions: no database, no Flask.

A match is rebuilt from its seed, rules and stored actions (``replay``), or from a
RECORD.md document (``spades.records.from_record``); ``record_of`` then reads the finished
hands (``Match.results``) from one seat's point of view.

Definitions, where the rules leave them open:
- *bids made*: of the hands where the player bid a number (not nil), the share where
  their team made its contract (the contract is the team's: partners bid together);
- *average bid*: the mean of those number bids;
- *nil* / *blind nil success*: nils (blind nils) the player bid and made;
- *bags per hand*: bags the player's team took, per hand played;
- *sets*: hands in which the player's team failed its contract.
Only finished hands count; a match counts as played once it is over (a draw at the
99-hand cap is neither won nor lost).

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
    for seat, text in actions:
        if text == DEAL:
            match.next_hand()
        else:
            match.apply(seat, parse_action(text))  # type: ignore[arg-type]
    return match


@dataclass(frozen=True, slots=True)
class Played:
    """One match seen from one seat: the replayed match and when it was played."""

    match: Match
    seat: int
    when: float = 0.0
    code: str = ""
    number: int = 1

    @property
    def team(self) -> int:
        return self.seat % 2

    @property
    def outcome(self) -> str | None:
        """"won", "lost" or "drawn" once the match is over; None while it goes on."""
        m = self.match
        if not m.finished:
            return None
        if m.winner is None:
            return "drawn"
        return "won" if m.winner == self.team else "lost"

    @property
    def margin(self) -> int:
        """The player's team's score minus the other team's, as it stands."""
        return self.match.scores[self.team] - self.match.scores[1 - self.team]


@dataclass(frozen=True, slots=True)
class Record:
    """A player's record over a set of matches."""

    played: int = 0
    won: int = 0
    lost: int = 0
    drawn: int = 0
    hands: int = 0
    bids: int = 0  # number bids (1-13)
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
        seat, team = p.seat, p.team
        for r in p.match.results:
            ts = r.score.teams[team]
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
    """One finished match for the chart and the history list."""

    when: float
    code: str
    number: int
    outcome: str
    us: int
    them: int


def results_over_time(played: Iterable[Played]) -> list[Result]:
    """The finished matches, oldest first."""
    out = [Result(p.when, p.code, p.number, p.outcome, p.match.scores[p.team], p.match.scores[1 - p.team])
           for p in played if p.outcome is not None]
    return sorted(out, key=lambda r: (r.when, r.code, r.number))
