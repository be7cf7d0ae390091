"""Deleting one's account for good: ``POST /me/delete``, confirmed by typing the account's email.

Imports: Flask and the web layer's services.
"""

from __future__ import annotations

from flask import Blueprint, Flask

bp = Blueprint("account_delete", __name__)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


__all__ = ["bp", "init_app"]
