"""``/spades`` in Discord, for a site whose operator set it up (docs/serving.md, "/spades in
Discord"); without ``DISCORD_PUBLIC_KEY`` (env ``SPADES_DISCORD_PUBLIC_KEY``: the
application's public key, hex; a bad one stops the start) every route here is a 404
(the endpoint is there, exempt from the CSRF check, so that it answers 404 and not the
CSRF check's 400).

- ``POST /discord/interactions``: Discord's Interactions Endpoint. Each request must carry
  Discord's Ed25519 signature over its timestamp and raw body, the timestamp within 5
  minutes of now (``spades.discord.check_signature``); anything else is a 401. It takes no
  CSRF token (the signature is the proof) and no rate limit (only the guard's count of
  requests in progress from one address).
  A PING is answered with a PONG. ``/spades table`` (players, preset, target) is answered
  in the channel with the table's options in a line and a link button to
  ``/discord/start/<token>``; ``/spades practice`` (preset, target) likewise, seen only by
  the person who asked (ephemeral). Options that cannot go together, or a site without
  ``PUBLIC_URL`` (no link can be made), are answered with a sentence only they see.
- Replays: Discord may send the same interaction again. Its answer is kept for 5 minutes
  by the interaction's id (in this process) and given again; a link carries the
  interaction's id, and the table made for a link is stored by that id, so even an answer
  made twice (by two processes) leads everyone to one table.
- ``GET /discord/start/<token>``: the link (signed with the site's secret, for 24 hours).
  Before anyone made its table: a form with a name and an emoji (prefilled when the site
  knows this browser), since a link followed by a preview or a scanner must make nothing.
  Once made: a 303 to the table's join page (``/j/<CODE>``), which sends its members on
  to the room. An expired or garbled link is a 400 that says so.
- ``POST /discord/start/<token>`` (the form, with its CSRF token): the first makes the
  friends' table with the link's options, as its host (``TableService.create_room``, the
  new-table form's limits), and the table is stored for the link
  (``Store.discord_start``: the first stored wins; someone who made one at the same moment
  and lost leaves theirs and is sent to the winner's). A link for one person (practice,
  or ``players`` 1) makes a practice game for each person who opens it.

Imports: Flask, itsdangerous, ``spades.discord``, ``spades.tables`` and the web layer's
options, notices (the site's address), identity, limits and services.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any

from flask import Blueprint, Flask, abort, current_app, jsonify, redirect, render_template, request, session, url_for
from itsdangerous import BadData, SignatureExpired, URLSafeTimedSerializer

from ...discord import (
    ACTION_ROW,
    APPLICATION_COMMAND,
    BUTTON,
    CHANNEL_MESSAGE,
    EPHEMERAL,
    LINK_BUTTON,
    PING,
    PONG,
    SKEW_S,
    SUB_COMMAND,
    check_signature,
    public_key,
)
from ...rules_config import PRESETS, Rules, preset_rules
from ...tables import EMOJIS, MAX_HUMANS, AtLimit, BadPlayer, Player, Refused, check_emoji, clean_name
from ...tables.commands.room import LeaveRoom
from ...text import clean_text
from ..rooms.notices import site_address
from ..rooms.options import DEFAULT_VALUES, TARGETS, rules_line, table_options
from .identity import csrf_exempt, default_emoji, player_id
from .limits import making
from .services import service

bp = Blueprint("discord", __name__)

LINK_DAYS = 1  # how long a /spades link may be opened
_SALT = "spades-discord-start"
REMEMBER_S = SKEW_S  # how long an interaction's answer is kept for a replay
REMEMBER_MOST = 10_000  # answers kept at most (the oldest go first)

NO_ADDRESS = "This Spades site's address is not set (SPADES_PUBLIC_URL), so it cannot give a link yet."
EXPIRED = "This link has expired: a /spades link lasts 24 hours. Ask for a new one with /spades in Discord."
GARBLED = "This link is not valid: open it from its button in Discord, or ask for a new one with /spades."


@dataclass(frozen=True, slots=True)
class Link:
    """What a /spades link carries: the interaction's id, how many people, the house rules'
    preset and the target."""

    id: str
    people: int
    preset: str
    target: int

    def choices(self) -> tuple[Rules, str] | str:
        """The table's rules and bots' level, as the new-table form makes them, or why not."""
        return table_options({**DEFAULT_VALUES, "preset": self.preset, "end": f"target-{self.target}"},
                             people=self.people)


class Answered:
    """The answers given to interactions in the last ``REMEMBER_S`` seconds, by id."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: dict[str, tuple[float, dict[str, Any]]] = {}

    def get(self, key: str, now: float) -> dict[str, Any] | None:
        with self._lock:
            kept = self._kept.get(key)
            return kept[1] if kept and kept[0] > now else None

    def put(self, key: str, answer: dict[str, Any], now: float) -> None:
        with self._lock:
            for old in [k for k, (until, _) in self._kept.items() if until <= now]:
                del self._kept[old]
            while len(self._kept) >= REMEMBER_MOST:
                del self._kept[next(iter(self._kept))]
            self._kept[key] = (now + REMEMBER_S, answer)


def _configured() -> str:
    """The application's public key (hex); a 404 when /spades is not set up."""
    key = current_app.config.get("DISCORD_PUBLIC_KEY")
    if not key:
        abort(404)
    return str(key)


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=_SALT)


# -- the interactions ------------------------------------------------------------------------
@bp.post("/discord/interactions")
@csrf_exempt  # Discord's signature over the body is the proof; Discord has no session
def interactions():
    key = public_key(_configured())
    body = request.get_data(cache=True)
    if not check_signature(key, request.headers.get("X-Signature-Ed25519"),
                           request.headers.get("X-Signature-Timestamp"), body):
        return "invalid request signature", 401, {"Content-Type": "text/plain; charset=utf-8"}
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return jsonify(error="not an interaction"), 400
    if data.get("type") == PING:
        return jsonify(type=PONG)
    command = data.get("data")
    if data.get("type") != APPLICATION_COMMAND or not isinstance(command, dict) or command.get("name") != "spades":
        return jsonify(error="not a /spades command"), 400
    answered: Answered = current_app.extensions["spades.discord.answered"]
    iid = str(data.get("id") or "")
    now = time.time()
    answer = answered.get(iid, now) if iid else None
    if answer is None:
        answer = _answer(iid or secrets.token_urlsafe(12), command)
        if iid:
            answered.put(iid, answer, now)
    return jsonify(answer)


def _answer(iid: str, command: dict[str, Any]) -> dict[str, Any]:
    """The answer to one use of /spades: a line and a link button, or a sentence."""
    options = [o for o in command.get("options") or () if isinstance(o, dict)]
    sub = "table"
    if options and options[0].get("type") == SUB_COMMAND:
        sub = str(options[0].get("name"))
        options = [o for o in options[0].get("options") or () if isinstance(o, dict)]
    given = {str(o.get("name")): o.get("value") for o in options}
    practice = sub == "practice"
    preset = given.get("preset") if given.get("preset") in PRESETS else "standard"
    target = given.get("target") if given.get("target") in TARGETS else 500
    if practice:
        people = 1
    else:
        wanted = given.get("players")
        people = wanted if isinstance(wanted, int) else min(MAX_HUMANS, preset_rules(str(preset)).players)
    if not 1 <= people <= MAX_HUMANS:
        return _said(f"Choose 1 to {MAX_HUMANS} people.")
    base = site_address(current_app.config.get("PUBLIC_URL"))
    if base is None:
        return _said(NO_ADDRESS)
    link = Link(iid, people, str(preset), int(target))  # type: ignore[arg-type]
    chosen = link.choices()
    if isinstance(chosen, str):
        return _said(chosen)
    rules, level = chosen
    line = rules_line(asdict(rules), level)
    url = base + url_for("discord.start", token=_serializer().dumps([link.id, people, link.preset, link.target]))
    if practice:
        text, label = f"A practice game against the bots: {line}.", "Play"
    elif people == 1:
        text, label = f"A game for one against the bots: {line}. Each person who opens the link plays their own.", \
            "Play"
    else:
        text, label = (f"A table for {people} people: {line}. The first to open the link hosts it; "
                       "the others join it."), "Open the table"
    message: dict[str, Any] = {
        "content": text,
        "components": [{"type": ACTION_ROW, "components": [{"type": BUTTON, "style": LINK_BUTTON, "label": label,
                                                             "url": url}]}],
    }
    if practice:
        message["flags"] = EPHEMERAL
    return {"type": CHANNEL_MESSAGE, "data": message}


def _said(sentence: str) -> dict[str, Any]:
    """A sentence only the person who asked sees."""
    return {"type": CHANNEL_MESSAGE, "data": {"content": sentence, "flags": EPHEMERAL}}


# -- the link ---------------------------------------------------------------------------------
def _link(token: str) -> Link:
    """The link's contents; a 400 in words for an expired or garbled one."""
    try:
        raw = _serializer().loads(token, max_age=LINK_DAYS * 24 * 3600)
    except SignatureExpired:
        abort(400, description=EXPIRED)
    except (BadData, UnicodeError, ValueError, TypeError):
        abort(400, description=GARBLED)
    if not (isinstance(raw, list) and len(raw) == 4 and isinstance(raw[0], str) and isinstance(raw[1], int)
            and raw[2] in PRESETS and raw[3] in TARGETS and 1 <= raw[1] <= MAX_HUMANS):
        abort(400, description=GARBLED)
    return Link(raw[0], raw[1], raw[2], raw[3])


@bp.route("/discord/start/<token>", methods=["GET", "POST"])
def start(token: str):
    """The link from /spades: the form before its table is made, then its join page."""
    _configured()
    link = _link(token)
    if link.people > 1:
        made = service().store.discord_started(link.id)
        if made:
            return redirect(url_for("lobby.join_link", code=made), 303)
    chosen = link.choices()
    if isinstance(chosen, str):
        abort(400, description=chosen)
    rules, level = chosen
    line = rules_line(asdict(rules), level)
    if request.method == "GET":
        name, emoji = service().known_player(player_id())
        values = {"name": name or session.get("name", ""), "emoji": emoji or default_emoji(EMOJIS)}
        return _form(link, line, values)
    values = {"name": request.form.get("name", ""), "emoji": request.form.get("emoji", "")}
    try:
        name = clean_name(values["name"])
        emoji = check_emoji(values["emoji"])
    except BadPlayer as e:
        return _form(link, line, values, str(e), 400)
    session["name"] = clean_text(name)
    pid = player_id(create=True)
    refusal = making("practice" if link.people == 1 else "friends", pid)
    if refusal:
        return _form(link, line, values, refusal.message, 429)[0], 429, refusal.headers
    if link.people == 1:
        return redirect(f"/g/{service().create_practice(pid, name, rules, level, emoji)}", 303)
    try:
        code = service().create_room(pid, name, emoji, rules, level, link.people)
    except AtLimit as e:
        return _form(link, line, values, str(e), 409)
    first = service().store.discord_start(link.id, code)
    if first != code:  # someone else made the link's table at the same moment: theirs it is
        try:
            service().handle(code, Player(pid), LeaveRoom())
        except Refused:
            pass
        return redirect(url_for("lobby.join_link", code=first), 303)
    return redirect(f"/g/{code}", 303)


def _form(link: Link, line: str, values: dict[str, str], message: str | None = None, status: int = 200):
    return render_template("discord/start.html", people=link.people, line=line, values=values, emojis=EMOJIS,
                           message=message), status


def init_app(app: Flask) -> None:
    """The routes (each a 404 while ``DISCORD_PUBLIC_KEY`` is not set; a bad one stops the
    start, not Discord's first request)."""
    app.config.setdefault("DISCORD_PUBLIC_KEY", os.environ.get("SPADES_DISCORD_PUBLIC_KEY") or None)
    if app.config["DISCORD_PUBLIC_KEY"]:
        public_key(app.config["DISCORD_PUBLIC_KEY"])
    app.extensions["spades.discord.answered"] = Answered()
    app.register_blueprint(bp)
