"""Computer players. Entry point: ``choose(view, level, seed)`` (placeholder: random legal)."""

from __future__ import annotations

import random

LEVELS = ("easy", "normal", "hard")


def choose(view: dict, level: str = "normal", seed: int = 0, budget_s: float | None = None) -> int | str:
    """The action (JSON form) a bot of ``level`` takes for the seat view ``view``."""
    return random.Random(f"{seed}/{view['version']}").choice(view["legal"])


def hint(view: dict) -> int | str:
    """The bid the Hard bot would make for this seat."""
    return 3
