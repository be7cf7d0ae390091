"""Shared fixtures: an app on a database in tmp_path with instant bots, its test client,
a live server on a random port for browser tests, Debian's Chromium for Playwright, a
loopback SMTP server (``smtp``, from ``servers``) and a Web Push service on loopback
(``push_service``). A test module overrides ``app_config`` to add settings (the SMTP server, say) to its app."""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from helpers.webhook_fakes import DiscordFake, SlackFake
from jinja2 import BytecodeCache
from simple_websocket import Client, ConnectionClosed
from werkzeug.serving import make_server

from spades.web import close_app, create_app

pytest_plugins = ["servers"]  # Redis, PostgreSQL and SMTP servers, free ports (tests/servers.py)


def pytest_collection_modifyitems(config, items):
    """Every test in real Chromium is marked ``browser``: the test command runs the others
    on two workers (pytest-xdist), then these, also on two, so that the pages never
    share the machine with the other tests' work (a page's clock and its moves are timed
    by the browser). The longest modules are collected first (``LONGEST``)."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()) or "page" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
    # the modules that take longest go first, so that the two workers end together and no
    # long test is left alone at the end (each module's tests stay together, in order)
    items.sort(key=lambda item: getattr(getattr(item, "module", None), "__name__", "") not in LONGEST)


LONGEST = frozenset(("test_restart", "test_loadbench", "test_redis_down", "test_properties", "test_bot_worker",
                     "test_undo", "test_arena", "test_slow_clients", "test_benchmarks_run", "test_fairness",
                     "test_channel_restart", "test_channel_delivery", "test_tourney_simulate", "test_migrate_once",
                     # and of the browser tests
                     "test_browser_cluster", "test_browser_rematch", "test_browser_friends", "test_browser_tourney",
                     "test_browser_clock", "test_browser_house"))

INSTANT = {"slow": 0.0, "normal": 0.0, "fast": 0.0}


def two_friends(host, ann, base: str, ann_base: str = "", live: bool = True) -> str:
    """In two browsers: Hana creates a table for two people, Ann (🐼) joins by its link and
    Hana starts the game (``live``: her room shows Ann by itself; else she reloads it);
    each reaches the site at their own base address. The table's code."""
    host.goto(base + "/new")
    host.get_by_label("Your name").fill("Hana")
    host.locator("label:has(input[name=humans][value='2'])").click()
    host.get_by_role("button", name="Create the table").click()
    host.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
    code = host.url.rsplit("/", 1)[1]
    ann.goto(f"{ann_base or base}/j/{code}")
    ann.get_by_label("Your name").fill("Ann")
    ann.locator("label:has(input[name=emoji][value='🐼'])").click()
    ann.get_by_role("button", name="Join").click()
    if live:
        host.locator("#room", has_text="Ann").wait_for()
    else:
        host.reload()
    host.get_by_role("button", name="Start the game").click()
    return code


def _placed(offset: int) -> str:
    """The plate ``offset`` seats on from the page's own (the CSS of static/site.css)."""
    return ".plate:is(" + ", ".join([f".table-main:has(#told.from-{m}) .seat-{(m + offset) % 4}" for m in range(4)]
                                     + [f".table-main:has(#told.watching) .seat-{offset}"]) + ")"


# Where each page draws each plate (bottom: its own seat's; a watcher's: seat 0's), and the
# result between hands while it is open
PLATE = {pos: _placed(k) for k, pos in enumerate(("bottom", "left", "top", "right"))}
OPEN_PANEL = "#panel:has(#result > *)"


class FakeClock:
    """Epoch seconds that move only when the test advances them."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def pool():
    """Bots in a thread pool (a test module may override it with a pool it drives)."""
    p = cf.ThreadPoolExecutor(2)
    yield p
    p.shutdown(wait=False, cancel_futures=True)


@pytest.fixture
def app_config() -> dict:
    """Extra settings for ``app`` (override in a test module)."""
    return {}


class _CompiledTemplates(BytecodeCache):
    """The templates compiled once for every app a test process makes: each app has its
    own Jinja environment, which would compile each template it renders again (a
    quarter of a page test's time). Jinja checks each entry against the template's
    source, so an edited template is compiled anew."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket) -> None:
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()


TEMPLATES = _CompiledTemplates()


@pytest.fixture
def app(tmp_path, app_config):
    """The site on a fresh database; bots move at once, in a thread pool (not processes)."""
    pool = cf.ThreadPoolExecutor(2)
    seeds = itertools.count(1)
    app = create_app({
        "SEED_SOURCE": lambda: f"test-{next(seeds)}",  # the same deals on every run
        "TESTING": True,
        "DATABASE": str(tmp_path / "spades.db"),
        "SECRET_KEY": "test-secret",
        "PLAY_DELAYS": INSTANT,
        "BOT_POOL": pool,
        "TOURNEY_TICK_S": 0,  # tourney tests that need the timers ask for them
        "NOTICE_TICK_S": 0,  # ... and the turn notices' tests tick them
        **app_config,
    })
    app.jinja_env.bytecode_cache = TEMPLATES
    yield app
    close_app(app)
    pool.shutdown(wait=False, cancel_futures=True)


@pytest.fixture
def mail_app(app, smtp):
    """``app`` sending its mail to the loopback SMTP server ``smtp``."""
    app.config.update(smtp.config())
    return app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def service(app):
    return app.extensions["spades.tables"]


def csrf_of(client) -> str:
    """The session's CSRF token, read from the home page like a browser would."""
    html = client.get("/").get_data(as_text=True)
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def start_practice(client, **fields) -> str:
    """Start a practice match through the form; returns the table code."""
    data = {"csrf": csrf_of(client), "level": "normal", "speed": "fast", "end": "target-500", "bag_penalty": "on"}
    data.update(fields)
    response = client.post("/practice", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)
    return response.headers["Location"].rsplit("/", 1)[1]


@pytest.fixture
def live_server(app) -> Iterator[str]:
    """The app served by a threaded werkzeug server on a random port (WebSockets work)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


class _Socket(Client):
    """simple-websocket's client, minus a race: its handshake reads the server's answer
    and takes the first event only, so frames that came in the same read (a refusal's
    banner and close, sent at once) would wait in the parser until the next read, which
    the server's close ends with nothing, and the socket would close without them. Its
    reader handles those frames before it reads again.

    And a send racing the server's close: a send that found the connection open just
    before the reader closed the socket file met ``OSError`` (a bad file descriptor)
    instead of ``ConnectionClosed``. Both mean the server closed it."""

    def _thread(self):
        self.connected = self._handle_events()
        super()._thread()

    def send(self, data):
        try:
            super().send(data)
        except OSError as e:
            raise ConnectionClosed(self.close_reason, self.close_message) from e


def open_ws(live_server: str, code: str, cookie: str | None = None, origin: str | None = "http://127.0.0.1") -> Client:
    """A WebSocket to table ``code``'s live updates, as the page with session ``cookie``
    opens it (simple-websocket sends ``Host`` without the port, so this is the matching
    origin)."""
    headers = {}
    if cookie:
        headers["Cookie"] = f"session={cookie}"
    if origin:
        headers["Origin"] = origin
    return _Socket.connect(live_server.replace("http", "ws") + f"/g/{code}/ws", headers=headers)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Debian's Chromium (never ``playwright install``)."""
    return {
        **browser_type_launch_args,
        "executable_path": "/usr/bin/chromium",
        "args": ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"],
    }


# -- a push service on loopback ----------------------------------------------------------------
@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    """Takes POSTs as a browser's push service does and keeps them; ``answer`` is the
    status it gives (201: taken; 410: that browser is gone)."""

    base: str
    received: list[Received] = field(default_factory=list)
    answer: int = 201


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service = PushService("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            service.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(service.answer)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    service.base = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield service
    server.shutdown()
    server.server_close()


@pytest.fixture
def discord() -> Iterator[DiscordFake]:
    """Discord's incoming webhooks on loopback (``helpers.webhook_fakes``)."""
    with DiscordFake() as fake:
        yield fake


@pytest.fixture
def slack() -> Iterator[SlackFake]:
    """Slack's incoming webhooks on loopback (``helpers.webhook_fakes``)."""
    with SlackFake() as fake:
        yield fake


@pytest.fixture
def talk_table(app, client):
    """A table for two people playing, to talk at: the host Hana (``client``) and Ann; a
    third browser watches. (code, host, Ann, watcher)"""
    from helpers.lobby import join, new_table, post  # it imports this module

    code = new_table(client, humans=2, name="Hana")
    ann = app.test_client()
    assert join(ann, code, "Ann").status_code == 303
    assert post(client, code, "start").status_code == 303
    watcher = app.test_client()
    watcher.get(f"/g/{code}/watch")
    return code, client, ann, watcher
