"""Duplicate boards: a circle's week of deals that every table of the circle plays, each
at its own pace, compared as duplicate bridge compares them (docs/boards.md).

- **A week.** The owner picks N boards (4 to 12), the rules (partnership tables only:
  every table plays the same deal from the same seats) and when the week starts and ends
  (a week by default). The week's deals are committed when it is made, before it starts,
  with the site's provably fair deals (``spades.fairness``, docs/fairness.md): the week has
  a secret, made from its seed (``secret_from([seed])``, kept server-side); board k is
  hand k of that secret, so its server seed is ``hand_seed(secret, k)`` and its
  commitment, shown from the start, ``hand_commitment(secret, k)``. Board k's dealer is
  seat ``k mod 4``. Boards take no contributions: they are fixed before any table exists.
- **A table of boards.** ``start_board_table`` seats a table through the table service
  with the week's seed as its match seed: the service makes a seated table's deal secret
  from its seed, so the table's match secret is the week's and its hand k is board k. The
  week's seed is drawn so that the match's first dealer (which the seed draws) is board
  1's, seat 1; the deal passes left, so hand k's dealer is k mod 4 at every table, and
  every path that rebuilds a match from its rules, seed and moves (a restart, a replay, a
  record) deals the boards again. The table's options name the week (``boards``): such a
  table takes no contributions with Continue (``TableState.contributions``), and nobody
  watches it (watching is off, and it has no host to turn it on). Its match is N hands
  (``Rules(end="hands", hands=N)``; a tie after N hands plays on, and those extra hands
  are no boards).
- **Scoring.** A board's result at a table is each direction's points on that hand
  (side 0, seats 0 and 2, North-South; side 1, seats 1 and 3, East-West). It is compared
  with every other table that played the board, direction by direction: 2 matchpoints
  for each table beaten, 1 for each tie (``matchpoints``). A team (the people in those
  seats at that table) adds up its boards; a person, the boards they played (``tally``).
  Both are ``spades.duplicate``'s, shared with a tourney's duplicate rounds.
- **Secrecy.** Seat views show a seat its own hand of the board being played only (the
  table service's rule); a person plays a week's boards at one table (``seat_refusal``)
  and nobody watches one. Every record, replay and analysis of a table of boards stays
  shut until the week closes (``board_records_open``, ``table_records_open``): its end
  time passed or its owner closed it. Then ``reveal`` gives the week's secret and every
  board as a record that ``python -m spades verify`` checks.

Imports: stdlib, ``spades.storage``, ``spades.tables``, ``spades.duplicate`` and the core.
"""

from __future__ import annotations

import dataclasses
import secrets
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from ..bots import DEFAULT_LEVEL, TABLE_LEVELS
from ..duplicate import Standings, tally
from ..fairness import FairDeals, hand_commitment, secret_from
from ..records import record_format
from ..rules import Match
from ..rules_config import FRIENDS_TEMPOS, STANDARD_SHAPE, Rules, RulesError
from ..stats import replay
from ..storage import (
    AddBoardTable,
    BoardPlayed,
    BoardTable,
    BoardWeekRow,
    ClaimBoardSeats,
    Conflict,
    Duplicate,
    SeatRow,
    Store,
    TurnTablesFull,
)
from ..tables import TOO_MANY_TURN_TABLES, TableService
from ..tables.state import turn_limit

MIN_BOARDS, MAX_BOARDS = 4, 12
WEEK_S = 7 * 24 * 3600.0  # a week's length unless its owner says otherwise
MAX_WEEK_S = 31 * 24 * 3600.0


class BoardsError(ValueError):
    """A week or a table of boards that cannot be: ``str(error)`` says why in a sentence."""


class WeekBusy(BoardsError):
    """The circle has a week of boards open or about to start already."""


WEEK_BUSY = "A week of boards is open or about to start: close it before making another."


# -- the week's deals ---------------------------------------------------------------------
def board_dealer(board: int, players: int = STANDARD_SHAPE.players) -> int:
    """Board ``board``'s dealer, rotating as in duplicate: board k's is seat k mod the seats.

    >>> [board_dealer(k) for k in range(1, 6)]
    [1, 2, 3, 0, 1]
    """
    return board % players


def week_rules(rules: Rules, boards: int) -> Rules:
    """The rules every table of a week plays: the owner's, as a match of ``boards`` hands.
    Raises BoardsError for a count outside 4-12 or rules without partners.

    >>> week_rules(Rules(), 6).hands, week_rules(Rules(), 6).end
    (6, 'hands')
    >>> try:
    ...     week_rules(Rules(partners=False), 6)
    ... except BoardsError as e:
    ...     print(e)
    Duplicate boards are played at partnership tables: choose house rules with partners.
    """
    if not isinstance(boards, int) or isinstance(boards, bool) or not MIN_BOARDS <= boards <= MAX_BOARDS:
        raise BoardsError(f"A week has {MIN_BOARDS} to {MAX_BOARDS} boards.")
    if not rules.shape.partners:  # two sides of two (``Rules`` allows partners at four seats only)
        raise BoardsError("Duplicate boards are played at partnership tables: choose house rules with partners.")
    return dataclasses.replace(rules, end="hands", hands=boards)


def week_secret(seed: str) -> str:
    """The week's deal secret: what the table service makes a seated table's secret from
    the seed it is given (``TableService.create_seated``), so every table of the week has it."""
    return secret_from([seed])


def first_dealer(seed: str, rules: Rules) -> int:
    """The first dealer a match with this seed has (the seed draws it, ``spades.rules.Match``)."""
    return Match(rules, seed, deals=FairDeals(week_secret(seed), shape=rules.shape)).dealer


def draw_week_seed(draw: Callable[[], str], rules: Rules) -> str:
    """A week's seed from ``draw`` (the table service's seed source): the first whose
    match deals board 1 from board 1's dealer (one draw in four, on average)."""
    for n in range(1000):
        seed = f"boards/{draw()}/{n}"
        if first_dealer(seed, rules) == board_dealer(1):
            return seed
    raise RuntimeError("no week seed found")  # pragma: no cover - (3/4)^1000


@dataclass(frozen=True, slots=True)
class Board:
    """A board as anyone may see it from the start: its number, dealer and commitment."""

    number: int
    dealer: int
    commitment: str


def boards_of(week: BoardWeekRow) -> list[Board]:
    """The week's boards with their commitments (SHA-256 of each board's server seed)."""
    secret = week_secret(week.seed)
    return [Board(k, board_dealer(k), hand_commitment(secret, k)) for k in range(1, week.boards + 1)]


def week_state(week: BoardWeekRow, now: float | None = None) -> str:
    """``upcoming`` (before it starts), ``open`` (tables may start) or ``closed``."""
    now = time.time() if now is None else now
    if week.closed is not None or now >= week.ends:
        return "closed"
    return "upcoming" if now < week.starts else "open"


def board_records_open(week: BoardWeekRow, now: float | None = None) -> bool:
    """Whether the records, replays and analyses of the week's tables may be shown: only
    once the week is closed (its end passed, or its owner closed it)."""
    return week_state(week, now) == "closed"


def table_records_open(store: Store, code: str, now: float | None = None) -> bool:
    """Whether table ``code``'s records, replays and analyses may be shown as far as boards
    go: always for a table that plays no week of boards, else once its week is closed."""
    week_id = store.board_week_of_table(code)
    if week_id is None:
        return True
    week = store.board_week(week_id)
    return week is None or board_records_open(week, now)


def seat_refusal(store: Store, code: str, person: str, members: Collection[str] | None = None) -> str | None:
    """Why ``person`` may not take a seat at table ``code`` (a bot's, at a table of
    boards), or None for any other table: its seats are for the members of its circle
    (``members``, when given: the circle's members now), and each person plays a week's
    boards at one table only, whoever sits in their old seat since."""
    week_id = store.board_week_of_table(code)
    if week_id is None:
        return None
    if members is not None and person not in members:
        return NOT_A_MEMBER
    played = store.board_week_players(week_id).get(person)
    if played is not None and played != code:
        return "Everyone plays a week's boards once: you have played them at another table."
    return None


NOT_A_MEMBER = ("This table plays a circle's week of duplicate boards: its seats are for the circle's members. "
                "Ask a member for the circle's invite link, and sign in to join it.")


def reveal(week: BoardWeekRow, now: float | None = None) -> dict | None:
    """Once the week is closed: its secret and every board as a match record (RECORD.md,
    each hand's dealer, deal and ``fairness``) that ``python -m spades verify`` checks; None
    before. The deals are the table service's (``FairDeals``), without contributions."""
    if not board_records_open(week, now):
        return None
    rules = Rules.from_dict(week.rules)
    secret = week_secret(week.seed)
    deals = FairDeals(secret, shape=rules.shape)
    hands = [{"dealer": board_dealer(k), "deal": [[str(c) for c in cards] for cards in deals(k, board_dealer(k))],
              "bids": [], "plays": [], "fairness": deals.reveal(k)} for k in range(1, week.boards + 1)]
    return {"format": record_format(rules), "rules": rules.to_dict(), "hands": hands, "secret": secret}


# -- the week's life ------------------------------------------------------------------------
def new_week(store: Store, circle: str, by: str, boards: int, rules: Rules, starts: float,
             ends: float | None = None, draw: Callable[[], str] | None = None,
             now: float | None = None) -> BoardWeekRow:
    """Make a circle's week of boards, its deals committed now, before it starts (the
    caller checks that ``by`` may: the circle's owner). ``draw``: the seed source (the
    table service's ``new_seed``; random when None). One week at a time: a circle with a
    week open or to come gets none (checked in the week's own transaction, so two
    requests at once make one). Raises WeekBusy for that, BoardsError for the rest."""
    now = time.time() if now is None else now
    ends = starts + WEEK_S if ends is None else ends
    if starts < now - 60:
        raise BoardsError("A week of boards starts now or later: its deals are committed before it starts.")
    if not starts < ends <= starts + MAX_WEEK_S:
        raise BoardsError("A week of boards ends after it starts, within 31 days.")
    rules = week_rules(dataclasses.replace(rules, tempo="normal"), boards)
    seed = draw_week_seed(draw or (lambda: secrets.token_hex(16)), rules)
    for _ in range(20):
        row = BoardWeekRow(secrets.token_urlsafe(8), circle, boards, dataclasses.asdict(rules), seed, starts, ends,
                           None, now, by)
        try:
            store.new_board_week(row, now)
            return row
        except Duplicate:
            continue  # the id is taken: draw another
        except Conflict:
            raise WeekBusy(WEEK_BUSY) from None
    raise RuntimeError("no free week id")  # pragma: no cover


def close_week(store: Store, week_id: str, now: float | None = None) -> bool:
    """Close a week before its end (the caller checks that it is the owner's choice):
    every table's record opens and the secret is revealed. Whether it was open."""
    return store.close_board_week(week_id, now)


def start_board_table(service: TableService, week: BoardWeekRow, seats: list[SeatRow], *,
                      tempo: str = "normal", level: str = DEFAULT_LEVEL, options: dict | None = None,
                      now: float | None = None, members: Collection[str] | None = None,
                      by: str | None = None) -> str:
    """Open a table that plays the week's boards as its hands, live or turn-based
    (``tempo``), with people and bots in ``seats`` (one person with three bots, or a
    member with partner and opponents chosen from the circle); returns its code. Each
    person plays a week's boards once: someone who sat at another table of the week is
    refused, as is a person in two seats, someone not in ``members`` (the circle's
    members now, when given) and a week that has not started or is closed. ``by``: the
    person starting it (a refusal calls them "you"); everyone seated finds the table on
    their Rejoin list by their seat. ``options``: more of the table's options (the
    circle's). The table has no host: nobody may let watchers in (nobody watches a table
    of boards) nor deal before every person pressed Continue. Raises BoardsError, and the
    table service's BadAction for bad seats."""
    store = service.store
    now = service.now() if now is None else now
    state = week_state(week, now)
    if state != "open":
        raise BoardsError("This week of boards has not started yet." if state == "upcoming"
                          else "This week of boards is closed.")
    if tempo not in FRIENDS_TEMPOS:
        raise BoardsError(f"{tempo!r} is not a pace a table of friends may choose.")
    if level not in TABLE_LEVELS:
        raise BoardsError(f"{level!r} is not a level of the bots.")
    refusal = seating_refusal(store, week, seats, members, by)
    if refusal:
        raise BoardsError(refusal)
    people = [s.player_id for s in seats if s.kind == "human" and s.player_id]
    try:
        rules = Rules.from_dict({**week.rules, "tempo": tempo})
    except RulesError as e:  # pragma: no cover - the week's rules were checked when it was made
        raise BoardsError(str(e)) from None
    table_options = {**(options or {}), "kind": "friends", "level": level, "humans": len(people),
                     "rules": dataclasses.asdict(rules), "watch": False, "boards": week.id}
    try:
        # the people's claims on the week and the week's record of the table are stored
        # with the table, in one transaction: two tables started at once for one person
        # cannot both be made
        return service.create_seated(seats, rules, table_options, None, seed=week.seed, also=lambda code: [
            *(turn_limit(by, code, tempo) if by else []), ClaimBoardSeats(week.id, code, tuple(people), now),
            AddBoardTable(week.id, code, now)])
    except BoardPlayed as e:
        raise BoardsError(_played([s for s in seats if s.player_id in e.people], by)) from None
    except TurnTablesFull:
        raise BoardsError(TOO_MANY_TURN_TABLES) from None


def seating_refusal(store: Store, week: BoardWeekRow, seats: Sequence[SeatRow],
                    members: Collection[str] | None = None, by: str | None = None) -> str | None:
    """Why these people may not sit at a new table of the week, in a sentence naming
    them as seated, or None: a table needs a person; each person takes one seat, is in
    the circle now (``members``, when given) and has not played the week's boards.
    ``by``: the person asking (the sentence calls them "you")."""
    humans = [s for s in seats if s.kind == "human" and s.player_id]
    if not humans:
        return "A table of boards needs at least one person."
    seen: set[str | None] = set()
    for s in humans:
        if s.player_id in seen:
            return f"{s.name or 'Someone'} is chosen for two seats: each person takes one seat."
        seen.add(s.player_id)
    if members is not None:
        out = [s for s in humans if s.player_id not in members]
        if out:
            return f"{out[0].name or 'Someone'} is not in the circle now: choose members of the circle."
    played = store.board_week_players(week.id)
    done = [s for s in humans if s.player_id in played]
    return _played(done, by) if done else None


def _played(done: Sequence[SeatRow], by: str | None) -> str:
    """The refusal of a table whose people ``done`` played the week already."""
    if by is not None and any(s.player_id == by for s in done):
        return "Everyone plays a week's boards once: you have played them already."
    names = " and ".join(s.name or "Someone" for s in done)
    return f"Everyone plays a week's boards once: {names} {'has' if len(done) == 1 else 'have'} played them already."


# -- reading a week's tables -------------------------------------------------------------------
_SCORES: dict[tuple[str, int, int], dict[int, tuple[int, int]]] = {}  # (database, match, version): points
_SCORES_KEPT = 4096


def table_scores(store: Store, table: BoardTable, boards: int) -> dict[int, tuple[int, int]]:
    """A table's points on each board it has finished: hand k's points per direction,
    from its first match rebuilt from the stored moves (the hands after the boards, a
    tie's extra hands, are left out). Kept in memory by the match's version, so a page
    replays only the tables that moved since it was last drawn."""
    key = (store.path, table.match_id, table.version)
    kept = _SCORES.get(key)
    if kept is not None:
        return kept
    rules = Rules.from_dict(table.rules)
    deals = FairDeals.stored(store.fair_deals(table.code, table.number), rules.shape)
    match = replay(table.rules, table.seed, ((seat, text) for _, seat, text in store.actions(table.match_id)), deals)
    scores = {r.number: (r.score.teams[0].total, r.score.teams[1].total) for r in match.results if r.number <= boards}
    if len(_SCORES) >= _SCORES_KEPT:
        _SCORES.clear()
    _SCORES[key] = scores
    return scores


def seated_at(table: BoardTable) -> list[list[tuple[str, str]]]:
    """Who sat in each direction at a table: each seat's person, or the person who left
    it to a bot (their team's boards stay theirs); bots' seats count for nobody."""
    sides: list[list[tuple[str, str]]] = [[], []]
    for s in table.seats:
        person = s.player_id or s.left_player_id
        if person:
            sides[s.seat % 2].append((person, s.name))
    return sides


def week_standings(store: Store, week_id: str) -> Standings | None:
    """A week's standings from its tables as stored, finished or not (each table counts the
    boards it has finished); None for an unknown week. Members removed since keep theirs:
    the standings read the tables, not the circle."""
    week = store.board_week(week_id)
    if week is None:
        return None
    tables = store.board_tables(week_id)
    scores = {t.code: table_scores(store, t, week.boards) for t in tables}
    seated = {t.code: seated_at(t) for t in tables}
    return tally(scores, seated)
