"""What the site holds about one person, read for their download (GET /me/data.json) and
the operator's `python -m spades account export`.

Every table that holds a person's id (``_move_player`` in ``people`` lists where a
person's rows live) or their email is read here:

- the account: ``users``, ``players``; sessions: ``signins`` (when each began, was last
  used and ended, and the browser; never ``sid``, the session's secret); sign-in codes:
  ``login_codes`` (never the hash nor the asking browser's id) and ``signin_guards``, by
  email;
- matches: ``match_seats`` (finished, seated or left to a bot), ``seats`` (the one being
  played), with ``matches``, ``actions``, ``deal_secrets`` and ``hands`` to rebuild each
  record, and the seat names as they were; ``tables`` they host, ``room_members``;
- talk: ``chat_lines`` they wrote, ``chat_silenced``, ``mutes``, ``blocks``, ``reports``
  (made by them; about them without who reported), ``invitations``; the people they
  played with (``seats`` of their tables, by the other's ``players`` name);
- ``ratings``, ``cutthroat_ratings``; ``turns``, ``notice_prefs``, ``push_subscriptions``
  (the endpoint only: the keys never leave here);
- circles: ``circle_members`` (with ``circles``), ``circle_tables`` they started;
  ``board_players`` and ``board_weeks`` they made; ``game_nights`` they made,
  ``night_answers``, ``night_presence``, ``night_sent``, ``night_reminded``,
  ``night_pairs``, ``night_mail_off``;
- tourneys: ``tourney_players`` (with ``tourneys``), ``tourney_ready``, ``tourneys`` they
  direct.

Tables keyed by a table or a seat alone (clocks, holds, seat clocks, analyses) hold nothing
about a person; circle results and night tables' seatings name them only as seated at
the matches above.
The device cookie is kept in the browser only: the site stores nothing of it.

Each read is a handful of queries whatever the number of matches (one for the matches,
one for all their moves, one for their seat names, one for their deals).

Imports: stdlib and the storage package's ``base`` and ``core``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .base import Db
from .core import StoreCore

# Columns that are secrets, or another person's, and never leave in a download.
_NEVER = frozenset({"sid", "code_hash", "asker", "p256dh", "auth", "session_gen", "token", "secret", "seed"})

# The matches a person sat in: (match id, seat, left to a bot). Its parameters: the
# person's id four times.
_MINE = (
    "SELECT ms.match_id AS id, ms.seat AS seat, 0 AS gone FROM match_seats ms "
    "WHERE ms.player_id = ? AND ms.kind = 'human' "
    "UNION SELECT ms.match_id, ms.seat, 1 FROM match_seats ms WHERE ms.left_player_id = ? "
    "UNION SELECT m.id, s.seat, 0 FROM seats s JOIN matches m ON m.table_code = s.table_code "
    "WHERE s.player_id = ? AND s.kind = 'human' AND m.finished = 0 "
    "UNION SELECT m.id, s.seat, 1 FROM seats s JOIN matches m ON m.table_code = s.table_code "
    "WHERE s.left_player_id = ? AND m.finished = 0"
)


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    """One match a person sat in, with all it takes to rebuild its record: the moves
    (seat, action text) in order and, for a fairly dealt match, its secret and each
    hand's contributions (``Store.fair_deals``'s shape; None for one dealt from its seed)."""

    id: int
    table_code: str
    number: int
    seat: int
    left: bool  # the person left the seat to a bot for good
    created: float
    rules: dict
    seed: str
    takebacks: int
    names: tuple[str, ...]  # the seat names as they were when it finished (as now while it runs)
    shared_deals: bool  # a table of boards or of a tourney: other tables may play its deals
    actions: tuple[tuple[int | None, str], ...]
    fair: tuple[str, dict[int, tuple[str, ...]]] | None


def _rows(db: Db, sql: str, params: list[Any]) -> list[dict[str, Any]]:
    """The rows as dicts, without the columns that never leave (``_NEVER``)."""
    return [{k: v for k, v in r.items() if k not in _NEVER} for r in db.query(sql, params)]


def _tuples(db: Db, sql: str, params: list[Any]) -> Iterator[tuple[Any, ...]]:
    """The rows as tuples in the columns' order: a person's moves are hundreds of
    thousands of rows, and a dict each is most of their cost. SQLite's cursor gives
    tuples; PostgreSQL's (``dict_row``) dicts, whose values keep the columns' order."""
    for r in db.execute(sql, params):
        yield tuple(r.values()) if isinstance(r, dict) else r


class ExportStore(StoreCore):
    """What the site holds about one person, read for their download (GET /me/data.json)
    and the operator's `python -m spades account export`."""

    def played_matches(self, person: str) -> list[PlayedMatch]:
        """Every match ``person`` sat in, oldest first: finished ones as seated when they
        finished, the ones being played as seated now, and those they left to a bot."""
        mine = [person] * 4
        with self._reading() as db:
            seats: dict[int, tuple[int, bool]] = {}
            for r in db.query(_MINE, mine):
                if r["id"] not in seats or not r["gone"]:  # a seat kept wins over one left
                    seats[r["id"]] = (r["seat"], bool(r["gone"]))
            matches = list(db.query(
                f"SELECT id, table_code, number, created, rules, seed, takebacks, "
                f"(EXISTS (SELECT 1 FROM board_tables b WHERE b.table_code = m.table_code) OR EXISTS "
                f"(SELECT 1 FROM tourney_matches t WHERE t.table_code = m.table_code)) AS shared FROM matches m "
                f"WHERE id IN (SELECT id FROM ({_MINE}) mine) ORDER BY created, id", mine))
            moves: dict[int, list[tuple[int | None, str]]] = defaultdict(list)
            for match_id, seat, action in _tuples(db, f"SELECT match_id, seat, action FROM actions WHERE match_id IN "
                                                      f"(SELECT id FROM ({_MINE}) mine) ORDER BY match_id, version",
                                                  mine):
                moves[match_id].append((seat, action))
            frozen: dict[int, dict[int, str]] = defaultdict(dict)
            for r in db.query(f"SELECT match_id, seat, name FROM match_seats WHERE match_id IN "
                              f"(SELECT id FROM ({_MINE}) mine)", mine):
                frozen[r["match_id"]][r["seat"]] = r["name"]
            now: dict[str, dict[int, str]] = defaultdict(dict)
            for r in db.query(f"SELECT s.table_code, s.seat, s.name FROM seats s WHERE s.table_code IN "
                              f"(SELECT m.table_code FROM matches m WHERE m.finished = 0 AND m.id IN "
                              f"(SELECT id FROM ({_MINE}) mine))", mine):
                now[r["table_code"]][r["seat"]] = r["name"]
            secrets: dict[tuple[str, int], str] = {}
            contributions: dict[tuple[str, int], dict[int, tuple[str, ...]]] = defaultdict(dict)
            for r in db.query(
                    f"SELECT d.table_code, d.match_number, d.secret, h.hand, h.contributions FROM deal_secrets d "
                    f"JOIN matches m ON m.table_code = d.table_code AND m.number = d.match_number "
                    f"LEFT JOIN hands h ON h.table_code = d.table_code AND h.match_number = d.match_number "
                    f"WHERE m.id IN (SELECT id FROM ({_MINE}) mine)", mine):
                key = (r["table_code"], r["match_number"])
                secrets[key] = r["secret"]
                if r["hand"] is not None:
                    contributions[key][r["hand"]] = tuple(json.loads(r["contributions"]))
        out = []
        for m in matches:
            key = (m["table_code"], m["number"])
            names = frozen.get(m["id"]) or now.get(m["table_code"], {})
            seat, left = seats[m["id"]]
            out.append(PlayedMatch(
                m["id"], m["table_code"], m["number"], seat, left, m["created"], json.loads(m["rules"]), m["seed"],
                int(m["takebacks"] or 0), tuple(names[s] for s in sorted(names)), bool(m["shared"]),
                tuple(moves.get(m["id"], ())),
                (secrets[key], contributions.get(key, {})) if secrets.get(key) else None))
        return out

    def held_about(self, person: str, email: str) -> dict[str, list[dict[str, Any]]]:
        """Everything else the site keeps about ``person`` (the account's id) and their
        ``email``, a list of rows per kind (see the module docstring), each row as a dict
        without secrets nor other people's ids."""
        p = [person]
        with self._reading() as db:
            return {
                "account": _rows(db, "SELECT u.email, u.name, u.emoji, u.created, "
                                     "(SELECT MAX(COALESCE(s.seen, s.created)) FROM signins s "
                                     "WHERE s.user_id = u.id) AS last_seen FROM users u WHERE u.id = ?", p),
                "player": _rows(db, "SELECT name, emoji, created FROM players WHERE id = ?", p),
                "sessions": _rows(db, "SELECT created, seen, ended, agent FROM signins WHERE user_id = ? "
                                      "ORDER BY created", p),
                "signin_codes": _rows(db, "SELECT created, expires, tries, used, voided, trusted FROM login_codes "
                                          "WHERE email = ? ORDER BY id", [email]),
                "signin_guards": _rows(db, "SELECT failures, locked_until, asked FROM signin_guards WHERE email = ?",
                                       [email]),
                "tables_hosted": _rows(db, "SELECT code, created, status FROM tables WHERE host = ? ORDER BY created",
                                       p),
                "rooms": _rows(db, "SELECT table_code, number, name, emoji, state, joined FROM room_members "
                                   "WHERE player_id = ? ORDER BY joined", p),
                "chat": _rows(db, "SELECT table_code, number, at, name, emoji, seat, room, kind, text FROM chat_lines "
                                  "WHERE person = ? ORDER BY at, table_code, number", p),
                "silenced": _rows(db, "SELECT table_code, at FROM chat_silenced WHERE person = ? ORDER BY at", p),
                "mutes": _named(db, "mutes", person),
                "blocks": _named(db, "blocks", person),
                "reports_made": _rows(db, "SELECT at, table_code, number, reported_name FROM reports "
                                          "WHERE reporter = ? ORDER BY id", p),
                "reports_about": _rows(db, "SELECT at, table_code, number, text FROM reports "
                                           "WHERE reported = ? ORDER BY id", p),
                "invitations": _rows(db, "SELECT table_code, by_name, at FROM invitations WHERE person = ? "
                                         "ORDER BY id", p),
                "played_with": _rows(db,
                    "SELECT COALESCE(NULLIF(pl.name, ''), MAX(o.name)) AS name, COUNT(DISTINCT t.code) AS tables, "
                    "MAX(t.created) AS last FROM seats me "
                    "JOIN seats o ON o.table_code = me.table_code AND o.player_id <> me.player_id "
                    "JOIN tables t ON t.code = me.table_code JOIN users u ON u.id = o.player_id "
                    "LEFT JOIN players pl ON pl.id = o.player_id "
                    "WHERE me.player_id = ? AND o.kind = 'human' GROUP BY o.player_id, pl.name ORDER BY last DESC", p),
                "ratings": _rows(db, "SELECT 'partners' AS kind, mu, sigma, matches, updated FROM ratings "
                                     "WHERE player_id = ? UNION ALL SELECT 'cutthroat', mu, sigma, matches, updated "
                                     "FROM cutthroat_ratings WHERE player_id = ?", p * 2),
                "turns": _rows(db, "SELECT table_code, seat, turn, since, deadline FROM turns WHERE person = ? "
                                   "ORDER BY since", p),
                "notice_settings": _rows(db, "SELECT mail_off, last_mail FROM notice_prefs WHERE person = ?", p),
                "push_subscriptions": _rows(db, "SELECT endpoint, created FROM push_subscriptions WHERE person = ? "
                                                "ORDER BY created", p),
                "circles": _rows(db, 'SELECT c.slug, c.name, m.role, m.state, m.joined, m."left" FROM circle_members m '
                                     "JOIN circles c ON c.slug = m.slug WHERE m.person = ? ORDER BY m.joined", p),
                "circle_tables_started": _rows(db, 'SELECT table_code, slug, season, created FROM circle_tables '
                                                   'WHERE "by" = ? ORDER BY created', p),
                "boards_played": _rows(db, "SELECT b.week, w.circle, c.name AS circle_name, b.table_code, b.at, "
                                           "w.boards, w.starts, w.ends FROM board_players b "
                                           "JOIN board_weeks w ON w.id = b.week "
                                           "LEFT JOIN circles c ON c.slug = w.circle "
                                           "WHERE b.person = ? ORDER BY b.at", p),
                "board_weeks_made": _rows(db, "SELECT id, circle, boards, starts, ends, created FROM board_weeks "
                                              "WHERE made_by = ? ORDER BY created", p),
                "nights_made": _rows(db, 'SELECT id, circle, "local", zone, weekly, state, created FROM game_nights '
                                         "WHERE made_by = ? ORDER BY created", p),
                "night_answers": _rows(db, 'SELECT a.night, g.circle, c.name AS circle_name, g."local", g.zone, '
                                           "a.occurrence, a.answer, a.at FROM night_answers a "
                                           "JOIN game_nights g ON g.id = a.night "
                                           "LEFT JOIN circles c ON c.slug = g.circle "
                                           "WHERE a.person = ? ORDER BY a.at", p),
                "night_presence": _rows(db, "SELECT circle, seen FROM night_presence WHERE person = ?", p),
                "night_notices_sent": _rows(db, "SELECT night, occurrence, kind, at FROM night_sent WHERE person = ? "
                                                "ORDER BY at", p),
                "night_reminded": _rows(db, "SELECT circle, at FROM night_reminded WHERE person = ?", p),
                "night_pairs": _rows(db, "SELECT n.circle, pl.name AS partner FROM night_pairs n "
                                         "LEFT JOIN players pl ON pl.id = CASE WHEN n.person = ? THEN n.partner "
                                         "ELSE n.person END WHERE n.person = ? OR n.partner = ?", p * 3),
                "night_mail_off": _rows(db, "SELECT circle, at FROM night_mail_off WHERE person = ?", p),
                "tourneys": _rows(db, "SELECT t.code, t.name, t.format, t.status, t.start_at, p.team_id, p.name AS "
                                      "registered_as, p.emoji, p.checked_in, p.joined FROM tourney_players p "
                                      "JOIN tourneys t ON t.code = p.tourney_code WHERE p.player_id = ? "
                                      "ORDER BY p.joined", p),
                "tourney_ready": _rows(db, 'SELECT tourney_code, "round", slot, at FROM tourney_ready '
                                           "WHERE player_id = ? ORDER BY at", p),
                "tourneys_directed": _rows(db, "SELECT code, name, format, status, created FROM tourneys "
                                               "WHERE director = ? ORDER BY created", p),
            }


def _named(db: Db, table: str, owner: str) -> list[dict[str, Any]]:
    """A person's mutes or blocks, each by the other person's name (never their id)."""
    return _rows(db, f"SELECT COALESCE(pl.name, '') AS name, x.at FROM {table} x "
                     "LEFT JOIN players pl ON pl.id = x.person WHERE x.owner = ? ORDER BY x.at", [owner])
