"""A tiny outside bot speaking the JSON-lines protocol of BOTS.md, as an example to copy.

Run it as ``python -m spades.bots.example_bot``; in the arena:
``python -m spades arena --team0 "cmd:python -m spades.bots.example_bot" --team1 easy``.
It looks at its cards, bids 3 (or the nearest legal bid), and plays its lowest legal card
(a joker counts above an ace).
It uses nothing but the view it is sent, and the stdlib.

Two options make it misbehave, for the arena's tests: ``--garbage`` answers text that is
not JSON, ``--sleep SECONDS`` waits that long before every answer.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

RANKS = "23456789TJQKA"
JOKERS = ("LJ", "BJ")  # the house rules' jokers, above every ace


def rank(card: str) -> int:
    """A card's rank for picking the lowest: 0 for a two up to 14 for the big joker."""
    return len(RANKS) + JOKERS.index(card) if card in JOKERS else RANKS.index(card[0])


def answer(view: dict) -> dict:
    """The answer to one ``act`` request."""
    legal = view["legal"]
    if "look" in legal:
        return {"look": True}
    bids = [b for b in legal if isinstance(b, int)]
    if bids:
        return {"bid": min(bids, key=lambda b: abs(b - 3))}
    if "nil" in legal:
        return {"bid": "nil"}
    return {"card": min(legal, key=rank)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m spades.bots.example_bot")
    p.add_argument("--garbage", action="store_true", help="answer something that is not JSON")
    p.add_argument("--sleep", type=float, default=0.0, help="seconds to wait before each answer")
    args = p.parse_args(argv)
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        if request.get("type") == "end":
            return 0
        if request.get("type") != "act":
            continue
        if args.sleep:
            time.sleep(args.sleep)
        out = "this is not json" if args.garbage else json.dumps(answer(request["view"]))
        sys.stdout.write(out + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
