"""A circle's duplicate boards as services (``spades.circles.boards``): the block on the
circle's page and a week's own page as frozen view models, the owner's week and early
close, a member's table of the week and the reveal, each a view model or a ``Refusal``
the route of ``spades.web.circles.boards`` turns into its answer; and ``join_refusal``,
the seats' check the rest of the site asks.

Imports: ``spades.circles``, ``spades.duplicate``, ``spades.rules_config``,
``spades.storage``, ``spades.tables`` and the web layer's circles' services, options and
services (no blueprint).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from ...circles import CircleError
from ...circles.boards import (
    MAX_BOARDS,
    MIN_BOARDS,
    WEEK_BUSY,
    BoardsError,
    WeekBusy,
    boards_of,
    close_week,
    new_week,
    reveal,
    seat_refusal,
    start_board_table,
    week_standings,
    week_state,
)
from ...duplicate import DIRECTIONS, PersonStanding
from ...rules_config import FRIENDS_TEMPOS, PRESETS, TURN_BASED, preset_rules
from ...storage import BoardTable, BoardWeekRow, CircleMemberRow, CircleRow, SeatRow
from ...tables import BOT_EMOJI, PRACTICE_BOTS, TOO_MANY_TURN_TABLES, BadAction, Refused
from ..rooms.options import OPTION
from ..site.services import service
from .services import Refusal, circles, handle, owner_refusal

NO_SUCH_WEEK = "This circle has no such week of boards."
NOT_REVEALED = "The week's boards and their secret are revealed when the week closes."
PRESETS_WITH_PARTNERS = tuple(k for k in ("standard", "jj", "jjdd") if k in PRESETS)
DAYS = 7  # a week's length unless the owner says otherwise
EARLIER = 12  # earlier weeks listed on the boards' block
SEATS_CHOSEN = {2: "partner", 1: "left", 3: "right"}  # the form's field of each seat a member may fill


# -- duplicate boards: seats for the rest of the site ----------------------------------------------
def join_refusal(code: str, person: str | None) -> str | None:
    """Why ``person`` may not take a seat at table ``code``, or None: a table of boards
    seats the members of its circle now (anyone else, a browser signed out included, is
    refused), and each of them once a week (``seat_refusal``)."""
    store = service().store
    code = code.upper()
    week_id = store.board_week_of_table(code)
    week = store.board_week(week_id) if week_id is not None else None
    if week is None:
        return None
    members = {m.person for m in circles().members(week.circle) if m.state == "in"}
    return seat_refusal(store, code, person or "", members)


# -- duplicate boards: what the block shows --------------------------------------------------------
@dataclass(frozen=True)
class BoardTableLine:
    """A table of the week: ``back``, the member's own while the week is open;
    ``joinable``, a seat someone left that this member may take."""

    code: str
    sides: tuple[str, str]
    done: int
    finished: bool
    turn_based: bool
    tempo: str
    mine: bool
    joinable: bool
    back: bool


@dataclass(frozen=True)
class BoardRow:
    """One table's points and matchpoints on one board."""

    table: str
    ns: str
    ew: str
    points: tuple[int, int]
    mp: tuple[int, int]
    mine: bool


@dataclass(frozen=True)
class BoardLine:
    """A board of the week: ``shown``, its results may be seen by this member; ``hidden``,
    it has results this member may not see yet."""

    number: int
    dealer: str
    seat: int
    commitment: str
    played: int
    shown: bool
    hidden: bool
    rows: tuple[BoardRow, ...]
    top: int


@dataclass(frozen=True)
class TeamLine:
    names: str
    direction: str
    boards: int
    matchpoints: int
    top: int
    percent: float


@dataclass(frozen=True)
class WeekView:
    """One week as a member sees it: ``may_start`` (the form for a table of the week),
    ``back`` (a link to their table), ``may_close`` (the owner's early close)."""

    id: str
    slug: str
    state: str
    boards: tuple[BoardLine, ...]
    count: int
    starts: str
    ends: str
    early: bool
    rules: str
    tables: tuple[BoardTableLine, ...]
    mine: str | None
    teams: tuple[TeamLine, ...]
    people: tuple[PersonStanding, ...]
    closed: bool
    may_start: bool
    played_elsewhere: bool
    back: bool
    may_close: bool
    choices: tuple[tuple[str, str], ...]
    reveal: str | None


@dataclass(frozen=True)
class EarlierWeek:
    id: str
    starts: str
    count: int


@dataclass(frozen=True)
class WeekForm:
    """The owner's form for a new week, filled with the usual values."""

    boards: int
    preset: str
    days: int
    min: int
    max: int
    presets: tuple[tuple[str, str], ...]
    starts_at: str


@dataclass(frozen=True)
class BoardsView:
    """The boards' block: the week shown (or None), earlier weeks, the owner's form (None:
    not theirs, or a week is open or to come), the paces a table of the week may have."""

    slug: str
    owner: bool
    week: WeekView | None
    earlier: tuple[EarlierWeek, ...]
    form: WeekForm | None
    tempos: tuple[tuple[str, str], ...]
    standalone: bool


def when(ts: float) -> str:
    """A moment as the boards' block says it: ``Mon 14 Dec 2026, 20:00 UTC``."""
    return datetime.fromtimestamp(ts, UTC).strftime("%a %-d %b %Y, %H:%M UTC")


def _tempo_words() -> dict[str, str]:
    """Each pace a table of friends may choose, as the options form says it."""
    return {c.value: c.label for c in OPTION["tempo"].choices}


def _tempos() -> tuple[tuple[str, str], ...]:
    words = _tempo_words()
    return tuple((v, words.get(v, v)) for v in FRIENDS_TEMPOS)


def _sides(table: BoardTable) -> tuple[str, str]:
    """The names in each direction's seats at a table (bots too), North-South first. A
    direction of bots only is named with the people it played against, so that the bots'
    teams of several tables are told apart: "Rex & Kit (bots, against Ann & Bea)"."""
    names = [" & ".join(s.name or "Someone" for s in table.seats if s.seat % 2 == side) for side in (0, 1)]
    people = [any(s.player_id or s.left_player_id for s in table.seats if s.seat % 2 == side) for side in (0, 1)]
    ns, ew = (names[side] if people[side] or not people[1 - side]
              else f"{names[side]} (bots, against {names[1 - side]})" for side in (0, 1))
    return ns, ew


def _sat_at(table: BoardTable, person: str) -> bool:
    return any(person in (s.player_id, s.left_player_id) for s in table.seats)


def _shown_week(slug: str) -> BoardWeekRow | None:
    """The week the circle's page shows: the one open now, else the next to start, else
    the latest closed."""
    now = service().now()
    weeks = service().store.board_weeks(slug)
    states = [(w, week_state(w, now)) for w in weeks]
    for state in ("open", "upcoming"):
        found = [w for w, s in states if s == state]
        if found:
            return min(found, key=lambda w: w.starts)
    return weeks[0] if weeks else None


def _preset_of(rules: dict) -> str:
    """The partnership preset a week's rules are (``standard`` when no other matches)."""
    for name in ("jjdd", "jj"):
        if name in PRESETS and all(rules.get(k) == v for k, v in PRESETS[name][1].items()):
            return name
    return "standard"


def _choices(slug: str, uid: str, sat: set[str]) -> tuple[tuple[str, str], ...]:
    """The members this member may seat at their table of the week, as (handle, name):
    those in the circle now who have not played the week's boards, by name."""
    members = [m for m in circles().members(slug) if m.state == "in" and m.person != uid and m.person not in sat]
    return tuple(sorted(((handle(m.person), m.name or "Someone") for m in members), key=lambda c: c[1].lower()))


def week_view(row: CircleRow, week: BoardWeekRow, uid: str) -> WeekView:
    """Everything the block shows of one week to member ``uid``. A board's points at every
    table show only to someone who played it, or to everyone once the week is closed."""
    store, now = service().store, service().now()
    slug = row.slug
    state = week_state(week, now)
    tables = store.board_tables(week.id)
    standings = week_standings(store, week.id)
    assert standings is not None
    words = _tempo_words()
    mine = next((t.code for t in tables if _sat_at(t, uid)), None)
    sat = set(store.board_week_players(week.id)) if state == "open" else set()
    closed = state == "closed"
    fresh = state == "open" and mine is None and uid not in sat  # this member may still play the week
    played = standings.played.get(uid, frozenset())
    listed = []
    for t in tables:
        tempo = t.rules.get("tempo", "normal")
        done = len(standings.scores.get(t.code, {}))
        free = any(s.player_id is None and s.left_player_id for s in t.seats)  # a seat someone left
        listed.append(BoardTableLine(
            code=t.code, sides=_sides(t), done=min(done, week.boards), finished=t.finished,
            turn_based=tempo in TURN_BASED, tempo=words.get(tempo, tempo), mine=t.code == mine,
            joinable=fresh and free and not t.finished, back=t.code == mine and not closed))
    labels = {t.code: _sides(t) for t in tables}
    by_board = []
    for b in boards_of(week):
        rows = tuple(BoardRow(table=code, ns=labels.get(code, ("", ""))[0], ew=labels.get(code, ("", ""))[1],
                              points=scores[b.number], mp=standings.points[code][b.number], mine=code == mine)
                     for code, scores in standings.scores.items() if b.number in scores)
        shown = closed or b.number in played
        by_board.append(BoardLine(number=b.number, dealer=DIRECTIONS[b.dealer % 2], seat=b.dealer,
                                  commitment=b.commitment, played=len(rows), shown=shown,
                                  hidden=bool(rows) and not shown, rows=rows if shown else (),
                                  top=2 * max(len(rows) - 1, 0)))
    return WeekView(
        id=week.id, slug=slug, state=state, boards=tuple(by_board), count=week.boards,
        starts=when(week.starts), ends=when(week.closed if week.closed is not None else week.ends),
        early=week.closed is not None and week.closed < week.ends,
        rules=PRESETS.get(_preset_of(week.rules), ("Standard", {}))[0],
        tables=tuple(listed), mine=mine,
        teams=tuple(TeamLine(names=labels.get(t.table, ("", ""))[t.side], direction=("N-S", "E-W")[t.side],
                             boards=t.boards, matchpoints=t.matchpoints, top=t.top, percent=t.percent)
                    for t in standings.teams if t.boards),
        people=tuple(standings.people), closed=closed, may_start=fresh,
        played_elsewhere=state == "open" and mine is None and uid in sat,
        back=mine is not None and not closed, may_close=row.owner == uid and not closed,
        choices=_choices(slug, uid, sat) if fresh else (),
        reveal=f"/c/{slug}/boards/{week.id}/reveal.json" if closed else None,
    )


def _week_form() -> WeekForm:
    return WeekForm(boards=8, preset="standard", days=DAYS, min=MIN_BOARDS, max=MAX_BOARDS,
                    presets=tuple((k, PRESETS[k][0]) for k in PRESETS_WITH_PARTNERS),
                    starts_at=datetime.fromtimestamp(service().now() + 3600, UTC).strftime("%Y-%m-%dT%H:00"))


def boards_view(row: CircleRow, uid: str) -> BoardsView:
    """The circle page's boards: the week shown (or None), the earlier weeks, the owner's
    week form and the paces a table of the week may have."""
    now = service().now()
    owner = row.owner == uid
    week = _shown_week(row.slug)
    earlier = tuple(EarlierWeek(w.id, when(w.starts), w.boards) for w in service().store.board_weeks(row.slug)
                    if week_state(w, now) == "closed" and (week is None or w.id != week.id))
    busy = week is not None and week_state(week, now) != "closed"
    return BoardsView(slug=row.slug, owner=owner, week=week_view(row, week, uid) if week is not None else None,
                      earlier=earlier[:EARLIER], form=_week_form() if owner and not busy else None,
                      tempos=_tempos(), standalone=False)


def week_of(slug: str, week_id: str) -> BoardWeekRow | Refusal:
    """The circle's week ``week_id``; a 404 for any other (the person is a member already)."""
    week = service().store.board_week(week_id[:40])
    if week is None or week.circle != slug:
        return Refusal(404, NO_SUCH_WEEK)
    return week


def week_page(row: CircleRow, week_id: str, uid: str) -> BoardsView | Refusal:
    """One week's page: its block alone."""
    week = week_of(row.slug, week_id)
    if isinstance(week, Refusal):
        return week
    return BoardsView(slug=row.slug, owner=row.owner == uid, week=week_view(row, week, uid), earlier=(),
                      form=None, tempos=_tempos(), standalone=True)


# -- duplicate boards: the owner's controls and a member's table -------------------------------------
@dataclass(frozen=True)
class WeekAsked:
    """The owner's week form as sent (each field cut to a sensible length)."""

    boards: str
    days: str
    preset: str
    start: str
    starts_at: str


@dataclass(frozen=True)
class WeekMade:
    """A new week and the sentence that says so."""

    week: BoardWeekRow
    said: str


def _whole(text: str, low: int, high: int, what: str) -> int | Refusal:
    if not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:
        return Refusal(400, f"Choose {what} from {low} to {high}.")
    return int(text)


def make_week(row: CircleRow, uid: str, asked: WeekAsked) -> WeekMade | Refusal:
    """A new week of boards by the owner: 403 to other members, 409 while a week is open or
    to come, 400 for a form out of bounds."""
    refused = owner_refusal(row, uid)
    if refused is not None:
        return refused
    store, now = service().store, service().now()
    if any(week_state(w, now) != "closed" for w in store.board_weeks(row.slug)):
        return Refusal(409, WEEK_BUSY)
    count = _whole(asked.boards, MIN_BOARDS, MAX_BOARDS, "the number of boards")
    if isinstance(count, Refusal):
        return count
    days = _whole(asked.days or str(DAYS), 1, 31, "the week's length in days")
    if isinstance(days, Refusal):
        return days
    if asked.preset not in PRESETS_WITH_PARTNERS:
        return Refusal(400, "Duplicate boards are played at partnership tables: choose house rules with partners.")
    starts = now
    if asked.start == "later":
        try:
            starts = datetime.strptime(asked.starts_at, "%Y-%m-%dT%H:%M").replace(tzinfo=UTC).timestamp()
        except ValueError:
            return Refusal(400, "Give the start as a day and a time (UTC), like 2026-12-14T20:00.")
    try:
        week = new_week(store, row.slug, uid, count, preset_rules(asked.preset), starts, starts + days * 86400.0,
                        draw=service().new_seed, now=now)
    except WeekBusy as e:  # another request made one a moment ago
        return Refusal(409, str(e))
    except BoardsError as e:
        return Refusal(400, str(e))
    if (told := circles().news) is not None:  # open now: the circle's channel is told
        told.weeks_seen(row.slug, now)
    return WeekMade(week, f"A week of {week.boards} boards: its deals are committed"
                          f"{' and it is open now' if week.starts <= now else ', it opens ' + when(week.starts)}.")


def close_early(row: CircleRow, uid: str, week_id: str) -> bool | Refusal:
    """The owner closes a week now: True when it closed (False: it was closed already)."""
    refused = owner_refusal(row, uid)
    if refused is not None:
        return refused
    week = week_of(row.slug, week_id)
    if isinstance(week, Refusal):
        return week
    closed = close_week(service().store, week.id, service().now())
    if (told := circles().news) is not None:  # its winners to the circle's channel
        told.weeks_seen(row.slug)
    return closed


def revealed(slug: str, week_id: str) -> tuple[BoardWeekRow, dict] | Refusal:
    """A closed week's secret and boards as a record (403 before it closes)."""
    week = week_of(slug, week_id)
    if isinstance(week, Refusal):
        return week
    shown = reveal(week, service().now())
    if shown is None:
        return Refusal(403, NOT_REVEALED)
    return week, shown


@dataclass(frozen=True)
class TableAsked:
    """A member's form for a table of the week: the pace and the handles chosen by field
    (``partner``, ``left``, ``right``; empty: a bot)."""

    tempo: str
    chosen: Mapping[str, str]


@dataclass(frozen=True)
class BoardTableStarted:
    """A table of the week: its code, the members seated with the starter, the words of
    their notice."""

    code: str
    invited: tuple[str, ...]
    title: str
    body: str


def _chosen(slug: str, uid: str, asked: TableAsked) -> dict[int, tuple[str, str, str]] | Refusal:
    """The members the form seats with this member, by seat: (person, name, emoji), each
    named by the circles' handle (never an id); an empty choice is a bot. A handle of no
    member now: 400; someone chosen twice (or the member themselves): 400; someone who
    blocked this member, or whom they blocked: 409."""
    members = {handle(m.person): m for m in circles().members(slug) if m.state == "in"}
    chosen: dict[int, tuple[str, str, str]] = {}
    for seat, name in SEATS_CHOSEN.items():
        picked = asked.chosen.get(name, "")
        if not picked:
            continue
        m = members.get(picked)
        if m is None:
            return Refusal(400, "That person is not in the circle now. Reload the page and choose again.")
        if m.person == uid or m.person in (p for p, _, _ in chosen.values()):
            return Refusal(400, f"{m.name or 'Someone'} is chosen for two seats: each person takes one seat.")
        if service().store.blocks_between([uid, m.person]):  # as a blocked person cannot join the blocker's room
            return Refusal(409, f"{m.name or 'Someone'} cannot be seated at your table. Choose someone else.")
        known, emoji = service().known_player(m.person)
        chosen[seat] = (m.person, known or m.name or "Someone", emoji or m.emoji)
    return chosen


def start_week_table(row: CircleRow, me: CircleMemberRow, uid: str, week_id: str, asked: TableAsked,
                     making: Callable[[], Refusal | None]) -> BoardTableStarted | Refusal:
    """A table of the week for this member (seat 0), the members chosen in their seats and
    bots in the rest, linked to the circle: 404 for a week not the circle's, 400 for a
    form that is not one, 409 past the turn-based tables' limit or for someone who played
    the week elsewhere. ``making``: counts one table against the site's limit on tables
    made once the form passed (its refusal, or None)."""
    week = week_of(row.slug, week_id)
    if isinstance(week, Refusal):
        return week
    if asked.tempo not in FRIENDS_TEMPOS:
        return Refusal(400, "Choose a pace for the table: live or turn-based.")
    chosen = _chosen(row.slug, uid, asked)
    if isinstance(chosen, Refusal):
        return chosen
    if asked.tempo in TURN_BASED and service().at_turn_limit(uid):
        return Refusal(409, TOO_MANY_TURN_TABLES)
    limited = making()
    if limited is not None:
        return limited
    name, emoji = service().known_player(uid)
    seats = [SeatRow(0, "human", uid, name or me.name or "Someone", emoji or me.emoji)] + [
        SeatRow(s, "human", *chosen[s]) if s in chosen else SeatRow(s, "bot", None, PRACTICE_BOTS[s], BOT_EMOJI)
        for s in (1, 2, 3)]
    season = circles().current_season(row.slug).number
    members = {m.person for m in circles().members(row.slug) if m.state == "in"}
    try:
        code = start_board_table(service(), week, seats, tempo=asked.tempo,
                                 options={"circle": row.slug, "season": season},
                                 now=service().now(), members=members, by=uid)
    except BoardsError as e:
        return Refusal(409, str(e))
    except (BadAction, Refused) as e:
        return Refusal(400, str(e))
    try:
        circles().link_table(row.slug, code, uid)
    except CircleError as e:  # pragma: no cover - the member was checked a moment ago
        return Refusal(e.status, str(e))
    return BoardTableStarted(code, tuple(person for person, _, _ in chosen.values()), f"Boards in {row.name}",
                             f"{seats[0].name} seated you at a table of this week's boards: play it.")
