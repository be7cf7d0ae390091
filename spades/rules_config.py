"""The table settings of RULES.md as one immutable value, passed in and never global.

Imports: stdlib only.

>>> Rules.from_dict({"target": 300}).target, Rules().end
(300, 'target')
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, fields

MODES = ("bidding", "no_bidding")
ENDS = ("target", "hands")
TEMPOS = ("relaxed", "normal", "fast", "off")
PLAY_SPEEDS = ("slow", "normal", "fast")
MAX_HANDS = 99  # safety cap: no match goes past 99 hands


class RulesError(ValueError):
    """A rules object with an unknown key or value."""


@dataclass(frozen=True, slots=True)
class Rules:
    """Every setting of RULES.md with its default."""

    mode: str = "bidding"
    end: str = "target"
    target: int = 500
    hands: int = 5
    bag_penalty: bool = True
    blind_nil: bool = False
    set_scores_zero: bool = False
    tempo: str = "normal"
    play_speed: str = "normal"

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise RulesError(f"mode must be one of {', '.join(MODES)}")
        if self.end not in ENDS:
            raise RulesError(f"end must be one of {', '.join(ENDS)}")
        for name in ("target", "hands"):
            value = getattr(self, name)
            if type(value) is not int or not 1 <= value <= (10000 if name == "target" else MAX_HANDS):
                raise RulesError(f"{name} must be a positive whole number")
        for name in ("bag_penalty", "blind_nil", "set_scores_zero"):
            if type(getattr(self, name)) is not bool:
                raise RulesError(f"{name} must be true or false")
        if self.tempo not in TEMPOS:
            raise RulesError(f"tempo must be one of {', '.join(TEMPOS)}")
        if self.play_speed not in PLAY_SPEEDS:
            raise RulesError(f"play_speed must be one of {', '.join(PLAY_SPEEDS)}")

    @classmethod
    def from_dict(cls, data: dict | None) -> Rules:
        """Rules from a JSON object; missing keys take their defaults, unknown keys are ignored."""
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise RulesError("rules must be a JSON object")
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def to_dict(self) -> dict:
        """The game keys of RECORD.md (tempo and play speed are table settings, left out).
        A new dict each call (every seat view carries one), copied from one made once."""
        return dict(_game_keys(self))

    @property
    def bidding(self) -> bool:
        return self.mode == "bidding"


@functools.lru_cache(maxsize=256)
def _game_keys(rules: Rules) -> dict:
    d = asdict(rules)
    del d["tempo"], d["play_speed"]
    return d
