"""Every table command, declared once.

A command is a small frozen value (a subclass of ``Command``) and one handler, declared
together with ``@declare`` in a module of ``spades.tables.commands``::

    @dataclass(frozen=True, slots=True)
    class Dismiss(Command):
        '''A person puts away the notice addressed to them.'''

    @declare(Dismiss, "dismiss", senders=PERSON, route="dismiss")
    def dismiss(state, who, command, now, settings) -> Decision: ...

The declaration says everything the rest of the service and the site need: the wire name
(what observers and the bus see), the handler (``spades.tables.decide`` dispatches on
it), who may send it (a person, the bot playing a seat, a seat's clock, the server), the
phase it applies to (a room waiting for its people, a table playing, or either), and,
for a command a person sends from a page, its route (``POST /g/<CODE>/<route>``, and the
``"route"`` of a move sent over the page's socket), how the posted form becomes the
command (``form``) and how the page is answered (``answer``). A command a seat is
*offered* now and then (Claim the rest, Undo) also declares when (``offer``: read into
each seat's ``Snapshot.offers``), its button (``button``: the template drawn in the
seat's hand area while it is offered), and its line in the table's news (``news``: what
the status line and screen readers say of its ``Event``, keyed by the wire name). The
command union (``Command``), the cluster's wire types, the service's one entry point
(``TableService.handle``), the web routes, the seats' offers, their buttons and the
news are all read from here.

Imports: stdlib and the other ``spades.tables`` value modules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import BadAction
from .values import ANNOUNCED, Announced, BotSeat, Player, Server, Timeout


class Command:
    """What someone asks of a table: every declared command is one of these."""

    __slots__ = ()


# who may send a command (checked before its handler runs)
PERSON: tuple[type, ...] = (Player,)
SERVER: tuple[type, ...] = (Server,)
MOVERS: tuple[type, ...] = (Player, BotSeat, Timeout)  # whoever plays a seat: its person, its bot, its clock

# the phases a command applies to
ROOM = "room"  # the table waits for its people (before the host starts it)
TABLE = "table"  # its match has started
ANY = "any"

# how the site answers a command posted from a page
TABLE_ANSWER = "table"  # the table's fragments (htmx) or a 303 back to it
HOME_ANSWER = "home"  # a 303 to the home page (the person left)
BEACON_ANSWER = "beacon"  # 204, nothing to show (navigator.sendBeacon)
ROOM_ANSWER = "room"  # a 303 back to the room, or the room with the refusal
CHAT_ANSWER = "chat"  # the chat's form (htmx; the line itself comes over the socket) or a 303 back

Form = Mapping[str, str]
Handler = Callable[..., Any]  # (state, who, command, now, settings) -> Decision
Offer = Callable[[Any, int], bool]  # (a playing TableState, seat) -> the seat's person is offered it now
News = Callable[[Any, str, Any], str]  # (its Announced, "You" or the mover's name, the viewer's Snapshot) -> the line


@dataclass(frozen=True)
class Declared:
    """One command's declaration (see the module docstring)."""

    cls: type
    name: str
    handler: Handler
    senders: tuple[type, ...]
    phase: str = TABLE
    route: str | None = None
    form: Callable[[Form], Command] | None = None
    answer: str = TABLE_ANSWER
    limited: bool = False  # the route counts unknown codes against the join limit (a beacon)
    offer: Offer | None = None  # when a seat is offered it (its name in ``Snapshot.offers``)
    button: str | None = None  # the template of its button, drawn while it is offered
    news: News | None = None  # its line in the table's news (``announce`` makes its event)

    def from_form(self, form: Form) -> Command:
        """The command a posted form asks for. Raises BadAction with the reason."""
        return self.form(form) if self.form is not None else self.cls()


_BY_TYPE: dict[type, Declared] = {}
_BY_NAME: dict[str, Declared] = {}
_OFFERED: list[Declared] = []  # the commands offered now and then, in the order declared


def declare(cls: type, name: str, *, senders: tuple[type, ...], phase: str = TABLE, route: str | None = None,
            form: Callable[[Form], Command] | None = None, answer: str = TABLE_ANSWER,
            limited: bool = False, offer: Offer | None = None, button: str | None = None,
            news: News | None = None) -> Callable[[Handler], Handler]:
    """Declare ``cls`` as the command ``name`` handled by the decorated function."""
    def register(handler: Handler) -> Handler:
        if cls in _BY_TYPE or name in _BY_NAME:
            raise ValueError(f"command {name} ({cls.__name__}) is declared twice")
        if button is not None and offer is None:
            raise ValueError(f"command {name} has a button but no offer saying when it shows")
        _BY_TYPE[cls] = _BY_NAME[name] = Declared(cls, name, handler, senders, phase, route, form, answer, limited,
                                                  offer, button, news)
        if offer is not None:
            _OFFERED.append(_BY_NAME[name])
        if news is not None:
            ANNOUNCED[name] = news
        return handler
    return register


def declared(command: Command | type) -> Declared:
    """The declaration of a command (or of its class). Raises KeyError for an undeclared one."""
    return _BY_TYPE[command if isinstance(command, type) else type(command)]


def command_name(command: Command) -> str:
    """The command's wire name (``move``, ``take_over``, ...)."""
    return declared(command).name


def every() -> Iterator[Declared]:
    """Every declared command, in the order they were declared."""
    return iter(list(_BY_TYPE.values()))


def offers(state: Any, seat: int | None) -> frozenset[str]:
    """The names of the commands ``seat``'s person is offered now (none for a watcher)."""
    if seat is None:
        return frozenset()
    return frozenset(d.name for d in _OFFERED if d.offer is not None and d.offer(state, seat))


def buttons(offered: frozenset[str]) -> tuple[str, ...]:
    """The templates of the buttons of the ``offered`` commands, in the order declared."""
    return tuple(d.button for d in _OFFERED if d.name in offered and d.button is not None)


def announce(command: type, seat: int, detail: str = "", hand_over: bool = False) -> Announced:
    """The event of ``command`` (a declared command's class) done for ``seat``: its line in
    the news is the one it declares."""
    return Announced(seat, declared(command).name, detail, hand_over)


def routed() -> Iterator[Declared]:
    """The commands a person sends from a page, each with its route."""
    return (d for d in every() if d.route is not None)


def form_version(form: Form) -> int:
    """The table version a posted move was made at. Raises BadAction."""
    text = form.get("version", "")
    if not (text.isascii() and text.isdigit()) or len(text) > 9:
        raise BadAction("The move did not say which version of the table it was made on. Reload the page.")
    return int(text)
