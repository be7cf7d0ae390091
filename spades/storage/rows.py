"""The rows storage hands out and takes in: frozen values, one per kind of row (seats,
matches, tables, rooms, accounts, a person's games, tourneys).

Imports: stdlib only.
"""

from __future__ import annotations

from dataclasses import dataclass


# -- tables and rooms ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    kind: str  # "human" or "bot"
    player_id: str | None
    name: str
    emoji: str = ""


@dataclass(frozen=True, slots=True)
class MatchRow:
    id: int
    number: int
    seed: str
    rules: dict
    version: int
    finished: bool


@dataclass(frozen=True, slots=True)
class TableRow:
    code: str
    host: str | None
    options: dict
    status: str
    seats: tuple[SeatRow, ...]
    match: MatchRow


@dataclass(frozen=True, slots=True)
class MemberRow:
    """Someone who joined a room: ``number`` is the join order (1 is the creator)."""

    number: int
    player_id: str
    name: str
    emoji: str
    state: str  # "in", "left" or "removed"


@dataclass(frozen=True, slots=True)
class RoomRow:
    """A table seen from its room: status, host, options, partner choice and members."""

    code: str
    host: str | None
    options: dict
    status: str  # "waiting", "playing", "finished" or "closed"
    partner: int | None  # a member number, 0 for a bot, None while not chosen
    members: tuple[MemberRow, ...]
    seated: tuple[str, ...]  # player ids holding a human seat (once started)


# -- people and accounts -----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class UserRow:
    id: str  # the account's canonical player id
    email: str
    name: str
    emoji: str
    created: float
    session_gen: int


@dataclass(frozen=True, slots=True)
class LoginCodeRow:
    id: int
    email: str
    code_hash: str
    created: float
    expires: float
    tries: int
    used: bool
    voided: bool


@dataclass(frozen=True, slots=True)
class MatchInfo:
    id: int
    number: int
    seed: str
    rules: dict
    version: int
    finished: bool
    winner: int | None
    created: float
    last_move: float | None
    takebacks: int = 0  # moves its person took back (undo at a practice table): not rated


@dataclass(frozen=True, slots=True)
class PlayerGame:
    """A table where a person holds a seat now."""

    code: str
    seat: int
    status: str
    options: dict
    created: float
    names: tuple[str, ...]
    kinds: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PlayerMatch:
    """A match a person played, and the seat they played it from."""

    code: str
    seat: int
    match: MatchInfo


# -- tourneys ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TourneyRow:
    """A tourney's own row. ``engine``: the engine's state as JSON (``{"bracket": ...}`` or
    ``{"rounds": [...]}``), None before the start."""

    code: str
    name: str
    format: str  # "knockout" or "swiss"
    rounds: int | None  # Swiss: the number of rounds
    team_limit: int
    start_at: float | None  # None: the director presses Start
    checkin_s: float  # the check-in window before ``start_at``
    listed: bool
    bot_fill: bool  # the director may fill empty places with bot teams
    director: str
    status: str  # registering, running, finished, cancelled
    created: float
    started: float | None = None
    finished: float | None = None
    seed: str = ""
    engine: dict | None = None
    note: str = ""
    duplicate: bool = False  # every table of a round is dealt the same hands


@dataclass(frozen=True, slots=True)
class TourneyTeamRow:
    id: int
    token: str | None  # the link for the partner (None for bot teams)
    solo: bool  # registered alone: paired with another solo (or a bot) at the start
    bot: bool  # a bot team the director added
    state: str  # "in", "removed" (by the director), "dropped" (at the start), "merged" (into a solo pair)
    note: str = ""
    seed: int | None = None  # from 1, set at the start
    created: float = 0.0


@dataclass(frozen=True, slots=True)
class TourneyPlayerRow:
    team_id: int
    slot: int  # 0 or 1: seats 0 and 2 (or 1 and 3) at the team's tables
    player_id: str | None  # None for a bot
    name: str
    emoji: str
    bot: bool
    checked_in: float | None = None
    joined: float = 0.0


@dataclass(frozen=True, slots=True)
class TourneyMatchRow:
    """A pairing: ``score`` and ``hands`` are None until it has a result (``hands`` 0 for a
    walkover; ``winner`` None with ``hands`` 0 for a no-show). ``ready``: player ids that
    pressed Ready for it (read only: written with ``PutTourneyReady``)."""

    round: int
    slot: int
    team_a: int
    team_b: int
    target: int
    due: float
    table_code: str | None = None
    winner: int | None = None
    score: tuple[int, int] | None = None
    hands: int | None = None
    walkover: bool = False
    note: str = ""
    done: float | None = None
    ready: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TourneyData:
    tourney: TourneyRow
    teams: tuple[TourneyTeamRow, ...]
    players: tuple[TourneyPlayerRow, ...]
    matches: tuple[TourneyMatchRow, ...]


@dataclass(frozen=True, slots=True)
class TourneySummary:
    code: str
    name: str
    format: str
    status: str
    start_at: float | None
    created: float
    started: float | None
    finished: float | None
    team_limit: int
    places: int  # places taken: a team each, two solos one


# -- talk and the people one plays with ------------------------------------------------
@dataclass(frozen=True, slots=True)
class ChatRow:
    """One message or reaction at a table (``person``: the sender's id, never shown)."""

    number: int
    at: float
    person: str
    name: str
    emoji: str
    seat: int | None  # None: a watcher
    room: str  # "players" or "watchers"
    kind: str  # "text" or "reaction"
    text: str


@dataclass(frozen=True, slots=True)
class ReportRow:
    id: int
    at: float
    code: str
    number: int
    reporter: str
    reporter_name: str
    reported: str
    reported_name: str
    text: str
    context: tuple[dict, ...]  # the lines said before it: number, at, name, room, text


@dataclass(frozen=True, slots=True)
class CoPlayer:
    """Someone with an account who sat at a table with a person."""

    id: str
    name: str
    emoji: str
    last: float
    tables: int


# -- turn-based tables ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TurnRow:
    """A turn-based table waiting on a person (``spades.storage.turns``)."""

    code: str
    person: str
    seat: int
    turn: str
    since: float
    deadline: float | None
    notify: bool  # its person had no page of the table open as it began
    pushed: bool
    notified: bool  # mailed (or nothing to mail)
    warned: bool
    away: float | None = None  # its person's last page of the table closed then, during the wait
