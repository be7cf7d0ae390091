"""Who is at the table, and the server's own commands: pages connecting and closing, a
dropped seat's hold running out, a match starting, the process (re)starting, seats moved
to an account at sign-in.

Imports: stdlib, the core and the ``spades.tables`` modules below the actor.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ... import clocks
from ...storage import ClearHold, FireHold, Op, PutAway, PutHold
from ..decide import Decision, deal_if_ready, end_hold, hold_seat, sync_clock
from ..errors import NotWatchable
from ..registry import ANY, BEACON_ANSWER, PERSON, SERVER, Command, declare
from ..rooms import RoomState
from ..state import Settings, TableState
from ..values import WATCHING_OFF, Player, Who

__all__ = ["Connected", "Disconnected", "Closing", "HoldExpired", "Started", "Resume", "Reseat"]


def _away(state: TableState, person: str, at: float | None) -> list[Op]:
    """A turn-based table waiting on ``person``: their last page of it closed at ``at``, or
    (None) one is open again. The notices tell a person away that long past a grace
    (``spades.notices``); the time is stored with the wait, so a restart or the table
    leaving memory keeps it. Nothing at any other table, or for anyone it does not wait on."""
    if not clocks.is_turn_based(state.match.rules) or all(p != person for p, *_ in state.waits):
        return []
    return [PutAway(state.code, person, at)]


@dataclass(frozen=True, slots=True)
class Connected(Command):
    """A person's page opened a live connection to the table."""


@dataclass(frozen=True, slots=True)
class Disconnected(Command):
    """One of a person's live connections to the table closed."""


@dataclass(frozen=True, slots=True)
class Closing(Command):
    """A person's page said it is closing on purpose (the short hold follows)."""


@dataclass(frozen=True, slots=True)
class HoldExpired(Command):
    """The hold of a dropped seat ran out: a bot plays it until its person is back."""

    seat: int


@dataclass(frozen=True, slots=True)
class Started(Command):
    """A match just started at the table (the first deal, or a rematch): its first clock."""


@dataclass(frozen=True, slots=True)
class Resume(Command):
    """The process (re)started: nobody is connected to it yet, so every person counts as
    dropped (their pages reconnect at once)."""


@dataclass(frozen=True, slots=True)
class Reseat(Command):
    """Seats changed owner in the database (a browser's seats moved to an account at
    sign-in): the table takes them, and ``renamed`` (old id -> new id) keeps its count of
    connections."""

    seats: tuple[Any, ...]  # SeatRow
    host: str | None
    renamed: tuple[tuple[str, str], ...] = ()


@declare(Connected, "connected", senders=PERSON, phase=ANY)
def connected(state: TableState | RoomState, who: Who, command: Connected, now: float,
              settings: Settings) -> Decision:
    """A person's page connected: the first connection of a seated person ends their hold,
    and everyone sees them here again; a new watcher is counted for everyone to see. A
    room counts its open pages too (they keep it in its owner's memory, and they carry
    over to the table when the game starts), though its picture does not change.
    Raises NotWatchable (a person without a seat, when watching is off)."""
    assert isinstance(who, Player)
    if isinstance(state, RoomState):
        state.connections[who.id] = state.connections.get(who.id, 0) + 1
        return Decision(publish=False)
    seat = state.seat_of(who.id)
    if seat is None and not state.watchable():
        raise NotWatchable(WATCHING_OFF)
    count = state.connections.get(who.id, 0) + 1
    state.connections[who.id] = count
    if seat is None:
        return Decision(publish=count == 1)  # one more watching
    if count > 1:
        return Decision(publish=False, seat=seat)
    state.closing.pop(seat, None)
    rows = end_hold(state, seat) + _away(state, who.id, None)
    return Decision(rows + sync_clock(state, now, settings), seat=seat)


@declare(Disconnected, "disconnected", senders=PERSON, phase=ANY)
def disconnected(state: TableState | RoomState, who: Who, command: Disconnected, now: float,
                 settings: Settings) -> Decision:
    """One of a person's connections closed; the seat's last one starts its hold (at a
    turn-based table waiting on them: the time they went away, for the notices)."""
    assert isinstance(who, Player)
    if state.connections.get(who.id, 0) <= 0:
        return Decision(publish=False)
    count = state.connections[who.id] - 1
    if count:
        state.connections[who.id] = count
        return Decision(publish=False)
    del state.connections[who.id]
    if isinstance(state, RoomState):
        return Decision(publish=False)
    seat = state.seat_of(who.id)
    if seat is None:
        return Decision()  # one fewer watching
    return Decision(hold_seat(state, seat, now) + _away(state, who.id, now), seat=seat)


@declare(Closing, "closing", senders=PERSON, route="closing", answer=BEACON_ANSWER, limited=True)
def closing(state: TableState, who: Who, command: Closing, now: float, settings: Settings) -> Decision:
    """The person's page is closing on purpose: the hold is the short one."""
    seat = state.seat_of(who.id) if isinstance(who, Player) else None
    if seat is None:
        return Decision(publish=False)
    hold = state.holds.get(seat)
    if hold is None:  # the connection closes next: remember, briefly
        state.closing[seat] = now
        return Decision(publish=False, seat=seat)
    if hold[2]:
        return Decision(publish=False, seat=seat)
    until = min(hold[1], clocks.hold_until(hold[0], closing=True))
    state.holds[seat] = (hold[0], until, False)
    return Decision([PutHold(state.code, seat, hold[0], until)], publish=False, seat=seat)


@declare(HoldExpired, "hold_expired", senders=SERVER)
def hold_expired(state: TableState, who: Who, command: HoldExpired, now: float, settings: Settings) -> Decision:
    """A dropped seat's hold ran out: a bot plays it until its person is back."""
    seat = command.seat
    hold = state.holds.get(seat)
    if hold is None or state.row.seats[seat].kind != "human":
        state.holds.pop(seat, None)
        return Decision([ClearHold(state.code, seat)], publish=False)
    if hold[2] or hold[1] > now:
        return Decision(publish=False)
    state.holds[seat] = (hold[0], hold[1], True)
    rows: list[Op] = [FireHold(state.code, seat), *sync_clock(state, now, settings)]
    return Decision(rows + deal_if_ready(state, now, settings))


@declare(Started, "started", senders=SERVER)
def started(state: TableState, who: Who, command: Started, now: float, settings: Settings) -> Decision:
    """A match started: the person to act gets their clock."""
    return Decision(sync_clock(state, now, settings))


@declare(Resume, "resume", senders=SERVER)
def resume(state: TableState, who: Who, command: Resume, now: float, settings: Settings) -> Decision:
    """The process started: nobody is connected to it, so every person counts as dropped
    (and, at a turn-based table, as away from now, unless they were away already)."""
    rows: list[Op] = []
    for s in state.row.seats:
        if s.kind == "human":
            rows += hold_seat(state, s.seat, now)
            if s.player_id:
                rows += _away(state, s.player_id, now)
    return Decision(rows + sync_clock(state, now, settings))


@declare(Reseat, "reseat", senders=SERVER, phase=ANY)
def reseat(state: TableState | RoomState, who: Who, command: Reseat, now: float, settings: Settings) -> Decision:
    """Seats moved to an account at sign-in (already in the database)."""
    if isinstance(state, RoomState):
        return Decision(reload=True)  # the room's members moved too: read them again
    state.row = dataclasses.replace(state.row, seats=tuple(command.seats), host=command.host)
    for old, new in command.renamed:
        if old in state.connections:
            state.connections[new] = state.connections.get(new, 0) + state.connections.pop(old)
    return Decision()
