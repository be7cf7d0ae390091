"""Why a bid: the hint's few words ("3: ♠A, ♥A and a ruff in clubs").

``explain(hand, bid)`` names where a hand's tricks come from, as a player counts them:
the top spades (the king with a guard, the queen with two), side aces, side kings with a
guard, spades beyond the third, and ruffs (a short side suit with spades to trump it). A
nil says what makes it safe. The words explain the bid; they do not make it (the Hard
bot's bid is the hint). At a table with trumps above the ace of spades (the jokers, the
jjdd 2 of diamonds: ``above``, highest first) those are spades too, named first, and each
trump from the top needs as many trumps held as its place to be a sure trick (the ace
second from the top wants a guard, as the king does at a standard table).

Imports: nothing beyond the standard library.
"""

from __future__ import annotations

SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
NAMES = {"H": "hearts", "D": "diamonds", "C": "clubs"}
MOST = 4  # reasons named at most: a few words


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _top_name(card: str) -> str:
    """A trump above the ace as a player names it: BJ, LJ, 2♦."""
    return card if card in ("BJ", "LJ") else card[0] + SYMBOLS[card[1]]


def explain(hand: list[str], bid: int | str, above: tuple[str, ...] = ()) -> str:
    """The bid and, after a colon, where its tricks come from (``hand``: card notations;
    ``above``: the table's trumps above the ace of spades, highest first)."""
    tops = [c for c in above if c in hand]
    suits: dict[str, list[str]] = {s: [c[0] for c in hand if c[1] == s and c not in above] for s in "SHDC"}
    spades = tops + suits["S"]  # the trumps held: the top ones (whole notations), then spades by rank
    if bid in ("nil", 0):
        high = [r for r in "AKQJT" if r in spades]
        aces = [s for s in "HDC" if "A" in suits[s]]
        if tops or high or aces:
            return "nil: risky, with " + _join([_top_name(c) for c in tops]
                                               + [SYMBOLS["S"] + ("10" if r == "T" else r) for r in high]
                                               + [SYMBOLS[s] + "A" for s in aces])
        return "nil: no spade above the 9 and no side ace"
    order = [*above, "A", "K", "Q"][:len(above) + 3]  # the trumps from the top, a sure trick by place
    reasons = [(_top_name(card) if card in above else SYMBOLS["S"] + card) for place, card in enumerate(order)
               if card in spades and len(spades) >= place + 1]
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
