"""``/spades`` in Discord: interactions signed as Discord signs them (a real Ed25519 key made
here), the link they answer opened by two browsers, and ``python -m spades discord
register`` against a fake of Discord's API on loopback."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from itsdangerous import TimestampSigner, URLSafeTimedSerializer

from spades import discord
from spades.__main__ import main
from spades.web import close_app, create_app
from spades.web.rooms.options import TARGETS
from spades.web.site.discord import _SALT, EXPIRED, GARBLED, NO_ADDRESS

KEY = Ed25519PrivateKey.generate()
PUBLIC_HEX = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()
SITE = "https://spades.example"


@pytest.fixture
def app_config() -> dict:
    return {"DISCORD_PUBLIC_KEY": PUBLIC_HEX, "PUBLIC_URL": SITE}


def post_signed(client, payload: object, key: Ed25519PrivateKey = KEY, timestamp: str | None = None,
                body: bytes | None = None, headers: dict | None = None):
    """POST ``payload`` as Discord does: the signature (hex) over the timestamp then the raw body."""
    raw = json.dumps(payload).encode() if body is None else body
    ts = str(int(time.time())) if timestamp is None else timestamp
    sent = {"Content-Type": "application/json", "X-Signature-Timestamp": ts,
            "X-Signature-Ed25519": key.sign(ts.encode() + json.dumps(payload).encode()).hex()}
    sent.update(headers or {})
    return client.post("/discord/interactions", data=raw, headers={k: v for k, v in sent.items() if v is not None})


_ids = iter(range(10**17, 10**18))


def command(sub: str, **options) -> dict:
    """An APPLICATION_COMMAND interaction: ``/spades <sub>`` with these options."""
    given = [{"name": k, "type": 4 if isinstance(v, int) else 3, "value": v} for k, v in options.items()]
    return {"id": str(next(_ids)), "type": 2, "application_id": "123", "token": "interaction-token",
            "data": {"id": "1", "name": "spades", "type": 1,
                     "options": [{"name": sub, "type": 1, "options": given}]}}


def link_of(answer: dict) -> str:
    """The path of the answer's link button (on the site's address)."""
    (row,) = answer["data"]["components"]
    (button,) = row["components"]
    assert row["type"] == 1 and button["type"] == 2 and button["style"] == 5
    url = urlsplit(button["url"])
    assert f"{url.scheme}://{url.netloc}" == SITE
    return url.path


def form_csrf(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


# -- the signature ---------------------------------------------------------------------------------
def test_ping_is_answered(client):
    answer = post_signed(client, {"id": "1", "type": 1})
    assert answer.status_code == 200
    assert answer.get_json() == {"type": 1}


def test_unsigned_badly_signed_or_old_requests_are_refused(client):
    ping = {"id": "1", "type": 1}
    assert post_signed(client, ping, key=Ed25519PrivateKey.generate()).status_code == 401  # another key
    assert post_signed(client, ping, headers={"X-Signature-Ed25519": None}).status_code == 401
    assert post_signed(client, ping, headers={"X-Signature-Timestamp": None}).status_code == 401
    assert post_signed(client, ping, headers={"X-Signature-Ed25519": "not hex"}).status_code == 401
    old = str(int(time.time()) - discord.SKEW_S - 5)
    assert post_signed(client, ping, timestamp=old).status_code == 401
    ahead = str(int(time.time()) + discord.SKEW_S + 5)
    assert post_signed(client, ping, timestamp=ahead).status_code == 401
    # the signature of one body on another
    assert post_signed(client, ping, body=json.dumps({"id": "1", "type": 2}).encode()).status_code == 401
    assert post_signed(client, ping, timestamp=str(int(time.time()) - 60)).status_code == 200  # inside the window


def test_a_replay_gets_the_same_answer(client):
    asked = command("table", players=2)
    first = post_signed(client, asked)
    again = post_signed(client, asked)
    assert first.status_code == again.status_code == 200
    assert again.get_json() == first.get_json()


def test_the_endpoint_is_not_there_unless_configured(app, tmp_path, monkeypatch):
    monkeypatch.delenv("SPADES_DISCORD_PUBLIC_KEY", raising=False)
    plain = create_app({"TESTING": True, "DATABASE": str(tmp_path / "plain.db"), "SECRET_KEY": "test-secret",
                        "PUBLIC_URL": SITE, "RESUME_TABLES": False, "TOURNEY_TICK_S": 0, "NOTICE_TICK_S": 0})
    try:
        client = plain.test_client()
        assert post_signed(client, {"id": "1", "type": 1}).status_code == 404
        token = URLSafeTimedSerializer("test-secret", salt=_SALT).dumps(["42", 2, "standard", 500])
        assert client.get(f"/discord/start/{token}").status_code == 404
    finally:
        close_app(plain)
    # a site that has it, and then has it no more, is off too
    app.config["DISCORD_PUBLIC_KEY"] = None
    assert post_signed(app.test_client(), {"id": "1", "type": 1}).status_code == 404


def test_a_bad_public_key_stops_the_start(tmp_path):
    with pytest.raises(ValueError, match="64 hex digits"):
        create_app({"TESTING": True, "DATABASE": str(tmp_path / "bad.db"), "SECRET_KEY": "test-secret",
                    "DISCORD_PUBLIC_KEY": "abcd", "RESUME_TABLES": False, "TOURNEY_TICK_S": 0,
                    "NOTICE_TICK_S": 0})


def test_a_bad_public_key_is_refused():
    with pytest.raises(ValueError, match="64 hex digits"):
        discord.public_key("abcd")
    with pytest.raises(ValueError, match="hex"):
        discord.public_key("not a key")


# -- /spades table ---------------------------------------------------------------------------------
def test_the_link_makes_one_room_its_first_opener_hosts_and_the_next_joins(app, service):
    answer = post_signed(app.test_client(), command("table", players=3, preset="jjdd", target=300)).get_json()
    assert answer["type"] == 4
    assert "flags" not in answer["data"]  # in the channel, for everyone
    assert answer["data"]["content"].startswith("A table for 3 people: ")
    assert "Jokers JJDD" in answer["data"]["content"] and "to 300" in answer["data"]["content"]
    path = link_of(answer)

    hana = app.test_client()
    page = hana.get(path)
    assert page.status_code == 200 and "A table for 3 people" in page.get_data(as_text=True)
    made = hana.post(path, data={"csrf": form_csrf(page.get_data(as_text=True)), "name": "Hana", "emoji": "🦊"})
    assert made.status_code == 303
    code = made.headers["Location"].rsplit("/", 1)[1]
    room = service.store.load_room(code)
    assert room.options["kind"] == "friends" and room.options["humans"] == 3
    rules = room.options["rules"]
    assert (rules["jokers"], rules["min_bid"], rules["ten_for_200"], rules["target"]) == ("jjdd", 4, True, 300)
    (host,) = room.members
    assert room.host == host.player_id and host.name == "Hana"
    assert hana.get(path).headers["Location"] == f"/j/{code}"  # back to her room by the join page

    ann = app.test_client()
    opened = ann.get(path)
    assert opened.status_code == 303 and opened.headers["Location"] == f"/j/{code}"
    form = ann.get(f"/j/{code}")
    assert form.status_code == 200
    joined = ann.post(f"/j/{code}", data={"csrf": form_csrf(form.get_data(as_text=True)), "name": "Ann",
                                          "emoji": "🐼"})
    assert joined.status_code == 303 and joined.headers["Location"] == f"/g/{code}"
    room = service.store.load_room(code)
    assert [m.name for m in room.members] == ["Hana", "Ann"] and room.host == host.player_id


def test_a_name_is_asked_for_before_the_room_is_made(app, service):
    path = link_of(post_signed(app.test_client(), command("table")).get_json())
    hana = app.test_client()
    csrf = form_csrf(hana.get(path).get_data(as_text=True))
    refused = hana.post(path, data={"csrf": csrf, "name": "", "emoji": "🦊"})
    assert refused.status_code == 400
    assert hana.post(path, data={"name": "Hana", "emoji": "🦊"}).status_code == 400  # no CSRF token
    made = hana.post(path, data={"csrf": csrf, "name": "Hana", "emoji": "🦊"})
    assert made.status_code == 303
    assert service.store.load_room(made.headers["Location"].rsplit("/", 1)[1]).options["humans"] == 4


def test_options_that_cannot_go_together_are_said_to_the_asker(client):
    answer = post_signed(client, command("table", players=4, preset="cutthroat-3")).get_json()
    assert answer["data"] == {"content": "A table of 3 players is for 1 to 3 people.", "flags": 64}
    answer = post_signed(client, command("table", players=9)).get_json()
    assert answer["data"]["flags"] == 64 and "1 to 4 people" in answer["data"]["content"]


def test_without_the_sites_address_there_is_no_link(app, client):
    app.config["PUBLIC_URL"] = None
    answer = post_signed(client, command("table")).get_json()
    assert answer == {"type": 4, "data": {"content": NO_ADDRESS, "flags": 64}}


def test_an_expired_or_garbled_link_says_so(app):
    class Yesterday(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - 25 * 3600

    old = URLSafeTimedSerializer("test-secret", salt=_SALT, signer=Yesterday).dumps(["42", 2, "standard", 500])
    browser = app.test_client()
    expired = browser.get(f"/discord/start/{old}")
    assert expired.status_code == 400 and EXPIRED in expired.get_data(as_text=True)
    for token in ("garbled", URLSafeTimedSerializer("another-secret", salt=_SALT).dumps(["42", 2, "standard", 500]),
                  URLSafeTimedSerializer("test-secret", salt=_SALT).dumps(["42", 7, "standard", 500])):
        answer = browser.get(f"/discord/start/{token}")
        assert answer.status_code == 400 and GARBLED in answer.get_data(as_text=True)


# -- /spades practice ------------------------------------------------------------------------------
def test_practice_is_for_the_asker_only_and_each_opener_plays_their_own(app, service):
    answer = post_signed(app.test_client(), command("practice", preset="cutthroat-4")).get_json()
    assert answer["type"] == 4 and answer["data"]["flags"] == 64
    assert answer["data"]["content"].startswith("A practice game against the bots: ")
    path = link_of(answer)
    codes = []
    for name in ("Hana", "Ann"):
        browser = app.test_client()
        page = browser.get(path)
        assert page.status_code == 200 and "A practice game" in page.get_data(as_text=True)
        made = browser.post(path, data={"csrf": form_csrf(page.get_data(as_text=True)), "name": name, "emoji": "🦊"})
        assert made.status_code == 303
        codes.append(made.headers["Location"].rsplit("/", 1)[1])
    assert codes[0] != codes[1]
    room = service.store.load_room(codes[0])
    assert room.options["kind"] == "practice"


def test_the_command_offers_the_sites_targets():
    assert discord.TARGETS == TARGETS


# -- python -m spades discord register -------------------------------------------------------------
NAME = re.compile(r"^[-_a-z0-9]{1,32}$")


def check_command(c: dict, top: bool = True) -> None:
    """A command or option as Discord's API takes it (application commands, option types 1-11)."""
    assert NAME.match(c["name"]), c["name"]
    assert 1 <= len(c["description"]) <= 100
    options = c.get("options", [])
    assert len(options) <= 25
    if not top:
        assert c["type"] in range(1, 12)
    kinds = {o["type"] for o in options}
    assert not (1 in kinds and kinds - {1, 2}), "subcommands stand alone"
    required = [o.get("required", False) for o in options]
    assert required == sorted(required, reverse=True), "required options first"
    for o in options:
        check_command(o, top=False)
        if "choices" in o:
            assert o["type"] in (3, 4, 10) and 1 <= len(o["choices"]) <= 25
            for choice in o["choices"]:
                assert 1 <= len(choice["name"]) <= 100
                assert isinstance(choice["value"], str if o["type"] == 3 else int)
        if "min_value" in o or "max_value" in o:
            assert o["type"] in (4, 10)


class FakeDiscord(BaseHTTPRequestHandler):
    """Discord's bulk overwrite of an application's commands, as its API answers it."""

    received: list[tuple[str, str, str, object]] = []

    def do_PUT(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.received.append((self.command, self.path, self.headers.get("Authorization", ""), body))
        if self.path != "/api/v10/applications/123/commands":
            return self._answer(404, {"message": "Unknown Application", "code": 10002})
        if self.headers.get("Authorization") != "Bot the-bot-token":
            return self._answer(401, {"message": "401: Unauthorized", "code": 0})
        assert isinstance(body, list)
        for c in body:
            check_command(c)
        self._answer(200, [{**c, "id": str(n), "application_id": "123", "version": "1"} for n, c in enumerate(body)])

    def _answer(self, status: int, document: object) -> None:
        data = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def fake_discord(monkeypatch):
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeDiscord)
    FakeDiscord.received = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("SPADES_DISCORD_API", f"http://127.0.0.1:{server.server_port}/api/v10")
    monkeypatch.setenv("SPADES_DISCORD_APP_ID", "123")
    monkeypatch.setenv("SPADES_DISCORD_BOT_TOKEN", "the-bot-token")
    yield FakeDiscord.received
    server.shutdown()
    server.server_close()


def test_register_puts_the_command(fake_discord, capsys):
    assert main(["discord", "register"]) == 0
    ((method, path, authorization, body),) = fake_discord
    assert (method, path, authorization) == ("PUT", "/api/v10/applications/123/commands", "Bot the-bot-token")
    assert body == discord.COMMANDS
    out, err = capsys.readouterr()
    assert "/spades" in out and "/spades table" in out and "/spades practice" in out
    assert "the-bot-token" not in out + err


def test_register_says_what_discord_refused(fake_discord, monkeypatch, capsys):
    monkeypatch.setenv("SPADES_DISCORD_BOT_TOKEN", "a-wrong-token")
    assert main(["discord", "register"]) == 1
    out, err = capsys.readouterr()
    assert "401" in err and "a-wrong-token" not in out + err


def test_register_without_its_variables(monkeypatch, capsys):
    monkeypatch.delenv("SPADES_DISCORD_APP_ID", raising=False)
    monkeypatch.setenv("SPADES_DISCORD_BOT_TOKEN", "the-bot-token")
    assert main(["discord", "register"]) == 2
    out, err = capsys.readouterr()
    assert "SPADES_DISCORD_APP_ID" in err and "the-bot-token" not in out + err
    monkeypatch.delenv("SPADES_DISCORD_BOT_TOKEN")
    assert main(["discord", "register"]) == 2
    assert "SPADES_DISCORD_APP_ID and SPADES_DISCORD_BOT_TOKEN" in capsys.readouterr().err
