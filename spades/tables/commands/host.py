"""What the host decides at a table: a rematch (with a new partner) and who may watch.

Imports: stdlib, the core and the ``spades.tables`` modules below the actor.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...rules import IllegalAction
from ...storage import NewMatch, PutOptions
from ..decide import Decision, check_fresh, person_seat
from ..errors import BadAction, NotHost
from ..registry import PERSON, Command, Form, announce, declare, form_version
from ..state import Settings, TableState
from ..values import Announced, Player, Snapshot, Who

__all__ = ["Rematch", "SetWatching"]


@dataclass(frozen=True, slots=True)
class Rematch(Command):
    """The host starts a new match; ``partner`` (1-3, seats counted from the host) sits
    across. ``seed`` is the new match's (drawn by the service when empty: decisions are pure)."""

    version: int | None = None
    partner: int | None = None
    seed: str = ""


@dataclass(frozen=True, slots=True)
class SetWatching(Command):
    """The host lets people without a seat watch the table, or stops them."""

    on: bool


def _rematch_form(form: Form) -> Rematch:
    """``version`` and ``partner`` (empty: the same partner; 1, 2 or 3)."""
    version = form_version(form)
    text = form.get("partner", "")
    if text not in ("", "1", "2", "3"):
        raise BadAction("Choose your partner for the rematch.")
    return Rematch(version, int(text) if text else None)


def _watching_form(form: Form) -> SetWatching:
    """``watch``: ``on`` or ``off``."""
    choice = form.get("watch", "")
    if choice not in ("on", "off"):
        raise BadAction("Say whether people may watch: on or off.")
    return SetWatching(choice == "on")


def _rematch_news(event: Announced, who: str, snap: Snapshot) -> str:
    return "A new match begins."


@declare(Rematch, "rematch", senders=PERSON, route="rematch", form=_rematch_form, news=_rematch_news)
def rematch(state: TableState, who: Who, command: Rematch, now: float, settings: Settings) -> Decision:
    """A new match at the same table, same rules (house rules included), everyone still
    at it; with partners, the host's new partner and the one across swap seats (in
    cutthroat there is no partner to choose). Raises NotSeated, NotHost, IllegalAction,
    Stale, BadAction."""
    seat = person_seat(state, who)
    assert isinstance(who, Player)
    if state.row.host is not None and state.row.host != who.id:
        raise NotHost("Only the host starts a rematch.")
    if not state.match.finished:
        raise IllegalAction("The match is not over yet.")
    check_fresh(state, command.version)
    shape = state.match.rules.shape
    across = shape.partner(seat)
    if command.partner is not None and across is None:
        raise BadAction("Cutthroat: everyone plays alone, so there is no partner to choose.")
    if command.partner is not None and command.partner not in range(1, shape.players):
        raise BadAction("Choose the seat of your new partner: 1, 2 or 3.")
    seats = list(state.row.seats)
    if command.partner is not None and across is not None and (seat + command.partner) % shape.players != across:
        other = (seat + command.partner) % shape.players
        seats[across], seats[other] = (dataclasses.replace(seats[other], seat=across),
                                       dataclasses.replace(seats[across], seat=other))
    moved = tuple(seats) if seats != list(state.row.seats) else None
    state.event = announce(Rematch, seat)
    row = NewMatch(state.code, state.match_number + 1, command.seed, dataclasses.asdict(state.match.rules), moved)
    return Decision([row], reload=True, begin=True, seat=seat, conflict="A rematch has already started: here it is.")


@declare(SetWatching, "set_watching", senders=PERSON, route="watching", form=_watching_form)
def set_watching(state: TableState, who: Who, command: SetWatching, now: float, settings: Settings) -> Decision:
    """The host lets people without a seat watch, or stops them (their pages are closed);
    never at a table whose deals other tables play. Raises NotSeated, NotHost, IllegalAction."""
    seat = person_seat(state, who)
    assert isinstance(who, Player)
    if state.row.host != who.id:
        raise NotHost("Only the host decides who may watch.")
    if command.on and state.shares_deals():
        raise IllegalAction("Nobody watches this table: other tables play the same deals.")
    if state.watchable() == command.on:
        return Decision(publish=False, seat=seat)
    options = {**state.row.options, "watch": command.on}
    state.row = dataclasses.replace(state.row, options=options)
    return Decision([PutOptions(state.code, options)], seat=seat)
