"""The load benchmark's phases, on the tables of one server: seeding them through the real
pages, the closed loop (each table moves again as soon as its last move reached all four
sockets), the paced loop (a move per table every ``PACE_S``), and the idle phase
(spectator sockets held open while the home page is timed; then many visitors from one
address, and how the server refuses those over its limit).

Imports: the standard library, aiohttp, the load clients (``bench.client``) and the
server runner's type (``bench.servers``).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import re
import resource
import time

import aiohttp

from .client import (
    EMOJIS,
    HOME_ADDRESS,
    LOST_AFTER_S,
    ONE_ADDRESS,
    STAMP_ATTR,
    BareTable,
    Person,
    SiteTable,
    Table,
    Tally,
    connector,
    log,
    ms,
    percentile,
    spectator_address,
    table_address,
)
from .servers import Server

PACE_S = 2.0  # paced phase: one move per table this often
HOME_RATE = 20.0  # home page requests a second in the idle phase
PER_ADDRESS = 90  # idle spectator sockets per source address
IDLE_CPU_S = 10.0  # idle phase: how long the worker's CPU is read while its sockets wait (``--idle-seconds``)


# -- seeding -------------------------------------------------------------------------------------
async def gather_limited(coros: list, limit: int) -> list:
    """Run ``coros`` with at most ``limit`` at once; results (or exceptions) in order."""
    sem = asyncio.Semaphore(limit)

    async def one(c):
        async with sem:
            return await c

    return await asyncio.gather(*(one(c) for c in coros), return_exceptions=True)


def unless_failed(results: list, kind: type, what: str) -> list:
    """The set-up results of ``kind``; the first failure raised if there was any."""
    failed = [r for r in results if not isinstance(r, kind)]
    if failed:
        raise RuntimeError(f"{len(failed)} of {len(results)} {what} could not be set up: {failed[0]!r}")
    return results


async def seed_site_table(base: str, i: int, deflate: bool) -> SiteTable:
    """Table ``i`` the way friends make one: the host creates it, three join, the host starts."""
    address = table_address(i)
    host = Person(address, f"Host {i}"[:20], EMOJIS[0])
    friends = [Person(address, f"Friend {k} of {i}"[:20], EMOJIS[k]) for k in (1, 2, 3)]
    people = [host, *friends]
    try:
        await host.get(base + "/")
        where = await host.post_form(base + "/new", {
            "humans": "4", "mode": "bidding", "end": "target-500", "bag_penalty": "on", "tempo": "relaxed",
            "level": "normal", "speed": "fast", "name": host.name, "emoji": host.emoji})
        m = re.search(r"/g/([A-Za-z0-9]+)$", where)
        if not m:
            raise RuntimeError(f"POST /new sent the host to {where!r}, not to a table")
        code = m.group(1)
        for friend in friends:
            await friend.get(base + "/")
            await friend.post_form(f"{base}/j/{code}", {"name": friend.name, "emoji": friend.emoji})
        await host.post_form(f"{base}/g/{code}/start", {})
        table = SiteTable(base, people, code, seed=i, deflate=deflate)
        for person in people:
            await person.get(f"{base}/g/{code}")  # the page first, then its socket, as a browser does
            await table.connect(person)
        if not await table.all_at_least(0, LOST_AFTER_S):
            raise RuntimeError(f"table {code}: not every socket got its first snapshot")
        return table
    except BaseException:
        for p in people:
            await p.close()
        raise


async def seed_bare_table(base: str, i: int, deflate: bool) -> BareTable:
    address = table_address(i)
    people = [Person(address, f"P{k}", EMOJIS[k]) for k in range(4)]
    table = BareTable(base, people, str(i), deflate)
    try:
        for person in people:
            await table.connect(person)
        if not await table.all_at_least(0, LOST_AFTER_S):
            raise RuntimeError(f"bare table {i}: not every socket got its first frame")
        return table
    except BaseException:
        for p in people:
            await p.close()
        raise


# -- the move phases ------------------------------------------------------------------------------
async def closed_phase(tables: list[Table], seconds: float) -> tuple[Tally, float, float]:
    tally = Tally()
    start = time.perf_counter()
    end = start + seconds

    async def run(table: Table) -> None:
        while time.perf_counter() < end:
            await table.move(tally)

    await asyncio.gather(*(run(t) for t in tables))
    return tally, start, end


async def paced_phase(tables: list[Table], seconds: float) -> tuple[Tally, float, float]:
    tally = Tally()
    start = time.perf_counter()
    end = start + seconds

    async def run(k: int, table: Table) -> None:
        due = start + PACE_S * k / len(tables)
        while due < end:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            await table.move(tally)
            due = max(due + PACE_S, time.perf_counter())  # late: the next move at once, no burst

    await asyncio.gather(*(run(k, t) for k, t in enumerate(tables)))
    return tally, start, end


def frame_stats(tables: list[Table]) -> tuple[int, int]:
    return sum(t.frames for t in tables), sum(t.frame_bytes for t in tables)


def sizing(tables: list[Table], on: bool) -> list[int]:
    """Start or stop keeping each frame's size; the sizes kept so far."""
    sizes = []
    for t in tables:
        t.sizing = on
        sizes += t.frame_sizes
    return sizes


def client_cpu_s() -> float:
    """CPU seconds this client process has used (it shares the machine with the server)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def phase_note(label: str, tally: Tally, cpu: float, seconds: float) -> str:
    note = (f"{label}: {len(tally.latencies)} moves delivered, {tally.errors} errors, {tally.lost} lost, "
            f"{tally.reconnects} sockets reopened; "
            f"client CPU {100 * cpu / seconds:.0f}% of one core")
    return note + (f"; answers {dict(tally.statuses)}" if tally.errors else "")


async def move_phases(tables: list[Table], seconds: float, label: str, view: bool = False) -> dict:
    """The phases on one server's tables: closed, paced and, with ``view``, paced again with
    each mover reading its seat view first; figures plus the closed phase's frame sizes."""
    frames0, bytes0 = frame_stats(tables)
    sizing(tables, True)
    cpu, rejoined = client_cpu_s(), sum(t.reconnects for t in tables)
    closed, c0, c1 = await closed_phase(tables, seconds)
    frames1, bytes1 = frame_stats(tables)
    sizes = sorted(sizing(tables, False))
    closed.reconnects = sum(t.reconnects for t in tables) - rejoined
    log(phase_note(f"{label} closed", closed, client_cpu_s() - cpu, time.perf_counter() - c0))
    paced, p0, p1 = await paced_run(tables, seconds, f"{label} paced")
    out = {
        "closed_per_s": closed.delivered_per_s(c0, c1), "closed": closed,
        "paced_per_s": paced.delivered_per_s(p0, p1), "paced": paced,
        "frame_bytes": (bytes1 - bytes0) // max(1, frames1 - frames0),
        "frame_p95_bytes": sizes[min(len(sizes) - 1, int(0.95 * len(sizes)))] if sizes else 0,
        # every byte the sockets got in the closed phase, per move and per socket
        "bytes_per_move_per_socket": round((bytes1 - bytes0) / max(1, len(closed.latencies) * 4)),
        "answer_bytes": closed.answer_bytes // max(1, closed.answers),
    }
    if view:
        for t in tables:
            t.read_view = True
        viewed, v0, v1 = await paced_run(tables, seconds, f"{label} paced, reading view.json")
        for t in tables:
            t.read_view = False
        out.update(paced_view_per_s=viewed.delivered_per_s(v0, v1), paced_view=viewed)
    return out


async def paced_run(tables: list[Table], seconds: float, label: str) -> tuple[Tally, float, float]:
    """One paced phase, its progress logged."""
    cpu, rejoined = client_cpu_s(), sum(t.reconnects for t in tables)
    paced, p0, p1 = await paced_phase(tables, seconds)
    paced.reconnects = sum(t.reconnects for t in tables) - rejoined
    log(phase_note(label, paced, client_cpu_s() - cpu, time.perf_counter() - p0))
    return paced, p0, p1


async def close_all(people: list[Person], timeout: float = 15.0) -> None:
    """Close sockets and sessions, a bounded wait (the server is stopped next anyway)."""
    try:
        await asyncio.wait_for(asyncio.gather(*(p.close() for p in people), return_exceptions=True), timeout)
    except TimeoutError:
        pass


# -- the idle phase -------------------------------------------------------------------------------
class Visitor(Table):
    """A spectator: one person watching one table, who never moves."""

    def absorb(self, person: Person, text: str) -> int:
        m = STAMP_ATTR.search(text)
        return int(m.group(1)) if m else 0

    def decide(self) -> None:
        return None


async def open_visitor(base: str, code: str, shared: aiohttp.TCPConnector, deflate: bool,
                       failures: collections.Counter) -> tuple[Visitor, Person]:
    """A distinct visitor (its own cookie) opens the table page, then its socket. A refusal
    is counted in ``failures`` (by what the server said) and leaves ``person.sock`` None."""
    person = Person("", "visitor", "", shared=shared)
    visitor = Visitor(base, [person], base.replace("http://", "ws://", 1) + f"/g/{code}/ws", deflate)
    try:
        async with person.session.get(f"{base}/g/{code}") as r:
            await r.read()
            if r.status != 200:
                failures[f"HTTP {r.status} for the table page"] += 1
                return visitor, person
        await visitor.connect(person)
    except aiohttp.WSServerHandshakeError as e:
        failures[f"HTTP {e.status} at the handshake"] += 1
    except (TimeoutError, aiohttp.ClientError, OSError) as e:
        failures[f"{type(e).__name__}"] += 1
    return visitor, person


def held(person: Person) -> bool:
    return person.sock is not None and not person.sock.done and not person.sock.ws.closed


async def time_home(base: str, seconds: float) -> tuple[list[float], int]:
    """GET / at ``HOME_RATE`` a second (each on its own schedule, so a slow answer does not
    slow the rate); latencies of the 200s, and the count of anything else."""
    session = aiohttp.ClientSession(connector=connector(HOME_ADDRESS), cookie_jar=aiohttp.DummyCookieJar(),
                                    timeout=aiohttp.ClientTimeout(total=LOST_AFTER_S))
    latencies: list[float] = []
    failed = 0

    async def one() -> None:
        nonlocal failed
        t = time.perf_counter()
        try:
            async with session.get(base + "/") as r:
                await r.read()
                if r.status == 200:
                    latencies.append(time.perf_counter() - t)
                    return
        except (TimeoutError, aiohttp.ClientError):
            pass
        failed += 1

    try:
        start = time.perf_counter()
        tasks = []
        for k in range(max(1, int(seconds * HOME_RATE))):
            await asyncio.sleep(max(0.0, start + k / HOME_RATE - time.perf_counter()))
            tasks.append(asyncio.create_task(one()))
        await asyncio.gather(*tasks)
    finally:
        await session.close()
    return latencies, failed


async def home_ok(base: str) -> bool:
    async with aiohttp.ClientSession(connector=connector(HOME_ADDRESS),
                                     timeout=aiohttp.ClientTimeout(total=LOST_AFTER_S)) as session:
        try:
            async with session.get(base + "/") as r:
                await r.read()
                return r.status == 200
        except (TimeoutError, aiohttp.ClientError):
            return False


async def idle_phase(server: Server, codes: list[str], args: argparse.Namespace) -> dict:
    base = server.base
    connectors: list[aiohttp.TCPConnector] = []
    visitors: list[Person] = []
    try:
        failures: collections.Counter = collections.Counter()
        jobs = []
        for k in range(args.idle_sockets):
            if k % PER_ADDRESS == 0:
                connectors.append(connector(spectator_address(k // PER_ADDRESS)))
            jobs.append(open_visitor(base, codes[k % len(codes)], connectors[-1], args.deflate, failures))
        t = time.perf_counter()
        opened = await gather_limited(jobs, 32)
        visitors += [r[1] for r in opened if isinstance(r, tuple)]
        log(f"idle: {sum(1 for p in visitors if p.sock)} of {args.idle_sockets} spectator sockets open in "
            f"{time.perf_counter() - t:.1f} s" + (f"; refused: {dict(failures)}" if failures else ""))
        # what the open sockets cost while nothing happens at their tables
        cpu, window = server.worker_cpu_s(), args.idle_seconds
        await asyncio.sleep(window)
        after = server.worker_cpu_s()
        idle_cpu = None if cpu is None or after is None else round(100 * (after - cpu) / window, 1)
        log(f"idle: the worker used {idle_cpu}% of a core over {window:.0f} s")
        home, home_failed = await time_home(base, args.seconds)
        rss = server.worker_rss_mb()
        still = sum(1 for p in visitors if held(p))
        log(f"idle: {still} held, home page {len(home)} answered, {home_failed} failed, worker RSS {rss} MB")

        # one source address, many distinct visitors
        one = connector(ONE_ADDRESS)
        connectors.append(one)
        refusals: collections.Counter = collections.Counter()
        jobs = [open_visitor(base, codes[k % len(codes)], one, args.deflate, refusals)
                for k in range(args.one_address)]
        crowd = [r[1] for r in await gather_limited(jobs, 16) if isinstance(r, tuple)]
        visitors += crowd
        await asyncio.sleep(2.0)  # a limit that closes sockets after the upgrade has had time to
        accepted = sum(1 for p in crowd if held(p))
        for p in crowd:
            if p.sock is not None and not held(p):
                s = p.sock
                refusals[f"{s.close_code} {s.close_reason}".strip()] += 1
        reason = refusals.most_common(1)[0][0] if refusals else ""
        up = await home_ok(base)
        log(f"one address: {accepted} of {args.one_address} kept; refusals {dict(refusals)}; site up: {up}")
        return {"bench": "idle", "sockets": args.idle_sockets, "held": still,
                "home_p50_ms": ms(percentile(home, 50)), "home_p99_ms": ms(percentile(home, 99)),
                "home_failed": home_failed, "worker_rss_mb": rss, "worker_cpu_idle_pct": idle_cpu,
                "one_address": {"opened": args.one_address, "accepted": accepted,
                                "refused": args.one_address - accepted, "close_reason": reason},
                "site_up": up}
    finally:
        await close_all(visitors)
        for c in connectors:
            await c.close()
