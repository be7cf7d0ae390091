"""Accounts: passwordless sign-in with an emailed code, moving a browser's anonymous games
to the account, session generations ("sign out on every device") and idle expiry, a
person's matches and record, and ratings (openskill, Plackett-Luce): the partnership
rating (two teams of two) and the cutthroat rating (every player a side alone).

Sign-in codes: six digits from ``secrets``, stored only as an HMAC-SHA256 keyed with the
app's secret; valid for ``CODE_TTL`` seconds and for one use; bound to the browser that
asked (``asker``, a random id in its session), which alone may try it; asking again voids
that browser's previous code (another browser's codes are untouched, so a stranger asking
for someone's address, or guessing, never burns or voids that person's code); ``MAX_TRIES``
tries per code, each counted in the database *before* the comparison (so parallel guesses
cannot overrun it), compared with ``hmac.compare_digest``.
Codes are never logged. A code is sent whether or not the address has an account (the
account is made when the code is used), so the answer never tells who has one.

Guards per address, that no stranger can turn against the person (``trusted``: the
browser asking carries the signed device cookie the web layer sets when it signs in to
that address, ``spades.web.site.identity``):

- At most ``CODES_PER_HOUR`` codes an hour for an address to browsers that are not
  trusted, whoever asks (``TooManyCodes``): the site cannot be used to flood an inbox, and
  guessing is bounded whatever the guessers' addresses: 5 codes of 5 tries, 25 guesses
  an hour. A trusted browser is never counted nor refused by it.
- ``MAX_FAILURES`` (100) wrong tries in a row for an address, from every browser and
  address together, and the address is closed to browsers that are not trusted for
  ``LOCK_S`` (an hour): no code is asked or tried there (``Locked``, which says to ask
  from a browser where the person signed in before, or to wait). The count starts again
  from 0 when the address signs in; after the hour each further wrong try closes it for
  another hour, so past the cap guessing runs at one try an hour. A trusted browser asks
  and signs in as usual (its wrong tries count towards the cap, but it is never refused).
- A code a person holds is never refused because others guessed: tries are counted per
  code, and a code belongs to its asker. The one exception is the cap above: while the
  address is closed, a browser that is not trusted cannot use a code it already holds.

Changing an account's address (``ask_email_change``, ``change_email``): a code mailed to
the new address under every rule and limit above for that address, but bound to the change
(its asker is the browser's for that account's change), so it signs nobody in and a
sign-in code changes nothing. Each address keeps its own guard row: the old address's
wrong tries and lock stay with it, and the new one's with it. An address another account
has is refused (``EmailTaken``), checked again as the change is written.

A person's devices (``devices``, ``end_device``): each live session, named by a keyed hash
of its id (``device_id``: the id itself is what its cookie carries), with its User-Agent.

Signed-in sessions end after ``idle_s`` seconds without use (``SESSION_IDLE_DAYS`` in the
web layer, 30 days): each session's last use is kept with it in the database, refreshed
at most once every ``SEEN_EVERY`` seconds (a day), so the check costs no write on most
requests; a session kept from before uses were stored counts from its next use.

Ratings are updated once per finished match, in the order matches finished
(``rate_pending``), each match in one of a person's two ratings, stored apart
(``spades.storage.people``: ``PARTNERS`` and ``CUTTHROAT``):

- The partnership rating: a match with partners is two teams of two (``Rules.shape.sides``:
  seats 0 and 2, 1 and 3), ranked by the winner (level at the cap: a tie). House rules
  that keep the partners (jokers, whiz, mirror, suicide, a minimum bid, 10-for-200,
  spades led any time, no bidding) change the cards and the bids, not who plays with
  whom, so those matches count here as every other match with partners.
- The cutthroat rating: a match without partners (three or four players) is one team of
  one per player, ranked by the final scores (the highest first; equal scores share a
  place, which only a draw at the cap leaves at the top). The match is replayed to read
  them. Three- and four-player cutthroat count in the same rating.

Either way a match is rated only when every seat is a different player (a person, or a
bot rated as ``bot:<level>:<seat>``, so the side it plays has a rating to lean on); a seat
left to a bot for good is rated as that bot, never as the person who left.

Imports: stdlib, openskill, ``spades.storage``, ``spades.stats`` and the core. Never Flask.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from openskill.models import PlackettLuce

from .bots import DEFAULT_LEVEL
from .fairness import FairDeals
from .rules import IllegalAction, Match, NotationError
from .rules_config import Rules
from .stats import Played, replay
from .storage import CODES, CodeGuard, Held, PlayerGame, Store, UserRow
from .storage.people import CUTTHROAT, PARTNERS

CODE_TTL = 10 * 60  # seconds a code stays valid
MAX_TRIES = 5  # tries per code
CODES_PER_HOUR = 5  # codes an hour for one address to browsers that never signed in to it
MAX_FAILURES = 100  # wrong tries in a row for one address (NIST SP 800-63B 5.2.2 allows at most 100)
LOCK_S = 60 * 60  # how long an address stays closed past MAX_FAILURES
GUARD = CodeGuard(max_failures=MAX_FAILURES, lock_s=LOCK_S, codes=CODES_PER_HOUR, window_s=60 * 60)
IDLE_S = 30 * 24 * 3600  # a signed-in session unused this long is over
SEEN_EVERY = 24 * 3600  # a session's last use is written at most this often
CODE_DIGITS = 6
MAX_EMAIL = 254  # RFC 5321's limit on a whole address
# ASCII addresses: RFC 5322 "atext" dot-atoms, nothing that could break a mail header
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
EMAIL_RE = re.compile(rf"^(?=[^@]{{1,64}}@){_ATOM}(?:\.{_ATOM})*@{_LABEL}(?:\.{_LABEL})+$")


# -- refusals --------------------------------------------------------------------------
class SignInError(Exception):
    """A sign-in step refused; ``str(e)`` is the sentence the person sees."""


class BadEmail(SignInError):
    """Not an email address."""


class BadCode(SignInError):
    """Not six digits (no try is counted)."""


class NoCode(SignInError):
    """No code is waiting for this address (never asked, already used, or replaced)."""


class WrongCode(SignInError):
    def __init__(self, tries_left: int) -> None:
        s = "y" if tries_left == 1 else "ies"
        super().__init__(f"That code is not right. You have {tries_left} tr{s} left.")
        self.tries_left = tries_left


class Expired(SignInError):
    def __init__(self) -> None:
        super().__init__("That code has expired. Codes last 10 minutes: ask for a new one.")


def _minutes(seconds: float) -> str:
    """A wait in whole minutes, rounded up.

    >>> _minutes(61), _minutes(0)
    ('2 minutes', '1 minute')
    """
    minutes = max(1, int((seconds + 59) // 60))
    return f"{minutes} minute{'' if minutes == 1 else 's'}"


class TooManyTries(SignInError):
    """Out of tries; ``retry_at`` (epoch seconds) is when a new code may be asked for."""

    def __init__(self, retry_at: float, now: float) -> None:
        super().__init__(f"Too many wrong tries. You can ask for a new code in {_minutes(retry_at - now)}.")
        self.retry_at = retry_at


class Locked(SignInError):
    """``MAX_FAILURES`` wrong tries in a row for the address from everywhere: closed to
    browsers that never signed in to it until ``retry_at``."""

    def __init__(self, retry_at: float, now: float) -> None:
        super().__init__("Too many wrong codes for this address from everywhere. Ask for a new code from a "
                         f"browser where you signed in before, or try again in {_minutes(retry_at - now)}.")
        self.retry_at = retry_at


class TooManyCodes(SignInError):
    """The address had its ``CODES_PER_HOUR`` codes; another may be asked at ``retry_at``."""

    def __init__(self, retry_at: float, now: float) -> None:
        super().__init__(f"This address has been sent {CODES_PER_HOUR} codes in the last hour. Use a code you "
                         f"asked for here, ask again in {_minutes(retry_at - now)}, or ask from a browser where "
                         "you signed in before.")
        self.retry_at = retry_at


class EmailTaken(SignInError):
    def __init__(self) -> None:
        super().__init__("Another account has that address. Sign in with it there, or choose another address.")


class SameEmail(SignInError):
    def __init__(self) -> None:
        super().__init__("That is already your address.")


def _held(held: Held, now: float) -> SignInError:
    return TooManyCodes(held.until, now) if held.reason == CODES else Locked(held.until, now)


# -- codes -----------------------------------------------------------------------------
def normalize_email(text: str) -> str:
    """The address trimmed and lowercased. Raises BadEmail.

    >>> normalize_email("  Ann@Example.COM ")
    'ann@example.com'
    """
    email = (text or "").strip().lower()
    if not email or len(email) > MAX_EMAIL or not EMAIL_RE.match(email):
        raise BadEmail("That does not look like an email address. Check it and try again.")
    return email


def normalize_code(text: str) -> str:
    """The six digits of a typed code (spaces and dashes allowed). Raises BadCode."""
    code = re.sub(r"[\s-]", "", text or "")
    if len(code) != CODE_DIGITS or not code.isdigit() or not code.isascii():
        raise BadCode(f"A code is {CODE_DIGITS} digits, as in the mail we sent.")
    return code


def new_code() -> str:
    return f"{secrets.randbelow(10 ** CODE_DIGITS):0{CODE_DIGITS}d}"


def hash_code(secret: str | bytes, email: str, code: str) -> str:
    """The stored form of a code: an HMAC keyed with the app secret, bound to the address."""
    key = secret.encode() if isinstance(secret, str) else secret
    return hmac.new(key, f"sign-in\n{email}\n{code}".encode(), hashlib.sha256).hexdigest()


# -- the service -----------------------------------------------------------------------
def _change_asker(asker: str, user_id: str) -> str:
    """Whom a code to change an account's address belongs to: that browser, for that
    account, apart from its sign-in codes (neither voids nor answers for the other)."""
    return f"{asker}\nemail-change\n{user_id}"


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A device signed in to an account: the name it goes by (``id``), its session id,
    its User-Agent, when it signed in and when it was last used (to within a day)."""

    id: str
    sid: str
    agent: str
    created: float
    seen: float


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float
    matches: int
    rank: int = 0  # 1 is the best rated player
    players: int = 0  # rated players in all

    @property
    def ordinal(self) -> float:
        """The conservative skill estimate (mu - 3 sigma): it grows as the skill is known."""
        return self.mu - 3 * self.sigma

    @property
    def shown(self) -> int:
        """The rating as people know ratings: 1000 for a newcomer (openskill's mu 25, sigma
        25/3), about 1500 for an established average player, 25 points per unit of skill.

        >>> Rating(25.0, 25 / 3, 0).shown, Rating(25.0, 5 / 3, 40).shown
        (1000, 1500)
        """
        return round(1000 + 25 * self.ordinal)


class Accounts:
    """Sign-in, sessions, profiles and ratings over one ``Store``."""

    def __init__(self, store: Store, secret: str | bytes, clock: Callable[[], float] = time.time,
                 idle_s: float = IDLE_S) -> None:
        self.store = store
        self._secret = secret
        self.clock = clock
        self.idle_s = idle_s
        self.model = PlackettLuce()

    # -- sign-in ---------------------------------------------------------------------
    def request_code(self, email: str, asker: str, trusted: bool = False) -> str:
        """A fresh code for ``email`` asked by the browser ``asker`` (voiding its previous
        one), to be mailed; ``trusted``: that browser signed in to the address before.
        Raises BadEmail, TooManyTries (this browser's last code ran out of tries and has
        not expired yet), TooManyCodes, Locked (neither for a trusted browser)."""
        email = normalize_email(email)
        now = self.clock()
        last = self.store.latest_login_code(email, asker)
        if last and not last.used and not last.voided and last.tries >= MAX_TRIES and now < last.expires:
            raise TooManyTries(last.expires, now)
        code = new_code()
        made = self.store.new_login_code(email, asker, hash_code(self._secret, email, code), now, CODE_TTL,
                                         GUARD, trusted)
        if isinstance(made, Held):
            raise _held(made, now)
        return code

    def check_code(self, email: str, asker: str, typed: str, trusted: bool = False) -> None:
        """Accept the code typed for ``email`` in the browser ``asker`` that asked for it (it
        is used up, and the address's wrong tries in a row start again from 0); ``trusted``
        as for ``request_code``. Raises BadEmail, BadCode, NoCode, Expired, WrongCode,
        TooManyTries, Locked (never for a trusted browser)."""
        email = normalize_email(email)
        now = self.clock()
        row = self.store.latest_login_code(email, asker)
        if row is None or row.used or row.voided:
            raise NoCode("There is no code waiting for this address. Ask for a new one.")
        if row.tries >= MAX_TRIES:
            raise TooManyTries(row.expires, now)
        if now >= row.expires:
            raise Expired()
        code = normalize_code(typed)
        tries = self.store.spend_login_try(row.id, MAX_TRIES, email, now, GUARD, trusted)
        if isinstance(tries, Held):
            raise _held(tries, now)
        if tries is None:  # another request used it or spent the last try meanwhile
            raise TooManyTries(row.expires, now)
        if hmac.compare_digest(hash_code(self._secret, email, code), row.code_hash):
            if not self.store.use_login_code(row.id, email):
                raise NoCode("That code has just been used. Ask for a new one.")
            return
        if tries >= MAX_TRIES:
            raise TooManyTries(row.expires, now)
        raise WrongCode(MAX_TRIES - tries)

    def sign_in(self, email: str, anon_pid: str | None, name: str = "", emoji: str = "") -> tuple[UserRow, list[str]]:
        """The account for ``email`` (made on first sign-in, with ``name`` and ``emoji``);
        the anonymous player's seats move to it. Returns it and the tables whose seats moved.
        Call only after ``check_code`` accepted a code. Raises BadEmail."""
        email = normalize_email(email)
        if anon_pid is not None and self.store.is_account(anon_pid):
            anon_pid = None  # a signed-in browser switching accounts takes nothing along
        if anon_pid is not None and not name:
            name, emoji = self.store.known_player(anon_pid) or ("", "")
        new_id = "u-" + secrets.token_urlsafe(16)
        return self.store.sign_in(email, new_id, anon_pid, name, emoji, self.clock())

    def session_valid(self, user_id: str, gen: object, sid: object) -> bool:
        """Whether session ``sid`` for ``user_id``, made at generation ``gen``, still holds
        (not signed out, here or on every device, and used within ``idle_s``); a session
        unused for longer is signed out here. Counts as a use."""
        current = self.store.session_gen(user_id)
        if current is None or current != gen or not isinstance(sid, str):
            return False
        seen = self.store.signin_seen(sid, user_id)
        if seen is None:
            return False
        now = self.clock()
        if now - seen >= self.idle_s:
            self.store.end_signin(sid)  # every copy of the cookie is signed out with it
            return False
        if not now - seen < SEEN_EVERY:  # NaN (a session from before uses were kept) included
            self.store.touch_signin(sid, now)
        return True

    def new_session(self, user_id: str) -> str:
        """A signed-in session's id (kept in its cookie)."""
        sid = secrets.token_urlsafe(18)
        self.store.start_signin(sid, user_id, self.clock())
        return sid

    def end_session(self, sid: object) -> None:
        """Sign this session out on the server, so a copy of its cookie is signed out too."""
        if isinstance(sid, str):
            self.store.end_signin(sid)

    def sign_out_everywhere(self, user_id: str) -> int:
        """End every session of the account; the new generation."""
        return self.store.bump_session_gen(user_id)

    # -- devices and the account's address -----------------------------------------
    def device_id(self, sid: str) -> str:
        """The name a session goes by on pages and in routes (never its id, which its
        cookie carries): a keyed hash of it."""
        key = self._secret.encode() if isinstance(self._secret, str) else self._secret
        return hmac.new(key, f"device\n{sid}".encode(), hashlib.sha256).hexdigest()[:16]

    def devices(self, user_id: str) -> list[SignedIn]:
        """The account's sessions not signed out, the latest used first."""
        return [SignedIn(self.device_id(r.sid), r.sid, r.agent, r.created, r.seen)
                for r in self.store.live_signins(user_id)]

    def end_device(self, user_id: str, device: str) -> SignedIn | None:
        """Sign out the account's session named ``device``: the one ended, or None when the
        account has no such session live."""
        for d in self.devices(user_id):
            if hmac.compare_digest(d.id, device):
                self.store.end_signin(d.sid)
                return d
        return None

    def ask_email_change(self, user_id: str, email: str, asker: str, trusted: bool = False) -> tuple[str, str]:
        """A code for the account ``user_id`` to take the address ``email``, under the
        sign-in code's rules and limits for that address (``request_code``), asked in the
        browser ``asker``: (the address, the code to mail to it). The code is the change's
        alone: it cannot sign anyone in. Raises SameEmail, EmailTaken and what
        ``request_code`` raises."""
        email = normalize_email(email)
        user = self.store.user(user_id)
        if user is not None and user.email == email:
            raise SameEmail()
        if self.store.user_by_email(email) is not None:
            raise EmailTaken()
        return email, self.request_code(email, _change_asker(asker, user_id), trusted)

    def change_email(self, user_id: str, email: str, asker: str, typed: str, trusted: bool = False) -> str:
        """Give the account the address ``email`` once the code mailed there is typed (as
        ``check_code``; each address keeps its own guard: the old one's wrong tries and
        lock stay with it); the old address. Raises EmailTaken and what ``check_code``
        raises."""
        email = normalize_email(email)
        user = self.store.user(user_id)
        if user is None:
            raise NoCode("There is no code waiting for this address. Ask for a new one.")
        if self.store.user_by_email(email) is not None:
            raise EmailTaken()
        self.check_code(email, _change_asker(asker, user_id), typed, trusted)
        if not self.store.change_email(user_id, email):
            raise EmailTaken()
        return user.email

    # -- a person's games ------------------------------------------------------------
    def games(self, player_id: str) -> list[PlayerGame]:
        return self.store.player_games(player_id)

    def played(self, player_id: str) -> list[Played]:
        """Every match the person played (finished, or going on), replayed from their seat,
        with the seat names of each finished one."""
        matches = self.store.player_matches(player_id)
        names = self.store.match_names([pm.match.id for pm in matches if pm.match.finished])
        return [Played(self._replay(pm.code, pm.match.id, pm.match.number, pm.match.rules, pm.match.seed), pm.seat,
                       pm.match.last_move or pm.match.created, pm.code, pm.match.number, names.get(pm.match.id, ()),
                       pm.match.takebacks)
                for pm in matches]

    def _replay(self, code: str, match_id: int, number: int, rules: dict, seed: str) -> Match:
        """A stored match rebuilt from its moves (and its fair deals when it was dealt so)."""
        shape = Rules.from_dict(rules).shape  # a fair deal is dealt over the table's own deck
        return replay(rules, seed, ((seat, text) for _, seat, text in self.store.actions(match_id)),
                      FairDeals.stored(self.store.fair_deals(code, number), shape))

    # -- ratings ---------------------------------------------------------------------
    def rate_pending(self) -> int:
        """Update the ratings with every finished match not yet counted, in the order they
        finished; returns how many were rated."""
        count = 0
        for match_id, code in self.store.unrated_matches():
            found = self.store.match_by_id(match_id)
            rules = Rules.from_dict(found[1].rules if found else None)
            shape = rules.shape
            level = self.store.table_options(code).get("level", DEFAULT_LEVEL)
            ids = [pid if kind == "human" and pid else f"bot:{level}:{seat}"
                   for seat, (kind, pid) in enumerate(self.store.match_seating(match_id))]
            kind = PARTNERS if rules.partners else CUTTHROAT
            if found is None or len(ids) != shape.players or len(set(ids)) != len(ids) or found[1].takebacks:
                # not a match of distinct players in every seat, or one with moves taken back: skip it
                self.store.save_ratings(match_id, {})
                continue
            if kind == PARTNERS:
                winner = self.store.match_winner(match_id)
                ranks: list[float] = [0 if winner is None or winner == t else 1 for t in range(shape.side_count)]
            else:  # by the final scores: the number of sides that finished higher
                info = found[1]
                try:
                    scores = self._replay(code, match_id, info.number, info.rules, info.seed).scores
                except (IllegalAction, NotationError, ValueError):  # a corrupt store: skip this match
                    self.store.save_ratings(match_id, {})
                    continue
                ranks = [float(sum(v > mine for v in scores)) for mine in scores]
            known = self.store.ratings(ids, kind)
            r = [self.model.rating(mu=known[i][0], sigma=known[i][1], name=i) if i in known
                 else self.model.rating(name=i) for i in ids]
            rated = self.model.rate([[r[s] for s in side] for side in shape.sides], ranks=ranks)
            new = {ids[s]: (x.mu, x.sigma) for side, team in zip(shape.sides, rated) for s, x in zip(side, team)}
            if self.store.save_ratings(match_id, new, kind):
                count += 1
        return count

    def rating(self, player_id: str, kind: str = PARTNERS) -> Rating | None:
        """The player's rating of this ``kind`` (``PARTNERS`` or ``CUTTHROAT``) with their
        rank among the people rated so, or None."""
        known = self.store.ratings([player_id], kind).get(player_id)
        if not known:
            return None
        rank, players = self.store.rating_rank(player_id, kind)
        return Rating(*known, rank=rank, players=players)
