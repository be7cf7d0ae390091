"""A benchmark (not a test): Download my data for a person with many finished matches.

    python -m bench.export [--matches 1000] [--hands 5] [--runs 5]

A temporary SQLite database gets one account that sat in ``--matches`` finished matches
(``--hands`` hands each, fairly dealt, with three bots; some other person's matches beside
them), stored as the table service stores them: each table and its first match, then the
match's moves in one transaction. A few distinct matches are played at random and their
moves reused at every table (same seed, same secret, same moves: the same valid match),
so building the database takes seconds. Then ``export_account`` runs ``--runs`` times.
Printed, as medians in milliseconds: the whole export (``spades.account_export``: the
document as GET /me/data.json serves it, before JSON), its parts (reading the rows; the
records rebuilt from the moves), and the JSON text's size.

Imports: ``spades`` (storage, the rules, fairness, the export service).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from spades.account_export import export_account, match_entry
from spades.fairness import FairDeals
from spades.rules import DEAL, Match
from spades.rules_config import Rules
from spades.storage import SaveMove, SeatRow, Store

DISTINCT = 8  # matches played at random; every table replays one of them
PERSON, EMAIL = "bench-person", "bench@example.com"


def played(rules: Rules, n: int) -> list[tuple[str, str, list[tuple[int | None, str]]]]:
    """``n`` matches played at random to their end: (seed, deal secret, moves)."""
    out = []
    for i in range(n):
        seed, secret, rng = f"bench-{i}", f"{i:064x}", random.Random(i)
        match = Match(rules, seed, deals=FairDeals(secret, {}, shape=rules.shape))
        moves: list[tuple[int | None, str]] = []
        while not match.finished:
            if match.phase == "hand_over":
                match.next_hand()
                moves.append((None, DEAL))
                continue
            seat = match.to_act
            action = rng.choice(match.legal_actions(seat))
            match.apply(seat, action)
            moves.append((seat, str(action)))
        out.append((seed, secret, moves))
    return out


def fill(store: Store, matches: int, rules: Rules) -> None:
    """The person's ``matches`` finished matches (seat 0, or 2 every other table) and a
    tenth as many of another person's."""
    games = played(rules, DISTINCT)
    store.sign_in(EMAIL, PERSON, None, "Bench", "🦊", time.time())
    for t in range(matches + matches // 10):
        who = PERSON if t < matches else "someone-else"
        mine = 2 * (t % 2)
        seats = [SeatRow(s, "human" if s == mine else "bot", who if s == mine else None,
                         "Bench" if s == mine else f"Bot{s}") for s in range(rules.shape.players)]
        seed, secret, moves = games[t % DISTINCT]
        code = f"B{t:05d}"
        store.create_table(code, who, {"kind": "practice", "level": "normal"}, seats, seed, rules.to_dict(),
                           deal_secret=secret)
        match_id = store.load_table(code).match.id  # type: ignore[union-attr]
        last = len(moves)
        store.commit([SaveMove(match_id, v, seat, text, finished=v == last)
                      for v, (seat, text) in enumerate(moves, start=1)])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.export", description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000, help="the person's finished matches (default 1000)")
    parser.add_argument("--hands", type=int, default=5, help="hands per match (default 5)")
    parser.add_argument("--runs", type=int, default=5, help="exports to time (default 5)")
    args = parser.parse_args(argv)
    rules = Rules(end="hands", hands=args.hands)

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(str(Path(tmp) / "bench.db"))
        t = time.perf_counter()
        fill(store, args.matches, rules)
        print(f"database: {args.matches} finished matches of {args.hands} hands in "
              f"{time.perf_counter() - t:.1f} s")
        totals, reads, builds, size = [], [], [], 0
        for _ in range(args.runs):
            t = time.perf_counter()
            document = export_account(store, EMAIL)
            totals.append(time.perf_counter() - t)
            assert document is not None and len(document["matches"]) == args.matches
            t = time.perf_counter()
            rows = store.played_matches(PERSON)
            store.held_about(PERSON, EMAIL)
            reads.append(time.perf_counter() - t)
            t = time.perf_counter()
            for m in rows:
                match_entry(m)
            builds.append(time.perf_counter() - t)
            size = len(json.dumps(document))
        store.close()

    def ms(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:8.1f} ms"

    print(f"export (median of {args.runs}): {ms(totals)}")
    print(f"  reading the rows:         {ms(reads)}")
    print(f"  rebuilding the records:   {ms(builds)}")
    print(f"JSON: {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
