"""A tourney on duplicate deals: the director's option when making it (``duplicate``).

- **The same hands at every table of a round.** Every pairing of a round takes the
  round's seed (``round_seed``) as its match seed, and the table service makes a seated
  table's deal secret from its seed, so hand k is the same deal, from the same dealer, at
  every table of the round, the bot teams' pairings the engine plays out included
  (``round_deals``). Team A sits North-South (seats 0 and 2) and team B East-West, as at
  every tourney table, so the first seed of a pairing holds the North-South cards.
- **Secrecy.** The round's tables take no contributions with Continue (their hands are the
  round's, the table service's rule for options ``duplicate``), nobody watches them (the
  host cannot turn watching on), and their records, replays and analyses stay shut until
  every pairing of the round has its result (``records_open``): a team that finished
  first would otherwise read hands still to be played at another table.
- **The comparison.** Once a round is over, its teams are compared as duplicate
  (``spades.duplicate``): each hand a table played is compared with every other table of
  the round that played it, from the same direction; 2 matchpoints for each table beaten,
  1 for a tie, summed per team (``compare``). Matches to 300 or 500 last different numbers
  of hands, so a hand counts only among the tables that played it; a walkover plays none.

Decided where the rules are silent: the matchpoints are shown beside the round, and who
goes through is still decided as in any tourney (the match's winner in a knockout, the
Swiss standings): duplicate deals take the luck of the cards out of the comparison
between tables, they do not change the format.

Imports: stdlib, ``spades.duplicate``, ``spades.fairness``, ``spades.storage``, ``state``
and the rules core. Never Flask.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..duplicate import DIRECTIONS, share, tally
from ..fairness import FairDeals, secret_from
from ..rules import Match
from ..rules_config import Rules
from ..storage import Store
from .model import Pairing
from .state import Tourney, load

__all__ = ["Compared", "compare", "hand_points", "records_open", "round_deals", "round_over", "round_records_open",
           "round_seed", "watchable"]


def round_seed(tourney_seed: str, round_number: int) -> str:
    """The seed of every pairing of round ``round_number``: reproducible from the
    tourney's seed, which it does not reveal."""
    return hashlib.sha256(f"{tourney_seed}/{round_number}/duplicate".encode()).hexdigest()[:16]


def round_deals(rules: Rules, seed: str) -> FairDeals:
    """The deals of a match with this seed, as the table service deals a seated table's
    (its secret made from the seed alone, no contributions)."""
    return FairDeals(secret_from([seed]), shape=rules.shape)


def round_over(t: Tourney, number: int) -> bool:
    """Whether every pairing of round ``number`` has its result (opponents not known yet
    in a knockout's round are pairings still to play)."""
    pairings = [p for p in t.pairings() if p.round == number]
    return bool(pairings) and all(p.result is not None for p in pairings)


def round_records_open(t: Tourney, number: int) -> bool:
    """Whether the records, replays and analyses of round ``number``'s tables may be shown:
    always, but in a duplicate tourney only once the round is over."""
    return not t.row.duplicate or round_over(t, number)


def watchable(t: Tourney) -> bool:
    """Whether people without a seat may watch the tourney's tables: never on duplicate
    deals, where a watcher could tell another table the hands it is about to play."""
    return not t.row.duplicate


def records_open(store: Store, table_code: str) -> bool:
    """Whether table ``table_code``'s records, replays and analyses may be shown as far as
    a tourney goes: always, but for a table of a duplicate tourney's round still under way."""
    found = store.tourney_round_of_table(table_code)
    if found is None:
        return True
    t = load(store, found[0])
    return t is None or round_records_open(t, found[1])


def hand_points(match: Match) -> dict[int, tuple[int, int]]:
    """Each finished hand's points per direction: (North-South, East-West)."""
    return {r.number: (r.score.teams[0].total, r.score.teams[1].total) for r in match.results}


@dataclass(frozen=True, slots=True)
class Compared:
    """A team's round on duplicate deals: its direction, the hands it played, its
    matchpoints and the most those hands could give (``top``)."""

    team: int
    direction: str
    hands: int
    matchpoints: int
    top: int

    @property
    def percent(self) -> float:
        return share(self.matchpoints, self.top)


Points = Callable[[Pairing], Mapping[int, tuple[int, int]]]  # a played pairing's points, hand by hand


def compare(t: Tourney, number: int, points: Points) -> tuple[Compared, ...]:
    """Round ``number``'s teams compared as duplicate, the most matchpoints first; () when
    the round is not over or fewer than two of its pairings were played. ``points``: a
    played pairing's ``hand_points``."""
    if not round_over(t, number):
        return ()
    played = [p for p in t.pairings() if p.round == number and p.result is not None and p.result.hands]
    if len(played) < 2:
        return ()
    scores = {str(p.slot): points(p) for p in played}
    seated = {str(p.slot): [[(str(p.teams[0]), "")], [(str(p.teams[1]), "")]] for p in played}
    return tuple(Compared(int(s.people[0]), DIRECTIONS[s.side], s.boards, s.matchpoints, s.top)
                 for s in tally(scores, seated).teams)
