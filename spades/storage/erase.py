"""Deleting one person's account for good: their rows gone or anonymised, so the
database file itself keeps no trace of their email or name.

Gone: the account and its player row, sessions, sign-in codes and guards of the address,
ratings, push subscriptions, mutes and blocks (made, and of them), reports they made,
notice settings and waits, invitations to them, game-night answers, presence, mails and
pairs, circle memberships. Anonymised, so nobody else's history changes: every seat,
finished match's seat, room place, tourney place, board week and circle result they
had is kept under a new id that leads nowhere, named ``FORMER_PLAYER``; their chat
lines keep their place as ``DELETED_TEXT``. A circle they owned passes to its
longest-standing member, or, when they were its only one, closes: its rows are deleted
(its page, invite link and nights with it); the tables played for it stay.

SQLite: the transaction runs with ``PRAGMA secure_delete`` on, so the pages it frees or
rewrites are zeroed, and the write-ahead log is checkpointed and truncated after it, so
neither the database file nor its -wal file keeps the old bytes. It costs only the pages
the erase touches (a ``VACUUM`` would rewrite the whole file, under the write lock).

Imports: stdlib and the storage package's ``base`` and ``core``.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass

from .base import Db
from .core import StoreCore

FORMER_PLAYER = "A former player"  # the name kept in a deleted person's seats
DELETED_TEXT = "[deleted]"  # the text kept in a deleted person's chat lines
GONE_PREFIX = "gone:"  # the ids a deleted person's kept rows are moved to

# rows that are the person's own: deleted (table, column holding the player id)
_OWN = (("signins", "user_id"), ("ratings", "player_id"), ("cutthroat_ratings", "player_id"),
        ("push_subscriptions", "person"), ("mutes", "owner"), ("mutes", "person"), ("blocks", "owner"),
        ("blocks", "person"), ("reports", "reporter"), ("notice_prefs", "person"), ("turns", "person"),
        ("invitations", "person"), ("chat_silenced", "person"), ("night_answers", "person"),
        ("night_presence", "person"), ("night_sent", "person"), ("night_mail_off", "person"),
        ("night_reminded", "person"), ("night_pairs", "person"), ("night_pairs", "partner"),
        ("circle_members", "person"))
# rows others' history needs: moved to the new id (table, column)
_KEPT = (("seats", "player_id"), ("seats", "left_player_id"), ("match_seats", "player_id"),
         ("match_seats", "left_player_id"), ("room_members", "player_id"), ("tourney_players", "player_id"),
         ("tourney_ready", "player_id"), ("tourneys", "director"), ("tables", "host"), ("board_players", "person"),
         ("circle_tables", "by"), ("board_weeks", "made_by"), ("game_nights", "made_by"), ("chat_lines", "person"),
         ("reports", "reported"))
# the kept rows' names: (table, id column, name column, emoji column or None)
_NAMED = (("seats", "player_id", "name", "emoji"), ("match_seats", "player_id", "name", None),
          ("room_members", "player_id", "name", "emoji"), ("tourney_players", "player_id", "name", "emoji"),
          ("chat_lines", "person", "name", "emoji"), ("reports", "reported", "reported_name", None))


@dataclass(frozen=True, slots=True)
class Erased:
    """What an erase did: the account's id, the id its kept rows moved to, the tables
    where it held a seat (so tables in memory take the new owner), and the circles it
    handed over (slug, new owner) or closed."""

    user_id: str
    gone_id: str
    tables: tuple[str, ...]
    handed: tuple[tuple[str, str], ...]
    closed: tuple[str, ...]


def _q(name: str) -> str:
    return f'"{name}"'  # "by", "left": column names that are SQL words


def _close_circle(db: Db, slug: str) -> None:
    """A circle nobody is left in: every row of it deleted, so no page or link reaches it."""
    weeks = [r["id"] for r in db.query("SELECT id FROM board_weeks WHERE circle = ?", [slug])]
    for week in weeks:
        db.execute("DELETE FROM board_players WHERE week = ?", [week])
        db.execute("DELETE FROM board_tables WHERE week = ?", [week])
    db.execute("DELETE FROM board_weeks WHERE circle = ?", [slug])
    nights = [r["id"] for r in db.query("SELECT id FROM game_nights WHERE circle = ?", [slug])]
    for night in nights:
        for table in ("night_answers", "night_sent", "night_tables"):
            db.execute(f"DELETE FROM {table} WHERE night = ?", [night])
    db.execute("DELETE FROM game_nights WHERE circle = ?", [slug])
    for table in ("night_presence", "night_settings", "night_pairs", "night_mail_off", "night_reminded"):
        db.execute(f"DELETE FROM {table} WHERE circle = ?", [slug])
    for table in ("circle_results", "circle_tables", "circle_seasons", "circle_members", "circles"):
        db.execute(f"DELETE FROM {table} WHERE slug = ?", [slug])


def _circles(db: Db, uid: str) -> tuple[list[tuple[str, str]], list[str]]:
    """Hand each circle ``uid`` owns to its longest-standing member, or close it."""
    handed, closed = [], []
    for r in list(db.query("SELECT slug FROM circles WHERE owner = ? ORDER BY slug", [uid])):
        slug = r["slug"]
        heirs = list(db.query("SELECT person FROM circle_members WHERE slug = ? AND person <> ? AND state = 'in' "
                              "ORDER BY joined, person LIMIT 1", [slug, uid]))
        if heirs:
            heir = heirs[0]["person"]
            db.execute("UPDATE circles SET owner = ? WHERE slug = ?", [heir, slug])
            db.execute("UPDATE circle_members SET role = 'owner' WHERE slug = ? AND person = ?", [slug, heir])
            handed.append((slug, heir))
        else:
            _close_circle(db, slug)
            closed.append(slug)
    return handed, closed


def _rewrite_json(db: Db, table: str, key: str, column: str, uid: str, gone: str, seat_name: bool) -> None:
    """JSON columns that name the person by id (``circle_results.seats``: [kind, id, name]
    per seat; ``night_tables.people``: ids): the id becomes ``gone`` (and its name too)."""
    for r in list(db.query(f"SELECT {key}, {column} FROM {table} WHERE {column} LIKE ?", [f"%{uid}%"])):
        value = json.loads(r[column])
        if seat_name:
            value = [[s[0], gone, FORMER_PLAYER] if s[1] == uid else s for s in value]
        else:
            value = [gone if p == uid else p for p in value]
        db.execute(f"UPDATE {table} SET {column} = ? WHERE {key} = ?", [json.dumps(value), r[key]])


def _reports(db: Db, uid: str) -> None:
    """Reports of others' lines keep their context, but the person's lines in it lose
    their name and text (the context names no ids: lines are told by number)."""
    mine: dict[str, set[int]] = {}
    for r in db.query("SELECT table_code, number FROM chat_lines WHERE person = ?", [uid]):
        mine.setdefault(r["table_code"], set()).add(r["number"])
    if not mine:
        return
    marks = ",".join("?" * len(mine))
    for r in list(db.query(f"SELECT id, table_code, context FROM reports WHERE table_code IN ({marks})",
                           list(mine))):
        said = json.loads(r["context"] or "[]")
        numbers = mine[r["table_code"]]
        changed = [{**x, "name": FORMER_PLAYER, "text": DELETED_TEXT} if x.get("number") in numbers else x
                   for x in said]
        if changed != said:
            db.execute("UPDATE reports SET context = ? WHERE id = ?", [json.dumps(changed), r["id"]])


def erase_account(db: Db, email: str, now: float) -> Erased | None:
    """Delete the account of ``email`` (normalised already) in the transaction of ``db``;
    None when there is none (then only the address's codes and guards are deleted)."""
    db.execute("DELETE FROM login_codes WHERE email = ?", [email])
    db.execute("DELETE FROM signin_guards WHERE email = ?", [email])
    users = list(db.query("SELECT id FROM users WHERE email = ?", [email]))
    if not users:
        return None
    uid = users[0]["id"]
    gone = GONE_PREFIX + secrets.token_hex(12)
    tables = tuple(sorted({r["table_code"] for r in db.query(
        "SELECT table_code FROM seats WHERE player_id = ? OR left_player_id = ?", [uid, uid])}))
    handed, closed = _circles(db, uid)
    _reports(db, uid)
    db.execute("UPDATE chat_lines SET text = ? WHERE person = ?", [DELETED_TEXT, uid])
    db.execute("UPDATE reports SET text = ? WHERE reported = ?", [DELETED_TEXT, uid])
    for table, column, name, emoji in _NAMED:
        also = f", {emoji} = ''" if emoji else ""
        db.execute(f"UPDATE {table} SET {name} = ?{also} WHERE {column} = ?", [FORMER_PLAYER, uid])
    db.execute("UPDATE invitations SET by_name = ? WHERE table_code IN (SELECT code FROM tables WHERE host = ?)",
               [FORMER_PLAYER, uid])
    _rewrite_json(db, "circle_results", "match_id", "seats", uid, gone, seat_name=True)
    _rewrite_json(db, "night_tables", "code", "people", uid, gone, seat_name=False)
    for table, column in _OWN:
        db.execute(f"DELETE FROM {table} WHERE {_q(column)} = ?", [uid])
    for table, column in _KEPT:
        db.execute(f"UPDATE {table} SET {_q(column)} = ? WHERE {_q(column)} = ?", [gone, uid])
    db.execute("DELETE FROM players WHERE id = ?", [uid])
    db.execute("DELETE FROM users WHERE id = ?", [uid])
    return Erased(uid, gone, tables, tuple(handed), tuple(closed))


class EraseStore(StoreCore):
    """Deleting one person's account for good: their rows gone or anonymised, so the
    database file itself keeps no trace of their email or name."""

    def erase_account(self, email: str, now: float | None = None) -> Erased | None:
        """Delete the account of ``email`` (normalised already) in one transaction; None
        when there is none. On SQLite the freed bytes are zeroed and the log truncated."""
        now = time.time() if now is None else now
        if self.engine != "sqlite":
            with self.transaction() as db:
                return erase_account(db, email, now)
        conn = self.db.conn  # type: ignore[attr-defined]  # SQLite: sqlite-utils' Database
        conn.execute("PRAGMA secure_delete = ON")
        try:
            with self.transaction() as db:
                erased = erase_account(db, email, now)
        finally:
            conn.execute("PRAGMA secure_delete = OFF")
        if erased is not None:
            # frames written before the erase still hold the old rows until the log restarts
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return erased
