"""Invitations by email: sent over SMTP to the loopback aiosmtpd server, their link joins
the table; bad addresses and a failing mail server get a clear message, never a 500."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from conftest import csrf_of
from helpers.lobby import A_EMOJI, join, new_table, post


@pytest.fixture
def app_config(smtp):
    return smtp.config()


def test_an_invitation_arrives_and_its_link_joins_the_table(app, client, smtp, service):
    code = new_table(client, name="Hana")
    r = post(client, code, "invite", emails="ari@example.com, Bo@Example.org")
    assert r.status_code == 303
    assert "Invitation sent to ari@example.com, Bo@Example.org." in client.get(f"/g/{code}").get_data(as_text=True)
    mail = smtp.wait_for("ari@example.com")
    assert "Hana invites you" in mail.message["Subject"]
    assert smtp.wait_for("Bo@Example.org")
    link = re.search(r"https?://\S+/j/\w+", mail.text).group(0)
    assert link.endswith(f"/j/{code}") and code in mail.text
    friend = app.test_client()
    form = friend.get(urlsplit(link).path)
    assert form.status_code == 200 and "Join table" in form.get_data(as_text=True)
    assert join(friend, code, "Ari", A_EMOJI, path=urlsplit(link).path).status_code == 303
    assert [m.name for m in service.room_snapshot(code, None).members] == ["Hana", "Ari"]


@pytest.mark.parametrize("emails,message", [
    ("", "Type an email address"),
    ("not-an-address", "does not look like an email address"),
    ("ari@example.com, bo@", "bo@"),
    ("Ari <ari@example.com>", "does not look like"),
    ("ari@example.com\r\nBcc: x@evil.example", "Bcc:"),
    (" ".join(f"p{i}@example.com" for i in range(11)), "at most 10"),
])
def test_bad_addresses_send_nothing(client, smtp, emails, message):
    code = new_table(client)
    r = post(client, code, "invite", emails=emails)
    assert r.status_code == 400 and message in r.get_data(as_text=True)
    assert smtp.messages == []


def test_a_mail_server_that_fails_gives_a_message_not_a_500(app, client, unused_port):
    app.config.update(SPADES_SMTP_HOST="127.0.0.1", SPADES_SMTP_PORT=unused_port)
    code = new_table(client)
    r = post(client, code, "invite", emails="ari@example.com")
    html = r.get_data(as_text=True)
    assert r.status_code == 502 and "could not be sent" in html and "ari@example.com" in html
    assert 'id="room"' in html  # still the room, with the address kept in the box


def test_only_people_in_the_room_send_invitations(app, client, smtp):
    code = new_table(client)
    stranger = app.test_client()
    r = stranger.post(f"/g/{code}/invite", data={"csrf": csrf_of(stranger), "emails": "x@example.com"})
    assert r.status_code == 403 and smtp.messages == []


def test_a_forged_host_never_goes_into_an_invitation(app, client, smtp):
    code = new_table(client)
    form = {"csrf": csrf_of(client), "emails": "ari@example.com"}
    client.set_cookie("session", client.get_cookie("session").value, domain="evil.example")
    r = client.post(f"/g/{code}/invite", data=form, base_url="http://evil.example")
    assert r.status_code == 400 and "public address is not set" in r.get_data(as_text=True)
    assert smtp.messages == []
    app.config["PUBLIC_URL"] = "https://spades.example"
    r = client.post(f"/g/{code}/invite", data=form, base_url="http://evil.example")
    assert r.status_code == 303
    mail = smtp.wait_for("ari@example.com")
    assert f"https://spades.example/j/{code}" in mail.text and "evil.example" not in mail.text


def test_trusted_hosts_refuse_any_other_host(app, client):
    app.config["TRUSTED_HOSTS"] = ["spades.example"]
    assert client.get("/", environ_overrides={"HTTP_HOST": "evil.example"}).status_code == 400
    assert client.get("/", headers={"Host": "spades.example"}).status_code == 200
