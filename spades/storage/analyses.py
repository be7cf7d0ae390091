"""Analyses of finished matches (``analyses``): written once per table and match number
when the analysis is done, read by the analysis page.

Imports: stdlib and the storage package's ``core``.
"""

from __future__ import annotations

import json
import time

from .core import StoreCore


class AnalysisStore(StoreCore):
    """A finished match's analysis: its hands as JSON; and who played the match."""

    def match_players(self, match_id: int) -> frozenset[str]:
        """The people who played a finished match: each seat's person when it finished,
        and anyone who left a seat to a bot during it."""
        with self._reading() as db:
            rows = list(db.query("SELECT player_id, left_player_id FROM match_seats WHERE match_id = ?", [match_id]))
        return frozenset(p for r in rows for p in (r["player_id"], r["left_player_id"]) if p)

    def analysis(self, code: str, number: int) -> list | None:
        """The stored analysis of match ``number`` of table ``code``, or None."""
        with self._reading() as db:
            rows = list(db.query("SELECT data FROM analyses WHERE table_code = ? AND match_number = ?",
                                 [code, number]))
        return json.loads(rows[0]["data"]) if rows else None

    def put_analysis(self, code: str, number: int, hands: list) -> None:
        """Store an analysis; one that is there already (another process's) is kept."""
        with self.transaction() as db:
            db.execute("INSERT INTO analyses (table_code, match_number, data, created) VALUES (?, ?, ?, ?) "
                       "ON CONFLICT DO NOTHING", [code, number, json.dumps(hands, separators=(",", ":")),
                                                  time.time()])
