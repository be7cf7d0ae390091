"""The decision: what one command does to one table, with no I/O.

``decide(state, who, command, now, settings)`` checks who may do it and that it is not
stale, then works out the change: the rows to commit (``spades.storage`` row operations),
the event to announce, and whether anyone needs to hear of it. It advances the in-memory
state to match (the match engine is a mutable object, and copying it for every card would
cost more than the move): every check comes first and ``Match.apply`` changes nothing
when it refuses, so a refusal leaves the state as it was; if the commit then fails, the
actor throws this state away and reloads the table from the database. The timers that
follow from the new state are ``spades.tables.state.plan``'s business.

Raises the ``spades.tables.errors`` refusals and ``IllegalAction`` (nothing changed).

Imports: stdlib, ``spades.clocks``, ``spades.storage`` (row types), the core, and the
other ``spades.tables`` modules below the actor.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import clocks
from ..cards import NotationError
from ..clocks import SeatClock
from ..rules import HAND_OVER, MATCH_OVER, IllegalAction, parse_action
from ..storage import (ClearHold, FireHold, LeaveSeat, NewMatch, Op, PutClock, PutHold, PutOptions, PutSeatClock,
                       SaveMove, TakeSeat)
from .errors import BadAction, NotHost, NotSeated, NotWatchable, Stale, TableClosed, TableFull
from .state import Settings, TableState, late_seat, next_clock
from .values import (BOT_EMOJI, CLOSING_WINDOW, DEAL, BotSeat, BreakOver, Closing, Command, Connected, Continue,
                     DealNow, Disconnected, Dismiss, Event, HoldExpired, Leave, Move, Player, Rematch, Reseat, Resume,
                     Server, SetWatching, SitDown, Started, TakeOver, Timeout, Who)

STALE = "The table has moved on since that page was shown: here it is now."
NO_SEAT = "You have no seat at this table."


@dataclass
class Decision:
    """A command's change: ``rows`` to commit in one transaction; ``publish`` when the
    table looks different to anyone; ``reload`` to rebuild the state from the database
    after the commit (a new match); ``seat`` whose picture answers the command."""

    rows: list[Op] = field(default_factory=list)
    publish: bool = True
    reload: bool = False
    seat: int | None = None
    conflict: str = STALE  # what a lost race is told


def decide(state: TableState, who: Who, command: Command, now: float, settings: Settings) -> Decision:
    """The change ``command`` by ``who`` makes to the table at ``now``. Raises a refusal
    or IllegalAction, with the state unchanged."""
    return _HANDLERS[type(command)](state, who, command, now, settings)


# -- helpers ---------------------------------------------------------------------------
def _person(state: TableState, who: Who) -> int:
    """The seat of the person asking. Raises NotSeated."""
    seat = state.seat_of(who.id) if isinstance(who, Player) else None
    if seat is None:
        raise NotSeated(NO_SEAT)
    return seat


def _fresh(state: TableState, version: int | None) -> None:
    if version is not None and version != state.match.version:
        raise Stale(STALE, state.match.version)


def _sync_clock(state: TableState, now: float, settings: Settings) -> list[Op]:
    """The clock the table should have, when it changed."""
    clock = next_clock(state, now, settings)
    if clock == state.clock:
        return []
    state.clock = clock
    return [PutClock(state.match_id, clock)]


def _deal(state: TableState, seat: int | None, now: float, settings: Settings) -> list[Op]:
    match = state.match
    match.next_hand()
    state.event = Event(seat, DEAL)
    return [SaveMove(state.match_id, match.version, seat, DEAL, match.finished, match.winner),
            *_sync_clock(state, now, settings)]


def _deal_if_ready(state: TableState, now: float, settings: Settings) -> list[Op]:
    """Between hands, once a bot took a seat over: deal if everyone left is ready (as the
    first ready person's Continue)."""
    match = state.match
    ready = sorted(state.ready_now())
    if match.phase != HAND_OVER or not ready or not state.everyone_ready():
        return []
    event = state.event
    rows = _deal(state, ready[0], now, settings)
    state.event = event  # what took the seat over is the news; the new hand shows itself
    return rows


def _gone(state: TableState, seat: int, now: float) -> list[Op]:
    """The seat's person has no connection left: hold the seat (at a table for friends)."""
    if (not state.shared() or state.row.seats[seat].kind != "human" or seat in state.holds
            or state.connected(seat) or state.match.finished):
        return []
    said = state.closing.pop(seat, None)
    until = clocks.hold_until(now, closing=said is not None and now - said <= CLOSING_WINDOW)
    state.holds[seat] = (now, until, False)
    return [PutHold(state.code, seat, now, until)]


def _back(state: TableState, seat: int) -> list[Op]:
    """The seat's person is here: their hold (and the bot playing for them) ends."""
    if seat not in state.holds:
        return []
    del state.holds[seat]
    return [ClearHold(state.code, seat)]


# -- commands --------------------------------------------------------------------------
def _move(state: TableState, who: Who, command: Move, now: float, settings: Settings) -> Decision:
    try:
        action: Any = parse_action(command.action)
    except NotationError as e:
        raise BadAction(str(e)) from None
    match = state.match
    if isinstance(who, Player):
        seat = _person(state, who)
    elif isinstance(who, BotSeat):
        seat = who.seat
        if not state.controlled(seat):
            raise NotSeated("That seat is not played by a bot.")
    elif isinstance(who, Timeout):
        seat = who.seat
        if state.row.seats[seat].kind != "human" or state.controlled(seat):
            raise NotSeated("A bot plays that seat: it has no clock.")
    else:
        raise NotSeated(NO_SEAT)
    _fresh(state, command.version)
    if isinstance(who, Timeout) and (state.clock is None or state.clock[:2] != (seat, match.version)
                                     or state.clock[2] > now):
        raise Stale("That seat's time has not run out.", match.version)
    tricks_before = len(match.tricks)
    match.apply(seat, action)  # raises IllegalAction, changing nothing
    won = match.tricks[-1][2] if len(match.tricks) > tricks_before else None
    text = action.to_json() if hasattr(action, "to_json") else str(action)
    event = Event(seat, str(text), won, match.phase in (HAND_OVER, MATCH_OVER))
    before = state.seat_clocks.get(seat, SeatClock())
    after = before
    if isinstance(who, Timeout):
        after = before.after_timeout()
        event = dataclasses.replace(event, by_clock=True, autopilot=after.autopilot and not before.autopilot)
        state.notices[seat] = event  # told to its person until they act or put it away
    elif isinstance(who, Player):
        after = before.after_own_move()
        state.notices.pop(seat, None)
    rows: list[Op] = [SaveMove(state.match_id, match.version, seat, str(action), match.finished, match.winner)]
    if after != before:
        state.seat_clocks[seat] = after
        rows.append(PutSeatClock(state.match_id, seat, after.timeouts_in_row, after.timed_out, after.autopilot))
    if isinstance(who, Player):  # their own move says they are here (a page without a socket, say)
        rows += _back(state, seat)
    state.event = event
    if match.phase == HAND_OVER:
        state.hand_over_at = now  # a tourney table's break starts
    rows += _sync_clock(state, now, settings)
    return Decision(rows, seat=seat)


def _break_over(state: TableState, who: Who, command: BreakOver, now: float, settings: Settings) -> Decision:
    """A tourney table's break between hands ran out: the next hand is dealt, whoever is
    still reading the last one's score."""
    match = state.match
    if (not isinstance(who, Server) or not state.tourney() or match.phase != HAND_OVER
            or command.hand != (state.match_number, match.hand_number)):
        return Decision(publish=False)  # dealt already (everyone pressed Continue), or not a tourney table
    return Decision(_deal(state, None, now, settings))


def _continue(state: TableState, who: Who, command: Continue | DealNow, now: float, settings: Settings) -> Decision:
    """Continue marks the person ready, and deals once every person is; the host's Deal
    now deals at once. Raises NotSeated, NotHost, Stale, IllegalAction."""
    match = state.match
    if not isinstance(who, Player):
        raise NotSeated("Only a person at the table deals the next hand.")
    seat = _person(state, who)
    _fresh(state, command.version)
    if match.phase != HAND_OVER:
        raise IllegalAction("The match is over." if match.finished else "The hand is not over yet.")
    if isinstance(command, DealNow):
        if state.row.host != who.id:
            raise NotHost("Only the host deals without waiting.")
    else:
        key = (state.match_number, match.hand_number)
        if state.ready_for != key:
            state.ready, state.ready_for = set(), key
        state.ready.add(seat)
        state.notices.pop(seat, None)
        if not state.everyone_ready():
            state.event = Event(seat, "ready")
            return Decision(_back(state, seat), seat=seat)  # everyone sees who is still reading
    return Decision(_back(state, seat) + _deal(state, seat, now, settings), seat=seat)


def _rematch(state: TableState, who: Who, command: Rematch, now: float, settings: Settings) -> Decision:
    """A new match at the same table, same rules, everyone still at it; the host's new
    partner and the one across swap seats. Raises NotSeated, NotHost, IllegalAction,
    Stale, BadAction."""
    seat = _person(state, who)
    assert isinstance(who, Player)
    if state.row.host is not None and state.row.host != who.id:
        raise NotHost("Only the host starts a rematch.")
    if not state.match.finished:
        raise IllegalAction("The match is not over yet.")
    _fresh(state, command.version)
    if command.partner is not None and command.partner not in (1, 2, 3):
        raise BadAction("Choose the seat of your new partner: 1, 2 or 3.")
    seats = list(state.row.seats)
    across = (seat + 2) % 4
    if command.partner is not None and (seat + command.partner) % 4 != across:
        other = (seat + command.partner) % 4
        seats[across], seats[other] = (dataclasses.replace(seats[other], seat=across),
                                       dataclasses.replace(seats[across], seat=other))
    moved = tuple(seats) if seats != list(state.row.seats) else None
    state.event = Event(seat, "rematch")
    row = NewMatch(state.code, state.match_number + 1, command.seed, dataclasses.asdict(state.match.rules), moved)
    return Decision([row], reload=True, seat=seat, conflict="A rematch has already started: here it is.")


def _take_over(state: TableState, who: Who, command: TakeOver, now: float, settings: Settings) -> Decision:
    """The person takes their seat back from the bot (autopilot ends; their clock runs again)."""
    seat = _person(state, who)
    before = state.seat_clocks.get(seat, SeatClock())
    if not before.autopilot and not state.holds.get(seat, (0, 0, False))[2]:
        return Decision(publish=False, seat=seat)  # no bot plays for them: nothing to take back
    rows: list[Op] = []
    after = before.after_own_move()
    if after != before:
        state.seat_clocks[seat] = after
        rows.append(PutSeatClock(state.match_id, seat, after.timeouts_in_row, after.timed_out, after.autopilot))
    rows += _back(state, seat)  # pressing a button means they are here
    state.notices.pop(seat, None)
    state.event = Event(seat, "take_over")
    return Decision(rows + _sync_clock(state, now, settings), seat=seat)


def _leave(state: TableState, who: Who, command: Leave, now: float, settings: Settings) -> Decision:
    """The person leaves for good: a bot plays their seat, and a leaving host passes the
    role on (the partner first)."""
    seat = _person(state, who)
    assert isinstance(who, Player)
    host = state.row.host
    if host == who.id:
        others = [state.row.seats[(seat + k) % 4] for k in (2, 1, 3)]
        host = next((s.player_id for s in others if s.kind == "human"), None)
    rows: list[Op] = [LeaveSeat(state.code, seat, who.id, BOT_EMOJI, host)]
    seats = list(state.row.seats)
    seats[seat] = dataclasses.replace(seats[seat], kind="bot", player_id=None, emoji=BOT_EMOJI)
    state.row = dataclasses.replace(state.row, seats=tuple(seats), host=host)
    state.left.add(seat)
    state.holds.pop(seat, None)
    state.ready.discard(seat)
    state.event = Event(seat, "left")
    rows += _sync_clock(state, now, settings)
    return Decision(rows + _deal_if_ready(state, now, settings), seat=None)


def _dismiss(state: TableState, who: Who, command: Dismiss, now: float, settings: Settings) -> Decision:
    """The person puts away the notice addressed to them."""
    seat = _person(state, who)
    if state.notices.pop(seat, None) is None:
        return Decision(publish=False, seat=seat)
    return Decision(seat=seat)


def _sit_down(state: TableState, who: Who, command: SitDown, now: float, settings: Settings) -> Decision:
    """A person joins after the start: they take a bot's seat, with its cards and score,
    and the table is told. Raises TableClosed, TableFull."""
    if not isinstance(who, Player):
        raise NotSeated(NO_SEAT)
    seat = state.seat_of(who.id)
    if seat is not None:
        return Decision(publish=False, seat=seat)  # already here
    if state.match.finished:
        raise TableClosed("The match at this table is over. Start a new game, or ask for a new code.")
    seat = late_seat(state)
    if seat is None:
        raise TableFull("Every seat for people at this table is taken.")
    seats = list(state.row.seats)
    seats[seat] = dataclasses.replace(seats[seat], kind="human", player_id=who.id, name=command.name,
                                      emoji=command.emoji)
    state.row = dataclasses.replace(state.row, seats=tuple(seats))
    state.left.discard(seat)
    state.event = Event(seat, "joined")
    rows: list[Op] = [TakeSeat(state.code, seat, who.id, command.name, command.emoji)]
    return Decision(rows + _sync_clock(state, now, settings), seat=seat)


WATCHING_OFF = "The host has turned watching off for this table."


def _set_watching(state: TableState, who: Who, command: SetWatching, now: float, settings: Settings) -> Decision:
    """The host lets people without a seat watch, or stops them (their pages are closed).
    Raises NotSeated, NotHost."""
    seat = _person(state, who)
    if state.row.host != who.id:
        raise NotHost("Only the host decides who may watch.")
    if state.watchable() == command.on:
        return Decision(publish=False, seat=seat)
    options = {**state.row.options, "watch": command.on}
    state.row = dataclasses.replace(state.row, options=options)
    return Decision([PutOptions(state.code, options)], seat=seat)


def _connected(state: TableState, who: Who, command: Connected, now: float, settings: Settings) -> Decision:
    """A person's page connected: the first connection of a seated person ends their hold,
    and everyone sees them here again; a new watcher is counted for everyone to see.
    Raises NotWatchable (a person without a seat, when watching is off)."""
    if not isinstance(who, Player):
        raise NotSeated(NO_SEAT)
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
    rows = _back(state, seat)
    return Decision(rows + _sync_clock(state, now, settings), seat=seat)


def _disconnected(state: TableState, who: Who, command: Disconnected, now: float, settings: Settings) -> Decision:
    """One of a person's connections closed; the seat's last one starts its hold."""
    if not isinstance(who, Player) or state.connections.get(who.id, 0) <= 0:
        return Decision(publish=False)
    count = state.connections[who.id] - 1
    if count:
        state.connections[who.id] = count
        return Decision(publish=False)
    del state.connections[who.id]
    seat = state.seat_of(who.id)
    if seat is None:
        return Decision()  # one fewer watching
    return Decision(_gone(state, seat, now), seat=seat)


def _closing(state: TableState, who: Who, command: Closing, now: float, settings: Settings) -> Decision:
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


def _hold_expired(state: TableState, who: Who, command: HoldExpired, now: float, settings: Settings) -> Decision:
    """A dropped seat's hold ran out: a bot plays it until its person is back."""
    seat = command.seat
    hold = state.holds.get(seat)
    if hold is None or state.row.seats[seat].kind != "human":
        state.holds.pop(seat, None)
        return Decision([ClearHold(state.code, seat)], publish=False)
    if hold[2] or hold[1] > now:
        return Decision(publish=False)
    state.holds[seat] = (hold[0], hold[1], True)
    rows: list[Op] = [FireHold(state.code, seat), *_sync_clock(state, now, settings)]
    return Decision(rows + _deal_if_ready(state, now, settings))


def _started(state: TableState, who: Who, command: Started, now: float, settings: Settings) -> Decision:
    """A match started: the person to act gets their clock."""
    return Decision(_sync_clock(state, now, settings))


def _resume(state: TableState, who: Who, command: Resume, now: float, settings: Settings) -> Decision:
    """The process started: nobody is connected to it, so every person counts as dropped."""
    rows: list[Op] = []
    for s in state.row.seats:
        if s.kind == "human":
            rows += _gone(state, s.seat, now)
    return Decision(rows + _sync_clock(state, now, settings))


def _reseat(state: TableState, who: Who, command: Reseat, now: float, settings: Settings) -> Decision:
    """Seats moved to an account at sign-in (already in the database)."""
    state.row = dataclasses.replace(state.row, seats=tuple(command.seats), host=command.host)
    for old, new in command.renamed:
        if old in state.connections:
            state.connections[new] = state.connections.get(new, 0) + state.connections.pop(old)
    return Decision()


_HANDLERS: dict[type, Callable[..., Decision]] = {
    Move: _move, Continue: _continue, DealNow: _continue, Rematch: _rematch, TakeOver: _take_over,
    Leave: _leave, SitDown: _sit_down, SetWatching: _set_watching, BreakOver: _break_over, Dismiss: _dismiss, Connected: _connected, Disconnected: _disconnected, Closing: _closing,
    HoldExpired: _hold_expired, Started: _started, Resume: _resume, Reseat: _reseat,
}
