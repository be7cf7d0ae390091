"""Slow clients: bounds on what one client address can hold open, in the app (a WSGI
middleware, ``Guard``) and in the gunicorn worker (``ConnectionCap``).

The server hands a request to the app once its headers are read; the body is read later,
lazily, from ``wsgi.input``. Without a bound, a client that sends ``Content-Length: 60000``
and then a byte every ten seconds holds a connection (a greenlet, a slot of the worker's
``worker_connections``) for as long as it likes, and a few hundred of them from one
address make the site time out for everybody. ``Guard`` wraps the app (``app.wsgi_app``)
and adds two bounds:

- **Requests in progress per client address** (``per_address``, the setting
  ``MAX_REQUESTS_PER_ADDRESS``): the next request from an address that already has that
  many in progress is answered ``429`` with a short plain message and its connection is
  closed. A request counts from the moment the app gets it until the server closes its
  answer. WebSocket upgrades to the sockets' own addresses (``/g/<CODE>/ws``,
  ``/t/<CODE>/ws``) are not counted: the socket hub has its own caps per person and per
  address (``SOCKETS_PER_PERSON``, ``SOCKETS_PER_ADDRESS``). Nor are requests that come
  with no connection of the server's (Flask's test client).
- **The body's time** (``body_timeout``, the setting ``BODY_TIMEOUT_S``): once the app
  first reads the body, all of it must arrive within that many seconds, or the request is
  answered ``408 Request Timeout`` (``Connection: close``) and its connection is closed.
  Under gevent (gunicorn's gevent worker) the deadline is a ``gevent.Timeout`` around each
  read, so a trickle of bytes cannot stretch it; under threads (Werkzeug's development
  server) a read goes one receive at a time, each with a socket timeout of what is left.

The address is ``REMOTE_ADDR`` as the app sees it (``request.remote_addr``), the key of
every other per-address limit of the site: behind a proxy, wrap ``app.wsgi_app`` in
werkzeug's ``ProxyFix`` after ``create_app``, outside this middleware, and the counts are
per client; otherwise they are per proxy. The counts are per process, like the sockets'
caps.

``ConnectionCap`` counts a gunicorn worker's open connections per peer address, from the
accept on, so it also covers connections whose headers are still coming (the app never
sees those): past its cap a new connection is closed before anything is read. It counts
the TCP peer, so proxies (gunicorn's ``forwarded_allow_ips``) are left out.

Closing the connection: gunicorn decides keep-alive itself and drops an app's
``Connection`` header, so its ``pre_request`` hook (``gunicorn.conf.py``) hands this module
the request it is serving (``note_request``) and a refusal marks it to close: gunicorn then
says ``Connection: close`` and ends the connection after the answer. Werkzeug's server
reads the header. Either way, once the refusal is written the connection's socket
(``gunicorn.socket`` or ``werkzeug.socket`` in the environ) is shut down after reading away
what the client had already sent, so closing it does not reset the connection under the
answer.

Imports: the standard library only (gevent when the process already runs under it).
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import socket
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

log = logging.getLogger(__name__)

TOO_MANY = "Too many requests at once from your address. Try again in a moment."
TOO_SLOW = "The request took too long to arrive. Try again."
RETRY_AFTER_S = 5
# the WebSocket routes end so (spades.web.table.live, spades.web.tourney.pages); an upgrade elsewhere is
# an ordinary request and counts
SOCKET_SUFFIX = "/ws"
# the least a read after the body's deadline may wait: data already in the buffer is still
# taken (an app may read the end of a body that arrived in time a little late)
LAST_READ_S = 0.05
DRAIN_BYTES = 256 * 1024  # the most read from a refused client before its connection is shut

Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WSGIApp = Callable[[Environ, StartResponse], Iterable[bytes]]


# the gunicorn request this thread (greenlet, under gevent) is serving: see note_request
_served = threading.local()


def note_request(req: Any) -> None:
    """gunicorn's ``pre_request`` hook: remember the request this greenlet serves, so that
    a refusal can have gunicorn close its connection."""
    _served.request = req


class BodyTimeout(BaseException):
    """The request's body did not arrive in time. A BaseException so that no form parser
    or ``except Exception`` in the app takes it for bad input: it goes straight up to the
    guard, which answers 408."""


class Guard:
    """The app behind both bounds; ``per_address`` or ``body_timeout`` of 0 turns that
    bound off."""

    def __init__(self, app: WSGIApp, *, per_address: int, body_timeout: float) -> None:
        self.app = app
        self.per_address = per_address
        self.body_timeout = body_timeout
        self._lock = threading.Lock()
        self._open: dict[str, int] = defaultdict(int)
        self._warned: set[str] = set()  # addresses over the cap already logged, until they drop to 0

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        address = environ.get("REMOTE_ADDR") or ""
        sock = _client_socket(environ)
        # a request without a connection (Flask's test client, which may never close its
        # answers) holds nothing of the server's: only a server's requests count
        counted = self.per_address > 0 and sock is not None and not _socket_upgrade(environ)
        if counted and not self._take(address):
            return _refuse(environ, start_response, "429 Too Many Requests", TOO_MANY,
                           [("Retry-After", str(RETRY_AFTER_S))])
        release = functools.partial(self._release, address) if counted else _nothing
        if self.body_timeout > 0 and "wsgi.input" in environ:
            environ["wsgi.input"] = TimedInput(environ["wsgi.input"], self.body_timeout, sock)
        try:
            result = self.app(environ, start_response)
        except BodyTimeout:
            release()
            log.info("answered 408 to %s: the body of %s %s did not arrive within %g s", address,
                     environ.get("REQUEST_METHOD"), environ.get("PATH_INFO"), self.body_timeout)
            return _refuse(environ, start_response, "408 Request Timeout", TOO_SLOW, [], exc_info=sys.exc_info())
        except BaseException:
            release()
            raise
        return _Answer(result, release)

    def _take(self, address: str) -> bool:
        with self._lock:
            if self._open[address] >= self.per_address:
                first = address not in self._warned
                self._warned.add(address)
            else:
                self._open[address] += 1
                return True
        if first:  # once while the address stays over the cap: a flood must not flood the log
            log.warning("refusing requests from %s: %d already in progress (MAX_REQUESTS_PER_ADDRESS)",
                        address, self.per_address)
        return False

    def _release(self, address: str) -> None:
        with self._lock:
            self._open[address] -= 1
            if self._open[address] <= 0:
                del self._open[address]
                self._warned.discard(address)


class TimedInput:
    """``wsgi.input`` whose reads must all end within ``seconds`` of the first one; past
    that, a read raises ``BodyTimeout``."""

    def __init__(self, stream: Any, seconds: float, sock: socket.socket | None) -> None:
        self._stream = stream
        self._seconds = seconds
        self._sock = sock
        self._deadline = 0.0  # set by the first read

    def read(self, size: int = -1) -> bytes:
        step = getattr(self._stream, "read1", None)
        if step is not None and size is not None and size > 0 and self._sock is not None:
            return self._timed(functools.partial(self._gather, step), size)
        return self._timed(self._stream.read, size)

    def readline(self, size: int = -1) -> bytes:
        return self._timed(self._stream.readline, size)

    def readlines(self, hint: int = -1) -> list[bytes]:
        return self._timed(self._stream.readlines, hint)

    def __iter__(self) -> Iterator[bytes]:
        while True:
            line = self.readline()
            if not line:
                return
            yield line

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()

    def _timed(self, read: Callable[[int], Any], size: int) -> Any:
        if not self._deadline:
            self._deadline = time.monotonic() + self._seconds
        green_timeout = _green_timeout()
        if green_timeout is not None:
            # one deadline for the whole read, however the bytes trickle in
            with green_timeout(self._left(), BodyTimeout()):
                return read(size)
        if self._sock is None:  # no socket to time (an in-memory body: the test client)
            return read(size)
        before = self._sock.gettimeout()
        try:
            self._sock.settimeout(self._left())
            return read(size)
        except TimeoutError:
            raise BodyTimeout() from None
        finally:
            try:
                self._sock.settimeout(before)
            except OSError:
                pass

    def _gather(self, step: Callable[[int], bytes], size: int) -> bytes:
        """``size`` bytes (fewer at the end of the body) from steps of at most one receive
        each, each step's socket timeout what is left of the deadline: under threads a
        socket timeout bounds one receive, and a body trickling in would never hit it."""
        parts: list[bytes] = []
        got = 0
        while got < size:
            if parts:
                if time.monotonic() >= self._deadline:
                    raise BodyTimeout()
                if self._sock is not None and _green_timeout() is None:
                    self._sock.settimeout(self._left())
            chunk = step(size - got)
            if not chunk:
                break
            parts.append(chunk)
            got += len(chunk)
        return b"".join(parts)

    def _left(self) -> float:
        return max(self._deadline - time.monotonic(), LAST_READ_S)


class _Answer:
    """The app's answer, passed through; closing it (the server does, after writing it)
    releases the address's count."""

    def __init__(self, result: Iterable[bytes], release: Callable[[], None]) -> None:
        self._result = result
        self._release: Callable[[], None] | None = release

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._result)

    def close(self) -> None:
        release, self._release = self._release, None
        try:
            close = getattr(self._result, "close", None)
            if close is not None:
                close()
        finally:
            if release is not None:
                release()


class _Refusal:
    """A short plain answer; once the server has written it, the connection is shut."""

    def __init__(self, body: bytes, sock: socket.socket | None) -> None:
        self._body = body
        self._sock = sock

    def __iter__(self) -> Iterator[bytes]:
        yield self._body

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            _hang_up(sock)


def _refuse(environ: Environ, start_response: StartResponse, status: str, message: str,
            headers: list[tuple[str, str]], exc_info: Any = None) -> _Refusal:
    body = (message + "\n").encode()
    served = getattr(_served, "request", None)
    if served is not None and environ.get("gunicorn.socket") is not None:
        served.must_close = True  # gunicorn says "Connection: close" and closes after the answer
    start_response(status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body))),
                            ("Connection", "close"), ("X-Content-Type-Options", "nosniff"),
                            ("Cache-Control", "no-store"), *headers], exc_info)
    return _Refusal(b"" if environ.get("REQUEST_METHOD") == "HEAD" else body, _client_socket(environ))


def _hang_up(sock: socket.socket) -> None:
    """End the connection after the answer: the answer then end-of-stream go out first,
    then what the client already sent is read away (closing a socket with unread bytes
    resets the connection, and the client might lose the answer), then reading stops, so
    the server sees the connection end and closes it."""
    try:
        sock.shutdown(socket.SHUT_WR)
    except OSError:
        return  # already gone
    try:
        before = sock.gettimeout()
        sock.settimeout(0.0)
        try:
            drained = 0
            while drained < DRAIN_BYTES:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                drained += len(chunk)
        except OSError:
            pass  # nothing more waiting
        finally:
            sock.settimeout(before)
        sock.shutdown(socket.SHUT_RD)
    except OSError:
        pass


class ConnectionCap:
    """Open connections per peer address in one gunicorn worker, headers or not: past
    ``per_address``, a new connection from that address is closed at once, before the
    server reads anything from it. Installed from ``gunicorn.conf.py`` (``post_worker_init``)
    around the worker's ``handle``, which each accepted connection runs in.

    A request's headers have no deadline of their own in the gevent worker but the
    keep-alive one (``keepalive``, 5 s): a client that sends them a byte at a time is cut
    off then, and may connect again at once, and again from hundreds of connections. This
    cap stops one address from filling ``worker_connections`` that way. Peers that are
    proxies (``forwarded_allow_ips``, by default loopback: a proxy on the same machine) are
    not capped; behind a proxy, cap connections there (nginx's ``limit_conn``)."""

    def __init__(self, per_address: int, exempt: Iterable[str]) -> None:
        self.per_address = per_address
        exempt = list(exempt)
        self._everyone_exempt = "*" in exempt
        self._exempt = [ipaddress.ip_network(a, strict=False) for a in exempt if a != "*"]
        self._open: dict[str, int] = defaultdict(int)
        self._warned: set[str] = set()

    def install(self, worker: Any) -> None:
        """Wrap ``worker.handle(listener, client, addr)``, the method gunicorn's async
        workers run for each accepted connection."""
        if self.per_address <= 0 or self._everyone_exempt:
            return
        handle = worker.handle

        def capped(listener: Any, client: socket.socket, addr: Any) -> None:
            peer = addr[0] if isinstance(addr, tuple) else None  # a unix socket: a proxy
            if peer is None or self._exempted(peer):
                handle(listener, client, addr)
                return
            if not self._take(peer):
                try:
                    client.close()
                except OSError:
                    pass
                return
            try:
                handle(listener, client, addr)
            finally:
                self._release(peer)

        worker.handle = capped

    def _exempted(self, peer: str) -> bool:
        try:
            ip = ipaddress.ip_address(peer)
        except ValueError:
            return False
        return any(ip in net for net in self._exempt)

    # one greenlet at a time runs in a gevent worker, and nothing here yields: no lock
    def _take(self, peer: str) -> bool:
        if self._open[peer] < self.per_address:
            self._open[peer] += 1
            return True
        if peer not in self._warned:
            self._warned.add(peer)
            log.warning("closing new connections from %s: %d already open (SPADES_CONNECTIONS_PER_ADDRESS)",
                        peer, self.per_address)
        return False

    def _release(self, peer: str) -> None:
        self._open[peer] -= 1
        if self._open[peer] <= 0:
            del self._open[peer]
            self._warned.discard(peer)


def _client_socket(environ: Environ) -> socket.socket | None:
    """The connection's socket, as gunicorn or Werkzeug's server puts it in the environ."""
    return environ.get("gunicorn.socket") or environ.get("werkzeug.socket")


def _socket_upgrade(environ: Environ) -> bool:
    """A WebSocket handshake to one of the site's socket routes (their caps are the hub's)."""
    return (environ.get("HTTP_UPGRADE", "").lower() == "websocket"
            and environ.get("REQUEST_METHOD") == "GET"
            and environ.get("PATH_INFO", "").endswith(SOCKET_SUFFIX))


def _green_timeout() -> Any:
    """``gevent.Timeout`` when this process runs under gevent (sockets patched), else None.
    gevent is not imported otherwise: the development server runs on threads."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched("socket"):
        from gevent import Timeout

        return Timeout
    return None


def _nothing() -> None:
    pass
