"""A match played with takebacks (undo at a practice table) says so in what a person takes
away from it: the downloaded ``record.json`` carries ``"takebacks": N`` (RECORD.md lets a
record have extra keys), while the match runs and once it is over, and for an earlier
match's replay after a rematch; the replay and the score sheet say "Played with
takebacks". ``python -m spades replay`` and ``verify`` take such a record as any other. A
match without takebacks has no such key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import csrf_of

from spades.rules import Rules
from spades.tables import Player, Rematch

ROOT = Path(__file__).resolve().parent.parent
BEN = "takeback-ben"
RULES = Rules(mode="no_bidding", end="hands", hands=1, tempo="off")


def as_ben(client):
    with client.session_transaction() as s:
        s["pid"] = BEN
    return client


def turn(service, code: str) -> dict:
    """Ben's view once the bots are done (his turn, or the match is over)."""
    assert service.wait_idle()
    return service.snapshot(code, BEN).view.to_json()
def undo(client, code: str, version: int, csrf: str) -> None:
    answer = client.post(f"/g/{code}/undo", data={"csrf": csrf, "version": version}, headers={"HX-Request": "true"})
    assert answer.status_code == 200, answer.get_data(as_text=True)


def play_out(service, code: str) -> None:
    for _ in range(200):
        v = turn(service, code)
        if v["finished"]:
            return
        service.act(code, Player(BEN), v["legal"][-1], v["version"])
    raise AssertionError("the match did not end")


def download(client, code: str) -> dict:
    answer = client.get(f"/g/{code}/record.json")
    assert answer.status_code == 200 and "attachment" in answer.headers["Content-Disposition"]
    return json.loads(answer.get_data(as_text=True))


def command(name: str, record: dict, tmp_path: Path) -> tuple[int, dict]:
    """``python -m spades <name> FILE`` on the record as downloaded: exit status and its JSON."""
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(record, indent=1))
    done = subprocess.run([sys.executable, "-m", "spades", name, str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.stderr == ""
    return done.returncode, json.loads(done.stdout)


def test_the_record_of_a_match_with_takebacks_says_how_many_and_still_replays_and_verifies(client, service,
                                                                                          tmp_path):
    code = service.create_practice(BEN, "Ben", RULES, "easy")
    plain = service.create_practice(BEN, "Ben", RULES, "easy")
    as_ben(client)
    csrf = csrf_of(client)
    me = Player(BEN)
    # two takebacks at the same table: one card, then (after playing on) another
    for _ in range(2):
        v = turn(service, code)
        service.act(code, me, v["legal"][0], v["version"])
        v = turn(service, code)
        undo(client, code, v["version"], csrf)
        v = turn(service, code)
        service.act(code, me, v["legal"][-1], v["version"])
    running = download(client, code)  # while the match runs: Ben's part, with the count
    assert running["takebacks"] == 2
    play_out(service, code)
    play_out(service, plain)

    record = download(client, code)
    assert record["takebacks"] == 2
    assert list(record) == ["format", "rules", "takebacks", "hands"]  # seen before the long list of hands
    clean = download(client, plain)
    assert "takebacks" not in clean and list(clean) == ["format", "rules", "hands"]

    # the commands take it as any record, and the key changes nothing they report
    status, replayed = command("replay", record, tmp_path)
    assert status == 0 and replayed["ok"] is True and replayed["finished"] is True
    without = {k: v for k, v in record.items() if k != "takebacks"}
    assert command("replay", without, tmp_path) == (status, replayed)
    assert command("verify", record, tmp_path) == (0, {"ok": True, "hands": 1})

    # the pages say it too; the plain match's do not
    for path in ("replay?trick=end", "record"):
        page = client.get(f"/g/{code}/{path}").get_data(as_text=True)
        assert "Played with takebacks: moves were taken back (2 times)" in page, path
        assert "takebacks" not in client.get(f"/g/{plain}/{path}").get_data(as_text=True), path


def test_an_earlier_matchs_replay_says_it_was_played_with_takebacks(client, service):
    code = service.create_practice(BEN, "Ben", RULES, "easy")
    as_ben(client)
    csrf = csrf_of(client)
    me = Player(BEN)
    v = turn(service, code)
    service.act(code, me, v["legal"][0], v["version"])
    undo(client, code, turn(service, code)["version"], csrf)
    play_out(service, code)
    service.handle(code, me, Rematch(turn(service, code)["version"]))
    play_out(service, code)  # match 2, without takebacks

    first = client.get(f"/g/{code}/replay?match=1&trick=end").get_data(as_text=True)
    assert "Played with takebacks: moves were taken back (1 time)" in first
    assert "takebacks" not in client.get(f"/g/{code}/replay?trick=end").get_data(as_text=True)
    assert "takebacks" not in download(client, code)  # the download is the latest match's
