"""Why a bid: the hint's few words ("3: ♠A, ♥A and a ruff in clubs").

``explain(hand, bid)`` names where a hand's tricks come from, as a player counts them:
the top spades (the king with a guard, the queen with two), side aces, side kings with a
guard, spades beyond the third, and ruffs (a short side suit with spades to trump it). A
nil says what makes it safe. The words explain the bid; they do not make it (the Hard
bot's bid is the hint).

Imports: nothing beyond the standard library.
"""

from __future__ import annotations

SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
NAMES = {"H": "hearts", "D": "diamonds", "C": "clubs"}
MOST = 4  # reasons named at most: a few words


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def explain(hand: list[str], bid: int | str) -> str:
    """The bid and, after a colon, where its tricks come from (``hand``: card notations)."""
    suits: dict[str, list[str]] = {s: [c[0] for c in hand if c[1] == s] for s in "SHDC"}
    spades = suits["S"]
    if bid in ("nil", 0):
        high = [r for r in "AKQJT" if r in spades]
        aces = [s for s in "HDC" if "A" in suits[s]]
        if high or aces:
            return "nil: risky, with " + _join([SYMBOLS["S"] + ("10" if r == "T" else r) for r in high]
                                               + [SYMBOLS[s] + "A" for s in aces])
        return "nil: no spade above the 9 and no side ace"
    reasons = [SYMBOLS["S"] + rank for rank, guard in (("A", 1), ("K", 2), ("Q", 3))
               if rank in spades and len(spades) >= guard]
    reasons += [SYMBOLS[s] + "A" for s in "HDC" if "A" in suits[s]]
    reasons += [SYMBOLS[s] + "K" for s in "HDC" if "K" in suits[s] and len(suits[s]) >= 2]
    if len(spades) > 3:
        extra = len(spades) - 3
        reasons.append("a long spade" if extra == 1 else f"{extra} long spades")
    trumps = len(spades) - 1  # a ruff needs a spade to spare for it
    for s in sorted("HDC", key=lambda s: len(suits[s])):
        if len(suits[s]) <= 1 and trumps > 0:
            reasons.append(f"a ruff in {NAMES[s]}")
            trumps -= 1
    if not reasons:
        return f"{bid}: no sure trick, so a low bid"
    return f"{bid}: " + _join(reasons[:MOST])
