"""Sending mail: over SMTP when a server is configured, otherwise to the console and to
``instance/outbox/`` (the no-configuration default for development).

Configuration (environment, or the same keys in the app's config):
``SPADES_SMTP_HOST``, ``SPADES_SMTP_PORT`` (25; 465 for ``ssl``; 587 for ``starttls``),
``SPADES_SMTP_TLS`` (``none``, ``starttls`` or ``ssl``), ``SPADES_SMTP_USER``,
``SPADES_SMTP_PASSWORD``, ``SPADES_MAIL_FROM``.

``subject_name``: what of a person's chosen name may go into a subject (invitations).

Imports: stdlib only (no Flask: the web layer builds a ``Mailer`` from its config).
"""

from __future__ import annotations

import logging
import os
import secrets
import smtplib
import ssl
import time
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formataddr, make_msgid
from pathlib import Path

log = logging.getLogger(__name__)

KEYS = ("SPADES_SMTP_HOST", "SPADES_SMTP_PORT", "SPADES_SMTP_TLS", "SPADES_SMTP_USER",
        "SPADES_SMTP_PASSWORD", "SPADES_MAIL_FROM")


class MailError(RuntimeError):
    """The message could not be handed to the mail server."""


@dataclass(frozen=True)
class Mailer:
    """Where mail goes: an SMTP server, or (``host`` empty) the console and an outbox folder."""

    host: str = ""
    port: int = 25
    tls: str = "none"
    user: str = ""
    password: str = ""
    sender: str = "Spades <spades@localhost>"
    outbox: Path | None = None
    timeout: float = 10.0

    @classmethod
    def from_config(cls, config: Mapping[str, object], outbox: Path | None = None) -> Mailer:
        """A mailer from a mapping with the ``SPADES_…`` keys, the environment filling gaps."""
        def get(key: str, default: str = "") -> str:
            value = config.get(key) or os.environ.get(key) or default
            return str(value)

        tls = get("SPADES_SMTP_TLS", "none").lower()
        if tls not in ("none", "starttls", "ssl"):
            raise ValueError("SPADES_SMTP_TLS must be none, starttls or ssl")
        default_port = {"none": "25", "starttls": "587", "ssl": "465"}[tls]
        return cls(
            host=get("SPADES_SMTP_HOST"),
            port=int(get("SPADES_SMTP_PORT", default_port)),
            tls=tls,
            user=get("SPADES_SMTP_USER"),
            password=get("SPADES_SMTP_PASSWORD"),
            sender=get("SPADES_MAIL_FROM", cls.sender),
            outbox=outbox,
        )

    def message(self, to: str, subject: str, text: str, html: str | None = None,
                headers: Mapping[str, str] | None = None) -> EmailMessage:
        """The message as it is sent; ``headers``: more header fields (a notice's
        ``List-Unsubscribe``), which may not replace the ones set here."""
        msg = EmailMessage()
        msg["From"] = self.sender
        msg["To"] = to
        msg["Subject"] = subject
        msg["Message-ID"] = make_msgid(domain="spades.local")
        for name, value in (headers or {}).items():
            if name.lower() in ("from", "to", "subject", "message-id"):
                raise ValueError(f"{name} is set by the mailer")
            msg[name] = value
        msg.set_content(text)
        if html:
            msg.add_alternative(html, subtype="html")
        return msg

    def send(self, to: str, subject: str, text: str, html: str | None = None,
             headers: Mapping[str, str] | None = None) -> EmailMessage:
        """Send one message (``headers``: more header fields, see ``message``). Raises
        MailError when the SMTP server refuses or cannot be reached."""
        msg = self.message(to, subject, text, html, headers)
        if not self.host:
            self._to_outbox(msg)
            return msg
        try:
            if self.tls == "ssl":
                smtp: smtplib.SMTP = smtplib.SMTP_SSL(self.host, self.port, timeout=self.timeout,
                                                      context=ssl.create_default_context())
            else:
                smtp = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
            with smtp:
                if self.tls == "starttls":
                    smtp.starttls(context=ssl.create_default_context())
                if self.user:
                    smtp.login(self.user, self.password)
                smtp.send_message(msg)
        except (OSError, smtplib.SMTPException) as e:
            # The address is the user's own input; the body may hold a sign-in code: log neither.
            log.warning("mail to the SMTP server %s:%s failed: %s", self.host, self.port, type(e).__name__)
            raise MailError("The mail could not be sent. Please try again in a moment.") from e
        return msg

    def _to_outbox(self, msg: EmailMessage) -> None:
        text = msg.as_string()
        print(f"--- mail (no SMTP server configured) ---\n{text}\n--- end of mail ---", flush=True)
        if self.outbox is not None:
            self.outbox.mkdir(parents=True, exist_ok=True)
            name = f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}.eml"
            (self.outbox / name).write_text(text, encoding="utf-8")


SUBJECT_NAME_MAX = 24  # characters of a person's name a subject may carry
_NAME_MARKS = frozenset(" '’-.")


def subject_name(name: str) -> str | None:
    """A person's chosen name as it may appear in a mail's subject, or None when it may not:
    only letters (any script, with their accents), spaces and the marks ``'’-.``, at least
    one letter, ``SUBJECT_NAME_MAX`` characters at most. Digits, symbols and links stay
    out, so a subject cannot be made to say "Win $500 at example.com".

    >>> subject_name("  Zoë   O'Neil "), subject_name("Prize $500"), subject_name("www.x.io")
    ("Zoë O'Neil", None, None)
    """
    text = " ".join(unicodedata.normalize("NFC", name or "").split())
    if not text or len(text) > SUBJECT_NAME_MAX or "." in text.replace(". ", "").rstrip("."):
        return None  # "www.x.io" is a link; "J. R." and "Jr." are names
    if not any(ch.isalpha() for ch in text):
        return None
    if not all(ch in _NAME_MARKS or unicodedata.category(ch)[0] in "LM" for ch in text):
        return None
    return text


def address(name: str, email: str) -> str:
    """A display address such as ``Ann <ann@example.com>``."""
    return formataddr((name, email))
