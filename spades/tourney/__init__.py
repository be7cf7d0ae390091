"""The tourney engine: knockout brackets, Swiss pairings and standings, solos and seeding.

Pure logic with no I/O: the site stores what these functions return (their ``to_json``
forms) and calls them again with the results. Modules: ``model`` (teams, results,
pairings, rounds, ranks and their JSON), ``knockout``, ``swiss``, ``seeding``.

Above the engine sit the service (tourneys kept in the database, played at the table
service's tables): ``errors`` (its refusals, stdlib only, exported here), ``state``,
``views``, ``commands``, ``transitions``, ``worker`` and the facade ``service``; and
``simulate`` (the ``python -m spades tourney simulate`` command). The service's public
names are exported lazily (``from spades.tourney import TourneyService`` loads it on
first use), so importing the engine loads nothing else.

Imports: stdlib only (no Flask, no storage, no table service) until a service name is used.
"""

from importlib import import_module

from .errors import (
    AlreadyRegistered,
    BadEntry,
    BadTeamLink,
    NotDirector,
    NothingToReady,
    RegistrationClosed,
    TourneyFull,
    TourneyNotFound,
    TourneyOver,
)
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

# each lazily exported name and the module it lives in
_LAZY = {
    "TourneyService": "service",
    **dict.fromkeys(("TourneyView", "TeamView", "PersonView", "MatchView", "TableView", "RoundView", "RankView",
                     "StandingView", "WalkoverView", "Listing", "TourneySummaryView", "page_channel",
                     "channel_tourney"), "views"),
}


def __getattr__(name: str) -> object:
    """The service's names, imported on first use (they load storage and the table service)."""
    module = _LAZY.get(name)
    if module is not None:
        return getattr(import_module(f"{__name__}.{module}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Bracket", "bracket_order", "knockout_bracket", "knockout_ranks", "ready_matches",
    "record_result", "target_for", "FINAL_TARGET", "TARGET", "Pairing", "Rank", "Result",
    "Round", "Team", "TeamId", "TourneyError", "rank_label", "ranks_json", "round_from_json",
    "rounds_json", "BOT", "pair_solos", "seed_teams", "team_rating", "Standing",
    "record_swiss_result", "swiss_pairings", "swiss_standings", "swiss_target",
    "TourneyNotFound", "NotDirector", "RegistrationClosed", "TourneyFull", "AlreadyRegistered", "BadTeamLink",
    "NothingToReady", "BadEntry", "TourneyOver", *_LAZY,
]
