"""The tourney engine: knockout brackets, Swiss pairings and standings, solos and seeding.

Pure logic with no I/O: the site stores what these functions return (their ``to_json``
forms) and calls them again with the results. Modules: ``model`` (teams, results,
pairings, rounds, ranks and their JSON), ``knockout``, ``swiss``, ``seeding``.

``service`` (tourneys kept in the database, played at the table service's tables) and
``simulate`` (the ``python -m spades tourney simulate`` command) sit above the engine;
their public names are exported lazily (``from spades.tourney import TourneyService``
loads them on first use), so importing the engine loads nothing else.

Imports: stdlib only (no Flask, no storage, no table service) until a service name is used.
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

_SERVICE_NAMES = (
    "TourneyService", "TourneyView", "TeamView", "PersonView", "MatchView", "TableView", "RoundView",
    "RankView", "StandingView", "WalkoverView", "Listing", "TourneySummaryView", "TourneyNotFound",
    "NotDirector", "RegistrationClosed", "TourneyFull", "AlreadyRegistered", "BadTeamLink",
    "NothingToReady", "BadEntry", "TourneyOver", "page_channel", "channel_tourney",
)


def __getattr__(name: str) -> object:
    """The service's names, imported on first use (it loads storage and the table service)."""
    if name in _SERVICE_NAMES:
        from . import service

        return getattr(service, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Bracket", "bracket_order", "knockout_bracket", "knockout_ranks", "ready_matches",
    "record_result", "target_for", "FINAL_TARGET", "TARGET", "Pairing", "Rank", "Result",
    "Round", "Team", "TeamId", "TourneyError", "rank_label", "ranks_json", "round_from_json",
    "rounds_json", "BOT", "pair_solos", "seed_teams", "team_rating", "Standing",
    "record_swiss_result", "swiss_pairings", "swiss_standings", "swiss_target", *_SERVICE_NAMES,
]
