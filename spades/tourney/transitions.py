"""The tourney's state machine: the start, and every change that follows by itself (new
pairings, a table for two ready teams, walkovers past the ready window or for a removed
team, a bot teams' match played out, a finished table's result, the next Swiss round,
the end).

``Transitions.advance(code, now)`` does, one committed step at a time, whatever is due
for one tourney; the caller (the facade after a command, the worker, the ticks) holds the
service's lock. Each step reloads the tourney, so a step sees every row the one before
wrote, and each is one transaction, so a crash between two leaves a tourney the next
``advance`` carries on from.

A table plays while a person sits at it (the table service's rule): a pairing of two bot
teams is therefore played out at once by the engine, with Normal bots, seeded like a
table, and has no table code.

Imports: stdlib, the pure engine, ``state``, ``spades.storage``, ``spades.tables``,
``spades.bots`` and the rules core. Never Flask.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from .. import bots
from ..fairness import FairDeals
from ..rules import Match, parse_action
from ..rules_config import Rules, RulesError
from ..stats import replay
from ..storage import (
    DropTourneyPlayer,
    MatchInfo,
    Op,
    PutTourney,
    PutTourneyMatch,
    PutTourneyPlayer,
    PutTourneyTeam,
    SeatRow,
    Store,
    TourneyMatchRow,
    TourneyPlayerRow,
    TourneyTeamRow,
)
from ..tables import BOT_EMOJI, TableService, bot_seed
from ..views import seat_view
from .duplicate import hand_points, round_deals, round_seed
from .knockout import knockout_bracket, record_result
from .model import Pairing, Result, Team, TeamId, TourneyError
from .seeding import pair_solos, seed_teams
from .state import Tourney, load
from .swiss import record_swiss_result, swiss_pairings

__all__ = ["Transitions", "BOT_NAME", "LEVEL"]

BOT_NAME = "Bot"  # a solo's bot partner
LEVEL = "normal"  # the bots of tourney tables, and the bot teams' level


def table_seed(tourney_seed: str, round_number: int, slot: int) -> str:
    """A pairing's deals: reproducible from the tourney's seed, which no table seed reveals."""
    return hashlib.sha256(f"{tourney_seed}/{round_number}/{slot}".encode()).hexdigest()[:16]


def play_bots(rules: Rules, seed: str, deals: FairDeals | None = None) -> Match:
    """A match of four Normal bots, played out at once (two bot teams: no person at the table)."""
    match = Match(rules, seed, deals=deals)
    for seat in match.turns():
        action = bots.choose(seat_view(match, seat), LEVEL, bot_seed(seed, 1, match.version, seat))
        match.apply(seat, parse_action(action))
    return match


@dataclass
class _Lineup:
    """The teams and people as the start leaves them: changed copies of the stored rows."""

    teams: dict[int, TourneyTeamRow]
    players: dict[int, list[TourneyPlayerRow]]
    next_id: int  # for a partner who did not check in, moved to a dropped team of their own
    drops: list[Op] = dataclasses.field(default_factory=list)  # people leaving their old place
    final: list[int] = dataclasses.field(default_factory=list)  # the teams that play
    solos: list[TourneyPlayerRow] = dataclasses.field(default_factory=list)  # to be paired


class Transitions:
    """Every change a tourney makes by itself, over the store and the table service.

    ``ready_window_s``: how long a team has to press Ready once its match is due.
    ``rules_override``: TESTS ONLY, merged into every table's rules (checked by the facade).
    """

    def __init__(self, store: Store, tables: TableService, ready_window_s: float,
                 rules_override: dict[str, Any]) -> None:
        self.store = store
        self.tables = tables
        self.ready_window_s = ready_window_s
        self.rules_override = rules_override

    # -- moving on ---------------------------------------------------------------------------
    def advance(self, code: str, now: float) -> bool:
        """Do everything due for one tourney (caller holds the lock); whether anything changed."""
        changed = False
        for _ in range(10_000):  # each step changes one thing; a tourney has far fewer
            t = load(self.store, code)
            if t is None or not self._step(t, now):
                return changed
            changed = True
        raise RuntimeError(f"tourney {code} does not settle")  # pragma: no cover

    def reopen_windows(self, code: str, now: float) -> None:
        """At start-up: pairings still waiting for Ready are due from ``now`` (nobody could
        press Ready while the server was down)."""
        t = load(self.store, code)
        if t is None or t.status != "running":
            return
        ops: list[Op] = [PutTourneyMatch(code, replace(m, due=now)) for m in t.matches.values()
                         if m.hands is None and m.table_code is None]
        if ops:
            self.store.commit(ops)

    def _step(self, t: Tourney, now: float) -> bool:
        """One change that is due, committed; False when nothing is."""
        if t.status == "registering":
            if t.row.start_at is not None and now >= t.row.start_at:
                self.start(t, now, auto=True)
                return True
            return False
        if t.status != "running":
            return False
        for table in self.store.tourney_finished_tables(t.code):
            key = next(k for k, m in t.matches.items() if m.table_code == table)
            self._table_result(t, key, table, now)
            return True
        pending = t.pending()
        if pending:
            return self._settle_pending(t, pending, now)
        return self._round_over(t, now)

    def _settle_pending(self, t: Tourney, pending: list[Pairing], now: float) -> bool:
        """A row for each new pairing, else the first pairing that can move on: a walkover
        for a removed team, bots playing out their match, a table for two ready teams, a
        walkover past the ready window."""
        new = [p for p in pending if p.key not in t.matches]
        if new:
            self.store.commit([PutTourneyMatch(t.code, TourneyMatchRow(p.round, p.slot, _row_id(p.teams[0]),
                                                                       _row_id(p.teams[1]), p.target, now))
                               for p in new])
            return True
        for p in pending:
            m = t.matches[p.key]
            a, b = m.team_a, m.team_b
            out = [tid for tid in (a, b) if t.teams[tid].state != "in"]
            if out:  # a table already playing plays on as a plain match
                self._walkover(t, p, m, not_ready=out, reason="removed by the director", now=now)
            elif m.table_code is not None:
                continue
            elif t.teams[a].bot and t.teams[b].bot:
                self._bots_play(t, p, m, now)
            elif t.team_ready(a, m) and t.team_ready(b, m):
                self._make_table(t, p, m)
            elif now >= m.due + self.ready_window_s:
                late = [tid for tid in (a, b) if not t.team_ready(tid, m)]
                self._walkover(t, p, m, not_ready=late, reason="not ready in time", now=now)
            else:
                continue
            return True
        return False

    def _round_over(self, t: Tourney, now: float) -> bool:
        """Nothing pending: the end, or (Swiss) the next round."""
        if t.done():
            self.store.commit([PutTourney(t.code, {"status": "finished", "finished": now})])
            return True
        if t.knockout:
            return False  # pragma: no cover - a knockout not done always has a match pending
        playing = [tid for tid in t.seed_order() if t.teams[tid].state == "in"]
        if len(playing) < 2:
            self.store.commit([PutTourney(t.code, {"status": "finished", "finished": now,
                                                   "note": "Fewer than two teams were left to play."})])
            return True
        assert t.row.rounds is not None
        nxt = swiss_pairings(playing, t.swiss, len(t.swiss) + 1, random.Random(f"{t.row.seed}/swiss"),
                             total_rounds=t.row.rounds)
        self.store.commit([PutTourney(t.code, {"engine": {"rounds": [r.to_json() for r in [*t.swiss, nxt]]}})])
        return True

    # -- results -----------------------------------------------------------------------------
    def _record(self, t: Tourney, p: Pairing, m: TourneyMatchRow, result: Result, now: float,
                note: str = "", extra: Sequence[Op] = ()) -> None:
        """The result in the engine and with the pairing, in one transaction."""
        if t.bracket is not None:
            t.bracket = record_result(t.bracket, p.key, result)
        else:
            index = next(i for i, r in enumerate(t.swiss) if r.number == p.round)
            t.swiss[index] = record_swiss_result(t.swiss[index], p.slot, result)
        row = replace(m, winner=_winner_id(result), score=result.score, hands=result.hands,
                      walkover=result.is_walkover, note=note, done=now)
        self.store.commit([*extra, PutTourneyMatch(t.code, row), PutTourney(t.code, {"engine": t.engine_json()})])

    def _walkover(self, t: Tourney, p: Pairing, m: TourneyMatchRow, not_ready: list[int], reason: str,
                  now: float) -> None:
        """One team not ready (or removed) loses; both: in a knockout the team with more
        people ready goes through, then the better seed; in Swiss both take a loss."""
        a, b = m.team_a, m.team_b
        if len(not_ready) == 1:
            winner: int | None = b if not_ready[0] == a else a
        elif t.knockout:
            ca, cb = (t.ready_count(x, m) if t.teams[x].state == "in" else -1 for x in (a, b))
            winner = a if ca > cb else b if cb > ca else t.better_seed(a, b)
        else:
            winner = None
        result = Result.no_show() if winner is None else Result.walkover(winner)
        losers = [x for x in (a, b) if x != winner]
        word = "a walkover" if t.knockout else "a loss"
        notes = [PutTourneyTeam(t.code, replace(t.teams[x], note=f"Round {p.round}: {word}, {reason}."))
                 for x in losers if t.teams[x].state == "in"]
        self._record(t, p, m, result, now, note=reason, extra=notes)

    def _table_result(self, t: Tourney, key: tuple[int, int], table: str, now: float) -> None:
        """A table's first match is over: its result goes to the engine (team A sat at 0 and 2)."""
        m = t.matches[key]
        p = next(x for x in t.pairings() if x.key == key)
        found = self.store.finished_match(table, 1)
        if p.result is not None or found is None:  # the engine has it already: the pairing's row catches up
            r = p.result or Result.no_show()
            self.store.commit([PutTourneyMatch(t.code, replace(m, winner=_winner_id(r), score=r.score, hands=r.hands,
                                                               walkover=r.is_walkover, done=m.done or now))])
            return
        self._record(t, p, m, _played(t, m, self._table_match(table, found[0])), now)

    def _table_match(self, table: str, info: MatchInfo) -> Match:
        """A table's finished match, rebuilt from its stored moves and deals."""
        return replay(info.rules, info.seed, ((seat, text) for _, seat, text in self.store.actions(info.id)),
                      FairDeals.stored(self.store.fair_deals(table, info.number)))

    def _bots_play(self, t: Tourney, p: Pairing, m: TourneyMatchRow, now: float) -> None:
        """Two bot teams: nobody would sit at their table, so the engine plays it out now."""
        self._record(t, p, m, _played(t, m, self._bots_match(t, p)), now, note="played by bots, without a table")

    def _bots_match(self, t: Tourney, p: Pairing) -> Match:
        """Two bot teams' match, as the engine plays it (on the round's deals in a duplicate tourney)."""
        rules = self.rules(p.target)
        if t.row.duplicate:
            seed = round_seed(t.row.seed, p.round)
            return play_bots(rules, seed, round_deals(rules, seed))
        return play_bots(rules, table_seed(t.row.seed, p.round, p.slot))

    def pairing_points(self, t: Tourney, p: Pairing) -> dict[int, tuple[int, int]]:
        """A played pairing's points hand by hand, per direction (team A North-South): its
        table's first match rebuilt from the stored moves, or the bot teams' match played
        again (``spades.tourney.duplicate``)."""
        m = t.matches.get(p.key)
        if m is not None and m.table_code:
            found = self.store.finished_match(m.table_code, 1)
            return {} if found is None else hand_points(self._table_match(m.table_code, found[0]))
        return hand_points(self._bots_match(t, p))

    # -- tables ------------------------------------------------------------------------------
    def rules(self, target: int) -> Rules:
        """A tourney table's rules for a match to ``target`` (the test override merged in)."""
        base = Rules(mode="no_bidding", end="target", target=target, tempo="normal", play_speed="normal")
        if not self.rules_override:
            return base
        try:
            return Rules.from_dict({**dataclasses.asdict(base), **self.rules_override})
        except RulesError:  # checked in the facade's constructor
            return base

    def _make_table(self, t: Tourney, p: Pairing, m: TourneyMatchRow) -> None:
        """Both teams are ready: their table, team A at the rules' first side (seats 0 and
        2), team B at the second (1 and 3)."""
        code = self.store.tourney_table(t.code, p.round, p.slot)  # made just before a crash?
        if code is None:
            rules = self.rules(p.target)
            seats = []
            for team, side in zip((m.team_a, m.team_b), rules.shape.sides):
                for player, seat in zip(sorted(t.players[team], key=lambda x: x.slot), side):
                    if player.bot:
                        seats.append(SeatRow(seat, "bot", None, player.name, BOT_EMOJI))
                    else:
                        seats.append(SeatRow(seat, "human", player.player_id, player.name, player.emoji))
            people = [s for s in sorted(seats, key=lambda s: s.seat) if s.kind == "human"]
            options = {"kind": "tourney", "level": LEVEL, "tourney": t.code, "round": p.round, "slot": p.slot,
                       "humans": len(people)}
            seed = table_seed(t.row.seed, p.round, p.slot)
            if t.row.duplicate:  # the round's deals at every table; nobody watches until it is over
                options.update(duplicate=True, watch=False)
                seed = round_seed(t.row.seed, p.round)
            code = self.tables.create_seated(seats, rules, options,
                                             host=people[0].player_id if people else None, seed=seed)
        self.store.commit([PutTourneyMatch(t.code, replace(m, table_code=code))])

    # -- the start -----------------------------------------------------------------------------
    def start(self, t: Tourney, now: float, auto: bool) -> None:
        """Teams made final (solos paired, people not checked in dropped), seeded, and the
        engine started. Raises TourneyError when fewer than two teams can play (the
        director's Start); at the start time such a tourney is cancelled instead."""
        lineup = _lineup(t, now)
        rng = random.Random(f"{t.row.seed}/start")  # one stream, in order: the solos' pairs, then the seeds
        if len(lineup.final) + math.ceil(len(lineup.solos) / 2) < 2:
            if not auto:
                raise TourneyError("A tourney needs at least two teams to start.")
            self.store.commit([PutTourney(t.code, {"status": "cancelled", "finished": now,
                                                   "note": "Fewer than two teams were there at the start."})])
            return
        _pair_solos(lineup, rng, now, self.store.blocks_between(_solo_ids(lineup)))
        order = self._seed_order(lineup, rng)
        for n, tid in enumerate(order, 1):
            lineup.teams[tid] = replace(lineup.teams[tid], seed=n)
        self.store.commit(_start_ops(t, lineup, _engine(t, order), now))

    def _seed_order(self, lineup: _Lineup, rng: random.Random) -> list[int]:
        """The people's teams by rating when every person has one (the conservative
        ``mu - 3 sigma`` the shown rating grows from), else at random; bot teams after
        them, at random."""
        people = [Team(tid, tuple(p.player_id if not p.bot else None for p in lineup.players[tid]))
                  for tid in lineup.final if not lineup.teams[tid].bot]
        pids = [pid for team in people for pid in team.players if pid is not None]
        rated = {pid: mu - 3 * sigma for pid, (mu, sigma, _) in self.store.ratings(pids).items()}
        order = [int(tid) for tid in seed_teams(people, rng, rated)]  # a stored team's id is an int
        robots = sorted(tid for tid in lineup.final if lineup.teams[tid].bot)
        rng.shuffle(robots)
        return order + robots


def _row_id(team: TeamId | None) -> int:
    """A team of a pairing the service stores: its row's id (the engine takes any ids,
    and a stored pairing's teams are known)."""
    assert isinstance(team, int), team
    return team


def _winner_id(result: Result) -> int | None:
    """A result's winner as the pairing's row keeps it (None for a no-show)."""
    return None if result.winner is None else _row_id(result.winner)


def _solo_ids(lineup: _Lineup) -> list[str]:
    """The people to pair (a solo is a person: only a bot has no id)."""
    return [p.player_id for p in lineup.solos if p.player_id is not None]


def _played(t: Tourney, m: TourneyMatchRow, match: Match) -> Result:
    """A finished match's result in pairing order (team A sat at seats 0 and 2)."""
    a, b = m.team_a, m.team_b
    if match.winner is None:  # level at the 99-hand cap: the better seed goes through
        winner = t.better_seed(a, b)
    else:
        winner = a if match.winner == 0 else b
    return Result.played(winner, (match.scores[0], match.scores[1]), max(1, len(match.results)))


# -- the start's steps ------------------------------------------------------------------------
def _lineup(t: Tourney, now: float) -> _Lineup:
    """Who plays: bot teams, and people's teams with both people there, as they are; the
    rest settled one by one (``_settle``)."""
    opens = t.checkin_opens()
    # people had their chance to check in (with no window, nobody had: everyone registered is there)
    checkin = opens is not None and now >= opens and t.row.checkin_s > 0
    lineup = _Lineup(dict(t.teams), {tid: list(ps) for tid, ps in t.players.items()}, max(t.teams, default=0) + 1)
    for tid in sorted(lineup.teams):
        team = lineup.teams[tid]
        if team.state != "in":
            continue
        if team.bot:
            lineup.final.append(tid)
            continue
        _settle(lineup, t.code, team, checkin, now)
    return lineup


def _settle(lineup: _Lineup, code: str, team: TourneyTeamRow, checkin: bool, now: float) -> None:
    """A people's team at the start: both there, it plays; nobody there, it is dropped; one
    there, that person plays as a solo (a partner who did not check in is dropped apart)."""
    tid = team.id
    here = [p for p in lineup.players[tid] if not p.bot and (not checkin or p.checked_in is not None)]
    away = [p for p in lineup.players[tid] if not p.bot and checkin and p.checked_in is None]
    if len(here) == 2:
        lineup.final.append(tid)
        return
    if not here:
        note = "Did not check in." if checkin else "Not complete at the start."
        lineup.teams[tid] = replace(team, state="dropped", note=note)
        return
    person = here[0]
    for p in lineup.players[tid]:
        lineup.drops.append(DropTourneyPlayer(code, tid, p.slot))
    if away:  # the partner who did not check in leaves the team, to a dropped one of their own
        new = lineup.next_id
        lineup.teams[new] = TourneyTeamRow(new, None, False, False, "dropped", "Did not check in.", created=now)
        lineup.players[new] = [replace(away[0], team_id=new, slot=0)]
        lineup.next_id += 1
    if not team.solo:
        why = "did not check in" if away else "did not join"
        lineup.teams[tid] = replace(team, solo=True, note=f"The partner {why}: paired as a solo.")
    lineup.players[tid] = [replace(person, slot=0)]
    lineup.solos.append(lineup.players[tid][0])


def _pair_solos(lineup: _Lineup, rng: random.Random, now: float, apart: set[frozenset[str]]) -> None:
    """Solos paired at random into the first one's team (never two who blocked one
    another while a swap can keep them apart); an odd one gets a bot partner."""
    by_person = {p.player_id: p for p in lineup.solos}
    for a, b in pair_solos(_solo_ids(lineup), rng, apart):
        first = by_person[a]
        if b is None:
            partner = TourneyPlayerRow(first.team_id, 1, None, BOT_NAME, BOT_EMOJI, True, now, now)
        else:
            second = by_person[b]
            partner = replace(second, team_id=first.team_id, slot=1)
            lineup.teams[second.team_id] = replace(lineup.teams[second.team_id], state="merged",
                                                   note=f"Paired with team {first.team_id}.")
            lineup.players[second.team_id] = []
        lineup.players[first.team_id] = [first, partner]
        lineup.final.append(first.team_id)


def _engine(t: Tourney, order: list[int]) -> dict[str, Any]:
    """The engine's first state: the knockout's bracket, or Swiss's first round (drawn at random)."""
    if t.knockout:
        return {"bracket": knockout_bracket(order).to_json()}
    assert t.row.rounds is not None
    first_round = swiss_pairings(order, [], 1, random.Random(f"{t.row.seed}/swiss"), total_rounds=t.row.rounds)
    return {"rounds": [first_round.to_json()]}


def _start_ops(t: Tourney, lineup: _Lineup, engine: dict[str, Any], now: float) -> list[Op]:
    """The start in one transaction: the people who moved, the teams and players that
    changed, and the tourney running."""
    ops: list[Op] = list(lineup.drops)
    changed_teams = [tid for tid in lineup.teams if lineup.teams[tid] != t.teams.get(tid)]
    ops += [PutTourneyTeam(t.code, lineup.teams[tid]) for tid in sorted(changed_teams)]
    moved = {tid for tid in lineup.players if lineup.players[tid] != t.players.get(tid, [])}
    ops += [PutTourneyPlayer(t.code, p) for tid in sorted(moved) for p in lineup.players[tid]]
    ops.append(PutTourney(t.code, {"status": "running", "started": now, "engine": engine}))
    return ops
