"""Signing in, as services for its routes (``spades.web.accounts.auth``): asking for a code
(the address's and the device's limits, the site's hourly mail, the mail itself), signing
in with it (the browser's tables following it into the account, a new session in the
store), signing out here or everywhere, and whether a session still holds. Each answers
with a small frozen value or a ``StepRefusal`` (the step's page, its status and sentence)
that the route turns into its answer; the session's cookie is the route's to write.

Imports: ``spades.accounts``, ``spades.mail`` and the web layer's allowance, limits and
services (no blueprint).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ...accounts import (
    CODE_TTL,
    BadCode,
    BadEmail,
    Expired,
    Locked,
    NoCode,
    SignInError,
    TooManyCodes,
    TooManyTries,
    WrongCode,
    normalize_email,
)
from ...mail import MailError
from ..site.allowance import Budget, take_code, tally
from ..site.limits import hit
from ..site.services import accounts, hub, mailer, service

ASK_PER_ADDRESS = "15 per 10 minutes;30 per hour"  # a household's asks; each email has its own 5 an hour
ASK_PER_DEVICE = "10 per hour"  # a browser that signed in to the address before: its own asks only
TRY_PER_ADDRESS = "10 per 2 minutes;30 per hour"


@dataclass(frozen=True)
class StepRefusal:
    """A sign-in step refused: its status and sentence, said on the code form
    (``on_code_form``, with a button for a new code when ``offer_new``) or on the sign-in
    form (``email``: the address shown there again); ``hold``: the address the session
    holds from now on (the one the code form is for), None to leave it as it is."""

    status: int
    message: str
    on_code_form: bool = False
    email: str = ""
    offer_new: bool = False
    hold: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


def held_up(seconds: float) -> str:
    """The sentence of a step tried too often: when to try again."""
    # reset times are rounded up to the next whole second: round, not ceil, to say "2 minutes"
    wait = max(1, round(seconds / 60))
    s = "" if wait == 1 else "s"
    return f"Too many tries. Try again in {wait} minute{s}."


def mail_text(code: str) -> str:
    return (f"Your sign-in code for Spades with friends is\n\n    {code}\n\n"
            f"Type it on the page where you asked for it. It works once, for {CODE_TTL // 60} minutes.\n"
            "If you did not ask for it, ignore this mail: nobody can sign in without the code.\n")


def _mail_full(budget: Budget, seconds: float, email: str) -> StepRefusal:
    """No mail for this code this hour: why and when to try again (429 when this network
    had its part, 503 when the site or the domain had)."""
    tally("refused")
    minutes = max(1, round(seconds / 60))
    when = f"Try again in {minutes} minute{'' if minutes == 1 else 's'}, or from a browser where you signed in before."
    if budget.scope.endswith("-network"):
        message, status = f"Many sign-in codes have been sent to people on your network this hour. {when}", 429
    elif budget.scope.endswith("-domain"):
        domain = email.rsplit("@", 1)[-1]
        message, status = f"Many sign-in codes have been sent to addresses at {domain} this hour. {when}", 503
    else:
        message, status = f"The site has sent all the mail it may send this hour. {when}", 503
    return StepRefusal(status, message, email=email, headers={"Retry-After": str(int(seconds) + 1)})


def ask_for_code(typed: str, held: str | None, device_id: str | None, trusted_for: Callable[[str], bool],
                 asker: Callable[[], str]) -> str | StepRefusal:
    """Mail a code to the address ``typed``: the address (normalised) the session holds
    from now on. ``held``: the address the session holds now (asking again from the code
    form); ``device_id``: this browser's device cookie's id, if any; ``trusted_for``:
    whether that cookie is for an address; ``asker``: this browser's sign-in id (made on
    first need). The same answer for every well-formed address, known or not."""
    try:
        email = normalize_email(typed)
    except BadEmail as e:
        return StepRefusal(422, str(e), email=typed[:254])
    trusted = trusted_for(email)
    if device_id is not None and trusted:
        wait = hit(ASK_PER_DEVICE, device_id, "signin-ask-device")
        if wait is not None:
            return StepRefusal(429, held_up(wait))
    elif (full := take_code(email, dry=True)) is not None:
        return _mail_full(*full, email)
    try:
        code = accounts().request_code(email, asker(), trusted)
    except TooManyTries as e:
        return StepRefusal(429, str(e), on_code_form=True, hold=email)
    except (TooManyCodes, Locked) as e:
        if held == email:  # asked again from the code form: a code held still works
            return StepRefusal(429, str(e), on_code_form=True)
        return StepRefusal(429, str(e), email=email)
    if trusted:
        tally("known")
    elif (full := take_code(email)) is not None:  # taken only for a mail that goes
        return _mail_full(*full, email)
    try:
        mailer().send(email, "Your Spades sign-in code", mail_text(code), None)
    except MailError as e:
        return StepRefusal(503, str(e), email=email)
    return email


@dataclass(frozen=True, slots=True)
class SignedIn:
    """An account signed in to: its id, session generation and new session id, the name
    and emoji to keep in the session ("" for none), and whether it has a name of its own
    (else the name step comes first)."""

    uid: str
    gen: int
    sid: str
    name: str
    emoji: str
    named: bool


def sign_in_with_code(email: str, asker: str, code: str, trusted: bool, anon: str | None, name: str,
                      emoji: str) -> SignedIn | StepRefusal:
    """Sign in to ``email`` with ``code`` (asked for by ``asker``): refusals on the code form
    (422 a wrong code, 410 an expired or missing one with a new one offered, 429 out of
    tries). ``anon``: this browser's player id when it was not signed in, whose seats
    and open tables follow it into the account; ``name``/``emoji``: the ones it goes by."""
    try:
        accounts().check_code(email, asker, code, trusted)
    except (BadCode, WrongCode) as e:
        return StepRefusal(422, str(e), on_code_form=True)
    except (Expired, NoCode) as e:
        return StepRefusal(410, str(e), on_code_form=True, offer_new=True)
    except (TooManyTries, Locked) as e:
        return StepRefusal(429, str(e), on_code_form=True)
    except SignInError as e:  # pragma: no cover - every refusal is listed above
        return StepRefusal(400, str(e), on_code_form=True)
    user, moved = accounts().sign_in(email, anon, name, emoji)
    if anon:
        service().reload_seats(moved, {anon: user.id})
    known_name, known_emoji = accounts().store.known_player(user.id) or (user.name, user.emoji)
    sid = accounts().new_session(user.id)
    if anon:  # this browser's open tables follow it into the account, in the session just begun
        hub().rebind(anon, user.id, user.session_gen, sid)
    # "You": a practice's stand-in, not a name of the person's own
    return SignedIn(user.id, user.session_gen, sid, known_name, known_emoji, user.name not in ("", "You"))


def sign_out(sid: str | None, uid: str | None) -> None:
    """End session ``sid`` (a copied cookie is signed out too) and look again at account
    ``uid``'s sockets' sessions in every process (this one's close at once)."""
    accounts().end_session(sid)
    if uid:
        hub().signed_out(uid)


def sign_out_everywhere(uid: str | None) -> None:
    """End every session of account ``uid``, close its open sockets in every process, and
    forget its browsers' push subscriptions (no device of theirs hears of their turns)."""
    if uid:
        accounts().sign_out_everywhere(uid)
        hub().signed_out(uid)
        accounts().store.remove_push_subscriptions(uid)


def session_ended(uid: str | None, gen: object, sid: str | None, pid: str | None) -> bool:
    """Whether a session is over: signed out everywhere (or its account gone), or an
    anonymous one that somehow carries an account's player id."""
    if uid:
        return not accounts().session_valid(uid, gen, sid)
    return pid is not None and pid != "" and accounts().store.is_account(pid)


def account_of(uid: str | None) -> dict | None:
    """Account ``uid``'s email, name and emoji (the name last chosen anywhere), or None."""
    if not uid:
        return None
    store = accounts().store
    user = store.user(uid)
    if user is None:
        return None
    name, emoji = store.known_player(uid) or (user.name, user.emoji)  # the name last chosen anywhere
    return {"email": user.email, "name": name, "emoji": emoji}
