"""The application's services for the request being served: the table service, the
socket hub, the accounts (kept in ``app.extensions`` by ``create_app``), and the mailer.

Imports: Flask, ``spades.tables``, ``spades.accounts``, ``spades.mail`` and the socket hub
(which imports no blueprint and no module that uses these services).
"""

from __future__ import annotations

from pathlib import Path

from flask import abort, current_app, session

from ...accounts import Accounts
from ...mail import Mailer
from ...tables import TableService
from ..table.hub import Hub


def service() -> TableService:
    """This application's table service."""
    return current_app.extensions["spades.tables"]


def hub() -> Hub:
    """This application's socket hub."""
    return current_app.extensions["spades.hub"]


def accounts() -> Accounts:
    """This application's accounts (sign-in codes, records, ratings)."""
    return current_app.extensions["spades.accounts"]


def mailer() -> Mailer:
    """Mail as configured (``SPADES_SMTP_…``); without a server, the console and instance/outbox."""
    return Mailer.from_config(current_app.config, outbox=Path(current_app.instance_path) / "outbox")


def admin_only(what: str) -> None:
    """Abort with 403 unless this session is an account in ``ADMIN_EMAILS`` (the people
    who run the site); ``what`` finishes the sentence ("read the reports")."""
    uid = session.get("uid")
    if not uid:
        abort(403, description=f"Sign in with an account that runs the site to {what}.")
    user = accounts().store.user(uid)
    if user is None or user.email.lower() not in current_app.config.get("ADMIN_EMAILS", ()):
        abort(403, description=f"Only the people who run the site may {what}.")
