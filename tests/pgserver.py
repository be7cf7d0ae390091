"""A throwaway PostgreSQL server for tests, from Debian's package (``/usr/lib/postgresql/*/bin``).

``pg_server`` (session): a cluster in a temporary directory, listening on a free loopback
port with trust authentication and fsync off, stopped and removed at the end; its value
is the base URL. ``pg_database``: a fresh empty database on it for one test, as a URL
``Store`` takes. ``database``: what ``SPADES_DATABASE`` may say, once for each engine (a
SQLite file, then a PostgreSQL database), for tests that run on both.

initdb refuses to run as root, so as root the server runs as the ``postgres`` user.
Registered in ``conftest.py`` with ``pytest_plugins``.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator

import psycopg
import pytest

from spades.web.loadbench import free_port

BINARIES = "/usr/lib/postgresql/*/bin"


def _bindir() -> str:
    """The newest installed PostgreSQL's binaries; fails the test when there are none."""
    found = sorted((d for d in glob.glob(BINARIES) if os.path.exists(os.path.join(d, "initdb"))),
                   key=lambda d: int(d.split("/")[-2]) if d.split("/")[-2].isdigit() else 0)
    if not found:
        pytest.fail(f"PostgreSQL is not installed (no initdb under {BINARIES}): "
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
    bindir = _bindir()
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
