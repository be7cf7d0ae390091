"""The chat's services for its routes (``spades.web.table.talk``): who may read a table's
chat, mute or report one of its lines, and what is stored, each answered with a small
frozen view model or a ``Refusal`` the route turns into its answer.

A refusal is said in the chat's form (``in_form``: the route answers with the form and
the refusal beside it, as a talk command's refusal is) or as an error page (a table or
a line that is not there, a line number that is not one, a watcher at a table that is
not watchable).

Imports: ``spades.tables`` and ``spades.storage`` (row types), and the web layer's chat
lines, codes and services.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...storage import ChatRow, ReportRow
from ...tables import NO_TABLE, WATCHING_OFF, BadAction, Snapshot, TableNotFound
from ...tables.commands.talk import KEPT, REACTIONS, line_number
from ...tables.registry import Form
from ..site.refusal import Refusal
from ..site.services import admin_only, service
from .chat import MUTED_CHANNEL, Heard, heard_lines, hears

NOT_IN_CHAT = "That message is not in this table's chat."


@dataclass(frozen=True, slots=True)
class Talk:
    """The chat box of one person's table page."""

    code: str
    csrf: str
    mode: str  # on, reactions, off
    filter: bool
    host: bool
    watching: bool
    lines: tuple[Heard, ...]
    me: str | None
    shown: bool  # a table for people (a practice table has only bots to talk to)
    reactions: tuple[tuple[str, str], ...] = tuple(REACTIONS.items())
    message: str | None = None  # the answer to what this person just did (a refusal, "reported")
    focus: bool = False  # the text field takes the focus again (after a message was sent)


@dataclass(frozen=True, slots=True)
class ChatLog:
    """The lines of table ``code``'s chat one person hears, as their page shows them."""

    code: str
    lines: tuple[Heard, ...]


@dataclass(frozen=True, slots=True)
class Muted:
    """A person muted (``on``) or unmuted the speaker ``name``; ``deleted``: the numbers
    of that speaker's lines the page takes out."""

    name: str
    on: bool
    deleted: tuple[int, ...] = ()

    @property
    def message(self) -> str:
        if not self.on:
            return f"You unmuted {self.name}. Reload to see what they said."
        return f"You muted {self.name}: you will not see their messages or reactions, here or at other tables."


@dataclass(frozen=True, slots=True)
class Reported:
    """A line of the speaker ``name`` was reported."""

    name: str

    @property
    def message(self) -> str:
        return f"Thank you: your report of {self.name}'s message was sent to the people who run the site."


@dataclass(frozen=True, slots=True)
class Reports:
    """The reported messages, newest first, for the people who run the site."""

    reports: tuple[ReportRow, ...]


def talk_of(snap: Snapshot, pid: str | None, csrf: str, message: str | None = None, focus: bool = False,
            lines: bool = True) -> Talk:
    """This person's chat box at the table, with the lines they hear of the table's last
    ones (none when ``lines`` is false: the chat's form alone)."""
    said = _heard(snap, pid) if lines else ()
    a = snap.around
    return Talk(snap.code, csrf, a.chat, a.chat_filter, _host(snap), snap.seat is None, said, pid, a.shared,
                message=message, focus=focus)


def _host(snap: Snapshot) -> bool:
    return snap.seat is not None and snap.around.host_seat == snap.seat


def _heard(snap: Snapshot, pid: str | None) -> tuple[Heard, ...]:
    """The lines this person hears of the table's last ones (none at a table that is not
    for people)."""
    if not snap.around.shared:
        return ()
    store = service().store
    muted = store.muted(pid) if pid else frozenset()
    return heard_lines(store, snap.code, pid, snap.seat is not None, snap.view.match.finished, muted, _host(snap))


def _missing(code: str) -> Refusal | None:
    """A 404 when there is no table ``code`` (as ``clean_code`` spells it)."""
    try:
        service().status(code)
    except TableNotFound:
        return Refusal(404, NO_TABLE)
    return None


def composer(code: str, pid: str | None, csrf: str, message: str | None, focus: bool) -> Talk | Refusal:
    """The chat's form of this person at table ``code``, with ``message`` beside it."""
    try:
        snap = service().snapshot(code, pid)
    except TableNotFound:
        return Refusal(404, NO_TABLE)
    return talk_of(snap, pid, csrf, message=message, focus=focus, lines=False)


def chat_log(code: str, pid: str | None) -> ChatLog | Refusal:
    """The lines of table ``code`` this person hears (a watcher's only while the table
    may be watched)."""
    missing = _missing(code)
    if missing is not None:
        return missing
    try:
        snap = service().snapshot(code, pid)
    except TableNotFound:
        return Refusal(404, NO_TABLE)
    if snap.seat is None and not snap.around.watchable:
        return Refusal(403, WATCHING_OFF)
    return ChatLog(snap.code, _heard(snap, pid))


def line_of(code: str, form: Form) -> ChatRow | Refusal:
    """The line ``form`` names (``line``) at table ``code``: a 404 for a table that is not
    there or a line its chat does not hold, a 400 for a number that is not one."""
    missing = _missing(code)
    if missing is not None:
        return missing
    try:
        number = line_number(form)
    except BadAction as e:
        return Refusal(400, str(e))
    line = service().store.chat_line(code, number)
    if line is None:
        return Refusal(404, NOT_IN_CHAT)
    return line


def mute(code: str, form: Form, person: Callable[[], str]) -> Muted | Refusal:
    """Mute (or, with ``on=off``, unmute) the person who said line ``line`` of table
    ``code``, for ``person()`` (the browser's player id, made on first need once the line
    is known): their messages and bubbles are hidden from this person here and at every
    table, and this person's open sockets follow at once."""
    line = line_of(code, form)
    if isinstance(line, Refusal):
        return line
    pid = person()
    if line.person == pid:
        return Refusal(400, "You cannot mute yourself.", form=True)
    if line.kind == "notice":
        return Refusal(400, "The host's notices cannot be muted.", form=True)
    on = form.get("on", "on") != "off"
    service().store.set_mute(pid, line.person, on)
    service().bus.publish_page(MUTED_CHANNEL + pid)  # this person's open sockets stop (or start) hearing them
    if not on:
        return Muted(line.name, False)
    theirs = tuple(x.number for x in service().store.chat_lines(code, KEPT) if x.person == line.person)
    return Muted(line.name, True, theirs)


def report(code: str, form: Form, person: Callable[[], str]) -> Reported | Refusal:
    """Report line ``line`` of table ``code`` for whoever runs the site, as
    ``person()`` (see ``mute``), who must hear it: kept with the 20 lines before it, the
    table's code and both people."""
    line = line_of(code, form)
    if isinstance(line, Refusal):
        return line
    pid = person()
    if line.person == pid:
        return Refusal(400, "You cannot report your own message.", form=True)
    muted = service().store.muted(pid)
    snap = service().snapshot(code, pid)
    if not hears(line, pid, snap.seat is not None, snap.view.match.finished, muted - {line.person}):
        return Refusal(404, NOT_IN_CHAT)
    name = service().known_player(pid)[0] or "Someone"
    service().store.save_report(code, line, pid, name)
    return Reported(line.name)


def reports() -> Reports:
    """The reported messages, for the accounts that run the site. Aborts 403 for anyone
    else (``admin_only``)."""
    admin_only("read the reports")
    return Reports(tuple(service().store.reports()))
