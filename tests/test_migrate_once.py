"""Several processes opening a new SQLite file at once, as the workers of a fresh cluster
do: every one of them starts, and the migrations are applied once."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OPEN_AT = """
import sys, time
from spades.storage import Store
at = float(sys.argv[2])
while time.time() < at:  # every process opens the file at the same moment
    pass
store = Store(sys.argv[1])
print(len(store.migrations()))
"""


def test_workers_starting_together_on_a_new_file_all_start_and_migrate_once(tmp_path):
    for round_ in range(2):
        path = tmp_path / f"fresh-{round_}.db"
        at = time.time() + 1.0  # after every interpreter has imported the package
        procs = [subprocess.Popen([sys.executable, "-c", OPEN_AT, str(path), str(at)], cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(6)]
        results = [p.communicate(timeout=60) + (p.returncode,) for p in procs]
        for _, err, code in results:
            assert code == 0, err[-2000:]
        counts = {int(out) for out, _, _ in results}
        assert len(counts) == 1  # each sees every migration, applied once
        with sqlite3.connect(path) as db:
            names = [r[0] for r in db.execute("SELECT name FROM _sqlite_migrations")]
        assert len(names) == len(set(names)) == counts.pop()
