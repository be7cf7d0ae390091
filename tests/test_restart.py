"""Saved after every card: a server killed with SIGKILL mid-hand comes back at the same card.

The real server (``flask run``, as ``scripts/serve`` starts it) runs in a subprocess on a
temporary database; a browser-like client (cookies, CSRF token) plays into the middle of a
hand; the process is killed without warning and started again on the same database.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from pathlib import Path

import pytest
from helpers.restart import Browser, Server, practice_and_bid, wait_for_turn
from servers import Gunicorn, free_port


def test_sigkill_mid_hand_and_the_match_resumes_at_the_same_card(tmp_path):
    db = tmp_path / "restart.db"
    port = free_port()
    server = Server(db, port)
    browser = Browser()
    try:
        code, v = practice_and_bid(browser, server.url)
        while True:  # play until two tricks are done, then on until a bot is to move after our card
            v = wait_for_turn(browser, server.url, code, v["version"])
            browser.post(f"{server.url}/g/{code}/act", action=v["legal"][0], version=v["version"])
            before = browser.view(server.url, code)  # just after our card
            if len(v["tricks"]) >= 2 and before["to_act"] != 0:
                break  # the bots are about to move (not our lead, after a trick we took)
        server.kill()
    finally:
        if server.proc.poll() is None:
            server.kill()
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT version FROM matches").fetchone()[0]
    assert stored == before["version"]  # every accepted move was on disk when the process died

    server = Server(db, port)
    try:
        after = browser.view(server.url, code)
        for key in ("version", "hand", "trick", "tricks", "bids", "taken", "scores", "to_act"):
            assert after[key] == before[key], key
        resumed = wait_for_turn(browser, server.url, code, before["version"])  # the bots carry on
        assert resumed["version"] > before["version"] and resumed["to_act"] == 0
        page = browser.post(f"{server.url}/g/{code}/act", action=resumed["legal"][0], version=resumed["version"])
        assert "data-card" in page  # the same cookie still holds seat 0 after the restart
        assert browser.view(server.url, code)["version"] > resumed["version"]
    finally:
        server.kill()


def bot_processes(pid: int) -> list[int]:
    """The processes the server started (its bot pool)."""
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                children.append(int(entry.name))
    return children


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_the_bot_processes_end_with_the_server(tmp_path, how):
    server = Server(tmp_path / "s.db", free_port())
    try:
        browser = Browser()
        browser.get(server.url + "/")
        browser.post(server.url + "/practice", level="hard", speed="fast", end="target-500")
        code = browser.url.rsplit("/", 1)[1]
        deadline = time.monotonic() + 30
        while not bot_processes(server.proc.pid) and time.monotonic() < deadline:
            v = browser.view(server.url, code)
            if v["to_act"] == 0:  # the bots think (and their processes start) once it is their turn
                browser.post(f"{server.url}/g/{code}/act", action="bid", bid="3", version=v["version"])
            time.sleep(0.1)
        bots = bot_processes(server.proc.pid)
        assert bots, "the bots never started"
    finally:
        os.kill(server.proc.pid, how)
        server.proc.wait(10)
    deadline = time.monotonic() + 20  # they check every moment; a loaded machine may take a while to run them
    while any(Path(f"/proc/{pid}").exists() for pid in bots) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in bots if Path(f"/proc/{pid}").exists()]


def test_a_clean_stop_plays_no_fallback_move_for_the_bots_still_waiting(tmp_path):
    """gunicorn stopped (SIGTERM) while Hard bots at several tables wait for the one bot
    process: their turns are left for the next start, never answered with a fallback move."""
    server = Gunicorn("app:app", tmp_path, "stop", {"SPADES_BOT_WORKERS": "1", "SPADES_LOG_LEVEL": "info"})
    server.start()
    try:
        tables = []
        for _ in range(4):
            browser = Browser()
            browser.get(server.base + "/")
            browser.post(server.base + "/practice", level="hard", speed="fast", end="target-500")
            tables.append((browser, browser.url.rsplit("/", 1)[1]))
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline:  # the person moves whenever it is their turn
            for browser, code in tables:
                v = browser.view(server.base, code)
                if v["to_act"] == 0 and v["legal"]:
                    action = {"action": "bid", "bid": "3"} if v["phase"] == "bidding" else {"action": v["legal"][0]}
                    browser.post(f"{server.base}/g/{code}/act", version=v["version"], **action)
        waiting = sum(1 for browser, code in tables if browser.view(server.base, code)["to_act"] != 0)
        assert waiting >= 2  # bots were still to move at several tables when the server stopped
    finally:
        server.stop()
    log = server.log.read_text()
    assert "fallback" not in log, log[-3000:]
