"""A benchmark (not a test): a table page's render and a card play's round trip, in process.

    python -m bench.render [--moves 300] [--pages 200]

A table with four people is played on a temporary database through the real app (Flask
test clients, the table service, SQLite). Each seat has a connection of the socket hub,
as an open page has, whose queue is drained as the page's socket does it (``Hub.render``:
the frame of what changed for that socket, in an app context as a socket's loop runs in its
request's), without the bytes going out. Printed, as
medians in milliseconds:
- ``page``: GET /g/<CODE> for a seated player;
- ``round trip``: one card play's POST (htmx) until its answer AND every seat's frame are
  made (publishing happens before the POST returns, after the move is committed);
- ``a card play's work``: that round trip in parts: the command (the table's actor
  checks, decides and commits it, and makes the five snapshots); drawing the change's
  public fragments and the mover's own, into the mover's answer (``Hub.fragments``); the
  rest of the request (the session cookie, CSRF, the rate limit, the form, the headers);
  and the four sockets' frames (the other seats' own fragments drawn, each frame made);
- ``a card play over the socket``: the same card arriving as a socket's message would
  (every other card of the run): the command (``TableService.handle``, no HTTP request
  and no answer) and the four sockets' frames, the mover's own among them.

What the production server adds to each move on top (HTTP parsing, four WebSocket sends
with per-message compression) is the bare app's work in ``bench.load``.

Imports: the web layer, the table service, storage and the core (``spades``).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import dataclasses
import queue
import random
import statistics
import tempfile
import time
from pathlib import Path

from spades.rules_config import Rules
from spades.storage import SeatRow
from spades.tables import Player
from spades.web import close_app, create_app
from spades.web.table.hub import Connection


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.render", description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=300, help="moves to time (default 300)")
    parser.add_argument("--pages", type=int, default=200, help="page renders to time (default 200)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        pool = cf.ThreadPoolExecutor(1)
        app = create_app({"DATABASE": str(Path(tmp) / "bench.db"), "SECRET_KEY": "bench",
                          "PLAY_DELAYS": {"slow": 0, "normal": 0, "fast": 0}, "BOT_POOL": pool,
                          "RESUME_TABLES": False, "TOURNEY_TICK_S": 0, "NOTICE_TICK_S": 0})
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
        hub = app.extensions["spades.hub"]
        conns = [Connection(code, pid, "127.0.0.1", "bench-token") for pid in players]
        for conn in conns:
            assert hub.open(conn) is None

        def drain() -> int:  # as each page's socket does: its frame of every change queued
            frames = 0
            with app.app_context():  # a socket's loop runs in its request's context, for the socket's life
                for conn in conns:
                    while True:
                        try:
                            item = conn.take(0)
                        except queue.Empty:
                            break
                        hub.render(item, conn)
                        frames += 1
            return frames

        drain()
        spent = {"command": 0.0, "answer": 0.0}  # the POST's parts, this move

        def timed(part: str, method):
            def run(*args, **kwargs):
                t = time.perf_counter()
                try:
                    return method(*args, **kwargs)
                finally:
                    spent[part] += time.perf_counter() - t
            return run

        service.handle = timed("command", service.handle)
        hub.fragments = timed("answer", hub.fragments)

        pages = []
        for _ in range(args.pages):
            t = time.perf_counter()
            response = clients[0].get(f"/g/{code}")
            pages.append(time.perf_counter() - t)
            assert response.status_code == 200

        rng = random.Random(1)
        trips, commands, answers, requests, frames = [], [], [], [], []
        sockets, socket_commands, socket_frames = [], [], []  # the cards that came as a socket's message
        for _ in range(args.moves * 40):  # bounded: a table that stops moving is an error, not a hang
            if len(trips) >= args.moves and len(sockets) >= args.moves:
                break
            v = service.snapshot(code, players[0]).view.match
            if v.phase == "hand_over":
                service.act(code, Player(players[0]), "deal_now", v.version)  # the host deals
                drain()
                continue
            seat = v.to_act
            assert seat is not None
            sv = service.snapshot(code, players[seat]).view
            action = rng.choice(sv.own.legal)
            spent.update(command=0.0, answer=0.0)
            if sv.match.phase == "playing" and len(sockets) < len(trips):  # this card comes over the socket
                t = time.perf_counter()
                service.act(code, Player(players[seat]), str(action), sv.match.version)
                acted = time.perf_counter()
                sent = drain()
                done = time.perf_counter()
                assert sent == len(conns), sent
                sockets.append(done - t)
                socket_commands.append(acted - t)
                socket_frames.append(done - acted)
                continue
            t = time.perf_counter()
            response = clients[seat].post(f"/g/{code}/act", data={"action": action, "version": sv.match.version},
                                          headers={"HX-Request": "true", "X-CSRF-Token": "bench-token"})
            posted = time.perf_counter()
            sent = drain()
            done = time.perf_counter()
            assert response.status_code == 200 and sent == len(conns), (response.status_code, sent)
            if sv.match.phase == "playing" and len(trips) < args.moves:
                trips.append(done - t)
                commands.append(spent["command"])
                answers.append(spent["answer"])
                requests.append(posted - t - spent["command"] - spent["answer"])
                frames.append(done - posted)
        else:
            raise RuntimeError(f"the table stopped moving after {len(trips) + len(sockets)} cards")
        close_app(app)
        pool.shutdown()

    print(f"table page render: median {statistics.median(pages) * 1000:.2f} ms over {len(pages)} GETs")
    print(f"card play round trip (POST until all 4 seats' frames are made): "
          f"median {statistics.median(trips) * 1000:.2f} ms, p95 "
          f"{sorted(trips)[int(len(trips) * 0.95)] * 1000:.2f} ms over {len(trips)} cards")

    def med(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:.2f} ms"

    print(f"a card play's work (medians): the command {med(commands)}, drawing the change and the mover's "
          f"answer {med(answers)}, the rest of the request {med(requests)}, the four sockets' frames {med(frames)}")
    print(f"a card play over the socket (the command and the four sockets' frames, no request): median "
          f"{med(sockets)} over {len(sockets)} cards: the command {med(socket_commands)}, the frames "
          f"{med(socket_frames)}")


if __name__ == "__main__":
    main()
