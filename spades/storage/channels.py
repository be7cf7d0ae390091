"""A circle's channel (its Discord or Slack incoming webhook) and the messages queued for
it, each stored before it is sent, so that a restart loses none and sends none twice.

A message is keyed by what it tells (``queue_post``: a match's end, a night's reminder):
queued again under the same key, it is not queued twice. A sending process takes the
messages due with a lease (``claim_posts``): another process takes none of them while
the lease runs, and one whose sender died is taken again once its lease lapses.

Imports: stdlib and the storage package's ``base`` and ``core``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .base import lock
from .core import StoreCore

QUEUED, SENT, FAILED = "queued", "sent", "failed"  # a post's states
ON, OFF = "on", "off"  # a channel's


@dataclass(frozen=True, slots=True)
class ChannelRow:
    """A circle's channel: the webhook's URL (a secret: pages show ``tail`` only), which of
    the circle's news it gets, whether it is on (and why not), and until when it must not
    be posted to (the service asked to wait)."""

    circle: str
    service: str  # "discord" or "slack"
    url: str
    tail: str
    kinds: tuple[str, ...]
    state: str
    reason: str
    set_by: str
    set_at: float
    paced_until: float


@dataclass(frozen=True, slots=True)
class PostRow:
    """One message for a circle's channel, as stored: its body is the JSON the service takes."""

    key: str
    circle: str
    kind: str
    body: str
    created: float
    due: float
    tries: int
    state: str
    error: str
    sent_at: float | None


def _channel(r: dict) -> ChannelRow:
    return ChannelRow(r["circle"], r["service"], r["url"], r["tail"], tuple(k for k in r["kinds"].split(",") if k),
                      r["state"], r["reason"] or "", r["set_by"] or "", r["set_at"] or 0.0, r["paced_until"] or 0.0)


def _post(r: dict) -> PostRow:
    return PostRow(r["key"], r["circle"], r["kind"], r["body"], r["created"], r["due"], r["tries"], r["state"],
                   r["error"] or "", r["sent_at"])


_POST = "SELECT key, circle, kind, body, created, due, tries, state, error, sent_at FROM channel_posts"


class ChannelStore(StoreCore):
    """Circles' channels and the posts queued for them."""

    # -- the channel ---------------------------------------------------------------------
    def put_channel(self, circle: str, service: str, url: str, tail: str, kinds: tuple[str, ...], by: str,
                    now: float | None = None) -> None:
        """Set ``circle``'s channel (replacing one set before: its queued posts go with it), on."""
        now = time.time() if now is None else now
        with self.transaction() as db:
            db.execute("DELETE FROM channel_posts WHERE circle = ? AND state = ?", [circle, QUEUED])
            db.execute("DELETE FROM circle_channels WHERE circle = ?", [circle])
            db.execute("INSERT INTO circle_channels (circle, service, url, tail, kinds, state, reason, set_by, set_at, "
                       "paced_until) VALUES (?, ?, ?, ?, ?, ?, '', ?, ?, 0)",
                       [circle, service, url, tail, ",".join(kinds), ON, by, now])

    def channel(self, circle: str) -> ChannelRow | None:
        with self._reading() as db:
            rows = list(db.query("SELECT * FROM circle_channels WHERE circle = ?", [circle]))
        return _channel(rows[0]) if rows else None

    def channels_on(self, kind: str) -> list[str]:
        """The circles whose channel is on and gets ``kind``."""
        with self._reading() as db:
            rows = list(db.query("SELECT circle, kinds FROM circle_channels WHERE state = ? ORDER BY circle", [ON]))
        return [r["circle"] for r in rows if kind in r["kinds"].split(",")]

    def set_channel_kinds(self, circle: str, kinds: tuple[str, ...]) -> bool:
        """Which of the circle's news its channel gets; whether it has a channel."""
        with self.transaction() as db:
            return db.execute("UPDATE circle_channels SET kinds = ? WHERE circle = ?",
                              [",".join(kinds), circle]).rowcount > 0

    def remove_channel(self, circle: str) -> bool:
        """Forget ``circle``'s channel, and every post for it not sent yet; whether it had one."""
        with self.transaction() as db:
            db.execute("DELETE FROM channel_posts WHERE circle = ? AND state = ?", [circle, QUEUED])
            return db.execute("DELETE FROM circle_channels WHERE circle = ?", [circle]).rowcount > 0

    def disable_channel(self, circle: str, reason: str) -> None:
        """Turn ``circle``'s channel off, saying why (its posts not sent yet fail with it)."""
        with self.transaction() as db:
            db.execute("UPDATE circle_channels SET state = ?, reason = ? WHERE circle = ?", [OFF, reason, circle])
            db.execute("UPDATE channel_posts SET state = ?, error = ? WHERE circle = ? AND state = ?",
                       [FAILED, reason, circle, QUEUED])

    def pace_channel(self, circle: str, until: float) -> None:
        """Post nothing to ``circle``'s channel before ``until`` (the service asked to wait)."""
        with self.transaction() as db:
            db.execute("UPDATE circle_channels SET paced_until = MAX(COALESCE(paced_until, 0), ?) WHERE circle = ?"
                       if self.engine == "sqlite" else
                       "UPDATE circle_channels SET paced_until = GREATEST(COALESCE(paced_until, 0), ?) "
                       "WHERE circle = ?", [until, circle])

    # -- the posts -----------------------------------------------------------------------
    def queue_post(self, key: str, circle: str, kind: str, body: str, now: float | None = None) -> bool:
        """Keep a message for ``circle``'s channel, due now, unless one was kept under ``key``
        already (whatever became of it); whether it was kept."""
        now = time.time() if now is None else now
        with self.transaction() as db:
            return db.execute("INSERT INTO channel_posts (key, circle, kind, body, created, due, tries, state) "
                              "VALUES (?, ?, ?, ?, ?, ?, 0, ?) ON CONFLICT (key) DO NOTHING",
                              [key, circle, kind, body, now, now, QUEUED]).rowcount > 0

    def claim_posts(self, owner: str, now: float, lease_s: float, limit: int = 20) -> list[PostRow]:
        """The posts due now to channels that are on and not asked to wait, oldest first,
        at most one per channel (a channel's posts go in order, one at a time), leased to
        ``owner`` for ``lease_s``: no other process takes them meanwhile. Nothing due (the
        usual case, asked every few seconds by each process): one read, no write lock taken."""
        with self._reading() as db:
            if not list(db.query("SELECT 1 FROM channel_posts WHERE state = ? AND due <= ? LIMIT 1", [QUEUED, now])):
                return []
        with self.transaction() as db:
            lock(db, "channel-posts")
            rows = list(db.query(
                "SELECT p.key, p.circle, p.kind, p.body, p.created, p.due, p.tries, p.state, p.error, p.sent_at "
                "FROM channel_posts p JOIN circle_channels c "
                "ON c.circle = p.circle WHERE p.state = ? AND c.state = ? AND COALESCE(c.paced_until, 0) <= ? "
                "AND p.key = (SELECT q.key FROM channel_posts q WHERE q.circle = p.circle AND q.state = ? "
                "ORDER BY q.created, q.key LIMIT 1) AND p.due <= ? AND COALESCE(p.lease_until, 0) <= ? "
                "ORDER BY p.due, p.key LIMIT ?", [QUEUED, ON, now, QUEUED, now, now, limit]))
            for r in rows:
                db.execute("UPDATE channel_posts SET lease_owner = ?, lease_until = ? WHERE key = ?",
                           [owner, now + lease_s, r["key"]])
        return [_post(r) for r in rows]

    def post_sent(self, key: str, now: float | None = None) -> None:
        now = time.time() if now is None else now
        with self.transaction() as db:
            db.execute("UPDATE channel_posts SET state = ?, sent_at = ?, tries = tries + 1, lease_owner = NULL, "
                       "lease_until = NULL, error = NULL WHERE key = ?", [SENT, now, key])

    def post_again(self, key: str, due: float, error: str, count: bool = True) -> None:
        """Send the post again at ``due`` (``count``: the try counts; a wait the service asked
        for does not)."""
        with self.transaction() as db:
            db.execute(f"UPDATE channel_posts SET due = ?, error = ?, lease_owner = NULL, lease_until = NULL"
                       f"{', tries = tries + 1' if count else ''} WHERE key = ?", [due, error, key])

    def post_failed(self, key: str, error: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE channel_posts SET state = ?, error = ?, tries = tries + 1, lease_owner = NULL, "
                       "lease_until = NULL WHERE key = ?", [FAILED, error, key])

    def channel_posts(self, circle: str) -> list[PostRow]:
        """Every post kept for ``circle``'s channel, oldest first."""
        with self._reading() as db:
            rows = list(db.query(f"{_POST} WHERE circle = ? ORDER BY created, key", [circle]))
        return [_post(r) for r in rows]

    # -- /spades in Discord -----------------------------------------------------------------
    def discord_start(self, token: str, code: str, now: float | None = None) -> str:
        """The table made for a ``/spades`` link (``token``): ``code`` if none was made for it
        yet, else the one made first."""
        now = time.time() if now is None else now
        with self.transaction() as db:
            db.execute("INSERT INTO discord_starts (token, code, created) VALUES (?, ?, ?) "
                       "ON CONFLICT (token) DO NOTHING", [token, code, now])
            return str(list(db.query("SELECT code FROM discord_starts WHERE token = ?", [token]))[0]["code"])

    def discord_started(self, token: str) -> str | None:
        """The table made for a ``/spades`` link, if it was opened before."""
        with self._reading() as db:
            rows = list(db.query("SELECT code FROM discord_starts WHERE token = ?", [token]))
        return str(rows[0]["code"]) if rows else None
