"""A circle's news for its Discord or Slack channel: each message built in the service's
own format, and queued once for the sender (``spades.storage.channels``) when the circle
has a channel that is on and takes that kind of news.

The kinds (``KINDS``), each queued under a key that says what it tells, so that a tick or
two processes queue it once:

- ``tables``: a table started for the circle (``table:<code>``);
- ``nights``: a game night's reminder the day before (``night:<id>:<occurrence>:day``),
  15 minutes before (``…:soon``) and its tables made at the start (``…:start``);
- ``matches``: a match of the circle's tables ended (``match:<match id>``); a table of a
  week of boards is left out (its scores stay shut until the week closes);
- ``seasons``: a season closed, its top three (``season:<circle>:<number>``);
- ``boards``: a week of boards opened (``boards:<week id>:open``) and closed, its winners
  (``boards:<week id>:closed``).

Discord's body is ``content``, one embed and ``allowed_mentions`` with nothing to parse (no
mention ever pings anyone); Slack's is a fallback ``text`` and ``blocks`` (a section, a
context line with the link). People's words (names, the circle's name) are escaped for
each: Discord's markdown, Slack's ``&``, ``<`` and ``>``. Links are absolute, on the site's
public address (``base_url``); without one nothing is queued, and the log says so once.

Queueing never raises: a failure is logged (never with the webhook's address) and the
thing told goes on. Nothing here sends: the sender's thread does.

Imports: stdlib, ``spades.storage``, ``spades.duplicate`` (a week's standings) and the
circles' boards, standings and webhooks modules. Never Flask.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..duplicate import Standings as WeekStandings
from ..storage import BoardWeekRow, CircleResultRow, Store
from ..storage.channels import ON
from .boards import week_standings
from .standings import work_out
from .webhooks import DISCORD, SLACK

__all__ = ["KINDS", "KIND_WORDS", "ChannelNews", "Message", "body_of", "discord_escape", "slack_escape",
           "test_body"]

log = logging.getLogger(__name__)

KINDS = ("tables", "nights", "matches", "seasons", "boards")
KIND_WORDS = {"tables": "Tables started", "nights": "Game nights (reminders and the start)",
              "matches": "Matches ended", "seasons": "Seasons closed", "boards": "Weeks of boards"}
COLOUR = 0x2E7D32  # the embed's stripe: the table's felt green

# the services' limits on a message's parts (Discord's embeds, Slack's blocks)
_LIMITS = {"content": 2000, "title": 256, "description": 4096, "field_name": 256, "field_value": 1024,
           "fields": 25, "section": 3000, "text": 3000}

_DISCORD_SPECIAL = re.compile(r"([\\*_~`|>#\[\]<@])")  # markdown, masked links, mentions


def discord_escape(text: str) -> str:
    """People's words as Discord's markdown shows them as typed (a backslash before each
    character markdown reads).

    >>> discord_escape("*Ann* @everyone")
    '\\\\*Ann\\\\* \\\\@everyone'
    """
    return _DISCORD_SPECIAL.sub(r"\\\1", text)


def slack_escape(text: str) -> str:
    """People's words as Slack's mrkdwn takes them: ``&``, ``<`` and ``>`` escaped.

    >>> slack_escape("Ann & <!channel>")
    'Ann &amp; &lt;!channel&gt;'
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


@dataclass(frozen=True)
class Message:
    """One piece of news before it takes a service's format. Every text is a list of parts:
    a plain ``str`` is people's words (escaped for the service), a ``Bold`` is too, shown
    bold; ``link`` (absolute) and its words ``link_words``; ``fields``: (name, value) pairs
    (Discord's embed fields, Slack's lines under the text)."""

    line: tuple[Part, ...]
    title: tuple[Part, ...]
    description: tuple[tuple[Part, ...], ...] = ()
    fields: tuple[tuple[str, tuple[Part, ...]], ...] = ()
    link: str | None = None
    link_words: str = "Open it on the site"


@dataclass(frozen=True)
class Bold:
    text: str


Part = str | Bold


def _render(parts: Sequence[Part], service: str) -> str:
    escape = discord_escape if service == DISCORD else slack_escape
    star = "**" if service == DISCORD else "*"
    return "".join(f"{star}{escape(p.text)}{star}" if isinstance(p, Bold) else escape(p) for p in parts)


def _plain(parts: Sequence[Part]) -> str:
    return "".join(p.text if isinstance(p, Bold) else p for p in parts)


def body_of(message: Message, service: str) -> dict:
    """``message`` as the JSON body ``service`` (``discord`` or ``slack``) takes."""
    if service == DISCORD:
        embed: dict = {"title": _cut(_plain(message.title), _LIMITS["title"]), "color": COLOUR,
                       "description": _cut("\n".join(_render(d, DISCORD) for d in message.description)
                                           or _render(message.line, DISCORD), _LIMITS["description"])}
        if message.link:
            embed["url"] = message.link
        if message.fields:
            embed["fields"] = [{"name": _cut(name, _LIMITS["field_name"]),
                                "value": _cut(_render(value, DISCORD) or "-", _LIMITS["field_value"]),
                                "inline": False} for name, value in message.fields[:_LIMITS["fields"]]]
        return {"content": _cut(_render(message.line, DISCORD), _LIMITS["content"]), "embeds": [embed],
                "allowed_mentions": {"parse": []}}
    if service == SLACK:
        lines = [f"*{slack_escape(_plain(message.title))}*"]
        lines += [_render(d, SLACK) for d in message.description]
        lines += [f"*{slack_escape(name)}:* {_render(value, SLACK)}" for name, value in message.fields]
        blocks: list[dict] = [{"type": "section", "text": {"type": "mrkdwn",
                                                           "text": _cut("\n".join(lines), _LIMITS["section"])}}]
        if message.link:
            blocks.append({"type": "context", "elements": [
                {"type": "mrkdwn", "text": f"<{message.link}|{slack_escape(message.link_words)}>"}]})
        return {"text": _cut(_render(message.line, SLACK), _LIMITS["text"]), "blocks": blocks}
    raise ValueError(f"no such service: {service}")


def test_body(service: str, circle_name: str) -> dict:
    """The short post sent when a channel is set: "Spades for <circle> will post here."."""
    line: tuple[Part, ...] = ("Spades for ", Bold(circle_name), " will post here.")
    return body_of(Message(line=line, title=("Spades for ", circle_name)), service)


# -- each kind's message ----------------------------------------------------------------------
def table_message(circle: str, starter: str, rules: str, link: str) -> Message:
    return Message(line=(Bold(starter), " started a table for ", Bold(circle), ": join it."),
                   title=(f"A table for {circle}",), description=((starter, " started a table. Join it at the link."),),
                   fields=(("Rules", (rules,)),), link=link, link_words="Join the table")


def night_message(circle: str, when: str, soon: str, counts: Mapping[str, int], link: str, stage: str,
                  tables: int = 0) -> Message:
    """``stage``: ``day`` (the day before), ``soon`` (15 minutes before), ``start`` (its tables made)."""
    said = (f"{counts.get('yes', 0)} coming, {counts.get('maybe', 0)} maybe, "
            f"{counts.get('no', 0)} not coming",)
    if stage == "start":
        made = f"{tables} table{'' if tables == 1 else 's'}"
        return Message(line=("Game night of ", Bold(circle), f": tables are ready ({made})."),
                       title=(f"Game night: {circle}",),
                       description=((f"Tables are ready: {made} for the people who said yes and were on the "
                                     "circle's page. Open it to find yours.",),),
                       fields=(("When", (when,)),), link=link, link_words="The circle's page")
    return Message(line=("Game night of ", Bold(circle), f" {soon}."), title=(f"Game night: {circle}",),
                   description=((f"The game night starts {soon}. Say whether you are coming on the circle's page, "
                                 "and be there at the start: tables are made then.",),),
                   fields=(("When", (when,)), ("Answers", said)), link=link, link_words="The circle's page")


def match_message(circle: str, result: CircleResultRow, link: str) -> Message:
    """The sides (teams, or players one by one) with their final scores, the winner first."""
    order = sorted(range(len(result.sides)), key=lambda t: (result.winner != t, -_score(result, t)))
    lines: list[tuple[Part, ...]] = []
    for t in order:
        names = " & ".join(result.seats[s][2] or "Someone" for s in result.sides[t])
        won = result.winner == t
        lines.append((Bold(names) if won else names, f" {_score(result, t)}", " (won)" if won else ""))
    first = order[0]
    winners = " & ".join(result.seats[s][2] or "Someone" for s in result.sides[first])
    line: tuple[Part, ...] = (("A match of ", Bold(circle), " ended level.") if result.winner is None else
                              (Bold(winners), " won a match of ", Bold(circle), f" ({_score(result, first)})."))
    return Message(line=line, title=(f"A match of {circle} ended",), description=tuple(lines), link=link,
                   link_words="The score sheet")


def _score(result: CircleResultRow, side: int) -> int:
    return result.scores[side] if side < len(result.scores) else 0


def season_message(circle: str, number: int, top: Sequence[tuple[str, int, int]], link: str) -> Message:
    """``top``: (name, played, won) of the season's first three."""
    places = ("1st", "2nd", "3rd")
    lines: tuple[tuple[Part, ...], ...] = tuple(
        (f"{places[n]}: ", Bold(name), f" (won {won} of {played})") for n, (name, played, won) in enumerate(top[:3]))
    return Message(line=(f"Season {number} of ", Bold(circle), " is closed."),
                   title=(f"Season {number} of {circle} is closed",),
                   description=lines or (("No match finished this season.",),), link=link,
                   link_words="The season's standings")


def week_message(circle: str, week: BoardWeekRow, stage: str, link: str, standings: WeekStandings | None = None,
                 ends: str = "") -> Message:
    """``stage``: ``open`` (its tables may start) or ``closed`` (the winners)."""
    if stage == "open":
        return Message(line=(f"A week of {week.boards} boards is open in ", Bold(circle), "."),
                       title=(f"Duplicate boards: {circle}",),
                       description=((f"{week.boards} boards, the same deals at every table of the circle: start a "
                                     f"table for them before the week closes{' (' + ends + ')' if ends else ''}.",),),
                       link=link, link_words="The week's boards")
    teams = standings.teams if standings is not None else ()
    lines: list[tuple[Part, ...]] = []
    for n, team in enumerate(teams[:3]):
        names = " & ".join(team.names) or "Someone"
        lines.append((f"{n + 1}. ", Bold(names) if n == 0 else names,
                      f" ({team.direction}, {team.matchpoints} of {team.top} matchpoints)"))
    return Message(line=("The week of boards of ", Bold(circle), " is closed."),
                   title=(f"Duplicate boards closed: {circle}",),
                   description=tuple(lines) or (("No table played these boards.",),), link=link,
                   link_words="The week's results")


# -- queueing ---------------------------------------------------------------------------------------
@dataclass
class ChannelNews:
    """Queues each circle's news for its channel. ``base_url``: the site's public address
    (None: nothing is queued, said once in the log); ``clock``: epoch seconds."""

    store: Store
    base_url: str | None
    clock: Callable[[], float] = time.time
    _warned: bool = field(default=False, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def wants(self, circle: str, kind: str) -> bool:
        """Whether ``circle`` has a channel that is on and takes ``kind`` (never raises)."""
        try:
            channel = self.store.channel(circle)
        except Exception as e:
            log.error("circle %s: its channel could not be read (%s)", circle, type(e).__name__)
            return False
        return channel is not None and channel.state == ON and kind in channel.kinds

    def queue(self, circle: str, kind: str, key: str, build: Callable[[str, str], Message]) -> bool:
        """Queue the news under ``key`` when the circle's channel takes ``kind``:
        ``build(circle name, base url)`` makes the message. Whether it was queued; never raises."""
        try:
            channel = self.store.channel(circle)
            if channel is None or channel.state != ON or kind not in channel.kinds:
                return False
            if self.base_url is None:
                self._warn()
                return False
            row = self.store.circle(circle)
            name = row.name if row is not None else "the circle"
            body = body_of(build(name, self.base_url), channel.service)
            return self.store.queue_post(key, circle, kind, json.dumps(body), now=self.clock())
        except Exception as e:  # the thing told goes on whatever becomes of its news
            log.error("circle %s: the channel's news %s could not be queued (%s)", circle, key, type(e).__name__)
            return False

    def _warn(self) -> None:
        with self._lock:
            if self._warned:
                return
            self._warned = True
        log.warning("SPADES_PUBLIC_URL is not set (or not an http:// or https:// address): circles' channels get "
                    "no news, as its links need the site's address")

    # -- the news ---------------------------------------------------------------------------
    def table_started(self, circle: str, code: str, starter: str, rules: str) -> bool:
        return self.queue(circle, "tables", f"table:{code}",
                          lambda name, base: table_message(name, starter or "Someone", rules, f"{base}/g/{code}"))

    def night(self, circle: str, night_id: str, occurrence: int, stage: str, when: str, soon: str,
              answers: Mapping[str, str], tables: int = 0) -> bool:
        """A game night's news at ``stage`` (``day``, ``soon``, ``start``); ``answers``: each
        member's yes, maybe or no."""
        counts = {a: sum(v == a for v in answers.values()) for a in ("yes", "maybe", "no")}
        return self.queue(circle, "nights", f"night:{night_id}:{occurrence}:{stage}",
                          lambda name, base: night_message(name, when, soon, counts, f"{base}/c/{circle}#nights",
                                                           stage, tables))

    def match_ended(self, circle: str, result: CircleResultRow) -> bool:
        """A circle's match ended (not one of a week of boards: its scores stay shut)."""
        try:
            if not self.wants(circle, "matches") or self.store.board_week_of_table(result.table_code) is not None:
                return False
        except Exception as e:
            log.error("circle %s: a match's news could not be queued (%s)", circle, type(e).__name__)
            return False
        link = f"/g/{result.table_code}/record" + (f"?match={result.number}" if result.number > 1 else "")
        return self.queue(circle, "matches", f"match:{result.match_id}",
                          lambda name, base: match_message(name, result, base + link))

    def season_closed(self, circle: str, number: int) -> bool:
        if not self.wants(circle, "seasons"):
            return False

        def build(name: str, base: str) -> Message:
            rows = work_out(self.store.circle_results(circle, number)).rows
            top = [(s.name or "Someone", s.played, s.won) for s in rows[:3]]
            return season_message(name, number, top, f"{base}/c/{circle}?season={number}")
        return self.queue(circle, "seasons", f"season:{circle}:{number}", build)

    def weeks_tick(self, now: float | None = None) -> int:
        """``weeks_seen`` for every circle whose channel gets the boards' news: a week that
        closed by its time is told without anyone opening the circle's page."""
        return sum(self.weeks_seen(circle, now) for circle in self.store.channels_on("boards"))

    def weeks_seen(self, circle: str, now: float | None = None) -> int:
        """Queue the news of the circle's weeks of boards as they stand now: a week open
        (``open``), a week closed since the channel was set (``closed``, its winners). How
        many were queued; never raises."""
        try:
            if not self.wants(circle, "boards"):
                return 0
            channel = self.store.channel(circle)
            since = channel.set_at if channel is not None else 0.0
            now = self.clock() if now is None else now
            queued = 0
            for week in self.store.board_weeks(circle)[:5]:  # the newest first
                closed_at = week.closed if week.closed is not None else (week.ends if now >= week.ends else None)
                if closed_at is None and week.starts <= now:
                    queued += self._week(circle, week, "open")
                elif closed_at is not None and closed_at >= since:
                    queued += self._week(circle, week, "closed")
            return queued
        except Exception as e:
            log.error("circle %s: the weeks of boards' news could not be queued (%s)", circle, type(e).__name__)
            return 0

    def _week(self, circle: str, week: BoardWeekRow, stage: str) -> bool:
        def build(name: str, base: str) -> Message:
            standings = week_standings(self.store, week.id) if stage == "closed" else None
            ends = time.strftime("%-d %b %Y, %H:%M UTC", time.gmtime(week.ends))
            return week_message(name, week, stage, f"{base}/c/{circle}/boards/{week.id}", standings, ends)
        return self.queue(circle, "boards", f"boards:{week.id}:{stage}", build)
