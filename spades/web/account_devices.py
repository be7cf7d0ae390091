"""A person's devices and address: each signed-in device with its own Sign out, and
changing the account's email with a code sent to the new address.

Imports: Flask and the web layer's services.
"""

from __future__ import annotations

from flask import Blueprint, Flask

bp = Blueprint("account_devices", __name__)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


__all__ = ["bp", "init_app"]
