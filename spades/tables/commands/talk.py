"""Talk at the table: a message, a quick reaction, the host's chat settings and silencing
a person.

Seated people talk in the players' chat; people watching talk in the watchers' chat,
which the players do not see while the match runs (they see it once it is over; the
watchers read both). A line is stored with the table (not with a match, and never in
a match record) and published as a change of its own that carries the line and no
picture (``spades.tables.values.Said``); each page adds it to its chat, and a person's
mutes and blocks keep it from their sockets (``spades.web.table.hub``).

The host's settings are the table's options ``chat`` (``on``, ``reactions``: the fixed
reactions only, ``off``) and ``filter`` (rude words masked, with ``better-profanity``'s
list). A tourney table allows reactions only, whatever its options say: partners may
not signal. Limits: ``FLOOD`` lines in ``FLOOD_S`` seconds per person per table, the
same message again within ``REPEAT_S`` seconds refused; control, direction and other
invisible characters are taken out and runs of spaces made one (``spades.text``).

Imports: stdlib, better-profanity, ``spades.storage``, ``spades.text`` and the ``spades.tables`` modules
below the actor.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Any

from ...storage import ChatRow, PutOptions, PutSilence, SaveLine
from ...text import clean_text
from ..decide import Decision, person_seat
from ..errors import BadAction, NotHost, NotWatchable, TalkRefused, TooFast
from ..registry import CHAT_ANSWER, PERSON, Command, Form, declare
from ..state import Settings, TableState
from ..values import WATCHING_OFF, Player, Said, Who

__all__ = ["Say", "React", "SetChat", "Silence", "REACTIONS", "CHAT_MODES", "MAX_TEXT", "KEPT", "line_number"]

MAX_TEXT = 200  # characters in a message
FLOOD, FLOOD_S = 5, 10.0  # lines a person may say at a table in that many seconds
REPEAT_S = 60.0  # the same message again this soon is refused
KEPT = 100  # lines a table's page shows (and the host may silence the speakers of)
CHAT_MODES = ("on", "reactions", "off")
# the quick reactions, by the value a form posts (the words themselves are taken too)
REACTIONS = {"nice": "Nice!", "sorry": "Sorry", "thanks": "Thanks", "gg": "Good game", "hurry": "Hurry up 😴",
             "thumbs": "👍", "laugh": "😂", "wow": "😮"}
_BY_WORDS = {words: key for key, words in REACTIONS.items()}


@dataclass(frozen=True, slots=True)
class Say(Command):
    """A message at the table. ``known``: the sender's name and emoji as the site knows
    them (filled by the service; a watcher has no seat to be named by)."""

    text: str
    known: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class React(Command):
    """One of the quick reactions (a key of ``REACTIONS``)."""

    reaction: str
    known: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class SetChat(Command):
    """The host's chat settings: ``mode`` (``CHAT_MODES``) and the word filter."""

    mode: str
    filter: bool


@dataclass(frozen=True, slots=True)
class Silence(Command):
    """The host silences the person who said line ``number`` (``on``), or lets them talk again."""

    number: int
    on: bool = True


@functools.cache
def _profanity() -> Any:
    """better-profanity's filter, its word list loaded once."""
    from better_profanity import Profanity

    return Profanity()


def line_number(form: Form) -> int:
    """``line``: a message's number. Raises BadAction."""
    text = form.get("line", "")
    if not (text.isascii() and text.isdigit()) or not 0 < len(text) <= 9:
        raise BadAction("Say which message you mean.")
    return int(text)


def _say_form(form: Form) -> Say:
    """``text``: the message."""
    return Say(form.get("text", ""))


def _react_form(form: Form) -> React:
    """``reaction``: a key of ``REACTIONS`` (or its words)."""
    posted = form.get("reaction", "")
    key = posted if posted in REACTIONS else _BY_WORDS.get(posted)
    if key is None:
        raise BadAction(f"Choose one of the reactions: {', '.join(REACTIONS.values())}.")
    return React(key)


def _chat_form(form: Form) -> SetChat:
    """``chat``: on, reactions or off; ``filter``: on to mask rude words."""
    mode = form.get("chat", "")
    if mode not in CHAT_MODES:
        raise BadAction("Choose the table's chat: on, reactions only, or off.")
    return SetChat(mode, form.get("filter", "") == "on")


def _silence_form(form: Form) -> Silence:
    """``line``: the number of a message of the person; ``on``: ``off`` lets them talk again."""
    return Silence(line_number(form), form.get("on", "on") != "off")


def _speaker(state: TableState, who: Who, known: tuple[str, str] | None) -> tuple[str, int | None, str, str]:
    """Who says it: (person, seat, name, emoji); a person without a seat is a watcher.
    Raises TalkRefused (a practice table), NotWatchable."""
    if not isinstance(who, Player):
        raise TalkRefused("Only people talk at the table.")
    if not state.shared():
        raise TalkRefused("A practice table has no chat: only bots sit at it.")
    seat = state.seat_of(who.id)
    if seat is not None:
        s = state.row.seats[seat]
        return who.id, seat, s.name, s.emoji
    if not state.watchable():
        raise NotWatchable(WATCHING_OFF)
    name, emoji = known or ("", "")
    return who.id, None, name or "A watcher", emoji


def _check_pace(state: TableState, person: str, now: float, text: str | None) -> None:
    """Raises TooFast past the flood limit, or for the same message again."""
    recent = [t for t in state.talked.get(person, ()) if now - t < FLOOD_S]
    if len(recent) >= FLOOD:
        wait = max(1, math.ceil(FLOOD_S - (now - recent[0])))
        raise TooFast(f"Slow down: at most {FLOOD} messages in {FLOOD_S:g} seconds. Try again in {wait} s.", wait)
    last = state.last_said.get(person)
    if text is not None and last is not None and last[0] == text and now - last[1] < REPEAT_S:
        raise TooFast("You just said that.", max(1, math.ceil(REPEAT_S - (now - last[1]))))


def _said(state: TableState, person: str, seat: int | None, name: str, emoji: str, kind: str, text: str,
          now: float) -> Decision:
    """The line, stored and published (its number the table's next)."""
    room = "players" if seat is not None else "watchers"
    line = ChatRow(state.chat_number + 1, now, person, name, emoji, seat, room, kind, text)
    state.chat_number = line.number
    state.speakers[line.number] = (person, name)
    for old in [n for n in state.speakers if n <= line.number - KEPT]:
        del state.speakers[old]
    if kind != "notice":
        state.talked[person] = [t for t in state.talked.get(person, ()) if now - t < FLOOD_S] + [now]
    if kind == "text":
        state.last_said[person] = (text, now)
    return Decision([SaveLine(state.code, line)], seat=seat, said=Said(line, state.chat_mode(), state.match.finished),
                    conflict="That message crossed another one. Send it again.")


@declare(Say, "say", senders=PERSON, route="chat", form=_say_form, answer=CHAT_ANSWER)
def say(state: TableState, who: Who, command: Say, now: float, settings: Settings) -> Decision:
    """A message in the table's chat (the players' for a seated person, the watchers'
    otherwise). Raises TalkRefused, TooFast, BadAction, NotWatchable."""
    person, seat, name, emoji = _speaker(state, who, command.known)
    mode = state.chat_mode()
    if state.tourney():
        raise TalkRefused("At tourney tables only reactions are allowed: partners may not signal.")
    if mode == "off":
        raise TalkRefused("The host has turned the chat off at this table.")
    if mode == "reactions":
        raise TalkRefused("The host allows reactions only at this table.")
    if person in state.silenced:
        raise TalkRefused("The host has silenced you at this table.")
    text = clean_text(command.text)
    if not text:
        raise BadAction("Write something first.")
    if len(text) > MAX_TEXT:
        raise BadAction(f"A message is at most {MAX_TEXT} characters; yours has {len(text)}.")
    _check_pace(state, person, now, text)
    if state.row.options.get("filter"):
        text = _profanity().censor(text)
    return _said(state, person, seat, name, emoji, "text", text, now)


@declare(React, "react", senders=PERSON, route="react", form=_react_form, answer=CHAT_ANSWER)
def react(state: TableState, who: Who, command: React, now: float, settings: Settings) -> Decision:
    """A quick reaction: a bubble at the sender's plate for a few seconds, and a line in
    the chat. Raises TalkRefused, TooFast, BadAction, NotWatchable."""
    if command.reaction not in REACTIONS:
        raise BadAction(f"Choose one of the reactions: {', '.join(REACTIONS.values())}.")
    person, seat, name, emoji = _speaker(state, who, command.known)
    if state.chat_mode() == "off":
        raise TalkRefused("The host has turned the chat off at this table.")
    if person in state.silenced:
        raise TalkRefused("The host has silenced you at this table.")
    _check_pace(state, person, now, None)
    return _said(state, person, seat, name, emoji, "reaction", REACTIONS[command.reaction], now)


def _host(state: TableState, who: Who, what: str) -> tuple[int, str, str]:
    """The host's seat, name and emoji. Raises NotSeated, NotHost."""
    seat = person_seat(state, who)
    if state.row.host != getattr(who, "id", None):
        raise NotHost(f"Only the host {what}.")
    s = state.row.seats[seat]
    return seat, s.name, s.emoji


@declare(SetChat, "set_chat", senders=PERSON, route="chat-settings", form=_chat_form, answer=CHAT_ANSWER)
def set_chat(state: TableState, who: Who, command: SetChat, now: float, settings: Settings) -> Decision:
    """The host turns the chat on, to reactions only or off, and the word filter on or
    off; everyone is told in the chat. Raises NotSeated, NotHost, BadAction."""
    seat, name, emoji = _host(state, who, "changes the chat")
    if command.mode not in CHAT_MODES:
        raise BadAction("Choose the table's chat: on, reactions only, or off.")
    options = {**state.row.options, "chat": command.mode, "filter": command.filter}
    if options == state.row.options:
        return Decision(publish=False, seat=seat)
    state.row = dataclasses.replace(state.row, options=options)
    mode = state.chat_mode()
    words = {"on": "turned the chat on", "reactions": "allowed reactions only", "off": "turned the chat off"}
    text = f"The host {words[mode]}" + (", rude words masked." if command.filter and mode == "on" else ".")
    decision = _said(state, who.id if isinstance(who, Player) else "", seat, name, emoji, "notice", text, now)
    decision.rows.insert(0, PutOptions(state.code, options))
    return decision


@declare(Silence, "silence", senders=PERSON, route="silence", form=_silence_form, answer=CHAT_ANSWER)
def silence(state: TableState, who: Who, command: Silence, now: float, settings: Settings) -> Decision:
    """The host silences the person who said line ``number`` at this table (or lets them
    talk again); everyone is told in the chat. Raises NotSeated, NotHost, BadAction."""
    seat, name, emoji = _host(state, who, "silences people")
    target = state.speakers.get(command.number)
    if target is None:
        raise BadAction("That message is not in this table's chat.")
    person, said_by = target
    if person == getattr(who, "id", None):
        raise BadAction("You cannot silence yourself.")
    if (person in state.silenced) == command.on:
        return Decision(publish=False, seat=seat)
    if command.on:
        state.silenced.add(person)
    else:
        state.silenced.discard(person)
    text = f"The host silenced {said_by}." if command.on else f"The host let {said_by} talk again."
    decision = _said(state, getattr(who, "id", ""), seat, name, emoji, "notice", text, now)
    decision.rows.insert(0, PutSilence(state.code, person, command.on, now))
    return decision
