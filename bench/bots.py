"""Capacity benchmark of the computer players (not a test): how long a person waits for
their turn while N practice tables of bots play at once.

    python -m bench.bots [--tables 1 4 16 64] [--level hard] [--think 2 0]
                         [--seconds 40] [--warmup 10] [--bot-workers N]
    python -m bench.bots --through-redis 1 2 [--decisions 300] [--budget 0.1]

For each number of tables and each thinking time of the persons, the site starts as in
production (``gunicorn -c gunicorn.conf.py app:app``, bots' play delay 0) on a fresh
database; N scripted persons each start a practice table at ``--level`` from the home
page and open its WebSocket. A person waits for a message on their socket that may
show their turn (a bid box, a playable hand, the hand's result, the Look button: what a
page shows), reads the table (``view.json``) and, when it is their turn, takes
``--think`` seconds over it, then plays: the first legal card, a bid of what the Hard
bot's hint would not cost (3, or the lowest legal number), Continue between hands, and a
new practice table when the match is over.

The wait is timed from the answer to a person's move until the socket message that shows
their next turn, i.e. the three bots' moves in between (their thinking and the site's
work). Waits that begin in the first ``--warmup`` seconds are not counted.

One JSON line per (tables, think): the wait's p50/p95/max in seconds, the bots' actions a
second (every action of the tables but the persons' own), the persons' moves, the Hard
budget the scheduler chose (the median and the least of its ten-second reports), fallback
moves (the server's log says when a bot ran out of time), errors. Progress, and the
server's errors and fallbacks, on stderr.

``--through-redis 1 2``: no site. A ``redis-server`` and, in turn, 1 then 2 bot worker
processes (``python -m spades.bots.worker --processes N``); ``--decisions`` Hard decisions
(real seat views from Normal-played deals, forced moves left out) go through the Redis
queue with twice as many in flight as workers. One JSON line per count: decisions a second;
then each count's ratio to the first.

Imports: the standard library, aiohttp, the load clients' person (``bench.client``), the
benchmarks' servers (``bench.servers``), and (for ``--through-redis``) the bots' queue and
the core.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures as cf
import itertools
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import aiohttp

from .client import EMOJIS, Person, log, percentile, table_address
from .servers import SEVERE, RedisServer, Server, raise_open_files

FALLBACK = "playing a fallback move"
STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})")  # logging's asctime
# what a frame holding the person's own cards shows when it may be their turn: a bid box,
# playable cards, the hand's result, the Look button, or what they are told ("Your turn";
# late in a hand the cards come with the Claim button and are marked by the page itself)
MINE = ('class="bidbox"', "fan playable", "panel open", 'value="look"', 'id="told"')
THINKING = re.compile(r"bot thinking: (\d+) decisions .* budget median (\d+) ms, least (\d+) ms")


class Stats:
    def __init__(self, counted_from: float) -> None:
        self.counted_from = counted_from
        self.waits: list[float] = []
        self.moves = 0
        self.errors = 0
        self.versions: dict[str, tuple[int, int]] = {}  # table: (first version seen, last)

    def version(self, code: str, v: int) -> None:
        first, _ = self.versions.get(code, (v, v))
        self.versions[code] = (first, v)


async def play(base: str, i: int, level: str, think: float, stats: Stats, stop_at: float) -> None:
    """One person at their own practice table until ``stop_at``."""
    person = Person(table_address(i), f"P{i}"[:20], EMOJIS[i % len(EMOJIS)])
    ws: aiohttp.ClientWebSocketResponse | None = None
    try:
        await person.get(base + "/")
        while time.perf_counter() < stop_at:
            where = await person.post_form(base + "/practice", {
                "level": level, "speed": "fast", "end": "target-500", "bag_penalty": "on", "name": person.name})
            code = where.rsplit("/", 1)[1]
            await person.get(f"{base}/g/{code}")
            ws = await person.session.ws_connect(base.replace("http://", "ws://", 1) + f"/g/{code}/ws",
                                                 origin=base, heartbeat=None)
            messages = asyncio.Event()
            arrived = [time.perf_counter()]

            async def listen(sock: aiohttp.ClientWebSocketResponse, messages: asyncio.Event = messages,
                             arrived: list[float] = arrived) -> None:
                async for msg in sock:
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        break
                    if 'id="hand"' not in msg.data or any(mark in msg.data for mark in MINE):
                        arrived[0] = time.perf_counter()
                        messages.set()
                messages.set()

            reader = asyncio.create_task(listen(ws))
            waiting_since: float | None = None
            try:
                while time.perf_counter() < stop_at:
                    messages.clear()
                    seen_at = arrived[0]
                    async with person.session.get(f"{base}/g/{code}/view.json") as r:
                        view = await r.json()
                    stats.version(code, view["version"])
                    if view.get("finished"):
                        break  # a new table
                    action = choose(view)
                    if action is not None:
                        if waiting_since is not None and waiting_since >= stats.counted_from:
                            stats.waits.append(max(0.0, seen_at - waiting_since))
                        if think:
                            await asyncio.sleep(think)
                        async with person.session.post(f"{base}/g/{code}/act", data={
                                "csrf": person.csrf, "action": str(action), "version": str(view["version"])},
                                headers={"HX-Request": "true"}) as r:
                            await r.read()
                            if r.status == 200:
                                stats.moves += 1
                            elif r.status != 409:
                                stats.errors += 1
                                log(f"person {i}: {action} answered {r.status}: {(await r.text())[:200]!r}")
                        waiting_since = time.perf_counter()
                        continue
                    if reader.done():
                        raise RuntimeError("the socket closed")
                    try:
                        await asyncio.wait_for(messages.wait(), timeout=30)
                    except TimeoutError:
                        stats.errors += 1  # no news for 30 s: a stuck table
                        async with person.session.get(f"{base}/g/{code}/view.json") as r:
                            now = await r.json()
                        log(f"person {i}: no news from table {code} for 30 s (its view: {view.get('phase')}, "
                            f"{view.get('to_act')} to act, version {view.get('version')}; now {now.get('phase')}, "
                            f"{now.get('to_act')} to act, version {now.get('version')}, legal {now.get('legal')})")
            finally:
                reader.cancel()
                await ws.close()
    except asyncio.CancelledError:
        raise
    except Exception as e:
        stats.errors += 1
        log(f"person {i}: {type(e).__name__}: {e}")
    finally:
        await person.close()


def choose(view: dict) -> str | int | None:
    """The person's move when it is theirs: Continue between hands, a bid, a card."""
    if view.get("phase") == "hand_over":
        return "deal"
    legal = view.get("legal") or []
    if view.get("to_act") != view.get("seat") or not legal:
        return None
    numbers = [a for a in legal if isinstance(a, int)]
    if numbers:
        return 3 if 3 in numbers else min(numbers)
    if "look" in legal:
        return "look"
    return legal[0]


async def run(base: str, tables: int, level: str, think: float, seconds: float, warmup: float) -> Stats:
    start = time.perf_counter()
    stats = Stats(start + warmup)
    stop_at = start + warmup + seconds
    await asyncio.gather(*(play(base, i, level, think, stats, stop_at) for i in range(tables)))
    return stats


def decision_views(count: int) -> list[dict]:
    """Seat views of real decisions (bids and cards, more than one legal action), from
    deals played by Normal bots."""
    from spades import bots
    from spades.rules import BIDDING, PLAYING, Match, parse_action
    from spades.rules_config import Rules
    from spades.views import seat_view

    views: list[dict] = []
    for n in itertools.count():
        match = Match(Rules(), f"through-redis-{n}")
        while match.phase in (BIDDING, PLAYING) and len(views) < count:
            seat = match.to_act
            view = seat_view(match, seat)
            if len(view["legal"]) > 1 and "look" not in view["legal"]:
                views.append(view)
            match.apply(seat, parse_action(bots.choose(view, "normal", n)))
        if len(views) >= count:
            return views
    return views


def through_redis(counts: list[int], decisions: int, budget: float) -> None:
    from spades.bots import choose
    from spades.bots.worker import WORKERS, BotQueue, live_workers

    views = decision_views(decisions)
    rates: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="spades-workers-") as tmp:
        server = RedisServer(Path(tmp))
        try:
            for count in counts:
                queue = BotQueue(server.url, deadline_s=120)
                worker = subprocess.Popen([sys.executable, "-m", "spades.bots.worker", "--redis", server.url,
                                           "--processes", str(count)], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, start_new_session=True)
                try:
                    deadline = time.monotonic() + 60
                    while live_workers(queue.redis) < count:
                        if time.monotonic() > deadline:
                            raise RuntimeError("the workers did not start")
                        time.sleep(0.1)
                    queue.submit(choose, views[0], "hard", 0, budget).result(timeout=60)  # warm
                    start = time.perf_counter()
                    pending: set = set()
                    for n, view in enumerate(views):
                        while len(pending) >= 2 * count:
                            done, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                            for f in done:
                                f.result()
                        pending.add(queue.submit(choose, view, "hard", n, budget))
                    for f in cf.as_completed(pending, timeout=300):
                        f.result()
                    elapsed = time.perf_counter() - start
                finally:
                    queue.shutdown()
                    os.killpg(worker.pid, signal.SIGTERM)
                    worker.wait(10)
                    queue.redis.delete(WORKERS)  # the next count starts with none alive
                rates[count] = len(views) / elapsed
                print(json.dumps({"bench": "bots-through-redis", "workers": count, "decisions": len(views),
                                  "budget_s": budget, "decisions_per_s": round(rates[count], 2)}), flush=True)
        finally:
            server.stop()
    first = rates[counts[0]]
    print(json.dumps({"bench": "bots-through-redis", "ratio_to_first": {
        str(c): round(r / first, 3) for c, r in rates.items()}}), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bots", description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--level", default="hard", choices=("easy", "normal", "hard"))
    parser.add_argument("--think", type=float, nargs="+", default=[2.0, 0.0],
                        help="seconds a person takes over each move (default 2, then 0)")
    parser.add_argument("--seconds", type=float, default=40.0, help="measured seconds per run (default 40)")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds not counted at the start (default 10)")
    parser.add_argument("--bot-workers", type=int, default=None, help="BOT_WORKERS of the server (default its own)")
    parser.add_argument("--through-redis", type=int, nargs="+", default=None,
                        help="bot worker processes behind Redis, a run each (no site)")
    parser.add_argument("--decisions", type=int, default=300, help="decisions per --through-redis run")
    parser.add_argument("--budget", type=float, default=0.1, help="Hard budget of each --through-redis decision")
    args = parser.parse_args(argv)
    if args.through_redis:
        return through_redis(args.through_redis, args.decisions, args.budget)
    raise_open_files()
    for tables in args.tables:
        for think in args.think:
            with tempfile.TemporaryDirectory(prefix="spades-bots-") as tmp:
                env = {"SPADES_PLAY_DELAY": "0", "SPADES_LOG_LEVEL": "info"}
                if args.bot_workers:
                    env["SPADES_BOT_WORKERS"] = str(args.bot_workers)
                server = Server("app:app", Path(tmp), f"bots-{tables}", env)
                log(f"{tables} tables at {args.level}, persons take {think:g} s: gunicorn on {server.base}")
                server.start()
                try:
                    stats = asyncio.run(run(server.base, tables, args.level, think, args.seconds, args.warmup))
                    ended = datetime.now().strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
                finally:
                    server.stop()
                # what the server logged while the persons played (not its shutdown)
                text = "\n".join(line for line in server.log.read_text(errors="replace").splitlines()
                                 if not STAMP.match(line) or STAMP.match(line).group(1) <= ended)
                actions = sum(last - first for first, last in stats.versions.values())
                reports = [tuple(map(int, m.groups())) for m in THINKING.finditer(text)]
                for line_text in text.splitlines():
                    if FALLBACK in line_text or SEVERE.search(line_text):
                        log(f"server: {line_text[:300]}")
                line = {
                    "bench": "bots", "tables": tables, "level": args.level, "think_s": think,
                    "seconds": args.seconds,
                    "wait_p50_s": round(percentile(stats.waits, 50), 3) if stats.waits else None,
                    "wait_p95_s": round(percentile(stats.waits, 95), 3) if stats.waits else None,
                    "wait_max_s": round(max(stats.waits), 3) if stats.waits else None,
                    "waits": len(stats.waits), "person_moves": stats.moves,
                    "bot_actions_per_s": round(max(0, actions - stats.moves) / (args.seconds + args.warmup), 1),
                    "budget_median_ms": statistics.median(r[1] for r in reports) if reports else None,
                    "budget_least_ms": min(r[2] for r in reports) if reports else None,
                    "fallbacks": text.count(FALLBACK),
                    "errors": stats.errors + sum(1 for line in text.splitlines() if SEVERE.search(line)),
                }
                print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
