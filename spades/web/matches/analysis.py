"""A finished match analysed: the page (``/g/<CODE>/analysis``) and its JSON
(``/g/<CODE>/analysis.json``).

Every bid and card of the match against what the analyst would have done on what that
seat could see (``spades.bots.analysis``), with its cost in points, and from seven tricks
left the double-dummy figure of every legal card. The page steps through each hand face
up, as the replay does, one bid or card at a time (``?hand=2&step=14``: hands from 1,
steps from 0), marks each choice best, inaccuracy or mistake by the thresholds it shows,
and draws the expected score through the hand (with partners, the viewer's team's
difference; in cutthroat one line per player); a summary says what each player lost to
bids and to cards.

Every shape of table (``Rules.shape``: three or four seats, partners or cutthroat,
jokers) is shown from its record's rules: a row per seat, tricks won as its trumps say,
the sides as its sides.

Cards are named as on the table (``10♦``, in their suit's colour: ``card_name``), and the
page says in a line what "double dummy", "in expectation" and "inaccuracy" mean where it
uses them.

The analysis is worked out in the background (``spades.tables.analyses``) and stored
once done; while it runs the page shows its progress (the hand being analysed, and why
it waits when it is queued behind other matches' analyses), pushed over its WebSocket
(``/g/<CODE>/analysis/ws``, the bus's page channel of that analysis) as it starts and as
each part of a hand is done, and moves on to the analysis when it is ready.

Who: anyone may see the analysis of a match whose replay they may see (a finished match
shows every card in its replay; the analysis shows nothing more), but
only the match's players may set one going, since it costs the server minutes of work.
Refusals, as the replay's: an unknown code 404; a match still being played (or not
started) 403 with nothing of it shown; a bad ``match``, ``hand`` or ``step`` 400; a
person who did not play asking for an analysis nobody asked for 403; too many analyses
waiting 503. The JSON route says the same in ``{"error": ...}``.

Imports: Flask, ``spades.tables``, ``spades.storage`` (reads), the bots' analysis values
and the core.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, Flask, abort, current_app, jsonify, render_template, request, url_for
from markupsafe import Markup
from werkzeug.exceptions import NotFound

from ...bots import analysis as analyst
from ...cards import Card, display_order
from ...replays import bid_words, team_names
from ...rules_config import STANDARD_SHAPE, Rules, Shape
from ...tables import Busy
from ...tables.analyses import AnalysisQueue, Progress, analysis_channel
from ..rooms.codes import normalize_code, unknown_codes_limit
from ..site.identity import player_id
from ..site.services import service
from ..table.live import origin_allowed, serve_page, sock
from ..table.pictures import card
from .replay import BadQuery, Refused, Shown, query_number, shown_match

bp = Blueprint("analysis", __name__)

NOT_A_PLAYER = ("Nobody has asked for this match's analysis yet, and only the people who played it can: "
                "it takes the server a minute or two.")
RUNNING = "This match is still being played. Its analysis opens when the match is over."


def queue() -> AnalysisQueue:
    return current_app.extensions["spades.analyses"]


def _progress(code: str, shown: Shown) -> Progress:
    """The analysis as it stands, set going when a player of the match asks. Raises
    Refused (nobody asked and this person did not play) and Busy."""
    found = queue().status(code, shown.number)
    if found is not None:
        return found
    store = service().store
    info = store.finished_match(code, shown.number)
    pid = player_id()
    players = store.match_players(info[0].id) if info is not None else frozenset()
    if pid is None or pid not in players:
        raise Refused(NOT_A_PLAYER, "Not analysed yet")
    assert shown.record is not None
    return queue().ask(code, shown.number, shown.record)


def _shown(code: str) -> Shown:
    """The finished match asked for. Raises BadQuery, Refused, NotFound."""
    number = query_number("match", "?match=2", "No such match")
    try:
        shown = shown_match(code, number, running_ok=False)
    except Refused as e:  # the replay's reasons, said of the analysis
        raise Refused(str(e).replace("Its replay opens", "Its analysis opens"), e.title) from None
    if shown.record is None or not shown.finished:
        raise Refused(RUNNING)
    return shown


@bp.get("/g/<code>/analysis.json")
@unknown_codes_limit
def as_json(code: str):
    """The analysis as JSON: ``status``, ``progress`` and, once done, every hand's steps;
    ``hands_done`` of ``hands_total`` while it runs, ``ahead`` (analyses before it) while it waits."""
    code = normalize_code(code)
    try:
        shown = _shown(code)
        progress = _progress(code, shown)
    except NotFound as e:
        return jsonify(error=e.description), 404
    except BadQuery as e:
        return jsonify(error=str(e)), 400
    except Refused as e:
        return jsonify(error=str(e)), 403
    except Busy as e:
        return jsonify(error=str(e)), 503
    hands = analyst.public(progress.hands) if progress.hands is not None else []
    return jsonify(status=progress.status, progress=progress.progress, hands=hands,
                   hands_done=progress.hands_done, hands_total=progress.hands_total, ahead=progress.ahead)


# -- the page ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SeatAt:
    """One seat before a step: its cards still held, its bid so far, its tricks; where
    the page draws it (``place``) and its side."""

    seat: int
    name: str
    cards: tuple[str, ...]
    bid: str
    taken: int
    acting: bool
    place: str = "bottom"
    side: int = 0


@dataclass(frozen=True, slots=True)
class StepAt:
    """One step as the page lists it."""

    number: int  # position in the hand's steps, from 0
    seat: int
    name: str
    kind: str
    action: str  # in words: "4", "nil", or the card
    best: str
    cost: float
    verdict: str
    double_dummy: tuple[tuple[str, int], ...]  # (card, figure), best first
    href: str


@dataclass(frozen=True, slots=True)
class Loss:
    """One player's summary: points lost to bids and to cards, and the marks."""

    seat: int
    name: str
    bids: float
    cards: float
    inaccuracies: int
    mistakes: int


def _words(kind: str, action: int | str | None) -> str:
    return bid_words(action) if kind == "bid" else str(action)


def card_name(text: str) -> Markup:
    """A card named in a line of text as on the table: ``TD`` -> 10♦, coloured by its
    suit (the site's style colours every ``data-card`` by its suit); a joker in words
    ("big joker"), as the table names it in a line of text."""
    c = card(text)
    shown = c.label if c.suit == "J" else f"{c.rank}{c.symbol}"
    return Markup(f'<span class="card-name" data-card="{c.text}">{shown}</span>')




def places(shape: Shape) -> tuple[str, ...]:
    """Where the page draws each seat, clockwise from the bottom: a seat across only at an
    even number of seats.

    >>> from spades.rules_config import shape_of
    >>> places(shape_of()), places(shape_of(3, False))
    (('bottom', 'left', 'top', 'right'), ('bottom', 'left', 'right'))
    """
    across = ("top",) if shape.players % 2 == 0 else ()
    return ("bottom", "left", *across, "right")


# a line's colour for each player of a cutthroat chart
SIDE_COLOURS = ("#1f6f4a", "#b3261e", "#1a56a8", "#8a5a00")


def _seats_before(record: dict, h: int, steps: list[dict], upto: int, names: tuple[str, ...],
                  shape: Shape) -> tuple:
    """Every seat's cards, bids and tricks before step ``upto`` of hand ``h``, and the
    trick on the table then: ((seat, card), ...)."""
    hand = record["hands"][h]
    n = shape.players
    deal = [[Card.parse(c) for c in cards] for cards in hand["deal"]]
    owner = {c: s for s, cards in enumerate(deal) for c in cards}
    done = steps[:upto]
    bids: list[str] = [""] * n
    blind = hand.get("blind") or [False] * n
    plays = [Card.parse(s["action"]) for s in done if s["kind"] == "play"]
    for s in done:
        if s["kind"] == "bid":
            bids[s["seat"]] = bid_words(s["action"], blind[s["seat"]])
    taken = [0] * n
    full = len(plays) // n * n
    suit_of, power, trumps = shape.suit_of, shape.power, shape.trump_mask
    for i in range(0, full, n):
        trick = plays[i:i + n]
        win = 0
        for j in range(1, n):
            c, w = trick[j], trick[win]
            if (suit_of[c] == suit_of[w] and power[c] > power[w]) or (trumps >> c & 1 and not trumps >> w & 1):
                win = j
        taken[owner[trick[win]]] += 1
    gone = set(plays)
    acting = steps[upto]["seat"] if upto < len(steps) else None
    order = display_order if shape.standard else shape.display_order
    where = places(shape)
    seats = tuple(SeatAt(s, names[s], tuple(str(c) for c in order([c for c in deal[s] if c not in gone])),
                         bids[s], taken[s], s == acting, where[s], shape.side_of[s]) for s in range(n))
    return seats, tuple((owner[c], str(c)) for c in plays[full:])


def _chart(steps: list[dict], team: int, current: int, shape: Shape = STANDARD_SHAPE) -> dict:
    """The team's expected hand difference through the hand: an SVG polyline's points
    (x by step, y by points), with the range it spans. With partners, one line: the
    viewer's team's difference (the other team's step counts the other way); in
    cutthroat, ``lines``: one per player, each holding its own last estimate."""
    sides = shape.side_count
    values: list[list[float]] = [[] for _ in range(sides)]
    last = [0.0] * sides
    two = sides == 2
    for s in steps:
        e = s.get("expected")
        if e is not None:
            side = shape.side_of[s["seat"]]
            if two:
                last[team] = e if side == team else -e
            else:
                last[side] = e
        for t in range(sides):
            values[t].append(last[t])
    shown = [team] if two else list(range(sides))
    top = max([abs(v) for t in shown for v in values[t]] + [10.0])
    width, height = 600, 160
    n = max(1, len(steps) - 1)

    def points(vs: list[float]) -> str:
        return " ".join(f"{i * width / n:.1f},{height / 2 - v * (height / 2 - 8) / top:.1f}" for i, v in enumerate(vs))

    def now(vs: list[float]) -> float:
        return vs[min(current, len(vs) - 1)] if vs else 0

    return {"points": points(values[team]), "top": round(top), "width": width, "height": height,
            "x": round(current * width / n, 1), "now": now(values[team]),
            "lines": [] if two else [{"side": t, "points": points(values[t]), "now": now(values[t]),
                                      "colour": SIDE_COLOURS[t % len(SIDE_COLOURS)]} for t in shown]}


def _losses(hands: list[dict], names: tuple[str, ...]) -> list[Loss]:
    out = []
    for seat in range(len(names)):
        steps = [s for h in hands for s in h["steps"] if s["seat"] == seat]
        out.append(Loss(seat, names[seat], round(sum(s["cost"] for s in steps if s["kind"] == "bid"), 1),
                        round(sum(s["cost"] for s in steps if s["kind"] == "play"), 1),
                        sum(analyst.verdict(s["cost"]) == analyst.INACCURATE for s in steps),
                        sum(analyst.verdict(s["cost"]) == analyst.MISTAKEN for s in steps)))
    return out


def _notice(code: str, status: int, title: str, message: str, links: list[tuple[str, str]] | None = None):
    back = [("Back to the table", url_for("table.page", code=code))]
    return render_template("replay/notice.html", code=code, status=status, title=title, message=message,
                           links=(links or []) + back), status


@bp.get("/g/<code>/analysis")
@unknown_codes_limit
def page(code: str):
    """The analysis page: its progress while it runs, then one step of a hand."""
    code = normalize_code(code)
    start = [("The start of the analysis", url_for("analysis.page", code=code))]
    try:
        shown = _shown(code)
        hand_no, step_no = query_number("hand", "?hand=2&step=14"), query_number("step", "?hand=2&step=14")
        progress = _progress(code, shown)
    except BadQuery as e:
        return _notice(code, 400, e.title, str(e), start)
    except Refused as e:
        return _notice(code, 403, e.title, str(e))
    except Busy as e:
        return _notice(code, 503, "Busy", str(e))
    match = shown.number if request.args.get("match") else None
    here = url_for("analysis.page", code=code, match=match, hand=hand_no, step=step_no)
    if progress.hands is None:
        return render_template("analysis/analysis.html", code=code, shown=shown, progress=progress, here=here,
                               socket=url_for("analysis.socket", code=code, match=match), done=False)
    record = shown.record
    assert record is not None
    hands = progress.hands
    h = (hand_no or 1) - 1
    if not 0 <= h < len(hands):
        return _notice(code, 400, "No such hand", f"This match has {len(hands)} hands: there is no hand {hand_no}.",
                       start)
    steps = hands[h]["steps"]
    k = step_no or 0
    if not 0 <= k < len(steps):
        return _notice(code, 400, "No such step", f"Hand {h + 1} has {len(steps)} steps, 0 to {len(steps) - 1}: "
                       f"there is no step {step_no}.", start)
    names = shown.names

    def link(hand: int, step: int) -> str:
        return url_for("analysis.page", code=code, match=match, hand=hand + 1, step=step)

    listed = [StepAt(i, s["seat"], names[s["seat"]], s["kind"], _words(s["kind"], s["action"]),
                     _words(s["kind"], s["best"]), s["cost"], analyst.verdict(s["cost"]),
                     tuple(sorted((s["double_dummy"] or {}).items(), key=lambda kv: -kv[1])), link(h, i))
              for i, s in enumerate(steps)]
    rules = Rules.from_dict(record.get("rules"))
    shape = rules.shape
    seats, trick = _seats_before(record, h, steps, k, names, shape)
    pid = player_id()
    store = service().store
    info = store.finished_match(code, shown.number)
    seating = store.match_seating(info[0].id) if info is not None else ()
    viewer = next((s for s, (_, p) in enumerate(seating) if pid and p == pid), None)  # the chart takes their side
    team = 0 if viewer is None else shape.side_of[viewer]
    side_names = team_names(names, shape.sides)
    prev = link(h, k - 1) if k else (link(h - 1, len(hands[h - 1]["steps"]) - 1) if h else None)
    nxt = link(h, k + 1) if k + 1 < len(steps) else (link(h + 1, 0) if h + 1 < len(hands) else None)
    return render_template(
        "analysis/analysis.html", code=code, shown=shown, progress=progress, here=here, done=True,
        hand=h + 1, hands=[(i + 1, link(i, 0)) for i in range(len(hands))], step=listed[k], steps=listed,
        seats=seats, trick=trick, prev=prev, next=nxt, chart=_chart(steps, team, k, shape), team=team,
        team_name=side_names[team], side_names=side_names, cutthroat=not shape.partners,
        hands_face_up=shape.players_word, losses=_losses(hands, names), hand_losses=_losses([hands[h]], names),
        inaccuracy=analyst.INACCURACY, mistake=analyst.MISTAKE, dd_tricks=analyst.DD_TRICKS,
        replay_url=url_for("replay.replay", code=code, match=match), card_name=card_name)


# -- the progress, pushed ------------------------------------------------------------------
def progress_html(code: str, number: int, go: str) -> str:
    """The progress part of the page as the socket pushes it (``data-go`` once done)."""
    progress = queue().status(code, number) or Progress("pending", 0.0)
    return render_template("analysis/_progress.html", progress=progress, go=go, oob=True)


@bp.before_request
def _socket_handshake() -> None:
    """The socket's checks, before the upgrade: a finished match, this site's page."""
    if request.endpoint != "analysis.socket":
        return
    code = normalize_code((request.view_args or {}).get("code", ""))
    try:
        _shown(code)
    except (BadQuery, Refused) as e:
        abort(403, description=str(e))
    if not origin_allowed():
        abort(403, description="This connection did not come from this site.")


@sock.route("/g/<code>/analysis/ws", bp=bp)
def socket(ws, code: str) -> None:
    code = normalize_code(code)
    number = _shown(code).number
    go = url_for("analysis.page", code=code, match=number if request.args.get("match") else None)
    serve_page(ws, code, analysis_channel(code, number), lambda pid: progress_html(code, number, go))


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
