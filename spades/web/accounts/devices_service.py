"""A person's devices and address, as services for their routes
(``spades.web.accounts.devices``): each signed-in device in words, signing one out, and
changing the account's email with a code sent to the new address (every rule and limit of
a sign-in code for that address, the site's mail for codes, the notice to the old
address), each answered with a small frozen view model (or a value), or an
``EmailRefusal`` the route says on ``/me``.

Imports: ``spades.accounts``, ``spades.mail`` and the web layer's allowance, limits and
services (no blueprint).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from ...accounts import (
    CODE_TTL,
    BadCode,
    BadEmail,
    EmailTaken,
    Expired,
    NoCode,
    SameEmail,
    SignInError,
    WrongCode,
    normalize_email,
)
from ...mail import MailError
from ..site.allowance import Budget, take_code, tally
from ..site.limits import hit, in_minutes
from ..site.services import accounts, hub, mailer
from .auth_service import ASK_PER_DEVICE

log = logging.getLogger(__name__)


# -- devices in words ---------------------------------------------------------------------
_BROWSERS = (  # the first that matches names the browser: those built on Chrome say Chrome too
    ("Edge", r"Edg(?:e|A|iOS)?/"), ("Opera", r"OPR/|Opera"), ("Samsung Internet", r"SamsungBrowser/"),
    ("Firefox", r"Firefox/|FxiOS/"), ("Chrome", r"Chrome/|CriOS/|Chromium/"), ("Safari", r"Safari/"),
)
_SYSTEMS = (
    ("iPhone", r"iPhone"), ("iPad", r"iPad"), ("Android", r"Android"), ("ChromeOS", r"CrOS"),
    ("Windows", r"Windows"), ("macOS", r"Mac OS X|Macintosh"), ("Linux", r"Linux|X11"),
)


def device_words(agent: str) -> str:
    """A browser and system in words, from a User-Agent.

    >>> device_words("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0")
    'Firefox on Windows'
    >>> device_words("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
    ...              "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1")
    'Safari on iPhone'
    >>> device_words("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    ...              "Chrome/131.0.0.0 Mobile Safari/537.36")
    'Chrome on Android'
    >>> device_words("curl/8.5.0"), device_words("")
    ('A browser', 'A browser')
    """
    browser = next((name for name, pattern in _BROWSERS if re.search(pattern, agent)), None)
    system = next((name for name, pattern in _SYSTEMS if re.search(pattern, agent)), None)
    if browser and system:
        return f"{browser} on {system}"
    if browser or system:
        return f"{browser} browser" if browser else f"A browser on {system}"
    return "A browser"


def _day(epoch: float) -> str:
    return time.strftime("%-d %b %Y", time.gmtime(epoch))


@dataclass(frozen=True, slots=True)
class DeviceLine:
    """One device as ``/me`` lists it."""

    id: str
    words: str
    first: str
    last: str
    this: bool

def devices_of(uid: str | None, sid: str | None) -> list[DeviceLine]:
    """Account ``uid``'s devices, this one (session ``sid``) first; none signed out."""
    if not uid:
        return []
    lines = [DeviceLine(d.id, device_words(d.agent), _day(d.created), _day(d.seen), d.sid == sid)
             for d in accounts().devices(uid)]
    return sorted(lines, key=lambda line: not line.this)


@dataclass(frozen=True, slots=True)
class SignedOut:
    """A device signed out: in words, and whether it is this one (then this session ends)."""

    words: str
    this: bool


def sign_out_device(uid: str, device: str, sid: str | None) -> SignedOut | None:
    """End account ``uid``'s session on ``device`` (whoever holds a copy of its cookie) and
    close its sockets; None for a device the account does not have."""
    ended = accounts().end_device(uid, device[:64])
    if ended is None:
        return None
    hub().signed_out(uid)  # each of the account's sockets looks its session up again, at once
    return SignedOut(device_words(ended.agent), ended.sid == sid)


def masked(email: str) -> str:
    """An address as a notice to another address shows it.

    >>> masked("nina@example.com")
    'n…@example.com'
    """
    local, _, domain = email.partition("@")
    return f"{local[:1]}…@{domain}"


# -- changing the address -----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class EmailRefusal:
    """A change of address refused: its status and sentence (said in ``/me``'s address
    section); ``forget``: the address the session waits on is dropped."""

    status: int
    message: str
    forget: bool = False


def _mail_full(budget: Budget, seconds: float) -> EmailRefusal:
    """No mail for this code this hour: say when to try again (as sign-in does)."""
    tally("refused")
    status = 429 if budget.scope.endswith("-network") else 503
    return EmailRefusal(status, f"The site cannot mail a code to that address now. Try again in {in_minutes(seconds)}.")


def ask_change(uid: str, typed: str, device_id: str | None, trusted_for: Callable[[str], bool],
               asker: Callable[[], str]) -> str | EmailRefusal:
    """Mail a code to the address ``typed`` to make it account ``uid``'s: the address
    (normalised) the session waits on from now. ``device_id``: this browser's device
    cookie's id, if any; ``trusted_for``: whether that cookie is for an address;
    ``asker``: this browser's sign-in id (made on first need)."""
    try:
        email = normalize_email(typed)
    except BadEmail as e:
        return EmailRefusal(422, str(e))
    trusted = trusted_for(email)
    if device_id is not None and trusted:
        wait = hit(ASK_PER_DEVICE, device_id, "email-ask-device")
        if wait is not None:
            return EmailRefusal(429, f"Too many tries. Try again in {in_minutes(wait)}.")
    elif (full := take_code(email, dry=True)) is not None:
        return _mail_full(*full)
    try:
        email, code = accounts().ask_email_change(uid, email, asker(), trusted)
    except EmailTaken as e:
        return EmailRefusal(409, str(e))
    except SameEmail as e:
        return EmailRefusal(422, str(e))
    except SignInError as e:  # too many codes or tries for that address: its sign-in limits
        return EmailRefusal(429, str(e))
    if trusted:
        tally("known")
    elif (full := take_code(email)) is not None:
        return _mail_full(*full)
    try:
        mailer().send(email, "Your Spades code to change your address", _code_text(code))
    except MailError as e:
        return EmailRefusal(503, str(e))
    return email


def confirm_change(uid: str, email: str, asker: str, code: str, trusted: bool) -> str | EmailRefusal:
    """Account ``uid`` takes the address ``email`` with ``code``, and the old address is
    told: the sentence that says so. Refused: 409 (the address taken meanwhile: the
    change is dropped), 422 a wrong code, 410 an expired or missing one, 429 out of tries."""
    try:
        old = accounts().change_email(uid, email, asker, code, trusted)
    except EmailTaken as e:
        return EmailRefusal(409, str(e), forget=True)
    except (BadCode, WrongCode) as e:
        return EmailRefusal(422, str(e))
    except (Expired, NoCode) as e:
        return EmailRefusal(410, str(e))
    except SignInError as e:  # out of tries, or the address closed
        return EmailRefusal(429, str(e))
    try:
        mailer().send(old, "Your Spades address was changed", _notice_text(email))
    except MailError:  # the change is made; the notice cannot be taken back nor held
        log.warning("the notice of an address change could not be mailed to the old address")
    return f"Your address is now {email}."


def _code_text(code: str) -> str:
    return (f"Your code to make this the address of your Spades account is\n\n    {code}\n\n"
            f"Type it on your page where you asked for it. It works once, for {CODE_TTL // 60} minutes.\n"
            "If you did not ask for it, ignore this mail: your address is not used without the code.\n")


def _notice_text(new: str) -> str:
    return (f"Your Spades account's address was changed to {masked(new)}.\n\n"
            "Sign-in codes now go to the new address. If this was not you, someone signed in as you changed "
            "it: reply to this mail so the people who run the site can give the account back to you.\n")
