"""The table service: every change to a table on one path, and the bots' turns.

A package, one job per module (imports point down the list):
- ``errors``: the refusals, each with the sentence a player sees;
- ``values``: who acts, the event, snapshots and the bus's ``Change``;
- ``registry``: how a command is declared (its value, wire name, handler, senders, route);
- ``seating``: pure seating rules (names, emoji, who sits where in a room);
- ``state``, ``rooms``: a playing table's state and a waiting room's, and the pure reads
  of them (snapshots, presence, clocks, the timers a table wants);
- ``decide``: what a command does to a table, with no I/O (dispatch and shared steps);
- ``commands``: every command, its value and handler declared together;
- ``bus``: "table X changed" to the subscribers (the web layer's socket hub);
- ``scheduler``: bot turns, clocks and holds on timer heaps, with the bot pool;
- ``actor``: one per table, the one handler of every command (lock, decide, commit,
  publish, plan the timers), a room and then its match;
- ``outage``: Redis not answering, said once, refused at once (``Unreachable``);
- ``cluster``: several processes through Redis;
- ``service``: the facade the web layer calls (``handle`` takes every command).

Imports: stdlib, ``spades.storage``, ``spades.bots`` and the core. Never Flask.
"""

from ..bots import TABLE_LEVELS as LEVELS
from ..rules import DEAL
from . import commands
from .actor import load_state
from .bus import Bus
from .commands import *  # noqa: F403 - every command's value
from .errors import (
                     AtLimit,
                     BadAction,
                     BadPlayer,
                     Busy,
                     NotHost,
                     NotSaved,
                     NotSeated,
                     NotStarted,
                     NotWatchable,
                     Refused,
                     Removed,
                     Stale,
                     TableClosed,
                     TableFull,
                     TableNotFound,
                     TalkRefused,
                     TooFast,
)
from .registry import Command, Declared, announce, buttons, command_name, declared, offers, routed
from .rooms import check_joinable, room_snapshot
from .seating import check_emoji, clean_name, room_capacity, seat_plan
from .service import TableService
from .state import bot_seed
from .values import (
                     BOT_EMOJI,
                     BOT_PARTNER,
                     CLOCK_BOT,
                     CODE_ALPHABET,
                     CODE_LENGTH,
                     DEAL_NOW,
                     EMOJIS,
                     MAX_HUMANS,
                     MAX_NAME,
                     MAX_TURN_TABLES,
                     NO_TABLE,
                     NOTHING,
                     PLAY_DELAYS,
                     PRACTICE_BOTS,
                     TOO_MANY_TURN_TABLES,
                     WATCHING_OFF,
                     Announced,
                     Around,
                     BidMade,
                     BotSeat,
                     Change,
                     Dealt,
                     Event,
                     Looked,
                     Member,
                     Moved,
                     Played,
                     Player,
                     RoomSnapshot,
                     Said,
                     Server,
                     Snapshot,
                     Timeout,
                     Who,
)

__all__ = [
    "BOT_EMOJI", "BOT_PARTNER", "CLOCK_BOT", "CODE_ALPHABET", "CODE_LENGTH", "DEAL", "DEAL_NOW", "EMOJIS", "LEVELS",
    "MAX_HUMANS", "MAX_NAME", "MAX_TURN_TABLES", "TOO_MANY_TURN_TABLES", "NO_TABLE", "PLAY_DELAYS",
    "PRACTICE_BOTS", "WATCHING_OFF", "BadAction", "BadPlayer",
    "NOTHING", "Announced", "Around", "BidMade", "Dealt", "Looked", "Moved", "Played", "BotSeat", "Bus", "Busy",
    "Change", "Command", "Declared", "Event", "Member", "NotHost", "NotSaved", "NotSeated",
    "NotStarted", "NotWatchable", "Player", "Refused", "Removed", "RoomSnapshot", "Said", "Server", "Snapshot", "Stale",
    "AtLimit", "TableClosed", "TableFull", "TableNotFound", "TalkRefused", "TooFast", "TableService", "Timeout", "Who",
    "announce", "bot_seed", "buttons", "check_emoji", "check_joinable", "clean_name", "command_name", "declared",
    "load_state",
    "offers", "room_capacity", "room_snapshot",
    "routed", "seat_plan", *commands.__all__,
]
