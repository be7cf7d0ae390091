"""A real SMTP server on loopback (aiosmtpd) that keeps what it receives, for tests."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from aiosmtpd.controller import Controller

from spades.web.loadbench import free_port


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    content: bytes

    @property
    def message(self) -> EmailMessage:
        return message_from_bytes(self.content, policy=policy.default)

    @property
    def text(self) -> str:
        return self.message.get_body(("plain",)).get_content()


@dataclass
class Inbox:
    host: str
    port: int
    messages: list[Received] = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope):  # aiosmtpd handler hook
        self.messages.append(Received(envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 Message accepted for delivery"

    def wait_for(self, to: str, timeout: float = 10.0) -> Received:
        """The newest message to ``to``, waiting for it to arrive."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for m in reversed(self.messages):
                if to in m.rcpt_tos:
                    return m
            time.sleep(0.05)
        raise AssertionError(f"no mail to {to} arrived")

    def config(self) -> dict:
        return {"SPADES_SMTP_HOST": self.host, "SPADES_SMTP_PORT": self.port}


@pytest.fixture
def smtp():
    """A running aiosmtpd server on 127.0.0.1; ``smtp.messages`` holds what it received."""
    inbox = Inbox("127.0.0.1", free_port())
    controller = Controller(inbox, hostname=inbox.host, port=inbox.port)
    controller.start()
    try:
        yield inbox
    finally:
        controller.stop()


@pytest.fixture
def unused_port() -> int:
    return free_port()
