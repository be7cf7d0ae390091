"""A person's own data to take away: ``GET /me/data.json``, everything the site keeps
about the signed-in person in one JSON document.

Imports: Flask and the web layer's services.
"""

from __future__ import annotations

from flask import Blueprint, Flask

bp = Blueprint("account_data", __name__)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


__all__ = ["bp", "init_app"]
