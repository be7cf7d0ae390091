"""Slow clients against the real server (gunicorn with ``gunicorn.conf.py``, as in
production): a request body that trickles in is answered 408 and its connection closed;
past the cap of requests in progress from one address the next are refused at once, while
the home page stays fast for another address; WebSockets are not counted against the cap;
past the cap of open connections from one address (headers sent a line at a time), new
ones are closed at once.

The servers run with small caps (``SPADES_MAX_REQUESTS_PER_ADDRESS``,
``SPADES_CONNECTIONS_PER_ADDRESS``) and fewer worker connections than the slow clients one
address opens (``SPADES_WORKER_CONNECTIONS``), so without the caps those clients fill the
worker and the home page waits for them. The body timeout is shortened to 3 s; the
headers' (keep-alive) timeout is gunicorn.conf.py's (5 s). Client sockets are bound to loopback addresses of their
own (127.0.0.x, never 127.0.0.1, which is a proxy's address to gunicorn), one per role.
"""

from __future__ import annotations

import base64
import http.client
import os
import re
import selectors
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from servers import Gunicorn

CAP = 5  # requests in progress from one address
WORKER_CONNECTIONS = 20
SLOW = 25  # slow clients from one address: more than the worker's connections
BODY_TIMEOUT_S = 3.0  # BODY_TIMEOUT_S, shorter than its default (5 s) to keep the test short
CONNECTIONS_CAP = 10  # open connections from one address (the second server)
HEADERS_TIMEOUT_S = 5.0  # gunicorn.conf.py's keepalive
TOO_MANY = b"Too many requests at once from your address."
TOO_SLOW = b"The request took too long to arrive."


@pytest.fixture(scope="module")
def servers(tmp_path_factory) -> dict[str, Gunicorn]:
    """Two sites, started and stopped side by side: ``requests`` with a small cap of requests
    in progress per address, ``connections`` with a small cap of open connections."""
    tmp = tmp_path_factory.mktemp("slow")
    sites = {"requests": Gunicorn("app:app", tmp, "requests", {
                 "SPADES_MAX_REQUESTS_PER_ADDRESS": str(CAP), "SPADES_BODY_TIMEOUT_S": str(BODY_TIMEOUT_S),
                 "SPADES_WORKER_CONNECTIONS": str(WORKER_CONNECTIONS)}),
             "connections": Gunicorn("app:app", tmp, "connections", {
                 "SPADES_CONNECTIONS_PER_ADDRESS": str(CONNECTIONS_CAP),
                 "SPADES_WORKER_CONNECTIONS": str(WORKER_CONNECTIONS)})}
    try:
        with ThreadPoolExecutor(2) as pool:
            for started in [pool.submit(site.start) for site in sites.values()]:
                started.result()
        yield sites
    finally:
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(Gunicorn.stop, sites.values()))


@pytest.fixture
def server(servers) -> Gunicorn:
    return servers["requests"]


@pytest.fixture
def capped_server(servers) -> Gunicorn:
    return servers["connections"]


class SlowPost:
    """A client that sends a form post's headers (``Content-Length: 60000``), then one byte
    of its body whenever asked; it keeps whatever the server answers and notes when."""

    def __init__(self, port: int, source: str) -> None:
        self.sock = socket.socket()
        self.sock.bind((source, 0))
        self.sock.connect(("127.0.0.1", port))
        self.sock.sendall(self.opening(port))
        self.sock.setblocking(False)
        self.started = time.monotonic()
        self.answer = b""
        self.answered_after: float | None = None  # seconds from the headers to the first byte of the answer
        self.closed = False  # the server ended the connection
        self.closed_after: float | None = None
        self.sent = 0

    def opening(self, port: int) -> bytes:
        return (f"POST /practice HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 60000\r\n\r\n").encode()

    def next_bytes(self) -> bytes:
        return b"a"

    def trickle(self) -> None:
        if not self.closed:
            try:
                self.sock.send(self.next_bytes())
                self.sent += 1
            except OSError:
                pass

    def ended(self) -> None:
        self.closed = True
        self.closed_after = time.monotonic() - self.started

    def take(self) -> None:
        """Read what the server sent so far."""
        try:
            while True:
                chunk = self.sock.recv(4096)
                if not chunk:
                    self.ended()
                    return
                if not self.answer:
                    self.answered_after = time.monotonic() - self.started
                self.answer += chunk
        except (BlockingIOError, InterruptedError):
            return
        except OSError:  # reset: closed before anything was read
            self.ended()

    @property
    def status(self) -> int | None:
        found = re.match(rb"HTTP/1\.1 (\d{3}) ", self.answer)
        return int(found.group(1)) if found else None

    def close(self) -> None:
        self.sock.close()


class SlowHeaders(SlowPost):
    """A client that sends a request line, then one header line whenever asked, and never
    the blank line that ends the headers."""

    def opening(self, port: int) -> bytes:
        return f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode()

    def next_bytes(self) -> bytes:
        return f"X-Slow-{self.sent}: a\r\n".encode()


def watch(clients: list[SlowPost], seconds: float, trickle_every: float = 1.0, until=None) -> None:
    """Read every client's answers for ``seconds`` (or until ``until()``), sending each a
    byte of body every ``trickle_every`` seconds."""
    deadline = time.monotonic() + seconds
    next_byte = time.monotonic() + trickle_every
    while time.monotonic() < deadline and not (until and until()):
        open_ = [c for c in clients if not c.closed]
        if not open_:
            return
        # a selector, not select(): late in a whole suite a socket's number can pass 1024
        with selectors.DefaultSelector() as sel:
            for c in open_:
                sel.register(c.sock, selectors.EVENT_READ, c)
            for key, _ in sel.select(0.05):
                key.data.take()
        if time.monotonic() >= next_byte:
            next_byte += trickle_every
            for c in clients:
                c.trickle()


def get(port: int, source: str, path: str = "/", headers: dict[str, str] | None = None,
        timeout: float = 10.0) -> tuple[int, float, http.client.HTTPResponse, bytes]:
    """A GET from ``source``: its status, its time in seconds, the response and its body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    started = time.monotonic()
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        body = response.read()
        return response.status, time.monotonic() - started, response, body
    finally:
        conn.close()


def test_a_body_that_trickles_in_is_answered_408_and_closed(server):
    client = SlowPost(server.port, "127.0.0.2")
    try:
        watch([client], BODY_TIMEOUT_S + 5, trickle_every=1.0, until=lambda: client.closed)
        assert client.status == 408, client.answer[:200]
        assert TOO_SLOW in client.answer and b"\r\nConnection: close\r\n" in client.answer
        assert BODY_TIMEOUT_S - 0.5 <= client.answered_after <= BODY_TIMEOUT_S + 2.5
        assert client.closed  # the server hung up after the answer
    finally:
        client.close()


def test_one_address_past_the_cap_is_refused_and_the_home_page_stays_fast(server):
    clients: list[SlowPost] = []
    try:
        for _ in range(SLOW):
            clients.append(SlowPost(server.port, "127.0.0.4"))
            time.sleep(0.02)  # in order: the first CAP reach the app first
        watch(clients, 1.0)
        refused = [c for c in clients if c.status == 429]
        assert len(refused) == SLOW - CAP, [c.status for c in clients]
        assert all(TOO_MANY in c.answer and b"\r\nConnection: close\r\n" in c.answer and c.closed for c in refused)
        assert all(c.answered_after < 1.0 for c in refused)

        # while the CAP slow ones are still held, the home page answers another address at once
        status, took, _, _ = get(server.port, "127.0.0.3", timeout=5)
        assert status == 200 and took < 1.0, took
        held = [c for c in clients if c.status != 429]
        for c in held:
            c.take()
        assert len(held) == CAP and all(c.status is None and not c.closed for c in held)

        watch(held, BODY_TIMEOUT_S + 3, until=lambda: all(c.closed for c in held))
        assert [c.status for c in held] == [408] * CAP

        # their count is released: the address is served again
        status, _, _, _ = get(server.port, "127.0.0.4")
        assert status == 200
    finally:
        for c in clients:
            c.close()


def test_websockets_are_not_counted_against_the_cap(server):
    """An address with CAP slow requests in progress is refused the next request, and may
    still open a table's WebSocket (the socket hub keeps its own caps)."""
    port, source = server.port, "127.0.0.5"
    status, _, response, body = get(port, source)
    cookie = response.getheader("Set-Cookie").split(";", 1)[0]
    csrf = re.search(rb'name="csrf" value="([^"]+)"', body).group(1).decode()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    conn.request("POST", "/practice", body=f"csrf={csrf}&level=easy&speed=slow",
                 headers={"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"})
    made = conn.getresponse()
    made.read()
    conn.close()
    assert made.status == 303, made.status
    code = made.getheader("Location").rsplit("/", 1)[1]
    cookie = (made.getheader("Set-Cookie") or cookie).split(";", 1)[0]  # the session now names a player

    clients = [SlowPost(port, source) for _ in range(CAP)]
    try:
        time.sleep(0.3)
        status, _, _, body = get(port, source)
        assert status == 429 and TOO_MANY in body

        with socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0)) as ws:
            key = base64.b64encode(os.urandom(16)).decode()
            ws.sendall((f"GET /g/{code}/ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                        f"Origin: http://127.0.0.1:{port}\r\nCookie: {cookie}\r\n\r\n").encode())
            assert ws.recv(200).startswith(b"HTTP/1.1 101")
    finally:
        for c in clients:
            c.close()


def test_one_address_past_the_connection_cap_is_cut_off_and_the_home_page_stays_fast(capped_server):
    """Headers a line a second: the first CONNECTIONS_CAP connections are held until the
    headers' timeout ends them; the others are closed at once, unanswered."""
    clients: list[SlowHeaders] = []
    try:
        for _ in range(SLOW):
            clients.append(SlowHeaders(capped_server.port, "127.0.0.6"))
            time.sleep(0.02)
        watch(clients, 1.5)
        cut = [c for c in clients if c.closed]
        assert len(cut) == SLOW - CONNECTIONS_CAP, [c.closed_after for c in clients]
        assert all(c.answer == b"" and c.closed_after < 1.5 for c in cut)

        status, took, _, _ = get(capped_server.port, "127.0.0.3", timeout=5)
        assert status == 200 and took < 1.0, took

        held = [c for c in clients if not c.closed]
        watch(held, HEADERS_TIMEOUT_S + 3, until=lambda: all(c.closed for c in held))
        assert all(c.closed and c.answer == b"" for c in held)
        assert all(HEADERS_TIMEOUT_S - 0.5 <= c.closed_after <= HEADERS_TIMEOUT_S + 2.5 for c in held)

        status, _, _, _ = get(capped_server.port, "127.0.0.6")  # their connections are counted out
        assert status == 200
    finally:
        for c in clients:
            c.close()
