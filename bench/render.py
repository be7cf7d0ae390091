"""A benchmark (not a test): a table page's render and a card play's round trip, in process.

    python -m bench.render [--moves 300] [--pages 200]

A table with four people is played on a temporary database through the real app (Flask
test clients, the table service, SQLite). Each seat has a live subscriber rendering its
frame as the socket hub does (the fragments that changed, drawn from the table's latest
drawing). Printed, as medians in milliseconds:
- ``page``: GET /g/<CODE> for a seated player;
- ``round trip``: one move's POST (htmx) until its response AND every seat's fragments
  are rendered (publishing happens before the POST returns, after the move is committed).

Imports: the web layer, the table service, storage and the core (``spades``).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import dataclasses
import random
import statistics
import tempfile
import time
from pathlib import Path

from spades.rules_config import Rules
from spades.storage import SeatRow
from spades.tables import Player
from spades.web import create_app
from spades.web.hub import Published


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.render", description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=300, help="moves to time (default 300)")
    parser.add_argument("--pages", type=int, default=200, help="page renders to time (default 200)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        pool = cf.ThreadPoolExecutor(1)
        app = create_app({"DATABASE": str(Path(tmp) / "bench.db"), "SECRET_KEY": "bench",
                          "PLAY_DELAYS": {"slow": 0, "normal": 0, "fast": 0}, "BOT_POOL": pool,
                          "RESUME_TABLES": False, "TOURNEY_TICK_S": 0})
        service = app.extensions["spades.tables"]
        players = [f"bench{s}" for s in range(4)]
        code = "BENCH1"
        service.store.create_table(code, players[0], {"level": "easy"},
                                   [SeatRow(s, "human", players[s], f"P{s}") for s in range(4)], "bench",
                                   dataclasses.asdict(Rules(end="hands", hands=99)))
        clients = []
        for pid in players:
            client = app.test_client()
            with client.session_transaction() as session:
                session["pid"], session["csrf"] = pid, "bench-token"
            clients.append(client)
        rendered = [0]
        drawn: dict = {}  # the table's latest drawing of each part, as the hub keeps it
        sent: dict = {}  # what each seat's socket last sent

        def listen(change):  # as the socket hub does: each seat's frame of the change
            item = Published(change, drawn)
            for seat in range(4):
                item.frame(app, seat, sent.setdefault(seat, {}))
            rendered[0] += len(players)

        service.bus.subscribe(listen)

        pages = []
        for _ in range(args.pages):
            t = time.perf_counter()
            response = clients[0].get(f"/g/{code}")
            pages.append(time.perf_counter() - t)
            assert response.status_code == 200

        rng = random.Random(1)
        trips = []
        for _ in range(args.moves * 20):  # bounded: a table that stops moving is an error, not a hang
            if len(trips) >= args.moves:
                break
            v = service.snapshot(code, players[0]).view
            if v["phase"] == "hand_over":
                service.act(code, Player(players[0]), "deal_now", v["version"])  # the host deals
                continue
            seat = v["to_act"]
            sv = service.snapshot(code, players[seat]).view
            action = rng.choice(sv["legal"])
            before = rendered[0]
            t = time.perf_counter()
            response = clients[seat].post(f"/g/{code}/act", data={"action": action, "version": sv["version"]},
                                          headers={"HX-Request": "true", "X-CSRF-Token": "bench-token"})
            elapsed = time.perf_counter() - t
            assert response.status_code == 200 and rendered[0] == before + 4, response.status_code
            if sv["phase"] == "playing":
                trips.append(elapsed)
        else:
            raise RuntimeError(f"the table stopped moving after {len(trips)} cards")
        app.extensions["spades.tourneys"].close()
        service.close()
        pool.shutdown()

    print(f"table page render: median {statistics.median(pages) * 1000:.2f} ms over {len(pages)} GETs")
    print(f"card play round trip (POST until all 4 seats' fragments are rendered): "
          f"median {statistics.median(trips) * 1000:.2f} ms, p95 "
          f"{sorted(trips)[int(len(trips) * 0.95)] * 1000:.2f} ms over {len(trips)} cards")


if __name__ == "__main__":
    main()
