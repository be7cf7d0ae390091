"""People and accounts: players (the name and emoji a browser last chose), accounts and
their sessions, sign-in codes, profiles, ratings, the "Invite again" rooms that still wait
for the person invited, and the reads a person's record and figures are made from
(``spades.accounts``, ``spades.stats``).

Imports: stdlib and the storage package's ``base``, ``rows``, ``core``, ``tourneys``,
``talk`` and ``push`` (signing in moves a person's registrations, mutes, blocks and push
subscriptions too).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .base import Db
from .core import StoreCore
from .push import move_push
from .rows import LoginCodeRow, MatchInfo, PlayerGame, PlayerMatch, UserRow
from .talk import move_talk
from .tourneys import move_registrations


@dataclass(frozen=True, slots=True)
class SigninRow:
    """A signed-in session: its id, when it began and was last used, its User-Agent."""

    sid: str
    created: float
    seen: float
    agent: str


# a match's last move, for a person's matches in the order they were played
_LAST_MOVE = "(SELECT MAX(at) FROM actions a WHERE a.match_id = m.id) AS last_move"

LOCKED = "locked"  # ``Held.reason``: too many wrong tries in a row for the address
CODES = "codes"  # ``Held.reason``: the address had its codes for the hour

# The two ratings a person has, each in its own table: the partnership rating (two teams
# of two, with or without house rules) and the cutthroat rating (every player a side alone).
PARTNERS = "partners"
CUTTHROAT = "cutthroat"
RATING_TABLES = {PARTNERS: "ratings", CUTTHROAT: "cutthroat_ratings"}


@dataclass(frozen=True, slots=True)
class CodeGuard:
    """The limits on an address that a browser which never signed in to it meets: at most
    ``codes`` codes in ``window_s`` seconds, and after ``max_failures`` wrong tries in a
    row, from everywhere, no code asked or tried for ``lock_s`` seconds."""

    max_failures: int
    lock_s: float
    codes: int
    window_s: float


@dataclass(frozen=True, slots=True)
class Held:
    """Why a code was not made or tried (``LOCKED`` or ``CODES``), and until when (epoch s)."""

    reason: str
    until: float


class _NotSpent(Exception):
    """A code's try could not be counted: its transaction is undone."""


_NO_NAME = "('', 'You')"  # a player row's name when none was chosen (a practice without one: "You")


def upsert_player(db: Db, player_id: str, name: str, emoji: str) -> None:
    """Keep the name and emoji a player last chose (to prefill the next join form)."""
    db.execute("INSERT INTO players (id, name, emoji, created) VALUES (?, ?, ?, ?) "
               "ON CONFLICT(id) DO UPDATE SET name = excluded.name, emoji = excluded.emoji",
               [player_id, name, emoji, time.time()])


@dataclass(frozen=True, slots=True)
class RememberPlayer:
    """The name and emoji a player last chose (to prefill the next join form)."""

    player_id: str
    name: str
    emoji: str

    def apply(self, db: Db) -> None:
        upsert_player(db, self.player_id, self.name, self.emoji)


def _user(rows: Iterable[dict[str, Any]]) -> UserRow | None:
    for r in rows:
        return UserRow(r["id"], r["email"], r["name"] or "", r["emoji"] or "", r["created"], r["session_gen"])
    return None


def _user_by_email(db: Db, email: str) -> UserRow | None:
    return _user(db.query("SELECT * FROM users WHERE email = ?", [email]))


def _is_account(db: Db, player_id: str) -> bool:
    return bool(list(db.query("SELECT 1 FROM users WHERE id = ?", [player_id])))


def _match_info(r: dict[str, Any], finished: bool) -> MatchInfo:
    return MatchInfo(r["id"], r["number"], r["seed"], json.loads(r["rules"]), r["version"], finished, r["winner"],
                     r["created"], r["last_move"], r.get("takebacks") or 0)


class PeopleStore(StoreCore):
    """Players, accounts, sign-in codes and sessions, profiles, ratings, records."""

    # -- players ---------------------------------------------------------------------
    def ensure_player(self, player_id: str, name: str = "You", emoji: str = "") -> None:
        """Create the player row if missing (an anonymous browser, known by its cookie); a
        row without a name (an account made without one) takes the name given."""
        with self.transaction() as db:
            db.execute("INSERT INTO players (id, name, emoji, created) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE "
                       "SET name = excluded.name, emoji = COALESCE(NULLIF(players.emoji, ''), excluded.emoji) "
                       f"WHERE COALESCE(players.name, '') IN {_NO_NAME} AND excluded.name NOT IN {_NO_NAME}",
                       [player_id, name, emoji, time.time()])

    def remember_player(self, player_id: str, name: str, emoji: str) -> None:
        """Keep the name and emoji a player last chose (to prefill the next join form)."""
        self.commit([RememberPlayer(player_id, name, emoji)])

    def known_player(self, player_id: str) -> tuple[str, str] | None:
        """(name, emoji) a player last chose, or None; for a row without a name, the name
        (and emoji) of their latest seat at a table that had one."""
        with self._reading() as db:
            rows = list(db.query("SELECT name, emoji FROM players WHERE id = ?", [player_id]))
            if rows and (rows[0]["name"] or "") in ("", "You"):
                rows = list(db.query(
                    "SELECT s.name, COALESCE(NULLIF(s.emoji, ''), ?) AS emoji FROM seats s JOIN tables t "
                    f"ON t.code = s.table_code WHERE s.player_id = ? AND s.kind = 'human' AND s.name NOT IN {_NO_NAME} "
                    "ORDER BY t.created DESC LIMIT 1", [rows[0]["emoji"] or "", player_id])) or rows
        return (rows[0]["name"] or "", rows[0]["emoji"] or "") if rows else None

    def save_profile(self, player_id: str, name: str, emoji: str) -> None:
        """Set a player's name and emoji (and the account's, when it is one)."""
        with self.transaction() as db:
            upsert_player(db, player_id, name, emoji)
            db.execute("UPDATE users SET name = ?, emoji = ? WHERE id = ?", [name, emoji, player_id])

    # -- accounts and sessions -------------------------------------------------------
    def user_by_email(self, email: str) -> UserRow | None:
        """The account with this (lowercased) email, or None."""
        with self._reading() as db:
            return _user_by_email(db, email)

    def user(self, user_id: str) -> UserRow | None:
        with self._reading() as db:
            return _user(db.query("SELECT * FROM users WHERE id = ?", [user_id]))

    def is_account(self, player_id: str) -> bool:
        """Whether this player id is an account's (an anonymous cookie must never carry one)."""
        with self._reading() as db:
            return _is_account(db, player_id)

    def session_gen(self, user_id: str) -> int | None:
        """The account's session generation; None for an unknown account."""
        with self._reading() as db:
            rows = list(db.query("SELECT session_gen FROM users WHERE id = ?", [user_id]))
        return rows[0]["session_gen"] if rows else None

    def bump_session_gen(self, user_id: str) -> int:
        """Invalidate every session of the account (sign out on every device); the new number."""
        with self.transaction() as db:
            db.execute("UPDATE users SET session_gen = session_gen + 1 WHERE id = ?", [user_id])
            db.execute("UPDATE signins SET ended = ? WHERE user_id = ? AND ended IS NULL", [time.time(), user_id])
        return self.session_gen(user_id) or 0

    def start_signin(self, sid: str, user_id: str, now: float | None = None) -> None:
        """A signed-in session begins (``now``: its first use)."""
        now = time.time() if now is None else now
        with self.transaction() as db:
            db.execute("INSERT INTO signins (sid, user_id, created, seen) VALUES (?, ?, ?, ?)",
                       [sid, user_id, now, now])

    def end_signin(self, sid: str) -> None:
        """A signed-in session is over (signed out), whoever holds a copy of its cookie."""
        with self.transaction() as db:
            db.execute("UPDATE signins SET ended = ? WHERE sid = ? AND ended IS NULL", [time.time(), sid])

    def signin_live(self, sid: str, user_id: str) -> bool:
        """Whether that session of that account has not been signed out."""
        return self.signin_seen(sid, user_id) is not None

    def signin_seen(self, sid: str, user_id: str) -> float | None:
        """When that live session of that account was last used (to within a day; NaN for a
        session from before uses were kept); None when it is signed out or unknown."""
        with self._reading() as db:
            rows = list(db.query("SELECT seen FROM signins WHERE sid = ? AND user_id = ? AND ended IS NULL",
                                 [sid, user_id]))
        if not rows:
            return None
        seen = rows[0]["seen"]
        return float("nan") if seen is None else float(seen)

    def touch_signin(self, sid: str, now: float) -> None:
        """Note that the session was used at ``now``."""
        with self.transaction() as db:
            db.execute("UPDATE signins SET seen = ? WHERE sid = ? AND ended IS NULL", [now, sid])

    def note_signin_agent(self, sid: str, agent: str) -> None:
        """Keep the User-Agent the session signed in with (the first one noted stays)."""
        with self.transaction() as db:
            db.execute("UPDATE signins SET agent = ? WHERE sid = ? AND agent IS NULL", [agent[:300], sid])

    def live_signins(self, user_id: str) -> list[SigninRow]:
        """The account's sessions not signed out, the latest used first."""
        with self._reading() as db:
            return [SigninRow(r["sid"], r["created"], r["seen"] if r["seen"] is not None else r["created"],
                              r["agent"] or "")
                    for r in db.query("SELECT sid, created, seen, agent FROM signins WHERE user_id = ? AND "
                                      "ended IS NULL ORDER BY COALESCE(seen, created) DESC, created DESC", [user_id])]

    def change_email(self, user_id: str, email: str) -> bool:
        """Give the account the address ``email``; False (nothing changed) when another
        account has it. Each address keeps its own sign-in guard row."""
        try:
            with self.transaction() as db:
                cur = db.execute("UPDATE users SET email = ? WHERE id = ? AND NOT EXISTS (SELECT 1 FROM users "
                                 "WHERE email = ? AND id <> ?)", [email, user_id, email, user_id])
                return cur.rowcount == 1
        except sqlite3.IntegrityError:  # ``Duplicate`` on either engine: taken at the same moment
            return False

    # -- sign-in codes ---------------------------------------------------------------
    def new_login_code(self, email: str, asker: str, code_hash: str, now: float, ttl: float,
                       guard: CodeGuard | None = None, trusted: bool = False) -> int | Held:
        """Store a new code's hash for ``email`` asked by ``asker``, voiding that asker's
        earlier one (never another asker's); its row id. With ``guard``, for a browser that
        never signed in to the address (not ``trusted``), nothing is stored and the reason
        is returned when the address is closed to such browsers or had ``guard.codes`` of
        their codes in the last ``guard.window_s``; a trusted code is never counted."""
        with self.transaction() as db:
            if guard is not None and not trusted:
                # the update takes the address's row first: asks for one address are counted in turn
                db.execute("INSERT INTO signin_guards (email, failures, locked_until, asked) VALUES (?, 0, 0, ?) "
                           "ON CONFLICT DO NOTHING", [email, now])
                db.execute("UPDATE signin_guards SET asked = ? WHERE email = ?", [now, email])
                [row] = db.query("SELECT failures, locked_until FROM signin_guards WHERE email = ?", [email])
                if row["failures"] >= guard.max_failures and row["locked_until"] > now:
                    return Held(LOCKED, row["locked_until"])
                recent = [r["created"] for r in db.query(
                    "SELECT created FROM login_codes WHERE email = ? AND trusted = 0 AND created > ? "
                    "ORDER BY created DESC", [email, now - guard.window_s])]
                if len(recent) >= guard.codes:
                    return Held(CODES, recent[guard.codes - 1] + guard.window_s)
            db.execute("UPDATE login_codes SET voided = 1 WHERE email = ? AND asker = ? AND used = 0 AND voided = 0",
                       [email, asker])
            [made] = db.query("INSERT INTO login_codes (email, asker, code_hash, created, expires, tries, used, "
                              "voided, trusted) VALUES (?, ?, ?, ?, ?, 0, 0, 0, ?) RETURNING id",
                              [email, asker, code_hash, now, now + ttl, int(trusted)])
            return int(made["id"])

    def latest_login_code(self, email: str, asker: str) -> LoginCodeRow | None:
        with self._reading() as db:
            rows = list(db.query("SELECT * FROM login_codes WHERE email = ? AND asker = ? ORDER BY id DESC LIMIT 1",
                                 [email, asker]))
        if not rows:
            return None
        r = rows[0]
        return LoginCodeRow(r["id"], r["email"], r["code_hash"], r["created"], r["expires"], r["tries"],
                            bool(r["used"]), bool(r["voided"]))

    def spend_login_try(self, code_id: int, max_tries: int, email: str | None = None, now: float = 0.0,
                        guard: CodeGuard | None = None, trusted: bool = False) -> int | Held | None:
        """Count one try against a live code, atomically; the tries so far, or None when the
        code is used, voided or out of tries (then nothing is counted). With ``email`` and
        ``guard`` the try also counts as a wrong one in a row for the address until
        ``use_login_code`` says otherwise (counted first, so parallel guesses cannot overrun
        the cap), and the try that reaches ``guard.max_failures`` closes the address for
        ``guard.lock_s`` to browsers that never signed in to it; for such a browser (not
        ``trusted``) a try while it is closed is refused (``Held``, nothing counted)."""
        try:
            with self.transaction() as db:
                if email is not None and guard is not None:
                    db.execute("INSERT INTO signin_guards (email, failures, locked_until) VALUES (?, 0, 0) "
                               "ON CONFLICT DO NOTHING", [email])
                    cur = db.execute(
                        "UPDATE signin_guards SET failures = failures + 1, locked_until = "
                        "CASE WHEN failures + 1 >= ? THEN ? ELSE locked_until END "
                        "WHERE email = ? AND (? = 1 OR failures + 1 < ? OR locked_until <= ?)",
                        [guard.max_failures, now + guard.lock_s, email, int(trusted), guard.max_failures + 1, now])
                    if cur.rowcount != 1:
                        [row] = db.query("SELECT locked_until FROM signin_guards WHERE email = ?", [email])
                        return Held(LOCKED, row["locked_until"])
                cur = db.execute("UPDATE login_codes SET tries = tries + 1 "
                                 "WHERE id = ? AND used = 0 AND voided = 0 AND tries < ?", [code_id, max_tries])
                if cur.rowcount != 1:
                    raise _NotSpent  # nothing of this try is kept, the address's count included
                return next(iter(db.query("SELECT tries FROM login_codes WHERE id = ?", [code_id])))["tries"]
        except _NotSpent:
            return None

    def use_login_code(self, code_id: int, email: str | None = None) -> bool:
        """Mark the code used; False if it already was (two tabs racing with the same code).
        With ``email``, the address signs in: its wrong tries in a row start again from 0."""
        with self.transaction() as db:
            cur = db.execute("UPDATE login_codes SET used = 1 WHERE id = ? AND used = 0 AND voided = 0", [code_id])
            if cur.rowcount != 1:
                return False
            if email is not None:
                db.execute("UPDATE signin_guards SET failures = 0, locked_until = 0 WHERE email = ?", [email])
            return True

    def sign_in(self, email: str, new_id: str, anon_pid: str | None, name: str, emoji: str,
                now: float) -> tuple[UserRow, list[str]]:
        """The account for ``email`` (created with id ``new_id``, ``name`` and ``emoji`` when
        new), with the anonymous player ``anon_pid``'s rows moved to it, all in one
        transaction. Returns the account and the codes of the tables whose seats moved.

        Moved: seats and finished matches' seats (``player_id`` and ``left_player_id``),
        ``tables.host``, room memberships, tourney registrations, ready marks and
        directing, each rating the account has none of, mutes, blocks and push
        subscriptions. A table where the account already sits keeps the anonymous seat as
        it is (one person must not hold two seats at one table).
        New tables keyed by player id must be added here."""
        with self.transaction() as db:
            user = _user_by_email(db, email)
            if user is None:
                # DO NOTHING: one address signing in twice at once (PostgreSQL runs the two side by
                # side) makes one account, which the second sign-in then reads
                made = db.execute("INSERT INTO users (id, email, name, emoji, created, session_gen) "
                                  "VALUES (?, ?, ?, ?, ?, 0) ON CONFLICT DO NOTHING", [new_id, email, name, emoji, now])
                if made.rowcount == 1:
                    db.execute("INSERT INTO players (id, name, emoji, created) VALUES (?, ?, ?, ?) "
                               "ON CONFLICT DO NOTHING", [new_id, name, emoji, now])
                    user = UserRow(new_id, email, name, emoji, now, 0)
                else:
                    user = _user_by_email(db, email)
                    assert user is not None
            moved: list[str] = []
            if anon_pid and anon_pid != user.id and not _is_account(db, anon_pid):
                moved = [r["table_code"] for r in db.query(
                    "SELECT DISTINCT table_code FROM seats WHERE player_id = ? AND table_code NOT IN "
                    f"(SELECT table_code FROM seats WHERE player_id = ?) AND table_code NOT IN ({_BOARDS_KEPT})",
                    [anon_pid, user.id, anon_pid, user.id])]
                _move_player(db, anon_pid, user.id)
            return user, moved

    # -- invitations -----------------------------------------------------------------
    def pending_invitation(self, host: str, person: str) -> str | None:
        """The code of a room ``host`` made that waits and that ``person`` was invited to
        ("Invite again") and has not joined (nor left) yet, the newest; None when none is."""
        with self._reading() as db:
            rows = list(db.query(
                "SELECT i.table_code FROM invitations i JOIN tables t ON t.code = i.table_code "
                "WHERE i.person = ? AND t.host = ? AND t.status = 'waiting' AND NOT EXISTS "
                "(SELECT 1 FROM room_members m WHERE m.table_code = i.table_code AND m.player_id = ?) "
                "ORDER BY i.id DESC LIMIT 1", [person, host, person]))
        return rows[0]["table_code"] if rows else None

    # -- records and ratings ---------------------------------------------------------
    def player_games(self, player_id: str) -> list[PlayerGame]:
        """Every table where this person holds a seat now (``kind = 'human'``: a seat left to
        a bot is not theirs any more), newest first."""
        games = []
        with self._reading() as db:
            for r in list(db.query("SELECT s.table_code, s.seat, t.status, t.options, t.created FROM seats s "
                                   "JOIN tables t ON t.code = s.table_code "
                                   "WHERE s.player_id = ? AND s.kind = 'human' ORDER BY t.created DESC", [player_id])):
                seats = list(db.query("SELECT kind, name FROM seats WHERE table_code = ? ORDER BY seat",
                                      [r["table_code"]]))
                games.append(PlayerGame(r["table_code"], r["seat"], r["status"], json.loads(r["options"] or "{}"),
                                        r["created"], tuple(s["name"] for s in seats), tuple(s["kind"] for s in seats)))
        return games

    def player_matches(self, player_id: str) -> list[PlayerMatch]:
        """Every match this person played a seat of: finished ones as seated when they
        finished (``match_seats``), the one going on as seated now; oldest first."""
        with self._reading() as db:
            rows = list(db.query(
                f"SELECT ms.seat, m.*, {_LAST_MOVE} FROM match_seats ms JOIN matches m ON m.id = ms.match_id "
                "WHERE ms.player_id = ? AND ms.kind = 'human' "
                f"UNION ALL SELECT s.seat, m.*, {_LAST_MOVE} FROM seats s "
                "JOIN matches m ON m.table_code = s.table_code "
                "WHERE s.player_id = ? AND s.kind = 'human' AND m.finished = 0 "
                "ORDER BY created, id", [player_id, player_id]))
        return [PlayerMatch(r["table_code"], r["seat"], _match_info(r, bool(r["finished"]))) for r in rows]

    def unrated_matches(self) -> list[tuple[int, str]]:
        """(match id, table code) of finished matches not yet rated, in the order they finished."""
        with self._reading() as db:
            return [(r["id"], r["table_code"]) for r in db.query(
                "SELECT m.id, m.table_code, (SELECT MAX(at) FROM actions a WHERE a.match_id = m.id) AS done "
                "FROM matches m WHERE m.finished = 1 AND m.id NOT IN (SELECT match_id FROM rated_matches) "
                "ORDER BY done, m.id")]

    def finished_match(self, code: str, number: int | None = None) -> tuple[MatchInfo, tuple[str, ...]] | None:
        """Finished match ``number`` of a table (its latest finished one when None), with
        the seat names as they were when it finished; None when there is none."""
        which = "" if number is None else "AND m.number = ? "
        with self._reading() as db:
            rows = list(db.query(
                f"SELECT m.*, {_LAST_MOVE} FROM matches m WHERE m.table_code = ? AND m.finished = 1 "
                f"{which}ORDER BY m.number DESC LIMIT 1", [code] if number is None else [code, number]))
            if not rows:
                return None
            r = rows[0]
            names = tuple(s["name"] for s in db.query(
                "SELECT name FROM match_seats WHERE match_id = ? ORDER BY seat", [r["id"]]))
        return _match_info(r, True), names

    def match_seating(self, match_id: int) -> tuple[tuple[str, str | None], ...]:
        """(kind, player id) of each seat of a finished match, in seat order."""
        with self._reading() as db:
            return tuple((r["kind"], r["player_id"]) for r in db.query(
                "SELECT kind, player_id FROM match_seats WHERE match_id = ? ORDER BY seat", [match_id]))

    def match_winner(self, match_id: int) -> int | None:
        with self._reading() as db:
            rows = list(db.query("SELECT winner FROM matches WHERE id = ?", [match_id]))
        return rows[0]["winner"] if rows else None

    def match_by_id(self, match_id: int) -> tuple[str, MatchInfo] | None:
        """(table code, match) of a stored match, to replay it; None when there is none."""
        with self._reading() as db:
            rows = list(db.query(f"SELECT m.*, {_LAST_MOVE} FROM matches m WHERE m.id = ?", [match_id]))
        return (rows[0]["table_code"], _match_info(rows[0], bool(rows[0]["finished"]))) if rows else None

    def match_names(self, match_ids: list[int]) -> dict[int, tuple[str, ...]]:
        """The seat names of finished matches as they were when each finished, in seat
        order (a match not finished yet is left out)."""
        if not match_ids:
            return {}
        out: dict[int, list[str]] = {}
        marks = ",".join("?" * len(match_ids))
        with self._reading() as db:
            for r in db.query(f"SELECT match_id, name FROM match_seats WHERE match_id IN ({marks}) "
                              "ORDER BY match_id, seat", list(match_ids)):
                out.setdefault(r["match_id"], []).append(r["name"] or "")
        return {k: tuple(v) for k, v in out.items()}

    def ratings(self, player_ids: list[str], kind: str = PARTNERS) -> dict[str, tuple[float, float, int]]:
        """(mu, sigma, matches rated) of each id that has a rating of this ``kind``
        (``PARTNERS``, the default, or ``CUTTHROAT``)."""
        if not player_ids:
            return {}
        marks = ",".join("?" * len(player_ids))
        with self._reading() as db:
            return {r["player_id"]: (r["mu"], r["sigma"], r["matches"]) for r in db.query(
                f"SELECT * FROM {RATING_TABLES[kind]} WHERE player_id IN ({marks})", list(player_ids))}

    def rating_rank(self, player_id: str, kind: str = PARTNERS) -> tuple[int, int]:
        """(rank, rated people): 1 + how many people (not bots, rated as ``bot:…``) are
        rated higher by mu - 3 sigma in that ``kind`` of rating; (0, n) when this player
        has none."""
        people = "player_id NOT LIKE 'bot:%'"
        table = RATING_TABLES[kind]
        with self._reading() as db:
            row = next(iter(db.query(
                f"SELECT (SELECT COUNT(*) FROM {table} WHERE {people}) AS n, "
                f"(SELECT 1 + COUNT(*) FROM {table} o, {table} me WHERE me.player_id = ? AND o.{people} "
                "AND o.mu - 3 * o.sigma > me.mu - 3 * me.sigma) AS r, "
                f"(SELECT COUNT(*) FROM {table} WHERE player_id = ?) AS known", [player_id, player_id])))
        return (row["r"] if row["known"] else 0), row["n"]

    def save_ratings(self, match_id: int, new: dict[str, tuple[float, float]], kind: str = PARTNERS) -> bool:
        """Store the ratings of one ``kind`` after one match, once: False (nothing written)
        if that match was already rated (two requests rating at the same moment)."""
        now = time.time()
        table = RATING_TABLES[kind]
        with self.transaction() as db:
            cur = db.execute("INSERT INTO rated_matches (match_id, at) VALUES (?, ?) ON CONFLICT DO NOTHING",
                             [match_id, now])
            if cur.rowcount != 1:
                return False
            for pid, (mu, sigma) in new.items():
                db.execute(f"INSERT INTO {table} (player_id, mu, sigma, matches, updated) VALUES (?, ?, ?, 1, ?) "
                           "ON CONFLICT(player_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
                           f"matches = {table}.matches + 1, updated = excluded.updated", [pid, mu, sigma, now])
            return True


# the tables of boards whose seats stay the anonymous player's (?, ?: the anonymous
# player, the account): those of a week the account played at another table, since one
# person plays a week's boards once
_BOARDS_KEPT = ("SELECT k.table_code FROM board_players k WHERE k.person = ? AND k.week IN "
                "(SELECT a.week FROM board_players a WHERE a.person = ?)")


def _move_player(db: Db, anon_pid: str, user_id: str) -> None:
    """An anonymous player's rows become the account's (see ``PeopleStore.sign_in``); a
    seat at a table of boards does not when the account played that week elsewhere."""
    kept = [r["table_code"] for r in db.query(_BOARDS_KEPT, [anon_pid, user_id])]
    spare = f"AND table_code NOT IN ({', '.join('?' for _ in kept)})" if kept else ""
    db.execute("UPDATE seats SET player_id = ? WHERE player_id = ? AND table_code NOT IN "
               f"(SELECT table_code FROM seats WHERE player_id = ?) {spare}", [user_id, anon_pid, user_id, *kept])
    db.execute(f"UPDATE seats SET left_player_id = ? WHERE left_player_id = ? {spare}", [user_id, anon_pid, *kept])
    spare_matches = (f"AND match_id NOT IN (SELECT id FROM matches WHERE table_code IN "
                     f"({', '.join('?' for _ in kept)}))") if kept else ""
    db.execute(f"UPDATE match_seats SET player_id = ? WHERE player_id = ? {spare_matches}", [user_id, anon_pid, *kept])
    db.execute(f"UPDATE match_seats SET left_player_id = ? WHERE left_player_id = ? {spare_matches}",
               [user_id, anon_pid, *kept])
    db.execute("UPDATE board_players SET person = ? WHERE person = ? AND week NOT IN "
               "(SELECT week FROM board_players WHERE person = ?)", [user_id, anon_pid, user_id])
    db.execute("UPDATE tables SET host = ? WHERE host = ?", [user_id, anon_pid])
    db.execute("UPDATE room_members SET player_id = ? WHERE player_id = ? AND table_code NOT IN "
               "(SELECT table_code FROM room_members WHERE player_id = ?)", [user_id, anon_pid, user_id])
    for table in RATING_TABLES.values():
        db.execute(f"UPDATE {table} SET player_id = ? WHERE player_id = ? AND NOT EXISTS "
                   f"(SELECT 1 FROM {table} WHERE player_id = ?)", [user_id, anon_pid, user_id])
    move_registrations(db, anon_pid, user_id)
    move_talk(db, anon_pid, user_id)
    move_push(db, anon_pid, user_id)
