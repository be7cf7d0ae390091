"""Turn-based tables waiting in the database: the memory of one process that holds many
of them (it loads none until a command or a timer comes), and the time to find and fire
a batch of due timers.

    python -m bench.idle [--tables 100000] [--due 1000]

Prints one JSON line: the tables, the process's resident memory before and after
starting the table service on them, how many it loaded, and the seconds to find and fire
the due ones (each a turn-based table whose move's time ran out: a bot plays the move).

``waiting_copies`` (also used by the tests) copies one real waiting table, row for row,
into many (a SQLite file), much faster than making each through the service.
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import sqlite3
import tempfile
import time
from pathlib import Path

from spades.rules_config import Rules
from spades.storage import SeatRow, Store
from spades.tables import EMOJIS, TableService

NAMES = ("Ann", "Bo", "Cy", "Di")


def one_waiting_table(service: TableService, tempo: str = "hours-12") -> str:
    """A turn-based table of four people, waiting on the first to bid."""
    seats = [SeatRow(s, "human", f"u-{NAMES[s].lower()}", NAMES[s], EMOJIS[s]) for s in range(4)]
    code = service.create_seated(seats, Rules(tempo=tempo), {"kind": "friends", "humans": 4, "rules": {"tempo": tempo}},
                                 host=seats[0].player_id)
    assert service.wait_idle()
    return code


def waiting_copies(path: str, code: str, n: int, due: int, now: float) -> list[str]:
    """``n`` copies of table ``code`` in the SQLite file at ``path`` (new codes, new match
    ids); the first ``due`` of them with their clock (and wait) running out at ``now``,
    the others a day later. Returns the copies' codes."""
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    [match] = db.execute("SELECT * FROM matches WHERE table_code = ?", [code]).fetchall()
    rows = {t: [dict(r) for r in db.execute(f"SELECT * FROM {t} WHERE {k} = ?", [v]).fetchall()]
            for t, k, v in (("tables", "code", code), ("seats", "table_code", code),
                            ("deal_secrets", "table_code", code), ("hands", "table_code", code),
                            ("turns", "table_code", code),
                            ("actions", "match_id", match["id"]), ("clocks", "match_id", match["id"]))}
    [first_id] = db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM matches").fetchone()
    codes = [f"W{i:05d}" for i in range(n)]
    batch: dict[str, list[dict]] = {t: [] for t in (*rows, "matches")}
    for i, new in enumerate(codes):
        match_id = first_id + i
        deadline = now if i < due else now + 86400
        batch["matches"].append({**dict(match), "id": match_id, "table_code": new})
        for t, items in rows.items():
            for r in items:
                r = {**r}
                for key in ("code", "table_code"):
                    if key in r:
                        r[key] = new
                if "match_id" in r:
                    r["match_id"] = match_id
                if t in ("clocks", "turns"):
                    r["deadline"] = deadline
                batch[t].append(r)
    with db:
        for t, items in batch.items():
            if items:
                cols = list(items[0])
                db.executemany(f"INSERT INTO {t} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                               [[r[c] for c in cols] for r in items])
    db.close()
    return codes


def rss_mb() -> float:
    """This process's resident memory now, in MB (from /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=100_000)
    ap.add_argument("--due", type=int, default=1000)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "idle.db")
        seeds = (f"idle-{n}" for n in itertools.count())
        maker = TableService(Store(path), play_delays={"slow": 0, "normal": 0, "fast": 0},
                             new_seed=lambda: next(seeds), sweep_s=0)
        template = one_waiting_table(maker)
        maker.close()
        start = time.time()
        t0 = time.perf_counter()
        waiting_copies(path, template, args.tables, args.due, start + 1000)  # the due ones run out in 1000 s
        made_s = time.perf_counter() - t0
        skip = [0.0]  # the service's clock jumps ahead to the due ones' deadline
        before = rss_mb()
        service = TableService(Store(path), play_delays={"slow": 0, "normal": 0, "fast": 0}, sweep_s=0,
                               clock=lambda: time.time() + skip[0])
        t0 = time.perf_counter()
        resumed = service.resume_all()
        resume_s = time.perf_counter() - t0
        after = rss_mb()
        skip[0] = time.time() - start + 1001
        t0 = time.perf_counter()
        _, woken = service.sweep()
        find_s = time.perf_counter() - t0
        service.scheduler.wake()
        left = args.due
        deadline = time.monotonic() + 600
        while left and time.monotonic() < deadline:
            time.sleep(0.1)
            left = len(service.store.due_tables(service.now()))
        fire_s = time.perf_counter() - t0
        print(json.dumps({"tables": args.tables, "due": args.due, "made_s": round(made_s, 1),
                          "rss_before_mb": round(before, 1), "rss_after_resume_mb": round(after, 1),
                          "resumed": resumed, "resume_s": round(resume_s, 2), "woken": woken,
                          "find_s": round(find_s, 2), "find_and_fire_s": round(fire_s, 2), "left_due": left,
                          "in_memory": service.tables_in_memory()}), flush=True)
        service.close()


if __name__ == "__main__":
    main()
