"""The table service: every change to a table on one path, and the bots' turns.

A package, one job per module (imports point down the list):
- ``errors``: the refusals, each with the sentence a player sees;
- ``values``: who acts, the commands, the event, snapshots and the bus's ``Change``;
- ``seating``: pure seating rules (names, emoji, who sits where in a room);
- ``state``: one table's state and the pure reads of it (snapshots, presence, clocks,
  the timers it wants);
- ``decide``: what a command does to a table, with no I/O;
- ``bus``: "table X changed" to the subscribers (the web layer's socket hub);
- ``scheduler``: bot turns, clocks and holds on timer heaps, with the bot pool;
- ``actor``: one per table, the one handler of every command (lock, decide, commit,
  publish, plan the timers);
- ``rooms``: tables waiting for their people until the host starts them;
- ``service``: the facade the web layer calls.

Imports: stdlib, ``spades.storage``, ``spades.bots`` and the core. Never Flask.
"""

from .actor import load_state
from .bus import Bus
from .errors import (BadAction, BadPlayer, Busy, NotHost, NotSaved, NotSeated, NotStarted, NotWatchable, Refused,
                     Removed, Stale, TableClosed, TableFull, TableNotFound)
from .decide import WATCHING_OFF
from .rooms import check_joinable, room_snapshot
from .seating import check_emoji, clean_name, room_capacity, seat_plan
from .service import TableService
from .state import bot_seed
from .values import (BOT_EMOJI, BOT_PARTNER, CLOCK_BOT, CODE_ALPHABET, CODE_LENGTH, DEAL, DEAL_NOW, EMOJIS,
                     LEVELS, MAX_HUMANS, MAX_NAME, PLAY_DELAYS, PRACTICE_BOTS, BotSeat, Change, Closing, Command,
                     Connected, Continue, DealNow, Disconnected, Dismiss, Event, HoldExpired, Leave, Member, Move, Player,
                     Rematch, Reseat, Resume, RoomSnapshot, Server, SetWatching, SitDown, Snapshot, Started, TakeOver, Timeout, Who,
                     command_name)

__all__ = [
    "WATCHING_OFF", "BOT_EMOJI", "BOT_PARTNER", "CLOCK_BOT", "CODE_ALPHABET", "CODE_LENGTH", "DEAL", "DEAL_NOW", "EMOJIS", "LEVELS",
    "MAX_HUMANS", "MAX_NAME", "PLAY_DELAYS", "PRACTICE_BOTS", "BadAction", "BadPlayer", "BotSeat", "Busy", "Bus", "Change",
    "Closing", "Command", "Connected", "Continue", "DealNow", "Disconnected", "Dismiss", "Event", "HoldExpired", "Leave",
    "Member", "Move", "NotHost", "NotSaved", "NotSeated", "NotStarted", "NotWatchable", "Player", "Refused", "Rematch", "Removed",
    "Reseat", "Resume", "RoomSnapshot", "Server", "SetWatching", "SitDown", "Snapshot", "Stale", "Started", "TableClosed", "TableFull", "TableNotFound",
    "TableService", "TakeOver", "Timeout", "Who", "bot_seed", "check_emoji", "check_joinable", "clean_name",
    "command_name", "load_state", "room_capacity", "room_snapshot", "seat_plan",
]
