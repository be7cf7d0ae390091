"""Rate limits (flask-limiter): join attempts, sign-in requests and code tries.

One ``limiter`` for the application; views decorate themselves with
``@limiter.limit("10 per minute", error_message=...)``, keyed by the client address unless
they pass another ``key_func`` (an email address, say). A breach answers 429 with the
message, rendered by ``spades.web.errors`` as a friendly page or htmx fragment.

Storage: ``RATELIMIT_STORAGE_URI`` in the app config: ``memory://`` for one process, and
the site's ``REDIS_URL`` by default when one is set, so that every process counts against
the same limits.
Tests may set ``RATELIMIT_ENABLED = False`` for an app that is not about limits.

Imports: Flask and flask-limiter only.
"""

from __future__ import annotations

import time

from flask import Flask, abort
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import parse

limiter = Limiter(get_remote_address, storage_uri="memory://", headers_enabled=True)


def hit(limit: str, key: str, scope: str) -> float | None:
    """Count this request under ``key`` against ``limit`` (one "N per period"), from inside a
    view that decides for itself what to count (a limit checked only after another passed,
    say): None while within it, else the seconds until it lets requests through again."""
    if not limiter.enabled:
        return None
    item = parse(limit)
    if limiter.limiter.hit(item, key, scope):
        return None
    return max(1.0, limiter.limiter.get_window_stats(item, key, scope).reset_time - time.time())


def hit_shared(limit: str, scope: str, message: str) -> None:
    """Count this request against the shared limit ``scope`` from outside a view (the
    WebSocket's handshake, which answers before its view runs), keyed by the client
    address as the views' shared limits are. Aborts with 429 and ``message`` past it."""
    if hit(limit, get_remote_address(), scope) is not None:
        abort(429, description=message)


def init_app(app: Flask) -> None:
    app.config.setdefault("RATELIMIT_STORAGE_URI", "memory://")
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", True)
    limiter.init_app(app)
