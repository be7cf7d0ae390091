"""Mail over a real SMTP conversation (aiosmtpd on loopback), and the outbox default."""

from email import message_from_bytes, policy

import pytest

from spades.mail import Mailer, MailError


def test_smtp_delivers_the_message(smtp):
    mailer = Mailer.from_config({"SPADES_SMTP_HOST": smtp.host, "SPADES_SMTP_PORT": smtp.port,
                                 "SPADES_MAIL_FROM": "Spades <table@example.org>"})
    mailer.send("Ann <ann@example.com>", "You are invited", "Join: http://x/j/ABCDE", "<p>Join</p>")
    [envelope] = smtp.messages
    assert envelope.rcpt_tos == ["ann@example.com"]
    msg = message_from_bytes(envelope.content, policy=policy.default)
    assert msg["Subject"] == "You are invited"
    assert "http://x/j/ABCDE" in msg.get_body(("plain",)).get_content()


def test_unreachable_server_raises_a_mail_error(unused_port):
    mailer = Mailer(host="127.0.0.1", port=unused_port, timeout=2)
    with pytest.raises(MailError):
        mailer.send("ann@example.com", "s", "t")


def test_no_server_prints_and_writes_the_outbox(tmp_path, capsys):
    mailer = Mailer.from_config({}, outbox=tmp_path / "outbox")
    if mailer.host:  # an SMTP server configured in this environment
        pytest.skip("SPADES_SMTP_HOST is set in the environment")
    mailer.send("ann@example.com", "Your code", "123456")
    [saved] = (tmp_path / "outbox").iterdir()
    assert "Subject: Your code" in saved.read_text()
    assert "123456" in capsys.readouterr().out


def test_bad_tls_setting_is_refused():
    with pytest.raises(ValueError):
        Mailer.from_config({"SPADES_SMTP_TLS": "maybe"})


def test_smtp_delivers_the_extra_header_fields(smtp):
    """A turn notice's one-click stop (RFC 8058) rides in two header fields."""
    mailer = Mailer.from_config(smtp.config())
    stop = "https://spades.example/notices/off/InUtYW5uIg.abc"
    mailer.send("ann@example.com", "Your turn at table ABCDEF", f"To stop these mails: {stop}",
                headers={"List-Unsubscribe": f"<{stop}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"})
    [envelope] = smtp.messages
    msg = message_from_bytes(envelope.content, policy=policy.default)
    assert str(msg["List-Unsubscribe"]).strip() == f"<{stop}>"
    assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    with pytest.raises(ValueError):  # the fields the mailer sets stay its own
        mailer.send("ann@example.com", "s", "t", headers={"From": "someone@else.example"})
