"""What a bot's choices are worth against an opponent: play each hand on from a decision
both ways and compare (prints figures; no test times it).

``python -m bench.deviations --team0 SPEC --team1 SPEC [--matches N] [--seed S] [--jobs J]
[--other SPEC] [--to-the-end POINTS]``

Matches of ``--team0`` against ``--team1`` (built-in SPECs of the arena, duplicate pairs
as there) are played as usual. At each decision of a team-0 seat, a copy of the match is
played to the end of the hand from there, the rest of the hand by the same bots, with:

- **cards**: the card the ``--other`` bot (default ``--team1``'s) would play from the same
  seat view, when it differs from team 0's own card;
- **bids**: team 0's number bid one lower and one higher, and nil for it (unless the
  partner bid nil); for a nil, the number the bid model would bid without nil.

What a choice is worth is the hand's margin: team 0's points less team 1's, with the bag
penalties taken out and every bag counted at -10 (1 point now, 100 per ten later), so a
bag does not count only in the hand that reaches ten. The gain of a deviation is its
margin less the margin of the bot's own choice, on the same cards. Each deviation is one
deal, with every card known to the play-out, so a single gain says little; the means over
a kind of situation say whether a habit is worth changing (a habit that gains there is
still to be measured in the arena, as a whole policy).

``--to-the-end POINTS`` judges by the match instead: from the first hand that starts with
a team at ``POINTS`` or more, each choice's copy is played to the end of the match, the
later deals being the same, and the gain is in matches won in 100 (a draw counts half). A
choice that scores fewer points may still win more matches near the end; the bid groups
then also say where the score stood (each team under 300, 300-399 or 400 and more).

Cards are grouped by the live nil (the seat's own, its partner's, an opponent's, none),
the seat's place in the trick (1 leads) and its team's contract (short or made); bids by
the seat's place among its team's bidders. The last line is one JSON object:
``{"matches": …, "cards": {GROUP: {"n", "gain", "se"}}, "bids": {GROUP: {…}}}``, ``gain``
being the mean gain in points a decision and ``se`` its standard error.

Imports: the product (``spades``) only.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor

from spades.arena import BUILTIN, builtin_action
from spades.bots import bidmodel, knowledge
from spades.rules import BIDDING, HAND_OVER, PLAYING, Match, parse_action
from spades.rules_config import Rules
from spades.views import seat_view


def act(view: dict, spec: str, seed: int) -> object:
    """The action of a ``spec`` bot for the seat view (the bot seeded as in the arena)."""
    return builtin_action(spec, view, seed * 8 + view["seat"])


def play_hand(match: Match, specs_of_seat: list[str], seed: int) -> None:
    """Play the hand out, every seat its own bot."""
    while match.phase != HAND_OVER and not match.finished:
        seat = match.to_act
        assert seat is not None
        match.apply(seat, parse_action(act(seat_view(match, seat), specs_of_seat[seat], seed)))


def margin(match: Match, specs_of_seat: list[str], seed: int, team0: int) -> int:
    """Play the hand out; team 0's points less team 1's, bag penalties out, bags at -10."""
    play_hand(match, specs_of_seat, seed)
    teams = match.results[-1].score.teams

    def value(t):
        return t.total - t.penalty - 10 * t.bags

    return value(teams[team0]) - value(teams[1 - team0])


def _card_group(view: dict) -> str:
    seat, taken = view["seat"], view["taken"]
    bids = [0 if b in ("nil", "blind_nil") else b for b in view["bids"]]

    def alive(s: int) -> bool:
        return bids[s] == 0 and not taken[s]

    nil = ("own nil" if alive(seat) else "partner's nil" if alive(seat ^ 2)
           else "their nil" if alive(seat ^ 1) or alive(seat ^ 3) else "no nil")
    contract = sum(b or 0 for s, b in enumerate(bids) if s & 1 == seat & 1)
    made = "made" if taken[seat] + taken[seat ^ 2] >= contract else "short"
    place = len(view["trick"]["cards"]) + 1
    return f"{nil}, plays {place}, contract {made}"


def outcome(match: Match, specs_of_seat: list[str], seed: int, team0: int) -> float:
    """Play the match out; 100 if team 0 wins it, 50 for a draw, 0 if it loses."""
    play_hand(match, specs_of_seat, seed)
    while not match.finished:
        match.next_hand()
        play_hand(match, specs_of_seat, seed)
    return 50.0 if match.winner is None else 100.0 if match.winner == team0 else 0.0


def _bid_alternatives(view: dict, action: object) -> list[tuple[str, object]]:
    """(what is tried, the bid) in place of ``action``: one either side, and nil for a
    number or the model's best number for a nil."""
    if action == "nil":
        known = knowledge.read(view)
        assert known.hand is not None
        return [("its best number for its nil", bidmodel.choose_bid(known.hand, known.situation(), allow_nil=False))]
    if not isinstance(action, int):
        return []
    out: list[tuple[str, object]] = [(f"{step:+d}", action + step) for step in (-1, 1) if 1 <= action + step <= 13]
    if "nil" in view["legal"] and view["bids"][view["seat"] ^ 2] not in ("nil", "blind_nil"):
        out.append(("nil for its number", "nil"))
    return out


def _score_group(view: dict) -> str:
    def band(points: int) -> str:
        return "under 300" if points < 300 else "300-399" if points < 400 else "400+"

    team = view["seat"] & 1
    return f"us {band(view['scores'][team])}, them {band(view['scores'][1 - team])}"


def one(job: tuple) -> list[tuple[str, str, float]]:
    """(kind, group, gain) for every deviation in one match."""
    specs, other, seed, swapped, to_end = job
    value = margin if to_end is None else outcome
    match = Match(Rules(), seed=seed)
    team_of_seat = [(s & 1) ^ (1 if swapped else 0) for s in range(4)]
    specs_of_seat = [specs[t] for t in team_of_seat]
    team0 = 1 if swapped else 0  # the score index of team 0's seats
    out = []
    for seat in match.turns():
        view = seat_view(match, seat)
        action = act(view, specs_of_seat[seat], seed)
        if team_of_seat[seat] == 0 and (to_end is None or max(match.scores) >= to_end):
            alternatives: list[tuple[str, str, object]] = []
            if match.phase == PLAYING:
                theirs = act(view, other, seed) if len(view["legal"]) > 1 else action
                if theirs != action:
                    alternatives.append(("cards", _card_group(view), theirs))
            elif match.phase == BIDDING:
                place = "first" if match.bids[seat ^ 2] is None else "second"
                score = "" if to_end is None else f", {_score_group(view)}"
                for tried, bid in _bid_alternatives(view, action):
                    alternatives.append(("bids", f"{place} of its team, {tried}{score}", bid))
            if alternatives:
                own = value(_copy_apply(match, seat, action), specs_of_seat, seed, team0)
                for kind, group, alt in alternatives:
                    gain = value(_copy_apply(match, seat, alt), specs_of_seat, seed, team0) - own
                    out.append((kind, group, gain))
        match.apply(seat, parse_action(action))
    return out


def _copy_apply(match: Match, seat: int, action: object) -> Match:
    m = copy.deepcopy(match)
    m.apply(seat, parse_action(action))
    return m


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(prog="python -m bench.deviations", description=__doc__.split("\n\n")[0])
    p.add_argument("--team0", default="normal", choices=BUILTIN)
    p.add_argument("--team1", default="punisher", choices=BUILTIN)
    p.add_argument("--other", choices=BUILTIN, help="whose card to try in team 0's place (default --team1)")
    p.add_argument("--matches", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--to-the-end", type=int, metavar="POINTS",
                   help="judge by the match's outcome, from a hand with a team at POINTS or more")
    a = p.parse_args(argv)
    specs = (a.team0, a.team1)
    jobs = [(specs, a.other or a.team1, a.seed + i // 2, bool(i % 2), a.to_the_end) for i in range(a.matches)]
    gains: dict[str, dict[str, list[float]]] = {"cards": defaultdict(list), "bids": defaultdict(list)}
    with ProcessPoolExecutor(max(1, a.jobs)) as pool:
        for rows in pool.map(one, jobs, chunksize=4):
            for kind, group, gain in rows:
                gains[kind][group].append(gain)
    summary: dict = {"matches": a.matches}
    for kind in ("cards", "bids"):
        tried = (a.other or a.team1) if kind == "cards" else "one off, or nil for a number and back"
        unit = "points of the hand" if a.to_the_end is None else "matches won in 100"
        print(f"{kind}: {tried} in {a.team0}'s place "
              f"against {a.team1}, gain a decision ({unit}) and per match")
        table = {}
        for group, g in sorted(gains[kind].items(), key=lambda kv: -abs(sum(kv[1]))):
            se = statistics.pstdev(g) / len(g) ** 0.5
            table[group] = {"n": len(g), "gain": round(statistics.fmean(g), 2), "se": round(se, 2)}
            print(f"  {group:44s} n={len(g):6d}  gain {statistics.fmean(g):7.2f} ± {se:5.2f}"
                  f"  per match {sum(g) / a.matches:6.2f}")
        summary[kind] = table
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
