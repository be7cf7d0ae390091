"""Circles as a service: a friend group's home (``CircleService``), public methods only.
``docs/circles.md`` says what a circle is and every rule here.

What the site (and the game nights and duplicate boards built on circles) call:

- the circle: ``create``, ``circle``, ``member`` (None unless in it now), ``members``
  (everyone who ever belonged), ``circles_of``;
- the invite link: ``invite_token`` (the current one), ``renew_invite`` (a new nonce: every
  older link is *replaced*), ``check_invite`` (bad, expired or replaced: a refusal each),
  ``join``; ``leave`` and ``remove`` (the owner; a removed member's results stay);
- tables: ``start_table`` (a room for the circle, every member invited), ``link_table``
  (a table made elsewhere, by a game night say, counts for the circle from now on),
  ``open_tables``;
- seasons: ``current_season`` (a month by default; the next one starts by itself),
  ``seasons``, ``next_season`` (the owner closes the current one);
- results: ``record`` (a result row for each finished match of the circle's tables not
  recorded yet: the page calls it before reading), ``standings`` (one season's, worked
  out once per new result and kept), ``recent``.

Each table started (the web's service tells it, with the rules in words), match recorded and
season closed is told to the circle's channel through ``news`` (``spades.circles.channel``:
queued, never sent here; a failure to queue never stops what it tells).

Every refusal is a ``CircleError`` with the sentence a person reads and the HTTP status
the web answers with (``status``).

Imports: stdlib, itsdangerous, ``spades.storage``, ``spades.tables`` (the table service),
``spades.stats`` and ``spades.fairness`` (a finished match's scores), ``spades.text``, the
circles' channel news and the rules core. Never Flask.
"""

from __future__ import annotations

import calendar
import logging
import re
import secrets
import threading
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from ..fairness import FairDeals
from ..rules import IllegalAction, NotationError
from ..rules_config import Rules, RulesError
from ..stats import replay
from ..storage import (
    CircleMemberRow,
    CircleResultRow,
    CircleRow,
    CirclesOwned,
    CircleTableRow,
    Duplicate,
    FinishedMatch,
    LinkCircleTable,
    NewCircle,
    NewSeason,
    Op,
    PutCircleMember,
    PutCircleNonce,
    PutCircleResult,
    PutOptions,
    PutSeason,
    SeasonRow,
    Store,
    WithinCircles,
)
from ..tables import TableService
from ..text import clean_text
from .channel import ChannelNews
from .standings import Standings, work_out

__all__ = [
    "CircleService", "CircleError", "CircleNotFound", "NotOwner", "BadCircleName", "TooManyCircles",
    "BadInvite", "InviteExpired", "InviteReplaced", "RemovedFromCircle", "OwnerStays", "NotInCircle",
    "NAME_MAX", "PER_DAY", "IN_ALL", "INVITE_MAX_AGE_S",
]

log = logging.getLogger(__name__)

NAME_MAX = 40  # characters of a circle's name
SLUG_MAX = 24  # characters of its address before its suffix
SUFFIX_LEN = 6  # random characters after the name's: 31**6 addresses for each name
PER_DAY = 5  # circles one person may make in a day
IN_ALL = 20  # ... and in all
INVITE_MAX_AGE_S = 30 * 86400.0  # an invite link works this long after it was made
_SALT = "spades-circle-invite"
_SUFFIX = "abcdefghjkmnpqrstuvwxyz23456789"
_CACHE = 256  # seasons' standings kept in memory


class CircleError(Exception):
    """A refusal, with the sentence a person reads; ``status`` is the web's answer."""

    status = 400


class CircleNotFound(CircleError):
    """No such circle (or, to the web, none this person may see)."""

    status = 404


class NotInCircle(CircleError):
    status = 404


class NotOwner(CircleError):
    status = 403


class BadCircleName(CircleError):
    status = 400


class TooManyCircles(CircleError):
    status = 429


class BadInvite(CircleError):
    """A link not signed by this site for this circle (garbled, or made up)."""

    status = 404


class InviteExpired(CircleError):
    status = 410


class InviteReplaced(CircleError):
    """A link signed with an older nonce: the owner renewed it since."""

    status = 410


class RemovedFromCircle(CircleError):
    status = 403


class OwnerStays(CircleError):
    status = 409


@dataclass(frozen=True, slots=True)
class Started:
    """A table started for a circle: its code and the people invited to it."""

    code: str
    invited: tuple[str, ...]


def slug_of(name: str) -> str:
    """A circle's address from its name: ASCII letters and digits in lower case, words
    joined by hyphens, at most ``SLUG_MAX`` characters ("circle" when nothing is left).

    >>> slug_of("Friday Spades!"), slug_of("Café  Ñandú"), slug_of("♠♠"), slug_of("New")
    ('friday-spades', 'cafe-nandu', 'circle', 'new')
    """
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    slug = re.sub(r"[^a-z0-9]+", "-", plain).strip("-")[:SLUG_MAX].strip("-")
    return slug or "circle"


def add_month(ts: float) -> float:
    """The same moment a calendar month later (UTC; the 31st becomes the month's last day)."""
    d = datetime.fromtimestamp(ts, UTC)
    year, month = (d.year + 1, 1) if d.month == 12 else (d.year, d.month + 1)
    day = min(d.day, calendar.monthrange(year, month)[1])
    return d.replace(year=year, month=month, day=day).timestamp()


class CircleService:
    """Every circle, over the store and the table service. ``secret``: the site's key (the
    invite links are signed with it). ``clock``: epoch seconds (tests pass a fake one)."""

    def __init__(self, store: Store, tables: TableService, secret: str, *,
                 clock: Callable[[], float] = time.time, invite_max_age_s: float = INVITE_MAX_AGE_S) -> None:
        self.store = store
        self.tables = tables
        self.clock = clock
        self.invite_max_age_s = float(invite_max_age_s)
        self._signer = URLSafeTimedSerializer(secret, salt=_SALT)
        self._lock = threading.RLock()  # seasons rolling on and results recorded, one at a time
        self._standings: OrderedDict[tuple[str, int], tuple[tuple[int, int], Standings]] = OrderedDict()
        self.news: ChannelNews | None = None  # the circles' channels (set by the web): news queued, never sent here

    # -- the circle ----------------------------------------------------------------------
    def create(self, owner: str, name: str) -> CircleRow:
        """A new circle owned (and joined) by ``owner``, its first season starting now.
        Raises BadCircleName (empty or longer than ``NAME_MAX``), TooManyCircles (``PER_DAY``
        in a day, ``IN_ALL`` in all)."""
        name = clean_text(name)
        if not name:
            raise BadCircleName("Give the circle a name.")
        if len(name) > NAME_MAX:
            raise BadCircleName(f"A circle's name has at most {NAME_MAX} characters.")
        now = self.clock()
        within = WithinCircles(owner, now - 86400, PER_DAY, IN_ALL)  # counted in the circle's transaction
        base = slug_of(name)
        for _ in range(20):
            # always a random suffix: an address says nothing of whether a circle of that
            # name exists already (a stranger's would-be name gets the same kind of address)
            slug = f"{base}-{''.join(secrets.choice(_SUFFIX) for _ in range(SUFFIX_LEN))}"
            row = CircleRow(slug, name, owner, now, secrets.token_urlsafe(8), now)
            try:
                self.store.commit([within, NewCircle(row),
                                   PutCircleMember(slug, CircleMemberRow(owner, "owner", "in", now)),
                                   PutSeason(slug, SeasonRow(1, now, add_month(now)))])
                return row
            except Duplicate:
                continue  # the address is taken: another suffix
            except CirclesOwned as e:
                if e.day:
                    raise TooManyCircles(f"You have made {PER_DAY} circles today, the most one person may in a "
                                         "day. Try again tomorrow.") from None
                raise TooManyCircles(f"You have made {IN_ALL} circles, the most one person may.") from None
        raise RuntimeError("no free circle address")  # pragma: no cover

    def circle(self, slug: str) -> CircleRow:
        """Raises CircleNotFound."""
        row = self.store.circle(slug)
        if row is None:
            raise CircleNotFound("There is no circle at this address.")
        return row

    def member(self, slug: str, person: str | None) -> CircleMemberRow | None:
        """The person's membership while they are in the circle; None otherwise (never in,
        left, removed, or nobody)."""
        if not person:
            return None
        m = self.store.circle_member(slug, person)
        return m if m is not None and m.state == "in" else None

    def members(self, slug: str) -> list[CircleMemberRow]:
        """Everyone who ever belonged, in the order they joined (``state`` says who is in)."""
        return self.store.circle_members(slug)

    def circles_of(self, person: str) -> list[tuple[CircleRow, str]]:
        """The circles a person is in, with their role, the newest first."""
        return self.store.person_circles(person)

    # -- the invite link -------------------------------------------------------------------
    def invite_token(self, slug: str) -> str:
        """The current invite link's token (signed: the circle and its nonce)."""
        c = self.circle(slug)
        return self._signer.dumps([c.slug, c.invite_nonce])

    def renew_invite(self, slug: str, by: str) -> str:
        """The owner draws a new invite link: every older one answers "replaced". Returns
        the new token. Raises CircleNotFound, NotOwner."""
        c = self._owned(slug, by)
        self.store.commit([PutCircleNonce(c.slug, secrets.token_urlsafe(8), self.clock())])
        return self.invite_token(slug)

    def check_invite(self, slug: str, token: str) -> CircleRow:
        """The circle an invite link is for. Raises BadInvite (not a link of this site for
        this circle), InviteExpired, InviteReplaced (the owner renewed it since)."""
        bad = BadInvite("This invite link is not valid: check that it was copied whole, or ask for a new one.")
        try:
            data = self._signer.loads(token, max_age=int(self.invite_max_age_s))
        except SignatureExpired:
            raise InviteExpired("This invite link has expired. Ask the circle's owner for a new one.") from None
        except (BadSignature, UnicodeError, ValueError, TypeError):
            raise bad from None
        if not (isinstance(data, list) and len(data) == 2 and data[0] == slug and isinstance(data[1], str)):
            raise bad
        c = self.store.circle(slug)
        if c is None:
            raise bad
        if not secrets.compare_digest(c.invite_nonce, data[1]):
            raise InviteReplaced("This invite link was replaced by a newer link. Ask the circle's owner for "
                                 "the new one.")
        return c

    def join(self, slug: str, token: str, person: str) -> CircleMemberRow:
        """The person follows a valid invite link and joins (again, after leaving). Being in
        already changes nothing. Raises what ``check_invite`` raises, RemovedFromCircle."""
        c = self.check_invite(slug, token)
        held = self.store.circle_member(c.slug, person)
        if held is not None and held.state == "in":
            return held
        if held is not None and held.state == "removed":
            raise RemovedFromCircle("The circle's owner removed you from it.")
        member = CircleMemberRow(person, "member", "in", self.clock())
        self.store.commit([PutCircleMember(c.slug, member)])
        return member

    def leave(self, slug: str, person: str) -> None:
        """The person leaves; their results stay. Raises NotInCircle, OwnerStays."""
        m = self.member(slug, person)
        if m is None:
            raise NotInCircle("You are not in this circle.")
        if m.role == "owner":
            raise OwnerStays("The owner keeps the circle: it has nobody else to run it.")
        self.store.commit([PutCircleMember(slug, CircleMemberRow(person, m.role, "left", m.joined, self.clock()))])

    def remove(self, slug: str, by: str, person: str) -> None:
        """The owner removes a member; their played results stay in the standings, and
        the invite link no longer lets them back in. Raises CircleNotFound, NotOwner,
        NotInCircle, OwnerStays (the owner themself)."""
        self._owned(slug, by)
        m = self.member(slug, person)
        if m is None:
            raise NotInCircle("That person is not in this circle.")
        if m.role == "owner":
            raise OwnerStays("The owner cannot remove themself.")
        self.store.commit([PutCircleMember(slug, CircleMemberRow(person, m.role, "removed", m.joined, self.clock()))])

    def _owned(self, slug: str, by: str) -> CircleRow:
        c = self.circle(slug)
        if c.owner != by:
            raise NotOwner("Only the circle's owner may do that.")
        return c

    # -- tables ----------------------------------------------------------------------------
    def start_table(self, slug: str, by: str, name: str, emoji: str, rules: Rules, level: str,
                    humans: int) -> Started:
        """A member starts a table for the circle: a room for ``humans`` people (the
        table service's, with its join code) whose options record the circle, counted in
        the current season; every other member is invited (the invitation rows the
        Rejoin list and "Invite again" read; the web sends the notices). Raises
        NotInCircle, and what ``TableService.create_room`` raises (BadAction, BadPlayer)."""
        if self.member(slug, by) is None:
            raise NotInCircle("You are not in this circle.")
        code = self.tables.create_room(by, name, emoji, rules, level, humans)
        season = self.link_table(slug, code, by)
        options = self.store.table_options(code)
        self.store.commit([PutOptions(code, {**options, "circle": slug, "season": season})])
        invited = tuple(m.person for m in self.members(slug) if m.state == "in" and m.person != by)
        if invited:
            self.store.invite(list(invited), code, name)
        return Started(code, invited)

    def link_table(self, slug: str, code: str, by: str | None = None) -> int:
        """Table ``code`` (made by the table service: a room, or a seated table of a game
        night or a week of boards) is played for the circle: its finished matches count in
        the season they finish in. Returns the season it was started in."""
        season = self.current_season(slug).number
        self.store.commit([LinkCircleTable(code.upper(), slug, season, by, self.clock())])
        return season

    def open_tables(self, slug: str) -> list[CircleTableRow]:
        """The circle's rooms waiting for people and tables being played, the newest first."""
        return self.store.circle_open_tables(slug)

    # -- seasons ---------------------------------------------------------------------------
    def current_season(self, slug: str) -> SeasonRow:
        """The season going on. One past its end closes there and the next starts (a
        month each; a circle idle for long starts its next season now)."""
        with self._lock:
            seasons = self.store.seasons(slug)
            if not seasons:
                raise CircleNotFound("There is no circle at this address.")
            now = self.clock()
            last = seasons[-1]
            if last.closed is None and now < last.ends:
                return last
            start = last.ends if last.closed is None else last.closed
            if now - start > 31 * 86400:  # idle for long: no empty seasons in between
                start = now
            ends = add_month(start)
            while ends <= now:
                start, ends = ends, add_month(ends)
            nxt = SeasonRow(last.number + 1, start, ends)
            ops: list[Op] = [NewSeason(slug, nxt)]
            if last.closed is None:
                ops.insert(0, PutSeason(slug, SeasonRow(last.number, last.started, last.ends, last.ends)))
            try:
                self.store.commit(ops)
            except Duplicate:  # another process rolled it on first
                return self.store.seasons(slug)[-1]
        if self.news is not None and last.closed is None:
            self.news.season_closed(slug, last.number)  # queued once per season (its key), never raises
        return nxt

    def seasons(self, slug: str) -> list[SeasonRow]:
        """Every season of the circle, the first first (the current one rolled on first)."""
        self.current_season(slug)
        return self.store.seasons(slug)

    def next_season(self, slug: str, by: str) -> SeasonRow:
        """The owner closes the season now and the next one starts (a month long).
        Raises CircleNotFound, NotOwner."""
        self._owned(slug, by)
        with self._lock:
            current = self.current_season(slug)
            now = self.clock()
            nxt = SeasonRow(current.number + 1, now, add_month(now))
            self.store.commit([PutSeason(slug, SeasonRow(current.number, current.started, current.ends, now)),
                               NewSeason(slug, nxt)])
        if self.news is not None:
            self.news.season_closed(slug, current.number)
        return nxt

    # -- results ---------------------------------------------------------------------------
    def record(self, slug: str) -> int:
        """A result row for every finished match of the circle's tables not recorded yet,
        in the season it finished in; returns how many were recorded."""
        pending = self.store.unrecorded_matches(slug)
        if not pending:
            return 0
        with self._lock:
            seasons = self.seasons(slug)
            ops = [PutCircleResult(slug, self._result(m, seasons)) for m in pending]
            self.store.commit(ops)
        if (news := self.news) is not None:
            for op in ops:  # key "match:<id>": told once however often this runs
                news.match_ended(slug, op.result)
        return len(ops)

    def _result(self, m: FinishedMatch, seasons: list[SeasonRow]) -> CircleResultRow:
        try:
            rules = Rules.from_dict(m.rules)
        except (RulesError, TypeError, ValueError):
            rules = Rules()
        shape = rules.shape
        season = next((s.number for s in reversed(seasons) if s.started <= m.finished), seasons[0].number)
        try:
            played = replay(asdict(rules), m.seed, ((seat, text) for _, seat, text in self.store.actions(m.match_id)),
                            FairDeals.stored(self.store.fair_deals(m.table_code, m.number), shape))
            scores = tuple(int(v) for v in played.scores)
        except (IllegalAction, NotationError, ValueError):  # a corrupt store: the winner alone
            log.exception("circle result: match %s could not be replayed", m.match_id)
            scores = tuple(0 for _ in shape.sides)
        return CircleResultRow(m.match_id, season, m.table_code, m.number, m.finished, rules.partners, m.seats,
                               tuple(tuple(side) for side in shape.sides), scores, m.winner)

    def standings(self, slug: str, season: int) -> Standings:
        """Season ``season``'s standings and partnerships (``standings.work_out``), worked
        out again only when the season has a new result."""
        self.record(slug)
        stamp = self.store.results_stamp(slug, season)
        key = (slug, season)
        with self._lock:
            held = self._standings.get(key)
            if held is not None and held[0] == stamp:
                self._standings.move_to_end(key)
                return held[1]
        worked = work_out(self.store.circle_results(slug, season))
        with self._lock:
            self._standings[key] = (stamp, worked)
            self._standings.move_to_end(key)
            while len(self._standings) > _CACHE:
                self._standings.popitem(last=False)
        return worked

    def recent(self, slug: str, limit: int = 10) -> list[CircleResultRow]:
        """The circle's last ``limit`` results, the newest first."""
        self.record(slug)
        return self.store.recent_results(slug, limit)
