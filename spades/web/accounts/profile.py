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

The names and emoji a form takes, the game lines, the chart and each page's view model are
``profile_service``'s; these routes read the request, call it and render.

Imports: Flask, the web layer's identity and the accounts' services.
"""

from __future__ import annotations

import time

from flask import (
    Blueprint,
    Flask,
    flash,
    g,
    get_flashed_messages,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from ..site.identity import default_emoji, player_id
from . import profile_service
from .profile_service import (
    EMOJI,
    MAX_NAME,
    RECENT,
    GameLine,
    HistoryLine,
    NameRefusal,
    clean_name,
    company,
    company_line,
    game_line,
    history_lines,
    results_chart,
    rules_of,
    rules_word,
    score_line,
)

bp = Blueprint("profile", __name__)


# -- Rejoin Games ----------------------------------------------------------------------
def rejoin_games() -> list[GameLine]:
    """For templates: this person's unfinished games (empty for a new visitor)."""
    return profile_service.rejoin_lines(player_id())


@bp.get("/games")
def games():
    shown = profile_service.games_page(player_id(), bool(session.get("uid")))
    return render_template("profile/games.html", games=shown.games, history=shown.history,
                           signed_in=shown.signed_in)


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
    chosen = _chosen()
    if isinstance(chosen, NameRefusal):
        return _profile_page(player_id(), chosen.name, chosen.emoji, error=chosen.error)
    _keep(*chosen)
    flash("Saved.", profile_service.SAVED)
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
    chosen = _chosen()
    if isinstance(chosen, NameRefusal):
        return _name_page(chosen.name, chosen.emoji, chosen.error)
    _keep(*chosen)
    return redirect(url_for("profile.games"), 303)


def _name_page(name: str, emoji: str, error: str | None = None):
    body = render_template("profile/name.html", name=name, emoji=emoji or default_emoji(EMOJI), emojis=EMOJI,
                           error=error, max_name=MAX_NAME)
    return body, 422 if error else 200


def _current() -> tuple[str, str]:
    """The name and emoji this person has now ("" when none)."""
    return profile_service.current(player_id(), session.get("name", ""), session.get("emoji", ""))


def _chosen() -> tuple[str, str] | NameRefusal:
    """(name, emoji) from the posted name form."""

    def fallback() -> str:
        current = _current()[1]
        player_id(create=True)  # the default is this person's (their id picks it), as the form offered
        return current if current in EMOJI else default_emoji(EMOJI)

    return profile_service.chosen(request.form.get("name"), request.form.get("emoji", ""), fallback)


def _keep(name: str, emoji: str) -> None:
    """Save the person's name and emoji, at every table of theirs too, and in this session."""
    pid = player_id(create=True)
    profile_service.keep(pid, name, emoji)
    session["name"], session["emoji"] = name, emoji


def _profile_page(pid: str | None, name: str, emoji: str, error: str | None = None):
    flashed: list[tuple[str, str]] = get_flashed_messages(with_categories=True)  # type: ignore[assignment]
    notes = dict(flashed)
    shown = profile_service.profile_page(pid, session.get("uid"), name, emoji, notes,
                                         lambda: default_emoji(EMOJI), error, g.get("people_room"))
    return render_template("profile/me.html", **shown.context()), 422 if error else 200


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


__all__ = ["EMOJI", "MAX_NAME", "RECENT", "GameLine", "HistoryLine", "bp", "clean_name", "company", "company_line",
           "game_line", "history_lines", "init_app", "rejoin_games", "results_chart", "rules_of", "rules_word",
           "score_line"]
