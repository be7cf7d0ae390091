"""The load clients: people as browsers meet the site (their own cookies, their table's
loopback source address, their CSRF token, the newest version of each fragment they were
shown), their WebSockets, and the tables they move at, on the site or on the bare app;
with the figures they keep (percentiles) and the progress line on stderr.

A move is sent over the mover's own socket, as the page sends it while its socket is open
(one JSON message: the form's fields, ``route`` and ``ack``; the bare app takes the same
message), or with ``post`` (``--post``), or while the mover's socket is down, as an HTTP
POST. It is timed from its sending until all four sockets of its table have a message whose
stamp (``data-v``: match number * 100000 + version) is at least the move's new stamp (the
mover's table stamp plus one; a post's answer says it); one that does not reach all four
within ``LOST_AFTER_S`` is lost. A refusal over the socket (a frame whose message carries
``data-status`` and the move's ``data-ack``) counts as an error with that status.

Imports: the standard library and aiohttp only (the site is reached over HTTP).
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import json
import math
import random
import re
import sys
import time

import aiohttp

LOST_AFTER_S = 10.0
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
REFUSAL = re.compile(r'data-status="(\d+)"(?: data-ack="(\d+)")?')


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


# -- figures, progress, addresses -------------------------------------------------------------
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
        self.frame_sizes: list[int] = []  # each frame's bytes, while ``sizing``
        self.sizing = False
        self.read_view = False  # the mover reads its seat view (view.json) before each move, as bots do
        self.reconnects = 0
        self.post = False  # moves go as HTTP posts (``--post``), not over the mover's socket
        self.acks = 0
        self.refused: dict[int, str] = {}  # a refused socket move's ack: its status

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
                    size = len(data.encode())
                    self.frames += 1
                    self.frame_bytes += size
                    if self.sizing:
                        self.frame_sizes.append(size)
                    if 'data-status="' in data:  # a move refused over this socket
                        found = REFUSAL.search(data)
                        if found and found.group(2):
                            self.refused[int(found.group(2))] = found.group(1)
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
            except (TimeoutError, aiohttp.ClientError, OSError):
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
        except TimeoutError:
            return False

    async def all_at_least(self, stamp: int, timeout: float) -> bool:
        """Wait until every socket has shown ``stamp`` (the snapshot on connect, say)."""
        deadline = time.perf_counter() + timeout
        while not all(s.stamp >= stamp for s in self.socks) or len(self.socks) < 4:
            left = deadline - time.perf_counter()
            if left <= 0 or not await self.wait_change(left):
                return False
        return True

    async def delivered(self, stamp: int, sent: float, ack: int | None = None) -> float | str | None:
        """When the last of the four sockets first showed ``stamp`` (or later), or None when
        one has not within ``LOST_AFTER_S`` of ``sent``; the status of the refusal when the
        socket move ``ack`` was refused."""
        deadline = sent + LOST_AFTER_S
        while True:
            times = [s.first_at_least(stamp) for s in self.socks]
            if len(times) == 4 and all(t is not None for t in times):
                return max(times)  # type: ignore[type-var]
            if ack is not None and ack in self.refused:
                return self.refused.pop(ack)
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            # no await between the check above and clear(): no message can slip in unseen
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
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
        if self.read_view and not await self.view(person, tally):
            return
        for s in self.socks:
            s.arrivals.clear()
        sock = person.sock
        if not self.post and sock is not None and not sock.done and not sock.ws.closed:
            await self.send(person, sock, path, form, tally)
            return
        sent = time.perf_counter()
        try:
            async with person.session.post(self.base + path, data=form, headers=self.post_headers(person),
                                           allow_redirects=False) as r:
                body = await r.text()
                status = r.status
        except (TimeoutError, aiohttp.ClientError) as e:
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
        self.count(tally, await self.delivered(stamp, sent), sent)

    async def send(self, person: Person, sock: Sock, path: str, form: dict[str, str], tally: Tally) -> None:
        """The move as one message over the mover's socket (its route is the path's last
        word), then wait for it to reach all four sockets, or for its refusal."""
        self.acks += 1
        ack = self.acks
        stamp = self.next_stamp(person)
        message = json.dumps({**form, "route": self.route(path), "ack": ack})
        sent = time.perf_counter()
        try:
            await sock.ws.send_str(message)
        except (ConnectionError, RuntimeError, aiohttp.ClientError) as e:
            tally.errors += 1
            tally.statuses[f"socket: {type(e).__name__}: {e}"[:120]] += 1
            await asyncio.sleep(0.5)
            return
        tally.statuses["socket"] += 1
        outcome = await self.delivered(stamp, sent, ack)
        self.count(tally, outcome, sent)
        if isinstance(outcome, str):
            await asyncio.sleep(0.2)  # the refusal showed the mover the table as it is; go on from there

    def count(self, tally: Tally, arrived: float | str | None, sent: float) -> None:
        """A move's outcome: delivered (when), lost (None) or refused over the socket (its status)."""
        if arrived is None:
            tally.lost += 1
        elif isinstance(arrived, str):
            tally.errors += 1
            tally.statuses[f"socket {arrived}"] += 1
        else:
            tally.latencies.append(arrived - sent)
            tally.done_at.append(arrived)

    def next_stamp(self, person: Person) -> int:
        """The stamp the next change of the table will carry, as ``person`` holds it."""
        raise NotImplementedError

    def route(self, path: str) -> str:
        """The route word of a move posted to ``path`` (``/g/<CODE>/<route>``)."""
        return path.rsplit("/", 1)[1]


    async def view(self, person: Person, tally: Tally) -> bool:
        """Read the mover's seat view first (a bot's way); False if that failed."""
        return True


class SiteTable(Table):
    """A table of the site: moves are read off each person's own fragments."""

    def __init__(self, base: str, people: list[Person], code: str, seed: int, deflate: bool) -> None:
        super().__init__(base, people, base.replace("http://", "ws://", 1) + f"/g/{code}/ws", deflate, reconnect=True)
        self.code = code
        self.rng = random.Random(seed)

    def absorb(self, person: Person, text: str) -> int:
        return person.absorb(text)

    def next_stamp(self, person: Person) -> int:
        turn = person.frags.get("turn")  # the version the form carries (``_table_version``)
        return (turn[0] if turn is not None else person.sock.stamp if person.sock else 0) + 1

    def post_headers(self, person: Person) -> dict[str, str]:
        return {"HX-Request": "true", "X-CSRF-Token": person.csrf}

    async def view(self, person: Person, tally: Tally) -> bool:
        try:
            async with person.session.get(f"{self.base}/g/{self.code}/view.json") as r:
                await r.read()
                ok = r.status == 200
        except (TimeoutError, aiohttp.ClientError):
            ok = False
        if not ok:
            tally.errors += 1
            tally.statuses["view.json failed"] += 1
        return ok

    def decide(self) -> tuple[Person, str, dict[str, str]] | None:
        act = f"/g/{self.code}/act"
        for person in self.people:
            told = person.frags.get("told")
            if told is None or "my-turn" not in root_classes(told[1]):
                continue
            hand = person.frags.get("hand")
            if hand is None:
                continue
            found = controls(hand[1])
            version = _table_version(person)
            if version is None:
                continue
            # the suits this seat may play, as the page reads them (#told's data-legal)
            suits = attrs(told[1][1:told[1].find(">")]).get("data-legal", "")
            legal = [a["value"] for tag, a in found if tag == "button" and a.get("name") == "action"
                     and len(a.get("value", "")) == 2 and a["value"][1] in suits]
            if legal:
                return person, act, {"version": version, "action": self.rng.choice(legal)}
            bidding = any(a.get("name") == "bid" or (tag == "button" and a.get("name") == "action"
                                                     and a.get("value") in ("bid", "nil"))
                          for tag, a in found)
            if bidding:
                return person, act, {"version": version, "action": BID}
        host = self.people[0]
        panel = host.frags.get("next")
        if panel is not None:
            found = controls(panel[1])
            version = _table_version(host)
            if version is not None:
                if any(tag == "button" and a.get("value") == "deal_now" for tag, a in found):
                    return host, act, {"version": version, "action": "deal_now"}
                if any(tag == "form" and a.get("action", "").endswith("/rematch") for tag, a in found):
                    return host, f"/g/{self.code}/rematch", {"version": version}
        return None


def _table_version(person: Person) -> str | None:
    """The table's version as the page holds it (``#turn``, in every update): a form sent
    from the page carries it (site.js)."""
    tv = person.frags.get("turn")
    if tv is None:
        return None
    version = attrs(tv[1][1:tv[1].find(">")]).get("data-version", "")
    return version if version.isdigit() else None


class BareTable(Table):
    """A table of the bare app: anyone may move; the four people take turns to move."""

    def __init__(self, base: str, people: list[Person], name: str, deflate: bool) -> None:
        super().__init__(base, people, base.replace("http://", "ws://", 1) + f"/ws/{name}", deflate, reconnect=True)
        self.name = name
        self.turn = 0

    def absorb(self, person: Person, text: str) -> int:
        m = STAMP_HEAD.match(text)
        return int(m.group(1)) if m else -1

    def next_stamp(self, person: Person) -> int:
        return (person.sock.stamp if person.sock else 0) + 1

    def route(self, path: str) -> str:
        return "move"  # posted to /move/<table>

    def decide(self) -> tuple[Person, str, dict[str, str]]:
        self.turn += 1
        return self.people[self.turn % 4], f"/move/{self.name}", {}
