"""A finished match told again: the replay (``/g/<CODE>/replay``) and the score sheet
(``/g/<CODE>/record``).

The replay steps through a finished match face up, hand by hand and trick by trick, from
its record (RECORD.md, as ``/g/<CODE>/record.json`` serves it) and the table's seat names;
``spades.replays`` makes each step. Every step has its own address,
``?hand=3&trick=5`` (hands from 1; ``trick=0`` is after the bids, ``trick=end`` the hand's
result), drawn by the server with plain links (htmx boosts them; ``static/replay.js`` makes
the Left and Right arrow keys follow Previous and Next). Card by card too: ``&card=2`` is
that step with two cards of the next trick on the table (1 to 3; the fourth card is the
next trick's step), with its own Previous card and Next card links (Shift and the arrow
keys).

Which match: the table's latest finished one, or ``?match=N``. Earlier matches of a table
(before a rematch) are rebuilt from their stored moves (``Store.finished_match``), named
as they were seated when they finished; like the current one once it is over, they are
open to everybody.

Refusals: an unknown code 404 (counted against the join limit, like the table page); the
replay of a match still being played 403, with nothing of it shown (its cards are secret
until it ends); a ``hand``, ``trick`` or ``match`` that is not a number, or one the match
does not have, 400 with the steps it has (never clamped: a link that names a step shows
that step or says it does not exist). The score sheet of a running match shows the
hands finished so far, which every seat has seen. A match with takebacks (undo at a
practice table) says so on both pages, as its record does (``"takebacks"``).

Imports: Flask, ``spades.tables``, ``spades.storage`` (reads), ``spades.stats`` and the core.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from flask import Blueprint, Flask, abort, render_template, request, url_for

from ... import replays
from ...cards import Card
from ...fairness import FairDeals
from ...records import TAKEBACKS, to_record
from ...rules_config import STANDARD_SHAPE, Rules, Shape, record_rules
from ...stats import replay as rebuild
from ...tables import NO_TABLE, Snapshot, TableNotFound
from ...views import result_json
from ..rooms.codes import normalize_code, unknown_codes_limit
from ..site.identity import player_id
from ..site.services import service
from .secrecy import records_shut

bp = Blueprint("replay", __name__)

RUNNING = "This match is still being played. Its replay opens when the match is over."
NOT_STARTED = "This table's match has not started yet. Its replay opens when the match is over."
MAX_DIGITS = 3  # no match has more than 99 hands or a table 999 matches worth asking for


class BadQuery(Exception):
    """A query value that names no step or match (400): a short ``title``, and what may
    be asked."""

    def __init__(self, message: str, title: str = "No such step") -> None:
        super().__init__(message)
        self.title = title


class Refused(Exception):
    """A match that may not be shown here (403): a short ``title``, and why."""

    def __init__(self, message: str, title: str = "Not open yet") -> None:
        super().__init__(message)
        self.title = title


@dataclass(frozen=True, slots=True)
class Shown:
    """The match a page shows: its number at the table, seat names and finished hands;
    ``record`` is the full record (RECORD.md), only for a finished match."""

    number: int
    names: tuple[str, ...]
    results: list[dict]
    finished: bool
    winner: int | None
    record: dict | None
    latest: bool  # the table's current match
    sides: tuple[tuple[int, ...], ...] = STANDARD_SHAPE.sides  # each side's seats (a team, or a player in cutthroat)


# -- reading the query -------------------------------------------------------------------
def query_number(name: str, example: str, title: str = "No such step") -> int | None:
    """A whole number from the query string (absent: None). Raises BadQuery."""
    text = request.args.get(name)
    if text is None:
        return None
    if not (text.isascii() and text.isdigit()) or len(text) > MAX_DIGITS:
        raise BadQuery(f"The {name} in the address must be a whole number, like {example}.", title)
    return int(text)


def _trick() -> int | str | None:
    """``trick``: a number of tricks taken, or ``end`` (absent: None). Raises BadQuery."""
    text = request.args.get("trick")
    if text is not None and text.strip().lower() == replays.END:
        return replays.END
    return query_number("trick", '?hand=1&trick=5 (or trick=end for the hand\'s result)')


# -- finding the match -------------------------------------------------------------------
def shown_match(code: str, number: int | None, running_ok: bool) -> Shown:
    """The match to show: ``number``, or the table's latest finished one (its current one
    when ``running_ok``). Raises BadQuery, Refused; a 404 for an unknown code."""
    try:
        status = service().status(code)
    except TableNotFound:
        abort(404, description=NO_TABLE)
    if status == "closed":
        abort(404, description="This table was closed before its game started. Start a new game.")
    if status == "waiting":
        raise Refused(NOT_STARTED)
    shut = records_shut(code)  # other tables still play the same deals
    if shut:
        raise Refused(shut)
    pid = player_id()
    try:
        snap = service().snapshot(code, pid)
    except TableNotFound:
        abort(404, description=NO_TABLE)
    current = snap.around.match_number
    if number is not None and not 1 <= number <= current:
        plural = "es" if current != 1 else ""
        raise BadQuery(f"This table has played {current} match{plural}: there is no match {number}.",
                       "No such match")
    if number is None or number == current:
        if snap.view.match.finished or running_ok:
            return _current(code, pid, snap)
        if number is None:
            earlier = _earlier(code, None)
            if earlier is not None:
                return earlier
        raise Refused(RUNNING)
    earlier = _earlier(code, number)
    if earlier is None:  # pragma: no cover - every match before the current one has finished
        raise Refused(RUNNING)
    return earlier


def _current(code: str, pid: str | None, snap: Snapshot) -> Shown:
    """The table's current match as ``snap`` shows it, with its full record once over."""
    m = snap.view.match
    record = service().record(code, pid) if m.finished else None
    return Shown(snap.around.match_number, snap.around.names, m.results, m.finished, m.winner, record, True,
                 m.shape.sides)


def _earlier(code: str, number: int | None) -> Shown | None:
    """A finished earlier match of this table (the latest when ``number`` is None), rebuilt
    from its stored moves, named as seated when it finished; None if there is none."""
    store = service().store
    found = store.finished_match(code, number)
    if found is None:
        return None
    m, names = found
    match = rebuild(m.rules, m.seed, ((seat, text) for _, seat, text in store.actions(m.id)),
                    FairDeals.stored(store.fair_deals(code, m.number), Rules.from_dict(m.rules).shape))
    return Shown(m.number, names, [result_json(r) for r in match.results], match.finished, match.winner,
                 to_record(match, takebacks=m.takebacks), False, match.shape.sides)


def held_in_order(frame: replays.Frame, shape: Shape) -> replays.Frame:
    """The frame with each seat's cards as a player holds them at this shape of table:
    the trumps first (the jokers and the jjdd 2D among them), as at the table."""
    if shape.standard:
        return frame
    seats = tuple(dataclasses.replace(s, cards=tuple(str(c) for c in shape.display_order(
        [Card.parse(t) for t in s.cards]))) for s in frame.seats)
    return dataclasses.replace(frame, seats=seats)


# -- pages -------------------------------------------------------------------------------
def _notice(code: str, status: int, title: str, message: str, links: list[tuple[str, str]]):
    """A page that says why nothing is shown, with the ways on."""
    back = [("Back to the table", url_for("table.page", code=code))]
    return render_template("replay/notice.html", code=code, status=status, title=title, message=message,
                           links=links + back), status


def _match_param(shown: Shown, asked: bool) -> int | None:
    """The ``match`` the page's links carry: the one asked for, or an earlier match's."""
    return shown.number if asked or not shown.latest else None


@bp.get("/g/<code>/replay")
@unknown_codes_limit
def replay(code: str):
    """One step of a finished match, face up (see the module docstring)."""
    code = normalize_code(code)
    start = [("The start of the replay", url_for("replay.replay", code=code))]
    try:
        number = query_number("match", "?match=2", "No such match")
        hand, trick = query_number("hand", "?hand=3&trick=5"), _trick()
        card = query_number("card", "?hand=3&trick=5&card=2")
        shown = shown_match(code, number, running_ok=False)
    except BadQuery as e:
        return _notice(code, 400, e.title, str(e), start)
    except Refused as e:
        return _notice(code, 403, e.title, str(e), [])
    assert shown.record is not None
    game = replays.load(shown.record, shown.names)
    if not game.finished:  # a rematch began between two reads: that match is running
        return _notice(code, 403, "Not open yet", RUNNING, [])
    match = _match_param(shown, number is not None)

    def url(step: replays.Step | replays.CardStep) -> str:
        card = step[2] if len(step) == 3 else 0
        return url_for("replay.replay", code=code, match=match, hand=step[0], trick=step[1], card=card or None)

    def link(step: replays.Step | replays.CardStep | None) -> str | None:
        return None if step is None else url(step)

    try:
        frame = game.frame(1 if hand is None else hand, 0 if trick is None else trick, card or 0)
        frame = held_in_order(frame, record_rules(shown.record.get("format"), shown.record.get("rules")).shape)
    except replays.StepError as e:
        return _notice(code, 400, "No such step", str(e), [("The start of the replay", url(game.steps[0])),
                                                           ("The end of the replay", url(game.steps[-1]))])
    before, after = game.trick_neighbours(frame.card_step)
    card_before, card_after = game.card_neighbours(frame.card_step)
    return render_template(
        "replay/replay.html", code=code, shown=shown, frame=frame, game=game,
        first=link(game.steps[0]) if card_before else None, prev=link(before), next=link(after),
        last=link(game.steps[-1]) if card_after else None, prev_card=link(card_before), next_card=link(card_after),
        hands=[(h.number, link((h.number, 0))) for h in game.hands],
        tricks_in_hand=len(game.hands[frame.hand - 1].tricks),
        outcome=replays.outcome(shown.names, game.finished, game.winner, game.sides) if after is None else "",
        takebacks=shown.record.get(TAKEBACKS, 0), record_url=url_for("replay.sheet", code=code, match=match))


@bp.get("/g/<code>/record")
@unknown_codes_limit
def sheet(code: str):
    """The score sheet of the table's match (``?match=N``: an earlier one); while the match
    goes on, its finished hands only."""
    code = normalize_code(code)
    try:
        number = query_number("match", "?match=2", "No such match")
        shown = shown_match(code, number, running_ok=True)
    except BadQuery as e:
        return _notice(code, 400, e.title, str(e), [("The latest match's score sheet",
                                                     url_for("replay.sheet", code=code))])
    except Refused as e:
        return _notice(code, 403, e.title, str(e), [])
    match = _match_param(shown, number is not None)
    return render_template(
        "replay/record.html", code=code, shown=shown, takebacks=service().store.takebacks(code, shown.number),
        rows=replays.score_sheet(shown.results, shown.names),
        teams=replays.team_names(shown.names, shown.sides), sides=shown.sides,
        outcome=replays.outcome(shown.names, shown.finished, shown.winner, shown.sides),
        replay_url=url_for("replay.replay", code=code, match=match) if shown.finished else None)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
