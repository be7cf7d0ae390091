"""Download my data (``GET /me/data.json``) and the operator's ``python -m spades account
export EMAIL``: one JSON document with everything the site keeps about a person (a
finished match and a running one with their records, chat, a circle, a night's answer, a
board played, a tourney registration), nothing of another person's (their email, their
chat, their matches), refused signed out, limited to a few an hour; the command prints
the same document, and ``python -m spades replay`` accepts its match records."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

import pytest
from conftest import start_practice
from helpers.boards import play_through
from helpers.circles import post, signed_in

from spades.account_export import export_account
from spades.records import replay_report
from spades.rules_config import Rules
from spades.storage import Store

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def app_config() -> dict:
    return {"NIGHT_TICK_S": 0}


def table_for_two(host, guest) -> str:
    """A table for two people (bots in the other seats), started: its code."""
    r = post(host, "/new", name="Ann", emoji="🦊", humans="2", mode="bidding", end="target-500",
             bag_penalty="on", tempo="normal", level="easy", speed="fast")
    assert r.status_code == 303
    code = r.headers["Location"].rsplit("/", 1)[1]
    assert post(guest, f"/j/{code}", name="Bo", emoji="🐼").status_code == 303
    assert post(host, f"/g/{code}/start").status_code == 303
    return code


def download(client):
    r = client.get("/me/data.json")
    assert r.status_code == 200, r.get_data(as_text=True)
    return r, json.loads(r.get_data(as_text=True))


@pytest.fixture
def ann_and_bo(app, service):
    """Ann: a finished practice match, one with Bo being played where both chatted and she
    reacted, a circle she owns (Bo in it), a night she said yes to, a board she started, a
    tourney she registered for. Bo: a practice match of his own."""
    ann, bo = signed_in(app, "ann@example.com", "Ann"), signed_in(app, "bo@example.com", "Bo", "🐼")
    done = start_practice(ann, name="Ann", end="hands-5", speed="fast")
    play_through(service, done, ann.uid)
    running = table_for_two(ann, bo)
    service.wait_idle()
    assert post(ann, f"/g/{running}/chat", text="good luck from ann").status_code == 303
    assert post(ann, f"/g/{running}/react", reaction="👍").status_code == 303
    assert post(bo, f"/g/{running}/chat", text="bo whispers here").status_code == 303
    bos = start_practice(bo, name="Bo")  # a match of Bo's alone
    service.wait_idle()

    r = post(ann, "/c", name="Friday club")
    assert r.status_code == 303
    slug = r.headers["Location"].rsplit("/", 1)[1]
    page = ann.get(f"/c/{slug}").get_data(as_text=True)
    link = re.search(r'<a rel="invite" href="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert post(bo, urlsplit(link).path).status_code == 303
    when = datetime.now(ZoneInfo("Europe/Paris")) + timedelta(days=2)
    assert post(ann, f"/c/{slug}/nights", day=f"{when:%Y-%m-%d}", time=f"{when:%H:%M}",
                zone="Europe/Paris").status_code == 303
    [night] = app.extensions["spades.nights"].nights(slug)
    assert post(ann, f"/c/{slug}/nights/{night.id}/answer", answer="yes").status_code == 303
    assert post(ann, f"/c/{slug}/boards", boards="4", preset="standard", start="now", days="7").status_code == 303
    [week] = service.store.board_weeks(slug)
    r = post(ann, f"/c/{slug}/boards/{week.id}/table", tempo="normal")
    assert r.status_code == 303
    board = r.headers["Location"].rsplit("/", 1)[1]

    r = post(ann, "/t/new", tourney_name="Friday cup", format="knockout", team_limit="4", start="director",
             listed="", name="Ann", emoji="🐼")
    assert r.status_code == 303
    tourney = r.headers["Location"].rsplit("/", 1)[1]
    assert post(ann, f"/t/{tourney}/register", name="Ann", emoji="🐼", **{"as": "solo"}).status_code == 303
    service.wait_idle()
    return {"ann": ann, "bo": bo, "done": done, "running": running, "bos": bos, "slug": slug,
            "board": board, "tourney": tourney}


def test_the_download_holds_everything_about_the_person_and_nothing_of_anyone_else(ann_and_bo, service):
    w = ann_and_bo
    r, data = download(w["ann"])
    assert r.headers["Cache-Control"] == "no-store"
    assert re.fullmatch(r'attachment; filename="spades-data-\d{4}-\d{2}-\d{2}\.json"',
                        r.headers["Content-Disposition"])
    assert data["account"]["email"] == "ann@example.com" and data["account"]["name"] == "Ann"
    assert data["account"]["last_seen"]
    [signin] = data["sessions"]
    assert signin["ended"] is None and signin["created"] <= signin["seen"]
    with w["ann"].session_transaction() as s:
        secret = s["sid"]

    matches = {m["table"]: m for m in data["matches"]}
    done, running = matches[w["done"]], matches[w["running"]]
    assert done["result"] in ("won", "lost", "drawn") and done["seat"] == 0 and done["takebacks"] == 0
    assert len(done["record"]["hands"]) == 5 and done["names"][0] == "Ann"
    assert all(len(h["plays"]) == 52 for h in done["record"]["hands"])
    # the match being played: her own cards, and of the others' only those played
    assert running["result"] == "playing"
    hand = running["record"]["hands"][-1]
    mine = service.snapshot(w["running"], w["ann"].uid).view.to_json()["hand"]
    assert sorted(hand["deal"][running["seat"]]) == sorted(str(c) for c in mine)
    others = [cards for seat, cards in enumerate(hand["deal"]) if seat != running["seat"]]
    assert all(set(cards) <= set(hand["plays"]) for cards in others)  # Bo's cards among them
    board = matches[w["board"]]  # its week's boards are still being played: shut, as on its pages
    assert board["result"] == "playing" and board["record"] is None and board["record_shut"]

    assert [(c["text"], c["kind"]) for c in data["chat"]] == [("good luck from ann", "text"), ("👍", "reaction")]
    assert [(c["name"], c["role"]) for c in data["circles"]] == [("Friday club", "owner")]
    assert [(a["circle_name"], a["answer"]) for a in data["night_answers"]] == [("Friday club", "yes")]
    assert [(b["circle_name"], b["table_code"]) for b in data["boards_played"]] == [("Friday club", w["board"])]
    assert [(t["code"], t["name"]) for t in data["tourneys"]] == [(w["tourney"], "Friday cup")]
    assert [p["name"] for p in data["played_with"]] == ["Bo"]

    text = json.dumps(data, ensure_ascii=False)
    assert "bo@example.com" not in text and "bo whispers here" not in text and w["bos"] not in text
    assert w["bo"].uid not in text and secret not in text


def test_signed_out_the_download_is_refused_with_a_sentence(client):
    r = client.get("/me/data.json")
    assert r.status_code == 403 and "Content-Disposition" not in r.headers
    assert "Sign in to download your data" in r.get_data(as_text=True)
    assert "Download my data" not in client.get("/me").get_data(as_text=True)


def test_me_links_to_the_download(app):
    ann = signed_in(app, "ann@example.com", "Ann")
    page = ann.get("/me").get_data(as_text=True)
    assert re.search(r'<a [^>]*href="/me/data.json"[^>]*>Download my data</a>', page)


def test_a_few_downloads_an_hour_then_429_with_retry_after(app):
    ann = signed_in(app, "ann@example.com", "Ann")
    for _ in range(5):
        assert ann.get("/me/data.json").status_code == 200
    r = ann.get("/me/data.json")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert "You have downloaded your data 5 times this hour" in r.get_data(as_text=True)
    bo = signed_in(app, "bo@example.com", "Bo")
    assert bo.get("/me/data.json").status_code == 200  # each person has their own


def test_the_command_prints_the_document_and_replay_accepts_its_records(app, ann_and_bo):
    w = ann_and_bo
    database = app.config["DATABASE"]
    out = subprocess.run([sys.executable, "-m", "spades", "account", "export", "Ann@Example.com",
                          "--database", database], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    _, downloaded = download(w["ann"])
    assert {k: v for k, v in printed.items() if k != "exported"} == \
        {k: v for k, v in downloaded.items() if k != "exported"}
    [done] = [m for m in printed["matches"] if m["table"] == w["done"]]
    replayed = subprocess.run([sys.executable, "-m", "spades", "replay", "-"], input=json.dumps(done["record"]),
                              capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    report = json.loads(replayed.stdout)
    assert report["ok"] and report["finished"] and len(report["hands"]) == 5

    missing = subprocess.run([sys.executable, "-m", "spades", "account", "export", "nobody@example.com",
                              "--database", database], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert missing.returncode == 1 and missing.stdout == ""
    assert "There is no account with the email nobody@example.com." in missing.stderr


def account_command(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "spades", "account", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)


def test_the_command_deletes_an_account_once(tmp_path):
    database = str(tmp_path / "operator.db")
    store = Store(database)
    store.sign_in("cy@example.com", "u-cy", None, "Cy", "🐯", time.time())
    store.close()
    deleted = account_command("delete", "Cy@Example.com", "--database", database)
    assert deleted.returncode == 0 and "The account of Cy@Example.com is deleted." in deleted.stdout
    again = account_command("delete", "cy@example.com", "--database", database)
    assert again.returncode == 1 and "There is no account with the email cy@example.com." in again.stderr
    assert account_command("export", "cy@example.com", "--database", database).returncode == 1


def test_the_export_reads_the_same_on_both_engines(database):
    """On SQLite and on PostgreSQL: each of the person's finished matches with a record that
    replays to its end, and none of another person's."""
    from bench.export import EMAIL, fill

    store = Store(database)
    try:
        fill(store, 3, Rules(end="hands", hands=1))
        data = export_account(store, EMAIL)
    finally:
        store.close()
    assert data is not None and data["account"]["email"] == EMAIL
    assert [m["table"] for m in data["matches"]] == ["B00000", "B00001", "B00002"]  # B00003 is someone else's
    assert [m["seat"] for m in data["matches"]] == [0, 2, 0]
    for m in data["matches"]:
        report = replay_report(m["record"])
        assert report["ok"] and report["finished"] and m["result"] in ("won", "lost")


def test_the_benchmark_still_runs(capsys):
    """``python -m bench.export`` on a few matches (its figures are not checked)."""
    from bench import export

    export.main(["--matches", "12", "--hands", "1", "--runs", "1"])
    assert "export (median of 1):" in capsys.readouterr().out
