"""The bots' seat views and the heuristic bot."""

from __future__ import annotations

from spades.bots import heuristic_card, knowledge, policy
from spades.cards import Card, mask_of
from spades.rules import Rules, legal_mask


def view(seat: int, hand: str, bids: list, tricks: list[tuple[int, str]] = (), trick: tuple[int, str] | None = None,
         dealer: int = 3, scores=(0, 0), bags=(0, 0), rules: dict | None = None) -> dict:
    """A seat view for a scenario: ``hand`` and cards as space-separated text; ``tricks`` as
    (leader, cards) with the winners worked out; ``legal`` computed by the rules."""
    def cards(text: str) -> list[int]:
        return [int(Card.parse(t)) for t in text.split()]

    taken = [0, 0, 0, 0]
    done = []
    broken = False
    for leader, text in tricks:
        cs = cards(text)
        winner = (leader + policy.trick_winner(cs)) % 4
        taken[winner] += 1
        done.append({"leader": leader, "cards": text.split(), "winner": winner})
        broken = broken or any(c < 13 for c in cs)
    held = mask_of(cards(hand))
    cur = cards(trick[1]) if trick and trick[1] else []
    legal = legal_mask(held, cur, broken)
    rules_obj = Rules.from_dict(rules or {})
    leader = trick[0] if trick else (dealer + 1) % 4
    return {
        "seat": seat, "rules": rules_obj.to_dict(), "hand_number": 1, "dealer": dealer,
        "hand": hand.split(), "bids": list(bids), "blind": [False] * 4, "tricks": done,
        "trick": {"leader": leader, "cards": trick[1].split() if trick and trick[1] else []},
        "taken": taken, "spades_broken": broken, "scores": list(scores), "bags": list(bags),
        "to_act": seat, "legal": [str(Card(c)) for c in range(52) if legal >> c & 1], "version": 1,
    }


def heuristic(v: dict) -> str:
    """Normal's card by its heuristics alone: its card with no nil of an opponent alive,
    and the card its search starts from (and keeps on a near-tie) while one is."""
    return str(Card(heuristic_card(knowledge.read(v))))
