"""The tourney engine: knockout brackets, Swiss pairings and standings, solos and seeding.

Pure logic with no I/O: the site stores what these functions return (their ``to_json``
forms) and calls them again with the results. Modules: ``model`` (teams, results,
pairings, rounds, ranks and their JSON), ``knockout``, ``swiss``, ``seeding``.

Imports: stdlib only (no Flask, no storage, no table service).
"""

from .knockout import (
    Bracket,
    bracket_order,
    knockout_bracket,
    knockout_ranks,
    ready_matches,
    record_result,
    target_for,
)
from .model import (
    FINAL_TARGET,
    TARGET,
    Pairing,
    Rank,
    Result,
    Round,
    Team,
    TeamId,
    TourneyError,
    rank_label,
    ranks_json,
    round_from_json,
    rounds_json,
)
from .seeding import BOT, pair_solos, seed_teams, team_rating
from .swiss import Standing, record_swiss_result, swiss_pairings, swiss_standings, swiss_target

__all__ = [
    "Bracket", "bracket_order", "knockout_bracket", "knockout_ranks", "ready_matches",
    "record_result", "target_for", "FINAL_TARGET", "TARGET", "Pairing", "Rank", "Result",
    "Round", "Team", "TeamId", "TourneyError", "rank_label", "ranks_json", "round_from_json",
    "rounds_json", "BOT", "pair_solos", "seed_teams", "team_rating", "Standing",
    "record_swiss_result", "swiss_pairings", "swiss_standings", "swiss_target",
]
