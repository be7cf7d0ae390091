"""Two processes of the site, one table, two Chromium pages, and a SIGKILL.

A real Redis and two server processes on two ports share one PostgreSQL database. Hana
hosts a table for two on the first process; Ann joins through the second; each plays from
her own page on her own process, and every move shows on the other page. Then the process
that owns the table is killed without warning in the middle of the hand: the other
process takes the table over, every move acknowledged before the kill is still there, its
bots move and the people's clocks run out and move for them (nobody touches a page
meanwhile), and Ann's page goes on. Hana reopens the table on the surviving process and
plays on."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from playwright.sync_api import Page, expect
from servers import free_port

from spades.storage import Store

ROOT = Path(__file__).resolve().parent.parent
CLOCK_S = 4  # every person's turn, so that a clock runs out while the test waits
LEASE_S = 2.0

LAUNCH = """
import json, sys
from spades.web import create_app
app = create_app(json.loads(sys.argv[2]))
app.run(host="127.0.0.1", port=int(sys.argv[1]), threaded=True, use_reloader=False)
"""

VERSION_AT_LEAST = """v => {
  const turn = document.getElementById('turn');  // the table's version the page shows
  return !!turn && Number(turn.dataset.version) >= v;
}"""
PERSON_TO_ACT = """seats => {  // one of these seats to act, as the page shows the table: [that seat, the version]
  const turn = document.getElementById('turn');
  return !!turn && turn.dataset.seat !== undefined && seats.includes(Number(turn.dataset.seat))
    && [Number(turn.dataset.seat), Number(turn.dataset.version)];
}"""
MY_MOVE_OR_PAST = """v => {  // the page shows the table at version v with its own move to make, or a later version
  const turn = document.getElementById('turn'), shown = turn ? Number(turn.dataset.version) : -1;
  return shown > v || shown === v && !!document.querySelector('.bidbox, .fan.playable .card.legal');
}"""
# the page's move (the bid it suggests, or its first legal card), found and clicked in one go:
# a person's clock may move for them at any moment and take the form away, so a click that
# waited for what was found a moment before could wait for a form that never comes back
MOVE = """() => {
  const move = document.querySelector('.bidbox button[value=bid]')
    || document.querySelector('.fan.playable .card.legal');
  if (move) move.click();
  return !!move;
}"""


class Node:
    """One process of the site (Werkzeug, threaded, as in development)."""

    def __init__(self, database: str, redis_url: str, logdir: Path) -> None:
        self.port = free_port()
        config = {"DATABASE": database, "REDIS_URL": redis_url, "SECRET_KEY": "cluster-test-secret",
                  "PLAY_DELAYS": {"slow": 0.3, "normal": 0.3, "fast": 0.3}, "BOT_WORKERS": 1,
                  "CLOCK_SECONDS_OVERRIDE": CLOCK_S, "CLUSTER_LEASE_S": LEASE_S, "TOURNEY_TICK_S": 0}
        self.log = logdir / f"node-{self.port}.log"
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen([sys.executable, "-c", LAUNCH, str(self.port), json.dumps(config)],
                                         cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                assert self.proc.poll() is None, self.log.read_text()
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def version(page: Page) -> int:
    return int(page.locator("#turn").get_attribute("data-version"))


def seat_of(page: Page) -> int:
    """The seat the page is for (its side, ``from-N``)."""
    return int(re.search(r"\bfrom-(\d)\b", page.locator("#told").get_attribute("class")).group(1))


def act(page: Page) -> bool:
    """Bid (the suggested number) or play the first legal card if the page shows its
    turn; then wait until it shows a later version (its move, or its clock's that came
    first)."""
    shown = version(page)
    if not page.evaluate(MOVE):
        return False
    page.wait_for_function(VERSION_AT_LEAST, arg=shown + 1, timeout=15000)
    return True


def play_and_see(mine: Page, other: Page, moves: int, timeout: float = 90) -> None:
    """Each page moves when it is its turn; after each of its moves the other page, on the
    other process, shows the table at that version (or later) before anyone moves again
    (how fast is for bench.load to measure, with --workers 2, not for a test). The
    people's clocks run meanwhile: a move its clock made first counts as that person's."""
    pages = {seat_of(mine): mine, seat_of(other): other}
    done = 0
    deadline = time.monotonic() + timeout
    while done < moves:
        assert time.monotonic() < deadline, "the people did not get their turns"
        seat, shown = mine.wait_for_function(PERSON_TO_ACT, arg=list(pages), timeout=60000).json_value()
        me = pages[seat]
        them = other if me is mine else mine
        me.wait_for_function(MY_MOVE_OR_PAST, arg=shown, timeout=15000)
        if act(me):
            done += 1
        them.wait_for_function(VERSION_AT_LEAST, arg=version(me), timeout=15000)


def stored(store: Store, code: str) -> list[tuple[int, int | None, str]]:
    return store.actions(store.load_table(code).match.id)


# PostgreSQL, the database machines share (a SQLite file behaves the same here: tests/test_cluster.py
# kills an owner on both engines without a browser)
@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_two_processes_one_table_and_the_owner_killed_mid_hand(database, redis_url, browser, tmp_path):
    nodes = [Node(database, redis_url, tmp_path), Node(database, redis_url, tmp_path)]
    contexts = [browser.new_context() for _ in range(2)]
    hana, ann = (c.new_page() for c in contexts)
    store = Store(database)
    try:
        first, second = nodes
        hana.goto(first.url + "/new")
        hana.get_by_label("Your name").fill("Hana")
        hana.locator("label:has(input[name=humans][value='2'])").click()
        hana.get_by_role("button", name="Create the table").click()
        hana.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        code = hana.locator(".join-code strong").inner_text()
        expect(hana.locator("body.live")).to_have_count(1, timeout=10000)

        ann.goto(f"{second.url}/j/{code}")  # through the other process
        ann.get_by_label("Your name").fill("Ann")
        ann.get_by_role("button", name="Join").click()
        ann.wait_for_url(re.compile(rf"/g/{code}$"))
        expect(hana.locator("#room")).to_contain_text("Ann", timeout=15000)  # heard across the processes
        expect(ann.locator("body.live")).to_have_count(1, timeout=10000)
        hana.locator("li.member", has_text="Ann").get_by_role("button", name="Partner").click()
        expect(ann.locator("#room")).to_contain_text("Ann is the host's partner.", timeout=15000)
        hana.get_by_role("button", name="Start the game").click()
        for p in (hana, ann):
            expect(p.locator("#felt")).to_be_visible(timeout=10000)
            expect(p.locator("body.live")).to_have_count(1, timeout=10000)
            expect(p.locator("#hand .card")).to_have_count(13, timeout=15000)

        # moves on either process show on both
        play_and_see(hana, ann, moves=4)

        # the owner is killed mid-hand
        owner = redis.Redis.from_url(redis_url).get(f"spades:owner:{code}").decode()
        victim = next(n for n in nodes if f":{n.proc.pid}:" in owner)
        survivor = next(n for n in nodes if n is not victim)
        before = stored(store, code)
        os.kill(victim.proc.pid, signal.SIGKILL)
        victim.proc.wait(10)

        # nobody touches a page: the survivor adopts the table, its bots move and the
        # people's clocks run out and move for them
        deadline = time.monotonic() + LEASE_S + 6 * CLOCK_S + 30
        while True:
            after = stored(store, code)
            new = after[len(before):]
            seats = {seat for _, seat, _ in new}
            if {0, 2} <= seats and {1, 3} & seats:
                break
            assert time.monotonic() < deadline, f"the table did not carry on: {new}"
            time.sleep(0.2)
        assert after[:len(before)] == before  # every acknowledged move is kept
        survivor_page = ann if survivor is second else hana
        survivor_page.wait_for_function(VERSION_AT_LEAST, arg=after[-1][0], timeout=15000)

        # Hana reopens the table on the survivor (a proxy would send her there) and plays on
        for p in (hana, ann):
            p.goto(f"{survivor.url}/g/{code}")
            expect(p.locator("body.live")).to_have_count(1, timeout=10000)
        play_and_see(hana, ann, moves=2)
        final = stored(store, code)
        assert final[:len(after)] == after and len(final) > len(after)
    finally:
        for c in contexts:
            c.close()
        for n in nodes:
            n.stop()
