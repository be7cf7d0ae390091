"""A person's own pages: the profile (``/me``: name, emoji, record, figures, chart, the
last matches, the ratings and the person's circles), the name step (``/me/name``: "What
should friends call you?", where signing in to an account without a name leads) and
Rejoin Games (``/games``, and the fragment on the home page).

A name is 1 to ``MAX_NAME`` characters; the emoji is one of ``EMOJI`` and optional: a form
that picks none keeps the person's current one, or gives the one ``default_emoji`` picks.

Every shape of table reads the same way: a game line says whom the person played with and
against ("With Bea against Rex and Kit" with partners; "Against Rex and Kit" in cutthroat
for three; "Against Rex, Bea and Kit" for four), a table with house rules says them in a
word (the preset's label, "Cutthroat for 3", or "House rules" when chosen one by one),
and a score line gives each side's score (the player's own first). The ratings are two:
the partnership rating, and the cutthroat rating once the person has played cutthroat.

Signed in, "the person" is the account (its canonical player id, the same on every
browser); anonymous, it is this browser's player id. Games are read from the table
service's seat views (``TableService.snapshot``), never from anyone else's cards.

Imports: Flask, ``spades.accounts``, ``spades.rules_config``, ``spades.stats``, ``spades.storage``,
``spades.tables`` (and the circles' service, from ``app.extensions``).
"""

from __future__ import annotations

import logging
import time
import unicodedata
from dataclasses import dataclass
from html import escape

from flask import (
    Blueprint,
    Flask,
    current_app,
    flash,
    get_flashed_messages,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from ... import tables
from ...rules_config import PRESETS, Rules, RulesError, Shape, preset_of
from ...stats import Result, in_words, record_of, results_over_time
from ...storage import PlayerGame
from ...storage.people import CUTTHROAT
from ...tables.commands.seats import Rename
from ...text import clean_text
from ...views import MatchView
from ..site.identity import default_emoji, player_id
from ..site.services import accounts, service
from .people import blocked_people, muted_people, played_with

log = logging.getLogger(__name__)

bp = Blueprint("profile", __name__)

MAX_NAME = 20
# The emoji a player may choose: the lobby's list (``spades.tables.EMOJIS``) once it has
# one; until then the same list, kept here.
EMOJI: tuple[str, ...] = getattr(tables, "EMOJIS", (
    "🦊", "🐼", "🐨", "🐯", "🦁", "🐸", "🐙", "🦉", "🐢", "🦄", "🐝", "🐧",
    "🌵", "🌻", "🍀", "🍒", "🔥", "⭐", "🌙", "🎩", "🎲", "🚀", "⚓", "🎸"))


def clean_name(text: str | None) -> str:
    """A name: trimmed, inner spaces collapsed, 1-20 characters, no control or format
    characters. Raises ValueError with the reason."""
    name = clean_text(text)
    if not name:
        raise ValueError("Choose a name of 1 to 20 characters.")
    if len(name) > MAX_NAME:
        raise ValueError(f"A name has at most {MAX_NAME} characters.")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in name):
        raise ValueError("A name may not hold invisible or control characters.")
    return name


# -- game lines ------------------------------------------------------------------------
def rules_word(rules: Rules) -> str:
    """A table's house rules in a word: the preset's label, or "House rules" when chosen
    one by one; "" for a standard table.

    >>> rules_word(Rules(players=3, partners=False)), rules_word(Rules(min_bid=3)), rules_word(Rules())
    ('Cutthroat for 3', 'House rules', '')
    """
    if not rules.house:
        return ""
    preset = preset_of(rules)
    return PRESETS[preset][0] if preset else "House rules"


def company(shape: Shape, seat: int, names: tuple[str, ...]) -> tuple[str, str]:
    """(partner, opponents) of ``seat`` in words, the opponents in the order they sit from
    the seat's left: ("Bea", "Rex and Kit") with partners, ("", "Rex, Bea and Kit") in
    cutthroat. Names missing (a match from before names were kept) give ("", "")."""
    if len(names) != shape.players:
        return "", ""
    partner = shape.partner(seat)
    order = [(seat + k) % shape.players for k in range(1, shape.players)]
    opponents = [names[s] for s in order if shape.side_of[s] != shape.side_of[seat]]
    return ("" if partner is None else names[partner]), in_words(opponents)


def company_line(shape: Shape, seat: int, names: tuple[str, ...]) -> str:
    """Whom the seat plays with and against, as a sentence's start: "With Bea against Rex
    and Kit", "Against Rex and Kit"; "" when the names are not known."""
    partner, opponents = company(shape, seat, names)
    if not opponents:
        return ""
    return f"With {partner} against {opponents}" if partner else f"Against {opponents}"


def score_line(shape: Shape, seat: int, names: tuple[str, ...], scores: list[int]) -> str:
    """Each side's score, the seat's own first: "us 120, them 80" with partners, "you 34,
    Rex 35, Kit -30" in cutthroat (the others in the order they sit from the seat's left)."""
    mine = shape.side_of[seat]
    if shape.partner(seat) is not None and shape.side_count == 2:
        return f"us {scores[mine]}, them {scores[1 - mine]}"
    order = [(seat + k) % shape.players for k in range(1, shape.players)]
    others = [f"{names[s] if s < len(names) else f'Seat {s + 1}'} {scores[shape.side_of[s]]}" for s in order]
    return ", ".join([f"you {scores[mine]}"] + others)


def rules_of(data: object) -> Rules:
    """A stored or viewed rules object as ``Rules`` (the standard rules for one that cannot
    be read: a line must never fail a page)."""
    try:
        return Rules.from_dict(data if isinstance(data, dict) else None)
    except (RulesError, TypeError, ValueError):
        return Rules()


# -- Rejoin Games ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GameLine:
    """An unfinished game as the Rejoin list shows it (public information only)."""

    code: str
    partner: str  # "" in cutthroat
    opponents: str
    us: int
    them: int  # the best other side's score
    turn: str  # "Your turn", "Rex to play", "Between hands"...
    my_turn: bool
    hand: int
    waiting: bool = False  # a room that has not started: no partner or score yet
    scores: str = ""  # every side's score in words ("us 0, them 0"; "you 34, Rex 35, Kit -30")
    rules: str = ""  # the house rules in a word ("Cutthroat for 3"), "" for a standard table


def waiting_rooms(pid: str) -> list[GameLine]:
    """The rooms this person joined that are waiting for the host to start."""
    return [GameLine(code, "", "", 0, 0, "Waiting for the host to start", False, 0, waiting=True)
            for code in accounts().store.player_rooms(pid)]


def game_line(code: str, seat: int, names: tuple[str, ...], view: MatchView) -> GameLine:
    """The Rejoin line of a game going on, from the match as the seat sees it (public
    information: names, scores, whose turn), at every shape of table."""
    rules = view.rules
    shape = rules.shape
    side = shape.side_of[seat]
    scores = list(view.scores)
    to_act = view.to_act
    if view.phase == "hand_over":
        turn, mine = "Between hands: press Continue", True
    elif to_act == seat:
        turn, mine = ("Your turn to bid" if view.phase == "bidding" else "Your turn to play"), True
    elif to_act is not None:
        turn, mine = f"{names[to_act]} to {'bid' if view.phase == 'bidding' else 'play'}", False
    else:
        turn, mine = "", False
    partner, opponents = company(shape, seat, names)
    best_other = max(v for t, v in enumerate(scores) if t != side)
    return GameLine(code, partner, opponents, scores[side], best_other, turn, mine, view.hand_number,
                    scores=score_line(shape, seat, names, scores), rules=rules_word(rules))


def unfinished(games: list[PlayerGame], pid: str) -> list[GameLine]:
    """The person's unfinished games, from each table's view of their seat."""
    lines = []
    for g in games:
        if g.status != "playing":
            continue
        try:
            snap = service().snapshot(g.code, pid)
            if snap.seat is None or snap.view.match.finished:
                continue
            lines.append(game_line(g.code, snap.seat, snap.around.names, snap.view.match))
        except Exception:  # a table that cannot be loaded must not hide the others
            log.exception("rejoin: table %s could not be shown", g.code)
            continue
    return lines


def rejoin_games() -> list[GameLine]:
    """For templates: this person's unfinished games (empty for a new visitor)."""
    pid = player_id()
    if not pid:
        return []
    try:
        return waiting_rooms(pid) + unfinished(accounts().games(pid), pid)
    except Exception:  # the home page must show even if this list cannot
        log.exception("rejoin list failed")
        return []


@bp.get("/games")
def games():
    pid = player_id()
    person_games = accounts().games(pid) if pid else []
    history = history_lines(results_over_time(accounts().played(pid))) if pid else []
    return render_template("profile/games.html",
                           games=waiting_rooms(pid) + unfinished(person_games, pid) if pid else [],
                           history=history, signed_in=bool(session.get("uid")))


# -- history ---------------------------------------------------------------------------
RECENT = 5  # the last matches the profile lists


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """A finished match as the history lists it: its result, who played, at what table."""

    result: Result
    company: str  # "With Bea against Rex and Kit", "Against Rex and Kit", "" when not known
    rules: str  # "Cutthroat for 3", "House rules", "" for a standard table


def history_lines(results: list[Result]) -> list[HistoryLine]:
    """The finished matches, newest first, each with its game line and rules in a word."""
    return [HistoryLine(r, company_line(r.rules.shape, r.seat, r.names), rules_word(r.rules))
            for r in reversed(results)]


# -- profile ---------------------------------------------------------------------------
@bp.get("/me")
def me():
    pid = player_id()
    name, emoji = session.get("name", ""), session.get("emoji", "")
    return _profile_page(pid, name, emoji)


@bp.post("/me")
def save():
    """Save name and emoji (the emoji optional: the current one is kept, or a default is
    given); 303 back. A bad value re-shows the form with the reason (422)."""
    chosen = _chosen(request.form)
    if isinstance(chosen, Refusal):
        return _profile_page(player_id(), chosen.name, chosen.emoji, error=chosen.error)
    _keep(*chosen)
    flash("Saved.")
    return redirect(url_for("profile.me"), 303)


# -- the name step after a first sign-in -----------------------------------------------
@bp.get("/me/name")
def name_step():
    """"What should friends call you?": the name (prefilled with the one last used at a
    table, if any) and the emoji, asked right after signing in to an account without a name."""
    name, emoji = _current()
    return _name_page(name, emoji)


@bp.post("/me/name")
def save_name():
    """Save the name (and emoji) of the name step; 303 to the person's games."""
    chosen = _chosen(request.form)
    if isinstance(chosen, Refusal):
        return _name_page(chosen.name, chosen.emoji, chosen.error)
    _keep(*chosen)
    return redirect(url_for("profile.games"), 303)


def _name_page(name: str, emoji: str, error: str | None = None):
    body = render_template("profile/name.html", name=name, emoji=emoji or default_emoji(EMOJI), emojis=EMOJI,
                           error=error, max_name=MAX_NAME)
    return body, 422 if error else 200


@dataclass(frozen=True, slots=True)
class Refusal:
    """A name form refused: the reason, and the values to show again."""

    error: str
    name: str
    emoji: str


def _current() -> tuple[str, str]:
    """The name and emoji this person has now ("" when none): the session's, else the ones
    last chosen (or used at a table)."""
    pid = player_id()
    name, emoji = session.get("name", ""), session.get("emoji", "")
    if pid and not (name and emoji):
        known, known_emoji = service().known_player(pid)
        name, emoji = name or known, emoji or known_emoji
    return name, emoji


def _chosen(form) -> tuple[str, str] | Refusal:
    """(name, emoji) from a name form: a name of 1 to ``MAX_NAME`` characters; an emoji of
    ``EMOJI``, or when none is picked the person's current one, else the one a default
    gives them."""
    emoji = form.get("emoji", "")
    try:
        name = clean_name(form.get("name"))
    except ValueError as e:
        return Refusal(str(e), form.get("name", "")[:40], emoji if emoji in EMOJI else "")
    if not emoji:
        current = _current()[1]
        player_id(create=True)  # the default is this person's (their id picks it), as the form offered
        emoji = current if current in EMOJI else default_emoji(EMOJI)
    if emoji not in EMOJI:
        return Refusal("Choose one of the emoji offered.", name, "")
    return name, emoji


def _keep(name: str, emoji: str) -> None:
    """Save the person's name and emoji, at every table of theirs too."""
    pid = player_id(create=True)
    accounts().store.save_profile(pid, name, emoji)
    _rename_at_tables(pid, name, emoji)
    session["name"], session["emoji"] = name, emoji


def _rename_at_tables(pid: str, name: str, emoji: str) -> None:
    """Every table where the person plays, and every room they wait in, shows their new
    name and emoji at once (through the table's own command, so every page there is told)."""
    codes = [g.code for g in accounts().games(pid) if g.status == "playing"] + accounts().store.player_rooms(pid)
    for code in codes:
        try:
            service().handle(code, tables.Player(pid), Rename(name, emoji))
        except tables.Refused as e:  # that table goes on with the old name; the profile is saved
            log.info("renaming at %s refused: %s", code, e)


def _profile_page(pid: str | None, name: str, emoji: str, error: str | None = None):
    acc = accounts()
    if pid and not name:
        name, emoji = acc.store.known_player(pid) or ("", "")
        name = "" if name == "You" else name
    try:
        acc.rate_pending()
    except Exception:  # ratings catch up on the next visit; the page must still show
        log.exception("rating finished matches failed")
    played = acc.played(pid) if pid else []
    results = results_over_time(played)
    messages = get_flashed_messages()
    body = render_template(
        "profile/me.html", name=name, emoji=emoji, emojis=EMOJI, error=error, saved="Saved." in messages,
        record=record_of(played), chart=results_chart(results), rating=acc.rating(pid) if pid else None,
        cutthroat=acc.rating(pid, CUTTHROAT) if pid else None, recent=history_lines(results[-RECENT:]),
        account=_account(), max_name=MAX_NAME, people=played_with(pid) if pid else [],
        muted=muted_people(pid) if pid else [], blocked=blocked_people(pid) if pid else [],
        people_note=next((m for m in messages if m != "Saved."), None),
        mail_off=acc.store.mail_prefs(pid)[0] if pid else False, pick=emoji or default_emoji(EMOJI),
        circles=_circles())
    return body, 422 if error else 200


def _circles() -> list[tuple[str, str, bool]] | None:
    """The signed-in person's circles as (slug, name, theirs), or None when not signed in."""
    uid = session.get("uid")
    if not uid:
        return None
    listed = current_app.extensions["spades.circles"].circles_of(uid)
    return [(row.slug, row.name, role == "owner") for row, role in listed]


def _account() -> dict | None:
    uid = session.get("uid")
    user = accounts().store.user(uid) if uid else None
    return None if user is None else {"email": user.email}


# -- the chart -------------------------------------------------------------------------
W, H, PAD = 560, 200, 32
COLOURS = {"won": "#2e7d32", "lost": "#c62828", "drawn": "#8d8d8d"}


def results_chart(results: list[Result], limit: int = 40) -> str:
    """An SVG bar chart of the last ``limit`` finished matches, oldest on the left: one bar
    per match, up for a win and down for a loss, as tall as the margin: the person's side's
    score against the other team's, or in cutthroat against the best of the other players'."""
    results = results[-limit:]
    if not results:
        return ""
    top = max(max(abs(r.us - r.them) for r in results), 50)
    mid = H / 2
    step = (W - 2 * PAD) / len(results)
    bar = max(2.0, min(24.0, step * 0.7))
    won = sum(r.outcome == "won" for r in results)
    parts = [f'<svg class="chart results-chart" viewBox="0 0 {W} {H}" role="img" xmlns="http://www.w3.org/2000/svg" '
             f'aria-label="Results of the last {len(results)} matches: {won} won, {len(results) - won} not won">']
    parts.append(f'<line x1="{PAD}" y1="{mid}" x2="{W - PAD}" y2="{mid}" class="axis" stroke="#999"/>')
    parts.append(f'<text x="{PAD - 4}" y="{PAD - 8}" text-anchor="end" class="tick">+{top}</text>')
    parts.append(f'<text x="{PAD - 4}" y="{H - PAD + 16}" text-anchor="end" class="tick">−{top}</text>')
    for i, r in enumerate(results):
        margin = r.us - r.them
        h = max(2.0, (mid - PAD) * abs(margin) / top)
        x = PAD + step * i + (step - bar) / 2
        y = mid - h if margin >= 0 else mid
        when = time.strftime("%Y-%m-%d", time.gmtime(r.when)) if r.when else ""
        parts.append(f'<rect class="result-{r.outcome}" x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                     f'fill="{COLOURS[r.outcome]}"><title>{escape(when)} {escape(r.code)}: {r.outcome} '
                     f'{r.us} to {r.against}</title></rect>')
    parts.append("</svg>")
    return "".join(parts)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}%"


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _date(when: float) -> str:
    return time.strftime("%d %b %Y", time.gmtime(when))


def init_app(app: Flask) -> None:
    app.jinja_env.globals.update(rejoin_games=rejoin_games, pct=_pct, num=_num)
    app.jinja_env.filters["datetime"] = _date
    app.register_blueprint(bp)
