""""Your turn" notices for turn-based tables, by mail and by push.

A turn-based table stores whom it waits on (``spades.storage.turns``), whether the
person had no page of the table open as the wait began (``notify``), and when their last
page of it closed if they left during the wait (``away``; cleared when one opens again).
Every tick:

- **Your turn.** Each person with waits not told yet, who had no page of the table open
  as the wait began or has had none open for ``away_s`` (``AWAY_S``, two minutes) during
  it, gets one mail listing every table waiting on them (the least time left first), at
  most one every ``MAIL_EVERY_S`` (an hour): waits due within the hour after a mail are
  told in the next one. A push notice ("Your turn at <table>") goes to each of the
  person's browsers that allowed them, for every wait as it is found (``push``). Each
  wait is told once; someone back within the grace is told nothing.
- **Time running out.** Once ``WARN_SHARE`` (80%) of a move's time is used, one warning
  by mail (outside the hourly rule) and by push.

Mail goes only to people with an account and an address, who did not turn the notice
mails off; every mail carries a signed link that turns them off without signing in
(``unsubscribe_token``; its route is ``spades.web.rooms.notices``: one press on its page, or
the one-click POST that mail programs send from the ``List-Unsubscribe`` header, RFC
8058). A notice names tables and how long is left; never a card.

In a cluster one process ticks at a time (the caller passes a shared lock), and a wait's
notice is marked as sent with the wait it was for, so nobody is told twice.

Imports: stdlib, itsdangerous, ``spades.clocks``, ``spades.mail`` and ``spades.storage``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass

from itsdangerous import BadData, URLSafeSerializer

from .clocks import time_left
from .mail import Mailer, MailError
from .storage import Store, TurnRow

log = logging.getLogger(__name__)

MAIL_EVERY_S = 3600.0  # at most one "your turn" mail per person this often
WARN_SHARE = 0.8  # the warning goes out once this share of a move's time is used
AWAY_S = 120.0  # a person whose pages of a table waiting on them all closed is told after this
_SALT = "spades-notices-off"

Push = Callable[[str, str, str, str], int]  # (person, title, body, url) -> notices sent


def unsubscribe_token(secret: str, person: str) -> str:
    """The signed part of the link that turns a person's notice mails off."""
    return URLSafeSerializer(secret, salt=_SALT).dumps(person)


def unsubscribed_person(secret: str, token: str) -> str | None:
    """Whose link this is; None for a forged or garbled one."""
    try:
        person = URLSafeSerializer(secret, salt=_SALT).loads(token)
    except BadData:
        return None
    return person if isinstance(person, str) else None


@dataclass
class Notices:
    """The notices' worker: ``tick(now)`` tells whoever is due (see the module docstring).
    ``base_url``: the site's public address for the links (None: no mail is sent, as an
    invitation would not be); ``push``: sends a push notice to a person's browsers;
    ``away_s``: how long a person's pages of a table waiting on them must all have been
    closed before they are told."""

    store: Store
    mailer: Mailer
    secret: str
    base_url: str | None
    push: Push | None = None
    lock: AbstractContextManager | None = None
    clock: Callable[[], float] = time.time
    away_s: float = AWAY_S

    def tick(self, now: float | None = None) -> None:
        now = self.clock() if now is None else now
        with self.lock or threading.Lock():
            self._warnings(now)
            self._your_turn(now)

    def _your_turn(self, now: float) -> None:
        due: dict[str, list[TurnRow]] = defaultdict(list)
        for t in self.store.notices_due(away_by=now - self.away_s):
            due[t.person].append(t)
        for person, turns in due.items():
            fresh = [t for t in turns if not t.pushed]
            for t in fresh:
                self._push(person, f"Your turn at {t.code}", f"{time_left(t.deadline, now)} left"
                           if t.deadline is not None else "No clock: whenever you are ready.", t.code)
            self.store.mark_turns(fresh, "pushed")
            address = self._address(person)
            mail_off, last = self.store.mail_prefs(person)
            if address is None or mail_off:
                self.store.mark_turns(turns, "notified")  # nothing to mail
                continue
            if last is not None and now - last < MAIL_EVERY_S:
                continue  # told in the next mail, once the hour is over
            waiting = self.store.waiting_on(person)
            lines = [f"- Table {t.code}: " + (f"{time_left(t.deadline, now)} left" if t.deadline is not None
                                               else "no clock") for t in waiting]
            subject = "Your turn at " + (f"table {waiting[0].code}" if len(waiting) == 1 else f"{len(waiting)} tables")
            links = "\n".join(f"{self.base_url}/g/{t.code}" for t in waiting)
            if self._mail(person, address, subject, "It is your turn at:\n" + "\n".join(lines) + "\n\n" + links):
                self.store.mailed(person, now)
                self.store.mark_turns(turns, "notified")

    def _warnings(self, now: float) -> None:
        for t in self.store.warnings_due(now, WARN_SHARE):
            left = time_left(t.deadline, now)
            self._push(t.person, f"Time is running out at {t.code}", f"{left} left for your move", t.code)
            address = self._address(t.person)
            mail_off, _ = self.store.mail_prefs(t.person)
            if address is not None and not mail_off:
                self._mail(t.person, address, f"{left} left at table {t.code}",
                           f"Your move at table {t.code} has {left} left; then a bot plays it for you.\n\n"
                           f"{self.base_url}/g/{t.code}")
            self.store.mark_turns([t], "warned")

    def _address(self, person: str) -> str | None:
        if self.base_url is None:
            return None
        user = self.store.user(person)
        return user.email if user is not None and user.email else None

    def _mail(self, person: str, address: str, subject: str, text: str) -> bool:
        off = f"{self.base_url}/notices/off/{unsubscribe_token(self.secret, person)}"
        body = f"{text}\n\nTo stop these mails: {off}\n"
        # RFC 8058: mail programs offer their own button, which POSTs to the link at once
        headers = {"List-Unsubscribe": f"<{off}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}
        try:
            self.mailer.send(address, subject, body, headers=headers)
            return True
        except MailError:
            log.warning("a turn notice could not be mailed; trying again on the next tick")
            return False

    def _push(self, person: str, title: str, body: str, code: str) -> None:
        if self.push is None or self.base_url is None:
            return
        try:
            self.push(person, title, body, f"{self.base_url}/g/{code}")
        except Exception:
            log.exception("a push notice failed")
