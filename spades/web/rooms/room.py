"""A room waiting for its players, as each member sees it: who is in, where each will sit,
what the host may do, the table's options; drawn as one fragment (``room/_room.html``,
``id="room"``), out of band for the WebSocket.

Imports: Flask (templates), ``spades.tables`` (the room's snapshot) and the table options.
"""

from __future__ import annotations

from typing import Any

from flask import render_template

from ...rules_config import Rules, Shape
from ...tables import BOT_PARTNER, Member, RoomSnapshot
from ..table.pictures import Room, RoomMember
from .options import option_values, rules_line, rules_url

HOST_SEAT = 0  # the host's seat: the others are placed from it


def room_picture(snap: RoomSnapshot, csrf: str) -> Room:
    """This person's picture of the room."""
    host = next((m for m in snap.members if m.host), None)
    people = len(snap.members)  # the room never holds more than can be seated
    # once started, every page in the room moves to the table
    go = f"/g/{snap.code}" if snap.status in ("playing", "finished") and snap.me is not None else None
    return Room(code=snap.code, csrf=csrf, version=snap.version, go=go, removed=snap.removed,
                closed=snap.status == "closed", members=tuple(_member(snap, m) for m in snap.members), people=people,
                capacity=snap.capacity, open=max(0, snap.capacity - people), teams=_room_teams(snap),
                rules_line=rules_line(snap.rules, snap.level), host=snap.is_host, host_name=host.name if host else "",
                option_values={**option_values(snap.rules, snap.level), "chat": snap.chat,
                               "filter": "on" if snap.chat_filter else ""},
                can_pick_bot=(snap.is_host and snap.partner != BOT_PARTNER and people < len(_room_shape(snap).seats)
                              and _room_shape(snap).partners),
                note=_room_note(snap, people), commitment=snap.deal_commitment,
                rules_url=rules_url(snap.rules, snap.level))


def _member(snap: RoomSnapshot, m: Member) -> RoomMember:
    return RoomMember(
        number=m.number, name=m.name, emoji=m.emoji, host=m.host, me=m.me, partner=m.number == snap.partner,
        role=_seat_role(snap, m.seat) if m.seat is not None else "Waiting for the host to pick a partner",
        can_pick=snap.is_host and not m.host and m.number != snap.partner and _room_shape(snap).partners,
        can_remove=snap.is_host and not m.host)


def _room_shape(snap: RoomSnapshot) -> Shape:
    return Rules.from_dict(snap.rules).shape


def _seat_role(snap: RoomSnapshot, seat: int) -> str:
    """Where a member will sit (the host sits in seat 0): the host, the partner across, the
    other team; in cutthroat everyone else plays alone."""
    if seat == HOST_SEAT:
        return "Host"
    shape = _room_shape(snap)
    if not shape.partners:
        return "Plays alone"
    return "Partner, across from the host" if seat == shape.partner(HOST_SEAT) else "Other team"


def _room_teams(snap: RoomSnapshot) -> str:
    if not _room_shape(snap).partners:
        return "Cutthroat: everyone plays alone, so there is no partner to pick."
    if snap.partner is None:
        return "The host has not picked a partner yet."
    if snap.partner == BOT_PARTNER:
        return "The host plays with a bot as partner."
    partner = next((m.name for m in snap.members if m.number == snap.partner), "")
    return f"{partner} is the host's partner."


def _room_note(snap: RoomSnapshot, people: int) -> str:
    bots = len(_room_shape(snap).seats) - people
    note = f"{bots} empty seat{'s' if bots != 1 else ''} will be played by {snap.level} bots." if bots \
        else "Every seat has a person."
    choosing = snap.partner is None and _room_shape(snap).partners
    return note + (" Without a choice, the first to join is your partner." if choosing else "")


def room_context(snap: RoomSnapshot, csrf: str) -> dict[str, Any]:
    """Everything the room shows this person, as the templates' ``room``."""
    return {"room": room_picture(snap, csrf)}


def render_room(ctx: dict[str, Any], oob: bool = True) -> str:
    """The room's fragment (one root element, ``id="room"``), out of band for the WebSocket."""
    return render_template("room/_room.html", oob=oob, **ctx)
