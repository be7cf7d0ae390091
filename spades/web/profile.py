"""A person's own pages: the profile (``/me``: name, emoji, record, figures, chart and
rating) and Rejoin Games (``/games``, and the fragment on the home page).

Signed in, "the person" is the account (its canonical player id, the same on every
browser); anonymous, it is this browser's player id. Games are read from the table
service's seat views (``TableService.snapshot``), never from anyone else's cards.

Imports: Flask, ``spades.accounts``, ``spades.stats``, ``spades.tables``.
"""

from __future__ import annotations

import logging
import time
import unicodedata
from dataclasses import dataclass
from html import escape

from flask import Blueprint, Flask, flash, get_flashed_messages, redirect, render_template, request, session, url_for

from .. import tables
from ..stats import Result, record_of, results_over_time
from ..storage import PlayerGame
from ..text import clean_text
from .identity import player_id
from .people import blocked_people, muted_people, played_with
from .services import accounts, service

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


# -- Rejoin Games ----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GameLine:
    """An unfinished game as the Rejoin list shows it (public information only)."""

    code: str
    partner: str
    opponents: str
    us: int
    them: int
    turn: str  # "Your turn", "Rex to play", "Between hands"...
    my_turn: bool
    hand: int
    waiting: bool = False  # a room that has not started: no partner or score yet


def waiting_rooms(pid: str) -> list[GameLine]:
    """The rooms this person joined that are waiting for the host to start."""
    return [GameLine(code, "", "", 0, 0, "Waiting for the host to start", False, 0, waiting=True)
            for code in accounts().store.player_rooms(pid)]


def unfinished(games: list[PlayerGame], pid: str) -> list[GameLine]:
    """The person's unfinished games, from each table's view of their seat."""
    lines = []
    for g in games:
        if g.status != "playing":
            continue
        try:
            snap = service().snapshot(g.code, pid)
        except Exception:  # a table that cannot be loaded must not hide the others
            log.exception("rejoin: table %s could not be shown", g.code)
            continue
        view = snap.view
        if snap.seat is None or view["finished"]:
            continue
        seat, names = snap.seat, snap.names
        team = seat % 2
        to_act = view["to_act"]
        if view["phase"] == "hand_over":
            turn, mine = "Between hands: press Continue", True
        elif to_act == seat:
            turn, mine = ("Your turn to bid" if view["phase"] == "bidding" else "Your turn to play"), True
        elif to_act is not None:
            turn, mine = f"{names[to_act]} to {'bid' if view['phase'] == 'bidding' else 'play'}", False
        else:
            turn, mine = "", False
        lines.append(GameLine(g.code, names[(seat + 2) % 4], f"{names[(seat + 1) % 4]} and {names[(seat + 3) % 4]}",
                              view["scores"][team], view["scores"][1 - team], turn, mine, view["hand_number"]))
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
    history = list(reversed(results_over_time(accounts().played(pid)))) if pid else []
    return render_template("profile/games.html",
                           games=waiting_rooms(pid) + unfinished(person_games, pid) if pid else [],
                           history=history, signed_in=bool(session.get("uid")))


# -- profile ---------------------------------------------------------------------------
@bp.get("/me")
def me():
    pid = player_id()
    name, emoji = session.get("name", ""), session.get("emoji", "")
    return _profile_page(pid, name, emoji)


@bp.post("/me")
def save():
    """Save name and emoji; 303 back. A bad value re-shows the form with the reason (422)."""
    form = request.form
    emoji = form.get("emoji", "")
    try:
        name = clean_name(form.get("name"))
    except ValueError as e:
        return _profile_page(player_id(), form.get("name", "")[:40], emoji if emoji in EMOJI else "", error=str(e))
    if emoji not in EMOJI:
        return _profile_page(player_id(), name, "", error="Choose one of the emoji offered.")
    pid = player_id(create=True)
    accounts().store.save_profile(pid, name, emoji)
    _rename_at_tables(pid, name, emoji)
    session["name"], session["emoji"] = name, emoji
    flash("Saved.")
    return redirect(url_for("profile.me"), 303)


def _rename_at_tables(pid: str, name: str, emoji: str) -> None:
    """Every table where the person plays, and every room they wait in, shows their new
    name and emoji at once (through the table's own command, so every page there is told)."""
    codes = [g.code for g in accounts().games(pid) if g.status == "playing"] + accounts().store.player_rooms(pid)
    for code in codes:
        try:
            service().handle(code, tables.Player(pid), tables.Rename(name, emoji))
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
        account=_account(), max_name=MAX_NAME, people=played_with(pid) if pid else [],
        muted=muted_people(pid) if pid else [], blocked=blocked_people(pid) if pid else [],
        people_note=next((m for m in messages if m != "Saved."), None),
        mail_off=acc.store.mail_prefs(pid)[0] if pid else False)
    return body, 422 if error else 200


def _account() -> dict | None:
    uid = session.get("uid")
    user = accounts().store.user(uid) if uid else None
    return None if user is None else {"email": user.email}


# -- the chart -------------------------------------------------------------------------
W, H, PAD = 560, 200, 32
COLOURS = {"won": "#2e7d32", "lost": "#c62828", "drawn": "#8d8d8d"}


def results_chart(results: list[Result], limit: int = 40) -> str:
    """An SVG bar chart of the last ``limit`` finished matches, oldest on the left: one bar
    per match, up for a win and down for a loss, as tall as the winning margin."""
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
                     f'{r.us} to {r.them}</title></rect>')
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
