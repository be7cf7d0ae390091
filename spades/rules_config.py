"""The table settings of RULES.md as one immutable value, passed in and never global.

Imports: stdlib only.

>>> Rules.from_dict({"target": 300}).target, Rules().end
(300, 'target')
"""

from __future__ import annotations

import functools
from dataclasses import Field, asdict, dataclass, field, fields

# The values the settings may take (the options forms offer them: ``spades.web.options``).
MODES = ("bidding", "no_bidding")
ENDS = ("target", "hands")
CLOCK_TEMPOS = ("relaxed", "normal", "fast")  # a turn clock at each of these paces
TURN_TEMPOS = ("hours-12", "days-1", "days-3")  # a move may take this long: a turn-based table
UNTIMED = "untimed"  # friends who chose to play without a clock (also turn-based)
TURN_BASED = TURN_TEMPOS + (UNTIMED,)  # tables that last days: people come back when it is their turn
FRIENDS_TEMPOS = CLOCK_TEMPOS + TURN_TEMPOS + (UNTIMED,)  # the tempos a table of friends may choose
NO_CLOCK = "off"  # the tempo of a table without clocks (a practice table)
TEMPOS = FRIENDS_TEMPOS + (NO_CLOCK,)
PLAY_SPEEDS = ("slow", "normal", "fast")
MAX_TARGET = 10000
MAX_HANDS = 99  # safety cap: no match goes past 99 hands


class RulesError(ValueError):
    """A rules object with an unknown key or value."""


@dataclass(frozen=True, slots=True)
class Rules:
    """Every setting of RULES.md with its default."""

    # each setting with its default and the values it may take: one of a few words, a
    # whole number from 1 up to a most, or (a bool) true or false
    mode: str = field(default="bidding", metadata={"one_of": MODES})
    end: str = field(default="target", metadata={"one_of": ENDS})
    target: int = field(default=500, metadata={"most": MAX_TARGET})
    hands: int = field(default=5, metadata={"most": MAX_HANDS})
    bag_penalty: bool = True
    blind_nil: bool = False
    set_scores_zero: bool = False
    tempo: str = field(default="normal", metadata={"one_of": TEMPOS})
    play_speed: str = field(default="normal", metadata={"one_of": PLAY_SPEEDS})

    def __post_init__(self) -> None:
        # in the order the fields are declared: the first value that is not allowed is told
        for f in fields(self):
            problem = _problem(f, getattr(self, f.name))
            if problem:
                raise RulesError(problem)

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


def _problem(f: Field, value: object) -> str | None:
    """What is wrong with a setting's value, by what its field declares; None when it is allowed."""
    if "one_of" in f.metadata:
        allowed = f.metadata["one_of"]
        return None if value in allowed else f"{f.name} must be one of {', '.join(allowed)}"
    if f.type == "bool":  # the annotation, a string here
        return None if type(value) is bool else f"{f.name} must be true or false"
    # a bool is an int to Python, and not a whole number here
    if type(value) is not int or not 1 <= value <= f.metadata["most"]:
        return f"{f.name} must be a positive whole number"
    return None


@functools.lru_cache(maxsize=256)
def _game_keys(rules: Rules) -> dict:
    d = asdict(rules)
    del d["tempo"], d["play_speed"]
    return d
