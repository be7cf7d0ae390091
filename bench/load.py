"""Load benchmark (not a test): the production server under many tables, as players meet it.

    python -m bench.load [--tables 200] [--seconds 20] [--idle-sockets 2000] [--idle-seconds 10]
                         [--one-address 300] [--skip-bare] [--skip-idle] [--no-deflate]
                         [--workers 1 2] [--post]

The site runs as in production (``gunicorn -c gunicorn.conf.py app:app``: one gevent worker)
on loopback, on a temporary database. One client process (asyncio + aiohttp) seeds
``--tables`` four-person tables through the real pages (a host creates the table, three
friends join, the host starts), each person with their own cookies, and opens each
person's WebSocket. People move only on their turn, as their own socket (or the answer
to their own move) shows it: a legal card, a bid of 3, the host's Deal now between hands,
the host's Rematch after the match.

A move is sent over the mover's socket, as the table page sends it while its socket is
open (one JSON message: the form's fields, ``route``, ``ack``); with ``--post``, as an HTTP
POST, as before the site took moves on the socket (for comparison; ``answer_bytes`` is then
the posts' answers, and 0 over the socket, which answers a move with nothing but its frame).
The bare app takes its moves the same way in each mode. A move is timed from its sending
until all four sockets of its table have a message whose stamp (``data-v``: match number *
100000 + version) is at least the move's new stamp; one that does not reach all four within
10 s is lost. Phases, each ``--seconds`` long:

- ``closed``: each table moves again as soon as its last move has reached all four;
- ``paced``: each table moves every 2 s (starts staggered), offering tables/2 moves a second;
- ``paced_view`` (site only): paced again, each mover first reading its seat view
  (``view.json``) as a bot does;
- ``paced_big`` (site only): ``--big-tables`` tables (600: 400 more are seeded), paced.

Frames are measured in the closed phase: their mean and 95th percentile bytes (as sent,
before per-message compression) and every byte a socket got per move.

The same phases then run against ``bench.barews`` (a bare flask-sock fan-out with the
same server settings) with frames and answers of the site's average sizes, so ``ratio``
says how much of the transport's ceiling the site keeps. The servers run one at a time.

Idle phase (site only): ``--idle-sockets`` spectator sockets (distinct visitors, at most 90
per source address) stay open; the worker's CPU is read over 10 s while nothing happens
(``worker_cpu_idle_pct``: what waiting sockets cost), then the home page is timed at 20
requests a second and the worker's RSS is read from /proc. Then ``--one-address`` more
visitors open a socket each from one address: how many the server keeps, and how it
refuses the rest.

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

The people and their tables are ``bench.client``, the phases ``bench.phases``, the servers
``bench.servers``; this module is the command line and its output.

Imports: the standard library and the modules of ``bench`` above (the servers run in
their own processes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from .client import BareTable, SiteTable, Table, Tally, log, ms, percentile
from .phases import (
    IDLE_CPU_S,
    PACE_S,
    close_all,
    gather_limited,
    idle_phase,
    move_phases,
    paced_run,
    seed_bare_table,
    seed_site_table,
    unless_failed,
)
from .servers import RedisServer, Server, raise_open_files


# -- the run -------------------------------------------------------------------------------------
async def run_site(server: Server, args: argparse.Namespace, idle: bool = True) -> tuple[dict, dict | None]:
    t = time.perf_counter()
    results: list = []
    try:
        results = await gather_limited([seed_site_table(server.base, i, args.deflate)
                                        for i in range(args.tables)], 16)
        tables = by(unless_failed(results, SiteTable, "tables"), args)
        log(f"site: {len(tables)} tables seeded, {4 * len(tables)} sockets open in {time.perf_counter() - t:.1f} s")
        moves = await move_phases(tables, args.seconds, "site", view=True)
        if args.big_tables > args.tables:
            t = time.perf_counter()
            results += await gather_limited([seed_site_table(server.base, i, args.deflate)
                                             for i in range(args.tables, args.big_tables)], 16)
            more = by(unless_failed(results, SiteTable, "tables"), args)
            log(f"site: {len(more)} tables, {4 * len(more)} sockets open in {time.perf_counter() - t:.1f} s")
            big, b0, b1 = await paced_run(more, args.seconds, f"site paced, {len(more)} tables")
            moves.update(big=big, big_per_s=big.delivered_per_s(b0, b1))
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
        tables = by(unless_failed(results, BareTable, "bare tables"), args)
        log(f"bare: {len(tables)} tables, {4 * len(tables)} sockets open in {time.perf_counter() - t:.1f} s")
        return await move_phases(tables, args.seconds, "bare")
    finally:
        await close_all([p for r in results if isinstance(r, Table) for p in r.people])


def by(tables: list, args: argparse.Namespace) -> list:
    """``tables``, each to move over its sockets, or with ``--post`` by HTTP posts."""
    for t in tables:
        t.post = args.post
    return tables


def moves_line(args: argparse.Namespace, site: dict, bare: dict | None, workers: int = 1) -> dict:
    sc, sp = site["closed"], site["paced"]
    bc, bp = (bare["closed"], bare["paced"]) if bare else (None, None)
    bare_rate = bare["closed_per_s"] if bare else None
    return {
        "bench": "load", "tables": args.tables, "workers": workers,
        "seconds": int(args.seconds) if float(args.seconds).is_integer() else args.seconds,
        "frame_bytes": site["frame_bytes"], "frame_p95_bytes": site["frame_p95_bytes"],
        "bytes_per_move_per_socket": site["bytes_per_move_per_socket"],
        "answer_bytes": site["answer_bytes"], "deflate": args.deflate, "moves_by": "post" if args.post else "socket",
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
        "paced_view": _paced(args.tables, site.get("paced_view"), site.get("paced_view_per_s")),
        "paced_big": _paced(args.big_tables, site.get("big"), site.get("big_per_s")),
    }


def _paced(tables: int, tally: Tally | None, rate: float | None) -> dict | None:
    """A further paced phase of the site: ``paced_view`` (each mover reads view.json first),
    ``paced_big`` (``--big-tables`` tables)."""
    if tally is None or rate is None:
        return None
    return {"tables": tables, "offered_per_s": round(tables / PACE_S, 1), "site_delivered_per_s": round(rate, 1),
            "site_p50_ms": ms(percentile(tally.latencies, 50)), "site_p99_ms": ms(percentile(tally.latencies, 99)),
            "site_max_ms": ms(max(tally.latencies)) if tally.latencies else None,
            "errors": tally.errors, "lost": tally.lost, "reconnects": tally.reconnects}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="four-person tables (default 200)")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase (default 20)")
    parser.add_argument("--idle-sockets", type=int, default=2000, help="idle spectator sockets (default 2000)")
    parser.add_argument("--idle-seconds", type=float, default=IDLE_CPU_S,
                        help=f"seconds the worker's CPU is read while the idle sockets wait (default {IDLE_CPU_S:.0f})")
    parser.add_argument("--one-address", type=int, default=300,
                        help="visitors opening a socket from one address (default 300)")
    parser.add_argument("--big-tables", type=int, default=600,
                        help="tables of the last paced phase of the site (default 600; not above --tables: none)")
    parser.add_argument("--skip-bare", action="store_true", help="do not run the bare WebSocket app")
    parser.add_argument("--skip-idle", action="store_true", help="do not run the idle-socket phase")
    parser.add_argument("--no-deflate", dest="deflate", action="store_false",
                        help="sockets do not offer permessage-deflate (browsers do)")
    parser.add_argument("--post", action="store_true",
                        help="moves as HTTP posts, not messages on the mover's socket (for comparison)")
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
                bare = current = Server("bench.barews:app", Path(tmp), "bare", {
                    "BAREWS_FRAME_BYTES": str(site_moves["frame_bytes"]),
                    "BAREWS_ANSWER_BYTES": str(site_moves["answer_bytes"])})
                log(f"bare: gunicorn bench.barews:app on {bare.base}, frames of "
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
