"""The decision: what one command does to one table, with no I/O.

``decide(state, who, command, now, settings)`` finds the command's declaration
(``spades.tables.registry``), checks that its sender may send it and that the table is in
the phase it applies to, and runs its handler (in ``spades.tables.commands``), which
checks the rest (whose seat, the host, a stale version) and works out the change: the
rows to commit (``spades.storage`` row operations),
the event to announce, and whether anyone needs to hear of it. It advances the in-memory
state to match (the match engine is a mutable object, and copying it for every card would
cost more than the move): every check comes first and ``Match.apply`` changes nothing
when it refuses, so a refusal leaves the state as it was; if the commit then fails, the
actor throws this state away and reloads the table from the database. The timers that
follow from the new state are ``spades.tables.state.plan``'s business.

Raises the ``spades.tables.errors`` refusals and ``IllegalAction`` (nothing changed).

This module also holds what the handlers share: the ``Decision``, the seat of the person
asking, the version check, the clock, dealing, holds.

Imports: stdlib, ``spades.clocks``, ``spades.storage`` (row types), the core, and the
other ``spades.tables`` modules below the actor.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import clocks
from ..rules import DEAL, HAND_OVER, IllegalAction
from ..storage import ClearHold, Op, PutClock, PutHand, PutHold, SaveMove
from .errors import NotSeated, NotStarted, Stale, TableClosed
from .registry import ANY, ROOM, Command, declared
from .rooms import RoomState
from .state import Settings, TableState, next_clock
from .values import CLOSING_WINDOW, Dealt, Player, Said, Who

STALE = "The table has moved on since that page was shown: here it is now."
NO_SEAT = "You have no seat at this table."


@dataclass
class Decision:
    """A command's change: ``rows`` to commit in one transaction; ``publish`` when the
    table looks different to anyone; ``reload`` to rebuild the state from the database
    after the commit (a new match, a room that started); ``begin``: that reload began a
    match; ``seat`` whose picture answers the command; ``said``: a chat line to publish."""

    rows: list[Op] = field(default_factory=list)
    publish: bool = True
    reload: bool = False
    begin: bool = False  # a match began (after the reload): its first clock is stored before anyone is told
    seat: int | None = None
    conflict: str = STALE  # what a lost race is told
    said: Said | None = None  # a line said at the table: its change carries the line, not the pictures


def decide(state: TableState | RoomState, who: Who, command: Command, now: float, settings: Settings) -> Decision:
    """The change ``command`` by ``who`` makes to the table at ``now``. Raises a refusal
    or IllegalAction, with the state unchanged."""
    spec = declared(command)
    if not isinstance(who, spec.senders):
        raise NotSeated(NO_SEAT)
    if spec.phase != ANY and (spec.phase == ROOM) != isinstance(state, RoomState):
        if spec.phase == ROOM:
            raise TableClosed("The game at this table has started." if state.status() in ("playing", "finished")
                              else "This table was closed.")
        raise NotStarted("The game at this table has not started yet.")
    return spec.handler(state, who, command, now, settings)


# -- helpers ---------------------------------------------------------------------------
def person_seat(state: TableState, who: Who) -> int:
    """The seat of the person asking. Raises NotSeated."""
    seat = state.seat_of(who.id) if isinstance(who, Player) else None
    if seat is None:
        raise NotSeated(NO_SEAT)
    return seat


def check_fresh(state: TableState, version: int | None) -> None:
    if version is not None and version != state.match.version:
        raise Stale(STALE, state.match.version)


def sync_clock(state: TableState, now: float, settings: Settings) -> list[Op]:
    """The clock the table should have, when it changed."""
    clock = next_clock(state, now, settings)
    if clock == state.clock:
        return []
    state.clock = clock
    return [PutClock(state.match_id, clock)]


def deal(state: TableState, seat: int | None, now: float, settings: Settings) -> list[Op]:
    """The next hand, dealt (between hands only): fairly, from the match's secret and the
    contributions its people sent for it (stored with the deal), or, for a match from
    before fair deals, from its seed."""
    match = state.match
    hand, given = match.hand_number + 1, state.contributions()
    if state.fair is not None:
        state.fair.contributions[hand] = given  # what the match's deals read as it deals
    try:
        match.next_hand()
    except IllegalAction:
        if state.fair is not None:
            state.fair.contributions.pop(hand, None)
        raise
    state.offers = {}
    state.event = Dealt(seat)
    rows: list[Op] = [SaveMove(state.match_id, match.version, seat, DEAL, match.finished, match.winner)]
    if state.fair is not None:
        rows.append(PutHand(state.code, state.match_number, hand, given))
    return rows + sync_clock(state, now, settings)


def deal_if_ready(state: TableState, now: float, settings: Settings) -> list[Op]:
    """Between hands, once a bot took a seat over: deal if everyone left is ready (as the
    first ready person's Continue)."""
    match = state.match
    ready = sorted(state.ready_now())
    if match.phase != HAND_OVER or not ready or not state.everyone_ready():
        return []
    event = state.event
    rows = deal(state, ready[0], now, settings)
    state.event = event  # what took the seat over is the news; the new hand shows itself
    return rows


def hold_seat(state: TableState, seat: int, now: float) -> list[Op]:
    """The seat's person has no connection left: hold the seat (at a table for friends;
    a turn-based table's people come and go, and its clock alone moves for them)."""
    if (not state.shared() or state.row.seats[seat].kind != "human" or seat in state.holds
            or state.connected(seat) or state.match.finished or clocks.is_turn_based(state.match.rules)):
        return []
    said = state.closing.pop(seat, None)
    until = clocks.hold_until(now, closing=said is not None and now - said <= CLOSING_WINDOW)
    state.holds[seat] = (now, until, False)
    return [PutHold(state.code, seat, now, until)]


def end_hold(state: TableState, seat: int) -> list[Op]:
    """The seat's person is here: their hold (and the bot playing for them) ends."""
    if seat not in state.holds:
        return []
    del state.holds[seat]
    return [ClearHold(state.code, seat)]


