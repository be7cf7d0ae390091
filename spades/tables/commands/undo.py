"""Undo at a practice table: the person takes back their last bid or card, and every bot
move after it.

One person plays with bots (a practice table, never a tourney's): on their turn, or
between hands, they may take back their last bid or card of the hand going on and every
move the bots made after it, as many times as they like, back to the hand's first bid.
The moves taken back leave the stored match (``spades.storage.TakeBack``), so its record,
replay and analysis hold only the line finally played; the match counts its takebacks,
says "with takebacks" on its record and the person's profile, and is not rated.

The table's version goes *up* by one for each move taken back: a takeback is a change
like any other, so a page or a bot's turn from before it is stale, and a page never
applies an older picture. The in-memory match is rebuilt from the database after the
commit (``Decision.reload``), exactly as a restart would find it.

Offered (``Snapshot.offers``: ``undo``) only on the person's turn or between hands, so no
bot moves between the page that shows the button and the takeback: the version a page
sends is the one it showed.

Route ``undo`` (``POST /g/<CODE>/undo``; ``{"route": "undo"}`` on the page's socket),
with the optional ``version`` field (a double submit is refused as stale).

Imports: stdlib, the core and the ``spades.tables`` modules below the actor.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...rules import BIDDING, HAND_OVER, PLAYING, IllegalAction
from ...storage import TakeBack
from ..decide import Decision, check_fresh, person_seat
from ..registry import PERSON, Command, Form, announce, declare, form_version
from ..state import Settings, TableState
from ..values import Announced, Snapshot, Who

__all__ = ["Undo", "can_undo"]

NOT_HERE = "Takebacks are for practice tables only: at a table with other people every move stands."
NOTHING = "You have no bid or card to take back in this hand."


@dataclass(frozen=True, slots=True)
class Undo(Command):
    """The person takes back their last bid or card (and the bots' moves after it), at
    ``version`` (None: whatever the table's version is)."""

    version: int | None = None


def _undo_form(form: Form) -> Undo:
    """``version``, when the form has it (a message on the socket may leave it out)."""
    return Undo(form_version(form) if "version" in form else None)


def _taken_back(state: TableState, seat: int) -> str | None:
    """What ``seat``'s last move of the hand going on was: ``card``, ``bid``, or None."""
    match = state.match
    if match.phase not in (BIDDING, PLAYING, HAND_OVER):
        return None
    shape = match.shape
    played = bool(match.tricks)  # every trick taken holds a card of every seat
    lead = match.trick_leader
    for _ in match.trick:
        played = played or lead == seat
        lead = shape.left[lead]
    if played:
        return "card"
    if match.rules.bidding and match.bids[seat] is not None:
        return "bid"
    return None


def can_undo(state: TableState, seat: int) -> bool:
    """Whether ``seat``'s person may take a move back now: a practice table (one person
    with bots), the match not over, their turn or between hands, a bid or card of theirs
    in the hand going on."""
    match = state.match
    if state.shared() or state.tourney() or match.finished or state.row.seats[seat].kind != "human":
        return False
    if match.to_act != seat and match.phase != HAND_OVER:
        return False
    return _taken_back(state, seat) is not None


def _news(event: Announced, who: str, snap: Snapshot) -> str:
    what = "card" if event.detail == "card" else "bid"
    return f"{who} took back {'your' if who == 'You' else 'their'} last {what} and the bots' moves after it."


@declare(Undo, "undo", senders=PERSON, route="undo", form=_undo_form, offer=can_undo,
         button="table/offers/undo.html", news=_news)
def undo(state: TableState, who: Who, command: Undo, now: float, settings: Settings) -> Decision:
    """Take back the person's last bid or card of this hand and every move after it.
    Raises NotSeated, Stale, IllegalAction (with the reason)."""
    seat = person_seat(state, who)
    check_fresh(state, command.version)
    if state.shared() or state.tourney():
        raise IllegalAction(NOT_HERE)
    if state.match.finished:
        raise IllegalAction("The match is over: its result stands.")
    what = _taken_back(state, seat)
    if what is None:
        raise IllegalAction(NOTHING)
    if state.match.to_act != seat and state.match.phase != HAND_OVER:
        raise IllegalAction("Wait for your turn: then take back your last move and the bots' after it.")
    state.event = announce(Undo, seat, detail=what)
    state.notices.pop(seat, None)
    return Decision([TakeBack(state.match_id, state.match.version, seat)], reload=True, seat=seat)
