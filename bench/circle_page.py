"""A circle's page under load: a circle of 50 members, 500 finished matches over 12 weeks
(three seasons of a month), three tables waiting for people and 12 weeks of duplicate
boards; the time to render its page through the Flask test client.

    python -m bench.circle_page [--members 50] [--matches 500] [--weeks 12] [--requests 200]

Prints the first render (the current season's standings worked out then), then the
median and 95th percentile of ``--requests`` renders in milliseconds, and the time to work
out one season of all the matches at once (``spades.circles.work_out``), the cost a page
pays when a result arrives.

The finished matches are stored as the result rows the circle keeps for each (what
``CircleService.record`` writes when a match of the circle's tables finishes): playing
500 matches through the table service would take minutes and measure the bots. The weeks
of boards are made by ``spades.circles.boards.new_week``; the circle's page shows what
its templates draw of them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from spades.circles import CircleService, work_out
from spades.rules_config import Rules
from spades.storage import CircleResultRow, PutCircleResult
from spades.tables import EMOJIS
from spades.web import close_app, create_app

DAY = 86400.0


def build(app, members: int, matches: int, weeks: int, seed: int = 1) -> tuple[str, str]:
    """The circle (made ``weeks`` weeks ago) and its owner's id."""
    store = app.extensions["spades.tables"].store
    circles: CircleService = app.extensions["spades.circles"]
    accounts = app.extensions["spades.accounts"]
    now = time.time()
    start = now - weeks * 7 * DAY
    people = []
    for n in range(members):
        user, _ = store.sign_in(f"p{n}@example.com", f"u-{n:03d}", None, f"Player {n}", EMOJIS[n % len(EMOJIS)], start)
        people.append(user.id)
    circles.clock = lambda: start
    row = circles.create(people[0], "The benchmark circle")
    for pid in people[1:]:
        circles.join(row.slug, circles.invite_token(row.slug), pid)
    circles.clock = time.time
    seasons = circles.seasons(row.slug)  # rolled on to now: a season a month
    rng = random.Random(seed)
    ops = []
    for i in range(matches):
        at = start + (i + 0.5) * (now - start) / matches
        seated = rng.sample(people, 4)
        seats = tuple(("human", p, f"Player {int(p[2:])}") for p in seated)
        if rng.random() < 0.2:  # a bot in a seat now and then
            seats = (*seats[:3], ("bot", None, "Rex"))
        scores = (rng.randrange(-100, 600, 10), rng.randrange(-100, 600, 10))
        season = next(s.number for s in reversed(seasons) if s.started <= at)
        ops.append(PutCircleResult(row.slug, CircleResultRow(
            100000 + i, season, f"B{i:05d}", 1, at, True, seats, ((0, 2), (1, 3)), scores,
            0 if scores[0] >= scores[1] else 1)))
    store.commit(ops)
    for n in range(3):  # rooms waiting for people
        circles.start_table(row.slug, people[n], f"Player {n}", EMOJIS[0], Rules(), "normal", 4)
    try:
        from spades.circles import boards
    except ImportError:
        print("duplicate boards: not in this build, none made")
    else:
        for w in range(weeks):
            starts = start + w * 7 * DAY
            boards.new_week(store, row.slug, people[0], 8, Rules(), starts, now=starts - 1)
        print(f"duplicate boards: {weeks} weeks of 8 boards made")
    _ = accounts
    return row.slug, people[0]


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--members", type=int, default=50)
    ap.add_argument("--matches", type=int, default=500)
    ap.add_argument("--weeks", type=int, default=12)
    ap.add_argument("--requests", type=int, default=200)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"TESTING": True, "DATABASE": str(Path(tmp) / "bench.db"), "SECRET_KEY": "bench",
                          "RESUME_TABLES": False, "TOURNEY_TICK_S": 0, "NOTICE_TICK_S": 0})
        try:
            slug, owner = build(app, args.members, args.matches, args.weeks)
            accounts = app.extensions["spades.accounts"]
            client = app.test_client()
            with client.session_transaction() as s:
                s["pid"] = s["uid"] = owner
                s["gen"] = 0
                s["sid"] = accounts.new_session(owner)
            t = time.perf_counter()
            first = client.get(f"/c/{slug}")
            cold = (time.perf_counter() - t) * 1000
            assert first.status_code == 200, first.status_code
            times = []
            for _ in range(args.requests):
                t = time.perf_counter()
                r = client.get(f"/c/{slug}")
                times.append((time.perf_counter() - t) * 1000)
                assert r.status_code == 200
            results = app.extensions["spades.tables"].store.circle_results(slug)
            t = time.perf_counter()
            work_out(results)
            season_ms = (time.perf_counter() - t) * 1000
        finally:
            close_app(app)
    times.sort()
    p95 = times[max(0, int(round(0.95 * len(times))) - 1)]
    figures = {"members": args.members, "matches": args.matches, "weeks": args.weeks, "requests": args.requests,
               "first_ms": round(cold, 1), "p50_ms": round(statistics.median(times), 2), "p95_ms": round(p95, 2),
               "work_out_all_ms": round(season_ms, 1), "page_kb": round(len(first.data) / 1024, 1)}
    print(f"circle page render: first {figures['first_ms']} ms, then median {figures['p50_ms']} ms, "
          f"p95 {figures['p95_ms']} ms over {args.requests} requests ({figures['page_kb']} KiB); "
          f"one season of all {args.matches} matches worked out in {figures['work_out_all_ms']} ms")
    return figures


if __name__ == "__main__":
    main()
