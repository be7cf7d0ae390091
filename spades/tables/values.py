"""The table service's values: who acts, the commands a table takes, what it tells.

A command is what someone asks of a table; ``who`` is who asks: a person (``Player``),
the bot playing a seat (``BotSeat``), the clock of a seat that ran out (``Timeout``) or
the server itself (``Server``: a hold running out, a restart, seats moved at sign-in).
Every command goes through the same path (``spades.tables.actor``).

Imports: the core only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DEAL = "deal"  # the stored text of ``Match.next_hand`` (the Continue button)
DEAL_NOW = "deal_now"  # the host deals the next hand without waiting (stored as ``deal``)
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L look-alikes
CODE_LENGTH = 6
PRACTICE_BOTS = {1: "Rex", 2: "Bea", 3: "Kit"}  # Rex on the left, Bea across, Kit on the right
BOT_PARTNER = 0  # the partner choice "a bot" (members are numbered from 1)
BOT_EMOJI = "🤖"
MAX_NAME = 20
MAX_HUMANS = 4
# The emoji a player may choose, offered in the join form (and checked against this list).
EMOJIS = ("🦊", "🐼", "🐨", "🐯", "🦁", "🐸", "🐙", "🦉", "🐢", "🦄", "🐝", "🐧",
          "🌵", "🌻", "🍀", "🍒", "🔥", "⭐", "🌙", "🎩", "🎲", "🚀", "⚓", "🎸")
PLAY_DELAYS = {"slow": 1.5, "normal": 0.8, "fast": 0.3}  # seconds between bot moves
LEVELS = ("easy", "normal", "hard")
CLOCK_BOT = "normal"  # the level that moves for a person's seat (a timeout, autopilot, a dropped seat)
TOURNEY_BREAK_S = 20.0  # at a tourney table, the next hand is dealt this long after one ends (or when all are ready)
CLOSING_WINDOW = 10.0  # a page's "closing" notice counts for a connection that closes this soon after


# -- who acts --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Player:
    """A person, known by the id in their signed cookie."""

    id: str


@dataclass(frozen=True, slots=True)
class BotSeat:
    """The bot playing ``seat`` (only the scheduler acts as one)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Timeout:
    """The table moving for ``seat`` because its clock ran out (only the scheduler acts as one)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Server:
    """The server itself: a hold running out, a restart, seats moved at sign-in."""


Who = Player | BotSeat | Timeout | Server


# -- commands --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Move:
    """A bid, a card, ``look`` or blind nil (the action's text), made at ``version``
    (None: whatever the table's version is)."""

    action: str
    version: int | None = None


@dataclass(frozen=True, slots=True)
class Continue:
    """A person is ready for the next hand; it is dealt once every person is."""

    version: int | None = None


@dataclass(frozen=True, slots=True)
class DealNow:
    """The host deals the next hand without waiting for the others."""

    version: int | None = None


@dataclass(frozen=True, slots=True)
class Rematch:
    """The host starts a new match; ``partner`` (1-3, seats counted from the host) sits
    across. ``seed`` is the new match's (drawn by the service: decisions are pure)."""

    version: int | None
    partner: int | None
    seed: str


@dataclass(frozen=True, slots=True)
class TakeOver:
    """A person takes their seat back from the bot playing it."""


@dataclass(frozen=True, slots=True)
class Leave:
    """A person leaves the match for good: a bot plays their seat from now on."""


@dataclass(frozen=True, slots=True)
class Dismiss:
    """A person puts away the notice addressed to them (their time ran out, say)."""


@dataclass(frozen=True, slots=True)
class BreakOver:
    """At a tourney table, the break between hands ran out: the next hand is dealt
    (``hand``: the (match number, hand number) the break followed)."""

    hand: tuple[int, int]


@dataclass(frozen=True, slots=True)
class SetWatching:
    """The host lets people without a seat watch the table, or stops them."""

    on: bool


@dataclass(frozen=True, slots=True)
class SitDown:
    """A person joins a table whose match has started: they take a bot's seat."""

    name: str
    emoji: str


@dataclass(frozen=True, slots=True)
class Connected:
    """A person's page opened a live connection to the table."""


@dataclass(frozen=True, slots=True)
class Disconnected:
    """One of a person's live connections to the table closed."""


@dataclass(frozen=True, slots=True)
class Closing:
    """A person's page said it is closing on purpose (the short hold follows)."""


@dataclass(frozen=True, slots=True)
class HoldExpired:
    """The hold of a dropped seat ran out: a bot plays it until its person is back."""

    seat: int


@dataclass(frozen=True, slots=True)
class Started:
    """A match just started at the table (the first deal, or a rematch): its first clock."""


@dataclass(frozen=True, slots=True)
class Resume:
    """The process (re)started: nobody is connected to it yet, so every person counts as
    dropped (their pages reconnect at once)."""


@dataclass(frozen=True, slots=True)
class Reseat:
    """Seats changed owner in the database (a browser's seats moved to an account at
    sign-in): the table takes them, and ``renamed`` (old id -> new id) keeps its count of
    connections."""

    seats: tuple[Any, ...]  # SeatRow
    host: str | None
    renamed: tuple[tuple[str, str], ...] = ()


Command = (Move | Continue | DealNow | BreakOver | Rematch | TakeOver | Leave | SitDown | SetWatching | Dismiss | Connected
           | Disconnected | Closing
           | HoldExpired | Started | Resume | Reseat)


def command_name(command: Command) -> str:
    """The command's name as observers see it: ``move``, ``continue``, ``deal_now``,
    ``break_over``, ``rematch``, ``take_over``, ``leave``, ``sit_down``, ``set_watching``, ``dismiss``, ``connected``, ``disconnected``, ``closing``,
    ``hold_expired``, ``started``, ``resume``, ``reseat``."""
    return _NAMES[type(command)]


_NAMES = {Move: "move", Continue: "continue", DealNow: "deal_now", BreakOver: "break_over", Rematch: "rematch", TakeOver: "take_over",
          Leave: "leave", SitDown: "sit_down", SetWatching: "set_watching", Dismiss: "dismiss", Connected: "connected", Disconnected: "disconnected", Closing: "closing",
          HoldExpired: "hold_expired", Started: "started", Resume: "resume", Reseat: "reseat"}


# -- what a table tells ----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Event:
    """What the last accepted command was, for announcements: public information only."""

    seat: int | None
    action: str  # "QS", "4", "nil", "blind_nil", "look", "deal", "rematch", "ready", "left", "take_over", ""
    trick_winner: int | None = None  # set when this card completed a trick
    hand_over: bool = False
    by_clock: bool = False  # the table moved for the seat: its time ran out
    autopilot: bool = False  # ... for the third time in a row: a bot plays the seat now


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One seat's picture of a table: the seat view plus the table around it."""

    code: str
    seat: int | None  # None: not seated here (a spectator)
    view: dict
    names: tuple[str, ...]
    kinds: tuple[str, ...]
    match_number: int
    level: str
    play_speed: str
    event: Event
    emojis: tuple[str, ...] = ("", "", "", "")
    host_seat: int | None = None
    ready: tuple[int, ...] = ()  # seats whose person pressed Continue after this hand
    tempo: str = "normal"
    # each seat's player: "here" (connected), "away" (held), "bot" (a bot plays for them:
    # autopilot or a dropped seat), "left" (left for good), "" (a bot's seat, or unknown)
    presence: tuple[str, ...] = ("", "", "", "")
    clock: tuple[int, float, int] | None = None  # (seat to act, deadline epoch s, seconds in its turn)
    now: float = 0.0  # the server's time when this snapshot was taken (the browser corrects its clock)
    autopilot: bool = False  # this seat is on autopilot (its player sees Take over)
    shared: bool = False  # a table for friends (clocks, holds, Leave); not a practice table
    seq: int = 0  # counts the table's published changes in this process (one picture per seq)
    notice: Event | None = None  # what the table did for this seat, kept until its person acts or puts it away
    watchers: int = 0  # people connected to the table without a seat
    watchable: bool = True  # people without a seat may watch (the host may turn it off)
    tourney: str | None = None  # the code of the tourney this table plays a match of


@dataclass(frozen=True, slots=True)
class Member:
    """One person in a room, as everyone in it may see them (never their player id)."""

    number: int
    name: str
    emoji: str
    host: bool
    seat: int | None  # once the partner is chosen: 0 host, 2 partner, 1 or 3 the other team
    me: bool


@dataclass(frozen=True, slots=True)
class RoomSnapshot:
    """One person's picture of a room."""

    code: str
    status: str  # waiting, playing (started: go to the table), finished, closed
    me: int | None  # my member number; None when not in the room
    removed: bool  # the host removed me
    members: tuple[Member, ...]
    partner: int | None  # member number, BOT_PARTNER, or None (not chosen yet)
    humans: int
    level: str
    rules: dict
    is_host: bool
    capacity: int
    version: int  # counts room changes (for tests and stale pages)


@dataclass(frozen=True, slots=True)
class Change:
    """What the bus carries: table ``code`` changed (its ``seq``-th published change).

    For a table: each seat's snapshot (``snapshots[None]`` is the spectators') and who
    holds each seat at this change (``persons``: a person's id, None for a bot), so a
    connection finds its person's seat in the change itself. For a room: ``room`` is a
    function giving one person's picture of it. ``command`` names what caused it."""

    code: str
    seq: int
    command: str
    snapshots: dict[int | None, Snapshot] | None = None
    persons: tuple[str | None, ...] = (None, None, None, None)
    room: Callable[[str | None], RoomSnapshot] | None = None

    def seat_of(self, player_id: str | None) -> int | None:
        """The seat this person holds at this change (None: a spectator)."""
        if player_id is None:
            return None
        for seat, pid in enumerate(self.persons):
            if pid == player_id:
                return seat
        return None

    def snapshot_for(self, player_id: str | None) -> Snapshot:
        """This person's picture of the table at this change."""
        assert self.snapshots is not None
        return self.snapshots[self.seat_of(player_id)]
