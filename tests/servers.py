"""The tests' servers, real ones on free loopback ports: the site under gunicorn as in
production, Redis and PostgreSQL from Debian's packages (the test command installs them),
and an SMTP server (aiosmtpd) that keeps what it receives.

Fixtures (registered in ``conftest.py`` with ``pytest_plugins``):

- ``redis_server`` (session): a Redis in a temporary directory, nothing saved to disk; its
  URL. ``redis_url``: the same server, emptied before the test.
- ``pg_server`` (session): a PostgreSQL cluster in a temporary directory with trust
  authentication and fsync off, stopped and removed at the end; its base URL.
  ``pg_database``: a fresh empty database on it for one test, as a URL ``Store`` takes.
  ``database``: what ``SPADES_DATABASE`` may say, once for each engine (a SQLite file,
  then a PostgreSQL database), for tests that run on both. initdb refuses to run as
  root, so as root the server runs as the ``postgres`` user.
- ``smtp``: a running SMTP server on 127.0.0.1; ``smtp.messages`` holds what it received.
  ``unused_port``: a loopback port nobody listens on.

Helpers: ``free_port()``; ``Gunicorn``, the site (``app:app``) in its own process group.

Imports: the standard library, pytest, redis, psycopg and aiosmtpd (the test extras);
nothing from ``spades`` or ``bench`` (the benchmarks have runners of their own).
"""

from __future__ import annotations

import glob
import os
import pwd
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
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

import psycopg
import pytest
import redis
from aiosmtpd.controller import Controller

ROOT = Path(__file__).resolve().parent.parent  # the repository: gunicorn.conf.py, app.py


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- the site under gunicorn -----------------------------------------------------------------
class Gunicorn:
    """``gunicorn -c gunicorn.conf.py <target>`` in its own process group on a free port,
    on a database in ``tmp``, logging to a file (a pipe nobody reads would fill up and
    stall the server)."""

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
        """Start the server and wait until ``GET /`` answers 200; RuntimeError if it does not."""
        gunicorn = Path(sys.executable).parent / "gunicorn"
        with open(self.log, "wb") as out:
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


# -- Redis ------------------------------------------------------------------------------------
class RedisServer:
    """Debian's ``redis-server`` on a free loopback port, nothing saved; ``stop`` and
    ``start`` again on the same port (an outage, in the tests that need one)."""

    def __init__(self, tmp: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is missing (Debian package redis-server)")
        self.binary, self.tmp = binary, tmp
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.start()

    def start(self) -> None:
        self.proc = subprocess.Popen([self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--dir", str(self.tmp)],
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


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is missing: `bash scripts/test` installs Debian's redis-server package")
    workdir = tempfile.mkdtemp(prefix="spades-redis-")
    server = RedisServer(Path(workdir))
    yield server.url
    server.stop()
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def redis_url(redis_server: str) -> str:
    redis.Redis.from_url(redis_server).flushall()
    return redis_server


# -- PostgreSQL -------------------------------------------------------------------------------
PG_BINARIES = "/usr/lib/postgresql/*/bin"


def _pg_bindir() -> str:
    """The newest installed PostgreSQL's binaries; fails the test when there are none."""
    found = sorted((d for d in glob.glob(PG_BINARIES) if os.path.exists(os.path.join(d, "initdb"))),
                   key=lambda d: int(d.split("/")[-2]) if d.split("/")[-2].isdigit() else 0)
    if not found:
        pytest.fail(f"PostgreSQL is not installed (no initdb under {PG_BINARIES}): "
                    "apt-get install postgresql, or run the test command, which installs it")
    return found[-1]


def _fast_dir() -> str | None:
    """/dev/shm when it has room: in memory, a new database takes a tenth of the time."""
    try:
        roomy = shutil.disk_usage("/dev/shm").free >= 1 << 30
    except OSError:
        return None
    return "/dev/shm" if roomy and os.access("/dev/shm", os.W_OK) else None


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A PostgreSQL cluster for this test session: its base URL (user ``postgres``, no password)."""
    bindir = _pg_bindir()
    as_user: list[str] = []
    owner = None
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.fail("initdb refuses to run as root, and there is no postgres user to run it as")
        as_user = ["runuser", "-u", "postgres", "--"]
    base = tempfile.mkdtemp(prefix="spades-pg-", dir=_fast_dir())
    if owner is not None:
        os.chown(base, owner.pw_uid, owner.pw_gid)
    data, log, port = os.path.join(base, "data"), os.path.join(base, "server.log"), free_port()

    def run(*args: str) -> None:
        done = subprocess.run([*as_user, *args], capture_output=True, text=True)
        if done.returncode:
            server_log = ""
            if os.path.exists(log):
                with open(log) as f:
                    server_log = f.read()
            raise RuntimeError(f"{args[0]} failed ({done.returncode}):\n{done.stdout}{done.stderr}{server_log}")

    settings = (f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={base} "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
    try:
        run(f"{bindir}/initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C",
            "--no-sync", "--no-instructions")
        run(f"{bindir}/pg_ctl", "-D", data, "-l", log, "-w", "-t", "30", "-o", settings, "start")
        yield f"postgresql://postgres@127.0.0.1:{port}"
    finally:
        if os.path.exists(os.path.join(data, "postmaster.pid")):
            subprocess.run([*as_user, f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"],
                           capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def pg_database(pg_server: str) -> Iterator[str]:
    """A new empty database for this test: its URL. Dropped afterwards, with any connection
    still open to it."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(f"{pg_server}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield f"{pg_server}/{name}"
    with psycopg.connect(f"{pg_server}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path) -> str:
    """A fresh database on each engine in turn: a SQLite file path, then a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "spades.db")
    return request.getfixturevalue("pg_database")


# -- SMTP -------------------------------------------------------------------------------------
@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    content: bytes

    @property
    def message(self) -> EmailMessage:
        return message_from_bytes(self.content, policy=policy.default)

    @property
    def text(self) -> str:
        return self.message.get_body(("plain",)).get_content()


@dataclass
class Inbox:
    host: str
    port: int
    messages: list[Received] = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope):  # aiosmtpd handler hook
        self.messages.append(Received(envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 Message accepted for delivery"

    def wait_for(self, to: str, timeout: float = 10.0) -> Received:
        """The newest message to ``to``, waiting for it to arrive."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for m in reversed(self.messages):
                if to in m.rcpt_tos:
                    return m
            time.sleep(0.05)
        raise AssertionError(f"no mail to {to} arrived")

    def config(self) -> dict:
        return {"SPADES_SMTP_HOST": self.host, "SPADES_SMTP_PORT": self.port}


@pytest.fixture
def smtp():
    """A running aiosmtpd server on 127.0.0.1; ``smtp.messages`` holds what it received."""
    inbox = Inbox("127.0.0.1", free_port())
    controller = Controller(inbox, hostname=inbox.host, port=inbox.port)
    controller.start()
    try:
        yield inbox
    finally:
        controller.stop()


@pytest.fixture
def unused_port() -> int:
    return free_port()
