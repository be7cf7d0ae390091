"""The seat view: the only way state leaves the core (BOTS.md gives it as JSON).

``seat_view(match, seat)`` holds exactly what a person in that seat may see: never
another seat's cards, and not its own while it may still bid blind nil and has not
looked. ``seat=None`` is a spectator. Keys beyond BOTS.md (``phase``, ``results``,
``finished``, ``winner``, ``can_look``, ``version``, ``sides``) serve the pages; outside
bots ignore them.

At every shape of table (``Rules.shape``) the per-seat lists (``bids``, ``blind``,
``taken``, each result's ``bids`` and ``tricks``) have one entry per seat, and ``scores``,
``bags``, each result's ``teams`` and ``totals`` one per side; ``sides`` lists each side's
seats (``[[0, 2], [1, 3]]`` at a standard table, ``[[0], [1], [2]]`` for three players).
``rules`` carries the house keys only when one is away from its default.

Imports: the rest of the core only.
"""

from __future__ import annotations

from .rules import PLAYING, HandResult, Match


def bid_json(value: int | None) -> int | str | None:
    """A bid as JSON: ``None`` (not yet), ``"nil"`` or the number."""
    if value is None:
        return None
    return "nil" if value == 0 else value


def seat_view(match: Match, seat: int | None, results: list[dict] | None = None) -> dict:
    """What ``seat`` (0 to players-1, or None for a spectator) may see of the match, as JSON.
    ``results``: the finished hands' ``result_json`` when the caller keeps them already
    (they change once a hand; a table's snapshots share them)."""
    in_play = match.phase == PLAYING
    own = own_view(match, seat)
    return {
        "seat": seat,
        "rules": match.rules.to_dict(),
        "hand_number": match.hand_number,
        "dealer": match.dealer,
        "hand": own["hand"],
        "bids": [bid_json(b) for b in match.bids],
        "blind": list(match.blind),
        "tricks": [{"leader": leader, "cards": [str(c) for c in cards], "winner": winner}
                   for leader, cards, winner in match.tricks],
        "trick": {"leader": match.trick_leader, "cards": [str(c) for c in match.trick]} if in_play else None,
        "taken": list(match.taken),
        "spades_broken": match.broken,
        "scores": list(match.scores),
        "bags": list(match.bags),
        "to_act": match.to_act,
        "legal": own["legal"],
        "phase": match.phase,
        "can_look": own["can_look"],
        "version": match.version,
        "results": [result_json(r) for r in match.results] if results is None else results,
        "finished": match.finished,
        "winner": match.winner,
        "sides": _sides_json(match),
    }


def _sides_json(match: Match) -> list[list[int]]:
    return [list(side) for side in match.shape.sides]


def own_view(match: Match, seat: int | None) -> dict:
    """The part of ``seat_view`` that is the seat's own: its cards (once looked at), its
    legal actions, whether it may still look; a spectator's has none of them. The rest is
    the same for every seat (``spades.tables.state.snapshots`` makes it once)."""
    return {
        "seat": seat,
        "hand": ([str(c) for c in match.shape.display_order(match.cards(seat))]
                 if seat is not None and match.looked[seat] else None),
        "legal": [_action_json(a) for a in match.legal_actions(seat)],  # empty for a spectator
        "can_look": seat is not None and match.can_look(seat),
    }


def _action_json(action: object) -> int | str:
    to_json = getattr(action, "to_json", None)
    return to_json() if to_json else str(action)


def result_json(result: HandResult) -> dict:
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


__all__ = ["seat_view", "result_json", "bid_json"]
