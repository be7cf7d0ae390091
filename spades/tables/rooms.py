"""Rooms: a table for friends while it waits for its people, until its host starts it.

People join in order; the host picks a partner (a member or a bot), who sits across
(seat 2); everyone else takes the other team's seats (1, then 3) in join order
(``spades.tables.seating.seat_plan``). Every room change takes the room's lock, is
committed, then published on the bus as a ``Change`` whose ``room`` gives each person
their own picture; ``start`` seats everyone, fills empty seats with bots and hands the
table to the table service (``on_start``).

Imports: stdlib, ``spades.storage``, the core and the other ``spades.tables`` modules.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..rules_config import Rules
from ..storage import Conflict, MemberRow, RoomRow, SeatRow, Store
from .bus import Bus
from .errors import BadAction, NotHost, NotSeated, Removed, TableClosed, TableFull, TableNotFound
from .seating import check_emoji, clean_name, room_capacity, seat_plan
from .values import (BOT_EMOJI, BOT_PARTNER, LEVELS, MAX_HUMANS, PRACTICE_BOTS, Change, Member,
                     RoomSnapshot)

NO_TABLE = "There is no table with that code. Check it, or start a new game."


@dataclass
class _Room:
    lock: Any = dataclasses.field(default_factory=threading.RLock)
    version: int = 0


def active(row: RoomRow) -> list[MemberRow]:
    return [m for m in row.members if m.state == "in"]


def room_snapshot(row: RoomRow, version: int, player_id: str | None) -> RoomSnapshot:
    """One person's picture of the room, pure."""
    members_in = active(row)
    host = next((m.number for m in members_in if m.player_id == row.host), None)
    order = ([host] if host is not None else []) + [m.number for m in members_in if m.number != host]
    plan = seat_plan(order, row.partner) if order else {}
    mine = next((m for m in row.members if m.player_id == player_id), None) if player_id else None
    me = mine.number if mine is not None and mine.state == "in" else None
    members = tuple(Member(m.number, m.name, m.emoji, m.number == host, plan.get(m.number), m.number == me)
                    for m in sorted(members_in, key=lambda m: order.index(m.number)))
    humans = int(row.options.get("humans", MAX_HUMANS))
    return RoomSnapshot(row.code, row.status, me, mine is not None and mine.state == "removed", members,
                        row.partner, humans, row.options.get("level", "normal"), row.options.get("rules", {}),
                        me is not None and me == host, room_capacity(humans, row.partner), version)


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
    if len(active(row)) >= room_capacity(humans, row.partner):
        raise TableFull("This table is full: every seat for people is taken.")


class Rooms:
    """Every room of this process: locks, versions, changes published on the bus.
    ``lock``: a room's lock by its code; with several processes, one they all share (two
    people taking the last place through two processes must not both get it)."""

    def __init__(self, store: Store, bus: Bus, new_seed: Callable[[], str],
                 on_start: Callable[[str], None], lock: Callable[[str], Any] | None = None) -> None:
        self.store = store
        self.bus = bus
        self.new_seed = new_seed
        self.on_start = on_start
        self.new_lock = lock
        self._rooms: dict[str, _Room] = {}
        self._lock = threading.Lock()

    def _room(self, code: str) -> _Room:
        with self._lock:
            room = self._rooms.get(code)
            if room is None:
                room = self._rooms[code] = _Room(self.new_lock(code)) if self.new_lock else _Room()
            return room

    def _row(self, code: str) -> RoomRow:
        row = self.store.load_room(code)
        if row is None:
            raise TableNotFound(NO_TABLE)
        return row

    def _changed(self, code: str, room: _Room, command: str) -> None:
        """After a committed change: everyone in the room hears of it (caller holds the lock)."""
        room.version += 1
        row = self._row(code)
        version = room.version
        self.bus.publish(Change(code, version, command, room=lambda pid: room_snapshot(row, version, pid)))
        if row.status != "waiting":
            with self._lock:
                self._rooms.pop(code, None)  # started or closed: the room is done

    def create(self, player_id: str, name: str, emoji: str, rules: Rules, level: str, humans: int,
               new_code: Callable[[Callable[[str], None]], str]) -> str:
        """A table for ``humans`` people (2-4) that waits for them, with its creator as host.
        Returns the join code. Raises BadAction, BadPlayer."""
        if level not in LEVELS:
            raise BadAction(f"level must be one of {', '.join(LEVELS)}")
        if not 2 <= humans <= MAX_HUMANS:
            raise BadAction("A table with friends is for 2 to 4 people.")
        name, emoji = clean_name(name), check_emoji(emoji)
        options = {"kind": "friends", "level": level, "humans": humans, "rules": dataclasses.asdict(rules)}
        self.store.remember_player(player_id, name, emoji)
        return new_code(lambda code: self.store.create_room(code, player_id, options, name, emoji))

    def snapshot(self, code: str, player_id: str | None) -> RoomSnapshot:
        """What this person sees of the room. Raises TableNotFound."""
        room = self._room(code)
        with room.lock:
            return room_snapshot(self._row(code), room.version, player_id)

    def connect(self, code: str, prime: Callable[[Change], None]) -> None:
        """A page connected to the room: ``prime`` gets the room as it is, before any
        later change is published. Raises TableNotFound."""
        room = self._room(code)
        with room.lock:
            row = self._row(code)
            version = room.version
            prime(Change(code, version, "connected", room=lambda pid: room_snapshot(row, version, pid)))

    def _waiting(self, code: str, player_id: str, host_only: bool) -> tuple[RoomRow, MemberRow]:
        """The room and this player's membership, checked. Raises TableNotFound,
        TableClosed, NotSeated, NotHost."""
        row = self._row(code)
        if row.status != "waiting":
            raise TableClosed("The game at this table has started." if row.status in ("playing", "finished")
                              else "This table was closed.")
        mine = next((m for m in active(row) if m.player_id == player_id), None)
        if mine is None:
            raise NotSeated("You are not in this room.")
        if host_only and row.host != player_id:
            raise NotHost("Only the host can do that.")
        return row, mine

    def join(self, code: str, player_id: str, name: str, emoji: str) -> str:
        """Join with a name and an emoji: ``"table"`` when this player already holds a seat
        there, else ``"room"``. Raises TableNotFound, TableClosed, TableFull, Removed, BadPlayer."""
        name, emoji = clean_name(name), check_emoji(emoji)
        room = self._room(code)
        with room.lock:
            row = self._row(code)
            if player_id in row.seated:
                return "table"
            check_joinable(row, player_id)
            self.store.join_room(code, player_id, name, emoji)
            self.store.remember_player(player_id, name, emoji)
            self._changed(code, room, "join")
            return "room"

    def joinable(self, code: str, player_id: str | None) -> RoomRow:
        """The room, if this player may join it (or is in it, or seated). Raises
        TableNotFound, TableClosed, TableFull, Removed."""
        row = self._row(code)
        if player_id not in row.seated:
            check_joinable(row, player_id)
        return row

    def pick_partner(self, code: str, player_id: str, partner: int) -> None:
        """The host's partner: a member's number, or BOT_PARTNER. Raises NotHost,
        NotSeated, TableClosed, BadAction."""
        room = self._room(code)
        with room.lock:
            row, mine = self._waiting(code, player_id, host_only=True)
            others = [m for m in active(row) if m.number != mine.number]
            if partner == BOT_PARTNER:
                if len(others) > 2:
                    raise BadAction("Three friends are here and the other team has two seats: "
                                    "pick one of them as your partner, or remove someone first.")
            elif partner not in [m.number for m in others]:
                raise BadAction("That player is not in the room any more.")
            self.store.update_room(code, partner=partner)
            self._changed(code, room, "partner")

    def remove(self, code: str, player_id: str, number: int) -> None:
        """The host removes a member before the start (they cannot come back from this
        browser). Raises NotHost, NotSeated, TableClosed, BadAction."""
        room = self._room(code)
        with room.lock:
            row, mine = self._waiting(code, player_id, host_only=True)
            if number == mine.number:
                raise BadAction("You cannot remove yourself: leave the room instead.")
            if number not in [m.number for m in active(row)]:
                raise BadAction("That player is not in the room any more.")
            self.store.update_room(code, member=(number, "removed"),
                                   partner=None if row.partner == number else "keep")
            self._changed(code, room, "remove")

    def leave(self, code: str, player_id: str) -> None:
        """A member leaves the room. A leaving host passes the role to the next person in
        join order (who then picks their own partner); the last one out closes the room.
        Raises NotSeated, TableClosed."""
        room = self._room(code)
        with room.lock:
            row, mine = self._waiting(code, player_id, host_only=False)
            rest = [m for m in active(row) if m.number != mine.number]
            if not rest:
                self.store.update_room(code, member=(mine.number, "left"), partner=None, close=True)
            elif row.host == player_id:
                self.store.update_room(code, member=(mine.number, "left"), host=rest[0].player_id, partner=None)
            else:
                self.store.update_room(code, member=(mine.number, "left"),
                                       partner=None if row.partner == mine.number else "keep")
            self._changed(code, room, "leave_room")

    def set_options(self, code: str, player_id: str, rules: Rules, level: str) -> None:
        """The host changes the table's rules and bots' level before the first deal.
        Raises NotHost, NotSeated, TableClosed, BadAction."""
        if level not in LEVELS:
            raise BadAction(f"level must be one of {', '.join(LEVELS)}")
        room = self._room(code)
        with room.lock:
            row, _ = self._waiting(code, player_id, host_only=True)
            options = {**row.options, "level": level, "rules": dataclasses.asdict(rules)}
            self.store.update_room(code, options=options)
            self._changed(code, room, "options")

    def start(self, code: str, player_id: str) -> None:
        """The host starts the match: everyone takes their seat (without a partner chosen,
        the first to join sits across; with nobody else, a bot), empty seats become bots,
        and the first hand is dealt. Raises NotHost, NotSeated, TableClosed."""
        room = self._room(code)
        with room.lock:
            row, mine = self._waiting(code, player_id, host_only=True)
            members_in = active(row)
            order = [mine.number] + [m.number for m in members_in if m.number != mine.number]
            partner = row.partner if row.partner == BOT_PARTNER or row.partner in order[1:] else \
                (order[1] if len(order) > 1 else BOT_PARTNER)
            by_number = {m.number: m for m in members_in}
            seats = [SeatRow(0, "human", player_id, mine.name, mine.emoji)] + [
                SeatRow(s, "bot", None, PRACTICE_BOTS[s], BOT_EMOJI) for s in range(1, 4)]
            for number, s in seat_plan(order, partner).items():
                m = by_number[number]
                seats[s] = SeatRow(s, "human", m.player_id, m.name, m.emoji)
            rules = Rules.from_dict(row.options.get("rules"))
            try:
                self.store.start_room(code, seats, self.new_seed(), dataclasses.asdict(rules))
            except Conflict:
                raise TableClosed("The game at this table has already started.") from None
            self._changed(code, room, "start")  # every page in the room moves on to the table
            self.on_start(code)  # the table loads: its first clock runs, its bots start
