"""A person and their seat: taking it back from the bot, leaving for good, putting a
notice away, a new name or emoji.

Imports: stdlib, the core and the ``spades.tables`` modules below the actor.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...clocks import SeatClock
from ...storage import JoinRoom, LeaveSeat, Op, PutSeatClock, RenameSeat
from ..decide import Decision, deal_if_ready, end_hold, person_seat, sync_clock
from ..errors import NotSeated
from ..registry import ANY, HOME_ANSWER, PERSON, Command, announce, declare
from ..rooms import RoomState
from ..seating import check_emoji, clean_name
from ..state import Settings, TableState, join_order
from ..values import BOT_EMOJI, Announced, Player, Snapshot, Who

__all__ = ["TakeOver", "Leave", "Dismiss", "Rename"]


@dataclass(frozen=True, slots=True)
class TakeOver(Command):
    """A person takes their seat back from the bot playing it."""


@dataclass(frozen=True, slots=True)
class Leave(Command):
    """A person leaves the match for good: a bot plays their seat from now on."""


@dataclass(frozen=True, slots=True)
class Dismiss(Command):
    """A person puts away the notice addressed to them (their time ran out, say)."""


@dataclass(frozen=True, slots=True)
class Rename(Command):
    """A person saved a new name or emoji on their profile: the tables where they sit say so."""

    name: str
    emoji: str


def _take_over_news(event: Announced, who: str, snap: Snapshot) -> str:
    return "You took your seat back." if who == "You" else f"{who} took their seat back from the bot."


@declare(TakeOver, "take_over", senders=PERSON, route="takeover", news=_take_over_news)
def take_over(state: TableState, who: Who, command: TakeOver, now: float, settings: Settings) -> Decision:
    """The person takes their seat back from the bot (autopilot ends; their clock runs again)."""
    seat = person_seat(state, who)
    before = state.seat_clocks.get(seat, SeatClock())
    if not before.autopilot and not state.holds.get(seat, (0, 0, False))[2]:
        return Decision(publish=False, seat=seat)  # no bot plays for them: nothing to take back
    rows: list[Op] = []
    after = before.after_own_move()
    if after != before:
        state.seat_clocks[seat] = after
        rows.append(PutSeatClock(state.match_id, seat, after.timeouts_in_row, after.timed_out, after.autopilot))
    rows += end_hold(state, seat)  # pressing a button means they are here
    state.notices.pop(seat, None)
    state.event = announce(TakeOver, seat)
    return Decision(rows + sync_clock(state, now, settings), seat=seat)


def _leave_news(event: Announced, who: str, snap: Snapshot) -> str:
    partner = snap.seat is not None and snap.seat != event.seat and any(
        snap.seat in side and event.seat in side for side in snap.view.match.shape.sides)
    return f"{'Your partner ' if partner else ''}{who} left the table: a bot plays their seat from now on."


@declare(Leave, "leave", senders=PERSON, route="leave-table", answer=HOME_ANSWER, news=_leave_news)
def leave(state: TableState, who: Who, command: Leave, now: float, settings: Settings) -> Decision:
    """The person leaves for good: a bot plays their seat, and a leaving host passes the
    role on (the partner first, then round the table from the host's left)."""
    seat = person_seat(state, who)
    assert isinstance(who, Player)
    host = state.row.host
    if host == who.id:
        shape = state.match.rules.shape
        partner = shape.partner(seat)
        order = ([partner] if partner is not None else []) + [s for s in join_order(shape, seat) if s != partner]
        others = [state.row.seats[s] for s in order]
        host = next((s.player_id for s in others if s.kind == "human"), None)
    rows: list[Op] = [LeaveSeat(state.code, seat, who.id, BOT_EMOJI, host)]
    seats = list(state.row.seats)
    seats[seat] = dataclasses.replace(seats[seat], kind="bot", player_id=None, emoji=BOT_EMOJI)
    state.row = dataclasses.replace(state.row, seats=tuple(seats), host=host)
    state.left.add(seat)
    state.holds.pop(seat, None)
    state.ready.discard(seat)
    state.event = announce(Leave, seat)
    rows += sync_clock(state, now, settings)
    return Decision(rows + deal_if_ready(state, now, settings), seat=None)


@declare(Dismiss, "dismiss", senders=PERSON, route="dismiss")
def dismiss(state: TableState, who: Who, command: Dismiss, now: float, settings: Settings) -> Decision:
    """The person puts away the notice addressed to them."""
    seat = person_seat(state, who)
    if state.notices.pop(seat, None) is None:
        return Decision(publish=False, seat=seat)
    return Decision(seat=seat)


@declare(Rename, "rename", senders=PERSON, phase=ANY)
def rename(state: TableState | RoomState, who: Who, command: Rename, now: float, settings: Settings) -> Decision:
    """The person's seat (or their place in the room) shows their new name and emoji;
    nothing is told when both are as they were. Raises NotSeated, BadPlayer."""
    assert isinstance(who, Player)
    name, emoji = clean_name(command.name), check_emoji(command.emoji)
    if isinstance(state, RoomState):
        mine = next((m for m in state.active() if m.player_id == who.id), None)
        if mine is None:
            raise NotSeated("You are not in this room.")
        if (mine.name, mine.emoji) == (name, emoji):
            return Decision(publish=False)
        return Decision([JoinRoom(state.code, who.id, name, emoji)], reload=True)  # a member's join renames
    seat = person_seat(state, who)
    row = state.row.seats[seat]
    if (row.name, row.emoji) == (name, emoji):
        return Decision(publish=False, seat=seat)
    seats = list(state.row.seats)
    seats[seat] = dataclasses.replace(row, name=name, emoji=emoji)
    state.row = dataclasses.replace(state.row, seats=tuple(seats))
    return Decision([RenameSeat(state.code, seat, who.id, name, emoji)], seat=seat)
