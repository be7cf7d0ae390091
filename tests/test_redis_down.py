"""Redis stopped and started again under two real server processes (gunicorn, as in
production) sharing one database and one Redis.

While Redis is down: a move posted to the process that does not own its table is answered
503 "try again" (never a 500), every process still makes practice tables and plays them,
pages still show, and each process logs the outage once, not once per request. Once
Redis is back, nothing is restarted: the move through the other process is taken again,
a practice table made during the outage is reached through the other process (its maker
took its lease), and each process logs once that Redis answers again. No traceback in
either log."""

from __future__ import annotations

import http.cookiejar
import json
import re
import secrets
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from servers import Gunicorn, RedisServer

TRY_AGAIN = "The site cannot reach its other servers just now. Try again in a moment."
HX = {"HX-Request": "true"}


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # a 303 is an answer to look at, not to follow
        return None


class Browser:
    """One browser (one cookie jar) that may talk to either process: both serve 127.0.0.1
    with one secret key, so its session is the same on both."""

    def __init__(self) -> None:
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()),
                                                  NoRedirect)
        self.csrf = ""

    def call(self, url: str, data: dict | None = None, headers: dict | None = None) -> tuple[int, str, dict]:
        body = urllib.parse.urlencode({"csrf": self.csrf, **data}).encode() if data is not None else None
        request = urllib.request.Request(url, data=body, headers=headers or {})
        try:
            with self.opener.open(request, timeout=30) as r:
                status, text, got = r.status, r.read().decode(), dict(r.headers)
        except urllib.error.HTTPError as e:
            status, text, got = e.code, e.read().decode(), dict(e.headers)
        found = re.search(r'name="csrf" value="([^"]+)"', text)
        if found:
            self.csrf = found.group(1)
        return status, text, got

    def practice(self, base: str) -> tuple[int, str]:
        """POST /practice on ``base``: the status and, on a 303, the new table's code."""
        if not self.csrf:
            self.call(base + "/")
        status, _, headers = self.call(base + "/practice", {"level": "easy", "speed": "fast", "end": "target-500"})
        return status, headers.get("Location", "").rsplit("/", 1)[-1]

    def my_turn(self, base: str, code: str, timeout: float = 20.0) -> dict:
        """The seat view once it is this browser's turn (the bots move at once)."""
        deadline = time.monotonic() + timeout
        while True:
            status, text, _ = self.call(f"{base}/g/{code}/view.json")
            assert status == 200, (status, text[:300])
            view = json.loads(text)
            if view["to_act"] == view["seat"] or time.monotonic() > deadline:
                assert view["to_act"] == view["seat"], view
                return view
            time.sleep(0.1)

    def move(self, base: str, code: str, view: dict) -> tuple[int, str]:
        status, text, _ = self.call(f"{base}/g/{code}/act", {"action": view["legal"][0], "version": view["version"]},
                                    HX)
        return status, text


def until_taken(move, seconds: float = 20.0) -> int:
    """Post ``move`` until it is not "try again" (each process tries Redis again within
    about a second of its return), or ``seconds`` pass; the last status."""
    deadline = time.monotonic() + seconds
    while (status := move()[0]) == 503 and time.monotonic() < deadline:
        time.sleep(0.5)
    return status


@pytest.fixture
def redis_and_two_servers(tmp_path):
    server = RedisServer(tmp_path)
    env = {"SPADES_REDIS_URL": server.url, "SPADES_DATABASE": str(tmp_path / "shared.db"),
           "SPADES_SECRET_KEY": secrets.token_hex(32), "SPADES_BOT_WORKERS": "1"}
    a = Gunicorn("app:app", tmp_path, "a", env)
    b = Gunicorn("app:app", tmp_path, "b", env)
    try:
        a.start()
        b.start()
        yield server, a, b
    finally:
        for site in (a, b):
            site.stop()
        server.stop()


def test_redis_stopped_and_started_again_gives_try_again_never_a_500_and_comes_back_by_itself(
        redis_and_two_servers):
    redis, a, b = redis_and_two_servers
    ann = Browser()
    status, code = ann.practice(a.base)  # made on a: a owns it
    assert status == 303
    view = ann.my_turn(a.base, code)
    assert ann.move(b.base, code, view)[0] == 200  # forwarded from b to a while Redis is up
    view = ann.my_turn(a.base, code)

    redis.stop()
    statuses: dict[str, list[int]] = {"forwarded move": [], "practice on a": [], "practice on b": [],
                                      "move at a table b made": [], "pages": []}
    made_on_b = []
    end = time.monotonic() + 8
    while time.monotonic() < end:
        status, text = ann.move(b.base, code, view)
        statuses["forwarded move"].append(status)
        assert status != 503 or TRY_AGAIN in text
        for label, site in (("practice on a", a), ("practice on b", b)):
            if len(statuses[label]) < 3:  # a few (each person may start 30 an hour)
                status, new = ann.practice(site.base)
                statuses[label].append(status)
                if status == 303 and site is b and len(made_on_b) < 2:
                    made_on_b.append(new)
                    mine = ann.my_turn(b.base, new)
                    statuses["move at a table b made"].append(ann.move(b.base, new, mine)[0])
        for url in (f"{b.base}/g/{code}", f"{a.base}/", f"{b.base}/t"):
            statuses["pages"].append(ann.call(url)[0])
    assert set(statuses["forwarded move"]) == {503}, statuses
    assert set(statuses["practice on a"]) == set(statuses["practice on b"]) == {303}, statuses
    assert statuses["move at a table b made"] == [200, 200], statuses
    assert set(statuses["pages"]) == {200}, statuses

    redis.start()  # an empty Redis on the same port: no lease, no inbox, nothing
    assert until_taken(lambda: ann.move(b.base, code, view)) == 200  # through b again, by itself
    later = made_on_b[0]
    mine = ann.my_turn(a.base, later)
    assert until_taken(lambda: ann.move(a.base, later, mine)) == 200  # a table b made while Redis was down

    for site in (a, b):
        log = site.log.read_text(errors="replace")
        assert log.count("does not answer") == 1, log[-3000:]
        assert log.count("answers again") == 1, log[-3000:]
        assert "Traceback" not in log, log[-3000:]
