"""What the pages read: the frozen views of a tourney (plain values, never a row or a
player id), the function that builds one for a person, the public listing, and the name
of the bus's page channel on which a tourney's changes are announced.

Imports: stdlib, the pure engine, ``state`` (the stored tourney), ``spades.storage`` (the
listing's read) and ``spades.tables`` (a running table's score, read from its snapshot).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..storage import Store, TourneyMatchRow
from ..tables import Refused, TableService
from .duplicate import Compared, round_over
from .knockout import knockout_ranks
from .model import Pairing, Round, rank_label
from .state import Tourney
from .swiss import swiss_standings

__all__ = [
    "TourneyView", "TeamView", "PersonView", "MatchView", "TableView", "RoundView", "RankView", "StandingView",
    "WalkoverView", "Listing", "TourneySummaryView", "build_view", "live_scores", "listing", "page_channel",
    "channel_tourney",
]

CHANNEL_PREFIX = "t/"  # a page channel never looks like a table code (the socket hub's rule)


def page_channel(code: str) -> str:
    """The bus's page channel of a tourney: ``Bus.publish_page`` on it after every change,
    so every socket on the tourney's page, in any process, redraws its live part.

    >>> page_channel("ABCDEF")
    't/ABCDEF'
    """
    return CHANNEL_PREFIX + code


def channel_tourney(channel: str) -> str | None:
    """The tourney's code of a page channel, or None for another page's channel.

    >>> channel_tourney("t/ABCDEF"), channel_tourney("room/X")
    ('ABCDEF', None)
    """
    return channel[len(CHANNEL_PREFIX):] if channel.startswith(CHANNEL_PREFIX) else None


# -- the views ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PersonView:
    """One player of a team, as everyone may see them (never a player id)."""

    name: str
    emoji: str
    bot: bool
    me: bool
    checked_in: bool  # pressed Ready in the check-in window (bots: always)
    ready: bool  # pressed Ready for the team's current match (bots: always)


@dataclass(frozen=True, slots=True)
class TeamView:
    """A team as everyone sees it (a team merged into a solo pair at the start, or whose
    people all withdrew, is left out of the view)."""

    id: int
    players: tuple[PersonView, ...]
    bot: bool  # a bot team the director added
    solo: bool  # registered alone (paired with another solo, or a bot, at the start)
    complete: bool  # two players
    state: str  # "in", "removed" (by the director), "dropped" (at the start: not complete or not checked in)
    seed: int | None  # from 1, once started
    note: str  # why it was removed or dropped, a walkover it took, how it was paired
    mine: bool


@dataclass(frozen=True, slots=True)
class MatchView:
    """A person's current match, from their team's side."""

    round: int
    slot: int
    target: int
    opponent: int
    opponent_players: tuple[PersonView, ...]
    due: float  # when it was due (epoch seconds)
    deadline: float  # not ready by then: a walkover (knockout) or a loss for the round (Swiss)
    ready: bool  # this person pressed Ready
    team_ready: bool  # the whole team did
    opponent_ready: bool
    table: str | None  # the table's code once both teams are ready


@dataclass(frozen=True, slots=True)
class TableView:
    """A pairing of a round: the engine's table JSON plus its table and how it stands."""

    round: int
    slot: int
    teams: tuple[int | None, int | None]  # None: a knockout opponent not known yet
    target: int
    winner: int | None
    score: tuple[int, int] | None  # in the order of ``teams``
    hands: int | None  # 0: a walkover or a no-show
    table: str | None  # the table's code once made (None for walkovers and bot-only pairings)
    live: tuple[int, int] | None  # the running score while the table plays
    due: float | None
    status: str  # "waiting" (opponent unknown), "due" (asking Ready), "playing", "done", "walkover"

    def to_json(self) -> dict[str, Any]:
        """``{"teams", "winner", "score", "hands"}``: the engine's table JSON."""
        return {"teams": list(self.teams), "winner": self.winner,
                "score": None if self.score is None else list(self.score), "hands": self.hands}


@dataclass(frozen=True, slots=True)
class RoundView:
    """A round: its pairings and byes; ``over`` once every pairing has its result and, in a
    duplicate tourney, ``compared``: its teams compared as duplicate (``spades.tourney.duplicate``)."""

    number: int
    target: int
    tables: tuple[TableView, ...]
    byes: tuple[int, ...]
    over: bool = False
    compared: tuple[Compared, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The engine's round JSON: ``{"number", "target", "tables", "byes"}`` (known tables only)."""
        return {"number": self.number, "target": self.target,
                "tables": [t.to_json() for t in self.tables if None not in t.teams], "byes": list(self.byes)}


@dataclass(frozen=True, slots=True)
class RankView:
    team: int
    rank: int
    label: str  # "3=" when shared


@dataclass(frozen=True, slots=True)
class StandingView:
    """A team's line in the Swiss standings."""

    team: int
    rank: int
    label: str
    wins: int
    losses: int
    byes: int
    buchholz: int
    points_for: int
    points_against: int
    diff: int


@dataclass(frozen=True, slots=True)
class WalkoverView:
    """A pairing decided without a table: who went through (None: a no-show, both lost)."""

    round: int
    slot: int
    winner: int | None
    losers: tuple[int, ...]
    reason: str  # "not ready in time" or "removed by the director"


@dataclass(frozen=True, slots=True)
class TourneyView:
    code: str
    name: str
    format: str  # "knockout" or "swiss"
    status: str  # "registering", "running", "finished", "cancelled"
    director: bool  # this person directs it
    start_at: float | None  # None: the director presses Start
    checkin_opens: float | None
    team_limit: int
    places: int  # places taken (a team each, two solos one)
    listed: bool
    bot_fill: bool
    round_count: int | None  # Swiss: as set; knockout: once started
    ready_window_s: float
    created: float
    started: float | None
    finished: float | None
    note: str  # why it was cancelled, say
    teams: tuple[TeamView, ...]
    my_team: int | None
    token: str | None  # the team link's token, for the team's own members only
    checked_in: bool
    my_match: MatchView | None
    my_bye: int | None  # the round this person's team goes through without a match, while it has none to play
    rounds: tuple[RoundView, ...]
    ranks: tuple[RankView, ...]  # knockout: the teams out and the winner; Swiss: the standings' ranks
    standings: tuple[StandingView, ...]  # Swiss only
    walkovers: tuple[WalkoverView, ...]
    duplicate: bool = False  # every table of a round is dealt the same hands

    def rounds_json(self) -> list[dict[str, Any]]:
        """The rounds as the engine's JSON (a round with no known table and no bye left out)."""
        return [r for r in (rv.to_json() for rv in self.rounds) if r["tables"] or r["byes"]]


@dataclass(frozen=True, slots=True)
class TourneySummaryView:
    code: str
    name: str
    format: str
    status: str
    start_at: float | None
    started: float | None
    finished: float | None
    team_limit: int
    places: int


@dataclass(frozen=True, slots=True)
class Listing:
    """One page of the publicly listed tourneys, in order: not started yet (soonest first),
    running, finished (latest first); ``more``: another page follows. Iterating gives the
    three sections."""

    upcoming: tuple[TourneySummaryView, ...]
    running: tuple[TourneySummaryView, ...]
    finished: tuple[TourneySummaryView, ...]
    offset: int = 0
    more: bool = False

    def __iter__(self) -> Iterator[tuple[TourneySummaryView, ...]]:
        return iter((self.upcoming, self.running, self.finished))


# -- building them ---------------------------------------------------------------------------
def live_scores(tables: TableService, t: Tourney) -> dict[str, tuple[int, int]]:
    """The running score of each of the tourney's tables still playing, by table code."""
    now_playing = {m.table_code for m in t.matches.values() if m.table_code and m.hands is None}
    live: dict[str, tuple[int, int]] = {}
    for table in now_playing:
        try:
            scores = tables.snapshot(table, None).view.match.scores
            live[table] = (int(scores[0]), int(scores[1]))
        except (Refused, KeyError, IndexError, TypeError):
            continue  # a table that cannot be read now shows no live score
    return live


LISTED = ("registering", "running", "finished")


def listing(store: Store, offset: int = 0, limit: int = 20) -> Listing:
    """``limit`` of the publicly listed tourneys from the ``offset``-th, in the listing's
    order (upcoming, running, finished), and whether more follow."""
    rows = store.tourney_summaries(LISTED, limit=limit + 1, offset=offset)
    shown = [TourneySummaryView(s.code, s.name, s.format, s.status, s.start_at, s.started, s.finished,
                                s.team_limit, s.places) for s in rows[:limit]]
    upcoming, running, finished = (tuple(v for v in shown if v.status == status) for status in LISTED)
    return Listing(upcoming, running, finished, offset=offset, more=len(rows) > limit)


def build_view(t: Tourney, player_id: str | None, live: dict[str, tuple[int, int]],
               ready_window_s: float, compared: Mapping[int, tuple[Compared, ...]] | None = None) -> TourneyView:
    """The tourney as this person (None: anyone) sees it; ``live``: the running scores
    (``live_scores``); ``compared``: a duplicate tourney's rounds over, compared, by number."""
    me = t.player(player_id)
    my_team = me.team_id if me is not None else None
    current = _current_matches(t)
    teams = tuple(TeamView(team.id, _people(t, team.id, current.get(team.id), player_id), team.bot, team.solo,
                           len(t.players.get(team.id, [])) == 2, team.state, team.seed, team.note,
                           team.id == my_team)
                  for team in sorted(t.teams.values(), key=lambda x: (x.seed or 10**6, x.id))
                  if team.state not in ("merged", "withdrawn"))
    my_match = None
    if my_team is not None and my_team in current and t.teams[my_team].state == "in":
        m = current[my_team]
        other = m.team_b if m.team_a == my_team else m.team_a
        my_match = MatchView(m.round, m.slot, m.target, other, _people(t, other, current.get(other), player_id),
                             m.due, m.due + ready_window_s, player_id in m.ready, t.team_ready(my_team, m),
                             t.team_ready(other, m), m.table_code)
    engine_rounds: Sequence[Round] = t.bracket.rounds() if t.bracket is not None else t.swiss
    rounds = tuple(RoundView(r.number, r.target, tuple(_table_view(t, p, live) for p in r.pairings),
                             tuple(r.byes), round_over(t, r.number),  # type: ignore[arg-type]
                             (compared or {}).get(r.number, ()))
                   for r in engine_rounds)
    ranks, standings = _ranks(t)
    my_bye = None
    if my_match is None and my_team is not None and t.status == "running" and t.teams[my_team].state == "in":
        my_bye = next((r.number for r in reversed(rounds) if my_team in r.byes), None)
    team_row = t.teams.get(my_team) if my_team is not None else None
    round_count = t.row.rounds if not t.knockout else (t.bracket.round_count if t.bracket is not None else None)
    return TourneyView(
        t.code, t.row.name, t.row.format, t.status, bool(player_id) and player_id == t.row.director,
        t.row.start_at, t.checkin_opens(), t.row.team_limit, t.places(), t.row.listed, t.row.bot_fill,
        round_count, ready_window_s, t.row.created, t.row.started, t.row.finished, t.row.note, teams,
        my_team, team_row.token if team_row is not None else None,
        me is not None and me.checked_in is not None, my_match, my_bye, rounds, ranks, standings,
        _walkovers(t), t.row.duplicate)


def _current_matches(t: Tourney) -> dict[int, TourneyMatchRow]:
    """Each team's match waiting for its result (due or playing), by team id."""
    current: dict[int, TourneyMatchRow] = {}
    for p in t.pending():
        m = t.matches.get(p.key)
        if m is not None:
            current[m.team_a] = current[m.team_b] = m
    return current


def _people(t: Tourney, team_id: int, match: TourneyMatchRow | None, player_id: str | None) -> tuple[PersonView, ...]:
    """A team's players as anyone sees them; ``ready`` for ``match``, the team's current one."""
    return tuple(PersonView(p.name, p.emoji, p.bot, p.player_id is not None and p.player_id == player_id,
                            p.bot or p.checked_in is not None,
                            p.bot or (match is not None and p.player_id in match.ready))
                 for p in sorted(t.players.get(team_id, []), key=lambda x: x.slot))


def _table_view(t: Tourney, p: Pairing, live: dict[str, tuple[int, int]]) -> TableView:
    m = t.matches.get(p.key)
    r = p.result
    if not p.known:
        status = "waiting"
    elif r is not None:
        status = "walkover" if r.is_walkover else "done"
    elif m is not None and m.table_code:
        status = "playing"
    else:
        status = "due"
    table = m.table_code if m is not None else None
    return TableView(p.round, p.slot, (p.teams[0], p.teams[1]), p.target,  # type: ignore[arg-type]
                     None if r is None else r.winner,  # type: ignore[arg-type]
                     None if r is None else r.score, None if r is None else r.hands, table,
                     live.get(table) if status == "playing" and table else None,
                     m.due if m is not None else None, status)


def _ranks(t: Tourney) -> tuple[tuple[RankView, ...], tuple[StandingView, ...]]:
    """Knockout: the ranks of the teams out and the winner; Swiss: the standings and their ranks."""
    if t.bracket is not None:
        got = knockout_ranks(t.bracket)
        numbers = [x.rank for x in got]
        return tuple(RankView(x.team, x.rank, rank_label(x.rank, numbers)) for x in got), ()  # type: ignore[arg-type]
    if not t.swiss:
        return (), ()
    got_s = swiss_standings(t.seed_order(), t.swiss)
    numbers = [x.rank for x in got_s]
    standings = tuple(StandingView(x.team, x.rank, rank_label(x.rank, numbers),  # type: ignore[arg-type]
                                   x.wins, x.losses, x.byes, x.buchholz, x.points_for, x.points_against, x.diff)
                      for x in got_s)
    return tuple(RankView(s.team, s.rank, s.label) for s in standings), standings


def _walkovers(t: Tourney) -> tuple[WalkoverView, ...]:
    return tuple(WalkoverView(m.round, m.slot, m.winner, tuple(x for x in (m.team_a, m.team_b) if x != m.winner),
                              m.note or "not ready in time")
                 for m in sorted(t.matches.values(), key=lambda x: (x.round, x.slot))
                 if m.hands == 0 and m.walkover)
