"""The table service's values: who acts, and what a table tells.

A command (``spades.tables.commands``) is what someone asks of a table; ``who`` is who
asks: a person (``Player``), the bot playing a seat (``BotSeat``), the clock of a seat
that ran out (``Timeout``) or the server itself (``Server``: a hold running out, a
restart, seats moved at sign-in). Every command goes through the same path
(``spades.tables.actor``); what it changed goes out as a ``Change``.

Imports: the core, and ``spades.storage``'s row types.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..cards import card_words
from ..storage import ChatRow
from ..views import SeatView

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
CLOCK_BOT = "normal"  # the level that moves for a person's seat (a timeout, autopilot, a dropped seat)
TOURNEY_BREAK_S = 20.0  # at a tourney table, the next hand is dealt this long after one ends (or when all are ready)
CLOSING_WINDOW = 10.0  # a page's "closing" notice counts for a connection that closes this soon after
NO_TABLE = "There is no table with that code. Check it, or start a new game."
WATCHING_OFF = "The host has turned watching off for this table."
MAX_TURN_TABLES = 20  # turn-based tables a person may be seated at (or wait in the room of) at once
TOO_MANY_TURN_TABLES = (f"You are at {MAX_TURN_TABLES} turn-based tables already: finish one before you start "
                        "or join another.")
# a seat at a table of boards refused: the person played the week at another table
PLAYED_ELSEWHERE = "Everyone plays a week's boards once: you have played them at another table."


def practice_bots(players: int) -> dict[int, str]:
    """The bots' names by seat at a table of ``players`` seats whose person sits in seat 0:
    Rex on the left and Kit on the right, and at four seats Bea across.

    >>> practice_bots(3)
    {1: 'Rex', 2: 'Kit'}
    """
    if players == 4:
        return dict(PRACTICE_BOTS)
    return {1: PRACTICE_BOTS[1], players - 1: PRACTICE_BOTS[3]}


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


# -- what a table tells ----------------------------------------------------------------
EVERYONE = "everyone"  # an event every seat and every watcher may see (all of a table's moves)


@dataclass(frozen=True, slots=True)
class Event:
    """What the last accepted command was, for announcements: a typed kind that draws its
    own line of the table's news (``news``) and says who may see it (``visible``). Every
    kind here is public information, seen by every seat and watcher (``EVERYONE``); a
    seat's notice is the event the table kept for that seat's person alone
    (``Snapshot.notice``). This base kind is "nothing yet"."""

    seat: int | None = None

    @property
    def visible(self) -> str:
        """Who may see it: every kind of table event is public (``EVERYONE``)."""
        return EVERYONE

    def news(self, snap: Snapshot) -> str:
        """The event in words as ``snap``'s seat reads it ("You" for its own)."""
        return ""


def who_in(snap: Snapshot, seat: int) -> str:
    """A seat as ``snap``'s person reads it: "You", or the seat's name."""
    return "You" if seat == snap.seat else snap.around.names[seat]


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """The next hand was dealt."""

    def news(self, snap: Snapshot) -> str:
        return f"Hand {snap.view.match.hand_number} is dealt."


@dataclass(frozen=True, slots=True)
class Moved(Event):
    """A move of a seat's: made by its person or bot, or by the table when its time ran
    out (``by_clock``; ``autopilot``: for the third time in a row, so a bot plays the seat
    now). Such a move is kept as the seat's notice; a look's or a bid's only while the
    bidding lasts (``bidding_notice``)."""

    by_clock: bool = False
    autopilot: bool = False

    @property
    def bidding_notice(self) -> bool:
        """Its notice lasts only while the bidding does (a look's, a bid's)."""
        return True

    def news(self, snap: Snapshot) -> str:
        assert self.seat is not None
        who = who_in(snap, self.seat)
        if not self.by_clock:
            return self.said(who, snap)
        me = who == "You"
        text = ("Your time ran out: " if me else f"{who}'s time ran out: ") + self.for_seat(me, snap)
        if self.autopilot:
            text += (" Three in a row: a bot plays for you until you take over." if me else
                     f" Three in a row: a bot plays for {who} until they take over.")
        return text

    def said(self, who: str, snap: Snapshot) -> str:
        """The move in words, made by the seat itself."""
        raise NotImplementedError

    def for_seat(self, me: bool, snap: Snapshot) -> str:
        """The move in words, made by the table for the seat (``me``: told to its person)."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Looked(Moved):
    """The seat looked at its cards (giving up blind nil)."""

    def said(self, who: str, snap: Snapshot) -> str:
        return f"{who} looked at {'your' if who == 'You' else 'their'} cards."

    def for_seat(self, me: bool, snap: Snapshot) -> str:
        return f"the table looked at {'your' if me else 'their'} cards."


@dataclass(frozen=True, slots=True)
class BidMade(Moved):
    """The seat bid: a number, ``nil`` or ``blind_nil`` (as JSON gives it)."""

    bid: str = ""

    @property
    def words(self) -> str:
        return self.bid.replace("_", " ")

    def said(self, who: str, snap: Snapshot) -> str:
        return f"{who} bid {self.words}."

    def for_seat(self, me: bool, snap: Snapshot) -> str:
        return f"the table bid {self.words} for {'you' if me else 'them'}."


@dataclass(frozen=True, slots=True)
class Played(Moved):
    """The seat played ``card`` (its text); ``trick_winner``: the seat that took the trick
    this card completed; ``hand_over``: it was the hand's last."""

    card: str = ""
    trick_winner: int | None = None
    hand_over: bool = False

    @property
    def bidding_notice(self) -> bool:
        return False

    def said(self, who: str, snap: Snapshot) -> str:
        text = f"{who} played the {card_words(self.card)}." + self._taken(snap)
        return (text + " The hand is over.") if self.hand_over else text

    def for_seat(self, me: bool, snap: Snapshot) -> str:
        return f"the table played the {card_words(self.card)} for {'you' if me else 'them'}." + self._taken(snap)

    def _taken(self, snap: Snapshot) -> str:
        if self.trick_winner is None:
            return ""
        winner = who_in(snap, self.trick_winner)
        return f" {winner} {'win' if winner == 'You' else 'wins'} the trick."


@dataclass(frozen=True, slots=True)
class Announced(Event):
    """A declared command was done (join, leave, continue, take over, claim, undo, rematch):
    its line is the one its declaration draws (``spades.tables.registry``: ``announce``
    makes the event from the command's class, so its name is written once)."""

    command: str = ""  # the command's wire name, as declared
    detail: str = ""  # what its line names (an undo: ``card`` or ``bid``, what was taken back)
    hand_over: bool = False  # it ended the hand (a claim)

    def news(self, snap: Snapshot) -> str:
        assert self.seat is not None
        news = ANNOUNCED.get(self.command)
        return news(self, who_in(snap, self.seat), snap) if news is not None else ""


# each declared command's news line by its wire name (``spades.tables.registry.declare``
# fills it): (its event, "You" or the mover's name, the viewer's snapshot) -> the line
ANNOUNCED: dict[str, Callable[[Announced, str, Snapshot], str]] = {}


NOTHING = Event()  # no move yet


@dataclass(frozen=True, slots=True)
class Around:
    """The table around a seat's view, the same for every seat at one change: its people
    and settings, its clock, its last event."""

    code: str
    match_number: int
    level: str
    play_speed: str
    event: Event
    names: tuple[str, ...]
    kinds: tuple[str, ...]
    emojis: tuple[str, ...] = ()
    host_seat: int | None = None
    ready: tuple[int, ...] = ()  # seats whose person pressed Continue after this hand
    tempo: str = "normal"
    # each seat's player: "here" (connected), "away" (held), "bot" (a bot plays for them:
    # autopilot or a dropped seat), "left" (left for good), "" (a bot's seat, or unknown)
    presence: tuple[str, ...] = ()
    clock: tuple[int, float, int] | None = None  # (seat to act, deadline epoch s, seconds in its turn)
    now: float = 0.0  # the server's time when this snapshot was taken (the browser corrects its clock)
    shared: bool = False  # a table for friends (clocks, holds, Leave); not a practice table
    seq: int = 0  # counts the table's published changes in this process (one picture per seq)
    watchers: int = 0  # people connected to the table without a seat
    watchable: bool = True  # people without a seat may watch (the host may turn it off)
    watch_fixed: bool = False  # nobody may watch, whoever asks: other tables play the same deals
    tourney: str | None = None  # the code of the tourney this table plays a match of
    # the SHA-256 commitment of this hand's deal (``spades.fairness``), shown from before its
    # first bid; "" for a match dealt from its seed (from before fair deals)
    deal_commitment: str = ""
    next_commitment: str = ""  # between hands: the next hand's (Continue's contributions go into it)
    chat: str = "on"  # the table's chat: on, reactions (only) or off
    chat_filter: bool = False  # rude words are masked in the chat

    @property
    def solo(self) -> bool:
        """One person with bots (a practice table); a tourney's table never is."""
        return self.kinds.count("human") <= 1 and not self.tourney


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One seat's picture of a table, made of typed parts: the table around it (the same
    for every seat), the seat's view of the match (``spades.views``), and what is its own
    at the table: autopilot, the notice, the commands its person is offered."""

    around: Around
    view: SeatView
    autopilot: bool = False  # this seat is on autopilot (its player sees Take over)
    notice: Event | None = None  # what the table did for this seat, kept until its person acts or puts it away
    # the commands this seat's person is offered now, by wire name (``claim``, ``undo``):
    # each one's declaration says when (``spades.tables.registry``)
    offers: frozenset[str] = frozenset()

    @property
    def code(self) -> str:
        return self.around.code

    @property
    def seat(self) -> int | None:
        """None: not seated here (a spectator)."""
        return self.view.own.seat


@dataclass(frozen=True, slots=True)
class Member:
    """One person in a room, as everyone in it may see them (never their player id)."""

    number: int
    name: str
    emoji: str
    host: bool
    seat: int | None  # once the partner is chosen (at once in cutthroat): 0 host, 2 partner, 1 or 3 the other team
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
    rules: dict[str, Any]  # the table's rules as JSON (``Rules.to_dict``)
    is_host: bool
    capacity: int
    version: int  # counts room changes (for tests and stale pages)
    watchable: bool = True  # a room has no watchers to turn away
    deal_commitment: str = ""  # the first deal's commitment (``spades.fairness``): Start's contribution goes into it
    chat: str = "on"  # the table's chat once it plays: on, reactions (only) or off
    chat_filter: bool = False  # rude words masked in the chat


@dataclass(frozen=True, slots=True)
class Said:
    """A line said at a table (a message, a reaction, or the host's notice), as its change
    carries it: with the table's chat as it is now (``mode``: ``on``, ``reactions`` or
    ``off``) and whether the watchers' lines reach the players (``open``: the match is over)."""

    line: ChatRow
    mode: str
    open: bool = False


@dataclass(frozen=True, slots=True)
class Change:
    """What the bus carries: table ``code`` changed (its ``seq``-th published change), and
    every picture of it that anyone may get, each made once under the table's lock.

    A playing table's pictures are by seat (``None``: anyone without a seat, a watcher),
    with who holds each seat at this change (``persons``: a person's id, None for a bot),
    so a connection finds its person's seat in the change itself. A room's pictures are by
    person (each member's own; ``None``: anyone else), with no seats yet. ``command``
    names what caused it. A line said at the table (``said``) changes no picture: such a
    change carries the line alone, for each page to add to its chat."""

    code: str
    seq: int
    command: str
    # key -> a table's picture (by seat) or a room's (by person); empty for a line said
    snapshots: Mapping[Any, Snapshot | RoomSnapshot]
    persons: tuple[str | None, ...] = ()
    said: Said | None = None

    def key_of(self, player_id: str | None) -> Any:
        """Which of the pictures is this person's: their seat, their own, or None."""
        if player_id is None:
            return None
        for seat, pid in enumerate(self.persons):
            if pid == player_id:
                return seat
        return player_id if player_id in self.snapshots else None

    def table(self, key: int | None) -> Snapshot:
        """A playing table's picture for seat ``key`` (None: a watcher's)."""
        snap = self.snapshots[key]
        if not isinstance(snap, Snapshot):
            raise TypeError(f"table {self.code} is a room at change {self.seq}")
        return snap

    def snapshot_for(self, player_id: str | None) -> Snapshot | RoomSnapshot:
        """This person's picture of the table at this change."""
        return self.snapshots[self.key_of(player_id)]
