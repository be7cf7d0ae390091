"""A table's chat lines as each person gets them: who hears a line, what its menu offers
on their page, and the lines rendered for a socket. The socket hub (``spades.web.table.hub``)
and the chat's routes (``spades.web.table.talk``) both use it.

Who hears a line (``hears``): a player's line reaches everyone at the table, players and
watchers; a watcher's line reaches the watchers, and the players only once the match is
over. Nobody gets the lines of a person they muted or blocked, at this table or any
other, except the host's notices; everyone gets their own. The same rule picks the
lines of the page (the table's last ``KEPT``) and the lines a socket is sent
(``spades.web.table.hub``); when the match ends, the players' sockets are sent their chat
again, the watchers' lines in it (and without them when the next match starts).

Each line of someone else's but a notice has a menu: mute and report, and on the host's
page the one of Silence and Let them talk again that applies to its speaker now
(``Heard``, decided here). The host's sockets are sent their chat again after each of
the host's notices, so the menus follow a silence at once.

Imports: Flask (templates), ``spades.tables`` and ``spades.storage`` (row types); nothing
else of the web layer.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from flask import render_template
from markupsafe import Markup

from ...storage import ChatRow, Store
from ...tables import Said
from ...tables.commands.talk import KEPT, REACTIONS

MUTED_CHANNEL = "muted/"  # a page channel: the person after the slash muted or blocked someone


def hears(line: ChatRow, me: str | None, player: bool, open_: bool, muted: frozenset[str]) -> bool:
    """Whether this person gets ``line`` (see the module docstring); ``player``: they
    hold a seat at the table; ``open_``: the match is over."""
    if line.person == me:
        return True
    if line.kind != "notice" and line.person in muted:
        return False
    return line.room == "players" or not player or open_


@dataclass(frozen=True, slots=True)
class Heard:
    """A chat line as one person's page shows it: ``menu``: the line's menu (mute and
    report) is offered, for someone else's message or reaction; ``host``: what the host's
    page offers about its speaker, ``silence`` or ``unsilence`` (let them talk again),
    "" on anyone else's page."""

    line: ChatRow
    menu: bool = False
    host: str = ""


def heard(line: ChatRow, me: str | None, host: bool, silenced: Set[str]) -> Heard:
    """``line`` on the page of person ``me`` (``host``: the table's host, who has silenced
    ``silenced``)."""
    menu = line.kind != "notice" and line.person != me
    choice = ("unsilence" if line.person in silenced else "silence") if menu and host else ""
    return Heard(line, menu, choice)


def heard_lines(store: Store, code: str, me: str | None, player: bool, open_: bool, muted: frozenset[str],
                host: bool, upto: int | None = None) -> tuple[Heard, ...]:
    """The lines of table ``code``'s last ``KEPT`` this person hears (see ``hears``), as
    their page shows them; only up to line ``upto`` when it is given."""
    silenced = store.silenced(code) if host else set()
    return tuple(heard(x, me, host, silenced) for x in store.chat_lines(code, KEPT)
                 if (upto is None or x.number <= upto) and hears(x, me, player, open_, muted))


def render_log(store: Store, code: str, me: str | None, player: bool, open_: bool, muted: frozenset[str],
               host: bool, csrf: str, upto: int | None = None, watchers_only: bool = False) -> str:
    """This person's chat at table ``code`` again, out of band (for their socket); with
    ``watchers_only``, "" when none of the watchers' lines they may hear is there (the end
    of a match changes nothing of their chat then)."""
    if watchers_only and not any(hears(x, me, player, True, muted) != hears(x, me, player, False, muted)
                                 for x in store.chat_lines(code, KEPT)):
        return ""
    lines = heard_lines(store, code, me, player, open_, muted, host, upto)
    return render_template("table/_chat_log.html", lines=lines, code=code, csrf=csrf, oob=True)



def render_said(code: str, said: Said, own: bool, host: bool, csrf: str, log: str = "") -> str:
    """A line said at table ``code``, as the sockets of one kind of listener get it (their
    own line, someone else's on the host's page, or on anyone else's): added to the chat,
    a reaction's bubble at the sender's plate, and after the host's notice the chat's
    tools as the table's chat now allows. ``log``: the listener's whole chat, sent
    instead of the line (the host's, after their notice: ``render_log``).

    A line someone says comes from a person the host has not silenced (a silenced person
    is refused), so the host's page offers to silence them."""
    return render_template("table/_said.html", said=said, line=said.line, log=Markup(log), csrf=csrf, code=code,
                           heard=heard(said.line, said.line.person if own else None, host, frozenset()),
                           reactions=tuple(REACTIONS.items()))


