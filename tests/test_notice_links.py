"""The turn notices' links on a site as installed: ``scripts/serve`` gives the notices the
address it serves on, a site with no usable ``PUBLIC_URL`` says once in its log that it
sends none, and with one a turn mail goes out over SMTP with the table's link and the
``List-Unsubscribe`` headers whose one-click POST stops the mails."""

from __future__ import annotations

import logging
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from spades.rules_config import Rules
from spades.storage import SeatRow
from spades.tables import EMOJIS
from spades.web import close_app, create_app

ROOT = Path(__file__).resolve().parent.parent
SERVED = "http://127.0.0.1:5000"


def serve_env(tmp_path: Path, **env: str) -> str:
    """What ``scripts/serve`` hands the server as ``SPADES_PUBLIC_URL``: the script runs in a
    copy of the tree whose setup does nothing and whose ``flask`` only says what it got."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "serve", tmp_path / "scripts" / "serve")
    (tmp_path / "scripts" / "setup").write_text("exit 0\n")
    flask = tmp_path / ".venv" / "bin" / "flask"
    flask.parent.mkdir(parents=True)
    flask.write_text('#!/usr/bin/env bash\necho "PUBLIC_URL=${SPADES_PUBLIC_URL:-} ARGS=$*"\n')
    flask.chmod(flask.stat().st_mode | stat.S_IXUSR)
    base = {k: v for k, v in os.environ.items() if k not in ("SPADES_PUBLIC_URL", "PORT")}
    out = subprocess.run(["bash", str(tmp_path / "scripts" / "serve")], env={**base, **env}, capture_output=True,
                         text=True, timeout=30, check=True).stdout
    return out.strip()


def test_serve_gives_the_notices_the_address_it_serves_on(tmp_path):
    assert serve_env(tmp_path) == f"PUBLIC_URL={SERVED} ARGS=--app app run --host 127.0.0.1 --port 5000 --with-threads"
    shutil.rmtree(tmp_path / "scripts")
    shutil.rmtree(tmp_path / ".venv")
    assert serve_env(tmp_path, PORT="5123").startswith("PUBLIC_URL=http://127.0.0.1:5123 ")
    shutil.rmtree(tmp_path / "scripts")
    shutil.rmtree(tmp_path / ".venv")
    assert serve_env(tmp_path, SPADES_PUBLIC_URL="https://spades.example").startswith(
        "PUBLIC_URL=https://spades.example ")  # a site's own address stands


@pytest.mark.parametrize("given, warned", [
    (None, "SPADES_PUBLIC_URL is not set"),
    ("spades.example", "SPADES_PUBLIC_URL ('spades.example') is not an http:// or https:// address"),
    ("https://spades.example/", None),
])
def test_a_site_without_a_usable_public_address_says_so_once_at_start(tmp_path, caplog, given, warned):
    with caplog.at_level(logging.WARNING):
        app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "spades.db"), "SECRET_KEY": "s",
                          "RESUME_TABLES": False, "TOURNEY_TICK_S": 0, "NOTICE_TICK_S": 0, "PUBLIC_URL": given})
    try:
        lines = [r.getMessage() for r in caplog.records if "SPADES_PUBLIC_URL" in r.getMessage()]
        if warned is None:
            assert lines == [] and app.extensions["spades.notices"].base_url == "https://spades.example"
        else:
            [line] = lines
            assert line.startswith(warned) and "no turn mails or push notices are sent" in line
            assert app.extensions["spades.notices"].base_url is None
    finally:
        close_app(app)


@pytest.fixture
def app_config(smtp):
    return {"PUBLIC_URL": SERVED, **smtp.config()}


def test_with_a_public_address_a_turn_mail_goes_out_with_the_link_and_a_one_click_stop(app, smtp):
    service = app.extensions["spades.tables"]
    service.store.sign_in("ann@example.com", "u-ann", None, "Ann", EMOJIS[0], 0.0)
    seats = [SeatRow(0, "human", "u-ann", "Ann", EMOJIS[0])] + [SeatRow(s, "bot", None, f"Bot{s}", "🤖")
                                                                 for s in (1, 2, 3)]
    code = service.create_seated(seats, Rules(tempo="days-1"), {"kind": "friends", "humans": 1,
                                                                "rules": {"tempo": "days-1"}}, host="u-ann")
    service.wait_idle()
    assert [t.person for t in service.store.turns_of(code)] == ["u-ann"]  # the bots moved at once
    app.extensions["spades.notices"].tick()

    mail = smtp.wait_for("ann@example.com")
    assert mail.message["Subject"] == f"Your turn at table {code}" and f"{SERVED}/g/{code}" in mail.text
    stop = str(mail.message["List-Unsubscribe"]).strip()  # a long field is folded after its name
    assert stop.startswith(f"<{SERVED}/notices/off/") and stop.endswith(">") and stop[1:-1] in mail.text
    assert mail.message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    r = app.test_client().post(stop[1:-1].removeprefix(SERVED), data={"List-Unsubscribe": "One-Click"})
    assert r.status_code == 200 and service.store.mail_prefs("u-ann")[0] is True
