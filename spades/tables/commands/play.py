"""Playing the match: a bid or a card, Claim the rest, Continue between hands, the host's
Deal now, and a tourney table's break running out. Continue and Deal now carry the person's random
contribution to the next deal (``spades.fairness``).

Imports: stdlib, the core and the ``spades.tables`` modules below the actor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...cards import Card, NotationError
from ...clocks import SeatClock
from ...fairness import clean_contribution
from ...rules import DEAL, HAND_OVER, MATCH_OVER, PLAYING, Bid, IllegalAction, parse_action
from ...storage import Op, PutSeatClock, SaveMove
from ..decide import Decision, check_fresh, deal, end_hold, person_seat, sync_clock
from ..errors import BadAction, NotHost, NotSeated, Stale
from ..registry import MOVERS, PERSON, SERVER, Command, Form, announce, declare, form_version
from ..state import Settings, TableState, break_after, claimable
from ..values import (
    DEAL_NOW,
    Announced,
    BidMade,
    BotSeat,
    Looked,
    Moved,
    Played,
    Player,
    Server,
    Snapshot,
    Timeout,
    Who,
)

__all__ = ["Move", "Continue", "DealNow", "BreakOver", "Claim", "act_command"]


@dataclass(frozen=True, slots=True)
class Move(Command):
    """A bid, a card, ``look`` or blind nil (the action's text), made at ``version``
    (None: whatever the table's version is)."""

    action: str
    version: int | None = None


@dataclass(frozen=True, slots=True)
class Continue(Command):
    """A person is ready for the next hand; it is dealt once every person is.
    ``contribution``: their random hex for that deal (``spades.fairness``; "" for none)."""

    version: int | None = None
    contribution: str = ""


@dataclass(frozen=True, slots=True)
class DealNow(Command):
    """The host deals the next hand without waiting for the others (``contribution``:
    theirs for that deal, as with Continue)."""

    version: int | None = None
    contribution: str = ""


@dataclass(frozen=True, slots=True)
class BreakOver(Command):
    """At a tourney table, the break between hands ran out (at a timed turn-based table,
    the move's time for Continue): the next hand is dealt (``hand``: the (match number,
    hand number) the break followed)."""

    hand: tuple[int, int]


def act_command(action: str, version: int | None = None, contribution: str = "") -> Move | Continue | DealNow:
    """The command for a move's text: ``deal`` is Continue, ``deal_now`` the host's Deal
    now (either with its ``contribution`` to the next deal), anything else a bid, a card,
    ``look`` or blind nil."""
    if action == DEAL:
        return Continue(version, contribution)
    if action == DEAL_NOW:
        return DealNow(version, contribution)
    return Move(action, version)


def _act_form(form: Form) -> Move | Continue | DealNow:
    """``action`` (a card, ``look``, ``deal``, ``deal_now``; ``bid`` takes the ``bid``
    field), ``version``, and with Continue or Deal now ``contribution`` (up to 64 hex
    digits; anything else counts as none)."""
    version = form_version(form)
    action = form.get("action", "").strip()
    if action == "bid":
        action = form.get("bid", "").strip()
    if not action or len(action) > 12:
        raise BadAction("The move was empty or not understood.")
    return act_command(action, version, clean_contribution(form.get("contribution")) or "")


@declare(Move, "move", senders=MOVERS, route="act", form=_act_form)
def move(state: TableState, who: Who, command: Move, now: float, settings: Settings) -> Decision:
    """A bid or a card by a person, the bot playing a seat, or a seat's clock that ran out."""
    match = state.match
    try:
        action: Any = parse_action(command.action, match.shape.tricks)
    except NotationError as e:
        raise BadAction(str(e)) from None
    if isinstance(who, Player):
        seat = person_seat(state, who)
    elif isinstance(who, BotSeat):
        seat = who.seat
        if not state.controlled(seat):
            raise NotSeated("That seat is not played by a bot.")
    else:
        assert isinstance(who, Timeout)
        seat = who.seat
        if state.row.seats[seat].kind != "human" or state.controlled(seat):
            raise NotSeated("A bot plays that seat: it has no clock.")
    check_fresh(state, command.version)
    if isinstance(who, Timeout) and (state.clock is None or state.clock[:2] != (seat, match.version)
                                     or state.clock[2] > now):
        raise Stale("That seat's time has not run out.", match.version)
    tricks_before = len(match.tricks)
    match.apply(seat, action)  # raises IllegalAction, changing nothing
    before = state.seat_clocks.get(seat, SeatClock())
    after = before.after_timeout() if isinstance(who, Timeout) else before
    timed_out = isinstance(who, Timeout)
    clock = {"by_clock": True, "autopilot": after.autopilot and not before.autopilot} if timed_out else {}
    event: Moved
    if isinstance(action, Card):
        won = match.tricks[-1][2] if len(match.tricks) > tricks_before else None
        event = Played(seat, card=str(action), trick_winner=won, hand_over=match.phase in (HAND_OVER, MATCH_OVER),
                       **clock)
    elif isinstance(action, Bid):
        event = BidMade(seat, bid=str(action.to_json()), **clock)
    else:
        event = Looked(seat, **clock)
    if isinstance(who, Timeout):
        state.notices[seat] = event  # told to its person until they act or put it away
    elif isinstance(who, Player):
        after = before.after_own_move()
        state.notices.pop(seat, None)
    rows: list[Op] = [SaveMove(state.match_id, match.version, seat, str(action), match.finished, match.winner)]
    if after != before:
        state.seat_clocks[seat] = after
        rows.append(PutSeatClock(state.match_id, seat, after.timeouts_in_row, after.timed_out, after.autopilot))
    if isinstance(who, Player):  # their own move says they are here (a page without a socket, say)
        rows += end_hold(state, seat)
    state.event = event
    if match.phase == HAND_OVER:
        state.hand_over_at = now  # a tourney table's break starts (a turn-based table's wait for Continue)
    rows += sync_clock(state, now, settings)
    return Decision(rows, seat=seat)


def _continue_news(event: Announced, who: str, snap: Snapshot) -> str:
    return f"{who} {'are' if who == 'You' else 'is'} ready for the next hand."


@declare(Continue, "continue", senders=PERSON, news=_continue_news)
def continue_(state: TableState, who: Who, command: Continue | DealNow, now: float, settings: Settings) -> Decision:
    """Continue marks the person ready, and deals once every person is; the host's Deal
    now deals at once. Raises NotSeated, NotHost, Stale, IllegalAction."""
    match = state.match
    seat = person_seat(state, who)
    assert isinstance(who, Player)
    check_fresh(state, command.version)
    if match.phase != HAND_OVER:
        raise IllegalAction("The match is over." if match.finished else "The hand is not over yet.")
    if isinstance(command, DealNow) and state.row.host != who.id:
        raise NotHost("Only the host deals without waiting.")
    state.offer(seat, clean_contribution(command.contribution))  # for the next deal, whoever deals it
    if not isinstance(command, DealNow):
        key = (state.match_number, match.hand_number)
        if state.ready_for != key:
            state.ready, state.ready_for = set(), key
        state.ready.add(seat)
        state.notices.pop(seat, None)
        if not state.everyone_ready():
            state.event = announce(Continue, seat)
            return Decision(end_hold(state, seat), seat=seat)  # everyone sees who is still reading
    return Decision(end_hold(state, seat) + deal(state, seat, now, settings), seat=seat)


declare(DealNow, "deal_now", senders=PERSON)(continue_)


@declare(BreakOver, "break_over", senders=SERVER)
def break_over(state: TableState, who: Who, command: BreakOver, now: float, settings: Settings) -> Decision:
    """A tourney table's break between hands ran out (or a timed turn-based table's time
    for Continue): the next hand is dealt, whoever is still reading the last one's score."""
    match = state.match
    if not isinstance(who, Server) or break_after(state, settings) is None or match.phase != HAND_OVER \
            or command.hand != (state.match_number, match.hand_number):
        return Decision(publish=False)  # dealt already (everyone pressed Continue), or no break here
    return Decision(deal(state, None, now, settings))


@dataclass(frozen=True, slots=True)
class Claim(Command):
    """A person whose side takes every remaining trick, whatever anyone plays, claims the
    rest at ``version``: the remaining cards are played out at once."""

    version: int | None = None


def _claim_form(form: Form) -> Claim:
    """``version``."""
    return Claim(form_version(form))


def _claim_news(event: Announced, who: str, snap: Snapshot) -> str:
    side = "your" if who == "You" else "their"
    return f"{who} claimed the rest: {side} side takes every trick left. The hand is over."


@declare(Claim, "claim", senders=PERSON, route="claim", form=_claim_form, offer=claimable,
         button="table/offers/claim.html", news=_claim_news)
def claim(state: TableState, who: Who, command: Claim, now: float, settings: Settings) -> Decision:
    """Claim the rest: checked again here (``claimable``), then every remaining card is
    played as an ordinary move, each seat its first legal card in card order, so the
    record stays a plain list of plays. Raises NotSeated, Stale, IllegalAction."""
    seat = person_seat(state, who)
    check_fresh(state, command.version)
    match = state.match
    if match.phase != PLAYING or match.to_act != seat:
        raise IllegalAction("It is not your turn.")
    if not claimable(state, seat):
        raise IllegalAction("You can claim only when your side takes every remaining trick whatever anyone plays.")
    rows: list[Op] = []
    while match.phase == PLAYING:
        s = match.to_act
        assert s is not None
        card = match.legal_actions(s)[0]
        match.apply(s, card)
        rows.append(SaveMove(state.match_id, match.version, s, str(card), match.finished, match.winner))
    state.notices.pop(seat, None)
    state.event = announce(Claim, seat, hand_over=True)
    if match.phase == HAND_OVER:
        state.hand_over_at = now  # a tourney table's break starts
    before = state.seat_clocks.get(seat, SeatClock())
    after = before.after_own_move()
    if after != before:
        state.seat_clocks[seat] = after
        rows.append(PutSeatClock(state.match_id, seat, after.timeouts_in_row, after.timed_out, after.autopilot))
    rows += end_hold(state, seat)
    rows += sync_clock(state, now, settings)
    return Decision(rows, seat=seat)
