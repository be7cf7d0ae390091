"""The site's hourly mail allowance, split into shares that nothing a stranger does can
pour into one another, and the counts that any mail route spends.

The site sends at most ``MAIL_HOURLY_CAP`` (500) messages in a clock
hour (UTC, by the accounts' clock), counted in the limiter's storage (Redis when set, so
across processes). Sign-in is the site's front door, so the cap is split into shares that
nothing a stranger does can pour into one another (``MailShares``; figures for 500):

- invitations: a fifth (100), besides each person's and client address's own limits;
- game nights' reminders: a tenth (50), besides each member's one a day per circle
  (``spades.circles.nights``); a reminder refused waits for a later hour;
- sign-in codes to browsers new to the address: two fifths (200), of which one network (an
  IPv4 /24, an IPv6 /64; ``spades.web.site.limits.network``) takes at most a 25th of the cap
  (20) and one recipient domain a fifth (100);
- the reserve, the rest (150): sign-in codes only, once the share above (or its network's
  or domain's part of it) is spent, one code an hour per network (IPv4 /24, IPv6 /48, so a
  block of addresses counts once) and a third of the reserve (50) per recipient domain.

So whoever sprays asks from N networks takes at most N codes of the reserve: a person on a
network new this hour gets a code while fewer than 150 networks (sprayers and people) drew
on the reserve and fewer than 50 codes of it went to the person's domain, and the hour's
mail stays within the cap (the shares add up to it). A browser that signed in to the
address before spends none of it (its mails are only counted, for the figures): only its
own asks limit it. A refused ask says why and when the hour ends (429 when the network
had its part, 503 when the site or the domain had). Each share that refuses is logged
once an hour, and ``/admin/mail`` shows the hour's figures to the accounts in
``ADMIN_EMAILS``. ``take`` is how any mail route spends its share
(``invitation_budgets`` for invitations, ``reminder_budgets`` for game nights' reminders,
``take_code`` for sign-in codes).

Imports: Flask, limits, ``spades.web.site.limits`` and ``spades.web.site.services``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from flask import current_app
from flask_limiter.util import get_remote_address
from limits import parse

from .limits import limiter, network, take_all
from .services import accounts

log = logging.getLogger(__name__)

MAIL_HOURLY_CAP = 500  # messages an hour from the whole site (setting MAIL_HOURLY_CAP)
MAIL_SCOPE = "mail-"  # the start of every mail budget's scope
HOUR = 3600
UNCAPPED = 10**9  # the limit of a count kept for the admin's figures only


@dataclass(frozen=True, slots=True)
class Budget:
    """A count kept in the limiter's storage: ``limit`` ("N per hour") for ``key`` in ``scope``.
    A mail budget counts the clock hour that ``ends`` then (its key names the hour); one
    with a ``note`` is a share of the site's mail, logged once an hour when it refuses."""

    limit: str
    key: str
    scope: str
    ends: float | None = None
    note: str = ""

    @property
    def mail(self) -> bool:
        """Whether this is the site's mail allowance (not a person's or an address's count)."""
        return self.scope.startswith(MAIL_SCOPE)


@dataclass(frozen=True, slots=True)
class MailShares:
    """How the hourly cap on mail is split (the module docstring says why).

    >>> s = MailShares(500)
    >>> s.invites, s.reminders, s.codes, s.reserve, s.codes_per_network, s.codes_per_domain, s.reserve_per_domain
    (100, 50, 200, 150, 20, 100, 50)
    >>> [sum((s.invites, s.reminders, s.codes, s.reserve)) == s.cap for s in map(MailShares, (0, 1, 30, 49, 500))]
    [True, True, True, True, True]
    """

    cap: int
    reserve_per_network: int = 1

    @property
    def invites(self) -> int:
        return self.cap // 5

    @property
    def reminders(self) -> int:
        return self.cap // 10

    @property
    def codes(self) -> int:
        return self.cap * 2 // 5

    @property
    def reserve(self) -> int:
        return self.cap - self.invites - self.reminders - self.codes

    @property
    def codes_per_network(self) -> int:
        return max(1, self.cap // 25)

    @property
    def codes_per_domain(self) -> int:
        return max(1, self.cap // 5)

    @property
    def reserve_per_domain(self) -> int:
        return max(1, self.reserve // 3)


def mail_shares() -> MailShares:
    return MailShares(max(0, int(current_app.config.get("MAIL_HOURLY_CAP", MAIL_HOURLY_CAP))))


def mail_hour() -> tuple[int, float]:
    """This clock hour (UTC) by the accounts' clock: its number and when it ends."""
    hour = int(accounts().clock() // HOUR)
    return hour, (hour + 1) * HOUR


def _mail(name: str, size: int, who: str, note: str = "") -> Budget:
    hour, ends = mail_hour()
    return Budget(f"{size} per hour", f"{hour}:{who}", MAIL_SCOPE + name, ends, note)


def invitation_budgets() -> list[Budget]:
    """The invitations' share of this hour's mail."""
    return [_mail("invites", mail_shares().invites, "site", "the invitations' share is spent: invitations wait")]


def reminder_budgets() -> list[Budget]:
    """The game nights' reminders' share of this hour's mail."""
    return [_mail("reminders", mail_shares().reminders, "site",
                  "the game nights' reminders' share is spent: reminders wait for the next hour")]


def code_budgets(email: str) -> tuple[list[Budget], list[Budget]]:
    """The budgets one sign-in code mail to ``email`` for this request's client is taken
    from: the codes' share (with its network's and domain's parts), else the reserve."""
    shares, domain, address = mail_shares(), email.rsplit("@", 1)[-1], get_remote_address()
    own = [_mail("codes", shares.codes, "site",
                 "the sign-in codes' share is spent: codes to new browsers come from the reserve, one per network"),
           _mail("codes-network", shares.codes_per_network, network(address)),
           _mail("codes-domain", shares.codes_per_domain, domain)]
    reserve = [_mail("reserve", shares.reserve, "site",
                     "the reserve for sign-in codes is spent: codes to new browsers wait (browsers that signed "
                     "in before still get theirs)"),
               _mail("reserve-network", shares.reserve_per_network, network(address, 48)),
               _mail("reserve-domain", shares.reserve_per_domain, domain)]
    return own, reserve


def take_code(email: str, dry: bool = False) -> tuple[Budget, float] | None:
    """Take one sign-in code mail to ``email`` from the codes' share, else from the reserve
    (``dry``: only look): None, or the reserve's budget without room and the seconds until
    the hour ends."""
    own, reserve = code_budgets(email)
    if take(own, dry=dry) is None:
        return None
    return take(reserve, dry=dry)


def tally(name: str) -> None:
    """Count one more ``name`` this hour for the figures only: "known", a code mailed to a
    browser that signed in to the address before (outside the cap); "refused", an ask
    refused for want of mail."""
    if limiter.enabled:
        budget = _mail(name, UNCAPPED, "site")
        limiter.limiter.hit(parse(budget.limit), budget.key, budget.scope)


def take(budgets: list[Budget], cost: int = 1, dry: bool = False) -> tuple[Budget, float] | None:
    """Take ``cost`` from every one of ``budgets``, or from none when one of them lacks the
    room (``dry``: only look): None, or the first without room and the seconds until it has
    some. Taken by ``spades.web.site.limits.take_all``: requests at the same moment to several
    workers never send past a cap, and a refused ask spends no share (so a stranger's asks
    refused by their own network's part cannot drain the share behind it)."""
    if not limiter.enabled:
        return None
    strategy = limiter.limiter
    counts = [(parse(b.limit), b.key, b.scope) for b in budgets]
    if dry:
        n = next((n for n, c in enumerate(counts) if not strategy.test(*c, cost=cost)), None)
    else:
        n = take_all(counts, cost)
    if n is None:
        return None
    budget = budgets[n]
    if budget.ends is not None:
        _spent(budget)
        return budget, max(1.0, budget.ends - accounts().clock())
    reset = strategy.get_window_stats(counts[n][0], budget.key, budget.scope).reset_time
    return budget, max(1.0, reset - time.time())


def _spent(budget: Budget) -> None:
    """Log a share of the mail that refuses, once an hour for every process together."""
    if not budget.note or not limiter.limiter.hit(parse("1 per hour"), budget.key, "logged-" + budget.scope):
        return
    item = parse(budget.limit)
    left = limiter.limiter.get_window_stats(item, budget.key, budget.scope).remaining
    until = time.strftime("%H:%M UTC", time.gmtime(budget.ends or 0))
    log.warning("mail: %s until %s (%d of %d sent this hour, cap %d)", budget.note, until, item.amount - left,
                item.amount, mail_shares().cap)


@dataclass(frozen=True, slots=True)
class MailFigure:
    """One line of the mail allowance's figures: what, how many sent this hour, of how many."""

    what: str
    sent: int
    size: int | None


def mail_figures() -> list[MailFigure]:
    """This hour's mail, share by share, for the people who run the site."""
    shares = mail_shares()
    lines = [("Invitations", "invites", shares.invites), ("Game-night reminders", "reminders", shares.reminders),
             ("Sign-in codes to new browsers", "codes", shares.codes),
             ("The reserve for sign-in codes", "reserve", shares.reserve)]
    figures = [MailFigure(what, _sent(_mail(name, size, "site")), size) for what, name, size in lines]
    figures.append(MailFigure("All of these", sum(f.sent for f in figures), shares.cap))
    for what, name in (("Codes to browsers that signed in before (not capped)", "known"),
                       ("Sign-in codes refused for want of mail", "refused")):
        figures.append(MailFigure(what, _sent(_mail(name, UNCAPPED, "site")), None))
    return figures


def _sent(budget: Budget) -> int:
    if not limiter.enabled:
        return 0
    item = parse(budget.limit)
    return item.amount - limiter.limiter.get_window_stats(item, budget.key, budget.scope).remaining
