"""A table's options, each declared once, and everything derived from the declarations.

Each ``Option`` says what one form field chooses: its name (a contract: outside checks post
it), its label, its choices with the settings each one makes, the words the rules line
says of it, and the message when a posted value is not one of its choices. From these
come the options form (``lobby/_options.html`` loops over ``OPTIONS``; the home page's
practice form picks some by name), the parsing of a posted form (``table_options``), the
values a form shows for a table (``option_values``), the rules line (``rules_line``) and
the link to the rules page that shows a table's options (``rules_url``).

The allowed values of the rules themselves live with ``Rules`` (``spades.rules_config``),
the bots' levels with the table service (``spades.tables.LEVELS``); the ends a table may
choose (``TARGETS``, ``HANDS``) live here.

Imports: the core (``spades.rules_config``) and ``spades.tables``; never Flask.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Literal
from urllib.parse import urlencode

from ..bots import DEFAULT_LEVEL
from ..rules_config import CLOCK_TEMPOS, FRIENDS_TEMPOS, MODES, NO_CLOCK, PLAY_SPEEDS, TURN_TEMPOS, UNTIMED, Rules
from ..tables import LEVELS

TARGETS = (200, 250, 300, 500)  # points a match may be played to
# turn-based tempos, as the options form and the rules line say them
TURN_WORDS = {"hours-12": "12 hours a move", "days-1": "1 day a move", "days-3": "3 days a move"}
HANDS = (5, 9, 11)  # ... or a number of hands


@dataclass(frozen=True, slots=True)
class Choice:
    """One value of an option: what the form posts, what it shows, what it sets."""

    value: str
    label: str
    settings: Mapping[str, Any]  # Rules fields, or the table's bots' ``level``


@dataclass(frozen=True, slots=True)
class Option:
    """One field of the options form and what it means for the table."""

    name: str  # the form field
    key: str  # the setting the rules line and the form's current value are read from
    kind: Literal["one_of", "select", "on_off"]  # radio buttons, a drop-down list, a checkbox
    label: str
    choices: tuple[Choice, ...]  # empty for on/off: checked (``on``) sets ``key`` to True
    message: str  # the answer to a value that is not one of the choices
    # the rules line's words by the value of ``key``, formatted with the table's settings;
    # a value missing here is not mentioned (the usual ones go without saying)
    words: Mapping[Any, str]
    line: int  # its place in the rules line
    checked: int  # its place in the order a posted form is checked (its first bad value is told)

    def parse(self, posted: str | None) -> Mapping[str, Any] | None:
        """The settings a posted value makes; None when it is not one of the choices."""
        if self.kind == "on_off":
            return {self.key: posted == "on"}
        for choice in self.choices:
            if choice.value == posted:
                return choice.settings
        return None

    def value(self, settings: Mapping[str, Any]) -> str:
        """The form's value for a table with these settings ("" when none of the choices)."""
        if self.kind == "on_off":
            return "on" if settings.get(self.key) else ""
        for choice in self.choices:
            if all(settings.get(k) == v for k, v in choice.settings.items()):
                return choice.value
        return ""

    def said(self, settings: Mapping[str, Any]) -> str:
        """What the rules line says of this option ("" for nothing)."""
        return self.words.get(settings.get(self.key), "").format(**settings)


def _either(values: tuple[object, ...]) -> str:
    """``a, b or c``."""
    words = [str(v) for v in values]
    return f"{', '.join(words[:-1])} or {words[-1]}"


def _one_of(name: str, label: str, values: tuple[str, ...], message: str, line: int, checked: int,
            key: str | None = None, words: str | Mapping[str, str] = "") -> Option:
    """Radio buttons over ``values`` (``no_bidding`` shows as "No bidding"), each setting
    ``key`` (the field's name unless told) to itself; said in the rules line as ``words``
    (one format for every value, or by value)."""
    key = key or name
    choices = tuple(Choice(v, v.replace("_", " ").capitalize(), {key: v}) for v in values)
    said = words if isinstance(words, Mapping) else {v: words for v in values if words}
    return Option(name, key, "one_of", label, choices, message, said, line, checked)


def _on_off(name: str, label: str, words: str, line: int) -> Option:
    """A checkbox for the Rules field ``name``, said in the rules line when on."""
    return Option(name, name, "on_off", label, (), "", {True: words}, line, checked=line)


_ENDS = tuple(Choice(f"target-{t}", f"at {t} points", {"end": "target", "target": t}) for t in TARGETS) + \
    tuple(Choice(f"hands-{h}", f"after {h} hands", {"end": "hands", "hands": h}) for h in HANDS)

# In the order of the options form. The rules line begins with the bots' level (``line``),
# and a posted form is checked in the order it always was (``checked``).
OPTIONS: tuple[Option, ...] = (
    _one_of("mode", "Rules", MODES, "Choose bidding or no-bidding rules.", line=3, checked=2,
            words={"no_bidding": "no bidding"}),
    Option("end", "end", "select", "The match ends", _ENDS,
           f"Choose how the match ends: a target of {_either(TARGETS)} points, or {_either(HANDS)} hands.",
           {"target": "to {target}", "hands": "{hands} hands"}, line=4, checked=4),
    _on_off("bag_penalty", "Bag penalty (−100 for every 10 bags)", "bag penalty", line=5),
    _on_off("blind_nil", "Blind nil (bid nil before looking, ±200)", "blind nil", line=6),
    _on_off("set_scores_zero", "A set contract scores zero (not minus)", "a set scores zero", line=7),
    # a table without clocks (one person's: ``NO_CLOCK``) says nothing of its tempo; friends
    # who chose to play untimed see it said
    Option("tempo", "tempo", "one_of", "Tempo (with friends)",
           tuple(Choice(v, v.capitalize(), {"tempo": v}) for v in CLOCK_TEMPOS) +
           tuple(Choice(v, TURN_WORDS[v].capitalize(), {"tempo": v}) for v in TURN_TEMPOS) +
           (Choice(UNTIMED, "No clock", {"tempo": UNTIMED}),),
           f"Choose a tempo: {_either(FRIENDS_TEMPOS)}.",
           {**{v: "{tempo} tempo" for v in CLOCK_TEMPOS}, **TURN_WORDS, UNTIMED: "no clock"}, line=2, checked=3),
    _one_of("level", "Bots", LEVELS, f"Choose the bots' level: {_either(LEVELS)}.", line=0, checked=0,
            words="{level} bots"),
    _one_of("speed", "Play speed", PLAY_SPEEDS, f"Choose a play speed: {_either(PLAY_SPEEDS)}.", line=1, checked=1,
            key="play_speed", words="{play_speed} play"),
)
OPTION = {o.name: o for o in OPTIONS}
_LINE = sorted(OPTIONS, key=lambda o: o.line)
_CHECKED = sorted(OPTIONS, key=lambda o: o.checked)

# A new table's settings: the rules' defaults and the bots' usual level.
DEFAULTS: Mapping[str, Any] = {**asdict(Rules()), "level": DEFAULT_LEVEL}
END_CHOICES = {c.value: dict(c.settings) for c in _ENDS}  # the match's ends by form value


def option_values(rules: Mapping[str, Any], level: str) -> dict[str, str]:
    """A table's options as the options form shows them, by field name."""
    settings = {**DEFAULTS, **rules, "level": level}
    return {o.name: o.value(settings) for o in OPTIONS}


DEFAULT_VALUES = option_values(DEFAULTS, DEFAULT_LEVEL)  # a new table's form


def table_options(form: Mapping[str, str], people: int) -> tuple[Rules, str] | str:
    """A table's rules and bots' level from a posted options form (a new table, or the
    room before the first deal); the message for the first value that is not allowed."""
    settings: dict[str, Any] = {}
    for option in _CHECKED:
        chosen = option.parse(form.get(option.name))
        if chosen is None:
            return option.message
        settings.update(chosen)
    level = settings.pop("level")
    if people == 1:
        settings["tempo"] = NO_CLOCK  # one person plays without clocks
    return Rules(**settings), level


# what a no-bidding table (the tourney rules: no bids, no nil, no bags) never says
BIDDING_ONLY = frozenset({"bag_penalty", "blind_nil", "set_scores_zero"})
TOURNEY_CLOCK = "tourney clock"  # what it says of its clock instead of a tempo


def rules_url(rules: Mapping[str, Any], level: str) -> str:
    """The rules page showing this table's options (``/rules?mode=…#this-table``); a
    no-bidding table's link leaves out the options it has no use for, as its rules line does."""
    values = option_values(rules, level)
    if values.get("mode") == "no_bidding":
        values = {k: v for k, v in values.items() if k not in BIDDING_ONLY}
    return "/rules?" + urlencode(values) + "#this-table"


def rules_line(rules: Mapping[str, Any], level: str) -> str:
    """A table's options in a line: ``Easy bots · normal play · relaxed tempo · to 500 · bag penalty``."""
    settings = {**DEFAULTS, **rules, "level": level}
    no_bidding = settings.get("mode") == "no_bidding"
    said = [o for o in _LINE if not (no_bidding and o.name in BIDDING_ONLY)]
    # a no-bidding table runs the tourney clock whatever its tempo, unless it has no clock
    # at all (``spades.clocks``)
    tourney_clock = no_bidding and settings.get("tempo") in CLOCK_TEMPOS
    words = (TOURNEY_CLOCK if tourney_clock and o.name == "tempo" else o.said(settings) for o in said)
    line = " · ".join(w for w in words if w).replace(" 1 hands", " 1 hand")
    return line[:1].upper() + line[1:]  # "Easy bots · …": the level, said first, with a capital
