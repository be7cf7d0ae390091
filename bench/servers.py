"""The benchmarks' servers: free loopback ports, the site (or the bare app) under gunicorn
as in production, and a throwaway Redis; the open-files limit raised for thousands of
sockets.

The tests have their own runners (``tests/servers.py``): the product, the tests and the
benchmarks stay independent of each other.

Imports: the standard library only (each server runs in its own process).
"""

from __future__ import annotations

import os
import re
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the repository: gunicorn.conf.py, app.py
SEVERE = re.compile(r"\[(ERROR|CRITICAL)\]| (ERROR|CRITICAL) ")  # a server log line at ERROR or above


def free_port() -> int:
    """A loopback port nobody listens on right now."""
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
                    "SPADES_PLAY_DELAY": "0", "SPADES_LOG_LEVEL": "warning",
                    # the closed loop moves as fast as the server answers: at a few tables each
                    # seat's socket sends more moves a second than a person's is allowed
                    "SPADES_SOCKET_MOVES_PER_S": "10000", **(extra_env or {})}
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

    def _worker_file(self, name: str) -> str | None:
        """The text of the worker's ``/proc/<pid>/<name>``, or None."""
        pid = self.worker_pid()
        if pid is None:
            return None
        try:
            with open(f"/proc/{pid}/{name}") as f:
                return f.read()
        except OSError:
            return None

    def worker_rss_mb(self) -> float | None:
        for line in (self._worker_file("status") or "").splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
        return None

    def worker_cpu_s(self) -> float | None:
        """The CPU seconds (user and system) the worker has used so far."""
        stat = self._worker_file("stat")
        if stat is None:
            return None
        fields = stat.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime

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


def raise_open_files() -> None:
    """Thousands of sockets: the soft limit on open files up to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
