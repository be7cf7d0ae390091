"""The privacy page (``/privacy``): what the site keeps, why, for how long, who sees it,
and how to download or delete it.

Imports: Flask and the web layer's services.
"""

from __future__ import annotations

from flask import Blueprint, Flask

bp = Blueprint("privacy", __name__)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


__all__ = ["bp", "init_app"]
