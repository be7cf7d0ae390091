"""A circle's game nights (``NightService``): the owner schedules an evening (a day, a
time, an IANA time zone, weekly or not), members answer yes, maybe or no, and at the
start the site seats the people who said yes and are on the circle's page at tables of
four, partners by the circle's pairing rule, bots in the empty seats. ``docs/circles.md``
("Game nights") says every rule; the web's part is ``spades.web.circles.nights``.

``tick(now)``, run every few seconds by the web's worker thread:

- **Reminder**, in the 24 hours before an occurrence's start: one mail to each member
  who said yes or maybe or has not answered (not to those who said no), with an account
  and an address and who did not turn the circle's night mails off; each mail carries a
  signed link that turns them off without signing in (``stop_token``). It says when in
  words true at the moment it goes ("in 3 minutes", "tonight at 20:00", "tomorrow at
  20:00": ``soon_words``), in the night's zone, named; the site keeps no person's own
  time zone, so the reader's is not given. A member gets at most one reminder a day from
  a circle (``REMINDER_GAP_S``), however many nights it schedules, cancels and schedules
  again; and each reminder is taken from the site's hourly mail allowance (``allow``, the
  reminders' share): one it refuses is not sent, logged once (not again while the share
  stays spent) and tried again on a later tick, once the share has room, while the night
  has not started (a reminder an hour late still helps; none goes after the start).
- **Push notice**, in the 15 minutes before: one to each member who said yes or maybe.
- **Start**: tables for the people who said yes and whose circle page said "here" in
  the last ``here_s`` seconds (a minute); a weekly night then moves on to the same wall
  time in its zone a week later (its answers start afresh), any other is over.

The circle's channel (``spades.circles.channel``, through the circles' ``news``) is told the
day before, 15 minutes before and when the tables are made, once each (the post's key).

Each reminder, notice and move to a table is claimed once per person and occurrence in
the store before it is sent (``ClaimNightSend``), and a reminder once a day per person
and circle (``ClaimNightReminder``), so ticking twice, or two processes ticking, sends one.

Imports: stdlib, itsdangerous, icalendar, ``spades.mail``, ``spades.storage``,
``spades.tables`` (the table service and its bots' look) and the circles' service and
rules core. Never Flask.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

import icalendar
from itsdangerous import BadData, URLSafeSerializer

from ..mail import Mailer, MailError
from ..rules_config import Rules
from ..storage import (
    AddNightTable,
    ClaimNightSend,
    Conflict,
    DropNightSend,
    Duplicate,
    MoveNight,
    NewNight,
    NightRow,
    NightTableRow,
    PutFixedPair,
    PutHere,
    PutNightAnswer,
    PutNightMailOff,
    PutPairing,
    SeatRow,
    Store,
)
from ..storage.nights import ClaimNightReminder, DropNightReminder
from ..tables import BOT_EMOJI
from .service import CircleError, CircleService, NotInCircle, NotOwner

__all__ = [
    "ANSWERS", "HERE_S", "LENGTH_H", "BadZone", "NightError", "NightService", "PAIRINGS", "Seating", "REMIND_S",
    "REMINDER_GAP_S", "PUSH_S", "seat_people", "soon_words", "stop_token", "stopped_by", "zone_suggestions",
]

log = logging.getLogger(__name__)

ANSWERS = ("yes", "maybe", "no")
PAIRINGS = ("rotate", "fixed")
REMIND_S = 86400.0  # the reminder mail goes out in the day before the start
REMINDER_GAP_S = 86400.0  # a member's reminder mails of one circle are at least this far apart
PUSH_S = 15 * 60.0  # the push notice in the quarter of an hour before
HERE_S = 60.0  # "on the circle's page": its page said "here" this recently
LATE_S = 3600.0  # a start missed by more than this (the site was down) makes no tables
SEATED_S = 15 * 60.0  # a person's page sends them to a night's table made this recently
LENGTH_H = 3  # a night's length in the calendar file
PER_CIRCLE = 8  # scheduled nights a circle may have at once
BOT_NAMES = ("Rex", "Bea", "Kit", "Max")
LEVEL = "normal"  # the bots' level at a night's tables
_SALT = "spades-night-mails-off"

Push = Callable[[str, str, str, str], int]  # (person, title, body, url) -> notices sent
Allow = Callable[[], float | None]  # one mail taken from the allowance: None, else the seconds until it has room
EVENING = 17  # from this hour a start today is "tonight"
SUGGESTED = 3  # zone names suggested for one that is not a zone, at most


class NightError(CircleError):
    """Bad input for a night (a day, a time or a zone that is not one)."""

    status = 400


class BadZone(NightError):
    """A time zone that is not one, with the zone names that look like it (``zone_suggestions``)."""

    def __init__(self, message: str, suggestions: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.suggestions = tuple(suggestions)


class NoSuchNight(CircleError):
    status = 404


def stop_token(secret: str, circle: str, person: str) -> str:
    """The signed part of the link that turns a person's game-night mails of a circle off."""
    return URLSafeSerializer(secret, salt=_SALT).dumps([circle, person])


def stopped_by(secret: str, token: str) -> tuple[str, str] | None:
    """The circle and person a stop link is for; None for a forged or garbled one."""
    try:
        data = URLSafeSerializer(secret, salt=_SALT).loads(token)
    except (BadData, UnicodeError):
        return None
    if isinstance(data, list) and len(data) == 2 and all(isinstance(x, str) for x in data):
        return data[0], data[1]
    return None


def zone_of(name: str) -> ZoneInfo:
    """The IANA time zone ``name`` (``Europe/Paris``); BadZone (a NightError, with the
    names that look like it) when it is not one."""
    name = name.strip()
    if not name or len(name) > 64 or name not in _zones():
        shown = " ".join(name.split())[:64]
        if not shown:
            raise BadZone("Give the night's time zone, such as Europe/Paris or America/New_York.")
        like = zone_suggestions(name)
        if like:
            raise BadZone(f"\u201c{shown}\u201d is not a time zone name: did you mean {' or '.join(like)}?", like)
        raise BadZone(f"\u201c{shown}\u201d is not a time zone: give one such as Europe/Paris or America/New_York "
                      "(a region, a slash and a city).")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):  # pragma: no cover - listed but missing
        raise BadZone(f"\u201c{name}\u201d is not a time zone on this server.") from None


def _key(name: str) -> str:
    """A zone name as it is matched: no case, no spaces, underscores or hyphens."""
    return "".join(c for c in name.casefold() if c not in " _-\t")


def zone_suggestions(typed: str) -> tuple[str, ...]:
    """The zone names a person may have meant by ``typed`` (the whole name, or its last
    part, matched without case, spaces, underscores or hyphens), at most ``SUGGESTED``,
    the deepest names first (``America/Argentina/Buenos_Aires`` before its old alias).

    >>> zone_suggestions("New York"), zone_suggestions("europe/paris"), zone_suggestions("Mars")
    (('America/New_York',), ('Europe/Paris',), ())
    """
    key = _key(typed)[:80]
    if not key:
        return ()
    whole, last = _zone_keys()
    found = whole.get(key) or last.get(key) or []
    return tuple(sorted(found, key=lambda z: (-z.count("/"), z))[:SUGGESTED])


_ZONES: frozenset[str] = frozenset()
_KEYS: tuple[dict[str, list[str]], dict[str, list[str]]] | None = None


def _zones() -> frozenset[str]:
    global _ZONES
    if not _ZONES:
        _ZONES = frozenset(available_timezones()) | {"UTC"}
    return _ZONES


def _zone_keys() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Each zone name by its matching key, and by its last part's."""
    global _KEYS
    if _KEYS is None:
        whole: dict[str, list[str]] = {}
        last: dict[str, list[str]] = {}
        for z in sorted(_zones()):
            whole.setdefault(_key(z), []).append(z)
            last.setdefault(_key(z.rsplit("/", 1)[-1]), []).append(z)
        _KEYS = whole, last
    return _KEYS


def soon_words(starts: float, zone: str, now: float) -> str:
    """When a night starts, as a person says it at ``now``: in minutes within the hour,
    else the wall-clock time in the night's zone, named ("tonight at 20:00
    (Europe/Paris)", "today", "tomorrow", or the day and date further on).

    >>> at = epoch_of("2026-12-18T20:00", "Europe/Paris")
    >>> [soon_words(at, "Europe/Paris", at - h * 3600) for h in (0.05, 0.005, 12, 22)]
    ['in 3 minutes', 'in 1 minute', 'tonight at 20:00 (Europe/Paris)', 'tomorrow at 20:00 (Europe/Paris)']
    >>> soon_words(at, "Europe/Paris", at - 50 * 3600), soon_words(at, "America/New_York", at - 3 * 3600)
    ('on Friday 18 December at 20:00 (Europe/Paris)', 'today at 14:00 (America/New_York)')
    """
    left = starts - now
    if left < 3600:
        minutes = max(1, math.ceil(left / 60))
        return f"in {minutes} minute{'' if minutes == 1 else 's'}"
    tz = ZoneInfo(zone)
    wall = datetime.fromtimestamp(starts, tz)  # the moment's own wall time (a start in a clock change's gap too)
    today = datetime.fromtimestamp(now, tz).date()
    days = (wall.date() - today).days
    at = f"at {wall:%H:%M} ({zone})"
    if days == 0:
        return f"{'tonight' if wall.hour >= EVENING else 'today'} {at}"
    if days == 1:
        return f"tomorrow {at}"
    return f"on {wall:%A} {wall.day} {wall:%B} {at}"


def epoch_of(local: str, zone: str) -> float:
    """The moment wall-clock ``local`` (``YYYY-MM-DDTHH:MM``) happens in ``zone``."""
    return datetime.fromisoformat(local).replace(tzinfo=ZoneInfo(zone)).timestamp()


def week_later(local: str) -> str:
    """The same wall-clock time a week later (a weekly night's next occurrence)."""
    return (datetime.fromisoformat(local) + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")


@dataclass(frozen=True, slots=True)
class Seating:
    """One table of a night: each seat's person (None: a bot), seats 0 and 2 partners
    against 1 and 3."""

    seats: tuple[str | None, str | None, str | None, str | None]

    @property
    def people(self) -> tuple[str, ...]:
        return tuple(p for p in self.seats if p is not None)


def seat_people(people: Sequence[str], pairing: str, fixed: dict[str, str],
                history: Iterable[tuple[str, str]] = ()) -> tuple[list[Seating], list[tuple[str, str]]]:
    """The tables for ``people`` (in a stable order), partners by ``pairing``, and the
    new fixed pairs to keep.

    - ``rotate``: each person, in order, partners whoever left has partnered them least
      often before (``history``: each time two people partnered at the circle's nights).
    - ``fixed``: a kept pair partners whenever both come (``fixed``: person -> partner);
      people with no kept partner pair up in order and are kept from now on; someone
      whose kept partner is away partners another such person for the night only.

    An odd person out partners a bot. Pairs are dealt round the tables (as few tables of
    four as hold everyone) so no table has a lone person while another has four.

    >>> seat_people(["a", "b", "c", "d", "e"], "rotate", {})[0]
    [Seating(seats=('a', 'e', 'b', None)), Seating(seats=('c', None, 'd', None))]
    """
    order = list(dict.fromkeys(people))
    units: list[tuple[str, ...]] = []
    keep: list[tuple[str, str]] = []
    if pairing == "fixed":
        here = set(order)
        done: set[str] = set()
        for p in order:
            q = fixed.get(p)
            if p not in done and q in here and q not in done and fixed.get(q) == p:
                units.append((p, q))
                done |= {p, q}
        new = [p for p in order if p not in done and p not in fixed]
        for a, b in zip(new[::2], new[1::2], strict=False):
            units.append((a, b))
            keep.append((a, b))
            done |= {a, b}
        rest = [p for p in order if p not in done]
        units += [tuple(rest[i:i + 2]) for i in range(0, len(rest), 2)]
    else:
        counts: dict[frozenset[str], int] = {}
        for a, b in history:
            counts[frozenset((a, b))] = counts.get(frozenset((a, b)), 0) + 1
        left = list(order)
        while left:
            p = left.pop(0)
            if not left:
                units.append((p,))
                break
            q = min(left, key=lambda x: counts.get(frozenset((p, x)), 0))  # first of the least often
            left.remove(q)
            units.append((p, q))
    units.sort(key=len, reverse=True)  # the lone person last: dealt onto a table with room
    tables = max(1, -(-len(units) // 2))
    dealt: list[list[tuple[str, ...]]] = [[] for _ in range(tables)]
    for i, unit in enumerate(units):
        dealt[i % tables].append(unit)
    out = []
    for pair in dealt:
        seats: list[str | None] = [None, None, None, None]
        for side, unit in enumerate(pair):
            seats[side] = unit[0]
            seats[side + 2] = unit[1] if len(unit) > 1 else None
        out.append(Seating((seats[0], seats[1], seats[2], seats[3])))
    return [t for t in out if t.people], keep


@dataclass
class NightService:
    """Every circle's game nights, over the store, the table service and the circles.
    ``mailer``/``base_url``: the reminders (no ``base_url``, no mail: a mail's links need
    the site's address); ``allow``: takes each reminder from the site's mail allowance
    (None: no allowance); ``push``: notices to browsers; ``lock``: one tick at a time (a
    cluster's shared lock); ``clock``: epoch seconds."""

    store: Store
    circles: CircleService
    secret: str
    mailer: Mailer | None = None
    base_url: str | None = None
    push: Push | None = None
    lock: AbstractContextManager | None = None
    clock: Callable[[], float] = time.time
    here_s: float = HERE_S
    allow: Allow | None = None
    # until when the allowance refused reminders: this process asks it nothing more till
    # then (and logs nothing more); the allowance's own count holds across processes
    _held_until: float = dataclasses.field(default=0.0, init=False, repr=False)

    # -- scheduling ------------------------------------------------------------------------
    def schedule(self, slug: str, by: str, day: str, at: str, zone: str, weekly: bool) -> NightRow:
        """The owner schedules a night on ``day`` (``YYYY-MM-DD``) at ``at`` (``HH:MM``) in
        the IANA ``zone``. Raises NotOwner, NightError (a day, time or zone that is not
        one, a start gone by, too many nights)."""
        c = self.circles.circle(slug)
        if c.owner != by:
            raise NotOwner("Only the circle's owner may schedule a game night.")
        tz = zone_of(zone)
        try:
            d = date.fromisoformat(day.strip()[:10])
        except ValueError:
            raise NightError("Give the night's day as a date, such as 2026-12-18.") from None
        try:
            hh, mm = (int(x) for x in at.strip()[:5].split(":"))
            wall = datetime(d.year, d.month, d.day, hh, mm)
        except ValueError:
            raise NightError("Give the night's time as hours and minutes, such as 20:30.") from None
        local = wall.strftime("%Y-%m-%dT%H:%M")
        starts = wall.replace(tzinfo=tz).timestamp()
        now = self.clock()
        if starts <= now:
            raise NightError("That time has gone by in the night's time zone: choose a later one.")
        if starts > now + 366 * 86400:
            raise NightError("A game night is at most a year ahead.")
        if len(self.store.circle_nights(slug)) >= PER_CIRCLE:
            raise NightError(f"A circle has at most {PER_CIRCLE} game nights scheduled: cancel one first.")
        row = NightRow(secrets.token_hex(5), slug, local, tz.key, starts, bool(weekly), local, 0, "scheduled", now, by)
        self.store.commit([NewNight(row)])
        return row

    def cancel(self, slug: str, by: str, night_id: str) -> NightRow:
        """The owner cancels a night (every occurrence to come). Raises NotOwner, NoSuchNight."""
        night = self.night(slug, night_id)
        if self.circles.circle(slug).owner != by:
            raise NotOwner("Only the circle's owner may cancel a game night.")
        try:
            self.store.commit([MoveNight(night.id, night.occurrence, night.local, night.starts, "cancelled",
                                         night.occurrence)])
        except Conflict:
            pass  # it started or was cancelled meanwhile
        return night

    def set_pairing(self, slug: str, by: str, pairing: str) -> None:
        """The owner's choice of partners at the circle's nights: ``rotate`` or ``fixed``."""
        if self.circles.circle(slug).owner != by:
            raise NotOwner("Only the circle's owner may choose how partners are paired.")
        if pairing not in PAIRINGS:
            raise NightError("Choose how partners are paired: rotate or fixed.")
        self.store.commit([PutPairing(slug, pairing)])

    def pairing(self, slug: str) -> str:
        return self.store.night_pairing(slug)

    def night(self, slug: str, night_id: str) -> NightRow:
        """A night of this circle (any state). Raises NoSuchNight."""
        night = self.store.night(night_id[:40])
        if night is None or night.circle != slug:
            raise NoSuchNight("This circle has no such game night.")
        return night

    def nights(self, slug: str) -> list[NightRow]:
        """The circle's scheduled nights, the soonest first."""
        return self.store.circle_nights(slug)

    # -- answers and presence ----------------------------------------------------------------
    def answer(self, slug: str, person: str, night_id: str, answer: str) -> None:
        """A member answers the night's next occurrence: yes, maybe or no (again: changed)."""
        if self.circles.member(slug, person) is None:
            raise NotInCircle("You are not in this circle.")
        night = self.night(slug, night_id)
        if answer not in ANSWERS:
            raise NightError("Answer yes, maybe or no.")
        if night.state != "scheduled":
            raise NightError("This game night was cancelled." if night.state == "cancelled"
                             else "This game night is over.")
        self.store.commit([PutNightAnswer(night.id, night.occurrence, person, answer, self.clock())])

    def answers(self, night: NightRow) -> dict[str, str]:
        """Each member's answer to the night's next occurrence."""
        return self.store.night_answers(night.id, night.occurrence)

    def here(self, slug: str, person: str) -> str | None:
        """The member's circle page says "here". Returns the code of a table a night has
        just seated them at, once (their page then goes there), else None."""
        now = self.clock()
        self.store.commit([PutHere(slug, person, now)])
        for t in reversed(self.store.circle_night_tables(slug, since=now - SEATED_S)):
            if person in t.people:
                try:
                    self.store.commit([ClaimNightSend(t.night, t.occurrence, person, "seated", now)])
                except Duplicate:
                    return None  # sent there already: the page stays
                return t.code
        return None

    # -- mails turned off ----------------------------------------------------------------------
    def stop_mails(self, token: str) -> tuple[str, str] | None:
        """The stop link pressed: that person's game-night mails of that circle are off.
        Returns (circle, person); None for a link not signed here."""
        who = stopped_by(self.secret, token)
        if who is not None:
            self.store.commit([PutNightMailOff(who[0], who[1], self.clock())])
        return who

    # -- the calendar file -------------------------------------------------------------------
    def ics(self, night: NightRow, circle_name: str, page_url: str, host: str) -> bytes:
        """The night as an iCalendar file (icalendar builds it): its start in its zone
        (with the zone's VTIMEZONE), weekly from the first occurrence when it repeats, a
        UID that stays the night's, the circle's page as its URL; cancelled: so marked."""
        tz = ZoneInfo(night.zone)
        first = datetime.fromisoformat(night.first if night.weekly else night.local).replace(tzinfo=tz)
        cal = icalendar.Calendar()
        cal.add("prodid", "-//Spades with friends//Game nights//EN")
        cal.add("version", "2.0")
        ev = icalendar.Event()
        ev.add("uid", f"night-{night.id}@{host}")
        ev.add("dtstamp", datetime.fromtimestamp(night.created, UTC))
        ev.add("dtstart", first)
        ev.add("dtend", first + timedelta(hours=LENGTH_H))
        ev.add("summary", f"{circle_name}: game night")
        ev.add("description", f"Spades with {circle_name}. Answer and play from the circle's page: {page_url}")
        ev.add("url", page_url)
        if night.weekly:
            ev.add("rrule", {"freq": "weekly"})
        if night.state == "cancelled":
            ev.add("status", "CANCELLED")
        cal.add_component(ev)
        cal.add_missing_timezones()
        return cal.to_ical()

    # -- the tick ------------------------------------------------------------------------------
    def tick(self, now: float | None = None) -> list[str]:
        """Send what is due and start what starts (the module docstring). Returns the codes
        of the tables made."""
        now = self.clock() if now is None else now
        made: list[str] = []
        with self.lock or threading.Lock():
            for night in self.store.nights_due(now + REMIND_S):
                try:
                    if night.starts <= now:
                        made += self._start(night, now)
                        continue
                    members = {m.person for m in self.circles.members(night.circle) if m.state == "in"}
                    answers = self.answers(night)
                    self._remind(night, members, answers, now)
                    self._tell(night, "soon" if night.starts - now <= PUSH_S else "day", answers, now)
                    if night.starts - now <= PUSH_S:
                        self._notify(night, members, answers, now)
                except Exception:  # one night must not stop the others
                    log.exception("game night %s failed; trying again on the next tick", night.id)
        return made

    def when(self, night: NightRow) -> str:
        """The night's start in words, in its zone ("Friday 18 December 2026, 20:30 (Europe/Paris)")."""
        d = datetime.fromisoformat(night.local)
        return f"{d:%A} {d.day} {d:%B %Y, %H:%M} ({night.zone})"

    def _remind(self, night: NightRow, members: set[str], answers: dict[str, str], now: float) -> None:
        if self.base_url is None or self.mailer is None or now < self._held_until:
            return
        told = self.store.night_sent(night.id, night.occurrence, "mail")
        off = self.store.night_mail_off(night.circle)
        recent = self.store.reminded_since(night.circle, now - REMINDER_GAP_S)  # one a day from a circle
        circle = self.circles.circle(night.circle)
        due = [p for p in sorted(members - told - off - recent) if answers.get(p) != "no"]
        soon = soon_words(night.starts, night.zone, now)
        for n, person in enumerate(due):
            user = self.store.user(person)
            if user is None or not user.email:
                continue
            try:  # both at once: this occurrence's reminder, and the circle's one of the day
                self.store.commit([ClaimNightSend(night.id, night.occurrence, person, "mail", now),
                                   ClaimNightReminder(circle.slug, person, now, REMINDER_GAP_S)])
            except Duplicate:
                continue
            sent = False
            try:
                wait = self.allow() if self.allow is not None else None
                if wait is not None:
                    self._held_until = now + wait
                    log.warning("game night %s of %s: the mail allowance refused a reminder (%d waiting); "
                                "reminders are tried again in %d minutes", night.id, circle.slug, len(due) - n,
                                math.ceil(wait / 60))
                    return
                self._mail_reminder(night, circle.slug, circle.name, person, user.email, answers.get(person), soon)
                sent = True
            except MailError:
                log.warning("a game night's reminder could not be mailed; trying again on the next tick")
            finally:
                if not sent:  # the claims given back: a later tick tries again
                    self.store.commit([DropNightSend(night.id, night.occurrence, person, "mail"),
                                       DropNightReminder(circle.slug, person, now)])

    def _mail_reminder(self, night: NightRow, slug: str, name: str, person: str, email: str, said: str | None,
                       soon: str) -> None:
        """One reminder mail: when (``soon``, words true as it goes, and the day in the
        night's zone), what they answered, the page, the calendar file and the stop link."""
        assert self.mailer is not None and self.base_url is not None
        page = f"{self.base_url}/c/{slug}"
        stop = f"{self.base_url}/nights/off/{stop_token(self.secret, slug, person)}"
        answered = {"yes": "You said you would come.", "maybe": "You said maybe."}.get(
            said or "", "You have not answered yet: say whether you are coming on the circle's page.")
        body = (f"{name} plays Spades {soon}.\nWhen: {self.when(night)}.\n{answered}\n\n"
                f"The circle's page: {page}\nAdd it to your calendar: {page}/nights/{night.id}.ics\n\n"
                f"Be on the circle's page at the start: tables are made then from the people who said yes "
                f"and are there.\n\nTo stop the game-night mails of {name}: {stop}\n")
        headers = {"List-Unsubscribe": f"<{stop}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}
        self.mailer.send(email, f"Game night {soon}: {name}", body, headers=headers)

    def _notify(self, night: NightRow, members: set[str], answers: dict[str, str], now: float) -> None:
        if self.push is None:
            return
        told = self.store.night_sent(night.id, night.occurrence, "push")
        circle = self.circles.circle(night.circle)
        for person in sorted(members - told):
            if answers.get(person) not in ("yes", "maybe"):
                continue
            try:
                self.store.commit([ClaimNightSend(night.id, night.occurrence, person, "push", now)])
            except Duplicate:
                continue
            try:
                self.push(person, f"Game night soon: {circle.name}",
                          f"It starts {soon_words(night.starts, night.zone, now)}: open the circle's page to be "
                          "seated.", f"/c/{circle.slug}")
            except Exception:
                log.exception("a game night's push notice failed")

    def _start(self, night: NightRow, now: float) -> list[str]:
        """The occurrence starts: its tables, then the night moves on (or is over)."""
        if night.weekly:
            local = week_later(night.local)
            while epoch_of(local, night.zone) <= now:  # weeks missed while the site was down
                local = week_later(local)
            move = MoveNight(night.id, night.occurrence, local, epoch_of(local, night.zone), "scheduled",
                             night.occurrence + 1)
        else:
            move = MoveNight(night.id, night.occurrence, night.local, night.starts, "over", night.occurrence)
        try:
            self.store.commit([move])  # first, so no other tick starts this occurrence too
        except Conflict:
            return []
        if now - night.starts > LATE_S:
            return []
        members = {m.person for m in self.circles.members(night.circle) if m.state == "in"}
        answers = self.store.night_answers(night.id, night.occurrence)
        here = self.store.here_since(night.circle, now - self.here_s)
        people = [p for p, a in sorted(answers.items()) if a == "yes" and p in here and p in members]
        if not people:
            return []
        pairing = self.store.night_pairing(night.circle)
        history = [(t.people[s], t.people[s + 2]) for t in self.store.circle_night_tables(night.circle)
                   for s in (0, 1) if len(t.people) == 4 and t.people[s] and t.people[s + 2]]
        tables, keep = seat_people(people, pairing, self.store.fixed_partners(night.circle), history)
        if keep:
            self.store.commit([PutFixedPair(night.circle, a, b) for a, b in keep])
        names = self.store.names_of(people)
        season = self.circles.current_season(night.circle).number
        rules = Rules()
        made = []
        for n, table in enumerate(tables):
            seats = []
            for s, p in enumerate(table.seats):
                if p is None:
                    seats.append(SeatRow(s, "bot", None, BOT_NAMES[s], BOT_EMOJI))
                else:
                    name, emoji = names.get(p, ("", ""))
                    seats.append(SeatRow(s, "human", p, name or "Someone", emoji))
            options = {"kind": "friends", "level": LEVEL, "humans": len(table.people),
                       "rules": dataclasses.asdict(rules), "circle": night.circle, "season": season,
                       "night": night.id}
            code = self.circles.tables.create_seated(seats, rules, options, host=table.people[0])
            self.circles.link_table(night.circle, code, None)
            self.store.commit([AddNightTable(NightTableRow(night.id, night.occurrence, code,
                                                           tuple(p or "" for p in table.seats), now))])
            made.append(code)
            log.info("game night %s: table %s (%d of %d) for %s", night.id, code, n + 1, len(tables),
                     ", ".join(table.people))
        self._tell(night, "start", answers, now, len(made))
        return made

    def _tell(self, night: NightRow, stage: str, answers: dict[str, str], now: float, tables: int = 0) -> None:
        """The night's news for the circle's channel (``day``, ``soon``, ``start``), queued
        once per occurrence and stage (its key), never raising."""
        if self.circles.news is not None:
            self.circles.news.night(night.circle, night.id, night.occurrence, stage, self.when(night),
                                    soon_words(night.starts, night.zone, now), answers, tables)
