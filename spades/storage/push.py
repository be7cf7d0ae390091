"""Push subscriptions: the browsers that asked for notices, each kept by its push
service's endpoint with its keys, and the person (an account, or a browser's id) it
belongs to. Written at once (they belong to the person, not to a table).

Imports: stdlib and the storage package's ``base`` and ``core``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .base import Db
from .core import StoreCore

MAX_PER_PERSON = 20  # browsers one person keeps notices on; the oldest go first


@dataclass(frozen=True, slots=True)
class PushSubscriptionRow:
    """One browser's subscription: where its push service takes messages for it, and the
    keys they are encrypted to (base64url, as the browser gave them)."""

    endpoint: str
    person: str
    p256dh: str
    auth: str
    created: float


class PushStore(StoreCore):
    """Push subscriptions, by person."""

    def add_push_subscription(self, person: str, endpoint: str, p256dh: str, auth: str,
                              now: float | None = None) -> None:
        """Keep a browser's subscription for ``person``: one already kept under that endpoint
        (the same browser subscribing again, or signed in to another account) becomes
        ``person``'s with these keys. A person keeps ``MAX_PER_PERSON`` at most."""
        now = time.time() if now is None else now
        with self.transaction() as db:
            db.execute("INSERT INTO push_subscriptions (endpoint, person, p256dh, auth, created) "
                       "VALUES (?, ?, ?, ?, ?) ON CONFLICT(endpoint) DO UPDATE SET person = excluded.person, "
                       "p256dh = excluded.p256dh, auth = excluded.auth, created = excluded.created",
                       [endpoint, person, p256dh, auth, now])
            db.execute("DELETE FROM push_subscriptions WHERE person = ? AND endpoint NOT IN "
                       "(SELECT endpoint FROM push_subscriptions WHERE person = ? "
                       "ORDER BY created DESC, endpoint LIMIT ?)", [person, person, MAX_PER_PERSON])

    def remove_push_subscription(self, endpoint: str, person: str | None = None) -> bool:
        """Forget a subscription (of ``person`` only, when given); whether one was kept."""
        with self.transaction() as db:
            if person is None:
                cur = db.execute("DELETE FROM push_subscriptions WHERE endpoint = ?", [endpoint])
            else:
                cur = db.execute("DELETE FROM push_subscriptions WHERE endpoint = ? AND person = ?",
                                 [endpoint, person])
            return cur.rowcount > 0

    def remove_push_subscriptions(self, person: str) -> int:
        """Forget every subscription of ``person`` (signed out on every device); how many."""
        with self.transaction() as db:
            return db.execute("DELETE FROM push_subscriptions WHERE person = ?", [person]).rowcount

    def push_subscriptions(self, person: str) -> list[PushSubscriptionRow]:
        """The person's subscriptions, newest first."""
        with self._reading() as db:
            rows = list(db.query("SELECT endpoint, person, p256dh, auth, created FROM push_subscriptions "
                                 "WHERE person = ? ORDER BY created DESC, endpoint", [person]))
        return [PushSubscriptionRow(r["endpoint"], r["person"], r["p256dh"], r["auth"], r["created"]) for r in rows]


def move_push(db: Db, anon_pid: str, user_id: str) -> None:
    """A browser's subscriptions become the account's at sign-in (see ``PeopleStore.sign_in``)."""
    db.execute("UPDATE push_subscriptions SET person = ? WHERE person = ?", [user_id, anon_pid])
