"""The commands' checks and rows: for each thing a person or the director asks (create,
register, join a team, withdraw, Ready, add a bot team, remove a team, cancel, start), whether it
may be done now, and the storage ops it writes. A refusal is raised with the sentence the
person reads.

These are functions of a loaded tourney, the person and the time: the facade
(``service``) takes the lock, loads, calls one, commits what it returns and lets the
transitions do whatever became due. Nothing here holds a lock or commits, except
``commit_entry`` and ``commit_new``, which turn storage's ``Duplicate`` into what it means.

Imports: stdlib, ``state``, the refusals, ``spades.storage`` (its rows and ops) and
``spades.tables`` (its names and the seating checks).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable
from dataclasses import replace

from ..storage import (
    DropTourneyPlayer,
    Duplicate,
    NewTourney,
    Op,
    PutTourney,
    PutTourneyPlayer,
    PutTourneyReady,
    PutTourneyTeam,
    Store,
    TourneyData,
    TourneyPlayerRow,
    TourneyRow,
    TourneyTeamRow,
)
from ..tables import BOT_EMOJI, CODE_ALPHABET, Refused, check_emoji, clean_name
from ..text import clean_text
from .errors import (
    AlreadyRegistered,
    BadEntry,
    BadTeamLink,
    NotDirector,
    NothingToReady,
    RegistrationClosed,
    TourneyError,
    TourneyFull,
    TourneyOver,
)
from .state import Tourney, find

__all__ = [
    "FORMATS", "MAX_TEAMS", "MAX_ROUNDS", "new_tourney", "commit_new", "directed", "check_start", "bot_team",
    "remove_team", "cancel", "entry", "register", "join", "withdraw", "creator_entry", "commit_entry", "ready",
]

FORMATS = ("knockout", "swiss")
MAX_TEAMS = 128
MAX_ROUNDS = 15
MAX_TOURNEY_NAME = 60
TOURNEY_CODE_LENGTH = 6
BOT_TEAM_NAMES = ("Rex", "Bea", "Kit", "Max", "Ivy", "Zed", "Lou", "Ada", "Ned", "Uma", "Gus", "Flo")


# -- the director ----------------------------------------------------------------------------
def new_tourney(director_id: str, name: str, format: str, rounds: int | None, team_limit: int,
                start_at: float | None, checkin_s: float, listed: bool, bot_fill: bool, now: float,
                duplicate: bool = False) -> TourneyRow:
    """The row of a new tourney (no code and no seed yet); ``duplicate``: every table of a
    round is dealt the same hands (``spades.tourney.duplicate``). Raises BadEntry."""
    if not director_id:
        raise BadEntry("Open the site in a browser first: a tourney needs a director.")
    name = clean_text(str(name or ""))
    if not name:
        raise BadEntry("Give the tourney a name.")
    if len(name) > MAX_TOURNEY_NAME:
        raise BadEntry(f"That name is too long: {MAX_TOURNEY_NAME} characters at most.")
    if format not in FORMATS:
        raise BadEntry("Choose knockout or Swiss.")
    if format == "swiss":
        if type(rounds) is not int or not 1 <= rounds <= MAX_ROUNDS:
            raise BadEntry(f"A Swiss tourney plays 1 to {MAX_ROUNDS} rounds.")
    else:
        rounds = None
    if type(team_limit) is not int or not 2 <= team_limit <= MAX_TEAMS:
        raise BadEntry(f"A tourney takes 2 to {MAX_TEAMS} teams.")
    if start_at is not None and (
            not isinstance(start_at, (int, float)) or not math.isfinite(start_at) or start_at <= now):
        raise BadEntry("The start time must be in the future.")
    if not isinstance(checkin_s, (int, float)) or not 0 <= checkin_s <= 24 * 3600:
        raise BadEntry("The check-in window is 0 to 24 hours.")
    return TourneyRow("", name, format, rounds, team_limit, None if start_at is None else float(start_at),
                      float(checkin_s), bool(listed), bool(bot_fill), director_id, "registering", now,
                      duplicate=bool(duplicate))


def commit_new(store: Store, row: TourneyRow, with_rows: Callable[[TourneyRow], list[Op]] | None = None) -> str:
    """Store the new tourney under a code nobody has; returns the code. ``with_rows``
    gives rows committed with it, in the same transaction, from the row with its code
    (the creator's registration, ``creator_entry``)."""
    for _ in range(20):
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(TOURNEY_CODE_LENGTH))
        new = replace(row, code=code)
        try:
            store.commit([NewTourney(new), *(with_rows(new) if with_rows is not None else ())])
            return code
        except Duplicate:
            continue  # the code is taken: draw another
    raise RuntimeError("no free tourney code")  # pragma: no cover - 31^6 codes


def directed(store: Store, code: str, player_id: str) -> Tourney:
    """The tourney, for its director. Raises TourneyNotFound, NotDirector."""
    t = find(store, code)
    if not player_id or t.row.director != player_id:
        raise NotDirector("Only the tourney's director can do that.")
    return t


def check_start(t: Tourney, now: float) -> None:
    """The director may start it now. Raises RegistrationClosed, TourneyError (before the
    check-in window of a set start time)."""
    if t.status != "registering":
        raise RegistrationClosed("This tourney has already started." if t.status == "running"
                                 else "This tourney is over.")
    opens = t.checkin_opens()
    if opens is not None and now < opens:
        raise TourneyError("This tourney starts by itself at its start time; you can start it "
                           "early once check-in has opened.")


def bot_team(t: Tourney, now: float) -> tuple[int, list[Op]]:
    """A team of two Normal bots in one place: its id and its rows. Raises
    RegistrationClosed, TourneyError (a tourney for people only), TourneyFull."""
    _open(t)
    if not t.row.bot_fill:
        raise TourneyError("This tourney is for people only: it was made without bot teams.")
    _room_for(t, teams=1)
    team_id = max(t.teams, default=0) + 1
    number = sum(team.bot for team in t.teams.values())
    ops: list[Op] = [PutTourneyTeam(t.code, TourneyTeamRow(team_id, None, False, True, "in", created=now))]
    for slot in (0, 1):
        k = 2 * number + slot
        name = BOT_TEAM_NAMES[k % len(BOT_TEAM_NAMES)]
        if k >= len(BOT_TEAM_NAMES):  # every name used once: "Rex 2", and so on
            name = f"{name} {k // len(BOT_TEAM_NAMES) + 1}"
        ops.append(PutTourneyPlayer(t.code, TourneyPlayerRow(team_id, slot, None, name, BOT_EMOJI, True, now, now)))
    return team_id, ops


def remove_team(t: Tourney, team_id: int) -> Op:
    """The team is out (the transitions give it its walkovers). Raises TourneyOver,
    TourneyError (no such team)."""
    if t.status not in ("registering", "running"):
        raise TourneyOver("This tourney is over.")
    try:
        team = t.teams.get(int(team_id))
    except (TypeError, ValueError):
        team = None
    if team is None or team.state != "in":
        raise TourneyError("There is no such team in this tourney.")
    return PutTourneyTeam(t.code, replace(team, state="removed", note="Removed by the director."))


def cancel(t: Tourney, now: float) -> Op:
    """The tourney called off. Raises TourneyOver."""
    if t.status not in ("registering", "running"):
        raise TourneyOver("This tourney is over.")
    return PutTourney(t.code, {"status": "cancelled", "finished": now, "note": "Cancelled by the director."})


# -- people ------------------------------------------------------------------------------------
def entry(player_id: str, name: str, emoji: str) -> tuple[str, str]:
    """The person's name and emoji as the tables take them. Raises BadEntry."""
    if not player_id or not isinstance(player_id, str):
        raise BadEntry("Open the site in a browser first: registering needs a player.")
    try:
        return clean_name(name), check_emoji(emoji)
    except Refused as e:
        raise BadEntry(str(e)) from None


def register(t: Tourney, player_id: str, name: str, emoji: str, *, solo: bool,
             now: float) -> tuple[int, str | None, list[Op]]:
    """A new team with this person (``entry`` checked) as its first player: a solo, or a
    team with a link token for the partner. Returns (team id, token, rows). Raises
    RegistrationClosed, AlreadyRegistered, TourneyFull."""
    _open(t)
    _not_registered(t, player_id)
    _room_for(t, **({"solos": 1} if solo else {"teams": 1}))
    team_id = max(t.teams, default=0) + 1
    token = None if solo else secrets.token_urlsafe(12)
    return team_id, token, [
        PutTourneyTeam(t.code, TourneyTeamRow(team_id, token, solo, False, "in", created=now)),
        PutTourneyPlayer(t.code, TourneyPlayerRow(team_id, 0, player_id, name, emoji, False,
                                                  _checked_in(t, now), now))]


def join(t: Tourney, token: str, player_id: str, name: str, emoji: str, now: float) -> tuple[int, list[Op]]:
    """The partner (``entry`` checked) follows the team link: the team's id and the row.
    Raises RegistrationClosed, BadTeamLink, AlreadyRegistered."""
    _open(t)
    team = next((tm for tm in t.teams.values() if token and isinstance(token, str) and tm.token == token), None)
    if team is not None and team.state == "withdrawn":
        raise BadTeamLink("The person who sent you this link has withdrawn from the tourney: register "
                          "yourself instead.")
    if team is None or team.state != "in":
        raise BadTeamLink("That team link does not work: ask your partner to send it again.")
    if player_id in t.persons(team.id):
        raise AlreadyRegistered("You are already in this team: send the link to your partner.")
    _not_registered(t, player_id)
    if len(t.players.get(team.id, [])) >= 2:
        raise BadTeamLink("That team already has its two players.")
    return team.id, [PutTourneyPlayer(t.code, TourneyPlayerRow(team.id, 1, player_id, name, emoji, False,
                                                               _checked_in(t, now), now))]


def creator_entry(row: TourneyRow, player_id: str, name: str, emoji: str, *, solo: bool, now: float) -> list[Op]:
    """The rows that register the creator (``entry`` checked) in their new tourney (``row``,
    with its code), alone or as a team whose link they send: what ``register`` writes
    in a tourney nobody is in yet."""
    _, _, ops = register(Tourney(TourneyData(row, (), (), ())), player_id, name, emoji, solo=solo, now=now)
    return ops


def withdraw(t: Tourney, player_id: str) -> list[Op]:
    """The person leaves the tourney before the start: the rows that take them out.
    Raises RegistrationClosed (started), TourneyOver, AlreadyRegistered (their team was
    removed), TourneyError (not registered).

    What withdrawing means: the person leaves their team, and nothing else changes for
    the others. A team with nobody left (a solo, or a team whose partner never joined) is
    out: ``withdrawn``, hidden from the page, its link no longer works, and its place is
    free. A team of two keeps the partner who stays, as the team's first player, with the
    same link: they may send it to someone else, or play with a partner drawn at the
    start. Whoever withdrew may register again while registration is open. Once the
    tourney has started nobody withdraws: the director removes a team instead."""
    if t.status == "running":
        raise RegistrationClosed("The tourney has started: it is too late to withdraw. If you cannot play, "
                                 "tell the director, who can remove your team.")
    if t.status != "registering":
        raise TourneyOver("This tourney is over.")
    me = t.player(player_id)
    if me is None:
        raise TourneyError("You are not registered in this tourney.")
    team = t.teams[me.team_id]
    if team.state == "removed":
        raise AlreadyRegistered("The director removed your team from this tourney.")
    stays = [p for p in t.players.get(team.id, []) if p.player_id != player_id]
    ops: list[Op] = [DropTourneyPlayer(t.code, team.id, me.slot)]
    if not stays:
        ops.append(PutTourneyTeam(t.code, replace(team, state="withdrawn", note="Withdrew before the start.")))
    elif me.slot == 0:
        # the partner moves up to the first slot, so the link's next partner takes the second
        ops += [DropTourneyPlayer(t.code, team.id, stays[0].slot),
                PutTourneyPlayer(t.code, replace(stays[0], slot=0))]
    return ops


def commit_entry(store: Store, ops: list[Op]) -> None:
    """Store a registration. Raises AlreadyRegistered (the database's own check)."""
    try:
        store.commit(ops)
    except Duplicate:  # the same person registering twice at once
        raise AlreadyRegistered("You are already registered in this tourney.") from None


def ready(t: Tourney, player_id: str, now: float) -> Op | None:
    """The person presses Ready: their check-in in the window, or their Ready for the
    team's current match; None when it is marked already (or the table is made). Raises
    NothingToReady."""
    me = t.player(player_id)
    if me is None or t.teams[me.team_id].state != "in":
        raise NothingToReady("You are not playing in this tourney.")
    if t.status == "registering":
        opens = t.checkin_opens()
        if opens is None:
            raise NothingToReady("Nothing to be ready for yet: the director starts the tourney.")
        if t.row.checkin_s <= 0:
            raise NothingToReady("This tourney has no check-in: everyone registered plays from its start time.")
        if now < opens:
            minutes = max(1, round(t.row.checkin_s / 60))
            raise NothingToReady(f"Check-in opens {minutes} minutes before the start.")
        if me.checked_in is not None:
            return None
        return PutTourneyPlayer(t.code, replace(me, checked_in=now))
    if t.status == "running":
        match = t.current(me.team_id)
        if match is None:
            raise NothingToReady("Your team has no match waiting for it now.")
        if player_id in match.ready or match.table_code is not None:
            return None
        return PutTourneyReady(t.code, match.round, match.slot, player_id, now)
    raise NothingToReady("This tourney is over.")


# -- checks --------------------------------------------------------------------------------------
def _open(t: Tourney) -> None:
    if t.status != "registering":
        raise RegistrationClosed("Registration for this tourney is closed.")


def _not_registered(t: Tourney, player_id: str) -> None:
    me = t.player(player_id)
    if me is None:
        return
    if t.teams[me.team_id].state == "removed":
        raise AlreadyRegistered("The director removed your team from this tourney.")
    raise AlreadyRegistered("You are already registered in this tourney.")


def _room_for(t: Tourney, teams: int = 0, solos: int = 0) -> None:
    if t.places(teams, solos) > t.row.team_limit:
        raise TourneyFull(f"This tourney is full: all {t.row.team_limit} places are taken.")


def _checked_in(t: Tourney, now: float) -> float | None:
    """Registering during the check-in window counts as checking in."""
    opens = t.checkin_opens()
    return now if opens is not None and now >= opens else None
