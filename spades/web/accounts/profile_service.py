"""The profile's, the name step's and Rejoin Games' services for their routes
(``spades.web.accounts.profile``): a name and emoji as the forms take them, the game
lines (whom the person played with and against, every side's score, the house rules in a
word), the history and its chart, and each page's view model, read from the accounts, the
table service's seat views and the store.

Every shape of table reads the same way: a game line says whom the person played with and
against ("With Bea against Rex and Kit" with partners; "Against Rex and Kit" in cutthroat
for three; "Against Rex, Bea and Kit" for four), a table with house rules says them in a
word (the preset's label, "Cutthroat for 3", or "House rules" when chosen one by one),
and a score line gives each side's score (the player's own first).

Imports: Flask (the application's extensions), ``spades.accounts``, ``spades.rules_config``, ``spades.stats``,
``spades.storage``, ``spades.tables``, ``spades.text``, ``spades.views``, the web layer's
services and the people's service (no blueprint).
"""

from __future__ import annotations

import logging
import time
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from html import escape

from flask import current_app

from ... import tables
from ...accounts import Rating
from ...rules_config import PRESETS, Rules, RulesError, Shape, preset_of
from ...stats import Record, Result, in_words, record_of, results_over_time
from ...storage import PlayerGame
from ...storage.people import CUTTHROAT
from ...tables.commands.seats import Rename
from ...text import clean_text
from ...views import MatchView
from ..site.services import accounts, service
from .people_service import Person, blocked_people, muted_people, played_with

log = logging.getLogger(__name__)

MAX_NAME = 20
# The emoji a player may choose: the lobby's list (``spades.tables.EMOJIS``) once it has
# one; until then the same list, kept here.
EMOJI: tuple[str, ...] = getattr(tables, "EMOJIS", (
    "🦊", "🐼", "🐨", "🐯", "🦁", "🐸", "🐙", "🦉", "🐢", "🦄", "🐝", "🐧",
    "🌵", "🌻", "🍀", "🍒", "🔥", "⭐", "🌙", "🎩", "🎲", "🚀", "⚓", "🎸"))

# the categories of the messages flashed to /me: each is shown beside its own section
SAVED, PEOPLE, DEVICES, EMAIL = "saved", "people", "devices", "email"


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

def rejoin_lines(pid: str | None) -> list[GameLine]:
    """This person's unfinished games and the rooms they wait in (empty for a new visitor)."""
    if not pid:
        return []
    try:
        return waiting_rooms(pid) + unfinished(accounts().games(pid), pid)
    except Exception:  # the home page must show even if this list cannot
        log.exception("rejoin list failed")
        return []


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



# -- the pages ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GamesPage:
    """Rejoin Games: the unfinished games (and rooms waiting), the finished matches, and
    whether the person is signed in (else the page says the games are this browser's)."""

    games: list[GameLine]
    history: list[HistoryLine]
    signed_in: bool


def games_page(pid: str | None, signed_in: bool) -> GamesPage:
    """Rejoin Games for ``pid`` (nothing for a browser without a player id)."""
    person_games = accounts().games(pid) if pid else []
    history = history_lines(results_over_time(accounts().played(pid))) if pid else []
    return GamesPage(games=waiting_rooms(pid) + unfinished(person_games, pid) if pid else [], history=history,
                     signed_in=signed_in)


@dataclass(frozen=True, slots=True)
class ProfilePage:
    """What ``/me`` shows: the name form (``pick``: the emoji checked), the record, chart,
    ratings and last matches, the people one plays with (``people_note``: the sentence
    said by them, with a link to table ``people_room`` when it points to one; ``others``:
    the people blocked who are not listed among them), the account's settings (``account``: None when not signed in;
    ``mail_off``) and the person's circles (None when not signed in)."""

    name: str
    emoji: str
    emojis: tuple[str, ...]
    error: str | None
    saved: bool
    record: Record
    chart: str
    rating: Rating | None
    cutthroat: Rating | None
    recent: list[HistoryLine]
    account: dict | None
    max_name: int
    people: list[Person]
    muted: list[Person]
    blocked: list[Person]
    others: list[Person]
    people_note: str | None
    devices_note: str | None  # what was just done to a device, or the email's change
    email_note: str | None
    people_room: str | None
    mail_off: bool
    pick: str
    circles: list[tuple[str, str, bool]] | None

    def context(self) -> dict[str, object]:
        """The page's names for its template, each field by its name."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def profile_page(pid: str | None, uid: str | None, name: str, emoji: str, notes: Mapping[str, str],
                 default_emoji: Callable[[], str], error: str | None = None,
                 people_room: str | None = None) -> ProfilePage:
    """``/me`` for player ``pid`` (account ``uid`` when signed in), ``name`` and ``emoji``
    shown in the form (the ones last used at a table when there is no name), with the
    flashed ``notes`` (by category: ``SAVED``, ``PEOPLE``, ``DEVICES``, ``EMAIL``, each
    shown beside its own section) and a form's ``error``; ``default_emoji``: the one a form offers
    a person who never chose one; ``people_room``: the table a refusal by the people one
    plays with points to."""
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
    people = played_with(pid) if pid else []
    blocked = blocked_people(pid) if pid else []
    listed = {p.handle for p in people}
    return ProfilePage(
        name=name, emoji=emoji, emojis=EMOJI, error=error, saved=SAVED in notes, record=record_of(played),
        chart=results_chart(results), rating=acc.rating(pid) if pid else None,
        cutthroat=acc.rating(pid, CUTTHROAT) if pid else None, recent=history_lines(results[-RECENT:]),
        account=_account(uid), max_name=MAX_NAME, people=people,
        muted=muted_people(pid) if pid else [], blocked=blocked, others=[p for p in blocked if p.handle not in listed],
        people_note=notes.get(PEOPLE), devices_note=notes.get(DEVICES), email_note=notes.get(EMAIL),
        people_room=people_room,
        mail_off=acc.store.mail_prefs(pid)[0] if pid else False, pick=emoji or default_emoji(),
        circles=_circles(uid))


def _circles(uid: str | None) -> list[tuple[str, str, bool]] | None:
    """The signed-in person's circles as (slug, name, theirs), or None when not signed in."""
    if not uid:
        return None
    listed = current_app.extensions["spades.circles"].circles_of(uid)
    return [(row.slug, row.name, role == "owner") for row, role in listed]


def _account(uid: str | None) -> dict | None:
    user = accounts().store.user(uid) if uid else None
    return None if user is None else {"email": user.email}


# -- a name and emoji chosen ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class NameRefusal:
    """A name form refused: the reason, and the values to show again."""

    error: str
    name: str
    emoji: str


def current(pid: str | None, name: str, emoji: str) -> tuple[str, str]:
    """The name and emoji this person has now ("" when none): ``name`` and ``emoji`` (the
    session's), else the ones last chosen (or used at a table)."""
    if pid and not (name and emoji):
        known, known_emoji = service().known_player(pid)
        name, emoji = name or known, emoji or known_emoji
    return name, emoji


def chosen(typed_name: str | None, typed_emoji: str, fallback: Callable[[], str]) -> tuple[str, str] | NameRefusal:
    """(name, emoji) from a name form: a name of 1 to ``MAX_NAME`` characters; an emoji of
    ``EMOJI``, or when none is picked ``fallback()`` (the person's current one, else the
    one a default gives them)."""
    emoji = typed_emoji
    try:
        name = clean_name(typed_name)
    except ValueError as e:
        return NameRefusal(str(e), (typed_name or "")[:40], emoji if emoji in EMOJI else "")
    if not emoji:
        emoji = fallback()
    if emoji not in EMOJI:
        return NameRefusal("Choose one of the emoji offered.", name, "")
    return name, emoji


def keep(pid: str, name: str, emoji: str) -> None:
    """Save the person's name and emoji, at every table of theirs too: every table where
    they play, and every room they wait in, shows the new name and emoji at once (through
    the table's own command, so every page there is told)."""
    accounts().store.save_profile(pid, name, emoji)
    codes = [g.code for g in accounts().games(pid) if g.status == "playing"] + accounts().store.player_rooms(pid)
    for code in codes:
        try:
            service().handle(code, tables.Player(pid), Rename(name, emoji))
        except tables.Refused as e:  # that table goes on with the old name; the profile is saved
            log.info("renaming at %s refused: %s", code, e)
