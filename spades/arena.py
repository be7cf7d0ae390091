"""The arena of BOTS.md: play matches between bots and print a summary.

``python -m spades arena --team0 SPEC --team1 SPEC --matches N [--rules JSON] [--seed S]``
(two teams), or ``python -m spades arena --seats A,B,C[,D] --matches N --rules JSON`` (one
bot per seat, for cutthroat), with the extra options ``--records DIR``, ``--jobs``,
``--limit`` and ``--budget``. A SPEC is ``random``, ``easy``, ``normal``, ``hard``,
``yardstick`` (a conventional club-play bot, ``spades.bots.yardstick``, for measuring),
``punisher`` (a sparring bot that attacks nils and sets close contracts,
``spades.bots.punisher``) or ``cmd:COMMAND``, an outside bot speaking JSON lines (one
process per seat). An outside bot's illegal, unreadable or late answer is replaced by the
Normal bot's move and counted in ``replaced``.

``--rules`` takes every setting of RULES.md, the house rules included (``players``,
``partners``, ``jokers``, ``bidding``, ``min_bid``, ``ten_for_200``, ``spades_lead``); a
setting or combination the site does not offer is refused with ``RulesError``'s sentence
and exit code 2, as are a bad SPEC and a form that does not fit the table.

Teams (``--team0``/``--team1``): a table with partners only (two sides of two seats). Matches
are played in duplicate pairs: both matches of a pair use the same seed, hence the same
first dealer and the same deals, with the teams swapped between the seats of side 0 and
side 1 (``Rules.shape.sides``: seats 0/2 and 1/3), so the luck of the cards cancels out.
The last line printed is the summary JSON of BOTS.md. ``ci95`` is the Wilson score
interval of ``win_rate`` (team 0's share of decided matches, draws left out). Beside the
keys of BOTS.md, ``figures`` explains the results, per team (``team0`` is ``--team0``'s
SPEC): ``set_rate`` (hands the team's contract was set, of the hands it had one),
``avg_contract`` and ``avg_tricks`` (per hand with a contract; tricks of the whole team),
``bags_per_hand``, ``bag_penalties_per_match`` (the times its bags cost 10 x 10 bags),
``nil_bids_per_hand``/``nil_made`` and ``blind_nil_bids_per_hand``/``blind_nil_made``
(bids per hand, and the share made), ``points_per_hand``, and what it did to the other
team: ``nils_busted`` (the share of the other team's nils and blind nils it broke) and
``sets_caused`` (the share of the other team's contracts it set).

Seats (``--seats A,B,C[,D]``): one SPEC per seat, in seat order, as many as the rules have
seats (a cutthroat table needs this form; at a partners table seats 0/2 and 1/3 are the
sides). Commas split the SPECs; a comma inside an outside bot's command stays in it unless
what follows it is itself a SPEC. Duplicate for seats: each set of deals (one seed) is
played once per rotation of the SPECs around the table, so every bot sits in every seat on
the same cards: rotation r puts the SPEC given for seat i in seat (i + r) mod seats. The
matches are rounded up to whole sets (3 matches a set of deals for three seats, 4 for
four). The last line printed is one JSON object, about the distinct SPECs in the order
they first appear in ``--seats`` (``specs``):

```json
{"matches": 300, "seats": ["normal", "easy", "easy"], "specs": ["normal", "easy"],
 "rotations": 3, "wins": [187, 113], "draws": 0, "tied": [0, 0],
 "win_rate": 0.623, "ci95": [0.567, 0.676], "even_rate": 0.333,
 "points_per_hand": [41.2, 18.7],
 "decision_ms": {"normal": {"p50": 0.04, "p95": 0.09}, "easy": {"p50": 0.03, "p95": 0.07}},
 "replaced": [0, 0], "figures": {"normal": {...}, "easy": {...}}}
```
- A match is won by the side with the highest final score (the engine plays on while the
  lead is shared, so only the 99-hand cap ends level). ``wins[k]`` counts the matches won
  by a side where ``specs[k]`` had a seat: in cutthroat with the SPECs ``normal,easy,easy``,
  ``wins[0] + wins[1] + draws == matches``. At a partners table a side holds two seats, and
  both of its SPECs are credited with its win.
- ``draws`` counts the matches that ended level at the cap; ``tied[k]`` those of them in
  which ``specs[k]`` was among the level leaders (a draw for it; for a SPEC outside the tie
  such a match is a loss).
- ``win_rate`` is the first SPEC's (the bot being measured) share of the matches it did
  not draw, ``wins[0] / (matches - tied[0])``, and ``ci95`` its Wilson interval. One Normal
  against two Easy at cutthroat for three: ``--seats normal,easy,easy --rules
  '{"players": 3, "partners": false}'`` and read ``win_rate``. ``even_rate`` is the rate the
  first SPEC would have if every seat played alike: the share of the sides it sits in
  (1/3 for one seat of three).
- ``points_per_hand[k]``: the mean hand score of the side of a seat of ``specs[k]`` (in
  cutthroat the seat's own score), over every seat and hand it played. ``decision_ms``
  (keyed by SPEC, p50 and p95 of its bids and cards) and ``replaced`` (per SPEC) are as for
  teams.
- ``figures`` (keyed by SPEC), over every seat and hand of that SPEC: ``hands`` (seat
  hands), ``points_per_hand``, ``set_rate`` (the side's contract set, of the hands it had
  one), ``avg_bid`` and ``avg_tricks`` (the seat's own number bid and tricks, per hand it
  bid a number), ``bags_per_hand`` (the side's bags), ``bag_penalties_per_match`` (per seat
  and match), ``nil_bids_per_hand``/``nil_made`` and
  ``blind_nil_bids_per_hand``/``blind_nil_made`` (the seat's own). Left out for seats:
  ``nils_busted``, ``sets_caused`` and ``by_hand``, which need one other team to blame or
  compare with, and ``avg_contract`` (a side's contract, which is ``avg_bid`` alone in
  cutthroat).
- At a partners table ``figures`` also tell how each SPEC did by its partner (the seat
  across from each seat it played, whatever SPEC that is); in cutthroat, with no partner,
  these keys are left out:
  - ``partner_nils``: the hands in which the partner bid nil or blind nil, over the SPEC's
    seat hands, and ``partner_nil_made`` the share of them the partner made (None when
    there were none).
  - ``overtook_partner``: per seat hand (like ``nil_bids_per_hand``), the cards the SPEC's
    seat played that needlessly beat its partner's winning card, and
    ``overtook_partner_count`` their number. A card counts when (a) the card winning the
    trick so far, as it was played, was the partner's; (b) the card beats it (a higher
    card of its suit, or a trump on a card that is not one); (c) the seat held a legal card
    then (the engine's ``shape_legal_mask`` on the cards it held and the trick so far) that
    would not have beaten it; (d) the partner did not bid nil or blind nil that hand
    (taking a trick over a nil partner covers the nil); and (e) the side gained nothing by
    it: no card played after it in the trick beat the partner's card (so the partner's
    card would have taken the trick, given the cards played after), and the seat itself
    did not bid nil (or blind nil). ``partner_overtakes`` counts them from the hand's deal
    and its cards in the order played.
  - ``side_win_rate``: seat by seat, the share of the matches the SPEC's seats played that
    the seat's side won, a seat whose side was level at the 99-hand cap left out (as
    ``win_rate`` leaves out draws). For the first SPEC with its seats on one side (one seat,
    or two partners) it is ``win_rate``; a SPEC with seats on both sides counts each seat
    (with ``yardstick`` in every seat it is 0.5, where ``wins`` credit it with every match).

``--records DIR`` writes each match's record (RECORD.md, ``spades.records.to_record``:
spades-match/1 at a standard table, /2 with any house rule) to DIR, created if missing,
one file a match: ``match-0003-deals-0002-teams.json`` / ``match-0004-deals-0002-swapped.json``
for teams (the pair's second match has the teams swapped), ``match-0005-deals-0002-rotation-1.json``
for seats (numbers from 1, rotations from 0, 0 being the order given). Each record also
carries the extra key ``arena`` (RECORD.md allows extra keys): the match and deals numbers,
the seed, the rotation (or ``swapped``) and ``seats``, the SPEC that played each seat.
``python -m spades replay FILE`` replays it.

The extra options also come from the environment: ``SPADES_ARENA_LIMIT`` (seconds an
outside bot may think, default 10), ``SPADES_ARENA_JOBS`` (worker processes, default 1)
and ``SPADES_HARD_BUDGET`` (Hard's thinking time per decision in seconds, default
``spades.bots.HARD_BUDGET_S``).

Imports: the core, ``spades.records``, ``spades.bots``, ``spades.arena_figures`` (the results and
the summary), and the stdlib.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shlex
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from . import bots
from .arena_figures import MatchResult, SeatsResult, partner_overtakes, summarize, summarize_seats
from .bots import punisher, yardstick
from .cards import NotationError
from .records import to_record
from .rules import IllegalAction, Match, parse_action
from .rules_config import Rules, RulesError
from .views import seat_view

DEFAULT_LIMIT_S = 10.0
SPARRING = {"yardstick": yardstick.choose, "punisher": punisher.choose}  # the measuring sticks, not site levels
BUILTIN = (*bots.LEVELS, *SPARRING)


class OutsideBot:
    """One seat's outside bot: a process spoken to in JSON lines (BOTS.md)."""

    def __init__(self, command: str, limit_s: float) -> None:
        self.limit_s = limit_s
        self.proc = subprocess.Popen(
            shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.owed = 0  # answers to earlier requests that came too late and must be skipped
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def ask(self, view: dict) -> object:
        """The bot's answer (a parsed JSON value), or None if it is late or unreadable."""
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps({"type": "act", "view": view}) + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            return None
        deadline = time.monotonic() + self.limit_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.owed += 1
                return None
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                self.owed += 1
                return None
            if line is None:  # the bot exited; every later answer is missing too
                self.lines.put(None)
                return None
            if self.owed:
                self.owed -= 1  # a late answer to an earlier request: not this one's
                continue
            try:
                return json.loads(line)
            except ValueError:
                return None

    def close(self) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(json.dumps({"type": "end"}) + "\n")
            self.proc.stdin.flush()
            self.proc.stdin.close()
        except (OSError, ValueError):
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def answer_action(answer: object) -> object:
    """The action named by an outside bot's answer, or None when it names none."""
    if not isinstance(answer, dict):
        return None
    if "card" in answer:
        return answer["card"] if isinstance(answer["card"], str) else None
    if "bid" in answer:
        return answer["bid"]
    if answer.get("look") is True:
        return "look"
    return None


def builtin_action(spec: str, view: dict, bot_seed: int, budget_s: float | None = None) -> object:
    """The action (JSON form) of a built-in SPEC, a level or a sparring bot, for a seat view."""
    if spec in SPARRING:
        return SPARRING[spec](view, bot_seed)
    return bots.choose(view, spec, bot_seed, budget_s)


TEAMS_NEED_PARTNERS = ("--team0/--team1 need a table with partners; these rules play cutthroat "
                       "(every player alone): give one bot per seat with --seats A,B,C[,D].")


def play_seats(seat_specs: list[str] | tuple[str, ...], rules: Rules, seed: int, limit_s: float,
               budget_s: float | None) -> tuple[Match, list[list[float]], list[int]]:
    """Play one match with ``seat_specs[s]`` in seat s: the finished match, and per seat its
    decision times (milliseconds) and the count of its answers replaced by Normal's move."""
    match = Match(rules, seed=seed)
    tricks = match.shape.hand_size
    n = match.shape.players
    times: list[list[float]] = [[] for _ in range(n)]
    replaced = [0] * n
    outside: dict[int, OutsideBot] = {}
    try:
        for s, spec in enumerate(seat_specs):
            if spec.startswith("cmd:"):
                outside[s] = OutsideBot(spec[4:], limit_s)
        for seat in match.turns():
            view = seat_view(match, seat)
            bot_seed = seed * 8 + seat
            start = time.perf_counter()
            if seat in outside:
                action = answer_action(outside[seat].ask(view))
            else:
                action = builtin_action(seat_specs[seat], view, bot_seed, budget_s)
            times[seat].append((time.perf_counter() - start) * 1000)
            try:
                if action is None:
                    raise NotationError("no answer")
                match.apply(seat, parse_action(action, tricks))
            except (IllegalAction, NotationError, ValueError, TypeError):
                if seat not in outside:
                    raise  # a built-in bot must never be illegal: that is a bug to see
                replaced[seat] += 1
                match.apply(seat, parse_action(bots.choose(view, "normal", bot_seed), tricks))
    finally:
        for bot in outside.values():
            bot.close()
    return match, times, replaced


def play_match(specs: tuple[str, str], rules_json: dict, seed: int, swapped: bool,
               limit_s: float, budget_s: float | None, record: dict | None = None) -> MatchResult:
    """Play one match between two teams; ``swapped`` puts ``specs[0]`` in side 1's seats
    (1 and 3) instead of side 0's. With ``record`` (the ``arena`` key's facts), the result
    carries the match's record."""
    rules = Rules.from_dict(rules_json)
    shape = rules.shape
    if shape.side_count != 2:
        raise ValueError(TEAMS_NEED_PARTNERS)
    flip = 1 if swapped else 0
    team_of_seat = [shape.side_of[s] ^ flip for s in shape.seats]
    match, times, replaced = play_seats([specs[t] for t in team_of_seat], rules, seed, limit_s, budget_s)
    result = MatchResult(None)
    for s in shape.seats:
        result.decision_ms[team_of_seat[s]].extend(times[s])
        result.replaced[team_of_seat[s]] += replaced[s]
    for r in match.results:
        for team in (0, 1):
            side = team ^ flip  # the score index of that SPEC's seats
            t = r.score.teams[side]
            result.hand_points[team].append(t.total)
            plain = [made for _, blind, made in t.nils if not blind]
            blind = [made for _, is_blind, made in t.nils if is_blind]
            result.hand_rows[team].append((
                t.contract if t.made is not None else None, sum(r.tricks[s] for s in shape.sides[side]),
                t.made is False, t.bags, t.penalty < 0, len(plain), sum(plain), len(blind), sum(blind)))
    result.winner = None if match.winner is None else match.winner ^ flip
    if record is not None:
        result.record = _with_arena(match, {**record, "seats": [specs[t] for t in team_of_seat]})
    return result


def play_rotation(specs: tuple[str, ...], lineup: tuple[int, ...], rules_json: dict, seed: int,
                  limit_s: float, budget_s: float | None, record: dict | None = None) -> SeatsResult:
    """Play one match of the ``--seats`` form: seat s is played by ``specs[lineup[s]]``
    (``specs`` the run's distinct SPECs). With ``record``, the result carries the record."""
    rules = Rules.from_dict(rules_json)
    shape = rules.shape
    match, times, replaced = play_seats([specs[k] for k in lineup], rules, seed, limit_s, budget_s)
    k_count = len(specs)
    points: list[list[int]] = [[] for _ in range(k_count)]
    rows: list[list[tuple]] = [[] for _ in range(k_count)]
    partners = shape.partner(0) is not None
    partner_rows: list[list[tuple]] = [[] for _ in range(k_count)] if partners else []
    for r in match.results:
        if partners:
            over = partner_overtakes(shape, r.deal, r.bids, shape.left[r.dealer], r.plays,
                                     rules.spades_lead == "any")
        for s in shape.seats:
            t = r.score.teams[shape.side_of[s]]
            bid = r.bids[s]
            mine = [(blind, made) for seat, blind, made in t.nils if seat == s]
            plain = [made for blind, made in mine if not blind]
            blind = [made for is_blind, made in mine if is_blind]
            points[lineup[s]].append(t.total)
            rows[lineup[s]].append((
                bid if bid else None, r.tricks[s], None if t.made is None else t.made is False, t.bags,
                t.penalty < 0, len(plain), sum(plain), len(blind), sum(blind)))
            if partners:
                p = shape.partner(s)
                theirs = [made for seat, _, made in t.nils if seat == p]
                partner_rows[lineup[s]].append((len(theirs), sum(theirs), over[s]))
    winners: tuple[int, ...] = ()
    tied: tuple[int, ...] = ()
    if match.winner is not None:
        winners = tuple(sorted({lineup[s] for s in shape.sides[match.winner]}))
    else:
        best = max(match.scores)
        tied = tuple(sorted({lineup[s] for s in shape.seats if match.scores[shape.side_of[s]] == best}))
    won_seats = () if match.winner is None else shape.sides[match.winner]
    level = () if match.winner is not None else [s for s in shape.seats
                                                 if match.scores[shape.side_of[s]] == max(match.scores)]
    result = SeatsResult(
        lineup=tuple(lineup), won_seats=won_seats,
        winners=winners, tied=tied, hands=len(match.results), hand_points=points,
        decision_ms=[[ms for s in shape.seats if lineup[s] == k for ms in times[s]] for k in range(k_count)],
        replaced=[sum(replaced[s] for s in shape.seats if lineup[s] == k) for k in range(k_count)],
        hand_rows=rows,
        sides=sum(1 for side in shape.sides if any(lineup[s] == 0 for s in side)) / shape.side_count,
        partners=partners, partner_rows=partner_rows,
        side_won=[sum(1 for s in won_seats if lineup[s] == k) for k in range(k_count)],
        side_decided=[sum(1 for s in shape.seats if lineup[s] == k and s not in level) for k in range(k_count)],
    )
    if record is not None:
        result.record = _with_arena(match, {**record, "seats": [specs[k] for k in lineup]})
    return result


def _with_arena(match: Match, facts: dict) -> dict:
    """The match's record with the arena's facts under the extra key ``arena``."""
    return {**to_record(match), "arena": facts}


def _check_spec(spec: str) -> str:
    if spec in BUILTIN or (spec.startswith("cmd:") and spec[4:].strip()):
        return spec
    raise ValueError(f"unknown bot {spec!r}: {', '.join(BUILTIN)} or cmd:COMMAND")


def split_seats(text: str) -> list[str]:
    """The SPECs of ``--seats``, split at commas; a comma inside an outside bot's command
    stays in it unless what follows is itself a SPEC (a level or ``cmd:``)."""
    out: list[str] = []
    for piece in text.split(","):
        word = piece.strip()
        if out and out[-1].startswith("cmd:") and word not in BUILTIN and not word.startswith("cmd:"):
            out[-1] += "," + piece
        else:
            out.append(word)
    return out


def deals_seed(base: int, index: int, group: int) -> int:
    """The seed of match ``index`` of a run seeded ``base`` whose sets of deals are played
    ``group`` times (2 for a duplicate pair of teams, the seats for rotations)."""
    return base * 100_000 + index // group


def pair_seed(base: int, index: int) -> int:
    """The seed of match ``index`` of a run seeded ``base``: both matches of a pair share it
    (the second of each pair swaps the seats)."""
    return deals_seed(base, index, 2)


def _play_one(job: tuple) -> tuple[int, MatchResult | SeatsResult]:
    kind, index, *rest = job
    if kind == "teams":
        return index, play_match(*rest)
    return index, play_rotation(*rest)


def _fail(message: str) -> int:
    print(f"arena: {message}", file=sys.stderr)
    return 2


def main(args: argparse.Namespace) -> int:
    """Run the arena for parsed arguments; print progress lines and the summary last."""
    try:
        rules_json = json.loads(args.rules or "{}")
    except ValueError as e:
        return _fail(f"--rules is not JSON: {e}")
    try:
        rules = Rules.from_dict(rules_json)
    except RulesError as e:
        return _fail(f"--rules: {e}")
    shape = rules.shape
    seats_text = getattr(args, "seats", None)
    teams = (args.team0, args.team1)
    if seats_text is not None and any(t is not None for t in teams):
        return _fail("give either --team0 and --team1, or --seats, not both.")
    try:
        if seats_text is None:
            if None in teams:
                return _fail("give two teams (--team0 SPEC --team1 SPEC) or one bot per seat (--seats A,B,C[,D]).")
            if shape.side_count != 2:
                return _fail(TEAMS_NEED_PARTNERS)
            seats: list[str] = []
            specs: tuple[str, ...] = (_check_spec(args.team0), _check_spec(args.team1))
        else:
            seats = [_check_spec(s) for s in split_seats(seats_text)]
            if len(seats) != shape.players:
                return _fail(f"--seats gives {len(seats)} bot{'s' if len(seats) != 1 else ''} for a table of "
                             f"{shape.players} seats: give one SPEC per seat, {shape.players} in all.")
            specs = tuple(dict.fromkeys(seats))
    except ValueError as e:
        return _fail(str(e))
    limit_s = float(getattr(args, "limit", None) or os.environ.get("SPADES_ARENA_LIMIT") or DEFAULT_LIMIT_S)
    jobs = int(getattr(args, "jobs", None) or os.environ.get("SPADES_ARENA_JOBS") or 1)
    budget = getattr(args, "budget", None) or os.environ.get("SPADES_HARD_BUDGET")
    budget_s = float(budget) if budget else None
    base = int(args.seed or 0)
    records_dir = Path(args.records) if getattr(args, "records", None) else None
    if records_dir is not None:
        try:
            records_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            return _fail(f"cannot make --records {records_dir}: {e.strerror}")
    total = max(0, int(args.matches))
    todo: list[tuple] = []
    names: list[str] = []
    if not seats:
        for i in range(total):
            seed, swapped = pair_seed(base, i), i % 2 == 1
            facts = {"match": i + 1, "deals": i // 2 + 1, "seed": seed, "swapped": swapped}
            todo.append(("teams", i, specs, rules_json, seed, swapped, limit_s, budget_s,
                         facts if records_dir else None))
            names.append(f"match-{i + 1:04d}-deals-{i // 2 + 1:04d}-{'swapped' if swapped else 'teams'}.json")
    else:
        n = len(seats)
        total = -(-total // n) * n  # whole sets of deals: every rotation of each
        print(f"arena: {total} matches, {total // n} sets of deals x {n} rotations of {','.join(seats)}", flush=True)
        given = [specs.index(s) for s in seats]
        for i in range(total):
            seed, rotation = deals_seed(base, i, n), i % n
            lineup = tuple(given[(s - rotation) % n] for s in range(n))
            facts = {"match": i + 1, "deals": i // n + 1, "seed": seed, "rotation": rotation}
            todo.append(("seats", i, specs, lineup, rules_json, seed, limit_s, budget_s,
                         facts if records_dir else None))
            names.append(f"match-{i + 1:04d}-deals-{i // n + 1:04d}-rotation-{rotation}.json")
    results: list = [None] * len(todo)
    done = 0

    def finish(index: int, r: MatchResult | SeatsResult) -> None:
        nonlocal done
        if records_dir is not None and r.record is not None:
            (records_dir / names[index]).write_text(json.dumps(r.record) + "\n", encoding="utf-8")
            r.record = None
        results[index] = r
        done += 1
        _progress(done, len(todo), index, r, specs)

    if jobs > 1 and len(todo) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for index, r in pool.map(_play_one, todo):
                finish(index, r)
    else:
        for job in todo:
            finish(*_play_one(job))
    played = [r for r in results if r is not None]
    summary = summarize_seats(played, seats, specs) if seats else summarize(played)
    print(json.dumps(summary), flush=True)
    return 0


def _progress(done: int, total: int, index: int, r: MatchResult | SeatsResult, specs: tuple[str, ...]) -> None:
    if isinstance(r, MatchResult):
        who = "draw" if r.winner is None else f"team{r.winner}"
        print(f"match {done}/{total}: {who} in {len(r.hand_points[0])} hands, replaced {r.replaced}", flush=True)
        return
    seated = ",".join(specs[k] for k in r.lineup)
    if r.won_seats:
        who = (f"seat{'s' if len(r.won_seats) > 1 else ''} {'/'.join(str(s) for s in r.won_seats)} "
               f"({' and '.join(specs[r.lineup[s]] for s in r.won_seats)}) won")
    else:
        who = "draw between " + " and ".join(specs[k] for k in r.tied)
    print(f"match {done}/{total} (match {index + 1}, seats {seated}): {who} in {r.hands} hands, "
          f"replaced {r.replaced}", flush=True)


def parser(prog: str = "python -m spades.arena") -> argparse.ArgumentParser:
    """The arena's command line (``python -m spades arena`` uses it too)."""
    p = argparse.ArgumentParser(prog=prog)
    p.add_argument("--team0", help="team 0's SPEC (a table with partners)")
    p.add_argument("--team1", help="team 1's SPEC")
    p.add_argument("--seats", help="one SPEC per seat, comma separated (cutthroat: A,B,C or A,B,C,D)")
    p.add_argument("--matches", type=int, default=20)
    p.add_argument("--rules", default="{}", help="the table's rules as JSON, house rules included")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--records", default=None, metavar="DIR", help="write each match's record into DIR")
    p.add_argument("--jobs", type=int, default=None, help="worker processes (default 1)")
    p.add_argument("--limit", type=float, default=None, help="seconds an outside bot may think (default 10)")
    p.add_argument("--budget", type=float, default=None, help="Hard's thinking time per decision, seconds")
    return p


if __name__ == "__main__":
    sys.exit(main(parser().parse_args()))
