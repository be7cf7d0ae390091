"""Load benchmark (not a test): the production server under many tables, as players meet it.

    python -m spades.web.bench load [--tables 200] [--seconds 20] [--idle-sockets 2000]
                                    [--one-address 300] [--skip-bare] [--skip-idle] [--no-deflate]
                                    [--workers 1 2]

The site runs as in production (``gunicorn -c gunicorn.conf.py app:app``: one gevent worker)
on loopback, on a temporary database. One client process (asyncio + aiohttp) seeds
``--tables`` four-person tables through the real pages (a host creates the table, three
friends join, the host starts), each person with their own cookies, and opens each
person's WebSocket. People move only on their turn, as their own socket (or the answer
to their own move) shows it: a legal card, a bid of 3, the host's Deal now between hands,
the host's Rematch after the match.

A move is timed from its POST until all four sockets of its table have a message whose
stamp (``data-v``: match number * 100000 + version) is at least the move's new stamp; one
that does not reach all four within 10 s is lost. Phases, each ``--seconds`` long:

- ``closed``: each table moves again as soon as its last move has reached all four;
- ``paced``: each table moves every 2 s (starts staggered), offering tables/2 moves a second.

The same phases then run against ``spades.web.barews`` (a bare flask-sock fan-out with the
same server settings) with frames and answers of the site's average sizes, so ``ratio``
says how much of the transport's ceiling the site keeps. The servers run one at a time.

Idle phase (site only): ``--idle-sockets`` spectator sockets (distinct visitors, at most 90
per source address) stay open while the home page is timed at 20 requests a second; the
worker's RSS is read from /proc. Then ``--one-address`` more visitors open a socket each
from one address: how many the server keeps, and how it refuses the rest.

``--workers 1 2`` runs the site's phases once per worker count, in the same run: more
than one worker share a Redis (``redis-server`` started here on a free loopback port, as
``SPADES_REDIS_URL``), and the sockets of one table land on whichever worker accepts
them, so the table's changes cross Redis. The idle phase runs with the first count only.

Output: one JSON line for the moves (per worker count, then ``{"bench": "load-workers"}``
with each count's closed-loop moves a second and their ratio to the first), one for the
idle phase (stdout); progress on stderr.
Sockets offer permessage-deflate, as browsers do (``--no-deflate`` to compare).
Each table's people share one loopback source address (127.0.x.y), so per-address limits
see a household, not the whole benchmark; spectators come from 127.1.x.y.

Imports: the standard library and aiohttp only (the servers run in their own processes).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import json
import math
import os
import random
import re
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[2]  # the repository: gunicorn.conf.py, app.py
LOST_AFTER_S = 10.0
PACE_S = 2.0  # paced phase: one move per table this often
HOME_RATE = 20.0  # home page requests a second in the idle phase
PER_ADDRESS = 90  # idle spectator sockets per source address
POST_TIMEOUT_S = 15.0
EMOJIS = ("🦊", "🐼", "🐨", "🐯")
BID = "3"

# -- reading the site's HTML -----------------------------------------------------------------
# A fragment root is any element carrying ``data-v``; its text runs to the next root.
# (Found by its literal attribute, then the tag around it: far cheaper than a tag regex,
# and every socket message goes through it.)
STAMP_ATTR = re.compile(r'data-v="(\d+)"')
ELEMENT_ID = re.compile(r'\bid="([^"]+)"')
CONTROL = re.compile(r"<(button|input|form|select)\b((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>", re.IGNORECASE)
ATTR = re.compile(r"([^\s=/>\"']+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s\"'>]+)))?")
CSRF = re.compile(r'name="csrf"\s+value="([^"]+)"')
STAMP_HEAD = re.compile(r"(\d+):")
SEVERE = re.compile(r"\[(ERROR|CRITICAL)\]| (ERROR|CRITICAL) ")


def attrs(text: str) -> dict[str, str]:
    """A tag's attributes (names lower-cased); a bare attribute maps to ``""``."""
    return {m.group(1).lower(): m.group(2) if m.group(2) is not None else
            m.group(3) if m.group(3) is not None else m.group(4) or "" for m in ATTR.finditer(text)}


def fragments(html: str) -> list[tuple[str, int, str]]:
    """``(id, stamp, text)`` of each fragment root with an id and a stamp, in order."""
    roots: list[tuple[int, str, int]] = []
    for m in STAMP_ATTR.finditer(html):
        start = html.rfind("<", 0, m.start())
        if start < 0 or not html[m.start() - 1].isspace() or html.find(">", start, m.start()) >= 0:
            continue  # not an attribute of a tag
        ident = ELEMENT_ID.search(html, start, html.find(">", m.end()) + 1)
        if ident:
            roots.append((start, ident.group(1), int(m.group(1))))
    return [(ident, stamp, html[start:roots[k + 1][0] if k + 1 < len(roots) else len(html)])
            for k, (start, ident, stamp) in enumerate(roots)]


def controls(text: str) -> list[tuple[str, dict[str, str]]]:
    """The buttons, inputs, forms and selects in ``text``: ``(tag, attributes)``."""
    return [(m.group(1).lower(), attrs(m.group(2))) for m in CONTROL.finditer(text)]


def root_classes(text: str) -> set[str]:
    """The classes of the fragment's root element (its first tag)."""
    end = text.find(">")
    return set(attrs(text[1:end]).get("class", "").split()) if end > 0 else set()


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile ``q`` (0-100) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered), max(1, math.ceil(q / 100 * len(ordered)))) - 1]


def ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


def log(text: str) -> None:
    print(f"[load] {text}", file=sys.stderr, flush=True)


def table_address(i: int) -> str:
    """Table ``i``'s people's source address: 127.0.1.1, 127.0.1.2, … (250 per /24)."""
    return f"127.0.{1 + i // 250}.{1 + i % 250}"


def spectator_address(k: int) -> str:
    return f"127.1.{k // 250}.{1 + k % 250}"


ONE_ADDRESS = "127.2.0.1"
HOME_ADDRESS = "127.3.0.1"


# -- the servers -------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``gunicorn -c gunicorn.conf.py <target>`` in its own process group on a free port,
    logging to a file (a pipe nobody reads would fill up and stall the server)."""

    def __init__(self, target: str, tmp: Path, label: str, extra_env: dict[str, str] | None = None) -> None:
        self.target, self.label = target, label
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = tmp / f"{label}.log"
        self.env = {**os.environ, "SPADES_BIND": f"127.0.0.1:{self.port}",
                    "SPADES_DATABASE": str(tmp / f"{label}.db"), "SPADES_SECRET_KEY": secrets.token_hex(32),
                    "SPADES_PLAY_DELAY": "0", "SPADES_LOG_LEVEL": "warning", **(extra_env or {})}
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60.0) -> None:
        gunicorn = Path(sys.executable).parent / "gunicorn"
        if not (ROOT / "gunicorn.conf.py").exists():
            raise RuntimeError(f"no gunicorn.conf.py in {ROOT}")
        with open(self.log, "wb") as out:
            # a session of its own: Ctrl-C reaches this process, which then stops the server
            self.proc = subprocess.Popen([str(gunicorn), "-c", "gunicorn.conf.py", self.target], cwd=ROOT,
                                         env=self.env, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the {self.label} server exited with code {self.proc.returncode}")
            try:
                with urllib.request.urlopen(self.base + "/", timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the {self.label} server did not answer GET / within {timeout:.0f} s")

    def worker_pid(self) -> int | None:
        """The gunicorn worker: the child of the master started here."""
        if self.proc is None:
            return None
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/status") as f:
                    for line in f:
                        if line.startswith("PPid:"):
                            if int(line.split()[1]) == self.proc.pid:
                                return int(entry)
                            break
            except OSError:
                continue
        return None

    def worker_rss_mb(self) -> float | None:
        pid = self.worker_pid()
        if pid is None:
            return None
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return round(int(line.split()[1]) / 1024, 1)
        except OSError:
            return None
        return None

    def stop(self) -> None:
        """SIGTERM to the master (it stops its worker); if it is still there a few seconds
        later, SIGKILL to the process group started here (master, worker, bot pool)."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(5)
            return
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(5)

    def tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def problems(self) -> int:
        """Lines of the server's log at level ERROR or above (gunicorn's and the app's format)."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return 0
        return sum(1 for line in text.splitlines() if SEVERE.search(line))


class RedisServer:
    """Debian's ``redis-server`` on a free loopback port, nothing saved (several workers)."""

    def __init__(self, tmp: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is missing (Debian package redis-server)")
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc = subprocess.Popen([binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--dir", str(tmp)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)


# -- sockets, people, tables ---------------------------------------------------------------------
class Sock:
    """One open WebSocket and what it has shown: its highest stamp and when each came."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.stamp = -1
        self.arrivals: list[tuple[int, float]] = []  # since the table's current move was sent
        self.close_code: int | None = None
        self.close_reason = ""
        self.done = False  # the server closed it (or it failed)
        self.task: asyncio.Task | None = None

    def first_at_least(self, stamp: int) -> float | None:
        for s, t in self.arrivals:
            if s >= stamp:
                return t
        return None

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
        if not self.ws.closed:
            try:
                await self.ws.close()
            except Exception:
                pass


def connector(address: str) -> aiohttp.TCPConnector:
    """Connections from ``address``. An idle connection is dropped after 3 s, before the
    server's own 5 s keep-alive ends it: otherwise a POST can go out on a connection the
    server is closing that instant (a browser retries such a request; this client would
    count it as an error)."""
    return aiohttp.TCPConnector(local_addr=(address, 0), limit=0, keepalive_timeout=3.0)


class Person:
    """A browser: its own cookie jar, connections from its table's address, its CSRF token,
    and the newest version of each fragment its socket or its own moves have shown it."""

    def __init__(self, address: str, name: str, emoji: str, shared: aiohttp.TCPConnector | None = None) -> None:
        self.name, self.emoji = name, emoji
        self.session = aiohttp.ClientSession(
            connector=shared or connector(address), connector_owner=shared is None,
            cookie_jar=aiohttp.CookieJar(unsafe=True), timeout=aiohttp.ClientTimeout(total=POST_TIMEOUT_S))
        self.csrf = ""
        self.frags: dict[str, tuple[int, str]] = {}
        self.sock: Sock | None = None
        self.rejoining: asyncio.Task | None = None

    def absorb(self, html: str) -> int:
        """Keep each fragment that is at least as new as the one held; the highest stamp."""
        top = -1
        for ident, stamp, text in fragments(html):
            held = self.frags.get(ident)
            if held is None or stamp >= held[0]:
                self.frags[ident] = (stamp, text)
            top = max(top, stamp)
        return top

    async def get(self, url: str, read_csrf: bool = True) -> str:
        async with self.session.get(url) as r:
            text = await r.text()
            if r.status != 200:
                raise RuntimeError(f"GET {url} answered {r.status}: {text[:200]!r}")
        if read_csrf:
            found = CSRF.search(text)
            token = found.group(1) if found else next(
                (a.get("value", "") for tag, a in controls(text) if tag == "input" and a.get("name") == "csrf"), "")
            self.csrf = token or self.csrf
        return text

    async def post_form(self, url: str, form: dict[str, str]) -> str:
        """A plain form post that must answer 303; the ``Location``."""
        async with self.session.post(url, data={"csrf": self.csrf, **form}, allow_redirects=False) as r:
            text = await r.text()
            if r.status != 303:
                raise RuntimeError(f"POST {url} answered {r.status}: {text[:300]!r}")
            return r.headers.get("Location", "")

    async def close(self) -> None:
        if self.rejoining is not None:
            self.rejoining.cancel()
        if self.sock is not None:
            await self.sock.close()
        await self.session.close()


@dataclasses.dataclass
class Tally:
    """One phase's moves against one server."""

    latencies: list[float] = dataclasses.field(default_factory=list)
    done_at: list[float] = dataclasses.field(default_factory=list)
    errors: int = 0
    lost: int = 0
    stuck: int = 0
    statuses: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    answers: int = 0
    answer_bytes: int = 0
    reconnects: int = 0  # sockets the server closed and the client opened again

    def delivered_per_s(self, start: float, end: float) -> float:
        return sum(1 for t in self.done_at if t <= end) / max(1e-9, end - start)


class Table:
    """Four people, their sockets, and the one-move-at-a-time loop both servers share."""

    def __init__(self, base: str, people: list[Person], ws_url: str = "", deflate: bool = True,
                 reconnect: bool = False) -> None:
        self.base = base
        self.people = people
        self.ws_url, self.deflate, self.reconnect = ws_url, deflate, reconnect
        self.changed = asyncio.Event()
        self.frames = 0
        self.frame_bytes = 0
        self.reconnects = 0

    @property
    def socks(self) -> list[Sock]:
        return [p.sock for p in self.people if p.sock is not None]

    def decide(self) -> tuple[Person, str, dict[str, str]] | None:
        """Who posts what next: ``(person, path, form)``, or None if nobody can move yet."""
        raise NotImplementedError

    def absorb(self, person: Person, text: str) -> int:
        """Take in a socket message or an answer; its stamp (-1 if it has none)."""
        raise NotImplementedError

    def post_headers(self, person: Person) -> dict[str, str]:
        return {}

    async def listen(self, person: Person, sock: Sock) -> None:
        """Read one socket until it closes: stamps, arrival times, sizes, how it closed."""
        ws = sock.ws
        try:
            while True:
                msg = await ws.receive()
                if msg.type == aiohttp.WSMsgType.TEXT:
                    now = time.perf_counter()
                    data = msg.data
                    self.frames += 1
                    self.frame_bytes += len(data.encode())
                    stamp = self.absorb(person, data)
                    if stamp > sock.stamp:
                        sock.stamp = stamp
                    sock.arrivals.append((stamp, now))
                    if len(sock.arrivals) > 64:  # only a move's own few matter; keep it small
                        del sock.arrivals[:32]
                    self.changed.set()
                elif msg.type == aiohttp.WSMsgType.CLOSE:
                    sock.close_code, sock.close_reason = msg.data, msg.extra or ""
                    break
                elif msg.type == aiohttp.WSMsgType.ERROR:
                    sock.close_reason = f"{type(msg.data).__name__}: {msg.data}"
                    break
                elif msg.type in (aiohttp.WSMsgType.CLOSING, aiohttp.WSMsgType.CLOSED):
                    break
        except asyncio.CancelledError:
            raise
        except Exception as e:
            sock.close_reason = f"{type(e).__name__}: {e}"
        sock.done = True
        if sock.close_code is None:
            sock.close_code = ws.close_code
        self.changed.set()
        if self.reconnect and person.sock is sock:
            person.rejoining = asyncio.create_task(self.rejoin(person))

    async def rejoin(self, person: Person) -> None:
        """Open a closed socket again after a moment, as the page's WebSocket does; the
        snapshot it gets on connect brings the person up to date."""
        for attempt in range(1, 6):
            await asyncio.sleep(random.uniform(0.5, 1.0) * attempt)
            try:
                await self.connect(person)
                self.reconnects += 1
                self.changed.set()
                return
            except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
                continue

    async def connect(self, person: Person) -> None:
        """Open ``person``'s socket to ``ws_url``, with this site as its ``Origin``."""
        ws = await person.session.ws_connect(self.ws_url, origin=self.base, compress=15 if self.deflate else 0,
                                             autoping=True, max_msg_size=16 * 1024 * 1024)
        sock = Sock(ws)
        person.sock = sock
        sock.task = asyncio.create_task(self.listen(person, sock))

    async def wait_change(self, timeout: float) -> bool:
        self.changed.clear()
        try:
            await asyncio.wait_for(self.changed.wait(), timeout)
            return True
        except asyncio.TimeoutError:
            return False

    async def all_at_least(self, stamp: int, timeout: float) -> bool:
        """Wait until every socket has shown ``stamp`` (the snapshot on connect, say)."""
        deadline = time.perf_counter() + timeout
        while not all(s.stamp >= stamp for s in self.socks) or len(self.socks) < 4:
            left = deadline - time.perf_counter()
            if left <= 0 or not await self.wait_change(left):
                return False
        return True

    async def delivered(self, stamp: int, sent: float) -> float | None:
        """When the last of the four sockets first showed ``stamp`` (or later), or None when
        one has not within ``LOST_AFTER_S`` of ``sent``."""
        deadline = sent + LOST_AFTER_S
        while True:
            times = [s.first_at_least(stamp) for s in self.socks]
            if len(times) == 4 and all(t is not None for t in times):
                return max(times)  # type: ignore[type-var]
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            # no await between the check above and clear(): no message can slip in unseen
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except asyncio.TimeoutError:
                pass

    async def move(self, tally: Tally) -> None:
        """Make the next move and wait for it to reach all four sockets; count the outcome."""
        decision = self.decide()
        if decision is None:
            # nothing to do on what the sockets show yet: wait for them to show more
            deadline = time.perf_counter() + LOST_AFTER_S
            while decision is None and time.perf_counter() < deadline:
                await self.wait_change(deadline - time.perf_counter())
                decision = self.decide()
            if decision is None:
                tally.stuck += 1
                tally.errors += 1
                return
        person, path, form = decision
        for s in self.socks:
            s.arrivals.clear()
        sent = time.perf_counter()
        try:
            async with person.session.post(self.base + path, data=form, headers=self.post_headers(person),
                                           allow_redirects=False) as r:
                body = await r.text()
                status = r.status
        except (aiohttp.ClientError, asyncio.TimeoutError) as e:
            tally.errors += 1
            tally.statuses[f"{type(e).__name__}: {e}"[:120]] += 1
            await asyncio.sleep(0.5)
            return
        stamp = self.absorb(person, body)
        tally.statuses[status] += 1
        if status != 200 or stamp < 0:
            tally.errors += 1
            await asyncio.sleep(0.2)  # the answer showed the mover the table as it is; go on from there
            return
        tally.answers += 1
        tally.answer_bytes += len(body.encode())
        arrived = await self.delivered(stamp, sent)
        if arrived is None:
            tally.lost += 1
        else:
            tally.latencies.append(arrived - sent)
            tally.done_at.append(arrived)


class SiteTable(Table):
    """A table of the site: moves are read off each person's own fragments."""

    def __init__(self, base: str, people: list[Person], code: str, seed: int, deflate: bool) -> None:
        super().__init__(base, people, base.replace("http://", "ws://", 1) + f"/g/{code}/ws", deflate, reconnect=True)
        self.code = code
        self.rng = random.Random(seed)

    def absorb(self, person: Person, text: str) -> int:
        return person.absorb(text)

    def post_headers(self, person: Person) -> dict[str, str]:
        return {"HX-Request": "true", "X-CSRF-Token": person.csrf}

    def decide(self) -> tuple[Person, str, dict[str, str]] | None:
        act = f"/g/{self.code}/act"
        for person in self.people:
            status = person.frags.get("status")
            if status is None or "my-turn" not in root_classes(status[1]):
                continue
            hand = person.frags.get("hand")
            if hand is None:
                continue
            found = controls(hand[1])
            version = _version(found) or _version_anywhere(person)
            if version is None:
                continue
            legal = [a["value"] for tag, a in found if tag == "button" and a.get("name") == "action"
                     and "legal" in a.get("class", "").split() and a.get("value")]
            if legal:
                return person, act, {"version": version, "action": self.rng.choice(legal)}
            bidding = any(a.get("name") == "bid" or (tag == "button" and a.get("name") == "action"
                                                     and a.get("value") in ("bid", "nil"))
                          for tag, a in found)
            if bidding:
                return person, act, {"version": version, "action": BID}
        host = self.people[0]
        panel = host.frags.get("panel")
        if panel is not None:
            found = controls(panel[1])
            version = _version(found)
            if version is not None:
                if any(tag == "button" and a.get("value") == "deal_now" for tag, a in found):
                    return host, act, {"version": version, "action": "deal_now"}
                if any(tag == "form" and a.get("action", "").endswith("/rematch") for tag, a in found):
                    return host, f"/g/{self.code}/rematch", {"version": version}
        return None


def _version(found: list[tuple[str, dict[str, str]]]) -> str | None:
    for tag, a in found:
        if tag == "input" and a.get("name") == "version" and a.get("value", "").isdigit():
            return a["value"]
    return None


def _version_anywhere(person: Person) -> str | None:
    for _, text in sorted(person.frags.values(), key=lambda f: -f[0]):
        version = _version(controls(text))
        if version is not None:
            return version
    return None


class BareTable(Table):
    """A table of the bare app: anyone may move; the four people take turns to post."""

    def __init__(self, base: str, people: list[Person], name: str, deflate: bool) -> None:
        super().__init__(base, people, base.replace("http://", "ws://", 1) + f"/ws/{name}", deflate, reconnect=True)
        self.name = name
        self.turn = 0

    def absorb(self, person: Person, text: str) -> int:
        m = STAMP_HEAD.match(text)
        return int(m.group(1)) if m else -1

    def decide(self) -> tuple[Person, str, dict[str, str]]:
        self.turn += 1
        return self.people[self.turn % 4], f"/move/{self.name}", {}


# -- seeding -------------------------------------------------------------------------------------
async def gather_limited(coros: list, limit: int) -> list:
    """Run ``coros`` with at most ``limit`` at once; results (or exceptions) in order."""
    sem = asyncio.Semaphore(limit)

    async def one(c):
        async with sem:
            return await c

    return await asyncio.gather(*(one(c) for c in coros), return_exceptions=True)


def unless_failed(results: list, kind: type, what: str) -> list:
    """The set-up results of ``kind``; the first failure raised if there was any."""
    failed = [r for r in results if not isinstance(r, kind)]
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(results)} {what} could not be set up: {failed[0]!r}")
    return results


async def seed_site_table(base: str, i: int, deflate: bool) -> SiteTable:
    """Table ``i`` the way friends make one: the host creates it, three join, the host starts."""
    address = table_address(i)
    host = Person(address, f"Host {i}"[:20], EMOJIS[0])
    friends = [Person(address, f"Friend {k} of {i}"[:20], EMOJIS[k]) for k in (1, 2, 3)]
    people = [host, *friends]
    try:
        await host.get(base + "/")
        where = await host.post_form(base + "/new", {
            "humans": "4", "mode": "bidding", "end": "target-500", "bag_penalty": "on", "tempo": "relaxed",
            "level": "normal", "speed": "fast", "name": host.name, "emoji": host.emoji})
        m = re.search(r"/g/([A-Za-z0-9]+)$", where)
        if not m:
            raise RuntimeError(f"POST /new sent the host to {where!r}, not to a table")
        code = m.group(1)
        for friend in friends:
            await friend.get(base + "/")
            await friend.post_form(f"{base}/j/{code}", {"name": friend.name, "emoji": friend.emoji})
        await host.post_form(f"{base}/g/{code}/start", {})
        table = SiteTable(base, people, code, seed=i, deflate=deflate)
        for person in people:
            await person.get(f"{base}/g/{code}")  # the page first, then its socket, as a browser does
            await table.connect(person)
        if not await table.all_at_least(0, LOST_AFTER_S):
            raise RuntimeError(f"table {code}: not every socket got its first snapshot")
        return table
    except BaseException:
        for p in people:
            await p.close()
        raise


async def seed_bare_table(base: str, i: int, deflate: bool) -> BareTable:
    address = table_address(i)
    people = [Person(address, f"P{k}", EMOJIS[k]) for k in range(4)]
    table = BareTable(base, people, str(i), deflate)
    try:
        for person in people:
            await table.connect(person)
        if not await table.all_at_least(0, LOST_AFTER_S):
            raise RuntimeError(f"bare table {i}: not every socket got its first frame")
        return table
    except BaseException:
        for p in people:
            await p.close()
        raise


# -- the move phases ------------------------------------------------------------------------------
async def closed_phase(tables: list[Table], seconds: float) -> tuple[Tally, float, float]:
    tally = Tally()
    start = time.perf_counter()
    end = start + seconds

    async def run(table: Table) -> None:
        while time.perf_counter() < end:
            await table.move(tally)

    await asyncio.gather(*(run(t) for t in tables))
    return tally, start, end


async def paced_phase(tables: list[Table], seconds: float) -> tuple[Tally, float, float]:
    tally = Tally()
    start = time.perf_counter()
    end = start + seconds

    async def run(k: int, table: Table) -> None:
        due = start + PACE_S * k / len(tables)
        while due < end:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            await table.move(tally)
            due = max(due + PACE_S, time.perf_counter())  # late: the next move at once, no burst

    await asyncio.gather(*(run(k, t) for k, t in enumerate(tables)))
    return tally, start, end


def frame_stats(tables: list[Table]) -> tuple[int, int]:
    return sum(t.frames for t in tables), sum(t.frame_bytes for t in tables)


def client_cpu_s() -> float:
    """CPU seconds this client process has used (it shares the machine with the server)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def phase_note(label: str, tally: Tally, cpu: float, seconds: float) -> str:
    note = (f"{label}: {len(tally.latencies)} moves delivered, {tally.errors} errors, {tally.lost} lost, "
            f"{tally.reconnects} sockets reopened; "
            f"client CPU {100 * cpu / seconds:.0f}% of one core")
    return note + (f"; answers {dict(tally.statuses)}" if tally.errors else "")


async def move_phases(tables: list[Table], seconds: float, label: str) -> dict:
    """Both phases on one server's tables; figures plus the closed phase's average sizes."""
    frames0, bytes0 = frame_stats(tables)
    cpu, rejoined = client_cpu_s(), sum(t.reconnects for t in tables)
    closed, c0, c1 = await closed_phase(tables, seconds)
    frames1, bytes1 = frame_stats(tables)
    closed.reconnects = sum(t.reconnects for t in tables) - rejoined
    log(phase_note(f"{label} closed", closed, client_cpu_s() - cpu, time.perf_counter() - c0))
    cpu, rejoined = client_cpu_s(), sum(t.reconnects for t in tables)
    paced, p0, p1 = await paced_phase(tables, seconds)
    paced.reconnects = sum(t.reconnects for t in tables) - rejoined
    log(phase_note(f"{label} paced", paced, client_cpu_s() - cpu, time.perf_counter() - p0))
    return {
        "closed_per_s": closed.delivered_per_s(c0, c1), "closed": closed,
        "paced_per_s": paced.delivered_per_s(p0, p1), "paced": paced,
        "frame_bytes": (bytes1 - bytes0) // max(1, frames1 - frames0),
        "answer_bytes": closed.answer_bytes // max(1, closed.answers),
    }


async def close_all(people: list[Person], timeout: float = 15.0) -> None:
    """Close sockets and sessions, a bounded wait (the server is stopped next anyway)."""
    try:
        await asyncio.wait_for(asyncio.gather(*(p.close() for p in people), return_exceptions=True), timeout)
    except asyncio.TimeoutError:
        pass


# -- the idle phase -------------------------------------------------------------------------------
class Visitor(Table):
    """A spectator: one person watching one table, who never moves."""

    def absorb(self, person: Person, text: str) -> int:
        m = STAMP_ATTR.search(text)
        return int(m.group(1)) if m else 0

    def decide(self) -> None:
        return None


async def open_visitor(base: str, code: str, shared: aiohttp.TCPConnector, deflate: bool,
                       failures: collections.Counter) -> tuple[Visitor, Person]:
    """A distinct visitor (its own cookie) opens the table page, then its socket. A refusal
    is counted in ``failures`` (by what the server said) and leaves ``person.sock`` None."""
    person = Person("", "visitor", "", shared=shared)
    visitor = Visitor(base, [person], base.replace("http://", "ws://", 1) + f"/g/{code}/ws", deflate)
    try:
        async with person.session.get(f"{base}/g/{code}") as r:
            await r.read()
            if r.status != 200:
                failures[f"HTTP {r.status} for the table page"] += 1
                return visitor, person
        await visitor.connect(person)
    except aiohttp.WSServerHandshakeError as e:
        failures[f"HTTP {e.status} at the handshake"] += 1
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as e:
        failures[f"{type(e).__name__}"] += 1
    return visitor, person


def held(person: Person) -> bool:
    return person.sock is not None and not person.sock.done and not person.sock.ws.closed


async def time_home(base: str, seconds: float) -> tuple[list[float], int]:
    """GET / at ``HOME_RATE`` a second (each on its own schedule, so a slow answer does not
    slow the rate); latencies of the 200s, and the count of anything else."""
    session = aiohttp.ClientSession(connector=connector(HOME_ADDRESS), cookie_jar=aiohttp.DummyCookieJar(),
                                    timeout=aiohttp.ClientTimeout(total=LOST_AFTER_S))
    latencies: list[float] = []
    failed = 0

    async def one() -> None:
        nonlocal failed
        t = time.perf_counter()
        try:
            async with session.get(base + "/") as r:
                await r.read()
                if r.status == 200:
                    latencies.append(time.perf_counter() - t)
                    return
        except (aiohttp.ClientError, asyncio.TimeoutError):
            pass
        failed += 1

    try:
        start = time.perf_counter()
        tasks = []
        for k in range(max(1, int(seconds * HOME_RATE))):
            await asyncio.sleep(max(0.0, start + k / HOME_RATE - time.perf_counter()))
            tasks.append(asyncio.create_task(one()))
        await asyncio.gather(*tasks)
    finally:
        await session.close()
    return latencies, failed


async def home_ok(base: str) -> bool:
    async with aiohttp.ClientSession(connector=connector(HOME_ADDRESS),
                                     timeout=aiohttp.ClientTimeout(total=LOST_AFTER_S)) as session:
        try:
            async with session.get(base + "/") as r:
                await r.read()
                return r.status == 200
        except (aiohttp.ClientError, asyncio.TimeoutError):
            return False


async def idle_phase(server: Server, codes: list[str], args: argparse.Namespace) -> dict:
    base = server.base
    connectors: list[aiohttp.TCPConnector] = []
    visitors: list[Person] = []
    try:
        failures: collections.Counter = collections.Counter()
        jobs = []
        for k in range(args.idle_sockets):
            if k % PER_ADDRESS == 0:
                connectors.append(connector(spectator_address(k // PER_ADDRESS)))
            jobs.append(open_visitor(base, codes[k % len(codes)], connectors[-1], args.deflate, failures))
        t = time.perf_counter()
        opened = await gather_limited(jobs, 32)
        visitors += [r[1] for r in opened if isinstance(r, tuple)]
        log(f"idle: {sum(1 for p in visitors if p.sock)} of {args.idle_sockets} spectator sockets open in "
            f"{time.perf_counter() - t:.1f} s" + (f"; refused: {dict(failures)}" if failures else ""))
        home, home_failed = await time_home(base, args.seconds)
        rss = server.worker_rss_mb()
        still = sum(1 for p in visitors if held(p))
        log(f"idle: {still} held, home page {len(home)} answered, {home_failed} failed, worker RSS {rss} MB")

        # one source address, many distinct visitors
        one = connector(ONE_ADDRESS)
        connectors.append(one)
        refusals: collections.Counter = collections.Counter()
        jobs = [open_visitor(base, codes[k % len(codes)], one, args.deflate, refusals)
                for k in range(args.one_address)]
        crowd = [r[1] for r in await gather_limited(jobs, 16) if isinstance(r, tuple)]
        visitors += crowd
        await asyncio.sleep(2.0)  # a limit that closes sockets after the upgrade has had time to
        accepted = sum(1 for p in crowd if held(p))
        for p in crowd:
            if p.sock is not None and not held(p):
                s = p.sock
                refusals[f"{s.close_code} {s.close_reason}".strip()] += 1
        reason = refusals.most_common(1)[0][0] if refusals else ""
        up = await home_ok(base)
        log(f"one address: {accepted} of {args.one_address} kept; refusals {dict(refusals)}; site up: {up}")
        return {"bench": "idle", "sockets": args.idle_sockets, "held": still,
                "home_p50_ms": ms(percentile(home, 50)), "home_p99_ms": ms(percentile(home, 99)),
                "home_failed": home_failed, "worker_rss_mb": rss,
                "one_address": {"opened": args.one_address, "accepted": accepted,
                                "refused": args.one_address - accepted, "close_reason": reason},
                "site_up": up}
    finally:
        await close_all(visitors)
        for c in connectors:
            await c.close()


# -- the run -------------------------------------------------------------------------------------
async def run_site(server: Server, args: argparse.Namespace, idle: bool = True) -> tuple[dict, dict | None]:
    t = time.perf_counter()
    results: list = []
    try:
        results = await gather_limited([seed_site_table(server.base, i, args.deflate)
                                        for i in range(args.tables)], 16)
        tables = unless_failed(results, SiteTable, "tables")
        log(f"site: {len(tables)} tables seeded, {4 * len(tables)} sockets open in {time.perf_counter() - t:.1f} s")
        moves = await move_phases(tables, args.seconds, "site")
        idle_line = None if args.skip_idle or not idle else await idle_phase(server, [t.code for t in tables], args)
        return moves, idle_line
    finally:
        await close_all([p for r in results if isinstance(r, Table) for p in r.people])


async def run_bare(server: Server, args: argparse.Namespace) -> dict:
    t = time.perf_counter()
    results: list = []
    try:
        results = await gather_limited([seed_bare_table(server.base, i, args.deflate)
                                        for i in range(args.tables)], 16)
        tables = unless_failed(results, BareTable, "bare tables")
        log(f"bare: {len(tables)} tables, {4 * len(tables)} sockets open in {time.perf_counter() - t:.1f} s")
        return await move_phases(tables, args.seconds, "bare")
    finally:
        await close_all([p for r in results if isinstance(r, Table) for p in r.people])


def raise_open_files() -> None:
    """Thousands of sockets: the soft limit on open files up to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def moves_line(args: argparse.Namespace, site: dict, bare: dict | None, workers: int = 1) -> dict:
    sc, sp = site["closed"], site["paced"]
    bc, bp = (bare["closed"], bare["paced"]) if bare else (None, None)
    bare_rate = bare["closed_per_s"] if bare else None
    return {
        "bench": "load", "tables": args.tables, "workers": workers,
        "seconds": int(args.seconds) if float(args.seconds).is_integer() else args.seconds,
        "frame_bytes": site["frame_bytes"],
        "answer_bytes": site["answer_bytes"], "deflate": args.deflate,
        "closed": {
            "site_moves_per_s": round(site["closed_per_s"], 1),
            "bare_moves_per_s": None if bare is None else round(bare_rate, 1),
            "ratio": round(site["closed_per_s"] / bare_rate, 3) if bare_rate else None,
            "site_p50_ms": ms(percentile(sc.latencies, 50)), "site_p99_ms": ms(percentile(sc.latencies, 99)),
            "bare_p50_ms": ms(percentile(bc.latencies, 50)) if bc else None,
            "bare_p99_ms": ms(percentile(bc.latencies, 99)) if bc else None,
            "site_errors": sc.errors, "site_lost": sc.lost, "site_reconnects": sc.reconnects,
            "bare_errors": bc.errors if bc else None, "bare_lost": bc.lost if bc else None,
        },
        "paced": {
            "offered_per_s": round(args.tables / PACE_S, 1),
            "site_delivered_per_s": round(site["paced_per_s"], 1),
            "site_p50_ms": ms(percentile(sp.latencies, 50)), "site_p99_ms": ms(percentile(sp.latencies, 99)),
            "site_max_ms": ms(max(sp.latencies)) if sp.latencies else None,
            "errors": sp.errors, "lost": sp.lost, "reconnects": sp.reconnects,
            "bare_delivered_per_s": None if bare is None else round(bare["paced_per_s"], 1),
            "bare_p99_ms": ms(percentile(bp.latencies, 99)) if bp else None,
            "bare_errors": bp.errors if bp else None, "bare_lost": bp.lost if bp else None,
        },
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m spades.web.bench load", description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="four-person tables (default 200)")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase (default 20)")
    parser.add_argument("--idle-sockets", type=int, default=2000, help="idle spectator sockets (default 2000)")
    parser.add_argument("--one-address", type=int, default=300,
                        help="visitors opening a socket from one address (default 300)")
    parser.add_argument("--skip-bare", action="store_true", help="do not run the bare WebSocket app")
    parser.add_argument("--skip-idle", action="store_true", help="do not run the idle-socket phase")
    parser.add_argument("--no-deflate", dest="deflate", action="store_false",
                        help="sockets do not offer permessage-deflate (browsers do)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1],
                        help="gunicorn workers, one run of the site each (more than one share a Redis)")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.seconds <= 0 or args.idle_sockets < 0 or args.one_address < 0 or min(args.workers) < 1:
        parser.error("--tables must be at least 1; --seconds, --idle-sockets and --one-address not negative")
    if args.tables > 250 * 254:
        parser.error("at most 63500 tables (one loopback address each)")
    raise_open_files()

    with tempfile.TemporaryDirectory(prefix="spades-load-") as tmp:
        redis_server = RedisServer(Path(tmp)) if max(args.workers) > 1 else None
        sites: list[Server] = []
        runs: list[tuple[int, dict]] = []
        idle = None
        bare: Server | None = None
        current: Server | None = None
        try:
            for n, workers in enumerate(args.workers):
                env = {"SPADES_WORKERS": str(workers)}
                if workers > 1:
                    assert redis_server is not None
                    env["SPADES_REDIS_URL"] = redis_server.url
                site = current = Server("app:app", Path(tmp), f"site-{workers}w-{n}", env)
                sites.append(site)
                log(f"site: gunicorn app:app, {workers} worker(s), on {site.base}")
                site.start()
                moves, idle_line = asyncio.run(run_site(site, args, idle=n == 0))
                site.stop()
                runs.append((workers, moves))
                idle = idle if idle_line is None else idle_line
            site_moves = runs[0][1]
            bare_moves = None
            if not args.skip_bare:
                bare = current = Server("spades.web.barews:app", Path(tmp), "bare", {
                    "BAREWS_FRAME_BYTES": str(site_moves["frame_bytes"]),
                    "BAREWS_ANSWER_BYTES": str(site_moves["answer_bytes"])})
                log(f"bare: gunicorn spades.web.barews:app on {bare.base}, frames of "
                    f"{site_moves['frame_bytes']} bytes, answers of {site_moves['answer_bytes']} bytes")
                bare.start()
                bare_moves = asyncio.run(run_bare(bare, args))
                bare.stop()
        except KeyboardInterrupt:
            log("interrupted: stopping the server")
            raise SystemExit(130) from None
        except Exception:
            tail = current.tail() if current is not None else ""
            if tail:
                print(f"--- the {current.label} server's log (last lines) ---\n{tail}", file=sys.stderr)
            raise
        finally:
            for server in (*sites, bare):
                if server is not None:
                    server.stop()
            if redis_server is not None:
                redis_server.stop()
        for server in (*sites, bare):
            if server is not None and server.problems():
                log(f"the {server.label} server logged {server.problems()} errors; its last lines:\n{server.tail()}")
    for workers, moves in runs:
        print(json.dumps(moves_line(args, moves, bare_moves, workers), ensure_ascii=False), flush=True)
    if len(runs) > 1:
        first = runs[0][1]["closed_per_s"]
        print(json.dumps({"bench": "load-workers", "tables": args.tables,
                          "closed_moves_per_s": {str(w): round(m["closed_per_s"], 1) for w, m in runs},
                          "ratio_to_first": {str(w): round(m["closed_per_s"] / first, 3) if first else None
                                             for w, m in runs}}), flush=True)
    if idle is not None:
        print(json.dumps(idle, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
