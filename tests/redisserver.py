"""A real Redis for the tests: Debian's ``redis-server`` on a free loopback port, in a
temporary directory, nothing saved to disk (the test command installs the package), started
as the load benchmark starts its own (``spades.web.loadbench.RedisServer``).

``redis_server`` (session): the server's URL. ``redis_url``: the same server, emptied
before the test."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from spades.web.loadbench import RedisServer, free_port  # noqa: F401 - free_port for the tests


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
