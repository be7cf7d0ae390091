"""The seat view: the only way state leaves the core (BOTS.md gives it as JSON).

``seat_view(match, seat)`` holds exactly what a person in that seat may see: never
another seat's cards, and not its own while it may still bid blind nil and has not
looked. ``seat=None`` is a spectator. ``seat_view`` gives it as the JSON of BOTS.md (what
bots read); ``view_of`` gives it typed, as the table service and the pages read it, in
two parts:

- ``MatchView``, the match as every seat sees it alike (the bids, the tricks, the scores,
  whose turn, the finished hands), made once per change of a table;
- ``OwnView``, the seat's own: its cards (once looked at), its legal actions, whether it
  may still look; a spectator's has none of them.

``SeatView.to_json()`` is the view as BOTS.md and ``view.json`` give it, its keys unchanged:
beyond BOTS.md it carries ``phase``, ``results``, ``finished``, ``winner``, ``can_look``,
``version`` and ``sides`` for the pages (outside bots ignore them). At every shape of
table (``Rules.shape``) the per-seat lists (``bids``, ``blind``, ``taken``, each result's
``bids`` and ``tricks``) have one entry per seat, and ``scores``, ``bags``, each result's
``teams`` and ``totals`` one per side; ``sides`` lists each side's seats (``[[0, 2], [1,
3]]`` at a standard table, ``[[0], [1], [2]]`` for three players). ``rules`` carries the
house keys only when one is away from its default.

Bids and legal actions are kept as JSON gives them (a number, ``"nil"``, ``"blind_nil"``,
a card's text): that is how every reader shows and sends them.

Imports: the rest of the core only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .rules import PLAYING, HandResult, Match
from .rules_config import Rules, Shape

Bid = int | str | None  # a bid as JSON: None (not yet), "nil" or the number
Action = int | str  # a legal action as JSON: a bid's number, "nil", "blind_nil", "look" or a card


def bid_json(value: int | None) -> Bid:
    """A bid as JSON: ``None`` (not yet), ``"nil"`` or the number."""
    if value is None:
        return None
    return "nil" if value == 0 else value


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick: who led it, its cards in play order (as text), and its winner once taken."""

    leader: int
    cards: tuple[str, ...]
    winner: int | None = None

    def seat_of(self, i: int, players: int) -> int:
        """The seat that played the trick's ``i``-th card."""
        return (self.leader + i) % players


@dataclass(frozen=True, slots=True)
class MatchView:
    """The match as every seat and every watcher sees it alike."""

    rules: Rules
    hand_number: int
    dealer: int
    bids: tuple[Bid, ...]
    blind: tuple[bool, ...]
    tricks: tuple[Trick, ...]  # this hand's tricks taken, in order
    trick: Trick | None  # the trick in play (None outside play)
    taken: tuple[int, ...]
    spades_broken: bool
    scores: tuple[int, ...]
    bags: tuple[int, ...]
    to_act: int | None
    phase: str
    version: int
    results: list[dict[str, Any]]  # the finished hands, as ``result_json`` (shared by a table's views)
    finished: bool
    winner: int | None

    @property
    def shape(self) -> Shape:
        return self.rules.shape

    @property
    def acting(self) -> bool:
        """Someone is to bid or play (not between hands, not once the match is over)."""
        return self.phase in ("bidding", "playing") and not self.finished

    @property
    def between(self) -> bool:
        """Between hands, or after the last, with a hand scored to show."""
        return self.phase in ("hand_over", "match_over") and bool(self.results)

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "bids": list(self.bids),
            "blind": list(self.blind),
            "tricks": [{"leader": t.leader, "cards": list(t.cards), "winner": t.winner} for t in self.tricks],
            "trick": {"leader": self.trick.leader, "cards": list(self.trick.cards)} if self.trick else None,
            "taken": list(self.taken),
            "spades_broken": self.spades_broken,
            "scores": list(self.scores),
            "bags": list(self.bags),
            "to_act": self.to_act,
            "phase": self.phase,
            "version": self.version,
            "results": self.results,
            "finished": self.finished,
            "winner": self.winner,
            "sides": [list(side) for side in self.shape.sides],
        }


@dataclass(frozen=True, slots=True)
class OwnView:
    """What one seat sees that no other does (a spectator's: nothing)."""

    seat: int | None
    hand: tuple[str, ...] | None  # None: not looked at yet (or a spectator)
    legal: tuple[Action, ...] = ()  # empty unless it is this seat's turn
    can_look: bool = False


NOBODY = OwnView(None, None)  # a spectator's own view


@dataclass(frozen=True, slots=True)
class SeatView:
    """What ``own.seat`` may see of the match: the match as all see it, and its own."""

    match: MatchView
    own: OwnView

    @property
    def seat(self) -> int | None:
        return self.own.seat

    @property
    def my_turn(self) -> bool:
        return self.own.seat is not None and self.match.to_act == self.own.seat

    def to_json(self) -> dict[str, Any]:
        """The view as BOTS.md and ``view.json`` give it (the keys in their order of old)."""
        m, own = self.match, self.own
        shared = m.to_json()
        return {
            "seat": own.seat, "rules": shared["rules"], "hand_number": m.hand_number, "dealer": m.dealer,
            "hand": list(own.hand) if own.hand is not None else None,
            "bids": shared["bids"], "blind": shared["blind"], "tricks": shared["tricks"], "trick": shared["trick"],
            "taken": shared["taken"], "spades_broken": m.spades_broken, "scores": shared["scores"],
            "bags": shared["bags"], "to_act": m.to_act, "legal": list(own.legal), "phase": m.phase,
            "can_look": own.can_look, "version": m.version, "results": m.results, "finished": m.finished,
            "winner": m.winner, "sides": shared["sides"],
        }


def tricks_of(match: Match) -> tuple[Trick, ...]:
    """This hand's tricks taken, as the views show them."""
    return tuple(Trick(leader, tuple(str(c) for c in cards), winner) for leader, cards, winner in match.tricks)


def match_view(match: Match, results: list[dict[str, Any]] | None = None,
               tricks: tuple[Trick, ...] | None = None) -> MatchView:
    """The match as everyone sees it. ``results`` (the finished hands as ``result_json``)
    and ``tricks`` (``tricks_of``): when the caller keeps them already (they change once a
    trick, once a hand; a table's views share them)."""
    return MatchView(
        rules=match.rules, hand_number=match.hand_number, dealer=match.dealer,
        bids=tuple(bid_json(b) for b in match.bids), blind=tuple(match.blind),
        tricks=tricks_of(match) if tricks is None else tricks,
        trick=Trick(match.trick_leader, tuple(str(c) for c in match.trick)) if match.phase == PLAYING else None,
        taken=tuple(match.taken), spades_broken=match.broken, scores=tuple(match.scores), bags=tuple(match.bags),
        to_act=match.to_act, phase=match.phase, version=match.version,
        results=[result_json(r) for r in match.results] if results is None else results,
        finished=match.finished, winner=match.winner)


def own_view(match: Match, seat: int | None, hand: tuple[str, ...] | None = None) -> OwnView:
    """The part of ``seat_view`` that is the seat's own. ``hand``: the seat's cards in the
    order a player holds them, when the caller keeps them already (they change when the
    seat plays, or at a deal)."""
    if seat is None:
        return NOBODY
    shown = None
    if match.looked[seat]:
        shown = hand if hand is not None else hand_of(match, seat)
    return OwnView(seat, shown, tuple(_action_json(a) for a in match.legal_actions(seat)), match.can_look(seat))


def hand_of(match: Match, seat: int) -> tuple[str, ...]:
    """The cards ``seat`` holds now, in the order a player holds them."""
    return tuple(str(c) for c in match.shape.display_order(match.cards(seat)))


def view_of(match: Match, seat: int | None, results: list[dict[str, Any]] | None = None) -> SeatView:
    """What ``seat`` (0 to players-1, or None for a spectator) may see of the match.
    ``results``: the finished hands' ``result_json`` when the caller keeps them already."""
    return SeatView(match_view(match, results), own_view(match, seat))


def seat_view(match: Match, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see of the match, as the JSON of BOTS.md: ``view_of(match,
    seat).to_json()``, made straight from the match (bots and analyses ask for it at every
    move they weigh; ``tests/test_views.py`` holds the two equal)."""
    looked = seat is not None and match.looked[seat]
    return {
        "seat": seat,
        "rules": match.rules.to_dict(),
        "hand_number": match.hand_number,
        "dealer": match.dealer,
        "hand": list(hand_of(match, seat)) if looked and seat is not None else None,
        "bids": [bid_json(b) for b in match.bids],
        "blind": list(match.blind),
        "tricks": [{"leader": leader, "cards": [str(c) for c in cards], "winner": winner}
                   for leader, cards, winner in match.tricks],
        "trick": {"leader": match.trick_leader, "cards": [str(c) for c in match.trick]}
        if match.phase == PLAYING else None,
        "taken": list(match.taken),
        "spades_broken": match.broken,
        "scores": list(match.scores),
        "bags": list(match.bags),
        "to_act": match.to_act,
        "legal": [_action_json(a) for a in match.legal_actions(seat)],
        "phase": match.phase,
        "can_look": seat is not None and match.can_look(seat),
        "version": match.version,
        "results": [result_json(r) for r in match.results],
        "finished": match.finished,
        "winner": match.winner,
        "sides": [list(side) for side in match.shape.sides],
    }


def _action_json(action: object) -> Action:
    to_json = getattr(action, "to_json", None)
    return to_json() if to_json else str(action)


def result_json(result: HandResult) -> dict[str, Any]:
    """A finished hand's score table as JSON (every card of it has been played)."""
    return {
        "number": result.number,
        "dealer": result.dealer,
        "bids": [bid_json(b) for b in result.bids],
        "blind": list(result.blind),
        "tricks": list(result.tricks),
        "teams": [  # one per side: a team, or one player in cutthroat
            {
                "seats": list(seats),
                "contract": t.contract,
                "tricks": t.tricks,
                "made": t.made,
                "contract_points": t.contract_points,
                "bags": t.bags,
                "nil_points": t.nil_points,
                "nils": [{"seat": s, "blind": b, "made": m} for s, b, m in t.nils],
                "penalty": t.penalty,
                "total": t.total,
                "bags_after": t.bags_after,
            }
            for t, seats in zip(result.score.teams, result.sides)
        ],
        "totals": list(result.totals),
    }


__all__ = ["seat_view", "view_of", "match_view", "own_view", "result_json", "bid_json", "SeatView", "MatchView",
           "OwnView", "Trick", "Bid", "Action", "NOBODY"]
