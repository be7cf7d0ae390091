"""The room: joining a table, and what the host decides before the start (the partner,
removing someone, the options, the start itself); leaving the room.

Each room command is committed and then the room is read again (``reload``): members are
numbered by the database. Start seats everyone and fills the empty seats with bots; the
actor then carries on with the table's first match (``begin``).

Imports: stdlib, the core and the ``spades.tables`` modules below the actor.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...bots import TABLE_LEVELS as LEVELS
from ...fairness import clean_contribution
from ...rules_config import Rules
from ...storage import ClaimBoardSeats, JoinRoom, Op, PutHand, SeatRow, StartRoom, TakeSeat, UpdateRoom
from ..decide import Decision, sync_clock
from ..errors import BadAction, NotHost, NotSeated, TableClosed, TableFull
from ..registry import ANY, HOME_ANSWER, PERSON, ROOM, ROOM_ANSWER, Command, Form, announce, declare
from ..rooms import RoomState, check_joinable, room_shape
from ..seating import check_emoji, clean_name, seat_plan
from ..state import Settings, TableState, late_seat, turn_limit
from ..values import BOT_EMOJI, BOT_PARTNER, Announced, Player, Snapshot, Who, practice_bots

NO_PARTNERS = "Cutthroat: everyone plays alone, so there is no partner to pick."

__all__ = ["Join", "PickPartner", "RemoveMember", "SetOptions", "Start", "LeaveRoom"]


@dataclass(frozen=True, slots=True)
class Join(Command):
    """A person joins with a name and an emoji: the room while the table waits, or, once
    its match has started, a bot's seat (with its cards and score)."""

    name: str
    emoji: str


@dataclass(frozen=True, slots=True)
class PickPartner(Command):
    """The host's partner: a member's number, or ``BOT_PARTNER``."""

    member: int


@dataclass(frozen=True, slots=True)
class RemoveMember(Command):
    """The host removes a member before the start (they cannot come back from this browser)."""

    member: int


@dataclass(frozen=True, slots=True)
class SetOptions(Command):
    """The host changes the table's rules, the bots' level and its chat (``chat``: on,
    reactions or off; ``filter``: rude words masked) before the first deal."""

    rules: Rules
    level: str
    chat: str = "on"
    filter: bool = False


@dataclass(frozen=True, slots=True)
class Start(Command):
    """The host starts the match. ``seed`` is the match's (drawn by the service when empty);
    ``contribution``: the host's random hex for the first deal, sent after the room showed
    its commitment (``spades.fairness``; "" for none)."""

    seed: str = ""
    contribution: str = ""


@dataclass(frozen=True, slots=True)
class LeaveRoom(Command):
    """A member leaves the room before the start."""


def _member_form(form: Form) -> int:
    """``member``: a member's number, or ``bot``. Raises BadAction."""
    text = form.get("member", "")
    if text == "bot":
        return BOT_PARTNER
    if not (text.isascii() and text.isdigit()) or len(text) > 6:
        raise BadAction("Choose a player in the room.")
    return int(text)


def _start_form(form: Form) -> Start:
    """``contribution``: up to 64 hex digits (anything else counts as none)."""
    return Start(contribution=clean_contribution(form.get("contribution")) or "")


def _in_room(state: RoomState, who: Who, host_only: bool) -> tuple[int, list]:
    """The asking member's number and the members still in. Raises NotSeated, NotHost."""
    members = state.active()
    mine = next((m for m in members if isinstance(who, Player) and m.player_id == who.id), None)
    if mine is None:
        raise NotSeated("You are not in this room.")
    if host_only and state.row.host != mine.player_id:
        raise NotHost("Only the host can do that.")
    return mine.number, members


def _join_news(event: Announced, who: str, snap: Snapshot) -> str:
    return "You joined the table." if who == "You" else f"{who} joined the table and plays this seat from now on."


@declare(Join, "join", senders=PERSON, phase=ANY, news=_join_news)
def join(state: RoomState | TableState, who: Who, command: Join, now: float, settings: Settings) -> Decision:
    """Join the room, or take a bot's seat at a table that has started. Raises BadPlayer,
    TableClosed, TableFull, Removed."""
    assert isinstance(who, Player)
    name, emoji = clean_name(command.name), check_emoji(command.emoji)
    if isinstance(state, RoomState):
        check_joinable(state.row, who.id)  # a member joining again keeps their place, with the new name
        tempo = Rules.from_dict(state.row.options.get("rules")).tempo
        return Decision(turn_limit(who.id, state.code, tempo) + [JoinRoom(state.code, who.id, name, emoji)],
                        reload=True)
    seat = state.seat_of(who.id)
    if seat is not None:
        return Decision(publish=False, seat=seat)  # already here
    if state.match.finished:
        raise TableClosed("The match at this table is over. Start a new game, or ask for a new code.")
    seat = late_seat(state)
    if seat is None:
        raise TableFull("Every seat for people at this table is taken.")
    seats = list(state.row.seats)
    seats[seat] = dataclasses.replace(seats[seat], kind="human", player_id=who.id, name=name, emoji=emoji)
    state.row = dataclasses.replace(state.row, seats=tuple(seats))
    state.left.discard(seat)
    state.event = announce(Join, seat)
    rows: list[Op] = turn_limit(who.id, state.code, state.match.rules.tempo) + [
        TakeSeat(state.code, seat, who.id, name, emoji)]
    week = state.row.options.get("boards")
    if week:  # a table of boards: the person's claim on the week, stored with the seat
        rows.insert(0, ClaimBoardSeats(str(week), state.code, (who.id,), now))
    return Decision(rows + sync_clock(state, now, settings), seat=seat)


@declare(PickPartner, "partner", senders=PERSON, phase=ROOM, route="partner",
         form=lambda form: PickPartner(_member_form(form)), answer=ROOM_ANSWER)
def pick_partner(state: RoomState, who: Who, command: PickPartner, now: float, settings: Settings) -> Decision:
    """The host's partner: a member, or a bot; none in cutthroat (everyone plays alone).
    Raises NotHost, NotSeated, BadAction."""
    mine, members = _in_room(state, who, host_only=True)
    if not room_shape(state.row).partners:
        raise BadAction(NO_PARTNERS)
    others = [m.number for m in members if m.number != mine]
    if command.member == BOT_PARTNER:
        if len(others) > 2:
            raise BadAction("Three friends are here and the other team has two seats: "
                            "pick one of them as your partner, or remove someone first.")
    elif command.member not in others:
        raise BadAction("That player is not in the room any more.")
    return Decision([UpdateRoom(state.code, partner=command.member)], reload=True)


@declare(RemoveMember, "remove", senders=PERSON, phase=ROOM, route="remove",
         form=lambda form: RemoveMember(_member_form(form)), answer=ROOM_ANSWER)
def remove(state: RoomState, who: Who, command: RemoveMember, now: float, settings: Settings) -> Decision:
    """The host removes a member before the start. Raises NotHost, NotSeated, BadAction."""
    mine, members = _in_room(state, who, host_only=True)
    if command.member == mine:
        raise BadAction("You cannot remove yourself: leave the room instead.")
    if command.member not in [m.number for m in members]:
        raise BadAction("That player is not in the room any more.")
    partner = None if state.row.partner == command.member else "keep"
    return Decision([UpdateRoom(state.code, member=(command.member, "removed"), partner=partner)], reload=True)


@declare(SetOptions, "options", senders=PERSON, phase=ROOM)
def set_options(state: RoomState, who: Who, command: SetOptions, now: float, settings: Settings) -> Decision:
    """The host changes the table's rules (house rules included: the table's shape may
    change), the bots' level and the chat. A shape with fewer seats than the people in
    the room is refused; the partner choice is cleared when the sides change (in
    cutthroat there is none). Raises NotHost, NotSeated, BadAction."""
    if command.level not in LEVELS:
        raise BadAction(f"level must be one of {', '.join(LEVELS)}")
    if command.chat not in ("on", "reactions", "off"):
        raise BadAction("Choose the table's chat: on, reactions only, or off.")
    _, members = _in_room(state, who, host_only=True)
    before, shape = room_shape(state.row), command.rules.shape
    if len(members) > shape.players:
        raise BadAction(f"{len(members)} people are in the room and this table seats {shape.players}: "
                        "remove someone first, or keep more seats.")
    options = {**state.row.options, "level": command.level, "rules": dataclasses.asdict(command.rules),
               "chat": command.chat, "filter": command.filter}
    partner = "keep" if (before.players, before.partners) == (shape.players, shape.partners) else None
    return Decision([UpdateRoom(state.code, options=options, partner=partner)], reload=True)


@declare(LeaveRoom, "leave_room", senders=PERSON, phase=ROOM, route="leave", answer=HOME_ANSWER)
def leave_room(state: RoomState, who: Who, command: LeaveRoom, now: float, settings: Settings) -> Decision:
    """A member leaves. A leaving host passes the role to the next person in join order (who
    then picks their own partner); the last one out closes the room. Raises NotSeated."""
    mine, members = _in_room(state, who, host_only=False)
    rest = [m for m in members if m.number != mine]
    if not rest:
        row = UpdateRoom(state.code, member=(mine, "left"), partner=None, close=True)
    elif isinstance(who, Player) and state.row.host == who.id:
        row = UpdateRoom(state.code, member=(mine, "left"), host=rest[0].player_id, partner=None)
    else:
        row = UpdateRoom(state.code, member=(mine, "left"), partner=None if state.row.partner == mine else "keep")
    return Decision([row], reload=True)


@declare(Start, "start", senders=PERSON, phase=ROOM, route="start", form=_start_form, answer=ROOM_ANSWER)
def start(state: RoomState, who: Who, command: Start, now: float, settings: Settings) -> Decision:
    """The host starts the match: everyone takes their seat of the table's shape (with
    partners and none chosen, the first to join sits across, with nobody else a bot; in
    cutthroat there is no partner: seats go round from the host's left in join order),
    empty seats become bots, and the first hand is dealt, from the secret whose
    commitment the room showed and the host's contribution. Raises NotHost, NotSeated."""
    mine, members = _in_room(state, who, host_only=True)
    rules = Rules.from_dict(state.row.options.get("rules"))
    shape = rules.shape
    order = [mine] + [m.number for m in members if m.number != mine]
    partner = state.row.partner
    if shape.partners and not (partner == BOT_PARTNER or partner in order[1:]):
        partner = order[1] if len(order) > 1 else BOT_PARTNER
    by_number = {m.number: m for m in members}
    bots = practice_bots(shape.players)
    seats = [SeatRow(s, "bot", None, bots[s], BOT_EMOJI) for s in shape.seats[1:]]
    seats.insert(0, SeatRow(0, "human", by_number[mine].player_id, by_number[mine].name, by_number[mine].emoji))
    for number, s in seat_plan(order, partner, shape).items():
        m = by_number[number]
        seats[s] = SeatRow(s, "human", m.player_id, m.name, m.emoji)
    state.row = dataclasses.replace(state.row, status="playing")  # every page in the room moves on to the table
    rows: list[Op] = [StartRoom(state.code, seats, command.seed, dataclasses.asdict(rules))]
    if state.deal_commitment:  # the room drew its first match's secret: the first hand is dealt from it
        given = clean_contribution(command.contribution)
        rows.append(PutHand(state.code, 1, 1, (given,) if given else ()))
    return Decision(rows, reload=True, begin=True, conflict="The game at this table has already started.")
