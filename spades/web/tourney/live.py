"""The live part of a tourney's page as a view model: every decision it shows (the
director's controls, the check-in window, a duplicate round's secrecy, each table's line)
worked out here from the tourney service's view and rules, so ``tourney/_live.html`` only
lays out flags and strings.

``live_page(tourneys, code, person)`` is the service call the routes and the socket push make;
``live_of`` builds the model from a view, the stored tourney and the time. The decisions
are the service's own checks, asked rather than repeated: a control shows when its command
would be taken (``spades.tourney.commands``), a round's replays when
``spades.tourney.duplicate`` opens them.

Imports: stdlib, Flask (the app's tourney service) and ``spades.tourney``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from flask import current_app

from ...tourney import commands
from ...tourney.duplicate import round_records_open, watchable
from ...tourney.errors import TourneyError
from ...tourney.service import TourneyService
from ...tourney.state import Tourney, find
from ...tourney.views import MatchView, RoundView, TableView, TeamView, TourneyView

__all__ = ["LiveModel", "MyMatch", "MyTeam", "TeamLine", "PersonLine", "RoundModel", "TableLine", "ComparedLine",
           "StandingLine", "RankLine", "clock_time", "live_of", "live_page", "tourneys"]

SOLO_WORDS = "Alone: at the start you get a partner, another person who registered alone (or a bot)."
WAITING_WORDS = ("As a team, waiting for your partner: send them your team's link. If nobody has joined by the "
                 "start, you get a partner then, another person who registered alone (or a bot).")
UNDECIDED = "to be decided"  # a knockout opponent not known yet


def tourneys() -> TourneyService:
    """The app's tourney service."""
    return current_app.extensions["spades.tourneys"]


def clock_time(ts: float) -> str:
    """A time of day as the page says it (the server's clock), e.g. ``19:30``."""
    return dt.datetime.fromtimestamp(ts).strftime("%H:%M")


# -- the model -------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class MyMatch:
    """The person's current match: its heading, and either the table to go to, the Ready
    form, or what the team waits for."""

    round: int
    target: int
    opponent: str
    table: str | None  # the table's code once made: "Go to your table"
    ask_ready: bool  # the Ready form, to press by ``deadline``
    deadline: str
    waiting: str  # after "You are ready.": who is still to press Ready ("" when nobody)


@dataclass(frozen=True, slots=True)
class MyTeam:
    """The registered person's panel before the start."""

    removed: bool  # the director removed the team: that is all the panel says
    partner_line: str
    starts: str  # when and how the tourney starts
    checkin_from: str  # when check-in opens ("" without a check-in window)
    ready_within: str  # "2 minutes", "30 seconds"
    check_in: bool  # the Check in button: the window is open and the person has not checked in
    checked_in: bool
    withdraw_note: str


@dataclass(frozen=True, slots=True)
class PersonLine:
    name: str
    emoji: str
    bot: bool
    ready_mark: bool  # ticked as ready for the current match


@dataclass(frozen=True, slots=True)
class TeamLine:
    id: int
    state: str
    mine: bool
    people: tuple[PersonLine, ...]
    notes: tuple[str, ...]  # "waiting for a partner", "alone for now", the team's note
    removable: bool  # the director's Remove button


@dataclass(frozen=True, slots=True)
class TableLine:
    status: str  # the line's class: "waiting", "due", "playing", "done", "walkover"
    teams: tuple[str, str]
    score: str  # "12 – 3", "walkover", "asking Ready?" or ""
    winner: str  # the winner's name, or ""
    link: str  # the replay or watch address, or "" while shut
    link_word: str  # "Replay" or "Watch"


@dataclass(frozen=True, slots=True)
class ComparedLine:
    team: int
    name: str
    direction: str
    hands: int
    matchpoints: int
    top: int
    percent: str


@dataclass(frozen=True, slots=True)
class RoundModel:
    number: int
    target: int
    tables: tuple[TableLine, ...]
    byes: tuple[str, ...]  # the names of the teams with a bye
    same_hands_note: bool  # a duplicate round still under way: its replays and comparison wait
    compared: tuple[ComparedLine, ...]


@dataclass(frozen=True, slots=True)
class StandingLine:
    team: int
    label: str
    name: str
    wins: int
    buchholz: int
    diff: str  # "+12", "-3"


@dataclass(frozen=True, slots=True)
class RankLine:
    team: int
    label: str
    name: str


@dataclass(frozen=True, slots=True)
class LiveModel:
    """What the live part of a tourney's page shows one person."""

    code: str
    name: str
    heading: str  # "Swiss, 3 rounds, duplicate deals"
    stage: str  # "2 of 8 teams registered · starts at 19:30", "under way", ...
    my_match: MyMatch | None
    bye_round: int | None  # the round the person's team goes through without a match
    register: bool  # the Register form: registration open, the person not registered
    my_team: MyTeam | None
    team_link_token: str | None  # the team link's token while the team waits for a partner
    directing: bool  # the director's panel: Start, Cancel
    bot_team: bool  # the director's "Add a bot team"
    teams: tuple[TeamLine, ...]
    rounds: tuple[RoundModel, ...]
    standings: tuple[StandingLine, ...]  # Swiss
    ranks: tuple[RankLine, ...]  # knockout (empty when there are standings)
    walkovers: tuple[str, ...]  # for the director: each walkover in a sentence


# -- building it -----------------------------------------------------------------------------------
def live_page(service: TourneyService, code: str, player_id: str | None) -> LiveModel:
    """The live part of tourney ``code`` as this person (None: anyone) sees it now.
    Raises TourneyNotFound."""
    view = service.view(code, player_id)
    return live_of(view, find(service.store, code), player_id, service.clock())


def _taken(check: Callable[[], object]) -> bool:
    """Whether a command's check lets it through (a refusal is the answer no; a command
    that would change nothing, ``None``, is no too)."""
    try:
        return check() is not None
    except TourneyError:
        return False


def live_of(view: TourneyView, tourney: Tourney, player_id: str | None, now: float) -> LiveModel:
    """The model of the live part: ``view`` as this person sees the tourney, ``tourney``
    as stored (for the service's checks), ``now`` the tourney clock's time."""
    names = {tm.id: " & ".join(p.name for p in tm.players) for tm in view.teams}

    def name(team_id: int | None) -> str:
        return UNDECIDED if team_id is None else names.get(team_id, f"Team {team_id}")

    registering = view.status == "registering"
    director = view.director
    mine = next((tm for tm in view.teams if tm.id == view.my_team), None)
    rounds = tuple(_round(r, tourney, name) for r in view.rounds)
    standings = tuple(StandingLine(s.team, s.label, name(s.team), s.wins, s.buchholz, f"{s.diff:+d}")
                      for s in view.standings)
    return LiveModel(
        view.code, view.name, _heading(view), _stage(view),
        _my_match(view.my_match, name) if view.my_match is not None else None,
        view.my_bye,
        registering and view.my_team is None,
        _my_team(view, mine, tourney, player_id or "", now) if registering and view.my_team is not None else None,
        view.token if registering and mine is not None and not mine.complete and not mine.solo else None,
        registering and director,
        registering and director and view.bot_fill,
        tuple(_team(tm, view, tourney) for tm in view.teams),
        rounds, standings,
        () if standings else tuple(RankLine(rk.team, rk.label, name(rk.team)) for rk in view.ranks),
        tuple(_walkover(w.round, w.losers, w.reason, w.winner, name) for w in view.walkovers) if director else ())


def _heading(view: TourneyView) -> str:
    words = view.format.capitalize()
    if view.format == "swiss" and view.round_count:
        words += f", {view.round_count} round{'s' if view.round_count != 1 else ''}"
    return words + (", duplicate deals" if view.duplicate else "")


def _stage(view: TourneyView) -> str:
    if view.status == "registering":
        if view.start_at:
            when = f"starts at {clock_time(view.start_at)}"
            if view.checkin_opens:
                when += f", check-in from {clock_time(view.checkin_opens)}"
        else:
            when = "starts when the director presses Start"
        return f"{view.places} of {view.team_limit} teams registered · {when}"
    if view.status in ("running", "finished"):
        return "under way" if view.status == "running" else "finished"
    return f"cancelled: {view.note}" if view.note else "cancelled"


def _my_match(m: MatchView, name: Callable[[int | None], str]) -> MyMatch:
    if m.table is not None or not m.ready or m.team_ready and m.opponent_ready:
        waiting = ""
    elif not m.team_ready:
        waiting = " Waiting for your partner."
    else:
        waiting = f" Waiting for the other team (until {clock_time(m.deadline)})."
    return MyMatch(m.round, m.target, name(m.opponent), m.table, m.table is None and not m.ready,
                   clock_time(m.deadline), waiting)


def _my_team(view: TourneyView, mine: TeamView | None, tourney: Tourney, player_id: str, now: float) -> MyTeam:
    partner = next((p for p in mine.players if not p.me), None) if mine is not None else None
    if mine is not None and mine.solo:
        partner_line = SOLO_WORDS
    elif partner is not None:
        partner_line = f"As a team with {partner.emoji} {partner.name}."
    else:
        partner_line = WAITING_WORDS
    if view.start_at:
        starts = f"The tourney starts by itself at {clock_time(view.start_at)}."
    else:
        starts = "The director starts the tourney."
    has_window = bool(view.checkin_opens and view.start_at and view.checkin_opens < view.start_at)
    minutes = round(view.ready_window_s / 60)
    if minutes >= 1:
        within = f"{minutes} minute{'s' if minutes != 1 else ''}"
    else:
        within = f"{int(view.ready_window_s)} seconds"
    if partner is not None:
        withdraw = f"You leave the team; {partner.name} stays registered and may find another partner."
    else:
        withdraw = "You leave the tourney; you may register again until it starts."
    return MyTeam(
        mine is not None and mine.state == "removed", partner_line, starts,
        clock_time(view.checkin_opens) if has_window and view.checkin_opens else "", within,
        # the check-in is the Ready command before the start: the button shows when it would be taken
        tourney.status == "registering" and _taken(lambda: commands.ready(tourney, player_id, now)),
        view.checked_in, withdraw)


def _team(tm: TeamView, view: TourneyView, tourney: Tourney) -> TeamLine:
    people = tuple(PersonLine(p.name, p.emoji, p.bot, view.my_match is not None and p.ready and not p.bot)
                   for p in tm.players)
    notes = []
    if not tm.complete and not tm.solo and tm.state == "in":
        notes.append("waiting for a partner")
    if tm.solo and not tm.complete:
        notes.append("alone for now")
    if tm.note:
        notes.append(tm.note)
    return TeamLine(tm.id, tm.state, tm.mine, people, tuple(notes),
                    view.director and _taken(lambda: commands.remove_team(tourney, tm.id)))


def _round(r: RoundView, tourney: Tourney, name: Callable[[int | None], str]) -> RoundModel:
    shown = round_records_open(tourney, r.number)
    watched = watchable(tourney)
    return RoundModel(
        r.number, r.target, tuple(_table(tb, shown, watched, name) for tb in r.tables),
        tuple(name(b) for b in r.byes), not shown,
        tuple(ComparedLine(c.team, name(c.team), c.direction, c.hands, c.matchpoints, c.top, f"{c.percent:.0f}")
              for c in r.compared))


def _table(tb: TableView, shown: bool, watched: bool, name: Callable[[int | None], str]) -> TableLine:
    if tb.status == "playing" and tb.live:
        score = f"{tb.live[0]} – {tb.live[1]}"
    elif tb.score is not None and tb.hands:
        score = f"{tb.score[0]} – {tb.score[1]}"
    else:
        score = {"walkover": "walkover", "due": "asking Ready?"}.get(tb.status, "")
    link, word = "", ""
    if tb.table and tb.status == "done" and shown:
        link, word = f"/g/{tb.table}/replay", "Replay"
    elif tb.table and watched:
        link, word = f"/g/{tb.table}/watch", "Watch"
    return TableLine(tb.status, (name(tb.teams[0]), name(tb.teams[1])), score,
                     "" if tb.winner is None else name(tb.winner), link, word)


def _walkover(number: int, losers: tuple[int, ...], reason: str, winner: int | None,
              name: Callable[[int | None], str]) -> str:
    through = f"; {name(winner)} went through" if winner is not None else ""
    return f"Round {number}: {', '.join(name(x) for x in losers)} {reason}{through}."

