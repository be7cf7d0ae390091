"""Retention: deleting what the site keeps only for a while (``spades.retention`` says how
long): used-up sign-in codes, idle sign-in guards, ended sessions, reports, and guest
tables (no account ever sat, hosted, waited or spoke there) with every row of theirs.

Imports: stdlib and the storage package's ``base`` and ``core``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .base import Db
from .core import StoreCore

_BATCH = 200  # tables deleted per statement: a long list of guest tables goes in parts

# A table's rows, by the key that names them (matches' rows first: they name the matches)
_MATCH_ROWS = ("actions", "clocks", "seat_clocks", "rated_matches", "match_seats")
_TABLE_ROWS = ("matches", "hands", "deal_secrets", "analyses", "chat_lines", "chat_silenced", "invitations",
               "turns", "holds", "room_members", "seats")

# a table an account touched, or that belongs to a circle, a week of boards, a night or a
# tourney: never a guest table (each line: codes, for ``t.code NOT IN`` / ``EXISTS``)
_KEPT = """
    t.code NOT IN (SELECT table_code FROM circle_tables)
    AND t.code NOT IN (SELECT table_code FROM board_tables)
    AND t.code NOT IN (SELECT code FROM night_tables)
    AND t.code NOT IN (SELECT table_code FROM tourney_matches WHERE table_code IS NOT NULL)
    AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = t.host)
    AND NOT EXISTS (SELECT 1 FROM seats s JOIN users u ON u.id = s.player_id OR u.id = s.left_player_id
                    WHERE s.table_code = t.code)
    AND NOT EXISTS (SELECT 1 FROM matches m JOIN match_seats ms ON ms.match_id = m.id
                    JOIN users u ON u.id = ms.player_id OR u.id = ms.left_player_id WHERE m.table_code = t.code)
    AND NOT EXISTS (SELECT 1 FROM room_members r JOIN users u ON u.id = r.player_id WHERE r.table_code = t.code)
    AND NOT EXISTS (SELECT 1 FROM chat_lines c JOIN users u ON u.id = c.person WHERE c.table_code = t.code)
"""
# nothing has happened there since the cut-off (?, three times): no move, no line, no one joining
_IDLE = """
    t.created < ?
    AND NOT EXISTS (SELECT 1 FROM matches m JOIN actions a ON a.match_id = m.id
                    WHERE m.table_code = t.code AND a.at >= ?)
    AND NOT EXISTS (SELECT 1 FROM chat_lines c WHERE c.table_code = t.code AND c.at >= ?)
    AND NOT EXISTS (SELECT 1 FROM room_members r WHERE r.table_code = t.code AND r.joined >= ?)
"""


@dataclass(frozen=True, slots=True)
class Cutoffs:
    """Epoch seconds before which each kind of row goes."""

    codes: float  # a sign-in code that expired before it
    guards: float  # an address's guard not asked for, nor closed, since
    sessions: float  # a session signed out before it
    reports: float  # a report made before it
    tables: float  # a guest table with nothing done there since


@dataclass(frozen=True, slots=True)
class Purged:
    """How many of each went."""

    codes: int = 0
    guards: int = 0
    sessions: int = 0
    reports: int = 0
    tables: int = 0


def _nothing(code: str) -> bool:
    return False


def _delete_tables(db: Db, codes: list[str]) -> None:
    marks = ", ".join("?" for _ in codes)
    matches = f"SELECT id FROM matches WHERE table_code IN ({marks})"
    for name in _MATCH_ROWS:
        db.execute(f"DELETE FROM {name} WHERE match_id IN ({matches})", codes)
    for name in _TABLE_ROWS:
        db.execute(f"DELETE FROM {name} WHERE table_code IN ({marks})", codes)
    db.execute(f"DELETE FROM rooms WHERE code IN ({marks})", codes)
    db.execute(f"DELETE FROM tables WHERE code IN ({marks})", codes)


class RetentionStore(StoreCore):
    """Deleting what is kept only for a while."""

    def guest_tables_idle(self, before: float) -> list[str]:
        """The codes of guest tables with nothing done there since ``before``."""
        with self._reading() as db:
            return [r["code"] for r in db.query(f"SELECT t.code FROM tables t WHERE {_IDLE} AND {_KEPT} "
                                                "ORDER BY t.created", [before] * 4)]

    def purge_before(self, cut: Cutoffs, held: Callable[[str], bool] = _nothing) -> Purged:
        """Delete each kind of row older than its cut-off; how many went. A guest table
        ``held`` says is in use (a process holds it in memory) stays for a later purge."""
        with self.transaction() as db:
            codes = db.execute("DELETE FROM login_codes WHERE expires < ?", [cut.codes]).rowcount
            guards = db.execute("DELETE FROM signin_guards WHERE locked_until < ? AND COALESCE(asked, 0) < ?",
                                [cut.guards, cut.guards]).rowcount
            sessions = db.execute("DELETE FROM signins WHERE ended IS NOT NULL AND ended < ?",
                                  [cut.sessions]).rowcount
            reports = db.execute("DELETE FROM reports WHERE at < ?", [cut.reports]).rowcount
        idle, tables = [code for code in self.guest_tables_idle(cut.tables) if not held(code)], 0
        for start in range(0, len(idle), _BATCH):
            batch = idle[start:start + _BATCH]
            with self.transaction() as db:  # checked again inside: a table someone came back to stays
                part = [r["code"] for r in db.query(
                    f"SELECT t.code FROM tables t WHERE t.code IN ({', '.join('?' for _ in batch)}) "
                    f"AND {_IDLE} AND {_KEPT}", [*batch, *[cut.tables] * 4])]
                if part:
                    _delete_tables(db, part)
                    tables += len(part)
        return Purged(codes, guards, sessions, reports, tables)
