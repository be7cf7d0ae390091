"""Production server settings: ``gunicorn app:app`` reads this file.

One gevent worker: every request and every WebSocket is a greenlet, so an open table page
costs a few kilobytes, not a thread, and one worker holds thousands of sockets. gunicorn's
gevent worker patches the standard library before it loads the app (flask-sock needs
that); the computer players still think in their own processes (``BOT_WORKERS``).

One worker is the default. Several (``SPADES_WORKERS``) need ``SPADES_REDIS_URL``: the
workers then share table events, the ownership of each table and the rate limits through
Redis (``spades.tables.cluster``; docs/serving.md). Settings come from the environment:

- ``SPADES_BIND`` (default ``127.0.0.1:8000``): where to listen; behind a proxy on the
  same machine keep the loopback address.
- ``SPADES_WORKERS`` (default 1): worker processes; more than one only with
  ``SPADES_REDIS_URL`` set (the server refuses to start otherwise).
- ``SPADES_WORKER_CONNECTIONS`` (default 10000): open connections one worker accepts
  (sockets and requests together).
- ``SPADES_LOG_LEVEL`` (default ``info``).
- ``SPADES_CONNECTIONS_PER_ADDRESS`` (default ``SPADES_SOCKETS_PER_ADDRESS`` +
  ``SPADES_MAX_REQUESTS_PER_ADDRESS`` + 50, so 200): open connections one client address
  may hold in one worker; the next is closed at once (``spades.web.site.guard.ConnectionCap``).
  Peers in ``forwarded_allow_ips`` (env ``FORWARDED_ALLOW_IPS``, by default loopback: a
  proxy on this machine) are not capped. 0 turns it off.

Slow clients: a request's headers must arrive within ``keepalive`` (5 s; the gevent worker
reads them under that timeout, and closes the connection without an answer when it runs
out), its body within the app's ``BODY_TIMEOUT_S`` (``spades.web.site.guard``), and one address
may hold ``SPADES_CONNECTIONS_PER_ADDRESS`` connections: so one address cannot fill
``worker_connections`` with slow ones.
"""

import os
import resource

bind = os.environ.get("SPADES_BIND", "127.0.0.1:8000")
worker_class = "gevent"
workers = int(os.environ.get("SPADES_WORKERS", "1"))
if workers > 1 and not os.environ.get("SPADES_REDIS_URL"):
    raise SystemExit("SPADES_WORKERS > 1 needs SPADES_REDIS_URL: without Redis, two workers would "
                     "each take moves for the same table and their sockets would not hear each other")
worker_connections = int(os.environ.get("SPADES_WORKER_CONNECTIONS", "10000"))
# a WebSocket lives as long as its page: the worker's heartbeat, not a request timeout,
# tells the arbiter it is alive (gevent workers notify between greenlets)
timeout = 30
graceful_timeout = 10
keepalive = 5  # also how long a request's headers may take to arrive (see the docstring)
backlog = 2048
loglevel = os.environ.get("SPADES_LOG_LEVEL", "info")
# several servers on one machine (tests, benchmarks, a second site) must not fight over one
# control socket; signals (TERM, HUP, TTIN) manage the server
control_socket_disable = True
# see the module's docstring; the sockets' and requests' caps are the app's (spades.web)
connections_per_address = int(os.environ.get("SPADES_CONNECTIONS_PER_ADDRESS") or (
    int(os.environ.get("SPADES_SOCKETS_PER_ADDRESS", "100"))
    + int(os.environ.get("SPADES_MAX_REQUESTS_PER_ADDRESS", "50")) + 50))
accesslog = None  # one line per request costs more than it tells at this scale; the app logs refusals
errorlog = "-"


def on_starting(server) -> None:
    """Each socket is a file descriptor: raise the soft limit to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def post_worker_init(worker) -> None:
    """Cap each client address's open connections in this worker, before a byte is read;
    and keep the garbage collector's pauses short (``FULL_COLLECTION_EVERY``)."""
    from spades.web.site.guard import ConnectionCap

    ConnectionCap(connections_per_address, worker.cfg.forwarded_allow_ips).install(worker)
    keep_collections_short()


# A collection of every generation stops the worker (every socket, every table) for as long
# as it takes to look at every live object: 250 ms under 200 busy tables. The app as
# loaded (code, templates, settings) never becomes garbage, so it is moved out of the
# collector's sight (``gc.freeze``); and a full collection waits for 100 collections of
# the middle generation instead of 10 (Python's default), so it comes about ten times
# less often. Objects are still freed as soon as nothing refers to them; only garbage in
# reference cycles waits longer.
FULL_COLLECTION_EVERY = 100


def keep_collections_short() -> None:
    import gc

    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


def pre_request(worker, req) -> None:
    """As gunicorn's own (a debug line), and let the app's refusals close their connection
    (``spades.web.site.guard.note_request``; imported here, in the worker, after gevent's patching)."""
    from spades.web.site.guard import note_request

    worker.log.debug("%s %s", req.method, req.path)
    note_request(req)


def worker_exit(server, worker) -> None:
    """Close the app's tables as the worker stops, while its bot pool still takes work: the
    bots' turns still waiting are left for the next start instead of failing."""
    from spades.web import close_app

    close_app(worker.wsgi)
