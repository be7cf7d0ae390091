"""A site served by its own process, and a browser driven over HTTP through restarts."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
DELAY = "1.0"  # seconds between bot moves: long enough, even on a loaded machine, that no bot
# moves between the last look and the kill


class Server:
    def __init__(self, db: Path, port: int, delay: str = DELAY) -> None:
        env = {**os.environ, "SPADES_DATABASE": str(db), "SPADES_PLAY_DELAY": delay,
               "SPADES_SECRET_KEY": "restart-test-secret"}
        # The server's log goes to a file: a pipe nobody reads fills up and blocks the server.
        self.log = db.with_name(f"server-{port}-{time.monotonic_ns()}.log")
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "flask", "--app", "app", "run", "--host", "127.0.0.1", "--port", str(port),
                 "--with-threads"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log)
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    return
            except OSError:
                assert self.proc.poll() is None, self.log.read_text()
                time.sleep(0.05)
        raise AssertionError("the server did not start")

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)


class Browser:
    """Cookies and the CSRF token, like a browser that keeps its session across restarts."""

    def __init__(self) -> None:
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.csrf = ""
        self.url = ""

    def get(self, url: str) -> str:
        with self.opener.open(url, timeout=30) as r:
            text = r.read().decode()
        found = re.search(r'name="csrf" value="([^"]+)"', text)
        if found:
            self.csrf = found.group(1)
        return text

    def post(self, url: str, **data: object) -> str:
        body = urllib.parse.urlencode({"csrf": self.csrf, **data}).encode()
        with self.opener.open(url, data=body, timeout=30) as r:  # follows the 303 back to the page
            self.url = r.geturl()
            return r.read().decode()

    def view(self, base: str, code: str) -> dict:
        return json.loads(self.get(f"{base}/g/{code}/view.json"))


def wait_for_turn(browser: Browser, base: str, code: str, after: int, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = browser.view(base, code)
        if v["version"] > after and (v["to_act"] == 0 or v["phase"] != "playing" and v["phase"] != "bidding"):
            return v
        time.sleep(0.1)
    raise AssertionError("the bots did not carry on")


def practice_and_bid(browser: Browser, base: str) -> tuple[str, dict]:
    """A practice match started from the home page's form, and its person's bid of 3: the
    table's code and the view the bid was made on."""
    browser.get(base + "/")
    browser.post(base + "/practice", level="easy", speed="fast", end="target-500", bag_penalty="on")
    code = browser.url.rsplit("/", 1)[1]
    v = wait_for_turn(browser, base, code, -1)
    browser.post(f"{base}/g/{code}/act", action="bid", bid="3", version=v["version"])
    return code, v
