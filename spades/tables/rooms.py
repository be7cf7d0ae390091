"""A table while it waits for its people: the room phase of its actor, and its pure reads.

People join in order; at a table with partners the host picks a partner (a member or a
bot), who sits across (seat 2); everyone else takes the other team's seats (1, then 3) in
join order. In cutthroat there is no partner to pick: everyone takes the next seat from
the host's left as they join (``spades.tables.seating.seat_plan``). A room's commands (``spades.tables.commands.room``)
go through the table's actor like every other command; the host's Start seats everyone,
fills the empty seats with bots, and the actor carries on with the table's match.

Imports: stdlib, ``spades.storage`` (row types) and the ``spades.tables`` value modules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..bots import DEFAULT_LEVEL
from ..rules_config import Rules, Shape
from ..storage import MemberRow, RoomRow
from .errors import Removed, TableClosed, TableFull
from .seating import room_capacity, seat_plan
from .values import MAX_HUMANS, Member, RoomSnapshot


@dataclass
class RoomState:
    """A room as stored, and what only this process knows of it (open pages)."""

    code: str
    row: RoomRow
    seq: int = 0  # published changes
    connections: dict[str, int] = field(default_factory=dict)  # person: open pages of the room
    deal_commitment: str = ""  # the first deal's commitment, shown before the start (``spades.fairness``)

    def status(self) -> str:
        return self.row.status

    def active(self) -> list[MemberRow]:
        return active(self.row)

    def picture(self, player_id: str | None) -> RoomSnapshot:
        return room_snapshot(self.row, self.seq, player_id, self.deal_commitment)

    def pictures(self) -> dict[str | None, RoomSnapshot]:
        """Every member's own picture (a removed one's says so), and everyone else's (None)."""
        out: dict[str | None, RoomSnapshot] = {m.player_id: self.picture(m.player_id) for m in self.row.members}
        out[None] = self.picture(None)
        return out


def active(row: RoomRow) -> list[MemberRow]:
    """The members still in the room (not left, not removed), in join order."""
    return [m for m in row.members if m.state == "in"]


def room_snapshot(row: RoomRow, version: int, player_id: str | None, deal_commitment: str = "") -> RoomSnapshot:
    """One person's picture of the room, pure."""
    members_in = active(row)
    host = next((m.number for m in members_in if m.player_id == row.host), None)
    order = ([host] if host is not None else []) + [m.number for m in members_in if m.number != host]
    shape = room_shape(row)
    plan = seat_plan(order, row.partner, shape) if order else {}
    mine = next((m for m in row.members if m.player_id == player_id), None) if player_id else None
    me = mine.number if mine is not None and mine.state == "in" else None
    members = tuple(Member(m.number, m.name, m.emoji, m.number == host, plan.get(m.number), m.number == me)
                    for m in sorted(members_in, key=lambda m: order.index(m.number)))
    humans = int(row.options.get("humans", MAX_HUMANS))
    return RoomSnapshot(row.code, row.status, me, mine is not None and mine.state == "removed", members,
                        row.partner, humans, row.options.get("level", DEFAULT_LEVEL), row.options.get("rules", {}),
                        me is not None and me == host, room_capacity(humans, row.partner, shape), version,
                        deal_commitment=deal_commitment, chat=row.options.get("chat", "on"),
                        chat_filter=bool(row.options.get("filter")))


def room_shape(row: RoomRow) -> Shape:
    """The shape of the table the room will start, by its rules as the host set them."""
    return Rules.from_dict(row.options.get("rules")).shape


def check_joinable(row: RoomRow, player_id: str | None) -> None:
    """Refuse a join with the reason. Raises TableClosed, TableFull, Removed."""
    if row.status == "finished":
        raise TableClosed("The match at this table is over. Start a new game, or ask for a new code.")
    if row.status == "closed":
        raise TableClosed("This table was closed: everyone left before the game started.")
    if row.status == "playing":
        raise TableFull("The game at this table has started and every seat is taken.")
    mine = next((m for m in row.members if m.player_id == player_id), None) if player_id else None
    if mine is not None and mine.state == "removed":
        raise Removed("The host removed you from this table.")
    if mine is not None and mine.state == "in":
        return  # already here: joining again just returns to the room
    humans = int(row.options.get("humans", MAX_HUMANS))
    if len(active(row)) >= room_capacity(humans, row.partner, room_shape(row)):
        raise TableFull("This table is full: every seat for people is taken.")
