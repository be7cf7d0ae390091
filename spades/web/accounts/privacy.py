"""The privacy page (``/privacy``): what the site keeps, why, for how long, who sees it,
and how to download or delete it; and the retention tick, which deletes what is kept only
for a while on the schedule the page states (``spades.retention``).

Settings: ``RETENTION_TICK_S`` (3600; 0 in tests unless they ask: nothing ticks), how
often the purge runs.

Imports: Flask, ``spades.retention`` and the web layer's notices (its tick) and services.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, render_template

from ... import retention
from ...accounts import CODE_TTL, IDLE_S
from ..rooms.notices import tick_every

bp = Blueprint("privacy", __name__)


@bp.get("/privacy")
def privacy() -> str:
    return render_template("privacy/privacy.html", keep=retention, code_minutes=CODE_TTL // 60,
                           idle_days=int(IDLE_S // retention.DAY))


def start(app: Flask) -> None:
    """Purge every ``RETENTION_TICK_S`` seconds, by the tables' clock; a table this
    process holds in memory waits until it is let go (or the process restarts)."""
    tables = app.extensions["spades.tables"]
    outbox = Path(app.instance_path) / "outbox"
    tick_every(app, float(app.config.get("RETENTION_TICK_S", 0 if app.testing else 3600)), "retention purge",
               lambda: retention.purge(tables.store, tables.now(), outbox, tables.in_memory))


def init_app(app: Flask) -> None:
    start(app)
    app.register_blueprint(bp)


__all__ = ["bp", "init_app"]
