"""The load benchmark still runs end to end against the production server (tiny sizes).

Two tables, a second a phase, twenty idle sockets read for a second: the real gunicorn server (site and
bare app, one after the other), the real pages, sockets and moves. Its figures are not
checked, only that moves went through both phases on both servers without errors or
lost updates, and that the idle sockets stayed open.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # where ``python -m bench.load`` runs


def test_the_load_benchmark_plays_both_phases_and_holds_idle_sockets():
    # its own process, as it is run: the benchmark's client has an event loop of its own
    out = subprocess.run([sys.executable, "-m", "bench.load", "--tables", "2", "--seconds", "1", "--big-tables", "3",
                          "--idle-sockets", "20", "--idle-seconds", "1", "--one-address", "5"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 2, lines
    moves, idle = (json.loads(line) for line in lines)

    assert moves["bench"] == "load" and moves["tables"] == 2 and moves["frame_bytes"] > 0
    closed, paced = moves["closed"], moves["paced"]
    assert closed["site_moves_per_s"] > 0 and closed["bare_moves_per_s"] > 0
    assert closed["site_p50_ms"] is not None and closed["bare_p99_ms"] is not None
    assert (closed["site_errors"], closed["site_lost"], closed["bare_errors"], closed["bare_lost"]) == (0, 0, 0, 0)
    assert paced["site_delivered_per_s"] > 0 and paced["bare_delivered_per_s"] > 0
    assert (paced["errors"], paced["lost"], paced["bare_errors"], paced["bare_lost"]) == (0, 0, 0, 0)
    assert moves["frame_p95_bytes"] >= moves["frame_bytes"] > 0 and moves["bytes_per_move_per_socket"] > 0
    for phase, tables in (("paced_view", 2), ("paced_big", 3)):  # each mover reads view.json; more tables
        assert moves[phase]["tables"] == tables and moves[phase]["site_delivered_per_s"] > 0, moves[phase]
        assert (moves[phase]["errors"], moves[phase]["lost"]) == (0, 0)

    assert idle["bench"] == "idle" and idle["sockets"] == 20 and idle["held"] == 20
    assert idle["home_p50_ms"] is not None and idle["home_failed"] == 0 and idle["worker_rss_mb"] > 0
    one = idle["one_address"]
    assert one["opened"] == 5 and one["accepted"] + one["refused"] == 5 and one["accepted"] >= 1
    assert idle["site_up"] is True
